"""Checks of Bun & Fang, "Privately Learning Decision Lists and a Differentially Private Winnow"
(arXiv 2602.07370; seed ``000_999a11082cbb8294.txt``).  Several formulas were lost in the seed's
text extraction and could not be retrieved from the published text (the arXiv HTML in the search
corpus yields only the abstract and introduction); where a check needs one, the form used is the
standard one the text cites and is stated in the check's text.

- Proposition 2.1 (exponential mechanism): ε-DP, and for every t the output's score is at least
  OPT − 2(ln|R| + t)/ε with probability ≥ 1 − e^{−t} (McSherry & Talwar's form; the deviation
  term was lost in extraction).  Evaluated exactly on the project's
  ``ltheory.privacy.mechanisms.ExponentialMechanism``: its exact ε on neighbouring datasets
  built so the bound is nearly met, and its exact tail probability on adversarial score vectors.
- Proposition 3.3 (the covering algorithm never gets stuck): for a sample labelled by an
  F-decision list, at every iteration of the *private* learner (``PrivateDecisionListLearner``,
  the algorithm of §3.1) the remaining sample is consistent with some decision list over the
  remaining features.  Consistency is decided by an exhaustive backtracking search over decision
  lists (not by greedy covering, whose completeness is what the proposition asserts).
- Lemma 4.10 (decision lists are large-margin halfspaces): the optimal ℓ1-margin of every
  monotone 1-decision list of length ℓ with r alternations (an LP over {0,1}^ℓ, certified by
  explicit rational weights) against the margin bound 1/(ℓ+1)^{r+1}, the minimum over all bit
  patterns at each (ℓ, r); and n-independence (irrelevant variables do not change it).
- Theorem 3.5 / Corollary A.8 (sample complexity, Õ(·) with lost formulas) and §4.4 (an Ω(log T)
  lower bound over all private online learners) are listed as not evaluable; the privacy part of
  Theorem 3.5 is a row of ``privacy.claims``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from fractions import Fraction
from functools import cache

import numpy as np
import sympy
from scipy.optimize import linprog

from ltheory.privacy.auditing.exact import aligned, exact_epsilon
from ltheory.privacy.learners.decision_lists import (
    FeatureSet,
    PrivateDecisionListLearner,
    conjunction_features,
)
from ltheory.privacy.learners.winnow import decision_list_halfspace
from ltheory.privacy.mechanisms import ExponentialMechanism
from proofs_check.base import (
    Check,
    Evidence,
    Mutable,
    Proof,
    declare,
    evaluate_bound,
    not_evaluable,
    tight,
)

SOURCE = "000_999a11082cbb8294.txt"
_eps, _t, _R = sympy.symbols("epsilon t R", positive=True)
_ell, _r = sympy.symbols("ell r", integer=True, nonnegative=True)
#: Proposition 2.1 (utility): P[q(D, r) < OPT − Δ] ≤ e^{−t} for Δ = 2(ln|R| + t)/ε
PROP21_DEVIATION = 2 * (sympy.log(_R) + _t) / _eps
PROP21_TAIL = sympy.exp(-_t)
#: Proposition 2.1 (privacy): ε
PROP21_EPSILON = _eps
#: Lemma 4.10's margin (the published formula was lost in extraction; this is the form checked)
LEMMA410_MARGIN = 1 / (_ell + 1) ** (_r + 1)


# ----------------------------------------------------------------------------- Prop. 2.1

def _em_case(N: int, m: int, eps: float) -> tuple[ExponentialMechanism, tuple, tuple]:
    """N hypotheses on m points: h* = all zeros, the others one on point 0 and zero elsewhere but
    for a few random points; d0 labels every point 0, d1 relabels point 0 as 1 (one
    substitution), so h*'s utility drops by 1 and every other hypothesis' rises by 1."""
    rng = np.random.default_rng(N * 1000 + m)
    M = np.zeros((N, m), dtype=np.uint8)
    M[1:, 0] = 1
    for i in range(1, N):
        M[i, 1 + (i % (m - 1))] = 1
    M[1:, 1:] |= (rng.random((N - 1, m - 1)) < 0.1).astype(np.uint8)
    d0 = tuple((x, 0) for x in range(m))
    d1 = ((0, 1),) + d0[1:]
    return ExponentialMechanism(M, eps), d0, d1


def _em_tail(scores: np.ndarray, eps: float, delta: float) -> float:
    """P[q(output) < max q − Δ] for the exponential mechanism P[r] ∝ exp(ε q(r)/2)."""
    s = eps * scores / 2
    w = np.exp(s - s.max())
    p = w / w.sum()
    return float(p[scores < scores.max() - delta].sum())


def _prop21(quick: bool) -> Iterator[Evidence]:
    for N, m, eps in ((8, 6, 1.0), (64, 8, 1.0), (64, 8, 0.25)) if quick else (
            (8, 6, 1.0), (64, 8, 1.0), (64, 8, 0.25), (256, 10, 1.0), (256, 10, 2.0)):
        mech, d0, d1 = _em_case(N, m, eps)
        p = mech.probabilities(d0)
        q = mech.probabilities(d1)
        keys, a, b = aligned(dict(enumerate(p)), dict(enumerate(q)))
        e = exact_epsilon(a, b)
        bound = evaluate_bound(PROP21_EPSILON, epsilon=eps)
        ok = e <= bound + 1e-12
        yield Evidence("privacy: exact ε of ExponentialMechanism on one substitution",
                       {"|R|": N, "points": m, "epsilon": eps},
                       {"exact epsilon": e, "P0(h*)": float(p[0]), "P1(h*)": float(q[0])},
                       bound, ok, bound - e, None if ok else {"d0": d0, "d1": d1},
                       "h*'s utility drops by 1 and every other one rises by 1: the exact ε "
                       "approaches ε as h*'s probability vanishes", tight(e, bound))
    # utility: one optimal candidate and N − 1 just below OPT − Δ (the bound is nearly met)
    for N, eps, t in ((2, 1.0, 1.0), (16, 1.0, 2.0), (1000, 0.5, 3.0)) if quick else (
            (2, 1.0, 1.0), (16, 1.0, 2.0), (1000, 0.5, 3.0), (10 ** 5, 0.1, 5.0),
            (50, 2.0, 0.5)):
        delta = float(evaluate_bound(PROP21_DEVIATION, epsilon=eps, t=t, R=N))
        bound = float(evaluate_bound(PROP21_TAIL, t=t))
        scores = np.full(N, -(delta + 1e-9))
        scores[0] = 0.0
        tail = _em_tail(scores, eps, delta)
        ok = tail <= bound
        yield Evidence("utility: one optimum, |R| − 1 candidates just below OPT − Δ",
                       {"|R|": N, "epsilon": eps, "t": t, "Δ = 2(ln|R|+t)/ε": delta},
                       {"P[q < OPT − Δ] (exact)": tail}, bound, ok, bound - tail,
                       None if ok else {"scores": "OPT at one candidate, OPT − Δ − 1e-9 at "
                                                  "the others"},
                       "the bound is |R|·e^{−εΔ/2}/… ≈ e^{−t}(|R|−1)/|R|: nearly tight",
                       tight(tail, bound))


# ----------------------------------------------------------------------------- Prop. 3.3

def _eval_list(values: np.ndarray, rules: list[tuple[int, int]], default: int,
               xs: np.ndarray) -> np.ndarray:
    out = np.full(len(xs), default, dtype=np.uint8)
    undecided = np.ones(len(xs), dtype=bool)
    for j, b in rules:
        fire = values[j, xs] & undecided
        out[fire] = b
        undecided &= ~fire
    return out


def dl_consistent(F: FeatureSet, features: frozenset[int], xs: np.ndarray,
                  ys: np.ndarray) -> list[tuple[int, int]] | None:
    """A decision list over ``features`` (⊆ F) consistent with the sample (xs, ys), found by an
    exhaustive backtracking search (memoised on the remaining features and points), or None if
    there is none.  Independent of greedy covering: every feature that fires on a label-pure
    part of the remaining sample is tried as the next rule."""
    vals = F.values.astype(bool)
    pts = tuple(sorted(set(int(x) for x in xs)))
    label = {}
    for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
        if label.setdefault(int(x), int(y)) != int(y):
            return None                       # one point with both labels: no function fits

    @cache
    def rec(avail: frozenset[int], left: tuple[int, ...]) -> tuple[tuple[int, int], ...] | None:
        if not left:
            return ()
        for j in sorted(avail):
            fired = [x for x in left if vals[j, x]]
            labels = {label[x] for x in fired}
            if not fired or len(labels) != 1:
                continue
            rest = rec(avail - {j}, tuple(x for x in left if not vals[j, x]))
            if rest is not None:
                return ((j, labels.pop()),) + rest
        return None

    found = rec(frozenset(features), pts)
    return None if found is None else list(found)


def _prop33_cases(quick: bool) -> Iterator[tuple[int, int, int]]:
    for n, k in ((2, 1), (3, 1), (3, 2)) if quick else ((2, 1), (3, 1), (3, 2), (4, 1), (4, 2)):
        for seed in range(3 if quick else 8):
            yield n, k, seed


def prop33_row(F: FeatureSet, xs: np.ndarray, ys: np.ndarray, params: dict,
               seed: int, eps: float = 1.0, delta: float = 0.1) -> Evidence:
    """One run of the private learner on (xs, ys); at every iteration the remaining sample must
    be consistent with a decision list over the remaining features (exhaustive search)."""
    import warnings

    data = [(int(x), int(y)) for x, y in zip(xs, ys, strict=True)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        learner = PrivateDecisionListLearner(F, eps, delta, check_realizable=False)
        rules = learner.fit_rules(data, np.random.default_rng(seed))
    index = {nm: j for j, nm in enumerate(F.names)}
    chosen = [index[nm] for nm, _ in rules]
    avail = set(range(len(F)))
    alive = np.ones(len(xs), dtype=bool)
    stuck = None
    for it in range(len(chosen) + 1):
        if alive.any() and dl_consistent(F, frozenset(avail), xs[alive], ys[alive]) is None:
            stuck = {"iteration": it, "removed features": [F.names[j] for j in chosen[:it]],
                     "remaining sample": [(int(x), int(y)) for x, y in
                                          zip(xs[alive], ys[alive], strict=True)]}
            break
        if it < len(chosen):
            avail.discard(chosen[it])
            alive &= ~F.values[chosen[it], xs].astype(bool)
    ok = stuck is None
    return Evidence("private learner run, exhaustive consistency at each iteration",
                    params, {"|F|": len(F), "|S|": len(xs), "iterations": len(chosen),
                             "rules": [f"{F.names[j]}→{b}" for j, (_, b) in
                                       zip(chosen, rules, strict=True)],
                             "consistent at every iteration": ok},
                    "a consistent F-decision list exists at every iteration", ok, None,
                    stuck, "" if ok else "the remaining sample has no consistent decision "
                                         "list over the remaining features",
                    1.0 if ok else 0.0)


def _prop33(quick: bool) -> Iterator[Evidence]:
    for n, k, seed in _prop33_cases(quick):
        F = conjunction_features(n, k)
        rng = np.random.default_rng(seed)
        nf = len(F) - 1                                    # the last feature is constant true
        length = int(rng.integers(1, min(nf, 6) + 1))
        feats = rng.choice(nf, size=length, replace=False)
        rules = [(int(j), int(rng.integers(0, 2))) for j in feats]
        default = int(rng.integers(0, 2))
        xs = rng.integers(0, 1 << n, size=int(rng.integers(4, 3 << n)))
        ys = _eval_list(F.values, rules, default, xs)
        # small step ε: the learner often picks rules that err, which is where the proposition
        # has content (the remaining sample is whatever those rules did not cover)
        yield prop33_row(F, xs, ys, {"n": n, "k": k, "seed": seed, "target length": length},
                         seed, eps=0.5 if seed % 2 else 2.0)   # ε₁ ≤ 1 (Theorem 3.5)


# ----------------------------------------------------------------------------- Lemma 4.10

def exact_halfspace(rules: list[tuple[int, int]], default: int,
                    n: int) -> tuple[list[Fraction], Fraction]:
    """Weights w on (x_1…x_n, 1), ‖w‖₁ = 1, for the monotone 1-decision list "if x_v then b …
    else default": blocks of consecutive equal outputs share a weight that exceeds twice the
    total weight of everything after the block; predict 1 iff ⟨w, (x, 1)⟩ > 0.  Returns the
    weights and the exact margin min_x (2f(x)−1)⟨w, (x, 1)⟩ over {0,1}^n."""
    signs = [2 * b - 1 for _, b in rules]
    weights = [Fraction(0)] * len(rules)
    later = Fraction(1)
    j = len(rules) - 1
    while j >= 0:
        i = j
        while i - 1 >= 0 and signs[i - 1] == signs[j]:
            i -= 1
        for q in range(i, j + 1):
            weights[q] = 2 * later
        later += 2 * later * (j - i + 1)
        j = i - 1
    w = [Fraction(0)] * (n + 1)
    for (v, _), s, wt in zip(rules, signs, weights, strict=True):
        if w[v] == 0:
            w[v] = s * wt
    w[n] = Fraction(2 * default - 1)
    norm = sum(abs(c) for c in w)
    w = [c / norm for c in w]
    return w, _margin(w, rules, default, n)


def _label(rules: list[tuple[int, int]], default: int, x: tuple[int, ...]) -> int:
    for v, b in rules:
        if x[v]:
            return b
    return default


def _margin(w: list[Fraction], rules: list[tuple[int, int]], default: int,
            n: int) -> Fraction:
    best = None
    for x in itertools.product((0, 1), repeat=n):
        s = sum((wi for wi, xi in zip(w, x, strict=False) if xi), w[n])
        val = (2 * _label(rules, default, x) - 1) * s
        best = val if best is None or val < best else best
    return best


def _alternations(rules: list[tuple[int, int]], default: int) -> int:
    bits = [b for _, b in rules] + [default]
    return sum(1 for a, b in itertools.pairwise(bits) if a != b)


def optimal_margin(bits: tuple[int, ...], default: int, n: int
                   ) -> tuple[float, Fraction, list[Fraction]]:
    """The optimal ℓ1-margin of the monotone 1-decision list "if x_1 then b_1, …, if x_ℓ then
    b_ℓ, else default" (ℓ = len(bits) ≤ n) as a halfspace sign(⟨w, (x, 1)⟩) over {0,1}^n:
    max ρ s.t. ‖w‖₁ = 1 and (2f(x) − 1)⟨w, (x, 1)⟩ ≥ ρ for all x — a linear program (HiGHS).
    Returns the LP value, and the exact margin of the LP's weights rounded to rationals (a
    certified lower bound on the optimum: explicit weights achieving it) with those weights."""
    X = ((np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1).astype(float)
    f = np.full(len(X), default, dtype=float)
    for v in reversed(range(len(bits))):
        f = np.where(X[:, v] == 1, bits[v], f)
    s = 2 * f - 1
    phi = np.hstack([X, np.ones((len(X), 1))])
    m = n + 1
    # variables: w+ (m), w- (m), rho; maximise rho
    A = np.hstack([-s[:, None] * phi, s[:, None] * phi, np.ones((len(X), 1))])
    res = linprog(np.r_[np.zeros(2 * m), -1.0], A_ub=A, b_ub=np.zeros(len(X)),
                  A_eq=np.r_[np.ones(2 * m), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, None)] * (2 * m) + [(None, None)], method="highs")
    w = [Fraction(float(v)).limit_denominator(10 ** 6) for v in res.x[:m] - res.x[m:2 * m]]
    norm = sum(abs(c) for c in w)
    w = [c / norm for c in w]
    exact = min((2 * int(fx) - 1) * (sum((c for c, xi in zip(w, x, strict=False) if xi),
                                          Fraction(0)) + w[n])
                for fx, x in zip(f.astype(int), X.astype(int).tolist(), strict=True))
    return float(-res.fun), exact, w


def _patterns(ell: int) -> Iterator[tuple[tuple[int, ...], int, int]]:
    """Every output pattern (b_1…b_ℓ, default) with its number of alternations r."""
    for seq in itertools.product((0, 1), repeat=ell + 1):
        yield seq[:-1], seq[-1], sum(1 for a, b in itertools.pairwise(seq) if a != b)


def _lemma410(quick: bool) -> Iterator[Evidence]:
    for ell in range(1, 6 if quick else 8):
        worst: dict[int, tuple[float, Fraction, tuple, int]] = {}
        for bits, default, r in _patterns(ell):
            lp, exact, _ = optimal_margin(bits, default, ell)
            if r not in worst or lp < worst[r][0]:
                worst[r] = (lp, exact, bits, default)
        for r, (lp, exact, bits, default) in sorted(worst.items()):
            bound = evaluate_bound(LEMMA410_MARGIN, ell=ell, r=r)
            ok = exact >= bound                       # explicit weights reach the bound
            yield Evidence(f"worst monotone 1-decision list of length {ell}, {r} alternations",
                           {"ℓ": ell, "r": r},
                           {"optimal margin (LP)": lp, "certified margin": str(exact),
                            "worst pattern": f"{''.join(map(str, bits))}|{default}",
                            "optimal·(ℓ+1)^(r+1)": round(lp / float(bound), 4)},
                           bound, ok, float(exact - bound),
                           None if ok else {"bits": bits, "default": default, "LP value": lp},
                           "minimum over all 2^(ℓ+1) output patterns of the optimal ℓ1-margin "
                           "(certified by rational weights)", tight(bound, lp))
    # n-independence and the nonnegative transform, on the library's explicit weights
    for ell, n in ((3, 5), (4, 6)) if quick else ((3, 5), (4, 6), (5, 8), (6, 8)):
        bits = tuple(v % 2 for v in range(ell))
        default = ell % 2
        lp_l, _, _ = optimal_margin(bits, default, ell)
        lp_n, _, _ = optimal_margin(bits, default, n)
        rules = [(v, b) for v, b in enumerate(bits)]
        lw, lmargin = decision_list_halfspace(rules, default, n)
        r = ell
        bound = float(evaluate_bound(LEMMA410_MARGIN, ell=ell, r=r))
        ok = abs(lp_l - lp_n) < 1e-9 and lmargin >= bound - 1e-12
        yield Evidence("alternating list: n irrelevant variables, library weights",
                       {"ℓ": ell, "r": r, "n": n},
                       {"optimal margin, n = ℓ": lp_l, f"optimal margin, n = {n}": lp_n,
                        "library margin (nonnegative transform)": lmargin},
                       bound, ok, lmargin - bound, None if ok else {"rules": rules},
                       "the margin depends on ℓ and r only; the library's weights "
                       "(ltheory.privacy.learners.winnow) reach the bound",
                       tight(bound, lmargin))


CHECKS = [
    Check("bunfang.prop2.1", SOURCE, "Proposition 2.1",
          "The exponential mechanism (P[r] ∝ exp(ε q(D, r)/2), q of sensitivity 1) is ε-DP, and "
          "for every t outputs r with q(D, r) ≥ OPT − 2(ln|R| + t)/ε with probability ≥ 1 − "
          "e^{−t} (the deviation term's standard form; the seed's formula was lost).",
          PROP21_TAIL, _prop21, kind="privacy",
          falsifiable="exact: fails if the project's ExponentialMechanism has exact ε above ε on "
                      "a substitution built to nearly reach it (e.g. exp(ε·u) instead of "
                      "exp(ε·u/2)), or the exact tail exceeds e^{−t} on score vectors that make "
                      "the bound nearly tight (tightness ≈ (|R|−1)/|R|)"),
    Check("bunfang.prop3.3", SOURCE, "Proposition 3.3",
          "For a sample labelled by an F-decision list, at every iteration of the covering "
          "algorithm (here: the private learner of §3.1) some decision list over the remaining "
          "features is consistent with the remaining sample.", None, _prop33,
          falsifiable="fails if, after some prefix of the rules the private learner chose (often "
                      "erring rules at small step ε), the exhaustive search finds no decision "
                      "list over the remaining features consistent with the remaining sample — "
                      "as happens for a sample no F-decision list labels"),
    Check("bunfang.lemma4.10", SOURCE, "Lemma 4.10",
          "Every monotone 1-decision list over n variables of length ℓ with r alternations is a "
          "halfspace with margin ≥ 1/(ℓ+1)^{r+1} (the form checked: the published formula was "
          "lost in extraction), independent of n; the nonnegative transform keeps the margin.",
          LEMMA410_MARGIN, _lemma410,
          falsifiable="fails if, at some (ℓ, r), the optimal ℓ1-margin over all bit patterns "
                      "(an LP, certified by rational weights) is below the bound — e.g. for the "
                      "bound 1/(ℓ+1)^r — or irrelevant variables change the margin"),
    not_evaluable("bunfang.thm3.5", SOURCE, "Theorem 3.5 / Corollary A.8 (utility)",
                  "The private decision-list learner is an (α, β)-PAC learner for F-decision "
                  "lists with sample complexity Õ(|F| log|F| /(αε)) (Cor. A.8: k-decision "
                  "lists, |F| ≤ (2n)^k).",
                  "the sample complexity is an Õ(·) bound whose constants and log factors were "
                  "lost in extraction; the privacy part is a row of privacy.claims"),
    not_evaluable("bunfang.sec4.4", SOURCE, "§4.4 (lower bound)",
                  "Every ε-DP online learner for point functions (Cohen et al. 2024) — hence for "
                  "margin-ρ halfspaces — makes Ω(log T) mistakes on some sequence.",
                  "a lower bound over all private online learners, asymptotic in T with an "
                  "unstated constant: no finite set of learners or sequences can refute it"),
]

#: why the margin bound moved up 10% is still true (an explicit halfspace)
LEMMA410_PROOF = Proof(
    "equivalent (still true): split the outputs b_1…b_ℓ, default into r + 1 blocks of equal "
    "output of sizes m_k (Σ m_k = ℓ + 1, the default in the last); give the default weight 1 "
    "and a rule of block k the weight (sign) 1 + O_k, O_k the total weight of the later blocks "
    "of the opposite output.  The first active rule then wins by ≥ 1, so the ℓ1-margin is "
    "≥ 1/S, S the total weight; with P_k the weight of blocks k.., 1 + P_k ≤ (m_k + 1)(1 + "
    "P_{k+1}), so S ≤ Π(m_k + 1) − 1 ≤ ((ℓ + r + 2)/(r + 1))^{r+1} − 1 (AM–GM).  For r = 0 the "
    "margin is 1 ≥ 1.1/(ℓ + 1); for ℓ = r = 1, S ≤ 3 and 1/3 ≥ 1.1/4; otherwise "
    "(ℓ + 1)(r + 1)/(ℓ + r + 2) ≥ 6/5, so S < (ℓ + 1)^{r+1}/1.2: the margin exceeds "
    "1.1/(ℓ + 1)^{r+1} for every ℓ ≥ 1, 0 ≤ r ≤ ℓ (the LP optimum is at least this); "
    "(ℓ + 1)(r + 1)/(ℓ + r + 2) increases in ℓ and in r (sympy: its partial derivatives are "
    "(r + 1)²/(ℓ + r + 2)² and (ℓ + 1)²/(ℓ + r + 2)²), so (ℓ, r) = (2, 1) gives its least "
    "value 6/5 off (1, 1) and r = 0",
    range="ℓ ≥ 1, 0 ≤ r ≤ ℓ (every output pattern of a monotone decision list)",
    verified_by="tests/test_proofs_check_equivalence.py::test_lemma410_chain_over_every_length")

CHECKS = declare(CHECKS, {
    "bunfang.prop2.1": tuple(
        Mutable(__name__, name, -1, ({"epsilon": 1.0, "t": 2.0, "R": 16},))
        for name in ("PROP21_DEVIATION", "PROP21_TAIL", "PROP21_EPSILON")),
    "bunfang.lemma4.10": (Mutable(__name__, "LEMMA410_MARGIN", 1, ({"ell": 3, "r": 2},),
                                  equivalent={"the whole bound moved 10%":
                                              LEMMA410_PROOF}),),
}, {
    "bunfang.prop3.3": "an existence statement (some consistent decision list remains), "
                       "decided by exhaustive search: no numeric formula",
})
