"""The ``clique`` command (registered on a private Typer app) and the dichotomy explorer."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from ltheory import catalog
from ltheory.cli import clique
from ltheory.graphs.explorer import explore


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command(clique.NAME)(clique.command)

    @app.callback()
    def main() -> None:  # keeps "clique" a sub-command
        pass

    return app


def test_json_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "d.png"
    res = CliRunner().invoke(_app(), ["clique", "points n=4", "--m", "3", "--fractional",
                                      "--json", "--plot", str(png)])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert [r["clique"]["value"] for r in doc["rows"]] == [2, 3, 4]
    assert doc["rows"][1]["fclique"]["witness"]["lower"] == "10/3"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_table_output() -> None:
    res = CliRunner().invoke(_app(), ["clique", "thresholds n=6", "--m", "2"])
    assert res.exit_code == 0 and "ω_m" in res.output


def test_bad_input_exit_2() -> None:
    app = _app()
    for args in (["clique", "points n=4", "--m", "0"],
                 ["clique", "no_such_family n=3", "--m", "2"],
                 ["clique", "random m=50 n=40 p=0.5 seed=0", "--m", "6", "--max-vertices",
                  "100"],
                 ["clique", "points n=4", "--m", "2", "--max-vertices", "0"]):
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        assert "error:" in res.output


def test_explorer_bounds_and_monotone() -> None:
    for spec in ("points n=5", "thresholds n=6", "intervals n=5"):
        H = catalog.from_spec(spec)
        rep = explore(H, 3, fractional=True)
        prev = 0
        for i, m in enumerate(rep.ms):
            w, f = rep.clique[i], rep.fractional[i]
            assert w.value <= f.lower <= f.upper <= min(2 ** m, len(H))
            assert w.value >= prev
            prev = w.value
    rep = explore(catalog.from_spec("intervals n=12"), 3)
    assert rep.fit["clique"]["all_equal_2_to_m"]


def test_fit_uses_the_polynomial_regime() -> None:
    rep = explore(catalog.from_spec("thresholds n=8"), 5)
    values = [r.value for r in rep.clique]
    poly = [m for m, v in zip(rep.ms, values, strict=True) if v < 2 ** m]
    assert len(poly) >= 2 and rep.fit["clique"]["fitted_m"] == poly
    assert not rep.fit["clique"]["all_equal_2_to_m"]


def test_json_stdout_of_the_real_process_is_one_document() -> None:
    """Native libraries write to file descriptor 1 behind Python's back (highspy >= 1.16 prints
    a banner from its constructor), which CliRunner cannot see: run the console entry point in
    a child process and parse its whole stdout."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "ltheory.cli", "clique", "points n=4", "--m",
                           "2", "--fractional", "--json"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["rows"][1]["fclique"]["witness"]["lower"] == "10/3"



def test_too_large_m_is_refused_before_any_work() -> None:
    """C(30, 6) > max_vertices and Ldim(points) = 1 gives no shortcut: refused at once, naming
    the largest m that fits (it used to compute m = 1..5 first, minutes)."""
    res = CliRunner().invoke(_app(), ["clique", "points n=30", "--m", "12"])
    assert res.exit_code == 2 and "M <= 5" in res.output


def test_fit_uses_exact_values_only() -> None:
    from ltheory.graphs.explorer import _fit

    fit = _fit([1, 2, 3], [2.0, 3.0, 1.0], [True, True, False])
    assert fit["inexact_m"] == [3] and fit["fitted_m"] == [1, 2]
