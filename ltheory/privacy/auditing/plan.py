"""Spending one run budget on a neighbour search: how many pairs, rungs and pilot runs.

``audit_search(..., total_runs=N)`` plans its search with
[`search_plan`][ltheory.privacy.search_plan] so that pilots and
the final audit together stay within ``N`` runs, and uses the settings measured best on
DP-Sniper's suite of 20 mechanisms (Bichsel et al. 2021, IEEE S&P; issue 14,
``benchmarks/bench_dpsniper_suite.py``; docs/reference/auditor.md, History):

* neighbours: for query-answer mechanisms and ``neighbours="auto"``, the StatDP patterns with
  every split point (``"extended"``) when the pilots can afford them, else the plain patterns
  (Ding et al. 2018, Section 5.2); any other generator is used as given;
* successive halving (Jamieson & Talwalkar 2016) with 3 rungs above 6 pairs, 2 above 2, else 1,
  and fewer rungs or the plain patterns when the first rung's pilots would get fewer than
  ``MIN_PILOT`` runs per pair (smaller pilots cannot tell pairs apart);
* ``PILOT_SHARE`` = 12% of the budget for the pilots, the rest for the final audit, less a
  margin for the pilot-kind probe (at most 4,000 runs) and the Poisson numbers of certification
  runs of ``certify="auto"``: max(10·sqrt(N), 4,000 + 6·sqrt(N)), at least 6 standard deviations
  of their sum above its mean, so a planned search overruns N with probability below 10^-8.

The plan only decides how the budget is spent; every bound is that of the final audit on fresh
runs, so soundness does not depend on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.core import min_runs
from ltheory.privacy.auditing.neighbours import neighbouring_candidates
from ltheory.privacy.auditing.pilots import PROBE_RUNS
from ltheory.privacy.auditing.target import as_target

#: Share of the budget the pilots get.
PILOT_SHARE = 0.12
#: Fewest runs per pair in the first rung before the plan falls back to fewer pairs or rungs.
MIN_PILOT = 20_000
#: Events a planned final audit certifies: ``AuditConfig``'s default "auto", one or two decided
#: on its selection split (``events.events_to_certify``), and the first one's deeper cuts
#: (``deeper``).  Over 24 seed-rows of the suite at
#: 2·10^7 (round 6, docs/reference/auditor.md) it reached DP-Sniper's bound on 13, against 10
#: with one event and 10 with two, and matched the better of the two settings on 20.
PLANNED_EVENTS = "auto"
#: The pilot audits' settings, applied to the search's ``AuditConfig`` (``SearchConfig.pilot``
#: overrides): half of each pilot selects (better events from few runs), one event, no
#: classifier fits, the full event families, no trade-off curve and no progress callback.
#: Pilots keep the one-step ranking (``credible_ranking=False``): their bounds rank pairs, and
#: the milder ranking moved PrefixSum's pair choice on 7 of 9 headline seeds at 2·10^6 runs
#: (and at 2·10^7, where the final audit does not use it) without a measured gain in pair choice.
PILOT_SETTINGS = {"selection_fraction": 0.5, "events": 1, "structure_events": False,
                  "lean_events": False, "tradeoff": False, "progress": None,
                  "credible_ranking": False}


@dataclass(frozen=True)
class SearchPlan:
    """How ``audit_search`` spends ``total_runs``: the neighbour generator, the pairs it
    yields (at most ``max_pairs`` are piloted), rungs of successive halving, pilot runs per
    pair in the first rung (×3 per rung), pilot runs in all, and the final audit's runs."""

    neighbours: Any
    pairs: int
    rungs: int
    pilot_runs: int
    pilot_total: int
    final_runs: int
    total_runs: int


def _count_pairs(mechanism: Any, dataset: Any, neighbours: Any, seed: int) -> int:
    try:
        return len(neighbouring_candidates(mechanism, dataset, neighbours, seed)[0])
    except InvalidInputError:        # none of the generator's pairs are neighbours
        return 0


def _pilot_total(pairs: int, rungs: int, pilot: int) -> int:
    total, alive = 0, pairs
    for r in range(rungs):
        total += alive * pilot * 3 ** r
        alive = -(-alive // 3)
    return total


def search_plan(mechanism: Any, dataset: Any, total_runs: int, *, claimed_epsilon: float,
                claimed_delta: float = 0.0, alpha: float = 0.05, seed: int = 0,
                neighbours: Any = "auto", max_pairs: int = 64) -> SearchPlan:
    """The plan of a neighbour search within ``total_runs`` runs (see
    [`ltheory.privacy.auditing.plan`][ltheory.privacy.auditing.plan]): the
    richest of (extended patterns, 3 rungs), (patterns, 3, 2 or 1 rungs) — for other
    generators, the given one with 3, 2 or 1 rungs — whose first-rung pilots get at least
    ``MIN_PILOT`` runs per pair, or the last of them; pilots get at least 4 × the minimum
    runs of an audit.  Raises ``InvalidInputError`` when the budget cannot pay for the pilots
    and a final audit able to certify ``claimed_epsilon``."""
    if isinstance(total_runs, bool) or not isinstance(total_runs, int) or total_runs <= 0:
        raise InvalidInputError(f"total_runs must be a positive integer, got {total_runs!r}")
    need = min_runs(float(claimed_epsilon), float(claimed_delta), alpha, events=1)
    rel = as_target(mechanism).relation
    gens = (("extended", "patterns") if neighbours == "auto"
            and rel in ("query_answers", "single_entry") else (neighbours,))
    options = []
    for i, gen in enumerate(gens):
        pairs = min(_count_pairs(mechanism, dataset, gen, seed), max_pairs)
        if pairs == 0:
            continue
        top = 3 if pairs > 6 else 2 if pairs > 2 else 1
        # the richer generator only with all its rungs; the last one also with fewer
        options += [(gen, pairs, r) for r in range(top, 0, -1)
                    if i == len(gens) - 1 or r == top]
    if not options:
        raise InvalidInputError("no neighbouring pairs to search: the generator produced none "
                                "that are neighbours under the mechanism's relation")
    for gen, pairs, rungs in options:
        weight = _pilot_total(pairs, rungs, 1)
        pilot = max(int(PILOT_SHARE * total_runs / weight), 4 * need)
        if pilot >= MIN_PILOT or (gen, rungs) == (options[-1][0], options[-1][2]):
            break
    def margin(n: int) -> int:
        return max(int(10 * math.sqrt(n)), 2 * PROBE_RUNS + int(6 * math.sqrt(n)))

    pilots = _pilot_total(pairs, rungs, pilot)
    final = total_runs - pilots - margin(total_runs)
    need_final = min_runs(float(claimed_epsilon), float(claimed_delta), alpha,
                          events=PLANNED_EVENTS)
    if final < need_final:
        enough = pilots + need_final
        for _ in range(50):         # the margin grows with the budget: its fixed point
            enough = pilots + need_final + margin(enough)
        raise InvalidInputError(
            f"total_runs={total_runs} is too few for a planned search: {pairs} pairs need "
            f"{pilots} pilot runs and the final audit at least {need_final}; pass at least "
            f"{enough + 1} runs, or fewer pairs (neighbours=[...])")
    return SearchPlan(gen, pairs, rungs, pilot, pilots, final, total_runs)
