"""Hypothesis strategies for Boolean aggregations and composed classes G(H_1, ..., H_k).

Reusable in your own CI (re-exported by `ltheory.strategies`)::

    from hypothesis import given
    from ltheory import strategies as lst

    @given(lst.compositions(max_arity=3, max_points=5))
    def test_something(case):
        G, classes = case
        ...

Aggregations are drawn as names (``and``, ``or``, ``xor``, ``maj``, ``thr:t``), truth tables, or
expressions over x1..xk (``&``, ``|``, ``^``, ``~``, ``Majority``, ...), so the restricted parser
of `ltheory.core.boolean` is exercised too.  Everything is small by default.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ltheory.core.boolean import Aggregation
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.strategies.classes import hypothesis_classes

__all__ = ["aggregation_expressions", "aggregations", "compositions"]


def aggregation_expressions(arity: int, max_leaves: int = 6) -> st.SearchStrategy[str]:
    """Expression strings over x1..x{arity} (every variable may or may not occur)."""
    leaf = st.one_of(st.integers(1, arity).map(lambda i: f"x{i}"), st.sampled_from(["0", "1"]))

    def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(children, st.sampled_from(["&", "|", "^"]), children).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            children.map(lambda c: f"~{c}"),
            st.lists(children, min_size=3, max_size=3).map(
                lambda cs: f"Majority({', '.join(cs)})"),
            st.lists(children, min_size=1, max_size=3).map(lambda cs: f"Or({', '.join(cs)})"),
        )

    return st.recursive(leaf, extend, max_leaves=max_leaves)


@st.composite
def _aggregation(draw: st.DrawFn, min_arity: int, max_arity: int) -> Aggregation:
    k = draw(st.integers(min_arity, max_arity))
    kind = draw(st.sampled_from(["name", "table", "expr"]))
    if kind == "name":
        names = ["and", "or", "xor"] + [f"thr:{t}" for t in range(1, k + 1)]
        if k % 2:
            names.append("maj")
        if k == 1:
            names += ["not", "id"]
        return Aggregation.parse(draw(st.sampled_from(names)), arity=k)
    if kind == "table":
        return Aggregation.from_truth_table(draw(st.integers(0, (1 << (1 << k)) - 1)), k)
    return Aggregation.from_expression(draw(aggregation_expressions(k)), arity=k)


def aggregations(min_arity: int = 1, max_arity: int = 3) -> st.SearchStrategy[Aggregation]:
    """Bound aggregations of arity in [min_arity, max_arity] (names, truth tables, expressions)."""
    return _aggregation(min_arity, max_arity)


@st.composite
def _compositions(draw: st.DrawFn, max_arity: int, max_points: int, max_size: int,
                  equal_classes: bool | None) -> tuple[Aggregation, list[HypothesisClass]]:
    G = draw(aggregations(1, max_arity))
    k = G.arity
    assert k is not None
    first = draw(hypothesis_classes(min_points=1, max_points=max_points, max_size=max_size))
    same = draw(st.booleans()) if equal_classes is None else equal_classes
    classes = [first]
    n = first.domain_size
    for _ in range(k - 1):
        if same:
            # the same class, or an equal one with its hypotheses listed in another order (a
            # distinct object: code must not mistake equal-as-sets for identical)
            perm = draw(st.permutations(range(len(first))))
            strings = first.to_strings()
            classes.append(first if perm == sorted(perm) else HypothesisClass.from_strings(
                [strings[i] for i in perm], domain=list(first.domain)))
        else:
            classes.append(draw(hypothesis_classes(min_points=n, max_points=n,
                                                   max_size=max_size)))
    return G, classes


def compositions(max_arity: int = 3, max_points: int = 5, max_size: int = 6,
                 equal_classes: bool | None = None
                 ) -> st.SearchStrategy[tuple[Aggregation, list[HypothesisClass]]]:
    """Pairs (G, [H_1, ..., H_k]) with the classes over one domain (``equal_classes``: all
    equal -- the same object or a copy listing its hypotheses in another order -- all
    independent, or either when None)."""
    return _compositions(max_arity, max_points, max_size, equal_classes)
