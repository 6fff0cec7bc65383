"""Validation at the boundary: one helper per kind of parameter, one message style.

Every public entry point of ltheory (mechanisms, learners, the auditor, ``ltheory.testing``)
checks its parameters with these helpers, so a bad value gives the same clear
[`InvalidInputError`][ltheory.InvalidInputError] everywhere: the parameter's name, what was passed
and
what is accepted.  Each helper returns the value normalised (``float``/``int``), so callers
store what the check returned.

Examples:
    >>> check_epsilon_delta(1, 0)
    (1.0, 0.0)
    >>> check_int(5, "runs", minimum=2)
    5
    >>> check_level(0.5, "alpha")
    0.5
    >>> check_level(1.5, "alpha")
    Traceback (most recent call last):
    ...
    ltheory.errors.InvalidInputError: alpha must be a level in (0, 1), got 1.5
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ltheory.errors import BudgetExceededError, InvalidInputError

__all__ = ["available_memory", "check_choice", "check_delta", "check_epsilon",
           "check_epsilon_delta", "check_int", "check_level", "check_memory", "check_real",
           "check_seed"]


def _number(value: Any, name: str, what: str) -> float:
    if isinstance(value, bool | str | bytes) or value is None:
        raise InvalidInputError(f"{name} must be {what}, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidInputError(f"{name} must be {what}, got {value!r}") from None


def check_epsilon(value: Any, name: str = "epsilon") -> float:
    """A privacy parameter ε: a finite number > 0."""
    eps = _number(value, name, "a finite number > 0")
    if not math.isfinite(eps) or eps <= 0:
        raise InvalidInputError(f"{name} must be a finite number > 0, got {value!r}")
    return eps


def check_delta(value: Any, name: str = "delta") -> float:
    """A privacy parameter δ: a number in [0, 1)."""
    d = _number(value, name, "a number in [0, 1)")
    if not (0.0 <= d < 1.0):
        raise InvalidInputError(f"{name} must be in [0, 1), got {value!r}")
    return d


def check_epsilon_delta(epsilon: Any, delta: Any = 0.0, names: tuple[str, str] = (
        "epsilon", "delta")) -> tuple[float, float]:
    """An (ε, δ) pair: ε finite > 0 and δ in [0, 1)."""
    return check_epsilon(epsilon, names[0]), check_delta(delta, names[1])


def check_real(value: Any, name: str, lo: float, hi: float, lo_open: bool = True) -> float:
    """``value`` as a finite float in (lo, hi] (``lo_open``) or [lo, hi]; bools refused."""
    f = _number(value, name, "a number")
    if not math.isfinite(f) or f > hi or f < lo or (lo_open and f == lo):
        side = "(" if lo_open else "["
        raise InvalidInputError(f"{name} must be in {side}{lo:g}, {hi:g}], got {value!r}")
    return f


def check_level(value: Any, name: str = "alpha") -> float:
    """A probability level strictly between 0 and 1 (a test's α, a shrinkage level)."""
    a = _number(value, name, "a level in (0, 1)")
    if not (0.0 < a < 1.0):
        raise InvalidInputError(f"{name} must be a level in (0, 1), got {value!r}")
    return a


def check_int(value: Any, name: str, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """An integer (not a bool; a float only when it is integral, e.g. ``1e6``) within
    [minimum, maximum]."""
    if isinstance(value, bool) or value is None:
        raise InvalidInputError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, int | np.integer):
        v = int(value)
    elif isinstance(value, float | np.floating) and math.isfinite(value) \
            and float(value).is_integer():
        v = int(value)
    else:
        raise InvalidInputError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and v < minimum:
        raise InvalidInputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if maximum is not None and v > maximum:
        raise InvalidInputError(f"{name} must be an integer <= {maximum}, got {value!r}")
    return v


def check_seed(value: Any, name: str = "seed", allow_none: bool = True) -> int | None:
    """A seed: a non-negative integer (or None where fresh entropy is allowed)."""
    if value is None:
        if allow_none:
            return None
        raise InvalidInputError(f"{name} must be a non-negative integer, got None")
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        tail = " or None" if allow_none else ""
        raise InvalidInputError(f"{name} must be a non-negative integer{tail}, got {value!r}")
    return int(value)


def check_choice(value: Any, name: str, choices: Iterable[Any]) -> Any:
    """One of ``choices`` (compared with ==)."""
    options = list(choices)
    try:
        ok = any(value == c and type(value) is type(c) for c in options)
    except Exception:  # noqa: BLE001 - an exotic value that cannot be compared is not a choice
        ok = False
    if not ok:
        shown = ", ".join(repr(c) for c in options)
        raise InvalidInputError(f"{name} must be one of {shown}; got {value!r}")
    return value


def available_memory() -> int | None:
    """Bytes of memory the system can still give without swapping (``MemAvailable`` of
    /proc/meminfo on Linux, else the free physical pages), or None when it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import os

        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not a POSIX system
        return None


def check_memory(nbytes: float, what: str) -> None:
    """Raise [`BudgetExceededError`][ltheory.BudgetExceededError] *before* allocating when
    ``nbytes``
    (an estimate of the peak) exceed the memory available
    ([`available_memory`][ltheory.validation.available_memory]); nothing
    when the available memory cannot be read."""
    free = available_memory()
    if free is not None and nbytes > free:
        raise BudgetExceededError(f"{what} needs about {nbytes / 2**30:.1f} GiB of memory, but "
                                  f"only {free / 2**30:.1f} GiB are available")
