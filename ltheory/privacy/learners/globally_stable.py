"""Bun, Livni & Moran's private learner for Littlestone classes via global stability.

Bun, Livni & Moran, "An Equivalence Between Private Classification and Online Prediction"
(FOCS 2020; seed 002, §4.1–4.2):

* **Global stability** (Definition 2): A is (n, η)-globally stable w.r.t. D if some hypothesis h
  has P_{S~D^n}[A(S) = h] >= η.
* **The SOA tournament** — the distributions D̃_k (seed 002, "The Distributions D̃_k"): D̃_0 is
  the empty sample; a draw from D̃_k draws S_0, S_1 ~ D̃_{k−1} and T_0, T_1 ~ D^n, lets
  f_b = SOA(S_b∘T_b), repeats while f_0 = f_1, then picks x with f_0(x) ≠ f_1(x) and y uniform,
  and outputs S_b∘T_b∘(x, y) for the b with f_b(x) ≠ y (a forced mistake).  If more than N
  examples of D are drawn in all, the process outputs "Fail".
* **Algorithm G** (seed 002, Figure 2): n = ⌈2^{d+2}/α⌉, N = 2^{2^{d+2}+1}·4^{d+1}·n, draw
  k ∈ {0, …, d} uniformly and output SOA(S∘T), S ~ D̃_k, T ~ D^n; some f with loss_D(f) < α has
  P[G = f] > 2^{−2^{d+2}}/(d+1).
* **Stable histograms** (seed 002, Theorem 4; Korolova et al. 2009, Bun, Nissim & Vadhan 2016):
  for n >= O(log(1/(ηβδ))/(ηε)) an (ε, δ)-DP algorithm lists every element of frequency >= η,
  with estimates within η.  [`StableHistogram`][ltheory.privacy.learners.StableHistogram] wraps
  [`ltheory.privacy.mechanisms.StableHistogram`][ltheory.privacy.mechanisms.StableHistogram]
  (Lap(2/ε) on non-empty cells, release
  cells >= τ = 1 + 2 ln(2/δ)/ε).
* **The private learner** (seed 002 §4.2 and Theorem 1): run G on k disjoint batches, release the
  frequent outputs with the stable histogram, and pick one of them with the exponential mechanism
  (ε-DP, score = errors) on fresh examples.  A record lies in one batch or in the fresh part, so
  the learner is (ε, δ)-DP (Theorem 1 states (ε, δ)-DP for ε, δ ∈ (0, 1), α, β ∈ (0, 1/2), with
  n = (2^{Õ(2^d)} + log 1/(βδ))/(αε) examples).

Here "drawing from D" means taking the next unused example of the batch (the batch is i.i.d. from
D), SOA(S) is the hypothesis x ↦ SOA's prediction after the sequence S (it depends only on the
version space of S; on an empty version space SOA predicts 0), and "Fail" is returned as the string
``"⊥"`` (never released by the histogram).  The theory's N is astronomically large (655 360 per
batch for d = 1, α = 0.1): ``batch_size`` sets the per-batch budget used in practice, and
[`theory_sample_sizes`][ltheory.privacy.learners.GloballyStableLearner.theory_sample_sizes] reports
the theory's numbers.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.soa import StandardOptimalAlgorithm
from ltheory.errors import InvalidInputError, UnrealizableSampleWarning
from ltheory.privacy.learners.base import (
    LearnerAuditCase,
    PrivacyClaim,
    PrivateLearner,
    check_dataset,
)
from ltheory.privacy.mechanisms import ExponentialMechanism
from ltheory.privacy.mechanisms import StableHistogram as _StableHistogramMechanism

__all__ = ["AUDIT_CASES", "FAIL", "GloballyStableLearner", "StableHistogram", "Tournament",
           "UnrealizableSampleWarning"]

SOURCE = ("Bun, Livni & Moran 2020, 'An Equivalence Between Private Classification and Online "
          "Prediction'")
FAIL = "⊥"




def _check_eps_delta(epsilon: Any, delta: Any) -> tuple[float, float]:
    try:
        eps, dl = float(epsilon), float(delta)
    except (TypeError, ValueError):
        raise InvalidInputError("epsilon and delta must be numbers") from None
    if not (math.isfinite(eps) and eps > 0):
        raise InvalidInputError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    if not (0 < dl < 1):
        raise InvalidInputError(f"delta must be in (0, 1) (stable histograms need delta > 0), "
                                f"got {delta!r}")
    return eps, dl


# --------------------------------------------------------------------------- stable histogram
class StableHistogram(PrivateLearner):
    """Stable histogram (seed 002, Theorem 4): on a list of hashable items, release the list L of
    items whose noisy count passes the threshold, each with an estimate of its frequency.

    Built on
    [`ltheory.privacy.mechanisms.StableHistogram`][ltheory.privacy.mechanisms.StableHistogram] over
    the distinct items present
    (empty cells are never released there, so compressing to the present items changes nothing):
    every present item gets count + Lap(2/ε) and is released iff that is >= τ = 1 + 2 ln(2/δ)/ε;
    the estimate is the noisy count divided by the list length.  (ε, δ)-DP under substitution of
    one item.  Output: a tuple of (item, estimate) sorted by repr, or — with ``universe`` — a
    vector of estimates over the universe (0 = not released), the form the auditor bins.

    ``noise=False`` / ``threshold=False`` are the INCORRECT variants (negative controls): exact
    counts above τ (a count crossing τ is a deterministic event: ∞), or every present item
    released (a new item appears with probability 1: ∞).

    Worst case (measured, ``benchmarks/results/learners_worst_case.md``): pilot audits over
    20-item lists on the universe {0, 1}, certified on 10^6 fresh runs, give 0.49 at the claim
    (1, 10^-3).  The claim is not slack here: a substitution moves two counts by 1 under
    Lap(2/ε), ε/2 each, so the joint density ratio of the two estimates reaches e^ε; what the
    auditor certifies from samples of the continuous estimates (binned) is lower.
    """

    def __init__(self, epsilon: float, delta: float, *, universe: Sequence[Hashable] | None = None,
                 noise: bool = True, threshold: bool = True) -> None:
        self.epsilon, self.delta = _check_eps_delta(epsilon, delta)
        self.tau = _StableHistogramMechanism(self.epsilon, self.delta, bins=1).tau
        self.universe = None if universe is None else tuple(universe)
        self.noise, self.threshold = bool(noise), bool(threshold)

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, self.delta, f"{SOURCE}, stable histograms (seed 002, "
                            "Theorem 4; Bun, Nissim & Vadhan 2016)",
                            f"({self.epsilon:g}, {self.delta:g})-DP; lists every item of "
                            "frequency >= η w.p. 1-β when n >= O(log(1/(ηβδ))/(ηε))")

    def required_size(self, eta: float, beta: float) -> int:
        """The smallest list length n at which an item of frequency >= η is released with
        probability >= 1 − β (the Laplace tail P[Lap(2/ε) < −t] = e^{−εt/2}/2): n·η − t >= τ with
        t = (2/ε) ln(1/(2β))."""
        t = 2 / self.epsilon * math.log(1 / (2 * beta)) if beta < 0.5 else 0.0
        return math.ceil((self.tau + t) / eta)

    def _counts(self, dataset: Any) -> tuple[list[Hashable], np.ndarray, int]:
        try:
            items = [_key(r) for r in dataset]
        except TypeError:
            raise InvalidInputError("a stable histogram needs a sequence of hashable items") \
                from None
        if not items:
            raise InvalidInputError("the list of items is empty")
        keys = sorted(set(items), key=repr)
        index = {k: i for i, k in enumerate(keys)}
        counts = np.bincount([index[i] for i in items], minlength=len(keys)).astype(float)
        return keys, counts, len(items)

    def _noisy(self, keys: list, counts: np.ndarray, n: int, rng: np.random.Generator
               ) -> np.ndarray:
        if self.noise and self.threshold:
            bins = tuple((i, 0) for i, c in enumerate(counts) for _ in range(int(c)))
            return _StableHistogramMechanism(self.epsilon, self.delta, bins=len(keys)).sample(
                bins, n, rng)
        if not self.noise:
            return np.where(counts >= self.tau, counts, 0.0)[None, :].repeat(n, axis=0)
        return counts[None, :] + rng.laplace(0, 2.0 / self.epsilon, (n, len(keys)))

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> Any:
        keys, counts, size = self._counts(dataset)
        noisy = self._noisy(keys, counts, n, rng)
        if self.universe is not None:
            pos = {_key(u): j for j, u in enumerate(self.universe)}
            out = np.zeros((n, len(self.universe)))
            for i, k in enumerate(keys):
                if k not in pos:
                    raise InvalidInputError(f"item {k!r} is not in the universe")
                out[:, pos[k]] = noisy[:, i] / size
            return out
        return [tuple((k, float(v) / size) for k, v in zip(keys, row, strict=True) if v != 0)
                for row in noisy]

    def fit(self, dataset: Any, rng: np.random.Generator) -> Any:
        return self.sample(dataset, 1, rng)[0]

    def record_space(self) -> tuple | None:
        """The universe's items when one is given (else None: pass ``records=``)."""
        return self.universe


def _key(r: Any) -> Hashable:
    if isinstance(r, np.ndarray):
        return tuple(r.ravel().tolist())
    if isinstance(r, list):
        return tuple(_key(x) for x in r)
    if isinstance(r, np.generic):
        return r.item()
    hash(r)
    return r


# --------------------------------------------------------------------------- the tournament
class _Fail(Exception):
    pass


class Tournament:
    """Algorithm G over a finite class, version spaces as Python-int bitsets."""

    def __init__(self, hclass: HypothesisClass, ldim: int, aux_size: int) -> None:
        self.H = hclass
        self.d = ldim
        self.n = aux_size
        self.soa = StandardOptimalAlgorithm(hclass)
        self.full = (1 << len(hclass)) - 1
        self.cols = hclass.column_bitsets()
        self.m = hclass.domain_size
        self._cache: dict[int, str] = {}

    def soa_hypothesis(self, V: int) -> str:
        """SOA(S) for a sample S with version space V: x ↦ SOA's prediction on x."""
        h = self._cache.get(V)
        if h is None:
            self.soa.version_space_bits = V
            h = "".join(str(self.soa.predict(x)) for x in range(self.m))
            self._cache[V] = h
        return h

    def restrict(self, V: int, x: int, y: int) -> int:
        return V & self.cols[x] if y else V & (self.full ^ self.cols[x])

    def run(self, xs: Sequence[int], ys: Sequence[int], rng: np.random.Generator) -> str:
        """One run of G on a batch (the batch is the supply of draws from D; budget = its
        length N)."""
        pos = [0]
        N = len(xs)

        def draw() -> int:                    # T ~ D^n, as a version space
            if pos[0] + self.n > N:
                raise _Fail
            V = self.full
            for i in range(pos[0], pos[0] + self.n):
                V = self.restrict(V, xs[i], ys[i])
            pos[0] += self.n
            return V

        def tilde(k: int) -> int:             # S ~ D̃_k, as a version space
            if k == 0:
                return self.full
            while True:
                s0, s1 = tilde(k - 1), tilde(k - 1)
                v0, v1 = s0 & draw(), s1 & draw()
                f0, f1 = self.soa_hypothesis(v0), self.soa_hypothesis(v1)
                if f0 != f1:
                    break
            diff = [x for x in range(self.m) if f0[x] != f1[x]]
            x = diff[int(rng.integers(len(diff)))]
            y = int(rng.integers(2))
            return self.restrict(v0 if int(f0[x]) != y else v1, x, y)

        k = int(rng.integers(self.d + 1))
        try:
            return self.soa_hypothesis(tilde(k) & draw())
        except _Fail:
            return FAIL


# --------------------------------------------------------------------------- the learner
class GloballyStableLearner(PrivateLearner):
    """The (ε, δ)-DP learner of Bun, Livni & Moran 2020 (seed 002 §4.2, Theorem 1) for a finite
    class of Littlestone dimension d <= ``max_ldim`` (default 2, where the tournament terminates
    at usable sizes).

    Input layout: the first ``batches·batch_size`` records are the k = ``batches`` batches, each
    the supply of one run of Algorithm G; the rest (``fresh_size`` records are used) feed the
    exponential mechanism (ε, score = errors) over the released list.  If nothing is released
    the output is ``"⊥"``; with no fresh records the choice is uniform over the list.
    Parameters: ``aux_size`` (n of Figure 2; default ⌈2^{d+2}/α⌉), ``batch_size`` (the budget N
    per run of G; default 4^{d+1}·n, the theory's N without its 2^{2^{d+2}+1} factor),
    ``batches`` (default: the histogram's ``required_size`` for η = 1/(2(d+1)) and β).

    Theorem 1 needs ε, δ ∈ (0, 1) and α, β ∈ (0, 1/2): values outside warn (privacy (ε, δ)
    still holds for any ε > 0, δ ∈ (0, 1)).  Realizable samples only (the accuracy guarantee):
    an unrealizable one warns
    ([`UnrealizableSampleWarning`][ltheory.errors.UnrealizableSampleWarning]) and the learner still
    runs.
    ``histogram`` builds the stable histogram (tests pass a broken one as a negative control).

    Worst case (measured, ``benchmarks/results/learners_worst_case.md``; pilot audits, no exact
    distribution): on the audit configuration (points n=3, (ε, δ) = (0.9, 0.3), 16 batches of 8)
    no pair found certifies a positive bound.  At δ = 0.3 an event certifies only if its
    probability under one dataset exceeds 0.3 + e^ε times the other; a changed record moves one
    batch's output, i.e. two counts of the stable histogram by 1, and a count moved by 1 under
    Lap(2/ε) changes its release probability by at most 1 − e^{−ε/4} ≈ 0.2 — the output
    distributions of neighbours are too close for δ = 0.3 to leave a certifiable ε.  A search
    bound, not the exact ε.
    """

    def __init__(self, hclass: HypothesisClass, epsilon: float = 0.5, delta: float = 1e-3, *,
                 alpha: float = 0.1, beta: float = 0.1, aux_size: int | None = None,
                 batch_size: int | None = None, batches: int | None = None,
                 fresh_size: int | None = None, max_ldim: int = 2,
                 histogram: Any = None) -> None:
        if not isinstance(hclass, HypothesisClass) or len(hclass) == 0:
            raise InvalidInputError("hclass must be a non-empty HypothesisClass")
        self.hclass = hclass
        self.epsilon, self.delta = _check_eps_delta(epsilon, delta)
        self.alpha, self.beta = float(alpha), float(beta)
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise InvalidInputError(f"alpha and beta must be in (0, 1), got {alpha!r}, {beta!r}")
        if not (self.epsilon < 1 and self.alpha < 0.5 and self.beta < 0.5):
            warnings.warn("Theorem 1 (Bun, Livni & Moran) is stated for epsilon, delta in (0, 1)"
                          f" and alpha, beta in (0, 1/2); got epsilon={self.epsilon:g}, alpha="
                          f"{self.alpha:g}, beta={self.beta:g} (privacy still holds; the "
                          "accuracy guarantee does not)", stacklevel=2)
        self.ldim = int(StandardOptimalAlgorithm(hclass).current_ldim())   # exact Ldim(H)
        if self.ldim > max_ldim:
            raise InvalidInputError(f"Ldim(H) = {self.ldim} > max_ldim = {max_ldim}: the SOA "
                                    "tournament needs 2^(2^(d+2)) examples and does not terminate"
                                    " at usable sizes; pass max_ldim to insist")
        d = max(self.ldim, 0)
        self.aux_size = _pos_int(aux_size, "aux_size", math.ceil(2 ** (d + 2) / self.alpha))
        self.batch_size = _pos_int(batch_size, "batch_size", 4 ** (d + 1) * self.aux_size)
        self.histogram = (StableHistogram(self.epsilon, self.delta) if histogram is None
                          else histogram)
        default_k = StableHistogram(self.epsilon, self.delta).required_size(
            1 / (2 * (d + 1)), self.beta)
        self.batches = _pos_int(batches, "batches", default_k)
        self.fresh_size = _pos_int(fresh_size, "fresh_size", math.ceil(
            2 / (self.alpha * self.epsilon) * math.log(2 * (d + 1) / self.beta)), allow_zero=True)
        self._tournament = Tournament(hclass, d, self.aux_size)
        self._rows = hclass.to_strings()

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, self.delta, f"{SOURCE}, Theorem 1 of seed 002 (stable "
                            "histogram + exponential mechanism on disjoint data)",
                            f"({self.epsilon:g}, {self.delta:g})-DP")

    def record_space(self) -> tuple:
        """Every (x, y): x a domain index of the class, y in {0, 1}."""
        return tuple((x, y) for x in range(self.hclass.domain_size) for y in (0, 1))

    @property
    def sample_size(self) -> int:
        """Examples this configuration reads: batches·batch_size + fresh_size."""
        return self.batches * self.batch_size + self.fresh_size

    def theory_sample_sizes(self) -> dict[str, Any]:
        """The theory's numbers at this α, β, ε, δ (seed 002, Figure 2 and Theorem 4): n, N,
        the stability η = 2^{−2^{d+2}}/(d+1), the batches k the histogram needs to list an
        η-frequent hypothesis, and the total k·N + fresh."""
        d = max(self.ldim, 0)
        n = math.ceil(2 ** (d + 2) / self.alpha)
        N = 2 ** (2 ** (d + 2) + 1) * 4 ** (d + 1) * n
        eta = 2.0 ** (-(2 ** (d + 2))) / (d + 1)
        k = StableHistogram(self.epsilon, self.delta).required_size(eta / 2, self.beta)
        return {"ldim": self.ldim, "aux_size_n": n, "budget_N": N, "stability_eta": eta,
                "batches_k": k, "fresh": self.fresh_size, "total": k * N + self.fresh_size,
                "used_total": self.sample_size}

    def _data(self, dataset: Any) -> tuple[list[int], list[int]]:
        pairs = check_dataset(dataset)
        xs = [self.hclass.point_index(x) for x, _ in pairs]
        ys = [y for _, y in pairs]
        need = self.batches * self.batch_size
        if len(xs) < need:
            raise InvalidInputError(f"this configuration needs at least {need} examples "
                                    f"({self.batches} batches of {self.batch_size}) plus "
                                    f"{self.fresh_size} fresh ones; got {len(xs)}")
        V = self._tournament.full
        for x, y in zip(xs, ys, strict=True):
            V = self._tournament.restrict(V, x, y)
            if not V:
                warnings.warn("the sample is not realizable by the class: Theorem 1's accuracy "
                              "guarantee does not apply (the learner still runs; privacy holds)",
                              UnrealizableSampleWarning, stacklevel=3)
                break
        return xs, ys

    def batch_outputs(self, dataset: Any, rng: np.random.Generator) -> list[str]:
        """Step 1: the outputs of G on the k batches (not private on their own)."""
        xs, ys = self._data(dataset)
        b = self.batch_size
        return [self._tournament.run(xs[j * b:(j + 1) * b], ys[j * b:(j + 1) * b], rng)
                for j in range(self.batches)]

    def fit(self, dataset: Any, rng: np.random.Generator) -> str:
        xs, ys = self._data(dataset)
        b, k = self.batch_size, self.batches
        outs = [self._tournament.run(xs[j * b:(j + 1) * b], ys[j * b:(j + 1) * b], rng)
                for j in range(k)]
        released = [h for h, _ in self.histogram.fit(outs, rng) if h != FAIL]
        if not released:
            return FAIL
        fresh = tuple(zip(xs[k * b:k * b + self.fresh_size], ys[k * b:k * b + self.fresh_size],
                          strict=True))
        matrix = np.array([[c == "1" for c in h] for h in released], dtype=np.int8)
        idx = ExponentialMechanism(matrix, self.epsilon).sample(fresh, 1, rng)[0]
        return released[int(idx)]


def _pos_int(v: Any, name: str, default: int, allow_zero: bool = False) -> int:
    if v is None:
        return int(default)
    if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < (0 if allow_zero
                                                                          else 1):
        raise InvalidInputError(f"{name} must be an integer >= {0 if allow_zero else 1}, "
                                f"got {v!r}")
    return int(v)


# --------------------------------------------------------------------------- audit cases
def _points3() -> HypothesisClass:
    from ltheory.catalog import family
    return family("points", n=3)


_GS_PARAMS = {"alpha": 0.25, "beta": 0.25, "aux_size": 2, "batch_size": 8, "batches": 16,
              "fresh_size": 0}
# 16 batches of 8 records labelled by the point function at 0; d1 makes the first record of
# batch 0 (1, 1), which turns that batch's output into a new hypothesis (000).
_GS_D0 = ((0, 1),) * 128
_GS_D1 = ((1, 1),) + ((0, 1),) * 127
_SH_D0 = (0,) * 20
_SH_D1 = (0,) * 19 + (1,)

AUDIT_CASES: list[LearnerAuditCase] = [
    LearnerAuditCase(
        name="StableHistogram/eps1-delta1e-3",
        make=lambda: StableHistogram(1.0, 1e-3, universe=(0, 1)),
        d0=_SH_D0, d1=_SH_D1, runs=40_000,
        setting="ε = 1, δ = 1e-3 (τ ≈ 16.2), 20 items; d1 puts one item in a new cell",
        broken=lambda: StableHistogram(1.0, 1e-3, universe=(0, 1), threshold=False),
        broken_note="no threshold: the new cell is always released (ε = ∞)"),
    LearnerAuditCase(
        name="GloballyStableLearner/points3",
        make=lambda: GloballyStableLearner(_points3(), 0.9, 0.3, **_GS_PARAMS),
        d0=_GS_D0, d1=_GS_D1, runs=6_000,
        setting="points n=3 (Ldim 1), ε = 0.9, δ = 0.3 (τ ≈ 5.2), 16 batches of 8, n = 2, no fresh "
                "examples (uniform choice over the released list)",
        broken=lambda: GloballyStableLearner(
            _points3(), 0.9, 0.3, histogram=StableHistogram(0.9, 0.3, threshold=False),
            **_GS_PARAMS),
        broken_note="stable histogram without its threshold: the one batch whose output "
                    "changed is released"),
]
