"""``ltheory table FAMILY PARAM=RANGE ... [--only vc,ldim,tdim] [--budget S] [--clique M]
[--json] [--plot FILE]``.

The VC, Littlestone and threshold dimensions (and ω_M with ``--clique M``) of every member of a
catalog family over the given parameter ranges (``n=1..8``, ``n=2,4,8``, ``k=2``; several
parameters give their cartesian product), each witness re-checked, compared with the catalog's
cited formulas (`ltheory.tables`).  Cells: the exact value, or ``lo..hi`` (proven bounds)
when the budget stopped the search; marks (`ltheory.tables.MARKS`, shared with ``ltheory
demo``): ✓ every cited formula of that dimension agrees, ✗ one disagrees (✗* only disagreements
the catalog already records), ? undecided within the proven bounds.  Each cited formula is
listed with its condition (``ldim = n when 2 * k >= n``) and judged only where it holds.
FAMILY may be ``MODULE:NAME``: MODULE is imported (by name, from the current folder or the
installed packages) and registers NAME with `ltheory.catalog.register_family`.  Exit 1 when
a cited formula disagrees with a proven value and the catalog does not record that disagreement
(a finding), 2 for bad input.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ltheory import catalog
from ltheory.cli.common import check_budget_option, dump_json, fail, parse_only
from ltheory.dimensions import DIMENSIONS
from ltheory.errors import LtheoryError
from ltheory.progress import progress_bar
from ltheory.tables import (
    DEFAULT_BUDGET,
    DimensionTable,
    TableRow,
    dimension_table,
    legend,
    mark,
    plot_table,
)

NAME = "table"


def _mark(row: TableRow, key: str) -> str:
    m = mark(row.checks_for(key))
    return f" {m}" if m else ""


def _cell(row: TableRow, key: str) -> str:
    res = row.results.get(key)
    if res is None:
        return "—"
    value = str(res.value) if res.exact else f"{res.lower}..{res.upper}"
    return value + _mark(row, key)


def _fmt(v: object) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _header(key: str, m: int | None) -> str:
    return f"ω_{m}" if key == "clique" else DIMENSIONS[key].symbol


def _print(table: DimensionTable) -> None:
    console = Console()
    varying = [k for k, v in table.ranges.items() if len(v) > 1] or list(table.ranges)[:1]
    fixed = {k: v[0] for k, v in table.ranges.items() if len(v) == 1 and k not in varying}
    title = f"{table.family}" + "".join(f" {k}={_fmt(v)}" for k, v in fixed.items())
    budget = "no budget" if table.budget is None else f"budget {table.budget:g} s per dimension"
    out = Table(title=Text(f"{title} ({budget})"))
    for col in [*varying, "|H|", "|X|", *(_header(k, table.clique_m) for k in table.keys),
                "seconds", "note"]:
        out.add_column(col, justify="right" if col not in ("note",) else "left")
    for row in table.rows:
        params = [_fmt(row.params.get(k, "")) for k in varying]
        sizes = ["" if row.size is None else str(row.size),
                 "" if row.domain_size is None else str(row.domain_size)]
        cells = [_cell(row, k) for k in table.keys]
        note = "skipped (below)" if row.skipped else ""
        out.add_row(*map(Text, [*params, *sizes, *cells, f"{row.seconds:.2f}", note]))
    console.print(out)
    for row in table.rows:
        if row.skipped:
            where = " ".join(f"{k}={_fmt(row.params.get(k, ''))}" for k in varying)
            console.print(f"skipped {where}: {row.skipped}", markup=False, highlight=False,
                          soft_wrap=True)
    seen: dict[str, str] = {}
    for row in table.rows:
        for c in row.checks:
            seen.setdefault(c.statement, c.citation + (
                " [recorded disagreement]" if c.recorded_disagreement else ""))
    used = {mark(row.checks_for(k)) for row in table.rows for k in table.keys} - {""}
    if seen:
        console.print("cited formulas, each judged only on the members where its condition "
                      "holds:", markup=False, highlight=False)
        for statement, citation in seen.items():
            console.print(f"  {statement}  — {citation}", markup=False, highlight=False,
                          soft_wrap=True)
    if used:
        console.print(f"marks: {legend(used)}", markup=False, highlight=False, soft_wrap=True)
    counts = table.counts()
    console.print(f"{counts['computed']} of {counts['members']} members computed "
                  f"({counts['skipped']} skipped), {counts['exact']} exact values, "
                  f"{counts['partial']} bounded; formulas: {counts['agrees']} agree, "
                  f"{counts['disagrees']} disagree ({counts['findings']} not recorded), "
                  f"{counts['undecided']} undecided; {table.seconds:.1f} s", markup=False,
                  highlight=False)
    for row, c in table.findings:
        console.print(f"FINDING: {row.name}: {c.key} = {c.formula} gives {c.value}, but "
                      f"{c.dimension} is proven in {row.results[c.dimension].lower}.."
                      f"{row.results[c.dimension].upper} ({c.citation})", markup=False,
                      highlight=False, soft_wrap=True)


_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def resolve_family(family: str) -> str:
    """A catalog family's name; ``MODULE:NAME`` first imports MODULE (from the current folder or
    the installed packages — an import by name, nothing evaluated), which registers NAME with
    `ltheory.catalog.register_family`."""
    if ":" not in family:
        return family
    module, _, name = family.partition(":")
    if not _MODULE.match(module) or not name:
        raise LtheoryError(f"cannot read {family!r}: write MODULE:FAMILY, e.g. "
                           "my_families:majority_of_thresholds (MODULE a Python module name)")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise LtheoryError(f"cannot import module {module!r} ({exc}); it must be importable "
                           "from the current folder or installed") from None
    except Exception as exc:                     # the user's module raised while importing
        raise LtheoryError(f"importing module {module!r} failed: {type(exc).__name__}: "
                           f"{exc}") from None
    if name not in catalog.families():
        raise LtheoryError(f"module {module!r} registered no family {name!r} (call "
                           "ltheory.catalog.register_family in the module); families: "
                           f"{', '.join(catalog.families())}")
    return name


def command(
    family: Annotated[str, typer.Argument(
        metavar="FAMILY",
        help="a catalog family (see 'ltheory catalog'), or MODULE:FAMILY for a family a module "
             "of yours registers (ltheory.catalog.register_family)")],
    ranges: Annotated[list[str] | None, typer.Argument(
        metavar="PARAM=RANGE",
        help="PARAM=RANGE ..., e.g. n=1..8, n=2,4,8, k=2 (cartesian product)")] = None,
    only: Annotated[str | None, typer.Option(metavar="NAMES",
                                             help="comma-separated subset of vc,ldim,tdim")
                    ] = None,
    budget: Annotated[float, typer.Option(metavar="SECONDS",
                                          help="seconds per dimension per member (0 or inf: "
                                          "no limit; negative or nan: an error); past it, "
                                          "proven bounds are reported")
                      ] = DEFAULT_BUDGET,
    clique: Annotated[int | None, typer.Option(metavar="M",
                                               help="also ω_M, the clique number of the "
                                               "contradiction graph G_M (M = 1..16)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
    plot: Annotated[Path | None, typer.Option(help="write a PNG: each dimension against the "
                                              "first varying parameter")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="no progress bar on stderr")] = False,
) -> None:
    """Exact dimensions of a family's members over parameter ranges, against the cited
    formulas."""
    keys = parse_only(only)
    limit = None if budget == 0 else check_budget_option(budget)
    try:
        family = resolve_family(family)
        with progress_bar(f"{family} members", quiet=quiet) as progress:
            table = dimension_table(family, ranges or [], only=keys, progress=progress,
                                    budget=limit, clique=clique)
        if plot is not None:
            plot_table(table, plot)
    except LtheoryError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write the plot {str(plot)!r}: {exc.strerror or exc}") from None
    if as_json:
        typer.echo(dump_json(table.to_json()))
    else:
        _print(table)
    if table.findings:
        raise typer.Exit(1)
