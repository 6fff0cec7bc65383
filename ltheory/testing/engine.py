"""The sequential privacy test of one neighbouring pair, one batch at a time.

Schedule (per dataset): a first batch of ``first_batch`` runs is used only to choose an event;
then looks t = 1, 2, … draw batches of a quarter of the runs drawn so far (betting; the
spending baseline doubles, ``GROWTH``), at least ``first_batch`` and at most ``max_batch``,
until ``max_runs`` runs in all — so a betting test that stops in the middle of a batch has drawn
at most ~25% more runs than it needed.  The event and its direction are chosen by the
auditor's event selection (``ltheory.privacy.auditing.events.select_events``:
likelihood-ratio cells, thresholds, linear scores, cross-fitted) on the runs *already drawn* —
at most ``POOL`` (``SCALAR_POOL`` for scalar outputs) of the most recent per dataset — so the
event is independent of the batch it
is tested on; it is chosen again each time the runs drawn have doubled (up to ``EARLY`` per
dataset; then grown by the factor ``RESELECT``).  The batch then updates the test of
``ltheory.testing.sequential`` (betting e-process, or Clopper–Pearson with alpha spending),
which may stop in the middle of a batch.  The betting test bets nothing on a
batch whose event did not beat the claim on the held-out selection runs (``_promising``).

With δ > 0 the betting test's event is instead the one of largest expected log-growth of its
wealth (``ltheory.testing.gap_events``: the δ-gap P_a(E) − e^ε P_b(E) − δ against its
variance), chosen again every ``GAP_RESELECT`` on scalar outputs.  A curve claim is checked at
the points (ε_j, δ_j) of a fixed cover (``ltheory.testing.claim_points``: ε = 0, large δ, the
decades): each point has its own event and its own e-process (a grid of δ at ε_j,
``sequential.delta_grid``, whose first row is the point's claim), all fed by the same runs;
and at one data-chosen point, moved at each event selection to the grid ε
(``claim_points.adaptive_grid``) whose event has the largest shrunk growth rate on the runs
already drawn (``_move``), whose wealth (``sequential.MovingEProcess``) bets at the point of
each batch.  The test rejects when the weighted average — ``ADAPTIVE_WEIGHT`` to the
data-chosen point, the rest shared by the fixed points — reaches 1/α (``_average_crossing``).
Validity: every choice (events, directions, the data-chosen ε) is a function of runs drawn
before the batch it is used on, and a mechanism that satisfies the claim satisfies
(ε, δ(ε))-DP at every ε, so each bet of each point has conditional expected factor ≤ 1 and
each point's wealth is a nonnegative supermartingale with initial value 1 on the same
filtration; so is their fixed convex combination, and Ville's inequality bounds the
probability that it ever reaches 1/α by α ([`claim_points`][ltheory.testing.claim_points]).

Each batch of each dataset has its own seed, spawned in order from ``SeedSequence(seed)``; runs
are drawn through the auditor's executors (chunked, any ``concurrent.futures.Executor``), so a
seed reproduces the test wherever it runs.
"""

from __future__ import annotations

import functools
import math
import time
from concurrent.futures import Executor
from typing import Any

import numpy as np

from ltheory.jsonable import to_jsonable
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.core import exact_distributions
from ltheory.privacy.auditing.events import Candidate, select_events
from ltheory.privacy.auditing.executors import run_sampling
from ltheory.privacy.auditing.floating import check_arithmetic, is_float_event, violation_note
from ltheory.privacy.auditing.outputs import Batch, MechanismError, batch_kind, concat
from ltheory.privacy.claims import PrivacyClaim, as_claim
from ltheory.testing.claim_points import ADAPTIVE_WEIGHT, adaptive_grid
from ltheory.testing.gap_events import growth_rate, select_gap_events
from ltheory.testing.report import PrivacyTestReport
from ltheory.testing.sequential import (
    BettingEProcess,
    MovingEProcess,
    delta_grid,
    epsilon_grid,
    spending_level,
    spending_test,
)

FIRST_BATCH = 500
MAX_BATCH = 1 << 16
POOL = 1 << 16
#: ... and for scalar outputs (cheap to select on): a leak in one run of 10^3 to the point 10
#: beside a GDP(1) pair shows ~65 times among 65,536 runs, too few to stand out of a tight
#: claim's bulk; among 2^20 (~1,000 times) it does (5 of 5 seeds at 3× its oracle, 0 of 5 before)
SCALAR_POOL = 1 << 20
RESELECT = 4
EARLY = 1 << 14
#: Next batch = runs drawn so far // GROWTH: the betting test may stop at any run, so small
#: steps (+25%) waste little; the spending test certifies each look on its batch alone, so its
#: batches double.
GROWTH = {"betting": 4, "spending": 1}
METHODS = ("betting", "spending")
#: δ > 0 (``gap_events``): the event is chosen again whenever the runs drawn have grown by this
#: factor (a choice costs a few ms on a scalar output).
GAP_RESELECT = 1.25
#: The data-chosen point stays where it is unless another grid point's event scores more than
#: this factor above its own.
STICK = 1.2


def _raw_growth(c: Candidate, epsilon: float, delta: float) -> float:
    """The betting test's expected log-growth per pair (``gap_events.growth_rate``) of an
    event at its raw selection frequencies."""
    k0, k1 = c.sel_counts
    ka, kb = (k0, k1) if c.direction == 0 else (k1, k0)
    n = max(c.sel_n, 1)
    return float(growth_rate(ka / n, kb / n, epsilon, delta))


def mechanism_name(mechanism: Any) -> str:
    """The name reports give a mechanism: its ``name`` attribute, else a function's or a
    callable object's qualified name (``my_mechanism``, ``Noisy.release``; a
    ``functools.partial`` by its function's), else its class."""
    name = getattr(mechanism, "name", None)
    if isinstance(name, str) and name:
        return name
    if isinstance(mechanism, functools.partial):
        return mechanism_name(mechanism.func)
    qual = getattr(mechanism, "__qualname__", None)
    if isinstance(qual, str) and qual and "<lambda>" not in qual:
        return qual
    return type(mechanism).__name__


def with_cause(exc: MechanismError) -> MechanismError:
    """``exc`` again, raised from the user's exception: the auditor raises
    ``MechanismError(...) from None``, which hides the line of the user's mechanism that failed;
    its ``__context__`` still holds that exception (with its traceback), so it becomes the
    cause (as ``raise ... from exc`` would).  The new error's own traceback starts in this
    module, whose frames pytest hides (``__tracebackhide__``): a failing test shows the user's
    line in their mechanism, then the line of their test."""
    new = MechanismError(str(exc))
    new.__cause__ = exc.__cause__ or exc.__context__
    new.__suppress_context__ = True
    return new


def _observed(ka: int, kb: int, n: int, delta: float) -> float | None:
    """ln((ka/n − δ)/(kb/n)): inf when kb = 0 < ka − δn, None when ka/n ≤ δ."""
    pa, pb = ka / max(n, 1) - delta, kb / max(n, 1)
    if pa <= 0:
        return None
    return math.inf if pb == 0 else math.log(pa / pb)


def _keep_last(b: Batch, n: int) -> Batch:
    return b[-n:] if len(b) > n else b


class SequentialTest:
    """State of one sequential test; ``step()`` draws one batch, ``report()`` the result."""

    def __init__(self, mechanism: Any, d0: Any, d1: Any, *, epsilon: float, delta: float,
                 alpha: float, max_runs: int, seed: np.random.SeedSequence,
                 seed_value: int | None, method: str, executor: Executor,
                 first_batch: int = FIRST_BATCH, max_batch: int = MAX_BATCH,
                 claim: PrivacyClaim | None = None,
                 points: list[tuple[float, float]] | None = None,
                 arithmetic: str = "float") -> None:
        self.mechanism, self.d0, self.d1 = mechanism, d0, d1
        #: "float": the bit families of float outputs too (``auditing.floating``); "real": not
        self.arithmetic = check_arithmetic(arithmetic)
        self.epsilon, self.delta, self.alpha = epsilon, delta, alpha
        #: the claim and the points (ε_j, δ_j) checked (``claim_points``); one point: the
        #: classic (ε, δ) test, whose ε-grid e-process ``proc`` decides
        self.points = list(points) if points else [(float(epsilon), float(delta))]
        self.claim = claim if claim is not None else as_claim((epsilon, delta))
        if len(self.points) > 1 and method != "betting":
            raise ValueError("a claim checked at several points needs method='betting'")
        self.max_runs, self.method, self.executor = max_runs, method, executor
        self.seed_value = seed_value
        self.streams = seed.spawn(2)
        self.per = max_runs // 2
        self.first = max(1, min(first_batch, self.per // 4))
        self.size = self.first
        self.max_batch = max_batch
        self.used = 0                       # runs per dataset drawn so far
        self.looks = 0
        self.skipped = 0
        self.cand: Candidate | None = None
        self.cands: list[Candidate] = []
        self.selected_at = 0
        self.selections = 0
        self.pool: list[Batch] = []
        single = len(self.points) == 1 and self.points[0][0] > 0      # ε = 0: no ε grid
        self.proc = (BettingEProcess(epsilon_grid(epsilon), delta, alpha)
                     if method == "betting" and single else None)
        # one e-process per point on a grid of δ at its ε: the first row is the point's claim
        # (the test, for several points), the rest give the certified δ
        self.dprocs = [BettingEProcess(np.full(len(g), e), g, alpha)
                       for e, d in self.points for g in [delta_grid(d)]] \
            if method == "betting" else []
        # the data-chosen point (curve claims, betting): it moves, at each event selection, to
        # the point of ``grid`` whose event looks best on past runs (``claim_points``)
        self.grid = adaptive_grid(self.claim) \
            if method == "betting" and len(self.points) > 1 else []
        self.gi: int | None = None          # its index in ``grid`` (None: not chosen yet)
        self.aproc = MovingEProcess(*self.grid[0], alpha) if self.grid else None
        # per grid point, the δ grid of the batches it was chosen for (its certified δ)
        self.gprocs: dict[int, BettingEProcess] = {}
        self.moves = 0
        k = len(self.points)
        #: log weights of the points in the test's e-value (fixed points, then the data-chosen)
        self.logw = (np.log(np.r_[np.full(k, (1 - ADAPTIVE_WEIGHT) / k), ADAPTIVE_WEIGHT])
                     if self.grid else np.full(k, -math.log(k)))
        #: the level of every certified-δ reading (Bonferroni over all the points read)
        self.read_level = alpha / (k + len(self.grid))
        self.top = 0                        # the point with the most evidence so far
        self.certified: dict[int, float | None] = {}    # certified δ per point, at the stop
        self.verdict = "passed"
        self.bound: float | None = None
        self.decided_at: int | None = None   # runs per dataset up to the deciding pair
        self.last: dict = {}
        self.seconds = 0.0
        self.finished = False
        self.notes: list[str] = []

    # ------------------------------------------------------------------ drawing
    def _draw(self, i: int, n: int) -> Batch:
        __tracebackhide__ = True
        try:
            return run_sampling(self.executor, self.mechanism, (self.d0, self.d1)[i],
                                self.streams[i].spawn(1)[0], n)
        except MechanismError as exc:
            raise with_cause(exc) from exc.__cause__ or exc.__context__

    def _select(self, n_next: int) -> list[Candidate]:
        """The events for the next batch (one per point), chosen again whenever the runs drawn
        have doubled since the last choice (up to ``EARLY`` runs per dataset), then grown by
        the factor ``RESELECT`` (a selection costs 0.1–1 s, more than drawing 10^5 runs of a
        fast mechanism); with δ > 0 (betting) on a scalar output, every ``GAP_RESELECT``
        (``gap_events`` on a scalar is cheap: thresholds and cells)."""
        factor = 2 if self.used <= EARLY else RESELECT
        if self.method == "betting" and any(d > 0 for _, d in self.points) and \
                batch_kind(self.pool[0]) == "scalar":
            factor = GAP_RESELECT
        if self.cand is None or self.used >= factor * self.selected_at:
            p0, p1 = self.pool
            gap = [(e, d) for e, d in self.points if self.method == "betting" and d > 0]
            sel = select_gap_events(p0, p1, gap + self.grid, self.arithmetic) \
                if gap or self.grid else []
            chosen = dict(zip(gap, sel[:len(gap)], strict=True))
            self.cands = [chosen[(e, d)] if (e, d) in chosen else
                          self._choose(p0, p1, n_next, e, d) for e, d in self.points]
            if self.grid:
                self.cands.append(self._move(sel[len(gap):]))
            self.cand = self.cands[0]
            self.selected_at = self.used
            self.selections += 1
            for proc in self._processes():    # a new bet: fresh capital if the last one lost
                proc.restart_if_lost()
        return self.cands

    def _processes(self) -> list[BettingEProcess]:
        """Every betting e-process of this test (restarts, ``sequential.BettingEProcess``)."""
        procs = [self.proc, *self.dprocs, self.aproc, *self.gprocs.values()]
        return [p for p in procs if isinstance(p, BettingEProcess)]

    def _move(self, cands: list[Candidate]) -> Candidate:
        """Move the data-chosen point to the grid point whose event has the largest shrunk
        growth rate on past runs (``gap_events``), unless the current one's is within a factor
        ``STICK`` of it (fewer moves keep its evidence at one ε, for the certified δ)."""
        score = [c.projected for c in cands]
        best = int(np.argmax(score))
        if self.gi is not None and score[best] <= STICK * score[self.gi]:
            best = self.gi
        if best != self.gi:
            self.moves += self.gi is not None
            self.gi = best
            assert self.aproc is not None
            self.aproc.move_to(*self.grid[best])
        return cands[best]

    def _point(self, j: int) -> tuple[float, float]:
        """The claim point j: a fixed one, or (j = len(points)) the data-chosen one."""
        if j < len(self.points):
            return self.points[j]
        return self.grid[self.gi if self.gi is not None else 0]

    def _choose(self, p0: Batch, p1: Batch, n_next: int, epsilon: float, delta: float
                ) -> Candidate:
        """A point with δ = 0, or the spending method: the auditor's event of best projected
        bound (``events.select_events``).  (δ > 0 with betting: ``gap_events``, the event of
        largest expected growth, chosen for all such points at once in ``_select``.)"""
        n = max(n_next, self.used)
        chosen = select_events(p0, p1, n, self.alpha / 2, delta, top=1, extremes=True,
                               arithmetic=self.arithmetic)
        best, extra = chosen[0], [c for c in chosen[1:] if c.extreme]
        # an atom or isolated far cluster whose expected log-growth of the wealth, at the raw
        # frequencies of past runs, beats the best event's is bet on instead
        # (``events.select_events(extremes=True)``; chosen on past runs only).  Growth, not
        # the projected bound: at a false-alarm level of 10^-6 a zero count's Clopper–Pearson
        # bound is large, and a far cluster of 10^-3 of the runs projects no better than the
        # bulk of a tight claim although every run in it grows the wealth by 1 + c·e^-ε
        if extra and _raw_growth(extra[0], epsilon, delta) > _raw_growth(best, epsilon, delta):
            return extra[0]
        return best

    def promising(self) -> bool:
        """Whether the current event beat the claim on its selection runs (False before the
        first choice)."""
        return any(self._promising(c, j) for j, c in enumerate(self.cands))

    def _promising(self, cand: Candidate, j: int = 0) -> bool:
        """Whether the event's frequencies on the selection runs that scored it (the held-out
        half of the cross-fit) exceed the claim: p̂_a − e^ε·p̂_b − δ > 0.  Betting only then
        keeps events that merely describe the output space (e.g. all of it, chosen from a
        few hundred runs) from draining the wealth; the choice uses past runs only.  An event
        of ``gap_events`` (δ > 0) is promising when its shrunk growth rate is positive."""
        if cand.test == "gap":
            return cand.projected > 0
        eps, delta = self._point(j)
        ka, kb = cand.sel_counts if cand.direction == 0 else cand.sel_counts[::-1]
        n = max(cand.sel_n, 1)
        return ka / n - math.exp(eps) * kb / n - delta > 0

    def step(self) -> bool:
        """Draw and test one batch; True once the test is finished."""
        __tracebackhide__ = True
        if self.finished:
            return True
        t0 = time.perf_counter()
        try:
            if not self.pool:
                b0, b1 = self._draw(0, self.first), self._draw(1, self.first)
                k0, k1 = batch_kind(b0), batch_kind(b1)
                if k0 != k1 or (k0 == "vector" and np.shape(b0)[1] != np.shape(b1)[1]):
                    raise MechanismError(f"outputs on d0 ({k0}) and d1 ({k1}) are of different "
                                         "kinds")
                self.pool = [b0, b1]
                self.used = self.first
            else:
                self._look()
            if self.used >= self.per and not self.finished:
                self.finished = True
        finally:
            self.seconds += time.perf_counter() - t0
        return self.finished

    def _look(self) -> None:
        __tracebackhide__ = True
        n = min(self.size, self.per - self.used)
        cands = self._select(n)
        b = [self._draw(0, n), self._draw(1, n)]
        xs, ys, codes, live = [], [], [], []
        for j, cand in enumerate(cands):
            a_i = cand.direction
            x = np.asarray(cand.event.contains(b[a_i]), dtype=bool)
            y = np.asarray(cand.event.contains(b[1 - a_i]), dtype=bool)
            xs.append(x)
            ys.append(y)
            codes.append(2 * x.astype(np.int64) + y.astype(np.int64))
            live.append(self._promising(cand, j))
        self.looks += 1
        stop = None
        if self.method == "betting" and not any(live):
            self.skipped += 1          # bet nothing on this batch (λ = 0 is a predictable bet)
        elif self.proc is not None:
            x, y, code = xs[0], ys[0], codes[0]
            stop = self.proc.first_crossing(x, y)
            k = n if stop is None else stop + 1
            self.proc.update(np.bincount(code[:k], minlength=4))
            if stop is not None:
                # The claim is refuted at run k; the rest of this batch is drawn already, and
                # the grid's bound is sound simultaneously at every time (sequential module
                # docstring), so the larger of the bounds at k and at the batch's end is too:
                # it tells ε = 0.51 from ε = 1 where the bound at k is the claim itself.
                at_stop = self.proc.certified_bound()
                self.proc.update(np.bincount(code[k:], minlength=4))
                self.bound = max(at_stop or -math.inf, self.proc.certified_bound() or -math.inf)
            self._update_points(codes, live, stop)
        elif self.method == "betting":
            stop = self._average_crossing(xs, ys, live)
            self._update_points(codes, live, stop)
        else:
            level = spending_level(self.alpha, self.looks)
            rej, bnd = spending_test(int(xs[0].sum()), int(ys[0].sum()), n, self.epsilon,
                                     self.delta, level)
            if rej:
                stop = n - 1
                self.bound = bnd
        if self.dprocs and len(self.points) > 1 and stop is None:
            self.top = int(np.argmax(self._point_logs() + self.logw))
        j = self.top
        cand, x, y = cands[j], xs[j], ys[j]
        a_i = cand.direction
        m = n                           # the counts of the whole batch, as the bound
        ka, kb = int(x.sum()), int(y.sum())
        da, db = ("d0", "d1") if a_i == 0 else ("d1", "d0")
        self.last = {"event": cand.event.describe(), "direction": a_i,
                     "counts": {da: ka, db: kb, "n": int(m)},
                     "observed": _observed(ka, kb, m, self._point(j)[1]),
                     "observed_delta": (ka - math.exp(self._point(j)[0]) * kb) / max(m, 1),
                     "floating": is_float_event(cand.event), "event_object": cand.event}
        if stop is not None:
            self.verdict = "violation"
            self.decided_at = self.used + stop + 1
            self.finished = True
        self.used += n
        self.size = min(max(self.used // GROWTH[self.method], self.first), self.max_batch)
        if not self.finished:
            size = SCALAR_POOL if batch_kind(b[0]) == "scalar" else POOL
            self.pool = [_keep_last(concat([self.pool[i], b[i]]), size) for i in (0, 1)]

    def _update_points(self, codes: list[np.ndarray], live: list[bool],
                       stop: int | None) -> None:
        """Add the batch to the points' δ-grid e-processes; when the test stops at ``stop``,
        keep each point's certified δ (level α/k) at the stop and at the batch's end, the
        larger (both readings are sound simultaneously over time, as for the ε grid)."""
        k = len(codes[0]) if stop is None else stop + 1
        level = self.read_level
        procs = list(self.dprocs)
        if self.grid and self.gi is not None:
            # the data-chosen point: its wealth, and the δ grid of the grid point it is at
            assert self.aproc is not None
            self.aproc.update(np.bincount(codes[-1][:k], minlength=4) if live[-1]
                              else np.zeros(4))
            if live[-1] and stop is not None:
                self.aproc.update(np.bincount(codes[-1][k:], minlength=4))
            if self.gi not in self.gprocs:
                e, d = self.grid[self.gi]
                g = delta_grid(d)
                self.gprocs[self.gi] = BettingEProcess(np.full(len(g), e), g, self.alpha)
            procs.append(self.gprocs[self.gi])
        for j, proc in enumerate(procs):
            if not live[j]:
                continue
            proc.update(np.bincount(codes[j][:k], minlength=4))
            if stop is not None:
                at_stop = proc.certified_delta(level)
                proc.update(np.bincount(codes[j][k:], minlength=4))
                at_end = proc.certified_delta(level)
                got = [v for v in (at_stop, at_end) if v is not None]
                self.certified[j] = max(got) if got else None

    def _point_logs(self) -> np.ndarray:
        """log e-value of each point now: the fixed points', then the data-chosen one's."""
        w = [p.log_e_values()[0] for p in self.dprocs]
        if self.aproc is not None:
            w.append(float(self.aproc.log_e_values()[0]))
        return np.array(w)

    def _average_crossing(self, xs: list[np.ndarray], ys: list[np.ndarray],
                          live: list[bool]) -> int | None:
        """Several points: the first pair of this batch at which the average of the points'
        e-processes reaches 1/α (None if none), without updating them; ``self.top`` becomes
        the point with the most (weighted) evidence there.  A weighted average (fixed
        weights summing to 1: ``logw``) of e-processes on the same runs is an e-process (each
        is a nonnegative supermartingale with initial value 1 under the claim, with respect to
        the same filtration — the data-chosen point's too, ``claim_points``), so Ville's
        inequality bounds the probability that it ever reaches 1/α by α: it never rejects less
        often than Bonferroni with the same weights (w_j E_j ≥ 1/α for one j implies the
        average does) and gains when several points see evidence."""
        n = len(xs[0])
        procs: list[BettingEProcess] = list(self.dprocs)
        if self.aproc is not None:
            procs.append(self.aproc)
        paths = np.empty((len(procs), n))
        for j, proc in enumerate(procs):
            paths[j] = proc.log_path(xs[j], ys[j]) if live[j] else proc.log_e_values()[0]
        paths += self.logw[:, None]
        top = paths.max(axis=0)
        avg = top + np.log(np.sum(np.exp(paths - top), axis=0))
        hit = np.nonzero(avg >= math.log(1.0 / self.alpha) - 1e-12)[0]
        if not hit.size:
            return None
        stop = int(hit[0])
        self.top = int(np.argmax(paths[:, stop]))
        return stop

    # ------------------------------------------------------------------ result
    def log10_e_value(self) -> float | None:
        """log10 of the test's e-value: the ε-grid e-process of a one-point claim, the average
        over the points of a curve claim."""
        if self.proc is not None:
            return float(self.proc.log_e_values()[0] / math.log(10))
        if not self.dprocs:
            return None
        w = self._point_logs() + self.logw
        top = float(w.max())
        return float((top + math.log(float(np.sum(np.exp(w - top))))) / math.log(10))

    def refutation(self) -> dict[str, Any]:
        """Where the claim is most at risk: the point ε with the most evidence against it, the
        claimed δ(ε) there and the certified lower bound on the hockey-stick divergence at that
        ε (from the point's δ grid, at level α/k for k points — Bonferroni over the points, so
        every point's reading holds at once with probability ≥ 1 − α; None when the point's own
        e-process has not reached k/α).  With the data-chosen point, the readings of all the
        fixed points and of every grid point are at level α/(k + grid size), and ``point`` says
        which kind of point refuted the claim: ``"fixed"`` or ``"data-chosen"`` (whose certified
        δ counts only the batches it spent at that ε)."""
        if not self.dprocs:
            return {}
        j = self.top
        eps, d = self._point(j)
        if j < len(self.points):
            proc, kind = self.dprocs[j], "fixed"
        else:
            proc, kind = self.gprocs.get(self.gi if self.gi is not None else -1), "data-chosen"
        cert = self.certified.get(j, proc.certified_delta(self.read_level)
                                  if proc is not None else None)
        out = {"epsilon": eps, "claimed_delta": d, "certified_delta": cert}
        if self.grid:
            out["point"] = kind
            out["observed_delta"] = self.last.get("observed_delta")
        return out

    def report(self, exact: bool = True) -> PrivacyTestReport:
        ex_eps = ex_delta = None
        eps, delta = self._point(self.top)
        if exact:
            try:
                dist = exact_distributions(self.mechanism, self.d0, self.d1)
            except MechanismError as exc:
                raise with_cause(exc) from exc.__cause__ or exc.__context__
            if dist is not None:
                ex_eps = exact_mod.exact_epsilon(*dist, delta)
                ex_delta = exact_mod.delta_of_epsilon(*dist, eps)
        direction = ""
        if self.last:
            a, b = ("d0", "d1") if self.last["direction"] == 0 else ("d1", "d0")
            direction = f"P[M({a}) in E] <= e^eps * P[M({b}) in E] + delta"
        notes = list(self.notes)
        verdict = self.verdict
        if not self.finished:
            verdict = "stopped"
            notes.append(f"stopped after {2 * self.used:,} of {self.max_runs:,} runs (another "
                         "pair of the search was refuted first)")
        elif verdict == "passed":
            notes.append("no violation found: the claim is not refuted at this pair within "
                         f"{self.max_runs:,} runs (this is evidence, not a proof of privacy)")
        if getattr(self.mechanism, "reproducible", True) is False:
            notes.append("the mechanism draws from its own randomness (reproducible = False), "
                         "so its runs, and the run at which a violation is found, change from "
                         "one test run to the next even with the same seed")
        floating = verdict == "violation" and bool(self.last.get("floating"))
        if floating:
            notes.insert(0, violation_note(self.last["event_object"], self.bound))
        runs = 2 * self.used
        refuted = None
        if verdict == "violation" and self.dprocs:
            refuted = {**self.refutation(), "exact_delta": ex_delta}
        stats = {"event_selections": self.selections, "looks_without_a_bet": self.skipped}
        if len(self.points) > 1:
            stats["points"] = [[e, d] for e, d in self.points]
        if self.grid:
            stats["data_chosen"] = {"grid_points": len(self.grid), "moves": self.moves,
                                    "epsilon": self._point(len(self.points))[0],
                                    "log10_e_value": float(self._point_logs()[-1] / math.log(10))}
        return PrivacyTestReport(
            mechanism=mechanism_name(self.mechanism),
            d0=self.d0, d1=self.d1, claimed_epsilon=eps, claimed_delta=delta,
            false_alarm=self.alpha, method=self.method, verdict=verdict,
            epsilon_lower_bound=self.bound, event=self.last.get("event", ""),
            direction=direction, counts=self.last.get("counts", {}),
            log10_e_value=self.log10_e_value(), runs_used=runs,
            runs_to_decision=2 * self.decided_at if self.decided_at is not None else runs,
            max_runs=self.max_runs, looks=self.looks, exact_epsilon=ex_eps,
            seed=self.seed_value, seconds=self.seconds, notes=tuple(notes),
            stats=stats,
            observed_epsilon=self.last.get("observed") if verdict == "violation" else None,
            claim=to_jsonable(self.claim.to_json()), refuted_at=refuted,
            floating_point=floating)
