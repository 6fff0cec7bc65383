"""Progress of long computations: the ``progress(done, total)`` callback the Python API takes,
and the progress bar the command line draws with it.

A long function (``proofs_check.run_checks``, ``ltheory.dimension_table``, and the auditor's
``audit``) takes ``progress=``, a callable ``progress(done, total)`` called with the units of
work finished so far (checks, table members, chunks of runs) out of ``total``: first with
``done = 0``, last with ``done = total``.  It must not raise; what it does (a log line, a bar)
is the caller's business.

[`progress_bar`][ltheory.progress.progress_bar] is the command line's: a rich progress bar on
stderr, as such a callback,
and nothing at all (``None``) with ``--quiet`` or when stderr is not a terminal (CI logs, pipes,
``--json`` consumers keep clean output).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

Progress = Callable[[int, int], None]
"""The type of a progress callback: ``progress(done, total)`` says ``done`` of ``total`` units
are finished."""


def report(progress: Progress | None, done: int, total: int) -> None:
    """Call ``progress(done, total)`` if there is a callback."""
    if progress is not None:
        progress(done, total)


@contextmanager
def progress_bar(description: str, *, quiet: bool = False,
                 console: Any = None) -> Iterator[Progress | None]:
    """A rich progress bar on stderr as a ``progress(done, total)`` callback, removed when the
    block ends; ``None`` when ``quiet`` or when stderr is not a terminal (``console``: a
    ``rich.console.Console`` to draw on instead, for tests)."""
    if quiet or (console is None and not sys.stderr.isatty()):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    con = console if console is not None else Console(stderr=True)
    bar = Progress("[progress.description]{task.description}", BarColumn(),
                   MofNCompleteColumn(), TimeElapsedColumn(), console=con, transient=True)
    task = bar.add_task(description, total=None)

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    with bar:
        yield update
