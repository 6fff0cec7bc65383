"""The seeds' private learners (one module each), all with the interface of
[`PrivateLearner`][ltheory.privacy.learners.PrivateLearner].

Names are imported lazily from their modules, so one learner's optional dependency never breaks
another's import.  ``audit_cases()`` collects every module's ``AUDIT_CASES`` (the small
configurations the tests and ``benchmarks/make_learners_toml.py`` audit).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ltheory.privacy.learners.base import (
    LearnerAuditCase,
    PrivacyClaim,
    PrivateLearner,
    check_dataset,
)

if TYPE_CHECKING:       # the names, for type checkers, editors and the API reference (never run)
    from ltheory.privacy.learners.boosting import (
        BoostedStumps,
        DPOneRule,
        DPTopDown,
        LazyBB,
        OneRule,
    )
    from ltheory.privacy.learners.closure import (
        ClosureLearn,
        PrivateAgnosticLearner,
        RelabelAndLearn,
    )
    from ltheory.privacy.learners.decision_lists import (
        PrivateDecisionListLearner,
        RivestDecisionListLearner,
    )
    from ltheory.privacy.learners.exponential import ExponentialMechanismLearner
    from ltheory.privacy.learners.globally_stable import GloballyStableLearner, StableHistogram
    from ltheory.privacy.learners.multiplicative_weights import PrivateMultiplicativeWeights
    from ltheory.privacy.learners.winnow import ConfidentWinnow, DPWinnow

#: public name -> module (inside this package) that defines it
_LEARNERS: dict[str, str] = {
    "ExponentialMechanismLearner": "exponential",
    "PrivateDecisionListLearner": "decision_lists",
    "RivestDecisionListLearner": "decision_lists",
    "DPWinnow": "winnow",
    "ConfidentWinnow": "winnow",
    "PrivateMultiplicativeWeights": "multiplicative_weights",
    "LazyBB": "boosting",
    "DPOneRule": "boosting",
    "DPTopDown": "boosting",
    "OneRule": "boosting",
    "BoostedStumps": "boosting",
    "GloballyStableLearner": "globally_stable",
    "StableHistogram": "globally_stable",
    "RelabelAndLearn": "closure",
    "PrivateAgnosticLearner": "closure",
    "ClosureLearn": "closure",
}

__all__ = ["LearnerAuditCase", "PrivacyClaim", "PrivateLearner", "audit_cases",
           "check_dataset", "ExponentialMechanismLearner", "PrivateDecisionListLearner",
           "RivestDecisionListLearner", "DPWinnow", "ConfidentWinnow",
           "PrivateMultiplicativeWeights", "LazyBB", "DPOneRule", "DPTopDown", "OneRule",
           "BoostedStumps", "GloballyStableLearner", "StableHistogram", "RelabelAndLearn",
           "PrivateAgnosticLearner", "ClosureLearn"]     # the tests check it lists _LEARNERS


def __getattr__(name: str) -> Any:
    module = _LEARNERS.get(name)
    if module is None:
        raise AttributeError(f"module 'ltheory.privacy.learners' has no attribute {name!r}")
    return getattr(importlib.import_module(f"ltheory.privacy.learners.{module}"), name)


def audit_cases() -> list[LearnerAuditCase]:
    """Every learner module's AUDIT_CASES (modules not written yet are skipped)."""
    out: list[LearnerAuditCase] = []
    for module in sorted(set(_LEARNERS.values())):
        try:
            mod = importlib.import_module(f"ltheory.privacy.learners.{module}")
        except ModuleNotFoundError as exc:
            if exc.name == f"ltheory.privacy.learners.{module}":
                continue
            raise
        out.extend(getattr(mod, "AUDIT_CASES", ()))
    return out
