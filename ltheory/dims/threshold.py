"""Exact threshold dimension with a threshold ladder as witness.

Definition (Shelah 1978; Hodges 1997; Alon, Beimel, Moran, Stemmer 2020, §3.1): points
x_1, ..., x_k are *threshold-shattered* by H if there are h_1, ..., h_k in H with
h_i(x_j) = 1 iff i <= j.  The threshold dimension T(H) is the largest such k (T(∅) = -1 by
convention; T(H) = 0 when every hypothesis is identically 0).  Shelah's theorem (ABMS20,
Thm. 3.2): T(H) >= floor(log2 Ldim(H)) and Ldim(H) >= floor(log2 T(H)).

Algorithm.  Write a ladder as the sequence of pairs (x_i, h_i).  After choosing x_1, the rest
of the ladder is a ladder of the *sub-problem* with points U' = (h_1 restricted to the points
still allowed) minus x_1, and hypotheses those with h(x_1) = 0; so T is computed by the recursion

    L(Z, U) = max over x in U and h in Z with h(x) = 1 of
              1 + L({h' in Z : h'(x) = 0}, (h ∩ U) minus {x}),       L = 0 when nothing is left,

where Z is the set of hypotheses still allowed and U the set of points.  Three facts make the
search small:

* L(Z, U) depends only on the *traces* {h ∩ U : h in Z} (a set of subsets of U), which is the
  memo key; a child's traces are computed from its parent's traces, never from all of H;
* for a fixed x only the traces containing x that are *maximal* under inclusion need trying
  (a larger h ∩ U leaves a superset of points, and L is monotone);
* a ladder of length k uses k distinct traces, the i-th of size >= k - i + 1 (it contains
  x_i, ..., x_k), so if the j-th largest trace has s_j points, L <= max{k : s_j + j - 1 >= k
  for all j <= k}; branches are tried largest trace first and cut as soon as 1 + |h ∩ U| - 1
  cannot beat the best value or the target.

Symmetry (issue 16).  With ``symmetry`` on (by default when the class has a nontrivial
automorphism group, e.g. GL(n, 2) for parities, bit flips and coordinate permutations for
conjunctions), two more rules, each proved here and tested against brute force
(``tests/test_threshold_symmetry.py``):

* the memo key is the node's *canonical form* (`ltheory.dims.symmetry`, nauty): a bijection
  π of the points maps ladders of a trace set onto ladders of its image (membership is kept),
  so L is an isomorphism invariant and isomorphic nodes -- however they were reached -- share
  one memo entry;
* a node branches once per orbit of its automorphism group Aut(traces) on the pairs (x, t) with
  t maximal and x in t: automorphisms keep inclusion, so this set of pairs is invariant, and for
  g in Aut the child of (g x, g t) is g applied to the child of (x, t) (the traces s with
  x not in s, cut to t minus x, are mapped onto those with g x not in g s, cut to g t minus g x,
  because g permutes the traces), so both children have the same L.

Orbits of pairs are the connected components of the graph joining each pair to its images under
nauty's generators.  For parities and conjunctions the number of distinct nodes falls from
~150,000 (parities n=6) to one or two per depth: T(parities n=8) = 8 in ~0.5 s, T(conjunctions
n=7) = 8 in ~1.5 s, parities n=10 and conjunctions n=8 in ~20 s and ~35 s
(``benchmarks/bench_dims.py``; previously undecided within 60 s).

At the root, T = |X| is decided first in one pass (`full_domain_ladder`: a ladder through
every point is a chain of suffix sets in H), and the search is capped by T <= |H|, T <= |X| - 1
and Shelah's bound T <= 2^(Ldim+1) - 1 (ABMS20 Thm. 3.2, i.e. Ldim >= floor(log2 T)), with the
Littlestone dimension's proven upper bound computed under a small share of the budget.  A greedy
ladder gives the first lower bound; the target is then raised one step at a time, each step either
finding a longer ladder or proving there is none.  Measured (``benchmarks/bench_dims.py``):
random 120 x 16 classes in ~0.1 s, where the previous search over (h, x) pairs with successor
bitsets took up to 1.2 s, and MAJ3 of a random 60 x 16 class (14,311 hypotheses) in ~0.3 s,
where the pair search refused the class (its P^2/8-byte successor sets) and SAT took ~20 s.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.budget import Budget, BudgetExpired
from ltheory.dims.littlestone import littlestone_exact
from ltheory.dims.reduce import on_distinct_columns
from ltheory.dims.result import DimensionResult
from ltheory.dims.symmetry import SetSystem, SymmetryUnavailable, pair_orbits
from ltheory.errors import InvalidInputError

#: Past the budget, a ladder through every point is still written out when it has at most this
#: many cells (n^2): a small witness costs nothing, a large one (14,142 points: 2*10^8 cells,
#: ~0.5 s) is not worth overrunning the budget for.
WITNESS_AFTER_BUDGET_CELLS = 1 << 20

#: Seconds per cell (n^2) of writing out a ladder through every point and checking it (measured
#: 0.3-0.5 s each for 14,142 points); a larger ladder is written only when this fits the time
#: left -- a witness that cannot be checked in time is shown by no caller.
WITNESS_SECONDS_PER_CELL = 6e-9

#: Share of the budget (and at most this many seconds) given to the Littlestone dimension whose
#: upper bound caps the search (T <= 2^(Ldim+1) - 1).
LDIM_CAP_SECONDS = 1.0

#: Nodes with fewer traces are memoised as they are (canonical forms cost more than they save).
SYMMETRY_MIN_TRACES = 4

#: Largest graph (pairs x generators) whose components give the branch orbits directly; beyond,
#: one nauty call per point orbit (stabiliser orbits) is cheaper.
PAIR_GRAPH_MAX_EDGES = 200_000

Traces = frozenset  # a frozenset of Python-int bitsets over the domain


class _LadderSearch:
    """The memoised search for the longest ladder; a node is a frozenset of traces."""

    def __init__(self, H: HypothesisClass, budget: Budget | None,
                 symmetry: bool = False) -> None:
        self.rows = [int.from_bytes(r.tobytes(), "little") for r in H.packed]
        self.root: Traces = frozenset(r for r in self.rows if r)
        self.memo: dict[Traces, int] = {}
        self.budget = budget
        self.nodes = 0
        self.symmetry = symmetry
        self.nauty_calls = 0
        self.pruned = 0  # branches skipped as images of an earlier branch
        self.canon: dict[Traces, Traces] = {}  # node -> its canonical form (with symmetry)
        self._root_branches: list[tuple[int, int, int]] | None = None
        self._last: tuple[Traces, SetSystem] | None = None
        self._root_auts: tuple[SetSystem, Any] | None = None

    @staticmethod
    def size_bound(traces: Traces) -> int:
        """The largest k with k distinct traces, the j-th largest of >= k - j + 1 points."""
        sizes = sorted((t.bit_count() for t in traces), reverse=True)
        k, low = 0, sizes[0] if sizes else 0  # low = min over i <= j of (s_i + i)
        for j, s in enumerate(sizes):
            low = min(low, s + j)
            if low < j + 1:
                break
            k = j + 1
        return k

    @staticmethod
    def maximal(traces: Traces, budget: Budget | None = None) -> list[int]:
        """The traces not strictly inside another trace, largest first.  (A trace holding x
        that lies inside another trace is dominated for x too: the larger one holds x.)
        Quadratic in the traces, so the budget is checked per trace (BudgetExpired)."""
        kept: list[int] = []
        for t in sorted(traces, key=lambda t: -t.bit_count()):
            if budget is not None and budget.expired():
                raise BudgetExpired
            if not any(t & k == t for k in kept):
                kept.append(t)
        return kept

    @staticmethod
    def branches(traces: Traces, budget: Budget | None = None) -> list[tuple[int, int, int]]:
        """(points left after the step, x, trace) for every x and every maximal trace holding
        x, most points left first.  On a wide class the root alone has millions (10^3 traces
        on 10^4 points: 9 s), so the budget is checked per trace (BudgetExpired)."""
        out = []
        for t in _LadderSearch.maximal(traces, budget):
            if budget is not None and budget.expired():
                raise BudgetExpired
            rest = t
            while rest:
                low = rest & -rest
                rest ^= low
                out.append((t.bit_count() - 1, low.bit_length() - 1, t))
        out.sort(key=lambda b: -b[0])
        return out

    @property
    def deadline(self) -> float | None:
        return None if self.budget is None else self.budget.deadline

    def root_group_order(self) -> float:
        """The order of Aut(root traces) (the nonzero hypotheses on the points they cover); the
        root's system and generators are kept for its branches.  1 (no symmetry used) when
        nauty cannot run on the root within the budget (`run_nauty`)."""
        if self._root_auts is None:
            system = SetSystem(list(self.root))
            self.nauty_calls += 1
            try:
                auts = system.automorphisms(deadline=self.deadline)
            except SymmetryUnavailable:
                p, m = len(system.points), len(system.sets)
                auts = (np.zeros((0, p), dtype=np.int64), np.zeros((0, m), dtype=np.int64),
                        1.0, np.arange(p + m))
            self._root_auts = (system, auts)
        return self._root_auts[1][2]

    def orbit_branches(self, system: SetSystem,
                       auts: tuple[np.ndarray, np.ndarray, float, np.ndarray] | None = None
                       ) -> list[tuple[int, int, int]]:
        """One branch (as in `branches`) per orbit of Aut(traces) on the branch pairs
        (x, t), t maximal and x in t.

        The pairs form an invariant set (automorphisms keep inclusion, so they map maximal
        traces to maximal traces), and g in Aut maps the child of (x, t) onto the child of
        (g x, g t) (see `child`), an isomorphic set system with the same longest ladder.
        The orbits come from nauty's generators: as connected components of the graph joining
        each pair to its images (`pair_orbits`) when that graph is small, else as the
        point orbits and, for one point x of each, the orbits of the stabiliser of x on the
        maximal traces holding x (one nauty call per point orbit): (x, t) and (x, t') are in
        one orbit iff some g fixing x maps t to t'."""
        sets, p = system.sets, len(system.points)
        index = {t: j for j, t in enumerate(sets)}
        maximal = np.zeros(len(sets), dtype=bool)
        maximal[[index[t] for t in self.maximal(frozenset(sets), self.budget)]] = True
        inc = system.matrix & maximal[:, None]  # incidences with maximal traces
        js, xs = np.nonzero(inc)
        if len(xs) > 1:
            if auts is None:
                self.nauty_calls += 1
                try:
                    auts = system.automorphisms(deadline=self.deadline)
                except SymmetryUnavailable:
                    auts = (np.zeros((0, p), dtype=np.int64), None, 1.0, None)
            pg, sg, order, orbits = auts
            if order == 1:
                pass
            elif len(xs) * len(pg) <= PAIR_GRAPH_MAX_EDGES:
                labels = pair_orbits(p, len(sets), xs, js, pg, sg)
                _, first = np.unique(labels, return_index=True)
                xs, js = xs[first], js[first]
            else:
                keep_x, keep_j = [], []
                for x in np.unique(orbits[:p]).tolist():
                    ts = np.flatnonzero(inc[:, x])
                    if len(ts) > 1:
                        self.nauty_calls += 1
                        try:
                            st = system.automorphisms((x,), self.deadline)[3][p + ts]
                        except SymmetryUnavailable:
                            st = np.arange(len(ts))  # every pair its own orbit: no cut
                        _, first = np.unique(st, return_index=True)
                        ts = ts[first]
                    keep_x.extend([x] * len(ts))
                    keep_j.extend(ts.tolist())
                xs, js = np.array(keep_x), np.array(keep_j)
            self.pruned += int(inc.sum()) - len(xs)
        out = [(sets[j].bit_count() - 1, int(system.points[x]), sets[j])
               for x, j in zip(xs.tolist(), js.tolist(), strict=True)]
        out.sort(key=lambda b: (-b[0], b[1]))
        return out

    @staticmethod
    def child(traces: Traces, x: int, t: int) -> Traces:
        """The traces after the step (x, h) with h ∩ U = t: hypotheses with h'(x) = 0, on the
        points t minus x."""
        low = 1 << x
        keep = t ^ low
        out = set()
        for s in traces:
            if not s & low:
                r = s & keep
                if r:
                    out.add(r)
        return frozenset(out)

    def uses_symmetry(self, traces: Traces) -> bool:
        return self.symmetry and len(traces) >= SYMMETRY_MIN_TRACES

    def key(self, traces: Traces, depth: int) -> Traces:
        """The memo key of a node: with symmetry, its canonical form under relabelling of the
        points (the longest ladder of a set system depends only on its isomorphism class: a
        bijection of the points maps ladders to ladders); else the traces themselves.  Any key
        is sound as long as equal keys mean equal L; canonical forms pay off only for nodes
        reached along several paths, so the root and its children (depth < 2: reached only
        from the root, whose symmetric branches are already cut) key themselves, saving the
        largest nauty calls."""
        if not self.uses_symmetry(traces) or depth < 2:
            return traces
        got = self.canon.get(traces)
        if got is None:
            self.nauty_calls += 1
            system = SetSystem(list(traces))
            try:
                got = system.canonical(self.deadline)
            except SymmetryUnavailable:
                # keyed by itself, as without symmetry (sound: equal keys, equal L); the
                # budget check of the next node stops the search
                return traces
            self.canon[traces] = got
            self._last = (traces, system)  # reused by node_branches if the node is expanded
        return got

    def node_branches(self, traces: Traces) -> list[tuple[int, int, int]]:
        """The branches of a node: with symmetry one per orbit (`orbit_branches`), else
        all of them (`branches`); the root's are computed once."""
        if not self.uses_symmetry(traces):
            return self.branches(traces, self.budget)
        if traces is self.root:
            if self._root_branches is None:
                self.root_group_order()
                self._root_branches = self.orbit_branches(*self._root_auts)
            return self._root_branches
        last = self._last
        self._last = None
        system = last[1] if last is not None and last[0] is traces else SetSystem(list(traces))
        return self.orbit_branches(system)

    def longest(self, traces: Traces, need: int, depth: int = 0) -> int:
        """L(traces) exactly if it is >= need; otherwise a proven upper bound below need.
        ``depth`` is the number of steps from the root (it only chooses the memo key)."""
        if not traces:
            return 0
        key = self.key(traces, depth)
        got = self.memo.get(key)
        if got is not None and (got >= 0 or -got - 1 < need):
            # exact value, or an upper bound (stored as -(ub+1)) still below what we need
            return got if got >= 0 else -got - 1
        self.nodes += 1
        if self.budget is not None and self.budget.expired():
            raise BudgetExpired
        ub = self.size_bound(traces)
        if ub < need:
            self.memo[key] = -(ub + 1)
            return ub
        best = explored = skipped = 0
        for left, x, t in self.node_branches(traces):
            if 1 + left <= best or 1 + left < need:
                skipped = 1 + left  # sorted: every later branch is worth at most this
                break
            val = 1 + self.longest(self.child(traces, x, t), max(best, need - 1), depth + 1)
            explored = max(explored, val)  # exact if it beats the target, else an upper bound
            if val > best:
                best = val
                if best >= ub:
                    break
        if best >= need or best >= ub:
            self.memo[key] = best  # exact: every branch not explored is worth <= best
            return best
        upper = min(max(best, explored, skipped, 1), need - 1)
        self.memo[key] = -(upper + 1)
        return upper

    def greedy(self) -> list[tuple[int, int]]:
        """A ladder (as steps (x, trace)) taking the largest trace at every step.  Past the
        budget it stops after the first step (any prefix of a ladder is a ladder)."""
        steps, traces = [], self.root
        while traces and not (steps and self.budget is not None and self.budget.expired()):
            t = max(traces, key=int.bit_count)  # the largest trace is maximal
            x = (t & -t).bit_length() - 1
            steps.append((x, t))
            traces = self.child(traces, x, t)
        return steps

    def ladder(self, k: int) -> list[tuple[int, int]]:
        """Steps (x, trace) of a ladder of length k (requires L(root) >= k, proven)."""
        steps, traces = [], self.root
        while k > 0:
            for _, x, t in self.node_branches(traces):
                nxt = self.child(traces, x, t)
                if self.longest(nxt, k - 1, len(steps) + 1) >= k - 1:
                    steps.append((x, t))
                    traces, k = nxt, k - 1
                    break
            else:  # pragma: no cover - would be a logic error
                raise AssertionError("no continuation reaches the claimed length")
        return steps

    def indices(self, steps: list[tuple[int, int]], n: int) -> tuple[list[int], list[int]]:
        """The (point, hypothesis-row) indices of a ladder given as steps (x_i, h_i ∩ U_i)."""
        U = (1 << n) - 1
        Z = list(range(len(self.rows)))
        xs, hs = [], []
        for x, t in steps:
            h = next(h for h in Z if self.rows[h] & U == t)
            xs.append(x)
            hs.append(h)
            Z = [g for g in Z if not self.rows[g] >> x & 1]
            U = t ^ (1 << x)
        return xs, hs


def full_domain_ladder(H: HypothesisClass, budget: Budget | None = None
                       ) -> tuple[list[int], list[int]] | None:
    """Whether T(H) = |X|: a ladder through *every* point, as (point indices x_1..x_n, hypothesis
    indices h_1..h_n), or None when there is none (then T(H) <= |X| - 1).

    A ladder on all n points fixes each h_i on the whole domain: h_i = {x_i, ..., x_n}.  So
    T(H) = n iff H contains a chain X = A_1 ⊃ A_2 ⊃ ... ⊃ A_n with |A_i| = n - i + 1, each set
    one point smaller than the last; x_i is the point A_i loses (x_n the point of A_n).  Such a
    chain has a set of every size 1..n, which is checked first (one popcount per hypothesis);
    then a depth-first search over the chains, remembering the sets from which no chain reaches
    a singleton, visits each hypothesis at most once and tries only the points of each set (its
    set bits, not all n points: thresholds on 14,142 points took 28 s scanning every point, now
    ~0.1 s): O(|H| · n) set operations at worst.

    With a ``budget`` the clock is read at every step and `BudgetExpired` raised when it
    runs out (then nothing is known beyond T(H) <= |X|).
    """
    n = H.domain_size
    if n == 0 or len(H) < n:
        return None
    packed = H.packed
    sizes = np.bitwise_count(packed).sum(axis=1, dtype=np.int64)
    present = np.zeros(n + 1, dtype=bool)
    present[sizes] = True
    if not present[1:].all():
        return None
    full_row = np.flatnonzero(sizes == n)
    if not len(full_row):
        return None
    counts = np.bincount(sizes, minlength=n + 1)
    if (counts[1:] == 1).all():
        return _forced_chain(packed, sizes, n)
    index: dict[int, int] = {}
    nonzero = np.flatnonzero(sizes >= 1)
    for a in range(0, len(nonzero), 1024):  # ~30 ms a block on 14,142 points
        if budget is not None and budget.expired():
            raise BudgetExpired
        block = nonzero[a:a + 1024]
        index.update((int.from_bytes(row.tobytes(), "little"), r)
                     for r, row in zip(block.tolist(), packed[block], strict=True))
    full = (1 << n) - 1
    dead: set[int] = set()
    path = [full]                      # the chain so far; a stack of sets
    tried: list[int] = [0]             # per level: the next point to try removing
    while path:
        if budget is not None and budget.expired():
            raise BudgetExpired
        A = path[-1]
        if A.bit_count() == 1:
            # x_i is the point removed from A_i (tried[i] - 1), x_n the point of A_n
            points = [t - 1 for t in tried[:-1]] + [A.bit_length() - 1]
            return points, [index[a] for a in path]
        x = tried[-1]
        rest = A >> x                  # the points of A from x on, lowest first
        while rest:
            low = rest & -rest
            x += low.bit_length() - 1
            B = A ^ (1 << x)
            if B in index and B not in dead:
                break
            rest >>= low.bit_length()
            x += 1
            if budget is not None and budget.expired():
                raise BudgetExpired
        else:
            dead.add(A)
            path.pop()
            tried.pop()
            continue
        tried[-1] = x + 1
        path.append(B)
        tried.append(0)
    return None


def _forced_chain(packed: np.ndarray, sizes: np.ndarray, n: int
                  ) -> tuple[list[int], list[int]] | None:
    """`full_domain_ladder` when H has exactly one hypothesis of each size 1..n: the chain
    can only be those, largest first, so it is one vectorised test -- each set contains the
    next (A_{i+1} minus A_i is empty; the sizes differ by one) -- and x_i is the one bit of
    A_i minus A_{i+1} (thresholds on 14,142 points: ~0.1 s instead of a search over 2*10^8
    bits as Python ints)."""
    order = np.argsort(-sizes, kind="stable")
    order = order[sizes[order] >= 1]       # sizes n, n-1, ..., 1 (one row each)
    rows = packed[order]
    if (rows[1:] & ~rows[:-1]).any():      # some A_{i+1} is not inside A_i: no chain
        return None
    lost = np.empty((n, rows.shape[1]), dtype=np.uint8)
    lost[:-1] = rows[:-1] ^ rows[1:]       # exactly one bit each: the point A_i loses
    lost[-1] = rows[-1]                    # x_n: the one point of A_n
    byte = np.argmax(lost != 0, axis=1)
    bit = np.log2(lost[np.arange(n), byte]).astype(np.int64)
    points = (8 * byte + bit).tolist()
    return points, order.tolist()


def ladder_witness(H: HypothesisClass, points: list[int], hyps: list[int]) -> dict[str, Any]:
    """The JSON witness of a ladder given as point and hypothesis (row) indices of H."""
    n = H.domain_size
    chars = H.matrix[np.asarray(hyps, dtype=np.intp)]  # a copy: made characters in place
    chars += ord("0")
    text = str(memoryview(chars), "ascii")             # one decode, then k slices of n
    return {"points": [H.domain[x] for x in points],
            "hypotheses": [text[i * n:(i + 1) * n] for i in range(len(hyps))]}


@on_distinct_columns
def threshold_exact(H: HypothesisClass, budget: float | None = None,
                    symmetry: bool | None = None) -> DimensionResult:
    """The threshold dimension of a finite class, with a ladder
    ``{"points": [x1..xk], "hypotheses": [h1..hk]}`` (h_i(x_j) = 1 iff i <= j) as witness.

    The exact engine behind [`ltheory.threshold_dimension`][ltheory.threshold_dimension] (which adds
    ``method=`` and
    composed classes).

    ``budget`` is a time limit in seconds; when it runs out the result has ``exact=False`` with
    proven ``lower`` and ``upper``.  The empty class has threshold dimension -1.

    ``symmetry``: memoise nodes by canonical form and branch once per orbit (module doc).  The
    default (None) uses it when the nonzero hypotheses, as subsets of the points they cover, have
    a nontrivial automorphism group (one nauty call); ``stats["symmetry"]`` records that group's
    order, the nauty calls and the branches skipped.
    """
    if not isinstance(H, HypothesisClass):
        raise InvalidInputError(
            f"threshold_dimension needs a HypothesisClass, got {type(H).__name__}")
    if symmetry not in (None, True, False):
        raise InvalidInputError(f"symmetry must be True, False or None (automatic), "
                                f"got {symmetry!r}")
    t0 = time.perf_counter()
    # A node may take milliseconds (and a nauty call seconds) on large classes: read the clock
    # at every check (~0.1 us), so a small budget is not overrun by whole nodes.
    bud = Budget(budget, stride=1)
    if len(H) == 0:
        return DimensionResult.empty("tdim", seconds=time.perf_counter() - t0)
    n = H.domain_size
    try:
        top = full_domain_ladder(H, bud)   # T = |X| exactly, or T <= |X| - 1, in O(|H| |X|)
        chain_decided = True
    except BudgetExpired:
        top, chain_decided = None, False   # undecided: only T <= |X| is known
    left = bud.remaining()
    if (top is not None and n * n > WITNESS_AFTER_BUDGET_CELLS and left is not None
            and left < WITNESS_SECONDS_PER_CELL * n * n):
        # The chain was found, but too late to write a witness of n strings of n bits within
        # the budget (14,142 points: 200 MB, ~0.5 s): the bounds the witness in hand proves.
        res = _trivial_bounds(H, n, time.perf_counter() - t0, False)
        return res.replace(stats=res.stats | {"full_domain_chain": "found after the budget"})
    if top is not None:
        return DimensionResult.proven("tdim", n, n, ladder_witness(H, *top),
                                      seconds=time.perf_counter() - t0,
                                      stats={"nodes": 0, "method": "full-domain chain"})
    if bud.expired():
        # Out of time before the search could start (a wide class: the chain test alone can
        # take the budget): the trivial bounds, without building the search's traces.
        return _trivial_bounds(H, n if not chain_decided else max(n - 1, 0),
                               time.perf_counter() - t0, chain_decided)
    stats: dict[str, Any] = {}
    search = _LadderSearch(H, bud)
    # The cheap bounds first: a greedy ladder and the counting bounds often meet (points n=2048:
    # T = 1) before any symmetry step or Shelah's cap is paid for.
    # No chain through every point (above), so T <= |X| - 1 (T = 0 on an empty domain).
    upper = min(len(H), max(n - 1, 0) if chain_decided else n, search.size_bound(search.root))
    best = search.greedy()
    lower = len(best)
    if upper > max(lower, 1) and not bud.expired():
        upper = min(upper, _shelah_cap(H, bud.remaining(), stats))
    if lower < upper and (symmetry is None or symmetry) and not bud.expired():
        order = search.root_group_order()
        stats["symmetry"] = {"group_order": order}
        search.symmetry = symmetry = order > 1 if symmetry is None else True
    try:
        if bud.expired():  # the root's nauty call and Shelah's cap may have used it up
            raise BudgetExpired
        # Raise the target one step at a time: each step either finds a longer ladder or
        # proves that none exists (L(root) < target).
        while lower < upper:
            val = search.longest(search.root, lower + 1)
            if val < lower + 1:
                upper = lower
                break
            # The ladder of length val is proven (memoised); rebuild it without the budget so the
            # witness always certifies the bound we report.
            search.budget, saved = None, search.budget
            best = search.ladder(val)
            search.budget = saved
            lower = val
    except BudgetExpired:
        pass  # lower and upper stay proven bounds
    witness = ladder_witness(H, *search.indices(best[:lower], n))
    stats |= {"nodes": search.nodes, "memo": len(search.memo), "traces": len(search.root)}
    if "symmetry" in stats:
        stats["symmetry"] |= {"used": symmetry, "nauty_calls": search.nauty_calls,
                              "branches_skipped": search.pruned}
    return DimensionResult.proven("tdim", lower, upper, witness,
                                  seconds=time.perf_counter() - t0, stats=stats)


def _trivial_bounds(H: HypothesisClass, upper: int, seconds: float, chain_decided: bool
                    ) -> DimensionResult:
    """T >= 1 when some hypothesis is 1 somewhere (the ladder of one point in it), else T = 0;
    T <= min(|H|, ``upper``)."""
    ones = H.packed.any(axis=1)
    stats = {"nodes": 0, "method": "trivial bounds (budget ran out)",
             "full_domain_chain": "refuted" if chain_decided else "undecided"}
    if not ones.any():
        return DimensionResult.proven("tdim", 0, 0, {"points": [], "hypotheses": []},
                                      seconds=seconds, stats=stats)
    h = int(np.argmax(ones))
    x = int(np.argmax(H.matrix[h]))
    return DimensionResult.proven("tdim", 1, max(1, min(len(H), upper)),
                                  ladder_witness(H, [x], [h]), seconds=seconds, stats=stats)


def _shelah_cap(H: HypothesisClass, budget: float | None, stats: dict[str, Any]) -> int:
    """Shelah's bound T(H) <= 2^(Ldim(H)+1) - 1 (ABMS20 Thm. 3.2: Ldim >= floor(log2 T)), from
    the Littlestone dimension's proven upper bound under a small time budget."""
    share = LDIM_CAP_SECONDS if budget is None else max(min(LDIM_CAP_SECONDS, budget / 10),
                                                         1e-3)
    res = littlestone_exact(H, share)
    cap = (1 << (res.upper + 1)) - 1
    stats["ldim_cap"] = {"ldim_upper": res.upper, "cap": cap}
    return cap
