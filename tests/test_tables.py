"""``ltheory.tables`` and ``ltheory table``: ranges, the comparison with the catalog's cited
formulas, skipped members, budgets, JSON, plots, exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ltheory import catalog
from ltheory.catalog.schema import KnownValue
from ltheory.cli import app
from ltheory.errors import InvalidInputError, UnknownFamilyError
from ltheory.tables import MAX_MEMBERS, dimension_table, expand, judge, parse_range, plot_table

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


# ---------------------------------------------------------------------------- ranges
def test_parse_range_forms() -> None:
    assert parse_range("1..4", "n") == (1, 2, 3, 4)
    assert parse_range("2,4,8", "n") == (2, 4, 8)
    assert parse_range("1..3,8,2", "n") == (1, 2, 3, 8)
    assert parse_range("true,false", "monotone") == (True, False)
    assert parse_range("-2..-1", "n") == (-2, -1)
    assert parse_range("0.5", "p") == (0.5,)


@pytest.mark.parametrize("text,words", [
    ("", "empty range"), ("5..3", "is empty"), ("1..", "cannot read the range"),
    ("a..b", "cannot read the range"), ("1..100000", "100,000 values"), ("1,,2", "empty item"),
    ("1..2..3", "cannot read the range"), ("x$y", "cannot read value"),
])
def test_parse_range_errors(text: str, words: str) -> None:
    with pytest.raises(InvalidInputError, match=words.replace("$", r"\$")):
        parse_range(text, "n")


def test_expand_checks_names_types_and_size() -> None:
    ranges, members = expand("conjunctions", ["n=1..3", "monotone=true,false"])
    assert ranges == {"n": (1, 2, 3), "monotone": (True, False)}
    assert members[:2] == [{"n": 1, "monotone": True}, {"n": 1, "monotone": False}]
    assert len(members) == 6
    _, members = expand("thresholds", {"n": range(3)})
    assert members == [{"n": 0}, {"n": 1}, {"n": 2}]
    with pytest.raises(UnknownFamilyError, match="nope"):
        expand("nope", ["n=1"])
    with pytest.raises(UnknownFamilyError, match="no parameter 'm'"):
        expand("thresholds", ["m=1..3"])
    with pytest.raises(InvalidInputError, match="integer"):
        expand("thresholds", ["n=1.5"])
    with pytest.raises(InvalidInputError, match="true or false"):
        expand("conjunctions", ["monotone=3"])
    with pytest.raises(InvalidInputError, match="members"):
        expand("conjunctions", ["n=1..20", "k=1..20"])
    with pytest.raises(InvalidInputError, match="given twice"):
        expand("thresholds", ["n=1", "n=2"])
    with pytest.raises(InvalidInputError, match="PARAM=RANGE"):
        expand("thresholds", ["n"])
    assert MAX_MEMBERS >= 100


# ---------------------------------------------------------------------------- verdicts
@pytest.mark.parametrize("kind,v,lo,hi,verdict", [
    ("value", 3, 3, 3, "agrees"), ("value", 4, 3, 3, "disagrees"), ("value", 4, 3, 5, "undecided"),
    ("value", 6, 3, 5, "disagrees"), ("lower", 3, 3, 9, "agrees"), ("lower", 4, 3, 9, "undecided"),
    ("lower", 10, 3, 9, "disagrees"), ("upper", 9, 3, 9, "agrees"), ("upper", 8, 3, 9, "undecided"),
    ("upper", 2, 3, 9, "disagrees"),
])
def test_judge(kind: str, v: int, lo: int, hi: int, verdict: str) -> None:
    assert judge(kind, v, lo, hi) == verdict


# ---------------------------------------------------------------------------- tables
def test_thresholds_table_agrees_with_every_formula() -> None:
    import ltheory

    assert ltheory.dimension_table is dimension_table
    T = dimension_table("thresholds", {"n": "1..7"})
    assert [r.results["ldim"].value for r in T.rows] == [(n + 1).bit_length() - 1
                                                         for n in range(1, 8)]
    assert [r.results["tdim"].value for r in T.rows] == list(range(1, 8))
    counts = T.counts()
    assert counts["members"] == counts["computed"] == 7 and counts["skipped"] == 0
    assert counts["agrees"] == 21 and counts["disagrees"] == counts["undecided"] == 0
    assert T.x == "n" and not T.findings
    doc = json.loads(json.dumps(T.to_json()))
    assert doc["format"] == "ltheory.table/1" and doc["ranges"] == {"n": list(range(1, 8))}
    row = doc["rows"][2]
    assert row["class"] == {"name": "thresholds n=3", "size": 4, "domain_size": 3}
    assert row["results"]["vc"]["verified"] is True
    assert {c["key"] for c in row["checks"]} == {"vc", "ldim", "tdim"}


def test_a_wrong_formula_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Falsifiable: a cited Ldim off by one is reported as a disagreement and a finding."""
    real = catalog.known_values

    def wrong(name: str, **params: object) -> dict[str, KnownValue]:
        out = dict(real(name, **params))
        kv = out["ldim"]
        out["ldim"] = KnownValue(kv.value + 1, kv.citation, kv.note, kv.key, kv.formula + " + 1")
        return out

    monkeypatch.setattr(catalog, "known_values", wrong)
    T = dimension_table("thresholds", {"n": "3..4"}, only=["ldim"])
    assert [c.verdict for r in T.rows for c in r.checks] == ["disagrees", "disagrees"]
    assert len(T.findings) == 2 and T.counts()["findings"] == 2
    code, out, _ = run("table", "thresholds", "n=3..4", "--only", "ldim")
    assert code == 1 and "FINDING" in out and "✗" in out


def test_recorded_disagreement_is_not_a_finding() -> None:
    T = dimension_table("affine", {"p": 2, "n": 2, "d": 0}, only=["ldim"])
    (check,) = T.rows[0].checks
    assert check.verdict == "disagrees" and check.recorded_disagreement and not check.finding
    code, out, _ = run("table", "affine", "p=2", "n=2", "d=0", "--only", "ldim")
    assert code == 0 and "✗*" in out


def test_skipped_members_carry_the_reason() -> None:
    T = dimension_table("conjunctions", {"n": "4,11,13"}, only=["vc"])
    assert [r.skipped is None for r in T.rows] == [True, False, False]
    assert "2^22" in T.rows[1].skipped and "out of range" in T.rows[2].skipped
    assert T.rows[0].results["vc"].value == 4
    code, out, err = run("table", "conjunctions", "n=4,11,13", "--only", "vc")
    assert code == 0 and "out of range" in out and not err
    T = dimension_table("decision_lists", {"n": 4, "k": 2}, only=["vc"])
    assert T.rows[0].skipped and "n <= 3" in T.rows[0].skipped


def test_budget_gives_bounds_and_undecided_marks() -> None:
    # conjunctions n=7: the root's automorphism group alone takes > 0.01 s (T = 8 exactly)
    T = dimension_table("conjunctions", {"n": 7}, only=["tdim"], budget=0.01)
    res = T.rows[0].results["tdim"]
    assert not res.exact and res.lower < res.upper
    assert T.counts()["partial"] == 1
    assert res.lower <= 8 <= res.upper
    code, out, _ = run("table", "conjunctions", "n=7", "--only", "tdim", "--budget", "0.01")
    # the CLI's own run proves its own bounds (how far 0.01 s gets varies with the machine's
    # load, so its range need not be the library run's): a proper range around T = 8
    m = re.search(r"(\d+)\.\.(\d+)", out)
    assert code == 0 and m is not None
    assert int(m.group(1)) <= 8 <= int(m.group(2)) and int(m.group(1)) < int(m.group(2))


def test_clique_column() -> None:
    T = dimension_table("points", {"n": "3..4"}, only=["vc"], clique=2)
    assert T.keys == ("vc", "clique")
    assert [r.results["clique"].value for r in T.rows] == [3, 3]  # README: ω_2(points n=4) = 3
    with pytest.raises(InvalidInputError, match="clique"):
        dimension_table("points", {"n": 3}, clique=0)


def test_plot_numeric_and_categorical(tmp_path: Path) -> None:
    T = dimension_table("conjunctions", {"n": "1..3", "monotone": "true,false"})
    path = plot_table(T, tmp_path / "c.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    T = dimension_table("conjunctions", {"monotone": "true,false", "n": 2}, only=["vc"])
    assert T.x == "monotone"
    assert plot_table(T, tmp_path / "b.png").stat().st_size > 1000


# ---------------------------------------------------------------------------- command line
def test_cli_table_text_json_and_plot(tmp_path: Path) -> None:
    code, out, _ = run("table", "conjunctions", "n=1..4", "monotone=true")
    assert code == 0
    assert "✓" in out and "Littlestone 1988" in out and "4 of 4 members" in out
    png = tmp_path / "t.png"
    code, out, _ = run("table", "weight_at_most", "n=3..5", "d=2", "--json", "--plot", str(png))
    assert code == 0 and png.stat().st_size > 1000
    doc = json.loads(out)
    assert [r["results"]["vc"]["value"] for r in doc["rows"]] == [2, 2, 2]
    assert doc["summary"]["agrees"] == 9


@pytest.mark.parametrize("args,words", [
    (["nofamily", "n=1"], "unknown family"),
    (["thresholds", "m=1..3"], "no parameter 'm'"),
    (["thresholds", "n=5..3"], "is empty"),
    (["thresholds", "n=1..10000"], "values"),
    (["thresholds", "n=1..x"], "cannot read"),
    (["thresholds", "n"], "PARAM=RANGE"),
    (["thresholds", "n=2", "--only", "vd"], "--only"),
    (["thresholds", "n=2", "--clique", "0"], "clique"),
    (["thresholds", "n=2", "--budget", "-1"], "budget"),
    (["thresholds", "n=2", "--plot", "/nonexistent/dir/x.png"], "cannot write"),
])
def test_cli_bad_input_is_one_line_exit_2(args: list[str], words: str) -> None:
    code, out, err = run("table", *args)
    assert code == 2, (out, err)
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_cited_formulas_are_listed_with_their_conditions() -> None:
    """Issue 43: 'ldim = n' was listed without its condition 2k >= n next to members whose Ldim
    differs from n; each formula now says when it applies, in text, JSON and the plot."""
    T = dimension_table("interval_unions", {"n": "2..6", "k": 2}, only=["ldim"])
    exact = [c for r in T.rows for c in r.checks if c.key == "ldim"]
    assert {c.when for c in exact} == {"2 * k >= n"}
    assert {r.params["n"] for r in T.rows if any(c.key == "ldim" for c in r.checks)} == {2, 3, 4}
    assert exact[0].statement == "ldim = n when 2 * k >= n"
    assert exact[0].to_json()["when"] == "2 * k >= n"
    code, out, _ = run("table", "interval_unions", "n=2..6", "k=2", "--only", "ldim")
    text = " ".join(out.split())
    assert code == 0 and "ldim = n when 2 * k >= n —" in text
    assert "ldim_upper = floor(log2(evensum(n + 1, k))) —" in text     # no condition: none shown
    assert "marks: ✓ every cited formula agrees" in text


def test_table_marks_and_legend_are_shared() -> None:
    from ltheory.tables import MARKS, legend, mark
    from ltheory.tables.table import FormulaCheck

    def check(verdict: str, recorded: str | None = None) -> FormulaCheck:
        return FormulaCheck("ldim", "ldim", "value", 1, "d", "cite", verdict, recorded)

    assert mark([]) == ""
    assert mark([check("agrees")]) == "✓"
    assert mark([check("agrees"), check("undecided")]) == "?"
    assert mark([check("disagrees", "known")]) == "✗*"
    assert mark([check("disagrees", "known"), check("disagrees")]) == "✗"
    assert legend(["✗*", "✓"]) == f"✓ {MARKS['✓']}; ✗* {MARKS['✗*']}"
    assert legend([]) == ""


def test_table_figure_draws_formulas_neutral_dashed_and_above_the_points() -> None:
    """Issue 43: formulas were drawn in the points' colour, under them."""
    from matplotlib.colors import to_rgba

    from ltheory.tables.plot import FORMULA_COLOUR, table_figure

    T = dimension_table("interval_unions", {"n": "2..5", "k": 2}, only=["vc", "ldim"])
    fig = table_figure(T)
    for ax in fig.axes:
        lines = ax.get_lines()
        formulas = [ln for ln in lines if ln.get_label().startswith("cited: ")]
        points = [c.lines[0] for c in ax.containers if c.get_label().endswith("computed")]
        assert formulas and points
        for f in formulas:
            assert to_rgba(f.get_color()) == to_rgba(FORMULA_COLOUR)
            assert all(to_rgba(f.get_color()) != to_rgba(p.get_color()) for p in points)
            assert f.get_linestyle() in ("--", ":")
            assert f.get_zorder() > max(p.get_zorder() for p in points)
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert any("when 2 * k >= n" in t for t in labels) or ax.get_title().startswith("VC")
        # the legend sits below the axes, clear of the data
        assert ax.get_legend().get_bbox_to_anchor().y0 < ax.get_window_extent().y0
        assert ax.get_ylabel()


# ---------------------------------------------------------------------------- your own family
_DECL = """
[family]
name = "{name}"
summary = "The k-element subsets of [n]."
domain = "The n integers 0..n-1."

[params.n]
type = "int"
min = 1
max = 10

[params.k]
type = "int"
default = 2

[[known]]
vc = "{vc}"
when = "k <= n"
citation = "Elementary"
"""

_MODULE = '''
import itertools

import numpy as np

from ltheory import HypothesisClass
from ltheory.catalog import register_family


def k_subsets(n, k):
    subsets = list(itertools.combinations(range(n), k)) if k <= n else []
    rows = np.zeros((len(subsets), n), dtype=np.uint8)
    for i, s in enumerate(subsets):
        rows[i, list(s)] = 1
    return HypothesisClass.from_matrix(rows, domain=n)


register_family(k_subsets, {decl!r})
'''


@pytest.fixture
def user_families(monkeypatch: pytest.MonkeyPatch) -> dict:
    from ltheory.catalog import registry

    fresh: dict = {}
    monkeypatch.setattr(registry, "_USER", fresh)
    return fresh


def _k_subsets(n: int, k: int):
    import itertools

    import numpy as np

    from ltheory import HypothesisClass

    subsets = list(itertools.combinations(range(n), k)) if k <= n else []
    rows = np.zeros((len(subsets), n), dtype=np.uint8)
    for i, s in enumerate(subsets):
        rows[i, list(s)] = 1
    return HypothesisClass.from_matrix(rows, domain=n)


def test_register_family_joins_the_catalog_and_the_table(user_families: dict) -> None:
    info = catalog.register_family(_k_subsets, _DECL.format(name="k_subsets", vc="min(k, n - k)"))
    assert info.name == "k_subsets" and "k_subsets" in catalog.families()
    H = catalog.family("k_subsets", n=5, k=2)
    assert H.name == "k_subsets n=5 k=2" and len(H) == 10
    assert catalog.known_values("k_subsets", n=5)["vc"].value == 2
    T = dimension_table("k_subsets", {"n": "2..5", "k": 2}, only=["vc"])
    assert [r.results["vc"].value for r in T.rows] == [0, 1, 2, 2] and not T.findings
    # a wrong formula of your own is a finding like any other
    catalog.register_family(_k_subsets, _DECL.format(name="k_subsets", vc="k"), replace=True)
    assert dimension_table("k_subsets", {"n": "2..3", "k": 2}, only=["vc"]).findings


def test_register_family_refuses_bad_declarations(user_families: dict, tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="built-in"):
        catalog.register_family(_k_subsets, _DECL.format(name="thresholds", vc="1"))
    catalog.register_family(_k_subsets, _DECL.format(name="mine", vc="1"))
    with pytest.raises(InvalidInputError, match="replace=True"):
        catalog.register_family(_k_subsets, _DECL.format(name="mine", vc="1"))
    with pytest.raises(InvalidInputError, match="needs a name"):
        catalog.register_family(_k_subsets, "[family]\nsummary = 'no name'\n")
    with pytest.raises(InvalidInputError, match="not valid TOML"):
        catalog.register_family(_k_subsets, "[family\n")
    with pytest.raises(InvalidInputError, match="callable"):
        catalog.register_family("k_subsets", _DECL.format(name="x", vc="1"))  # type: ignore
    with pytest.raises(InvalidInputError, match="cannot read"):
        catalog.register_family(_k_subsets, tmp_path / "missing.toml")
    path = tmp_path / "f.toml"
    path.write_text(_DECL.format(name="from_file", vc="min(k, n - k)"), encoding="utf-8")
    assert catalog.register_family(_k_subsets, path).name == "from_file"
    catalog.register_family(lambda n, k: "not a class", _DECL.format(name="bad", vc="1"))
    with pytest.raises(InvalidInputError, match="not a HypothesisClass"):
        catalog.family("bad", n=3)
    # formulas go through the restricted evaluator, never eval
    catalog.register_family(_k_subsets, _DECL.format(name="evil", vc="__import__('os')"))
    with pytest.raises(InvalidInputError):
        catalog.known_values("evil", n=3)


def test_cli_table_module_colon_family(user_families: dict, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    decl = _DECL.format(name="k_subsets", vc="min(k, n - k)")
    (tmp_path / "my_fams_43.py").write_text(_MODULE.format(decl=decl), encoding="utf-8")
    (tmp_path / "broken_fams_43.py").write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        code, out, _ = run("table", "my_fams_43:k_subsets", "n=2..5", "k=2", "--only", "vc",
                           "--quiet")
        assert code == 0, out
        assert "vc = min(k, n - k) when k <= n" in " ".join(out.split())
        code, _, err = run("table", "my_fams_43:nothing", "n=2", "--quiet")
        assert code == 2 and "registered no family 'nothing'" in " ".join(err.split())
        code, _, err = run("table", "no_such_module_43:x", "n=2", "--quiet")
        assert code == 2 and "cannot import module 'no_such_module_43'" in err
        code, _, err = run("table", "broken_fams_43:x", "n=2", "--quiet")
        assert code == 2 and "RuntimeError: boom" in err
        code, _, err = run("table", "os.system('x'):y", "n=2", "--quiet")
        assert code == 2 and "write MODULE:FAMILY" in " ".join(err.split())
    finally:
        for name in ("my_fams_43", "broken_fams_43"):
            sys.modules.pop(name, None)
