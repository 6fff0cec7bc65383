"""The combinatorial halfspace enumeration (ltheory.catalog.halfspaces) against the LP method and
against brute force (one LP per labelling), on grids and on random point sets in general and
special position."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory import HypothesisClass
from ltheory import catalog as cat
from ltheory.catalog.halfspaces import TooManyDichotomies, halfspace_dichotomies
from ltheory.errors import InvalidInputError


def _grid(g: int, dim: int) -> np.ndarray:
    return np.array(list(itertools.product(range(g), repeat=dim)), dtype=np.int64).reshape(-1, dim)


def _rows(mat: np.ndarray) -> set[str]:
    return {"".join(map(str, r)) for r in mat}


def _brute(points: np.ndarray) -> set[str]:
    """Every labelling tested by its own LP: y(w.x + b) >= 1 feasible (strict separation)."""
    from scipy.optimize import linprog

    A = np.hstack([points.astype(float), np.ones((len(points), 1))])
    out = set()
    for lab in itertools.product((0, 1), repeat=len(points)):
        sgn = np.where(np.array(lab) == 1, 1.0, -1.0)
        res = linprog(np.zeros(A.shape[1]), A_ub=-(sgn[:, None] * A), b_ub=-np.ones(len(A)),
                      bounds=[(None, None)] * A.shape[1], method="highs")
        if res.status == 0:
            out.add("".join(map(str, lab)))
    return out


# grids the LP method does in about a second each; tests marked slow and the benchmark
# (benchmarks/bench_catalog.py --cross-check) do every grid with g^dim <= 36
FAST_GRIDS = [(1, 1), (2, 1), (7, 1), (1, 2), (2, 2), (3, 2), (2, 3), (1, 4)]
SLOW_GRIDS = [(36, 1), (4, 2), (5, 2)]


@pytest.mark.parametrize("g,dim", FAST_GRIDS)
def test_grid_equals_lp(g: int, dim: int) -> None:
    P = _grid(g, dim)
    combinatorial = halfspace_dichotomies(P)
    assert np.array_equal(combinatorial, halfspace_dichotomies(P, method="lp"))


@pytest.mark.slow
@pytest.mark.parametrize("g,dim", SLOW_GRIDS)
def test_grid_equals_lp_slow(g: int, dim: int) -> None:
    P = _grid(g, dim)
    assert np.array_equal(halfspace_dichotomies(P), halfspace_dichotomies(P, method="lp"))


@pytest.mark.parametrize("g,dim,count", [
    (1, 3, 2), (5, 1, 10), (2, 2, 14), (3, 2, 58), (4, 2, 174), (12, 2, 12790),
    (2, 3, 104), (2, 4, 1882), (3, 3, 2702),
])
def test_known_counts(g: int, dim: int, count: int) -> None:
    """2g on a line; on the g x g grid twice the number of ways to cut it by a line (OEIS A114043:
    7, 29, 87 for g = 2, 3, 4; 12,790 at g = 12 is a regression value of this enumeration, equal
    to the LP's up to g = 6); on the cube {0,1}^dim the threshold functions of dim variables
    (OEIS A000609: 14, 104, 1882); 2,702 on the 3 x 3 x 3 grid (equal to the LP's)."""
    assert len(halfspace_dichotomies(_grid(g, dim))) == count


def test_grid_equals_brute_force() -> None:
    for g, dim in [(3, 2), (2, 3)]:
        P = _grid(g, dim)
        assert _rows(halfspace_dichotomies(P)) == _brute(P)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 3).flatmap(lambda d: st.tuples(
    st.just(d), st.lists(st.lists(st.integers(-40, 40), min_size=d, max_size=d),
                         min_size=0, max_size=9))))
def test_random_points_general_position(case: tuple[int, list[list[int]]]) -> None:
    dim, pts = case
    P = np.array(pts, dtype=np.int64).reshape(len(pts), dim)
    assert np.array_equal(halfspace_dichotomies(P), halfspace_dichotomies(P, method="lp"))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3).flatmap(lambda d: st.tuples(
    st.just(d), st.lists(st.lists(st.integers(0, 2), min_size=d, max_size=d),
                         min_size=1, max_size=10))))
def test_random_points_special_position(case: tuple[int, list[list[int]]]) -> None:
    """Points of {0,1,2}^d, drawn with repetition: collinear and coplanar sets, duplicates."""
    dim, pts = case
    P = np.array(pts, dtype=np.int64)
    assert np.array_equal(halfspace_dichotomies(P), halfspace_dichotomies(P, method="lp"))


def test_points_on_a_lower_dimensional_flat() -> None:
    """Points of R^3 on the plane z = x + y (rank 3 < 4): the same dichotomies as in the plane."""
    flat = _grid(3, 2)
    lifted = np.hstack([flat, flat.sum(axis=1, keepdims=True)])
    assert np.array_equal(halfspace_dichotomies(lifted), halfspace_dichotomies(flat))
    line = np.array([[0, 0, 0], [1, 2, 3], [2, 4, 6], [1, 2, 3]])  # collinear, with a duplicate
    assert _rows(halfspace_dichotomies(line)) == {"0000", "1000", "1101", "1111", "0111",
                                                  "0010"}


def test_large_coordinates_use_exact_python_integers() -> None:
    """Dichotomies are scale-invariant: a grid scaled by 10^6 (products beyond int64) must give
    the same dichotomies as the grid itself."""
    P = _grid(3, 3)
    assert np.array_equal(halfspace_dichotomies(P * 10**6), halfspace_dichotomies(P))


def test_catalog_family_uses_the_enumeration() -> None:
    H = cat.family("halfspaces", g=12, dim=2)
    assert len(H) == 12790 and H.domain_size == 144
    assert H == HypothesisClass.from_matrix(halfspace_dichotomies(_grid(12, 2)), domain=H.domain)
    assert H.domain[:2] == ("(0,0)", "(0,1)")


def test_limit_and_errors() -> None:
    with pytest.raises(TooManyDichotomies):
        halfspace_dichotomies(_grid(4, 2), limit=100)
    with pytest.raises(TooManyDichotomies):
        halfspace_dichotomies(_grid(3, 2), method="lp", limit=10)
    assert len(halfspace_dichotomies(_grid(4, 2), limit=174)) == 174
    for bad, words in [([[0.5, 1]], "integer"), ([1, 2, 3], "(N, d)"), ([["a"]], "integer"),
                       ([[np.inf]], "integer")]:
        with pytest.raises(InvalidInputError, match=words.replace("(", r"\(").replace(")", r"\)")):
            halfspace_dichotomies(bad)
    with pytest.raises(InvalidInputError, match="method"):
        halfspace_dichotomies([[0]], method="simplex")
    assert halfspace_dichotomies(np.zeros((0, 2), dtype=int)).shape == (1, 0)
    assert halfspace_dichotomies([[1.0, 2.0], [3.0, 4.0]]).shape == (4, 2)


def test_catalog_refuses_beyond_its_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    from ltheory.catalog import builders

    with pytest.raises(InvalidInputError, match="C\\(64, 6\\)"):
        cat.family("halfspaces", g=2, dim=6)
    monkeypatch.setattr(builders, "HALFSPACE_MAX_CELLS", 174 * 16 - 1)
    with pytest.raises(InvalidInputError, match="more than 173 dichotomies"):
        cat.family("halfspaces", g=4, dim=2)
    monkeypatch.setattr(builders, "HALFSPACE_MAX_CELLS", 174 * 16)
    assert len(cat.family("halfspaces", g=4, dim=2)) == 174


def test_a_wrong_enumeration_is_caught() -> None:
    """The cross-check is falsifiable: labelling the points on each hyperplane 0 instead of by
    the recursion loses dichotomies (37 of the 58 on the 3 x 3 grid), and the LP comparison sees
    it."""
    from ltheory.catalog import halfspaces as hs

    class NoRecursion(hs._Arrangement):
        def cells(self, bits, V):  # type: ignore[no-untyped-def]
            return super().cells(bits, V) if len(bits) == self.N else {0}

    P = _grid(3, 2)
    V = np.hstack([np.ones((len(P), 1), dtype=np.int64), P])
    wrong = NoRecursion(len(P), None).cells([1 << i for i in range(len(P))], V)
    assert len(wrong) == 37
    assert len(wrong) < len(halfspace_dichotomies(P, method="lp")) == 58
