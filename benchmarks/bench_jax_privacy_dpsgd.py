"""jax-privacy's DP-SGD pipeline audited as a third-party library (issue 39, part 2):
``audit_curve`` on :class:`~ltheory.privacy.adapters.JaxPrivacyDPSGD` against the profile of
jax-privacy's own accountant (``jax_privacy.accounting``, PLD).

Rows (all iterates observed; the output is the log-likelihood ratio of the iterates):

* headline — Poisson sampling, Gaussian noise, (q, σ, T) = (1, 1, 1) and (0.01, 1, 100);
* the other strategies — fixed batches (replace-one, B = 1 of n = 4, σ = 2, T = 4),
  balls-in-bins (one epoch of K = 4 batches, σ = 1) and banded matrix-factorisation noise with
  cyclic Poisson sampling (q = 0.5, σ = 1, T = 8, 2 bands, cycle 2).

For each: the sampling speed (runs/s of ``sample`` on both datasets, one warm chunk each, after
compilation), the run budget (stated per row), the certified ε_lb at δ = 1e-5 / 1e-3, the
accountant's ε (``compute_epsilon`` at δ = 1e-5; its profile at 1e-3), their ratio, and — where
the exact pair is known (Poisson, K = 1, Gaussian: the law of ``DPSGDCanary``) — the
*certification ceiling*: the best ε_lb one Neyman–Pearson threshold event of the exact pair can
certify at its expected counts with the same number of certification runs and level α/(2k)
(``bench_dpsgd_audit.ceiling``), and the runs at which that ceiling reaches 0.85 of the
accountant's ε.  A row whose certified ε exceeds the accountant's at some δ would be a finding.

Part ``--part float``: ``audit`` with its defaults (``arithmetic="float"``: floating-point leaks
looked for, the pipeline computes in float32) at the accountant's (ε, 1e-5), 10^6 runs per row,
and a hand-made witness of the leak at (1, 1, 1) (``float_witness``).

Run:  nice -n 10 python -m benchmarks.bench_jax_privacy_dpsgd [--quick]
      [--only I ...] [--part curve|float]     (rows run are merged into the existing results)
      --part exact: recompute the exact-pair columns (exact ε, ceiling) of the stored rows.
Writes benchmarks/results/jax_privacy_dpsgd.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_dpsgd_audit import ceiling, runs_for_ceiling, threshold_events
from ltheory.privacy import audit, audit_curve
from ltheory.privacy.adapters.jax_privacy_dpsgd import (
    JaxPrivacyDPSGD,
    jax_privacy_version,
)
from ltheory.privacy.auditing.core import split_runs
from ltheory.privacy.mechanisms import DPSGDCanary

HERE = Path(__file__).resolve().parent
OUT = HERE / "results"
DELTAS = (1e-5, 1e-3)
TARGET = 0.85

ROWS = [
    ("poisson (1, 1, 1)", dict(q=1.0, sigma=1.0, steps=1), 10**8),
    ("poisson (0.01, 1, 100)", dict(q=0.01, sigma=1.0, steps=100), 8 * 10**7),
    ("fixed B=1 of n=4, sigma=2, T=4",
     dict(batch_selection="fixed", sigma=2.0, steps=4, batch_size=1, dataset_size=4), 4 * 10**6),
    ("balls-in-bins K=4, sigma=1, T=4",
     dict(batch_selection="balls_in_bins", sigma=1.0, steps=4, cycle_length=4), 10**7),
    ("banded MF, 2 bands, cyclic Poisson q=0.5, sigma=1, T=8",
     dict(q=0.5, sigma=1.0, steps=8, noise="matrix_factorization", bands=2), 10**7),
    # the (0.01, 1, 100) row at twice the budget: its ceiling is 0.87 of the accountant's ε at
    # 8·10^7 runs and 0.90 at 1.6·10^8 (about 50 minutes at 5·10^4 runs/s)
    ("poisson (0.01, 1, 100), 1.6e8 runs", dict(q=0.01, sigma=1.0, steps=100), 16 * 10**7),
]


def speed(m: JaxPrivacyDPSGD) -> float:
    """Runs/s of ``sample`` on both datasets, one chunk each, after a warm-up (compilation)."""
    d0, d1 = m.default_pair()
    rng = np.random.default_rng(0)
    m.sample(d0, 8, rng)
    n = m.audit_chunk_runs
    t = time.perf_counter()
    m.sample(d0, n, rng)
    m.sample(d1, n, rng)
    return 2 * n / (time.perf_counter() - t)


def replace_pair_pld(q: float, sigma: float, steps: int, interval: float = 1e-4):
    """dp-accounting's PLD (pessimistic, discretisation ``interval``) of the exact pair of fixed
    batches under replace-one, per step (1 − q)N(1·[incl.], σ²) against the counter-canary's
    (1 − q)N(0, σ²) + qN(−1, σ²), i.e. P1 = (1 − q)N(0, σ²) + qN(1, σ²) and
    P0 = (1 − q)N(0, σ²) + qN(−1, σ²), composed T times (the pair is symmetric: x ↦ −x).
    The loss log P1/P0 increases in x; it is evaluated at each cell's right end and rounded up."""
    from dp_accounting.pld import privacy_loss_distribution as pldm
    from scipy.special import ndtr

    a = 1.0 + 14.0 * sigma
    x = np.linspace(-a, a, 400_001)

    def logp(mu: float) -> np.ndarray:
        z0, z1 = -x * x / (2 * sigma**2), -(x - mu) ** 2 / (2 * sigma**2)
        return z1 if q == 1.0 else np.logaddexp(np.log1p(-q) + z0, np.log(q) + z1)

    loss = logp(1.0) - logp(-1.0)
    cdf = (1 - q) * ndtr(x / sigma) + q * ndtr((x - 1) / sigma)
    mass = np.diff(cdf, prepend=0.0)          # cell (x_{i−1}, x_i]; the left tail in cell 0
    k = np.ceil(loss / interval).astype(np.int64)
    pmf: dict[int, float] = {}
    for kk, mm in zip(k[mass > 0].tolist(), mass[mass > 0].tolist(), strict=True):
        pmf[kk] = pmf.get(kk, 0.0) + mm
    one = pldm.PrivacyLossDistribution.create_from_rounded_probability(
        pmf, float(1 - cdf[-1]), interval, pessimistic_estimate=True)
    return one.self_compose(steps) if steps > 1 else one


def pld_thresholds(pld) -> tuple[np.ndarray, np.ndarray]:
    """(P_a(E), P_b(E)) of the threshold events {L ≥ l} of a PLD, both directions (as
    ``bench_dpsgd_audit.threshold_events`` reads the subsampled Gaussian's)."""
    pa, pb = [], []
    for pmf in (pld._pmf_remove, pld._pmf_add):
        probs = np.asarray(pmf._probs, dtype=float)
        loss = (pmf._lower_loss + np.arange(len(probs))) * pmf._discretization
        tail_p = np.cumsum(probs[::-1])[::-1] + pmf._infinity_mass
        tail_q = np.cumsum((np.exp(-loss) * probs)[::-1])[::-1]
        keep = np.unique(np.linspace(0, len(probs) - 1, 20_000).astype(int))
        pa.append(tail_p[keep])
        pb.append(np.minimum(tail_q[keep], 1.0))
    return np.concatenate(pa), np.concatenate(pb)


def exact_columns(m: JaxPrivacyDPSGD, runs: int, claimed: dict) -> dict:
    """Exact ε, ceiling (and its fraction of the accountant's ε) and the runs for a ceiling of
    0.85 × the accountant's ε, where the exact pair is known: Poisson with K = 1 and Gaussian
    noise (``DPSGDCanary``'s law) and fixed batches (``replace_pair_pld``)."""
    out = {"exact_epsilon": None, "ceiling_epsilon": None, "ceiling_fraction": None,
           "runs_for_ceiling_target": None, "exact_source": None}
    if m.exact_claim is not None:
        pa, pb = threshold_events(DPSGDCanary(m.q, m.sigma, m.steps, release="all"))
        exact = [m.exact_claim.epsilon_at(d) for d in DELTAS]
        out["exact_source"] = "DPSGDCanary.exact_claim (PLD of the subsampled Gaussian)"
    elif m.batch_selection == "fixed" and m.noise == "gaussian":
        pld = replace_pair_pld(m.q, m.sigma, m.steps)
        pa, pb = pld_thresholds(pld)
        exact = [pld.get_epsilon_for_delta(d) for d in DELTAS]
        out["exact_source"] = "PLD of the replace-one pair (replace_pair_pld)"
    else:
        return out
    _, n_cert = split_runs(runs, 0.1)
    ceil = [ceiling(pa, pb, n_cert, d) for d in DELTAS]
    out["exact_epsilon"] = exact
    out["ceiling_epsilon"] = ceil
    out["ceiling_fraction"] = [max(c, 0.0) / claimed[d] for c, d in zip(ceil, DELTAS,
                                                                         strict=True)]
    out["runs_for_ceiling_target"] = [
        "reached" if c >= TARGET * claimed[d]
        else "unreachable" if e < TARGET * claimed[d]       # the exact ε itself is below
        else runs_for_ceiling(pa, pb, d, TARGET * claimed[d])
        for c, e, d in zip(ceil, exact, DELTAS, strict=True)]
    return out


def row(label: str, kwargs: dict, runs: int) -> dict:
    m = JaxPrivacyDPSGD(**kwargs)
    t = time.perf_counter()
    acc_eps = m.accountant_epsilon
    claim = m.privacy_claim
    acc_sec = time.perf_counter() - t
    claimed = {d: (acc_eps if d == 1e-5 else claim.epsilon_at(d)) for d in DELTAS}
    rps = speed(m)
    d0, d1 = m.default_pair()
    t = time.perf_counter()
    r = audit_curve(m, d0, d1, claim=claim, runs=runs, seed=0, executor="serial",
                    deltas=list(DELTAS), arithmetic="real")
    sec = time.perf_counter() - t
    cert = dict(zip(r.deltas, r.epsilon_lower_bound, strict=True))
    out = {"label": label, "config": kwargs, "name": m.name, "runs": runs,
           "runs_certified": r.runs if hasattr(r, "runs") else None,
           "runs_per_second": round(rps), "seconds": round(sec, 1),
           "accountant": m.accountant_name, "accountant_seconds": round(acc_sec, 2),
           "verdict": r.verdict, "deltas": list(DELTAS),
           "accountant_epsilon": [claimed[d] for d in DELTAS],
           "certified_epsilon": [cert[d] for d in DELTAS],
           "fraction": [max(cert[d], 0.0) / claimed[d] for d in DELTAS],
           "exceeds_accountant": [bool(cert[d] > claimed[d]) for d in DELTAS],
           "exact_epsilon": None, "ceiling_epsilon": None, "ceiling_fraction": None,
           "runs_for_ceiling_target": None}
    out.update(exact_columns(m, runs, claimed))
    print(json.dumps({k: out[k] for k in ("label", "runs", "seconds", "runs_per_second",
                                          "accountant_epsilon", "certified_epsilon", "fraction",
                                          "ceiling_epsilon")}), flush=True)
    return out


FLOAT_RUNS = 10**6


def float_row(label: str, kwargs: dict, runs: int) -> dict:
    """``audit`` with its defaults (``arithmetic="float"``: floating-point leaks looked for) at
    the accountant's (ε, 1e-5)."""
    m = JaxPrivacyDPSGD(**kwargs)
    d0, d1 = m.default_pair()
    t = time.perf_counter()
    r = audit(m, d0, d1, claimed_epsilon=m.accountant_epsilon, claimed_delta=1e-5, runs=runs,
              seed=0, executor="serial")
    out = {"label": label, "config": kwargs, "runs": runs,
           "seconds": round(time.perf_counter() - t, 1),
           "accountant_epsilon": m.accountant_epsilon, "verdict": r.verdict,
           "certified_epsilon": r.epsilon_lower_bound, "floating_point": bool(r.floating_point),
           "event": str(r.event), "counts": r.counts.get("certification")}
    print(json.dumps({k: out[k] for k in ("label", "runs", "verdict", "certified_epsilon",
                                          "floating_point", "seconds")}), flush=True)
    return out


def float_witness(runs: int = 10**6, seed: int = 7) -> dict:
    """The float32 leak at (1, 1, 1) by hand: y = −θ₁·e₀ (lr = C = 1) is the noisy gradient
    sum fl(g + z) (g = 1 with the canary, 0 without).  E = {|y| < 1/2 and y not a multiple of
    2^-24}: with the canary y = fl(1 + z), and for z in (−3/2, −1/2) the exact 1 + z is a
    multiple of 2^-24 (z's own spacing there), so P1(E) = 0; without it y = z, on a finer grid."""
    m = JaxPrivacyDPSGD(q=1.0, sigma=1.0, steps=1)
    rng = np.random.default_rng(seed)
    y0 = m.increments(m.iterates((), runs, rng))[:, 0]
    y1 = m.increments(m.iterates(("canary",), runs, rng))[:, 0]

    def event(y: np.ndarray) -> int:
        return int(((np.abs(y) < 0.5) & (y * 2**24 != np.round(y * 2**24))).sum())

    return {"config": {"q": 1.0, "sigma": 1.0, "steps": 1}, "runs_each": runs, "seed": seed,
            "event": "|y| < 1/2 and y not a multiple of 2^-24, y = -theta_1[0] / (lr C)",
            "count_without_canary": event(y0), "count_with_canary": event(y1)}


def _f(x, nd=3) -> str:
    if x is None:
        return "—"
    if isinstance(x, float) and not math.isfinite(x):
        return "−∞" if x < 0 else "∞"
    return f"{x:.{nd}f}"


def markdown(res: dict) -> str:
    lines = ["# jax-privacy's DP-SGD pipeline, audited (issue 39, part 2)", "",
             f"Produced by `benchmarks/bench_jax_privacy_dpsgd.py`: jax-privacy "
             f"{res['jax_privacy']}, jax {res['jax']}, {res['machine']}; serial executor, "
             f"α = 0.05, `audit_curve` (k ≤ 8 events), seed 0, `arithmetic=\"real\"`. "
             f"Every run executes jax-privacy's batch selection, `clipped_grad` and noise "
             f"addition (module docstring of `ltheory.privacy.adapters.jax_privacy_dpsgd`); "
             f"all iterates observed, output = their log-likelihood ratio. Claim: the profile "
             f"of the PLD accountant `jax_privacy.accounting` composes for the configuration; "
             f"its ε at 1e-5 is `compute_epsilon`'s.", "",
             "| configuration | accountant | δ | accountant ε | exact ε | certified ε | "
             "fraction | ceiling ε | ceiling / accountant | runs for ceiling 0.85 | runs | "
             "runs/s | seconds |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        for i, d in enumerate(r["deltas"]):
            ceil = r["ceiling_epsilon"][i] if r["ceiling_epsilon"] else None
            cf = r["ceiling_fraction"][i] if r["ceiling_fraction"] else None
            need = r["runs_for_ceiling_target"][i] if r["runs_for_ceiling_target"] else None
            need_s = ("—" if need is None else need if isinstance(need, str)
                      else f"{need:.1e}")
            lines.append(
                f"| {r['label']} | {r['accountant']} | {d:g} | {_f(r['accountant_epsilon'][i])} "
                f"| {_f(r['exact_epsilon'][i] if r.get('exact_epsilon') else None)} "
                f"| {_f(r['certified_epsilon'][i])} | **{_f(r['fraction'][i], 2)}** | "
                f"{_f(ceil)} | {_f(cf, 2)} | {need_s} | {r['runs']:.2g} | "
                f"{r['runs_per_second']:.2e} | {r['seconds']} |")
    lines += ["", "Real arithmetic (`arithmetic=\"real\"`): " + (
        "no certified ε exceeds the accountant's." if not any(
            any(r["exceeds_accountant"]) for r in res["rows"])
        else "**some certified ε exceeds the accountant's** (rows above)."), ""]
    if res.get("float_rows"):
        lines += ["## Floating point (`audit` with its defaults, claim (accountant ε, 1e-5))",
                  "", "| configuration | accountant ε | certified ε | verdict | "
                  "floating-point event | runs | seconds |", "|---|---|---|---|---|---|---|"]
        for r in res["float_rows"]:
            ev = r["event"] if len(r["event"]) < 160 else r["event"][:157] + "…"
            ev = ev.replace("|", "\\|")
            lines.append(f"| {r['label']} | {_f(r['accountant_epsilon'])} | "
                         f"{_f(r['certified_epsilon'])} | **{r['verdict']}** | "
                         f"{ev if r['floating_point'] else '—'} | {r['runs']:.2g} | "
                         f"{r['seconds']} |")
        lines.append("")
    if res.get("float_witness"):
        w = res["float_witness"]
        lines += [f"Witness (seed {w['seed']}, {w['runs_each']:.0e} runs each, (q, σ, T) = "
                  f"(1, 1, 1)): event {w['event']}: {w['count_without_canary']} runs without "
                  f"the canary, {w['count_with_canary']} with it.", ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="10^5 runs per row (smoke test)")
    ap.add_argument("--only", type=int, nargs="*", help="row indices to run")
    ap.add_argument("--part", choices=("curve", "float", "exact"), default="curve",
                    help="exact: recompute the exact-pair columns of the stored rows only")
    args = ap.parse_args()
    import jax

    picked = [(lab, kw, n) for i, (lab, kw, n) in enumerate(ROWS)
              if not args.only or i in args.only]
    path = OUT / "jax_privacy_dpsgd.json"
    res = json.loads(path.read_text()) if path.exists() and not args.quick else {}
    res.update({"jax_privacy": jax_privacy_version(), "jax": jax.__version__,
                "machine": f"{platform.machine()}, Python {platform.python_version()}"})
    order = [lab for lab, _, _ in ROWS]
    key = "rows" if args.part == "curve" else "float_rows"
    if args.part == "exact":
        for r in res.get("rows", []):
            m = JaxPrivacyDPSGD(**r["config"])
            r.update(exact_columns(m, r["runs"], dict(zip(r["deltas"], r["accountant_epsilon"],
                                                          strict=True))))
        new = []
        key = "rows"
    elif args.part == "curve":
        new = [row(lab, kw, 10**5 if args.quick else n) for lab, kw, n in picked]
    else:
        new = [float_row(lab, kw, 10**5 if args.quick else FLOAT_RUNS) for lab, kw, _ in picked]
        res["float_witness"] = float_witness(10**5 if args.quick else 10**6)
    done = {r["label"] for r in new}
    merged = [r for r in res.get(key, []) if r["label"] not in done] + new
    res.setdefault("exact_epsilon_note", "exact ε: Poisson K = 1 — DPSGDCanary.exact_claim; "
                   "fixed batches — PLD of the replace-one pair; others unknown")
    merged.sort(key=lambda r: order.index(r["label"]) if r["label"] in order else 99)
    res[key] = merged
    res.setdefault("rows", [])
    if not args.quick:
        OUT.mkdir(exist_ok=True)
        path.write_text(json.dumps(res, indent=1))
        (OUT / "jax_privacy_dpsgd.md").write_text(markdown(res))
    print(markdown(res))


if __name__ == "__main__":
    main()
