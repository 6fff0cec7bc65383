"""The fallback of ``events.select_events`` when no position is credible and none projects a
positive bound (issue 42): the position closest to credible by the screen's own
multiplicity-weighted p-value (``events.screen_p_values``, ``events.screen_level``), not the
maximum of a milder-shrunk projection over thousands of positions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from ltheory.privacy import audit
from ltheory.privacy.auditing.events import (
    SHRINK,
    SelectionRule,
    candidate_families,
    credible_positions,
    screen_level,
    screen_p_values,
    select_events,
)
from ltheory.privacy.mechanisms.base import Mechanism

N_CERT, A_EACH = 3_000, 0.0125


@settings(max_examples=60, deadline=None)
@given(ca=st.lists(st.integers(0, 400), min_size=1, max_size=30),
       cb=st.lists(st.integers(0, 400), min_size=1, max_size=30),
       delta=st.sampled_from([0.0, 1e-5, 1e-3]))
def test_p_values_are_the_screens(ca, cb, delta) -> None:
    """The p-value is the conditional binomial tail P(Bin(ka + cb, ½) ≥ ka), and a position is
    credible at a level exactly when its p-value is below it."""
    k = min(len(ca), len(cb))
    ca, cb, n_ev = np.array(ca[:k]), np.array(cb[:k]), 1_000
    p = screen_p_values(ca, cb, n_ev, delta)
    assert np.all((p >= 0) & (p <= 1))
    if delta == 0:
        ref = np.where(ca > cb, binom.sf(ca - 1, ca + cb, 0.5), 1.0)
        np.testing.assert_allclose(p, ref, rtol=1e-9, atol=1e-300)
    for level in (1e-4, 0.01, 0.2):
        cred = credible_positions(ca, cb, n_ev, delta, level)
        assert not np.any(cred & (p >= level))
        assert not np.any(~cred & (p < level * (1 - 1e-9)))


def _noise(seed: int, n: int = 4_000, k: int = 4, shift: float = 0.0):
    rng = np.random.default_rng(seed)
    s0, s1 = rng.normal(size=(n, k)), rng.normal(size=(n, k))
    s0[:, 0] += shift
    return s0, s1


def _weighted_p(blocks, delta: float) -> list[np.ndarray]:
    """Brute force: every non-modelled position's weighted p-value (binomial tail)."""
    n_pos = sum(len(b.proj) for b in blocks)
    n_fam = sum(1 for b in blocks if len(b.proj))
    out = []
    for b in blocks:
        ka, cb = np.asarray(b.ca), np.asarray(b.cb)
        p = np.where(ka > cb, binom.sf(ka - 1, ka + cb, 0.5), 1.0)
        w = screen_level(1.0, len(b.proj), n_pos, n_fam)
        out.append(np.full(len(b.proj), np.inf) if b.modelled or not len(b.proj) else p / w)
    return out


@pytest.mark.parametrize("seed,shift", [(1, 0.0), (2, 0.0), (3, 0.05), (4, 0.08)])
def test_nothing_credible_takes_the_most_significant_position(seed: int, shift: float) -> None:
    """Small selection splits where nothing is credible and nothing projects a positive bound
    at the 98% shrinkage: the top candidate is the position of smallest weighted p-value over
    every family scored by its own counts, marked not credible."""
    s0, s1 = _noise(seed, shift=shift)
    rule = SelectionRule(structure=False, arithmetic="real")
    blocks = candidate_families(s0, s1, rule)(N_CERT, A_EACH, 0.0, SHRINK)
    assert max(float(np.max(b.proj)) for b in blocks if len(b.proj)) <= 0
    top = select_events(s0, s1, N_CERT, A_EACH, 0.0, rule)[0]
    assert not top.credible
    ps = _weighted_p(blocks, 0.0)
    best = min(float(np.min(p)) for p in ps if len(p))
    assert best < np.inf
    # the chosen event's own selection counts give that smallest weighted p-value
    hits = [(j, int(i)) for j, p in enumerate(ps) for i in np.flatnonzero(
        np.isclose(p, best, rtol=1e-12))]
    k0, k1 = top.sel_counts
    ka, kb = (k0, k1) if top.direction == 0 else (k1, k0)
    assert any((int(blocks[j].ca[i]), int(blocks[j].cb[i])) == (ka, kb) for j, i in hits)


def test_the_fallback_needs_the_screen() -> None:
    """With the screen off nothing is ever credible, and the ranking is the unscreened one
    (projections, then the milder shrinkages), as before."""
    s0, s1 = _noise(5)
    rule = SelectionRule(structure=False, arithmetic="real", screen=None)
    on = select_events(s0, s1, N_CERT, A_EACH, 0.0, rule)[0]
    blocks = candidate_families(s0, s1, rule)(N_CERT, A_EACH, 0.0, 0.16)
    assert on.projected == pytest.approx(max(float(np.max(b.proj)) for b in blocks
                                             if len(b.proj))) or on.projected > 0


def test_a_credible_leak_is_not_overridden() -> None:
    """A clear leak: the credible top is kept (the fallback is for no evidence only)."""
    s0, s1 = _noise(6, n=20_000, shift=0.6)
    top = select_events(s0, s1, 200_000, A_EACH, 0.0, structure=False, arithmetic="real")[0]
    assert top.credible and top.projected > 0


class _WeakVector(Mechanism):
    """Ten Laplace(50) coordinates, the dataset added to the first: ε = 0.02 on 0 vs 1."""

    name = "weak Laplace vector"
    neighbour_relation = "any"
    epsilon = 0.02

    def are_neighbours(self, d0, d1) -> bool:
        return abs(float(d0) - float(d1)) <= 1

    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        out = rng.laplace(0.0, 50.0, size=(n, 10))
        out[:, 0] += float(dataset)
        return out


def test_the_report_says_when_the_fallback_chose() -> None:
    """A leak the selection split cannot see: the report names the fallback's event, and the
    bound is a bound (at most the pair's ε = 0.02 here, up to chance at α)."""
    r = audit(_WeakVector(), 0.0, 1.0, claimed_epsilon=0.02, runs=200_000, seed=0,
              arithmetic="real")
    notes = [n for n in r.notes if "closest to passing" in n]
    assert len(notes) == 1 and "p-value" in notes[0]
    assert r.epsilon_lower_bound <= 0.02
