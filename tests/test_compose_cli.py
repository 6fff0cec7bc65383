"""``ltheory compose``: JSON contract, verified witnesses, --sat, bad input (exit 2)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import ltheory
from ltheory import catalog
from ltheory.cli import app
from ltheory.core.compose import compose
from ltheory.dims.certificates import verify
from ltheory.dims.result import DimensionResult
from ltheory.sat.certify import strip_components

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.parametrize("flag", [[], ["--sat"]])
def test_json_contract_and_witnesses(flag: list[str]) -> None:
    code, out, _ = run("compose", "xor", "thresholds n=6", "thresholds n=6", "--json", *flag)
    assert code == 0, out
    doc = json.loads(out)
    assert doc["class"]["aggregation"] == "xor2" and doc["class"]["product_size"] == 49
    M = catalog.from_spec("intervals n=6 empty=true")
    from ltheory.dimensions import DIMENSIONS

    for key, dim in DIMENSIONS.items():
        want = dim.compute(M).value
        R = doc[key]
        assert R["value"] == want and R["exact"] and R["verified"]
        plain = DimensionResult(key, R["value"], strip_components(R["witness"]), R["exact"],
                                R["lower"], R["upper"])
        verify(M, plain)
        if flag:
            assert R["stats"]["method"] == "sat"


def test_table_output_and_only() -> None:
    code, out, _ = run("compose", "maj", "random m=8 n=6 p=0.5 seed=1",
                       "random m=8 n=6 p=0.5 seed=2", "random m=8 n=6 p=0.5 seed=3",
                       "--only", "ldim")
    assert code == 0 and "Littlestone" in out and "VC" not in out
    H = [catalog.from_spec(f"random m=8 n=6 p=0.5 seed={s}") for s in (1, 2, 3)]
    from ltheory.dimensions import littlestone_dimension

    assert str(littlestone_dimension(compose("maj", *H)).value) in out


@pytest.mark.parametrize("args", [
    ["frobnicate", "thresholds n=4", "thresholds n=4"],          # unknown aggregation
    ["maj3", "thresholds n=4", "thresholds n=4"],                # arity mismatch
    ["and", "thresholds n=4", "thresholds n=5"],                 # different domains
    ["__import__('os').system('true')", "thresholds n=4"],       # code
    ["x1.real", "thresholds n=4"],                               # attribute access
    ["open(x1)", "thresholds n=4"],                              # disallowed call
    ["x1 & y", "thresholds n=4"],                                # unknown identifier
    ["and", "thresholds n=4", "nosuchfamily n=3"],               # bad spec
    ["and", "thresholds n=4", "thresholds n=4", "--only", "xyz"],
])
def test_bad_input_exits_2(args: list[str]) -> None:
    code, out, err = run("compose", *args)
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1


def test_public_api_reexports_composition() -> None:
    g = ltheory.Aggregation.parse("xor", 2)
    h = catalog.family("thresholds", n=5)
    c = ltheory.compose(g, h, h)
    assert isinstance(ltheory.compose(g, h, h, lazy=True), ltheory.ComposedClass)
    assert c == catalog.family("intervals", n=5, empty=True)
    assert ltheory.negated(ltheory.negated(h)) == h
