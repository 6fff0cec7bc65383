"""The documentation site's pages run as written (docs/, built by ``mkdocs build --strict``).

Conventions of the pages, enforced here:

* ```` ```python ```` blocks of a page run in order, in one namespace, in a fresh folder;
  a block with a title (```` ```python title="test_mine.py" ````) is written to that file instead
  (a test module the page then runs with pytest);
* ```` ```console ```` blocks: each ``$ command`` line runs (``ltheory …`` as
  ``python -m ltheory.cli …`` on this checkout, ``pytest …`` / ``python -m pytest …``; ``pip
  install`` lines are checked to name extras that exist, not run); a trailing ``# exit N`` is
  the exit code expected (default 0); other lines are the output shown and are not compared;
* ```` ```json ```` and ```` ```yaml ```` blocks must parse (a workflow's commands are checked by
  ``test_ci_workflow_runs_the_documented_commands``); ```` ```text ```` blocks are output or
  grammar, not run;
  any other fence is an error (say what the block is);
* **printed output is checked**: a ```` ```text ```` block on the line after an HTML comment
  ``<!-- output -->`` is what the page's ``python`` blocks printed since the previous such block
  (or the page's start), compared line by line (trailing spaces ignored); whatever a ``python``
  block prints must be shown by such a block before the next ``console`` block or the page's
  end.  Options in the
  comment: ``tolerance=X`` compares every number within X (seeded but platform-dependent
  values), ``excerpt`` only asks the lines shown to appear in this order (after a ``console``
  block: its commands' stdout).  In an expected line ``…`` stands for any text.  The comment is
  invisible on the site (and on GitHub, for the README);
* **prose quotes only checked numbers**: in a section (heading to heading) with an output block,
  a decimal number with two or more decimals in the prose (not in inline code) must appear in one
  of that section's output blocks; and a ``print(...)`` line must not quote a decimal output in a
  comment (show it in an output block instead).  So a value that changes fails here, and the
  sentence quoting it cannot go stale.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
FENCE = re.compile(r"^(?:<!--\s*output\b([^>\n]*)-->[ \t]*\n)?```(\w*)([^\n]*)\n(.*?)^```\s*$",
                   flags=re.M | re.S)
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
REFERENCE = re.compile(r"(?:Proposition|Theorem|Lemma|Corollary|Definition|Example|Remark|Claim|"
                       r"Algorithm|Section|Sec\.|Eq\.|Python|version)\s+\d+(?:\.\d+)+")
QUOTED = re.compile(r"(?<![\w.])\d+\.\d{2,}(?![\w.])")     # a decimal number in prose
KNOWN = {"python", "console", "json", "text", "yaml"}
#: pages whose code takes more than a few seconds: run with the slow tests (CI)
SLOW = {"privacy/audit.md", "ci/index.md", "ci/failures.md", "howto/ci_workflow.md",
        "howto/thirdparty.md"}


def _text(page: str | Path) -> str:
    return (page if isinstance(page, Path) else DOCS / page).read_text(encoding="utf-8")


def blocks(page: str | Path) -> list[tuple[str, str, str]]:
    """(language, attributes, code) of every fenced block of a page (a path: the README)."""
    return [(m.group(2), m.group(3).strip(), m.group(4)) for m in FENCE.finditer(_text(page))]


def output_spec(page: str | Path) -> dict[int, dict[str, object]]:
    """The output blocks of a page by block index: ``{"tolerance": X, "excerpt": bool}``."""
    out = {}
    for i, m in enumerate(FENCE.finditer(_text(page))):
        if m.group(1) is None:
            continue
        assert m.group(2) == "text", f"{page}: <!-- output --> marks a {m.group(2)!r} block"
        opts = m.group(1).split()
        tol = [float(o.split("=", 1)[1]) for o in opts if o.startswith("tolerance=")]
        unknown = [o for o in opts if not o.startswith("tolerance=") and o != "excerpt"]
        assert not unknown, (f"{page}: unknown output option(s) {unknown}; known: tolerance=X, "
                             "excerpt")
        out[i] = {"tolerance": tol[0] if tol else 0.0, "excerpt": "excerpt" in opts}
    return out


def _line_matches(expected: str, actual: str, tolerance: float) -> bool:
    """``actual`` reads as ``expected``: same text (``…`` any text), numbers within tolerance."""
    expected, actual = expected.rstrip(), actual.rstrip()
    if tolerance == 0.0:
        pattern = ".*?".join(re.escape(part) for part in expected.split("…"))
        return re.fullmatch(pattern, actual) is not None
    parts, numbers, pos = [], [], 0
    for m in NUMBER.finditer(expected):
        parts.append(".*?".join(re.escape(s) for s in expected[pos:m.start()].split("…")))
        parts.append(r"([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)")
        numbers.append(float(m.group()))
        pos = m.end()
    parts.append(".*?".join(re.escape(s) for s in expected[pos:].split("…")))
    m = re.fullmatch("".join(parts), actual)
    return m is not None and all(abs(float(a) - e) <= tolerance
                                 for a, e in zip(m.groups(), numbers, strict=True))


def check_output(where: str, expected: str, actual: str, tolerance: float = 0.0,
                 excerpt: bool = False) -> None:
    """Assert ``actual`` (what the code printed) reads as the output block ``expected``."""
    exp = [ln for ln in expected.rstrip("\n").split("\n")]
    act = actual.rstrip("\n").split("\n") if actual.strip() else []
    if excerpt:
        it = iter(act)
        missing = [ln for ln in exp if not any(_line_matches(ln, a, tolerance) for a in it)]
        ok = not missing
    else:
        ok = len(exp) == len(act) and all(_line_matches(e, a, tolerance)
                                          for e, a in zip(exp, act, strict=True))
    assert ok, (f"{where}: the output block says\n{expected}\nbut the code printed\n{actual}"
                f"\n(tolerance {tolerance:g}{', excerpt' if excerpt else ''}): run the code and "
                "update the block and the prose quoting it")


def _sections(text: str) -> list[str]:
    """The text split at its headings (a ``#`` line inside a fence is code, not a heading)."""
    out, current, fenced = [], [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            out.append("\n".join(current))
            current = []
        current.append(line)
    return [*out, "\n".join(current)]


def quoted_numbers_problems(page: str | Path) -> list[str]:
    """Decimal numbers the prose of an output block's section quotes but no output block of the
    section shows, and ``print`` lines quoting a decimal output in a comment."""
    problems = []
    text = _text(page)
    for section in _sections(text):
        outputs = [m.group(4) for m in FENCE.finditer(section) if m.group(1) is not None]
        for m in FENCE.finditer(section):
            if m.group(2) != "python":
                continue
            for line in m.group(4).splitlines():
                code, _, comment = line.partition("#")
                if "print(" in code and QUOTED.search(comment):
                    problems.append(f"{page}: a print quotes {QUOTED.search(comment).group()} "
                                    f"in a comment ({line.strip()!r}); show it in an output block")
        if not outputs:
            continue
        prose = re.sub(r"`[^`\n]*`", "", FENCE.sub("", section))
        prose = re.sub(REFERENCE, "", prose)         # "Proposition 2.12" is no printed value
        for q in QUOTED.findall(prose):
            if not any(re.search(rf"(?<![\w.]){re.escape(q)}(?![\w])", o) for o in outputs):
                problems.append(f"{page}: the prose quotes {q}, which no output block of its "
                                "section shows")
    return problems


def _env() -> dict[str, str]:
    return {**os.environ, "MPLBACKEND": "Agg", "COLUMNS": "100",
            "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get(
                "PYTHONPATH")])])}


def _extras() -> set[str]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(meta["project"]["optional-dependencies"])


def run_console(code: str, cwd: Path) -> str:
    """Run the block's commands; their stdout, concatenated."""
    printed = []
    for line in code.splitlines():
        if not line.startswith("$ "):
            continue
        cmd = line[2:]
        m = re.search(r"\s+#\s*exit\s+(\d+)\s*$", cmd)
        expect = int(m.group(1)) if m else 0
        argv = shlex.split(cmd, comments=True)
        if argv[:2] == ["pip", "install"]:
            for spec in argv[2:]:
                for extra in re.findall(r"\[([\w,]+)\]", spec):
                    assert set(extra.split(",")) <= _extras(), f"unknown extra in {line!r}"
            continue
        if argv[0] == "mkdocs":
            continue                          # CI builds the site (.ci/run)
        if argv[0] == "ltheory":
            full = [sys.executable, "-m", "ltheory.cli", *argv[1:]]
        elif argv[0] == "pytest" or argv[:3] == ["python", "-m", "pytest"]:
            rest = argv[1:] if argv[0] == "pytest" else argv[3:]
            full = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                    "-W", "ignore::pytest.PytestAssertRewriteWarning", *rest]
        else:
            raise AssertionError(f"docs run only ltheory, pytest, pip and mkdocs: {line!r}")
        proc = subprocess.run(full, capture_output=True, text=True, timeout=600, cwd=cwd,
                              env=_env())
        assert proc.returncode == expect, (f"{line!r} exited {proc.returncode}, expected "
                                           f"{expect}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        printed.append(proc.stdout)
    return "".join(printed)


def run_page(page: str, cwd: Path) -> None:
    namespace: dict = {"__name__": "__docs__"}
    old = Path.cwd()
    os.chdir(cwd)
    sys.path.insert(0, str(cwd))             # the page's own modules (title="mylib.py")
    before = set(sys.modules)
    from ltheory.catalog import registry
    families = dict(registry._USER)          # a page may register families of its own
    outputs = output_spec(page)
    printed = io.StringIO()        # what was printed since the last output block
    from_console = False           # a command's output need not be shown; a print's must

    def all_shown(where: str) -> None:
        assert from_console or not printed.getvalue(), (
            f"{page}: the python code before {where} printed\n{printed.getvalue()}\nbut no "
            "<!-- output --> block shows it; add one (or drop the print)")

    try:
        for i, (lang, attrs, code) in enumerate(blocks(page)):
            assert lang in KNOWN, f"{page}: block {i} has fence {lang!r}; use one of {KNOWN}"
            title = re.search(r'title="([^"]+)"', attrs)
            if lang == "python" and title:
                (cwd / title.group(1)).write_text(code, encoding="utf-8")
            elif lang == "python":
                if from_console:
                    printed, from_console = io.StringIO(), False
                with contextlib.redirect_stdout(printed):
                    exec(compile(code, f"{page} block {i}", "exec"), namespace)  # noqa: S102
            elif lang == "console":
                all_shown(f"block {i}")
                printed, from_console = io.StringIO(run_console(code, cwd)), True
                printed.seek(0, io.SEEK_END)
            elif lang == "json":
                json.loads(code)
            elif lang == "yaml":
                yaml = pytest.importorskip("yaml")
                assert isinstance(yaml.safe_load(code), dict), f"{page} block {i}: not a mapping"
            elif i in outputs:
                check_output(f"{page} block {i}", code, printed.getvalue(), **outputs[i])
                printed, from_console = io.StringIO(), False
        all_shown("the end of the page")
    finally:
        registry._USER.clear()
        registry._USER.update(families)
        os.chdir(old)
        sys.path.remove(str(cwd))
        for name in set(sys.modules) - before:
            if getattr(sys.modules[name], "__file__", None) and \
                    Path(sys.modules[name].__file__).parent == cwd:
                del sys.modules[name]


@pytest.mark.parametrize("page", [pytest.param(p, marks=pytest.mark.slow) if p in SLOW else p
                                  for p in PAGES])
def test_page_code_runs(page: str, tmp_path: Path) -> None:
    run_page(page, tmp_path)


def test_prose_quotes_only_checked_output() -> None:
    problems = [p for page in [*PAGES, ROOT / "README.md"] for p in quoted_numbers_problems(page)]
    assert not problems, "\n".join(problems)


def test_output_blocks_compare_what_was_printed() -> None:
    check_output("exact", "1.0 consistent 0.974\n", "1.0 consistent 0.974\n")
    with pytest.raises(AssertionError, match="update the block"):
        check_output("changed", "1.0 consistent 0.974", "1.0 consistent 0.981\n")
    with pytest.raises(AssertionError):
        check_output("missing line", "a\nb", "a\n")
    check_output("tolerance", "violation 8.6", "violation 8.63", tolerance=0.05)
    with pytest.raises(AssertionError):
        check_output("beyond tolerance", "violation 8.6", "violation 8.7", tolerance=0.05)
    check_output("ellipsis", "after … runs, 0.… s", "after 1,302 runs, 0.03 s")
    check_output("excerpt", "E   certified ε > …\nend", "head\nE   certified ε > 1.3\nx\nend",
                 excerpt=True)
    with pytest.raises(AssertionError):
        check_output("excerpt order", "end\nhead", "head\nend", excerpt=True)


def test_quoted_numbers_rule(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("# A\n\n```python\nprint(0.974)\n```\n\n<!-- output -->\n```text\n0.974\n"
                    "```\n\nThe bound 0.974 holds, not 0.981 (`alpha=0.05` is code).\n\n# B\n\n"
                    "0.981 elsewhere is not a printed value.\n", encoding="utf-8")
    assert quoted_numbers_problems(page) == [f"{page}: the prose quotes 0.981, which no output "
                                             "block of its section shows"]
    page.write_text("```python\nprint(x)   # 0.97\n```\n", encoding="utf-8")
    assert "show it in an output block" in quoted_numbers_problems(page)[0]
    assert output_spec(ROOT / "README.md"), "the README shows no checked output"
    assert output_spec("privacy/audit.md"), "the audit tutorial shows no checked output"


def _plugin_options() -> set[str]:
    """The command-line options ltheory's pytest plugin adds."""
    from ltheory.testing import pytest_plugin

    names: set[str] = set()

    class Group:
        def addoption(self, *opts: str, **_: object) -> None:
            names.update(opts)

    class Parser:
        def getgroup(self, *_: object) -> Group:
            return Group()

    pytest_plugin.pytest_addoption(Parser())
    return names


def test_ci_workflow_runs_the_documented_commands() -> None:
    """The GitHub Actions example of docs/howto/ci_workflow.md: checkout, setup-python, an
    install from the checkout with extras that exist, and pytest commands using only the
    plugin's real options and marker — the very commands the page's console block runs (with
    a number for the GitHub expression)."""
    yaml = pytest.importorskip("yaml")
    page = "howto/ci_workflow.md"
    (workflow,) = [yaml.safe_load(code) for lang, _, code in blocks(page) if lang == "yaml"]
    assert set(workflow.get("on", workflow.get(True))) == {"pull_request", "schedule"}
    (job,) = workflow["jobs"].values()
    steps = job["steps"]
    uses = [s["uses"].split("@")[0] for s in steps if "uses" in s]
    assert uses == ["actions/checkout", "actions/setup-python"]
    assert str(steps[1]["with"]["python-version"]) >= "3.11"
    runs = [s["run"] for s in steps if "run" in s]
    installs = [shlex.split(r) for r in runs if "pip install" in r]
    assert installs and all(argv[:4] == ["python", "-m", "pip", "install"] for argv in installs)
    for argv in installs:
        specs = [a for a in argv[4:] if not a.startswith("-")]
        assert specs and all(s.startswith(".[") for s in specs), "install from the checkout"
        for s in specs:
            assert set(re.findall(r"\[([\w,]+)\]", s)[0].split(",")) <= _extras()
    tests = [r for r in runs if "pytest" in r]
    assert len(tests) == 2
    from ltheory.testing.pytest_plugin import MARKER, parse_runs

    options = _plugin_options()
    documented = [line[2:] for lang, _, code in blocks(page) if lang == "console"
                  for line in code.splitlines() if line.startswith("$ ")]
    for cmd in tests:
        argv = shlex.split(cmd)
        assert argv[:3] == ["python", "-m", "pytest"]
        assert argv[argv.index("-m", 3) + 1] == MARKER
        flags = [a for a in argv if a.startswith("--")]
        assert flags and set(flags) <= options, f"{cmd}: not a plugin option"
        parse_runs(argv[argv.index("--ltheory-runs") + 1])
        concrete = re.sub(r"\$\{\{[^}]*\}\}", "7", cmd)
        assert concrete in documented, f"{concrete!r} is not run by the page"
    assert {"--ltheory-runs", "--ltheory-seed"} <= options


def _nav_files(node: object) -> list[str]:
    if isinstance(node, str):
        return [node] if node.endswith(".md") else []
    if isinstance(node, dict):
        return [f for v in node.values() for f in _nav_files(v)]
    if isinstance(node, list):
        return [f for v in node for f in _nav_files(v)]
    return []


def test_every_page_is_in_the_nav_and_every_nav_entry_exists() -> None:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = re.findall(r"^\s*-\s+(?:[^:\n]+:\s+)?([\w/.-]+\.md)\s*$", text, flags=re.M)
    assert sorted(nav) == PAGES


def test_api_reference_names_importable_objects() -> None:
    text = "".join(p.read_text(encoding="utf-8")
                   for p in sorted((DOCS / "reference" / "api").glob("*.md")))
    names = re.findall(r"^:::\s+([\w.]+)", text, flags=re.M)
    assert len(names) >= 15
    import pkgutil

    for name in names:
        assert pkgutil.resolve_name(name) is not None, name


def test_links_between_pages_resolve() -> None:
    for page in PAGES:
        text = (DOCS / page).read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+\.(?:md|png))(?:#[^)]*)?\)", text):
            if target.startswith("http"):
                continue
            path = (DOCS / page).parent / target
            if target.endswith(".png"):
                assert path.parent.name == "figures", f"{page}: pasted figure {target}"
                from_hook = path.name in _figure_names()
                assert from_hook, f"{page}: {target} is not drawn by docs/_hooks/figures.py"
            else:
                assert path.resolve().is_file(), f"{page}: broken link {target}"


def _figures_module():
    spec = importlib.util.spec_from_file_location("docs_figures",
                                                  DOCS / "_hooks" / "figures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _figure_names() -> set[str]:
    return set(_figures_module().FIGURES)


@pytest.mark.slow
def test_figures_are_drawn(tmp_path: Path) -> None:
    paths = _figures_module().draw(tmp_path)
    assert sorted(p.name for p in paths) == sorted(_figure_names())
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 10_000
