"""proofs_check: bounds carried as sympy expressions (and agreeing with the rows), the AMSY24
explorer's failures surfaced rather than hidden, and the Markdown report (one table per paper,
relative links to the PNG plots)."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from math import comb, prod
from pathlib import Path

import pytest
import sympy

import proofs_check.amsy2024 as amsy
from ltheory.dims.result import DimensionResult
from ltheory.errors import BudgetExceededError
from ltheory.graphs.explorer import DichotomyReport
from proofs_check import all_checks, run_checks
from proofs_check.__main__ import main as check_main
from proofs_check.abms2020_composition import DUDLEY_BOUND, DUDLEY_SIMPLIFIED
from proofs_check.base import evaluate_bound
from proofs_check.extremal import OBJECTIVES, load_records, reverify
from proofs_check.report import by_paper, markdown, plot_files

#: checks whose statement has no symbolic bound (identities, facts, "poly(m)" of unstated degree)
NO_EXPRESSION = {"abms20.remark4.3", "abms20.sec4.2.2.gates", "compose.facts",
                 "amsy24.dichotomy", "bunfang.prop3.3", "bunfang.lemma4.10"}


def test_symbolic_bounds_are_sympy_expressions() -> None:
    checks = {c.id: c for c in all_checks()}
    for cid in ("amsy24.sandwich", "amsy24.tree_clique", "dudley.vc_composition",
                "abms20.sec2.1.1.simplified", "extremal.union", "extremal.union_k",
                "extremal.maj3", "extremal.thm22"):
        assert isinstance(checks[cid].bound, sympy.Expr), cid
    # not-evaluable statements carry a reason instead; the privacy-claim rows compare each
    # learner with its own claimed (ε, δ)
    assert {cid for cid, c in checks.items() if c.bound is None and c.kind != "not_evaluable"
            and not cid.startswith("privacy.claims.")} <= NO_EXPRESSION


@pytest.mark.parametrize("n, ds", [(0, [0]), (1, [1]), (3, [1, 0]), (5, [2, 1, 0]),
                                   (7, [3, 3]), (4, [0, 0, 0, 0]), (9, [9, 2])])
def test_dudley_expressions_evaluate_to_the_ssp_product(n: int, ds: list[int]) -> None:
    direct = prod(sum(comb(n, j) for j in range(d + 1)) for d in ds)
    assert evaluate_bound(DUDLEY_BOUND, n=n, k=len(ds), d=ds) == direct
    assert evaluate_bound(DUDLEY_SIMPLIFIED, n=n, k=len(ds), d=ds) == n ** sum(ds)


def test_evaluate_bound_rejects_unknown_names_and_misplaced_sequences() -> None:
    with pytest.raises(ValueError, match="no symbol"):
        evaluate_bound(DUDLEY_BOUND, n=3, k=1, d=[1], q=2)
    with pytest.raises(ValueError, match="not an indexed sequence"):
        evaluate_bound(DUDLEY_BOUND, n=[3], k=1, d=[1])


def test_dudley_rows_use_the_expression() -> None:
    for r in run_checks(["dudley", "abms20.sec2.1.1"], quick=True):
        assert r.rows
        for row in r.rows:
            ds = row.values["VC(Hi)"]
            n = row.values.get("n", row.values.get("n = VC(G(…))"))
            expected = evaluate_bound(r.check.bound, n=n, k=len(ds), d=ds)
            assert row.bound == expected
            assert row.holds == (2 ** n <= expected)


def test_extremal_ratios_agree_with_the_bound_expressions() -> None:
    checks = {c.id: c for c in all_checks()}
    for rec in load_records():
        obj = OBJECTIVES[rec["objective"]]
        assert checks[f"extremal.{obj.name}"].bound == obj.expr
        same, ratio, values = reverify(rec)
        assert same
        bound = evaluate_bound(obj.expr, **obj.at(values))
        if obj.name == "union":
            assert ratio == Fraction(values["Ldim(H1∪H2)"], bound)
        elif obj.name == "union_k":
            assert math.isclose(ratio, values["Ldim(∪Hi)"] / bound)
        elif obj.name == "maj3":      # ratio to max(d, 1); the reference is k²·max(d, 1), k = 3
            assert ratio == Fraction(9 * values["Ldim(MAJ3(H,H,H))"], bound)
        else:                         # thm22: T(H∨H)/T(H), the bound 2^{4k·4^k·(t+1)} beside
            assert ratio == Fraction(values["T(H∨H)"], max(values["T(H)"], 1))
            assert values["T(H∨H)"] < bound


# --- AMSY24: the explorer's failures are surfaced -------------------------------------------

@pytest.fixture
def tiny_amsy(monkeypatch):
    """Two small classes instead of the full list; the explored cache cleared around the test."""
    monkeypatch.setattr(amsy, "_classes",
                        lambda quick: [("points", {"n": 4}, 3), ("thresholds", {"n": 4}, 3)])
    amsy._explored.cache_clear()
    yield
    amsy._explored.cache_clear()


def _amsy_results() -> dict:
    return {r.check.id: r for r in run_checks(["amsy24"], quick=True)}


def test_amsy_rows_evaluate_their_expressions(tiny_amsy) -> None:
    res = _amsy_results()
    assert res["amsy24.sandwich"].holds is True and res["amsy24.tree_clique"].holds is True
    for row in res["amsy24.sandwich"].rows:
        assert row.bound == min(2 ** row.params["m"], row.values["|H|"])
        assert row.values["ω_m"] <= row.values["ω*_m"] <= row.bound
    for row in res["amsy24.tree_clique"].rows:
        assert row.params["m"] <= row.values["Ldim"] and row.bound == 2 ** row.params["m"]


def test_amsy_unexpected_explorer_errors_propagate(tiny_amsy, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the explorer")

    monkeypatch.setattr(amsy, "explore", broken)
    with pytest.raises(RuntimeError, match="a bug in the explorer"):
        _amsy_results()


def test_amsy_budget_refusal_is_recorded_as_not_evaluated(tiny_amsy, monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise BudgetExceededError("G_3(H) has too many vertices")

    monkeypatch.setattr(amsy, "explore", refuse)
    res = _amsy_results()
    for r in res.values():
        assert len(r.rows) == 2 and r.holds is None
        for row in r.rows:
            assert row.holds is None and "NOT EVALUATED" in row.note
            assert "too many vertices" in row.values["not evaluated"]
    text = markdown(list(res.values()))
    assert "no verdict" in text and "NOT EVALUATED" in text


def _report(clique: tuple[int, int, bool], frac: tuple[float, float]) -> DichotomyReport:
    lo, hi, exact = clique
    c = DimensionResult("clique", lo, [], exact, lo, hi)
    f = DimensionResult("fclique", frac[0], {}, frac[0] == frac[1], frac[0], frac[1])
    return DichotomyReport("t", 4, 5, (3,), (c,), (f,), {})


@pytest.mark.parametrize("clique, frac, verdict", [
    ((4, 4, True), (4.5, 4.5), True),        # exact and within min(2^3, 5) = 5
    ((3, 6, False), (4.0, 5.0), None),       # budget: ω_m ≤ 6 vs ω*_m ≥ 4 is undecided
    ((3, 4, False), (4.0, 5.0), True),       # budget, but the proven bounds settle it
    ((5, 6, False), (4.0, 4.5), False),      # ω_m ≥ 5 > 4.5 ≥ ω*_m: a refutation
    ((4, 4, True), (6.0, 7.0), False),       # ω*_m ≥ 6 > min(2^3, |H|) = 5
])
def test_amsy_sandwich_decides_from_proven_bounds(tiny_amsy, monkeypatch, clique, frac,
                                                  verdict) -> None:
    # thresholds on 4 points: |H| = 5; the explorer's report is replaced by a hand-made one
    monkeypatch.setattr(amsy, "_classes", lambda quick: [("thresholds", {"n": 4}, 3)])
    monkeypatch.setattr(amsy, "explore", lambda *a, **k: _report(clique, frac))
    rows = [r for r in run_checks(["amsy24.sandwich"], quick=True)[0].rows]
    assert len(rows) == 1 and all(r.holds is verdict for r in rows)
    if not (clique[2] and frac[0] == frac[1]):
        assert all("time budget reached" in r.note for r in rows)
    if verdict is None:
        assert all("undecided" in r.note for r in rows)
    if verdict is False:
        assert all(r.witness for r in rows)


# --- the Markdown report -----------------------------------------------------------------------

IDS = ["abms20.obs4.1", "abms20.thm2.1", "amsy24.tree_clique", "pac.thm1", "bunfang.lemma4.10"]


@pytest.fixture(scope="module")
def mixed_results():
    return run_checks(IDS, quick=True)


def _tables(text: str) -> list[list[str]]:
    """The Markdown tables of a text, each a list of its lines."""
    tables, cur = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            cur.append(line)
        elif cur:
            tables.append(cur)
            cur = []
    return tables + ([cur] if cur else [])


def _cells(line: str) -> int:
    return len(re.split(r"(?<!\\)\|", line)) - 2


def test_report_has_one_statement_table_per_paper(mixed_results) -> None:
    text = markdown(mixed_results)
    groups = by_paper(mixed_results)
    assert len(groups) == 4
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    assert len(sections) == len(groups)
    for (source, rs), section in zip(groups.items(), sections, strict=True):
        assert f"`{source}`" in section.splitlines()[0]
        paper_table = _tables(section)[0]
        assert paper_table[0].startswith("| id | statement |")
        assert [ln.split("|")[1].strip() for ln in paper_table[2:]] == [
            f"`{r.check.id}`" for r in rs]
    # every table is well formed: each line has as many cells as its header
    for table in _tables(text):
        assert len({_cells(line) for line in table}) == 1, table[0]
    # the summary lists the time of each paper
    summary = _tables(text)[0]
    assert len(summary) == 2 + len(groups)


def test_report_links_plots_relative_to_its_folder(mixed_results, tmp_path: Path) -> None:
    figures = plot_files(mixed_results, tmp_path / "figs")
    assert {"abms20.obs4.1", "abms20.thm2.1"} <= set(figures)
    report_dir = tmp_path / "out"
    report_dir.mkdir()
    text = markdown(mixed_results, figures, base=report_dir)
    targets = re.findall(r"\]\(([^)]+\.png)\)", text)
    assert targets and all(not Path(t).is_absolute() for t in targets)
    assert all(t.startswith("../figs/") for t in targets)
    assert all((report_dir / t).is_file() for t in targets)
    assert {Path(t).name for t in targets} == {p.name for ps in figures.values() for p in ps}
    # each figure is shown (as an image) in its own statement's section
    for cid, paths in figures.items():
        section = text.split(f"— `{cid}`:", 1)[1].split("\n### ", 1)[0]
        assert all(f"![{cid}: {p.name}](../figs/{p.name})" in section for p in paths)


def test_cli_writes_the_report_with_working_plot_links(tmp_path: Path, monkeypatch,
                                                       capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports").mkdir()
    code = check_main(["abms20.obs4.1", "--quick", "--plot", "plots",
                       "--markdown", "reports/check.md"])
    assert code == 0
    written = (tmp_path / "reports" / "check.md").read_text(encoding="utf-8")
    assert "(../plots/abms20.obs4.1.png)" in written
    assert (tmp_path / "reports" / "../plots/abms20.obs4.1.png").is_file()
    # the printed report is read from the current folder
    assert "(plots/abms20.obs4.1.png)" in capsys.readouterr().out


def test_ltheory_check_command_links_plots_from_its_markdown(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ltheory.cli import app

    report = tmp_path / "r" / "check.md"
    report.parent.mkdir()
    res = CliRunner().invoke(app, ["check", "abms20.obs4.1", "--quick", "--plot",
                                   str(tmp_path / "plots"), "--markdown", str(report)])
    assert res.exit_code == 0, res.output
    text = report.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)]+\.png)\)", text)
    assert targets and all(t == "../plots/abms20.obs4.1.png" for t in targets)
    assert (report.parent / targets[0]).is_file()
