"""Exact clique number ω_m(H) = ω(G_m(H)) of the contradiction graph, with a witness clique.

Definitions (Alon, Moran, Schefler, Yehudayoff, "A unified characterization of private
learnability via graph theory", COLT 2024; seed 002 §5, Definitions 3 and 5, Theorem 5): a clique
of G_m(H) is a family of H-realizable samples of size m that pairwise contradict; ω_m is its
largest size.  Theorem 5: either ω_m = 2^m for every m, or ω_m ≤ poly(m), and H is
approximate-DP learnable iff ω_m ≤ poly(m).

Bounds used as fast paths (each proven here, each certified by the witness or by a count):

* **ω_m ≤ |H|.**  Distinct members S ≠ S' of a clique contradict, so no h realises both; choosing
  a realising hypothesis for each member is therefore injective.  (More generally the sets
  I_h = {samples realised by h} are independent and cover all vertices: a colouring by |H|
  colours.)
* **ω_m ≤ 2^m.**  Members of a clique pairwise contradict, so for any total labelling g at most one
  member is consistent with g; a uniformly random g is consistent with a sample on j ≤ m distinct
  points with probability 2^{-j} ≥ 2^{-m}, and summing over the clique gives |C| 2^{-m} ≤ 1.
* **ω_m = 2^m when H shatters an m-set T** (VC(H) ≥ m): the 2^m labellings of T are realizable
  and any two differ at a point of T.
* **ω_m = 2^m when Ldim(H) ≥ m**: a shattered mistake tree of depth m (no repeated point on a
  path) has 2^m root-to-leaf paths, each a realizable sample of m distinct points; two distinct
  paths diverge at a node x where one goes to child 0 and the other to child 1, so they label x
  differently: a contradiction.  Since VC ≤ Ldim, this subsumes the previous case, but a
  shattered set is cheaper to find.
* **Monotone in m:** ω_m ≥ ω_{m'} for m' ≤ m (extend every member of a clique of G_{m'} by points
  labelled by a realising hypothesis; contradictions survive).  Hence ω_m ≥ 2^{min(m, Ldim)}.

Exact search (``method``):

* ``"bnb"`` (default): bitset branch and bound with greedy-colouring bounds (San Segundo's BBMC,
  after Tomita's MCQ/MCS): vertices renumbered by non-increasing degree, candidate sets are Python
  ints, each node colours its candidates greedily (a colour class is built by repeatedly taking
  the lowest candidate and removing its neighbours) and only branches on vertices whose colour can
  still beat the incumbent.  Seeded with the fast-path lower bound and the witness clique.
* ``"networkx"``: ``networkx.algorithms.clique.max_weight_clique(G, weight=None)``, the baseline.
  ``benchmarks/bench_graphs.py`` measures both on the same graphs.

Budgets: ``budget`` (seconds) stops the search and returns the incumbent clique as a proven lower
bound with the best proven upper bound (exact=False); ``max_vertices`` caps the graph size
([`BudgetExceededError`][ltheory.BudgetExceededError] when exceeded and the fast paths did not
settle it).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dimensions import littlestone_dimension, vc_dimension
from ltheory.dims.budget import check_budget
from ltheory.dims.result import DimensionResult
from ltheory.errors import InvalidInputError
from ltheory.graphs.clique_sat import sat_applicable, sat_clique
from ltheory.graphs.contradiction import (
    DEFAULT_MAX_VERTICES,
    ContradictionGraph,
    check_order,
    contradiction_graph,
)

__all__ = ["clique_number", "max_clique", "fast_path_clique"]

_METHODS = ("auto", "bnb", "sat", "networkx")

#: Seconds the branch and bound gets first under ``method="auto"`` before the SAT ladder.
BNB_FIRST = 0.2


class _Expired(Exception):
    pass


# --------------------------------------------------------------------------- fast paths
def _pad(pairs: list[list[Any]], H: HypothesisClass, m: int, h: str) -> list[list[Any]]:
    """Extend a realizable sample (list of [label, bit], distinct points) to m distinct points
    labelled by the realising hypothesis h (a bit string); pad with repeats if |X| < m."""
    used = {p[0] for p in pairs}
    out = [list(p) for p in pairs]
    for i, lab in enumerate(H.domain):
        if len(out) >= m:
            break
        if lab not in used:
            out.append([lab, int(h[i])])
    while len(out) < m:
        out.append(list(out[-1]))
    return out


def _tree_paths(tree: dict[str, Any], prefix: list[list[Any]]) -> list[tuple[list[list[Any]],
                                                                              str]]:
    if "hypothesis" in tree:
        return [(prefix, tree["hypothesis"])]
    out = []
    for b in ("0", "1"):
        out += _tree_paths(tree["children"][b], prefix + [[tree["point"], int(b)]])
    return out


def _truncate(tree: dict[str, Any], depth: int) -> list[tuple[list[list[Any]], str]]:
    """Paths of the top ``depth`` levels of a mistake tree, each with a realising hypothesis."""
    paths = []
    for path, h in _tree_paths(tree, []):
        paths.append((path[:depth], h))
    seen: dict[str, tuple[list[list[Any]], str]] = {}
    for p, h in paths:
        seen.setdefault(repr(p), (p, h))
    return list(seen.values())


def fast_path_clique(H: HypothesisClass, m: int, budget: float | None = None
                     ) -> tuple[list[list[list[Any]]], dict[str, Any]]:
    """A clique of G_m(H) of size 2^{min(m, d)} from a shattered set (d = VC) or a shattered
    mistake tree (d = Ldim), whichever is larger, as JSON samples; and the stats used."""
    m = check_order(H, m)
    stats: dict[str, Any] = {}
    if H.domain_size == 0:
        return [], stats
    vc = vc_dimension(H, budget=budget)
    stats["vc"] = vc.value if vc.exact else [vc.lower, vc.upper]
    best: list[list[list[Any]]] = []
    d = min(m, int(vc.lower))
    if d >= 0:
        T = list(vc.witness)[:d]
        idx = [H.point_index(x) for x in T]
        M = H.matrix
        for code in range(1 << d):
            want = [(code >> j) & 1 for j in range(d)]
            row = next(r for r in range(len(H))
                       if all(int(M[r, i]) == w for i, w in zip(idx, want, strict=True)))
            h = "".join(map(str, M[row].tolist()))
            best.append(_pad([[x, w] for x, w in zip(T, want, strict=True)], H, m, h))
    if len(best) < (1 << m):
        ld = littlestone_dimension(H, budget=budget)
        stats["ldim"] = ld.value if ld.exact else [ld.lower, ld.upper]
        dl = min(m, int(ld.lower))
        if (1 << max(dl, 0)) > len(best) and ld.witness is not None:
            best = [_pad(p, H, m, h) for p, h in _truncate(ld.witness, dl)]
    return best, stats


# --------------------------------------------------------------------------- exact search
def max_clique(adj: list[int], lower: int = 0, initial: list[int] | None = None,
               deadline: float | None = None, upper: int | None = None
               ) -> tuple[list[int], bool, int]:
    """Maximum clique of a graph given by adjacency bitsets (BBMC-style branch and bound).

    Returns (clique, complete, nodes): ``complete`` is False when the deadline stopped the
    search (the clique is then only the incumbent).  ``lower``/``initial`` seed the incumbent;
    the search stops early once it reaches ``upper`` (a proven bound)."""
    V = len(adj)
    if V == 0:
        return [], True, 0
    order = sorted(range(V), key=lambda v: -adj[v].bit_count())
    pos = [0] * V
    for i, v in enumerate(order):
        pos[v] = i
    # renumbered adjacency: bit i = order[i]; each row's bits permuted with numpy (a Python
    # loop over set bits took 46 s on a dense 16,240-vertex graph; this takes ~1 s)
    perm = np.asarray(order, dtype=np.int64)
    nbytes = (V + 7) // 8
    nadj = []
    for v in order:
        if deadline is not None and time.perf_counter() > deadline:
            return list(initial or []), False, 0
        bits = np.unpackbits(np.frombuffer(adj[v].to_bytes(nbytes, "little"), dtype=np.uint8),
                             bitorder="little")[:V]
        nadj.append(int.from_bytes(np.packbits(bits[perm], bitorder="little").tobytes(),
                                   "little"))
    best: list[int] = [pos[v] for v in initial] if initial else []
    best_size = max(len(best), lower)
    nodes = 0
    target = upper if upper is not None else V + 1

    def expand(P: int, C: list[int]) -> None:
        nonlocal best, best_size, nodes
        nodes += 1
        # every node: on large graphs one node (its colouring) costs up to ~0.1 s, so checking
        # every 256 nodes overran a 1 s budget by 40 s
        if deadline is not None and time.perf_counter() > deadline:
            raise _Expired
        kmin = best_size - len(C) + 1
        for v, col in reversed(_colour_sort(P, nadj, max(kmin, 1))):
            if len(C) + col <= best_size or best_size >= target:
                return
            C.append(v)
            NP = P & nadj[v]
            if NP:
                expand(NP, C)
            elif len(C) > best_size:
                best = list(C)
                best_size = len(C)
            C.pop()
            P &= ~(1 << v)

    complete = True
    try:
        expand((1 << V) - 1, [])
    except _Expired:
        complete = False
    return [order[i] for i in best], complete, nodes


def _colour_sort(P: int, adj: list[int], kmin: int) -> list[tuple[int, int]]:
    """Greedy colouring of the vertex bitset P (colour classes are independent sets, built in
    vertex order): the pairs (v, colour of v) with colour >= kmin, in colour order."""
    out = []
    U = P
    k = 0
    while U:
        k += 1
        Q = U
        while Q:
            low = Q & -Q
            v = low.bit_length() - 1
            Q &= ~adj[v] & ~low
            U &= ~low
            if k >= kmin:
                out.append((v, k))
    return out


def _greedy_colouring(adj: list[int]) -> np.ndarray:
    """The colour (0, 1, ...) of every vertex in a greedy colouring: independent colour classes,
    so the number of colours is an upper bound on ω."""
    colours = np.zeros(len(adj), dtype=np.int64)
    for v, col in _colour_sort((1 << len(adj)) - 1, adj, 1):
        colours[v] = col - 1
    return colours


def _networkx_clique(graph: ContradictionGraph) -> list[int]:
    import networkx as nx

    clique, _ = nx.algorithms.clique.max_weight_clique(graph.to_networkx(with_samples=False),
                                                       weight=None)
    return list(clique)


def clique_number(H: HypothesisClass, m: int, budget: float | None = None, *,
                  method: str = "auto", fast_paths: bool = True,
                  max_vertices: int | None = DEFAULT_MAX_VERTICES) -> DimensionResult:
    """ω_m(H), the clique number of the contradiction graph G_m(H), with a witness clique.

    Returns a [`DimensionResult`][ltheory.DimensionResult] of kind ``"clique"`` whose witness is a
    list of samples, each a list of m ``[LABEL, BIT]`` pairs (the [witness
    formats][witness-formats]), pairwise contradicting and each realised by H.  Bounds: max(clique
    found) ≤ ω_m ≤ min(2^m, |H|, greedy colouring number). ``method``: ``"bnb"`` (bitset branch and
    bound), ``"sat"`` (the SAT ladder of `ltheory.graphs.clique_sat`; the branch and bound where the
    graph has too many non-edges for it), ``"auto"`` (default: the branch and bound for
    ``BNB_FIRST`` seconds, then the SAT ladder from its incumbent if it has not finished) or
    ``"networkx"`` (max_weight_clique, the baseline); ``fast_paths=False`` skips the VC/Littlestone
    shortcut (for benchmarks); ``max_vertices`` caps the graph (default 200 000,
    `DEFAULT_MAX_VERTICES`).  Raises [`InvalidInputError`][ltheory.InvalidInputError] for m < 1 or
    an empty class."""
    t0 = time.perf_counter()
    m = check_order(H, m)
    if method not in _METHODS:
        raise InvalidInputError(f"method must be one of {', '.join(_METHODS)}; got {method!r}")
    budget = check_budget(budget)
    deadline = None if budget is None else t0 + budget
    upper = min(1 << m, len(H)) if H.domain_size > 0 else 0
    stats: dict[str, Any] = {"m": m}
    witness: list[list[list[Any]]] = []
    if fast_paths and upper > 0:
        witness, fstats = fast_path_clique(H, m, budget=budget)
        stats.update(fstats)
        if len(witness) >= upper:
            stats["method"] = "fast-path"
            return DimensionResult.proven("clique", len(witness), len(witness), witness,
                                          seconds=time.perf_counter() - t0, stats=stats)
    if H.domain_size == 0:
        stats["method"] = "empty-domain"
        return DimensionResult.proven("clique", 0, 0, [], seconds=time.perf_counter() - t0,
                                      stats=stats)
    graph = contradiction_graph(H, m, max_vertices=max_vertices)
    stats["vertices"] = len(graph)
    stats["method"] = method
    if method == "networkx":
        vs = _networkx_clique(graph)
        witness = graph.samples(vs)
        return DimensionResult.proven("clique", len(vs), len(vs), witness,
                                      seconds=time.perf_counter() - t0, stats=stats)
    colours = _greedy_colouring(graph.adj)
    upper = min(upper, int(colours.max()) + 1 if len(colours) else 0)
    stats["colouring_bound"] = upper
    lower = len(witness)
    use_sat = method in ("sat", "auto") and sat_applicable(graph)
    complete = False
    if not (method == "sat" and use_sat):
        bnb_end = deadline
        if method == "auto" and use_sat:
            bnb_end = t0 + BNB_FIRST if deadline is None else min(deadline, t0 + BNB_FIRST)
        vs, complete, nodes = max_clique(graph.adj, lower=lower, deadline=bnb_end, upper=upper)
        stats["nodes"] = nodes
        if len(vs) > lower:
            witness, lower = graph.samples(vs), len(vs)
    if not complete and lower < upper and use_sat:
        left = None if deadline is None else deadline - time.perf_counter()
        if left is None or left > 0:
            vs, upper, complete, stats["sat"] = sat_clique(graph, lower, upper, budget=left,
                                                           colours=colours)
            if vs is not None and len(vs) > lower:
                witness, lower = graph.samples(vs), len(vs)
    elif method in ("sat", "auto") and not use_sat:
        stats["sat"] = ("not used: python-sat is not installed or the graph has more non-edges "
                        "than ltheory.graphs.clique_sat.MAX_NON_EDGES")
    value = len(witness)
    exact = complete or value >= upper
    return DimensionResult.proven("clique", value, value if exact else upper, witness,
                                  seconds=time.perf_counter() - t0, stats=stats)
