"""Reused pilot runs in the final audit's selection split (``SearchConfig.reuse_pilots``, issue
42): what the runs they free for certification gain, and that the bound stays sound.

A planned search (``audit_search(total_runs=R)``) spends ~12% of its budget on pilots that rank
the pairs; its final audit then drew a selection split of its own (10% of its runs) and
certified on the rest.  With binned pilots (scalar continuous outputs: Laplace,
ReportNoisyMax3, ReportNoisyMax4 of DP-Sniper's suite) the chosen pair's pilot runs — on the
dataset the search was given, every pair's runs pooled — now open that selection split, and
fresh runs top it up to its usual size: the selection is as large as before and the runs it no
longer draws certify.

*Gain*: the same searches (same seeds) with ``reuse_pilots=True`` and ``False``.
*Soundness*, per event: the pair's true ε is infinite for ReportNoisyMax4, so a bound can never
exceed *it*; every certified event ``{output ≤ t}`` or ``{output ≥ t}`` has exact
probabilities (the maximum of the answers plus independent noise: a product of the noise's
CDFs), and the reported bound may exceed the log-ratio of the event that gave it only with
probability α.  Pilot runs leaking into the certification would show here first.

Run:  python -m benchmarks.bench_reuse_pilots [--quick]
Writes ``results/reuse_pilots.json`` and ``results/reuse_pilots.md`` (``--quick``:
``results/quick/``).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_dpsniper_headline import pair_cells
from ltheory.privacy import audit_search
from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.auditing.events import BinEncoder, ThresholdEvent
from ltheory.privacy.mechanisms import dpsniper_suite

HERE = Path(__file__).resolve().parent
EPS = 0.1
ALPHA = 0.05
ROWS = ("Laplace", "ReportNoisyMax3", "ReportNoisyMax4", "SVT1")
_CEILINGS: dict = {}


def whole_budget_ceiling(name: str, m, d0, d1, runs: int) -> float:
    """The pair's certification ceiling with every run certifying
    (``bench_dpsniper_headline``'s ``ceiling_budget``), cached."""
    key = (name, tuple(d0), tuple(d1), runs)
    if key not in _CEILINGS:
        cells = pair_cells(name, m, tuple(d0), tuple(d1))
        _CEILINGS[key] = certification_ceiling(*cells, runs / 2, ALPHA)
    return _CEILINGS[key]


def _cdf(m, t: float, dataset) -> float:
    """P(output ≤ t) for the scalar mechanisms of ``ROWS``: the maximum over the answers q_i of
    q_i + Z_i, Z_i ~ Lap(scale) or Exp(scale)."""
    q = np.asarray(dataset, dtype=float).ravel()
    z = (t - q) / m.scale
    if getattr(m, "noise", "laplace") == "exponential":
        f = -np.expm1(-np.maximum(z, 0.0))
    else:
        f = np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0.0)), 1 - 0.5 * np.exp(-np.abs(z)))
    return float(np.prod(f))


def _probability(m, event, dataset) -> float:
    """P(output ∈ event): from the output distribution (SVT1), else from the CDF of the
    maximum (a threshold on the scalar output, or quantile-bin cells of it)."""
    try:
        dist = m.output_distribution(dataset)
    except NotImplementedError:
        pass
    else:
        outs = np.array(list(dist), dtype=float)
        inside = np.asarray(event.contains(outs), dtype=bool)
        return float(np.dot(np.fromiter(dist.values(), dtype=float), inside))
    if isinstance(event, ThresholdEvent):
        p = _cdf(m, event.t, dataset)
        return 1.0 - p if event.geq else p
    # quantile-bin cells of the scalar output: cell i is [e[i-1], e[i]) (``BinEncoder``)
    enc = event.encoder
    assert isinstance(enc, BinEncoder) and enc.cols == (0,) and not enc.exact[0]
    e = np.concatenate([[-np.inf], enc.edges[0], [np.inf]])
    f = np.array([0.0] + [_cdf(m, x, dataset) for x in enc.edges[0]] + [1.0])
    cells = np.asarray(event.cells, dtype=int)
    assert len(f) == len(e)
    return float(np.sum(f[cells + 1] - f[cells]))


def event_log_ratio(m, event, direction: int, d0, d1) -> float:
    """The exact log-ratio (the side the event favours over the other) of a certified
    event."""
    p = [_probability(m, event, d) for d in (d0, d1)]
    a, b = (p[0], p[1]) if direction == 0 else (p[1], p[0])
    if a <= 0:
        return -math.inf
    return math.inf if b <= 0 else math.log(a / b)


def one(name: str, runs: int, seed: int, reuse) -> dict:
    m, base = dpsniper_suite(EPS)[name]
    t = time.perf_counter()
    s = audit_search(m, base, claimed_epsilon=EPS, total_runs=runs, seed=seed, alpha=ALPHA,
                     exact=False, arithmetic="real", reuse_pilots=reuse)
    r = s.report
    per = r.counts["bounds_per_event"]
    best = max(range(len(per)), key=lambda i: per[i])
    d = 0 if r.counts["per_event"][best]["more_likely_under"] == "d0" else 1
    ev = r.certified_events[best]
    assert s.total_runs <= runs
    return {"mechanism": name, "runs": runs, "seed": seed, "reuse": reuse, "pair": s.pattern,
            "bound": r.epsilon_lower_bound, "event": r.event,
            "event_true": event_log_ratio(m, ev, d, s.d0, s.d1),
            "ceiling": whole_budget_ceiling(name, m, s.d0, s.d1, runs),
            "certification_runs": r.certification_runs, "total_runs": s.total_runs,
            "reused": any("open the final audit's selection split" in n for n in s.notes),
            "seconds": round(time.perf_counter() - t, 2)}


def gains(plan: dict[tuple[str, int], int]) -> list[dict]:
    return [one(name, runs, 100 + s, reuse) for (name, runs), n in plan.items()
            for s in range(n) for reuse in (True, False)]


def exceedance(runs: int, n: int) -> list[dict]:
    return [one(name, runs, 30_000 + s, True) for name in ROWS for s in range(n)]


def table(res: dict) -> str:
    lines = ["# Reused pilot runs in a search's final selection split (issue 42)", "",
             "`audit_search(total_runs=R)` at its defaults (`arithmetic=\"real\"`, "
             "`exact=False`), DP-Sniper's suite, claimed ε = 0.1, α = 0.05.  Generated by "
             "`python -m benchmarks.bench_reuse_pilots`.", "",
             "## Gain (the same searches with `reuse_pilots=True` and `False`; seeds from "
             "100)", "",
             "| mechanism | runs | searches | certifying runs (without / with) | bound without "
             "| bound with | whole-budget ceiling (mean) | ratio to it (without / with) | "
             "with − without (± se) |",
             "|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({(r["mechanism"], r["runs"]) for r in res["gains"]},
                  key=lambda k: (k[1], ROWS.index(k[0])))
    for name, runs in keys:
        off = [r for r in res["gains"] if (r["mechanism"], r["runs"]) == (name, runs)
               and r["reuse"] is False]
        on = [r for r in res["gains"] if (r["mechanism"], r["runs"]) == (name, runs)
              and r["reuse"] is True]
        mo, mn = (statistics.mean(r["bound"] for r in x) for x in (off, on))
        diff = [b["bound"] - a["bound"] for a, b in zip(off, on, strict=True)]
        se = statistics.stdev(diff) / math.sqrt(len(diff)) if len(diff) > 1 else float("nan")
        c = statistics.mean(r["ceiling"] for r in on)
        ro, rn = (statistics.mean(r["bound"] / r["ceiling"] for r in x) for x in (off, on))
        co, cn = (statistics.mean(r["certification_runs"] for r in x) for x in (off, on))
        lines.append(f"| {name} | {runs:.0e} | {len(on)} | {co:,.0f} / {cn:,.0f} | {mo:.4f} | "
                     f"{mn:.4f} | {c:.4f} | {ro:.3f} / {rn:.3f} | "
                     f"{mn - mo:+.4f} ± {se:.4f} |")
    lines += ["", "## Soundness (seeds from 30000, `reuse_pilots=True`)", "",
              "The reported bound against the exact log-ratio of the event that gave it.", "",
              "| mechanism | runs | searches | pilot runs reused | bound above its event's "
              "exact log-ratio | share (α = 0.05) | mean bound / mean exact log-ratio |",
              "|---|---|---|---|---|---|---|"]
    for name in ROWS:
        ex = [r for r in res["exceedance"] if r["mechanism"] == name]
        if not ex:
            continue
        above = sum(r["bound"] > r["event_true"] for r in ex)
        finite = [r["event_true"] for r in ex if math.isfinite(r["event_true"])]
        lines.append(f"| {name} | {ex[0]['runs']:.0e} | {len(ex)} | "
                     f"{sum(r['reused'] for r in ex)} | {above} | {above / len(ex):.3f} | "
                     f"{statistics.mean(r['bound'] for r in ex):.3f} / "
                     f"{statistics.mean(finite) if finite else math.inf:.3f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        plan = {(name, 2_000_000): 2 for name in ROWS}
        n_ex = 10
    else:
        plan = {("Laplace", 2_000_000): 20, ("ReportNoisyMax3", 2_000_000): 20,
                ("ReportNoisyMax4", 2_000_000): 40, ("SVT1", 2_000_000): 20,
                ("Laplace", 20_000_000): 10,
                ("ReportNoisyMax3", 20_000_000): 10, ("ReportNoisyMax4", 20_000_000): 30}
        n_ex = 200
    res = {"gains": gains(plan), "exceedance": exceedance(2_000_000, n_ex)}
    out = HERE / "results" / ("quick" if args.quick else "")
    out.mkdir(parents=True, exist_ok=True)
    (out / "reuse_pilots.json").write_text(json.dumps(res, indent=1))
    (out / "reuse_pilots.md").write_text(table(res))
    print(table(res))


if __name__ == "__main__":
    main()
