"""SAT-backed search for the Littlestone, VC and threshold dimensions, with certified bounds.

Works on explicit classes ([`HypothesisClass`][ltheory.HypothesisClass], encoded as G = identity of
one class) and on
lazy composed classes G(H_1, ..., H_k) ([`ComposedClass`][ltheory.ComposedClass]) without building
the product.

Lower bounds come only from decoded SAT models (or from an exact search on a sample of composed
hypotheses): each is turned into a witness in the JSON form of the
[witness formats][witness-formats] — for a composed class
every leaf / ladder hypothesis also carries ``"components"``, the bit strings of h_1..h_k with
G(h_1..h_k) equal to it — and checked by `ltheory.sat.certify` before it is reported.
Upper bounds come from UNSAT answers (the solver and its conflict count are recorded in
``stats["calls"]``) or from cheap proven bounds:

* Ldim(C) <= floor(log2 |C|) (Littlestone 1988; ABMS20 §1), with |C| bounded without
  materialising by [`ComposedClass.size_upper_bound`][ltheory.ComposedClass.size_upper_bound] (<=
  prod |H_i|, so
  Ldim <= floor(sum log2 |H_i|)); VC(C) <= Ldim bound as well;
* every dimension <= the number of candidate points (points where C is not constant, one per
  class of clones; for thresholds plus one constant-1 point), since witnesses use distinct
  points;
* T(C) <= |C|.

ABMS20 Theorem 2.1 (Ldim(G(H_1..H_k)) <= Õ(2^{2k} k^2 d)) and Theorem 2.2
(T(G(H_1..H_k)) < 2^{4k·4^k·t}) are not used: the first hides its constants, the second is far
weaker than the bounds above for every class this module can handle.

Budgets are wall-clock seconds: each solver call is interrupted (``Solver.interrupt``) at the
deadline, and the result then reports the bounds proven so far with ``exact=False``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from pysat.solvers import Solver

from ltheory.core.boolean import Aggregation
from ltheory.core.compose import ComposedClass
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.certificates import verify
from ltheory.dims.components import attach_components
from ltheory.dims.components import bit_string as _bits
from ltheory.dims.littlestone import littlestone_exact
from ltheory.dims.result import DimensionResult
from ltheory.dims.threshold import threshold_exact
from ltheory.dims.vc import vc_exact
from ltheory.errors import InvalidInputError
from ltheory.sat.certify import verify_composed
from ltheory.sat.encode import Realisation, reduced_problem

__all__ = ["SOLVERS", "Deadline", "Enumeration", "as_composed", "enumerate_composed",
           "sat_littlestone", "sat_threshold", "sat_vc", "solve_within"]

SOLVERS = ("cadical195", "glucose42")
_IDENTITY = Aggregation.parse("id")


def as_composed(H: HypothesisClass | ComposedClass) -> tuple[ComposedClass, bool]:
    """(C, explicit): an explicit class is the composition id(H)."""
    if isinstance(H, ComposedClass):
        return H, False
    if isinstance(H, HypothesisClass):
        return ComposedClass(_IDENTITY, [H], name=H.name), True
    raise InvalidInputError(f"expected a HypothesisClass or ComposedClass, got {type(H).__name__}")


class Deadline:
    """A wall-clock deadline ``seconds`` from now (None: no deadline), for `solve_within`."""

    def __init__(self, seconds: float | None) -> None:
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(
                seconds, (int, float)) or not seconds > 0):
            raise InvalidInputError(f"budget must be a positive number of seconds or None, got "
                                    f"{seconds!r}")
        self.t0 = time.perf_counter()
        self.end = None if seconds is None else self.t0 + float(seconds)

    def left(self) -> float | None:
        return None if self.end is None else self.end - time.perf_counter()

    def expired(self) -> bool:
        return self.end is not None and time.perf_counter() >= self.end


#: Seconds one solver slice aims at (``solve_within``): the most a budget can be overrun by a slice.
_SLICE = 0.5


def solve_within(solver: Any, deadline: Deadline, assumptions: list[int] | None = None
                 ) -> bool | None:
    """Solve within the deadline (None = out of time); never raises on timeout.

    CaDiCaL in python-sat has no ``interrupt``, so budgets are enforced portably: the solver runs
    in slices of a conflict budget (``conf_budget`` + ``solve_limited``; a slice resumes the same
    search with everything learned so far) and the clock is read between slices.
    """
    assumptions = assumptions or []
    if deadline.end is None:
        return bool(solver.solve(assumptions=assumptions))
    chunk = 1000
    while True:
        left = deadline.end - time.perf_counter()
        if left <= 0:
            return None
        solver.conf_budget(chunk)
        t = time.perf_counter()
        res = solver.solve_limited(assumptions=assumptions)
        if res is not None:
            return bool(res)
        # The next slice aims at the smaller of _SLICE seconds and the time left, at the rate
        # of conflicts just measured (slices of a fixed size overran 120 s budgets by ~10 s
        # on hard ladders, where one conflict can take milliseconds).
        per_conflict = max(time.perf_counter() - t, 1e-6) / chunk
        aim = min(_SLICE, left - (time.perf_counter() - t))
        chunk = int(min(max(aim / per_conflict, 50), 2 * chunk, 20000))


def _leaf(C: ComposedClass, comps: list[int], explicit: bool) -> dict[str, Any]:
    h = _bits(C.hypothesis(comps))
    if explicit:
        return {"hypothesis": h}
    return {"hypothesis": h,
            "components": [_bits(C.classes[i].matrix[j]) for i, j in enumerate(comps)]}


def _check_solver(name: str) -> str:
    if name not in SOLVERS:
        raise InvalidInputError(f"unknown SAT solver {name!r}; accepted: {', '.join(SOLVERS)}")
    return name


def _call_stats(solver: Any, what: str, k: int, res: bool | None, t: float,
                before: int) -> dict[str, Any]:
    conflicts = int(solver.accum_stats().get("conflicts", 0))
    return {"k": k, "what": what, "result": {True: "sat", False: "unsat", None: "interrupted"}[res],
            "conflicts": conflicts - before, "seconds": round(t, 4)}


def _finish(kind: str, C: ComposedClass, explicit: bool, lower: int, upper: int, witness: Any,
            t0: float, stats: dict[str, Any]) -> DimensionResult:
    upper = max(upper, lower)
    res = DimensionResult.proven(kind, lower, upper, witness, seconds=time.perf_counter() - t0,
                                 stats=stats)
    # every lower bound is certified before it is reported
    if explicit:
        verify(C.classes[0], res)
    else:
        verify_composed(C, res)
    return res


def _empty(kind: str, t0: float) -> DimensionResult:
    return DimensionResult.empty(kind, seconds=time.perf_counter() - t0, stats={"method": "sat"})


# --------------------------------------------------------------------------- enumeration
@dataclass
class Enumeration:
    """Distinct hypotheses of a composed class found by SAT (AllSAT with blocking clauses).

    ``H`` holds them (full domain), ``components[r]`` the component indices of one tuple
    realising row r; ``complete`` is True when the final call was UNSAT, i.e. ``H`` *is*
    G(H_1, ..., H_k).
    """

    H: HypothesisClass
    components: np.ndarray
    complete: bool
    calls: int
    seconds: float
    products: int = 0


def enumerate_composed(C: ComposedClass, limit: int = 200_000, budget: float | None = None,
                       solver: str = "cadical195") -> Enumeration:
    """Enumerate G(H_1, ..., H_k) without the product: one row (a tuple h_1..h_k, Tseitin
    outputs y_x <-> G(h_1(x), ..., h_k(x)) on the candidate points), solved repeatedly, each
    model's output pattern blocked by a clause.  The cost grows with the number of *distinct*
    composed hypotheses, not with prod |H_i|.  Points outside the candidates are constant or
    clones of a candidate, so the pattern on the candidates determines the hypothesis.
    """
    t0 = time.perf_counter()
    _check_solver(solver)
    deadline = Deadline(budget)
    R = reduced_problem(C)
    found: list[list[int]] = []
    complete = False
    calls = 0
    with Solver(name=solver) as s:
        enc = Realisation(R, s)
        ys = enc.output(0)
        if C.is_empty():
            complete = True
        while not complete and len(found) < limit:
            calls += 1
            res = solve_within(s, deadline)
            if res is None:
                break
            if not res:
                complete = True
                break
            model = {lit for lit in s.get_model() if lit > 0}
            found.append(enc.decode_row(model, 0))
            s.add_clause([-y if y in model else y for y in ys])
        if not complete and len(found) >= limit and not deadline.expired():
            calls += 1
            complete = solve_within(s, deadline) is False
    comps = np.array(found, dtype=np.int64).reshape(len(found), C.arity)
    if len(found):
        rows = C.G.evaluate(*[C.classes[i].matrix[comps[:, i]] for i in range(C.arity)])
    else:
        rows = np.zeros((0, C.domain_size), dtype=np.uint8)
    H = HypothesisClass(rows, C.domain, _trusted=True)
    if len(H) != len(found):  # pragma: no cover - blocked patterns are distinct
        raise AssertionError("SAT enumeration produced a repeated hypothesis")
    return Enumeration(H, comps, complete, calls, time.perf_counter() - t0)


#: the exact engines of `ltheory.dims`, run on enumerated (explicit) hypotheses
_EXACT = {"vc": vc_exact, "ldim": littlestone_exact, "tdim": threshold_exact}


def _start(kind: str, H: Any, budget: float | None, solver: str, enumerate_limit: int
           ) -> tuple[float, Deadline, ComposedClass, bool, Any, DimensionResult | None]:
    """The common prologue of the SAT drivers: (t0, deadline, C, explicit, partial, done).

    ``done`` is the final result when the class is empty or (composed classes) the AllSAT
    enumeration finished within ``enumerate_limit``; ``partial`` is an incomplete enumeration."""
    t0 = time.perf_counter()
    _check_solver(solver)
    deadline = Deadline(budget)
    C, explicit = as_composed(H)
    if C.is_empty():
        return t0, deadline, C, explicit, None, _empty(kind, t0)
    partial = done = None
    if not explicit and enumerate_limit > 0:
        done, partial = _via_enumeration(kind, C, deadline, enumerate_limit, solver, t0)
    return t0, deadline, C, explicit, partial, done


def _via_enumeration(kind: str, C: ComposedClass, deadline: Deadline, limit: int,
                     solver: str, t0: float) -> tuple[DimensionResult | None, Enumeration]:
    """Exact result through SAT enumeration when it completes within ``limit`` hypotheses and
    3/4 of the remaining budget; otherwise (None, the partial enumeration)."""
    left = deadline.left()
    en = enumerate_composed(C, limit, None if left is None else max(left * 0.75, 1e-3), solver)
    info = {"hypotheses": len(en.H), "complete": en.complete, "calls": en.calls,
            "seconds": round(en.seconds, 4)}
    if not en.complete:
        return None, en
    left = deadline.left()
    res = _EXACT[kind](en.H, None if left is None else max(left, 1e-3))
    res = attach_components(C, en, res)
    stats = dict(res.stats) | {
        "method": "sat", "solver": solver, "enumeration": info,
        "upper_reason": f"SAT enumeration complete ({len(en.H)} distinct hypotheses, final "
                        f"call UNSAT, {solver}), then exact search on them"}
    out = res.replace(seconds=time.perf_counter() - t0, stats=stats)
    verify_composed(C, out)
    return out, en


# --------------------------------------------------------------------------- Littlestone
class _OutOfTime(Exception):
    """Internal: the deadline passed while an encoding was being built."""


def _tree_problem(R: Any, d: int, solver: Any, symmetry: bool,
                  deadline: Deadline | None = None) -> Realisation:
    enc = Realisation(R, solver)
    for leaf in range(1 << d, 1 << (d + 1)):
        if deadline is not None and deadline.expired():
            raise _OutOfTime
        node, child = leaf >> 1, leaf
        while node >= 1:
            enc.require(leaf, node, child & 1)
            node, child = node >> 1, node
    if symmetry:
        # Implied: a shattered tree visits distinct points on every path (a repeated point would
        # make one of the two subtrees below the repeat unrealisable).
        for node in range(2, 1 << d):
            a = node >> 1
            while a >= 1:
                enc.distinct(node, a)
                a >>= 1
    return enc


def _tree_size(R: Any, d: int) -> int:
    """An estimate of the clauses of the depth-d tree encoding (value definitions dominate)."""
    n = len(R.points)
    per_leaf = sum(M.shape[0] for M in R.mats) * n + d * n * max(
        len(R.clauses_true), len(R.clauses_false), 1)
    return (1 << d) * per_leaf + (1 << d) * d * n


def _decode_tree(enc: Realisation, model: set[int], C: ComposedClass, d: int,
                 explicit: bool) -> dict[str, Any]:
    def build(node: int) -> dict[str, Any]:
        if node >= 1 << d:
            return _leaf(C, enc.decode_row(model, node), explicit)
        x = enc.decode_slot(model, node)
        return {"point": C.domain[x],
                "children": {"0": build(2 * node), "1": build(2 * node + 1)}}

    return build(1)


def _sample_seed(C: ComposedClass, deadline: Deadline, samples: int, explicit: bool,
                 tuples: np.ndarray | None = None) -> tuple[int, Any]:
    """A quick certified lower bound: exact Ldim (budgeted) of a random sample of composed
    hypotheses, or of the given component tuples (e.g. a partial SAT enumeration)."""
    rng = np.random.default_rng(0)
    sizes = [len(c) for c in C.classes]
    partial = tuples is not None and len(tuples) > 0  # worth a larger share of the budget
    if partial:
        pass
    elif math.prod(sizes) <= samples:
        grids = np.meshgrid(*[np.arange(s) for s in sizes], indexing="ij")
        tuples = np.stack([g.ravel() for g in grids], axis=1)
    else:
        tuples = np.stack([rng.integers(0, s, samples) for s in sizes], axis=1)
    rows = C.G.evaluate(*[C.classes[i].matrix[tuples[:, i]] for i in range(C.arity)])
    S = HypothesisClass(rows, C.domain, _trusted=True)
    left = deadline.left()
    share = None if left is None else max(0.05, left / 4 if partial else min(2.0, left / 10))
    res = littlestone_exact(S, budget=share)
    # A shattered set S of size d is also a mistake tree of depth d (every node at depth t asks
    # S[t]); on dense classes the VC search finds much deeper trees than a budgeted Ldim search.
    vc = vc_exact(S, budget=share)
    index = {_bits(r): t for r, t in zip(rows, tuples, strict=True)}
    if vc.lower > res.lower:
        pts = [S.point_index(lab) for lab in vc.witness]
        by_code: dict[tuple[int, ...], str] = {}
        for h in S.to_strings():
            by_code.setdefault(tuple(int(h[x]) for x in pts), h)

        def level(t: int, path: tuple[int, ...]) -> dict[str, Any]:
            if t == len(pts):
                return {"hypothesis": by_code[path]}
            return {"point": S.domain[pts[t]],
                    "children": {str(b): level(t + 1, (*path, b)) for b in (0, 1)}}

        res = DimensionResult.proven("ldim", vc.lower, vc.lower, level(0, ()))  # a seed only
    if res.lower <= 0:
        return 0, {"hypothesis": _bits(rows[0])} if explicit else _leaf(C, list(tuples[0]), False)

    def attach(node: dict[str, Any]) -> dict[str, Any]:
        if "hypothesis" in node:
            return _leaf(C, [int(v) for v in index[node["hypothesis"]]], explicit)
        return {"point": node["point"], "children": {b: attach(node["children"][b])
                                                     for b in ("0", "1")}}

    return res.lower, attach(res.witness)


def sat_littlestone(H: HypothesisClass | ComposedClass, budget: float | None = None,
                    solver: str = "cadical195", symmetry: bool = True,
                    seed_samples: int = 4000, enumerate_limit: int = 200_000,
                    max_clauses: int = 3_000_000) -> DimensionResult:
    """Ldim of an explicit or composed class by SAT.

    Definitions: ABMS20 §3.1 (mistake trees; Ldim).  For a composed class the distinct composed
    hypotheses are first enumerated by SAT (`enumerate_composed`, at most
    ``enumerate_limit`` of them, at most 3/4 of the budget); if that completes, the exact search
    runs on them.  Otherwise (and for explicit classes): a certified lower bound from the exact
    Ldim of a sample (``seed_samples`` random tuples, or the partial enumeration if larger), then
    "is a mistake tree of depth d shattered?" for d = lower + 1, ... until UNSAT (upper bound,
    recorded with the solver's conflicts), the cheap upper bound, or the budget (seconds).
    A depth whose encoding would exceed ``max_clauses`` clauses (estimated) is not attempted:
    building and loading it alone would overrun any reasonable budget.
    """
    t0, deadline, C, explicit, partial, done = _start("ldim", H, budget, solver,
                                                      enumerate_limit)
    if done is not None:
        return done
    R = reduced_problem(C)
    size_bound = C.size_upper_bound()
    upper = min(size_bound.bit_length() - 1, len(R.points))
    reason = (f"log2 of the size bound {size_bound}" if size_bound.bit_length() - 1 <= len(R.points)
              else f"{len(R.points)} candidate points")
    use = partial.components if partial is not None and len(partial.H) > seed_samples else None
    lower, witness = _sample_seed(C, deadline, seed_samples, explicit, use)
    seed_lower = lower
    calls: list[dict[str, Any]] = []
    d = lower + 1
    while d <= upper and not deadline.expired():
        ts = time.perf_counter()
        est = _tree_size(R, d)
        if est > max_clauses:
            calls.append({"k": d, "what": "tree", "result": f"skipped (~{est} clauses > "
                          f"max_clauses={max_clauses})", "seconds": 0.0})
            break
        with Solver(name=solver) as s:
            try:
                enc = _tree_problem(R, d, s, symmetry, deadline)
            except _OutOfTime:
                calls.append({"k": d, "what": "tree", "result": "interrupted (encoding)",
                              "seconds": round(time.perf_counter() - ts, 4)})
                break
            res = solve_within(s, deadline)
            calls.append(_call_stats(s, "tree", d, res, time.perf_counter() - ts, 0)
                         | {"clauses": enc.n_clauses})
            if res is None:
                break
            if not res:
                upper = d - 1
                reason = f"UNSAT at depth {d} ({solver}, {calls[-1]['conflicts']} conflicts)"
                break
            model = {lit for lit in s.get_model() if lit > 0}
            witness = _decode_tree(enc, model, C, d, explicit)
            lower = d
        d += 1
    stats = {"method": "sat", "solver": solver, "seed_lower": seed_lower,
             "upper_reason": reason, "calls": calls, "enumeration": None if partial is None
             else {"hypotheses": len(partial.H), "complete": False, "calls": partial.calls,
                   "seconds": round(partial.seconds, 4)},
             "candidate_points": len(R.points), "size_bound": size_bound}
    return _finish("ldim", C, explicit, lower, upper, witness, t0, stats)


# --------------------------------------------------------------------------- VC
def sat_vc(H: HypothesisClass | ComposedClass, budget: float | None = None,
           solver: str = "cadical195", symmetry: bool = True,
           enumerate_limit: int = 200_000, max_clauses: int = 3_000_000) -> DimensionResult:
    """VC dimension by SAT: are d points shattered?  One slot per level (points increasing, sound
    because a shattered set is unordered), one row per pattern in {0,1}^d.

    For a composed class the hypotheses are first enumerated by SAT as in
    `sat_littlestone`; if that is incomplete, the exact VC search on the partial
    enumeration (budgeted) seeds the certified lower bound.  Sizes whose encoding would exceed
    ``max_clauses`` clauses (estimated) are not attempted.
    """
    t0, deadline, C, explicit, partial, done = _start("vc", H, budget, solver,
                                                      enumerate_limit)
    if done is not None:
        return done
    R = reduced_problem(C)
    size_bound = C.size_upper_bound()
    upper = min(size_bound.bit_length() - 1, len(R.points))
    reason = "log2 of the size bound / candidate points"
    lower, witness, realisations = 0, [], [[_bits(c.matrix[0]) for c in C.classes]]
    if partial is not None and len(partial.H):
        left = deadline.left()
        seed = vc_exact(partial.H, None if left is None else max(left / 2, 0.05))
        seed = attach_components(C, partial, seed)
        lower, witness, realisations = seed.lower, seed.witness, seed.stats["realisations"]
    calls: list[dict[str, Any]] = []
    d = lower + 1
    while d <= upper and not deadline.expired():
        ts = time.perf_counter()
        n_c = len(R.points)
        est = (1 << d) * (sum(M.shape[0] for M in R.mats) * n_c + d * n_c * max(
            len(R.clauses_true), len(R.clauses_false), 1))
        if est > max_clauses:
            calls.append({"k": d, "what": "shattered set", "result": f"skipped (~{est} clauses "
                          f"> max_clauses={max_clauses})", "seconds": 0.0})
            break
        with Solver(name=solver) as s:
            enc = Realisation(R, s)
            for a in range(1 << d):
                for t in range(d):
                    enc.require(a, t, (a >> t) & 1)
            if symmetry:
                for t in range(d - 1):
                    enc.increasing(t, t + 1)
            else:
                for t in range(d):
                    for u in range(t):
                        enc.distinct(t, u)
            res = solve_within(s, deadline)
            calls.append(_call_stats(s, "shattered set", d, res, time.perf_counter() - ts, 0)
                         | {"clauses": enc.n_clauses})
            if res is None:
                break
            if not res:
                upper = d - 1
                reason = f"UNSAT at size {d} ({solver}, {calls[-1]['conflicts']} conflicts)"
                break
            model = {lit for lit in s.get_model() if lit > 0}
            pts = [enc.decode_slot(model, t) for t in range(d)]
            witness = [C.domain[x] for x in pts]
            realisations = []
            for a in range(1 << d):
                comps = enc.decode_row(model, a)
                realisations.append([_bits(C.classes[i].matrix[j]) for i, j in enumerate(comps)])
            lower = d
        d += 1
    stats: dict[str, Any] = {"method": "sat", "solver": solver, "upper_reason": reason,
                             "calls": calls, "candidate_points": len(R.points),
                             "size_bound": size_bound}
    if not explicit:
        # pattern a (bit t = value at witness[t]) is realised by these components
        stats["realisations"] = realisations
    return _finish("vc", C, explicit, lower, upper, witness, t0, stats)


# --------------------------------------------------------------------------- threshold
def sat_threshold(H: HypothesisClass | ComposedClass, budget: float | None = None,
                  solver: str = "cadical195", symmetry: bool = True,
                  enumerate_limit: int = 200_000) -> DimensionResult:
    """Threshold dimension by SAT: are k points threshold-shattered (h_i(x_j) = 1 iff i <= j)?

    Incremental: the constraints for a ladder of length k + 1 are those for length k plus the
    requirements involving the new pair, so one solver grows the encoding pair by pair and keeps
    its learned clauses; the first UNSAT proves T < k + 1.  Each new pair's clauses are guarded
    by an activation literal assumed true, so the final UNSAT also names the pairs involved.

    With ``symmetry`` the first point is restricted to one candidate per orbit of the class's
    automorphism group (explicit or completely enumerated classes;
    `ltheory.dims.symmetry.first_point_choices`), beside the implied distinct-points
    clauses.
    """
    t0, deadline, C, explicit, partial, done = _start("tdim", H, budget, solver, enumerate_limit)
    if done is not None:
        return done
    R = reduced_problem(C, const_one=True)
    size_bound = C.size_upper_bound()
    upper = min(size_bound, len(R.points))
    reason = "size bound / candidate points"
    # With the class at hand (explicit, or enumerated completely), T = |X| is decided by one
    # pass over it (a chain of suffix sets; ltheory.dims.threshold.full_domain_ladder).
    Hx = C.classes[0] if explicit else (partial.H if partial is not None and partial.complete
                                        else None)
    if Hx is not None and Hx.domain_size > 0:
        from ltheory.dims.threshold import full_domain_ladder, ladder_witness

        n = Hx.domain_size
        top = full_domain_ladder(Hx)
        if top is not None:
            witness = ladder_witness(Hx, *top)
            if not explicit:
                witness["components"] = [
                    [_bits(C.classes[i].matrix[int(j)]) for i, j in
                     enumerate(partial.components[h])] for h in top[1]]
            return _finish("tdim", C, explicit, n, n, witness, t0,
                           {"method": "sat", "upper_reason": f"a ladder through all {n} points",
                            "candidate_points": len(R.points), "size_bound": size_bound})
        if upper >= n:
            upper, reason = n - 1, "no chain of suffix sets through every point"
    starts = None
    if symmetry and Hx is not None:  # one first point per orbit of Aut(H) (sound: the docstring)
        from ltheory.dims.symmetry import first_point_choices

        starts = first_point_choices(Hx, R.points, deadline.end)
    lower: int = 0
    witness: dict[str, Any] = {"points": [], "hypotheses": []}
    if not explicit:
        witness["components"] = []
    calls: list[dict[str, Any]] = []
    with Solver(name=solver) as s:
        enc = Realisation(R, s)
        if starts is not None:
            first, second = starts
            for c, ok in enumerate(first):
                if not ok:
                    enc.add([-enc.slot(0)[c]])
                elif R.points[c] in second:
                    for d, ok2 in enumerate(second[R.points[c]]):
                        if not ok2:
                            enc.add([-enc.slot(0)[c], -enc.slot(1)[d]])
        acts: list[int] = []
        k = 1
        while k <= upper and not deadline.expired():
            ts = time.perf_counter()
            act = enc.pool.id(("act", k))
            acts.append(act)
            j = k - 1  # new pair (h_k, x_k), 0-based index j
            for i in range(k):
                enc.require(i, j, 1, guard=act)          # h_i(x_k) = 1 for i <= k
                if i < j:
                    enc.require(j, i, 0, guard=act)      # h_k(x_i) = 0 for i < k
            if symmetry:  # implied: ladder points are distinct (h_i(x_i) = 1, h_{i+1}(x_i) = 0)
                for i in range(j):
                    for x, y in zip(enc.slot(i), enc.slot(j), strict=True):
                        enc.add([-act, -x, -y])
            before = int(s.accum_stats().get("conflicts", 0))
            res = solve_within(s, deadline, assumptions=acts)
            calls.append(_call_stats(s, "ladder", k, res, time.perf_counter() - ts, before)
                         | {"clauses": enc.n_clauses})
            if res is None:
                break
            if not res:
                upper = k - 1
                reason = f"UNSAT at length {k} ({solver}, {calls[-1]['conflicts']} conflicts)"
                break
            model = {lit for lit in s.get_model() if lit > 0}
            pts = [enc.decode_slot(model, t) for t in range(k)]
            rows = [enc.decode_row(model, i) for i in range(k)]
            witness = {"points": [C.domain[x] for x in pts],
                       "hypotheses": [_bits(C.hypothesis(r)) for r in rows]}
            if not explicit:
                witness["components"] = [[_bits(C.classes[i].matrix[j]) for i, j in
                                          enumerate(r)] for r in rows]
            lower = k
            k += 1
    stats = {"method": "sat", "solver": solver, "upper_reason": reason, "calls": calls,
             "candidate_points": len(R.points), "size_bound": size_bound}
    return _finish("tdim", C, explicit, lower, upper, witness, t0, stats)
