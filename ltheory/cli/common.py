"""What the ``ltheory`` sub-commands share: the one bad-input exit, ``--only`` parsing, and the
display and JSON form of a dimension result."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable
from typing import Any

import typer
from rich.console import Console

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dimensions import DIMENSIONS, verify
from ltheory.dims.budget import MIN_SHARE, Budget, Deadline, check_budget
from ltheory.dims.result import DimensionResult
from ltheory.errors import BudgetExceededError, LtheoryError

__all__ = ["ENGINE_SHARE", "VERIFY_GRACE", "VERIFY_MIN_SECONDS", "cell", "check_budget_option",
           "command_start", "compute", "dump_json", "echo_json", "fail", "parse_only",
           "result_json"]

#: Of each dimension's share of the command's time, the part its exact engine may use; the rest
#: is kept for re-checking the witness (`compute`).
ENGINE_SHARE = 0.85

#: A witness check may run past its dimension's share by this fraction of the share, and at
#: least `VERIFY_MIN_SECONDS`, before the result is reported as unverified
#: (`compute`): a witness of a few points checks in milliseconds even late.
VERIFY_GRACE = 0.1
VERIFY_MIN_SECONDS = 0.05


def fail(message: str) -> typer.Exit:
    """Print one line ``error: MESSAGE`` on stderr and return the exit for bad input (code 2).

    Every command reports bad input through this (``raise fail(...) from None``)."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"error: {message}",
                                                                markup=False)
    return typer.Exit(2)


def parse_only(only: str | None, allowed: Iterable[str] = DIMENSIONS) -> list[str]:
    """The comma-separated ``--only`` value as a list of names from ``allowed`` (all if None)."""
    allowed = list(allowed)
    if only is None:
        return allowed
    names = [s.strip() for s in only.split(",") if s.strip()]
    if not names or any(s not in allowed for s in names):
        raise fail(f"--only takes a comma-separated subset of {','.join(allowed)}; got {only!r}")
    return names


#: Seconds per character of JSON output (dump, encode, write: ~0.5 s for the 200 MB ladder of
#: 14,142 hypotheses), reserved from the budget for each witness computed (`compute`).
OUTPUT_SECONDS_PER_CHAR = 3e-9

#: Set by `ltheory.cli.main` to the moment the process started (a ``perf_counter()``
#: value, interpreter start-up and imports included) when the OS says it; None otherwise (the
#: commands then count from their own start).  Not set for commands invoked in-process.
PROCESS_START: float | None = None


def command_start() -> float:
    """The moment a ``--budget`` counts from: the process start when `ltheory.cli.main`
    recorded it, else now."""
    now = time.perf_counter()
    return now if PROCESS_START is None or PROCESS_START > now else PROCESS_START


def process_age() -> float | None:
    """Seconds since this process started (Linux: /proc/self/stat and /proc/uptime, 10 ms
    resolution), or None where that cannot be read."""
    try:
        import os

        with open("/proc/self/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        age = uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return age if 0 <= age < 3600 else None


def _witness_chars(w: Any) -> int:
    """Characters of the strings in a witness (what its JSON output costs, roughly)."""
    total, stack = 0, [w]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            total += len(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list | tuple):
            stack.extend(x)
    return total


def check_budget_option(budget: float | None, option: str = "--budget") -> float | None:
    """The value of a ``--budget`` option, checked before any work: None or ``inf`` mean no
    limit, a positive number is seconds; 0, a negative number or ``nan`` exit 2 with one line
    (`ltheory.dims.budget.check_budget`)."""
    try:
        return check_budget(budget, option)
    except LtheoryError:
        raise fail(f"{option} must be a positive number of seconds, or inf for no limit; got "
                   f"{budget!r}") from None


def compute(H: Any, names: list[str], budget: float | None, method: str = "auto",
            start: float | None = None) -> dict[str, DimensionResult]:
    """The dimensions ``names`` of H (explicit or composed), each witness re-checked by the
    independent checker before it is shown.

    ``budget`` is the time of the whole command in seconds (None: no limit), counted from
    ``start`` (a ``time.perf_counter()`` value: when the process or the command started, so
    loading the class counts; `command_start`; default now).  Each dimension gets an
    even share of the time left (`Deadline`; time one does not
    use passes to the next): its engine `ENGINE_SHARE` of it; the witness check may then
    use all the time left to the command (a found witness is worth checking before a later
    engine starts), or at least `VERIFY_GRACE` of the share.  Printing a witness takes
    time too: for each witness checked, `OUTPUT_SECONDS_PER_CHAR` per character is kept
    back from what follows (the last one's printing runs past the budget, within the
    contract's slack: 0.6 s for the 200 MB ladder of 14,142 hypotheses).

    A witness whose check cannot finish is not shown: the dimension is reported with the
    lower bound 0 (certified by the empty witness, checked) and its proven upper bound,
    ``stats["unverified"]`` holding the engine's unchecked lower bound, and
    `result_json` marks it ``"verified": false`` -- never an unchecked value.
    """
    deadline = Deadline(budget, start)
    out = {}
    reserve = 0.0  # seconds kept for printing the witnesses found so far
    for i, key in enumerate(names):
        share = deadline.share(len(names) - i, reserve)
        res = DIMENSIONS[key].compute(
            H, budget=None if share is None else max(share * ENGINE_SHARE, MIN_SHARE),
            method=method)
        # A witness found is worth checking before any later engine starts: the check may use
        # the time left to the whole command but the printing of the witnesses before it (and
        # a grace past it); its own printing is kept back from the dimensions after it.
        until = None if share is None else max(
            deadline.deadline - reserve,
            time.perf_counter() + max(VERIFY_GRACE * share, VERIFY_MIN_SECONDS))
        try:
            verify(H, res, budget=Budget.until(until))
        except BudgetExceededError:
            res = _unverified(H, res)
            verify(H, res)  # the empty witness: checked at once
        reserve += OUTPUT_SECONDS_PER_CHAR * _witness_chars(res.witness)
        out[key] = res
    return out


def _unverified(H: HypothesisClass, res: DimensionResult) -> DimensionResult:
    """``res`` with its witness, whose check ran out of time, replaced by the empty witness
    (lower bound 0 for a non-empty class; the engine's lower bound kept in stats only)."""
    empty: Any = {"vc": [], "tdim": {"points": [], "hypotheses": []}}.get(res.kind)
    if res.kind == "ldim":
        empty = {"hypothesis": (H.matrix[0] + ord("0")).astype("uint8").tobytes().decode()}
    stats = dict(res.stats) | {"unverified": {
        "lower": res.lower, "reason": "the time budget ran out before the witness was "
                                      "re-checked; lower bound 0 (empty witness) reported"}}
    return DimensionResult.proven(res.kind, 0, res.upper, empty, seconds=res.seconds,
                                  stats=stats)


def dump_json(doc: Any) -> str:
    """The one JSON document a ``--json`` command prints: strict JSON (``allow_nan=False``),
    so an infinity or NaN that reached the output is a loud error, never ``Infinity``."""
    return json.dumps(doc, allow_nan=False)


def echo_json(doc: Any) -> None:
    """Print `dump_json` of ``doc`` and a newline, as bytes when stdout has a binary
    buffer: the text is ASCII, and ``typer.echo`` of the 200 MB document of a ladder of
    14,142 hypotheses took 1.6 s (0.2 s this way)."""
    text = dump_json(doc)
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        typer.echo(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode("ascii"))
    buffer.write(b"\n")
    buffer.flush()


def cell(r: DimensionResult) -> str:
    """The value, or ``lower..upper`` when a budget stopped the computation (marked
    "unverified" when the witness check ran out of time)."""
    text = str(r.value) if r.exact else f"{r.lower}..{r.upper}"
    return text + " (unverified)" if "unverified" in r.stats else text


def result_json(r: DimensionResult) -> dict[str, Any]:
    """The result R of ``dims --json`` (docs/reference/formats.md): ``{"value", "exact", "lower",
    "upper", "witness", "seconds", "stats",
    "verified"}``.  Every witness shown has been re-checked; ``"verified": false`` says that
    the engine's witness could not be re-checked within the budget, so the lower bound shown
    is 0 (`compute`)."""
    return r.to_json() | {"verified": "unverified" not in r.stats}
