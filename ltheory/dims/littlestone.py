"""Exact Littlestone dimension by memoised branch and bound over version spaces.

Definitions (Littlestone 1988; Ben-David, Pál, Shalev-Shwartz 2009; Alon, Beimel, Moran, Stemmer
2020, §3.1): a *mistake tree* of depth d is a complete binary tree whose internal nodes are
labelled by domain points; a root-to-leaf path spells a labelled sample (x_1, y_1) ... (x_d, y_d),
y_i = 1 when the path goes to the "1" child.  H *shatters* the tree if every path is realised by
some h in H.  The Littlestone dimension Ldim(H) is the largest depth of a shattered tree
(Ldim(∅) = -1, Ldim({h}) = 0).  It satisfies the recursion

    Ldim(V) = max over points x that split V of 1 + min(Ldim(V_x^0), Ldim(V_x^1)),

where V_x^b = {h in V : h(x) = b}, and the bound Ldim(V) <= floor(log2 |V|).

Algorithm.  Version spaces are Python-int bitsets over the hypotheses of H (bit j = hypothesis
j), split points are the columns of H as bitsets.  ``LittlestoneSolver.bounds(V, need, cap)`` is a
fail-soft alpha-beta search: it returns proven bounds (lo, hi) on Ldim(V) and stops as soon as
lo >= cap (the caller needs no more), hi < need (V cannot help the caller), or lo == hi.
Bounds are memoised per version space and only ever tightened.  Inside a node:

* only points on which V is not constant are considered ("active" points, inherited from the
  parent, since a child's active points are a subset of its parent's);
* splits are deduplicated (two points with equal or complementary columns on V give the same
  split);
* splits are tried most balanced first: a split whose smaller side has s hypotheses is worth at
  most 1 + floor(log2 s), so the loop stops as soon as that cannot beat the best value found;
* the smaller side is solved first, and the larger side only up to the value of the smaller one.

The witness tree is rebuilt from the memo.  The Standard Optimal Algorithm (Littlestone 1988),
which predicts the label whose version space has the larger Ldim, is in `ltheory.dims.soa`
and shares this solver.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.budget import Budget, BudgetExpired
from ltheory.dims.reduce import on_distinct_columns
from ltheory.dims.result import DimensionResult
from ltheory.errors import InvalidInputError

_INF = 1 << 30

#: Up to this many candidate points, active points are found by one big-int test each; beyond,
#: by one numpy pass over the version space's rows (`LittlestoneSolver.active_points`).
ACTIVE_SCAN_POINTS = 512

#: Seconds the greedy lower bound may run after the budget ran out (plus 5% of the budget).
GREEDY_SECONDS = 0.25


class LittlestoneSolver:
    """Branch-and-bound Littlestone solver for one class; reusable across queries (SOA)."""

    def __init__(self, H: HypothesisClass, budget: Budget | None = None) -> None:
        self.H = H
        self.cols = H.column_bitsets()
        self.full = (1 << len(H)) - 1
        self.memo: dict[int, tuple[int, int]] = {}
        self.budget = budget
        self.nodes = 0
        self._strings: dict[int, str] = {}
        #: V -> the point of the split that proved memo[V]'s lower bound (for the witness)
        self.best_split: dict[int, int] = {}
        #: when set (a ``time.perf_counter()`` value), `greedy_tree` gives up past it
        self.greedy_deadline: float | None = None

    # ------------------------------------------------------------------ core search
    def active_points(self, V: int, candidates: list[int] | None = None) -> list[int]:
        """The points (of ``candidates``, default all) on which V is not constant.

        On a wide domain this is one numpy pass over V's rows of the packed class (OR and AND
        of the rows differ exactly on those points) instead of one big-int test per point:
        14,142 points with 14,143 hypotheses took ~3 ms a call (11 s for the 4,096 calls of a
        witness tree), now well under 1 ms for small V (issue 40)."""
        pts = range(len(self.cols)) if candidates is None else candidates
        cols = self.cols
        if len(pts) <= ACTIVE_SCAN_POINTS:
            return [x for x in pts if (cols[x] & V) not in (0, V)]
        m = self.full.bit_length()
        bits = np.unpackbits(np.frombuffer(V.to_bytes((m + 7) // 8, "little"), dtype=np.uint8),
                             count=m, bitorder="little")
        rows = self.H.packed[np.flatnonzero(bits)]
        if len(rows) <= 1:
            return []
        differ = np.bitwise_or.reduce(rows, axis=0) ^ np.bitwise_and.reduce(rows, axis=0)
        act = np.unpackbits(differ, count=self.H.domain_size, bitorder="little").astype(bool)
        if candidates is None:
            return np.flatnonzero(act).tolist()
        return [x for x in candidates if act[x]]

    def bounds(self, V: int, need: int, cap: int, active: list[int] | None = None
               ) -> tuple[int, int]:
        """Proven (lo, hi) with lo <= Ldim(V) <= hi; stops once lo >= cap, hi < need or lo == hi."""
        s = V.bit_count()
        if s <= 1:
            return s - 1, s - 1
        memo = self.memo
        entry = memo.get(V)
        if entry is None:
            lo, hi = 1, s.bit_length() - 1
        else:
            lo, hi = entry
        if lo >= cap or hi < need or lo == hi:
            return lo, hi
        self.nodes += 1
        if self.budget is not None and self.budget.expired():
            raise BudgetExpired
        cols = self.cols
        if active is None:
            active = self.active_points(V)
        # Collect the distinct splits of V, each as (smaller side, larger side).
        seen: set[int] = set()
        splits: list[tuple[int, int, int]] = []
        new_active: list[int] = []
        budget = self.budget
        for i, x in enumerate(active):
            if not i & 4095 and i and budget is not None and budget.expired():
                raise BudgetExpired  # a wide class: one node scans 10^5 points (~50 ms)
            a = cols[x] & V
            if a == 0 or a == V:
                continue
            new_active.append(x)
            b = V ^ a
            ca, cb = a.bit_count(), b.bit_count()
            if cb < ca:
                a, b, ca = b, a, cb
            if a in seen:
                continue
            seen.add(a)
            splits.append((ca, a, b, x))
        splits.sort(key=lambda t: t[0], reverse=True)
        best = lo
        upper_seen = lo  # max over explored splits of their proven upper bound
        cut = min(cap, hi)
        finished = True
        for ca, a, b, x in splits:
            bound = ca.bit_length()  # 1 + floor(log2 |smaller side|)
            if bound <= best:
                break  # neither this split nor any later one can beat best
            if max(upper_seen, bound) < need:
                upper_seen = max(upper_seen, bound)
                break  # nothing left can reach what the caller needs
            a_lo, a_hi = self.bounds(a, best, cut - 1, new_active)
            if a_hi < best:
                upper_seen = max(upper_seen, 1 + a_hi)
                continue
            b_lo, b_hi = self.bounds(b, best, min(cut - 1, a_lo), new_active)
            upper_seen = max(upper_seen, 1 + min(a_hi, b_hi))
            if b_hi < best:
                continue
            val = 1 + min(a_lo, b_lo)
            if val > best:
                best = val
                self.best_split[V] = x  # 1 + min of its sides' proven lower bounds = best
                if best >= cut:
                    finished = best >= hi
                    break
        else:
            finished = True
        new_lo = max(lo, best)
        new_hi = hi if not finished else min(hi, max(best, upper_seen))
        if new_lo > new_hi:  # pragma: no cover - would be a logic error
            raise AssertionError("Littlestone search produced inconsistent bounds")
        memo[V] = (new_lo, new_hi)
        return new_lo, new_hi

    def ldim(self, V: int) -> int:
        lo, hi = self.bounds(V, 0, _INF)
        while lo != hi:  # pragma: no cover - the unbounded call always resolves
            lo, hi = self.bounds(V, 0, _INF)
        return lo

    def at_least(self, V: int, d: int) -> bool:
        """Is Ldim(V) >= d?"""
        lo, hi = self.bounds(V, d, d)
        while lo < d <= hi:
            lo, hi = self.bounds(V, d, d)
        return lo >= d

    # ------------------------------------------------------------------ greedy lower bound
    def greedy_tree(self, V: int, d: int, nodes: list[int]) -> dict[str, Any] | None:
        """A mistake tree of depth d shattered by V built greedily -- every node splits on the
        most balanced point of its version space, no backtracking -- or None if that greedy
        tree is shallower than d or costs more than ``nodes[0]`` nodes (decremented).  Any
        tree it returns is a proof that Ldim(V) >= d."""
        if d == 0:
            return {"hypothesis": self.string((V & -V).bit_length() - 1)} if V else None
        if V.bit_count() < (1 << d) or nodes[0] <= 0:
            return None
        if self.greedy_deadline is not None and time.perf_counter() >= self.greedy_deadline:
            nodes[0] = 0
            return None
        nodes[0] -= 1
        best, best_x = 0, -1
        for x in self.active_points(V):
            a = (self.cols[x] & V).bit_count()
            side = min(a, V.bit_count() - a)
            if side > best:
                best, best_x = side, x
        if best < (1 << (d - 1)):
            return None
        a = self.cols[best_x] & V
        one = self.greedy_tree(a, d - 1, nodes)
        zero = None if one is None else self.greedy_tree(V ^ a, d - 1, nodes)
        if zero is None:
            return None
        return {"point": self.H.domain[best_x], "children": {"0": zero, "1": one}}

    def greedy_lower(self, V: int, max_nodes: int = 1 << 14
                     ) -> tuple[int, dict[str, Any] | None]:
        """The deepest greedy tree (`greedy_tree`) found by iterative deepening within
        ``max_nodes`` nodes in all: (depth, tree).  The fallback lower bound when the exact
        search runs out of budget before its root has a proven value beyond 1."""
        budget = [max_nodes]
        depth, tree = 0, None
        for d in range(1, V.bit_count().bit_length()):
            t = self.greedy_tree(V, d, budget)
            if t is None:
                break
            depth, tree = d, t
        return depth, tree

    # ------------------------------------------------------------------ witness
    def tree(self, V: int, d: int) -> dict[str, Any]:
        """A mistake tree of depth d shattered by V (requires Ldim(V) >= d)."""
        if d == 0:
            return {"hypothesis": self.string((V & -V).bit_length() - 1)}
        x = self.best_split.get(V)
        if x is not None:  # the split that proved the bound: no scan of every point (wide H)
            a = self.cols[x] & V
            if a not in (0, V) and self.at_least(a, d - 1) and self.at_least(V ^ a, d - 1):
                return {"point": self.H.domain[x],
                        "children": {"0": self.tree(V ^ a, d - 1), "1": self.tree(a, d - 1)}}
        if d == 1:  # any split will do (each side is a leaf): the first point V is split on
            x = self.active_points(V)[0]
            a = self.cols[x] & V
            return {"point": self.H.domain[x],
                    "children": {"0": self.tree(V ^ a, 0), "1": self.tree(a, 0)}}
        splits = [(x, self.cols[x] & V) for x in self.active_points(V)]
        memo = self.memo

        def proven(W: int) -> bool:
            s = W.bit_count()
            return (s - 1 if s <= 1 else memo.get(W, (1, 0))[0]) >= d - 1

        # Prefer splits already proven in the memo; fall back to searching.
        ordered = [t for t in splits if proven(t[1]) and proven(V ^ t[1])] + splits
        for x, a in ordered:
            b = V ^ a
            if self.at_least(a, d - 1) and self.at_least(b, d - 1):
                return {"point": self.H.domain[x],
                        "children": {"0": self.tree(b, d - 1), "1": self.tree(a, d - 1)}}
        raise AssertionError("no split reaches the claimed depth")  # pragma: no cover

    def string(self, j: int) -> str:
        """Hypothesis j as a '0'/'1' string (one row converted, not the whole class: 0.7 s on
        14,143 x 14,142 for the one leaf of a greedy tree)."""
        got = self._strings.get(j)
        if got is None:
            got = self._strings[j] = (self.H.matrix[j] + ord("0")).tobytes().decode("ascii")
        return got

    def witness(self, d: int) -> dict[str, Any] | None:
        return None if d < 0 else self.tree(self.full, d)


@on_distinct_columns
def littlestone_exact(H: HypothesisClass, budget: float | None = None) -> DimensionResult:
    """The Littlestone dimension of a finite class, with a shattered mistake tree as witness.

    The exact engine behind [`ltheory.littlestone_dimension`][ltheory.littlestone_dimension] (which
    adds ``method=`` and
    composed classes).

    ``budget`` is a time limit in seconds; when it runs out the result has ``exact=False`` and
    proven ``lower``/``upper`` bounds (``value`` = ``lower``, the witness certifies ``lower``).
    The empty class has dimension -1 (witness ``None``).
    """
    if not isinstance(H, HypothesisClass):
        raise InvalidInputError(
            f"littlestone_dimension needs a HypothesisClass, got {type(H).__name__}")
    t0 = time.perf_counter()
    bud = Budget(budget)
    m = len(H)
    if m <= 1:
        d = m - 1
        solver = LittlestoneSolver(H)
        return DimensionResult.proven("ldim", d, d, solver.witness(d),
                                      seconds=time.perf_counter() - t0,
                                      stats={"nodes": 0, "memo": 0})
    solver = LittlestoneSolver(H, bud)
    V = solver.full
    try:
        lo = solver.ldim(V)
        hi = lo
    except BudgetExpired:
        lo, hi = solver.memo.get(V, (1, m.bit_length() - 1))
    solver.budget = None  # the witness for a proven lower bound is cheap to rebuild
    stats: dict[str, Any] = {"nodes": solver.nodes, "memo": len(solver.memo)}
    if lo < hi:
        # Out of budget: the search proves values bottom-up, so its root may still sit at 1
        # (halfspaces g=4 dim=3 after 60 s).  A greedy tree is a cheap proven lower bound --
        # on narrow classes: on wide ones (10^4 hypotheses on 10^3 points: 23 s for its 2^13
        # nodes) it gets GREEDY_SECONDS + 5% of the budget past the deadline (issue 30).
        solver.greedy_deadline = time.perf_counter() + GREEDY_SECONDS + 0.05 * (budget or 0)
        depth, greedy = solver.greedy_lower(V)
        stats["greedy_depth"] = depth
        if depth > lo:
            lo = depth
            witness = greedy
            return DimensionResult.proven("ldim", lo, hi, witness,
                                          seconds=time.perf_counter() - t0, stats=stats)
    witness = solver.witness(lo)
    return DimensionResult.proven("ldim", lo, hi, witness,
                                  seconds=time.perf_counter() - t0, stats=stats)
