"""Floating-point leaks looked for by default (``ltheory.privacy.auditing.floating``, issue 38)
and bad outputs (mixed types, NaN, ±inf, constant) as clear errors or documented treatments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ltheory.errors import InvalidInputError
from ltheory.privacy import audit, audit_curve
from ltheory.privacy.auditing.config import AuditConfig
from ltheory.privacy.auditing.floating import (
    INF,
    ZERO,
    BitEncoder,
    bit_encoders,
    float_columns,
    grid_exponents,
)
from ltheory.privacy.auditing.outputs import MechanismError
from ltheory.privacy.mechanisms import (
    DiscreteGaussianMechanism,
    GeometricMechanism,
    LaplaceMechanism,
)
from ltheory.testing import assert_private

SIGMA = math.sqrt(2 * math.log(1.25 / 1e-5))      # classic σ for (1, 1e-5)


def gauss(d, rng):
    """The textbook Gaussian mechanism in floating point: d + N(0, σ²)."""
    return float(d) + rng.normal(0.0, SIGMA)


def snapped(d, rng):
    """Laplace snapped to the grid 2^-20 after clamping (Mironov 2012): DP in floating
    point."""
    y = float(np.clip(float(d) + rng.laplace(0.0, 1.0), -1024, 1024))
    return float(np.clip(round(y * 2**20) / 2**20, -1024, 1024))


def test_grid_exponents() -> None:
    g = grid_exponents(np.array([1.0, 0.5, 3.0, 0.75, 2.0**-1074, 0.0, -0.0, np.inf, 6.0]))
    assert list(g) == [0, -1, 0, -2, -1074, ZERO, ZERO, INF, 1]
    # every value y is an odd multiple of 2^g
    rng = np.random.default_rng(0)
    y = rng.normal(size=1000) * 10.0 ** rng.integers(-5, 5, 1000)
    g = grid_exponents(y)
    m = y / np.ldexp(1.0, g)
    assert np.all(m == np.round(m)) and np.all(np.round(m) % 2 != 0)


def test_bit_family_only_for_non_integer_floats() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(500, 4))
    x[:, 1] = np.round(x[:, 1] * 10)                        # integer-valued coordinate
    cols = float_columns((x, x + 1.0), "vector")
    assert 1 not in cols and len(cols) == 3
    assert float_columns((np.round(x[:, 0]), np.round(x[:, 2])), "scalar") == []
    assert float_columns((x[:, 0], x[:, 2]), "scalar") == [None]
    assert bit_encoders((x[:, 0], x[:, 2]), "scalar", "real") == []
    assert float_columns((["a"], ["b"]), "object") == []


def test_textbook_gaussian_is_a_floating_point_violation_by_default() -> None:
    """Mironov 2012 / Delta-Siege's headline case: d + N(0, σ²) with the classic σ for
    (1, 1e-5) is found by default and named; arithmetic="real" audits the real mechanism."""
    r = audit(gauss, 0.0, 1.0, claimed_epsilon=1.0, claimed_delta=1e-5, runs=200_000, seed=0,
              verify_neighbours=False)
    assert r.verdict == "violation" and r.floating_point and r.epsilon_lower_bound > 5
    assert r.event.startswith("output's bits: |output| in [2^")
    assert r.notes[0].startswith("floating-point violation") and "snap" in r.notes[0]
    assert "arithmetic='real'" in r.notes[0]
    assert r.to_json()["floating_point"] is True and r.settings["arithmetic"] == "float"
    real = audit(gauss, 0.0, 1.0, claimed_epsilon=1.0, claimed_delta=1e-5, runs=200_000,
                 seed=0, verify_neighbours=False, arithmetic="real")
    assert real.verdict == "consistent" and not real.floating_point
    # a claim-free certification judged later keeps the name
    judged = r.with_claim(1.0)
    assert sum(n.startswith("floating-point violation") for n in judged.notes) == 1


def test_counts_other_than_zero_and_one() -> None:
    """2 + x and 3 + x both reach the grid 2^-52, but only 2 + x below |y| = 1: the code pairs
    the exponent of the value with its lowest set bit (the grid exponent alone misses it)."""
    def laplace(d, rng):
        return float(sum(d)) + rng.laplace(0.0, 1.0)
    r = audit(laplace, (0, 1, 1, 0), (1, 1, 1, 0), claimed_epsilon=1.0, runs=100_000, seed=0)
    assert r.verdict == "violation" and r.floating_point and r.epsilon_lower_bound > 3


def test_curve_audit_finds_it_too() -> None:
    r = audit_curve(LaplaceMechanism(1.0), 0.0, 1.0, claim=1.0, runs=100_000, seed=0)
    assert r.verdict == "violation" and r.floating_point
    assert r.notes[0].startswith("floating-point violation")
    real = audit_curve(LaplaceMechanism(1.0), 0.0, 1.0, claim=1.0, runs=100_000, seed=0,
                       arithmetic="real")
    assert real.verdict == "consistent" and not real.floating_point
    assert type(r).from_json(r.to_json()).floating_point


@pytest.mark.parametrize("mech, d0, d1, claim", [
    (snapped, 0.0, 1.0, (1.1, 0.0)),     # a margin: the value tails have ratio e^1 exactly
    (GeometricMechanism(1.0), 0, 1, (1.0, 0.0)),
    (DiscreteGaussianMechanism(5.0), ((0, 0),), ((0, 1),), None),
], ids=["snapped", "geometric", "discrete_gaussian"])
def test_float_safe_mechanisms_stay_consistent(mech, d0, d1, claim) -> None:
    eps, delta = claim if claim is not None else mech.claim
    for seed in range(3):
        r = audit(mech, d0, d1, claimed_epsilon=eps, claimed_delta=delta, runs=100_000,
                  seed=seed, verify_neighbours=False, exact=False)
        assert r.verdict == "consistent", r.event


def test_arithmetic_option_is_validated() -> None:
    assert AuditConfig().arithmetic == "float"
    with pytest.raises(InvalidInputError, match="arithmetic must be"):
        AuditConfig(arithmetic="double")
    with pytest.raises(InvalidInputError, match="arithmetic must be"):
        audit(gauss, 0.0, 1.0, claimed_epsilon=1.0, runs=10_000, seed=0,
              verify_neighbours=False, arithmetic=None)


def test_describe_groups_ranges() -> None:
    enc = BitEncoder(None, np.array([-60, -59, -58, -40, ZERO, INF]))
    text = enc.describe_cells([0, 1, 2, 3, 4])
    assert text == ("output's bits: lowest set bit 2^k for k in [-60, -58] ∪ -40 (an odd "
                    "multiple of 2^k) or output = 0")
    one = BitEncoder(2, np.array([INF])).describe_cells([0])
    assert one == "output[2]'s bits: output[2] = +inf"
    probe = BitEncoder(None, np.zeros(1, dtype=np.int64), joint=True)
    y = np.array([0.1, 0.1 + 2.0**-56, 3.0])
    enc = BitEncoder(None, np.unique(probe.keys(y)), joint=True)
    assert enc.describe_cells(np.unique(enc.encode(y[:2]))) == (
        "output's bits: |output| in [2^-4, 2^-3) with lowest set bit 2^k for k in [-56, -55] "
        "(an odd multiple of 2^k)")
    assert enc.describe(int(enc.encode(y[2:])[0])) == "e=2, 2^0·odd"


# --------------------------------------------------------------------------- bad outputs
def mixed(d, rng):
    return float(d) + rng.laplace() if rng.random() < 0.5 else "none"


def with_nan(d, rng):
    return math.nan if rng.random() < 0.01 else float(d) + rng.laplace()


def with_inf(d, rng):
    return math.inf if rng.random() < 0.01 else float(d) + rng.laplace()


def constant(d, rng):
    return 3.0


KW = dict(verify_neighbours=False)


@pytest.mark.parametrize("mech, match", [(mixed, "mix of numbers and other values"),
                                         (with_nan, "NaN outputs")], ids=["mixed", "nan"])
def test_unusable_outputs_are_clear_errors(mech, match) -> None:
    with pytest.raises(MechanismError, match=match):
        audit(mech, 0.0, 1.0, claimed_epsilon=1.0, runs=4_000, seed=0, **KW)
    with pytest.raises(MechanismError, match=match):
        audit_curve(mech, 0.0, 1.0, claim=1.0, runs=4_000, seed=0, **KW)
    with pytest.raises(MechanismError, match=match):
        assert_private(mech, 0.0, 1.0, 1.0, max_runs=4_000, **KW)


def test_integers_mixed_with_objects_are_still_cells() -> None:
    def report(d, rng):        # an index or "none": exact cells, as before
        return int(rng.integers(3)) if rng.random() < 0.5 else "none"
    r = audit(report, 0.0, 1.0, claimed_epsilon=1.0, runs=4_000, seed=0, **KW)
    assert r.verdict == "consistent"


def test_infinite_outputs_are_values_with_their_own_cells() -> None:
    r = audit(with_inf, 0.0, 1.0, claimed_epsilon=1.0, runs=20_000, seed=0, arithmetic="real",
              **KW)
    assert r.verdict == "consistent"


def test_constant_outputs_say_so() -> None:
    r = audit(constant, 0.0, 1.0, claimed_epsilon=1.0, runs=4_000, seed=0, **KW)
    assert r.verdict == "consistent" and r.epsilon_lower_bound == 0.0
    assert any(n.startswith("every selection run returned the same output") for n in r.notes)
    c = audit_curve(constant, 0.0, 1.0, claim=1.0, runs=4_000, seed=0, **KW)
    assert c.verdict == "consistent" and any("inconclusive" in n for n in c.notes)
    assert assert_private(constant, 0.0, 1.0, 1.0, max_runs=4_000, **KW).passed
