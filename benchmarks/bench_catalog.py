"""Benchmarks of the catalog (issue 16): halfspace enumeration, dimensions of large grids, tables.
Run by hand:

    python -m benchmarks.bench_catalog                 # build + dims + tables (+ LP baseline)
    python -m benchmarks.bench_catalog --cross-check   # also: LP vs combinatorial on every grid
                                                       # with g^dim <= 36 and random point sets
    python -m benchmarks.bench_catalog --quick         # small budgets, no LP baseline

Writes what it prints to benchmarks/results/catalog.md and the figures to catalog.json
(``--quick``: benchmarks/results/quick/, git-ignored).

Targets (issue 16): ``halfspaces g=12 dim=2`` (144 points) and ``g=5 dim=3`` build in seconds and
their VC/Ldim/T come out exact; the combinatorial enumeration equals the LP enumeration on every
grid the LP can do (g^dim <= 36) and on random point sets; ``ltheory table conjunctions n=1..6``
as an example of a table's cost.  Every result's witness is re-checked.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ltheory import catalog
from ltheory.catalog.halfspaces import halfspace_dichotomies
from ltheory.dimensions import DIMENSIONS, verify
from ltheory.tables import dimension_table

RESULTS = Path(__file__).resolve().parent / "results"
LINES: list[str] = []
FIGURES: dict[str, Any] = {}


def say(line: str) -> None:
    """Print a line of the report and keep it for benchmarks/results/catalog.md."""
    print(line, flush=True)
    LINES.append(line)


def grid(g: int, dim: int) -> np.ndarray:
    return np.array(list(itertools.product(range(g), repeat=dim)), dtype=np.int64).reshape(-1, dim)


def bench_build(quick: bool) -> None:
    say("== halfspaces: building the class (combinatorial enumeration; LP baseline)")
    rows = []
    for g, dim in [(6, 2), (12, 2), (19, 2), (3, 3), (4, 3), (5, 3), (2, 4), (2, 5)]:
        t, c = time.perf_counter(), time.process_time()
        H = catalog.family("halfspaces", g=g, dim=dim)
        secs, cpu = time.perf_counter() - t, time.process_time() - c
        line = (f"  g={g} dim={dim}: {len(H):,} dichotomies of {H.domain_size} points in "
                f"{secs:.2f} s (cpu {cpu:.2f} s)")
        row = {"g": g, "dim": dim, "size": len(H), "seconds": round(secs, 3),
               "cpu_seconds": round(cpu, 3)}
        if not quick and g**dim <= 36 and len(H) < 5000:
            t = time.perf_counter()
            lp = halfspace_dichotomies(grid(g, dim), method="lp")
            row["lp_seconds"] = round(time.perf_counter() - t, 3)
            assert len(lp) == len(H)
            line += f" (LP method: {row['lp_seconds']:.2f} s)"
        say(line)
        rows.append(row)
    FIGURES["build"] = rows


def bench_dims(budget: float) -> None:
    say(f"== halfspaces: VC / Ldim / T with a budget of {budget:g} s per dimension")
    rows = []
    for g, dim in [(12, 2), (5, 3)]:
        H = catalog.family("halfspaces", g=g, dim=dim)
        row: dict[str, Any] = {"g": g, "dim": dim, "size": len(H)}
        parts = []
        for key, d in DIMENSIONS.items():
            t, c = time.perf_counter(), time.process_time()
            r = d.compute(H, budget=budget)
            secs, cpu = time.perf_counter() - t, time.process_time() - c
            verify(H, r)
            row[key] = {"lower": r.lower, "upper": r.upper, "exact": r.exact,
                        "seconds": round(secs, 2), "cpu_seconds": round(cpu, 2)}
            parts.append(f"{d.symbol}={r.value if r.exact else f'{r.lower}..{r.upper}'} "
                         f"({secs:.2f} s, cpu {cpu:.2f} s)")
        say(f"  g={g} dim={dim} ({len(H):,} x {H.domain_size}): " + ", ".join(parts))
        rows.append(row)
    FIGURES["dims"] = rows


def bench_cross_check(seed: int) -> None:
    say("== cross-check: combinatorial == LP enumeration")
    grids = [(g, dim) for dim in range(1, 7) for g in range(1, 37) if g**dim <= 36]
    total, largest = 0.0, (0, "")
    for g, dim in grids:
        P = grid(g, dim)
        t = time.perf_counter()
        a = halfspace_dichotomies(P)
        b = halfspace_dichotomies(P, method="lp")
        total += time.perf_counter() - t
        assert np.array_equal(a, b), (g, dim)
        largest = max(largest, (len(a), f"g={g} dim={dim}"))
    say(f"  all {len(grids)} grids with g^dim <= 36 agree (most dichotomies: {largest[1]}, "
        f"{largest[0]:,}); {total:.1f} s")
    rng = np.random.default_rng(seed)
    counts = {"general": 0, "special": 0}
    t = time.perf_counter()
    for dim in (2, 3, 4):
        for _ in range(60):
            N = int(rng.integers(3, 13))
            general = rng.integers(-1000, 1001, size=(N, dim))
            special = rng.integers(0, 3, size=(N, dim))  # collinear/coplanar, duplicates
            for kind, P in (("general", general), ("special", special)):
                assert np.array_equal(halfspace_dichotomies(P),
                                      halfspace_dichotomies(P, method="lp")), (kind, P.tolist())
                counts[kind] += 1
    say(f"  random point sets (seed {seed}, 3..12 points in d = 2, 3, 4): "
        f"{counts['general']} in general position, {counts['special']} in special position "
        f"(coordinates in {{0,1,2}}, with repeats): all agree; {time.perf_counter() - t:.1f} s")
    FIGURES["cross_check"] = {"grids": [list(x) for x in grids], "random": counts,
                              "seed": seed}


def bench_tables(budget: float) -> None:
    say(f"== tables (budget {budget:g} s per dimension per member)")
    rows = []
    for fam, ranges in [("conjunctions", {"n": "1..6"}), ("interval_unions", {"n": "2..9",
                                                                             "k": "1..3"}),
                        ("rectangles", {"g": "2..4", "dim": "1,2"}), ("majority", {"n": "1..5"}),
                        ("halfspaces", {"g": "2..6", "dim": 2}),
                        ("tagged_thresholds", {"n": "1..31", "t": "0..3"}),
                        ("tagged_points", {"n": "1..16", "t": "0..4"}),
                        ("weight_extremes", {"n": "2..12", "d1": "0..2", "d2": "0..2"}),
                        ("threshold_blocks", {"k": "1..8", "t": "1..8"})]:
        T = dimension_table(fam, ranges, budget=budget)
        c = T.counts()
        say(f"  {fam} {ranges}: {c['members']} members in {T.seconds:.1f} s; {c['exact']} exact, "
            f"{c['partial']} bounded; formulas {c['agrees']} agree, {c['disagrees']} disagree "
            f"({c['findings']} unrecorded), {c['undecided']} undecided")
        rows.append({"family": fam, "ranges": ranges, "seconds": round(T.seconds, 2), **c})
    FIGURES["tables"] = rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small budgets, no LP baseline")
    ap.add_argument("--cross-check", action="store_true",
                    help="LP vs combinatorial on every grid g^dim <= 36 and random sets (slow)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds per dimension for the large grids (default 300, quick 10)")
    ap.add_argument("--seed", type=int, default=16)
    args = ap.parse_args(argv)
    budget = args.budget if args.budget is not None else (10.0 if args.quick else 300.0)
    t0 = time.perf_counter()
    say(f"machine: {platform.machine()}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f} "
        f"at start, python {platform.python_version()}")
    bench_build(args.quick)
    bench_tables(2.0 if args.quick else 10.0)
    if args.cross_check:
        bench_cross_check(args.seed)
    bench_dims(budget)
    say(f"load {os.getloadavg()[0]:.1f} at end; total {time.perf_counter() - t0:.0f} s")
    out = RESULTS / "quick" if args.quick else RESULTS
    out.mkdir(parents=True, exist_ok=True)
    cmd = "python -m benchmarks.bench_catalog " + " ".join(argv if argv is not None
                                                             else sys.argv[1:])
    (out / "catalog.md").write_text(f"# {cmd.strip()}\n\n```\n" + "\n".join(LINES) + "\n```\n",
                                    encoding="utf-8")
    (out / "catalog.json").write_text(json.dumps(FIGURES, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
