"""One real DP-SGD training run audited in one run (issue 39, part 3):
``ltheory.privacy.adapters.audit_digits_training`` — an MLP (64 → 64 → 10) on scikit-learn's
digits trained with jax-privacy's DP-SGD (Poisson sampling, ``clipped_grad``, Gaussian noise),
1,000 input-space canaries (black box: the final model's logit margin) and m gradient-space
Dirac canaries (white box: every iterate) in the same run, each included with probability 1/2.

Rows: (q, σ, T) = (0.1, 1.5, 500) (accountant ε = 8.37 at δ = 1e-5) and (0.1, 1.0, 500)
(ε = 16.6), m ∈ {1000, 4000} gradient canaries, seeds 0..S−1 (default 5).  Columns (means over
the seeds, min–max in brackets): the accountant's ε; the reported bound (the larger kind, each
at α/2 = 0.025, f-DP one-run analysis); the input canaries' and the gradient canaries' bounds;
what the gradient canaries' raw increments certify (no centring on the digits' share); the
limits — the same audit of the exact law of a Dirac canary with no other data (``ideal``) and
with every guess correct (``perfect``: no one-run audit with m canaries certifies more);
the model's test accuracy; the training seconds (one run, compilation included) and the audit
seconds.

Run:  python -m benchmarks.bench_training_one_run [--seeds S] [--quick]
Writes benchmarks/results/training_one_run.{json,md} (``--quick``: prints only).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from ltheory.privacy.adapters import audit_digits_training
from ltheory.privacy.adapters.jax_privacy_dpsgd import jax_privacy_version

OUT = Path(__file__).resolve().parent / "results"
ROWS = [dict(q=0.1, sigma=1.5, steps=500, gradient_canaries=1000),
        dict(q=0.1, sigma=1.5, steps=500, gradient_canaries=4000),
        dict(q=0.1, sigma=1.0, steps=500, gradient_canaries=1000),
        dict(q=0.1, sigma=1.0, steps=500, gradient_canaries=4000)]
QUICK = [dict(q=0.1, sigma=1.5, steps=50, gradient_canaries=300, input_canaries=300)]


def run_row(row: dict, seeds: int) -> dict:
    reps = []
    for s in range(seeds):
        r = audit_digits_training(**{"input_canaries": 1000, **row}, seed=s)
        reps.append({"bound": r.epsilon_lower_bound, "accountant": r.accountant_epsilon,
                     "input": r.audits["input"]["epsilon_lower_bound"],
                     "gradient": r.audits["gradient"]["epsilon_lower_bound"],
                     **r.limits, "accuracy": r.test_accuracy,
                     "train_s": r.seconds["training"], "audit_s": r.seconds["audit"]})
        print(f"  seed {s}: bound {r.epsilon_lower_bound:.3f} of {r.accountant_epsilon:.3f}; "
              f"ideal {r.limits['gradient_ideal']:.3f}, perfect "
              f"{r.limits['gradient_perfect_guesses']:.3f}; acc {r.test_accuracy:.3f}; "
              f"{r.seconds['training']:.1f} s", flush=True)
    keys = reps[0].keys()
    return {"row": row, "seeds": seeds, "runs": reps,
            "mean": {k: float(np.mean([x[k] for x in reps])) for k in keys},
            "min": {k: float(np.min([x[k] for x in reps])) for k in keys},
            "max": {k: float(np.max([x[k] for x in reps])) for k in keys}}


def table(results: list[dict]) -> str:
    def cell(r: dict, k: str, digits: int = 2) -> str:
        return (f"{r['mean'][k]:.{digits}f} [{r['min'][k]:.{digits}f}–"
                f"{r['max'][k]:.{digits}f}]")

    head = ("| (q, σ, T), m gradient canaries | accountant ε | bound (of accountant) | input "
            "(black box) | gradient, centred | gradient, raw | ideal Dirac canary | perfect "
            "guesses | test accuracy | training s | audit s |\n|" + "---|" * 11)
    lines = [head]
    for r in results:
        w = r["row"]
        lines.append(
            f"| ({w['q']:g}, {w['sigma']:g}, {w['steps']}), {w['gradient_canaries']} "
            f"| {r['mean']['accountant']:.2f} | {cell(r, 'bound')} "
            f"({r['mean']['bound'] / r['mean']['accountant']:.2f}) | {cell(r, 'input')} "
            f"| {cell(r, 'gradient')} | {cell(r, 'gradient_uncentred')} "
            f"| {cell(r, 'gradient_ideal')} | {r['mean']['gradient_perfect_guesses']:.2f} "
            f"| {r['mean']['accuracy']:.3f} | {r['mean']['train_s']:.1f} "
            f"| {r['mean']['audit_s']:.1f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one small row, 2 seeds (~20 s)")
    args = ap.parse_args()
    rows, seeds = (QUICK, 2) if args.quick else (ROWS, args.seeds)
    t0 = time.perf_counter()
    results = []
    for row in rows:
        print(row, flush=True)
        results.append(run_row(row, seeds))
    total = time.perf_counter() - t0
    md = ["# One real DP-SGD training run, audited in one run", "",
          f"`benchmarks/bench_training_one_run.py`; jax-privacy {jax_privacy_version()}, "
          f"{platform.machine()}, {seeds} seeds per row, {total:.0f} s in all. δ = 1e-5, "
          "α = 0.05 (α/2 per kind), f-DP one-run analysis; "
          f"{rows[0].get('input_canaries', 1000)} input canaries per run.", "",
          table(results), "",
          "*ideal*: the same audit on scores drawn from the exact law of a Dirac canary's "
          "statistic with no other data (same q, σ, T, mask); *perfect guesses*: the bound "
          "with every guess correct, the most a one-run audit with m canaries certifies. "
          "Neither is a sound bound; *gradient, raw* is sound at α/2 on its own, not together "
          "with the reported bound."]
    if not args.quick:
        OUT.mkdir(exist_ok=True)
        (OUT / "training_one_run.json").write_text(json.dumps(
            {"results": results, "seconds": total}, indent=1))
        (OUT / "training_one_run.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
