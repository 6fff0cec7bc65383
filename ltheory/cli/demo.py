"""``ltheory demo [--json]``: the embedded default — exact, verified dimensions of a few catalog
classes, marked against the catalog's cited formulas with the marks of ``ltheory table``
(`ltheory.tables.MARKS`, explained under the table)."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ltheory import catalog
from ltheory.cli.common import cell, compute, dump_json, fail, result_json
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dimensions import DIMENSIONS
from ltheory.dims.result import DimensionResult
from ltheory.errors import LtheoryError
from ltheory.tables import FormulaCheck, formula_checks, legend, mark

NAME = "demo"

# Catalog classes whose three dimensions take well under a minute together on one core.
DEMO_SPECS = [
    "thresholds n=64",
    "intervals n=19 empty=true",
    "points n=16 zero=true",
    "parities n=4",
    "conjunctions n=4 k=4 monotone=true",
    "decision_lists n=3 k=1 monotone=false",
    "halfspaces g=4 dim=2",
    "affine p=2 n=3 d=1 exact=false",
    "weight_at_most n=8 d=2",
    "random m=120 n=16 p=0.5 seed=0",
]


def known_checks(spec: str, H: HypothesisClass, results: dict[str, DimensionResult]
                 ) -> tuple[FormulaCheck, ...]:
    """The catalog's cited formulas that apply to ``spec``, judged as ``ltheory table`` does."""
    if H.name is None or " " not in spec:
        return ()
    try:
        name, params = catalog.parse_spec(spec)
        known = catalog.known_values(name, **params)
    except LtheoryError:
        return ()
    return formula_checks(known, results)


def known_mark(checks: tuple[FormulaCheck, ...], key: str) -> str:
    """' ✓', ' ✗*', ... (`ltheory.tables.MARKS`) for one dimension, '' if nothing cited."""
    m = mark(c for c in checks if c.dimension == key)
    return f" {m}" if m else ""


def command(as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")]
            = False) -> None:
    """Exact, verified dimensions of a few catalog classes (the embedded default, < 1 minute)."""
    t0 = time.perf_counter()
    rows = []
    for spec in DEMO_SPECS:
        try:
            H = catalog.from_spec(spec)
            results = compute(H, list(DIMENSIONS), budget=20.0)
        except LtheoryError as exc:
            raise fail(f"{spec}: {exc}") from None
        rows.append((spec, H, results))
    if as_json:
        typer.echo(dump_json([{"class": {"name": spec, "domain_size": H.domain_size,
                                          "size": len(H)},
                                **{key: result_json(r) for key, r in res.items()}}
                               for spec, H, res in rows]))
        return
    console = Console()
    table = Table(title="ltheory demo: exact dimensions, every witness re-checked, marked "
                        "against the catalog's cited formulas")
    table.add_column("class")
    for col in ("|X|", "|H|", *(d.symbol for d in DIMENSIONS.values()), "seconds"):
        table.add_column(col, justify="right")
    used: set[str] = set()
    notes: list[str] = []
    for spec, H, res in rows:
        checks = known_checks(spec, H, res)
        marks = [known_mark(checks, k) for k in DIMENSIONS]
        used.update(m.strip() for m in marks if m)
        notes += [f"{mark([c])} {spec}: the cited {c.statement} gives {c.value}, computed "
                  f"{res[c.dimension].value}" + (
                      f" (recorded: ltheory catalog {spec.split()[0]})"
                      if c.recorded_disagreement else "")
                  for c in checks if c.verdict == "disagrees"]
        table.add_row(spec, str(H.domain_size), str(len(H)),
                      *[cell(res[k]) + m for k, m in zip(DIMENSIONS, marks, strict=True)],
                      f"{sum(r.seconds for r in res.values()):.2f}")
    console.print(table)
    if used:
        console.print(f"marks: {legend(used)}", markup=False, highlight=False, soft_wrap=True)
    for note in notes:
        console.print(note, markup=False, highlight=False, soft_wrap=True)
    console.print(f"total {time.perf_counter() - t0:.1f} s. Try: ltheory dims 'intervals n=40' "
                  "--json, ltheory catalog, ltheory audit --help", highlight=False)
