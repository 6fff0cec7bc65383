"""Neighbour search: enumerate or sample neighbouring pairs, rank them with a pilot audit, and
audit the worst on fresh runs.

Neighbour generators (``neighbours=``): see ``neighbours``.

At most ``max_pairs`` pairs are piloted (a seeded random subset when there are more).  Pairs are
ranked by the bound their pilot's certified event is projected to reach with the final number of
runs (then by the pilot lower bound).  With ``rungs`` > 1 the pilots are successive halving
(Jamieson & Talwalkar 2016): after each rung the best third survive and are piloted again on
fresh runs, three times as many.  The final audit uses seeds independent of the pilots', so its
bound is sound for the chosen pair: the pilots only choose it.

Pilot kinds (discrete, pattern, per-block, binned, audit): see ``pilots``.
``time_budget`` (seconds) stops
the pilots when spent; the best pair piloted so far is audited and the report says
``partial``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.jsonable import to_jsonable
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.core import (
    AuditReport,
    audit,
    exact_distributions,
    min_runs,
    split_runs,
)
from ltheory.privacy.auditing.neighbours import (  # noqa: F401 - re-exported
    candidate_pairs,
    check_neighbours,
    labelled_neighbours,
    neighbouring_candidates,
    query_patterns,
)
from ltheory.privacy.auditing.pilots import (
    PROBE_RUNS,
    bin_counts,
    binned_pilot,
    block_pilot,
    discrete_pilot,
    lr_prefix_projection,
    pilot_audit_projection,
    plugin_projection,
    plugin_ranked,
    pooled_samples,
    probe_outputs,
)
from ltheory.privacy.auditing.plan import (
    PLANNED_EVENTS,
    PLANNED_PILOT_OPTIONS,
    SearchPlan,
    search_plan,
)


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
        """:meth:`to_json` as a JSON string (``json.dumps`` keywords pass through)."""
        return json.dumps(self.to_json(), ensure_ascii=False, **kw)


def audit_search(mechanism: Any, dataset: Any, neighbours: Any = "auto", *,
                 claimed_epsilon: float, claimed_delta: float = 0.0, runs: int | None = None,
                 total_runs: int | None = None,
                 pilot_runs: int | None = None, seed: int, alpha: float = 0.05,
                 executor: Any = None, max_pairs: int = 64, rungs: int | None = None,
                 time_budget: float | None = None, pilot_options: dict | None = None,
                 discrete_pilots: bool = True, reuse_pilots: bool = False,
                 pattern_pilots: bool | None = None, pool_pilots: bool | None = None,
                 binned_pilots: bool | None = None, **audit_kw: Any) -> SearchReport:
    """Find the neighbouring pair where ``mechanism`` leaks most and audit it (module docstring).

    Give exactly one of ``total_runs`` and ``runs``:

    * ``total_runs``: the whole budget, pilots and probe included.  The search is planned by
      ``plan.search_plan`` (neighbour generator, pairs, rungs, pilot runs, final runs) and uses
      the settings measured best on DP-Sniper's suite unless given here: ``pattern_pilots=True``,
      ``pool_pilots=True``, ``binned_pilots=True``,
      ``certify="auto"`` (``"binomial"`` when ``claimed_delta`` > 0), ``events="auto"`` and
      ``pilot_options=plan.PLANNED_PILOT_OPTIONS``.  ``neighbours``, ``rungs`` and
      ``pilot_runs`` then come from the plan (an explicit generator other than "auto" is kept).
    * ``runs``: the final audit's runs; the pilots come on top.  ``pilot_runs`` (runs per pair
      in the first rung) defaults to max(runs // 20, 4 × the minimum); ``rungs`` (default 1)
      ≥ 1 rounds of successive halving.

    ``time_budget`` seconds for the pilots (partial result when spent); ``audit_kw`` go to
    every ``audit`` call, and ``pilot_options`` override them for the pilots (e.g.
    ``{"selection_fraction": 0.5, "structure_events": False}``: better events from few runs,
    no classifier fits); ``pool_pilots``: discrete pilots pool their counts per dataset across
    pairs (module docstring)."""
    if (runs is None) == (total_runs is None):
        raise InvalidInputError("give exactly one of total_runs (the whole budget, pilots "
                                "included: the search is planned) and runs (the final audit's "
                                "runs, pilots on top)")
    plan = None
    if total_runs is not None:
        if rungs is not None or pilot_runs is not None:
            raise InvalidInputError("with total_runs the plan sets rungs and pilot_runs; pass "
                                    "runs= to set them yourself")
        plan = search_plan(mechanism, dataset, total_runs, claimed_epsilon=claimed_epsilon,
                        claimed_delta=claimed_delta, alpha=alpha, seed=seed,
                        neighbours=neighbours, max_pairs=max_pairs)
        neighbours, rungs = plan.neighbours, plan.rungs
        pilot_runs, runs = plan.pilot_runs, plan.final_runs
        pattern_pilots = True if pattern_pilots is None else pattern_pilots
        binned_pilots = True if binned_pilots is None else binned_pilots
        pool_pilots = True if pool_pilots is None else pool_pilots
        audit_kw.setdefault("certify", "auto" if float(claimed_delta) == 0 else "binomial")
        audit_kw.setdefault("events", PLANNED_EVENTS)
        if pilot_options is None:
            pilot_options = dict(PLANNED_PILOT_OPTIONS)
    rungs = 1 if rungs is None else rungs
    pattern_pilots = bool(pattern_pilots)
    if isinstance(runs, bool) or not isinstance(runs, int | np.integer):
        raise InvalidInputError(f"runs must be an integer, got {runs!r}")
    runs = int(runs)
    valid, n_candidates = neighbouring_candidates(mechanism, dataset, neighbours, seed, "audit")
    root = np.random.SeedSequence(seed)
    pilot_ss, final_ss, pick_ss = root.spawn(3)
    if len(valid) > max_pairs:
        idx = np.random.default_rng(pick_ss).choice(len(valid), size=max_pairs, replace=False)
        valid = [valid[i] for i in sorted(idx)]
    if isinstance(rungs, bool) or not isinstance(rungs, int) or rungs < 1:
        raise InvalidInputError(f"rungs must be an integer >= 1, got {rungs!r}")
    if time_budget is not None and not (float(time_budget) > 0):
        raise InvalidInputError(f"time_budget must be a number of seconds > 0, got "
                                f"{time_budget!r}")
    need = min_runs(float(claimed_epsilon), float(claimed_delta), alpha)
    pilot = int(pilot_runs) if pilot_runs is not None else max(runs // 20, 4 * need)
    pilot_kw = {**audit_kw, **(pilot_options or {})}
    t0 = time.perf_counter()
    alive = [{"pattern": name, "_pair": (a, b)} for name, a, b in valid]
    rung_ss = pilot_ss.spawn(rungs)
    used, partial, notes = 0, False, []
    discrete = False
    probe_info: dict = {}
    if discrete_pilots:                # a small probe (its own stream) decides the pilot kind
        _, a0, b0 = valid[0]
        probe = min(pilot // 2, PROBE_RUNS)
        discrete = probe_outputs(mechanism, a0, b0, probe, pilot_ss.spawn(1)[0], executor,
                                patterns=pattern_pilots, info=probe_info)
        used += 2 * probe
    binned = bool(binned_pilots) and not discrete and probe_info.get("columns") == 1
    if binned:
        notes.append("binned pilots: pairs ranked by the plug-in projection of quantile bins "
                     "of the (scalar) outputs")
    blocks = discrete if isinstance(discrete, tuple) and isinstance(discrete[0], tuple) \
        else None
    cols = discrete if isinstance(discrete, tuple) and blocks is None else None
    pool: dict | None = {} if pool_pilots else None   # dataset -> pooled discrete pilot counts
    if cols is not None:
        notes.append(f"pattern pilots: pairs ranked by the plug-in projection of the discrete "
                     f"coordinates {list(cols)} of the outputs")
    if blocks is not None:
        notes.append("pattern pilots per block: pairs ranked by the best plug-in projection of "
                     "one block of discrete coordinates "
                     f"{[f'{bl[0]}..{bl[-1]}' for bl in blocks]} of the outputs")
    sel_frac = float(audit_kw.get("selection_fraction", 0.1))
    n_final = runs // 2 if reuse_pilots else split_runs(runs, sel_frac)[1]
    test = audit_kw.get("certify", "binomial")
    test = test if float(claimed_delta) == 0 else "binomial"

    def pilot_exact(d: dict) -> None:
        """The pair's exact ε in its ranking row (once per pair), as a pilot audit reports it."""
        if "exact_epsilon" not in d:
            d["exact_epsilon"] = _exact(mechanism, *d["_pair"], float(claimed_delta),
                                        bool(pilot_kw.get("exact", True)))

    for rung in range(rungs):
        seeds = rung_ss[rung].generate_state(len(alive))
        done = []
        for d, s in zip(alive, seeds, strict=True):
            if (time_budget is not None and done
                    and time.perf_counter() - t0 > float(time_budget)):
                partial = True
                break
            a, b = d["_pair"]
            if discrete:                       # plug-in pilots: counts of output cells
                if blocks is not None:
                    got = block_pilot(mechanism, a, b, pilot, int(s), executor, d, blocks)
                else:
                    got = discrete_pilot(mechanism, a, b, pilot, int(s), executor, d, cols,
                                          pool)
                used += 2 * (pilot // 2)       # spent whether or not the pilot could use them
                if got:
                    if blocks is not None:
                        projected = max(plugin_projection(c, n_final, alpha, test,
                                                           delta=float(claimed_delta))
                                        for c in d["_blocks"])
                        event = ("plug-in per block (likelihood-ratio prefixes of each "
                                 "block's codes; the best block)")
                    else:
                        pilot_exact(d)
                        projected = plugin_projection(d, n_final, alpha, test, pool,
                                                       float(claimed_delta))
                        event = "plug-in (likelihood-ratio prefixes of outputs)"
                    done.append(plugin_ranked(d, rung, d["_n"] * 2, projected, event))
                    continue
                what = "block codes" if blocks is not None else "outputs"
                notes.append(f"pair {d['pattern']!r}: too many distinct {what} for the "
                             "plug-in pilot; ranked by a pilot audit")
                for k in ("_cells", "_n", "_pool", "_blocks"):
                    d.pop(k, None)
            if binned:                         # plug-in pilots: quantile bins of scalars
                got = binned_pilot(mechanism, a, b, pilot, int(s), executor, d)
                used += 2 * (pilot // 2)       # spent whether or not the pilot could use them
                if got:
                    pilot_exact(d)
                    c, nn = bin_counts(d["_x"])
                    done.append(plugin_ranked(
                        d, rung, 2 * len(d["_x"][0]),
                        lr_prefix_projection(c, nn, n_final, alpha, test,
                                              float(claimed_delta)),
                        f"plug-in ({len(c)} quantile bins of the output)"))
                    continue
            r = audit(mechanism, a, b, claimed_epsilon=claimed_epsilon,
                      claimed_delta=claimed_delta, runs=pilot, seed=int(s), alpha=alpha,
                      executor=executor, **pilot_kw)
            used += r.runs
            d.update({"rung": rung, "pilot_runs": r.runs,
                      "pilot_lower_bound": r.epsilon_lower_bound,
                      "projected_bound": pilot_audit_projection(r, runs, alpha,
                                                                float(claimed_delta)),
                      "pilot_point_estimate": r.epsilon_point_estimate,
                      "exact_epsilon": r.exact_epsilon, "pilot_event": r.event[:80]})
            done.append(d)
        for d in done if pool else ():     # every pair at the rung's final pooled counts
            if "_pool" in d:
                d["projected_bound"] = plugin_projection(d, n_final, alpha, test, pool,
                                                         float(claimed_delta))
                d["pooled_runs"] = [pool[k][1] for k in d["_pool"]]   # per dataset
        done.sort(key=lambda d: (-d["projected_bound"], -d["pilot_lower_bound"]))
        if partial:
            notes.append(f"time budget of {float(time_budget):g} s spent during rung {rung}: "
                         f"{len(done)} of {len(alive)} pairs piloted there; the best of them "
                         "was audited")
            alive = done
            break
        alive = done if rung == rungs - 1 else done[: max(1, -(-len(done) // 3))]
        pilot *= 3
    best = alive[0]
    a, b = best["_pair"]
    final_kw = dict(audit_kw)
    if discrete is True and "_cells" in best:
        # finite outputs: every event is a union of outputs and the likelihood-ratio prefixes
        # hold the best, so the final audit selects among them only, without shrinking their
        # frequencies (which favours frequent events of small ratio over the rare cells where
        # sparse-vector pairs leak)
        final_kw.update(lean_events=True, selection_shrink=0.5)
        if reuse_pilots:
            final_kw["selection_samples"] = pooled_samples(best, pick_ss)
            notes.append(f"discrete pilots: the chosen pair's {2 * best['_n']} pilot runs are "
                         "the final audit's selection split; all its runs certify")
    final = audit(mechanism, a, b, claimed_epsilon=claimed_epsilon, claimed_delta=claimed_delta,
                  runs=runs, seed=int(final_ss.generate_state(1)[0]), alpha=alpha,
                  executor=executor, **final_kw)
    ranking = []
    for d in alive:
        for k in ("_pair", "_cells", "_n", "_pool", "_blocks", "_x"):
            d.pop(k, None)
        ranking.append(d)
    return SearchReport(final, best["pattern"], a, b, tuple(ranking), n_candidates, partial,
                        used + final.runs, tuple(notes), plan)


def _exact(mechanism: Any, a: Any, b: Any, delta: float, want: bool) -> float | None:
    """The pair's exact ε (as a pilot audit would report it), or None."""
    if not want:
        return None
    ex = exact_distributions(mechanism, a, b)
    return None if ex is None else exact_mod.exact_epsilon(*ex, delta)


