"""Checks of Bun & Fang, "Privately Learning Decision Lists and a Differentially Private Winnow"
(arXiv 2602.07370; seed ``000_999a11082cbb8294.txt``): Proposition 3.3 and Lemma 4.10.

- Proposition 3.3 (the covering algorithm never gets stuck): for a sample labelled by an
  F-decision list L and *any* sequence of features f removed by the covering algorithm, the
  remaining sample (the examples on which every removed feature is 0) is consistent with a
  decision list over the remaining features — the proof's witness is L without the removed terms,
  which is checked directly.  End to end, Rivest's learner (``RivestDecisionListLearner``) must
  return a list consistent with every realizable sample, without raising.
- Lemma 4.10 (decision lists as large-margin halfspaces): every monotone 1-decision list of
  length ℓ with r alternations is a halfspace with margin depending on ℓ and r only.  The margin
  formula was lost in the seed's extraction and could not be retrieved from the published text
  (the arXiv HTML in the search corpus only yields the abstract): the margin of the explicit
  weights is computed exactly with ``fractions`` and reported beside the reference 1/(ℓ+1)^{r+1}
  ("measured"); what is exact is checked as bounds and values: the weights represent the list on
  all of {0,1}^n (margin > 0), the nonnegative transform x ↦ (x, −x), w ↦ (w⁺, w⁻) keeps the
  margin, and ``ltheory.privacy.learners.winnow.decision_list_halfspace`` returns the exact
  margin of its weights.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from fractions import Fraction

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.learners.decision_lists import (
    RivestDecisionListLearner,
    conjunction_features,
)
from ltheory.privacy.learners.winnow import decision_list_halfspace
from proofs_check.base import Check, Evidence

SOURCE = "000_999a11082cbb8294.txt"


# ----------------------------------------------------------------------------- Prop. 3.3

def _eval_list(values: np.ndarray, rules: list[tuple[int, int]], default: int,
               xs: np.ndarray) -> np.ndarray:
    out = np.full(len(xs), default, dtype=np.uint8)
    undecided = np.ones(len(xs), dtype=bool)
    for j, b in rules:
        fire = values[j, xs] & undecided
        out[fire] = b
        undecided &= ~fire
    return out


def _prop33_cases(quick: bool) -> Iterator[tuple[int, int, int]]:
    for n, k in ((3, 1), (3, 2), (4, 1)) if quick else ((3, 1), (3, 2), (4, 1), (4, 2), (5, 1)):
        for seed in range(4 if quick else 12):
            yield n, k, seed


def _prop33(quick: bool) -> Iterator[Evidence]:
    for n, k, seed in _prop33_cases(quick):
        F = conjunction_features(n, k)
        rng = np.random.default_rng(seed)
        nf = len(F) - 1                                    # the last feature is constant true
        length = int(rng.integers(1, min(nf, 6) + 1))
        feats = rng.choice(nf, size=length, replace=False)
        rules = [(int(j), int(rng.integers(0, 2))) for j in feats]
        default = int(rng.integers(0, 2))
        xs = rng.integers(0, 1 << n, size=int(rng.integers(4, 3 << n)))
        ys = _eval_list(F.values, rules, default, xs)
        # (a) every removal sequence keeps the proof's witness consistent
        stuck = None
        orders = 0
        for _ in range(20 if quick else 60):
            order = rng.permutation(len(F))[: int(rng.integers(1, len(F) + 1))]
            alive = np.ones(len(xs), dtype=bool)
            removed: set[int] = set()
            for f in order:
                removed.add(int(f))
                alive &= ~F.values[int(f), xs]
                witness = [(j, b) for j, b in rules if j not in removed]
                if alive.any() and not np.array_equal(
                        _eval_list(F.values, witness, default, xs[alive]), ys[alive]):
                    stuck = {"rules": rules, "default": default, "removed": sorted(removed)}
                    break
            orders += 1
            if stuck:
                break
        # (b) Rivest's learner on the realizable sample
        data = [(int(x), int(y)) for x, y in zip(xs, ys, strict=True)]
        learner = RivestDecisionListLearner(F)
        try:
            table = learner.fit(data, np.random.default_rng(0))
            consistent = all(table[x] == str(y) for x, y in data)
            err = ""
        except InvalidInputError as exc:  # "stuck": the proposition says this never happens
            consistent, err = False, f"{type(exc).__name__}: {exc}"
        ok = stuck is None and consistent
        yield Evidence("random F-decision list, random sample", {"n": n, "k": k, "seed": seed},
                       {"|F|": len(F), "length": length, "|S|": len(xs),
                        "removal orders tried": orders, "witness consistent": stuck is None,
                        "Rivest output consistent": consistent},
                       "consistent at every iteration", ok, None,
                       None if ok else {"stuck": stuck, "error": err, "sample": data})
    # exhaustive: every decision list of length <= 2 over literals of {0,1}^2, full cube sample
    F = conjunction_features(2, 1)
    xs = np.arange(4)
    total, bad, errors = 0, [], []
    for length in (0, 1, 2):
        for feats in itertools.permutations(range(len(F) - 1), length):
            for bits in itertools.product((0, 1), repeat=length + 1):
                rules = list(zip(feats, bits[:-1], strict=True))
                ys = _eval_list(F.values, rules, bits[-1], xs)
                data = [(int(x), int(y)) for x, y in zip(xs, ys, strict=True)]
                total += 1
                try:
                    table = RivestDecisionListLearner(F).fit(data, np.random.default_rng(0))
                    if any(table[x] != str(y) for x, y in data):
                        bad.append(rules)
                except InvalidInputError as exc:  # stuck on a realizable sample
                    bad.append(rules)
                    errors.append(str(exc))
    yield Evidence("every literal decision list of length ≤ 2 on {0,1}^2 (all 4 points)",
                   {"n": 2}, {"lists": total, "failures": len(bad)}, 0, not bad, -len(bad),
                   {"lists": bad[:3], "errors": errors[:3]} if bad else None)


# ----------------------------------------------------------------------------- Lemma 4.10

def exact_halfspace(rules: list[tuple[int, int]], default: int,
                    n: int) -> tuple[list[Fraction], Fraction]:
    """Weights w on (x_1…x_n, 1), ‖w‖₁ = 1, for the monotone 1-decision list "if x_v then b …
    else default": blocks of consecutive equal outputs share a weight that exceeds twice the
    total weight of everything after the block; predict 1 iff ⟨w, (x, 1)⟩ > 0.  Returns the
    weights and the exact margin min_x (2f(x)−1)⟨w, (x, 1)⟩ over {0,1}^n."""
    signs = [2 * b - 1 for _, b in rules]
    weights = [Fraction(0)] * len(rules)
    later = Fraction(1)
    j = len(rules) - 1
    while j >= 0:
        i = j
        while i - 1 >= 0 and signs[i - 1] == signs[j]:
            i -= 1
        for q in range(i, j + 1):
            weights[q] = 2 * later
        later += 2 * later * (j - i + 1)
        j = i - 1
    w = [Fraction(0)] * (n + 1)
    for (v, _), s, wt in zip(rules, signs, weights, strict=True):
        if w[v] == 0:
            w[v] = s * wt
    w[n] = Fraction(2 * default - 1)
    norm = sum(abs(c) for c in w)
    w = [c / norm for c in w]
    return w, _margin(w, rules, default, n)


def _label(rules: list[tuple[int, int]], default: int, x: tuple[int, ...]) -> int:
    for v, b in rules:
        if x[v]:
            return b
    return default


def _margin(w: list[Fraction], rules: list[tuple[int, int]], default: int,
            n: int) -> Fraction:
    best = None
    for x in itertools.product((0, 1), repeat=n):
        s = sum((wi for wi, xi in zip(w, x, strict=False) if xi), w[n])
        val = (2 * _label(rules, default, x) - 1) * s
        best = val if best is None or val < best else best
    return best


def _alternations(rules: list[tuple[int, int]], default: int) -> int:
    bits = [b for _, b in rules] + [default]
    return sum(1 for a, b in itertools.pairwise(bits) if a != b)


def _lists(quick: bool) -> Iterator[tuple[int, list[tuple[int, int]], int]]:
    rng = np.random.default_rng(4010)
    for n in (3, 5, 7) if quick else (3, 5, 7, 9, 11):
        for _ in range(4 if quick else 10):
            length = int(rng.integers(1, n + 1))
            vs = rng.choice(n, size=length, replace=False)
            rules = [(int(v), int(rng.integers(0, 2))) for v in vs]
            yield n, rules, int(rng.integers(0, 2))
        # extremal alternation patterns: all equal, and alternating at every step
        yield n, [(v, 1) for v in range(n)], 0
        yield n, [(v, v % 2) for v in range(n)], n % 2


def _lemma410(quick: bool) -> Iterator[Evidence]:
    for n, rules, default in _lists(quick):
        ell, r = len(rules), _alternations(rules, default)
        w, margin = exact_halfspace(rules, default, n)
        # nonnegative transform on 2(n+1) coordinates: same margin
        wn = [max(c, 0) for c in w] + [max(-c, 0) for c in w]
        m2 = None
        for x in itertools.product((0, 1), repeat=n):
            phi = list(x) + [1] + [-xi for xi in x] + [-1]
            val = (2 * _label(rules, default, x) - 1) * sum(a * b for a, b in
                                                            zip(wn, phi, strict=True))
            m2 = val if m2 is None or val < m2 else m2
        # the library's weights (floats) and its reported margin
        lw, lmargin = decision_list_halfspace(rules, default, n)
        lwf = [Fraction(float(c)) for c in lw]
        lexact = None
        for x in itertools.product((0, 1), repeat=n):
            phi = list(x) + [1] + [-xi for xi in x] + [-1]
            val = (2 * _label(rules, default, x) - 1) * sum(a * b for a, b in
                                                            zip(lwf, phi, strict=True))
            lexact = val if lexact is None or val < lexact else lexact
        ref = Fraction(1, (ell + 1) ** (r + 1))
        ok = margin > 0 and m2 == margin and lexact > 0 and abs(float(lexact) - lmargin) < 1e-12
        yield Evidence("monotone 1-decision list", {"n": n, "ℓ": ell, "r": r,
                                                     "rules": rules, "default": default},
                       {"exact margin": margin, "margin (float)": float(margin),
                        "nonneg transform margin equal": m2 == margin,
                        "library margin": lmargin, "library exact margin": float(lexact),
                        "reference 1/(ℓ+1)^(r+1)": float(ref),
                        "margin·(ℓ+1)^(r+1)": float(margin / ref)},
                       "margin > 0 (represents the list); same margin after transform", ok,
                       float(margin), None if ok else {"weights": [str(c) for c in w]},
                       "the published margin formula was not retrievable: the value is "
                       "measured against 1/(ℓ+1)^(r+1)")


CHECKS = [
    Check("bunfang.prop3.3", SOURCE, "Proposition 3.3",
          "For a sample labelled by an F-decision list, at every iteration of the covering "
          "algorithm some decision list over the remaining features is consistent with the "
          "remaining sample (so Rivest's algorithm never gets stuck).", None, _prop33),
    Check("bunfang.lemma4.10", SOURCE, "Lemma 4.10",
          "Every monotone 1-decision list over n variables of length ℓ with r alternations is a "
          "halfspace with a margin depending on ℓ, r only; the nonnegative transform keeps the "
          "margin.  (The margin formula was lost in extraction and is not asserted: the exact "
          "margin of the explicit weights is reported.)", None, _lemma410),
]
