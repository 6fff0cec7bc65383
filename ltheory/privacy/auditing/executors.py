"""Splitting runs into chunks and running them on any ``concurrent.futures.Executor``.

Every chunk has a fixed size and its own seed, spawned from
``numpy.random.SeedSequence(seed)`` (stream s, chunk c = ``SeedSequence(seed).spawn(4)[s]
.spawn(n_chunks)[c]``), so the outputs — hence the report — do not depend on where or in which
order the chunks run: serially, on a local process pool, or on a ``dask.distributed`` cluster
(``Client.get_executor()``).

The chunk size is ``CHUNK`` = 2^17 runs, right for fast vectorised mechanisms, where a smaller
chunk only adds overhead.  It also means an audit of fewer than 2^17 runs per stream is one chunk
and runs on one core: a slow mechanism (a learner taking milliseconds per run) can declare a
smaller ``audit_chunk_runs`` attribute to be split and, from 8 chunks up, run on the local
process pool by default.  The chunk size is part of what a seed reproduces.
"""

from __future__ import annotations

import math
import os
import pickle
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

import numpy as np

from ltheory.privacy.auditing.outputs import Batch, concat
from ltheory.privacy.auditing.target import CHUNK, Target, as_target

AUTO_POOL_MIN_RUNS = 2_000_000
AUTO_POOL_MIN_CHUNKS = 8


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
    b = target.draw(dataset, n, np.random.default_rng(ss))
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
    """(executor, owned, note): ``None`` = a local process pool for large audits (≥ 2·10^6 runs,
    or ≥ 8 chunks of the mechanism's ``audit_chunk_runs``) of a picklable mechanism, else
    serial; ``"serial"``, ``"process"`` or an Executor."""
    if isinstance(executor, Executor):
        return executor, False, ""
    if executor in (None, "auto", "process"):
        try:
            pickle.dumps(as_target(mechanism))
            picklable = True
        except Exception:  # noqa: BLE001 - lambdas, closures, ...
            picklable = False
        many = (total_runs >= AUTO_POOL_MIN_RUNS
                or math.ceil(total_runs / chunk_runs(mechanism)) >= AUTO_POOL_MIN_CHUNKS)
        if executor == "process" or (executor in (None, "auto") and many):
            if picklable:
                return ProcessPoolExecutor(max_workers=os.cpu_count() or 1), True, ""
            return SerialExecutor(), True, "mechanism not picklable: ran serially"
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
    1, ...), each stream's chunks exactly those of :func:`run_sampling` /
    :func:`run_counting` (same sizes and seeds), so without ``stop`` the results are theirs.

    ``events=None`` samples (one :class:`Batch` per stream), else counts ``events`` (one
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
    if stop is None:
        window = len(order)
    else:
        window = max(int(getattr(ex, "_max_workers", 0) or 0), 1)
    outs: list[list[Any]] = [[] for _ in plans]
    runs = [0] * len(plans)
    pending: list[tuple[int, int, Any]] = []
    nxt, stopped = 0, False

    def submit() -> None:
        nonlocal nxt, stopped
        while nxt < len(order) and len(pending) < window and not stopped:
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

