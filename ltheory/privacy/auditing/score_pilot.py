"""Score pilots: pairs whose outputs are vectors of few-valued coordinates with too many joint
values to count (a RAPPOR report of 20 bits: 2^20 outputs), ranked through a per-coordinate
likelihood-ratio score fitted on half of the pilot runs and binned on the other half.

Before issue 42 such pairs were ranked by pilot audits, whose events are chosen on half of a
short pilot: on SVT6 (ten ⊤/⊥ codes, 1,024 outputs) at 2·10^6 runs they chose pairs of mean
whole-budget ceiling 0.194 over 30 seeds (best 0.298), and took ~2 s per search.  When the
coordinates are independent given the dataset (a product measure: RAPPOR's bits, a histogram's
noisy counts), the output's log-likelihood ratio is the sum over coordinates of each
coordinate's log-ratio ``w_j(x_j)``: a score ``Σ_j w_j(x_j)`` with the ``w_j`` estimated from
the coordinates' marginal frequencies is then (nearly) the Neyman–Pearson statistic, and its
quantile bins keep almost all of what the pair leaks.  When
they are not independent, the score is still a function of the output, so its bins are a
coarsening and their projection a lower estimate of the leak (as for the pattern and block
pilots).

The weights are fitted on one half of the pair's pilot runs and the score binned on the other
(and the halves swapped; the pair is ranked by the mean of the two projections): a score fitted
and evaluated on the same runs would be inflated by its fit, most for the pairs that leak
least.  Each projection is that of ``pilot_ranking`` (shrunk counts).  As with every pilot, the
final audit's runs are independent of these, so the rule only chooses the pair.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ltheory.privacy.auditing.pilots import (
    PilotContext,
    bin_counts,
    draw_rows,
    lr_prefix_projection,
    plugin_ranked,
)

__all__ = ["ScorePilot", "coordinate_weights", "coordinate_scores", "crossfit_projection"]


def coordinate_weights(x0: np.ndarray, x1: np.ndarray
                       ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per coordinate j: its distinct values and their smoothed (add-½) log-ratios
    ``log P̂_0(x_j = v) − log P̂_1(x_j = v)`` from the rows ``x0`` (first dataset) and ``x1``."""
    values, weights = [], []
    for j in range(x0.shape[1]):
        v = np.unique(np.concatenate([x0[:, j], x1[:, j]]))
        c0 = np.array([(x0[:, j] == u).sum() for u in v], dtype=float)
        c1 = np.array([(x1[:, j] == u).sum() for u in v], dtype=float)
        f0 = (c0 + 0.5) / (len(x0) + 0.5 * len(v))
        f1 = (c1 + 0.5) / (len(x1) + 0.5 * len(v))
        values.append(v)
        weights.append(np.log(f0) - np.log(f1))
    return values, weights


def coordinate_scores(x: np.ndarray, values: list[np.ndarray],
                      weights: list[np.ndarray]) -> np.ndarray:
    """``Σ_j w_j(x_j)`` for each row of ``x`` (a value not seen in the fit scores 0)."""
    s = np.zeros(len(x))
    for j, (v, w) in enumerate(zip(values, weights, strict=True)):
        idx = np.searchsorted(v, x[:, j])
        idx = np.clip(idx, 0, len(v) - 1)
        s += np.where(v[idx] == x[:, j], w[idx], 0.0)
    return s


def crossfit_projection(x0: np.ndarray, x1: np.ndarray, ctx: PilotContext) -> float:
    """The mean over the two halves (even and odd runs) of the projection of quantile bins of
    the score fitted on the other half (``lr_prefix_projection`` with ``ctx.shrink``)."""
    halves = [(x0[i::2], x1[i::2]) for i in (0, 1)]
    out = []
    for (f0, f1), (e0, e1) in ((halves[0], halves[1]), (halves[1], halves[0])):
        values, weights = coordinate_weights(f0, f1)
        c, nn = bin_counts((coordinate_scores(e0, values, weights),
                            coordinate_scores(e1, values, weights)))
        out.append(lr_prefix_projection(c, nn, ctx.n_final, ctx.alpha, ctx.test, ctx.delta,
                                        ctx.shrink))
    return float(np.mean(out))


class ScorePilot:
    """Plug-in pilot on a fitted per-coordinate likelihood-ratio score (see
    [`ltheory.privacy.auditing.score_pilot`][ltheory.privacy.auditing.score_pilot]): each pilot
    adds its runs to the pair's earlier ones (``d["_rows"]``, as float32: the pilot keeps every
    run, 2·10^7-run searches of RAPPOR's two pairs hold ~0.2 GB) and ranks the pair by the
    cross-fitted projection of the score's quantile bins."""

    note = ("score pilots: pairs ranked by quantile bins of a per-coordinate likelihood-ratio "
            "score, fitted on half of each pair's pilot runs and binned on the other half")
    fallback_note = "outputs that are not numeric vectors of one shape"

    def run(self, d: dict, runs: int, seed: int, ctx: PilotContext) -> dict | None:
        a, b = d["_pair"]
        rows = draw_rows(ctx.target, a, b, runs // 2, np.random.SeedSequence(seed),
                         ctx.executor)
        if rows is None or len(rows[0]) < 2:
            return None
        rows = tuple(r.astype(np.float32) for r in rows)    # few-valued: half the memory
        old: Any = d.get("_rows")
        d["_rows"] = rows if old is None else tuple(
            np.concatenate([o, r]) for o, r in zip(old, rows, strict=True))
        if "exact_epsilon" not in d:
            d["exact_epsilon"] = ctx.exact_epsilon(a, b)
        projected = crossfit_projection(*d["_rows"], ctx)
        return plugin_ranked(d, 2 * len(d["_rows"][0]), projected,
                             "plug-in (quantile bins of a cross-fitted per-coordinate "
                             "likelihood-ratio score)")

    def rescore(self, d: dict, ctx: PilotContext) -> None:
        return None
