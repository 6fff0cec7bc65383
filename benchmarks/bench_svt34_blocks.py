"""Where SVT34Parallel's ceiling lies, block by block, and what a lean pattern family on its
SVT4 block would reach (issue 42, measured; nothing in the auditor uses it yet).

SVT34Parallel (DP-Sniper's suite) runs SVT3 and SVT4, each with c = 2, on independent noise
and concatenates their outputs: [SVT3 codes, SVT3 released values, SVT4 codes].  Its
log-likelihood ratio is the sum of the blocks' (``bench_dpsniper_ceilings.svt34_parallel_llr``),
so each block's own ratio gives the ceiling of the events that read that block only.  For each
of the headline's pairs this estimates, at 10^6 runs per dataset (2·10^6 runs, every run
certifying), the ceiling of the SVT3 block, of the SVT4 block and of both (Monte Carlo,
``bench_dpsniper_ceilings.estimated_ceiling``); and simulates the lean rule of few-valued
outputs (cells ordered by their add-½ selection ratios on the whole split, the prefix ranked at
one standard error, ``events``) on the SVT4 block's exact pattern probabilities at the
audit's split (10^5 selection runs per dataset, 9·10^5 certifying; 100 draws), scoring the
chosen prefix at its exact probabilities.

Run:  python -m benchmarks.bench_svt34_blocks [--quick]
Writes ``results/svt34_blocks.json`` and ``results/svt34_blocks.md`` (``--quick``:
``results/quick/``).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from benchmarks.bench_dpsniper_ceilings import SVT3CutoffDensity, estimated_ceiling
from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.auditing.exact import aligned
from ltheory.privacy.auditing.neighbours import query_patterns
from ltheory.privacy.auditing.projection import projected_bound, shrunk_projection
from ltheory.privacy.mechanisms import dpsniper_suite

HERE = Path(__file__).resolve().parent
ALPHA = 0.05
RUNS = 2_000_000
#: the lean rule's shrinkage of vector outputs' cells (``config.LEAN_SHRINK``)
LEAN_SHRINK = 0.16


def block_llrs(m, a: tuple, b: tuple) -> dict:
    """Each block's log-likelihood ratio log p_a/p_b as a function of sampled rows."""
    svt3, svt4 = m.parts
    d3a, d3b = SVT3CutoffDensity(svt3, a), SVT3CutoffDensity(svt3, b)
    p4a, p4b = svt4.output_distribution(a), svt4.output_distribution(b)
    k = len(a)

    def l3(x: np.ndarray) -> np.ndarray:
        codes, values = x[:, :k], x[:, k:2 * k]
        return d3a.log_density(codes, values) - d3b.log_density(codes, values)

    def l4(x: np.ndarray) -> np.ndarray:
        return np.array([math.log(p4a.get(tuple(r), 0.0) or 1e-320)
                         - math.log(p4b.get(tuple(r), 0.0) or 1e-320)
                         for r in x[:, 2 * k:3 * k].astype(int)])

    return {"SVT3 block": l3, "SVT4 block": l4, "both": lambda x: l3(x) + l4(x)}


def lean_rule(p0: np.ndarray, p1: np.ndarray, draws: int, seed: int = 0) -> float:
    """Mean bound, at exact probabilities, of the prefix the lean rule chooses."""
    n_sel = int(0.1 * RUNS / 2)
    n_cert = RUNS / 2 - n_sel
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(draws):
        c0, c1 = rng.multinomial(n_sel, p0), rng.multinomial(n_sel, p1)
        best = (-np.inf, -np.inf)
        for ca, cb, pa, pb in ((c0, c1, p0, p1), (c1, c0, p1, p0)):
            order = np.argsort(-np.log((ca + 0.5) / (cb + 0.5)), kind="stable")
            v = shrunk_projection(np.cumsum(ca[order]), np.cumsum(cb[order]), n_sel, n_cert,
                                  ALPHA, 0.0, "auto", LEAN_SHRINK)
            i = int(np.argmax(v))
            if v[i] > best[0]:
                best = (v[i], float(projected_bound(pa[order[:i + 1]].sum(),
                                                    pb[order[:i + 1]].sum(), n_cert, ALPHA,
                                                    0.0, "auto")))
        out.append(max(best[1], 0.0))
    return float(np.mean(out))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    samples, draws = (50_000, 10) if args.quick else (200_000, 100)
    m, base = dpsniper_suite(0.1)["SVT34Parallel"]
    rows = []
    for name, a, b in query_patterns(base):
        lv = block_llrs(m, a, b)
        ceil = {k: estimated_ceiling(m, a, b, f, [RUNS / 2], samples=samples,
                                     boots=2)["ceiling"][RUNS / 2] for k, f in lv.items()}
        _, p0, p1 = aligned(m.parts[1].output_distribution(a), m.parts[1].output_distribution(b))
        exact4 = certification_ceiling(p0, p1, RUNS / 2, ALPHA)
        rows.append({"pair": name, "ceilings": ceil, "svt4_block_exact": exact4,
                     "svt4_patterns": len(p0), "lean_rule_svt4_block": lean_rule(p0, p1, draws)})
        print(json.dumps(rows[-1]), flush=True)
    lines = ["# SVT34Parallel block by block (issue 42)", "",
             f"Whole-budget ceilings at {RUNS:.0e} runs (Monte Carlo, {samples:,} outputs per "
             "side; the SVT4 block's also exact), and the lean rule on the SVT4 block's "
             f"patterns at the audit's split (mean of {draws} draws, exact probabilities of the "
             "chosen prefix).  Generated by `python -m benchmarks.bench_svt34_blocks`.", "",
             "| pair | SVT3 block | SVT4 block (exact) | both | SVT4 patterns | lean rule on the "
             "SVT4 block | its ratio to *both* |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        c = r["ceilings"]
        lines.append(f"| {r['pair']} | {c['SVT3 block']:.4f} | {c['SVT4 block']:.4f} "
                     f"({r['svt4_block_exact']:.4f}) | {c['both']:.4f} | {r['svt4_patterns']} | "
                     f"{r['lean_rule_svt4_block']:.4f} | "
                     f"{r['lean_rule_svt4_block'] / c['both']:.2f} |")
    out = HERE / "results" / ("quick" if args.quick else "")
    out.mkdir(parents=True, exist_ok=True)
    (out / "svt34_blocks.json").write_text(json.dumps(rows, indent=1))
    (out / "svt34_blocks.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
