"""DP-SGD on a worst-case canary: the black-box auditing setting of Nasr, Song, Thakurta,
Papernot & Carlini 2021 ("Adversary instantiation"), Nasr et al. 2023 ("Tight auditing of
differentially private machine learning") and Steinke, Nasr & Jagielski 2023 ("Privacy auditing
with one (1) training run"), simulated in numpy.

T steps of DP-SGD (Abadi et al. 2016, Algorithm 1) with Poisson sampling at rate q, clipping norm
C and noise multiplier σ.  The neighbouring datasets are d0 = ``()`` (no canary) and
d1 = ``("canary",)`` (add/remove, the relation dp-accounting's accountants use by default).  The
other records are known to the adversary and their clipped gradients can be subtracted, so
only the canary's contribution matters: at each step it is included with probability q and then
adds its clipped gradient, +C in a fixed direction (the worst case: a gradient canary of norm C,
the same at every step), and the step adds noise N(0, σ²C²).  In units of C, step t releases
``x_t = B_t + σ Z_t`` with ``B_t ~ Bernoulli(q)`` under d1 and ``B_t = 0`` under d0, all
independent.

Releases (``release=``):

* ``"final"`` — the last iterate of gradient descent with learning rate 1 on a linear loss, i.e.
  the sum ``C·Σ_t x_t = C·(Binomial(T, q) + σ√T Z)`` (a scalar).  Its likelihood ratio is
  increasing in the output, so its exact profile is attained by threshold events and is computed
  exactly (``exact_claim``: mixture-of-Gaussians CDFs, the threshold found by brentq).
* ``"all"`` — every iterate.  By default (``output="llr"``) the output is the log-likelihood
  ratio of the whole vector, ``Σ_t log(1 − q + q·exp((2x_t − 1)/(2σ²)))``: a deterministic
  function of the released iterates (a post-processing: it cannot increase any hockey-stick
  divergence), and a sufficient statistic for the pair (by Neyman–Pearson every optimal test
  thresholds it, so it loses nothing either).  A scalar output is what the auditor handles best.
  ``output="iterates"`` returns the T iterates ``θ_t = C·Σ_{s ≤ t} x_s`` themselves.

Claims: ``privacy_claim`` is the profile of dp-accounting's accountant (``accountant="pld"``,
Doroshenko et al. 2022, pessimistic; or ``"rdp"``, Mironov, Talwar & Zhang 2019, read as δ(ε) by
the Canonne–Kamath–Steinke conversion) for ``SelfComposedDpEvent(PoissonSampledDpEvent(q,
GaussianDpEvent(σ)), T)``; ``m.privacy_claim(accountant="rdp")`` gives the other one.
``accountant_sigma`` accounts with another σ than the one the mechanism uses (a false claim
on purpose, a negative control). ``exact_claim`` is the exact curve where known: for ``"all"`` it
is the PLD of the subsampled Gaussian composed T times (the accountant's curve *is* the privacy
loss of this pair, up to its discretisation), and ``GDP(√T/σ)`` exactly when q = 1; for ``"final"``
it is computed exactly as above. The gap between the two is the well-known gap between auditing
the last iterate and all iterates.

Examples:
    >>> m = DPSGDCanary(q=1.0, sigma=1.0, steps=4, release="all")
    >>> m.exact_claim
    GDP(mu=2.0)
    >>> round(m.privacy_claim.epsilon_at(1e-5), 3), round(m.exact_claim.epsilon_at(1e-5), 3)
    (9.997, 9.997)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import log_ndtr, logsumexp
from scipy.stats import binom

from ltheory.errors import InvalidInputError
from ltheory.privacy.claims import GDP, PrivacyClaim, ProfileClaim
from ltheory.privacy.mechanisms.base import Dataset, Mechanism
from ltheory.validation import check_choice, check_delta, check_int

__all__ = ["CANARY", "AccountantClaim", "DPSGDCanary", "dpsgd_accountant"]

CANARY = "canary"
"""The canary record: the pair audited is d0 = ``()`` and d1 = ``(CANARY,)``."""
#: Steps per block when one run's steps are drawn in column blocks (runs of more steps than
#: this draw theirs block by block, so a run's working memory stays at 2^24 floats, 128 MiB).
STEP_BLOCK = 1 << 24
#: Draw-equivalents per chunk of runs the auditor draws at once (``audit_chunk_runs``): 2^25,
#: about a second at the ~3e7 normals/s measured on this project's machines, so a time budget
#: is read that often; runs of at most 64 steps keep the default chunk of 2^17 runs.
CHUNK_DRAWS = 1 << 25
#: Draw-equivalents per step of ``release="all"`` (a normal, then expm1 and log1p for the LLR:
#: measured 1e7 steps/s against 3e7 normals/s, so about 3; 4 for margin).
STEP_COST = 4


#: The range of σ (noise multiplier) a canary takes: σ² and the privacy loss (2x − 1)/(2σ²)
#: stay floats inside it, and dp-accounting's accountants overflow past 1e300.
SIGMA_RANGE = (1e-100, 1e100)
#: The largest PLD an accountant is asked to build (estimated cells, `pld_cells`): about a
#: minute and a gigabyte on this project's machines (σ = 0.1, T = 10 took 35 s at 1.6e6 cells;
#: σ = 0.001 asked dp-accounting for 38 GiB).
MAX_PLD_CELLS = 2e7


def pld_cells(sigma: float, steps: int, interval: float = 1e-4) -> float:
    """The size of dp-accounting's privacy-loss distribution for T steps of the subsampled
    Gaussian, estimated from measured sizes (1.0e5 cells at σ = 1, T = 10, interval 10⁻⁴;
    growing as σ^-2 and about √T): what
    [`dpsgd_accountant`][ltheory.privacy.mechanisms.dpsgd_accountant] checks before it builds
    one."""
    return 1e5 * sigma ** -2 * max(1.0, steps / 10) ** 0.5 * (1e-4 / interval)


def log_mixture_ratio(z: np.ndarray, p: float) -> np.ndarray:
    """``log(1 − p + p·e^z)`` elementwise: the privacy loss of a step that includes the canary
    with probability p, z the loss when it is included.  ``log1p(p·expm1(z))``, and
    ``z + log(p + (1 − p)e^{−z})`` where z > 30 (no overflow at any z)."""
    z = np.asarray(z, dtype=float)
    with np.errstate(over="ignore"):
        v = np.log1p(p * np.expm1(z))
    big = z > 30
    if big.any():
        v[big] = z[big] + np.log(p + (1 - p) * np.exp(-z[big]))
    return v


def _positive(value: Any, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be a finite number > 0, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(v) or v <= 0:
        raise InvalidInputError(f"{name} must be a finite number > 0, got {value!r}")
    return v


def _sigma(value: Any, name: str) -> float:
    v = _positive(value, name)
    if not SIGMA_RANGE[0] <= v <= SIGMA_RANGE[1]:
        raise InvalidInputError(f"{name} must be in [{SIGMA_RANGE[0]:g}, {SIGMA_RANGE[1]:g}], got "
                                f"{value!r}: outside it σ² or the privacy loss (2x − 1)/(2σ²) "
                                f"leave the float range")
    return v


def _rate(q: Any) -> float:
    v = _positive(q, "q")
    if v > 1:
        raise InvalidInputError(f"q (the Poisson sampling rate) must be in (0, 1], got {q!r}")
    return v


def dpsgd_accountant(q: float, sigma: float, steps: int, accountant: str = "pld", *,
                     value_discretization_interval: float = 1e-4,
                     orders: Any = None) -> Any:
    """A dp-accounting accountant (``"pld"`` or ``"rdp"``, add/remove neighbours) with
    ``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), T)`` composed."""
    check_choice(accountant, "accountant", ("pld", "rdp"))
    try:
        import dp_accounting
    except ImportError:
        raise InvalidInputError("dp-accounting is not installed: pip install dp-accounting"
                                ) from None
    sigma, steps = _sigma(sigma, "sigma"), check_int(steps, "steps", minimum=1)
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(_rate(q), dp_accounting.GaussianDpEvent(sigma)),
        steps)
    if accountant == "pld":
        interval = _positive(value_discretization_interval, "value_discretization_interval")
        cells = pld_cells(sigma, steps, interval)
        if cells > MAX_PLD_CELLS:
            raise InvalidInputError(
                f"dp-accounting's PLD accountant would build about {cells:.1e} cells for "
                f"sigma={sigma:g}, T={steps} (at most {MAX_PLD_CELLS:.0e}): use "
                f"accountant='rdp', or a value_discretization_interval of at least "
                f"{interval * cells / MAX_PLD_CELLS:.1e}")
        acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=interval)
    else:
        acc = (dp_accounting.rdp.RdpAccountant() if orders is None
               else dp_accounting.rdp.RdpAccountant(orders=list(orders)))
    acc.compose(event)
    return acc


class AccountantClaim(ProfileClaim):
    """An accountant's [`ProfileClaim`][ltheory.ProfileClaim] that can also be called
    for the claim of another accountant of the same mechanism:
    ``claim(accountant="rdp", **options)``."""

    def __init__(self, accountant: Any, other: Any, *, name: str) -> None:
        super().__init__(accountant, name=name)
        self._other = other

    def __call__(self, accountant: str = "pld", **options: Any) -> ProfileClaim:
        return self._other(accountant, **options)


class DPSGDCanary(Mechanism):
    """T steps of Poisson-subsampled DP-SGD on a worst-case canary (see
    [`ltheory.privacy.mechanisms.dpsgd`][ltheory.privacy.mechanisms.dpsgd]).

    Parameters: ``q`` sampling rate in (0, 1], ``sigma`` noise multiplier, ``steps`` T,
    ``release`` ``"final"`` | ``"all"``, ``clip`` C, ``output`` (for ``"all"``) ``"llr"`` |
    ``"iterates"``, ``accountant`` ``"pld"`` | ``"rdp"`` for ``privacy_claim``,
    ``accountant_sigma`` (default σ) and ``delta`` (the δ of the (ε, δ) ``claim``, default
    10⁻⁵)."""

    name = "dpsgd_canary"
    neighbour_relation = "add_remove"

    def __init__(self, q: float, sigma: float, steps: int, release: str = "all",
                 clip: float = 1.0, *, output: str = "llr", accountant: str = "pld",
                 accountant_sigma: float | None = None, delta: float = 1e-5) -> None:
        self.q = _rate(q)
        self.sigma = _sigma(sigma, "sigma")
        self.steps = check_int(steps, "steps", minimum=1)
        self.release = check_choice(release, "release", ("final", "all"))
        self.clip = _positive(clip, "clip")
        self.output = check_choice(output, "output", ("llr", "iterates"))
        self.accountant = check_choice(accountant, "accountant", ("pld", "rdp"))
        self.accountant_sigma = (self.sigma if accountant_sigma is None
                                 else _sigma(accountant_sigma, "accountant_sigma"))
        self.delta = check_delta(delta)
        if self.delta <= 0:
            raise InvalidInputError("delta must be in (0, 1): DP-SGD is not pure DP")
        self.sensitivity = self.clip
        self.name = (f"dpsgd_canary(q={self.q:g}, sigma={self.sigma:g}, T={self.steps}, "
                     f"{self.release})")
        self._claims: dict[Any, PrivacyClaim] = {}

    # ------------------------------------------------------------------ costs (auditor)
    @property
    def audit_draws_per_run(self) -> float:
        """The work of one run in random-draw equivalents (what a time budget is checked
        against before sampling, ``auditing.budget.check_work``): `STEP_COST` per step
        for ``"all"``, 2 for ``"final"``."""
        if self.release == "final":
            return 2.0
        return float(STEP_COST * self.steps + 1)

    @property
    def audit_output_bytes(self) -> float:
        """Bytes of one run's output: 8 for a scalar, 8·T for the iterates."""
        return 8.0 * (self.steps if self.release == "all" and self.output == "iterates" else 1)

    @property
    def audit_chunk_runs(self) -> int:
        """Runs per chunk of an audit: the default 2^17 up to 64 steps, then
        `CHUNK_DRAWS` draw-equivalents' worth (one run at least)."""
        if self.release == "final":
            return 1 << 17
        return int(min(1 << 17, max(1, CHUNK_DRAWS // (STEP_COST * self.steps))))

    @property
    def epsilon(self) -> float:  # type: ignore[override]
        """The claimed ε at ``delta`` (from ``privacy_claim``; computed on first use, since
        composing the accountant takes about a second)."""
        if "epsilon" not in self._claims:
            self._claims["epsilon"] = self.privacy_claim.epsilon_at(self.delta)
        return self._claims["epsilon"]  # type: ignore[return-value]

    @property
    def true_epsilon(self) -> float:  # type: ignore[override]
        """The exact ε at ``delta`` (from ``exact_claim``)."""
        if "true_epsilon" not in self._claims:
            self._claims["true_epsilon"] = self.exact_claim.epsilon_at(self.delta)
        return self._claims["true_epsilon"]  # type: ignore[return-value]

    # ------------------------------------------------------------------ sampling
    def _has_canary(self, dataset: Dataset) -> bool:
        try:
            records = list(dataset)
        except TypeError:
            raise InvalidInputError(f"a DP-SGD dataset is a tuple of records, () or "
                                    f"({CANARY!r},), got {dataset!r}") from None
        if any(r != CANARY for r in records) or len(records) > 1:
            raise InvalidInputError(f"a DP-SGD canary dataset is () (without the canary) or "
                                    f"({CANARY!r},) (with it), got {dataset!r}")
        return len(records) == 1

    def default_pair(self) -> tuple[Dataset, Dataset]:
        return ((), (CANARY,))

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        b = self._has_canary(dataset)
        n = check_int(n, "n", minimum=0)
        t, q, s = self.steps, self.q, self.sigma
        if self.release == "final":
            hits = rng.binomial(t, q, size=n) if b else np.zeros(n)
            return self.clip * (hits + s * math.sqrt(t) * rng.standard_normal(n))
        if t > STEP_BLOCK:
            return self._sample_long(b, n, rng)
        rows = max(1, (1 << 22) // t)
        out = np.empty(n) if self.output == "llr" else np.empty((n, t))
        for i in range(0, n, rows):
            m = min(rows, n - i)
            x = s * rng.standard_normal((m, t))
            if self.output == "iterates":
                if b:
                    x += rng.random((m, t)) < q
                out[i:i + m] = self.clip * np.cumsum(x, axis=1)
            else:
                if b:
                    # the LLR is a symmetric function of the steps and the steps are exchangeable,
                    # so the K ~ Binomial(T, q) inclusions may be put in the first K steps: the
                    # law of the LLR is unchanged, and no T Bernoulli draws are needed per run
                    x += np.arange(t)[None, :] < rng.binomial(t, q, size=m)[:, None]
                out[i:i + m] = self._llr_steps(x).sum(axis=1)
        return out

    def _sample_long(self, b: bool, n: int, rng: np.random.Generator) -> np.ndarray:
        """Runs of more than `STEP_BLOCK` steps, one run at a time, its steps drawn in
        blocks of STEP_BLOCK (bounded memory; the same law as `sample`: for the LLR the
        K ~ Binomial(T, q) inclusions are the first K steps, drawn before the steps)."""
        t, q, s = self.steps, self.q, self.sigma
        out = np.empty(n) if self.output == "llr" else np.empty((n, t))
        for i in range(n):
            k = int(rng.binomial(t, q)) if b and self.output == "llr" else 0
            acc = 0.0
            for c0 in range(0, t, STEP_BLOCK):
                c1 = min(t, c0 + STEP_BLOCK)
                x = s * rng.standard_normal(c1 - c0)
                if self.output == "iterates":
                    if b:
                        x += rng.random(c1 - c0) < q
                    cs = np.cumsum(x) + acc
                    out[i, c0:c1] = self.clip * cs
                    acc = float(cs[-1])
                else:
                    if b and k > c0:
                        x[: min(k, c1) - c0] += 1.0
                    acc += float(self._llr_steps(x).sum())
            if self.output == "llr":
                out[i] = acc
        return out

    def _llr_steps(self, x: np.ndarray) -> np.ndarray:
        """``log(1 − q + q·exp((2x − 1)/(2σ²)))`` per step (x in units of C), as
        ``log1p(q·expm1(a))``, with ``a + log(q + (1 − q)e^{−a})`` where a is large."""
        return log_mixture_ratio((2 * x - 1) / (2 * self.sigma ** 2), self.q)

    def log_likelihood_ratio(self, iterates: Any) -> np.ndarray:
        """The post-processing ``release="all"`` outputs by default: the log-likelihood ratio
        ``log p_{d1}/p_{d0}`` of released iterates (rows of T values ``θ_t = C Σ_{s≤t} x_s``),
        ``Σ_t log(1 − q + q·exp((2x_t − 1)/(2σ²)))`` with ``x_t = (θ_t − θ_{t−1})/C``."""
        it = np.asarray(iterates, dtype=float)
        if it.ndim == 1:
            it = it[None, :]
        if it.ndim != 2 or it.shape[1] != self.steps:
            raise InvalidInputError(f"iterates must have {self.steps} columns (one per step), "
                                    f"got shape {np.shape(iterates)}")
        x = np.diff(it / self.clip, axis=1, prepend=0.0)
        return self._llr_steps(x).sum(axis=1)

    # ------------------------------------------------------------------ claims
    def accountant_claim(self, accountant: str = "pld", **options: Any) -> ProfileClaim:
        """The profile of dp-accounting's ``accountant`` (``"pld"`` | ``"rdp"``) at
        (q, ``accountant_sigma``, T); ``options`` go to
        [`dpsgd_accountant`][ltheory.privacy.mechanisms.dpsgd_accountant]."""
        key = (accountant, tuple(sorted(options.items())))
        if key not in self._claims:
            acc = dpsgd_accountant(self.q, self.accountant_sigma, self.steps, accountant,
                                   **options)
            self._claims[key] = AccountantClaim(
                acc, self.accountant_claim, name=f"{accountant} accountant (q={self.q:g}, "
                f"sigma={self.accountant_sigma:g}, T={self.steps})")
        return self._claims[key]  # type: ignore[return-value]

    @property
    def privacy_claim(self) -> AccountantClaim:
        """The claim: the profile of the accountant chosen at construction.  It can be called
        for another accountant: ``m.privacy_claim(accountant="rdp")`` (options as in
        [`dpsgd_accountant`][ltheory.privacy.mechanisms.dpsgd_accountant])."""
        return self.accountant_claim(self.accountant)  # type: ignore[return-value]

    @property
    def exact_claim(self) -> PrivacyClaim:
        """The exact curve of the release (see
        [`ltheory.privacy.mechanisms.dpsgd`][ltheory.privacy.mechanisms.dpsgd]): ``GDP(√T/σ)`` when
        q = 1; for
        ``"all"`` the PLD of the pair (dp-accounting, discretisation 10⁻⁴, pessimistic); for
        ``"final"`` the threshold computation of
        [`final_profile`][ltheory.privacy.mechanisms.DPSGDCanary.final_profile]."""
        if self.q == 1.0:
            return GDP(math.sqrt(self.steps) / self.sigma)
        if self.release == "all":
            if self.accountant_sigma == self.sigma:
                return self.accountant_claim("pld")
            if "exact_all" not in self._claims:
                self._claims["exact_all"] = ProfileClaim(
                    dpsgd_accountant(self.q, self.sigma, self.steps, "pld"),
                    name="pld (mechanism's sigma)")
            return self._claims["exact_all"]
        if "final" not in self._claims:
            self._claims["final"] = ProfileClaim(self.final_profile, name="final iterate, exact")
        return self._claims["final"]

    def final_profile(self, epsilon: Any) -> np.ndarray:
        """The exact profile of the final sum, in units of C: P0 = N(0, s²), s = σ√T, against
        P1 = Σ_k Bin(k; T, q) N(k, s²).  The likelihood ratio P1/P0 at x,
        ``Σ_k w_k exp((2kx − k²)/(2s²))``, increases in x, so the largest hockey-stick
        divergence in each direction is attained by a threshold event {X > c} (P1 against P0)
        or {X < c} (P0 against P1) at the c where the log-ratio equals ±ε; both are computed
        from the normal CDF in log space and the larger is returned."""
        e = np.atleast_1d(np.asarray(epsilon, dtype=float)).ravel()
        t, q = self.steps, self.q
        s = self.sigma * math.sqrt(t)
        k = np.arange(0, t + 1)
        logw = binom.logpmf(k, t, q)
        keep = logw > -745
        k, logw = k[keep].astype(float), logw[keep]
        floor = float(logw[0]) if k[0] == 0 else -math.inf    # the ratio tends to w_0 at −∞

        def log_ratio(x: np.ndarray) -> np.ndarray:
            return logsumexp(logw[None, :] + (2 * k[None, :] * x[:, None] - k * k) / (2 * s * s),
                             axis=1)

        def solve(target: np.ndarray) -> np.ndarray:
            """x with log_ratio(x) = target (vectorised bisection: log_ratio increases)."""
            lo = np.full(target.shape, -10 * s - 1.0)
            hi = np.full(target.shape, 10 * s + t + 1.0)
            for _ in range(200):
                low = log_ratio(lo) > target
                high = log_ratio(hi) < target
                if not (low.any() or high.any()):
                    break
                lo = np.where(low, 2 * lo - 1, lo)
                hi = np.where(high, 2 * hi + 1, hi)
            for _ in range(100):
                mid = (lo + hi) / 2
                up = log_ratio(mid) < target
                lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
            return (lo + hi) / 2

        def tails(c: np.ndarray, sign: int) -> tuple[np.ndarray, np.ndarray]:
            """(log P1(sign·X > sign·c), log P0(sign·X > sign·c))."""
            lp1 = logsumexp(logw[None, :] + log_ndtr(-sign * (c[:, None] - k[None, :]) / s),
                            axis=1)
            return lp1, log_ndtr(-sign * c / s)

        with np.errstate(over="ignore", invalid="ignore"):
            lp1, lp0 = tails(solve(e), +1)
            d1 = np.exp(lp1) * -np.expm1(np.minimum(0.0, e + lp0 - lp1))
            side = -e > floor + 1e-12        # else P1/P0 > e^{−ε} everywhere: that side is 0
            d0 = np.zeros(e.shape)
            if side.any():
                lp1, lp0 = tails(solve(-e[side]), -1)
                d0[side] = np.exp(lp0) * -np.expm1(np.minimum(0.0, e[side] + lp1 - lp0))
        out = np.nan_to_num(np.maximum(d1, d0), nan=0.0)
        return np.clip(out, 0.0, 1.0).reshape(np.shape(epsilon))

    def __repr__(self) -> str:
        return (f"DPSGDCanary(q={self.q:g}, sigma={self.sigma:g}, steps={self.steps}, "
                f"release={self.release!r})")
