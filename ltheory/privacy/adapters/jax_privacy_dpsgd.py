"""jax-privacy's DP-SGD pipeline as an auditable mechanism (optional extra ``jax``).

What is audited: the training step jax-privacy builds, run by jax-privacy's own code — nothing
of it is re-implemented here:

* **batch selection** — ``jax_privacy.batch_selection``: ``CyclicPoissonSampling`` (Poisson
  sampling at rate q, Abadi et al. 2016; with ``cycle_length`` K > 1 the cyclic Poisson sampling
  of amplified banded matrix factorisation, Choquette-Choo et al. 2023, with the
  ``INDEPENDENT`` partition the add/remove relation needs), ``BallsInBinsSampling`` (each example
  in every K-th batch from a uniformly random bin; Chua et al. 2024) and ``FixedBatchSampling``
  (B of the n examples, without replacement within a batch, independently across batches);
* **clipping** — ``jax_privacy.clipped_grad``: per-example gradients clipped to L2 norm C and
  summed; examples not in the batch are passed as padding (``is_padding_example``), the
  library's own mechanism for variable batch sizes;
* **noise** — ``jax_privacy.noise_addition``: ``gaussian_privatizer`` (independent
  N(0, σ²C²) per step and coordinate) or ``matrix_factorization_privatizer`` with the noising
  matrix C⁻¹ of a banded Toeplitz strategy C (``matrix_factorization.toeplitz``: jax-privacy's
  optimal max-error Toeplitz coefficients cut to ``bands`` bands, columns normalised to norm 1,
  ``inverse_as_streaming_matrix``), i.e. correlated noise C⁻¹Z (DP-MF: Denisov, McMahan, Rush,
  Smith & Thakurta 2022; Choquette-Choo, McMahan, Rush & Thakurta 2023), chained with
  ``optax.sgd`` as jax-privacy's documentation shows.

The model is a linear model θ ∈ R^d (d = 4) trained on the linear loss ℓ(θ; x) = −⟨θ, x⟩, whose
per-example gradient is the constant −x whatever θ: the **gradient canary** of Nasr et al. 2023
("Tight auditing of differentially private machine learning").  The canary x_c = −G·e₀ with
G = 10C > C (clipped to C·e₀ by ``clipped_grad``); the other examples lie in the coordinates 1..d−1
(some above C, so clipping acts on them too), so their contribution projects to 0 on e₀ and an
adversary who knows them loses nothing by ignoring them.  Datasets: ``()`` and ``("canary",)``
(add/remove, the relation jax-privacy's accountant assumes for Poisson sampling and balls-in-bins);
for ``batch_selection="fixed"`` the accountant assumes replace-one, and the pair is
``("counter",)`` / ``("canary",)``: the counter-canary's clipped gradient is −C·e₀, the worst
substitution (``neighbour_relation = "substitution"``).  The other examples are the same in both.

Observations: all iterates θ₁..θ_T (``release="all"``) or the last one (``"final"``).  The
output is one number per run, a statistic fixed in advance (so ``audit`` / ``audit_curve``
certify it soundly): in units of C and with y_t = −(θ_t − θ_{t−1})·e₀ /(lr·C), the whitened
increments w = C·y (C = I for Gaussian noise) and r = Cᵀw, the **log-likelihood ratio** of the
iterates' e₀-coordinates,

    LLR = L₊ − L₋,   L_a = log mean_j exp Σ_{s ≡ j (mod K)} ℓ_a(r_s),
    ℓ_a(r) = log(1 − p + p·exp((2a·r − a²)/(2σ²))),

(L₋ = 0 under add/remove, where the other dataset has no special record; a = −1 is the
counter-canary of fixed batches),

with p the per-slot inclusion probability (q; 1 for balls-in-bins; B/n for fixed batches) and j
the canary's group among K (1 for plain Poisson and fixed batches).  It is exact — the likelihood
ratio of the whole release, hence by Neyman–Pearson as strong as any test — whenever the
strategy's columns that one group touches do not overlap (``bands`` ≤ K), which the adapter
requires.  ``"final"`` outputs y₁ + … + y_T.

Claims (``privacy_claim``): jax-privacy's own accountant (``jax_privacy.accounting``, PLD,
add/remove, discretisation 10⁻⁴) for the configuration: ``DpsgdTrainingAccountant`` with
``SamplingMethod.POISSON`` (q = batch_size / (num_samples // K); ``cycle_length`` = K for
amplified banded MF, Choquette-Choo et al. 2023), with ``SamplingMethod.FIXED_BATCH_SIZE``
for fixed batches (it reduces to Poisson with the sensitivity doubled), and for balls-in-bins
the un-amplified single-release analysis ``SingleReleaseTrainingAccountant`` at noise
multiplier σ / sensitivity, the sensitivity from ``matrix_factorization.sensitivity``
(min-separation K).  The accountant object the library composes is kept, so the claim is the
whole profile δ(ε) (a [`ProfileClaim`][ltheory.ProfileClaim]); ``accountant_epsilon``
is the ε its ``compute_epsilon`` reports at ``delta``.  A configuration it cannot account
raises ``InvalidInputError`` naming it.

``exact_claim``: for Poisson sampling with K = 1 and Gaussian noise the release has the law of
[`DPSGDCanary`][ltheory.privacy.mechanisms.DPSGDCanary] (q, σ, T), whose exact profile is known (the
PLD of
the pair; ``GDP(√T/σ)`` at q = 1); elsewhere ``None``.

Randomness: the batch selection draws from a numpy ``Generator`` spawned from the auditor's
``rng``; the noise from ``jax.random`` keys derived from it (one key per run), so runs are a
deterministic function of the audit seed.  Runs are vectorised: the strategy runs once per chunk
on the chunk's runs laid side by side (Poisson and balls-in-bins decide every example
independently, so one call on R·n examples is R independent runs; fixed batches are drawn as
R·T independent batches), and one jitted ``jax.vmap`` over runs of a ``lax.scan`` over steps
does the training.  Computation is float32 (jax's default), as in a real pipeline; the
statistic is computed in float64 from the iterates.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.adapters._common import require
from ltheory.privacy.claims import PrivacyClaim, ProfileClaim
from ltheory.privacy.mechanisms import Dataset, Mechanism
from ltheory.validation import check_choice, check_delta, check_int, check_real

__all__ = ["CANARY", "COUNTER", "JaxPrivacyDPSGD", "jax_modules", "jax_privacy_version"]

#: the canary record (its clipped gradient is +C·e₀)
CANARY = "canary"
#: the record the canary replaces under replace-one (``batch_selection="fixed"``): −C·e₀
COUNTER = "counter"
#: parameters of the linear model
DIM = 4
#: the canary's gradient norm before clipping, in units of C
CANARY_NORM = 10.0
#: jax-privacy's own default discretisation of the PLD accountant
PLD_INTERVAL = 1e-4
#: Work per chunk of runs (steps × examples): runs per jitted call = this // (T·n), at most 2^16
CHUNK_WORK = 1 << 22


def jax_privacy_version() -> str:
    """The installed jax-privacy's version (``InvalidInputError`` naming the extra if absent)."""
    return str(require("jax_privacy").__version__)


def jax_modules() -> tuple[Any, Any, Any, Any]:
    """(jax, jax.numpy, optax, jax_privacy), imported on first use (``InvalidInputError``
    naming the extra ``jax`` if absent)."""
    jp = require("jax_privacy")
    jax = require("jax")
    return jax, require("jax.numpy"), require("optax"), jp


class JaxPrivacyDPSGD(Mechanism):
    """T steps of jax-privacy's DP-SGD on a gradient canary (see
    [`ltheory.privacy.adapters.jax_privacy_dpsgd`][ltheory.privacy.adapters.jax_privacy_dpsgd]).

    Parameters: ``q`` the Poisson sampling rate (``"poisson"``), ``sigma`` the noise multiplier
    σ, ``steps`` T; ``batch_selection`` ``"poisson"`` | ``"balls_in_bins"`` | ``"fixed"``;
    ``noise`` ``"gaussian"`` | ``"matrix_factorization"``; ``model`` ``"linear"``; ``release``
    ``"all"`` | ``"final"``; ``clip`` C; ``cycle_length`` K (cyclic Poisson, balls-in-bins;
    default 1, or ``bands`` for matrix factorisation); ``bands`` (matrix factorisation, default
    4); ``batch_size`` B and ``dataset_size`` n (fixed batches; n also sets how many examples
    the pipeline trains on, default 4 for the others); ``learning_rate``; ``delta`` the δ of
    the (ε, δ) ``claim``.

    Examples:
        >>> m = JaxPrivacyDPSGD(q=1.0, sigma=1.0, steps=1)             # doctest: +SKIP
        >>> round(m.accountant_epsilon, 3)                             # doctest: +SKIP
        4.377
    """

    model_kinds = ("linear",)

    def __init__(self, q: float | None = None, sigma: float = 1.0, steps: int = 1,
                 batch_selection: str = "poisson", noise: str = "gaussian",
                 model: str = "linear", release: str = "all", *, clip: float = 1.0,
                 cycle_length: int | None = None, bands: int | None = None,
                 batch_size: int | None = None, dataset_size: int | None = None,
                 learning_rate: float = 1.0, delta: float = 1e-5) -> None:
        self.batch_selection = check_choice(batch_selection, "batch_selection",
                                            ("poisson", "balls_in_bins", "fixed"))
        self.noise = check_choice(noise, "noise", ("gaussian", "matrix_factorization"))
        self.model = check_choice(model, "model", self.model_kinds)
        self.release = check_choice(release, "release", ("all", "final"))
        self.sigma = check_real(sigma, "sigma", 0.0, 1e6)
        self.steps = check_int(steps, "steps", minimum=1, maximum=100_000)
        self.clip = check_real(clip, "clip", 0.0, 1e6)
        self.learning_rate = check_real(learning_rate, "learning_rate", 0.0, 1e6)
        self.delta = check_delta(delta)
        if self.delta <= 0:
            raise InvalidInputError("delta must be in (0, 1): DP-SGD is not pure DP")
        if self.noise == "matrix_factorization":
            self.bands = check_int(4 if bands is None else bands, "bands", minimum=1,
                                   maximum=self.steps)
        elif bands is not None:
            raise InvalidInputError("bands applies to noise='matrix_factorization' only")
        else:
            self.bands = 1
        default_k = self.bands if self.noise == "matrix_factorization" else 1
        self.cycle_length = check_int(default_k if cycle_length is None else cycle_length,
                                      "cycle_length", minimum=1, maximum=self.steps)
        k = self.cycle_length
        if self.noise == "matrix_factorization" and not (
                self.batch_selection == "poisson" and k >= self.bands):
            raise InvalidInputError(
                f"jax-privacy's accountant cannot account matrix-factorisation noise with "
                f"batch_selection={self.batch_selection!r}, cycle_length={k}, "
                f"bands={self.bands}: it accounts banded MF only with cyclic Poisson sampling "
                f"and cycle_length >= bands (Choquette-Choo et al. 2023)")
        self._configure_sampling(q, batch_size, dataset_size)
        self.sensitivity = self.clip
        self.neighbour_relation = "substitution" if self.batch_selection == "fixed" \
            else "add_remove"
        self.name = (f"jax_privacy.dpsgd({self.batch_selection}, {self.noise}, "
                     f"q={self.q:g}, sigma={self.sigma:g}, T={self.steps}, {self.release})")
        self._cache: dict[str, Any] = {}
        self._strategy = self._strategy_matrix()

    # ------------------------------------------------------------------ configuration
    def _configure_sampling(self, q: Any, batch_size: Any, dataset_size: Any) -> None:
        sel, k = self.batch_selection, self.cycle_length
        if sel == "poisson":
            if q is None:
                raise InvalidInputError("batch_selection='poisson' needs q, the sampling rate")
            if batch_size is not None:
                raise InvalidInputError("batch_size applies to batch_selection='fixed'; Poisson "
                                        "sampling takes q")
            self.q = check_real(q, "q", 0.0, 1.0)
            self.dataset_size = check_int(4 if dataset_size is None else dataset_size,
                                          "dataset_size", minimum=2, maximum=64)
            self.batch_size = None
        elif sel == "balls_in_bins":
            if q not in (None, 1, 1.0):
                raise InvalidInputError("balls-in-bins sampling has no rate q: an example is in "
                                        "every cycle_length-th batch (leave q unset)")
            self.q = 1.0
            self.dataset_size = check_int(4 if dataset_size is None else dataset_size,
                                          "dataset_size", minimum=2, maximum=64)
            self.batch_size = None
        else:
            if q is not None:
                raise InvalidInputError("fixed batches take batch_size and dataset_size, not q")
            if k != 1:
                raise InvalidInputError("fixed batches have no cycle_length")
            self.dataset_size = check_int(10 if dataset_size is None else dataset_size,
                                          "dataset_size", minimum=2, maximum=64)
            self.batch_size = check_int(1 if batch_size is None else batch_size, "batch_size",
                                        minimum=1, maximum=self.dataset_size)
            self.q = self.batch_size / self.dataset_size

    def _strategy_matrix(self) -> np.ndarray | None:
        """The strategy matrix C (T × T, lower triangular, banded, unit columns) of matrix
        factorisation, from jax-privacy's Toeplitz coefficients; None for Gaussian noise."""
        if self.noise == "gaussian":
            return None
        _, _, _, jp = jax_modules()
        coef = np.asarray(jp.matrix_factorization.toeplitz.optimal_max_error_strategy_coefs(
            self.bands), dtype=float)[: self.bands]
        t = self.steps
        c = np.zeros((t, t))
        for i, v in enumerate(coef):
            c += v * np.eye(t, k=-i)
        return c / np.linalg.norm(c, axis=0)[None, :]

    @property
    def strategy_matrix(self) -> np.ndarray | None:
        return None if self._strategy is None else self._strategy.copy()

    # ------------------------------------------------------------------ costs (auditor)
    @property
    def audit_chunk_runs(self) -> int:
        """Runs per jitted call (the auditor draws whole chunks)."""
        return int(max(64, min(1 << 16, CHUNK_WORK // (self.steps * (self.dataset_size + 1)))))

    @property
    def audit_draws_per_run(self) -> float:
        return float((DIM + self.dataset_size) * self.steps * 4)

    # ------------------------------------------------------------------ datasets
    def _special(self, dataset: Dataset) -> str | None:
        try:
            records = tuple(dataset)
        except TypeError:
            records = None
        allowed = ((COUNTER,), (CANARY,)) if self.batch_selection == "fixed" \
            else ((), (CANARY,))
        if records not in allowed:
            raise InvalidInputError(f"a dataset of this pipeline is one of {allowed} (the "
                                    f"other training examples are fixed), got {dataset!r}")
        return records[0] if records else None

    def default_pair(self) -> tuple[Dataset, Dataset]:
        return ((COUNTER,), (CANARY,)) if self.batch_selection == "fixed" else ((), (CANARY,))

    def _features(self, special: str | None) -> np.ndarray:
        """The physical training set: slot 0 the canary / counter-canary (zeros when absent:
        it is then never selected), slots 1.. the fixed others, orthogonal to e₀."""
        x = np.zeros((self.dataset_size, DIM), dtype=np.float32)
        sign = {CANARY: -1.0, COUNTER: 1.0, None: 0.0}[special]
        x[0, 0] = sign * CANARY_NORM * self.clip      # gradient −x: +G e₀ (canary)
        for i in range(1, x.shape[0]):
            x[i, 1 + (i - 1) % (DIM - 1)] = (0.5 + 0.7 * i) * self.clip * (-1) ** i
        return x

    # ------------------------------------------------------------------ batch selection
    def _masks(self, special: str | None, runs: int, rng: np.random.Generator) -> np.ndarray:
        """(runs, T, n) booleans: example i is in run r's batch at step t, drawn by jax-privacy's
        strategy
        ([`ltheory.privacy.adapters.jax_privacy_dpsgd`][ltheory.privacy.adapters.jax_privacy_dpsgd]:
        one call for all the chunk's runs)."""
        _, _, _, jp = jax_modules()
        bs = jp.batch_selection
        t, n = self.steps, self.dataset_size
        out = np.zeros((runs, t, n), dtype=bool)
        if self.batch_selection == "fixed":
            strat = bs.FixedBatchSampling(batch_size=self.batch_size, iterations=runs * t)
            flat = out.reshape(runs * t, n)
            for i, b in enumerate(strat.batch_iterator(n, rng=rng)):
                flat[i, b] = True
            return out
        # the dataset's examples: the others (slots 1..n−1) and the canary (slot 0) if present
        slots = np.arange(n) if special is not None else np.arange(1, n)
        m = slots.size
        if self.batch_selection == "poisson":
            strat = bs.CyclicPoissonSampling(sampling_prob=self.q, iterations=t,
                                             cycle_length=self.cycle_length,
                                             partition_type=bs.PartitionType.INDEPENDENT)
        else:
            strat = bs.BallsInBinsSampling(iterations=t, cycle_length=self.cycle_length)
        for step, b in enumerate(strat.batch_iterator(runs * m, rng=rng)):
            b = np.asarray(b, dtype=np.int64)
            out[b // m, step, slots[b % m]] = True
        return out

    # ------------------------------------------------------------------ training (jax)
    def _trainer(self) -> Any:
        """The jitted, vmapped training of one chunk: (keys, masks, x) → e₀-coordinate of the
        iterates, (runs, T)."""
        if "train" in self._cache:
            return self._cache["train"]
        jax, jnp, optax, jp = jax_modules()
        sigma, clip, lr = self.sigma, self.clip, self.learning_rate
        if self.noise == "gaussian":
            def privatizer(key: Any) -> Any:
                return jp.noise_addition.gaussian_privatizer(stddev=sigma * clip, prng_key=key)
        else:
            coef = jp.matrix_factorization.toeplitz.optimal_max_error_strategy_coefs(
                self.bands)[: self.bands]
            inv = jp.matrix_factorization.toeplitz.inverse_as_streaming_matrix(
                coef, column_normalize_for_n=self.steps)

            def privatizer(key: Any) -> Any:
                return jp.noise_addition.matrix_factorization_privatizer(
                    inv, stddev=sigma * clip, prng_key=key)

        def loss(theta: Any, x: Any) -> Any:          # linear model, linear loss
            return -jnp.sum(x @ theta)

        grad = jp.clipped_grad(loss, l2_clip_norm=clip)

        def one_run(key: Any, masks: Any, x: Any) -> Any:
            opt = optax.chain(privatizer(key), optax.sgd(lr))
            theta = jnp.zeros(DIM, dtype=jnp.float32)

            def step(carry: Any, mask: Any) -> Any:
                th, st = carry
                g = grad(th, x, is_padding_example=~mask)
                upd, st = opt.update(g, st, th)
                th = optax.apply_updates(th, upd)
                return (th, st), th[0]

            _, first = jax.lax.scan(step, (theta, opt.init(theta)), masks)
            return first

        self._cache["train"] = jax.jit(jax.vmap(one_run, in_axes=(0, 0, None)))
        return self._cache["train"]

    def iterates(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, T): the e₀-coordinate of θ₁..θ_T in n runs of the pipeline on ``dataset``."""
        special = self._special(dataset)
        n = check_int(n, "n", minimum=0)
        if not isinstance(rng, np.random.Generator):
            raise InvalidInputError(f"rng must be a numpy.random.Generator, got "
                                    f"{type(rng).__name__}")
        jax, jnp, _, _ = jax_modules()
        train = self._trainer()
        x = jnp.asarray(self._features(special))
        chunk = self.audit_chunk_runs
        out = np.empty((n, self.steps))
        for i in range(0, n, chunk):
            m = min(chunk, n - i)
            masks = self._masks(special, chunk, rng)        # full chunks: one compilation
            keys = jax.random.split(jax.random.key(int(rng.integers(0, 2**63 - 1))), chunk)
            with warnings.catch_warnings():      # jax-privacy 2.0 calls optax.global_norm,
                warnings.simplefilter("ignore", DeprecationWarning)     # deprecated in optax
                first = train(keys, jnp.asarray(masks), x)
            out[i:i + m] = np.asarray(first, dtype=float)[:m]
        return out

    # ------------------------------------------------------------------ the statistic
    def increments(self, iterates: np.ndarray) -> np.ndarray:
        """y_t = −(θ_t − θ_{t−1})·e₀ /(lr·C): the canary's inclusion plus noise, in units of C."""
        it = np.asarray(iterates, dtype=float)
        return -np.diff(it, axis=1, prepend=0.0) / (self.learning_rate * self.clip)

    def slot_llr(self, r: np.ndarray, a: float) -> np.ndarray:
        """log(1 − p + p·exp((2a·r − a²)/(2σ²))) per slot, p the inclusion probability: the
        log-likelihood ratio of one increment r (in units of C) with a canary of gradient a·C
        in the slot against none."""
        p, s2 = self.q, self.sigma ** 2
        z = (2 * a * r - a * a) / (2 * s2)
        if p == 1.0:
            return z
        from ltheory.privacy.mechanisms.dpsgd import log_mixture_ratio

        return log_mixture_ratio(z, p)

    def statistic(self, iterates: np.ndarray) -> np.ndarray:
        """The output of each run (see
        [`ltheory.privacy.adapters.jax_privacy_dpsgd`][ltheory.privacy.adapters.jax_privacy_dpsgd]):
        the log-likelihood ratio of the release
        (``"all"``) or the sum of the increments (``"final"``)."""
        y = self.increments(iterates)
        if self.release == "final":
            return y.sum(axis=1)
        r = y if self._strategy is None else (y @ self._strategy.T) @ self._strategy
        k, t = self.cycle_length, self.steps
        groups = np.arange(t) % k

        def mixture(a: float) -> np.ndarray:
            per = self.slot_llr(r, a)
            sums = np.stack([per[:, groups == j].sum(axis=1) for j in range(k)], axis=1)
            top = sums.max(axis=1, keepdims=True)
            return (top + np.log(np.exp(sums - top).mean(axis=1, keepdims=True)))[:, 0]

        llr = mixture(1.0)
        if self.batch_selection == "fixed":
            llr = llr - mixture(-1.0)
        return llr

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.statistic(self.iterates(dataset, n, rng))

    # ------------------------------------------------------------------ claims
    def _dp_params(self) -> Any:
        """jax-privacy's ``DpParams`` for this configuration."""
        _, _, _, jp = jax_modules()
        acc = jp.accounting
        if self.batch_selection == "fixed":
            return acc.DpParams(noise_multipliers=self.sigma, num_samples=self.dataset_size,
                                batch_size=self.batch_size, delta=self.delta,
                                sampling_method=acc.SamplingMethod.FIXED_BATCH_SIZE)
        if self.batch_selection == "balls_in_bins":
            sens = float(jp.matrix_factorization.sensitivity.get_min_sep_sensitivity_upper_bound(
                np.eye(self.steps), min_sep=self.cycle_length))
            return acc.DpParams(noise_multipliers=self.sigma / sens,
                                num_samples=self.dataset_size, batch_size=1, delta=self.delta)
        # Poisson: the accountant takes q = batch_size / (num_samples // K) in integers: the
        # nearest ratio with a denominator up to 10^9 (relative error below 10^-15 for q ≥ 10^-3)
        frac = Fraction(self.q).limit_denominator(10**9)
        group = frac.denominator
        return acc.DpParams(noise_multipliers=self.sigma, num_samples=group * self.cycle_length,
                            batch_size=frac.numerator, delta=self.delta,
                            cycle_length=self.cycle_length if self.cycle_length > 1 else None,
                            sampling_method=acc.SamplingMethod.POISSON)

    def _account(self) -> tuple[float, Any]:
        """(ε at δ, the composed dp-accounting accountant) from jax-privacy's own training
        accountant; ``InvalidInputError`` naming the configuration when it refuses."""
        if "accounted" in self._cache:
            return self._cache["accounted"]
        _, _, _, jp = jax_modules()
        acc = jp.accounting
        params = self._dp_params()
        from ltheory.privacy.mechanisms.dpsgd import MAX_PLD_CELLS, pld_cells

        rounds = {"poisson": math.ceil(self.steps / self.cycle_length), "fixed": self.steps,
                  "balls_in_bins": 1}[self.batch_selection]
        nm = float(params.noise_multipliers) / (2.0 if self.batch_selection == "fixed" else 1.0)
        cells = pld_cells(nm, rounds, PLD_INTERVAL)
        if cells > MAX_PLD_CELLS:
            raise InvalidInputError(
                f"jax-privacy's PLD accountant would build about {cells:.1e} cells for "
                f"{self.name} (noise multiplier {nm:g} over {rounds} rounds; at most "
                f"{MAX_PLD_CELLS:.0e}): use a larger sigma")
        made: list[Any] = []

        class _Keep(acc.PldAccountantConfig):          # the accountant the library composes
            def create_accountant(self) -> Any:         # noqa: D102
                a = acc.PldAccountantConfig.create_accountant(self)
                made.append(a)
                return a

        config = _Keep(value_discretization_interval=PLD_INTERVAL)
        training = (acc.SingleReleaseTrainingAccountant(config)
                    if self.batch_selection == "balls_in_bins"
                    else acc.DpsgdTrainingAccountant(config))
        try:
            eps = float(training.compute_epsilon(self.steps, params))
        except (ValueError, AssertionError, NotImplementedError) as e:
            raise InvalidInputError(f"jax-privacy's accountant cannot account {self.name}: "
                                    f"{e}") from None
        if not made or not math.isfinite(eps):
            raise InvalidInputError(f"jax-privacy's accountant gave no finite epsilon for "
                                    f"{self.name}")
        self._cache["accounted"] = (eps, made[-1])
        return self._cache["accounted"]

    @property
    def accountant_name(self) -> str:
        return {"poisson": "DpsgdTrainingAccountant(POISSON)",
                "fixed": "DpsgdTrainingAccountant(FIXED_BATCH_SIZE)",
                "balls_in_bins": "SingleReleaseTrainingAccountant"}[self.batch_selection]

    @property
    def accountant_epsilon(self) -> float:
        """The ε jax-privacy's accountant reports at ``delta`` (``compute_epsilon``)."""
        return self._account()[0]

    @property
    def epsilon(self) -> float:  # type: ignore[override]
        return self.accountant_epsilon

    @property
    def privacy_claim(self) -> ProfileClaim:
        """The profile δ(ε) of the accountant jax-privacy composed for this configuration."""
        if "claim" not in self._cache:
            self._cache["claim"] = ProfileClaim(
                self._account()[1], name=f"jax_privacy.accounting.{self.accountant_name} (PLD)")
        return self._cache["claim"]

    @property
    def exact_claim(self) -> PrivacyClaim | None:
        """The exact profile where known (see
        [`ltheory.privacy.adapters.jax_privacy_dpsgd`][ltheory.privacy.adapters.jax_privacy_dpsgd]),
        else None."""
        if self.batch_selection != "poisson" or self.noise != "gaussian" \
                or self.cycle_length != 1:
            return None
        from ltheory.privacy.mechanisms import DPSGDCanary

        return DPSGDCanary(self.q, self.sigma, self.steps, release=self.release).exact_claim

    @property
    def true_epsilon(self) -> float | None:  # type: ignore[override]
        c = self.exact_claim
        return None if c is None else c.epsilon_at(self.delta)

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict:        # jitted functions are rebuilt in each process
        d = dict(self.__dict__)
        d["_cache"] = {k: v for k, v in d["_cache"].items() if k != "train"}
        return d

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return (f"JaxPrivacyDPSGD(q={self.q:g}, sigma={self.sigma:g}, steps={self.steps}, "
                f"batch_selection={self.batch_selection!r}, noise={self.noise!r}, "
                f"release={self.release!r})")
