"""Checks of Theorem 5 of the lecture notes (seed ``002_4e9b9d6d42ab751c.txt``; Alon, Moran,
Schefler, Yehudayoff, COLT 2024): the clique dichotomy of the contradiction graphs G_m(H).

Theorem 5: either ω_m = 2^m for all m or ω_m ≤ poly(m) (approximate-DP learnable iff the latter),
and likewise for ω*_m (pure-DP learnable — finite representation dimension — iff ω*_m ≤ poly(m)).
On a finite class both regimes are visible only up to |H|; what is checked exactly:

- ``amsy24.sandwich`` (bound): ω_m ≤ ω*_m ≤ min(2^m, |H|) for every m computed (a clique is a
  fractional clique; a fractional clique has weight at most the number of colours of any proper
  colouring, and samples consistent with the same h are never adjacent, so |H| colours suffice;
  and G_m has at most 2^m pairwise-contradicting samples on a common point set… the bound 2^m
  is the theorem's).
- ``amsy24.tree_clique`` (value): m ≤ Ldim(H) ⇒ ω_m = 2^m (the 2^m root-to-leaf samples of a
  shattered mistake tree of depth m pairwise contradict) — the finite form of "Ldim = ∞ ⇒ ω_m =
  2^m for all m".
- ``amsy24.dichotomy`` (measured; no bound expression, as "poly(m)" has no stated degree): per
  class, the measured ω_m, ω*_m, the fit ω ≈ c·m^a over the m with ω_m < 2^m (from
  ``ltheory.graphs.explorer``), the first m with ω_m < 2^m beside Ldim + 1, and the class's
  regime (finite representation dimension or not, from the literature) — the polynomial vs
  exponential statement itself is asymptotic and is not asserted on finite classes.
Every clique and fractional clique is verified from its witness by the explorer.  A computation
stopped by its time budget has proven lower/upper bounds only: a row is decided from those bounds
when they settle it and is undecided (``holds`` None, saying so) otherwise.  The explorer refusing
an oversized contradiction graph (``BudgetExceededError``) is recorded as an explicit "not
evaluated" row; any other exception propagates (a failing check, never a silent row).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import sympy

from ltheory import catalog
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.result import DimensionResult
from ltheory.errors import BudgetExceededError
from ltheory.graphs.explorer import DichotomyReport, explore
from proofs_check.base import Check, Evidence, Mutable, declare, dims, evaluate_bound, tight

SOURCE = "002_4e9b9d6d42ab751c.txt"
_m = sympy.Symbol("m", integer=True, positive=True)
_size = sympy.Symbol("H_size", integer=True, nonnegative=True)   # |H|
#: ω_m ≤ ω*_m ≤ min(2^m, |H|)
SANDWICH_BOUND = sympy.Min(2 ** _m, _size)
#: ω_m = 2^m when m ≤ Ldim(H)
TREE_CLIQUE_VALUE = 2 ** _m
#: seconds per clique / fractional clique computation
BUDGET = 60

#: whether the family (as n grows) has finite representation dimension (pure-DP learnable)
REGIME = {"points": "finite RepDim (pure-DP learnable)",
          "thresholds": "RepDim grows with n (not pure-DP learnable over ℕ); Ldim = ⌊log2(n+1)⌋",
          "intervals": "RepDim grows with n; Ldim grows with n",
          "all functions": "Ldim = n (the ω_m = 2^m regime up to m = n)",
          "parities": "Ldim = n",
          "monotone conjunctions": "Ldim = n",
          "random": "—"}


def _classes(quick: bool) -> list[tuple[str, dict[str, Any], int]]:
    out = [("points", {"n": 6}, 5), ("thresholds", {"n": 8}, 5), ("intervals", {"n": 6}, 5),
           ("all functions", {"n": 4}, 4), ("parities", {"n": 3}, 4),
           ("monotone conjunctions", {"n": 3}, 4)]
    if not quick:
        out += [("points", {"n": 8}, 7), ("thresholds", {"n": 12}, 5),
                ("intervals", {"n": 7}, 6), ("random", {"m": 12, "n": 7, "seed": 1}, 6),
                ("random", {"m": 10, "n": 6, "seed": 2}, 5)]
    return out


def _make(name: str, p: dict[str, Any]) -> HypothesisClass:
    if name == "points":
        return catalog.family("points", n=p["n"])
    if name == "thresholds":
        return catalog.family("thresholds", n=p["n"])
    if name == "intervals":
        return catalog.family("intervals", n=p["n"], empty=True)
    if name == "all functions":
        return catalog.family("weight_at_most", n=p["n"], d=p["n"])
    if name == "parities":
        return catalog.family("parities", n=p["n"])
    if name == "monotone conjunctions":
        return catalog.family("conjunctions", n=p["n"], k=p["n"], monotone=True)
    return catalog.family("random", m=p["m"], n=p["n"], p=0.5, seed=p["seed"])


@cache
def _explored(quick: bool) -> tuple[tuple[str, dict[str, Any], int, int,
                                          DichotomyReport | None, str], ...]:
    """(name, params, |H|, Ldim, DichotomyReport or None, refusal) per class, computed once.

    Only the explorer's documented refusal is caught: ``BudgetExceededError`` (some G_m would
    exceed its vertex cap), kept as the refusal message and reported as a "not evaluated" row.
    Anything else is a bug and propagates.
    """
    out = []
    for name, params, M in _classes(quick):
        H = _make(name, params)
        L = dims(H, "ldim")["ldim"]
        try:
            rep, refused = explore(H, M, fractional=True, budget=BUDGET), ""
        except BudgetExceededError as exc:
            rep, refused = None, f"BudgetExceededError: {exc}"
        out.append((name, params, len(H), L, rep, refused))
    return tuple(out)


def _not_evaluated(name: str, params: dict[str, Any], refused: str) -> Evidence:
    return Evidence(name, params, {"not evaluated": refused}, None, None,
                    note="NOT EVALUATED: the explorer refused this class (budget); "
                         "no verdict for it")


def _le(a: DimensionResult | float, b: DimensionResult | float) -> bool | None:
    """a ≤ b from proven bounds: True if a.upper ≤ b.lower, False if a.lower > b.upper, None
    (undecided) otherwise; plain numbers are exact."""
    a_lo, a_hi = (a.lower, a.upper) if isinstance(a, DimensionResult) else (a, a)
    b_lo, b_hi = (b.lower, b.upper) if isinstance(b, DimensionResult) else (b, b)
    if a_hi <= b_lo + 1e-9:
        return True
    if a_lo > b_hi + 1e-9:
        return False
    return None


def _and(*vs: bool | None) -> bool | None:
    if any(v is False for v in vs):
        return False
    return None if any(v is None for v in vs) else True


def _budget_note(*rs: DimensionResult) -> str:
    open_ = [str(r) for r in rs if not r.exact]
    return f"time budget reached ({'; '.join(open_)}): decided from proven bounds" if open_ \
        else ""


def _sandwich(quick: bool) -> Iterator[Evidence]:
    for name, params, size, _L, rep, refused in _explored(quick):
        if rep is None:
            yield _not_evaluated(name, params, refused)
            continue
        assert rep.fractional is not None
        for m, c, f in zip(rep.ms, rep.clique, rep.fractional, strict=True):
            cap = evaluate_bound(SANDWICH_BOUND, m=m, H_size=size)
            ok = _and(_le(c, f), _le(f, cap))
            note = _budget_note(c, f)
            if ok is None:
                note += "; undecided"
            yield Evidence(name, {**params, "m": m},
                           {"ω_m": c.value, "ω*_m": f.value, "|H|": size,
                            "exact": c.exact and f.exact}, cap, ok, cap - f.upper,
                           None if ok is not False else {"clique": c.witness_json(),
                                                         "fractional": f.witness_json()}, note,
                           tight(f.upper, cap))


def _tree_clique(quick: bool) -> Iterator[Evidence]:
    for name, params, _size, L, rep, refused in _explored(quick):
        if rep is None:
            yield _not_evaluated(name, params, refused)
            continue
        for m, c in zip(rep.ms, rep.clique, strict=True):
            if m > L:
                continue
            stated = evaluate_bound(TREE_CLIQUE_VALUE, m=m)
            ok = _and(_le(stated, c), _le(c, stated))  # the stated value, both ways
            yield Evidence(name, {**params, "m": m}, {"Ldim": L, "ω_m": c.value,
                                                      "exact": c.exact}, stated, ok,
                           stated - c.value, None if ok is not False else c.witness_json(),
                           _budget_note(c) + ("; undecided" if ok is None else ""),
                           tight(stated, c.upper, lower=True))


def _dichotomy(quick: bool) -> Iterator[Evidence]:
    for name, params, size, L, rep, refused in _explored(quick):
        if rep is None:
            yield _not_evaluated(name, params, refused)
            continue
        assert rep.fractional is not None
        cl = [c.value for c in rep.clique]
        fr = [f.value for f in rep.fractional]
        below = [m for m, w in zip(rep.ms, cl, strict=True) if w < 2 ** m]
        inexact = [m for m, c, f in zip(rep.ms, rep.clique, rep.fractional, strict=True)
                   if not (c.exact and f.exact)]
        yield Evidence(name, params,
                       {"|H|": size, "Ldim": L, "ω_m": cl, "ω*_m": [round(float(v), 4) for v in fr],
                        "first m with ω_m < 2^m": below[0] if below else None,
                        "fit ω": rep.fit.get("clique", {}).get("formula"),
                        "fit ω*": rep.fit.get("fclique", {}).get("formula"),
                        "inexact m (lower bounds)": inexact,
                        "regime": REGIME.get(name, "—")},
                       {"2^m for m ≤ Ldim, then ≤ |H|": size}, None,
                       note="measured: on finite classes ω_m, ω*_m saturate at ≤ |H|; " + (
                           f"first m with ω_m < 2^m {'=' if below[0] == L + 1 else '≠'} Ldim + 1"
                           if below else "ω_m = 2^m for every m computed"))


CHECKS = [
    Check("amsy24.sandwich", SOURCE, "Theorem 5 (definitions): ω_m ≤ ω*_m ≤ min(2^m, |H|)",
          "For every m: ω_m(H) ≤ ω*_m(H) ≤ min(2^m, |H|).", SANDWICH_BOUND, _sandwich,
          falsifiable="fails if a certified clique exceeds the fractional clique number, or the "
                      "fractional clique (certified by its dual colouring) exceeds min(2^m, |H|); "
                      "rows with m ≤ Ldim meet 2^m exactly"),
    Check("amsy24.tree_clique", SOURCE, "Theorem 5 (exponential side, finite form)",
          "If Ldim(H) ≥ m then ω_m(H) = 2^m (so Ldim = ∞ gives ω_m = 2^m for all m).",
          TREE_CLIQUE_VALUE, _tree_clique, kind="value",
          falsifiable="fails if for some m ≤ Ldim(H) the exact clique number of G_m(H) is "
                      "below 2^m"),
    Check("amsy24.dichotomy", SOURCE, "Theorem 5 (dichotomy)",
          "Either ω_m = 2^m for all m or ω_m ≤ poly(m); either ω*_m = 2^m for all m or "
          "ω*_m ≤ poly(m), the latter iff H has finite representation dimension (measured on "
          "finite classes: values and polynomial fits).", None, _dichotomy, kind="measured",
          falsifiable="measured only: 'poly(m)' has no stated degree and finite classes "
                      "saturate at |H|; rows report ω_m, ω*_m and the fits"),
]

CHECKS = declare(CHECKS, {
    "amsy24.sandwich": (Mutable(__name__, "SANDWICH_BOUND", -1, ({"m": 3, "H_size": 100},)),),
    "amsy24.tree_clique": (Mutable(__name__, "TREE_CLIQUE_VALUE", 0, ({"m": 3},)),),
})
