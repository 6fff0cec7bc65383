"""``ltheory catalog [FAMILY] [--json]``: the catalog's families, or one family's domain,
parameters and known values with their citations."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ltheory import catalog
from ltheory.cli.common import dump_json, fail
from ltheory.errors import LtheoryError

NAME = "catalog"


def _info_json(i: Any) -> dict[str, Any]:
    return {"name": i.name, "summary": i.summary, "domain": i.domain,
            "parameters": [{"name": p.name, "type": p.type, "default": p.default,
                            "accepted": p.accepted(), "doc": p.doc} for p in i.parameters],
            "known": [{"key": k.key, "formula": k.formula, "when": k.when,
                       "citation": k.citation, "note": k.note,
                       "disagreement": k.disagreement} for k in i.known],
            "examples": list(i.examples)}


def command(
    family: Annotated[str | None, typer.Argument(metavar="FAMILY",
                                                 help="a family to describe (default: list "
                                                 "them all)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """List the catalog's families, or describe one (domain, parameters, known values)."""
    try:
        infos = [catalog.describe(family)] if family else [catalog.describe(f)
                                                           for f in catalog.families()]
    except LtheoryError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(dump_json([_info_json(i) for i in infos] if family is None
                              else _info_json(infos[0])))
        return
    console = Console()
    if family is None:
        table = Table(title="ltheory catalog")
        table.add_column("family")
        table.add_column("parameters")
        table.add_column("summary")
        for i in infos:
            params = " ".join(f"{p.name}={p.default}" for p in i.parameters)
            table.add_row(i.name, params, Text(i.summary))
        console.print(table)
        return
    i = infos[0]
    console.print(f"[bold]{escape(i.name)}[/bold]: {escape(i.summary)}", highlight=False)
    console.print(f"domain: {i.domain}", highlight=False, markup=False)
    for p in i.parameters:
        console.print(f"  {p.name} ({p.type}, default {p.default}): {p.accepted()}. {p.doc}",
                      highlight=False, markup=False)
    if i.known:
        table = Table(title="known values")
        for col in ("quantity", "formula", "when", "source"):
            table.add_column(col)
        for k in i.known:
            table.add_row(*map(Text, (k.key, k.formula, k.when or "", k.citation + (
                f" [disagreement: {k.disagreement}]" if k.disagreement else ""))))
        console.print(table)
    for ex in i.examples:
        console.print(f"  example: ltheory dims '{ex}'", highlight=False, markup=False)
