"""Tests of ltheory.core.hypothesis_class.HypothesisClass: constructors, deduplication,
restriction, version spaces, union/intersection/complement, equality and string round trips."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ltheory import HypothesisClass, InvalidInputError, LtheoryError
from ltheory import strategies as lst

THR = HypothesisClass.from_strings(["0000", "0001", "0011", "0111", "1111"], domain="abcd")


# --------------------------------------------------------------------------- constructors
def test_from_strings_basic() -> None:
    H = HypothesisClass.from_strings(["011", "110"])
    assert H.domain == ("0", "1", "2")
    assert H.domain_size == 3
    assert len(H) == H.size == 2
    assert H.to_strings() == ["011", "110"]
    assert H.matrix.tolist() == [[0, 1, 1], [1, 1, 0]]
    assert H.matrix.dtype == np.uint8
    assert not H.is_empty()


def test_from_strings_with_labels() -> None:
    H = HypothesisClass.from_strings(["01"], domain=["x", "y"], name="tiny")
    assert H.domain == ("x", "y")
    assert H.name == "tiny"
    assert H.point_index("y") == 1
    assert H.point_index(0) == 0
    # integer labels are normalised to strings
    assert HypothesisClass.from_strings(["01"], domain=[0, 1]).domain == ("0", "1")


def test_dedup_keeps_first_occurrence_order() -> None:
    H = HypothesisClass.from_strings(["10", "01", "10", "11", "01"])
    assert H.to_strings() == ["10", "01", "11"]
    assert len(H) == 3


def test_from_matrix_and_bool_matrix() -> None:
    H = HypothesisClass.from_matrix([[0, 1], [1, 1], [0, 1]])
    assert H.to_strings() == ["01", "11"]
    B = HypothesisClass.from_matrix(np.array([[False, True], [True, True]]))
    assert B == H
    assert HypothesisClass.from_matrix(np.array([[1.0, 0.0]])).to_strings() == ["10"]


def test_from_predicates() -> None:
    H = HypothesisClass.from_predicates([lambda x: x >= 2, lambda x: x % 2], range(4),
                                        labels=["a", "b", "c", "d"])
    assert H.to_strings() == ["0011", "0101"]
    assert H.domain == ("a", "b", "c", "d")
    E = HypothesisClass.from_predicates([], range(3))
    assert len(E) == 0 and E.domain_size == 3


def test_empty_classes_and_empty_domain() -> None:
    E = HypothesisClass.from_strings([], domain=3)
    assert len(E) == 0 and E.is_empty() and E.domain_size == 3
    assert E.to_strings() == []
    assert HypothesisClass.from_strings([]).domain_size == 0
    Z = HypothesisClass.from_strings(["", "", ""])
    assert len(Z) == 1 and Z.to_strings() == [""]
    assert len(HypothesisClass.from_matrix(np.zeros((3, 0), dtype=np.uint8))) == 1
    assert len(HypothesisClass.from_matrix([], domain=2)) == 0


@pytest.mark.parametrize("build, msg", [
    (lambda: HypothesisClass.from_strings(["01", "0"]), "hypothesis 1 has length 1, expected 2"),
    (lambda: HypothesisClass.from_strings(["0a"]), "contains 'a'"),
    (lambda: HypothesisClass.from_strings(["01", 1]), "hypothesis 1 is not a string"),
    (lambda: HypothesisClass.from_strings([7]), "hypothesis 0 is not a string"),
    (lambda: HypothesisClass.from_strings(["01"], domain=3), "domain has 3 points"),
    (lambda: HypothesisClass.from_strings(["01"], domain=["a", "a"]), "'a' appears twice"),
    (lambda: HypothesisClass.from_strings(["01"], domain=["1", 1]), "'1' appears twice"),
    (lambda: HypothesisClass.from_strings(["01"], domain=True), "domain must be"),
    (lambda: HypothesisClass.from_strings(["01"], domain=-2), "non-negative"),
    (lambda: HypothesisClass.from_matrix([[0, 2]]), "0 or 1"),
    (lambda: HypothesisClass.from_matrix([[0.5, 1]]), "0 or 1"),
    (lambda: HypothesisClass.from_matrix([0, 1]), "2-D"),
    (lambda: HypothesisClass.from_matrix(np.zeros((2, 2, 2))), "2-D"),
])
def test_constructor_errors(build: object, msg: str) -> None:
    with pytest.raises(InvalidInputError, match=msg):
        build()  # type: ignore[operator]


def test_from_strings_rejects_a_bare_string() -> None:
    """Regression (fixed in 328dd83): a bare string used to become a one-point class."""
    with pytest.raises(InvalidInputError, match="single string"):
        HypothesisClass.from_strings("0101")  # type: ignore[arg-type]


def test_empty_class_with_negative_domain_is_invalid_input() -> None:
    """Regression (fixed in 328dd83): used to leak numpy's ValueError."""
    with pytest.raises(InvalidInputError, match="non-negative"):
        HypothesisClass.from_strings([], domain=-1)


def test_immutable() -> None:
    H = HypothesisClass.from_strings(["01"])
    assert not H.matrix.flags.writeable
    assert not H.packed.flags.writeable
    with pytest.raises(ValueError):
        H.matrix[0, 0] = 1


# --------------------------------------------------------------------------- membership, points
def test_contains() -> None:
    H = HypothesisClass.from_strings(["01", "11"])
    assert "01" in H and "11" in H
    assert "10" not in H and "0" not in H and "0x" not in H and "011" not in H
    assert [0, 1] in H and np.array([1, 1]) in H
    assert [1, 0] not in H and [0, 1, 1] not in H


def test_point_index_errors() -> None:
    with pytest.raises(InvalidInputError, match="out of range"):
        THR.point_index(4)
    with pytest.raises(InvalidInputError, match="out of range"):
        THR.point_index(-1)
    with pytest.raises(InvalidInputError, match="not a point of the domain"):
        THR.point_index("z")
    assert THR.point_index(np.int64(2)) == 2


# --------------------------------------------------------------------------- restriction
def test_restrict_order_and_dedup() -> None:
    R = THR.restrict(["d", "b"])
    assert R.domain == ("d", "b")
    assert sorted(R.to_strings()) == ["00", "10", "11"]  # thresholds on 2 points, deduplicated
    assert len(THR.restrict([])) == 1
    with pytest.raises(InvalidInputError, match="distinct"):
        THR.restrict(["a", 0])
    with pytest.raises(InvalidInputError, match="not a point"):
        THR.restrict(["q"])


@given(H=lst.hypothesis_classes(max_points=5, labelled=True), data=st.data())
def test_restrict_matches_definition(H: HypothesisClass, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, H.domain_size))
    pts = data.draw(st.permutations(list(range(H.domain_size))))[:k]
    R = H.restrict(pts)
    want = {"".join(h[i] for i in pts) for h in H.to_strings()}
    assert set(R.to_strings()) == want and len(R) == len(want)
    assert R.domain == tuple(H.domain[i] for i in pts)


# --------------------------------------------------------------------------- version spaces
def test_version_space() -> None:
    V = THR.version_space([("b", 1), (3, 1)])
    assert V.to_strings() == ["0111", "1111"]
    assert V.domain == THR.domain
    assert THR.consistent_with([("a", 0)]).to_strings() == ["0000", "0001", "0011", "0111"]
    assert len(THR.version_space([("a", 1), ("b", 0)])) == 0
    assert THR.version_space([]) == THR
    assert THR.version_space([("a", True)]).to_strings() == ["1111"]


@pytest.mark.parametrize("sample, msg", [
    ([("a", 2)], "labels must be 0 or 1"),
    ([("a", "1")], "labels must be 0 or 1"),
    ([("a", None)], "labels must be 0 or 1"),
    ([("a",)], "must be a pair"),
    ([5], "must be a pair"),
    ([("z", 1)], "not a point"),
    ([(9, 1)], "out of range"),
])
def test_version_space_errors(sample: list, msg: str) -> None:
    with pytest.raises(InvalidInputError, match=msg):
        THR.version_space(sample)


@given(H=lst.hypothesis_classes(max_points=5), data=st.data())
def test_version_space_matches_definition(H: HypothesisClass, data: st.DataObject) -> None:
    sample = data.draw(lst.labelled_samples(H, realizable=data.draw(st.booleans())))
    V = H.version_space(sample)
    want = [h for h in H.to_strings() if all(int(h[x]) == y for x, y in sample)]
    assert V.to_strings() == want  # order preserved


@given(H=lst.hypothesis_classes(max_points=5), data=st.data())
def test_realizable_samples_are_realizable(H: HypothesisClass, data: st.DataObject) -> None:
    sample = data.draw(lst.labelled_samples(H, realizable=True, as_labels=True))
    assert len(H.version_space(sample)) >= 1


# --------------------------------------------------------------------------- subclass
def test_subclass_mask_and_indices() -> None:
    assert THR.subclass([True, False, False, False, True]).to_strings() == ["0000", "1111"]
    assert THR.subclass([4, 0]).to_strings() == ["1111", "0000"]
    assert len(THR.subclass(np.zeros(5, dtype=bool))) == 0


def test_subclass_empty_index_list() -> None:
    """Regression (fixed in 328dd83): subclass([]) used to raise IndexError."""
    E = THR.subclass([])
    assert len(E) == 0 and E.domain == THR.domain


# --------------------------------------------------------------------------- set operations
def test_union_intersection() -> None:
    A = HypothesisClass.from_strings(["00", "01"])
    B = HypothesisClass.from_strings(["01", "11"])
    assert set((A | B).to_strings()) == {"00", "01", "11"}
    assert A.union(B) == A | B
    assert (A & B).to_strings() == ["01"]
    assert A.intersection(B) == A & B
    E = HypothesisClass.from_strings([], domain=2)
    assert A | E == A and len(A & E) == 0 and len(E & A) == 0
    assert A.union() == A
    assert set(A.union(B, HypothesisClass.from_strings(["10"])).to_strings()) == {
        "00", "01", "10", "11"}


def test_union_needs_same_domain() -> None:
    A = HypothesisClass.from_strings(["01"])
    with pytest.raises(InvalidInputError, match="same domain"):
        A | HypothesisClass.from_strings(["011"])
    with pytest.raises(InvalidInputError, match="same domain"):
        A | HypothesisClass.from_strings(["01"], domain=["a", "b"])
    with pytest.raises(InvalidInputError, match="needs a HypothesisClass"):
        A.union(["01"])  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="same domain"):
        A & HypothesisClass.from_strings(["1"])


@given(pair=st.integers(0, 5).flatmap(lambda n: st.tuples(
    lst.hypothesis_classes(min_points=n, max_points=n, allow_empty=True),
    lst.hypothesis_classes(min_points=n, max_points=n, allow_empty=True))))
def test_union_intersection_are_set_operations(pair: tuple[HypothesisClass,
                                                           HypothesisClass]) -> None:
    A, B = pair
    a, b = set(A.to_strings()), set(B.to_strings())
    assert set((A | B).to_strings()) == a | b and len(A | B) == len(a | b)
    assert set((A & B).to_strings()) == a & b
    assert A | B == B | A


def test_complement() -> None:
    H = HypothesisClass.from_strings(["001", "110", "111"], domain="xyz")
    C = H.complement()
    assert C.to_strings() == ["110", "001", "000"]
    assert C.domain == H.domain
    assert C.complement() == H
    assert len(HypothesisClass.from_strings([], domain=2).complement()) == 0


@given(H=lst.hypothesis_classes(max_points=6, allow_empty=True))
def test_complement_is_pointwise_negation_and_involution(H: HypothesisClass) -> None:
    C = H.complement()
    assert C.to_strings() == ["".join("1" if c == "0" else "0" for c in h)
                              for h in H.to_strings()]
    assert C.complement() == H
    assert len(C) == len(H)


# --------------------------------------------------------------------------- equality, hashing
def test_equality_is_set_equality_over_the_same_domain() -> None:
    A = HypothesisClass.from_strings(["01", "10"], name="a")
    B = HypothesisClass.from_strings(["10", "01", "10"], name="b")
    assert A == B and hash(A) == hash(B)  # order, duplicates and names do not matter
    assert A != HypothesisClass.from_strings(["01", "10"], domain=["p", "q"])
    assert A != HypothesisClass.from_strings(["01"])
    assert A != "01" and A != ["01", "10"]
    assert len({A, B}) == 1
    assert HypothesisClass.from_strings([], domain=2) == HypothesisClass.from_strings([],
                                                                                      domain=2)
    assert HypothesisClass.from_strings([], domain=2) != HypothesisClass.from_strings([],
                                                                                      domain=3)


@given(H=lst.hypothesis_classes(max_points=6, allow_empty=True, labelled=True))
def test_to_strings_round_trip(H: HypothesisClass) -> None:
    G = HypothesisClass.from_strings(H.to_strings(), domain=H.domain)
    assert G == H
    assert G.to_strings() == H.to_strings()
    assert list(H) == H.to_strings()
    assert HypothesisClass.from_matrix(H.matrix, H.domain) == H


@given(H=lst.hypothesis_classes(max_points=6), data=st.data())
def test_permute_points_and_relabel(H: HypothesisClass, data: st.DataObject) -> None:
    p = data.draw(lst.point_permutations(H))
    P = H.permute_points(p)
    assert P.domain == tuple(H.domain[i] for i in p)
    assert P.to_strings() == ["".join(h[i] for i in p) for h in H.to_strings()]
    inv = [p.index(i) for i in range(len(p))]
    assert P.permute_points(inv) == H
    labels = data.draw(lst.domains(H.domain_size, H.domain_size))
    R = H.relabel(labels)
    assert R.domain == labels and R.to_strings() == H.to_strings()


def test_permute_points_errors() -> None:
    with pytest.raises(InvalidInputError, match="permutation"):
        THR.permute_points([0, 0, 1, 2])
    with pytest.raises(InvalidInputError, match="permutation"):
        THR.permute_points([0, 1, 2])


def test_column_bitsets() -> None:
    H = HypothesisClass.from_strings(["10", "11", "01"])
    # bit j of column x is h_j(x)
    assert H.column_bitsets() == [0b011, 0b110]
    assert HypothesisClass.from_strings([], domain=2).column_bitsets() == [0, 0]


def test_errors_are_ltheory_errors() -> None:
    assert issubclass(InvalidInputError, LtheoryError)
    assert issubclass(InvalidInputError, ValueError)
    assert "2 hypotheses on 2 points" in repr(HypothesisClass.from_strings(["01", "10"]))


def test_from_matrix_domain_labels_default_and_errors() -> None:
    """Issue 43: from_matrix's column labels silently became "0".."n-1"; the caller passes them
    with ``domain=``, a table with column labels keeps them, and a wrong count is a clear error."""
    import numpy as np

    from ltheory.core import HypothesisClass
    from ltheory.errors import InvalidInputError

    mat = np.array([[0, 1, 1], [1, 1, 0], [0, 1, 1]])
    H = HypothesisClass.from_matrix(mat)
    assert H.domain == ("0", "1", "2") and len(H) == 2          # duplicate row removed
    H = HypothesisClass.from_matrix(mat, domain=["a", "b", "c"])
    assert H.domain == ("a", "b", "c") and H.to_strings() == ["011", "110"]
    assert HypothesisClass.from_matrix(mat, domain=[10, 20, 30]).domain == ("10", "20", "30")

    class Frame:                                  # what a pandas DataFrame offers
        columns = ["x1", "x2", "x3"]

        def __array__(self, dtype=None, copy=None):
            return mat if dtype is None else mat.astype(dtype)

    assert HypothesisClass.from_matrix(Frame()).domain == ("x1", "x2", "x3")
    assert HypothesisClass.from_matrix(Frame(), domain=3).domain == ("0", "1", "2")
    with pytest.raises(InvalidInputError, match="2 domain labels for a matrix of 3 columns"):
        HypothesisClass.from_matrix(mat, domain=["a", "b"])
    with pytest.raises(InvalidInputError, match="distinct"):
        HypothesisClass.from_matrix(mat, domain=["a", "a", "c"])
