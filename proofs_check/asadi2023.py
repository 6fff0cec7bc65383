"""Checks of Asadi, Carmosino, Jahanara, Rafiey & Salamatian, "Private Boosted Decision Trees via
Smooth Re-Weighting" (seed ``003_6155d6bc744b4bb1.txt``), against the project's learners
(``ltheory.privacy.learners.boosting``).

- Theorem 1 (advanced composition) and Remark 16 (the composition formula used for DP-TopDown's
  approximate-DP variant): the claimed (ε, δ) of a t-fold composition of ε₀-DP mechanisms
  against the *exact* δ(ε) of the worst such composition — t-fold randomized response (Kairouz,
  Oh & Viswanath 2015, Theorem 3.3: every ε₀-DP mechanism's composition is a post-processing of
  randomized response's), whose privacy loss is ε₀(2B − t), B ~ Bin(t, e^{ε₀}/(1 + e^{ε₀})), so
  δ(ε) = Σ_b P(b)·(1 − e^{ε − loss(b)})₊ exactly.  Remark 16 writes ε̃ = t ε₀² + ε₀√(t log(1/δ̃))
  (ε₀ = 8ηζ); Theorem 1 has √(2t ln(1/δ)) ε₀ + t ε₀(e^{ε₀} − 1).
- Lemmas 14–15 (robust sensitivity of the Gini split score im_{ℓ,h,μ} of DP-TopDown, claimed
  ≤ 4ζ): the largest |im(S, μ) − im(S', μ)| over neighbouring datasets (one substitution, μ
  uniform, ζ = 1/n), exhaustively over every one-feature dataset of at most N examples (four
  cell counts), re-computed exactly in rationals for the witness and compared with the
  project's candidate scores (``DPTopDown._candidates``).
- Theorem 5 (utility of LazyBB): with a weak learner of advantage γ on every κ-smooth
  distribution, τ ≥ 16 log(1/κ)/γ² rounds and λ = γ/4, at most a κ fraction of S has normalised
  margin ≤ γ.  γ is the exact weak-learning advantage of one-rules over κ-smooth distributions
  (an LP), the weak learner is the (deterministic) best one-rule, so β = 0 and the run is exact.
- Theorem 12 (DP-1R's error) and Theorems 8 / 13 (its advantage): P[err(h_out) > err(h_opt) +
  ln(|H|/β)/η] ≤ β, exactly from DP-1R's output distribution, on instances where the bound is
  nearly met.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from scipy.optimize import linprog
from scipy.stats import binom

from ltheory.privacy.learners.boosting import DPOneRule, DPTopDown, LazyBB, OneRule
from proofs_check.base import Check, Evidence, Mutable, Proof, declare, evaluate_bound, tight

SOURCE = "003_6155d6bc744b4bb1.txt"
_e0, _t, _dl, _d0 = sympy.symbols("epsilon0 t delta delta0", positive=True)
_gamma, _kappa, _H, _beta, _eta, _zeta = sympy.symbols("gamma kappa H beta eta zeta",
                                                       positive=True)
#: Remark 16: ε̃ = t·ε₀² + ε₀·sqrt(t·log(1/δ̃)) with ε₀ = 8ηζ
REMARK16_EPSILON = _t * _e0 ** 2 + _e0 * sympy.sqrt(_t * sympy.log(1 / _dl))
#: Theorem 1 (advanced composition): ε = sqrt(2t ln(1/δ')) ε₀ + t ε₀ (e^{ε₀} − 1), δ = δ' + tδ₀
THM1_EPSILON = sympy.sqrt(2 * _t * sympy.log(1 / _dl)) * _e0 + _t * _e0 * (sympy.exp(_e0) - 1)
THM1_DELTA = _dl + _t * _d0
#: Lemma 15: |im_{ℓ,h,μ}(S) − im_{ℓ,h,μ'}(S')| ≤ 4ζ
LEMMA15_BOUND = 4 * _zeta
#: Theorem 5: τ ≥ 16 log(1/κ)/γ² rounds at λ = γ/4 leave at most a κ fraction with margin ≤ γ
THM5_ROUNDS = 16 * sympy.log(1 / _kappa) / _gamma ** 2
THM5_FRACTION = _kappa
#: Theorem 12: err(h_out) ≤ err(h_opt) + ln(|H|/β)/η with probability ≥ 1 − β
THM12_DEVIATION = sympy.log(_H / _beta) / _eta
THM12_FAILURE = _beta


# ----------------------------------------------------------------------------- composition

def composed_delta(eps0: float, t: int, eps: float, delta0: float = 0.0) -> float:
    """Exact δ(ε) of the t-fold composition of (ε₀, δ₀)-randomized response — the worst case
    over all t-fold compositions of (ε₀, δ₀)-DP mechanisms (Kairouz, Oh & Viswanath 2015):
    1 − (1 − δ₀)^t + (1 − δ₀)^t·Σ_b P(b)(1 − e^{ε − ε₀(2b − t)})₊, B ~ Bin(t, e^{ε₀}/(1+e^{ε₀}))."""
    b = np.arange(t + 1)
    loss = eps0 * (2 * b - t)
    logp = binom.logpmf(b, t, 1.0 / (1.0 + math.exp(-eps0)))
    keep = loss > eps
    pure = float(np.sum(np.exp(logp[keep]) * -np.expm1(eps - loss[keep])))
    log_q = t * math.log1p(-delta0)                # q = (1 − δ₀)^t, 1 − q without cancellation
    return -math.expm1(log_q) + math.exp(log_q) * pure


#: (ε₀, t, δ') rows; the last ones are where a 10% smaller ε (tiny δ', many rounds) or an
#: ε without the t·ε₀(e^{ε₀} − 1) term (large ε₀) has an exact δ above δ'
COMPOSITION_GRID_QUICK = ((0.5, 4, 1e-2), (0.1, 100, 1e-5), (0.01, 1000, 1e-10),
                          (0.003, 10000, 1e-8), (0.5, 100, 1e-5), (0.001, 10000, 1e-50))
COMPOSITION_GRID_FULL = tuple((e0, t, d) for e0 in (0.003, 0.01, 0.05, 0.2, 0.5)
                              for t in (4, 100, 1000, 10000) for d in (1e-2, 1e-5, 1e-10)) + (
    (0.001, 10000, 1e-20), (0.001, 10000, 1e-50), (0.0003, 100000, 1e-50), (1.0, 100, 1e-5))


def _remark16(quick: bool) -> Iterator[Evidence]:
    for e0, t, dl in COMPOSITION_GRID_QUICK if quick else COMPOSITION_GRID_FULL:
        eps = float(evaluate_bound(REMARK16_EPSILON, epsilon0=e0, t=t, delta=dl))
        exact = composed_delta(e0, t, eps)
        ok = exact <= dl
        yield Evidence("t-fold composition of ε₀-randomized response (the worst case)",
                       {"epsilon0 = 8ηζ": e0, "t": t, "delta~": dl},
                       {"ε̃ (Remark 16)": eps, "exact δ(ε̃)": exact}, dl, ok, dl - exact,
                       None if ok else {"mechanism": f"{t}-fold randomized response with "
                                                     f"ε₀ = {e0}", "epsilon": eps,
                                        "exact delta": exact},
                       "" if ok else "the exact δ at Remark 16's ε̃ exceeds δ̃: the formula drops "
                       "Theorem 1's factor √2 under the root (and uses ε₀² for ε₀(e^{ε₀}−1)); "
                       "it is not a valid composition bound", tight(exact, dl))


def _thm1(quick: bool) -> Iterator[Evidence]:
    grid = COMPOSITION_GRID_QUICK if quick else COMPOSITION_GRID_FULL
    for e0, t, dl in grid:
        # δ₀ = 0, and δ₀ with tδ₀ = 100δ' (then the exact δ is nearly δ' + tδ₀ itself)
        for d0 in (0.0, 100 * dl / t):
            eps = float(evaluate_bound(THM1_EPSILON, epsilon0=e0, t=t, delta=dl))
            total = float(evaluate_bound(THM1_DELTA, delta=dl, t=t, delta0=d0)) if d0 else dl
            exact = composed_delta(e0, t, eps, d0)
            ok = exact <= total
            yield Evidence("t-fold composition of (ε₀, δ₀)-randomized response (worst case)",
                           {"epsilon0": e0, "delta0": d0, "t": t, "delta'": dl},
                           {"ε (Theorem 1)": eps, "exact δ(ε)": exact}, total, ok,
                           total - exact, None if ok else {"epsilon": eps}, "",
                           tight(exact, total))


# ----------------------------------------------------------------------------- Lemma 15

def gini_improvements(X: np.ndarray, y: np.ndarray) -> list[Fraction]:
    """im_{root, x_j} for every feature j, with μ uniform, exactly: 𝒢(T) − 𝒢(T(root, x_j)),
    w·G(q) = 4·m0·m1/(m0 + m1) on label masses (Asadi et al. §4.2)."""
    n = len(y)

    def wg(m0: Fraction, m1: Fraction) -> Fraction:
        return Fraction(0) if m0 + m1 == 0 else 4 * m0 * m1 / (m0 + m1)

    def masses(mask: np.ndarray) -> tuple[Fraction, Fraction]:
        return (Fraction(int(np.sum(mask & (y == 0))), n), Fraction(int(np.sum(mask & (y == 1))),
                                                                    n))

    allm = np.ones(n, dtype=bool)
    parent = wg(*masses(allm))
    return [parent - wg(*masses(X[:, j] == 0)) - wg(*masses(X[:, j] == 1))
            for j in range(X.shape[1])]


def _wg(m0: np.ndarray, m1: np.ndarray) -> np.ndarray:
    tot = m0 + m1
    return np.where(tot > 0, 4.0 * m0 * m1 / np.where(tot > 0, tot, 1.0), 0.0)


def _im_counts(C: np.ndarray) -> np.ndarray:
    """n·im at the root split on x_1 for cell counts (x=0,y=0), (x=0,y=1), (x=1,y=0), (x=1,y=1)."""
    a0, a1, b0, b1 = (C[:, i].astype(float) for i in range(4))
    return _wg(a0 + b0, a1 + b1) - _wg(a0, a1) - _wg(b0, b1)


def search_lemma15(max_n: int) -> tuple[float, int, list[int], int, int]:
    """Exhaustive over every dataset of n ≤ max_n examples with one feature (its four cell
    counts) and every substitution (one example moved between cells): the largest
    |im(S) − im(S')|/ζ at the root split, ζ = 1/n, μ uniform.  Returns (value, n, counts, from
    cell, to cell)."""
    best = (-1.0, 0, [], 0, 0)
    for n in range(2, max_n + 1):
        a = np.arange(n + 1)
        g = np.stack(np.meshgrid(a, a, a, indexing="ij"), -1).reshape(-1, 3)
        g = g[g.sum(axis=1) <= n]
        C = np.c_[g, n - g.sum(axis=1)]
        base = _im_counts(C)
        for src in range(4):
            for dst in range(4):
                if src == dst:
                    continue
                D = C.copy()
                D[:, src] -= 1
                D[:, dst] += 1
                v = np.where(C[:, src] > 0, np.abs(_im_counts(D) - base), 0.0)  # = |Δim|/ζ
                i = int(np.argmax(v))
                if v[i] > best[0]:
                    best = (float(v[i]), n, C[i].tolist(), src, dst)
    return best


def _dataset(counts: list[int]) -> tuple[np.ndarray, np.ndarray]:
    cells = [(0, 0), (0, 1), (1, 0), (1, 1)]
    rows = [c for c, k in zip(cells, counts, strict=True) for _ in range(k)]
    X = np.array([[x] for x, _ in rows], dtype=np.int8)
    return X, np.array([y for _, y in rows], dtype=np.int8)


def delta_im_counts(counts: list[int], src: int, dst: int) -> Fraction:
    """|im(S') − im(S)|/ζ exactly (ζ = 1/n, μ uniform) for the root split of a one-feature
    dataset given by its cell counts, one example moved from cell ``src`` to ``dst``:
    n·im = W(p0, p1) − W(a0, a1) − W(b0, b1) with W(u0, u1) = 4u0u1/(u0 + u1) on counts
    (W is homogeneous of degree 1, so counts may stand for masses)."""

    def W(u0: int, u1: int) -> Fraction:
        return Fraction(0) if u0 + u1 == 0 else Fraction(4 * u0 * u1, u0 + u1)

    def F(c: list[int]) -> Fraction:
        a0, a1, b0, b1 = c
        return W(a0 + b0, a1 + b1) - W(a0, a1) - W(b0, b1)

    moved = list(counts)
    moved[src] -= 1
    moved[dst] += 1
    return abs(F(moved) - F(list(counts)))


#: the family approaching the supremum: one (x=0, y=0), k (x=0, y=1), n − k − 1 (x=1, y=0),
#: the first relabelled y = 1; |Δim| → 8ζ as n → ∞ with k → ∞ and k/n → 0
def lemma15_family(n: int) -> tuple[list[int], int, int]:
    k = max(1, math.isqrt(n))
    return [1, k, n - k - 1, 0], 0, 1


LEMMA15_SUPREMUM = 8


def _lemma15(quick: bool) -> Iterator[Evidence]:
    """Exhaustive rows (every dataset of n ≤ N examples), then the supremum over all n.

    The supremum of |Δim|/ζ over all n is 8, not attained.  Upper bound: with W as in
    `delta_im_counts`, removing a y-example from a cell changes W by −4u_{1−y}²/(U(U−1))
    ∈ [−4, 0], adding one by 4u_{1−y}²/(U(U+1)) ∈ [0, 4), and relabelling within a cell by
    4(u_y − u_{1−y} − 1)/U ∈ (−4, 4); a substitution moves the parent term at most by the
    last and the two child terms by one removal and one addition (or one relabelling), so
    |ΔF| < 8 in every case.  Lower bound: `lemma15_family` reaches 8 − O(1/√n)."""
    cells = ["(x=0, y=0)", "(x=0, y=1)", "(x=1, y=0)", "(x=1, y=1)"]
    for max_n in (8, 24) if quick else (8, 24, 48):
        found, n, counts, src, dst = search_lemma15(max_n)
        moved = list(counts)
        moved[src] -= 1
        moved[dst] += 1
        X, y = _dataset(counts)
        X2, y2 = _dataset(moved)
        exact = abs(gini_improvements(X, y)[0] - gini_improvements(X2, y2)[0]) * n   # /ζ
        # the project's candidate scores (DPTopDown, float) on the same pair
        mu = np.full(n, 1.0 / n)
        lib = abs(float(DPTopDown(1.0, 1)._candidates(X, y, mu, [()])[0]
                        - DPTopDown(1.0, 1)._candidates(X2, y2, mu, [()])[0])) * n
        bound = evaluate_bound(LEMMA15_BOUND, zeta=1)            # in units of ζ
        ok = exact <= bound
        yield Evidence("every one-feature dataset of n ≤ N examples, every substitution "
                       "(root split, μ uniform)", {"N": max_n},
                       {"max |Δim| / ζ (exact)": str(exact), "≈": round(float(exact), 4),
                        "at n": n, "library candidates (float)": round(lib, 9)},
                       bound, ok, float(bound - exact),
                       None if ok else {"S: counts per cell": dict(zip(cells, counts,
                                                                           strict=True)),
                                        "substitution": f"one example {cells[src]} → "
                                                        f"{cells[dst]}",
                                        "|Δim|": f"{exact}·ζ, ζ = 1/{n}"},
                       "" if ok else "Lemma 15 bounds each of the three w·G(q) terms by Lemma "
                       "14's 5/4·ζ, but Lemma 14 bounds w·q(1−q); with G(q) = 4q(1−q) each term "
                       "can move by up to 5ζ, so the argument gives 15ζ, not 15/4·ζ ≤ 4ζ",
                       tight(float(exact), float(bound)))
    bound = evaluate_bound(LEMMA15_BOUND, zeta=1)
    for n in (10 ** 2, 10 ** 4) if quick else (10 ** 2, 10 ** 4, 10 ** 6, 10 ** 8):
        counts, src, dst = lemma15_family(n)
        v = delta_im_counts(counts, src, dst)
        ok = v <= bound
        yield Evidence("the family approaching the supremum (exact rationals)",
                       {"n": n, "k = ⌊√n⌋": counts[1]},
                       {"|Δim| / ζ": str(v) if n <= 10 ** 4 else f"{float(v):.12g}",
                        "≈": round(float(v), 6), "supremum over all n": LEMMA15_SUPREMUM},
                       bound, ok, float(bound - v),
                       None if ok else {"S: counts per cell": dict(zip(cells, counts,
                                                                           strict=True)),
                                        "substitution": f"one example {cells[src]} → "
                                                        f"{cells[dst]}",
                                        "|Δim|": f"{v}·ζ, ζ = 1/{n}"},
                       "" if ok else "sup over all n of |Δim|/ζ is 8 (not attained; this "
                       "family reaches 8 − O(1/√n)); every substitution moves it by less than "
                       "8ζ (see the docstring): the true robust sensitivity is 8ζ, twice the "
                       "stated 4ζ", tight(float(v), float(bound)))


# ----------------------------------------------------------------------------- Theorem 5

def smooth_advantage(X: np.ndarray, y: np.ndarray, kappa: float) -> float:
    """γ = min over κ-smooth μ (μ_i ≤ 1/(κn)) of max over one-rules h of 1/2 − err(S, μ, h)
    (an LP): the advantage the weak-learning assumption of Theorem 5 grants the best one-rule."""
    from ltheory.privacy.learners.boosting import one_rule_matrix

    n = len(y)
    E = (one_rule_matrix(X) != y[None, :]).astype(float)        # (rules, n) mistakes
    k = E.shape[0]
    # minimise v s.t. Σ_i μ_i (1/2 − E[h, i]) ≤ v for every h, Σμ = 1, 0 ≤ μ ≤ 1/(κn)
    res = linprog(np.r_[np.zeros(n), 1.0], A_ub=np.hstack([0.5 - E, -np.ones((k, 1))]),
                  b_ub=np.zeros(k), A_eq=np.r_[np.ones(n), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, 1 / (kappa * n))] * n + [(None, None)], method="highs")
    return float(res.fun)


def _cube_majority(d: int, relevant: int, reps: int) -> tuple[np.ndarray, np.ndarray]:
    pts = ((np.arange(1 << d)[:, None] >> np.arange(d)[None, :]) & 1).astype(np.int8)
    X = np.repeat(pts, reps, axis=0)
    y = (X[:, :relevant].sum(axis=1) * 2 > relevant).astype(np.int8)
    return X, y


class TieSplittingOneRule(OneRule):
    """The best one-rule, ties between rules of equal least weighted error broken by the run's
    seeded generator (a valid weak learner: every rule it returns has the least error)."""

    def weak_fit(self, X, y, mu, eta, rng):
        from ltheory.privacy.learners.boosting import OneRuleModel, one_rule_matrix

        err = (one_rule_matrix(X) != y[None, :]) @ mu
        best = np.flatnonzero(err <= err.min() + 1e-12)
        return OneRuleModel(int(best[0] if rng is None else rng.choice(best)))


def _thm5_run(X: np.ndarray, y: np.ndarray, kappa: float, subject: str,
              params: dict[str, Any], note: str = "", weak: Any = None) -> Evidence | None:
    """LazyBB + the best one-rule (deterministic) for Theorem 5's τ at the exact smooth
    advantage γ of (X, y): the fraction of examples with margin ≤ γ against κ."""
    gamma = smooth_advantage(X, y, kappa) - 1e-9
    if gamma <= 0:
        return None
    tau = math.ceil(float(evaluate_bound(THM5_ROUNDS, kappa=kappa, gamma=gamma)))
    tau += 1 - tau % 2                                   # odd: no ties in the vote
    model = LazyBB(weak or OneRule(), rounds=tau, learning_rate=gamma / 4,
                   smoothness=kappa).fit_model(
        [(tuple(int(v) for v in x), int(t)) for x, t in zip(X, y, strict=True)],
        np.random.default_rng(0))
    votes = np.array([2.0 * h.predict(X) - 1.0 for h in model.members])
    ys = 2.0 * y - 1.0
    bound = float(evaluate_bound(THM5_FRACTION, kappa=kappa))
    cum = np.cumsum(votes * ys[None, :], axis=0)

    def fraction(rounds: int) -> float:
        """The fraction with margin ≤ γ after the first ``rounds`` rounds."""
        return float(np.mean(cum[rounds - 1] / rounds <= gamma))

    frac = fraction(tau)
    ok = frac <= bound
    # τ*: the fewest (odd) rounds after which the statement's conclusion already holds —
    # the non-private run does not depend on τ, so a τ'-round run is the τ-round run's prefix
    tau_star = next((t for t in range(1, tau + 1, 2) if fraction(t) <= bound), tau)
    return Evidence(subject, params,
                    {"γ (exact smooth advantage)": round(gamma, 6), "τ": tau,
                     "λ = γ/4": round(gamma / 4, 6),
                     "fraction with margin ≤ γ": frac, "τ* (fewest rounds that suffice)":
                     tau_star, "τ*/τ": round(tau_star / tau, 4)},
                    bound, ok, bound - frac, None if ok else {"margins": (
                        cum[tau - 1] / tau).tolist()},
                    "deterministic weak learner (β = 0); log read as the natural log; "
                    "tightness = max(τ*/τ, fraction/κ)" + (f"; {note}" if note else ""),
                    max(tau_star / tau, frac / bound) if ok else 2.0)


def _thm5(quick: bool) -> Iterator[Evidence]:
    for d, rel, kappa in ((3, 3, 0.5), (4, 3, 0.25)) if quick else (
            (3, 3, 0.5), (4, 3, 0.25), (4, 3, 0.5), (5, 3, 0.25), (5, 5, 0.5)):
        X, y = _cube_majority(d, rel, 1)
        row = _thm5_run(X, y, kappa, "LazyBB + best one-rule on {0,1}^d, label = majority of "
                        "the first variables", {"d": d, "relevant": rel, "kappa": kappa})
        if row is not None:
            yield row
    # the fraction's extremal case: a block B of just under κn examples that no one-rule gets
    # right on more than about half of (x_0 = [i ∈ B], y = 0 on B_2, 1 elsewhere: 1 errs on
    # B_2, ¬x_0 on B_1); a κ-smooth distribution puts at most |B|/(κn) on B, so the best
    # one-rule keeps advantage γ, and the booster's alternation leaves B at margin ≈ 0 ≤ γ:
    # a fraction |B|/n of examples (0.93κ, 0.96κ here) never improves
    for n, b1, b2, kappa in ((60, 14, 14, 0.5),) if quick else ((60, 14, 14, 0.5),
                                                               (100, 12, 12, 0.25)):
        inB = np.r_[np.ones(b1 + b2), np.zeros(n - b1 - b2)].astype(np.int8)
        X = inB[:, None]
        y = np.r_[np.ones(b1), np.zeros(b2), np.ones(n - b1 - b2)].astype(np.int8)
        row = _thm5_run(X, y, kappa, "construction: a block of just under κn examples split "
                        "between the two best one-rules (the fraction's extremal case)",
                        {"n": n, "|B1|": b1, "|B2|": b2, "kappa": kappa},
                        f"|B|/n = {(b1 + b2) / n:g}: the block keeps margin ≈ 0; ties between "
                        "the two rules broken by the seeded generator",
                        weak=TieSplittingOneRule())
        if row is not None:
            yield row


#: §5: "Theorem 5 guarantees utility after approximately 4,000 rounds" (κ = 1/2, γ = 1/20)
SEC5_ROUNDS = sympy.Integer(4000)
#: "approximately" read as within 15%
SEC5_TOLERANCE = 0.15


def _sec5_rounds(quick: bool) -> Iterator[Evidence]:
    kappa, gamma = 0.5, 0.05
    stated = float(evaluate_bound(SEC5_ROUNDS))
    # Theorem 5's declared bound (sympy's log is the natural log); log2 reading for reference
    tau_ln = float(evaluate_bound(THM5_ROUNDS, kappa=kappa, gamma=gamma))
    for reading, tau in (("natural log", tau_ln), ("log base 2", tau_ln / math.log(2))):
        ok = abs(tau - stated) <= SEC5_TOLERANCE * stated
        yield Evidence(f"16 log(1/κ)/γ² with the {reading}", {"kappa": kappa, "gamma": gamma},
                       {"τ": tau, "τ / stated": round(tau / stated, 4)}, stated,
                       ok if reading == "natural log" else None, stated - tau,
                       None if ok else {"tau": tau},
                       "the verdict reads log as the natural log (as asadi.thm5 does); "
                       "'approximately' as within 15%" if reading == "natural log" else
                       "for reference: with log2 the example would need 6,400 rounds",
                       1.0 - abs(tau - stated) / stated if reading == "natural log" else None)


# ----------------------------------------------------------------------------- Theorems 8/12/13

def _dp1r_cases(quick: bool) -> Iterator[tuple[str, np.ndarray, np.ndarray, float]]:
    """(name, X, y, β): the label is x_1 on the whole cube — x_1 is perfect, ¬x_1 always wrong,
    every other rule wrong on half — so with ln(|H|/β)/η just below 1/2, 2d rules sit just above
    the threshold and the bound is nearly met."""
    for d, beta in ((3, 0.1), (12, 0.01)) if quick else ((3, 0.1), (5, 0.05), (7, 0.01),
                                                           (4, 0.3), (10, 0.05), (12, 0.01)):
        X = ((np.arange(1 << d)[:, None] >> np.arange(d)[None, :]) & 1).astype(np.int8)
        yield f"{{0,1}}^{d}, y = x_1", X, X[:, 0].copy(), beta


def solve_eta(H: int, beta: float, target: float) -> float:
    """The η at which the declared deviation (``THM12_DEVIATION``, decreasing in η) is just
    below ``target`` (within 1e-9), by bisection on log η — the adversary's choice of η: the
    2d rules of error exactly 1/2 then sit just above the threshold.  Found from the bound as
    declared, so a changed bound moves η with it."""

    expr = THM12_DEVIATION
    by_name = {str(s): s for s in expr.free_symbols}
    fixed = expr.subs({by_name[k]: v for k, v in (("H", H), ("beta", beta)) if k in by_name})
    f = sympy.lambdify([_eta], fixed, "math")

    def dev(eta: float) -> float:
        return float(f(eta))

    lo, hi = -20.0, 40.0                           # log η
    if not (dev(math.exp(lo)) > target >= dev(math.exp(hi))):
        raise ValueError(f"the deviation does not cross {target} for η in [e^-20, e^40]")
    for _ in range(200):
        mid = (lo + hi) / 2
        if dev(math.exp(mid)) > target:
            lo = mid
        else:
            hi = mid
        if target - dev(math.exp(hi)) < 1e-9:
            break
    return math.exp(hi)


def _dp1r_rows(quick: bool, advantage: bool) -> Iterator[Evidence]:
    for name, X, y, beta in _dp1r_cases(quick):
        n, d = X.shape
        H = 2 * d + 2
        mu = np.full(n, 1.0 / n)
        learner = DPOneRule()
        errs = -learner._scores(X, y, mu)                       # err(S, μ, h) for every rule
        opt = float(errs.min())
        # the η at which the declared deviation is just below 1/2 (solved from the bound)
        eta = solve_eta(H, beta, 0.5 - 1e-6)
        dev = float(evaluate_bound(THM12_DEVIATION, H=H, beta=beta, eta=eta))
        dist = learner.weak_distribution(X, y, mu, eta)
        fail = sum(p for p, h in dist if float(errs[h.index]) > opt + dev)
        bound = float(evaluate_bound(THM12_FAILURE, beta=beta))
        ok = fail <= bound
        if advantage:
            gamma = 0.5 - opt - 1e-9                   # the weak-learning advantage of h_opt
            stated = 0.5 - (gamma - dev)
            fail = sum(p for p, h in dist if float(errs[h.index]) > stated)
            ok = fail <= bound
            values = {"γ": gamma, "1/2 − (γ − ln(|H|/β)/η)": stated,
                      "P[err(h_out) > that] (exact)": fail}
        else:
            values = {"err(h_opt)": opt, "ln(|H|/β)/η": dev,
                      "P[err(h_out) > err(h_opt) + ln(|H|/β)/η] (exact)": fail}
        yield Evidence(name, {"|H|": H, "beta": beta, "eta": round(eta, 6)}, values, bound, ok,
                       bound - fail, None if ok else {"X": X.tolist(), "y": y.tolist()},
                       "2d rules just above the threshold: the bound is nearly met",
                       tight(fail, bound))


CHECKS = [
    Check("asadi.thm1", SOURCE, "Theorem 1 (advanced composition)",
          "t mechanisms, each (ε₀, δ₀)-DP, compose to (sqrt(2t ln(1/δ'))ε₀ + tε₀(e^{ε₀} − 1), "
          "δ' + tδ₀)-DP (also Theorem 5's privacy of LazyBB).", THM1_EPSILON, _thm1,
          kind="privacy",
          falsifiable="exact: fails if the worst-case (randomized response) composition's δ at "
                      "the stated ε exceeds δ' + tδ₀ — e.g. without the factor 2 under the root"),
    Check("asadi.remark16", SOURCE, "Remark 16 (approximate-DP DP-TopDown)",
          "t selections, each 8ηζ-DP, compose to (ε̃, δ̃) with ε̃ = t(8ηζ)² + 8ηζ·sqrt(t log(1/δ̃)), "
          "for every δ̃ > 0; DP-TopDown is then (2ε̃, δ̃, ζ)-DP.", REMARK16_EPSILON, _remark16,
          kind="privacy",
          falsifiable="exact: fails where the worst-case composition of t ε₀-DP mechanisms "
                      "(randomized response) has δ(ε̃) > δ̃ — it does for small ε₀, large t and "
                      "small δ̃ (a finding)"),
    Check("asadi.lemma15", SOURCE, "Lemmas 14–15 (robust sensitivity of the Gini score)",
          "For neighbouring S ~ S' and distributions with d(μ, μ') < ζ, |im_{ℓ,h,μ}(S) − "
          "im_{ℓ,h,μ'}(S')| ≤ 4ζ (Lemma 15, summing three Lemma 14 terms of 5/4·ζ).",
          LEMMA15_BOUND, _lemma15,
          falsifiable="exhaustive over small datasets: fails if one substitution moves the "
                      "root split's Gini improvement by more than 4ζ (exact rationals) — it does, "
                      "by over 6ζ (a finding)"),
    Check("asadi.thm5", SOURCE, "Theorem 5 (utility of LazyBB)",
          "With a weak learner of advantage γ (failure β), τ ≥ 16 log(1/κ)/γ² rounds and "
          "λ = γ/4, with probability ≥ 1 − τβ at most a κ fraction of S has normalised margin "
          "≤ γ.", THM5_FRACTION, _thm5,
          falsifiable="exact (the best one-rule; ties split by a seeded generator in the "
                      "construction): fails if more than a κ fraction of the sample ends with "
                      "margin ≤ γ after τ rounds — e.g. with too few rounds or a wrong "
                      "projection; the fraction's extremal block keeps 0.93κ at margin ≈ 0"),
    Check("asadi.sec5.rounds", SOURCE, "§5 example (≈ 4,000 rounds)",
          "Fixing κ = 1/2 and a 1/20-advantage weak learner, Theorem 5 guarantees utility after "
          "approximately 4,000 rounds of boosting.", SEC5_ROUNDS, _sec5_rounds, kind="value",
          falsifiable="fails if 16 ln(1/κ)/γ² at κ = 1/2, γ = 1/20 (= 4,436) is not within 15% "
                      "of the stated 4,000"),
    Check("asadi.thm12", SOURCE, "Theorem 12 (DP-1R error)",
          "Algorithm 3 (DP-1R) returns h_out with err(h_out) ≤ err(h_opt) + ln(|H|/β)/η with "
          "probability ≥ 1 − β.", THM12_DEVIATION, lambda q: _dp1r_rows(q, False),
          falsifiable="exact (DP-1R's output distribution): fails if the probability of an "
                      "error above err(h_opt) + ln(|H|/β)/η exceeds β; the instances put 2d of "
                      "2d+2 rules just above the threshold"),
    Check("asadi.thm8", SOURCE, "Theorems 8 and 13 (DP-1R's advantage)",
          "Under a weak learning assumption with advantage γ, DP-1R returns h_out with "
          "weighted error ≤ 1/2 − (γ − ln(|H|/β)/η) with probability ≥ 1 − β.",
          THM12_DEVIATION, lambda q: _dp1r_rows(q, True),
          falsifiable="exact: fails if DP-1R's output has weighted error above 1/2 − (γ − "
                      "ln(|H|/β)/η) with probability above β"),
]

def thm5_proved_rounds(kappa: float, gamma: float, per_margin: bool = True) -> float:
    """Rounds after which LazyBB provably leaves at most κn examples at normalised margin ≤ γ,
    for every weak learner of advantage γ (weighted accuracy ≥ 1/2 + γ) and λ = γ/4
    (`THM5_PROOF`): ln(1/κ)/(λ'γ − φ(λ')), φ(x) = e^x − 1 − x, with λ' = λ the rate on
    the ±1 margins (Algorithm 1 as the library implements it: μ̃ = κe^{−λσ}), or, with
    ``per_margin=False``, ln(1/κ)/(λ(γ/2) − ψ(λ)), ψ(x) = e^{−x} − 1 + x, for the reading where
    λ multiplies the count of correct votes.  At most 4.61·ln(1/κ)/γ² (10.67 for the other
    reading) for γ ∈ (0, 1/2], against the theorem's 16·ln(1/κ)/γ²."""
    lam = gamma / 4
    if per_margin:
        return math.log(1 / kappa) / (lam * gamma - (math.expm1(lam) - lam))
    return math.log(1 / kappa) / (lam * gamma / 2 - (math.expm1(-lam) + lam))


def thm5_constants(gamma_max: str = "0.5") -> dict[str, object]:
    """The constants of `THM5_PROOF` over the whole range γ ∈ (0, γ_max], as intervals
    (``mpmath.iv``): with λ = γ/4,

    - per-margin reading: γ²/(λγ − φ(λ)) = 1/(1/4 − (φ(λ)/λ²)/16), and φ(x)/x² = Σ_{k≥0}
      x^k/(k + 2)! increases in x ≥ 0 (positive coefficients), so the sup is the value at
      γ_max (its denominator must be > 0 there);
    - count reading: γ²/(λγ/2 − ψ(λ)) = 1/(1/8 − (ψ(λ)/λ²)/16), ψ(x)/x² = Σ_{k≥0}
      (−x)^k/(k + 2)!, whose derivative Σ_{k≥1} k(−1)^k x^{k−1}/(k + 2)! pairs its terms
      (k odd, k + 1) as x^{k−1}[(k + 1)x/(k + 3)! − k/(k + 2)!] ≤ 0 for x ≤ k(k + 3)/(k + 1),
      ≥ 2: ψ(x)/x² decreases on [0, 2], so the sup is the limit at γ → 0, 1/(1/8 − 1/32) =
      32/3 (``count_monotone``: λ_max ≤ 2).

    Returns the two suprema's enclosures and the per-margin denominator's."""
    from mpmath import iv

    from proofs_check.verified import interval

    lam = interval(gamma_max) / 4
    phi_ratio = (iv.exp(lam) - 1 - lam) / lam ** 2
    per_margin = 1 / (interval(1) / 4 - phi_ratio / 16)
    count = 1 / (interval(1) / 8 - interval(1) / 2 / 16)
    return {"per_margin_sup": per_margin, "count_sup": count,
            "per_margin_denominator": interval(1) / 4 - phi_ratio / 16,
            "lambda_max": lam, "count_monotone": float(lam.b) <= 2.0}


#: why Theorem 5's 10% fewer rounds (14.4 ln(1/κ)/γ²) are still enough (equivalent mutants)
THM5_PROOF = Proof(
    "equivalent (still true): LazyBB's lazy projection μ_t = argmin_{μ∈Γ} R(μ) + λ⟨σ_{t−1}, μ⟩ "
    "(Γ = {μ ∈ [0,1]^n: |μ| ≥ κn}, R(μ) = Σ μ_i ln(μ_i/κ) − μ_i + κ, the generalised KL to "
    "κ·1; bregman_project is its KKT point μ = min(1, cμ̃), c ≥ 1 least) is FTRL, so for u ∈ Γ "
    "λΣ_t⟨m_t, μ_t − u⟩ ≤ R(u) + Σ_t sup_{x≥0}[λ⟨m_t, μ_t − x⟩ − KL(x‖μ_t)] = R(u) + "
    "Σ_t Σ_i μ_t(i)(e^{−λm_t(i)} − 1 + λm_t(i)) ≤ R(u) + φ(λ)Σ_t|μ_t|, φ(λ) = e^λ − 1 − λ.  If "
    "B = {i: σ_τ(i) ≤ γτ} had |B| > κn, u = (κn/|B|)1_B ∈ Γ has R(u) = κn ln(n/|B|) < "
    "κn ln(1/κ) and ⟨σ_τ, u⟩ ≤ κnγτ, while ⟨m_t, μ_t⟩ ≥ 2γ|μ_t| (accuracy ≥ 1/2 + γ): "
    "(2γ − φ(λ)/λ)Σ|μ_t| < κn ln(1/κ)/λ + κnγτ with Σ|μ_t| ≥ κnτ gives τ < ln(1/κ)/(λγ − "
    "φ(λ)) ≤ 4.61 ln(1/κ)/γ² at λ = γ/4, γ ≤ 1/2 (thm5_proved_rounds); with λ on the count "
    "of correct votes instead, 10.67 ln(1/κ)/γ².  Every τ ≥ 14.4 ln(1/κ)/γ² is past both, so "
    "the theorem's constant 16 is loose by > 3.4× and the mutant is a true statement.  The "
    "constants over the whole range: γ²/(λγ − φ(λ)) = 1/(1/4 − 16φ(γ/4)/γ²) and φ(x)/x² = "
    "Σ_{k≥2} x^{k−2}/k! increases, so the worst γ is 1/2 (4.600…); likewise ψ(x)/x² = "
    "Σ_{k≥2} (−x)^{k−2}/k! decreases (an alternating series of decreasing terms for x ≤ 1), "
    "so γ²/(λγ/2 − ψ(λ)) = 1/(1/8 − 16ψ(γ/4)/γ²) increases to its limit 1/(1/8 − 1/32) = "
    "10.67 as γ → 0 (thm5_constants, interval arithmetic)",
    range="κ ∈ (0, 1), γ ∈ (0, 1/2], every τ ≥ the mutated round count",
    verified_by="tests/test_proofs_check_equivalence.py::test_thm5_constants_over_the_whole_range")

CHECKS = declare(CHECKS, {
    "asadi.thm1": (Mutable(__name__, "THM1_EPSILON", -1,
                           ({"epsilon0": 0.1, "t": 100, "delta": 1e-5},)),
                   Mutable(__name__, "THM1_DELTA", -1,
                           ({"delta": 1e-5, "t": 100, "delta0": 1e-8},))),
    "asadi.thm5": (Mutable(__name__, "THM5_ROUNDS", -1, ({"kappa": 0.25, "gamma": 0.1},),
                           equivalent={"*": THM5_PROOF}),
                   Mutable(__name__, "THM5_FRACTION", -1, ({"kappa": 0.25},))),
    "asadi.sec5.rounds": (Mutable(__name__, "SEC5_ROUNDS", 0, ({},)),),
    "asadi.thm12": (Mutable(__name__, "THM12_DEVIATION", -1,
                            ({"H": 8, "beta": 0.1, "eta": 10.0},)),
                    Mutable(__name__, "THM12_FAILURE", -1, ({"beta": 0.1},))),
    "asadi.thm8": (Mutable(__name__, "THM12_DEVIATION", -1,
                           ({"H": 8, "beta": 0.1, "eta": 10.0},)),
                   Mutable(__name__, "THM12_FAILURE", -1, ({"beta": 0.1},))),
})
