"""DP-Sniper's own code beside ltheory's ``audit`` at equal budgets, on this machine.

DP-Sniper (Bichsel, Steffen, Bogunovic & Vechev, IEEE S&P 2021; github.com/eth-sri/dp-sniper,
MIT) runs in a subprocess of its own interpreter (``--dpsniper-python``, a venv holding torch
2.13.0 CPU, numpy, scipy, scikit-learn, mmh3 and tensorboard) with its checkout on
``PYTHONPATH`` (``--dpsniper-src``); the driver below only imports and calls DP-Sniper's public
classes and prints JSON.  No DP-Sniper code is in this repository.  Measured at commit
ee087b2584ca97d1064154db5dd2bda0bb5a8ceb (2021-08-27, its newest); with numpy 2.4, scipy 1.17,
scikit-learn 1.9, mmh3 5.3 and torch 2.13 it ran **unpatched** (no compatibility fix was needed
for the six mechanisms here).  Without that interpreter the DP-Sniper columns stay empty.

Setup (outside the repository)::

    # bring eth-sri/dp-sniper to /work/dpsniper_src (a clone of the repository)
    python -m venv /work/dpsniper_env
    /work/dpsniper_env/bin/pip install torch==2.13.0      # the CPU build on this machine's disk
    /work/dpsniper_env/bin/pip install numpy scipy scikit-learn mmh3 tensorboard
    python -m benchmarks.bench_dpsniper_side_by_side \\
        --dpsniper-python /work/dpsniper_env/bin/python --dpsniper-src /work/dpsniper_src

**DP-Sniper's side, favoured as in its paper.**

* *Pair*: the input pair DP-Sniper's own DD-Search chose in its published run (its artifact,
  ``eval_sp2021/reference-results/dd_search_reg_data.log``, copied in
  ``data/dpsniper_published.json``, logistic-regression row), handed to it for free: none of
  the budget goes to a pair search.  (DD-Search at equal budget would split it over 4 or 16
  candidate pairs, each trained and estimated, plus the final estimate.)
* *Classifier*: logistic regression, the configuration of its artifact
  (``dpsniper/experiments/exp_default.py``): ``LogisticRegressionFactory`` with
  ``SGDOptimizerFactory(learning_rate=0.3, momentum=0.3, step_size=500)``,
  ``regularization_weight=0.001``, ``epochs=10``, input normalisation (its default), the same
  ``in_dimensions`` and ``FlagsFeatureTransformer`` per mechanism; its attack selection
  (``DPSniper.best_attack``: threshold and tie-break so that P[M(a2) ∈ S] ≈ c, c = 0.01, its
  default) and its estimate (``DDWitness.compute_eps_using_estimator`` with
  ``EpsEstimator(PrEstimator(mechanism, n_final, config))``: the code path of
  ``compute_eps_high_precision`` without its process pool).
* *Budget*: R total mechanism samples, split as its defaults split the work on one pair
  (``DDConfig``: n_train = n = 10.7·10^6, n_final = 2·10^8): training 2·n_train (n_train per
  input), threshold selection n (on a2), final estimate 2·n_final (n_final per input); the
  search's n_check is not spent (no search).  Scaled to R: n_final = 2·10^8·R / 432.1·10^6,
  rounded down to a multiple of 1000 (its own rule), n_train = n = (R − 2·n_final) / 3.
  R = 2·10^6: n_train = n = 50,000, n_final = 925,000 (7.5 % training, 2.5 % threshold, 92.5 %
  estimate); R = 2·10^7: n_train = n = 495,333, n_final = 9,257,000.
  ``training_batch_size`` is scaled too (n_train / 107), so that training takes the same 107
  batches × 10 epochs = 1,070 SGD steps under the same learning-rate schedule as its default
  run (at its default batch of 10^5, R = 2·10^6 gives one batch, i.e. 10 SGD steps, and the
  logistic regression on Laplace came out with the wrong sign on one of three seeds tried).
* *Confidence*: DP-Sniper's ``confidence`` is the probability that its lower bound holds
  (it takes a one-sided Clopper–Pearson bound on each probability at (1 − confidence)/2, a union
  bound; default 0.9).  Set to 0.95, matching ltheory's α = 0.05.
* *Seeds*: ``np.random.seed(s)``, ``torch.manual_seed(s)``, and RAPPOR's instantaneous
  randomisation ``prng=np.random.default_rng(s)`` (its constructor argument; its default is
  unseeded).  Torch on one thread (``torch_initialize(torch_threads=1)``).

**DP-Sniper's own search at the budget** (a second DP-Sniper column; ``--no-search`` skips
it): ``DDSearch(mechanism, DPSniper(...), PatternGenerator(domain, componentwise), config).run()``
then ``witness.compute_eps_high_precision(mechanism, config)``, inside
``initialize_dpsniper(config, torch_threads=1)`` with ``n_processes=1`` (its process pool of one
worker; the worker's CPU time is in the subprocess's RUSAGE_CHILDREN, its start-up included).
Domains as in ``exp_default.py`` (4 candidate pairs with the swaps, 16 for the component-wise
rows ReportNoisyMax3 and SVT1).  Split: its defaults (per candidate pair 2·n_train + n +
2·n_check = 5 × 10.7·10^6, then 2·n_final = 4·10^8 on the best) scaled to R, n_check and n_final
rounded down to multiples of 1000, training batch n_train / 107 as above.  DP-Sniper's pool
worker reseeds numpy and torch from fresh entropy (``_init_worker_process``), so these cells
are not reproducible from the seed.  ltheory's like-for-like number is ``audit_search`` at the
same budget, quoted from the headline file.

**ltheory's side**: ``audit(m, d0, d1, claimed_epsilon=0.1, runs=R, seed=s, exact=False,
arithmetic="real", executor="serial")`` on the same pair (d0 = a1, d1 = a2), m from
``dpsniper_suite(0.1)``; ``executor="serial"`` keeps the work in this process, so
``time.process_time()`` is its whole CPU time (the report does not depend on the executor:
every chunk has its own seed, ``auditing/executors.py``).  For reference, the headline's
stored bounds for the same budget and seeds (``results/dpsniper_headline.json``: ``search`` =
``audit_search`` choosing its own pair inside R, ``handed`` = ``audit`` on that pair) are
quoted, not re-run.

**Same inputs in both codes.**  Before the bounds, each mechanism is sampled by both codes on
both inputs (``CHECK_N`` outputs each) and compared coordinate by coordinate (two-sample KS
p-value and the difference of means in standard errors); the row sum too.  The check fails the
run if the smallest KS p-value, times the number of tests, is below 10^-3.

**Timing.**  CPU seconds = user + sys: ``resource.getrusage(RUSAGE_CHILDREN)`` around the
DP-Sniper subprocess (one per cell, so it includes starting Python and importing torch; the
driver's own ``time.process_time()`` for the work alone is recorded as ``dpsniper_work_cpu``),
``time.process_time()`` around ltheory's ``audit``.  Wall seconds are recorded too.  Cells run
one at a time; the 2-core machine is shared with other jobs, so wall times are noisy.

Bounds: the tables clip a negative lower bound to 0 (a bound below 0 says nothing; DP-Sniper's
raw value is negative when the classifier points the wrong way); the JSON keeps the raw values.

    python -m benchmarks.bench_dpsniper_side_by_side [--dpsniper-python PY --dpsniper-src DIR]
        [--seeds 1 2 3] [--budgets 2e6 2e7] [--quick]

Writes ``results/dpsniper_side_by_side.json`` and ``.md`` (``--quick``: ``results/quick/``).
The committed files: seeds 1–3 at both budgets (~29 min here), then
``--seeds-at 2000000:4,5,6,7,8 20000000:4,5 --out /tmp/more`` (~27 min) and
``--merge results/dpsniper_side_by_side.json /tmp/more.json`` (the headline's seeds: 8 at
2·10^6, 5 at 2·10^7).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import ks_2samp

from ltheory.privacy.auditing.core import audit
from ltheory.privacy.mechanisms import dpsniper_suite

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
PUBLISHED = ROOT / "benchmarks" / "data" / "dpsniper_published.json"
HEADLINE = RESULTS / "dpsniper_headline.json"
EPS, ALPHA = 0.1, 0.05
CONFIDENCE = 1 - ALPHA
CHECK_N = 5000
#: DDConfig's defaults: per-input training samples, threshold samples, final samples per input
DEFAULT_N_TRAIN, DEFAULT_N, DEFAULT_N_FINAL, DEFAULT_BATCH = 10_700_000, 10_700_000, \
    200_000_000, 100_000
DEFAULT_BATCHES = math.ceil(DEFAULT_N_TRAIN / DEFAULT_BATCH)   # 107

#: name -> (DP-Sniper class, constructor kwargs, in_dimensions, FlagsFeatureTransformer values)
#: exactly as in its exp_default.py
DPSNIPER = {
    "Laplace": ("dpsniper.mechanisms.laplace.LaplaceMechanism", {}, 1, None),
    "NoisyHist1": ("dpsniper.mechanisms.noisy_hist.NoisyHist1", {}, 5, None),
    "ReportNoisyMax3": ("dpsniper.mechanisms.report_noisy_max.ReportNoisyMax3", {}, 1, None),
    "SVT1": ("dpsniper.mechanisms.sparse_vector_technique.SparseVectorTechnique1",
             {"c": 1, "t": 0.5}, 20, [-1]),
    "Rappor": ("dpsniper.mechanisms.rappor.Rappor", {}, 20, None),
    "LaplaceParallel": ("dpsniper.mechanisms.parallel.LaplaceParallel",
                        {"eps": 0.005, "n_parallel": 20}, 20, None),
}
#: DD-Search's input domain per row, as in exp_default.py: (dimensions, base type, range,
#: component-wise neighbourhood); PatternGenerator makes 2 pairs (4 with the swaps), 8 (16)
#: when component-wise
DOMAINS = {
    "Laplace": (1, "FLOAT", [-10, 10], False),
    "NoisyHist1": (5, "INT", [0, 10], False),
    "ReportNoisyMax3": (5, "FLOAT", [-10, 10], True),
    "SVT1": (10, "FLOAT", [-10, 10], True),
    "Rappor": (1, "INT", [-10, 10], False),
    "LaplaceParallel": (1, "FLOAT", [-10, 10], False),
}
MECHANISMS = tuple(DPSNIPER)

DRIVER = r'''
import importlib, json, sys, tempfile, time
import numpy as np
import torch
from dpsniper.attack.dpsniper import DPSniper
from dpsniper.classifiers.classifier_factory import LogisticRegressionFactory
from dpsniper.classifiers.feature_transformer import FlagsFeatureTransformer
from dpsniper.classifiers.torch_optimizer_factory import SGDOptimizerFactory
from dpsniper.probability.estimators import EpsEstimator, PrEstimator
from dpsniper.search.ddconfig import DDConfig
from dpsniper.search.ddwitness import DDWitness
from dpsniper.utils.paths import set_output_directory
from dpsniper.utils.torch import torch_initialize

spec = json.loads(sys.argv[1])
set_output_directory(tempfile.mkdtemp(prefix="dpsniper_"))
torch_initialize(torch_threads=1)
seed = spec["seed"]
np.random.seed(seed)
torch.manual_seed(seed)
mod, cls = spec["class"].rsplit(".", 1)
kwargs = dict(spec["kwargs"])
if cls == "Rappor":
    kwargs["prng"] = np.random.default_rng(seed)
mechanism = getattr(importlib.import_module(mod), cls)(**kwargs)
dtype = int if spec["int"] else float
a1, a2 = np.array(spec["a1"], dtype=dtype), np.array(spec["a2"], dtype=dtype)
if spec.get("sample"):
    for a, path in ((a1, spec["sample"][0]), (a2, spec["sample"][1])):
        np.save(path, np.asarray(mechanism.m(a, n_samples=spec["sample_n"]), dtype=float))
    print(json.dumps({"sampled": True}))
    sys.exit(0)
t0 = time.process_time()
config = DDConfig(n_train=spec["n_train"], n=spec["n"], n_check=spec.get("n_check", 0),
                  n_final=spec["n_final"],
                  training_batch_size=spec["batch"], n_processes=1,
                  confidence=spec["confidence"])
flags = spec["flags"]
factory = LogisticRegressionFactory(
    feature_transform=FlagsFeatureTransformer(flags) if flags else None,
    in_dimensions=spec["in_dimensions"],
    optimizer_factory=SGDOptimizerFactory(learning_rate=0.3, momentum=0.3, step_size=500),
    regularization_weight=0.001, epochs=10, label=cls)
if spec.get("search"):
    from dpsniper.input.input_domain import InputBaseType, InputDomain
    from dpsniper.input.pattern_generator import PatternGenerator
    from dpsniper.search.ddsearch import DDSearch
    from dpsniper.utils.initialization import initialize_dpsniper
    dims, base, rng, componentwise = spec["search"]
    generator = PatternGenerator(InputDomain(dims, InputBaseType[base], rng), componentwise)
    with initialize_dpsniper(config, out_dir=tempfile.mkdtemp(prefix="dpsniper_"),
                             torch_threads=1):
        witness = DDSearch(mechanism, DPSniper(mechanism, factory, config), generator,
                           config).run()
        witness.compute_eps_high_precision(mechanism, config)
    attack = witness.attack
else:
    attack = DPSniper(mechanism, factory, config).best_attack(a1, a2)
    witness = DDWitness(a1, a2, attack)
    witness.compute_eps_using_estimator(
        EpsEstimator(PrEstimator(mechanism, config.n_final, config)))
print(json.dumps({"eps": float(witness.eps), "lower_bound": float(witness.lower_bound),
                  "threshold": float(attack.thresh), "q": float(attack.q),
                  "a1": np.asarray(witness.a1, dtype=float).tolist(),
                  "a2": np.asarray(witness.a2, dtype=float).tolist(),
                  "work_cpu": time.process_time() - t0}))
'''


def published() -> dict[str, dict]:
    doc = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    return {m["mechanism"]: m for m in doc["mechanisms"]}


def parse_vector(text: str) -> tuple[list[float], bool]:
    """'[0 1 1 1 1]' / '[1.]' as printed by numpy -> (values, integer input?)."""
    parts = text.strip().strip("[]").split()
    return [float(p) for p in parts], not any("." in p for p in parts)


def split(runs: int) -> dict[str, int]:
    """DP-Sniper's default split of one pair's work, scaled to ``runs`` total samples."""
    per_pair = 2 * DEFAULT_N_TRAIN + DEFAULT_N + 2 * DEFAULT_N_FINAL
    n_final = int(DEFAULT_N_FINAL * runs / per_pair) // 1000 * 1000
    n_train = (runs - 2 * n_final) // 3
    return {"n_train": n_train, "n": n_train, "n_final": n_final,
            "batch": max(1, math.ceil(n_train / DEFAULT_BATCHES)),
            "total": 3 * n_train + 2 * n_final}


def search_split(runs: int, pairs: int) -> dict[str, int]:
    """DD-Search's default split (per pair: training 2·n_train, threshold n, check 2·n_check;
    then the final 2·n_final on the best pair), scaled to ``runs`` total samples."""
    total = pairs * (2 * DEFAULT_N_TRAIN + DEFAULT_N + 2 * DEFAULT_N_TRAIN) + 2 * DEFAULT_N_FINAL
    n_final = int(DEFAULT_N_FINAL * runs / total) // 1000 * 1000
    n_check = int(DEFAULT_N_TRAIN * runs / total) // 1000 * 1000
    n_train = (runs - 2 * n_final - 2 * pairs * n_check) // (3 * pairs)
    return {"n_train": n_train, "n": n_train, "n_check": n_check, "n_final": n_final,
            "batch": max(1, math.ceil(n_train / DEFAULT_BATCHES)), "pairs": pairs,
            "total": pairs * (3 * n_train + 2 * n_check) + 2 * n_final}


def search_spec_for(name: str, runs: int, seed: int, pub: dict) -> dict:
    dims, base, rng, componentwise = DOMAINS[name]
    spec = spec_for(name, runs, seed, pub)
    spec.update(search_split(runs, 16 if componentwise else 4))
    spec["search"] = [dims, base, rng, componentwise]
    return spec


def spec_for(name: str, runs: int, seed: int, pub: dict) -> dict:
    cls, kwargs, dims, flags = DPSNIPER[name]
    a1, int1 = parse_vector(pub[name]["logistic_regression"]["a1"])
    a2, int2 = parse_vector(pub[name]["logistic_regression"]["a2"])
    return {"class": cls, "kwargs": kwargs, "in_dimensions": dims, "flags": flags,
            "a1": a1, "a2": a2, "int": int1 and int2, "seed": seed,
            "confidence": CONFIDENCE, **split(runs)}


def run_driver(python: str, src: str, spec: dict) -> tuple[dict, float, float]:
    """Runs the driver; returns (its JSON, CPU seconds of the subprocess, wall seconds)."""
    env = {**os.environ, "PYTHONPATH": src, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    res = subprocess.run([python, "-W", "ignore", "-c", DRIVER, json.dumps(spec)],
                         capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise RuntimeError(f"DP-Sniper driver failed:\n{res.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(res.stdout.strip().splitlines()[-1]), cpu, wall


def _2d(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return x[:, None] if x.ndim == 1 else x


def same_inputs_check(name: str, python: str, src: str, pub: dict, n: int) -> dict:
    """Samples both codes' mechanism on both inputs; per-coordinate KS and mean comparisons."""
    spec = spec_for(name, 2 * 10**6, 12345, pub)
    m, _ = dpsniper_suite(EPS)[name]
    rng = np.random.default_rng(12345)
    out: dict = {"n": n, "inputs": []}
    with tempfile.TemporaryDirectory() as tmp:
        paths = [f"{tmp}/a1.npy", f"{tmp}/a2.npy"]
        run_driver(python, src, {**spec, "sample": paths, "sample_n": n})
        worst_p, worst_z, tests = 1.0, 0.0, 0
        for path, a in zip(paths, (spec["a1"], spec["a2"]), strict=True):
            theirs = _2d(np.load(path))
            ours = _2d(m.sample(tuple(a), n, rng))
            if theirs.shape != ours.shape:
                raise RuntimeError(f"{name}: output shapes differ, DP-Sniper {theirs.shape}, "
                                   f"ltheory {ours.shape}")
            cols = [theirs[:, j] for j in range(theirs.shape[1])] + [theirs.sum(axis=1)]
            ocols = [ours[:, j] for j in range(ours.shape[1])] + [ours.sum(axis=1)]
            ps, zs = [], []
            for t, o in zip(cols, ocols, strict=True):
                ps.append(float(ks_2samp(t, o, method="asymp").pvalue)
                          if np.ptp(np.r_[t, o]) > 0 else 1.0)
                se = math.sqrt((t.var(ddof=1) + o.var(ddof=1)) / n) or 1.0
                zs.append(float((t.mean() - o.mean()) / se))
            tests += len(ps)
            worst_p, worst_z = min(worst_p, min(ps)), max(worst_z, max(abs(z) for z in zs))
            out["inputs"].append({"input": a, "dpsniper_means": [float(c.mean()) for c in cols],
                                  "ltheory_means": [float(c.mean()) for c in ocols],
                                  "ks_p": ps, "mean_z": zs})
    out.update({"tests": tests, "min_ks_p": worst_p, "min_ks_p_bonferroni":
                min(1.0, worst_p * tests), "max_abs_mean_z": worst_z,
                "passed": worst_p * tests >= 1e-3})
    return out


def headline_reference(name: str, runs: int, seeds: list[int]) -> dict:
    if not HEADLINE.exists():
        return {}
    recs = json.loads(HEADLINE.read_text(encoding="utf-8"))
    ref: dict = {}
    for mode in ("search", "handed"):
        vals = {r["seed"]: r["bound"] for r in recs if r["mechanism"] == name
                and r["runs_budget"] == runs and r["mode"] == mode and r["seed"] in seeds}
        ref[mode] = [vals.get(s) for s in seeds]
    return ref


def run_ltheory(name: str, spec: dict, runs: int, seed: int) -> tuple[float, float, float]:
    m, _ = dpsniper_suite(EPS)[name]
    c0, w0 = time.process_time(), time.perf_counter()
    rep = audit(m, tuple(spec["a1"]), tuple(spec["a2"]), claimed_epsilon=EPS, runs=runs,
                seed=seed, exact=False, arithmetic="real", executor="serial")
    return float(rep.epsilon_lower_bound), time.process_time() - c0, time.perf_counter() - w0


def _stats(xs: list[float | None]) -> tuple[float | None, float | None]:
    v = [max(0.0, x) for x in xs if x is not None and math.isfinite(x)]
    if not v:
        return None, None
    mean = float(np.mean(v))
    return mean, (float(np.std(v, ddof=1) / math.sqrt(len(v))) if len(v) > 1 else 0.0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dpsniper-python", default="/work/dpsniper_env/bin/python")
    ap.add_argument("--dpsniper-src", default="/work/dpsniper_src")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--budgets", type=float, nargs="+", default=[2e6, 2e7])
    ap.add_argument("--mechanisms", nargs="+", default=list(MECHANISMS))
    ap.add_argument("--seeds-at", nargs="*", default=[],
                    help="BUDGET:SEED,SEED,... overrides the seeds of one budget")
    ap.add_argument("--no-search", action="store_true",
                    help="skip DP-Sniper's DD-Search at the budget (the handed pair only)")
    ap.add_argument("--quick", action="store_true", help="R = 2·10^5, one seed, 2000 samples "
                    "in the input check; writes to results/quick/")
    ap.add_argument("--out", default=str(RESULTS / "dpsniper_side_by_side"))
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="join the cells of these result files into --out (no runs)")
    ap.add_argument("--refresh-ltheory", nargs="*", metavar="MECHANISM", default=None,
                    help="rerun only ltheory's side of the stored cells of these rows (all "
                         "when none are named) with the current code, keeping DP-Sniper's "
                         "(after a change to the auditor); also refreshes the headline "
                         "reference columns")
    a = ap.parse_args()
    if a.merge:
        merge(a.merge, a.out)
        return
    if a.refresh_ltheory is not None:
        refresh_ltheory(a.out, a.refresh_ltheory)
        return
    check_n = CHECK_N
    if a.quick:
        a.seeds, a.budgets, check_n = [1], [2e5], 2000
        if a.out == ap.get_default("out"):     # never over the committed figures
            (RESULTS / "quick").mkdir(parents=True, exist_ok=True)
            a.out = str(RESULTS / "quick" / "dpsniper_side_by_side")
    seeds_at = {int(float(k)): [int(s) for s in v.split(",")]
                for k, v in (x.split(":") for x in a.seeds_at)}
    have = bool(a.dpsniper_python) and os.path.exists(a.dpsniper_python) and \
        os.path.isdir(os.path.join(a.dpsniper_src, "dpsniper"))
    commit = None
    if have:
        commit = subprocess.run(["git", "-C", a.dpsniper_src, "rev-parse", "HEAD"],
                                capture_output=True, text=True).stdout.strip() or None
    pub = published()
    checks = {}
    if have:
        for name in a.mechanisms:
            checks[name] = same_inputs_check(name, a.dpsniper_python, a.dpsniper_src, pub,
                                             check_n)
            print(json.dumps({"check": name, **{k: checks[name][k] for k in
                                                ("min_ks_p_bonferroni", "max_abs_mean_z",
                                                 "passed")}}), flush=True)
        bad = [n for n, c in checks.items() if not c["passed"]]
        if bad:
            raise SystemExit(f"the two codes' outputs differ on {bad}: not comparable")
    rows = []
    for budget in a.budgets:
        runs = int(budget)
        seeds = seeds_at.get(runs, a.seeds)
        for name in a.mechanisms:
            cells = []
            for seed in seeds:
                spec = spec_for(name, runs, seed, pub)
                cell: dict = {"seed": seed}
                if have:
                    out, cpu, wall = run_driver(a.dpsniper_python, a.dpsniper_src, spec)
                    cell.update({"dpsniper_bound": out["lower_bound"],
                                 "dpsniper_eps_estimate": out["eps"],
                                 "dpsniper_cpu": cpu, "dpsniper_work_cpu": out["work_cpu"],
                                 "dpsniper_wall": wall})
                    if not a.no_search:
                        sspec = search_spec_for(name, runs, seed, pub)
                        out, cpu, wall = run_driver(a.dpsniper_python, a.dpsniper_src, sspec)
                        cell.update({"ddsearch_bound": out["lower_bound"],
                                     "ddsearch_pair": [out["a1"], out["a2"]],
                                     "ddsearch_cpu": cpu, "ddsearch_work_cpu": out["work_cpu"],
                                     "ddsearch_wall": wall})
                bound, cpu, wall = run_ltheory(name, spec, runs, seed)
                cell.update({"ltheory_bound": bound, "ltheory_cpu": cpu, "ltheory_wall": wall})
                cells.append(cell)
                print(json.dumps({"mechanism": name, "runs": runs, **cell}), flush=True)
            rows.append(summarise(name, runs, cells, pub))
            doc = {"claimed_epsilon": EPS, "alpha": ALPHA, "dpsniper_confidence": CONFIDENCE,
                   "dpsniper_commit": commit, "dpsniper_ran": have, "same_inputs_check": checks,
                   "rows": rows}
            # written after every row, so that an interrupted run keeps what it measured
            Path(a.out + ".json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
            Path(a.out + ".md").write_text(markdown(doc), encoding="utf-8")


def summarise(name: str, runs: int, cells: list[dict], pub: dict) -> dict:
    """One row: the cells of its seeds and their means, standard errors and CPU means."""
    seeds = [c["seed"] for c in cells]
    spec = spec_for(name, runs, 0, pub)
    dm, dse = _stats([c.get("dpsniper_bound") for c in cells])
    lm, lse = _stats([c["ltheory_bound"] for c in cells])
    ddm, ddse = _stats([c.get("ddsearch_bound") for c in cells])
    ref = headline_reference(name, runs, seeds)
    sm, sse = _stats(ref.get("search", []))
    return {
        "mechanism": name, "runs": runs, "seeds": seeds,
        "a1": spec["a1"], "a2": spec["a2"],
        "dpsniper_split": {k: spec[k] for k in ("n_train", "n", "n_final", "batch")},
        "ddsearch_split": {k: v for k, v in search_spec_for(name, runs, 0, pub).items()
                           if k in ("n_train", "n", "n_check", "n_final", "batch", "pairs")},
        "cells": cells,
        "dpsniper_mean": dm, "dpsniper_se": dse, "ltheory_mean": lm, "ltheory_se": lse,
        "ratio": (lm / dm) if dm else None,
        "dpsniper_cpu_mean": _mean([c.get("dpsniper_cpu") for c in cells]),
        "dpsniper_work_cpu_mean": _mean([c.get("dpsniper_work_cpu") for c in cells]),
        "ltheory_cpu_mean": _mean([c["ltheory_cpu"] for c in cells]),
        "ddsearch_mean": ddm, "ddsearch_se": ddse,
        "ddsearch_cpu_mean": _mean([c.get("ddsearch_cpu") for c in cells]),
        "headline_search_bounds": ref.get("search"),
        "headline_handed_bounds": ref.get("handed"),
        "headline_search_mean": sm, "headline_search_se": sse,
        "published_lr": pub[name]["logistic_regression"]["eps_lcb"],
        "published_best": pub[name]["best"]}


def refresh_ltheory(out: str, names: list[str]) -> None:
    """Reruns ltheory's side of the stored cells of rows ``names`` (all when empty) with the
    current code, DP-Sniper's measurements kept; every row is summarised again (its headline
    reference columns read the current ``dpsniper_headline.json``)."""
    doc = json.loads(Path(out + ".json").read_text(encoding="utf-8"))
    pub = published()
    rows = []
    for r in doc["rows"]:
        cells = r["cells"]
        if not names or r["mechanism"] in names:
            spec = {"a1": r["a1"], "a2": r["a2"]}
            for c in cells:
                bound, cpu, wall = run_ltheory(r["mechanism"], spec, r["runs"], c["seed"])
                c.update({"ltheory_bound": bound, "ltheory_cpu": cpu, "ltheory_wall": wall})
                print(json.dumps({"mechanism": r["mechanism"], "runs": r["runs"], **c}),
                      flush=True)
        rows.append(summarise(r["mechanism"], r["runs"], cells, pub))
    doc["rows"] = rows
    Path(out + ".json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    Path(out + ".md").write_text(markdown(doc), encoding="utf-8")


def merge(paths: list[str], out: str) -> None:
    """Joins the cells of several runs (e.g. more seeds run later) row by row."""
    docs = [json.loads(Path(p).read_text(encoding="utf-8")) for p in paths]
    pub = published()
    cells: dict[tuple[str, int], dict[int, dict]] = {}
    for d in docs:
        for r in d["rows"]:
            for c in r["cells"]:
                cells.setdefault((r["mechanism"], r["runs"]), {})[c["seed"]] = c
    rows = [summarise(name, runs, [cs[k] for k in sorted(cs)], pub)
            for (name, runs), cs in sorted(cells.items(), key=lambda kv: (kv[0][1], MECHANISMS
                                                                           .index(kv[0][0])))]
    doc = {**docs[0], "rows": rows, "merged_from": [Path(p).name for p in paths]}
    Path(out + ".json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    Path(out + ".md").write_text(markdown(doc), encoding="utf-8")


def _mean(xs: list[float | None]) -> float | None:
    v = [x for x in xs if x is not None]
    return float(np.mean(v)) if v else None


def _f(x: float | None, d: int = 3) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{d}f}"


def _pm(m: float | None, se: float | None) -> str:
    return "–" if m is None else f"{m:.4f} ± {se:.4f}"


def _vec(v: list[float]) -> str:
    return "[" + " ".join(f"{x:g}" for x in v) + "]"


def _pair(p: list | None) -> str:
    return "–" if not p else f"{_vec(p[0])}, {_vec(p[1])}"


def ahead(doc: dict) -> list[str]:
    """Every place where DP-Sniper is ahead: per seed (bound above ltheory's on the same pair;
    DD-Search above ltheory's audit_search of the headline, same seed) and per row (mean above,
    mean CPU below)."""
    out = ["", "## Where DP-Sniper is ahead", ""]
    for r in doc["rows"]:
        tag = f"{r['mechanism']} at {r['runs']:.0e}"
        if r["dpsniper_mean"] is not None and r["dpsniper_mean"] > r["ltheory_mean"]:
            out.append(f"* {tag}: mean bound on the pair, DP-Sniper {r['dpsniper_mean']:.4f} > "
                       f"ltheory {r['ltheory_mean']:.4f}")
        if r["dpsniper_cpu_mean"] is not None and r["dpsniper_cpu_mean"] < r["ltheory_cpu_mean"]:
            out.append(f"* {tag}: CPU on the pair, DP-Sniper {r['dpsniper_cpu_mean']:.1f} s "
                       f"(work {r['dpsniper_work_cpu_mean']:.1f} s) < ltheory "
                       f"{r['ltheory_cpu_mean']:.1f} s")
        elif r["dpsniper_work_cpu_mean"] is not None and \
                r["dpsniper_work_cpu_mean"] < r["ltheory_cpu_mean"]:
            out.append(f"* {tag}: CPU on the pair, DP-Sniper's work alone "
                       f"{r['dpsniper_work_cpu_mean']:.1f} s < ltheory "
                       f"{r['ltheory_cpu_mean']:.1f} s (whole subprocess "
                       f"{r['dpsniper_cpu_mean']:.1f} s)")
        hs = r.get("headline_search_mean")
        if r.get("ddsearch_mean") is not None and hs is not None and r["ddsearch_mean"] > hs:
            out.append(f"* {tag}: mean bound with each tool's own search, DD-Search "
                       f"{r['ddsearch_mean']:.4f} > ltheory audit_search {hs:.4f}")
        for c in r["cells"]:
            d = c.get("dpsniper_bound")
            if d is not None and d > c["ltheory_bound"]:
                out.append(f"* {tag}, seed {c['seed']}: on the pair, DP-Sniper {d:.4f} > "
                           f"ltheory {c['ltheory_bound']:.4f}")
        for c, h in zip(r["cells"], r.get("headline_search_bounds") or [], strict=False):
            d = c.get("ddsearch_bound")
            if d is not None and h is not None and d > h:
                out.append(f"* {tag}, seed {c['seed']}: own search, DD-Search {d:.4f} > "
                           f"ltheory audit_search {h:.4f}")
    if len(out) == 3:
        out.append("* nowhere")
    return out


def markdown(doc: dict) -> str:
    lines = ["# DP-Sniper's own code beside ltheory, equal budgets", "",
             f"DP-Sniper commit `{doc['dpsniper_commit'] or '(not run)'}`, logistic regression, "
             "on the pair its own published DD-Search chose (handed to it, no budget spent on a "
             "search), its default split of samples scaled to the budget, confidence "
             f"{doc['dpsniper_confidence']:g}; ltheory `audit(..., exact=False, "
             f"arithmetic=\"real\")` on the same pair, α = {doc['alpha']:g}.  Mean ± standard "
             "error over the seeds (negative bounds counted as 0); CPU = user + sys seconds per "
             "run (DP-Sniper: the whole subprocess, Python and torch start-up included; its "
             "work alone in brackets).  `benchmarks/bench_dpsniper_side_by_side.py`; "
             "definitions in its docstring.", "",
             "Left: both on DP-Sniper's published pair (DP-Sniper given the pair, all its "
             "samples on it). Right: both searching their own pair inside the budget "
             "(DP-Sniper's DD-Search over its StatDP patterns, run here; ltheory's "
             "`audit_search`, quoted from `dpsniper_headline.json`, same seeds).", "",
             "| mechanism | runs | seeds | DP-Sniper bound | ltheory bound | ltheory / DP-Sniper "
             "| DP-Sniper CPU s | ltheory CPU s | DP-Sniper DD-Search bound | DD-Search CPU s "
             "| ltheory audit_search (headline) | DP-Sniper published (LR, ≥ 2.3·10^8 samples) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        dcpu = "–" if r["dpsniper_cpu_mean"] is None else \
            f"{r['dpsniper_cpu_mean']:.1f} ({r['dpsniper_work_cpu_mean']:.1f})"
        lines.append(
            f"| {r['mechanism']} | {r['runs']:.0e} | {len(r['seeds'])} | "
            f"{_pm(r['dpsniper_mean'], r['dpsniper_se'])} | "
            f"{_pm(r['ltheory_mean'], r['ltheory_se'])} | {_f(r['ratio'], 2)} | {dcpu} | "
            f"{_f(r['ltheory_cpu_mean'], 1)} | {_pm(r.get('ddsearch_mean'), r.get('ddsearch_se'))} "
            f"| {_f(r.get('ddsearch_cpu_mean'), 1)} | "
            f"{_pm(r['headline_search_mean'], r['headline_search_se'])} | "
            f"{_f(r['published_lr'], 4)} |")
    lines += ["", "## Per seed", "",
              "| mechanism | runs | seed | DP-Sniper bound (raw) | ltheory bound | DP-Sniper CPU s "
              "| ltheory CPU s | DP-Sniper wall s | ltheory wall s | DD-Search bound (raw) "
              "| DD-Search pair | DD-Search CPU s |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        for c in r["cells"]:
            lines.append(f"| {r['mechanism']} | {r['runs']:.0e} | {c['seed']} | "
                         f"{_f(c.get('dpsniper_bound'), 4)} | {_f(c['ltheory_bound'], 4)} | "
                         f"{_f(c.get('dpsniper_cpu'), 1)} | {_f(c['ltheory_cpu'], 1)} | "
                         f"{_f(c.get('dpsniper_wall'), 1)} | {_f(c['ltheory_wall'], 1)} | "
                         f"{_f(c.get('ddsearch_bound'), 4)} | {_pair(c.get('ddsearch_pair'))} | "
                         f"{_f(c.get('ddsearch_cpu'), 1)} |")
    lines += ahead(doc)
    lines += ["", "## Notes", "",
              "* DP-Sniper's published bounds (last column) used ≥ 2.3·10^8 samples per "
              "mechanism at confidence 0.9; the cells here use 2·10^6 and 2·10^7 at 0.95.",
              "* DP-Sniper's attack probability c = 0.01 (its default, kept) fixes its event at "
              "P[M(a2) ∈ S] ≈ 1 % whatever the budget: at 2·10^6 its final estimate sees about "
              "9,250 of a2's 925,000 outputs in S.",
              "* A negative DP-Sniper bound (per-seed table) is its raw output: its estimate "
              "p1 < p2 or an interval reaching below; the means count it as 0.",
              "* DD-Search cells are not reproducible from the seed (DP-Sniper's pool worker "
              "reseeds from fresh entropy); ltheory's audit_search figures are the headline's "
              "stored ones for the same seeds, not re-run here."]
    if doc["rows"]:
        lines += ["", "## DP-Sniper's split of the budget", "",
                  "| runs | n_train (per input) | n (threshold, on a2) | n_final (per input) "
                  "| training batch |", "|---|---|---|---|---|"]
        seen = set()
        for r in doc["rows"]:
            if r["runs"] in seen:
                continue
            seen.add(r["runs"])
            s = r["dpsniper_split"]
            lines.append(f"| {r['runs']:.0e} | {s['n_train']:,} | {s['n']:,} | "
                         f"{s['n_final']:,} | {s['batch']:,} |")
        lines += ["", "DD-Search at the budget (per candidate pair: n_train per input, n, "
                  "n_check per input; then n_final per input on the best):", "",
                  "| runs | pairs | n_train | n | n_check | n_final | training batch |",
                  "|---|---|---|---|---|---|---|"]
        seen2 = set()
        for r in doc["rows"]:
            s = r["ddsearch_split"]
            if (r["runs"], s["pairs"]) in seen2:
                continue
            seen2.add((r["runs"], s["pairs"]))
            lines.append(f"| {r['runs']:.0e} | {s['pairs']} | {s['n_train']:,} | {s['n']:,} | "
                         f"{s['n_check']:,} | {s['n_final']:,} | {s['batch']:,} |")
    if doc["same_inputs_check"]:
        lines += ["", "## Same inputs in both codes", "",
                  "Both codes' mechanisms sampled on both inputs; per output coordinate and the "
                  "row sum: two-sample KS test and difference of means.", "",
                  "| mechanism | inputs (a1; a2) | tests | min KS p × tests | max abs(mean "
                  "difference) / se | passed |", "|---|---|---|---|---|---|"]
        for name, c in doc["same_inputs_check"].items():
            ins = "; ".join(str([int(v) if float(v).is_integer() else v for v in i["input"]])
                            for i in c["inputs"])
            lines.append(f"| {name} | {ins} | {c['tests']} | {c['min_ks_p_bonferroni']:.3g} | "
                         f"{c['max_abs_mean_z']:.2f} | {c['passed']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
