"""Structure-respecting features of vector outputs, and the scores built from them.

For outputs with many coordinates (sparse-vector ⊤/⊥ patterns, parallel compositions, prefix
sums, Bloom-filter bits) the separating event usually combines many coordinates, so the cell and
per-coordinate events of ``events`` miss it.  Here the *selection* split builds a feature map that
respects the output's structure, and three scores on it; each score's threshold events
``{s(o) ≥ t}`` / ``{s(o) ≤ t}`` then compete with the other families on the second half of the
selection split (``events.select_events``), and the winner is certified on fresh runs, so none
of this touches soundness.

Coordinates are *discrete* (at most ``BINS`` values) or *continuous*.  Maximal runs of
consecutive discrete coordinates form *blocks* (the ⊤/⊥/stopped codes of one sparse-vector run).
Features:

* each block's pattern, one-hot (at most ``MAX_PATTERNS`` patterns; else one-hot per coordinate
  and value), and the number of coordinates of the block holding each value (number of ⊤);
* each continuous coordinate: its value (standardised), an indicator per *atom* (a value holding
  ≥ 1% of the runs, e.g. 0 = "not released"), and whether it exceeds the median of its non-atom
  values (its sign relative to the middle: what a Laplace shift moves);
* first differences of consecutive continuous coordinates, the same way (prefix sums); with
  the first coordinate of each such run (its increment from 0) they are the run's
  *increments* (``StructureFeatures.family``), a prefix sum's noisy answers.

Scores (each a ``LinearScore`` of groups of features, picklable, so events run on any executor):

* ``naive_bayes`` — Σ over groups (block pattern; a continuous coordinate's atom or quartile —
  or, a second score, an increment's) of the smoothed log-ratio ln((c0 + ½)/(c1 + ½))
  of the group's cell on the fit half: the exact log-likelihood ratio when the groups are
  independent (RAPPOR bits, parallel compositions, noisy histograms); for outputs mixing
  blocks with released values, also the patterns with the released values' *sides* of their
  medians, one pooled weight per side (``_pattern_side_scores``: NumericalSVT's exact
  log-likelihood ratio is nearly that);
* ``count`` — the number of continuous coordinates (or increments) on the side of their median
  that the fit half says is more likely under d0: the sign statistic, near-sufficient for many
  small Laplace shifts (LaplaceParallel), where the sum of coordinates is not.  Where to cut it
  is chosen from the independence model of ``count_model`` when the counts fit it (a tail
  position's own few runs cannot resolve the best cut).  Beside it, the same count with *one*
  sign for every atom-free coordinate (``unfitted``: only the label-free medians are fitted, so
  its cuts are scored on the whole selection split): right whenever every coordinate moves the
  same way (parallel compositions, prefix sums), where the fitted signs of many tiny shifts are
  noise (LaplaceParallel at 2·10^6 runs: 0 → 0.03, round 10 in docs/reference/auditor.md);
  when every fitted sign agrees the two are one statistic and only the one-sign count is kept;
* ``binary count`` — the number of two-valued discrete coordinates (⊤/⊥ bits without a
  cutoff, RAPPOR's bits) at the value the fit half says d0 favours (``_binary_count_scores``):
  SVT6's likelihood-ratio statistic on every headline pair; its cuts are placed by the
  log-linear cell model of ``count_model.tilt_projections`` (its bits are not independent);
* ``logistic`` — a logistic-regression classifier of d0 against d1 on all features
  (scikit-learn, L2, lbfgs; skipped with a note if scikit-learn is missing).  Logistic
  regression rather than gradient boosting: its score is linear in the features, so with these
  features it represents the additive log-likelihood ratios above exactly while fitting 10^5–10^6
  runs in seconds; gradient boosting adds interactions the structure features already encode,
  and costs one to two orders of magnitude more time per audit.  This is DP-Sniper's idea
  (Bichsel et al. 2021, Section V: threshold a probabilistic classifier p(d0 | o)), fitted and
  thresholded on the selection split only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import false_discovery_control, norm

from ltheory.privacy.auditing.coord_blocks import SignTable, above_matrix, cell_sum
from ltheory.privacy.auditing.memo import memoized
from ltheory.privacy.auditing.outputs import block_patterns, column_values, true_runs

BINS = 16
MAX_PATTERNS = 512
ATOM_SHARE = 0.01
LOGISTIC_MAX_RUNS = 100_000
#: ``_pattern_side_scores`` reads a coordinate's side only where its released values' shares
#: above the median differ by at least this many standard errors (a query that does not move
#: would otherwise add its chance side: NumericalSVT's pair moving one query, search seed 6 at
#: 2·10^6, 0.046 → 0.281 of the whole-budget ceiling).
SIDE_Z = 1.0
#: ``_pattern_side_scores`` weighs a block's pattern by the sum of its coordinates' marginal
#: log-ratios (``additive_pattern_weights``) rather than by the pattern's own count.  A sparse
#: vector's pattern ratio is nearly additive over its codes (NumericalSVT, c = 2: exact additive
#: weights hold 0.92-1.00 of the ceiling of the (pattern, released sides) cells on four headline
#: pairs at 7·10^6 certifying runs per dataset and α/8), and a coordinate's marginal count holds
#: every run where a pattern's holds a few percent: with the weights estimated on a fit half of
#: 1.3·10^5 runs per dataset and the best cut handed over, 0.84-0.93 of that ceiling against
#: 0.71-0.79 with the per-pattern weights (0.91-0.98 against 0.90-0.96 at 1.5·10^6).  In the
#: audit (2·10^6 runs, DP-Sniper's pairs "one above, rest below", "one below, rest above" and
#: "half-half", 30 seeds each, 90 paired audits, ``benchmarks/bench_pattern_weights.py``): the
#: exact value of the certified events 0.612 -> 0.644 of the whole-budget ceiling (+0.032 ±
#: 0.013; 37 up, 18 down), the certified bound 0.610 -> 0.648 (+0.038 ± 0.015).  The sum
#: counts the codes' shared information more than once (a query above uses up one of the c
#: releases, so the later codes move too): on "one above, rest below" the exact additive
#: weights hold 0.92 where the other pairs' hold 0.99.
ADDITIVE_PATTERNS = True
#: ``_binary_count_scores`` reads the two-valued coordinates whose shares differ by the
#: Benjamini–Hochberg procedure at this false discovery rate (two-sided z-tests,
#: ``scipy.stats.false_discovery_control``).  A fixed cut does not fit both of its users: at
#: one standard error (``SIDE_Z``) a third of the bits that do not move came in (RAPPOR's 20
#: bits, of which a pair moves a few: counts of 8-10 bits; the four RAPPOR audits of the
#: headline that chose such a count certified 0.83-0.96 of the whole-budget ceiling where the
#: same seeds had certified 0.94-1.005), while at three SVT6's bits, each 4 standard errors
#: clear on a 2·10^6-run audit's fit half, were dropped one time in six
BINARY_FDR = 0.05


@dataclass(frozen=True)
class Coord:
    """How one continuous coordinate (or first difference, ``diff=True``) is read."""

    col: int
    diff: bool
    atoms: np.ndarray
    median: float
    quartiles: np.ndarray
    mean: float
    sd: float

    def values(self, a: np.ndarray) -> np.ndarray:
        return a[:, self.col] - a[:, self.col - 1] if self.diff else a[:, self.col]

    def name(self) -> str:
        return f"o[{self.col}]-o[{self.col - 1}]" if self.diff else f"o[{self.col}]"

    def cell(self, v: np.ndarray) -> np.ndarray:
        """Atom index, else len(atoms) + quartile: the number of quartiles ≤ v, counted by
        comparisons (``np.searchsorted(quartiles, v, side="right")``, NaN last)."""
        c = np.full(len(v), len(self.atoms) + len(self.quartiles), dtype=np.intp)
        for q in self.quartiles:
            c -= v < q
        for i, x in enumerate(self.atoms):
            c = np.where(v == x, i, c)
        return c

    def n_cells(self) -> int:
        return len(self.atoms) + len(self.quartiles) + 1

    def above(self, v: np.ndarray) -> np.ndarray:
        """1[v above the median and not an atom], as float32."""
        return self.up(v).astype(np.float32)

    def up(self, v: np.ndarray) -> np.ndarray:
        """``above`` as a bool array."""
        up = v > self.median
        if len(self.atoms):
            up &= ~np.isin(v, self.atoms)
        return up


@dataclass(frozen=True)
class Block:
    """A run of consecutive discrete coordinates."""

    cols: tuple[int, ...]
    values: np.ndarray                    # distinct values over the block
    patterns: np.ndarray | None           # distinct rows (None: too many, per-coordinate one-hot)

    def _codes(self, sub: np.ndarray) -> np.ndarray:
        """Mixed-radix code of each row over the block's values (−1: a value never seen)."""
        v = len(self.values)
        idx = np.clip(np.searchsorted(self.values, sub), 0, v - 1)
        ok = (self.values[idx] == sub).all(axis=1)
        code = idx @ (v ** np.arange(sub.shape[1], dtype=np.int64))
        return np.where(ok, code, -1)

    def pattern_ids(self, a: np.ndarray) -> np.ndarray:
        """Each row's pattern index (−1: a pattern not in ``patterns``); computed once per
        batch inside an event selection (``memo.selection_memo``), read-only."""
        return memoized("pattern_ids", self, a, lambda: self._pattern_ids(a))

    def _pattern_ids(self, a: np.ndarray) -> np.ndarray:
        sub = a[:, list(self.cols)]
        if len(self.values) ** len(self.cols) < 2 ** 62:
            keys = self._codes(np.asarray(self.patterns, dtype=float))
            order = np.argsort(keys)
            code = self._codes(sub)
            pos = np.clip(np.searchsorted(keys[order], code), 0, len(keys) - 1)
            out = np.where((keys[order][pos] == code) & (code >= 0), order[pos], -1)
        else:
            rows = np.ascontiguousarray(sub)
            lookup = {r.tobytes(): i for i, r in enumerate(self.patterns)}
            out = np.fromiter((lookup.get(r.tobytes(), -1) for r in rows), dtype=np.int64,
                              count=len(rows))
        out.setflags(write=False)
        return out


@dataclass(frozen=True)
class StructureFeatures:
    """The feature map of [`ltheory.privacy.auditing.features`][ltheory.privacy.auditing.features],
    built on the fit half of the selection split."""

    width: int
    coords: tuple[Coord, ...]
    blocks: tuple[Block, ...]
    #: the first column of each run of consecutive continuous coordinates that has first
    #: differences: its increment from 0 (``family``)
    leads: tuple[int, ...] = ()

    @classmethod
    def fit(cls, x0: np.ndarray, x1: np.ndarray) -> StructureFeatures | None:
        pooled = np.concatenate([x0, x1])
        k = pooled.shape[1]
        values = column_values(pooled, BINS)
        disc = [v is not None for v in values]
        coords: list[Coord] = []
        for j in range(k):
            if not disc[j]:
                coords.append(_coord(pooled, j, False))
        for j in range(1, k):
            if not disc[j] and not disc[j - 1]:
                coords.append(_coord(pooled, j, True))
        blocks: list[Block] = []
        for i, j in true_runs(disc):
            cols = tuple(range(i, j))
            sub = pooled[:, list(cols)]
            if np.ptp(sub, axis=0).max(initial=0) == 0:
                continue
            pats = block_patterns(sub, values[i:j], MAX_PATTERNS)
            blocks.append(Block(cols, np.unique(np.concatenate(values[i:j])),
                                None if pats is None else np.ascontiguousarray(pats)))
        coords = [c for c in coords if c.sd > 0]
        if not coords and not blocks:
            return None
        leads = tuple(j for j in range(k - 1) if not disc[j] and not disc[j + 1]
                      and (j == 0 or disc[j - 1]))
        return cls(k, tuple(coords), tuple(blocks), leads)

    def family(self, diff: bool) -> list[Coord]:
        """The coordinates a score reads: every continuous coordinate (``diff`` False), or the
        *increments* (``diff`` True) — the first differences and, before them, the first
        coordinate of each run of consecutive continuous ones (its increment from 0).  With these
        the increments of a prefix sum are exactly its noisy answers: PrefixSum's first
        differences alone leave out one of its 10 answers, and a count of the 9 differences can
        certify at most 9·ln(p/(1 − p)) = 0.879 (p = 1 − e^{−0.05}/2, a Laplace answer on its
        side of the midpoint) where the 10 answers' count reaches 0.977 — 0.86 against 0.95 at
        10^7 runs per dataset and expected counts, of a ceiling of 0.968."""
        if not diff:
            return [c for c in self.coords if not c.diff]
        leads = set(self.leads)
        return [c for c in self.coords if not c.diff and c.col in leads] \
            + [c for c in self.coords if c.diff]

    # ---------------------------------------------------------------- dense features
    def groups(self, b: Any, dtype: Any = np.float32) -> list[np.ndarray]:
        """Feature groups (each an (n, d) float32 array) in a fixed order; ``dtype=np.float64``:
        the same float32 values held as float64 (what a product with float64 weights casts
        them to, without the float32 copy)."""
        a = as_float(b)
        n = len(a)
        out: list[np.ndarray] = []
        for c in self.coords:
            v = c.values(a)
            cols = [((v - c.mean) / c.sd).astype(np.float32), c.above(v)]
            cols += [(v == x).astype(np.float32) for x in c.atoms]
            out.append(np.column_stack(cols).astype(dtype, copy=False))
        for bl in self.blocks:
            sub = a[:, bl.cols[0]:bl.cols[-1] + 1]          # the block's consecutive columns
            counts = np.empty((n, len(bl.values)), dtype=dtype)
            if bl.patterns is not None:
                ids = bl.pattern_ids(a)
                oh = np.zeros((n, len(bl.patterns)), dtype=dtype)
                ok = ids >= 0
                oh[np.nonzero(ok)[0], ids[ok]] = 1.0
                out.append(oh)
                for j, v in enumerate(bl.values):
                    counts[:, j] = _row_count(sub == v)
            else:                   # one-hot per coordinate and value, coordinate-major
                eq = sub[:, :, None] == bl.values
                out.append(eq.reshape(n, -1).astype(dtype))
                for j in range(len(bl.values)):
                    counts[:, j] = _row_count(eq[:, :, j])
            out.append(counts)
        return out

    def matrix(self, b: Any) -> np.ndarray:
        return np.hstack(self.groups(b))

    # ---------------------------------------------------------------- cells per group
    def cells(self, b: Any, diff: bool = False) -> list[np.ndarray]:
        """One categorical code per group (naive Bayes): continuous coordinates (``diff``: the
        increments of ``family`` instead) by atom or quartile, then each block's pattern id
        (−1: unseen), or each of its coordinates' values when it has too many patterns."""
        a = as_float(b)
        return [c.cell(c.values(a)) for c in self.family(diff)] + self.block_cells(a)

    def block_cells(self, a: np.ndarray) -> list[np.ndarray]:
        """The blocks' part of ``cells``."""
        out = []
        for bl in self.blocks:
            if bl.patterns is not None:
                out.append(bl.pattern_ids(a))
                continue
            # too many patterns: each coordinate's value, as its index among the block's few
            # values (≤ BINS), by one comparison of the whole block per value (a binary search
            # per column cost 5.7 of an SVT6 audit's 17 s at 2·10^7 runs)
            sub = a[:, bl.cols[0]:bl.cols[-1] + 1]
            cell = np.full(sub.shape, -1, dtype=np.intp)
            for i, v in enumerate(bl.values):
                cell[sub == v] = i
            out += list(np.ascontiguousarray(cell.T))
        return out

    def n_cells(self, diff: bool = False) -> list[int]:
        out = [c.n_cells() for c in self.family(diff)]
        for bl in self.blocks:
            out += [len(bl.patterns)] if bl.patterns is not None \
                else [len(bl.values)] * len(bl.cols)
        return out


def as_float(b: Any) -> np.ndarray:
    """``np.asarray(b, dtype=float)``, the same array for the same batch inside an event
    selection (``memo.selection_memo``), so that the pattern ids memoized on it are found."""
    return memoized("float", b, b, lambda: np.asarray(b, dtype=float))


def _row_count(m: np.ndarray) -> np.ndarray:
    """The number of True entries in each row of a bool matrix (an integer product with a
    vector of ones where the counts fit in int8, a reduction along the rows otherwise)."""
    if m.shape[1] < 128:
        return m.view(np.int8) @ np.ones(m.shape[1], dtype=np.int8)
    return m.sum(axis=1)


def _sorted_unique(sv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(sv, return_counts=True)`` of an already sorted array (NaNs, sorted last,
    counted as one value as ``np.unique`` does), without sorting it again."""
    new = np.empty(len(sv), dtype=bool)
    new[:1] = True
    np.not_equal(sv[1:], sv[:-1], out=new[1:])
    nan = np.isnan(sv)
    if nan.any():
        new[1:] &= ~(nan[1:] & nan[:-1])
    first = np.flatnonzero(new)
    return sv[first], np.diff(np.append(first, len(sv)))


def _coord(pooled: np.ndarray, j: int, diff: bool) -> Coord:
    v = pooled[:, j] - pooled[:, j - 1] if diff else pooled[:, j]
    sv = np.sort(v)          # median and quartiles are order statistics: sorted, cheaply
    u, cnt = _sorted_unique(sv)
    atoms = u[cnt >= ATOM_SHARE * len(v)]
    rest = sv[~np.isin(sv, atoms)] if len(atoms) else sv
    if len(rest) == 0:
        rest = sv
    med = float(np.median(rest))
    q = np.unique(np.quantile(rest, [0.25, 0.5, 0.75]))
    return Coord(j, diff, atoms, med, q, float(v.mean()), float(v.std()))


# --------------------------------------------------------------------------- scores
@dataclass(frozen=True)
class LinearScore:
    """A score of outputs from ``StructureFeatures``: ``kind`` "linear" (weights on the dense
    features of ``groups``), "cells" (a table of weights per group cell, summed), "signs"
    (±1 per coordinate above its median, summed) or "bits" (one weight per coordinate of each
    block, on its larger value: ``_binary_count_scores``)."""

    features: StructureFeatures
    kind: str
    label: str
    weights: tuple[np.ndarray, ...] = field(compare=False)
    intercept: float = 0.0
    #: fits nothing on the labels (only label-free statistics of the pooled fit runs, such as
    #: medians): ``select_events`` scores its cuts on the whole selection split
    unfitted: bool = False

    def __call__(self, b: Any) -> np.ndarray:
        if self.kind == "linear":
            s = np.full(len(b), self.intercept)
            for g, w in zip(self.features.groups(b, np.float64), self.weights, strict=True):
                s += g @ w
            return s
        if self.kind == "bits":
            # Σ over two-valued blocks of sides · 1[o_j = the block's larger value]: one
            # comparison of each block and one product (``_binary_count_scores``)
            a = as_float(b)
            s = np.zeros(len(a))
            for bl, w in zip(self.features.blocks, self.weights, strict=True):
                if w.any():
                    s += (a[:, bl.cols[0]:bl.cols[-1] + 1] == bl.values[-1]) @ w
            return s
        if self.kind in ("cells", "cells-diff"):
            # the coordinates' cells block by block (``coord_blocks.cell_sum``), then each
            # block's pattern cells, added in the order of ``StructureFeatures.cells``
            a = as_float(b)
            diff = self.kind == "cells-diff"
            coords = self.features.family(diff)
            s = cell_sum(coords, self.weights[:len(coords)], a)
            for c, w in zip(self.features.block_cells(a), self.weights[len(coords):],
                            strict=True):
                s += np.where(c >= 0, w[np.maximum(c, 0)], 0.0)
            return s
        # Σ_j sign_j · 1[o_j above its median]: the number of the +1 coordinates above minus
        # the number of the −1 ones (small integers, exact in any order of summation)
        a = np.asarray(b, dtype=float)
        used = self.counted()
        if not used:
            return np.zeros(len(a))
        return SignTable([c for c, _ in used], a.shape[1]).count(a, [s for _, s in used])

    def describe(self) -> str:
        return self.label

    def counted(self) -> list[tuple[Coord, float]]:
        """For a "signs" score: the coordinates it counts, each with its sign (±1)."""
        if self.kind != "signs":
            raise ValueError(f"counted() and signs() are for sign-count scores, not "
                             f"{self.kind!r}")
        return [(c, float(w[0])) for c, w in zip(self.features.coords, self.weights, strict=True)
                if w[0] != 0]

    def signs(self, b: Any) -> tuple[np.ndarray, np.ndarray]:
        """For a "signs" score: the indicators ``1[o_j above its median]`` (runs × m) of the
        coordinates it counts, and their signs (±1), so that the score is ``indicators @ signs``
        (``count_model``)."""
        used = self.counted()
        a = np.asarray(b, dtype=float)
        ind = above_matrix([c for c, _ in used], a).astype(np.float32) if used \
            else np.zeros((len(a), 0))
        return ind, np.array([s for _, s in used])


def _block_scores(feats: StructureFeatures, ws: list[np.ndarray]) -> list[LinearScore]:
    """Naive-Bayes scores on the discrete blocks only, for outputs mixing blocks and continuous
    coordinates: every block's pattern log-ratio summed (its likelihood ratio when the blocks are
    independent, as the parts of a parallel composition are), and, with several blocks, each
    block alone (its likelihood-ratio order: the Neyman–Pearson events of that block's
    marginal).  The continuous coordinates' groups are left out: their per-coordinate cells
    repeat what the codes say (a sparse vector's released value is 0 exactly when its code is
    not ⊤) and add the noise of many weak cells (``ws``: the full naive-Bayes weights, the
    continuous coordinates' groups first, as ``StructureFeatures.cells`` orders them)."""
    owner = [-1] * sum(1 for c in feats.coords if not c.diff)
    for i, bl in enumerate(feats.blocks):
        owner += [i] if bl.patterns is not None else [i] * len(bl.cols)
    keep_sets = [set(range(len(feats.blocks)))]
    if len(feats.blocks) > 1:
        keep_sets += [{i} for i in range(len(feats.blocks))]
    out = []
    for keep in keep_sets:
        w = tuple(wi if o in keep else np.zeros_like(wi) for wi, o in zip(ws, owner, strict=True))
        cols = [c for i in sorted(keep) for c in feats.blocks[i].cols]
        what = (f"the {len(keep)} discrete blocks" if len(keep) > 1
                else f"the block o[{cols[0]}..{cols[-1]}]")
        out.append(LinearScore(feats, "cells", f"naive-Bayes log-ratio over the patterns of "
                               f"{what}", w))
    return out


def structure_scores(fit0: Any, fit1: Any, seed: int = 0) -> tuple[list[LinearScore], list[str]]:
    """The naive-Bayes, sign-count and logistic scores (see
    [`ltheory.privacy.auditing.features`][ltheory.privacy.auditing.features]) fitted on the fit half
    ``(fit0, fit1)``; returns (scores, notes)."""
    x0, x1 = np.asarray(fit0, dtype=float), np.asarray(fit1, dtype=float)
    feats = StructureFeatures.fit(x0, x1)
    if feats is None:
        return [], []
    scores = _naive_bayes_scores(feats, x0, x1) + _sign_count_scores(feats, x0, x1) \
        + _binary_count_scores(feats, x0, x1)
    logistic = _logistic_score(feats, x0, x1, seed)
    if logistic is None:
        return scores, ["scikit-learn not installed: classifier event family skipped"]
    return scores + [logistic], []


def _naive_bayes_scores(feats: StructureFeatures, x0: np.ndarray, x1: np.ndarray
                        ) -> list[LinearScore]:
    """Naive Bayes over group cells: coordinates (and blocks), or differences (and blocks)."""
    scores: list[LinearScore] = []
    for diff in (False, True):
        if diff and not any(c.diff for c in feats.coords):
            continue
        c0, c1 = feats.cells(x0, diff), feats.cells(x1, diff)
        ws, noise = [], []
        for a, b, m in zip(c0, c1, feats.n_cells(diff), strict=True):
            g0 = np.bincount(a[a >= 0], minlength=m)[:m] + 0.5
            g1 = np.bincount(b[b >= 0], minlength=m)[:m] + 0.5
            ws.append(np.log(g0 / g1) - np.log((len(x0) + 0.5) / (len(x1) + 0.5)))
            noise.append(1 / g0 + 1 / g1)         # the delta-method variance of each weight
        if ws:
            what = "coordinate" if not diff else "increment" if feats.leads else "difference"
            scores.append(LinearScore(feats, "cells-diff" if diff else "cells",
                                      f"naive-Bayes log-ratio over {len(ws)} {what}/pattern "
                                      "groups", tuple(ws)))
        if ws and not diff and feats.blocks and feats.coords:
            scores += _block_scores(feats, ws) + _pattern_side_scores(feats, x0, x1, ws, noise)
    return scores


def _pattern_side_scores(feats: StructureFeatures, x0: np.ndarray, x1: np.ndarray,
                         ws: list[np.ndarray], noise: list[np.ndarray]) -> list[LinearScore]:
    """Naive Bayes over the blocks' patterns and the *sides* of the released values, for
    outputs mixing blocks with continuous coordinates whose atoms mark "not released"
    (NumericalSVT: ⊤/⊥ codes, then the released answers q_i + Lap).  The log-likelihood ratio
    of such an output is the pattern's plus that of each released value given its release; for a
    shifted Laplace value the latter is nearly a sign (saturating at ±shift/scale outside the
    two means), so one pooled weight per side of the median, fitted on the released values of
    every coordinate together (each coordinate's side fitted as the sign count fits it, but
    among its released values only), reads them with 2 fitted numbers where the full naive
    Bayes fits 4 quartile cells per coordinate and counts the release twice (its atom cell
    repeats the pattern).  A pattern's log-ratio is the sum of its coordinates' own
    (``additive_pattern_weights``, with `ADDITIVE_PATTERNS`; else its own count's, shrunk
    towards 0 by its noise: positive-part James–Stein, w·max(0, 1 − var/w²), var = 1/c0 +
    1/c1).  The cells (pattern, count of released values on their d0 side) hold NumericalSVT's
    exact ceiling within 0.3% on ten of the eleven headline pairs at 10^6 and 10^7 runs per dataset
    (the pair moving one query: 0.89 and 0.97 of it), where the patterns alone reach 0.5–0.6 of
    it and the sign count 0.5–0.7; a naive Bayes of pattern and count with exact weights holds
    0.99 or more of those cells' ceiling on nine pairs (0.93–0.99 on the other two).  A
    coordinate is read only where its side is ``SIDE_Z`` standard errors clear (else weight 0:
    a query that does not move adds only noise).  Empty without such blocks (too many patterns)
    or without a coordinate whose side is clear.  ``ws``, ``noise``: the full naive Bayes's
    weights and their variances, whose last groups are the blocks' patterns."""
    coords = feats.family(False)
    if any(bl.patterns is None for bl in feats.blocks):
        return []
    sides, on, tot = [], np.zeros(2), np.zeros(2)
    for c in coords:
        ups = [c.up(v)[~np.isin(v, c.atoms)] for v in (c.values(x0), c.values(x1))]
        if min(len(u) for u in ups) == 0:
            sides.append(0)
            continue
        m0, m1 = ups[0].mean(), ups[1].mean()
        se = math.sqrt(m0 * (1 - m0) / len(ups[0]) + m1 * (1 - m1) / len(ups[1]))
        s = int(np.sign(m0 - m1)) if abs(m0 - m1) >= SIDE_Z * se else 0
        sides.append(s)
        if s:
            for i, u in enumerate(ups):
                on[i] += np.count_nonzero(u) if s > 0 else len(u) - np.count_nonzero(u)
                tot[i] += len(u)
    if not any(sides):
        return []
    p = (on + 0.5) / (tot + 1.0)
    near, far = math.log(p[0] / p[1]), math.log((1 - p[0]) / (1 - p[1]))
    out: list[np.ndarray] = []
    for c, s in zip(coords, sides, strict=True):
        w = np.zeros(c.n_cells())
        if s:
            k = np.arange(c.n_cells() - len(c.atoms))      # quartile cells: # quartiles ≤ v
            up = k > int(np.searchsorted(c.quartiles, c.median))
            w[len(c.atoms):] = np.where(up == (s > 0), near, far)
        out.append(w)
    if ADDITIVE_PATTERNS:
        out += [additive_pattern_weights(bl, x0, x1) for bl in feats.blocks]
    else:
        nb = len(feats.blocks)                 # one pattern group per block, the last ones
        for w, v in zip(ws[-nb:], noise[-nb:], strict=True):
            out.append(w * np.maximum(0.0, 1 - np.divide(v, w * w, out=np.full(w.shape, np.inf),
                                                         where=w != 0)))
    return [LinearScore(feats, "cells", "naive-Bayes log-ratio over the patterns and the "
                        "released values' sides of their medians", tuple(out))]


def additive_pattern_weights(bl: Block, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """Each of the block's patterns' log-ratio as the sum, over the block's coordinates, of the
    smoothed log-ratio ln((c0 + ½)/(c1 + ½)) of the value the pattern holds there (the
    coordinate's marginal counts on the fit half, less the runs' own log-ratio)."""
    pats = np.asarray(bl.patterns)
    w = np.zeros(len(pats))
    base = math.log((len(x0) + 0.5) / (len(x1) + 0.5))
    for j, col in enumerate(bl.cols):
        for v in np.unique(pats[:, j]):
            g0 = np.count_nonzero(x0[:, col] == v) + 0.5
            g1 = np.count_nonzero(x1[:, col] == v) + 0.5
            w[pats[:, j] == v] += math.log(g0 / g1) - base
    return w


def _sign_count_scores(feats: StructureFeatures, x0: np.ndarray, x1: np.ndarray
                       ) -> list[LinearScore]:
    """Sign counts, over coordinates and over increments (``StructureFeatures.family``)
    separately: the fitted signs, and the one-sign count (see
    [`ltheory.privacy.auditing.features`][ltheory.privacy.auditing.features]).
    """
    scores: list[LinearScore] = []
    for diff in (False, True):
        fam = {(c.col, c.diff) for c in feats.family(diff)}
        w = []
        used = 0
        for c in feats.coords:
            if (c.col, c.diff) not in fam:
                w.append(np.zeros(1))
                continue
            p0 = c.above(c.values(x0)).mean()
            p1 = c.above(c.values(x1)).mean()
            w.append(np.array([float(np.sign(p0 - p1))]))
            used += int(p0 != p1)
        what = "coordinates"
        if diff:
            what = "first differences" if not feats.leads else "increments (first differences; " \
                + ", ".join(f"o[{j}]" for j in feats.leads) + " from 0)"
        # the one-sign count: every atom-free coordinate of this kind, +1; when the fitted
        # signs are exactly ±those, the two counts are one statistic
        one = np.array([float((c.col, c.diff) in fam and not len(c.atoms))
                        for c in feats.coords])
        fitted = np.array([wi[0] for wi in w])
        if used >= 2 and not (np.array_equal(fitted, one) or np.array_equal(fitted, -one)):
            scores.append(LinearScore(feats, "signs", f"count of {used} {what} on their d0 side "
                                      "of the median", tuple(w)))
        if one.sum() >= 2:
            scores.append(LinearScore(
                feats, "signs", f"count of all {int(one.sum())} {what} above their median",
                tuple(one[:, None]), unfitted=True))
    return scores


def _binary_count_scores(feats: StructureFeatures, x0: np.ndarray, x1: np.ndarray
                         ) -> list[LinearScore]:
    """The sign count of the two-valued discrete coordinates: the number of coordinates of the
    blocks with two values (a sparse vector's ⊤/⊥ without a cutoff, RAPPOR's bits) at the value
    the fit half says is more likely under d0 (each read only where its shares differ, by the
    Benjamini–Hochberg procedure at ``BINARY_FDR`` over the block, else weight 0; the score is
    Σ ±1[o_j = the larger value], that count less the number of coordinates whose d0 value is
    the smaller).  Where a pair moves every query by the same amount this is the likelihood
    ratio's own statistic: SVT6's ten bits share one threshold noise, so they are not
    independent, yet on each of its six headline pairs the cuts of this count reach the exact
    ceiling of all 1,024 patterns (10^7 runs per dataset), where a fitted weight per bit or per
    pattern spends the selection split on noise (a score with a thousand values, whose best cut
    on the evaluation half is the luckiest).  Integer-valued, so its cuts are few; ``events``
    projects the cuts of every "bits" score by ``count_model.tilt_projections``.  Empty without
    two such coordinates."""
    out: list[np.ndarray] = []
    used = 0
    for bl in feats.blocks:
        if len(bl.values) != 2:
            out.append(np.zeros(len(bl.cols)))
            continue
        hi = bl.values[1]
        cols = list(bl.cols)
        m0, m1 = (x0[:, cols] == hi).mean(axis=0), (x1[:, cols] == hi).mean(axis=0)
        se = np.sqrt(m0 * (1 - m0) / len(x0) + m1 * (1 - m1) / len(x1))
        z = np.divide(np.abs(m0 - m1), se, out=np.zeros_like(se), where=se > 0)
        keep = false_discovery_control(2 * norm.sf(z)) <= BINARY_FDR
        sides = np.where(keep & (se > 0), np.sign(m0 - m1), 0.0)
        used += int(np.count_nonzero(sides))
        out.append(sides)
    if used < 2:
        return []
    return [LinearScore(feats, "bits", f"count of {used} two-valued discrete coordinates at "
                        "their d0 value", tuple(out))]


def _logistic_score(feats: StructureFeatures, x0: np.ndarray, x1: np.ndarray, seed: int
                    ) -> LinearScore | None:
    """Logistic regression on the structure features (None without scikit-learn)."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        return None
    rng = np.random.default_rng(seed)
    m = min(len(x0), len(x1), LOGISTIC_MAX_RUNS)
    i0 = rng.choice(len(x0), m, replace=False) if len(x0) > m else np.arange(len(x0))
    i1 = rng.choice(len(x1), m, replace=False) if len(x1) > m else np.arange(len(x1))
    groups0, groups1 = feats.groups(x0[i0]), feats.groups(x1[i1])
    x = np.vstack([np.hstack(groups0), np.hstack(groups1)])
    y = np.r_[np.ones(len(i0)), np.zeros(len(i1))]
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    clf = LogisticRegression(C=1.0, max_iter=300)
    clf.fit(x / scale, y)
    w = clf.coef_[0] / scale
    sizes = np.cumsum([g.shape[1] for g in groups0])[:-1]
    return LinearScore(feats, "linear", f"logistic regression on {x.shape[1]} structure "
                       "features", tuple(np.split(w.astype(float), sizes)),
                       float(clf.intercept_[0]))
