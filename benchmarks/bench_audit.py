"""Measured figures for the privacy auditor (issue 5): soundness, tightness, detection, throughput.

Run:  python -m benchmarks.bench_audit [--quick]     (prints the figures as JSON, writes nothing)

The soundness exceedance runs (how often a bound exceeds the pair's exact ε; at most α = 5% is
allowed) each write one file of ``benchmarks/results/`` (``--quick``: ``results/quick/``):

    python -m benchmarks.bench_audit --soundness-defaults         -> soundness_defaults.json
        (``audit()`` at its defaults, 200 audits per case, seven cases; ~9 minutes)
    python -m benchmarks.bench_audit --soundness-planned --audits 500  -> soundness_planned.json
        (``audit_search(total_runs=2e5)``, 500 searches per case; ~20 minutes)
    python -m benchmarks.bench_audit --soundness-structure        -> soundness_structure.json
        (the structure-score families, 200 audits per case and test; ~3 hours)
    python -m benchmarks.bench_audit --soundness-structure --cases 0 1 --audits 20000 \
        --certify auto            -> soundness_structure_0_1_20000seeds_auto.json  (~7 minutes)

Other ``--cases`` / ``--audits`` / ``--certify`` give files named after them
(``soundness_structure_<cases>_<N>seeds_<tests>.json``); only the four above are committed.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import time
from pathlib import Path

from ltheory.privacy import audit
from ltheory.privacy.auditing.exact import exact_epsilon
from ltheory.privacy.auditing.search import audit_search, labelled_neighbours
from ltheory.privacy.mechanisms import (
    ExponentialMechanism,
    Histogram,
    LaplaceMechanism,
    NoisyMaxWithValue,
    RandomizedResponse,
    SparseVector,
    thresholds,
)
from ltheory.privacy.stats import clopper_pearson_lower, clopper_pearson_upper

# these benchmarks measure the real-arithmetic mechanisms (their float outputs' bits are
# ``bench_floating.py``'s subject)
audit = functools.partial(audit, arithmetic="real")
audit_search = functools.partial(audit_search, arithmetic="real")

D0, D1 = ((0, 0),), ((0, 1),)


def em_small() -> tuple:
    m = ExponentialMechanism(thresholds(7), 1.0)
    d0 = tuple((x, 1) for x in range(7))
    return m, d0, d0[:6] + ((6, 0),)


def em_1024() -> tuple:
    m = ExponentialMechanism(thresholds(1023), 1.0)       # 1,024 hypotheses (outputs)
    d0 = tuple((x, int(x >= 511)) for x in range(1023))
    return m, d0, d0[:503] + ((503, 1 - d0[503][1]),) + d0[504:]


def soundness(n_audits: int, runs: int) -> list[dict]:
    rows = []
    for label, (m, a, b) in (("randomized_response eps=1", (RandomizedResponse(1.0), D0, D1)),
                             ("exponential thresholds(7) eps=1, worst flip", em_small())):
        t = time.perf_counter()
        true = audit(m, a, b, claimed_epsilon=1.0, runs=runs, seed=0).exact_epsilon
        bounds = [audit(m, a, b, claimed_epsilon=1.0, runs=runs, seed=10_000 + s,
                        executor="serial").epsilon_lower_bound for s in range(n_audits)]
        above = sum(x > true for x in bounds)
        rows.append({"case": label, "true_epsilon": true, "audits": n_audits,
                     "runs_each": runs, "above_true": above, "share": above / n_audits,
                     "mean_bound": sum(bounds) / n_audits, "max_bound": max(bounds),
                     "seconds": round(time.perf_counter() - t, 1)})
    return rows


def soundness_defaults(n_audits: int = 200, runs: int = 200_000) -> list[dict]:
    """Exceedance of ``audit()`` with every setting at its default (``AuditConfig()``: events
    and certification test "auto", lean cells for few-valued outputs) on exactly-tight pairs:
    the share of seeds whose bound exceeds the pair's exact ε must stay below α = 0.05."""
    from ltheory.privacy.mechanisms import dpsniper_suite

    suite = dpsniper_suite(0.1)
    cases = [("randomized_response eps=1", RandomizedResponse(1.0), D0, D1),
             ("exponential thresholds(7) eps=1, worst flip", *em_small()),
             ("TruncatedGeometric (suite), counts 0 vs 1", suite["TruncatedGeometric"][0],
              (0.0,), (1.0,)),
             ("ReportNoisyMax1 (suite), one above rest below", suite["ReportNoisyMax1"][0],
              (1.0,) * 5, (2.0,) + (0.0,) * 4),
             ("SVT1 (suite), all above", suite["SVT1"][0], (1.0,) * 10, (2.0,) * 10),
             # continuous outputs whose ratio saturates (ε exactly, beyond the shift): where
             # the deeper cuts of the first event (auditing.deeper) can reach the true ε too
             ("Laplace (suite), 1 vs 2", suite["Laplace"][0], (1.0,), (2.0,), 0.1),
             ("NoisyHist1 (suite), one count 1 vs 2", suite["NoisyHist1"][0], (1.0,) * 5,
              (2.0,) + (1.0,) * 4, 0.1)]
    rows = []
    for label, m, a, b, *known in cases:
        t = time.perf_counter()
        from ltheory.privacy.auditing.exact import aligned

        true = known[0] if known else exact_epsilon(
            *aligned(m.output_distribution(a), m.output_distribution(b))[1:])
        reports = [audit(m, a, b, claimed_epsilon=0.1, runs=runs, seed=20_000 + s, exact=False)
                   for s in range(n_audits)]
        bounds = [r.epsilon_lower_bound for r in reports]
        above = sum(x > true for x in bounds)
        rows.append({"case": label, "true_epsilon": true, "audits": n_audits,
                     "runs_each": runs, "above_true": above, "share": above / n_audits,
                     # audits that certified deeper cuts of their first event (auditing.deeper)
                     "with_deeper_cuts": sum(any("deeper cut" in n for n in r.notes)
                                             for r in reports),
                     "mean_bound": sum(bounds) / n_audits, "max_bound": max(bounds),
                     "seconds": round(time.perf_counter() - t, 1)})
        print(rows[-1], flush=True)
    return rows


def soundness_many(n_audits: int = 2000) -> list[dict]:
    """The error rate of the bound estimated more finely: many small audits."""
    rows = []
    for label, (m, a, b), runs in (("randomized_response eps=1", (RandomizedResponse(1.0), D0, D1),
                                    10_000),
                                   ("exponential thresholds(7), worst flip", em_small(), 20_000)):
        true = audit(m, a, b, claimed_epsilon=1.0, runs=runs, seed=0).exact_epsilon
        above = sum(audit(m, a, b, claimed_epsilon=1.0, runs=runs, seed=50_000 + s,
                          executor="serial").epsilon_lower_bound > true for s in range(n_audits))
        rows.append({"case": label, "audits": n_audits, "runs_each": runs,
                     "share_above_true": above / n_audits})
    return rows


def soundness_structure(n_audits: int = 200, runs: int = 100_000,
                        only: list[int] | None = None,
                        certify: list[str] | None = None) -> list[dict]:
    """Issue 14: the exceedance measurement with the structure-score families in the candidate
    set (vector outputs) and the Poisson-conditional certification (certify="auto"), on pairs
    whose exact epsilon is known: bound > exact counts as an exceedance."""
    from ltheory.privacy.auditing.exact import aligned
    from ltheory.privacy.mechanisms import NoisyHist, OneTimeRappor, Parallel

    otr = OneTimeRappor()
    p1, p0 = otr.bit_probabilities()
    otr_exact = int((otr.bloom(0) != otr.bloom(1)).sum()) * math.log(p1 / p0)
    svt = SparseVector(0.1, variant=1, threshold=0.5, c=1)
    xa, xb = (1.0,) * 5 + (0.0,) * 5, (0.0,) * 5 + (1.0,) * 5
    svt_exact = exact_epsilon(*aligned(svt.output_distribution(xa),
                                       svt.output_distribution(xb))[1:])
    cases = [("randomized_response eps=1 (scalar)", RandomizedResponse(1.0), D0, D1, 1.0, 1.0,
              ("binomial", "auto")),
             ("exponential thresholds(7), worst flip (scalar)", *em_small(), None, 1.0,
              ("binomial", "auto")),
             ("one-time RAPPOR, values 0/1 (20 bits)", otr, (0.0,), (1.0,), otr_exact, 0.1,
              ("binomial", "auto")),
             ("4 Laplace at 0.25 in parallel, 0 -> 1 (4 coords)",
              Parallel([NoisyHist(0.25) for _ in range(4)]), (0.0,), (1.0,), 1.0, 1.0,
              ("binomial", "auto")),
             ("SVT1 (Lyu et al.), X-shape pair (10 codes)", svt, xa, xb, svt_exact, 0.1,
              ("binomial", "auto"))]
    rows = []
    for i, (label, m, a, b, true, eps, modes) in enumerate(cases):
        if only is not None and i not in only:
            continue
        if true is None:
            true = audit(m, a, b, claimed_epsilon=eps, runs=runs, seed=0).exact_epsilon
        for mode in (m_ for m_ in modes if certify is None or m_ in certify):
            t = time.perf_counter()
            bounds = [audit(m, a, b, claimed_epsilon=eps, runs=runs, seed=20_000 + s,
                            executor="serial", certify=mode).epsilon_lower_bound
                      for s in range(n_audits)]
            above = sum(x > true for x in bounds)
            lo = float(clopper_pearson_lower(above, n_audits, 0.025))
            hi = float(clopper_pearson_upper(above, n_audits, 0.025))
            rows.append({"case": label, "certify": mode, "exact_epsilon": true,
                         "audits": n_audits, "runs_each": runs, "above_exact": above,
                         "share": above / n_audits, "share_cp95": [lo, hi],
                         "mean_bound": sum(bounds) / n_audits,
                         "max_bound": max(bounds),
                         "seconds": round(time.perf_counter() - t, 1)})
            print(json.dumps(rows[-1], ensure_ascii=False), flush=True)
    return rows


def soundness_planned(n_audits: int = 200, total_runs: int = 200_000,
                      only: list[int] | None = None) -> list[dict]:
    """Issue 14: the exceedance measurement for planned neighbour searches
    (``audit_search(total_runs=...)``: the pilots choose the pair, the final audit certifies one
    or two events, ``events="auto"``, with Poisson run counts).  Each search's bound is compared
    with the exact ε of the pair it chose; bound > exact counts as an exceedance (the target: at
    most α = 5%)."""
    from ltheory.privacy.auditing.exact import aligned
    from ltheory.privacy.mechanisms import NoisyHist, Parallel, dpsniper_suite

    suite = dpsniper_suite(1.0)
    par = Parallel([NoisyHist(0.25) for _ in range(4)])
    cases = [("ReportNoisyMax (Laplace), 5 queries at 0", *suite["ReportNoisyMax1"][:1],
              (0.0,) * 5, None),
             ("SVT1 (Lyu et al.), 10 queries, the suite's base", *suite["SVT1"], None),
             ("truncated geometric, the suite's base", *suite["TruncatedGeometric"], None),
             ("4 Laplace at 0.25 in parallel, base 0 (every pair: eps 1)", par, (0.0,), 1.0)]
    rows = []
    for i, (label, m, base, known) in enumerate(cases):
        if only is not None and i not in only:
            continue
        t = time.perf_counter()
        cache: dict = {}
        above, bounds, pairs = 0, [], {}
        for s in range(n_audits):
            r = audit_search(m, base, claimed_epsilon=1.0, total_runs=total_runs,
                             seed=30_000 + s, executor="serial")
            key = (r.d0, r.d1)
            if key not in cache:
                cache[key] = known if known is not None else exact_epsilon(
                    *aligned(m.output_distribution(r.d0), m.output_distribution(r.d1))[1:])
            b = r.report.epsilon_lower_bound
            above += b > cache[key]
            bounds.append(b / cache[key])
            pairs[r.pattern] = pairs.get(r.pattern, 0) + 1
            assert r.total_runs <= total_runs
        rows.append({"case": label, "searches": n_audits, "total_runs_each": total_runs,
                     "above_exact": above, "share": above / n_audits,
                     "share_cp95": [float(clopper_pearson_lower(above, n_audits, 0.025)),
                                    float(clopper_pearson_upper(above, n_audits, 0.025))],
                     "mean_bound_over_exact": sum(bounds) / n_audits,
                     "max_bound_over_exact": max(bounds), "pairs_chosen": pairs,
                     "seconds": round(time.perf_counter() - t, 1)})
        print(json.dumps(rows[-1], ensure_ascii=False), flush=True)
    return rows


def tightness(quick: bool) -> list[dict]:
    cases = [("randomized_response eps=1 (target >= 0.9, <= 1e6 runs)",
              (RandomizedResponse(1.0), D0, D1), 1.0, [10**5, 10**6]),
             ("exponential, thresholds(7), eps=1, worst pair (target >= 0.85, <= 1e6 runs)",
              em_small(), 1.0, [10**5, 10**6]),
             ("exponential, 1024 outputs, eps=1, worst pair (target >= 0.85, <= 1e6 runs)",
              em_1024(), 1.0, [10**5, 10**6]),
             ("laplace counting eps=0.1 (target >= 0.085, <= 2e7 runs)",
              (LaplaceMechanism(0.1), D0, D1), 0.1,
              [10**6, 2 * 10**6] if quick else [10**6, 2 * 10**6, 5 * 10**6, 2 * 10**7])]
    rows = []
    for label, (m, a, b), eps, runs_list in cases:
        for runs in runs_list:
            r = audit(m, a, b, claimed_epsilon=eps, runs=runs, seed=0)
            rows.append({"case": label, "runs": runs, "bound": round(r.epsilon_lower_bound, 5),
                         "point": round(r.epsilon_point_estimate, 5),
                         "exact": r.exact_epsilon, "event": r.event[:70],
                         "seconds": round(r.seconds, 2)})
    return rows


def detection(runs: int, seeds: int = 10) -> list[dict]:
    variants = [NoisyMaxWithValue(1.0), SparseVector(1.0, variant=3),
                SparseVector(1.0, variant=4), SparseVector(1.0, variant=5),
                SparseVector(1.0, variant=6), Histogram(1.0, wrong_scale=True)]
    rows = []
    for m in variants:
        a, b = m.default_pair()
        n = 5 * runs // 2 if m.name == "svt3" else runs
        r = audit(m, a, b, claimed_epsilon=m.epsilon, runs=n, seed=0)
        flagged = [audit(m, a, b, claimed_epsilon=m.epsilon, runs=n, seed=100 + s).verdict
                   == "violation" for s in range(seeds)]
        rows.append({"mechanism": m.name, "claimed": m.epsilon, "true": m.true_epsilon,
                     "exact_at_pair": r.exact_epsilon, "runs": n,
                     "bound": round(r.epsilon_lower_bound, 4), "verdict": r.verdict,
                     "flagged_over_seeds": f"{sum(flagged)}/{seeds}",
                     "d0": a, "d1": b, "seconds": round(r.seconds, 2)})
    for m in (SparseVector(1.0, variant=1), SparseVector(1.0, variant=2)):
        a, b = m.default_pair()
        r = audit(m, a, b, claimed_epsilon=m.epsilon, runs=runs, seed=0)
        rows.append({"mechanism": m.name + " (correct control)", "claimed": m.epsilon,
                     "true": m.true_epsilon, "exact_at_pair": r.exact_epsilon, "runs": runs,
                     "bound": round(r.epsilon_lower_bound, 4), "verdict": r.verdict,
                     "seconds": round(r.seconds, 2)})
    return rows


def worst_pairs() -> list[dict]:
    """Exact scan of all substitution neighbours (the audited EM pairs are the worst found), and
    what audit_search finds from the same datasets with pilot runs."""
    rows = []
    for label, (m, a, b) in (("thresholds(7)", em_small()), ("thresholds(1023)", em_1024())):
        p0 = m.probabilities(a)
        pairs = labelled_neighbours(m, a, "flip" if len(a) > 100 else "substitution")
        best = max(exact_epsilon(p0, m.probabilities(d1)) for _, _, d1 in pairs)
        audited = exact_epsilon(p0, m.probabilities(b))
        t = time.perf_counter()
        s = audit_search(m, a, "flip", claimed_epsilon=1.0, runs=10**6, pilot_runs=20_000,
                         seed=0, max_pairs=2000)
        rows.append({"class": label, "pairs_scanned": len(pairs), "max_exact_epsilon": best,
                     "audited_pair_exact_epsilon": audited,
                     "search_pair": s.pattern, "search_exact": s.report.exact_epsilon,
                     "search_bound": round(s.report.epsilon_lower_bound, 4),
                     "search_seconds": round(time.perf_counter() - t, 2)})
    return rows


def throughput() -> dict:
    m, a, b = em_1024()
    audit(m, a, b, claimed_epsilon=1.0, runs=10_000, seed=1, executor="serial")   # warm-up
    t = time.perf_counter()
    r = audit(m, a, b, claimed_epsilon=1.0, runs=10**6, seed=1, executor="serial")
    return {"case": "exponential mechanism, 1,024 outputs, 1e6 runs, one core (serial)",
            "seconds": round(time.perf_counter() - t, 2), "bound": r.epsilon_lower_bound}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--soundness-structure", action="store_true",
                    help="only the issue-14 exceedance measurement (200 seeds per case)")
    ap.add_argument("--soundness-planned", action="store_true",
                    help="only the exceedance measurement of planned searches (--audits per "
                         "case, --cases 0-3)")
    ap.add_argument("--audits", type=int, default=200,
                    help="with --soundness-structure: seeded audits per case")
    ap.add_argument("--cases", type=int, nargs="*", default=None,
                    help="with --soundness-structure (0-4) or --soundness-planned (0-3): only "
                         "these case indices")
    ap.add_argument("--certify", nargs="*", default=None,
                    help="with --soundness-structure: only these certification tests")
    ap.add_argument("--soundness-defaults", action="store_true",
                    help="only the exceedance of audit() at its defaults (--audits per case)")
    args = ap.parse_args()
    if args.soundness_defaults:
        rows = soundness_defaults(20 if args.quick else args.audits)
        out = Path(__file__).resolve().parent / "results" / ("quick" if args.quick else "")
        out.mkdir(parents=True, exist_ok=True)
        (out / "soundness_defaults.json").write_text(json.dumps(rows, indent=1,
                                                                ensure_ascii=False))
        return
    if args.soundness_planned:
        rows = soundness_planned(20 if args.quick else args.audits, only=args.cases)
        out = Path(__file__).resolve().parent / "results" / ("quick" if args.quick else "")
        out.mkdir(parents=True, exist_ok=True)
        tag = "" if args.cases is None else "_" + "_".join(map(str, args.cases))
        tag += "" if args.audits == 500 else f"_{args.audits}"
        (out / f"soundness_planned{tag}.json").write_text(json.dumps(rows, indent=1,
                                                                     ensure_ascii=False))
        return
    if args.soundness_structure:
        rows = soundness_structure(50 if args.quick else args.audits, only=args.cases,
                                   certify=args.certify)
        out = Path(__file__).resolve().parent / "results" / ("quick" if args.quick else "")
        out.mkdir(parents=True, exist_ok=True)
        tag = "" if args.cases is None else "_" + "_".join(map(str, args.cases))
        tag += "" if args.audits == 200 else f"_{args.audits}seeds"
        tag += "" if args.certify is None else "_" + "_".join(args.certify)
        (out / f"soundness_structure{tag}.json").write_text(json.dumps(rows, indent=1,
                                                                       ensure_ascii=False))
        return
    out = {
        "throughput": throughput(),
        "tightness": tightness(args.quick),
        "detection": detection(400_000, 3 if args.quick else 10),
        "worst_pairs": worst_pairs(),
        "soundness": soundness(50 if args.quick else 200, 100_000),
        "soundness_many": soundness_many(200 if args.quick else 2000),
    }
    print(json.dumps(out, indent=1, default=str, ensure_ascii=False))


if __name__ == "__main__":
    main()
