"""SAT encodings and certified searches for composed and explicit classes (python-sat).

See `ltheory.sat.encode` (CNF encodings), `ltheory.sat.search` (drivers with budgets)
and `ltheory.sat.certify` (witness checkers for composed classes).  The checkers need no SAT
solver; the drivers are imported on first use, so ``ltheory.sat.certify`` works without
python-sat.
"""

from __future__ import annotations

import importlib
from typing import Any

from ltheory.sat.certify import strip_components, verify_any, verify_composed

_SEARCH = ("SOLVERS", "sat_littlestone", "sat_threshold", "sat_vc")

__all__ = [*_SEARCH, "strip_components", "verify_any", "verify_composed"]


def __getattr__(name: str) -> Any:
    if name in _SEARCH:
        return getattr(importlib.import_module("ltheory.sat.search"), name)
    raise AttributeError(f"module 'ltheory.sat' has no attribute {name!r}")
