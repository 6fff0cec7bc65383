"""The exact output-cell laws behind the headline table's ceilings (issue 42: a ceiling for every
row): each against a closed form or the mechanism's own sampler."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchmarks.bench_dpsniper_ceilings import (
    laplace_cells,
    laplace_llr_sum_cells,
    noisy_max_value_cells,
    numerical_svt_cells,
    svt3_cells,
)
from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.mechanisms import dpsniper_suite


def test_one_laplace_coordinate_matches_the_value_cells():
    a, b = laplace_llr_sum_cells([1.0], 10.0)
    c, d = laplace_cells(1.0, 10.0)
    assert a.sum() == pytest.approx(1.0, abs=1e-12) and b.sum() == pytest.approx(1.0, abs=1e-12)
    assert certification_ceiling(a, b, 1e6) == pytest.approx(certification_ceiling(c, d, 1e6),
                                                             rel=1e-5)


@pytest.mark.parametrize("shifts, scale, eps", [([1.0] * 10, 10.0, 1.0),       # PrefixSum
                                                ([-1.0] + [1.0] * 9, 10.0, 1.0),
                                                ([1.0] * 20, 200.0, 0.1),      # LaplaceParallel
                                                ([1.0, 0, 0, 0, 0], 0.1, 10.0)])  # NoisyHist2
def test_summed_laplace_ratios_reach_the_pairs_exact_epsilon(shifts, scale, eps):
    a, b = laplace_llr_sum_cells(shifts, scale)
    assert a.sum() == pytest.approx(1.0, abs=1e-9) and b.sum() == pytest.approx(1.0, abs=1e-9)
    keep = (a > 1e-300) & (b > 1e-300)
    ratio = np.log(a[keep] / b[keep])
    # the extreme cell holds the all-atoms outputs: its log-ratio is the pair's exact ε,
    # Σ|d_i|/s, less the sliver of continuous mass rounded into it; no cell exceeds it (a
    # partition of the outputs cannot)
    assert eps * (1 - 2e-3) <= ratio.max() <= eps + 1e-9
    assert -eps - 1e-9 <= ratio.min() <= -eps * (1 - 2e-3)


def test_summed_laplace_ratio_law_matches_sampling():
    rng = np.random.default_rng(5)
    d, s = 1.0, 10.0
    x = rng.laplace(0.0, s, size=(400_000, 3))
    llr = ((np.abs(x - d) - np.abs(x)) / s).sum(axis=1)
    a, _ = laplace_llr_sum_cells([d] * 3, s)
    c = d / s
    grid = np.linspace(-3 * c, 3 * c, a.size)          # lattice points of the sum
    for t in (-0.15, 0.05, 0.17, 0.23):                # P(sum ≤ t) off the atoms (multiples
        # of c = 0.1, where float sums of the sampled ratios straddle t); the lattice's rounding
        exact = a[grid <= t + 1e-12].sum()             # error is below one lattice step
        assert abs(np.mean(llr <= t) - exact) < 4e-3


def test_exponential_noisy_max_value_has_the_moved_support():
    a, b = noisy_max_value_cells((1.0,) * 5, (2.0,) * 5, 20.0, "exponential")
    assert a.sum() == pytest.approx(1.0) and b.sum() == pytest.approx(1.0)
    assert b[(a > 0) & (b == 0)].size > 0               # outputs in [1, 2): impossible on b
    rng = np.random.default_rng(0)
    m, _ = dpsniper_suite(0.1)["ReportNoisyMax4"]
    out = m.sample((1.0,) * 5, 200_000, rng)
    t = np.arange(-600.0, 600.0, 0.05)
    for v in (30.0, 60.0, 120.0):
        assert abs(np.mean(out < v) - a[: np.searchsorted(t, v) + 1].sum()) < 4e-3


def test_svt3_cells_against_the_closed_form_and_the_sampler():
    m, _ = dpsniper_suite(0.1)["SVT3"]
    q = (1.0,) * 10
    p = svt3_cells(m, q)
    assert p.sum() == pytest.approx(1.0, abs=1e-7)
    per = (p.size - 1) // 10
    # equal answers: the first ⊤ is at i with probability 1/((i+1)(i+2)), none with 1/11
    for i in range(10):
        assert p[i * per:(i + 1) * per].sum() == pytest.approx(1 / ((i + 1) * (i + 2)),
                                                               abs=1e-7)
    assert p[-1] == pytest.approx(1 / 11, abs=1e-7)
    # the released value of a first ⊤ at 0 against 400,000 runs, on 10 coarse bins
    rng = np.random.default_rng(1)
    x = m.sample(q, 400_000, rng)
    v = x[x[:, 0] == 1, 10]
    edges = np.r_[-np.inf, m.threshold + np.arange(-40.0, 121.0, 20.0), np.inf]  # on cell edges
    cells = p[:per]
    lo = -800.0 + m.threshold + 0.5 * np.arange(per)     # the cells' left edges
    expected = np.array([cells[(lo >= a) & (lo < b)].sum() for a, b in
                         zip(edges[:-1], edges[1:], strict=True)])
    counts = np.histogram(v, bins=edges)[0]
    chi = stats.chisquare(counts, expected / expected.sum() * counts.sum())
    assert chi.pvalue > 1e-3


def test_svt3_pair_ceiling_is_finite_and_positive():
    m, _ = dpsniper_suite(0.1)["SVT3"]
    a = svt3_cells(m, (1.0,) * 10)
    b = svt3_cells(m, (0.0,) * 5 + (2.0,) * 5)
    c = certification_ceiling(a, b, 1e6)
    assert 0.1 < c < 1.0 and math.isfinite(c)


def test_numerical_svt_cells_codes_and_values():

    m, _ = dpsniper_suite(0.1)["NumericalSVT"]
    a, b = (1.0,) * 5 + (0.0,) * 5, (0.0,) * 5 + (1.0,) * 5
    p0, p1 = numerical_svt_cells(m, a, b)
    assert p0.sum() == pytest.approx(1.0, abs=1e-9) and p1.sum() == pytest.approx(1.0, abs=1e-9)
    # the codes' law is that of sparse vector variant 1 at 2ε/3 (ρ ~ Lap(3Δ/ε), ν ~ Lap(6cΔ/ε)):
    # a chi-square test against the sampler on a dataset whose queries straddle the threshold
    # (on equal queries the pattern law does not depend on the noise scale), with the power to
    # reject the law at ε/3 the cells used to read (p ≈ 3·10^-10 here)
    from scipy.stats import chisquare

    from ltheory.privacy.mechanisms import SparseVector

    d, n = (0.0,) + (2.0,) * 9, 2_000_000
    base3 = 3 ** np.arange(10)                 # a pattern of codes -1/0/1 as one integer
    x = m.sample(d, n, np.random.default_rng(5))[:, :10].astype(int)
    pats, seen = np.unique((x + 1) @ base3, return_counts=True)
    observed = dict(zip(pats.tolist(), seen.tolist(), strict=True))

    def p_value(eps: float) -> float:
        law = SparseVector(eps, 1, threshold=1.0, c=2).output_distribution(d)
        keys = sorted((k for k, p in law.items() if p * n > 50), key=law.get)
        obs = np.array([observed.get(int((np.array(k) + 1) @ base3), 0) for k in keys], dtype=float)
        exp = np.array([law[k] * n for k in keys])
        obs[0] += n - obs.sum()              # the rarer patterns pooled with the rarest kept
        exp[0] += n - exp.sum()
        return float(chisquare(obs, exp).pvalue)

    assert p_value(2 * 0.1 / 3) > 1e-4
    assert p_value(0.1 / 3) < 1e-6
    # no cell's ratio beyond the exact ε of codes and values together (finite: NumericalSVT
    # is ε-DP, 0.1, for one query moving; here ten move, each by at most 1)
    keep = (p0 > 1e-300) & (p1 > 1e-300)
    assert np.abs(np.log(p0[keep] / p1[keep])).max() <= 10 * 0.1 + 1e-9


def test_svt34_parallel_ratio_is_exact_and_its_ceiling_estimate_tight():
    from benchmarks.bench_dpsniper_ceilings import (
        SVT3CutoffDensity,
        estimated_ceiling,
        svt34_parallel_llr,
    )

    m, _ = dpsniper_suite(0.1)["SVT34Parallel"]
    a, b = (1.0,) * 10, (0.0,) * 5 + (2.0,) * 5
    llr = svt34_parallel_llr(m, a, b)
    rng = np.random.default_rng(0)
    # an exact log-likelihood ratio L has E_a[e^{−L}] = 1 = E_b[e^{L}]
    la = llr(m.sample(a, 100_000, rng))
    lb = llr(m.sample(b, 100_000, rng))
    assert np.mean(np.exp(-la)) == pytest.approx(1.0, abs=5e-3)
    assert np.mean(np.exp(lb)) == pytest.approx(1.0, abs=5e-3)
    # c = 1: the tabulated density integrates to svt3_cells' cells around sampled outputs
    m1, _ = dpsniper_suite(0.1)["SVT3"]
    d = SVT3CutoffDensity(m1, a)
    cells = svt3_cells(m1, a)
    per = (cells.size - 1) // 10
    x = m1.sample(a, 50, rng)
    dens = np.exp(d.log_density(x[:, :10], x[:, 10:]))
    for row, f in zip(x, dens, strict=True):
        if (row[:10] == 1).any():
            i = int(np.argmax(row[:10] == 1))
            k = int((row[10 + i] - 1.0 + 800.0) // 0.5)
            lo = -800.0 + 1.0 + 0.5 * k
            # the density averaged across the sampled value's cell is the cell's probability
            grid = np.repeat(row[None, :], 201, axis=0)
            grid[:, 10 + i] = lo + 0.5 * (np.arange(201) + 0.5) / 201
            avg = np.exp(d.log_density(grid[:, :10], grid[:, 10:])).mean()
            assert avg == pytest.approx(cells[i * per + k] / 0.5, rel=2e-3)
        else:
            assert f == pytest.approx(cells[-1], rel=1e-6)
    est = estimated_ceiling(m, a, b, llr, [1e6], samples=100_000, boots=3, bins=500)
    lo, hi = est["interval"][1e6]
    assert 0.2 < est["ceiling"][1e6] < 0.4 and lo <= hi and hi - lo < 0.05


def test_reach_table_is_the_ceiling_of_fewer_runs_at_a_smaller_level():
    """``--reach``: with every run certifying one event at α it would read 1; a share of the runs
    and the level α/k of k events each lower it, monotonically, and it is the certification
    ceiling of those settings over the whole-budget one (Laplace, its exact value cells)."""
    from benchmarks.bench_dpsniper_headline import ALPHA, REACH_EVENTS, REACH_SHARES, reach_table
    rec = {"mechanism": "Laplace", "runs_budget": 2_000_000, "pair": "one above",
           "d0": [1.0], "d1": [2.0]}
    lines = reach_table([rec, dict(rec)], ["Laplace"], 2_000_000).splitlines()
    assert len(lines) == 3                                  # header, rule, one pair (deduplicated)
    vals = np.array([float(v) for v in lines[2].strip("|").split("|")[2:]])
    grid = vals.reshape(len(REACH_SHARES), len(REACH_EVENTS))
    assert np.all(grid <= 1.0) and np.all(np.diff(grid, axis=1) < 0)
    assert np.all(np.diff(grid, axis=0) < 0)
    c, d = laplace_cells(1.0, 10.0)
    whole = certification_ceiling(c, d, 1e6, ALPHA)
    assert grid[0, 1] == pytest.approx(certification_ceiling(c, d, 0.9e6, ALPHA / 2) / whole,
                                       abs=1e-3)
