"""DP-SGD canary audits (issue 33): ``audit_curve`` on ``DPSGDCanary`` against dp-accounting's
PLD accountant.

For (q, σ, T) = (1, 1, 1), (0.01, 1, 100), (0.01, 0.8, 1000) and release "all" (the
log-likelihood ratio of all iterates) and "final" (the last iterate):

1. **Headline** — one curve audit with the PLD accountant's claim (``m.privacy_claim``) at as
   many runs as fit in about two minutes on one core (sampling speed measured first, capped at
   10^8; at least 10^6 for the small-T rows): the certified ε_lb(δ) at δ = 1e-5, 1e-3, 1e-2,
   the accountant's ε (PLD and RDP), the exact ε (``exact_claim``), and certified/PLD — the
   fraction of the accountant's ε the audit reaches.  Beside it the *ceiling*: the best ε_lb(δ)
   one Neyman–Pearson event (a threshold on the output) can certify at its expected counts with
   the same certification size and level α/(2k) (as ``bench_curve_audit.py`` computes it) —
   where the ceiling is −inf, δ is out of reach at that budget, and the runs whose ceiling
   reaches 0.9 × exact ε are given.
   Threshold probabilities: for "final", the mixture-of-Gaussians tails of the sum; for "all",
   the tails of the privacy loss itself, read off dp-accounting's PLD of the exact pair (both
   directions; under the other distribution by the change of measure Q(L = l) = e^{−l} P(L = l);
   20,000 thresholds evenly spread over the loss grid).
2. **False claims**, 10 seeds each at a smaller budget: the accountant's ε halved, as
   ``ApproxDP(ε_PLD/2, 1e-5)``, and the PLD accountant run with ``accountant_sigma = 2σ``.
   Where some seed is not a violation, the reason is computed: the largest gap between the exact
   curve and the false claim's, and the runs at which one Neyman–Pearson event's expected
   certified curve rises above the false claim (bisection).

Run:  python -m benchmarks.bench_dpsgd_audit [--quick] [--part head|false|all]
      [--raised]   (--part false --raised: rerun only the rows with raised budgets, merged in)
Writes benchmarks/results/dpsgd_audit.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
from scipy.special import log_ndtr, logsumexp
from scipy.stats import binom

from ltheory.privacy import audit_curve
from ltheory.privacy.auditing.core import split_runs
from ltheory.privacy.auditing.curve import EVENTS
from ltheory.privacy.auditing.projection import projected_interval
from ltheory.privacy.claims import ApproxDP
from ltheory.privacy.mechanisms import CANARY, DPSGDCanary, dpsgd_accountant

OUT = Path(__file__).resolve().parent / "results"
ALPHA = 0.05
PARAMS = [(1.0, 1.0, 1), (0.01, 1.0, 100), (0.01, 0.8, 1000)]
RELEASES = ("all", "final")
REPORT_DELTAS = (1e-5, 1e-3, 1e-2)
D0, D1 = (), (CANARY,)
SECONDS = 120.0          # target wall time per headline row
MAX_HEAD_RUNS = 10**8
SEEDS_FALSE = 10


def _round2(x: float) -> int:
    """x rounded down to two significant digits."""
    p = 10 ** max(int(math.floor(math.log10(x))) - 1, 0)
    return int(x // p * p)


def sampling_speed(m: DPSGDCanary) -> float:
    """Runs per second of ``m.sample`` (both datasets), measured on ~1 s of work."""
    rng = np.random.default_rng(0)
    n = 2000
    while True:
        t = time.perf_counter()
        m.sample(D0, n, rng)
        m.sample(D1, n, rng)
        dt = time.perf_counter() - t
        if dt > 0.5 or n >= 10**7:
            return 2 * n / dt
        n *= 4


# --------------------------------------------------------------------------- ceilings
def threshold_events(m: DPSGDCanary) -> tuple[np.ndarray, np.ndarray]:
    """(P_a(E), P_b(E)) for the Neyman–Pearson threshold events of the release, in both
    directions (module docstring)."""
    if m.release == "final":
        t, q, s = m.steps, m.q, m.sigma * math.sqrt(m.steps)
        k = np.arange(t + 1)
        logw = binom.logpmf(k, t, q)
        keep = logw > -745
        k, logw = k[keep], logw[keep]
        c = np.linspace(-8 * s, t * q + 8 * s + 2, 20_001)
        up1 = np.exp(logsumexp(logw[None, :] + log_ndtr((k[None, :] - c[:, None]) / s), axis=1))
        up0 = np.exp(log_ndtr(-c / s))
        lo1 = np.exp(logsumexp(logw[None, :] + log_ndtr((c[:, None] - k[None, :]) / s), axis=1))
        lo0 = np.exp(log_ndtr(c / s))
        # {X >= c}: more likely with the canary; {X <= c}: more likely without
        return np.concatenate([up1, lo0]), np.concatenate([up0, lo1])
    pld = dpsgd_accountant(m.q, m.sigma, m.steps, "pld")._pld
    pa, pb = [], []
    for pmf in (pld._pmf_remove, pld._pmf_add):
        probs = np.asarray(pmf._probs, dtype=float)
        loss = (pmf._lower_loss + np.arange(len(probs))) * pmf._discretization
        # events {L >= loss_i}: P(L >= l) and Q(L >= l) = Σ e^{−l} P(L = l)
        tail_p = np.cumsum(probs[::-1])[::-1] + pmf._infinity_mass
        tail_q = np.cumsum((np.exp(-loss) * probs)[::-1])[::-1]
        keep = np.unique(np.linspace(0, len(probs) - 1, 20_000).astype(int))  # thresholds
        pa.append(tail_p[keep])                                                # 20,000 apart
        pb.append(np.minimum(tail_q[keep], 1.0))
    return np.concatenate(pa), np.concatenate(pb)


def ceiling(pa: np.ndarray, pb: np.ndarray, n_cert: int, d: float, k: int = EVENTS) -> float:
    lo, up = projected_interval(pa, pb, n_cert, ALPHA / (2 * k))
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where((lo > d) & (up > 0), np.log(np.maximum(lo - d, 1e-300) / up), -np.inf)
    return float(v.max())


def fewest_runs(ok, start: int, cap: int, selection: float) -> int | None:
    """Fewest total runs (certification runs per side ``n_cert`` for which ``ok(n_cert)``,
    found by doubling from ``start`` and bisecting to 1%, both sides, plus the selection
    share), or None past ``cap``."""
    hi = start
    while not ok(hi):
        hi *= 2
        if hi > cap:
            return None
    lo = hi // 2
    while hi - lo > max(lo // 100, 1):
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if not ok(mid) else (lo, mid)
    return int(math.ceil(2 * hi / (1 - selection)))


def runs_for_ceiling(pa, pb, d, target_eps, selection=0.1) -> int | None:
    """Fewest total runs whose k-event ceiling at δ = d reaches ``target_eps``."""
    return fewest_runs(lambda n_cert: ceiling(pa, pb, n_cert, d) >= target_eps, 10**4, 10**13,
                       selection)


def detect_runs(pa, pb, claim, selection=0.1) -> int | None:
    """Fewest total runs at which one threshold event's expected certified line
    ``p_lower − e^ε p_upper`` lies above the claim's profile at some ε."""
    eps = np.linspace(0.0, 30.0, 3001)
    dc = np.asarray(claim.delta_at(eps), dtype=float)
    # only the events whose true line beats the claim somewhere can ever detect it
    with np.errstate(over="ignore"):
        best = (pa[:, None] - np.exp(eps)[None, :] * pb[:, None] - dc[None, :]).max(axis=1)
    cand = best > 0
    if not cand.any():
        return None
    a, b = pa[cand], pb[cand]

    def ok(n_cert):
        lo, up = projected_interval(a, b, n_cert, ALPHA / (2 * EVENTS))
        with np.errstate(over="ignore"):
            g = lo[:, None] - np.exp(eps)[None, :] * up[:, None] - dc[None, :]
        return bool((g > 0).any())
    return fewest_runs(ok, 10**3, 10**14, selection)


def true_gap(m: DPSGDCanary, claim) -> tuple[float, float]:
    """max_ε δ_exact(ε) − δ_claim(ε) on a grid, and its ε."""
    eps = np.linspace(0.0, 30.0, 3001)
    g = np.asarray(m.exact_claim.delta_at(eps)) - np.asarray(claim.delta_at(eps))
    j = int(np.argmax(g))
    return float(g[j]), float(eps[j])


# --------------------------------------------------------------------------- parts
def head_budget(speed: float, steps: int) -> int:
    runs = _round2(min(MAX_HEAD_RUNS, 0.6 * SECONDS * speed))   # ~40% for counting and search
    return max(runs, 10**6) if steps <= 100 else runs


def headline(quick: bool) -> list[dict]:
    rows = []
    for q, sigma, steps in PARAMS:
        for release in RELEASES:
            m = DPSGDCanary(q, sigma, steps, release=release)
            speed = sampling_speed(m)
            runs = 10**6 if quick else head_budget(speed, steps)
            claim = m.privacy_claim
            eps_pld = {d: claim.epsilon_at(d) for d in REPORT_DELTAS}
            rdp = m.privacy_claim(accountant="rdp")
            eps_rdp = {d: rdp.epsilon_at(d) for d in REPORT_DELTAS}
            eps_exact = {d: m.exact_claim.epsilon_at(d) for d in REPORT_DELTAS}
            t = time.perf_counter()
            r = audit_curve(m, D0, D1, claim=claim, runs=runs, seed=0, executor="serial",
                            deltas=REPORT_DELTAS, arithmetic="real")
            sec = time.perf_counter() - t
            cert = dict(zip(r.deltas, r.epsilon_lower_bound, strict=True))
            _, n_cert = split_runs(runs, 0.1)
            pa, pb = threshold_events(m)
            ceil = {d: ceiling(pa, pb, n_cert, d) for d in REPORT_DELTAS}
            need = {d: (runs_for_ceiling(pa, pb, d, 0.9 * eps_exact[d])
                        if ceil[d] < 0.9 * eps_exact[d] else None) for d in REPORT_DELTAS}
            row = {"q": q, "sigma": sigma, "steps": steps, "release": release,
                   "runs": runs, "sampling_runs_per_second": round(speed),
                   "seconds": round(sec, 1), "verdict": r.verdict,
                   "events_certified": r.events_certified,
                   "deltas": list(REPORT_DELTAS),
                   "certified_epsilon": [cert[d] for d in REPORT_DELTAS],
                   "pld_epsilon": [eps_pld[d] for d in REPORT_DELTAS],
                   "rdp_epsilon": [eps_rdp[d] for d in REPORT_DELTAS],
                   "exact_epsilon": [eps_exact[d] for d in REPORT_DELTAS],
                   "fraction_of_pld": [max(cert[d], 0.0) / eps_pld[d]
                                       if math.isfinite(cert[d]) else 0.0
                                       for d in REPORT_DELTAS],
                   "ceiling_epsilon": [ceil[d] for d in REPORT_DELTAS],
                   "runs_for_ceiling_0.9_exact": [need[d] for d in REPORT_DELTAS],
                   "chosen_for": [e["chosen_for"] for e in r.events]}
            rows.append(row)
            print(json.dumps({k: row[k] for k in ("q", "sigma", "steps", "release", "runs",
                                                  "seconds", "certified_epsilon",
                                                  "pld_epsilon", "fraction_of_pld",
                                                  "ceiling_epsilon")}), flush=True)
    return rows


#: Runs per seed for the false claims where the default is not enough: a few times the
#: expected runs to detect (``detect_runs``) of the first run — (T, release, claim) → runs.
#: T = 1000, "final", ε halved needs ~2.4·10^8 expected (about 20 minutes for 10 seeds): left
#: at the default and reported.
FALSE_BUDGETS = {(100, "all", "epsilon halved"): 3 * 10**6,
                 (1000, "all", "epsilon halved"): 500_000,
                 (100, "final", "epsilon halved"): 3 * 10**8}


def false_budget(steps: int, release: str, claim: str) -> int:
    if (steps, release, claim) in FALSE_BUDGETS:
        return FALSE_BUDGETS[(steps, release, claim)]
    if release == "all" and steps >= 1000:
        return 200_000
    return 10**6


def false_claims(quick: bool, only: set | None = None) -> list[dict]:
    """The false-claim rows; ``only``: the (T, release, claim) keys to run (None: all)."""
    rows = []
    seeds = range(3 if quick else SEEDS_FALSE)
    for q, sigma, steps in PARAMS:
        for release in RELEASES:
            m = DPSGDCanary(q, sigma, steps, release=release)
            eps = m.privacy_claim.epsilon_at(1e-5)
            m2 = DPSGDCanary(q, sigma, steps, release=release, accountant_sigma=2 * sigma)
            for label, mech, claim in (
                    ("epsilon halved", m, ApproxDP(eps / 2, 1e-5)),
                    ("accountant sigma = 2 sigma", m2, m2.privacy_claim)):
                if only is not None and (steps, release, label) not in only:
                    continue
                runs = false_budget(steps, release, label)
                t = time.perf_counter()
                verdicts, gaps = [], []
                for s in seeds:
                    r = audit_curve(mech, D0, D1, claim=claim, runs=runs, seed=s,
                                    executor="serial", deltas=REPORT_DELTAS, arithmetic="real")
                    verdicts.append(r.verdict)
                    gaps.append(r.gap_epsilon)
                g, at = true_gap(m, claim)
                row = {"q": q, "sigma": sigma, "steps": steps, "release": release,
                       "claim": label, "claim_text": str(claim),
                       "claimed_epsilon_at_1e-5": claim.epsilon_at(1e-5),
                       "runs": runs, "seeds": len(verdicts),
                       "violations": verdicts.count("violation"),
                       "gap_epsilons": gaps, "true_gap": g, "true_gap_epsilon": at,
                       "seconds": round(time.perf_counter() - t, 1)}
                if row["violations"] < row["seeds"]:
                    pa, pb = threshold_events(m)
                    row["runs_to_detect_expected"] = detect_runs(pa, pb, claim)
                rows.append(row)
                print(json.dumps({k: row[k] for k in ("q", "steps", "release", "claim",
                                                      "violations", "seeds", "seconds",
                                                      "true_gap", "true_gap_epsilon")}),
                      flush=True)
    return rows


# --------------------------------------------------------------------------- output
def _f(x, nd=3):
    if x is None:
        return "—"
    if isinstance(x, float) and not math.isfinite(x):
        return "out of reach" if x < 0 else "inf"
    return f"{x:.{nd}f}"


def _runs(n):
    return "—" if n is None else f"{n:.2g}"


def markdown(res: dict) -> str:
    out = ["# DP-SGD canary audits (`audit_curve` on `DPSGDCanary`, issue 33)", "",
           "Produced by `benchmarks/bench_dpsgd_audit.py`; one core, serial executor, "
           f"α = {ALPHA}, k ≤ {EVENTS} events. Datasets: d0 = () and d1 = ('canary',) "
           "(add/remove); release `all` outputs the log-likelihood ratio of all iterates, "
           "`final` the last iterate. Claim: dp-accounting's PLD accountant for the "
           "mechanism's (q, σ, T).", ""]
    if "head" in res:
        out += ["## 1. Certified ε against the accountant's ε", "",
                "| q | σ | T | release | runs | seconds | δ | certified ε | PLD ε | RDP ε | "
                "exact ε | certified / PLD | certified / exact | ceiling ε | "
                "runs for ceiling 0.9·exact |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in res["head"]:
            for i, d in enumerate(r["deltas"]):
                out.append(
                    f"| {r['q']:g} | {r['sigma']:g} | {r['steps']} | {r['release']} | "
                    f"{r['runs']:.2g} | {r['seconds']} | {d:g} | "
                    f"{_f(r['certified_epsilon'][i])} | {_f(r['pld_epsilon'][i])} | "
                    f"{_f(r['rdp_epsilon'][i])} | {_f(r['exact_epsilon'][i])} | "
                    f"**{_f(r['fraction_of_pld'][i], 2)}** | "
                    f"{_f(max(r['certified_epsilon'][i], 0.0) / r['exact_epsilon'][i], 2)} | "
                    f"{_f(r['ceiling_epsilon'][i])} | "
                    f"{_runs(r['runs_for_ceiling_0.9_exact'][i])} |")
        out += ["", "Sampling speed (runs/s, both datasets): " + "; ".join(
            f"({r['q']:g}, {r['sigma']:g}, {r['steps']}) {r['release']}: "
            f"{r['sampling_runs_per_second']:.2g}" for r in res["head"]), ""]
    if "false" in res:
        out += ["## 2. False claims (10 seeds each)", "",
                "`epsilon halved`: ApproxDP(ε_PLD(1e-5)/2, 1e-5). `accountant sigma = 2 sigma`: "
                "the PLD accountant at twice the mechanism's σ. `true gap`: max over ε of "
                "exact δ(ε) − claimed δ(ε).", "",
                "| q | σ | T | release | false claim | claimed ε at 1e-5 | runs | violations | "
                "true gap (at ε) | seconds | expected runs to detect |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in res["false"]:
            out.append(
                f"| {r['q']:g} | {r['sigma']:g} | {r['steps']} | {r['release']} | "
                f"{r['claim']} | {r['claimed_epsilon_at_1e-5']:.3f} | {r['runs']:.2g} | "
                f"**{r['violations']}/{r['seeds']}** | {r['true_gap']:.3g} "
                f"({r['true_gap_epsilon']:.2f}) | {r['seconds']} | "
                f"{_runs(r.get('runs_to_detect_expected'))} |")
        out.append("")
    if "notes" in res:
        out += ["## Reading", "", *res["notes"], ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", default="all", choices=["head", "false", "all"])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--raised", action="store_true",
                    help="false claims: rerun only the rows of FALSE_BUDGETS (merged in)")
    a = ap.parse_args()
    global OUT
    if a.quick:      # a smoke test never overwrites the committed figures
        OUT = OUT / "quick"
        OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "dpsgd_audit.json"
    res = json.loads(path.read_text()) if path.exists() else {}
    t = time.perf_counter()
    if a.part in ("head", "all"):
        res["head"] = headline(a.quick)
    if a.part in ("false", "all") and a.raised:
        new = {(r["steps"], r["release"], r["claim"]): r
               for r in false_claims(a.quick, set(FALSE_BUDGETS))}
        res["false"] = [new.get((r["steps"], r["release"], r["claim"]), r)
                        for r in res["false"]]
    elif a.part in ("false", "all"):
        res["false"] = false_claims(a.quick)
    key = "seconds_raised_rows" if a.raised else "total_seconds_last_run"
    res[key] = round(time.perf_counter() - t, 1)
    OUT.mkdir(exist_ok=True)
    path.write_text(json.dumps(res, indent=1, default=float))
    (OUT / "dpsgd_audit.md").write_text(markdown(res), encoding="utf-8")


if __name__ == "__main__":
    main()
