"""Finite hypothesis classes over a finite, labelled domain.

A *hypothesis class* H over a finite domain X = {x_0, ..., x_{n-1}} is a set of functions
h: X -> {0, 1}.  Each hypothesis is a row of a 0/1 matrix (row = hypothesis, column = domain
point); [`HypothesisClass`][ltheory.HypothesisClass] stores the deduplicated rows as a packed bit
matrix
(``numpy.packbits`` along the points, little bit order) and keeps the first-occurrence order of
the hypotheses it was given.  Equality is set equality over the same domain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError

Label = str
Sample = Sequence[tuple[Any, int]]


def _normalise_domain(domain: Sequence[Any] | int, n: int | None) -> tuple[Label, ...]:
    if isinstance(domain, bool):
        raise InvalidInputError("domain must be a list of point labels or a non-negative integer")
    if isinstance(domain, (int, np.integer)):
        if domain < 0:
            raise InvalidInputError(f"domain size must be non-negative, got {domain}")
        labels = tuple(map(str, range(int(domain))))
        if n is not None and len(labels) != n:
            raise InvalidInputError(
                f"domain has {len(labels)} points but hypotheses have length {n}")
        return labels  # distinct by construction
    else:
        try:
            labels = tuple(str(x) for x in domain)
        except TypeError as exc:
            raise InvalidInputError("domain must be a list of point labels or an integer") from exc
    if len(set(labels)) != len(labels):
        seen: set[str] = set()
        dup = next(x for x in labels if x in seen or seen.add(x))  # type: ignore[func-returns-value]
        raise InvalidInputError(f"domain labels must be distinct; {dup!r} appears twice")
    if n is not None and len(labels) != n:
        raise InvalidInputError(
            f"domain has {len(labels)} points but hypotheses have length {n}"
        )
    return labels


class HypothesisClass:
    """A finite set of Boolean hypotheses over a finite labelled domain.

    A hypothesis is a function from the domain X = ``domain`` to {0, 1}, stored as a row of a
    packed bit matrix; duplicates are removed on construction, so ``size`` is |H|.  The class
    is immutable and hashable; restriction, version spaces, union, intersection and complement
    return new classes.  Build one with
    [`from_strings`][ltheory.HypothesisClass.from_strings] (character i of each string is the
    value on point i), [`from_matrix`][ltheory.HypothesisClass.from_matrix],
    [`from_predicates`][ltheory.HypothesisClass.from_predicates], from a class file
    ([`load_class`][ltheory.load_class]) or from the catalog
    ([`family`][ltheory.catalog.family]).  ``H.matrix`` is the (|H|, |X|) uint8 0/1 matrix,
    ``H.packed`` the packed rows, ``H.domain`` the tuple of point labels.

    Args:
        matrix: A (|H|, |X|) array of 0/1 values, one row per hypothesis.
        domain: The point labels (a sequence of distinct labels) or their number n (labels
            ``"0"`` … ``"n-1"``); default: ``range(|X|)`` as strings.
        name: A name shown by ``repr`` and in reports.

    Raises:
        InvalidInputError: If the matrix is not 2-D with 0/1 values, or the domain does not
            match its columns.

    Examples:
        >>> from ltheory import HypothesisClass, vc_dimension
        >>> H = HypothesisClass.from_strings(["0011", "0111", "0001", "0011"],
        ...                                  domain=["a", "b", "c", "d"], name="thresholds")
        >>> H
        <HypothesisClass 'thresholds': 3 hypotheses on 4 points>
        >>> H.restrict(["c", "d"]).to_strings()
        ['11', '01']
        >>> H.version_space([("c", 1)]).to_strings()
        ['0011', '0111']
        >>> vc_dimension(H).value
        1
    """

    def __init__(self, matrix: np.ndarray, domain: Sequence[Any] | int | None = None,
                 *, name: str | None = None, _trusted: bool = False) -> None:
        mat = np.asarray(matrix) if _trusted else _as_array(matrix)
        if not _trusted:
            if mat.ndim == 1 and mat.size == 0:
                mat = mat.reshape(0, 0 if domain is None else _domain_len(domain))
            if mat.ndim != 2:
                raise InvalidInputError(
                    f"hypotheses must form a 2-D 0/1 matrix, got an array of shape {mat.shape}"
                )
            if mat.size and not np.isin(mat, (0, 1)).all():
                raise InvalidInputError("hypothesis values must be 0 or 1")
            mat = mat.astype(np.uint8, copy=False)
        n = mat.shape[1]
        self._domain = _normalise_domain(n if domain is None else domain, n)
        self._n = n
        packed = np.packbits(mat, axis=1, bitorder="little") if n else np.zeros(
            (mat.shape[0], 0), dtype=np.uint8)
        if packed.shape[0] > 1 and packed.shape[1]:
            # rows compared as byte strings: one sort (np.unique(axis=0) sorts column by column,
            # 1 s for two rows of 10^6 points)
            keys = np.ascontiguousarray(packed).view(f"V{packed.shape[1]}").ravel()
            _, first = np.unique(keys, return_index=True)
            if len(first) != packed.shape[0]:
                keep = np.sort(first)
                packed = packed[keep]
                mat = mat[keep]
        elif n == 0 and packed.shape[0] > 1:
            packed, mat = packed[:1], mat[:1]
        self._packed = np.ascontiguousarray(packed)
        self._packed.setflags(write=False)
        self._matrix = np.ascontiguousarray(mat, dtype=np.uint8)
        self._matrix.setflags(write=False)
        self.name = name

    # ---------------------------------------------------------------- constructors
    @classmethod
    def from_strings(cls, hypotheses: Iterable[str], domain: Sequence[Any] | int | None = None,
                     *, name: str | None = None) -> HypothesisClass:
        """Build a class from bit strings; character i of each string is the value on point i."""
        if isinstance(hypotheses, (str, bytes)):
            raise InvalidInputError("from_strings needs a list of bit strings, got a single "
                                    "string; wrap it in a list: from_strings([" +
                                    repr(hypotheses)[:40] + "])")
        if isinstance(hypotheses, Mapping) or not isinstance(hypotheses, Iterable):
            raise InvalidInputError("from_strings needs a list of bit strings (one '0'/'1' "
                                    f"character per domain point), got {type(hypotheses).__name__}")
        rows = list(hypotheses)
        if not rows:
            labels = _normalise_domain(0 if domain is None else domain, None)
            return cls(np.zeros((0, len(labels)), dtype=np.uint8), labels, name=name,
                       _trusted=True)
        n = len(rows[0]) if isinstance(rows[0], str) else -1
        for i, r in enumerate(rows):
            if not isinstance(r, str):
                raise InvalidInputError(f"hypothesis {i} is not a string of 0/1 characters: {r!r}")
            if len(r) != n:
                raise InvalidInputError(
                    f"hypothesis {i} has length {len(r)}, expected {n} (all hypotheses must have "
                    "one character per domain point)"
                )
            if r.strip("01"):
                bad = next(c for c in r if c not in "01")
                raise InvalidInputError(
                    f"hypothesis {i} contains {bad!r}; only the characters '0' and '1' are allowed"
                )
        buf = "".join(rows).encode("ascii")
        mat = (np.frombuffer(buf, dtype=np.uint8) - ord("0")).reshape(len(rows), n)
        return cls(mat, domain, name=name, _trusted=True)

    @classmethod
    def from_matrix(cls, matrix: Any, domain: Sequence[Any] | int | None = None,
                    *, name: str | None = None) -> HypothesisClass:
        """Build a class from a 0/1 (or boolean) matrix: one row per hypothesis, one column per
        domain point.

        ``domain`` labels the columns: a sequence of one label per column (any values, stored as
        ``str(x)``, distinct), or an integer n (labels ``"0"`` … ``"n-1"``).  When it is None
        (the default) the labels are the matrix's own column labels if it has them (a pandas
        ``DataFrame``'s ``columns``), else the column positions ``"0"`` … ``"m-1"``.
        Duplicate rows are removed, the first kept.  Raises `InvalidInputError` when the
        labels are not one per column or repeat, or a value is not 0/1.

            HypothesisClass.from_matrix([[0, 1, 1], [1, 1, 0]], domain=["a", "b", "c"])
        """
        if domain is None and not isinstance(matrix, np.ndarray):
            columns = getattr(matrix, "columns", None)
            if columns is not None:
                domain = [str(c) for c in columns]
        mat = _as_array(matrix)
        if mat.dtype == bool:
            mat = mat.astype(np.uint8)
        if (domain is not None and not isinstance(domain, (int, np.integer)) and mat.ndim == 2
                and isinstance(domain, Sequence) and len(domain) != mat.shape[1]):
            raise InvalidInputError(f"from_matrix: {len(domain)} domain labels for a matrix of "
                                    f"{mat.shape[1]} columns; give one label per column (or "
                                    "domain=None for the labels '0', '1', ...)")
        return cls(mat, domain, name=name)

    @classmethod
    def from_predicates(cls, predicates: Iterable[Callable[[Any], Any]], domain: Sequence[Any],
                        *, labels: Sequence[Any] | None = None,
                        name: str | None = None) -> HypothesisClass:
        """Build a class by evaluating each predicate ``h(x)`` (truthy = 1) on every domain point.

        ``domain`` holds the points passed to the predicates; ``labels`` (default ``str(x)``)
        names them.
        """
        if not isinstance(domain, Iterable) or isinstance(domain, (str, bytes)):
            raise InvalidInputError(f"from_predicates needs a sequence of domain points, got "
                                    f"{type(domain).__name__}")
        if not isinstance(predicates, Iterable):
            raise InvalidInputError(f"from_predicates needs an iterable of callables, got "
                                    f"{type(predicates).__name__}")
        points = list(domain)
        preds = list(predicates)
        for i, p in enumerate(preds):
            if not callable(p):
                raise InvalidInputError(f"predicate {i} is not callable: {p!r}")
        rows = [[1 if p(x) else 0 for x in points] for p in preds]
        mat = np.array(rows, dtype=np.uint8).reshape(len(rows), len(points))
        # the matrix is 0/1 by construction; the labels are still validated
        return cls(mat, points if labels is None else labels, name=name)

    # ---------------------------------------------------------------- basic views
    @property
    def domain(self) -> tuple[Label, ...]:
        return self._domain

    @property
    def domain_size(self) -> int:
        return self._n

    @property
    def packed(self) -> np.ndarray:
        return self._packed

    @property
    def matrix(self) -> np.ndarray:
        """The (|H|, |X|) read-only uint8 0/1 matrix."""
        return self._matrix

    def __len__(self) -> int:
        return int(self._packed.shape[0])

    @property
    def size(self) -> int:
        return len(self)

    def is_empty(self) -> bool:
        return len(self) == 0

    def to_strings(self) -> list[str]:
        """The hypotheses as '0'/'1' strings, in stored order."""
        if self._n == 0:
            return [""] * len(self)
        chars = (self.matrix + ord("0")).astype(np.uint8)
        return [row.tobytes().decode("ascii") for row in chars]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_strings())

    def __contains__(self, h: object) -> bool:
        if isinstance(h, str):
            if len(h) != self._n or h.strip("01"):
                return False
            row = np.frombuffer(h.encode("ascii"), dtype=np.uint8) - ord("0")
        else:
            row = np.asarray(h, dtype=np.uint8).ravel()
            if row.shape != (self._n,):
                return False
        return bool((self.matrix == row).all(axis=1).any())

    def __repr__(self) -> str:
        nm = f" {self.name!r}" if self.name else ""
        return f"<HypothesisClass{nm}: {len(self)} hypotheses on {self._n} points>"

    @cached_property
    def _key(self) -> tuple[tuple[str, ...], frozenset[bytes]]:
        return self._domain, frozenset(r.tobytes() for r in self._packed)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HypothesisClass):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    # ---------------------------------------------------------------- points
    def point_index(self, x: Any) -> int:
        """Index of a domain point given by its label or (an int) its index."""
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
            if not 0 <= int(x) < self._n:
                raise InvalidInputError(f"point index {x} out of range for a domain of {self._n}")
            return int(x)
        idx = self._label_index.get(str(x))
        if idx is None:
            raise InvalidInputError(f"{x!r} is not a point of the domain")
        return idx

    @cached_property
    def _label_index(self) -> dict[str, int]:
        return {lab: i for i, lab in enumerate(self._domain)}

    def packed_columns(self) -> np.ndarray:
        """The columns packed along the hypotheses (|X| x ceil(|H|/8) uint8, little bit order;
        `pack_columns`), computed once per class."""
        cache = self.__dict__.get("_packed_columns")
        if cache is None:
            cache = pack_columns(self.matrix)
            cache.setflags(write=False)
            self.__dict__["_packed_columns"] = cache
        return cache

    def column_bitsets(self) -> list[int]:
        """For each point x, the Python int whose bit j is h_j(x) (hypotheses in stored order)."""
        return _column_bitsets(self)

    # ---------------------------------------------------------------- operations
    def restrict(self, points: Iterable[Any]) -> HypothesisClass:
        """H|_S: the class of restrictions to the sub-domain S (deduplicated), S in given order."""
        idx = [self.point_index(x) for x in points]
        if len(set(idx)) != len(idx):
            raise InvalidInputError("restrict() needs distinct points")
        return HypothesisClass(self.matrix[:, idx], [self._domain[i] for i in idx],
                               _trusted=True)

    def version_space(self, sample: Iterable[tuple[Any, Any]]) -> HypothesisClass:
        """V_H(S) = {h in H : h(x) = y for every (x, y) in the labelled sample S}."""
        keep = np.ones(len(self), dtype=bool)
        for pair in sample:
            try:
                x, y = pair
            except (TypeError, ValueError) as exc:
                raise InvalidInputError(f"a labelled example must be a pair (x, y), got {pair!r}"
                                        ) from exc
            if y not in (0, 1) or isinstance(y, float) and not float(y).is_integer():
                raise InvalidInputError(f"labels must be 0 or 1, got {y!r}")
            keep &= self.matrix[:, self.point_index(x)] == int(y)
        return self.subclass(keep)

    consistent_with = version_space

    def subclass(self, rows: Any) -> HypothesisClass:
        """The sub-class of the given rows (a boolean mask or indices), domain unchanged."""
        idx = np.asarray(rows)
        if idx.dtype != bool:
            idx = idx.astype(np.intp).ravel()
        elif idx.shape != (len(self),):
            raise InvalidInputError(f"a boolean row mask needs length {len(self)}, got "
                                    f"{idx.shape}")
        return HypothesisClass(self.matrix[idx], self._domain, _trusted=True)

    def _check_same_domain(self, other: HypothesisClass, op: str) -> None:
        if not isinstance(other, HypothesisClass):
            raise InvalidInputError(f"{op} needs a HypothesisClass, got {type(other).__name__}")
        if other._domain != self._domain:
            raise InvalidInputError(f"{op} needs two classes over the same domain (same labels, "
                                    "same order)")

    def union(self, *others: HypothesisClass) -> HypothesisClass:
        """H1 ∪ H2 ∪ ... (same domain)."""
        for o in others:
            self._check_same_domain(o, "union")
        mat = np.concatenate([self.matrix] + [o.matrix for o in others], axis=0)
        return HypothesisClass(mat, self._domain, _trusted=True)

    __or__ = union

    def intersection(self, other: HypothesisClass) -> HypothesisClass:
        """H1 ∩ H2 (same domain)."""
        self._check_same_domain(other, "intersection")
        theirs = {r.tobytes() for r in other._packed}
        keep = np.array([r.tobytes() in theirs for r in self._packed], dtype=bool)
        return self.subclass(keep) if len(self) else self

    __and__ = intersection

    def complement(self) -> HypothesisClass:
        """The class of complements {1 - h : h in H} (pointwise negation, not the set complement).

        VC and Littlestone dimensions are invariant under it; the threshold dimension changes by
        at most one.
        """
        return HypothesisClass(1 - self.matrix, self._domain, _trusted=True)

    def relabel(self, labels: Sequence[Any]) -> HypothesisClass:
        """The same class with the domain points renamed."""
        return HypothesisClass(self.matrix, labels, name=self.name, _trusted=True)

    def permute_points(self, order: Sequence[int]) -> HypothesisClass:
        """The same class with its domain points (and labels) listed in ``order``."""
        order = list(order)
        if sorted(order) != list(range(self._n)):
            raise InvalidInputError("permute_points needs a permutation of range(domain_size)")
        return HypothesisClass(self.matrix[:, order], [self._domain[i] for i in order],
                               name=self.name, _trusted=True)

    def with_name(self, name: str | None) -> HypothesisClass:
        """The same class under another name; shares the (read-only) matrices instead of
        packing and deduplicating them again (0.25 s on 14,143 x 14,142)."""
        out = object.__new__(HypothesisClass)
        out._domain, out._n = self._domain, self._n
        out._packed, out._matrix = self._packed, self._matrix
        out.name = name
        return out


def _as_array(matrix: Any) -> np.ndarray:
    """``matrix`` as a numeric numpy array, or InvalidInputError: ragged rows, strings, objects
    and complex numbers are refused here, so no numpy exception reaches the caller."""
    if isinstance(matrix, (str, bytes)):
        raise InvalidInputError("a hypothesis matrix must be a 2-D array of 0/1 numbers, got a "
                                "string; use HypothesisClass.from_strings for bit strings")
    try:
        mat = np.asarray(matrix)
    except (ValueError, TypeError) as exc:  # ragged nesting, unconvertible objects
        raise InvalidInputError(f"a hypothesis matrix must be a 2-D array of 0/1 numbers with "
                                f"rows of equal length ({exc})") from None
    if mat.dtype.kind not in "biuf" and mat.size:
        raise InvalidInputError(f"a hypothesis matrix must hold 0/1 numbers, got values of type "
                                f"{mat.dtype} (for bit strings use HypothesisClass.from_strings)")
    return mat


def _domain_len(domain: Sequence[Any] | int) -> int:
    if isinstance(domain, (int, np.integer)) and not isinstance(domain, bool):
        return int(domain)
    return len(domain)  # type: ignore[arg-type]


def pack_columns(M: np.ndarray) -> np.ndarray:
    """The columns of a 0/1 uint8 matrix packed along the rows, little bit order: row j of the
    result is ``np.packbits(M[:, j], bitorder="little")``.

    Built from eight strided row slices (bit b from rows b, b + 8, ...) and one transpose of
    the packed result: ``np.packbits(M.T, axis=1)`` walks the transposed matrix with a stride
    and took 1.9 s on 14,143 x 14,142 where this takes ~0.4 s (issue 40)."""
    m, n = M.shape
    out = np.zeros(((m + 7) // 8, n), dtype=np.uint8)
    for b in range(min(8, m)):
        rows = M[b::8]
        out[:len(rows)] |= rows << np.uint8(b)
    return np.ascontiguousarray(out.T)


def _column_bitsets(H: HypothesisClass) -> list[int]:
    cache = H.__dict__.get("_colbits")
    if cache is None:
        m = len(H)
        if m == 0:
            cache = [0] * H.domain_size
        else:
            cols = H.packed_columns()
            cache = [int.from_bytes(c.tobytes(), "little") for c in cols]
        H.__dict__["_colbits"] = cache
    return cache
