"""The selection split widened for lean vector outputs and for outputs mixing few-valued and
continuous coordinates (``stages.widen_selection``, ``AuditConfig.lean_selection_fraction``,
``AuditConfig.mixed_selection_fraction``): fresh selection runs taken from the planned
certification runs, decided on the selection runs alone."""

from __future__ import annotations

import numpy as np
import pytest

from ltheory.errors import InvalidInputError
from ltheory.privacy import AuditConfig, audit, audit_search
from ltheory.privacy.auditing import stages
from ltheory.privacy.auditing.outputs import mixed_output
from ltheory.privacy.auditing.stages import WIDEN_MIN_RUNS, split_runs
from ltheory.privacy.mechanisms import NoisyHist
from ltheory.privacy.mechanisms.statdp import dpsniper_suite
from ltheory.privacy.stats import max_certifiable_epsilon

RUNS = 200_000
SVT1, _ = dpsniper_suite(0.1)["SVT1"]
A, B = (1.0,) * 10, (2.0,) * 10


def _audit(m=SVT1, a=A, b=B, **kw):
    kw.setdefault("claimed_epsilon", 0.1)
    return audit(m, a, b, runs=RUNS, seed=5, exact=False, arithmetic="real", **kw)


def _widened(r) -> bool:
    return any("selection split was widened" in n for n in r.notes)


@pytest.mark.parametrize("certify", ["binomial", "auto"])
def test_lean_vector_output_selects_on_the_wider_share(certify):
    r = _audit(certify=certify)
    per = RUNS // 2
    n_sel = int(round(0.3 * per))
    assert _widened(r)
    assert r.selection_runs == 2 * n_sel
    c = r.counts["certification"]
    assert c["n"] == per - n_sel
    if certify == "binomial":
        assert (c["n_d0"], c["n_d1"]) == (per - n_sel, per - n_sel)
        assert r.runs == RUNS
    else:                   # Poisson sizes redrawn around the smaller mean
        assert abs(c["n_d0"] - (per - n_sel)) < 6 * np.sqrt(per - n_sel)
        assert r.runs == r.selection_runs + r.certification_runs
    assert r.certification_runs == c["n_d0"] + c["n_d1"]


def test_off_keeps_the_planned_split():
    r = _audit(lean_selection_fraction=None)
    assert not _widened(r)
    assert r.selection_runs == 2 * split_runs(RUNS, 0.1)[0]


def test_never_narrows_and_follows_the_setting():
    assert not _widened(_audit(selection_fraction=0.5))
    assert _audit(selection_fraction=0.5).selection_runs == RUNS // 2
    r = _audit(lean_selection_fraction=0.2)
    assert r.selection_runs == 2 * int(round(0.2 * RUNS // 2))


def test_reproducible_and_the_new_runs_are_fresh():
    r1, r2 = _audit(), _audit()
    assert r1.epsilon_lower_bound == r2.epsilon_lower_bound and r1.counts == r2.counts
    # the widened audit's certification counts differ from the unwidened one's: its
    # certification runs are fewer, drawn from the same certification streams
    r0 = _audit(lean_selection_fraction=None)
    assert r0.counts["certification"]["n"] > r1.counts["certification"]["n"]


def test_other_outputs_are_not_widened():
    # a scalar output with few values keeps its thresholds and its split
    m, _ = dpsniper_suite(0.1)["TruncatedGeometric"]
    r = audit(m, (1,), (0,), claimed_epsilon=0.1, runs=RUNS, seed=1, exact=False)
    assert not _widened(r) and r.selection_runs == 2 * split_runs(RUNS, 0.1)[0]
    # a continuous vector output is not lean
    r = audit(NoisyHist(0.5), (1, 0, 0), (0, 0, 0), claimed_epsilon=0.1, runs=RUNS, seed=1,
              exact=False, arithmetic="real")
    assert not _widened(r) and r.selection_runs == 2 * split_runs(RUNS, 0.1)[0]
    # nor is a continuous scalar
    r = audit(NoisyHist(0.5), (1,), (0,), claimed_epsilon=0.5, runs=RUNS, seed=1, exact=False,
              arithmetic="real")
    assert not _widened(r)


def test_an_event_rare_on_one_side_keeps_the_planned_split():
    # SVT5 (DP-Sniper's suite) releases the noisy answers: its best cell is one no run on one
    # dataset reaches, certified by its rarity
    m, _ = dpsniper_suite(0.1)["SVT5"]
    r = audit(m, A, (0.0,) * 5 + (2.0,) * 5, claimed_epsilon=0.1, runs=RUNS, seed=1,
              exact=False, arithmetic="real")
    assert min(r.counts["selection"]["d0"], r.counts["selection"]["d1"]) < WIDEN_MIN_RUNS
    assert not _widened(r) and r.selection_runs == 2 * split_runs(RUNS, 0.1)[0]
    assert r.epsilon_lower_bound > 5


def test_not_widened_when_the_rest_could_not_certify_the_claim():
    # 90,000 certification runs per dataset can certify a claim between what 70,000 and
    # 90,000 can (a perfectly separating event, level alpha/4), 70,000 cannot: that claim keeps
    # the planned split, a small claim widens it
    runs = RUNS
    kw = dict(runs=runs, seed=1, exact=False, arithmetic="real", certify="binomial")
    assert _widened(audit(SVT1, A, B, claimed_epsilon=0.05, **kw))
    claim = 0.5 * (max_certifiable_epsilon(70_000, 0.05 / 4, 0.0)
                   + max_certifiable_epsilon(90_000, 0.05 / 4, 0.0))
    r = audit(SVT1, A, B, claimed_epsilon=claim, **kw)
    assert not _widened(r) and r.selection_runs == 2 * split_runs(runs, 0.1)[0]


def test_planned_search_counts_the_widening_runs():
    s = audit_search(SVT1, A, claimed_epsilon=0.1, total_runs=400_000, seed=3, exact=False,
                     arithmetic="real")
    r = s.report
    assert _widened(r)
    assert s.total_runs <= 400_000
    # the final audit's own selection runs (the widening's among them) count among its runs;
    # reused pilot runs, where there are any, do not
    fresh = r.runs - r.certification_runs
    assert 0 < fresh <= r.selection_runs and fresh % 2 == 0


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "0.3", True])
@pytest.mark.parametrize("name", ["lean_selection_fraction", "mixed_selection_fraction"])
def test_invalid_setting(bad, name):
    with pytest.raises(InvalidInputError, match=name):
        AuditConfig(**{name: bad})


SVT3, _ = dpsniper_suite(0.1)["SVT3"]
HALF = (0.0,) * 5 + (2.0,) * 5


def test_mixed_output_is_recognised():
    rng = np.random.default_rng(0)
    x = np.asarray(SVT3.sample(A, 2_000, rng))          # ⊤/⊥ codes, then released values
    assert mixed_output(x, x)
    assert not mixed_output(x[:, :10], x[:, :10])       # the codes alone
    assert not mixed_output(x[:, 10:] + rng.normal(size=(2_000, 10)),
                            x[:, 10:] + rng.normal(size=(2_000, 10)))   # continuous alone
    assert not mixed_output(x[:, 0], x[:, 0])            # a scalar


def test_mixed_output_selects_on_the_wider_share():
    kw = dict(claimed_epsilon=0.1, runs=RUNS, seed=1, exact=False, arithmetic="real",
              certify="binomial")
    r = audit(SVT3, A, HALF, **kw)
    per = RUNS // 2
    n_sel = int(round(0.3 * per))
    assert _widened(r) and any("mixed_selection_fraction=0.3" in n for n in r.notes)
    assert r.selection_runs == 2 * n_sel
    assert r.counts["certification"]["n"] == per - n_sel and r.runs == RUNS
    # off: the planned split; the lean setting does not govern it
    r0 = audit(SVT3, A, HALF, **kw, mixed_selection_fraction=None)
    assert not _widened(r0) and r0.selection_runs == 2 * split_runs(RUNS, 0.1)[0]
    r2 = audit(SVT3, A, HALF, **kw, lean_selection_fraction=None)
    assert r2.counts == r.counts


def test_mixed_output_widens_before_choosing(monkeypatch):
    from ltheory.privacy.auditing import core
    calls: list[int] = []
    real = core._select

    def counted(s0, *a, **kw):
        calls.append(len(s0))
        return real(s0, *a, **kw)

    monkeypatch.setattr(core, "_select", counted)
    r = audit(SVT3, A, HALF, claimed_epsilon=0.1, runs=RUNS, seed=1, exact=False,
              arithmetic="real")
    assert _widened(r) and calls == [int(round(0.3 * RUNS // 2))]


def test_mixed_output_above_the_cap_keeps_the_planned_split(monkeypatch):
    monkeypatch.setattr(stages, "WIDEN_MAX_SELECTION", split_runs(RUNS, 0.1)[0] - 1)
    r = audit(SVT3, A, HALF, claimed_epsilon=0.1, runs=RUNS, seed=1, exact=False,
              arithmetic="real")
    assert not _widened(r) and r.selection_runs == 2 * split_runs(RUNS, 0.1)[0]


def test_progress_ends_at_its_total():
    seen: list[tuple[int, int]] = []
    r = _audit(certify="binomial", progress=lambda done, total: seen.append((done, total)))
    assert _widened(r)
    assert seen and seen[-1][0] == seen[-1][1]
    assert all(d <= t for d, t in seen)
