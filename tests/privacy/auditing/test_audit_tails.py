"""Issue 38, item 2: candidate events that reach the tails — extreme order statistics among the
threshold cuts, atoms of continuous outputs, isolated tails — and the audits that use them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.privacy import audit, audit_curve
from ltheory.privacy.auditing.events import (
    MAX_THRESHOLDS,
    AtomEncoder,
    isolated_cuts,
    make_atom_encoder,
    tail_ranks,
    threshold_grid,
)
from ltheory.privacy.claims import GDP, PureDP


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 10**9), limit=st.integers(1, 10**6),
       growth=st.floats(0.001, 2.0))
def test_tail_ranks_cover_every_tail_within_the_factor(n: int, limit: int, growth: float) -> None:
    r = tail_ranks(n, limit, growth)
    top = min(limit, n - 1)
    assert r[0] == 1 and r[-1] <= top and np.all(np.diff(r) >= 1)
    # every rank up to the top is within a factor (1 + growth) of a listed one at or below it
    assert np.all(r[1:] <= np.maximum(r[:-1] + 1, r[:-1] * (1 + growth)))
    assert r[-1] * (1 + growth) >= top or r[-1] + 1 > top


def test_threshold_grid_holds_the_extreme_order_statistics() -> None:
    v = np.random.default_rng(0).normal(size=400_000)
    s = np.sort(v)
    g = threshold_grid(v)
    ranks = tail_ranks(len(v), 2 * len(v) // MAX_THRESHOLDS + 1)
    assert set(s[len(s) - ranks]) <= set(g) and set(s[ranks - 1]) <= set(g)
    assert {s[0], s[1], s[-1], s[-2]} <= set(g)
    # the quantile grid is still there, and nothing outside the sample
    assert len(g) >= MAX_THRESHOLDS - 1 and g.min() == s[0] and g.max() == s[-1]
    few = np.array([3.0, 1.0, 2.0, 1.0])
    assert threshold_grid(few).tolist() == [1.0, 2.0, 3.0]


def test_atoms_are_the_repeated_values_of_a_continuous_output() -> None:
    rng = np.random.default_rng(1)
    s0 = rng.normal(size=5000)
    s1 = rng.normal(size=5000)
    s1[:7] = 10.0
    s0[:3] = -2.5
    enc = make_atom_encoder(s0, s1)
    assert isinstance(enc, AtomEncoder) and sorted(enc.values.tolist()) == [-2.5, 10.0]
    codes = enc.encode(np.array([10.0, -2.5, 0.123]))
    assert codes[0] >= 0 and codes[1] >= 0 and codes[2] == -1
    assert "atom 10" in enc.describe(int(codes[0]))
    assert make_atom_encoder(rng.normal(size=100), rng.normal(size=100)) is None
    rows = np.repeat(np.array([[1.0, 2.0]]), 3, axis=0)
    vec = make_atom_encoder(np.vstack([rows, rng.normal(size=(50, 2))]), rng.normal(size=(50, 2)))
    assert vec is not None and vec.values.tolist() == [[1.0, 2.0]]


@pytest.mark.parametrize("seed", range(5))
def test_isolated_cuts_find_a_far_cluster_and_nothing_in_smooth_tails(seed: int) -> None:
    rng = np.random.default_rng(seed)
    bulk = rng.laplace(size=200_000)
    far = 20 + rng.random(8)
    hi, lo = isolated_cuts(np.concatenate([bulk, far]), 101)
    assert hi is not None and bulk.max() < hi < 20 and lo is None
    low_far = -30 - rng.random(5)
    hi2, lo2 = isolated_cuts(np.concatenate([bulk, low_far]), 101)
    assert lo2 is not None and -30 < lo2 < bulk.min()
    for smooth in (rng.normal(size=200_000), rng.laplace(size=200_000)):
        assert isolated_cuts(smooth, 101) == (None, None)
    assert isolated_cuts(np.ones(10), 5) == (None, None)


class _IsolatedLeak:
    """Laplace(1) around d, except that on d = 1 a fraction p of the runs lands in [20, 21]:
    far from every other output, so no pure-DP claim holds; the event {x ≥ 16} alone shows
    it (oracle: ~3·10^5 runs at α = 0.05)."""

    name = "laplace with isolated far outputs"

    def __init__(self, p: float = 1e-4) -> None:
        self.p = p

    def sample(self, d: float, n: int, rng: np.random.Generator) -> np.ndarray:
        x = d + rng.laplace(0.0, 1.0, n)
        if d == 1:
            m = rng.random(n) < self.p
            x[m] = 20 + rng.random(int(m.sum()))
        return x

    def __call__(self, d: float, rng: np.random.Generator) -> float:
        return float(self.sample(d, 1, rng)[0])


#: the tails of the real-arithmetic mechanisms (their float sums also leak their bits)
OPTS = {"verify_neighbours": False, "executor": "serial", "arithmetic": "real"}


@pytest.mark.parametrize("seed", [0, 1])
def test_audits_find_an_isolated_tail_leak(seed: int) -> None:
    m = _IsolatedLeak()
    r = audit_curve(m, 0, 1, claim=PureDP(1.0), runs=2_000_000, seed=seed, **OPTS)
    assert r.verdict == "violation" and r.gap_event.startswith("output ≥ 1")
    assert any(e["chosen_for"] == "margin, extremes" for e in r.events)
    a = audit(m, 0, 1, claimed_epsilon=1.0, runs=2_000_000, seed=seed, **OPTS)
    assert a.verdict == "violation" and a.epsilon_lower_bound > 2.0
    assert any("extreme event" in n for n in a.notes)


class _FarAtom:
    """N(d, 1), except that on d = 1 a fraction p of the runs outputs exactly 10."""

    name = "gaussian with a far atom"

    def __init__(self, p: float) -> None:
        self.p = p

    def sample(self, d: float, n: int, rng: np.random.Generator) -> np.ndarray:
        x = d + rng.standard_normal(n)
        if d == 1:
            x[rng.random(n) < self.p] = 10.0
        return x

    def __call__(self, d: float, rng: np.random.Generator) -> float:
        return float(self.sample(d, 1, rng)[0])


def test_curve_audit_certifies_on_a_far_atom() -> None:
    r = audit_curve(_FarAtom(2e-3), 0, 1, claim=GDP(1.0), runs=2_000_000, seed=0, **OPTS)
    assert r.verdict == "violation"
    rows = [e for e in r.events if e["chosen_for"] == "margin, extremes"]
    assert rows and ("atom 10" in rows[0]["event"] or "≥" in rows[0]["event"])
    assert rows[0]["d0"] == 0 and rows[0]["more_likely_under"] == "d1"


def test_no_extreme_bet_on_a_smooth_pair() -> None:
    class Gauss:
        name = "gaussian"

        def sample(self, d: float, n: int, rng: np.random.Generator) -> np.ndarray:
            return d + rng.standard_normal(n)

        def __call__(self, d: float, rng: np.random.Generator) -> float:
            return float(self.sample(d, 1, rng)[0])

    r = audit_curve(Gauss(), 0, 1, claim=GDP(1.0), runs=400_000, seed=3, **OPTS)
    assert r.verdict == "consistent"
    a = audit(Gauss(), 0, 1, claimed_epsilon=3.0, claimed_delta=1e-3, runs=400_000, seed=3,
              **OPTS)
    assert a.verdict == "consistent" and not any("extreme event" in n for n in a.notes)
