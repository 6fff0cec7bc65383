"""The sequential privacy test of one neighbouring pair, one batch at a time.

Schedule (per dataset): a first batch of ``first_batch`` runs is used only to choose an event;
then looks t = 1, 2, … draw batches of a quarter of the runs drawn so far (betting; the
spending baseline doubles, ``GROWTH``), at least ``first_batch`` and at most ``max_batch``,
until ``max_runs`` runs in all — so a betting test that stops in the middle of a batch has drawn
at most ~25% more runs than it needed.  The event and its direction are chosen by the
auditor's event selection (``ltheory.privacy.auditing.events.select_events``:
likelihood-ratio cells, thresholds, linear scores, cross-fitted) on the runs *already drawn* —
at most ``POOL`` of the most recent per dataset — so the event is independent of the batch it
is tested on; it is chosen again each time the runs drawn have doubled (up to ``EARLY`` per
dataset; then grown by the factor ``RESELECT``).  The batch then updates the test of
``ltheory.testing.sequential`` (betting e-process, or Clopper–Pearson with alpha spending),
which may stop in the middle of a batch.  The betting test bets nothing on a
batch whose event did not beat the claim on the held-out selection runs (``_promising``).

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

from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.core import exact_distributions
from ltheory.privacy.auditing.events import Candidate, select_events
from ltheory.privacy.auditing.executors import run_sampling
from ltheory.privacy.auditing.outputs import Batch, MechanismError, batch_kind, concat
from ltheory.testing.gap_events import select_gap_event
from ltheory.testing.report import PrivacyTestReport
from ltheory.testing.sequential import (
    BettingEProcess,
    epsilon_grid,
    spending_level,
    spending_test,
)

FIRST_BATCH = 500
MAX_BATCH = 1 << 16
POOL = 1 << 16
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
                 first_batch: int = FIRST_BATCH, max_batch: int = MAX_BATCH) -> None:
        self.mechanism, self.d0, self.d1 = mechanism, d0, d1
        self.epsilon, self.delta, self.alpha = epsilon, delta, alpha
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
        self.selected_at = 0
        self.selections = 0
        self.pool: list[Batch] = []
        self.proc = (BettingEProcess(epsilon_grid(epsilon), delta, alpha)
                     if method == "betting" else None)
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

    def _select(self, n_next: int) -> Candidate:
        """The event for the next batch, chosen again whenever the runs drawn have doubled since
        the last choice (up to ``EARLY`` runs per dataset), then grown by the factor
        ``RESELECT`` (a selection costs 0.1–1 s, more than drawing 10^5 runs of a fast
        mechanism)."""
        factor = 2 if self.used <= EARLY else RESELECT
        if self.method == "betting" and self.delta > 0:
            factor = GAP_RESELECT
        if self.cand is None or self.used >= factor * self.selected_at:
            p0, p1 = self.pool
            if self.method == "betting" and self.delta > 0:
                self.cand = select_gap_event(p0, p1, self.epsilon, self.delta)
            else:
                self.cand = select_events(p0, p1, max(n_next, self.used), self.alpha / 2,
                                          self.delta, top=1)[0]
            self.selected_at = self.used
            self.selections += 1
        return self.cand

    def promising(self) -> bool:
        """Whether the current event beat the claim on its selection runs (False before the
        first choice)."""
        return self.cand is not None and self._promising(self.cand)

    def _promising(self, cand: Candidate) -> bool:
        """Whether the event's frequencies on the selection runs that scored it (the held-out
        half of the cross-fit) exceed the claim: p̂_a − e^ε·p̂_b − δ > 0.  Betting only then
        keeps events that merely describe the output space (e.g. all of it, chosen from a
        few hundred runs) from draining the wealth; the choice uses past runs only.  An event
        of ``gap_events`` (δ > 0) is promising when its shrunk growth rate is positive."""
        if cand.test == "gap":
            return cand.projected > 0
        ka, kb = cand.sel_counts if cand.direction == 0 else cand.sel_counts[::-1]
        n = max(cand.sel_n, 1)
        return ka / n - math.exp(self.epsilon) * kb / n - self.delta > 0

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
        cand = self._select(n)
        b = [self._draw(0, n), self._draw(1, n)]
        a_i = cand.direction
        x = np.asarray(cand.event.contains(b[a_i]), dtype=bool)
        y = np.asarray(cand.event.contains(b[1 - a_i]), dtype=bool)
        self.looks += 1
        stop = None
        if self.proc is not None and not self._promising(cand):
            self.skipped += 1          # bet nothing on this batch (λ = 0 is a predictable bet)
        elif self.proc is not None:
            stop = self.proc.first_crossing(x, y)
            codes = 2 * x.astype(np.int64) + y.astype(np.int64)
            k = n if stop is None else stop + 1
            self.proc.update(np.bincount(codes[:k], minlength=4))
            if stop is not None:
                # The claim is refuted at run k; the rest of this batch is drawn already, and
                # the grid's bound is sound simultaneously at every time (sequential module
                # docstring), so the larger of the bounds at k and at the batch's end is too:
                # it tells ε = 0.51 from ε = 1 where the bound at k is the claim itself.
                at_stop = self.proc.certified_bound()
                self.proc.update(np.bincount(codes[k:], minlength=4))
                self.bound = max(at_stop or -math.inf, self.proc.certified_bound() or -math.inf)
        else:
            level = spending_level(self.alpha, self.looks)
            rej, bnd = spending_test(int(x.sum()), int(y.sum()), n, self.epsilon, self.delta,
                                     level)
            if rej:
                stop = n - 1
                self.bound = bnd
        m = n                           # the counts of the whole batch, as the bound
        ka, kb = int(x.sum()), int(y.sum())
        da, db = ("d0", "d1") if a_i == 0 else ("d1", "d0")
        self.last = {"event": cand.event.describe(), "direction": a_i,
                     "counts": {da: ka, db: kb, "n": int(m)},
                     "observed": _observed(ka, kb, m, self.delta)}
        if stop is not None:
            self.verdict = "violation"
            self.decided_at = self.used + stop + 1
            self.finished = True
        self.used += n
        self.size = min(max(self.used // GROWTH[self.method], self.first), self.max_batch)
        if not self.finished:
            self.pool = [_keep_last(concat([self.pool[i], b[i]]), POOL) for i in (0, 1)]

    # ------------------------------------------------------------------ result
    def log10_e_value(self) -> float | None:
        if self.proc is None:
            return None
        return float(self.proc.log_e_values()[0] / math.log(10))

    def report(self, exact: bool = True) -> PrivacyTestReport:
        ex_eps = None
        if exact:
            try:
                dist = exact_distributions(self.mechanism, self.d0, self.d1)
            except MechanismError as exc:
                raise with_cause(exc) from exc.__cause__ or exc.__context__
            if dist is not None:
                ex_eps = exact_mod.exact_epsilon(*dist, self.delta)
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
        runs = 2 * self.used
        return PrivacyTestReport(
            mechanism=mechanism_name(self.mechanism),
            d0=self.d0, d1=self.d1, claimed_epsilon=self.epsilon, claimed_delta=self.delta,
            false_alarm=self.alpha, method=self.method, verdict=verdict,
            epsilon_lower_bound=self.bound, event=self.last.get("event", ""),
            direction=direction, counts=self.last.get("counts", {}),
            log10_e_value=self.log10_e_value(), runs_used=runs,
            runs_to_decision=2 * self.decided_at if self.decided_at is not None else runs,
            max_runs=self.max_runs, looks=self.looks, exact_epsilon=ex_eps,
            seed=self.seed_value, seconds=self.seconds, notes=tuple(notes),
            stats={"event_selections": self.selections, "looks_without_a_bet": self.skipped},
            observed_epsilon=self.last.get("observed") if verdict == "violation" else None)
