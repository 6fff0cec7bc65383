"""Mutation testing of the theorem checks: does a check notice a false bound?

Every verdict-bearing check declares the bounds its rows read as data (``Check.mutable``, a
tuple of `Mutable`).  From each declared sympy expression this module
generates the mutants itself:

- every numeric constant (other than 0, ±1 and the numeric exponent of a power, which are the
  formula's shape) moved by 10% in the direction that makes the statement false;
- every additive term dropped;
- every exponent's constant doubled (``exp(a)`` → ``exp(2a)``, ``c**a`` → ``c**(2a)`` for a
  numeric base c);

keeping only the mutants that move the bound towards false at every declared reference point
(and strictly at one; for a stated value, any change).  A mutant is *killed* when the check, run
with the mutant in place of the bound, has a failing row.  The rows are consumed lazily, so a
killed mutant costs only the rows up to the first failure.

A surviving mutant is a check that would not have noticed that false bound — unless the mutant
is not a false bound at all: where the paper's constant is loose by more than the 10% step, the
mutated statement is still true everywhere (an *equivalent mutant*), and the statement declares
it in ``Mutable.equivalent`` with the proof (a `Proof`: derivation,
range, and the test that recomputes its numerical steps).  Such a mutant is classified
``equivalent`` when those steps are verified over the whole range, and ``numerically supported
(grid)`` — reported apart, never as equivalent — when they were only evaluated on a stated grid;
both are left out of the kill rate (neither is a known false statement).  A statement may
also declare (``Mutable.survivors``) why a mutant that is
not known to be true cannot be killed on finite classes; it stays a survivor.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import sympy

from proofs_check import base
from proofs_check.base import GRID, PROVED, Check, Mutable, Proof

#: the statuses of a mutant, in the order the harness reports them
KILLED, SURVIVED, CONTRADICTION = "killed", "survived", "contradiction"
STATUSES = (KILLED, PROVED, GRID, SURVIVED, CONTRADICTION)

#: the factors a constant is moved by (towards false: whichever qualifies, tried in this order)
FACTORS = (sympy.Rational(9, 10), sympy.Rational(11, 10))


@dataclass(frozen=True)
class Mutant:
    """One false version of a declared bound."""

    check_id: str
    spec: Mutable
    #: what was changed, e.g. "constant 80 moved 10%" (the key of ``Mutable.survivors``)
    key: str
    expr: sympy.Expr

    @property
    def label(self) -> str:
        name = self.spec.attr if self.spec.key is None else f"{self.spec.attr}[{self.spec.key}]"
        return f"{name}: {self.key} -> {self.expr}"


@dataclass(frozen=True)
class Outcome:
    """What the check said with the mutant in place: ``killed`` (a row failed), ``error`` (the
    check raised; counted as not killed), the rows evaluated, and the statement's declarations
    for this mutant: the proof that it is an equivalent mutant (still true), or the reason it
    survives."""

    mutant: Mutant
    killed: bool
    rows: int
    error: str = ""

    @property
    def declared(self) -> str | None:
        """The reason the statement declares for this mutant's survival (by key, or "*" for
        every mutant of that bound), if any."""
        s = self.mutant.spec.survivors
        return s.get(self.mutant.key, s.get("*"))

    @property
    def proof(self) -> Proof | None:
        """The statement's proof that this mutant is still true (an equivalent mutant)."""
        s = self.mutant.spec.equivalent
        return s.get(self.mutant.key, s.get("*"))

    @property
    def status(self) -> str:
        """"killed"; "equivalent" (declared true with a proof whose numerical steps are verified
        over its whole range, and not killed); "numerically supported (grid)" (declared true,
        the steps only evaluated on a grid, not killed); "survived"; or "contradiction" (declared
        true, yet a row of the check failed: the proof or the check is wrong)."""
        if self.proof is not None:
            return CONTRADICTION if self.killed else self.proof.status
        return KILLED if self.killed else SURVIVED


def _walk(e: sympy.Basic, path: tuple[int, ...] = (),
          parent: sympy.Basic | None = None) -> Iterator[tuple[tuple[int, ...], sympy.Basic,
                                                               sympy.Basic | None]]:
    yield path, e, parent
    for i, a in enumerate(e.args):
        yield from _walk(a, path + (i,), e)


def _replace(e: sympy.Basic, path: tuple[int, ...], new: sympy.Basic) -> sympy.Basic:
    if not path:
        return new
    args = list(e.args)
    args[path[0]] = _replace(args[path[0]], path[1:], new)
    return e.func(*args)


def candidates(expr: sympy.Expr) -> Iterator[tuple[str, list[sympy.Expr]]]:
    """(description, [alternatives]) for every constant, additive term and exponent of
    ``expr``; the caller keeps the first alternative that moves the bound towards false.
    The first candidate is the bound's own (implicit) constant: the whole bound moved 10%."""
    if not expr.is_Number:
        yield "the whole bound moved 10%", [expr * f for f in FACTORS]
    for path, node, parent in _walk(expr):
        if isinstance(node, sympy.Number) and node not in (0, 1, -1):
            if isinstance(parent, sympy.Pow) and path[-1] == 1:
                continue                                  # x**2, sqrt: the formula's shape
            yield (f"constant {node} moved 10%",
                   [_replace(expr, path, node * f) for f in FACTORS])
        if isinstance(node, sympy.Add) and len(node.args) >= 2:
            for i, term in enumerate(node.args):
                rest = sympy.Add(*(a for j, a in enumerate(node.args) if j != i))
                yield f"term {term} dropped", [_replace(expr, path, rest)]
        if isinstance(node, sympy.exp):
            yield (f"exponent of {node} doubled",
                   [_replace(expr, path, sympy.exp(2 * node.args[0]))])
        if (isinstance(node, sympy.Pow) and isinstance(node.args[0], sympy.Number)
                and node.args[0] not in (0, 1, -1) and not node.args[1].is_Number):
            yield (f"exponent of {node} doubled",
                   [_replace(expr, path, sympy.Pow(node.args[0], 2 * node.args[1]))])


def _value(expr: sympy.Expr, at: dict[str, Any]) -> float:
    names = {str(s) for s in expr.free_symbols} | {b.label.name for b in
                                                    expr.atoms(sympy.IndexedBase)}
    return float(base.evaluate_bound(expr, **{k: v for k, v in at.items() if k in names}))


def towards_false(spec: Mutable, original: sympy.Expr, mutant: sympy.Expr) -> bool:
    """Whether ``mutant`` moves the bound towards false at every reference point (strictly at
    one of them); for a stated value (falseward 0), whether it changes it at one."""
    moved = []
    for at in spec.at:
        try:
            a, b = _value(original, at), _value(mutant, at)
        except (ValueError, TypeError, ZeroDivisionError):
            return False
        if not (math.isfinite(a) and math.isfinite(b)):
            return False
        diff = b - a
        tol = 1e-12 * max(1.0, abs(a))
        if spec.falseward == 0:
            moved.append(abs(diff) > tol)
            continue
        step = diff * spec.falseward
        if step < -tol:
            return False
        moved.append(step > tol)
    return any(moved)


def original_expr(spec: Mutable) -> sympy.Expr:
    obj = getattr(importlib.import_module(spec.module), spec.attr)
    if spec.key is not None:
        obj = getattr(obj[spec.key], spec.member or "expr")
    return obj


def mutants(check: Check) -> list[Mutant]:
    """The mutants of every bound ``check`` declares (labels are unique per check)."""
    out: list[Mutant] = []
    for spec in check.mutable:
        expr = original_expr(spec)
        seen: set[sympy.Expr] = set()
        keys: dict[str, int] = {}
        for desc, alternatives in candidates(expr):
            for alt in alternatives:
                if alt == expr or not towards_false(spec, expr, alt):
                    continue
                if alt not in seen:                   # the same false bound reached twice
                    seen.add(alt)
                    keys[desc] = keys.get(desc, 0) + 1
                    key = desc if keys[desc] == 1 else f"{desc} #{keys[desc]}"
                    out.append(Mutant(check.id, spec, key, alt))
                break
    return out


def _lenient(fn: Any) -> Any:
    """evaluate_bound that ignores values for symbols a mutant no longer has (a dropped term)."""

    def evaluate(expr: sympy.Expr, **values: Any) -> Any:
        names = {str(s) for s in expr.free_symbols} | {b.label.name for b in
                                                        expr.atoms(sympy.IndexedBase)}
        return fn(expr, **{k: v for k, v in values.items() if k in names})

    return evaluate


def _install(spec: Mutable, expr: sympy.Expr) -> Any:
    """Put ``expr`` in place of the declared bound; returns an undo function."""
    mod = importlib.import_module(spec.module)
    old = getattr(mod, spec.attr)
    if spec.key is None:
        setattr(mod, spec.attr, expr)
    else:
        new = dict(old)
        new[spec.key] = replace(old[spec.key], **{spec.member or "expr": expr})
        setattr(mod, spec.attr, new)
    old_eval = getattr(mod, "evaluate_bound", None)
    if old_eval is not None:
        mod.evaluate_bound = _lenient(base.evaluate_bound)

    def undo() -> None:
        setattr(mod, spec.attr, old)
        if old_eval is not None:
            mod.evaluate_bound = old_eval

    return undo


def _clear_caches() -> None:
    amsy = importlib.import_module("proofs_check.amsy2024")
    amsy._explored.cache_clear()


def run_mutant(check: Check, mutant: Mutant, quick: bool) -> Outcome:
    """Run ``check`` with ``mutant`` in place (lazily: stop at the first failing row)."""
    undo = _install(mutant.spec, mutant.expr)
    _clear_caches()
    rows = 0
    try:
        for row in check.evaluate(quick):
            rows += 1
            if row.holds is False:
                return Outcome(mutant, True, rows)
        return Outcome(mutant, False, rows)
    except Exception as exc:  # noqa: BLE001 - a crashing mutant is reported, not killed
        return Outcome(mutant, False, rows, f"{type(exc).__name__}: {exc}")
    finally:
        undo()
        _clear_caches()


def run_all(checks: list[Check], quick: bool) -> list[Outcome]:
    return [run_mutant(c, m, quick) for c in checks for m in mutants(c)]


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    """Per status (`STATUSES`): killed / equivalent (a proof verified over its range) /
    numerically supported (grid) / survived (with the declared reason, or none) /
    contradiction, and the kill rate over the mutants not declared true (all but the
    equivalent and the grid-supported ones: neither is a known false statement)."""
    by = {k: [o for o in outcomes if o.status == k] for k in STATUSES}
    false_statements = len(outcomes) - len(by[PROVED]) - len(by[GRID])
    killed = len(by[KILLED])

    def row(o: Outcome, **extra: Any) -> dict[str, Any]:
        return {"check": o.mutant.check_id, "mutant": o.mutant.label, "rows": o.rows, **extra}

    def proof(o: Outcome) -> dict[str, Any] | None:
        return None if o.proof is None else o.proof.to_json()

    return {"mutants": len(outcomes), "killed": killed,
            "equivalent": len(by[PROVED]), "grid": len(by[GRID]),
            "survived": len(by[SURVIVED]), "contradiction": len(by[CONTRADICTION]),
            "false_statements": false_statements,
            "kill_rate": round(killed / false_statements, 4) if false_statements else None,
            "kill_rate_all": round(killed / len(outcomes), 4) if outcomes else None,
            "per_mutant": [row(o, status=o.status) for o in outcomes],
            "equivalents": [row(o, proof=proof(o)) for o in by[PROVED]],
            "grid_supported": [row(o, proof=proof(o)) for o in by[GRID]],
            "survivors": [row(o, declared=o.declared, error=o.error or None)
                          for o in by[SURVIVED]],
            "contradictions": [row(o, proof=proof(o)) for o in by[CONTRADICTION]]}
