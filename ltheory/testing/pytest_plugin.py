"""pytest plugin: privacy tests of mechanisms as ordinary, flake-free pytest tests.

Registered through the ``pytest11`` entry point ``ltheory.testing.pytest_plugin`` when ltheory
is installed (or load it by hand: ``pytest -p ltheory.testing.pytest_plugin``).  It offers

* fixtures ``assert_private`` and ``assert_private_search``: ``ltheory.testing``'s functions with
  the seed fixed per test (derived from the test's node id and ``--ltheory-seed``, so every run
  of the suite draws the same runs) and ``max_runs`` scaled by ``--ltheory-runs``;
* a marker ``@pytest.mark.ltheory_privacy(max_runs=…, false_alarm=…, seed=…, method=…,
  claim=…, arithmetic=…)`` that sets those defaults for one test (explicit arguments of the
  call still win; ``arithmetic="real"`` tests the real-arithmetic mechanism, without the
  floating-point events;
  the marker's ``claim`` — any claim ``assert_private(claim=...)`` accepts, e.g.
  ``ZCDP(0.5)`` or ``(1.0, 1e-5)`` — is used when the call gives neither ``epsilon`` nor
  ``claim=``);
* ``--ltheory-runs N`` (every test's budget becomes N runs; ``1e5`` is accepted) or
  ``--ltheory-runs 10x`` / ``0.1x`` (every budget is scaled), so CI can run short and a nightly
  job long.  ``N`` replaces every budget; a factor scales the default budget and the marker's
  ``max_runs``, but not a ``max_runs=`` passed in the call itself (a budget sized by hand, e.g.
  a negative control's, is left alone; a pytest ``-W error::...BudgetWarning`` run catches
  budgets too small to mean much).  A budget below the
  fewest runs that could ever refute the claim is raised to that minimum, with a
  ``BudgetWarning`` (and a note in the report);
* ``--ltheory-seed S`` to change every derived seed at once (e.g. a nightly job on new runs).
  The same seed draws the same runs, hence the same verdict and run counts, for mechanisms that
  draw from the ``rng`` they are given; a mechanism with ``reproducible = False`` (the OpenDP
  adapters: OpenDP samples from OS randomness) cannot be replayed, and its report says so;
* the verdict, certified bound, runs used, seed and time of every privacy test in the test's
  report: a section "ltheory privacy" (shown with a failure, or for passing tests with
  ``-rP``), ``user_properties`` (hence JUnit XML), and a summary table at the end of the run.
"""

from __future__ import annotations

import inspect
import json
import warnings
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ltheory.testing.report import PrivacySearchReport, PrivacyTestReport

MARKER = "ltheory_privacy"
PROPERTY = "ltheory_privacy"
_SETTINGS = ("max_runs", "false_alarm", "seed", "method", "claim", "arithmetic")
_SCALE = pytest.StashKey[tuple]()
#: the most runs one test takes (``ltheory.testing.assertions.MAX_RUNS``; repeated here so the
#: plugin imports nothing heavy at start-up — a test checks the two agree)
MAX_RUNS = 10**11
_METHODS = ("betting", "spending")
_ARITHMETIC = ("float", "real")


def parse_runs(value: str | None) -> tuple[str, float] | None:
    """``"50000"`` / ``"1e5"`` → ("set", 50000.0); ``"10x"`` / ``"0.1x"`` → ("scale", 10.0)."""
    if value is None:
        return None
    v = str(value).strip().lower()
    try:
        if v.endswith("x"):
            f = float(v[:-1])
            if not f > 0 or f != f or f == float("inf"):
                raise ValueError
            if f > MAX_RUNS / 2:
                raise pytest.UsageError(f"--ltheory-runs {value}: a factor above "
                                        f"{MAX_RUNS / 2:.0e} takes every budget past the "
                                        f"{MAX_RUNS:.0e} runs one test may take")
            return ("scale", f)
        f = float(v.replace("_", ""))          # 50000, 1_000, 1e5, 2.5e6
        if not f.is_integer() or f < 2:
            raise ValueError
        if f > MAX_RUNS:
            raise pytest.UsageError(f"--ltheory-runs {value}: at most {MAX_RUNS:.0e} runs per "
                                    f"test")
        return ("set", f)
    except (ValueError, OverflowError):
        raise pytest.UsageError(f"--ltheory-runs expects a whole number of runs (e.g. 50000, "
                                f"1e5) or a factor (e.g. 10x, 0.1x), got {value!r}") from None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ltheory", "ltheory privacy tests")
    group.addoption("--ltheory-runs", default=None, metavar="N|Fx",
                    help="budget of every ltheory privacy test: N runs (50000, 1e5), or a "
                         "factor of the default and marker budgets (10x for a nightly job, "
                         "0.1x for a quick one; max_runs= given in a call is not scaled)")
    group.addoption("--ltheory-seed", type=int, default=0, metavar="S",
                    help="base of the per-test seeds (default 0; the seeds are fixed per test)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(max_runs=None, false_alarm=None, seed=None, method=None, claim=None): "
        "defaults of the assert_private / assert_private_search fixtures for this test "
        "(ltheory; claim= is used when the call gives neither epsilon nor claim=)")
    config.stash[_SCALE] = (parse_runs(config.getoption("--ltheory-runs")),)
    config.pluginmanager.register(_Summary(), "ltheory-privacy-summary")


def marker_problem(args: tuple, kwargs: dict) -> str | None:
    """What is wrong with a marker's arguments (None: nothing), checked without importing the
    library: keyword arguments only, known settings, ``max_runs`` a whole number in
    [2, MAX_RUNS], ``false_alarm`` in (0, 1), ``seed`` an integer >= 0, ``method`` and
    ``arithmetic`` one of their values.  ``claim`` is checked by the call itself."""
    if args:
        return f"takes keyword arguments only ({', '.join(_SETTINGS)})"
    bad = set(kwargs) - set(_SETTINGS)
    if bad:
        return f"unknown setting(s) {sorted(bad)}; accepted: {', '.join(_SETTINGS)}"
    r = kwargs.get("max_runs")
    if r is not None:
        whole = (isinstance(r, int) and not isinstance(r, bool)) or \
            (isinstance(r, float) and r == r and abs(r) != float("inf") and r.is_integer())
        if not whole or not 2 <= r <= MAX_RUNS:
            return f"max_runs must be a whole number of runs in [2, {MAX_RUNS:.0e}], got {r!r}"
    fa = kwargs.get("false_alarm")
    if fa is not None and (isinstance(fa, bool) or not isinstance(fa, int | float)
                           or not 0 < fa < 1):
        return f"false_alarm must be a number in (0, 1), got {fa!r}"
    sd = kwargs.get("seed")
    if sd is not None and (isinstance(sd, bool) or not isinstance(sd, int) or sd < 0):
        return f"seed must be an integer >= 0, got {sd!r}"
    for name, allowed in (("method", _METHODS), ("arithmetic", _ARITHMETIC)):
        v = kwargs.get(name)
        if v is not None and v not in allowed:
            return f"{name} must be one of {', '.join(map(repr, allowed))}, got {v!r}"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every ``ltheory_privacy`` marker checked once, at collection: a bad one stops the run
    with one line per test saying what is wrong (not a failure deep inside the test)."""
    problems = []
    for item in items:
        marker = item.get_closest_marker(MARKER)
        if marker is not None:
            text = marker_problem(marker.args, marker.kwargs)
            if text:
                problems.append(f"{item.nodeid}: @pytest.mark.{MARKER}: {text}")
    if problems:
        raise pytest.UsageError("\n".join(problems))


def _settings(node: pytest.Item) -> dict:
    marker = node.get_closest_marker(MARKER)
    if marker is None:
        return {}
    text = marker_problem(marker.args, marker.kwargs)
    if text:
        raise pytest.UsageError(f"@pytest.mark.{MARKER}: {text}")
    return dict(marker.kwargs)


class _Runner:
    """What the fixtures return: the ltheory function with this test's seed and budget.
    (ltheory.testing — numpy, scipy — is imported here, when a test asks for a fixture, so the
    plugin costs nothing to test suites that do not use it.)"""

    def __init__(self, request: pytest.FixtureRequest, name: str, kind: str) -> None:
        from ltheory import testing

        self.api = testing
        self.node = request.node
        self.config = request.config
        self.fn: Callable = getattr(testing, name)
        self.kind = kind
        self.calls = 0

    def _seed(self) -> int:
        base = self.config.getoption("--ltheory-seed")
        key = f"{base}:{self.node.nodeid}:{self.kind}:{self.calls}"
        return zlib.crc32(key.encode("utf-8"))

    def _budget(self, max_runs: Any, epsilon: Any, delta: Any, false_alarm: Any,
                notes: list[str], claim: Any = None) -> Any:
        (scale,) = self.config.stash[_SCALE]
        if scale is None:
            return max_runs
        mode, v = scale
        runs = int(v) if mode == "set" else int(round(int(max_runs) * v))
        if runs > MAX_RUNS:
            text = (f"--ltheory-runs {v:g}x gave {runs:,} runs, lowered to {MAX_RUNS:,}, the most "
                    f"one test takes")
            notes.append(text)
            warnings.warn(text, self.api.BudgetWarning, stacklevel=3)
            runs = MAX_RUNS
        try:
            floor = self.api.min_runs_to_reject(
                None if epsilon is None else float(epsilon), float(delta),
                float(false_alarm), claim=claim)
        except (TypeError, ValueError):
            return runs                     # bad claim: assert_private reports it
        if self.kind == "search":
            floor *= 2                      # a few pairs: each tested at a smaller level
        if floor > MAX_RUNS:
            return runs                     # no budget could: assert_private says so
        if runs < floor:
            text = (f"--ltheory-runs gave {runs:,} runs, raised to {floor:,}, the fewest that "
                    "could refute the claim")
            notes.append(text)
            warnings.warn(text, self.api.BudgetWarning, stacklevel=3)
            runs = floor
        return runs

    def _claimed(self, args: tuple, kwargs: dict) -> bool:
        """Whether the call itself gives a claim (epsilon, positional or by name, or claim=)."""
        try:
            bound = inspect.signature(self.fn).bind_partial(*args, **kwargs).arguments
        except TypeError:
            return True                     # a wrong call: the function itself says what
        return bound.get("epsilon") is not None or bound.get("claim") is not None

    def __call__(self, *args: Any, **kwargs: Any) -> PrivacyTestReport | PrivacySearchReport:
        __tracebackhide__ = True    # pytest shows the message and the test's line
        settings = _settings(self.node)
        if "claim" in settings and self._claimed(args, kwargs):
            del settings["claim"]           # the call states its own claim: it wins
        params = {**settings, **kwargs}
        own_budget = "max_runs" in kwargs     # the call's own max_runs: not scaled by Fx
        params.setdefault("max_runs", self.api.DEFAULT_MAX_RUNS)
        params.setdefault("false_alarm", 1e-6)
        if "seed" not in params:
            params["seed"] = self._seed()
        self.calls += 1
        try:
            bound = inspect.signature(self.fn).bind_partial(*args, **params).arguments
        except TypeError:
            bound = {}                      # a wrong call: the function itself says what
        eps, delta = bound.get("epsilon"), bound.get("delta", 0.0)
        claim = bound.get("claim")
        notes: list[str] = []
        scale = self.config.stash[_SCALE][0]
        if not (own_budget and scale is not None and scale[0] == "scale"):
            params["max_runs"] = self._budget(params["max_runs"], eps, delta,
                                              params["false_alarm"], notes, claim)
        try:
            rep = self.fn(*args, **params)
        except self.api.PrivacyViolation as v:
            _record(self.node, v.report, notes)
            raise
        _record(self.node, rep, notes)
        return rep


def _record(node: pytest.Item, rep: PrivacyTestReport | PrivacySearchReport,
            notes: list[str]) -> None:
    search = hasattr(rep, "pairs_tried")
    one = rep.worst if search else rep
    # what the reader of the run's summary must know: runs that a seed cannot replay
    notes = notes + [n for n in one.notes if "reproducible = False" in n]
    row = {"test": node.nodeid, "mechanism": one.mechanism, "verdict": rep.verdict,
           "epsilon": one.claimed_epsilon, "delta": one.claimed_delta, "claim": one.claim,
           "refuted_at": one.refuted_at,
           "false_alarm": rep.false_alarm,
           "epsilon_lower_bound": one.epsilon_lower_bound, "runs_used": rep.runs_used,
           "runs_to_decision": one.runs_to_decision, "seed": one.seed,
           "seconds": round(rep.seconds, 3), "summary": rep.summary(), "notes": notes}
    if search:
        row["pairs_tried"] = rep.pairs_tried
    node.user_properties.append((PROPERTY, json.dumps(row, ensure_ascii=False)))


@pytest.fixture
def assert_private(request: pytest.FixtureRequest) -> _Runner:
    """``ltheory.testing.assert_private`` with this test's fixed seed and budget (plugin
    docstring).  Call it as ``assert_private(mechanism, d0, d1, epsilon, delta=0.0, **kw)``
    or ``assert_private(mechanism, d0, d1, claim=ZCDP(0.5), **kw)``."""
    return _Runner(request, "assert_private", "pair")


@pytest.fixture(name="assert_private_search")
def assert_private_search_fixture(request: pytest.FixtureRequest) -> _Runner:
    """``ltheory.testing.assert_private_search`` with this test's fixed seed and budget."""
    return _Runner(request, "assert_private_search", "search")


def _rows(report: pytest.TestReport) -> list[dict]:
    return [json.loads(v) for k, v in report.user_properties if k == PROPERTY]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    outcome = yield
    rep = outcome.get_result()
    if call.when != "call":
        return
    rows = _rows(rep)
    if rows:
        text = "\n".join(r["summary"] + "".join(f"\n  note: {n}" for n in r["notes"])
                         + f"\n  seed {r['seed']}" for r in rows)
        rep.sections.append(("ltheory privacy", text))


class _Summary:
    """Collects the privacy rows of every test report (also from xdist workers, whose
    ``user_properties`` travel with their reports) and prints them at the end."""

    def __init__(self) -> None:
        self.rows: list[dict] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.rows.extend(_rows(report))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.rows:
            return
        tr = terminalreporter
        tr.write_sep("=", "ltheory privacy tests")
        for r in self.rows:
            b = r["epsilon_lower_bound"]
            bound = f"eps > {b:.4g}" if b is not None else "-"
            at = r.get("refuted_at") or {}
            if b is None and at.get("certified_delta") is not None:
                bound = f"δ({at['epsilon']:.3g}) > {at['certified_delta']:.3g}"
            tr.write_line(f"{r['verdict'].upper():9} {bound:>14}  {r['runs_used']:>12,} runs  "
                          f"{r['seconds']:7.2f} s  seed {r['seed']}  {r['test']}")
