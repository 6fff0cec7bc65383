"""Time budgets for long searches: checked cheaply and often, never by raising deep inside."""

from __future__ import annotations

import math
import time

from ltheory.errors import InvalidInputError


def check_budget(seconds: object, what: str = "budget") -> float | None:
    """``seconds`` as a positive float, or None (unlimited); anything else is a clear error.

    The meaning of every value: None and ``inf`` (``float("inf")``, ``--budget inf``) mean no
    time limit; a positive finite number is a limit in seconds; 0, negative numbers, NaN and
    non-numbers are refused with [`InvalidInputError`][ltheory.InvalidInputError] (exit 2 on the
    command line)."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or (
            math.isnan(seconds) or seconds <= 0):
        raise InvalidInputError(f"{what} must be a positive number of seconds, inf or None "
                                f"(no limit), got {seconds!r}")
    if math.isinf(seconds):
        return None
    return float(seconds)


class Budget:
    """A wall-clock budget in seconds (``None`` = unlimited).

    ``expired()`` reads the clock every ``stride`` calls (every call by default: ~0.1 us, while a
    node of any exact engine costs microseconds to milliseconds on wide classes, and a stride of
    256 let whole seconds pass between two reads -- issue 30).  ``remaining()`` is the time left.
    """

    def __init__(self, seconds: float | None, stride: int = 1) -> None:
        self.seconds = check_budget(seconds)
        self.start = time.perf_counter()
        self.deadline = None if self.seconds is None else self.start + self.seconds
        self._stride = stride
        self._count = 0
        self._expired = False

    def expired(self) -> bool:
        if self.deadline is None:
            return False
        if self._expired:
            return True
        self._count += 1
        if self._count >= self._stride:
            self._count = 0
            if time.perf_counter() >= self.deadline:
                self._expired = True
        return self._expired

    def remaining(self) -> float | None:
        """Seconds left (negative once expired), or None without a deadline."""
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    @classmethod
    def until(cls, deadline: float | None, stride: int = 1) -> Budget:
        """A budget ending at an absolute ``time.perf_counter()`` value (None: unlimited); it
        may already be expired."""
        out = cls(None, stride)
        out.deadline = deadline
        if deadline is not None:
            out.seconds = deadline - out.start
        return out


#: The least time a step of a `Deadline` is given (seconds), even when the deadline has
#: passed: enough for an engine to return its trivial proven bounds.
MIN_SHARE = 1e-3


class Deadline:
    """One wall-clock deadline for a whole command (``--budget`` of ``ltheory dims``), shared
    by its steps: ``seconds`` (None: unlimited) counted from ``start`` (a ``perf_counter()``
    value, default now -- the command passes the moment it started, so loading the class is
    counted).

    `share` splits the time left evenly among the steps still to run, so time a step
    does not use passes to the next ones, and the last step gets all that is left."""

    def __init__(self, seconds: float | None, start: float | None = None) -> None:
        self.seconds = check_budget(seconds)
        self.start = time.perf_counter() if start is None else start
        self.deadline = None if self.seconds is None else self.start + self.seconds

    def remaining(self) -> float | None:
        """Seconds left (negative once passed), or None without a limit."""
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def share(self, steps_left: int, reserve: float = 0.0) -> float | None:
        """The seconds the next of ``steps_left`` steps may take (at least `MIN_SHARE`),
        with ``reserve`` seconds kept back for after them, or None without a limit."""
        left = self.remaining()
        if left is None:
            return None
        return max((left - reserve) / max(steps_left, 1), MIN_SHARE)


class BudgetExpired(Exception):
    """Internal signal used to unwind a search when its budget runs out (never escapes the API)."""
