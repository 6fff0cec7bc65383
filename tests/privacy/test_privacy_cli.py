"""The ``audit`` command registered into a typer app: exit codes, JSON, plot, bad input."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from ltheory.cli import audit

app = typer.Typer()
app.command(audit.NAME)(audit.command)


@app.callback()
def _root() -> None:
    """Keep `audit` as a sub-command."""


def run(*args: str):
    return CliRunner().invoke(app, ["audit", *args])


def test_consistent_json_exit_0() -> None:
    r = run("randomized_response", "--claimed-epsilon", "1", "--runs", "20000", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["verdict"] == "consistent" and d["mechanism"] == "randomized_response"


def test_violation_exit_1() -> None:
    r = run("svt5", "--claimed-epsilon", "1", "--runs", "40000", "--seed", "3", "--json")
    assert r.exit_code == 1
    assert json.loads(r.stdout)["verdict"] == "violation"


def test_params_and_datasets() -> None:
    r = run("laplace", "-p", "epsilon=2", "--claimed-epsilon", "0.5", "--runs", "20000",
            "--d0", "[[0, 0]]", "--d1", "[[0, 1]]")
    assert r.exit_code == 1 and "violation" in r.stdout
    r = run("exponential", "-p", "n=5", "--claimed-epsilon", "1", "--runs", "20000")
    assert r.exit_code == 0


@pytest.mark.parametrize("args,msg", [
    (("nope", "--claimed-epsilon", "1", "--runs", "1000"), "unknown mechanism"),
    (("laplace", "--claimed-epsilon", "0", "--runs", "1000"), "epsilon"),
    (("laplace", "--claimed-epsilon", "1", "--runs", "10"), "need at least"),
    (("laplace", "-p", "bogus=1", "--claimed-epsilon", "1", "--runs", "1000"), "unknown param"),
    (("laplace", "-p", "epsilon=abc", "--claimed-epsilon", "1", "--runs", "1000"), "not a valid"),
    (("laplace", "--claimed-epsilon", "1", "--runs", "1000", "--d0", "[[0,0]]", "--d1",
      "[[0,0]]"), "same dataset"),
    (("laplace", "--claimed-epsilon", "1", "--runs", "1000", "--d0", "{oops"), "JSON"),
])
def test_bad_input_exit_2_one_line(args, msg) -> None:
    r = run(*args)
    assert r.exit_code == 2
    assert msg in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_plot_and_search(tmp_path) -> None:
    png = tmp_path / "a.png"
    r = run("laplace", "--claimed-epsilon", "1", "--runs", "20000", "--plot", str(png),
            "--arithmetic", "real")
    assert r.exit_code == 0 and png.read_bytes()[:4] == b"\x89PNG"
    # by default the float Laplace's bits leak: exit 1, named in the verdict, still plotted
    r = run("laplace", "--claimed-epsilon", "1", "--runs", "20000", "--plot", str(png))
    assert r.exit_code == 1 and "floating-point violation" in r.output
    png2 = tmp_path / "b.png"
    r = run("svt4", "--claimed-epsilon", "1", "--runs", "100000", "--search", "--json",
            "--plot", str(png2))
    assert r.exit_code == 1, r.output
    assert png2.exists()


def test_tradeoff_curve_in_json() -> None:
    r = run("randomized_response", "--claimed-epsilon", "1", "--runs", "20000", "--json",
            "--tradeoff")
    d = json.loads(r.stdout)
    assert len(d["tradeoff"]) == 41 and "delta_exact" in d["tradeoff"][0]


def test_claimed_delta_defaults_to_mechanism_claim() -> None:
    r = run("stable_histogram", "--claimed-epsilon", "1", "--runs", "40000", "--json")
    d = json.loads(r.stdout)
    assert d["claimed_delta"] == 1e-3 and r.exit_code == 0
    r = run("stable_histogram", "--claimed-epsilon", "1", "--claimed-delta", "0", "--runs",
            "400000", "--json")
    assert json.loads(r.stdout)["claimed_delta"] == 0.0


def test_learner_audit_case_uses_the_learners_claim_and_pair() -> None:
    """DESIGN.md's ``ltheory audit LEARNER``: a learner audit case by name, its claim by default."""
    from ltheory.privacy.learners import audit_cases

    case = next(c for c in audit_cases() if c.name == "exponential/thresholds-n8-eps1")
    eps, delta = case.make().claim
    r = run(case.name, "--runs", "20000", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["verdict"] == "consistent"
    assert (d["claimed_epsilon"], d["claimed_delta"]) == (eps, delta)
    assert d["exact_epsilon"] is not None and d["exact_epsilon"] <= eps
    # the deliberately broken variant is flagged (exit 1), with a certified bound above the claim
    r = run(case.name, "--runs", "20000", "--broken", "--json")
    assert r.exit_code == 1, r.output
    d = json.loads(r.stdout)
    assert d["verdict"] == "violation" and d["epsilon_lower_bound"] > eps


def test_learner_audit_add_remove_case_and_claim_override() -> None:
    r = run("decision_lists/literals-n2-eps1-delta1e-2-add_remove", "--runs", "4000", "--json")
    assert r.exit_code == 0, r.output
    r = run("exponential/thresholds-n8-eps1", "--runs", "20000", "--claimed-epsilon", "0.5",
            "--json")
    assert json.loads(r.stdout)["claimed_epsilon"] == 0.5


@pytest.mark.parametrize("args, message", [
    (("nope", "--runs", "10"), "unknown mechanism or learner"),
    (("laplace", "--runs", "1000"), "--claimed-epsilon is required"),
    (("laplace", "--claimed-epsilon", "1", "--runs", "1000", "--broken"), "learner audit cases"),
    (("DPOneRule", "--runs", "1000", "-p", "x=1"), "fixed settings"),
    (("exponential/thresholds-n8-eps1", "--runs", "1000", "--claimed-epsilon", "0"), "> 0"),
])
def test_learner_audit_bad_input_exit_2(args: tuple[str, ...], message: str) -> None:
    r = run(*args)
    assert r.exit_code == 2
    assert message in r.output and "Traceback" not in r.output


def test_worst_case_learner_json_and_violation() -> None:
    r = run("pmw/pure-alpha0.25-T3-K3", "--worst-case", "--runs", "20000", "--budget", "5",
            "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["complete"] and d["exact"] and d["worst_epsilon"] <= d["claimed_epsilon"]
    assert d["worst_epsilon"] > 0.4 * d["claimed_epsilon"]    # the exhaustive maximum: 0.692
    broken = run("pmw/pure-alpha0.25-T3-K3", "--worst-case", "--broken", "--runs", "20000",
                 "--budget", "5", "--json")
    assert broken.exit_code == 1 and json.loads(broken.stdout)["violation"] is True


@pytest.mark.parametrize("args,needle", [
    (["randomized_response", "--claimed-epsilon", "1", "--runs", "1000", "--worst-case"],
     "learner audit cases only"),
    (["pmw/pure-alpha0.25-T3-K3", "--worst-case", "--runs", "1000", "--method", "magic"],
     "method"),
    (["pmw/pure-alpha0.25-T3-K3", "--worst-case", "--runs", "1000", "--n", "0"], "n must"),
])
def test_worst_case_bad_input(args: list[str], needle: str) -> None:
    r = run(*args)
    assert r.exit_code == 2 and needle in r.output, r.output
