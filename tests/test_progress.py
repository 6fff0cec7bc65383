"""Progress of long commands (issue 32): the ``progress(done, total)`` callback of
``run_checks`` and ``dimension_table``, and the command line's bar (stderr, off with --quiet or
when stderr is not a terminal)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from ltheory import dimension_table
from ltheory.progress import progress_bar

ROOT = Path(__file__).resolve().parent.parent


def _calls() -> tuple[list, object]:
    seen: list[tuple[int, int]] = []
    return seen, lambda done, total: seen.append((done, total))


def _well_formed(seen: list[tuple[int, int]], total: int) -> None:
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)          # monotone
    assert len(seen) == total + 1 and {t for _, t in seen} == {total}


def test_dimension_table_reports_each_member() -> None:
    seen, cb = _calls()
    T = dimension_table("thresholds", {"n": "1..4"}, progress=cb)
    _well_formed(seen, 4)
    assert len(T.rows) == 4


def test_run_checks_reports_each_check() -> None:
    from proofs_check import run_checks

    seen, cb = _calls()
    results = run_checks(["abms20.prop4.2", "abms20.remark4.3"], quick=True, progress=cb)
    _well_formed(seen, len(results))
    assert len(results) == 2


def test_the_bar_draws_on_a_terminal_and_not_elsewhere() -> None:
    out = io.StringIO()
    con = Console(file=out, force_terminal=True, width=80)
    with progress_bar("members", console=con) as cb:
        assert cb is not None
        for i in range(4):
            cb(i, 3)
    assert "members" in out.getvalue()
    with progress_bar("members", quiet=True, console=con) as cb:
        assert cb is None
    with progress_bar("members") as cb:       # pytest captures stderr: not a terminal
        assert cb is None


def test_cli_accepts_quiet_and_keeps_piped_stderr_clean() -> None:
    for args in (["table", "thresholds", "n=1..3", "--quiet"],
                 ["table", "thresholds", "n=1..3"],
                 ["check", "abms20.prop4.2", "--quick", "--quiet", "--json"]):
        proc = subprocess.run([sys.executable, "-m", "ltheory.cli", *args], capture_output=True,
                              text=True, timeout=300, cwd=ROOT)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""                   # no bar when stderr is a pipe
