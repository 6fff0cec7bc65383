"""Contradiction graphs G_m(H) (Alon, Moran, Schefler, Yehudayoff 2024; seed 002 §5).

Definition (Alon, Moran, Schefler, Yehudayoff, "A unified characterization of private
learnability via graph theory", COLT 2024, Definition 5 in seed 002 §5).  For a class
H ⊆ {0,1}^X and m ≥ 1, the *contradiction graph of order m*, G_m(H), has as vertices the
H-realizable labelled samples S = ((x_1, y_1), ..., (x_m, y_m)) of length m (sequences: points
may repeat and order matters), and an edge {S, S'} whenever some x ∈ X has (x, 0) ∈ S and
(x, 1) ∈ S' (or the other way round): S and S' *contradict* each other.

Reduction used by every algorithm here (the *reduced graph* G'_m).  Let k = min(m, |X|) and let
G'_m have as vertices the H-realizable labelled k-sets of distinct points (a partial labelling
p: T → {0,1} with |T| = k that agrees with some h ∈ H), with the same contradiction edges.

**Proposition.**  G_m and G'_m are homomorphically equivalent (each maps into the other by a graph
homomorphism); hence ω(G_m) = ω(G'_m), ω*(G_m) = ω*(G'_m) (and χ, χ_f agree too).

*Proof.*  (a) G'_m → G_m: send a k-set p to the sequence listing its pairs in point order,
padded to length m by repeating its last pair when k < m.  The sequence is realizable (by the h
realizing p) and has the same set of pairs, and whether two samples contradict depends only on
their sets of pairs, so this is an embedding as an induced subgraph.
(b) G_m → G'_m: for a realizable sequence S let set(S) be its set of pairs (a consistent partial
labelling with |set(S)| ≤ k distinct points; repeated pairs collapse, order is forgotten) and fix
h_S ∈ H realizing S.  Let f(S) = set(S) extended by (x, h_S(x)) for the first points x outside
set(S) until it has k points (possible since k ≤ |X|); f(S) is realized by h_S.  If S, S'
contradict at x then (x, b) ∈ set(S) ⊆ f(S) and (x, 1-b) ∈ set(S') ⊆ f(S'), so f(S), f(S')
contradict: f preserves edges, and it never maps adjacent vertices to one vertex (a realizable
sample does not contradict itself).  So f is a homomorphism.
A homomorphism maps cliques injectively onto cliques (ω(G) ≤ ω(G')), and pulls independent sets
back to independent sets, so a fractional colouring of G' pulls back to one of G of the same total
(χ_f(G) ≤ χ_f(G')); with LP duality ω* = χ_f.  Both directions give the equalities. ∎

In words: permuted samples are twins (same neighbourhood, non-adjacent) and samples with repeats,
or on fewer than k distinct points, are dominated (N(S) ⊆ N(f(S))) by their extension f(S).
When m ≥ |X| the reduced vertices are the full labellings in H, pairwise contradicting: G'_m is the
complete graph on |H| vertices.  When |X| = 0 and m ≥ 1 there is no sample at all (G_m is empty).

Independent sets (used by the LP and the checkers).  A family of samples is independent iff its
pairs form one consistent partial labelling (consistency is a condition on single points, so
pairwise consistency is global consistency); so every independent set lies in some
I_g = {samples consistent with g} for a total g: X → {0,1}, and the maximal independent sets of
G'_m are the non-empty I_g ∩ V.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import BudgetExceededError, InvalidInputError

__all__ = [
    "ContradictionGraph",
    "DEFAULT_MAX_VERTICES",
    "check_order",
    "contradiction_graph",
    "literal_contradiction_graph",
    "reduced_vertex_count",
]

DEFAULT_MAX_VERTICES = 200_000


def check_order(H: Any, m: Any) -> int:
    """Validate (H, m) at the boundary and return m as an int."""
    if not isinstance(H, HypothesisClass):
        raise InvalidInputError(f"expected a HypothesisClass, got {type(H).__name__}")
    if len(H) == 0:
        raise InvalidInputError("the contradiction graph of the empty class is undefined (no "
                                "realizable samples); pass a class with at least one hypothesis")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or int(m) < 1:
        raise InvalidInputError(f"m must be an integer >= 1 (the sample size), got {m!r}")
    return int(m)


def reduced_vertex_count(H: HypothesisClass, m: int) -> int:
    """|V(G'_m)| = Σ over k-subsets T of X of |H|_T| (k = min(m, |X|)), computed subset by subset.

    Cheap lower bound used before it: C(|X|, k) (every subset has at least one pattern)."""
    n = H.domain_size
    k = min(m, n)
    if n == 0:
        return 0
    total = 0
    M = H.matrix.astype(np.int64)
    for T in _combination_chunks(n, k):
        codes = _codes(M, T)
        total += _distinct_per_column(codes, k).sum()
    return int(total)


def _combination_chunks(n: int, k: int, chunk: int = 4096) -> Any:
    it = itertools.combinations(range(n), k)
    while True:
        block = list(itertools.islice(it, chunk))
        if not block:
            return
        yield np.array(block, dtype=np.int64).reshape(len(block), k)


def _codes(M: np.ndarray, T: np.ndarray) -> np.ndarray:
    """(|H|, #subsets) pattern codes: bit j = h(T[:, j])."""
    codes = np.zeros((M.shape[0], T.shape[0]), dtype=np.int64)
    for j in range(T.shape[1]):
        codes |= M[:, T[:, j]] << j
    return codes


def _presence(codes: np.ndarray, k: int) -> np.ndarray:
    present = np.zeros((codes.shape[1], 1 << k), dtype=bool)
    present[np.arange(codes.shape[1])[None, :], codes] = True
    return present


def _distinct_per_column(codes: np.ndarray, k: int) -> np.ndarray:
    return _presence(codes, k).sum(axis=1)


@dataclass(frozen=True, eq=False)
class ContradictionGraph:
    """The reduced contradiction graph G'_m(H) (see
    [`ltheory.graphs.contradiction`][ltheory.graphs.contradiction]).

    ``points[v]`` (sorted point indices, length k = min(m, |X|)) and ``bits[v]`` (their labels)
    describe vertex v; ``adj[v]`` is the neighbourhood of v as a Python-int bitset.  Vertices are
    ordered by point subset (lexicographic), then by pattern code.
    """

    H: HypothesisClass
    m: int
    points: np.ndarray  # (V, k) int64
    bits: np.ndarray  # (V, k) uint8
    adj: list[int] = field(repr=False)

    @property
    def k(self) -> int:
        return int(self.points.shape[1])

    def __len__(self) -> int:
        return int(self.points.shape[0])

    @property
    def num_vertices(self) -> int:
        return len(self)

    @property
    def num_edges(self) -> int:
        return sum(a.bit_count() for a in self.adj) // 2

    def sample(self, v: int) -> list[list[Any]]:
        """Vertex v as a literal vertex of G_m in the JSON form of the
        [witness formats][witness-formats]: a list of m
        ``[LABEL, BIT]`` pairs (padded by repeating the last pair when |X| < m)."""
        dom = self.H.domain
        pairs = [[dom[int(x)], int(b)] for x, b in zip(self.points[v], self.bits[v], strict=True)]
        while len(pairs) < self.m:
            pairs.append(list(pairs[-1]))
        return pairs

    def samples(self, vs: Any) -> list[list[list[Any]]]:
        return [self.sample(int(v)) for v in vs]

    def is_clique(self, vs: Any) -> bool:
        vs = [int(v) for v in vs]
        return all((self.adj[u] >> v) & 1 for i, u in enumerate(vs) for v in vs[i + 1:])

    def adjacency_matrix(self) -> np.ndarray:
        """The dense (V, V) boolean adjacency matrix."""
        V = len(self)
        A = np.zeros((V, V), dtype=bool)
        lab = self._point_labels()
        for x in range(self.H.domain_size):
            zero = lab[:, x] == 0
            one = lab[:, x] == 1
            A |= zero[:, None] & one[None, :]
        return A | A.T

    def _point_labels(self) -> np.ndarray:
        """(V, |X|) int8: the label of each vertex on each point, -1 where the point is absent."""
        V = len(self)
        lab = np.full((V, self.H.domain_size), -1, dtype=np.int8)
        rows = np.repeat(np.arange(V), self.k)
        lab[rows, self.points.ravel()] = self.bits.ravel()
        return lab

    def consistent_with(self, g: Any) -> np.ndarray:
        """Indices of the vertices consistent with a total labelling g (a 0/1 row over X): the
        maximal independent set I_g ∩ V."""
        g = np.asarray(g, dtype=np.uint8)
        ok = (g[self.points] == self.bits).all(axis=1)
        return np.flatnonzero(ok)

    def to_networkx(self, with_samples: bool = True) -> Any:
        """The graph as ``networkx.Graph`` (nodes 0..V-1, attribute ``sample`` = JSON sample)."""
        import networkx as nx

        G = nx.Graph()
        for v in range(len(self)):
            if with_samples:
                G.add_node(v, sample=self.sample(v))
            else:
                G.add_node(v)
        for u, a in enumerate(self.adj):
            rest = a >> (u + 1)
            w = u + 1
            while rest:
                low = (rest & -rest).bit_length() - 1
                w += low
                G.add_edge(u, w)
                rest >>= low + 1
                w += 1
        return G


def contradiction_graph(H: HypothesisClass, m: int,
                        max_vertices: int | None = DEFAULT_MAX_VERTICES) -> ContradictionGraph:
    """Build the reduced contradiction graph G'_m(H)
    ([`ltheory.graphs.contradiction`][ltheory.graphs.contradiction]: same ω and ω* as G_m).

    Raises [`InvalidInputError`][ltheory.InvalidInputError] for m < 1 or an empty class, and
    [`BudgetExceededError`][ltheory.BudgetExceededError] when the graph has more than
    ``max_vertices`` vertices (checked
    with the cheap bound C(|X|, k) first, then subset by subset while building).
    """
    m = check_order(H, m)
    n = H.domain_size
    k = min(m, n)
    if max_vertices is not None and math.comb(n, k) > max_vertices:
        raise BudgetExceededError(
            f"G_{m}(H) has at least C({n},{k}) = {math.comb(n, k)} vertices, more than "
            f"max_vertices={max_vertices}; lower m or raise max_vertices")
    M = H.matrix.astype(np.int64)
    pts_blocks: list[np.ndarray] = []
    code_blocks: list[np.ndarray] = []
    total = 0
    if n > 0:
        for T in _combination_chunks(n, k):
            present = _presence(_codes(M, T), k)
            sub, code = np.nonzero(present)
            total += len(sub)
            if max_vertices is not None and total > max_vertices:
                raise BudgetExceededError(
                    f"G_{m}(H) has more than max_vertices={max_vertices} vertices (counted "
                    f"{total} so far); lower m or raise max_vertices")
            pts_blocks.append(T[sub])
            code_blocks.append(code)
    if pts_blocks:
        points = np.concatenate(pts_blocks)
        codes = np.concatenate(code_blocks)
    else:
        points = np.zeros((0, k), dtype=np.int64)
        codes = np.zeros(0, dtype=np.int64)
    bits = ((codes[:, None] >> np.arange(k)[None, :]) & 1).astype(np.uint8)
    adj = _adjacency_bitsets(points, bits, n)
    return ContradictionGraph(H, m, points, bits, adj)


def _bitset(mask: np.ndarray) -> int:
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


def _adjacency_bitsets(points: np.ndarray, bits: np.ndarray, n: int) -> list[int]:
    V, k = points.shape
    if V == 0:
        return []
    # with_label[x][b]: bitset of the vertices that contain the pair (x, b)
    with_label = []
    for x in range(n):
        has = points == x
        row = []
        for b in (0, 1):
            row.append(_bitset((has & (bits == b)).any(axis=1)))
        with_label.append(row)
    adj = []
    for v in range(V):
        a = 0
        for x, b in zip(points[v].tolist(), bits[v].tolist(), strict=True):
            a |= with_label[x][1 - b]
        adj.append(a)
    return adj


def literal_contradiction_graph(H: HypothesisClass, m: int, max_vertices: int = 20_000) -> Any:
    """G_m(H) exactly as defined: every H-realizable *sequence* of m labelled points is a vertex
    (a tuple of (point index, bit) pairs).  Exponential; for tests on tiny classes."""
    import networkx as nx

    m = check_order(H, m)
    n = H.domain_size
    if (2 * n) ** m > max_vertices * 50:
        raise BudgetExceededError(f"the literal G_{m}(H) on {n} points is too large to list")
    M = H.matrix
    verts = []
    for seq in itertools.product(range(n), repeat=m):
        cols = M[:, list(seq)]
        for row in {tuple(r) for r in cols.tolist()}:
            verts.append(tuple(zip(seq, row, strict=True)))
    if len(verts) > max_vertices:
        raise BudgetExceededError(f"the literal G_{m}(H) has {len(verts)} vertices")
    G = nx.Graph()
    G.add_nodes_from(verts)
    for i, s in enumerate(verts):
        ds = dict(s)
        for t in verts[i + 1:]:
            if any(ds.get(x, b) != b for x, b in t):
                G.add_edge(s, t)
    return G
