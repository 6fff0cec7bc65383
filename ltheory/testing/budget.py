"""Whether a run budget can detect a violation at all: the yardstick of the warning
``assert_private`` gives when ``max_runs`` is too small.

Yardstick: the Laplace mechanism on a count (sensitivity 1) with *twice* the claimed ε, i.e.
noise of scale b = 1/(2ε) (Dwork, McSherry, Nissim & Smith 2006), tested on its most telling
event, a half-line {x ≥ t}.  For the betting test of ``ltheory.testing.sequential`` with
fraction c, each pair of runs multiplies the wealth by 1 + c·Z/(u + δ), Z = X − u·Y − δ,
u = e^ε; its expected log-growth g(t, c) = E[log(1 + c·Z/(u + δ))] is computed exactly from
P[M(1) ≥ t] and P[M(0) ≥ t].  The mixture over the K fractions reaches 1/α no sooner than
log(K/α)/max g pairs are expected to take (its e-value is at least the best fraction's
wealth / K), after the selection batch.  That is a median, not a sure detection, so the
warning asks for ``MARGIN`` = 2 times those pairs: below that, the test could well pass a
mechanism twice as leaky as its claim, and ``assert_private`` says so.  Measured with
``LaplaceMechanism(epsilon=2)`` claimed 1-DP at false_alarm 1e-6 over 20 seeds: 18 detected
at 1,000 runs (the yardstick expects ~750), 20 at 2,000 (the warning's threshold is 1,494).
(A yardstick, not a guarantee: events harder to find than a half-line need more runs.)
"""

from __future__ import annotations

import bisect
import functools
import math

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.testing.engine import FIRST_BATCH
from ltheory.testing.sequential import FRACTIONS

#: The warning asks for this many times the pairs the yardstick is expected to need.
MARGIN = 2.0


class BudgetWarning(UserWarning):
    """A privacy test's run budget is too small to be expected to detect a violation of twice
    the claimed ε (``ltheory.testing.budget``)."""


def _laplace_tail(t: np.ndarray, shift: float, b: float) -> np.ndarray:
    """P[shift + Lap(b) ≥ t]."""
    z = (t - shift) / b
    return np.where(z <= 0, 1.0 - 0.5 * np.exp(np.minimum(z, 0.0)),
                    0.5 * np.exp(-np.maximum(z, 0.0)))


@functools.lru_cache(maxsize=256)
def pairs_to_detect(epsilon: float, delta: float, false_alarm: float,
                    factor: float = 2.0) -> float:
    """Expected pairs of runs the betting test needs to refute (ε, δ) on the Laplace mechanism
    with ``factor`` × ε (see [`ltheory.testing.budget`][ltheory.testing.budget]); inf when the
    yardstick does not violate the claim."""
    b = 1.0 / (factor * epsilon)
    u = math.exp(epsilon)
    t = np.linspace(-4 * b, 1 + 4 * b, 801)
    pa, pb = _laplace_tail(t, 1.0, b), _laplace_tail(t, 0.0, b)
    c = np.asarray(FRACTIONS)[:, None]
    # outcomes (x, y): z = x − u·y − δ, probability pa^x (1−pa)^(1−x) pb^y (1−pb)^(1−y)
    g = np.zeros((len(FRACTIONS), t.size))
    for x in (0, 1):
        for y in (0, 1):
            p = (pa if x else 1 - pa) * (pb if y else 1 - pb)
            z = x - u * y - delta
            g += p[None, :] * np.log1p(c * z / (u + delta))
    best = float(g.max())
    if best <= 0:
        return math.inf
    return math.log(len(FRACTIONS) / false_alarm) / best


def runs_to_detect(epsilon: float, delta: float = 0.0, false_alarm: float = 1e-6,
                   factor: float = 2.0, margin: float = MARGIN) -> int | None:
    """The fewest ``max_runs`` (both datasets) with which ``assert_private`` can be expected to
    detect the Laplace yardstick at ``factor`` × ε: the selection batch plus ``margin`` ×
    `pairs_to_detect` pairs per dataset (None when it cannot, e.g. δ too large)."""
    from ltheory.testing.assertions import check_claim

    eps, dl, fa = check_claim(epsilon, delta, false_alarm)
    for name, v in (("factor", factor), ("margin", margin)):
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v < math.inf:
            raise InvalidInputError(f"{name} must be a finite number > 0, got {v!r}")
    if eps > 700.0:              # e^ε past the float range: far beyond any budget anyway
        return None
    need = pairs_to_detect(eps, dl, fa, float(factor))
    if not math.isfinite(need):
        return None
    return 2 * runs_per_dataset(math.ceil(margin * need))


def runs_per_dataset(pairs: int) -> int:
    """The fewest runs per dataset whose usable part (after the first, selection batch: at
    most ``FIRST_BATCH``, at most a quarter) holds ``pairs`` pairs; direct for large counts
    (no range of 2^63 elements)."""
    def usable(per: int) -> int:
        return per - max(1, min(FIRST_BATCH, per // 4))

    if pairs >= 3 * FIRST_BATCH:           # then per ≥ 4·FIRST_BATCH and usable = per − FIRST_BATCH
        return pairs + FIRST_BATCH
    return bisect.bisect_left(range(pairs + FIRST_BATCH + 2), True, lo=1,
                              key=lambda p: usable(p) >= pairs)


def budget_warning(max_runs: int, epsilon: float, delta: float, false_alarm: float) -> str | None:
    """The text of the warning when ``max_runs`` is below
    [`runs_to_detect`][ltheory.testing.runs_to_detect], else None."""
    need = runs_to_detect(epsilon, delta, false_alarm)
    if need is None or max_runs >= need:
        return None
    return (f"max_runs={max_runs:,} is too few to detect reliably even a Laplace mechanism "
            f"with twice the claimed epsilon ({2 * epsilon:g} against the claim {epsilon:g}, "
            f"false_alarm={false_alarm:g}): use at least {need:,} runs, or a pass says little")
