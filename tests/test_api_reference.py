"""The API reference (docs/reference/api/*.md) covers the public API, and the docstrings it is
generated from render and run: no Sphinx roles (they showed as raw text), every ``>>>`` example
passes, and the pages are what ``docs/_hooks/api_pages.py`` writes (issue 43)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "reference" / "api"

#: the modules whose ``__all__`` is the public API; every name must have an entry
PUBLIC = ["ltheory", "ltheory.privacy", "ltheory.testing", "ltheory.privacy.mechanisms",
          "ltheory.privacy.adapters", "ltheory.privacy.learners", "ltheory.privacy.zoo",
          "ltheory.strategies", "ltheory.tables", "ltheory.catalog", "ltheory.graphs",
          "ltheory.core", "ltheory.validation", "proofs_check"]


def _generator():
    spec = importlib.util.spec_from_file_location("api_pages", ROOT / "docs/_hooks/api_pages.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["api_pages"] = mod                  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def _entries() -> dict[str, str]:
    """Every ``:::`` identifier of the API pages -> the page that holds it."""
    out = {}
    for page in sorted(API.glob("*.md")):
        for name in re.findall(r"^:::\s+([\w.]+)", page.read_text(encoding="utf-8"), flags=re.M):
            assert name not in out, f"{name} has two entries ({out[name]}, {page.name})"
            out[name] = page.name
    return out


def _key(obj: object) -> object:
    """What identifies a documented object: itself for classes, functions and modules; for a
    constant (an int, a dict…) its value's identity is not stable, so the name decides."""
    return obj if callable(obj) or isinstance(obj, type(importlib)) else None


def test_every_public_name_has_an_entry() -> None:
    entries = _entries()
    documented_objects = set()
    documented_names = set(entries)
    for name in entries:
        obj = pkgutil.resolve_name(name)
        if _key(obj) is not None:
            documented_objects.add(id(obj))
    missing = []
    for modname in PUBLIC:
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if f"{modname}.{name}" in documented_names:
                continue
            if _key(obj) is not None and id(obj) in documented_objects:
                continue
            missing.append(f"{modname}.{name}")
    assert not missing, f"no entry in docs/reference/api/ for: {', '.join(missing)}"


def test_entries_use_public_paths() -> None:
    """An entry names the object where users import it, never a private module path."""
    for name, page in _entries().items():
        parent, _, leaf = name.rpartition(".")
        if parent in PUBLIC:
            assert leaf in importlib.import_module(parent).__all__ or \
                isinstance(pkgutil.resolve_name(name), type(importlib)), (page, name)
        else:          # a module, or a name of a module that has no __all__ (errors, progress)
            assert parent in ("ltheory.errors", "ltheory.progress", "ltheory.privacy.auditing") \
                or isinstance(pkgutil.resolve_name(name), type(importlib)), (page, name)


def test_pages_are_what_the_generator_writes() -> None:
    gen = _generator()
    for page in gen.pages():
        text = (API / page.file).read_text(encoding="utf-8")
        assert text == gen.render(page), (
            f"docs/reference/api/{page.file} is stale: run python docs/_hooks/api_pages.py")
    assert sorted(p.file for p in gen.pages()) == sorted(p.name for p in API.glob("*.md"))


def test_pages_are_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in API.glob("*.md"):
        assert f"reference/api/{page.name}" in nav, page.name


def test_lazy_packages_list_what_they_export() -> None:
    """The packages that import on first use keep ``__all__`` literal (for linters and the
    reference) and equal to what ``__getattr__`` serves."""
    testing = importlib.import_module("ltheory.testing")
    assert sorted(testing.__all__) == sorted(testing._EXPORTS)
    adapters = importlib.import_module("ltheory.privacy.adapters")
    assert sorted(adapters.__all__) == sorted(adapters._EXPORTS)
    learners = importlib.import_module("ltheory.privacy.learners")
    assert set(learners._LEARNERS) <= set(learners.__all__)
    for modname in PUBLIC:
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            assert getattr(mod, name) is not None, f"{modname}.{name}"


# --------------------------------------------------------------------------- docstrings
ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj|const|py:\w+):`")


def _sources() -> list[Path]:
    return sorted([*(ROOT / "ltheory").rglob("*.py"), *(ROOT / "proofs_check").rglob("*.py")])


def test_no_sphinx_role_in_the_package() -> None:
    """Docstrings are Markdown rendered by mkdocstrings: cross-references are written
    ``[`AuditConfig`][ltheory.privacy.AuditConfig]`` (the path of the documented entry) or
    plain backticks; a Sphinx role (``:class:`…```) would show as raw text."""
    found = [f"{p.relative_to(ROOT)}:{i}" for p in _sources()
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if ROLE.search(line)]
    assert not found, f"Sphinx roles in: {', '.join(found)}"


def test_no_reference_to_a_file_the_package_does_not_ship() -> None:
    """DESIGN.md is not shipped: its formats are documented in docs/reference/formats.md."""
    bad = [str(p.relative_to(ROOT)) for p in _sources()
           if "form of DESIGN.md" in p.read_text(encoding="utf-8")]
    assert not bad, bad


def _modules() -> list[str]:
    import ltheory
    import proofs_check

    out = []
    for pkg in (ltheory, proofs_check):
        out.append(pkg.__name__)
        out += [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")
                if not m.name.endswith("__main__")]
    return out


def test_every_docstring_example_runs() -> None:
    """Every ``>>>`` example of the package (in ``Examples:`` sections, rendered as code) passes;
    the whole set runs in a few seconds."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    failed, attempted = [], 0
    for name in _modules():
        try:
            mod = importlib.import_module(name)
        except ImportError as exc:          # an optional extra that is not installed
            if getattr(exc, "name", None) and not str(exc.name).startswith("ltheory"):
                continue
            raise
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        for test in finder.find(mod, name):
            if test.examples:
                runner.run(test, out=lambda s: None)
        failed += [name] * runner.failures
        attempted += runner.tries
    assert attempted >= 60
    assert not failed, f"failing examples in: {sorted(set(failed))}"


@pytest.mark.parametrize("path", [p for p in _sources() if ">>>" in p.read_text("utf-8")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_sit_in_an_examples_section(path: Path) -> None:
    """A ``>>>`` line at the indentation of its docstring's prose renders as a Markdown quote;
    under ``Examples:`` (google style) it renders as code."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith(">>>"):
            indent = len(line) - len(line.lstrip())
            header = next((lines[j] for j in range(i - 1, -1, -1)
                           if lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) < indent),
                          "")
            assert header.strip() == "Examples:", f"{path.name}:{i + 1} is not under Examples:"
