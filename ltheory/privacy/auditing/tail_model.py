"""Where to cut a threshold family deep in its tail: a power-law model of the tail's log-ratio.

A threshold family's nested events ``{s ≥ t}`` (or ``{s ≤ t}``) are scored by the bound their
selection counts project (``events._projected``).  Deep in a tail the counts are few, and the
shrinkage that guards against the winner's curse (their 98% Clopper–Pearson bounds) reads a
position of 5 runs against 1 as worthless.  But when the tail's log-ratio keeps *growing* the
best event at the certification size is exactly there.  ReportNoisyMax4 (the noisy maximum's
value, exponential noise, DP-Sniper's suite) at 2·10^6 runs: the best cut holds ~5 and ~0.7
selection runs and would certify 1.21; the shrunk counts choose cuts holding hundreds of runs,
worth 0.36–0.96 (issue 42).

The model.  Along one family and direction, let ``c`` be a position's pooled selection count
(``ca + cb``) and ``L = ln((ca + ½)/(cb + ½))`` its log-ratio, with standard error
``√(1/(ca + ½) + 1/(cb + ½))``.  In many tails ``ln L`` is close to linear in ``ln c`` — a power
law ``L ∝ c^(−β)``: for the exponential noisy maximum β ≈ 0.26–0.45 over three decades of c; a
tail whose log-ratio is constant (Laplace, β = 0) is the case β = 0.  ``tail_projections`` fits
``ln L = a + b ln c`` by weighted least squares (weights ``(L / se)²``, the delta method) on the
positions that estimate L well — from the deepest position holding at most `MAX_SHARE` of the
pooled runs (the tail) down to the first whose ``L`` is not `MIN_Z` standard errors above 0, and
no further than pooled count `MIN_COUNT`; a stretch spanning a factor `SPAN` of counts at least
(keeping just the positions that pass, wherever they are, would fit noise: a constant ratio
of 0.1 passes at 200 runs only where it reads 0.4 by chance) — thinned to one per factor
`STEP` of c (nested counts are strongly dependent; the thinning keeps the fit from weighting one
stretch of the tail many times over), and extrapolates it to the rarer positions below the fit's
smallest count ``c_min``.  Each such position then projects the bound of its pooled count split
as the model says (``ca = c·e^L/(1 + e^L)``, ``cb = c/(1 + e^L)``), unshrunk (``events.UNSHRUNK``:
the line already smooths them over its whole stretch).

The model is used only when the data show the growth it extrapolates:

* at least `MIN_POINTS` thinned positions;
* the slope is negative by more than `SLOPE_Z` standard errors (the WLS covariance scaled by the
  number of positions, for their dependence): a constant-ratio tail (Laplace, ReportNoisyMax3's
  saturated lower tail) has no model, so nothing there moves;
* every fitted position within `GOF` standardised residuals of the line: a log-ratio that rises
  and then falls (a bump of one dataset's mass) breaks the line and has no model.  When the
  line misses, the most frequent fitted position (the top of the stretch, the furthest from
  the rare cuts the model is for) is dropped and the line fitted again, as long as the stretch
  keeps `MIN_POINTS` positions over a factor `SPAN` of counts: over three decades and more (10^6
  selection runs per dataset) a power law is only close, and its curvature at the top — where
  the standard errors are smallest — failed the gate on 4 of 20 simulated ReportNoisyMax4
  selections of that size, leaving the audit to the shrunk counts (one headline audit at
  2·10^7: a cut of 291 vs 74 runs, 1.09 of a ceiling of 2.33, against 2.14 with the trimmed
  line).  A misfit deep in the tail is
  never dropped, and the slope gate applies to every refit;
* extrapolation only down to ``c_min / min(DEPTH, c_max/c_min)``: no further below the fitted
  range than the range spans;
* and only to positions whose own counts agree with the line: the rarer side's count at most
  as unlikely under the line's split of the pooled count as `AGREE` standard normal
  deviations (an exact binomial tail, ``_agrees``; the delta-method standard error of
  ``L`` misreads the 0–3 runs of a deep tail's rarer side).

``events`` fits it on the output's own values only (the scalar output, one coordinate): a fitted
score — a classifier, naive Bayes, a discriminant — estimates a log-likelihood ratio, which is
bounded for any mechanism of finite ε, so its tail bends away from any power law (PrefixSum at
2·10^6: a logistic-regression cut of 15 vs 5 selection runs was projected to certify 1.46, above
the pair's ceiling of 0.90, and certified 0.63 where the unmodelled choice certified 0.83).

Simulated at selection splits of 10^5 runs per dataset with 9·10^5 certifying (20 selections
each, exact values of the chosen cuts): ReportNoisyMax4 0.66 → 1.03 (best cut 1.11); a
Gaussian shift 1.47 → 1.54 (best 1.64); Laplace, ReportNoisyMax3 and a Gaussian with a bump
unchanged (the model declines).  At 10^6 + 9·10^6: ReportNoisyMax4 1.50 → 1.89 (best 2.14).
On 460 Laplace tails (10^3.7–10^5.7 runs per dataset) no model was fitted.  In ``audit`` at
2·10^6 runs on DP-Sniper's pairs (nine seeds): ReportNoisyMax4 0.64 → 1.13 of a whole-budget
ceiling of 1.254 (``benchmarks/bench_dpsniper_headline.py``).

Later, the audit projected the extrapolated positions from the line's counts as they are, not
from their Clopper–Pearson medians, which read the 0.2 rarer-side runs of a deep position as
0.9 and kept the cuts near 20 pooled selection runs where the best holds about 7
(``events._placed``; the family's worth among the other families keeps the medians). It also
replaced the agreement test's delta-method standard error with the exact binomial tail. From
the exact cells of DP-Sniper's pair (40–60 simulated selections), the chosen cut's bound at
expected counts went 0.845 → 0.951 of the whole-budget ceiling at 2·10^7 runs and
0.816 → 0.887 at 2·10^6; the headline's search, nine seeds, went 0.827 → 1.032 and
0.843 → 0.948.

Only the *choice* of the event moves: the model sees the selection runs only, and the chosen event
is certified on fresh runs by the same test as every other.  A wrong model costs power, never
soundness.  To bound that cost, a coordinate's cut placed by the model is certified beside the
best event of another score (``events.events_to_certify``): SVT3 at 2·10^7 runs, handed seed
2024, a released value's tail read 1–3 standard errors high over two decades of selection counts
(the tail's exact ratio rises from 0.13 to 0.35 and stays there), the line projected 0.56 at 6 vs
18 runs, and the cut alone, beside a cut of the same coordinate, certified 0.117 of a
whole-budget ceiling of 0.307; beside the other coordinate's cut, 0.294.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import betainc, ndtr

#: smallest pooled selection count of a fitted position
MIN_COUNT = 20
#: largest share of the pooled selection runs a fitted position may hold (the tail only)
MAX_SHARE = 0.05
#: a fitted position's log-ratio must be at least this many standard errors above 0
MIN_Z = 3.0
#: the fitted positions are thinned to one per factor STEP of pooled count
STEP = 1.2
#: fewest thinned positions a model is fitted on
MIN_POINTS = 4
#: the fitted slope of ln L on ln c must be below 0 by this many standard errors
SLOPE_Z = 2.0
#: largest standardised residual of a fitted position
GOF = 3.0
#: extrapolate at most this factor of pooled count below the fitted range
DEPTH = 30.0
#: the fitted stretch must span at least this factor of pooled count
SPAN = 4.0
#: an extrapolated position's rarer-side count may be at most this unlikely under the model's
#: log-ratio, as a normal quantile (exact binomial tail: ``_agrees``)
AGREE = 2.0


@dataclass(frozen=True)
class TailModel:
    """A family's tail model: per position, the model's projection (−inf where it does not
    extrapolate) and the counts it projects (``ca`` on the favoured side, ``cb`` on the
    other; the pooled count split as the fitted log-ratio says); ``placed``, where the audit
    sets it (``events._placed``), marks the position where the model placed its family's
    cut."""

    proj: np.ndarray
    ca: np.ndarray
    cb: np.ndarray
    placed: np.ndarray | None = None

    @property
    def reach(self) -> np.ndarray:
        """The positions the model extrapolates to."""
        return np.isfinite(self.proj)


def tail_projections(ca: np.ndarray, cb: np.ndarray,
                     project: Callable[[np.ndarray, np.ndarray], np.ndarray]
                     ) -> TailModel | None:
    """Model projections of one nested family's positions (selection counts ``ca`` on the side
    the family favours, ``cb`` on the other, per position): a `TailModel`, or None when there is
    no model (see [`ltheory.privacy.auditing.tail_model`][ltheory.privacy.auditing.tail_model]).
    ``project(ca, cb)`` is the projection of (possibly fractional) counts, unshrunk.

    Examples:
        >>> import numpy as np
        >>> c = np.geomspace(2, 10**5, 80).round()   # pooled counts of nested cuts
        >>> ratio = 1.9 * (c / 6) ** -0.3                   # a log-ratio growing into the tail
        >>> ca = c * np.exp(ratio) / (1 + np.exp(ratio))
        >>> model = tail_projections(ca, c - ca, lambda a, b: np.log((a + 1) / (b + 1)))
        >>> bool(model.reach[c < 10].any()), bool(model.reach[c > 100].any())
        (True, False)
        >>> tail_projections(c * 0.55, c * 0.45, lambda a, b: a) is None   # constant ratio
        True
    """
    ca = np.asarray(ca, dtype=float)
    cb = np.asarray(cb, dtype=float)
    c = ca + cb
    if c.size == 0:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.log((ca + 0.5) / (cb + 0.5))
        se = np.sqrt(1.0 / (ca + 0.5) + 1.0 / (cb + 0.5))
    total = float(np.max(c))
    window = np.flatnonzero((c >= MIN_COUNT) & (c <= MAX_SHARE * max(total, 1.0)))
    window = window[np.argsort(-c[window], kind="stable")]
    # the fitted stretch runs from the window's top down to the first position whose log-ratio
    # is not clearly positive: keeping only the positions that pass would select the noise
    # (a constant ratio of 0.1 passes at 200 runs only where it reads 0.4 by chance)
    weak = np.flatnonzero(~(L[window] > MIN_Z * se[window]))
    fit = window[: weak[0]] if weak.size else window
    if fit.size < MIN_POINTS or c[fit[0]] < SPAN * c[fit[-1]]:
        return None
    # one position per factor STEP of pooled count
    bins = np.floor(np.log(c[fit]) / np.log(STEP))
    _, first = np.unique(bins, return_index=True)
    keep = fit[first]
    if keep.size < MIN_POINTS:
        return None
    while True:
        beta, worst = _fit(c[keep], L[keep], se[keep])
        if beta is None:
            return None
        if worst <= GOF:
            break
        # the line misses: drop the top of the stretch (the most frequent position, the
        # furthest from the rare cuts the model is for) and fit again while the stretch still
        # spans SPAN with MIN_POINTS; a misfit deep in the tail (a bump there) is never dropped
        # and ends the model
        keep = keep[c[keep] < np.max(c[keep])]
        if keep.size < MIN_POINTS or np.max(c[keep]) < SPAN * np.min(c[keep]):
            return None
    c_min, c_max = float(np.min(c[keep])), float(np.max(c[keep]))
    reach = (c < c_min) & (c >= c_min / min(DEPTH, c_max / c_min)) & (c >= 1)
    # a position whose own counts contradict the line is not extrapolated to: a tail that
    # saturates (a bounded log-likelihood ratio) bends away from a power law
    with np.errstate(invalid="ignore", over="ignore"):
        line = np.exp(beta[0] + beta[1] * np.log(np.maximum(c, 1.0)))
    reach &= _agrees(ca, cb, line)
    out = np.full(c.shape, -np.inf)
    mca, mcb = ca.copy(), cb.copy()
    if reach.any():
        share = 1.0 / (1.0 + np.exp(-line[reach]))      # the line's log-ratio, as a split
        mca[reach], mcb[reach] = c[reach] * share, c[reach] * (1.0 - share)
        with np.errstate(invalid="ignore", divide="ignore"):
            val = np.asarray(project(mca[reach], mcb[reach]), dtype=float)
        out[reach] = np.where(np.isfinite(val), val, -np.inf)
    return TailModel(out, mca, mcb)


def _agrees(ca: np.ndarray, cb: np.ndarray, line: np.ndarray) -> np.ndarray:
    """Whether each position's rarer-side count ``cb`` is consistent with the line's log-ratio:
    under the line, ``cb`` of the pooled ``ca + cb`` is binomial with share
    ``q = 1/(1 + e^line)``; a position contradicts it when ``P(Bin(c, q) ≥ cb)`` is below
    ``Φ(−AGREE)`` (the regularized incomplete beta ``I_q(cb, c − cb + 1)``, defined for the
    fractional counts of a model's own splits too).  Exact where the normal reading of the
    log-ratio is not: deep in a tail ``cb`` is 0–3, and one stray run of the rarer side put
    ``ln((ca + ½)/(cb + ½))`` more than 2 of its delta-method standard errors below the line
    (ReportNoisyMax4 at 2·10^7 runs: 5 of 40 simulated selections lost every extrapolated
    position that way)."""
    c = ca + cb
    with np.errstate(invalid="ignore", over="ignore"):
        q = 1.0 / (1.0 + np.exp(line))
    p = np.ones_like(c)
    rare = cb > 0
    p[rare] = betainc(cb[rare], c[rare] - cb[rare] + 1.0, q[rare])
    return p >= ndtr(-AGREE)


def _fit(c: np.ndarray, L: np.ndarray, se: np.ndarray) -> tuple[np.ndarray | None, float]:
    """The weighted least-squares line ``ln L = a + b ln c`` of the thinned positions (weights
    ``(L / se)²``) and its largest standardised residual; None (and inf) when the slope is not
    negative by `SLOPE_Z` standard errors (the covariance scaled by the number of positions,
    for their dependence) or the fit fails."""
    x, y = np.log(c), np.log(L)
    w = (L / se) ** 2
    X = np.column_stack([np.ones_like(x), x])
    A = X.T @ (w[:, None] * X)
    try:
        beta = np.linalg.solve(A, X.T @ (w * y))
        cov = np.linalg.inv(A) * c.size
    except np.linalg.LinAlgError:
        return None, np.inf
    if not (np.all(np.isfinite(beta)) and beta[1] + SLOPE_Z * np.sqrt(max(cov[1, 1], 0.0)) < 0):
        return None, np.inf
    return beta, float(np.max(np.abs((y - X @ beta) * np.sqrt(w))))
