"""Exact fractional clique number ω*_m(H) by linear programming with constraint generation.

Definitions (Alon, Moran, Schefler, Yehudayoff, "A unified characterization of private
learnability via graph theory", COLT 2024; seed 002 §5, Definition 4 and Theorem 5): a
*fractional clique* of G = G_m(H) is δ: V → [0, 1] with Σ_{v∈I} δ(v) ≤ 1 for every independent
set I; ω*_m is the largest total Σ δ(v).  H is pure-DP learnable iff ω*_m ≤ poly(m), and either
ω*_m = 2^m for all m or ω*_m ≤ poly(m) (Theorem 5).  The LP

    (P)  max Σ_v δ_v   s.t.  Σ_{v∈I} δ_v ≤ 1  for every independent set I,   δ ≥ 0

has as dual the fractional colouring LP  (D) min Σ_I y_I  s.t. Σ_{I∋v} y_I ≥ 1, y ≥ 0, so
ω* = χ_f.  We work on the reduced graph G'_m (same ω*, `ltheory.graphs.contradiction`).

Bounds.  ω_m ≤ ω*_m (a clique's indicator is a fractional clique: an independent set meets a clique
at most once).  ω*_m ≤ |H|: the independent sets I_h = {samples realised by h}, h ∈ H, cover
every vertex (each vertex is realizable), a fractional colouring of total |H|.  ω*_m ≤ 2^k
(k = min(m, |X|)): the colouring y_{I_g} = 2^k / 2^{|X|} over all total labellings g covers a
sample on j ≤ k distinct points 2^k 2^{-j} ≥ 1 times.  So when a clique of size min(2^k, |H|)
exists (fast paths of `ltheory.graphs.clique`), ω*_m equals it, with the clique as the
fractional clique and I_h (if |H| ≤ 2^k) or a k-wise independent linear colouring of total 2^k
(``"dual": {"linear": {LABEL: BITS, ...}}``, `ltheory.graphs.colourings`) as the dual
certificate.

Constraint generation.  Only maximal independent sets matter; they are I_g ∩ V for total
labellings g: X → {0,1} (pairwise consistent samples are jointly consistent).  We start with the
rows I_h, h ∈ H, solve the restricted LP with HiGHS (``highspy``, rows added to the warm-started
model), and *price*: a most violated row maximises Σ{δ_v : v consistent with g} over g, a
maximum-weight independent set.  Only vertices with δ_v > 0 matter, so pricing enumerates g on
the points those vertices use (≤ 16 points) or solves a weighted MaxSAT instance with RC2
(``pysat.examples.rc2``): one variable per point, a soft unit clause t_v of weight δ_v per
vertex, with hard clauses t_v → (x = b) for each pair (x, b) of v.  Rows with weight > 1 + 1e-9
are added (up to ``_ROWS_PER_ROUND`` per round, the heaviest first); when none is left the
floating-point optimum is certified exactly:

* the exact vertex of HiGHS's final basis is recovered: with B the basic columns and T the tight
  rows, A[T, B] δ_B = 1 and A[T, B]^T y_T = 1 are solved over the rationals (Gauss–Jordan with
  `fractions.Fraction`) for small bases, or by floating-point LU rounded with
  ``Fraction.limit_denominator`` for large (degenerate) ones; if that fails, HiGHS's δ and y
  are rounded directly.  Nothing is trusted: then
* δ's exact maximum independent-set
  weight W is computed (same pricing, integer weights), and δ / max(1, W) is a feasible
  fractional clique: a proven lower bound;
* for the row duals y the exact cover c = min_v Σ_{I∋v} y_I is computed, and
  y / min(1, c) is a feasible fractional colouring: a proven upper bound;
* equal totals prove the value, an exact rational.  If they differ, the violated row found by
  the exact pricing is added and the loop goes on.

With a budget the loop stops early and the same rounding gives proven bounds (exact=False).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
import time
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.budget import check_budget
from ltheory.dims.result import DimensionResult
from ltheory.graphs.clique import fast_path_clique
from ltheory.graphs.colourings import bch_vectors
from ltheory.graphs.contradiction import (
    DEFAULT_MAX_VERTICES,
    ContradictionGraph,
    check_order,
    contradiction_graph,
)

__all__ = ["fractional_clique_number", "max_weight_independent_set"]

_ENUM_POINTS = 16
_ROWS_PER_ROUND = 8
_TOL = 1e-9
_SCALE = 10 ** 7
_DENOMINATORS = (10 ** 4, 10 ** 6, 10 ** 8, 10 ** 10)
_EXACT_BASIS = 40


def _frac_str(q: Fraction) -> str | int:
    return int(q) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _number(q: Fraction) -> int | float:
    return int(q) if q.denominator == 1 else float(q)


def max_weight_independent_set(graph: ContradictionGraph, weights: dict[int, int],
                               top: int = 1) -> list[tuple[int, np.ndarray]]:
    """Maximum-weight independent sets of G'_m for non-negative integer vertex weights.

    Returns up to ``top`` pairs (weight, g), g a total labelling of X (0/1 array) whose independent
    set I_g ∩ V has that weight, heaviest first; the first is optimal (exact). Enumerates labellings
    of the points the weighted vertices use when there are at most 16 of them, otherwise solves
    weighted MaxSAT with RC2 (see [`ltheory.graphs.fractional`][ltheory.graphs.fractional])."""
    n = graph.H.domain_size
    sup = [v for v, w in weights.items() if w > 0]
    if not sup:
        return [(0, np.zeros(n, dtype=np.uint8))]
    pts = sorted({int(x) for v in sup for x in graph.points[v]})
    where = {x: j for j, x in enumerate(pts)}
    if len(pts) <= _ENUM_POINTS:
        mask = np.array([sum(1 << where[int(x)] for x in graph.points[v]) for v in sup],
                        dtype=np.int64)
        val = np.array([sum(int(b) << where[int(x)] for x, b in
                            zip(graph.points[v], graph.bits[v], strict=True)) for v in sup],
                       dtype=np.int64)
        total = sum(weights[v] for v in sup)
        G = np.arange(1 << len(pts), dtype=np.int64)
        if total < 2 ** 62:
            tot: Any = np.zeros(len(G), dtype=np.int64)
            for j, v in enumerate(sup):
                tot += ((G & mask[j]) == val[j]) * weights[v]
            order = np.argsort(-tot, kind="stable")[:top]
        else:
            tot, order = _top_exact_totals(G, mask, val, [weights[v] for v in sup], total, top)
        out = []
        for gi in order:
            g = np.zeros(n, dtype=np.uint8)
            for x, j in where.items():
                g[x] = (int(G[gi]) >> j) & 1
            out.append((int(tot[gi]), g))
        return out
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    wcnf = WCNF()
    var = {x: j + 1 for j, x in enumerate(pts)}
    nxt = len(pts) + 1
    for v in sup:
        t = nxt
        nxt += 1
        for x, b in zip(graph.points[v], graph.bits[v], strict=True):
            wcnf.append([-t, var[int(x)] if b else -var[int(x)]])
        wcnf.append([t], weight=weights[v])
    with RC2(wcnf) as rc2:
        model = rc2.compute()
        cost = rc2.cost
    g = np.zeros(n, dtype=np.uint8)
    for x, j in var.items():
        g[x] = 1 if model[j - 1] > 0 else 0
    return [(sum(weights[v] for v in sup) - cost, g)]


def _top_exact_totals(G: np.ndarray, mask: np.ndarray, val: np.ndarray, w: list[int],
                      total: int, top: int) -> tuple[dict[int, int], list[int]]:
    """The ``top`` labellings of largest exact total weight (ties by index, like a stable
    argsort), for weights too large for int64.

    Totals are first summed in float64 as fractions of ``total`` (each term and partial sum is
    in [0, 1], so the rounding error is below (len(w) + 1) * 2^-53 < ``tol``); only labellings
    within 2 ``tol`` of the top-th float total can be among the exact top, and only those are
    summed exactly with Python ints (the all-object sum over 2^16 labellings was the bottleneck:
    7.6 s per call on thresholds n=16, m=5)."""
    wf = np.array([x / total for x in w], dtype=np.float64)
    tot_f = np.zeros(len(G), dtype=np.float64)
    for j in range(len(w)):
        tot_f += ((G & mask[j]) == val[j]) * wf[j]
    tol = (len(w) + 2) * 2.0 ** -52
    kth = np.partition(-tot_f, min(top, len(G)) - 1)[min(top, len(G)) - 1]
    cand = np.flatnonzero(-tot_f <= kth + 2 * tol)
    exact: dict[int, int] = {}
    for gi in cand.tolist():
        g = int(G[gi])
        exact[gi] = sum(wj for mj, vj, wj in zip(mask.tolist(), val.tolist(), w, strict=True)
                        if g & mj == vj)
    order = sorted(exact, key=lambda gi: (-exact[gi], gi))[:top]
    return exact, order


def _weight_of(graph: ContradictionGraph, g: np.ndarray, delta: np.ndarray) -> float:
    return float(delta[graph.consistent_with(g)].sum())


@contextlib.contextmanager
def _native_stdout_silenced() -> Iterator[None]:
    """Send what native code writes to file descriptor 1 to /dev/null for the block.

    highspy >= 1.16 prints its banner from the ``Highs()`` constructor, before ``output_flag``
    can be set, straight to the C-level stdout; that would corrupt ``--json`` output (one JSON
    document on stdout).  C stdio is flushed before the descriptor is restored, so a banner
    buffered on a pipe is discarded rather than written at exit.  Where descriptor 1 cannot be
    redirected (no real stdout), the block runs unchanged.
    """
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError, AttributeError):
        yield
        return
    libc = None
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        if libc is not None:
            with contextlib.suppress(Exception):
                libc.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


class _LP:
    """The restricted primal LP in HiGHS, rows added incrementally (warm start)."""

    def __init__(self, V: int) -> None:
        import highspy

        with _native_stdout_silenced():
            self.h = highspy.Highs()
            self.h.setOptionValue("output_flag", False)
        self.V = V
        self.h.addVars(V, np.zeros(V), np.full(V, highspy.kHighsInf))
        self.h.changeColsCost(V, np.arange(V, dtype=np.int32), np.ones(V))
        self.h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.rows: list[np.ndarray] = []
        self.members: list[np.ndarray] = []
        self.keys: set[bytes] = set()
        self.kBasic = highspy.HighsBasisStatus.kBasic

    def add(self, g: np.ndarray, members: np.ndarray) -> bool:
        key = g.tobytes()
        if key in self.keys or len(members) == 0:
            return False
        self.keys.add(key)
        self.rows.append(g.copy())
        self.members.append(members)
        self.h.addRow(-np.inf, 1.0, len(members), members.astype(np.int32),
                      np.ones(len(members)))
        return True

    def solve(self) -> tuple[np.ndarray, np.ndarray]:
        self.h.run()
        sol = self.h.getSolution()
        delta = np.clip(np.array(sol.col_value), 0.0, None)
        y = np.abs(np.array(sol.row_dual))
        return delta, y

    def basis_solution(self, den: int) -> tuple[dict[int, Fraction], list[Fraction]] | None:
        """The vertex of the current basis, recovered as rationals: with B the basic columns and
        T the rows whose slack is non-basic (tight), solve A[T, B] δ_B = 1 and
        A[T, B]^T y_T = 1 (δ = 0 off B, y = 0 off T) — exactly by Gauss–Jordan over
        `Fraction` when |B| ≤ ``_EXACT_BASIS``, otherwise by LU in floating point (far
        more accurate than the simplex tolerances) rounded to denominators ≤ ``den``.  Either
        way the caller re-certifies exactly.  None if the basis is not square or singular."""
        basis = self.h.getBasis()
        B = [j for j, st in enumerate(basis.col_status) if st == self.kBasic]
        T = [i for i, st in enumerate(basis.row_status) if st != self.kBasic]
        if len(B) != len(T) or not B:
            return None
        pos = {v: j for j, v in enumerate(B)}
        A = np.zeros((len(T), len(B)))
        for r, i in enumerate(T):
            cols = [pos[v] for v in self.members[i].tolist() if v in pos]
            A[r, cols] = 1.0
        if len(B) <= _EXACT_BASIS:
            Aq = [[Fraction(int(x)) for x in row] for row in A.tolist()]
            d = _solve_exact(Aq, [Fraction(1)] * len(T))
            yT = _solve_exact([list(c) for c in zip(*Aq, strict=True)], [Fraction(1)] * len(B))
            if d is None or yT is None:
                return None
        else:
            try:
                df = np.linalg.solve(A, np.ones(len(T)))
                yf = np.linalg.solve(A.T, np.ones(len(B)))
            except np.linalg.LinAlgError:
                return None
            d = [Fraction(float(x)).limit_denominator(den) for x in df]
            yT = [Fraction(float(x)).limit_denominator(den) for x in yf]
        y = [Fraction(0)] * len(self.rows)
        for r, i in enumerate(T):
            y[i] = yT[r]
        return {B[j]: q for j, q in enumerate(d) if q != 0}, y


def _solve_exact(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """Solve the square system A x = b exactly (Gauss–Jordan over the rationals)."""
    n = len(A)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = next((r for r in range(c, n) if M[r][c] != 0), None)
        if p is None:
            return None
        M[c], M[p] = M[p], M[c]
        piv = M[c][c]
        M[c] = [x / piv for x in M[c]]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c], strict=True)]
    return [M[r][n] for r in range(n)]


def _certify(graph: ContradictionGraph, delta: np.ndarray, rows: list[np.ndarray],
             y: np.ndarray, den: int) -> tuple[Fraction, dict[int, Fraction], Fraction,
                                               list[tuple[np.ndarray, Fraction]],
                                               np.ndarray | None]:
    """Round (δ, y) to rationals with denominators ≤ den, then `_certify_exact`."""
    dq = {int(v): Fraction(float(delta[v])).limit_denominator(den)
          for v in np.flatnonzero(delta > 0)}
    yq = [Fraction(float(t)).limit_denominator(den) for t in y]
    return _certify_exact(graph, dq, rows, yq)


def _certify_exact(graph: ContradictionGraph, dq: dict[int, Fraction], rows: list[np.ndarray],
                   yq0: list[Fraction]) -> tuple[Fraction, dict[int, Fraction], Fraction,
                                                 list[tuple[np.ndarray, Fraction]],
                                                 np.ndarray | None]:
    """Rescale rational (δ, y) into exactly feasible solutions: δ / max(1, W) with W the exact
    maximum independent-set weight, y / min(1, c) with c the exact minimum cover.  Returns
    (lower, δ', upper, [(g, y')], a violated g or None); upper = -1 if y covers nothing."""
    dq = {v: q for v, q in dq.items() if q > 0}
    lcd = math.lcm(*(q.denominator for q in dq.values())) if dq else 1
    ints = {v: int(q * lcd) for v, q in dq.items()}
    best = max_weight_independent_set(graph, ints)[0]
    W = Fraction(best[0], lcd)
    violated = best[1] if W > 1 else None
    scale = max(Fraction(1), W)
    dfeas = {v: q / scale for v, q in dq.items()}
    lower = sum(dfeas.values(), Fraction(0))
    yq = [(g, q) for g, q in zip(rows, yq0, strict=True) if q > 0]
    V = len(graph)
    if yq:
        ylcd = math.lcm(*(q.denominator for _, q in yq))
        cover = np.zeros(V, dtype=object)
        for g, q in yq:
            cover[graph.consistent_with(g)] += int(q * ylcd)
        c = Fraction(int(cover.min()), ylcd) if V else Fraction(1)
    else:
        c = Fraction(0) if V else Fraction(1)
    if c == 0:
        ydual: list[tuple[np.ndarray, Fraction]] = []
        upper = Fraction(-1)
    else:
        s = min(Fraction(1), c)
        ydual = [(g, q / s) for g, q in yq]
        upper = sum((q for _, q in ydual), Fraction(0))
    return lower, dfeas, upper, ydual, violated


def _dual_sets(graph: ContradictionGraph, g: np.ndarray) -> list[list[list[Any]]]:
    """A few vertices of I_g ∩ V whose pairs cover every point any vertex of I_g uses (the
    checker reads an entry as the independent set of samples inside the union of its pairs)."""
    members = graph.consistent_with(g)
    need = {int(x) for v in members for x in graph.points[v]}
    chosen = []
    for v in members:
        pv = {int(x) for x in graph.points[v]}
        if pv & need:
            chosen.append(int(v))
            need -= pv
            if not need:
                break
    return graph.samples(chosen)


def _linear_dual(H: HypothesisClass, k: int) -> dict[str, Any]:
    """The colouring of total 2^k by k-wise independent linear labellings (see
    [`ltheory.graphs.fractional`][ltheory.graphs.fractional])."""
    vecs = bch_vectors(H.domain_size, k)
    r = max(v.bit_length() for v in vecs)
    return {"linear": {lab: format(v, f"0{r}b") for lab, v in zip(H.domain, vecs, strict=True)}}


def _hyp_colouring(H: HypothesisClass, m: int) -> list[list[Any]]:
    """The colouring by I_h (h ∈ H), each listed by samples covering its points, weight 1."""
    out = []
    dom = H.domain
    k = min(m, H.domain_size)
    for row in H.matrix:
        pairs = [[dom[i], int(b)] for i, b in enumerate(row.tolist())]
        sets = []
        for s in range(0, len(pairs), k):
            chunk = pairs[s:s + k]
            if len(chunk) < k:
                chunk = pairs[len(pairs) - k:]
            chunk = chunk + [list(chunk[-1])] * (m - len(chunk))
            sets.append(chunk)
        out.append([sets, 1])
    return out


def fractional_clique_number(H: HypothesisClass, m: int, budget: float | None = None, *,
                             fast_paths: bool = True,
                             max_vertices: int | None = DEFAULT_MAX_VERTICES,
                             max_rounds: int = 10_000) -> DimensionResult:
    """ω*_m(H), the fractional clique number of the contradiction graph G_m(H), exactly.

    Returns a [`DimensionResult`][ltheory.DimensionResult] of kind ``"fclique"``: ``value`` is the
    number (an int, or the float nearest the exact rational), ``stats["rational"]`` the exact value
    as "p/q", and the witness ``{"weights": [[SAMPLE, w], ...], "dual": [[[SAMPLE, ...], y], ...],
    "lower": q, "upper": q}`` with exact weights ("p/q" strings or ints): a fractional clique of
    total ``lower`` and a fractional colouring of total ``upper`` (equal when exact).  Check it with
    [`verify_fractional_bounds`][ltheory.graphs.verify_fractional_bounds].  ``budget`` in seconds;
    ``max_vertices`` caps the graph (default 200 000, `DEFAULT_MAX_VERTICES`;
    [`BudgetExceededError`][ltheory.BudgetExceededError]).
    """
    t0 = time.perf_counter()
    m = check_order(H, m)
    budget = check_budget(budget)
    deadline = None if budget is None else t0 + budget
    n = H.domain_size
    k = min(m, n)
    stats: dict[str, Any] = {"m": m}
    if n == 0:
        w = {"weights": [], "dual": [], "lower": 0, "upper": 0}
        stats["rational"] = "0"
        return DimensionResult.proven("fclique", 0, 0, w, seconds=time.perf_counter() - t0,
                                      stats=stats)
    trivial = min(1 << k, len(H))
    clique: list[list[list[Any]]] = []
    if fast_paths:
        clique, fstats = fast_path_clique(H, m, budget=budget)
        stats.update(fstats)
        if len(clique) >= trivial:
            dual: Any = _linear_dual(H, k) if len(clique) == 1 << k else _hyp_colouring(H, m)
            w = {"weights": [[s, 1] for s in clique], "dual": dual, "lower": trivial,
                 "upper": trivial}
            stats["method"] = "fast-path"
            stats["rational"] = str(trivial)
            return DimensionResult.proven("fclique", trivial, trivial, w,
                                          seconds=time.perf_counter() - t0, stats=stats)
    graph = contradiction_graph(H, m, max_vertices=max_vertices)
    V = len(graph)
    stats["vertices"] = V
    stats["method"] = "lp"
    lp = _LP(V)
    for row in H.matrix:
        lp.add(np.ascontiguousarray(row, dtype=np.uint8), graph.consistent_with(row))
    rounds = 0
    timed_out = False
    cert = None
    while True:
        rounds += 1
        delta, y = lp.solve()
        if deadline is not None and time.perf_counter() > deadline:
            timed_out = True
        # price with float weights scaled to integers (exactness comes from _certify)
        ints = {int(v): int(delta[v] * _SCALE) for v in np.flatnonzero(delta > 1e-12)}
        cands = max_weight_independent_set(graph, ints, top=_ROWS_PER_ROUND)
        added = 0
        for _, g in ([] if timed_out or rounds >= max_rounds else cands):
            if _weight_of(graph, g, delta) > 1 + _TOL and lp.add(g, graph.consistent_with(g)):
                added += 1
        if added:
            continue
        cert = None
        for den in _DENOMINATORS:
            exact_basis = lp.basis_solution(den)
            if exact_basis is None:
                break
            cert = _certify_exact(graph, exact_basis[0], lp.rows, exact_basis[1])
            if cert[0] == cert[2] or len(exact_basis[0]) <= _EXACT_BASIS:
                break
        if cert is None or cert[0] != cert[2]:
            for den in _DENOMINATORS[:2]:
                cert = _certify(graph, delta, lp.rows, y, den)
                if cert[0] == cert[2]:
                    break
        assert cert is not None
        if cert[0] == cert[2] or timed_out or rounds >= max_rounds:
            break
        if cert[4] is not None and lp.add(cert[4], graph.consistent_with(cert[4])):
            continue
        break  # cannot improve further: report the proven bounds
    lower, dfeas, upper, ydual, _ = cert
    stats["rounds"] = rounds
    stats["rows"] = len(lp.rows)
    weights = [[graph.sample(v), _frac_str(q)] for v, q in sorted(dfeas.items())]
    if upper < 0 or upper > trivial:
        upper = Fraction(trivial)
        dual_json: Any = _linear_dual(H, k) if trivial == 1 << k else _hyp_colouring(H, m)
    else:
        dual_json = [[_dual_sets(graph, g), _frac_str(q)] for g, q in ydual]
    if clique and len(clique) > lower:  # the clique's indicator is a better proven lower bound
        lower = Fraction(len(clique))
        weights = [[s, 1] for s in clique]
    exact = lower == upper
    stats["rational"] = str(lower) if exact else f"{lower}..{upper}"
    witness = {"weights": weights, "dual": dual_json, "lower": _frac_str(lower),
               "upper": _frac_str(upper)}
    return DimensionResult.proven("fclique", _number(lower), _number(upper), witness,
                                  seconds=time.perf_counter() - t0, stats=stats)
