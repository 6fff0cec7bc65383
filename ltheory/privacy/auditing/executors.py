"""Splitting runs into chunks and running them on any ``concurrent.futures.Executor``.

Every chunk has a fixed size and its own seed, spawned from
``numpy.random.SeedSequence(seed)`` (stream s, chunk c = ``SeedSequence(seed).spawn(4)[s]
.spawn(n_chunks)[c]``), so the outputs — hence the report — do not depend on where or in which
order the chunks run: serially, on a local process pool, or on a ``dask.distributed`` cluster
(``Client.get_executor()``).

The chunk size is ``CHUNK`` = 2^17 runs, right for fast vectorised mechanisms, where a smaller
chunk only adds overhead.  It also means an audit of fewer than 2^17 runs per stream is one chunk
and runs on one core: a slow mechanism (a learner taking milliseconds per run) can declare a
smaller ``audit_chunk_runs`` attribute to be split.  The chunk size is part of what a seed
reproduces.

The default executor (``executor=None`` / ``"auto"``) never loses to serial by more than two
chunks' worth: an audit of at least 2·10^6 runs or 8 chunks runs on an
`AdaptiveExecutor`, which draws the first chunks in-process, times them, and starts a
local process pool for the rest only when, with the cores actually free (the core count less
the load average, our own process counted as ours), its estimated time — pool start-up plus the
serial time shared over the free cores — is below `POOL_GAIN` of the serial estimate.
On a loaded 2-core machine it stays serial (the old default opened a pool there and ran SVT1's
2·10^6 runs in 15–22 s against 3 s serially).

Audits run with one BLAS thread (``ltheory.blas.one_blas_thread`` on ``run_audit``,
``audit_curve`` and ``audit_search``), and the pool's forked workers inherit the limit: their
spinning BLAS threads had competed with the other worker.  On this 2-core machine, DP-Sniper's
pairs at 2·10^7 runs, default executor: Rappor 22.3 s wall and 34.0 s CPU with the default
threads, 17.7 s and 24.1 s with one; LaplaceParallel 29.0 → 25.6 s CPU; at 2·10^6 runs 5.6 →
4.3 s CPU.  Same bounds.
"""

from __future__ import annotations

import math
import os
import pickle
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

import numpy as np

from ltheory.privacy.auditing.outputs import Batch, concat
from ltheory.privacy.auditing.target import CHUNK, Target, as_target

AUTO_POOL_MIN_RUNS = 2_000_000
AUTO_POOL_MIN_CHUNKS = 8
#: Chunks the adaptive executor draws in-process and times before it decides (the fastest of
#: them is the estimate: a first chunk's one-time costs never argue for a pool).
PROBE_CHUNKS = 2
#: Seconds charged for starting a local process pool and getting its first results back (a
#: fork, the target pickled to each worker): measured 0.008–0.013 s here (two workers, fork);
#: charged at 0.25 s, for platforms that spawn and re-import, and for results sent back.
POOL_START_SECONDS = 0.25
#: A pool is started only when its estimated time is below this share of the serial estimate.
POOL_GAIN = 0.75


def _fork_unsafe() -> bool:
    """Whether forking this process could deadlock a child: JAX (the jax-privacy adapter) runs
    threads of its own, and a fork copies their locks held (JAX warns of it)."""
    import sys

    return "jax" in sys.modules


def local_pool(workers: int) -> ProcessPoolExecutor:
    """A local process pool: forked workers, or spawned ones once JAX is loaded."""
    if _fork_unsafe():
        import multiprocessing

        return ProcessPoolExecutor(max_workers=workers,
                                   mp_context=multiprocessing.get_context("spawn"))
    return ProcessPoolExecutor(max_workers=workers)


def free_cores() -> int:
    """Cores free for a pool: ``os.cpu_count()`` less the 1-minute load average beyond our own
    busy process (at least 1; the core count where the load average is unavailable)."""
    n = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):           # not on this platform
        return n
    return max(1, min(n, int(math.floor(n - max(0.0, load - 1.0) + 0.5))))


class AdaptiveExecutor(Executor):
    """The default executor of large audits (see
    [`ltheory.privacy.auditing.executors`][ltheory.privacy.auditing.executors]): chunks run
    in-process until
    `PROBE_CHUNKS` are timed, then on a local process pool of `free_cores`
    workers when ``POOL_START_SECONDS + serial / workers < POOL_GAIN · serial`` for the
    ``chunks`` left, else in-process to the end.  Results do not depend on the choice (every
    chunk has its own seed).  ``note`` says what was chosen and why."""

    def __init__(self, chunks: int, picklable: bool = True) -> None:
        self.left = int(chunks)
        self.fastest = math.inf
        self.timed = 0
        self.pool: ProcessPoolExecutor | None = None
        self.decided = not picklable
        self.note = "" if picklable else "mechanism not picklable: ran serially"

    @property
    def _max_workers(self) -> int:
        return self.pool._max_workers if self.pool is not None else 1  # type: ignore[attr-defined]

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any):  # type: ignore[override]
        self.left -= 1
        if self.pool is not None:
            return self.pool.submit(fn, *args, **kwargs)
        f: Future = Future()
        t0 = time.perf_counter()
        try:
            f.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - delivered through the future
            f.set_exception(exc)
        self.fastest = min(self.fastest, time.perf_counter() - t0)
        self.timed += 1
        if not self.decided and self.timed >= PROBE_CHUNKS:
            self._decide()
        return f

    def _decide(self) -> None:
        self.decided = True
        serial = self.fastest * max(self.left, 0)
        workers = free_cores()
        pooled = POOL_START_SECONDS + serial / workers
        if _fork_unsafe():             # JAX loaded: a spawned pool re-imports it (seconds)
            self.note = "ran serially: JAX is loaded (a forked pool could deadlock)"
        elif workers >= 2 and pooled < POOL_GAIN * serial:
            self.pool = local_pool(workers)
            self.note = (f"process pool of {workers} workers for the last {self.left} chunks "
                         f"(a chunk takes {self.fastest:.2g} s: {pooled:.1f} s estimated "
                         f"against {serial:.1f} s serially)")
        else:
            self.note = (f"ran serially: a pool would not pay ({workers} core(s) free, "
                         f"{pooled:.1f} s estimated against {serial:.1f} s serially)")

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def chunk_runs(mechanism: Any) -> int:
    """Runs per chunk: the target's ``audit_chunk_runs`` if it declares one, else CHUNK."""
    return as_target(mechanism).chunk_runs


def chunk_plan(stream: np.random.SeedSequence, n: int,
               chunk: int = CHUNK) -> list[tuple[int, np.random.SeedSequence]]:
    sizes = [chunk] * (n // chunk) + ([n % chunk] if n % chunk else [])
    return list(zip(sizes, stream.spawn(len(sizes)), strict=True))


def sample_chunk(target: Target, dataset: Any, n: int, ss: np.random.SeedSequence) -> Batch:
    return target.draw(dataset, n, np.random.default_rng(ss))


def count_chunk(target: Target, dataset: Any, n: int, ss: np.random.SeedSequence,
                events: Sequence[Any]) -> np.ndarray:
    # the batch is counted and dropped: no copy of the mechanism's float array is needed
    b = target.draw(dataset, n, np.random.default_rng(ss), copy=False)
    return np.array([int(np.count_nonzero(e.contains(b))) for e in events], dtype=np.int64)


class SerialExecutor(Executor):
    """Runs each task at submission, in-process."""

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any):  # type: ignore[override]
        from concurrent.futures import Future
        f: Future = Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - delivered through the future
            f.set_exception(exc)
        return f


def resolve_executor(executor: Any, mechanism: Any, total_runs: int) -> tuple[Executor, bool, str]:
    """(executor, owned, note): ``None`` / ``"auto"`` = an `AdaptiveExecutor` for large
    audits (≥ 2·10^6 runs, or ≥ 8 chunks of the mechanism's ``audit_chunk_runs``), which starts
    a process pool only when it pays, else serial; ``"serial"``; ``"process"`` (a local pool
    of every core, always); or an Executor."""
    if isinstance(executor, Executor):
        return executor, False, ""
    if executor in (None, "auto", "process"):
        try:
            pickle.dumps(as_target(mechanism))
            picklable = True
        except Exception:  # noqa: BLE001 - lambdas, closures, ...
            picklable = False
        chunks = math.ceil(total_runs / chunk_runs(mechanism))
        if executor == "process":
            if picklable:
                return local_pool(os.cpu_count() or 1), True, ""
            return SerialExecutor(), True, "mechanism not picklable: ran serially"
        if total_runs >= AUTO_POOL_MIN_RUNS or chunks >= AUTO_POOL_MIN_CHUNKS:
            return AdaptiveExecutor(chunks, picklable), True, ""
        return SerialExecutor(), True, ""
    if executor == "serial":
        return SerialExecutor(), True, ""
    from ltheory.errors import InvalidInputError
    raise InvalidInputError(f"executor must be None, 'serial', 'process' or a "
                            f"concurrent.futures.Executor, got {executor!r}")


def run_sampling(ex: Executor, mechanism: Any, dataset: Any, stream: np.random.SeedSequence,
                 n: int, progress: Callable[[int], None] | None = None) -> Batch:
    t = as_target(mechanism)
    futs = [ex.submit(sample_chunk, t, dataset, m, ss)
            for m, ss in chunk_plan(stream, n, t.chunk_runs)]
    out = []
    for f in futs:
        out.append(f.result())
        if progress:
            progress(1)
    return concat(out)


def run_counting(ex: Executor, mechanism: Any, dataset: Any, stream: np.random.SeedSequence,
                 n: int, events: Sequence[Any],
                 progress: Callable[[int], None] | None = None) -> np.ndarray:
    t = as_target(mechanism)
    futs = [ex.submit(count_chunk, t, dataset, m, ss, list(events))
            for m, ss in chunk_plan(stream, n, t.chunk_runs)]
    total = np.zeros(len(events), dtype=np.int64)
    for f in futs:
        total += f.result()
        if progress:
            progress(1)
    return total


def n_chunks(n: int, chunk: int = CHUNK) -> int:
    return math.ceil(n / chunk)


def run_pair(ex: Executor, mechanism: Any, datasets: Sequence[Any],
             streams: Sequence[np.random.SeedSequence], sizes: Sequence[int],
             events: Sequence[Any] | None = None, stop: Callable[[], bool] | None = None,
             progress: Callable[[int], None] | None = None
             ) -> tuple[list[Any], list[int]]:
    """The chunks of two (or more) streams, interleaved (chunk 0 of each stream, then chunk
    1, ...), each stream's chunks exactly those of `run_sampling` /
    `run_counting` (same sizes and seeds), so without ``stop`` the results are theirs.

    ``events=None`` samples (one `Batch` per stream), else counts ``events`` (one
    integer array per stream).  Returns ``(results, runs)``: per stream its result and the
    runs it holds.  ``stop()`` is read before each chunk is submitted and after each result is
    collected; once it is True no chunk is submitted, chunks not started are cancelled, and
    each stream keeps the prefix of its chunks collected so far (chunk boundaries only: the
    cut is decided by the clock, never by what the chunks returned).  With ``stop`` at most
    2 x workers chunks are in flight, so a stop leaves little running."""
    t = as_target(mechanism)
    plans = [chunk_plan(st, n, t.chunk_runs) for st, n in zip(streams, sizes, strict=True)]
    order = [(k, c) for c in range(max((len(p) for p in plans), default=0))
             for k in range(len(plans)) if c < len(plans[k])]
    def window() -> int:          # read at each submission: an adaptive executor may grow
        if stop is None:
            return len(order)
        return max(int(getattr(ex, "_max_workers", 0) or 0), 1)
    outs: list[list[Any]] = [[] for _ in plans]
    runs = [0] * len(plans)
    pending: list[tuple[int, int, Any]] = []
    nxt, stopped = 0, False

    def submit() -> None:
        nonlocal nxt, stopped
        while nxt < len(order) and len(pending) < window() and not stopped:
            if stop is not None and stop():
                stopped = True
                return
            k, c = order[nxt]
            m, ss = plans[k][c]
            fut = (ex.submit(sample_chunk, t, datasets[k], m, ss) if events is None else
                   ex.submit(count_chunk, t, datasets[k], m, ss, list(events)))
            pending.append((k, m, fut))
            nxt += 1

    submit()
    while pending:
        k, m, fut = pending.pop(0)
        res = fut.result()
        outs[k].append(res)
        runs[k] += m
        if progress:
            progress(1)
        if stop is not None and not stopped and stop():
            stopped = True
        if stopped:
            for _, _, f in pending:
                f.cancel()
            break
        submit()
    if events is None:
        return [concat(o) if o else [] for o in outs], runs
    z = np.zeros(len(events), dtype=np.int64)
    return [sum(o, z.copy()) for o in outs], runs

