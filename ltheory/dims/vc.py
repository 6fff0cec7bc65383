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
   expensive refutation is attempted -- as long as the next beam's predicted work (entries
   counted, a deterministic clock) stays within a quarter of the exhaustive rounds' work plus
   an allowance (``_BEAM_ALLOWANCE``; on halfspaces g=12 dim=2, where no larger shattered set
   exists: 39 of 94 s went to beams before).  The beam aims at L + 1: it keeps
   only sets whose cells are large enough to be shattered by the remaining points (the
   exhaustive search's test).

Only step 2 proves anything: the heuristics only supply witnesses, which are checked.

The search for a shattered d-set keeps, for the current set S (|S| = k), the cell of every
hypothesis (its pattern on S).  S extends to a shattered d-set S ∪ T only if every cell
shatters T, which needs every cell to hold >= 2^(d-k) hypotheses (the bound 2^d <= |H| applied
cell by cell) and every point of T to split every cell with >= 2^(d-k-1) hypotheses on each
side.  Candidate points are filtered by that test, vectorised over all candidates at once
(``numpy.add.reduceat`` over the hypotheses sorted by cell), and the filter is inherited by the
children (it is monotone).  Candidates are tried best-balanced first, and each set is generated
once (children only take candidates after the chosen one).  The last two points are chosen at
once: one matrix product per cell gives, for every pair of candidates, the counts of the four
patterns in that cell (``_VCSearch._last_pair``), instead of a child node per candidate.

With a symmetry group G of H (verified automorphisms, `ltheory.dims.symmetry`) the
first point runs over one representative per orbit of G, and below it every node branches on
one candidate per orbit of the stabiliser of the points chosen so far (computed by
Schreier--Sims in sympy), skipping the orbits already branched on (proof in `_VCSearch._dfs`).
On halfspaces g=3 dim=3 the refutation of 5-sets visits 122 nodes with stabilisers, 436 with
the root orbits alone (the cube's centre point has all 48 symmetries).

The search runs with one BLAS thread (`ltheory.blas`): its products are small and many, and
OpenBLAS's threads cost more than they give (measured under load: 8 ms vs 0.1 ms per cell count
on halfspaces g=8).  Measured on a loaded 2-core machine (load ~3), before -> after these
changes: conjunctions n=7 (VC 7) 5.1 -> 0.14 s; halfspaces g=8 dim=2 (VC 3) 85 -> 1.2 s;
halfspaces g=12 dim=2 (VC 3) undecided 3..13 after 300 s -> exact in 66 s; planted 1024 x 60
seed 0 2.4 -> 0.17 s, seed 11 12.5 -> 9.7 s; then the beam's block counts (`_VCSearch.beam`,
same search, same work): seed 11 14.1 -> 4.8 s, halfplanes g=12 9.1 -> 7.1 s (load 5-6).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from scipy import sparse

from ltheory.blas import single_blas_thread
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.budget import Budget, BudgetExpired
from ltheory.dims.reduce import on_distinct_columns
from ltheory.dims.result import DimensionResult
from ltheory.dims.symmetry import PointSymmetry, orbits_from_generators, point_symmetry
from ltheory.errors import BudgetExceededError, InvalidInputError
from ltheory.validation import check_memory

_MAX_BEAM = 1 << 14

#: Work (hypothesis x candidate entries counted) the beams may spend beyond the exhaustive
#: rounds' work (see ``_search``): enough for the width-16,384 beam on planted 1024 x 60 (the
#: beams found seed 11's set with 5.1e9 against 6.6e7 in exhaustive rounds), a quarter of what
#: they spent in vain on halfspaces g=12 dim=2 (2.0e10 against 4.3e9).
_BEAM_ALLOWANCE = 6e9


#: Counts (cells x points) and hypothesis rows per block of sets in the beam's sparse products
#: (~8-16 MB of counts; as many one-hot entries).
_BLOCK_ENTRIES = 1 << 21


#: Largest one-hot matrix (hypotheses x cells) built for counting by matrix product.
_ONE_HOT_CELLS = 1 << 22

#: Entries of one block of the pair test in `_VCSearch._last_pair` (rows x candidates).
_PAIR_BLOCK_ENTRIES = 1 << 22

#: Classes with more cells (hypotheses x points) count cells on the uint8 matrix, never making
#: the float32 copy (4 bytes a cell) up front (`_VCSearch._cell_counts`).
_WIDE_CELLS = 1 << 26


def _code_dtype(k: int) -> type:
    """The narrowest integer type for cell codes of k points (numpy sorts 16-bit keys by radix)."""
    return np.int16 if k < 15 else np.int64


def _product(A: np.ndarray, B: np.ndarray) -> np.ndarray | None:
    """A @ B for 0/1 float32 matrices (exact: integer counts below 2^24), or None if the result
    is not finite.  OpenBLAS's sgemm kernels can raise the invalid-operation flag on finite
    inputs (numpy then warns "invalid value encountered in matmul"; seen once in a full test
    run, not reproducible; cf. numpy issues 13173, 24067), so the flag is not trusted either
    way: the result is checked, and callers count exactly in integers when it fails."""
    with np.errstate(invalid="ignore"):
        P = A @ B
    return P if np.isfinite(P).all() else None


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
        self.work = 0  # hypothesis x candidate entries counted: a machine-independent clock
        self.node_limit: int | None = None
        self.symmetry: PointSymmetry | None = None
        self.group: Any = None  # self.symmetry as a sympy group (None: trivial or unused)
        self._refuted: dict[int, set[int]] = {}  # d -> first points whose branch is exhausted
        self._m16: np.ndarray | None = None
        self._mft: np.ndarray | None = None
        self._colsums: np.ndarray | None = None
        self._colpacked: np.ndarray | None = None
        self.memory_stop: str | None = None  # why the search stopped for memory, if it did
        self._eye = [np.eye(1 << k, dtype=np.float32) for k in range(7)]
        self._mf: np.ndarray | None = None  # M as float, for the beam's block products

    # The derived copies of the class matrix are made on first use, not up front: on a wide
    # class (14,143 x 14,142) they cost 1.6 s and 1.2 GB before the first budget check, and a
    # search stopped early by its budget may never need them (issue 40).
    @property
    def M16(self) -> np.ndarray:
        """The class matrix as int16 (for sums by cell)."""
        if self._m16 is None:
            self._m16 = self.M.astype(np.int16)
        return self._m16

    def columns_nested(self) -> bool:
        """Whether the points' columns (each as the set of hypotheses that are 1 on it) form a
        chain under inclusion.  Then no two points are shattered: shattering {y, z} needs an h
        with h(y) = 1, h(z) = 0 and an h' with h'(y) = 0, h'(z) = 1, i.e. neither column
        inside the other.  Sorted by size, a family is a chain iff each set lies inside the
        next (distinct sets of one size are not nested): one pass over the packed columns
        (thresholds on 14,142 points: ~10 ms, where the pair search for VC = 2 is 10^12
        operations)."""
        if self.budget is not None and self.budget.expired():
            return False
        cols = self.column_packed
        order = np.argsort(self.column_sums, kind="stable")
        for a in range(0, len(order) - 1, 4096):  # blocks of points, the clock read between
            if a and self.budget is not None and self.budget.expired():
                return False
            lo, hi = order[a:a + 4096], order[a + 1:a + 4097]
            if (cols[lo[:len(hi)]] & ~cols[hi]).any():
                return False
        return True

    @property
    def column_packed(self) -> np.ndarray:
        """The columns packed along the hypotheses (points x bytes, little bit order)."""
        if self._colpacked is None:
            self._colpacked = self.H.packed_columns()
        return self._colpacked

    @property
    def column_sums(self) -> np.ndarray:
        """Hypotheses that are 1 on each point (int64)."""
        if self._colsums is None:
            self._colsums = self.M.sum(axis=0, dtype=np.int64)
        return self._colsums

    @property
    def MfT(self) -> np.ndarray:
        """Points x hypotheses, contiguous float32: a row selection of it times the one-hot
        cell matrix is a plain BLAS product (the transposed one-hot times M ran 30x slower:
        measured 225 ms vs 7 ms on halfspaces g=12, 12,790 x 144, 8 cells)."""
        if self._mft is None:
            self._fits(4 * self.M.size, "the float32 copy of the class matrix")
            self._mft = np.ascontiguousarray(self.M.T, dtype=np.float32)
        return self._mft

    def _fits(self, nbytes: int, what: str) -> None:
        """Stop the search (its bounds so far stand) rather than allocate a copy that would
        not fit in the memory available: ``stats["memory"]`` says which."""
        try:
            check_memory(nbytes, what)
        except BudgetExceededError as exc:
            self.memory_stop = str(exc)
            raise BudgetExpired from None

    def _cell_counts(self, codes: np.ndarray, k: int, cand: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
        """(cell sizes, ones[c, j] = hypotheses of cell c that are 1 on point cand[j]).

        Up to 64 cells a one-hot matrix product (float32, exact below 2^24 hypotheses) is
        fastest; beyond, a sort by cell and ``numpy.add.reduceat`` (measured on 1,024 x 60:
        8 cells 37 us vs 119 us, 64 cells 125 us vs 144 us)."""
        self.work += self.m * len(cand)
        sizes = np.bincount(codes, minlength=1 << k)
        ones = None
        if k == 0:  # one cell: the column sums, no copy of the matrix
            return sizes, self.column_sums[cand][None, :]
        if self._mft is None and self.M.size > _WIDE_CELLS:
            # a wide class: per cell, popcounts of the packed columns and the cell's rows
            # (1/8 byte a cell; ~30 ms a cell on 14,143 x 14,142, where the float32 copy
            # took 1.6 s and 800 MB and summing uint8 rows 1.8 s a cell)
            ones = np.zeros((len(sizes), len(cand)), dtype=np.int64)
            cols = self.column_packed
            sub = cols if len(cand) == len(cols) else cols[cand]
            for c in np.flatnonzero(sizes).tolist():
                mask = np.packbits(codes == c, bitorder="little")
                ones[c] = np.bitwise_count(sub & mask).sum(axis=1, dtype=np.int64)
            return sizes, ones
        if k < len(self._eye) and (self.m << k) <= _ONE_HOT_CELLS:
            prod = _product(self.MfT[cand], self._eye[k][codes])
            if prod is not None:
                ones = prod.T.astype(np.int64)
        if ones is None:
            order = np.argsort(codes, kind="stable")
            starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
            full = sizes > 0  # reduceat reads one row for an empty segment: skip those cells
            ones = np.zeros((len(sizes), len(cand)), dtype=np.int64)
            if full.any():
                ones[full] = np.add.reduceat(self.M16[order][:, cand], starts[full], axis=0)
        return sizes, ones

    def _refine_scores(self, codes: np.ndarray, k: int, cand: np.ndarray,
                       with_collisions: bool = False) -> Any:
        """For each candidate point y: min over the cells of S of min(#ones, #zeros) of y in
        that cell (and, if asked, the number of pairs of hypotheses that S + y does not
        separate: lower means more evenly filled cells)."""
        sizes, ones = self._cell_counts(codes, k, cand)
        if (sizes == 0).any():
            empty = np.full(len(cand), -1)
            return (empty, empty) if with_collisions else empty
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
            if self.budget is not None and self.budget.expired():
                break  # 10^5 starting points: each greedy sets up in ~0.1 ms even when out of time
            S = self.greedy([int(x)])
            if len(S) > len(best):
                best = S
        return best

    def beam(self, width: int, target: int = 0) -> list[int]:
        """Best-first beam over shattered sets, keeping the ``width`` sets whose cells are most
        evenly filled (fewest pairs of hypotheses sharing a pattern) at each size.

        With a ``target`` size, a set S of size k is kept only if every cell can still be
        shattered by target - k more points (>= 2^(target-k) hypotheses per cell; the
        exhaustive search's test), so the beam spends its width on sets that can reach it.
        That test is monotone, so each set inherits the candidates that passed at its parent
        (measured on planted 1024 x 60, width 4,096: 4.0-4.7 s before, 2.4-2.9 s with the
        inherited candidates and 16-bit cell codes, which numpy sorts by radix).

        A level's sets are counted in blocks (`_block_counts`): one sparse product per
        block instead of one dense product per set, the same counts, candidates, ranking and
        work (tests compare with a per-set reference).  Planted 1024 x 60, width 4,096:
        2.6 s -> 1.1 s (load ~4)."""
        m, n = self.M.shape
        M = self.M
        keys: list[tuple[int, ...]] = [()]                   # the sets, sorted tuples
        codes = np.zeros((1, m), dtype=_code_dtype(0))       # their cells, one row per set
        cands = np.ones((1, n), dtype=bool)                  # candidates passed at the parent
        best: tuple[int, ...] = ()
        for k in range(n):
            need = 1 << max(target - k - 1, 0)
            self.work += m * int(cands.sum())
            block = max(1, _BLOCK_ENTRIES // max((1 << k) * n, m))   # counts and rows
            oks, scs = [], []
            for a in range(0, len(keys), block):
                if self.budget is not None and self.budget.expired():
                    return list(best)
                ones, sizes = self._block_counts(codes[a:a + block], k)
                # With d = ones - zeros = 2 ones - size (in place, no temporaries of the block's
                # size): ones^2 + zeros^2 = (size^2 + d^2) / 2 and min(ones, zeros) =
                # (size - |d|) / 2, exact integers in the counts' float type.
                d = np.subtract(np.multiply(ones, 2, out=ones), sizes, out=ones)
                sq = np.einsum("scy,scy->sy", d, d) + np.square(sizes).sum(axis=1)
                np.subtract(sizes, np.abs(d, out=d), out=d)
                oks.append((d.min(axis=1) >= 2 * need) & cands[a:a + block])
                scs.append(sq / 2)
            ok = np.concatenate(oks)
            par, ys = np.nonzero(ok)   # parents in order, each one's candidates ascending
            if len(par) == 0:
                break
            scores = np.concatenate(scs)[par, ys]
            nxt: list[tuple[int, ...]] = []
            take_par: list[int] = []
            take_y: list[int] = []
            seen: set[tuple[int, ...]] = set()
            for j in np.argsort(scores, kind="stable").tolist():
                i, y = int(par[j]), int(ys[j])
                key = tuple(sorted(keys[i] + (y,)))
                if key in seen:
                    continue
                seen.add(key)
                nxt.append(key)
                take_par.append(i)
                take_y.append(y)
                if len(nxt) >= width:
                    break
            p, yv = np.asarray(take_par), np.asarray(take_y)
            dtype = _code_dtype(k + 1)
            codes = (codes[p].astype(dtype) * 2 + M[:, yv].T).astype(dtype)
            cands = ok[p]
            cands[np.arange(len(p)), yv] = False
            keys = nxt
            best = keys[0]
        return list(best)

    def _block_counts(self, codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """For a block of sets of size k (``codes``: one row of cell codes per set), the counts
        ``ones[s, c, y]`` = hypotheses of set s's cell c that are 1 on point y, and the cell
        sizes ``sizes[s, c, 0]``.  The one-hot matrix of (set, cell) rows by hypotheses, built
        directly in CSR form (each set's hypotheses sorted by cell: numpy sorts 16-bit codes by
        radix), times the class matrix: one sparse product for the whole block; float32 below
        2^12 hypotheses (the beam's sums of squares stay below 2^24, exact), float64 beyond."""
        s, m = codes.shape
        nc, n = 1 << k, self.M.shape[1]
        order = np.argsort(codes, axis=1, kind="stable")
        sizes = np.bincount((np.arange(s)[:, None] * nc + codes).ravel(), minlength=s * nc)
        indptr = np.zeros(s * nc + 1, dtype=np.int64)
        np.cumsum(sizes, out=indptr[1:])
        dtype = np.float32 if m < (1 << 12) else np.float64  # the beam's sums reach m^2
        E = sparse.csr_matrix((np.ones(s * m, dtype=dtype), order.ravel(), indptr),
                              shape=(s * nc, m))
        ones = np.asarray(E @ self._Mdense(dtype)).reshape(s, nc, n)
        return ones, sizes.reshape(s, nc, 1).astype(dtype)

    def _Mdense(self, dtype: type) -> np.ndarray:
        """The class matrix (hypotheses x points) as a contiguous float array, made once."""
        if self._mf is None or self._mf.dtype != dtype:
            self._fits(np.dtype(dtype).itemsize * self.M.size,
                       "the dense float copy of the class matrix (beam search)")
            self._mf = np.ascontiguousarray(self.M, dtype=dtype)
        return self._mf

    def _last_pair(self, codes: np.ndarray, k: int, cand: np.ndarray) -> list[int] | None:
        """Two candidates y, z completing S (|S| = k, cells ``codes``) to a shattered set, or
        None: S + {y, z} is shattered iff in every cell of S all four patterns of (y, z)
        occur.  With P[y, z] = #{h in the cell : h(y) = h(z) = 1} (one matrix product per
        cell) and s[y] = #{h in the cell : h(y) = 1}, the counts of the patterns 11, 10, 01,
        00 are P, s_y - P, s_z - P and |cell| - s_y - s_z + P.  One product per cell replaces
        a child node per candidate (each with its own pass over the hypotheses)."""
        nc, C = 1 << k, len(cand)
        self.work += self.m * C
        sizes = np.bincount(codes, minlength=nc)
        bounds = np.concatenate(([0], np.cumsum(sizes)))
        X = self.MfT[cand][:, np.argsort(codes, kind="stable")]  # candidates x hypotheses
        cells = [X[:, bounds[c]:bounds[c + 1]] for c in range(nc)]
        sums = [A.sum(axis=1) for A in cells]
        # Pairs (y, z), y < z, in blocks of rows y: memory per block ~_PAIR_BLOCK_ENTRIES
        # entries, not C^2 (14,142 candidates: 800 MB a product), and the clock read between
        # blocks (one block of a wide class can take seconds).
        rows = max(1, _PAIR_BLOCK_ENTRIES // max(C, 1))
        for y0 in range(0, C - 1, rows):
            if y0 and self.budget is not None and self.budget.expired():
                raise BudgetExpired
            y1 = min(C - 1, y0 + rows)
            ok = np.arange(C)[None, :] > np.arange(y0, y1)[:, None]
            for c in range(nc):
                A = cells[c]
                P = _product(A[y0:y1], A.T)      # float32, exact below 2^24 hypotheses
                if P is None:
                    P = A[y0:y1].astype(np.int64) @ A.T.astype(np.int64)
                sy, sz = sums[c][y0:y1, None], sums[c][None, :]
                ok &= (P > 0) & (sy > P) & (sz > P) & (sizes[c] - sy - sz + P > 0)
                if not ok.any():
                    break
            if ok.any():
                i, j = np.argwhere(ok)[0]
                return [int(cand[y0 + i]), int(cand[j])]
        return None

    def find(self, d: int) -> list[int] | None:
        """A shattered set of size d, or None if there is none (exhaustive).

        The root's candidates (points splitting H with >= 2^(d-1) hypotheses on each side) are
        ranked as in `_dfs`, and each in turn is the first point of a branch searching
        the candidates not yet used as first points.  With a symmetry group G of H
        (``self.symmetry``) only the first candidate of each point orbit starts a branch, and
        a branch skips the points of every orbit already done: if S is shattered and o is the
        first orbit (in rank order) that S meets, some g in G maps a point of S in o to the
        candidate r that starts o's branch, and g(S) is shattered (H∘g = H), holds r, and
        meets no earlier orbit (g keeps orbits; the root test is invariant under G).

        Branches exhausted in an earlier round (the rounds restart at doubled node limits) are
        remembered per d and skipped: the ranking and the sets searched are deterministic."""
        if d <= 0:
            return []
        n = self.M.shape[1]
        if (1 << d) > self.m or d > n:
            return None
        self.nodes += 1
        if self.budget is not None and self.budget.expired():
            raise BudgetExpired
        codes = np.zeros(self.m, dtype=_code_dtype(d))
        everything = np.arange(n)
        scores, collisions = self._refine_scores(codes, 0, everything, with_collisions=True)
        keep = scores >= 1 << (d - 1)
        cand = everything[keep][np.argsort(collisions[keep], kind="stable")]
        if len(cand) < d:
            return None
        if d == 1:
            return [int(cand[0])]
        orbits = (np.asarray(self.symmetry.orbits) if self.symmetry is not None
                  else everything)
        done = self._refuted.setdefault(d, set())
        allowed = np.zeros(n, dtype=bool)
        allowed[cand] = True
        for x in cand.tolist():
            if not allowed[x]:
                continue  # its orbit already had its branch
            allowed[x] = False
            if x not in done:
                rest = cand[allowed[cand]]  # x's own orbit stays: only earlier orbits go
                if len(rest) >= d - 1:
                    found = self._dfs(codes * 2 + self.M[:, x], [x], rest, d,
                                      self._stabiliser(self.group, x))
                    if found is not None:
                        return found
                done.add(x)
            allowed[orbits == orbits[x]] = False
        return None

    def _dfs(self, codes: np.ndarray, S: list[int], cand: np.ndarray, d: int,
             group: Any = None) -> list[int] | None:
        """A shattered d-set containing S with its other points in ``cand``, or None.

        ``group``: a permutation group (sympy) of automorphisms of H fixing every point of S,
        under which ``cand`` is invariant, or None.  With it only the first candidate of each
        of its orbits (in the ranked order) starts a child, and a child skips the points of the
        orbits started before: if S + T is shattered and o is the first orbit that T meets,
        some g in the group maps a point of T in o to o's first candidate r, g(S + T) = S +
        g(T) is shattered (H∘g = H), and g(T) lies in o and the later orbits -- all ranked
        after r.  The child's candidates (o and the later orbits, minus r) are invariant under
        the stabiliser of r, which is passed on (the argument of `find`, one level
        down)."""
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
        if r == 2:
            pair = self._last_pair(codes, k, cand)
            return None if pair is None else S + pair
        # Without a group every candidate is its own orbit, and a child takes the candidates
        # after its own (each set generated once).
        labels = (self._orbit_labels(group)[cand] if group is not None
                  else np.arange(len(cand)))
        done = np.zeros(len(cand), dtype=bool)  # candidates whose orbit has had its child
        for i in range(len(cand) - r + 1):
            if done[i]:
                continue
            x = int(cand[i])
            rest = cand[i + 1:][~done[i + 1:]]
            if len(rest) >= r - 1:
                found = self._dfs(codes * 2 + self.M[:, x], S + [x], rest, d,
                                  self._stabiliser(group, x))
                if found is not None:
                    return found
            done |= labels == labels[i]
        return None

    def _stabiliser(self, group: Any, x: int) -> Any:
        """The subgroup of ``group`` fixing x (Schreier--Sims, sympy), or None if trivial."""
        if group is None:
            return None
        stab = group.stabilizer(x)
        return None if stab.is_trivial else stab

    def _orbit_labels(self, group: Any) -> np.ndarray:
        """The point orbits of a sympy permutation group, each labelled by its smallest point."""
        gens = [np.asarray(g.array_form, dtype=np.int64) for g in group.generators]
        return orbits_from_generators(self.M.shape[1], gens)


@on_distinct_columns
def vc_exact(H: HypothesisClass, budget: float | None = None,
             symmetry: bool | None = None) -> DimensionResult:
    """The VC dimension of a finite class, with a shattered set (list of labels) as witness.

    The exact engine behind [`ltheory.vc_dimension`][ltheory.vc_dimension] (which adds ``method=``
    and composed
    classes).

    ``budget`` is a time limit in seconds; when it runs out the result has ``exact=False``,
    ``lower`` certified by the witness and ``upper`` the smallest size not yet ruled out, minus
    one.  The empty class has VC dimension -1 (witness ``None``).

    ``symmetry``: before the exhaustive search, find automorphisms of H
    (`ltheory.dims.symmetry.point_symmetry`, each verified on H) and start the search
    from one point per orbit (`_VCSearch.find`).  None (default) and True do so, False
    does not; ``stats["symmetry"]`` records the group order, orbits and seconds.
    """
    if not isinstance(H, HypothesisClass):
        raise InvalidInputError(f"vc_dimension needs a HypothesisClass, got {type(H).__name__}")
    if symmetry not in (None, True, False):
        raise InvalidInputError(f"symmetry must be True, False or None (automatic), "
                                f"got {symmetry!r}")
    t0 = time.perf_counter()
    bud = Budget(budget)
    m, n = len(H), H.domain_size
    if m == 0:
        return DimensionResult.empty("vc", seconds=time.perf_counter() - t0)
    search = _VCSearch(H, bud)
    upper = min(n, m.bit_length() - 1)
    # The search makes many small matrix products: OpenBLAS's threads only add overhead there
    # (measured on halfspaces g=8, 2 cores under load: 8 ms per cell count with the default
    # threads, 0.1 ms with one).
    stats: dict[str, Any] = {}
    with single_blas_thread():
        best, upper = _search(search, upper, symmetry is not False, stats)
    lower = len(best)
    witness = [H.domain[i] for i in sorted(best)]
    stats["nodes"] = search.nodes
    if search.memory_stop is not None:
        stats["memory"] = search.memory_stop
    return DimensionResult.proven("vc", lower, upper, witness, seconds=time.perf_counter() - t0,
                                  stats=stats)


def _search(search: _VCSearch, upper: int, symmetry: bool, stats: dict[str, Any]
            ) -> tuple[list[int], int]:
    """Heuristic lower bound, then exhaustive rounds (module doc); (witness, proven upper)."""
    best: list[int] = []
    beam_work = dfs_work = 0
    try:
        best = search.greedy()
        if len(best) <= 1 < upper and search.columns_nested():
            upper = 1  # no two points shattered (see columns_nested): VC <= 1
            stats["upper_reason"] = "the points' columns are nested (a chain): VC <= 1"
        # The root's test alone, before any heuristic or symmetry step (each costs a pass over
        # every point, a nauty call up to seconds on wide classes): no candidates for a larger
        # set (points n=2,048: no point has two hypotheses on each side) settles the value, and
        # a set found is kept.
        while len(best) < upper:
            search.node_limit = search.nodes + 1
            try:
                found = search.find(len(best) + 1)
            except _NodeLimit:
                break
            finally:
                search.node_limit = None
            if found is None:
                upper = len(best)
            else:
                best = found
        if len(best) < upper:
            wide = search.multistart_greedy()
            best = wide if len(wide) > len(best) else best
        width, limit = 256, 500
        if len(best) < upper:
            w = search.work
            wide = search.beam(width, len(best) + 1)
            beam_work += search.work - w
            best = wide if len(wide) > len(best) else best
        if symmetry and len(best) < upper:
            t = time.perf_counter()
            search.symmetry = sym = point_symmetry(search.H, search.budget.deadline
                                                   if search.budget is not None else None)
            search.group = sym.permutation_group()
            stats["symmetry"] = {"order": sym.order, "orbits": len(sym.representatives()),
                                 "complete": sym.complete,
                                 "seconds": round(time.perf_counter() - t, 3)}
            if search.budget is not None and search.budget.expired():
                raise BudgetExpired
        while len(best) < upper:
            search.node_limit = search.nodes + limit
            w = search.work
            try:
                found = search.find(len(best) + 1)
            except _NodeLimit:
                dfs_work += search.work - w
                limit *= 2
                # Widen the beam only while the beams' work, the next beam included (~3x
                # the beams so far), stays within a quarter of the exhaustive rounds' plus a
                # small allowance: where no larger shattered set exists (halfspaces) the
                # beams would otherwise cost as much as the proof (halfspaces g=5 dim=3 with
                # a bound of all the exhaustive work: 1.2e11 in beams against 2.0e11), and
                # where one does (planted) the beam finds it first.
                if width * 4 <= _MAX_BEAM and 4 * beam_work <= dfs_work / 4 + _BEAM_ALLOWANCE:
                    width *= 4
                    w = search.work
                    wide = search.beam(width, len(best) + 1)
                    beam_work += search.work - w
                    best = wide if len(wide) > len(best) else best
                elif width * 4 > _MAX_BEAM:
                    search.node_limit = None
                continue
            dfs_work += search.work - w
            if found is None:
                upper = len(best)
                break
            best = found
    except BudgetExpired:
        pass  # len(best) and upper stay proven bounds
    stats["work"] = {"beams": beam_work, "exhaustive": dfs_work, "total": search.work}
    return best, upper
