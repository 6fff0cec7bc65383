"""``ltheory check [CHECK_ID ...] [--quick] [--json] [--plot DIR] [--markdown FILE]``: the seed
papers' statements evaluated on concrete classes (`proofs_check`); exit 1 if one fails.
``ltheory check --list [--json]`` prints every numbered statement of the seeds with its status
(`proofs_check.coverage`) and runs nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ltheory.cli.common import dump_json, fail
from ltheory.errors import LtheoryError
from ltheory.progress import progress_bar

NAME = "check"


def command(
    ids: Annotated[list[str] | None, typer.Argument(metavar="CHECK_ID",
                                                    help="check ids or prefixes, e.g. "
                                                    "abms20.prop4.2 or abms20 (default: all)")
                   ] = None,
    quick: Annotated[bool, typer.Option(help="fewer and smaller classes (for CI)")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
    plot: Annotated[str | None, typer.Option(metavar="DIR",
                                             help="write PNG plots into this folder")] = None,
    markdown_file: Annotated[str | None, typer.Option("--markdown", metavar="FILE",
                                                      help="also write the "
                                                      "Markdown report to this file")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="no progress bar on stderr")] = False,
    list_: Annotated[bool, typer.Option("--list", help="print every numbered statement of the "
                                        "seeds with its status (checked / not evaluable / "
                                        "qualitative / not encoded) and exit")] = False,
) -> None:
    """Evaluate the seed papers' bounds on concrete classes; exit 1 if a statement fails."""
    from proofs_check import run_checks
    from proofs_check.report import markdown, to_json, write_outputs

    if list_:
        from proofs_check.coverage import listing
        from proofs_check.coverage import to_json as coverage_json

        if ids:
            raise fail("--list takes no check ids (it lists every seed statement)")
        if as_json:
            typer.echo(dump_json(coverage_json()))
        else:
            typer.echo(listing())
        return
    if markdown_file is not None and not Path(markdown_file).resolve().parent.is_dir():
        raise fail(f"--markdown: the folder of {markdown_file!r} does not exist")
    try:
        with progress_bar("checks", quiet=quiet) as progress:
            results = run_checks(ids or None, quick=quick, progress=progress)
        figures = write_outputs(results, plot, markdown_file)
    except LtheoryError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write the report: {exc.strerror or exc} ({exc.filename})") from None
    if as_json:
        typer.echo(dump_json(to_json(results)))
    else:
        Console().print(markdown(results, figures), markup=False, highlight=False)
    if any(r.holds is False for r in results):
        raise typer.Exit(1)
