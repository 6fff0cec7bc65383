"""``audit(events="auto")``: one or two certified events, decided on the selection split
(``events.events_to_certify``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ltheory.errors import InvalidInputError
from ltheory.privacy import audit
from ltheory.privacy.auditing.core import min_runs
from ltheory.privacy.auditing.deeper import SHARES
from ltheory.privacy.auditing.events import (
    REFINE_FAMILIES,
    Candidate,
    Score,
    ThresholdEvent,
    events_to_certify,
    extreme_takes_second,
    own_column,
)
from ltheory.privacy.mechanisms import LaplaceMechanism, RandomizedResponse

N_CERT = 7_899_875


def _cand(t: float, projected: float, counts: tuple[int, int], n: int = 438_882) -> Candidate:
    return Candidate(ThresholdEvent(Score(), t, False), 1, projected, counts, n, "poisson")


def test_a_rare_first_event_gets_a_second() -> None:
    """The Laplace row of the suite on seed 1: 'output ≤ −76.4' won the selection split on 70
    vs 140 runs (worth 0.054), ahead of a frequent event worth 0.098."""
    rare = _cand(-76.4, 0.2127, (70, 140))
    frequent = _cand(-2.7, 0.0934, (156_260, 173_179))
    chosen, why = events_to_certify([rare, frequent], N_CERT, 0.05, 0.0)
    assert len(chosen) == 2 and "2 certified" in why


def test_a_clear_winner_is_certified_alone() -> None:
    strong = _cand(-2.7, 0.0934, (156_260, 173_179))
    weak = _cand(5.0, 0.02, (60_000, 61_000))
    chosen, why = events_to_certify([strong, weak], N_CERT, 0.05, 0.0)
    assert chosen == [strong] and "1 certified" in why
    # falsifiable: the same pair with the runner-up as good as the winner takes both
    close = _cand(3.0, 0.0930, (150_000, 166_000))
    assert len(events_to_certify([strong, close], N_CERT, 0.05, 0.0)[0]) == 2


def test_a_runner_up_the_screen_did_not_pass_is_not_certified() -> None:
    """LaplaceParallel at 2·10^6, handed seed 2: the count (credible, projected 0.019) and one
    coordinate's tail cut, the largest of ~80,000 positions (not credible, projected 0.116):
    weighed by its projection, the runner-up's expected excess was 0.097 against a Bonferroni
    cost of 0.002, so both were certified.  A credible runner-up of the same counts still is."""
    count = _cand(6.0, 0.0190, (6043, 5512))
    tail = dataclasses.replace(_cand(626.9, 0.1156, (982, 1195)), credible=False)
    chosen, why = events_to_certify([count, tail], N_CERT, 0.05, 0.0)
    assert chosen == [count] and "did not pass the screen" in why
    assert len(events_to_certify([count, dataclasses.replace(tail, credible=True)], N_CERT,
                                 0.05, 0.0)[0]) == 2
    # nothing credible: the ranking of the unscreened candidates decides, as before
    loose = dataclasses.replace(count, credible=False)
    assert len(events_to_certify([loose, tail], N_CERT, 0.05, 0.0)[0]) == 2


def _released(col: int, t: float, projected: float, counts: tuple[int, int],
              tail: bool = False) -> Candidate:
    """A cut of coordinate ``col``'s released values (its atom 0 excluded)."""
    return Candidate(ThresholdEvent(Score(col=col, atoms=(0.0,)), t, False), 1, projected,
                     counts, 3_000_000, "poisson", tail=tail)


def test_a_tail_placed_first_event_is_certified_beside_another_score() -> None:
    """SVT3 at 2·10^7, handed seed 2024: the tail model placed query 6's released value cut
    at 6 vs 18 selection runs, projected 0.56 (the tail's ratio is 0.35, the pair's
    whole-budget ceiling 0.31); weighed by that projection, the other coordinate's cut
    (0.22) was not worth its Bonferroni step, and the model's cut alone certifies little."""
    placed = _released(16, -4.817, 0.5620, (6, 18), tail=True)
    other = _released(18, 6.215, 0.2215, (152, 288))
    assert len(events_to_certify([dataclasses.replace(placed, tail=False), other], N_CERT,
                                 0.05, 0.0)[0]) == 1      # the weighing alone: one event
    chosen, why = events_to_certify([placed, other], N_CERT, 0.05, 0.0)
    assert chosen == [placed, other] and "tail model" in why
    # an unscreened runner-up is no insurance: one event, as for any credible first event
    loose = dataclasses.replace(other, credible=False)
    assert events_to_certify([placed, loose], N_CERT, 0.05, 0.0)[0] == [placed]
    # a runner-up of the same coordinate is the same bet: the weighing decides as before
    same = _released(16, -0.42, 0.4141, (33, 68))
    assert "tail model" not in events_to_certify([placed, same], N_CERT, 0.05, 0.0)[1]
    # a scalar output's cuts have no other score: the weighing decides
    scalar = dataclasses.replace(_cand(-4.8, 0.56, (6, 18)), tail=True)
    assert "tail model" not in events_to_certify([scalar, _cand(6.2, 0.22, (152, 288))],
                                                 N_CERT, 0.05, 0.0)[1]


def test_an_isolated_tail_of_the_modelled_coordinate_does_not_take_the_second_place() -> None:
    """The same audit: the isolated tail ≤ −0.42 of query 6's released value (33 vs 68
    selection runs) beat the model's cut by raw frequencies and displaced the other
    coordinate's event; it is the same bet on the same runs."""
    placed = _released(16, -4.817, 0.5620, (6, 18), tail=True)
    iso = dataclasses.replace(_released(16, -0.42, 0.4141, (33, 68)), extreme=True)
    assert not extreme_takes_second(placed, iso, N_CERT, 0.05, 0.0)
    # the same extreme beside an unmodelled cut, or one of another coordinate, still takes it
    assert extreme_takes_second(dataclasses.replace(placed, tail=False), iso, N_CERT, 0.05,
                                0.0)
    assert extreme_takes_second(placed, dataclasses.replace(iso, event=ThresholdEvent(
        Score(col=17), -0.42, False)), N_CERT, 0.05, 0.0)
    # and one whose raw projection does not beat the first event's does not
    weak = dataclasses.replace(iso, projected=-1.0, event=ThresholdEvent(Score(col=17), 0.0,
                                                                          False))
    assert not extreme_takes_second(placed, weak, N_CERT, 0.05, 0.0)


def test_own_column_is_the_cut_coordinate_or_none() -> None:
    assert own_column(_released(7, 1.0, 0.1, (10, 20))) == 7
    assert own_column(Candidate(ThresholdEvent(Score(col=3), 1.0, True), 0, 0.1, (10, 20),
                                100)) == 3
    assert own_column(_cand(1.0, 0.1, (10, 20))) is None          # the scalar output
    fitted = Candidate(ThresholdEvent(Score(w=np.array([1.0, -1.0])), 0.0, True), 0, 0.1,
                       (10, 20), 100)
    assert own_column(fitted) is None


def test_one_candidate_is_one_event() -> None:
    only = _cand(0.0, 0.1, (1_000, 1_200))
    assert events_to_certify([only], N_CERT, 0.05, 0.0)[0] == [only]


def test_audit_with_auto_events_certifies_one_or_two_and_says_why() -> None:
    r = audit(RandomizedResponse(1.0), ((0, 0),), ((0, 1),), claimed_epsilon=1.0,
              runs=200_000, seed=0, events="auto")
    assert r.events_certified in (1, 2, 3, 4) and any("events=auto" in n for n in r.notes)
    assert 0.8 < r.epsilon_lower_bound <= 1.0
    lap = audit(LaplaceMechanism(1.0), ((0, 0),), ((0, 1),), claimed_epsilon=1.0,
                runs=200_000, seed=1, events="auto", certify="auto", arithmetic="real")
    assert lap.epsilon_lower_bound <= 1.0 and lap.events_certified in (1, 2, 3, 4)


def test_auto_events_never_certifies_more_than_two_and_their_deeper_cuts() -> None:
    r = audit(LaplaceMechanism(0.5), ((0, 0),), ((0, 1),), claimed_epsilon=0.5,
              runs=100_000, seed=2, events="auto")
    # deeper cuts: of the first event's family, or of up to REFINE_FAMILIES families holding
    # the first event or the runner-up (events._refined), one clause of the note each
    clauses = sum(n.count("deeper cut(s)") for n in r.notes)
    assert r.events_certified == len(r.counts["bounds_per_event"])
    assert r.events_certified <= 2 + len(SHARES) * REFINE_FAMILIES * clauses and clauses <= 2


@pytest.mark.parametrize("bad", ["two", 0, True, 1.5, None])
def test_bad_events_are_clear_errors(bad) -> None:
    with pytest.raises(InvalidInputError, match="events must be"):
        audit(RandomizedResponse(1.0), ((0, 0),), ((0, 1),), claimed_epsilon=1.0,
              runs=20_000, seed=0, events=bad)


def test_min_runs_of_auto_is_that_of_two_events() -> None:
    assert min_runs(0.5, events="auto") == min_runs(0.5, events=2)


def test_nested_events_count_as_one_bet() -> None:
    """Two nested tail thresholds (0.5% of their runs apart) with nearly the same projection:
    without their overlap the
    rule sees two independent bets and certifies both; with the selection samples it sees the
    difference of two nearly identical estimates and certifies one (falsifiable both ways)."""
    import numpy as np

    rng = np.random.default_rng(0)
    s0 = rng.laplace(0.0, 10.0, 400_000)
    s1 = rng.laplace(1.0, 10.0, 400_000)
    n = 200_000                       # the half that scored the candidates
    a = ThresholdEvent(Score(), -20.0, False)
    b = ThresholdEvent(Score(), -20.05, False)
    ka = (int((s0[n:] <= -20.0).sum()), int((s1[n:] <= -20.0).sum()))
    kb = (int((s0[n:] <= -20.05).sum()), int((s1[n:] <= -20.05).sum()))
    c1 = Candidate(a, 1, 0.0900, ka, n, "poisson")
    c2 = Candidate(b, 1, 0.0899, kb, n, "poisson")
    assert len(events_to_certify([c1, c2], N_CERT, 0.05, 0.0)[0]) == 2
    assert len(events_to_certify([c1, c2], N_CERT, 0.05, 0.0, (s0, s1))[0]) == 1
    # two disjoint events with the same projections stay two bets
    c3 = Candidate(ThresholdEvent(Score(), 20.0, True), 0, 0.0899, kb[::-1], n, "poisson")
    assert len(events_to_certify([c1, c3], N_CERT, 0.05, 0.0, (s0, s1))[0]) == 2
