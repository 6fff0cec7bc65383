"""Relabelling, private agnostic learning and the closure of private learning under composition.

Alon, Beimel, Moran & Stemmer, "Closure Properties for Private Classification and Online
Prediction" (COLT 2020; seed 001), Sections 5–7:

* ``A_Relabel`` (Algorithm 2): for S = D∘T let P be the points of S and H = Π_H(P) the patterns
  of the class on P; choose a pattern h ∈ H with the exponential mechanism at ε = 1, i.e. with
  probability ∝ exp(−q(D, h)/2), for a score q of matched-sensitivity 1 (Definition 5.1; the
  number of errors on D, Example 5.2), and relabel all of S by h.
* [`RelabelAndLearn`][ltheory.privacy.learners.RelabelAndLearn] (Algorithm 3): on S = D∘V∘W run
``A_Relabel(D, V∘W)``, let h̄ be a
  hypothesis of H consistent with the relabelled Ṽ, output (A(S̃), Ṽ, h̄).  Lemma 5.3: if A is
  (ε, δ)-DP then for every V this is (ε + 3, 4eδ)-DP with respect to D∘W (the proof gives the
  factor 4e·e^ε, i.e. ε + 1 + ln 4 ≈ ε + 2.386).
* [`PrivateAgnosticLearner`][ltheory.privacy.learners.PrivateAgnosticLearner] (Algorithm 4): S = D∘T
with |D| = |T| = |S|/2; relabel with
  q(D, h) = |D|·error_D(h); draw |D|/9 examples with replacement from D̃ (the private empirical
  learner of Lemma 3.12, Bun, Nissim, Stemmer & Vadhan 2015) and return A of them.  Theorem 6.1:
  for a (1, δ)-DP (α, β)-accurate PAC learner A, (O(1), O(δ))-DP and (O(α), O(β + δn))-accurate
  agnostic, n = O(m + (VC(H) + log 1/β)/α²).
* Privacy constants of Algorithms 4 and 5.  The proofs apply Lemma 5.3 to "sub-sample with
  replacement, run A", which Lemma 3.12 says is (ε, δ)-DP when A is.  That is false for large ε
  (one record drawn K times costs Kε): with A a truncated-geometric count at ε = 10 and |S| = 36
  the exact ε of PrivateAgnosticLearner is 14.2, above the (ε + 3) = 13 the proof would give
  (issue 14).  Here the sub-sampled A is charged the with-replacement amplification bound (ε',
  δ') of `ltheory.privacy.learners.subsampling` (exact for a binomial number of copies at a
  known size, a Poisson bound valid at every size otherwise), and the learners claim
  (ε' + 3, 4e·δ').  At ε = 1 this is smaller than the old ε + 3 (sub-sampling m = N/9 amplifies:
  ε' ≈ 0.18–0.20); at ε = 10 and |S| = 36 it is 17.33 (exact 14.2).
* [`ClosureLearn`][ltheory.privacy.learners.ClosureLearn] (Algorithm 5): for G: {0,1}^k → {0,1} and
private learners A_i of H_i,
  split S = S_1∘…∘S_k, S_i = D_i∘T_i; in step i relabel S_i by a pattern z of H_i chosen with
  the score (17) q(S_i, z) = |S_i|·min_{c_{i+1}∈H_{i+1},…,c_k∈H_k} error_{S_i}(G(h_1, …,
  h_{i−1}, z, c_{i+1}, …, c_k)), sub-sample |D_i|/9 examples of D̃_i with replacement, and let
  h_i = A_i(Q) (A_i at privacy parameters (1, δ)); output G(h_1, …, h_k).  Lemma 7.2 / Theorem
  7.1: (O(1), O(δ))-DP.  Each step is Lemma 5.3 applied to a disjoint part, so the constant is
  (max_i ε_i + 3, 4e·max_i δ_i).

Datasets are sequences of (x, y), x a domain point of the class (index or label), y ∈ {0, 1};
hypotheses are returned as truth-table bit strings over the domain.  Randomness comes only from
the ``rng`` argument.  Every learner here also runs on unrealizable samples (relabelling is what
makes them agnostic); ``ClosureLearn`` states a realizable-case accuracy guarantee and warns
([`UnrealizableSampleWarning`][ltheory.errors.UnrealizableSampleWarning]) when the sample is not
realizable by G(H_1, …, H_k) — the
warning is computed from the data, so it must not be published if privacy is to hold.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import InvalidInputError, UnrealizableSampleWarning
from ltheory.privacy.learners.base import (
    LearnerAuditCase,
    PrivacyClaim,
    PrivateLearner,
    check_dataset,
)
from ltheory.privacy.learners.subsampling import with_replacement, with_replacement_any_size
from ltheory.privacy.mechanisms import ExponentialMechanism

__all__ = [
    "AUDIT_CASES",
    "ClosureLearn",
    "ExponentialLearner",
    "PrivateAgnosticLearner",
    "RelabelAndLearn",
    "UnrealizableSampleWarning",
    "relabel",
]

SOURCE = ("Alon, Beimel, Moran & Stemmer 2020, 'Closure Properties for Private Classification "
          "and Online Prediction'")
#: the largest number of sub-samples (multisets) enumerated by ``output_distribution``
MAX_EXACT_MULTISETS = 20_000
#: the largest G-evaluation table (patterns × completions × points) built for the score (17)
MAX_SCORE_CELLS = 20_000_000
RELABEL_MODES = ("exponential", "erm")
#: the database the relabelling score of ClosureLearn is counted on (the seed's two readings)
SCORE_ON = ("part", "database")




# --------------------------------------------------------------------------- helpers
def _check_class(hclass: Any, what: str = "hclass") -> HypothesisClass:
    if not isinstance(hclass, HypothesisClass):
        raise InvalidInputError(f"{what} must be a HypothesisClass (e.g. ltheory.catalog.family"
                                f"('thresholds', n=8)), got {type(hclass).__name__}")
    if len(hclass) == 0:
        raise InvalidInputError(f"{what} is empty; a learner needs at least one hypothesis")
    return hclass


def _points(hclass: HypothesisClass, dataset: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validated dataset as (point indices, labels) arrays."""
    pairs = check_dataset(dataset)
    try:
        xs = np.array([hclass.point_index(x) for x, _ in pairs], dtype=np.int64)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{exc}; points must be domain indices 0..{hclass.domain_size - 1}"
                                " or domain labels of the class") from None
    ys = np.array([y for _, y in pairs], dtype=np.int8)
    return xs, ys


def _bits(row: np.ndarray) -> str:
    return "".join("1" if b else "0" for b in np.asarray(row).ravel())


def _patterns(matrix: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Π_H(P): the distinct restrictions of the rows of ``matrix`` to the points ``pts``, in
    lexicographic order (deterministic)."""
    if pts.size == 0:
        return np.zeros((1, 0), dtype=np.int8)
    return np.unique(matrix[:, pts].astype(np.int8), axis=0)


def _errors(patterns: np.ndarray, local_x: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """q(D, h) = number of errors of every pattern on (local_x, ys)."""
    if local_x.size == 0:
        return np.zeros(patterns.shape[0])
    return (patterns[:, local_x] != ys[None, :]).sum(axis=1).astype(float)


class _ScoredEM(ExponentialMechanism):
    """The exponential mechanism of `ltheory.privacy.mechanisms` with a given score vector
    q (lower is better): P[h] ∝ exp(−ε·q(h)/2).  Reused by A_Relabel (ε = 1)."""

    def __init__(self, scores: np.ndarray, epsilon: float = 1.0) -> None:
        super().__init__(np.zeros((len(scores), 1), dtype=np.int8), epsilon)
        self._scores = np.asarray(scores, dtype=float)

    def utilities(self, dataset: Any) -> np.ndarray:
        return -self._scores


def relabel(scores: np.ndarray, mode: str = "exponential") -> np.ndarray:
    """Step 3 of A_Relabel (Algorithm 2): the probabilities of choosing each pattern given its
    score q (matched-sensitivity 1): the exponential mechanism with ε = 1, P ∝ exp(−q/2).
    ``mode="erm"`` is the INCORRECT heuristic (negative control): the first pattern of minimal
    score with probability 1 — not differentially private."""
    if mode == "erm":
        p = np.zeros(len(scores))
        p[int(np.argmin(scores))] = 1.0
        return p
    return _ScoredEM(scores, 1.0).probabilities(())


def _check_mode(mode: str) -> str:
    if mode not in RELABEL_MODES:
        raise InvalidInputError(f"relabel must be one of {RELABEL_MODES}, got {mode!r}")
    return mode


class _Inner:
    """Adapter around an auxiliary private learner: ``fit``/callable, ``claim`` and (optional)
    ``output_distribution`` and ``sample``."""

    def __init__(self, learner: Any, what: str) -> None:
        if not (hasattr(learner, "fit") or callable(learner)):
            raise InvalidInputError(f"{what} must be a private learner with .fit(dataset, rng) "
                                    "(or a callable (dataset, rng) -> hypothesis)")
        claim = getattr(learner, "claim", None)
        try:
            eps, delta = (float(claim[0]), float(claim[1]))
        except (TypeError, ValueError, IndexError):
            raise InvalidInputError(f"{what} must state its privacy as .claim = (epsilon, delta)"
                                    "; the closure theorems are stated in terms of it") from None
        if not (math.isfinite(eps) and eps > 0 and 0 <= delta < 1):
            raise InvalidInputError(f"{what}.claim = {claim!r} is not a valid (epsilon > 0, "
                                    "0 <= delta < 1)")
        self.learner, self.epsilon, self.delta = learner, eps, delta

    def fit(self, data: tuple, rng: np.random.Generator) -> Hashable:
        out = (self.learner.fit(data, rng) if hasattr(self.learner, "fit")
               else self.learner(data, rng))
        return _hashable(out)

    def sample(self, data: tuple, n: int, rng: np.random.Generator) -> list[Hashable]:
        if hasattr(self.learner, "sample"):
            return [_hashable(o) for o in self.learner.sample(data, n, rng)]
        return [self.fit(data, rng) for _ in range(n)]

    @property
    def exact(self) -> bool:
        return hasattr(self.learner, "output_distribution")

    def distribution(self, data: tuple) -> dict[Hashable, float]:
        return {_hashable(k): float(v)
                for k, v in self.learner.output_distribution(data).items()}


def _hashable(o: Any) -> Hashable:
    if isinstance(o, np.ndarray):
        return tuple(o.ravel().tolist())
    if isinstance(o, np.generic):
        return o.item()
    return o


def _multisets(counts: Sequence[int], m: int) -> list[tuple[tuple[int, ...], float]]:
    """All ways to draw m items with replacement from records with multiplicities ``counts``:
    (number of draws of each record, multinomial probability)."""
    u, total = len(counts), float(sum(counts))
    if math.comb(m + u - 1, u - 1) > MAX_EXACT_MULTISETS:
        raise NotImplementedError(f"exact distribution: more than {MAX_EXACT_MULTISETS} "
                                  "sub-samples to enumerate")
    p = [c / total for c in counts]
    out = []
    for bars in itertools.combinations(range(m + u - 1), u - 1):
        parts, prev = [], -1
        for b in (*bars, m + u - 1):
            parts.append(b - prev - 1)
            prev = b
        logp = math.lgamma(m + 1) + sum(k * math.log(pi) - math.lgamma(k + 1)
                                        for k, pi in zip(parts, p, strict=True) if k)
        out.append((tuple(parts), math.exp(logp)))
    return out


def _subsample_distribution(inner: _Inner, records: tuple, m: int) -> dict[Hashable, float]:
    """Exact output distribution of A(Q), Q = m draws with replacement from ``records``
    (Lemma 3.12's sub-sampling), for an inner learner that depends on Q as a multiset."""
    cnt = Counter(records)
    keys = sorted(cnt)
    dist: dict[Hashable, float] = {}
    for parts, pq in _multisets([cnt[k] for k in keys], m):
        q = tuple(r for r, c in zip(keys, parts, strict=True) for _ in range(c))
        for o, po in inner.distribution(q).items():
            dist[o] = dist.get(o, 0.0) + pq * po
    return dist


def _subsample_fit(inner: _Inner, records: tuple, m: int, rng: np.random.Generator
                   ) -> Hashable:
    idx = rng.integers(0, len(records), size=m)
    return inner.fit(tuple(records[i] for i in idx), rng)


def _subsampled_claim(epsilon: float, delta: float, sample_size: int | None
                      ) -> tuple[float, float, str]:
    """(ε', δ') of "draw ⌊|D|/9⌋ of |D| = ⌊|S|/2⌋ records with replacement, run an (ε, δ)-DP A"
    at |S| = ``sample_size``, or at every size when it is None (the Poisson bound)."""
    if sample_size is None:
        es, ds = with_replacement_any_size(epsilon, delta, 9)
        return es, ds, "at every |S| >= 18 (Poisson(−ln(8/9)) copies)"
    n_d = sample_size // 2
    es, ds = with_replacement(epsilon, delta, n_d // 9, n_d)
    return es, ds, f"at |S| = {sample_size} (Bin({n_d // 9}, 1/{n_d}) copies)"


def _labelled_records(hclass: HypothesisClass) -> tuple:
    """Every record (x, y): x a domain index of ``hclass``, y in {0, 1} (the worst-case search's
    alphabet)."""
    return tuple((x, y) for x in range(hclass.domain_size) for y in (0, 1))


# --------------------------------------------------------------------------- generic learner
class ExponentialLearner(PrivateLearner):
    """The generic private proper learner (Kasiviswanathan et al. 2011; seed 001, Algorithm 1 and
    Proposition 3.13): output h ∈ H with probability ∝ exp(−ε·q(S, h)/2), q(S, h) = #errors of h on
    S.  ε-DP.  The default auxiliary learner of this module (built on
    [`ExponentialMechanism`][ltheory.privacy.mechanisms.ExponentialMechanism]).
    ``wrong_exponent=True`` is the INCORRECT variant (negative control) with exp(−ε·q) — truly
    2ε-DP, claiming ε."""

    def __init__(self, hclass: HypothesisClass, epsilon: float = 1.0,
                 wrong_exponent: bool = False) -> None:
        self.hclass = _check_class(hclass)
        self._em = ExponentialMechanism(self.hclass.matrix.astype(np.int8),
                                        epsilon=2 * epsilon if wrong_exponent else epsilon)
        self.epsilon = float(epsilon)
        self.wrong_exponent = bool(wrong_exponent)
        self._rows = [_bits(r) for r in self.hclass.matrix]

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, "Alon, Beimel, Moran & Stemmer 2020, Algorithm 1 "
                            "and Proposition 3.13(i) (McSherry & Talwar 2007)",
                            f"{self.epsilon:g}-DP (pure)")

    def _local(self, dataset: Any) -> tuple:
        xs, ys = _points(self.hclass, dataset) if dataset else (np.zeros(0, int),
                                                               np.zeros(0, int))
        return tuple(zip(xs.tolist(), ys.tolist(), strict=True))

    def probabilities(self, dataset: Any) -> np.ndarray:
        return self._em.probabilities(self._local(dataset))

    def fit(self, dataset: Any, rng: np.random.Generator) -> str:
        return self.sample(dataset, 1, rng)[0]

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> list[str]:
        return [self._rows[i] for i in self._em.sample(self._local(dataset), n, rng)]

    def output_distribution(self, dataset: Any) -> dict[Hashable, float]:
        return {self._rows[i]: float(p) for i, p in enumerate(self.probabilities(dataset))}

    def record_space(self) -> tuple:
        return _labelled_records(self.hclass)


# --------------------------------------------------------------------------- Algorithm 3
class RelabelAndLearn(PrivateLearner):
    """``A_RelabelAndLearn`` (seed 001, Algorithm 3) with ``A_Relabel`` (Algorithm 2).

    The input S is split by position: D = the first ``d_size`` records (default: half), V = the
    next ``v_size`` records (default 0), W = the rest.  Output: the triple
    (A(S̃), Ṽ as a bit string of relabelled labels, h̄ = the first hypothesis of the class, in
    stored order, consistent with Ṽ).  ``learner`` is the auxiliary (ε, δ)-DP algorithm A
    (default `ExponentialLearner` at ε = ``epsilon``).

    Privacy (Lemma 5.3): for every V, (ε + 3, 4eδ)-DP w.r.t. D∘W — the neighbour relation here
    is substitution of one record outside V (``are_neighbours``).  ``relabel="erm"`` is the
    INCORRECT heuristic (relabel by an empirical risk minimiser, negative control).

    Worst case (measured, ``benchmarks/results/learners_worst_case.md``): on thresholds n=3 with
    the exponential learner at ε = 1, D = 3, V = 1, W = 1 record, the exact maximum over all
    77 760 neighbouring pairs is 1.81, 0.45 of the claim 4.  The proof's constant is ε + 1 +
    ln 4 (3.39 here): a factor 2 for the pattern sets (|H_1| ≤ 2|H_2|) times e for the scores
    (e^{1/2} in numerator and denominator), both at their worst for every pattern at once, and
    then A's own ε on top; one changed record cannot make all of these worst simultaneously.
    """

    neighbour_relation = "substitution outside V"

    def __init__(self, hclass: HypothesisClass, learner: Any = None, *, epsilon: float = 1.0,
                 d_size: int | None = None, v_size: int = 0, relabel: str = "exponential"
                 ) -> None:
        self.hclass = _check_class(hclass)
        self.inner = _Inner(ExponentialLearner(self.hclass, epsilon) if learner is None
                            else learner, "learner")
        if d_size is not None and (not isinstance(d_size, int) or d_size < 0):
            raise InvalidInputError(f"d_size must be a non-negative int or None, got {d_size!r}")
        if not isinstance(v_size, int) or v_size < 0:
            raise InvalidInputError(f"v_size must be a non-negative int, got {v_size!r}")
        self.d_size, self.v_size = d_size, v_size
        self.relabel = _check_mode(relabel)
        self._matrix = self.hclass.matrix.astype(np.int8)

    @property
    def privacy_claim(self) -> PrivacyClaim:
        e, d = self.inner.epsilon, self.inner.delta
        return PrivacyClaim(e + 3, 4 * math.e * d, f"{SOURCE}, Lemma 5.3",
                            f"(ε+3, 4eδ)-DP w.r.t. D∘W for an (ε, δ)-DP A; here ε = {e:g}, "
                            f"δ = {d:g} (the proof's constant is ε + 1 + ln 4)")

    def _split(self, n: int) -> tuple[int, int]:
        d = n // 2 if self.d_size is None else self.d_size
        if d < 1 or d + self.v_size > n:
            raise InvalidInputError(f"a dataset of {n} records cannot be split into D "
                                    f"({d} records, need >= 1) and V ({self.v_size})")
        return d, self.v_size

    def are_neighbours(self, d0: Any, d1: Any) -> bool:
        try:
            a, b = list(d0), list(d1)
        except TypeError:
            return False
        if len(a) != len(b) or not a:
            return False
        d, v = self._split(len(a))
        diff = [i for i, (u, w) in enumerate(zip(a, b, strict=True)) if tuple(u) != tuple(w)]
        return len(diff) == 1 and not (d <= diff[0] < d + v)

    def record_space(self) -> tuple:
        return _labelled_records(self.hclass)

    def _relabelled(self, dataset: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
        """(points, pattern matrix Π_H(P) as labels of every record, pattern probabilities)."""
        xs, ys = _points(self.hclass, dataset)
        d, v = self._split(len(xs))
        pts, local = np.unique(xs, return_inverse=True)
        pats = _patterns(self._matrix, pts)
        probs = relabel(_errors(pats, local[:d], ys[:d]), self.relabel)
        return xs, pats[:, local], probs, d, v

    def _extras(self, xs: np.ndarray, labels: np.ndarray, d: int, v: int) -> tuple[str, str]:
        vx, vy = xs[d:d + v], labels[d:d + v]
        ok = np.all(self._matrix[:, vx] == vy[None, :], axis=1)
        return _bits(vy), _bits(self._matrix[int(np.argmax(ok))])

    def fit(self, dataset: Any, rng: np.random.Generator) -> tuple:
        return self.sample(dataset, 1, rng)[0]

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> list[tuple]:
        xs, labels, probs, d, v = self._relabelled(dataset)
        choice = rng.choice(len(probs), size=n, p=probs)
        out: list[Any] = [None] * n
        for z in np.unique(choice):
            where = np.flatnonzero(choice == z)
            data = tuple(zip(xs.tolist(), labels[z].tolist(), strict=True))
            vt, hbar = self._extras(xs, labels[z], d, v)
            for i, f in zip(where, self.inner.sample(data, len(where), rng), strict=True):
                out[i] = (f, vt, hbar)
        return out

    def output_distribution(self, dataset: Any) -> dict[Hashable, float]:
        if not self.inner.exact:
            raise NotImplementedError("the auxiliary learner offers no output_distribution")
        xs, labels, probs, d, v = self._relabelled(dataset)
        dist: dict[Hashable, float] = {}
        for z, pz in enumerate(probs):
            if pz == 0:
                continue
            data = tuple(zip(xs.tolist(), labels[z].tolist(), strict=True))
            vt, hbar = self._extras(xs, labels[z], d, v)
            for f, pf in self.inner.distribution(data).items():
                key = (f, vt, hbar)
                dist[key] = dist.get(key, 0.0) + pz * pf
        return dist


# --------------------------------------------------------------------------- Algorithm 4
class PrivateAgnosticLearner(PrivateLearner):
    """``A_PrivateAgnostic`` (seed 001, Algorithm 4; Theorem 6.1 = Theorem 2.4).

    S = D∘T (|D| = ⌊|S|/2⌋); A_Relabel(D, T) with q(D, h) = |D|·error_D(h); Q = ⌊|D|/9⌋ draws with
    replacement from D̃ (Lemma 3.12); return A(Q) (default A: `ExponentialLearner` at
    ε = ``epsilon``, proper).  Needs |S| >= 18.

    Privacy: Theorem 6.1 states (O(1), O(δ))-DP for a (1, δ)-DP A; its proof is Lemma 3.12, then
    Lemma 5.3.  Lemma 3.12 (sub-sampling with replacement keeps (ε, δ)) does not hold for large ε
    (see [`ltheory.privacy.learners.closure`][ltheory.privacy.learners.closure]), so the claim
    recorded here is (ε' + 3, 4e·δ') with (ε', δ') the with-replacement amplification bound of an
    (ε, δ)-DP A (`with_replacement`): at the size ``sample_size`` when it is given (then other sizes
    are refused), else the bound valid at every size (`with_replacement_any_size`).  Measured
    (``benchmarks/results/learners_worst_case.md``): with the default exponential learner at ε = 1
    and |S| = 36 the worst pair found has exact ε = 0.34 against the claim 3.20 — the slack is
    mostly Lemma 5.3's +3 (the relabelling step's worst case over pattern sets and scores, see
    [`RelabelAndLearn`][ltheory.privacy.learners.RelabelAndLearn]), then the sub-sampled ε' = 0.20
    which an exponential learner drawing m = 2 of 18 records does not reach; with a
    truncated-geometric count at ε = 10 and |S| = 54 it is 14.2 against 23.2 (the sub-sampling bound
    is nearly attained by a count, see the tests), above the seed's ε + 3 = 13.  Theorem 6.1 assumes
    ε = 1 (and 0 < α, β, δ < 1): another ε warns, the privacy claim still holds. ``relabel="erm"``
    is the INCORRECT variant (negative control)."""

    def __init__(self, hclass: HypothesisClass, learner: Any = None, *, epsilon: float = 1.0,
                 relabel: str = "exponential", sample_size: int | None = None) -> None:
        self.hclass = _check_class(hclass)
        self.inner = _Inner(ExponentialLearner(self.hclass, epsilon) if learner is None
                            else learner, "learner")
        if sample_size is not None and (isinstance(sample_size, bool) or not isinstance(
                sample_size, int) or sample_size < 18):
            raise InvalidInputError(f"sample_size must be None or an integer >= 18 (Algorithm 4 "
                                    f"draws |D|/9 of |D| = |S|/2 records), got {sample_size!r}")
        self.sample_size = sample_size
        if self.inner.epsilon != 1.0:
            warnings.warn(f"Theorem 6.1 assumes a (1, delta)-DP learner; this one claims epsilon"
                          f" = {self.inner.epsilon:g} (the privacy claim, Lemma 5.3 with the "
                          "with-replacement sub-sampling bound, still holds)", stacklevel=2)
        self.relabel = _check_mode(relabel)
        self._matrix = self.hclass.matrix.astype(np.int8)

    @property
    def privacy_claim(self) -> PrivacyClaim:
        e, d = self.inner.epsilon, self.inner.delta
        es, ds, where = _subsampled_claim(e, d, self.sample_size)
        return PrivacyClaim(es + 3, 4 * math.e * ds, f"{SOURCE}, Theorem 6.1 (via Lemma 5.3; "
                            "Lemma 3.12 replaced by the with-replacement sub-sampling bound, "
                            "ltheory.privacy.learners.subsampling)",
                            f"(O(1), O(δ))-DP; constant: (ε'+3, 4eδ') with A ({e:g}, {d:g})-DP "
                            f"and (ε', δ') = ({es:.6g}, {ds:.3g}) its sub-sampled privacy {where}")

    def record_space(self) -> tuple:
        return _labelled_records(self.hclass)

    def _relabelled(self, dataset: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        xs, ys = _points(self.hclass, dataset)
        if self.sample_size is not None and len(xs) != self.sample_size:
            raise InvalidInputError(f"this learner claims its privacy at |S| = {self.sample_size}"
                                    f" (sample_size); got {len(xs)} examples")
        d = len(xs) // 2
        if d // 9 < 1:
            raise InvalidInputError(f"Algorithm 4 sub-samples |D|/9 examples of D (|D| = |S|/2):"
                                    f" it needs at least 18 examples, got {len(xs)}")
        pts, local = np.unique(xs, return_inverse=True)
        pats = _patterns(self._matrix, pts)
        probs = relabel(_errors(pats, local[:d], ys[:d]), self.relabel)
        return xs[:d], pats[:, local[:d]], probs, d // 9

    def fit(self, dataset: Any, rng: np.random.Generator) -> Hashable:
        return self.sample(dataset, 1, rng)[0]

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> list[Hashable]:
        xd, labels, probs, m = self._relabelled(dataset)
        choice = rng.choice(len(probs), size=n, p=probs)
        xl = xd.tolist()
        return [_subsample_fit(self.inner, tuple(zip(xl, labels[z].tolist(), strict=True)), m,
                               rng) for z in choice]

    def output_distribution(self, dataset: Any) -> dict[Hashable, float]:
        if not self.inner.exact:
            raise NotImplementedError("the auxiliary learner offers no output_distribution")
        xd, labels, probs, m = self._relabelled(dataset)
        dist: dict[Hashable, float] = {}
        for z, pz in enumerate(probs):
            if pz == 0:
                continue
            recs = tuple(zip(xd.tolist(), labels[z].tolist(), strict=True))
            for f, pf in _subsample_distribution(self.inner, recs, m).items():
                dist[f] = dist.get(f, 0.0) + pz * pf
        return dist


# --------------------------------------------------------------------------- Algorithm 5
_NAMED = {
    "and": lambda b: np.all(b, axis=0),
    "or": lambda b: np.any(b, axis=0),
    "xor": lambda b: np.sum(b, axis=0) % 2,
    "maj": lambda b: 2 * np.sum(b, axis=0) > b.shape[0],
}


def _aggregation(G: Any, k: int) -> Callable[[np.ndarray], np.ndarray]:
    """G as a function of a (k, n) 0/1 array -> length-n 0/1 array.  Accepted: an ``Aggregation``
    of ``ltheory.core.boolean`` (anything with ``.arity`` and a ``truth_table``, ``evaluate`` or
    call on bit matrices), a name (``and``, ``or``, ``xor``, ``maj``, ``thr:t``; others are parsed
    by ``Aggregation.parse`` when that module is available), or a callable."""
    if isinstance(G, str):
        name = G.strip().lower()
        if name in _NAMED:
            f = _NAMED[name]
            return lambda b: np.asarray(f(b), dtype=np.int8)
        if name.startswith("thr:"):
            try:
                t = int(name[4:])
            except ValueError:
                raise InvalidInputError(f"bad threshold aggregation {G!r}; use thr:t") from None
            return lambda b: (np.sum(b, axis=0) >= t).astype(np.int8)
        try:
            from ltheory.core.boolean import Aggregation  # type: ignore[import-not-found]
        except ImportError:
            raise InvalidInputError(f"unknown aggregation {G!r}; accepted here: and, or, xor, "
                                    "maj, thr:t, or a callable on a (k, n) 0/1 array") from None
        G = Aggregation.parse(G)
    arity = getattr(G, "arity", None)
    if arity is not None and int(arity) != k:
        raise InvalidInputError(f"the aggregation has arity {arity} but {k} classes were given")
    table = getattr(G, "truth_table", None)
    if table is not None and not callable(table):
        tt = np.array([int(c) for c in (table if isinstance(table, str) else
                                         np.asarray(table).ravel().tolist())], dtype=np.int8)
        if tt.size != 1 << k:
            raise InvalidInputError(f"truth table of length {tt.size}, expected 2^{k}")
        weights = (1 << np.arange(k))[:, None]
        return lambda b: tt[(np.asarray(b, dtype=np.int64) * weights).sum(axis=0)]
    fn = getattr(G, "evaluate", None) or (G if callable(G) else None)
    if fn is None:
        raise InvalidInputError("G must be an Aggregation, a name or a callable taking a (k, n) "
                                "0/1 array")

    def run(b: np.ndarray) -> np.ndarray:
        out = np.asarray(fn(np.asarray(b, dtype=np.int8)))
        if out.shape != (b.shape[1],) or not np.isin(out, (0, 1)).all():
            raise InvalidInputError(f"G returned shape {out.shape}; expected a length-"
                                    f"{b.shape[1]} 0/1 array")
        return out.astype(np.int8)

    return run


class ClosureLearn(PrivateLearner):
    """``A_ClosureLearn`` (seed 001, Algorithm 5; Lemma 7.2, Lemma 7.3, Theorem 7.1): a private
    learner for G(H_1, …, H_k) from private learners A_1, …, A_k of the H_i.

    ``G``: an ``Aggregation`` (``ltheory.core.boolean``), a name, or a callable on a (k, n) 0/1
    array (see `_aggregation`).  ``learners``: the A_i (default: `ExponentialLearner`
    of H_i at ε = 1, the privacy parameter step 2(c)ii prescribes).  ``sizes``: |S_1|, …, |S_k|
    (default: equal parts, the remainder to the last); each needs |D_i| = ⌊|S_i|/2⌋ >= 9.
    Output: G(h_1, …, h_k) as a truth table over the common domain.

    Privacy: Lemma 7.2 states (O(1), O(δ)) (its header reads "(ε, O(δ))" for ε < 1); its proof is
    Lemma 3.12 + Lemma 5.3 per step on disjoint parts.  As for
    [`PrivateAgnosticLearner`][ltheory.privacy.learners.PrivateAgnosticLearner], Lemma 3.12 is
    replaced by the with-replacement sub-sampling bound (ε'_i, δ'_i) of A_i (see
    [`ltheory.privacy.learners.closure`][ltheory.privacy.learners.closure]) — at the part sizes when
    ``sizes`` is given, else at every size — and the claim is (max_i ε'_i + 3, 4e·max_i δ'_i).
    Measured (``benchmarks/results/learners_worst_case.md``): G = OR of two threshold classes n=3,
    exponential learners at ε = 1, |S| = 36: the worst pair found has exact ε ≈ 0.2–0.26 against
    3.20 (the slack of [`PrivateAgnosticLearner`][ltheory.privacy.learners.PrivateAgnosticLearner];
    a record lies in one part only, and each part sub-samples m = 1 of 9 records).  Accuracy (Lemma
    7.3) is for realizable samples: an unrealizable one warns
    ([`UnrealizableSampleWarning`][ltheory.errors.UnrealizableSampleWarning]) when
    ``check_realizable`` and the check is small enough.  ``relabel="erm"`` is the INCORRECT variant
    (negative control).

    ``score_on``: the database the relabelling's score is counted on — the seed gives two
    readings.  ``"part"`` (default): Eq. (17), q(S_i, z) = |S_i|·min error_{S_i}(…), the errors on
    all of S_i = D_i ∘ T_i.  ``"database"``: Algorithm 2 step 3 ("the exponential mechanism with
    … score function q, solution set H, and the database D"), the errors on D_i only.  Either
    way the patterns are those of H_i on the points of S_i (Algorithm 2 steps 1–2), S_i is
    relabelled and D̃_i is sub-sampled; the claim is the same (Lemma 5.3 covers both).
    """

    def __init__(self, G: Any, classes: Sequence[HypothesisClass], learners: Sequence[Any] |
                 None = None, *, sizes: Sequence[int] | None = None, relabel: str = "exponential",
                 score_on: str = "part", check_realizable: bool = True) -> None:
        self.classes = [_check_class(h, f"classes[{i}]") for i, h in enumerate(classes)]
        self.k = len(self.classes)
        if self.k < 1:
            raise InvalidInputError("ClosureLearn needs at least one class H_1")
        if len({h.domain for h in self.classes}) != 1:
            raise InvalidInputError("the classes H_1..H_k must share one domain")
        self.G = _aggregation(G, self.k)
        if learners is None:
            learners = [ExponentialLearner(h, 1.0) for h in self.classes]
        if len(learners) != self.k:
            raise InvalidInputError(f"{len(learners)} learners for {self.k} classes")
        self.inner = [_Inner(a, f"learners[{i}]") for i, a in enumerate(learners)]
        self.sizes = None if sizes is None else [int(s) for s in sizes]
        if self.sizes is not None and len(self.sizes) != self.k:
            raise InvalidInputError(f"sizes must give |S_i| for each of the {self.k} parts")
        if self.sizes is not None and min(self.sizes) < 18:
            raise InvalidInputError(f"sizes {self.sizes}: Algorithm 5 sub-samples |D_i|/9 of D_i "
                                    "(|D_i| = |S_i|/2), so every part needs >= 18 examples")
        self.relabel = _check_mode(relabel)
        if score_on not in SCORE_ON:
            raise InvalidInputError(f"score_on must be one of {SCORE_ON}, got {score_on!r}")
        self.score_on = score_on
        self.check_realizable = bool(check_realizable)
        self._mats = [h.matrix.astype(np.int8) for h in self.classes]
        self._domain = self.classes[0].domain_size

    @property
    def privacy_claim(self) -> PrivacyClaim:
        subs = [_subsampled_claim(a.epsilon, a.delta, None if self.sizes is None else s)
                for a, s in zip(self.inner, self.sizes or [None] * self.k, strict=True)]
        es = max(e for e, _, _ in subs)
        ds = max(d for _, d, _ in subs)
        where = "at the part sizes" if self.sizes is not None else subs[0][2]
        return PrivacyClaim(es + 3, 4 * math.e * ds, f"{SOURCE}, Lemma 7.2 / Theorem 7.1 (via "
                            "Lemma 5.3 per part; Lemma 3.12 replaced by the with-replacement "
                            "sub-sampling bound, ltheory.privacy.learners.subsampling)",
                            "(O(1), O(δ))-DP; constant: (max ε'_i + 3, 4e·max δ'_i) with "
                            f"(ε'_i, δ'_i) the sub-sampled privacy of A_i {where}: max ε'_i = "
                            f"{es:.6g}, max δ'_i = {ds:.3g} (A_i: max ε_i = "
                            f"{max(a.epsilon for a in self.inner):g})")

    def record_space(self) -> tuple:
        return _labelled_records(self.classes[0])

    def _parts(self, n: int) -> list[tuple[int, int]]:
        sizes = self.sizes or [n // self.k] * (self.k - 1) + [n - (n // self.k) * (self.k - 1)]
        if sum(sizes) != n:
            raise InvalidInputError(f"sizes {sizes} do not add up to the {n} examples given")
        for i, s in enumerate(sizes):
            if (s // 2) // 9 < 1:
                raise InvalidInputError(f"part S_{i + 1} has {s} examples; Algorithm 5 "
                                        "sub-samples |D_i|/9 of D_i (|D_i| = |S_i|/2): each part "
                                        f"needs >= 18, so at least {18 * self.k} examples")
        bounds, start = [], 0
        for s in sizes:
            bounds.append((start, start + s))
            start += s
        return bounds

    def _scores(self, i: int, prefix: tuple[str, ...], xs: np.ndarray, ys: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Patterns of H_i on the points of S_i (labels of every record) and the score (17),
        counted on S_i (``score_on="part"``) or on its first half D_i (``"database"``)."""
        pts, local = np.unique(xs, return_inverse=True)
        pats = _patterns(self._mats[i], pts)
        counted = local if self.score_on == "part" else local[:len(xs) // 2]
        ys_c = ys if self.score_on == "part" else ys[:len(xs) // 2]
        n0 = np.bincount(counted, weights=(ys_c == 0), minlength=pts.size)
        n1 = np.bincount(counted, weights=(ys_c == 1), minlength=pts.size)
        rest = [_patterns(self._mats[j], pts) for j in range(i + 1, self.k)]
        n_comp = int(np.prod([r.shape[0] for r in rest])) if rest else 1
        cells = pats.shape[0] * n_comp * pts.size
        if cells > MAX_SCORE_CELLS:
            raise InvalidInputError(f"the score (17) needs {cells} evaluations of G (patterns × "
                                    f"completions × points) > {MAX_SCORE_CELLS}: use smaller "
                                    "classes or fewer distinct points")
        fixed = np.array([[int(c) for c in h] for h in prefix], dtype=np.int8).reshape(
            len(prefix), -1)[:, pts] if prefix else np.zeros((0, pts.size), dtype=np.int8)
        z = np.repeat(pats, n_comp, axis=0)                       # (Z*C, |P|)
        combos = itertools.product(*[range(r.shape[0]) for r in rest])
        comp = (np.stack([np.stack([r[j] for r, j in zip(rest, c, strict=True)])
                          for c in combos], axis=0)
                if rest else np.zeros((1, 0, pts.size), dtype=np.int8))   # (C, k-i-1, |P|)
        comp = np.tile(comp, (pats.shape[0], 1, 1))
        rows = z.shape[0]
        bits = np.concatenate([np.broadcast_to(fixed[None], (rows, *fixed.shape)),
                               z[:, None, :], comp], axis=1)      # (Z*C, k, |P|)
        g = self.G(bits.transpose(1, 0, 2).reshape(self.k, -1)).reshape(rows, pts.size)
        err = np.where(g == 1, n0[None, :], n1[None, :]).sum(axis=1)
        q = err.reshape(pats.shape[0], n_comp).min(axis=1)
        return pats[:, local], q, pts

    def _realizable(self, xs: np.ndarray, ys: np.ndarray) -> bool | None:
        pts, local = np.unique(xs, return_inverse=True)
        pats = [_patterns(m, pts) for m in self._mats]
        total = int(np.prod([p.shape[0] for p in pats])) * pts.size
        if total > MAX_SCORE_CELLS:
            return None
        combos = itertools.product(*[range(p.shape[0]) for p in pats])
        bits = np.stack([np.stack([p[c] for p, c in zip(pats, cs, strict=True)])
                         for cs in combos], axis=1)               # (k, combos, |P|)
        g = self.G(bits.reshape(self.k, -1)).reshape(-1, pts.size)
        return bool(np.any(np.all(g[:, local] == ys[None, :], axis=1)))

    def _prepare(self, dataset: Any) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
        xs, ys = _points(self.classes[0], dataset)
        parts = self._parts(len(xs))
        if self.check_realizable and self._realizable(xs, ys) is False:
            warnings.warn("the sample is not realizable by G(H_1, ..., H_k): Lemma 7.3's accuracy"
                          " guarantee does not apply (the learner still runs; privacy holds)",
                          UnrealizableSampleWarning, stacklevel=3)
        return xs, ys, parts

    def _combine(self, hs: Sequence[str]) -> str:
        bits = np.array([[int(c) for c in h] for h in hs], dtype=np.int8)
        return _bits(self.G(bits))

    def _check_h(self, h: Hashable, i: int) -> str:
        if not (isinstance(h, str) and len(h) == self._domain and set(h) <= {"0", "1"}):
            raise InvalidInputError(f"learners[{i}] returned {h!r}; ClosureLearn needs truth-"
                                    f"table bit strings of length {self._domain}")
        return h

    def fit(self, dataset: Any, rng: np.random.Generator) -> str:
        return self.sample(dataset, 1, rng)[0]

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> list[str]:
        xs, ys, parts = self._prepare(dataset)
        out: list[Any] = [None] * n

        def step(i: int, prefix: tuple[str, ...], where: np.ndarray) -> None:
            if i == self.k:
                h = self._combine(prefix)
                for w in where:
                    out[w] = h
                return
            a, b = parts[i]
            xi, yi = xs[a:b], ys[a:b]
            d = (b - a) // 2
            labels, q, _ = self._scores(i, prefix, xi, yi)
            probs = relabel(q, self.relabel)
            choice = rng.choice(len(probs), size=where.size, p=probs)
            hs = [self._check_h(_subsample_fit(self.inner[i], tuple(zip(
                xi[:d].tolist(), labels[z, :d].tolist(), strict=True)), d // 9, rng), i)
                for z in choice]
            for h in sorted(set(hs)):
                step(i + 1, (*prefix, h), where[[j for j, v in enumerate(hs) if v == h]])

        step(0, (), np.arange(n))
        return out

    def output_distribution(self, dataset: Any) -> dict[Hashable, float]:
        if not all(a.exact for a in self.inner):
            raise NotImplementedError("some auxiliary learner offers no output_distribution")
        xs, ys, parts = self._prepare(dataset)
        dist: dict[Hashable, float] = {}

        def step(i: int, prefix: tuple[str, ...], p: float) -> None:
            if i == self.k:
                h = self._combine(prefix)
                dist[h] = dist.get(h, 0.0) + p
                return
            a, b = parts[i]
            xi, yi = xs[a:b], ys[a:b]
            d = (b - a) // 2
            labels, q, _ = self._scores(i, prefix, xi, yi)
            nxt: dict[str, float] = {}
            for z, pz in enumerate(relabel(q, self.relabel)):
                if pz == 0:
                    continue
                recs = tuple(zip(xi[:d].tolist(), labels[z, :d].tolist(), strict=True))
                for h, ph in _subsample_distribution(self.inner[i], recs, d // 9).items():
                    h = self._check_h(h, i)
                    nxt[h] = nxt.get(h, 0.0) + pz * ph
            for h, ph in nxt.items():
                step(i + 1, (*prefix, h), p * ph)

        step(0, (), 1.0)
        return dist


# --------------------------------------------------------------------------- audit cases
def _thresholds(n: int) -> HypothesisClass:
    from ltheory.catalog import family
    return family("thresholds", n=n)


_CONST2 = HypothesisClass.from_strings(["00", "11"])
_ONES2 = HypothesisClass.from_strings(["11"])
# RelabelAndLearn: thresholds on 3 points, D = 3 records, V = 1 record, W = 1 record; the pair
# differs in W and changes the point set P (the worst of 4000 random pairs, exact ε ≈ 1.593).
_RL_D0 = ((1, 1), (1, 1), (1, 1), (1, 1), (2, 0))
_RL_D1 = ((1, 1), (1, 1), (1, 1), (1, 1), (0, 0))
# its broken variant: the pair differs in D and flips the ERM pattern, hence Ṽ.
_RLB_D0 = ((1, 1), (1, 1), (1, 0), (2, 0))
_RLB_D1 = ((1, 1), (1, 0), (1, 0), (2, 0))
# PrivateAgnostic: thresholds on 3 points, |S| = 36 (|D| = 18, |Q| = 2).
_PA_D0 = tuple((x % 3, int(x % 3 >= 1)) for x in range(36))
_PA_D1 = ((0, 1),) + _PA_D0[1:]
# ERM flip: constant functions on 2 points, |D| = 180 (91 ones vs a 90/90 tie), |Q| = 20; T is a
# 90/90 tie too, so the score on all of S_1 (ClosureLearn, (17)) flips as well.
_FLIP_D0 = (tuple((i % 2, int(i < 91)) for i in range(180))
            + tuple((i % 2, int(i < 90)) for i in range(180)))
_FLIP_D1 = ((0, 0),) + _FLIP_D0[1:]
# ClosureLearn: OR of two threshold classes on 3 points, |S| = 36 (two parts of 18).
_CL_D0 = tuple((x % 3, int(x % 3 >= 2)) for x in range(36))
_CL_D1 = ((0, 1),) + _CL_D0[1:]

AUDIT_CASES: list[LearnerAuditCase] = [
    LearnerAuditCase(
        name="RelabelAndLearn/thresholds3",
        make=lambda: RelabelAndLearn(_thresholds(3), d_size=3, v_size=1),
        d0=_RL_D0, d1=_RL_D1, runs=40_000,
        setting="thresholds n=3, A = exponential learner (ε=1), D = 3 records, V = 1 record, "
                "W = 1 record, neighbours differ in W (new point); exact distribution available",
        broken=lambda: RelabelAndLearn(_thresholds(3), d_size=3, v_size=1, relabel="erm"),
        broken_note="relabel by an empirical risk minimiser (no exponential mechanism): the "
                    "released Ṽ is a deterministic function of D (exact ε = ∞)",
        broken_d0=_RLB_D0, broken_d1=_RLB_D1),
    LearnerAuditCase(
        name="PrivateAgnosticLearner/thresholds3",
        make=lambda: PrivateAgnosticLearner(_thresholds(3)),
        d0=_PA_D0, d1=_PA_D1, runs=40_000,
        setting="thresholds n=3, A = exponential learner (ε=1), |S| = 36 (|Q| = 2); exact "
                "distribution available",
        broken=lambda: PrivateAgnosticLearner(_CONST2, relabel="erm"),
        broken_note="ERM relabelling on the constants {00, 11}, |S| = 360: one flipped label "
                    "turns a 91/89 majority into a tie and relabels all of D (exact ε ≈ 10)",
        broken_d0=_FLIP_D0, broken_d1=_FLIP_D1),
    LearnerAuditCase(
        name="ClosureLearn/or-thresholds3",
        make=lambda: ClosureLearn("or", [_thresholds(3), _thresholds(3)], check_realizable=False),
        d0=_CL_D0, d1=_CL_D1, runs=20_000,
        setting="G = OR, H_1 = H_2 = thresholds n=3, A_i = exponential learners (ε=1), |S| = 36 "
                "(|S_i| = 18, |Q| = 1); exact distribution available",
        broken=lambda: ClosureLearn("and", [_CONST2, _ONES2], relabel="erm",
                                    check_realizable=False),
        broken_note="ERM relabelling, G = AND with H_2 = {11} (so step 1 is agnostic learning "
                    "of the constants), |S| = 720: a flipped label relabels all of D_1",
        broken_d0=_FLIP_D0 + _FLIP_D0, broken_d1=_FLIP_D1 + _FLIP_D0),
]
