"""``ltheory clique SPEC --m M [--fractional] [--budget S] [--max-vertices N] [--json]
[--plot FILE]``: certified ω_m (and ω*_m) of the contradiction graphs for m = 1..M
(`ltheory.graphs.explorer`).  Exit codes: 0 success, 2 bad input (one line on stderr).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ltheory import catalog
from ltheory.cli.common import check_budget_option, dump_json, fail
from ltheory.errors import LtheoryError
from ltheory.graphs.explorer import explore, plot_dichotomy

NAME = "clique"


def command(
    spec: Annotated[str, typer.Argument(metavar="SPEC", help="catalog family with parameters, e.g. "
                                        "'points n=6', or a class file path")],
    m: Annotated[int, typer.Option("--m", metavar="M", help="largest sample size M (m = 1..M)")],
    fractional: Annotated[bool, typer.Option("--fractional",
                                             help="also the fractional clique number")
                          ] = False,
    budget: Annotated[float | None, typer.Option(metavar="SECONDS",
                                                 help="seconds per computation (inf: no "
                                                 "limit; 0, negative or nan: an error); past "
                                                 "it, proven bounds are reported")] = None,
    max_vertices: Annotated[int, typer.Option(help="largest contradiction graph to build")
                            ] = 200_000,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
    plot: Annotated[str | None, typer.Option(metavar="FILE",
                                             help="write a PNG plot to this file")] = None,
) -> None:
    """Clique numbers ω_m (and ω*_m) of the contradiction graphs G_m(H), m = 1..M, each
    with a verified certificate (Alon, Moran, Schefler, Yehudayoff 2024)."""
    if max_vertices < 1:
        raise fail(f"--max-vertices must be a positive integer, got {max_vertices}")
    budget = check_budget_option(budget)
    try:
        H = catalog.from_spec(spec)
        report = explore(H, m, fractional=fractional, budget=budget,
                         max_vertices=max_vertices)
        if plot:
            plot_dichotomy(report, plot)
    except LtheoryError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write the plot: {exc}") from None
    if as_json:
        typer.echo(dump_json(report.to_json()))
        return
    console = Console()
    table = Table(title=Text(f"{report.name}: {report.size} hypotheses on "
                             f"{report.domain_size} points (every certificate re-checked)"))
    cols = ["m", "ω_m"] + (["ω*_m"] if fractional else []) + ["min(2^m,|H|)", "seconds"]
    for c in cols:
        table.add_column(c, justify="right")
    for i, mm in enumerate(report.ms):
        r = report.clique[i]
        cells = [str(mm), str(r.value) if r.exact else f"{r.lower}..{r.upper}"]
        secs = r.seconds
        if report.fractional is not None:
            f = report.fractional[i]
            cells.append(f.stats.get("rational", str(f.value)))
            secs += f.seconds
        cells += [str(min(2 ** mm, report.size)), f"{secs:.3f}"]
        table.add_row(*cells)
    console.print(table)
    fit = report.fit["clique"]
    msg = ("ω_m = 2^m for every m ≤ M" if fit["all_equal_2_to_m"]
           else f"ω_m ≈ {fit.get('formula', '?')}")
    if fit.get("inexact_m"):
        msg += (f" (fitted on exact values only; budget reached at m = "
                f"{', '.join(map(str, fit['inexact_m']))}: bounds shown)")
    console.print(msg, highlight=False)
