"""The pattern-block cell family (``events.PatternEncoder``, issue 42): its gain on the rows of
DP-Sniper's suite whose outputs have blocks of few-valued coordinates beside continuous ones,
and the soundness of the bounds it gives.

*Gain*: the handed audits of the headline (``bench_dpsniper_headline``'s records: each seed's
pair, `audit()` defaults, 2·10^6 runs) of SVT34Parallel, NumericalSVT and SVT3 — the only rows
with such blocks — rerun on the same seeds with the family off and on
(``events.PATTERN_BLOCKS``), each bound against the pair's whole-budget ceiling.

*Soundness*: SVT34Parallel's SVT4 block has an exact output distribution (its 56 ⊤/⊥
patterns), so the family's whole path is simulated there at the audit's split of 2·10^6 runs
(10^5 selection runs per dataset, 9·10^5 certifying): the block's patterns drawn from their
exact probabilities beside a continuous coordinate (so the family applies), the family's
two-fold scoring (``events._cell_candidates``) and the selection's pick (``events._pick``: the
whole-split order's best prefix among the positions the credibility screen passed), the
certified bound of that event at α = 0.05 on binomial counts of its exact probabilities
(``certified_bound``, the audit's test) — against the exact log-ratio of the event.  The share
of draws whose bound exceeds it must stay near or below α.  The same draws score the two cuts
the family could deploy: the one it deploys and the two-fold curve's own best length on the
same order.

Run:  python -m benchmarks.bench_pattern_blocks [--quick] [--skip-gain] [--draws N]
Writes ``results/pattern_blocks.json`` and ``results/pattern_blocks.md`` (``--quick``:
``results/quick/``).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from benchmarks.bench_dpsniper_headline import load as headline_records
from ltheory.privacy import audit
from ltheory.privacy.auditing import events
from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.auditing.exact import aligned
from ltheory.privacy.auditing.neighbours import query_patterns
from ltheory.privacy.auditing.projection import certified_bound, projected_bound
from ltheory.privacy.mechanisms import dpsniper_suite

HERE = Path(__file__).resolve().parent
ALPHA = 0.05
RUNS = 2_000_000
SEEDS = (1, 2, 3, 4, 5, 6, 7, 8, 2024)
ROWS = ("SVT34Parallel", "NumericalSVT", "SVT3")
#: the shrinkage credible candidates of vector outputs are ranked at, at this budget
#: (``events.CREDIBLE_SHRINK``)
SHRINK = events.CREDIBLE_SHRINK


def gain(seeds: tuple[int, ...], runs: int) -> list[dict]:
    """Each row's handed audits with the family off and on (same seeds, same pairs)."""
    recs = {(r["mechanism"], r["seed"]): r for r in headline_records()
            if r["runs_budget"] == runs and r["mode"] == "handed"}
    out = []
    for name in ROWS:
        m, _ = dpsniper_suite(0.1)[name]
        for seed in seeds:
            rec = recs[(name, seed)]
            row = {"mechanism": name, "seed": seed, "pair": rec["pair"],
                   "ceiling_budget": rec["ceiling_budget"]}
            for on in (False, True):
                events.PATTERN_BLOCKS = on
                try:
                    r = audit(m, tuple(rec["d0"]), tuple(rec["d1"]), claimed_epsilon=0.1,
                              runs=runs, seed=seed, alpha=ALPHA, exact=False,
                              arithmetic="real")
                finally:
                    events.PATTERN_BLOCKS = True
                row["on" if on else "off"] = r.epsilon_lower_bound
                row["event_on" if on else "event_off"] = r.event[:120]
            out.append(row)
            print(json.dumps(row), flush=True)
    return out


def _rows(p: np.ndarray, patterns: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n outputs: a pattern drawn from ``p`` and a standard normal coordinate."""
    return np.column_stack([patterns[rng.choice(len(p), size=n, p=p)], rng.normal(size=n)])


def soundness(pair: str, draws: int, seed: int = 0) -> dict:
    """The family's path on SVT34Parallel's SVT4 block (module docstring), ``draws`` times."""
    m, base = dpsniper_suite(0.1)["SVT34Parallel"]
    a, b = next((x, y) for name, x, y in query_patterns(base) if name == pair)
    keys, p0, p1 = aligned(m.parts[1].output_distribution(a),
                           m.parts[1].output_distribution(b))
    patterns = np.array([list(k) for k in keys], dtype=float)
    n_sel = int(0.1 * RUNS / 2)
    n_cert = RUNS // 2 - n_sel
    a_each = ALPHA / 2                      # one certified event: the audit's level α
    rng = np.random.default_rng(seed)
    out: dict = {"pair": pair, "draws": draws, "patterns": len(p0),
                 "block_ceiling": certification_ceiling(p0, p1, RUNS / 2, ALPHA),
                 "bounds": [], "exact": [], "deployed_expected": [],
                 "twofold_cut_expected": [], "cells": []}
    lookup = {tuple(r): i for i, r in enumerate(patterns.tolist())}
    for _ in range(draws):
        s0, s1 = _rows(p0, patterns, n_sel, rng), _rows(p1, patterns, n_sel, rng)
        (f0, e0), (f1, e1) = events._split(s0), events._split(s1)
        encs = events.make_pattern_encoders(f0, f1)
        blocks: list = []
        for enc in encs:
            events._cell_candidates((f0, f1), (e0, e1), n_cert, a_each, 0.0, blocks, enc,
                                    "auto", SHRINK)
        # the selection's own pick (``events._pick``): credible positions first, the family's
        # whole-split cut among its credible positions, the screen shared by its two
        # directions alone (the least strict share, so the most whole-split cuts)
        c = events._pick(blocks, 0.0, events.SCREEN)[0]
        i = int(np.flatnonzero(blocks[c.direction].proj == c.projected)[0])   # its position
        enc = c.event.encoder

        def prob(cells: np.ndarray, enc=enc) -> tuple[float, float]:
            inside = np.isin(enc.encode(np.column_stack([patterns, np.zeros(len(p0))])),
                             cells)
            return float(p0[inside].sum()), float(p1[inside].sum())

        q0, q1 = prob(c.event.cells)
        qa, qb = (q0, q1) if c.direction == 0 else (q1, q0)
        ka, kb = rng.binomial(n_cert, qa), rng.binomial(n_cert, qb)
        bound = float(certified_bound(ka, n_cert, kb, n_cert, 2 * a_each, 0.0, c.test))
        exact = math.log(qa / qb) if qb > 0 else math.inf
        # the cut the two-fold curve itself picks: its length on the whole-split order
        w0, w1 = (np.bincount(k[k >= 0], minlength=len(lookup) + 1)
                  for k in (enc.encode(np.concatenate(x)) for x in ((f0, e0), (f1, e1))))
        seen = np.nonzero(w0[: len(w0)] + w1[: len(w1)])[0]
        order = events._lr_order(w0.astype(float), w1.astype(float), seen, c.direction)
        t0, t1 = prob(order[: i + 1])
        ta, tb = (t0, t1) if c.direction == 0 else (t1, t0)
        out["bounds"].append(bound)
        out["exact"].append(exact)
        out["deployed_expected"].append(float(projected_bound(qa, qb, n_cert, ALPHA, 0.0,
                                                              "auto")))
        out["twofold_cut_expected"].append(float(projected_bound(ta, tb, n_cert, ALPHA, 0.0,
                                                                 "auto")))
        out["cells"].append(len(c.event.cells))
    bounds, exact = np.array(out["bounds"]), np.array(out["exact"])
    out["exceed"] = int(np.sum(bounds > exact))
    out["mean_bound"] = float(np.mean(np.maximum(bounds, 0.0)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--table", action="store_true",
                    help="rewrite the Markdown table from the results file, nothing rerun")
    ap.add_argument("--draws", type=int, default=200,
                    help="simulated selections per pair (soundness)")
    ap.add_argument("--skip-gain", action="store_true",
                    help="keep the gain rows of the results file (soundness only)")
    args = ap.parse_args()
    where = HERE / "results" / ("quick" if args.quick else "")
    where.mkdir(parents=True, exist_ok=True)
    path = where / "pattern_blocks.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    draws = 20 if args.quick else args.draws
    if args.skip_gain or args.table:
        gains = old.get("gain", [])
    else:
        gains = gain(SEEDS[:1] if args.quick else SEEDS, 2 * 10**5 if args.quick else RUNS)
    if args.table:
        sound = old["soundness"]
    else:
        sound = [soundness(p, draws) for p in ("half-half", "one above rest below")]
        path.write_text(json.dumps({"gain": gains, "soundness": sound}, indent=1) + "\n")
    draws = sound[0]["draws"]
    lines = ["# The pattern-block cell family (issue 42)", "",
             "Generated by `python -m benchmarks.bench_pattern_blocks` (the gain rows' *on* "
             "column last taken from the headline rerun's handed audits, the same audits; "
             "`--skip-gain` keeps the gain rows of the results file).", "",
             "## Gain: handed audits at 2·10^6 runs, the headline's pairs and seeds", "",
             "Mean bound with the family off → on, and the mean ratio to each pair's "
             "whole-budget ceiling.", "",
             "| row | seeds | off | on | ratio off → on | seeds changed (off → on) |",
             "|---|---|---|---|---|---|"]
    for name in ROWS:
        rs = [r for r in gains if r["mechanism"] == name]
        if not rs:
            continue
        off, on = np.mean([r["off"] for r in rs]), np.mean([r["on"] for r in rs])
        roff = np.mean([r["off"] / r["ceiling_budget"] for r in rs])
        ron = np.mean([r["on"] / r["ceiling_budget"] for r in rs])
        changed = ", ".join(f"{r['seed']}: {r['off']:.4f} → {r['on']:.4f}" for r in rs
                            if r["on"] != r["off"]) or "none"
        lines.append(f"| {name} | {len(rs)} | {off:.4f} | {on:.4f} | {roff:.3f} → {ron:.3f} | "
                     f"{changed} |")
    lines += ["", "## Soundness: SVT34Parallel's SVT4 block, exact probabilities", "",
              f"{draws} simulated selections per pair at the audit's split of 2·10^6 runs; the "
              "certified bound (α = 0.05) of the event the family deploys against that event's "
              "exact log-ratio; the mean certified bound (negative as 0) against the block's "
              "whole-budget ceiling; at expected counts (``projected_bound``), the deployed "
              "event's bound and that of the event cut at the two-fold curve's own best length "
              "on the same order (the other cut the family could deploy).", "",
              "| pair | patterns | above the exact log-ratio | mean bound | block ceiling | "
              "ratio | at expected counts: deployed / two-fold cut | cells deployed (median) |",
              "|---|---|---|---|---|---|---|---|"]
    for s in sound:
        dep = np.mean(np.maximum(np.array(s["deployed_expected"]), 0.0))
        tf = np.mean(np.maximum(np.array(s["twofold_cut_expected"]), 0.0))
        lines.append(f"| {s['pair']} | {s['patterns']} | {s['exceed']} of {s['draws']} "
                     f"({100 * s['exceed'] / s['draws']:.1f}%) | {s['mean_bound']:.4f} | "
                     f"{s['block_ceiling']:.4f} | {s['mean_bound'] / s['block_ceiling']:.2f} | "
                     f"{dep:.4f} / {tf:.4f} | {int(np.median(s['cells']))} |")
    (where / "pattern_blocks.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
