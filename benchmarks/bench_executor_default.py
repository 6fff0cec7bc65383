"""The default executor never loses to serial (issue 42, "executors that never lose").

``audit(executor=None)`` runs large audits on an ``AdaptiveExecutor`` (``executors.py``): the
first chunks in-process, timed, then a process pool only when its estimated time (start-up +
serial time over the free cores) is below 0.75 of the serial estimate.  This script times three
audits with ``executor="serial"``, the default and ``executor="process"`` (a pool always, the
old default above 2·10^6 runs), ``--reps`` times each, interleaved, and records the 1-minute
load average at each run: the machine is shared, so the load is part of the figure.

* SVT1 at 2·10^6 runs (the issue's case: fast chunks, the pool lost 15–22 s against 3 s);
* Laplace (real arithmetic) at 2·10^7 runs (fast chunks, many of them);
* a DP-SGD canary with T = 1,000 steps at 2·10^5 runs (slow chunks: where a pool can pay).

Run:  python -m benchmarks.bench_executor_default [--reps 3]
      -> benchmarks/results/executor_default.{json,md} (rows appended per run, labelled by load)
      python -m benchmarks.bench_executor_default --quick
      -> a smoke test (runs / 100, one rep) into benchmarks/results/quick/ (git-ignored)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from ltheory.privacy import audit
from ltheory.privacy.mechanisms import DPSGDCanary, LaplaceMechanism, SparseVector

OUT = Path(__file__).parent / "results"


def cases(scale: float = 1.0) -> list[tuple[str, object, tuple, dict]]:
    svt = SparseVector(1.0, variant=1)
    lap = LaplaceMechanism(1.0)
    sgd = DPSGDCanary(q=0.01, sigma=1.0, steps=1000)
    return [
        ("SVT1, 2e6 runs", svt, ((1.0, 1, 1, 1, 1), (0.0, 2, 2, 2, 2)),
         dict(claimed_epsilon=1.0, runs=int(2_000_000 * scale))),
        ("Laplace (real), 2e7 runs", lap, (0, 1),
         dict(claimed_epsilon=1.0, runs=int(20_000_000 * scale), arithmetic="real")),
        ("DP-SGD canary T=1000, 2e5 runs", sgd, sgd.default_pair(),
         dict(claimed_epsilon=2.0, claimed_delta=1e-5, runs=int(200_000 * scale),
              arithmetic="real")),
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: runs / 100, one rep, into results/quick/")
    args = ap.parse_args()
    out = OUT / "quick" if args.quick else OUT
    if args.quick:
        args.reps = 1
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, m, pair, kw in cases(0.01 if args.quick else 1.0):
        times: dict[str, list[float]] = {"serial": [], "default": [], "process": []}
        loads, notes, bounds = [], set(), set()
        for rep in range(args.reps):
            for label, ex in (("serial", "serial"), ("default", None), ("process", "process")):
                loads.append(os.getloadavg()[0])
                t0 = time.perf_counter()
                r = audit(m, *pair, seed=rep, executor=ex, **kw)
                times[label].append(time.perf_counter() - t0)
                bounds.add((rep, r.epsilon_lower_bound))
                if label == "default":
                    notes.update(n for n in r.notes if "process pool" in n)
        row = {"case": name, "load_mean": round(statistics.mean(loads), 2),
               **{f"{k}_median_s": round(statistics.median(v), 2) for k, v in times.items()},
               "default_over_serial": round(statistics.median(times["default"])
                                            / statistics.median(times["serial"]), 3),
               "pool_chosen": sorted(notes),
               "same_bounds": len(bounds) == args.reps}
        rows.append(row)
        print(json.dumps(row), flush=True)
    path = out / "executor_default.json"
    old = json.loads(path.read_text()) if path.exists() else []
    stamp = time.strftime("%Y-%m-%d %H:%M")
    old.append({"when": stamp, "cores": os.cpu_count(), "rows": rows})
    path.write_text(json.dumps(old, indent=1) + "\n")
    lines = ["# The default executor against serial and an always-on pool", "",
             "`benchmarks/bench_executor_default.py`; medians of the reps; the load is the "
             "1-minute load average during the runs (a shared machine).", ""]
    for run in old:
        lines += [f"## {run['when']} ({run['cores']} cores)", "",
                  "| case | load | serial s | default s | process s | default/serial | "
                  "pool chosen |", "|---|---|---|---|---|---|---|"]
        for r in run["rows"]:
            lines.append(f"| {r['case']} | {r['load_mean']} | {r['serial_median_s']} | "
                         f"{r['default_median_s']} | {r['process_median_s']} | "
                         f"{r['default_over_serial']} | {'yes' if r['pool_chosen'] else 'no'} |")
        lines.append("")
    (out / "executor_default.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
