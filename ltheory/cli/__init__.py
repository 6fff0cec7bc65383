"""The ``ltheory`` command line (typer + rich), one module per command.

    ltheory dims SPEC [--only vc,ldim,tdim] [--budget SECONDS] [--json]      (cli/dims.py)
    ltheory table FAMILY PARAM=RANGE... [--only] [--budget S] [--clique M]
                  [--json] [--plot FILE]                                 (cli/table.py)
    ltheory catalog [FAMILY] [--json]                                        (cli/catalog.py)
    ltheory demo [--json]                                                    (cli/demo.py)
    ltheory check [CHECK_ID ...] [--quick] [--json] [--plot DIR]             (cli/check.py)
    ltheory audit NAME ...            (see ``ltheory audit --help``)         (cli/audit.py)
    ltheory audit-scores IN [OUT] --delta D ...                              (cli/audit_scores.py)
    ltheory clique SPEC --m M [--fractional] ...                             (cli/clique.py)
    ltheory compose G SPEC SPEC... [--sat] ...                               (cli/compose.py)

SPEC is a catalog family with parameters as one argument (``"thresholds n=64"``) or a path to a
class file.  ``--json`` prints exactly one JSON document.  Exit codes: 0 success, 1 a check or
audit found a violation, 2 bad input (one line on stderr naming the fault).
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from typing import Annotated

import typer

from ltheory.cli import common
from ltheory.errors import LtheoryError

__all__ = ["app", "build_app", "main"]

_IMPORTED = time.perf_counter()  # when this module was imported (see main)

#: one module per command (``ltheory.cli.NAME``), in the order ``ltheory --help`` lists them
COMMAND_MODULES = ("dims", "table", "catalog", "demo", "check", "audit", "audit_scores",
                   "clique", "compose")

_HELP = "Exact, certified learning-theory dimensions and sound privacy audits."


def build_app(only: str | None = None) -> typer.Typer:
    """The ``ltheory`` application with every command, or with the command ``only`` alone
    (what `main` runs: a command's imports are all it pays for -- ``audit``'s privacy
    stack took 0.55 s of every ``ltheory dims`` start-up, inside its ``--budget``)."""
    out = typer.Typer(add_completion=False, no_args_is_help=True, help=_HELP)
    out.callback()(_group)  # a group even with one command (``ltheory dims SPEC``); --version
    for name in COMMAND_MODULES:
        if only is None or name == only:
            module = importlib.import_module(f"ltheory.cli.{name}")
            out.command(module.NAME)(module.command)
    return out


def _print_version(value: bool) -> None:
    if value:
        from ltheory._version import __version__  # the one place it is written

        print(f"ltheory {__version__}")
        raise typer.Exit()


def _group(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print ltheory's version and exit.")] = False) -> None:
    """Exact, certified learning-theory dimensions and sound privacy audits."""


def __getattr__(name: str) -> object:
    """``ltheory.cli.app`` (every command) and ``COMMANDS`` (their modules), built on first
    use."""
    if name == "app":
        globals()["app"] = built = build_app()
        return built
    if name == "COMMANDS":
        return tuple(importlib.import_module(f"ltheory.cli.{n}") for n in COMMAND_MODULES)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console-script entry point: never lets a traceback escape for ltheory's own errors, and
    reports a command-line usage error (missing argument, unknown option) as one line on stderr
    with exit code 2, like every other bad input.

    When it runs as the process's command (called within a second of this module's import,
    in a process started shortly before), it also records when the process started, so that a
    ``--budget`` counts the interpreter's start-up and imports too
    (`ltheory.cli.common.command_start`); called in-process later, the commands count
    from their own start."""
    now = time.perf_counter()
    age = common.process_age()
    if age is not None and now - _IMPORTED < 1.0 and age - (now - _IMPORTED) < 5.0:
        common.PROCESS_START = now - age
    first = sys.argv[1].replace("-", "_") if len(sys.argv) > 1 else None
    try:
        runner = build_app(first) if first in COMMAND_MODULES else __getattr__("app")
        code = runner(standalone_mode=False)
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
    except OSError as exc:  # the output could not be written (a full device, a closed pipe)
        _output_failed(exc)
    finally:
        common.PROCESS_START = None
    try:
        sys.stdout.flush()
    except OSError as exc:
        _output_failed(exc)
    sys.exit(code if isinstance(code, int) else 0)


def _output_failed(exc: OSError) -> None:
    """Exit with one line on stderr when stdout cannot be written (``> /dev/full``), quietly
    when the reader went away (``| head``), never with a traceback; stdout is pointed at
    /dev/null first so that the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass
    if isinstance(exc, BrokenPipeError):
        sys.exit(1)
    try:
        print(f"error: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
    except OSError:  # pragma: no cover - stderr gone as well
        pass
    sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
