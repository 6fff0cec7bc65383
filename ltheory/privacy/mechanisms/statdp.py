"""The mechanisms of the StatDP / DP-Sniper benchmark, written from their papers.

Ding, Wang, Wang, Zhang & Kifer 2018 ("Detecting Violations of Differential Privacy", CCS,
"StatDP") collected noisy histograms, report-noisy-max and sparse-vector variants; Bichsel,
Steffen, Bogunovic & Vechev 2021 ("DP-Sniper", IEEE S&P, Section VII) added the truncated
geometric mechanism, RAPPOR, parallel compositions, PrefixSum and NumericalSVT.  Every mechanism
here is vectorised (``sample(dataset, n, rng)``); the dataset is the vector of query answers
(``neighbour_relation``: ``"query_answers"`` — every coordinate moves by at most Δ — or
``"single_entry"`` — exactly one coordinate moves, by at most Δ, the histogram relation of
StatDP's NoisyHist and of one-input mechanisms).  The sparse-vector variants 1–6 of Lyu, Su &
Li 2017 are ``ltheory.privacy.mechanisms.SparseVector``; report noisy max (argmax) is
``ReportNoisyMax``.

Where the output space is finite and small, ``output_distribution`` is exact (truncated
geometric, RAPPOR bits as a product distribution through ``bit_probabilities``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.mechanisms.base import Mechanism, answer_vector
from ltheory.privacy.mechanisms.selection import ReportNoisyMax
from ltheory.validation import check_epsilon

__all__ = [
    "NoisyHist",
    "NoisyMaxValue",
    "NumericalSVT",
    "OneTimeRappor",
    "Parallel",
    "PrefixSum",
    "Rappor",
    "TruncatedGeometric",
    "dpsniper_suite",
    "murmur3_32",
]


# --------------------------------------------------------------------------- noisy histograms
class NoisyHist(Mechanism):
    """``q + Lap(b)`` in every coordinate (Dwork, McSherry, Nissim & Smith 2006).  StatDP's
    NoisyHist1 is b = Δ/ε (ε-DP when one coordinate moves by Δ); NoisyHist2 is the INCORRECT
    b = ε (Ding et al. 2018, Algorithms 9 and 10): a shift of Δ costs Δ/ε, i.e. 10 at ε = 0.1.
    The one-coordinate Laplace mechanism is NoisyHist1 on one answer."""

    name = "noisy_hist"
    neighbour_relation = "single_entry"

    def __init__(self, epsilon: float = 0.1, scale: float | None = None,
                 sensitivity: float = 1.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = float(sensitivity)
        self.scale = self.sensitivity / self.epsilon if scale is None else float(scale)
        if not (self.scale > 0 and math.isfinite(self.scale)):
            raise InvalidInputError(f"scale must be a finite number > 0, got {scale!r}")
        self.true_epsilon = self.sensitivity / self.scale

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        q = answer_vector(dataset)
        out = q[None, :] + rng.laplace(0.0, self.scale, size=(n, q.size))
        return out[:, 0] if q.size == 1 else out


# --------------------------------------------------------------------------- truncated geometric
class TruncatedGeometric(Mechanism):
    """GeoSample(ε, n) of Balcer & Vadhan 2018 ("Differential Privacy on Finite Computers",
    Algorithm 4.8): a count c ∈ {0..n} is released as z ∈ {0..n} with
    ``P[z] ∝ 2^{-k|z-c|}`` folded at the ends, ``k = ⌈ln(2/ε)⌉``, sampled exactly with integer
    arithmetic: z is the least value with F(z) ≥ U, U uniform on {1..d},
    ``d = (2^{k+1}+1)(2^k+1)^{n-1}``.  By their Theorem 4.7 it is ln(1 + 2^{-k})-DP (0.1178 at
    ε = 0.1), which ``true_epsilon`` records; neighbours are counts differing by 1."""

    name = "truncated_geometric"
    neighbour_relation = "single_entry"

    def __init__(self, epsilon: float = 0.1, n: int = 5) -> None:
        self.epsilon = check_epsilon(epsilon)
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise InvalidInputError(f"n must be an integer >= 1, got {n!r}")
        self.n = int(n)
        self.k = math.ceil(math.log(2.0 / self.epsilon))
        if self.k < 1:
            raise InvalidInputError("GeoSample needs epsilon < 2 (k = ceil(ln(2/eps)) >= 1)")
        self.d = (2 ** (self.k + 1) + 1) * (2 ** self.k + 1) ** (self.n - 1)
        self.true_epsilon = math.log1p(2.0 ** -self.k)

    def default_pair(self) -> tuple[tuple[float], tuple[float]]:
        """Two counts differing by 1 (the suite's base input and the pair its search finds)."""
        return (0.0,), (1.0,)

    def _count(self, dataset: Any) -> int:
        q = answer_vector(dataset)
        c = float(q[0])
        if q.size != 1 or c != round(c) or not 0 <= c <= self.n:
            raise InvalidInputError(f"the truncated geometric mechanism takes one count in "
                                    f"0..{self.n}, got {dataset!r}")
        return int(c)

    def cdf_numerators(self, c: int) -> list[int]:
        """F(z) for z = 0..n (Balcer & Vadhan 2018, Algorithm 4.8, step 2)."""
        k, n = self.k, self.n
        f = []
        for z in range(n + 1):
            if z < c:
                f.append(2 ** (k * (c - z)) * (2 ** k + 1) ** (n - (c - z)))
            elif z < n:
                f.append(self.d - 2 ** (k * (z - c + 1)) * (2 ** k + 1) ** (n - 1 - (z - c)))
            else:
                f.append(self.d)
        return f

    def output_distribution(self, dataset: Any) -> dict[Hashable, float]:
        f = self.cdf_numerators(self._count(dataset))
        prev = [0] + f[:-1]
        return {z: (f[z] - prev[z]) / self.d for z in range(self.n + 1)}

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        f = self.cdf_numerators(self._count(dataset))
        # U uniform on {1..d}: d < 2^63 for the suite's parameters; larger d falls back to
        # exact probabilities (equal up to float rounding)
        if self.d < 2 ** 62:
            u = rng.integers(1, self.d + 1, size=n, dtype=np.int64)
            return np.searchsorted(np.asarray(f, dtype=np.int64), u, side="left").astype(float)
        p = np.array(list(self.output_distribution(dataset).values()))
        return rng.choice(self.n + 1, size=n, p=p / p.sum()).astype(float)


# --------------------------------------------------------------------------- noisy max value
class NoisyMaxValue(ReportNoisyMax):
    """Report the noisy maximum *value* ``max_i q_i + Z_i``, Z_i ~ Lap(2Δ/ε) or Exp(2Δ/ε)
    (Ding et al. 2018, Algorithms 7 and 8, "ReportNoisyMax3/4"), claiming ε-DP.  INCORRECT:
    with k queries moving together the density of the maximum moves by up to e^{kε/2} (Laplace;
    0.25 for k = 5 at ε = 0.1), and with exponential noise the support moves, so it is not
    ε'-DP for any ε'."""

    name = "noisy_max_value"

    def __init__(self, epsilon: float = 0.1, noise: str = "laplace", k: int = 5,
                 sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, noise, sensitivity)
        self.true_epsilon = k * self.epsilon / 2 if noise == "laplace" else math.inf

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        q = answer_vector(dataset)
        return np.max(q[None, :] + self._noise((n, q.size), rng), axis=1)

    def output_distribution(self, dataset: Any) -> dict[Hashable, float]:
        raise NotImplementedError("continuous output")


# --------------------------------------------------------------------------- numerical SVT
class NumericalSVT(Mechanism):
    """Numerical sparse vector (Wang, Ding, Wang, Kifer & Zhang 2019, "Proving differential
    privacy with shadow execution", PLDI, Figure 9 as parametrised by DP-Sniper): threshold noise
    ρ ~ Lap(3Δ/ε), comparison noise ν_i ~ Lap(6cΔ/ε); a query with q_i + ν_i ≥ T + ρ is *above*
    and releases q_i + η_i, η_i ~ Lap(3cΔ/ε); stop after c above.  ε-DP.  Output: codes
    (1 above, 0 below, −1 not answered) followed by the released values (0 where none)."""

    name = "numerical_svt"
    neighbour_relation = "query_answers"

    def __init__(self, epsilon: float = 0.1, threshold: float = 1.0, c: int = 2,
                 sensitivity: float = 1.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.threshold = float(threshold)
        if isinstance(c, bool) or not isinstance(c, int | np.integer) or c < 1:
            raise InvalidInputError(f"c must be an integer >= 1, got {c!r}")
        self.c = int(c)
        self.sensitivity = float(sensitivity)
        self.true_epsilon = self.epsilon

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        q = answer_vector(dataset)
        k, e, d = q.size, self.epsilon, self.sensitivity
        rho = rng.laplace(0.0, 3 * d / e, size=n)
        nu = rng.laplace(0.0, 6 * self.c * d / e, size=(n, k))
        eta = rng.laplace(0.0, 3 * self.c * d / e, size=(n, k))
        codes = np.zeros((n, k))
        values = np.zeros((n, k))
        count = np.zeros(n, dtype=np.int64)
        for i in range(k):
            active = count < self.c
            above = active & (q[i] + nu[:, i] >= self.threshold + rho)
            codes[:, i] = np.where(active, above, -1)
            values[:, i] = np.where(above, q[i] + eta[:, i], 0.0)
            count += above
        return np.hstack([codes, values])


# --------------------------------------------------------------------------- prefix sums
class PrefixSum(Mechanism):
    """Noisy prefix sums (Wang et al. 2019, PLDI): ``s_j = Σ_{i≤j} (q_i + Lap(Δ/ε))``.  Each noisy
    answer is ε-DP for its own query; when all k answers move by Δ (the StatDP neighbourhood) the
    release is kε-DP (1.0 for k = 10 at ε = 0.1), the value ``true_epsilon`` records for k = 10
    queries; the prefix sums are a bijection of the noisy answers."""

    name = "prefix_sum"
    neighbour_relation = "query_answers"

    def __init__(self, epsilon: float = 0.1, sensitivity: float = 1.0, k: int = 10) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = float(sensitivity)
        self.true_epsilon = k * self.epsilon

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        q = answer_vector(dataset)
        return np.cumsum(q[None, :] + rng.laplace(0.0, self.sensitivity / self.epsilon,
                                                  size=(n, q.size)), axis=1)


# --------------------------------------------------------------------------- RAPPOR
def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3, x86 32-bit variant (Appleby 2011), as an unsigned 32-bit integer."""
    c1, c2, mask = 0xCC9E2D51, 0x1B873593, 0xFFFFFFFF
    h = seed & mask
    nblocks = len(data) // 4

    def mix(k: int) -> int:
        k = (k * c1) & mask
        k = ((k << 15) | (k >> 17)) & mask
        return (k * c2) & mask

    for i in range(nblocks):
        h ^= mix(int.from_bytes(data[4 * i:4 * i + 4], "little"))
        h = ((h << 13) | (h >> 19)) & mask
        h = (h * 5 + 0xE6546B64) & mask
    tail = data[4 * nblocks:]
    if tail:
        h ^= mix(int.from_bytes(tail, "little"))
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    h ^= h >> 16
    return h


def _abs_log_ratio(a: float, b: float) -> float:
    """|ln(a/b)| for probabilities a, b (∞ when exactly one is 0; 0 when both are)."""
    if a == b:
        return 0.0
    if a == 0.0 or b == 0.0:
        return math.inf
    return abs(math.log(a / b))


class Rappor(Mechanism):
    """RAPPOR, steps 1–3 (Erlingsson, Pihur & Korolova 2014, CCS, Section 2): the value's Bloom
    filter B (h hash functions into m bits — here MurmurHash3 of the value's decimal string with
    seeds 0..h−1, taken as a signed 32-bit integer modulo m, the hashing of DP-Sniper's
    benchmark), the permanent randomized response B' (each bit set to 1 w.p. f/2, to 0 w.p. f/2,
    kept w.p. 1 − f) and the instantaneous one S (P[S_i = 1] = q if B'_i = 1 else p).  Output:
    the m bits of S.  ``instantaneous=False`` releases B' (one-time RAPPOR).  Each differing
    Bloom bit costs ln(P[S=1|B=1]/P[S=1|B=0]); ``true_epsilon`` is the worst case, 2h bits."""

    name = "rappor"
    neighbour_relation = "single_entry"

    def __init__(self, f: float = 0.75, p: float = 0.45, q: float = 0.55, hashes: int = 4,
                 bits: int = 20, instantaneous: bool = True, epsilon: float = 0.1) -> None:
        for nm, v in (("f", f), ("p", p), ("q", q)):
            if not 0.0 <= float(v) <= 1.0:
                raise InvalidInputError(f"{nm} must be in [0, 1], got {v!r}")
        if int(hashes) < 1 or int(bits) < 1:
            raise InvalidInputError("hashes and bits must be integers >= 1")
        self.f, self.p, self.q = float(f), float(p), float(q)
        self.hashes, self.bits = int(hashes), int(bits)
        self.instantaneous = bool(instantaneous)
        self.epsilon = check_epsilon(epsilon)       # the audited claim, not RAPPOR's own bound
        p1, p0 = self.bit_probabilities()
        # each differing Bloom bit costs the larger |log-ratio| of its two outcomes; an outcome
        # possible under one value only (f = 0 without the instantaneous step) costs ∞
        self.true_epsilon = 2 * self.hashes * max(_abs_log_ratio(p1, p0),
                                                  _abs_log_ratio(1 - p1, 1 - p0))
        if not self.instantaneous:
            self.name = "one_time_rappor"

    def default_pair(self) -> tuple[tuple[float], tuple[float]]:
        """Two values differing in one entry (the suite's base input and its "one below")."""
        return (1.0,), (0.0,)

    def _value(self, dataset: Any) -> int:
        q = answer_vector(dataset)
        if q.size != 1 or q[0] != round(q[0]):
            raise InvalidInputError(f"RAPPOR takes one integer value, got {dataset!r}")
        return int(q[0])

    def bloom(self, value: int) -> np.ndarray:
        b = np.zeros(self.bits, dtype=bool)
        for s in range(self.hashes):
            h = murmur3_32(str(value).encode(), s)
            b[(h - (1 << 32) if h >= 1 << 31 else h) % self.bits] = True
        return b

    def bit_probabilities(self) -> tuple[float, float]:
        """(P[output bit = 1 | Bloom bit 1], P[output bit = 1 | Bloom bit 0])."""
        keep1 = self.f / 2 + (1 - self.f)          # B' = 1 given B = 1
        keep0 = self.f / 2                         # B' = 1 given B = 0
        if not self.instantaneous:
            return keep1, keep0
        return (keep1 * self.q + (1 - keep1) * self.p, keep0 * self.q + (1 - keep0) * self.p)

    def output_distribution(self, dataset: Any) -> dict[Hashable, float]:
        raise NotImplementedError("2^bits outputs; use bit_probabilities (a product measure)")

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        b = self.bloom(self._value(dataset))
        u = rng.random((n, self.bits))
        # B' = 1 when u < f/2, 0 when f/2 <= u < f, B when u >= f
        prr = u < self.f / 2
        prr |= (u >= self.f) & b
        if not self.instantaneous:
            return prr.astype(float)
        v = rng.random((n, self.bits))
        out = np.empty((n, self.bits))
        np.less(v, np.where(prr, self.q, self.p), out=out)      # S = 1 w.p. q if B' else p
        return out


class OneTimeRappor(Rappor):
    """One-time RAPPOR: steps 1–2 of RAPPOR (Bloom filter and permanent randomized response)."""

    def __init__(self, f: float = 0.95, hashes: int = 4, bits: int = 20,
                 epsilon: float = 0.1) -> None:
        super().__init__(f=f, hashes=hashes, bits=bits, instantaneous=False, epsilon=epsilon)


# --------------------------------------------------------------------------- parallel
class Parallel(Mechanism):
    """Several mechanisms run on the same input, outputs concatenated (DP-Sniper, Section VII:
    LaplaceParallel = 20 Laplace mechanisms at ε = 0.005, SVT34Parallel = SVT3 ∥ SVT4).  By basic
    composition its ε is the sum of the parts'; the neighbour relation is the parts' (they must
    agree)."""

    name = "parallel"

    def __init__(self, parts: Sequence[Mechanism], name: str | None = None) -> None:
        if not parts:
            raise InvalidInputError("Parallel needs at least one mechanism")
        rels = {getattr(m, "neighbour_relation", "substitution") for m in parts}
        if len(rels) != 1:
            raise InvalidInputError(f"parallel parts must share a neighbour relation, got {rels}")
        self.parts = list(parts)
        self.neighbour_relation = rels.pop()
        self.sensitivity = float(getattr(parts[0], "sensitivity", 1.0))
        self.epsilon = float(sum(m.epsilon for m in parts))
        trues = [getattr(m, "true_epsilon", None) for m in parts]
        self.true_epsilon = None if None in trues else float(sum(trues))
        if name:
            self.name = name

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """The parts' outputs side by side, each part sampled in turn from ``rng``.  A run of
        consecutive `NoisyHist` parts of one scale takes its noise in one ``rng.laplace``
        call: the generator's stream is the same (each draw takes the next values), so the
        outputs are those of sampling the parts one by one, written once into the result."""
        pieces: list[Any] = []           # (noise (k, n, width), answers) or an (n, w) array
        i = 0
        while i < len(self.parts):
            m = self.parts[i]
            j = i + 1
            if type(m) is NoisyHist:
                while (j < len(self.parts) and type(self.parts[j]) is NoisyHist
                       and self.parts[j].scale == m.scale):
                    j += 1
                q = answer_vector(dataset)
                pieces.append((rng.laplace(0.0, m.scale, size=(j - i, n, q.size)), q))
            else:
                o = np.asarray(m.sample(dataset, n, rng), dtype=float)
                pieces.append(o[:, None] if o.ndim == 1 else o)
            i = j
        widths = [p[0].shape[0] * p[0].shape[2] if isinstance(p, tuple) else p.shape[1]
                  for p in pieces]
        out = np.empty((n, sum(widths)))
        col = 0
        for p, w in zip(pieces, widths, strict=True):
            if isinstance(p, tuple):                 # q + noise, part by part (NoisyHist.sample)
                noise, q = p
                np.add(q, noise.transpose(1, 0, 2),
                       out=out[:, col:col + w].reshape(n, noise.shape[0], q.size))
            else:
                out[:, col:col + w] = p
            col += w
        return out


# --------------------------------------------------------------------------- the suite
def dpsniper_suite(epsilon: float = 0.1) -> dict[str, tuple[Mechanism, tuple[float, ...]]]:
    """The 20 mechanisms of DP-Sniper's evaluation (Bichsel et al. 2021, Section VII-A, with the
    parameters of its artifact) at ε = 0.1, each with the base input around which its neighbour
    search runs (all ones, of the input dimension DP-Sniper used): name → (mechanism, base)."""
    from ltheory.privacy.mechanisms.sparse_vector import SparseVector

    e = float(epsilon)
    one, five, ten = (1.0,), (1.0,) * 5, (1.0,) * 10
    suite: dict[str, tuple[Mechanism, tuple[float, ...]]] = {
        "Laplace": (NoisyHist(e), one),
        "TruncatedGeometric": (TruncatedGeometric(e, 5), one),
        "NoisyHist1": (NoisyHist(e), five),
        "NoisyHist2": (NoisyHist(e, scale=e), five),
        "ReportNoisyMax1": (ReportNoisyMax(e, "laplace"), five),
        "ReportNoisyMax2": (ReportNoisyMax(e, "exponential"), five),
        "ReportNoisyMax3": (NoisyMaxValue(e, "laplace"), five),
        "ReportNoisyMax4": (NoisyMaxValue(e, "exponential"), five),
        "SVT1": (SparseVector(e, 1, threshold=0.5, c=1), ten),
        "SVT2": (SparseVector(e, 2, threshold=1.0, c=1), ten),
        "SVT3": (SparseVector(e, 3, threshold=1.0, c=1), ten),
        "SVT4": (SparseVector(e, 4, threshold=1.0, c=1), ten),
        "SVT5": (SparseVector(e, 5, threshold=1.0, c=1), ten),
        "SVT6": (SparseVector(e, 6, threshold=1.0, c=1), ten),
        "Rappor": (Rappor(epsilon=e), one),
        "OneTimeRappor": (OneTimeRappor(epsilon=e), one),
        "LaplaceParallel": (Parallel([NoisyHist(0.005) for _ in range(20)],
                                     "laplace_parallel"), one),
        "SVT34Parallel": (Parallel([SparseVector(e, 3, threshold=1.0, c=2),
                                    SparseVector(e, 4, threshold=1.0, c=2)],
                                   "svt34_parallel"), ten),
        "PrefixSum": (PrefixSum(e), ten),
        "NumericalSVT": (NumericalSVT(e, threshold=1.0, c=2), ten),
    }
    return suite
