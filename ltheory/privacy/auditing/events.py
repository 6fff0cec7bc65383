"""Events that separate two output distributions, and how the auditor chooses them.

Candidate families (all chosen on the *selection* split only):

* **Likelihood-ratio events** ``{o : p̂0(o)/p̂1(o) ≥ t}`` and ``{o : p̂1(o)/p̂0(o) ≥ t}`` over
  *cells*: the outputs themselves when they take few values (at most 4096 distinct in the
  selection split, and on average at least 4 runs per value), otherwise a histogram — each
  coordinate with few values kept exactly, continuous coordinates cut into 16 selection-split
  quantile bins, using the (at most 3) coordinates whose distributions differ most (two-sample
  Kolmogorov–Smirnov distance).  Cells are ranked by the smoothed ratio (c0 + ½)/(c1 + ½), so
  cells never seen under one dataset come first and an output impossible under d1 pushes the
  bound as high as the counts allow.  For vector outputs with both low-cardinality and
  continuous coordinates, a second cell family: (values of the low-cardinality coordinates) ×
  (quantile bin of the sum of the continuous ones); and one more per *block* of consecutive
  low-cardinality coordinates (`PatternEncoder`: the block's joint patterns, e.g. sparse
  vector's ⊤/⊥ codes beside its released answers), scored two-fold (``lr_prefixes``).
* **Threshold events** ``{s(o) ≥ t}`` and ``{s(o) ≤ t}`` on numeric scores: the output itself
  (scalar outputs), each coordinate (vector outputs), and a linear discriminant
  ``w·o`` with ``w_j = (mean0_j − mean1_j)/var_j`` over the coordinates (a simple classifier).
  For the Laplace mechanism the optimal event is a threshold in the tail (Bichsel et al. 2021,
  DP-Sniper, Section 4), which this family contains.
* **Released-value thresholds** (``released_scores``, vector outputs): for a coordinate mixing
  point masses with a continuous part (sparse vector's released answers, 0 where a query was
  not released), thresholds ``{o_j ∉ atoms, o_j ≥ t}`` and ``{o_j ∉ atoms, o_j ≤ t}`` on its
  released runs only, scored on the whole selection split.

* **Structure scores** (``features``, vector outputs): naive-Bayes log-ratios over coordinate
  and ⊤/⊥-pattern groups, sign counts of coordinates (or first differences) against their
  medians, and a logistic-regression classifier on structure features; their threshold events.
  The sign counts' positions are projected from the independence model of ``count_model``
  (per-coordinate frequencies from every run) when the observed counts fit it.

* **Bit cells** (``floating``, ``arithmetic="float"``, the default): on non-integer float
  outputs, likelihood-ratio prefixes of the cells of (exponent, lowest set bit) of the output
  (or of up to 3 coordinates): the floating-point leaks of noise added in doubles (Mironov
  2012).

Each candidate is scored by the bound it is *projected* to give on the certification split
(selection-split frequencies, shrunk to their one-sided 98% Clopper–Pearson bounds, scaled to
the certification size, then the same Clopper–Pearson bound as certification).  This trades the
likelihood ratio against the event's probability, as the certified bound does.  The
per-candidate shrinkage does not pay for the number of candidates (~10^5 nested positions on a
20-coordinate output with the structure scores), so a *credibility screen* (``select_events``,
``screen``) first keeps, per family, the positions whose selection counts pass a conditional test
at a Bonferroni level shared equally between the families, then between each family's positions
(`screen_level`); credible candidates rank first.  Deep in the tail of the output's own values,
where a cut's few selection runs cannot rank it, the trend of the tail (``tail_model``) projects
it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special

from ltheory.privacy.auditing.count_model import model_projections, tilt_projections
from ltheory.privacy.auditing.deeper import MIN_RUNS as MIN_RUNS_DEEPER
from ltheory.privacy.auditing.deeper import deeper_positions
from ltheory.privacy.auditing.features import ATOM_SHARE, structure_scores
from ltheory.privacy.auditing.features import BINS as FEATURE_BINS
from ltheory.privacy.auditing.floating import BitEncoder, bit_encoders
from ltheory.privacy.auditing.memo import memoized
from ltheory.privacy.auditing.outputs import (
    PREFIX_ROWS,
    Batch,
    batch_kind,
    block_patterns,
    column_values,
    distinct_outputs,
    match_rows,
    true_runs,
    unique_rows,
)
from ltheory.privacy.auditing.projection import projected_bound, shrunk_projection
from ltheory.privacy.auditing.tail_model import TailModel, tail_projections
from ltheory.privacy.stats import (
    poisson_epsilon_lower_bound,
)

MAX_EXACT_CELLS = 4096
BINS = 16
MAX_THRESHOLDS = 4000
#: Relative spacing of the tail ranks of `threshold_grid`: consecutive tail cuts hold
#: at most ``1 + TAIL_GROWTH`` times as many runs, from the single most extreme run inwards.
TAIL_GROWTH = 0.02
MIN_HALF = 25
#: Whether vector outputs get a cell family per block of few-valued coordinates
#: (`PatternEncoder`, scored two-fold).
PATTERN_BLOCKS = True
SHRINK = 0.02
#: The shrinkage of a tail model's extrapolated positions (``tail_model``): none.  Their counts
#: are the fitted line's split of the pooled count, already smoothed over the whole fitted
#: stretch; shrinking them again (to their Clopper–Pearson medians, as before) read a rarer
#: side of 0.2 runs as 0.9 and placed ReportNoisyMax4's cuts at ~20 pooled selection runs
#: instead of the ~7 of its best cut (simulated from the exact cells, 40–60 selections: the
#: chosen cut 0.85 → 0.91 of the whole-budget ceiling at 2·10^7 runs, 0.82 → 0.88 at 2·10^6;
#: with ``tail_model._agrees`` 0.95 and 0.89).
UNSHRUNK = None
#: The shrinkage at which a tail model's positions are worth something beside the other
#: families (``_placed``): their counts' Clopper–Pearson medians.
MODEL_WORTH = 0.5
#: family-wise level of the credibility screen (``select_events``): a position counts as
#: credible when the conditional test of ``poisson_epsilon_lower_bound`` at level
#: SCREEN / (number of positions examined) puts its ratio above 1 on the selection counts.
#: Nominal 25%: the positions of one family are nested (strongly dependent), so Bonferroni over
#: all of them is conservative; at 0.02 the screen also dropped real rare events (SVT6 at 2e6:
#: z = 4.4 among 12,400 positions, certified 0.167 instead of 0.297), while the chance winner it
#: is for (NumericalSVT at 2e7: z = 4.15 among ~10^5 positions) is screened out at either level.
SCREEN = 0.25


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, tuple):
        return "(" + ", ".join(_fmt(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)


# --------------------------------------------------------------------------- encoders
@dataclass(frozen=True)
class ValueEncoder:
    """Cells = distinct outputs seen in the selection split (unseen outputs: cell −1)."""

    kind: str                     # "scalar" | "vector" | "object"
    values: Any                   # sorted array (scalar), 2-D array (vector rows) or tuple

    def encode(self, b: Batch) -> np.ndarray:
        if self.kind == "scalar":
            v = np.asarray(b, dtype=float)
            i = np.clip(np.searchsorted(self.values, v), 0, len(self.values) - 1)
            return np.where(self.values[i] == v, i, -1)
        if self.kind == "vector":
            rows = np.asarray(b, dtype=float)
            return match_rows(self.values, rows.reshape(len(rows), self.values.shape[1]))
        lookup = {o: i for i, o in enumerate(self.values)}
        return np.fromiter((lookup.get(o, -1) for o in b), dtype=np.int64, count=len(b))

    def describe(self, cell: int) -> str:
        if self.kind == "scalar":
            return _fmt(float(self.values[cell]))
        if self.kind == "vector":
            return _fmt(tuple(float(x) for x in self.values[cell]))
        return _fmt(self.values[cell])


@dataclass(frozen=True)
class BinEncoder:
    """Cells = joint histogram bins of chosen coordinates of numeric outputs."""

    cols: tuple[int, ...]
    edges: tuple[np.ndarray, ...]   # per column: sorted bin edges (or exact values if discrete)
    exact: tuple[bool, ...]

    def encode(self, b: Batch) -> np.ndarray:
        a = np.asarray(b, dtype=float)
        a = a[:, None] if a.ndim == 1 else a
        code = np.zeros(len(a), dtype=np.int64)
        for c, e, ex in zip(self.cols, self.edges, self.exact, strict=True):
            v = a[:, c]
            if ex:
                i = np.clip(np.searchsorted(e, v), 0, len(e) - 1)
                idx = np.where(e[i] == v, i, len(e))        # unseen value: its own cell
                size = len(e) + 1
            else:
                idx = np.searchsorted(e, v, side="right")
                size = len(e) + 1
            code = code * size + idx
        return code

    def describe(self, cell: int) -> str:
        parts = []
        sizes = [len(e) + 1 for e in self.edges]
        rest = cell
        idxs = []
        for s in reversed(sizes):
            idxs.append(rest % s)
            rest //= s
        idxs.reverse()
        for c, e, ex, i in zip(self.cols, self.edges, self.exact, idxs, strict=True):
            name = f"o[{c}]"
            if ex:
                parts.append(f"{name} = {_fmt(float(e[i]))}" if i < len(e)
                             else f"{name} unseen")
            else:
                lo = "-inf" if i == 0 else _fmt(float(e[i - 1]))
                hi = "inf" if i == len(e) else _fmt(float(e[i]))
                parts.append(f"{name} in [{lo}, {hi})")
        return " and ".join(parts)


@dataclass(frozen=True)
class MixedEncoder:
    """Cells = (exact values of the low-cardinality coordinates) × (quantile bin of the sum of
    the other coordinates): e.g. (argmax index, bin of the released value) for noisy max with
    value, (⊤/⊥ pattern, bin of the released answer) for SVT variant 3."""

    discrete: tuple[int, ...]
    continuous: tuple[int, ...]
    patterns: np.ndarray            # distinct rows of the discrete part seen in selection
    edges: np.ndarray

    def encode(self, b: Batch) -> np.ndarray:
        a = np.asarray(b, dtype=float)
        # each run's pattern looked up among the patterns' few values (``match_rows``), not in
        # a dictionary run by run (4.8 s of a profiled 2·10^7-run NumericalSVT audit)
        pat = match_rows(self.patterns, a[:, list(self.discrete)])
        bins = np.searchsorted(self.edges, a[:, list(self.continuous)].sum(axis=1), side="right")
        return np.where(pat >= 0, pat * (len(self.edges) + 1) + bins, -1)

    def describe(self, cell: int) -> str:
        p, i = divmod(cell, len(self.edges) + 1)
        lo = "-inf" if i == 0 else _fmt(float(self.edges[i - 1]))
        hi = "inf" if i == len(self.edges) else _fmt(float(self.edges[i]))
        coords = ", ".join(f"o[{j}]" for j in self.continuous[:3])
        more = " …" if len(self.continuous) > 3 else ""
        return (f"o[{list(self.discrete)}] = {_fmt(tuple(float(x) for x in self.patterns[p]))}"
                f" and sum({coords}{more}) in [{lo}, {hi})")


def make_mixed_encoder(s0: Batch, s1: Batch) -> MixedEncoder | None:
    """The mixed encoder when outputs have both low-cardinality and continuous coordinates."""
    if batch_kind(s0) != "vector":
        return None
    pooled = np.concatenate([np.asarray(s0), np.asarray(s1)])
    card = [len(np.unique(pooled[:, j])) for j in range(pooled.shape[1])]
    disc = tuple(j for j, c in enumerate(card) if c <= BINS)
    cont = tuple(j for j, c in enumerate(card) if c > BINS)
    if not disc or not cont:
        return None
    pats = unique_rows(pooled[:, list(disc)])
    if len(pats) > MAX_EXACT_CELLS:
        return None
    sums = pooled[:, list(cont)].sum(axis=1)
    edges = np.unique(np.quantile(sums, np.linspace(0, 1, 4 * BINS + 1)[1:-1]))
    return MixedEncoder(disc, cont, np.ascontiguousarray(pats), edges)


@dataclass(frozen=True)
class AtomEncoder:
    """Cells = the *atoms* of a numeric output that otherwise takes many values: the exact
    outputs (values, or rows of a vector) seen at least twice on the selection runs that fit
    the family, at most ``MAX_EXACT_CELLS`` of them (the most frequent); every other output is
    in no cell.  A continuous distribution repeats a value with probability 0, so a repeated
    value is a point mass — a clipped output, a fallback value, a far point one dataset sends
    some runs to — and the likelihood-ratio prefixes of the atoms isolate it, where the
    16-bin histogram and the quantile thresholds mix it with the bulk."""

    kind: str                     # "scalar" | "vector"
    values: np.ndarray            # sorted distinct atoms (scalar) or distinct rows (vector)

    def encode(self, b: Batch) -> np.ndarray:
        return ValueEncoder(self.kind, self.values).encode(b)

    def describe(self, cell: int) -> str:
        return "atom " + ValueEncoder(self.kind, self.values).describe(cell)


def _repeat_candidates(pooled: np.ndarray) -> np.ndarray:
    """The rows of ``pooled`` (2-D) that may occur more than once: equal rows have equal keys
    (a weighted sum of their columns, the same operations in the same order, so bit for bit
    equal; ``-0.0`` and ``0.0`` and NaN as ``np.unique`` compares them), so a row whose key is
    unique is unique, and only the rows whose key repeats are sorted as a whole (every copy
    of a repeated row is kept, so its count is unchanged; a key shared by different rows only
    keeps them).  One key over all columns drops a released value in any column, where the
    most varied column alone kept every run whose value there was an atom (NumericalSVT at
    2·10^7 runs: most of its 6·10^6 selection rows, sorted whole in 5.3 of the audit's 75 s)."""
    if pooled.shape[1] < 2 or len(pooled) < 2:
        return pooled
    key = np.zeros(len(pooled))
    with np.errstate(invalid="ignore", over="ignore"):     # inf − inf: NaN, a key like any
        for j in range(pooled.shape[1]):
            key += pooled[:, j] * (1.0 + REPEAT_WEIGHT * j)
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return pooled[counts[inverse.ravel()] >= 2]


#: The step between the columns' weights in `_repeat_candidates`' key (irrational, so that
#: different rows of small integers rarely share a key).
REPEAT_WEIGHT = 0.6180339887498949


def make_atom_encoder(s0: Batch, s1: Batch) -> AtomEncoder | None:
    """The atom encoder (`AtomEncoder`) of numeric outputs with repeated values, or
    None when no output repeats."""
    kind = batch_kind(s0)
    if kind == "object":
        return None
    pooled = np.concatenate([np.asarray(s0, dtype=float), np.asarray(s1, dtype=float)])
    if kind == "scalar":
        u, c = np.unique(pooled, return_counts=True)
    else:
        pooled = _repeat_candidates(pooled)
        if not len(pooled):
            return None
        u, c = unique_rows(pooled, return_counts=True)
    keep = c >= 2
    if not keep.any():
        return None
    u, c = u[keep], c[keep]
    if len(u) > MAX_EXACT_CELLS:
        top = np.sort(np.argsort(-c, kind="stable")[:MAX_EXACT_CELLS])
        u = u[top]
    return AtomEncoder(kind, np.ascontiguousarray(u))


@dataclass(frozen=True)
class PatternEncoder:
    """Cells = the joint patterns of one *block* of consecutive few-valued coordinates of a
    vector output that also has continuous coordinates (sparse vector's ⊤/⊥ codes beside its
    released answers; each block of a parallel composition): cell i is the block's i-th
    pattern seen when the family was built, an output whose block holds no seen pattern is in
    no cell.  Its likelihood-ratio prefixes are scored two-fold
    (``lr_prefixes(twofold=True)``), not on one half."""

    cols: tuple[int, ...]
    patterns: np.ndarray            # the block's distinct rows seen, lexicographic order

    def encode(self, b: Batch) -> np.ndarray:
        a = np.asarray(b, dtype=float)
        a = a[:, None] if a.ndim == 1 else a
        return match_rows(self.patterns, a[:, list(self.cols)])

    def describe(self, cell: int) -> str:
        return " and ".join(f"o[{c}] = {_fmt(float(v))}"
                            for c, v in zip(self.cols, self.patterns[cell], strict=True))


def make_pattern_encoders(s0: Batch, s1: Batch) -> list[PatternEncoder]:
    """One `PatternEncoder` per maximal block of ≥ 2 consecutive coordinates with at most
    `BINS` values each, in a vector output with some coordinate of more values, and at most
    `MAX_EXACT_CELLS` patterns seen."""
    if batch_kind(s0) != "vector":
        return []
    pooled = np.concatenate([np.asarray(s0, dtype=float), np.asarray(s1, dtype=float)])
    values = column_values(pooled, BINS)
    few = [v is not None for v in values]
    if all(few) or not any(few):
        return []
    out = []
    for j, end in true_runs(few):
        if end - j < 2:
            continue
        rows = block_patterns(pooled[:, j:end], values[j:end], MAX_EXACT_CELLS)
        if rows is not None:
            out.append(PatternEncoder(tuple(range(j, end)), rows))
    return out


# --------------------------------------------------------------------------- scores
@dataclass(frozen=True)
class Score:
    """A numeric score of an output: coordinate ``col`` (None = the scalar output itself) or a
    linear form ``w · o``.  With ``atoms`` (a coordinate's point masses, `released_scores`),
    the coordinate's *released* value: NaN — in no threshold event, in either direction —
    where it holds one of the atoms."""

    col: int | None = None
    w: np.ndarray | None = field(default=None, compare=False)
    atoms: tuple[float, ...] = ()

    def __call__(self, b: Batch) -> np.ndarray:
        a = np.asarray(b, dtype=float)
        if self.w is not None:
            return (a[:, None] if a.ndim == 1 else a) @ self.w
        if self.col is None:
            return a
        if self.atoms:
            v = a[:, self.col].copy()
            v[np.isin(v, self.atoms)] = np.nan
            return v
        return a[:, self.col]

    def describe(self) -> str:
        if self.w is not None:
            terms = [f"{w:+.3g}·o[{j}]" for j, w in enumerate(self.w) if w != 0]
            return "(" + " ".join(terms[:8]) + (" …" if len(terms) > 8 else "") + ")"
        if self.atoms:
            held = ", ".join(_fmt(x) for x in self.atoms)
            return f"output[{self.col}] (runs where it is not {held})"
        return "output" if self.col is None else f"output[{self.col}]"

    @property
    def unfitted(self) -> bool:
        """The scalar output itself, or a coordinate's released value: their thresholds fit
        nothing but their cuts (and the atoms, a label-free statistic), so ``select_events``
        scores them on the whole selection split (a plain coordinate's or a linear form's
        thresholds stay cross-fitted).  For the released values on the whole split: SVT3 at
        2·10^6 runs, 20 seeds, 0.1044 → 0.1066 (cross-fitted → whole); at 2·10^7, 6 seeds,
        0.210 → 0.226."""
        return self.w is None and (self.col is None or bool(self.atoms))


# --------------------------------------------------------------------------- events
@dataclass(frozen=True)
class ThresholdEvent:
    score: Score
    t: float
    geq: bool

    def contains(self, b: Batch) -> np.ndarray:
        s = self.score(b)
        return s >= self.t if self.geq else s <= self.t

    def describe(self) -> str:
        return f"{self.score.describe()} {'≥' if self.geq else '≤'} {self.t:.6g}"


def encoded(enc: Any, b: Batch) -> np.ndarray:
    """``enc.encode(b)``, from the selection memo's store when active
    (``memo.selection_memo``: the selection split is encoded once per family, not once per
    candidate, runner-up and refinement check; SVT1 at 2·10^7 runs with a widened split:
    8 encodings of 3·10^6 rows)."""
    return memoized("encode", enc, b, lambda: enc.encode(b))


@dataclass(frozen=True)
class CellEvent:
    encoder: ValueEncoder | BinEncoder | MixedEncoder | AtomEncoder | BitEncoder
    cells: np.ndarray = field(compare=False)

    def contains(self, b: Batch) -> np.ndarray:
        return np.isin(encoded(self.encoder, b), self.cells)

    def describe(self) -> str:
        if isinstance(self.encoder, BitEncoder):        # floating.py: ranges of grid exponents
            return self.encoder.describe_cells(self.cells)
        shown = [self.encoder.describe(int(c)) for c in self.cells[:6]]
        more = f" … ({len(self.cells)} in all)" if len(self.cells) > 6 else ""
        if isinstance(self.encoder, ValueEncoder):
            return "output ∈ {" + ", ".join(shown) + "}" + more
        return "output in one of: " + "; ".join(shown) + more


Event = ThresholdEvent | CellEvent


@dataclass(frozen=True)
class Candidate:
    event: Event
    direction: int            # 0: event more likely under d0 (bound on P0 ≤ e^ε P1 + δ), 1: swap
    projected: float
    sel_counts: tuple[int, int]   # runs in the event on the selection runs that scored it
    sel_n: int                    # ... out of this many runs per dataset
    test: str = "binomial"        # certification test the projection was made for
    credible: bool = True         # passed the multiplicity-corrected screen (select_events)
    #: the extremes bet of ``select_events(extremes=True)`` (an atom or isolated-tail event,
    #: its ``projected`` from unshrunk selection frequencies), offered beside the top ones
    extreme: bool = False
    #: the position was projected by its family's tail model (``tail_model``), not its counts
    tail: bool = False
    #: chosen by ``select_events``' fallback (nothing credible, nothing projected positive):
    #: its multiplicity-weighted screen p-value (`_most_significant`); None otherwise
    fallback_p: float | None = None
    #: nested, rarer events of its own family (``deeper``) or of a family holding it
    #: (``refined``), certified beside it when it is the first event of
    #: ``audit(events="auto")``
    deeper: tuple[Candidate, ...] = ()
    #: the deeper cuts come from another threshold family that holds this event on the
    #: selection split (``_refined``), not from its own
    refined: bool = False


@dataclass(frozen=True)
class _Block:
    """The nested events of one family in one direction, scored on the selection split:
    projected bounds and selection counts (ca: the larger side, cb: the other) per position,
    and ``make(i, credible)`` building position i's Candidate."""

    proj: np.ndarray
    ca: np.ndarray
    cb: np.ndarray
    n_ev: int
    make: Any
    #: projections from the independence model of ``count_model`` (the screen then credits
    #: the family as a whole: the model, not a position's own few runs, places the cut)
    modelled: bool = False
    #: the family: "cells", "atoms" (`AtomEncoder`) or "thresholds"
    family: str = "thresholds"
    #: positions projected by the tail model (``tail_model``; None: no model): credible as a
    #: whole when the family has a credible position, as ``modelled`` families are
    tail: np.ndarray | None = None


# --------------------------------------------------------------------------- selection
def _projected(ca: np.ndarray, cb: np.ndarray, n_sel: int, n_cert: int, a_each: float,
               delta: float, test: str = "binomial", shrink: float | None = SHRINK
               ) -> np.ndarray:
    """The bound an event with selection counts (ca, cb) out of n_sel is projected to certify
    with ``n_cert`` runs per dataset, its frequencies shrunk to their Clopper–Pearson bounds at
    ``shrink`` (``projection.projected_bound`` at the event's level 2·``a_each``); ``shrink=None``:
    the frequencies as they are (a tail model's fitted counts, ``UNSHRUNK``)."""
    if shrink is None:
        return projected_bound(np.asarray(ca, dtype=float) / n_sel,
                               np.asarray(cb, dtype=float) / n_sel, n_cert, 2 * a_each, delta,
                               test)
    return shrunk_projection(ca, cb, n_sel, n_cert, 2 * a_each, delta, test, shrink)


def _best_test(ka: float, kb: float, n_sel: int, n_cert: int, a_each: float, delta: float,
               test: str, shrink: float = SHRINK) -> str:
    if test != "auto":
        return test
    if delta > 0:
        return "binomial"
    b = _projected(np.float64(ka), np.float64(kb), n_sel, n_cert, a_each, delta, "binomial",
                   shrink)
    p = _projected(np.float64(ka), np.float64(kb), n_sel, n_cert, a_each, delta, "poisson",
                   shrink)
    return "poisson" if float(p) > float(b) else "binomial"


def _ks_distance(a: np.ndarray, b: np.ndarray) -> float:
    grid = np.unique(np.concatenate([a, b]))
    if len(grid) > 2000:
        grid = np.quantile(grid, np.linspace(0, 1, 2000))
    fa = np.searchsorted(np.sort(a), grid, side="right") / len(a)
    fb = np.searchsorted(np.sort(b), grid, side="right") / len(b)
    return float(np.max(np.abs(fa - fb)))


def make_encoder(s0: Batch, s1: Batch) -> ValueEncoder | BinEncoder:
    """The cell encoder used for likelihood-ratio events (see
    [`ltheory.privacy.auditing.events`][ltheory.privacy.auditing.events])."""
    kind = batch_kind(s0)
    if kind == "object":
        vals = list(dict.fromkeys(list(s0) + list(s1)))
        return ValueEncoder("object", tuple(vals))
    a0, a1 = np.asarray(s0), np.asarray(s1)
    pooled = np.concatenate([a0, a1])
    if kind == "scalar":
        u = np.unique(pooled)
        if len(u) <= min(MAX_EXACT_CELLS, len(pooled) // 4):
            return ValueEncoder("scalar", u)
        pooled2 = pooled[:, None]
        a0, a1 = a0[:, None], a1[:, None]
    else:
        limit = min(MAX_EXACT_CELLS, len(pooled) // 4)
        # more than ``limit`` distinct rows among the first ones: more in all (not sorted)
        if distinct_outputs(pooled[:4 * limit + PREFIX_ROWS]) <= limit:
            u = unique_rows(pooled)
            if len(u) <= limit:
                return ValueEncoder("vector", np.ascontiguousarray(u))
        pooled2 = pooled
    k = pooled2.shape[1]
    dist = [_ks_distance(a0[:, j], a1[:, j]) for j in range(k)]
    cols = tuple(int(j) for j in np.argsort(dist)[::-1][: min(3, k)])
    edges, exact = [], []
    for j in cols:
        uj = np.unique(pooled2[:, j])
        if len(uj) <= BINS:
            edges.append(uj)
            exact.append(True)
        else:
            edges.append(np.unique(np.quantile(pooled2[:, j], np.linspace(0, 1, BINS + 1)[1:-1])))
            exact.append(False)
    return BinEncoder(cols, tuple(edges), tuple(exact))


def _split(b: Batch) -> tuple[Batch, Batch]:
    h = len(b) // 2
    return b[:h], b[h:]


def _lr_order(x0: np.ndarray, x1: np.ndarray, seen: np.ndarray, direction: int) -> np.ndarray:
    """The cells ``seen`` by decreasing smoothed ratio (x0 + ½)/(x1 + ½) (direction 0) or
    (x1 + ½)/(x0 + ½) (direction 1), ties in cell order."""
    llr = np.log((x0[seen] + 0.5) / (x1[seen] + 0.5))
    return seen[np.argsort(-llr if direction == 0 else llr, kind="stable")]


def lr_prefixes(enc: Any, fit: tuple[Batch, Batch], ev: tuple[Batch, Batch],
                twofold: bool = False
                ) -> tuple[np.ndarray, np.ndarray, int, list[tuple]] | None:
    """The likelihood-ratio prefixes of ``enc``'s cells: cells ordered on the fit half by the
    smoothed ratio (c0 + ½)/(c1 + ½), each direction's prefixes counted on the eval half.
    Returns (eval counts per cell under d0, under d1, eval runs per dataset,
    [(direction, cell order, cumulative counts on side a, on side b) for both directions]),
    or None when no cell was seen.

    ``twofold``: the prefixes are ordered on both halves together (the events built from
    them), and counted two-fold — prefix i's count is that of the fit half's first i cells on
    the eval half plus that of the eval half's first i cells on the fit half, out of both
    halves' runs: each term counts runs the order that chose its cells did not see, so the
    estimate of the i-cell prefix carries no winner's curse from ordering K cells, yet rests
    on every selection run.  (Ordering and counting K cells on the same runs inflates the
    chosen prefix's ratio: NumericalSVT's 56 ⊤/⊥ patterns at 2·10^6, 26 chosen, read a
    log-ratio of 0.046 in selection and 0.0098 certified.)  The counts returned are then
    both halves' counts."""
    f0, f1, e0, e1 = (encoded(enc, b) for b in (*fit, *ev))
    m = int(max(x.max(initial=-1) for x in (f0, f1, e0, e1))) + 1
    if m <= 0:
        return None
    g0, g1, c0, c1 = (np.bincount(x[x >= 0], minlength=m).astype(float)
                      for x in (f0, f1, e0, e1))
    if twofold and fit is not ev:
        w0, w1 = g0 + c0, g1 + c1
        seen = np.nonzero((w0 + w1) > 0)[0]
        orders = []
        for direction in (0, 1):
            oa, ob = _lr_order(g0, g1, seen, direction), _lr_order(c0, c1, seen, direction)
            (xa, xb), (ya, yb) = ((c0, c1), (g0, g1)) if direction == 0 else \
                ((c1, c0), (g1, g0))
            orders.append((direction, _lr_order(w0, w1, seen, direction),
                           np.cumsum(xa[oa]) + np.cumsum(ya[ob]),
                           np.cumsum(xb[oa]) + np.cumsum(yb[ob])))
        return w0, w1, len(fit[0]) + len(ev[0]), orders
    seen = np.nonzero((g0 + g1) > 0)[0]
    orders = []
    for direction in (0, 1):
        order = _lr_order(g0, g1, seen, direction)
        ca, cb = (c0, c1) if direction == 0 else (c1, c0)
        orders.append((direction, order, np.cumsum(ca[order]), np.cumsum(cb[order])))
    return c0, c1, len(ev[0]), orders


def _cell_candidates(fit: tuple[Batch, Batch], ev: tuple[Batch, Batch], n_cert: int,
                     a_each: float, delta: float, out: list[_Block],
                     enc: ValueEncoder | BinEncoder | MixedEncoder | None = None,
                     test: str = "binomial", shrink: float = SHRINK,
                     cache: dict | None = None) -> None:
    enc = enc or make_encoder(*fit)
    if cache is not None and id(enc) in cache:
        prefixes = cache[id(enc)]
    else:
        prefixes = lr_prefixes(enc, fit, ev, twofold=isinstance(enc, PatternEncoder))
        if cache is not None:
            cache[id(enc)] = prefixes
    if prefixes is None:
        return
    c0, c1, n_ev, orders = prefixes
    twofold = isinstance(enc, PatternEncoder) and n_ev > len(ev[0])
    for direction, order, pa, pb in orders:
        proj = _projected(pa, pb, n_ev, n_cert, a_each, delta, test, shrink)
        whole = None
        if twofold:
            # the whole split's own projections of its order's prefixes (ordered and counted
            # on the same runs: the deployed cut's candidates, never its score)
            wa, wb = (c0, c1) if direction == 0 else (c1, c0)
            whole = _projected(np.cumsum(wa[order]), np.cumsum(wb[order]), n_ev, n_cert,
                               a_each, delta, test, shrink)

        def make(i: int, credible: bool, among: np.ndarray | None = None,
                 order: np.ndarray = order, pa: np.ndarray = pa, pb: np.ndarray = pb,
                 proj: np.ndarray = proj, direction: int = direction,
                 whole: np.ndarray | None = whole) -> Candidate:
            cut = i
            if whole is not None and among is not None:
                # a pattern block: the order on both halves cut at its own best projection
                # among the positions ``among`` (those the screen passed) whose two-fold
                # counts project a positive bound; position i is scored, by its two-fold
                # counts, either way
                ok = np.asarray(among, dtype=bool) & (proj > 0)
                ok[i] = True
                cut = int(np.argmax(np.where(ok, whole, -np.inf)))
            cells = np.sort(order[: cut + 1])
            # the counts that scored the position (two-fold ones for a pattern block)
            sel = (int(pa[i]), int(pb[i])) if direction == 0 else (int(pb[i]), int(pa[i]))
            return Candidate(CellEvent(enc, cells), direction, float(proj[i]), sel, n_ev,
                             _best_test(pa[i], pb[i], n_ev, n_cert, a_each, delta, test,
                                        shrink), credible)

        out.append(_Block(proj, pa, pb, n_ev, make,
                          family="atoms" if isinstance(enc, AtomEncoder) else
                          "patterns" if isinstance(enc, PatternEncoder) else "cells"))


def tail_ranks(n: int, limit: int, growth: float = TAIL_GROWTH) -> np.ndarray:
    """Ranks 1, 2, … ≤ ``limit`` (and < ``n``), consecutive ones at most a factor
    ``1 + growth`` apart: every tail of a sample of ``n`` with at most ``limit`` runs is
    within that factor of one of them.

    Examples:
        >>> tail_ranks(10**6, 100, 0.5).tolist()
        [1, 2, 3, 4, 6, 9, 13, 19, 28, 42, 63, 94]
    """
    out, r = [], 1
    while r <= min(limit, n - 1):
        out.append(r)
        r = max(r + 1, int(r * (1 + growth)))
    return np.asarray(out, dtype=np.int64)


def threshold_grid(pooled: np.ndarray, middle: int = MAX_THRESHOLDS,
                   growth: float = TAIL_GROWTH) -> np.ndarray:
    """The cuts of a score's threshold events, from its pooled values on the selection runs
    that fit the family: every distinct value when there are at most ``middle``; otherwise
    ``middle`` evenly spaced quantiles **and the extreme order statistics of both tails** at
    geometrically spaced ranks (`tail_ranks`: the 1st, 2nd, … most extreme values, then
    ranks ``1 + growth`` apart, up to where the quantiles are denser).

    The quantiles alone cannot cut off fewer than ~1/``middle`` of the runs, so an event
    rarer than that — a tail leak of probability 2·10^-5, or the optimal event of a Gaussian
    pair at δ = 10^-5, of probability ~10^-6, at 10^8 runs — was never a candidate at any
    budget.  With the tail ranks the rarest candidate holds one run, and the grid grows with
    the sample (≈ 2 ln(n/middle)/growth more cuts), so what a budget can reach approaches the
    best unrestricted threshold (``benchmarks/bench_tail_reach.py``)."""
    return _grid_of_sorted(_sorted(pooled), middle, growth)


def _sorted(values: np.ndarray, presorted: bool = False) -> np.ndarray:
    """``values`` as a sorted float array (as given when ``presorted``)."""
    v = np.asarray(values, dtype=float)
    return v if presorted else np.sort(v)


def _grid_of_sorted(s: np.ndarray, middle: int = MAX_THRESHOLDS,
                    growth: float = TAIL_GROWTH) -> np.ndarray:
    """`threshold_grid` of values already sorted (one sort serves the grid and
    `isolated_cuts`: three sorts of the pooled values were ~20% of a wide selection's time)."""
    if len(s) and np.isnan(s[-1]):                # NaNs sort last; np.unique keeps one
        grid = np.unique(s)
    else:
        grid = s[np.r_[True, s[1:] != s[:-1]]] if len(s) else s
    if len(grid) <= middle:
        return grid
    n = len(s)
    mid = np.quantile(s, np.linspace(0, 1, middle))
    r = tail_ranks(n, 2 * n // middle + 1, growth)
    return np.unique(np.concatenate([mid, s[n - r], s[r - 1]]))


#: ``isolated_cuts``: normalised spacings compared over this many ranks below, and how many
#: times their median the gap before an isolated tail must be.  Under a smooth tail the
#: normalised spacings r·(x_(r) − x_(r+1)) are roughly i.i.d. exponential (Rényi's
#: representation), and their ratio to the median of 50 more exceeds 15 with probability
#: ~e^{-15 ln 2} = 3·10^-5 per rank (~10^-3 over the ~50 ranks examined at 2·10^6 runs, ~0.15
#: over 5,000 at 10^8); a false isolated cut only costs the curve audit its "extremes" slot.
ISOLATION_WINDOW = 50
ISOLATION_RATIO = 15.0


def isolated_cuts(values: np.ndarray, max_rank: int, presorted: bool = False
                  ) -> tuple[float | None, float | None]:
    """Cuts that isolate an extreme cluster of outputs from the bulk, one per tail (or None):
    with x_(1) ≥ x_(2) ≥ … the pooled values from the top, the rank r ≤ ``max_rank`` whose
    normalised spacing ``r·(x_(r) − x_(r+1))`` is largest relative to the median of the next
    ``ISOLATION_WINDOW`` ones, if that ratio is at least ``ISOLATION_RATIO``; the cut is the
    middle of that gap, so the event {x ≥ cut} holds the isolated outputs and none of the
    bulk (a fraction of one dataset's runs sent far away, 20 + U(0, 1) beside Laplace noise
    around 0 and 1).  Likewise from the bottom.  ``presorted``: ``values`` are sorted already."""
    s = _sorted(values, presorted)
    n = len(s)
    r_max = min(int(max_rank), (n - ISOLATION_WINDOW - 2) // 2)
    if r_max < 1:
        return None, None
    out: list[float | None] = []
    for tail in (s[::-1], -s):
        x = tail[: r_max + ISOLATION_WINDOW + 1]
        d = x[:-1] - x[1:]                           # d[r-1] = x_(r) − x_(r+1) ≥ 0
        norm = np.arange(1, len(d) + 1) * d
        win = np.lib.stride_tricks.sliding_window_view(norm[1:], ISOLATION_WINDOW)[:r_max]
        ref = np.median(win, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(ref > 0, norm[:r_max] / ref, 0.0)
        r = int(np.argmax(ratio)) if len(ratio) else 0
        out.append(float(x[r] + x[r + 1]) / 2 if len(ratio) and ratio[r] >= ISOLATION_RATIO
                   else None)
    hi, lo = out
    return hi, (None if lo is None else -lo)


def threshold_cuts(pooled: np.ndarray, isolate: bool = True, presorted: bool = False
                   ) -> tuple[np.ndarray, tuple[float | None, float | None]]:
    """A score's threshold cuts from its pooled fit values: `threshold_grid` and, with
    ``isolate``, the cuts of `isolated_cuts` (upper, lower; None where no far cluster)
    among them.  Returns (cuts, isolated cuts).  ``presorted``: ``pooled`` is sorted already
    (it is sorted once here otherwise)."""
    s = _sorted(pooled, presorted)
    grid = _grid_of_sorted(s)
    iso: tuple[float | None, float | None] = (None, None)
    if isolate:
        iso = isolated_cuts(s, 2 * len(s) // MAX_THRESHOLDS + 1, presorted=True)
    found = [c for c in iso if c is not None]
    return (np.unique(np.concatenate([grid, found])) if found else grid), iso


#: ``released_scores``: a value is an atom of a coordinate when it holds at least this share of
#: the pooled fit runs (``features.ATOM_SHARE``); the coordinate's released part must hold at
#: least ``RELEASED_MIN`` runs and more than ``BINS`` distinct values (a continuous part)
RELEASED_MIN = 2 * MIN_HALF
ATOM_PREFIX = 20_000


def released_scores(x0: np.ndarray, x1: np.ndarray) -> list[Score]:
    """The released values of the coordinates that mix point masses with a continuous part, as
    threshold scores (`Score` with ``atoms``): ``{o_j ∉ atoms, o_j ≥ t}`` and
    ``{o_j ∉ atoms, o_j ≤ t}``.

    A mechanism that stops on its data and releases a noisy value where it stopped (sparse
    vector with numeric answers — Lyu, Su and Li 2017, Algorithm 3 and Numerical SVT; Roth's
    SVT) writes 0 (or another constant) for every query it did not release, so the released
    value of query j is ``o_j`` on the runs that released j and an atom elsewhere.  The plain
    coordinate thresholds ``{o_j ≤ t}`` with t above the atom hold every run that did *not*
    release j, and the pattern and cell families bin the values too coarsely for the ratio
    that varies along them: SVT3 (c = 1) on 1⁵0⁵ vs 0⁵1⁵ certifies at most 0.126 with its
    stopping pattern alone and 0.19 with ``{query 6 released, value < 10.5}`` (exact
    probabilities, 9·10^5 certification runs per dataset; ceiling 0.20).  Atoms are the
    values holding at least ``features.ATOM_SHARE`` of the pooled runs (candidates found on
    the first ``ATOM_PREFIX / 2`` runs of each dataset, their share then counted on all)."""
    a0, a1 = np.asarray(x0, dtype=float), np.asarray(x1, dtype=float)
    pooled = np.concatenate([a0, a1])
    head = np.concatenate([a0[: ATOM_PREFIX // 2], a1[: ATOM_PREFIX // 2]])
    n = len(pooled)
    out: list[Score] = []
    for j in range(pooled.shape[1]):
        col = pooled[:, j]
        u, cnt = np.unique(head[:, j], return_counts=True)
        cand = u[cnt >= ATOM_SHARE * len(head)]
        if not len(cand) or len(cand) == len(u):
            continue
        held = {float(x): int(np.count_nonzero(col == x)) for x in cand}
        atoms = [x for x, k in held.items() if k >= ATOM_SHARE * n]
        if not atoms:
            continue
        if n - sum(held[x] for x in atoms) < RELEASED_MIN or \
                len(np.unique(head[:, j][~np.isin(head[:, j], atoms)])) <= FEATURE_BINS:
            continue
        out.append(Score(col=j, atoms=tuple(atoms)))
    return out


def drop_nan(v: np.ndarray) -> np.ndarray:
    """A sorted array without its NaNs (which ``np.sort`` puts last)."""
    if not len(v) or not np.isnan(v[-1]):
        return v
    return v[: len(v) - int(np.count_nonzero(np.isnan(v)))]


def cut_counts(v: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For sorted scores ``v``: the number of runs with score ≥ t and ≤ t at each cut t of
    ``grid``; a NaN score is in neither (``ThresholdEvent.contains``)."""
    v = drop_nan(v)
    return len(v) - np.searchsorted(v, grid, side="left"), np.searchsorted(v, grid, side="right")


def _threshold_candidates(score: Any, fit: tuple[Batch, Batch], ev: tuple[Batch, Batch],
                          n_cert: int, a_each: float, delta: float,
                          out: list[_Block], test: str = "binomial",
                          shrink: float = SHRINK, tail: bool = True,
                          cache: dict | None = None) -> None:
    signs = getattr(score, "kind", None) == "signs"
    # the tail model only on the output's own values (the output, or one coordinate): a fitted
    # score (classifier, naive Bayes, discriminant) estimates a log-likelihood ratio, bounded
    # for any mechanism of finite ε, so its tail bends away from a power law (PrefixSum at
    # 2·10^6: a logistic-regression cut of 15 vs 5 selection runs projected 1.46 against a
    # ceiling of 0.90, and certified 0.63 where the unmodelled choice certified 0.83)
    own = isinstance(score, Score) and score.w is None
    # the score's cuts and sorted values do not depend on the projection's settings: with a
    # ``cache`` (``candidate_families``) they are computed once for every scoring pass
    key = id(score)
    if cache is not None and key in cache:
        grid, iso, v0, v1, (i0, i1, w) = cache[key]
    else:
        i0 = i1 = w = None
        if signs:              # the indicators feed the count model too
            (i0, w), (i1, _) = score.signs(ev[0]), score.signs(ev[1])
            v0, v1 = np.sort(i0 @ w), np.sort(i1 @ w)
        else:
            v0, v1 = np.sort(score(ev[0])), np.sort(score(ev[1]))
        if fit[0] is ev[0] and fit[1] is ev[1] and not signs:
            # the cuts' values are the counted ones: merge the two sorted runs (a stable sort
            # of two sorted runs is a linear merge) instead of scoring and sorting again
            pooled = np.sort(np.concatenate([drop_nan(v0), drop_nan(v1)]), kind="stable")
        else:
            pooled = np.concatenate([score(fit[0]), score(fit[1])])
            pooled = np.sort(pooled[~np.isnan(pooled)])
        grid, iso = threshold_cuts(pooled, isolate=not signs, presorted=True)
        if cache is not None:
            cache[key] = grid, iso, v0, v1, (i0, i1, w)
    n_ev = len(v0)
    # a NaN score (a released value's atoms; an overflowed linear form) is in no threshold
    # event, as ``ThresholdEvent.contains`` says
    (ge0, le0), (ge1, le1) = cut_counts(v0, grid), cut_counts(v1, grid)
    model = None

    def unshrunk(ca: np.ndarray, cb: np.ndarray) -> np.ndarray:
        return _projected(ca, cb, n_ev, n_cert, a_each, delta, test, 0.5)

    if signs and len(v0) == len(v1):        # a count of independent signs
        model = model_projections(i0, i1, w, grid, unshrunk, shrink)
    elif getattr(score, "kind", None) == "bits":     # a count of dependent bits
        model = tilt_projections(v0, v1, grid, unshrunk, shrink)
    for geq, (k0, k1) in ((True, (ge0, ge1)), (False, (le0, le1))):
        for direction in (0, 1):
            ca, cb = (k0, k1) if direction == 0 else (k1, k0)
            proj = _projected(ca, cb, n_ev, n_cert, a_each, delta, test, shrink) \
                if model is None else model[(geq, direction)]
            deep = None
            if tail and model is None and own:   # rare positions placed by the tail's trend
                deep = tail_projections(ca, cb, lambda a, b: _projected(
                    a, b, n_ev, n_cert, a_each, delta, test, UNSHRUNK))
                if deep is not None and deep.reach.any():
                    proj, deep = _placed(proj, deep, lambda a, b: _projected(
                        a, b, n_ev, n_cert, a_each, delta, test, MODEL_WORTH))
                else:
                    deep = None

            def make(i: int, credible: bool, ca: np.ndarray = ca, cb: np.ndarray = cb,
                     proj: np.ndarray = proj, k0: np.ndarray = k0, k1: np.ndarray = k1,
                     geq: bool = geq, direction: int = direction,
                     deep: TailModel | None = deep) -> Candidate:
                modelled = deep is not None and bool(deep.reach[i]) and bool(deep.placed[i])
                if modelled:                                # the model's counts, unshrunk
                    chosen = _best_test(deep.ca[i], deep.cb[i], n_ev, n_cert, a_each, delta,
                                        test, UNSHRUNK)
                else:
                    chosen = _best_test(ca[i], cb[i], n_ev, n_cert, a_each, delta, test,
                                        shrink)
                return Candidate(ThresholdEvent(score, float(grid[i]), geq), direction,
                                 float(proj[i]), (int(k0[i]), int(k1[i])), n_ev, chosen,
                                 credible, tail=modelled)

            out.append(_Block(proj, ca, cb, n_ev, make, model is not None,
                              tail=None if deep is None else deep.reach))
            cut = iso[0] if geq else iso[1]
            if cut is not None:         # the isolated tail, as a family of its own
                j = int(np.searchsorted(grid, cut))
                out.append(_Block(proj[j:j + 1], ca[j:j + 1], cb[j:j + 1], n_ev,
                                  lambda i, credible, make=make, j=j: make(j + i, credible),
                                  family="isolated"))


def _placed(proj: np.ndarray, deep: TailModel, worth: Callable[[np.ndarray, np.ndarray],
                                                                 np.ndarray]
            ) -> tuple[np.ndarray, TailModel]:
    """A family's projections with its tail model: the model *places* the cut, its worth
    among the families stays that of its counts read at `MODEL_WORTH`.

    The position is the best of the shrunk projections ``proj`` and the model's unshrunk ones
    (``deep.proj``, `UNSHRUNK`).  The family's projections are ``proj`` with the model's
    positions worth ``worth(deep.ca, deep.cb)`` where that is higher, and the placed position
    set just above the best of them, so that the family's value beside the other families is
    what the medians of the model's counts make it, and so is the candidate's projection
    (``events_to_certify`` weighs it against the runner-up).  Unshrunk, an extrapolated line
    looked like a clear winner where it was not: a coordinate of a prefix sum, whose tail
    log-ratio saturates, projected 1.63 on PrefixSum's search seed 7 at 2·10^6 runs, so the
    audit certified that cut alone (0.283) instead of beside the increments' count (0.853).
    Returns the projections and ``deep`` with ``placed`` set (the model placed the family's
    cut there)."""
    reach = deep.reach
    plug = np.where(reach, np.fmax(proj, deep.proj), proj)
    i = int(np.argmax(np.where(np.isnan(plug), -np.inf, plug)))
    placed = np.zeros(reach.shape, dtype=bool)
    out = proj.copy()
    val = np.full(reach.shape, -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        val[reach] = np.asarray(worth(deep.ca[reach], deep.cb[reach]), dtype=float)
    val = np.where(np.isfinite(val), val, -np.inf)
    out[reach] = np.fmax(proj[reach], val[reach])
    if reach[i] and deep.proj[i] >= proj[i]:
        placed[i] = True
        top = float(np.nanmax(np.where(np.isnan(out), -np.inf, out)))
        out[i] = np.nextafter(top, np.inf) if np.isfinite(top) else top
    return out, dataclasses.replace(deep, placed=placed)


def _screened(ca: np.ndarray, n_ev: int, delta: float) -> np.ndarray:
    """The larger side's selection counts as the screen tests them: less δ·``n_ev`` (≥ 0)."""
    return np.maximum(np.asarray(ca, dtype=float) - delta * n_ev, 0.0)


def credible_positions(ca: np.ndarray, cb: np.ndarray, n_ev: int, delta: float,
                       level: float) -> np.ndarray:
    """Whether selection counts (ca, cb) out of ``n_ev`` runs per dataset show
    ``p_a − δ > p_b`` by the conditional test at ``level`` (``select_events``' screen)."""
    return np.asarray(poisson_epsilon_lower_bound(_screened(ca, n_ev, delta), cb, level) > 0)


#: The shrinkage at which a model's family (``count_model``) is ranked when no candidate is
#: credible (``select_events``): one standard error.
MODEL_SHRINK = 0.16
#: The shrinkage credible candidates of a vector output are ranked at (``select_events``'
#: ``credible_shrink``; ``AuditConfig.selection_shrink="auto"``): once the screen has passed
#: some position, the 98% bounds push the choice to frequent events of small ratio (SVT3's
#: released values cut at 27–92 where ~10 is best; SVT6's patterns).  2·10^6 runs, DP-Sniper's
#: pairs, 9 seeds, handed whole-budget ceiling ratios: SVT3 0.61 → 0.70, SVT6 0.80 → 0.87,
#: LaplaceParallel 0.83 → 0.87, SVT34Parallel 0.39 → 0.43, NoisyHist1 0.983 → 0.957.  Not
#: for scalar outputs (Laplace 0.998 → 0.988, TruncatedGeometric 0.993 → 0.979: a saturating
#: ratio, where the largest event at the top ratio is best), and not when nothing is credible
#: (NumericalSVT 0.58 → 0.18: chance cuts deep in a released value's tail win at one standard
#: error over ~10^4 positions).
CREDIBLE_SHRINK = 0.16
#: The largest selection split (runs per dataset) the audit ranks credible candidates at
#: `CREDIBLE_SHRINK` for (``AuditConfig.credible_shrink_for``).  The milder level pays where
#: rare events have few selection runs; with many, the 98% bounds cost little and one standard
#: error lets chance win on a plateau of equal ratios.  At 2·10^7 runs (10^6 selection runs per
#: dataset; 9 seeds, search / handed whole-budget ratios) it gave SVT6 0.83 / 0.83 → 0.91 /
#: 0.87, but NoisyHist1 0.998 / 0.990 → 0.966 / 0.925 (deep cuts and bin cells of one count's
#: saturating ratio) and Rappor 0.981 / 0.990 → 0.957 / 0.983.  The audits between 10^5 and
#: 10^6 selection runs per dataset were not measured.
CREDIBLE_MAX_SELECTION = 250_000
#: The fewest selection runs, on each side, of a position ranked at `CREDIBLE_SHRINK`: rarer
#: ones keep the 98% bounds (PrefixSum at 2·10^6, seed 4: a coordinate's tail cut of 40 vs 7
#: runs, credible, projected 0.98 at one standard error, certified 0.21 where the sign count
#: certified 0.83).
CREDIBLE_MIN_RUNS = 50
#: How the credibility screen's level is shared: "positions" (Bonferroni over every position
#: examined) or "families" (each family gets an equal share, split over its positions).
SCREEN_SHARE = "families"
#: Whether the first event and a certified runner-up may take deeper cuts of another
#: threshold family (`_refined`; vector outputs only).
REFINE = True
#: The most families whose deeper cuts refine the first event (`_refined`).
REFINE_FAMILIES = 2
#: Whether the runner-up is refined too (its deeper cuts certified when ``audit`` certifies it).
REFINE_RUNNER_UP = True


def screen_level(screen: float, size: int, n_pos: int, n_fam: int) -> float:
    """The level of the credibility screen at one position of a family of ``size`` positions,
    among ``n_pos`` positions in ``n_fam`` families: ``screen / n_pos`` (every position alike)
    or, with `SCREEN_SHARE` = "families", ``screen / (n_fam · size)`` — a weighted Bonferroni
    (the weights still sum to 1, so the family-wise level is ``screen``) under which a family
    of a few dozen positions, a sign count or a model's family, is not drowned by the ~4,000
    cuts each of twenty single coordinates brings."""
    if SCREEN_SHARE == "families":
        return screen / (max(n_fam, 1) * max(size, 1))
    return screen / max(n_pos, 1)


def _sizes(blocks: list[_Block]) -> tuple[int, int]:
    """The positions and the (non-empty) families among ``blocks``: the screen's shares."""
    return sum(len(b.proj) for b in blocks), sum(1 for b in blocks if len(b.proj))


def _pick(blocks: list[_Block], delta: float, screen: float | None) -> list[Candidate]:
    """One candidate per block, credible ones first (``select_events``), best first."""
    n_pos, n_fam = _sizes(blocks)
    masks = [credible_positions(b.ca, b.cb, b.n_ev, delta, screen_level(screen, len(b.proj),
                                                                        n_pos, n_fam))
             if screen is not None and n_pos else np.zeros(len(b.proj), dtype=bool)
             for b in blocks]
    masks = [np.isfinite(b.proj) if b.modelled and m.any() else m
             for b, m in zip(blocks, masks, strict=True)]
    masks = [m | b.tail if b.tail is not None and m.any() else m
             for b, m in zip(blocks, masks, strict=True)]
    any_credible = any(m.any() for m in masks)
    cands = []
    for b, m in zip(blocks, masks, strict=True):
        if not len(b.proj):
            continue
        if any_credible and m.any():
            i = int(np.argmax(np.where(m, b.proj, -np.inf)))
            # a pattern block deploys its whole split's cut among its credible positions
            cands.append(b.make(i, True, among=m) if b.family == "patterns"
                         else _with_deeper(b, i, b.make(i, True)))
        elif not any_credible and b.modelled and np.max(b.proj) > 0:
            # nothing is credible: a family whose projections come from a model fitted to all
            # its runs (``count_model``) outranks the per-position maxima, which over ~10^5
            # noisy positions are the winner's curse
            cands.append(b.make(int(np.argmax(b.proj)), True))
        else:
            cands.append(b.make(int(np.argmax(b.proj)), False))
    cands.sort(key=lambda c: (not c.credible, -c.projected))
    return cands


def _with_deeper(b: _Block, i: int, c: Candidate) -> Candidate:
    """Candidate ``c`` (position ``i`` of ``b``) with the nested, rarer positions of its family
    that ``deeper.deeper_positions`` offers, for threshold families only: a cell family's
    prefixes follow a likelihood-ratio order, which the lean cells take from the very counts
    that score them — there every shorter prefix reads a higher ratio and the condition of
    ``deeper_positions`` passes by construction (SVT1 and SVT2 at 2·10^6 lost 0.02–0.05 of
    their ceiling to the Bonferroni step); a pattern block deploys its whole split's cut, an
    isolated tail is one position."""
    if b.family != "thresholds":
        return c
    js = deeper_positions(b.ca, b.cb, i)
    if not js:
        return c
    return dataclasses.replace(c, deeper=tuple(b.make(j, True) for j in js))


def _refined(c: Candidate, blocks: list[_Block], s0: Batch, s1: Batch) -> Candidate:
    """Candidate ``c`` with deeper cuts from *another* threshold family that holds it: a family
    with a position j whose event is ``c``'s on the selection split (the same runs of both
    datasets, the same direction) offers its nested, rarer positions
    (``deeper.deeper_positions`` at j).  A discrete coordinate's cut (SVT3's ⊤ at query 5,
    ``output[5] ≥ 1``) is one position of a three-position family, so it has no deeper cut of
    its own; the released value of that query, cut low, refines it.  Up to `REFINE_FAMILIES`
    families (the one whose rarest deeper cut reads the highest selection log-ratio first) give
    their deeper cuts; ``c`` comes back unchanged when it has deeper cuts already or no family
    holds it."""
    if c.deeper or c.extreme:
        return c
    try:
        m0, m1 = c.event.contains(s0), c.event.contains(s1)
    except (TypeError, ValueError):
        return c
    pooled, n = int(m0.sum() + m1.sum()), len(s0)
    if pooled < 2 * MIN_RUNS_DEEPER:
        return c
    found: list[tuple[float, _Block, list[int]]] = []
    k = 512
    for b in blocks:
        if b.family != "thresholds" or b.modelled or not len(b.proj):
            continue
        target = pooled * b.n_ev / n
        pb = b.ca + b.cb
        j = int(np.argmin(np.abs(pb - target)))
        if abs(pb[j] - target) > 0.02 * target + 3:
            continue
        js = deeper_positions(b.ca, b.cb, j)
        if not js:
            continue
        cj = b.make(j, True)
        if cj.direction != c.direction or cj.event == c.event:
            continue
        # the same runs: first on a few hundred of them (a structure score is costly to
        # evaluate on the whole split, and most families fail at once), then on all
        if not all(np.array_equal(cj.event.contains(s[:size]), m[:size])
                   for size in (k, None) for s, m in ((s0, m0), (s1, m1))):
            continue
        with np.errstate(divide="ignore"):
            gain = float(np.log((b.ca[js[-1]] + 0.5) / (b.cb[js[-1]] + 0.5)))
        found.append((gain, b, js))
    if not found:
        return c
    found.sort(key=lambda f: -f[0])
    deeper = tuple(b.make(j, True) for _, b, js in found[:REFINE_FAMILIES] for j in js)
    return dataclasses.replace(c, deeper=deeper, refined=True)


def screen_p_values(ca: np.ndarray, cb: np.ndarray, n_ev: int, delta: float) -> np.ndarray:
    """The p-values of ``credible_positions``' conditional test: given m = ka + cb runs in the
    event (ka = ca − δ·n_ev), P(Bin(m, ½) ≥ ka) — the smallest level at which the position
    would be credible (1 where ka ≤ cb: no evidence in this direction)."""
    ka = _screened(ca, n_ev, delta)
    cb = np.asarray(cb, dtype=float)
    with np.errstate(invalid="ignore"):
        # the Clopper–Pearson lower bound at level a exceeds ½ exactly when a > this
        p = special.betainc(np.maximum(ka, 1e-300), cb + 1.0, 0.5)
    return np.where(ka > cb, p, 1.0)


def _most_significant(blocks: list[_Block], delta: float) -> Candidate | None:
    """The fallback of ``select_events`` when no position is credible and none projects a
    positive bound: the position closest to credible — smallest screen p-value weighted as the
    screen weights it (`screen_level`: ×F·n_f under "families"; above 1 when nothing is near
    credible, still a ranking) — among the families scored by their own counts, or None when
    no position leans either way.  The per-position maximum of a milder-shrunk projection over
    ~10^4 positions is a chance tail cut (NumericalSVT at 2·10^6, seed 8: a released value's
    cut of projection 0.47 unshrunk, certified 0); the weighted p-value is the
    multiplicity-aware ranking of the screen itself."""
    n_pos, n_fam = _sizes(blocks)
    best: tuple[float, _Block, int] | None = None
    for b in blocks:
        if not len(b.proj) or b.modelled:
            continue
        p = screen_p_values(b.ca, b.cb, b.n_ev, delta)
        p = np.where(p < 1.0, p / screen_level(1.0, len(b.proj), n_pos, n_fam), np.inf)
        i = int(np.argmin(p))
        if np.isfinite(p[i]) and (best is None or p[i] < best[0]):
            best = (float(p[i]), b, i)
    if best is None:
        return None
    return dataclasses.replace(best[1].make(best[2], False), fallback_p=best[0])


#: The families of the extremes bet: atoms (`AtomEncoder`) and isolated tails
#: (`isolated_cuts`).
EXTREME_FAMILIES = ("atoms", "isolated")


def extreme_positions(blocks: list[_Block], delta: float, screen: float | None) -> np.ndarray:
    """Per position of ``blocks`` (concatenated): whether it belongs to an extreme family and
    passes the credibility screen of ``select_events`` *among the extreme positions alone*
    (level ``screen / their number``): they are a handful, a separate bet, not ranked against
    the ~10^4 positions of the other families."""
    ext = np.concatenate([np.full(len(b.proj), b.family in EXTREME_FAMILIES)
                          for b in blocks]) if blocks else np.zeros(0, dtype=bool)
    if screen is None or not ext.any():
        return ext
    n_ext = int(ext.sum())
    return np.concatenate([
        credible_positions(b.ca, b.cb, b.n_ev, delta, screen / n_ext)
        if b.family in EXTREME_FAMILIES else np.zeros(len(b.proj), dtype=bool)
        for b in blocks])


def raw_projection(c: Candidate, n_cert: int, alpha: float, delta: float) -> float:
    """The bound candidate ``c`` projects at ``n_cert`` certification runs per dataset and the
    level of two certified events (α/2 each), from its raw selection frequencies (the
    yardstick of the extremes bet, `_extreme`)."""
    k0, k1 = c.sel_counts
    ka, kb = (k0, k1) if c.direction == 0 else (k1, k0)
    n = max(c.sel_n, 1)
    return float(projected_bound(ka / n, kb / n, n_cert, alpha / 2, delta))


def extreme_takes_second(first: Candidate, extreme: Candidate, n_cert: int, alpha: float,
                         delta: float) -> bool:
    """Whether the extremes bet (an atom or isolated tail, `_extreme`) takes the second
    certified place beside the ``first`` event (``audit(events="auto")``, decided on the
    selection split): when its projection beats the first event's, both from their raw
    selection frequencies (`raw_projection`), unless the first event's cut was placed by its
    coordinate's tail model and the extreme event cuts the same coordinate: that is the same
    bet on the same runs, and it would displace the other score's event certified beside the
    model's cut (`events_to_certify`; SVT3 at 2·10^7 runs, handed seed 2024: query 6's
    released value cut at ≤ −4.82 by the model and at ≤ −0.42 as an isolated tail)."""
    col = modelled_column(first)
    if col is not None and own_column(extreme) == col:
        return False
    return extreme.projected > raw_projection(first, n_cert, alpha, delta)


def _extreme(blocks: list[_Block], n_cert: int, a_each: float, delta: float,
             screen: float | None) -> Candidate | None:
    """The extremes bet: the credible extreme position (`extreme_positions`) with the
    best projection from the raw selection frequencies (unshrunk: a zero count stays zero,
    where even the median-unbiased bound reads it as 0.69 runs), or None."""
    ok = extreme_positions(blocks, delta, screen)
    if screen is None:
        ok = np.zeros_like(ok)          # no screen, no separate bet: nothing is credible
    best: tuple[float, Candidate] | None = None
    start = 0
    for b in blocks:
        m = ok[start:start + len(b.proj)]
        start += len(b.proj)
        if not m.any():
            continue
        proj = _projected(b.ca, b.cb, b.n_ev, n_cert, a_each, delta, shrink=UNSHRUNK)
        i = int(np.argmax(np.where(m, proj, -np.inf)))
        if np.isfinite(proj[i]) and (best is None or proj[i] > best[0]):
            best = (float(proj[i]), dataclasses.replace(b.make(i, True), projected=float(
                proj[i]), extreme=True, test="binomial"))
    return None if best is None else best[1]


def own_column(c: Candidate) -> int | None:
    """The coordinate whose own values a candidate's threshold event cuts (a released value's,
    or a plain coordinate's), None for any other event (a scalar output's cut, a fitted score,
    a set of cells)."""
    ev = c.event
    if isinstance(ev, ThresholdEvent) and isinstance(ev.score, Score) and ev.score.w is None:
        return ev.score.col
    return None


def modelled_column(c: Candidate) -> int | None:
    """The coordinate whose tail cut the tail model placed as candidate ``c`` (`own_column` of
    a ``tail`` candidate), None when the model did not place it or it cuts no coordinate."""
    return own_column(c) if c.tail else None


def events_to_certify(cands: list[Candidate], n_cert: int, alpha: float, delta: float,
                      samples: tuple[Batch, Batch] | None = None
                      ) -> tuple[list[Candidate], str]:
    """How many of the two best candidates to certify (``audit(events="auto")``), decided on
    the selection split alone — so the Bonferroni level α/(2k) is fixed before any
    certification run and the bound stays sound.

    Certifying the second event as well costs the first the step from α/2 to α/4 per bound
    (its projected bound at α/2 minus at α/4, frequencies unshrunk); it gains
    E[(v2 − v1)⁺], the expected excess of the second event's true value over the first's,
    with v2 − v1 ~ N(projected_2 − projected_1, σ²) and σ² the variance of the difference of
    the two log-ratio estimates on the selection counts: Σ over both datasets of
    1/k_A + 1/k_B − 2·s·k_AB/(k_A·k_B) (k_AB runs in both events, s = +1 when the events
    point the same way, −1 otherwise; each count +½), from ``samples`` (the selection split,
    scaled to the half that scored the candidates), or without the overlap term when
    ``samples`` is None.  Nested or overlapping events thus count as one bet, not two.
    A runner-up that did not pass the credibility screen (``select_events``) behind a first
    event that did is not weighed at all: its projection is the maximum of thousands of
    positions, and one event is certified.  A first event whose cut a coordinate's tail model
    placed (``tail_model``: an extrapolation the selection counts cannot check) is certified
    beside a credible runner-up of another score whatever the weighing says.
    Two events when the gain exceeds the cost: a rare event ranked first on a few dozen runs
    (Laplace, suite seed 1: 70 vs 140 runs, worth 0.054 against 0.098 for the runner-up) gets
    its insurance; a clear winner, or a runner-up that is nearly the same event, does not.
    Returns (the candidates to certify, a note saying why)."""
    if len(cands) < 2:
        return cands[:1], "events=auto: one candidate event, one certified"
    c1, c2 = cands[0], cands[1]
    col = modelled_column(c1)
    if col is not None and c2.credible and own_column(c2) != col:
        # insurance for an extrapolated cut (SVT3 at 2·10^7, handed seed 2024: a released
        # value's tail read 1-3 standard errors high, a power law projected 0.56 where the
        # tail's ratio is 0.35); an unscreened runner-up would be no insurance
        return [c1, c2], ("events=auto: 2 certified (the first event's cut was placed by its "
                          "tail model, an extrapolation: the best event of another score is "
                          "certified beside it)")
    if c1.credible and not c2.credible:
        # a runner-up the screen did not pass is the largest of its many positions: its
        # projection is the winner's curse, not a gain (LaplaceParallel at 2·10^6: one
        # coordinate's tail cut projected 0.12-0.19 against the count's 0.02)
        return cands[:1], "events=auto: 1 certified (the runner-up did not pass the screen)"

    def plug(c: Candidate, a_each: float) -> float:
        k0, k1 = c.sel_counts
        ka, kb = (k0, k1) if c.direction == 0 else (k1, k0)
        return float(_projected(np.float64(ka), np.float64(kb), c.sel_n, n_cert, a_each,
                                delta, c.test, 0.5))

    def finite(x: float) -> float:
        return x if math.isfinite(x) else 0.0

    if samples is not None and len(samples[0]) and len(samples[1]):
        sign = 1.0 if c1.direction == c2.direction else -1.0
        var = 0.0
        for b in samples:
            a1, a2 = c1.event.contains(b), c2.event.contains(b)
            ka, kb = np.count_nonzero(a1) + 0.5, np.count_nonzero(a2) + 0.5
            kab = float(np.count_nonzero(a1 & a2))
            var += 1 / ka + 1 / kb - 2 * sign * kab / (ka * kb)
        var *= len(samples[0]) / max(c1.sel_n, 1)     # to the size that scored them
    else:
        var = sum(1.0 / (k + 0.5) for k in (*c1.sel_counts, *c2.sel_counts))
    sigma = math.sqrt(max(var, 1e-12))
    cost = max(finite(plug(c1, alpha / 2)) - finite(plug(c1, alpha / 4)), 0.0)
    mu = finite(c2.projected) - finite(c1.projected)
    z = mu / sigma
    gain = mu * 0.5 * math.erfc(-z / math.sqrt(2)) + sigma * math.exp(-z * z / 2) / math.sqrt(
        2 * math.pi)
    k = 2 if gain > cost else 1
    return cands[:k], (f"events=auto: {k} certified (the runner-up's expected excess "
                       f"{gain:.3g} vs the Bonferroni cost {cost:.3g} to the best event)")


def _families(fit: tuple[Batch, Batch], kind: str, structure: bool, lean: bool,
              arithmetic: str = "float") -> tuple[list[Any], list[Any]]:
    """The event families built on the fit half: cell encoders, and threshold scores (the
    output itself, each coordinate, a linear discriminant, the structure scores); with
    ``arithmetic="float"``, the bit families of float outputs (``floating.bit_encoders``)."""
    encoders: list[Any] = [make_encoder(*fit)]
    if lean and isinstance(encoders[0], ValueEncoder):
        # the exact-output cells; a scalar output keeps its own thresholds (its order is known,
        # where the cells' likelihood-ratio order is estimated); nothing else is built
        return encoders, ([Score()] if kind == "scalar" else [])
    encoders += bit_encoders(fit, kind, arithmetic)
    scores: list[Any] = []
    atoms = None if isinstance(encoders[0], ValueEncoder) else make_atom_encoder(*fit)
    if atoms is not None:
        encoders.append(atoms)
    if kind == "scalar":
        scores.append(Score())
    elif kind == "vector":
        mixed = make_mixed_encoder(*fit)
        if mixed is not None:
            encoders.append(mixed)
        if PATTERN_BLOCKS:
            encoders += make_pattern_encoders(*fit)
        x0, x1 = np.asarray(fit[0]), np.asarray(fit[1])
        scores += [Score(col=j) for j in range(x0.shape[1])
                   if np.ptp(x0[:, j]) > 0 or np.ptp(x1[:, j]) > 0]
        scores += released_scores(x0, x1)
        var = 0.5 * (x0.var(axis=0) + x1.var(axis=0))
        diff = x0.mean(axis=0) - x1.mean(axis=0)
        w = np.where(var > 0, diff / np.where(var > 0, var, 1.0), 0.0)
        w = np.where(np.isfinite(w), w, 0.0)               # overflowed moments: no weight
        if np.count_nonzero(w) > 1:
            scores.append(Score(w=w))
        if structure and x0.shape[1] > 1:
            scores += structure_scores(x0, x1)[0]
    return encoders, scores


@dataclass(frozen=True)
class SelectionRule:
    """How ``select_events`` chooses (the fields are its keyword options, documented there)."""

    top: int = 1
    crossfit: bool = True
    test: str = "binomial"
    structure: bool = True
    lean: bool = False
    shrink: float = SHRINK
    screen: float | None = SCREEN
    extremes: bool = False
    arithmetic: str = "float"
    tail: bool = True
    credible_shrink: float | None = None


def _quiet(fn: Any) -> Any:
    """Run ``fn`` with numpy's floating-point warnings off: outputs near the float range (a
    mechanism with noise scale 1e300) overflow the selection's means and variances to inf,
    which only makes a score useless (it is dropped or ranks last) — the bound is a
    Clopper–Pearson bound on counts of the certification split, whatever was chosen."""
    import functools

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            return fn(*args, **kwargs)
    return wrapped


@_quiet
def candidate_families(s0: Batch, s1: Batch, rule: SelectionRule | None = None
                       ) -> Any:
    """The candidate event families of ``select_events`` on the selection split (s0, s1),
    built once (cell encoders, threshold scores; cross-fitted as ``rule`` says): returns
    ``blocks(n_cert, a_each, delta, shrink)``, every family's nested events in each direction
    scored for those settings — a list of `_Block` (per position: selection counts
    ``ca`` on the more likely side, ``cb`` on the other, out of ``n_ev`` runs each, and
    ``make(i, credible)`` building position i's `Candidate`).  Used by
    ``select_events`` and by the curve audit (``curve``), which scores the same positions
    against a whole claimed curve."""
    r = rule or SelectionRule()
    kind = batch_kind(s0)
    if r.crossfit and len(s0) >= 2 * MIN_HALF:
        (a0, b0), (a1, b1) = _split(s0), _split(s1)
        fit, ev = (a0, a1), (b0, b1)
    else:
        fit = ev = (s0, s1)
    # the families, built on the fit half once; each is scored on the eval half
    encoders, scores = _families(fit, kind, r.structure, r.lean, r.arithmetic)

    cache: dict = {}      # each score's cuts and sorted values, shared by the scoring passes

    def blocks(n_cert: int, a_each: float, delta: float, shrink: float) -> list[_Block]:
        out: list[_Block] = []
        for enc in encoders:
            # lean, vector outputs: the exact-output cells are ordered and scored on the whole
            # split (a scalar output's cells stay cross-fitted beside its thresholds:
            # TruncatedGeometric at 2e6, 60 seeds, 0.1151 -> 0.1146 on the whole split)
            whole = r.lean and kind != "scalar" and isinstance(enc, ValueEncoder)
            _cell_candidates((s0, s1) if whole else fit, (s0, s1) if whole else ev, n_cert,
                             a_each, delta, out, enc, r.test, shrink, cache)
        for sc in scores:
            # a score that fits nothing but its cuts is scored on the whole selection split
            _threshold_candidates(sc, (s0, s1) if sc.unfitted else fit,
                                  (s0, s1) if sc.unfitted else ev,
                                  n_cert, a_each, delta, out, r.test, shrink, r.tail, cache)
        return out

    return blocks


def _milder(strict: _Block, mild: _Block) -> _Block:
    """``strict``'s family with its positions of at least `CREDIBLE_MIN_RUNS` selection runs
    on each side projected (and built) as in ``mild``, the same family at a milder shrinkage."""
    use = np.minimum(strict.ca, strict.cb) >= CREDIBLE_MIN_RUNS
    if strict.tail is not None:
        use &= ~strict.tail
    if not use.any():
        return strict

    def make(i: int, credible: bool, **deploy: Any) -> Candidate:
        return (mild if use[i] else strict).make(i, credible, **deploy)
    return dataclasses.replace(strict, proj=np.where(use, mild.proj, strict.proj), make=make)


@_quiet
def select_events(s0: Batch, s1: Batch, n_cert: int, a_each: float, delta: float,
                  rule: SelectionRule | None = None, **options: Any) -> list[Candidate]:
    """The ``top`` candidates with the best projected bound (distinct events), best first;
    ``rule`` (a `SelectionRule`) and keyword ``options`` (its fields) set the choice.

    With ``crossfit`` (default) the selection split is halved: the first half builds each family
    (cell encoder and likelihood-ratio order, threshold grid, discriminant weights), the second
    half scores the nested events of every family, so the choice is not fooled by cells whose
    ratio looks extreme by chance (all of it still before any certification run).  The
    thresholds on a *scalar* output fit nothing but their grid of cuts, so they are scored on
    the whole selection split: twice the runs in each cut, which the shrinkage below then
    penalises less, so deeper tail cuts can win (ReportNoisyMax4 at 2·10^6: mean bound 0.42 →
    0.56 over 40 seeds, 36 of them ≥ DP-Sniper's 0.3534 against 23;
    round 8 in docs/reference/auditor.md).  Vector outputs' per-coordinate
    thresholds stay cross-fitted: scored on the whole split they changed the pilots' pair
    choice on SVT6 (2 of 6 seeds lower at 2·10^7, none higher).
    ``structure`` adds, for vector outputs, the threshold events of the structure scores of
    ``features`` (naive Bayes, sign counts, logistic regression); ``test`` is the certification
    test the projections are made for ("binomial", "poisson" or "auto": per candidate, the
    better projected; the candidate records its choice).  ``lean`` (for pilots): when the
    outputs take few distinct values, only the likelihood-ratio cells over the exact outputs —
    the family holding the optimal (Neyman–Pearson) events of a finite output space — so that
    a small selection split is not spent on the winner's curse of dozens of weaker candidates.
    With ``lean`` the exact-output cells of a vector output are ordered and scored on the
    whole selection split
    (no cross-fitting: their order is read from twice the runs, and the few nested prefixes
    carry little winner's curse).  ``shrink``: the one-sided Clopper–Pearson level the
    selection frequencies are shrunk to (0.02 = their 98% bounds; 0.5 ≈ none; the audit uses
    ``config.LEAN_SHRINK`` = 0.16 with ``lean`` candidates of vector outputs, where the 98%
    bounds push the choice towards frequent events of small ratio).

    ``screen`` (the winner's curse over many candidates): every family scores all its nested
    events — up to 4·4,000 thresholds per score, ~10^5 positions with the structure scores of
    a 20-coordinate output — and the per-position shrinkage above does not pay for that many:
    a rare event whose selection counts differ by ~4 standard deviations by chance (the maximum
    of 10^5 null positions) can win.  So a position is *credible* when the conditional test of
    ``stats.poisson_epsilon_lower_bound`` at level ``screen / (F · n_f)`` (F families —
    families and directions —, n_f positions in the position's family; `screen_level`, a
    weighted Bonferroni) shows its ratio above 1 (above ``δ`` on the larger side) on the
    selection counts; each family offers its best credible position, and credible candidates
    rank before the rest.  When no position is credible, a family projected by a model fitted
    to all its runs (``count_model``) comes first if it projects a positive bound (at the
    selection's shrinkage, else at `MODEL_SHRINK`); when then nothing projects a positive
    bound, the position of smallest weighted screen p-value comes first (`_most_significant`:
    the ranking of the screen itself, not the maximum of a milder projection over ~10^4
    positions), else the unscreened ranking at milder shrinkages.  ``screen=None`` turns the
    screen off (and with it that fallback).  ``credible_shrink`` (default None: off): when
    some candidate is credible, rank again at this milder shrinkage — positions with fewer than
    `CREDIBLE_MIN_RUNS` selection runs on either side, and those the tail model placed, as
    before — and take that ranking if it still has a credible candidate (the screen, not the
    per-position shrinkage, then guards against chance: `CREDIBLE_SHRINK`).  ``tail`` (default
    on): the output's own threshold families project their rarest cuts from the trend of their
    tail (``tail_model``).  On vector outputs the first two candidates, when they have no
    deeper cut of their own (``deeper``), take those of the threshold families holding exactly
    their runs on the selection split (`_refined`, while `REFINE`; the runner-up's while
    `REFINE_RUNNER_UP`).
    This only changes which event is chosen, before any certification run: soundness is that
    of the certification."""
    r = dataclasses.replace(rule or SelectionRule(), **options)
    top, shrink, screen = r.top, r.shrink, r.screen
    families = candidate_families(s0, s1, r)

    def candidates(shrink: float) -> list[Candidate]:
        return _pick(families(n_cert, a_each, delta, shrink), delta, screen)

    strict_blocks = families(n_cert, a_each, delta, shrink)   # scored once, used thrice
    cands = _pick(strict_blocks, delta, screen)
    mild = r.credible_shrink
    if mild is not None and mild > shrink and any(c.credible for c in cands):
        # the screen has passed some position: rank the credible ones at the milder shrinkage
        # (nothing credible: the 98% bounds stay, the only guard against chance maxima), the
        # positions with fewer than CREDIBLE_MIN_RUNS selection runs on either side at the
        # 98% bounds still
        mixed = [_milder(b, m) for b, m in zip(strict_blocks,
                                                 families(n_cert, a_each, delta, mild),
                                                 strict=True)]
        again = _pick(mixed, delta, screen)
        if any(c.credible for c in again):
            cands = again
    if cands and not any(c.credible for c in cands) and MODEL_SHRINK > shrink:
        # nothing is credible and no model's family projects a positive bound at the 98%
        # shrinkage: a model's family (fitted to all its runs) at one standard error outranks
        # the maxima of ~10^5 noisy positions (LaplaceParallel at 2·10^6: a single coordinate's
        # cut of 18 vs 2 runs, worth nothing, against the sign count)
        modelled = [b for b in families(n_cert, a_each, delta, MODEL_SHRINK)
                    if b.modelled and len(b.proj) and np.max(b.proj) > 0]
        if modelled:
            best = max(modelled, key=lambda b: float(np.max(b.proj)))
            cands = [best.make(int(np.argmax(best.proj)), True)] + cands
    extra = _extreme(strict_blocks, n_cert, a_each, delta, screen) if r.extremes else None
    sig = None
    if screen is not None and cands and cands[0].projected <= 0 \
            and not any(c.credible for c in cands):
        # nothing credible, nothing projects a positive bound: the position closest to
        # credible, the screen's own multiplicity-weighted p-value (not a milder shrinkage,
        # whose maximum over ~10^4 positions is a chance tail cut)
        sig = _most_significant(strict_blocks, delta)
        if sig is not None:
            cands = [sig] + cands
    for milder in (x for x in (0.16, 0.5) if x > shrink):
        if not cands or cands[0].projected > 0 or sig is not None:
            break
        # nothing projects a positive bound under the 98% shrinkage (a small selection split):
        # shrink less (one standard error, then none) rather than let an event every run
        # falls in (ratio 1, projection 0) win by default
        cands = candidates(milder)
    chosen: list[Candidate] = []
    for c in cands:
        if len(chosen) >= top:
            break
        if all(c.event.describe() != d.event.describe() or c.direction != d.direction
               for d in chosen):
            chosen.append(c)
    if chosen and REFINE and batch_kind(s0) != "scalar":
        # (a scalar output's own thresholds already offer any cut a family there could hold,
        # with their deeper cuts; refining its bin cells only paid the Bonferroni step:
        # the README's Laplace 0.981 -> 0.978)
        chosen[0] = _refined(chosen[0], strict_blocks, s0, s1)
        if len(chosen) > 1 and REFINE_RUNNER_UP:
            chosen[1] = _refined(chosen[1], strict_blocks, s0, s1)
    if extra is not None and all(extra.event.describe() != d.event.describe()
                                 or extra.direction != d.direction for d in chosen):
        chosen.append(extra)
    return chosen
