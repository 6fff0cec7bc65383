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
bound is sound for the chosen pair: the pilots only choose it.  ``time_budget`` (seconds) stops
the pilots when spent; the best pair piloted so far is audited and the report says
``partial``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.core import (
    AuditReport,
    _jsonable,
    audit,
    check_neighbours,
    min_runs,
    split_runs,
)
from ltheory.privacy.auditing.events import SHRINK
from ltheory.privacy.stats import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
    poisson_epsilon_lower_bound,
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

    def to_json(self) -> dict:
        """The search as a JSON-ready dict (the audit of the chosen pair under ``"report"``)."""
        return _jsonable({"pattern": self.pattern, "d0": _plain(self.d0), "d1": _plain(self.d1),
                          "pairs_considered": self.pairs_considered, "partial": self.partial,
                          "total_runs": self.total_runs, "notes": list(self.notes),
                          "ranking": list(self.ranking), "report": self.report.to_json()})

    def dumps(self, **kw: Any) -> str:
        """:meth:`to_json` as a JSON string (``json.dumps`` keywords pass through)."""
        return json.dumps(self.to_json(), ensure_ascii=False, **kw)


def _plain(d: Any) -> Any:
    if isinstance(d, np.ndarray):
        return d.tolist()
    if isinstance(d, tuple | list):
        return [_plain(x) for x in d]
    if isinstance(d, np.generic):
        return d.item()
    return d


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


def audit_search(mechanism: Any, dataset: Any, neighbours: Any = "auto", *,
                 claimed_epsilon: float, claimed_delta: float = 0.0, runs: int,
                 pilot_runs: int | None = None, seed: int, alpha: float = 0.05,
                 executor: Any = None, max_pairs: int = 64, rungs: int = 1,
                 time_budget: float | None = None, pilot_options: dict | None = None,
                 **audit_kw: Any) -> SearchReport:
    """Find the neighbouring pair where ``mechanism`` leaks most and audit it (module docstring).
    ``pilot_runs`` (runs per pair in the first rung) defaults to max(runs // 20, 4 × the
    minimum); ``rungs`` ≥ 1 rounds of successive halving; ``time_budget`` seconds for the
    pilots (partial result when spent); ``audit_kw`` go to every ``audit`` call, and
    ``pilot_options`` override them for the pilots (e.g. ``{"selection_fraction": 0.5,
    "structure_events": False}``: better events from few runs, no classifier fits)."""
    pairs = candidate_pairs(mechanism, dataset, neighbours, seed)
    valid = []
    for name, a, b in pairs:
        try:
            check_neighbours(mechanism, a, b)
        except InvalidInputError:
            continue
        valid.append((name, a, b))
    if not valid:
        raise InvalidInputError("no neighbouring pairs to audit: the generator produced none "
                                "that are neighbours under the mechanism's relation")
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
    for rung in range(rungs):
        seeds = rung_ss[rung].generate_state(len(alive))
        done = []
        for d, s in zip(alive, seeds, strict=True):
            if (time_budget is not None and done
                    and time.perf_counter() - t0 > float(time_budget)):
                partial = True
                break
            a, b = d["_pair"]
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
    final = audit(mechanism, a, b, claimed_epsilon=claimed_epsilon, claimed_delta=claimed_delta,
                  runs=runs, seed=int(final_ss.generate_state(1)[0]), alpha=alpha,
                  executor=executor, **audit_kw)
    ranking = []
    for d in alive:
        d.pop("_pair")
        ranking.append(d)
    return SearchReport(final, best["pattern"], a, b, tuple(ranking), len(pairs), partial,
                        used + final.runs, tuple(notes))


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
    pa = clopper_pearson_lower(ka, max(na, 1), SHRINK) * n_final
    pb = clopper_pearson_upper(kb, max(nb, 1), SHRINK) * n_final
    if r.certification_test == "poisson":
        return float(poisson_epsilon_lower_bound(pa, pb, alpha))
    return float(epsilon_lower_bound(pa, n_final, pb, n_final, alpha / 2, delta))
