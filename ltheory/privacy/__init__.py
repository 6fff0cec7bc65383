"""Auditing differential-privacy claims of mechanisms and learners (see DESIGN.md).

``from ltheory.privacy import audit`` — the sound ε lower bound of a neighbouring pair;
``audit_search`` — find and audit the worst neighbouring pair near a dataset (``total_runs=``:
within one budget, planned by ``search_plan``);
``audit_worst_case`` — search all datasets of size n of a learner for its worst pair (exact ε
where the learner exposes its output distribution, pilot audits otherwise) and certify it;
``ltheory.privacy.mechanisms`` — vectorised mechanisms with their claims (and incorrect variants
as negative controls).
"""

from ltheory.privacy.auditing.core import AuditReport, audit, min_runs
from ltheory.privacy.auditing.outputs import MechanismError
from ltheory.privacy.auditing.plan import SearchPlan, search_plan
from ltheory.privacy.auditing.search import SearchReport, audit_search
from ltheory.privacy.auditing.worst_case import WorstCaseReport, audit_worst_case

__all__ = ["AuditReport", "MechanismError", "SearchPlan", "SearchReport", "WorstCaseReport",
           "audit", "audit_search", "audit_worst_case", "min_runs", "search_plan"]
