"""Budgets as a contract (issue 30): the worst overshoot of ``budget=b`` over a corpus of wide
and hard classes, for each dimension.

    python -m benchmarks.bench_budgets [--budgets 1,2] [--quick]

For every class of the corpus, every dimension (vc, ldim, tdim) and every budget b, the exact
engine runs with ``budget=b`` (through :data:`ltheory.dimensions.DIMENSIONS`); the wall time t,
the overshoot t - b and whether the answer was exact are recorded, and every witness is
re-checked (:func:`ltheory.verify`).  The contract is t <= b + 1 s + 10% b.  Results go to
``benchmarks/results/budgets.json`` and ``budgets.md``.  Run by hand (timings depend on the
machine and its load), never as a unit test.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from ltheory import HypothesisClass, catalog, verify
from ltheory.dimensions import DIMENSIONS

OUT = Path(__file__).resolve().parent / "results"


def wide(m: int, n: int, seed: int = 0, p: float = 0.5) -> HypothesisClass:
    """m random hypotheses (Bernoulli(p) bits) on n points."""
    rng = np.random.default_rng(seed)
    M = (rng.random((m, n)) < p).astype(np.uint8)
    return HypothesisClass.from_matrix(M, name=f"random {m} x {n}")


def corpus(quick: bool = False) -> list[tuple[str, object]]:
    """(name, thunk building the class): the scale ladder and hard catalog members."""
    ladder = [(2, 10**3), (2, 10**4), (2, 10**5), (2, 10**6), (16, 10**4), (16, 10**6),
              (100, 10**3), (100, 10**5), (1000, 10**3), (1000, 10**4), (10**4, 10**3)]
    if quick:
        ladder = [(2, 10**3), (2, 10**6), (100, 10**3), (1000, 10**3)]
    out: list[tuple[str, object]] = [(f"random {m} x {n}", (lambda m=m, n=n: wide(m, n)))
                                     for m, n in ladder]
    specs = ["points n=2048", "points n=172", "random m=2 n=10000", "random m=64 n=2000",
             "halfspaces g=8 dim=2", "conjunctions n=8", "parities n=10",
             "random m=2000 n=64"]
    if quick:
        specs = specs[:4]
    out += [(s, (lambda s=s: catalog.from_spec(s))) for s in specs]
    return out


def run(budgets: list[float], quick: bool) -> dict:
    rows = []
    for name, make in corpus(quick):
        H = make()
        for b in budgets:
            for key, dim in DIMENSIONS.items():
                t = time.perf_counter()
                r = dim.compute(H, budget=b)
                secs = time.perf_counter() - t
                verify(H, r)
                rows.append({"class": name, "points": H.domain_size, "hypotheses": len(H),
                             "kind": key, "budget": b, "seconds": round(secs, 3),
                             "overshoot": round(secs - b, 3), "exact": r.exact,
                             "lower": r.lower, "upper": r.upper,
                             "within_contract": secs <= b + 1 + 0.1 * b})
                print(f"{name:28s} {key:4s} b={b:<4} {secs:7.3f}s "
                      f"{'exact ' + str(r.value) if r.exact else f'{r.lower}..{r.upper}'}",
                      flush=True)
    worst = max(rows, key=lambda r: r["overshoot"])
    return {"machine": platform.platform(), "budgets": budgets, "rows": rows,
            "worst_overshoot": worst["overshoot"], "worst_case": worst,
            "all_within_contract": all(r["within_contract"] for r in rows)}


def write(doc: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "budgets.json").write_text(json.dumps(doc, indent=1) + "\n")
    lines = ["# Budget overshoot (benchmarks/bench_budgets.py)", "",
             f"Machine: {doc['machine']}.  Contract: t <= b + 1 s + 10% b.  "
             f"Worst overshoot: **{doc['worst_overshoot']:.3f} s** "
             f"({doc['worst_case']['class']}, {doc['worst_case']['kind']}, "
             f"b={doc['worst_case']['budget']}); all within contract: "
             f"{doc['all_within_contract']}.", "",
             "| class | points | hypotheses | dim | budget | seconds | overshoot | result |",
             "|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        res = str(r["lower"]) if r["exact"] else f"{r['lower']}..{r['upper']}"
        lines.append(f"| {r['class']} | {r['points']} | {r['hypotheses']} | {r['kind']} | "
                     f"{r['budget']} | {r['seconds']} | {r['overshoot']} | {res} |")
    (OUT / "budgets.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budgets", default="1,2")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    if a.quick:      # a smoke test never overwrites the committed figures
        OUT = OUT / "quick"
    doc = run([float(x) for x in a.budgets.split(",")], a.quick)
    write(doc)
    print(f"worst overshoot {doc['worst_overshoot']:.3f} s; all within contract: "
          f"{doc['all_within_contract']}")
