"""Private boosted decision stumps and trees by smooth re-weighting (seed 003).

Source: V. R. Asadi, M. L. Carmosino, M. Jahanara, A. Rafiey, B. Salamatian, "Private Boosted
Decision Trees via Smooth Re-Weighting" (Journal of Privacy and Confidentiality 2023; arXiv
2201.12648).  Everything is in the paper's Boolean setting:

* a dataset is a sequence of ``(x, y)`` pairs, ``x`` a tuple/array of ``d`` features in {0, 1}
  (every example has the same arity ``d``) and ``y`` in {0, 1} (the paper's ±1 labels are
  ``2y − 1`` internally);
* neighbouring datasets differ in one pair (substitution), as in the paper (Section 2.3).

Definitions used below (paper, Section 2):

* a probability distribution μ on [n] is **κ-smooth** if μ(i) ≤ 1/(κn) for every i;
* a **measure** is a map [n] → [0, 1]; it is **κ-dense** if its total |μ| ≥ κn, and then μ/|μ|
  is κ-smooth; Γ is the (closed, convex) set of κ-dense measures;
* the **Bregman projection** of a measure μ̃ onto Γ is argmin_{μ∈Γ} KL(μ ‖ μ̃); for Γ as above it
  is μ(i) = min(1, c·μ̃(i)) with the least c ≥ 1 making |μ| ≥ κn (Barak, Hardt & Kale 2009);
* a weak learner is **(ε, δ, ζ)-DP** if for neighbouring S ~ S' and distributions μ̂, μ̂' with
  statistical distance d(μ̂, μ̂') < ζ its outputs satisfy the (ε, δ)-DP inequality;
* the **robust sensitivity** Δ_ζ of a score q_{S,μ} is the largest |q_{S,μ}(h) − q_{S',μ'}(h)| over
  such pairs; the **weighted exponential mechanism** WEM(η, q) outputs h with probability
  ∝ exp(η·q_{S,μ}(h)) and is a (2ηΔ_ζ, 0, ζ)-DP weak learner (Theorem 3); **weighted report noisy
  max** WRNM adds Lap(1/η) to each score and returns the arg max, also (2ηΔ_ζ, 0, ζ) (Theorem 4).

Learners (each a [`PrivateLearner`][ltheory.privacy.learners.PrivateLearner]):

* [`DPOneRule`][ltheory.privacy.learners.DPOneRule] — Algorithm 3 (DP-1R): WEM over the 2d + 2
one-rules (the literals x_j,
  ¬x_j and the constants) with score −err(S, μ, h); Theorem 6 (= Theorem 11): a (4ηζ, 0, ζ)-DP
  weak learner.
* [`DPTopDown`][ltheory.privacy.learners.DPTopDown] — Algorithm 2 (DP-TopDown): t splits, each a
pair (leaf, feature) chosen by
  WEM with score the Gini improvement im_{ℓ,h,μ} (G(q) = 4q(1 − q)), then leaves labelled by
  WRNM; Theorem 9: a (16tηζ, 0, ζ)-DP weak learner.
* [`LazyBB`][ltheory.privacy.learners.LazyBB] — Algorithm 1 (weighted lazy-Bregman boosting, after
Bun, Carmosino & Sorrell
  2020): τ rounds, each calling the weak learner on the normalised κ-dense measure, margins
  σ_t(i) = y_i Σ_{j≤t} h_j(x_i), μ̃_{t+1}(i) = exp(−λσ_t(i))·κ, μ_{t+1} = Π_Γ(μ̃_{t+1}); output
  the majority vote.  LazyBB furnishes ζ ≤ 1/(κn).  Privacy: Theorem 7 (with DP-1R at
  η = εκn/(4τ): ε-DP), Theorem 10 (with DP-TopDown at η = εκn/(16τt): ε-DP), and, when a
  δ > 0 is asked for, Theorem 5 (advanced composition).
* [`OneRule`][ltheory.privacy.learners.OneRule] and
[`BoostedStumps`][ltheory.privacy.learners.BoostedStumps] — non-private baselines: the best one-rule
  (Holte 1993), and AdaBoost (Freund & Schapire 1997) over one-rules.

**Output (hashable).**  ``fit(dataset, rng)`` returns the learned classifier's predictions on a
fixed finite probe set as a bit string (character k = prediction on probe point k).  The default
probe is the whole domain {0, 1}^d in lexicographic order — probe point k has feature j equal to
bit d − 1 − j of k (feature 0 is the most significant bit) — allowed for d ≤ 16; for more
features pass ``probe=`` (a fixed, data-independent array of points, so the output is a
post-processing of the model).  ``fit_model(dataset, rng)`` returns the model itself
(``.predict(X)``), used by the benchmark.

**Exact distributions.**  For small configurations every learner here enumerates its output
distribution exactly (``output_distribution``): DP-1R and DP-TopDown have finitely many random
choices with closed-form probabilities, and LazyBB's re-weighting is deterministic given the
history.  ``sample(dataset, n, rng)`` then draws from that exact distribution (the tests check it
against ``fit``), otherwise it runs ``fit`` n times.

**Randomness** only through the ``rng`` argument (a ``numpy.random.Generator``).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq

from ltheory.errors import InvalidInputError
from ltheory.privacy.learners.base import (
    LearnerAuditCase,
    PrivacyClaim,
    PrivateLearner,
    check_dataset,
)
from ltheory.privacy.mechanisms import ExponentialMechanism, ReportNoisyMax
from ltheory.validation import check_epsilon

__all__ = ["AUDIT_CASES", "BoostedStumps", "DPOneRule", "DPTopDown", "Ensemble", "LazyBB",
           "one_rule_matrix",
           "OneRule", "OneRuleModel", "TreeModel", "bregman_project", "boolean_dataset"]

SOURCE = ("Asadi, Carmosino, Jahanara, Rafiey & Salamatian, 'Private Boosted Decision Trees via "
          "Smooth Re-Weighting'")
MAX_DOMAIN_FEATURES = 16       # default probe = {0,1}^d only up to this d
MAX_EXACT_PATHS = 200_000      # enumeration budget of output_distribution


# --------------------------------------------------------------------------- input handling
def boolean_dataset(dataset: Any, n_features: int | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Validate a Boolean labelled dataset; return ``X`` (n × d, int8 in {0,1}) and ``y``
    (n, int8 in {0,1}).  Raises [`InvalidInputError`][ltheory.InvalidInputError] naming the first
    bad example."""
    pairs = check_dataset(dataset)
    rows = []
    for i, (x, _) in enumerate(pairs):
        if isinstance(x, str | bytes) or np.ndim(x) != 1:
            raise InvalidInputError(f"example {i}: features {x!r} are not a flat tuple/array of "
                                    "0/1 values")
        try:
            row = np.asarray(x)
        except (TypeError, ValueError):
            raise InvalidInputError(f"example {i}: features {x!r} are not a tuple of 0/1 "
                                    "values") from None
        if row.size == 0 or not (row.dtype == bool or np.issubdtype(row.dtype, np.number)) \
                or not np.isin(row, (0, 1)).all():
            raise InvalidInputError(f"example {i}: features {x!r} must be a non-empty tuple of "
                                    "0/1 values")
        rows.append(row.astype(np.int8))
    d = rows[0].size if n_features is None else int(n_features)
    for i, row in enumerate(rows):
        if row.size != d:
            raise InvalidInputError(f"example {i} has {row.size} features, expected {d} (every "
                                    "example must have the same arity)")
    return np.vstack(rows), np.array([y for _, y in pairs], dtype=np.int8)


def _check_open_unit(value: Any, name: str, why: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be a number in (0, 1), got {value!r}") from None
    if not 0.0 < v < 1.0:
        raise InvalidInputError(f"{name} must be in the open interval (0, 1) ({why}), got "
                                f"{value!r}")
    return v


def _check_positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InvalidInputError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def _domain(d: int) -> np.ndarray:
    """{0,1}^d in lexicographic order (feature 0 most significant), as an int8 matrix."""
    return np.array(list(itertools.product((0, 1), repeat=d)), dtype=np.int8).reshape(-1, d)


def _bits(pred: np.ndarray) -> str:
    return "".join("1" if v else "0" for v in np.asarray(pred).ravel())


def _are_neighbours(d0: Any, d1: Any) -> bool:
    """Substitution neighbours for records ``(x, y)`` with ``x`` a feature tuple."""
    try:
        a, b = list(d0), list(d1)

        def key(r: Any) -> tuple:
            x, y = r
            return (tuple(int(v) for v in np.asarray(x).ravel()), int(y))
        ka, kb = [key(r) for r in a], [key(r) for r in b]
    except (TypeError, ValueError):
        return False
    return len(ka) == len(kb) and sum(u != v for u, v in zip(ka, kb, strict=True)) == 1


# --------------------------------------------------------------------------- models
@dataclass(frozen=True)
class OneRuleModel:
    """A one-rule (decision stump, Section 4.1): index 0 = constant 0 (False), 1 = constant 1
    (True), 2 + 2j = literal x_j, 3 + 2j = literal ¬x_j."""

    index: int

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X)
        if self.index < 2:
            return np.full(X.shape[0], self.index, dtype=np.int8)
        j, neg = divmod(self.index - 2, 2)
        return (X[:, j] ^ neg).astype(np.int8)

    def describe(self) -> str:
        if self.index < 2:
            return "True" if self.index else "False"
        j, neg = divmod(self.index - 2, 2)
        return f"{'~' if neg else ''}x{j}"


def one_rule_matrix(X: np.ndarray) -> np.ndarray:
    """Predictions (2d + 2) × n of every one-rule, rows in OneRuleModel index order."""
    n, d = X.shape
    rows = [np.zeros(n, np.int8), np.ones(n, np.int8)]
    for j in range(d):
        rows += [X[:, j].astype(np.int8), (1 - X[:, j]).astype(np.int8)]
    return np.vstack(rows)


@dataclass(frozen=True)
class TreeModel:
    """A decision tree over Boolean features: ``node`` is ``("leaf", label)`` or
    ``(feature, subtree_if_0, subtree_if_1)`` (Section 4.2: x with h(x) = i goes to child i)."""

    node: tuple

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X)
        out = np.zeros(X.shape[0], dtype=np.int8)

        def walk(node: tuple, mask: np.ndarray) -> None:
            if node[0] == "leaf":
                out[mask] = node[1]
                return
            j, lo, hi = node
            walk(lo, mask & (X[:, j] == 0))
            walk(hi, mask & (X[:, j] == 1))

        walk(self.node, np.ones(X.shape[0], dtype=bool))
        return out


@dataclass(frozen=True)
class Ensemble:
    """A voting classifier: predicts 1 iff Σ_j α_j·(2h_j(x) − 1) ≥ 0 (ties → 1).  LazyBB's output
    is the unweighted majority (all α_j = 1, Algorithm 1); AdaBoost's is weighted."""

    members: tuple
    weights: tuple | None = None

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X)
        w = np.ones(len(self.members)) if self.weights is None else np.asarray(self.weights)
        s = np.zeros(X.shape[0])
        for a, h in zip(w, self.members, strict=True):
            s += a * (2.0 * h.predict(X) - 1.0)
        return (s >= 0).astype(np.int8)


# --------------------------------------------------------------------------- mechanisms
class _ScoreExponential(ExponentialMechanism):
    """WEM(η, q) (Section 2.4, Theorem 3) as the library's exponential mechanism run on a score
    vector: ``ExponentialMechanism`` selects with probability ∝ exp(ε·u/(2Δ)), so ε = 2η and
    Δ = 1 give ∝ exp(η·q).  The "dataset" passed to ``sample``/``probabilities`` is q."""

    name = "weighted_exponential"

    def __init__(self, eta: float) -> None:
        super().__init__(np.zeros((1, 1), dtype=np.int8), epsilon=2.0 * eta, sensitivity=1.0)

    def utilities(self, dataset: Any) -> np.ndarray:
        return np.asarray(dataset, dtype=float)


def _wem_probabilities(scores: np.ndarray, eta: float) -> np.ndarray:
    return _ScoreExponential(eta).probabilities(scores)


def _wem_sample(scores: np.ndarray, eta: float, rng: np.random.Generator) -> int:
    return int(_ScoreExponential(eta).sample(scores, 1, rng)[0])


def _wrnm_sample(scores: np.ndarray, eta: float, rng: np.random.Generator) -> int:
    """WRNM (Theorem 4): arg max of scores + Lap(1/η), the library's report-noisy-max
    (``ReportNoisyMax`` uses Lap(2Δ/ε); ε = 2η, Δ = 1 gives Lap(1/η))."""
    return int(ReportNoisyMax(epsilon=2.0 * eta, noise="laplace").sample(scores, 1, rng)[0])


def _wrnm_two(m0: float, m1: float, eta: float) -> tuple[float, float]:
    """(P[WRNM picks index 0], P[… index 1]) for two scores (m0, m1) with Lap(1/η) noise: the
    difference D of two iid Lap(b) has P[D > a] = e^{−a/b}(2 + a/b)/4 for a ≥ 0.  The smaller
    of the two is that tail in closed form, never 1 minus the larger (which loses every digit
    below 1e-16 and made far tails of the exact output distribution wrong)."""
    b = 1.0 / eta
    a = (m1 - m0) / b
    tail = math.exp(-abs(a)) * (2.0 + abs(a)) / 4.0
    return (tail, 1.0 - tail) if a >= 0 else (1.0 - tail, tail)


# --------------------------------------------------------------------------- projection
def bregman_project(measure: np.ndarray, kappa: float) -> np.ndarray:
    """Π_Γ(μ̃): the KL (Bregman) projection of a positive measure onto the κ-dense measures
    Γ = {μ ∈ [0,1]^n : |μ| ≥ κn}: μ(i) = min(1, c·μ̃(i)) with the least c ≥ 1 such that
    |μ| ≥ κn (Barak, Hardt & Kale 2009; Algorithm 1's last step).  The normalised result is
    κ-smooth: every weight ≤ 1/(κn)."""
    m = np.asarray(measure, dtype=float)
    n = m.size
    target = kappa * n
    capped = np.minimum(m, 1.0)
    if capped.sum() >= target:
        return capped
    order = np.sort(m)[::-1]
    suffix = np.concatenate([np.cumsum(order[::-1])[::-1], [0.0]])   # suffix[k] = Σ_{i≥k}
    for k in range(n):                          # k largest entries capped at 1
        c = (target - k) / suffix[k]
        if c * order[k] <= 1.0 + 1e-12 and (k == 0 or c * order[k - 1] >= 1.0 - 1e-12):
            return np.minimum(1.0, c * m)
    return np.ones(n)        # unreachable for kappa <= 1


def _normalise(mu: np.ndarray) -> np.ndarray:
    return mu / mu.sum()


# --------------------------------------------------------------------------- weak learners
class _WeakLearnerMixin:
    """What LazyBB needs from a weak learner: ``privacy_constant`` c (the learner at noise rate η
    is (c·η·ζ, 0, ζ)-DP), ``noise_rate(eps_round, n, kappa)``, ``weak_fit`` (one draw) and
    ``weak_distribution`` (exact, as a list of (probability, model))."""

    private: bool = True
    theorem: str = ""

    @property
    def privacy_constant(self) -> float:
        raise NotImplementedError

    def noise_rate(self, eps_round: float, n: int, kappa: float) -> float:
        """η with c·η·ζ = eps_round at the promise ζ = 1/(κn) (Theorems 7 and 10)."""
        return eps_round * kappa * n / self.privacy_constant

    def weak_fit(self, X: np.ndarray, y: np.ndarray, mu: np.ndarray, eta: float,
                 rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def weak_distribution(self, X: np.ndarray, y: np.ndarray, mu: np.ndarray,
                          eta: float) -> list[tuple[float, Any]]:
        raise NotImplementedError


class _BooleanLearner(PrivateLearner):
    """Shared plumbing: validation, probe, hashable output, exact sampling."""

    n_features: int | None = None
    probe: np.ndarray | None = None

    def _setup_probe(self, probe: Any, n_features: Any) -> None:
        if n_features is not None:
            n_features = _check_positive_int(n_features, "n_features")
        self.n_features = n_features
        if probe is None:
            self.probe = None
            return
        p = np.asarray(probe)
        if p.ndim != 2 or p.shape[0] == 0 or not np.isin(p, (0, 1)).all():
            raise InvalidInputError("probe must be a non-empty 2-D array of 0/1 points (one row "
                                    "per point)")
        if n_features is not None and p.shape[1] != n_features:
            raise InvalidInputError(f"probe points have {p.shape[1]} features, n_features is "
                                    f"{n_features}")
        self.probe = p.astype(np.int8)

    def _data(self, dataset: Any) -> tuple[np.ndarray, np.ndarray]:
        X, y = boolean_dataset(dataset, self.n_features)
        if self.probe is not None and self.probe.shape[1] != X.shape[1]:
            raise InvalidInputError(f"the examples have {X.shape[1]} features but the probe "
                                    f"points have {self.probe.shape[1]}")
        return X, y

    def _probe_for(self, d: int) -> np.ndarray:
        if self.probe is not None:
            return self.probe
        if d > MAX_DOMAIN_FEATURES:
            raise InvalidInputError(f"the default probe is the whole domain {{0,1}}^d, allowed "
                                    f"for d <= {MAX_DOMAIN_FEATURES}; with d = {d} pass probe=")
        return _domain(d)

    def are_neighbours(self, d0: Any, d1: Any) -> bool:
        return _are_neighbours(d0, d1)

    def record_space(self) -> tuple | None:
        """Every (x, y), x ∈ {0,1}^d (d = ``n_features`` or the probe's arity), y ∈ {0, 1};
        None when d is not fixed."""
        d = self.n_features if self.n_features is not None else (
            None if self.probe is None else self.probe.shape[1])
        if d is None or d > MAX_DOMAIN_FEATURES:
            return None
        return tuple((tuple(int(v) for v in x), y) for x in _domain(d) for y in (0, 1))

    # subclasses implement these two on validated arrays
    def _fit_arrays(self, X: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def _distribution_arrays(self, X: np.ndarray, y: np.ndarray) -> list[tuple[float, Any]]:
        raise NotImplementedError

    def fit_model(self, dataset: Sequence[tuple[Any, int]], rng: np.random.Generator) -> Any:
        """The learned model (``.predict(X)``), one run."""
        X, y = self._data(dataset)
        return self._fit_arrays(X, y, rng)

    def fit(self, dataset: Sequence[tuple[Any, int]], rng: np.random.Generator) -> Hashable:
        """One run; the model's predictions on the probe as a bit string (see
        [`ltheory.privacy.learners.boosting`][ltheory.privacy.learners.boosting])."""
        X, y = self._data(dataset)
        probe = self._probe_for(X.shape[1])
        return _bits(self._fit_arrays(X, y, rng).predict(probe))

    def output_distribution(self, dataset: Sequence[tuple[Any, int]]) -> dict[Hashable, float]:
        """Exact {bit string: probability}; ``NotImplementedError`` beyond the enumeration
        budget (``MAX_EXACT_PATHS`` random paths)."""
        X, y = self._data(dataset)
        probe = self._probe_for(X.shape[1])
        out: dict[Hashable, float] = {}
        for p, model in self._distribution_arrays(X, y):
            key = _bits(model.predict(probe))
            out[key] = out.get(key, 0.0) + p
        total = sum(out.values())
        return {k: v / total for k, v in out.items()}

    def sample(self, dataset: Sequence[tuple[Any, int]], n: int,
               rng: np.random.Generator) -> list[Hashable]:
        """n independent runs: drawn from the exact distribution when it is enumerable, else by
        calling ``fit`` n times."""
        try:
            dist = self.output_distribution(dataset)
        except NotImplementedError:
            return [self.fit(dataset, rng) for _ in range(n)]
        keys = list(dist)
        p = np.array([dist[k] for k in keys])
        idx = rng.choice(len(keys), size=n, p=p / p.sum())
        return [keys[i] for i in idx]


class DPOneRule(_WeakLearnerMixin, _BooleanLearner):
    """DP-1R, Algorithm 3 (Section 4.1 and Appendix, "Weak Learner: DP 1-Rules").

    ℋ = the 2d + 2 one-rules (literals x_j, ¬x_j and the constants True/False);
    err(S, μ, h) = Σ_i μ(i)·[h(x_i) ≠ y_i]; select h with probability ∝ exp(−η·err(S, μ, h))
    (the weighted exponential mechanism, reusing
    [`ExponentialMechanism`][ltheory.privacy.mechanisms.ExponentialMechanism]).

    Theorem 6 (= Theorem 11): DP-1R is a (4ηζ, 0, ζ)-DP weak learner (the score has robust
    sensitivity 2ζ, Observation 8).  Run alone (``fit``) it uses the uniform distribution, which
    is 1-smooth, i.e. ζ = 1/n, and noise rate η = εn/4, so the claim is (ε, 0).  Inside
    [`LazyBB`][ltheory.privacy.learners.LazyBB] its ``epsilon`` is not used: LazyBB sets η by
    Theorem 7.

    Worst case (measured, ``benchmarks/results/learners_worst_case.md``): at ε = 0.5, d = 2,
    n = 8 the worst neighbouring pair found has exact ε = 0.18, 0.35 of the claim; at d = 4,
    n = 200 the family ``proofs_check.privacy_claims.dp1r_half_pair`` reaches 0.49999 of it,
    and 1/2 is proved to be the ceiling.  The slack is
    in applying Theorem 6 alone: (i) the robust sensitivity 2ζ also pays for the weights μ moving
    by ζ in statistical distance, which the fixed uniform weights never do — a substitution
    moves each error rate by at most 1/n = ζ, so the mechanism is 2ηζ = ε/2-DP alone; (ii) the
    exponential mechanism's factor 2 needs the chosen rule's error to fall while every other
    rule's rises, but x_j and ¬x_j err on complementary records, so a substitution raises the
    error of at most one rule of each pair.  Inside LazyBB the weights do move and (i) is needed.
    """

    theorem = "Theorem 7"

    def __init__(self, epsilon: float = 1.0, *, probe: Any = None,
                 n_features: int | None = None) -> None:
        self.epsilon = check_epsilon(epsilon)
        self._setup_probe(probe, n_features)

    @property
    def privacy_constant(self) -> float:
        return 4.0

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, f"{SOURCE}, Theorem 6 (= Theorem 11), Algorithm 3",
                            "DP-1R is a (4ηζ, 0, ζ)-DP weak learner; alone, with the uniform "
                            f"(1-smooth) distribution, ζ = 1/n and η = εn/4: ({self.epsilon:g}, "
                            "0)-DP")

    #: True only in the deliberately broken audit variant (scores n·err, η still for err)
    _count_scores = False

    def _scores(self, X, y, mu):
        """q_{S,μ}(h) = −err(S, μ, h) for every one-rule h (Algorithm 3, line 3)."""
        q = -((one_rule_matrix(X) != y[None, :]) @ mu)
        return q * X.shape[0] if self._count_scores else q

    def weak_fit(self, X, y, mu, eta, rng):
        return OneRuleModel(_wem_sample(self._scores(X, y, mu), eta, rng))

    def weak_distribution(self, X, y, mu, eta):
        p = _wem_probabilities(self._scores(X, y, mu), eta)
        return [(float(pi), OneRuleModel(i)) for i, pi in enumerate(p) if pi > 0]

    def _fit_arrays(self, X, y, rng):
        n = X.shape[0]
        return self.weak_fit(X, y, np.full(n, 1.0 / n), self.epsilon * n / 4.0, rng)

    def _distribution_arrays(self, X, y):
        n = X.shape[0]
        return self.weak_distribution(X, y, np.full(n, 1.0 / n), self.epsilon * n / 4.0)


def _gini_mass(m0: np.ndarray, m1: np.ndarray) -> np.ndarray:
    """w(ℓ)·G(q(ℓ)) with G(q) = 4q(1 − q): 4·m0·m1/(m0 + m1) (0 on empty leaves)."""
    tot = m0 + m1
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, 4.0 * m0 * m1 / np.where(tot > 0, tot, 1.0), 0.0)


def _tree_from(splits: list[tuple[tuple, int]], labels: dict[tuple, int]) -> TreeModel:
    """Build the nested tree from the chosen (leaf path, feature) splits and leaf labels."""
    chosen = dict(splits)

    def build(path: tuple) -> tuple:
        if path in chosen:
            j = chosen[path]
            return (j, build(path + ((j, 0),)), build(path + ((j, 1),)))
        return ("leaf", labels[path])

    return TreeModel(build(()))


class DPTopDown(_WeakLearnerMixin, _BooleanLearner):
    """DP-TopDown, Algorithm 2 (Section 4.2; after Kearns & Mansour 1996).

    Splitting functions F = the d features (h(x) = x_j).  Starting from one leaf, while the tree
    has fewer than t internal nodes: choose (ℓ, h) ∈ leaves(T) × F with probability
    ∝ exp(η·im_{ℓ,h,μ}), where im_{ℓ,h,μ} = 𝒢(T, μ) − 𝒢(T(ℓ, h), μ),
    𝒢(T, μ) = Σ_ℓ w(ℓ, μ)·G(q(ℓ, μ)), G(q) = 4q(1 − q) (Gini), w(ℓ, μ) = μ-mass reaching ℓ and
    q(ℓ, μ) = fraction of it labelled 1; replace ℓ by the split.  Then label every leaf by WRNM
    over the label masses (m0, m1) at "privacy budget 8tηζ" (line 11): the masses have robust
    sensitivity 2ζ (Observation 8), so WRNM's noise rate is η_leaf = 8tηζ/(2·2ζ) = 2tη, i.e.
    Lap(1/(2tη)) noise (reusing [`ReportNoisyMax`][ltheory.privacy.mechanisms.ReportNoisyMax]).

    Theorem 9: DP-TopDown is a (16tηζ, 0, ζ)-DP weak learner (each selection (8ηζ, 0, ζ) by
    Lemma 15's robust sensitivity 4ζ; leaves by parallel composition).  Alone (``fit``): uniform
    distribution, ζ = 1/n, η = εn/(16t), claim (ε, 0).  Inside
    [`LazyBB`][ltheory.privacy.learners.LazyBB] its ``epsilon``
    is not used: LazyBB sets η by Theorem 10.

    Worst case (measured, ``benchmarks/results/learners_worst_case.md``): at ε = 1, t = 1, d = 2,
    n = 8 the worst pair found has exact ε = 0.32; a local search over the cell counts of
    {0,1}² × {0,1} at n ≤ 6,000 finds 0.532 (``proofs_check.privacy_claims.DPTOPDOWN_PAIR``).
    Proved: every pair is below 3/4 of the claim — two candidates' Gini improvements move apart
    by < 8ζ (the parent term is shared), so each selection leaks < 8ηζ, and the leaves' label
    masses move by ≤ 2ζ in total, 4tηζ for the labels (``privacy_claims.ASADI_CLAIMS_PROOF``),
    although Lemma 15's 4ζ is false (the sensitivity is 8ζ).  As for
    [`DPOneRule`][ltheory.privacy.learners.DPOneRule], the robust
    sensitivities (4ζ for the Gini improvement, Lemma 15; 2ζ for the leaf masses) pay for weight
    shifts the stand-alone learner never makes — with uniform weights one substitution moves a
    leaf's label masses by at most ζ — and the claim adds the split-selection and leaf-labelling
    budgets (8tηζ each), whose worst events need not coincide.
    """

    theorem = "Theorem 10"

    def __init__(self, epsilon: float = 1.0, internal_nodes: int = 1, *, probe: Any = None,
                 n_features: int | None = None) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.t = _check_positive_int(internal_nodes, "internal_nodes")
        self._setup_probe(probe, n_features)

    @property
    def privacy_constant(self) -> float:
        return 16.0 * self.t

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, f"{SOURCE}, Theorem 9, Algorithm 2",
                            "DP-TopDown is a (16tηζ, 0, ζ)-DP weak learner; alone, with the "
                            f"uniform distribution, ζ = 1/n and η = εn/(16t), t = {self.t}: "
                            f"({self.epsilon:g}, 0)-DP")

    #: True only in the deliberately broken audit variant (scores scaled by n, η unchanged)
    _count_scores = False

    def _candidates(self, X, y, mu, leaves):
        """Gini improvements of every (leaf, feature) pair, leaves in creation order."""
        if self._count_scores:
            mu = mu * X.shape[0]
        w0, w1 = mu * (y == 0), mu * (y == 1)
        ims = []
        for path in leaves:
            mask = np.ones(X.shape[0], dtype=bool)
            for j, b in path:
                mask &= X[:, j] == b
            parent = _gini_mass(np.array(w0[mask].sum()), np.array(w1[mask].sum()))
            Xm = X[mask].astype(float)
            a1, a0 = Xm.T @ w1[mask], Xm.T @ w0[mask]            # child x_j = 1
            b1, b0 = w1[mask].sum() - a1, w0[mask].sum() - a0      # child x_j = 0
            ims.append(parent - _gini_mass(a0, a1) - _gini_mass(b0, b1))
        return np.concatenate(ims)

    def _leaf_masses(self, X, y, mu, path):
        if self._count_scores:
            mu = mu * X.shape[0]
        mask = np.ones(X.shape[0], dtype=bool)
        for j, b in path:
            mask &= X[:, j] == b
        return float((mu * (y == 0))[mask].sum()), float((mu * (y == 1))[mask].sum())

    def weak_fit(self, X, y, mu, eta, rng):
        d = X.shape[1]
        leaves: list[tuple] = [()]
        splits: list[tuple[tuple, int]] = []
        for _ in range(self.t):
            k = _wem_sample(self._candidates(X, y, mu, leaves), eta, rng)
            path, j = leaves[k // d], k % d
            splits.append((path, j))
            leaves = [lf for lf in leaves if lf != path] + [path + ((j, 0),), path + ((j, 1),)]
        labels = {lf: _wrnm_sample(np.array(self._leaf_masses(X, y, mu, lf)),
                                   2.0 * self.t * eta, rng) for lf in leaves}
        return _tree_from(splits, labels)

    def weak_distribution(self, X, y, mu, eta):
        d = X.shape[1]
        out: list[tuple[float, Any]] = []

        def grow(prob: float, leaves: list[tuple], splits: list) -> None:
            if len(splits) == self.t:
                p01 = [_wrnm_two(*self._leaf_masses(X, y, mu, lf), 2.0 * self.t * eta)
                       for lf in leaves]
                for labs in itertools.product((0, 1), repeat=len(leaves)):
                    pl = prob
                    for lab, q in zip(labs, p01, strict=True):
                        pl *= q[lab]
                    if pl > 0:
                        out.append((pl, _tree_from(splits, dict(zip(leaves, labs,
                                                                    strict=True)))))
                return
            probs = _wem_probabilities(self._candidates(X, y, mu, leaves), eta)
            for k, pk in enumerate(probs):
                if pk <= 0:
                    continue
                path, j = leaves[k // d], k % d
                grow(prob * pk, [lf for lf in leaves if lf != path]
                     + [path + ((j, 0),), path + ((j, 1),)], splits + [(path, j)])

        paths = math.prod(d * (i + 1) for i in range(self.t)) * 2 ** (self.t + 1)
        if paths > MAX_EXACT_PATHS:
            raise NotImplementedError(f"DP-TopDown exact distribution needs {paths} paths")
        grow(1.0, [()], [])
        return out

    def _fit_arrays(self, X, y, rng):
        n = X.shape[0]
        return self.weak_fit(X, y, np.full(n, 1.0 / n), self.epsilon * n / (16.0 * self.t), rng)

    def _distribution_arrays(self, X, y):
        n = X.shape[0]
        return self.weak_distribution(X, y, np.full(n, 1.0 / n),
                                      self.epsilon * n / (16.0 * self.t))


class OneRule(_WeakLearnerMixin, _BooleanLearner):
    """Non-private 1R (Holte 1993; the paper's weak baseline): the one-rule of least (weighted)
    error, ties to the lowest index (constants first, then x_0, ¬x_0, …).  Deterministic; no
    privacy: its claim is ε = ∞."""

    private = False

    def __init__(self, *, probe: Any = None, n_features: int | None = None) -> None:
        self._setup_probe(probe, n_features)

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return PrivacyClaim(math.inf, 0.0, "non-private baseline (Holte 1993)", "no privacy")

    def weak_fit(self, X, y, mu, eta, rng):
        return OneRuleModel(int(np.argmin((one_rule_matrix(X) != y[None, :]) @ mu)))

    def weak_distribution(self, X, y, mu, eta):
        return [(1.0, self.weak_fit(X, y, mu, eta, None))]

    def _fit_arrays(self, X, y, rng):
        return self.weak_fit(X, y, np.full(X.shape[0], 1.0 / X.shape[0]), math.inf, rng)

    def _distribution_arrays(self, X, y):
        return [(1.0, self._fit_arrays(X, y, None))]


class BoostedStumps(_BooleanLearner):
    """Non-private boosting baseline: AdaBoost (Freund & Schapire 1997) over one-rules for
    ``rounds`` rounds: D_1 uniform; h_t = the 1R of least D_t-weighted error e_t;
    α_t = ½·ln((1 − e_t)/e_t) (e_t clipped to [1e−10, ½]);
    D_{t+1}(i) ∝ D_t(i)·exp(−α_t·y_i·h_t(x_i)) (±1 labels); output sign(Σ α_t h_t).  Stops
    early when e_t = ½ (no literal helps).  No privacy (claim ε = ∞)."""

    def __init__(self, rounds: int = 50, *, probe: Any = None,
                 n_features: int | None = None) -> None:
        self.rounds = _check_positive_int(rounds, "rounds")
        self._setup_probe(probe, n_features)

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return PrivacyClaim(math.inf, 0.0, "non-private baseline (AdaBoost, Freund & Schapire "
                            "1997)", "no privacy")

    def _fit_arrays(self, X, y, rng):
        P = one_rule_matrix(X)
        miss = (P != y[None, :]).astype(float)
        ys = 2.0 * y - 1.0
        D = np.full(X.shape[0], 1.0 / X.shape[0])
        members, alphas = [], []
        for _ in range(self.rounds):
            errs = miss @ D
            k = int(np.argmin(errs))
            e = float(np.clip(errs[k], 1e-10, 0.5))
            if e >= 0.5 - 1e-12:
                break
            a = 0.5 * math.log((1 - e) / e)
            members.append(OneRuleModel(k))
            alphas.append(a)
            D = D * np.exp(-a * ys * (2.0 * P[k] - 1.0))
            D /= D.sum()
            if e <= 1e-10:
                break
        if not members:
            members, alphas = [OneRuleModel(int(np.argmin(miss @ D)))], [1.0]
        return Ensemble(tuple(members), tuple(alphas))

    def _distribution_arrays(self, X, y):
        return [(1.0, self._fit_arrays(X, y, None))]


# --------------------------------------------------------------------------- booster
def advanced_composition_epsilon(eps_b: float, rounds: int, delta_prime: float) -> float:
    """Theorem 5 / Theorem 1: ε_A = sqrt(2τ·ln(1/δ'))·ε_b + τ·ε_b·(e^{ε_b} − 1)."""
    return (math.sqrt(2 * rounds * math.log(1 / delta_prime)) * eps_b
            + rounds * eps_b * math.expm1(eps_b))


class LazyBB(_BooleanLearner):
    """LazyBB, Algorithm 1 (weighted lazy-Bregman boosting; Bun, Carmosino & Sorrell 2020).

    Parameters (Algorithm 1 requires κ ∈ (0, 1), λ ∈ (0, 1), τ ∈ ℕ; anything else is an
    [`InvalidInputError`][ltheory.InvalidInputError]):

    * ``weak_learner`` — [`DPOneRule`][ltheory.privacy.learners.DPOneRule],
    [`DPTopDown`][ltheory.privacy.learners.DPTopDown] (private) or
    [`OneRule`][ltheory.privacy.learners.OneRule]
      (non-private LazyBB, claim ε = ∞);
    * ``rounds`` τ, ``learning_rate`` λ, ``smoothness`` κ (the measures stay κ-dense, so every
      distribution handed to the weak learner is κ-smooth and neighbouring runs' distributions are
      within ζ = 1/(κn));
    * ``epsilon`` — total budget; ``delta`` — 0 for the pure claims, > 0 for Theorem 5.

    μ_1 = κ everywhere; round t: μ̂_t = μ_t/|μ_t|, h_t = WkL(S, μ̂_t) at noise rate η,
    σ_t(i) = y_i Σ_{j≤t} h_j(x_i) (±1 values), μ̃_{t+1}(i) = exp(−λσ_t(i))·κ,
    μ_{t+1} = Π_Γ(μ̃_{t+1}) (`bregman_project`).  Output: majority of h_1..h_τ (ties → 1,
    possible only for even τ, which warns).

    Privacy claim at these parameters:

    * δ = 0, DP-1R: Theorem 7 — η = εκn/(4τ), ε-DP;
    * δ = 0, DP-TopDown: Theorem 10 — η = εκn/(16τt), ε-DP;
    * δ > 0: Theorem 5 (advanced composition) with the weak learner's Theorem 6/9 guarantee at
      ζ = 1/(κn): ε_b solves sqrt(2τ ln(1/δ))·ε_b + τε_b(e^{ε_b} − 1) = ε (δ_b = 0, δ' = δ),
      η = ε_b·κn/c; used only when it gives a larger ε_b than ε/τ (otherwise the pure claim
      holds and is stated).

    The utility half of Theorem 5 asks for λ = γ/4 and τ ≥ 16·log(1/κ)/γ²; privacy does not, so
    those are not enforced (the paper's experiments also use faster rates).

    Worst case (measured, ``benchmarks/results/learners_worst_case.md``): at ε = 1, τ = 3,
    λ = 0.9, κ = 0.5, d = 2, n = 16 the worst pairs found have exact ε = 0.22 (DP-1R) and 0.11
    (DP-TopDown).  The claim is basic composition of τ rounds, each charged the weak learner's
    robust-sensitivity bound at ζ = 1/(κn) (a worst-case weight shift on top of the record's own
    change): each round leaks a fraction of its ε/τ, as
    [`DPOneRule`][ltheory.privacy.learners.DPOneRule] and
    [`DPTopDown`][ltheory.privacy.learners.DPTopDown] do alone, and the rounds' worst events need
    not align.  Proved: at most
    1/2 (DP-1R) and 3/4 (DP-TopDown) of the claim — on neighbouring samples with the same
    history the projected measures move monotonically off the replaced record, so every weighted
    error moves by ≤ ζ, not the 2ζ the claim charges (``privacy_claims.ASADI_CLAIMS_PROOF``).
    """

    #: Algorithm 1's projection; False only in the deliberately broken audit variant
    _project = True

    def __init__(self, weak_learner: Any = None, rounds: int = 5, learning_rate: float = 0.5,
                 smoothness: float = 0.5, epsilon: float = 1.0, delta: float = 0.0, *,
                 probe: Any = None, n_features: int | None = None) -> None:
        if weak_learner is None:
            weak_learner = DPOneRule()
        if not isinstance(weak_learner, _WeakLearnerMixin):
            raise InvalidInputError("weak_learner must be DPOneRule(...), DPTopDown(...) or "
                                    f"OneRule(...), got {type(weak_learner).__name__}")
        self.weak = weak_learner
        self.rounds = _check_positive_int(rounds, "rounds")
        self.learning_rate = _check_open_unit(learning_rate, "learning_rate",
                                              "Algorithm 1: λ ∈ (0, 1)")
        self.smoothness = _check_open_unit(smoothness, "smoothness",
                                           "Algorithm 1: κ ∈ (0, 1); κ = 1 forbids re-weighting")
        self.epsilon = check_epsilon(epsilon)
        try:
            self.delta = float(delta)
        except (TypeError, ValueError):
            raise InvalidInputError(f"delta must be a number in [0, 1), got {delta!r}") from None
        if not 0.0 <= self.delta < 1.0:
            raise InvalidInputError(f"delta must be in [0, 1), got {delta!r}")
        if self.rounds % 2 == 0:
            warnings.warn(f"LazyBB with an even number of rounds ({self.rounds}): the majority "
                          "vote can tie (ties predict 1); the paper uses odd τ", stacklevel=2)
        self._setup_probe(probe, n_features)
        self.eps_round, self.theorem = self._per_round()

    def _per_round(self) -> tuple[float, str]:
        basic = self.epsilon / self.rounds
        if self.delta > 0:
            def f(e: float) -> float:
                return advanced_composition_epsilon(e, self.rounds, self.delta) - self.epsilon
            # no root in [0, ε] (f(ε) <= 0, e.g. δ near 1): advanced composition would allow a
            # per-round ε above the total, which is not used -- basic composition is sound
            if f(self.epsilon) > 0:
                adv = brentq(f, 0.0, self.epsilon, xtol=1e-14)
                if adv > basic:
                    return adv, "Theorem 5"
        return basic, self.weak.theorem

    @property
    def privacy_claim(self) -> PrivacyClaim:
        w = self.weak
        if not w.private:
            return PrivacyClaim(math.inf, 0.0, "non-private LazyBB (weak learner OneRule)",
                                "no privacy")
        name = type(w).__name__
        if self.theorem == "Theorem 5":
            return PrivacyClaim(
                self.epsilon, self.delta, f"{SOURCE}, Theorem 5 (advanced composition) with "
                f"{'Theorem 6' if isinstance(w, DPOneRule) else 'Theorem 9'}, Algorithm 1",
                f"LazyBB with a (ε_b, 0, 1/(κn))-DP weak learner ({name}) for τ = {self.rounds} "
                f"rounds is (ε_A, δ_A)-DP, ε_A = sqrt(2τ ln(1/δ'))ε_b + τε_b(e^ε_b − 1), "
                f"δ_A = τδ_b + δ'; here ε_b = {self.eps_round:.6g}, δ' = {self.delta:g}: "
                f"({self.epsilon:g}, {self.delta:g})-DP")
        if isinstance(w, DPOneRule):
            stmt = ("LazyBB runs for τ rounds using DP-1R at noise rate η = εκn/(4τ) is ε-DP; "
                    f"here τ = {self.rounds}, κ = {self.smoothness:g}: ({self.epsilon:g}, 0)-DP")
        else:
            stmt = ("LazyBB runs for τ rounds using DP-TopDown at noise rate η = εκn/(16τt) is "
                    f"ε-DP; here τ = {self.rounds}, t = {w.t}, κ = {self.smoothness:g}: "
                    f"({self.epsilon:g}, 0)-DP")
        return PrivacyClaim(self.epsilon, 0.0, f"{SOURCE}, {self.theorem}, Algorithm 1", stmt)

    def noise_rate(self, n: int) -> float:
        """η handed to the weak learner for a sample of size n (math.inf when non-private)."""
        if not self.weak.private:
            return math.inf
        return self.weak.noise_rate(self.eps_round, n, self.smoothness)

    def _next_distribution(self, y: np.ndarray, margin: np.ndarray) -> np.ndarray:
        tilde = np.exp(-self.learning_rate * margin) * self.smoothness
        mu = bregman_project(tilde, self.smoothness) if self._project else tilde
        return _normalise(mu)

    def _fit_arrays(self, X, y, rng):
        n = X.shape[0]
        eta = self.noise_rate(n)
        ys = 2.0 * y - 1.0
        mu = np.full(n, 1.0 / n)                 # μ_1 = κ normalised
        margin = np.zeros(n)
        members = []
        for _ in range(self.rounds):
            h = self.weak.weak_fit(X, y, mu, eta, rng)
            members.append(h)
            margin += ys * (2.0 * h.predict(X) - 1.0)
            mu = self._next_distribution(y, margin)
        return Ensemble(tuple(members))

    def _distribution_arrays(self, X, y):
        n = X.shape[0]
        eta = self.noise_rate(n)
        ys = 2.0 * y - 1.0
        out: list[tuple[float, Any]] = []
        budget = [MAX_EXACT_PATHS]

        def step(prob: float, members: tuple, margin: np.ndarray, mu: np.ndarray) -> None:
            if len(members) == self.rounds:
                out.append((prob, Ensemble(members)))
                return
            options = self.weak.weak_distribution(X, y, mu, eta)
            budget[0] -= len(options)
            if budget[0] < 0:
                raise NotImplementedError("LazyBB exact distribution exceeds "
                                          f"{MAX_EXACT_PATHS} paths")
            for p, h in options:
                m = margin + ys * (2.0 * h.predict(X) - 1.0)
                step(prob * p, members + (h,), m,
                     self._next_distribution(y, m) if len(members) + 1 < self.rounds else mu)

        step(1.0, (), np.zeros(n), np.full(n, 1.0 / n))
        return out

    @property
    def name(self) -> str:
        return f"LazyBB[{type(self.weak).__name__}]"


# --------------------------------------------------------------------------- broken variants
class _CountScoreDPOneRule(DPOneRule):
    """BROKEN (negative control), a wrong sensitivity for weighted scores: DP-1R scoring the
    weighted error *count* n·err(S, μ, h) (which is the familiar error count under uniform
    weights, sensitivity 1) while η is still calibrated to the robust sensitivity 2ζ of the
    weighted error *rate* err (Theorem 6) — the score's robust sensitivity is really 2ζn, so
    each round is (4ηζn, 0, ζ)-DP, n times the claim."""

    _count_scores = True


class _CountScoreDPTopDown(DPTopDown):
    """BROKEN (negative control): DP-TopDown with Gini improvements and leaf masses computed on
    the weighted counts n·μ instead of μ, η still calibrated to Lemma 15's 4ζ (n times too
    little noise)."""

    _count_scores = True


class _UnprojectedLazyBB(LazyBB):
    """BROKEN (negative control): LazyBB without the Bregman projection onto κ-dense measures —
    μ̂_{t+1} ∝ exp(−λσ_t) — while the noise rate still assumes ζ = 1/(κn).  One example can
    then receive more than 1/(κn) of the weight.  (At the small sizes auditable here this
    raises the exact ε but not above the — loose — claim: see the tests.)"""

    _project = False

    @property
    def name(self) -> str:
        return "LazyBB[unprojected]"


def audit_pair(n: int = 16) -> tuple[tuple, tuple]:
    """The audited neighbouring pair: n/2 copies of ((1,1), 1) and n/2 of ((0,0), 0) (labels
    follow x_0), and the same with the first record relabelled ((1,1), 0) — an outlier that the
    booster up-weights."""
    half = n // 2
    d0 = (((1, 1), 1),) * half + (((0, 0), 0),) * (n - half)
    return d0, (((1, 1), 0),) + d0[1:]


def _make_cases() -> list[LearnerAuditCase]:
    s0, s1 = audit_pair(8)
    d0, d1 = audit_pair(16)
    lazy = dict(rounds=3, learning_rate=0.9, smoothness=0.5, epsilon=1.0, n_features=2)
    note = ("scores the weighted error count n·err instead of the rate err with η unchanged "
            "(wrong sensitivity for weighted scores: 2ζn, not 2ζ)")
    note_td = ("Gini improvements and leaf masses computed on n·μ instead of μ with η unchanged "
               "(wrong sensitivity for weighted scores)")
    return [
        LearnerAuditCase(
            name="DPOneRule", make=lambda: DPOneRule(epsilon=0.5, n_features=2), d0=s0, d1=s1,
            runs=200_000,
            setting="ε = 0.5, d = 2 features, n = 8 (uniform weights; Theorem 6 at ζ = 1/n)",
            broken=lambda: _CountScoreDPOneRule(epsilon=0.5, n_features=2), broken_note=note),
        LearnerAuditCase(
            name="DPTopDown", make=lambda: DPTopDown(epsilon=1.0, internal_nodes=1,
                                                     n_features=2),
            d0=s0, d1=s1, runs=200_000,
            setting="ε = 1, t = 1 internal node, d = 2, n = 8 (Theorem 9 at ζ = 1/n)",
            broken=lambda: _CountScoreDPTopDown(epsilon=1.0, internal_nodes=1, n_features=2),
            broken_note=note_td),
        LearnerAuditCase(
            name="LazyBB+DPOneRule", make=lambda: LazyBB(DPOneRule(), **lazy), d0=d0, d1=d1,
            runs=200_000, setting="ε = 1, τ = 3, λ = 0.9, κ = 0.5, d = 2, n = 16 (Theorem 7)",
            broken=lambda: LazyBB(_CountScoreDPOneRule(), **lazy), broken_note=note),
        LearnerAuditCase(
            name="LazyBB+DPTopDown", make=lambda: LazyBB(DPTopDown(internal_nodes=1), **lazy),
            d0=d0, d1=d1, runs=1_000_000,
            setting="ε = 1, τ = 3, t = 1, λ = 0.9, κ = 0.5, d = 2, n = 16 (Theorem 10)",
            broken=lambda: LazyBB(_CountScoreDPTopDown(internal_nodes=1), **lazy),
            broken_note=note_td + " inside LazyBB"),
    ]


AUDIT_CASES: list[LearnerAuditCase] = _make_cases()
