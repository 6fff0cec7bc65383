"""Curve audits of DP-SGD on a canary (``DPSGDCanary``, ``audit_curve``): at (q, σ, T) = (1, 1, 1)
the mechanism is exactly 1-GDP, so dp-accounting's PLD claim is tight and must be consistent,
while the false claims of issue 33 (the accountant's ε halved; the accountant run at 2σ) must be
violations at ~2·10^5 runs, at an ε where the exact curve lies above the false claim by at
least the certified gap.  The full-size figures are in ``benchmarks/bench_dpsgd_audit.py``."""

from __future__ import annotations

import numpy as np
import pytest

from ltheory.privacy import audit_curve
from ltheory.privacy.claims import GDP, ApproxDP
from ltheory.privacy.mechanisms import CANARY, DPSGDCanary

RUNS = 200_000
D0, D1 = (), (CANARY,)


@pytest.mark.parametrize("release", ["all", "final"])
def test_dpsgd_true_claim_consistent_false_claims_caught(release):
    m = DPSGDCanary(1.0, 1.0, 1, release=release)
    claim = m.privacy_claim
    exact = GDP(1.0)
    # the PLD accountant's curve is the exact one here (q = 1, T = 1: the Gaussian mechanism)
    assert claim.epsilon_at(1e-5) == pytest.approx(exact.epsilon_at(1e-5), abs=1e-3)
    # the real-arithmetic DP-SGD step (its float Gaussian noise also leaks its bits)
    ok = audit_curve(m, D0, D1, claim=claim, runs=RUNS, seed=0, arithmetic="real")
    assert ok.verdict == "consistent"
    grid = np.linspace(0.0, 6.0, 601)
    assert np.all(ok.delta_lower_bound_at(grid) <= exact.delta_at(grid) + 1e-12)
    assert ok.epsilon_lower_bound_at(1e-2) > 0.8 * exact.epsilon_at(1e-2)

    halved = ApproxDP(claim.epsilon_at(1e-5) / 2, 1e-5)
    twice = DPSGDCanary(1.0, 1.0, 1, release=release, accountant_sigma=2.0)
    assert twice.privacy_claim.epsilon_at(1e-5) < 0.5 * claim.epsilon_at(1e-5)
    for mech, false in ((m, halved), (twice, twice.privacy_claim)):
        bad = audit_curve(mech, D0, D1, claim=false, runs=RUNS, seed=1, arithmetic="real")
        assert bad.verdict == "violation", false
        e = bad.gap_epsilon
        assert float(exact.delta_at(e)) - float(false.delta_at(e)) >= bad.gap - 1e-9
