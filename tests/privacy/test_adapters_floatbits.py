"""Bit-level features of float outputs (no third-party library needed)."""

from __future__ import annotations

import numpy as np
import pytest

from ltheory.errors import InvalidInputError
from ltheory.privacy import audit
from ltheory.privacy.adapters.floatbits import BitFeatures, describe_code, float_features
from ltheory.privacy.mechanisms import GeometricMechanism, LaplaceMechanism


def test_codes() -> None:
    c = float_features([1.0, 0.75, 2.0**-10 + 2.0**-40, 0.0])
    assert describe_code(int(c[0])) == "exponent 1, 52 trailing zero bits"
    assert describe_code(int(c[1])) == "exponent 0, 51 trailing zero bits"
    assert describe_code(int(c[2])) == "exponent -9, 22 trailing zero bits"
    assert c[3] == -1
    lb = float_features([1.0 + 2.0**-52], "lowbits", lowbits=2)
    assert describe_code(int(lb[0]), "lowbits", lowbits=2) == "exponent 1, low bits 01"


def test_sterbenz_grid_feature() -> None:
    """1 − x for x in [1/2, 2] is exact, so a value near 0 computed from 1 lies on the 2⁻⁵³
    grid, while the same value drawn directly need not: the feature sees the difference."""
    rng = np.random.default_rng(0)
    x, direct = rng.uniform(0.9, 1.0, 1000), rng.uniform(0.0, 0.1, 1000)
    for y, on_grid in ((1.0 - x, 1.0), (direct, 0.2)):
        code = float_features(y, emin=-60)
        e, tz = code // 64 - 60, code % 64           # y = m·2^e, m in [1/2, 1)
        share = np.mean(tz >= -e)                     # y is a multiple of 2⁻⁵³
        assert share == on_grid if on_grid == 1.0 else share < on_grid


@pytest.mark.parametrize("bad", [{"feature": "mantissa"}, {"lowbits": 0}, {"emin": 3, "emax": 1}])
def test_bad_feature_parameters(bad) -> None:
    with pytest.raises(InvalidInputError):
        float_features([1.0], **bad)
    with pytest.raises(InvalidInputError):
        float_features([np.inf])


def test_integer_mechanism_is_not_separated() -> None:
    m = BitFeatures(GeometricMechanism(1.0))
    assert m.claim == (1.0, 0.0) and m.neighbour_relation == "substitution"
    r = audit(m, ((0, 0),), ((0, 1),), claimed_epsilon=1.0, runs=20_000, seed=0)
    assert r.verdict == "consistent"


def test_naive_float_laplace_is_separated() -> None:
    """Textbook ``f(D) + Lap(b)`` in float64 (numpy): the ulp feature certifies ε far above the
    claim at the worst pair 0 vs 1 (Mironov 2012)."""
    r = audit(BitFeatures(LaplaceMechanism(1.0)), ((0, 0),), ((0, 1),), claimed_epsilon=1.0,
              runs=20_000, seed=0)
    assert r.verdict == "violation" and r.epsilon_lower_bound > 3.0
