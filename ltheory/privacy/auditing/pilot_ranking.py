"""How a plug-in pilot scores a pair: the bound its best likelihood-ratio prefix of output cells
would certify with the final runs, from the pilot's counts *shrunk* to their confidence bounds.

A plug-in pilot counts each output cell (or quantile bin) on both datasets of a pair and projects
the best likelihood-ratio prefix of the cells to the final audit's runs.  Taken at face value
(the smoothed frequencies), that projection is optimistic, and most for the pairs that leak
least: the cells are ordered by their *noisy* ratios and the best prefix is the maximum over
many of them, so a rare cell whose ratio is inflated by chance (30 against 20 runs) is projected
to the final runs as if its ratio were exact.  Issue 42: on ReportNoisyMax3 at 2·10^6 runs,
15,000 pilot runs per dataset projected 0.23 for a pair whose certification ceiling is 0.036,
above the 0.18 projected for a pair of ceiling 0.236, and the final audit of the weak pair
certified 0.009.

`shrunk_lr_prefix` scores each prefix as the pilot audits (``pilots.pilot_audit_projection``)
and event selection (``events.SHRINK``) already do, at a milder level (``PILOT_SHRINK``): the
prefix's count on the side where it is more likely is replaced by its Clopper–Pearson lower
bound, the other side's by its upper bound, each at ``shrink``, and those frequencies are
projected to the final runs.  A prefix scores high only when the pilot has *shown* its ratio,
so noise-driven prefixes of weak pairs fall towards 0 while a real leak keeps most of its
projection.  The cells are still ordered by their smoothed
(add-½) ratios, and the prefix and direction are still chosen by the maximum: only the score of
each candidate is shrunk.  The rule changes which pair the pilots choose, never what the final
audit certifies (its runs are independent of the pilots').
"""

from __future__ import annotations

import numpy as np

from ltheory.privacy.auditing.projection import lr_order, projected_bound, shrunk

__all__ = ["PILOT_SHRINK", "shrunk_lr_prefix"]

#: One-sided level of the Clopper–Pearson bounds that the plug-in pilots' counts are shrunk to
#: (``SearchConfig.pilot_shrink``): 0.16, about one standard error each side.  Chosen over 30
#: simulated searches per row at 2·10^6 runs (the chosen pair scored by its whole-budget
#: ceiling): unshrunk, ReportNoisyMax3 chose a pair of the largest ceiling on 27 of 30; at 0.16
#: on 29, at 0.02 on 30.  But 0.02 (the level of event selection's shrinkage) also discounts real
#: leaks that sit in rare outputs: SVT4's mean chosen ceiling fell 0.139 -> 0.129 and
#: ReportNoisyMax4's 1.238 -> 1.174, where 0.16 left both unchanged (0.140, 1.238)
#: (docs/reference/auditor.md, "Pair choice under pilot noise").
PILOT_SHRINK = 0.16


def shrunk_lr_prefix(c: np.ndarray, nn: np.ndarray, n_final: float, level: float,
                     shrink: float, delta: float = 0.0, test: str = "binomial") -> float:
    """The best bound a likelihood-ratio prefix of the cells would certify with ``n_final`` runs
    per dataset, each prefix scored at its shrunk pilot frequencies.

    Args:
        c: Counts per cell (cells × 2: under the first and the second dataset).
        nn: The runs behind each column (2,).
        n_final: Runs per dataset the final audit certifies with.
        level: The final certification's level (α for one event).
        shrink: One-sided level of the Clopper–Pearson bounds the counts are shrunk to (the
            larger side's count to its lower bound, the other's to its upper bound).
        delta: The claimed δ.
        test: The certification test (``projection.TESTS``).

    Returns:
        The largest projected bound over both directions and every prefix of the cells in
        decreasing order of their smoothed (add-½) likelihood ratio; ``-inf`` when no prefix
        certifies anything.
    """
    c = np.asarray(c, dtype=float)
    nn = np.asarray(nn, dtype=float)
    p = (c + 0.5) / (nn + 0.5 * len(c))
    best = -np.inf
    for a, b in ((0, 1), (1, 0)):
        order = lr_order(p[:, a], p[:, b])
        if order.size == 0:
            continue
        pa, pb = shrunk(np.cumsum(c[order, a]), np.cumsum(c[order, b]), nn[a], nn[b], shrink)
        v = projected_bound(pa, pb, n_final, level, delta, test)
        v = np.where(np.isnan(v), -np.inf, v)
        best = max(best, float(v.max()))
    return best
