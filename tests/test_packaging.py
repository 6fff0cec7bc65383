"""Install extras, CI script and README front door (issue 32): what a new user's first
commands depend on."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
META = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
EXTRAS = META["optional-dependencies"]


def _names(reqs: list[str]) -> dict[str, str]:
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower(): r for r in reqs}


def _self_extras(reqs: list[str]) -> set[str]:
    out: set[str] = set()
    for r in reqs:
        m = re.fullmatch(r"ltheory\[([\w,]+)\]", r)
        if m:
            out |= set(m.group(1).split(","))
    return out


def test_strategies_and_plugin_need_no_extra() -> None:
    assert "hypothesis" in _names(META["dependencies"])
    assert "ltheory.testing.pytest_plugin" in (ROOT / "pyproject.toml").read_text("utf-8")


def test_extras_are_named_for_what_they_enable_with_compatible_pins() -> None:
    assert {"diffprivlib", "opendp", "dask", "docs", "test"} <= set(EXTRAS)
    dpl = _names(EXTRAS["diffprivlib"])
    assert "<1.8" in dpl["scikit-learn"]          # diffprivlib 0.6.6 fails to import with 1.8
    assert "opendp" in _names(EXTRAS["opendp"])
    assert "dask" in _names(EXTRAS["dask"])
    assert {"mkdocs", "mkdocs-material", "mkdocstrings"} <= set(_names(EXTRAS["docs"]))
    # the test extra gives CI (and the README's install command) every optional part
    assert {"diffprivlib", "opendp", "dask", "docs", "learners"} <= _self_extras(EXTRAS["test"])
    # the old names still install the same things
    assert _self_extras(EXTRAS["thirdparty"]) == {"diffprivlib", "opendp"}
    assert _self_extras(EXTRAS["distributed"]) == {"dask"}


def test_ci_runs_in_its_own_virtual_environment_and_builds_the_docs() -> None:
    lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
             if ln.strip() and not ln.lstrip().startswith("#")]
    venv = next(i for i, ln in enumerate(lines) if ln.startswith("python -m venv .ci-venv"))
    activate = lines.index("source .ci-venv/bin/activate")
    install = lines.index("pip install -e '.[test]' && ltheory demo")
    assert venv < activate < install < lines.index("python -m pytest")
    assert any(ln.startswith("mkdocs build --strict") for ln in lines)
    assert ".ci-venv/" in (ROOT / ".gitignore").read_text("utf-8")


def test_readme_is_a_front_door() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert "DESIGN.md" not in text and "../" not in text
    for link in re.findall(r"\]\(([^)]+)\)", text):
        assert link.startswith("http") or (ROOT / link).is_file(), link


def test_version_is_written_in_one_place() -> None:
    """The version is written in ``ltheory/_version.py`` only: pyproject.toml reads it there
    (``dynamic``, as the build backend resolves it), ``ltheory.__version__`` and
    ``ltheory --version`` show it.  (.ci/wheel-smoke checks the built wheel's metadata.)"""
    import subprocess
    import sys
    import warnings

    from setuptools.config.expand import read_attr

    import ltheory
    from ltheory._version import __version__

    assert "version" not in META and "version" in META["dynamic"]
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", __version__)
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    attr = tool["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "ltheory._version.__version__"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = read_attr(attr, root_dir=ROOT)     # as the build backend reads it
    out = subprocess.run([sys.executable, "-m", "ltheory.cli", "--version"], capture_output=True,
                         text=True, check=True, cwd=ROOT).stdout.strip()
    assert out == f"ltheory {ltheory.__version__}" == f"ltheory {built}" == f"ltheory {__version__}"
    # written nowhere else: a second copy would drift
    for path in [ROOT / "pyproject.toml", ROOT / "ltheory" / "__init__.py",
                 ROOT / "ltheory" / "cli" / "__init__.py", ROOT / "mkdocs.yml"]:
        assert __version__ not in path.read_text("utf-8"), path


def test_import_ltheory_stays_cheap() -> None:
    """``ltheory.__version__`` costs no heavy import (the pytest plugin imports ltheory)."""
    import subprocess
    import sys

    code = ("import sys, ltheory; ltheory.__version__; "
            "print(sorted(m for m in ('numpy', 'scipy', 'typer', 'importlib.metadata') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.strip()
    assert out == "[]", out


def test_install_page_lists_every_extra() -> None:
    text = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([\w-]+)` \|", text, flags=re.M))
    old_names = {"thirdparty", "distributed"}           # named in a sentence below the table
    assert rows == set(EXTRAS) - old_names, sorted(set(EXTRAS) ^ rows)
    assert all(f"`{name}`" in text for name in old_names)


def test_pytest_and_release_extras() -> None:
    """pytest is not a dependency (the plugin costs nothing without it) but an extra; the
    release tools are an extra, never runtime dependencies."""
    assert "pytest" not in _names(META["dependencies"])
    assert set(_names(EXTRAS["pytest"])) == {"pytest"}
    assert {"build", "twine"} <= set(_names(EXTRAS["release"]))
    assert not {"build", "twine"} & set(_names(META["dependencies"]))
    assert "release" in _self_extras(EXTRAS["dev"])


def test_install_instructions_name_no_package_index() -> None:
    """ltheory is on no index yet: no page tells users to ``pip install ltheory`` (or an extra
    of it) as if one served it."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        bad = [line for line in text.splitlines() if "does not work" not in line
               and re.search(r"pip install '?ltheory\b(?![-\w.])", line)]
        assert not bad, f"{page.relative_to(ROOT)}: {bad}"


def test_ci_builds_and_checks_the_release_files() -> None:
    """.ci/run installs the release extra, then .ci/wheel-smoke builds the sdist and the wheel,
    runs ``twine check`` on both and installs each into a fresh environment."""
    run = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
           if ln.strip() and not ln.lstrip().startswith("#")]
    assert run.index("pip install -e '.[release]'") < run.index("bash .ci/wheel-smoke")
    smoke = (ROOT / ".ci" / "wheel-smoke").read_text("utf-8")
    build = smoke.index("python -m build --outdir")
    assert build < smoke.index("python -m twine check --strict") < smoke.index(
        'pip install --quiet "$wheel"') < smoke.index('pip install --quiet "$sdist"')
    assert "--sdist" not in smoke and "--wheel" not in smoke   # both, the wheel from the sdist
    manifest = (ROOT / "MANIFEST.in").read_text("utf-8")
    assert "include CHANGELOG.md" in manifest
