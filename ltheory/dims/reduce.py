"""Points no hypothesis separates, merged before any exact engine runs.

Two domain points x, y are *clones* for H if h(x) = h(y) for every h in H (equal columns of the
class matrix).  Merging every clone class into one representative (its first point) changes
none of the three dimensions, and every witness of the merged class is a witness of H:

* VC (Vapnik and Chervonenkis 1971): a shattered set never holds two clones (no hypothesis
  labels them 01), and a set of representatives is shattered by the merged class iff it is
  shattered by H (the same patterns on the same points).
* Littlestone (Littlestone 1988): a root-to-leaf path of a shattered mistake tree never
  repeats a clone class usefully -- two clones on one path are either labelled differently
  (no hypothesis realises the path) or alike (the second split is not a split) -- and any
  point of a tree can be swapped for its representative without changing which hypotheses
  realise which path.  The recursion Ldim(V) = max_x 1 + min(Ldim(V_x^0), Ldim(V_x^1)) only
  sees the split V_x^b, which clones share.
* threshold (Shelah 1978; Alon, Beimel, Moran, Stemmer 2020, §3.1): two points of a ladder are
  never clones (h_{i+1}(x_i) = 0 but h_{i+1}(x_j) = 1 for j > i), and a ladder's points can be
  swapped for their representatives.

Merging keeps the hypotheses distinct (a removed column copies a kept one) and in the same
order, so row r of the merged class is row r of H: a witness hypothesis is carried back by its
row.  Wide classes with few hypotheses collapse: m hypotheses have at most 2^m distinct columns,
so two hypotheses on 10^6 points leave at most 4 points.

`on_distinct_columns` wraps an exact engine so that it runs on the merged class and its
result (witness lifted to H's labels and hypothesis strings) is checked as usual by the caller.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass, pack_columns
from ltheory.dims.budget import check_budget
from ltheory.dims.result import DimensionResult

__all__ = ["ColumnReduction", "merge_equal_columns", "on_distinct_columns"]


@dataclass(frozen=True)
class ColumnReduction:
    """``H`` with its clone points merged: ``merged`` is the class on the representatives
    ``keep`` (domain indices of H, increasing; each the first point of its clone class), whose
    labels are H's labels of those points."""

    original: HypothesisClass
    merged: HypothesisClass
    keep: np.ndarray

    @property
    def reduced(self) -> bool:
        """Whether any point was merged."""
        return len(self.keep) < self.original.domain_size

    def hypothesis(self, merged_string: str) -> str:
        """The hypothesis of H (a '0'/'1' string over its whole domain) whose restriction to the
        representatives is ``merged_string`` (the same row)."""
        bits = np.frombuffer(merged_string.encode("ascii"), dtype=np.uint8) - ord("0")
        row = self._row_of[np.packbits(bits, bitorder="little").tobytes()]
        return (self.original.matrix[row] + ord("0")).astype(np.uint8).tobytes().decode("ascii")

    @functools.cached_property
    def _row_of(self) -> dict[bytes, int]:
        return {r.tobytes(): i for i, r in enumerate(self.merged.packed)}

    def lift(self, res: DimensionResult) -> DimensionResult:
        """``res`` (a result on ``merged``) as a result on H: hypotheses in the witness become
        H's hypotheses (by row); point labels are already H's."""
        w = res.witness
        if w is not None and res.kind == "ldim":
            w = _lift_tree(w, self.hypothesis)
        elif w is not None and res.kind == "tdim":
            w = dict(w) | {"hypotheses": [self.hypothesis(h) for h in w["hypotheses"]]}
        stats = dict(res.stats) | {"merged_points": {
            "points": self.original.domain_size, "distinct_columns": int(len(self.keep))}}
        return res.replace(witness=w, stats=stats)


def _lift_tree(node: dict[str, Any], back: Callable[[str], str]) -> dict[str, Any]:
    if "hypothesis" in node:
        return dict(node) | {"hypothesis": back(node["hypothesis"])}
    return dict(node) | {"children": {b: _lift_tree(c, back)
                                      for b, c in node["children"].items()}}


def distinct_columns(M: np.ndarray, packed: np.ndarray | None = None) -> np.ndarray:
    """The index of the first occurrence of every distinct column of a 0/1 matrix, increasing.

    Columns are packed along the hypotheses (one byte per 8 rows) and compared as byte strings
    (one sort of the columns): O(|H| |X|) bit operations."""
    m, n = M.shape
    if n <= 1 or m == 0:
        return np.arange(min(n, 1) if m == 0 else n)
    cols = pack_columns(M) if packed is None else packed
    keys = cols.view(f"V{cols.shape[1]}").ravel()
    _, first = np.unique(keys, return_index=True)
    return np.sort(first)


def merge_equal_columns(H: HypothesisClass) -> ColumnReduction:
    """H with every class of clone points (equal columns) merged into its first point.

    Computed once per class (H is immutable): the dimensions of one command share it."""
    cached = H.__dict__.get("_column_reduction")
    if cached is not None:
        return cached
    keep = distinct_columns(H.matrix, H.packed_columns() if len(H) else None)
    if len(keep) == H.domain_size:
        red = ColumnReduction(H, H, keep)
    else:
        merged = HypothesisClass(H.matrix[:, keep], [H.domain[i] for i in keep.tolist()],
                                 name=H.name, _trusted=True)
        if len(merged) != len(H):  # pragma: no cover - a removed column copies a kept one
            raise AssertionError("merging clone points identified two hypotheses")
        red = ColumnReduction(H, merged, keep)
    H.__dict__["_column_reduction"] = red
    return red


def on_distinct_columns(engine: Callable[..., DimensionResult]
                        ) -> Callable[..., DimensionResult]:
    """Run ``engine(H, budget, ...)`` on H with its clone points merged, and lift the result
    back to H (module doc).  The budget counts the merging time."""

    @functools.wraps(engine)
    def wrapped(H: Any, budget: float | None = None, *args: Any, **kwargs: Any
                ) -> DimensionResult:
        if not isinstance(H, HypothesisClass) or H.domain_size <= 1 or len(H) == 0:
            return engine(H, budget, *args, **kwargs)  # the engine validates its input
        budget = check_budget(budget)
        t0 = time.perf_counter()
        red = merge_equal_columns(H)
        if not red.reduced:
            return engine(H, budget, *args, **kwargs)
        left = None if budget is None else max(budget - (time.perf_counter() - t0), 1e-3)
        res = red.lift(engine(red.merged, left, *args, **kwargs))
        return res.replace(seconds=time.perf_counter() - t0)

    return wrapped
