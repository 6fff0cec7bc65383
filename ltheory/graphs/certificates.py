"""Independent checkers for contradiction-graph witnesses (clique and fractional clique).

These checkers share no code with the algorithms in `ltheory.graphs` (they read the class only
through ``H.domain`` and ``H.matrix`` and the witness in its JSON form, the [witness
formats][witness-formats]), and use exact rational arithmetic (`fractions.Fraction`) throughout.

Definitions (Alon, Moran, Schefler, Yehudayoff, "A unified characterization of private
learnability via graph theory", COLT 2024; seed 002 §5, Definitions 3–5): the vertices of G_m(H)
are H-realizable samples of length m, two contradict when some point carries label 0 in one and
1 in the other.  A *fractional clique* is δ ≥ 0 on the vertices with Σ_{v∈I} δ(v) ≤ 1 for every
independent set I; ω*_m is the largest total.  By LP duality ω*_m equals the fractional
chromatic number: the least total Σ y_I of weights y ≥ 0 on independent sets with
Σ_{I∋v} y_I ≥ 1 for every vertex v.

**Clique witness** (a list of samples, each a list of m ``[LABEL, BIT]`` pairs): every sample has
length m, known labels, bits 0/1, is realised by some h ∈ H, any two samples contradict, and
their number equals the claimed value.  This proves ω_m ≥ value.

**Fractional-clique witness** ``{"weights": [[SAMPLE, w], ...], "dual": [[[SAMPLE, ...], y],
...]}`` (weights are ints, floats or exact strings ``"p/q"``; the value likewise):

1. *Primal feasibility.*  Every weighted sample is a realizable sample of length m, w ≥ 0, and
   the maximum weight of an independent set is ≤ 1.  An independent set is a family of pairwise
   consistent samples; consistency is a per-point condition, so the family's pairs form one
   partial labelling, extendable to a total g: X → {0,1}.  Hence the maximum is
   max_g Σ{w_S : S consistent with g}, computed exactly (enumerating g on the points the
   weighted samples use, or, beyond 20 points, networkx ``max_weight_clique`` on the
   compatibility graph with integer weights after scaling by the common denominator).
   Σ w = value proves ω*_m ≥ value.
2. *Dual feasibility.*  Each dual entry lists pairwise consistent samples; their union U is a
   consistent partial labelling and the entry stands for the independent set
   I_U = {vertices S : every pair of S is in U}.  y ≥ 0, and every vertex of the reduced graph
   G'_m (realizable labellings of k = min(m, |X|) distinct points, enumerated here from H) has
   Σ_{U ⊇ S} y_U ≥ 1.  By the homomorphism G_m → G'_m, S ↦ f(S) ⊇ set(S)
   (`ltheory.graphs.contradiction`), f(S) ⊆ U implies set(S) ⊆ U, so this also covers
   every literal vertex of G_m.  Σ y = value proves ω*_m ≤ value.
   The dual may instead be ``{"linear": {LABEL: BITS, ...}}``, one r-bit vector v_x per domain
   point: the colouring by the 2^r labellings g_a(x) = ⟨a, v_x⟩ over GF(2), each of weight
   2^k / 2^r, total 2^k.  The checker verifies that every k of the vectors are linearly
   independent (`ltheory.graphs.colourings.independent_up_to`); then every labelling of k
   points is consistent with exactly 2^(r-k) of the g_a, so every vertex is covered exactly
   once (`ltheory.graphs.colourings`).  Accepted only when value = 2^k.
3. Equal totals prove ω*_m = value.

Every failure raises [`CertificateError`][ltheory.CertificateError] naming the check that failed.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import CertificateError
from ltheory.graphs.colourings import independent_up_to

__all__ = [
    "verify_clique",
    "verify_fractional_bounds",
    "verify_fractional_clique",
    "verify_graph_result",
]

_ENUM_POINTS = 20


def _check_inputs(H: Any, m: Any) -> None:
    if not isinstance(H, HypothesisClass):
        raise CertificateError(f"expected a HypothesisClass, got {type(H).__name__}")
    if len(H) == 0:
        raise CertificateError("the empty class has no contradiction graph")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise CertificateError(f"m must be an integer >= 1, got {m!r}")


def _rational(x: Any, what: str) -> Fraction:
    if isinstance(x, bool):
        raise CertificateError(f"{what}: expected a number, got {x!r}")
    try:
        if isinstance(x, (int, np.integer)):
            return Fraction(int(x))
        if isinstance(x, float):
            if not math.isfinite(x):
                raise ValueError
            return Fraction(x)
        if isinstance(x, (str, Fraction)):
            return Fraction(x)
    except (ValueError, ZeroDivisionError):
        pass
    raise CertificateError(f"{what}: expected an int, a float or a string 'p/q', got {x!r}")


def _sample(H: HypothesisClass, m: int, s: Any, where: str) -> dict[int, int]:
    """Parse a sample; check its length, labels and bits, consistency; return {point: bit}."""
    if not isinstance(s, (list, tuple)) or len(s) != m:
        raise CertificateError(f"{where}: a sample must be a list of {m} [LABEL, BIT] pairs, got "
                               f"{s!r}")
    index = {lab: i for i, lab in enumerate(H.domain)}
    out: dict[int, int] = {}
    for pair in s:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise CertificateError(f"{where}: {pair!r} is not a [LABEL, BIT] pair")
        lab, b = pair
        if not isinstance(lab, str) or lab not in index:
            raise CertificateError(f"{where}: {lab!r} is not a domain label (labels are strings "
                                   "of H.domain)")
        if isinstance(b, bool) or b not in (0, 1):
            raise CertificateError(f"{where}: label bits must be 0 or 1, got {b!r}")
        x = index[lab]
        if out.get(x, b) != b:
            raise CertificateError(f"{where}: the sample labels {lab!r} both 0 and 1 (not "
                                   "realizable)")
        out[x] = int(b)
    return out


def _realizable(H: HypothesisClass, s: dict[int, int], where: str) -> None:
    M = H.matrix
    ok = np.ones(M.shape[0], dtype=bool)
    for x, b in s.items():
        ok &= M[:, x] == b
    if not ok.any():
        raise CertificateError(f"{where}: no hypothesis of H realises the sample")


def _contradict(a: dict[int, int], b: dict[int, int]) -> bool:
    return any(b.get(x, y) != y for x, y in a.items())


def verify_clique(H: HypothesisClass, m: int, witness: Any, value: Any) -> None:
    """Check that ``witness`` is a clique of G_m(H) of size ``value`` (see
    [`ltheory.graphs.certificates`][ltheory.graphs.certificates])."""
    _check_inputs(H, m)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise CertificateError(f"the clique number must be an integer, got {value!r}")
    if not isinstance(witness, (list, tuple)):
        raise CertificateError("a clique witness must be a list of samples")
    if len(witness) != value:
        raise CertificateError(f"the witness has {len(witness)} samples but the claimed value is "
                               f"{value}")
    if H.domain_size == 0 and value != 0:
        raise CertificateError("over an empty domain there is no sample of length >= 1")
    samples = []
    for i, s in enumerate(witness):
        d = _sample(H, int(m), s, f"sample {i}")
        _realizable(H, d, f"sample {i}")
        samples.append(d)
    for i, a in enumerate(samples):
        for j in range(i + 1, len(samples)):
            if not _contradict(a, samples[j]):
                raise CertificateError(f"samples {i} and {j} do not contradict each other (no "
                                       "point labelled 0 in one and 1 in the other)")


def _max_weight_consistent(n: int, samples: list[dict[int, int]], weights: list[Fraction]
                           ) -> Fraction:
    """max over total labellings g of Σ{w : sample consistent with g}, exactly."""
    keep = [(s, w) for s, w in zip(samples, weights, strict=True) if w > 0]
    if not keep:
        return Fraction(0)
    den = math.lcm(*(w.denominator for _, w in keep))
    ints = [int(w * den) for _, w in keep]
    pts = sorted({x for s, _ in keep for x in s})
    if len(pts) <= _ENUM_POINTS and sum(ints) < 2 ** 62:
        where = {x: j for j, x in enumerate(pts)}
        mask = np.array([sum(1 << where[x] for x in s) for s, _ in keep], dtype=np.int64)
        val = np.array([sum(b << where[x] for x, b in s.items()) for s, _ in keep],
                       dtype=np.int64)
        wv = np.array(ints, dtype=np.int64)
        best = 0
        step = 1 << 14
        for start in range(0, 1 << len(pts), step):
            g = np.arange(start, min(start + step, 1 << len(pts)), dtype=np.int64)
            ok = (g[:, None] & mask[None, :]) == val[None, :]
            best = max(best, int((ok * wv[None, :]).sum(axis=1).max()))
        return Fraction(best, den)
    import networkx as nx

    G = nx.Graph()
    for i, w in enumerate(ints):
        G.add_node(i, w=w)
    for i, (a, _) in enumerate(keep):
        for j in range(i + 1, len(keep)):
            if not _contradict(a, keep[j][0]):
                G.add_edge(i, j)
    _, best = nx.algorithms.clique.max_weight_clique(G, weight="w")
    return Fraction(int(best), den)


def _reduced_vertices(H: HypothesisClass, m: int) -> list[dict[int, int]]:
    n = H.domain_size
    k = min(m, n)
    M = H.matrix
    out = []
    for T in itertools.combinations(range(n), k):
        for row in sorted({tuple(r) for r in M[:, list(T)].tolist()}):
            out.append(dict(zip(T, row, strict=True)))
    return out


def verify_fractional_clique(H: HypothesisClass, m: int, witness: Any, value: Any) -> None:
    """Check a fractional clique and a fractional colouring of G_m(H), both of total ``value``
    (see [`ltheory.graphs.certificates`][ltheory.graphs.certificates]).  Proves ω*_m(H) = value."""
    verify_fractional_bounds(H, m, witness, value, value)


def verify_fractional_bounds(H: HypothesisClass, m: int, witness: Any, lower: Any,
                             upper: Any) -> None:
    """Check that the weights are a fractional clique of total ``lower`` (ω*_m ≥ lower) and the
    dual a fractional colouring of total ``upper`` (ω*_m ≤ upper); used for budgeted results."""
    _check_inputs(H, m)
    m = int(m)
    lo = _rational(lower, "lower")
    hi = _rational(upper, "upper")
    if not isinstance(witness, dict) or "weights" not in witness or "dual" not in witness:
        raise CertificateError('a fractional-clique witness is {"weights": [[SAMPLE, w], ...], '
                               '"dual": [[[SAMPLE, ...], y], ...]}')
    n = H.domain_size
    k = min(m, n)
    if n == 0:
        if lo != 0 or hi != 0 or witness["weights"] or witness["dual"]:
            raise CertificateError("over an empty domain G_m is empty: value 0, no weights")
        return
    _check_primal(H, m, witness["weights"], lo)
    dual = witness["dual"]
    if isinstance(dual, dict):
        _check_linear_dual(H, k, dual, hi)
        return
    _check_dual(H, m, dual, hi)


def _check_linear_dual(H: HypothesisClass, k: int, dual: dict[str, Any], val: Fraction) -> None:
    vectors = dual.get("linear")
    if set(dual) != {"linear"} or not isinstance(vectors, dict):
        raise CertificateError('a linear dual is {"linear": {LABEL: BITS, ...}}')
    if val != 2 ** k:
        raise CertificateError(f"a linear colouring has total 2^{k} = {2 ** k}, not {val}")
    labels = [str(lab) for lab in H.domain]
    if sorted(map(str, vectors)) != sorted(labels):
        raise CertificateError("the linear dual must give one vector for every domain point")
    bits = [vectors[lab] if lab in vectors else vectors[str(lab)] for lab in H.domain]
    r = len(bits[0]) if bits and isinstance(bits[0], str) else 0
    if r == 0 or any(not isinstance(b, str) or len(b) != r or b.strip("01") for b in bits):
        raise CertificateError("the linear dual's vectors must be non-empty bit strings of one "
                               "length")
    bad = independent_up_to([int(b, 2) for b in bits], k)
    if bad is not None:
        raise CertificateError(f"the linear dual's vectors of points "
                               f"{[H.domain[i] for i in bad]} are linearly dependent, so the "
                               f"labellings are not {k}-wise independent")


def _check_primal(H: HypothesisClass, m: int, entries: Any, val: Fraction) -> None:
    samples: list[dict[int, int]] = []
    weights: list[Fraction] = []
    if not isinstance(entries, (list, tuple)):
        raise CertificateError("weights must be a list of [SAMPLE, w] pairs")
    for i, entry in enumerate(entries):
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise CertificateError(f"weights[{i}] must be a [SAMPLE, w] pair")
        s = _sample(H, m, entry[0], f"weights[{i}]")
        _realizable(H, s, f"weights[{i}]")
        w = _rational(entry[1], f"weights[{i}] weight")
        if w < 0:
            raise CertificateError(f"weights[{i}] is negative ({w})")
        samples.append(s)
        weights.append(w)
    total = sum(weights, Fraction(0))
    if total != val:
        raise CertificateError(f"the weights sum to {total}, not the claimed value {val}")
    mwis = _max_weight_consistent(H.domain_size, samples, weights)
    if mwis > 1:
        raise CertificateError(f"not a fractional clique: an independent set has weight {mwis} "
                               "> 1")


def _check_dual(H: HypothesisClass, m: int, dual: Any, val: Fraction) -> None:
    if not isinstance(dual, (list, tuple)):
        raise CertificateError('dual must be a list of [[SAMPLE, ...], y] pairs or '
                               '{"linear": {LABEL: BITS, ...}}')
    unions: list[dict[int, int]] = []
    ys: list[Fraction] = []
    for i, entry in enumerate(dual):
        if not isinstance(entry, (list, tuple)) or len(entry) != 2 or not isinstance(
                entry[0], (list, tuple)):
            raise CertificateError(f"dual[{i}] must be a [[SAMPLE, ...], y] pair")
        U: dict[int, int] = {}
        for j, s in enumerate(entry[0]):
            d = _sample(H, m, s, f"dual[{i}] sample {j}")
            for x, b in d.items():
                if U.get(x, b) != b:
                    raise CertificateError(f"dual[{i}] is not independent: sample {j} "
                                           "contradicts an earlier sample of the set")
                U[x] = b
        y = _rational(entry[1], f"dual[{i}] weight")
        if y < 0:
            raise CertificateError(f"dual[{i}] has a negative weight ({y})")
        unions.append(U)
        ys.append(y)
    dtotal = sum(ys, Fraction(0))
    if dtotal != val:
        raise CertificateError(f"the dual weights sum to {dtotal}, not the claimed value {val}")
    for v in _reduced_vertices(H, m):
        cover = sum((y for U, y in zip(unions, ys, strict=True)
                     if all(U.get(x) == b for x, b in v.items())), Fraction(0))
        if cover < 1:
            lab = [[H.domain[x], b] for x, b in sorted(v.items())]
            raise CertificateError(f"the dual covers the vertex {lab} only {cover} < 1 times")


def verify_graph_result(H: HypothesisClass, m: int, result: Any) -> None:
    """Verify a [`DimensionResult`][ltheory.DimensionResult] of kind "clique" (its lower bound) or
    "fclique" (its
    lower and upper bounds, exact rationals in ``witness["lower"]``/``["upper"]``)."""
    if result.kind == "clique":
        verify_clique(H, m, result.witness, result.lower)
    elif result.kind == "fclique":
        w = result.witness
        if not isinstance(w, dict):
            raise CertificateError("a fractional-clique witness must be a JSON object")
        lo = _rational(w.get("lower", result.lower), "lower")
        hi = _rational(w.get("upper", result.upper), "upper")
        if float(lo) != float(result.lower) or float(hi) != float(result.upper):
            raise CertificateError(f"the witness bounds {lo}..{hi} are not the result's bounds "
                                   f"{result.lower}..{result.upper}")
        verify_fractional_bounds(H, m, w, lo, hi)
    else:
        raise CertificateError(f"not a contradiction-graph result: kind {result.kind!r}")
