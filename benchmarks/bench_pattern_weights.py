"""NumericalSVT's pattern weights: per-pattern counts against the sum of the codes' marginal
log-ratios (``features.ADDITIVE_PATTERNS``), measured by the *exact* value of the events an
audit certifies, free of the certification runs' noise.

An audit's certified bound carries two noises: which events the selection split chose, and the
certification counts of those events (about ±20% of NumericalSVT's ceiling at 2·10^6 runs).  A
change of the selection is judged on the first alone here: for each certified event, its exact
probabilities under both datasets, then the bound those certify at expected counts with the
audit's certification runs and its Bonferroni level α/(2k) (``ceiling.certified_at_expectation``,
the ceilings' measure); the audit's value is the best of its k events, divided by the pair's
whole-budget ceiling (the headline's denominator).  Paired audits (same pair, same seed, the
weights switched) give the difference with its standard error.

Exact probabilities: NumericalSVT's codes are sparse vector's (``SparseVector.output_distribution``
at ε' = 2ε/3, as ``bench_dpsniper_ceilings.numerical_svt_cells`` derives), and given the codes
each released value is its answer plus independent Laplace noise of scale 3cΔ/ε.  An event whose
membership is constant between known breakpoints of each released value — a released value's
cut, the naive Bayes over coordinate cells (quartiles and atoms), the pattern-and-sides naive
Bayes, a sign count of the coordinates (their medians) — is summed exactly over the cells
(pattern × interval of each released value), each read at one point inside it.  Other events
(first differences, a linear form, the classifier) are estimated from ``MC_RUNS`` fresh runs per
dataset and marked ``mc`` in the per-audit lines.

Run (from the repository root; about 10 s per audit, two audits per pair and seed):

    python -m benchmarks.bench_pattern_weights [--seeds 0 30] [--runs 2e6]
        [--pairs oarb obra half] [--out results.json]

At 2·10^6 runs, seeds 0-29 on each pair, 90 paired audits: the exact value 0.612 -> 0.644
(+0.032 ± 0.013; 37 audits up, 18 down, the rest unchanged), the certified bound 0.610 ->
0.648 (+0.038 ± 0.015); per pair (exact) "one above, rest below" 0.585 -> 0.633, "one below,
rest above" 0.652 -> 0.666, "half-half" 0.598 -> 0.632.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from functools import cache

import numpy as np
from scipy.stats import laplace

from benchmarks.bench_dpsniper_headline import ALPHA, EPS, pair_cells
from ltheory.privacy import audit
from ltheory.privacy.auditing import features
from ltheory.privacy.auditing.ceiling import certification_ceiling, certified_at_expectation
from ltheory.privacy.auditing.events import Score, ThresholdEvent
from ltheory.privacy.auditing.features import LinearScore
from ltheory.privacy.mechanisms import SparseVector, dpsniper_suite

#: the headline's handed NumericalSVT pairs at 2·10^6 runs
PAIRS = {
    "oarb": ((1.0,) * 10, (2.0,) + (0.0,) * 9),           # one above, rest below
    "obra": ((1.0,) * 10, (0.0,) + (2.0,) * 9),           # one below, rest above
    "half": ((1.0,) * 10, (0.0,) * 5 + (2.0,) * 5),       # half-half
}
K = 10
MC_RUNS = 4_000_000


def breakpoints(ev) -> dict[int, set[float]] | None:
    """Per released value (0..K-1), the values where ``ev``'s membership may change, or None
    when it is not piecewise constant in each released value."""
    if not isinstance(ev, ThresholdEvent):
        return None
    bp: dict[int, set[float]] = {j: set() for j in range(K)}
    sc = ev.score
    if isinstance(sc, Score):
        if sc.w is not None:
            return None
        if sc.col is not None and sc.col >= K:
            bp[sc.col - K].add(float(ev.t))
        return bp
    if isinstance(sc, LinearScore) and sc.kind in ("cells", "signs", "bits"):
        used = sc.features.family(False) if sc.kind == "cells" else \
            [c for c, _ in sc.counted()] if sc.kind == "signs" else []
        for c in used:
            if c.diff:
                return None
            if 0 <= c.col - K < K:
                bp[c.col - K].add(float(c.median))
                bp[c.col - K].update(float(q) for q in c.quartiles)
        return bp
    return None


@cache
def pattern_law(m, d: tuple) -> dict:
    """NumericalSVT's law of ⊤/⊥ codes on answers ``d``: sparse vector's at ε' = 2ε/3 (once per
    mechanism and dataset, not once per event)."""
    return SparseVector(2 * m.epsilon / 3, 1, threshold=m.threshold, c=m.c,
                        sensitivity=m.sensitivity).output_distribution(d)


def exact_probs(m, ev, datasets) -> list[float] | None:
    """P(ev) under each dataset, summed over (pattern, interval of each released value)."""
    bp = breakpoints(ev)
    if bp is None:
        return None
    scale = 3 * m.c * m.sensitivity / m.epsilon
    out = []
    for d in datasets:
        total = 0.0
        for pat, pp in pattern_law(m, d).items():
            rel = [j for j, c in enumerate(pat) if c == 1]
            per = []
            for j in rel:
                edges = [-math.inf] + sorted(bp[j] | {0.0}) + [math.inf]
                pts, probs = [], []
                for lo, hi in zip(edges[:-1], edges[1:], strict=True):
                    pts.append((lo + hi) / 2 if math.isfinite(lo) and math.isfinite(hi)
                               else hi - 1 if math.isfinite(hi) else lo + 1)
                    probs.append(float(laplace.cdf(hi, d[j], scale)
                                       - laplace.cdf(lo, d[j], scale)))
                per.append((pts, probs))
            combos = list(itertools.product(*[range(len(p)) for p, _ in per]))
            rows = np.zeros((len(combos), 2 * K))
            rows[:, :K] = pat
            w = np.full(len(combos), pp)
            for i, combo in enumerate(combos):
                for (pts, probs), j, ix in zip(per, rel, combo, strict=True):
                    rows[i, K + j] = pts[ix]
                    w[i] *= probs[ix]
            total += float(w[ev.contains(rows)].sum())
        out.append(total)
    return out


def mc_probs(m, ev, datasets, seed: int = 123) -> list[float]:
    rng = np.random.default_rng(seed)
    out = []
    for d in datasets:
        hit = sum(int(ev.contains(m.sample(d, 500_000, rng)).sum())
                  for _ in range(MC_RUNS // 500_000))
        out.append(hit / MC_RUNS)
    return out


def expected_value(m, rep, a, b) -> tuple[float, list[str]]:
    """The best certified event's bound at expected counts (α/(2k) each, as certified)."""
    evs = rep.certified_events
    k, n = len(evs), rep.certification_runs / 2
    best, how = -math.inf, []
    for ev in evs:
        p = exact_probs(m, ev, (a, b))
        tag = "x"
        if p is None:
            p, tag = mc_probs(m, ev, (a, b)), "mc"
        x, y = np.array([p[0]]), np.array([p[1]])
        v = max(float(certified_at_expectation(x, y, n, ALPHA / k)[0]),
                float(certified_at_expectation(y, x, n, ALPHA / k)[0]))
        how.append(f"{tag}:{v:.4f}")
        best = max(best, v)
    return best, how


def run(pairs: list[str], seeds: range, runs: int) -> list[dict]:
    m, _ = dpsniper_suite(EPS)["NumericalSVT"]
    rows = []
    for name in pairs:
        a, b = PAIRS[name]
        whole = certification_ceiling(*pair_cells("NumericalSVT", m, a, b), runs / 2, ALPHA)
        for seed in seeds:
            rec = {"pair": name, "seed": seed}
            for flag in (False, True):
                features.ADDITIVE_PATTERNS = flag
                rep = audit(m, a, b, claimed_epsilon=EPS, runs=runs, seed=seed, alpha=ALPHA,
                            exact=False, arithmetic="real")
                v, how = expected_value(m, rep, a, b)
                key = "additive" if flag else "per_pattern"
                rec[key] = {"exact": v / whole, "certified": rep.epsilon_lower_bound / whole,
                            "events": how}
            features.ADDITIVE_PATTERNS = True
            rows.append(rec)
            print(name, seed, {k: round(rec[k]["exact"], 3) for k in ("per_pattern", "additive")},
                  flush=True)
    return rows


def summary(rows: list[dict]) -> str:
    lines = ["| pair | audits | exact: per pattern → additive (diff ± se) | certified |",
             "|---|---|---|---|"]
    for name in sorted({r["pair"] for r in rows}) + ["all"]:
        sel = [r for r in rows if name in ("all", r["pair"])]
        cells = []
        for what in ("exact", "certified"):
            old = np.array([r["per_pattern"][what] for r in sel])
            new = np.array([r["additive"][what] for r in sel])
            d = new - old
            se = d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else math.nan
            cells.append(f"{old.mean():.3f} → {new.mean():.3f} ({d.mean():+.3f} ± {se:.3f})")
        lines.append(f"| {name} | {len(sel)} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", nargs=2, type=int, default=[0, 30])
    p.add_argument("--runs", type=float, default=2e6)
    p.add_argument("--pairs", nargs="+", default=list(PAIRS), choices=list(PAIRS))
    p.add_argument("--out", default=None, help="write the per-audit records here (JSON)")
    args = p.parse_args()
    rows = run(args.pairs, range(*args.seeds), int(args.runs))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    print(summary(rows))


if __name__ == "__main__":
    main()
