"""The auditor: a sound lower bound on ε from runs on two neighbouring datasets.

One audit is a short sequence of stages (docs/reference/auditor.md):

1. **target** — [`as_target`][ltheory.privacy.as_target] reads what the mechanism
   offers; the two datasets are checked to be neighbours under its relation.
2. **split** — ``runs // 2`` runs on each dataset, the first ``selection_fraction`` of them the
   *selection* split, the rest the *certification* split (fresh, independent runs: every chunk
   has its own seed spawned from ``SeedSequence(seed)``, ``executors``).  With
   ``certify="poisson"``/``"auto"`` the numbers of certification runs are drawn from Poisson(n).
3. **selection** — on the selection split only, the best event(s) and their directions
   (``events.select_events``; one or two with ``events="auto"``, decided there, and beside
   the first up to two nested, rarer events of its own family, ``deeper``).  With
   ``lean_events="auto"`` an output space that shows few distinct values is searched among its
   exact-output cells only, unshrunk (their likelihood-ratio prefixes hold the best event).
4. **certification** — each chosen event counted on the certification split and bounded by the
   test of ``projection.certified_bound`` at level α/k (k events, Bonferroni): two one-sided
   Clopper–Pearson bounds ``ε_lb = ln((p_a,lower − δ)/p_b,upper)``, or the Poisson-conditional
   test of the ratio.  Because the events are fixed before the certification runs are drawn,
   the reported bound (the largest) is below the true ε of the pair (at the claimed δ) with
   probability ≥ 1 − α (Ding et al. 2018, StatDP; Bichsel et al. 2021, DP-Sniper, Section 5;
   Jagielski, Ullman & Oprea 2020 for the (ε, δ) form).
   The seed streams, the run split, the runner and the exact distributions are the public
   stages of `ltheory.privacy.auditing.stages`, shared with ``curve.audit_curve``.
5. **report** — an [`AuditReport`][ltheory.privacy.AuditReport], with the exact ε (and
   δ at the claimed ε) where the mechanism offers ``output_distribution``.

The verdict is ``"violation"`` iff the certified bound exceeds the claimed ε.

Examples:
    >>> from ltheory.privacy.mechanisms import RandomizedResponse
    >>> r = audit(RandomizedResponse(1.0), 0, 1, claimed_epsilon=0.5, runs=200_000, seed=0)
    >>> r.verdict, round(r.exact_epsilon, 3), r.epsilon_lower_bound > 0.9
    ('violation', 1.0, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ltheory.blas import one_blas_thread
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.budget import Deadline, check_work
from ltheory.privacy.auditing.config import AuditConfig
from ltheory.privacy.auditing.events import (
    Candidate,
    events_to_certify,
    extreme_takes_second,
    select_events,
)
from ltheory.privacy.auditing.floating import is_float_event, violation_note
from ltheory.privacy.auditing.memo import selection_memo
from ltheory.privacy.auditing.neighbours import check_neighbours
from ltheory.privacy.auditing.outputs import Batch, batch_kind, distinct_outputs
from ltheory.privacy.auditing.projection import certified_bound
from ltheory.privacy.auditing.report import AuditReport
from ltheory.privacy.auditing.stages import (
    MAX_RUNS,
    MIN_SELECTION,
    Runner,
    RunSplit,
    TooFewRunsError,
    budget_note,
    consistency_notes,
    event_sides,
    few_outputs,
    fit_split,
    min_runs,
    output_distributions,
    plan_split,
    seed_streams,
    split_runs,
    widen_selection,
    widening_share,
)
from ltheory.privacy.auditing.target import Target, as_target
from ltheory.privacy.stats import clopper_pearson_lower, clopper_pearson_upper, log_ratio
from ltheory.validation import check_epsilon_delta, check_int, check_level

__all__ = ["MAX_RUNS", "MIN_SELECTION", "AuditReport", "TooFewRunsError", "audit", "certify_pair",
           "exact_distributions", "few_outputs", "min_runs", "split_runs"]


def exact_distributions(mechanism: Any, d0: Any, d1: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The two exact output distributions on a common support, or None where the target has
    none."""
    dists = output_distributions(as_target(mechanism), d0, d1)
    return None if dists is None else exact_mod.aligned(*dists)[1:]


def audit(mechanism: Any, d0: Any, d1: Any, *, claimed_epsilon: float,
          claimed_delta: float = 0.0, runs: int, seed: int | None, alpha: float = 0.05,
          config: AuditConfig | None = None, **options: Any) -> AuditReport:
    """Audit the claim that ``mechanism`` is (claimed_epsilon, claimed_delta)-DP at (d0, d1).

    Runs the mechanism ``runs`` times (half on each dataset), chooses an event on one part of
    the runs and certifies it on the other, and returns a lower bound on the pair's ε at
    ``claimed_delta`` that is wrong with probability at most ``alpha``, whatever the mechanism.
    The verdict is ``"violation"`` when that bound exceeds ``claimed_epsilon``.  Where the
    mechanism offers ``output_distribution`` the report also carries the exact ε.  The stages
    (target, pairs, pilots, selection, certification, report) are described in
    [`ltheory.privacy.auditing.core`][ltheory.privacy.auditing.core].

    Args:
        mechanism: A callable ``mechanism(dataset, rng) -> output`` (see the
            [mechanism contract][ltheory.privacy.mechanisms.Mechanism]), a learner or an adapter.
        d0: One dataset of the neighbouring pair.
        d1: The other dataset; the pair is checked against the mechanism's neighbour relation
            (``verify_neighbours`` in the config).
        claimed_epsilon: The ε the mechanism claims, finite and ≥ 0.
        claimed_delta: The δ the mechanism claims, in [0, 1).
        runs: Total runs of the mechanism (half on each dataset).
        seed: A non-negative int; ``None`` draws fresh entropy (reported back in ``seed``).
        alpha: The probability that the certified bound is wrong.
        config: An [`AuditConfig`][ltheory.privacy.AuditConfig]; default: the settings
            measured best on the benchmarks.
        **options: Any field of [`AuditConfig`][ltheory.privacy.AuditConfig], applied on top
            of ``config`` (``audit(..., events=2, arithmetic="real")``).

    Returns:
        An [`AuditReport`][ltheory.privacy.AuditReport]: ``epsilon_lower_bound`` (sound at
            confidence 1 − alpha), ``verdict`` (``"violation"`` or ``"consistent"``), the
            certified event and its counts, and ``exact_epsilon`` where known.

    Raises:
        InvalidInputError: On bad input, naming the argument and what is accepted.
        TooFewRunsError: When ``runs`` could not certify above the claim even with a perfect
            event (an ``InvalidInputError`` naming the minimum).
        MechanismError: When the mechanism raises or returns unusable outputs.

    Examples:
        >>> from ltheory.privacy import audit
        >>> from ltheory.privacy.mechanisms import RandomizedResponse
        >>> report = audit(RandomizedResponse(2.0), ((0, 0),), ((0, 1),),
        ...                claimed_epsilon=1.0, runs=20_000, seed=0)
        >>> report.verdict, report.epsilon_lower_bound > 1.0
        ('violation', True)
        >>> round(report.exact_epsilon, 6)
        2.0
    """
    cfg = AuditConfig.from_options(config, options)
    eps, delta = check_epsilon_delta(claimed_epsilon, claimed_delta,
                                     ("claimed_epsilon", "claimed_delta"))
    return run_audit(mechanism, d0, d1, eps, delta, alpha, runs, seed, cfg)


def certify_pair(mechanism: Any, d0: Any, d1: Any, *, runs: int, seed: int | None,
                 alpha: float = 0.05, delta: float = 0.0, config: AuditConfig | None = None,
                 **options: Any) -> AuditReport:
    """The certified lower bound on ε at δ for the pair (d0, d1), with no claim to judge: the
    same stages as [`audit`][ltheory.privacy.audit], verdict ``"none"``.  ``report.with_claim(eps)``
    judges it
    against a claim later (the bound does not depend on the claim)."""
    cfg = AuditConfig.from_options(config, options)
    _, delta = check_epsilon_delta(1.0, delta, ("claimed_epsilon", "delta"))
    return run_audit(mechanism, d0, d1, None, delta, alpha, runs, seed, cfg)


# --------------------------------------------------------------------------- stages
# The stages shared with ``curve.audit_curve`` (seed streams, run split, runner, exact
# distributions, sides of an event) are the public functions of ``stages``; selection,
# certification and the report of a single-ε audit are here.
@dataclass(frozen=True)
class _Selection:
    chosen: list[Candidate]
    a_each: float                 # level of each one-sided bound: α / (2·events)
    notes: tuple[str, ...]
    lean: bool = False            # chosen among the exact-output cells (few distinct outputs)


@dataclass(frozen=True)
class _Certified:
    bounds: list[float]
    best: int
    p_lower: float
    p_upper: float
    point: float
    ka: int
    kb: int


@one_blas_thread
def run_audit(mechanism: Any, d0: Any, d1: Any, eps: float | None, delta: float, alpha: Any,
              runs: Any, seed: Any, cfg: AuditConfig,
              selection_samples: tuple[Batch, Batch] | None = None,
              deadline: Deadline | None = None) -> AuditReport:
    """The stages of an audit (see [`ltheory.privacy.auditing.core`][ltheory.privacy.auditing.core])
    for validated (ε or None, δ) and ``cfg``.
    ``selection_samples=(s0, s1)``: outputs on d0 and d1 drawn before and independently of
    this audit (a search's pilot runs on the pair, from the pilot streams); the events are
    chosen on them and all ``runs`` certify.  ``deadline``: a ``budget.Deadline`` shared with
    a caller (a search), else one of ``cfg.time_budget`` seconds from now; when it passes the
    report is partial ([`budget`][ltheory.privacy.auditing.budget])."""
    t0 = time.perf_counter()
    target = as_target(mechanism)
    alpha = check_level(alpha, "alpha")
    runs = check_int(runs, "runs", minimum=2, maximum=MAX_RUNS)
    deadline = Deadline.of(deadline, cfg.time_budget)
    seed_used, root, streams = seed_streams(seed)  # selection d0, d1, certification d0, d1
    cfg.for_claim(delta)
    if cfg.verify_neighbours:
        check_neighbours(target, d0, d1)
    split = plan_split(runs, eps, delta, alpha, cfg, selection_samples, root)
    check_work(target.name, target.draws_per_run,
               min(runs, min_runs(max(eps or 0.0, 1e-9), delta, alpha, cfg.selection_fraction,
                                  cfg.events)),
               deadline, "the fewest runs that could certify anything")
    dists = output_distributions(target, d0, d1) if cfg.exact else None
    exact = None if dists is None else exact_mod.aligned(*dists)[1:]
    notes: list[str] = []
    runner = Runner(target, cfg, runs, split, deadline)
    cut = None
    try:
        s0, s1 = selection_samples or runner.sample(d0, d1, split.n_sel, streams[:2])
        sel_runs = len(s0) + len(s1)
        if min(len(s0), len(s1)) < MIN_SELECTION:      # the budget ended the selection runs
            return _unfinished(target, eps, delta, alpha, runs, seed_used, cfg, sel_runs,
                               notes + runner.close(), deadline, time.perf_counter() - t0)
        if dists is not None:
            notes += consistency_notes(dists, s0, s1)
        # a mixed output widens before any choice (its many families call for it); lean
        # events once the event chosen on the planned split says their order is in doubt
        wide = widen_selection(s0, s1, None, split, runner, cfg, (d0, d1), eps, delta, alpha,
                               root, widening_share(s0, s1, False, cfg))
        if wide is None:
            sel = _select(s0, s1, split.n_cert, alpha, delta, cfg)
            if sel.lean:
                wide = widen_selection(s0, s1, sel.chosen[0] if sel.chosen else None, split,
                                       runner, cfg, (d0, d1), eps, delta, alpha, root,
                                       widening_share(s0, s1, True, cfg))
        if wide is not None:            # chosen (again) on the wider split
            s0, s1, split, note = wide
            notes.append(note)
            sel_runs = len(s0) + len(s1)
            sel = _select(s0, s1, split.n_cert, alpha, delta, cfg)
        if selection_samples is None:
            split, fit_note = fit_split(split, runner, sel_runs, cfg, root)
            notes += [fit_note] if fit_note else []
        planned = (split.n_c0, split.n_c1)
        c0, c1, split = runner.count(d0, d1, split, [c.event for c in sel.chosen], streams[2:])
        if (split.n_c0, split.n_c1) != planned:
            cut = "binomial"     # runs counted up to the deadline: binomial given their number
    finally:
        notes += runner.close()
    cert = _certify(sel, c0, c1, split, delta, cut)
    if selection_samples is not None:
        sel_runs = len(s0) + len(s1)
    if deadline.reached:
        used = (2 * split.n_sel if selection_samples is not None else sel_runs) \
            + split.n_c0 + split.n_c1
        notes.insert(0, budget_note(deadline, runs, used))
        if cut:
            notes.append("the certification runs were cut at the deadline: every event is "
                         "certified by two Clopper-Pearson bounds on the runs counted")
    return _report(target, eps, delta, alpha, runs, seed_used, cfg, split, sel, cert, c0, c1,
                   exact, sel_runs, notes + list(sel.notes), time.perf_counter() - t0,
                   partial=deadline.reached,
                   given=selection_samples is not None)


def _unfinished(target: Target, eps: float | None, delta: float, alpha: float, runs: int,
                seed: int, cfg: AuditConfig, sel_runs: int, notes: list[str],
                deadline: Deadline, seconds: float) -> AuditReport:
    """The report of an audit whose budget ran out before enough selection runs were drawn:
    nothing chosen, nothing certified, the trivial bound 0, ``partial``."""
    notes = [budget_note(deadline, runs, sel_runs),
             f"too few selection runs ({sel_runs}, fewer than {MIN_SELECTION} per dataset) to "
             "choose an event: nothing was certified; the bound is the trivial 0"] + notes
    return AuditReport(
        mechanism=target.name, claimed_epsilon=eps, claimed_delta=delta,
        epsilon_lower_bound=0.0, epsilon_point_estimate=math.nan, exact_epsilon=None,
        exact_delta=None, verdict="none" if eps is None else "consistent",
        event="none (time budget reached before an event was chosen)", direction=0,
        counts={"selection": None, "certification": None, "bounds_per_event": [],
                "per_event": []},
        p_lower=0.0, p_upper=1.0, runs=sel_runs, selection_runs=sel_runs,
        certification_runs=0, alpha=alpha, events_certified=0, seed=seed, seconds=seconds,
        notes=tuple(notes), settings=cfg.to_json(), partial=True)


def _select(s0: Batch, s1: Batch, n_cert: int, alpha: float, delta: float,
            cfg: AuditConfig) -> _Selection:
    """The events to certify, chosen on the selection split only (see
    [`ltheory.privacy.auditing.core`][ltheory.privacy.auditing.core]); each family's cells of
    the split are encoded once (``memo.selection_memo``)."""
    with selection_memo():
        return _choose(s0, s1, n_cert, alpha, delta, cfg)


def _choose(s0: Batch, s1: Batch, n_cert: int, alpha: float, delta: float,
            cfg: AuditConfig) -> _Selection:
    few = cfg.lean_events is True or (cfg.lean_events == "auto" and few_outputs(s0, s1))
    test = cfg.certify if delta == 0 else "binomial"
    a_each = alpha / (2 * cfg.max_events)
    kind = batch_kind(s0)
    chosen = select_events(s0, s1, n_cert, a_each, delta, top=cfg.max_events, test=test,
                           structure=cfg.structure_events, lean=few,
                           shrink=cfg.shrink_for(few, kind),
                           credible_shrink=cfg.credible_shrink_for(few, kind, len(s0)),
                           screen=cfg.selection_screen, extremes=cfg.events == "auto",
                           arithmetic=cfg.arithmetic, tail=cfg.tail_model)
    extra = [c for c in chosen if c.extreme]
    chosen = [c for c in chosen if not c.extreme]
    notes: list[str] = []
    if distinct_outputs(s0, s1, limit=1) == 1:
        notes.append("every selection run returned the same output: no event can separate the "
                     "datasets (a constant mechanism is 0-DP); check that the mechanism reads "
                     "its dataset and draws from its rng")
    if few and cfg.lean_events == "auto":
        notes.append("few distinct outputs: events chosen among the exact-output cells "
                     "(likelihood-ratio prefixes)" + (" and the output's thresholds"
                     if kind == "scalar" else ", frequencies unshrunk"))
    for c in chosen:
        if c.tail:
            notes.append(f"the cut of {c.event.describe()} was placed by the tail model "
                         f"(auditing.tail_model): its {c.sel_counts[0]} vs {c.sel_counts[1]} "
                         "selection runs are too few to rank it, the trend of its family's "
                         "tail projects it best; it is certified on fresh runs like any event")
        if c.fallback_p is not None:
            pv = f"{c.fallback_p:.3g}" if c.fallback_p < 1 else "≥ 1, no more than chance"
            notes.append(f"no event passed the credibility screen and none projected a positive "
                         f"bound on the selection split: {c.event.describe()} is the one "
                         f"closest to passing (multiplicity-weighted screen p-value {pv}); "
                         "expect a bound near 0 unless the certification runs show more")
    if cfg.events == "auto":        # decided on the selection split: α/(2k) fixed from here
        chosen, why = events_to_certify(chosen, n_cert, alpha, delta, (s0, s1))
        if extra and chosen and extreme_takes_second(chosen[0], extra[0], n_cert, alpha,
                                                     delta):
            # decided here, before any certification run
            chosen = [chosen[0], extra[0]]
            why += ("; an extreme event (atom or isolated tail) takes the second place: "
                    f"{extra[0].event.describe()}")
        # rarer, nested events certified beside the first event and a certified runner-up
        # at the Bonferroni level of all (auditing.deeper; decided here, before any
        # certification run): the first event's from its own family or, refined, from a family
        # holding it (events._refined); the runner-up's only when refined (its own family's
        # deeper cuts would cost every event a Bonferroni step)
        for c, who in zip(chosen[:2], ("the first event", "the runner-up"), strict=False):
            if not c.deeper or (who == "the runner-up" and not c.refined):
                continue
            seen = {(d.event.describe(), d.direction) for d in chosen}
            more = [d for d in c.deeper if (d.event.describe(), d.direction) not in seen]
            if not more:
                continue
            whose = (f"of a family holding {who} on the selection split" if c.refined
                     else "of the first event's family")
            chosen = [*chosen, *more]
            why += (f"; {len(more)} deeper cut(s) {whose} certified beside it: "
                    + "; ".join(d.event.describe() for d in more))
        a_each = alpha / (2 * len(chosen))
        notes.append(why)
    return _Selection(chosen, a_each, tuple(notes), few)


def _certify(sel: _Selection, c0: np.ndarray, c1: np.ndarray, split: RunSplit,
             delta: float, test: str | None = None) -> _Certified:
    """Each chosen event's certified bound from its counts (by ``test`` when given, else the
    test chosen with the event); the best is reported."""
    bounds = []
    for i, c in enumerate(sel.chosen):
        ka, kb, na, nb = event_sides(c.direction, c0[i], c1[i], split)
        bounds.append(float(certified_bound(ka, na, kb, nb, 2 * sel.a_each, delta,
                                            test or c.test)))
    best = max(range(len(bounds)), key=lambda i: (bounds[i], -i))
    ka, kb, na, nb = event_sides(sel.chosen[best].direction, c0[best], c1[best], split)
    return _Certified(bounds, best, float(clopper_pearson_lower(ka, na, sel.a_each)),
                      float(clopper_pearson_upper(kb, nb, sel.a_each)),
                      float(log_ratio(ka / na, kb / nb, delta)), ka, kb)


def _report(target: Target, eps: float | None, delta: float, alpha: float, runs: int,
            seed: int, cfg: AuditConfig, split: RunSplit, sel: _Selection, cert: _Certified,
            c0: np.ndarray, c1: np.ndarray, exact: tuple[np.ndarray, np.ndarray] | None,
            sel_runs: int, notes: list[str], seconds: float, partial: bool = False,
            given: bool = False) -> AuditReport:
    best = cert.bounds[cert.best]
    if not best > 0:
        notes.append("inconclusive: no event certified a positive bound (probability above "
                     "delta and a ratio above 1); the bound is the trivial 0")
        best = 0.0
    exact_eps = exact_mod.exact_epsilon(*exact, delta) if exact is not None else None
    if exact_eps is not None and best > exact_eps + 1e-9:
        notes.append(f"the certified bound {best:.4g} exceeds the exact epsilon {exact_eps:.4g}"
                     f": an event of probability at most alpha = {alpha:g}, or "
                     "output_distribution does not describe the sampled mechanism")
    c = sel.chosen[cert.best]
    exact_delta = (exact_mod.delta_of_epsilon(*exact, eps)
                   if exact is not None and eps is not None else None)
    verdict = "none" if eps is None else "violation" if best > eps else "consistent"
    floating = is_float_event(c.event) and best > 0
    if floating and verdict == "violation":
        notes.insert(0, violation_note(c.event, best))
    curve = _tradeoff(cfg.tradeoff, best, eps, exact_eps, cert, exact) if cfg.tradeoff \
        else None
    per_event = [{"event": ch.event.describe(),
                  "more_likely_under": "d0" if ch.direction == 0 else "d1",
                  "d0": int(c0[i]), "d1": int(c1[i]), "bound": cert.bounds[i]}
                 for i, ch in enumerate(sel.chosen)]
    counts = {"selection": {"d0": c.sel_counts[0], "d1": c.sel_counts[1], "n": c.sel_n},
              "certification": {"d0": int(c0[cert.best]), "d1": int(c1[cert.best]),
                                "n": split.n_cert, "n_d0": split.n_c0, "n_d1": split.n_c1},
              "bounds_per_event": cert.bounds, "per_event": per_event}
    return AuditReport(
        mechanism=target.name, claimed_epsilon=eps, claimed_delta=delta,
        epsilon_lower_bound=float(best), epsilon_point_estimate=cert.point,
        exact_epsilon=exact_eps, exact_delta=exact_delta, verdict=verdict,
        event=c.event.describe(), direction=int(c.direction), counts=counts,
        p_lower=cert.p_lower, p_upper=cert.p_upper,
        runs=((2 * split.n_sel if given else sel_runs) + split.n_c0 + split.n_c1 if partial else
              2 * split.n_sel + split.n_c0 + split.n_c1 if cfg.certify != "binomial" else runs),
        selection_runs=sel_runs, certification_runs=split.n_c0 + split.n_c1, alpha=alpha,
        events_certified=len(sel.chosen), seed=seed, seconds=seconds, tradeoff=curve,
        notes=tuple(notes), certification_test=c.test, chosen_event=c.event,
        certified_events=tuple(ch.event for ch in sel.chosen), settings=cfg.to_json(),
        floating_point=floating, partial=partial)


def _tradeoff(points: bool | int, best: float, eps: float | None, exact_eps: float | None,
              cert: _Certified, exact: tuple[np.ndarray, np.ndarray] | None) -> tuple:
    """The certified (ε, δ) curve ``δ_lb(ε) = p_lower − e^ε·p_upper`` of the reported event
    (sound at level α simultaneously for every ε) and, in exact mode, ``δ_exact(ε)``."""
    m = 41 if points is True else int(points)
    finite = [x for x in (best, exact_eps, cert.point) if x is not None and math.isfinite(x)]
    top = max([2 * eps if eps is not None else 0.1] + [1.2 * x for x in finite])
    pts = []
    for e in np.linspace(0.0, top, m):
        row = {"epsilon": float(e),
               "delta_lower_bound": float(max(0.0, cert.p_lower - math.exp(e) * cert.p_upper))}
        if exact is not None:
            row["delta_exact"] = exact_mod.delta_of_epsilon(*exact, float(e))
        pts.append(row)
    return tuple(pts)

