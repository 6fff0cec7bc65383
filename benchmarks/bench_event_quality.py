"""How much of the headline's gap to the ceiling is the event chosen, and how much the luck of
certifying it (issue 42, measured; nothing in the auditor uses it).

The headline (``bench_dpsniper_headline``) judges each row by the mean, over 9 seeds, of
bound / whole-budget ceiling.  On rows whose best events are rare (SVT1, SVT2 at 2·10^6 runs:
a few hundred runs in the event) the certified bound of one audit scatters by a fifth of the
ceiling, so a 9-seed mean cannot tell a 0.85 row from a 0.93 one.  On the rows with a finite
output distribution (``output_distribution``: ``bench_dpsniper_headline.FINITE``) every
certified event has exact probabilities, so each audit can be scored twice:

* **realised** — its certified bound over the pair's whole-budget ceiling (the headline's
  ratio);
* **at expectation** — the bound its certified events would give at their *expected* counts
  (each event at its own test and Bonferroni level α/k, the best of the k), over the same
  ceiling: the quality of what the audit chose, without the certification's draw.  The ratio
  of the realised bound to it is the draw alone.

Both for the planned search (``audit_search(total_runs=R)``) and the handed audit on the
search's pair (``audit(d0, d1, runs=R)``), with the headline's settings (ε = 0.1, α = 0.05,
``exact=False``, ``arithmetic="real"``), on seeds disjoint from the headline's (default
100..129).  Each audit's realised bound is also checked against the exact log-ratio of its
best event (a bound above it is a certification failure, expected in ≈ α of the audits).

The records of SVT1, SVT2 and SVT4 were also measured with the widened lean selection off
(``--label "lean_selection_fraction=None"``, before ``AuditConfig.lean_selection_fraction``);
the other rows do not widen (scalar outputs, more than 64 patterns, or SVT5's first event held
by no run on one side), so one run covers both settings.

Run:  python -m benchmarks.bench_event_quality [--runs 2e6] [--seeds 30] [--only SVT1 SVT2]
      (writes results/event_quality.json and results/event_quality.md; ``--quick``: 3 seeds
      at 2·10^5 runs on two rows, into results/quick/; ``--out F``: records into F only;
      ``--merge F [--label L]``: add a run's records, relabelled)
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_dpsniper_headline import FINITE
from ltheory.privacy.auditing.ceiling import certification_ceiling
from ltheory.privacy.auditing.core import audit
from ltheory.privacy.auditing.projection import certified_bound, projected_bound
from ltheory.privacy.auditing.search import audit_search
from ltheory.privacy.mechanisms import SparseVector, dpsniper_suite

HERE = Path(__file__).resolve().parent
EPS, ALPHA = 0.1, 0.05
TESTS = ("binomial", "poisson")


def exact_law(name: str, m, a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pair's outputs (a batch, as the audit sees them) and their probabilities on each
    dataset.  SVT2's law is that of ``SparseVector(0.1, 1, threshold=1, c=1)`` (the headline's
    ceiling uses it too)."""
    mm = SparseVector(0.1, 1, threshold=1.0, c=1) if name == "SVT2" else m
    d0, d1 = mm.output_distribution(a), mm.output_distribution(b)
    keys = sorted(set(d0) | set(d1))
    outs = np.array([list(k) if isinstance(k, tuple) else k for k in keys], dtype=float)
    p0 = np.array([d0.get(k, 0.0) for k in keys])
    p1 = np.array([d1.get(k, 0.0) for k in keys])
    return outs, p0, p1


def event_test(pe: dict, n: dict, level: float) -> str:
    """The certification test that reproduces the event's certified bound from its counts."""
    ka, kb, na, nb = ((pe["d0"], pe["d1"], n["n_d0"], n["n_d1"])
                      if pe["more_likely_under"] == "d0"
                      else (pe["d1"], pe["d0"], n["n_d1"], n["n_d0"]))
    for t in TESTS:
        if math.isclose(float(certified_bound(ka, na, kb, nb, level, 0.0, t)), pe["bound"],
                        rel_tol=1e-9, abs_tol=1e-12):
            return t
    return "auto"


def score(report, law: tuple, runs: int) -> dict:
    """The audit's realised bound and its certified events at expected counts."""
    outs, p0, p1 = law
    n = report.counts["certification"]
    k = report.events_certified
    level = ALPHA / k
    per = []
    for ev, pe in zip(report.certified_events, report.counts["per_event"], strict=True):
        inside = np.asarray(ev.contains(outs), dtype=bool)
        q0, q1 = float(p0[inside].sum()), float(p1[inside].sum())
        pa, pb, na = (q0, q1, n["n_d0"]) if pe["more_likely_under"] == "d0" else \
            (q1, q0, n["n_d1"])
        test = event_test(pe, n, level)
        expected = float(projected_bound(pa, pb, na, level, 0.0, test))
        per.append({"event": pe["event"][:120], "bound": pe["bound"], "p_a": pa, "p_b": pb,
                    "test": test, "expected": expected if math.isfinite(expected) else 0.0,
                    "log_ratio": math.log(pa / pb) if pa > 0 and pb > 0 else
                    (math.inf if pa > 0 else -math.inf)})
    best = max(range(len(per)), key=lambda i: per[i]["bound"]) if per else None
    return {"bound": report.epsilon_lower_bound, "events": k,
            "expected": max([0.0] + [e["expected"] for e in per]),   # a report's floor is 0
            "above_exact": bool(best is not None and report.epsilon_lower_bound > 0
                                and report.epsilon_lower_bound > per[best]["log_ratio"]),
            "per_event": per, "n_cert": n["n"]}


def run_row(name: str, runs: int, seed: int, label: str = "default") -> list[dict]:
    m, base = dpsniper_suite(EPS)[name]
    t = time.perf_counter()
    s = audit_search(m, base, claimed_epsilon=EPS, total_runs=runs, seed=seed, alpha=ALPHA,
                     exact=False, arithmetic="real")
    t_search = time.perf_counter() - t
    a, b = tuple(s.d0), tuple(s.d1)
    t = time.perf_counter()
    h = audit(m, a, b, claimed_epsilon=EPS, runs=runs, seed=seed, alpha=ALPHA, exact=False,
              arithmetic="real")
    t_handed = time.perf_counter() - t
    law = exact_law(name, m, a, b)
    whole = certification_ceiling(law[1], law[2], runs / 2, ALPHA)
    out = []
    for mode, r, secs in (("search", s.report, t_search), ("handed", h, t_handed)):
        rec = {"mechanism": name, "runs_budget": runs, "seed": seed, "mode": mode, "label": label,
               "pair": s.pattern, "d0": list(a), "d1": list(b), "ceiling_budget": whole,
               "seconds": round(secs, 1), **score(r, law, runs)}
        rec["certified_ceiling"] = certification_ceiling(law[1], law[2],
                                                         rec["n_cert"], ALPHA)
        out.append(rec)
    return out


def _key(r: dict) -> tuple:
    return r["mechanism"], r["runs_budget"], r["seed"], r["mode"], r.get("label", "default")


def _replace(records: list[dict], new: list[dict]) -> list[dict]:
    """``records`` with ``new`` in place of those of the same row, budget, seed, mode, label."""
    keys = {_key(r) for r in new}
    return [r for r in records if _key(r) not in keys] + new


def _group(r: dict) -> tuple:
    return r["mechanism"], r["runs_budget"], r.get("label", "default"), r["mode"]


def _mean_se(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), (statistics.stdev(xs) / math.sqrt(len(xs))
                                  if len(xs) > 1 else 0.0)


def summarise(records: list[dict]) -> list[dict]:
    rows = []
    keys = sorted({_group(r) for r in records})
    for name, runs, label, mode in keys:
        rs = [r for r in records if _group(r) == (name, runs, label, mode)]
        real = [r["bound"] / r["ceiling_budget"] for r in rs]
        expd = [r["expected"] / r["ceiling_budget"] for r in rs]
        rows.append({"mechanism": name, "runs_budget": runs, "label": label, "mode": mode,
                     "seeds": len(rs),
                     "realised": _mean_se(real), "expected": _mean_se(expd),
                     "draw": (statistics.fmean(real) / statistics.fmean(expd)
                              if statistics.fmean(expd) > 0 else None),
                     "at_target_expected": sum(x >= (0.93 if runs < 1e7 else 0.96)
                                               for x in expd),
                     "above_exact": sum(r["above_exact"] for r in rs)})
    return rows


def table(records: list[dict]) -> str:
    lines = ["# The headline's gap: the event chosen or the draw (issue 42)", "",
             "Finite-output rows of DP-Sniper's suite, `audit_search(total_runs=R)` and the "
             "handed `audit(d0, d1, runs=R)` on its pair, on seeds disjoint from the headline's. "
             "*realised*: mean of bound / whole-budget ceiling (the headline's ratio); *at "
             "expectation*: the audit's certified events at their expected counts (own test, "
             "level α/k), best of them, over the same ceiling; *draw*: the ratio of "
             "those two means; *≥ target*: seeds whose events reach the target at expectation; "
             "*above exact*: audits whose bound exceeds its best event's exact log-ratio.  "
             "*settings*: `default`, or the audit option changed.  Mean ± standard error.  "
             "Generated by `python -m benchmarks.bench_event_quality`.",
             "",
             "| mechanism | runs | settings | mode | seeds | realised | at expectation | draw "
             "| ≥ target | above exact |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for s in summarise(records):
        d = "—" if s["draw"] is None else f"{s['draw']:.3f}"
        lines.append(f"| {s['mechanism']} | {s['runs_budget']:.0e} | {s['label']} | {s['mode']} "
                     f"| {s['seeds']} "
                     f"| {s['realised'][0]:.3f} ± {s['realised'][1]:.3f} "
                     f"| {s['expected'][0]:.3f} ± {s['expected'][1]:.3f} | {d} "
                     f"| {s['at_target_expected']} | {s['above_exact']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=float, default=2e6)
    ap.add_argument("--seeds", type=int, default=30, help="seeds 100, 101, ...")
    ap.add_argument("--first-seed", type=int, default=100)
    ap.add_argument("--only", nargs="*", default=None, help="rows (default: every FINITE row)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=None, help="records JSON (default results/event_quality"
                    ".json)")
    ap.add_argument("--label", default=None,
                    help="the settings' name in the table (default: 'default'); with --merge, "
                         "relabels the merged records")
    ap.add_argument("--merge", nargs="*", default=None,
                    help="records files to merge into the results (no audit run)")
    args = ap.parse_args()
    res = HERE / "results" / ("quick" if args.quick else "")
    res.mkdir(parents=True, exist_ok=True)
    path = Path(args.out) if args.out else res / "event_quality.json"
    records = json.loads(path.read_text()) if path.exists() else []
    if args.merge is not None:
        for f in args.merge:
            new = json.loads(Path(f).read_text())
            if args.label:
                new = [{**r, "label": args.label} for r in new]
            records = _replace(records, new)
    else:
        runs = int(2e5 if args.quick else args.runs)
        rows = args.only or (("SVT1", "SVT4") if args.quick else FINITE)
        seeds = range(args.first_seed, args.first_seed + (3 if args.quick else args.seeds))
        for name in rows:
            for seed in seeds:
                new = run_row(name, runs, seed, args.label or "default")
                records = _replace(records, new)
                for r in new:
                    print(f"{name} {r['mode']} {seed}: bound {r['bound']:.4f} expected "
                          f"{r['expected']:.4f} ceiling {r['ceiling_budget']:.4f} "
                          f"({r['seconds']} s)", flush=True)
                path.write_text(json.dumps(records, indent=1, ensure_ascii=False))
    path.write_text(json.dumps(records, indent=1, ensure_ascii=False))
    if not args.out:
        (res / "event_quality.md").write_text(table(records))
    print(table(records))


if __name__ == "__main__":
    main()
