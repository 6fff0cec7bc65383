"""Lemmas of Bun & Fang, "Privately Learning Decision Lists and a Differentially Private Winnow"
(arXiv 2602.07370; seed ``000_999a11082cbb8294.txt``) whose formulas were lost in the seed's
extraction, checked in the form their own proofs (in the seed's appendices) or cited sources
establish.  The published text is not in the search corpus beyond the abstract and introduction,
so each reconstruction is stated in the check's text and derived below; a statement whose lost
formula cannot be reconstructed from the seed is listed as not evaluable in
``proofs_check.coverage``.

- Lemma 4.2 (ConfidentWinnow's updates), from Appendix B: with w* ≥ 0, ‖w*‖₁ = 1 and
  y_t⟨w*, x_t⟩ ≥ ρ, x_t ∈ [−1, 1]^d, each update (made only when y⟨w_t, x⟩ < κρ) lowers the
  potential KL(w*‖w_t) by at least ηρ − ηκρ − η²/2 (margin, then Hoeffding's lemma on a range
  of 2η), and the potential starts at ≤ ln d and stays ≥ 0, so updates ≤ ln d/(ηρ(1 − κ) −
  η²/2) (``winnow.winnow_update_bound``).  Evaluated on sequences built by a greedy adversary
  (every round, among the examples with margin ≥ ρ under w* that ConfidentWinnow would update
  on, the one that lowers the potential least), replayed through the library's
  ``ConfidentWinnow`` with every update bit set.  The proof's own extremal case is a point
  target w* = e_1 (potential ln d at the start) with examples (ρ, ±1, …, ±1) of margin exactly
  ρ and a small rate (Hoeffding's lemma nearly tight): the greedy run reaches 0.82 of the bound
  at d = 8 and 0.87 at d = 12; the remaining gap is the potential left when no unconfident
  example remains and the granularity of ⟨w, x⟩ on {±1} coordinates.  The lemma allows
  x ∈ [−1, 1]^d, so ``hoeffding_tight_sequence`` removes the granularity with one fractional
  coordinate: ⟨w, x⟩ = κρ − 1e-9 every round and all other coordinates ±1 (Hoeffding's lemma as
  tight as the mean allows), reaching 0.918 of the bound at d = 12, ρ = 0.2, η = ρ(1 − κ)/4
  (0.929 at ρ = 0.1), and 0.384 at d = 512, η = 1.9ρ(1 − κ), where the η²/2 term is most of the
  denominator (its constant −1/2 as −9/20 would allow only 0.345): every mutant of the bound
  dies.
- Lemma 4.6 (the released weights agree with the shadow weights on confident rounds), from
  Appendix D: ŵ is the empirical distribution of N draws from w; if |⟨w, x⟩| ≥ κρ and
  N ≥ 2 ln(1/β)/(κρ)², then sign⟨ŵ, x⟩ = sign⟨w, x⟩ with probability ≥ 1 − β (Hoeffding on N
  variables in [−1, 1]).  Exact: for x ∈ {−1, 1}^d and ⟨w, x⟩ = κρ each draw gives ±1, so the
  failure probability is P[Bin(N, (1 + κρ)/2) ≤ N/2] (a tie counted as a failure).  That is
  *not* the worst case over x ∈ [−1, 1]^d at that inner product: x = (1, −a) with w = (q, 1 − q),
  q = (κρ + a)/(1 + a), gives a draw in {1, −a} and a strict sign error when K(1 + a) ≤ Na,
  K ~ Bin(N, q) (``skewed_sign_error``); at N = 1 (β ≥ e^{−(κρ)²/2}) the failure is
  (1 − κρ)/(1 + a) → 1 − κρ, so P[failure]/β → 1 as κρ → 0: Hoeffding's β is attained in the
  limit (the ±1 vectors reach at most 3/4 of it), and the mutant 0.9β dies.
- Lemma A.3 (Gupta, Ligett, McSherry, Roth & Talwar 2010): T rounds, an adversary picks
  p_t ∈ [0, 1] (adaptively), a coin with heads probability p_t is tossed; Y_t is the indicator
  that no head occurs within the first t steps (round t included, as the seed says) and
  Z = Σ_t Y_t p_t; then P[Z > q] ≤ e^{−q}.  Exact: for constant p,
  P[Z > q] = (1 − p)^{⌊q/p⌋+1} (→ e^{−q} as p → 0), and the worst adaptive adversary over a grid
  of p by dynamic programming over the accumulated Z.  (Read with "before round t" instead, the
  bound would be false: p_t = 1 once Z > q − 1 gives P[Z > q] ≈ e^{−(q−1)}; the inclusive
  reading is the seed's and the source's.)
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterator
from fractions import Fraction

import numpy as np
import sympy
from scipy.stats import binom

from proofs_check.base import Check, Evidence, Mutable, declare, evaluate_bound, tight

SOURCE = "000_999a11082cbb8294.txt"
_d, _eta, _rho, _kappa, _beta, _q = sympy.symbols("d eta rho kappa beta q", positive=True)
#: Lemma 4.2 (Appendix B): updates ≤ ln d / (ηρ(1 − κ) − η²/2)
LEMMA42_UPDATES = sympy.log(_d) / (_eta * _rho * (1 - _kappa) - _eta ** 2 / 2)
#: Lemma 4.6 (Appendix D): N = 2 ln(1/β)/(κρ)² draws make a sign error with probability ≤ β
LEMMA46_DRAWS = 2 * sympy.log(1 / _beta) / (_kappa * _rho) ** 2
LEMMA46_FAILURE = _beta
#: Lemma A.3 (Gupta et al. 2010): P[Z > q] ≤ e^{−q}
LEMMAA3_TAIL = sympy.exp(-_q)


# ----------------------------------------------------------------------------- Lemma 4.2

def greedy_sequence(d: int, r: int, rho: float, eta: float, kappa: float, cap: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Examples on which ConfidentWinnow (all update bits 1) updates as often as a greedy
    adversary can make it: each round the unconfident example (margin ≥ ρ under w*) whose update
    lowers KL(w*‖w) least.  r ≥ 1: w* uniform on the first r coordinates, x ∈ {−1, 1}^d (margin
    ρ = 1/r for odd r); r = 0: w* = e_1 (KL starts at ln d, as the bound charges) and
    x = (ρ, ±1, …, ±1) labelled 1 (margin exactly ρ).  Stops when no such example remains or
    after ``cap`` updates."""
    wstar = np.zeros(d)
    if r == 0:
        rest = np.array(list(itertools.product((-1.0, 1.0), repeat=d - 1)))
        cands = np.c_[np.full(len(rest), rho), rest]
        wstar[0] = 1.0
    else:
        cands = np.array(list(itertools.product((-1.0, 1.0), repeat=d)))
        wstar[:r] = 1.0 / r
    ys = np.sign(cands @ wstar)
    ok = np.abs(cands @ wstar) >= rho - 1e-12
    cands, ys = cands[ok], ys[ok]
    logw = np.zeros(d)
    X, Y = [], []
    for _ in range(cap):
        w = np.exp(logw - logw.max())
        w /= w.sum()
        margins = ys * (cands @ w)
        live = margins < kappa * rho
        if not live.any():
            break
        # potential after the update, up to the constant Σ w* ln w*: −Σ w*_i ln w'_i
        new = logw[None, :] + eta * ys[:, None] * cands
        lse = new.max(axis=1) + np.log(np.exp(new - new.max(axis=1, keepdims=True)).sum(axis=1))
        pot = -(new - lse[:, None]) @ wstar
        pot[~live] = -np.inf
        i = int(np.argmax(pot))
        X.append(cands[i])
        Y.append(ys[i])
        logw = logw + eta * ys[i] * cands[i]
    return np.array(X), np.array(Y)


def hoeffding_tight_sequence(d: int, rho: float, eta: float, kappa: float, cap: int,
                             tiny: float = 1e-9) -> np.ndarray:
    """The examples of the proof's extremal case, made tight in both of its inequalities at once:
    w* = e_1 (the potential starts at ln d), every example labelled 1 with x_1 = ρ (margin
    exactly ρ) and ⟨w, x⟩ = κρ − ``tiny`` (the margin inequality nearly met), reached with every
    other coordinate ±1 but one fractional (so Σ w_i e^{ηx_i} = cosh η + ⟨w, x⟩·sinh η on them:
    Hoeffding's lemma as tight as ±1 values allow).  The signs: the coordinates 2..d by
    increasing weight, each set to +1 while the sum stays ≤ the target, the first that does not
    fit takes the fractional value that meets it, the rest −1 (the light coordinates rise, the
    heavy ones fall, so the weights stay even and the fractional one stays light).  Stops when
    even all −1 gives ⟨w, x⟩ ≥ κρ (w_1 ≥ (1 + κρ)/(1 + ρ)) or after ``cap`` updates; every
    example is an update of ConfidentWinnow (all update bits 1)."""
    logw = np.zeros(d)
    X = []
    for _ in range(cap):
        w = np.exp(logw - logw.max())
        w /= w.sum()
        rest = w[1:]
        target = kappa * rho - tiny - w[0] * rho          # for Σ_{j>1} w_j x_j
        if target < -rest.sum():
            break
        x = -np.ones(d - 1)
        gap = target + rest.sum()                          # the raise needed from all −1
        for j in np.argsort(rest, kind="stable"):
            if 2 * rest[j] <= gap:
                x[j] = 1.0
                gap -= 2 * rest[j]
            else:                                          # the first that does not fit
                x[j] = -1.0 + gap / rest[j]
                break
        row = np.r_[rho, x]
        X.append(row)
        logw = logw + eta * row
    return np.array(X)


#: (d, ρ, κ, η/(ρ(1 − κ))) of the Hoeffding-tight sequences: quick, then the full run's extra
#: η near 2ρ(1 − κ) (the bound's pole) makes the η²/2 term most of the denominator, so its
#: constant matters most there: at d = 512 the run reaches 0.384 of the bound, past the 0.345
#: that −9/20 in place of −1/2 would allow
TIGHT_CASES_QUICK = ((12, 0.2, 0.5, 0.25), (512, 0.2, 0.5, 1.9))
TIGHT_CASES_FULL = ((12, 0.1, 0.5, 0.25), (16, 0.2, 0.5, 0.25), (8, 0.5, 0.5, 0.5),
                    (256, 0.1, 0.5, 1.9))


def _winnow_updates(d: int, rho: float, eta: float, kappa: float, X: np.ndarray) -> int:
    from ltheory.privacy.learners.winnow import ConfidentWinnow

    data = [(tuple(float(v) for v in x), 1) for x in X]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ConfidentWinnow(d, rho, eta=eta, kappa=kappa).run(data) if data else {
            "updates": 0}
    return int(out["updates"])


def _lemma42(quick: bool) -> Iterator[Evidence]:
    from ltheory.privacy.learners.winnow import ConfidentWinnow

    #: (d, r, ρ, κ, η/(ρ(1 − κ))); r = 0 is the point target with margin exactly ρ
    cases = ((5, 3, 1 / 3, 0.5, 1), (8, 0, 0.5, 0.5, 0.25)) if quick else (
        (3, 1, 1.0, 0.5, 1), (5, 3, 1 / 3, 0.5, 1), (5, 3, 1 / 3, 0.5, 0.5),
        (7, 5, 0.2, 0.5, 1), (8, 3, 1 / 3, 0.75, 1), (8, 0, 0.5, 0.5, 0.25),
        (12, 0, 0.5, 0.5, 0.25), (12, 0, 0.2, 0.5, 0.25))
    for d, r, rho, kappa, frac in cases:
        for eta in (frac * rho * (1 - kappa),):
            bound = float(evaluate_bound(LEMMA42_UPDATES, d=d, eta=eta, rho=rho, kappa=kappa))
            X, Y = greedy_sequence(d, r, rho, eta, kappa, cap=int(min(bound, 10 ** 4)) + 5)
            data = [(tuple(float(v) for v in x), int(y > 0)) for x, y in zip(X, Y, strict=True)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = ConfidentWinnow(d, rho, eta=eta, kappa=kappa).run(data) if data else {
                    "updates": 0}
            ups = int(out["updates"])
            ok = ups <= bound
            yield Evidence("greedy adversary: each round the unconfident example whose update "
                           "lowers KL(w*‖w) least (" + (
                               "w* = e_1, x = (ρ, ±1, …)" if r == 0 else
                               "w* uniform on r coordinates, x ∈ {−1, 1}^d") + ")",
                           {"d": d, "r": r, "rho": round(rho, 6), "kappa": kappa,
                            "eta": round(eta, 6)},
                           {"updates (library ConfidentWinnow)": ups,
                            "examples": len(data)}, bound, ok, bound - ups,
                           None if ok else {"examples": data}, "", tight(ups, bound))
    cases = TIGHT_CASES_QUICK if quick else TIGHT_CASES_QUICK + TIGHT_CASES_FULL
    for d, rho, kappa, frac in cases:
        eta = frac * rho * (1 - kappa)
        bound = float(evaluate_bound(LEMMA42_UPDATES, d=d, eta=eta, rho=rho, kappa=kappa))
        X = hoeffding_tight_sequence(d, rho, eta, kappa, cap=int(bound) + 5)
        ups = _winnow_updates(d, rho, eta, kappa, X)
        ok = ups <= bound
        yield Evidence("the proof's extremal case made tight: w* = e_1, x = (ρ, ±1, …, ±1, one "
                       "fractional) with ⟨w, x⟩ = κρ − 1e-9 every round (both inequalities of "
                       "the potential argument nearly met)",
                       {"d": d, "rho": rho, "kappa": kappa, "eta": round(eta, 6)},
                       {"updates (library ConfidentWinnow)": ups, "examples": len(X)}, bound,
                       ok, bound - ups, None if ok else {"examples": X.tolist()},
                       "the potential is left at ln((1 + ρ)/(1 + κρ)) when no unconfident "
                       "example remains", tight(ups, bound))


# ----------------------------------------------------------------------------- Lemma 4.6

def sign_error(n: int, margin: float) -> float:
    """P[⟨ŵ, x⟩ ≤ 0] for N = n draws when ⟨w, x⟩ = margin and x ∈ {−1, 1}^d (exact)."""
    return float(binom.cdf(n // 2, n, (1 + margin) / 2))


#: (β, κρ) where Hoeffding's exponent is nearly exact and its missing 1/√(ln(1/β)) factor is
#: what the bound spends: here 90% of the draws already fail with probability 1.79β (β = 1e-20)
#: and 34β (β = 1e-30, κρ = 0.05), so the draw count's constant 2 is needed in full
TINY_BETA = ((1e-20, 0.2), (1e-30, 0.05))


def _binom_cdf_exact(n: int, p: Fraction, kmax: int) -> Fraction:
    """P[Bin(n, p) ≤ kmax] in exact rationals."""
    return sum((Fraction(math.comb(n, k)) * p ** k * (1 - p) ** (n - k)
                for k in range(kmax + 1)), Fraction(0))


def sign_error_exact(n: int, margin: Fraction) -> Fraction:
    """P[Bin(n, (1 + margin)/2) ≤ n/2] in exact rationals (the reference for ``sign_error``)."""
    return _binom_cdf_exact(n, (1 + margin) / 2, n // 2)


def skewed_sign_error(n: int, margin: Fraction, a: Fraction) -> Fraction:
    """P[⟨ŵ, x⟩ ≤ 0] (exact rationals) for N = n draws from w = (q, 1 − q), x = (1, −a),
    q = (margin + a)/(1 + a), so ⟨w, x⟩ = margin: with K draws of the first coordinate,
    ⟨ŵ, x⟩ = (K − (n − K)a)/n ≤ 0 iff K(1 + a) ≤ na (a strict sign error unless equality)."""
    return _binom_cdf_exact(n, (margin + a) / (1 + a), math.floor(n * a / (1 + a)))


#: (β, κρ, a) for the two-point rows: N = 1 draw (β ≥ e^{−(κρ)²/2}) where the failure is
#: (1 − κρ)/(1 + a), 0.95β at κρ = 1/20; and two rows at smaller β where a ≈ 1 beats ±1
SKEWED = ((Fraction(999, 1000), Fraction(1, 20), Fraction(1, 1000)),
          (Fraction(1, 2), Fraction(1, 5), Fraction(17, 18)),
          (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)))


def _lemma46_skewed(quick: bool) -> Iterator[Evidence]:
    for beta, margin, a in SKEWED[:1] if quick else SKEWED:
        n = math.ceil(float(evaluate_bound(LEMMA46_DRAWS, beta=float(beta), kappa=float(margin),
                                           rho=1.0)))
        fail = skewed_sign_error(n, margin, a)
        pm1 = sign_error_exact(n, margin)
        bound = float(evaluate_bound(LEMMA46_FAILURE, beta=float(beta)))
        ok = float(fail) <= bound
        yield Evidence("x = (1, −a) ∈ [−1, 1]², w = ((κρ + a)/(1 + a), (1 − κρ)/(1 + a)): each "
                       "draw is 1 or −a, ⟨w, x⟩ = κρ (exact rationals)",
                       {"beta": float(beta), "κρ": float(margin), "a": float(a), "N": n},
                       {"P[sign error] (exact)": float(fail),
                        "P[sign error] at x ∈ {−1, 1}^d": float(pm1),
                        "failure/β": float(fail / beta)}, bound, ok, bound - float(fail),
                       None if ok else {"N": n, "margin": str(margin), "a": str(a)},
                       "a draw of −a < 0 is a strict sign error; at N = 1 the failure is "
                       "(1 − κρ)/(1 + a) → 1 − κρ, so failure/β → 1 as κρ → 0 (β attained in "
                       "the limit); x ∈ {−1, 1}^d reaches at most 3/4 of β",
                       tight(float(fail), bound))


def _lemma46(quick: bool) -> Iterator[Evidence]:
    yield from _lemma46_skewed(quick)
    grid = ((0.1, 0.5), (0.01, 0.2), *TINY_BETA[:1]) if quick else tuple(
        (b, m) for b in (0.3, 0.1, 0.01, 1e-4) for m in (0.05, 0.2, 0.5, 0.9)) + TINY_BETA
    for beta, margin in grid:
        rho, kappa = 1.0, margin                             # κρ = margin, ρ ≤ 1
        n = math.ceil(float(evaluate_bound(LEMMA46_DRAWS, beta=beta, kappa=kappa, rho=rho)))
        fail = sign_error(n, margin)
        bound = float(evaluate_bound(LEMMA46_FAILURE, beta=beta))
        ok = fail <= bound
        yield Evidence("x ∈ {−1, 1}^d with ⟨w, x⟩ = κρ exactly (each draw ±1; a tie counted as "
                       "a sign error)", {"beta": beta, "κρ": margin, "N": n},
                       {"P[sign⟨ŵ,x⟩ ≠ sign⟨w,x⟩] (exact)": fail}, bound, ok, bound - fail,
                       None if ok else {"N": n, "margin": margin}, "", tight(fail, bound))


# ----------------------------------------------------------------------------- Lemma A.3

def constant_tail(p: float, q: float, T: int) -> float:
    """P[Z > q] for p_t = p in each of T rounds: Z = p·(tails before the first head, at most
    T), so P[Z > q] = (1 − p)^{⌊q/p⌋+1} if ⌊q/p⌋ < T, else 0."""
    m = math.floor(q / p + 1e-12)
    return (1 - p) ** (m + 1) if m < T else 0.0


def adaptive_tail(q: float, T: int, grid: int) -> float:
    """The largest P[Z > q] over adaptive adversaries choosing p_t ∈ {1/G, …, 1} (G = grid) in
    T rounds, by dynamic programming on the accumulated Z (in units of 1/G) before the first
    head (a head in round t stops Z before p_t is added):
    V_t(z) = max_p (1 − p)·V_{t+1}(z + p), V(z) = 1 once z > q, V_{T+1}(z) = 1{z > q}."""
    Q = int(math.floor(q * grid + 1e-9))                     # z > q  ⟺  z_units > Q
    V = np.zeros(Q + 1)                                      # states z = 0..Q (above: done)
    ps = np.arange(1, grid + 1) / grid
    for _ in range(T):
        z = np.arange(Q + 1)[:, None] + np.arange(1, grid + 1)[None, :]
        over = z > Q
        cont = np.where(over, 1.0, V[np.minimum(z, Q)])      # past q: the event holds already
        V = ((1 - ps)[None, :] * cont).max(axis=1)
    return float(V[0])


def _lemmaa3(quick: bool) -> Iterator[Evidence]:
    for q in (1.0, 3.0) if quick else (0.5, 1.0, 3.0, 6.0):
        bound = float(evaluate_bound(LEMMAA3_TAIL, q=q))
        for p in (0.01, 0.001) if quick else (0.1, 0.01, 0.001, 0.0001):
            T = int(10 * q / p)
            v = constant_tail(p, q, T)
            ok = v <= bound
            yield Evidence("constant p_t = p for T rounds (exact)", {"q": q, "p": p, "T": T},
                           {"P[Z > q]": v}, bound, ok, bound - v,
                           None if ok else {"p": p, "q": q, "T": T},
                           "→ e^{−q} as p → 0", tight(v, bound))
        G = 20 if quick else 50
        T = int(4 * q * G)
        v = adaptive_tail(q, T, G)
        ok = v <= bound * (1 + 1e-12)
        yield Evidence("the worst adaptive adversary with p_t on the grid {1/G, …, 1} "
                       "(dynamic programming, exact)", {"q": q, "G": G, "T": T},
                       {"max P[Z > q]": v}, bound, ok, bound - v,
                       None if ok else {"q": q, "G": G, "T": T}, "", tight(v, bound))


# ----------------------------------------------------------------------------- the checks

CHECKS = [
    Check("bunfang.lemma4.2", SOURCE, "Lemma 4.2 (ConfidentWinnow's updates; form of Appendix B)",
          "If w* ≥ 0, ‖w*‖₁ = 1 and y_t⟨w*, x_t⟩ ≥ ρ for all t, ConfidentWinnow with rate η and "
          "confidence ratio κ makes at most ln d/(ηρ(1 − κ) − η²/2) updates, for any update "
          "instructions (the lost formula as Appendix B's proof derives it).", LEMMA42_UPDATES,
          _lemma42,
          falsifiable="fails if the greedy adversary's sequence makes the library's "
                      "ConfidentWinnow update more often than the bound"),
    Check("bunfang.lemma4.6", SOURCE, "Lemma 4.6 (sampled weights keep the sign; form of "
          "Appendix D)",
          "If |⟨w, x⟩| ≥ κρ, ‖x‖∞ ≤ 1 and ŵ is the empirical distribution of N ≥ 2 ln(1/β)/(κρ)² "
          "draws from w, then sign⟨ŵ, x⟩ = sign⟨w, x⟩ with probability ≥ 1 − β (the lost "
          "formula as Appendix D's Hoeffding step derives it).", LEMMA46_DRAWS, _lemma46,
          falsifiable="exact (binomial): fails if the sign-error probability exceeds β at "
                      "x ∈ {−1, 1}^d or at the two-point x = (1, −a), which reaches 0.95β "
                      "(→ β as κρ → 0: the bound is attained in the limit)"),
    Check("bunfang.lemmaA.3", SOURCE, "Lemma A.3 (Gupta et al.'s coin process)",
          "T rounds, p_t chosen adaptively, a p_t-coin tossed; with Y_t = [no head within the "
          "first t steps] and Z = Σ_t Y_t p_t, P[Z > q] ≤ e^{−q} for every q.", LEMMAA3_TAIL,
          _lemmaa3, kind="bound",
          falsifiable="exact: fails if some constant or (grid-)adaptive adversary makes "
                      "P[Z > q] exceed e^{−q}; constant small p comes within 0.1% of it"),
]

CHECKS = declare(CHECKS, {
    "bunfang.lemma4.2": (Mutable(__name__, "LEMMA42_UPDATES", -1,
                                 ({"d": 5, "eta": 1 / 6, "rho": 1 / 3, "kappa": 0.5},)),),
    "bunfang.lemma4.6": (Mutable(__name__, "LEMMA46_DRAWS", -1,
                                 ({"beta": 0.1, "kappa": 0.5, "rho": 1.0},)),
                         Mutable(__name__, "LEMMA46_FAILURE", -1, ({"beta": 0.1},))),
    "bunfang.lemmaA.3": (Mutable(__name__, "LEMMAA3_TAIL", -1, ({"q": 1.0},)),),
})
