"""What a privacy test returns or raises: ``PrivacyTestReport``, ``PrivacySearchReport`` and the
``PrivacyViolation`` assertion error that carries one of them."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from ltheory.jsonable import to_jsonable


def _short(d: Any, limit: int = 60) -> str:
    s = repr(d)
    return s if len(s) <= limit else s[: limit - 1] + "…"


@dataclass(frozen=True)
class PrivacyTestReport:
    """The outcome of ``assert_private`` on one neighbouring pair.

    ``verdict`` is ``"violation"`` (the claim is refuted: the probability that this happens to a
    mechanism that satisfies its claim is at most ``false_alarm``, however early the test stopped)
    or ``"passed"`` (no violation found within ``max_runs``; this is not a proof of privacy);
    in a search, a pair left unfinished when another pair was refuted is ``"stopped"``.
    ``epsilon_lower_bound`` is set on a violation: the true ε at the claimed δ exceeds it, with
    the same confidence.  ``runs_used`` counts every run of the mechanism drawn (both datasets,
    event selection included); ``runs_to_decision`` the runs up to the pair at which the test
    crossed (equal to ``runs_used`` when it passed).  ``log10_e_value`` is the final evidence
    against the claim (the test rejects at ``log10(1/false_alarm)``; betting method).
    ``stats``: how many times an event was chosen, and on how many looks the betting test
    bet nothing (its event had not beaten the claim on the selection runs).  ``counts``: on
    the last (deciding) batch, the runs of each dataset whose output fell in the event, keyed
    ``"d0"`` and ``"d1"``, and ``"n"`` the runs per dataset; ``observed_epsilon`` the point
    estimate they give on a violation (``inf``: the event never occurred on one dataset).
    ``claim`` is the claim tested (``to_json()``); for a curve claim, tested at several points
    (``stats["points"]``), ``claimed_epsilon`` and ``claimed_delta`` are the point with the most
    evidence against it (the refuted point on a violation, ``refuted_at``), and
    ``log10_e_value`` is that of the points' average e-process.
    """

    mechanism: str
    d0: Any
    d1: Any
    claimed_epsilon: float
    claimed_delta: float
    false_alarm: float
    method: str
    verdict: str
    epsilon_lower_bound: float | None
    event: str
    direction: str
    counts: dict
    log10_e_value: float | None
    runs_used: int
    runs_to_decision: int
    max_runs: int
    looks: int
    exact_epsilon: float | None
    seed: int | None
    seconds: float
    notes: tuple[str, ...] = ()
    stats: dict = field(default_factory=dict)
    #: ln((p̂_a − δ)/p̂_b) on the deciding batch's counts (``inf`` when the event never occurred
    #: on d_b: the observed ratio is unbounded); a point estimate, not a bound.
    observed_epsilon: float | None = None
    #: the claim tested, as ``PrivacyClaim.to_json()`` (an (ε, δ) call: ``approx_dp`` /
    #: ``pure_dp``)
    claim: dict = field(default_factory=dict)
    #: on a violation: where the claim is refuted — ``epsilon`` (the checked point with the most
    #: evidence), ``claimed_delta`` (the claim's δ(ε) there), ``certified_delta`` (a lower
    #: bound on the mechanism's hockey-stick divergence at that ε, holding with probability ≥
    #: 1 − false_alarm; None when that point alone is not yet resolved at the level it needs)
    #: and ``exact_delta`` (from ``output_distribution``, when the mechanism offers it); for a
    #: curve claim also ``point`` — ``"fixed"`` (a point of the fixed cover) or ``"data-chosen"``
    #: (the point moved to where the gap looked largest, ``claim_points``) — and
    #: ``observed_delta``, p̂_a − e^ε p̂_b on the deciding batch (a point estimate)
    refuted_at: dict | None = None
    #: the deciding event is on the bits of float outputs (``auditing.floating``): a violation
    #: of the mechanism as implemented in floating point (its first note names the fix)
    floating_point: bool = False

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["notes"] = list(self.notes)
        return to_jsonable(d)

    def dumps(self, **kw: Any) -> str:
        """`to_json` as a JSON string (``json.dumps`` keywords pass through)."""
        return json.dumps(self.to_json(), ensure_ascii=False, **kw)

    @property
    def curve_claim(self) -> bool:
        """Whether the claim was checked at several points (not an (ε, δ) pair)."""
        return self.claim.get("kind", "approx_dp") not in ("approx_dp", "pure_dp")

    def summary(self) -> str:
        """One line: verdict, bound, runs, seconds."""
        claim = f"ε={self.claimed_epsilon:g}" + (f", δ={self.claimed_delta:g}"
                                                 if self.claimed_delta else "")
        if self.curve_claim:
            from ltheory.testing.claim_points import claim_label
            claim = claim_label(self.claim)
        if self.verdict == "violation":
            b = self.epsilon_lower_bound
            bound = f"certified ε > {b:.4g}" if b is not None else "claim refuted"
            r = self.refuted_at
            if self.curve_claim and r:
                bound = f"refuted at ε={r['epsilon']:.4g}"
            kind = "FLOATING-POINT VIOLATION" if self.floating_point else "VIOLATION"
            return (f"{self.mechanism}: {kind} of ({claim}): {bound} "
                    f"(false alarm ≤ {self.false_alarm:g}) after {self.runs_to_decision:,} runs, "
                    f"{self.seconds:.2f} s")
        ev = "" if self.log10_e_value is None else f", e-value 10^{self.log10_e_value:.2f}"
        return (f"{self.mechanism}: passed ({claim}): no violation in {self.runs_used:,} runs"
                f"{ev}, {self.seconds:.2f} s")

    def counts_line(self) -> str:
        """The deciding batch's counts, each named by its dataset."""
        c = self.counts
        if not c or "n" not in c:
            return "  counts: none (no event was tested)"
        per = ", ".join(f"M({d}) in E {c[d]:,} times" for d in ("d0", "d1") if d in c)
        return f"  counts on the deciding batch ({c['n']:,} runs on each dataset): {per}"

    def ratio_line(self) -> str | None:
        """The observed ratio: "unbounded" when the event never occurred on one side."""
        o = self.observed_epsilon
        if o is None:
            return None
        if math.isinf(o):
            never = " or ".join(d for d in ("d0", "d1") if self.counts.get(d) == 0)
            return (f"  observed ratio: unbounded (E never occurred on {never}): no finite ε "
                    f"explains these counts; more runs raise the certified bound")
        return (f"  observed ε on these counts: {o:.4g} (a point estimate; the certified "
                f"bound is the sound one)")

    def refuted_line(self) -> str:
        """Where the claim is refuted: ε, the certified δ there against the claimed δ(ε), the
        two δ with the fewest significant digits (at least 4, at most 17) that show how they
        compare (a certified δ just above the claimed one never reads as equal to it)."""
        r = self.refuted_at or {}
        cert = r.get("certified_delta")
        claimed = r.get("claimed_delta", float("nan"))
        shown_claimed = f"{claimed:.4g}"
        if cert is not None:
            shown_cert, shown_claimed = distinct_digits(cert, claimed)
            got = f"certified δ(ε) > {shown_cert}"
        else:
            got = ("certified δ(ε): not resolved at this point alone (the points' e-processes "
                   "together refute the claim)")
        ex = r.get("exact_delta")
        exact = f"; exact δ(ε) = {ex:.4g}" if ex is not None else ""
        kind = {"fixed": " (a fixed point of the cover)",
                "data-chosen": " (the data-chosen point: the ε where the gap looked largest on "
                               "earlier runs)"}.get(r.get("point", ""), "")
        obs = r.get("observed_delta")
        seen = (f"; observed on the deciding batch: {obs:.4g} (a point estimate)"
                if obs is not None and r.get("point") else "")
        return (f"  refuted at ε = {r.get('epsilon', float('nan')):.4g}{kind}: {got}, claimed "
                f"δ(ε) = {shown_claimed}{exact}{seen}")

    def message(self) -> str:
        """The full text of a ``PrivacyViolation``."""
        lines = [self.summary(),
                 f"  pair: d0={_short(self.d0)}  d1={_short(self.d1)}"]
        if self.refuted_at:
            lines.append(self.refuted_line())
        lines += [f"  event E: {self.event}", f"  violated: {self.direction}",
                  self.counts_line()]
        ratio = self.ratio_line()
        if ratio:
            lines.append(ratio)
        lines.append(f"  method: {self.method}; seed: {self.seed}; runs drawn: "
                     f"{self.runs_used:,}")
        if self.exact_epsilon is not None and math.isfinite(self.exact_epsilon):
            lines.append(f"  exact ε at this pair (from output_distribution): "
                         f"{self.exact_epsilon:.4g}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def distinct_digits(a: float, b: float, least: int = 4) -> tuple[str, str]:
    """``a`` and ``b`` formatted (``g``) with the fewest significant digits, from ``least`` up
    to 17, at which the printed values compare as the values do (17 digits print any float
    exactly, so a and b equal print equal and nothing else does).

    Examples:
        >>> distinct_digits(1.00000123e-5, 1e-5)
        ('1.000001e-05', '1e-05')
        >>> distinct_digits(0.25, 0.125)
        ('0.25', '0.125')
    """
    def cmp(x: float, y: float) -> int:
        return (x > y) - (x < y)

    want = cmp(a, b)
    for n in range(least, 18):
        sa, sb = f"{a:.{n}g}", f"{b:.{n}g}"
        if not (math.isfinite(a) and math.isfinite(b)) or cmp(float(sa), float(sb)) == want:
            return sa, sb
    return f"{a:.17g}", f"{b:.17g}"


@dataclass(frozen=True)
class PrivacySearchReport:
    """The outcome of ``assert_private_search``: one ``PrivacyTestReport`` per pair tried, each
    tested at ``false_alarm / pairs_tried`` (Bonferroni), so the probability of any false alarm
    over all pairs is at most ``false_alarm``.  The top-level fields describe the refuted pair on
    a violation, else the pair with the most evidence against the claim."""

    verdict: str
    claimed_epsilon: float
    claimed_delta: float
    false_alarm: float
    pairs_tried: int
    pairs_considered: int
    worst: PrivacyTestReport
    pairs: tuple[PrivacyTestReport, ...]
    runs_used: int
    seconds: float
    notes: tuple[str, ...] = ()
    #: the claim tested, as ``PrivacyClaim.to_json()``
    claim: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    @property
    def refuted_at(self) -> dict | None:
        return self.worst.refuted_at

    @property
    def epsilon_lower_bound(self) -> float | None:
        return self.worst.epsilon_lower_bound

    @property
    def event(self) -> str:
        return self.worst.event

    def to_json(self) -> dict[str, Any]:
        return to_jsonable({"verdict": self.verdict, "claimed_epsilon": self.claimed_epsilon,
                          "claimed_delta": self.claimed_delta, "claim": self.claim,
                          "false_alarm": self.false_alarm,
                          "pairs_tried": self.pairs_tried,
                          "pairs_considered": self.pairs_considered,
                          "runs_used": self.runs_used, "seconds": self.seconds,
                          "notes": list(self.notes), "worst": self.worst.to_json(),
                          "pairs": [p.to_json() for p in self.pairs]})

    def dumps(self, **kw: Any) -> str:
        """`to_json` as a JSON string."""
        return json.dumps(self.to_json(), ensure_ascii=False, **kw)

    def summary(self) -> str:
        if self.verdict == "violation":
            return (f"{self.worst.summary()} [search: {self.pairs_tried} pairs tried, false "
                    f"alarm ≤ {self.false_alarm:g} over all of them, {self.runs_used:,} runs]")
        return (f"{self.worst.mechanism}: passed on all {self.pairs_tried} pairs "
                f"({self.runs_used:,} runs, {self.seconds:.2f} s)")

    def message(self) -> str:
        return f"{self.summary()}\n{self.worst.message()}"


class PrivacyViolation(AssertionError):
    """A privacy claim was refuted; ``.report`` is the ``PrivacyTestReport`` (or
    ``PrivacySearchReport``) with the certified bound, the event and the runs used."""

    def __init__(self, report: PrivacyTestReport | PrivacySearchReport) -> None:
        super().__init__(report.message())
        self.report = report
