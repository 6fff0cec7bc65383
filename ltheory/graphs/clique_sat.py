"""Clique number of a contradiction graph by a SAT ladder over independent-set classes.

The branch and bound of `ltheory.graphs.clique` bounds a search node by a greedy colouring,
which is weak on the dense contradiction graphs of small classes: measured on three members of
the ``amsy24`` theorem checks, it left ω_4(random 12 × 7) at 11..12 and ω_5(intervals n = 7) at
26..29 after 60 s each, and took 35 s for ω_4(thresholds n = 12) = 13.  The same questions as
satisfiability problems take milliseconds (ω = 12, 28; 13 in ~3 s, most of it writing clauses).

Encoding (graph G = (V, E), a partition of V into independent sets I_1..I_K, a target t):

* x_v for each vertex v: v is in the clique; y_c for each class: the clique meets I_c;
* ¬x_u ∨ ¬x_w for every non-adjacent pair u ≠ w (so the chosen vertices form a clique);
* ¬y_c ∨ ⋁_{v ∈ I_c} x_v (a class counts only if one of its vertices is chosen);
* Σ_c y_c ≥ t, as Σ_c ¬y_c ≤ K − t on an incremental totalizer (python-sat's ``ITotalizer``),
  asserted by an assumption, so one solver answers t = L + 1, L + 2, ... in turn.

A clique meets each independent set at most once, so ω(G) ≥ t iff the formula is satisfiable; a
model's chosen vertices are a clique of size ≥ t (checked edge by edge before it is used) and an
UNSAT answer proves ω(G) ≤ t − 1 (the solver and its conflict count are recorded; the upper
bound rests on the solver, as every UNSAT bound of `ltheory.sat.search` does).  The classes
are the sets I_h = {samples realised by h} (each vertex to the first hypothesis realising it: a
partition into at most |H| independent sets, see `ltheory.graphs.clique`) or the classes
of the branch and bound's greedy colouring, whichever are fewer; K also bounds ω.

The formula has one clause per non-edge, so the ladder is used only when the graph has at most
``MAX_NON_EDGES`` of them (`sat_applicable`); otherwise the branch and bound keeps the job.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ltheory.graphs.contradiction import ContradictionGraph

__all__ = ["MAX_NON_EDGES", "sat_applicable", "sat_clique"]

#: Largest number of non-adjacent pairs (binary clauses) the ladder writes.
MAX_NON_EDGES = 4_000_000


def sat_applicable(graph: ContradictionGraph) -> bool:
    """Whether python-sat is installed and the graph small enough in non-edges for
    `sat_clique` (python-sat is imported only here and there: the exact paths of ltheory
    run without it)."""
    V = len(graph)
    if not (V > 0 and V * (V - 1) // 2 - graph.num_edges <= MAX_NON_EDGES):
        return False
    try:
        import pysat.card  # noqa: F401
    except ImportError:
        return False
    return True


def _bits_row(a: int, V: int) -> np.ndarray:
    """A Python-int bitset over V vertices as a boolean array."""
    raw = np.frombuffer(a.to_bytes((V + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:V].astype(bool)


def _hypothesis_classes(graph: ContradictionGraph) -> np.ndarray:
    """For each vertex, the index of the first hypothesis realising it (vectorised over the
    vertices, one pass per hypothesis until every vertex has one)."""
    M = graph.H.matrix
    V = len(graph)
    cls = np.full(V, -1, dtype=np.int64)
    todo = np.arange(V)
    for h in range(M.shape[0]):
        hit = np.all(M[h][graph.points[todo]] == graph.bits[todo], axis=1)
        cls[todo[hit]] = h
        todo = todo[~hit]
        if not len(todo):
            break
    if len(todo):  # every vertex is realisable by construction of the graph
        raise AssertionError("a contradiction-graph vertex realised by no hypothesis")
    return cls


def sat_clique(graph: ContradictionGraph, lower: int, upper: int, *,
               budget: float | None = None, solver: str = "cadical195",
               colours: np.ndarray | None = None
               ) -> tuple[list[int] | None, int, bool, dict[str, Any]]:
    """Climb from ``lower`` (a clique size already proven) towards ``upper`` (a proven bound):
    returns (a clique larger than ``lower`` as vertex indices, or None; the proven upper bound;
    whether the answer is complete; stats).  ``budget`` seconds (None: no limit); ``colours``:
    a colouring of the graph (colour per vertex;
    [`ltheory.clique_number`][ltheory.clique_number]
    passes its greedy one), used as the classes when it has fewer than the hypotheses."""
    from pysat.card import ITotalizer
    from pysat.solvers import Solver

    from ltheory.sat.search import SOLVERS, Deadline, solve_within

    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}")
    t0 = time.perf_counter()
    deadline = Deadline(budget)
    V = len(graph)
    by_h = _hypothesis_classes(graph)
    use_h = colours is None or len(np.unique(by_h)) <= len(np.unique(colours))
    _, cls = np.unique(by_h if use_h else colours, return_inverse=True)
    K = int(cls.max()) + 1
    upper = min(upper, K)
    stats: dict[str, Any] = {"classes": K,
                             "classes_from": "hypotheses" if use_h else "greedy colouring"}
    if lower >= upper:
        return None, upper, True, stats
    idx = np.arange(V)
    clauses: list[list[int]] = []
    for u in range(V - 1):               # ¬x_u ∨ ¬x_w for non-adjacent u < w
        non = ~_bits_row(graph.adj[u], V) & (idx > u)
        w = np.flatnonzero(non)
        if len(w):
            clauses += np.column_stack((np.full(len(w), -(u + 1)), -(w + 1))).tolist()
    ys = list(range(V + 1, V + K + 1))
    for c in range(K):                   # y_c -> some vertex of class c
        clauses.append([-ys[c]] + (np.flatnonzero(cls == c) + 1).tolist())
    tot = ITotalizer(lits=[-y for y in ys], ubound=K, top_id=V + K)
    stats["clauses"] = len(clauses) + len(tot.cnf.clauses)
    best: list[int] | None = None
    calls = []
    complete = False
    with Solver(name=solver, bootstrap_with=clauses + tot.cnf.clauses) as s:
        t = lower + 1
        while t <= upper:
            t1 = time.perf_counter()
            res = solve_within(s, deadline, [-tot.rhs[K - t]])   # Σ ¬y_c ≤ K - t
            calls.append({"target": t, "result": res,
                          "seconds": round(time.perf_counter() - t1, 4),
                          "conflicts": s.accum_stats().get("conflicts")})
            if res is None:
                break
            if not res:
                upper = t - 1
                complete = True
                break
            model = s.get_model()
            vs = [v for v in range(V) if model[v] > 0]
            if not graph.is_clique(vs) or len(vs) < t:
                raise AssertionError("the clique encoding returned a non-clique")
            best = vs
            t = len(vs) + 1
        else:
            complete = True
    stats.update(solver=solver, calls=calls, seconds=round(time.perf_counter() - t0, 4))
    return best, upper, complete, stats
