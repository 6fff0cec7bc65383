"""Symmetries of set systems and of finite classes, computed with nauty (pynauty).

A *set system* on a point set U is a set F of distinct subsets of U (here: the traces of a class
on U, or the hypotheses of a class as subsets of its domain).  A permutation π of U is an
*automorphism* of F if {π(s) : s in F} = F; for a class H on X these are the permutations of the
domain with H∘π = H (bit flips and coordinate permutations for parities and conjunctions,
GL(n, 2) for parities, ...).  Two set systems F, G are *isomorphic* if some bijection of their
points maps F onto G.

Both are read off the *incidence graph* of F: one vertex per point, one per set, an edge for
each membership, points and sets in two colour classes (points first).  Since the sets of F are
distinct, a colour-preserving automorphism of that graph is determined by its action on the
points, and the graph automorphisms are exactly the automorphisms of F (each acting on the sets
too); likewise two set systems are isomorphic iff their incidence graphs are.  nauty (McKay and
Piperno 2014, "Practical graph isomorphism, II", J. Symbolic Comput. 60) computes generators of
the automorphism group, its orbits and a *canonical labelling*: an ordering of the vertices such
that isomorphic graphs, relabelled by it, become identical.  So `canonical_form` -- F
relabelled by the canonical order of its points -- is equal for two set systems iff they are
isomorphic, which makes it a memo key for any isomorphism-invariant quantity (the threshold
search, `ltheory.dims.threshold`).

Why nauty (pynauty 2.8.8.1, a manylinux wheel with nauty 2.8.8 inside): networkx only has
VF2 (isomorphism of two given graphs, no canonical form, no generators), and its
Weisfeiler-Lehman hash is not a complete invariant.  Measured here: automorphism group and
canonical labelling of the incidence graph of parities n=8 (255 + 255 vertices) in 0.05 s each,
of conjunctions n=7 (128 + 2,187 vertices) in 0.3 s, and of a 6-vertex graph in ~4 us.
pynauty runs nauty on dense graphs, so a call costs roughly (points + sets)^2 / 64 words per
refinement: conjunctions n=8 (256 + 6,561 vertices) take ~4 s per call, which is why the
threshold search keeps canonical forms away from the root and its children.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pynauty

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import SymmetryUnavailable

__all__ = ["ClassSymmetry", "PointSymmetry", "SetSystem", "SymmetryUnavailable",
           "canonical_form", "class_symmetry", "first_point_choices", "incidence_graph",
           "pair_orbits", "point_symmetry", "run_nauty"]

# ------------------------------------------------------------------------------ guarded calls
#: Graphs up to this many vertices go to nauty in-process whatever the budget (the worst case
#: measured, the symmetric group of an empty graph on 256 points, takes ~0.05 s).
NAUTY_SMALL_VERTICES = 256

#: Larger graphs go to nauty in-process only up to this many vertices (conjunctions n=8's
#: incidence graph, 6,817 vertices, ~4 s) and when the worst-case estimate fits the budget;
#: otherwise in a forked child, killed at the deadline, so that neither a long call nor a crash
#: of nauty on a huge graph reaches the caller (issue 30: `dims 'random m=2 n=10000'` died with
#: signal 11 before wide classes were merged).
NAUTY_MAX_INPROCESS_VERTICES = 8192

#: Worst-case seconds per vertex^3, measured on highly symmetric graphs (symmetric groups: the
#: incidence graph of points n=N has V = 2N vertices; V = 1,024: 0.34 s, 2,048: 3.3 s, 4,096:
#: 27 s, i.e. ~3.9e-10 V^3); asymmetric graphs of the same size take far less.
NAUTY_SECONDS_PER_CUBED_VERTEX = 4e-10


def _child(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:  # pragma: no cover
    import faulthandler

    faulthandler.disable()  # a crash here is reported by the parent, as one line
    try:
        conn.send(("ok", fn(*args)))
    except BaseException as exc:  # report any failure to the parent, never hang it
        conn.send(("error", repr(exc)))
    finally:
        conn.close()


def run_nauty(fn: Callable[..., Any], graph: pynauty.Graph, vertices: int,
              deadline: float | None = None) -> Any:
    """``fn(graph)`` (``pynauty.autgrp`` or ``pynauty.canon_label``) within the deadline (an
    absolute ``time.perf_counter()`` value, or None), or
    [`SymmetryUnavailable`][ltheory.errors.SymmetryUnavailable].

    Small graphs run in-process; so do larger ones whose worst-case estimate
    (`NAUTY_SECONDS_PER_CUBED_VERTEX`) fits the time left.  Any other graph runs in a
    forked child process that is killed at the deadline: a nauty call cannot be interrupted,
    and a crash there must not take the caller down."""
    left = None if deadline is None else deadline - time.perf_counter()
    if left is not None and left <= 0:
        raise SymmetryUnavailable("no time left for nauty")
    if vertices <= NAUTY_SMALL_VERTICES:
        return fn(graph)
    est = NAUTY_SECONDS_PER_CUBED_VERTEX * float(vertices) ** 3
    if vertices <= NAUTY_MAX_INPROCESS_VERTICES and (left is None or est <= left):
        return fn(graph)
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, (graph,)), daemon=True)
    proc.start()
    send.close()
    try:
        if not recv.poll(left):
            raise SymmetryUnavailable(f"nauty did not finish within {left:.2f} s "
                                      f"({vertices} vertices)")
        try:
            status, value = recv.recv()
        except EOFError:  # the child died (a signal) before answering
            raise SymmetryUnavailable(f"nauty failed on a graph of {vertices} vertices") from None
        if status != "ok":
            raise SymmetryUnavailable(f"nauty failed on a graph of {vertices} vertices: {value}")
        return value
    finally:
        recv.close()
        if proc.is_alive():
            proc.kill()
        proc.join()



def ints_to_matrix(sets: list[int], width: int) -> np.ndarray:
    """The sets (Python-int bitsets over ``width`` bits) as a boolean matrix, one row a set."""
    nb = max((width + 7) // 8, 1)
    buf = b"".join(s.to_bytes(nb, "little") for s in sets)
    bits = np.unpackbits(np.frombuffer(buf, dtype=np.uint8).reshape(len(sets), nb), axis=1,
                         bitorder="little")
    return bits[:, :width].astype(bool)


def matrix_to_ints(M: np.ndarray) -> list[int]:
    """Each row of a boolean matrix as a Python-int bitset (bit j = column j)."""
    if M.shape[1] == 0:
        return [0] * M.shape[0]
    packed = np.packbits(M, axis=1, bitorder="little")
    return [int.from_bytes(r.tobytes(), "little") for r in packed]


def _colouring(p: int, m: int, fixed: tuple[int, ...]) -> list[set[int]]:
    """Points (each of ``fixed`` in a class of its own), then sets."""
    out = [{x} for x in fixed] + [set(range(p)) - set(fixed)]
    if m:
        out.append(set(range(p, p + m)))
    return out


def incidence_graph(M: np.ndarray, fixed: tuple[int, ...] = ()) -> pynauty.Graph:
    """The incidence graph of a boolean matrix (rows = sets, columns = points) for nauty:
    vertices 0..p-1 the columns, p..p+m-1 the rows, in two colour classes (columns first);
    each column in ``fixed`` gets a colour class of its own (so automorphisms fix it)."""
    m, p = M.shape
    rows, cols = np.nonzero(M)
    cuts = np.searchsorted(rows, np.arange(1, m))
    adj = {p + j: c.tolist() for j, c in enumerate(np.split(cols, cuts)) if len(c)}
    return pynauty.Graph(p + m, directed=False, adjacency_dict=adj,
                         vertex_coloring=_colouring(p, m, fixed))


class SetSystem:
    """A set system given by its sets as int bitsets; points are the bits set in any of them.

    ``points`` lists the points (bit positions) in increasing order and ``matrix`` is the
    incidence matrix (sets x points, in the order of ``sets``).
    """

    def __init__(self, sets: list[int]) -> None:
        self.sets = sets
        union = 0
        for s in sets:
            union |= s
        width = union.bit_length()
        full = ints_to_matrix(sets, width) if sets else np.zeros((0, width), dtype=bool)
        self.points = np.flatnonzero(ints_to_matrix([union], width)[0]) if width else \
            np.zeros(0, dtype=np.int64)
        self.matrix = full[:, self.points]
        self._graph: pynauty.Graph | None = None

    def graph(self) -> pynauty.Graph:
        """The coloured incidence graph (built once)."""
        if self._graph is None:
            self._graph = incidence_graph(self.matrix)
        return self._graph

    def canonical(self, deadline: float | None = None) -> frozenset[int]:
        """The canonical form: the sets relabelled by nauty's canonical order of the points
        (point ``points[lab[i]]`` becomes bit i).  Equal for two set systems iff they are
        isomorphic.  Past the ``deadline`` (`run_nauty`): SymmetryUnavailable."""
        p = len(self.points)
        if not self.sets:
            return frozenset()
        labels = run_nauty(pynauty.canon_label, self.graph(), p + len(self.sets), deadline)
        order = np.asarray(labels[:p])
        if len(order) and order.max() >= p:  # pragma: no cover - nauty keeps colour classes
            raise AssertionError("canonical labelling mixed points and sets")
        return frozenset(matrix_to_ints(self.matrix[:, order]))

    def automorphisms(self, fixed: tuple[int, ...] = (), deadline: float | None = None
                      ) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        """(point generators, set generators, group order, orbits) of Aut(F), or with ``fixed``
        (point indices) of the subgroup fixing each of them.  Row r of the first array maps
        point index i (into ``points``) to ``[r, i]``; of the second, set j to set ``[r, j]``;
        ``orbits[v]`` is the smallest vertex in v's orbit (points 0..p-1, then sets p..p+m-1,
        as in `incidence_graph`).  Past the ``deadline`` (`run_nauty`):
        SymmetryUnavailable."""
        p, m = len(self.points), len(self.sets)
        if p == 0:
            return (np.zeros((0, 0), dtype=np.int64), np.zeros((0, m), dtype=np.int64), 1.0,
                    np.arange(m))
        g = self.graph()
        if fixed:
            g.set_vertex_coloring(_colouring(p, m, fixed))
        try:
            gens, size1, size2, orbits, _ = run_nauty(pynauty.autgrp, g, p + m, deadline)
        finally:
            if fixed:
                g.set_vertex_coloring(_colouring(p, m, ()))
        G = np.asarray(gens, dtype=np.int64).reshape(len(gens), p + m)
        return G[:, :p], G[:, p:] - p, group_order(size1, size2), np.asarray(orbits)


def group_order(size1: float, size2: int) -> float:
    """nauty's group order ``size1 * 10^size2`` as a float, ``inf`` past a float's range (the
    symmetric group on 172 points already has order ~10^311)."""
    lg = order_log10(size1, size2)
    return math.inf if lg > 307 else float(size1) * 10.0 ** int(size2)


def order_log10(size1: float, size2: int) -> float:
    """log10 of nauty's group order ``size1 * 10^size2`` (never overflows)."""
    return math.log10(max(float(size1), 1.0)) + int(size2)


def canonical_form(sets: list[int] | frozenset[int]) -> frozenset[int]:
    """The canonical form of a set system given as int bitsets (see `SetSystem`)."""
    return SetSystem(list(sets)).canonical()


def pair_orbits(n_points: int, n_sets: int, xs: np.ndarray, js: np.ndarray,
                point_gens: np.ndarray, set_gens: np.ndarray) -> np.ndarray:
    """Orbit labels of the pairs (xs[i], js[i]) under the group generated by the generators
    acting on both coordinates (the pairs must form an invariant set).

    The orbits of a group are the connected components of the graph joining each element to its
    images under the generators (every group element is a product of generators; the group is
    finite so inverses are positive powers); components by ``scipy.sparse.csgraph``."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    k = len(xs)
    if k == 0 or len(point_gens) == 0:
        return np.arange(k)
    index = np.full((n_points, n_sets), -1, dtype=np.int64)
    index[xs, js] = np.arange(k)
    src, dst = [], []
    for pg, sg in zip(point_gens, set_gens, strict=True):
        img = index[pg[xs], sg[js]]
        if (img < 0).any():  # pragma: no cover - the pairs are not an invariant set
            raise AssertionError("pair orbits: the pairs are not closed under the group")
        src.append(np.arange(k))
        dst.append(img)
    s, d = np.concatenate(src), np.concatenate(dst)
    graph = coo_matrix((np.ones(len(s), dtype=np.int8), (s, d)), shape=(k, k))
    _, labels = connected_components(graph, directed=True, connection="weak")
    return labels


@dataclass(frozen=True)
class ClassSymmetry:
    """The automorphism group of a finite class H on X: the permutations π of X with H∘π = H.

    ``point_generators[r]`` maps domain index i to ``point_generators[r][i]`` (every point,
    including those on which H is constant); ``hypothesis_generators[r]`` is the induced
    permutation of the rows of H (row j goes to row ``[r][j]``).  ``point_orbits[i]`` is the
    smallest domain index in the orbit of point i; ``order`` is the group's size (a float:
    nauty reports it as mantissa and exponent).
    """

    point_generators: tuple[tuple[int, ...], ...]
    hypothesis_generators: tuple[tuple[int, ...], ...]
    point_orbits: tuple[int, ...]
    order: float

    def orbit_representatives(self) -> list[int]:
        """The smallest domain index of every point orbit."""
        return sorted(set(self.point_orbits))

    def to_json(self) -> dict[str, Any]:
        return {"order": self.order, "generators": [list(g) for g in self.point_generators],
                "point_orbits": list(self.point_orbits)}


def class_symmetry(H: HypothesisClass, fixed: tuple[int, ...] = (),
                   deadline: float | None = None) -> ClassSymmetry:
    """The automorphisms of a class (see `ClassSymmetry`), by nauty on the incidence
    graph of its hypotheses as subsets of the domain (points in no hypothesis included: an
    extra point vertex of degree 0 each).  With ``fixed`` (domain indices): the subgroup fixing
    each of those points (its *pointwise stabiliser*).  Past the ``deadline`` (an absolute
    ``time.perf_counter()`` value; `run_nauty`): SymmetryUnavailable."""
    n, m = H.domain_size, len(H)
    if n + m == 0:
        return ClassSymmetry((), (), (), 1.0)
    gens, size1, size2, orbits, _ = run_nauty(
        pynauty.autgrp, incidence_graph(H.matrix.astype(bool), tuple(fixed)), n + m, deadline)
    pg = tuple(tuple(g[:n]) for g in gens)
    hg = tuple(tuple(v - n for v in g[n:]) for g in gens)
    first: dict[int, int] = {}
    for i, o in enumerate(orbits[:n]):
        first.setdefault(o, i)
    return ClassSymmetry(pg, hg, tuple(first[o] for o in orbits[:n]),
                         group_order(size1, size2))


def first_point_choices(H: HypothesisClass, candidates: list[int],
                        deadline: float | None = None
                        ) -> tuple[list[bool], dict[int, list[bool]]] | None:
    """Symmetry cuts for the first two points of a threshold ladder drawn from ``candidates``
    (domain indices): ``(first, second)``, where ``first[c]`` says whether candidate c may be
    x_1 -- the first candidate of each point orbit of Aut(H) -- and ``second[c]`` (for each
    allowed c) whether candidate d may then be x_2 -- the first candidate of each orbit of the
    stabiliser of c.

    Sound for ladders whose points are drawn from ``candidates`` when every point of the class
    can be replaced by a candidate with the same column (as in `ltheory.sat.encode`'s
    clone reduction).  If (x_1, h_1), ..., (x_k, h_k) is a ladder and π an automorphism
    (H∘π = H), then (π x_i, h_i∘π^{-1}) is a ladder; its points can then be swapped for
    candidate clones (clones take equal values on every hypothesis, and two ladder points are
    never clones: h_{i+1} tells x_i from x_{i+1}..x_k).  So a ladder with x_1 = p gives one with
    x_1 = the first candidate c of p's orbit; and then, with π in the stabiliser of c, one with
    x_1 = c and x_2 = the first candidate of x_2's orbit under that stabiliser.

    None when nauty could not run within the ``deadline`` (`run_nauty`): no cuts.  Past
    the deadline the stabilisers of the remaining first points are skipped (no cut is sound).
    """
    try:
        sym = class_symmetry(H, deadline=deadline)
    except SymmetryUnavailable:
        return None

    def firsts(orbits: tuple[int, ...]) -> list[bool]:
        seen: set[int] = set()
        out = []
        for x in candidates:
            out.append(orbits[x] not in seen)
            seen.add(orbits[x])
        return out

    first = firsts(sym.point_orbits)
    second: dict[int, list[bool]] = {}
    if sym.order > 1:
        for c, ok in zip(candidates, first, strict=True):
            if ok:
                try:
                    second[c] = firsts(class_symmetry(H, (c,), deadline).point_orbits)
                except SymmetryUnavailable:
                    continue
    return first, second


@dataclass(frozen=True)
class PointSymmetry:
    """A group of automorphisms of a class H (domain permutations π with H∘π = H), given by
    generators each *verified* on H, with its point orbits.

    ``generators[r][x]`` is the image of domain index x; ``orbits[x]`` the smallest domain
    index in x's orbit; ``order`` the group's size as nauty reports it for the weighted
    co-occurrence graph (exact when ``complete``: every generator nauty found was verified, so
    the group is all of Aut(H)); ``rejected`` counts generators that failed verification (the
    group is then the one generated by the others -- smaller, still sound to use)."""

    generators: tuple[tuple[int, ...], ...]
    orbits: tuple[int, ...]
    order: float
    complete: bool
    rejected: int

    def representatives(self) -> list[int]:
        """The smallest domain index of every point orbit, in increasing order."""
        return sorted(set(self.orbits))

    def permutation_group(self) -> Any:
        """The group as a `sympy.combinatorics.PermutationGroup` (for stabilisers by
        Schreier--Sims), or None when it is trivial."""
        if not self.generators:
            return None
        from sympy.combinatorics import Permutation, PermutationGroup

        return PermutationGroup([Permutation(list(g)) for g in self.generators])


def _is_automorphism(rows: np.ndarray, M: np.ndarray, perm: np.ndarray) -> bool:
    """Whether {h∘π : h in H} = H, i.e. permuting the columns of M by π gives the same rows
    (``rows``: the sorted packed rows of M)."""
    img = np.ascontiguousarray(np.packbits(M[:, perm].astype(bool), axis=1))
    img = np.sort(img.view(f"V{img.shape[1]}").ravel())
    return bool(np.array_equal(img, rows))


def orbits_from_generators(n: int, gens: list[np.ndarray]) -> np.ndarray:
    """Point orbits of the group generated by ``gens`` (connected components of the graph
    x -- g(x), by ``scipy.sparse.csgraph``), each labelled by its smallest point."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    src = np.tile(np.arange(n), len(gens))
    dst = np.concatenate(gens) if gens else np.zeros(0, dtype=np.int64)
    graph = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    _, labels = connected_components(graph, directed=True, connection="weak")
    smallest = np.full(labels.max() + 1 if n else 0, n, dtype=np.int64)
    np.minimum.at(smallest, labels, np.arange(n))
    return smallest[labels]


#: Above this many points `point_symmetry` does not look for symmetries (its co-occurrence
#: matrix has |X|^2 entries, its layered graph |X| x layers vertices).
POINT_SYMMETRY_MAX_POINTS = 4096

#: ... and not on co-occurrence graphs with more edges than this (all layers), nor when building
#: the graph (~1 us an edge, measured: random m=64 n=2000, 5.6e6 edges, 5.6 s before the edges
#: were built with numpy) is not expected to fit the time left.
POINT_SYMMETRY_MAX_EDGES = 20_000_000
POINT_SYMMETRY_SECONDS_PER_EDGE = 1e-6


#: Rows of the class matrix per block of `_cooccurrence` (float32 blocks of at most
#: 2^22 entries: exact counts, 16 MB, ~0.1 s a block at 3,000 points, the clock read between).
COOCCURRENCE_BLOCK_ENTRIES = 1 << 22


def _cooccurrence(M: np.ndarray, deadline: float | None) -> np.ndarray | None:
    """C = M^T M (int64): c(x, y) = #{h : h(x) = h(y) = 1}, summed over blocks of rows, each a
    float32 product (exact: a block has fewer than 2^24 rows), reading the clock between blocks;
    None if the deadline passes first.  One product of the whole matrix took 8 of the 10 s of a
    VC search on a tall class, uninterruptibly, with a float copy of the class (issue 40)."""
    m, n = M.shape
    C = np.zeros((n, n), dtype=np.int64)
    rows = max(1, COOCCURRENCE_BLOCK_ENTRIES // max(n, 1))
    for a in range(0, m, rows):
        if deadline is not None and time.perf_counter() >= deadline:
            return None
        B = M[a:a + rows].astype(np.float32)
        C += np.rint(B.T @ B).astype(np.int64)
    return C


def point_symmetry(H: HypothesisClass, deadline: float | None = None) -> PointSymmetry:
    """Automorphisms of H found on its *weighted co-occurrence graph* and verified on H.

    Every π in Aut(H) preserves c(x, y) = #{h in H : h(x) = h(y) = 1} (the diagonal included),
    so Aut(H) is a subgroup of the automorphism group of the complete graph on the domain with
    these edge weights.  That graph has only |X| vertices (the incidence graph of
    `class_symmetry` has |X| + |H|: 48 s for halfspaces g=12 dim=2, 12,790 + 144
    vertices), and nauty handles weights by the standard layering: vertex (x, l) for each bit l
    of the weight's index, joined to (y, l) when that bit is set, the copies of x joined in a
    path, each layer (and each diagonal value) a colour class of its own.  nauty's generators
    of that group are then checked one by one against H (`_is_automorphism`); those that
    pass generate a subgroup of Aut(H) -- all of it when none fails.  Cost: one product
    M^T M (float32 below 2^24 hypotheses, exact) and one sort of the rows per generator.

    The trivial group (``complete=False``, sound to use) is returned instead when the domain
    has more than `POINT_SYMMETRY_MAX_POINTS` points, when nauty cannot run within the
    ``deadline`` (an absolute ``time.perf_counter()`` value; `run_nauty`), and the
    generators verified when the deadline passes are all that are kept.
    """
    M = H.matrix
    m, n = M.shape
    if n <= 1 or m == 0:
        return PointSymmetry((), tuple(range(n)), 1.0, True, 0)
    if n > POINT_SYMMETRY_MAX_POINTS:
        return PointSymmetry((), tuple(range(n)), 1.0, False, 0)
    C = _cooccurrence(M, deadline)
    if C is None:  # the deadline passed while counting: the trivial group (sound)
        return PointSymmetry((), tuple(range(n)), 1.0, False, 0)
    diag = np.diag(C).copy()
    iu = np.triu_indices(n, 1)
    values, index = np.unique(C[iu], return_inverse=True)
    layers = max(1, int(len(values) - 1).bit_length())
    bits = [((index >> lay) & 1).astype(bool) for lay in range(layers)]
    edges = sum(int(b.sum()) for b in bits) + (layers - 1) * n
    left = None if deadline is None else deadline - time.perf_counter()
    if edges > POINT_SYMMETRY_MAX_EDGES or (
            left is not None and edges * POINT_SYMMETRY_SECONDS_PER_EDGE > left):
        return PointSymmetry((), tuple(range(n)), 1.0, False, 0)
    src, dst = [], []
    for lay in range(layers):
        src.append(iu[0][bits[lay]] + lay * n)
        dst.append(iu[1][bits[lay]] + lay * n)
        if lay + 1 < layers:
            src.append(np.arange(n) + lay * n)
            dst.append(np.arange(n) + (lay + 1) * n)
    src_a, dst_a = np.concatenate(src), np.concatenate(dst)
    order = np.argsort(src_a, kind="stable")
    src_a, dst_a = src_a[order], dst_a[order]
    keys, starts = np.unique(src_a, return_index=True)
    adj = dict(zip(keys.tolist(), (a.tolist() for a in np.split(dst_a, starts[1:])),
                   strict=True)) if len(src_a) else {}
    colours: list[set[int]] = []
    for lay in range(layers):
        for d in np.unique(diag).tolist():
            colours.append({int(x) + lay * n for x in np.flatnonzero(diag == d)})
    g = pynauty.Graph(n * layers, directed=False, adjacency_dict=adj, vertex_coloring=colours)
    try:
        gens, size1, size2, _, _ = run_nauty(pynauty.autgrp, g, n * layers, deadline)
    except SymmetryUnavailable:
        return PointSymmetry((), tuple(range(n)), 1.0, False, 0)
    packed = np.ascontiguousarray(np.packbits(M.astype(bool), axis=1))
    rows = np.sort(packed.view(f"V{packed.shape[1]}").ravel())
    kept: list[np.ndarray] = []
    rejected = 0
    for gen in gens:
        if deadline is not None and time.perf_counter() >= deadline:
            rejected += 1  # not verified in time: left out (a subgroup is still sound)
            continue
        perm = np.asarray(gen[:n], dtype=np.int64)
        if _is_automorphism(rows, M, perm):
            kept.append(perm)
        else:
            rejected += 1
    orbits = orbits_from_generators(n, kept)
    # nauty reports the order as size1 * 10^size2; for near-complete co-occurrence graphs
    # (parities: every pair co-occurs equally often, the graph's group is a symmetric group)
    # size2 runs past a float's range.
    order = group_order(size1, size2)
    return PointSymmetry(tuple(tuple(p.tolist()) for p in kept), tuple(orbits.tolist()),
                         order, rejected == 0, rejected)
