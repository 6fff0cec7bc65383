"""The ``ltheory`` command line (typer + rich).

    ltheory dims SPEC [--only vc,ldim,tdim] [--budget SECONDS] [--json]
    ltheory catalog [FAMILY] [--json]
    ltheory demo [--json]
    ltheory audit NAME ...            (see ``ltheory audit --help``)

SPEC is a catalog family with parameters as one argument (``"thresholds n=64"``) or a path to a
class file.  ``--json`` prints exactly one JSON document.  Exit codes: 0 success, 1 a check or
audit found a violation, 2 bad input (one line on stderr naming the fault).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ltheory import catalog
from ltheory.cli_common import fail as _fail
from ltheory.cli_common import parse_only
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.certificates import verify
from ltheory.dims.littlestone import littlestone_dimension
from ltheory.dims.result import DimensionResult
from ltheory.dims.threshold import threshold_dimension
from ltheory.dims.vc import vc_dimension
from ltheory.errors import LtheoryError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Exact, certified learning-theory dimensions and sound privacy audits.")

DIMENSIONS: dict[str, Callable[..., DimensionResult]] = {
    "vc": vc_dimension,
    "ldim": littlestone_dimension,
    "tdim": threshold_dimension,
}
TITLES = {"vc": "VC", "ldim": "Littlestone", "tdim": "threshold"}

# The demo's embedded default: catalog classes whose three dimensions take well under a minute
# together on one core.
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


def _parse_only(only: str | None) -> list[str]:
    return parse_only(only, DIMENSIONS)


def _compute(H: HypothesisClass, names: list[str], budget: float | None
             ) -> dict[str, DimensionResult]:
    out = {}
    for nm in names:
        res = DIMENSIONS[nm](H, budget=budget)
        verify(H, res)  # every witness is re-checked by the independent checker
        out[nm] = res
    return out


def _result_json(r: DimensionResult) -> dict[str, Any]:
    d = r.to_json()
    d["verified"] = True
    return d


def _cell(r: DimensionResult) -> str:
    return str(r.value) if r.exact else f"{r.lower}..{r.upper}"


def _known_mark(spec: str, H: HypothesisClass, key: str, r: DimensionResult) -> str:
    """'=' if the catalog states this value and it agrees, '!' if it disagrees, '' otherwise."""
    if H.name is None or " " not in spec:
        return ""
    try:
        name, params = catalog.parse_spec(spec)
        known = catalog.known_values(name, **params)
    except LtheoryError:
        return ""
    kv = known.get(key)
    if kv is None or not r.exact:
        return ""
    return " ✓" if kv.value == r.value else " ✗"


@app.command()
def dims(
    spec: Annotated[str, typer.Argument(help="catalog family with parameters, e.g. "
                                        "'thresholds n=64', or a class file path")],
    only: Annotated[str | None, typer.Option(help="comma-separated subset of vc,ldim,tdim")
                    ] = None,
    budget: Annotated[float | None, typer.Option(help="time limit in seconds per dimension; "
                                                 "past it, proven bounds are reported")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Exact VC, Littlestone and threshold dimensions of a class, each with a verified witness."""
    names = _parse_only(only)
    try:
        H = catalog.from_spec(spec)
        results = _compute(H, names, budget)
    except LtheoryError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        doc: dict[str, Any] = {"class": {"name": H.name or spec, "domain_size": H.domain_size,
                                         "size": len(H)}}
        doc.update({nm: _result_json(r) for nm, r in results.items()})
        typer.echo(json.dumps(doc))
        return
    console = Console()
    # user text (class names, labels in witnesses) is shown literally, never read as markup
    table = Table(title=Text(f"{H.name or spec}: {len(H)} hypotheses on {H.domain_size} points"))
    for col in ("dimension", "value", "exact", "witness", "seconds"):
        table.add_column(col)
    for nm, r in results.items():
        w = json.dumps(r.witness_json())
        table.add_row(TITLES[nm], _cell(r), "yes" if r.exact else f"no ({r.lower}..{r.upper})",
                      Text(w if len(w) <= 60 else w[:57] + "..."), f"{r.seconds:.3f}")
    console.print(table)


@app.command("catalog")
def catalog_cmd(
    family: Annotated[str | None, typer.Argument(help="a family to describe")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """List the catalog's families, or describe one (domain, parameters, known values)."""
    try:
        infos = [catalog.describe(family)] if family else [catalog.describe(f)
                                                           for f in catalog.families()]
    except LtheoryError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        def info_json(i: Any) -> dict[str, Any]:
            return {"name": i.name, "summary": i.summary, "domain": i.domain,
                    "parameters": [{"name": p.name, "type": p.type, "default": p.default,
                                    "accepted": p.accepted(), "doc": p.doc}
                                   for p in i.parameters],
                    "known": [{"key": k.key, "formula": k.formula, "when": k.when,
                               "citation": k.citation, "note": k.note,
                               "disagreement": k.disagreement} for k in i.known],
                    "examples": list(i.examples)}
        typer.echo(json.dumps([info_json(i) for i in infos] if family is None
                              else info_json(infos[0])))
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


@app.command()
def demo(as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")]
         = False) -> None:
    """Exact, verified dimensions of a few catalog classes (the embedded default, < 1 minute)."""
    t0 = time.perf_counter()
    rows = []
    for spec in DEMO_SPECS:
        try:
            H = catalog.from_spec(spec)
            results = _compute(H, list(DIMENSIONS), budget=20.0)
        except LtheoryError as exc:
            raise _fail(f"{spec}: {exc}") from None
        rows.append((spec, H, results))
    if as_json:
        typer.echo(json.dumps([{"class": {"name": spec, "domain_size": H.domain_size,
                                          "size": len(H)},
                                **{nm: _result_json(r) for nm, r in res.items()}}
                               for spec, H, res in rows]))
        return
    console = Console()
    table = Table(title="ltheory demo: exact dimensions, every witness re-checked "
                        "(✓ = agrees with the catalog's cited value)")
    for col in ("class", "|X|", "|H|", "VC", "Ldim", "T", "seconds"):
        table.add_column(col, justify="right" if col not in ("class",) else "left")
    for spec, H, res in rows:
        table.add_row(spec, str(H.domain_size), str(len(H)),
                      *[_cell(res[k]) + _known_mark(spec, H, k, res[k]) for k in DIMENSIONS],
                      f"{sum(r.seconds for r in res.values()):.2f}")
    console.print(table)
    console.print(f"total {time.perf_counter() - t0:.1f} s. Try: ltheory dims 'intervals n=40' "
                  "--json, ltheory catalog, ltheory audit --help", highlight=False)


@app.command()
def check(
    ids: Annotated[list[str] | None, typer.Argument(help="check ids or prefixes (default: all)")
                   ] = None,
    quick: Annotated[bool, typer.Option(help="fewer and smaller classes (for CI)")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
    plot: Annotated[str | None, typer.Option(help="write PNG plots into this folder")] = None,
    markdown_file: Annotated[str | None, typer.Option("--markdown", help="also write the "
                                                      "Markdown report to this file")] = None,
) -> None:
    """Evaluate the seed papers' bounds on concrete classes; exit 1 if a statement fails."""
    from proofs_check import run_checks
    from proofs_check.report import markdown, to_json, write_outputs

    try:
        results = run_checks(ids or None, quick=quick)
    except LtheoryError as exc:
        raise _fail(str(exc)) from None
    figures = write_outputs(results, plot, markdown_file)
    if as_json:
        typer.echo(json.dumps(to_json(results)))
    else:
        Console().print(markdown(results, figures), markup=False, highlight=False)
    if any(r.holds is False for r in results):
        raise typer.Exit(1)


def _register_optional_commands() -> None:
    from ltheory.cli_compose import register as register_compose
    from ltheory.graphs.cli_clique import register as register_clique
    from ltheory.privacy.cli_audit import register as register_audit

    register_audit(app)
    register_clique(app)
    register_compose(app)


_register_optional_commands()


def main() -> None:
    """Console-script entry point: never lets a traceback escape for ltheory's own errors, and
    reports a command-line usage error (missing argument, unknown option) as one line on stderr
    with exit code 2, like every other bad input."""
    try:
        code = app(standalone_mode=False)
    except typer.Abort:
        print("error: aborted", file=sys.stderr)
        sys.exit(1)
    except typer.TyperException as exc:  # click's usage errors, as vendored by typer
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            print(ctx.get_help())  # bare `ltheory` or a group without its command
            sys.exit(2)
        where = ctx.command_path if ctx is not None else "ltheory"
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        print(f"error: {message} (see '{where} --help')", file=sys.stderr)
        sys.exit(int(getattr(exc, "exit_code", 2)))
    except LtheoryError as exc:  # pragma: no cover - commands catch their own
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except MemoryError:
        print("error: out of memory; lower the sizes or runs, or give a --budget", file=sys.stderr)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
