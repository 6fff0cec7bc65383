"""The import layers of DESIGN.md: every import points down (or stays inside its own package),
and the exact path on an explicit class runs without python-sat."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: rank of each top-level unit; a module may import only units of lower rank, or its own unit
RANKS = [
    ("ltheory._version", -2), ("ltheory.errors", -2),
    ("ltheory.plotting", -1), ("ltheory.jsonable", -1), ("ltheory.validation", -1),
    ("ltheory.progress", -1), ("ltheory.monotone", -1), ("ltheory.blas", -1),
    ("ltheory.core", 0),
    ("ltheory.dims", 1),
    ("ltheory.sat", 2),
    ("ltheory.dimensions", 3),
    ("ltheory.catalog", 4), ("ltheory.graphs", 4),
    ("ltheory.privacy", 5), ("ltheory.strategies", 5), ("ltheory.tables", 5),
    ("ltheory.testing", 6), ("proofs_check", 6),
    ("ltheory.cli", 7),
    ("ltheory", 8),
]


def _unit(module: str) -> tuple[str, int]:
    for name, rank in RANKS:
        if module == name or module.startswith(name + "."):
            return name, rank
    raise AssertionError(f"module {module} belongs to no layer of DESIGN.md")


def _modules() -> list[tuple[str, Path]]:
    out = []
    for top in ("ltheory", "proofs_check"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out.append((".".join(parts), path))
    return out


def _imports(module: str, path: Path) -> list[tuple[str, int]]:
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if is_pkg else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join(pkg + ([base] if base else []))
            for a in node.names:  # "from ltheory import catalog" imports ltheory.catalog
                out.append((f"{base}.{a.name}" if base in ("ltheory", "proofs_check")
                            else base, node.lineno))
    return [(m, ln) for m, ln in out if m.split(".")[0] in ("ltheory", "proofs_check")]


@pytest.mark.parametrize("module,path", _modules(), ids=[m for m, _ in _modules()])
def test_imports_point_down(module: str, path: Path) -> None:
    if module == "ltheory":          # the package itself re-exports the public API
        return
    unit, rank = _unit(module)
    for target, line in _imports(module, path):
        t_unit, t_rank = _unit(target)
        if t_unit == unit:
            continue
        assert t_rank < rank, (f"{path.relative_to(ROOT)}:{line} imports {target} "
                               f"(layer {t_rank}) from layer {rank}")


def test_no_library_module_imports_the_cli() -> None:
    for module, path in _modules():
        if module.startswith("ltheory.cli") or module == "ltheory":
            continue
        assert not any(t.startswith("ltheory.cli") for t, _ in _imports(module, path)), module


def test_exact_path_runs_without_python_sat() -> None:
    code = """
import sys
sys.modules["pysat"] = None          # python-sat is not installed
import ltheory
from ltheory import catalog
H = catalog.family("intervals", n=6)
for key, dim in ltheory.DIMENSIONS.items():
    r = dim.compute(H, method="exact")
    ltheory.verify(H, r)
    print(key, r.value)
try:
    ltheory.vc_dimension(H, method="sat")
except ltheory.InvalidInputError as exc:
    print("sat:", exc)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:3] == ["vc 2", "ldim 4", "tdim 6"]
    assert "python-sat" in proc.stdout


def test_one_json_conversion_for_every_record() -> None:
    """``ltheory.jsonable.to_jsonable`` is the package's only JSON conversion (it was written
    three times): numpy scalars and arrays, non-finite floats, fractions, nested containers."""
    import json
    import math
    from fractions import Fraction

    import numpy as np

    from ltheory.jsonable import to_jsonable

    v = to_jsonable({"a": np.int64(3), 1: [np.float32(0.5), float("inf"), -math.inf,
                                          float("nan")], "f": Fraction(1, 3), "g": Fraction(4, 2),
                     "arr": np.array([[1, 0], [0, 1]], dtype=np.uint8), "b": np.bool_(True),
                     "t": (None, "x"), "o": object})
    assert v == {"a": 3, "1": [0.5, "inf", "-inf", "nan"], "f": "1/3", "g": 2,
                 "arr": [[1, 0], [0, 1]], "b": True, "t": [None, "x"], "o": str(object)}
    json.dumps(v, allow_nan=False)


def _private_imports(module: str, path: Path, source: str | None = None) -> list[str]:
    """The private names (``_x``; dunders and ``__future__`` allowed) this module takes from
    another module of the package, as qualified names ``package.module._x``: by
    ``from m import _x`` and by ``m._x`` on an imported module or name."""
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)

    def private(name: str) -> bool:
        return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))

    bound: dict[str, str] = {}          # local name -> the package module or member it names
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if is_pkg else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join(pkg + ([base] if base else []))
            if base.split(".")[0] not in ("ltheory", "proofs_check") or base == module:
                continue
            for a in node.names:
                if private(a.name):
                    out.append(f"{base}.{a.name}")
                bound[a.asname or a.name] = f"{base}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in ("ltheory", "proofs_check") and a.name != module:
                    bound[a.asname or a.name.split(".")[0]] = a.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in bound and private(node.attr)):
            out.append(f"{bound[node.value.id]}.{node.attr}")
    return out


@pytest.mark.parametrize("module,path", _modules(), ids=[m for m, _ in _modules()])
def test_no_module_imports_another_modules_private_names(module: str, path: Path) -> None:
    """DESIGN.md, "The auditor": stages are shared through public functions; no module of the
    package uses another module's underscore names (``audit_curve`` once took seven of
    ``core``'s).  Every module of ``ltheory`` and ``proofs_check`` is clean."""
    found = set(_private_imports(module, path))
    assert not found, f"{path.relative_to(ROOT)}: {found}"


def test_the_private_import_check_sees_both_forms() -> None:
    src = ("from __future__ import annotations\nfrom ltheory.privacy.auditing.core import "
           "_Runner, __all__\nfrom ltheory.privacy.auditing import core\ncore._seed(0)\n"
           "from . import _x\nfrom ._y import public\n")
    path = ROOT / "ltheory" / "privacy" / "auditing" / "probe.py"      # never read: source given
    assert _private_imports("ltheory.privacy.auditing.probe", path, src) == [
        "ltheory.privacy.auditing.core._Runner", "ltheory.privacy.auditing._x",
        "ltheory.privacy.auditing.core._seed"]


def test_no_import_cycle_among_proofs_check_modules() -> None:
    """The modules of proofs_check import each other without a circle (function-level imports
    count too): e.g. coverage owns the statuses and the papers' titles, report imports them
    (issue 41: the two used to import each other)."""
    mods = {m: p for m, p in _modules() if m.startswith("proofs_check.")}
    graph = {m: {t for t, _ in _imports(m, p) if t in mods and t != m} for m, p in mods.items()}
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path + [m, t]))
            if t not in state:
                visit(t, path + [m])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    assert "proofs_check.report" not in graph["proofs_check.coverage"]


#: what the mechanisms package (DESIGN.md: ``privacy/mechanisms/``, every mechanism, one public
#: path per name) may import from inside ``ltheory.privacy``: the claims and itself.  The
#: auditor, the zoo, the learners and the adapters sit above it and import it.
MECHANISMS_MAY_IMPORT = ("ltheory.privacy.claims", "ltheory.privacy.mechanisms")


def test_mechanisms_package_sits_below_the_auditor() -> None:
    for module, path in _modules():
        if not module.startswith("ltheory.privacy.mechanisms"):
            continue
        for target, line in _imports(module, path):
            if target.startswith("ltheory.privacy") and target != "ltheory.privacy":
                assert target.startswith(MECHANISMS_MAY_IMPORT), (
                    f"{path.relative_to(ROOT)}:{line} imports {target}")
            assert target != "ltheory.privacy", f"{path.relative_to(ROOT)}:{line}"


def test_every_mechanism_has_one_public_path() -> None:
    """The mechanisms live in ``ltheory.privacy.mechanisms`` (a package), not in modules at the
    top of ``ltheory.privacy`` (issue 43): the old modules are gone, not shims, and every public
    name of a submodule is re-exported by the package under the same object."""
    import importlib

    import ltheory.privacy.mechanisms as mechanisms

    for old in ("statdp_mechanisms", "gaussian", "discrete_gaussian", "dpsgd"):
        assert not (ROOT / "ltheory" / "privacy" / f"{old}.py").exists(), old
    subs = [m for m, _ in _modules() if m.startswith("ltheory.privacy.mechanisms.")]
    assert subs
    for sub in subs:
        mod = importlib.import_module(sub)
        for name in mod.__all__:
            assert name in mechanisms.__all__, f"{sub}.{name} is not re-exported"
            assert getattr(mechanisms, name) is getattr(mod, name), name
    zoo = importlib.import_module("ltheory.privacy.zoo")      # a registry of entries, no mechanisms
    assert not set(zoo.__all__) & set(mechanisms.__all__)
