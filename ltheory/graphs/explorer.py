"""Dichotomy explorer: ω_m and ω*_m for m = 1..M against 2^m (seed 002 §5, Theorem 5).

Theorem 5 (Alon, Moran, Schefler, Yehudayoff, COLT 2024): for every class H, either ω_m = 2^m for
all m or ω_m ≤ poly(m) (approximate-DP learnable iff the latter), and likewise for ω*_m
(pure-DP learnable iff ω*_m ≤ poly(m)).  On a finite class both are eventually bounded by |H|;
the explorer reports, for each m ≤ M, the certified values with the bounds
ω_m ≤ ω*_m ≤ min(2^m, |H|), whether ω_m = 2^m, and a least-squares fit
log ω = log c + a log m (ω ≈ c·m^a) over the m with ω_m < 2^m (over all m when fewer than two
have ω_m < 2^m; ``fit["fitted_m"]`` lists the m used), and can plot them.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dimensions import littlestone_dimension
from ltheory.dims.result import DimensionResult
from ltheory.errors import BudgetExceededError, InvalidInputError
from ltheory.graphs.certificates import verify_graph_result
from ltheory.graphs.clique import clique_number
from ltheory.graphs.contradiction import DEFAULT_MAX_VERTICES, check_order
from ltheory.graphs.fractional import fractional_clique_number
from ltheory.plotting import new_figure

__all__ = ["DichotomyReport", "explore", "plot_dichotomy"]


@dataclass(frozen=True)
class DichotomyReport:
    """Certified ω_m (and ω*_m if asked) for m = 1..M, with a polynomial fit ω ≈ c·m^a."""

    name: str
    domain_size: int
    size: int
    ms: tuple[int, ...]
    clique: tuple[DimensionResult, ...]
    fractional: tuple[DimensionResult, ...] | None
    fit: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        rows = []
        for i, m in enumerate(self.ms):
            row: dict[str, Any] = {"m": m, "two_to_m": 2 ** m,
                                   "upper_bound": min(2 ** m, self.size),
                                   "clique": {**self.clique[i].to_json(), "verified": True}}
            if self.fractional is not None:
                fr = self.fractional[i]
                row["fclique"] = {**fr.to_json(), "verified": True}
            rows.append(row)
        return {"class": {"name": self.name, "domain_size": self.domain_size, "size": self.size},
                "rows": rows, "fit": dict(self.fit), "seconds": round(self.seconds, 6)}


def _check_sizes(H: HypothesisClass, M: int, budget: float | None,
                 max_vertices: int | None) -> None:
    """Refuse up front (BudgetExceededError) an M for which some m <= M needs a contradiction
    graph above ``max_vertices``: G_m has at least C(|X|, min(m, |X|)) vertices, and only the
    fast path (ω_m = min(2^m, |H|) from a mistake tree of depth >= m) avoids building it."""
    if max_vertices is None:
        return
    n = H.domain_size
    big = [m for m in range(1, M + 1) if math.comb(n, min(m, n)) > max_vertices]
    if not big:
        return
    ld = littlestone_dimension(H, budget=budget).lower
    for m in big:
        if (1 << min(m, max(ld, 0))) < min(1 << m, len(H)):
            ok = max([0] + [j for j in range(1, m) if j not in big])
            raise BudgetExceededError(
                f"G_{m}(H) has at least C({n},{min(m, n)}) = {math.comb(n, min(m, n))} vertices, "
                f"more than max_vertices={max_vertices} (and Ldim >= {ld} gives no shortcut at "
                f"m = {m}); use M <= {ok}, or raise max_vertices")


def _fit(ms: list[int], values: list[float], exact: list[bool]) -> dict[str, Any]:
    """A power-law fit c·m^a of the values; only exact values are fitted (a budget-stopped
    computation gives a lower bound, listed under ``inexact_m``)."""
    inexact = [m for m, e in zip(ms, exact, strict=True) if not e]
    ms = [m for m, e in zip(ms, exact, strict=True) if e]
    values = [v for v, e in zip(values, exact, strict=True) if e]
    full = bool(ms) and all(v == 2 ** m for m, v in zip(ms, values, strict=True))
    # Fit the polynomial regime (ω_m < 2^m) when it has two points; otherwise all m (the fit is
    # then only descriptive: ω_m = 2^m is exponential, not polynomial).
    pts = [(m, v) for m, v in zip(ms, values, strict=True) if 0 < v < 2 ** m]
    if len(pts) < 2:
        pts = [(m, v) for m, v in zip(ms, values, strict=True) if v > 0]
    out: dict[str, Any] = {"all_equal_2_to_m": full, "fitted_m": [p[0] for p in pts],
                           "inexact_m": inexact}
    if len(pts) >= 2:
        x = np.log([p[0] for p in pts])
        y = np.log([p[1] for p in pts])
        a, b = np.polyfit(x, y, 1)
        out.update({"exponent": float(a), "coefficient": float(math.exp(b)),
                    "formula": f"{math.exp(b):.3g} * m^{a:.3g}"})
    return out


def explore(H: HypothesisClass, M: int, fractional: bool = False, budget: float | None = None,
            max_vertices: int | None = DEFAULT_MAX_VERTICES) -> DichotomyReport:
    """Compute and verify ω_m (and ω*_m) for m = 1..M; ``budget`` seconds per computation."""
    t0 = time.perf_counter()
    check_order(H, M)
    if M > 30:
        raise InvalidInputError(f"M must be at most 30 (2^m samples per clique), got {M}")
    _check_sizes(H, M, budget, max_vertices)
    cl, fr = [], []
    for m in range(1, M + 1):
        r = clique_number(H, m, budget=budget, max_vertices=max_vertices)
        verify_graph_result(H, m, r)
        cl.append(r)
        if fractional:
            f = fractional_clique_number(H, m, budget=budget, max_vertices=max_vertices)
            verify_graph_result(H, m, f)
            fr.append(f)
    ms = list(range(1, M + 1))
    fit = {"clique": _fit(ms, [float(r.value) for r in cl], [r.exact for r in cl])}
    if fractional:
        fit["fclique"] = _fit(ms, [float(r.value) for r in fr], [r.exact for r in fr])
    return DichotomyReport(H.name or "class", H.domain_size, len(H), tuple(ms), tuple(cl),
                           tuple(fr) if fractional else None, fit, time.perf_counter() - t0)


def plot_dichotomy(report: DichotomyReport, path: str) -> None:
    """A PNG (log scale) of ω_m, ω*_m, 2^m, |H| and the fit c·m^a (matplotlib, without pyplot)."""

    ms = np.array(report.ms)
    fig, ax = new_figure((6, 4))
    ax.plot(ms, 2.0 ** ms, "k--", label="$2^m$")
    ax.axhline(report.size, color="grey", lw=0.8, ls=":", label="$|H|$")
    ax.plot(ms, [r.value for r in report.clique], "o-", label=r"$\omega_m$")
    if report.fractional is not None:
        ax.plot(ms, [r.value for r in report.fractional], "s-", label=r"$\omega^*_m$")
    fit = report.fit.get("clique", {})
    if "exponent" in fit:
        grid = np.linspace(ms.min(), ms.max(), 100)
        ax.plot(grid, fit["coefficient"] * grid ** fit["exponent"], ":",
                label=f"fit {fit['formula']}")
    ax.set_yscale("log", base=2)
    ax.set_xlabel("m")
    ax.set_title(f"contradiction graphs of {report.name}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, format="png")
