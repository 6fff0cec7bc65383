"""Hostile and malformed input (issue 30): class files, API calls and command lines, generated
with hypothesis.  For every input: a right answer (witness verified) or one clear LtheoryError
(on the command line: exit 2 and one line ``error: ...`` on stderr) -- never another exception,
a traceback, a hang or a signal."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ltheory import HypothesisClass, load_class, save_class, verify
from ltheory.cli import main
from ltheory.core.class_file import MAX_DEPTH, MAX_INT_DIGITS, json_depth, parse_class_text
from ltheory.dimensions import DIMENSIONS
from ltheory.errors import ClassFileError, LtheoryError

ROOT = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------------- class file texts
_bits = st.text(alphabet="01", max_size=6)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**40, 10**40) | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=12)


@st.composite
def class_documents(draw: st.DrawFn) -> object:
    """Class-file documents near the format: right fields with wrong values, wrong fields,
    ragged and non-binary hypotheses, odd domains."""
    doc: dict[str, object] = {}
    if draw(st.booleans()):
        doc["format"] = draw(st.sampled_from(["ltheory.class/1", "ltheory.class/2", 1, None]))
    if draw(st.booleans()):
        doc["domain"] = draw(st.one_of(st.integers(-3, 8), st.lists(
            st.one_of(st.text(max_size=3), st.integers(-5, 5), st.booleans(), st.none()),
            max_size=7), _json_values))
    if draw(st.booleans()):
        doc["hypotheses"] = draw(st.one_of(st.lists(_bits, max_size=6), st.lists(
            st.one_of(_bits, st.integers(), st.text(max_size=4)), max_size=4), _json_values))
    if draw(st.booleans()):
        doc[draw(st.sampled_from(["name", "meta", "extra", "description"]))] = draw(_json_values)
    return doc if draw(st.integers(0, 9)) else draw(_json_values)


def _hostile_texts() -> st.SearchStrategy[bytes]:
    head = b'{"format": "ltheory.class/1", "domain": '
    return st.one_of(
        st.integers(MAX_DEPTH + 1, 20_000).map(lambda d: b"[" * d + b"]" * d),
        st.integers(MAX_DEPTH + 1, 5_000).map(
            lambda d: head + b'2, "hypotheses": ["01"], "meta": ' + b"[" * d + b"]" * d + b"}"),
        st.integers(MAX_INT_DIGITS + 1, 10_000).map(
            lambda k: head + b"9" * k + b', "hypotheses": ["01"]}'),
        st.sampled_from([b"NaN", b"Infinity", b"-Infinity"]).map(
            lambda c: head + c + b', "hypotheses": ["01"]}'),
        st.binary(max_size=64),
        st.binary(max_size=32).map(lambda b: head + b),
        st.text(max_size=40).map(lambda t: (head.decode() + t).encode("utf-8", "surrogatepass")),
    )


def _check_loaded(H: HypothesisClass) -> None:
    """A class that loaded: its dimensions come back verified."""
    for key, dim in DIMENSIONS.items():
        r = dim.compute(H, budget=2.0)
        verify(H, r)
        assert r.lower <= r.upper, key


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=class_documents())
def test_class_documents_load_or_fail_clearly(doc: object, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("doc") / "c.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    try:
        H = load_class(path)
    except ClassFileError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    _check_loaded(H)


@settings(max_examples=60, deadline=None)
@given(data=_hostile_texts())
def test_hostile_class_texts_are_refused_before_decoding(data: bytes) -> None:
    try:
        H = parse_class_text(data, "fuzz.json")
    except ClassFileError as exc:
        assert str(exc).startswith("fuzz.json")
        return
    _check_loaded(H)


def test_bounds_name_the_fault(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(ClassFileError, match="nested 100000 levels"):
        load_class(deep)
    big = tmp_path / "big.json"
    big.write_text('{"format": "ltheory.class/1", "domain": ' + "9" * 5000 +
                   ', "hypotheses": ["01"]}')
    with pytest.raises(ClassFileError, match="5000 digits"):
        load_class(big)
    # brackets inside strings (escaped quotes and backslashes too) do not count
    assert json_depth(b'{"a": "[[[[\\"[[", "b\\\\": ["]]]"]}') == 2


def test_file_size_is_bounded_before_reading(tmp_path: Path, monkeypatch) -> None:
    from ltheory.core import class_file

    p = tmp_path / "c.json"
    save_class(HypothesisClass.from_strings(["0011", "0111"]), p)
    monkeypatch.setattr(class_file, "MAX_FILE_BYTES", 16)
    with pytest.raises(ClassFileError, match="at most 16 bytes"):
        load_class(p)


@pytest.mark.parametrize("bad", [None, 3, 2.5, b"x", ["a"], True, "a\x00b"])
def test_load_and_save_refuse_non_paths(bad: object) -> None:
    with pytest.raises(ClassFileError):
        load_class(bad)  # type: ignore[arg-type]
    with pytest.raises(ClassFileError):
        save_class(HypothesisClass.from_strings(["01"]), bad)  # type: ignore[arg-type]


def test_save_to_unwritable_places(tmp_path: Path) -> None:
    H = HypothesisClass.from_strings(["01"])
    for where in (tmp_path / "no" / "such" / "dir.json", tmp_path):
        with pytest.raises(ClassFileError, match="cannot write"):
            save_class(H, where)
    if os.path.exists("/dev/full"):
        with pytest.raises(ClassFileError, match="cannot write"):
            save_class(H, "/dev/full")
    with pytest.raises(ClassFileError, match="is a directory"):
        load_class(tmp_path)


# ------------------------------------------------------------------------- API conversions
_cells = st.one_of(st.integers(-2, 3), st.floats(allow_nan=True), st.booleans(), st.none(),
                   st.text(max_size=2), st.complex_numbers(max_magnitude=2))


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.lists(_cells, max_size=5), max_size=5))
def test_from_matrix_takes_binary_matrices_or_fails_clearly(rows: list[list[object]]) -> None:
    try:
        H = HypothesisClass.from_matrix(rows)
    except LtheoryError as exc:
        assert str(exc)
        return
    M = np.asarray(rows, dtype=float) if rows and rows[0] else None
    if M is not None:  # accepted: every entry was 0 or 1 and the rows had one length
        assert set(np.unique(M).tolist()) <= {0.0, 1.0}
    _check_loaded(H)


@settings(max_examples=80, deadline=None)
@given(rows=st.one_of(st.lists(st.one_of(_bits, st.integers(), st.none()), max_size=5),
                      st.text(max_size=5), st.integers(), st.none()),
       domain=st.one_of(st.none(), st.integers(-2, 6), st.lists(st.text(max_size=2),
                                                                max_size=6)))
def test_from_strings_takes_bit_strings_or_fails_clearly(rows: object, domain: object) -> None:
    try:
        H = HypothesisClass.from_strings(rows, domain)  # type: ignore[arg-type]
    except LtheoryError as exc:
        assert str(exc)
        return
    _check_loaded(H)


# ------------------------------------------------------------------------- command lines
_spec_words = st.sampled_from(["thresholds", "points", "random", "intervals", "parities",
                               "halfspaces", "nope", "", "=", "n", "m", "..", "/", "x.json"])
_spec_values = st.one_of(st.integers(-5, 70).map(str), st.sampled_from(
    ["1e999", "nan", "inf", "-0", "9" * 40, "9" * 5000, "0x10", "1.5", "", "true", "2**64"]))


@st.composite
def dims_arguments(draw: st.DrawFn) -> list[str]:
    name = draw(_spec_words)
    params = draw(st.lists(st.tuples(st.sampled_from(["n", "m", "p", "seed", "g", "dim", "zero",
                                                      "bogus", ""]), _spec_values), max_size=3))
    spec = " ".join([name] + [f"{k}={v}" for k, v in params])
    args = ["dims", spec]
    if draw(st.booleans()):
        args += ["--budget", draw(st.sampled_from(["0.5", "0", "-1", "nan", "inf", "abc",
                                                   "1e-300", "1e300"]))]
    if draw(st.booleans()):
        args += ["--only", draw(st.sampled_from(["vc", "ldim,tdim", "", "vc,,x", "VC"]))]
    if draw(st.booleans()):
        args.append("--json")
    return args


def _cli(args: list[str]) -> tuple[int, str, str, BaseException | None]:
    """Run the console-script entry point (``ltheory.cli.main``, which turns usage errors into
    one line) in-process: (exit code, stdout, stderr, any exception other than the exit)."""
    out, err = io.StringIO(), io.StringIO()
    argv, sys.argv = sys.argv, ["ltheory", *args]
    code, exc = 0, None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException as other:  # a traceback would have reached the user
        exc = other
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue(), exc


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=dims_arguments())
def test_dims_command_lines_answer_or_fail_in_one_line(args: list[str]) -> None:
    code, out, err, exc = _cli(args)
    assert exc is None, (args, exc)
    assert code in (0, 2), (args, code, err)
    if code == 2:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, err)
    elif "--json" in args:
        doc = json.loads(out)
        assert all(doc[k]["verified"] for k in doc if k != "class")


@pytest.mark.parametrize("args", [
    ["dims", "points n=172"],
    ["dims", "random m=2 n=10000", "--budget", "2", "--json"],
    ["dims", f"points n={'9' * 5000}"],
    ["clique", "points n=2048", "--m", "2", "--json"],
    ["clique", "thresholds n=4", "--m", "99999999999"],
    ["compose", "thr:99999999999999999999", "thresholds n=4"],
    ["compose", "(" * 5000 + "x1" + ")" * 5000, "thresholds n=4"],
    ["table", "thresholds", "n=1..99999999999"],
])
def test_reported_command_lines(args: list[str]) -> None:
    code, _, err, exc = _cli(args)
    assert exc is None, (args, exc)
    assert code in (0, 2), (args, code, err)
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_output_to_a_full_device_is_one_line() -> None:
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-m", "ltheory.cli", "dims", "thresholds n=4",
                              "--json"], stdout=full, stderr=subprocess.PIPE, text=True,
                             cwd=ROOT, timeout=120)
    assert res.returncode == 2
    assert res.stderr.strip() == "error: cannot write the output: No space left on device"
