"""Benchmarks of the exact dimension algorithms (issue: foundation).  Run by hand:

    python -m benchmarks.bench_dims            # everything, including the slow baseline (~1 min)
    python -m benchmarks.bench_dims --quick    # skip the frozenset baseline
    python -m benchmarks.bench_dims --vc-seeds 32   # the VC heuristic's tail over more seeds
    python -m benchmarks.bench_dims --only vc-planted --vc-seeds 32   # the tail alone
    python -m benchmarks.bench_dims --only tdim --tdim-plain   # threshold part, with baseline

Writes what it prints to benchmarks/results/dims.md and the figures to dims.json
(``--only vc|tdim|vc-planted``: dims_vc / dims_tdim / dims_vc_planted; ``--quick``:
benchmarks/results/quick/, git-ignored).

Targets (from the issue):
  * Ldim of a seeded random class, 200 hypotheses on 20 points (p = 1/2): >= 100x faster than
    the plain memoised recursion over frozensets (measured here, in the same run), < 0.5 s;
  * VC of 1,024 random hypotheses on 60 points with a planted shattered set of size 9: exact in
    < 5 s (catalog family ``planted m=1024 n=60 d=9 p=0.5 seed=S``);
  * Ldim of intervals (with the empty set) on [n] for every n <= 64, generic algorithm; and of
    thresholds on [4096]: report the times;
  * threshold dimension of a random class of 120 hypotheses on 16 points: < 1 s; beside it, larger
    threshold searches (random 400 x 24, MAJ3 of random 60 x 16, conjunctions on {0,1}^6);
  * issue 16: T of parities n=8 and conjunctions n=7 exact within 120 s each, parities n=10 and
    conjunctions n=8 exact or with the gap (``--tdim-plain`` adds the search without symmetry,
    60 s each, as the baseline); the SAT ladder with orbit cuts on small members; VC of
    structured classes whose proof is a refutation (conjunctions n=7, halfplanes on 8 x 8 and
    12 x 12 grids, halfspaces on the 4 x 4 x 4 grid), with and without symmetry.
Every result's witness is re-checked by ltheory.dims.certificates.verify.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from ltheory import catalog, compose
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dimensions import littlestone_dimension, threshold_dimension, vc_dimension
from ltheory.dims.certificates import verify
from ltheory.dims.threshold import threshold_exact
from ltheory.dims.vc import vc_exact
from ltheory.sat import sat_threshold

RESULTS = Path(__file__).resolve().parent / "results"
LINES: list[str] = []
FIGURES: dict[str, object] = {}


def say(line: str) -> None:
    """Print a line of the report and keep it for benchmarks/results/dims.md."""
    print(line, flush=True)
    LINES.append(line)


def baseline_ldim(H: HypothesisClass) -> int:
    """The plain memoised recursion over frozensets of hypothesis indices (the baseline)."""
    M = H.matrix
    n = H.domain_size

    @functools.cache
    def ld(V: frozenset[int]) -> int:
        if len(V) <= 1:
            return len(V) - 1
        best = 0
        for x in range(n):
            ones = frozenset(h for h in V if M[h, x])
            zeros = V - ones
            if ones and zeros:
                best = max(best, 1 + min(ld(zeros), ld(ones)))
        return best

    return ld(frozenset(range(len(H))))


def timed(fn, *args, repeat: int = 1, **kw):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args, **kw)
        times.append(time.perf_counter() - t)
    return out, statistics.median(times)


def bench_ldim_random(quick: bool) -> None:
    say("== Littlestone dimension, random class m=200 n=20 p=1/2")
    for seed in range(3):
        H = catalog.family("random", m=200, n=20, p=0.5, seed=seed)
        r, t = timed(littlestone_dimension, H, repeat=5)
        verify(H, r)
        line = f"  seed={seed}: Ldim={r.value} exact={r.exact} ours={t * 1e3:.2f} ms"
        if not quick and seed == 0:
            b, tb = timed(baseline_ldim, H)
            assert b == r.value, (b, r.value)
            line += f"  baseline(frozenset memo)={tb:.2f} s  speedup={tb / t:,.0f}x"
        say(line)


def bench_vc_planted(seeds: int) -> None:
    say("== VC dimension, planted m=1024 n=60 d=9 p=1/2")
    times = []
    for seed in range(seeds):
        H = catalog.family("planted", m=1024, n=60, d=9, p=0.5, seed=seed)
        r, t = timed(vc_dimension, H)
        verify(H, r)
        times.append(t)
        planted = catalog.planted_points(1024, 60, 9, 0.5, seed)
        found = sorted(int(x) for x in r.witness)
        say(f"  seed={seed}: VC={r.value} exact={r.exact} {t:.2f} s nodes={r.stats['nodes']}"
              f" witness=planted:{found == planted}")
    say(f"  median {statistics.median(times):.2f} s, max {max(times):.2f} s, "
        f"{sum(t < 5 for t in times)}/{len(times)} under 5 s")
    FIGURES["vc_planted_seconds"] = [round(t, 3) for t in times]


def bench_vc_structured(quick: bool, heavy: bool = False) -> None:
    """Issue 16: VC of structured classes whose proof is a refutation over many sets (no
    larger shattered set exists), with and without the symmetry of the class."""
    say("== VC dimension, structured classes (refutations), symmetry on / off")
    cases = [("conjunctions n=7", 7, True), ("halfspaces g=8 dim=2", 3, True),
             ("halfspaces g=12 dim=2", 3, True)]
    if not quick:  # without symmetry this one takes > 5 min: symmetry only
        cases.append(("halfspaces g=4 dim=3", 4, False))
    if heavy:  # ~30 min on a loaded 2-core machine: symmetry only, by hand
        cases.append(("halfspaces g=5 dim=3", 4, False))
    rows = {}
    for spec, want, baseline in cases:
        H = catalog.from_spec(spec)
        for sym in (True, False) if baseline else (True,):
            r, t = timed(vc_exact, H, budget=3600 if heavy else 600, symmetry=sym)
            verify(H, r)
            ok = "exact" if r.exact else f"bounds {r.lower}..{r.upper}"
            s = r.stats.get("symmetry", {})
            say(f"  {spec} ({len(H):,} x {H.domain_size}) symmetry={sym}: VC={r.value} ({ok}, "
                f"known {want}) {t:.2f} s, nodes {r.stats['nodes']:,}, work "
                f"{r.stats['work']['total']:.2e}"
                + (f", group order {s['order']:.0f}, {s['orbits']} orbits" if s else ""))
            rows[f"{spec} symmetry={sym}"] = {"seconds": round(t, 3), "exact": r.exact,
                                              "value": r.value, "nodes": r.stats["nodes"]}
    FIGURES["vc_structured"] = rows


def bench_ldim_intervals() -> None:
    say("== Littlestone dimension, intervals with the empty set on [n], n = 1..64")
    total, first, prev = 0.0, {}, None
    worst = (0.0, 0)
    for n in range(1, 65):
        H = catalog.family("intervals", n=n, empty=True)
        r, t = timed(littlestone_dimension, H)
        verify(H, r)
        total += t
        worst = max(worst, (t, n))
        if r.value != prev:
            first[r.value] = n
            prev = r.value
    say(f"  first n reaching each value: {first}")
    say(f"  total {total:.2f} s for all n <= 64; slowest n={worst[1]} ({worst[0]:.3f} s)")
    n = 4096  # above the catalog's limit for thresholds, so built here: h_t(x) = 1 iff x >= t
    H = HypothesisClass.from_matrix(np.arange(n)[None, :] >= np.arange(n + 1)[:, None])
    r, t = timed(littlestone_dimension, H)
    verify(H, r)
    say(f"== Littlestone dimension, thresholds on [4096]: Ldim={r.value} exact={r.exact} "
          f"{t:.2f} s (class built separately)")


def bench_tdim_random() -> None:
    say("== threshold dimension, random class m=120 n=16 p=1/2")
    times = []
    for seed in range(10):
        H = catalog.family("random", m=120, n=16, p=0.5, seed=seed)
        r, t = timed(threshold_dimension, H)
        verify(H, r)
        times.append(t)
        say(f"  seed={seed}: T={r.value} exact={r.exact} {t:.2f} s nodes={r.stats['nodes']}")
    say(f"  median {statistics.median(times):.2f} s, max {max(times):.2f} s")
    FIGURES["tdim_random_120x16_seconds"] = [round(t, 4) for t in times]


def bench_tdim_larger(quick: bool) -> None:
    say("== threshold dimension, larger classes (exact search, 120 s budget each)")
    H = catalog.from_spec("random m=60 n=16 p=0.5 seed=2")
    cases = [("random m=400 n=24 p=0.5 seed=0", catalog.from_spec("random m=400 n=24 seed=0")),
             ("MAJ3(random m=60 n=16 seed=2)", compose("maj", H, H, H, lazy=True).materialise())]
    if not quick:
        cases.append(("conjunctions n=6", catalog.from_spec("conjunctions n=6")))
    for name, G in cases:
        r, t = timed(threshold_dimension, G, budget=120.0, method="exact")
        verify(G, r)
        say(f"  {name} ({len(G)} hypotheses, {G.domain_size} points): T={r.value} "
            f"exact={r.exact} [{r.lower}, {r.upper}] {t:.2f} s nodes={r.stats.get('nodes')}")
        FIGURES[f"tdim {name}"] = {"value": r.value, "exact": r.exact, "seconds": round(t, 3)}


def bench_tdim_structured(quick: bool, plain: bool) -> None:
    """Issue 16: T of parities and conjunctions by the symmetric trace search (120 s each);
    with ``plain``, the same search without symmetry beside it (60 s budget, the issue's
    baseline)."""
    say("== threshold dimension of structured classes (symmetric trace search, 120 s budget)")
    specs = ["parities n=6", "parities n=8", "parities n=10", "conjunctions n=5",
             "conjunctions n=6", "conjunctions n=7", "conjunctions n=8"]
    if quick:
        specs = ["parities n=6", "parities n=8", "conjunctions n=6", "conjunctions n=7"]
    for spec in specs:
        H = catalog.from_spec(spec)
        runs = [("symmetry", True, 120.0)] + ([("plain", False, 60.0)] if plain else [])
        for label, sym, budget in runs:
            r, t = timed(threshold_exact, H, budget=budget, symmetry=sym)
            verify(H, r)
            st = r.stats.get("symmetry", {})
            extra = (f" nauty={st.get('nauty_calls')} skipped={st.get('branches_skipped')}"
                     if sym else "")
            say(f"  {spec} ({len(H)} hypotheses, {H.domain_size} points) [{label}]: "
                f"T={r.value} exact={r.exact} [{r.lower}, {r.upper}] {t:.2f} s "
                f"nodes={r.stats.get('nodes')}{extra}")
            FIGURES[f"tdim {spec} {label}"] = {"value": r.value, "exact": r.exact,
                                                "lower": r.lower, "upper": r.upper,
                                                "seconds": round(t, 3),
                                                "nodes": r.stats.get("nodes")}
    say("== threshold dimension by the SAT ladder with orbit cuts on x_1, x_2 (120 s budget)")
    for spec in ["parities n=5", "parities n=6", "conjunctions n=5"]:
        H = catalog.from_spec(spec)
        r, t = timed(sat_threshold, H, budget=120.0)
        verify(H, r)
        conflicts = r.stats["calls"][-1]["conflicts"] if r.stats.get("calls") else 0
        say(f"  {spec}: T={r.value} exact={r.exact} [{r.lower}, {r.upper}] {t:.2f} s "
            f"last call {conflicts} conflicts")
        FIGURES[f"tdim sat {spec}"] = {"value": r.value, "exact": r.exact,
                                       "seconds": round(t, 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the frozenset baseline")
    ap.add_argument("--vc-seeds", type=int, default=8, help="planted VC instances (default 8)")
    ap.add_argument("--tdim-plain", action="store_true",
                    help="also run the structured threshold cases without symmetry (60 s each)")
    ap.add_argument("--heavy", action="store_true",
                    help="also the VC of halfspaces g=5 dim=3 (~30 min, the refutation of every "
                         "5-set of 125 points against 247,178 dichotomies)")
    ap.add_argument("--only", choices=["vc", "vc-planted", "tdim"], default=None,
                    help="run only the VC (planted and structured), the planted VC, or the "
                         "threshold benchmarks")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    say(f"numpy {np.__version__}, python {sys.version.split()[0]}; load average at the start "
        f"(1, 5, 15 min): {os.getloadavg()}")
    if args.only is None:
        bench_ldim_random(args.quick)
    if args.only in (None, "vc", "vc-planted"):
        bench_vc_planted(args.vc_seeds)
    if args.only in (None, "vc"):
        bench_vc_structured(args.quick, args.heavy)
    if args.only is None:
        bench_ldim_intervals()
    if args.only in (None, "tdim"):
        bench_tdim_random()
        bench_tdim_larger(args.quick)
        bench_tdim_structured(args.quick, args.tdim_plain)
    out = RESULTS / "quick" if args.quick else RESULTS
    out.mkdir(parents=True, exist_ok=True)
    say(f"load average at the end (1, 5, 15 min): {os.getloadavg()}")
    stem = f"dims_{args.only.replace('-', '_')}" if args.only else "dims"
    cmd = "python -m benchmarks.bench_dims" + (" --quick" if args.quick else "") + (
        f" --vc-seeds {args.vc_seeds}" if args.vc_seeds != 8 else "") + (
        " --tdim-plain" if args.tdim_plain else "") + (" --heavy" if args.heavy else "") + (
        f" --only {args.only}" if args.only else "")
    (out / f"{stem}.md").write_text(
        f"# Exact dimensions benchmark\n\nGenerated by `{cmd}` in "
        f"{time.perf_counter() - t0:.0f} s.\n\n```\n" + "\n".join(LINES) + "\n```\n")
    (out / f"{stem}.json").write_text(json.dumps(FIGURES, indent=1) + "\n")
    print(f"wrote {out / stem}.md and .json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
