"""The auditor (docs/reference/auditor.md): event selection, confidence bounds, exact mode,
neighbour search and executors.  (Named ``auditing`` so that ``ltheory.privacy.audit`` stays the
function of the public API.)"""

from ltheory.privacy.auditing.config import AuditConfig
from ltheory.privacy.auditing.core import (
    AuditReport,
    TooFewRunsError,
    audit,
    certify_pair,
    min_runs,
)
from ltheory.privacy.auditing.curve import CurveReport, audit_curve
from ltheory.privacy.auditing.exact import DistributionMismatchWarning
from ltheory.privacy.auditing.outputs import MechanismError
from ltheory.privacy.auditing.plan import SearchPlan, search_plan
from ltheory.privacy.auditing.scores import ScoreAuditReport, audit_scores, inclusion_mask
from ltheory.privacy.auditing.search import SearchConfig, SearchReport, audit_search
from ltheory.privacy.auditing.target import Target, as_target
from ltheory.privacy.auditing.worst_case import WorstCaseConfig, WorstCaseReport, audit_worst_case

__all__ = ["AuditConfig", "AuditReport", "CurveReport", "DistributionMismatchWarning",
           "MechanismError", "ScoreAuditReport", "SearchConfig", "SearchPlan", "SearchReport",
           "Target", "TooFewRunsError", "WorstCaseConfig", "WorstCaseReport",
           "as_target", "audit", "audit_curve", "audit_scores", "audit_search",
           "audit_worst_case", "certify_pair", "inclusion_mask", "min_runs", "search_plan"]
