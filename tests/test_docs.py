"""The documentation site's pages run as written (docs/, built by ``mkdocs build --strict``).

Conventions of the pages, enforced here:

* ```` ```python ```` blocks of a page run in order, in one namespace, in a fresh folder;
  a block with a title (```` ```python title="test_mine.py" ````) is written to that file instead
  (a test module the page then runs with pytest);
* ```` ```console ```` blocks: each ``$ command`` line runs (``ltheory …`` as
  ``python -m ltheory.cli …`` on this checkout, ``pytest …`` / ``python -m pytest …``; ``pip
  install`` lines are checked to name extras that exist, not run); a trailing ``# exit N`` is
  the exit code expected (default 0); other lines are the output shown and are not compared;
* ```` ```json ```` blocks must parse; ```` ```text ```` blocks are output or grammar, not run;
  any other fence is an error (say what the block is).
"""

from __future__ import annotations

import importlib.util
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
FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```\s*$", flags=re.M | re.S)
KNOWN = {"python", "console", "json", "text"}
#: pages whose code takes more than a few seconds: run with the slow tests (CI)
SLOW = {"privacy/audit.md", "ci/index.md", "ci/failures.md"}


def blocks(page: str) -> list[tuple[str, str, str]]:
    """(language, attributes, code) of every fenced block of a page."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return [(m.group(1), m.group(2).strip(), m.group(3)) for m in FENCE.finditer(text)]


def _env() -> dict[str, str]:
    return {**os.environ, "MPLBACKEND": "Agg", "COLUMNS": "100",
            "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get(
                "PYTHONPATH")])])}


def _extras() -> set[str]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(meta["project"]["optional-dependencies"])


def run_console(code: str, cwd: Path) -> None:
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


def run_page(page: str, cwd: Path) -> None:
    namespace: dict = {"__name__": "__docs__"}
    old = Path.cwd()
    os.chdir(cwd)
    sys.path.insert(0, str(cwd))             # the page's own modules (title="mylib.py")
    before = set(sys.modules)
    try:
        for i, (lang, attrs, code) in enumerate(blocks(page)):
            assert lang in KNOWN, f"{page}: block {i} has fence {lang!r}; use one of {KNOWN}"
            title = re.search(r'title="([^"]+)"', attrs)
            if lang == "python" and title:
                (cwd / title.group(1)).write_text(code, encoding="utf-8")
            elif lang == "python":
                exec(compile(code, f"{page} block {i}", "exec"), namespace)  # noqa: S102
            elif lang == "console":
                run_console(code, cwd)
            elif lang == "json":
                json.loads(code)
    finally:
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
