"""``method="auto" | "exact" | "sat"`` for vc_dimension, littlestone_dimension, threshold_dimension.

* ``"exact"``: an explicit class goes to the exact enumeration algorithm of :mod:`ltheory.dims`;
  a :class:`ComposedClass` is materialised first (staged and deduplicated, within
  ``compose.DEFAULT_MAX_PRODUCTS``; past it BudgetExceededError), then enumerated, and the
  witness gets its ``"components"`` so it is checked against the lazy class.
* ``"sat"``: the SAT drivers of :mod:`ltheory.sat.search` (explicit or composed).
* ``"auto"`` (the rule, :func:`choose`): explicit classes use the exact algorithms (they
  were faster than the SAT encodings on every explicit class we measured; the threshold search
  over traces decides MAJ3 of a random 60 x 16 class, 14,311 hypotheses, in ~0.3 s where the SAT
  ladder took ~20 s).  A composed class is
  materialised when its staged materialisation evaluates at most :data:`AUTO_MAX_PRODUCTS`
  (5,000,000) products, and goes to SAT otherwise (whose first step enumerates the distinct
  composed hypotheses by AllSAT, then runs the exact algorithms on them).  When even the
  multiset bound :meth:`ComposedClass.staged_products_bound` exceeds 20x the threshold,
  materialisation is not attempted at all.

  Where the crossover was measured (``python benchmarks/bench_compose.py --part 2``, Ldim, random
  classes on 12 points, one core): MAJ3 of 60 hypotheses (216,000 products, 3,050 distinct):
  exact 0.43 s vs SAT 1.22 s; MAJ3 of 200 (7.4e6 products, ~4.1e6 staged, 4,096 distinct): exact
  1.23 s vs SAT 1.34 s; MAJ3 of 400 (5.4e7 products): materialisation over the default budget,
  SAT 1.45 s; MAJ5 of 40 (1.0e8 products, 3,822 distinct): exact 1.08 s vs SAT 1.68 s.  The
  cost of materialising grows with the staged products, that of SAT enumeration with the number
  of distinct composed hypotheses (<= 2^points), so they cross at a few million staged products,
  where the threshold is set.  The pure decision encodings (mistake tree / ladder without
  enumeration) were far slower than both on these classes (bench part 1).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ltheory.core.compose import DEFAULT_MAX_PRODUCTS, ComposedClass
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.result import DimensionResult
from ltheory.errors import BudgetExceededError, InvalidInputError

__all__ = ["AUTO_MAX_PRODUCTS", "METHODS", "choose", "dispatch"]

METHODS = ("auto", "exact", "sat")
#: "auto" materialises a composed class when at most this many products are evaluated.
AUTO_MAX_PRODUCTS = 5_000_000


def _sat(kind: str) -> Callable[..., DimensionResult]:
    from ltheory.sat import search

    return {"vc": search.sat_vc, "ldim": search.sat_littlestone,
            "tdim": search.sat_threshold}[kind]


def choose(kind: str, H: Any, method: str = "auto") -> str:
    """The method "auto" resolves to for this class: "exact" or "sat" (see the module doc).

    For a composed class this is only a first choice: "auto" falls back to SAT when the
    materialisation exceeds :data:`AUTO_MAX_PRODUCTS`.
    """
    if method not in METHODS:
        raise InvalidInputError(f"unknown method {method!r}; accepted: auto, exact, sat")
    if method != "auto":
        return method
    return "exact"


def _bits(row: np.ndarray) -> str:
    return (np.asarray(row, dtype=np.uint8) + ord("0")).tobytes().decode("ascii")


def _with_components(kind: str, C: ComposedClass, mat: Any, res: DimensionResult
                     ) -> DimensionResult:
    """Attach to an exact result on the materialised class the components of its hypotheses."""
    H: HypothesisClass = mat.H
    strings = H.to_strings()
    where = {h: r for r, h in enumerate(strings)}

    def comps(h: str) -> list[str]:
        tup = mat.components[where[h]]
        return [_bits(C.classes[i].matrix[int(j)]) for i, j in enumerate(tup)]

    w = res.witness
    stats = dict(res.stats)
    if w is None:
        return res
    if kind == "ldim":
        def attach(node: dict[str, Any]) -> dict[str, Any]:
            if "hypothesis" in node:
                return {"hypothesis": node["hypothesis"], "components": comps(node["hypothesis"])}
            return {"point": node["point"],
                    "children": {b: attach(node["children"][b]) for b in ("0", "1")}}
        w = attach(w)
    elif kind == "tdim":
        w = {"points": list(w["points"]), "hypotheses": list(w["hypotheses"]),
             "components": [comps(h) for h in w["hypotheses"]]}
    else:
        idx = [H.point_index(lab) for lab in w]
        codes = (H.matrix[:, idx].astype(np.int64) << np.arange(len(idx))).sum(axis=1) if idx \
            else np.zeros(len(H), dtype=np.int64)
        first = {}
        for r, c in enumerate(codes.tolist()):
            first.setdefault(c, r)
        stats["realisations"] = [comps(strings[first[a]]) for a in range(1 << len(idx))]
    return DimensionResult(res.kind, res.value, w, res.exact, res.lower, res.upper, res.seconds,
                           stats)


def _exact_composed(kind: str, C: ComposedClass, budget: float | None, max_products: int,
                    exact_fn: Callable[..., DimensionResult]) -> DimensionResult:
    t0 = time.perf_counter()
    mat = C.materialise_with_components(max_products)
    spent = time.perf_counter() - t0
    left = None if budget is None else max(budget - spent, 1e-3)
    res = exact_fn(mat.H, left)
    res = _with_components(kind, C, mat, res)
    stats = dict(res.stats) | {"method": "exact", "materialised": len(mat.H),
                               "products": mat.products, "materialise_seconds": round(spent, 4)}
    out = DimensionResult(res.kind, res.value, res.witness, res.exact, res.lower, res.upper,
                          time.perf_counter() - t0, stats)
    from ltheory.sat.certify import verify_composed

    verify_composed(C, out)
    return out


def dispatch(kind: str, H: Any, budget: float | None, method: str,
             exact_fn: Callable[..., DimensionResult]) -> DimensionResult:
    """Run ``kind`` ("vc", "ldim", "tdim") on H with the chosen method (module docstring)."""
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidInputError(f"unknown method {method!r}; accepted: auto, exact, sat")
    if isinstance(H, ComposedClass):
        if method == "sat":
            return _sat(kind)(H, budget)
        if method == "exact":
            return _exact_composed(kind, H, budget, DEFAULT_MAX_PRODUCTS, exact_fn)
        t0 = time.perf_counter()
        if H.staged_products_bound() > 20 * AUTO_MAX_PRODUCTS:
            return _sat(kind)(H, budget)  # hopeless to materialise: do not even start
        try:
            return _exact_composed(kind, H, budget, AUTO_MAX_PRODUCTS, exact_fn)
        except BudgetExceededError:
            left = None if budget is None else max(budget - (time.perf_counter() - t0), 1e-3)
            return _sat(kind)(H, left)
    if isinstance(H, HypothesisClass) and choose(kind, H, method) == "sat":
        return _sat(kind)(H, budget)
    return exact_fn(H, budget)
