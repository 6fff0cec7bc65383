"""Ceilings for DP-Sniper's suite: the largest bound *any* event on *any* pair of the neighbour
search space (the extended StatDP patterns around the suite's base input, as
``bench_dpsniper_suite`` searches them) would certify with n certification runs per dataset,
computed from exact probabilities, with the counts at their expectations (n·p): what any auditor
that certifies with Clopper–Pearson (α/2 per side) or the Poisson conditional test (α) can expect
at that budget.  Budgets: n = runs/2 (every run spent on certification, the most generous
reading of a 2·10^6 or 2·10^7 budget) and the suite's own certification size (7.9·10^5,
7.9·10^6 per dataset, after pilots and the selection split).

Why the maximum over *all* events: both certified bounds g(x, y) increase with the event's
probability x under the larger side and decrease with its probability y under the other, and for
every event E (also a randomised one) y(E) ≥ F(x(E)), where F is the Neyman–Pearson frontier: the
cumulative probabilities of the outputs sorted by likelihood ratio, linearly interpolated
(Neyman–Pearson lemma).  So max_E g ≤ max_x g(x, F(x)), and on each grid interval [u, v] of the
frontier g(x, F(x)) ≤ g(v, F(u)) (monotonicity): ``frontier_ceiling`` returns the largest such
g(v, F(u)) over a fine grid, a rigorous upper bound — a *proof* that no event reaches a target
above it at these expected counts.

Exact probabilities per mechanism (``scope`` in the results):

* finite outputs with ``output_distribution`` (truncated geometric, report noisy max 1/2, SVT1,
  SVT4, and SVT2, which with c = 1 has SVT1's distribution at threshold 1: the same ρ ~ Lap(cΔ/ε1)
  and ν ~ Lap(2cΔ/ε1) scales, and ρ's redraw after the one ⊤ is never used) — exact (quadrature
  to ~1e-11), every pair;
* one-dimensional sufficient statistics — Laplace and NoisyHist1 (the moved coordinate; the
  others are independent of the pair), RAPPOR and one-time RAPPOR (the oriented count of the
  Bloom bits set for one value only, with the implementation's MurmurHash3 Bloom filters of each
  pair), LaplaceParallel (sign count: not sufficient, so a ceiling for that family only);
* report noisy max 3 (the maximum of 5 Laplace variables): the distribution of the maximum on a
  grid of width 0.01 over ±600 (cells are a partition, so this is a lower approximation of the
  continuous frontier; halving the grid moves it by < 1e-4), every pair.

SVT3, SVT34Parallel, NumericalSVT (real-valued releases after data-dependent stopping), PrefixSum,
NoisyHist2, ReportNoisyMax4, SVT5 and SVT6 are not covered (the last five are beaten by far).
``infeasible`` marks a ceiling below DP-Sniper's published bound at n = runs/2: out of reach at
α = 0.05 for any sound auditor of this search space with that budget (expected counts).

**How far a ceiling is from a proof** (``--reach-chance``): the ceiling is the bound at the
*expected* counts, and a lucky draw certifies more.  For the ceiling event (the likelihood-ratio
prefix with the best bound at expected counts, over every pair of the search space) this draws
20,000 Poisson count pairs at n = runs/2 per dataset and reports how often the
Poisson-conditional bound reaches DP-Sniper's published number: the chance of meeting the target
with that event if pair and event were known in advance.  Rare-event sparse-vector leaks have
bounds with standard deviation ~0.003 at 10^7 runs, so a ceiling a little below the target is
not out of reach; only a target above the pair's exact ε (Rappor) is, except with probability
≤ α.

Run (from the repository root; about 10 minutes on 2 shared cores):

    python -m benchmarks.bench_dpsniper_ceilings [--only NAME ...]
        writes benchmarks/results/dpsniper_ceilings.json (--only recomputes those rows and
        merges); read by bench_dpsniper_suite and bench_dpsniper_headline
    python -m benchmarks.bench_dpsniper_ceilings --reach-chance
        writes benchmarks/results/dpsniper_reach_chance.json
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
from scipy.stats import binom

from ltheory.privacy.auditing.ceiling import certification_ceiling, certified_at_expectation
from ltheory.privacy.auditing.exact import aligned, exact_epsilon
from ltheory.privacy.auditing.search import query_patterns
from ltheory.privacy.mechanisms import Rappor, SparseVector, dpsniper_suite
from ltheory.privacy.stats import poisson_epsilon_lower_bound

ALPHA = 0.05
HERE = Path(__file__).resolve().parent
BUDGETS = {"1e+06": 1e6, "1e+07": 1e7, "7.9e+05": 7.9e5, "7.9e+06": 7.9e6}


def frontier_ceiling(p0: np.ndarray, p1: np.ndarray, n: float) -> float:
    return certification_ceiling(p0, p1, n, ALPHA)


def _pairs(base: tuple[float, ...]) -> list[tuple[str, tuple, tuple]]:
    return query_patterns(list(base), 1.0, 0, extended=len(base) > 2)


def finite(m, base, ns: dict) -> dict:
    """Every neighbouring pair of the search space, exact distributions."""
    out = {k: (-math.inf, "") for k in ns}
    top_eps = (-math.inf, "")
    for pn, a, b in _pairs(base):
        if not m.are_neighbours(a, b):
            continue
        _, p0, p1 = aligned(m.output_distribution(a), m.output_distribution(b))
        e = exact_epsilon(p0, p1)
        top_eps = max(top_eps, (e, pn))
        for k, n in ns.items():
            out[k] = max(out[k], (frontier_ceiling(p0, p1, n), pn))
    return {"ceiling": {k: v[0] for k, v in out.items()}, "pair": {k: v[1] for k, v in out.items()},
            "max_exact_epsilon": top_eps[0], "max_exact_epsilon_pair": top_eps[1],
            "scope": "all events, all pairs (exact distributions)"}


def _laplace_cdf(x: np.ndarray, scale: float) -> np.ndarray:
    return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / scale),
                    1 - 0.5 * np.exp(-np.maximum(x, 0) / scale))


def laplace_cells(shift: float, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Cells of width 0.01 for Lap(0, scale) against Lap(shift, scale) (plus the two tails)."""
    t = np.arange(-60 * scale, 60 * scale + shift, 0.01)
    f0, f1 = _laplace_cdf(t, scale), _laplace_cdf(t - shift, scale)
    return np.diff(np.r_[0.0, f0, 1.0]), np.diff(np.r_[0.0, f1, 1.0])


def noisy_max_value_cells(a: tuple, b: tuple, scale: float, noise: str = "laplace"
                          ) -> tuple[np.ndarray, np.ndarray]:
    """P(max_i (q_i + Z_i) in cell), Z_i ~ Lap(scale) or Exp(scale) (ReportNoisyMax3 / 4), cells
    of width 0.05 over ±600 (and the tails; the exponential's support edges q_i fall on cell
    edges for integer answers, so its zero-probability cells are exact)."""
    t = np.arange(-600.0, 600.0, 0.05)

    def cdf_max(q: tuple) -> np.ndarray:
        out = np.ones_like(t)
        for qi in q:
            x = t - qi
            if noise == "laplace":
                out *= _laplace_cdf(x, scale)
            else:
                out *= np.where(x < 0, 0.0, -np.expm1(-np.maximum(x, 0) / scale))
        return out

    return np.diff(np.r_[0.0, cdf_max(a), 1.0]), np.diff(np.r_[0.0, cdf_max(b), 1.0])


#: lattice points per unit c = |shift|/scale of one coordinate's log-likelihood ratio
LLR_LATTICE = 400


def laplace_llr_sum_cells(shifts: list[float], scale: float
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Cells of the summed, lattice-rounded log-likelihood ratios of independent coordinates
    X_i ~ Lap(0, s) against Lap(d_i, s) (PrefixSum: a bijection of its noisy answers;
    LaplaceParallel: 20 copies of one answer).  Coordinate i's ratio
    ℓ_i = (|x − d_i| − |x|)/s lies in [−c_i, c_i], c_i = |d_i|/s: an atom 1/2 at +c_i, an atom
    e^{−c_i}/2 at −c_i and the density e^{−(c_i − ℓ)/2}/4 between (under Lap(0, s); mirrored under
    Lap(d_i, s)).  Each ℓ_i is rounded to the lattice h·Z (h = min c_i / LLR_LATTICE) — the
    integral of the density over each lattice cell, exactly — and the sum's law is the
    convolution, under each side.  The rounded sum is a function of the output, so its values
    partition the output space: a lower approximation of the continuous frontier, converging as
    h → 0 (doubling LLR_LATTICE moves the ceilings by < 1e-4 relative)."""
    cs = [abs(float(d)) / scale for d in shifts if d != 0]
    if not cs:
        return np.ones(1), np.ones(1)
    h = min(cs) / LLR_LATTICE
    p0, p1 = np.ones(1), np.ones(1)
    for c in cs:
        k = int(round(c / h))
        edges = np.clip((np.arange(-k, k + 1) + 0.5) * h, -c, c)   # cell j: [e_{j-1}, e_j)
        lo = np.r_[-c, edges[:-1]]
        hi = edges
        # under Lap(0, s): ∫ e^{−(c−ℓ)/2}/4 dℓ = (e^{−(c−hi)/2} − e^{−(c−lo)/2})/2
        cont0 = 0.5 * (np.exp(-(c - hi) / 2) - np.exp(-(c - lo) / 2))
        cont1 = 0.5 * (np.exp(-(c + lo) / 2) - np.exp(-(c + hi) / 2))  # mirrored
        q0, q1 = cont0.copy(), cont1.copy()
        q0[-1] += 0.5
        q0[0] += 0.5 * math.exp(-c)
        q1[0] += 0.5
        q1[-1] += 0.5 * math.exp(-c)
        p0, p1 = np.convolve(p0, q0), np.convolve(p1, q1)
    return np.clip(p0, 0, None), np.clip(p1, 0, None)


#: SVT3's grids: ρ on [−SVT3_REACH, SVT3_REACH] at step SVT3_STEP, released values in cells of
#: SVT3_CELL (a multiple of the step)
SVT3_REACH, SVT3_STEP, SVT3_CELL = 800.0, 0.01, 0.5


class SVT3CutoffDensity:
    """The exact density of sparse vector variant 3 with cutoff c ≤ 2 (Roth's SVT releasing the
    noisy answers of the first c queries above the threshold) at an output, for answers q: a
    pattern S of ⊤ positions (|S| ≤ c) and their released values v_S has density
    Π_{i∈S} f_ν(v_i − q_i) · J_S(min v_S − T), J_S(x) = ∫_{−∞}^x f_ρ(r) Π_{j∈B(S)} F_ν(T + r − q_j)
    dr, B(S) the queries answered ⊥ (those before the c-th ⊤, or all others when fewer than c
    are ⊤), and no ⊤ has mass J_∅(∞).  The J_S are tabulated as cumulative midpoint sums on a
    grid of step ``step`` over ±``reach`` (kinks at r = 0 and r = q_j − T on grid points for
    integer answers), read by linear interpolation."""

    def __init__(self, m, q: tuple, reach: float = 800.0, step: float = 0.01) -> None:
        if m.variant != 3 or m.c > 2:
            raise ValueError("SVT3CutoffDensity covers variant 3 with c <= 2")
        self.rs, _, self.ns, _ = m._scales()
        self.t, self.c, self.q = m.threshold, m.c, np.asarray(q, dtype=float)
        k = self.q.size
        self.edges = -reach + step * np.arange(int(round(2 * reach / step)) + 1)
        mid = 0.5 * (self.edges[:-1] + self.edges[1:])
        self.w = np.exp(-np.abs(mid) / self.rs) / (2 * self.rs) * step
        self.below = [_laplace_cdf(self.t + mid - qj, self.ns) for qj in self.q]
        self.mid = mid
        self.tables: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.k = k

    def weights(self, s: tuple) -> np.ndarray:
        """f_ρ(r) Π_{j∈B(S)} F_ν(T + r − q_j) at the grid's midpoints, times the step."""
        return self._tables(s)[0]

    def cumulative(self, s: tuple) -> np.ndarray:
        """J_S at the grid's edges (0 at the first)."""
        return self._tables(s)[1]

    def _tables(self, s: tuple) -> tuple[np.ndarray, np.ndarray]:
        if s not in self.tables:
            last = max(s) if len(s) == self.c else self.k - 1
            prod = self.w.copy()
            for j in range(last + 1):
                if j not in s:
                    prod *= self.below[j]
            self.tables[s] = prod, np.r_[0.0, np.cumsum(prod)]
        return self.tables[s]

    def log_density(self, codes: np.ndarray, values: np.ndarray) -> np.ndarray:
        """log density (mass for no ⊤) of each output row (codes, values) of the mechanism."""
        out = np.empty(codes.shape[0])
        tops = codes == 1
        keys = [tuple(np.flatnonzero(r)) for r in tops]
        groups: dict[tuple, list[int]] = {}
        for i, s in enumerate(keys):
            groups.setdefault(s, []).append(i)
        for s, rows in groups.items():
            rows_a = np.asarray(rows)
            tab = self.cumulative(s)
            if not s:
                out[rows_a] = math.log(tab[-1])
                continue
            v = values[np.ix_(rows_a, list(s))]
            x = v.min(axis=1) - self.t
            j = np.interp(x, self.edges, tab)
            dens = np.full(len(rows_a), 0.0)
            for col, i in enumerate(s):
                dens += -np.abs(v[:, col] - self.q[i]) / self.ns - math.log(2 * self.ns)
            with np.errstate(divide="ignore"):
                out[rows_a] = dens + np.log(j)
        return out


def svt3_cells(m, q: tuple) -> np.ndarray:
    """Cell probabilities of sparse vector variant 3 with cutoff c = 1 (Roth's SVT, which
    releases the noisy answer of the first query above the threshold) on answers q: cells are
    (first ⊤ at i, released value in a cell of width SVT3_CELL) and "no ⊤".  With
    A_i(r) = f_ρ(r) Π_{j<i} F_ν(T + r − q_j) and C_i its integral up to x,
    P(i, v ∈ [v0, v1)) = ΔF_ν(cell − q_i)·C_i(v0 − T) + ∫_{v0−T}^{v1−T} A_i(r)(F_ν(v1 − q_i) −
    F_ν(T + r − q_i)) dr (the threshold crossing inside the cell), both by the midpoint rule on
    a grid of step SVT3_STEP whose points include every kink (r = 0, r = q_j − T for integer
    answers), over ±SVT3_REACH (mass beyond it below e^{−40}).  Laplace ρ and ν scales from the
    mechanism.  The total is 1 to ~1e-9 (checked by the caller)."""
    if m.variant != 3 or m.c != 1:
        raise ValueError("svt3_cells covers variant 3 with c = 1")
    d = SVT3CutoffDensity(m, q, SVT3_REACH, SVT3_STEP)     # A_i and C_i: S = (i,) at c = 1
    t, ns = d.t, d.ns
    per = int(round(SVT3_CELL / SVT3_STEP))
    n_cells = (d.edges.size - 1) // per
    v0 = t + d.edges[::per][:-1]
    v1 = v0 + SVT3_CELL
    out = []
    for i, qi in enumerate(q):
        a, c = d.weights((i,)), d.cumulative((i,))
        full = _laplace_cdf(v1 - qi, ns) - _laplace_cdf(v0 - qi, ns)
        inner = (a * (np.repeat(_laplace_cdf(v1 - qi, ns), per)
                      - _laplace_cdf(t + d.mid - qi, ns))).reshape(n_cells, per).sum(axis=1)
        out.append(full * c[::per][:-1] + inner)
    out.append(d.cumulative(())[-1:])
    return np.concatenate(out)


def numerical_svt_cells(m, a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Exact cells of NumericalSVT on the pair (a, b): its codes are those of sparse vector
    variant 1 with ε' = 2ε/3 and the same cutoff (ρ ~ Lap(3Δ/ε) = Lap(Δ/(ε'/2)), ν ~ Lap(6cΔ/ε)
    = Lap(2cΔ/(ε'/2))), whose pattern law ``SparseVector.output_distribution`` integrates, and
    given the pattern the released values q_i + η_i, η_i ~ Lap(3cΔ/ε), are independent of it
    and of each other; so a cell is (pattern, lattice cell of the summed log-likelihood ratios
    of the released values, ``laplace_llr_sum_cells``), with probability P(pattern)·P(cell)."""
    from ltheory.privacy.mechanisms import SparseVector

    codes = SparseVector(2 * m.epsilon / 3, 1, threshold=m.threshold, c=m.c,
                         sensitivity=m.sensitivity)
    da, db = codes.output_distribution(a), codes.output_distribution(b)
    keys = sorted(set(da) | set(db))
    eta = 3 * m.c * m.sensitivity / m.epsilon
    out0, out1 = [], []
    for pat in keys:
        shifts = [float(b[i]) - float(a[i]) for i, c in enumerate(pat) if c == 1]
        c0, c1 = laplace_llr_sum_cells(shifts, eta)
        out0.append(da.get(pat, 0.0) * c0)
        out1.append(db.get(pat, 0.0) * c1)
    return np.concatenate(out0), np.concatenate(out1)


def svt34_parallel_llr(m, a: tuple, b: tuple):
    """The exact log-likelihood ratio log p_a/p_b of SVT34Parallel's outputs (SVT3 with c = 2
    and SVT4 with c = 2 on independent noise: the sum of the parts' ratios): a function of the
    sampled rows [SVT3 codes, SVT3 values, SVT4 codes]."""
    svt3, svt4 = m.parts
    d3a, d3b = SVT3CutoffDensity(svt3, a), SVT3CutoffDensity(svt3, b)
    p4a, p4b = svt4.output_distribution(a), svt4.output_distribution(b)
    k = len(a)

    def llr(x: np.ndarray) -> np.ndarray:
        codes3, values3, codes4 = x[:, :k], x[:, k:2 * k], x[:, 2 * k:3 * k].astype(int)
        l3 = d3a.log_density(codes3, values3) - d3b.log_density(codes3, values3)
        l4 = np.array([math.log(p4a.get(tuple(r), 0.0) or 1e-320)
                       - math.log(p4b.get(tuple(r), 0.0) or 1e-320) for r in codes4])
        return l3 + l4

    return llr


def estimated_ceiling(m, a: tuple, b: tuple, llr, ns: list[float], samples: int = 2_000_000,
                      boots: int = 20, bins: int = 4000, seed: int = 0,
                      boot_ns: list[float] | None = None) -> dict:
    """A Monte Carlo estimate of the certification ceiling, with a bootstrap interval, for a
    pair whose output law is not tabulated but whose log-likelihood ratio L = log p_a/p_b is
    exact at every output (``llr``).  The Neyman–Pearson events are the level sets of L: from
    ``samples`` outputs under a, cells are quantile bins of L with P_a(bin) their frequency and
    P_b(bin) = E_a[e^{−L}; bin] (exact identity, so only P_a is sampled; the outputs with
    p_b = 0 are one extra cell, and the mass P_b puts where p_a = 0 is seen by the other pass),
    and symmetrically from outputs under b; the ceiling is
    ``certification_ceiling`` of each side's cells, the larger of the two.  The bootstrap
    resamples the outputs (Poisson weights) ``boots`` times: the 2.5%–97.5% range is reported
    with the point estimate, for the runs ``boot_ns`` (default: all of ``ns``)."""
    rng = np.random.default_rng(seed)
    sides = []
    for first in (a, b):
        x = m.sample(first, samples, rng)
        lv = llr(x) if first is a else -llr(x)          # log p_first / p_second
        sides.append(lv)

    def ceil_from(lvs: list[np.ndarray], weights: list[np.ndarray], ns: list[float]
                  ) -> list[float]:
        out = []
        for n in ns:
            best = -math.inf
            for lv, w in zip(lvs, weights, strict=True):
                fin = np.isfinite(lv)
                edges = np.unique(np.quantile(lv[fin], np.linspace(0, 1, bins + 1)))
                idx = np.clip(np.searchsorted(edges, lv[fin], side="right") - 1, 0,
                              edges.size - 2)
                wf = w[fin]
                tot = w.sum()
                p_first = np.bincount(idx, weights=wf, minlength=edges.size - 1) / tot
                p_second = np.bincount(idx, weights=wf * np.exp(-lv[fin]),
                                       minlength=edges.size - 1) / tot
                inf_first = w[lv == np.inf].sum() / tot           # outputs impossible on second
                p_first = np.r_[p_first, inf_first]
                # the mass second puts where p_first = 0 is not seen from first's outputs (the
                # other pass sees it): renormalised away, not left as a cell of sampling noise
                p_second = np.r_[p_second / p_second.sum(), 0.0]
                best = max(best, certification_ceiling(p_first, p_second, n, ALPHA))
            out.append(best)
        return out

    point = ceil_from(sides, [np.ones_like(s) for s in sides], ns)
    bns = list(ns if boot_ns is None else boot_ns)
    reps = np.array([ceil_from(sides, [rng.poisson(1.0, s.size).astype(float) for s in sides],
                               bns) for _ in range(boots)]) if boots and bns else None
    return {"ceiling": dict(zip(map(float, ns), point, strict=True)),
            "interval": {} if reps is None else {
                float(n): [float(np.quantile(reps[:, i], 0.025)),
                           float(np.quantile(reps[:, i], 0.975))] for i, n in enumerate(bns)},
            "samples_per_side": samples, "boots": boots, "bins": bins}


def oriented_count_cells(r: Rappor, v0: int, v1: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Distribution of the sufficient statistic (bits set only for v0 that are 1, plus bits set
    only for v1 that are 0) under v0 and v1, and the pair's exact ε."""
    q1, q0 = r.bit_probabilities()
    b0, b1 = r.bloom(v0), r.bloom(v1)
    u, w = int((b0 & ~b1).sum()), int((b1 & ~b0).sum())
    k = np.arange(u + w + 1)

    def dist(pu: float, pw: float) -> np.ndarray:     # P(bit = 1) on u-bits and on w-bits
        a = binom.pmf(np.arange(u + 1), u, pu)
        c = binom.pmf(np.arange(w + 1), w, 1 - pw)       # w-bits that are 0
        return np.convolve(a, c)[: len(k)]

    per_bit = max(math.log(q1 / q0), math.log((1 - q0) / (1 - q1)))
    return dist(q1, q0), dist(q0, q1), (u + w) * per_bit


def ceilings(only: set[str] | None = None) -> dict:
    suite = dpsniper_suite()
    out: dict[str, dict] = {}

    def want(*names: str) -> bool:
        return only is None or bool(only & set(names))

    for name in ("TruncatedGeometric", "ReportNoisyMax1", "ReportNoisyMax2", "SVT1", "SVT4"):
        if not want(name):
            continue
        t = time.perf_counter()
        m, base = suite[name]
        out[name] = finite(m, base, BUDGETS)
        out[name]["seconds"] = round(time.perf_counter() - t, 1)
    if want("SVT2"):
        t = time.perf_counter()
        out["SVT2"] = finite(SparseVector(0.1, 1, threshold=1.0, c=1), suite["SVT2"][1],
                             BUDGETS)
        out["SVT2"]["scope"] += "; SVT2 with c = 1 has SVT1's distribution at threshold 1"
        out["SVT2"]["seconds"] = round(time.perf_counter() - t, 1)
    if want("Laplace", "NoisyHist1"):
        out.update(_laplace())
    if want("ReportNoisyMax3"):
        out["ReportNoisyMax3"] = _noisy_max_value(suite)
    for name in ("Rappor", "OneTimeRappor"):
        if want(name):
            out[name] = _rappor(suite, name)
    if want("LaplaceParallel"):
        out["LaplaceParallel"] = _laplace_parallel()
    return out


def _laplace() -> dict:
    p0, p1 = laplace_cells(1.0, 10.0)
    lap = {"ceiling": {k: frontier_ceiling(p0, p1, n) for k, n in BUDGETS.items()},
           "pair": {k: "one above / one below (equivalent)" for k in BUDGETS},
           "max_exact_epsilon": 0.1, "max_exact_epsilon_pair": "one above",
           "scope": "all events, all pairs (the moved coordinate is sufficient; cells 0.01)"}
    return {"Laplace": lap, "NoisyHist1": dict(lap)}


def _noisy_max_value(suite: dict) -> dict:
    best = {k: (-math.inf, "") for k in BUDGETS}
    top = (-math.inf, "")
    for pn, a, b in _pairs(suite["ReportNoisyMax3"][1]):
        c0, c1 = noisy_max_value_cells(a, b, 20.0)
        ok = (c0 > 1e-9) & (c1 > 1e-9)     # far tails: rounding, not the ratio
        top = max(top, (float(np.max(np.abs(np.log(c0[ok]) - np.log(c1[ok])))), pn))
        for k, n in BUDGETS.items():
            best[k] = max(best[k], (frontier_ceiling(c0, c1, n), pn))
    return {"ceiling": {k: v[0] for k, v in best.items()},
            "pair": {k: v[1] for k, v in best.items()},
            "max_exact_epsilon": top[0], "max_exact_epsilon_pair": top[1],
            "scope": "all events, all pairs (maximum on a 0.05 grid)"}


def _rappor(suite: dict, name: str) -> dict:
    m, base = suite[name]
    best = {k: (-math.inf, "") for k in BUDGETS}
    top = (-math.inf, "")
    for pn, a, b in _pairs(base):
        c0, c1, e = oriented_count_cells(m, int(a[0]), int(b[0]))
        top = max(top, (e, pn))
        for k, n in BUDGETS.items():
            best[k] = max(best[k], (frontier_ceiling(c0, c1, n), pn))
    return {"ceiling": {k: v[0] for k, v in best.items()},
            "pair": {k: v[1] for k, v in best.items()},
            "max_exact_epsilon": top[0], "max_exact_epsilon_pair": top[1],
            "scope": "all events, all pairs (sufficient statistic: the oriented count of the "
                     "differing Bloom bits)"}


def _laplace_parallel() -> dict:
    q0 = 0.5 * math.exp(-0.0025)
    kk = np.arange(21)
    c0, c1 = binom.pmf(kk, 20, 1 - q0), binom.pmf(kk, 20, q0)
    return {"ceiling": {k: frontier_ceiling(c0, c1, n) for k, n in BUDGETS.items()},
            "pair": {k: "one above" for k in BUDGETS},
            "max_exact_epsilon": 0.1, "max_exact_epsilon_pair": "one above",
            "scope": "sign-count events only (not sufficient)"}


REACH_NOTE = ("How far the ceilings are from proofs: for the ceiling event, the chance that a "
              "Poisson draw of its certification counts at n = runs/2 per dataset certifies "
              "DP-Sniper's published bound (20,000 draws).")


def _best_event(cells: list, n: float) -> tuple[float, float, float]:
    best = (-np.inf, 0.0, 0.0)
    for p0, p1 in cells:
        for a, b in ((p0, p1), (p1, p0)):
            o = np.argsort(-(np.log(a + 1e-300) - np.log(b + 1e-300)))
            ca, cb = np.cumsum(a[o]), np.cumsum(b[o])
            v = certified_at_expectation(ca, cb, n)
            i = int(np.nanargmax(v))
            if v[i] > best[0]:
                best = (float(v[i]), float(ca[i]), float(cb[i]))
    return best


def reach_chance() -> None:
    """The ``--reach-chance`` part (module docstring)."""
    pub = {r["mechanism"]: r["best"] for r in
           json.loads((HERE / "data" / "dpsniper_published.json").read_text())["mechanisms"]}
    suite = dpsniper_suite()

    def finite(m, base) -> list:
        return [aligned(m.output_distribution(a), m.output_distribution(b))[1:]
                for _, a, b in _pairs(base) if m.are_neighbours(a, b)]

    rows = {name: finite(*suite[name]) for name in
            ("TruncatedGeometric", "ReportNoisyMax1", "ReportNoisyMax2", "SVT1", "SVT4")}
    rows["SVT2"] = finite(SparseVector(0.1, 1, threshold=1.0, c=1), suite["SVT2"][1])
    rows["Laplace"] = [laplace_cells(1.0, 10.0)]
    rows["ReportNoisyMax3"] = [noisy_max_value_cells(a, b, 20.0)
                               for _, a, b in _pairs(suite["ReportNoisyMax3"][1])]
    for name in ("Rappor", "OneTimeRappor"):
        m, base = suite[name]
        rows[name] = [oriented_count_cells(m, int(a[0]), int(b[0]))[:2]
                      for _, a, b in _pairs(base)]
    rng = np.random.default_rng(0)
    out = {}
    for name, cells in rows.items():
        out[name] = {}
        for runs, n in (("2e+06", 1e6), ("2e+07", 1e7)):
            c, pa, pb = _best_event(cells, n)
            ka, kb = rng.poisson(pa * n, 20_000), rng.poisson(pb * n, 20_000)
            bounds = poisson_epsilon_lower_bound(ka, kb, 0.05)
            out[name][runs] = {"ceiling_event_bound": c, "event_probabilities": [pa, pb],
                               "bound_sd": float(np.std(bounds)), "target": pub[name],
                               "chance_to_reach": float(np.mean(bounds >= pub[name]))}
            print(name, runs, out[name][runs], flush=True)
    (HERE / "results" / "dpsniper_reach_chance.json").write_text(
        json.dumps({"note": REACH_NOTE, "rows": out}, indent=1,
                   ensure_ascii=False))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=None,
                    help="recompute these mechanisms and merge into the existing results")
    ap.add_argument("--reach-chance", action="store_true",
                    help="only the chance of a lucky draw reaching DP-Sniper's numbers")
    args = ap.parse_args()
    if args.reach_chance:
        reach_chance()
        return
    pub = {r["mechanism"]: r["best"] for r in
           json.loads((HERE / "data" / "dpsniper_published.json").read_text())["mechanisms"]}
    target_file = HERE / "results" / "dpsniper_ceilings.json"
    res = ceilings(set(args.only) if args.only else None)
    for name, r in res.items():
        target = pub[name]
        r["dpsniper_best"] = target
        full = r["scope"].startswith("all events")
        r["infeasible"] = {}
        for runs, k in (("2e+06", "1e+06"), ("2e+07", "1e+07")):
            bad = full and r["ceiling"][k] < target
            why = None
            if bad and r["max_exact_epsilon"] < target:
                why = (f"no pair of the search space has ε above {target:.4f} (largest exact "
                       f"ε {r['max_exact_epsilon']:.5f}): no sound auditor certifies it "
                       "except with probability ≤ α")
            elif bad:
                why = (f"every event on every pair certifies at most {r['ceiling'][k]:.4f} < "
                       f"{target:.4f} at the expected counts of {k} runs per dataset")
            r["infeasible"][runs] = why
    if args.only and target_file.exists():
        old = json.loads(target_file.read_text()).get("mechanisms", {})
        res = {**old, **res}
    doc = __doc__.split("\n\n")
    out = {"alpha": ALPHA, "note": " ".join(doc[0].split()),
           "per_dataset_runs": {k: {name: {"ceiling": r["ceiling"][k], "pair": r["pair"][k],
                                           "scope": r["scope"]}
                                    for name, r in res.items()} for k in BUDGETS},
           "mechanisms": res}
    target_file.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    for name, r in res.items():
        print(f"{name:20s} " + " ".join(f"{k}:{v:.4f}" for k, v in r["ceiling"].items())
              + f"  maxeps {r['max_exact_epsilon']:.4f}  DP-Sniper {r['dpsniper_best']:.4f}  "
              + str({k: bool(v) for k, v in r["infeasible"].items()}))


if __name__ == "__main__":
    main()
