"""Time and memory budgets of audits: `Deadline` and the checks made before sampling.

``time_budget`` (an [`AuditConfig`][ltheory.privacy.AuditConfig] field, and the
``--budget`` of ``ltheory audit``) is the wall-clock time of the *whole call* in seconds; None
(or ``math.inf``) means no limit.  One `Deadline` is made when an entry point starts
(``audit``, ``certify_pair``, ``audit_curve``, ``audit_search``, ``audit_worst_case``) and
every stage shares it: the runner reads it between chunks of runs, so a budget is overrun by at
most one chunk (per worker) plus the work after the last chunk (selection of events, the
report), which is why a slow mechanism should declare a small ``audit_chunk_runs``.

**What a reached budget gives** (the same for every entry point): a report, never an exception
-- ``partial=True``, a note naming the stage where the budget was reached and the runs actually
used, and a bound certified on the runs actually counted (the trivial 0 when none were).  Only a
budget that cannot pay for anything, known *before* sampling, raises
[`BudgetExceededError`][ltheory.BudgetExceededError]: the estimated work of the fewest runs that
could
certify anything (a target's declared ``audit_draws_per_run`` at `DRAWS_PER_SECOND`), or
the memory the runs held at once would take (`check_memory`).

**Soundness of a truncated certification.**  The certified bound rests on the certification
counts being binomial given the numbers of runs.  Two cuts are made, both at chunk boundaries:

* *before* certification (``stages.fit_split``): when the time left cannot pay for the planned
  certification runs at the rate measured on the selection split, fewer runs are planned.  The
  number depends only on the clock during the selection stage, whose runs are independent of the
  certification runs: the counts are then exactly binomial (Poisson numbers of runs are redrawn
  with the smaller mean, so the Poisson test stays exact).
* *during* certification, if the deadline still comes first: the chunks counted so far (a prefix
  in plan order per dataset) are certified with the binomial test on the runs counted.  The
  number of chunks counted is decided by the clock, not by the counts; this is valid under the
  assumption that a chunk's run time does not depend on which events its outputs fall in (true of
  the vectorised samplers here, whose work per run is fixed; a mechanism whose run time depends
  on its output, e.g. a rejection sampler keyed to the event, could bias a cut made this way --
  the note says the cut happened so it can be rerun without a budget).
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

import numpy as np

from ltheory.errors import BudgetExceededError, InvalidInputError

__all__ = ["DRAWS_PER_SECOND", "MEMORY_SHARE", "Deadline", "available_memory", "check_memory",
           "check_time_budget", "clock"]

#: The clock every deadline reads (tests replace it with a fake clock).
clock = time.perf_counter
#: Random numbers a vectorised numpy sampler draws per second, an optimistic figure (measured
#: 3e7 normals/s on this project's shared 2-core machine, up to 1e8 on a free core): a work
#: estimate made with it is a lower bound on the time, so a budget is refused only when it
#: clearly cannot be met.
DRAWS_PER_SECOND = 1e8
#: Share of the available memory the runs held at once may take.
MEMORY_SHARE = 0.5
#: The memory assumed when the platform does not report it (documented cap): 4 GiB.
DEFAULT_MEMORY = 4 << 30


def check_time_budget(value: Any, name: str = "time_budget") -> float | None:
    """A time budget: None or ``inf`` (no limit, returned as None), else a finite number of
    seconds > 0; anything else (NaN, 0, a negative number, a string) is an
    [`InvalidInputError`][ltheory.InvalidInputError]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidInputError(f"{name} must be a number of seconds > 0 (or None / inf for "
                                f"no limit), got {value!r}")
    v = float(value)
    if math.isnan(v) or not v > 0:
        raise InvalidInputError(f"{name} must be a number of seconds > 0 (or None / inf for "
                                f"no limit), got {value!r}")
    return None if math.isinf(v) else v


class Deadline:
    """A wall-clock deadline ``seconds`` after it is made (None: never).  ``reached`` is set
    by the stage that stopped because of it, ``where`` says which."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = check_time_budget(seconds)
        self.start = clock()
        self.end = math.inf if self.seconds is None else self.start + self.seconds
        self.reached = False
        self.where: list[str] = []

    @classmethod
    def of(cls, deadline: Deadline | None, seconds: float | None) -> Deadline:
        """``deadline`` when one is shared (a search's final audit), else a new one."""
        return deadline if deadline is not None else cls(seconds)

    @property
    def limited(self) -> bool:
        return self.seconds is not None

    def expired(self) -> bool:
        return self.limited and clock() >= self.end

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit, negative once past)."""
        return self.end - clock() if self.limited else math.inf

    def elapsed(self) -> float:
        return clock() - self.start

    def mark(self, where: str) -> None:
        """Record that the stage ``where`` stopped because the deadline passed."""
        self.reached = True
        if where not in self.where:
            self.where.append(where)

    def stopper(self, share_end: float | None = None):
        """A ``stop()`` callable for the runner: True once the deadline (or the earlier
        absolute time ``share_end``) has passed."""
        end = self.end if share_end is None else min(self.end, share_end)
        if not math.isfinite(end):
            return None
        return lambda: clock() >= end


def available_memory() -> int:
    """Bytes of memory available now: ``psutil`` when installed, else ``os.sysconf``
    (physical pages available), else `DEFAULT_MEMORY`."""
    try:
        import psutil
        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - optional dependency, any failure: next method
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return DEFAULT_MEMORY


def check_memory(name: str, bytes_per_run: float, runs_held: int, what: str) -> None:
    """Refuse, before sampling, runs whose outputs held at once (``runs_held`` runs of
    ``bytes_per_run`` bytes) would take more than `MEMORY_SHARE` of the available
    memory: a [`BudgetExceededError`][ltheory.BudgetExceededError] naming the numbers."""
    need = float(bytes_per_run) * max(int(runs_held), 1)
    have = available_memory()
    if need > MEMORY_SHARE * have:
        raise BudgetExceededError(
            f"{name}: {what} would hold {runs_held} runs of {_size(bytes_per_run)} each, "
            f"{_size(need)} in all, more than {MEMORY_SHARE:.0%} of the {_size(have)} of "
            "memory available; use fewer runs, or a mechanism with smaller outputs")


def check_work(name: str, draws_per_run: float | None, runs: int, deadline: Deadline,
               what: str) -> None:
    """Refuse, before sampling, ``runs`` runs of a target that declares
    ``audit_draws_per_run`` when even at `DRAWS_PER_SECOND` they would take longer
    than the time left: a [`BudgetExceededError`][ltheory.BudgetExceededError]."""
    if draws_per_run is None or not deadline.limited:
        return
    need = float(draws_per_run) * runs / DRAWS_PER_SECOND
    left = deadline.remaining()
    if need > left:
        raise BudgetExceededError(
            f"{name}: {what} ({runs} runs of {draws_per_run:.3g} random draws each) would take "
            f"at least {need:.3g} s, more than the {max(left, 0.0):.3g} s left of the time "
            f"budget of {deadline.seconds:g} s; raise the budget or make runs cheaper")


def _size(b: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if b < 1024 or unit == "TiB":
            return f"{b:.3g} {unit}"
        b /= 1024
    return f"{b:.3g} TiB"
