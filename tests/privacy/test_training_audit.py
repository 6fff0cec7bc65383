"""One real DP-SGD training run audited in one run (issue 39, part 3): jax-privacy's pipeline on
scikit-learn's digits with input- and gradient-space canaries — a small, fast version of the
benchmark (``benchmarks/bench_training_one_run.py``)."""

from __future__ import annotations

import json

import pytest

from ltheory.errors import InvalidInputError

pytest.importorskip("jax_privacy", reason="jax-privacy is not installed: pip install "
                    "'ltheory[jax]'")
pytest.importorskip("sklearn", reason="scikit-learn is not installed: pip install "
                    "'ltheory[learners]'")

from ltheory.privacy.adapters import TrainingAuditReport, audit_digits_training  # noqa: E402
from ltheory.privacy.auditing.scores import inclusion_mask  # noqa: E402

SMALL = dict(input_canaries=150, gradient_canaries=150, steps=40, hidden=16, sigma=1.0,
             q=0.1)


@pytest.fixture(scope="module")
def small() -> TrainingAuditReport:
    return audit_digits_training(**SMALL, seed=3)


def test_a_real_run_learns_and_is_audited_below_its_accountant(small):
    r = small
    # the model is a real classifier of the digits, not a stand-in
    assert r.test_accuracy > 0.6
    assert r.examples["digits_train"] == 1438 and r.examples["digits_test"] == 359
    assert r.examples["training_set"] == (1438 + r.examples["input_included"]
                                          + r.examples["gradient_included"])
    # each kind drawn from its own inclusion seed: the masks the audit used are re-creatable
    assert r.examples["input_included"] == int(inclusion_mask(150, 3).sum())
    assert r.examples["gradient_included"] == int(inclusion_mask(150, 4).sum())
    assert set(r.audits) == {"input", "gradient"}
    for a in r.audits.values():
        assert a["setting"] == "one-run" and a["alpha"] == pytest.approx(0.025)
        assert a["counts"]["canaries"] == 150
    assert r.epsilon_lower_bound == max(a["epsilon_lower_bound"] for a in r.audits.values())
    # jax-privacy's accountant: q = 0.1, sigma = 1, 40 steps
    assert 1.0 < r.accountant_epsilon < 5.0
    assert 0.0 <= r.epsilon_lower_bound < r.accountant_epsilon
    # the limits it is measured against bound it from above
    assert r.limits["gradient_perfect_guesses"] >= r.audits["gradient"]["epsilon_lower_bound"]
    assert r.limits["input_perfect_guesses"] >= r.audits["input"]["epsilon_lower_bound"]
    assert 0 < r.limits["gradient_ideal"] <= r.limits["gradient_perfect_guesses"]
    assert not r.notes
    json.loads(r.dumps())
    assert "one-run lower bound" in r.summary()


def test_the_run_is_a_function_of_its_seeds(small):
    again = audit_digits_training(**SMALL, seed=3)
    assert again.epsilon_lower_bound == small.epsilon_lower_bound
    assert again.test_accuracy == small.test_accuracy
    assert again.audits["input"]["counts"] == small.audits["input"]["counts"]


def test_weak_noise_is_caught_and_centring_is_what_the_white_box_gains():
    # sigma = 0.3: each gradient canary's inclusion shows through the noise, but the digits'
    # gradients on the canaries' coordinates hide it unless the auditor centres on their share
    kw = dict(input_canaries=0, gradient_canaries=200, steps=20, hidden=64, sigma=0.3, q=0.2,
              seed=1)
    centred = audit_digits_training(**kw)
    raw = audit_digits_training(**kw, centred=False)
    assert set(centred.audits) == {"gradient"}
    assert centred.audits["gradient"]["alpha"] == pytest.approx(0.05)
    # the same training (same seeds): only the statistic differs
    assert centred.test_accuracy == raw.test_accuracy
    assert centred.config["centred"] and not raw.config["centred"]
    assert raw.epsilon_lower_bound == pytest.approx(centred.limits["gradient_uncentred"])
    assert "gradient_uncentred" not in raw.limits
    # 2.29 of the exact Dirac canary's 2.87 here (perfect guesses: 3.23); raw increments 0.87
    assert centred.epsilon_lower_bound >= 0.7 * centred.limits["gradient_ideal"]
    assert raw.epsilon_lower_bound <= centred.epsilon_lower_bound - 0.5
    assert centred.epsilon_lower_bound < centred.accountant_epsilon


@pytest.mark.parametrize("kw, match", [
    (dict(input_canaries=5, gradient_canaries=100), "fewer than 10"),
    (dict(input_canaries=0, gradient_canaries=0), "10 or more"),
    (dict(gradient_canaries=10**6, hidden=4), "gradient_canaries"),
    (dict(delta=0.0), "not pure DP"),
    (dict(delta=1.5), "delta"),
    (dict(q=1.5), "q must be"),
    (dict(sigma=0), "sigma must be"),
    (dict(steps=0), "steps"),
    (dict(analysis="gdp"), "analysis"),
    (dict(alpha=0), "alpha"),
    (dict(seed="x"), "seed"),
])
def test_bad_input_is_one_clear_error(kw, match):
    with pytest.raises(InvalidInputError, match=match):
        audit_digits_training(**{**dict(input_canaries=20, gradient_canaries=20, steps=2), **kw})
