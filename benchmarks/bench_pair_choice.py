"""Which pair the planned search chooses (issue 42): the search up to its final audit, on many
seeds, each chosen pair scored by its whole-budget certification ceiling.

``audit_search(m, base, claimed_epsilon=0.1, total_runs=R, seed=s)`` on DP-Sniper's suite, with
the final audit replaced by a stop that records the chosen pair (the pilots are the search's
own; nothing is certified), two ways:

* **after** — the library's defaults (pilots scored on shrunk counts, ``pilot_ranking``; score
  pilots for vectors of few-valued coordinates, ``score_pilot``);
* **before** — ``pilot_shrink=None`` (the plug-in projection at smoothed frequencies) and, on
  rows whose probe sends them to score pilots, ``pilots="cells"`` (pilot audits, as before);
  on rows with binned pilots (scalar continuous outputs), ``pool_pilots=False`` (each pair
  ranked on its own runs, as before).

Each chosen pair is scored by ``certification_ceiling`` of its exact cells at R/2 runs per
dataset (``bench_dpsniper_headline.pair_cells``): the most any event of that pair could certify
with the whole budget.  Reported per row and rule: the mean over the seeds, the number of
seeds on a pair within 2% of the row's largest ceiling among the chosen pairs' (seeds 0..N-1),
and the seconds the searches took up to their final audits (probe and pilots; ceilings not
counted).

Run:   python -m benchmarks.bench_pair_choice [--seeds 30] [--runs 2e6] [--only ROW ...]
       python -m benchmarks.bench_pair_choice --quick      # ReportNoisyMax3, 4 seeds
Writes ``results/pair_choice.json`` and ``results/pair_choice.md`` (``--quick``:
``results/quick/``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_dpsniper_headline import ALPHA, EPS, pair_cells
from ltheory.privacy.auditing import search as search_mod
from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.auditing.pilots import probe_outputs
from ltheory.privacy.auditing.target import as_target
from ltheory.privacy.mechanisms import dpsniper_suite

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "pair_choice.json"
ROWS = ("ReportNoisyMax1", "ReportNoisyMax2", "ReportNoisyMax3", "ReportNoisyMax4", "SVT1",
        "SVT2", "SVT3", "SVT4", "SVT6", "NumericalSVT", "Rappor", "OneTimeRappor",
        "TruncatedGeometric")


class _Chosen(Exception):
    """Raised in place of the final audit, carrying the chosen pair."""


def _stop(target, a, b, *args, **kw):
    raise _Chosen(a, b)


def chosen_pair(m, base, runs: int, seed: int, **options) -> tuple:
    """The pair ``audit_search`` would audit (its final audit is not run)."""
    real = search_mod.run_audit
    search_mod.run_audit = _stop
    try:
        search_mod.audit_search(m, base, claimed_epsilon=EPS, total_runs=runs, seed=seed,
                                exact=False, arithmetic="real", **options)
    except _Chosen as e:
        return tuple(e.args[0]), tuple(e.args[1])
    finally:
        search_mod.run_audit = real
    raise RuntimeError("the search returned without reaching its final audit")


def before_options(m, base) -> dict:
    """The options that give the search as it was before issue 42 on this row."""
    pairs = search_mod.neighbouring_candidates(as_target(m), base, "auto", 0, "audit")[0]
    _, a, b = pairs[0]
    probe = probe_outputs(as_target(m), a, b, 2_000, np.random.SeedSequence(0), None)
    opts: dict = {"pilot_shrink": None}
    if probe.kind == "coordinates":
        opts["pilots"] = "cells"
    if probe.kind == "numeric" and probe.columns == 1:      # binned pilots were not pooled
        opts["pool_pilots"] = False
    return opts


def run_row(name: str, runs: int, seeds: int) -> dict:
    m, base = dpsniper_suite(EPS)[name]
    ceilings: dict = {}
    out = {"mechanism": name, "runs_budget": runs, "seeds": seeds}
    for rule, opts in (("before", before_options(m, base)), ("after", {})):
        secs, chosen = 0.0, []
        for s in range(seeds):
            t = time.perf_counter()
            a, b = chosen_pair(m, base, runs, s, **opts)
            secs += time.perf_counter() - t          # the search's pilots only, no ceilings
            if (a, b) not in ceilings:
                ceilings[(a, b)] = certification_ceiling(*pair_cells(name, m, a, b), runs / 2,
                                                         ALPHA)
            chosen.append(ceilings[(a, b)])
        out[rule] = {"options": {k: v for k, v in opts.items()}, "ceilings": chosen,
                     "seconds": round(secs, 1)}
    top = max(ceilings.values())
    out["largest_ceiling"] = top
    for rule in ("before", "after"):
        c = out[rule]["ceilings"]
        out[rule]["mean"] = float(np.mean(c))
        out[rule]["at_largest"] = int(sum(x >= 0.98 * top for x in c))
    return out


def table(rows: list[dict]) -> str:
    out = ["# Which pair the planned search chooses (issue 42)", "",
           "`benchmarks/bench_pair_choice.py`: the search up to its final audit, seeds 0..N-1; "
           "each chosen pair scored by its whole-budget certification ceiling. *before*: "
           "`pilot_shrink=None` (and pilot audits where score pilots now run, unpooled binned "
           "pilots on scalar continuous outputs); *after*: the "
           "defaults. Mean chosen ceiling (seeds on a pair within 2% of the largest ceiling "
           "chosen); seconds: all the seeds' searches up to their final audits (probe and "
           "pilots).", "",
           "| row | runs | seeds | before | after | largest ceiling | seconds before / after |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        b, a = r["before"], r["after"]
        out.append(f"| {r['mechanism']} | {r['runs_budget']:.0e} | {r['seeds']} | "
                   f"{b['mean']:.4f} ({b['at_largest']}) | {a['mean']:.4f} ({a['at_largest']}) "
                   f"| {r['largest_ceiling']:.4f} | {b['seconds']:.0f} / {a['seconds']:.0f} |")
    return "\n".join(out) + "\n"


def main() -> None:
    global OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=float, default=2e6)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    names = args.only or list(ROWS)
    if args.quick:
        OUT = HERE / "results" / "quick" / "pair_choice.json"
        OUT.parent.mkdir(parents=True, exist_ok=True)
        names, args.seeds = ["ReportNoisyMax3"], 4
    old = json.loads(OUT.read_text()) if OUT.exists() else []
    rows = []
    for name in names:
        r = run_row(name, int(args.runs), args.seeds)
        print(f"{name:18s} before {r['before']['mean']:.4f} ({r['before']['at_largest']}) "
              f"after {r['after']['mean']:.4f} ({r['after']['at_largest']}) "
              f"largest {r['largest_ceiling']:.4f}", flush=True)
        rows.append(r)
    keys = {(r["mechanism"], r["runs_budget"]) for r in rows}
    rows = [r for r in old if (r["mechanism"], r["runs_budget"]) not in keys] + rows
    OUT.write_text(json.dumps(rows, indent=1) + "\n")
    OUT.with_suffix(".md").write_text(table(rows))


if __name__ == "__main__":
    main()
