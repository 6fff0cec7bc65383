"""Exact threshold dimension with a threshold ladder as witness.

Definition (Shelah 1978; Hodges 1997; Alon, Beimel, Moran, Stemmer 2020, §3.1): points
x_1, ..., x_k are *threshold-shattered* by H if there are h_1, ..., h_k in H with
h_i(x_j) = 1 iff i <= j.  The threshold dimension T(H) is the largest such k (T(∅) = -1 by
convention; T(H) = 0 when every hypothesis is identically 0).  Shelah's theorem (ABMS20,
Thm. 3.2): T(H) >= floor(log2 Ldim(H)) and Ldim(H) >= floor(log2 T(H)).

Algorithm.  A ladder is a sequence of *pairs* p_i = (h_i, x_i) with h_i(x_i) = 1.  Pair a may
stand before pair b iff h_a(x_b) = 1 and h_b(x_a) = 0 (write a -> b); a sequence is a ladder
iff a -> b for every earlier a and later b (distinctness of points and hypotheses follows).  So
T(H) is the longest sequence in which every earlier pair points to every later one.  After a
prefix, the pairs that may follow it form the candidate set C (the intersection of the
successor sets of the prefix), and the longest continuation depends on C alone:

    L(C) = max over b in C of 1 + L(C ∩ succ(b)),   L(∅) = 0.

We memoise L on C (a Python-int bitset over the pairs) and prune a branch when 1 + the
number of distinct points (or hypotheses) in C ∩ succ(b) cannot beat the best value known;
the whole search is capped by T <= min(|H|, |X|).  First, T = |X| is decided in one pass
(:func:`full_domain_ladder`: a ladder through every point is a chain of suffix sets in H), so
the search proper starts below |X| (thresholds on [4096]: T = 4096 in ~4 s, mostly the
independent certificate check of the 4096 x 4096 ladder).  A greedy ladder gives the first lower
bound; the target is then raised one step at a time, each step either finding a longer
ladder or proving there is none.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.budget import Budget, BudgetExpired
from ltheory.dims.result import DimensionResult
from ltheory.errors import BudgetExceededError, InvalidInputError

#: Pairs (h, x) with h(x) = 1 beyond which the exact search refuses to start (its successor
#: bitsets alone would take P^2/8 bytes, ~1.8 GB here); the SAT ladder search has no such limit.
MAX_PAIRS = 120_000
#: Cells of the boolean block built at a time for the successor sets (16 MB per operand).
BLOCK_CELLS = 1 << 24


class _ThresholdSearch:
    def __init__(self, H: HypothesisClass, budget: Budget | None) -> None:
        M = H.matrix
        hs, xs = np.nonzero(M)
        self.h_of = hs.tolist()
        self.x_of = xs.tolist()
        P = len(hs)
        self.P = P
        if P > MAX_PAIRS:
            raise BudgetExceededError(
                f"the exact threshold search on {len(H)} hypotheses needs {P} (h, x) pairs with "
                f"h(x) = 1, and its successor sets take P^2/8 bytes (more than {MAX_PAIRS} "
                "pairs is refused); use method='sat' (the SAT ladder search)")
        # succ[a] = bitset of pairs b with h_a(x_b) = 1 and h_b(x_a) = 0, built in row blocks so
        # the peak is the packed bitsets (P^2/8 bytes) plus a block, never a dense P x P matrix.
        self.succ = []
        Mb = M.astype(bool)
        block = max(1, BLOCK_CELLS // max(P, 1))
        for start in range(0, P, block):
            a = np.arange(start, min(P, start + block))
            ha_xb = Mb[np.ix_(hs[a], xs)]          # [a, b] = h_a(x_b)
            hb_xa = Mb[np.ix_(hs, xs[a])].T        # [a, b] = h_b(x_a)
            packed = np.packbits(ha_xb & ~hb_xa, axis=1, bitorder="little")
            self.succ.extend(int.from_bytes(row.tobytes(), "little") for row in packed)
        # Masks of the pairs sharing a point, to count distinct points in a candidate set.
        self.point_masks = self._group_masks(xs, M.shape[1])
        self.hyp_masks = self._group_masks(hs, M.shape[0])
        self.memo: dict[int, int] = {}
        self.budget = budget
        self.nodes = 0

    @staticmethod
    def _group_masks(keys: np.ndarray, size: int) -> list[int]:
        masks = [0] * size
        for i, k in enumerate(keys.tolist()):
            masks[k] |= 1 << i
        return [mk for mk in masks if mk]

    def _distinct(self, C: int) -> int:
        """An upper bound on the ladder length inside C: min(#points, #hypotheses) in C."""
        pts = sum(1 for mk in self.point_masks if mk & C)
        if pts <= 2:
            return pts
        hyps = 0
        for mk in self.hyp_masks:
            if mk & C:
                hyps += 1
                if hyps >= pts:
                    return pts
        return hyps

    def longest(self, C: int, need: int) -> int:
        """L(C) exactly if L(C) >= need; otherwise some value < need (a proven upper bound)."""
        if C == 0:
            return 0
        got = self.memo.get(C)
        if got is not None and (got >= 0 or -got - 1 < need):
            # exact value, or an upper bound (stored as -(ub+1)) still below what we need
            return got if got >= 0 else -got - 1
        self.nodes += 1
        if self.budget is not None and self.budget.expired():
            raise BudgetExpired
        ub = self._distinct(C)
        if ub < need:
            self.memo[C] = -(ub + 1)
            return ub
        best = 0
        branches = []
        skipped = 0  # upper bound on the branches not explored (each worth <= 1 + its points)
        rest = C
        pmasks = self.point_masks
        while rest:
            low = rest & -rest
            b = low.bit_length() - 1
            rest ^= low
            nxt = C & self.succ[b]
            pts = 0  # a ladder continuing after b uses distinct points of nxt
            for mk in pmasks:
                if mk & nxt:
                    pts += 1
            if 1 + pts >= need:
                branches.append((pts, nxt))
            else:
                skipped = max(skipped, 1 + pts)
        branches.sort(key=lambda t: -t[0])
        explored = 0  # max over explored branches of a proven upper bound on their value
        for pts, nxt in branches:
            if 1 + pts <= best:
                skipped = max(skipped, 1 + pts)
                break
            target = max(best, need - 1)
            val = 1 + self.longest(nxt, target)  # exact if >= 1 + target, else an upper bound
            explored = max(explored, val)
            if val > best:
                best = val
                if best >= ub:
                    break
        if best >= need or best >= ub:
            self.memo[C] = best  # exact: every branch not explored is worth <= best
            return best
        upper = min(max(best, explored, skipped, 1), need - 1)
        self.memo[C] = -(upper + 1)
        return upper

    def greedy_ladder(self, C: int) -> list[int]:
        """A ladder built greedily, each step keeping the largest candidate set (a lower bound)."""
        out: list[int] = []
        while C:
            best_b, best_next = -1, -1
            rest = C
            while rest:
                low = rest & -rest
                b = low.bit_length() - 1
                rest ^= low
                size = (C & self.succ[b]).bit_count()
                if size > best_next:
                    best_b, best_next = b, size
            out.append(best_b)
            C &= self.succ[best_b]
        return out

    def ladder(self, C: int, k: int) -> list[int]:
        """A sequence of k pairs in C forming a ladder (requires L(C) >= k)."""
        out: list[int] = []
        while k > 0:
            rest = C
            while rest:
                low = rest & -rest
                b = low.bit_length() - 1
                rest ^= low
                nxt = C & self.succ[b]
                if self.longest(nxt, k - 1) >= k - 1:
                    out.append(b)
                    C, k = nxt, k - 1
                    break
            else:  # pragma: no cover - would be a logic error
                raise AssertionError("no continuation reaches the claimed length")
        return out


def full_domain_ladder(H: HypothesisClass) -> tuple[list[int], list[int]] | None:
    """Whether T(H) = |X|: a ladder through *every* point, as (point indices x_1..x_n, hypothesis
    indices h_1..h_n), or None when there is none (then T(H) <= |X| - 1).

    A ladder on all n points fixes each h_i on the whole domain: h_i = {x_i, ..., x_n}.  So
    T(H) = n iff H contains a chain X = A_1 ⊃ A_2 ⊃ ... ⊃ A_n with |A_i| = n - i + 1, each set
    one point smaller than the last; x_i is the point A_i loses (x_n the point of A_n).  A
    depth-first search over such chains, remembering the sets from which no chain reaches a
    singleton, visits each hypothesis at most once: O(|H| · n) set operations.
    """
    n = H.domain_size
    if n == 0 or len(H) < n:
        return None
    packed = np.packbits(H.matrix.astype(bool), axis=1, bitorder="little")
    index = {int.from_bytes(row.tobytes(), "little"): r for r, row in enumerate(packed)}
    full = (1 << n) - 1
    if full not in index:
        return None
    dead: set[int] = set()
    path = [full]                      # the chain so far; a stack of sets
    tried: list[int] = [0]             # per level: the next point to try removing
    while path:
        A = path[-1]
        if A.bit_count() == 1:
            chain = path
            points = [(chain[i] ^ chain[i + 1]).bit_length() - 1 for i in range(n - 1)]
            points.append(chain[-1].bit_length() - 1)
            return points, [index[a] for a in chain]
        x = tried[-1]
        while x < n and not (A >> x & 1 and (A ^ (1 << x)) in index
                             and (A ^ (1 << x)) not in dead):
            x += 1
        if x == n:
            dead.add(A)
            path.pop()
            tried.pop()
            continue
        tried[-1] = x + 1
        path.append(A ^ (1 << x))
        tried.append(0)
    return None


def ladder_witness(H: HypothesisClass, points: list[int], hyps: list[int]) -> dict[str, Any]:
    """The JSON witness of a ladder given as point and hypothesis (row) indices of H."""
    strings = H.to_strings()
    return {"points": [H.domain[x] for x in points], "hypotheses": [strings[h] for h in hyps]}


def threshold_dimension(H: Any, budget: float | None = None,
                        method: str = "auto") -> DimensionResult:
    """The threshold dimension of a finite or lazily composed class, with a threshold ladder as
    witness.

    ``method``: ``"exact"`` (the search below; a composed class is materialised first within the
    size budget), ``"sat"`` (:func:`ltheory.sat.sat_threshold`) or ``"auto"``
    (:func:`ltheory.sat.dispatch.choose`).  See :func:`_threshold_exact` for the budget semantics.
    """
    from ltheory.sat.dispatch import dispatch

    return dispatch("tdim", H, budget, method, _threshold_exact)


def _threshold_exact(H: HypothesisClass, budget: float | None = None) -> DimensionResult:
    """The threshold dimension of a finite class, with a ladder
    ``{"points": [x1..xk], "hypotheses": [h1..hk]}`` (h_i(x_j) = 1 iff i <= j) as witness.

    ``budget`` is a time limit in seconds; when it runs out the result has ``exact=False`` with
    proven ``lower`` and ``upper``.  The empty class has threshold dimension -1.
    """
    if not isinstance(H, HypothesisClass):
        raise InvalidInputError(
            f"threshold_dimension needs a HypothesisClass, got {type(H).__name__}")
    t0 = time.perf_counter()
    bud = Budget(budget)
    if len(H) == 0:
        return DimensionResult("tdim", -1, None, True, -1, -1, time.perf_counter() - t0, {})
    top = full_domain_ladder(H)            # T = |X| exactly, or T <= |X| - 1, in O(|H| |X|)
    if top is not None:
        n = H.domain_size
        return DimensionResult("tdim", n, ladder_witness(H, *top), True, n, n,
                               time.perf_counter() - t0,
                               {"nodes": 0, "method": "full-domain chain"})
    search = _ThresholdSearch(H, bud)
    full = (1 << search.P) - 1
    # no chain through every point (above), so T <= |X| - 1 (T = 0 on an empty domain)
    upper = min(len(H), max(H.domain_size - 1, 0))
    best_seq = search.greedy_ladder(full)
    lower = len(best_seq)
    exact = True
    try:
        # Raise the target one step at a time: each step either finds a longer ladder or
        # proves that none exists (L(full) < target).
        while lower < upper:
            val = search.longest(full, lower + 1)
            if val < lower + 1:
                upper = lower
                break
            # The ladder of length val is proven (memoised); rebuild it without the budget so the
            # witness always certifies the bound we report.
            search.budget, saved = None, search.budget
            best_seq = search.ladder(full, val)
            search.budget = saved
            lower = val
    except BudgetExpired:
        exact = False
    witness = ladder_witness(H, [search.x_of[p] for p in best_seq],
                             [search.h_of[p] for p in best_seq])
    return DimensionResult("tdim", lower, witness, exact and lower == upper, lower, upper,
                           time.perf_counter() - t0,
                           {"nodes": search.nodes, "memo": len(search.memo), "pairs": search.P})
