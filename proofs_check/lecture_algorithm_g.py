"""Algorithm G's global stability (lecture notes, seed ``002_4e9b9d6d42ab751c.txt``, §4.1,
Figures 1–2, after Bun, Livni & Moran 2020): with auxiliary sample size n = ⌈2^{d+2}/α⌉ and budget
N = 2^{2^{d+2}+1}·4^{d+1}·n, some hypothesis f has Pr[G(S) = f] > 2^{−2^{d+2}}/(d + 1) and
loss_D(f) < α.

Computed exactly for d = 1 (no simulation).  T ~ D^n enters the SOA only through the set A of
distinct points it contains (labels are the target's), so P[A] = Σ_{B ⊆ A} (−1)^{|A∖B|} D(B)^n
(inclusion–exclusion) gives the exact law of the version space V_A.  G draws k ∈ {0, 1}
uniformly.  k = 0: G outputs SOA(V_T).  k = 1 (the tournament D̃_1 of Figure 1): rounds draw
T_0, T_1 ~ D^n until f_0 = SOA(T_0) ≠ f_1 = SOA(T_1), each round costing 2n examples, so the
process fails (more than N examples) exactly when the first N/(2n) = 2^{2^{d+2}}·4^{d+1}/2 rounds
all collide: probability P[f_0 = f_1]^{N/(2n)}; otherwise, given f_0 ≠ f_1, x is uniform on the
points where they differ (as in the library's ``Tournament``), y uniform, S = T_b∘(x, y) with
f_b(x) ≠ y, and G outputs SOA(S∘T) for a fresh T ~ D^n.  The SOA is the library's
(``StandardOptimalAlgorithm`` through ``globally_stable.Tournament``).

The instances are every class of Littlestone dimension 1 on 3 points (full run; a few in
--quick), every target in it, distributions D on a grid of the simplex, α ∈ {1/2, 1/4}; the
row reports the worst instance: the smallest max_{f: loss < α} Pr[G = f].  The bound is far from
tight at d = 1 (it is a worst case over the induction on d, whose 2^{−2^{d+2}} is a union of
guesses): the measured minimum is 1/2 (to 1e-15) against 1/512 — met where every SOA run
returns the target, so the tournament never finds f_0 ≠ f_1 and fails, while k = 0 outputs the
target.

That grid is not a proof, but at d = 1 a short one covers every class of Ldim 1 (any finite
domain), every target c, every D and every α ∈ (0, 1) (``ALG_G_D1_PROOF``): with f_T = SOA(T),
P(f) = P[f_T = f], s = Σ_f P(f)² and R = N/(2n) = 4096 rounds,

1. the k = 1 branch, once f_0 ≠ f_1, outputs c whenever y = c(x) (probability 1/2): f_b errs at
   x, so V_{T_b} has Ldim 1 and its restriction to the true label has Ldim 0, i.e. is {c}; so
   Pr[G = c] ≥ P(c)/2 + (1 − s^R)/4;
2. an f with loss_D(f) ≥ α has P(f) ≤ (1 − α)^n ≤ e^{−8} (f_T is consistent with T, so T must
   miss {f ≠ c});
3. hence if s^R < 1/2, Pr[G = c] > 1/8 (loss 0); otherwise some f* has P(f*) ≥ s ≥ 2^{−1/4096}
   > e^{−8}, so f* is accurate and Pr[G = f*] ≥ P(f*)/2 > 0.4999.

So at d = 1 some accurate f has Pr[G = f] > 1/8, and every mutant of the bound is at most 1/8
at d = 1: all eight are equivalent mutants of the statement this check encodes (d = 1).  For
d ≥ 2 they are different statements that no row evaluates (G's budget N = 2^{17}·64·n at d = 2
is beyond an exact computation) — the check says nothing about them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import numpy as np
import sympy

from ltheory.core.hypothesis_class import HypothesisClass
from proofs_check.base import Check, Evidence, Mutable, Proof, declare, evaluate_bound, tight

SOURCE = "002_4e9b9d6d42ab751c.txt"
_d, _alpha = sympy.symbols("d alpha", positive=True)
#: Figure 2: Pr[G(S) = f] > 2^{−2^{d+2}}/(d + 1) for some f with loss_D(f) < α
ALG_G_STABILITY = 2 ** (-(2 ** (_d + 2))) / (_d + 1)
#: Algorithm G step 1: n = ⌈2^{d+2}/α⌉ and N = 2^{2^{d+2}+1}·4^{d+1}·n
ALG_G_AUX = 2 ** (_d + 2) / _alpha
ALG_G_BUDGET_FACTOR = 2 ** (2 ** (_d + 2) + 1) * 4 ** (_d + 1)


def _seen_law(D: np.ndarray, n: int) -> dict[int, float]:
    """P[the set of distinct points of T ~ D^n is A] for every A ⊆ support (bitmask), by
    inclusion–exclusion."""
    m = len(D)
    supp = [x for x in range(m) if D[x] > 0]
    out: dict[int, float] = {}
    for r in range(len(supp) + 1):
        for A in itertools.combinations(supp, r):
            mask = sum(1 << x for x in A)
            tot = 0.0
            for s in range(len(A) + 1):
                for B in itertools.combinations(A, s):
                    tot += (-1) ** (len(A) - s) * float(sum(D[list(B)])) ** n if B else (
                        (-1) ** len(A) * (1.0 if n == 0 else 0.0))
            if tot > 0:
                out[mask] = tot
    return out


def algorithm_g_distribution(H: HypothesisClass, target: int, D: np.ndarray, alpha: float,
                             d: int = 1) -> tuple[dict[str, float], float]:
    """Exact law of G's output (d = 1) and its failure probability; ``target`` indexes H."""
    from ltheory.privacy.learners.globally_stable import Tournament

    if d != 1:
        raise ValueError("the exact computation is for d = 1")
    n = math.ceil(float(evaluate_bound(ALG_G_AUX, d=d, alpha=alpha)))
    N = int(evaluate_bound(ALG_G_BUDGET_FACTOR, d=d)) * n
    rounds = N // (2 * n)
    tour = Tournament(H, d, n)
    c = H.matrix[target]

    def vspace(mask: int) -> int:
        V = tour.full
        for x in range(H.domain_size):
            if mask >> x & 1:
                V = tour.restrict(V, x, int(c[x]))
        return V

    seen = _seen_law(D, n)
    VT = {A: vspace(A) for A in seen}
    out: dict[str, float] = {}

    def add(f: str, p: float) -> None:
        out[f] = out.get(f, 0.0) + p

    for A, p in seen.items():                                  # k = 0
        add(tour.soa_hypothesis(VT[A]), 0.5 * p)
    fs = {A: tour.soa_hypothesis(VT[A]) for A in seen}
    collide = sum(p0 * p1 for A0, p0 in seen.items() for A1, p1 in seen.items()
                  if fs[A0] == fs[A1])
    success = 1.0 - collide ** rounds if collide < 1 else 0.0
    if success > 0:
        for A0, p0 in seen.items():                            # k = 1, given f_0 ≠ f_1
            for A1, p1 in seen.items():
                f0, f1 = fs[A0], fs[A1]
                if f0 == f1:
                    continue
                diff = [x for x in range(H.domain_size) if f0[x] != f1[x]]
                w = p0 * p1 / (1 - collide) * success / len(diff) / 2
                for x in diff:
                    for y in (0, 1):
                        b = A0 if int(f0[x]) != y else A1
                        S = tour.restrict(VT[b], x, y)
                        for A, pt in seen.items():
                            add(tour.soa_hypothesis(S & VT[A]), 0.5 * w * pt)
    return out, 0.5 * (1 - success)


def _loss(H: HypothesisClass, target: int, D: np.ndarray, f: str) -> float:
    c = H.matrix[target]
    return float(sum(D[x] for x in range(len(D)) if int(f[x]) != int(c[x])))


def best_accurate(H: HypothesisClass, target: int, D: np.ndarray, alpha: float
                  ) -> tuple[float, str, float]:
    """(max_{f: loss_D(f) < α} Pr[G = f], that f, P[Fail])."""
    dist, fail = algorithm_g_distribution(H, target, D, alpha)
    acc = [(p, f) for f, p in dist.items() if f != "FAIL" and _loss(H, target, D, f) < alpha]
    p, f = max(acc) if acc else (0.0, "")
    return p, f, fail


def _ldim1_classes(m: int) -> Iterator[HypothesisClass]:
    from ltheory.dimensions import littlestone_dimension

    funcs = ["".join(b) for b in itertools.product("01", repeat=m)]
    for r in range(2, len(funcs) + 1):
        for hs in itertools.combinations(funcs, r):
            H = HypothesisClass.from_strings(hs)
            if int(littlestone_dimension(H).value) == 1:
                yield H


def _grid(m: int, step: int) -> Iterator[np.ndarray]:
    for c in itertools.product(range(step + 1), repeat=m):
        if sum(c) == step:
            yield np.array(c, dtype=float) / step


QUICK_CASES = (("point functions ∪ {0} on 3 points", ("000", "100", "010", "001"), 0),
               ("thresholds on 3 points", ("000", "001", "011", "111"), 1),
               ("point functions on 3 points", ("100", "010", "001"), 0))


def _instances(quick: bool) -> Iterator[tuple[str, HypothesisClass, list[int]]]:
    if quick:
        for name, hs, t in QUICK_CASES:
            yield name, HypothesisClass.from_strings(hs), [t]
    else:
        for H in _ldim1_classes(3):
            yield ("every class of Ldim 1 on 3 points", H, list(range(len(H))))


def _rows(quick: bool) -> Iterator[Evidence]:
    d = 1
    bound = evaluate_bound(ALG_G_STABILITY, d=d)
    for alpha in (0.25,) if quick else (0.5, 0.25):
        worst = (math.inf, None)
        count = 0
        by_name: dict[str, tuple[float, object]] = {}
        for name, H, targets in _instances(quick):
            for t in targets:
                for D in _grid(3, 4):
                    p, f, fail = best_accurate(H, t, D, alpha)
                    count += 1
                    case = {"class": ["".join(map(str, r)) for r in H.matrix], "target": t,
                        "D": D.tolist(), "f": f, "P[Fail]": fail}
                    if p < by_name.get(name, (math.inf,))[0]:
                        by_name[name] = (p, case)
                    if p < worst[0]:
                        worst = (p, case)
        for name, (p, case) in by_name.items():
            ok = p > bound
            yield Evidence(f"{name}, every target, D on a grid of the simplex",
                           {"d": d, "alpha": alpha,
                            "n": math.ceil(float(evaluate_bound(ALG_G_AUX, d=d, alpha=alpha))),
                            "instances": count},
                           {"min over instances of max_{f: loss<α} Pr[G = f]": p,
                            "worst instance": case}, bound, ok, p - float(bound),
                           None if ok else case,
                           "exact law of G (no simulation); the smallest stability met",
                           tight(p, bound, lower=True))


CHECKS = [
    Check("lecture7.algorithm_g", SOURCE, "Algorithm G (global stability, d = 1)",
          "With n = ⌈2^{d+2}/α⌉ and N = 2^{2^{d+2}+1}4^{d+1}n, some f has Pr[G(S) = f] > "
          "2^{−2^{d+2}}/(d + 1) and loss_D(f) < α.", ALG_G_STABILITY, _rows,
          falsifiable="exact at d = 1: fails if on some class of Ldim 1, target and D every "
                      "hypothesis of loss < α has Pr[G = f] ≤ 1/512"),
]

#: rounds of the k = 1 tournament at d = 1 before the budget N runs out: N/(2n)
D1_ROUNDS = 2 ** (2 ** 3 + 1) * 4 ** 2 // 2

ALG_G_D1_PROOF = Proof("equivalent at d = 1 (the statement this check encodes; every mutant "
                  "is ≤ 1/8 "
                  "there): for every class of Ldim 1 on any finite domain, target c, D and α, "
                  "with P(f) = P[SOA(T) = f], s = Σ P(f)², R = 4096 rounds: (1) the k = 1 "
                  "branch, once f_0 ≠ f_1, outputs c when y = c(x) (f_b errs at x, so V_{T_b} "
                  "has Ldim 1 and its restriction to c(x) has Ldim 0: it is {c}), so Pr[G = c] "
                  "≥ P(c)/2 + (1 − s^R)/4; (2) an f of loss ≥ α has P(f) ≤ (1 − α)^⌈8/α⌉ ≤ "
                  "e^{−8}; (3) if s^R < 1/2, Pr[G = c] > 1/8; else some f* has P(f*) ≥ s ≥ "
                  "2^{−1/4096} > e^{−8}, so f* is accurate and Pr[G = f*] > 0.4999.  So some "
                  "accurate f has Pr[G = f] > 1/8 at d = 1 (the exact rows meet 1/2; "
                  "d1_proof_terms recomputes (1) on them).  Numerical steps for every α ∈ (0, 1): "
                  "ln(1 − α) ≤ −α gives (1 − α)^⌈8/α⌉ ≤ (1 − α)^{8/α} ≤ e^{−8}; 2^{−1/4096}/2 > "
                  "0.4999 > 1/8 and e^{−8} < 2^{−1/4096} in interval arithmetic; every mutant "
                  "is ≤ 1/8 at d = 1, exactly",
                  range="d = 1 (the statement this check encodes): every class of Ldim 1 on a "
                        "finite domain, target, distribution D and α ∈ (0, 1)",
                  verified_by="tests/test_proofs_check_mutation.py::test_algorithm_g_equivalent_mutants_proof_steps")


def d1_proof_terms(H: HypothesisClass, target: int, D: np.ndarray, alpha: float
                   ) -> tuple[float, float, float]:
    """(Pr[G = c], P(c)/2 + (1 − s^R)/4, max P(f) over f of loss ≥ α) from the exact law at
    d = 1: ALG_G_D1_PROOF's step (1) says the first is ≥ the second, step (2) that the third
    is ≤ e^{−8}."""
    from ltheory.privacy.learners.globally_stable import Tournament

    n = math.ceil(float(evaluate_bound(ALG_G_AUX, d=1, alpha=alpha)))
    tour = Tournament(H, 1, n)
    c = H.matrix[target]
    seen = _seen_law(D, n)
    law: dict[str, float] = {}
    for A, p in seen.items():
        V = tour.full
        for x in range(H.domain_size):
            if A >> x & 1:
                V = tour.restrict(V, x, int(c[x]))
        f = tour.soa_hypothesis(V)
        law[f] = law.get(f, 0.0) + p
    cs = "".join(str(int(v)) for v in c)
    s = sum(p * p for p in law.values())
    dist, _ = algorithm_g_distribution(H, target, D, alpha)
    bad = [p for f, p in law.items() if _loss(H, target, D, f) >= alpha]
    return (dist.get(cs, 0.0), law.get(cs, 0.0) / 2 + (1 - s ** D1_ROUNDS) / 4,
            max(bad, default=0.0))


CHECKS = declare(CHECKS, {
    "lecture7.algorithm_g": (Mutable(__name__, "ALG_G_STABILITY", 1, ({"d": 1},),
                                     equivalent={"*": ALG_G_D1_PROOF}),),
})
