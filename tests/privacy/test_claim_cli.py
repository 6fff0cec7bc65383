"""``--claim`` on ``ltheory audit``: the restricted claim parser (``claim_text.parse_claim``),
the curve audit of zCDP / GDP / RDP / (ε, δ) claims from the command line, the plain audit of
(ε, δ) claims, and bad input refused with exit 2 and one clear line."""

from __future__ import annotations

import json
import math

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ltheory.cli import audit
from ltheory.errors import InvalidInputError
from ltheory.privacy.claim_text import claim_pair, parse_claim
from ltheory.privacy.claims import GDP, RDP, ZCDP, ApproxDP, PureDP

app = typer.Typer()
app.command(audit.NAME)(audit.command)


@app.callback()
def _root() -> None:
    """Keep `audit` as a sub-command."""


def run(*args: str):
    return CliRunner().invoke(app, ["audit", *args])


# --------------------------------------------------------------------------- parser
def test_parse_every_form():
    assert parse_claim("zcdp:0.5") == ZCDP(0.5)
    assert parse_claim(" GDP : 1e0 ") == GDP(1.0)
    assert parse_claim("eps:1") == PureDP(1.0)
    assert parse_claim("eps:1,delta:1e-5") == ApproxDP(1.0, 1e-5)
    assert parse_claim("eps:2, delta:0") == PureDP(2.0)
    r = parse_claim("rdp:2=1, 4=2.0,8=4")
    assert isinstance(r, RDP) and r.to_json()["orders"] == [2.0, 4.0, 8.0]
    # the 0.5-zCDP curve (ε_α = α/2) at three orders only: a weaker claim than at all orders
    e = [0.5, 1.0, 2.0, 4.0]
    assert all(r.delta_at(e) >= ZCDP(0.5).delta_at(e) - 1e-12)
    assert claim_pair(parse_claim("eps:1,delta:1e-5")) == (1.0, 1e-5)
    assert claim_pair(ZCDP(0.5)) is None


@given(st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False))
@settings(max_examples=50, deadline=None)
def test_parse_round_trips_numbers(x):
    assert parse_claim(f"zcdp:{x!r}").rho == x
    assert parse_claim(f"gdp:{x:.6e}").mu == pytest.approx(x, rel=1e-6)


@pytest.mark.parametrize("text,msg", [
    ("zcdp", "not KIND:VALUE"), ("zcdp:", "not KIND:VALUE"), ("foo:1", "unknown kind"),
    ("zcdp:0", "rho must be"), ("zcdp:-1", "rho must be"), ("gdp:0", "mu must be"),
    ("gdp:abc", "decimal number"), ("eps:nan", "decimal number"), ("eps:inf", "decimal"),
    ("eps:0x10", "decimal"), ("eps:1_0", "decimal"), ("eps:__import__('os')", "decimal"),
    ("eps:1,dlt:1e-5", "only ',delta:D'"), ("eps:1,delta:2", "delta must be"),
    ("rdp:1=0.5", "orders must be > 1"), ("rdp:2", "ALPHA=EPS"), ("rdp:2=-1", "RDP"),
    ("rdp:2=0.1,2=0.2", "given twice"), ("rdp:" + ",".join(f"{a}=1" for a in range(2, 80)),
                                        "at most 64"),
    ("zcdp:" + "1" * 3000, "at most 2000"),
])
def test_parse_bad_input(text, msg):
    with pytest.raises(InvalidInputError, match=msg):
        parse_claim(text)


# --------------------------------------------------------------------------- CLI
@pytest.mark.parametrize("claim,verdict", [
    ("zcdp:0.5", "consistent"), ("zcdp:0.1", "violation"),        # σ = 1: exactly 0.5-zCDP
    ("gdp:1", "consistent"), ("gdp:0.5", "violation"),
    ("rdp:2=1,4=2,8=4", "consistent"), ("rdp:2=0.2,4=0.4,8=0.8", "violation"),
    ("eps:1,delta:1e-5", "violation"),                            # σ = 1 is far from (1, 1e-5)
])
def test_curve_audit_of_each_claim(claim, verdict):
    # the real-arithmetic Gaussian (ltheory's own is a naive float sum, whose bits leak)
    r = run("gaussian", "-p", "sigma=1", "--claim", claim, "--curve", "--runs", "100000",
            "--json", "--arithmetic", "real")
    assert r.exit_code == (1 if verdict == "violation" else 0), r.output
    doc = json.loads(r.stdout)
    assert doc["verdict"] == verdict and doc["claim"] == parse_claim(claim).to_json()
    if verdict == "violation":   # the gap is real: the exact 1-GDP curve is above the claim
        e = doc["gap_epsilon"]
        assert float(GDP(1.0).delta_at(e) - parse_claim(claim).delta_at(e)) >= doc["gap"] - 1e-9


def test_plain_audit_takes_an_epsilon_delta_claim():
    # same verdict and bound as --claimed-epsilon / --claimed-delta
    a = run("laplace", "-p", "epsilon=1", "--claim", "eps:0.5", "--runs", "50000", "--json")
    b = run("laplace", "-p", "epsilon=1", "--claimed-epsilon", "0.5", "--runs", "50000",
            "--json")
    assert a.exit_code == b.exit_code == 1
    da, db = json.loads(a.stdout), json.loads(b.stdout)
    assert da["verdict"] == db["verdict"] == "violation"
    assert da["epsilon_lower_bound"] == db["epsilon_lower_bound"]
    # a mechanism's ε defaults to the claim's ε, as with --claimed-epsilon
    r = run("randomized_response", "--claim", "eps:1,delta:0", "--runs", "50000", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["verdict"] == "consistent"


def test_dpsgd_canary_from_the_command_line():
    # the real-arithmetic DP-SGD step (its float Gaussian noise leaks its bits by default)
    r = run("dpsgd_canary", "-p", "q=1", "-p", "sigma=1", "-p", "steps=1", "--claim", "gdp:1",
            "--curve", "--runs", "100000", "--json", "--arithmetic", "real")
    assert r.exit_code == 0 and json.loads(r.stdout)["verdict"] == "consistent"
    r = run("dpsgd_canary", "-p", "q=1", "-p", "sigma=1", "-p", "steps=1", "--claim",
            "zcdp:0.1", "--curve", "--runs", "100000", "--json", "--arithmetic", "real")
    assert r.exit_code == 1
    assert math.isfinite(json.loads(r.stdout)["gap_epsilon"])


@pytest.mark.parametrize("args,msg", [
    (("gaussian", "--claim", "zcdp:0.5", "--runs", "1000"), "audit it with --curve"),
    (("gaussian", "--claim", "zcdp:0", "--curve", "--runs", "1000"), "--claim: rho must be"),
    (("gaussian", "--claim", "eps:abc", "--runs", "1000"), "--claim: claim 'eps:abc'"),
    (("gaussian", "--claim", "zcdp:0.5", "--claimed-epsilon", "1", "--curve", "--runs",
      "1000"), "one way only"),
    (("dpsgd_canary", "--claim", "gdp:1", "--curve", "--runs", "1000"), "--param q="),
    (("exponential/thresholds-n8-eps1", "--claim", "gdp:1", "--worst-case", "--runs",
      "1000"), "audit it with --curve"),
    (("exponential/thresholds-n8-eps1", "--claim", "gdp:1", "--worst-case", "--curve",
      "--runs", "1000"), "with --curve alone"),
    (("laplace", "--runs", "1000"), "mechanism 'laplace' (or --claim)"),
])
def test_bad_input_exit_2_one_line(args, msg):
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert msg in r.stderr and len(r.stderr.strip().splitlines()) == 1
