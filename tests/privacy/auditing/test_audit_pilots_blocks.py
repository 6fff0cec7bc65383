"""Pattern pilots per block (``audit_search(pattern_pilots=True)`` when the discrete
coordinates take too many joint values but form few-valued blocks) and the naive-Bayes scores
on the discrete blocks only (``features._block_scores``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ltheory.privacy.auditing.features import structure_scores
from ltheory.privacy.auditing.pilots import consecutive_runs, probe_outputs
from ltheory.privacy.auditing.search import audit_search
from ltheory.privacy.mechanisms import Mechanism


class TwoBlocks(Mechanism):
    """Answers (x, y) in [0, 1]; output: 6 randomised-response bits of x (each kept with
    probability e^a/(1+e^a)), a Laplace(x, 50) value, 6 bits of y (e^b/(1+e^b)).  The blocks are
    independent given the input; the exact ε of a pair moving only x by 1 is 6a + 1/50, only y
    by 1 is 6b + 0 (the Laplace column reads x).  Joint codes: 2^12 > 64; each block: 2^6."""

    name = "two_blocks"
    neighbour_relation = "query_answers"

    def __init__(self, a: float, b: float) -> None:
        self.a, self.b = float(a), float(b)
        self.sensitivity = 1.0
        self.epsilon = 6 * self.a + 6 * self.b + 1 / 50

    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        x, y = (float(v) for v in dataset)

        def bits(v: float, e: float) -> np.ndarray:
            keep = rng.random((n, 6)) < math.exp(e) / (1 + math.exp(e))
            return np.where(keep, v, 1 - v)

        return np.hstack([bits(x, self.a), rng.laplace(x, 50.0, (n, 1)), bits(y, self.b)])


PAIRS = [("x moves", (0.0, 0.0), (1.0, 0.0)), ("y moves", (0.0, 0.0), (0.0, 1.0))]


def test_runs_cut_columns_into_consecutive_blocks() -> None:
    assert consecutive_runs((0, 1, 2, 5, 6, 9)) == ((0, 1, 2), (5, 6), (9,))
    assert consecutive_runs((3,)) == ((3,),)


def test_probe_returns_the_blocks_when_joint_codes_are_too_many() -> None:
    m = TwoBlocks(0.2, 0.2)
    got = probe_outputs(m, (0.0, 0.0), (1.0, 1.0), 2000, np.random.SeedSequence(1), "serial",
                       patterns=True)
    assert got.kind == "blocks" and got.blocks == ((0, 1, 2, 3, 4, 5), (7, 8, 9, 10, 11, 12))
    # without pattern pilots: not discrete
    assert probe_outputs(m, (0.0, 0.0), (1.0, 1.0), 2000, np.random.SeedSequence(1), "serial",
                         patterns=False).kind == "numeric"


@pytest.mark.parametrize("leaky", ["x", "y"])
def test_block_pilots_rank_the_pair_whose_block_leaks(leaky: str) -> None:
    # the leaking block is the first or the last: the ranking follows it, the final audit of the
    # chosen pair is sound for a true claim and catches a false one
    a, b = (0.12, 0.01) if leaky == "x" else (0.01, 0.12)
    m = TwoBlocks(a, b)
    # true_eps is the real-arithmetic ε (the Laplace column is a naive float sum)
    kw = dict(runs=200_000, pilot_runs=20_000, seed=5, certify="auto", exact=False,
              executor="serial", arithmetic="real")
    true_eps = 6 * max(a, b) + (1 / 50 if leaky == "x" else 0)
    s = audit_search(m, (0.0, 0.0), PAIRS, claimed_epsilon=true_eps, **kw)
    assert any(n.startswith("pattern pilots per block") for n in s.notes)
    assert all(r["pilot_event"].startswith("plug-in per block") for r in s.ranking)
    assert s.pattern == f"{leaky} moves"
    assert s.ranking[0]["projected_bound"] > s.ranking[1]["projected_bound"]
    assert s.report.epsilon_lower_bound <= true_eps          # a true claim holds
    assert s.report.verdict == "consistent"
    false = audit_search(m, (0.0, 0.0), PAIRS, claimed_epsilon=true_eps / 3, **kw)
    assert false.report.verdict == "violation"               # a false claim is caught
    assert false.report.epsilon_lower_bound > true_eps / 3


def test_block_scores_read_the_discrete_blocks_only() -> None:
    rng = np.random.default_rng(3)
    m = TwoBlocks(0.01, 0.3)
    x0, x1 = m.sample((0.0, 0.0), 20_000, rng), m.sample((0.0, 1.0), 20_000, rng)
    scores, _ = structure_scores(x0, x1)
    labels = [s.label for s in scores]
    assert "naive-Bayes log-ratio over the patterns of the 2 discrete blocks" in labels
    assert "naive-Bayes log-ratio over the patterns of the block o[0..5]" in labels
    last = next(s for s in scores if s.label.endswith("block o[7..12]"))
    # the continuous column and the other block have zero weight: moving them moves nothing
    y = m.sample((0.0, 1.0), 1000, rng)
    z = y.copy()
    z[:, :7] = rng.permutation(z[:, :7])
    assert np.allclose(last(y), last(z))
    # and the leaking block's score separates the two datasets
    t0, t1 = m.sample((0.0, 0.0), 5000, rng), m.sample((0.0, 1.0), 5000, rng)
    assert last(t0).mean() > last(t1).mean() + 0.3


@pytest.mark.slow
def test_block_pilots_on_svt34_parallel_pick_a_pair_where_svt4_leaks() -> None:
    # SVT3 ∥ SVT4 (c = 2, ten queries): 20 code coordinates take ~56 × 56 joint values, too many
    # for pattern pilots over all codes, but each part's codes are a few-valued block; the SVT4
    # block leaks most on the split pairs (exact SVT4-part ε 0.29–0.31 at ε = 0.1 on half-half
    # and X-shape, 0.025–0.075 on all/one above/below)
    from ltheory.privacy.mechanisms import dpsniper_suite
    m, base = dpsniper_suite(0.3)["SVT34Parallel"]
    kw = dict(claimed_epsilon=0.3, runs=400_000, pilot_runs=40_000, seed=2, certify="auto",
              exact=False)
    s = audit_search(m, base, "patterns", **kw)
    assert any("['0..9', '20..29']" in n for n in s.notes)
    assert all(r["pilot_event"].startswith("plug-in per block") for r in s.ranking)
    assert s.pattern in ("half-half", "X-shape", "one above rest below", "one below rest above")
    assert s.report.verdict == "violation"     # SVT3 is ∞-DP (Lyu et al. 2017, Table 1)
