"""The auditor: a sound lower bound on ε from runs on two neighbouring datasets.

Procedure (the ``audit`` contract of DESIGN.md):

1. Draw ``runs // 2`` outputs on each of d0 and d1, in fixed-size chunks with seeds spawned from
   ``SeedSequence(seed)`` (``executors``).  The first ``selection_fraction`` of each dataset's runs
   is the *selection* split, the rest the *certification* split (fresh, independent runs).
2. On the selection split only, choose the ``events`` best events with their directions
   (``events.select_events``).
3. On the certification split, count each chosen event under d0 and d1 and form
   ``ε_lb = ln((p_a,lower − δ) / p_b,upper)`` with one-sided Clopper–Pearson bounds at level
   α/(2·events) each (Bonferroni over the two bounds of every certified event), and report the
   largest.  Because the events are fixed before the certification runs are drawn, the reported
   bound is below the true ε of the pair (at the claimed δ) with probability ≥ 1 − α
   (Ding et al. 2018, StatDP; Bichsel et al. 2021, DP-Sniper, Section 5; Jagielski, Ullman & Oprea
   2020 for the (ε, δ) form).  With ``certify="poisson"``/``"auto"`` (δ = 0) the numbers of
   certification runs are drawn from Poisson(n), so the two counts are independent Poisson
   variables and, given their sum, the first is binomial with success probability
   p_a/(p_a + p_b): one Clopper–Pearson bound at level α/events bounds the ratio
   (``stats.poisson_epsilon_lower_bound``) instead of two at α/(2·events).
4. If the mechanism exposes ``output_distribution``, also report the exact ε at the claimed δ
   and δ at the claimed ε (``exact``).

The verdict is ``"violation"`` iff the sound bound exceeds the claimed ε.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.jsonable import to_jsonable
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.events import (
    SCREEN,
    SHRINK,
    Candidate,
    events_to_certify,
    select_events,
)
from ltheory.privacy.auditing.executors import (
    chunk_runs,
    n_chunks,
    resolve_executor,
    run_counting,
    run_sampling,
)
from ltheory.privacy.auditing.neighbours import check_neighbours
from ltheory.privacy.auditing.outputs import MechanismError, batch_kind
from ltheory.privacy.stats import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
    log_ratio,
    max_certifiable_epsilon,
    poisson_epsilon_lower_bound,
)

MIN_SELECTION = 50


#: The most runs one audit takes (chunk seeds alone are ~1.5 million at 10^11 runs).
MAX_RUNS = 10**11


@dataclass(frozen=True)
class AuditReport:
    """The result of ``audit``.  Non-finite numbers serialise as the strings "inf"/"-inf"."""

    mechanism: str
    claimed_epsilon: float
    claimed_delta: float
    epsilon_lower_bound: float
    epsilon_point_estimate: float
    exact_epsilon: float | None
    exact_delta: float | None
    verdict: str
    event: str
    direction: str
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

    def to_json(self) -> dict:
        """The report as a JSON-ready dict (the event objects are left out; ``event`` and
        ``counts["per_event"]`` describe them)."""
        d = asdict(replace(self, chosen_event=None, certified_events=()))  # no deep copies
        d.pop("chosen_event")
        d.pop("certified_events")
        return to_jsonable(d)

    def dumps(self, **kw: Any) -> str:
        """:meth:`to_json` as a JSON string (``json.dumps`` keywords pass through)."""
        return json.dumps(self.to_json(), ensure_ascii=False, **kw)


def _check_params(claimed_epsilon: Any, claimed_delta: Any, runs: Any, alpha: Any,
                  selection_fraction: float, events: int | str) -> tuple[float, float, int, float]:
    try:
        eps = float(claimed_epsilon)
        delta = float(claimed_delta)
        a = float(alpha)
    except (TypeError, ValueError):
        raise InvalidInputError("claimed_epsilon, claimed_delta and alpha must be numbers") \
            from None
    if not math.isfinite(eps) or eps <= 0:
        raise InvalidInputError(f"claimed epsilon must be a finite number > 0, got {eps!r}")
    if not (0.0 <= delta < 1.0):
        raise InvalidInputError(f"claimed delta must be in [0, 1), got {delta!r}")
    if not (0.0 < a < 1.0):
        raise InvalidInputError(f"alpha must be in (0, 1), got {a!r}")
    if isinstance(runs, bool) or not isinstance(runs, int | np.integer) or runs < 2:
        raise InvalidInputError(f"runs must be an integer >= 2, got {runs!r}")
    if runs > MAX_RUNS:
        raise InvalidInputError(f"runs={runs} is more than this auditor takes in one call "
                                f"({MAX_RUNS:.0e}); split the audit or lower runs")
    if not (0.0 < selection_fraction < 1.0):
        raise InvalidInputError(f"selection_fraction must be in (0, 1), got "
                                f"{selection_fraction!r}")
    if events != "auto" and (isinstance(events, bool) or not isinstance(events, int)
                             or events < 1):
        raise InvalidInputError(f"events must be an integer >= 1 or 'auto', got {events!r}")
    return eps, delta, int(runs), a


def split_runs(runs: int, selection_fraction: float) -> tuple[int, int]:
    """(selection, certification) runs per dataset for ``runs`` total runs."""
    per = runs // 2
    n_sel = max(MIN_SELECTION, int(round(selection_fraction * per)))
    return n_sel, max(per - n_sel, 0)


def _max_events(events: int | str) -> int:
    """The most events an ``events`` setting certifies (Bonferroni over them): 2 for "auto"
    (``events.events_to_certify`` picks one or two), else the number itself."""
    return 2 if events == "auto" else int(events)


def min_runs(claimed_epsilon: float, claimed_delta: float = 0.0, alpha: float = 0.05,
             selection_fraction: float = 0.1, events: int | str = 1) -> int:
    """The fewest total runs whose best possible outcome (a perfectly separating event) could
    certify a bound above ``claimed_epsilon``."""
    a_each = alpha / (2 * _max_events(events))

    def ok(r: int) -> bool:
        _, n_c = split_runs(r, selection_fraction)
        return n_c > 0 and max_certifiable_epsilon(n_c, a_each, claimed_delta) > claimed_epsilon

    hi = 2
    while not ok(hi):
        hi *= 2
        if hi > 1 << 60:
            return hi
    lo = hi // 2
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def exact_distributions(mechanism: Any, d0: Any, d1: Any) -> tuple[np.ndarray, np.ndarray] | None:
    fn = getattr(mechanism, "output_distribution", None)
    if fn is None:
        return None
    try:
        p0, p1 = fn(d0), fn(d1)
    except NotImplementedError:
        return None
    except Exception as exc:  # noqa: BLE001 - user code
        raise MechanismError(f"output_distribution raised {type(exc).__name__}: {exc}") from None
    _, a, b = exact_mod.aligned(p0, p1)
    return a, b


def audit(mechanism: Any, d0: Any, d1: Any, *, claimed_epsilon: float,
          claimed_delta: float = 0.0, runs: int, seed: int | None, alpha: float = 0.05,
          executor: Any = None, selection_fraction: float = 0.1, events: int | str = 1,
          tradeoff: bool | int = False, verify_neighbours: bool = True,
          progress: Callable[[int, int], None] | None = None,
          certify: str = "binomial", structure_events: bool = True,
          exact: bool = True, lean_events: bool = False,
          selection_samples: tuple[Any, Any] | None = None,
          selection_shrink: float = SHRINK,
          selection_screen: float | None = SCREEN) -> AuditReport:
    """Audit the claim that ``mechanism`` is (claimed_epsilon, claimed_delta)-DP at (d0, d1).

    ``runs`` is the total number of mechanism runs (half on each dataset); ``seed`` an int (None
    draws fresh entropy, reported back); ``executor`` None (serial, or a local process pool from
    2·10^6 runs), "serial", "process", or any ``concurrent.futures.Executor``;
    ``selection_fraction`` the share of runs used to choose the event; ``events`` how many events
    are certified (Bonferroni), or "auto": one or two, decided on the selection split by
    ``events.events_to_certify`` (the runner-up's expected gain against the Bonferroni cost);
    ``tradeoff`` adds the (ε, δ) curve (True = 41 points, or an int):
    ``delta_lower_bound(ε) = p_lower − e^ε·p_upper`` for the certified event (sound at level α
    simultaneously for every ε) and, in exact mode, ``delta_exact(ε)``; ``verify_neighbours=False``
    skips the neighbour check (for relations the auditor cannot check); ``progress(done, total)``
    is called after every chunk.
    ``certify``: "binomial" (default: two Clopper–Pearson bounds, Bonferroni), "poisson" (the
    number of certification runs on each dataset is drawn from Poisson(n), making the event
    counts Poisson, and one conditional test bounds their ratio: ``stats.
    poisson_epsilon_lower_bound``; needs claimed_delta = 0) or "auto" (Poisson run counts; each
    certified event uses the test projected better on the selection split — both are valid
    given the run counts, and the choice is made before certification).
    ``structure_events`` adds the structure-score families (``features``) for vector outputs;
    ``exact=False`` skips the exact ε even where ``output_distribution`` exists (it can cost
    more than the runs, e.g. quadrature over 2^10 sparse-vector patterns in every pilot);
    ``lean_events`` keeps only the exact-output cells when outputs take few values;
    ``selection_samples=(s0, s1)``: outputs on d0 and d1 drawn *before and independently of*
    this audit (e.g. a search's pilot runs on the pair); the events are chosen on them, no
    selection split is drawn, and all ``runs`` certify (the caller vouches that the samples do
    not come from this audit's seed streams — ``audit_search`` draws them from its pilot
    streams); ``selection_shrink``: the Clopper–Pearson level selection frequencies are shrunk
    to when projecting (``events.select_events``); ``selection_screen``: the family-wise level
    of the credibility screen against the winner's curse over many candidate events (None: off;
    ``events.select_events``).
    Raises ``InvalidInputError`` on bad input (including too few runs, with the minimum needed) and
    ``MechanismError`` when the mechanism raises or returns unusable outputs.
    """
    t0 = time.perf_counter()
    eps, delta, runs, alpha = _check_params(claimed_epsilon, claimed_delta, runs, alpha,
                                            selection_fraction, events)
    if not (callable(mechanism) or hasattr(mechanism, "sample") or hasattr(mechanism, "fit")):
        raise InvalidInputError("mechanism must be callable as mechanism(dataset, rng), offer "
                                "mechanism.sample(dataset, n, rng), or be a learner with "
                                ".fit(dataset, rng)")
    if certify not in ("binomial", "poisson", "auto"):
        raise InvalidInputError(f"certify must be 'binomial', 'poisson' or 'auto', got "
                                f"{certify!r}")
    if certify == "poisson" and delta > 0:
        raise InvalidInputError("certify='poisson' bounds the ratio of two probabilities, so it "
                                "needs claimed_delta = 0; use 'binomial' or 'auto'")
    if not (isinstance(selection_shrink, float | int) and 0 < selection_shrink < 1):
        raise InvalidInputError(f"selection_shrink must be a level in (0, 1), got "
                                f"{selection_shrink!r}")
    if selection_screen is not None and not (isinstance(selection_screen, float | int)
                                             and 0 < selection_screen < 1):
        raise InvalidInputError(f"selection_screen must be a level in (0, 1) or None, got "
                                f"{selection_screen!r}")
    if verify_neighbours:
        check_neighbours(mechanism, d0, d1)
    n_sel, n_cert = split_runs(runs, selection_fraction)
    given = selection_samples is not None
    if given:
        try:
            g0, g1 = selection_samples
            if len(g0) < MIN_SELECTION or len(g1) < MIN_SELECTION:
                raise ValueError
        except (TypeError, ValueError):
            raise InvalidInputError(f"selection_samples must be a pair (outputs on d0, outputs "
                                    f"on d1) of at least {MIN_SELECTION} runs each") from None
        n_sel, n_cert = 0, runs // 2
    a_each = alpha / (2 * _max_events(events))
    if n_cert <= 0 or max_certifiable_epsilon(n_cert, a_each, delta) <= eps:
        need = min_runs(eps, delta, alpha, selection_fraction, events)
        raise InvalidInputError(f"runs={runs} is too few: even a perfectly separating event could "
                                f"not certify epsilon > {eps:g} at alpha={alpha:g}; need at "
                                f"least {need} runs")
    notes: list[str] = []
    ex_dist = exact_distributions(mechanism, d0, d1) if exact else None
    exact_eps = exact_delta = None
    if ex_dist is not None:
        exact_eps = exact_mod.exact_epsilon(*ex_dist, delta)
        exact_delta = exact_mod.delta_of_epsilon(*ex_dist, eps)

    if seed is None:
        ss = np.random.SeedSequence()
        seed_used: int | None = int(ss.entropy)  # type: ignore[arg-type]
    else:
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise InvalidInputError(f"seed must be a non-negative integer or None, got {seed!r}")
        ss = np.random.SeedSequence(int(seed))
        seed_used = int(seed)
    streams = ss.spawn(4)      # selection d0, selection d1, certification d0, certification d1
    n_c0 = n_c1 = n_cert
    if certify != "binomial":  # Poisson numbers of certification runs (a fifth stream)
        pr = np.random.default_rng(ss.spawn(1)[0])
        n_c0, n_c1 = int(pr.poisson(n_cert)), int(pr.poisson(n_cert))
    test = certify if delta == 0 else "binomial"
    per_chunk = chunk_runs(mechanism)
    total_chunks = sum(n_chunks(n, per_chunk) for n in (n_sel, n_sel, n_c0, n_c1))
    done = [0]

    def tick(k: int) -> None:
        done[0] += k
        if progress:
            progress(done[0], total_chunks)

    ex, owned, note = resolve_executor(executor, mechanism, runs)
    if note:
        notes.append(note)
    try:
        if given:
            s0, s1 = selection_samples
        else:
            s0 = run_sampling(ex, mechanism, d0, streams[0], n_sel, tick)
            s1 = run_sampling(ex, mechanism, d1, streams[1], n_sel, tick)
        k0, k1 = batch_kind(s0), batch_kind(s1)
        if k0 != k1 or (k0 == "vector" and np.shape(s0)[1] != np.shape(s1)[1]):
            raise MechanismError(f"outputs on d0 ({k0}) and d1 ({k1}) are of different kinds")
        chosen: list[Candidate] = select_events(s0, s1, n_cert, a_each, delta,
                                                top=_max_events(events), test=test,
                                                structure=structure_events,
                                                lean=lean_events, shrink=selection_shrink,
                                                screen=selection_screen)
        if events == "auto":       # decided on the selection split: α/(2k) fixed from here
            chosen, why = events_to_certify(chosen, n_cert, alpha, delta, (s0, s1))
            a_each = alpha / (2 * len(chosen))
            notes.append(why)
        evs = [c.event for c in chosen]
        c0 = run_counting(ex, mechanism, d0, streams[2], n_c0, evs, tick)
        c1 = run_counting(ex, mechanism, d1, streams[3], n_c1, evs, tick)
    finally:
        if owned:
            ex.shutdown(wait=True)

    best_i, best = 0, -math.inf
    bounds = []
    for i, c in enumerate(chosen):
        ka, kb = (c0[i], c1[i]) if c.direction == 0 else (c1[i], c0[i])
        na, nb = (n_c0, n_c1) if c.direction == 0 else (n_c1, n_c0)
        if c.test == "poisson":
            b = float(poisson_epsilon_lower_bound(ka, kb, 2 * a_each))
        else:
            b = float(epsilon_lower_bound(ka, max(na, 1), kb, max(nb, 1), a_each, delta))
        bounds.append(b)
        if b > best or i == 0:
            best_i, best = i, b
    c = chosen[best_i]
    ka, kb = (int(c0[best_i]), int(c1[best_i])) if c.direction == 0 \
        else (int(c1[best_i]), int(c0[best_i]))
    na, nb = (max(n_c0, 1), max(n_c1, 1)) if c.direction == 0 else (max(n_c1, 1), max(n_c0, 1))
    p_lo = float(clopper_pearson_lower(ka, na, a_each))
    p_up = float(clopper_pearson_upper(kb, nb, a_each))
    point = log_ratio(ka / na, kb / nb, delta)
    if not best > 0:
        notes.append("inconclusive: no event certified a positive bound (probability above "
                     "delta and a ratio above 1); the bound is the trivial 0")
        best = 0.0
    a_name, b_name = ("d0", "d1") if c.direction == 0 else ("d1", "d0")
    direction = f"P[M({a_name}) in E] <= e^eps * P[M({b_name}) in E] + delta"
    curve = None
    if tradeoff:
        m = 41 if tradeoff is True else int(tradeoff)
        finite = [x for x in (best, exact_eps, point) if x is not None and math.isfinite(x)]
        top = max([2 * eps] + [1.2 * x for x in finite])
        pts = []
        for e in np.linspace(0.0, top, m):
            row = {"epsilon": float(e),
                   "delta_lower_bound": float(max(0.0, p_lo - math.exp(e) * p_up))}
            if ex_dist is not None:
                row["delta_exact"] = exact_mod.delta_of_epsilon(*ex_dist, float(e))
            pts.append(row)
        curve = tuple(pts)
    return AuditReport(
        mechanism=str(getattr(mechanism, "name", type(mechanism).__name__)),
        claimed_epsilon=eps, claimed_delta=delta,
        epsilon_lower_bound=float(best), epsilon_point_estimate=float(point),
        exact_epsilon=exact_eps, exact_delta=exact_delta,
        verdict="violation" if best > eps else "consistent",
        event=c.event.describe(), direction=direction,
        counts={"selection": {"d0": c.sel_counts[0], "d1": c.sel_counts[1], "n": c.sel_n},
                "certification": {"d0": int(c0[best_i]), "d1": int(c1[best_i]), "n": n_cert,
                                  "n_d0": n_c0, "n_d1": n_c1},
                "bounds_per_event": bounds,
                "per_event": [{"event": ch.event.describe(),
                               "more_likely_under": "d0" if ch.direction == 0 else "d1",
                               "d0": int(c0[i]), "d1": int(c1[i]), "bound": bounds[i]}
                              for i, ch in enumerate(chosen)]},
        p_lower=p_lo, p_upper=p_up,
        runs=runs if certify == "binomial" else 2 * n_sel + n_c0 + n_c1,
        selection_runs=len(s0) + len(s1) if given else 2 * n_sel,
        certification_runs=n_c0 + n_c1, alpha=alpha, events_certified=len(chosen),
        seed=seed_used, seconds=time.perf_counter() - t0, tradeoff=curve, notes=tuple(notes),
        certification_test=c.test, chosen_event=c.event,
        certified_events=tuple(ch.event for ch in chosen))
