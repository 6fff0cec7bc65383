"""Score audits side by side: ltheory's ``audit_scores`` against jax-privacy's
``CanaryScoreAuditor`` on the *same* Gaussian canary scores (issue 39, part 1).

Scores of a μ-GDP mechanism: m = 2n canaries, each included independently with probability
1/2 (``inclusion_mask(2n, seed)``); an included canary scores N(μ, 1), an excluded one
N(0, 1).  The many-run audits read them as n_in in-runs and n_out out-runs (≈ n per side),
the one-run audits as one run with its inclusion mask.  δ = 10^-5, α = 0.05.

ltheory runs in this interpreter; jax-privacy (2.0.0, installed in its own venv:
``python -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax-privacy==2.0.0``) runs in a
subprocess of ``--jax-python`` on the scores saved as .npy files (the driver below only calls
jax-privacy's public API).  Without that interpreter the jax columns are left empty.

Columns per cell (means over the seeds): exact ε (GDP, Dong, Roth & Su 2022, Cor. 2.13);
ltheory many-run; jax CP-Bonferroni and CP-split (``epsilon_clopper_pearson``, its defaults:
one-sided, split fraction 1/2); ltheory one-run (``analysis="fdp"``: Mahloujifar et al.'s
recursion with the (ε, δ) curve; ``"steinke"``); jax one-run (``epsilon_one_run``) and f-DP
one-run (``epsilon_one_run_fdp``: the recursion with the *Gaussian* curve of the σ that gives
(ε, δ), i.e. a refutation of a GDP claim); ltheory's GDP-family reading of its own guesses
(``analyses["gdp_epsilon"]``, the like-for-like number to jax's f-DP one run).

Ceilings (the best any event could certify at that sample size, true distributions known):
* many-run: ``max_t`` of the Clopper–Pearson bound ``ln((p_lower − δ)/p_upper)`` (two
  one-sided bounds, at α/2 each or at the other splits of α that ``audit_scores`` may choose,
  ``scores.LOWER_SHARES``) at the expected counts ``n·P_in(X ≥ t)``, ``n·P_out(X ≥ t)``
  of the threshold event ``{X ≥ t}`` with all n scores per side certifying and no selection
  cost (threshold events are the Neyman–Pearson events of a Gaussian location pair, so no
  event does better); t on a grid of 20,001 points over [−3, μ + 8];
* one-run: for each analysis, ``max_k`` of its bound at level α (no grid correction) at the
  expected number of correct guesses when guessing "in" on the k highest and "out" on the k
  lowest of the 2n scores (k on a grid of 60 thresholds t: k = 2n·(Q(t − μ) + Q(t))/2,
  correct = 2n·Q(t − μ)/2 per side, rounded).

    python -m benchmarks.bench_score_audits [--seeds 5] [--quick]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm

from ltheory.privacy import audit_scores, inclusion_mask
from ltheory.privacy.auditing import one_run
from ltheory.privacy.auditing.scores import LOWER_SHARES
from ltheory.privacy.stats import clopper_pearson_lower, clopper_pearson_upper

ROOT = Path(__file__).resolve().parent.parent
ALPHA, DELTA = 0.05, 1e-5
MUS = (1.0, 2.0, 4.0)
NS = (10**3, 10**4, 10**5)
RESULTS = ROOT / "benchmarks" / "results"

DRIVER = r'''
import json, sys
import numpy as np
from jax_privacy.auditing import Bonferroni, CanaryScoreAuditor, Split
alpha, delta = float(sys.argv[1]), float(sys.argv[2])
out = []
for pair in sys.argv[3:]:
    fin, fout, seed = pair.split(",")
    a = CanaryScoreAuditor(np.load(fin), np.load(fout))
    out.append({
        "cp_bonferroni": float(a.epsilon_clopper_pearson(alpha, delta,
                                                          threshold_strategy=Bonferroni())),
        "cp_split": float(a.epsilon_clopper_pearson(
            alpha, delta, threshold_strategy=Split(seed=int(seed)))),
        "one_run": float(a.epsilon_one_run(alpha, delta)),
        "fdp_one_run": float(a.epsilon_one_run_fdp(alpha, delta)),
    })
print(json.dumps(out))
'''


def many_run_ceiling(mu: float, n: int) -> float:
    t = np.linspace(-3.0, mu + 8.0, 20001)
    ka, kb = n * norm.sf(t - mu), n * norm.sf(t)
    best = -math.inf
    for w in (0.5, *LOWER_SHARES):
        lo = clopper_pearson_lower(ka, n, w * ALPHA) - DELTA
        up = clopper_pearson_upper(kb, n, (1 - w) * ALPHA)
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.where(lo > 0, np.log(np.maximum(lo, 1e-300) / up), -np.inf)
        best = max(best, float(np.nanmax(v)))
    return best


def one_run_ceiling(mu: float, n: int, analysis: str) -> float:
    m = 2 * n
    counts = []
    for t in np.linspace(0.0, mu + 5.0, 60):
        k = int(round(m * 0.5 * (norm.sf(t - mu) + norm.sf(t))))
        v_side = m * 0.5 * norm.sf(t - mu)
        if 1 <= k <= n:
            counts.append((k, 2 * k, min(2 * k, int(round(2 * v_side)))))
    best, _ = one_run.best_over_grid(analysis, m, counts, ALPHA, DELTA)
    return one_run.gdp_epsilon(best, DELTA) if analysis == "gdp" else best


def scores(mu: float, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    mask = inclusion_mask(2 * n, seed)
    rng = np.random.default_rng([seed, 1])
    return rng.normal(0.0, 1.0, 2 * n) + mu * mask, mask


def run_jax(python: str, files: list[tuple[str, str, int]]) -> list[dict] | None:
    if not python or not os.path.exists(python):
        return None
    args = [python, "-c", DRIVER, str(ALPHA), str(DELTA)] + [f"{a},{b},{s}" for a, b, s in files]
    res = subprocess.run(args, capture_output=True, text=True, check=True,
                         env={**os.environ, "JAX_PLATFORMS": "cpu"})
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="n = 10^3, 10^4 only")
    ap.add_argument("--jax-python", default="/tmp/jaxenv/bin/python")
    ap.add_argument("--out", default=str(RESULTS / "score_audits"))
    a = ap.parse_args()
    if a.quick and a.out == ap.get_default("out"):   # never over the committed figures
        (RESULTS / "quick").mkdir(parents=True, exist_ok=True)
        a.out = str(RESULTS / "quick" / "score_audits")
    ns = NS[:2] if a.quick else NS
    rows = []
    jax_version = None
    if os.path.exists(a.jax_python):
        jax_version = subprocess.run(
            [a.jax_python, "-c", "import importlib.metadata as m; print(m.version('jax-privacy'))"],
            capture_output=True, text=True).stdout.strip()
    for mu in MUS:
        for n in ns:
            t0 = time.time()
            per: dict[str, list[float]] = {}
            files = []
            with tempfile.TemporaryDirectory() as tmp:
                for seed in range(a.seeds):
                    x, mask = scores(mu, n, seed)
                    fin, fout = f"{tmp}/in{seed}.npy", f"{tmp}/out{seed}.npy"
                    np.save(fin, x[mask])
                    np.save(fout, x[~mask])
                    files.append((fin, fout, seed))
                    many = audit_scores(x[mask], x[~mask], delta=DELTA, alpha=ALPHA, seed=seed)
                    one = audit_scores(x, mask=mask, setting="one-run", delta=DELTA,
                                       alpha=ALPHA, seed=seed)
                    vals = {"ltheory_many_run": many.epsilon_lower_bound,
                            "ltheory_one_run_fdp": one.analyses["fdp"],
                            "ltheory_one_run_steinke": one.analyses["steinke"],
                            "ltheory_one_run_gdp_family": one.analyses["gdp_epsilon"]}
                    for k, v in vals.items():
                        per.setdefault(k, []).append(v)
                jax = run_jax(a.jax_python, files)
            if jax is not None:
                for r in jax:
                    for k, v in r.items():
                        per.setdefault("jax_" + k, []).append(v)
            row = {"mu": mu, "n_per_side": n, "seeds": a.seeds,
                   "exact_epsilon": one_run.gdp_epsilon(mu, DELTA),
                   "ceiling_many_run": many_run_ceiling(mu, n),
                   "ceiling_one_run_fdp": one_run_ceiling(mu, n, "fdp"),
                   "ceiling_one_run_steinke": one_run_ceiling(mu, n, "steinke"),
                   "ceiling_one_run_gdp_family": one_run_ceiling(mu, n, "gdp"),
                   "mean": {k: float(np.mean(v)) for k, v in per.items()},
                   "sd": {k: float(np.std(v, ddof=1)) if len(v) > 1 else 0.0
                          for k, v in per.items()},
                   "values": per, "seconds": time.time() - t0}
            rows.append(row)
            print(json.dumps({k: row[k] for k in ("mu", "n_per_side", "exact_epsilon",
                                                  "ceiling_many_run", "mean", "seconds")}),
                  flush=True)
    doc = {"alpha": ALPHA, "delta": DELTA, "jax_privacy": jax_version, "rows": rows}
    Path(a.out + ".json").write_text(json.dumps(doc, indent=1))
    Path(a.out + ".md").write_text(markdown(doc))


def _f(x: float | None, d: int = 2) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{d}f}"


def markdown(doc: dict) -> str:
    lines = [f"# Score audits: ltheory vs jax-privacy {doc['jax_privacy'] or '(not run)'}", "",
             f"Gaussian canary scores of a μ-GDP mechanism, δ = {doc['delta']:g}, "
             f"α = {doc['alpha']:g}, mean of {doc['rows'][0]['seeds']} seeds "
             "(`benchmarks/bench_score_audits.py`; definitions in its docstring).", "",
             "## Many runs", "",
             "| μ | n per side | exact ε | ceiling | ltheory | jax CP-Bonf. | jax CP-split "
             "| ltheory − best jax | ltheory / exact | ltheory / ceiling | best jax / ceiling |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        m = r["mean"]
        lt = m["ltheory_many_run"]
        jb = max(m.get("jax_cp_bonferroni", -math.inf), m.get("jax_cp_split", -math.inf))
        c = r["ceiling_many_run"]
        lines.append(f"| {r['mu']:g} | {r['n_per_side']:,} | {_f(r['exact_epsilon'])} | "
                     f"{_f(c)} | **{_f(lt)}** | {_f(m.get('jax_cp_bonferroni'))} | "
                     f"{_f(m.get('jax_cp_split'))} | {_f(lt - jb, 3)} | "
                     f"{_f(lt / r['exact_epsilon'], 3)} | {_f(lt / c, 3)} | {_f(jb / c, 3)} |")
    lines += ["", "## One run (2n canaries, randomised inclusion)", "",
              "(ε, δ) lower bounds: ltheory f-DP (Mahloujifar et al.'s recursion with the "
              "(ε, δ) curve), ltheory Steinke, jax one-run (Steinke). GDP-family numbers "
              "(refute a μ-GDP claim; the ε of the refuted Gaussian is an (ε, δ) bound only if "
              "the trade-off curve is Gaussian): ltheory GDP-family, jax f-DP one-run.", "",
              "| μ | n per side | exact ε | ltheory f-DP | ltheory Steinke | jax one-run "
              "| ltheory GDP-family | jax f-DP one-run | ceiling f-DP / Steinke / GDP "
              "| f-DP / exact | f-DP / ceiling | GDP-family / ceiling |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        m = r["mean"]
        fd, st, gd = (m["ltheory_one_run_fdp"], m["ltheory_one_run_steinke"],
                      m["ltheory_one_run_gdp_family"])
        cf, cs, cg = (r["ceiling_one_run_fdp"], r["ceiling_one_run_steinke"],
                      r["ceiling_one_run_gdp_family"])
        lines.append(f"| {r['mu']:g} | {r['n_per_side']:,} | {_f(r['exact_epsilon'])} | "
                     f"**{_f(fd)}** | {_f(st)} | {_f(m.get('jax_one_run'))} | {_f(gd)} | "
                     f"{_f(m.get('jax_fdp_one_run'))} | {_f(cf)} / {_f(cs)} / {_f(cg)} | "
                     f"{_f(fd / r['exact_epsilon'], 3)} | {_f(fd / cf, 3)} | "
                     f"{_f(gd / cg, 3)} |")
    lines += ["", "## Notes", "",
              "* Ratios to the ceiling can exceed 1: the ceiling is the bound at the *expected* "
              "counts, and where the best event holds a few runs of the rarer side the bound is "
              "convex in that count, so its mean over seeds is above its value at the mean "
              "(ltheory's many-run selection ranks cuts by this expected bound).",
              "* jax-privacy's 'Bonferroni' divides α by the number of thresholds on the Pareto "
              "frontier of the observed scores (16–55 here), a data-dependent count; ltheory's "
              "corrections are fixed before the data (a selection split; a guess-count grid "
              "fixed by m).",
              "* jax-privacy's f-DP one-run number uses the Gaussian trade-off curve of the σ "
              "that gives (ε, δ): it refutes a GDP claim and equals an (ε, δ) bound only for "
              "mechanisms with a Gaussian curve. The like-for-like number is ltheory's "
              "GDP-family column (`audit_scores(..., analysis=\"gdp\")`); ltheory's sound "
              "(ε, δ) one-run bound (f-DP column) is below jax-privacy's GDP-family number on "
              "6 of 9 cells and above it on 3.",
              "* The one-run (ε, δ) bound can exceed the many-run ceiling at the same total "
              "number of scores (μ = 1 and 2 at 10^3): the one-run analyses test the precision "
              "of the guesses (in effect a test conditional on the number of guesses), where "
              "the many-run certification bounds two tail probabilities separately.",
              ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
