"""Measured figures for ``ltheory.testing`` (issue 17): false alarms, runs to detection, time.

* **False alarms** of ``assert_private`` at ``false_alarm = 1e-6`` over ≥ 1,000 seeds of each of
  four exactly-ε mechanisms (randomized response, clamped geometric, Laplace, Laplace
  histogram, each claimed at its exact ε at a pair where that ε is attained), and the observed
  rate at the large levels 0.05 and 0.2 (where false alarms are frequent enough to count), for
  the betting test and for the alpha-spending baseline.
* **Runs to detection** of the negative controls (SVT variants 3–6 of Lyu, Su & Li 2017, report
  noisy max releasing its value, a Laplace histogram with the add/remove scale under
  substitution, and randomized response ε = 1 claimed 0.5), over seeds: the sequential test
  (betting and spending, false alarm 1e-6) against the fixed-sample audit
  (``ltheory.privacy.audit`` at α = 1e-6 and α = 0.05), whose runs-to-detection is the smallest
  budget on a grid 1000·2^(k/2) at which it flags, found per seed with hindsight (an oracle no
  fixed-sample user has).
* **Tightness at a fixed budget**: the largest claim below the true ε = 1 that each method
  refutes within 20,000 / 200,000 / 2,000,000 runs, beside the fixed-sample audit's bound.
* **Search**: ``assert_private_search`` over the 8 StatDP patterns.
* **Wall time** of one test at the default budget (200,000 runs) for correct mechanisms,
  including third-party ones (extra ``thirdparty``), and of the detections.

Run:  nice -n 10 python -m benchmarks.bench_testing [--quick]
Writes benchmarks/results/testing.{json,md} (``--quick``: benchmarks/results/quick/).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from benchmarks.bench_learners_a import Report  # one report helper for the benchmarks
from ltheory.errors import InvalidInputError
from ltheory.privacy import audit
from ltheory.privacy.mechanisms import (
    ExponentialMechanism,
    GeometricMechanism,
    Histogram,
    LaplaceMechanism,
    NoisyMaxWithValue,
    RandomizedResponse,
    ReportNoisyMax,
    SparseVector,
    thresholds,
)
from ltheory.testing import PrivacyViolation, assert_private, assert_private_search

RESULTS = Path(__file__).resolve().parent / "results"
D0, D1 = ((0, 0),), ((0, 1),)
HIST_PAIR = (((0, 0), (1, 0)), ((1, 0), (1, 0)))


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"


def run_test(m: object, a: object, b: object, eps: float, **kw: object) -> tuple[str, object]:
    try:
        return "passed", assert_private(m, a, b, eps, **kw)
    except PrivacyViolation as v:
        return "violation", v.report


# --------------------------------------------------------------------------- false alarms
def exact_cases() -> list[tuple]:
    return [("randomized response ε=1", RandomizedResponse(1.0), D0, D1, 200_000),
            ("geometric ε=1, clamped to [−3, 4]", GeometricMechanism(1.0, clamp=(-3, 4)), 0, 1,
             200_000),
            ("Laplace ε=1 (count)", LaplaceMechanism(1.0), D0, D1, 20_000),
            ("Laplace histogram ε=1, 4 bins", Histogram(1.0, bins=4), *HIST_PAIR, 10_000)]


def false_alarms(R: Report, seeds: int, calib_seeds: int) -> None:
    R.md("## False alarms of exactly-ε mechanisms")
    R.md()
    R.md(f"Each mechanism is claimed at its exact ε at the pair (the worst case for a test). "
         f"`false_alarm = 1e-6`: {seeds} seeds per mechanism (seeds 10^6 + s); the expected "
         f"number of false alarms over all of them is at most {4 * seeds * 1e-6:.4f}.")
    R.md()
    R.md("| mechanism | runs per test | seeds | violations | max log10 e-value | median s |")
    R.md("|---|---|---|---|---|---|")
    for name, m, a, b, runs in exact_cases():
        viol, top, secs = 0, -math.inf, []
        for s in range(seeds):
            t = time.perf_counter()
            verdict, r = run_test(m, a, b, 1.0, max_runs=runs, seed=10**6 + s)
            secs.append(time.perf_counter() - t)
            viol += verdict == "violation"
            top = max(top, r.log10_e_value)
        R.rec("false_alarm", mechanism=name, runs=runs, seeds=seeds, false_alarm=1e-6,
              violations=viol, max_log10_e_value=top, median_seconds=statistics.median(secs))
        R.md(f"| {name} | {runs:,} | {seeds} | **{viol}** | {top:.2f} (reject at 6) | "
             f"{statistics.median(secs):.2f} |")
    R.md()
    R.md(f"Calibration at large levels ({calib_seeds} seeds, 20,000 runs each): the observed "
         "false-alarm rate must stay below the level; how far below shows how conservative "
         "each method is.")
    R.md()
    R.md("| mechanism | method | level | false alarms | rate |")
    R.md("|---|---|---|---|---|")
    for name, m, a, b, _ in exact_cases()[:2]:
        for method in ("betting", "spending"):
            for level in (0.05, 0.2):
                v = sum(run_test(m, a, b, 1.0, max_runs=20_000, seed=2 * 10**6 + s,
                                 false_alarm=level, method=method)[0] == "violation"
                        for s in range(calib_seeds))
                R.rec("calibration", mechanism=name, method=method, level=level,
                      seeds=calib_seeds, false_alarms=v, rate=v / calib_seeds)
                R.md(f"| {name} | {method} | {level} | {v}/{calib_seeds} | "
                     f"{v / calib_seeds:.3f} |")
    R.md()


# --------------------------------------------------------------------------- detection
def controls() -> list[tuple]:
    out = [("randomized response ε=1 claimed 0.5", RandomizedResponse(1.0), D0, D1, 0.5)]
    for m in (SparseVector(1.0, variant=3), SparseVector(1.0, variant=4),
              SparseVector(1.0, variant=5), SparseVector(1.0, variant=6),
              NoisyMaxWithValue(1.0), Histogram(1.0, wrong_scale=True)):
        out.append((f"{m.name} (true ε {m.true_epsilon:g})", m, *m.default_pair(), m.epsilon))
    return out


GRID = [int(1000 * 2 ** (k / 2)) for k in range(0, 27)]       # 1,000 … ~8.2 million


def fixed_detection(m: object, a: object, b: object, eps: float, alpha: float,
                    seed: int, cap: int) -> int | None:
    for n in GRID:
        if n > cap:
            return None
        try:
            r = audit(m, a, b, claimed_epsilon=eps, runs=n, seed=seed, alpha=alpha,
                      executor="serial")
        except InvalidInputError:           # too few runs to certify anything at this alpha
            continue
        if r.verdict == "violation":
            return n
    return None


def _median(xs: list) -> float:
    return statistics.median(x if x is not None else math.inf for x in xs)


def _med(xs: list) -> str:
    got = [x for x in xs if x is not None]
    if len(got) * 2 <= len(xs):
        return "—"
    return f"{_median(xs):,.0f}"


def detection(R: Report, seeds: int, cap: int) -> None:
    R.md("## Runs to detection of the negative controls")
    R.md()
    R.md(f"Medians over {seeds} seeds (budget {cap:,} runs).  Sequential: `runs_to_decision` "
         "(runs up to the pair at which the test crossed; in brackets the runs actually drawn, "
         "which end at a batch boundary), false alarm 1e-6.  Fixed-sample audit: the smallest "
         "budget on the grid 1000·2^(k/2) at which `audit(seed=s)` flags, per seed, with "
         "hindsight.")
    R.md()
    R.md("| control | betting | spending | fixed audit α=1e-6 | fixed audit α=0.05 | "
         "betting / fixed(1e-6) | betting detected | median s (betting) |")
    R.md("|---|---|---|---|---|---|---|---|")
    for name, m, a, b, eps in controls():
        row: dict = {"control": name}
        for method in ("betting", "spending"):
            dec, drawn, secs, found = [], [], [], 0
            for s in range(seeds):
                t = time.perf_counter()
                verdict, r = run_test(m, a, b, eps, max_runs=cap, seed=100 + s, method=method)
                secs.append(time.perf_counter() - t)
                found += verdict == "violation"
                dec.append(r.runs_to_decision if verdict == "violation" else None)
                drawn.append(r.runs_used if verdict == "violation" else None)
            row[method] = {"runs_to_decision": dec, "runs_used": drawn, "detected": found,
                           "seconds": secs}
        for alpha in (1e-6, 0.05):
            row[f"fixed_{alpha:g}"] = [fixed_detection(m, a, b, eps, alpha, 100 + s, cap)
                                       for s in range(seeds)]
        R.rec("detection", **row)
        bd = row["betting"]["runs_to_decision"]
        fx = row["fixed_1e-06"]
        ratio = "—"
        if _med(bd) != "—" and _med(fx) != "—":
            ratio = f"{_median(bd) / _median(fx):.2f}"
        R.md(f"| {name} | {_med(bd)} ({_med(row['betting']['runs_used'])}) | "
             f"{_med(row['spending']['runs_to_decision'])} | {_med(fx)} | "
             f"{_med(row['fixed_0.05'])} | {ratio} | {row['betting']['detected']}/{seeds} | "
             f"{statistics.median(row['betting']['seconds']):.2f} |")
    R.md()


def search_detection(R: Report, seeds: int) -> None:
    R.md("## assert_private_search (StatDP patterns around five zero answers; 8 pairs, each "
         "at 1e-6/8)")
    R.md()
    R.md("| mechanism | detected | median runs (all pairs) | median s |")
    R.md("|---|---|---|---|")
    for m in (SparseVector(1.0, variant=4), SparseVector(1.0, variant=6),
              NoisyMaxWithValue(1.0)):
        runs, secs, found = [], [], 0
        for s in range(seeds):
            t = time.perf_counter()
            try:
                rep = assert_private_search(m, (0.0,) * 5, 1.0, neighbours="patterns",
                                            max_runs=2_000_000, seed=300 + s)
                runs.append(rep.runs_used)
            except PrivacyViolation as v:
                found += 1
                runs.append(v.report.runs_used)
            secs.append(time.perf_counter() - t)
        R.rec("search", mechanism=m.name, seeds=seeds, detected=found, runs=runs, seconds=secs)
        R.md(f"| {m.name} | {found}/{seeds} | {statistics.median(runs):,.0f} | "
             f"{statistics.median(secs):.2f} |")
    R.md()


# --------------------------------------------------------------------------- tightness
CLAIMS = [round(0.5 + 0.02 * k, 2) for k in range(25)][::-1]       # 0.98, 0.96, …, 0.50


def largest_refuted(m: object, a: object, b: object, runs: int, seed: int,
                    method: str) -> float:
    """The largest claim on CLAIMS the sequential test refutes within ``runs`` (0 if none)."""
    for c in CLAIMS:
        if run_test(m, a, b, c, max_runs=runs, seed=seed, method=method)[0] == "violation":
            return c
    return 0.0


def tightness(R: Report, seeds: int, budgets: tuple[int, ...]) -> None:
    R.md("## Tightness at a fixed budget: the largest claim refuted (true ε = 1)")
    R.md()
    R.md(f"Median over {seeds} seeds of the largest claim ε_c on the grid 0.50, 0.52, …, 0.98 "
         "that the test refutes within the budget (false alarm 1e-6), beside the fixed-sample "
         "audit's certified ε lower bound with the same runs at α = 1e-6 (the largest claim "
         "it refutes).")
    R.md()
    R.md("| mechanism | runs | betting | spending | fixed audit α=1e-6 |")
    R.md("|---|---|---|---|---|")
    for name, m, a, b in (("randomized response ε=1", RandomizedResponse(1.0), D0, D1),
                          ("Laplace ε=1 (count)", LaplaceMechanism(1.0), D0, D1)):
        for runs in budgets:
            row = {"mechanism": name, "runs": runs}
            for method in ("betting", "spending"):
                row[method] = [largest_refuted(m, a, b, runs, 400 + s, method)
                               for s in range(seeds)]
            row["fixed"] = [audit(m, a, b, claimed_epsilon=1.0, runs=runs, seed=400 + s,
                                  alpha=1e-6, executor="serial").epsilon_lower_bound
                            for s in range(seeds)]
            R.rec("tightness", **row)
            R.md(f"| {name} | {runs:,} | {statistics.median(row['betting']):.2f} | "
                 f"{statistics.median(row['spending']):.2f} | "
                 f"{statistics.median(row['fixed']):.3f} |")
    R.md()


# --------------------------------------------------------------------------- wall time
def timing_cases() -> list[tuple]:
    em = ExponentialMechanism(thresholds(7), 1.0)
    e0 = tuple((x, 1) for x in range(7))
    cases = [("randomized response", RandomizedResponse(1.0), D0, D1, 1.0),
             ("geometric", GeometricMechanism(1.0), 0, 1, 1.0),
             ("Laplace", LaplaceMechanism(1.0), D0, D1, 1.0),
             ("Laplace histogram (4 bins)", Histogram(1.0, bins=4), *HIST_PAIR, 1.0),
             ("report noisy max (5 queries)", ReportNoisyMax(1.0),
              *ReportNoisyMax(1.0).default_pair(), 1.0),
             ("SVT1 (5 queries)", SparseVector(1.0, variant=1),
              *SparseVector(1.0, variant=1).default_pair(), 1.0),
             ("exponential mechanism, thresholds(7)", em, e0, e0[:6] + ((6, 0),), 1.0)]
    try:
        from ltheory.privacy.adapters import (
            DiffprivlibGeometric,
            DiffprivlibLaplace,
            OpenDPLaplace,
        )
        cases += [("diffprivlib Laplace", DiffprivlibLaplace(1.0), 0.0, 1.0, 1.0),
                  ("diffprivlib Geometric", DiffprivlibGeometric(1.0), 0, 1, 1.0),
                  ("OpenDP make_laplace (integer)", OpenDPLaplace(1.0, integer=True), 0, 1,
                   1.0)]
    except Exception as exc:  # noqa: BLE001 - the extra is optional
        print(f"third-party cases skipped: {exc}", file=sys.stderr)
    return cases


def wall_time(R: Report, reps: int) -> None:
    R.md("## Wall time of one test at the default budget (200,000 runs), correct mechanisms")
    R.md()
    R.md("| mechanism | verdict | runs | looks | median s | max s |")
    R.md("|---|---|---|---|---|---|")
    for name, m, a, b, eps in timing_cases():
        secs, verdict, r = [], "", None
        for s in range(reps):
            t = time.perf_counter()
            verdict, r = run_test(m, a, b, eps, seed=s)
            secs.append(time.perf_counter() - t)
        R.rec("wall_time", mechanism=name, verdict=verdict, runs=r.runs_used, looks=r.looks,
              seconds=secs)
        R.md(f"| {name} | {verdict} | {r.runs_used:,} | {r.looks} | "
             f"{statistics.median(secs):.2f} | {max(secs):.2f} |")
    R.md()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer seeds (smoke test)")
    args = ap.parse_args()
    global RESULTS
    if args.quick:
        RESULTS = RESULTS / "quick"
    R = Report()
    t0 = time.perf_counter()
    start_load = load()
    R.md(f"# ltheory.testing: false alarms, runs to detection, time"
         f"{' (--quick)' if args.quick else ''}")
    R.md()
    R.md(f"Generated by `python -m benchmarks.bench_testing{' --quick' if args.quick else ''}` "
         f"on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} — Python "
         f"{platform.python_version()}, {os.cpu_count()} CPUs (load average at start: "
         f"{start_load}; other sessions share the machine, so seconds are indicative; runs "
         "and counts are exact and reproducible from the seeds).")
    R.md()
    wall_time(R, 2 if args.quick else 5)
    detection(R, 3 if args.quick else 10, 8_000_000)
    search_detection(R, 2 if args.quick else 5)
    tightness(R, 2 if args.quick else 5, (20_000, 200_000) if args.quick
              else (20_000, 200_000, 2_000_000))
    false_alarms(R, 50 if args.quick else 1000, 100 if args.quick else 1000)
    R.md(f"Total {time.perf_counter() - t0:.0f} s; load average at the end: {load()}.")
    doc = {"quick": args.quick, "load_start": start_load, "load_end": load(),
           "seconds": time.perf_counter() - t0, **R.data}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "testing.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
    (RESULTS / "testing.md").write_text("\n".join(R.lines) + "\n")
    print(f"wrote {RESULTS / 'testing.md'} and .json")


if __name__ == "__main__":
    main()
