"""The checks added for the seed statements that were "not encoded" (issue 31, part B): each runs
under --quick, has rows, reaches the expected verdict, and notices a false version of its bound
(the bound replaced by a slightly smaller/larger one through the mutation harness's machinery)."""

from __future__ import annotations

import pytest
import sympy

from proofs_check import all_checks
from proofs_check.coverage import NOT_ENCODED, STATEMENTS
from proofs_check.mutation import Mutant, run_mutant

#: check id -> (expected status under --quick, the factor that makes its first declared bound
#: false, or None for a check without a declared bound)
EXPECTED = {
    "asadi.lemma14": ("holds", sympy.Rational(3, 4)),
    "asadi.thm2": ("holds", sympy.Rational(99, 100)),
    "asadi.thm2.substitution": ("fails", None),
    "asadi.thm3": ("holds", sympy.Rational(99, 100)),
    "asadi.thm3.utility": ("holds", sympy.Rational(9, 10)),
    "asadi.thm4": ("holds", sympy.Rational(9, 10)),
    "abms20.prop3.13": ("holds", sympy.Rational(99, 100)),
    "abms20.prop3.13.utility": ("holds", sympy.Rational(9, 10)),
    "abms20.example5.2": ("holds", sympy.Rational(99, 100)),
    "abms20.lemma5.3": ("holds", sympy.Rational(1, 3)),
    "abms20.lemma7.2": ("fails", None),
    "lecture7.algorithm_g": ("holds", sympy.Integer(300)),
    "bunfang.lemma4.2": ("holds", sympy.Rational(1, 3)),
    "bunfang.lemma4.6": ("holds", sympy.Rational(1, 20)),
    "bunfang.lemmaA.3": ("holds", sympy.Rational(99, 100)),
}


def _check(cid: str):
    return next(c for c in all_checks() if c.id == cid)


@pytest.fixture(scope="module")
def results() -> dict:
    return {cid: _check(cid).run(quick=True) for cid in EXPECTED}


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_new_check_runs_with_the_expected_verdict(cid: str, results: dict) -> None:
    r = results[cid]
    assert r.rows, cid
    assert r.status == EXPECTED[cid][0], (cid, r.status)
    if r.status == "fails":
        assert any(row.witness for row in r.rows if row.holds is False), cid


@pytest.mark.parametrize("cid", sorted(k for k, v in EXPECTED.items() if v[1] is not None))
def test_a_false_version_of_the_bound_is_caught(cid: str) -> None:
    c = _check(cid)
    assert c.mutable, cid
    spec = c.mutable[0]
    from proofs_check.mutation import original_expr

    false = original_expr(spec) * EXPECTED[cid][1]
    out = run_mutant(c, Mutant(cid, spec, "test", false), quick=True)
    assert out.killed and not out.error, (cid, out)


def test_no_seed_statement_is_left_not_encoded() -> None:
    left = [(s.source, s.number) for s in STATEMENTS if s.status == NOT_ENCODED]
    assert not left, left
