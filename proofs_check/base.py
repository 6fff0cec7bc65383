"""The shape of a theorem check: a statement of a source paper evaluated on concrete classes.

A [`Check`][proofs_check.Check] names one statement (``id``, the seed file it comes from, its number
and text),
holds its bound as a sympy expression built in code (never parsed from a string), and ``run``
returns [`Evidence`][proofs_check.Evidence] rows: the class and its parameters, the exact values
computed by
ltheory (each certified by a witness), the bound evaluated there, whether it holds, the slack,
the *tightness* (how close the row came to violating the statement: measured/bound for an upper
bound, bound/measured for a lower bound, 1 for a met equality) and a witness when it fails.
``holds`` is ``None`` for measured-only statements (Õ(·) bounds with unspecified constants), where
a row reports the measured value beside reference curves.

Every check says in ``falsifiable`` how its verdict could have been false on its rows (a check
that cannot fail is not a check).  A statement that cannot be evaluated on finite instances (an
O(·) with no constant, an existential constant, an asymptotic lower bound over all algorithms)
is a first-class check of kind ``"not_evaluable"`` whose single row gives the reason
(`not_evaluable`); it is listed in the report, never silently left out.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import sympy

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dimensions import DIMENSIONS, verify
from ltheory.jsonable import to_jsonable


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
    #: how close this row came to violating the statement, in [0, ∞): measured/bound for an
    #: upper bound, bound/measured for a lower bound, 1 for a met equality; > 1 on a violation;
    #: None where no such ratio is meaningful (a row without a verdict)
    tightness: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"class": self.subject, "params": to_jsonable(self.params),
                "values": to_jsonable(self.values), "bound": to_jsonable(self.bound),
                "holds": self.holds, "slack": to_jsonable(self.slack),
                # an infinite tightness is
                # the documented string "inf" (ltheory.jsonable), never the non-JSON Infinity
                "tightness": None if self.tightness is None else to_jsonable(
                    round(float(self.tightness), 6)),
                "witness": to_jsonable(self.witness), "note": self.note}


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

    @property
    def status(self) -> str:
        """"fails", "holds", "measured" (no verdict by design), "not evaluable" or "undecided"
        (a verdict-bearing check none of whose rows was decided)."""
        h = self.holds
        if h is False:
            return "fails"
        if h is True:
            return "holds"
        if self.check.kind == NOT_EVALUABLE:
            return "not evaluable"
        return "measured" if self.check.kind == "measured" else "undecided"

    @property
    def tightness(self) -> float | None:
        """The largest tightness over the rows that hold (None if no row carries one)."""
        ts = [float(r.tightness) for r in self.rows
              if r.tightness is not None and r.holds is True and math.isfinite(r.tightness)]
        return max(ts) if ts else None

    def to_json(self) -> dict[str, Any]:
        c = self.check
        t = self.tightness
        return {"id": c.id, "source": c.source, "statement": c.statement, "text": c.text,
                "bound": str(c.bound) if c.bound is not None else None, "holds": self.holds,
                "status": self.status, "kind": c.kind, "falsifiable": c.falsifiable,
                "tightness": None if t is None else to_jsonable(round(float(t), 6)),
                "seconds": round(self.seconds, 3), "rows": [r.to_json() for r in self.rows]}


#: the status of an equivalence declaration whose numerical steps are verified over the whole
#: parameter range (interval arithmetic, monotonicity plus endpoints, a sympy derivation, or an
#: exact computation over a finite family)
PROVED = "equivalent"
#: the status of one whose numerical steps were only evaluated on a grid (a grid can miss the
#: supremum): reported apart, never counted as equivalent
GRID = "numerically supported (grid)"


@dataclass(frozen=True)
class Proof:
    """Why a mutant is still a true statement (an equivalence declaration, `Mutable`).

    ``text`` is the derivation; ``range`` the parameter range the statement is claimed over;
    ``verified_by`` the test (``tests/FILE.py::NAME``) that recomputes the derivation's numerical
    steps.  With ``grid`` empty the test verifies them over the *whole* range (status
    `PROVED`); otherwise ``grid`` states the finite grid they were evaluated on and the
    status is `GRID` ("numerically supported", not a proof)."""

    text: str
    range: str
    verified_by: str
    grid: str = ""

    @property
    def status(self) -> str:
        return GRID if self.grid else PROVED

    def __str__(self) -> str:
        return self.text

    def to_json(self) -> dict[str, str]:
        return {"status": self.status, "range": self.range, "verified_by": self.verified_by,
                "grid": self.grid or None, "text": self.text}


@dataclass(frozen=True)
class Mutable:
    """A bound of a statement declared as data, for the mutation harness
    (`proofs_check.mutation`): the sympy expression at ``module.attr`` (or the attribute
    ``member`` of ``module.attr[key]``) that the check's rows read at run time.

    ``falseward`` says which way the statement becomes false: -1 when a smaller value is harder
    to satisfy (an upper bound, a sample size, a claimed ε), +1 when a larger one is (a lower
    bound), 0 when any change is (a stated exact value).  ``at`` are the symbol values at which
    the direction of a mutant is judged.

    Two declarations cover the mutants no check can kill, keyed by the mutant's key (or "*" for
    every mutant of this bound):

    - ``equivalent``: the mutated statement is still TRUE on every instance (the paper's
      constant is loose by more than the 10% step) — an *equivalent mutant*; the value is a
      `Proof` (the derivation, its range and the test that recomputes its numerical
      steps over that whole range), or, where the steps were only evaluated on a grid, a
      `Proof` with its ``grid`` stated: "numerically supported (grid)", reported apart.
      Either way it is left out of the kill rate; a check that kills it is wrong.
    - ``survivors``: the mutated statement is not known to be true, yet no finite instance
      known refutes it (the reason says why); it counts as a survivor.

    The harness fails on any other surviving mutant, and on a declaration that is stale (no
    longer generated, or no longer surviving).
    """

    module: str
    attr: str
    falseward: int
    at: tuple[dict[str, Any], ...]
    key: str | None = None
    member: str | None = None
    survivors: dict[str, str] = field(default_factory=dict, compare=False)
    equivalent: dict[str, Proof] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Check:
    """A statement of a source paper that can be evaluated on finite classes.

    ``evaluate(quick)`` yields the evidence rows; ``kind`` is "bound" (an inequality that must
    hold), "value" (a stated exact value), "tightness" (a construction claimed to reach a bound),
    "simulation" (a probability bound checked by a sound confidence interval), "privacy" (a
    privacy claim against an exact or audited ε/δ), "measured" (an Õ statement: rows carry the
    measured value and reference curves, holds None) or "not_evaluable" (see
    `not_evaluable`).  ``falsifiable`` says how the verdict could have been false on these
    rows.
    """

    id: str
    source: str
    statement: str
    text: str
    bound: sympy.Expr | None
    evaluate: Callable[[bool], Iterable[Evidence]] = field(repr=False, compare=False)
    kind: str = "bound"
    falsifiable: str = ""
    #: the bounds the rows read, as data, for the mutation harness (see `Mutable`)
    mutable: tuple[Mutable, ...] = ()
    #: why a verdict-bearing check declares no mutable bound (no numeric formula in it)
    unmutable: str = ""

    def run(self, quick: bool = False) -> CheckResult:
        t0 = time.perf_counter()
        rows = tuple(self.evaluate(quick))
        return CheckResult(self, rows, time.perf_counter() - t0)


#: the kind of a statement that cannot be evaluated on finite instances
NOT_EVALUABLE = "not_evaluable"
KINDS = ("bound", "value", "tightness", "simulation", "privacy", "measured", NOT_EVALUABLE)


def not_evaluable(cid: str, source: str, statement: str, text: str, reason: str) -> Check:
    """A statement listed as not evaluable on finite instances, with the reason (one row, no
    verdict)."""

    def rows(quick: bool) -> Iterator[Evidence]:
        yield Evidence("not evaluable", {}, {"reason": reason}, None, None,
                       note=f"NOT EVALUABLE: {reason}")

    return Check(cid, source, statement, text, None, rows, kind=NOT_EVALUABLE,
                 falsifiable=f"not evaluable on finite instances: {reason}")


def tight(measured: Any, bound: Any, lower: bool = False) -> float | None:
    """measured/bound (``lower``: bound/measured) as a float; 1 when both are 0; None if either
    is not a number."""
    try:
        a, b = (float(bound), float(measured)) if lower else (float(measured), float(bound))
    except (TypeError, ValueError):
        return None
    if not (math.isfinite(a) and math.isfinite(b)):
        return None
    if b == 0:
        return 1.0 if a == 0 else math.inf
    return a / b


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
    """An int as an Integer; a float as its simplest rational (0.1 -> 1/10) when that is equal to
    it within 1e-12 relative, else as its exact binary value (nsimplify loses tiny floats such
    as 1e-50)."""
    if isinstance(v, int):
        return sympy.Integer(v)
    s = sympy.nsimplify(v)
    if isinstance(v, float) and not (s.is_Rational and math.isclose(float(s), v, rel_tol=1e-12)):
        return sympy.Rational(v)
    return s


def le_row(subject: str, params: dict[str, Any], measured: int, bound: Any,
           values: dict[str, Any], witness: Callable[[], Any] | None = None,
           note: str = "") -> Evidence:
    """A row for "measured <= bound"; on failure the witness is computed and attached."""
    holds = measured <= bound
    return Evidence(subject, params, values, bound, holds, _slack(bound, measured),
                    None if holds or witness is None else witness(), note, tight(measured, bound))


def eq_row(subject: str, params: dict[str, Any], measured: int, stated: Any,
           values: dict[str, Any], witness: Callable[[], Any] | None = None,
           note: str = "") -> Evidence:
    """A row for a stated exact value; on disagreement the witness of the exact value is given."""
    holds = measured == stated
    return Evidence(subject, params, values, stated, holds, _slack(stated, measured),
                    None if holds or witness is None else witness(), note,
                    1.0 if holds else 0.0)


def _slack(bound: Any, measured: Any) -> Any:
    try:
        return bound - measured
    except TypeError:
        return None


def declare(checks: list[Check], mutable: dict[str, tuple[Mutable, ...]] | None = None,
            unmutable: dict[str, str] | None = None) -> list[Check]:
    """``checks`` with their mutable bounds (and, for checks without a numeric formula, the
    reason none is declared) set by id; an unknown id is an error."""
    mutable, unmutable = mutable or {}, unmutable or {}
    ids = {c.id for c in checks}
    unknown = (set(mutable) | set(unmutable)) - ids
    if unknown:
        raise ValueError(f"declare: no check(s) {sorted(unknown)}")
    return [replace(c, mutable=mutable.get(c.id, c.mutable),
                    unmutable=unmutable.get(c.id, c.unmutable)) for c in checks]
