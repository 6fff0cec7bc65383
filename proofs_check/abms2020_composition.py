"""Checks of Alon, Beimel, Moran, Stemmer, "Closure Properties for Private Classification and
Online Prediction", COLT 2020 (seed ``001_ed369e7bc84e5ca0.txt``): the statements about composed
classes G(H1, …, Hk) = {G(h1, …, hk) : hi ∈ Hi}.

- Theorem 2.1 and the MAJ_k bound of §4.2.2 are Õ(·) statements (constants and log factors not
  given): rows report the exact Ldim(G(…)) beside the reference curves k²d and 2^{2k}k²d
  ("measured").  The explicit steps of the §4.2.2 proof are checked exactly: the inclusion
  MAJ_k(H1…Hk) ⊆ MAJ_k(H…H) with H = ∪Hi (so Ldim is monotone) and the two gate identities
  ∧_{j≤k} z_j = MAJ_{2k−1}(z, 0^{k−1}) and ∨_{i≤m} z_i = MAJ_{2m−1}(z, 1^{m−1}).
- Theorem 2.2: T(Hi) < t for all i implies T(G(H1…Hk)) < 2^{4k·4^k·t}; checked, with the slack
  reported as log2(bound) − log2(T).
- Theorem 2.2, lower bound (§4.2.1): the random class H = {f_1…f_m, g_1…g_m} on [m],
  m = 2^{⌊t/5⌋}, built with a seeded generator exactly as described; T(H) ≤ t (the proof shows
  T(H) ≤ 2k', k' = 2⌊t/5⌋+1, with positive probability) and T(H∨H) ≥ m.
- Dudley's VC composition bound (§2.1.1): the exact form checked is the Sauer–Shelah–Perles
  product bound behind it — with n = VC(G(H1…Hk)), 2^n ≤ ∏_i Σ_{j≤d_i} C(n, j), d_i = VC(Hi)
  (G(H1…Hk) restricted to n points has at most ∏ |Hi restricted| patterns).  The paper's
  simplification 2^n ≤ n^{d1+…+dk} is evaluated separately, as written.
- Composition facts users rely on (values): XOR of two threshold classes = intervals with ∅;
  AND, OR, MAJ of threshold classes = the threshold class.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import sympy

from ltheory import catalog
from ltheory.core.boolean import Aggregation
from ltheory.core.compose import compose
from ltheory.core.hypothesis_class import HypothesisClass
from proofs_check.base import (
    Check,
    Evidence,
    Mutable,
    Proof,
    declare,
    dims,
    eq_row,
    evaluate_bound,
    le_row,
    tight,
    witness_of,
)

SOURCE = "001_ed369e7bc84e5ca0.txt"
_k, _d, _t, _n = sympy.symbols("k d t n", integer=True, positive=True)
_i = sympy.Symbol("i", integer=True, positive=True)
_j = sympy.Symbol("j", integer=True, nonnegative=True)
#: d[i] = VC(H_i), i = 1..k
_dv = sympy.IndexedBase("d")
#: Dudley's growth bound in its exact Sauer–Shelah–Perles form: ∏_{i≤k} Σ_{j≤d_i} C(n, j)
DUDLEY_BOUND = sympy.Product(sympy.Sum(sympy.binomial(_n, _j), (_j, 0, _dv[_i])), (_i, 1, _k))
#: the text's simplification of it: n^{d_1 + … + d_k}
DUDLEY_SIMPLIFIED = _n ** sympy.Sum(_dv[_i], (_i, 1, _k))


def _agg(name: str, k: int) -> Aggregation:
    return Aggregation.parse(name).bind(k)


def _random_agg(k: int, seed: int) -> Aggregation:
    rng = np.random.default_rng(seed)
    bits = "".join(str(int(b)) for b in rng.integers(0, 2, size=1 << k))
    return Aggregation.from_truth_table(bits, arity=k)


def _base_classes(quick: bool) -> Iterator[tuple[str, dict, HypothesisClass]]:
    for n in (6, 10) if quick else (6, 10, 14):
        yield "thresholds", {"n": n}, catalog.family("thresholds", n=n)
        yield "points", {"n": n}, catalog.family("points", n=n)
    for n in (5, 7) if quick else (5, 7, 9):
        yield "intervals", {"n": n}, catalog.family("intervals", n=n, empty=True)
    for seed in range(2 if quick else 6):
        yield "random", {"m": 8, "n": 7, "seed": seed}, catalog.family(
            "random", m=8, n=7, p=0.5, seed=seed)


def _aggregations(quick: bool) -> Iterator[tuple[str, Aggregation]]:
    for name, k in (("maj", 3), ("and", 2), ("or", 2), ("xor", 2), ("and", 3), ("or", 3),
                    ("xor", 3)):
        yield f"{name}{k}", _agg(name, k)
    for seed in range(1 if quick else 3):
        yield f"random G (k=2, seed {seed})", _random_agg(2, seed)
        yield f"random G (k=3, seed {seed})", _random_agg(3, 100 + seed)


def _too_big(H: HypothesisClass, k: int, limit: int = 200_000) -> bool:
    return len(H) ** k > limit


def _thm21(quick: bool) -> Iterator[Evidence]:
    for name, params, H in _base_classes(quick):
        d = dims(H, "ldim")["ldim"]
        for gname, G in _aggregations(quick):
            k = G.arity
            if _too_big(H, k):
                continue
            C = compose(G, *([H] * k))
            L = dims(C, "ldim")["ldim"]
            ref1, ref2 = k * k * max(d, 1), 4 ** k * k * k * max(d, 1)
            yield Evidence(f"{gname}({name}, …)", {**params, "G": gname, "k": k},
                           {"d": d, "Ldim(G(H…H))": L, "k²d": ref1, "2^{2k}k²d": ref2,
                            "Ldim/(2^{2k}k²d)": round(L / ref2, 4)},
                           {"reference 2^{2k}k²d": ref2}, None,
                           note="Õ statement (constants and polylog factors unspecified): "
                                "measured only; d = max Ldim(Hi) (max(d,1) in references)")


def _maj(quick: bool) -> Iterator[Evidence]:
    """§4.2.2 (4): Ldim(MAJ_k(H1…Hk)) ≤ Õ(k²d), and the proof's inclusion step."""
    cases = []
    for n in (5, 8) if quick else (5, 8, 12):
        cases.append(("thresholds", {"n": n}, catalog.family("thresholds", n=n)))
        cases.append(("points", {"n": n}, catalog.family("points", n=n)))
    cases.append(("intervals", {"n": 5}, catalog.family("intervals", n=5, empty=True)))
    for name, params, H in cases:
        d = dims(H, "ldim")["ldim"]
        for k in (1, 3, 5) if not quick else (1, 3):
            if _too_big(H, k, 400_000):
                continue
            C = compose(_agg("maj", k), *([H] * k))
            L = dims(C, "ldim")["ldim"]
            yield Evidence(f"MAJ_{k}({name}, …, {name})", {**params, "k": k},
                           {"d": d, "Ldim(MAJ_k)": L, "k²d": k * k * max(d, 1),
                            "Ldim/(k²d)": round(L / (k * k * max(d, 1)), 4)},
                           {"reference k²d": k * k * max(d, 1)}, None,
                           note="Õ(k²d): measured only")


def _maj_inclusion(quick: bool) -> Iterator[Evidence]:
    """MAJ_k(H1,…,Hk) ⊆ MAJ_k(H,…,H), H = ∪Hi, hence Ldim(…) ≤ Ldim(…): true by definition (each
    h_i is in H), so it checks the implementation (compose, union), not inequality (4)."""
    for seed in range(3 if quick else 8):
        k = 3
        pieces = [catalog.family("random", m=5, n=7, p=0.5, seed=10 * seed + i)
                  for i in range(k)]
        U = pieces[0].union(*pieces[1:])
        A = compose(_agg("maj", k), *pieces)
        B = compose(_agg("maj", k), *([U] * k))
        la, lb = dims(A, "ldim")["ldim"], dims(B, "ldim")["ldim"]
        sub = all(h in B for h in A)
        row = le_row("MAJ_3(H1,H2,H3) vs MAJ_3(∪,∪,∪) (random Hi)", {"seed": seed, "n": 7},
                     la, lb, {"Ldim(MAJ(H1,H2,H3))": la, "Ldim(MAJ(H,H,H))": lb,
                              "subset": sub}, lambda A=A: witness_of(A, "ldim"),
                     "the inclusion holds by definition; an implementation check")
        ok = bool(row.holds and sub)
        yield Evidence(row.subject, row.params, row.values, row.bound, ok, row.slack,
                       row.witness, row.note, row.tightness)


#: the constants the proof pads MAJ with to obtain AND (zeros) and OR (ones)
AND_PAD, OR_PAD = 0, 1


def _gate_identities(quick: bool) -> Iterator[Evidence]:
    ks = range(2, 5) if quick else range(2, 7)
    for k in ks:
        maj = _agg("maj", 2 * k - 1)
        for gate, pad in (("and", AND_PAD), ("or", OR_PAD)):
            lhs = _agg(gate, k)
            bad = [bits for bits in np.ndindex(*([2] * k))
                   if lhs(*bits) != maj(*bits, *([pad] * (k - 1)))]
            ok = not bad
            yield Evidence(f"{gate.upper()}_k = MAJ_{{2k−1}}(z, {pad}^{{k−1}})", {"k": k},
                           {"inputs checked": 2 ** k, "disagreements": len(bad)}, True, ok,
                           0 if ok else -len(bad),
                           None if ok else {"z": list(bad[0])}, "", 1.0 if ok else 0.0)


#: Theorem 2.2's bound, log2 of it: T(G(H1…Hk)) < 2^{4k·4^k·t}
THM22_LOG2_BOUND = 4 * _k * 4 ** _k * _t


def _growth_row(subject: str, params: dict, k: int, tH: int, T: int,
                note: str = "") -> Evidence:
    """A measured row of Theorem 2.2: the composed class's T against t = max T(Hi) + 1 and k."""
    t = tH + 1
    log2_bound = evaluate_bound(THM22_LOG2_BOUND, k=k, t=t)
    return Evidence(subject, {**params, "k": k},
                    {"T(Hi) (max)": tH, "t": t, "T(G(H…))": T,
                     "T(G)/T(Hi)": round(T / max(tH, 1), 4),
                     "log2 T(G) / (4k·4^k·t)": round(float(np.log2(max(T, 1))) / log2_bound, 8)},
                    {"log2 bound = 4k·4^k·t": log2_bound}, None,
                    note=note or "measured: growth of T under composition (the bound's shape "
                                 "2^{4k·4^k·t} is out of reach of classes that fit in memory)")


def grid_thresholds(n: int) -> tuple[HypothesisClass, HypothesisClass]:
    """Thresholds on the first and on the second coordinate of the n×n grid (T = n each)."""
    a, b = np.divmod(np.arange(n * n), n)
    ts = np.arange(n + 1)[:, None]
    return (HypothesisClass.from_matrix((a[None, :] >= ts).astype(np.uint8), domain=n * n),
            HypothesisClass.from_matrix((b[None, :] >= ts).astype(np.uint8), domain=n * n))


def _thm22(quick: bool) -> Iterator[Evidence]:
    """Measured growth of T(G(H1…Hk)) against t and k (Theorem 2.2 gives T < 2^{4k·4^k·t}),
    on families where T grows (a class with T(H) = |X| cannot grow: thresholds are left out)."""
    # (a) the §4.2.1 construction under OR: T(H) ≤ 2k' while T(H∨H) = m = 2^{⌊t/5⌋}
    for t, seed in ((25, 0),) if quick else ((25, 0), (25, 1), (27, 0), (29, 0)):
        H, m = lower_bound_class(t, seed)
        tH = dims(H, "tdim")["tdim"]
        T = m if _or_threshold_witness(H, m) else dims(compose(_agg("or", 2), H, H),
                                                         "tdim")["tdim"]
        yield _growth_row("§4.2.1 random class H, G = OR", {"t_construction": t, "seed": seed,
                                                              "m": m}, 2, tH, T,
                          "T(H∨H) = m exactly (m threshold-shattered points on [m])")
    # (b) growth in k at fixed t: OR_k / XOR_k of point functions (T(points) = 1)
    n = 8
    pts = catalog.family("points", n=n)
    for k in (2, 3) if quick else (2, 3, 4):
        for gname in ("or", "xor", "maj"):
            if gname == "maj" and k % 2 == 0:
                continue
            T = dims(compose(_agg(gname, k), *([pts] * k)), "tdim")["tdim"]
            yield _growth_row(f"{gname.upper()}_{k}(points, …)", {"n": n}, k, 1, T)
    # (c) growth in t at k = 2: AND / XOR of the two coordinate-threshold classes of a grid
    for n in (3, 4) if quick else (3, 4, 5):
        hx, hy = grid_thresholds(n)
        tH = max(dims(hx, "tdim")["tdim"], dims(hy, "tdim")["tdim"])
        for gname in ("and", "xor"):
            T = dims(compose(_agg(gname, 2), hx, hy), "tdim")["tdim"]
            yield _growth_row(f"{gname.upper()}(x-thresholds, y-thresholds) on the {n}×{n} grid",
                              {"n": n}, 2, tH, T)


def lower_bound_class(t: int, seed: int) -> tuple[HypothesisClass, int]:
    """§4.2.1: m = 2^{⌊t/5⌋}; H = {f_1…f_m, g_1…g_m} on [m] with f_i(j) = g_i(j) = 0 for j > i
    and, for each j ≤ i independently, one of f_i, g_i (uniformly) is 1 at j and the other 0."""
    m = 2 ** (t // 5)
    rng = np.random.default_rng(seed)
    F = np.zeros((m, m), dtype=np.uint8)
    Gm = np.zeros((m, m), dtype=np.uint8)
    for i in range(m):
        coins = rng.integers(0, 2, size=i + 1).astype(np.uint8)
        F[i, : i + 1] = coins
        Gm[i, : i + 1] = 1 - coins
    return HypothesisClass.from_matrix(np.concatenate([F, Gm]), domain=m), m


def _or_threshold_witness(H: HypothesisClass, m: int) -> bool:
    """T(H∨H) ≥ m: the points x_j = m+1−j with h_i = f_{m+1−i} ∨ g_{m+1−i} (= 1 on [1, m+1−i])
    threshold-shatter (h_i(x_j) = 1 iff i ≤ j), each h_i being a member of H∨H."""
    C = compose(_agg("or", 2), H, H)
    for i in range(1, m + 1):
        row = "".join("1" if x <= m + 1 - i else "0" for x in range(1, m + 1))
        if row not in C:
            return False
    return True


#: the proof's sharper bound (3): T(H) ≤ 2k', k' = 2⌊t/5⌋ + 1 (≤ t for t ≥ 6)
THM22_LOWER_SHARP = 2 * (2 * sympy.floor(_t / 5) + 1)
#: the statement: T(H) ≤ t and T(H∨H) ≥ m = 2^{⌊t/5⌋}
THM22_LOWER_REACH = 2 ** sympy.floor(_t / 5)


def _thm22_lower(quick: bool) -> Iterator[Evidence]:
    """Rows only where the statement has content: m = 2^{⌊t/5⌋} > t (t ≥ 25), so T(H) ≤ t is
    not implied by the domain size; the proof's sharper T(H) ≤ 2k' is part of the verdict."""
    cases = [(25, 0), (25, 1), (27, 0), (29, 0)] if quick else [
        (25, 0), (25, 1), (25, 2), (25, 3), (26, 0), (27, 0), (28, 0), (29, 0), (29, 1)]
    for t, seed in cases:
        H, m = lower_bound_class(t, seed)
        T = dims(H, "tdim")["tdim"]
        sharp = evaluate_bound(THM22_LOWER_SHARP, t=t)
        reach_m = evaluate_bound(THM22_LOWER_REACH, t=t)
        reach = m >= reach_m and _or_threshold_witness(H, m)
        ok = T <= sharp <= t and reach
        yield Evidence("random construction of §4.2.1", {"t": t, "seed": seed, "m": m},
                       {"|H|": len(H), "T(H)": T, "2k' = 4⌊t/5⌋+2": sharp,
                        "T(H) ≤ 2k'": T <= sharp, "T(H∨H) ≥ m": reach},
                       {"T(H) <= 2k'": sharp, "T(H) <=": t, "T(H∨H) >=": reach_m}, ok,
                       sharp - T, None if ok else witness_of(H, "tdim"),
                       f"m = {m} > t = {t}: T(H) ≤ t is not implied by the domain size; the "
                       "proof's event (no k'×k' all-ones rectangle) gives T(H) ≤ 2k'; "
                       "T(H∨H) = m exactly (m threshold-shattered points on an m-point domain)",
                       tight(T, sharp))
    # the proof's lemma at its extremal class: "no k'×k' all-ones rectangle ⇒ T(H) ≤ 2k'" is
    # met within 2 by the ladder h_i(x_j) = [i ≤ j] of size 2k' − 2 (its largest all-ones
    # square, rows ≤ a and columns ≥ a, is min(a, 2k' − 1 − a) ≤ k' − 1)
    for t in (25, 30) if quick else (25, 30, 35, 40):
        kp = 2 * (t // 5) + 1
        size = 2 * kp - 2
        L = HypothesisClass.from_matrix(np.triu(np.ones((size, size), dtype=np.uint8)))
        square = max(min(a, size - a + 1) for a in range(1, size + 1))
        T = dims(L, "tdim")["tdim"]
        sharp = evaluate_bound(THM22_LOWER_SHARP, t=t)
        ok = square < kp and T <= sharp
        yield Evidence("construction: the ladder of size 2k' − 2 (the lemma's extremal class: "
                       "no k'×k' all-ones rectangle, T = 2k' − 2)", {"t": t, "k'": kp},
                       {"T(H)": T, "largest all-ones square": square},
                       {"T(H) <= 2k'": sharp}, ok, sharp - T,
                       None if ok else witness_of(L, "tdim"),
                       "a class with T ≥ 2k' − 1 contains the ladder of size 2k' − 1, whose "
                       "rows ≤ k' and columns ≥ k' are a k'×k' all-ones rectangle",
                       tight(T, sharp))


def _dudley_pairs(quick: bool) -> Iterator[tuple[str, dict, Aggregation, list[HypothesisClass]]]:
    for name, params, H in _base_classes(quick):
        for gname, G in _aggregations(quick):
            if not _too_big(H, G.arity):
                yield f"{gname}({name}, …)", {**params, "G": gname}, G, [H] * G.arity
    pts = catalog.family("points", n=6)
    zero = HypothesisClass.from_strings(["000000"])
    yield "or(points, {0})", {"n": 6}, _agg("or", 2), [pts, zero]


def _dudley(quick: bool) -> Iterator[Evidence]:
    for name, params, G, hs in _dudley_pairs(quick):
        ds = [dims(H, "vc")["vc"] for H in hs]
        C = compose(G, *hs)
        n = dims(C, "vc")["vc"]
        bound = evaluate_bound(DUDLEY_BOUND, n=n, k=len(ds), d=ds)
        yield le_row(name, params, 2 ** n, bound, {"VC(Hi)": ds, "n = VC(G(…))": n, "2^n": 2 ** n},
                     lambda C=C: witness_of(C, "vc"),
                     "exact SSP form: 2^n ≤ ∏_i Σ_{j≤d_i} C(n, j)")


def _dudley_simplified(quick: bool) -> Iterator[Evidence]:
    for name, params, G, hs in _dudley_pairs(quick):
        ds = [dims(H, "vc")["vc"] for H in hs]
        C = compose(G, *hs)
        n = dims(C, "vc")["vc"]
        bound = evaluate_bound(DUDLEY_SIMPLIFIED, n=n, k=len(ds), d=ds)
        holds = 2 ** n <= bound
        yield Evidence(name, params, {"VC(Hi)": ds, "n": n, "2^n": 2 ** n}, bound, holds,
                       bound - 2 ** n, None if holds else witness_of(C, "vc"),
                       tightness=tight(2 ** n, bound), note=
                       "" if holds else
                       f"2^n = {2 ** n} > n^(d1+…+dk) = {bound}: the simplification "
                       "Σ_{j≤d} C(n,j) ≤ n^d fails for small n (e.g. n = 1, or n = 2, d = 1); "
                       "the exact SSP form holds on this row")


def _facts(quick: bool) -> Iterator[Evidence]:
    yield from _maj_inclusion(quick)
    for n in (4, 8, 12) if quick else (4, 8, 12, 20, 32):
        T = catalog.family("thresholds", n=n)
        I = catalog.family("intervals", n=n, empty=True)
        X = compose(_agg("xor", 2), T, T)
        yield eq_row("XOR(thresholds, thresholds) = intervals ∪ {∅}", {"n": n}, X == I, True,
                     {"|XOR|": len(X), "|intervals|": len(I)})
        for g, k in (("and", 2), ("or", 2), ("maj", 3), ("and", 3), ("or", 3)):
            if quick and k == 3 and n > 8:
                continue
            C = compose(_agg(g, k), *([T] * k))
            yield eq_row(f"{g.upper()}_{k}(thresholds, …) = thresholds", {"n": n, "k": k},
                         C == T, True, {"|G(T…T)|": len(C), "|T|": len(T)})


CHECKS = [
    Check("abms20.thm2.1", SOURCE, "Theorem 2.1",
          "Ldim(Hi) ≤ d for all i ⇒ Ldim(G(H1,…,Hk)) ≤ Õ(2^{2k} k² d) (Õ hides polylog k, "
          "log d factors; no constant given: measured against 2^{2k}k²d).",
          4 ** _k * _k ** 2 * _d, _thm21, kind="measured",
          falsifiable="measured only: an Õ(·) bound without constants has no verdict on finite "
                      "classes; rows report the exact Ldim beside 2^{2k}k²d"),
    Check("abms20.sec4.2.2.maj", SOURCE, "§4.2.2, inequality (4)",
          "For odd k, Ldim(MAJ_k(H1…Hk)) ≤ Õ(k²d) (measured against k²d).",
          _k ** 2 * _d, _maj, kind="measured",
          falsifiable="measured only: Õ(k²d) has no constant; rows report the exact Ldim beside "
                      "k²d (the proof's inclusion MAJ_k(H1…Hk) ⊆ MAJ_k(H…H) is true by "
                      "definition and is an implementation row of compose.facts)"),
    Check("abms20.sec4.2.2.gates", SOURCE, "§4.2.2, proof of (5)",
          "∧_{j≤k} z_j = MAJ_{2k−1}(z, 0^{k−1}) and ∨_{i≤m} z_i = MAJ_{2m−1}(z, 1^{m−1}).",
          None, _gate_identities, kind="value",
          falsifiable="fails on any input z (all 2^k are enumerated) where the gate and the "
                      "padded majority differ — e.g. padding AND with ones"),
    Check("abms20.thm2.2", SOURCE, "Theorem 2.2 (upper bound)",
          "T(Hi) < t for all i ⇒ T(G(H1,…,Hk)) < 2^{4k·4^k·t} (measured: the growth of T "
          "under composition against t and k).",
          2 ** THM22_LOG2_BOUND, _thm22, kind="measured",
          falsifiable="measured only: T ≤ |X| on classes that fit in memory can never approach "
                      "2^{4k·4^k·t} (≥ 2^128), so a verdict would be a tautology; rows report "
                      "T(G(H…)) against t and k (and log2 T over the bound's exponent), and "
                      "extremal.thm22 searches for the largest T(H∨H)/T(H) at each t"),
    Check("abms20.thm2.2.lower", SOURCE, "Theorem 2.2 (lower bound, §4.2.1 construction)",
          "For t ≥ 6 the random class H on [m], m = 2^{⌊t/5⌋}, has T(H) ≤ t (with positive "
          "probability; the proof gives T(H) ≤ 2k' = 4⌊t/5⌋+2) and T({h1∨h2}) ≥ 2^{⌊t/5⌋}.",
          THM22_LOWER_SHARP, _thm22_lower, kind="tightness",
          falsifiable="rows only with m > t (t ≥ 25), so T(H) ≤ t is not implied by |X|; fails "
                      "if the certified T(H) exceeds the proof's 2k' (or t), or the m OR-ed "
                      "hypotheses do not threshold-shatter [m]"),
    Check("dudley.vc_composition", SOURCE, "Dudley 1978, as used in §2.1.1",
          "With n = VC(G(H1…Hk)) and d_i = VC(Hi): 2^n ≤ ∏_i Σ_{j≤d_i} C(n, j) (Sauer–Shelah–"
          "Perles on each Hi; the growth function of G(H1…Hk) is at most the product).",
          DUDLEY_BOUND, _dudley,
          falsifiable="fails if a composed class shatters n points (certified) with 2^n above "
                      "the product of the binomial sums; or(points, {0}) meets it with equality"),
    Check("abms20.sec2.1.1.simplified", SOURCE, "§2.1.1 (Dudley, as simplified in the text)",
          "With n = VC(G(H1…Hk)): 2^n ≤ n^{d1+…+dk} (the text's form of the growth bound).",
          DUDLEY_SIMPLIFIED, _dudley_simplified,
          falsifiable="fails where 2^n > n^{Σd_i} (it does for n ≤ 2: a finding)"),
    Check("compose.facts", SOURCE, "Composition facts (§2 examples)",
          "XOR of two threshold classes = intervals with ∅; AND/OR/MAJ of threshold classes "
          "= the threshold class.", None, _facts, kind="value",
          falsifiable="set equalities of materialised classes: fail on any hypothesis in one "
                      "class and not the other"),
]

#: why the proof's bound 2k' can lose its last 2 (and more) and stay true
_THM22_LEMMA_PROOF = Proof("equivalent (still true): a class with T(H) ≥ 2k' − 1 contains "
                      "the ladder "
                      "h_i(x_j) = [i ≤ j] of size 2k' − 1, whose rows 1..k' and columns "
                      "k'..2k'−1 form a k'×k' all-ones rectangle; so the proof's event (no such "
                      "rectangle) gives T(H) ≤ 2k' − 2 = 4⌊t/5⌋, ≤ both 4⌊t/5⌋ and 4⌊t/5⌋ + 1.8 "
                      "(the ladder of size 2k' − 2 attains it: a row of the check); each mutant "
                      "minus 4⌊t/5⌋ is a constant ≥ 0 (sympy)",
                      range="t ≥ 0 (every class with T(H) ≤ t)",
                      verified_by="tests/test_proofs_check_equivalence.py::test_thm22_mutants_are_above_the_ladder_bound")

CHECKS = declare(CHECKS, {
    "abms20.thm2.2.lower": (Mutable(__name__, "THM22_LOWER_SHARP", -1, ({"t": 25},),
                                    equivalent={k: _THM22_LEMMA_PROOF for k in (
                                        "term 2 dropped", "constant 2 moved 10%")}),
                            Mutable(__name__, "THM22_LOWER_REACH", 1, ({"t": 25},))),
    "dudley.vc_composition": (Mutable(__name__, "DUDLEY_BOUND", -1,
                                      ({"n": 3, "k": 2, "d": [1, 1]},)),),
}, {
    "abms20.sec4.2.2.gates": "Boolean identities of gates (no numeric formula): every input "
                             "is enumerated",
    "compose.facts": "equalities of materialised classes (no numeric formula)",
})
