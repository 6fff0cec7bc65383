"""ConfidentWinnow and DP-Winnow: online learning of margin-ρ halfspaces (Bun & Fang, seed 000,
§4: Algorithms 4.1 and 4.2, Lemma 4.2, Lemmas 4.3/4.6, Theorems 4.4/4.5, §4.3 Lemma 4.10 and
Theorem 4.11).

Setting (seed 000 §2, §4).  Examples x ∈ [−1, 1]^d, labels y ∈ {0, 1} (read as ±1), realizable by
a nonnegative w* with ‖w*‖₁ = 1 and margin ρ: (2y−1)·⟨w*, x⟩ ≥ ρ for every example.  An online
learner outputs a hypothesis (a weight vector w, predicting 1 iff ⟨w, x⟩ ≥ 0) before each label
is revealed; it is (ε, δ)-DP (Definition 4.1) if the whole *sequence of hypotheses* is, for any
two example sequences differing in one example (oblivious adversary).

**ConfidentWinnow (Algorithm 4.1).**  w_1 uniform.  In round t output w_t; with s = 2y_t − 1,
update w_{t+1,i} ∝ w_{t,i}·exp(η s x_{t,i}) (normalised) when s⟨w_t, x_t⟩ ≤ 0 (a mistake) or when
the adversary's bit u_t = 1 and s⟨w_t, x_t⟩ < κρ (unconfident); otherwise keep w_t.  Lemma 4.2
(its formula was lost in the seed's extraction; here as derived by its proof, Appendix B, with
the KL potential, the margin and Hoeffding's lemma for x ∈ [−1,1]^d): every update lowers
KL(w*‖w) by ≥ ηρ(1−κ) − η²/2, so the number of updates is at most

    M(η, κ, ρ, d) = ln d / (ηρ(1−κ) − η²/2)       (needs 0 < η < 2ρ(1−κ)).

**DP-Winnow (Algorithm 4.2).**  A private *shadow* weight vector w (ConfidentWinnow's) and a
released approximation ŵ = counts of N i.i.d. draws from w, divided by N (each draw is an
exponential mechanism: log w_i = η Σ_{updates u} s_u x_{u,i} + const, and one changed example
moves every coordinate of that score by ≤ 2, so one draw is 4η-DP; Appendix C).  AboveThreshold
(sparse vector, Dwork & Roth 2014 Algorithm 1: ρ̂ ~ Lap(2/ε_svt), ν ~ Lap(4/ε_svt)) is asked,
each round, the sensitivity-1 query "number of mistakes of ŵ since the last update"; the
examples on which the *released* ŵ errs (s⟨ŵ, x⟩ ≤ 0) are cached.  When AboveThreshold answers
⊤ (and fewer than S updates were made): update w with the first cached example, release a fresh
ŵ, clear the cache, restart AboveThreshold.  Output: the hypothesis sequence, encoded as the
tuple of (round, draw counts) at which ŵ changed (ŵ_1 = the uniform vector, data-independent).

Which examples are cached matters for privacy.  Appendix C's proof ("View 2") recomputes w from
the data and the *released* history alone, and needs the set U of update examples to be such a
function: then, for a fixed history, neighbouring sequences change at most one term of
Σ_{u∈U} s_u x_u (the changed example, or the one it displaces as first cached), so every
coordinate of the score moves by ≤ 2 and a draw is 4η-DP.  Caching by ŵ's mistakes is what Lemma
4.7's proof reads (its candidates are ŵ's errors, and Lemma 4.6 turns them into rounds where the
shadow w is unconfident, so ConfidentWinnow would update on them too).  An earlier version cached
the rounds where the *shadow* w was unconfident: then U depends on private state, one changed
example can change several later update choices, and the score moves by more than 2 (an audit
found a gap of ~2.6; adversarial neighbours of the regression test reach 3), so the 4η bound did
not hold.  [`DPWinnow.replay`][ltheory.privacy.learners.DPWinnow.replay] is View 2 made
executable (the tests check the sensitivity with it).

**Privacy (Theorem 4.4, Appendix C).**  The run is a post-processing of the sequential
composition of ≤ S AboveThreshold instances (each ε_svt-DP) and ≤ S·N draws (each 4η-DP).  The
paper composes each layer with the advanced composition theorem (Dwork & Roth 2014, Theorem
3.20) at failure δ/2.  Given a target (ε, δ), this class sets ε_svt and ε_draw = 4η so that each
layer costs ε/2: the per-mechanism ε₀ of a layer of k mechanisms solves
min(kε₀, ε₀√(2k ln(2/δ)) + kε₀(e^{ε₀} − 1)) = ε/2 (basic composition when it is smaller; both are
valid).  Claim: (ε, δ)-DP.  Since η is then fixed by privacy, ConfidentWinnow's update bound
needs η < 2ρ(1−κ): if not, a ``UserWarning`` says Lemma 4.2 does not apply.

**Mistakes (Theorem 4.5).**  With probability ≥ 1 − β: ≤ M updates (Lemma 4.7, with N large
enough for Lemma 4.6: N ≥ 2 ln(2T/β)/(κρ)², Hoeffding), and between updates AboveThreshold fires
once the count passes L + a, a = 8 ln(2T/β)/ε_svt (Dwork & Roth Theorem 3.24), so mistakes ≤
(M + 1)(L + a) — ``mistake_bound()`` returns this explicit form (the theorem's Õ-expression was
lost in extraction).

**Decision lists (Lemma 4.10, Theorem 4.11).**  A monotone 1-decision list of length ℓ with r
alternations is a halfspace whose margin depends on ℓ and r only (the lemma's formula was lost in
extraction; ``proofs_check`` check ``bunfang.lemma4.10`` measures the exact margin of our weights
against 1/(ℓ+1)^{r+1}) — `decision_list_halfspace` builds the weights explicitly (blocks
of equal-sign rules with geometrically decreasing block weights, the default as a constant
feature), maps it to a nonnegative halfspace on 2(n+1) coordinates by x ↦ (x, −x),
w ↦ (w⁺, w⁻) (seed 000 §4.3), and returns the exact margin.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.learners.base import LearnerAuditCase, PrivacyClaim, PrivateLearner
from ltheory.validation import check_epsilon

__all__ = ["AUDIT_CASES", "ConfidentWinnow", "DPWinnow", "decision_list_halfspace",
           "winnow_update_bound"]

SOURCE = ("Bun & Fang, 'Privately Learning Decision Lists and a Differentially Private Winnow' "
          "(arXiv:2602.07370), Algorithm 4.2, Theorem 4.4 (Appendix C: sequential composition "
          "of AboveThreshold and exponential-mechanism draws, advanced composition)")


def winnow_update_bound(eta: float, kappa: float, rho: float, d: int) -> float:
    """Lemma 4.2 as derived from Appendix B: ln d / (ηρ(1−κ) − η²/2) (∞ when not positive)."""
    gain = eta * rho * (1 - kappa) - eta * eta / 2
    return math.log(d) / gain if gain > 0 else math.inf


def _layer_epsilon(total: float, k: int, delta: float) -> float:
    """Largest ε₀ with min(kε₀, ε₀√(2k ln(1/δ)) + kε₀(e^{ε₀}−1)) ≤ total (k mechanisms)."""
    def cost(e0: float) -> float:
        adv = e0 * math.sqrt(2 * k * math.log(1 / delta)) + k * e0 * math.expm1(e0)
        return min(k * e0, adv)
    lo, hi = 0.0, total
    for _ in range(100):
        mid = (lo + hi) / 2
        if cost(mid) <= total:
            lo = mid
        else:
            hi = mid
    return lo


def _released_errs(what: np.ndarray, x: np.ndarray, s: float) -> bool:
    """ŵ errs on (x, s): s⟨ŵ, x⟩ ≤ 0 (a zero margin counts as a mistake, as in Algorithm 4.1)."""
    return bool(s * float(what @ x) <= 0)


def online_examples(dataset: Any, d: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(X (T, d) in [−1, 1], s (T,) in {−1, +1}) from a sequence of (x, y), y ∈ {0, 1}."""
    try:
        pairs = [(x, y) for x, y in dataset]
    except (TypeError, ValueError):
        raise InvalidInputError("an example sequence is a sequence of (x, y) pairs, x a vector "
                                "in [-1, 1]^d and y in {0, 1}") from None
    if not pairs:
        raise InvalidInputError("the example sequence is empty")
    ys = []
    for i, (_, y) in enumerate(pairs):
        if isinstance(y, bool) or not isinstance(y, int | np.integer) or int(y) not in (0, 1):
            raise InvalidInputError(f"example {i}: label {y!r} is not 0 or 1")
        ys.append(2 * int(y) - 1)
    try:
        X = np.array([np.asarray(x, dtype=float).ravel() for x, _ in pairs])
    except (TypeError, ValueError):
        raise InvalidInputError("examples must be numeric vectors of one length d") from None
    if X.ndim != 2 or (d is not None and X.shape[1] != d):
        raise InvalidInputError(f"examples must be vectors of length d={d} (got shape "
                                f"{X.shape})")
    if not np.isfinite(X).all() or np.abs(X).max() > 1:
        raise InvalidInputError("examples must lie in [-1, 1]^d (the margin and privacy "
                                "analyses of §4 assume ||x||_inf <= 1)")
    return X, np.array(ys, dtype=float)


class _OnlineBase(PrivateLearner):
    neighbour_relation = "online: one example of the sequence substituted"

    d: int

    def are_neighbours(self, d0: Any, d1: Any) -> bool:
        try:
            X0, s0 = online_examples(d0, self.d)
            X1, s1 = online_examples(d1, self.d)
        except InvalidInputError:
            return False
        if X0.shape != X1.shape:
            return False
        diff = np.any(X0 != X1, axis=1) | (s0 != s1)
        return int(diff.sum()) == 1

    def record_space(self) -> tuple:
        """Every (x, y) with x ∈ {−1, 0, 1}^d (a grid of the cube [−1, 1]^d) and y ∈ {0, 1}."""
        return tuple((tuple(float(v) for v in x), y)
                     for x in itertools.product((-1.0, 0.0, 1.0), repeat=self.d) for y in (0, 1))

    def _check_common(self, d: Any, rho: Any, kappa: Any) -> None:
        if isinstance(d, bool) or not isinstance(d, int) or d < 2:
            raise InvalidInputError(f"d must be an integer >= 2, got {d!r}")
        try:
            rho, kappa = float(rho), float(kappa)
        except (TypeError, ValueError):
            raise InvalidInputError("rho and kappa must be numbers") from None
        if not 0 < rho <= 1:
            raise InvalidInputError(f"margin rho must be in (0, 1] (||w*||_1 = 1, x in "
                                    f"[-1,1]^d), got {rho!r}")
        if not 0 <= kappa < 1:
            raise InvalidInputError(f"confidence ratio kappa must be in [0, 1), got {kappa!r}")
        self.d, self.rho, self.kappa = d, rho, kappa


class ConfidentWinnow(_OnlineBase):
    """Algorithm 4.1 (non-private).  ``fit(examples)`` returns the hypothesis sequence as a
    tuple of (round, weights rounded to 12 digits) at which w changed; ``run`` returns the
    details (predictions, mistakes, updates).  ``update_bits``: the adversary's bits u_t
    (default: all 1 — update on every unconfident round)."""

    def __init__(self, d: int, rho: float, *, eta: float | None = None,
                 kappa: float = 0.5) -> None:
        self._check_common(d, rho, kappa)
        self.eta = float(eta) if eta is not None else self.rho * (1 - self.kappa)
        if not self.eta > 0:
            raise InvalidInputError(f"eta must be > 0, got {eta!r}")
        if not self.eta < 2 * self.rho * (1 - self.kappa):
            warnings.warn("eta >= 2 rho (1 - kappa): Lemma 4.2's update bound does not apply",
                          UserWarning, stacklevel=2)

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return PrivacyClaim(math.inf, 0.0, "Algorithm 4.1 (non-private)", "not private")

    def update_bound(self) -> float:
        return winnow_update_bound(self.eta, self.kappa, self.rho, self.d)

    def run(self, dataset: Any, update_bits: Sequence[int] | None = None) -> dict[str, Any]:
        X, s = online_examples(dataset, self.d)
        logw = np.zeros(self.d)
        mistakes = updates = 0
        changes: list[tuple[int, tuple[float, ...]]] = []
        for t in range(len(s)):
            w = np.exp(logw - logw.max())
            w /= w.sum()
            m = s[t] * float(w @ X[t])
            mistakes += m <= 0
            u = 1 if update_bits is None else int(update_bits[t])
            if m <= 0 or (u and m < self.kappa * self.rho):
                logw += self.eta * s[t] * X[t]
                updates += 1
                nw = np.exp(logw - logw.max())
                changes.append((t + 1, tuple(np.round(nw / nw.sum(), 12).tolist())))
        return {"mistakes": int(mistakes), "updates": updates, "hypotheses": tuple(changes)}

    def fit(self, dataset: Any, rng: np.random.Generator) -> Hashable:
        return self.run(dataset)["hypotheses"]


class DPWinnow(_OnlineBase):
    """Algorithm 4.2 (see [`ltheory.privacy.learners.winnow`][ltheory.privacy.learners.winnow]).
    Parameters: dimension ``d``, margin ``rho``, target
    ``epsilon``, ``delta`` ∈ (0, 1); ``switches`` S (max updates), ``samples`` N (draws per
    released ŵ), ``threshold`` L of AboveThreshold (default: its accuracy a at β), ``beta``,
    ``horizon`` T (for the accuracy terms), ``kappa``.  η = ε_draw/4 and ε_svt follow from the
    privacy budget (Theorem 4.4).

    Worst case (measured, ``benchmarks/results/learners_worst_case.md``; no exact distribution,
    so pilot audits choose the pair and a fresh audit of 4·10^5 runs certifies it): at d = 2,
    T = 6, (ε, δ) = (3, 0.1), S = 2, N = 2 the certified bound of the worst pair found is 0.07.
    The claim splits ε into two layers of ε/2 and charges each of the S AboveThreshold instances
    and S·N draws its full share (advanced or basic composition, whichever is smaller) although
    the changed example moves each score by at most 2 and each query count by at most 1; and a
    bound at δ = 0.1 needs an event whose probabilities under the two datasets differ by more
    than 0.1, which caps what an audit can certify.  (A lower bound from a search, not the
    exact ε.)  Proved: at most 7/8 of the claim — one changed example shifts the counts of one
    AboveThreshold instance monotonically, which makes it 3/4·ε_svt-DP
    (``proofs_check.privacy_claims.BUNFANG_CLAIMS_PROOF``).
    """

    def __init__(self, d: int, rho: float, epsilon: float, delta: float, *, switches: int,
                 samples: int, horizon: int, threshold: float | None = None,
                 beta: float = 0.05, kappa: float = 0.5) -> None:
        self._check_common(d, rho, kappa)
        self.epsilon = check_epsilon(epsilon)
        try:
            self.delta = float(delta)
        except (TypeError, ValueError):
            raise InvalidInputError(f"delta must be in (0, 1), got {delta!r}") from None
        if not 0 < self.delta < 1:
            raise InvalidInputError(f"delta must be in (0, 1) (Theorem 4.4 composes with "
                                    f"advanced composition at delta/2 per layer), got {delta!r}")
        for nm, v in (("switches", switches), ("samples", samples), ("horizon", horizon)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise InvalidInputError(f"{nm} must be an integer >= 1, got {v!r}")
        if not 0 < float(beta) < 1:
            raise InvalidInputError(f"beta must be in (0, 1), got {beta!r}")
        self.switches, self.samples, self.horizon, self.beta = switches, samples, horizon, beta
        self.eps_svt = _layer_epsilon(self.epsilon / 2, switches, self.delta / 2)
        self.eps_draw = _layer_epsilon(self.epsilon / 2, switches * samples, self.delta / 2)
        self.eta = self.eps_draw / 4.0
        self.svt_accuracy = 8 * math.log(2 * horizon / beta) / self.eps_svt
        self.threshold = float(self.svt_accuracy if threshold is None else threshold)
        if self.eta >= 2 * self.rho * (1 - self.kappa):
            warnings.warn("the privacy budget fixes eta >= 2 rho (1 - kappa): Lemma 4.2's "
                          "update bound (Theorem 4.5) does not apply", UserWarning, stacklevel=2)
        need = 2 * math.log(2 * horizon / beta) / (self.kappa * self.rho) ** 2
        if samples < need:
            warnings.warn(f"samples={samples} < 2 ln(2T/beta)/(kappa rho)^2 = {need:.0f}: "
                          "Lemma 4.6 (released and shadow weights agree on confident rounds) "
                          "does not apply; the privacy claim still holds", UserWarning,
                          stacklevel=2)

    @property
    def privacy_claim(self) -> PrivacyClaim:
        return PrivacyClaim(
            self.epsilon, self.delta, SOURCE,
            f"(ε, δ)-DP: ≤ S={self.switches} AboveThreshold at ε_svt={self.eps_svt:.4g} and "
            f"≤ S·N={self.switches * self.samples} draws at 4η={self.eps_draw:.4g}, each layer "
            "ε/2 by advanced (or basic) composition at δ/2")

    def update_bound(self) -> float:
        return winnow_update_bound(self.eta, self.kappa, self.rho, self.d)

    def mistake_bound(self) -> float:
        """(min(M, S) + 1)·(L + a): the explicit form of Theorem 4.5's bound (docstring)."""
        m = min(self.update_bound(), self.switches)
        return (m + 1) * (self.threshold + self.svt_accuracy)

    def _draw(self, logw: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        w = np.exp(logw - logw.max())
        return rng.multinomial(self.samples, w / w.sum())

    def run(self, dataset: Any, rng: np.random.Generator) -> dict[str, Any]:
        X, s = online_examples(dataset, self.d)
        logw = np.zeros(self.d)
        what = np.full(self.d, 1.0 / self.d)             # ŵ_1: uniform, data-independent
        b_svt, b_q = 2.0 / self.eps_svt, 4.0 / self.eps_svt
        noisy_thr = self.threshold + rng.laplace(0, b_svt)
        count = 0
        cache: list[int] = []
        changes: list[tuple[int, tuple[int, ...]]] = []
        used: list[int] = []
        mistakes = updates = 0
        for t in range(len(s)):
            mistake = _released_errs(what, X[t], s[t])
            mistakes += mistake
            if updates >= self.switches:
                continue
            if mistake:                  # cache by the *released* ŵ (module docstring)
                cache.append(t)
            count += mistake
            if count + rng.laplace(0, b_q) >= noisy_thr:       # AboveThreshold: ⊤
                used.append(cache[0] if cache else -1)
                if cache:
                    u = cache[0]
                    logw = logw + self.eta * s[u] * X[u]
                counts = self._release(logw, rng)
                what = np.asarray(counts, dtype=float) / self.samples
                changes.append((t + 1, tuple(int(c) for c in counts)))
                updates += 1
                cache, count = [], 0
                noisy_thr = self.threshold + rng.laplace(0, b_svt)
        return {"mistakes": int(mistakes), "updates": updates, "hypotheses": tuple(changes),
                "update_examples": tuple(used)}

    def replay(self, dataset: Any, history: Sequence[tuple[int, Sequence[float]]]
               ) -> tuple[tuple[int, ...], np.ndarray]:
        """Appendix C's "View 2": the update examples and the exponential-mechanism scores,
        recomputed from the data and the *released* history alone (the hypothesis sequence
        ``fit`` returns: (round r, draw counts) for each ŵ released after example r − 1).

        Returns (U, Q): U[k] = index of the example the k-th release updated with (−1: cache
        empty, no update), Q[k] = the score vector Σ_{u ∈ U[:k+1]} s_u x_u whose η-multiple is
        log w at the k-th draw.  For a fixed history, U and Q are functions of the data; on
        neighbouring sequences every coordinate of every Q[k] differs by ≤ 2 (the 4η claim)."""
        X, s = online_examples(dataset, self.d)
        what = np.full(self.d, 1.0 / self.d)
        score = np.zeros(self.d)
        used: list[int] = []
        scores: list[np.ndarray] = []
        start = 0
        for r, counts in history:
            r = int(r)
            if not start < r <= len(s):
                raise InvalidInputError(f"history round {r} is not after {start} and within "
                                        f"the {len(s)} examples")
            errs = [t for t in range(start, r) if _released_errs(what, X[t], s[t])]
            u = errs[0] if errs else -1
            if u >= 0:
                score = score + s[u] * X[u]
            used.append(u)
            scores.append(score.copy())
            what = np.asarray(counts, dtype=float) / self.samples
            start = r
        return tuple(used), np.array(scores).reshape(len(scores), self.d)

    def _release(self, logw: np.ndarray, rng: np.random.Generator) -> Any:
        return self._draw(logw, rng)

    def fit(self, dataset: Any, rng: np.random.Generator) -> Hashable:
        return self.run(dataset, rng)["hypotheses"]


class _ShadowReleasingWinnow(DPWinnow):
    """Broken variant (negative control): releases the shadow weights w themselves (rounded to
    9 digits) instead of N exponential-mechanism draws from them, still claiming (ε, δ)."""

    def _release(self, logw: np.ndarray, rng: np.random.Generator) -> Any:
        w = np.exp(logw - logw.max())
        return tuple(np.round(w / w.sum() * self.samples, 9).tolist())

    def run(self, dataset: Any, rng: np.random.Generator) -> dict[str, Any]:
        out = super().run(dataset, rng)
        out["hypotheses"] = tuple((t, tuple(float(c) for c in v)) for t, v in out["hypotheses"])
        return out


def decision_list_halfspace(rules: Sequence[tuple[int, int]], default: int,
                            n: int) -> tuple[np.ndarray, float]:
    """Lemma 4.10 made explicit.  ``rules`` = ((variable, bit), ...) of a monotone 1-decision list
    on {0,1}^n ("if x_v then bit ..."), ``default`` its final bit.  Returns (w, margin): w ≥ 0 on
    2(n+1) coordinates, ‖w‖₁ = 1, for the features φ(x) = (x, 1, −x, −1), predicting 1 iff
    ⟨w, φ(x)⟩ ≥ 0, with the exact margin min_x (2f(x)−1)⟨w, φ(x)⟩ over all of {0,1}^n."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 20:
        raise InvalidInputError(f"n must be an integer in 1..20, got {n!r}")
    signs = []
    for v, b in rules:
        if not 0 <= int(v) < n or int(b) not in (0, 1):
            raise InvalidInputError(f"rule ({v}, {b}) is not (variable 0..{n - 1}, bit)")
        signs.append(2 * int(b) - 1)
    sd = 2 * int(default) - 1
    # blocks of consecutive equal-sign rules get equal weights; each block outweighs all later
    weights = np.zeros(len(rules))
    later = 1.0                                  # total weight after the current block (default)
    j = len(rules) - 1
    while j >= 0:
        k = j
        while k - 1 >= 0 and signs[k - 1] == signs[j]:
            k -= 1
        bw = 2 * later                           # block weight per rule: beats everything later
        weights[k:j + 1] = bw
        later += bw * (j - k + 1)
        j = k - 1
    w = np.zeros(n + 1)
    for (v, _), s_, wt in zip(rules, signs, weights, strict=True):
        if w[int(v)] == 0:                       # only the first occurrence of a variable counts
            w[int(v)] = s_ * wt
    w[n] = sd * 1.0
    nonneg = np.concatenate([np.clip(w, 0, None), np.clip(-w, 0, None)])
    nonneg /= nonneg.sum()
    X = ((np.arange(1 << n)[:, None] >> np.arange(n - 1, -1, -1)[None, :]) & 1).astype(float)
    phi = np.hstack([X, np.ones((len(X), 1)), -X, -np.ones((len(X), 1))])
    f = np.full(len(X), int(default))
    decided = np.zeros(len(X), dtype=bool)
    for v, b in rules:
        fire = (X[:, int(v)] == 1) & ~decided
        f[fire] = int(b)
        decided |= fire
    margin = float(np.min((2 * f - 1) * (phi @ nonneg)))
    return nonneg, margin


def _audit_case() -> LearnerAuditCase:
    # d = 2, T = 6: the target w* = (1, 0) (margin 1); d1 flips the label of the first example
    d0 = tuple(((1.0, -1.0), 1) if t % 2 == 0 else ((-1.0, 1.0), 0) for t in range(6))
    d1 = (((1.0, -1.0), 0),) + d0[1:]
    kw = dict(switches=2, samples=2, horizon=6, threshold=0.5, beta=0.1)
    return LearnerAuditCase(
        name="winnow/dpwinnow-d2-T6-eps3",
        make=lambda: _quiet(lambda: DPWinnow(2, 1.0, 3.0, 0.1, **kw)),
        d0=d0, d1=d1, runs=200_000,
        setting="d=2, T=6 alternating examples ((1,-1),1),((-1,1),0); rho=1, epsilon=3, "
                "delta=0.1, S=2 switches, N=2 draws, threshold L=0.5; d1 flips the first label",
        broken=lambda: _quiet(lambda: _ShadowReleasingWinnow(2, 1.0, 3.0, 0.1, **kw)),
        broken_note="releases the shadow weights instead of N exponential-mechanism draws")


def _quiet(make: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return make()


AUDIT_CASES: list[LearnerAuditCase] = [_audit_case()]
