"""ltheory: exact, certified combinatorial learning theory and sound privacy audits."""

from ltheory import catalog
from ltheory.core import HypothesisClass, class_from_json, class_to_json, load_class, save_class
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
from ltheory.tables import DimensionTable, dimension_table

__version__ = "0.1.0"

#: names re-exported on first use, so ``import ltheory`` stays light (the privacy package
#: loads the auditor, ~1 s): the privacy claims and the curve audit
_CLAIMS = ("ApproxDP", "GDP", "PrivacyClaim", "ProfileClaim", "PureDP", "RDP", "ZCDP", "as_claim",
           "claim_from_json")
_LAZY = {**{n: "ltheory.privacy.claims" for n in _CLAIMS},
         "audit_curve": "ltheory.privacy", "CurveReport": "ltheory.privacy",
         "audit_scores": "ltheory.privacy", "ScoreAuditReport": "ltheory.privacy"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ltheory' has no attribute {name!r}")


__all__ = [
    "catalog",
    *_CLAIMS,
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
