"""The PNG of a table: one panel per dimension against the table's x parameter, the computed
values in colour (one colour per series, proven bounds as error bars), the catalog's cited
formulas drawn over them in a neutral dark grey (values dashed, bounds dotted, one marker per
formula), labelled with their conditions in a legend below the panel, clear of the data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ltheory.dimensions import DIMENSIONS
from ltheory.errors import InvalidInputError
from ltheory.plotting import new_figure_row
from ltheory.tables.table import DimensionTable, TableRow

__all__ = ["FORMULA_COLOUR", "FORMULA_ZORDER", "plot_table", "table_figure"]

_STYLE = {"value": "--", "lower": ":", "upper": ":"}
_FORMULA_MARKERS = ("x", "+", "1", "2", "3", "4")
FORMULA_COLOUR = "0.2"
"""The cited formulas' colour (matplotlib grey level): neutral, unlike any series colour."""
FORMULA_ZORDER = 4
"""Formulas are drawn above the computed points (matplotlib draws lines at zorder 2)."""


def _title(key: str, m: int | None) -> str:
    if key == "clique":
        return f"ω_{m} (contradiction graph clique number)"
    return f"{DIMENSIONS[key].title} ({DIMENSIONS[key].symbol})"


def _series(table: DimensionTable) -> dict[str, list[TableRow]]:
    """Rows grouped by the values of the varying parameters other than x."""
    others = [k for k, v in table.ranges.items() if len(v) > 1 and k != table.x]
    out: dict[str, list[TableRow]] = {}
    for row in table.rows:
        label = ", ".join(f"{k}={row.params.get(k)}" for k in others)
        out.setdefault(label, []).append(row)
    return out


def table_figure(table: DimensionTable) -> Any:
    """The table's `matplotlib.figure.Figure` (module docstring), not yet saved."""
    from matplotlib.ticker import MaxNLocator

    x = table.x or next(iter(table.ranges), None)
    if x is None:
        raise InvalidInputError("a table without parameters has nothing to plot against")
    values = list(table.ranges[x])
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)

    def pos(v: Any) -> float:
        return float(v) if numeric else float(values.index(v))

    fig, axes = new_figure_row(len(table.keys), (4.2 * len(table.keys), 4.6))
    for ax, key in zip(axes, table.keys, strict=True):
        formulas: dict[tuple[str, str], list[tuple[float, int]]] = {}
        for s_idx, (label, rows) in enumerate(_series(table).items()):
            colour = f"C{s_idx % 10}"
            pts = [(pos(r.params[x]), r.results[key]) for r in rows if key in r.results]
            if pts:
                xs = [p for p, _ in pts]
                lo = [float(res.lower) for _, res in pts]
                hi = [float(res.upper) for _, res in pts]
                ax.errorbar(xs, lo, yerr=[[0.0] * len(lo), [h - low for h, low in
                                                             zip(hi, lo, strict=True)]],
                            fmt="o-", color=colour, capsize=3, lw=1, ms=5,
                            label=(label + ": " if label else "") + "computed")
            for r in rows:
                for c in r.checks_for(key):
                    name = (label + ": " if label else "") + c.statement
                    formulas.setdefault((c.kind, name), []).append((pos(r.params[x]), c.value))
        for f_idx, ((kind, name), fpts) in enumerate(formulas.items()):
            ax.plot([p for p, _ in fpts], [v for _, v in fpts], ls=_STYLE[kind],
                    marker=_FORMULA_MARKERS[f_idx % len(_FORMULA_MARKERS)], ms=7,
                    color=FORMULA_COLOUR, lw=1.4, zorder=FORMULA_ZORDER,
                    label=f"cited: {name}")
        ax.set_title(_title(key, table.clique_m), fontsize=10)
        ax.set_xlabel(x)
        ax.set_ylabel("dimension" if key != "clique" else "clique number")
        if not numeric:
            ax.set_xticks(range(len(values)), [str(v) for v in values])
        elif all(isinstance(v, int) for v in values):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1,
                      frameon=False)
    fig.suptitle(f"{table.family}: exact values (bars: proven bounds) and cited formulas (grey)",
                 fontsize=11)
    fig.tight_layout()
    return fig


def plot_table(table: DimensionTable, path: str | Path) -> Path:
    """Write the table's plot (`table_figure`) to ``path`` (PNG) and return the path."""
    out = Path(path)
    table_figure(table).savefig(out, format="png", dpi=110, bbox_inches="tight")
    return out
