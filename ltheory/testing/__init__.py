"""Statistical privacy tests for CI: ``assert_private``, ``assert_private_search`` and a pytest
plugin (``ltheory.testing.pytest_plugin``).

The names are imported on first use (module ``__getattr__``), so that the pytest plugin, which
pytest loads in every session where ltheory is installed, does not import numpy and scipy for
test suites that never ask for its fixtures.

Examples:
    >>> from ltheory.testing import assert_private
    >>> from ltheory.privacy.mechanisms import RandomizedResponse
    >>> assert_private(RandomizedResponse(1.0), ((0, 0),), ((0, 1),), epsilon=1.0).verdict
    'passed'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:       # the names, for type checkers, editors and the API reference (never run)
    from ltheory.testing.assertions import (
        DEFAULT_MAX_RUNS,
        assert_private,
        assert_private_search,
        min_runs_to_reject,
    )
    from ltheory.testing.budget import BudgetWarning, runs_to_detect
    from ltheory.testing.conformance import (
        ConformanceError,
        ConformanceReport,
        check_mechanism,
    )
    from ltheory.testing.report import PrivacySearchReport, PrivacyTestReport, PrivacyViolation

_EXPORTS = {
    "BudgetWarning": "budget",
    "DEFAULT_MAX_RUNS": "assertions",
    "assert_private": "assertions",
    "assert_private_search": "assertions",
    "min_runs_to_reject": "assertions",
    "runs_to_detect": "budget",
    "PrivacySearchReport": "report",
    "PrivacyTestReport": "report",
    "PrivacyViolation": "report",
    "ConformanceError": "conformance",
    "ConformanceReport": "conformance",
    "check_mechanism": "conformance",
}

__all__ = ["BudgetWarning", "ConformanceError", "ConformanceReport", "DEFAULT_MAX_RUNS",
           "PrivacySearchReport", "PrivacyTestReport", "PrivacyViolation", "assert_private",
           "assert_private_search", "check_mechanism", "min_runs_to_reject", "runs_to_detect"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        mod = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
        return getattr(mod, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
