"""Time budgets of audits (issue 40): a fake clock that advances per chunk of runs shows where
each entry point stops (chunk boundaries), what the partial report holds, that the bound is the
one certified on the runs counted, and that truncated audits stay sound."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from ltheory.errors import BudgetExceededError, InvalidInputError
from ltheory.privacy import audit, audit_curve
from ltheory.privacy.auditing import budget
from ltheory.privacy.auditing.budget import Deadline, check_time_budget
from ltheory.privacy.auditing.certify import certify_exact_event
from ltheory.privacy.auditing.projection import certified_bound
from ltheory.privacy.auditing.search import audit_search
from ltheory.privacy.mechanisms import RandomizedResponse


class FakeClock:
    """A clock that only moves when a chunk of runs is drawn."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class Ticking:
    """Two-sided geometric noise on the query value (exact ε = ``epsilon``); each call of
    ``sample`` (one chunk) advances the fake clock by ``step`` seconds, ``slow`` once the
    clock has passed ``after`` (a mechanism slower than the selection runs showed)."""

    neighbour_relation = "substitution"
    sensitivity = 1.0
    name = "ticking_geometric"
    audit_output_bytes = 8          # declared: no probe draws (they would move the clock)

    def __init__(self, clock: FakeClock, epsilon: float = 1.0, chunk: int = 1000,
                 step: float = 1.0, slow: float | None = None, after: float = math.inf):
        self.clock, self.epsilon, self.audit_chunk_runs = clock, epsilon, chunk
        self.step, self.slow, self.after = step, slow, after

    def sample(self, dataset, n, rng):
        self.clock.t += self.slow if self.slow is not None and self.clock.t >= self.after \
            else self.step
        p = 1 - math.exp(-self.epsilon)
        return float(dataset) + rng.geometric(p, n) - rng.geometric(p, n)


@pytest.fixture
def clock(monkeypatch):
    c = FakeClock()
    monkeypatch.setattr(budget, "clock", c)
    return c


def test_check_time_budget() -> None:
    assert check_time_budget(None) is None and check_time_budget(math.inf) is None
    assert check_time_budget(2) == 2.0
    for bad in (0, -1.0, math.nan, "5", True):
        with pytest.raises(InvalidInputError, match="seconds > 0"):
            check_time_budget(bad)


def test_no_budget_changes_nothing() -> None:
    m = RandomizedResponse(1.0)
    a = audit(m, 0, 1, claimed_epsilon=0.5, runs=100_000, seed=3)
    b = audit(m, 0, 1, claimed_epsilon=0.5, runs=100_000, seed=3, time_budget=math.inf)
    assert a.epsilon_lower_bound == b.epsilon_lower_bound and not a.partial and not b.partial


def test_audit_cut_during_certification_is_certified_on_runs_counted(clock) -> None:
    # selection: 1 s per chunk, stopped at 20% of the 10 s (one chunk per dataset); the
    # certification is planned at that rate (fit_split) but the chunks then take 2 s: cut.
    m = Ticking(clock, chunk=1000, step=1.0, slow=2.0, after=2.0)
    r = audit(m, 0, 1, claimed_epsilon=0.5, runs=40_000, seed=1, executor="serial",
              certify="binomial", exact=False, time_budget=10.0, arithmetic="real")
    assert r.partial and r.notes[0].startswith("budget reached")
    c = r.counts["certification"]
    assert r.selection_runs == 2000                       # one chunk per dataset
    assert c["n_d0"] % 1000 == 0 and c["n_d1"] % 1000 == 0   # chunk boundaries
    assert 0 < c["n_d0"] + c["n_d1"] < 2 * 18_000
    assert r.runs == r.selection_runs + r.certification_runs
    assert any("cut at the deadline" in n for n in r.notes)
    # the reported bound is the binomial bound on the counts of the runs counted
    ka, kb = (c["d0"], c["d1"]) if r.direction == 0 else (c["d1"], c["d0"])
    na, nb = (c["n_d0"], c["n_d1"]) if r.direction == 0 else (c["n_d1"], c["n_d0"])
    bound = certified_bound(ka, na, kb, nb, r.alpha / r.events_certified, 0.0, "binomial")
    assert r.epsilon_lower_bound == pytest.approx(max(float(bound), 0.0))
    json.dumps(r.to_json(), allow_nan=False)


def test_audit_fits_certification_to_time_left(clock) -> None:
    m = Ticking(clock, chunk=1000, step=1.0)
    r = audit(m, 0, 1, claimed_epsilon=0.5, runs=40_000, seed=2, executor="serial",
              exact=False, time_budget=10.0, arithmetic="real")
    assert r.partial
    assert any(n.startswith("time budget:") and "planned instead of" in n for n in r.notes)
    assert r.certification_runs < 36_000


def test_audit_budget_gone_before_selection_gives_trivial_report(clock) -> None:
    m = Ticking(clock, chunk=20, step=5.0)
    r = audit(m, 0, 1, claimed_epsilon=0.5, runs=40_000, seed=0, executor="serial",
              exact=False, time_budget=3.0)
    assert r.partial and r.epsilon_lower_bound == 0.0 and r.events_certified == 0
    assert r.verdict == "consistent" and r.certification_runs == 0
    assert r.selection_runs == 20 and "nothing was certified" in r.notes[1]   # d0 chunk 0
    json.dumps(r.to_json(), allow_nan=False)


def test_audit_curve_partial(clock) -> None:
    m = Ticking(clock, chunk=1000, step=1.0, slow=2.0, after=2.0)
    r = audit_curve(m, 0, 1, claim=0.5, runs=40_000, seed=1, executor="serial", exact=False,
                    time_budget=10.0, arithmetic="real")
    assert r.partial and r.notes[0].startswith("budget reached")
    assert r.selection_runs == 2000 and r.certification_runs % 1000 == 0
    assert r.runs == r.selection_runs + r.certification_runs
    json.dumps(r.to_json(), allow_nan=False)


def test_audit_search_partial(clock) -> None:
    m = Ticking(clock, chunk=2000, step=1.0)
    s = audit_search(m, 0, [(0, 1), (0, -1), (1, 0)], claimed_epsilon=0.5, seed=0,
                     runs=40_000, pilot_runs=4_000, executor="serial", exact=False,
                     time_budget=12.0, arithmetic="real", pilots="audit")
    assert s.partial and s.report.partial
    assert s.report.runs == s.report.selection_runs + s.report.certification_runs
    json.dumps(s.to_json(), allow_nan=False)


def test_two_different_time_budgets_refused() -> None:
    from ltheory.privacy.auditing.config import AuditConfig
    from ltheory.privacy.auditing.search import SearchConfig
    with pytest.raises(InvalidInputError, match="two time budgets"):
        audit_search(RandomizedResponse(1.0), 0, [(0, 1)], claimed_epsilon=0.5, seed=0,
                     runs=20_000, config=AuditConfig(time_budget=5.0),
                     search=SearchConfig(time_budget=3.0))


def test_certify_exact_event_stops_at_deadline(clock) -> None:
    dl = Deadline(1.0)
    clock.t = 2.0                                          # already past
    r = certify_exact_event(RandomizedResponse(1.0), 0, 1, claimed_epsilon=0.5,
                            claimed_delta=0.0, runs=10_000, seed=0, deadline=dl)
    assert r.partial and r.runs == 0 and r.epsilon_lower_bound == 0.0


def test_work_estimate_refuses_before_sampling() -> None:
    from ltheory.privacy.mechanisms import DPSGDCanary
    m = DPSGDCanary(q=0.01, sigma=1.0, steps=10**9)
    with pytest.raises(BudgetExceededError, match="would take at least"):
        audit(m, *m.default_pair(), claimed_epsilon=1.0, claimed_delta=1e-5, runs=100_000,
              seed=0, time_budget=5.0)


def test_memory_estimate_refuses_before_sampling(monkeypatch) -> None:
    from ltheory.privacy.mechanisms import DPSGDCanary
    monkeypatch.setattr(budget, "available_memory", lambda: 1 << 20)
    m = DPSGDCanary(q=0.5, sigma=1.0, steps=1000, output="iterates")
    with pytest.raises(BudgetExceededError, match="of memory available"):
        audit(m, *m.default_pair(), claimed_epsilon=1.0, claimed_delta=1e-5, runs=100_000,
              seed=0)


def _truncated_bounds(seeds: range, clock: FakeClock) -> list[float]:
    out = []
    for s in seeds:
        clock.t = 0.0
        m = Ticking(clock, epsilon=1.0, chunk=500, step=1.0, slow=2.0, after=2.0)
        r = audit(m, 0, 1, claimed_epsilon=0.5, runs=20_000, seed=s, executor="serial",
                  exact=False, time_budget=8.0, arithmetic="real")
        assert r.partial
        out.append(r.epsilon_lower_bound)
    return out


def test_truncated_audits_are_sound(clock) -> None:
    # exact ε = 1 (two-sided geometric); at α = 0.05 a bound above 1 should be rare:
    # P(Binomial(40, 0.05) >= 7) < 0.02
    bounds = _truncated_bounds(range(40), clock)
    assert sum(b > 1.0 + 1e-9 for b in bounds) <= 6
    assert np.mean(bounds) > 0.3          # and the truncated audits still certify something


@pytest.mark.slow
def test_truncated_audits_are_sound_many_seeds(clock) -> None:
    bounds = _truncated_bounds(range(400), clock)
    k = sum(b > 1.0 + 1e-9 for b in bounds)
    assert stats.binom.sf(k - 1, 400, 0.05) > 1e-3, k


def test_dpsgd_long_runs_same_law(monkeypatch) -> None:
    from ltheory.privacy.mechanisms import dpsgd
    short = dpsgd.DPSGDCanary(q=0.3, sigma=1.0, steps=50)
    a = short.sample(("canary",), 4000, np.random.default_rng(0))
    monkeypatch.setattr(dpsgd, "STEP_BLOCK", 16)     # 50 steps now drawn in blocks of 16
    b = short.sample(("canary",), 4000, np.random.default_rng(1))
    assert stats.ks_2samp(a, b).pvalue > 1e-3


def test_discrete_gaussian_huge_sensitivity() -> None:
    from ltheory.privacy.mechanisms import DiscreteGaussianMechanism
    m = DiscreteGaussianMechanism(sigma=1.0, sensitivity=10**9)
    assert len(m.output_distribution(0)) < 100
    assert m.exact_claim.delta_at(1.0) == pytest.approx(1.0)
    x = m.sample(10**9, 1000, np.random.default_rng(0))
    assert abs(float(np.mean(x)) - 1e9) < 1


@pytest.mark.parametrize("value", ["nan", "0", "-1"])
def test_cli_bad_budget_is_one_line_exit_2(value: str) -> None:
    from typer.testing import CliRunner

    from ltheory.cli import app
    r = CliRunner().invoke(app, ["audit", "laplace", "--claimed-epsilon", "1", "--runs",
                                 "100000", "--budget", value])
    assert r.exit_code == 2 and "--budget must be a number of seconds > 0" in r.output
    assert "Traceback" not in r.output


def test_cli_dpsgd_huge_steps_refused_within_budget() -> None:
    import time

    from typer.testing import CliRunner

    from ltheory.cli import app
    t0 = time.perf_counter()
    r = CliRunner().invoke(app, ["audit", "dpsgd_canary", "-p", "q=0.01", "-p", "sigma=1", "-p",
                                 "steps=1000000000", "--claimed-epsilon", "1", "--runs",
                                 "100000", "--budget", "5"])
    assert r.exit_code == 2 and "would take at least" in r.output
    assert time.perf_counter() - t0 < 5


def test_cli_partial_json_is_strict() -> None:
    from typer.testing import CliRunner

    from ltheory.cli import app
    r = CliRunner().invoke(app, ["audit", "laplace", "--claimed-epsilon", "1", "--runs",
                                 str(10**9), "--budget", "1.5", "--json", "--arithmetic", "real"])
    assert r.exit_code in (0, 1), r.output
    d = json.loads(r.output, parse_constant=lambda c: pytest.fail(f"non-strict JSON {c}"))
    assert d["partial"] is True and d["runs"] < 10**9


def test_undeclared_output_size_is_probed_before_sampling() -> None:
    """A mechanism that does not declare its output size is probed (16 runs per dataset, a
    generator of their own) and refused before the selection runs would fill the memory (was
    a chunk of 2^17 outputs of 1.5 MiB: a MemoryError or the machine's OOM killer)."""
    from ltheory.errors import BudgetExceededError

    class Wide:
        def __call__(self, d, rng):
            return rng.standard_normal(200_000) + d

        def sample(self, d, n, rng):
            return rng.standard_normal((n, 200_000)) + d

    with pytest.raises(BudgetExceededError, match="selection runs would hold"):
        audit(Wide(), 0, 1, claimed_epsilon=1.0, runs=2_000_000, seed=0)
