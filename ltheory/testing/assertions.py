"""``assert_private``: an anytime-valid, flake-free statistical test of a DP claim for CI.

A test of a privacy claim can fail in two ways: it misses a real violation (not enough runs), or
it *flakes* — rejects a correct mechanism by chance.  ``assert_private`` bounds the second
probability by ``false_alarm`` (default 10^-6) over the whole test, however many times it looks
at the data and whenever it stops (``ltheory.testing.sequential``: a betting e-process, Ville's
inequality), and spends runs only until a violation is certified or ``max_runs`` is reached.
"""

from __future__ import annotations

import math
import time
import warnings
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.jsonable import to_jsonable
from ltheory.privacy.auditing.executors import chunk_runs, resolve_executor
from ltheory.privacy.auditing.floating import check_arithmetic
from ltheory.privacy.auditing.neighbours import check_neighbours
from ltheory.privacy.claims import PrivacyClaim, as_claim
from ltheory.testing.budget import BudgetWarning, budget_warning, runs_per_dataset
from ltheory.testing.claim_points import claim_label, claim_points, resolve_claim
from ltheory.testing.engine import FIRST_BATCH, MAX_BATCH, METHODS, SequentialTest
from ltheory.testing.pairs import search_pairs
from ltheory.testing.report import PrivacySearchReport, PrivacyTestReport, PrivacyViolation
from ltheory.testing.sequential import min_hits_to_reject

DEFAULT_MAX_RUNS = 200_000
"""The default budget of a privacy test: 200 000 runs in all (100 000 per dataset), well under a
second for a vectorised mechanism; raise it (or use ``--ltheory-runs``) for nightly jobs."""
MAX_RUNS = 10**11


def check_claim(epsilon: Any, delta: Any, false_alarm: Any) -> tuple[float, float, float]:
    """(ε, δ, false_alarm) as floats, or ``InvalidInputError`` saying what is accepted."""
    try:
        eps, dl, fa = float(epsilon), float(delta), float(false_alarm)
    except (TypeError, ValueError):
        raise InvalidInputError("epsilon, delta and false_alarm must be numbers, got "
                                f"{epsilon!r}, {delta!r}, {false_alarm!r}") from None
    if not math.isfinite(eps) or eps <= 0:
        raise InvalidInputError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    if not (0.0 <= dl < 1.0):
        raise InvalidInputError(f"delta must be in [0, 1), got {delta!r}")
    if not (0.0 < fa < 1.0):
        raise InvalidInputError(f"false_alarm must be in (0, 1), got {false_alarm!r}")
    return eps, dl, fa


def resolve(epsilon: Any, delta: Any, claim: Any, false_alarm: Any, method: Any, who: str
            ) -> tuple[PrivacyClaim, list[tuple[float, float]], float, float, float]:
    """(claim, points checked, ε and δ of the first point, false_alarm) from a call's
    ``epsilon``/``delta`` or ``claim=`` (exactly one of the two; ``claim_points``)."""
    cl = resolve_claim(epsilon, delta, claim, who)
    if cl is None:
        eps, dl, fa = check_claim(epsilon, delta, false_alarm)
        return as_claim((eps, dl)), [(eps, dl)], eps, dl, fa
    points = claim_points(cl)
    if len(points) == 1 and points[0][0] > 0:
        eps, dl, fa = check_claim(*points[0], false_alarm)
        return cl, [(eps, dl)], eps, dl, fa
    fa = check_claim(1.0, 0.0, false_alarm)[2]
    if method == "spending":
        raise InvalidInputError(f"method='spending' tests an (epsilon, delta) claim; the claim "
                                f"{claim_label(cl)} is checked at {len(points)} points of its "
                                "curve, which needs method='betting'")
    return cl, points, points[0][0], points[0][1], fa


def _usable(per: int) -> int:
    """Runs per dataset left for testing after the first (selection) batch."""
    return per - max(1, min(FIRST_BATCH, per // 4))


def _min_hits(epsilon: float | None, delta: float, false_alarm: float,
              points: list[tuple[float, float]] | None) -> int:
    """``min_hits_to_reject`` of the claim; for several points the fewest over them (the
    average of the points' e-values reaches 1/α only if one of them does)."""
    if points and len(points) > 1:
        return min(min_hits_to_reject(e, d, false_alarm) for e, d in points)
    if points:
        epsilon, delta = points[0]
    return min_hits_to_reject(float(epsilon), delta, false_alarm)


def min_runs_to_reject(epsilon: float | None = None, delta: float = 0.0,
                       false_alarm: float = 1e-6, *, claim: Any = None) -> int | float:
    """The fewest runs (both datasets) with which ``assert_private`` could ever refute the
    claim (``epsilon``, ``delta``, or ``claim=`` as in ``assert_private``): the selection batch
    plus enough pairs that all fall in an event impossible under the other dataset
    (``min_hits_to_reject``); ``math.inf`` when that is more than 2^63 runs (ε above about 40
    at false_alarm = 1e-6: refuting ε takes about e^ε runs)."""
    cl = resolve_claim(epsilon, delta, claim, "min_runs_to_reject")
    points = claim_points(cl) if cl is not None else None
    if cl is None:        # a point (ε, δ) of a curve may have ε = 0: checked as ε = 1 would be
        _, delta, false_alarm = check_claim(1.0, delta, false_alarm)
        e = float(epsilon) if isinstance(epsilon, int | float) and \
            not isinstance(epsilon, bool) else math.nan
        if not (0 <= e < math.inf):
            raise InvalidInputError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
        epsilon = e
    else:
        false_alarm = check_claim(1.0, 0.0, false_alarm)[2]
    hits = _min_hits(epsilon, delta, false_alarm, points)
    if hits > 1 << 62:
        return math.inf
    return 2 * runs_per_dataset(hits)


def check_budget(max_runs: Any, epsilon: float, delta: float, false_alarm: float,
                 points: list[tuple[float, float]] | None = None) -> int:
    """``max_runs`` as an int, or ``InvalidInputError`` when no outcome of so few runs could
    refute the claim; a ``BudgetWarning`` when it could, but is not expected to detect even a
    violation of twice the claim (``ltheory.testing.budget``; one-point claims only: the
    yardstick is a Laplace mechanism at twice an (ε, δ) claim's ε)."""
    if isinstance(max_runs, float) and max_runs.is_integer():
        max_runs = int(max_runs)            # 1e5
    if isinstance(max_runs, bool) or not isinstance(max_runs, int | np.integer) or max_runs < 2:
        raise InvalidInputError(f"max_runs must be an integer >= 2, got {max_runs!r}")
    if max_runs > MAX_RUNS:
        raise InvalidInputError(f"max_runs={max_runs} is more than one test takes "
                                f"({MAX_RUNS:.0e})")
    hits = _min_hits(epsilon, delta, false_alarm, points)
    if _usable(MAX_RUNS // 2) < hits:
        what = (f"epsilon={epsilon:g}" if not points or len(points) == 1 else
                f"the claim at any of its {len(points)} points")
        raise InvalidInputError(f"no test of at most {MAX_RUNS:.0e} runs could refute {what} at "
                                f"false_alarm={false_alarm:g} (refuting ε needs about e^ε runs): "
                                f"the claim is too weak to test")
    if _usable(int(max_runs) // 2) < hits:
        need = 2 * runs_per_dataset(hits)
        what = (f"epsilon={epsilon:g}" if not points or len(points) == 1 else
                f"the claim at any of its {len(points)} points")
        raise InvalidInputError(f"max_runs={max_runs} is too few: no outcome of so few runs "
                                f"could refute {what} at false_alarm="
                                f"{false_alarm:g}, so the test could never fail; use at least "
                                f"{need} runs")
    if points and (len(points) > 1 or points[0][0] <= 0):
        return int(max_runs)
    text = budget_warning(int(max_runs), epsilon, delta, false_alarm)
    if text:
        warnings.warn(text, BudgetWarning, stacklevel=3)
    return int(max_runs)


def check_seed(seed: Any) -> tuple[np.random.SeedSequence, int | None]:
    if seed is None:
        ss = np.random.SeedSequence()
        return ss, int(ss.entropy)  # type: ignore[arg-type]
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InvalidInputError(f"seed must be a non-negative integer or None, got {seed!r}")
    return np.random.SeedSequence(int(seed)), int(seed)


def check_mechanism(mechanism: Any) -> None:
    if not (callable(mechanism) or hasattr(mechanism, "sample") or hasattr(mechanism, "fit")):
        raise InvalidInputError("mechanism must be callable as mechanism(dataset, rng), offer "
                                "mechanism.sample(dataset, n, rng), or be a learner with "
                                ".fit(dataset, rng)")


def check_method(method: Any) -> str:
    if method not in METHODS:
        raise InvalidInputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    return str(method)


def executor_for(executor: Any, mechanism: Any, runs: int) -> tuple[Any, bool, str]:
    """As ``audit``'s executors, except that by default (None) a test runs serially unless the
    mechanism declares chunks smaller than a batch (``audit_chunk_runs``, slow learners): a
    batch of at most ``MAX_BATCH`` runs of a fast mechanism is one chunk, and a process pool
    would only add overhead."""
    if executor is None and chunk_runs(mechanism) >= MAX_BATCH:
        executor = "serial"
    return resolve_executor(executor, mechanism, runs)


#: In a search, no pair runs ahead of the least-run live pair by more than this factor.
AHEAD = 4


def _next(tests: list[SequentialTest]) -> int | None:
    """The pair to step next: among live pairs not more than ``AHEAD`` times ahead of the
    least-run one, first those not yet started, then those whose current event beat the claim
    on its selection runs (``promising``), fewest runs first.  Any such rule keeps every pair's
    test valid (each is anytime-valid, whatever runs it is given); this one spends the runs
    where a violation is most likely to show."""
    live = [i for i, t in enumerate(tests) if not t.finished]
    if not live:
        return None
    floor = min(tests[i].used for i in live)
    ok = [i for i in live if tests[i].used <= AHEAD * max(floor, 1)]

    def key(i: int) -> tuple:
        t = tests[i]
        return (t.cand is not None, not t.promising(), t.used, i)

    return min(ok, key=key)


def run_tests(tests: list[SequentialTest]) -> int | None:
    """Step the tests (``_next``) until one finds a violation (its index) or all finish."""
    __tracebackhide__ = True
    while (i := _next(tests)) is not None:
        tests[i].step()
        if tests[i].verdict == "violation":
            return i
    return None


def assert_private(mechanism: Any, d0: Any, d1: Any, epsilon: float | None = None,
                   delta: float = 0.0, *, claim: Any = None,
                   false_alarm: float = 1e-6, max_runs: int = DEFAULT_MAX_RUNS,
                   seed: int | None = 0, method: str = "betting", executor: Any = None,
                   verify_neighbours: bool = True, arithmetic: str = "float"
                   ) -> PrivacyTestReport:
    """Test the claim that ``mechanism`` is (epsilon, delta)-DP at the neighbouring pair
    (d0, d1), or satisfies ``claim``: raise if it is refuted, else return the report.

    The probability of raising for a mechanism that satisfies the claim is at most
    ``false_alarm``, whatever the mechanism and however early the test stops: runs are drawn in
    growing batches, each tested on an event chosen from earlier runs, and the evidence is a
    betting e-process checked after every run (`ltheory.testing.sequential`;
    ``method="spending"`` uses Clopper–Pearson bounds with alpha spending instead, kept as the
    baseline).  The test stops as soon as the claim is refuted, or after ``max_runs`` runs.

    An (ε, δ) claim is tested at that point; a curve claim on the whole curve: a fixed cover
    (ε = 0, the ε where its δ(ε) is 0.5, 0.3, 0.2, 10⁻¹ … 10⁻⁶, and its quoted ε) and one
    point moved, on past runs only, to the ε where the gap looks largest; each has its own
    e-process, and the test rejects when their weighted average (half to the data-chosen
    point) reaches 1/false_alarm, so the guarantee holds for the whole curve.

    Args:
        mechanism: A callable ``mechanism(dataset, rng)`` drawing its randomness from ``rng``
            and returning a number, a numpy array or a hashable value (lists and dicts are
            refused), optionally with ``.sample(dataset, n, rng)``: the
            [mechanism contract][ltheory.privacy.mechanisms.Mechanism].  Vector mechanisms
            declare ``neighbour_relation = "query_answers"``.
        d0: One dataset of the neighbouring pair.
        d1: The other dataset.
        epsilon: The claimed ε (with ``delta``); give either this or ``claim``.
        delta: The claimed δ.
        claim: A [`PrivacyClaim`][ltheory.PrivacyClaim] ([`PureDP`][ltheory.PureDP],
            [`ApproxDP`][ltheory.ApproxDP], [`ZCDP`][ltheory.ZCDP], [`RDP`][ltheory.RDP],
            [`GDP`][ltheory.GDP], [`ProfileClaim`][ltheory.ProfileClaim], or any object with
            ``delta_at`` / ``epsilon_at`` / ``to_json``), a number ε or a pair (ε, δ).
        false_alarm: The probability of raising although the claim holds.
        max_runs: Runs of the mechanism in all, half on each dataset; the default is
            [`DEFAULT_MAX_RUNS`][ltheory.testing.DEFAULT_MAX_RUNS] = 200 000.  A budget too small
            to catch even twice the claimed ε gives a
            [`BudgetWarning`][ltheory.testing.BudgetWarning].
        seed: Fixes every run; default 0, so a CI test is deterministic.  ``None`` draws fresh
            entropy, reported back.
        method: ``"betting"`` (the e-process) or ``"spending"`` (the alpha-spending baseline).
        executor: As in [`audit`][ltheory.privacy.audit]: ``None`` (serial unless worthwhile),
            ``"process"``, or a ``concurrent.futures.Executor``.
        verify_neighbours: ``False`` skips the neighbour check, for relations ltheory cannot
            check.
        arithmetic: ``"float"`` (default) also looks for floating-point leaks on float outputs
            (events on the outputs' bits, [`floating`][ltheory.privacy.auditing.floating]; the
            failure then reads *floating-point violation* and names the fix); ``"real"`` tests
            the real-arithmetic mechanism (output values only).

    Returns:
        The [`PrivacyTestReport`][ltheory.testing.PrivacyTestReport] of a test that passed:
            ``verdict == "passed"``, the runs used, the best event and its e-value.

    Raises:
        PrivacyViolation: The claim is refuted (an ``AssertionError``, so pytest reports it as
            a failed test); its message names the pair, the event, the certified ε and, for a
            curve claim, where the curve was refuted (``refuted_at``); ``.report`` holds the
            report.
        InvalidInputError: On bad input, naming the argument and what is accepted.

    Examples:
        >>> from ltheory.testing import PrivacyViolation, assert_private
        >>> from ltheory.privacy.mechanisms import GeometricMechanism, RandomizedResponse
        >>> d0, d1 = ((0, 0),), ((0, 1),)
        >>> assert_private(GeometricMechanism(1.0), d0, d1, epsilon=1.0).verdict
        'passed'
        >>> try:
        ...     assert_private(RandomizedResponse(2.0), d0, d1, epsilon=1.0)
        ... except PrivacyViolation as exc:
        ...     print(str(exc).splitlines()[0])
        randomized_response: VIOLATION of (ε=1): certified ε > ... (false alarm ≤ 1e-06) ...
    """
    __tracebackhide__ = True    # pytest shows the message and the caller's line, not this
    meth = check_method(method)
    cl, points, eps, dl, fa = resolve(epsilon, delta, claim, false_alarm, meth,
                                      "assert_private")
    runs = check_budget(max_runs, eps, dl, fa, points)
    check_mechanism(mechanism)
    check_arithmetic(arithmetic)
    ss, seed_value = check_seed(seed)
    if verify_neighbours:
        check_neighbours(mechanism, d0, d1)
    ex, owned, note = executor_for(executor, mechanism, runs)
    try:
        t0 = time.perf_counter()
        test = SequentialTest(mechanism, d0, d1, epsilon=eps, delta=dl, alpha=fa,
                              max_runs=runs, seed=ss, seed_value=seed_value, method=meth,
                              executor=ex, claim=cl, points=points, arithmetic=arithmetic)
        if note:
            test.notes.append(note)
        run_tests([test])
        test.seconds = time.perf_counter() - t0
    finally:
        if owned:
            ex.shutdown(wait=True)
    rep = test.report()
    if rep.verdict == "violation":
        raise PrivacyViolation(rep)
    return rep


def assert_private_search(mechanism: Any, datasets: Any = None, epsilon: float | None = None,
                          delta: float = 0.0, *, claim: Any = None, neighbours: Any = "auto",
                          max_pairs: int = 16,
                          false_alarm: float = 1e-6, max_runs: int = DEFAULT_MAX_RUNS,
                          seed: int | None = 0, method: str = "betting",
                          executor: Any = None, arithmetic: str = "float"
                          ) -> PrivacySearchReport:
    """Test the claim on many neighbouring pairs; raise ``PrivacyViolation`` if it is refuted
    on any, else return the ``PrivacySearchReport``.

    ``datasets`` is a hypothesis strategy drawing ``(d0, d1)`` pairs
    (``ltheory.strategies.neighbouring_datasets``, ``neighbouring_query_answers``, or your own),
    a list of pairs ``[(d0, d1), …]`` (or ``(name, d0, d1)``), or one dataset whose neighbours
    ``neighbours=`` generates as in ``audit_search``: for a labelled dataset "auto", "flip",
    "move", "substitution", "add_remove"; for a vector of query answers
    (``neighbour_relation = "query_answers"``) "auto", "patterns", "extended", "sample"; for a
    single count or query value, "auto" (the value ± the sensitivity); or a list of pairs as
    ``neighbours=``; see ``ltheory.testing.pairs``.  At most ``max_pairs`` pairs are tried,
    each by the sequential test of ``assert_private`` at level ``false_alarm / pairs``
    (Bonferroni), so the probability of a false alarm over *all* pairs is at most
    ``false_alarm``.  The pairs are tested side by side, one batch each in turn, and the search
    stops at the first refuted pair; ``max_runs`` is the budget of each pair (default
    [`DEFAULT_MAX_RUNS`][ltheory.testing.DEFAULT_MAX_RUNS] = 200 000).  The claim is
    ``epsilon`` (and ``delta``) or ``claim=``, and ``arithmetic`` is, as in ``assert_private``.
    """
    __tracebackhide__ = True
    meth = check_method(method)
    cl, points, eps, dl, fa = resolve(epsilon, delta, claim, false_alarm, meth,
                                      "assert_private_search")
    check_mechanism(mechanism)
    check_arithmetic(arithmetic)
    ss, seed_value = check_seed(seed)
    t0 = time.perf_counter()
    pair_seed = int(ss.generate_state(1)[0])
    pairs, considered = search_pairs(mechanism, datasets, neighbours, max_pairs, pair_seed)
    a_each = fa / len(pairs)
    runs = check_budget(max_runs, eps, dl, a_each, points)
    ex, owned, note = executor_for(executor, mechanism, runs * len(pairs))
    try:
        tests = []
        for (name, a, b), s in zip(pairs, ss.spawn(len(pairs)), strict=True):
            t = SequentialTest(mechanism, a, b, epsilon=eps, delta=dl, alpha=a_each,
                               max_runs=runs, seed=s, seed_value=seed_value, method=meth,
                               executor=ex, claim=cl, points=points,
                               arithmetic=arithmetic)
            t.notes.append(f"pair {name!r}, tested at false_alarm/{len(pairs)} = {a_each:.3g}")
            tests.append(t)
        hit = run_tests(tests)
    finally:
        if owned:
            ex.shutdown(wait=True)
    reports = tuple(t.report(exact=False) for t in tests)
    if hit is None:
        worst_i = max(range(len(reports)), key=lambda i: (reports[i].log10_e_value or -math.inf,
                                                          -i))
    else:
        worst_i = hit
    worst = tests[worst_i].report()
    notes = [note] if note else []
    rep = PrivacySearchReport(
        verdict="violation" if hit is not None else "passed", claimed_epsilon=eps,
        claimed_delta=dl, claim=to_jsonable(cl.to_json()), false_alarm=fa, pairs_tried=len(pairs),
        pairs_considered=considered,
        worst=worst, pairs=reports, runs_used=sum(r.runs_used for r in reports),
        seconds=time.perf_counter() - t0, notes=tuple(notes))
    if hit is not None:
        raise PrivacyViolation(rep)
    return rep
