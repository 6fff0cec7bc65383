"""Curve audits: certified lower bounds on a mechanism's whole privacy profile, judged against a
claimed curve.

A claim such as ρ-zCDP, μ-GDP or an accountant's output allows a whole *privacy profile*
``δ_claim(ε)`` (``ltheory.privacy.claims``); the mechanism satisfies it at a pair (d0, d1) iff its
hockey-stick divergence ``H_{e^ε}(M(d_a) ‖ M(d_b)) = sup_E P_a(E) − e^ε P_b(E)`` is at most
``δ_claim(ε)`` at every ε ≥ 0 in both directions (Balle, Barthe & Gaboardi 2018, Definition 3).
[`audit_curve`][ltheory.audit_curve] runs the stages of ``core.run_audit`` (target → split →
selection →
certification → report; the same public stages of `stages`:
runner, executors, seed streams, run split, exact distributions) with two changes:

* **selection** (selection split only) — every candidate event of ``events.select_events``'
  families (thresholds on the output or scores, likelihood-ratio prefixes of cells) is projected
  to its certified pair ``(p_a,lower, p_b,upper)`` at the certification size
  (``projection.projected_interval``).  ``k`` events are chosen (``AuditConfig.events``,
  default `EVENTS`): the *lead*, best by *margin* over the claim, ``max_ε p_a,lower −
  e^ε p_b,upper − δ_claim(ε)`` (where the claim is most at risk), then the best extreme event
  (an atom or an isolated tail, ``events.AtomEncoder`` / ``events.isolated_cuts``), then the
  best projected ``ε_lb(δ)`` at each δ of the δ grid (small δ needs rare, extreme events: one
  per decade spreads them over the curve), then more by margin; duplicates are skipped.  The
  threshold cuts include the extreme order statistics (``events.threshold_grid``), so the
  rarest candidate holds one selection run.
* **certification** — each event's two one-sided Clopper–Pearson bounds at its level of
  `event_levels`: α·`LEAD_SHARE`/2 for the lead, the rest of α shared equally by
  the others (weighted Bonferroni over 2k bounds, k and the weights fixed on the selection
  split).  With probability ≥ 1 − α all 2k bounds hold at once, and then, **for every ε
  simultaneously**,

      ``δ_lb(ε) = max_E max(p_a,lower(E) − e^ε p_b,upper(E),
      (1 − p_b,upper(E)) − e^ε (1 − p_a,lower(E)))  ≤  H_{e^ε}(M(d0) ‖ M(d1)) (either direction)``

  (the second term is the complement of E, read in the other direction, free from the same
  bounds), and ``ε_lb(δ) = max_E ln((p_a,lower − δ)/p_b,upper)`` for every δ at once.  No
  multiplicity over ε or δ is paid: the bounds are on the events' probabilities, not on ε.
* **trade-off** (f-DP; Dong, Roth & Su 2022) — each (event, direction) is a test rejecting
  ``M(d_b)`` on E with type I error ``α_E = P_b(E) ≤ p_b,upper`` and type II error
  ``β_E = 1 − P_a(E) ≤ 1 − p_a,lower``; the trade-off curve T of the pair is non-increasing and
  convex, so ``T ≤ U``, the lower convex hull of these certified points with (0, 1) and (1, 0)
  (the *certified envelope*, a lower bound on privacy loss in f-DP terms).  A claimed
  trade-off f (``claim.tradeoff`` where the claim has one, else the one implied by its profile,
  Dong, Roth & Su 2022, Proposition 2.12, `profile_tradeoff`) with ``f(α) > U(α)`` somewhere
  is refuted; f − U is convex on each segment of U, so the hull's vertices are checked.
* **verdict** — ``"violation"`` iff some certified point lies above the claimed profile:
  ``gap = max_ε δ_lb(ε) − δ_claim(ε) > 0``, maximised over ε continuously (a grid, then
  zooming into the best grid points, bounded Brent polish), reported with its ε and
  event.  A plain (ε, δ) claim is read by ``claims.as_claim``.

With ``output_distribution`` the report carries the exact curve (``exact.delta_of_epsilon``
on the ε grid, ``exact.exact_epsilon`` on the δ grid) and the ratio certified/exact ε.

Examples:
    >>> from ltheory.privacy.mechanisms import RandomizedResponse
    >>> r = audit_curve(RandomizedResponse(1.0), 0, 1, claim=(0.5, 0.0), runs=200_000, seed=0)
    >>> r.verdict, r.gap > 0, round(r.gap_epsilon, 2)
    ('violation', True, 0.5)
    >>> ok = audit_curve(RandomizedResponse(1.0), 0, 1, claim=1.0, runs=200_000, seed=0)
    >>> ok.verdict, all(b <= x + 1e-12 for b, x in zip(ok.delta_lower_bound, ok.delta_exact))
    ('consistent', True)
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar

from ltheory.blas import one_blas_thread
from ltheory.errors import InvalidInputError
from ltheory.jsonable import to_jsonable
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.budget import Deadline
from ltheory.privacy.auditing.config import AuditConfig
from ltheory.privacy.auditing.events import (
    EXTREME_FAMILIES,
    Candidate,
    SelectionRule,
    candidate_families,
    credible_positions,
    extreme_positions,
)
from ltheory.privacy.auditing.floating import is_float_event, violation_note
from ltheory.privacy.auditing.neighbours import check_neighbours
from ltheory.privacy.auditing.outputs import Batch
from ltheory.privacy.auditing.projection import (
    certified_interval,
    hockey_stick_lower,
    projected_interval,
    shrunk,
)
from ltheory.privacy.auditing.stages import (
    MAX_RUNS,
    MIN_SELECTION,
    Runner,
    RunSplit,
    budget_note,
    consistency_notes,
    event_sides,
    few_outputs,
    fit_split,
    output_distributions,
    plan_split,
    seed_streams,
)
from ltheory.privacy.auditing.target import as_target
from ltheory.privacy.claims import PrivacyClaim, as_claim, checked_delta
from ltheory.validation import check_int, check_level

__all__ = ["DELTAS", "EVENTS", "CurveReport", "audit_curve", "certified_epsilon", "lower_hull",
           "profile_tradeoff"]

#: Seconds the curve's event selection takes per selection run under a time budget
#: (``stages.Runner.sample``): measured 1.2e-5 on the Laplace mechanism at 6e5 runs, with margin.
CURVE_SELECT_SECONDS = 2e-5
#: Events certified by default (Bonferroni over 2·EVENTS Clopper–Pearson bounds).
EVENTS = 8
#: The δ grid: ε_lb(δ) is reported there, and one event is chosen per δ.
DELTAS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)
#: ε points of the selection's margin grid and of the per-event gap search.
SELECT_GRID = 256
GAP_GRID = 512
#: points of the default reported ε grid
EPSILON_POINTS = 41
#: The selection shrinkage of ``selection_shrink="auto"`` for a curve audit (outputs that are
#: not few; few outputs keep ``config.LEAN_SHRINK``): one standard error rather than the scalar
#: audit's 98% bound.  The margin over a claim is a difference of two probabilities, and the
#: 98% shrinkage ranked it too noisily: half-σ Gaussian (claim (1, 1e-5)) at 10^6 runs, 20 seeds,
#: 17 violations found at 0.02 against 20 at 0.16; the tight Gaussian's certified ε(δ) at 10^7
#: runs unchanged within ±0.02 (``benchmarks/bench_curve_audit.py``).
CURVE_SHRINK = 0.16
#: The share of α spent on the *lead* event — the first chosen, the one most at risk by
#: margin over the claim, which decides the verdict; the other k − 1 events share the rest
#: equally (a weighted Bonferroni split, fixed on the selection split: the 2k bounds fail
#: together with probability at most α).  With α/(2k) each, a violation carried by one
#: frequent event needed (z_{α/16}/z_{α/2})² ≈ 1.9 times the runs of that event alone; at
#: α/4 per bound, 1.3 times (the violation zoo, ``benchmarks/bench_zoo.py``).
LEAD_SHARE = 0.5


def event_levels(alpha: float, k: int) -> list[float]:
    """The level of each one-sided bound of the k certified events (`LEAD_SHARE`):
    ``α·LEAD_SHARE/2`` for the first, ``α(1 − LEAD_SHARE)/(2(k − 1))`` for the others; α/2
    for a single event.  They sum (times 2) to α.

    Examples:
        >>> event_levels(0.05, 1), event_levels(0.05, 3)
        ([0.025], [0.0125, 0.00625, 0.00625])
    """
    if k <= 1:
        return [alpha / 2] * max(k, 0)
    rest = alpha * (1 - LEAD_SHARE) / (2 * (k - 1))
    return [alpha * LEAD_SHARE / 2] + [rest] * (k - 1)


#: The selection slot of the best extreme event — an atom (``events.AtomEncoder``) or an
#: isolated tail (``events.isolated_cuts``) — by margin.
EXTREMES = "margin, extremes"
#: The selection criterion of the lead event: margin at the lead's level.
LEAD = "margin at the lead level"


# --------------------------------------------------------------------------- inputs
def _grid(values: Any, name: str, low: float, high: float | None, closed_low: bool) -> tuple:
    """A non-empty 1-D grid of finite numbers in the range, sorted (a clear error otherwise)."""
    what = (f"a non-empty sequence of finite numbers {'>=' if closed_low else '>'} {low:g}"
            + (f" and < {high:g}" if high is not None else ""))
    try:
        a = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be {what}, got {values!r}") from None
    bad = (a.size == 0 or not np.all(np.isfinite(a))
           or np.any(a < low if closed_low else a <= low)
           or (high is not None and np.any(a >= high)))
    if bad:
        raise InvalidInputError(f"{name} must be {what}, got {values!r}")
    return tuple(float(x) for x in np.unique(a))


def _claim_delta(claim: PrivacyClaim, eps: np.ndarray) -> np.ndarray:
    """The claim's profile on ``eps``, checked to be a profile (``claims.checked_delta``)."""
    return checked_delta(claim, eps)


# --------------------------------------------------------------------------- f-DP
def profile_tradeoff(claim: PrivacyClaim, alpha: Any) -> np.ndarray:
    """The trade-off function implied by a privacy profile (Dong, Roth & Su 2022, Proposition
    2.12: a mechanism (ε, δ(ε))-DP for every ε is f-DP with
    ``f(α) = sup_ε max(0, 1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α))``).  The supremum is taken
    over a grid of ε (dense on [0, 5], then to 50), so the value is at most the true f: a
    violation judged on it is never spurious.

    Examples:
        >>> from ltheory.privacy.claims import PureDP
        >>> a = 0.2; e = math.e
        >>> f = float(profile_tradeoff(PureDP(1.0), a))
        >>> round(f, 6) == round(max(1 - e * a, (1 - a) / e), 6)
        True
    """
    a = np.atleast_1d(np.asarray(alpha, dtype=float))
    eps = np.unique(np.concatenate([np.linspace(0, 5, 2001), np.linspace(5, 50, 451)]))
    d = _claim_delta(claim, eps)
    out = np.zeros(a.shape)
    for lo in range(0, a.size, 256):
        aa = a[lo:lo + 256, None]
        t1 = 1 - d[None, :] - np.exp(eps)[None, :] * aa
        t2 = np.exp(-eps)[None, :] * (1 - d[None, :] - aa)
        out[lo:lo + 256] = np.maximum(0.0, np.maximum(t1, t2).max(axis=1))
    return out.reshape(np.shape(alpha))


def _claimed_tradeoff(claim: PrivacyClaim, alpha: np.ndarray) -> tuple[np.ndarray, str]:
    """The claim's own trade-off where it states one in closed form (``GDP``: G_μ; ``ApproxDP``
    / ``PureDP``: the (ε, δ) curve; a user's class overriding ``tradeoff``), else the one its
    profile implies (`profile_tradeoff`; ``PrivacyClaim.tradeoff``, inherited by ZCDP,
    RDP and ProfileClaim, computes the same supremum on a grid)."""
    f = getattr(claim, "tradeoff", None)
    inherited = (getattr(type(claim), "tradeoff", None) is PrivacyClaim.tradeoff
                 and "tradeoff" not in getattr(claim, "__dict__", {}))
    if callable(f) and not inherited:
        return np.asarray(f(alpha), dtype=float).reshape(alpha.shape), "claim.tradeoff"
    return profile_tradeoff(claim, alpha), "profile (Dong, Roth & Su 2022, Prop. 2.12)"


def lower_hull(points: Any) -> list[tuple[float, float]]:
    """The lower convex hull of ``points`` ∪ {(0, 1), (1, 0)}, left to right (Andrew's
    monotone chain): the graph of the largest convex function on [0, 1] lying on or below
    every point.  A convex trade-off curve T (Dong, Roth & Su 2022, Proposition 2.2) with
    ``T(α_i) ≤ β_i`` at every point, ``T(0) ≤ 1`` and ``T(1) = 0`` lies below it.

    Examples:
        >>> lower_hull([(0.5, 0.5)])
        [(0.0, 1.0), (1.0, 0.0)]
        >>> lower_hull([(0.2, 0.2)])
        [(0.0, 1.0), (0.2, 0.2), (1.0, 0.0)]
    """
    pts = sorted({(0.0, 1.0), (1.0, 0.0), *((float(a), float(b)) for a, b in points)})
    hull: list[tuple[float, float]] = []
    for p in pts:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) <= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    return hull


# --------------------------------------------------------------------------- selection
@dataclass(frozen=True)
class _Chosen:
    candidate: Candidate
    why: str


def select_curve_events(s0: Batch, s1: Batch, n_cert: int, alpha: float, claim: PrivacyClaim,
                        k: int, cfg: AuditConfig, deltas: tuple[float, ...]) -> list[_Chosen]:
    """At most ``k`` events chosen on the selection split (see
    [`ltheory.privacy.auditing.curve`][ltheory.privacy.auditing.curve]): the candidate
    positions of ``events.candidate_families``, each projected to its certified pair at the
    certification size and its level (`event_levels`), ranked by margin over the claim,
    the extremes among themselves, and by ε_lb(δ) at
    each δ of ``deltas``; an event that contains the same selection runs as one already
    chosen (in the same direction) is skipped.  Credible positions (the screen of
    ``select_events``) only, when there are any."""
    few = cfg.lean_events is True or (cfg.lean_events == "auto" and few_outputs(s0, s1))
    a_lead, a_each = event_levels(alpha, max(k, 2))[:2] if k > 1 else (alpha / 2, alpha / 2)
    shrink = (cfg.shrink_for(few) if few or cfg.selection_shrink != "auto" else CURVE_SHRINK)
    rule = SelectionRule(test="binomial", structure=cfg.structure_events, lean=few,
                         shrink=shrink, screen=cfg.selection_screen,
                         arithmetic=cfg.arithmetic, tail=False)   # it scores the counts itself
    families = candidate_families(s0, s1, rule)
    for level in [shrink] + [x for x in (0.16, 0.5) if x > shrink]:
        blocks = [b for b in families(n_cert, a_each, 0.0, level) if len(b.proj)]
        if not blocks:
            return []
        lo, up = [], []
        for b in blocks:
            pa, pb = shrunk(b.ca, b.cb, b.n_ev, b.n_ev, level)
            x, y = projected_interval(pa, pb, n_cert, a_each)
            lo.append(x)
            up.append(y)
        A, B = np.concatenate(lo), np.concatenate(up)
        if np.any(A > B):
            break
    owner = np.concatenate([np.full(len(b.proj), i) for i, b in enumerate(blocks)])
    pos = np.concatenate([np.arange(len(b.proj)) for b in blocks])
    n_pos = len(A)
    cred = np.zeros(n_pos, dtype=bool)
    if cfg.selection_screen is not None:
        cred = np.concatenate([credible_positions(b.ca, b.cb, b.n_ev, 0.0,
                                                  cfg.selection_screen / n_pos) for b in blocks])
    allowed = cred if cred.any() else np.ones(n_pos, dtype=bool)
    scores = _scores(A, B, claim, deltas)
    lead = [projected_interval(*shrunk(b.ca, b.cb, b.n_ev, b.n_ev, level), n_cert, a_lead)
            for b in blocks]
    scores[LEAD] = _scores(np.concatenate([x for x, _ in lead]),
                           np.concatenate([y for _, y in lead]), claim, ())["margin"]
    # the extremes — the best atom (exact repeated outputs of a continuous output,
    # ``events.AtomEncoder``) or isolated-tail event (``events.isolated_cuts``) — have a slot
    # of their own: a far point one dataset sends a few runs to looks, on the selection
    # split, no better than the tail cut of the bulk that contains it (both show no run of
    # the other dataset), and only the certification tells them apart
    extreme = np.concatenate([np.full(len(b.proj), b.family in EXTREME_FAMILIES)
                              for b in blocks])
    scores[EXTREMES] = np.where(extreme, scores["margin"], -np.inf)
    # ... screened among themselves (a handful of positions, not the ~10^4 of every family)
    ext_cred = extreme_positions(blocks, 0.0, cfg.selection_screen)
    ext_ok = ext_cred if ext_cred.any() else extreme
    slots = [LEAD, EXTREMES] + [f"delta={d:g}" for d in deltas] + ["margin"] * k
    chosen: list[_Chosen] = []
    seen: set[tuple[int, bytes]] = set()
    orders: dict[str, np.ndarray] = {}       # per criterion: allowed positions, best first
    cursor = {name: 0 for name in scores}     # ... and how far each has been read
    for slot in slots:
        if len(chosen) >= k:
            break
        if slot not in orders:
            ok = ext_ok if slot == EXTREMES else allowed
            v = np.where(ok & np.isfinite(scores[slot]), scores[slot], -np.inf)
            order = np.argsort(-v, kind="stable")
            orders[slot] = order[np.isfinite(v[order])]
        order = orders[slot]
        i = cursor[slot]
        while i < len(order):
            j = int(order[i])
            i += 1
            c = blocks[owner[j]].make(int(pos[j]), bool(cred[j]))
            key = _fingerprint(c, s0, s1)
            if key not in seen:
                seen.add(key)
                chosen.append(_Chosen(c, "margin" if slot == LEAD else slot))
                break
        cursor[slot] = i
    return chosen


def _fingerprint(c: Candidate, s0: Batch, s1: Batch) -> tuple[int, bytes]:
    """An event as the runs of the selection split it contains, with its direction: two
    events (a threshold and a cell set, say) that agree on every selection run are one."""
    bits = np.concatenate([np.asarray(c.event.contains(s0), dtype=bool),
                           np.asarray(c.event.contains(s1), dtype=bool)])
    return c.direction, np.packbits(bits).tobytes()


def _scores(A: np.ndarray, B: np.ndarray, claim: PrivacyClaim, deltas: tuple[float, ...]
            ) -> dict[str, np.ndarray]:
    """Per position: its margin ``max_ε A − e^ε B − δ_claim(ε)`` over a grid reaching past the
    largest projected ε, and its projected ``ε_lb(δ)`` at each δ (−inf where unreachable)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = np.where((A > B) & (B > 0), np.log(A / B), np.where(A > B, 50.0, 0.0))
    top = float(min(max(reach.max(initial=0.0), 1e-3), 50.0))
    grid = np.linspace(0.0, top, SELECT_GRID)
    dc = _claim_delta(claim, grid)
    margin = np.empty(len(A))
    for lo in range(0, len(A), 4096):
        h = hockey_stick_lower(A[lo:lo + 4096], B[lo:lo + 4096], grid) - dc[None, :]
        margin[lo:lo + 4096] = h.max(axis=1)
    out = {"margin": margin}
    for d in deltas:
        with np.errstate(divide="ignore", invalid="ignore"):
            out[f"delta={d:g}"] = np.where(A > d, np.log((A - d) / B), -np.inf)
    return out


# --------------------------------------------------------------------------- report
@dataclass(frozen=True)
class CurveReport:
    """The result of [`audit_curve`][ltheory.audit_curve] (see
    [`ltheory.privacy.auditing.curve`][ltheory.privacy.auditing.curve]); a frozen value with
    [`to_json`][ltheory.CurveReport.to_json] / [`from_json`][ltheory.CurveReport.from_json].
    Non-finite numbers serialise as "inf"/"-inf".

    ``pieces`` are the certified lines ``(p_lower, p_upper)`` behind the curve, one per event
    and direction (``complement`` true for the event's complement read in the other
    direction): ``δ_lb(ε) = max(0, max_i p_lower_i − e^ε p_upper_i)`` at every ε at once,
    with probability ≥ 1 − ``alpha``
    ([`delta_lower_bound_at`][ltheory.CurveReport.delta_lower_bound_at],
    [`epsilon_lower_bound_at`][ltheory.CurveReport.epsilon_lower_bound_at]).
    ``epsilon_lower_bound`` (ε_lb at each δ of ``deltas``)
    and each event's ``certified_epsilon_at_0`` are never below 0, the trivial bound (as
    ``audit``'s ``epsilon_lower_bound``; a note names the δ where it is trivial).  ``gap`` is
    ``max_ε δ_lb(ε) − δ_claim(ε)`` over the ε where some piece is positive (``-inf`` when
    none is; a margin, not a bound, so it may be negative), at ``gap_epsilon``, from event
    ``gap_event``; ``verdict`` is "violation" iff ``gap > 0``.  ``tradeoff_points`` are the
    certified (α, β) points, ``tradeoff_envelope`` their lower convex hull with (0, 1) and
    (1, 0); ``tradeoff_gap`` is the largest ``f(α) − β`` of the claimed trade-off f over the
    envelope's vertices (``tradeoff_source`` says where f came from)."""

    mechanism: str
    claim: dict
    claim_text: str
    verdict: str
    gap: float
    gap_epsilon: float | None
    gap_event: str | None
    gap_direction: int | None
    epsilons: tuple
    delta_lower_bound: tuple
    delta_claimed: tuple
    delta_exact: tuple | None
    deltas: tuple
    epsilon_lower_bound: tuple
    epsilon_claimed: tuple
    epsilon_exact: tuple | None
    epsilon_ratio: tuple | None
    pieces: tuple
    events: tuple
    tradeoff_points: tuple
    tradeoff_envelope: tuple
    tradeoff_claimed: tuple
    tradeoff_gap: float
    tradeoff_verdict: str
    tradeoff_source: str
    alpha: float
    runs: int
    selection_runs: int
    certification_runs: int
    events_certified: int
    seed: int | None
    seconds: float
    notes: tuple = ()
    settings: dict | None = field(default=None, compare=False)
    #: the certified event objects, in ``events``' order
    certified_events: tuple = field(default=(), compare=False, repr=False)
    #: the gap's event is on the bits of float outputs (``floating``): a violation is a
    #: floating-point violation
    floating_point: bool = False
    #: the time budget (``AuditConfig.time_budget``) was reached: the curve is certified on the
    #: runs actually counted (``runs``), the first note says where (``budget``)
    partial: bool = False

    def delta_lower_bound_at(self, epsilon: Any) -> np.ndarray:
        """The certified ``δ_lb(ε)`` at any ε ≥ 0 (array in, array out)."""
        e = np.asarray(epsilon, dtype=float)
        if not self.pieces:
            return np.zeros(e.shape)
        lo = np.array([p["p_lower"] for p in self.pieces])
        up = np.array([p["p_upper"] for p in self.pieces])
        return np.maximum(0.0, hockey_stick_lower(lo, up, e).max(axis=0))

    def epsilon_lower_bound_at(self, delta: float) -> float:
        """The certified ``ε_lb(δ) = max(0, max_i ln((p_lower_i − δ)/p_upper_i))`` for δ in
        [0, 1): 0, the trivial bound, where no piece certifies a positive ε."""
        d = float(delta)
        if not 0.0 <= d < 1.0:
            raise InvalidInputError(f"delta must be in [0, 1), got {delta!r}")
        return certified_epsilon(self.pieces, d)

    def to_json(self) -> dict:
        """The report as a JSON-ready dict (event objects left out; ``events`` describe them)."""
        d = asdict(replace(self, certified_events=()))
        d.pop("certified_events")
        return to_jsonable(d)

    def dumps(self, **kw: Any) -> str:
        """[`to_json`][ltheory.CurveReport.to_json] as a JSON string (``json.dumps`` keywords pass
        through)."""
        return json.dumps(self.to_json(), ensure_ascii=False, **kw)

    @classmethod
    def from_json(cls, d: dict) -> CurveReport:
        """The report back from [`to_json`][ltheory.CurveReport.to_json] (without the event
        objects)."""
        names = {f.name for f in fields(cls)} - {"certified_events"}
        optional = {"notes", "settings", "floating_point", "partial"}
        if not isinstance(d, dict) or not names - optional \
                <= set(d):
            raise InvalidInputError("not a CurveReport JSON document (missing fields)")
        kw = {k: _from_jsonable(d[k], top=True) for k in names if k in d}
        for k in ("claim", "settings"):
            if k in d:
                kw[k] = _from_jsonable(d[k], top=False)
        return cls(**kw)


def _from_jsonable(v: Any, top: bool) -> Any:
    if isinstance(v, str) and v in ("inf", "-inf"):
        return float(v)
    if isinstance(v, list):
        return tuple(_from_jsonable(x, top) for x in v) if top else [
            _from_jsonable(x, top) for x in v]
    if isinstance(v, dict):
        return {k: _from_jsonable(x, top) for k, x in v.items()}
    return v


def certified_epsilon(pieces: Any, delta: float) -> float:
    """The certified ``ε_lb(δ) = max(0, max_i ln((p_lower_i − δ)/p_upper_i))``: never below
    the trivial bound 0 (as ``audit``'s), 0 where no piece has ``p_lower > δ`` and a ratio
    above 1, ``inf`` where a piece has ``p_upper = 0``."""
    best = 0.0
    for p in pieces:
        a, b = p["p_lower"], p["p_upper"]
        if a > delta:
            best = max(best, math.inf if b <= 0 else math.log((a - delta) / b))
    return best


def _gap(pieces: list[dict], claim: PrivacyClaim) -> tuple[float, float | None, int | None]:
    """``max_ε δ_lb(ε) − δ_claim(ε)`` over the ε where some piece is positive: every piece on
    one grid over [0, its ln(p_lower/p_upper)], the best few refined by zooming into the
    bracket around their best grid point (vectorised, ×32 finer per round), then bounded Brent
    polish of the winner; (gap, its ε, the piece) or (−inf, None, None) when no piece is
    positive."""
    lo = np.array([p["p_lower"] for p in pieces])
    up = np.array([p["p_upper"] for p in pieces])
    with np.errstate(divide="ignore", invalid="ignore"):
        tops = np.where(lo > up, np.minimum(50.0, np.log(lo / up)), 0.0)
    live = np.flatnonzero((lo > 0) & (tops > 0))
    if live.size == 0:
        return (-math.inf, None, None)
    grid = np.linspace(0.0, float(tops[live].max()), GAP_GRID)
    dc = _claim_delta(claim, grid)
    g = hockey_stick_lower(lo[live], up[live], grid) - dc[None, :]
    g = np.where(grid[None, :] <= tops[live, None], g, -np.inf)
    step = grid[1] - grid[0]
    best: tuple[float, float | None, int | None] = (-math.inf, None, None)
    for r in np.argsort(-g.max(axis=1))[:3]:
        i = int(live[r])
        e = float(grid[int(np.argmax(g[r]))])
        v, width = float(g[r].max()), step
        for _ in range(3):                       # zoom: 65 points over [e − w, e + w]
            z = np.clip(np.linspace(e - width, e + width, 65), 0.0, tops[i])
            gz = hockey_stick_lower(lo[i], up[i], z) - _claim_delta(claim, z)
            k = int(np.argmax(gz))
            if gz[k] > v:
                e, v = float(z[k]), float(gz[k])
            width *= 2 / 64
        if v > best[0]:
            best = (v, e, i)
    v, e, i = best
    a, b = float(lo[i]), float(up[i])

    def neg(x: float) -> float:
        return -(a - math.exp(x) * b - float(_claim_delta(claim, np.array([x]))[0]))

    res = minimize_scalar(neg, bounds=(max(e - width, 0.0), min(e + width, float(tops[i]))),
                          method="bounded", options={"xatol": 1e-12})
    if res.success and -res.fun > v:
        best = (float(-res.fun), float(res.x), i)
    return best


def _pieces(chosen: list[_Chosen], c0: np.ndarray, c1: np.ndarray, split: RunSplit,
            levels: list[float]) -> tuple[list[dict], list[dict]]:
    """Each event's certified interval at its level (`event_levels`), as its two lines
    (event and complement), and the events' rows for the report."""
    pieces, rows = [], []
    for i, ch in enumerate(chosen):
        d = ch.candidate.direction
        ka, kb, na, nb = event_sides(d, c0[i], c1[i], split)
        lo, up = (float(x) for x in certified_interval(ka, na, kb, nb, levels[i]))
        pieces.append({"p_lower": lo, "p_upper": up, "event": i, "direction": int(d),
                       "complement": False})
        pieces.append({"p_lower": 1.0 - up, "p_upper": 1.0 - lo, "event": i,
                       "direction": 1 - int(d), "complement": True})
        rows.append({"event": ch.candidate.event.describe(),
                     "more_likely_under": "d0" if d == 0 else "d1", "chosen_for": ch.why,
                     "d0": int(c0[i]), "d1": int(c1[i]), "p_lower": lo, "p_upper": up,
                     "level": levels[i],
                     "certified_epsilon_at_0": certified_epsilon(pieces[-2:-1], 0.0)})
    return pieces, rows


@one_blas_thread
def audit_curve(mechanism: Any, d0: Any, d1: Any, *, claim: Any, runs: int, seed: int | None,
                alpha: float = 0.05, config: AuditConfig | None = None,
                epsilons: Any = None, deltas: Any = None, **options: Any) -> CurveReport:
    """Audit the claimed privacy profile δ(ε) of ``mechanism`` at (d0, d1), the whole curve.

    Certifies k events on the runs at once, each giving a lower bound on the pair's δ at every
    ε; their maximum is a certified lower curve δ_lb(ε), wrong anywhere with probability at
    most ``alpha``.  The verdict is ``"violation"`` when δ_lb(ε) exceeds the claimed δ(ε) at
    some ε (``gap``, ``gap_epsilon``); the report also gives the certified ε at every δ of a
    grid and the trade-off curve.  The method and its sources are in
    [`ltheory.privacy.auditing.curve`][ltheory.privacy.auditing.curve].

    Args:
        mechanism: A callable ``mechanism(dataset, rng) -> output`` (see the
            [mechanism contract][ltheory.privacy.mechanisms.Mechanism]), a learner or an adapter.
        d0: One dataset of the neighbouring pair.
        d1: The other dataset.
        claim: A [`PrivacyClaim`][ltheory.PrivacyClaim] (anything with ``delta_at``), a number
            ε or a pair (ε, δ).
        runs: Total runs of the mechanism (half on each dataset).
        seed: A non-negative int; ``None`` draws fresh entropy (reported back).
        alpha: The probability that the certified curve is wrong anywhere.
        config: An [`AuditConfig`][ltheory.privacy.AuditConfig]; its ``events`` is the number k
            of events (``"auto"``: 8); the certification is always binomial.
        epsilons: The reported ε grid; default 41 points from 0 to 1.1 × the largest certified
            ε.
        deltas: The δ grid, values in [0, 1); default (10⁻¹, 10⁻², …, 10⁻⁶).  At δ = 0,
            ``ε_lb(0) = ln(p_lower/p_upper)``.  A certified ε is never below 0, the trivial
            bound (a note says where the bound is trivial).
        **options: Any field of [`AuditConfig`][ltheory.privacy.AuditConfig].  With
            ``time_budget`` (seconds for the whole call) the curve is certified on the runs
            counted once it is reached and the report says ``partial``
            ([`budget`][ltheory.privacy.auditing.budget]); the curve is the trivial 0 when no
            event could be chosen.

    Returns:
        A [`CurveReport`][ltheory.CurveReport]: the certified ``delta_lower_bound`` on the
            ``epsilons`` grid, ``epsilon_lower_bound`` on the ``deltas`` grid, the claimed and
            (where the mechanism offers ``output_distribution``) the exact curves, ``verdict``
            and the largest gap.

    Raises:
        InvalidInputError: On bad input, naming the argument and what is accepted.
        TooFewRunsError: When ``runs`` could not certify anything even with a perfectly
            separating event (naming the minimum).

    Examples:
        A Gaussian mechanism of σ = 1 is exactly 1-GDP; a claim of 0.5-GDP is refuted:

        >>> from ltheory import GDP, audit_curve
        >>> from ltheory.privacy.mechanisms import GaussianMechanism
        >>> report = audit_curve(GaussianMechanism(sigma=1.0), 0, 1, claim=GDP(0.5),
        ...                      runs=100_000, seed=0, arithmetic="real")
        >>> report.verdict, report.gap > 0
        ('violation', True)
    """
    t0 = time.perf_counter()
    claim_obj = as_claim(claim)
    cfg = AuditConfig.from_options(config, options)
    if cfg.certify == "poisson":
        raise InvalidInputError("audit_curve certifies each event by two Clopper-Pearson "
                                "bounds (binomial); certify='poisson' does not apply")
    k = EVENTS if cfg.events == "auto" else int(cfg.events)
    cfg = cfg.replace(events=k, certify="binomial")
    alpha = check_level(alpha, "alpha")
    eps_grid = None if epsilons is None else _grid(epsilons, "epsilons", 0.0, None, True)
    delta_grid = DELTAS if deltas is None else _grid(deltas, "deltas", 0.0, 1.0, True)
    target = as_target(mechanism)
    runs = check_int(runs, "runs", minimum=2, maximum=MAX_RUNS)
    seed_used, root, streams = seed_streams(seed)
    if cfg.verify_neighbours:
        check_neighbours(target, d0, d1)
    split = plan_split(runs, None, 0.0, alpha, cfg, None, root)
    dists = output_distributions(target, d0, d1) if cfg.exact else None
    exact = None if dists is None else exact_mod.aligned(*dists)[1:]
    deadline = Deadline(cfg.time_budget)
    notes: list[str] = []
    runner = Runner(target, cfg, runs, split, deadline)
    chosen: list[_Chosen] = []
    c0 = c1 = np.zeros(0, dtype=np.int64)
    try:
        s0, s1 = runner.sample(d0, d1, split.n_sel, streams[:2], CURVE_SELECT_SECONDS)
        sel_runs = len(s0) + len(s1)
        enough = min(len(s0), len(s1)) >= MIN_SELECTION
        if dists is not None and enough:
            notes += consistency_notes(dists, s0, s1)
        if enough:
            chosen = select_curve_events(s0, s1, split.n_cert, alpha, claim_obj, k, cfg,
                                         delta_grid)
            if not chosen:
                raise InvalidInputError("no candidate event: the selection split shows no "
                                        "output that separates the two datasets")
            split, fit_note = fit_split(split, runner, sel_runs, cfg, root)
            notes += [fit_note] if fit_note else []
            c0, c1, split = runner.count(d0, d1, split, [c.candidate.event for c in chosen],
                                         streams[2:])
        else:
            split = RunSplit(split.n_sel, split.n_cert, 0, 0)
    finally:
        notes += runner.close()
    if deadline.reached:
        notes.insert(0, budget_note(deadline, runs, sel_runs + split.n_c0 + split.n_c1))
        if not chosen:
            notes.insert(1, f"too few selection runs ({sel_runs}, fewer than {MIN_SELECTION} "
                            "per dataset) to choose an event: nothing was certified; the "
                            "certified curve is the trivial 0")
    pieces, rows = _pieces(chosen, c0, c1, split, event_levels(alpha, len(chosen)))
    return _report(target.name, claim_obj, alpha, runs, seed_used, cfg, split, chosen, pieces,
                   rows, exact, eps_grid, delta_grid, notes, t0, sel_runs, deadline.reached)


def _report(name: str, claim: PrivacyClaim, alpha: float, runs: int, seed: int,
            cfg: AuditConfig, split: RunSplit, chosen: list[_Chosen], pieces: list[dict],
            rows: list[dict], exact: tuple[np.ndarray, np.ndarray] | None,
            eps_grid: tuple | None, delta_grid: tuple, notes: list[str], t0: float,
            sel_runs: int | None = None, partial: bool = False) -> CurveReport:
    gap, gap_eps, gap_piece = _gap(pieces, claim)
    eps_grid = _epsilon_grid(pieces, gap_eps, eps_grid)
    e = np.array(eps_grid)
    lo = np.array([p["p_lower"] for p in pieces])
    up = np.array([p["p_upper"] for p in pieces])
    dlb = (np.maximum(0.0, hockey_stick_lower(lo, up, e).max(axis=0)) if pieces
           else np.zeros(e.shape))
    dcl = _claim_delta(claim, e)
    elb = [certified_epsilon(pieces, d) for d in delta_grid]
    ecl = [float(claim.epsilon_at(d)) for d in delta_grid]
    dex, eex, ratio = _exact_curves(exact, e, delta_grid, elb, dlb, alpha, notes)
    points, hull, f, tgap, source = _tradeoff_check(pieces, claim)
    verdict = "violation" if gap > 0 else "consistent"
    if not math.isfinite(gap):
        notes.append("inconclusive: no event certified a positive hockey-stick bound at any "
                     "epsilon (the certified curve is the trivial 0)")
    trivial = [d for d, x in zip(delta_grid, elb, strict=True) if not x > 0]
    if trivial:
        notes.append("inconclusive at delta = " + ", ".join(f"{d:g}" for d in trivial)
                     + ": no event certified a positive epsilon there (probability above "
                     "delta and a ratio above 1); the bound there is the trivial 0")
    if (tgap > 0) != (gap > 0) and source.startswith("profile"):
        notes.append(f"the trade-off check ({tgap:.3g}) and the profile check ({gap:.3g}) "
                     "disagree in sign: the profile's trade-off is computed on an epsilon grid")
    gp = pieces[gap_piece] if gap_piece is not None else None
    floating = gp is not None and is_float_event(chosen[gp["event"]].candidate.event)
    if floating and verdict == "violation":
        notes.insert(0, violation_note(chosen[gp["event"]].candidate.event,
                                       certified_epsilon([gp], 0.0)))
    return CurveReport(
        mechanism=name, claim=claim.to_json(), claim_text=str(claim), verdict=verdict,
        gap=float(gap), gap_epsilon=gap_eps, gap_event=_piece_event(gp, rows),
        gap_direction=None if gp is None else int(gp["direction"]),
        epsilons=tuple(eps_grid), delta_lower_bound=tuple(float(x) for x in dlb),
        delta_claimed=tuple(float(x) for x in dcl), delta_exact=dex,
        deltas=tuple(delta_grid), epsilon_lower_bound=tuple(elb),
        epsilon_claimed=tuple(ecl), epsilon_exact=eex, epsilon_ratio=ratio,
        pieces=tuple(pieces), events=tuple(rows), tradeoff_points=points,
        tradeoff_envelope=tuple(hull), tradeoff_claimed=tuple(float(x) for x in f),
        tradeoff_gap=tgap, tradeoff_verdict="violation" if tgap > 0 else "consistent",
        tradeoff_source=source, alpha=alpha,
        runs=(sel_runs + split.n_c0 + split.n_c1) if partial else runs,
        selection_runs=2 * split.n_sel if sel_runs is None else sel_runs,
        certification_runs=split.n_c0 + split.n_c1, events_certified=len(chosen),
        seed=seed, seconds=time.perf_counter() - t0, notes=tuple(notes),
        settings=cfg.to_json(), certified_events=tuple(c.candidate.event for c in chosen),
        floating_point=floating, partial=partial)


def _epsilon_grid(pieces: list[dict], gap_eps: float | None, eps_grid: tuple | None) -> tuple:
    """The caller's ε grid, or 0 … a bit past the largest certified ε (and the gap's ε)."""
    if eps_grid is not None:
        return eps_grid
    eps_top = certified_epsilon(pieces, 0.0)
    top = 1.1 * eps_top if math.isfinite(eps_top) and eps_top > 0 else 1.0
    if gap_eps is not None:
        top = max(top, 1.1 * gap_eps)
    return tuple(float(x) for x in np.linspace(0.0, top, EPSILON_POINTS))


def _exact_curves(exact: tuple[np.ndarray, np.ndarray] | None, e: np.ndarray,
                  delta_grid: tuple, elb: list[float], dlb: np.ndarray, alpha: float,
                  notes: list[str]) -> tuple[tuple | None, tuple | None, tuple | None]:
    """The exact δ(ε) and ε(δ) on the grids and the certified/exact ε ratio, where the output
    distribution is known (else Nones); a note where the certified curve exceeds it."""
    if exact is None:
        return None, None, None
    dex = tuple(exact_mod.delta_of_epsilon(*exact, float(x)) for x in e)
    eex = tuple(exact_mod.exact_epsilon(*exact, d) for d in delta_grid)
    ratio = tuple(_ratio(b, x) for b, x in zip(elb, eex, strict=True))
    if any(b > x + 1e-9 for b, x in zip(dlb, dex, strict=True)):
        notes.append("the certified curve exceeds the exact curve somewhere: an event of "
                     f"probability at most alpha = {alpha:g}, or output_distribution does "
                     "not describe the sampled mechanism")
    return dex, eex, ratio


def _tradeoff_check(pieces: list[dict], claim: PrivacyClaim
                    ) -> tuple[tuple, list, np.ndarray, float, str]:
    """Each piece (p_lower, p_upper) is the certified point (α, β) = (p_upper, 1 − p_lower) of
    the test rejecting M(d_b) on its event; the claim's trade-off is checked at the vertices
    of their lower convex hull.  Returns (points, hull, claimed f there, largest gap, source)."""
    points = tuple((float(p["p_upper"]), float(1.0 - p["p_lower"])) for p in pieces)
    hull = lower_hull(points)
    inner = [h for h in hull if 0.0 < h[0] < 1.0] or hull
    f, source = _claimed_tradeoff(claim, np.array([h[0] for h in inner]))
    tgap = float(np.max(f - np.array([h[1] for h in inner])))
    return points, hull, f, tgap, source


def _piece_event(gp: dict | None, rows: list[dict]) -> str | None:
    """The event of a certified piece, as described (its complement read the other way)."""
    if gp is None:
        return None
    ev = rows[gp["event"]]["event"]
    return "not (" + ev + ")" if gp["complement"] else ev


def _ratio(bound: float, exact: float) -> float | None:
    if not (math.isfinite(exact) and exact > 0):
        return None
    return max(bound, 0.0) / exact if math.isfinite(bound) or bound < 0 else None
