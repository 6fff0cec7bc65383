"""Figures for the PNG outputs, made without pyplot.

A `matplotlib.figure.Figure` created directly is not registered with pyplot and renders
PNG through the Agg canvas, so library code never switches the user's backend (a notebook keeps
its inline backend) and works headless.
"""

from __future__ import annotations

from typing import Any


def new_figure(figsize: tuple[float, float]) -> tuple[Any, Any]:
    """A fresh ``(Figure, Axes)`` pair, independent of pyplot's state."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, fig.add_subplot()


def new_figure_row(ncols: int, figsize: tuple[float, float]) -> tuple[Any, list[Any]]:
    """A fresh Figure with ``ncols`` Axes side by side, independent of pyplot's state."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, list(fig.subplots(1, max(ncols, 1), squeeze=False)[0])
