"""The violation zoo against the auditors (issue 38, item 1: "an auditor without blind spots").

Three parts, on the entries of ``ltheory.privacy.zoo``:

1. **violations** — for each violation entry and each auditor, the *runs to detection*: the
   fewest total runs on the grid ``oracle × (1/2, 1, 2, 3, 4, 8, 16, 32, 64)`` (capped by
   ``--cap``) at which the auditor detects the violation on ≥ ``--need`` of ``--seeds``
   seeds (default 4 of 5), and its ratio to the oracle (``zoo.oracle_runs``: the single best
   event known in advance, at its expected counts).  Auditors:
   * ``audit`` — at the claimed (ε, δ) for a point claim; for a curve claim at the point of
     the claim where the oracle's gap is: ε* = the oracle's best ε at α = 0.05 and
     δ* = δ_claim(ε*) (ε* raised to 0.05 if smaller: ``audit`` needs ε > 0; a point the
     curve implies, so a violation there refutes the curve);
   * ``audit_curve(mech, d0, d1, claim=..., runs=N, seed=s)``;
   * ``assert_private(mech, d0, d1, claim=..., max_runs=N, seed=s)`` (detection = it raises
     ``PrivacyViolation``), against the oracle at its level 10^-6.
   Targets (the issue's): ``audit_curve`` within 2× the oracle at α = 0.05, ``assert_private``
   within 3× the oracle at 10^-6.
2. **controls** — each control entry, ``--control-seeds`` seeds (default 200) at
   ``--control-runs`` runs (default 10^5): how many seeds each auditor stays consistent on
   (``audit`` at α = 0.05, ``audit_curve`` at α = 0.05, ``assert_private`` at 10^-6).  An entry
   whose claim is exactly tight may be flagged on up to ~α of the seeds by a sound auditor.
3. **soundness** — 200-seed exceedance counts on tight mechanisms with known exact curves
   (randomized response ε = 1, the Gaussian σ = 1 with GDP(1), Laplace b = 1 with 1-DP):
   the number of seeds on which each auditor's certified bound exceeds the truth (its verdict
   is "violation"), against the 1%-level critical value of Binomial(seeds, α).

Arithmetic: the float-leak entries are violations of the floating-point mechanism; the
"real" controls (numpy's float-leaky Gaussian and Laplace) are controls only when the auditor
audits the real-arithmetic mechanism.  When ``AuditConfig`` has an ``arithmetic`` field (issue 38c)
the harness passes ``arithmetic="float"`` for float entries and ``"real"`` for real controls (and
to ``assert_private`` when its signature takes it); on older code it passes nothing.

Run:
    python -m benchmarks.bench_zoo --quick            # a small subset, minutes
    python -m benchmarks.bench_zoo                    # the closing figures (hours)
    options: --part violations|controls|soundness|all  --only NAME (repeatable)  --seeds K
             --need M  --cap RUNS  --control-seeds S  --control-runs N  --soundness-seeds S
             --executor serial|auto  --float-oracles (re-estimate the float leaks' oracles)
Writes benchmarks/results/zoo.{json,md} (``--quick``: results/quick/zoo.{json,md}, git-ignored,
so a smoke test never overwrites the committed figures); a run of one
``--part`` (without ``--only``) keeps the other parts already in the file, so the three parts
can run as separate processes one after the other.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import math
import time
import warnings
from pathlib import Path
from typing import Any

from scipy.stats import binom

from ltheory.privacy import audit, zoo
from ltheory.privacy.auditing import audit_curve
from ltheory.privacy.auditing.config import AuditConfig
from ltheory.privacy.claims import GDP, ApproxDP, PureDP
from ltheory.privacy.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse
from ltheory.testing import PrivacyViolation, assert_private

OUT = Path(__file__).parent / "results"
MULTIPLES = (0.5, 1, 2, 3, 4, 8, 16, 32, 64)
AUDITORS = ("audit", "audit_curve", "assert_private")
MIN_AUDIT_EPSILON = 0.05
TARGETS = {"audit_curve": 2.0, "assert_private": 3.0}
#: --quick: entries whose oracles are small (cheap to detect), one of each kind of blind spot
QUICK_VIOLATIONS = ("laplace_wrong_sensitivity", "clamped_noise_atom", "laplace_as_gdp0.9",
                    "gaussian_mu1.1_as_gdp1", "dpsgd_wrong_rate", "tail_cluster_laplace_1e-3",
                    "float_gaussian_numpy")
QUICK_CONTROLS = ("geometric", "randomized_response", "snapped_laplace", "gaussian_exact_gdp")

HAS_ARITHMETIC = "arithmetic" in {f.name for f in dataclasses.fields(AuditConfig)}
AP_ARITHMETIC = "arithmetic" in inspect.signature(assert_private).parameters


def _arith(entry_arith: str) -> dict[str, Any]:
    """The ``arithmetic=`` option for an entry, where the code has it."""
    if entry_arith == "any" or not HAS_ARITHMETIC:
        return {}
    return {"arithmetic": entry_arith}


def _ap_arith(entry_arith: str) -> dict[str, Any]:
    if entry_arith == "any" or not AP_ARITHMETIC:
        return {}
    return {"arithmetic": entry_arith}


def violation_arithmetic(entry: zoo.ZooEntry) -> str:
    """The arithmetic a violation is measured in: its own for floating-point leaks, else
    ``"real"`` — the zoo's real-arithmetic violations are sampled with numpy's float noise,
    whose floating-point leak the default ``"float"`` finds first, and the runs to detection
    are to measure the violation, not the implementation's rounding."""
    return entry.arithmetic if entry.arithmetic != "any" else "real"


def _point(claim: Any, eps: float) -> tuple[float, float]:
    """The (ε, δ) at which ``audit`` checks a claim: the claim itself for an (ε, δ) claim, else
    (ε, δ_claim(ε)) with ε at least :data:`MIN_AUDIT_EPSILON` (``audit`` needs ε > 0)."""
    if isinstance(claim, ApproxDP):
        return claim.epsilon, claim.delta
    eps = max(eps, MIN_AUDIT_EPSILON)
    return eps, float(claim.delta_at(eps))


def run_one(auditor: str, mech: Any, d0: Any, d1: Any, claim: Any, point: tuple[float, float],
            runs: int, seed: int, executor: str | None, arith: str) -> dict[str, Any]:
    """One auditor call: ``{"detected": bool, "seconds", "error"?, ...}``."""
    opts: dict[str, Any] = {"verify_neighbours": False}
    if executor is not None:
        opts["executor"] = executor
    t0 = time.perf_counter()
    out: dict[str, Any] = {"runs": runs, "seed": seed}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if auditor == "audit":
                r = audit(mech, d0, d1, claimed_epsilon=point[0], claimed_delta=point[1],
                          runs=runs, seed=seed, **opts, **_arith(arith))
                out["detected"] = r.verdict == "violation"
                out["epsilon_lower_bound"] = r.epsilon_lower_bound
            elif auditor == "audit_curve":
                r = audit_curve(mech, d0, d1, claim=claim, runs=runs, seed=seed, **opts,
                                **_arith(arith))
                out["detected"] = r.verdict == "violation"
                out["gap"] = r.gap
                out["gap_epsilon"] = r.gap_epsilon
                out["gap_event"] = r.gap_event
            else:
                try:
                    rep = assert_private(mech, d0, d1, claim=claim, max_runs=runs, seed=seed,
                                         executor=opts.get("executor"), verify_neighbours=False,
                                         **_ap_arith(arith))
                    out["detected"] = False
                    out["runs_used"] = rep.runs_used
                except PrivacyViolation as v:
                    out["detected"] = True
                    out["runs_to_decision"] = v.report.runs_to_decision
                    out["event"] = v.report.event
    except Exception as exc:  # noqa: BLE001 - recorded (e.g. TooFewRunsError at tiny budgets)
        out["detected"] = False
        out["error"] = f"{type(exc).__name__}: {exc}"[:300]
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


def runs_to_detection(auditor: str, entry: zoo.ZooEntry, args: argparse.Namespace
                      ) -> dict[str, Any]:
    """Walk the grid of multiples of the oracle until ≥ need of the seeds detect."""
    level = 1e-6 if auditor == "assert_private" else 0.05
    oracle = entry.oracle_runs(level)
    point = _point(entry.claim, entry.oracle_epsilon(0.05))
    grid = []
    found = None
    for m in MULTIPLES:
        n = max(4, 2 * round(m * oracle / 2))
        if n > args.cap:
            break
        rows, hits = [], 0
        for s in range(args.seeds):
            r = run_one(auditor, entry.mechanism, entry.d0, entry.d1, entry.claim, point, n, s,
                        args.executor, violation_arithmetic(entry))
            rows.append(r)
            hits += r["detected"]
            if hits >= args.need or (s + 1 - hits) > args.seeds - args.need:
                break               # decided either way
        ok = hits >= args.need
        grid.append({"multiple": m, "runs": n, "detected": hits, "tried": len(rows),
                     "seconds": round(sum(r["seconds"] for r in rows), 2), "calls": rows})
        print(f"    {auditor:15s} {m:>4g}x oracle = {n:>11,} runs: {hits}/{len(rows)} detect "
              f"({grid[-1]['seconds']:.1f} s)", flush=True)
        if ok:
            found = (m, n)
            break
    res: dict[str, Any] = {"auditor": auditor, "level": level, "oracle_runs": oracle,
                           "audit_point": list(point) if auditor == "audit" else None,
                           "grid": grid}
    if found is None:
        res |= {"runs_to_detection": None, "ratio": None,
                "note": f"not detected on {args.need}/{args.seeds} seeds within "
                        f"{grid[-1]['runs'] if grid else 0:,} runs (cap {args.cap:,})"}
    else:
        res |= {"runs_to_detection": found[1], "ratio": found[0]}
    target = TARGETS.get(auditor)
    if target is not None:
        res["target"] = target
        res["meets_target"] = found is not None and found[0] <= target
    return res


def part_violations(args: argparse.Namespace) -> list[dict[str, Any]]:
    names = zoo.names("violation")
    if args.only:
        names = [n for n in names if n in args.only]
    elif args.quick:
        names = [n for n in names if n in QUICK_VIOLATIONS]
    out = []
    for name in names:
        e = zoo.get(name)
        print(f"[violation] {name}: claim {e.claim}, oracle {e.oracle_runs(0.05):,} runs at "
              f"0.05, {e.oracle_runs(1e-6):,} at 1e-6", flush=True)
        row = {"name": name, "claim": str(e.claim), "arithmetic": e.arithmetic,
               "oracle": e.oracle.to_json() | {"runs_0.05": e.oracle_runs(0.05),
                                                "runs_1e-6": e.oracle_runs(1e-6)},
               "auditors": {}}
        for a in args.auditors:
            row["auditors"][a] = runs_to_detection(a, e, args)
        out.append(row)
    return out


def part_controls(args: argparse.Namespace) -> list[dict[str, Any]]:
    names = zoo.names("control")
    if args.only:
        names = [n for n in names if n in args.only]
    elif args.quick:
        names = [n for n in names if n in QUICK_CONTROLS]
    out = []
    for name in names:
        e = zoo.get(name)
        eps = e.claim.epsilon if isinstance(e.claim, ApproxDP) else e.claim.epsilon_at(1e-5)
        point = _point(e.claim, eps)
        print(f"[control] {name}: claim {e.claim} ({e.arithmetic}), {args.control_seeds} seeds "
              f"x {args.control_runs:,} runs", flush=True)
        row = {"name": name, "claim": str(e.claim), "arithmetic": e.arithmetic,
               "runs": args.control_runs, "seeds": args.control_seeds, "audit_point": point,
               "auditors": {}}
        for a in args.auditors:
            rows = [run_one(a, e.mechanism, e.d0, e.d1, e.claim, point, args.control_runs, s,
                            args.executor, e.arithmetic) for s in range(args.control_seeds)]
            bad = [r for r in rows if r["detected"]]
            errs = [r for r in rows if "error" in r]
            row["auditors"][a] = {
                "consistent": len(rows) - len(bad) - len(errs), "flagged": len(bad),
                "errors": len(errs), "seconds": round(sum(r["seconds"] for r in rows), 2),
                "flagged_seeds": [r["seed"] for r in bad],
                "first_error": errs[0]["error"] if errs else None}
            print(f"    {a:15s} consistent on {row['auditors'][a]['consistent']}/{len(rows)} "
                  f"({len(errs)} errors, {row['auditors'][a]['seconds']:.1f} s)", flush=True)
        out.append(row)
    return out


def _soundness_cases() -> list[tuple[str, Any, Any, Any, Any, str]]:
    from ltheory.privacy.zoo import D0, D1
    return [
        ("randomized_response eps=1, 1-DP", RandomizedResponse(1.0), D0, D1, PureDP(1.0), "any"),
        ("gaussian sigma=1, GDP(1)", GaussianMechanism(sigma=1.0), D0, D1, GDP(1.0), "real"),
        ("laplace b=1, 1-DP", LaplaceMechanism(1.0), D0, D1, PureDP(1.0), "real"),
    ]


def part_soundness(args: argparse.Namespace) -> list[dict[str, Any]]:
    out = []
    for label, mech, d0, d1, claim, arith in _soundness_cases():
        if args.only and label not in args.only:
            continue
        eps = claim.epsilon if isinstance(claim, ApproxDP) else 1.0
        point = _point(claim, eps)
        print(f"[soundness] {label}: {args.soundness_seeds} seeds x {args.control_runs:,} runs",
              flush=True)
        row = {"case": label, "claim": str(claim), "audit_point": point,
               "seeds": args.soundness_seeds, "runs": args.control_runs, "auditors": {}}
        for a in args.auditors:
            level = 1e-6 if a == "assert_private" else 0.05
            crit = int(binom.isf(0.01, args.soundness_seeds, level)) + 1
            rows = [run_one(a, mech, d0, d1, claim, point, args.control_runs, s, args.executor,
                            arith) for s in range(args.soundness_seeds)]
            k = sum(r["detected"] for r in rows)
            errs = sum("error" in r for r in rows)
            row["auditors"][a] = {
                "exceedances": k, "errors": errs, "level": level,
                "expected_at_most": args.soundness_seeds * level,
                "critical_value_1pct": crit, "significant": k >= crit,
                "seconds": round(sum(r["seconds"] for r in rows), 2)}
            print(f"    {a:15s} {k} exceedances (1% critical value {crit}), {errs} errors",
                  flush=True)
        out.append(row)
    return out


def _fmt_runs(x: Any) -> str:
    return "—" if x is None else f"{x:,}"


def markdown(doc: dict[str, Any]) -> str:
    lines = ["# The violation zoo against the auditors", "",
             f"{doc['mode']} run, {doc['date']}, seeds {doc['seeds']} (detect on "
             f">= {doc['need']}), cap {doc['cap']:,} runs; arithmetic option available: "
             f"{doc['has_arithmetic']}. Generated by `benchmarks/bench_zoo.py`.", ""]
    if doc.get("violations"):
        lines += ["## Runs to detection (violations)", "",
                  "Ratio = runs to detection / oracle runs (audit, audit_curve: oracle at "
                  "alpha = 0.05; assert_private: oracle at 1e-6). Targets: audit_curve <= 2x, "
                  "assert_private <= 3x.", "",
                  "| entry | claim | oracle 0.05 | oracle 1e-6 | audit | audit_curve | "
                  "assert_private |", "|---|---|---:|---:|---|---|---|"]
        for v in doc["violations"]:
            cells = []
            for a in AUDITORS:
                r = v["auditors"].get(a)
                if r is None:
                    cells.append("(skipped)")
                elif r["runs_to_detection"] is None:
                    cells.append(f"not within {r['grid'][-1]['runs']:,}" if r["grid"] else
                                 "not run (cap)")
                else:
                    mark = "" if "meets_target" not in r else (" ✓" if r["meets_target"]
                                                               else " ✗")
                    cells.append(f"{r['runs_to_detection']:,} ({r['ratio']:g}x){mark}")
            lines.append(f"| {v['name']} | {v['claim']} | {_fmt_runs(v['oracle']['runs_0.05'])} "
                         f"| {_fmt_runs(v['oracle']['runs_1e-6'])} | " + " | ".join(cells) + " |")
        lines.append("")
    if doc.get("controls"):
        lines += ["## Controls (seeds consistent)", "",
                  "| control | claim | arithmetic | runs | audit | audit_curve | "
                  "assert_private |", "|---|---|---|---:|---|---|---|"]
        for c in doc["controls"]:
            cells = [f"{c['auditors'][a]['consistent']}/{c['seeds']}"
                     + (f" ({c['auditors'][a]['errors']} err)" if c["auditors"][a]["errors"]
                        else "") if a in c["auditors"] else "(skipped)" for a in AUDITORS]
            lines.append(f"| {c['name']} | {c['claim']} | {c['arithmetic']} | {c['runs']:,} | "
                         + " | ".join(cells) + " |")
        lines.append("")
    if doc.get("soundness"):
        lines += ["## Soundness (exceedances on tight claims)", "",
                  "| case | seeds | audit | audit_curve | assert_private |",
                  "|---|---:|---|---|---|"]
        for s in doc["soundness"]:
            au = s["auditors"]
            cells = [f"{au[a]['exceedances']} (crit {au[a]['critical_value_1pct']})"
                     if a in au else "(skipped)" for a in AUDITORS]
            lines.append(f"| {s['case']} | {s['seeds']} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Zoo entries", "",
              "Oracle: the best single event known in advance (d_a = d1 throughout); runs = the "
              "fewest total runs at which it certifies the violation at its expected counts "
              "(Clopper-Pearson at alpha/2 each), at the epsilon given.", "",
              "| entry | kind | claim | arithmetic | oracle event | P_a | P_b | exact | "
              "runs 0.05 (eps) | runs 1e-6 (eps) |",
              "|---|---|---|---|---|---:|---:|---|---:|---:|"]
    for e in doc["entries"]:
        o = e.get("oracle")
        if o is None:
            lines.append(f"| {e['name']} | control | {e['claim_text']} | {e['arithmetic']} | "
                         "— | | | | | |")
        else:
            lines.append(f"| {e['name']} | violation | {e['claim_text']} | {e['arithmetic']} | "
                         f"{o['event'].replace('|', '¦')} | {o['p_a']:.4g} | {o['p_b']:.4g} | "
                         f"{'yes' if o['exact'] else 'MC ' + format(o['mc_runs'], ',')} | "
                         f"{o['runs_alpha_0.05']:,} ({o['epsilon_alpha_0.05']:.3g}) | "
                         f"{o['runs_alpha_1e-6']:,} ({o['epsilon_alpha_1e-6']:.3g}) |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--part", choices=("violations", "controls", "soundness", "all"),
                    default="all")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--auditor", action="append", choices=AUDITORS, default=[])
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--need", type=int, default=None)
    ap.add_argument("--cap", type=int, default=None)
    ap.add_argument("--control-seeds", type=int, default=None)
    ap.add_argument("--control-runs", type=int, default=None)
    ap.add_argument("--soundness-seeds", type=int, default=None)
    ap.add_argument("--executor", choices=("serial", "auto"), default="serial")
    ap.add_argument("--float-oracles", action="store_true",
                    help="re-estimate the float leaks' oracles (1e7 runs each) and print them")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.float_oracles:
        for i, n in enumerate(n for n in zoo.names("violation") if n.startswith("float_")):
            print(repr(n), zoo.choose_float_oracle(n, seed=2026 + i), flush=True)
        return
    q = args.quick
    args.seeds = args.seeds or (3 if q else 5)
    args.need = args.need or (args.seeds if q else 4)
    args.cap = args.cap or (1_000_000 if q else 200_000_000)
    args.control_seeds = args.control_seeds or (10 if q else 200)
    args.control_runs = args.control_runs or (20_000 if q else 100_000)
    args.soundness_seeds = args.soundness_seeds or (10 if q else 200)
    args.executor = None if args.executor == "auto" else "serial"
    args.auditors = args.auditor or list(AUDITORS)
    t0 = time.time()
    doc: dict[str, Any] = {
        "mode": "quick" if q else "full", "date": time.strftime("%Y-%m-%d %H:%M"),
        "seeds": args.seeds, "need": args.need, "cap": args.cap,
        "control_seeds": args.control_seeds, "control_runs": args.control_runs,
        "soundness_seeds": args.soundness_seeds, "has_arithmetic": HAS_ARITHMETIC,
        "assert_private_arithmetic": AP_ARITHMETIC, "multiples": MULTIPLES,
        "entries": [zoo.get(n).to_json() for n in zoo.names()
                    if not args.only or n in args.only]}
    if args.part in ("violations", "all"):
        doc["violations"] = part_violations(args)
    if args.part in ("controls", "all"):
        doc["controls"] = part_controls(args)
    if args.part in ("soundness", "all"):
        doc["soundness"] = part_soundness(args)
    doc["seconds"] = round(time.time() - t0, 1)
    stem = args.out or "zoo"
    out = OUT / "quick" if q else OUT
    out.mkdir(parents=True, exist_ok=True)
    prev = out / f"{stem}.json"
    if args.part != "all" and not args.only and prev.exists():
        # one part at a time (e.g. in parallel processes): keep the other parts' results
        old = json.loads(prev.read_text())
        for key in ("violations", "controls", "soundness"):
            if key not in doc and key in old:
                doc[key] = old[key]
    (out / f"{stem}.json").write_text(json.dumps(doc, indent=1, default=_json_default))
    (out / f"{stem}.md").write_text(markdown(doc))
    print(f"wrote {out / stem}.json and .md in {doc['seconds']:.0f} s")


def _json_default(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if hasattr(x, "tolist"):
        return x.tolist()
    return str(x)


if __name__ == "__main__":
    main()
