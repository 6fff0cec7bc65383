"""Composed classes G(H_1, ..., H_k) (Alon, Beimel, Moran, Stemmer 2020, §2 and §4).

For an aggregation G: {0,1}^k -> {0,1} and classes H_1, ..., H_k over one domain X,

    G(H_1, ..., H_k) = {G(h_1, ..., h_k) : h_i in H_i},   G applied pointwise on X.

[`compose`][ltheory.compose] builds it either materialised (a
[`HypothesisClass`][ltheory.HypothesisClass]) or, with
``lazy=True``, as a [`ComposedClass`][ltheory.ComposedClass] that is never materialised: the SAT
encodings of
`ltheory.sat` choose h_1..h_k per leaf and encode G, so the product prod |H_i| is never built.

Materialisation is staged and deduplicated.  After fixing h_1..h_i, all that matters at a point x
is the *residual* function r = G(h_1(x), ..., h_i(x), ·, ..., ·) of the remaining k - i inputs;
partial assignments with equal residuals are interchangeable.  Each stage therefore keeps the
distinct vectors (residual id per point), extends every one of them by every hypothesis of
H_{i+1} (vectorised with numpy), and deduplicates again.  For symmetric G (majority, thresholds)
and equal classes this collapses orderings (MAJ3(h, h', h'') = MAJ3(h', h, h'')) and any pair of
partial tuples that agree pointwise in the count of ones.  The number of (state, hypothesis)
products evaluated is checked against ``max_products`` *before* each stage, so a composition that
does not fit fails with [`BudgetExceededError`][ltheory.BudgetExceededError] instead of exhausting
memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ltheory.core.boolean import Aggregation
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import BudgetExceededError, InvalidInputError

__all__ = ["ComposedClass", "compose", "negated", "DEFAULT_MAX_PRODUCTS"]

#: Default cap on the (state, hypothesis) products evaluated while materialising.
DEFAULT_MAX_PRODUCTS = 20_000_000
_CHUNK_ROWS = 1 << 20


def _as_aggregation(G: Any, k: int) -> Aggregation:
    if isinstance(G, str):
        G = Aggregation.parse(G)
    if not isinstance(G, Aggregation):
        raise InvalidInputError(f"the aggregation must be an Aggregation or a string, got "
                                f"{type(G).__name__}")
    if G.arity is not None and G.arity != k:
        raise InvalidInputError(f"aggregation {G.name!r} has arity {G.arity} but {k} classes were "
                                "given (pass exactly one class per input)")
    return G.bind(k)


def _check_classes(classes: Sequence[Any]) -> tuple[HypothesisClass, ...]:
    if not classes:
        raise InvalidInputError("compose needs at least one class")
    for i, H in enumerate(classes):
        if isinstance(H, ComposedClass):
            raise InvalidInputError(f"class {i + 1} is a lazy ComposedClass; nesting needs a "
                                    "materialised class (call .materialise() first)")
        if not isinstance(H, HypothesisClass):
            raise InvalidInputError(f"class {i + 1} must be a HypothesisClass, got "
                                    f"{type(H).__name__}")
    dom = classes[0].domain
    for i, H in enumerate(classes[1:], start=2):
        if H.domain != dom:
            raise InvalidInputError(f"class {i} is over a different domain than class 1 "
                                    f"({H.domain_size} vs {len(dom)} points, or different labels/"
                                    "order); all classes must share one domain")
    return tuple(classes)


class _Residuals:
    """Residual-function bookkeeping for staged evaluation of G.

    ``trans[i]`` (shape (ids_i, 2)) maps the residual id after i inputs and the next input bit to
    the residual id after i + 1 inputs; ``final[id]`` is the value of G for a full assignment.
    """

    def __init__(self, G: Aggregation) -> None:
        k = G.arity
        assert k is not None
        tab = G.table_array.astype(np.int64)
        self.trans: list[np.ndarray] = []
        # stage i: partial assignments p < 2^i; residual(p) = tab[p + (r << i)] for r < 2^(k-i)
        prev_ids = np.zeros(1, dtype=np.int64)
        for i in range(k):
            nxt = 1 << (i + 1)
            rest = np.arange(1 << (k - i - 1), dtype=np.int64) << (i + 1)
            res = tab[np.arange(nxt, dtype=np.int64)[:, None] + rest[None, :]]  # (2^(i+1), ·)
            _, ids = np.unique(res, axis=0, return_inverse=True)
            ids = ids.ravel()
            n_prev = int(prev_ids.max()) + 1
            trans = np.zeros((n_prev, 2), dtype=np.int64)
            p = np.arange(1 << i, dtype=np.int64)
            trans[prev_ids[p], 0] = ids[p]
            trans[prev_ids[p], 1] = ids[p | (1 << i)]
            self.trans.append(trans)
            prev_ids = ids
        # final residuals are constants: map id -> value
        final = np.zeros(int(prev_ids.max()) + 1, dtype=np.uint8)
        final[prev_ids] = tab[np.arange(1 << k)]
        self.final = final


def _unique_rows(a: np.ndarray) -> np.ndarray:
    """Indices of the first occurrence of each distinct row of a 2-D array."""
    if a.shape[0] <= 1:
        return np.arange(a.shape[0])
    a = np.ascontiguousarray(a)
    view = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()
    _, first = np.unique(view, return_index=True)
    return np.sort(first)


@dataclass(frozen=True)
class _Materialised:
    H: HypothesisClass
    components: np.ndarray  # (|H|, k) indices into each H_i of one realising tuple
    products: int


def _materialise(G: Aggregation, classes: tuple[HypothesisClass, ...],
                 max_products: int) -> _Materialised:
    n = classes[0].domain_size
    res = _Residuals(G)
    states = np.zeros((1, n), dtype=np.int64)
    comps = np.zeros((1, 0), dtype=np.int64)
    total = 0
    for i, H in enumerate(classes):
        m = len(H)
        need = states.shape[0] * m
        if total + need > max_products:
            raise BudgetExceededError(
                f"materialising {G.name}({', '.join(str(len(c)) for c in classes)} hypotheses) "
                f"needs {need} products at input {i + 1} ({total + need} in all), above the "
                f"budget of {max_products}; use lazy=True (SAT search) or raise max_products")
        total += need
        if m == 0 or states.shape[0] == 0:
            states = np.zeros((0, n), dtype=np.int64)
            comps = np.zeros((0, i + 1), dtype=np.int64)
            continue
        trans = res.trans[i]
        M = H.matrix.astype(np.int64)
        small = np.uint8 if trans.max() < 256 else np.uint16
        per = max(1, _CHUNK_ROWS // m)
        new_states: list[np.ndarray] = []
        new_comps: list[np.ndarray] = []
        for s0 in range(0, states.shape[0], per):
            S = states[s0:s0 + per]
            block = trans[S[:, None, :], M[None, :, :]].reshape(-1, n).astype(small)
            keep = _unique_rows(block)
            new_states.append(block[keep])
            parent = keep // m + s0
            new_comps.append(np.concatenate([comps[parent], (keep % m)[:, None]], axis=1))
        st = np.concatenate(new_states)
        cp = np.concatenate(new_comps)
        if len(new_states) > 1:
            keep = _unique_rows(st)
            st, cp = st[keep], cp[keep]
        states, comps = st.astype(np.int64), cp
    values = res.final[states] if states.size else np.zeros((states.shape[0], n), np.uint8)
    H = HypothesisClass(values.astype(np.uint8), classes[0].domain, _trusted=True)
    if len(H) != values.shape[0]:  # pragma: no cover - final states are distinct value vectors
        keep = _unique_rows(values)
        comps = comps[keep]
    return _Materialised(H, comps, total)


def _same_rows(a: HypothesisClass, b: HypothesisClass) -> bool:
    """Identical classes: same domain, same hypotheses in the same row order."""
    return a is b or (a.domain == b.domain and np.array_equal(a.matrix, b.matrix))


class ComposedClass:
    """The class G(H_1, ..., H_k) kept as its parts, never materialised unless asked
    (Alon, Beimel, Moran, Stemmer 2020, §2).

    ``G`` is the (bound) aggregation, ``classes`` the tuple (H_1, ..., H_k), all over ``domain``.
    The SAT encodings in `ltheory.sat` and ``vc_dimension`` / ``littlestone_dimension`` /
    ``threshold_dimension`` (``method="sat"`` or ``"auto"``) accept it directly.
    """

    def __init__(self, G: Aggregation | str, classes: Sequence[HypothesisClass],
                 name: str | None = None) -> None:
        cls_ = _check_classes(classes)
        self.G = _as_aggregation(G, len(cls_))
        self.classes = cls_
        self.name = name or f"{self.G.name}({', '.join(c.name or f'H{i + 1}' for i, c in enumerate(cls_))})"  # noqa: E501

    @property
    def arity(self) -> int:
        return len(self.classes)

    @property
    def domain(self) -> tuple[str, ...]:
        return self.classes[0].domain

    @property
    def domain_size(self) -> int:
        return self.classes[0].domain_size

    @property
    def product_size(self) -> int:
        """prod |H_i|: the number of tuples (h_1, ..., h_k), before deduplication."""
        return math.prod(len(c) for c in self.classes)

    def is_empty(self) -> bool:
        return self.product_size == 0

    @cached_property
    def symmetry_groups(self) -> list[list[int]]:
        """Maximal groups of input positions whose classes are identical -- the same domain and
        the same rows *in the same order* -- and in which G is invariant under exchanging any two
        positions: the tuples of row indices may then be sorted within each group without
        changing the set of composed hypotheses.

        Equality as sets is not enough: sorting indices is sound only when index r names the
        same hypothesis in every class of the group (classes equal as sets but listed in another
        order would lose hypotheses; e.g. OR({1, 0}, {0, 1}) listed as ["1","0"] and ["0","1"]).
        """
        groups: list[list[int]] = []
        for i in range(self.arity):
            for g in groups:
                j = g[0]
                if _same_rows(self.classes[i], self.classes[j]) and all(
                        self.G.is_symmetric_in(i, t) for t in g):
                    g.append(i)
                    break
            else:
                groups.append([i])
        return groups

    def size_upper_bound(self) -> int:
        """A proven upper bound on |G(H_1, ..., H_k)|: the number of multisets of hypotheses
        within each symmetry group (product over groups), and 2^(number of points on which the
        class is not constant)."""
        bound = 1
        for g in self.symmetry_groups:
            m = len(self.classes[g[0]])
            bound *= math.comb(m + len(g) - 1, len(g)) if m else 0
        return min(bound, 1 << len(self.active_points()))

    def staged_products_bound(self) -> int:
        """An upper bound on the products a staged materialisation evaluates: before input i
        there are at most as many states as multisets of the earlier inputs (within symmetry
        groups), each extended by every hypothesis of H_i."""
        total = 0
        for i, c in enumerate(self.classes):
            states = 1
            for g in self.symmetry_groups:
                r = sum(1 for j in g if j < i)
                if r:
                    m = len(self.classes[g[0]])
                    states *= math.comb(m + r - 1, r)
            total += states * len(c)
        return total

    def point_values(self) -> np.ndarray:
        """(n, 2) bool: whether some composed hypothesis takes value 0 / 1 at each point."""
        k = self.arity
        n = self.domain_size
        out = np.zeros((n, 2), dtype=bool)
        if self.is_empty():
            return out
        has = np.stack([np.stack([(c.matrix == 0).any(axis=0), (c.matrix == 1).any(axis=0)],
                                 axis=1) for c in self.classes])  # (k, n, 2)
        tab = self.G.table_array
        for a in range(1 << k):
            ok = np.ones(n, dtype=bool)
            for i in range(k):
                ok &= has[i, :, (a >> i) & 1]
            out[ok, tab[a]] = True
        return out

    def active_points(self) -> list[int]:
        """Indices of the points on which the composed class is not constant."""
        pv = self.point_values()
        return [int(x) for x in np.flatnonzero(pv[:, 0] & pv[:, 1])]

    def hypothesis(self, components: Sequence[int]) -> np.ndarray:
        """G(h_1, ..., h_k) as a 0/1 row, for component indices into the classes."""
        if len(components) != self.arity:
            raise InvalidInputError(f"need {self.arity} component indices, got {len(components)}")
        rows = [self.classes[i].matrix[int(j)] for i, j in enumerate(components)]
        return self.G.evaluate(*rows)

    def materialise(self, max_products: int = DEFAULT_MAX_PRODUCTS) -> HypothesisClass:
        """The materialised class (deduplicated); BudgetExceededError past ``max_products``
        (default 20 000 000)."""
        return self.materialise_with_components(max_products).H.with_name(self.name)

    def materialise_with_components(self, max_products: int = DEFAULT_MAX_PRODUCTS
                                    ) -> _Materialised:
        """The materialised class and, per hypothesis, one tuple of component indices."""
        cache = self.__dict__.get("_mat")
        if cache is not None and cache[0] >= max_products:
            return cache[1]
        out = _materialise(self.G, self.classes, max_products)
        self.__dict__["_mat"] = (max_products, out)
        return out

    def negate(self) -> ComposedClass:
        """¬G(H_1, ..., H_k) = (¬G)(H_1, ..., H_k), still lazy."""
        return ComposedClass(self.G.negate(), self.classes, name=f"not({self.name})")

    def __repr__(self) -> str:
        sizes = "x".join(str(len(c)) for c in self.classes)
        return (f"<ComposedClass {self.name!r}: {self.G.name} of {sizes} hypotheses on "
                f"{self.domain_size} points>")


def compose(G: Aggregation | str, *classes: HypothesisClass, lazy: bool = False,
            max_products: int = DEFAULT_MAX_PRODUCTS, name: str | None = None
            ) -> HypothesisClass | ComposedClass:
    """G(H_1, ..., H_k) = {G(h_1, ..., h_k) : h_i in H_i} (ABMS20, §2).

    ``G`` is an [`Aggregation`][ltheory.Aggregation] or a string for
    [`Aggregation.parse`][ltheory.Aggregation.parse] (a family name such as ``"maj"`` takes its
    arity from the number of classes).  All classes must share one domain. Materialised (the
    default), the result is a deduplicated [`HypothesisClass`][ltheory.HypothesisClass], built in
    stages (see [`ltheory.core.compose`][ltheory.core.compose]) and failing with BudgetExceededError
    when more than ``max_products`` products (default 20 000 000, `DEFAULT_MAX_PRODUCTS`) would
    be evaluated.  With ``lazy=True`` a
    [`ComposedClass`][ltheory.ComposedClass] is returned and nothing is materialised."""
    C = ComposedClass(G, classes, name=name)
    if lazy:
        return C
    if isinstance(max_products, bool) or not isinstance(max_products, int) or max_products < 1:
        raise InvalidInputError(f"max_products must be a positive integer, got {max_products!r}")
    return C.materialise(max_products)


def negated(H: HypothesisClass | ComposedClass) -> HypothesisClass | ComposedClass:
    """¬H = {1 - h : h in H} (pointwise negation); lazy for a
    [`ComposedClass`][ltheory.ComposedClass]."""
    if isinstance(H, ComposedClass):
        return H.negate()
    if not isinstance(H, HypothesisClass):
        raise InvalidInputError(f"negated needs a HypothesisClass or ComposedClass, got "
                                f"{type(H).__name__}")
    return H.complement()
