"""The ``ltheory`` command line (typer + rich), one module per command.

    ltheory dims SPEC [--only vc,ldim,tdim] [--budget SECONDS] [--json]      (cli/dims.py)
    ltheory table FAMILY PARAM=RANGE... [--only] [--budget S] [--clique M]
                  [--json] [--plot FILE]                                 (cli/table.py)
    ltheory catalog [FAMILY] [--json]                                        (cli/catalog.py)
    ltheory demo [--json]                                                    (cli/demo.py)
    ltheory check [CHECK_ID ...] [--quick] [--json] [--plot DIR]             (cli/check.py)
    ltheory audit NAME ...            (see ``ltheory audit --help``)         (cli/audit.py)
    ltheory clique SPEC --m M [--fractional] ...                             (cli/clique.py)
    ltheory compose G SPEC SPEC... [--sat] ...                               (cli/compose.py)

SPEC is a catalog family with parameters as one argument (``"thresholds n=64"``) or a path to a
class file.  ``--json`` prints exactly one JSON document.  Exit codes: 0 success, 1 a check or
audit found a violation, 2 bad input (one line on stderr naming the fault).
"""

from __future__ import annotations

import os
import sys
import time

import typer

from ltheory.cli import audit, catalog, check, clique, common, compose, demo, dims, table
from ltheory.errors import LtheoryError

__all__ = ["app", "main"]

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Exact, certified learning-theory dimensions and sound privacy audits.")

#: one module per command, in the order ``ltheory --help`` lists them
COMMANDS = (dims, table, catalog, demo, check, audit, clique, compose)
for _module in COMMANDS:
    app.command(_module.NAME)(_module.command)


def main() -> None:
    """Console-script entry point: never lets a traceback escape for ltheory's own errors, and
    reports a command-line usage error (missing argument, unknown option) as one line on stderr
    with exit code 2, like every other bad input.

    It also records when the process started, so that a ``--budget`` counts the interpreter's
    start-up and imports too (:func:`ltheory.cli.common.command_start`)."""
    age = common.process_age()
    if age is not None:
        common.PROCESS_START = time.perf_counter() - age
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
    except OSError as exc:  # the output could not be written (a full device, a closed pipe)
        _output_failed(exc)
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
