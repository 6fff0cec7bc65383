"""Which (ε, δ) points the sequential test checks for a privacy claim, and how the claim is given.

A claim is a privacy profile ε ↦ δ(ε) (``ltheory.privacy.claims``): the mechanism satisfies it
iff its hockey-stick divergence ``H_{e^ε}`` lies below δ(ε) at every ε ≥ 0, in both directions
(Balle, Barthe & Gaboardi 2018, Definition 3).  It is refuted as soon as the divergence exceeds
δ(ε) at *one* ε, so a test may check any fixed set of points (ε_j, δ(ε_j)), each a claim
"(ε_j, δ(ε_j))-DP at this pair" that the mechanism satisfies if it satisfies the whole claim.

* An :class:`~ltheory.privacy.claims.ApproxDP` (or pure-DP) claim is the one point (ε, δ): its
  profile is the tightest one that (ε, δ)-DP implies (Kairouz, Oh & Viswanath 2015), so a
  mechanism above it anywhere is above it at ε (δ(ε') for ε' < ε is implied by the point ε).
  This is the classic test, unchanged.
* Any other claim (a curve: zCDP, Rényi DP, Gaussian DP, an accountant's profile, …) is checked
  at the ε where its profile crosses δ = 10^-1, 10^-2, …, 10^-6 (``epsilon_at``), where a bug
  in one part of the curve (small δ: rare events; large δ: frequent ones) shows, plus the ε
  the claim is quoted at when it has one (an ``epsilon`` attribute).  Points where the profile
  is 1 (nothing to refute) or ε is infinite are dropped.

The sequential engine gives each point its own e-process and rejects when their *average*
crosses 1/α (``ltheory.testing.engine``).
"""

from __future__ import annotations

import math
from typing import Any

from ltheory.errors import InvalidInputError
from ltheory.privacy.claims import ApproxDP, PrivacyClaim, as_claim

__all__ = ["CURVE_DELTAS", "claim_label", "claim_points", "resolve_claim"]

#: The δ levels at which a curve claim is checked (its ε there: ``claim.epsilon_at(δ)``).
CURVE_DELTAS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)


def resolve_claim(epsilon: Any, delta: Any, claim: Any, who: str = "assert_private"
                  ) -> PrivacyClaim | None:
    """The claim of a call given either as ``epsilon`` (and ``delta``) or as ``claim=``: None
    for the former (the caller checks ε and δ as before), the :class:`PrivacyClaim` for the
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


#: where :func:`check_profile` looks at a claim's profile
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


def claim_points(claim: PrivacyClaim) -> list[tuple[float, float]]:
    """The points (ε_j, δ(ε_j)) the test checks, by increasing ε (module docstring)."""
    if isinstance(claim, ApproxDP):
        return [(float(claim.epsilon), float(claim.delta))]
    check_profile(claim)
    eps: list[float] = []
    for d in CURVE_DELTAS:
        e = float(claim.epsilon_at(d))
        if math.isfinite(e):
            eps.append(e)
    quoted = getattr(claim, "epsilon", None)
    if isinstance(quoted, int | float) and not isinstance(quoted, bool) and \
            math.isfinite(quoted) and quoted >= 0:
        eps.append(float(quoted))
    points: list[tuple[float, float]] = []
    for e in sorted(set(eps)):
        if points and abs(e - points[-1][0]) <= 1e-9 * max(1.0, e):
            continue
        d = _delta_at(claim, e)
        if d < 1.0:
            points.append((e, d))
    if not points:
        raise InvalidInputError(f"the claim {claim_label(claim)} allows δ(ε) = 1 at every ε "
                                "checked: there is nothing a test could refute")
    return points


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
