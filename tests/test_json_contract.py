"""Every ``--json`` output of the command line is strict JSON (issue 40): no ``Infinity`` or
``NaN`` literal, even with unlimited budgets, and ``--budget`` values have one meaning each
(inf: no limit; 0, negative, nan: exit 2 with one line; ``table``: 0 also means no limit)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ltheory import catalog
from ltheory.cli import app
from ltheory.cli.common import dump_json
from ltheory.core.class_file import save_class
from ltheory.dims.result import DimensionResult
from ltheory.jsonable import to_jsonable

runner = CliRunner()


def _refuse(constant: str) -> Any:
    raise AssertionError(f"non-JSON constant {constant} in the output")


def strict_loads(text: str) -> Any:
    """``json.loads`` refusing ``Infinity``, ``-Infinity`` and ``NaN`` (as Node's parser does)."""
    doc = json.loads(text, parse_constant=_refuse)
    _no_nonfinite(doc, "$")
    return doc


def _no_nonfinite(x: Any, where: str) -> None:
    if isinstance(x, float):
        assert math.isfinite(x), f"{where} = {x}"
    elif isinstance(x, dict):
        for k, v in x.items():
            _no_nonfinite(v, f"{where}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            _no_nonfinite(v, f"{where}[{i}]")


@pytest.fixture(scope="module")
def class_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("json") / "t.json"
    save_class(catalog.family("thresholds", n=6), path)
    return path


def commands(path: Path) -> list[list[str]]:
    return [
        ["dims", "thresholds n=8", "--budget", "inf", "--json"],
        ["dims", str(path), "--budget", "inf", "--json"],
        ["dims", "parities n=3", "--budget", "1e400", "--json"],  # overflows to inf
        ["table", "thresholds", "n=1..2", "--budget", "inf", "--json"],
        ["table", "thresholds", "n=1..2", "--budget", "0", "--json", "--quiet"],
        ["table", "points", "n=2..3", "--clique", "2", "--budget", "inf", "--json", "--quiet"],
        ["compose", "maj", "thresholds n=3", "thresholds n=3", "thresholds n=3", "--budget",
         "inf", "--json"],
        ["clique", "points n=4", "--m", "2", "--fractional", "--budget", "inf", "--json"],
        ["catalog", "--json"],
        ["catalog", "thresholds", "--json"],
        ["check", "--list", "--json"],
        # its tightness was infinite and printed as Infinity before issue 40
        ["check", "asadi.obs8", "--quick", "--quiet", "--json"],
    ]


def test_every_json_command_prints_strict_json(class_file: Path) -> None:
    for args in commands(class_file):
        res = runner.invoke(app, args)
        assert res.exit_code in (0, 1), (args, res.exit_code, res.stderr[-500:])
        doc = strict_loads(res.stdout)
        if args[0] == "table":
            assert doc["budget"] is None  # inf and 0 both mean no limit: null, not Infinity
        if args[0] == "dims":
            for key in ("vc", "ldim", "tdim"):
                assert doc[key]["verified"] is True and doc[key]["exact"] is True


@pytest.mark.slow
def test_demo_json_is_strict() -> None:
    res = runner.invoke(app, ["demo", "--json"])
    assert res.exit_code == 0
    strict_loads(res.stdout)


@pytest.mark.parametrize("value", ["nan", "-1", "0", "-inf"])
@pytest.mark.parametrize("command", [
    ["dims", "thresholds n=4"],
    ["compose", "and", "thresholds n=3", "thresholds n=3"],
    ["clique", "points n=3", "--m", "2"],
])
def test_bad_budget_exits_2_with_one_line(command: list[str], value: str) -> None:
    res = runner.invoke(app, [*command, "--budget", value, "--json"])
    assert res.exit_code == 2
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --budget must be a positive number")


@pytest.mark.parametrize("value", ["nan", "-1", "-inf"])
def test_table_bad_budget_exits_2(value: str) -> None:
    res = runner.invoke(app, ["table", "thresholds", "n=1..2", "--budget", value, "--json"])
    assert res.exit_code == 2
    assert len(res.stderr.strip().splitlines()) == 1


def test_dump_json_refuses_nonfinite_and_results_convert_them() -> None:
    with pytest.raises(ValueError):
        dump_json({"budget": math.inf})
    with pytest.raises(ValueError):
        dump_json([math.nan])
    res = DimensionResult.proven("vc", 1, 1, ["0"],
                                 stats={"order": math.inf, "x": math.nan, "y": -math.inf})
    doc = strict_loads(dump_json(res.to_json()))
    assert doc["stats"] == {"order": "inf", "x": "nan", "y": "-inf"}
    assert to_jsonable({"a": (math.inf, 1.5)}) == {"a": ["inf", 1.5]}
