"""What the ``ltheory`` sub-commands share: the one bad-input exit, ``--only`` parsing, and the
display and JSON form of a dimension result."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import typer
from rich.console import Console

from ltheory.dimensions import DIMENSIONS, verify
from ltheory.dims.result import DimensionResult

__all__ = ["cell", "compute", "fail", "parse_only", "result_json"]


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


def compute(H: Any, names: list[str], budget: float | None, method: str = "auto"
            ) -> dict[str, DimensionResult]:
    """The dimensions ``names`` of H (explicit or composed), each witness re-checked by the
    independent checker before it is shown."""
    out = {}
    for key in names:
        res = DIMENSIONS[key].compute(H, budget=budget, method=method)
        verify(H, res)
        out[key] = res
    return out


def cell(r: DimensionResult) -> str:
    """The value, or ``lower..upper`` when a budget stopped the computation."""
    return str(r.value) if r.exact else f"{r.lower}..{r.upper}"


def result_json(r: DimensionResult) -> dict[str, Any]:
    """DESIGN.md's R: ``{"value", "exact", "lower", "upper", "witness", "seconds", "stats",
    "verified"}`` (every result shown by the CLI has been re-checked)."""
    return r.to_json() | {"verified": True}
