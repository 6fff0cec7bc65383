"""compose(G, H1..Hk): agreement with the definition, closure identities, budgets, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from ltheory import catalog
from ltheory.core.boolean import Aggregation
from ltheory.core.compose import ComposedClass, compose, negated
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import BudgetExceededError, InvalidInputError
from ltheory.strategies import compositions


def brute(G: Aggregation, classes: list[HypothesisClass]) -> HypothesisClass:
    """{G(h_1..h_k)} straight from the definition (ABMS20 §2)."""
    n = classes[0].domain_size
    rows = [[G(*[h[x] for h in tup]) for x in range(n)]
            for tup in itertools.product(*[c.matrix.tolist() for c in classes])]
    return HypothesisClass(np.array(rows, dtype=np.uint8).reshape(len(rows), n),
                           classes[0].domain)


@settings(max_examples=80, deadline=None)
@given(compositions(max_arity=3, max_points=5, max_size=6))
def test_compose_matches_the_definition(case) -> None:
    G, classes = case
    C = compose(G, *classes)
    assert C == brute(G, classes)
    lazy = compose(G, *classes, lazy=True)
    assert isinstance(lazy, ComposedClass)
    assert lazy.materialise() == C
    assert len(C) <= lazy.size_upper_bound() <= lazy.product_size
    mat = lazy.materialise_with_components()
    assert mat.products <= lazy.staged_products_bound()
    for row, comps in zip(mat.H.matrix, mat.components, strict=True):
        assert lazy.hypothesis(list(comps)).tolist() == row.tolist()
    pv = lazy.point_values()
    for x in range(C.domain_size):
        assert pv[x, 0] == bool((C.matrix[:, x] == 0).any())
        assert pv[x, 1] == bool((C.matrix[:, x] == 1).any())


def test_xor_of_two_threshold_classes_is_intervals_with_empty() -> None:
    for n in (1, 4, 9):
        T = catalog.from_spec(f"thresholds n={n}")
        assert compose("xor", T, T) == catalog.from_spec(f"intervals n={n} empty=true")


@pytest.mark.parametrize("G", ["and", "or", "maj3", "thr:2:4", "Majority(x1, x2, x3)"])
def test_monotone_aggregations_of_thresholds_are_thresholds(G: str) -> None:
    T = catalog.from_spec("thresholds n=10")
    k = Aggregation.parse(G).arity or 2
    assert compose(G, *[T] * k) == T


def test_complements_and_de_morgan() -> None:
    rng = np.random.default_rng(3)
    H1 = HypothesisClass.from_matrix(rng.integers(0, 2, (7, 6)))
    H2 = HypothesisClass.from_matrix(rng.integers(0, 2, (5, 6)))
    assert compose("not", H1) == H1.complement() == negated(H1)
    assert compose("and", H1, H2).complement() == compose("or", H1.complement(),
                                                          H2.complement())
    lazy = compose("x1 & ~x2", H1, H2, lazy=True)
    assert negated(lazy).materialise() == lazy.materialise().complement()


def test_composition_distributes_over_unions() -> None:
    rng = np.random.default_rng(5)
    A, B, D = (HypothesisClass.from_matrix(rng.integers(0, 2, (4, 5))) for _ in range(3))
    for G in ("and", "xor", "x1 | ~x2"):
        assert compose(G, A.union(B), D) == compose(G, A, D).union(compose(G, B, D))
    # id(H) = H and or(H, H) contains H
    assert compose("id", A) == A
    assert set(A.to_strings()) <= set(compose("or", A, A).to_strings())


def test_budget_error_instead_of_memory_exhaustion() -> None:
    H = catalog.from_spec("random m=200 n=16 p=0.5 seed=1")
    with pytest.raises(BudgetExceededError, match="lazy=True"):
        compose("maj", H, H, H, H, H)
    C = compose("maj", H, H, H, H, H, lazy=True)
    assert C.product_size == 200 ** 5
    with pytest.raises(BudgetExceededError):
        compose("maj", H, H, H, max_products=1000)


def test_bad_input() -> None:
    T = catalog.from_spec("thresholds n=4")
    U = catalog.from_spec("thresholds n=5")
    with pytest.raises(InvalidInputError, match="arity 3 but 2 classes"):
        compose("maj3", T, T)
    with pytest.raises(InvalidInputError, match="odd"):
        compose("maj", T, T)
    with pytest.raises(InvalidInputError, match="different domain"):
        compose("and", T, U)
    with pytest.raises(InvalidInputError, match="unknown aggregation"):
        compose("median", T, T)
    with pytest.raises(InvalidInputError):
        compose("and")
    with pytest.raises(InvalidInputError, match="HypothesisClass"):
        compose("and", T, "0101")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="ComposedClass"):
        compose("and", compose("or", T, T, lazy=True), T)  # type: ignore[arg-type]


def test_empty_component_gives_empty_class() -> None:
    T = catalog.from_spec("thresholds n=4")
    E = HypothesisClass.from_strings([], domain=T.domain)
    assert len(compose("and", T, E)) == 0
    assert compose("and", T, E, lazy=True).is_empty()
