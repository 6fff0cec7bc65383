"""Neighbour search: enumerate or sample neighbouring pairs, rank them with a pilot audit, and
audit the worst on fresh runs.

Neighbour generators (``neighbours=``):

* labelled datasets (relation ``substitution``): ``"flip"`` (flip one label), ``"move"`` (move one
  record to another domain point, same label), ``"substitution"`` (every single-record
  substitution over domain × {0, 1}), ``"add_remove"`` (remove one record, or add one record
  (z, b) for every domain point z and label b); ``"auto"`` = substitution, or add_remove for a
  mechanism declaring that relation.
* query answers (relations ``query_answers``, ``single_entry``): ``"patterns"`` — the input
  patterns of Ding et al. 2018 (StatDP, Section 5.2), offsets around the given answer vector
  scaled by the sensitivity: one above, one below, one above rest below, one below rest above,
  half-half, all above, all below, X-shape; ``"extended"`` adds every split point h of the
  half-half and X shapes (up-shifted X too: sparse-vector leaks depend on where the ⊤ can
  fall; no random pairs); ``"sample"``: random pairs with independent offsets in {−Δ, 0, +Δ};
  ``"auto"`` = patterns and 8 random pairs.  Pairs equal to another (or to its swap) are dropped.
* an explicit list of ``(d0, d1)`` or ``(name, d0, d1)``.

At most ``max_pairs`` pairs are piloted (a seeded random subset when there are more).  Pairs are
ranked by the bound their pilot's certified event is projected to reach with the final number of
runs (then by the pilot lower bound).  With ``rungs`` > 1 the pilots are successive halving
(Jamieson & Talwalkar 2016): after each rung the best third survive and are piloted again on
fresh runs, three times as many.  The final audit uses seeds independent of the pilots', so its
bound is sound for the chosen pair: the pilots only choose it.

*Discrete pilots* (``discrete_pilots=True``, default): when a probe of 2·2,000 runs on the
first pair (its own pilot stream, counted in the budget) shows few distinct outputs (at most
``PILOT_CELLS`` = 64, and on average at least 4 runs per value), every pilot instead
draws its runs from its own pilot seed, adds their counts per output value to the pair's earlier
rungs' counts, and ranks the pair by the *plug-in* projection: the best bound any likelihood-ratio
prefix of output values (the Neyman–Pearson events of a finite output space) would certify with
the final audit's runs, from the smoothed pooled frequencies.  It uses every pilot run (no
selection/certification split inside a pilot, which on rare events left the ranking to chance:
on SVT1 the split pilots picked pairs near-uniformly).  The final audit then selects among the
likelihood-ratio cells only (``lean_events``), with unshrunk frequencies.  ``reuse_pilots=True``
makes the winner's pooled pilot runs its selection split (``audit(selection_samples=...)``), so
every final run certifies — sound (the pilot runs come from the pilot streams, independent of
the final audit's) but off by default: on SVT1/SVT4 the pooled runs (~1.5·10^5 per dataset at
2·10^7) chose much weaker events than the final audit's own 10% split.
*Pooled pilots* (``pool_pilots=True``; on in planned searches): the plug-in projection of a
pair uses every discrete pilot run drawn on each of its two datasets so far, by any pair (the
StatDP patterns share datasets: 16 of the 33 extended pairs on 10 queries start from the base
answers), each side with its own run count; a pair's own counts still decide cells and
``reuse_pilots``.  All rung pairs are ranked at the rung's final pooled counts.  Pooled runs
are independent draws of the same dataset, so pooling only lowers the variance of each side's
frequencies; it is the share of sd against the gaps between pairs that decides the choice (on
SVT2 at 2·10^7 the plug-in projection's sd at the last rung is 0.02–0.03 against ceiling gaps
of ~0.005).  Measured by ``benchmarks/bench_pool_pilots.py`` (the planned rungs with pilot
counts drawn from the exact distributions, 1,000 seeds per row; the chosen pair scored by its
ceiling, so the final audit's own draw is left out), pooling raises the mean ceiling of the
chosen pair by 0.002–0.020 at 2·10^6 (SVT4 0.119 → 0.139, SVT1/SVT2 0.042 → 0.049, report
noisy max 1/2 +0.002) and on SVT1/SVT2 at 2·10^7 (0.0837 → 0.0857; picks within 0.002 of the
best pair 722 → 811 of 1,000), and leaves the other rows within 0.0001
(results/pool_pilots_simulate.json).  The final bound on a good pair is itself a draw of sd
~0.01 at 2·10^7, so one seed's table moves both ways.  The pooled runs are pilot runs (pilot
streams): the final audit's streams are untouched, so soundness is unchanged.
*Pattern pilots* (``pattern_pilots=True``, off by default): when the probe's outputs are not
few-valued but their low-cardinality coordinates (at most ``PATTERN_VALUES`` values each) take
few joint values beside continuous ones — the ⊤/⊥ codes of a sparse vector that also releases
the noisy answers (SVT3 and NumericalSVT of Lyu et al.) — the discrete pilots count those
coordinates only and rank pairs by the plug-in projection of that discrete part (a lower
estimate of what the whole output leaks); the final audit keeps every event family.  On SVT3
at 2·10^7 the pilot audits picked "X-shape above h=2" (final audits on two seeds: 0.103,
0.111) over "half-half h=8" (0.141, 0.189), whose leak sits in the rare code of a ⊤ at the
last query — the pilot audits' ~6,000 selection runs see it ~50 times.
*Binned pilots* (``binned_pilots=True``; on in planned searches): when the probe's outputs are
scalars and not few-valued (the noisy-max values of ReportNoisyMax3/4, the Laplace mechanism),
each pilot draws its runs from its own seed, adds them to the pair's earlier rungs' samples, and
ranks the pair by the plug-in projection of the likelihood-ratio prefixes of quantile bins of
the pooled samples (about ``PILOT_BIN_RUNS`` runs per bin, 8 to ``PILOT_CELLS`` bins): every
pilot run counts and no event is certified inside a pilot.  The pilot audits they replace chose
an event on half of the pilot's runs (cuts from one quarter, scored on another) and valued it on
the other half, shrinking twice (98% Clopper–Pearson),
so at 2·10^6 (15,000 runs per dataset per pair) every pair's projection was negative and the
ranking was close to noise.  Over 40 seeds at 2·10^6 (``benchmarks/bench_binned_pilots.py``)
the pilot audits chose one of the two worst pairs, "all above" or "all below", on 29
(ReportNoisyMax4, exact ε = ∞ there; mean certified bound 0.363) and 30 (ReportNoisyMax3, ε =
0.25; mean 0.184); binned pilots on 37 (0.421) and 36 (0.208).  At 2·10^7 (12 seeds) both
chose them on 12 of 12 for ReportNoisyMax4, and the pilot audits on 12, binned pilots on 11 for
ReportNoisyMax3.  Binned pilots take 4–6× less time (no audit, no event selection).  Each pair's
maximum over cells carries the same winner's curse (its null value is ~0.15 at 2·10^6), and the
bins are coarse: a leak confined to a rarer tail than one bin is ranked by what the bin shows
of it.
``time_budget`` (seconds) stops
the pilots when spent; the best pair piloted so far is audited and the report says
``partial``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.jsonable import to_jsonable
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.core import (
    AuditReport,
    audit,
    check_neighbours,
    exact_distributions,
    min_runs,
    split_runs,
)
from ltheory.privacy.auditing.events import SHRINK
from ltheory.privacy.auditing.executors import resolve_executor, run_sampling
from ltheory.privacy.auditing.outputs import batch_kind
from ltheory.privacy.auditing.plan import (
    PLANNED_EVENTS,
    PLANNED_PILOT_OPTIONS,
    SearchPlan,
    search_plan,
)
from ltheory.privacy.auditing.projection import best_lr_prefix, projected_bound, shrunk

#: Most distinct outputs for discrete pilots: with more cells than this, the plug-in ranking from
#: a few thousand runs per pair is noise-driven and the likelihood-ratio cells lose to smoother
#: families in the final selection (SVT6, 2^10 patterns: 0.20 instead of 0.31 at 2e7).
PILOT_CELLS = 64
#: Runs per dataset of the probe deciding whether the pilots are discrete.
PROBE_RUNS = 2_000
#: Most values of a coordinate counted as discrete for pattern pilots (``pattern_pilots``).
PATTERN_VALUES = 3
#: Pooled pilot runs per quantile bin of the binned pilots (``binned_pilots``).
PILOT_BIN_RUNS = 1_000


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


def _domain_size(mechanism: Any, dataset: Sequence) -> int:
    for attr in ("bins",):
        if hasattr(mechanism, attr):
            return int(getattr(mechanism, attr))
    if hasattr(mechanism, "matrix"):
        return int(np.shape(mechanism.matrix)[1])
    return max(int(x) for x, _ in dataset) + 1


def labelled_neighbours(mechanism: Any, dataset: Sequence, kind: str) -> list[tuple]:
    d = tuple((x, int(y)) for x, y in dataset)
    out: list[tuple] = []
    m = _domain_size(mechanism, d) if kind in ("move", "substitution", "add_remove") else 0
    if kind == "add_remove":
        for i, r in enumerate(d):
            out.append((f"remove record {i}: {r}", d, d[:i] + d[i + 1:]))
        for z in range(m):
            for b in (0, 1):
                out.append((f"add record {(z, b)}", d, d + ((z, b),)))
        return out
    for i, (x, y) in enumerate(d):
        subs: list[tuple] = []
        if kind == "flip":
            subs = [(x, 1 - y)]
        elif kind == "move":
            subs = [(z, y) for z in range(m) if z != x]
        else:
            subs = [(z, b) for z in range(m) for b in (0, 1) if (z, b) != (x, y)]
        for s in subs:
            out.append((f"record {i}: {(x, y)} -> {s}", d, d[:i] + (s,) + d[i + 1:]))
    return out


def _floats(v: np.ndarray) -> tuple[float, ...]:
    return tuple(float(x) for x in v)


def query_patterns(base: Sequence[float], sensitivity: float = 1.0, n_random: int = 0,
                   rng: np.random.Generator | None = None, extended: bool = False) -> list[tuple]:
    """The StatDP patterns (module docstring) around ``base``, plus random pairs; ``extended``
    adds the split-point variants of half-half and X-shape."""
    q = np.asarray(base, dtype=float).ravel()
    k, h = q.size, max(q.size // 2, 1)
    ones = np.ones(k)
    pats = {
        "one above": (ones, np.r_[2, ones[1:]]),
        "one below": (ones, np.r_[0, ones[1:]]),
        "one above rest below": (ones, np.r_[2, np.zeros(k - 1)]),
        "one below rest above": (ones, np.r_[0, 2 * ones[1:]]),
        "half-half": (ones, np.r_[np.zeros(h), 2 * ones[h:]]),
        "all above": (ones, 2 * ones),
        "all below": (ones, 0 * ones),
        "X-shape": (np.r_[ones[:h], np.zeros(k - h)], np.r_[np.zeros(h), ones[h:]]),
    }
    if extended and k > 2:
        splits = range(1, k) if k <= 16 else sorted({max(1, round(k * f / 8)) for f in range(1, 8)})
        for j in splits:
            pats[f"half-half h={j}"] = (ones, np.r_[2 * ones[:j], np.zeros(k - j)])
            pats[f"X-shape h={j}"] = (np.r_[ones[:j], np.zeros(k - j)],
                                      np.r_[np.zeros(j), ones[j:]])
            pats[f"X-shape above h={j}"] = (np.r_[2 * ones[:j], ones[j:]],
                                            np.r_[ones[:j], 2 * ones[j:]])
    out = []
    for name, (a, b) in pats.items():
        if not np.array_equal(a, b):
            out.append((name, _floats(q + sensitivity * (a - 1)),
                        _floats(q + sensitivity * (b - 1))))
    rng = rng or np.random.default_rng(0)
    for j in range(n_random):
        off = rng.integers(-1, 2, size=k)
        if not off.any():
            off[0] = 1
        out.append((f"random {j}", _floats(q), _floats(q + sensitivity * off)))
    return out


def candidate_pairs(mechanism: Any, dataset: Any, neighbours: Any, seed: int) -> list[tuple]:
    if not isinstance(neighbours, str):
        pairs = []
        for i, p in enumerate(neighbours):
            if len(p) == 3:
                pairs.append(tuple(p))
            elif len(p) == 2:
                pairs.append((f"pair {i}", p[0], p[1]))
            else:
                raise InvalidInputError("explicit neighbours must be (d0, d1) or (name, d0, d1)")
        return pairs
    rel = getattr(mechanism, "neighbour_relation", "substitution")
    if rel in ("query_answers", "single_entry"):
        if neighbours not in ("auto", "patterns", "extended", "sample"):
            raise InvalidInputError(f"neighbours={neighbours!r} does not apply to query answers; "
                                    "accepted: auto, patterns, extended, sample, or a list of "
                                    "pairs")
        rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[2])
        pats = query_patterns(dataset, float(getattr(mechanism, "sensitivity", 1.0)),
                              8 if neighbours in ("auto", "sample") else 0, rng,
                              extended=neighbours == "extended")
        if neighbours == "sample":
            pats = [p for p in pats if p[0].startswith("random")]
        return _distinct(pats)
    kind = neighbours
    if neighbours == "auto":
        kind = "add_remove" if rel == "add_remove" else "substitution"
    if kind not in ("flip", "move", "substitution", "add_remove"):
        raise InvalidInputError(f"neighbours={neighbours!r} unknown; accepted: auto, flip, move, "
                                "substitution, add_remove, patterns, sample, or a list of pairs")
    try:
        return labelled_neighbours(mechanism, dataset, kind)
    except (TypeError, ValueError):
        raise InvalidInputError("neighbour search expects a labelled dataset (tuple of (x, y) "
                                "pairs) for this mechanism") from None


def _distinct(pairs: list[tuple]) -> list[tuple]:
    """Drop pairs equal to an earlier one or to its swap (events are tried in both
    directions)."""
    seen: set = set()
    out = []
    for name, a, b in pairs:
        key = frozenset((tuple(np.ravel(a).tolist()), tuple(np.ravel(b).tolist())))
        if key not in seen:
            seen.add(key)
            out.append((name, a, b))
    return out


def neighbouring_candidates(mechanism: Any, dataset: Any, neighbours: Any, seed: int,
                            purpose: str = "audit"
                            ) -> tuple[list[tuple[str, Any, Any]], int]:
    """The candidate pairs of :func:`candidate_pairs` that are neighbours under the
    mechanism's relation (others are dropped), as (name, d0, d1), and the number of
    candidates; a clear error when none is left (``purpose`` names what the pairs were for in
    that message)."""
    valid = []
    pairs = candidate_pairs(mechanism, dataset, neighbours, seed)
    for name, a, b in pairs:
        try:
            check_neighbours(mechanism, a, b)
        except InvalidInputError:
            continue
        valid.append((name, a, b))
    if not valid:
        raise InvalidInputError(f"no neighbouring pairs to {purpose}: the generator produced "
                                f"none that are neighbours under the mechanism's relation")
    return valid, len(pairs)


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
        discrete = _few_outputs(mechanism, a0, b0, probe, pilot_ss.spawn(1)[0], executor,
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
                    got = _block_pilot(mechanism, a, b, pilot, int(s), executor, d, blocks)
                else:
                    got = _discrete_pilot(mechanism, a, b, pilot, int(s), executor, d, cols,
                                          pool)
                used += 2 * (pilot // 2)       # spent whether or not the pilot could use them
                if got:
                    if blocks is not None:
                        projected = max(_plugin_projection(c, n_final, alpha, test,
                                                           delta=float(claimed_delta))
                                        for c in d["_blocks"])
                        event = ("plug-in per block (likelihood-ratio prefixes of each "
                                 "block's codes; the best block)")
                    else:
                        pilot_exact(d)
                        projected = _plugin_projection(d, n_final, alpha, test, pool,
                                                       float(claimed_delta))
                        event = "plug-in (likelihood-ratio prefixes of outputs)"
                    done.append(_plugin_ranked(d, rung, d["_n"] * 2, projected, event))
                    continue
                what = "block codes" if blocks is not None else "outputs"
                notes.append(f"pair {d['pattern']!r}: too many distinct {what} for the "
                             "plug-in pilot; ranked by a pilot audit")
                for k in ("_cells", "_n", "_pool", "_blocks"):
                    d.pop(k, None)
            if binned:                         # plug-in pilots: quantile bins of scalars
                got = _binned_pilot(mechanism, a, b, pilot, int(s), executor, d)
                used += 2 * (pilot // 2)       # spent whether or not the pilot could use them
                if got:
                    pilot_exact(d)
                    c, nn = _bin_counts(d["_x"])
                    done.append(_plugin_ranked(
                        d, rung, 2 * len(d["_x"][0]),
                        _lr_prefix_projection(c, nn, n_final, alpha, test,
                                              float(claimed_delta)),
                        f"plug-in ({len(c)} quantile bins of the output)"))
                    continue
            r = audit(mechanism, a, b, claimed_epsilon=claimed_epsilon,
                      claimed_delta=claimed_delta, runs=pilot, seed=int(s), alpha=alpha,
                      executor=executor, **pilot_kw)
            used += r.runs
            d.update({"rung": rung, "pilot_runs": r.runs,
                      "pilot_lower_bound": r.epsilon_lower_bound,
                      "projected_bound": _project(r, runs, alpha, float(claimed_delta)),
                      "pilot_point_estimate": r.epsilon_point_estimate,
                      "exact_epsilon": r.exact_epsilon, "pilot_event": r.event[:80]})
            done.append(d)
        for d in done if pool else ():     # every pair at the rung's final pooled counts
            if "_pool" in d:
                d["projected_bound"] = _plugin_projection(d, n_final, alpha, test, pool,
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
            final_kw["selection_samples"] = _pooled_samples(best, pick_ss)
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


def _draw_rows(mechanism: Any, a: Any, b: Any, n: int, ss: np.random.SeedSequence,
               executor: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """n outputs on each of a and b (seeds spawned from ``ss``) as float rows, or None when
    they are not numeric arrays of one shape (the pilots then cannot count them as cells)."""
    ss0, ss1 = ss.spawn(2)
    ex, owned, _ = resolve_executor(executor, mechanism, 2 * n)
    try:
        s0 = run_sampling(ex, mechanism, a, ss0, n)
        s1 = run_sampling(ex, mechanism, b, ss1, n)
    finally:
        if owned:
            ex.shutdown(wait=True)
    if batch_kind(s0) == "object" or batch_kind(s0) != batch_kind(s1):
        return None
    x0 = np.asarray(s0, dtype=float).reshape(n, -1)
    x1 = np.asarray(s1, dtype=float).reshape(n, -1)
    return None if x0.shape[1] != x1.shape[1] else (x0, x1)


def _few_outputs(mechanism: Any, a: Any, b: Any, n: int, ss: np.random.SeedSequence,
                 executor: Any, patterns: bool = False, info: dict | None = None
                 ) -> tuple[int, ...] | tuple[tuple[int, ...], ...] | None | bool:
    """Whether n runs on each of a, b show at most ``PILOT_CELLS`` distinct outputs (and on
    average at least 4 runs per output).  With ``patterns``, when they do not but the
    low-cardinality coordinates (at most ``PATTERN_VALUES`` values each) take few joint values
    beside continuous ones, those coordinates (the discrete projection of the output, e.g. the
    ⊤/⊥ pattern of a sparse vector that also releases values); when their joint values are
    too many but they form at least two blocks of consecutive coordinates, each few-valued,
    the blocks (a tuple of column tuples); else None / False.  ``info`` (a dict) receives
    ``"columns"``: the number of output coordinates (1 for scalar outputs), when numeric."""
    if n < 1:
        return False
    rows = _draw_rows(mechanism, a, b, n, ss, executor)
    if rows is None:
        return False
    if info is not None:
        info["columns"] = rows[0].shape[1]
    pooled = np.concatenate(rows)
    cap = _cell_cap(n)
    if len(np.unique(pooled, axis=0)) <= cap:
        return True
    if not patterns:
        return False
    card = [len(np.unique(pooled[:, j])) for j in range(pooled.shape[1])]
    cols = tuple(j for j, c in enumerate(card) if 1 < c <= PATTERN_VALUES)
    if not cols or len(cols) == len(card):
        return None
    if len(np.unique(pooled[:, cols], axis=0)) <= cap:
        return cols
    # too many joint codes: the blocks (maximal runs of consecutive discrete coordinates, e.g.
    # the codes of each sparse vector of a parallel composition), when each is few-valued
    blocks = _runs(cols)
    if len(blocks) < 2 or any(len(np.unique(pooled[:, list(bl)], axis=0)) > cap
                              for bl in blocks):
        return None
    return blocks


def _runs(cols: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """``cols`` (increasing) cut into maximal runs of consecutive indices."""
    out: list[list[int]] = []
    for j in cols:
        if out and out[-1][-1] == j - 1:
            out[-1].append(j)
        else:
            out.append([j])
    return tuple(tuple(r) for r in out)


def _dataset_key(ds: Any) -> str:
    """A key identifying a dataset (equal datasets of different pairs share it)."""
    try:
        return json.dumps(to_jsonable(ds), sort_keys=True)
    except (TypeError, ValueError):
        return repr(ds)


def _discrete_pilot(mechanism: Any, a: Any, b: Any, runs: int, seed: int, executor: Any,
                    d: dict, cols: tuple[int, ...] | None = None,
                    pool: dict | None = None) -> bool:
    """Draw runs // 2 outputs on each of a, b from ``seed`` and add their counts per distinct
    output to ``d["_cells"]`` (key -> [row, count under a, count under b]) and, with ``pool``,
    to the pooled counts of each dataset (``pool[key] = [{cell: [row, count]}, runs]``); False
    (nothing recorded) when the outputs take too many distinct values for cells."""
    n = runs // 2
    rows = _draw_rows(mechanism, a, b, n, np.random.SeedSequence(seed), executor)
    if rows is None:
        return False
    x0, x1 = rows
    if cols is not None:                       # the discrete projection of the outputs
        x0, x1 = x0[:, list(cols)], x1[:, list(cols)]
    cells = d.setdefault("_cells", {})
    drawn = _count_cells(cells, x0, x1)
    d["_n"] = d.get("_n", 0) + n
    if len(cells) > _cell_cap(d["_n"]):
        d.pop("_cells")
        d.pop("_n")
        return False
    if pool is not None:
        keys = (_dataset_key(a), _dataset_key(b))
        for key, (u, cnt) in zip(keys, drawn, strict=True):
            got = pool.setdefault(key, [{}, 0])
            for row, c in zip(u, cnt, strict=True):
                got[0].setdefault(row.tobytes(), [row, 0])[1] += int(c)
            got[1] += n
        d["_pool"] = keys
    return True


def _cell_cap(n: int) -> int:
    """Most distinct outputs the plug-in pilots count as cells after n runs per dataset: at most
    ``PILOT_CELLS``, and on average at least 4 runs per cell."""
    return min(PILOT_CELLS, (2 * n) // 4)


def _count_cells(cells: dict, x0: np.ndarray, x1: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """Add the counts of the distinct rows of x0 (under a) and x1 (under b) to ``cells`` (key ->
    [row, count under a, count under b]); returns each side's (distinct rows, counts)."""
    drawn = []
    for j, x in enumerate((x0, x1)):
        u, cnt = np.unique(x, axis=0, return_counts=True)
        drawn.append((u, cnt))
        for row, c in zip(u, cnt, strict=True):
            cells.setdefault(row.tobytes(), [row, 0, 0])[1 + j] += int(c)
    return drawn


def _block_pilot(mechanism: Any, a: Any, b: Any, runs: int, seed: int, executor: Any,
                 d: dict, blocks: tuple[tuple[int, ...], ...]) -> bool:
    """As ``_discrete_pilot``, with counts kept per block of columns (``d["_blocks"]``: one
    ``{"_cells", "_n"}`` per block): each block's codes are a coarsening of the output, so the
    plug-in projection of any one of them is a lower estimate of what the pair leaks, whether
    or not the blocks are independent.  False when a block has too many codes for cells."""
    n = runs // 2
    rows = _draw_rows(mechanism, a, b, n, np.random.SeedSequence(seed), executor)
    if rows is None:
        return False
    per = d.setdefault("_blocks", [{} for _ in blocks])
    for bl, got in zip(blocks, per, strict=True):
        cells = got.setdefault("_cells", {})
        _count_cells(cells, rows[0][:, list(bl)], rows[1][:, list(bl)])
        got["_n"] = got.get("_n", 0) + n
        if len(cells) > _cell_cap(got["_n"]):
            d.pop("_blocks")
            return False
    d["_n"] = d.get("_n", 0) + n
    return True


def _plugin_ranked(d: dict, rung: int, pilot_runs: int, projected: float, event: str) -> dict:
    """``d`` completed as the ranking row of a plug-in pilot (discrete, per-block or binned):
    no event is certified inside such a pilot, so it has no pilot lower bound."""
    d.update({"rung": rung, "pilot_runs": pilot_runs, "projected_bound": projected,
              "pilot_lower_bound": -np.inf, "pilot_point_estimate": None, "pilot_event": event})
    return d


def _binned_pilot(mechanism: Any, a: Any, b: Any, runs: int, seed: int, executor: Any,
                  d: dict) -> bool:
    """Draw runs // 2 outputs on each of a, b from ``seed`` and add them to the pair's pilot
    samples ``d["_x"]`` (scalar outputs; False when they are not)."""
    rows = _draw_rows(mechanism, a, b, runs // 2, np.random.SeedSequence(seed), executor)
    if rows is None or rows[0].shape[1] != 1:
        return False
    old = d.get("_x")
    d["_x"] = tuple(r[:, 0] if old is None else np.concatenate([o, r[:, 0]])
                    for o, r in zip(old or (None, None), rows, strict=True))
    return True


def _bin_counts(x: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Counts of the two samples ``x`` in quantile bins of their pooled values (about
    ``PILOT_BIN_RUNS`` pooled runs per bin, between 8 and ``PILOT_CELLS`` bins; the edges are
    the distinct quantiles, so an atom of the output is never split across bins): a (bins × 2)
    count matrix and the two sample sizes."""
    pooled = np.concatenate(x)
    k = int(np.clip(len(pooled) // PILOT_BIN_RUNS, 8, PILOT_CELLS))
    edges = np.unique(np.quantile(pooled, np.linspace(0, 1, k + 1)[1:-1]))
    c = np.stack([np.bincount(np.searchsorted(edges, xi, side="right"),
                              minlength=len(edges) + 1) for xi in x], axis=1).astype(float)
    return c, np.array([len(x[0]), len(x[1])], dtype=float)


def _lr_prefix_projection(c: np.ndarray, nn: np.ndarray, n_final: int, alpha: float,
                          test: str, delta: float = 0.0) -> float:
    """The best bound a likelihood-ratio prefix of the cells with counts ``c`` (cells × 2, out
    of ``nn`` runs) would certify with ``n_final`` runs per dataset, at the smoothed (add-½)
    frequencies (``projection.best_lr_prefix`` at level ``alpha``, δ included)."""
    p = (c + 0.5) / (nn + 0.5 * len(c))
    return best_lr_prefix(p[:, 0], p[:, 1], n_final, alpha, delta, test).bound


def _plugin_projection(d: dict, n_final: int, alpha: float, test: str,
                       pool: dict | None = None, delta: float = 0.0) -> float:
    """The best bound a likelihood-ratio prefix of output values would certify with ``n_final``
    runs per dataset, at the pair's smoothed pooled pilot frequencies (add-½): the pair's own
    pilot runs, or with ``pool`` every pilot run of each of its datasets (from any pair)."""
    if pool is not None and "_pool" in d:
        k0, k1 = d["_pool"]
        cells = list(dict.fromkeys([*pool[k0][0], *pool[k1][0]]))
        c = np.array([[pool[k][0].get(x, (None, 0))[1] for k in (k0, k1)] for x in cells],
                     dtype=float)
        nn = np.array([pool[k0][1], pool[k1][1]], dtype=float)
    else:
        c = np.array([[v[1], v[2]] for v in d["_cells"].values()], dtype=float)
        nn = np.array([d["_n"], d["_n"]], dtype=float)
    return _lr_prefix_projection(c, nn, n_final, alpha, test, delta)


def _pooled_samples(d: dict, pick_ss: np.random.SeedSequence) -> tuple[np.ndarray, np.ndarray]:
    """The pair's pooled pilot runs as two batches (rows repeated by count, shuffled with a seed
    of the search's own stream, so the events' fit/eval halves are random halves)."""
    rows = np.array([v[0] for v in d["_cells"].values()])
    rng = np.random.default_rng(pick_ss.spawn(1)[0])
    out = []
    for j in (1, 2):
        cnt = np.array([v[j] for v in d["_cells"].values()])
        x = np.repeat(rows, cnt, axis=0)
        x = x[rng.permutation(len(x))]
        out.append(x[:, 0] if x.shape[1] == 1 else x)
    return out[0], out[1]


def _project(r: AuditReport, runs: int, alpha: float, delta: float) -> float:
    """The bound the pilot's certified event is projected to reach with the final ``runs``
    (pilot frequencies shrunk to their 98% Clopper–Pearson bounds, as in event selection), with
    the certification test the pilot used."""
    c = r.counts["certification"]
    first = r.direction.startswith("P[M(d0)")
    ka, kb = (c["d0"], c["d1"]) if first else (c["d1"], c["d0"])
    na, nb = (c.get("n_d0", c["n"]), c.get("n_d1", c["n"]))
    na, nb = (na, nb) if first else (nb, na)
    _, n_final = split_runs(runs, r.selection_runs / r.runs)
    pa, pb = shrunk(ka, kb, max(na, 1), max(nb, 1), SHRINK)
    return float(projected_bound(pa, pb, n_final, alpha, delta, r.certification_test))
