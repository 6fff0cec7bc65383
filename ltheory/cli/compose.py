"""``ltheory compose G SPEC SPEC... [--only vc,ldim,tdim] [--sat] [--budget S] [--json]``.

Dimensions of the composed class G(H_1, ..., H_k) = {G(h_1, ..., h_k) : h_i in H_i}
(Alon, Beimel, Moran, Stemmer 2020, §2), each with a witness re-checked by the composed-class
checker (`ltheory.sat.certify`).  G is a name (``maj``, ``and``, ``or``, ``xor``,
``thr:t``, ``not``), a truth table, or an expression such as ``'x1 & (x2 | ~x3)'``; each SPEC is a
catalog family with parameters (one quoted argument) or a class file.  ``--sat`` forces the SAT
search (``method="sat"``); the default is ``method="auto"`` (materialise when it is small enough,
SAT otherwise).  Exit codes: 0 success, 2 bad input (one line on stderr).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ltheory import catalog
from ltheory.cli.common import (
    cell,
    check_budget_option,
    command_start,
    compute,
    echo_json,
    fail,
    parse_only,
    result_json,
)
from ltheory.core.boolean import Aggregation
from ltheory.core.compose import ComposedClass
from ltheory.dimensions import DIMENSIONS
from ltheory.errors import LtheoryError

NAME = "compose"


def command(
    aggregation: Annotated[str, typer.Argument(
        metavar="G", help="aggregation: maj, and, or, xor, thr:t, not, a truth table such as "
                          "00010111, or an expression such as 'x1 & (x2 | ~x3)'")],
    specs: Annotated[list[str], typer.Argument(
        metavar="SPEC...", help="one class per input of G: catalog family with parameters "
                                "(quoted, e.g. 'thresholds n=16') or a class file path")],
    only: Annotated[str | None, typer.Option(metavar="NAMES",
                                             help="comma-separated subset of vc,ldim,tdim")
                    ] = None,
    sat: Annotated[bool, typer.Option("--sat", help="use the SAT search (never materialise)")
                   ] = False,
    budget: Annotated[float | None, typer.Option(
        metavar="SECONDS",
        help="time limit in seconds for the whole command (loading and every dimension, "
             "witness checks included); past it, proven bounds are reported. inf: no limit; "
             "0, negative or nan: an error")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Exact dimensions of the composed class G(H1, ..., Hk), each with a verified witness."""
    start = command_start()  # the budget counts from here (process start under `ltheory`)
    names = parse_only(only)
    budget = check_budget_option(budget)
    try:
        G = Aggregation.parse(aggregation)
        classes = [catalog.from_spec(s) for s in specs]
        C = ComposedClass(G, classes)
        C.name = f"{C.G.name}({', '.join(specs)})"
        results = compute(C, names, budget, method="sat" if sat else "auto", start=start)
    except LtheoryError as exc:
        raise fail(str(exc)) from None
    if as_json:
        doc: dict[str, Any] = {"class": {
            "name": C.name, "aggregation": C.G.name, "truth_table": C.G.truth_table,
            "domain_size": C.domain_size, "product_size": C.product_size,
            "size_upper_bound": C.size_upper_bound(),
            "components": [{"spec": s, "size": len(c)} for s, c in zip(specs, classes,
                                                                         strict=True)]}}
        doc.update({key: result_json(r) for key, r in results.items()})
        echo_json(doc)
        return
    table = Table(title=Text(f"{C.name}: {C.G.name} of "
                             f"{' x '.join(str(len(c)) for c in classes)} "
                             f"hypotheses on {C.domain_size} points"))  # literal, not markup
    for col in ("dimension", "value", "exact", "method", "witness", "seconds"):
        table.add_column(col)
    for key, r in results.items():
        w = json.dumps(r.witness_json())
        table.add_row(DIMENSIONS[key].title, cell(r),
                      "yes" if r.exact else f"no ({r.lower}..{r.upper})",
                      str(r.stats.get("method", "")), Text(w if len(w) <= 50 else w[:47] + "..."),
                      f"{r.seconds:.3f}")
    Console().print(table)
