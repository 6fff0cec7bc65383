"""Which pair the pair search's pilots pick, over many seeds, without the final audits (issue 14,
round 4): audit_search runs as in bench_dpsniper_suite (same plan, options and budget) but stops
where the final audit would start; the pick of each seed and the last rung's projections are
printed as JSON lines.  Pilot runs only, so ~6 s a seed for SVT2 at 2·10^7.

Run:  nice -n 10 python benchmarks/bench_dpsniper_pilot_picks.py SVT2 2e7 --seeds 0-31 [--pool]
"""

from __future__ import annotations

import argparse
import json
import time

from bench_dpsniper_suite import ALPHA, EPS, plan

import ltheory.privacy.auditing.pilots as pilots
import ltheory.privacy.auditing.search as search
from ltheory.privacy.mechanisms import dpsniper_suite


class _Picked(Exception):
    """Raised in place of the final audit, carrying the chosen pair."""


def picks(name: str, runs: int, seeds: list[int], pool: bool) -> list[dict]:
    m, base = dpsniper_suite(EPS)[name]
    gen, _, rungs, pilot, final = plan(m, base, runs, 2024)
    log: list[tuple] = []
    projection = pilots.plugin_projection

    def logged(d, *args):
        v = projection(d, *args)
        log.append((d["pattern"], d["_n"], v))
        return v

    def stop(*args, **kw):
        raise _Picked

    pilots.plugin_projection, final_audit = logged, search.run_audit
    search.run_audit = stop
    out = []
    try:
        for seed in seeds:
            log.clear()
            t = time.perf_counter()
            try:
                search.audit_search(m, base, gen, claimed_epsilon=EPS, runs=final,
                                    pilot_runs=pilot, seed=seed, alpha=ALPHA, rungs=rungs,
                                    max_pairs=64, certify="auto", exact=False,
                                    pool_pilots=pool, arithmetic="real")
            except _Picked:
                pass
            top = max(n for _, n, _ in log)
            last = sorted({p: (p, v) for p, n, v in log if n == top}.values(),
                          key=lambda x: -x[1])
            out.append({"seed": seed, "picked": last[0][0],
                        "last_rung": [(p, round(v, 4)) for p, v in last],
                        "seconds": round(time.perf_counter() - t, 1)})
            print(json.dumps(out[-1]), flush=True)
    finally:
        pilots.plugin_projection, search.run_audit = projection, final_audit
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mechanism")
    ap.add_argument("runs", type=float)
    ap.add_argument("--seeds", default="0-7", help="a range a-b or a comma list")
    ap.add_argument("--pool", action="store_true", help="audit_search(pool_pilots=True)")
    args = ap.parse_args()
    if "-" in args.seeds:
        lo, hi = map(int, args.seeds.split("-"))
        seeds = list(range(lo, hi + 1))
    else:
        seeds = [int(x) for x in args.seeds.split(",")]
    picks(args.mechanism, int(args.runs), seeds, args.pool)


if __name__ == "__main__":
    main()
