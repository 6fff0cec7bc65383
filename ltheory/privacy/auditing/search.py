"""Neighbour search: find the neighbouring pair where a mechanism leaks most, and audit it.

The stages: **pairs** (``neighbours``: the generator's candidates that are neighbours under the
target's relation, at most ``max_pairs``, a seeded subset when there are more) → **probe** (a
small draw on the first pair that picks the pilot kind, ``pilots.choose_pilot``) → **pilots**
(successive halving, Jamieson & Talwalkar 2016: each rung pilots every surviving pair on fresh
runs, ranks them by the bound their pilot projects for the final audit, keeps the best third and
triples the runs) → **final audit** of the best pair on seeds independent of the pilots', so its
bound is sound for the chosen pair: the pilots only choose it.

``audit_search(..., total_runs=N)`` plans the whole search within N runs (``plan.search_plan``);
``runs=R`` (a [`SearchConfig`][ltheory.privacy.SearchConfig] option) sets the final audit's runs,
with the pilots on top. ``time_budget`` (seconds) is the whole call's budget (probe, pilots and
final audit; before issue 40 it bounded the pilots only): the pilots get at most `PILOT_TIME_SHARE`
of it -- when that is spent the best pair piloted so far is audited -- and the final audit the rest,
honoured as ``audit``'s ([`budget`][ltheory.privacy.auditing.budget]: a partial report certified on
the runs counted).  Either way the report says ``partial``."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ltheory.blas import one_blas_thread
from ltheory.errors import InvalidInputError
from ltheory.jsonable import to_jsonable
from ltheory.privacy.auditing import budget as budget_mod
from ltheory.privacy.auditing.budget import Deadline, check_time_budget
from ltheory.privacy.auditing.config import AuditConfig
from ltheory.privacy.auditing.core import min_runs, run_audit, split_runs
from ltheory.privacy.auditing.neighbours import (  # noqa: F401 - re-exported
    candidate_pairs,
    check_neighbours,
    labelled_neighbours,
    neighbouring_candidates,
    query_patterns,
)
from ltheory.privacy.auditing.pilot_ranking import PILOT_SHRINK
from ltheory.privacy.auditing.pilots import (
    PILOT_KINDS,
    PROBE_RUNS,
    AuditPilot,
    Pilot,
    PilotContext,
    choose_pilot,
    probe_outputs,
    reusable_runs,
    topped_up_selection,
)
from ltheory.privacy.auditing.plan import PILOT_SETTINGS, SearchPlan, search_plan
from ltheory.privacy.auditing.report import AuditReport
from ltheory.privacy.auditing.target import as_target
from ltheory.validation import check_choice, check_epsilon_delta, check_int, check_level

__all__ = ["PILOT_TIME_SHARE", "SearchConfig", "SearchReport", "audit_search"]

#: The share of a search's time budget its probe and pilots may take (the final audit, which
#: certifies, gets the rest).
PILOT_TIME_SHARE = 0.3


@dataclass(frozen=True)
class SearchConfig:
    """How a neighbour search spends its runs (validated when built).

    Attributes:
        runs: the final audit's runs, pilots on top (give this or ``total_runs``, not both).
        pilot_runs: runs per pair in the first rung (default max(runs // 20, 4 × the minimum
            runs of an audit); set by the plan with ``total_runs``).
        rungs: rounds of successive halving (default 1; set by the plan with ``total_runs``).
        max_pairs: most pairs piloted.
        time_budget: seconds for the whole search, pilots and final audit (None or inf: no
            limit; the same as ``AuditConfig.time_budget``,
            [`ltheory.privacy.auditing.search`][ltheory.privacy.auditing.search]).
        pilots: ``"auto"`` (the probe picks cells, the discrete projection, its blocks or
            quantile bins, falling back to pilot audits), ``"cells"`` (plug-in pilots only for
            few-valued outputs) or ``"audit"`` (pilot audits only, no probe).
        pool_pilots: plug-in pilots pool the counts (binned pilots: the runs) of each dataset
            over all pairs sharing it.
        reuse_pilots: the chosen pair's pilot runs (binned pilots of scalar outputs,
            whole-output cell pilots; pooled over the pairs sharing a dataset) open the final
            audit's selection split, fresh runs top it up to its usual size, and the runs it
            no longer draws certify (``pilots.topped_up_selection``; not under a time
            budget).  Off by default: where it frees the most runs (ReportNoisyMax4 at
            2·10^7) no gain was measurable (``benchmarks/bench_reuse_pilots.py``).
        pilot: the pilot audits' config (default: the search's config with
            ``plan.PILOT_SETTINGS`` applied).
        pilot_shrink: the one-sided level of the Clopper–Pearson bounds the plug-in pilots'
            counts are shrunk to before their projection ranks the pair
            (``pilot_ranking.PILOT_SHRINK``; binned pilots at ``pilots.BIN_PILOT_SHRINK`` at
            most; None: the smoothed frequencies, as before issue 42, which favour pairs whose
            pilots are noisy).
    """

    runs: int | None = None
    pilot_runs: int | None = None
    rungs: int | None = None
    max_pairs: int = 64
    time_budget: float | None = None
    pilots: str = "auto"
    pool_pilots: bool = True
    reuse_pilots: bool = False
    pilot: AuditConfig | None = None
    pilot_shrink: float | None = PILOT_SHRINK

    def __post_init__(self) -> None:
        for name in ("runs", "pilot_runs"):
            if getattr(self, name) is not None:
                check_int(getattr(self, name), name, minimum=2)
        if self.rungs is not None:
            check_int(self.rungs, "rungs", minimum=1)
        check_int(self.max_pairs, "max_pairs", minimum=1)
        object.__setattr__(self, "time_budget", check_time_budget(self.time_budget))
        check_choice(self.pilots, "pilots", PILOT_KINDS)
        check_choice(self.pool_pilots, "pool_pilots", (True, False))
        check_choice(self.reuse_pilots, "reuse_pilots", (True, False))
        if self.pilot_shrink is not None:
            object.__setattr__(self, "pilot_shrink", check_level(self.pilot_shrink,
                                                                 "pilot_shrink"))
        if self.reuse_pilots and self.pilots == "audit":
            raise InvalidInputError("reuse_pilots=True reuses the plug-in pilots' runs as the "
                                    "final selection split, and pilots='audit' runs none: use "
                                    "pilots='auto' or 'cells', or reuse_pilots=False")
        if self.pilot is not None and not isinstance(self.pilot, AuditConfig):
            raise InvalidInputError("pilot must be an AuditConfig (the pilot audits' settings) "
                                    "or None")


_SEARCH_FIELDS = {f.name for f in dataclasses.fields(SearchConfig)}
_AUDIT_FIELDS = {f.name for f in dataclasses.fields(AuditConfig)}


def _configs(config: AuditConfig | None, options: dict) -> tuple[AuditConfig, SearchConfig]:
    """The audit and search configs from ``config`` and keyword options (each option goes to
    the config that has a field of its name; ``search=SearchConfig(...)`` is the base)."""
    search = options.pop("search", None) or SearchConfig()
    if not isinstance(search, SearchConfig):
        raise InvalidInputError("search must be a SearchConfig or None")
    unknown = sorted(set(options) - _SEARCH_FIELDS - _AUDIT_FIELDS)
    if unknown:
        raise InvalidInputError(f"unknown search option(s) {', '.join(unknown)}; accepted: "
                                f"{', '.join(sorted(_SEARCH_FIELDS | _AUDIT_FIELDS))}")
    s_opts = {k: v for k, v in options.items() if k in _SEARCH_FIELDS}
    a_opts = {k: v for k, v in options.items() if k in _AUDIT_FIELDS}
    return (AuditConfig.from_options(config, a_opts),
            dataclasses.replace(search, **s_opts) if s_opts else search)


@dataclass(frozen=True)
class SearchReport:
    """The audit of the worst pair found, the pair itself, and the pilot ranking."""

    report: AuditReport
    pattern: str
    d0: Any
    d1: Any
    ranking: tuple[dict, ...]
    pairs_considered: int
    partial: bool = False
    total_runs: int = 0
    notes: tuple[str, ...] = ()
    plan: SearchPlan | None = None     # how a total_runs budget was spent (``search_plan``)

    def to_json(self) -> dict:
        """The search as a JSON-ready dict (the audit of the chosen pair under ``"report"``)."""
        return to_jsonable({"pattern": self.pattern, "d0": self.d0, "d1": self.d1,
                          "pairs_considered": self.pairs_considered, "partial": self.partial,
                          "total_runs": self.total_runs, "notes": list(self.notes),
                          "ranking": list(self.ranking), "report": self.report.to_json(),
                          "plan": None if self.plan is None else asdict(self.plan)})

    def dumps(self, **kw: Any) -> str:
        """[`to_json`][ltheory.privacy.SearchReport.to_json] as a JSON string (``json.dumps``
        keywords pass through)."""
        return json.dumps(self.to_json(), ensure_ascii=False, **kw)


@one_blas_thread
def audit_search(mechanism: Any, dataset: Any, neighbours: Any = "auto", *,
                 claimed_epsilon: float, claimed_delta: float = 0.0,
                 total_runs: int | None = None, seed: int, alpha: float = 0.05,
                 config: AuditConfig | None = None, **options: Any) -> SearchReport:
    """Find the neighbouring pair near ``dataset`` where ``mechanism`` leaks most, and audit it.

    Generates neighbouring pairs of ``dataset``, runs pilot audits on them in rungs (the
    weakest pairs dropped at each rung), and certifies the most leaking pair with a fresh
    [`audit`][ltheory.privacy.audit]: the final bound is as sound as ``audit``'s, at level
    ``alpha``.  The search and its budget split are described in
    [`ltheory.privacy.auditing.search`][ltheory.privacy.auditing.search].

    Args:
        mechanism: A mechanism, learner or adapter, as for [`audit`][ltheory.privacy.audit].
        dataset: The dataset whose neighbours are searched (a labelled dataset or a vector of
            query answers).
        neighbours: A generator name (``"auto"``, ``"flip"``, ``"move"``, ``"substitution"``,
            ``"add_remove"`` for labelled datasets; ``"auto"``, ``"patterns"``,
            ``"extended"``, ``"sample"`` for answer vectors; see
            [`neighbours`][ltheory.privacy.auditing.neighbours]) or a list of ``(d0, d1)`` /
            ``(name, d0, d1)`` pairs.
        claimed_epsilon: The ε the mechanism claims.
        claimed_delta: The δ the mechanism claims.
        total_runs: The whole budget, probe and pilots included (the search is planned by
            [`search_plan`][ltheory.privacy.search_plan]); or give the
            [`SearchConfig`][ltheory.privacy.SearchConfig] option ``runs`` (the final audit's
            runs, pilots on top).
        seed: A non-negative int (required: a search is reproducible).
        alpha: The probability that the final certified bound is wrong.
        config: An [`AuditConfig`][ltheory.privacy.AuditConfig] for the final audit.
        **options: Fields of [`AuditConfig`][ltheory.privacy.AuditConfig] or
            [`SearchConfig`][ltheory.privacy.SearchConfig] (``max_pairs``, ``rungs``, ...).

    Returns:
        A [`SearchReport`][ltheory.privacy.SearchReport]: the pair chosen, the pilots' ranking
            and ``report``, the final [`AuditReport`][ltheory.privacy.AuditReport].

    Raises:
        InvalidInputError: On bad input (two time budgets, neither ``total_runs`` nor
            ``runs``, an unknown generator, ...).
        TooFewRunsError: When the budget could not certify above the claim.

    Examples:
        >>> from ltheory.privacy import audit_search
        >>> from ltheory.privacy.mechanisms import LaplaceMechanism
        >>> s = audit_search(LaplaceMechanism(1.0), ((0, 1), (1, 0)), claimed_epsilon=0.5,
        ...                  total_runs=200_000, seed=0)
        >>> s.report.verdict
        'violation'
    """
    cfg, search = _configs(config, dict(options))
    if None not in (search.time_budget, cfg.time_budget) \
            and search.time_budget != cfg.time_budget:
        raise InvalidInputError(f"two time budgets: the search's {search.time_budget:g} s and "
                                f"the audit config's {cfg.time_budget:g} s; give one")
    deadline = Deadline(search.time_budget if search.time_budget is not None
                        else cfg.time_budget)
    pilot_dl = Deadline(PILOT_TIME_SHARE * deadline.seconds if deadline.limited else None)
    eps, delta = check_epsilon_delta(claimed_epsilon, claimed_delta,
                                     ("claimed_epsilon", "claimed_delta"))
    alpha = check_level(alpha, "alpha")
    target = as_target(mechanism)
    plan, search = _plan(target, dataset, neighbours, eps, delta, alpha, seed, total_runs,
                         search)
    pilot_ss, final_ss, pick_ss = np.random.SeedSequence(seed).spawn(3)
    pairs, n_candidates = _pairs(target, dataset, plan.neighbours if plan else neighbours, seed,
                                 search.max_pairs, pick_ss)
    rung_ss = pilot_ss.spawn(search.rungs)        # then the probe's stream
    pilot_runs = search.pilot_runs or max(search.runs // 20,
                                          4 * min_runs(eps, delta, alpha, events=1))
    t_probe = budget_mod.clock()
    pilot, probe_runs = _probe(target, pairs[0], pilot_runs, pilot_ss, cfg, search)
    if pilot_dl.limited and probe_runs:
        # the plug-in pilots draw without reading the clock: size them so the first rung fits
        # in half the pilots' share at the probe's rate (the probe ran on the same target)
        rate = (budget_mod.clock() - t_probe) / probe_runs
        fit = int(0.5 * pilot_dl.remaining() / max(rate * len(pairs), 1e-12))
        if fit < pilot_runs:
            pilot_runs = max(fit, 4 * min_runs(eps, delta, alpha, events=1), 200)
            notes_budget = [f"time budget: pilots of {pilot_runs} runs per pair (what the "
                            "pilots' share pays for at the probe's rate)"]
            pilot_dl.mark("pilot size")
        else:
            notes_budget = []
    else:
        notes_budget = []
    ctx = _context(target, eps, delta, alpha, cfg, search, pilot_dl)
    ranking, partial, used, notes = _rungs(pilot, pairs, pilot_runs, rung_ss, ctx, search,
                                           pilot_dl)
    notes = notes_budget + notes
    best = ranking[0]
    a, b = best["_pair"]
    given, fresh = None, 0
    runs_kept = None if deadline.limited or not search.reuse_pilots else \
        reusable_runs(best, pilot, ctx.pool, pick_ss)
    if runs_kept is not None:
        n_sel = split_runs(search.runs, cfg.selection_fraction)[0]
        given, fresh = topped_up_selection(target, (a, b), runs_kept, n_sel,
                                           pick_ss.spawn(1)[0], cfg.executor)
        notes.append(f"plug-in pilots: {2 * n_sel - fresh} of the chosen pair's pilot runs "
                     f"open the final audit's selection split ({fresh} fresh runs top it up "
                     f"to {n_sel} per dataset); every other run of the final audit certifies")
    final = run_audit(target, a, b, eps, delta, alpha, search.runs - fresh,
                      int(final_ss.generate_state(1)[0]), cfg, selection_samples=given,
                      deadline=deadline)
    rows = [{k: v for k, v in d.items() if not k.startswith("_")} for d in ranking]
    if final.partial:
        notes.append("time budget reached during the final audit: its bound is certified on "
                     "the runs it counted (its notes say how many)")
    return SearchReport(final, best["pattern"], a, b, tuple(rows), n_candidates,
                        partial or pilot_dl.reached or final.partial,
                        probe_runs + used + fresh + final.runs, tuple(notes), plan)


def _plan(target: Any, dataset: Any, neighbours: Any, eps: float, delta: float, alpha: float,
          seed: int, total_runs: int | None, search: SearchConfig
          ) -> tuple[SearchPlan | None, SearchConfig]:
    """With ``total_runs``: the plan, and the search config it sets (runs, pilot runs,
    rungs); else the search config as given (rungs default 1)."""
    if (search.runs is None) == (total_runs is None):
        raise InvalidInputError("give exactly one of total_runs (the whole budget, pilots "
                                "included: the search is planned) and runs (the final audit's "
                                "runs, pilots on top)")
    if total_runs is None:
        return None, dataclasses.replace(search, rungs=search.rungs or 1)
    if search.rungs is not None or search.pilot_runs is not None:
        raise InvalidInputError("with total_runs the plan sets rungs and pilot_runs; pass "
                                "runs= to set them yourself")
    plan = search_plan(target, dataset, total_runs, claimed_epsilon=eps, claimed_delta=delta,
                       alpha=alpha, seed=seed, neighbours=neighbours,
                       max_pairs=search.max_pairs)
    return plan, dataclasses.replace(search, runs=plan.final_runs, pilot_runs=plan.pilot_runs,
                                     rungs=plan.rungs)


def _pairs(target: Any, dataset: Any, neighbours: Any, seed: int, max_pairs: int,
           pick_ss: np.random.SeedSequence) -> tuple[list[dict], int]:
    """The candidate pairs (at most ``max_pairs``, a seeded subset) as ranking rows."""
    valid, n_candidates = neighbouring_candidates(target, dataset, neighbours, seed, "audit")
    if len(valid) > max_pairs:
        idx = np.random.default_rng(pick_ss).choice(len(valid), size=max_pairs, replace=False)
        valid = [valid[i] for i in sorted(idx)]
    return [{"pattern": name, "_pair": (a, b)} for name, a, b in valid], n_candidates


def _probe(target: Any, first: dict, pilot_runs: int, pilot_ss: np.random.SeedSequence,
           cfg: AuditConfig, search: SearchConfig) -> tuple[Pilot, int]:
    """The pilot kind, from a probe on the first pair (its own stream, counted in the runs)."""
    if search.pilots == "audit":
        return AuditPilot(), 0
    n = min(pilot_runs // 2, PROBE_RUNS)
    probe = probe_outputs(target, *first["_pair"], n, pilot_ss.spawn(1)[0], cfg.executor,
                          patterns=search.pilots == "auto")
    return choose_pilot(probe, search.pilots), 2 * n


def _context(target: Any, eps: float, delta: float, alpha: float, cfg: AuditConfig,
             search: SearchConfig, deadline: Deadline | None = None) -> PilotContext:
    pilot_cfg = search.pilot or cfg.replace(**PILOT_SETTINGS)
    n_final = split_runs(search.runs, cfg.selection_fraction)[1]
    return PilotContext(target=target, executor=cfg.executor, claimed_epsilon=eps, delta=delta,
                        alpha=alpha, final_runs=search.runs, n_final=n_final,
                        test=cfg.certify if delta == 0 else "binomial", exact=pilot_cfg.exact,
                        audit_config=pilot_cfg, pool={} if search.pool_pilots else None,
                        deadline=deadline, shrink=search.pilot_shrink)


def _rungs(pilot: Pilot, alive: list[dict], pilot_runs: int,
           rung_ss: list[np.random.SeedSequence], ctx: PilotContext, search: SearchConfig,
           deadline: Deadline | None = None) -> tuple[list[dict], bool, int, list[str]]:
    """Successive halving over the pairs; returns the last rung's ranking (best first),
    whether the pilots' time budget (``deadline``) cut it, the runs spent and notes."""
    notes = [pilot.note] if pilot.note else []
    fallback = AuditPilot()
    used, partial = 0, False
    deadline = deadline or Deadline(None)
    for rung in range(search.rungs):
        seeds = rung_ss[rung].generate_state(len(alive))
        done: list[dict] = []
        for d, s in zip(alive, seeds, strict=True):
            if done and deadline.expired():
                deadline.mark("pilots")
                partial = True
                break
            row = None
            if not isinstance(pilot, AuditPilot):
                row = pilot.run(d, pilot_runs, int(s), ctx)
                used += 2 * (pilot_runs // 2)   # spent whether or not the pilot could use them
                if row is None and pilot.fallback_note:
                    notes.append(f"pair {d['pattern']!r}: {pilot.fallback_note} for the "
                                 "plug-in pilot; ranked by a pilot audit")
                    for k in ("_cells", "_n", "_pool", "_blocks", "_rows", "_x"):
                        d.pop(k, None)
            if row is None:
                row = fallback.run(d, pilot_runs, int(s), ctx)
                used += row.pop("_spent")
            row["rung"] = rung
            done.append(row)
        for d in done:                    # every pair at the rung's final pooled counts
            pilot.rescore(d, ctx)
        done.sort(key=lambda d: (-d["projected_bound"], -d["pilot_lower_bound"]))
        if partial:
            notes.append(f"pilots' share of the time budget ({deadline.seconds:.3g} s of "
                         f"{search.time_budget or 0:g} s) spent during rung {rung}: "
                         f"{len(done)} of {len(alive)} pairs piloted there; the best of them "
                         "was audited")
            return done, True, used, notes
        alive = done if rung == search.rungs - 1 else done[: max(1, -(-len(done) // 3))]
        pilot_runs *= 3
    return alive, partial, used, notes
