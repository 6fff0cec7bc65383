"""Chunked runs: the report does not depend on where chunks run (serial, processes, dask)."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from ltheory.errors import InvalidInputError
from ltheory.privacy import audit
from ltheory.privacy.auditing import executors
from ltheory.privacy.mechanisms import LaplaceMechanism, NoisyMaxWithValue

D0, D1 = ((0, 0),), ((0, 1),)


def _key(r):
    return (r.epsilon_lower_bound, r.epsilon_point_estimate, r.event, r.counts)


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(executors, "CHUNK", 4096)


def test_same_report_serial_threads_processes(small_chunks) -> None:
    m = LaplaceMechanism(0.5)
    kw = dict(claimed_epsilon=0.5, runs=60_000, seed=4)
    base = audit(m, D0, D1, executor="serial", **kw)
    with ThreadPoolExecutor(3) as ex:
        threads = audit(m, D0, D1, executor=ex, **kw)
    with ProcessPoolExecutor(2) as ex:
        procs = audit(m, D0, D1, executor=ex, **kw)
    assert _key(base) == _key(threads) == _key(procs)


def test_vector_outputs_through_process_pool(small_chunks) -> None:
    m = NoisyMaxWithValue(1.0)
    kw = dict(claimed_epsilon=1.0, runs=30_000, seed=1)
    assert _key(audit(m, *m.default_pair(), executor="serial", **kw)) == \
        _key(audit(m, *m.default_pair(), executor="process", **kw))


def test_unpicklable_mechanism_falls_back_to_serial() -> None:
    lam = lambda d, rng: int(rng.random() < 0.5)  # noqa: E731
    r = audit(lam, D0, D1, claimed_epsilon=1.0, runs=4_000, seed=0, executor="process")
    assert any("serially" in n for n in r.notes)


def test_bad_executor() -> None:
    with pytest.raises(InvalidInputError, match="executor"):
        audit(LaplaceMechanism(1.0), D0, D1, claimed_epsilon=1.0, runs=4_000, seed=0,
              executor="gpu")


def test_dask_local_cluster_executor(small_chunks) -> None:
    distributed = pytest.importorskip("dask.distributed")
    m = LaplaceMechanism(0.5)
    kw = dict(claimed_epsilon=0.5, runs=40_000, seed=9)
    base = audit(m, D0, D1, executor="serial", **kw)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        r = audit(m, D0, D1, executor=client.get_executor(), **kw)
    assert _key(r) == _key(base)


class _SlowLaplace(LaplaceMechanism):
    """A mechanism declaring small chunks (as a slow learner would)."""

    audit_chunk_runs = 1_000


def test_declared_chunk_size_splits_and_uses_the_pool() -> None:
    m = _SlowLaplace(0.5)
    kw = dict(claimed_epsilon=0.5, runs=20_000, seed=2)
    ticks: list[tuple[int, int]] = []
    base = audit(m, D0, D1, executor="serial", progress=lambda d, t: ticks.append((d, t)), **kw)
    assert ticks[-1][0] == ticks[-1][1] >= 16          # split into many chunks
    ex, owned, _ = executors.resolve_executor(None, m, 20_000)
    assert isinstance(ex, executors.AdaptiveExecutor) and owned and ex.left == 20
    ex.shutdown()
    assert _key(audit(m, D0, D1, executor="process", **kw)) == _key(base)
    m.audit_chunk_runs = 0
    with pytest.raises(InvalidInputError, match="audit_chunk_runs"):
        audit(m, D0, D1, **kw)


def _fake_clock(monkeypatch, chunk_seconds: float) -> None:
    """Every chunk the adaptive executor times takes ``chunk_seconds`` by its clock."""
    t = [0.0]

    def clock() -> float:
        t[0] += chunk_seconds / 2          # read twice per chunk
        return t[0]
    monkeypatch.setattr(executors.time, "perf_counter", clock)


@pytest.mark.parametrize("free, chunk_seconds, pool", [
    (1, 10.0, False),      # a loaded machine: never a pool, however slow the chunks
    (2, 1e-3, False),      # fast chunks: the start-up would not pay
    (2, 1.0, True),        # slow chunks, two cores free: 0.25 + 18/2 s < 0.75 x 18 s
])
def test_adaptive_executor_starts_a_pool_only_when_it_pays(monkeypatch, free: int,
                                                           chunk_seconds: float,
                                                           pool: bool) -> None:
    monkeypatch.setattr(executors, "free_cores", lambda: free)
    monkeypatch.setattr(executors, "_fork_unsafe", lambda: False)
    _fake_clock(monkeypatch, chunk_seconds)
    ex = executors.AdaptiveExecutor(chunks=20)
    results = [ex.submit(pow, 2, k) for k in range(6)]
    try:
        assert [f.result() for f in results] == [2 ** k for k in range(6)]
        assert (ex.pool is not None) == pool
        assert ex.timed == executors.PROBE_CHUNKS if pool else ex.timed == 6
        assert ("process pool" in ex.note) == pool
    finally:
        ex.shutdown()


def test_adaptive_default_gives_the_serial_report(monkeypatch) -> None:
    """The default's choice never changes the report (each chunk has its own seed)."""
    monkeypatch.setattr(executors, "free_cores", lambda: 2)
    monkeypatch.setattr(executors, "_fork_unsafe", lambda: False)
    monkeypatch.setattr(executors, "POOL_START_SECONDS", 0.0)    # force the pool
    monkeypatch.setattr(executors, "POOL_GAIN", 10.0)
    m = _SlowLaplace(0.5)
    kw = dict(claimed_epsilon=0.5, runs=40_000, seed=4)
    base = audit(m, D0, D1, executor="serial", **kw)
    r = audit(m, D0, D1, **kw)
    assert _key(r) == _key(base) and any("process pool" in n for n in r.notes)


def test_free_cores_is_within_the_machine() -> None:
    import os

    assert 1 <= executors.free_cores() <= (os.cpu_count() or 1)


def test_no_forked_pool_once_jax_is_loaded(monkeypatch) -> None:
    """JAX's threads make a fork unsafe (a docs example deadlocked): the default stays serial
    however much a pool would pay, and executor='process' spawns its workers."""
    monkeypatch.setattr(executors, "free_cores", lambda: 2)
    monkeypatch.setattr(executors, "_fork_unsafe", lambda: True)
    _fake_clock(monkeypatch, 1.0)
    ex = executors.AdaptiveExecutor(chunks=20)
    [ex.submit(pow, 2, k).result() for k in range(4)]
    assert ex.pool is None and "JAX" in ex.note
    pool = executors.local_pool(1)
    try:
        assert pool._mp_context.get_start_method() == "spawn"
    finally:
        pool.shutdown()


_SEEN: list[int] = []


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info

    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


class _BlasThreads(LaplaceMechanism):
    """A Laplace mechanism that records the BLAS libraries' thread counts while it samples."""

    def sample(self, dataset, n, rng):
        _SEEN.extend(_blas_threads())
        return super().sample(dataset, n, rng)


@pytest.mark.parametrize("entry", ["audit", "audit_curve", "audit_search"])
def test_audits_run_with_one_blas_thread_and_restore_it(entry: str) -> None:
    from ltheory.privacy import audit_curve, audit_search

    before = _blas_threads()
    if not before:
        pytest.skip("no BLAS library visible to threadpoolctl")
    m = _BlasThreads(1.0)
    _SEEN.clear()
    if entry == "audit":
        audit(m, D0, D1, claimed_epsilon=1.0, runs=20_000, seed=0, executor="serial")
    elif entry == "audit_curve":
        audit_curve(m, D0, D1, claim=(1.0, 0.0), runs=20_000, seed=0, executor="serial")
    else:
        audit_search(m, ((0, 0),), claimed_epsilon=1.0, total_runs=40_000, seed=0,
                     executor="serial")
    assert _SEEN and set(_SEEN) == {1}
    assert _blas_threads() == before
