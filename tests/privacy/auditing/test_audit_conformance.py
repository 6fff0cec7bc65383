"""``ltheory.testing.check_mechanism``: every mechanism, learner and adapter of the package keeps
the auditor's contract, and the check catches the ways an object can break it."""

from __future__ import annotations

import doctest
import importlib.util

import numpy as np
import pytest

from ltheory.cli.audit import MECHANISMS
from ltheory.privacy.learners import audit_cases
from ltheory.privacy.mechanisms import Mechanism, RandomizedResponse, dpsniper_suite
from ltheory.testing import ConformanceError, check_mechanism
from ltheory.testing import conformance as conformance_mod


def test_doctests() -> None:
    assert doctest.testmod(conformance_mod).failed == 0


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_every_cli_mechanism_conforms(name: str) -> None:
    cls, kw = MECHANISMS[name]
    # mechanisms parametrised by something else than epsilon get their required parameters
    given = {"discrete_gaussian": {"sigma": 1.0},
             "dpsgd_canary": {"q": 0.5, "sigma": 1.0, "steps": 3}}.get(name)
    m = cls(**kw, **given) if given else (cls(**kw) if "epsilon" in kw
                                          else cls(epsilon=1.0, **kw))
    assert check_mechanism(m, runs=2_000).passed


@pytest.mark.parametrize("name", list(dpsniper_suite()))
def test_every_suite_mechanism_conforms(name: str) -> None:
    m, base = dpsniper_suite()[name]
    rep = check_mechanism(m, runs=2_000)
    assert rep.passed and rep.checks["neighbours"] == "ok"


@pytest.mark.parametrize("case", audit_cases(), ids=lambda c: c.name)
def test_every_learner_case_conforms(case) -> None:
    learner = case.make()
    rep = check_mechanism(learner, (case.d0, case.d1), runs=300)
    assert rep.passed
    if case.broken is not None:       # the broken variant keeps the contract too: only its
        b0, b1 = case.broken_pair()   # privacy is broken
        assert check_mechanism(case.broken(), (b0, b1), runs=300).passed


@pytest.mark.skipif(importlib.util.find_spec("diffprivlib") is None
                    or importlib.util.find_spec("opendp") is None,
                    reason="diffprivlib/opendp not installed (extra 'thirdparty')")
def test_every_adapter_conforms() -> None:
    from ltheory.privacy.adapters import (
        DiffprivlibExponential,
        DiffprivlibGaussian,
        DiffprivlibGeometric,
        DiffprivlibLaplace,
        DiffprivlibSnapping,
        OpenDPGaussian,
        OpenDPGeometric,
        OpenDPLaplace,
        OpenDPNoisyMax,
        OpenDPRandomizedResponse,
    )
    scalar = [DiffprivlibLaplace(1.0), DiffprivlibGeometric(1.0), DiffprivlibSnapping(1.0),
              DiffprivlibGaussian(0.5, 1e-5), OpenDPLaplace(1.0), OpenDPGeometric(1.0),
              OpenDPGaussian(4.0, 1e-5)]
    for m in scalar:
        assert check_mechanism(m, (0, 1), runs=500).passed, m.name
    assert check_mechanism(OpenDPRandomizedResponse(0.75), (0, 1), runs=500).passed
    assert check_mechanism(DiffprivlibExponential(1.0), ((1.0, 0.0, 0.0), (0.0, 1.0, 1.0)),
                           runs=500).passed
    assert check_mechanism(OpenDPNoisyMax(2.0), ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
                           runs=500).passed


# --------------------------------------------------------------------------- what it catches
class _Lying(RandomizedResponse):
    """Samples one coin, reports another's distribution (its exact ε would be a lie)."""

    name = "lying"

    def output_distribution(self, dataset):
        return {0: 0.5, 1: 0.5}


class _Unseeded(Mechanism):
    name = "unseeded"
    epsilon = 1.0

    def sample(self, dataset, n, rng):
        return np.random.default_rng().random(n)      # ignores the rng it is given


class _Ragged(Mechanism):
    name = "ragged"
    epsilon = 1.0

    def sample(self, dataset, n, rng):
        return [np.zeros(1 + i % 2) for i in range(n)]


class _BadClaim(RandomizedResponse):
    name = "bad_claim"
    claim = (1.0, 1.5)


@pytest.mark.parametrize("obj, failed", [
    (_Lying(1.0), "output_distribution(d0)"),
    (_Unseeded(), "reproducible"),
    (_Ragged(), "outputs"),
    (_BadClaim(1.0), "claim"),
])
def test_each_breach_is_named(obj, failed: str) -> None:
    rep = check_mechanism(obj, raise_on_failure=False)      # at obj.default_pair()
    assert not rep.passed and failed in rep.failures
    with pytest.raises(ConformanceError, match=failed.split("(")[0]):
        check_mechanism(obj)


def test_not_a_mechanism_and_not_neighbours() -> None:
    rep = check_mechanism(42, raise_on_failure=False)
    assert rep.failures == {"target": rep.checks["target"]}
    assert "cannot audit a int" in rep.checks["target"]
    rep = check_mechanism(RandomizedResponse(1.0), (0, 0), raise_on_failure=False)
    assert "neighbours" in rep.failures
    rep = check_mechanism(lambda d, rng: 0, raise_on_failure=False)
    assert "default_pair" in rep.failures["datasets"]
