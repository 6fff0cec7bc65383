"""Helpers shared by the ``ltheory`` sub-commands: the bad-input exit and ``--only`` parsing."""

from __future__ import annotations

from collections.abc import Iterable

import typer
from rich.console import Console

__all__ = ["fail", "parse_only"]


def fail(message: str) -> typer.Exit:
    """Print one line ``error: MESSAGE`` on stderr and return the exit for bad input (code 2)."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"error: {message}",
                                                                markup=False)
    return typer.Exit(2)


def parse_only(only: str | None, allowed: Iterable[str]) -> list[str]:
    """The comma-separated ``--only`` value as a list of names from ``allowed`` (all if None)."""
    allowed = list(allowed)
    if only is None:
        return allowed
    names = [s.strip() for s in only.split(",") if s.strip()]
    if not names or any(s not in allowed for s in names):
        raise fail(f"--only takes a comma-separated subset of {','.join(allowed)}; got {only!r}")
    return names
