"""Aggregations: names, truth tables, safe expressions, normal forms, evaluation, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory.core.boolean import Aggregation
from ltheory.errors import InvalidInputError
from ltheory.strategies import aggregation_expressions, aggregations


def table_of(f, k: int) -> str:
    return "".join(str(int(bool(f(*[(i >> p) & 1 for p in range(k)])))) for i in range(1 << k))


@pytest.mark.parametrize(("name", "k", "f"), [
    ("maj", 3, lambda *b: sum(b) >= 2),
    ("maj", 5, lambda *b: sum(b) >= 3),
    ("and", 4, lambda *b: all(b)),
    ("or", 2, lambda *b: any(b)),
    ("xor", 3, lambda *b: sum(b) % 2),
    ("thr:2", 4, lambda *b: sum(b) >= 2),
    ("not", 1, lambda b: 1 - b),
    ("id", 1, lambda b: b),
])
def test_named(name: str, k: int, f) -> None:
    G = Aggregation.parse(name, arity=k)
    assert G.arity == k and G.truth_table == table_of(f, k)


def test_name_with_arity_and_family_binding() -> None:
    assert Aggregation.parse("maj5") == Aggregation.parse("maj", arity=5)
    assert Aggregation.parse("and:3") == Aggregation.parse("and").bind(3)
    assert Aggregation.parse("thr:2:5") == Aggregation.parse("thr:2").bind(5)
    assert Aggregation.parse("maj").arity is None
    assert Aggregation.parse("maj") != Aggregation.parse("and")
    assert Aggregation.parse("maj") == Aggregation.parse("maj")
    assert len({Aggregation.parse("maj3"), Aggregation.from_truth_table("00010111")}) == 1
    assert Aggregation.parse("not").arity == 1


def test_truth_table_convention_x1_least_significant() -> None:
    G = Aggregation.from_truth_table("00010111")
    assert G == Aggregation.parse("maj", arity=3)
    # bit i = G(bits of i): "0010" is x1 & ~x2 (i = 1 -> x1 = 1, x2 = 0)
    H = Aggregation.from_truth_table("0100")
    assert H(1, 0) == 1 and H(0, 1) == 0
    assert Aggregation.parse("x1 & ~x2") == H
    assert Aggregation.from_truth_table(0b11101000, 3) == G


def test_expressions() -> None:
    G = Aggregation.parse("x1 & (x2 | ~x3)")
    assert G.truth_table == table_of(lambda a, b, c: a and (b or not c), 3)
    assert Aggregation.parse("Majority(x1, x2, x3)") == Aggregation.parse("maj3")
    assert Aggregation.parse("x1 ^ x2") == Aggregation.parse("xor2")
    assert Aggregation.parse("x1 and not x2 or x3").truth_table == table_of(
        lambda a, b, c: (a and not b) or c, 3)
    assert Aggregation.parse("Threshold(2, x1, x2, x3, x4)") == Aggregation.parse("thr:2:4")
    # unused variables with an explicit arity
    assert Aggregation.parse("x1", arity=3).truth_table == table_of(lambda a, b, c: a, 3)


@pytest.mark.parametrize("bad", [
    "foo", "__import__('os')", "x1.real", "print(x1)", "x1 + x2", "lambda: 1", "x0",
    "x1 if x2 else x3", "(lambda: 0)()", "x1[0]", "open('f')", "Majority(x1, x2)", "2",
    "Not(x1, x2)", "And(x1, k=2)", "maj:2", "thr:5:3", "010", "", "x1 &", "[x1]", "x99",
])
def test_bad_input_is_one_clear_error(bad: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        Aggregation.parse(bad)
    assert "\n" not in str(info.value)


def test_arity_conflicts() -> None:
    with pytest.raises(InvalidInputError, match="arity"):
        Aggregation.parse("maj3").bind(5)
    with pytest.raises(InvalidInputError, match="arity"):
        Aggregation.from_truth_table("0001", arity=3)
    with pytest.raises(InvalidInputError, match="x3"):
        Aggregation.parse("x1 & x3", arity=2)


def test_deeply_nested_expression_is_rejected_not_crashing() -> None:
    with pytest.raises(InvalidInputError):
        Aggregation.parse("~" * 3000 + "x1")


def _eval_form(form: list[list[int]], bits: list[int], dnf: bool) -> int:
    def lit(v: int) -> int:
        return bits[abs(v) - 1] if v > 0 else 1 - bits[abs(v) - 1]
    if dnf:
        return int(any(all(lit(v) for v in t) for t in form))
    return int(all(any(lit(v) for v in c) for c in form))


@settings(max_examples=60, deadline=None)
@given(aggregations(1, 4))
def test_normal_forms_and_evaluation_agree_with_the_table(G: Aggregation) -> None:
    k = G.arity
    assert k is not None
    dnf, cnf = G.dnf(), G.cnf()
    inputs = list(itertools.product([0, 1], repeat=k))
    for bits in inputs:
        want = G(*bits)
        assert _eval_form(dnf, list(bits), True) == want
        assert _eval_form(cnf, list(bits), False) == want
        assert G.negate()(*bits) == 1 - want
    arrays = [np.array([b[i] for b in inputs]) for i in range(k)]
    assert G.evaluate(*arrays).tolist() == [G(*b) for b in inputs]
    expr = G.sympy_expr()
    import sympy

    syms = sympy.symbols(f"x1:{k + 1}")
    for bits in inputs:
        val = expr.subs(dict(zip(syms, [bool(b) for b in bits], strict=True)))
        assert bool(val) == bool(G(*bits))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3).flatmap(lambda k: st.tuples(st.just(k), aggregation_expressions(k))))
def test_expression_roundtrip_via_truth_table(case: tuple[int, str]) -> None:
    k, text = case
    G = Aggregation.from_expression(text, arity=k)
    assert Aggregation.from_truth_table(G.truth_table) == G
    assert len(G.truth_table) == 1 << k


def test_symmetry_and_dependence() -> None:
    G = Aggregation.parse("x1 & (x2 | ~x3)")
    assert not G.is_symmetric_in(0, 1)
    assert Aggregation.parse("maj3").is_symmetric_in(0, 2)
    assert not Aggregation.parse("x1", arity=2).depends_on(1)
