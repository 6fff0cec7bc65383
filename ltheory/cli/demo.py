"""``ltheory demo [--json]``: the embedded default — exact, verified dimensions of a few catalog
classes, marked where they agree with the catalog's cited values."""

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


def known_mark(spec: str, H: HypothesisClass, key: str, r: DimensionResult) -> str:
    """' ✓' if the catalog states this value and it agrees, ' ✗' if it disagrees, '' otherwise."""
    if H.name is None or " " not in spec or not r.exact:
        return ""
    try:
        name, params = catalog.parse_spec(spec)
        known = catalog.known_values(name, **params).get(key)
    except LtheoryError:
        return ""
    if known is None:
        return ""
    return " ✓" if known.value == r.value else " ✗"


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
    table = Table(title="ltheory demo: exact dimensions, every witness re-checked "
                        "(✓ = agrees with the catalog's cited value)")
    table.add_column("class")
    for col in ("|X|", "|H|", *(d.symbol for d in DIMENSIONS.values()), "seconds"):
        table.add_column(col, justify="right")
    for spec, H, res in rows:
        table.add_row(spec, str(H.domain_size), str(len(H)),
                      *[cell(res[k]) + known_mark(spec, H, k, res[k]) for k in DIMENSIONS],
                      f"{sum(r.seconds for r in res.values()):.2f}")
    console.print(table)
    console.print(f"total {time.perf_counter() - t0:.1f} s. Try: ltheory dims 'intervals n=40' "
                  "--json, ltheory catalog, ltheory audit --help", highlight=False)
