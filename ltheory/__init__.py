"""ltheory: exact, certified combinatorial learning theory and sound privacy audits.

Every public name is imported on first use (module ``__getattr__``, PEP 562): ``import ltheory``
costs a few milliseconds, so the pytest plugin — which pytest loads in every session of an
environment where ltheory is installed — taxes no test suite that does not use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:       # the names, for type checkers and editors (never run)
    from ltheory import catalog
    from ltheory.core import (
        HypothesisClass,
        class_from_json,
        class_to_json,
        load_class,
        save_class,
    )
    from ltheory.core.boolean import Aggregation
    from ltheory.core.compose import ComposedClass, compose, negated
    from ltheory.dimensions import (
        DIMENSIONS,
        Dimension,
        littlestone_dimension,
        threshold_dimension,
        vc_dimension,
        verify,
    )
    from ltheory.dims.result import DimensionResult
    from ltheory.dims.soa import StandardOptimalAlgorithm
    from ltheory.errors import (
        BudgetExceededError,
        CertificateError,
        ClassFileError,
        InvalidInputError,
        LtheoryError,
        UnknownFamilyError,
    )
    from ltheory.graphs import clique_number, fractional_clique_number
    from ltheory.privacy import CurveReport, ScoreAuditReport, audit_curve, audit_scores
    from ltheory.privacy.claims import (
        GDP,
        RDP,
        ZCDP,
        ApproxDP,
        PrivacyClaim,
        ProfileClaim,
        PureDP,
        as_claim,
        claim_from_json,
    )
    from ltheory.tables import DimensionTable, dimension_table

from ltheory._version import __version__ as __version__  # the one place it is written

#: names re-exported on first use, so ``import ltheory`` stays light (the privacy package
#: loads the auditor, ~1 s): the privacy claims and the curve audit
_CLAIMS = ("ApproxDP", "GDP", "PrivacyClaim", "ProfileClaim", "PureDP", "RDP", "ZCDP", "as_claim",
           "claim_from_json")
_LAZY = {**{n: "ltheory.privacy.claims" for n in _CLAIMS},
         "audit_curve": "ltheory.privacy", "CurveReport": "ltheory.privacy",
         **{n: "ltheory.core" for n in ("HypothesisClass", "class_from_json", "class_to_json",
                                         "load_class", "save_class")},
         "Aggregation": "ltheory.core.boolean",
         **{n: "ltheory.core.compose" for n in ("ComposedClass", "compose", "negated")},
         **{n: "ltheory.dimensions" for n in ("DIMENSIONS", "Dimension", "littlestone_dimension",
                                               "threshold_dimension", "vc_dimension", "verify")},
         "DimensionResult": "ltheory.dims.result",
         "StandardOptimalAlgorithm": "ltheory.dims.soa",
         **{n: "ltheory.errors" for n in ("BudgetExceededError", "CertificateError",
                                           "ClassFileError", "InvalidInputError", "LtheoryError",
                                           "UnknownFamilyError")},
         **{n: "ltheory.graphs" for n in ("clique_number", "fractional_clique_number")},
         **{n: "ltheory.tables" for n in ("DimensionTable", "dimension_table")},
         "audit_scores": "ltheory.privacy", "ScoreAuditReport": "ltheory.privacy"}


def __getattr__(name: str) -> object:
    import importlib

    if name == "catalog":
        return importlib.import_module("ltheory.catalog")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value            # once: later reads skip __getattr__
        return value
    raise AttributeError(f"module 'ltheory' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "catalog",
    "ApproxDP",
    "GDP",
    "PrivacyClaim",
    "ProfileClaim",
    "PureDP",
    "RDP",
    "ZCDP",
    "as_claim",
    "claim_from_json",
    "DIMENSIONS",
    "Dimension",
    "verify",
    "Aggregation",
    "ComposedClass",
    "CurveReport",
    "ScoreAuditReport",
    "audit_curve",
    "audit_scores",
    "compose",
    "negated",
    "BudgetExceededError",
    "CertificateError",
    "ClassFileError",
    "DimensionResult",
    "DimensionTable",
    "HypothesisClass",
    "InvalidInputError",
    "LtheoryError",
    "StandardOptimalAlgorithm",
    "UnknownFamilyError",
    "class_from_json",
    "clique_number",
    "fractional_clique_number",
    "class_to_json",
    "dimension_table",
    "load_class",
    "littlestone_dimension",
    "save_class",
    "threshold_dimension",
    "vc_dimension",
]
