"""Budgets at scale (issue 40): ``ltheory dims FILE --budget B`` on a 200 MB class file.

    python -m benchmarks.bench_budget_scale [--n 14142] [--budget 5] [--dir /tmp]
                                            [--before SRC] [--skip-generate]

Generates thresholds on n points (n + 1 hypotheses; n = 14,142 gives a 200 MB file) with the
catalog's own family builder and class-file writer into ``--dir`` (never into the repository),
then runs, each in a fresh process (``python -m ltheory.cli``), wall time and peak RSS measured
by ``/usr/bin/time``:

* loading alone (``ltheory.load_class``), its time and peak RSS;
* ``dims FILE --only KEY --budget B --json`` for each dimension, and ``dims FILE --budget B
  --json`` (all three: the contract is one budget for the whole command, loading included,
  within B + 1 s + 10% of B);
* the memory per hypothesis x point: the loaded class at rest and the peak of loading, on the
  big file and on a quarter-size one (to check it is linear before extrapolating to 24 GB).

``--before SRC`` also runs the same commands on another source tree (e.g. ``git archive`` of
the commit before issue 40 unpacked into /tmp) for the before/after table.  Results go to
``benchmarks/results/budget_scale.json`` and ``budget_scale.md``.  Run by hand: timings depend on
the machine and its load (it is printed), never as a unit test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results"

LOAD = """
import json, resource, sys, time
t = time.perf_counter()
from ltheory import load_class
t1 = time.perf_counter()
H = load_class(sys.argv[1])
t2 = time.perf_counter()
rest = H.matrix.nbytes + H.packed.nbytes
import ltheory
print(json.dumps({"module": ltheory.__file__, "import_seconds": t1 - t,
                  "load_seconds": t2 - t1, "hypotheses": len(H),
                  "points": H.domain_size, "at_rest_bytes": rest}))
"""


def generate(n: int, path: Path) -> float:
    """Thresholds on n points, written with the project's class-file writer; seconds."""
    code = ("import sys\nfrom ltheory.catalog.builders import FAMILIES\n"
            "from ltheory.core.class_file import save_class\n"
            f"H = FAMILIES['thresholds'].build(n={n}).with_name('thresholds n={n}')\n"
            "save_class(H, sys.argv[1])\n")
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(path)], check=True,
                   env=_env(str(ROOT)), cwd=str(ROOT))
    return time.perf_counter() - t


def _env(src: str) -> dict[str, str]:
    return os.environ | {"PYTHONPATH": src}


def measure(args: list[str], src: str) -> dict[str, Any]:
    """Run ``python ARGS`` in ``src`` (its own tree first on the path: ``python -m`` puts the
    working directory first) under ``/usr/bin/time``: wall seconds, peak RSS (MB) of that
    process alone (``ru_maxrss`` read by a small parent: a child forked from this big process
    would inherit its high-water mark), exit code, and stdout parsed as JSON when it is."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as timing:
        t = time.perf_counter()
        code = subprocess.call(["/usr/bin/time", "-f", "%e %M", "-o", timing.name,
                                sys.executable, *args], stdout=out, stderr=err,
                               env=_env(src), cwd=src)
        wall = time.perf_counter() - t
        _, rss_kb = timing.read().split()[-2:]
        out.seek(0)
        err.seek(0)
        text = out.read().decode()
        row: dict[str, Any] = {"wall_seconds": round(wall, 3),
                               "peak_rss_mb": round(int(rss_kb) / 1024, 1),
                               "exit": code, "stderr": err.read().decode()[-300:]}
    try:
        row["json"] = json.loads(text)
    except ValueError:
        row["stdout"] = text[:300]
    return row


def summarise(doc: dict[str, Any], key: str) -> dict[str, Any]:
    r = doc[key]
    return {"value": r["value"], "exact": r["exact"], "lower": r["lower"], "upper": r["upper"],
            "verified": r.get("verified"), "seconds": r["seconds"]}


def run_tree(src: str, path: Path, budget: float, repeat: int = 1) -> dict[str, Any]:
    out: dict[str, Any] = {"source": src}
    load = measure(["-c", LOAD, str(path)], src)
    out["load"] = load.pop("json", {}) | {k: load[k] for k in ("wall_seconds", "peak_rss_mb")}
    runs = ["vc", "ldim", "tdim"] + [None] * repeat
    for i, only in enumerate(runs):
        args = ["-m", "ltheory.cli", "dims", str(path), "--budget", str(budget), "--json"]
        if only is not None:
            args += ["--only", only]
        row = measure(args, src)
        doc = row.pop("json", None)
        if doc is not None:
            row["results"] = {k: summarise(doc, k) for k in ("vc", "ldim", "tdim") if k in doc}
        name = only or ("all" if i == 3 else f"all (run {i - 2})")
        row["load_average"] = [round(x, 2) for x in os.getloadavg()]
        out[name] = row
        print(f"  {name}: {row['wall_seconds']} s, {row['peak_rss_mb']} MB, "
              f"{row.get('results')}", flush=True)
    return out


def memory_per_cell(path: Path, small: Path, src: str) -> dict[str, Any]:
    rows = {}
    for name, p in (("small", small), ("large", path)):
        r = measure(["-c", LOAD, str(p)], src)
        info = r["json"]
        cells = info["hypotheses"] * info["points"]
        base = measure(["-c", "import ltheory"], src)["peak_rss_mb"]
        rows[name] = {"hypotheses": info["hypotheses"], "points": info["points"],
                      "cells": cells, "file_bytes": p.stat().st_size,
                      "load_peak_rss_mb": r["peak_rss_mb"], "import_rss_mb": base,
                      "load_peak_bytes_per_cell": round((r["peak_rss_mb"] - base) * 2**20
                                                        / cells, 3),
                      "at_rest_bytes_per_cell": round(info["at_rest_bytes"] / cells, 4)}
    return rows


def markdown(res: dict[str, Any]) -> str:
    b = res["budget"]
    lines = ["# Budgets at scale (benchmarks/bench_budget_scale.py)", "",
             f"Machine: {res['machine']}, {res['cpus']} cores, load average at start "
             f"{res['load_average']}.  File: thresholds on {res['n']:,} points "
             f"({res['n'] + 1:,} hypotheses), {res['file_bytes']:,} bytes.  "
             f"`ltheory dims FILE --budget {b:g}`; contract for the whole command: "
             f"{b:g} s + 1 s + 10% = {b + 1 + 0.1 * b:.1f} s wall, loading included.", ""]
    for tag in ("before", "after"):
        t = res.get(tag)
        if t is None:
            continue
        when = (f", measured earlier at load average {t['load_average']}"
                if t.get("load_average") else "")
        lines += [f"## {tag} ({t['source']}{when})", "",
                  f"Loading alone: {t['load'].get('load_seconds', float('nan')):.2f} s "
                  f"(imports {t['load'].get('import_seconds', float('nan')):.2f} s), peak RSS "
                  f"{t['load']['peak_rss_mb']:,.0f} MB.", "",
                  "| command | wall s | peak RSS MB | load avg (1 min) | results (value, exact, "
                  "lower..upper, verified, engine s) |", "|---|---|---|---|---|"]
        for key in [k for k in t if k in ("vc", "ldim", "tdim") or k.startswith("all")]:
            row = t[key]
            cells = "; ".join(f"{k}: {r['value']} {'exact' if r['exact'] else 'bounds'} "
                              f"{r['lower']}..{r['upper']} "
                              f"{'verified' if r['verified'] in (True, None) else 'UNVERIFIED'}"
                              f" {r['seconds']:.2f} s"
                              for k, r in row.get("results", {}).items()) or row.get(
                                  "stderr", "")[-120:]
            name = f"--only {key}" if not key.startswith("all") else "all three" + key[3:]
            la = row.get("load_average", ["?"])[0]
            lines.append(f"| {name} | {row['wall_seconds']} | {row['peak_rss_mb']:,.0f} | {la} | "
                         f"{cells} |")
        alls = [t[k]["wall_seconds"] for k in t if k.startswith("all")]
        limit = b + 1 + 0.1 * b
        lines += ["", f"All three dimensions within the contract ({limit:.1f} s): "
                  f"{sum(w <= limit for w in alls)} of {len(alls)} runs (worst {max(alls)} s).",
                  ""]
    lines += ["Reading: `bounds lo..hi` are proven bounds (the budget ran out first); "
              "`UNVERIFIED` means the engine's witness could not be re-checked within the "
              "budget, so the dimension is shown as 0..upper (the unchecked value is in "
              "`stats.unverified`), never as an unchecked exact value.  Single-dimension runs "
              "have the whole budget for one dimension.  The test machine's 2 cores are shared: "
              "the 1-minute load average of each run is shown.", ""]
    mem = res.get("memory")
    if mem:
        lines += ["## Memory per hypothesis x point", "",
                  "| class | cells | file bytes | load peak RSS MB | load peak bytes/cell | "
                  "at rest bytes/cell |", "|---|---|---|---|---|---|"]
        for row in mem["rows"].values():
            lines.append(f"| {row['hypotheses']:,} x {row['points']:,} | {row['cells']:,} | "
                         f"{row['file_bytes']:,} | {row['load_peak_rss_mb']:,.0f} | "
                         f"{row['load_peak_bytes_per_cell']} | {row['at_rest_bytes_per_cell']} |")
        lines += ["", mem["note"], ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=14142)
    ap.add_argument("--budget", type=float, default=5.0)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--before", default=None, help="another source tree to compare")
    ap.add_argument("--skip-generate", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="runs of the all-three command")
    ap.add_argument("--reuse-before", action="store_true",
                    help="keep the 'before' runs of the last results file")
    args = ap.parse_args()
    path = Path(args.dir) / f"ltheory_thresholds_{args.n}.json"
    small = Path(args.dir) / f"ltheory_thresholds_{args.n // 2}.json"
    res: dict[str, Any] = {"machine": platform.platform(), "cpus": os.cpu_count(),
                           "load_average": [round(x, 2) for x in os.getloadavg()],
                           "n": args.n, "budget": args.budget}
    if not (args.skip_generate and path.exists()):
        res["generate_seconds"] = round(generate(args.n, path), 2)
    if not (args.skip_generate and small.exists()):
        generate(args.n // 2, small)
    res["file_bytes"] = path.stat().st_size
    if args.before:
        print(f"before ({args.before}):", flush=True)
        res["before"] = run_tree(args.before, path, args.budget)  # slow: one run each
    elif args.reuse_before and (OUT / "budget_scale.json").exists():
        last = json.loads((OUT / "budget_scale.json").read_text())
        if "before" in last:
            res["before"] = {"load_average": last.get("load_average")} | last["before"]
    print(f"after ({ROOT}):", flush=True)
    res["after"] = run_tree(str(ROOT), path, args.budget, args.repeat)
    rows = memory_per_cell(path, small, str(ROOT))
    large = rows["large"]
    per_cell = large["load_peak_bytes_per_cell"]
    gib24 = 24 * 2**30
    res["memory"] = {"rows": rows, "note": (
        f"Loading a class file peaks at ~{per_cell} bytes per hypothesis x point (the bytes "
        f"read, the decoded text, the parsed strings, one joined copy and the matrix), and a "
        f"loaded class holds {large['at_rest_bytes_per_cell']} bytes per cell (the 0/1 matrix "
        f"and its packed rows).  Extrapolated to 24 GiB: a class file of about "
        f"{gib24 / per_cell:.2e} cells (~{int((gib24 / per_cell) ** 0.5):,} hypotheses x as "
        f"many points) would load, but class files are capped at 256 MiB "
        f"(`MAX_FILE_BYTES`, ~{2**28:,} cells), so the largest loadable file is the cap: "
        f"~16,384 hypotheses x 16,384 points, ~1.3 GB peak.")}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "budget_scale.json").write_text(json.dumps(res, indent=1) + "\n")
    (OUT / "budget_scale.md").write_text(markdown(res) + "\n")
    print(markdown(res))


if __name__ == "__main__":
    main()
