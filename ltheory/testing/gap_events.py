"""The event the betting test bets on at a claim point (ε, δ) with δ > 0: the one whose
expected log-growth of the wealth is largest, estimated on past runs.

Why not the auditor's choice.  ``ltheory.privacy.auditing.events.select_events`` ranks events by
the ε they are projected to *certify* at the claimed δ: it trades the likelihood ratio
P_a(E)/P_b(E) against the event's probability, which is right for a fixed-sample bound on ε.
The betting test of ``ltheory.testing.sequential`` does not certify a ratio: each pair of runs
multiplies its wealth by ``1 + c·Z/(u + δ)`` with ``Z = X − u·Y − δ`` (u = e^ε), so its expected
log-growth per pair, about ``gap² / (2·Var Z)`` with the *δ-gap*
``gap(E) = P_a(E) − e^ε·P_b(E) − δ``, is what decides how soon it rejects (Shafer 2021,
"Testing by betting", JRSS-A 184(2), Section 4; Kelly 1956).  When δ > 0 the two criteria
disagree: on the Gaussian mechanism with half the analytic-Gaussian σ for (1, 10^-5) (Balle &
Wang 2018), the ratio criterion picked, from a few thousand runs, events like {x ≤ −1.96} whose
selection ratio 3.0 looked above e but whose true δ-gap is *negative* (−0.006): the wealth
fell, and 3 of 20 seeds were caught within the default budget.  The event of largest growth is
a tail {x ≤ −3.6} (P_a = 0.027, P_b = 0.0069, gap 0.0083, growth 4.0·10^-4 per pair: ~40,000
pairs to reach 10^6·9).

Rule (all on runs drawn *before* the batch the event is used on, so the event is predictable and
the test stays valid whatever is chosen):

* families: thresholds ``{s(o) ≥ t}``, ``{s(o) ≤ t}`` (cuts at quantiles, at the extreme order
  statistics and across the gap before an isolated far cluster: ``events.threshold_grid``,
  ``events.isolated_cuts``) of the output (scalar outputs, scored on
  all the past runs: a threshold fits nothing but its cut) or of each coordinate (and of each
  coordinate's released values, ``events.released_scores``), of a linear
  discriminant and of the auditor's structure scores (``features.structure_scores``: naive
  Bayes, sign counts, logistic regression) for vector outputs (cuts and weights from one half
  of the runs, scored on the other), and likelihood-ratio prefixes of the auditor's cells
  (``events.make_encoder``; cells ordered on one half, prefixes scored on the other) and of the
  atoms of a continuous output (``events.AtomEncoder``: values seen twice);
* each event, in both directions, is scored by the expected log-growth of the betting test's
  best fraction (``sequential.FRACTIONS``) at frequencies shrunk against the winner's curse to
  their Wilson score bounds at ``Z`` = 1 standard error (P_a down, P_b up); the largest
  wins.  A score of 0 (no event beats the claim) means "bet nothing on the next batch".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ltheory.privacy.auditing.events import (
    Candidate,
    CellEvent,
    Score,
    ThresholdEvent,
    ValueEncoder,
    cut_counts,
    lr_prefixes,
    make_atom_encoder,
    make_encoder,
    released_scores,
    threshold_cuts,
)
from ltheory.privacy.auditing.features import structure_scores
from ltheory.privacy.auditing.floating import bit_encoders
from ltheory.privacy.auditing.outputs import Batch, batch_kind
from ltheory.testing.sequential import FRACTIONS

__all__ = ["Z", "growth_rate", "select_gap_event", "select_gap_events", "wilson"]

#: Standard errors the frequencies are shrunk by (Wilson score bounds: P_a down, P_b up).
Z = 1.0
MIN_HALF = 200


def growth_rate(pa: Any, pb: Any, epsilon: float, delta: float,
                fractions: tuple[float, ...] = FRACTIONS) -> np.ndarray:
    """The largest expected log-growth per pair, over the betting fractions c, of the wealth
    factor ``1 + c·Z/(u + δ)``, ``Z = X − u·Y − δ``, X ~ Bernoulli(pa), Y ~ Bernoulli(pb)
    independent, u = e^ε; 0 where no fraction grows (the event does not beat the claim).

    Examples:
        >>> round(float(growth_rate(0.5, 0.0, 1.0, 0.0)), 4)     # half the runs, never under d_b
        0.1499
        >>> float(growth_rate(0.3, 0.2, 1.0, 0.0))               # 0.3 < e·0.2: no growth
        0.0
    """
    pa = np.clip(np.asarray(pa, dtype=float), 0.0, 1.0)[..., None]
    pb = np.clip(np.asarray(pb, dtype=float), 0.0, 1.0)[..., None]
    u = math.exp(epsilon)
    c = np.asarray(fractions, dtype=float)
    g = np.zeros(np.broadcast_shapes(pa.shape, pb.shape, c.shape))
    for x in (0, 1):
        for y in (0, 1):
            p = (pa if x else 1 - pa) * (pb if y else 1 - pb)
            g = g + p * np.log1p(c * (x - u * y - delta) / (u + delta))
    return np.maximum(g.max(axis=-1), 0.0)


def wilson(k: Any, n: int, z: float = Z) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval (Wilson 1927, JASA 22(158)) of k successes in n trials at
    ``z`` standard errors: (lower, upper).

    Examples:
        >>> lo, hi = wilson(0, 100)
        >>> float(lo), round(float(hi), 4)
        (0.0, 0.0099)
    """
    k = np.asarray(k, dtype=float)
    z2 = z * z
    centre = (k + z2 / 2) / (n + z2)
    half = z / (n + z2) * np.sqrt(np.maximum(k * (n - k) / max(n, 1), 0.0) + z2 / 4)
    return np.maximum(centre - half, 0.0), np.minimum(centre + half, 1.0)


def _score(ca: np.ndarray, cb: np.ndarray, n: int, epsilon: float, delta: float
           ) -> np.ndarray:
    pa, pb = wilson(ca, n)[0], wilson(cb, n)[1]
    # growth is 0 where the shrunk gap pa − e^ε pb − δ is ≤ 0 (Jensen: E log(1 + cZ/(u + δ))
    # ≤ log(1 + c·E[Z]/(u + δ)) ≤ 0), so only the events above the claim are scored
    out = np.zeros(np.shape(pa))
    pos = pa - math.exp(epsilon) * pb - delta > 0
    if np.any(pos):
        out[pos] = growth_rate(pa[pos], pb[pos], epsilon, delta)
    return out


Points = list[tuple[float, float]]


def _thresholds(score: Score, fit: tuple[Batch, Batch], ev: tuple[Batch, Batch],
                points: Points) -> list[list[Candidate]]:
    """Per point, the best threshold of ``score`` in each of the 4 (side, direction) blocks."""
    # quantiles, the extreme order statistics and the cuts that isolate a far cluster
    pooled = np.concatenate([score(fit[0]), score(fit[1])])
    grid = threshold_cuts(pooled[~np.isnan(pooled)])[0]
    v0, v1 = np.sort(score(ev[0])), np.sort(score(ev[1]))
    n = len(v0)
    (ge0, le0), (ge1, le1) = cut_counts(v0, grid), cut_counts(v1, grid)  # NaN: in no event
    ge, le = (ge0, ge1), (le0, le1)
    out: list[list[Candidate]] = [[] for _ in points]
    for geq, (k0, k1) in ((True, ge), (False, le)):
        for direction in (0, 1):
            ca, cb = (k0, k1) if direction == 0 else (k1, k0)
            for j, (eps, delta) in enumerate(points):
                s = _score(ca, cb, n, eps, delta)
                i = int(np.argmax(s))
                out[j].append(Candidate(ThresholdEvent(score, float(grid[i]), geq), direction,
                                        float(s[i]), (int(k0[i]), int(k1[i])), n, "gap"))
    return out


def _cells(fit: tuple[Batch, Batch], ev: tuple[Batch, Batch], points: Points,
           enc: Any = None) -> list[list[Candidate]]:
    """Per point, the best likelihood-ratio prefix of the cells (of ``enc``; default the
    auditor's ``make_encoder`` and the atoms of a continuous output) in each direction."""
    out: list[list[Candidate]] = [[] for _ in points]
    encoders: list[Any] = [enc if enc is not None else make_encoder(*fit)]
    if enc is None and not isinstance(encoders[0], ValueEncoder) and \
            batch_kind(fit[0]) != "object":
        atoms = make_atom_encoder(*fit)      # point masses of a continuous output
        if atoms is not None:
            encoders.append(atoms)
    for enc in encoders:
        prefixes = lr_prefixes(enc, fit, ev)
        if prefixes is None:
            continue
        c0, c1, n, orders = prefixes
        for direction, order, pa, pb in orders:
            for j, (eps, delta) in enumerate(points):
                s = _score(pa, pb, n, eps, delta)
                i = int(np.argmax(s))
                cells = np.sort(order[: i + 1])
                out[j].append(Candidate(CellEvent(enc, cells), direction, float(s[i]),
                                        (int(c0[cells].sum()), int(c1[cells].sum())), n,
                                        "gap"))
    return out


def select_gap_events(s0: Batch, s1: Batch, points: Points, arithmetic: str = "float"
                      ) -> list[Candidate]:
    """For each claim point (ε_j, δ_j), the candidate event of largest shrunk growth rate
    (see [`ltheory.testing.gap_events`][ltheory.testing.gap_events]), from past runs ``s0`` (on d0)
    and ``s1`` (on d1); the families and their counts are built once for all points.
    ``Candidate.projected`` holds the growth rate per pair (0: bet nothing), ``test`` is ``"gap"``.
    ``arithmetic="float"`` adds the bit families of float outputs
    (``ltheory.privacy.auditing.floating``)."""
    kind = batch_kind(s0)
    if len(s0) >= 2 * MIN_HALF and len(s1) >= 2 * MIN_HALF:
        h0, h1 = len(s0) // 2, len(s1) // 2
        fit, ev = (s0[:h0], s1[:h1]), (s0[h0:], s1[h1:])
    else:
        fit = ev = (s0, s1)
    blocks: list[list[list[Candidate]]] = []
    if kind == "scalar":
        blocks.append(_thresholds(Score(), (s0, s1), (s0, s1), points))
    elif kind == "vector":
        x0, x1 = np.asarray(fit[0], dtype=float), np.asarray(fit[1], dtype=float)
        scores = [Score(col=j) for j in range(x0.shape[1])
                  if np.ptp(x0[:, j]) > 0 or np.ptp(x1[:, j]) > 0]
        scores += released_scores(x0, x1)
        var = 0.5 * (x0.var(axis=0) + x1.var(axis=0))
        w = np.where(var > 0, (x0.mean(axis=0) - x1.mean(axis=0)) / np.where(var > 0, var, 1),
                     0.0)
        if np.count_nonzero(w) > 1:
            scores.append(Score(w=w))
        if x0.shape[1] > 1:
            scores += structure_scores(x0, x1)[0]
        blocks += [_thresholds(sc, fit, ev, points) for sc in scores]
    blocks.append(_cells(fit, ev, points))
    blocks += [_cells(fit, ev, points, enc) for enc in bit_encoders(fit, kind, arithmetic)]
    return [max((c for b in blocks for c in b[j]), key=lambda c: c.projected)
            for j in range(len(points))]


def select_gap_event(s0: Batch, s1: Batch, epsilon: float, delta: float,
                     arithmetic: str = "float") -> Candidate:
    """`select_gap_events` for the one point (ε, δ)."""
    return select_gap_events(s0, s1, [(epsilon, delta)], arithmetic)[0]
