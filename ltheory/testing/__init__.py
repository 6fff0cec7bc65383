"""Statistical privacy tests for CI: ``assert_private``, ``assert_private_search`` and a pytest
plugin (``ltheory.testing.pytest_plugin``).

>>> from ltheory.testing import assert_private
>>> from ltheory.privacy.mechanisms import RandomizedResponse
>>> assert_private(RandomizedResponse(1.0), ((0, 0),), ((0, 1),), epsilon=1.0).verdict
'passed'
"""

from ltheory.testing.assertions import (
    DEFAULT_MAX_RUNS,
    assert_private,
    assert_private_search,
    min_runs_to_reject,
)
from ltheory.testing.report import PrivacySearchReport, PrivacyTestReport, PrivacyViolation

__all__ = [
    "DEFAULT_MAX_RUNS",
    "PrivacySearchReport",
    "PrivacyTestReport",
    "PrivacyViolation",
    "assert_private",
    "assert_private_search",
    "min_runs_to_reject",
]
