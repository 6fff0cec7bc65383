"""jax-privacy's DP-SGD pipeline as an adapter (issue 39, part 2): the law of its release, its
accountant's claim, a small audit, and the errors of configurations it cannot account."""

from __future__ import annotations

import builtins
import math

import numpy as np
import pytest

from ltheory.errors import InvalidInputError, LtheoryError

pytest.importorskip("jax_privacy", reason="jax-privacy is not installed: pip install "
                    "'ltheory[jax]'")

from ltheory.privacy import audit_curve  # noqa: E402
from ltheory.privacy.adapters import JaxPrivacyDPSGD  # noqa: E402
from ltheory.privacy.adapters.jax_privacy_dpsgd import CANARY, COUNTER  # noqa: E402


@pytest.fixture(scope="module")
def full_batch() -> JaxPrivacyDPSGD:
    return JaxPrivacyDPSGD(q=1.0, sigma=1.0, steps=1)


def test_accountant_claim_is_the_pld_of_the_subsampled_gaussian(full_batch):
    # q = 1, T = 1: one Gaussian of multiplier 1, i.e. GDP(1): ε(1e-5) = 4.377
    assert full_batch.accountant_epsilon == pytest.approx(4.3772, abs=2e-3)
    assert full_batch.privacy_claim.epsilon_at(1e-5) == pytest.approx(
        full_batch.accountant_epsilon, abs=1e-3)
    assert full_batch.true_epsilon == pytest.approx(full_batch.accountant_epsilon, abs=1e-3)
    assert full_batch.neighbour_relation == "add_remove"
    assert full_batch.default_pair() == ((), (CANARY,))


def test_conformance():
    from ltheory.testing import check_mechanism

    r = check_mechanism(JaxPrivacyDPSGD(q=0.5, sigma=1.0, steps=3))
    assert set(r.checks.values()) == {"ok"}, r.checks


def test_release_law_and_reproducibility(full_batch):
    # the LLR of N(1, 1) against N(0, 1) is x − 1/2: mean ∓1/2, variance 1 on either side
    a = full_batch.sample((), 20_000, np.random.default_rng(1))
    b = full_batch.sample((CANARY,), 20_000, np.random.default_rng(2))
    assert a.mean() == pytest.approx(-0.5, abs=0.03) and b.mean() == pytest.approx(0.5, abs=0.03)
    assert a.var() == pytest.approx(1.0, rel=0.05)
    again = full_batch.sample((), 20_000, np.random.default_rng(1))
    np.testing.assert_array_equal(a, again)


def test_final_release_is_the_sum_of_the_steps():
    m = JaxPrivacyDPSGD(q=1.0, sigma=1.0, steps=4, release="final")
    out = m.sample((CANARY,), 20_000, np.random.default_rng(4))
    assert out.mean() == pytest.approx(4.0, abs=0.06) and out.var() == pytest.approx(4.0, rel=0.05)


def test_poisson_inclusion_rate_and_matrix_factorisation_noise():
    m = JaxPrivacyDPSGD(q=0.5, sigma=1.0, steps=6, noise="matrix_factorization", bands=2)
    assert m.cycle_length == 2 and m.strategy_matrix is not None
    rng = np.random.default_rng(3)
    y0 = m.increments(m.iterates((), 20_000, rng))
    # jax-privacy's correlated noise is C⁻¹Z: whitened by the adapter's C it is i.i.d. N(0, σ²)
    w = y0 @ m.strategy_matrix.T
    np.testing.assert_allclose(np.cov(w.T), np.eye(6), atol=0.06)
    y1 = m.increments(m.iterates((CANARY,), 20_000, rng))
    w1 = y1 @ m.strategy_matrix.T
    # C·b: the canary, in one group of the two, is included w.p. q at each of its steps
    expected = m.strategy_matrix @ np.full(6, 0.5 * 0.5)
    np.testing.assert_allclose(w1.mean(axis=0), expected, atol=0.04)


def test_small_audit_certifies_most_of_the_claim(full_batch):
    r = audit_curve(full_batch, (), (CANARY,), claim=full_batch.privacy_claim, runs=400_000,
                    seed=0, executor="serial", arithmetic="real", deltas=[1e-5, 1e-3])
    assert r.verdict == "consistent"
    eps = dict(zip(r.deltas, r.epsilon_lower_bound, strict=True))
    assert 2.0 < eps[1e-3] <= full_batch.privacy_claim.epsilon_at(1e-3)


def test_fixed_batches_use_replace_one():
    m = JaxPrivacyDPSGD(batch_selection="fixed", sigma=1.0, steps=1, batch_size=1,
                        dataset_size=4)
    assert m.neighbour_relation == "substitution"
    assert m.default_pair() == ((COUNTER,), (CANARY,))
    assert m.q == 0.25 and m.exact_claim is None
    assert math.isfinite(m.accountant_epsilon)
    out = m.sample((COUNTER,), 2_000, np.random.default_rng(0))
    assert out.shape == (2_000,) and np.isfinite(out).all()


@pytest.mark.parametrize("kwargs, match", [
    (dict(steps=8, batch_selection="fixed", noise="matrix_factorization"),
     "cannot account matrix-factorisation noise"),
    (dict(steps=8, cycle_length=4, batch_selection="balls_in_bins",
          noise="matrix_factorization"), "cannot account matrix-factorisation noise"),
    (dict(q=0.5, steps=8, noise="matrix_factorization", bands=4, cycle_length=2),
     "cycle_length >= bands"),
    (dict(steps=1), "needs q"),
    (dict(q=1.5, steps=1), "q must be in"),
    (dict(q=0.5, steps=1, batch_selection="minibatch"), "batch_selection"),
    (dict(q=0.5, steps=1, noise="laplace"), "noise"),
    (dict(q=0.5, steps=1, model="resnet"), "model"),
    (dict(steps=2, q=0.5, batch_selection="balls_in_bins"), "no rate q"),
    (dict(q=0.5, steps=1, bands=2), "bands applies"),
])
def test_bad_configurations(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        JaxPrivacyDPSGD(**kwargs)


def test_accountant_refusal_names_the_configuration(monkeypatch):
    import jax_privacy.accounting as acc

    def refuse(self, num_updates, dp_params, allow_approximate_cache=False):
        raise ValueError("DpsgdTrainingAccountant requires sampling_method = POISSON")

    monkeypatch.setattr(acc.DpsgdTrainingAccountant, "compute_epsilon", refuse)
    m = JaxPrivacyDPSGD(q=0.25, sigma=1.0, steps=3)
    with pytest.raises(InvalidInputError, match=r"cannot account jax_privacy\.dpsgd\(poisson"):
        _ = m.accountant_epsilon


def test_an_accountant_too_large_to_build_is_refused():
    with pytest.raises(InvalidInputError, match="PLD accountant would build"):
        _ = JaxPrivacyDPSGD(q=0.5, sigma=0.01, steps=10).accountant_epsilon


def test_bad_dataset(full_batch):
    with pytest.raises(InvalidInputError, match="dataset of this pipeline"):
        full_batch.sample((COUNTER,), 10, np.random.default_rng(0))
    with pytest.raises(LtheoryError):
        full_batch.sample((), 10, 0)


def test_missing_library_names_the_extra(monkeypatch):
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name.startswith("jax_privacy"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    import sys
    for mod in [k for k in sys.modules if k.startswith("jax_privacy")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(InvalidInputError, match=r"ltheory\[jax\]"):
        _ = JaxPrivacyDPSGD(q=0.5, steps=2).accountant_epsilon


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", [
    dict(q=0.01, sigma=1.0, steps=100),
    dict(batch_selection="balls_in_bins", sigma=1.0, steps=4, cycle_length=4),
    dict(batch_selection="fixed", sigma=1.0, steps=2, batch_size=1, dataset_size=4),
    dict(q=0.5, sigma=1.0, steps=8, noise="matrix_factorization", bands=2),
])
def test_audits_are_consistent_with_the_accountant(kwargs):
    m = JaxPrivacyDPSGD(**kwargs)
    d0, d1 = m.default_pair()
    r = audit_curve(m, d0, d1, claim=m.privacy_claim, runs=200_000, seed=1, executor="serial",
                    arithmetic="real", deltas=[1e-5, 1e-3])
    assert r.verdict == "consistent"
    assert max(r.epsilon_lower_bound) > 0


def test_float32_noise_addition_leaks_the_canary(full_batch):
    # the finding of benchmarks/results/jax_privacy_dpsgd.md (floating point): y = fl(g + z) in
    # float32; with the canary (g = 1) y = fl(1 + z) is a multiple of 2^-24 on |y| < 1/2, without
    # it y = z lies on a finer grid there, so this event never happens with the canary
    rng = np.random.default_rng(7)
    y0 = full_batch.increments(full_batch.iterates((), 50_000, rng))[:, 0]
    y1 = full_batch.increments(full_batch.iterates((CANARY,), 50_000, rng))[:, 0]

    def event(y):
        return int(((np.abs(y) < 0.5) & (y * 2**24 != np.round(y * 2**24))).sum())

    assert event(y1) == 0 and event(y0) > 10_000
