"""Worst-case neighbour search for learners: the neighbouring datasets of size n on which a
learner loses the most privacy, with a sound certificate.

An audit (``ltheory.privacy.audit``) bounds ε on the pair it is handed; a claim that is only
slightly wrong shows on few pairs.  ``audit_worst_case(learner, n)`` searches the pairs.

**Search space.**  Datasets D ∈ R^n over a finite record alphabet R (``learner.record_space()``,
or ``records=``), and their neighbours D' under the learner's relation:

* substitution-type relations (``"substitution"`` and any relation the learner decides with
  ``are_neighbours``, e.g. RelabelAndLearn's "substitution outside V", an online learner's
  sequence, a reward row): D' = D with record i replaced by r ≠ D_i, kept when the learner's
  ``are_neighbours(D, D')`` accepts it;
* ``"add_remove"``: D' = D with record i removed (size n − 1).

**Objective.**  When the learner offers ``output_distribution`` (exact mode): the exact ε of
(D, D') at the claimed δ (``exact.exact_epsilon``, both directions; ties broken by the total
variation distance, which guides the search across pairs whose ε at δ > 0 is still 0).

* ``method="exhaustive"`` (``"auto"`` when there are at most ``exhaustive_limit`` unordered
  pairs): the given starts, then every pair; the result is then the exact maximum over all
  pairs of size n over R (``complete``).
* ``method="anneal"`` (``"auto"`` otherwise): simulated annealing over single-record moves
  (change a shared record, the substituted record on either side, or the differing position),
  seeded restarts — structured starts first (``start_pairs``, ``starts``, then the homogeneous
  datasets r^n), then random datasets — with a geometric cooling schedule scaled to the best ε
  so far, and a final first-improvement local search over the whole single-move neighbourhood
  of the best pair.

Without ``output_distribution`` (pilot mode, ``method="pilot"``): short audits of ``pilot_runs``
runs each rank pairs (their ε lower bound at the lenient level 0.5 as the score) — a pool of
structured and random pairs (``pilot_pool``), then ``pilot_rounds`` rounds of single-record
moves around the best few.

**Certification.**  The best pair is audited afresh with ``certify_runs`` runs whose seeds are
spawned independently of everything used to choose it (the search's randomness and the pilots'),
so the reported ``certified_bound`` is below the pair's true ε at the claimed δ with probability
>= 1 − ``alpha`` (``ltheory.privacy.auditing.certify``: in exact mode the event is chosen from
the exact distributions and every run certifies; in pilot mode a standard ``audit``;
the selection/certification split of Ding et al. 2018 and Bichsel et al. 2021).
``worst_epsilon`` is the exact ε where known (``exact``), else the certified bound.

**Budgets.**  ``budget`` seconds for the whole call (search and certification; before issue 40 it
bounded the search only) and ``max_evaluations`` pair evaluations (pilots in pilot mode). The search
gets at most `SEARCH_SHARE` of the budget; when it runs out the best pair so far is certified and
reported with ``partial=True``.  The certification gets the time left and, when that runs out,
certifies on the runs counted ([`budget`][ltheory.privacy.auditing.budget]), also ``partial``.  A
learner without a record alphabet, a record the learner rejects, a claim that is not finite, or
``method="exhaustive"``/``"anneal"`` without ``output_distribution`` raise
[`InvalidInputError`][ltheory.InvalidInputError] with what was wrong and what is accepted."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError, LtheoryError, UnrealizableSampleWarning
from ltheory.jsonable import to_jsonable
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.budget import Deadline, check_time_budget
from ltheory.privacy.auditing.certify import audit_at, certify_exact_event
from ltheory.privacy.auditing.config import AuditConfig
from ltheory.privacy.auditing.core import TooFewRunsError
from ltheory.privacy.auditing.outputs import MechanismError
from ltheory.privacy.auditing.report import AuditReport
from ltheory.privacy.auditing.target import as_target
from ltheory.validation import check_choice, check_int, check_level, check_seed

__all__ = ["WorstCaseConfig", "WorstCaseReport", "audit_worst_case"]

METHODS = ("auto", "exhaustive", "anneal", "pilot")
#: The share of the budget the search may take (the certification gets the rest).
SEARCH_SHARE = 0.7
MAX_CACHE = 200_000          # output distributions kept (cleared beyond)
PILOT_ALPHA = 0.5            # the pilots' level: a ranking score, not a reported bound
#: The pilot audits' settings, applied to the caller's ``AuditConfig``: one event certified by
#: two Clopper–Pearson bounds on the full event families (the pilots' measured ranking, issue 14
#: part 1; ``benchmarks/results/learners_worst_case.json``), no curve, no progress callback,
#: and the one-step ranking (``credible_ranking=False``, as the planned search's pilots: the
#: pilots' ranking was measured without the credible re-ranking).
PILOT_SETTINGS = {"events": 1, "certify": "binomial", "lean_events": False, "tradeoff": False,
                  "progress": None, "time_budget": None, "credible_ranking": False}


@dataclass(frozen=True)
class WorstCaseReport:
    """The worst neighbouring pair found and its certification (see
    [`ltheory.privacy.auditing.worst_case`][ltheory.privacy.auditing.worst_case]).

    ``pair`` describes how D' differs from D (``{"position", "from", "to"}`` or
    ``{"position", "removed"}``); ``exact_epsilon`` is the pair's exact ε at the claimed δ and
    ``exact_delta`` its exact δ at the claimed ε (None without ``output_distribution``);
    ``certified`` the fresh audit (None when ``certify_runs`` is 0); ``worst_epsilon`` the exact
    ε when known, else the certified bound; ``complete`` is True only after a finished
    exhaustive enumeration; ``partial`` when a budget cut the search short; ``history`` the best
    value after each improvement as (evaluations, seconds, ε)."""

    learner: str
    claimed_epsilon: float
    claimed_delta: float
    n: int
    relation: str
    method: str
    records: int
    d0: Any
    d1: Any
    pair: dict
    exact_epsilon: float | None
    exact_delta: float | None
    certified_bound: float | None
    worst_epsilon: float
    exact: bool
    ratio: float
    violation: bool
    complete: bool
    partial: bool
    evaluations: int
    pairs_total: int | None
    seed: int
    seconds: float
    certified: AuditReport | None = dataclasses.field(default=None, compare=False)
    history: tuple = ()
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """A JSON-ready dict (the project's convention;
        [`dumps`][ltheory.privacy.WorstCaseReport.dumps] gives the string)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
             if f.name != "certified"}
        d["d0"], d["d1"] = self.d0, self.d1
        d["pair"] = dict(self.pair)
        d["history"] = [list(h) for h in self.history]
        d["certified"] = None if self.certified is None else self.certified.to_json()
        return to_jsonable(d)

    def dumps(self, **kw: Any) -> str:
        """[`to_json`][ltheory.privacy.WorstCaseReport.to_json] as a JSON string (``json.dumps``
        keywords pass through)."""
        return json.dumps(self.to_json(), ensure_ascii=False, **kw)


# --------------------------------------------------------------------------- the search space
class _Space:
    """Datasets as tuples of indices into the record alphabet; pairs as (D, i, r) — D' = D with
    position i set to record r (substitution) or removed (add/remove, r = −1)."""

    def __init__(self, learner: Any, records: Sequence, n: int) -> None:
        self.learner, self.R, self.n = learner, list(records), n
        self.m = len(self.R)
        rel = str(getattr(learner, "neighbour_relation", "substitution"))
        self.add_remove = rel == "add_remove"
        self.relation = rel
        self._check = getattr(learner, "are_neighbours", None)

    def data(self, idx: Sequence[int]) -> tuple:
        return tuple(self.R[j] for j in idx)

    def other(self, D: tuple, i: int, r: int) -> tuple:
        return D[:i] + D[i + 1:] if self.add_remove else D[:i] + (r,) + D[i + 1:]

    def valid(self, D: tuple, i: int, r: int) -> bool:
        if r == -2 or (not self.add_remove and r == D[i]):
            return False
        if self._check is None:
            return True
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return bool(self._check(self.data(D), self.data(self.other(D, i, r))))
        except Exception:  # noqa: BLE001 - a relation that cannot judge the pair rejects it
            return False

    def describe(self, D: tuple, i: int, r: int) -> dict:
        if self.add_remove:
            return {"position": i, "removed": self.R[D[i]]}
        return {"position": i, "from": self.R[D[i]], "to": self.R[r]}

    def pairs_total(self) -> int:
        """Unordered pairs (before the learner's own neighbour check)."""
        if self.add_remove:
            return self.m ** self.n * self.n
        return self.m ** self.n * self.n * (self.m - 1) // 2

    def random_pair(self, rng: np.random.Generator) -> tuple[tuple, int, int]:
        D = tuple(int(v) for v in rng.integers(0, self.m, size=self.n))
        return self._complete(D, rng)

    def _complete(self, D: tuple, rng: np.random.Generator, i: int | None = None
                  ) -> tuple[tuple, int, int]:
        for _ in range(4 * self.n + 8):
            ii = int(rng.integers(self.n)) if i is None else i
            r = -1 if self.add_remove else int(rng.integers(self.m - 1))
            if not self.add_remove and r >= D[ii]:
                r += 1
            if self.valid(D, ii, r):
                return D, ii, r
            i = None
        return D, 0, -2                              # no valid neighbour found (rejected later)

    def moves(self, state: tuple[tuple, int, int], rng: np.random.Generator
              ) -> tuple[tuple, int, int]:
        """One random single-record move (see
        [`ltheory.privacy.auditing.worst_case`][ltheory.privacy.auditing.worst_case])."""
        D, i, r = state
        u = rng.random()
        if self.n > 1 and u < 0.55:                  # a shared record
            j = int(rng.integers(self.n - 1))
            j += j >= i
            c = int(rng.integers(self.m - 1))
            c += c >= D[j]
            return D[:j] + (c,) + D[j + 1:], i, r
        if not self.add_remove and u < 0.75:         # the substituted record of D'
            c = int(rng.integers(self.m))
            return (D, i, c) if c not in (D[i], r) else (D, i, r)
        if u < 0.9 or self.n == 1:                   # the differing record of D
            c = int(rng.integers(self.m))
            if c == D[i] or (not self.add_remove and c == r):
                return D, i, r
            return D[:i] + (c,) + D[i + 1:], i, r
        j = int(rng.integers(self.n - 1))            # the differing position
        j += j >= i
        return self._complete(D, rng, j)

    def neighbourhood(self, state: tuple[tuple, int, int]) -> list[tuple[tuple, int, int]]:
        """Every single move from ``state`` (for the final local search)."""
        D, i, r = state
        out = []
        for j in range(self.n):
            for c in range(self.m):
                if c != D[j] and (j != i or self.add_remove or c != r):
                    out.append((D[:j] + (c,) + D[j + 1:], i, r))
        if not self.add_remove:
            out += [(D, i, c) for c in range(self.m) if c not in (D[i], r)]
        for j in range(self.n):
            if j != i:
                if self.add_remove:
                    out.append((D, j, -1))
                else:
                    out += [(D, j, c) for c in range(self.m) if c != D[j]]
        return out


# --------------------------------------------------------------------------- exact objective
class _ExactObjective:
    """The exact ε at δ of a pair from cached output distributions (dense vectors over one
    growing index of outputs)."""

    def __init__(self, space: _Space, delta: float) -> None:
        self.space, self.delta = space, delta
        self.fn = space.learner.output_distribution
        self.index: dict[Any, int] = {}
        self.cache: dict[tuple, tuple[np.ndarray, np.ndarray] | None] = {}
        self.evaluations = 0
        self.unavailable = 0

    def dist(self, D: tuple) -> tuple[np.ndarray, np.ndarray] | None:
        got = self.cache.get(D, False)
        if got is not False:
            return got
        if len(self.cache) > MAX_CACHE:
            self.cache.clear()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UnrealizableSampleWarning)
                raw = self.fn(self.space.data(D))
        except NotImplementedError:
            self.unavailable += 1
            self.cache[D] = None
            return None
        except InvalidInputError:
            self.cache[D] = None
            return None
        except LtheoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - user code
            raise MechanismError(f"output_distribution raised {type(exc).__name__}: {exc}"
                                 ) from None
        keys, probs = [], []
        for k, v in raw.items():
            kk = exact_mod.output_key(k)
            j = self.index.get(kk)
            if j is None:
                j = self.index[kk] = len(self.index)
            keys.append(j)
            probs.append(float(v))
        p = np.clip(np.array(probs, dtype=float), 0, None)
        if p.size == 0 or not np.all(np.isfinite(p)) or abs(p.sum() - 1.0) > 1e-6:
            raise MechanismError(f"output_distribution returned total {p.sum():.6g}; expected a "
                                 "probability distribution {output: probability}")
        self.cache[D] = (np.array(keys, dtype=np.int64), p)
        return self.cache[D]

    def __call__(self, state: tuple[tuple, int, int]) -> tuple[float, float]:
        """(ε at δ, total variation) of the pair; (−inf, 0) when not evaluable."""
        D, i, r = state
        if r == -2:
            return -math.inf, 0.0
        a, b = self.dist(D), self.dist(self.space.other(D, i, r))
        self.evaluations += 1
        if a is None or b is None:
            return -math.inf, 0.0
        size = len(self.index)
        p0, p1 = np.zeros(size), np.zeros(size)
        np.add.at(p0, a[0], a[1])
        np.add.at(p1, b[0], b[1])
        tv = 0.5 * float(np.abs(p0 - p1).sum())
        return exact_mod.exact_epsilon(p0, p1, self.delta), tv


def _better(v: tuple[float, float], w: tuple[float, float]) -> bool:
    return v[0] > w[0] + 1e-12 or (abs(v[0] - w[0]) <= 1e-12 and v[1] > w[1] + 1e-12)


class _Tracker:
    """Best pair so far, budgets and the improvement history."""

    def __init__(self, budget: float, max_evaluations: int | None) -> None:
        self.t0 = time.perf_counter()
        self.budget, self.max_ev = budget, max_evaluations
        self.best: tuple[tuple, int, int] | None = None
        self.value: tuple[float, float] = (-math.inf, -math.inf)
        self.history: list[tuple[int, float, float]] = []
        self.cut = False
        self.steps: list[float] = []          # seconds of each pilot audit (pilot mode)

    def offer(self, state: tuple[tuple, int, int], value: tuple[float, float], evals: int
              ) -> None:
        if value[0] > -math.inf and _better(value, self.value):
            self.best, self.value = state, value
            if not self.history or value[0] > self.history[-1][2] + 1e-12:
                self.history.append((evals, round(self.elapsed(), 3), float(value[0])))

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def out_of_budget(self, evals: int) -> bool:
        """Whether the budget is spent, or would be by the next step (a pilot's mean duration
        so far: a pilot audit of a slow learner takes seconds, so none starts that is expected
        to end past the budget)."""
        step = sum(self.steps) / len(self.steps) if self.steps else 0.0
        if self.elapsed() + step > self.budget or (self.max_ev is not None
                                                   and evals >= self.max_ev):
            self.cut = True
        return self.cut

    def done(self) -> bool:
        return math.isinf(self.value[0]) and self.value[0] > 0


# --------------------------------------------------------------------------- exact searches
def _exhaustive(space: _Space, obj: _ExactObjective, track: _Tracker) -> bool:
    """Every unordered pair; True when it finished."""
    for D in itertools.product(range(space.m), repeat=space.n):
        for i in range(space.n):
            targets = [-1] if space.add_remove else range(D[i] + 1, space.m)
            for r in targets:
                if not space.valid(D, i, r):
                    continue
                track.offer((D, i, r), obj((D, i, r)), obj.evaluations)
                if track.done():
                    return True
                if obj.evaluations % 64 == 0 and track.out_of_budget(obj.evaluations):
                    return False
    return True


def _anneal(space: _Space, obj: _ExactObjective, track: _Tracker, rng: np.random.Generator,
            starts: list[tuple[tuple, int, int]], restarts: int, steps: int, scale: float
            ) -> None:
    for k in range(restarts):
        state = starts[k] if k < len(starts) else space.random_pair(rng)
        val = obj(state)
        track.offer(state, val, obj.evaluations)
        s = max(track.value[0] if math.isfinite(track.value[0]) else 0.0, 0.01 * scale, 1e-6)
        t_hi, t_lo = 0.2 * s, 1e-3 * s
        w = 0.01 * scale          # the total variation breaks ties (flat ε at δ > 0)
        for step in range(steps):
            if track.done() or track.out_of_budget(obj.evaluations):
                return
            temp = t_hi * (t_lo / t_hi) ** (step / max(steps - 1, 1))
            cand = space.moves(state, rng)
            if cand == state or not space.valid(*cand):
                continue
            cv = obj(cand)
            if cv[0] == -math.inf:
                continue
            track.offer(cand, cv, obj.evaluations)
            if track.done():
                return
            gain = (cv[0] + w * cv[1]) - (val[0] + w * val[1]) if val[0] > -math.inf \
                else math.inf
            if gain >= 0 or rng.random() < math.exp(gain / temp):
                state, val = cand, cv


def _local_search(space: _Space, obj: _ExactObjective, track: _Tracker,
                  rng: np.random.Generator) -> None:
    """First-improvement hill climbing over the whole single-move neighbourhood of the best."""
    improved = True
    while improved and track.best is not None and not track.done():
        improved = False
        nb = space.neighbourhood(track.best)
        for j in rng.permutation(len(nb)):
            if track.out_of_budget(obj.evaluations):
                return
            cand = nb[int(j)]
            if not space.valid(*cand):
                continue
            before = track.value
            track.offer(cand, obj(cand), obj.evaluations)
            if _better(track.value, before):
                improved = True
                break


# --------------------------------------------------------------------------- pilots
def _pilot_search(space: _Space, track: _Tracker, rng: np.random.Generator, pilot_seeds:
                  np.random.Generator, starts: list[tuple[tuple, int, int]], eps: float,
                  delta: float, pilot_runs: int, pool: int, rounds: int,
                  cfg: AuditConfig) -> int:
    """Rank pairs by pilot audits (see
    [`ltheory.privacy.auditing.worst_case`][ltheory.privacy.auditing.worst_case]); returns the
    number of pilots run."""
    done: dict[tuple, tuple[float, float]] = {}

    def pilot(state: tuple[tuple, int, int]) -> None:
        if state in done or state[2] == -2 or not space.valid(*state):
            return
        D, i, r = state
        t0 = time.perf_counter()
        try:
            rep = audit_at(space.learner, space.data(D), space.data(space.other(D, i, r)),
                           eps, delta, pilot_runs, int(pilot_seeds.integers(2**62)),
                           PILOT_ALPHA, cfg)
        except TooFewRunsError:
            raise
        except InvalidInputError:
            done[state] = (-math.inf, 0.0)
            return
        finally:
            track.steps.append(time.perf_counter() - t0)
        pe = rep.epsilon_point_estimate
        val = (float(rep.epsilon_lower_bound), float(pe) if math.isfinite(pe) else 0.0)
        done[state] = val
        track.offer(state, val, len(done))

    for state in starts[:pool]:
        if track.out_of_budget(len(done)):
            return len(done)
        pilot(state)
    while len(done) < pool and not track.out_of_budget(len(done)):
        pilot(space.random_pair(rng))
    for _ in range(rounds):
        if track.out_of_budget(len(done)):
            break
        ranked = sorted((s for s in done if done[s][0] > -math.inf),
                        key=lambda s: done[s], reverse=True)[:3]
        if not ranked:
            for _ in range(9):
                if track.out_of_budget(len(done)):
                    return len(done)
                pilot(space.random_pair(rng))
            continue
        before = len(done)
        for s in ranked:
            for _ in range(3):
                if track.out_of_budget(len(done)):
                    return len(done)
                pilot(space.moves(s, rng))
        if len(done) == before:                      # every move already piloted
            pilot(space.random_pair(rng))
    return len(done)


# --------------------------------------------------------------------------- the entry point
def _claim(learner: Any, claimed_epsilon: Any, claimed_delta: Any) -> tuple[float, float]:
    if claimed_epsilon is None or claimed_delta is None:
        cl = getattr(learner, "claim", None)
        try:
            e0, d0 = float(cl[0]), float(cl[1])  # type: ignore[index]
        except (TypeError, ValueError, IndexError):
            raise InvalidInputError("the learner states no claim (.claim = (epsilon, delta)); "
                                    "pass claimed_epsilon and claimed_delta") from None
        claimed_epsilon = e0 if claimed_epsilon is None else claimed_epsilon
        claimed_delta = d0 if claimed_delta is None else claimed_delta
    try:
        eps, delta = float(claimed_epsilon), float(claimed_delta)
    except (TypeError, ValueError):
        raise InvalidInputError("claimed_epsilon and claimed_delta must be numbers") from None
    if not (math.isfinite(eps) and eps > 0):
        raise InvalidInputError(f"the claimed epsilon must be a finite number > 0, got {eps!r} "
                                "(a non-private learner has nothing to audit)")
    if not 0.0 <= delta < 1.0:
        raise InvalidInputError(f"the claimed delta must be in [0, 1), got {delta!r}")
    return eps, delta


def _records(learner: Any, records: Any) -> list:
    if records is None:
        fn = getattr(learner, "record_space", None)
        records = fn() if callable(fn) else None
        if records is None:
            raise InvalidInputError(
                f"{_name(learner)} names no finite record alphabet (record_space()); pass "
                "records=[...] (the records a dataset is built from, e.g. [(0, 0), (0, 1), "
                "(1, 0), (1, 1)] for points 0, 1 with labels 0, 1)")
    try:
        out = list(dict.fromkeys(records))
    except TypeError:
        raise InvalidInputError("records must be a sequence of hashable records (tuples, "
                                "numbers, strings)") from None
    if len(out) < 2:
        raise InvalidInputError(f"the record alphabet has {len(out)} distinct record(s); a "
                                "neighbouring pair needs at least 2")
    return out


def _name(learner: Any) -> str:
    return str(getattr(learner, "name", type(learner).__name__))


def _validate_records(space: _Space, exact: bool) -> None:
    """Every record must be accepted by the learner (bad input gets a clear error)."""
    base = (0,) * space.n
    for j, rec in enumerate(space.R):
        D = (j,) + base[1:]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if exact:
                    space.learner.output_distribution(space.data(D))
                else:
                    space.learner.fit(space.data(D), np.random.default_rng(0)) \
                        if hasattr(space.learner, "fit") else space.learner(
                            space.data(D), np.random.default_rng(0))
        except NotImplementedError:
            continue
        except InvalidInputError as exc:
            raise InvalidInputError(f"{_name(space.learner)} rejects a dataset of {space.n} "
                                    f"records built from the record {rec!r}: {exc}") from None


def _start_states(space: _Space, starts: Any, start_pairs: Any, rng: np.random.Generator
                  ) -> list:
    """``start_pairs`` ((d0, d1) neighbouring pairs), ``starts`` (datasets of size n), then the
    homogeneous datasets r^n, as search states."""
    index = {rec: j for j, rec in enumerate(space.R)}

    def idx(d: Any, size: int, what: str) -> tuple:
        try:
            out = tuple(index[x] for x in d)
        except (KeyError, TypeError):
            raise InvalidInputError(f"{what} must be a dataset of records from the record "
                                    f"alphabet (e.g. {space.R[0]!r})") from None
        if len(out) != size:
            raise InvalidInputError(f"{what} has {len(out)} records, expected {size}")
        return out

    out = []
    for d0, d1 in start_pairs or ():
        D = idx(d0, space.n, "a start pair's d0")
        D1 = idx(d1, space.n - 1 if space.add_remove else space.n, "a start pair's d1")
        cands = [(D, i, -1 if space.add_remove else D1[i]) for i in range(space.n)
                 if space.other(D, i, -1 if space.add_remove else D1[i]) == D1]
        cands = [c for c in cands if space.valid(*c)]
        if not cands:
            raise InvalidInputError("a start pair is not a neighbouring pair under the "
                                    f"learner's relation {space.relation!r}")
        out.append(cands[0])
    for d in starts or ():
        out.append(space._complete(idx(d, space.n, "a start dataset"), rng))
    out += [space._complete((j,) * space.n, rng) for j in rng.permutation(space.m)]
    return out


@dataclass(frozen=True)
class WorstCaseConfig:
    """How ``audit_worst_case`` searches (validated when built).

    Attributes:
        records: the record alphabet (default ``learner.record_space()``).
        method: "auto", "exhaustive", "anneal" or "pilot".
        max_evaluations: most pairs evaluated (None: the time budget alone).
        exhaustive_limit: most unordered pairs "auto" enumerates.
        restarts, steps: the annealing schedule.
        starts, start_pairs: datasets and (d0, d1) pairs to start from (structured guesses).
        pilot_runs, pilot_pool, pilot_rounds: the pilot audits of pilot mode (a pool of pairs,
            then rounds of 9 moves around the best 3).
        certify_runs: runs of the fresh certification of the best pair (0: none).
        progress: ``progress(message)`` called at each stage.
    """

    records: Sequence | None = None
    method: str = "auto"
    max_evaluations: int | None = None
    exhaustive_limit: int = 100_000
    restarts: int = 8
    steps: int = 1500
    starts: Sequence | None = None
    start_pairs: Sequence | None = None
    pilot_runs: int = 4_000
    pilot_pool: int = 16
    pilot_rounds: int = 20
    certify_runs: int = 100_000
    progress: Callable[[str], None] | None = dataclasses.field(default=None, compare=False)

    def __post_init__(self) -> None:
        check_choice(self.method, "method", METHODS)
        for nm, lo in (("restarts", 1), ("steps", 1), ("pilot_pool", 1), ("pilot_rounds", 0),
                       ("certify_runs", 0), ("pilot_runs", 2), ("exhaustive_limit", 0)):
            check_int(getattr(self, nm), nm, minimum=lo)
        if self.max_evaluations is not None:
            check_int(self.max_evaluations, "max_evaluations (None or an integer)", minimum=1)
        if self.progress is not None and not callable(self.progress):
            raise InvalidInputError("progress must be a callable progress(message) or None")


_WC_FIELDS = {f.name for f in dataclasses.fields(WorstCaseConfig)}


def audit_worst_case(learner: Any, n: int, *, claimed_epsilon: float | None = None,
                     claimed_delta: float | None = None, budget: float | None = 60.0, seed: int = 0,
                     alpha: float = 0.05, config: AuditConfig | None = None,
                     **options: Any) -> WorstCaseReport:
    """Search the neighbouring datasets of size ``n`` for the largest privacy loss of
    ``learner`` and certify the worst pair found
    ([`ltheory.privacy.auditing.worst_case`][ltheory.privacy.auditing.worst_case] for the method).

    ``claimed_epsilon``/``claimed_delta`` default to ``learner.claim``; ``budget`` seconds bound
    the whole call (None or ``inf``: no limit; the search gets `SEARCH_SHARE` of it, the
    certification the rest; when either is cut the report says ``partial=True``); ``seed`` makes the
    whole run reproducible; ``alpha`` is the certification's level; ``config`` (an
    [`AuditConfig`][ltheory.privacy.AuditConfig]) sets the pilot and certification audits, and
    ``**options`` are
    fields of [`WorstCaseConfig`][ltheory.privacy.WorstCaseConfig] (``method``, ``certify_runs``,
    ...) or of
    [`AuditConfig`][ltheory.privacy.AuditConfig].  Returns a
    [`WorstCaseReport`][ltheory.privacy.WorstCaseReport].
    """
    t0 = time.perf_counter()
    wc_opts = {k: v for k, v in options.items() if k in _WC_FIELDS}
    cfg = AuditConfig.from_options(config, {k: v for k, v in options.items()
                                            if k not in _WC_FIELDS})
    wc = WorstCaseConfig(**wc_opts)
    target = as_target(learner)
    n = check_int(n, "n", minimum=1)
    seed = check_seed(seed, allow_none=False)
    alpha = check_level(alpha, "alpha")
    budget = _check_budget(budget)
    deadline = Deadline(budget)
    eps, delta = _claim(learner, claimed_epsilon, claimed_delta)
    space = _Space(learner, _records(learner, wc.records), n)
    search_ss, pilot_ss, cert_ss = np.random.SeedSequence(seed).spawn(3)
    rng = np.random.default_rng(search_ss)
    found = _search(space, target, wc, cfg,
                    math.inf if budget is None else SEARCH_SHARE * budget, eps, delta, rng,
                    pilot_ss)
    D, i, r = found.track.best
    d0, d1 = space.data(D), space.data(space.other(D, i, r))
    exact_eps, exact_delta = _exact_at(found, learner, d0, d1, eps)
    cert = _certify(learner, d0, d1, found.obj is not None, eps, delta, alpha, wc, cfg,
                    int(cert_ss.generate_state(1)[0]), deadline)
    bound = None if cert is None else float(cert.epsilon_lower_bound)
    if exact_eps is None and bound is None:
        raise InvalidInputError("without output_distribution the worst pair needs a "
                                "certification audit: set certify_runs > 0")
    worst = exact_eps if exact_eps is not None else float(bound)  # type: ignore[arg-type]
    return WorstCaseReport(
        learner=target.name, claimed_epsilon=eps, claimed_delta=delta, n=n,
        relation=space.relation, method=found.method, records=space.m, d0=d0, d1=d1,
        pair=space.describe(D, i, r), exact_epsilon=exact_eps, exact_delta=exact_delta,
        certified_bound=bound, worst_epsilon=worst, exact=exact_eps is not None,
        ratio=worst / eps, violation=bool(worst > eps * (1 + 1e-9)),
        complete=found.complete and not found.track.cut,
        partial=found.track.cut or bool(cert is not None and cert.partial),
        evaluations=found.evaluations, pairs_total=found.total, seed=seed,
        seconds=time.perf_counter() - t0, certified=cert, history=tuple(found.track.history),
        notes=tuple(found.notes + _budget_notes(found)))


def _check_budget(budget: Any) -> float | None:
    """Seconds > 0 for the whole call, or None for no limit (None or ``inf``)."""
    return check_time_budget(budget, "budget")


@dataclass
class _Found:
    """The outcome of the search stage."""

    track: _Tracker
    obj: _ExactObjective | None
    method: str
    complete: bool
    evaluations: int
    total: int | None
    notes: list[str]


def _search(space: _Space, target: Any, wc: WorstCaseConfig, cfg: AuditConfig, budget: float,
            eps: float, delta: float, rng: np.random.Generator,
            pilot_ss: np.random.SeedSequence) -> _Found:
    """The search stage: exhaustive or annealed over exact ε where the learner has an output
    distribution, pilot audits otherwise."""
    if wc.method in ("exhaustive", "anneal") and not target.has_distribution:
        raise InvalidInputError(f"method={wc.method!r} needs the exact output distribution, "
                                f"and {target.name} offers no output_distribution; use "
                                "method='pilot' (or 'auto')")
    notes: list[str] = []
    exact_ok = target.has_distribution and wc.method != "pilot"
    _validate_records(space, exact_ok)
    first = _start_states(space, wc.starts, wc.start_pairs, rng)
    obj = _ExactObjective(space, delta) if exact_ok else None
    if obj is not None and obj.dist(first[0][0]) is None and obj.unavailable:
        notes.append("output_distribution is not available at this size (NotImplementedError)"
                     ": searched with pilot audits")
        obj = None
    track = _Tracker(budget, wc.max_evaluations)
    say = wc.progress or (lambda _msg: None)
    if obj is None:
        say(f"{target.name}: pilot search ({wc.pilot_runs} runs per pilot)")
        evaluations = _pilot_search(space, track, rng, np.random.default_rng(pilot_ss), first,
                                    eps, delta, wc.pilot_runs, wc.pilot_pool, wc.pilot_rounds,
                                    cfg.replace(**PILOT_SETTINGS))
        found = _Found(track, None, "pilot", False, evaluations, None, notes)
    else:
        total = space.pairs_total()
        method = wc.method if wc.method != "auto" else (
            "exhaustive" if total is not None and total <= wc.exhaustive_limit else "anneal")
        say(f"{target.name}: {method} search over {total} pairs")
        complete = False
        if method == "exhaustive":
            n_given = len(wc.start_pairs or ()) + len(wc.starts or ())
            for st in first[:n_given]:               # the caller's guesses count if cut short
                track.offer(st, obj(st), obj.evaluations)
            complete = _exhaustive(space, obj, track)
        else:
            _anneal(space, obj, track, rng, first, wc.restarts, wc.steps, eps)
            if not track.cut:
                _local_search(space, obj, track, rng)
        if obj.unavailable:
            notes.append(f"{obj.unavailable} datasets had no exact distribution "
                         "(NotImplementedError) and were skipped")
        found = _Found(track, obj, method, bool(complete), obj.evaluations, total, notes)
    if track.best is None:
        raise InvalidInputError(f"no neighbouring pair of size {space.n} over these records "
                                f"could be evaluated for {target.name} (every dataset was "
                                "rejected or the relation admits no pair)")
    return found


def _exact_at(found: _Found, learner: Any, d0: Any, d1: Any, eps: float
              ) -> tuple[float | None, float | None]:
    """The worst pair's exact ε (the search's value) and exact δ at the claimed ε."""
    if found.obj is None:
        return None, None
    _, a, b = exact_mod.aligned(learner.output_distribution(d0), learner.output_distribution(d1))
    return float(found.track.value[0]), exact_mod.delta_of_epsilon(a, b, eps)


def _certify(learner: Any, d0: Any, d1: Any, exact: bool, eps: float, delta: float,
             alpha: float, wc: WorstCaseConfig, cfg: AuditConfig, seed: int,
             deadline: Deadline | None = None) -> AuditReport | None:
    """The certification stage: an event chosen from the exact distributions, or an audit of
    the pair judged against the claim (``certify_pair``), on fresh runs, within the time left
    of ``deadline`` (partial when it runs out)."""
    if not wc.certify_runs:
        return None
    if exact:
        return certify_exact_event(learner, d0, d1, claimed_epsilon=eps, claimed_delta=delta,
                                   runs=int(wc.certify_runs), seed=seed, alpha=alpha,
                                   deadline=deadline)
    if deadline is not None and deadline.limited:
        cfg = cfg.replace(time_budget=max(deadline.remaining(), 1e-3))
    return audit_at(learner, d0, d1, eps, delta, int(wc.certify_runs), seed, alpha, cfg)


def _budget_notes(found: _Found) -> list[str]:
    notes = []
    if found.track.cut:
        notes.append("budget reached: the search's share of the budget ran out; the best pair "
                     "so far is reported (partial)")
    if found.method == "exhaustive" and not found.complete:
        notes.append(f"exhaustive enumeration stopped after {found.evaluations} of "
                     f"{found.total} pairs")
    return notes
