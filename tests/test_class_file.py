"""Tests of class files (format ``ltheory.class/1``, DESIGN.md): load/save round trips, and every
malformation raising ClassFileError with a message naming the fault."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from ltheory import (
    ClassFileError,
    HypothesisClass,
    InvalidInputError,
    class_from_json,
    class_to_json,
    load_class,
    save_class,
)
from ltheory import strategies as lst

GOOD = {"format": "ltheory.class/1", "name": "thresholds-4",
        "domain": ["0", "1", "2", "3"],
        "hypotheses": ["0000", "0001", "0011", "0111", "1111"]}


def write(tmp_path: Path, doc: Any, name: str = "c.json") -> Path:
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return p


# --------------------------------------------------------------------------- good files
def test_load_design_example(tmp_path: Path) -> None:
    H = load_class(write(tmp_path, GOOD))
    assert H.name == "thresholds-4"
    assert H.domain == ("0", "1", "2", "3")
    assert H.to_strings() == GOOD["hypotheses"]


def test_integer_domain_and_default_name(tmp_path: Path) -> None:
    doc = {"format": "ltheory.class/1", "domain": 3, "hypotheses": ["010", "111"]}
    H = load_class(write(tmp_path, doc, "my-class.json"))
    assert H.domain == ("0", "1", "2")
    assert H.name == "my-class"  # the file stem when the file has no name


def test_duplicates_removed_on_load(tmp_path: Path) -> None:
    doc = dict(GOOD, hypotheses=["0011", "0001", "0011", "0001"])
    assert load_class(write(tmp_path, doc)).to_strings() == ["0011", "0001"]


def test_optional_fields_and_integer_labels() -> None:
    doc = dict(GOOD, description="thresholds", meta={"source": "test"}, domain=[10, 11, 12, 13])
    H = class_from_json(doc)
    assert H.domain == ("10", "11", "12", "13")


def test_empty_domain_file(tmp_path: Path) -> None:
    H = load_class(write(tmp_path, {"format": "ltheory.class/1", "domain": 0,
                                    "hypotheses": ["", ""]}))
    assert len(H) == 1 and H.domain_size == 0


def test_class_to_json() -> None:
    H = HypothesisClass.from_strings(["01", "10"], name="n")
    assert class_to_json(H) == {"format": "ltheory.class/1", "name": "n", "domain": 2,
                                "hypotheses": ["01", "10"]}
    L = HypothesisClass.from_strings(["01"], domain=["b", "a"])
    assert class_to_json(L, name="x") == {"format": "ltheory.class/1", "name": "x",
                                          "domain": ["b", "a"], "hypotheses": ["01"]}


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(H=lst.hypothesis_classes(max_points=7, max_size=20, labelled=True))
def test_save_load_round_trip(tmp_path: Path, H: HypothesisClass) -> None:
    p = tmp_path / "rt.json"
    save_class(H, p, name="rt")
    G = load_class(p)
    assert G == H
    assert G.to_strings() == H.to_strings()
    assert G.domain == H.domain
    assert G.name == "rt"
    assert class_from_json(json.loads(p.read_text())) == H
    assert class_from_json(class_to_json(H)) == H


def test_round_trip_awkward_labels_and_name(tmp_path: Path) -> None:
    H = HypothesisClass.from_strings(["01", "11"], domain=['a"b', "c\\d"], name='x"y\n')
    p = tmp_path / "awk.json"
    save_class(H, p)
    G = load_class(p)
    assert G == H and G.name == 'x"y\n'


def test_saved_file_has_one_hypothesis_per_line(tmp_path: Path) -> None:
    H = HypothesisClass.from_strings(["000", "011", "111"])
    p = tmp_path / "lines.json"
    save_class(H, p)
    lines = p.read_text().splitlines()
    assert sum(line.strip().strip(",") in ('"000"', '"011"', '"111"') for line in lines) == 3


def test_save_empty_class_is_refused(tmp_path: Path) -> None:
    """An empty class cannot be written: the format needs a hypothesis and load_class would reject
    the file (regression, fixed in 328dd83)."""
    E = HypothesisClass.from_strings([], domain=2)
    p = tmp_path / "empty.json"
    with pytest.raises(ClassFileError, match="empty class"):
        save_class(E, p)
    assert not p.exists()


# --------------------------------------------------------------------------- malformations
def test_bad_json_names_line_and_column(tmp_path: Path) -> None:
    text = '{\n  "format": "ltheory.class/1",\n  "domain": 2,\n  "hypotheses": ["01",]\n}\n'
    with pytest.raises(ClassFileError, match=r"invalid JSON at line 4, column \d+"):
        load_class(write(tmp_path, text))


@pytest.mark.parametrize("doc, msg", [
    (dict(GOOD, hypotheses=["0000", "0021"]), r"hypotheses\[1\] contains '2'"),
    (dict(GOOD, hypotheses=["0000", "00 1"]), r"hypotheses\[1\] contains ' '"),
    (dict(GOOD, hypotheses=["0000", "00x1"]), r"hypotheses\[1\] contains 'x'"),
    (dict(GOOD, hypotheses=["0000", "001"]), r"hypotheses\[1\] has length 3 but the domain has 4"),
    (dict(GOOD, hypotheses=["000", "001"]), r"hypotheses\[0\] has length 3"),
    (dict(GOOD, domain=5), r"hypotheses\[0\] has length 4 but the domain has 5"),
    (dict(GOOD, domain=["a", "b", "c"]), r"hypotheses\[0\] has length 4 but the domain has 3"),
    (dict(GOOD, hypotheses=[]), "'hypotheses' is empty"),
    (dict(GOOD, hypotheses="0000"), "'hypotheses' must be a list"),
    (dict(GOOD, hypotheses=["0000", 11]), r"hypotheses\[1\] must be a string"),
    ({k: v for k, v in GOOD.items() if k != "hypotheses"}, "'hypotheses' must be a list"),
    (dict(GOOD, format="ltheory.class/2"), "'format' must be 'ltheory.class/1'"),
    ({k: v for k, v in GOOD.items() if k != "format"}, "'format' must be"),
    ({k: v for k, v in GOOD.items() if k != "domain"}, "missing field 'domain'"),
    (dict(GOOD, domain=["a", "b", "a", "c"]), "'a' appears twice"),
    (dict(GOOD, domain=["1", 1, "2", "3"]), "'1' appears twice"),
    (dict(GOOD, domain=-1), "non-negative"),
    (dict(GOOD, domain=True), "'domain' must be a list of labels or an integer"),
    (dict(GOOD, domain=4.0), "'domain' must be a list of labels or an integer"),
    (dict(GOOD, domain=["a", None, "c", "d"]), r"domain\[1\] must be a string or integer"),
    (dict(GOOD, name=3), "'name' must be a string"),
    (dict(GOOD, extra=1), r"unknown field\(s\) \['extra'\]"),
    (["0000"], "top level must be a JSON object"),
    ("not an object", "top level must be a JSON object"),
])
def test_malformed_documents(tmp_path: Path, doc: Any, msg: str) -> None:
    with pytest.raises(ClassFileError, match=msg):
        class_from_json(doc)
    p = write(tmp_path, json.dumps(doc))
    with pytest.raises(ClassFileError, match=msg) as info:
        load_class(p)
    assert str(p) in str(info.value)  # the message names the file


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ClassFileError, match="no such class file"):
        load_class(tmp_path / "nope.json")
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"format": "\xff"}')
    with pytest.raises(ClassFileError, match="cannot read"):
        load_class(bad)
    with pytest.raises(ClassFileError, match="cannot read"):
        load_class(tmp_path)  # a directory


def test_class_file_error_is_invalid_input() -> None:
    assert issubclass(ClassFileError, InvalidInputError)
