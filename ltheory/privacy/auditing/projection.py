"""The certified bound of an event, and its projection to a planned number of runs.

An audit certifies ``ε_lb`` for an event E and a direction (the dataset under which E is more
likely, "side a", against the other, "side b") from the counts of E in fresh certification runs.
Two tests are used (``audit(config=AuditConfig(certify=...))``):

* ``"binomial"`` — two one-sided Clopper–Pearson bounds, ``p_a,lower`` and ``p_b,upper``, at
  ``level / 2`` each, and ``ε_lb = ln((p_a,lower − δ) / p_b,upper)`` (Ding et al. 2018, StatDP;
  Jagielski, Ullman & Oprea 2020 for the δ term);
* ``"poisson"`` — with Poisson numbers of runs on each dataset the counts are independent Poisson
  variables, and given their sum the count on side a is binomial with success probability
  ``p_a / (p_a + p_b)``: one Clopper–Pearson bound at ``level`` bounds the ratio
  (``stats.poisson_epsilon_lower_bound``; needs δ = 0).

``level`` is always the event's whole share of the audit's α (α / k when k events are
certified, Bonferroni).  ``"auto"`` is the larger of the two, for *projections* only: it is what
the better test would give, and is used to choose the test before certification.

A *projection* evaluates the same bound at the expected counts ``n·p_a``, ``n·p_b`` of ``n``
runs per dataset, from probabilities that are either exact, smoothed plug-in frequencies, or
selection frequencies shrunk to a Clopper–Pearson bound (`shrunk`).  Every place that
ranks events or pairs — event selection, the pair-search pilots, the exact-event certification
of the worst-case search and the certification ceiling — calls `projected_bound` (or
`best_lr_prefix` over likelihood-ratio prefixes of output cells), so they all rank on the
number the final audit will compute, δ included.

Examples:
    >>> import numpy as np
    >>> float(projected_bound(0.5, 0.25, 10_000, 0.05).round(3))      # ln 2 = 0.693 less the CI
    0.639
    >>> best = best_lr_prefix(np.array([0.7, 0.2, 0.1]), np.array([0.1, 0.2, 0.7]), 10_000, 0.05)
    >>> best.direction, best.cells.tolist()
    (0, [0])
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ltheory.privacy.stats import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
    poisson_epsilon_lower_bound,
)

__all__ = ["TESTS", "LRPrefix", "best_lr_prefix", "certified_bound", "certified_interval",
           "hockey_stick_lower", "lr_order", "projected_bound", "projected_interval", "shrunk",
           "shrunk_projection"]

#: The certification tests (``"auto"`` only in projections: the better of the two).
TESTS = ("binomial", "poisson", "auto")


def certified_bound(ka: np.ndarray | float, na: np.ndarray | float,
                    kb: np.ndarray | float, nb: np.ndarray | float, level: float,
                    delta: float = 0.0, test: str = "binomial") -> np.ndarray:
    """The bound certified from ``ka`` of ``na`` runs in the event on side a and ``kb`` of
    ``nb`` on side b, at the event's level (see
    [`ltheory.privacy.auditing.projection`][ltheory.privacy.auditing.projection]); −inf where
    nothing is certified.  With δ > 0 the Poisson test does not apply and ``"auto"`` is binomial."""
    binom = epsilon_lower_bound(ka, na, kb, nb, level / 2, delta)
    if test == "binomial" or delta > 0:
        if test == "poisson":
            raise ValueError("the Poisson certification test needs delta = 0")
        return binom
    pois = poisson_epsilon_lower_bound(ka, kb, level)
    return pois if test == "poisson" else np.maximum(binom, pois)


def certified_interval(ka: np.ndarray | float, na: np.ndarray | float,
                       kb: np.ndarray | float, nb: np.ndarray | float,
                       a_each: float) -> tuple[np.ndarray, np.ndarray]:
    """``(p_a,lower, p_b,upper)``: the one-sided Clopper–Pearson bounds, each at ``a_each``,
    behind the binomial test of `certified_bound` (which is
    ``ln((p_a,lower − δ)/p_b,upper)`` at ``a_each = level / 2``).  With both in force,
    `hockey_stick_lower` bounds the hockey-stick divergence at every ε at once."""
    return clopper_pearson_lower(ka, na, a_each), clopper_pearson_upper(kb, nb, a_each)


def projected_interval(pa: np.ndarray | float, pb: np.ndarray | float, n: float,
                       a_each: float) -> tuple[np.ndarray, np.ndarray]:
    """`certified_interval` at the expected counts of ``n`` runs per dataset."""
    pa = np.asarray(pa, dtype=float)
    pb = np.asarray(pb, dtype=float)
    return certified_interval(pa * n, n, pb * n, n, a_each)


def hockey_stick_lower(p_lower: np.ndarray | float, p_upper: np.ndarray | float,
                       epsilon: np.ndarray | float) -> np.ndarray:
    """``p_lower − e^ε·p_upper`` for an event with ``P_a(E) ≥ p_lower`` and
    ``P_b(E) ≤ p_upper``: a lower bound on the hockey-stick divergence
    ``H_{e^ε}(P_a ‖ P_b) = sup_E P_a(E) − e^ε P_b(E)`` (Balle, Barthe & Gaboardi 2018,
    Definition 3), at every ε simultaneously since it only uses the two bounds.  Broadcast
    as an outer product: shape ``p_lower.shape + epsilon.shape``; may be negative (nothing
    certified at that ε)."""
    lo = np.asarray(p_lower, dtype=float)[..., None]
    up = np.asarray(p_upper, dtype=float)[..., None]
    e = np.asarray(epsilon, dtype=float)
    out = lo - np.exp(np.minimum(e, 700.0)) * up
    return out.reshape(np.shape(p_lower) + np.shape(epsilon))


def projected_bound(pa: np.ndarray | float, pb: np.ndarray | float, n: float, level: float,
                    delta: float = 0.0, test: str = "binomial") -> np.ndarray:
    """`certified_bound` at the expected counts of ``n`` runs per dataset for events of
    probabilities ``pa`` (side a) and ``pb`` (side b)."""
    pa = np.asarray(pa, dtype=float)
    pb = np.asarray(pb, dtype=float)
    return certified_bound(pa * n, n, pb * n, n, level, delta, test)


def shrunk(ca: np.ndarray | float, cb: np.ndarray | float, na: np.ndarray | float,
           nb: np.ndarray | float, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies ``ca/na`` and ``cb/nb`` shrunk against the winner's curse: the
    Clopper–Pearson lower bound of side a and the upper bound of side b at ``level``."""
    return clopper_pearson_lower(ca, na, level), clopper_pearson_upper(cb, nb, level)


#: Selection sizes up to which `shrunk_projection` keeps per-count tables (4 float arrays of
#: this length at most per setting, 8 settings kept).
TABLE_MAX_RUNS = 4_000_000


class _CountTable:
    """``fn(k)`` for integer counts ``k`` in 0..n, evaluated once per distinct count and kept."""

    def __init__(self, n: int, fn: Any) -> None:
        self.values = np.zeros(n + 1)
        self.known = np.zeros(n + 1, dtype=bool)
        self.fn = fn

    def __call__(self, k: np.ndarray) -> np.ndarray:
        missing = np.unique(k[~self.known[k]])
        if missing.size:
            self.values[missing] = self.fn(missing.astype(float))
            self.known[missing] = True
        return self.values[k]


@functools.lru_cache(maxsize=8)
def _tables(n_sel: int, shrink: float, n: float, level: float, delta: float
            ) -> tuple[_CountTable, _CountTable, _CountTable, _CountTable]:
    """Per-count tables of `shrunk_projection`: the shrunk frequencies of side a and b, and the
    certification bounds at their expected counts (``epsilon_lower_bound``'s two terms)."""
    lo = _CountTable(n_sel, lambda k: clopper_pearson_lower(k, n_sel, shrink))
    up = _CountTable(n_sel, lambda k: clopper_pearson_upper(k, n_sel, shrink))
    cert_lo = _CountTable(n_sel, lambda k: clopper_pearson_lower(
        lo(k.astype(np.int64)) * n, n, level / 2) - delta)
    cert_up = _CountTable(n_sel, lambda k: clopper_pearson_upper(
        up(k.astype(np.int64)) * n, n, level / 2))
    return lo, up, cert_lo, cert_up


def _counts(c: np.ndarray | float, n_sel: int) -> np.ndarray | None:
    """``c`` as integer counts in 0..n_sel, or None when it holds anything else."""
    c = np.asarray(c)
    if c.dtype.kind in "iu":
        k = c.astype(np.int64, copy=False)
    elif c.dtype.kind == "f":
        if not np.all(np.isfinite(c)):
            return None
        k = c.astype(np.int64)
        if not np.array_equal(k, c):
            return None
    else:
        return None
    if k.size and (k.min() < 0 or k.max() > n_sel):
        return None
    return k


def shrunk_projection(ca: np.ndarray | float, cb: np.ndarray | float, n_sel: int, n: float,
                      level: float, delta: float = 0.0, test: str = "binomial",
                      shrink: float = 0.02) -> np.ndarray:
    """`projected_bound` with ``n`` runs per dataset of selection counts ``ca`` (side a) and
    ``cb`` (side b) out of ``n_sel`` runs each, shrunk to their Clopper–Pearson bounds at
    ``shrink`` (`shrunk`).  The same numbers as ``projected_bound(*shrunk(ca, cb, n_sel, n_sel,
    shrink), n, level, delta, test)``; for integer counts the Clopper–Pearson quantiles (scipy's
    incomplete-beta inverse, the cost of event selection: ~10^6 evaluations per audit of a
    20-coordinate output) are computed once per distinct count and kept, since thousands of
    nested events in dozens of families share the counts 0..n_sel."""
    n_sel_i = int(n_sel)
    ka, kb = _counts(ca, n_sel_i), _counts(cb, n_sel_i)
    if ka is None or kb is None or n_sel_i != n_sel or n_sel_i > TABLE_MAX_RUNS:
        return projected_bound(*shrunk(ca, cb, n_sel, n_sel, shrink), n, level, delta, test)
    if test == "poisson" and delta > 0:
        raise ValueError("the Poisson certification test needs delta = 0")
    lo_t, up_t, cert_lo, cert_up = _tables(n_sel_i, float(shrink), float(n), float(level),
                                           float(delta))
    out = None
    if test != "poisson":
        lo, up = cert_lo(ka), cert_up(kb)
        with np.errstate(divide="ignore", invalid="ignore"):
            val = np.log(np.where(lo > 0, lo, np.nan) / up)
        out = np.where(lo > 0, val, -np.inf)
        if test == "binomial" or delta > 0:
            return out
    pois = poisson_epsilon_lower_bound(lo_t(ka) * n, up_t(kb) * n, level)
    return pois if out is None else np.maximum(out, pois)


def lr_order(pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """Indices of the cells with ``pa > 0``, by decreasing likelihood ratio ``pa / pb`` (ties in
    index order): the Neyman–Pearson order, whose prefixes are the most powerful events."""
    pa, pb = np.asarray(pa, dtype=float), np.asarray(pb, dtype=float)
    keep = np.flatnonzero(pa > 0)
    with np.errstate(divide="ignore"):
        llr = np.log(pa[keep]) - np.log(pb[keep])
    return keep[np.argsort(-llr, kind="stable")]


@dataclass(frozen=True)
class LRPrefix:
    """A likelihood-ratio prefix: the cells of the event (indices), its direction (0: more
    likely under the first distribution) and its projected bound."""

    direction: int
    cells: np.ndarray
    bound: float


def best_lr_prefix(p0: np.ndarray, p1: np.ndarray, n: float, level: float,
                   delta: float = 0.0, test: str = "binomial",
                   max_prefixes: int | None = None) -> LRPrefix:
    """The likelihood-ratio prefix of the cells (probabilities ``p0`` under the first dataset,
    ``p1`` under the second) in either direction whose `projected_bound` with ``n`` runs
    per dataset is largest (at most ``max_prefixes`` prefixes per direction)."""
    p0, p1 = np.asarray(p0, dtype=float), np.asarray(p1, dtype=float)
    best = LRPrefix(0, np.zeros(0, dtype=int), -np.inf)
    for direction, (pa, pb) in enumerate(((p0, p1), (p1, p0))):
        order = lr_order(pa, pb)[:max_prefixes]
        if order.size == 0:
            continue
        v = projected_bound(np.cumsum(pa[order]), np.cumsum(pb[order]), n, level, delta, test)
        v = np.where(np.isnan(v), -np.inf, v)
        k = int(np.argmax(v))
        if v[k] > best.bound:
            best = LRPrefix(direction, order[:k + 1], float(v[k]))
    return best
