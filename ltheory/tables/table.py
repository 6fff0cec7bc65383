"""Tables of exact dimensions over a range of a catalog family's members.

    dimension_table("conjunctions", {"n": "1..8"}, budget=10)   -> DimensionTable
    dimension_table("halfspaces", ["g=2..6", "dim=2"], only=("vc", "ldim"), clique=2)

For every member (a combination of the parameter values,
[`ltheory.tables.expand`][ltheory.tables.expand])
the class is built from the catalog, its VC, Littlestone and threshold dimensions (and ω_m, the
clique number of the contradiction graph, when ``clique=m`` is given) are computed by
[`ltheory.DIMENSIONS`][ltheory.DIMENSIONS] under a time budget per dimension, every
witness is
re-checked by the independent checker, and the result is compared with each cited formula of the
catalog that applies to the member ([`ltheory.catalog.known_values`][ltheory.catalog.known_values]):

* an exact value v: *agrees* if the dimension is proven to equal v, *disagrees* if v lies outside
  the proven bounds, else *undecided*;
* a lower bound v: *agrees* once the proven lower bound reaches v, *disagrees* if the proven upper
  bound is below v; an upper bound symmetrically.

A member the catalog refuses (out of a parameter's declared range, past the size limit, an
invalid combination) or whose computation stops with an [`LtheoryError`][ltheory.LtheoryError]
is kept as a *skipped* row with the reason.  Disagreements the catalog already records (its
``disagreement`` field, e.g. the affine family) are marked as such; any other disagreement is a
finding (``DimensionTable.findings``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ltheory import catalog
from ltheory.catalog.schema import KnownValue, check_params
from ltheory.dimensions import DIMENSIONS, verify
from ltheory.dims.budget import check_budget
from ltheory.dims.result import DimensionResult
from ltheory.errors import InvalidInputError, LtheoryError
from ltheory.graphs import clique_number, verify_graph_result
from ltheory.progress import Progress, report
from ltheory.tables.ranges import expand

__all__ = ["DEFAULT_BUDGET", "MARKS", "DimensionTable", "FormulaCheck", "TableRow",
           "dimension_table", "formula_checks", "judge", "legend", "mark"]

DEFAULT_BUDGET = 10.0
"""Seconds per dimension per member unless told otherwise."""

VERDICTS = ("agrees", "disagrees", "undecided")

MARKS = {
    "✓": "every cited formula agrees",
    "✗": "a cited formula disagrees (a finding)",
    "✗*": "a cited formula disagrees, a disagreement the catalog already records "
          "('ltheory catalog FAMILY' says why)",
    "?": "undecided: the budget left bounds too wide to judge",
}
"""The marks of a value against the catalog's cited formulas (``ltheory table``, ``ltheory
demo``), most severe first, and what each means."""


def judge(kind: str, formula_value: int, lower: float, upper: float) -> str:
    """The verdict of a cited value or bound against proven bounds lower <= dim <= upper.

    ``kind`` is "value" (dim = v), "lower" (dim >= v) or "upper" (dim <= v).
    """
    v = formula_value
    if kind == "value":
        if v < lower or v > upper:
            return "disagrees"
        return "agrees" if lower == upper else "undecided"
    if kind == "lower":
        return "agrees" if lower >= v else ("disagrees" if upper < v else "undecided")
    if kind == "upper":
        return "agrees" if upper <= v else ("disagrees" if lower > v else "undecided")
    raise InvalidInputError(f"unknown kind of known value {kind!r}; accepted: value, lower, "
                            "upper")


@dataclass(frozen=True)
class FormulaCheck:
    """One cited formula of the catalog evaluated at a member and compared with the result."""

    key: str
    dimension: str
    kind: str
    value: int
    formula: str
    citation: str
    verdict: str
    recorded_disagreement: str | None = None
    when: str | None = None

    @property
    def finding(self) -> bool:
        """A disagreement the catalog does not already record."""
        return self.verdict == "disagrees" and self.recorded_disagreement is None

    @property
    def statement(self) -> str:
        """The cited formula with its condition: ``"ldim = n when 2 * k >= n"``."""
        return f"{self.key} = {self.formula}" + (f" when {self.when}" if self.when else "")

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "dimension": self.dimension, "kind": self.kind,
                "value": self.value, "formula": self.formula, "when": self.when,
                "citation": self.citation, "verdict": self.verdict,
                "recorded_disagreement": self.recorded_disagreement}


def mark(checks: Iterable[FormulaCheck]) -> str:
    """The mark (a key of `MARKS`) of one value against its formula checks; "" if none."""
    checks = list(checks)
    if not checks:
        return ""
    if any(c.finding for c in checks):
        return "✗"
    if any(c.verdict == "disagrees" for c in checks):
        return "✗*"
    if any(c.verdict == "undecided" for c in checks):
        return "?"
    return "✓"


def legend(marks: Iterable[str]) -> str:
    """One line explaining each of ``marks`` (in the order of `MARKS`), "" if none."""
    used = set(marks)
    return "; ".join(f"{m} {text}" for m, text in MARKS.items() if m in used)


@dataclass(frozen=True)
class TableRow:
    """One member: its parameters (declared defaults filled in), the class's name and size, the
    results by key ("vc", "ldim", "tdim", "clique"), the formula checks, or why it was skipped."""

    params: Mapping[str, Any]
    name: str | None = None
    size: int | None = None
    domain_size: int | None = None
    results: Mapping[str, DimensionResult] = field(default_factory=dict)
    checks: tuple[FormulaCheck, ...] = ()
    skipped: str | None = None
    seconds: float = 0.0
    build_seconds: float = 0.0

    def checks_for(self, key: str) -> list[FormulaCheck]:
        """The formula checks of one dimension key."""
        return [c for c in self.checks if c.dimension == key]

    def to_json(self) -> dict[str, Any]:
        return {"params": dict(self.params), "class": None if self.name is None else {
                    "name": self.name, "size": self.size, "domain_size": self.domain_size},
                "results": {k: r.to_json() | {"verified": True} for k, r in self.results.items()},
                "checks": [c.to_json() for c in self.checks], "skipped": self.skipped,
                "seconds": round(self.seconds, 6), "build_seconds": round(self.build_seconds, 6)}


@dataclass(frozen=True)
class DimensionTable:
    """The table: family, the swept ranges, the dimension keys computed, the budget, the rows.

    ``x`` is the first parameter with more than one value (None when the table has one member).
    """

    family: str
    ranges: Mapping[str, tuple[Any, ...]]
    keys: tuple[str, ...]
    budget: float | None
    rows: tuple[TableRow, ...]
    clique_m: int | None = None
    seconds: float = 0.0

    @property
    def x(self) -> str | None:
        return next((k for k, v in self.ranges.items() if len(v) > 1), None)

    @property
    def findings(self) -> list[tuple[TableRow, FormulaCheck]]:
        """Disagreements with a cited formula that the catalog does not record."""
        return [(r, c) for r in self.rows for c in r.checks if c.finding]

    def counts(self) -> dict[str, int]:
        """Members computed / skipped, and formula checks by verdict."""
        checks = [c for r in self.rows for c in r.checks]
        out = {"members": len(self.rows),
               "computed": sum(r.skipped is None for r in self.rows),
               "skipped": sum(r.skipped is not None for r in self.rows),
               "exact": sum(res.exact for r in self.rows for res in r.results.values()),
               "partial": sum(not res.exact for r in self.rows for res in r.results.values())}
        out.update({v: sum(c.verdict == v for c in checks) for v in VERDICTS})
        out["recorded_disagreements"] = sum(c.verdict == "disagrees" and not c.finding
                                            for c in checks)
        out["findings"] = len(self.findings)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"format": "ltheory.table/1", "family": self.family,
                "ranges": {k: list(v) for k, v in self.ranges.items()}, "x": self.x,
                "dimensions": list(self.keys), "clique_m": self.clique_m,
                "budget": self.budget, "seconds": round(self.seconds, 6),
                "summary": self.counts(), "rows": [r.to_json() for r in self.rows]}


def _compute(H: Any, key: str, budget: float | None, method: str, m: int | None
             ) -> DimensionResult:
    if key == "clique":
        assert m is not None
        res = clique_number(H, m, budget=budget)
        verify_graph_result(H, m, res)
        return res
    res = DIMENSIONS[key].compute(H, budget=budget, method=method)
    verify(H, res)
    return res


def formula_checks(known: Mapping[str, KnownValue], results: Mapping[str, DimensionResult]
                   ) -> tuple[FormulaCheck, ...]:
    """The cited values ``known`` (`ltheory.catalog.known_values`) judged against the
    results by dimension key; a cited value of a dimension not computed is left out."""
    out = []
    for key, kv in known.items():
        res = results.get(kv.dimension)
        if res is None:
            continue
        out.append(FormulaCheck(key, kv.dimension, kv.kind, kv.value, kv.formula, kv.citation,
                                judge(kv.kind, kv.value, res.lower, res.upper),
                                kv.disagreement, kv.when))
    return tuple(out)


def _row(family: str, params: dict[str, Any], keys: Sequence[str], budget: float | None,
         method: str, m: int | None) -> TableRow:
    t0 = time.perf_counter()
    info = catalog.describe(family)
    try:
        full = check_params(info, params)
        known = catalog.known_values(family, **params)
        H = catalog.family(family, **params)
    except LtheoryError as exc:
        return TableRow(dict(params), skipped=str(exc), seconds=time.perf_counter() - t0)
    built = time.perf_counter() - t0
    results: dict[str, DimensionResult] = {}
    for key in keys:
        try:
            results[key] = _compute(H, key, budget, method, m)
        except LtheoryError as exc:
            return TableRow(full, H.name, len(H), H.domain_size, results,
                            formula_checks(known, results), skipped=f"{key}: {exc}",
                            seconds=time.perf_counter() - t0, build_seconds=built)
    return TableRow(full, H.name, len(H), H.domain_size, results, formula_checks(known, results),
                    seconds=time.perf_counter() - t0, build_seconds=built)


def dimension_table(family: str, ranges: Mapping[str, Any] | Sequence[str], *,
                    only: Iterable[str] | None = None, budget: float | None = DEFAULT_BUDGET,
                    clique: int | None = None, method: str = "auto",
                    progress: Progress | None = None) -> DimensionTable:
    """The dimensions of every member of ``family`` over ``ranges`` (see
    [`ltheory.tables.table`][ltheory.tables.table]).

    ``ranges``: ``{"n": "1..8", "k": 2}`` (a value, a range text or an iterable per parameter)
    or ``["n=1..8", "k=2"]``; ``only``: a subset of ("vc", "ldim", "tdim") (default all);
    ``budget``: seconds per dimension per member (default 10, `DEFAULT_BUDGET`; None: no
    limit), past it proven bounds;
    ``clique``: also ω_m for this m; ``method``: as for
    [`ltheory.vc_dimension`][ltheory.vc_dimension];
    ``progress(done, total)``: called as members are computed (`ltheory.progress`).
    """
    t0 = time.perf_counter()
    parsed, members = expand(family, ranges)
    keys = list(DIMENSIONS) if only is None else list(only)
    if not keys or any(k not in DIMENSIONS for k in keys) or len(set(keys)) != len(keys):
        raise InvalidInputError(f"only takes a non-empty subset of {', '.join(DIMENSIONS)}; "
                                f"got {keys!r}")
    budget = check_budget(budget)
    if clique is not None:
        if isinstance(clique, bool) or not isinstance(clique, int) or not 1 <= clique <= 16:
            raise InvalidInputError(f"clique takes the sample size m, an integer 1..16; got "
                                    f"{clique!r}")
        keys.append("clique")
    rows: list[TableRow] = []
    for i, p in enumerate(members):
        report(progress, i, len(members))
        rows.append(_row(family, p, keys, budget, method, clique))
    report(progress, len(members), len(members))
    return DimensionTable(family, parsed, tuple(keys), budget, tuple(rows), clique,
                          time.perf_counter() - t0)
