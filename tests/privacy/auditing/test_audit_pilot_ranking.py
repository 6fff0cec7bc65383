"""How plug-in pilots score a pair (issue 42): each likelihood-ratio prefix of the cells is
projected from counts shrunk to their confidence bounds, so a pair whose pilot shows a chance
excess in a rare cell no longer outranks one whose pilot shows a real, broad leak."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.pilot_ranking import PILOT_SHRINK, shrunk_lr_prefix
from ltheory.privacy.auditing.pilots import lr_prefix_projection
from ltheory.privacy.auditing.projection import lr_order, projected_bound
from ltheory.privacy.auditing.search import SearchConfig, audit_search
from ltheory.privacy.mechanisms import dpsniper_suite

N_FINAL = 870_000

counts = st.lists(st.tuples(st.integers(0, 3_000), st.integers(0, 3_000)), min_size=2,
                  max_size=12)


def _table(rows: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    c = np.array(rows, dtype=float)
    return c, np.maximum(c.sum(axis=0), 1.0)


def _raw_prefix_best(c: np.ndarray, nn: np.ndarray, level: float) -> float:
    """The best projection over the same prefixes (smoothed likelihood-ratio order) at the raw
    frequencies: the shrunk score can only be lower, prefix by prefix."""
    p = (c + 0.5) / (nn + 0.5 * len(c))
    best = -np.inf
    for a, b in ((0, 1), (1, 0)):
        order = lr_order(p[:, a], p[:, b])
        v = projected_bound(np.cumsum(c[order, a]) / nn[a], np.cumsum(c[order, b]) / nn[b],
                            N_FINAL, level, 0.0, "auto")
        best = max(best, float(np.nan_to_num(v, nan=-np.inf).max()))
    return best


@settings(max_examples=60, deadline=None)
@given(counts, st.sampled_from([0.02, 0.16, 0.3]))
def test_shrunk_score_is_below_the_raw_frequencies_and_falls_with_the_level(rows, level) -> None:
    c, nn = _table(rows)
    shrunk = shrunk_lr_prefix(c, nn, N_FINAL, 0.05, level, test="auto")
    stronger = shrunk_lr_prefix(c, nn, N_FINAL, 0.05, level / 2, test="auto")
    assert shrunk <= _raw_prefix_best(c, nn, 0.05) + 1e-12
    assert stronger <= shrunk + 1e-12


def test_a_chance_excess_in_a_rare_cell_no_longer_outranks_a_broad_leak() -> None:
    n = 15_000.0
    # a rare cell seen 30 against 20 times (no leak: its ratio is chance) beside a bulk that
    # matches, and a broad leak: half the runs against 0.47 of them (log-ratio 0.06)
    rare = np.array([[30, 20], [n - 30, n - 20]], dtype=float)
    broad = np.array([[7_500, 7_050], [n - 7_500, n - 7_050]], dtype=float)
    nn = np.array([n, n])
    assert lr_prefix_projection(rare, nn, N_FINAL, 0.05, "auto") \
        > lr_prefix_projection(broad, nn, N_FINAL, 0.05, "auto")
    assert shrunk_lr_prefix(rare, nn, N_FINAL, 0.05, PILOT_SHRINK, test="auto") \
        < shrunk_lr_prefix(broad, nn, N_FINAL, 0.05, PILOT_SHRINK, test="auto")
    assert shrunk_lr_prefix(broad, nn, N_FINAL, 0.05, PILOT_SHRINK, test="auto") > 0


def test_the_shrunk_score_approaches_the_plug_in_as_the_pilot_grows() -> None:
    p = np.array([[0.3, 0.2], [0.7, 0.8]])
    gaps = []
    for n in (10_000, 1_000_000, 100_000_000):
        c, nn = p * n, np.array([n, n], dtype=float)
        gaps.append(lr_prefix_projection(c, nn, N_FINAL, 0.05, "auto")
                    - shrunk_lr_prefix(c, nn, N_FINAL, 0.05, PILOT_SHRINK, test="auto"))
    assert gaps[0] > gaps[1] > gaps[2] >= -1e-9
    assert gaps[2] < 0.005


def test_pilot_shrink_is_validated() -> None:
    assert SearchConfig().pilot_shrink == PILOT_SHRINK
    assert SearchConfig(pilot_shrink=None).pilot_shrink is None
    for bad in (0.0, 1.0, -0.1, "x"):
        with pytest.raises(InvalidInputError):
            SearchConfig(pilot_shrink=bad)


def _search(name: str, seed: int, total: int, **kw):
    m, base = dpsniper_suite(0.1)[name]
    return audit_search(m, base, claimed_epsilon=0.1, total_runs=total, seed=seed, exact=False,
                        arithmetic="real", **kw)


#: ReportNoisyMax3's pairs whose whole-budget ceiling at 2·10^6 runs is 0.236 (every answer moved
#: one way); the others' are 0.036–0.140
STRONG = {(1.0,) * 5 + (2.0,) * 5, (1.0,) * 5 + (0.0,) * 5}


@pytest.mark.parametrize("seed", [5, 7])
def test_report_noisy_max3_chooses_a_strong_pair_at_2e6(seed: int) -> None:
    # seeds on which the unshrunk plug-in pilots chose pairs of ceiling 0.036 and 0.136 (seed
    # 3, where a weak pair's own pilot still won at the mild shrinkage, needed the pooled runs:
    # test_audit_pilots_binned)
    s = _search("ReportNoisyMax3", seed, 2_000_000)
    assert tuple(s.d0) + tuple(s.d1) in STRONG
    assert s.report.epsilon_lower_bound > 0.15


def test_report_noisy_max3_unshrunk_pilots_choose_a_weak_pair_on_seed_5() -> None:
    # the behaviour the shrinkage fixes (the same pilots' runs, only the score differs; each
    # pair on its own runs, as the binned pilots were then)
    s = _search("ReportNoisyMax3", 5, 2_000_000, pilot_shrink=None, pool_pilots=False)
    assert tuple(s.d0) + tuple(s.d1) not in STRONG
