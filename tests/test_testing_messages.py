"""What a new user meets in ``ltheory.testing``: failure messages, budgets, searches (issue 32)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.outputs import MechanismError
from ltheory.privacy.mechanisms import LaplaceMechanism, RandomizedResponse, SparseVector
from ltheory.testing import (
    BudgetWarning,
    PrivacyViolation,
    assert_private,
    assert_private_search,
    runs_to_detect,
)

pytest_plugins = ["pytester"]
PLUGIN = ("-p", "ltheory.testing.pytest_plugin",
          "-W", "ignore::pytest.PytestAssertRewriteWarning")
D0, D1 = ((0, 0),), ((0, 1),)


def leaky_count(d, rng):
    """d + Bernoulli(0.3): the output 0 never occurs on d = 1 (ε unbounded)."""
    return int(d + (rng.random() < 0.3))


def failing_mechanism(d, rng):
    return 1 / 0 if d == 1 else 0.0


# ------------------------------------------------------------------ the certified bound
@pytest.mark.parametrize("seed", range(4))
def test_message_gives_the_certified_bound_not_the_claim(seed: int) -> None:
    with pytest.raises(PrivacyViolation) as info:
        assert_private(RandomizedResponse(1.0), D0, D1, epsilon=0.5, seed=seed)
    r = info.value.report
    # above the claim (the bound at the crossing is the claim itself), below the exact ε = 1
    assert 0.5 < r.epsilon_lower_bound <= 1.0
    assert f"certified ε > {r.epsilon_lower_bound:.4g}" in str(info.value)


@pytest.mark.filterwarnings("ignore::ltheory.testing.budget.BudgetWarning")
def test_the_bound_read_at_the_batch_end_stays_sound() -> None:
    """The bound is the larger of the bounds at the crossing and at the end of the batch; both
    hold at once with probability ≥ 1 − false_alarm.  At false_alarm 0.2 and a claim just under
    the true ε = 1, a bound above 1 must happen in at most 20% of seeds (measured: 11/300)."""
    over = 0
    seeds = range(150)
    for seed in seeds:
        with pytest.raises(PrivacyViolation) as info:
            assert_private(RandomizedResponse(1.0), D0, D1, epsilon=0.9, false_alarm=0.2,
                           max_runs=20_000, seed=seed)
        over += info.value.report.epsilon_lower_bound > 1.0
    assert over <= 0.2 * len(seeds)


def test_bound_tells_a_large_violation_from_a_small_one() -> None:
    bounds = []
    for eps_true in (0.6, 2.0):
        with pytest.raises(PrivacyViolation) as info:
            assert_private(RandomizedResponse(eps_true), D0, D1, epsilon=0.5, max_runs=10**6)
        bounds.append(info.value.report.epsilon_lower_bound)
    assert bounds[0] <= 0.6 < 1.0 < bounds[1] <= 2.0


def test_event_never_seen_on_one_side_reads_unbounded() -> None:
    with pytest.raises(PrivacyViolation) as info:
        assert_private(leaky_count, 0, 1, epsilon=1.0)
    r = info.value.report
    assert r.observed_epsilon == math.inf and r.epsilon_lower_bound > 2.0
    msg = str(info.value)
    assert "observed ratio: unbounded (E never occurred on d1)" in msg
    # counts named by dataset, and consistent with the event never occurring on d1
    assert set(r.counts) == {"d0", "d1", "n"} and r.counts["d1"] == 0 < r.counts["d0"]
    assert f"M(d0) in E {r.counts['d0']:,} times, M(d1) in E 0 times" in msg
    assert r.mechanism == "leaky_count"                  # a function is named, not "function"
    assert r.to_json()["observed_epsilon"] == "inf"


def test_counts_name_their_datasets_in_both_directions() -> None:
    with pytest.raises(PrivacyViolation) as info:
        assert_private(RandomizedResponse(1.0), D0, D1, epsilon=0.5, seed=1)
    r = info.value.report
    a = "d0" if r.direction.startswith("P[M(d0)") else "d1"
    b = "d1" if a == "d0" else "d0"
    assert r.counts[a] > r.counts[b] > 0 and r.counts["n"] >= r.counts[a]
    assert r.observed_epsilon == pytest.approx(math.log(r.counts[a] / r.counts[b]))


# ------------------------------------------------------------------ errors in user code
def test_an_error_in_the_mechanism_keeps_the_users_frame() -> None:
    with pytest.raises(MechanismError, match="ZeroDivisionError") as info:
        assert_private(failing_mechanism, 0, 1, epsilon=1.0)
    cause = info.value.__cause__
    assert isinstance(cause, ZeroDivisionError)
    frames = []
    tb = cause.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    assert frames[-1] == "failing_mechanism"


FAILING = '''
from ltheory.privacy.mechanisms import RandomizedResponse


def test_violation(assert_private):
    assert_private(RandomizedResponse(1.0), ((0, 0),), ((0, 1),), epsilon=0.5)


def broken(d, rng):
    return undefined_name


def test_broken(assert_private):
    assert_private(broken, 0, 1, epsilon=1.0)
'''


def test_pytest_shows_the_message_and_the_users_lines(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=FAILING)
    result = pytester.runpytest(*PLUGIN, "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    # no ltheory source above the message (was ~45 lines of assertions.py / executors.py)
    assert "def assert_private(" not in out and "def draw(" not in out
    assert "run_tests(" not in out and "__tracebackhide__" not in out
    assert ">       assert_private(RandomizedResponse(1.0)" in out     # the test's own line
    assert "return undefined_name" in out and "NameError" in out     # the user's failing line
    failure = out[out.index("_ test_violation _"):out.index("_ test_broken _")]
    assert len(failure.splitlines()) <= 25, failure


# ------------------------------------------------------------------ budgets
def test_budget_too_small_to_catch_twice_the_claim_warns() -> None:
    with pytest.warns(BudgetWarning, match="use at least 1,494 runs"):
        try:
            assert_private(LaplaceMechanism(epsilon=2.0), 0, 1, epsilon=1.0,
                           arithmetic="real", max_runs=1000)
        except PrivacyViolation:
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_private(LaplaceMechanism(epsilon=1.0), 0, 1, epsilon=1.0,
                       arithmetic="real", max_runs=20_000)


def test_the_warning_threshold_detects_twice_the_claim() -> None:
    need = runs_to_detect(1.0)
    assert need == 1494 and runs_to_detect(0.5) > need and runs_to_detect(0.1) > 10 * need
    assert runs_to_detect(1.0, false_alarm=1e-9) > need
    caught = 0
    for seed in range(8):
        try:
            assert_private(LaplaceMechanism(epsilon=2.0), 0, 1, epsilon=1.0,
                           arithmetic="real", max_runs=need,
                           seed=seed)
        except PrivacyViolation:
            caught += 1
    assert caught == 8


def test_float_budgets_like_1e5_are_accepted() -> None:
    r = assert_private(RandomizedResponse(1.0), D0, D1, epsilon=1.0, max_runs=1e4)
    assert r.max_runs == 10_000
    with pytest.raises(InvalidInputError, match="max_runs must be an integer"):
        assert_private(RandomizedResponse(1.0), D0, D1, epsilon=1.0, max_runs=1e4 + 0.5)


class Unseeded:
    """A mechanism that ignores its rng, as OpenDP's adapters do."""

    reproducible = False
    name = "unseeded"

    def __call__(self, d, rng):
        return d + float(np.random.default_rng().laplace())


def test_unreproducible_mechanisms_are_said_so() -> None:
    r = assert_private(Unseeded(), 0, 1, epsilon=1.0, arithmetic="real", max_runs=4000)
    assert any("reproducible = False" in n for n in r.notes)
    r = assert_private(LaplaceMechanism(1.0), 0, 1, epsilon=1.0, arithmetic="real", max_runs=4000)
    assert not any("reproducible" in n for n in r.notes)


UNSEEDED = '''
import numpy as np


class Unseeded:
    reproducible = False
    name = "unseeded"

    def __call__(self, d, rng):
        return d + float(np.random.default_rng().laplace())


def test_unseeded(assert_private):
    assert_private(Unseeded(), 0, 1, epsilon=1.0, arithmetic="real", max_runs=4000)
'''


def test_plugin_section_says_a_seed_cannot_replay_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_unseeded=UNSEEDED)
    result = pytester.runpytest(*PLUGIN, "-p", "no:cacheprovider", "-rP")
    result.assert_outcomes(passed=1)
    assert "note: the mechanism draws from its own randomness" in result.stdout.str()


def test_opendp_reports_say_they_are_not_reproducible() -> None:
    pytest.importorskip("opendp", reason="opendp not installed (extra 'opendp')")
    from ltheory.privacy.adapters import OpenDPLaplace

    r = assert_private(OpenDPLaplace(scale=1.0, integer=True), 0, 1, epsilon=1.0,
                       max_runs=4000)
    assert any("reproducible = False" in n for n in r.notes)


# ------------------------------------------------------------------ searches
def test_search_around_a_single_count() -> None:
    rep = assert_private_search(LaplaceMechanism(1.0), 5, epsilon=1.0,
                                arithmetic="real", max_runs=20_000)
    assert rep.pairs_tried == 2 and {(p.d0, p.d1) for p in rep.pairs} == {(5, 6.0), (5, 4.0)}
    with pytest.raises(PrivacyViolation):
        assert_private_search(LaplaceMechanism(2.0), 5, epsilon=1.0,
                              arithmetic="real", max_runs=20_000)


def test_a_list_of_pairs_as_datasets() -> None:
    rep = assert_private_search(LaplaceMechanism(1.0), [(0, 1), (5, 6), ("big", 99, 100)],
                                epsilon=1.0, arithmetic="real", max_runs=10_000)
    assert rep.pairs_tried == 3 and [p.d0 for p in rep.pairs] == [0, 5, 99]
    labelled = [(((0, 0), (1, 1)), ((0, 1), (1, 1))), (((0, 0), (1, 1)), ((0, 0), (1, 0)))]
    rep = assert_private_search(RandomizedResponse(1.0), labelled, epsilon=1.0, max_runs=10_000)
    assert rep.pairs_tried == 2
    with pytest.raises(InvalidInputError, match=r"datasets holds pair 0 = \(0, 3\), which is not"):
        assert_private_search(LaplaceMechanism(1.0), [(0, 3)], epsilon=1.0)
    with pytest.raises(InvalidInputError, match="list of pairs; neighbours='flip'"):
        assert_private_search(LaplaceMechanism(1.0), [(0, 1), (5, 6)], epsilon=1.0,
                              neighbours="flip")


def test_no_datasets_is_a_clear_error() -> None:
    with pytest.raises(InvalidInputError, match="needs datasets: a hypothesis strategy"):
        assert_private_search(LaplaceMechanism(1.0), epsilon=1.0)
    with pytest.raises(InvalidInputError, match="needs the claimed epsilon"):
        assert_private_search(LaplaceMechanism(1.0), 0)
    with pytest.raises(InvalidInputError, match="not a dataset neighbours='auto' can search"):
        assert_private_search(LaplaceMechanism(1.0), "abc", epsilon=1.0)
    # the pairs given as neighbours= need no dataset
    rep = assert_private_search(LaplaceMechanism(1.0), neighbours=[(0, 1)], epsilon=1.0,
                                arithmetic="real", max_runs=10_000)
    assert rep.pairs_tried == 1


def test_neighbours_messages_fit_the_dataset() -> None:
    with pytest.raises(InvalidInputError) as info:
        assert_private_search(RandomizedResponse(1.0), ((0, 0), (1, 1)), epsilon=1.0,
                              neighbours="patterns")
    msg = str(info.value)
    accepted = msg.split("accepted: ")[1].split(";")[0]
    assert "patterns" not in accepted and "flip" in accepted
    assert "neighbour_relation = 'query_answers'" in msg
    svt = SparseVector(1.0, variant=1)
    with pytest.raises(InvalidInputError, match="accepted: auto, patterns, extended, sample"):
        assert_private_search(svt, (0.0,) * 4, epsilon=1.0, neighbours="flip")
    with pytest.raises(InvalidInputError, match="single count.*accepted: auto, substitution"):
        assert_private_search(LaplaceMechanism(1.0), 3, epsilon=1.0, neighbours="patterns")
    # "extended" is accepted for query answers
    rep = assert_private_search(svt, (0.0,) * 4, epsilon=1.0, neighbours="extended",
                                max_pairs=2, max_runs=10_000)
    assert rep.pairs_tried == 2


# ------------------------------------------------------------------ floating point (issue 38)
def test_naive_float_laplace_is_a_floating_point_violation_by_default() -> None:
    """The textbook d + Lap(1) is not DP in floating point (Mironov 2012): assert_private
    finds it without being asked, names it and the fix; arithmetic="real" tests the
    real-arithmetic mechanism, which holds its claim."""
    with pytest.raises(PrivacyViolation) as info:
        assert_private(LaplaceMechanism(epsilon=1.0), 0, 1, epsilon=1.0, max_runs=20_000)
    msg = str(info.value)
    assert info.value.report.floating_point
    assert "FLOATING-POINT VIOLATION" in msg and "output's bits" in msg
    assert "snap" in msg and "arithmetic='real'" in msg
    rep = assert_private(LaplaceMechanism(epsilon=1.0), 0, 1, epsilon=1.0, max_runs=20_000,
                         arithmetic="real")
    assert rep.passed and not rep.floating_point
    with pytest.raises(InvalidInputError, match="arithmetic must be"):
        assert_private(LaplaceMechanism(epsilon=1.0), 0, 1, epsilon=1.0, arithmetic="double")


def test_exact_samplers_have_no_bit_family_and_pass() -> None:
    """Integer outputs (the geometric mechanism) get no floating-point events: the same
    verdict with either arithmetic."""
    from ltheory.privacy.mechanisms import GeometricMechanism
    for ar in ("float", "real"):
        rep = assert_private(GeometricMechanism(1.0), 0, 1, epsilon=1.0, max_runs=20_000,
                             arithmetic=ar)
        assert rep.passed and not rep.floating_point
