"""Auditing differential-privacy claims of mechanisms and learners.

``from ltheory.privacy import audit`` — the sound ε lower bound of a neighbouring pair;
``audit_curve`` — certified lower bounds on the whole privacy profile δ(ε) (and trade-off
curve) of a pair, judged against a claimed curve (``ltheory.privacy.claims``);
``audit_scores`` — a sound ε lower bound from canary scores of training runs, many runs
(one score per run) or one run (many canaries with randomised inclusion);
``audit_search`` — find and audit the worst neighbouring pair near a dataset (``total_runs=``:
within one budget, planned by ``search_plan``);
``audit_worst_case`` — search all datasets of size n of a learner for its worst pair (exact ε
where the learner exposes its output distribution, pilot audits otherwise) and certify it;
``ltheory.privacy.mechanisms`` — vectorised mechanisms with their claims (and incorrect variants
as negative controls);
``ltheory.privacy.claims`` — privacy claims as objects with their privacy profile δ(ε):
``PureDP``, ``ApproxDP``, ``ZCDP``, ``RDP``, ``GDP``, ``ProfileClaim`` (a callable or a
dp-accounting accountant), and ``as_claim``.
"""

from ltheory.privacy.auditing import (
    AuditConfig,
    AuditReport,
    CurveReport,
    DistributionMismatchWarning,
    MechanismError,
    ScoreAuditReport,
    SearchConfig,
    SearchPlan,
    SearchReport,
    Target,
    TooFewRunsError,
    WorstCaseConfig,
    WorstCaseReport,
    as_target,
    audit,
    audit_curve,
    audit_scores,
    audit_search,
    audit_worst_case,
    certify_pair,
    inclusion_mask,
    min_runs,
    search_plan,
)
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

__all__ = ["GDP", "RDP", "ZCDP", "ApproxDP", "AuditConfig", "AuditReport", "CurveReport",
           "DistributionMismatchWarning", "MechanismError", "PrivacyClaim", "ProfileClaim",
           "PureDP", "ScoreAuditReport", "SearchConfig", "SearchPlan", "SearchReport", "Target",
           "TooFewRunsError", "WorstCaseConfig", "WorstCaseReport",
           "as_claim", "as_target", "audit", "audit_curve", "audit_scores", "audit_search",
           "audit_worst_case", "certify_pair", "claim_from_json", "inclusion_mask", "min_runs",
           "search_plan"]
