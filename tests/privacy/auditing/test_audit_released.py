"""Released-value threshold events (issue 42): a coordinate that mixes point masses ("not
released": 0) with a continuous part is thresholded on its released runs only, in both
directions, and the selection counts of these events are the counts of ``contains``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.privacy.auditing import events as ev
from ltheory.privacy.auditing.events import (
    Score,
    ThresholdEvent,
    _threshold_candidates,
    released_scores,
)


def _zero_inflated(rng: np.random.Generator, n: int, p_release: float, width: float,
                   atom: float = 0.0) -> np.ndarray:
    """A released value U(0, width) with probability p_release, else the atom."""
    v = rng.uniform(0.0, width, n)
    return np.where(rng.random(n) < p_release, v, atom)


def test_released_scores_pick_the_mixed_coordinates_only():
    rng = np.random.default_rng(0)
    n = 4000
    x = np.column_stack([
        rng.integers(-1, 2, n).astype(float),          # a ⊤/⊥/stopped code: all atoms
        rng.normal(size=n),                             # continuous, no atom
        _zero_inflated(rng, n, 0.3, 5.0),               # released or 0
        _zero_inflated(rng, n, 0.3, 5.0, atom=-7.0),    # released or −7
        np.where(rng.random(n) < 0.005, rng.normal(size=n), 0.0),   # too few released
    ])
    got = released_scores(x[: n // 2], x[n // 2:])
    assert [(s.col, s.atoms) for s in got] == [(2, (0.0,)), (3, (-7.0,))]


def test_released_score_is_nan_exactly_at_its_atoms_and_distinct_from_the_plain_one():
    s = Score(col=1, atoms=(0.0, 2.0))
    b = np.array([[5.0, 0.0], [5.0, 1.5], [5.0, 2.0], [5.0, -0.0]])
    v = s(b)
    assert np.isnan(v).tolist() == [True, False, True, True]
    assert v[1] == 1.5
    assert s != Score(col=1) and hash(s) != hash(Score(col=1))
    assert "not 0, 2" in s.describe()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), t=st.floats(-1.0, 6.0), geq=st.booleans())
def test_released_events_hold_no_atom_in_either_direction(seed, t, geq):
    rng = np.random.default_rng(seed)
    col = _zero_inflated(rng, 200, 0.5, 5.0)
    e = ThresholdEvent(Score(col=0, atoms=(0.0,)), t, geq)
    inside = e.contains(col[:, None])
    assert not inside[col == 0.0].any()
    released = col != 0.0
    want = (col >= t) if geq else (col <= t)
    assert (inside == (want & released)).all()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), nan_share=st.floats(0.0, 0.9))
def test_selection_counts_of_nan_scores_are_the_counts_of_contains(seed, nan_share):
    """Runs scored NaN are in no event; the selection's counts say so in both directions."""
    rng = np.random.default_rng(seed)
    fit = tuple(_zero_inflated(rng, 300, 1 - nan_share, 4.0)[:, None] for _ in range(2))
    evs = (_zero_inflated(rng, 300, 1 - nan_share, 4.0)[:, None],
           _zero_inflated(rng, 300, 1 - nan_share, 3.0)[:, None])
    score = Score(col=0, atoms=(0.0,))
    blocks: list = []
    _threshold_candidates(score, fit, evs, 10_000, 0.01, 0.0, blocks, tail=False)
    assert blocks
    for bl in blocks:
        for i in range(0, len(bl.proj), max(1, len(bl.proj) // 7)):
            c = bl.make(i, True)
            assert c.sel_n == 300
            assert c.sel_counts == (int(c.event.contains(evs[0]).sum()),
                                    int(c.event.contains(evs[1]).sum()))


def test_selection_finds_a_leak_in_the_released_values_only():
    """Each dataset releases a value in (0, 2) half the time, else 0; d0 puts half of its
    released runs below 1, d1 a quarter.  The released runs below 1 have likelihood ratio 2;
    a plain threshold {o ≤ t} holds the atom (ratio at most 1.2) and {o ≥ t} is d1's side
    (ratio at most 1.5)."""
    rng = np.random.default_rng(3)
    n = 20_000

    def sample(low_share: float) -> np.ndarray:
        low = rng.random(n) < low_share
        v = np.where(low, rng.uniform(0.0, 1.0, n), rng.uniform(1.0, 2.0, n))
        return np.column_stack([np.where(rng.random(n) < 0.5, v, 0.0), rng.normal(size=n)])

    fit, evs = (sample(0.5), sample(0.25)), (sample(0.5), sample(0.25))

    def best(score: Score) -> tuple[float, object]:
        blocks: list = []
        _threshold_candidates(score, fit, evs, 200_000, 0.01, 0.0, blocks)
        top = max(((float(bl.proj.max()), bl.make(int(np.argmax(bl.proj)), True))
                   for bl in blocks), key=lambda r: r[0])
        return top

    proj, c = best(Score(col=0, atoms=(0.0,)))
    assert c.direction == 0 and not c.event.geq and 0.8 < c.event.t < 1.2, c
    assert proj > 0.5                                   # ln 2 = 0.69 less the shrinkage
    assert best(Score(col=0))[0] < 0.45                 # ln 1.5 = 0.41 at most
    assert any(s.atoms == (0.0,) for s in
               ev._families(fit, "vector", structure=False, lean=False)[1])


@pytest.mark.parametrize("atoms", [(), (0.0,)])
def test_unfitted_follows_released(atoms):
    s = Score(col=0, atoms=atoms)
    assert s.unfitted == bool(atoms)         # released values: scored on the whole split


def test_gap_events_count_released_runs_only():
    """The betting test's event choice (``ltheory.testing.gap_events``) has the same family, and
    its counts drop the atoms' NaN runs the same way."""
    from ltheory.testing.gap_events import _thresholds

    rng = np.random.default_rng(5)
    fit = tuple(_zero_inflated(rng, 400, 0.5, 4.0)[:, None] for _ in range(2))
    evs = (_zero_inflated(rng, 400, 0.5, 4.0)[:, None], _zero_inflated(rng, 400, 0.5, 3.0)[:, None])
    for per_point in _thresholds(Score(col=0, atoms=(0.0,)), fit, evs, [(0.1, 0.0), (0.5, 1e-3)]):
        for c in per_point:
            assert c.sel_counts == (int(c.event.contains(evs[0]).sum()),
                                    int(c.event.contains(evs[1]).sum()))


def test_an_atom_of_one_dataset_only_is_found():
    """The atoms' candidates come from both datasets' first runs, not the pooled prefix (which
    would hold d0's runs only)."""
    rng = np.random.default_rng(9)
    n = 30_000
    x0 = rng.normal(size=(n, 1))
    x1 = _zero_inflated(rng, n, 0.6, 5.0, atom=-1.0)[:, None]
    got = released_scores(x0, x1)
    assert [(s.col, s.atoms) for s in got] == [(0, (-1.0,))]
