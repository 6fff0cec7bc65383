"""Benchmarks for contradiction graphs (issue 4).  Run by hand:

    python -m benchmarks.bench_graphs            # includes networkx max_weight_clique (~3 min)
    python -m benchmarks.bench_graphs --quick    # skip the networkx baseline
    python -m benchmarks.bench_graphs --hard     # the members of the amsy24 checks that the
                                                 # branch and bound alone leaves open (~3 min)

ω_3 and ω*_3 of thresholds and intervals on [12] and of a seeded random class of 40 hypotheses on
10 points: "auto" (fast paths from the VC/Littlestone witnesses), the exact searches without the
fast paths (bitset branch and bound; LP constraint generation), and networkx max_weight_clique on
the same graphs.  ``--hard``: ω_m of the amsy24 checks' members where the branch and bound
alone (60 s budget) stops short, against the SAT ladder (``method="sat"``) and the default
(``"auto"``: 0.2 s of branch and bound, then the ladder); ``--hard`` writes what it prints to
benchmarks/results/graphs_clique_sat.md (the default run only prints).  Every result is
re-checked by ltheory.graphs.certificates.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from ltheory import catalog
from ltheory.graphs.certificates import verify_graph_result
from ltheory.graphs.clique import clique_number
from ltheory.graphs.contradiction import contradiction_graph
from ltheory.graphs.fractional import fractional_clique_number

SPECS = ["thresholds n=12", "intervals n=12", "random m=40 n=10 p=0.5 seed=0"]
HARD = [("random m=12 n=7 p=0.5 seed=1", 4), ("intervals n=7 empty=true", 5),
        ("thresholds n=12", 4)]


OUT = Path(__file__).resolve().parent / "results" / "graphs_clique_sat.md"


def hard() -> None:
    lines: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    load = os.getloadavg()[0]
    for spec, m in HARD:
        H = catalog.from_spec(spec)
        g = contradiction_graph(H, m)
        say(f"{spec}, m={m}: |H|={len(H)}, G_{m}: {len(g)} vertices, {g.num_edges} edges")
        for method in ("bnb", "sat", "auto"):
            t = time.perf_counter()
            r = clique_number(H, m, budget=60, method=method, fast_paths=False)
            dt = time.perf_counter() - t
            verify_graph_result(H, m, r)
            val = r.value if r.exact else f"{r.lower}..{r.upper}"
            sat = r.stats.get("sat")
            calls = len(sat["calls"]) if isinstance(sat, dict) else 0
            say(f"  ω {method:5s} = {val!s:7s} exact={r.exact}  {dt:7.2f} s  "
                f"(branch-and-bound nodes {r.stats.get('nodes', 0)}, SAT calls {calls})")
    OUT.write_text("# python -m benchmarks.bench_graphs --hard\n\n"
                   f"Load {load:.1f} at start (1-minute average; a shared machine); fast paths "
                   "off, budget 60 s per computation.\n\n```\n" + "\n".join(lines) + "\n```\n",
                   encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the networkx baseline")
    ap.add_argument("--m", type=int, default=3)
    ap.add_argument("--hard", action="store_true", help="only the hard amsy24 members")
    args = ap.parse_args()
    if args.hard:
        hard()
        return
    m = args.m
    for spec in SPECS:
        H = catalog.from_spec(spec)
        t = time.perf_counter()
        g = contradiction_graph(H, m)
        tg = time.perf_counter() - t
        print(f"{spec}: |H|={len(H)}, G_{m}: {len(g)} vertices, {g.num_edges} edges "
              f"(built in {tg:.3f} s)")
        runs = [("ω auto", lambda H=H: clique_number(H, m)),
                ("ω bnb (no fast path)", lambda H=H: clique_number(H, m, fast_paths=False)),
                ("ω* auto", lambda H=H: fractional_clique_number(H, m)),
                ("ω* LP (no fast path)",
                 lambda H=H: fractional_clique_number(H, m, fast_paths=False))]
        if not args.quick:
            runs.insert(2, ("ω networkx max_weight_clique",
                            lambda H=H: clique_number(H, m, fast_paths=False,
                                                      method="networkx")))
        times = {}
        for name, fn in runs:
            t = time.perf_counter()
            r = fn()
            dt = time.perf_counter() - t
            verify_graph_result(H, m, r)
            times[name] = dt
            val = r.stats.get("rational", r.value) if r.kind == "fclique" else r.value
            extra = {k: r.stats[k] for k in ("method", "rounds", "rows", "nodes") if k in r.stats}
            print(f"  {name:32s} = {val!s:6s} exact={r.exact}  {dt:8.3f} s  {extra}")
        if "ω networkx max_weight_clique" in times:
            base = times["ω networkx max_weight_clique"]
            print(f"  speed-up vs networkx: bnb {base / times['ω bnb (no fast path)']:.0f}x, "
                  f"auto {base / times['ω auto']:.0f}x")


if __name__ == "__main__":
    main()
