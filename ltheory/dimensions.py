"""The dimensions: one [`Dimension`][ltheory.Dimension] record per kind, and the public entry
points.

    vc_dimension(H, budget=None, method="auto")           -> DimensionResult
    littlestone_dimension(H, budget=None, method="auto")  -> DimensionResult
    threshold_dimension(H, budget=None, method="auto")    -> DimensionResult
    DIMENSIONS["ldim"].compute(H, ...)                    # the same, by key
    verify(H, result)                                     # witness re-checked from scratch

``H`` is a [`HypothesisClass`][ltheory.HypothesisClass] or a lazy composed class G(H_1, ..., H_k)
([`ComposedClass`][ltheory.ComposedClass]).  [`DIMENSIONS`][ltheory.DIMENSIONS] is the one table of
the kinds
("vc", "ldim", "tdim"): every command, report and check iterates over it.  Layering: this module
sits above `ltheory.dims` (exact engines, certificates) and `ltheory.sat` (SAT search);
neither imports it.  python-sat is imported only when a SAT search runs, so the exact path on an
explicit class works without it.

``method`` is ``"auto"``, ``"exact"`` or ``"sat"``:

* ``"exact"``: an explicit class goes to the exact enumeration algorithm of `ltheory.dims`;
  a [`ComposedClass`][ltheory.ComposedClass] is materialised first (staged and deduplicated, within
  ``compose.DEFAULT_MAX_PRODUCTS``; past it BudgetExceededError), then enumerated, and the
  witness gets its ``"components"`` so it is checked against the lazy class.
* ``"sat"``: the SAT drivers of `ltheory.sat.search` (explicit or composed).
* ``"auto"`` (the rule, `choose`): explicit classes use the exact algorithms (they
  were faster than the SAT encodings on every explicit class we measured; the threshold search
  over traces decides MAJ3 of a random 60 x 16 class, 14,311 hypotheses, in ~0.3 s where the SAT
  ladder took ~20 s).  A composed class is
  materialised when its staged materialisation evaluates at most `AUTO_MAX_PRODUCTS`
  (5,000,000) products, and goes to SAT otherwise (whose first step enumerates the distinct
  composed hypotheses by AllSAT, then runs the exact algorithms on them).  When even the
  multiset bound
  [`ComposedClass.staged_products_bound`][ltheory.ComposedClass.staged_products_bound] exceeds 20x
  the threshold,
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
from dataclasses import dataclass
from typing import Any

from ltheory.core.compose import DEFAULT_MAX_PRODUCTS, ComposedClass
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.budget import check_budget
from ltheory.dims.certificates import CHECKERS
from ltheory.dims.components import attach_components
from ltheory.dims.littlestone import littlestone_exact
from ltheory.dims.result import DimensionResult
from ltheory.dims.threshold import threshold_exact
from ltheory.dims.vc import vc_exact
from ltheory.errors import BudgetExceededError, InvalidInputError
from ltheory.sat.certify import verify_any, verify_composed

__all__ = ["AUTO_MAX_PRODUCTS", "DIMENSIONS", "METHODS", "Dimension", "choose",
           "littlestone_dimension", "threshold_dimension", "vc_dimension", "verify"]

METHODS = ("auto", "exact", "sat")
#: "auto" materialises a composed class when at most this many products are evaluated.
AUTO_MAX_PRODUCTS = 5_000_000

Engine = Callable[..., DimensionResult]


@dataclass(frozen=True)
class Dimension:
    """One kind of dimension: its key (``DimensionResult.kind``), names, engines and checker.

    ``exact(H, budget)`` is the exact engine on explicit classes (`ltheory.dims`);
    ``sat_name`` names the SAT driver in `ltheory.sat.search` (imported on first use, see
    `sat`); ``checker(H, witness, value)`` re-checks a witness from scratch
    (`ltheory.dims.certificates`).
    """

    key: str
    title: str
    symbol: str
    definition: str
    exact: Engine
    sat_name: str
    checker: Callable[[HypothesisClass, Any, Any], None]

    @property
    def sat(self) -> Engine:
        """The SAT driver (needs python-sat)."""
        try:
            from ltheory.sat import search
        except ImportError as exc:  # pragma: no cover - python-sat is a dependency
            raise InvalidInputError("method='sat' needs python-sat (pip install python-sat)"
                                    ) from exc
        return getattr(search, self.sat_name)

    def compute(self, H: Any, budget: float | None = None, method: str = "auto"
                ) -> DimensionResult:
        """This dimension of ``H`` with the chosen method (see
        [`ltheory.dimensions`][ltheory.dimensions])."""
        if not isinstance(method, str) or method not in METHODS:
            raise InvalidInputError(f"unknown method {method!r}; accepted: auto, exact, sat")
        budget = check_budget(budget)
        if isinstance(H, ComposedClass):
            return self._composed(H, budget, method)
        if choose(self.key, H, method) == "sat":
            return self.sat(H, budget)
        return self.exact(H, budget)

    def _composed(self, C: ComposedClass, budget: float | None, method: str
                  ) -> DimensionResult:
        if method == "sat":
            return self.sat(C, budget)
        if method == "exact":
            return self._materialised(C, budget, DEFAULT_MAX_PRODUCTS)
        t0 = time.perf_counter()
        if C.staged_products_bound() > 20 * AUTO_MAX_PRODUCTS:
            return self.sat(C, budget)  # hopeless to materialise: do not even start
        try:
            return self._materialised(C, budget, AUTO_MAX_PRODUCTS)
        except BudgetExceededError:
            left = None if budget is None else max(budget - (time.perf_counter() - t0), 1e-3)
            return self.sat(C, left)

    def _materialised(self, C: ComposedClass, budget: float | None, max_products: int
                      ) -> DimensionResult:
        """The exact engine on the materialised class; the witness names its components."""
        t0 = time.perf_counter()
        mat = C.materialise_with_components(max_products)
        spent = time.perf_counter() - t0
        left = None if budget is None else max(budget - spent, 1e-3)
        res = attach_components(C, mat, self.exact(mat.H, left))
        stats = dict(res.stats) | {"method": "exact", "materialised": len(mat.H),
                                   "products": mat.products,
                                   "materialise_seconds": round(spent, 4)}
        out = res.replace(seconds=time.perf_counter() - t0, stats=stats)
        verify_composed(C, out)
        return out


DIMENSIONS: dict[str, Dimension] = {d.key: d for d in (
    Dimension("vc", "VC", "VC",
              "largest set shattered by H (Vapnik and Chervonenkis 1971)",
              vc_exact, "sat_vc", CHECKERS["vc"]),
    Dimension("ldim", "Littlestone", "Ldim",
              "depth of the deepest complete mistake tree shattered by H (Littlestone 1988)",
              littlestone_exact, "sat_littlestone", CHECKERS["ldim"]),
    Dimension("tdim", "threshold", "T",
              "largest k with x_1..x_k, h_1..h_k in H, h_i(x_j) = 1 iff i <= j (Shelah 1978)",
              threshold_exact, "sat_threshold", CHECKERS["tdim"]),
)}
"""The three dimensions (VC, Littlestone, threshold), by key, in display order: each with its
exact engine, SAT search and witness checker."""


def choose(kind: str, H: Any, method: str = "auto") -> str:
    """The method "auto" resolves to for this class: "exact" or "sat" (see the module doc).

    For a composed class this is only a first choice: "auto" falls back to SAT when the
    materialisation exceeds `AUTO_MAX_PRODUCTS`.
    """
    if method not in METHODS:
        raise InvalidInputError(f"unknown method {method!r}; accepted: auto, exact, sat")
    if kind not in DIMENSIONS:
        raise InvalidInputError(f"unknown dimension {kind!r}; accepted: {', '.join(DIMENSIONS)}")
    return "exact" if method == "auto" else method


def vc_dimension(H: Any, budget: float | None = None, method: str = "auto") -> DimensionResult:
    """The VC dimension of a finite or lazily composed class, with a shattered set as witness.

    The VC dimension of H is the size of the largest set of points that H shatters (every
    labelling of the set is realised by a hypothesis of H; Vapnik & Chervonenkis 1971).

    Args:
        H: A [`HypothesisClass`][ltheory.HypothesisClass] or a lazily composed class
            ([`ComposedClass`][ltheory.ComposedClass], from ``compose(..., lazy=True)``).
        budget: A time limit in seconds (``None``: none).  Past it the result has
            ``exact=False`` and proven ``lower`` / ``upper`` bounds.
        method: ``"exact"`` (`ltheory.dims.vc.vc_exact`; a composed class is materialised first
            within the size budget), ``"sat"`` (an incremental SAT search, `ltheory.sat.sat_vc`) or
            ``"auto"`` (exact for an explicit class; for a composed class SAT when materialising it
            would exceed `AUTO_MAX_PRODUCTS` products).

    Returns:
        A [`DimensionResult`][ltheory.DimensionResult]: ``value``, ``exact``, ``lower``, ``upper``,
            and the ``witness`` (the shattered set, a list of point labels, in the JSON form of the
            [witness formats][witness-formats]) that [`verify`][ltheory.verify] re-checks.

    Raises:
        InvalidInputError: For an unknown method, or a class that is neither explicit nor
            composed.

    Examples:
        >>> from ltheory import catalog, vc_dimension
        >>> r = vc_dimension(catalog.family("thresholds", n=8))
        >>> r.value, r.exact, r.witness
        (1, True, ['3'])
    """
    return DIMENSIONS["vc"].compute(H, budget, method)


def littlestone_dimension(H: Any, budget: float | None = None,
                          method: str = "auto") -> DimensionResult:
    """The Littlestone dimension of a finite or lazily composed class, with a shattered mistake
    tree as witness.

    The Littlestone dimension of H is the depth of the deepest complete binary mistake tree
    shattered by H (Littlestone 1988): the optimal mistake bound of online learning of H,
    attained by the [`StandardOptimalAlgorithm`][ltheory.StandardOptimalAlgorithm].

    Args:
        H: A [`HypothesisClass`][ltheory.HypothesisClass] or a lazily composed class
            ([`ComposedClass`][ltheory.ComposedClass], from ``compose(..., lazy=True)``).
        budget: A time limit in seconds (``None``: none).  Past it the result has
            ``exact=False`` and proven ``lower`` / ``upper`` bounds.
        method: ``"exact"`` (branch and bound, `ltheory.dims.littlestone.littlestone_exact`; a
            composed class is materialised first within the size budget), ``"sat"`` (an incremental
            SAT search, `ltheory.sat.sat_littlestone`) or ``"auto"`` (exact for an explicit class;
            for a composed class SAT when materialising it would exceed `AUTO_MAX_PRODUCTS`
            products).

    Returns:
        A [`DimensionResult`][ltheory.DimensionResult]: ``value``, ``exact``, ``lower``, ``upper``,
            and the ``witness`` (the mistake tree, nested ``{"point", "children"}`` dicts, in the
            JSON form of the [witness formats][witness-formats]) that [`verify`][ltheory.verify]
            re-checks.

    Raises:
        InvalidInputError: For an unknown method, or a class that is neither explicit nor
            composed.

    Examples:
        >>> from ltheory import catalog, littlestone_dimension
        >>> littlestone_dimension(catalog.family("thresholds", n=8)).value    # log2(8 + 1)
        3
    """
    return DIMENSIONS["ldim"].compute(H, budget, method)


def threshold_dimension(H: Any, budget: float | None = None,
                        method: str = "auto") -> DimensionResult:
    """The threshold dimension of a finite or lazily composed class, with a threshold ladder as
    witness.

    The threshold dimension of H is the largest k with points x_1 … x_k and hypotheses
    h_1 … h_k of H such that h_i(x_j) = 1 iff i ≤ j (Shelah 1978; Alon, Livni, Malliaris &
    Moran 2019).

    Args:
        H: A [`HypothesisClass`][ltheory.HypothesisClass] or a lazily composed class
            ([`ComposedClass`][ltheory.ComposedClass], from ``compose(..., lazy=True)``).
        budget: A time limit in seconds (``None``: none).  Past it the result has
            ``exact=False`` and proven ``lower`` / ``upper`` bounds.
        method: ``"exact"`` (`ltheory.dims.threshold.threshold_exact`; a composed class is
            materialised first within the size budget), ``"sat"`` (an incremental SAT search,
            `ltheory.sat.sat_threshold`) or ``"auto"`` (exact for an explicit class; for a composed
            class SAT when materialising it would exceed `AUTO_MAX_PRODUCTS` products).

    Returns:
        A [`DimensionResult`][ltheory.DimensionResult]: ``value``, ``exact``, ``lower``, ``upper``,
            and the ``witness`` (the ladder, ``{"points", "hypotheses"}``, in the JSON form of the
            [witness formats][witness-formats]) that [`verify`][ltheory.verify] re-checks.

    Raises:
        InvalidInputError: For an unknown method, or a class that is neither explicit nor
            composed.

    Examples:
        >>> from ltheory import catalog, threshold_dimension
        >>> r = threshold_dimension(catalog.family("thresholds", n=8))
        >>> r.value, r.witness["points"][:3]
        (8, ['0', '1', '2'])
    """
    return DIMENSIONS["tdim"].compute(H, budget, method)


def verify(H: HypothesisClass | ComposedClass, result: DimensionResult,
           budget: Any = None) -> None:
    """Re-check ``result``'s witness against ``H`` from scratch (explicit or composed class);
    raises [`CertificateError`][ltheory.CertificateError] if it does not certify ``result.lower``.

    ``budget`` (a `ltheory.dims.budget.Budget`, or None): on an explicit class the check
    reads its clock and stops with [`BudgetExceededError`][ltheory.BudgetExceededError] when it runs
    out -- the witness is then not certified (``ltheory dims`` reports the result as
    unverified)."""
    verify_any(H, result, budget)
