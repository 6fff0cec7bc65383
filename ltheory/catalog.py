"""Named families of finite concept classes, with their known dimensions and citations.

A *family* is a parametrised construction of a finite :class:`~ltheory.core.HypothesisClass`
(thresholds on [n], conjunctions on {0,1}^n, halfspaces on a grid, ...).  The data of every
family -- its summary, what its domain points are and how they are labelled, its parameters
(type, default, range) and the values of its VC, Littlestone and threshold dimensions known from
the literature -- lives in ``catalog/<family>.toml`` at the top of the repository; the builders
live here.

API::

    family("thresholds", n=64)                  -> HypothesisClass  (name "thresholds n=64")
    from_spec("conjunctions n=4 k=2 monotone=true")  # or a path to a class file
    families()                                  -> ["affine", "conjunctions", ...]
    describe("thresholds")                      -> FamilyInfo
    known_values("thresholds", n=64)            -> {"vc": KnownValue(1, ...), "ldim": ..., ...}

Known values are stored as formulas in the parameters (``ldim = "floor(log2(n + 1))"``) with an
optional condition (``when = "n >= 1"``) and are evaluated by a small whitelisting evaluator over
Python's :mod:`ast` (numbers, parameter names, ``+ - * / // % **``, comparisons, ``and or not``,
``min max floor ceil log2 comb``) -- never :func:`eval`.  Keys are ``vc``, ``ldim``, ``tdim`` for
exact values and ``vc_lower``, ``ldim_upper``, ... for bounds.  Dimensions use the definitions of
DESIGN.md: VC = largest shattered set; Littlestone = depth of the deepest complete mistake tree
shattered (Littlestone 1988); threshold dimension T = largest k with points x_1..x_k and
hypotheses h_1..h_k, h_i(x_j) = 1 iff i <= j (Shelah 1978; Alon, Livni, Malliaris, Moran 2019).
The empty class has all dimensions -1; a class with one hypothesis has all dimensions 0.

Size limit: a family refuses to build a class whose 0/1 matrix would have more than
``MAX_CELLS`` = 2^22 cells (|H| x |X|), checked before building from the size formula where the
size is known in closed form, and while building otherwise; each family's TOML also bounds its
parameters (``max``) so that construction stays within a few seconds.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ltheory.core import HypothesisClass, load_class
from ltheory.errors import InvalidInputError, UnknownFamilyError

__all__ = [
    "CATALOG_DIR",
    "MAX_CELLS",
    "FamilyInfo",
    "KnownValue",
    "KnownValueSpec",
    "ParamInfo",
    "describe",
    "evaluate_formula",
    "families",
    "family",
    "from_spec",
    "known_values",
    "parse_spec",
    "planted_points",
]

CATALOG_DIR = Path(__file__).resolve().parent.parent / "catalog"
MAX_CELLS = 1 << 22
"""Largest number of matrix cells (hypotheses x domain points) a family will build."""

DIM_KEYS = ("vc", "ldim", "tdim")
KNOWN_KEYS = tuple(k + s for k in DIM_KEYS for s in ("", "_lower", "_upper"))
_PARAM_TYPES = ("int", "float", "bool", "str")


# ====================================================================== data classes
@dataclass(frozen=True)
class ParamInfo:
    """A family parameter: name, type ("int" | "float" | "bool" | "str"), default, range."""

    name: str
    type: str
    default: Any = None
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] | None = None
    doc: str = ""

    @property
    def required(self) -> bool:
        return self.default is None

    def accepted(self) -> str:
        """A short description of the accepted values, for error messages."""
        if self.type == "bool":
            return "true or false"
        if self.type == "str":
            return "one of " + ", ".join(self.choices or ())
        lo = "" if self.min is None else f"{self.min} <= "
        hi = "" if self.max is None else f" <= {self.max}"
        return f"{'an integer' if self.type == 'int' else 'a number'} {lo}{self.name}{hi}".strip()


@dataclass(frozen=True)
class KnownValueSpec:
    """A known value as stored in the TOML: a formula, its condition, and its source."""

    key: str
    formula: str
    citation: str
    when: str | None = None
    note: str | None = None
    disagreement: str | None = None


@dataclass(frozen=True)
class KnownValue:
    """A literature value evaluated at given parameters.

    ``key`` is ``vc``/``ldim``/``tdim`` (exact value) or ``<dim>_lower``/``<dim>_upper`` (bound);
    ``disagreement`` is set when exact computation was found to contradict the published value.
    """

    value: int
    citation: str
    note: str | None = None
    key: str = ""
    formula: str = ""
    disagreement: str | None = None

    @property
    def dimension(self) -> str:
        return self.key.split("_")[0]

    @property
    def kind(self) -> str:
        """"value", "lower" or "upper"."""
        return self.key.split("_")[1] if "_" in self.key else "value"


@dataclass(frozen=True)
class FamilyInfo:
    """Everything the catalog knows about a family (from ``catalog/<name>.toml``)."""

    name: str
    summary: str
    domain: str
    parameters: tuple[ParamInfo, ...]
    size: str | None = None
    size_note: str | None = None
    method: str | None = None
    limits: str | None = None
    known: tuple[KnownValueSpec, ...] = field(default_factory=tuple)
    examples: tuple[str, ...] = field(default_factory=tuple)

    def param(self, name: str) -> ParamInfo:
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(name)


# ====================================================================== safe formulas
def _gbinom(n: int, k: int, q: int) -> int:
    """Gaussian binomial [n choose k]_q: the number of k-dimensional subspaces of F_q^n."""
    if k < 0 or k > n:
        return 0
    num = den = 1
    for i in range(k):
        num *= q ** (n - i) - 1
        den *= q ** (i + 1) - 1
    return num // den


def _binsum(n: int, k: int, base: int = 1) -> int:
    """sum_{j=0}^{min(k, n)} comb(n, j) * base^j."""
    return sum(math.comb(n, j) * base**j for j in range(min(k, n) + 1))


def _affine_count(p: int, n: int, lo: int, hi: int) -> int:
    """Number of affine subspaces of F_p^n of dimension lo..hi: sum p^(n-j) [n choose j]_p."""
    return sum(p ** (n - j) * _gbinom(n, j, p) for j in range(max(lo, 0), min(hi, n) + 1))


_FUNCS: dict[str, Callable[..., Any]] = {
    "gbinom": _gbinom,
    "binsum": _binsum,
    "affine_count": _affine_count,
    "min": min,
    "max": max,
    "floor": math.floor,
    "ceil": math.ceil,
    "log2": math.log2,
    "comb": math.comb,
}
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def evaluate_formula(formula: str, names: Mapping[str, Any]) -> Any:
    """Evaluate a formula of the catalog safely (an :mod:`ast` whitelist, never ``eval``).

    Allowed: int/float/bool literals, the given ``names`` (bools count as 0/1), ``+ - * / // %
    **`` (exponent at most 4096), unary ``- + not``, comparisons, ``and``/``or``, conditional
    expressions ``a if c else b``, and calls of ``min max floor ceil log2 comb`` and of
    ``binsum(n, k, base)`` = sum_{j<=k} comb(n, j) base^j, ``gbinom(n, k, q)`` (Gaussian binomial)
    and ``affine_count(p, n, lo, hi)`` (number of affine subspaces of F_p^n of dimension lo..hi).
    ``floor(log2(m))`` and ``ceil(log2(m))`` are computed exactly for integers m >= 1.
    """
    if not isinstance(formula, str) or len(formula) > 500:
        raise InvalidInputError("a catalog formula must be a string of at most 500 characters")
    try:
        tree = ast.parse(formula.strip(), mode="eval")
    except SyntaxError as exc:
        raise InvalidInputError(f"cannot parse catalog formula {formula!r}: {exc.msg}") from exc
    return _eval_node(tree.body, names, formula)


def _int_log2(node: ast.AST, names: Mapping[str, Any], formula: str, fn: str) -> int | None:
    """Exact floor/ceil of log2 of an integer argument; None when not applicable."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "log2" \
            and len(node.args) == 1 and not node.keywords:
        x = _eval_node(node.args[0], names, formula)
        if isinstance(x, int) and x >= 1:
            return x.bit_length() - 1 if fn == "floor" else (x - 1).bit_length()
    return None


def _eval_node(node: ast.AST, names: Mapping[str, Any], formula: str) -> Any:
    bad = InvalidInputError
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (bool, int, float)):
            return node.value
        raise bad(f"formula {formula!r}: only numeric constants are allowed")
    if isinstance(node, ast.Name):
        if node.id in ("true", "false"):
            return node.id == "true"
        if node.id not in names:
            raise bad(f"formula {formula!r}: unknown name {node.id!r} "
                      f"(allowed: {', '.join(sorted(names)) or 'none'})")
        v = names[node.id]
        if isinstance(v, str):
            return v
        return int(v) if isinstance(v, bool) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a = _eval_node(node.left, names, formula)
        b = _eval_node(node.right, names, formula)
        if isinstance(node.op, ast.Pow) and (not isinstance(b, (int, float)) or abs(b) > 4096):
            raise bad(f"formula {formula!r}: exponent too large")
        try:
            return _BINOPS[type(node.op)](a, b)
        except (ZeroDivisionError, TypeError, OverflowError) as exc:
            raise bad(f"formula {formula!r}: {exc}") from exc
    if isinstance(node, ast.UnaryOp):
        v = _eval_node(node.operand, names, formula)
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return +v
        if isinstance(node.op, ast.Not):
            return not v
    if isinstance(node, ast.BoolOp):
        vals = [_eval_node(v, names, formula) for v in node.values]
        return all(vals) if isinstance(node.op, ast.And) else any(vals)
    if isinstance(node, ast.Compare) and all(type(o) in _CMPOPS for o in node.ops):
        left = _eval_node(node.left, names, formula)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = _eval_node(comp, names, formula)
            if not _CMPOPS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        if _eval_node(node.test, names, formula):
            return _eval_node(node.body, names, formula)
        return _eval_node(node.orelse, names, formula)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in _FUNCS and not node.keywords:
        fn = node.func.id
        if fn in ("floor", "ceil") and len(node.args) == 1:
            exact = _int_log2(node.args[0], names, formula, fn)
            if exact is not None:
                return exact
        args = [_eval_node(a, names, formula) for a in node.args]
        try:
            return _FUNCS[fn](*args)
        except (TypeError, ValueError, OverflowError) as exc:
            raise bad(f"formula {formula!r}: {fn}{tuple(args)} failed: {exc}") from exc
    raise bad(f"formula {formula!r}: {type(node).__name__} is not allowed in catalog formulas")


# ====================================================================== loading the TOML data
def _load_info(path: Path) -> FamilyInfo:
    with path.open("rb") as fh:
        doc = tomllib.load(fh)
    fam = doc.get("family", {})
    name = fam.get("name", path.stem)
    params = []
    for pname, p in doc.get("params", {}).items():
        ptype = p.get("type")
        if ptype not in _PARAM_TYPES:
            raise InvalidInputError(f"{path.name}: parameter {pname!r} has unknown type {ptype!r}")
        choices = tuple(p["choices"]) if "choices" in p else None
        params.append(ParamInfo(pname, ptype, p.get("default"), p.get("min"), p.get("max"),
                                choices, p.get("doc", "")))
    known = []
    for entry in doc.get("known", []):
        keys = [k for k in entry if k in KNOWN_KEYS]
        if len(keys) != 1:
            raise InvalidInputError(f"{path.name}: each [[known]] entry needs exactly one of "
                                    f"{', '.join(KNOWN_KEYS)}")
        if not entry.get("citation"):
            raise InvalidInputError(f"{path.name}: [[known]] {keys[0]} has no citation")
        known.append(KnownValueSpec(keys[0], str(entry[keys[0]]), entry["citation"],
                                    entry.get("when"), entry.get("note"),
                                    entry.get("disagreement")))
    return FamilyInfo(name=name, summary=fam.get("summary", ""), domain=fam.get("domain", ""),
                      parameters=tuple(params), size=fam.get("size"),
                      size_note=fam.get("size_note"), method=fam.get("method"),
                      limits=fam.get("limits"), known=tuple(known),
                      examples=tuple(fam.get("examples", ())))


@lru_cache(maxsize=1)
def _registry() -> dict[str, FamilyInfo]:
    if not CATALOG_DIR.is_dir():  # pragma: no cover - broken installation
        raise UnknownFamilyError(f"catalog data folder not found at {CATALOG_DIR}")
    infos = {}
    for path in sorted(CATALOG_DIR.glob("*.toml")):
        info = _load_info(path)
        if info.name in _BUILDERS:
            infos[info.name] = info
    return infos


def families() -> list[str]:
    """The names of all catalog families, sorted."""
    return sorted(_registry())


def describe(name: str) -> FamilyInfo:
    """The :class:`FamilyInfo` of a family (summary, domain, parameters, known values)."""
    reg = _registry()
    if name not in reg:
        raise UnknownFamilyError(f"unknown family {name!r}; known families: "
                                 f"{', '.join(sorted(reg))}")
    return reg[name]


# ====================================================================== parameters
def _check_params(info: FamilyInfo, params: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``params`` against the family's declaration; fill in defaults."""
    declared = {p.name: p for p in info.parameters}
    unknown = [k for k in params if k not in declared]
    if unknown:
        accepted = ", ".join(declared) or "none"
        raise UnknownFamilyError(f"family {info.name!r} has no parameter {unknown[0]!r}; "
                                 f"parameters: {accepted}")
    out: dict[str, Any] = {}
    for p in info.parameters:
        if p.name not in params or params[p.name] is None:
            if p.required:
                raise InvalidInputError(f"family {info.name!r} needs parameter {p.name!r} "
                                        f"({p.accepted()})")
            default = p.default
            if p.type in ("int", "float") and isinstance(default, str):
                default = evaluate_formula(default, out)  # e.g. k defaults to "n"
            out[p.name] = default
            continue
        v = params[p.name]
        if p.type == "int":
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise InvalidInputError(f"{info.name}: parameter {p.name!r} must be an integer, "
                                        f"got {v!r}")
            v = int(v)
        elif p.type == "float":
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise InvalidInputError(f"{info.name}: parameter {p.name!r} must be a number, "
                                        f"got {v!r}")
            v = float(v)
            if not math.isfinite(v):
                raise InvalidInputError(f"{info.name}: parameter {p.name!r} must be finite")
        elif p.type == "bool":
            if not isinstance(v, (bool, np.bool_)):
                raise InvalidInputError(f"{info.name}: parameter {p.name!r} must be true or "
                                        f"false, got {v!r}")
            v = bool(v)
        else:
            if not isinstance(v, str) or (p.choices and v not in p.choices):
                raise InvalidInputError(f"{info.name}: parameter {p.name!r} must be "
                                        f"{p.accepted()}, got {v!r}")
        if p.type in ("int", "float"):
            if (p.min is not None and v < p.min) or (p.max is not None and v > p.max):
                raise InvalidInputError(f"{info.name}: parameter {p.name!r} = {v} is out of "
                                        f"range; accepted: {p.accepted()}")
        out[p.name] = v
    return out


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _class_name(name: str, params: Mapping[str, Any]) -> str:
    return " ".join([name] + [f"{k}={_fmt(v)}" for k, v in params.items()])


def _check_cells(name: str, size: int, points: int) -> None:
    if size * max(points, 1) > MAX_CELLS:
        raise InvalidInputError(
            f"{name}: the class would have {size} hypotheses on {points} points "
            f"({size * points} matrix cells); the catalog builds at most {MAX_CELLS} "
            "(2^22) cells -- choose smaller parameters")


# ====================================================================== public entry points
def family(name: str, **params: Any) -> HypothesisClass:
    """Build the class of family ``name`` at ``params`` (defaults from the family's TOML).

    The class's ``name`` is the family with its full parameter list, e.g. "thresholds n=64".
    Raises :class:`UnknownFamilyError` for an unknown family or parameter and
    :class:`InvalidInputError` for a value of the wrong type, out of range, or too large.
    """
    info = describe(name)
    values = _check_params(info, params)
    validate = _VALIDATORS.get(name)
    if validate is not None:
        validate(values)
    if info.size is not None:
        size = int(evaluate_formula(info.size, values))
        _check_cells(name, size, _domain_size(name, values))
    H = _BUILDERS[name](**values)
    return H.with_name(_class_name(name, values))


def known_values(name: str, **params: Any) -> dict[str, KnownValue]:
    """The literature values of family ``name`` that apply at ``params``.

    Keys are ``vc``, ``ldim``, ``tdim`` (exact values) and ``<dim>_lower`` / ``<dim>_upper``
    (bounds); when several entries of the same key apply the first listed in the TOML wins.
    """
    info = describe(name)
    values = _check_params(info, params)
    validate = _VALIDATORS.get(name)
    if validate is not None:
        validate(values)
    out: dict[str, KnownValue] = {}
    for spec in info.known:
        if spec.key in out:
            continue
        if spec.when is not None and not evaluate_formula(spec.when, values):
            continue
        v = evaluate_formula(spec.formula, values)
        if isinstance(v, float):
            if not v.is_integer():
                raise InvalidInputError(f"{name}: known value {spec.key} = {spec.formula!r} is not "
                                        f"an integer at {values}")
            v = int(v)
        out[spec.key] = KnownValue(int(v), spec.citation, spec.note, spec.key, spec.formula,
                                   spec.disagreement)
    return out


_TOKEN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_INT = re.compile(r"^[+-]?\d{1,18}$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d{1,3})?$")
_WORD = re.compile(r"^[A-Za-z0-9_.:+-]{1,32}$")


def _parse_value(text: str, key: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if _WORD.match(text):
        return text
    raise InvalidInputError(f"parameter {key!r}: cannot read value {text!r}; accepted: an "
                            "integer, a number, true/false, or a short word (letters, digits, _)")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a family SPEC such as ``"conjunctions n=4 k=2 monotone=true"`` into name and params.

    Values are read by a restricted parser: integers, decimal numbers, true/false, short words.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidInputError("empty SPEC; expected a family with parameters (e.g. "
                                "'thresholds n=64') or a path to a class file")
    if len(spec) > 1000:
        raise InvalidInputError("SPEC is too long (at most 1000 characters)")
    name, *tokens = spec.split()
    params: dict[str, Any] = {}
    for tok in tokens:
        m = _TOKEN.match(tok)
        if m is None:
            raise InvalidInputError(f"cannot read {tok!r} in SPEC {spec!r}; parameters are "
                                    "written key=value, e.g. 'thresholds n=64'")
        key, text = m.groups()
        if key in params:
            raise InvalidInputError(f"parameter {key!r} is given twice in SPEC {spec!r}")
        params[key] = _parse_value(text, key)
    return name, params


def from_spec(spec: str | Path) -> HypothesisClass:
    """A class from a SPEC: a path to a class file, or a family with parameters as one string.

    ``from_spec("thresholds n=64")``, ``from_spec("random m=200 n=20 p=0.5 seed=3")``,
    ``from_spec("classes/my.json")``.  An existing file is always read as a class file; a SPEC
    whose first word is not a family but looks like a path (contains '/' or ends in '.json') is
    reported as a missing file.
    """
    if isinstance(spec, Path):
        return load_class(spec)
    if not isinstance(spec, str):
        raise InvalidInputError(f"SPEC must be a string, got {type(spec).__name__}")
    s = spec.strip()
    if s and len(s) < 4096 and Path(s).is_file():
        return load_class(s)
    name, params = parse_spec(s)
    if name not in _registry():
        if "/" in s or "\\" in s or s.endswith(".json"):
            raise InvalidInputError(f"class file {s!r} does not exist")
        raise UnknownFamilyError(f"{name!r} is neither a catalog family nor a class file; "
                                 f"families: {', '.join(families())}")
    return family(name, **params)


# ====================================================================== domains
def _cube_labels(n: int) -> list[str]:
    """The points of {0,1}^n as strings "x_1...x_n", in lexicographic order (x_1 first)."""
    return ["".join(bits) for bits in itertools.product("01", repeat=n)]


def _cube(n: int) -> np.ndarray:
    """(2^n, n) uint8 array: row r is the point with label _cube_labels(n)[r]."""
    if n == 0:
        return np.zeros((1, 0), dtype=np.uint8)
    r = np.arange(1 << n)
    return ((r[:, None] >> np.arange(n - 1, -1, -1)[None, :]) & 1).astype(np.uint8)


def _domain_size(name: str, v: Mapping[str, Any]) -> int:
    if name in ("thresholds", "intervals", "points", "weight_at_most", "weight_at_least",
                "random", "planted"):
        return int(v["n"])
    if name == "halfspaces":
        return int(v["g"]) ** int(v["dim"])
    if name == "affine":
        return int(v["p"]) ** int(v["n"])
    return 1 << int(v["n"])


# ====================================================================== builders
def _thresholds(n: int) -> HypothesisClass:
    """h_t(x) = 1 iff x >= t on X = {0..n-1}, t = 0..n (t = n is the all-zero function)."""
    x = np.arange(n)
    mat = (x[None, :] >= np.arange(n + 1)[:, None]).astype(np.uint8)
    return HypothesisClass.from_matrix(mat, domain=n)


def _intervals(n: int, empty: bool) -> HypothesisClass:
    """Indicators of [a, b] = {x : a <= x <= b}, 0 <= a <= b < n; plus the empty set if asked."""
    x = np.arange(n)
    a, b = np.triu_indices(n)
    mat = ((x[None, :] >= a[:, None]) & (x[None, :] <= b[:, None])).astype(np.uint8)
    if empty:
        mat = np.vstack([np.zeros((1, n), dtype=np.uint8), mat])
    return HypothesisClass.from_matrix(mat, domain=n)


def _points(n: int, zero: bool) -> HypothesisClass:
    """Point functions h_a(x) = 1 iff x = a on {0..n-1}; plus the all-zero function if asked."""
    mat = np.eye(n, dtype=np.uint8)
    if zero:
        mat = np.vstack([np.zeros((1, n), dtype=np.uint8), mat])
    return HypothesisClass.from_matrix(mat, domain=n)


def _literal_terms(n: int, k: int, monotone: bool) -> list[tuple[tuple[int, int], ...]]:
    """All sets of at most k literals (i, sign) on distinct variables; sign 1 = x_i, 0 = not x_i."""
    terms: list[tuple[tuple[int, int], ...]] = []
    for size in range(min(k, n) + 1):
        for vars_ in itertools.combinations(range(n), size):
            signs = [(1,)] * size if monotone else [(0, 1)] * size
            for s in itertools.product(*signs):
                terms.append(tuple(zip(vars_, s, strict=True)))
    return terms


def _term_matrix(X: np.ndarray, terms: list[tuple[tuple[int, int], ...]]) -> np.ndarray:
    """Row j: the conjunction terms[j] evaluated on every row of X."""
    out = np.ones((len(terms), X.shape[0]), dtype=bool)
    for j, t in enumerate(terms):
        for i, s in t:
            out[j] &= X[:, i] == s
    return out


def _conjunctions(n: int, k: int, monotone: bool) -> HypothesisClass:
    """Conjunctions of at most k literals (no variable twice) on {0,1}^n; empty = constant 1."""
    X = _cube(n)
    mat = _term_matrix(X, _literal_terms(n, k, monotone))
    return HypothesisClass.from_matrix(mat, domain=_cube_labels(n))


def _disjunctions(n: int, k: int, monotone: bool) -> HypothesisClass:
    """Disjunctions of at most k literals (no variable twice) on {0,1}^n; empty = constant 0."""
    X = _cube(n)
    terms = _literal_terms(n, k, monotone)
    mat = np.zeros((len(terms), X.shape[0]), dtype=bool)
    for j, t in enumerate(terms):
        for i, s in t:
            mat[j] |= X[:, i] == s
    return HypothesisClass.from_matrix(mat, domain=_cube_labels(n))


def _parities(n: int) -> HypothesisClass:
    """chi_S(x) = XOR of x_i over i in S, for all 2^n subsets S of [n] (S empty = constant 0)."""
    X = _cube(n).astype(np.int64)
    S = _cube(n).astype(np.int64)
    mat = (S @ X.T) % 2
    return HypothesisClass.from_matrix(mat.astype(np.uint8), domain=_cube_labels(n))


def _decision_lists(n: int, k: int, monotone: bool) -> HypothesisClass:
    """k-decision lists (Rivest 1987) on {0,1}^n: the functions "if t_1 then b_1 elif t_2 ...
    else b_{r+1}" with each t_i a conjunction of at most k literals (only positive literals when
    ``monotone``), any length r >= 0.

    Exact enumeration of the distinct functions by dynamic programming over the set S of points
    not yet decided: F(S) = {0_S, 1_S} U {b on S∩t, then g : t a term, b a bit, g in F(S \\ t)}.
    Terms that decide no point of S are skipped (they do not change the function).
    """
    X = _cube(n)
    N = X.shape[0]
    terms = _term_matrix(X, _literal_terms(n, k, monotone))
    term_masks = sorted({sum(1 << int(i) for i in np.flatnonzero(row)) for row in terms} - {0})
    full = (1 << N) - 1
    memo: dict[int, frozenset[int]] = {}
    budget = MAX_CELLS // max(N, 1)

    def F(S: int) -> frozenset[int]:
        got = memo.get(S)
        if got is not None:
            return got
        out = {0, S}
        for t in term_masks:
            hit = S & t
            if not hit:
                continue
            for g in F(S & ~t):
                out.add(g)
                out.add(g | hit)
            if len(out) > budget:
                raise InvalidInputError(
                    f"decision_lists: n={n} k={k} has more than {budget} functions on "
                    f"{N} points, beyond the catalog's limit of {MAX_CELLS} cells")
        res = frozenset(out)
        memo[S] = res
        return res

    funcs = sorted(F(full))
    bits = np.array([[(f >> i) & 1 for i in range(N)] for f in funcs], dtype=np.uint8)
    return HypothesisClass.from_matrix(bits.reshape(len(funcs), N), domain=_cube_labels(n))


def _halfspaces(g: int, dim: int) -> HypothesisClass:
    """Strictly separable dichotomies of the grid {0..g-1}^dim: labellings y for which some
    (w, b) has w·x + b > 0 where y(x) = 1 and w·x + b < 0 where y(x) = 0 (all-0/all-1 included).

    Exact method: the points are added one at a time; a labelling of the first i+1 points is
    separable only if its restriction to the first i is, so each separable labelling of a prefix
    (with a separator (w, b) found for it) is extended by the label its separator gives the new
    point (no LP needed) and by the other label, tested by the LP feasibility problem
    y'(w·x + b) >= 1 for all points (y' = ±1; equivalent to strict separability by scaling),
    solved with scipy's HiGHS (``linprog(method="highs")``).  Every separator returned by the LP
    is re-checked in floating point with a margin of 1/2, so every listed dichotomy is certified.
    """
    from scipy.optimize import linprog

    pts = np.array(list(itertools.product(range(g), repeat=dim)), dtype=float).reshape(-1, dim)
    N = pts.shape[0]
    A = np.hstack([pts, np.ones((N, 1))])  # rows (x, 1): value w·x + b
    budget = MAX_CELLS // max(N, 1)

    def separate(idx: int, labels: list[int]) -> np.ndarray | None:
        sgn = np.where(np.array(labels) == 1, 1.0, -1.0)
        rows = A[: idx + 1]
        res = linprog(np.zeros(dim + 1), A_ub=-(sgn[:, None] * rows), b_ub=-np.ones(idx + 1),
                      bounds=[(None, None)] * (dim + 1), method="highs")
        if res.status != 0:
            return None
        w = res.x
        if np.all(sgn * (rows @ w) >= 0.5):
            return w
        return None  # pragma: no cover - numerically doubtful solution: not certified

    level: list[tuple[list[int], np.ndarray]] = [([], np.zeros(dim + 1))]
    for i in range(N):
        nxt: list[tuple[list[int], np.ndarray]] = []
        for labels, w in level:
            val = float(A[i] @ w)
            own = 1 if val > 0 else 0
            if abs(val) >= 0.5:
                nxt.append((labels + [own], w))
                w2 = separate(i, labels + [1 - own])
                if w2 is not None:
                    nxt.append((labels + [1 - own], w2))
            else:
                for y in (0, 1):
                    w2 = separate(i, labels + [y])
                    if w2 is not None:
                        nxt.append((labels + [y], w2))
        level = nxt
        if len(level) > budget:
            raise InvalidInputError(f"halfspaces: g={g} dim={dim} has more than {budget} "
                                    f"dichotomies, beyond the catalog's {MAX_CELLS}-cell limit")
    mat = np.array([lab for lab, _ in level], dtype=np.uint8).reshape(len(level), N)
    labels = ["(" + ",".join(str(int(c)) for c in p) + ")" for p in pts]
    return HypothesisClass.from_matrix(mat, domain=labels)


def _affine(p: int, n: int, d: int, exact: bool) -> HypothesisClass:
    """Indicators of the affine subspaces a + V of F_p^n with dim V <= d (== d if ``exact``).

    Points are the vectors of F_p^n, labelled by their coordinates as digits ("012" for
    (0,1,2) when p <= 10, else comma-separated).  Linear subspaces are enumerated by growing
    spans (V of dimension j+1 = span(V, v) for v not in V), deduplicated as point sets, then
    translated by every vector; the number of affine subspaces of dimension j is
    p^(n-j) [n choose j]_p (Gaussian binomial).
    """
    N = p**n
    vecs = np.array(list(itertools.product(range(p), repeat=n)), dtype=np.int64).reshape(N, n)
    weights = p ** np.arange(n - 1, -1, -1, dtype=np.int64)

    def index(v: np.ndarray) -> np.ndarray:
        return (v % p) @ weights

    # add[i, j] = index of vecs[i] + vecs[j]
    add = index(vecs[:, None, :] + vecs[None, :, :]) if n else np.zeros((1, 1), dtype=np.int64)
    by_dim: list[set[frozenset[int]]] = [{frozenset([0])}]
    for _j in range(1, d + 1):
        grown: set[frozenset[int]] = set()
        for V in by_dim[-1]:
            members = np.fromiter(V, dtype=np.int64)
            for v in range(N):
                if v in V:
                    continue
                multiples = [int(index(c * vecs[v])) for c in range(p)]
                span = np.unique(add[members][:, multiples].ravel())
                grown.add(frozenset(int(s) for s in span))
        if not grown:
            break
        by_dim.append(grown)
    rows: list[np.ndarray] = []
    seen: set[bytes] = set()
    for j, layer in enumerate(by_dim):
        if exact and j != d:
            continue
        for V in layer:
            members = np.fromiter(V, dtype=np.int64)
            for a in range(N):
                row = np.zeros(N, dtype=np.uint8)
                row[add[a, members]] = 1
                key = row.tobytes()
                if key not in seen:
                    seen.add(key)
                    rows.append(row)
    sep = "" if p <= 10 else ","
    labels = [sep.join(str(int(c)) for c in v) for v in vecs]
    mat = np.array(rows, dtype=np.uint8).reshape(len(rows), N)
    return HypothesisClass.from_matrix(mat, domain=labels)


def _weight_at_most(n: int, d: int) -> HypothesisClass:
    """Indicator vectors of all subsets of [n] = {0..n-1} of size at most d."""
    rows = [np.isin(np.arange(n), S).astype(np.uint8)
            for j in range(min(d, n) + 1) for S in itertools.combinations(range(n), j)]
    return HypothesisClass.from_matrix(np.array(rows, dtype=np.uint8).reshape(len(rows), n),
                                       domain=n)


def _weight_at_least(n: int, d: int) -> HypothesisClass:
    """Indicator vectors of all subsets of [n] of size at least n - d (complements of the above)."""
    return _weight_at_most(n, d).complement()


def _random(m: int, n: int, p: float, seed: int) -> HypothesisClass:
    """m rows of i.i.d. Bernoulli(p) bits on n points from numpy.random.default_rng(seed),
    deduplicated (so the class may have fewer than m hypotheses)."""
    rng = np.random.default_rng(seed)
    mat = (rng.random((m, n)) < p).astype(np.uint8)
    return HypothesisClass.from_matrix(mat, domain=n)


def planted_points(m: int, n: int, d: int, p: float = 0.5, seed: int = 0) -> list[int]:
    """The planted shattered set of ``planted m n d p seed`` (sorted point indices)."""
    rng = np.random.default_rng(seed)
    return sorted(int(i) for i in rng.choice(n, size=d, replace=False))


def _planted(m: int, n: int, d: int, p: float, seed: int) -> HypothesisClass:
    """A random class with a planted shattered set.

    With rng = numpy.random.default_rng(seed): the planted set P = rng.choice(n, d,
    replace=False) (see :func:`planted_points`), then an (m, n) matrix of Bernoulli(p) bits
    rng.random((m, n)) < p; rows 0..2^d-1 are overwritten on P with all 2^d patterns (row r gets
    the binary digits of r, least significant on the smallest point of P).  Deduplicated.
    """
    rng = np.random.default_rng(seed)
    P = np.sort(rng.choice(n, size=d, replace=False))
    mat = (rng.random((m, n)) < p).astype(np.uint8)
    r = np.arange(1 << d)
    mat[: 1 << d][:, P] = ((r[:, None] >> np.arange(d)[None, :]) & 1).astype(np.uint8)
    return HypothesisClass.from_matrix(mat, domain=n)


def _validate_planted(v: Mapping[str, Any]) -> None:
    if v["d"] > v["n"]:
        raise InvalidInputError(f"planted: d={v['d']} planted points need n >= d, got n={v['n']}")
    if (1 << v["d"]) > v["m"]:
        raise InvalidInputError(f"planted: shattering d={v['d']} points needs m >= 2^d = "
                                f"{1 << v['d']} hypotheses, got m={v['m']}")


def _validate_affine(v: Mapping[str, Any]) -> None:
    p = v["p"]
    if p < 2 or any(p % q == 0 for q in range(2, int(math.isqrt(p)) + 1)):
        raise InvalidInputError(f"affine: p must be a prime (the field F_p), got p={p}")
    if v["exact"] and v["d"] > v["n"]:
        raise InvalidInputError(f"affine: exact=true needs d <= n (no subspace of dimension "
                                f"{v['d']} in F_{p}^{v['n']})")
    if p ** v["n"] > 1024:
        raise InvalidInputError(f"affine: the domain F_{p}^{v['n']} has {p ** v['n']} points; "
                                "the catalog accepts at most 1024 (p^n <= 1024)")


def _validate_halfspaces(v: Mapping[str, Any]) -> None:
    if v["g"] ** v["dim"] > 36:
        raise InvalidInputError(f"halfspaces: the grid {v['g']}^{v['dim']} has "
                                f"{v['g'] ** v['dim']} points; the exact LP enumeration accepts "
                                "at most 36 points (g^dim <= 36)")


def _validate_dl(v: Mapping[str, Any]) -> None:
    limits = {1: 5, 2: 3, 3: 3}
    if v["n"] > limits.get(v["k"], 3):
        raise InvalidInputError(f"decision_lists: k={v['k']} accepts n <= "
                                f"{limits.get(v['k'], 3)} (exact enumeration size limit), got "
                                f"n={v['n']}")


_BUILDERS: dict[str, Callable[..., HypothesisClass]] = {
    "thresholds": _thresholds,
    "intervals": _intervals,
    "points": _points,
    "conjunctions": _conjunctions,
    "disjunctions": _disjunctions,
    "parities": _parities,
    "decision_lists": _decision_lists,
    "halfspaces": _halfspaces,
    "affine": _affine,
    "weight_at_most": _weight_at_most,
    "weight_at_least": _weight_at_least,
    "random": _random,
    "planted": _planted,
}
_VALIDATORS: dict[str, Callable[[Mapping[str, Any]], None]] = {
    "planted": _validate_planted,
    "affine": _validate_affine,
    "halfspaces": _validate_halfspaces,
    "decision_lists": _validate_dl,
}
