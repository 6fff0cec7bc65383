"""``ltheory dims SPEC [--only vc,ldim,tdim] [--budget SECONDS] [--json]``.

Exact VC, Littlestone and threshold dimensions of a class
([`ltheory.DIMENSIONS`][ltheory.DIMENSIONS]),
each with a witness re-checked by the independent checker.  SPEC is a catalog family with
parameters as one argument (``"thresholds n=64"``) or a path to a class file.

``--budget S`` is the time of the whole command, loading the class included: each dimension
gets an even share of what is left, witness check included (`ltheory.cli.common.compute`);
``inf`` means no limit, and 0, a negative number or ``nan`` exit 2 with one line.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ltheory import catalog
from ltheory.cli.common import (
    cell,
    check_budget_option,
    command_start,
    compute,
    echo_json,
    fail,
    parse_only,
    result_json,
)
from ltheory.dimensions import DIMENSIONS
from ltheory.errors import LtheoryError

NAME = "dims"


def command(
    spec: Annotated[str, typer.Argument(metavar="SPEC", help="catalog family with parameters, e.g. "
                                        "'thresholds n=64', or a class file path")],
    only: Annotated[str | None, typer.Option(metavar="NAMES",
                                             help="comma-separated subset of vc,ldim,tdim")
                    ] = None,
    budget: Annotated[float | None, typer.Option(
        metavar="SECONDS",
        help="time limit in seconds for the whole command (loading and every dimension, "
             "witness checks included); past it, proven bounds are reported. inf: no limit; "
             "0, negative or nan: an error")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Exact VC, Littlestone and threshold dimensions of a class, each with a verified witness."""
    start = command_start()  # the budget counts from here (process start under `ltheory`)
    names = parse_only(only)
    budget = check_budget_option(budget)
    try:
        H = catalog.from_spec(spec)
        results = compute(H, names, budget, start=start)
    except LtheoryError as exc:
        raise fail(str(exc)) from None
    if as_json:
        doc: dict[str, Any] = {"class": {"name": H.name or spec, "domain_size": H.domain_size,
                                         "size": len(H)}}
        doc.update({key: result_json(r) for key, r in results.items()})
        echo_json(doc)
        return
    # user text (class names, labels in witnesses) is shown literally, never read as markup
    table = Table(title=Text(f"{H.name or spec}: {len(H)} hypotheses on {H.domain_size} points"))
    for col in ("dimension", "value", "exact", "witness", "seconds"):
        table.add_column(col)
    for key, r in results.items():
        w = json.dumps(r.witness_json())
        table.add_row(DIMENSIONS[key].title, cell(r),
                      "yes" if r.exact else f"no ({r.lower}..{r.upper})",
                      Text(w if len(w) <= 60 else w[:57] + "..."), f"{r.seconds:.3f}")
    Console().print(table)
