"""Model-based projections for sign-count events: where to cut a count of independent signs.

The sign-count score of ``features`` is ``S(o) = Σ_j w_j · 1[o_j above its median]`` with
``w_j = ±1`` (the side each coordinate's fit-half frequencies favour).  Its threshold events
``{S ≥ t}`` and ``{S ≤ t}`` are scored, like every family's, by the bound they are projected to
certify (``events._projected``), from their counts on the eval half of the selection split.  For a
tail position those counts are few: LaplaceParallel (20 Laplace coordinates of scale 200, all
shifted by 1) is best cut at "at least 16 of 20 on the d0 side", an event of ~0.6% of the runs,
so at 2·10^7 runs its eval-half log-ratio has a standard error of 0.028 against a true value of
0.0625, and the shrunk projections prefer frequent, weaker positions (round 6, section 5).

When the coordinates are independent (parallel compositions, noisy histograms), ``S`` is a
signed Poisson-binomial variable (Wang 1993, "On the number of successes in independent
trials", Statistica Sinica 3): its law is fixed by the per-coordinate frequencies ``p_j``, each
estimated from *every* eval-half run.  ``model_projections`` then

1. computes the law of ``S`` under each dataset exactly (convolution over coordinates,
   ``signed_count_pmf``);
2. checks the model on the counts it replaces: Pearson's χ² goodness of fit of the observed
   histogram of ``S`` against the model's, per dataset (``scipy.stats.chisquare``; bins merged to
   an expected count ≥ ``MIN_EXPECTED``; df = bins − 1).  If either test rejects at
   ``GOF_LEVEL`` (dependent coordinates: sparse-vector codes, prefix sums) there is no model
   and the empirical projections stand;
3. projects each position from the model's tail probabilities, shrunk as the empirical
   projection shrinks its frequencies: the more likely side's to its lower ``quantile`` and the
   other side's to its upper one (the selection's shrink level, 2% by default), over a
   parametric bootstrap of the ``p_j`` (binomial resampling, ``BOOTSTRAP`` draws, fixed seed).
   A well-estimated cut can still beat a stronger event that is estimated noisily: PrefixSum
   at 2·10^7, where the count of first differences displaced the logistic classifier at seed
   2024 (0.940 → 0.861). Over seeds 2024, 1, 2, 3 the bounds average 0.867 with the model and
   0.894 without it, two seeds going each way (round 7; docs/reference/auditor.md,
   History).

Only the *choice* of the event moves: the model sees selection runs only, and the chosen event is
certified on fresh runs by the same test as every other.  A wrong model costs power, never
soundness.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.stats import chi2, chisquare

GOF_LEVEL = 1e-3
MIN_EXPECTED = 5.0
BOOTSTRAP = 200


def signed_count_pmf(p: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int]:
    """The law of ``Σ_j w_j·B_j`` for independent ``B_j ~ Bernoulli(p_j)`` and ``w_j ∈ {−1, +1}``
    (rows of ``p`` are independent parameter sets: shape (..., m)).  Returns (pmf over the values
    ``lo, lo + 1, …, hi`` along the last axis, ``lo``), ``lo`` = −(number of w_j = −1)."""
    p = np.asarray(p, dtype=float)
    w = np.asarray(w)
    if not np.isin(w, (-1, 1)).all() or p.shape[-1:] != w.shape:
        raise ValueError("signed_count_pmf needs one sign (±1) per coordinate of p")
    lo = -int(np.count_nonzero(w < 0))
    size = len(w) + 1
    pmf = np.zeros(p.shape[:-1] + (size,))
    pmf[..., 0] = 1.0                      # index i ↔ value lo + i; start: every B_j at its low
    for j, wj in enumerate(w):
        # w_j = +1: B_j = 1 adds one; w_j = −1: B_j = 0 (value 0 ≥ −1) adds one over the start
        q = p[..., j:j + 1] if wj > 0 else 1.0 - p[..., j:j + 1]
        shifted = np.zeros_like(pmf)
        shifted[..., 1:] = pmf[..., :-1]
        pmf = (1.0 - q) * pmf + q * shifted
    return pmf, lo


def _merged_bins(observed: np.ndarray, expected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Adjacent bins merged left to right until each expects ≥ MIN_EXPECTED (the last partial
    bin joins its left neighbour)."""
    obs, exp = [], []
    o_acc = e_acc = 0.0
    for o, e in zip(observed, expected, strict=True):
        o_acc += o
        e_acc += e
        if e_acc >= MIN_EXPECTED:
            obs.append(o_acc)
            exp.append(e_acc)
            o_acc = e_acc = 0.0
    if obs:
        obs[-1] += o_acc
        exp[-1] += e_acc
    return np.asarray(obs), np.asarray(exp)


def fits(values: np.ndarray, pmf: np.ndarray, lo: int, level: float = GOF_LEVEL) -> bool:
    """Whether the observed integer ``values`` are consistent with ``pmf`` (over ``lo, lo + 1,
    …``) by Pearson's χ² test at ``level``
    ([`ltheory.privacy.auditing.count_model`][ltheory.privacy.auditing.count_model], step 2)."""
    idx = np.asarray(values, dtype=np.int64) - lo
    if idx.size == 0 or idx.min() < 0 or idx.max() >= len(pmf):
        return False
    observed = np.bincount(idx, minlength=len(pmf)).astype(float)
    obs, exp = _merged_bins(observed, pmf * idx.size)
    if len(obs) < 2:
        return True
    exp = exp * (obs.sum() / exp.sum())               # rounding of the pmf's total
    return bool(chisquare(obs, exp).pvalue >= level)


def model_projections(ind0: np.ndarray, ind1: np.ndarray, w: np.ndarray, grid: np.ndarray,
                      project: Callable[[np.ndarray, np.ndarray], np.ndarray],
                      quantile: float, seed: int = 0
                      ) -> dict[tuple[bool, int], np.ndarray] | None:
    """Projected bounds of the events ``{S ≥ t}`` / ``{S ≤ t}`` (t in ``grid``) under the
    independence model, or None when the model is rejected (see
    [`ltheory.privacy.auditing.count_model`][ltheory.privacy.auditing.count_model]).

    ``ind0``, ``ind1``: the eval half's indicators ``1[o_j above its median]`` (runs × m) under
    d0 and d1; ``w``: the signs (±1); ``project(ca, cb)``: the projected bound of an event with
    counts ``ca`` (its more likely side) and ``cb`` out of the eval half's runs per dataset,
    unshrunk.  Returns ``{(geq, direction): projections over grid}``, ``direction`` 0 for
    events more likely under d0 (``events.Candidate``)."""
    w = np.asarray(w, dtype=float)
    if len(w) < 2 or len(ind0) == 0 or len(ind1) == 0:
        return None
    n0, n1 = len(ind0), len(ind1)
    p0, p1 = ind0.mean(axis=0), ind1.mean(axis=0)
    for ind, p in ((ind0, p0), (ind1, p1)):
        pmf, lo = signed_count_pmf(p, w)
        if not fits(np.rint(ind @ w), pmf, lo):
            return None
    rng = np.random.default_rng(seed)
    b0 = rng.binomial(n0, p0, size=(BOOTSTRAP, len(w))) / n0
    b1 = rng.binomial(n1, p1, size=(BOOTSTRAP, len(w))) / n1
    g0, lo = signed_count_pmf(b0, w)
    g1, _ = signed_count_pmf(b1, w)
    values = lo + np.arange(g0.shape[-1])
    ge_idx = np.searchsorted(values, grid, side="left")
    le_idx = np.searchsorted(values, grid, side="right")

    def tails(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """P(S ≥ t) and P(S ≤ t) per bootstrap draw (rows) and grid point t."""
        pad = np.zeros((len(g), 1))
        ge = np.concatenate([np.cumsum(g[:, ::-1], axis=1)[:, ::-1], pad], axis=1)
        le = np.concatenate([pad, np.cumsum(g, axis=1)], axis=1)
        return ge[:, ge_idx], le[:, le_idx]

    (ge0, le0), (ge1, le1) = tails(g0), tails(g1)
    out: dict[tuple[bool, int], np.ndarray] = {}
    for geq, (t0, t1) in ((True, (ge0, ge1)), (False, (le0, le1))):
        _project_draws(out, geq, t0, t1, n0, n1, project, quantile)
    return out


def _project_draws(out: dict[tuple[bool, int], np.ndarray], geq: bool, t0: np.ndarray,
                   t1: np.ndarray, n0: int, n1: int,
                   project: Callable[[np.ndarray, np.ndarray], np.ndarray],
                   quantile: float) -> None:
    """``out[(geq, direction)]`` for both directions: the projection of the event's tail
    probabilities over the draws (rows of ``t0``, ``t1``; one column per cut), the favoured
    side's at its ``quantile`` and the other's at ``1 − quantile``."""
    for direction in (0, 1):
        ta, tb = (t0, t1) if direction == 0 else (t1, t0)
        na, nb = (n0, n1) if direction == 0 else (n1, n0)
        ka = np.quantile(ta, quantile, axis=0, method="lower") * na
        kb = np.quantile(tb, 1.0 - quantile, axis=0, method="higher") * nb
        proj = np.asarray(project(ka, kb), dtype=float)
        out[(geq, direction)] = np.where(np.isnan(proj), -np.inf, proj)


# --------------------------------------------------------------------------- log-linear cells
#: the most cells beside a cut's own (on the side away from its tail) that its log-linear
#: line is fitted on (``tilt_projections``: the widest window whose cells fit the line, within
#: the tail's half of the runs).  The count of SVT6's bits on its half-half h=6 pair, 30
#: simulated eval halves from the exact law, the best cut of the count family chosen at 98%
#: bounds, mean share of the family's best cut: own counts 0.75 / 0.83 (5·10^4 / 5·10^5 eval
#: runs per dataset), at most 2 cells beside 0.89 / 0.89, 3 cells 0.97 / 0.95, 4 or 6 cells
#: 0.97 / 0.997 (the half of the runs stops them)
TILT_BESIDE = 4
#: the most distinct integer values a count may take for ``tilt_projections``
TILT_MAX_LEVELS = 129


def tilt_projections(v0: np.ndarray, v1: np.ndarray, grid: np.ndarray,
                     project: Callable[[np.ndarray, np.ndarray], np.ndarray],
                     quantile: float, seed: int = 0
                     ) -> dict[tuple[bool, int], np.ndarray] | None:
    """Projected bounds of the events ``{S ≥ t}`` / ``{S ≤ t}`` (t in ``grid``) of an integer
    count ``S`` whose coordinates are *not* independent, from a log-linear model of its cells'
    log-ratios near each cut; None when ``S`` is not a small-range integer count.

    When the independence model fails (a sparse vector's ⊤/⊥ bits share one threshold noise),
    the count's cells still carry a smooth log-ratio ``λ(k) = ln(P0(S = k)/P1(S = k))``: SVT6's
    is nearly linear in ``k`` in each tail (steps of 0.08-0.09 per cell at ε = 0.1), and flatter
    in the middle.  The best cut of such a count is its deepest cell (SVT6's half-half h=6 pair:
    ``S`` at its maximum, 4·10^-4 of the runs, certifies 0.35 with 9·10^6 runs per dataset where
    the next cut certifies 0.30), whose own eval-half counts (~200 runs at 2·10^7 in all) put
    its log-ratio's standard error near 0.1, so their 98% bounds choose the shallower cut.  Here
    a cut's event cells and up to ``TILT_BESIDE`` cells beside them, all within the tail's half
    of the pooled runs, are fitted with one line ``λ(k) = a + b·k`` (weighted least squares on
    ``ln((c0 + ½)/(c1 + ½))``, delta-method weights; the widest such window whose residuals pass
    Pearson's χ² at ``GOF_LEVEL``, df = cells − 2), and each event cell's observed pooled count
    ``m`` is split as the line says (``c0 = m·e^λ/(1 + e^λ)``): the deep cells borrow their
    log-ratio from the frequent ones beside them.  A cut with no such window (fewer than three
    cells, or a line across the bend) keeps its own counts.  The projection is that of the
    event's tail probabilities at the ``quantile`` / ``1 − quantile`` of a Poisson bootstrap of
    the cells (``BOOTSTRAP`` draws; each draw refits the line, the pooled counts stay as
    observed), as ``model_projections`` shrinks its own.

    ``v0``, ``v1``: the eval half's values of ``S`` under d0 and d1; ``project(ca, cb)``: the
    projected bound of counts ``ca`` (the more likely side) and ``cb`` out of the eval half's
    runs per dataset, unshrunk.  Returns ``{(geq, direction): projections over grid}``,
    ``direction`` 0 for events more likely under d0, as ``model_projections`` does."""
    v0, v1 = np.asarray(v0, dtype=float), np.asarray(v1, dtype=float)
    v0, v1 = v0[~np.isnan(v0)], v1[~np.isnan(v1)]
    if not len(v0) or not len(v1):
        return None
    levels = np.unique(np.concatenate([v0, v1]))
    if not 3 <= len(levels) <= TILT_MAX_LEVELS or np.any(levels != np.rint(levels)):
        return None
    n0, n1 = len(v0), len(v1)
    c0 = np.bincount(np.searchsorted(levels, v0), minlength=len(levels)).astype(float)
    c1 = np.bincount(np.searchsorted(levels, v1), minlength=len(levels)).astype(float)
    rng = np.random.default_rng(seed)
    # draw 0 is the data itself (for the goodness of fit), the others a Poisson bootstrap
    d0 = np.vstack([c0, rng.poisson(c0, size=(BOOTSTRAP, len(levels)))])
    d1 = np.vstack([c1, rng.poisson(c1, size=(BOOTSTRAP, len(levels)))])
    y = np.log((d0 + 0.5) / (d1 + 0.5))
    w = 1.0 / (1.0 / (d0 + 0.5) + 1.0 / (d1 + 0.5))
    x = levels - levels.mean()
    # the cells a line may be fitted on for each tail: those in its half of the pooled runs
    pooled = c0 + c1
    upper = np.cumsum(pooled[::-1])[::-1] <= 0.5 * pooled.sum()
    lower = np.cumsum(pooled) <= 0.5 * pooled.sum()
    out: dict[tuple[bool, int], np.ndarray] = {}
    for geq in (True, False):
        t0 = np.zeros((BOOTSTRAP + 1, len(grid)))
        t1 = np.zeros_like(t0)
        for g, t in enumerate(grid):
            inside = levels >= t if geq else levels <= t
            if not inside.any():
                continue
            first = int(np.argmax(inside)) if geq else int(np.nonzero(inside)[0][-1])
            a0, a1 = d0[:, inside], d1[:, inside]
            for beside in range(TILT_BESIDE, 0, -1):       # the widest window that fits
                fit = inside.copy()
                lo, hi = (first - beside, first) if geq else (first + 1, first + 1 + beside)
                fit[max(lo, 0):max(hi, 0)] = True
                fit &= inside | (upper if geq else lower)
                if fit.sum() < 3 or fit.sum() == inside.sum():
                    continue
                r = y[0, fit] - _line(x[fit], y[:1, fit], w[:1, fit], x[fit])[0]
                if chi2.sf(float(np.sum(w[0, fit] * r * r)), int(fit.sum()) - 2) >= GOF_LEVEL:
                    lam = _line(x[fit], y[:, fit], w[:, fit], x[inside])
                    m = d0[0, inside] + d1[0, inside]     # the observed pooled counts
                    a0, a1 = m / (1.0 + np.exp(-lam)), m / (1.0 + np.exp(lam))
                    break
            t0[:, g], t1[:, g] = a0.sum(axis=1) / n0, a1.sum(axis=1) / n1
        _project_draws(out, geq, t0[1:], t1[1:], n0, n1, project, quantile)
    return out


def _line(x: np.ndarray, y: np.ndarray, w: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Weighted least-squares lines ``y ≈ a + b·x``, one per row of ``y`` (weights ``w``, same
    shape), evaluated at ``at``: the closed-form 2×2 normal equations, vectorised over the
    bootstrap's rows (a per-row solver call would cost 200 calls per cut)."""
    sw, sx, sy = w.sum(axis=1), (w * x).sum(axis=1), (w * y).sum(axis=1)
    sxx, sxy = (w * x * x).sum(axis=1), (w * x * y).sum(axis=1)
    det = sw * sxx - sx * sx
    b = np.divide(sw * sxy - sx * sy, det, out=np.zeros_like(det), where=det > 0)
    a = (sy - b * sx) / sw
    return a[:, None] + b[:, None] * at[None, :]
