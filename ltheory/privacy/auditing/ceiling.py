"""The most any event can certify: an upper bound on the audit's certified ε for a pair whose
output distribution is known, at a given number of certification runs per dataset.

Both certification tests of ``audit`` — two one-sided Clopper–Pearson bounds at α/2 each, and the
Poisson-conditional test at α (``stats.poisson_epsilon_lower_bound``) — give a bound g(x, y)
that increases with the event's probability x on the larger side and decreases with its
probability y on the other.  By the Neyman–Pearson lemma every event E, randomised or not, has
y(E) ≥ F(x(E)), where F is the frontier: the cumulative probabilities of the output cells sorted
by likelihood ratio, linearly interpolated.  So max_E g(x(E), y(E)) ≤ max_x g(x, F(x)), and on an
interval [u, v], g(x, F(x)) ≤ g(v, F(u)).  ``certification_ceiling`` bounds the right-hand side by
branch and bound on a geometric grid (F is concave with F(0) = 0, so F(x)/x does not increase and
both coordinates grow by a bounded factor per grid step), at the *expected* counts n·x, n·y.

Where the ceiling is below a target, no event of that pair reaches the target at that budget
(at expected counts): a proof that the target is out of reach, not a statement about one event
family.  Used by ``benchmarks/bench_dpsniper_ceilings.py``.
"""

from __future__ import annotations

import math

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.projection import projected_bound

GRID = 4_000


def certified_at_expectation(pa: np.ndarray, pb: np.ndarray, n: float,
                             alpha: float = 0.05, delta: float = 0.0) -> np.ndarray:
    """The better of the two certification tests for events of probabilities (pa, pb) with the
    counts at their expectations n·pa, n·pb (n runs per dataset): ``projection.projected_bound``
    with ``test="auto"``."""
    return projected_bound(pa, pb, n, alpha, delta, "auto")


def certification_ceiling(p0: np.ndarray, p1: np.ndarray, n: float, alpha: float = 0.05,
                          tol: float = 2e-5) -> float:
    """An upper bound, within ``tol`` of the maximum, on the bound any event (either direction)
    certifies with ``n`` runs per dataset at expected counts, for output-cell probabilities ``p0``,
    ``p1`` (a partition of the output space;
    [`ltheory.privacy.auditing.ceiling`][ltheory.privacy.auditing.ceiling])."""
    p0, p1 = np.asarray(p0, dtype=float), np.asarray(p1, dtype=float)
    if p0.shape != p1.shape or p0.ndim != 1 or np.any(p0 < 0) or np.any(p1 < 0) \
            or not (n > 0) or not (0 < alpha < 1):
        raise InvalidInputError("certification_ceiling needs two probability vectors of the same "
                                "length, n > 0 runs per dataset and alpha in (0, 1)")
    best = -math.inf
    for a, b in ((p0, p1), (p1, p0)):
        keep = a > 0                      # cells impossible on the larger side never help
        a, b = a[keep], b[keep]
        if a.size == 0:
            continue
        with np.errstate(divide="ignore"):
            llr = np.log(a) - np.log(b)
        o = np.argsort(-llr, kind="stable")
        x = np.r_[0.0, np.cumsum(a[o])]
        y = np.r_[0.0, np.cumsum(b[o])]
        xs = np.geomspace(min(1e-3 / n, x[-1]), x[-1], GRID)
        if x.size <= GRID:                # the frontier's kinks as grid points: a tighter start
            xs = np.union1d(xs, x)        # (any grid gives a rigorous bound; refinement does
        #                                   the rest, 2-3x faster on 10^4+ cells)
        lo_x, hi_x = xs[:-1], xs[1:]
        seen = -math.inf
        for _ in range(60):
            up = certified_at_expectation(hi_x, np.interp(lo_x, x, y), n, alpha)
            pts = np.r_[lo_x, hi_x[-1:]]
            val = certified_at_expectation(pts, np.interp(pts, x, y), n, alpha)
            seen = max(seen, float(np.max(np.where(np.isfinite(val), val, -np.inf))))
            open_ = np.isfinite(up) & (up > seen + tol)
            if not open_.any():
                break
            lo_o, hi_o = lo_x[open_], hi_x[open_]
            pts2 = lo_o[:, None] + (hi_o - lo_o)[:, None] * np.linspace(0, 1, 17)
            lo_x, hi_x = pts2[:, :-1].ravel(), pts2[:, 1:].ravel()
        else:  # pragma: no cover - 60 rounds of 16-fold refinement always converge
            raise RuntimeError("certification_ceiling did not converge")
        best = max(best, seen + tol)
    return best
