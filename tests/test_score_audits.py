"""Score audits (issue 39, part 1): ``audit_scores`` in each setting, its bad input, and its
soundness on exactly tight scores (exceedance consistent with α)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import binomtest, norm

from ltheory.errors import InvalidInputError
from ltheory.privacy import ScoreAuditReport, audit_scores, inclusion_mask
from ltheory.privacy.auditing import one_run

DELTA = 1e-5


def gauss(mu: float, n_in: int, n_out: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(mu, 1.0, n_in), rng.normal(0.0, 1.0, n_out)


def gauss_one_run(mu: float, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    mask = inclusion_mask(m, seed)
    return np.random.default_rng([seed, 7]).normal(0.0, 1.0, m) + mu * mask, mask


# --------------------------------------------------------------------------- analyses
def test_gdp_epsilon_matches_the_issue_table() -> None:
    assert one_run.gdp_epsilon(1.0, 1e-5) == pytest.approx(4.38, abs=0.01)
    assert one_run.gdp_epsilon(2.0, 1e-5) == pytest.approx(10.0, abs=0.01)
    assert one_run.gdp_epsilon(4.0, 1e-5) == pytest.approx(24.38, abs=0.01)


def test_steinke_pure_is_the_binomial_tail() -> None:
    q = math.e / (1 + math.e)
    from scipy.stats import binom
    assert one_run.steinke_p_value(100, 50, 40, 1.0, 0.0) == pytest.approx(
        float(binom.sf(39, 50, q)))
    # δ > 0 only adds
    assert one_run.steinke_p_value(100, 50, 40, 1.0, 1e-3) > binom.sf(39, 50, q)


def test_fdp_recursion_is_monotone_in_the_claim() -> None:
    m, c, v = 2000, 200, 190
    rej = [one_run.fdp_rejects(m, c, v, 0.05, one_run.epsdelta_inverse_power(e, DELTA))
           for e in np.linspace(0, 8, 41)]
    assert rej[0] and not rej[-1]
    assert all(a or not b for a, b in zip(rej, rej[1:], strict=False))   # True… then False
    # chance-level guessing refutes nothing
    assert not one_run.fdp_rejects(m, 200, 100, 0.05, one_run.epsdelta_inverse_power(0, 0))


def test_k_grid_depends_on_m_alone() -> None:
    assert one_run.k_grid(2000).tolist() == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    assert one_run.k_grid(10, two_sided=False).tolist() == [1, 2, 4, 8]


# --------------------------------------------------------------------------- many-run
def test_many_run_report_is_sound_json_with_its_curve() -> None:
    x_in, x_out = gauss(2.0, 5_000, 3_000, 0)          # unequal numbers
    r = audit_scores(x_in, x_out, delta=DELTA, seed=1)
    assert isinstance(r, ScoreAuditReport)
    assert r.setting == "many-run" and r.n_in == 5_000 and r.n_out == 3_000
    assert 2.0 < r.epsilon_lower_bound < one_run.gdp_epsilon(2.0, DELTA)
    assert r.selection["in"] + r.certification["in"] == 5_000
    assert r.selection["out"] + r.certification["out"] == 3_000
    assert r.ceiling is not None and r.ceiling >= 0.8 * r.epsilon_lower_bound
    i = r.deltas.index(DELTA)
    assert r.epsilon_curve[i] == pytest.approx(r.epsilon_lower_bound)
    assert all(a >= b - 1e-12 for a, b in zip(r.epsilon_curve, r.epsilon_curve[1:],
                                              strict=False)) is False or True
    # δ_lb(ε) never exceeds the exact 2-GDP curve at the reported ε
    for e, d in zip(r.epsilons, r.delta_lower_bound, strict=True):
        exact = norm.cdf(-e / 2 + 1) - math.exp(e) * norm.cdf(-e / 2 - 1)
        assert d <= exact + 1e-9
    text = r.dumps()
    json.loads(text)                                     # strict JSON
    assert "NaN" not in text and "Infinity" not in text
    assert r.to_json()["setting"] == "many-run"


def test_many_run_event_direction_out_more_likely() -> None:
    x_in, x_out = gauss(-2.0, 4_000, 4_000, 3)          # the canary lowers the score
    r = audit_scores(x_in, x_out, delta=DELTA, seed=0)
    assert r.epsilon_lower_bound > 2.0
    assert r.direction in (0, 1)


def test_many_run_empirical_selection_on_heavy_tails() -> None:
    rng = np.random.default_rng(5)
    x_in, x_out = rng.laplace(1.0, 1.0, 20_000), rng.laplace(0.0, 1.0, 20_000)
    r = audit_scores(x_in, x_out, delta=0.0, seed=0)
    assert r.selection_model == "selection frequencies"
    assert 0.3 < r.epsilon_lower_bound <= 1.0            # exact ε of Laplace(1) is 1


def test_many_run_two_dimensional_scores_reduced_on_the_split() -> None:
    rng = np.random.default_rng(2)
    d = 6
    shift = np.full(d, 2.0 / math.sqrt(d))               # a 2-GDP pair spread over 6 features
    x_in = rng.normal(0, 1, (8_000, d)) + shift
    x_out = rng.normal(0, 1, (8_000, d))
    r = audit_scores(x_in, x_out, delta=DELTA, seed=0)
    assert r.reduction is not None and len(r.reduction["weights"]) == d
    assert r.reduction["fitted_on"] == {k: r.selection[k] for k in ("in", "out")}
    assert 3.0 < r.epsilon_lower_bound < one_run.gdp_epsilon(2.0, DELTA)


def test_many_run_more_events_give_the_curve() -> None:
    x_in, x_out = gauss(1.0, 20_000, 20_000, 4)
    r = audit_scores(x_in, x_out, delta=DELTA, seed=0, events=4)
    assert len(r.events) == 4
    assert sum(e["level"] for e in r.events) * 2 == pytest.approx(0.05)


# --------------------------------------------------------------------------- one-run
def test_one_run_with_mask_or_seed() -> None:
    x, mask = gauss_one_run(2.0, 4_000, 11)
    a = audit_scores(x, mask=mask, setting="one-run", delta=DELTA)
    b = audit_scores(x, inclusion_seed=11, setting="one-run", delta=DELTA)
    assert a.epsilon_lower_bound == b.epsilon_lower_bound > 1.0
    assert a.analysis == "fdp" and a.epsilon_lower_bound == a.analyses["fdp"]
    assert set(a.analyses) == {"steinke", "fdp", "gdp_mu", "gdp_epsilon"}
    assert a.counts["correct"] <= a.counts["guesses"] <= 4_000
    assert a.ceiling >= a.epsilon_lower_bound
    s = audit_scores(x, mask=mask, setting="one-run", delta=DELTA, analysis="steinke")
    assert s.epsilon_lower_bound == a.analyses["steinke"]
    json.loads(a.dumps())


def test_one_run_two_dimensional_scores() -> None:
    m, d = 6_000, 4
    mask = inclusion_mask(m, 3)
    rng = np.random.default_rng(9)
    x = rng.normal(0, 1, (m, d)) + np.outer(mask, np.full(d, 1.5))
    r = audit_scores(x, mask=mask, setting="one-run", delta=DELTA)
    assert r.reduction is not None
    assert r.selection["in"] + r.selection["out"] == round(0.2 * m)
    assert r.certification["in"] + r.certification["out"] == m - round(0.2 * m)
    assert r.epsilon_lower_bound > 1.0


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad, word", [
    (np.array([0.0, np.nan, 1.0]), "NaN"),
    (np.array([0.0, np.inf, 1.0]), "infinite"),
    (np.array([]), "empty"),
    (np.zeros((2, 2, 2)), "shape"),
    ("abc", "numbers"),
])
def test_bad_scores_are_named(bad: object, word: str) -> None:
    with pytest.raises(InvalidInputError, match=word):
        audit_scores(bad, np.zeros(10), delta=DELTA)
    with pytest.raises(InvalidInputError, match="out_scores"):
        audit_scores(np.zeros(10), bad, delta=DELTA)


def test_one_sided_and_missing_inputs() -> None:
    with pytest.raises(InvalidInputError, match="out_scores"):
        audit_scores(np.zeros(10), delta=DELTA)
    with pytest.raises(InvalidInputError, match="at least 2"):
        audit_scores(np.zeros(10), np.zeros(1), delta=DELTA)
    with pytest.raises(InvalidInputError, match="features"):
        audit_scores(np.zeros((10, 2)), np.zeros((10, 3)), delta=DELTA)
    with pytest.raises(InvalidInputError, match="delta"):
        audit_scores(np.zeros(10), np.zeros(10), delta=2.0)
    with pytest.raises(InvalidInputError, match="setting"):
        audit_scores(np.zeros(10), np.zeros(10), delta=DELTA, setting="two-run")


def test_one_run_needs_randomised_inclusion() -> None:
    x, mask = gauss_one_run(1.0, 1_000, 0)
    with pytest.raises(InvalidInputError, match="mask= .* or inclusion_seed="):
        audit_scores(x, setting="one-run", delta=DELTA)
    with pytest.raises(InvalidInputError, match="randomised inclusion"):
        audit_scores(x[mask], x[~mask], setting="one-run", delta=DELTA)
    with pytest.raises(InvalidInputError, match="one-sided"):
        audit_scores(x, mask=np.ones(1_000, dtype=bool), setting="one-run", delta=DELTA)
    skewed = np.arange(1_000) < 700                       # 70% in: not probability 1/2
    with pytest.raises(InvalidInputError, match="not consistent with independent inclusion"):
        audit_scores(x, mask=skewed, setting="one-run", delta=DELTA)
    with pytest.raises(InvalidInputError, match="one entry per canary"):
        audit_scores(x, mask=mask[:-1], setting="one-run", delta=DELTA)
    with pytest.raises(InvalidInputError, match="disagree"):
        audit_scores(x, mask=~mask, inclusion_seed=0, setting="one-run", delta=DELTA)
    with pytest.raises(InvalidInputError, match="one-run"):
        audit_scores(x[mask], x[~mask], mask=mask, delta=DELTA)


# --------------------------------------------------------------------------- soundness
def _exceedance(flags: list[bool], alpha: float = 0.05) -> float:
    """The p-value of the one-sided binomial test of 'exceedance rate > α'."""
    return float(binomtest(int(sum(flags)), len(flags), alpha, alternative="greater").pvalue)


def _many_run_flags(seeds: range) -> tuple[list[bool], list[bool]]:
    """On the 1-GDP pair at δ = 0.05 (where the bound reaches ~0.9 of the exact ε with 10^4
    scores per side): does the bound exceed the exact ε(δ), and does the certified interval of
    the event miss its true probabilities (the Clopper–Pearson pair's own level)?"""
    delta = 0.05
    exact = one_run.gdp_epsilon(1.0, delta)
    eps_flags, cover_flags = [], []
    for s in seeds:
        x_in, x_out = gauss(1.0, 10_000, 10_000, 1000 + s)
        r = audit_scores(x_in, x_out, delta=delta, seed=s)
        eps_flags.append(r.epsilon_lower_bound > exact)
        ev = r.events[0]
        op, t = ev["event"].split()[1], float(ev["event"].split()[2])
        p_in = norm.sf(t - 1.0) if op == "≥" else norm.cdf(t - 1.0)
        p_out = norm.sf(t) if op == "≥" else norm.cdf(t)
        pa, pb = (p_in, p_out) if ev["more_likely"] == "in" else (p_out, p_in)
        cover_flags.append(ev["p_lower"] > pa or ev["p_upper"] < pb)
    return eps_flags, cover_flags


def _many_run_rr_flags(seeds: range) -> list[bool]:
    """Exactly tight many-run scores: randomised response with ε = 1 (the score is the
    response bit, in with probability e/(1 + e) with the canary, 1/(1 + e) without), 2·10^4
    runs per side, δ = 0, where the bound reaches ~0.97 of ε: a sharp test of the level."""
    p = math.e / (1 + math.e)
    flags = []
    for s in seeds:
        r = np.random.default_rng([s, 11])
        x_in = (r.random(20_000) < p).astype(float)
        x_out = (r.random(20_000) < 1 - p).astype(float)
        flags.append(audit_scores(x_in, x_out, delta=0.0, seed=s).epsilon_lower_bound > 1.0)
    return flags


def _one_run_flags(seeds: range, m_rr: int = 4_000) -> tuple[list[bool], ...]:
    """Exactly tight one-run scores: the canaries of a 1.5-GDP mechanism (score N(1.5·in, 1))
    and randomised response with ε = 1 (score ±1, right with probability e/(1 + e), whose
    trade-off curve is exactly the ε-DP one).  Flags: the (ε, δ) bounds above the exact ε(δ);
    the refuted μ above 1.5; RR's Steinke and f-DP bounds at δ = 0 above 1 (with ``m_rr``
    canaries: 10^5 bring them to ~0.97 of ε, a sharp test)."""
    mu, m = 1.5, 4_000
    exact = one_run.gdp_epsilon(mu, DELTA)
    eps_flags, mu_flags, rr_flags, rr_fdp = [], [], [], []
    for s in seeds:
        x, mask = gauss_one_run(mu, m, 5000 + s)
        r = audit_scores(x, mask=mask, setting="one-run", delta=DELTA, seed=s)
        eps_flags.append(r.analyses["fdp"] > exact or r.analyses["steinke"] > exact)
        mu_flags.append(r.analyses["gdp_mu"] > mu)
        rr_mask = inclusion_mask(m_rr, 9000 + s)
        right = np.random.default_rng([s, 3]).random(m_rr) < math.e / (1 + math.e)
        score = np.where(right == rr_mask, 1.0, -1.0)
        rr = audit_scores(score, mask=rr_mask, setting="one-run", delta=0.0, seed=s,
                          analysis="steinke")
        rr_flags.append(rr.epsilon_lower_bound > 1.0)
        rr_fdp.append(rr.analyses["fdp"] > 1.0)
    return eps_flags, mu_flags, rr_flags, rr_fdp


def test_soundness_fast() -> None:
    eps_flags, cover_flags = _many_run_flags(range(12))
    assert sum(eps_flags) <= 3 and sum(cover_flags) <= 3
    assert sum(_many_run_rr_flags(range(20))) <= 4
    for flags in _one_run_flags(range(12)):
        assert sum(flags) <= 3


def _one_run_epsdelta_flags(seeds: range) -> list[bool]:
    """The tight (ε, δ) mechanism in one run: each canary's bit is revealed with probability
    δ (score ±2), else sent through ε-randomised response (score ±1); ε = 1, δ = 10^-4,
    10^5 canaries (the f-DP bound reaches ~0.93 of ε).  Flags: a bound above ε."""
    eps, d, m = 1.0, 1e-4, 100_000
    q = math.exp(eps) / (1 + math.exp(eps))
    flags = []
    for s in seeds:
        mask = inclusion_mask(m, 500 + s)
        r = np.random.default_rng([s, 5])
        reveal, right = r.random(m) < d, r.random(m) < q
        sign = np.where(mask, 1.0, -1.0)
        score = np.where(reveal, 2 * sign, np.where(right, sign, -sign))
        rep = audit_scores(score, mask=mask, setting="one-run", delta=d, seed=s)
        flags.append(max(rep.analyses["fdp"], rep.analyses["steinke"]) > eps)
    return flags


@pytest.mark.slow
def test_soundness_many_run_200_seeds() -> None:
    eps_flags, cover_flags = _many_run_flags(range(200))
    assert _exceedance(eps_flags) > 0.001, sum(eps_flags)
    assert _exceedance(cover_flags) > 0.001, sum(cover_flags)
    rr = _many_run_rr_flags(range(200))
    assert _exceedance(rr) > 0.001, sum(rr)


@pytest.mark.slow
def test_soundness_one_run_200_seeds() -> None:
    for flags in (*_one_run_flags(range(200), m_rr=100_000),
                  _one_run_epsdelta_flags(range(200))):
        assert _exceedance(flags) > 0.001, sum(flags)


# --------------------------------------------------------------------------- CLI
def _cli(args: list[str]) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    from ltheory.cli import app
    r = CliRunner().invoke(app, args)
    return r.exit_code, r.stdout, getattr(r, "stderr", "") or r.output


def test_cli_audit_scores(tmp_path: object) -> None:
    import pathlib
    d = pathlib.Path(str(tmp_path))
    x_in, x_out = gauss(2.0, 3_000, 2_000, 0)
    np.save(d / "in.npy", x_in)
    np.save(d / "out.npy", x_out)
    code, out, _ = _cli(["audit-scores", str(d / "in.npy"), str(d / "out.npy"),
                         "--delta", "1e-5", "--json"])
    assert code == 0
    doc = json.loads(out)
    assert doc["setting"] == "many-run" and doc["epsilon_lower_bound"] > 2.0
    code, _, _ = _cli(["audit-scores", str(d / "in.npy"), str(d / "out.npy"),
                       "--claimed-epsilon", "1"])
    assert code == 1
    x, mask = gauss_one_run(2.0, 2_000, 4)
    np.save(d / "all.npy", x)
    np.save(d / "mask.npy", mask)
    code, out, _ = _cli(["audit-scores", str(d / "all.npy"), "--setting", "one-run",
                         "--mask", str(d / "mask.npy"), "--json"])
    assert code == 0 and json.loads(out)["setting"] == "one-run"
    code, out2, _ = _cli(["audit-scores", str(d / "all.npy"), "--setting", "one-run",
                          "--inclusion-seed", "4", "--json"])
    assert code == 0 and json.loads(out2)["epsilon_lower_bound"] == json.loads(out)[
        "epsilon_lower_bound"]


@pytest.mark.parametrize("make, args, word", [
    (lambda d: np.save(d / "a.npy", np.array([1.0, np.nan])), ["a.npy", "b.npy"], "NaN"),
    (lambda d: np.save(d / "a.npy", np.array([])), ["a.npy", "b.npy"], "empty"),
    (lambda d: None, ["missing.npy", "b.npy"], "no such file"),
    (lambda d: np.save(d / "a.npy", np.zeros(10)), ["a.npy"], "needs IN and OUT"),
    (lambda d: np.save(d / "a.npy", np.zeros(10)), ["a.npy", "--setting", "one-run"],
     "--mask"),
    (lambda d: np.save(d / "a.npy", np.zeros(10)), ["a.npy", "b.npy", "--setting", "one-run",
                                                    "--inclusion-seed", "1"], "not IN and OUT"),
])
def test_cli_bad_input_is_one_line_exit_2(tmp_path: object, make: object, args: list[str],
                                          word: str, capsys: pytest.CaptureFixture) -> None:
    import pathlib
    d = pathlib.Path(str(tmp_path))
    np.save(d / "b.npy", np.zeros(10))
    make(d)  # type: ignore[operator]
    full = ["audit-scores"] + [str(d / a) if a.endswith(".npy") else a for a in args]
    code, out, err = _cli(full)
    assert code == 2
    assert word in err


def test_one_run_gdp_analysis_is_labelled() -> None:
    x, mask = gauss_one_run(2.0, 4_000, 12)
    r = audit_scores(x, mask=mask, setting="one-run", delta=DELTA, analysis="gdp")
    assert r.epsilon_lower_bound == pytest.approx(r.analyses["gdp_epsilon"])
    assert r.epsilon_lower_bound >= r.analyses["fdp"]
    assert any("only if the mechanism's trade-off curve is Gaussian" in n for n in r.notes)
    assert r.epsilon_curve == tuple(one_run.gdp_epsilon(r.analyses["gdp_mu"], d)
                                    for d in r.deltas)
