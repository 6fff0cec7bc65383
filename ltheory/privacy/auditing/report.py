"""The result of an audit: [`AuditReport`][ltheory.privacy.AuditReport], a frozen value that
serialises to JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ltheory.jsonable import to_jsonable

__all__ = ["AuditReport", "inequality"]


def inequality(direction: int) -> str:
    """The inequality an event of ``direction`` tests: direction 0 means the event is more
    likely under d0, so it bounds ``P[M(d0) ∈ E] ≤ e^ε·P[M(d1) ∈ E] + δ``."""
    a, b = ("d0", "d1") if direction == 0 else ("d1", "d0")
    return f"P[M({a}) in E] <= e^eps * P[M({b}) in E] + delta"


@dataclass(frozen=True)
class AuditReport:
    """The result of ``audit`` (or ``certify_pair``).  Non-finite numbers serialise as the
    strings "inf"/"-inf".

    ``direction`` is 0 when the reported event is more likely under d0 (the certified
    inequality is `inequality`), 1 when under d1.  ``counts["certification"]`` holds the
    reported event's counts on each dataset, ``counts["per_event"]`` every certified event's
    (``more_likely_under`` is "d0" or "d1").  ``verdict`` is "violation" when the certified
    bound exceeds the claimed ε, "consistent" otherwise, and "none" for a claim-free
    certification (``certify_pair``, ``claimed_epsilon`` None).  ``floating_point`` is True
    when the reported event is about the bits of float outputs (``floating``): a violation is
    then a *floating-point violation* (its note says so and names the fix).  ``partial`` is
    True when the time budget (``AuditConfig.time_budget``) was reached: ``runs`` are those
    actually used, the first note says where the budget ran out, and the bound is certified on
    the runs counted (the trivial 0 with ``events_certified`` 0 when no event could be chosen)."""

    mechanism: str
    claimed_epsilon: float | None
    claimed_delta: float
    epsilon_lower_bound: float
    epsilon_point_estimate: float
    exact_epsilon: float | None
    exact_delta: float | None
    verdict: str
    event: str
    direction: int
    counts: dict
    p_lower: float
    p_upper: float
    runs: int
    selection_runs: int
    certification_runs: int
    alpha: float
    events_certified: int
    seed: int | None
    seconds: float
    tradeoff: tuple | None = None
    notes: tuple[str, ...] = ()
    certification_test: str = "binomial"
    chosen_event: Any = field(default=None, compare=False, repr=False)
    #: every certified event object, in ``counts["per_event"]``'s order (the reported one is
    #: ``chosen_event``; each event's counts and bound are in ``counts["per_event"]``)
    certified_events: tuple = field(default=(), compare=False, repr=False)
    #: the settings the audit ran with (``AuditConfig.to_json``), where it ran from a config
    settings: dict | None = field(default=None, compare=False)
    #: the reported event is on the bits of float outputs (``floating``), not their values
    floating_point: bool = False
    #: the time budget was reached: the bound is certified on the runs actually counted
    #: (``runs``, ``certification_runs``), the notes say where (``budget``)
    partial: bool = False

    @property
    def inequality(self) -> str:
        """The certified inequality in words (from `direction`)."""
        return inequality(self.direction)

    def with_claim(self, claimed_epsilon: float, exact_delta: float | None = None,
                   note: str | None = None) -> AuditReport:
        """The same certification judged against the claim ε = ``claimed_epsilon`` (the bound
        does not depend on the claim; only the verdict does)."""
        verdict = "violation" if self.epsilon_lower_bound > claimed_epsilon else "consistent"
        notes = self.notes + ((note,) if note else ())
        if self.floating_point and verdict == "violation" and self.chosen_event is not None \
                and not any(n.startswith("floating-point violation") for n in notes):
            from ltheory.privacy.auditing.floating import violation_note
            notes = (violation_note(self.chosen_event, self.epsilon_lower_bound),) + notes
        return replace(self, claimed_epsilon=float(claimed_epsilon), exact_delta=exact_delta,
                       verdict=verdict, notes=notes)

    def to_json(self) -> dict:
        """The report as a JSON-ready dict (the event objects are left out; ``event`` and
        ``counts["per_event"]`` describe them; ``inequality`` spells out ``direction``)."""
        d = asdict(replace(self, chosen_event=None, certified_events=()))  # no deep copies
        d.pop("chosen_event")
        d.pop("certified_events")
        d["inequality"] = self.inequality
        return to_jsonable(d)

    def dumps(self, **kw: Any) -> str:
        """[`to_json`][ltheory.privacy.AuditReport.to_json] as a JSON string (``json.dumps``
        keywords pass through)."""
        return json.dumps(self.to_json(), ensure_ascii=False, **kw)
