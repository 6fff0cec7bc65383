"""Auditing differential-privacy claims of mechanisms and learners (see DESIGN.md).

``from ltheory.privacy import audit`` — the sound ε lower bound of a neighbouring pair;
``audit_search`` — find and audit the worst neighbouring pair; ``ltheory.privacy.mechanisms`` —
vectorised mechanisms with their claims (and incorrect variants as negative controls).
"""

from ltheory.privacy.auditing.core import AuditReport, audit, min_runs
from ltheory.privacy.auditing.outputs import MechanismError
from ltheory.privacy.auditing.search import SearchReport, audit_search

__all__ = ["AuditReport", "MechanismError", "SearchReport", "audit", "audit_search", "min_runs"]
