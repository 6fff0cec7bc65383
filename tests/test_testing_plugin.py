"""The pytest plugin, run on generated test files with pytest's ``pytester``."""

from __future__ import annotations

import re

import pytest

from ltheory.testing.pytest_plugin import MAX_RUNS, marker_problem, parse_runs

pytest_plugins = ["pytester"]

# (this module imports the plugin, so the inner runs cannot assert-rewrite it: say so quietly)
PLUGIN = ("-p", "ltheory.testing.pytest_plugin",
          "-W", "ignore::pytest.PytestAssertRewriteWarning")

TESTS = '''
import pytest
from ltheory.privacy.mechanisms import RandomizedResponse

D0, D1 = ((0, 0),), ((0, 1),)


def test_correct(assert_private):
    r = assert_private(RandomizedResponse(1.0), D0, D1, epsilon=1.0, max_runs=20_000)
    assert r.passed


def test_blatant(assert_private):
    assert_private(RandomizedResponse(1.0), D0, D1, epsilon=0.5)


@pytest.mark.ltheory_privacy(max_runs=30_000, seed=7)
def test_marked(assert_private):
    r = assert_private(RandomizedResponse(1.0), D0, D1, 1.0)
    assert r.runs_used == 30_000 and r.seed == 7
'''


def _summary(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    i = next(i for i, ln in enumerate(lines) if "ltheory privacy tests" in ln)
    return [ln for ln in lines[i + 1:] if re.match(r"^(PASSED|VIOLATION)", ln)]


def test_plugin_reports_bound_runs_and_seed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mech=TESTS)
    result = pytester.runpytest(*PLUGIN, "-rP", "--junitxml=out.xml")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "PrivacyViolation" in out and "certified ε >" in out       # the failure's message
    assert "ltheory privacy" in out and "seed " in out                  # the report section
    rows = _summary(result)
    assert len(rows) == 3
    blatant = next(r for r in rows if r.endswith("test_blatant"))
    assert blatant.startswith("VIOLATION")
    bound = float(re.search(r"eps > ([\d.]+)", blatant).group(1))
    assert 0.5 < bound <= 1.0                      # the certified bound, not the claim 0.5
    correct = next(r for r in rows if r.endswith("test_correct"))
    assert correct.startswith("PASSED") and "20,000 runs" in correct
    assert "30,000 runs" in next(r for r in rows if r.endswith("test_marked"))
    xml = (pytester.path / "out.xml").read_text(encoding="utf-8")
    assert 'property name="ltheory_privacy"' in xml and "runs_used" in xml


def test_fixed_seed_makes_runs_identical(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mech=TESTS)
    first = _summary(pytester.runpytest(*PLUGIN))
    second = _summary(pytester.runpytest(*PLUGIN))
    strip = [re.sub(r"\s+[\d.]+ s ", " ", r) for r in first]
    assert strip == [re.sub(r"\s+[\d.]+ s ", " ", r) for r in second]
    other = _summary(pytester.runpytest(*PLUGIN, "--ltheory-seed", "5"))
    seeds = {re.search(r"seed (\d+)", r).group(1) for r in first}
    assert seeds.isdisjoint(re.search(r"seed (\d+)", r).group(1) for r in other
                            if "test_marked" not in r)


def test_runs_option_sets_and_scales_budgets(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mech=TESTS.replace("r.runs_used == 30_000 and ", ""))
    rows = _summary(pytester.runpytest(*PLUGIN, "--ltheory-runs", "50000"))
    assert "50,000 runs" in next(r for r in rows if r.endswith("test_correct"))
    assert "50,000 runs" in next(r for r in rows if r.endswith("test_marked"))
    rows = _summary(pytester.runpytest(*PLUGIN, "--ltheory-runs", "1e5"))      # 1e5 is a number
    assert "100,000 runs" in next(r for r in rows if r.endswith("test_correct"))
    rows = _summary(pytester.runpytest(*PLUGIN, "--ltheory-runs", "2x"))
    # a factor scales the marker's budget, not the max_runs=20_000 given in the call itself
    assert "20,000 runs" in next(r for r in rows if r.endswith("test_correct"))
    assert "60,000 runs" in next(r for r in rows if r.endswith("test_marked"))
    # a budget too small to ever refute the claim is raised to the minimum, and said so
    result = pytester.runpytest(*PLUGIN, "--ltheory-runs", "100", "-rP")
    result.assert_outcomes(passed=3)
    out = result.stdout.str()
    assert "gave 100 runs, raised to 142" in out and "BudgetWarning" in out


def test_bad_options_and_markers(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mech=TESTS)
    result = pytester.runpytest(*PLUGIN, "--ltheory-runs", "lots")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--ltheory-runs expects" in result.stderr.str()
    pytester.makepyfile(test_mech='''
import pytest

@pytest.mark.ltheory_privacy(runs=5)
def test_x(assert_private):
    assert_private(None, 0, 1, 1.0)
''')
    result = pytester.runpytest(*PLUGIN)
    assert "unknown setting(s) ['runs']" in result.stdout.str() + result.stderr.str()


def test_search_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_search='''
from ltheory.privacy.mechanisms import SparseVector

def test_svt6(assert_private_search):
    assert_private_search(SparseVector(1.0, variant=6), (0.0,) * 5, 1.0,
                          neighbours="patterns", max_runs=400_000)
''')
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    rows = _summary(result)
    assert rows and rows[0].startswith("VIOLATION")


@pytest.mark.parametrize("text, parsed", [("50000", ("set", 50000.0)), ("1_000", ("set", 1000.0)),
                                          ("1e5", ("set", 1e5)), ("2.5E6", ("set", 2.5e6)),
                                          ("10x", ("scale", 10.0)), ("0.1X", ("scale", 0.1)),
                                          (None, None)])
def test_parse_runs(text: str | None, parsed: tuple | None) -> None:
    assert parse_runs(text) == parsed


@pytest.mark.parametrize("text", ["0", "1", "-5x", "x", "nanx", "many", "1.5", "1e400", "infx",
                                  "1e300", "1e12", "1e11x"])
def test_parse_runs_rejects(text: str) -> None:
    with pytest.raises(pytest.UsageError):
        parse_runs(text)


def test_entry_point_loads_the_plugin_once(pytester: pytest.Pytester,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # an installed ltheory exposes pyproject's pytest11 entry point: emulate the installation
    # with a dist-info carrying exactly that entry point, then check the fixture is there
    # without -p, and that -p with the module name does not register it twice
    import os
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    eps = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    entries = eps["project"]["entry-points"]["pytest11"]
    assert entries == {"ltheory.testing.pytest_plugin": "ltheory.testing.pytest_plugin"}
    site = pytester.mkdir("site")
    dist = site / "ltheory_probe-0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ltheory-probe\n"
                                   "Version: 0.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        "[pytest11]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()), encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(root)]))
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    pytester.makepyfile(test_mech='''
from ltheory.privacy.mechanisms import RandomizedResponse

def test_rr(assert_private):
    assert assert_private(RandomizedResponse(1.0), ((0, 0),), ((0, 1),), 1.0,
                          max_runs=2_000).passed
''')
    for extra in ((), ("-p", "ltheory.testing.pytest_plugin")):
        result = pytester.runpytest_subprocess(*extra)
        result.assert_outcomes(passed=1)
        assert len(_summary(result)) == 1


def test_marker_arithmetic(pytester: pytest.Pytester) -> None:
    """``@pytest.mark.ltheory_privacy(arithmetic="real")`` tests the real-arithmetic mechanism;
    without it, the naive float Laplace is a floating-point violation (issue 38)."""
    pytester.makepyfile(test_float='''
import pytest

from ltheory.privacy.mechanisms import LaplaceMechanism


@pytest.mark.ltheory_privacy(arithmetic="real", max_runs=20_000)
def test_real(assert_private):
    assert assert_private(LaplaceMechanism(1.0), 0, 1, 1.0).passed


@pytest.mark.ltheory_privacy(max_runs=20_000)
def test_float(assert_private):
    assert_private(LaplaceMechanism(1.0), 0, 1, 1.0)
''')
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1, failed=1)
    assert "FLOATING-POINT VIOLATION" in result.stdout.str()


def test_plugin_max_runs_agrees_with_the_library() -> None:
    from ltheory.testing import assertions

    assert MAX_RUNS == assertions.MAX_RUNS


@pytest.mark.parametrize("kwargs, problem", [
    ({"max_runs": "abc"}, "max_runs must be a whole number"),
    ({"max_runs": None}, None),
    ({"max_runs": -5}, "max_runs must be a whole number"),
    ({"max_runs": 1}, "max_runs must be a whole number"),
    ({"max_runs": 2.5}, "max_runs must be a whole number"),
    ({"max_runs": float("nan")}, "max_runs must be a whole number"),
    ({"max_runs": 10**12}, "max_runs must be a whole number"),
    ({"max_runs": True}, "max_runs must be a whole number"),
    ({"max_runs": 1e5}, None),
    ({"false_alarm": 0}, "false_alarm must be"),
    ({"false_alarm": "0.1"}, "false_alarm must be"),
    ({"seed": -1}, "seed must be"),
    ({"seed": 1.5}, "seed must be"),
    ({"method": "bet"}, "method must be one of"),
    ({"arithmetic": "exact"}, "arithmetic must be one of"),
    ({"runs": 5}, "unknown setting"),
    ({"max_runs": 50_000, "false_alarm": 1e-3, "seed": 3, "method": "spending",
      "arithmetic": "real"}, None),
])
def test_marker_problem(kwargs: dict, problem: str | None) -> None:
    got = marker_problem((), kwargs)
    assert (got is None) if problem is None else (problem in got)
    assert marker_problem((1,), {}) is not None


@pytest.mark.parametrize("marker", ["max_runs='abc'", "max_runs=None, seed=-3", "max_runs=-5"])
def test_bad_marker_stops_the_run_at_collection(pytester: pytest.Pytester, marker: str) -> None:
    """One line naming the test and the setting; no test runs (max_runs=-5 used to be raised
    quietly to the minimum and pass; 'abc' with --ltheory-runs 10x failed with a ValueError)."""
    pytester.makepyfile(test_mech=f'''
import pytest
from ltheory.privacy.mechanisms import RandomizedResponse

@pytest.mark.ltheory_privacy({marker})
def test_rr(assert_private):
    assert_private(RandomizedResponse(1.0), ((0, 0),), ((0, 1),), epsilon=1.0)
''')
    for extra in ((), ("--ltheory-runs", "10x")):
        result = pytester.runpytest(*PLUGIN, *extra)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        err = result.stderr.str()
        assert "test_mech.py::test_rr: @pytest.mark.ltheory_privacy:" in err
        assert "Traceback" not in err + result.stdout.str()


def test_huge_runs_option_is_one_error_at_start_up(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mech=TESTS)
    result = pytester.runpytest(*PLUGIN, "--ltheory-runs", "1e300")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "at most 1e+11 runs per test" in err and len(err.strip().splitlines()) == 1


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    """pytest loads the plugin in every session of an environment with ltheory installed: it
    must not import numpy, scipy or the library (issue 43: +1.3 s on an unrelated suite)."""
    import subprocess
    import sys

    code = ("import sys, ltheory.testing.pytest_plugin; "
            "print(sorted(m for m in ('numpy', 'scipy', 'networkx', 'sympy', 'pysat', "
            "'ltheory.catalog', 'ltheory.core', 'ltheory.privacy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
