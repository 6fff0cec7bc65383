"""Checks of seed ``004_5635bafb29a98a47.txt`` (lecture notes: private PAC learning), §1.

Theorem 1: for every class C, f in C and distribution D, with n = 2 ln|C| / α i.i.d. examples
(x_i, f(x_i)), x_i ~ D, every h in C consistent with the sample has Pr_{r~D}[h(r) = f(r)] >= 1 - α,
with probability at least 1 - e^{-αn/2}.

Checked by simulation: D is uniform on the (finite) domain, so the error of every h is exact;
each trial draws a sample and asks whether some consistent h has error > α.  The failure
probability is estimated with a two-sided 95% Clopper–Pearson interval (scipy); the statement
"holds" unless the interval's lower end exceeds the bound.  n is rounded up, which the proof
allows (its bound |C|(1-α)^n <= e^{ln|C| - αn} <= e^{-αn/2} for n >= 2 ln|C|/α).  Besides
catalog classes, a class of hypotheses with disjoint disagreement sets of mass just above α
makes the union bound nearly tight.

§1, the generic private learner (``pac.em_sample_bound``): the exponential mechanism with
u = −#errors fails (population error > α) with probability < |C|e^{−εαn/4} + |C|e^{−α²n/2}, so
n ≥ 8 ln|C|/(α·min(α, ε)) suffices.  Evaluated on ``ExponentialMechanismLearner`` at that n:
exactly for two-hypothesis classes (a binomial sum over the sample's errors), by simulation with
a Hoeffding interval (the exact conditional failure probability averaged over samples) on
catalog classes.

§2, private multiplicative weights (``pmw.claim``): "MW is (12Tα², e^{−Tα})-DP" — the exact δ at
ε = 12Tα² on the neighbouring pair r_1 = (1, 0) vs (0, 1) (all later rewards 0), in closed form
(``exact_delta_two_experts``) and, for small T, from the learner's exact output distribution.
Theorem 3 ((ε, e^{−Ω(√(Tε))}) and an O(·) regret) has unstated constants: not evaluable.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from scipy.special import expit
from scipy.stats import beta

from ltheory import catalog
from ltheory.core.hypothesis_class import HypothesisClass
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

SOURCE = "004_5635bafb29a98a47.txt"
_alpha, _n, _eps, _C, _T = sympy.symbols("alpha n epsilon C T", positive=True)
#: Theorem 1's failure probability bound
THM1_BOUND = sympy.exp(-_alpha * _n / 2)
#: §1: the generic private learner fails with probability < |C|e^{−εαn/4} + |C|e^{−α²n/2} ...
EM_FAILURE_BOUND = _C * sympy.exp(-_eps * _alpha * _n / 4) + _C * sympy.exp(-_alpha ** 2 * _n / 2)
#: ... which is small once n ≥ 8 ln|C| / (α·min(α, ε))
EM_SAMPLES = 8 * sympy.log(_C) / (_alpha * sympy.Min(_alpha, _eps))
#: §2: MW is (12Tα², e^{−Tα})-DP
PMW_EPSILON = 12 * _T * _alpha ** 2
PMW_DELTA = sympy.exp(-_T * _alpha)
_K, _x, _A = sympy.symbols("K x A", positive=True)
#: §2 Theorem 2: E[Σ r_t(i_t)] ≥ Σ r_t(i) − αT − ln K/α for 0 < α ≤ 1.79 (the regret bound)
THM2_REGRET = _alpha * _T + sympy.log(_K) / _alpha
#: the proof's inequality: e^{αx} ≤ 1 + αx + α² for x ∈ [0, 1] and 0 < α ≤ A, A = 1.79
EXP_RANGE = sympy.Rational(179, 100)


def disjoint_class(blocks: int, size: int) -> HypothesisClass:
    """{0} ∪ {1 on block j}: ``blocks`` hypotheses disagreeing with the all-zero target on
    disjoint sets of ``size`` points each (domain blocks·size + 1 points)."""
    n = blocks * size + 1
    M = np.zeros((blocks + 1, n), dtype=np.uint8)
    for j in range(blocks):
        M[j + 1, j * size:(j + 1) * size] = 1
    return HypothesisClass.from_matrix(M, domain=n)


def _failure_rate(H: HypothesisClass, target: int, alpha: float, n: int, trials: int,
                  rng: np.random.Generator, chunk: int = 2000) -> tuple[int, int]:
    """Trials (of ``trials``, D uniform) in which some h with error > α is consistent with the
    sample: h is consistent iff no sampled point lies in its disagreement set."""
    M = H.matrix.astype(bool)
    f = M[target]
    Dis = M != f[None, :]
    bad = Dis.mean(axis=1) > alpha                  # exact error under uniform D
    if not bad.any():
        return 0, trials
    B = Dis[bad].T.astype(np.int32)                 # (points, bad hypotheses)
    X = H.domain_size
    fails = 0
    for start in range(0, trials, chunk):
        t = min(chunk, trials - start)
        xs = rng.integers(0, X, size=(t, n)) + X * np.arange(t)[:, None]
        counts = np.bincount(xs.ravel(), minlength=t * X).reshape(t, X)
        fails += int(((counts @ B) == 0).any(axis=1).sum())
    return fails, trials


def points_failure(N: int, m: int, n: int) -> Fraction:
    """Exact P[some of m given points is missed by n uniform draws from N points] (inclusion–
    exclusion, in rationals): the failure probability of Theorem 1 for the class {0} ∪
    {1_{x_j} : j < m} on N points, target 0, D uniform, α < 1/N (every e_j is bad)."""
    return sum((Fraction((-1) ** (j + 1) * math.comb(m, j) * (N - j) ** n, N ** n)
                for j in range(1, m + 1)), Fraction(0))


def _thm1(quick: bool) -> Iterator[Evidence]:
    # exact rows: point functions with α just below 1/N, the union bound's extremal case
    # (each bad h is wrong on one point of mass 1/N ≈ α; disjoint disagreement sets)
    for N in (20, 100, 200) if quick else (20, 50, 100, 200, 400):
        m = N
        alpha = (1 - 1e-9) / N
        n = math.ceil(2 * math.log(m + 1) / alpha)
        exact = float(points_failure(N, m, n))
        bound = float(evaluate_bound(THM1_BOUND, alpha=alpha, n=n))
        ok = exact <= bound
        yield Evidence("{0} ∪ point functions on N points, D uniform, α just below 1/N (exact)",
                       {"N": N, "|C|": m + 1, "alpha": alpha, "samples": n},
                       {"P[some consistent h has error > α] (exact)": exact}, bound, ok,
                       bound - exact, None if ok else {"N": N, "m": m, "n": n},
                       "inclusion–exclusion over the missed points, in rationals; the "
                       "paper's union bound is nearly met", tight(exact, bound))
    rng = np.random.default_rng(2024)
    trials = 4000 if quick else 20_000
    classes = [("thresholds", {"n": 32}, catalog.family("thresholds", n=32)),
               ("intervals", {"n": 16}, catalog.family("intervals", n=16, empty=True)),
               ("points", {"n": 20}, catalog.family("points", n=20, zero=True)),
               ("random", {"m": 64, "n": 12, "seed": 1},
                catalog.family("random", m=64, n=12, p=0.5, seed=1)),
               ("disjoint disagreement sets", {"blocks": 8, "size": 5}, disjoint_class(8, 5))]
    for name, params, H in classes:
        for alpha in (0.25, 0.1) if quick else (0.3, 0.2, 0.1, 0.05):
            n = math.ceil(2 * math.log(len(H)) / alpha)
            target = 0 if name.startswith("disjoint") else int(rng.integers(len(H)))
            k, T = _failure_rate(H, target, alpha, n, trials, rng)
            bound = float(evaluate_bound(THM1_BOUND, alpha=alpha, n=n))
            lo = float(beta.ppf(0.025, k, T - k + 1)) if k > 0 else 0.0
            hi = float(beta.ppf(0.975, k + 1, T - k)) if k < T else 1.0
            holds = lo <= bound
            yield Evidence(name, {**params, "alpha": alpha, "samples": n, "target": target},
                           {"failures": k, "trials": T, "rate": k / T, "95% CI": [lo, hi],
                            "|C|(1-alpha)^n": len(H) * (1 - alpha) ** n},
                           bound, holds, bound - k / T, None if holds else {"target": target},
                           "bound = e^{-alpha n / 2}; holds unless the CI lies above it",
                           tight(k / T, bound))


def _em_rows_exact(quick: bool) -> Iterator[Evidence]:
    """|C| = 2: C = {f, g}, g wrong on a set of mass p > α; the learner fails iff it outputs g,
    with probability E_b[e^{−εb/2}/(1 + e^{−εb/2})], b ~ Bin(n, p) errors of g — exact."""
    from scipy.stats import binom

    from ltheory.privacy.learners.exponential import ExponentialMechanismLearner

    for alpha, eps, p in ((0.1, 0.05, 0.11), (0.2, 0.1, 0.21), (0.1, 1.0, 0.11)) if quick else (
            (0.1, 0.05, 0.11), (0.2, 0.1, 0.21), (0.1, 1.0, 0.11), (0.05, 0.02, 0.051),
            (0.3, 0.3, 0.31), (0.1, 0.5, 0.2)):
        n = math.ceil(float(evaluate_bound(EM_SAMPLES, C=2, alpha=alpha, epsilon=eps)))
        # the learner itself on its two-hypothesis class: P[g | b errors of g, 0 of f]
        learner = ExponentialMechanismLearner(["0", "1"], eps)
        b = np.arange(n + 1)
        # P[g | g errs on b sample points] from the learner itself: its odds P[g]/P[f] per
        # error of g, read at b = 1 and b = 2 (an exponential mechanism in the error count
        # has the same odds factor at every b; checked), so p_g(b) = 1/(1 + odds^{−b})
        p1 = learner.probabilities(((0, 0),))[1]
        p2 = learner.probabilities(((0, 0),) * 2)[1]
        odds = p1 / (1 - p1)
        if not math.isclose(p2 / (1 - p2), odds ** 2, rel_tol=1e-9):
            raise AssertionError("ExponentialMechanismLearner's odds are not geometric in the "
                                 "number of errors")
        p_g = expit(b * math.log(odds))                  # odds^b / (1 + odds^b)
        fail = float(np.sum(binom.pmf(b, n, p) * p_g))
        if not math.isclose(fail, em_two_hypothesis_failure(n, p, eps), rel_tol=1e-9):
            raise AssertionError("the learner's failure differs from the closed form")
        bound = float(evaluate_bound(EM_FAILURE_BOUND, C=2, alpha=alpha, epsilon=eps, n=n))
        ok = fail <= bound
        yield Evidence("two hypotheses, g wrong on mass p (exact)",
                       {"alpha": alpha, "epsilon": eps, "p": p, "n = ⌈8 ln|C|/(α min(α,ε))⌉": n},
                       {"P[error > α] (exact)": fail}, bound, ok, bound - fail,
                       None if ok else {"n": n, "p": p}, "", tight(fail, bound))
    # beyond the theorem's n (the failure bound is stated for every n): the regimes where a
    # term of the bound is the right rate.  Small ε: the failure decays like
    # (1 − p(1 − e^{−ε/2}))^n ≈ e^{−εpn/2 + ε²pn/8}, slower than e^{−εαn/2} (so the bound's
    # exponent cannot be doubled); large ε: the failure is P[g consistent]/2 ≈ (1 − p)^n, slower
    # than e^{−εαn/4} (so the e^{−α²n/2} term cannot be dropped).
    for alpha, eps, p, n in ((0.5, 0.5, 0.501, 1000), (0.1, 8.0, 0.101, 100)) if quick else (
            (0.5, 0.5, 0.501, 1000), (0.5, 0.25, 0.501, 2000), (0.9, 0.5, 0.901, 1000),
            (0.1, 8.0, 0.101, 100), (0.05, 8.0, 0.051, 200), (0.2, 16.0, 0.201, 100)):
        fail = em_two_hypothesis_failure(n, p, eps)
        bound = float(evaluate_bound(EM_FAILURE_BOUND, C=2, alpha=alpha, epsilon=eps, n=n))
        ok = fail <= bound
        yield Evidence("two hypotheses at large n (exact; the regime where one term of the bound "
                       "is the failure's rate)", {"alpha": alpha, "epsilon": eps, "p": p, "n": n},
                       {"P[error > α] (exact)": fail}, bound, ok, bound - fail,
                       None if ok else {"n": n, "p": p}, "", tight(fail, bound))


def em_two_hypothesis_failure(n: int, p: float, eps: float) -> float:
    """P[the exponential mechanism (u = −#errors, ε) outputs g] for C = {f, g}, f the target and
    g wrong on mass p: E[σ(−εb/2)], b ~ Bin(n, p), summed in log space (exact to rounding).

    Examples:
        >>> round(em_two_hypothesis_failure(1, 1.0, 2 * math.log(3)), 12)   # b = 1: 1/(1 + 3)
        0.25
    """
    from scipy.special import log_expit, logsumexp
    from scipy.stats import binom

    b = np.arange(n + 1)
    return float(math.exp(logsumexp(binom.logpmf(b, n, p) + log_expit(-b * eps / 2))))


def em_union_bound_sup(expr: sympy.Expr, size: int = 300) -> float:
    """sup over α ∈ (0, 1), ε ∈ [1e-4, 1e3], n ≥ 0 (a size × size × (size + 200) grid) of
    min(1, (|C|−1)q)/B, q = (1 − α(1 − e^{−ε/2}))^n and B = ``expr`` (of the form |C|·g): an
    upper bound on the exponential mechanism's failure/B on every class and distribution
    (P[output h] ≤ e^{−εb_h/2} since the target scores 0; E e^{−εb/2} = (1 − p(1 − e^{−ε/2}))^n
    for b ~ Bin(n, p), p > α), maximised over |C| ≥ 2 by min(1/(2g), q/g)."""
    A = np.geomspace(1e-4, 0.999, size)[:, None, None]
    E = np.geomspace(1e-4, 1e3, size)[None, :, None]
    N = np.concatenate([np.arange(0, 200), np.geomspace(200, 1e8, size)])[None, None, :]
    g = sympy.lambdify((_alpha, _eps, _n), expr.subs(_C, 1), "numpy")
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        G = np.broadcast_to(g(A, E, N), (A.size, E.size, N.size))
        logq = N * np.log1p(-A * (1 - np.exp(-E / 2)))
        r = np.minimum(-np.log(2) - np.log(G), logq - np.log(G))
    return float(np.exp(np.max(r[np.isfinite(r) & (G > 1e-290)])))


def em_bound_form(expr: sympy.Expr) -> tuple[sympy.Rational, sympy.Rational, sympy.Rational,
                                               sympy.Rational]:
    """(k1, u1, k2, u2) of a failure bound of the form |C|(k1·e^{−u1·εαn} + k2·e^{−u2·α²n})
    (EM_FAILURE_BOUND and its mutants that keep both terms); raises ValueError otherwise."""
    g = sympy.expand(sympy.powsimp(expr.subs(_C, 1)))
    form: dict[str, tuple[sympy.Expr, sympy.Expr]] = {}
    for term in sympy.Add.make_args(g):
        k, rest = term.as_coeff_Mul()
        if not isinstance(rest, sympy.exp):
            raise ValueError(f"{expr}: the term {term} is not k·exp(…)")
        arg = rest.args[0]
        for name, unit in (("first", -_eps * _alpha * _n), ("second", -_alpha ** 2 * _n)):
            u = sympy.simplify(arg / unit)
            if u.is_Number and u > 0 and k > 0:
                form[name] = (sympy.Rational(k), sympy.Rational(u))
                break
        else:
            raise ValueError(f"{expr}: the exponent {arg} is neither −u·εαn nor −u·α²n")
    if set(form) != {"first", "second"}:
        raise ValueError(f"{expr}: not of the form |C|(k1 e^(−u1 εαn) + k2 e^(−u2 α²n))")
    return (*form["first"], *form["second"])


def _iv_rational(r: sympy.Rational) -> Any:
    from mpmath import iv

    return iv.mpf(int(r.p)) / iv.mpf(int(r.q))


def em_ratio_upper(alpha: Any, t: Any, form: tuple) -> Any:
    """An upper bound (a point interval) on R = min(1/2, q)/g over every n ≥ 0 and every
    (α, t) of the box ``alpha`` × ``t`` ⊆ [0, 1]² (mpmath intervals), where t = 1 − e^{−ε/2},
    q = (1 − αt)^n and g = k1 e^{−u1 εαn} + k2 e^{−u2 α²n} (``form``, `em_bound_form`).

    With L = −ln(1 − αt), z = q = e^{−nL} and p1 = u1εα/L, p2 = u2α²/L, g = k1 z^{p1} + k2
    z^{p2}; for z ≥ 1/2 R = 1/(2g) is largest at z = 1/2, so sup_n R = sup over w = −ln z ≥ ln 2
    of 1/D(w), D(w) = k1 e^{m1 w} + k2 e^{m2 w}, m_i = 1 − p_i.  D increases in each m_i (w >
    0), so upper bounds P_i ≥ p_i on the box give a lower bound on min D, from monotone corner
    values (outward-rounded): L increases in α and t, ε(t)/t = 2Σ t^{j−1}/j increases in t,
    L ≥ αt(1 + αt/2); hence p1 ≤ u1 ε(t1)/(t1(1 + a0t0/2)) and ≤ u1 ε(t1)a1/L(a0, t0), p2 ≤
    u2 a1/(t0(1 + a0t0/2)) and ≤ u2 a1²/L(a0, t0).  min_{w ≥ ln 2} D: at w = ln 2 when m1, m2 ≥
    0; 0 (no bound) when both < 0; otherwise the convex D's stationary point w* = ln(−k1m1/
    (k2m2))/(m2 − m1) bounds it below (and w = ln 2 is the minimum when w* ≤ ln 2)."""
    from mpmath import iv, mpf

    inf = mpf("inf")
    k1, u1, k2, u2 = (_iv_rational(r) for r in form)
    a0, a1, t0, t1 = alpha.a, alpha.b, t.a, t.b
    ratio = -2 * iv.log(1 - t1) / t1                       # ε(t1)/t1 (∞ at t1 = 1)
    x0 = a0 * t0
    low_L = -iv.log(1 - x0)
    p1 = [u1 * ratio / (1 + x0 / 2)]
    p2 = []
    if low_L.a > 0:
        p1.append(u1 * (-2 * iv.log(1 - t1)) * a1 / low_L)
        p2.append(u2 * a1 * a1 / low_L)
    if t0.a > 0:
        p2.append(u2 * a1 / (t0 * (1 + x0 / 2)))
    P1 = min(mpf(c.b) for c in p1)
    P2 = min((mpf(c.b) for c in p2), default=inf)
    m1 = -inf if P1 == inf else mpf((1 - iv.mpf(P1)).a)
    m2 = -inf if P2 == inf else mpf((1 - iv.mpf(P2)).a)
    ln2 = iv.log(2)
    if m1 < 0 and m2 < 0:
        return iv.mpf(inf)
    if m2 < 0:                                              # m1 ≥ 0 ≥ m2: swap
        m1, m2, k1, k2 = m2, m1, k2, k1
    # now m2 ≥ 0; m1 is −∞, negative or ≥ 0
    if m1 == -inf:
        D = k2 * iv.exp(iv.mpf(m2) * ln2)
    elif m1 >= 0:
        D = k1 * iv.exp(iv.mpf(m1) * ln2) + k2 * iv.exp(iv.mpf(m2) * ln2)
    elif m2 == 0:
        D = k2
    else:
        M1, M2 = iv.mpf(m1), iv.mpf(m2)
        ws = iv.log(-k1 * M1 / (k2 * M2)) / (M2 - M1)
        w = ln2 if ws.b <= ln2.a else ws
        D = k1 * iv.exp(M1 * w) + k2 * iv.exp(M2 * w)
    if not D.a > 0:
        return iv.mpf(inf)
    return iv.mpf((1 / iv.mpf(D.a)).b)


def em_ratio_verified(form: tuple, below: float | str,
                      max_pieces: int = 200_000) -> dict[str, Any]:
    """Verify sup R < ``below`` over the whole range α ∈ (0, 1), ε ∈ (0, ∞) (t ∈ (0, 1)), n ≥ 0
    (R of `em_ratio_upper`): interval branch-and-bound (`proofs_check.verified
    .sup_on_box`) over the closed box (α, t) ∈ [0, 1]², which holds the unbounded directions
    (ε → ∞ is t → 1, n → ∞ is w → ∞, handled in closed form).  Raises NotVerified otherwise."""
    from proofs_check.verified import sup_on_box

    return sup_on_box(lambda a, t: em_ratio_upper(a, t, form), ((0, 1), (0, 1)), float(below),
                      max_pieces=max_pieces)


def em_ratio_at(alpha: float, epsilon: float, n: float | None, form: tuple) -> Any:
    """The interval enclosure of R = min(1/2, q)/g at one (α, ε, n) (n real; None: the n with
    q = 1/2, where the suprema are attained)."""
    from mpmath import iv

    k1, u1, k2, u2 = (_iv_rational(r) for r in form)
    a, e = iv.mpf(alpha), iv.mpf(epsilon)
    L = -iv.log(1 - a * (1 - iv.exp(-e / 2)))
    nn = iv.log(2) / L if n is None else iv.mpf(n)
    q = iv.exp(-nn * L)
    g = k1 * iv.exp(-u1 * e * a * nn) + k2 * iv.exp(-u2 * a * a * nn)
    half = iv.mpf(1) / 2
    return (half if n is None else (half if q.a >= half.b else q)) / g


def _em_rows_sim(quick: bool) -> Iterator[Evidence]:
    from ltheory.privacy.learners.exponential import ExponentialMechanismLearner

    rng = np.random.default_rng(4004)
    trials = 200 if quick else 400
    cases = [("thresholds", {"n": 16}, catalog.family("thresholds", n=16)),
             ("disjoint disagreement sets", {"blocks": 4, "size": 3}, disjoint_class(4, 3))]
    for name, params, H in cases:
        for alpha, eps in ((0.25, 0.5),) if quick else ((0.25, 0.5), (0.2, 1.0)):
            n = math.ceil(float(evaluate_bound(EM_SAMPLES, C=len(H), alpha=alpha, epsilon=eps)))
            M = H.matrix.astype(bool)
            target = 0
            err = (M != M[target][None, :]).mean(axis=1)
            bad = err > alpha
            learner = ExponentialMechanismLearner(H, eps)
            vals = []
            for _ in range(trials):
                xs = rng.integers(0, H.domain_size, size=n)
                data = tuple((int(x), int(M[target, x])) for x in xs)
                vals.append(float(learner.probabilities(data)[bad].sum()))
            mean = float(np.mean(vals))
            half = math.sqrt(math.log(2 / 0.05) / (2 * trials))        # Hoeffding, 95%
            bound = float(evaluate_bound(EM_FAILURE_BOUND, C=len(H), alpha=alpha, epsilon=eps,
                                         n=n))
            ok = mean - half <= bound
            yield Evidence(name, {**params, "alpha": alpha, "epsilon": eps, "n": n},
                           {"P[error > α] (mean of exact conditionals)": mean,
                            "95% Hoeffding interval": [max(0.0, mean - half),
                                                       min(1.0, mean + half)],
                            "trials": trials}, bound, ok, bound - mean,
                           None if ok else {"target": target}, "holds unless the interval "
                           "lies above the bound", tight(mean, bound))


def _em_sample_bound(quick: bool) -> Iterator[Evidence]:
    yield from _em_rows_exact(quick)
    yield from _em_rows_sim(quick)


def _pmw(quick: bool) -> Iterator[Evidence]:
    import warnings

    from ltheory.privacy.auditing.exact import aligned, delta_of_epsilon
    from ltheory.privacy.learners.multiplicative_weights import (
        PrivateMultiplicativeWeights,
        exact_delta_two_experts,
    )

    grid = ((0.15, 8), (0.05, 100), (0.005, 1000), (0.002, 10000)) if quick else (
        (0.15, 8), (0.3, 4), (0.05, 100), (0.1, 100), (0.01, 1000), (0.005, 1000),
        (0.005, 3000), (0.003, 5000), (0.002, 10000), (0.001, 30000))
    for alpha, T in grid:
        eps = float(evaluate_bound(PMW_EPSILON, T=T, alpha=alpha))
        claimed = float(evaluate_bound(PMW_DELTA, T=T, alpha=alpha))
        exact = exact_delta_two_experts(alpha, T, eps)
        ok = exact <= claimed
        yield Evidence("K = 2, r_1 = (1,0) vs (0,1), later rewards 0 (closed form)",
                       {"alpha": alpha, "T": T, "epsilon = 12Tα²": eps},
                       {"exact δ(ε)": exact, "claimed δ = e^{−Tα}": claimed},
                       claimed, ok, claimed - exact,
                       None if ok else {"d0": "r_1 = (1, 0), r_t = (0, 0) for t ≥ 2",
                                        "d1": "r_1 = (0, 1), r_t = (0, 0) for t ≥ 2",
                                        "epsilon": eps, "exact delta": exact},
                       "" if ok else "the exact δ at ε = 12Tα² exceeds e^{−Tα}: the privacy "
                       "loss α(2B − (T−1)), B ~ Bin(T−1, e^α/(1+e^α)), has a Gaussian tail of "
                       "width α√T, far above e^{−Tα} when α is small and T large",
                       tight(exact, claimed))
    # the closed form against the learner's exact output distribution (independent route)
    for alpha, T, K in ((0.3, 6, 2), (0.2, 5, 3)) if quick else ((0.3, 6, 2), (0.2, 5, 3),
                                                                 (0.15, 8, 2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mw = PrivateMultiplicativeWeights(alpha, T, K, claim="approx")
        r0 = [[0.0] * K for _ in range(T)]
        r1 = [[0.0] * K for _ in range(T)]
        r0[0][0] = 1.0
        r1[0][1:] = [1.0] * (K - 1)
        eps = float(evaluate_bound(PMW_EPSILON, T=T, alpha=alpha))
        claimed = float(evaluate_bound(PMW_DELTA, T=T, alpha=alpha))
        _, a, b = aligned(mw.output_distribution(r0), mw.output_distribution(r1))
        d = delta_of_epsilon(a, b, eps)
        two = exact_delta_two_experts(alpha, T, eps) if K == 2 else None
        ok = d <= claimed and (two is None or abs(two - d) < 1e-12)
        yield Evidence("exact output distribution of PrivateMultiplicativeWeights",
                       {"alpha": alpha, "T": T, "K": K, "epsilon = 12Tα²": eps},
                       {"exact δ(ε) (enumerated)": d, "closed form (K = 2)": two,
                        "claimed δ": claimed}, claimed, ok, claimed - d,
                       None if ok else {"d0": r0, "d1": r1}, "", tight(d, claimed))


def _thm2(quick: bool) -> Iterator[Evidence]:
    """Exhaustive over every reward database in {0, 1}^{T×K}: the largest regret of MW (the
    expected reward computed exactly from the learner's own round distributions y_t)."""
    import itertools
    import warnings

    from ltheory.privacy.learners.multiplicative_weights import PrivateMultiplicativeWeights

    grid = ((2, 1, 1.79), (2, 4, 0.2), (2, 6, 0.2), (3, 3, 0.5)) if quick else (
        (2, 1, 1.79), (2, 1, 0.2), (2, 2, 1.0), (2, 4, 0.2), (2, 5, 0.5), (2, 6, 0.2),
        (3, 3, 0.5), (3, 4, 0.5), (3, 4, 1.79))
    for K, T, alpha in grid:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mw = PrivateMultiplicativeWeights(alpha, T, K)
        worst, where = -1.0, None
        for bits in itertools.product((0.0, 1.0), repeat=T * K):
            r = np.array(bits).reshape(T, K)
            regret = float(r.sum(axis=0).max() - (mw.round_probabilities(r) * r).sum())
            if regret > worst:
                worst, where = regret, r
        bound = float(evaluate_bound(THM2_REGRET, alpha=alpha, T=T, K=K))
        ok = worst <= bound + 1e-12
        yield Evidence("every reward database in {0,1}^{T×K} (exact expected reward)",
                       {"K": K, "T": T, "alpha": alpha},
                       {"max regret": worst, "rewards": where.tolist()}, bound, ok,
                       bound - worst, None if ok else {"rewards": where.tolist()},
                       "regret = max_i Σ r_t(i) − Σ_t Σ_i y_t(i) r_t(i), y_t the learner's round "
                       "distributions", tight(worst, bound))
    # the ln K/α term's extremal database: one expert rewarded every round, the others never;
    # MW's regret is Σ_t (1 − y_t(1)) → ln K/α once αT ≫ 1, while αT/(ln K/α) → 0 when α²T → 0
    # (the αT term is loose by 8 in the worst case, the ln K/α term tight): tightness ≥ 0.98
    for K, T, alpha in ((2, 10_000, 1e-3), (8, 100_000, 5e-4)) if quick else (
            (2, 10_000, 1e-3), (2, 100_000, 3e-4), (4, 100_000, 5e-4), (8, 100_000, 5e-4)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mw = PrivateMultiplicativeWeights(alpha, T, K)
        r = np.zeros((T, K))
        r[:, 0] = 1.0
        regret = float(r.sum(axis=0).max() - (mw.round_probabilities(r) * r).sum())
        bound = float(evaluate_bound(THM2_REGRET, alpha=alpha, T=T, K=K))
        ok = regret <= bound + 1e-9
        yield Evidence("construction: one expert rewarded every round (ln K/α's extremal case)",
                       {"K": K, "T": T, "alpha": alpha},
                       {"regret (exact expected reward)": regret, "ln K/α": math.log(K) / alpha,
                        "αT": alpha * T}, bound, ok, bound - regret,
                       None if ok else {"rewards": f"r_t = e_1 for t = 1..{T}"},
                       "regret = Σ_t (1 − y_t(1)); α²T small makes the ln K/α term dominate",
                       tight(regret, bound))


def _exp_inequality(quick: bool) -> Iterator[Evidence]:
    """e^{αx} ≤ 1 + αx + α² on a grid of x ∈ [0, 1] and α ∈ (0, A], A the declared 1.79
    (the worst point is x = 1, α = A; the inequality e^a ≤ 1 + a + a² fails from a ≈ 1.7933)."""
    A = float(evaluate_bound(EXP_RANGE))
    steps = 50 if quick else 400
    xs = np.linspace(0.0, 1.0, steps + 1)
    for alpha in np.linspace(A / steps, A, steps)[-3:] if quick else np.linspace(
            A / steps, A, steps)[::-40][:10]:
        lhs = np.exp(alpha * xs)
        rhs = 1 + alpha * xs + alpha ** 2
        i = int(np.argmax(lhs / rhs))
        ok = bool((lhs <= rhs).all())
        yield Evidence("e^{αx} ≤ 1 + αx + α², x on a grid of [0, 1]",
                       {"alpha": float(alpha), "A": A, "grid": steps + 1},
                       {"worst x": float(xs[i]), "e^{αx}": float(lhs[i]),
                        "1 + αx + α²": float(rhs[i])}, float(rhs[i]), ok,
                       float(rhs[i] - lhs[i]), None if ok else {"alpha": float(alpha),
                                                                 "x": float(xs[i])},
                       "the proof's step ln E[e^{αX}] ≤ αE[X] + α² for X ∈ [0, 1]",
                       float(lhs[i] / rhs[i]))


CHECKS = [
    Check("pac.thm1", SOURCE, "Theorem 1 (consistent learners)",
          "With n = 2 ln|C|/α samples, every consistent h has error <= α with probability "
          ">= 1 - e^{-αn/2}.", THM1_BOUND, _thm1, kind="simulation",
          falsifiable="fails if the 95% Clopper–Pearson interval of the measured failure rate "
                      "lies above e^{−αn/2}; the disjoint-disagreement class brings the rate to "
                      "a sizeable fraction of the bound"),
    Check("pac.em_sample_bound", SOURCE, "§1, generic private learner (sample bound)",
          "The exponential mechanism (u = −#errors) fails (error > α) with probability < "
          "|C|e^{−εαn/4} + |C|e^{−α²n/2}; n ≥ 8 ln|C|/(α·min(α, ε)) samples suffice.",
          EM_FAILURE_BOUND, _em_sample_bound, kind="simulation",
          falsifiable="fails if, at n = ⌈8 ln|C|/(α min(α,ε))⌉, ExponentialMechanismLearner's "
                      "exact (two-hypothesis) or Hoeffding-bounded failure probability exceeds "
                      "the bound; the two-hypothesis rows reach a large fraction of it, and at "
                      "large n they fail if a term is dropped or an exponent doubled where "
                      "that term is the failure's rate"),
    Check("pmw.claim", SOURCE, "§2, approximate privacy of MW",
          "MW (K experts, T rounds, rate α) is (12Tα², e^{−Tα})-differentially private with "
          "respect to the reward database.", PMW_DELTA, _pmw, kind="privacy",
          falsifiable="exact: fails where the exact δ at ε = 12Tα² on one neighbouring pair "
                      "exceeds e^{−Tα} (it does for small α and large T: a finding)"),
    Check("pmw.thm2", SOURCE, "§2 Theorem 2 (regret of MW)",
          "For 0 < α ≤ 1.79 and every i ∈ [K], E[Σ_t r_t(i_t)] ≥ Σ_t r_t(i) − αT − ln K/α.",
          THM2_REGRET, _thm2,
          falsifiable="exact: fails if some reward database in {0,1}^{T×K} gives MW a regret "
                      "above αT + ln K/α (the learner's own round distributions); without the "
                      "αT or the ln K/α term it fails; one expert rewarded every round with "
                      "α²T small reaches 0.98 of the bound"),
    Check("pmw.thm2.exp", SOURCE, "§2 Theorem 2, the proof's inequality",
          "For α ≤ 1.79 and any [0, 1]-bounded X: ln E[e^{αX}] ≤ E[e^{αX}] − 1 ≤ αE[X] + α², "
          "i.e. e^{αx} ≤ 1 + αx + α² on [0, 1].", EXP_RANGE, _exp_inequality,
          falsifiable="fails at some grid point (α, x) with e^{αx} > 1 + αx + α²; at α = 1.79, "
                      "x = 1 the margin is 0.0046 (tightness 0.9992), so a range 10% wider "
                      "fails"),
    not_evaluable("pmw.thm3", SOURCE, "Theorem 3",
                  "For ε ≤ 1, MW is (ε, e^{−Ω(√(Tε))})-DP and has expected reward ≥ max_i Σ_t "
                  "r_t(i) − O(ln K·√T/√ε).",
                  "both parts hide constants (Ω, O): no finite T, ε can refute them; the "
                  "explicit (12Tα², e^{−Tα}) claim they rest on is pmw.claim"),
]

#: the proved suprema of min(1/2, q)/(B/|C|) (em_ratio_verified), per mutant key of
#: EM_FAILURE_BOUND ("" is the bound itself), and the supremum located numerically (real n, at
#: q = 1/2; 4 digits) with its (α, ε): the verifier fails just below it
EM_PROVED = {"": "0.709", "the whole bound moved 10%": "0.788",
             "exponent of exp(-alpha**2*n/2) doubled": "0.710",
             "constant -1/2 moved 10%": "0.709", "constant -1/4 moved 10%": "0.734"}
EM_SUPREMA = {"": (0.70818, 0.5016332387613383, 0.039262847636164),
              "the whole bound moved 10%": (0.78686, 0.5016332418739349, 0.0392628515440412),
              "exponent of exp(-alpha**2*n/2) doubled": (0.70949, 0.5036815645165945,
                                                          0.08868710669018373),
              "constant -1/2 moved 10%": (0.70830, 0.5018236677700896, 0.04385062141693238),
              "constant -1/4 moved 10%": (0.73327, 0.501647817280868, 0.039614342430850866)}
#: why four mutants of the exponential mechanism's failure bound are still true statements
_EM_PROOF = ("equivalent (still true): the target scores 0, so P[output h] ≤ e^{−εb_h/2} (b_h "
             "its errors on the sample) and E e^{−εb/2} = (1 − p(1 − e^{−ε/2}))^n ≤ q := (1 − "
             "αt)^n, t = 1 − e^{−ε/2}, for a bad h (p > α); the failure is ≤ min(1, (|C|−1)q) ≤ "
             "|C|·min(1/2, q), so with B = |C|·g, g = k1 e^{−u1 εαn} + k2 e^{−u2 α²n}, it is "
             "≤ B·R, R = min(1/2, q)/g.  With L = −ln(1 − αt), w = nL and p1 = u1εα/L, p2 = "
             "u2α²/L: R = 1/(2g) increases in n while q ≥ 1/2, and for w ≥ ln 2 R = 1/D(w), "
             "D = k1 e^{(1−p1)w} + k2 e^{(1−p2)w}, increasing in p1, p2 — so sup_n R is a closed "
             "form in upper bounds of p1, p2 (the minimum of the convex D over w ≥ ln 2).  Those "
             "come from monotone corner values on any box of (α, t) ∈ [0, 1]² (L increases in α "
             "and t, ε/t = 2Σt^{j−1}/j increases, L ≥ αt(1 + αt/2)), so an interval "
             "branch-and-bound over the closed box [0, 1]² covers the whole range, its "
             "unbounded directions included: ε → ∞ is t → 1 (p1 → ∞, the first term vanishes), "
             "n → ∞ is w → ∞ (the closed form), α, ε → 0 are edges of the box "
             "(em_ratio_upper, em_ratio_verified).  It proves R < SUP for this mutant (the "
             "bound itself: R < 0.709), < 1: no class, distribution or n can refute it.  The "
             "supremum over real n is NUM (at q = 1/2, α ≈ 0.50, ε ≈ EPS), so the verifier fails "
             "just below it (em_ratio_at)")
_EM_RANGE = "α ∈ (0, 1), ε > 0, every n ≥ 0, |C| ≥ 2, every class and distribution"
_EM_TEST = ("tests/test_proofs_check_equivalence.py::"
            "test_em_failure_bound_mutants_over_the_whole_range")
_EM_EQUIVALENT = {key: Proof(_EM_PROOF.replace("SUP", EM_PROVED[key]).replace(
                      "NUM", f"{EM_SUPREMA[key][0]:.5f}").replace(
                      "EPS", f"{EM_SUPREMA[key][2]:.3f}"), _EM_RANGE, _EM_TEST)
                  for key in EM_PROVED if key}
_EM_SAMPLES_WHY = ("equivalent (not a quantitative statement): the seed says n ≥ 8 ln|C|/(α·min(α, "
                   "ε)) makes the mechanism accurate 'with high probability', naming no "
                   "probability; its quantitative content is the failure bound, which the rows "
                   "check at the mutated n too, and which holds at every n ≥ 0: the failure is "
                   "≤ 0.709·|C|(e^{−εαn/4} + e^{−α²n/2}) over the whole range (em_ratio_verified "
                   "on EM_FAILURE_BOUND itself, as for its equivalent mutants)")

CHECKS = declare(CHECKS, {
    "pac.thm1": (Mutable(__name__, "THM1_BOUND", -1, ({"alpha": 0.1, "n": 100},)),),
    "pmw.thm2": (Mutable(__name__, "THM2_REGRET", -1, ({"alpha": 0.5, "T": 4, "K": 2},)),),
    "pmw.thm2.exp": (Mutable(__name__, "EXP_RANGE", 1, ({},)),),
    "pac.em_sample_bound": (
        Mutable(__name__, "EM_FAILURE_BOUND", -1,
                ({"C": 16, "alpha": 0.25, "epsilon": 0.5, "n": 200},),
                equivalent=_EM_EQUIVALENT),
        Mutable(__name__, "EM_SAMPLES", -1, ({"C": 16, "alpha": 0.25, "epsilon": 0.5},),
                equivalent={"*": Proof(_EM_SAMPLES_WHY, _EM_RANGE, _EM_TEST)})),
})
