"""The stages an audit is made of, shared by [`audit`][ltheory.privacy.audit] and
[`audit_curve`][ltheory.audit_curve] (docs/reference/auditor.md: one pipeline,
public stages; no module imports another's private names).

* **seed streams** — `seed_streams`: the seed used and the root ``SeedSequence``, whose
  first four children are the streams of the selection runs on d0 and d1 and of the
  certification runs on d0 and d1 (a fifth child, spawned by `plan_split`, draws the
  Poisson numbers of certification runs).
* **run split** — `split_runs`, [`min_runs`][ltheory.privacy.min_runs] and `plan_split` (a
  `RunSplit`): selection and certification runs per dataset, refusing budgets too small
  to certify anything above the claim ([`TooFewRunsError`][ltheory.privacy.TooFewRunsError]).
* **runner** — `Runner`: draws the selection runs and counts the chosen events on the
  certification runs on the audit's executor, reporting progress per chunk.
* **exact distributions** — `output_distributions` and their check against the sampled
  selection split, `consistency_notes`.
* **sides of an event** — `event_sides`: counts and run numbers on the more likely side
  and on the other.
* **few outputs** — `few_outputs`: the rule that switches to lean (exact-output cell)
  events.

Examples:
    >>> split_runs(1000, 0.1)
    (50, 450)
    >>> seed_streams(7)[0], len(seed_streams(7)[2])
    (7, 4)
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.monotone import fewest_true
from ltheory.privacy.auditing import budget
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.budget import Deadline, check_memory
from ltheory.privacy.auditing.config import FEW_OUTPUTS, AuditConfig
from ltheory.privacy.auditing.executors import (
    n_chunks,
    resolve_executor,
    run_pair,
)
from ltheory.privacy.auditing.outputs import (
    Batch,
    MechanismError,
    batch_kind,
    distinct_outputs,
    mixed_output,
)
from ltheory.privacy.auditing.target import Target
from ltheory.privacy.stats import max_certifiable_epsilon
from ltheory.validation import check_seed

__all__ = ["CONSISTENCY_LEVEL", "FIT_SHARE", "MAX_RUNS", "MIN_SELECTION", "SELECTION_SHARE",
           "RunSplit", "Runner", "TooFewRunsError", "budget_note", "consistency_notes",
           "event_sides", "few_outputs", "fit_split", "min_runs", "output_distributions",
           "plan_split", "seed_streams", "split_runs"]

#: The fewest selection runs per dataset.
MIN_SELECTION = 50
#: The most runs one audit takes (chunk seeds alone are ~1.5 million at 10^11 runs).
MAX_RUNS = 10**11
#: Level of the check that sampled outputs agree with ``output_distribution`` (per dataset):
#: small, since a warning on an honest mechanism is costly (at 1e-6, one of 400 audits of the
#: test suite warned: a 5-sigma stream of uniforms, seed 1088's selection split on d1).
CONSISTENCY_LEVEL = 1e-9
#: With a time budget, the selection runs are drawn in at most this share of the budget (the
#: rest pays for choosing the events and for the certification runs).
SELECTION_SHARE = 0.2
#: Seconds event selection takes per selection run (measured: 1.6e-6 on scalar outputs, the
#: Laplace mechanism at 1.7e7 selection runs; doubled for margin): with a time budget the
#: selection split is capped at the runs its selection can process in SELECTION_SHARE of it.
SELECT_SECONDS_PER_RUN = 3e-6
#: With a time budget, the certification runs planned fill at most this share of the time
#: left after selection (counting costs a little more than drawing; the report needs time).
FIT_SHARE = 0.8


class TooFewRunsError(InvalidInputError):
    """Even a perfectly separating event could not certify above the claim with these runs;
    ``needed`` is the fewest runs that could."""

    def __init__(self, message: str, needed: int) -> None:
        super().__init__(message)
        self.needed = needed


# --------------------------------------------------------------------------- seed streams
def seed_streams(seed: Any) -> tuple[int, np.random.SeedSequence, list[np.random.SeedSequence]]:
    """``(seed used, root, streams)`` for a validated ``seed`` (a non-negative int, or None for
    fresh entropy, whose value is returned as the seed used): ``root = SeedSequence(seed)`` and
    ``streams = root.spawn(4)``, the streams of the selection runs on d0, d1 and of the
    certification runs on d0, d1.  The same seed gives the same streams; the root's next child
    is `plan_split`'s (Poisson sizes).  Raises ``InvalidInputError`` on a bad seed."""
    s = check_seed(seed)
    if s is None:
        root = np.random.SeedSequence()
        used = int(root.entropy)  # type: ignore[arg-type]
    else:
        used, root = s, np.random.SeedSequence(s)
    return used, root, root.spawn(4)


# --------------------------------------------------------------------------- run split
@dataclass(frozen=True)
class RunSplit:
    """Runs per dataset: selection ``n_sel``, certification planned ``n_cert``, and the drawn
    certification sizes on d0 and d1 ``n_c0``, ``n_c1`` (equal to ``n_cert`` with binomial
    certification; Poisson(n_cert) draws otherwise)."""

    n_sel: int
    n_cert: int
    n_c0: int
    n_c1: int


def split_runs(runs: int, selection_fraction: float) -> tuple[int, int]:
    """(selection, certification) runs per dataset for ``runs`` total runs: ``runs // 2`` per
    dataset, at least `MIN_SELECTION` of them for selection."""
    per = runs // 2
    n_sel = max(MIN_SELECTION, int(round(selection_fraction * per)))
    return n_sel, max(per - n_sel, 0)


def min_runs(claimed_epsilon: float, claimed_delta: float = 0.0, alpha: float = 0.05,
             selection_fraction: float = 0.1, events: int | str = "auto") -> int:
    """The fewest total runs whose best possible outcome (a perfectly separating event) could
    certify a bound above ``claimed_epsilon`` with ``events`` certified events."""
    a_each = alpha / (2 * AuditConfig(events=events).max_events)

    def ok(r: int) -> bool:
        _, n_c = split_runs(r, selection_fraction)
        return n_c > 0 and max_certifiable_epsilon(n_c, a_each, claimed_delta) > claimed_epsilon

    found = fewest_true(ok, 2, 1 << 60)
    return 1 << 61 if found is None else found


def plan_split(runs: int, eps: float | None, delta: float, alpha: float, cfg: AuditConfig,
               given: tuple[Batch, Batch] | None, root: np.random.SeedSequence) -> RunSplit:
    """The `RunSplit` of ``runs`` total runs under ``cfg`` (``selection_fraction``,
    ``max_events``, ``certify``).  With ``given`` selection samples (a pair of batches of at
    least `MIN_SELECTION` runs each, else ``InvalidInputError``) every run certifies.
    Raises [`TooFewRunsError`][ltheory.privacy.TooFewRunsError] when even a perfectly separating
    event could not certify
    above ``eps`` (above 0 when ``eps`` is None) at level α/(2·max_events).  Unless
    ``cfg.certify == "binomial"``, the certification sizes are two Poisson(n_cert) draws from
    ``root``'s next child (so call it after `seed_streams`' four)."""
    n_sel, n_cert = split_runs(runs, cfg.selection_fraction)
    if given is not None:
        try:
            g0, g1 = given
            if len(g0) < MIN_SELECTION or len(g1) < MIN_SELECTION:
                raise ValueError
        except (TypeError, ValueError):
            raise InvalidInputError(f"selection_samples must be a pair (outputs on d0, outputs "
                                    f"on d1) of at least {MIN_SELECTION} runs each") from None
        n_sel, n_cert = 0, runs // 2
    a_each = alpha / (2 * cfg.max_events)
    top = max_certifiable_epsilon(n_cert, a_each, delta) if n_cert > 0 else -math.inf
    floor = 0.0 if eps is None else eps
    if not top > floor:
        need = min_runs(max(floor, 1e-9), delta, alpha, cfg.selection_fraction, cfg.events)
        what = (f"certify epsilon > {eps:g}" if eps is not None else "certify any bound")
        fix = (f"need at least {need} runs" if need <= MAX_RUNS else
               f"no audit of at most {MAX_RUNS:.0e} runs can (a claim this large cannot be "
               "refuted by sampling)")
        raise TooFewRunsError(f"runs={runs} is too few: even a perfectly separating event could "
                              f"not {what} at alpha={alpha:g}; {fix}", need)
    n_c0 = n_c1 = n_cert
    if cfg.certify != "binomial":   # Poisson numbers of certification runs (a fifth stream)
        pr = np.random.default_rng(root.spawn(1)[0])
        n_c0, n_c1 = int(pr.poisson(n_cert)), int(pr.poisson(n_cert))
    return RunSplit(n_sel, n_cert, n_c0, n_c1)


# --------------------------------------------------------------------------- runner
#: Runs drawn (and discarded) to measure the size of an output when a target does not declare it.
PROBE_RUNS = 16


def probe_bytes(target: Target, d0: Any, d1: Any, stream: np.random.SeedSequence) -> float:
    """The bytes one run's output takes, measured on `PROBE_RUNS` runs on each dataset
    (discarded: no audit run is spent), drawn from a generator of their own — a key below
    ``stream`` that its chunks never use (they add one element to its key, this adds two), so
    the audit's streams are untouched; the larger of the two sizes, at least 8."""
    import pickle

    sizes = []
    for i, d in enumerate((d0, d1)):
        rng = np.random.default_rng(np.random.SeedSequence(
            stream.entropy, spawn_key=(*stream.spawn_key, 2**32 - 1, i)))
        b = target.draw(d, PROBE_RUNS, rng)
        arr = np.asarray(b) if not isinstance(b, list) else None
        nbytes = arr.nbytes if arr is not None and arr.dtype != object else \
            len(pickle.dumps(b, protocol=pickle.HIGHEST_PROTOCOL))
        sizes.append(nbytes / PROBE_RUNS)
    return max(8.0, *sizes)


class Runner:
    """Draws the runs of one audit on its executor (``cfg.executor``, resolved for ``target``
    and ``runs``; an executor it created is shut down by `close`) and reports progress
    per chunk to ``cfg.progress(done, total)``.  Use as: `sample` the selection split,
    `count` the chosen events on the certification split, then `close` (in a
    ``finally``), which returns the runner's notes.

    With a ``deadline`` (``budget.Deadline``) the chunks of d0 and d1 are interleaved and no chunk
    starts once it has passed: each dataset keeps the prefix of its chunks drawn (chunk boundaries
    only; [`budget`][ltheory.privacy.auditing.budget] for why a certification cut this way stays
    sound).  Before sampling, a target that declares ``audit_output_bytes`` is checked against the
    memory available (``budget.check_memory``)."""

    def __init__(self, target: Target, cfg: AuditConfig, runs: int, split: RunSplit,
                 deadline: Deadline | None = None) -> None:
        self.target, self.progress = target, cfg.progress
        c = target.chunk_runs
        self.total = sum(n_chunks(n, c) for n in (split.n_sel, split.n_sel, split.n_c0,
                                                  split.n_c1))
        self.done = 0
        self.deadline = deadline or Deadline(None)
        if target.output_bytes is not None:
            check_memory(target.name, target.output_bytes, 2 * max(split.n_sel, 1) + 2 * c,
                         "the selection runs")
        self.ex, self.owned, note = resolve_executor(cfg.executor, target, runs)
        self.notes = [note] if note else []
        self.sel_seconds = 0.0

    def tick(self, k: int) -> None:
        """Record ``k`` more chunks done (and report progress)."""
        self.done += k
        if self.progress:
            self.progress(self.done, self.total)

    def sample(self, d0: Any, d1: Any, n: int, streams: list[np.random.SeedSequence],
               select_cost: float = 0.0) -> tuple[Batch, Batch]:
        """``n`` outputs on d0 (from ``streams[0]``) and on d1 (``streams[1]``), fewer when
        the deadline (or `SELECTION_SHARE` of the time left) passes first, and no more
        than selection can process in that share at ``select_cost`` seconds per run (default
        `SELECT_SECONDS_PER_RUN`); raises
        ``MechanismError`` when the two batches are of different kinds."""
        if self.target.output_bytes is None and n > PROBE_RUNS:
            check_memory(self.target.name, probe_bytes(self.target, d0, d1, streams[0]),
                         2 * n + 2 * self.target.chunk_runs, "the selection runs")
        dl = self.deadline
        t0 = budget.clock()
        share_end = t0 + SELECTION_SHARE * dl.remaining() if dl.limited else None
        if dl.limited:        # no more selection runs than selection can process in time
            cap = max(MIN_SELECTION, int(SELECTION_SHARE * max(dl.remaining(), 0.0)
                                         / (select_cost or SELECT_SECONDS_PER_RUN) / 2))
            if cap < n:
                n = cap
                dl.mark("selection")
        (s0, s1), got = run_pair(self.ex, self.target, (d0, d1), streams[:2], (n, n),
                                 stop=dl.stopper(share_end), progress=self.tick)
        self.sel_seconds += budget.clock() - t0     # every selection sampling of the audit
        if got != [n, n]:
            dl.mark("selection")
        if len(s0) and len(s1):
            k0, k1 = batch_kind(s0), batch_kind(s1)
            if k0 != k1 or (k0 == "vector" and np.shape(s0)[1] != np.shape(s1)[1]):
                raise MechanismError(f"outputs on d0 ({k0}) and d1 ({k1}) are of different "
                                     "kinds")
        return s0, s1

    def count(self, d0: Any, d1: Any, split: RunSplit, events: list,
              streams: list[np.random.SeedSequence]
              ) -> tuple[np.ndarray, np.ndarray, RunSplit]:
        """How many of ``split.n_c0`` runs on d0 (``streams[0]``) and ``split.n_c1`` on d1
        (``streams[1]``) fall in each event: two integer arrays, one entry per event, and the
        split actually counted (fewer runs when the deadline passed first)."""
        (c0, c1), (m0, m1) = run_pair(self.ex, self.target, (d0, d1), streams[:2],
                                      (split.n_c0, split.n_c1), events=events,
                                      stop=self.deadline.stopper(), progress=self.tick)
        if (m0, m1) != (split.n_c0, split.n_c1):
            self.deadline.mark("certification")
            split = RunSplit(split.n_sel, split.n_cert, m0, m1)
        return c0, c1, split

    def close(self) -> list[str]:
        """Shut down an executor the runner created; the runner's notes."""
        if self.owned:
            self.ex.shutdown(wait=True, cancel_futures=True)   # at most a window still runs
            self.owned = False
            if getattr(self.ex, "pool", None) is not None:      # the default chose a pool
                self.notes.append(self.ex.note)
        notes, self.notes = self.notes, []
        return notes


def resized_certification(n: int, cfg: AuditConfig, root: np.random.SeedSequence
                          ) -> tuple[int, int]:
    """The certification runs per dataset once the plan is cut to ``n`` per dataset before any
    is drawn: ``n`` each, or with Poisson numbers of runs (``cfg.certify`` not "binomial")
    fresh Poisson(``n``) sizes from ``root``'s next child."""
    if cfg.certify == "binomial":
        return n, n
    pr = np.random.default_rng(root.spawn(1)[0])
    return int(pr.poisson(n)), int(pr.poisson(n))


def fit_split(split: RunSplit, runner: Runner, sel_runs: int, cfg: AuditConfig,
              root: np.random.SeedSequence) -> tuple[RunSplit, str | None]:
    """The certification runs the time left can pay for
    ([`budget`][ltheory.privacy.auditing.budget]): at the
    rate measured on the selection runs (``runner.sel_seconds`` for ``sel_runs`` runs), the
    runs per dataset that fill `FIT_SHARE` of the time left, when fewer than planned.
    The number depends on the clock during selection only, never on a certification run, so
    the counts stay binomial (Poisson numbers of runs are redrawn with the smaller mean from
    ``root``'s next child).  Returns the split and a note (None when it is unchanged)."""
    dl = runner.deadline
    planned = max(split.n_c0, split.n_c1)
    if not dl.limited or planned == 0:
        return split, None
    left = dl.remaining()
    rate = runner.sel_seconds / sel_runs if sel_runs > 0 and runner.sel_seconds > 0 else 0.0
    afford = planned if rate == 0.0 and left > 0 else int(max(left, 0.0) * FIT_SHARE
                                                          / max(2 * rate, 1e-300))
    if afford >= planned:
        return split, None
    n = max(afford, 0)
    n0, n1 = resized_certification(n, cfg, root)
    dl.mark("certification plan")
    note = (f"time budget: {n} certification runs per dataset planned instead of "
            f"{split.n_cert}, what the {max(left, 0.0):.3g} s left pay for at the rate of the "
            f"selection runs ({rate:.3g} s per run)")
    return RunSplit(split.n_sel, n, n0, n1), note


#: Selection runs on each side of the first event chosen on the planned split below which the
#: split is not widened (``widen_selection``): an event that rare on one side certifies by its
#: rarity, which every certification run sharpens (SVT5: 0 of 10^5 runs on d0), and its choice
#: is rarely in doubt; the sparse-vector pairs the widening is for hold 1,500-35,000 on each side.
WIDEN_MIN_RUNS = 100


#: The largest planned selection split (runs per dataset) that a mixed output widens
#: (``AuditConfig.mixed_selection_fraction``): the gain was measured at 10^5 (2·10^6-run
#: audits) and at 10^6 (2·10^7: DP-Sniper's SVT3, NumericalSVT and SVT34Parallel, nine seeds,
#: 0.73-0.92 → 0.84-1.04 of the whole-budget ceiling on the search).  Above it the wider split
#: is not drawn: its memory (SVT34Parallel's 30 columns at 3·10^6 selection runs per dataset:
#: 5.3 GB peak against 1.9 GB) and its selection time grow with it, and no gain was measured.
WIDEN_MAX_SELECTION = 1_000_000


def widening_share(s0: Batch, s1: Batch, lean: bool, cfg: AuditConfig
                   ) -> tuple[float, str] | None:
    """The share the selection split may widen to (``widen_selection``) and why: lean events on
    a vector output (``cfg.lean_selection_fraction``), or a vector output mixing few-valued
    and continuous coordinates (``outputs.mixed_output``) on a planned split of at most
    `WIDEN_MAX_SELECTION` runs per dataset (``cfg.mixed_selection_fraction``); None
    otherwise."""
    if batch_kind(s0) != "vector":
        return None
    if lean:
        f = cfg.lean_selection_fraction
        return None if f is None else (f, "lean")
    f = cfg.mixed_selection_fraction
    if f is None or max(len(s0), len(s1)) > WIDEN_MAX_SELECTION \
            or not mixed_output(s0, s1):
        return None
    return f, "mixed"


def widen_selection(s0: Batch, s1: Batch, first: Any, split: RunSplit, runner: Runner,
                    cfg: AuditConfig, pair: tuple[Any, Any], eps: float | None, delta: float,
                    alpha: float, root: np.random.SeedSequence, share: tuple[float, str] | None
                    ) -> tuple[Batch, Batch, RunSplit, str] | None:
    """The selection split widened to the share of ``share`` (`widening_share`): for a mixed
    output's many families before any event is chosen, for lean events (whose
    likelihood-ratio order the selection counts must estimate) when the event ``first`` chosen
    on the planned split (a ``Candidate``) holds at least `WIDEN_MIN_RUNS` selection runs on
    each side.  Fresh runs on both datasets from two new children of ``root``, taken from the
    planned certification runs.  None (unchanged) when ``share`` is None, when the split
    already holds that share, or when the certification runs left could not certify above the
    claim (``plan_split``'s check).  The decision reads the selection runs only and the
    certification sizes are fixed before any certification run is drawn
    (`resized_certification`), so the counts stay binomial given their number.  Returns the
    samples, the split and a note."""
    if share is None or split.n_cert <= 0:
        return None
    f, why = share
    if why == "lean" and (first is None or min(first.sel_counts) < WIDEN_MIN_RUNS):
        return None
    have = min(len(s0), len(s1))
    extra = min(int(round(f * (have + split.n_cert))) - have, split.n_cert - 1)
    a_each = alpha / (2 * cfg.max_events)
    floor = 0.0 if eps is None else eps
    if extra <= 0 or not max_certifiable_epsilon(split.n_cert - extra, a_each, delta) > floor:
        return None
    c = runner.target.chunk_runs
    runner.total = runner.done + 2 * (n_chunks(extra, c) + n_chunks(split.n_cert - extra, c))
    e0, e1 = runner.sample(pair[0], pair[1], extra, root.spawn(2))
    got = max(len(e0), len(e1))
    s0, s1 = np.concatenate([s0, e0]), np.concatenate([s1, e1])
    n = split.n_cert - got
    n0, n1 = resized_certification(n, cfg, root)
    runner.total = runner.done + n_chunks(n0, c) + n_chunks(n1, c)     # progress: what is left
    head, reason = (("few distinct outputs", "the cells' order is estimated from the selection "
                     "counts") if why == "lean" else
                    ("few-valued coordinates beside continuous ones", "many candidate families "
                     "compete on the selection counts"))
    note = (f"{head}: the selection split was widened to {min(len(s0), len(s1))} runs per "
            f"dataset ({why}_selection_fraction={f:g}; {reason}), leaving {n} certification "
            "runs per dataset")
    return s0, s1, RunSplit(split.n_sel + got, n, n0, n1), note


def budget_note(deadline: Deadline, planned: int, used: int) -> str:
    """The note of a report cut by its time budget: where, and the runs actually used."""
    where = ", ".join(deadline.where)
    return (f"budget reached: the time budget of {deadline.seconds:g} s was reached ({where}); "
            f"{used} of the {planned} runs planned were used and the bound is certified on "
            "the runs actually counted (partial result; rerun with a larger budget for the "
            "full audit)")


# --------------------------------------------------------------------------- exact
def output_distributions(target: Target, d0: Any, d1: Any) -> tuple[dict, dict] | None:
    """The exact output distributions ``(P(d0), P(d1))`` (dicts output → probability) from the
    target's ``output_distribution``, or None where it has none for either dataset."""
    p0 = target.output_distribution(d0)
    p1 = target.output_distribution(d1) if p0 is not None else None
    return None if p0 is None or p1 is None else (p0, p1)


def consistency_notes(dists: tuple[dict, dict], s0: Batch, s1: Batch) -> list[str]:
    """The selection split against the exact distributions (chi-square goodness of fit at
    `CONSISTENCY_LEVEL`, ``exact.goodness_of_fit``): a note and a
    ``DistributionMismatchWarning`` per dataset where they disagree (the exact ε would describe
    another mechanism than the one sampled); an empty list where both agree.  The warning
    points at the caller of the audit function (``stacklevel`` counts this function, the
    stage runner and the public entry point)."""
    notes = []
    for name, dist, sample in (("d0", dists[0], s0), ("d1", dists[1], s1)):
        fit = exact_mod.goodness_of_fit(sample, dist)
        if not fit.agrees(CONSISTENCY_LEVEL):
            what = (f"{fit.outside} sampled outputs outside its support" if fit.outside else
                    f"chi-square {fit.statistic:.1f} on {fit.dof} df, p = {fit.p_value:.2g}")
            msg = (f"output_distribution({name}) disagrees with the outputs sampled on {name} "
                   f"({what}, below {CONSISTENCY_LEVEL:g}): the exact epsilon reported does not "
                   "describe the sampled mechanism, unless this sample is a one-in-a-billion "
                   "draw")
            warnings.warn(msg, exact_mod.DistributionMismatchWarning, stacklevel=4)
            notes.append(msg)
    return notes


# --------------------------------------------------------------------------- events
def event_sides(direction: int, k0: Any, k1: Any, split: RunSplit) -> tuple[int, int, int, int]:
    """``(k_a, k_b, n_a, n_b)`` of an event with certification counts ``k0`` (on d0) and ``k1``
    (on d1): the count and run number on the side it is more likely under (d0 for
    ``direction == 0``, else d1), then on the other side (run numbers at least 1)."""
    n0, n1 = max(split.n_c0, 1), max(split.n_c1, 1)
    return (int(k0), int(k1), n0, n1) if direction == 0 else (int(k1), int(k0), n1, n0)


def few_outputs(s0: Batch, s1: Batch) -> bool:
    """Whether the two samples show at most ``FEW_OUTPUTS`` distinct outputs, with on average
    at least 4 runs per output."""
    limit = min(FEW_OUTPUTS, (len(s0) + len(s1)) // 4)
    return distinct_outputs(s0, s1, limit=limit) <= limit
