"""Tests of the independent witness checkers in ltheory.dims.certificates.

Valid witnesses come from the brute-force references (tests/reference.py), so these tests do not
depend on the exact algorithms; corrupted witnesses must be rejected with a message naming the
check that failed.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ltheory import HypothesisClass
from ltheory import strategies as lst
from ltheory.dims.certificates import verify, verify_littlestone, verify_threshold, verify_vc
from ltheory.dims.result import DimensionResult
from ltheory.errors import CertificateError, LtheoryError
from tests.reference import (
    ldim_reference,
    ldim_witness,
    tdim_reference,
    tdim_witness,
    vc_reference,
    vc_witness,
)

# thresholds on 4 labelled points: VC 1, Ldim 2, T 4
THR = HypothesisClass.from_strings(["0000", "0001", "0011", "0111", "1111"], domain="abcd")
# all 8 functions on 3 points: VC = Ldim = T = 3
CUBE = HypothesisClass.from_strings([format(i, "03b") for i in range(8)], domain=["p", "q", "r"])
EMPTY = HypothesisClass.from_strings([], domain=3)
SINGLE = HypothesisClass.from_strings(["010"])


def leaves(tree: dict[str, Any]) -> list[dict[str, Any]]:
    if "hypothesis" in tree:
        return [tree]
    return leaves(tree["children"]["0"]) + leaves(tree["children"]["1"])


def leaf_paths(tree: dict[str, Any], path: tuple = ()) -> list[tuple[tuple, dict[str, Any]]]:
    if "hypothesis" in tree:
        return [(path, tree)]
    out = []
    for b in "01":
        out += leaf_paths(tree["children"][b], (*path, (tree["point"], int(b))))
    return out


def internal_nodes(tree: dict[str, Any]) -> list[dict[str, Any]]:
    if "hypothesis" in tree:
        return []
    return [tree] + internal_nodes(tree["children"]["0"]) + internal_nodes(tree["children"]["1"])


# --------------------------------------------------------------------------- valid witnesses
@pytest.mark.parametrize("H", [THR, CUBE, SINGLE], ids=["thresholds", "cube", "single"])
def test_reference_witnesses_verify(H: HypothesisClass) -> None:
    assert verify_vc(H, vc_witness(H), vc_reference(H)) is None
    assert verify_littlestone(H, ldim_witness(H), ldim_reference(H)) is None
    assert verify_threshold(H, tdim_witness(H), tdim_reference(H)) is None


def test_known_values_of_fixtures() -> None:
    assert (vc_reference(THR), ldim_reference(THR), tdim_reference(THR)) == (1, 2, 4)
    assert (vc_reference(CUBE), ldim_reference(CUBE), tdim_reference(CUBE)) == (3, 3, 3)
    assert (vc_reference(SINGLE), ldim_reference(SINGLE), tdim_reference(SINGLE)) == (0, 0, 1)


@given(lst.hypothesis_classes(max_points=5, max_size=12, labelled=True))
def test_reference_witnesses_verify_property(H: HypothesisClass) -> None:
    for check, wit, val in ((verify_vc, vc_witness(H), vc_reference(H)),
                            (verify_littlestone, ldim_witness(H), ldim_reference(H)),
                            (verify_threshold, tdim_witness(H), tdim_reference(H))):
        check(H, wit, val)
        check(H, json.loads(json.dumps(wit)), val)  # the JSON form verifies the same


def test_smaller_witnesses_are_fine_with_their_own_size() -> None:
    verify_vc(CUBE, ["p", "r"], 2)
    verify_vc(CUBE, [], 0)
    verify_littlestone(CUBE, {"hypothesis": "101"}, 0)
    verify_threshold(THR, {"points": ["b", "d"], "hypotheses": ["0111", "0001"]}, 2)
    verify_threshold(THR, {"points": [], "hypotheses": []}, 0)
    verify_vc(THR, ("c",), 1)  # a tuple is accepted as a list


def test_empty_domain_class() -> None:
    H = HypothesisClass.from_strings([""])
    verify_vc(H, [], 0)
    verify_littlestone(H, {"hypothesis": ""}, 0)
    verify_threshold(H, {"points": [], "hypotheses": []}, 0)


# --------------------------------------------------------------------------- empty-class convention
@pytest.mark.parametrize("check", [verify_vc, verify_littlestone, verify_threshold])
def test_empty_class_convention(check: Any) -> None:
    assert check(EMPTY, None, -1) is None
    with pytest.raises(CertificateError, match="empty.*-1"):
        check(EMPTY, None, 0)
    with pytest.raises(CertificateError, match="witness must be None"):
        check(EMPTY, [], -1)
    with pytest.raises(CertificateError, match="non-empty.*-1 was claimed"):
        check(SINGLE, None, -1)
    with pytest.raises(CertificateError, match="witness is None"):
        check(SINGLE, None, 0)


@pytest.mark.parametrize("check", [verify_vc, verify_littlestone, verify_threshold])
@pytest.mark.parametrize("value", [True, "2", 1.0, None, -2])
def test_bad_values(check: Any, value: Any) -> None:
    with pytest.raises(CertificateError, match="claimed value"):
        check(CUBE, [], value)


@pytest.mark.parametrize("check", [verify_vc, verify_littlestone, verify_threshold])
def test_not_a_class(check: Any) -> None:
    with pytest.raises(CertificateError, match="HypothesisClass"):
        check(["01"], [], 0)


def test_certificate_error_is_an_ltheory_error() -> None:
    assert issubclass(CertificateError, LtheoryError)


# --------------------------------------------------------------------------- VC corruptions
@pytest.mark.parametrize("witness, value, msg", [
    (["p", "q", "x"], 3, "unknown label 'x'"),
    (["p", "p"], 2, "duplicate point 'p'"),
    (["p", "q"], 3, "has 2 points but the claimed value is 3"),
    (["p", "q", "r"], 2, "has 3 points but the claimed value is 2"),
    ([0, 1], 2, "domain label \\(a string\\)"),
    ("pq", 2, "list of domain labels"),
    ({"p": 1}, 1, "list of domain labels"),
    (7, 1, "list of domain labels"),
])
def test_vc_malformed(witness: Any, value: int, msg: str) -> None:
    with pytest.raises(CertificateError, match=msg):
        verify_vc(CUBE, witness, value)


def test_vc_not_shattered() -> None:
    with pytest.raises(CertificateError, match="not shattered.*a=1, b=0"):
        verify_vc(THR, ["a", "b"], 2)


def test_vc_drop_a_hypothesis() -> None:
    H = CUBE.subclass([s != "110" for s in CUBE.to_strings()])
    with pytest.raises(CertificateError, match=r"pattern \(p=1, q=1, r=0\)"):
        verify_vc(H, ["p", "q", "r"], 3)
    verify_vc(H, ["p", "q"], 2)  # the pattern (1, 1) is still realised by 111


@given(lst.hypothesis_classes(max_points=5, max_size=12), st.data())
def test_vc_corruption_property(H: HypothesisClass, data: st.DataObject) -> None:
    """Remove every hypothesis realising one pattern on a shattered set: no longer shattered."""
    d = vc_reference(H)
    assume(d >= 1)
    S = vc_witness(H)
    idx = [H.point_index(x) for x in S]
    pattern = data.draw(st.tuples(*[st.integers(0, 1)] * d))
    keep = [tuple(int(h[i]) for i in idx) != pattern for h in H.to_strings()]
    with pytest.raises(CertificateError, match="not shattered"):
        verify_vc(H.subclass(keep), S, d)


# --------------------------------------------------------------------------- Littlestone
def test_ldim_swap_children_is_rejected() -> None:
    tree = ldim_witness(THR)
    bad = copy.deepcopy(tree)
    ch = bad["children"]
    ch["0"], ch["1"] = ch["1"], ch["0"]
    with pytest.raises(CertificateError, match="inconsistent with its path"):
        verify_littlestone(THR, bad, 2)


def test_ldim_leaf_not_in_class() -> None:
    bad = copy.deepcopy(ldim_witness(THR))
    leaves(bad)[0]["hypothesis"] = "1010"
    with pytest.raises(CertificateError, match="'1010' is not in the class"):
        verify_littlestone(THR, bad, 2)


def test_ldim_leaf_wrong_length_or_chars() -> None:
    for h, msg in (("000", "length 3"), ("00x0", "contains 'x'"), (11, "string of '0'/'1'")):
        bad = copy.deepcopy(ldim_witness(THR))
        leaves(bad)[0]["hypothesis"] = h
        with pytest.raises(CertificateError, match=msg):
            verify_littlestone(THR, bad, 2)


def test_ldim_cut_subtree() -> None:
    tree = ldim_witness(THR)
    bad = copy.deepcopy(tree)
    bad["children"]["1"] = leaves(bad["children"]["1"])[0]  # leaf at depth 1 in a depth-2 tree
    with pytest.raises(CertificateError, match="leaf at depth 1, but the claimed depth is 2"):
        verify_littlestone(THR, bad, 2)
    with pytest.raises(CertificateError, match="deeper than claimed"):
        verify_littlestone(THR, tree, 1)
    with pytest.raises(CertificateError, match="leaf at depth 2, but the claimed depth is 3"):
        verify_littlestone(THR, tree, 3)


def test_ldim_repeated_point_on_path() -> None:
    H = HypothesisClass.from_strings(["00", "01", "10", "11"], domain=["u", "v"])
    same = {"point": "u", "children": {
        "0": {"point": "u", "children": {"0": {"hypothesis": "00"}, "1": {"hypothesis": "00"}}},
        "1": {"point": "v", "children": {"0": {"hypothesis": "10"}, "1": {"hypothesis": "11"}}},
    }}
    with pytest.raises(CertificateError, match="'u' is repeated on its root-to-leaf path"):
        verify_littlestone(H, same, 2)
    # the same point in two different branches is fine
    ok = {"point": "u", "children": {
        "0": {"point": "v", "children": {"0": {"hypothesis": "00"}, "1": {"hypothesis": "01"}}},
        "1": {"point": "v", "children": {"0": {"hypothesis": "10"}, "1": {"hypothesis": "11"}}},
    }}
    verify_littlestone(H, ok, 2)


@pytest.mark.parametrize("mutate, msg", [
    (lambda t: t.update(extra=1), "exactly the keys"),
    (lambda t: t.pop("children"), "exactly the keys"),
    (lambda t: t.update(children={"0": t["children"]["0"]}), "exactly the keys '0' and '1'"),
    (lambda t: t.update(children={0: t["children"]["0"], 1: t["children"]["1"]}),
     "exactly the keys '0' and '1'"),
    (lambda t: t.update(children=[t["children"]["0"], t["children"]["1"]]), "got list"),
    (lambda t: t.update(point="zz"), "unknown label 'zz'"),
    (lambda t: t.update(point=0), "domain label \\(a string\\)"),
    (lambda t: t["children"].update({"0": "leaf"}), "must be a JSON object, got str"),
    (lambda t: t["children"].update({"1": {"hypothesis": "1111", "x": 0}}), "exactly the keys"),
])
def test_ldim_malformed(mutate: Any, msg: str) -> None:
    bad = copy.deepcopy(ldim_witness(THR))
    mutate(bad)
    with pytest.raises(CertificateError, match=msg):
        verify_littlestone(THR, bad, 2)


@pytest.mark.parametrize("witness", [[], "tree", 3, ["point", "a"]])
def test_ldim_wrong_top_level_type(witness: Any) -> None:
    with pytest.raises(CertificateError, match="node at root"):
        verify_littlestone(THR, witness, 2)


def test_ldim_hostile_deep_tree_has_no_recursion_error() -> None:
    H = HypothesisClass.from_strings(["0", "1"])
    tree: dict[str, Any] = {"hypothesis": "0"}
    for _ in range(5000):
        tree = {"point": "0", "children": {"0": tree, "1": {"hypothesis": "1"}}}
    with pytest.raises(CertificateError):
        verify_littlestone(H, tree, 5000)


@given(lst.hypothesis_classes(max_points=5, max_size=12), st.data())
def test_ldim_corrupt_leaf_property(H: HypothesisClass, data: st.DataObject) -> None:
    """Replace one leaf's hypothesis with a hypothesis of H inconsistent with its path."""
    d = ldim_reference(H)
    assume(d >= 1)
    tree = ldim_witness(H)
    paths = leaf_paths(tree)
    path, leaf = paths[data.draw(st.integers(0, len(paths) - 1))]
    wrong = [h for h in H.to_strings()
             if any(int(h[H.point_index(x)]) != y for x, y in path)]
    assert wrong  # the sibling leaf's hypothesis disagrees on the last point
    leaf["hypothesis"] = data.draw(st.sampled_from(wrong))
    with pytest.raises(CertificateError, match="inconsistent with its path"):
        verify_littlestone(H, tree, d)


@given(lst.hypothesis_classes(max_points=5, max_size=12), st.data())
def test_ldim_cut_subtree_property(H: HypothesisClass, data: st.DataObject) -> None:
    """Replace an internal node by one of its leaves: the tree is no longer complete."""
    d = ldim_reference(H)
    assume(d >= 1)
    tree = ldim_witness(H)
    nodes = internal_nodes(tree)
    node = nodes[data.draw(st.integers(0, len(nodes) - 1))]
    leaf = leaves(node)[0]
    node.clear()
    node.update(leaf)
    with pytest.raises(CertificateError, match="not complete|claimed depth"):
        verify_littlestone(H, tree, d)


@given(lst.hypothesis_classes(max_points=5, max_size=12), st.data())
def test_ldim_drop_hypothesis_property(H: HypothesisClass, data: st.DataObject) -> None:
    """Drop a leaf's hypothesis from the class: that leaf no longer names a hypothesis of H."""
    d = ldim_reference(H)
    assume(d >= 0)
    tree = ldim_witness(H)
    gone = data.draw(st.sampled_from([lf["hypothesis"] for lf in leaves(tree)]))
    G = H.subclass([h != gone for h in H.to_strings()])
    with pytest.raises(CertificateError):
        verify_littlestone(G, tree, d)


# --------------------------------------------------------------------------- threshold
@pytest.mark.parametrize("witness, value, msg", [
    ({"points": ["a", "b"], "hypotheses": ["1111"]}, 2, "2 points but 1 hypotheses"),
    ({"points": ["a", "b"], "hypotheses": ["1111", "0111"]}, 3, "claimed value is 3"),
    ({"points": ["a", "a"], "hypotheses": ["1111", "0111"]}, 2, "duplicate point 'a'"),
    ({"points": ["a", "q"], "hypotheses": ["1111", "0111"]}, 2, "unknown label 'q'"),
    ({"points": ["a", "b"], "hypotheses": ["1111", "0101"]}, 2, "'0101' is not in the class"),
    ({"points": ["a", "b"], "hypotheses": ["1111", "01"]}, 2, "length 2"),
    ({"points": ["a", "b"], "hypotheses": ["0111", "1111"]}, 2, r"h_1\(x_1\) must be 1"),
    ({"points": ["b", "a"], "hypotheses": ["1111", "0111"]}, 2, r"h_2\(x_1\) must be 0"),
    ({"points": ["a", "b"]}, 2, "exactly the keys"),
    ({"points": ["a"], "hypotheses": ["1111"], "k": 1}, 1, "exactly the keys"),
    ({"points": "ab", "hypotheses": ["1111", "0111"]}, 2, "'points' must be a list"),
    ({"points": ["a"], "hypotheses": "1111"}, 1, "'hypotheses' must be a list"),
    (["a", "b"], 2, "must be an object"),
])
def test_threshold_malformed(witness: Any, value: int, msg: str) -> None:
    with pytest.raises(CertificateError, match=msg):
        verify_threshold(THR, witness, value)


@given(lst.hypothesis_classes(max_points=5, max_size=12), st.data())
def test_threshold_corruption_property(H: HypothesisClass, data: st.DataObject) -> None:
    k = tdim_reference(H)
    assume(k >= 1)
    w = tdim_witness(H)
    i = data.draw(st.integers(0, k - 1))
    if k >= 2:  # swapping two rungs of the ladder breaks it
        j = data.draw(st.integers(0, k - 1).filter(lambda j: j != i))
        bad = copy.deepcopy(w)
        bad["hypotheses"][i], bad["hypotheses"][j] = bad["hypotheses"][j], bad["hypotheses"][i]
        with pytest.raises(CertificateError, match="iff i <= j"):
            verify_threshold(H, bad, k)
    # dropping a hypothesis from the witness
    bad = copy.deepcopy(w)
    del bad["hypotheses"][i]
    with pytest.raises(CertificateError, match="points but"):
        verify_threshold(H, bad, k)
    # dropping the rung's hypothesis from the class
    G = H.subclass([h != w["hypotheses"][i] for h in H.to_strings()])
    if len(G):
        with pytest.raises(CertificateError, match="not in the class"):
            verify_threshold(G, w, k)


# --------------------------------------------------------------------------- verify(result)
def _result(kind: str, value: int, witness: Any, upper: int | None = None) -> DimensionResult:
    up = value if upper is None else upper
    return DimensionResult(kind=kind, value=value, witness=witness, exact=value == up,
                           lower=value, upper=up)


def test_verify_dispatch() -> None:
    verify(THR, _result("vc", 1, ["b"]))
    verify(THR, _result("ldim", 2, ldim_witness(THR)))
    verify(THR, _result("tdim", 4, tdim_witness(THR)))
    verify(THR, _result("tdim", 3, {"points": ["a", "b", "c"],
                                    "hypotheses": ["1111", "0111", "0011"]}, upper=4))
    verify(EMPTY, _result("vc", -1, None))
    with pytest.raises(CertificateError, match="Littlestone certificate"):
        verify(THR, _result("ldim", 3, ldim_witness(THR)))
    with pytest.raises(CertificateError, match="VC certificate"):
        verify(THR, _result("vc", 2, ["a", "b"]))


def test_verify_rejects_inconsistent_results() -> None:
    with pytest.raises(CertificateError, match="unknown result kind 'clique'"):
        verify(THR, _result("clique", 1, ["b"]))
    with pytest.raises(CertificateError, match="exceeds upper bound"):
        verify(THR, DimensionResult("vc", 1, ["b"], False, 1, 0))
    with pytest.raises(CertificateError, match="exact=True"):
        verify(THR, DimensionResult("vc", 1, ["b"], True, 1, 2))
    with pytest.raises(CertificateError, match="value 2 differs"):
        verify(THR, DimensionResult("vc", 2, ["b"], False, 1, 2))
    with pytest.raises(CertificateError, match="DimensionResult"):
        verify(THR, {"kind": "vc"})


def test_composed_witness_against_a_class_names_the_right_checker() -> None:
    from ltheory import catalog, compose, threshold_dimension
    from ltheory.dims.certificates import verify
    from ltheory.sat.certify import strip_components

    H = catalog.family("thresholds", n=5)
    res = threshold_dimension(compose("maj", H, H, H, lazy=True))
    G = compose("maj", H, H, H)
    with pytest.raises(CertificateError, match="verify_composed"):
        verify(G, res)
    verify(G, res.__class__(res.kind, res.value, strip_components(res.witness), res.exact,
                            res.lower, res.upper, res.seconds, res.stats))
