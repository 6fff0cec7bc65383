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
- ``amsy24.dichotomy`` (measured): per class, the measured ω_m, ω*_m, the fit ω ≈ c·m^a over the
  m with ω_m < 2^m (from ``ltheory.graphs.explorer``), the first m with ω_m < 2^m beside Ldim + 1,
  and the class's regime (finite representation dimension or not, from the literature) — the
  polynomial vs exponential statement itself is asymptotic and is not asserted on finite classes.
Every clique and fractional clique is verified from its witness by the explorer.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from ltheory import catalog
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.graphs.explorer import explore
from proofs_check.base import Check, Evidence, dims

SOURCE = "002_4e9b9d6d42ab751c.txt"

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
def _explored(quick: bool) -> tuple[tuple[str, dict[str, Any], int, int, Any, str], ...]:
    """(name, params, |H|, Ldim, DichotomyReport or None, error) per class, computed once."""
    out = []
    for name, params, M in _classes(quick):
        H = _make(name, params)
        L = dims(H, "ldim")["ldim"]
        try:
            rep, err = explore(H, M, fractional=True, budget=60), ""
        except Exception as exc:  # a tool failure is reported, not hidden
            rep, err = None, f"{type(exc).__name__}: {exc}"
        out.append((name, params, len(H), L, rep, err))
    return tuple(out)


def _sandwich(quick: bool) -> Iterator[Evidence]:
    for name, params, size, _L, rep, err in _explored(quick):
        if rep is None:
            yield Evidence(name, params, {"error": err}, None, None, note="explorer failed")
            continue
        for m, c, f in zip(rep.ms, rep.clique, rep.fractional, strict=True):
            w, ws = c.value, f.value
            cap = min(2 ** m, size)
            ok = w <= ws + 1e-9 and ws <= cap + 1e-9
            yield Evidence(name, {**params, "m": m}, {"ω_m": w, "ω*_m": ws, "|H|": size},
                           {"min(2^m, |H|)": cap}, ok, cap - ws,
                           None if ok else {"clique": c.witness_json(),
                                            "fractional": f.witness_json()})


def _tree_clique(quick: bool) -> Iterator[Evidence]:
    for name, params, _size, L, rep, _err in _explored(quick):
        if rep is None:
            continue
        for m, c in zip(rep.ms, rep.clique, strict=True):
            if m > L:
                continue
            ok = c.value == 2 ** m
            yield Evidence(name, {**params, "m": m}, {"Ldim": L, "ω_m": c.value}, 2 ** m, ok,
                           2 ** m - c.value)


def _dichotomy(quick: bool) -> Iterator[Evidence]:
    for name, params, size, L, rep, err in _explored(quick):
        if rep is None:
            yield Evidence(name, params, {"error": err}, None, None,
                           note="explorer failed: see the error")
            continue
        cl = [c.value for c in rep.clique]
        fr = [f.value for f in rep.fractional]
        below = [m for m, w in zip(rep.ms, cl, strict=True) if w < 2 ** m]
        yield Evidence(name, params,
                       {"|H|": size, "Ldim": L, "ω_m": cl, "ω*_m": [round(float(v), 4) for v in fr],
                        "first m with ω_m < 2^m": below[0] if below else None,
                        "fit ω": rep.fit.get("clique", {}).get("formula"),
                        "fit ω*": rep.fit.get("fclique", {}).get("formula"),
                        "regime": REGIME.get(name, "—")},
                       {"2^m for m ≤ Ldim, then ≤ |H|": size}, None,
                       note="measured: on finite classes ω_m, ω*_m saturate at ≤ |H|; " + (
                           f"first m with ω_m < 2^m {'=' if below[0] == L + 1 else '≠'} Ldim + 1"
                           if below else "ω_m = 2^m for every m computed"))


CHECKS = [
    Check("amsy24.sandwich", SOURCE, "Theorem 5 (definitions): ω_m ≤ ω*_m ≤ min(2^m, |H|)",
          "For every m: ω_m(H) ≤ ω*_m(H) ≤ min(2^m, |H|).", None, _sandwich),
    Check("amsy24.tree_clique", SOURCE, "Theorem 5 (exponential side, finite form)",
          "If Ldim(H) ≥ m then ω_m(H) = 2^m (so Ldim = ∞ gives ω_m = 2^m for all m).", None,
          _tree_clique, kind="value"),
    Check("amsy24.dichotomy", SOURCE, "Theorem 5 (dichotomy)",
          "Either ω_m = 2^m for all m or ω_m ≤ poly(m); either ω*_m = 2^m for all m or "
          "ω*_m ≤ poly(m), the latter iff H has finite representation dimension (measured on "
          "finite classes: values and polynomial fits).", None, _dichotomy, kind="measured"),
]
