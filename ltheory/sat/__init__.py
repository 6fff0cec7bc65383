"""SAT encodings and certified searches for composed and explicit classes (python-sat).

See :mod:`ltheory.sat.encode` (CNF encodings), :mod:`ltheory.sat.search` (drivers with budgets)
and :mod:`ltheory.sat.certify` (witness checkers for composed classes).
"""

from ltheory.sat.certify import strip_components, verify_any, verify_composed
from ltheory.sat.search import SOLVERS, sat_littlestone, sat_threshold, sat_vc

__all__ = ["SOLVERS", "sat_littlestone", "sat_threshold", "sat_vc", "strip_components",
           "verify_any", "verify_composed"]
