"""The StatDP / DP-Sniper suite mechanisms, the structure-score event families, the Poisson
certification test and the budgeted pair search (issue 14, part 2)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from ltheory.errors import InvalidInputError
from ltheory.privacy import audit
from ltheory.privacy.auditing.events import select_events
from ltheory.privacy.auditing.exact import aligned, exact_epsilon
from ltheory.privacy.auditing.features import StructureFeatures, structure_scores
from ltheory.privacy.auditing.search import audit_search, query_patterns
from ltheory.privacy.mechanisms import (
    NoisyHist,
    NoisyMaxValue,
    NumericalSVT,
    OneTimeRappor,
    Parallel,
    PrefixSum,
    Rappor,
    TruncatedGeometric,
    are_neighbours,
    dpsniper_suite,
    murmur3_32,
)
from ltheory.privacy.stats import poisson_epsilon_lower_bound


# --------------------------------------------------------------------------- mechanisms
def test_murmur3_reference_vectors() -> None:
    assert murmur3_32(b"", 0) == 0
    assert murmur3_32(b"", 1) == 0x514E28B7
    assert murmur3_32(b"hello", 0) == 0x248BFA47
    assert murmur3_32(b"foo", 0) - (1 << 32) == -156908512       # mmh3.hash("foo")


def test_rappor_bloom_filters_and_exact_pair_epsilon() -> None:
    r = Rappor()
    assert set(np.nonzero(r.bloom(0))[0]) == {0, 11, 18}       # DP-Sniper's RAPPOR features
    assert set(np.nonzero(r.bloom(1))[0]) == {3, 10, 13}
    p1, p0 = r.bit_probabilities()
    assert math.isclose(p1, 0.5125) and math.isclose(p0, 0.4875)
    out = r.sample((1.0,), 200_000, np.random.default_rng(0))
    freq = out.mean(axis=0)
    b = r.bloom(1)
    assert np.allclose(freq[b], p1, atol=0.005) and np.allclose(freq[~b], p0, atol=0.005)
    # product measure: the exact epsilon of the pair (0, 1) is one bit's cost per differing bit
    differing = int((r.bloom(0) != r.bloom(1)).sum())
    assert differing == 6
    assert math.isclose(differing * math.log(p1 / p0), 0.30005, abs_tol=1e-4)
    assert OneTimeRappor().bit_probabilities() == pytest.approx((0.525, 0.475))


def test_rappor_true_epsilon_at_the_edges() -> None:
    """f = 0 without the instantaneous step releases the Bloom filter itself (∞, not a
    ZeroDivisionError); q < p costs what q > p costs (the |log-ratio|, not a negative ε)."""
    assert Rappor(f=0.0, instantaneous=False).true_epsilon == math.inf
    assert Rappor(f=1.0).true_epsilon == 0.0
    swapped, default = Rappor(p=0.55, q=0.45), Rappor()
    assert swapped.true_epsilon > 0
    assert math.isclose(swapped.true_epsilon, default.true_epsilon)


def test_truncated_geometric_exact_distribution_and_privacy() -> None:
    m = TruncatedGeometric(0.1, 5)
    assert m.k == 3 and math.isclose(m.true_epsilon, math.log(9 / 8))
    for c in range(6):
        dist = m.output_distribution((float(c),))
        assert math.isclose(sum(dist.values()), 1.0)
    worst = max(exact_epsilon(*aligned(m.output_distribution((float(c),)),
                                       m.output_distribution((float(c + 1),)))[1:])
                for c in range(5))
    assert math.isclose(worst, math.log(9 / 8), rel_tol=1e-9)          # Balcer & Vadhan Thm 4.7
    n = 60_000
    out = m.sample((2.0,), n, np.random.default_rng(3))
    dist = m.output_distribution((2.0,))
    cnt = Counter(out.astype(int).tolist())
    obs = np.array([cnt[z] for z in range(6)], dtype=float)
    assert chisquare(obs, np.array([dist[z] for z in range(6)]) * n).pvalue > 1e-4
    with pytest.raises(InvalidInputError):
        m.sample((7.0,), 3, np.random.default_rng(0))


def test_noisy_max_value_left_tail_ratio_is_k_eps_over_2() -> None:
    m = NoisyMaxValue(0.1, "laplace")
    assert math.isclose(m.true_epsilon, 0.25)
    rng = np.random.default_rng(5)
    n = 400_000
    a = (m.sample((0.0,) * 5, n, rng) <= 0).mean()
    b = (m.sample((1.0,) * 5, n, rng) <= 0).mean()
    assert math.isclose(a, 1 / 32, rel_tol=0.03)                        # F(0)^5
    assert abs(math.log(a / b) - 0.25) < 0.03


def test_numerical_svt_and_prefix_sum_semantics() -> None:
    m = NumericalSVT(0.1, threshold=1.0, c=2)
    out = m.sample((5.0,) * 10, 2000, np.random.default_rng(1))
    codes, vals = out[:, :10], out[:, 10:]
    assert ((codes == 1).sum(axis=1) <= 2).all()
    stopped = np.maximum.accumulate(np.cumsum(codes == 1, axis=1) >= 2, axis=1)
    assert (codes[:, 1:][stopped[:, :-1]] == -1).all()
    assert (vals[codes != 1] == 0).all() and (vals[codes == 1] != 0).all()
    p = PrefixSum(0.1).sample((1.0,) * 4, 5, np.random.default_rng(2))
    assert p.shape == (5, 4) and np.isclose(np.diff(p, axis=1).mean(), 1.0, atol=40)


def test_parallel_and_suite() -> None:
    lp = Parallel([NoisyHist(0.005) for _ in range(20)])
    assert math.isclose(lp.epsilon, 0.1) and lp.sample((1.0,), 7, np.random.default_rng(0)).shape \
        == (7, 20)
    with pytest.raises(InvalidInputError):
        Parallel([NoisyHist(0.1), NumericalSVT(0.1)])
    suite = dpsniper_suite()
    assert len(suite) == 20
    for m, base in suite.values():
        assert np.ndim(m.sample(base, 3, np.random.default_rng(0))) in (1, 2)


def test_single_entry_relation() -> None:
    assert are_neighbours((1.0, 1.0), (1.0, 2.0), "single_entry")
    assert not are_neighbours((1.0, 1.0), (2.0, 2.0), "single_entry")
    assert not are_neighbours((1.0,), (3.0,), "single_entry")
    assert NoisyHist(0.1).are_neighbours((1.0, 1.0), (0.0, 1.0))


# --------------------------------------------------------------------------- event families
def _draw(m, a, b, n, seed=0):
    rng = np.random.default_rng(seed)
    return m.sample(a, n, rng), m.sample(b, n, rng)


def test_sign_count_finds_many_small_laplace_shifts() -> None:
    """10 Laplace coordinates at ε = 0.05 each: the per-coordinate events reach ≤ 0.05, the
    sign count of the coordinates reaches far more; it is chosen on the selection split."""
    m = Parallel([NoisyHist(0.05) for _ in range(10)])
    s0, s1 = _draw(m, (0.0,), (1.0,), 100_000)
    best = select_events(s0, s1, 900_000, 0.025, 0.0, arithmetic="real")[0]
    assert best.event.describe().split()[0] in ("count", "naive-Bayes", "logistic")
    r = audit(m, (0.0,), (1.0,), claimed_epsilon=0.5, runs=1_000_000, seed=1, certify="auto",
              arithmetic="real")
    assert 0.2 < r.epsilon_lower_bound <= 0.5


def _one_sign_counts(scores):
    return [s for s in scores if s.describe().startswith("count of all")]


def test_one_sign_count_is_offered_beside_the_fitted_one() -> None:
    """20 Laplace coordinates at ε = 0.01 each (scale 100, moved by 1): on 5,000 fit runs the
    fitted signs are noise, so the count with one sign for all is offered too, fitting nothing
    but the label-free medians; where every fitted sign agrees (ε = 0.5 each) it *is* the
    fitted count, which is then left out; coordinates with atoms (a sparse vector's withheld
    releases) are not counted."""
    s0, s1 = _draw(Parallel([NoisyHist(0.01) for _ in range(20)]), (0.0,), (1.0,), 5_000)
    scores, _ = structure_scores(s0, s1)
    (one,) = [s for s in _one_sign_counts(scores) if "first differences" not in s.describe()]
    assert one.unfitted and one.kind == "signs"
    assert [(c.col, sign) for c, sign in one.counted()] == [(j, 1.0) for j in range(20)]
    fitted = [s for s in scores if s.describe().startswith("count of 20 coordinates")
              or s.describe().startswith("count of 19 coordinates")]
    assert fitted and not fitted[0].unfitted
    assert len({sign for _, sign in fitted[0].counted()}) == 2      # mixed: noise
    # ε = 0.5 per coordinate: the fitted signs all agree, so only the unfitted count remains
    s0, s1 = _draw(Parallel([NoisyHist(0.5) for _ in range(5)]), (0.0,), (1.0,), 5_000)
    scores, _ = structure_scores(s0, s1)
    counts = [s.describe() for s in scores if s.describe().startswith("count of")
              and "first differences" not in s.describe()]
    assert counts == ["count of all 5 coordinates above their median"]
    # atoms: NumericalSVT's releases are 0 when withheld; PrefixSum's coordinates have none
    s0, s1 = _draw(Parallel([NumericalSVT(0.1, c=2), PrefixSum(0.1)]), (1.0,) * 4, (2.0,) * 4,
                   5_000)
    scores, _ = structure_scores(s0, s1)
    for s in _one_sign_counts(scores):
        assert all(not len(c.atoms) for c, _ in s.counted())
        assert all(c.col >= 8 for c, _ in s.counted())               # the prefix sums only


def test_prefix_sum_increments_are_its_noisy_answers() -> None:
    """PrefixSum releases the prefix sums of 10 noisy answers; the increments of its scores are
    the first coordinate (from 0) and the 9 first differences — the answers themselves — so its
    one-sign increment count is the number of answers above their medians, which certifies up
    to 10·ln(p/(1 − p)) = 0.977 where the 9 differences alone stop at 0.879 (the pair's ε is
    1.0).  Where discrete columns come first (a sparse vector's codes), the lead is the first
    continuous column of the run."""
    s0, s1 = _draw(PrefixSum(0.1), (1.0,) * 10, (0.0,) * 10, 20_000)
    scores, _ = structure_scores(s0, s1)
    feats = scores[0].features
    assert feats.leads == (0,)
    assert [(c.col, c.diff) for c in feats.family(True)] == \
        [(0, False)] + [(j, True) for j in range(1, 10)]
    (inc,) = [s for s in _one_sign_counts(scores) if "increments" in s.describe()]
    assert inc.describe() == ("count of all 10 increments (first differences; o[0] from 0) "
                              "above their median")
    answers = np.diff(np.concatenate([s0, s1]), axis=1, prepend=0.0)
    med = {c.col: c.median for c in feats.family(True)}
    want = sum((answers[:, j] > med[j]).astype(float) for j in range(10))
    assert np.array_equal(inc(np.concatenate([s0, s1])), want)
    # the increments' count separates the pair: all 10 answers above is the rare d0 event
    top0, top1 = (inc(s0) == 10).mean(), (inc(s1) == 10).mean()
    assert top0 > 1.5 * top1
    # mixed: sparse-vector codes, then released values: the run's lead is the first value
    s0, s1 = _draw(NumericalSVT(0.1, c=2), (1.0,) * 4, (2.0,) * 4, 5_000)
    feats = StructureFeatures.fit(s0, s1)
    assert feats.leads == (4,)


def test_one_sign_count_is_chosen_on_the_whole_selection_split() -> None:
    """The same 20 coordinates at 5·10^4 selection runs per dataset: the one-sign count wins,
    scored on all the selection runs (the fitted families on half of them), and an audit that
    certifies it stays below the pair's ε (0.2)."""
    m = Parallel([NoisyHist(0.01) for _ in range(20)])
    s0, s1 = _draw(m, (0.0,), (1.0,), 50_000)
    best = select_events(s0, s1, 150_000, 0.0125, 0.0, test="poisson", arithmetic="real")[0]
    assert best.event.describe().startswith("count of all 20 coordinates above their median")
    assert best.credible and best.sel_n == 50_000
    r = audit(m, (0.0,), (1.0,), claimed_epsilon=0.2, runs=400_000, seed=2, certify="auto",
              selection_fraction=0.25, arithmetic="real")
    assert r.event.startswith("count of all 20")
    assert 0.03 < r.epsilon_lower_bound <= 0.2


def test_logistic_and_naive_bayes_scores_separate_rappor_bits() -> None:
    m = OneTimeRappor()
    s0, s1 = _draw(m, (0.0,), (1.0,), 50_000)
    scores, notes = structure_scores(s0, s1)
    kinds = {s.describe().split()[0] for s in scores}
    assert {"naive-Bayes", "logistic"} <= kinds and not notes
    for s in scores:
        if s.describe().startswith(("naive", "logistic")):
            t0, t1 = _draw(m, (0.0,), (1.0,), 20_000, seed=9)
            assert s(t0).mean() > s(t1).mean() + 0.03     # KL-sized gap: 6 bits × 0.1 × 0.1


def test_structure_features_blocks_and_atoms() -> None:
    m = Parallel([NumericalSVT(0.1, c=2), PrefixSum(0.1)])
    s0, s1 = _draw(m, (1.0,) * 4, (2.0,) * 4, 5_000)
    f = StructureFeatures.fit(s0, s1)
    assert [b.cols for b in f.blocks] == [(0, 1, 2, 3)]
    value_coords = [c for c in f.coords if not c.diff and 4 <= c.col < 8]
    assert value_coords and all(0.0 in c.atoms for c in value_coords)
    assert f.matrix(s0[:10]).shape[0] == 10


@pytest.mark.parametrize("certify", ["binomial", "auto"])
def test_new_families_sound_on_exactly_eps_mechanism(certify) -> None:
    """Four Laplace coordinates at 0.25 each moved by 1: exactly 1.0-DP at this pair (all four
    above 1 has ratio e exactly).  No audit exceeds it; the 2·0.25 variant is flagged."""
    m = Parallel([NoisyHist(0.25) for _ in range(4)])
    bounds = [audit(m, (0.0,), (1.0,), claimed_epsilon=1.0, runs=40_000, seed=100 + s,
                    executor="serial", certify=certify,
                    arithmetic="real").epsilon_lower_bound for s in range(8)]
    assert max(bounds) <= 1.0 and max(bounds) > 0.3
    loud = Parallel([NoisyHist(0.5) for _ in range(4)])
    r = audit(loud, (0.0,), (1.0,), claimed_epsilon=1.0, runs=200_000, seed=7,
              certify=certify, arithmetic="real")
    assert r.verdict == "violation"


# --------------------------------------------------------------------------- certification
def test_poisson_conditional_bound_coverage() -> None:
    """Counts drawn Poisson(λp_a), Poisson(λp_b) with ln(p_a/p_b) = 0.3: the bound exceeds 0.3
    in at most about α of the draws, and is positive when the evidence is strong."""
    rng = np.random.default_rng(0)
    lam = 50_000.0
    ka = rng.poisson(lam * 0.02 * math.exp(0.3), size=4000)
    kb = rng.poisson(lam * 0.02, size=4000)
    b = poisson_epsilon_lower_bound(ka, kb, 0.05)
    assert (b > 0.3).mean() <= 0.05 + 0.012
    assert np.median(b) > 0.2
    assert poisson_epsilon_lower_bound(0, 10, 0.05) == -np.inf


def test_poisson_certification_report_and_errors() -> None:
    m = NoisyHist(0.5)
    r = audit(m, (0.0,), (1.0,), claimed_epsilon=0.5, runs=200_000, seed=2, certify="poisson",
              arithmetic="real")
    assert r.certification_test == "poisson" and 0.3 < r.epsilon_lower_bound <= 0.5
    c = r.counts["certification"]
    assert c["n_d0"] != c["n"] or c["n_d1"] != c["n"]            # Poisson run counts
    assert r.runs == r.selection_runs + r.certification_runs
    with pytest.raises(InvalidInputError):
        audit(m, (0.0,), (1.0,), claimed_epsilon=0.5, claimed_delta=1e-6, runs=10_000, seed=0,
              certify="poisson")
    with pytest.raises(InvalidInputError):
        audit(m, (0.0,), (1.0,), claimed_epsilon=0.5, runs=10_000, seed=0, certify="exact",
              arithmetic="real")


# --------------------------------------------------------------------------- search
def test_extended_patterns_and_dedup() -> None:
    names = {p[0] for p in query_patterns((1.0,) * 6, 1.0, extended=True)}
    assert {"X-shape h=2", "X-shape above h=5", "half-half h=1"} <= names
    m, base = dpsniper_suite()["Laplace"]
    s = audit_search(m, base, "extended", claimed_epsilon=0.1, runs=400_000, pilot_runs=40_000,
                     seed=0)
    assert len(s.ranking) == 2          # one above / one below; the rest are duplicates
    assert s.total_runs >= 400_000 + 2 * 40_000 - 10 and not s.partial


def test_search_time_budget_gives_partial_result() -> None:
    m, base = dpsniper_suite()["SVT1"]
    s = audit_search(m, base, "extended", claimed_epsilon=0.1, runs=60_000, pilot_runs=20_000,
                     seed=0, time_budget=1e-6, rungs=2)
    assert s.partial and s.notes and len(s.ranking) == 1
    assert s.to_json()["partial"] is True
    with pytest.raises(InvalidInputError):
        audit_search(m, base, claimed_epsilon=0.1, runs=60_000, seed=0, rungs=0)


@pytest.mark.slow
def test_reduced_suite_finds_pairs_and_beats_dpsniper_where_it_is_capped() -> None:
    """Three suite mechanisms at ~10^6 runs, pair found by the search (pilots included in the
    budget): DP-Sniper's capped bounds (NoisyHist2 4.60, SVT5 1.76, from ~2.3·10^8 runs) are
    beaten; Laplace is sound (≤ 0.1)."""
    suite = dpsniper_suite()
    want = {"NoisyHist2": 4.60, "SVT5": 1.76, "Laplace": None}
    for name, target in want.items():
        m, base = suite[name]
        s = audit_search(m, base, "extended", claimed_epsilon=0.1, runs=800_000,
                         pilot_runs=4_000, seed=1, rungs=2, certify="auto",
                         arithmetic="real")       # the real-arithmetic suite (not its floats)
        assert s.total_runs <= 1_100_000
        if target is None:
            assert 0.08 < s.report.epsilon_lower_bound <= 0.1
        else:
            assert s.report.epsilon_lower_bound > target, name
