"""The shape of a theorem check: a statement of a source paper evaluated on concrete classes.

A :class:`Check` names one statement (``id``, the seed file it comes from, its number and text),
holds its bound as a sympy expression built in code (never parsed from a string), and ``run``
returns :class:`Evidence` rows: the class and its parameters, the exact values computed by
ltheory (each certified by a witness), the bound evaluated there, whether it holds, the slack,
and a witness when it fails.  ``holds`` is ``None`` for measured-only statements (Õ(·) bounds
with unspecified constants), where a row reports the measured value beside reference curves.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dimensions import DIMENSIONS, verify


@dataclass(frozen=True)
class Evidence:
    """One evaluation of a statement on concrete classes."""

    subject: str
    params: dict[str, Any]
    values: dict[str, Any]
    bound: Any
    holds: bool | None
    slack: Any = None
    witness: Any = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"class": self.subject, "params": _jsonable(self.params),
                "values": _jsonable(self.values), "bound": _jsonable(self.bound),
                "holds": self.holds, "slack": _jsonable(self.slack),
                "witness": _jsonable(self.witness), "note": self.note}


@dataclass(frozen=True)
class CheckResult:
    """All evidence for one statement; ``holds`` is False if any row fails, None if every row is
    measured-only, True otherwise."""

    check: Check
    rows: tuple[Evidence, ...]
    seconds: float

    @property
    def holds(self) -> bool | None:
        verdicts = [r.holds for r in self.rows if r.holds is not None]
        if any(v is False for v in verdicts):
            return False
        return True if verdicts else None

    def to_json(self) -> dict[str, Any]:
        c = self.check
        return {"id": c.id, "source": c.source, "statement": c.statement, "text": c.text,
                "bound": str(c.bound) if c.bound is not None else None, "holds": self.holds,
                "kind": c.kind, "seconds": round(self.seconds, 3),
                "rows": [r.to_json() for r in self.rows]}


@dataclass(frozen=True)
class Check:
    """A statement of a source paper that can be evaluated on finite classes.

    ``evaluate(quick)`` yields the evidence rows; ``kind`` is "bound" (an inequality that must
    hold), "value" (a stated exact value), "tightness" (a construction claimed to reach a bound)
    or "measured" (an Õ statement: rows carry the measured value and reference curves, holds
    None).
    """

    id: str
    source: str
    statement: str
    text: str
    bound: sympy.Expr | None
    evaluate: Callable[[bool], Iterable[Evidence]] = field(repr=False, compare=False)
    kind: str = "bound"

    def run(self, quick: bool = False) -> CheckResult:
        t0 = time.perf_counter()
        rows = tuple(self.evaluate(quick))
        return CheckResult(self, rows, time.perf_counter() - t0)


def dims(H: HypothesisClass, *kinds: str) -> dict[str, int]:
    """Exact dimensions of H, each certified by its witness (raises if a witness fails)."""
    out = {}
    for k in kinds:
        r = DIMENSIONS[k].compute(H)
        verify(H, r)
        if not r.exact:  # pragma: no cover - no budget is passed
            raise RuntimeError(f"{k} of {H!r} is not exact")
        out[k] = int(r.value)
    return out


def witness_of(H: HypothesisClass, kind: str) -> Any:
    """The certified witness of one dimension of H (for failing rows)."""
    r = DIMENSIONS[kind].compute(H)
    verify(H, r)
    return r.witness_json()


def evaluate_bound(expr: sympy.Expr, **values: Any) -> Any:
    """The bound at the given symbol values, as an int or an exact Fraction where possible.

    A list or tuple value is a sequence for the ``sympy.IndexedBase`` of that name, indexed from
    1 (``d=[2, 1]`` gives d[1] = 2, d[2] = 1); sums and products over it are unrolled once their
    limits are numbers, e.g. ``Product(Sum(binomial(n, j), (j, 0, d[i])), (i, 1, k))`` at
    ``n=3, k=2, d=[1, 0]`` is (1 + 3)·1 = 4.
    """
    by_name = {str(sym): sym for sym in expr.free_symbols}
    bases = {b.label.name: b for b in expr.atoms(sympy.IndexedBase)}
    unknown = set(values) - set(by_name) - set(bases)
    if unknown:
        raise ValueError(f"no symbol(s) {sorted(unknown)} in the bound {expr}")
    subs: dict[Any, Any] = {}
    for k, v in values.items():
        if isinstance(v, (list, tuple)):
            if k not in bases:
                raise ValueError(f"{k} is not an indexed sequence in the bound {expr}")
            subs.update({bases[k][i + 1]: _number(x) for i, x in enumerate(v)})
        else:
            subs[by_name[k]] = _number(v)
    val = expr.subs(subs)
    for _ in range(16):  # unroll numeric-limit sums/products, outermost first, then substitute
        new = val.replace(lambda e: isinstance(e, (sympy.Sum, sympy.Product)) and all(
            b.is_number for lim in e.limits for b in lim[1:]),
            lambda e: e.doit(deep=False)).subs(subs)
        if new == val:
            break
        val = new
    val = sympy.simplify(val.doit())
    if val.is_Integer:
        return int(val)
    if val.is_Rational:
        return Fraction(int(val.p), int(val.q))
    return float(val)


def _number(v: Any) -> sympy.Expr:
    return sympy.Integer(v) if isinstance(v, int) else sympy.nsimplify(v)


def le_row(subject: str, params: dict[str, Any], measured: int, bound: Any,
           values: dict[str, Any], witness: Callable[[], Any] | None = None,
           note: str = "") -> Evidence:
    """A row for "measured <= bound"; on failure the witness is computed and attached."""
    holds = measured <= bound
    return Evidence(subject, params, values, bound, holds, _slack(bound, measured),
                    None if holds or witness is None else witness(), note)


def eq_row(subject: str, params: dict[str, Any], measured: int, stated: Any,
           values: dict[str, Any], witness: Callable[[], Any] | None = None,
           note: str = "") -> Evidence:
    """A row for a stated exact value; on disagreement the witness of the exact value is given."""
    holds = measured == stated
    return Evidence(subject, params, values, stated, holds, _slack(stated, measured),
                    None if holds or witness is None else witness(), note)


def _slack(bound: Any, measured: Any) -> Any:
    try:
        return bound - measured
    except TypeError:
        return None


def _jsonable(x: Any) -> Any:
    if isinstance(x, Fraction):
        return str(x) if x.denominator != 1 else x.numerator
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, sympy.Basic):
        return str(x)
    try:
        json.dumps(x)
        return x
    except TypeError:
        return str(x)
