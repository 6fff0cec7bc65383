"""Tables of exact dimensions over ranges of a catalog family's parameters (``ltheory table``).

    from ltheory.tables import dimension_table, plot_table
    T = dimension_table("conjunctions", {"n": "1..6"}, budget=10)
    T.rows[0].results["ldim"].value, T.counts(), T.findings, T.to_json()
    plot_table(T, "conjunctions.png")

See `ltheory.tables.table` (computation and verdicts against the catalog's cited formulas),
`ltheory.tables.ranges` (``n=1..8``, ``n=2,4,8``, ``k=2``) and `ltheory.tables.plot`.
"""

from ltheory.tables.plot import plot_table
from ltheory.tables.ranges import MAX_MEMBERS, expand, parse_range, parse_ranges
from ltheory.tables.table import (
    DEFAULT_BUDGET,
    MARKS,
    DimensionTable,
    FormulaCheck,
    TableRow,
    dimension_table,
    formula_checks,
    judge,
    legend,
    mark,
)

__all__ = [
    "DEFAULT_BUDGET",
    "MARKS",
    "MAX_MEMBERS",
    "DimensionTable",
    "FormulaCheck",
    "TableRow",
    "dimension_table",
    "expand",
    "formula_checks",
    "judge",
    "legend",
    "mark",
    "parse_range",
    "parse_ranges",
    "plot_table",
]
