"""proofs_check: composition (ABMS20), Bun & Fang, AMSY24 Theorem 5 and the extremal search."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, target
from hypothesis import strategies as st

from ltheory.core.boolean import Aggregation
from ltheory.core.compose import compose
from proofs_check import all_checks, run_checks
from proofs_check.abms2020_composition import lower_bound_class
from proofs_check.base import KINDS, dims
from proofs_check.bun_fang import exact_halfspace
from proofs_check.extremal import OBJECTIVES, Instance, load_records, reverify
from proofs_check.report import markdown, plots, to_json

PREFIXES = ("abms20.thm2", "abms20.sec4.2.2", "abms20.sec2.1.1", "dudley", "compose.facts",
            "bunfang", "amsy24", "extremal")


@pytest.fixture(scope="module")
def results():
    return {r.check.id: r for r in run_checks(list(PREFIXES), quick=True)}


def test_every_new_check_is_registered_and_produces_rows(results) -> None:
    new = [c for c in all_checks() if c.id.startswith(PREFIXES)]
    assert len(new) >= 15
    for c in new:
        assert c.source.endswith(".txt") and c.statement and c.text
        assert c.kind in KINDS
        assert results[c.id].rows, c.id


@pytest.mark.parametrize("cid", ["abms20.thm2.2.lower",
                                 "abms20.sec4.2.2.gates", "dudley.vc_composition",
                                 "compose.facts", "bunfang.prop3.3", "bunfang.lemma4.10",
                                 "amsy24.sandwich", "amsy24.tree_clique", "extremal.union",
                                 "extremal.union_k"])
def test_true_statements_hold(results, cid: str) -> None:
    assert results[cid].holds is True
    assert all(r.holds is not False for r in results[cid].rows)


@pytest.mark.parametrize("cid", ["abms20.thm2.1", "abms20.thm2.2", "amsy24.dichotomy",
                                 "extremal.maj3", "extremal.thm22", "abms20.sec4.2.2.maj"])
def test_measured_statements_report_values(results, cid: str) -> None:
    res = results[cid]
    assert res.holds is None and res.check.kind == "measured"
    assert all(r.holds is None for r in res.rows if "stored" not in r.subject)


def test_thm22_reports_growth_against_t_and_k(results) -> None:
    rows = results["abms20.thm2.2"].rows
    # T grows under composition on these families: k-fold OR of points has T = k, the §4.2.1
    # class goes from T(H) ≤ 2k' to T(H∨H) = m
    for row in rows:
        v = row.values
        assert v["t"] == v["T(Hi) (max)"] + 1 and v["T(G(H…))"] >= 1
        assert 0 <= v["log2 T(G) / (4k·4^k·t)"] < 1
    assert any(r.values["T(G)/T(Hi)"] >= 3 for r in rows)
    ors = {r.params["k"]: r.values["T(G(H…))"] for r in rows if r.subject.startswith("OR_")}
    assert ors == {k: k for k in ors} and len(ors) >= 2


def test_thm22_lower_rows_have_content(results) -> None:
    rows = results["abms20.thm2.2.lower"].rows
    for row in rows:
        if row.subject.startswith("construction: the ladder"):
            # the proof's lemma at its extremal class: T = 2k' − 2, no k'×k' all-ones square
            kp = row.params["k'"]
            assert row.values["T(H)"] == 2 * kp - 2 and row.values["largest all-ones square"] \
                == kp - 1
            continue
        assert row.params["m"] > row.params["t"]                # not implied by |X| = m
        assert row.values["T(H)"] <= row.values["2k' = 4⌊t/5⌋+2"] < row.params["m"]
    assert sum(r.subject.startswith("construction: the ladder") for r in rows) >= 2


def test_lower_bound_construction_reaches_its_claim() -> None:
    for t, seed in ((6, 0), (10, 3), (15, 1), (20, 2)):
        H, m = lower_bound_class(t, seed)
        assert m == 2 ** (t // 5) and H.domain_size == m
        assert dims(H, "tdim")["tdim"] <= t
        C = compose(Aggregation.parse("or").bind(2), H, H)
        assert dims(C, "tdim")["tdim"] == m


def test_simplified_dudley_form_fails_only_on_tiny_vc(results) -> None:
    res = results["abms20.sec2.1.1.simplified"]
    failing = [r for r in res.rows if r.holds is False]
    assert failing and all(r.values["n"] <= 2 and r.witness for r in failing)


def test_lemma410_margin_is_exact_and_positive() -> None:
    w, margin = exact_halfspace([(0, 1), (1, 0), (2, 1)], 0, 3)
    assert sum(abs(c) for c in w) == 1 and margin > 0 and isinstance(margin, Fraction)
    # alternating at every step: margin 1/3^ℓ with this construction
    assert exact_halfspace([(v, v % 2) for v in range(4)], 0, 4)[1] == Fraction(1, 81)


def test_extremal_regression_data_reverifies() -> None:
    records = load_records()
    assert {r["objective"] for r in records} == set(OBJECTIVES)
    for rec in records:
        same, ratio, _ = reverify(rec)
        assert same, rec["objective"]
        assert rec["settings"] and rec["classes"]
        if OBJECTIVES[rec["objective"]].bound:
            assert ratio <= 1
    union = next(r for r in records if r["objective"] == "union")
    assert Fraction(union["ratio"]) == 1      # the search found a tight union


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 5), st.integers(2, 5), st.data())
def test_hypothesis_driven_union_search(n: int, m: int, data) -> None:
    mats = tuple(np.array(data.draw(st.lists(st.lists(st.integers(0, 1), min_size=n,
                                                      max_size=n), min_size=1, max_size=m)),
                          dtype=np.uint8) for _ in range(2))
    ratio, _ = OBJECTIVES["union"].evaluate(Instance(mats))
    target(float(ratio), label="Ldim(H1∪H2)/(d1+d2+1)")
    assert ratio <= 1


def test_reports_include_the_new_checks(results, tmp_path) -> None:
    rs = list(results.values())
    json.dumps(to_json(rs))
    text = markdown(rs)
    assert "Theorem 2.2" in text and "Lemma 4.10" in text and "dichotomy" in text
    assert plots(rs, tmp_path)


@pytest.mark.slow
def test_full_mode_composition_and_extremal() -> None:
    res = {r.check.id: r for r in run_checks(["abms20.thm2.2", "extremal"], quick=False)}
    assert res["abms20.thm2.2.lower"].holds is True
    assert all(math.isfinite(float(r.values.get("ratio_float", 0)))
               for r in res["extremal.union"].rows)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 5), st.data())
def test_hypothesis_driven_maj3_search(n: int, data) -> None:
    rows = data.draw(st.lists(st.lists(st.integers(0, 1), min_size=n, max_size=n),
                              min_size=1, max_size=5))
    ratio, values = OBJECTIVES["maj3"].evaluate(Instance((np.array(rows, dtype=np.uint8),)))
    target(float(ratio), label="Ldim(MAJ3(H,H,H))/Ldim(H)")
    # MAJ3(H,H,H) ⊇ H, so the ratio is at least 1 whenever Ldim(H) ≥ 1
    assert values["Ldim(MAJ3(H,H,H))"] >= values["Ldim(H)"]


def test_prop33_fails_on_an_unrealizable_sample_and_propagates_a_bug(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The exhaustive search refutes an unrealizable sample (the proposition's hypothesis is
    violated), and any other exception of the learner is a bug that propagates."""
    from ltheory.privacy.learners import decision_lists
    from proofs_check import bun_fang

    F = decision_lists.conjunction_features(2, 1)
    xs = np.array([0, 1, 2, 3, 0])
    ys = np.array([0, 1, 1, 0, 1])                    # point 0 with both labels: no list fits
    row = bun_fang.prop33_row(F, xs, ys, {"n": 2}, 0)
    assert row.holds is False and row.witness["iteration"] == 0
    xor = np.array([0, 1, 2, 3])
    row = bun_fang.prop33_row(F, xor, np.array([0, 1, 1, 0]), {"n": 2}, 0)
    assert row.holds is False                         # XOR is no literal decision list
    assert bun_fang.dl_consistent(F, frozenset(range(len(F))), xor,
                                  np.array([0, 0, 1, 1])) is not None

    def bug(self, data, rng):
        raise TypeError("a bug, not a refutation")

    monkeypatch.setattr(decision_lists.PrivateDecisionListLearner, "fit_rules", bug)
    check = next(c for c in bun_fang.CHECKS if c.id == "bunfang.prop3.3")
    with pytest.raises(TypeError, match="a bug"):
        check.run(quick=True)
