"""CNF encodings (python-sat) of "this pattern of requirements is realised by G(H_1, ..., H_k)".

All three questions of `ltheory.sat` are one kind of problem.  There are *slots* (domain
points still to be chosen, one-hot over the candidate points) and *rows* (hypotheses still to be
chosen); a requirement ``(row r, slot s, bit b)`` says that the hypothesis of row r takes value b
at the point of slot s.

* Mistake tree of depth d (Littlestone): a slot per internal node, a row per leaf, and for every
  leaf and every ancestor the label of the edge taken (ABMS20 §3.1).
* d shattered points (VC): a slot per level, a row per pattern a in {0,1}^d, requirement
  (a, t, a_t).
* k threshold-shattered points: slots x_1..x_k, rows h_1..h_k, requirement (i, j, [i <= j]).

A row of a composed class G(H_1, ..., H_k) chooses one hypothesis per class: variables
``c[r][i][j]`` ("h_i is hypothesis j of H_i", at least one true) and value variables
``v[r][i][x]`` with ``c[r][i][j] -> (v[r][i][x] <-> H_i[j][x])``, so the product is never built.
A requirement is ``q[s][x] -> G(v[r][1][x], ..., v[r][k][x]) = b`` for every candidate x, written
with a CNF of G (b = 1) or of ¬G (b = 0) from [`Aggregation.cnf`][ltheory.Aggregation.cnf]
(minimised by sympy): each
clause D gives ``¬q[s][x] ∨ D(v)``.  An explicit class H is the case k = 1, G = identity.

Sound reductions, each argued where it is made:

* candidate points are the points on which G(H_1..H_k) is not constant, one per class of
  *clones* (points with identical columns in every H_i): a slot at a constant point is
  unrealisable (both labels are required below it), and exchanging clones maps solutions to
  solutions;
* each H_i is restricted to the candidate points and deduplicated (rows that agree on every
  candidate point are interchangeable; decoding maps back to one original row).  After this,
  the value clauses force at most one true c per (row, class), so "at least one" suffices;
* within a *symmetry group* (positions with equal classes where G is invariant under exchanging
  them, [`ComposedClass.symmetry_groups`][ltheory.ComposedClass.symmetry_groups]) the chosen indices
  are sorted, since permuting
  the tuple within the group leaves G(h_1, ..., h_k) unchanged;
* optional implied clauses (distinct points along a tree path, sorted levels for VC, distinct
  ladder points) that every solution satisfies anyway and that help propagation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from ltheory.core.compose import ComposedClass

__all__ = ["Realisation", "reduced_problem"]


@dataclass
class _Reduced:
    """A composed class reduced to its candidate points (see
    [`ltheory.sat.encode`][ltheory.sat.encode])."""

    C: ComposedClass
    points: list[int]                 # candidate point indices into the original domain
    mats: list[np.ndarray]            # per class: distinct rows restricted to the points
    origin: list[np.ndarray]          # per class: original row index of each distinct row
    clauses_true: list[list[int]]     # CNF of G over 1-based input literals
    clauses_false: list[list[int]]    # CNF of ¬G
    groups: list[list[int]]


def reduced_problem(C: ComposedClass, const_one: bool = False) -> _Reduced:
    """Candidate points (active, one per clone class) and the deduplicated restricted classes.

    With ``const_one`` one point on which every composed hypothesis is 1 is kept as well (if
    there is one): the last point x_k of a threshold ladder may be such a point (all h_i(x_k) = 1),
    while every other ladder point, every tree node and every point of a shattered set of size
    >= 1 must be a point on which the class is not constant.
    """
    pv = C.point_values()
    active = [int(x) for x in np.flatnonzero(pv[:, 0] & pv[:, 1])]
    if const_one:
        ones = np.flatnonzero(pv[:, 1] & ~pv[:, 0])
        if len(ones):
            active = sorted(active + [int(ones[0])])
    seen: dict[bytes, int] = {}
    points: list[int] = []
    for x in active:
        key = b"".join(c.matrix[:, x].tobytes() + b"|" for c in C.classes)
        if key not in seen:
            seen[key] = x
            points.append(x)
    mats, origin = [], []
    for c in C.classes:
        sub = np.ascontiguousarray(c.matrix[:, points])
        if sub.shape[0] and sub.shape[1]:
            _, first = np.unique(sub, axis=0, return_index=True)
            first = np.sort(first)
        else:
            first = np.arange(min(1, sub.shape[0]))
        mats.append(sub[first])
        origin.append(first)
    return _Reduced(C, points, mats, origin, C.G.cnf(), C.G.negate().cnf(),
                    [g for g in C.symmetry_groups if len(g) > 1])


class Realisation:
    """An incrementally built CNF for slots, rows and requirements over a reduced class.

    Clauses are appended to ``self.clauses`` and also pushed to ``self.sink`` (a pysat solver)
    when one is attached, so encodings can grow while a solver keeps what it learned.
    """

    def __init__(self, R: _Reduced, sink: object | None = None) -> None:
        self.R = R
        self.pool = IDPool()
        self.sink = sink
        self.n_clauses = 0
        self.slots: dict[object, list[int]] = {}
        self.rows: dict[object, tuple[list[list[int]], list[list[int]]]] = {}
        self._cands = list(range(len(R.points)))  # positions into R.points

    # ------------------------------------------------------------------ plumbing
    def add(self, clause: Sequence[int]) -> None:
        self.n_clauses += 1
        self.sink.add_clause(list(clause))  # type: ignore[union-attr]

    def slot(self, s: object) -> list[int]:
        """One-hot point choice q[s][x] over the candidate positions (pysat.card, seqcounter)."""
        got = self.slots.get(s)
        if got is not None:
            return got
        q = [self.pool.id(("q", s, x)) for x in self._cands]
        enc = CardEnc.equals(lits=q, bound=1, vpool=self.pool, encoding=EncType.seqcounter)
        for cl in enc.clauses:
            self.add(cl)
        self.slots[s] = q
        return q

    def row(self, r: object) -> tuple[list[list[int]], list[list[int]]]:
        """Component choices c[r][i][j] and value variables v[r][i][x] for row r."""
        got = self.rows.get(r)
        if got is not None:
            return got
        R = self.R
        cs: list[list[int]] = []
        vs: list[list[int]] = []
        for i, M in enumerate(R.mats):
            c = [self.pool.id(("c", r, i, j)) for j in range(M.shape[0])]
            self.add(c)  # at least one hypothesis (the value clauses make it exactly one)
            v = [self.pool.id(("v", r, i, x)) for x in self._cands]
            for x, vx in enumerate(v):
                col = M[:, x]
                for j, cj in enumerate(c):
                    self.add([-cj, vx] if col[j] else [-cj, -vx])
            cs.append(c)
            vs.append(v)
        for g in R.groups:  # sorted indices within a symmetry group (sound: see module doc)
            for a, b in zip(g, g[1:], strict=False):
                ca, cb = cs[a], cs[b]
                m = len(cb)
                ge = [self.pool.id(("ge", r, b, j)) for j in range(m)]  # ge[j] -> idx(c_b) >= j
                for j in range(m):
                    self.add([-ca[j], ge[j]])
                    self.add([-ge[j], cb[j]] + ([ge[j + 1]] if j + 1 < m else []))
        self.rows[r] = (cs, vs)
        return cs, vs

    def require(self, r: object, s: object, b: int, guard: int | None = None) -> None:
        """The hypothesis of row r takes value b at the point of slot s."""
        q = self.slot(s)
        _, vs = self.row(r)
        cnf = self.R.clauses_true if b else self.R.clauses_false
        extra = [] if guard is None else [-guard]
        for x, qx in enumerate(q):
            for D in cnf:
                cl = [-qx] + extra
                for lit in D:
                    var = vs[abs(lit) - 1][x]
                    cl.append(var if lit > 0 else -var)
                self.add(cl)

    def distinct(self, s: object, t: object) -> None:
        """Slots s and t choose different points."""
        qs, qt = self.slot(s), self.slot(t)
        for a, b in zip(qs, qt, strict=True):
            self.add([-a, -b])

    def increasing(self, s: object, t: object) -> None:
        """The point of slot s precedes the point of slot t (in candidate order)."""
        qs, qt = self.slot(s), self.slot(t)
        for x in range(len(qs)):
            self.add([-qs[x]] + qt[x + 1:])

    def output(self, r: object) -> list[int]:
        """Variables y[r][x] <-> G(v[r][1][x], ..., v[r][k][x]) (Tseitin: y -> CNF(G) and
        ¬y -> CNF(¬G)) for every candidate position x: the values of row r's hypothesis."""
        key = ("y", r)
        got = self.slots.get(key)
        if got is not None:
            return got
        _, vs = self.row(r)
        ys = [self.pool.id(("y", r, x)) for x in self._cands]
        for x, y in enumerate(ys):
            for sign, cnf in ((-1, self.R.clauses_true), (1, self.R.clauses_false)):
                for D in cnf:
                    cl = [sign * y]
                    for lit in D:
                        var = vs[abs(lit) - 1][x]
                        cl.append(var if lit > 0 else -var)
                    self.add(cl)
        self.slots[key] = ys
        return ys

    # ------------------------------------------------------------------ decoding
    def decode_slot(self, model: set[int], s: object) -> int:
        """The original domain index chosen by slot s."""
        q = self.slots[s]
        x = next(x for x, lit in enumerate(q) if lit in model)
        return self.R.points[x]

    def decode_row(self, model: set[int], r: object) -> list[int]:
        """Original row indices (one per class) chosen by row r."""
        cs, _ = self.rows[r]
        out = []
        for i, c in enumerate(cs):
            j = next(j for j, lit in enumerate(c) if lit in model)
            out.append(int(self.R.origin[i][j]))
        return out
