"""Which (ε, δ) points the sequential test checks for a privacy claim, and how the claim is given.

A claim is a privacy profile ε ↦ δ(ε) (``ltheory.privacy.claims``): the mechanism satisfies it
iff its hockey-stick divergence ``H_{e^ε}`` lies below δ(ε) at every ε ≥ 0, in both directions
(Balle, Barthe & Gaboardi 2018, Definition 3).  It is refuted as soon as the divergence exceeds
δ(ε) at *one* ε, so a test may check any set of points (ε_j, δ(ε_j)), each a claim
"(ε_j, δ(ε_j))-DP at this pair" that the mechanism satisfies if it satisfies the whole claim.

* An [`ApproxDP`][ltheory.ApproxDP] (or pure-DP) claim is the one point (ε, δ): its
  profile is the tightest one that (ε, δ)-DP implies (Kairouz, Oh & Viswanath 2015), so a
  mechanism above it anywhere is above it at ε (δ(ε') for ε' < ε is implied by the point ε).
  This is the classic test, unchanged.
* Any other claim (a curve: zCDP, Rényi DP, Gaussian DP, an accountant's profile, …) is checked
  on two kinds of points (``ltheory.testing.engine``):

  - a *fixed cover* (`claim_points`): ε = 0 (the total-variation end of the curve), the ε
    where the profile crosses the large δ of ``COVER_DELTAS`` (0.5, 0.3, 0.2: frequent events)
    and the decades δ = 10^-1, …, 10^-6 (``CURVE_DELTAS``: rarer and rarer events), plus the ε
    the claim is quoted at when it has one (an ``epsilon`` attribute).  Points where the
    profile is 1 (nothing to refute) or ε is infinite are dropped;
  - one *data-chosen* point, moved at each event selection to the ε of a fine grid
    (`adaptive_grid`: ε = 0, the ε at δ = 10^(-k/4) down to 10^-7, ε steps of at most
    ``MAX_STEP``·max(1, ε)) whose best event shows the largest estimated growth of the
    betting wealth on the runs already drawn — where the hockey-stick gap
    ``P_a(E) − e^ε P_b(E) − δ(ε)`` looks largest.  It catches a claim that is wrong only
    between two fixed points (Laplace(1) claimed 0.9-GDP is above its claim only for
    ε ∈ [0, 0.64], δ(ε) > 0.16).

Why the data-chosen point keeps the guarantee: its ε (and event, and direction) for a batch is
a function of runs drawn *before* that batch, so it is predictable, exactly like the event of a
fixed point.  Under the claim the mechanism is (ε, δ(ε))-DP at *every* ε, so whatever ε_t is
chosen, each pair of the batch has ``E[X − e^{ε_t} Y − δ(ε_t) | past] ≤ H_{e^{ε_t}} − δ(ε_t)
≤ 0``; the betting factors ``1 + c·Z/(e^{ε_t} + δ(ε_t))`` are positive with conditional mean
≤ 1, and their running product is a nonnegative supermartingale with initial value 1, for each
fraction c, whatever the sequence of ε_t.  The test's e-value is a fixed convex combination
of such supermartingales on the same filtration (``ADAPTIVE_WEIGHT`` to the data-chosen point,
the rest shared equally by the fixed points), hence one itself, and Ville's inequality bounds
the probability that it ever reaches 1/α by α.  The data-chosen point costs at most a factor
1/(1 − ``ADAPTIVE_WEIGHT``) = 2 in the threshold a fixed point must reach.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.claims import ApproxDP, PrivacyClaim, as_claim

__all__ = ["ADAPTIVE_WEIGHT", "COVER_DELTAS", "CURVE_DELTAS", "adaptive_grid", "claim_label",
           "claim_points", "resolve_claim"]

#: The δ decades at which a curve claim is checked (its ε there: ``claim.epsilon_at(δ)``).
CURVE_DELTAS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)
#: The δ levels of the fixed cover: large δ (frequent events) and the decades; with ε = 0.
COVER_DELTAS = (0.5, 0.3, 0.2) + CURVE_DELTAS
#: The share of the test's e-value given to the data-chosen point (the fixed points share the
#: rest equally).
ADAPTIVE_WEIGHT = 0.5
#: The data-chosen point's grid: δ = 10^(-k/GRID_PER_DECADE) down to GRID_FLOOR, ε = 0, and
#: ε steps of at most MAX_STEP·max(1, ε) between them.
GRID_PER_DECADE = 4
GRID_FLOOR = 1e-7
MAX_STEP = 0.075
#: At most this many grid points (the step is doubled until the grid fits): each costs ~2 ms
#: per event selection, and the certified-δ readings are Bonferroni over them.
MAX_GRID = 64


def resolve_claim(epsilon: Any, delta: Any, claim: Any, who: str = "assert_private"
                  ) -> PrivacyClaim | None:
    """The claim of a call given either as ``epsilon`` (and ``delta``) or as ``claim=``: None
    for the former (the caller checks ε and δ as before), the [`PrivacyClaim`][ltheory.PrivacyClaim]
    for the
    latter (``as_claim``: a claim object, a number ε, a pair (ε, δ)).  Both, or neither, is an
    ``InvalidInputError``.  A claim object passed where ε goes (positionally) is read as
    ``claim=``."""
    if isinstance(epsilon, PrivacyClaim) and claim is None:
        epsilon, claim = None, epsilon
    if claim is not None and epsilon is not None:
        raise InvalidInputError(
            f"{who} takes the claim either as epsilon (and delta) or as claim=, not both: "
            f"got epsilon={epsilon!r} and claim={claim!r}")
    if claim is None:
        if epsilon is None:
            raise InvalidInputError(
                f"{who} needs the claimed epsilon: epsilon=... (and delta=...), or claim= a "
                "PrivacyClaim (PureDP, ApproxDP, ZCDP, RDP, GDP, ProfileClaim), a number epsilon "
                "or a pair (epsilon, delta)")
        return None
    if delta not in (0, 0.0):
        raise InvalidInputError(f"delta={delta!r} is given with claim=: put delta in the claim "
                                "(claim=(epsilon, delta) or ApproxDP(epsilon, delta))")
    return as_claim(claim)


def _delta_at(claim: PrivacyClaim, eps: float) -> float:
    try:
        d = float(claim.delta_at(eps))
    except Exception as exc:  # noqa: BLE001 - the user's profile: say whose error it is
        raise InvalidInputError(f"the claim {claim_label(claim)}'s delta_at({eps:g}) failed: "
                                f"{exc}") from exc
    if not (0.0 <= d <= 1.0) or math.isnan(d):
        raise InvalidInputError(f"the claim {claim_label(claim)} gives delta_at({eps:g}) = {d!r}, "
                                "not a probability in [0, 1]")
    return d


#: where `check_profile` looks at a claim's profile
CHECK_EPSILONS = (0.0, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)


def check_profile(claim: PrivacyClaim) -> None:
    """``InvalidInputError`` unless the claim's δ(ε) at ``CHECK_EPSILONS`` are probabilities,
    non-increasing in ε (a privacy profile: Balle, Barthe & Gaboardi 2018, Definition 3)."""
    ds = [_delta_at(claim, e) for e in CHECK_EPSILONS]
    for i in range(1, len(ds)):
        (e1, d1), (e2, d2) = (CHECK_EPSILONS[i - 1], ds[i - 1]), (CHECK_EPSILONS[i], ds[i])
        if d2 > d1 + 1e-12:
            raise InvalidInputError(
                f"the claim {claim_label(claim)} is not a privacy profile: delta_at increases "
                f"from {d1:.4g} at ε={e1:g} to {d2:.4g} at ε={e2:g} (δ(ε) must be "
                "non-increasing)")


def _epsilons_to_points(claim: PrivacyClaim, eps: list[float]) -> list[tuple[float, float]]:
    """(ε, δ(ε)) for the distinct ε (by increasing ε) where δ(ε) < 1."""
    points: list[tuple[float, float]] = []
    for e in sorted(set(eps)):
        if points and abs(e - points[-1][0]) <= 1e-9 * max(1.0, e):
            continue
        d = _delta_at(claim, e)
        if d < 1.0:
            points.append((e, d))
    return points


def _epsilon_at(claim: PrivacyClaim, d: float) -> float | None:
    try:
        e = float(claim.epsilon_at(d))
    except InvalidInputError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's claim: say whose error it is
        raise InvalidInputError(f"the claim {claim_label(claim)}'s epsilon_at({d:g}) failed: "
                                f"{type(exc).__name__}: {exc}") from None
    if math.isnan(e):
        raise InvalidInputError(f"the claim {claim_label(claim)}'s epsilon_at({d:g}) is nan, not "
                                "an ε >= 0")
    return e if math.isfinite(e) and e >= 0 else None


def claim_points(claim: PrivacyClaim) -> list[tuple[float, float]]:
    """The fixed points (ε_j, δ(ε_j)) the test checks, by increasing ε (see
    [`ltheory.testing.claim_points`][ltheory.testing.claim_points])."""
    if isinstance(claim, ApproxDP):
        return [(float(claim.epsilon), float(claim.delta))]
    check_profile(claim)
    eps: list[float] = [0.0]
    for d in COVER_DELTAS:
        e = _epsilon_at(claim, d)
        if e is not None:
            eps.append(e)
    quoted = getattr(claim, "epsilon", None)
    if isinstance(quoted, int | float) and not isinstance(quoted, bool) and \
            math.isfinite(quoted) and quoted >= 0:
        eps.append(float(quoted))
    points = _epsilons_to_points(claim, eps)
    if not points:
        raise InvalidInputError(f"the claim {claim_label(claim)} allows δ(ε) = 1 at every ε "
                                "checked: there is nothing a test could refute")
    return points


def _deltas(claim: PrivacyClaim, eps: np.ndarray) -> np.ndarray:
    """δ(ε) at many ε: one vectorised ``delta_at`` call when the claim takes an array."""
    try:
        d = np.asarray(claim.delta_at(eps), dtype=float)
        if d.shape == eps.shape:
            return d
    except Exception:  # noqa: BLE001 - a scalar-only profile: pointwise (errors said there)
        pass
    return np.array([_delta_at(claim, float(e)) for e in eps])


def adaptive_grid(claim: PrivacyClaim) -> list[tuple[float, float]]:
    """The points (ε, δ(ε)) among which the data-chosen point moves (see
    [`ltheory.testing.claim_points`][ltheory.testing.claim_points]): ε = 0,
    about the ε at δ = 10^(-k/4) for k = 1, 2, … down to 10^-7 (read on a fine ε grid: one
    vectorised ``delta_at`` and one ``epsilon_at``, an accountant's being slow), and ε between
    them so that consecutive ε differ by at most ``MAX_STEP``·max(1, ε) (doubled until at most
    ``MAX_GRID`` points remain); by increasing ε, δ(ε) < 1."""
    top = next((e for d in (GRID_FLOOR, 1e-6, 1e-3) if (e := _epsilon_at(claim, d))), None)
    top = 10.0 if top is None else top
    fine = np.linspace(0.0, top, 4001)
    ds = _deltas(claim, fine)
    eps = [0.0, top]
    levels = round(-math.log10(GRID_FLOOR) * GRID_PER_DECADE)
    for k in range(1, levels + 1):
        below = np.nonzero(ds <= 10.0 ** (-k / GRID_PER_DECADE))[0]
        if below.size:
            eps.append(float(fine[below[0]]))
    eps = sorted(set(eps))
    step = MAX_STEP
    while True:
        filled = [eps[0]]
        for e in eps[1:]:
            while e - filled[-1] > step * max(1.0, filled[-1]) * (1 + 1e-9):
                filled.append(filled[-1] + step * max(1.0, filled[-1]))
            filled.append(e)
        points = _epsilons_to_points(claim, filled)
        if len(points) <= MAX_GRID or step > 1.0:     # (the δ levels alone are 29 points)
            return points
        step *= 2


def claim_label(claim: PrivacyClaim | dict) -> str:
    """A short text for a claim: its ``str`` when it defines one (``(1, 1e-05)-DP``), else
    ``kind(parameter=value, …)`` from ``to_json()``."""
    if isinstance(claim, PrivacyClaim) and type(claim).__str__ is not object.__str__:
        return str(claim)
    d = claim.to_json() if isinstance(claim, PrivacyClaim) else dict(claim)
    kind = d.pop("kind", type(claim).__name__)
    params = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in d.items())
    return f"{kind}({params})"
