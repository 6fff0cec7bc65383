"""Worst-case neighbours of every seed learner (issue 14, part 1): ``audit_worst_case`` on each
``LearnerAuditCase`` configuration, the worst pair's exact ε (or, without an exact distribution,
its certified bound) against the claim, beside the exact ε of the case's hand-picked pair.

For each case: the learner of the case, datasets of the case's size n over the learner's record
alphabet (``record_space()``), the case's pair as a
structured start, a per-case time budget, and a fresh certification audit of the pair found.
Extra row: the issue's scenario (PrivateAgnosticLearner with a truncated-geometric count at
ε = 10, |S| = 54).  For the closure learners the column "seed's ε+3" gives the claim the seed's
proof would make (Lemma 3.12 + Lemma 5.3), which the scenario's worst pair exceeds.

Run:  python -m benchmarks.bench_learners_worst_case [--quick] [--only SUBSTR,...]
Writes benchmarks/results/learners_worst_case.{json,md,png} (``--quick``: into
benchmarks/results/quick/, git-ignored).  Exit code 1 if a row's worst ε exceeds its claim
or the exponential learner's worst/claimed is below 0.9.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
#: the table as package data (proofs_check.privacy_claims reads it from the installed package)
PACKAGE_COPY = (Path(__file__).resolve().parent.parent / "ltheory" / "catalog" / "data"
                / "learners_worst_case.json")


@dataclass
class Row:
    """One benchmark row: a learner configuration and how to search it."""

    name: str
    make: Any
    n: int
    budget: float
    certify_runs: int
    records: Any = None
    start_pairs: Any = None
    seed_claim: float | None = None       # the seed's ε + 3 (closure learners), for comparison
    kw: dict = field(default_factory=dict)
    note: str = ""


def _rows() -> list[Row]:
    from ltheory.catalog import family
    from ltheory.privacy.learners import PrivateAgnosticLearner, audit_cases
    from ltheory.privacy.mechanisms import GeometricMechanism

    # budgets per case; ``restarts`` sized so the annealing plan roughly fills the budget
    cfg: dict[str, dict] = {
        "exponential/thresholds-n8-eps1": dict(budget=30, certify_runs=400_000,
                                               kw=dict(restarts=100)),
        "decision_lists/literals-n2-eps1-delta1e-2": dict(budget=60, certify_runs=200_000,
                                                          kw=dict(restarts=40)),
        "decision_lists/literals-n2-eps1-delta1e-2-add_remove": dict(
            budget=60, certify_runs=200_000, kw=dict(restarts=40)),
        "winnow/dpwinnow-d2-T6-eps3": dict(budget=150, certify_runs=400_000,
                                           kw=dict(pilot_runs=20_000, pilot_rounds=8)),
        "DPOneRule": dict(budget=60, certify_runs=200_000, kw=dict(restarts=80)),
        "DPTopDown": dict(budget=60, certify_runs=200_000, kw=dict(restarts=50)),
        "LazyBB+DPOneRule": dict(budget=120, certify_runs=200_000),
        "LazyBB+DPTopDown": dict(budget=300, certify_runs=400_000),
        "GloballyStableLearner/points3": dict(budget=150, certify_runs=20_000,
                                              kw=dict(pilot_runs=2_000, pilot_pool=12,
                                                      pilot_rounds=6)),
        "StableHistogram/eps1-delta1e-3": dict(budget=60, certify_runs=1_000_000,
                                               kw=dict(pilot_runs=40_000)),
        "RelabelAndLearn/thresholds3": dict(budget=120, certify_runs=200_000),
        "PrivateAgnosticLearner/thresholds3": dict(budget=180, certify_runs=100_000,
                                                   kw=dict(restarts=16)),
        "ClosureLearn/or-thresholds3": dict(budget=300, certify_runs=40_000,
                                            kw=dict(restarts=30, steps=1000)),
        "pmw/pure-alpha0.25-T3-K3": dict(budget=30, certify_runs=400_000),
        "pmw/approx-alpha0.15-T8-K2": dict(budget=60, certify_runs=200_000,
                                           kw=dict(restarts=40)),
    }
    rows = []
    for case in audit_cases():
        c = cfg.get(case.name, dict(budget=60, certify_runs=100_000))
        pair = (case.d0, case.d1)
        if len(case.d1) == len(case.d0) + 1:       # add/remove: D is the larger dataset
            pair = (case.d1, case.d0)
        seed_claim = 4.0 if case.name.startswith(("PrivateAgnostic", "ClosureLearn")) else None
        rows.append(Row(case.name, case.make, len(pair[0]), c["budget"], c["certify_runs"],
                        start_pairs=[pair], seed_claim=seed_claim,
                        kw=c.get("kw", {}), note=case.setting))
    H3 = family("thresholds", n=3)

    def scenario() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return PrivateAgnosticLearner(H3, GeometricMechanism(10.0, clamp=(0, 3)),
                                          sample_size=54)

    setting = ("issue 14 scenario: thresholds n=3, inner = truncated geometric count at ε = 10 "
               "(clamp 0..3), |S| = 54 (|D| = 27, m = 3 draws), claim at that size")
    rows.append(Row("PrivateAgnosticLearner/count-eps10-S54", scenario, 54, 60, 100_000,
                    seed_claim=13.0, note=setting))
    return rows


def _learner_name(learner: Any) -> str:
    return str(getattr(learner, "name", type(learner).__name__))


def run_row(row: Row, quick: bool, seed: int) -> dict:
    from ltheory.privacy import audit_worst_case
    from ltheory.privacy.auditing.exact import aligned, exact_epsilon

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        learner = row.make()
    budget = min(row.budget, 4.0) if quick else row.budget
    certify = min(row.certify_runs, 20_000) if quick else row.certify_runs
    kw = dict(row.kw)
    if quick and "pilot_runs" in kw:
        kw["pilot_runs"] = min(kw["pilot_runs"], 4_000)
    if quick and "restarts" in kw:
        kw["restarts"] = min(kw["restarts"], 8)
    t0 = time.perf_counter()
    rep = audit_worst_case(learner, row.n, records=row.records, start_pairs=row.start_pairs,
                           budget=budget, certify_runs=certify, seed=seed, **kw)
    seconds = time.perf_counter() - t0
    case_exact = None
    if row.start_pairs and hasattr(learner, "output_distribution"):
        d0, d1 = row.start_pairs[0]
        try:
            case_exact = exact_epsilon(*aligned(learner.output_distribution(d0),
                                                learner.output_distribution(d1))[1:],
                                       rep.claimed_delta)
        except NotImplementedError:
            case_exact = None
    pure = None
    if rep.claimed_delta > 0 and rep.exact:
        # the claimed δ can make every pair's ε at δ vanish: the pure ε of the worst pair too
        pure = audit_worst_case(learner, row.n, records=row.records,
                                start_pairs=row.start_pairs, claimed_delta=0.0,
                                budget=budget, certify_runs=0, seed=seed).worst_epsilon
        seconds = time.perf_counter() - t0
    d = rep.to_json()
    return {
        "case": row.name, "learner": _learner_name(learner),
        "claimed_epsilon": rep.claimed_epsilon, "claimed_delta": rep.claimed_delta,
        "worst_epsilon": rep.worst_epsilon, "exact": rep.exact, "ratio": rep.ratio,
        "exact_epsilon": rep.exact_epsilon, "exact_delta": rep.exact_delta,
        "certified_bound": rep.certified_bound, "certify_runs": certify,
        "pair": {"d0": d["d0"], "d1": d["d1"], **d["pair"]},
        "n": rep.n, "records": rep.records, "relation": rep.relation, "method": rep.method,
        "complete": rep.complete, "partial": rep.partial, "evaluations": rep.evaluations,
        "pairs_total": rep.pairs_total, "violation": rep.violation,
        "worst_pure_epsilon": pure, "audit_case_exact": case_exact,
        "audit_case_ratio": None if case_exact is None else case_exact / rep.claimed_epsilon,
        "seed_claim_epsilon": row.seed_claim,
        "exceeds_seed_claim": None if row.seed_claim is None else
        bool(rep.worst_epsilon > row.seed_claim),
        "budget": budget, "seconds": round(seconds, 2),
        "notes": list(rep.notes), "setting": row.note,
    }


def _f(v: Any, nd: int = 4) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.{nd}g}"
    return str(v)


def markdown(rows: list[dict], quick: bool, seed: int, seconds: float, load: str) -> str:
    lines = [f"# Worst-case neighbours of the seed learners{' (--quick)' if quick else ''}", "",
             "Generated by `python -m benchmarks.bench_learners_worst_case"
             f"{' --quick' if quick else ''}` (seed {seed}; {seconds:.0f} s in all; load "
             f"{load}).  `worst ε` is the exact ε (at the claimed δ) of the worst pair found "
             "when the learner exposes its output distribution (`exact`), else the certified "
             "lower bound of a fresh audit (α = 0.05).  `case pair` is the exact ε/claim on the "
             "audit case's hand-picked pair, for comparison; `ε at δ=0` is a second search's "
             "worst exact ε at δ = 0 where the claim has δ > 0.  Methods: exhaustive (all pairs of "
             "size n: the maximum), anneal (simulated annealing + local search), pilot (pilot "
             "audits choose, a fresh audit certifies).", "",
             "| case | claim (ε, δ) | worst ε | worst/claim | case pair | exact | certified "
             "bound (runs) | ε at δ=0 | seed's ε+3 | n | method | evaluations | s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        seed = r.get("seed_claim_epsilon")
        seed_txt = "—" if seed is None else (f"{seed:g}" + (" (exceeded)" if
                                                           r["exceeds_seed_claim"] else ""))
        part = " (partial)" if r["partial"] and r["method"] != "pilot" else ""
        lines.append(
            f"| {r['case']} | ({_f(r['claimed_epsilon'])}, {_f(r['claimed_delta'], 3)}) "
            f"| {_f(r['worst_epsilon'])} | {_f(r['ratio'], 3)} | {_f(r['audit_case_ratio'], 3)} "
            f"| {_f(r['exact'])} | {_f(r['certified_bound'])} ({r['certify_runs']}) "
            f"| {_f(r['worst_pure_epsilon'])} | {seed_txt} | {r['n']} "
            f"| {r['method']}{part} | {r['evaluations']} | {r['seconds']:.1f} |")
    lines += ["", "Worst pairs (D → D'):", ""]
    for r in rows:
        p = r["pair"]
        how = (f"record {p['position']}: {p.get('from')} → {p.get('to')}" if "to" in p
               else f"record {p['position']} {p.get('removed')} removed")
        lines.append(f"* **{r['case']}** — {how}; D = {p['d0']}")
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["case"] for r in rows]
    ratios = [r["ratio"] for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(rows) + 1.5))
    y = list(range(len(rows)))[::-1]
    colors = ["tab:blue" if r["exact"] else "tab:orange" for r in rows]
    ax.barh(y, [min(v, 1.6) for v in ratios], color=colors)
    for yy, r in zip(y, rows, strict=True):
        if r["audit_case_ratio"] is not None:
            ax.plot(r["audit_case_ratio"], yy, "k|", markersize=14)
        if r.get("worst_pure_epsilon") is not None:
            ax.plot(min(r["worst_pure_epsilon"] / r["claimed_epsilon"], 1.6), yy, "kx")
        if r.get("seed_claim_epsilon"):
            ax.plot(min(r["seed_claim_epsilon"] / r["claimed_epsilon"], 1.6), yy, "rd")
    ax.axvline(1.0, color="k", lw=1)
    ax.axvline(0.9, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlabel("worst ε found / claimed ε  (blue: exact ε; orange: certified bound; "
                  "|: the audit case's pair; x: worst ε at δ = 0;\nred ◆: the seed's ε + 3 "
                  "(closure learners))", fontsize=8)
    ax.set_xlim(0, 1.65)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="4 s per row, into results/quick/")
    ap.add_argument("--only", default="", help="comma-separated substrings of row names "
                    "(re-measured rows replace theirs in the existing results)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    out = RESULTS / "quick" if args.quick else RESULTS
    out.mkdir(parents=True, exist_ok=True)
    rows = _rows()
    if args.only:
        keys = [k.strip() for k in args.only.split(",") if k.strip()]
        rows = [r for r in rows if any(k in r.name for k in keys)]
    results = []
    for row in rows:
        r = run_row(row, args.quick, args.seed)
        results.append(r)
        print(f"{r['case']}: worst {r['worst_epsilon']:.4g} / claim {r['claimed_epsilon']:.4g} "
              f"= {r['ratio']:.3f} ({r['method']}, exact={r['exact']}, certified "
              f"{r['certified_bound']}, {r['evaluations']} evals, {r['seconds']:.1f} s)",
              flush=True)
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    old_path = out / "learners_worst_case.json"
    if args.only and old_path.exists():     # re-measured rows replace theirs, the rest stay
        old = json.loads(old_path.read_text(encoding="utf-8"))
        new = {r["case"] for r in results}
        order = {row.name: i for i, row in enumerate(_rows())}
        results = [r for r in old["rows"] if r["case"] not in new and r["case"] in order] \
            + results
        results.sort(key=lambda r: order.get(r["case"], len(order)))
    total = sum(r["seconds"] for r in results)
    meta = {"seed": args.seed, "quick": args.quick, "seconds": round(total, 1),
            "load_average": load, "python": platform.python_version(),
            "machine": platform.machine()}
    table = json.dumps({"meta": meta, "rows": results}, indent=1, ensure_ascii=False) + "\n"
    (out / "learners_worst_case.json").write_text(table, encoding="utf-8")
    if not args.quick:   # the copy shipped in the wheel, read by `ltheory check` (privacy.claims)
        PACKAGE_COPY.write_text(table, encoding="utf-8")
    (out / "learners_worst_case.md").write_text(
        markdown(results, args.quick, args.seed, total, load), encoding="utf-8")
    plot(results, out / "learners_worst_case.png")
    print(f"wrote {out / 'learners_worst_case.json'} (+ .md, .png)")
    bad = [r["case"] for r in results if r["violation"]]
    em = [r for r in results if r["case"].startswith("exponential/")]
    if em and em[0]["ratio"] < 0.9:
        bad.append(f"{em[0]['case']} (worst/claimed {em[0]['ratio']:.3f} < 0.9)")
    if bad:
        print("problems: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
