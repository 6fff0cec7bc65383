"""The scale ladder (issue 30): wide classes (10^3 ... 10^6 points, 2 ... 10^4 hypotheses) run
against a time budget.  For every rung and dimension: a verified result (exact, or proven bounds
when the budget ran out) within b + 1 s + 10% b; on the command line exit 0 with verified JSON,
never a traceback, a hang or a signal.  The budget overshoot over a larger corpus is measured by
``benchmarks/bench_budgets.py`` (results in ``benchmarks/results/budgets.md``).

The small rungs run in the default suite; the large ones (``slow``, ~30 s on 2 cores) in CI.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ltheory import HypothesisClass, save_class, verify
from ltheory.dimensions import DIMENSIONS

ROOT = Path(__file__).resolve().parent.parent

#: Slack for a loaded machine on top of the contract b + 1 s + 10% b (the measured worst
#: overshoot is in benchmarks/results/budgets.md).
LOAD_SLACK = 0.5


def wide(m: int, n: int, seed: int = 0) -> HypothesisClass:
    rng = np.random.default_rng(seed)
    return HypothesisClass.from_matrix(rng.integers(0, 2, size=(m, n), dtype=np.uint8))


def _within_contract(H: HypothesisClass, budget: float) -> dict[str, object]:
    out = {}
    for key, dim in DIMENSIONS.items():
        t = time.perf_counter()
        r = dim.compute(H, budget=budget)
        secs = time.perf_counter() - t
        verify(H, r)
        assert r.lower <= r.upper
        assert secs <= budget + 1 + 0.1 * budget + LOAD_SLACK, (key, secs)
        out[key] = r
    return out


@pytest.mark.parametrize("m, n", [(2, 10**3), (16, 10**3), (100, 10**3), (1000, 10**3),
                                  (2, 10**5)])
def test_small_rungs_hold_their_budget(m: int, n: int) -> None:
    res = _within_contract(wide(m, n), budget=0.5)
    if m <= 16:  # few hypotheses: VC and Ldim exact whatever the width (T only for m = 2)
        assert res["vc"].exact and res["ldim"].exact and (m > 2 or res["tdim"].exact)


@pytest.mark.slow
@pytest.mark.parametrize("m, n", [(2, 10**6), (16, 10**6), (100, 10**5), (1000, 10**4),
                                  (10**4, 10**3)])
def test_large_rungs_hold_their_budget(m: int, n: int) -> None:
    res = _within_contract(wide(m, n), budget=1.0)
    if m <= 16:
        assert res["vc"].exact and res["ldim"].exact and (m > 2 or res["tdim"].exact)


@pytest.mark.slow
@pytest.mark.parametrize("m, n", [(2, 10**6), (1000, 10**4)])
def test_command_line_on_wide_class_files(m: int, n: int, tmp_path: Path) -> None:
    """The CLI on a class file of the rung: exit 0, one JSON document whose witnesses verify,
    within the budget of each dimension plus start-up; no traceback, hang or signal."""
    H = wide(m, n)
    path = tmp_path / f"wide_{m}_{n}.json"
    save_class(H, path)
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "ltheory.cli", "dims", str(path), "--budget",
                          "1", "--json"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    secs = time.perf_counter() - t
    assert res.returncode == 0, res.stderr[-500:]
    assert "Traceback" not in res.stderr
    doc = json.loads(res.stdout)
    assert doc["class"]["domain_size"] == n
    for key in DIMENSIONS:
        assert doc[key]["verified"]
    assert secs <= 3 * (1 + 1 + 0.1) + 15  # three budgets, loading and start-up
