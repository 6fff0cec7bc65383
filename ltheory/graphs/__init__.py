"""Contradiction graphs G_m(H) and their (fractional) clique numbers (Alon, Moran, Schefler,
Yehudayoff 2024; seed 002 §5).  Re-exports the public functions of the sub-modules."""

from ltheory.graphs.certificates import (
    verify_clique,
    verify_fractional_bounds,
    verify_fractional_clique,
    verify_graph_result,
)
from ltheory.graphs.clique import clique_number
from ltheory.graphs.contradiction import ContradictionGraph, contradiction_graph
from ltheory.graphs.explorer import DichotomyReport, explore, plot_dichotomy
from ltheory.graphs.fractional import fractional_clique_number

__all__ = [
    "ContradictionGraph",
    "DichotomyReport",
    "clique_number",
    "contradiction_graph",
    "explore",
    "fractional_clique_number",
    "plot_dichotomy",
    "verify_clique",
    "verify_fractional_bounds",
    "verify_fractional_clique",
    "verify_graph_result",
]
