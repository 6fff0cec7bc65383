"""Exact VC dimension with a shattered set as witness.

Definition (Vapnik and Chervonenkis 1971): S ⊆ X is *shattered* by H if H|_S = {0,1}^S; VC(H)
is the largest size of a shattered set (VC(∅) = -1 by convention, VC({h}) = 0).

Algorithm.  Shattered sets are closed under subsets, so VC(H) >= d iff some d-set is shattered,
and VC(H) = L exactly once an L-set is found and no (L+1)-set exists.  We

1. find a lower bound L heuristically: greedy growth from every start point, then a beam search
   over shattered sets ranked by how evenly their cells are filled (the number of pairs of
   hypotheses with equal patterns; a shattered d-set in a class of ~2^(d+1) hypotheses needs
   near-uniform cells, so this ranking keeps subsets of large shattered sets near the top);
2. run an exhaustive depth-first search for a shattered (L+1)-set; if one is found L grows and
   the search repeats, otherwise L is exact.  The exhaustive search runs with a node limit
   that doubles per round, and each time the limit is hit the beam is widened 4x first (so the
   beams together cost at most 4/3 of the last one), so a cheap witness is found before an
   expensive refutation is attempted.  The beam aims at L + 1: it keeps only sets whose cells
   are large enough to be shattered by the remaining points (the exhaustive search's test).

Only step 2 proves anything: the heuristics only supply witnesses, which are checked.

The search for a shattered d-set keeps, for the current set S (|S| = k), the cell of every
hypothesis (its pattern on S).  S extends to a shattered d-set S ∪ T only if every cell
shatters T, which needs every cell to hold >= 2^(d-k) hypotheses (the bound 2^d <= |H| applied
cell by cell) and every point of T to split every cell with >= 2^(d-k-1) hypotheses on each
side.  Candidate points are filtered by that test, vectorised over all candidates at once
(``numpy.add.reduceat`` over the hypotheses sorted by cell), and the filter is inherited by the
children (it is monotone).  Candidates are tried best-balanced first, and each set is generated
once (children only take candidates after the chosen one).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.budget import Budget, BudgetExpired
from ltheory.dims.result import DimensionResult
from ltheory.errors import InvalidInputError

_MAX_BEAM = 1 << 14


class _NodeLimit(Exception):
    """Internal: the exhaustive search hit its node limit for this round."""


class _VCSearch:
    def __init__(self, H: HypothesisClass, budget: Budget | None) -> None:
        # Columns as int8 so counting is cheap; only points on which H is not constant matter.
        M = H.matrix
        self.H = H
        self.m = M.shape[0]
        self.M = M
        self.budget = budget
        self.nodes = 0
        self.node_limit: int | None = None
        self.M16 = M.astype(np.int16)

    def _refine_scores(self, codes: np.ndarray, k: int, cand: np.ndarray,
                       with_collisions: bool = False) -> Any:
        """For each candidate point y: min over the cells of S of min(#ones, #zeros) of y in
        that cell (and, if asked, the number of pairs of hypotheses that S + y does not
        separate: lower means more evenly filled cells)."""
        order = np.argsort(codes, kind="stable")
        sizes = np.bincount(codes, minlength=1 << k)
        if (sizes == 0).any():
            empty = np.full(len(cand), -1)
            return (empty, empty) if with_collisions else empty
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        sub = self.M16[order][:, cand]
        ones = np.add.reduceat(sub, starts, axis=0).astype(np.int64)
        zeros = sizes[:, None] - ones
        mins = np.minimum(ones, zeros).min(axis=0)
        if with_collisions:
            return mins, (ones * ones + zeros * zeros).sum(axis=0)
        return mins

    def greedy(self, start: list[int] | None = None) -> list[int]:
        """Grow a shattered set from ``start`` by the point giving the most balanced cells."""
        S: list[int] = []
        codes = np.zeros(self.m, dtype=np.int64)
        cand = np.arange(self.M.shape[1])
        for x in start or []:
            S.append(x)
            codes = codes * 2 + self.M[:, x]
            cand = cand[cand != x]
        while len(cand):
            if self.budget is not None and self.budget.expired():
                break
            scores = self._refine_scores(codes, len(S), cand)
            ok = scores >= 1
            if not ok.any():
                break
            j = int(np.argmax(np.where(ok, scores, -1)))
            x = int(cand[j])
            S.append(x)
            codes = codes * 2 + self.M[:, x]
            cand = cand[ok]
            cand = cand[cand != x]
        return S

    def multistart_greedy(self) -> list[int]:
        """The best greedy shattered set over every starting point (a cheap lower bound)."""
        best = self.greedy()
        scores = self._refine_scores(np.zeros(self.m, dtype=np.int64), 0,
                                     np.arange(self.M.shape[1]))
        for x in np.flatnonzero(scores >= 1):
            S = self.greedy([int(x)])
            if len(S) > len(best):
                best = S
        return best

    def beam(self, width: int, target: int = 0) -> list[int]:
        """Best-first beam over shattered sets, keeping the ``width`` sets whose cells are most
        evenly filled (fewest pairs of hypotheses sharing a pattern) at each size.

        With a ``target`` size, a set S of size k is kept only if every cell can still be
        shattered by target - k more points (>= 2^(target-k) hypotheses per cell; the
        exhaustive search's test), so the beam spends its width on sets that can reach it."""
        m, n = self.M.shape
        level: list[tuple[int, ...]] = [()]
        best: tuple[int, ...] = ()
        weights = [1 << x for x in range(n)]
        for k in range(n):
            keys: list[np.ndarray] = []
            scores: list[np.ndarray] = []
            for S in level:
                if self.budget is not None and self.budget.expired():
                    return list(best)
                codes = np.zeros(m, dtype=np.int64)
                for x in S:
                    codes = codes * 2 + self.M[:, x]
                sizes = np.bincount(codes, minlength=1 << k)
                order = np.argsort(codes, kind="stable")
                starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
                ones = np.add.reduceat(self.M16[order], starts, axis=0).astype(np.int64)
                zeros = sizes[:, None] - ones
                need = 1 << max(target - k - 1, 0)
                ok = np.minimum(ones, zeros).min(axis=0) >= need
                ok[list(S)] = False
                ys = np.flatnonzero(ok)
                if not len(ys):
                    continue
                base = sum(weights[x] for x in S)
                keys.append(np.array([base + weights[y] for y in ys], dtype=object))
                scores.append((ones[:, ys] ** 2 + zeros[:, ys] ** 2).sum(axis=0))
            if not keys:
                break
            allkeys = np.concatenate(keys)
            allscores = np.concatenate(scores)
            order = np.argsort(allscores, kind="stable")
            chosen: list[int] = []
            seen: set[int] = set()
            for i in order:
                key = allkeys[i]
                if key not in seen:
                    seen.add(key)
                    chosen.append(key)
                    if len(chosen) >= width:
                        break
            level = [tuple(x for x in range(n) if key >> x & 1) for key in chosen]
            best = level[0]
        return list(best)

    def find(self, d: int) -> list[int] | None:
        """A shattered set of size d, or None if there is none (exhaustive)."""
        if d <= 0:
            return []
        if (1 << d) > self.m or d > self.M.shape[1]:
            return None
        codes = np.zeros(self.m, dtype=np.int64)
        return self._dfs(codes, [], np.arange(self.M.shape[1]), d)

    def _dfs(self, codes: np.ndarray, S: list[int], cand: np.ndarray, d: int) -> list[int] | None:
        self.nodes += 1
        if self.budget is not None and self.budget.expired():
            raise BudgetExpired
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise _NodeLimit
        k = len(S)
        r = d - k  # points still needed
        if len(cand) < r:
            return None
        scores, collisions = self._refine_scores(codes, k, cand, with_collisions=True)
        need = 1 << (r - 1)
        keep = scores >= need
        cand, collisions = cand[keep], collisions[keep]
        if len(cand) < r:
            return None
        if r == 1:
            return S + [int(cand[0])]
        order = np.argsort(collisions, kind="stable")  # most evenly filled cells first
        cand = cand[order]
        for i in range(len(cand) - r + 1):
            x = int(cand[i])
            found = self._dfs(codes * 2 + self.M[:, x], S + [x], cand[i + 1:], d)
            if found is not None:
                return found
        return None


def vc_dimension(H: Any, budget: float | None = None, method: str = "auto") -> DimensionResult:
    """The VC dimension of a finite or lazily composed class, with a shattered set as witness.

    ``method``: ``"exact"`` (the search below; a composed class is materialised first within the
    size budget), ``"sat"`` (:func:`ltheory.sat.sat_vc`) or ``"auto"``
    (:func:`ltheory.sat.dispatch.choose`).  See :func:`_vc_exact` for the budget semantics.
    """
    from ltheory.sat.dispatch import dispatch

    return dispatch("vc", H, budget, method, _vc_exact)


def _vc_exact(H: HypothesisClass, budget: float | None = None) -> DimensionResult:
    """The VC dimension of a finite class, with a shattered set (list of labels) as witness.

    ``budget`` is a time limit in seconds; when it runs out the result has ``exact=False``,
    ``lower`` certified by the witness and ``upper`` the smallest size not yet ruled out, minus
    one.  The empty class has VC dimension -1 (witness ``None``).
    """
    if not isinstance(H, HypothesisClass):
        raise InvalidInputError(f"vc_dimension needs a HypothesisClass, got {type(H).__name__}")
    t0 = time.perf_counter()
    bud = Budget(budget)
    m, n = len(H), H.domain_size
    if m == 0:
        return DimensionResult("vc", -1, None, True, -1, -1, time.perf_counter() - t0, {})
    search = _VCSearch(H, bud)
    upper = min(n, m.bit_length() - 1)
    exact = True
    best: list[int] = []
    try:
        best = search.multistart_greedy()
        width, limit = 256, 500
        if len(best) < upper:
            wide = search.beam(width, len(best) + 1)
            best = wide if len(wide) > len(best) else best
        while len(best) < upper:
            search.node_limit = search.nodes + limit
            try:
                found = search.find(len(best) + 1)
            except _NodeLimit:
                width, limit = width * 4, limit * 2
                if width <= _MAX_BEAM:
                    wide = search.beam(width, len(best) + 1)
                    best = wide if len(wide) > len(best) else best
                else:
                    search.node_limit = None
                continue
            if found is None:
                upper = len(best)
                break
            best = found
    except BudgetExpired:
        exact = False
    lower = len(best)
    witness = [H.domain[i] for i in sorted(best)]
    return DimensionResult("vc", lower, witness, exact and lower == upper, lower, upper,
                           time.perf_counter() - t0, {"nodes": search.nodes})
