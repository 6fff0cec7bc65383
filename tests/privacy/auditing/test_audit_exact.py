"""Exact privacy from output distributions, and the check that a mechanism's
``output_distribution`` describes the outputs it samples."""

from __future__ import annotations

import numpy as np
import pytest

from ltheory.privacy import audit
from ltheory.privacy.auditing.exact import DistributionMismatchWarning, goodness_of_fit
from ltheory.privacy.mechanisms import RandomizedResponse


class _Lying(RandomizedResponse):
    """Samples randomized response, claims a fair coin: an exact ε of 0 beside a real leak."""

    name = "lying"

    def output_distribution(self, dataset):
        return {0: 0.5, 1: 0.5}


def test_goodness_of_fit_accepts_the_truth_and_rejects_a_lie() -> None:
    rng = np.random.default_rng(0)
    x = rng.choice(3, size=20_000, p=[0.5, 0.3, 0.2])
    assert goodness_of_fit(x, {0: 0.5, 1: 0.3, 2: 0.2}).p_value > 1e-3
    assert goodness_of_fit(x, {0: 0.4, 1: 0.4, 2: 0.2}).p_value < 1e-10
    out = goodness_of_fit(x, {0: 0.5, 1: 0.5})
    assert out.outside > 0 and not out.agrees(1e-6)
    rows = np.array([[0, 1], [1, 0]] * 500, dtype=float)      # vector outputs compare as tuples
    assert goodness_of_fit(rows, {(0, 1): 0.5, (1, 0): 0.5}).agrees(1e-6)


def test_a_lying_output_distribution_is_reported() -> None:
    with pytest.warns(DistributionMismatchWarning, match="disagrees"):
        r = audit(_Lying(1.0), 0, 1, claimed_epsilon=1.0, runs=100_000, seed=0)
    assert r.exact_epsilon == 0.0 and r.epsilon_lower_bound > 0.9
    assert any("does not describe the sampled mechanism" in n for n in r.notes)
    assert any("exceeds the exact epsilon" in n for n in r.notes)


def test_an_honest_distribution_raises_no_warning(recwarn) -> None:
    r = audit(RandomizedResponse(1.0), 0, 1, claimed_epsilon=1.0, runs=100_000, seed=0)
    assert not [w for w in recwarn if issubclass(w.category, DistributionMismatchWarning)]
    assert not any("disagrees" in n for n in r.notes)
