"""Privacy claims and mechanisms at their limits (issue 40): overflow at large ε, root finding at
extreme parameters, RDP's order ∞, user callables and claims that return nonsense, mechanisms
at tiny and huge ε.  Every input gets a right answer or a one-line ``LtheoryError``; never a
traceback, a warning on stderr, or a silently wrong value.  The corpus holds the reported cases;
hypothesis extends it over the claims' and mechanisms' parameters."""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.errors import InvalidInputError, LtheoryError
from ltheory.privacy.claims import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    PrivacyClaim,
    ProfileClaim,
    PureDP,
    checked_delta,
    claim_from_json,
)
from ltheory.privacy.mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    GeometricMechanism,
    Histogram,
    LaplaceMechanism,
    MultiplicativeWeights,
    RandomizedResponse,
    ReportNoisyMax,
    SparseVector,
    StableHistogram,
)
from ltheory.testing import assert_private


class _WrongShape(PrivacyClaim):
    def delta_at(self, epsilon: Any) -> np.ndarray:
        return np.array([0.1, 0.0])

    def to_json(self) -> dict:
        return {"kind": "wrong_shape"}


class _Text(PrivacyClaim):
    def delta_at(self, epsilon: Any) -> Any:
        return "x"

    def to_json(self) -> dict:
        return {"kind": "text"}


class _NanAccountant:
    def get_delta(self, epsilon: float) -> float:
        return float(np.exp(-epsilon))

    def get_epsilon(self, delta: float) -> float:
        return float("nan")


def _dg(**kw: Any) -> Any:
    from ltheory.privacy.mechanisms import DiscreteGaussianMechanism

    return DiscreteGaussianMechanism(**kw)


def _dpsgd(**kw: Any) -> Any:
    from ltheory.privacy.mechanisms import DPSGDCanary

    return DPSGDCanary(**{"q": 0.1, "steps": 10, **kw})


#: (input, the fragment of its one-line error) — each was a traceback or a wrong answer
ERRORS = [
    (lambda: RDP(lambda a: np.nan * a), "must return ε_α >= 0"),
    (lambda: RDP(lambda a: np.where(a > 100, -1.0, a / 2)), "got -1.0 at α = 1000"),
    (lambda: RDP(lambda a: "x"), "must return a number"),
    (lambda: RDP(lambda a: None), "must return a number"),
    (lambda: RDP({math.inf: math.inf}), "ε_∞ = inf states nothing"),
    (lambda: ProfileClaim(lambda e: np.exp(-e) / 2, grid_size="abc"), "grid_size must be"),
    (lambda: ProfileClaim(lambda e: np.exp(-e) / 2, grid_size=10**10), "grid_size must be"),
    (lambda: ProfileClaim(lambda e: np.array([0.5, 0.1])), "of the same shape"),
    (lambda: ProfileClaim(_NanAccountant()).epsilon_at(1e-5), "returned nan"),
    (lambda: checked_delta(_WrongShape(), np.zeros(3)), "must return as many δ"),
    (lambda: _WrongShape().epsilon_at(1e-5), "must return as many δ"),
    (lambda: _Text().tradeoff(0.1), "delta_at failed"),
    (lambda: claim_from_json({"kind": "rdp", "orders": [2, 3], "epsilons": [1]}), "malformed"),
    (lambda: GeometricMechanism(1e-300), "epsilon/sensitivity >= 1e-15"),
    (lambda: LaplaceMechanism(1e-300, sensitivity=1e300), "noise scale"),
    (lambda: LaplaceMechanism(1.0, sensitivity=-1), "sensitivity must be a finite number > 0"),
    (lambda: ReportNoisyMax(1.0, sensitivity=float("nan")), "sensitivity must be"),
    (lambda: _dg(sigma=1e-200), "sigma must be at least 1e-100"),
    (lambda: _dpsgd(sigma=1e-300), "sigma must be in [1e-100, 1e+100]"),
    (lambda: _dpsgd(sigma=1e300), "sigma must be in [1e-100, 1e+100]"),
    (lambda: _dpsgd(sigma=1e-3).epsilon, "PLD accountant would build about 1.0e+11 cells"),
    (lambda: assert_private(LaplaceMechanism(1.0), 0, 1, claim=1000.0, max_runs=10_000),
     "too weak to test"),
    (lambda: assert_private(LaplaceMechanism(1.0), 0, 1, claim=GDP(1e200), max_runs=10_000),
     "nothing a test could refute"),
    (lambda: assert_private(LaplaceMechanism(1.0), 0, 1, claim=_WrongShape(), max_runs=10_000),
     "delta_at(0) failed"),
]


@pytest.mark.parametrize("make, fragment", ERRORS)
def test_corpus_errors_are_one_clear_line(make: Any, fragment: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(LtheoryError) as info:
            make()
    text = str(info.value)
    assert fragment in text and "\n" not in text


def _pure_profile(eps: float, at: np.ndarray) -> np.ndarray:
    return PureDP(eps).delta_at(at)


#: (input, its right answer) — each was an overflow, a failed root search or a wrong value
VALUES = [
    (lambda: float(ApproxDP(800).delta_at(0)), 1.0),
    (lambda: PureDP(1000).epsilon_at(0.1), 1000 + math.log1p(-0.1 * (1 + math.exp(-1000)))),
    (lambda: GDP(1e200).epsilon_at(1e-5), math.inf),          # ≈ μ²/2 = 5e399: not a float
    (lambda: GDP(1e-300).epsilon_at(1e-5), 0.0),              # δ(0) = 2Φ(μ/2) − 1 ≈ 4e-301
    (lambda: ZCDP(1e308).epsilon_at(1e-5), math.inf),
    (lambda: ZCDP(1e-300).epsilon_at(1e-5), 0.0),
    # RDP of order ∞ is pure DP (Mironov 2017, Section III): ε(δ) of 1-DP, tighter than order 2
    (lambda: RDP({math.inf: 1}).epsilon_at(1e-5), PureDP(1.0).epsilon_at(1e-5)),
    (lambda: RDP({2: 1, math.inf: 1}).epsilon_at(1e-5), PureDP(1.0).epsilon_at(1e-5)),
    (lambda: RDP({math.inf: 1}).epsilon_at(0.0), 1.0),
    (lambda: claim_from_json({"kind": "rdp", "orders": [1e999], "epsilons": [1]}).epsilon_at(0),
     1.0),
    (lambda: claim_from_json(RDP({2: 3, math.inf: 1}).to_json()).epsilon_at(0.0), 1.0),
    (lambda: RandomizedResponse(800).output_distribution(1)[1], 1.0),
    (lambda: RandomizedResponse(1e-300).output_distribution(1)[0], 0.5),
    (lambda: ReportNoisyMax(1e300).output_distribution((2.0, 0.0, 0.0))[0], 1.0),
    (lambda: ReportNoisyMax(1e-300).output_distribution((2.0, 0.0))[0], 0.5),
    # a 1e-100 discrete Gaussian is ρ = 5e199-zCDP; the RDP accountant at σ = 1e-100 (was a
    # ZeroDivisionError and an overflow inside dp-accounting at 1e-300)
    (lambda: _dg(sigma=1e-100).rho, 5e199),
    (lambda: _dpsgd(sigma=1e-100, q=1.0).true_epsilon,
     GDP(math.sqrt(10) / 1e-100).epsilon_at(1e-5)),
]


@pytest.mark.parametrize("make, expected", VALUES)
def test_corpus_values_are_right(make: Any, expected: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = make()
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_rdp_order_infinity_is_pure_dp_everywhere() -> None:
    eps = np.array([0.0, 0.3, 0.9, 1.0, 2.0, 50.0])
    np.testing.assert_allclose(RDP({math.inf: 1.0}).delta_at(eps), _pure_profile(1.0, eps),
                               rtol=1e-12, atol=1e-300)
    both = RDP({2: 0.1, math.inf: 1.0}).delta_at(eps)
    assert np.all(both <= RDP({2: 0.1}).delta_at(eps) + 1e-15)
    assert np.all(both <= _pure_profile(1.0, eps) + 1e-15)
    doc = RDP({2: 0.5, math.inf: 1.0}).to_json()
    assert json.loads(json.dumps(doc, allow_nan=False)) == doc and "inf" in doc["orders"]
    # ε_∞ caps every finite order (D_α is non-decreasing in α)
    assert RDP({4: 9.0, math.inf: 1.0}).values.tolist() == [1.0]


def test_rdp_infinity_claim_refutes_a_3dp_mechanism() -> None:
    """RR at ε = 3 against a 1-DP claim given as RDP of order ∞ (was "consistent")."""
    from ltheory.testing import PrivacyViolation

    with pytest.raises(PrivacyViolation):
        assert_private(RandomizedResponse(3.0), ((0, 0),), ((0, 1),), claim=RDP({math.inf: 1}),
                       max_runs=20_000, seed=0)


def test_gdp_with_epsilon_zero_points_is_tested_not_refused() -> None:
    """GDP(1e-300) is ≈ (0, 4e-301)-DP: the test checks that point (was "epsilon must be > 0")."""
    from ltheory.testing import PrivacyViolation

    with pytest.raises(PrivacyViolation, match="refuted at ε=0"):
        assert_private(RandomizedResponse(1.0), ((0, 0),), ((0, 1),), claim=GDP(1e-300),
                       max_runs=20_000, seed=0)


# --------------------------------------------------------------------------- hypothesis
_log_uniform = st.floats(-300, 300).map(lambda x: 10.0 ** x)
_delta = st.one_of(st.just(0.0), st.floats(-300, -0.01).map(lambda x: 10.0 ** x))


@st.composite
def claims(draw: Any) -> PrivacyClaim:
    kind = draw(st.sampled_from(["pure", "approx", "zcdp", "gdp", "rdp"]))
    if kind == "pure":
        return PureDP(draw(_log_uniform))
    if kind == "approx":
        return ApproxDP(draw(_log_uniform), draw(_delta))
    if kind == "zcdp":
        return ZCDP(draw(_log_uniform))
    if kind == "gdp":
        return GDP(draw(_log_uniform))
    orders = draw(st.lists(st.one_of(st.floats(1.01, 1e6), st.just(math.inf)), min_size=1,
                           max_size=4, unique=True))
    return RDP({a: draw(_log_uniform) for a in orders})


@settings(max_examples=60, deadline=None)
@given(claims(), st.sampled_from([0.5, 1e-5, 1e-12, 1e-300, 0.0]))
def test_claims_at_any_parameters_give_a_profile(claim: PrivacyClaim, delta: float) -> None:
    """δ(ε) in [0, 1], non-increasing, no warning; ε(δ) ≥ 0 or inf, and δ(ε(δ)) ≤ δ."""
    grid = np.array([0.0, 1e-3, 1.0, 10.0, 700.0, 710.0, 1e5, 1e300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = claim.delta_at(grid)
        e = claim.epsilon_at(delta)
        f = claim.tradeoff(np.array([0.0, 0.01, 0.5, 1.0]))
    assert np.all((d >= 0) & (d <= 1)) and np.all(np.diff(d) <= 1e-12)
    assert np.all((f >= 0) & (f <= 1))
    assert e >= 0 and not math.isnan(e)
    if math.isfinite(e):       # ε(δ) is (up to float rounding of ε) where δ(ε) reaches δ
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            at = float(claim.delta_at(min(e * (1 + 1e-9) + 1e-12, 1.7e308)))
        assert at <= delta * (1 + 1e-6) + 1e-300


_MECHANISMS = [LaplaceMechanism, GeometricMechanism, RandomizedResponse, ReportNoisyMax,
               ExponentialMechanism, MultiplicativeWeights, SparseVector, Histogram,
               StableHistogram, GaussianMechanism]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_MECHANISMS), _log_uniform)
def test_mechanisms_at_any_epsilon_sample_or_refuse(cls: Any, epsilon: float) -> None:
    """Built and sampled at any ε in [1e-300, 1e300]: finite outputs, or a clear error at
    construction — no overflow, no warning, no NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            m = cls(epsilon=epsilon)
        except InvalidInputError:
            return
        rng = np.random.default_rng(0)
        for d in m.default_pair():
            out = np.asarray(m.sample(d, 5, rng), dtype=float)
            assert out.shape[0] == 5 and np.all(np.isfinite(out))


@pytest.mark.parametrize("epsilon", [710.0, 1000.0, 1e300])
def test_budget_helpers_at_huge_epsilon(epsilon: float) -> None:
    """Were OverflowError (e^ε, a range of 2^63 elements); now inf / None: no budget can."""
    from ltheory.testing import min_runs_to_reject, runs_to_detect

    assert min_runs_to_reject(epsilon) == math.inf
    assert runs_to_detect(epsilon) is None


@pytest.mark.parametrize("epsilon", [math.inf, math.nan, -1.0])
def test_budget_helpers_refuse_bad_epsilon(epsilon: float) -> None:
    from ltheory.testing import min_runs_to_reject, runs_to_detect

    for f in (min_runs_to_reject, runs_to_detect):
        with pytest.raises(InvalidInputError, match="epsilon must be a finite number >"):
            f(epsilon)


@pytest.mark.parametrize("args, code", [
    (["laplace", "--runs", "2000", "--curve", "--claim", "eps:1000"], 0),
    (["laplace", "--runs", "2000", "--curve", "--claim", "zcdp:1e308"], 0),
    (["randomized_response", "-p", "epsilon=3", "--runs", "4000", "--curve", "--claim",
      "rdp:1e999=1"], 1),
    (["randomized_response", "-p", "epsilon=3", "--runs", "4000", "--curve", "--claim",
      "rdp:inf=1"], 1),
    (["laplace", "--runs", "2000", "--curve", "--claim", "gdp:1e200"], 0),
    (["histogram", "-p", "epsilon=1e-300", "--runs", "2000", "--claimed-epsilon", "1"], 0),
    (["discrete_gaussian", "-p", "sigma=1e-200", "--runs", "2000", "--claimed-epsilon", "1"],
     2),
])
def test_command_line_at_the_extremes(args: list[str], code: int) -> None:
    """The issue's command lines: the right verdict (0 consistent, 1 violation, 2 bad input),
    strict JSON, and nothing on stderr but a one-line error — no traceback, no RuntimeWarning
    (an order ∞ claim against a 3-DP mechanism was "consistent": no constraint at all)."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "ltheory.cli", "audit", *args, "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == code, run.stderr
    if code == 2:
        assert run.stderr.startswith("error: ") and len(run.stderr.strip().splitlines()) == 1
    else:
        assert run.stderr == ""

        def refuse(c: str) -> None:
            raise AssertionError(f"not JSON: {c}")
        json.loads(run.stdout, parse_constant=refuse)


@pytest.mark.parametrize("mu", [1e-300, 1e-12, 1e-6, 0.3, 1.0])
def test_gdp_profile_is_accurate_in_the_far_tail_at_small_mu(mu):
    """The closed form Φ(a) − e^ε Φ(−b) lost every digit of δ at μ = 10⁻¹² (δ ~ 10⁻¹⁰²
    computed as the difference of two numbers ~10⁻⁸⁹), so ε(10⁻³⁰⁰) came out 0.56 of the
    truth; checked against 60-digit mpmath."""
    import mpmath

    mpmath.mp.dps = 60
    claim = GDP(mu)
    for t in (0.0, 1.0, 20.0, 37.0):
        e = t * mu
        ref = float(mpmath.ncdf(-mpmath.mpf(e) / mu + mpmath.mpf(mu) / 2)
                    - mpmath.exp(mpmath.mpf(e)) * mpmath.ncdf(-mpmath.mpf(e) / mu
                                                               - mpmath.mpf(mu) / 2))
        if ref > 1e-300:
            assert float(claim.delta_at(e)) == pytest.approx(ref, rel=1e-11)
    e = claim.epsilon_at(1e-300)
    assert float(claim.delta_at(e * (1 + 1e-9))) <= 1e-300 * (1 + 1e-6)
    if e > 0:                  # (at μ = 10⁻³⁰⁰, δ(0) ≈ 0.4·μ is already below 10⁻³⁰⁰)
        assert float(claim.delta_at(e * (1 - 1e-6))) > 1e-300
