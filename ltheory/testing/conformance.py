"""``check_mechanism``: does an object keep the contract the auditor relies on?

Like scikit-learn's ``check_estimator``, this runs a battery of small checks on a mechanism, learner
or adapter and reports every one that fails, so that an audit of it can be trusted to audit *it*
(and not a wrapper's mistake).  The contract (the [mechanism
contract][ltheory.privacy.mechanisms.Mechanism]):

* it is readable by [`ltheory.privacy.as_target`][ltheory.privacy.as_target]:
``sample(dataset, n, rng)``,
  ``mechanism(dataset, rng)`` or ``fit(dataset, rng)``; a string ``neighbour_relation``; a finite
  ``sensitivity`` > 0; a non-empty ``name``;
* outputs are numbers, numpy arrays of one shape, or hashable values, n of them for n runs;
* runs are reproducible: the same seed gives the same outputs (unless the object declares
  ``reproducible = False``, as the OpenDP adapters do: OpenDP samples from OS randomness);
* the two datasets it is checked on are neighbours under its own relation;
* a declared ``claim`` is a valid (ε, δ): ε finite > 0, δ in [0, 1);
* ``output_distribution(d)``, where offered, is a probability distribution (non-negative, summing
  to 1) whose support contains every sampled output, and sampled frequencies agree with it: a
  chi-square goodness-of-fit test at level ``level`` (Pearson 1900), cells of small expected
  count pooled — a lying distribution (the exact ε of one table beside outputs drawn from
  another) fails here instead of silently misreporting the exact ε.

Examples:
    >>> from ltheory.privacy.mechanisms import RandomizedResponse
    >>> check_mechanism(RandomizedResponse(1.0)).passed
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ltheory.errors import LtheoryError
from ltheory.privacy.auditing.exact import goodness_of_fit
from ltheory.privacy.auditing.target import Target, as_target
from ltheory.validation import check_int, check_level, check_seed

__all__ = ["ConformanceError", "ConformanceReport", "check_mechanism"]


class ConformanceError(LtheoryError, AssertionError):
    """The object breaks the auditor's contract; the message lists every failed check."""


@dataclass(frozen=True)
class ConformanceReport:
    """The checks run (name → "ok" or what failed) on ``name``."""

    name: str
    checks: dict[str, str] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(v == "ok" for v in self.checks.values())

    @property
    def failures(self) -> dict[str, str]:
        return {k: v for k, v in self.checks.items() if v != "ok"}


def check_mechanism(obj: Any, datasets: tuple[Any, Any] | None = None, *, runs: int = 4_000,
                    seed: int = 0, level: float = 1e-6, raise_on_failure: bool = True
                    ) -> ConformanceReport:
    """Run the contract checks (see [`ltheory.testing.conformance`][ltheory.testing.conformance]) on
    ``obj`` at the pair ``datasets`` (default:
    ``obj.default_pair()``), with ``runs`` runs per dataset for the distribution check.
    Raises [`ConformanceError`][ltheory.testing.ConformanceError] listing every failure (or, with
    ``raise_on_failure=False``, returns the report)."""
    runs = check_int(runs, "runs", minimum=10)
    seed = check_seed(seed, allow_none=False)
    level = check_level(level, "level")
    checks: dict[str, str] = {}
    try:
        target = as_target(obj)
    except LtheoryError as exc:
        return _finish(ConformanceReport(type(obj).__name__, {"target": str(exc)}),
                       raise_on_failure)
    checks["target"] = "ok"
    pair = _pair(obj, datasets, checks)
    if pair is not None:
        d0, d1 = pair
        _run(checks, "neighbours", lambda: _neighbours(target, d0, d1))
        _run(checks, "outputs", lambda: _outputs(target, d0, seed))
        if getattr(obj, "reproducible", True) is False:     # declared (OpenDP: OS randomness)
            checks["reproducible"] = "ok"
        else:
            _run(checks, "reproducible", lambda: _reproducible(target, d0, seed))
        if target.has_distribution:
            for tag, d in (("d0", d0), ("d1", d1)):
                _run(checks, f"output_distribution({tag})",
                     lambda d=d: _distribution(target, d, runs, seed, level))
    _run(checks, "claim", lambda: _claim(obj))
    return _finish(ConformanceReport(target.name, checks), raise_on_failure)


def _finish(rep: ConformanceReport, raise_on_failure: bool) -> ConformanceReport:
    if raise_on_failure and not rep.passed:
        lines = "\n".join(f"  {k}: {v}" for k, v in rep.failures.items())
        raise ConformanceError(f"{rep.name} breaks the auditor's contract:\n{lines}")
    return rep


def _run(checks: dict[str, str], name: str, fn: Callable[[], None]) -> None:
    try:
        fn()
        checks[name] = "ok"
    except Exception as exc:  # noqa: BLE001 - every failure is reported, none stops the rest
        checks[name] = f"{type(exc).__name__}: {exc}" if not isinstance(exc, AssertionError) \
            else str(exc)


def _pair(obj: Any, datasets: Any, checks: dict[str, str]) -> tuple[Any, Any] | None:
    if datasets is None:
        if not callable(getattr(obj, "default_pair", None)):
            checks["datasets"] = ("no datasets given and no default_pair(): pass "
                                  "datasets=(d0, d1), two neighbouring datasets")
            return None
        datasets = obj.default_pair()
    try:
        d0, d1 = datasets
    except (TypeError, ValueError):
        checks["datasets"] = "datasets must be a pair (d0, d1) of neighbouring datasets"
        return None
    checks["datasets"] = "ok"
    return d0, d1


def _neighbours(target: Target, d0: Any, d1: Any) -> None:
    assert target.are_neighbours(d0, d1), (
        f"the datasets are not neighbours under the relation {target.relation!r} "
        f"({target.relation_rule()})")


def _outputs(target: Target, d0: Any, seed: int) -> None:
    for n in (1, 7):
        b = target.draw(d0, n, np.random.default_rng(seed))
        assert len(b) == n, f"{n} runs gave {len(b)} outputs"


def _reproducible(target: Target, d0: Any, seed: int) -> None:
    a = target.draw(d0, 50, np.random.default_rng(seed))
    b = target.draw(d0, 50, np.random.default_rng(seed))
    same = np.array_equal(a, b) if isinstance(a, np.ndarray) else list(a) == list(b)
    assert same, "two draws from the same seed differ: runs must depend only on the rng passed"


def _distribution(target: Target, d: Any, runs: int, seed: int, level: float) -> None:
    dist = target.output_distribution(d)
    if dist is None:
        return
    p = np.array([float(v) for v in dist.values()])
    assert np.all(p >= -1e-12), "negative probabilities"
    assert abs(p.sum() - 1.0) < 1e-6, f"probabilities sum to {p.sum():.9g}, not 1"
    fit = goodness_of_fit(target.draw(d, runs, np.random.default_rng(seed + 1)), dist)
    assert not fit.outside, (f"{fit.outside} of {runs} sampled outputs lie outside the support "
                             "of output_distribution")
    assert fit.p_value >= level, (f"sampled outputs disagree with output_distribution "
                                  f"(chi-square {fit.statistic:.1f} on {fit.dof} df, p = "
                                  f"{fit.p_value:.2g} < {level:g})")


def _claim(obj: Any) -> None:
    c = getattr(obj, "claim", None)
    if c is None or callable(c):
        return
    eps, delta = c
    assert math.isfinite(float(eps)) and float(eps) > 0, f"claimed epsilon {eps!r} is not > 0"
    assert 0 <= float(delta) < 1, f"claimed delta {delta!r} is not in [0, 1)"
