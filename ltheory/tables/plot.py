"""The PNG of a table: one panel per dimension against the table's x parameter, proven bounds as
error bars, the catalog's cited formulas as lines (values dashed, bounds dotted)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ltheory.dimensions import DIMENSIONS
from ltheory.errors import InvalidInputError
from ltheory.plotting import new_figure_row
from ltheory.tables.table import DimensionTable, TableRow

__all__ = ["plot_table"]

_STYLE = {"value": ("--", None), "lower": (":", "^"), "upper": (":", "v")}


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


def plot_table(table: DimensionTable, path: str | Path) -> Path:
    """Write the table's plot to ``path`` (PNG) and return the path."""
    from matplotlib.ticker import MaxNLocator

    x = table.x or next(iter(table.ranges), None)
    if x is None:
        raise InvalidInputError("a table without parameters has nothing to plot against")
    values = list(table.ranges[x])
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)

    def pos(v: Any) -> float:
        return float(v) if numeric else float(values.index(v))

    fig, axes = new_figure_row(len(table.keys), (4.2 * len(table.keys), 3.6))
    for ax, key in zip(axes, table.keys, strict=True):
        for s_idx, (label, rows) in enumerate(_series(table).items()):
            colour = f"C{s_idx % 10}"
            pts = [(pos(r.params[x]), r.results[key]) for r in rows if key in r.results]
            if pts:
                xs = [p for p, _ in pts]
                lo = [float(res.lower) for _, res in pts]
                hi = [float(res.upper) for _, res in pts]
                ax.errorbar(xs, lo, yerr=[[0.0] * len(lo), [h - low for h, low in
                                                             zip(hi, lo, strict=True)]],
                            fmt="o-", color=colour, capsize=3, lw=1,
                            label=(label + ": " if label else "") + "computed")
            formulas: dict[tuple[str, str], list[tuple[float, int]]] = {}
            for r in rows:
                for c in r.checks_for(key):
                    formulas.setdefault((c.key, c.formula), []).append((pos(r.params[x]),
                                                                         c.value))
            for (fkey, formula), fpts in formulas.items():
                kind = fkey.split("_")[1] if "_" in fkey else "value"
                ls, marker = _STYLE[kind]
                ax.plot([p for p, _ in fpts], [v for _, v in fpts], ls=ls, marker=marker,
                        color=colour, alpha=0.6, lw=1.2,
                        label=f"{(label + ': ') if label else ''}{fkey} = {formula}")
        ax.set_title(_title(key, table.clique_m), fontsize=10)
        ax.set_xlabel(x)
        if not numeric:
            ax.set_xticks(range(len(values)), [str(v) for v in values])
        elif all(isinstance(v, int) for v in values):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6, loc="best")
    fig.suptitle(f"{table.family}: exact values (bars: proven bounds) and cited formulas",
                 fontsize=11)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, format="png", dpi=110)
    return out
