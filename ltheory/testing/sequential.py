"""Anytime-valid tests of a differential-privacy claim from a stream of paired runs.

The claim "M is (ε, δ)-DP at the neighbouring pair (d0, d1)" means: for every event E and both
orders (a, b) of the pair, ``P[M(d_a) ∈ E] ≤ e^ε · P[M(d_b) ∈ E] + δ`` (Dwork & Roth 2014,
Definition 2.4).  Runs arrive in batches; before each batch an event E_t and an order (a, b) are
chosen from the runs already seen only (so they are *predictable*), and each new pair of runs
gives ``X = 1[M(d_a) ∈ E_t]``, ``Y = 1[M(d_b) ∈ E_t]`` with X and Y independent.  Two ways of
turning this stream into a test whose probability of *ever* rejecting a true claim, over the whole
run and whatever the stopping time, is at most α:

**Betting e-process** (``BettingEProcess``, method ``"betting"``, the default).  Let
``Z = X − u·Y − δ`` with ``u = e^ε``.  Under the claim, ``E[Z | past] ≤ 0`` for every predictable
event, so for every fixed betting fraction ``c ∈ [0, 1)`` the wealth
``K_n(c) = Π_{i ≤ n} (1 + c·Z_i/(u + δ))`` is a nonnegative supermartingale with ``K_0 = 1``
(each factor is ≥ 1 − c > 0 because Z ≥ −(u + δ)).  This is testing by betting (Shafer 2021,
"Testing by betting", JRSS-A 184(2); Waudby-Smith & Ramdas 2024, "Estimating means of bounded
random variables by betting", JRSS-B 86(1), whose confidence sequences also average the wealth
of several betting strategies).  The uniform average over a fixed grid of fractions is again a
nonnegative supermartingale, and Ville's inequality (Ville 1939) gives
``P(∃ n: mean_c K_n(c) ≥ 1/α) ≤ α``:
the test may look after every run and stop at the first crossing, and the event may change from
batch to batch.  (González, Dulce-Rubio, Ramdas & Ribero 2025, "Sequentially auditing
differential privacy", NeurIPS, audit DP with e-processes built on kernel statistics; this module
bets on events chosen by the auditor's own selection.)

*Certified bound.*  The same bets are placed for a grid of claims ε_0 = ε < ε_1 < … (each with its
own ``u_j = e^{ε_j}``).  At a time n, the bound is the largest ε_j such that every grid claim
ε_0, …, ε_j is rejected at n.  If it errs (bound ≥ the true ε*), then either ε* ≤ ε_0 and the
claim ε_0 — true — was rejected, or the smallest grid point ≥ ε* — a true claim — was rejected:
one event of probability ≤ α in either case, so the bound is a strict lower bound on the true ε
(at the claimed δ) with probability ≥ 1 − α *simultaneously for all n*, no correction needed.

**Alpha spending with Clopper–Pearson** (``spending_level``, method ``"spending"``).  At look t
the event is certified on the fresh batch t only, with one-sided Clopper–Pearson bounds (1934) on
P_a(E) and P_b(E) at level α_t/2 each, ``α_t = α·6/(π² t²)`` (Σ_t α_t = α; a union bound over looks,
the simplest alpha-spending rule; Howard, Ramdas, McAuliffe & Sekhon 2021, "Time-uniform,
nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2), discuss why such
per-look union bounds are loose).  It rejects when ``p_a,lower − e^ε p_b,upper > δ``; the
bound is ``ln((p_a,lower − δ)/p_b,upper)``.  It is kept as the baseline the betting test is
measured against (``benchmarks/bench_testing.py``).
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from ltheory.privacy.stats import clopper_pearson_lower, clopper_pearson_upper

__all__ = [
    "FIRST_SHARE",
    "FRACTIONS",
    "SPENT",
    "BettingEProcess",
    "MovingEProcess",
    "delta_grid",
    "epsilon_grid",
    "min_hits_to_reject",
    "restart_weight",
    "spending_level",
    "spending_test",
]

#: Betting fractions c (the bet is λ = c/(e^ε + δ)); the mixture is their uniform average.  Small
#: fractions for events barely above the claim, fractions near 1 for events (almost) impossible
#: under d_b, where every run in the event multiplies the wealth by about 1 + c·e^{−ε}.
FRACTIONS = (0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.85, 0.95)


def epsilon_grid(epsilon: float, top: float | None = None, ratio: float = 1.02) -> np.ndarray:
    """The claims the certified bound is read from: ε, ε·r, ε·r², … up to ``top`` (default
    max(4ε, ε + 12)), r = ``ratio``; the bound's resolution is a factor r."""
    top = max(4 * epsilon, epsilon + 12.0) if top is None else top
    m = int(math.ceil(math.log(top / epsilon) / math.log(ratio))) + 1
    return epsilon * ratio ** np.arange(m)


def _log_factors(us: np.ndarray, delta: float | np.ndarray, fractions: np.ndarray
                 ) -> np.ndarray:
    """log(1 + c·z/(u + δ)) for every (claim (u, δ), fraction c, outcome), outcome index 2x + y:
    z(0,0) = −δ, z(0,1) = −u − δ, z(1,0) = 1 − δ, z(1,1) = 1 − u − δ.  Shape (J, K, 4);
    ``delta`` is one δ for every claim or one per claim."""
    d = np.broadcast_to(np.asarray(delta, dtype=float), us.shape)
    u = us[:, None, None]
    z = np.stack([-d, -us - d, 1.0 - d, 1.0 - us - d], axis=-1)[:, None, :]
    c = fractions[None, :, None]
    return np.log1p(c * z / (u + d[:, None, None]))


def delta_grid(delta: float, ratio: float = 1.05, floor: float = 1e-10) -> np.ndarray:
    """The claims δ, max(δ, floor)·r, max(δ, floor)·r², … below 1 at one ε, from which
    `BettingEProcess.certified_delta` reads a lower bound on the hockey-stick divergence
    (resolution a factor r)."""
    start = max(float(delta), floor)
    m = int(math.floor(math.log(1.0 / start) / math.log(ratio)))
    return np.concatenate([[float(delta)], start * ratio ** np.arange(1, m + 1)])


#: The share of the initial capital the first betting strategy starts with; the rest is kept
#: for fresh starts (`BettingEProcess`, "restarts").
FIRST_SHARE = 0.8
#: A strategy whose wealth (main claim) has fallen below this fraction of its start at every
#: betting fraction is *spent*: the next fresh start begins with the following batch.  (The
#: mixture is the wrong yardstick: after a run of losses its bold fractions are worth 10^-30
#: while its timid ones keep it above any floor, and a timid fraction gains ~0.7% per run in
#: an event impossible under d_b — a strategy that can no longer win.)
SPENT = 0.1
#: The most strategies kept at once; beyond, the one worth least is dropped (``_start``).
MAX_STRATEGIES = 6


def restart_weight(t: int) -> float:
    """The capital of the t-th fresh start (t ≥ 1): (1 − FIRST_SHARE)·6/(π² t²), which sum to
    1 − FIRST_SHARE over t."""
    return (1.0 - FIRST_SHARE) * 6.0 / (math.pi ** 2 * t ** 2)


class BettingEProcess:
    """The mixture wealth of the betting test (see
    [`ltheory.testing.sequential`][ltheory.testing.sequential]) for every claim of a grid.

    ``log_wealth[s, j, k]`` is log K_n(c_k) of strategy s for claim j: (ε_j, δ) — or (ε_j, δ_j)
    when ``delta`` is an array, one δ per claim (a grid of δ at one ε: `delta_grid`).

    **Restarts.**  Bets on events chosen from past runs can lose: a test of a tight claim
    bets on chance winners, and its wealth may fall by 10^15 before the event that leaks (a
    far point one run in 10^4 visits) is found — after which no fraction can climb back to
    1/α.  So the capital is split: strategy 1 starts with `FIRST_SHARE`, and whenever
    the newest strategy's wealth has fallen below `SPENT` of its start at every fraction
    (or, at a new choice of event, `restart_if_lost`, its mixture is below its start),
    a fresh
    strategy starts at the next batch with capital `restart_weight` (t) (the t-th
    restart); capital not yet started counts at face value.  Each strategy is a nonnegative
    supermartingale from its start (its capital, constant, before), the start times are
    predictable (decided on past runs), and the capitals sum to at most 1, so the total
    ``e_value`` is a nonnegative supermartingale starting at 1 and Ville's inequality bounds
    the probability that it ever reaches 1/α by α, as before.  A test that never loses pays
    1/FIRST_SHARE in its threshold (log10 1.25 ≈ 0.1 of the 6 decades at 10^-6).

    Updates are by outcome counts (the product does not depend on the order within a batch);
    ``first_crossing`` scans a batch run by run for the first time the main claim (j = 0) crosses
    1/α, so a test can stop in the middle of a batch."""

    def __init__(self, epsilons: np.ndarray, delta: float | np.ndarray, alpha: float,
                 fractions: tuple[float, ...] = FRACTIONS) -> None:
        self.epsilons = np.asarray(epsilons, dtype=float)
        self.deltas = np.broadcast_to(np.asarray(delta, dtype=float), self.epsilons.shape)
        self.delta = float(self.deltas[0])
        self.alpha = float(alpha)
        self.fractions = np.asarray(fractions, dtype=float)
        self.logf = _log_factors(np.exp(self.epsilons), self.deltas, self.fractions)
        self.log_wealth = np.zeros((1, len(self.epsilons), len(self.fractions)))
        self.log_capital = np.array([math.log(FIRST_SHARE)])
        self.restarts = 0
        self.pairs = 0

    @property
    def unstarted(self) -> float:
        """Capital kept for fresh starts not yet made."""
        return max((1.0 - FIRST_SHARE) - sum(restart_weight(t)
                                             for t in range(1, self.restarts + 1)), 0.0)

    # -- the mixture, in log scale: log mean_k exp(w_k) ------------------------------------
    def _log_mix(self, w: np.ndarray) -> np.ndarray:
        m = np.max(w, axis=-1, keepdims=True)
        return (m[..., 0] + np.log(np.sum(np.exp(w - m), axis=-1)) - math.log(w.shape[-1]))

    def _log_total(self, mixes: np.ndarray) -> np.ndarray:
        """log(Σ_s capital_s·mix_s + unstarted) from per-strategy log mixtures (last axis s)."""
        w = mixes + self.log_capital
        extra = self.unstarted
        if extra > 0:
            w = np.concatenate([w, np.full(w.shape[:-1] + (1,), math.log(extra))], axis=-1)
        m = np.max(w, axis=-1, keepdims=True)
        return m[..., 0] + np.log(np.sum(np.exp(w - m), axis=-1))

    def log_e_values(self) -> np.ndarray:
        """log of the e-value of every grid claim (all strategies,
        [`ltheory.testing.sequential`][ltheory.testing.sequential])."""
        return self._log_total(np.moveaxis(self._log_mix(self.log_wealth), 0, -1))

    def rejected(self, level: float | None = None) -> np.ndarray:
        """Which grid claims are rejected now (e-value ≥ 1/level, level α by default)."""
        lv = self.alpha if level is None else level
        return self.log_e_values() >= math.log(1.0 / lv) - 1e-12

    def update(self, counts: np.ndarray) -> None:
        """Add a batch by its outcome counts ``counts[2x + y]``; then a fresh strategy starts
        if the newest one is spent (class docstring)."""
        counts = np.asarray(counts, dtype=float)
        self.log_wealth = self.log_wealth + (self.logf @ counts)[None]
        self.pairs += int(counts.sum())
        if float(np.max(self.log_wealth[-1, 0])) < math.log(SPENT) and self.unstarted > 0:
            self._start()

    def restart_if_lost(self) -> bool:
        """At a new choice of event (the engine's reselection, decided on past runs): start a
        fresh strategy if the newest one's mixture wealth is below its start — its bold
        fractions, the ones that exploit an event impossible under d_b, were spent on the
        events it bet on before.  Returns whether it started one."""
        if self.pairs == 0 or self.unstarted <= 0:
            return False
        if float(self._log_mix(self.log_wealth[-1, 0])) >= 0.0:
            return False
        self._start()
        return True

    def _start(self) -> None:
        self.restarts += 1
        if len(self.log_capital) >= MAX_STRATEGIES:
            # drop the strategy now worth least (main claim): the e-value only decreases, so
            # it stays below a nonnegative supermartingale and Ville's bound still holds
            worth = self._log_mix(self.log_wealth[:, 0]) + self.log_capital
            keep = np.arange(len(worth)) != int(np.argmin(worth))
            self.log_wealth, self.log_capital = self.log_wealth[keep], self.log_capital[keep]
        self.log_wealth = np.concatenate([self.log_wealth,
                                          np.zeros((1,) + self.log_wealth.shape[1:])])
        self.log_capital = np.append(self.log_capital, math.log(restart_weight(self.restarts)))

    def _log_paths(self, code: np.ndarray) -> np.ndarray:
        """log e-value of the main claim after each pair of a batch of outcome codes."""
        steps = np.cumsum(self.logf[0][:, code].T, axis=0)                 # (n, K)
        path = self.log_wealth[:, 0, :][None, :, :] + steps[:, None, :]     # (n, S, K)
        return self._log_total(self._log_mix(path))

    def log_path(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """log e-value of the main claim (j = 0) after each pair of this batch, without
        updating the state."""
        code = 2 * np.asarray(x, dtype=np.int64) + np.asarray(y, dtype=np.int64)
        return self._log_paths(code)

    def certified_delta(self, level: float | None = None) -> float | None:
        """With a δ grid at one ε (`delta_grid`): the largest δ_j such that δ_0, …, δ_j
        are all rejected at ``level`` (default α), None if δ_0 is not.  As for
        `certified_bound`: the hockey-stick divergence at that ε exceeds it with
        probability ≥ 1 − level, simultaneously over time (a claim (ε, δ) true means every
        (ε, δ') with δ' ≥ δ is true)."""
        rej = self.rejected(level)
        if not rej[0]:
            return None
        stop = np.nonzero(~rej)[0]
        j = (stop[0] - 1) if stop.size else len(rej) - 1
        return float(self.deltas[j])

    def first_crossing(self, x: np.ndarray, y: np.ndarray) -> int | None:
        """The index of the first pair in this batch at which the main claim's e-value reaches
        1/α (None if it does not), *without* updating the state."""
        code = 2 * np.asarray(x, dtype=np.int64) + np.asarray(y, dtype=np.int64)
        if code.size == 0:
            return None
        base = self.log_wealth[:, 0, :]                        # (S, K)
        best_gain = np.max(self.logf[0], axis=-1)              # (K,)
        # quick exit: even all-best outcomes could not cross in this batch
        cap = base + best_gain[None, :] * code.size
        if self._log_total(self._log_mix(cap)) < math.log(1.0 / self.alpha) - 1e-12:
            return None
        hit = np.nonzero(self._log_paths(code) >= math.log(1.0 / self.alpha) - 1e-12)[0]
        return int(hit[0]) if hit.size else None

    def certified_bound(self) -> float | None:
        """The largest grid claim ε_j such that ε_0, …, ε_j are all rejected now; None if the
        main claim is not rejected ([`ltheory.testing.sequential`][ltheory.testing.sequential]:
        sound simultaneously over time)."""
        rej = self.rejected()
        if not rej[0]:
            return None
        stop = np.nonzero(~rej)[0]
        j = (stop[0] - 1) if stop.size else len(rej) - 1
        return float(self.epsilons[j])


class MovingEProcess(BettingEProcess):
    """The betting mixture wealth of one claim point whose (ε, δ) may change between batches
    (`move_to`, called with a point chosen from past runs only): each pair multiplies the wealth of
    fraction c by ``1 + c·Z/(e^{ε_t} + δ_t)``, ``Z = X − e^{ε_t}·Y − δ_t``, with the point (ε_t,
    δ_t) of its batch.  When every point it may move to is a true claim, each factor has conditional
    mean ≤ 1 given the past, so the wealth is still a nonnegative supermartingale
    (``ltheory.testing.claim_points``, [`ltheory.testing.sequential`][ltheory.testing.sequential]).
    """

    def __init__(self, epsilon: float, delta: float, alpha: float,
                 fractions: tuple[float, ...] = FRACTIONS) -> None:
        super().__init__(np.array([float(epsilon)]), float(delta), alpha, fractions)

    def move_to(self, epsilon: float, delta: float) -> None:
        """Bet on the claim (ε, δ) from the next pair on."""
        self.epsilons = np.array([float(epsilon)])
        self.deltas = np.array([float(delta)])
        self.delta = float(delta)
        self.logf = _log_factors(np.exp(self.epsilons), self.deltas, self.fractions)


def spending_level(alpha: float, look: int) -> float:
    """α_t = α·6/(π² t²) for look t ≥ 1 (Σ_t α_t = α)."""
    return alpha * 6.0 / (math.pi ** 2 * look ** 2)


def spending_test(ka: int, kb: int, n: int, epsilon: float, delta: float,
                  level: float) -> tuple[bool, float]:
    """(rejected, ε bound) of one look of the spending test: Clopper–Pearson bounds at
    level/2 each on P_a(E) (ka of n) and P_b(E) (kb of n)."""
    lo = float(clopper_pearson_lower(ka, n, level / 2))
    up = float(clopper_pearson_upper(kb, n, level / 2))
    rejected = lo - math.exp(epsilon) * up > delta
    bound = math.log((lo - delta) / up) if lo > delta and up > 0 else -math.inf
    return rejected, bound


def min_hits_to_reject(epsilon: float, delta: float, alpha: float,
                       fractions: tuple[float, ...] = FRACTIONS) -> int:
    """The fewest pairs that could make the betting test reject (ε, δ): every pair the outcome
    (x, y) = (1, 0) (an event impossible under d_b).  Fewer pairs and the test cannot fail."""
    # e^ε capped at e^700 (no overflow): past it the count is beyond 2^62 either way
    gains = _log_factors(np.array([math.exp(min(epsilon, 700.0))]), delta,
                         np.asarray(fractions))[0, :, 2]
    # the first strategy holds FIRST_SHARE of the capital, the unstarted rest counts at face value
    target = math.log((1.0 / alpha - (1.0 - FIRST_SHARE)) / FIRST_SHARE)

    def crosses(n: int) -> bool:
        w = n * gains
        m = float(np.max(w))
        return m + math.log(float(np.mean(np.exp(w - m)))) >= target - 1e-12

    hi = 1
    while not crosses(hi):
        hi *= 2
        if hi > 1 << 62:
            return hi
    return bisect.bisect_left(range(hi + 1), True, lo=hi // 2, key=crosses)
