"""The ``ltheory`` command line: JSON contract of ``dims``, exit codes, bad input, demo, catalog."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ltheory.cli import app
from ltheory.core import HypothesisClass, class_from_json
from ltheory.dims.certificates import verify
from ltheory.dims.result import DimensionResult

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_dims_json_contract_and_witnesses_verify() -> None:
    code, out, _ = run("dims", "intervals n=7 empty=true", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["class"] == {"name": "intervals n=7 empty=true", "domain_size": 7, "size": 29}
    H = HypothesisClass.from_strings(
        [f"{'0' * a}{'1' * (b - a + 1)}{'0' * (6 - b)}" for a in range(7) for b in range(a, 7)]
        + ["0" * 7])
    expected = {"vc": 2, "ldim": 4, "tdim": 7}
    for key, value in expected.items():
        R = doc[key]
        assert set(R) >= {"value", "exact", "lower", "upper", "witness", "seconds"}
        assert R["value"] == value and R["exact"] is True
        assert R["lower"] == R["upper"] == value
        # the JSON witness alone lets anyone re-check the value
        verify(H, DimensionResult(key, R["value"], R["witness"], R["exact"], R["lower"],
                                  R["upper"]))


def test_dims_only_and_class_file(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"format": "ltheory.class/1", "name": "tiny",
                                "domain": ["a", "b", "c"],
                                "hypotheses": ["000", "100", "110", "111", "111"]}))
    code, out, _ = run("dims", str(path), "--only", "ldim,tdim", "--json")
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {"class", "ldim", "tdim"}
    assert doc["class"] == {"name": "tiny", "domain_size": 3, "size": 4}
    assert doc["ldim"]["value"] == 2 and doc["tdim"]["value"] == 3
    assert doc["tdim"]["witness"]["points"] == ["c", "b", "a"]


def test_dims_budget_reports_bounds() -> None:
    code, out, _ = run("dims", "random m=300 n=24 p=0.5 seed=1", "--only", "tdim",
                       "--budget", "0.05", "--json")
    assert code == 0
    R = json.loads(out)["tdim"]
    assert R["lower"] <= R["upper"]
    assert R["exact"] == (R["lower"] == R["upper"])


@pytest.mark.parametrize("args, fragment", [
    (["dims", "nosuch n=3"], "neither a catalog family"),
    (["dims", "thresholds n=-1"], "out of range"),
    (["dims", "thresholds q=3"], "q"),
    (["dims", "thresholds", "--only", "vc,foo"], "--only"),
    (["dims", "thresholds", "--budget", "-1"], "budget"),
    (["dims", "missing/file.json"], "does not exist"),
    (["catalog", "nosuch"], "unknown family"),
])
def test_bad_input_exits_2_with_one_line(args: list[str], fragment: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert out == ""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert fragment in lines[0]


@pytest.mark.parametrize("doc, fragment", [
    ("{not json", "invalid JSON at line 1"),
    ('{"format": "ltheory.class/1", "domain": 3, "hypotheses": ["012"]}', "'2'"),
    ('{"format": "ltheory.class/1", "domain": 3, "hypotheses": ["01", "011"]}', "length 2"),
    ('{"format": "ltheory.class/1", "domain": ["a", "b"], "hypotheses": ["011"]}', "length 3"),
    ('{"format": "ltheory.class/1", "domain": 2, "hypotheses": []}', "empty"),
    ('{"format": "other", "domain": 2, "hypotheses": ["01"]}', "format"),
])
def test_malformed_class_files_exit_2(tmp_path: Path, doc: str, fragment: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(doc)
    code, out, err = run("dims", str(path))
    assert code == 2 and out == ""
    assert fragment in err and "Traceback" not in err


def test_catalog_listing_and_description() -> None:
    code, out, _ = run("catalog", "--json")
    assert code == 0
    names = {f["name"] for f in json.loads(out)}
    assert {"thresholds", "intervals", "parities", "halfspaces", "affine"} <= names
    code, out, _ = run("catalog", "thresholds", "--json")
    info = json.loads(out)
    assert info["name"] == "thresholds"
    assert any(k["key"] == "ldim" and k["citation"] for k in info["known"])
    code, out, _ = run("catalog", "thresholds")
    assert code == 0 and "known values" in out


def test_demo_json_is_exact_and_verified() -> None:
    code, out, _ = run("demo", "--json")
    assert code == 0
    rows = json.loads(out)
    assert len(rows) >= 8
    for row in rows:
        for key in ("vc", "ldim", "tdim"):
            assert row[key]["exact"] and row[key]["verified"]
    thresholds = next(r for r in rows if r["class"]["name"] == "thresholds n=64")
    assert (thresholds["vc"]["value"], thresholds["ldim"]["value"],
            thresholds["tdim"]["value"]) == (1, 6, 64)


def test_console_script_entry_point_exit_codes(tmp_path: Path) -> None:
    """The installed entry point itself (not only the typer app) exits 2 on bad input."""
    proc = subprocess.run([sys.executable, "-m", "ltheory.cli", "dims", "thresholds n=-5"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "error:" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "ltheory.cli", "dims", "points n=3", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["vc"]["value"] == 1


@pytest.mark.parametrize("args, message", [
    (["dims"], "Missing argument 'SPEC'"),
    (["dims", "points n=3", "--bogus"], "No such option: --bogus"),
    (["audit", "laplace", "--runs", "ten"], "Invalid value for '--runs'"),
    (["nosuchcommand"], "No such command"),
])
def test_usage_errors_are_one_line_with_exit_2(args: list[str], message: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "ltheory.cli", *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


def test_help_still_exits_0() -> None:
    proc = subprocess.run([sys.executable, "-m", "ltheory.cli", "dims", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Usage" in proc.stdout


def test_saved_class_round_trips_through_cli(tmp_path: Path) -> None:
    from ltheory.catalog import family
    from ltheory.core import save_class

    H = family("parities", n=3)
    path = tmp_path / "par.json"
    save_class(H, path)
    assert class_from_json(json.loads(path.read_text())) == H
    code, out, _ = run("dims", str(path), "--json")
    assert code == 0 and json.loads(out)["vc"]["value"] == 3


def test_user_text_is_shown_literally_not_as_markup(tmp_path: Path) -> None:
    """Class names and labels containing rich markup ("[/b]", "[red]") used to crash the tables
    (MarkupError) or restyle them; the catalog's "[n]" used to vanish."""
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"format": "ltheory.class/1", "name": "[/oops]",
                             "domain": ["[/b]", "[red]x"], "hypotheses": ["00", "01", "11"]}))
    for args in (["dims", str(f)], ["compose", "or", str(f), str(f)]):
        res = runner.invoke(app, args, terminal_width=200)
        assert res.exit_code == 0, res.output
        assert "[/b]" in res.output and "[red]x" in res.output
    res = runner.invoke(app, ["catalog", "thresholds"], terminal_width=200)
    assert res.exit_code == 0 and "Thresholds on [n]" in res.output


def _marks_in_rows(out: str) -> set[str]:
    rows = [ln for ln in out.splitlines() if ln.startswith("│")]
    return {m for ln in rows for m in re.findall(r"\d (✗\*|✗|✓|\?)(?=\s)", ln)}


def test_demo_legend_explains_every_mark_it_uses_with_the_table_marks() -> None:
    """Issue 43: demo showed '2 ✗' for affine Ldim under a legend explaining only ✓, where
    ``ltheory table`` marks the same value ✗* (a disagreement the catalog records)."""
    from ltheory.tables import MARKS

    code, out, _ = run("demo")
    assert code == 0
    used = _marks_in_rows(out)
    assert {"✓", "✗*"} <= used and "✗" not in used     # affine's recorded disagreement is ✗*
    legend = next(ln for ln in out.splitlines() if ln.startswith("marks:"))
    for m in used:
        assert f"{m} {MARKS[m]}" in legend.replace("\n", " ")
    assert ("affine p=2 n=3 d=1 exact=false: the cited ldim = d when not exact and n >= d "
            "gives 1, computed 2") in " ".join(out.split())
    code, tout, _ = run("table", "affine", "p=2", "n=3", "d=1", "--only", "ldim")
    assert code == 0 and _marks_in_rows(tout) == {"✗*"}
