"""The constructions of the catalog's families, one [`Family`][ltheory.catalog.Family] record each.

A [`Family`][ltheory.catalog.Family] ties a name to its builder (parameters ->
[`HypothesisClass`][ltheory.HypothesisClass]), its
domain size (checked against [`MAX_CELLS`][ltheory.catalog.MAX_CELLS] before building, with the size
formula of the
family's data file), and an optional validator of parameter combinations.  The schema --
parameters, size formula, known values -- is the data file ``data/<name>.toml``.  Adding a
family is one record in [`FAMILIES`][ltheory.catalog.FAMILIES] and one data file.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ltheory.catalog.halfspaces import TooManyDichotomies, halfspace_dichotomies
from ltheory.core import HypothesisClass
from ltheory.errors import InvalidInputError

__all__ = ["FAMILIES", "MAX_CELLS", "Family", "planted_points"]

MAX_CELLS = 1 << 22
"""Largest number of matrix cells (hypotheses x domain points) a family will build."""

HALFSPACE_MAX_CELLS = 1 << 25
"""The halfspaces family's own cell limit (``halfspaces g=5 dim=3``: 247,178 dichotomies of 125
points, 30.9 million cells, built in seconds by the combinatorial enumeration)."""

HALFSPACE_MAX_SUBSETS = 2_000_000
"""The most top-level point subsets (C(g^dim, dim)) the halfspace enumeration is allowed."""


@dataclass(frozen=True)
class Family:
    """A catalog family: ``build(**params)``, ``domain_size(params)``, ``validate(params)``
    (raises [`InvalidInputError`][ltheory.InvalidInputError] for a bad combination; None when every
    combination
    within the declared ranges is fine)."""

    name: str
    build: Callable[..., HypothesisClass]
    domain_size: Callable[[Mapping[str, Any]], int]
    validate: Callable[[Mapping[str, Any]], None] | None = None


def _cube_labels(n: int) -> list[str]:
    """The points of {0,1}^n as strings "x_1...x_n", in lexicographic order (x_1 first)."""
    return ["".join(bits) for bits in itertools.product("01", repeat=n)]


def _cube(n: int) -> np.ndarray:
    """(2^n, n) uint8 array: row r is the point with label _cube_labels(n)[r]."""
    if n == 0:
        return np.zeros((1, 0), dtype=np.uint8)
    r = np.arange(1 << n)
    return ((r[:, None] >> np.arange(n - 1, -1, -1)[None, :]) & 1).astype(np.uint8)


def _thresholds(n: int) -> HypothesisClass:
    """h_t(x) = 1 iff x >= t on X = {0..n-1}, t = 0..n (t = n is the all-zero function)."""
    x = np.arange(n)
    mat = (x[None, :] >= np.arange(n + 1)[:, None]).astype(np.uint8)
    return HypothesisClass.from_matrix(mat, domain=n)


def _intervals(n: int, empty: bool) -> HypothesisClass:
    """Indicators of [a, b] = {x : a <= x <= b}, 0 <= a <= b < n; plus the empty set if asked."""
    x = np.arange(n)
    a, b = np.triu_indices(n)
    mat = ((x[None, :] >= a[:, None]) & (x[None, :] <= b[:, None])).astype(np.uint8)
    if empty:
        mat = np.vstack([np.zeros((1, n), dtype=np.uint8), mat])
    return HypothesisClass.from_matrix(mat, domain=n)


def _points(n: int, zero: bool) -> HypothesisClass:
    """Point functions h_a(x) = 1 iff x = a on {0..n-1}; plus the all-zero function if asked."""
    mat = np.eye(n, dtype=np.uint8)
    if zero:
        mat = np.vstack([np.zeros((1, n), dtype=np.uint8), mat])
    return HypothesisClass.from_matrix(mat, domain=n)


def _literal_terms(n: int, k: int, monotone: bool) -> list[tuple[tuple[int, int], ...]]:
    """All sets of at most k literals (i, sign) on distinct variables; sign 1 = x_i, 0 = not x_i."""
    terms: list[tuple[tuple[int, int], ...]] = []
    for size in range(min(k, n) + 1):
        for vars_ in itertools.combinations(range(n), size):
            signs = [(1,)] * size if monotone else [(0, 1)] * size
            for s in itertools.product(*signs):
                terms.append(tuple(zip(vars_, s, strict=True)))
    return terms


def _term_matrix(X: np.ndarray, terms: list[tuple[tuple[int, int], ...]]) -> np.ndarray:
    """Row j: the conjunction terms[j] evaluated on every row of X."""
    out = np.ones((len(terms), X.shape[0]), dtype=bool)
    for j, t in enumerate(terms):
        for i, s in t:
            out[j] &= X[:, i] == s
    return out


def _conjunctions(n: int, k: int, monotone: bool) -> HypothesisClass:
    """Conjunctions of at most k literals (no variable twice) on {0,1}^n; empty = constant 1."""
    X = _cube(n)
    mat = _term_matrix(X, _literal_terms(n, k, monotone))
    return HypothesisClass.from_matrix(mat, domain=_cube_labels(n))


def _disjunctions(n: int, k: int, monotone: bool) -> HypothesisClass:
    """Disjunctions of at most k literals (no variable twice) on {0,1}^n; empty = constant 0."""
    X = _cube(n)
    terms = _literal_terms(n, k, monotone)
    mat = np.zeros((len(terms), X.shape[0]), dtype=bool)
    for j, t in enumerate(terms):
        for i, s in t:
            mat[j] |= X[:, i] == s
    return HypothesisClass.from_matrix(mat, domain=_cube_labels(n))


def _parities(n: int) -> HypothesisClass:
    """chi_S(x) = XOR of x_i over i in S, for all 2^n subsets S of [n] (S empty = constant 0)."""
    X = _cube(n).astype(np.int64)
    S = _cube(n).astype(np.int64)
    mat = (S @ X.T) % 2
    return HypothesisClass.from_matrix(mat.astype(np.uint8), domain=_cube_labels(n))


def _decision_lists(n: int, k: int, monotone: bool) -> HypothesisClass:
    """k-decision lists (Rivest 1987) on {0,1}^n: the functions "if t_1 then b_1 elif t_2 ...
    else b_{r+1}" with each t_i a conjunction of at most k literals (only positive literals when
    ``monotone``), any length r >= 0.

    Exact enumeration of the distinct functions by dynamic programming over the set S of points
    not yet decided: F(S) = {0_S, 1_S} U {b on S∩t, then g : t a term, b a bit, g in F(S \\ t)}.
    Terms that decide no point of S are skipped (they do not change the function).

    Two values derived here (checked exactly by the catalog tests):

    * k = 1: VC = n + 1.  The points 0, e_1..e_n are shattered by monotone lists ("if x_i then
      y(e_i)" for each i with y(e_i) != y(0), then "else y(0)").  And a 1-decision list
      (l_1, b_1), ..., (l_r, b_r), default b, is the halfspace sign(sum_i s_i 2^(r-i+1) l_i(x)
      + s_0) with s = +1 for a 1 and -1 for a 0 (the first literal that fires outweighs all later
      terms, whose total is at most 2^(r-i+1) - 1); literals are affine in x, and halfspaces in
      R^n have VC dimension n + 1 (Shalev-Shwartz & Ben-David 2014, Theorem 9.3).
    * not monotone (any k >= 1): T = 2^n.  In lexicographic order (x_1 most significant) the
      up-set {x >=_lex v} is the 1-decision list "for i = 1..n: if v_i = 1, 'if not x_i then 0';
      if v_i = 0, 'if x_i then 1'; else 1", so all 2^n points, in that order, are
      threshold-shattered; and T <= |X|.
    """
    X = _cube(n)
    N = X.shape[0]
    terms = _term_matrix(X, _literal_terms(n, k, monotone))
    term_masks = sorted({sum(1 << int(i) for i in np.flatnonzero(row)) for row in terms} - {0})
    full = (1 << N) - 1
    memo: dict[int, frozenset[int]] = {}
    budget = MAX_CELLS // max(N, 1)

    def F(S: int) -> frozenset[int]:
        got = memo.get(S)
        if got is not None:
            return got
        out = {0, S}
        for t in term_masks:
            hit = S & t
            if not hit:
                continue
            for g in F(S & ~t):
                out.add(g)
                out.add(g | hit)
            if len(out) > budget:
                raise InvalidInputError(
                    f"decision_lists: n={n} k={k} has more than {budget} functions on "
                    f"{N} points, beyond the catalog's limit of {MAX_CELLS} cells")
        res = frozenset(out)
        memo[S] = res
        return res

    funcs = sorted(F(full))
    bits = np.array([[(f >> i) & 1 for i in range(N)] for f in funcs], dtype=np.uint8)
    return HypothesisClass.from_matrix(bits.reshape(len(funcs), N), domain=_cube_labels(n))


def _halfspaces(g: int, dim: int) -> HypothesisClass:
    """Strictly separable dichotomies of the grid {0..g-1}^dim: labellings y for which some
    (w, b) has w·x + b > 0 where y(x) = 1 and w·x + b < 0 where y(x) = 0 (all-0/all-1 included).

    Enumerated exactly and combinatorially (hyperplanes through dim affinely independent grid
    points, the points on them labelled recursively; no LP) by
    [`ltheory.catalog.halfspace_dichotomies`][ltheory.catalog.halfspace_dichotomies],
    whose docstring proves it; the LP
    enumeration (``method="lp"``) is kept there as the cross-check.
    """
    pts = np.array(list(itertools.product(range(g), repeat=dim)), dtype=np.int64).reshape(-1, dim)
    N = pts.shape[0]
    limit = HALFSPACE_MAX_CELLS // max(N, 1)
    try:
        mat = halfspace_dichotomies(pts, limit=limit)
    except TooManyDichotomies:
        raise InvalidInputError(f"halfspaces: g={g} dim={dim} has more than {limit} "
                                f"dichotomies on {N} points, beyond the family's "
                                f"{HALFSPACE_MAX_CELLS}-cell limit") from None
    labels = ["(" + ",".join(str(int(c)) for c in p) + ")" for p in pts]
    return HypothesisClass.from_matrix(mat, domain=labels)


def _rectangles(g: int, dim: int) -> HypothesisClass:
    """Axis-parallel boxes on the grid {0..g-1}^dim: indicators of [a_1, b_1] x ... x [a_dim,
    b_dim] (0 <= a_i <= b_i < g), plus the empty set."""
    pts = np.array(list(itertools.product(range(g), repeat=dim)), dtype=np.int64).reshape(-1, dim)
    lo, hi = np.triu_indices(g)  # the g(g+1)/2 intervals [lo, hi] of one axis
    inside = (pts[None, :, :] >= lo[:, None, None]) & (pts[None, :, :] <= hi[:, None, None])
    rows = np.ones((1, pts.shape[0]), dtype=bool)
    for axis in range(dim):  # boxes = products of one interval per axis
        rows = (rows[:, None, :] & inside[None, :, :, axis]).reshape(-1, pts.shape[0])
    mat = np.vstack([np.zeros((1, pts.shape[0]), dtype=bool), rows]).astype(np.uint8)
    labels = ["(" + ",".join(str(int(c)) for c in p) + ")" for p in pts]
    return HypothesisClass.from_matrix(mat, domain=labels)


def _interval_unions(n: int, k: int) -> HypothesisClass:
    """Unions of at most k intervals of [n] = {0..n-1}: the 0/1 strings with at most k maximal
    runs of 1s (the empty union included).  A string with j runs is fixed by the 2j positions,
    among the n + 1 gaps, where it switches, so there are sum_j C(n + 1, 2j) of them."""
    rows = []
    for j in range(min(k, (n + 1) // 2) + 1):
        for cuts in itertools.combinations(range(n + 1), 2 * j):
            row = np.zeros(n, dtype=np.uint8)
            for a, b in zip(cuts[::2], cuts[1::2], strict=True):
                row[a:b] = 1
            rows.append(row)
    return HypothesisClass.from_matrix(np.array(rows, dtype=np.uint8).reshape(len(rows), n),
                                       domain=n)


def _majority(n: int) -> HypothesisClass:
    """Majority functions on {0,1}^n: maj_S(x) = 1 iff more than half of the variables in S are
    1 (strictly: a tie gives 0), for every non-empty S ⊆ [n]."""
    X = _cube(n).astype(np.int64)
    S = _cube(n)[1:].astype(np.int64)  # non-empty subsets as indicator rows
    mat = (2 * (S @ X.T) > S.sum(axis=1, keepdims=True)).astype(np.uint8)
    return HypothesisClass.from_matrix(mat.reshape(len(S), X.shape[0]), domain=_cube_labels(n))


def _tagged(base: HypothesisClass, t: int) -> HypothesisClass:
    """The tagged copies of ``base`` (Alon, Beimel, Moran & Stemmer 2020, proof of Proposition
    4.3): t new points z1..zt, and each h of ``base`` extended to them in all 2^t ways, i.e. the
    product class base x {0,1}^t on the disjoint union of the domains (rows: h-major).

    Its dimensions are those of ``base`` plus t (derived here; the catalog checks them exactly):

    * VC: S is shattered by the product iff S ∩ X is shattered by ``base`` (the tags take
      every pattern independently of h), so VC = VC(base) + t.
    * Ldim >= Ldim(base) + t is ABMS20's construction (ask the tags first, then a shattered tree
      of ``base``).  Ldim <= Ldim(base) + t: a learner predicting the base points with SOA for
      ``base`` (on the examples of the base points, which a single h labels) and each tag by its
      revealed label errs at most Ldim(base) times on base points and once per tag, and no
      learner's mistake bound is below Ldim (Shalev-Shwartz & Ben-David 2014, Lemma 21.6).
    * T >= T(base) + t: threshold-shatter the tags z1..zt first, then the witnesses x'_1..x'_T of
      ``base``; h_i (i <= t) takes h'_1 (1 on every x'_j) with tags 1 from z_i on, and h_{t+i}
      takes h'_i with all tags 0.  T <= T(base) + t: the points of a threshold-shattered sequence
      that lie in X (resp. among the tags) are threshold-shattered by the restrictions of the
      corresponding hypotheses, as in the proof of ABMS20 Observation 4.1, and T({0,1}^t) = t.
    """
    tags = _cube(t)
    mat = np.hstack([np.repeat(base.matrix, len(tags), axis=0),
                     np.tile(tags, (len(base), 1))]).astype(np.uint8)
    labels = [str(x) for x in base.domain] + [f"z{i + 1}" for i in range(t)]
    return HypothesisClass.from_matrix(mat, domain=labels)


def _tagged_thresholds(n: int, t: int) -> HypothesisClass:
    """Thresholds on [n] (half-intervals [a, n-1], and the empty set) with t tag points in all
    2^t patterns (`_tagged`): VC = min(n, 1) + t, Ldim = floor(log2(n + 1)) + t,
    T = n + t."""
    return _tagged(_thresholds(n), t)


def _tagged_points(n: int, t: int) -> HypothesisClass:
    """Singletons {a} of [n] (no empty set) with t tag points in all 2^t patterns
    (`_tagged`): VC = Ldim = min(n - 1, 1) + t, T = 1 + t (n >= 1)."""
    return _tagged(_points(n, zero=False), t)


def _threshold_blocks(k: int, t: int) -> HypothesisClass:
    """The union of k blocks of t thresholds on X = [k t] = {1..k t} (Alon, Beimel, Moran &
    Stemmer 2020, remark after Proposition 4.3; k = 2 is the tightness example of Observation
    4.1): H_i = {h_j : (i - 1) t < j <= i t} with h_j(x) = 1 iff j <= x; the class is the union
    {h_1..h_kt}.

    Derived here: T = k t (x_j = j with h_j; T <= |X|), Ldim = floor(log2(k t)) (the column
    x = k t is constant 1; on the other k t - 1 points the h_j are the k t thresholds of the
    thresholds family n = k t - 1, of Ldim floor(log2(k t))), VC = 1 for k t >= 2.
    """
    x = np.arange(1, k * t + 1)
    mat = (x[None, :] >= x[:, None]).astype(np.uint8)
    return HypothesisClass.from_matrix(mat, domain=[str(int(v)) for v in x])


def _weight_extremes(n: int, d1: int, d2: int) -> HypothesisClass:
    """Subsets of [n] of size at most d1 or at least n - d2: H1 ∪ H2 with H1 = weight_at_most n d1
    and H2 = weight_at_least n d2, the example showing that Alon, Beimel, Moran & Stemmer 2020,
    Proposition 4.2 (Ldim(H1 ∪ H2) <= Ldim(H1) + Ldim(H2) + 1) is tight.

    VC = Ldim = T = min(n, d1 + d2 + 1) (ABMS20 state VC = Ldim = d1 + d2 + 1 for
    n >= d1 + d2 + 1; the rest is derived here):

    * any m <= d1 + d2 + 1 points are shattered: a labelling with a ones and b zeros, a + b = m,
      has a <= d1 (the set of its ones is in H1) or b <= d2 (the complement of its zeros is in
      H2); for n < d1 + d2 + 1 this makes the class every subset of [n], so all three are n;
    * Ldim <= d1 + d2 + 1 is Proposition 4.2, and VC <= Ldim;
    * T >= m for m = min(n, d1 + d2 + 1): take h_i = {x_i..x_m} when m - i + 1 <= d1 and
      h_i = [n] minus {x_1..x_{i-1}} when i - 1 <= d2, which covers every i <= d1 + d2 + 1;
      T <= T(H1) + T(H2) = d1 + (d2 + 1) by ABMS20 Observation 4.1.
    """
    w = np.arange(n + 1)
    keep = (w <= d1) | (w >= n - d2)
    rows = [np.isin(np.arange(n), S).astype(np.uint8)
            for j in np.flatnonzero(keep) for S in itertools.combinations(range(n), int(j))]
    return HypothesisClass.from_matrix(np.array(rows, dtype=np.uint8).reshape(len(rows), n),
                                       domain=n)


def _affine(p: int, n: int, d: int, exact: bool) -> HypothesisClass:
    """Indicators of the affine subspaces a + V of F_p^n with dim V <= d (== d if ``exact``).

    Points are the vectors of F_p^n, labelled by their coordinates as digits ("012" for
    (0,1,2) when p <= 10, else comma-separated).  Linear subspaces are enumerated by growing
    spans (V of dimension j+1 = span(V, v) for v not in V), deduplicated as point sets, then
    translated by every vector; the number of affine subspaces of dimension j is
    p^(n-j) [n choose j]_p (Gaussian binomial).
    """
    N = p**n
    vecs = np.array(list(itertools.product(range(p), repeat=n)), dtype=np.int64).reshape(N, n)
    weights = p ** np.arange(n - 1, -1, -1, dtype=np.int64)

    def index(v: np.ndarray) -> np.ndarray:
        return (v % p) @ weights

    # add[i, j] = index of vecs[i] + vecs[j]
    add = index(vecs[:, None, :] + vecs[None, :, :]) if n else np.zeros((1, 1), dtype=np.int64)
    by_dim: list[set[frozenset[int]]] = [{frozenset([0])}]
    for _j in range(1, d + 1):
        grown: set[frozenset[int]] = set()
        for V in by_dim[-1]:
            members = np.fromiter(V, dtype=np.int64)
            for v in range(N):
                if v in V:
                    continue
                multiples = [int(index(c * vecs[v])) for c in range(p)]
                span = np.unique(add[members][:, multiples].ravel())
                grown.add(frozenset(int(s) for s in span))
        if not grown:
            break
        by_dim.append(grown)
    rows: list[np.ndarray] = []
    seen: set[bytes] = set()
    for j, layer in enumerate(by_dim):
        if exact and j != d:
            continue
        for V in layer:
            members = np.fromiter(V, dtype=np.int64)
            for a in range(N):
                row = np.zeros(N, dtype=np.uint8)
                row[add[a, members]] = 1
                key = row.tobytes()
                if key not in seen:
                    seen.add(key)
                    rows.append(row)
    sep = "" if p <= 10 else ","
    labels = [sep.join(str(int(c)) for c in v) for v in vecs]
    mat = np.array(rows, dtype=np.uint8).reshape(len(rows), N)
    return HypothesisClass.from_matrix(mat, domain=labels)


def _weight_at_most(n: int, d: int) -> HypothesisClass:
    """Indicator vectors of all subsets of [n] = {0..n-1} of size at most d."""
    rows = [np.isin(np.arange(n), S).astype(np.uint8)
            for j in range(min(d, n) + 1) for S in itertools.combinations(range(n), j)]
    return HypothesisClass.from_matrix(np.array(rows, dtype=np.uint8).reshape(len(rows), n),
                                       domain=n)


def _weight_at_least(n: int, d: int) -> HypothesisClass:
    """Indicator vectors of all subsets of [n] of size at least n - d (complements of the above)."""
    return _weight_at_most(n, d).complement()


def _random(m: int, n: int, p: float, seed: int) -> HypothesisClass:
    """m rows of i.i.d. Bernoulli(p) bits on n points from numpy.random.default_rng(seed),
    deduplicated (so the class may have fewer than m hypotheses)."""
    rng = np.random.default_rng(seed)
    mat = (rng.random((m, n)) < p).astype(np.uint8)
    return HypothesisClass.from_matrix(mat, domain=n)


def planted_points(m: int, n: int, d: int, p: float = 0.5, seed: int = 0) -> list[int]:
    """The planted shattered set of ``planted m n d p seed`` (sorted point indices)."""
    rng = np.random.default_rng(seed)
    return sorted(int(i) for i in rng.choice(n, size=d, replace=False))


def _planted(m: int, n: int, d: int, p: float, seed: int) -> HypothesisClass:
    """A random class with a planted shattered set.

    With rng = numpy.random.default_rng(seed): the planted set P = rng.choice(n, d,
    replace=False) (see [`planted_points`][ltheory.catalog.planted_points]), then an (m, n) matrix
    of Bernoulli(p) bits
    rng.random((m, n)) < p; rows 0..2^d-1 are overwritten on P with all 2^d patterns (row r gets
    the binary digits of r, least significant on the smallest point of P).  Deduplicated.
    """
    rng = np.random.default_rng(seed)
    P = np.sort(rng.choice(n, size=d, replace=False))
    mat = (rng.random((m, n)) < p).astype(np.uint8)
    r = np.arange(1 << d)
    mat[: 1 << d][:, P] = ((r[:, None] >> np.arange(d)[None, :]) & 1).astype(np.uint8)
    return HypothesisClass.from_matrix(mat, domain=n)


def _validate_planted(v: Mapping[str, Any]) -> None:
    if v["d"] > v["n"]:
        raise InvalidInputError(f"planted: d={v['d']} planted points need n >= d, got n={v['n']}")
    if (1 << v["d"]) > v["m"]:
        raise InvalidInputError(f"planted: shattering d={v['d']} points needs m >= 2^d = "
                                f"{1 << v['d']} hypotheses, got m={v['m']}")


def _validate_affine(v: Mapping[str, Any]) -> None:
    p = v["p"]
    if p < 2 or any(p % q == 0 for q in range(2, int(math.isqrt(p)) + 1)):
        raise InvalidInputError(f"affine: p must be a prime (the field F_p), got p={p}")
    if v["exact"] and v["d"] > v["n"]:
        raise InvalidInputError(f"affine: exact=true needs d <= n (no subspace of dimension "
                                f"{v['d']} in F_{p}^{v['n']})")
    if p ** v["n"] > 1024:
        raise InvalidInputError(f"affine: the domain F_{p}^{v['n']} has {p ** v['n']} points; "
                                "the catalog accepts at most 1024 (p^n <= 1024)")


def _validate_halfspaces(v: Mapping[str, Any]) -> None:
    N = v["g"] ** v["dim"]
    if math.comb(N, v["dim"]) > HALFSPACE_MAX_SUBSETS:
        raise InvalidInputError(f"halfspaces: the grid {v['g']}^{v['dim']} has {N} points; the "
                                f"exact enumeration visits the C({N}, {v['dim']}) = "
                                f"{math.comb(N, v['dim']):,} sets of {v['dim']} points, more "
                                f"than its limit of {HALFSPACE_MAX_SUBSETS:,}")


def _validate_dl(v: Mapping[str, Any]) -> None:
    limits = {1: 5, 2: 3, 3: 3}
    if v["n"] > limits.get(v["k"], 3):
        raise InvalidInputError(f"decision_lists: k={v['k']} accepts n <= "
                                f"{limits.get(v['k'], 3)} (exact enumeration size limit), got "
                                f"n={v['n']}")


def _n(v: Mapping[str, Any]) -> int:
    return int(v["n"])


def _cube_size(v: Mapping[str, Any]) -> int:
    return 1 << int(v["n"])


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("thresholds", _thresholds, _n),
    Family("intervals", _intervals, _n),
    Family("points", _points, _n),
    Family("conjunctions", _conjunctions, _cube_size),
    Family("disjunctions", _disjunctions, _cube_size),
    Family("parities", _parities, _cube_size),
    Family("decision_lists", _decision_lists, _cube_size, _validate_dl),
    Family("halfspaces", _halfspaces, lambda v: int(v["g"]) ** int(v["dim"]),
           _validate_halfspaces),
    Family("affine", _affine, lambda v: int(v["p"]) ** int(v["n"]), _validate_affine),
    Family("rectangles", _rectangles, lambda v: int(v["g"]) ** int(v["dim"])),
    Family("interval_unions", _interval_unions, _n),
    Family("majority", _majority, _cube_size),
    Family("tagged_thresholds", _tagged_thresholds, lambda v: int(v["n"]) + int(v["t"])),
    Family("tagged_points", _tagged_points, lambda v: int(v["n"]) + int(v["t"])),
    Family("weight_extremes", _weight_extremes, _n),
    Family("threshold_blocks", _threshold_blocks, lambda v: int(v["k"]) * int(v["t"])),
    Family("weight_at_most", _weight_at_most, _n),
    Family("weight_at_least", _weight_at_least, _n),
    Family("random", _random, _n),
    Family("planted", _planted, _n, _validate_planted),
)}
"""Every family of the catalog, by name."""
