"""Privacy claims written as text (the command line's ``--claim``): a restricted parser, never
``eval``.

Forms (keys case-insensitive, spaces around tokens ignored):

* ``eps:E`` — [`PureDP`][ltheory.PureDP] (E)
* ``eps:E,delta:D`` — [`ApproxDP`][ltheory.ApproxDP] (E, D) (PureDP when D = 0)
* ``zcdp:RHO`` — [`ZCDP`][ltheory.ZCDP] (ρ), Bun & Steinke 2016
* ``gdp:MU`` — [`GDP`][ltheory.GDP] (μ), Dong, Roth & Su 2022
* ``rdp:A1=E1,A2=E2,...`` — [`RDP`][ltheory.RDP] ({A1: E1, ...}), Mironov 2017
  (orders > 1, at most `MAX_ORDERS`; the order ``inf`` is the max-divergence, pure DP)

Numbers are plain decimal literals (``1``, ``0.5``, ``1e-5``; no ``nan``, hex or underscores;
``inf`` only as an RDP order).  A literal past the float range (``1e999``) reads as infinity,
which every parameter but an RDP order refuses.  Anything else is an ``InvalidInputError``
naming what was expected.

Examples:
    >>> parse_claim("zcdp:0.5")
    ZCDP(rho=0.5)
    >>> parse_claim("eps:1, delta:1e-5")
    ApproxDP(epsilon=1.0, delta=1e-05)
    >>> claim_pair(parse_claim("eps:2"))
    (2.0, 0.0)
    >>> claim_pair(parse_claim("rdp:2=0.5,4=1")) is None
    True
"""

from __future__ import annotations

import re

from ltheory.errors import InvalidInputError
from ltheory.privacy.claims import GDP, RDP, ZCDP, ApproxDP, PrivacyClaim, PureDP

__all__ = ["CLAIM_FORMS", "MAX_ORDERS", "claim_pair", "parse_claim"]

#: The accepted forms, for error messages and help texts.
CLAIM_FORMS = "eps:E | eps:E,delta:D | zcdp:RHO | gdp:MU | rdp:ALPHA=EPS,ALPHA=EPS,..."
#: The most orders an ``rdp:`` claim may list, and the longest claim text accepted.
MAX_ORDERS = 64
MAX_CHARS = 2000

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _number(token: str, what: str, text: str) -> float:
    t = token.strip()
    if not _NUMBER.fullmatch(t):
        raise InvalidInputError(f"claim {text!r}: {what} must be a decimal number, got {t!r} "
                                f"(accepted forms: {CLAIM_FORMS})")
    return float(t)


def parse_claim(text: str) -> PrivacyClaim:
    """The [`PrivacyClaim`][ltheory.PrivacyClaim] that ``text`` writes (see the
    module `ltheory.privacy.claim_text`); parameters are checked by the claim classes (ρ, μ > 0,
    orders > 1, ...)."""
    if not isinstance(text, str):
        raise InvalidInputError(f"a claim text must be a string, got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise InvalidInputError(f"claim text of {len(text)} characters; at most {MAX_CHARS} "
                                "are accepted")
    kind, sep, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    if not sep or not rest.strip():
        raise InvalidInputError(f"claim {text!r} is not KIND:VALUE; accepted forms: "
                                f"{CLAIM_FORMS}")
    if kind == "zcdp":
        return ZCDP(_number(rest, "rho", text))
    if kind == "gdp":
        return GDP(_number(rest, "mu", text))
    if kind == "eps":
        first, comma, tail = rest.partition(",")
        eps = _number(first, "epsilon", text)
        if not comma:
            return PureDP(eps)
        key, sep2, value = tail.partition(":")
        if key.strip().lower() != "delta" or not sep2:
            raise InvalidInputError(f"claim {text!r}: after eps:E only ',delta:D' may "
                                    f"follow, got {tail.strip()!r}")
        delta = _number(value, "delta", text)
        return PureDP(eps) if delta == 0 else ApproxDP(eps, delta)
    if kind == "rdp":
        items = [s for s in rest.split(",")]
        if len(items) > MAX_ORDERS:
            raise InvalidInputError(f"claim {text!r}: at most {MAX_ORDERS} orders, got "
                                    f"{len(items)}")
        curve: dict[float, float] = {}
        for item in items:
            order, eq, value = item.partition("=")
            if not eq:
                raise InvalidInputError(f"claim {text!r}: each RDP entry is ALPHA=EPS, got "
                                        f"{item.strip()!r}")
            a = (float("inf") if order.strip().lower() in ("inf", "infinity")
                 else _number(order, "an order alpha", text))
            if a in curve:
                raise InvalidInputError(f"claim {text!r}: order {a:g} is given twice")
            curve[a] = _number(value, f"epsilon at order {a:g}", text)
        return RDP(curve)
    raise InvalidInputError(f"claim {text!r}: unknown kind {kind!r}; accepted forms: "
                            f"{CLAIM_FORMS}")


def claim_pair(claim: PrivacyClaim) -> tuple[float, float] | None:
    """``(ε, δ)`` when ``claim`` is a PureDP / ApproxDP claim (what the scalar audit takes),
    else None."""
    if isinstance(claim, ApproxDP):
        return float(claim.epsilon), float(claim.delta)
    return None
