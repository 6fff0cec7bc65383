"""ltheory.testing.sequential: the betting e-process is a supermartingale under the claim, its
crossing and certified bound follow their definitions, and the spending rule sums to α."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ltheory.testing import sequential as seq
from ltheory.testing.sequential import (
    FIRST_SHARE,
    FRACTIONS,
    BettingEProcess,
    epsilon_grid,
    min_hits_to_reject,
    restart_weight,
    spending_level,
    spending_test,
)


def _outcome_probs(pa: float, pb: float) -> np.ndarray:
    """P(outcome 2x + y) for independent X ~ Bern(pa), Y ~ Bern(pb)."""
    return np.array([(1 - pa) * (1 - pb), (1 - pa) * pb, pa * (1 - pb), pa * pb])


@given(st.floats(0.01, 5.0), st.floats(0.0, 1.0), st.floats(0.0, 0.5))
def test_expected_factor_at_most_one_under_the_claim(eps: float, pb: float, delta: float) -> None:
    # the worst case of the claim: P_a(E) = min(1, e^eps P_b(E) + delta)
    pa = min(1.0, math.exp(eps) * pb + delta)
    logf = seq._log_factors(np.array([math.exp(eps)]), delta, np.asarray(FRACTIONS))[0]
    expected = np.exp(logf) @ _outcome_probs(pa, pb)
    assert np.all(expected <= 1.0 + 1e-12)
    assert np.all(np.exp(logf) > 0)                         # wealth stays positive


def test_expected_factor_exceeds_one_when_the_claim_is_false() -> None:
    # the same identity is falsifiable: a violating pair (P_a = 1.3 e^eps P_b) gains on average
    eps, pb = 1.0, 0.1
    logf = seq._log_factors(np.array([math.exp(eps)]), 0.0, np.asarray(FRACTIONS))[0]
    expected = np.exp(logf) @ _outcome_probs(1.3 * math.exp(eps) * pb, pb)
    assert np.all(expected > 1.0)


def _simulate(pa: float, pb: float, n: int, alpha: float, reps: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    rejections = 0
    for _ in range(reps):
        p = BettingEProcess(epsilon_grid(1.0), 0.0, alpha)
        x, y = rng.random(n) < pa, rng.random(n) < pb
        rejections += p.first_crossing(x, y) is not None
    return rejections


def test_false_alarm_rate_of_the_e_process_at_a_large_level() -> None:
    # exactly-eps pair, alpha = 0.2: at most ~20% of streams ever cross (Ville); a broken
    # process (e.g. without the e^eps factor) crosses far more often, see the next test
    u = math.e
    rej = _simulate(0.5, 0.5 / u, 4000, 0.2, 300, 0)
    assert rej <= 0.2 * 300 + 3 * math.sqrt(300 * 0.2 * 0.8)


def test_broken_factor_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = seq._log_factors
    monkeypatch.setattr(seq, "_log_factors",
                        lambda us, delta, c: real(us / math.exp(0.3), delta, c))
    assert _simulate(0.5, 0.5 / math.e, 4000, 0.2, 100, 0) > 60


def test_first_crossing_matches_a_direct_scan() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.random(3000) < 0.4, rng.random(3000) < 0.05
    p = BettingEProcess(epsilon_grid(1.0), 0.0, 1e-6)
    i = p.first_crossing(x, y)
    logf = p.logf[0]
    path = np.cumsum(logf[:, 2 * x.astype(int) + y.astype(int)].T, axis=0)
    # the first strategy holds FIRST_SHARE of the capital, the rest counts at face value
    mix = np.log(FIRST_SHARE * np.mean(np.exp(path), axis=1) + (1 - FIRST_SHARE))
    scan = int(np.argmax(mix >= math.log(1e6))) if (mix >= math.log(1e6)).any() else None
    assert i == scan and i is not None
    assert p.pairs == 0 and not p.log_wealth.any()             # first_crossing does not update


def test_a_spent_strategy_is_followed_by_a_fresh_start_and_the_total_stays_a_supermartingale(
        ) -> None:
    """Restarts (``BettingEProcess`` docstring): losing bets spend the first strategy; a fresh
    one starts with the next batch, so a later leak is still found; the capitals (started,
    and unstarted at face value) sum to 1 before any bet, and under a true claim the mean
    e-value over many paths stays ≤ 1."""
    p = BettingEProcess(epsilon_grid(1.0), 0.0, 1e-6)
    assert math.isclose(float(np.exp(p.log_e_values()[0])), 1.0)
    assert math.isclose(FIRST_SHARE + sum(restart_weight(t) for t in range(1, 10**6)), 1.0,
                        rel_tol=1e-5)
    p.update(np.array([0, 3000, 0, 0]))          # runs only in the event under d_b: spent
    assert p.restarts == 1 and p.log_wealth.shape[0] == 2
    for _ in range(8):
        p.update(np.array([0, 0, 20, 0]))        # an impossible-under-d_b event: climbs again
    assert p.rejected()[0]
    rng = np.random.default_rng(0)
    finals = []
    for _ in range(400):                          # tight claim ε = 1: P_a = e·P_b
        q = BettingEProcess(np.array([1.0]), 0.0, 0.05)
        for _ in range(30):
            x = rng.random(50) < 0.3
            y = rng.random(50) < 0.3 / math.e
            q.update(np.bincount(2 * x.astype(int) + y.astype(int), minlength=4))
        finals.append(float(np.exp(q.log_e_values()[0])))
    assert np.mean(finals) <= 1.05 and sum(f >= 20 for f in finals) <= 3


def test_min_hits_is_exact_for_perfect_separation() -> None:
    eps, alpha = 1.0, 1e-6
    h = min_hits_to_reject(eps, 0.0, alpha)
    for n, crosses in ((h - 1, False), (h, True)):
        p = BettingEProcess(epsilon_grid(eps), 0.0, alpha)
        p.update(np.array([0, 0, n, 0]))
        assert bool(p.rejected()[0]) is crosses


def test_certified_bound_is_the_rejected_prefix() -> None:
    p = BettingEProcess(epsilon_grid(0.5), 0.0, 1e-3)
    assert p.certified_bound() is None
    p.update(np.array([0, 0, 400, 0]))                         # 400 runs only under d_a
    b = p.certified_bound()
    rej = p.rejected()
    assert b is not None and b >= 0.5
    j = int(np.searchsorted(p.epsilons, b))
    assert rej[: j + 1].all() and (j + 1 == len(rej) or not rej[j + 1])


def test_spending_levels_sum_to_alpha() -> None:
    t = np.arange(1, 10**6)
    assert spending_level(0.01, 1) == pytest.approx(0.01 * 6 / math.pi ** 2)
    assert sum(spending_level(0.01, int(k)) for k in t[:1000]) < 0.01
    rej, bound = spending_test(300, 10, 1000, 1.0, 0.0, 1e-6)
    assert rej and bound > 1.0
    rej, bound = spending_test(300, 110, 1000, 1.0, 0.0, 1e-6)
    assert not rej


def test_restart_if_lost_starts_fresh_capital_only_after_a_loss_and_keeps_few_strategies(
        ) -> None:
    from ltheory.testing.sequential import MAX_STRATEGIES

    p = BettingEProcess(np.array([1.0]), 0.0, 1e-6)
    assert not p.restart_if_lost()                      # nothing bet yet
    p.update(np.array([0, 0, 5, 0]))                    # won: no fresh start
    assert not p.restart_if_lost() and p.restarts == 0
    p.update(np.array([0, 40, 0, 0]))                   # lost (below its start)
    assert p.restart_if_lost() and p.restarts == 1 and len(p.log_capital) == 2
    for _ in range(3 * MAX_STRATEGIES):
        p.update(np.array([0, 40, 0, 0]))
        p.restart_if_lost()
    assert len(p.log_capital) <= MAX_STRATEGIES and p.log_wealth.shape[0] == len(p.log_capital)
    # dropping the least worth keeps the e-value below the undropped one: still at most 1 here
    assert float(np.exp(p.log_e_values()[0])) <= 1.0
