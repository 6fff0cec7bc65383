"""The dichotomies of a finite point set by affine halfspaces, enumerated exactly.

A labelling y of points x_1..x_N of R^d is a *halfspace dichotomy* when some (w, b) has
w·x_i + b > 0 where y_i = 1 and w·x_i + b < 0 where y_i = 0 (strict separation; the all-0 and
all-1 labellings are included, with w = 0, b = -1 or +1).
[`halfspace_dichotomies`][ltheory.catalog.halfspace_dichotomies] lists
them all, by one of two exact methods:

``method="combinatorial"`` (the default): the arrangement recursion below, in exact integer
arithmetic, with no LP.  For the points of a grid this is the method of the catalog family
``halfspaces``.

``method="lp"``: points are added one at a time; a labelling of the first i + 1 points is
separable only if its restriction to the first i is, so each separable labelling of a prefix,
kept with a separator (w, b), is extended by the label its separator gives the new point (no LP
needed) and by the other label, tested by the LP feasibility problem y'(w·x + b) >= 1 for all
points (y' = ±1; equivalent to strict separability by scaling), solved with scipy's HiGHS
(``linprog(method="highs")``).  Every separator returned is re-checked in floating point with
margin 1/2.  One LP per separable labelling of each prefix: slow, kept as the independent
cross-check of the combinatorial method (``tests/test_halfspaces.py``,
``benchmarks/bench_catalog.py``).

**The combinatorial method and why it is exact.**  Write a_i = (x_i, 1) ∈ Z^(d+1) and let A be
the N x (d+1) matrix with rows a_i.  With v = (w, b), the dichotomies are the sign vectors
sign(Av) ∈ {+, -}^N with no zero entry, so they depend only on the column space col(A) ⊆ R^N.
Deleting columns that keep the rank therefore changes nothing, and the recursion always works on
an integer matrix V (n x r) of full column rank r (the first reduction keeps sympy's exact pivot
columns).  Let S(V) denote the set of its zero-free sign vectors.

* r = 1: the rows are non-zero scalars c_i and S(V) = {sign(c), -sign(c)}.
* r >= 2: for every set I of r - 1 rows of rank r - 1, let u_I be its generalised cross product
  (u_k = (-1)^k det(V_I without column k), computed exactly; u_I ⊥ every row of V_I, u_I ≠ 0),
  Z = {i : v_i·u_I = 0} (a flat of rank r - 1: it contains I and is orthogonal to u_I ≠ 0),
  P = {i : v_i·u_I > 0}, M = {i : v_i·u_I < 0}.  Then

      S(V) = ∪ over the distinct flats Z of { (+ on P, - on M, τ on Z), (- on P, + on M, τ on Z) :
                                                τ ∈ S(V_Z) },

  with S(V_Z) computed by the same recursion on the rows of Z with one column deleted (a column k
  with u_k ≠ 0: the minor of V_I without it is non-zero, so the rank r - 1 is kept).

Proof.  (⊇) Given u = ±u_I and τ ∈ S(V_Z) realised by v', the vector u + εv' realises the
combined sign vector for every ε > 0 smaller than min over i ∉ Z of |v_i·u| / |v_i·v'|.
(⊆) Let σ = sign(Vv) ∈ S(V) and K = {v : σ_i v_i·v >= 0 for all i}, a polyhedral cone with
non-empty interior (it contains v) and lineality space {v : Vv = 0} = {0} (full column rank): a
pointed cone of dimension r >= 2, hence the conic hull of its extreme rays (Minkowski-Weyl), of
which it has at least one, u.  The constraints tight at an extreme ray of a pointed cone in R^r
have rank r - 1 (e.g. Schrijver 1986, *Theory of Linear and Integer Programming*, Ch. 8), so
Z(u) = {i : v_i·u = 0} contains a set I of r - 1 independent rows, and u = λ u_I for a λ ≠ 0.
For i ∉ Z(u), σ_i v_i·u >= 0 and v_i·u ≠ 0 give σ_i = sign(v_i·u); on Z(u), σ restricted is
realised by v itself, so it lies in S(V_Z).  Hence σ is one of the listed vectors (with the sign
of λ), and the recursion, being exact at every level by induction on r, lists S(V) exactly. ∎

Geometrically (d = 2): lines through two points of the set, rotated slightly about any of their
points and shifted, with the points on the line labelled by every 1-D dichotomy; in d dimensions:
hyperplanes through d affinely independent points, the points on them labelled recursively.
Every distinct flat is processed once (flats are recognised by their zero sets, and S(V_Z) is
memoised on Z); all arithmetic is in int64 when the product bound r!·M^r (M = the largest
absolute coordinate) is below 2^62, else in Python integers.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError

__all__ = ["HALFSPACE_METHODS", "TooManyDichotomies", "halfspace_dichotomies"]

HALFSPACE_METHODS = ("combinatorial", "lp")
"""The enumerations of [`halfspace_dichotomies`][ltheory.catalog.halfspace_dichotomies]: exact
integer arithmetic (default) or the incremental LP (the cross-check)."""
_CHUNK = 8192  # subsets per vectorised batch


class TooManyDichotomies(InvalidInputError):
    """More dichotomies than the caller's ``limit``."""


def _as_points(points: Any) -> np.ndarray:
    """The points as an (N, d) integer array (integral floats accepted), or a clear error."""
    try:
        arr = np.asarray(points)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"points must be an (N, d) array of integers ({exc})") from None
    if arr.ndim != 2:
        raise InvalidInputError(f"points must be an (N, d) array of integers, got shape "
                                f"{arr.shape}")
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise InvalidInputError("points must have integer coordinates (scale rational points "
                                "by a common denominator: dichotomies are scale-invariant)")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)) \
                or (arr.size and np.abs(arr).max() >= 2**53):
            raise InvalidInputError("points must have integer coordinates (integral floats "
                                    "below 2^53 are accepted)")
    return arr.astype(np.int64) if arr.size else arr.astype(np.int64).reshape(arr.shape)


def halfspace_dichotomies(points: Any, method: str = "combinatorial",
                          limit: int | None = None) -> np.ndarray:
    """All strict halfspace dichotomies of ``points`` (an (N, d) array of integer coordinates),
    as an (m, N) uint8 0/1 matrix, one distinct labelling per row, rows in increasing order of
    the labelling read as a binary number with point 0 least significant.

    ``method`` is ``"combinatorial"`` (exact arrangement recursion, default) or ``"lp"`` (one LP per
    candidate labelling; slow, the cross-check); see
    [`ltheory.catalog.halfspaces`][ltheory.catalog.halfspaces] for both and the proof.  ``limit``:
    raise `TooManyDichotomies` as soon as more than ``limit`` dichotomies are found."""
    if method not in HALFSPACE_METHODS:
        raise InvalidInputError(f"unknown halfspace method {method!r}; accepted: "
                                f"{', '.join(HALFSPACE_METHODS)}")
    P = _as_points(points)
    N = P.shape[0]
    masks = _combinatorial(P, limit) if method == "combinatorial" else _lp(P, limit)
    ordered = sorted(masks)
    nbytes = max((N + 7) // 8, 1)
    raw = np.frombuffer(b"".join(m.to_bytes(nbytes, "little") for m in ordered),
                        dtype=np.uint8).reshape(len(ordered), nbytes)
    return np.unpackbits(raw, axis=1, count=N, bitorder="little").reshape(len(ordered), N)


# ---------------------------------------------------------------- combinatorial method
def _column_basis(A: np.ndarray) -> list[int]:
    """Columns of the integer matrix A forming a basis of its column space (exact, sympy)."""
    import sympy

    _, pivots = sympy.Matrix(A.tolist()).rref(simplify=False)
    return list(pivots)


def _cofactors(B: np.ndarray) -> np.ndarray:
    """Generalised cross products of a batch B (m, r-1, r): u[:, k] = (-1)^k det(B without
    column k), so that u ⊥ each row of B, and u = 0 iff the rows are dependent.  Exact: the
    minors of the first j rows on every j-set of columns are built up row by row (Laplace
    expansion along the last row), in B's integer dtype."""
    m, k, r = B.shape
    minors: dict[tuple[int, ...], np.ndarray] = {(): np.ones(m, dtype=B.dtype)}
    for j in range(1, k + 1):
        grown: dict[tuple[int, ...], np.ndarray] = {}
        for cols in itertools.combinations(range(r), j):
            acc = np.zeros(m, dtype=B.dtype)
            for pos, c in enumerate(cols):
                term = B[:, j - 1, c] * minors[cols[:pos] + cols[pos + 1:]]
                acc = acc + term if (j - 1 + pos) % 2 == 0 else acc - term
            grown[cols] = acc
        minors = grown
    return np.stack([minors[tuple(c for c in range(r) if c != col)] * (-1 if col % 2 else 1)
                     for col in range(r)], axis=1)


def _subsets(n: int, k: int) -> Iterator[np.ndarray]:
    """All k-subsets of range(n) in lexicographic order, as (m, k) index arrays in batches."""
    it = itertools.combinations(range(n), k)
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(it, _CHUNK)),
                           dtype=np.int64)
        if flat.size == 0:
            return
        yield flat.reshape(-1, k)


def _cofactors_small(B: list[tuple[int, ...]], r: int) -> list[int]:
    """`_cofactors` of one (r-1) x r matrix of Python integers."""
    if r == 3:
        (a0, a1, a2), (b0, b1, b2) = B
        return [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0]
    minors: dict[tuple[int, ...], int] = {(): 1}
    for j in range(1, r):
        row = B[j - 1]
        minors = {cols: sum((row[c] if (j - 1 + pos) % 2 == 0 else -row[c])
                            * minors[cols[:pos] + cols[pos + 1:]]
                            for pos, c in enumerate(cols))
                  for cols in itertools.combinations(range(r), j)}
    return [minors[tuple(c for c in range(r) if c != col)] * (-1 if col % 2 else 1)
            for col in range(r)]


def _every_labelling(bits: list[int]) -> set[int]:
    """Every subset of the points with bitmasks ``bits`` (the sign vectors of independent
    rows: their column space is all of R^n)."""
    out = {0}
    for b in bits:
        out |= {t | b for t in out}
    return out


#: sub-problems with at most this many (r-1)-subsets are solved in pure Python
_SMALL = 256


class _Arrangement:
    """S(V_Z) for the flats Z of one point set, memoised on Z (a bitmask of point indices).

    Every V keeps the all-ones column first (column 0 of (1, x_i) is a pivot, and a column
    k >= 1 with u_k ≠ 0 always exists: u = (c, 0, ..., 0) would give v_i·u = c ≠ 0 on every
    row, so Z would be empty), so each sub-problem is again an affine point configuration
    (1, y_i); rank 2 is then the 1-D case, solved directly: the labellings {t > c} and {t < c}.
    """

    def __init__(self, N: int, limit: int | None) -> None:
        self.N = N
        self.limit = limit
        self.memo: dict[int, set[int]] = {}

    def _masks(self, idx: np.ndarray, rows: np.ndarray) -> list[int]:
        """The bitmasks (global point indices) of the columns of the local 0/1 matrix
        ``rows`` (len(idx), m)."""
        full = np.zeros((self.N, rows.shape[1]), dtype=bool)
        full[idx] = rows
        packed = np.ascontiguousarray(np.packbits(full, axis=0, bitorder="little").T)
        return [int.from_bytes(b, "little") for b in map(bytes, packed)]

    def _check(self, out: set[int]) -> None:
        if self.limit is not None and len(out) > self.limit:
            raise TooManyDichotomies(f"more than {self.limit} halfspace dichotomies")

    def cells(self, bits: list[int], V: Any) -> set[int]:
        """S(V) for the rows V (integer matrix of full column rank r, first column all ones)
        of the points with bitmasks ``bits``, as bitmasks of the points labelled 1 (+)."""
        n = len(bits)
        r = len(V[0]) if n else 1
        key = sum(bits)
        got = self.memo.get(key)
        if got is not None:
            return got
        if n == r:  # independent rows: col(V) = R^n, every sign vector
            out = _every_labelling(bits)
        elif r == 1:  # non-zero scalars c_i (here the ones column): sign(c) and -sign(c)
            pos = sum(b for b, row in zip(bits, V, strict=True) if row[0] > 0)
            out = {pos, key ^ pos}
        elif r == 2:  # points (1, t_i) on a line: up-sets and down-sets of t
            out = {0, key}
            acc = 0
            groups: dict[int, int] = {}
            for b, row in zip(bits, V, strict=True):
                groups[int(row[1])] = groups.get(int(row[1]), 0) | b
            for t in sorted(groups)[:-1]:
                acc |= groups[t]
                out.add(acc)
                out.add(key ^ acc)
        elif math.comb(n, r - 1) <= _SMALL:
            out = self._cells_small(bits, [tuple(int(x) for x in row) for row in V], r)
        else:
            out = self._cells_batched(bits, np.asarray(V), r)
        self.memo[key] = out
        return out

    def _combine(self, out: set[int], pos: int, neg: int, sub: set[int]) -> None:
        out.update([pos | t for t in sub])
        out.update([neg | t for t in sub])
        self._check(out)

    def _cells_small(self, bits: list[int], V: list[tuple[int, ...]], r: int) -> set[int]:
        """The recursion in pure Python (small sub-problems: no numpy overhead).  A subset I
        contained in an already processed flat is skipped: r - 1 independent rows span their
        flat, so such an I would give that flat again."""
        out: set[int] = set()
        n = len(bits)
        flats_of: list[list[int]] = [[] for _ in range(n)]  # processed flats, local bitmasks
        for I in itertools.combinations(range(n), r - 1):
            lm = 0
            for i in I:
                lm |= 1 << i
            if any(f & lm == lm for f in flats_of[I[0]]):
                continue
            u = _cofactors_small([V[i] for i in I], r)
            if not any(u):
                continue
            pos = neg = zlocal = 0
            zi: list[int] = []
            for k, row in enumerate(V):  # row[0] == 1 (the ones column)
                if r == 3:
                    v = u[0] + row[1] * u[1] + row[2] * u[2]
                else:
                    v = u[0] + sum(row[c] * u[c] for c in range(1, r))
                if v > 0:
                    pos |= bits[k]
                elif v < 0:
                    neg |= bits[k]
                else:
                    zlocal |= 1 << k
                    zi.append(k)
            for i in zi:
                flats_of[i].append(zlocal)
            drop = next(k for k in range(1, r) if u[k])
            sub = self.cells([bits[i] for i in zi],
                             [V[i][:drop] + V[i][drop + 1:] for i in zi])
            self._combine(out, pos, neg, sub)
        return out

    def _cells_batched(self, bits: list[int], V: np.ndarray, r: int) -> set[int]:
        """The recursion with the (r-1)-subsets in numpy batches (large sub-problems)."""
        idx = np.array([b.bit_length() - 1 for b in bits], dtype=np.int64)
        out: set[int] = set()
        flats: set[bytes] = set()
        for rows in _subsets(len(bits), r - 1):
            U = _cofactors(V[rows])
            U = U[np.any(U != 0, axis=1)]
            if U.shape[0] == 0:
                continue
            vals = V @ U.T                                   # (n, m): v_i · u
            zero = vals == 0
            keys = np.ascontiguousarray(np.packbits(zero, axis=0, bitorder="little").T)
            nb = keys.shape[1]
            raw = keys.tobytes()
            new: list[int] = []
            for b in range(keys.shape[0]):
                kb = raw[b * nb:(b + 1) * nb]
                if kb not in flats:
                    flats.add(kb)
                    new.append(b)
            if not new:
                continue
            sel = vals[:, new]
            pos, neg, zs = (self._masks(idx, m) for m in (sel > 0, sel < 0, sel == 0))
            size = np.count_nonzero(sel == 0, axis=0)
            for j, b in enumerate(new):
                sub = self.memo.get(zs[j])
                if sub is None:
                    z = np.flatnonzero(zero[:, b])
                    if size[j] == r - 1:  # independent rows: every labelling of Z
                        sub = _every_labelling([bits[i] for i in z])
                    else:
                        drop = 1 + int(np.flatnonzero(U[b, 1:] != 0)[0])
                        sub = self.cells([bits[i] for i in z], np.delete(V[z], drop, axis=1))
                self._combine(out, pos[j], neg[j], sub)
        return out


def _combinatorial(P: np.ndarray, limit: int | None) -> set[int]:
    N = P.shape[0]
    if N == 0:
        return {0}
    A = np.hstack([np.ones((N, 1), dtype=np.int64), P])
    V = A[:, _column_basis(A)]  # column 0 (all ones) is always a pivot
    r = V.shape[1]
    M = int(np.abs(V).max())
    if math.factorial(r) * M**r >= 2**62:  # int64 could overflow: exact Python integers
        V = V.astype(object)
    out = _Arrangement(N, limit).cells([1 << i for i in range(N)], V)
    if limit is not None and len(out) > limit:
        raise TooManyDichotomies(f"more than {limit} halfspace dichotomies")
    return out


# ---------------------------------------------------------------- LP method (cross-check)
def _lp(P: np.ndarray, limit: int | None) -> set[int]:
    from scipy.optimize import linprog

    N, d = P.shape
    A = np.hstack([P.astype(float), np.ones((N, 1))])  # rows (x, 1): value w·x + b

    def separate(idx: int, labels: list[int]) -> np.ndarray | None:
        sgn = np.where(np.array(labels) == 1, 1.0, -1.0)
        rows = A[: idx + 1]
        res = linprog(np.zeros(d + 1), A_ub=-(sgn[:, None] * rows), b_ub=-np.ones(idx + 1),
                      bounds=[(None, None)] * (d + 1), method="highs")
        if res.status != 0:
            return None
        w = res.x
        if np.all(sgn * (rows @ w) >= 0.5):
            return w
        return None  # pragma: no cover - numerically doubtful solution: not certified

    level: list[tuple[list[int], np.ndarray]] = [([], np.zeros(d + 1))]
    for i in range(N):
        nxt: list[tuple[list[int], np.ndarray]] = []
        for labels, w in level:
            val = float(A[i] @ w)
            own = 1 if val > 0 else 0
            if abs(val) >= 0.5:
                nxt.append((labels + [own], w))
                w2 = separate(i, labels + [1 - own])
                if w2 is not None:
                    nxt.append((labels + [1 - own], w2))
            else:
                for y in (0, 1):
                    w2 = separate(i, labels + [y])
                    if w2 is not None:
                        nxt.append((labels + [y], w2))
        level = nxt
        if limit is not None and len(level) > limit:
            raise TooManyDichotomies(f"more than {limit} halfspace dichotomies")
    return {sum(1 << i for i, y in enumerate(labels) if y) for labels, _ in level}
