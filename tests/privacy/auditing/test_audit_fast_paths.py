"""The vectorised sampling paths give the numbers of the direct computations they replace (the
reference implementations below are the code before the change): the parallel composition's
fused Laplace draws, RAPPOR's randomised responses, and the batch that skips the float copy."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.privacy.auditing.outputs import normalise
from ltheory.privacy.mechanisms import dpsniper_suite
from ltheory.privacy.mechanisms.statdp import NoisyHist, Parallel, Rappor


# --------------------------------------------------------------------------- references
def parallel_reference(m: Parallel, dataset, n: int, rng) -> np.ndarray:
    outs = []
    for part in m.parts:
        o = np.asarray(part.sample(dataset, n, rng), dtype=float)
        outs.append(o[:, None] if o.ndim == 1 else o)
    return np.hstack(outs)


def rappor_reference(m: Rappor, value: int, n: int, rng) -> np.ndarray:
    b = m.bloom(value)
    u = rng.random((n, m.bits))
    prr = np.where(u < m.f / 2, True, np.where(u < m.f, False, b[None, :]))
    if not m.instantaneous:
        return prr.astype(float)
    v = rng.random((n, m.bits))
    return np.where(prr, v < m.q, v < m.p).astype(float)


# --------------------------------------------------------------------------- mechanisms
@settings(max_examples=40, deadline=None)
@given(scales=st.lists(st.sampled_from([1.0, 3.0, 200.0]), min_size=1, max_size=6),
       rappor_at=st.integers(-1, 6), n=st.integers(1, 300), seed=st.integers(0, 2**32 - 1),
       width=st.integers(1, 3))
def test_parallel_fused_laplace_draws_are_the_parts_draws(scales, rappor_at, n, seed, width):
    parts: list = [NoisyHist(0.1, scale=s) for s in scales]
    data: tuple = tuple(float(i) for i in range(width))
    if 0 <= rappor_at <= len(parts):            # a part of another kind breaks a run
        parts.insert(rappor_at, Rappor())
        data = (1.0,)
    m = Parallel(parts)
    got = m.sample(data, n, np.random.default_rng(seed))
    want = parallel_reference(m, data, n, np.random.default_rng(seed))
    assert got.dtype == want.dtype and got.flags.c_contiguous
    assert np.array_equal(got, want)


def test_laplace_parallel_of_the_suite_is_unchanged():
    m, _ = dpsniper_suite(0.1)["LaplaceParallel"]
    got = m.sample((1.0,), 5000, np.random.default_rng(11))
    assert np.array_equal(got, parallel_reference(m, (1.0,), 5000, np.random.default_rng(11)))


@settings(max_examples=40, deadline=None)
@given(f=st.sampled_from([0.25, 0.5, 0.75, 0.95]), p=st.floats(0.05, 0.95),
       q=st.floats(0.05, 0.95),
       inst=st.booleans(), value=st.integers(-10, 10), n=st.integers(1, 200),
       seed=st.integers(0, 2**32 - 1))
def test_rappor_sampling_is_the_direct_formula(f, p, q, inst, value, n, seed):
    m = Rappor(f=f, p=p, q=q, instantaneous=inst)
    got = m.sample((float(value),), n, np.random.default_rng(seed))
    want = rappor_reference(m, value, n, np.random.default_rng(seed))
    assert got.dtype == want.dtype and np.array_equal(got, want)


# --------------------------------------------------------------------------- batches
def test_normalise_without_copy_shares_a_float_array_and_keeps_its_values():
    raw = np.random.default_rng(1).random((50, 3))
    kept = normalise(raw, 50, copy=False)
    fresh = normalise(raw, 50)
    assert np.array_equal(kept, fresh)
    assert np.shares_memory(kept, raw) and not np.shares_memory(fresh, raw)
    ints = np.arange(50)
    assert normalise(ints, 50, copy=False).dtype == np.float64
