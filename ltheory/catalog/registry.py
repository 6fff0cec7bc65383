"""Looking up and building the catalog's families: names, SPEC strings, known values.

The data of each family is ``data/<family>.toml`` inside this package (read with
`importlib.resources`, so it works from an installed wheel as from the checkout).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ltheory.catalog.builders import FAMILIES, MAX_CELLS, Family
from ltheory.catalog.formulas import evaluate_formula
from ltheory.catalog.schema import FamilyInfo, KnownValue, check_params, parse_info
from ltheory.core import HypothesisClass, load_class
from ltheory.errors import InvalidInputError, UnknownFamilyError

__all__ = ["data_file", "describe", "families", "family", "from_spec", "known_values",
           "parse_spec", "parse_value", "register_family"]


def data_file(name: str) -> Any:
    """A data file shipped with the catalog (``data/<name>``), as an
    `importlib.resources.abc.Traversable` (``.read_text()``, ``.read_bytes()``)."""
    path = resources.files("ltheory.catalog").joinpath("data", name)
    if not path.is_file():  # pragma: no cover - broken installation
        raise UnknownFamilyError(f"catalog data file {name!r} is missing from the installed "
                                 "package (ltheory/catalog/data)")
    return path


@lru_cache(maxsize=1)
def _builtin_registry() -> dict[str, FamilyInfo]:
    """The schema of every family of [`FAMILIES`][ltheory.catalog.FAMILIES], from its data file."""
    return {name: parse_info(data_file(f"{name}.toml").read_text(encoding="utf-8"),
                             f"catalog/{name}.toml")
            for name in sorted(FAMILIES)}


#: families added at run time by `register_family`: name -> (Family, FamilyInfo)
_USER: dict[str, tuple[Family, FamilyInfo]] = {}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def _registry() -> dict[str, FamilyInfo]:
    """Every family's schema: the built-in ones and those registered at run time."""
    return {**_builtin_registry(), **{name: info for name, (_, info) in _USER.items()}}


def _record(name: str) -> Family:
    return _USER[name][0] if name in _USER else FAMILIES[name]


def register_family(build: Callable[..., HypothesisClass], toml: str | Path, *,
                    validate: Callable[[Mapping[str, Any]], None] | None = None,
                    replace: bool = False) -> FamilyInfo:
    """Add a family of your own to the catalog, for `family`, `known_values`,
    `ltheory.tables.dimension_table` and ``ltheory table MODULE:NAME`` — without editing
    the package.

    ``build(**params)`` returns the member's `HypothesisClass`; ``toml`` is the family's
    declaration in the format of the catalog's data files (``ltheory/catalog/data/*.toml``: a
    ``[family]`` table with ``name`` and ``summary``, a ``[params.<p>]`` table per parameter with
    ``type``, ``default``, ``min``, ``max``, and ``[[known]]`` entries — ``ldim = "formula"``,
    ``when = "condition"``, ``citation``), as text or a path to a file.  Formulas are read by the
    catalog's restricted evaluator, never ``eval``.  ``validate(params)`` may raise
    `InvalidInputError` for a bad combination.  A built-in family's name is refused;
    registering a name again needs ``replace=True``.  Returns the family's `FamilyInfo`.
    """
    if not callable(build):
        raise InvalidInputError(f"register_family needs a callable build(**params), got "
                                f"{type(build).__name__}")
    source = "register_family"
    if isinstance(toml, Path):
        source = str(toml)
        try:
            toml = toml.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidInputError(f"cannot read the family declaration {source!r}: "
                                    f"{exc.strerror or exc}") from None
    if not isinstance(toml, str):
        raise InvalidInputError("register_family takes the declaration as TOML text or a Path")
    info = parse_info(toml, source)
    name = tomllib.loads(toml).get("family", {}).get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise InvalidInputError(f"{source}: the [family] table needs a name (letters, digits, "
                                f"_; at most 64 characters), got {name!r}")
    if name in _builtin_registry():
        raise InvalidInputError(f"{name!r} is a built-in catalog family; choose another name")
    if name in _USER and not replace:
        raise InvalidInputError(f"a family {name!r} is already registered; pass replace=True "
                                "to replace it")
    for spec in info.known:
        if spec.key.split("_")[0] not in ("vc", "ldim", "tdim"):
            raise InvalidInputError(f"{source}: unknown known value {spec.key!r}")
    _USER[name] = (Family(name, build, lambda _params: 0, validate), info)
    return info


def families() -> list[str]:
    """The names of all catalog families, sorted."""
    return sorted(_registry())


def describe(name: str) -> FamilyInfo:
    """The [`FamilyInfo`][ltheory.catalog.FamilyInfo] of a family (summary, domain, parameters,
    known values)."""
    reg = _registry()
    if name not in reg:
        raise UnknownFamilyError(f"unknown family {name!r}; known families: "
                                 f"{', '.join(sorted(reg))}")
    return reg[name]


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


def family(name: str, **params: Any) -> HypothesisClass:
    """Build the class of family ``name`` at ``params`` (defaults from the family's TOML).

    The class's ``name`` is the family with its full parameter list, e.g. "thresholds n=64".
    The families, their parameters and their known dimensions are listed by
    [`families`][ltheory.catalog.families] and [`describe`][ltheory.catalog.describe] (and
    ``ltheory catalog`` on the command line).

    Args:
        name: The family's name, e.g. ``"thresholds"``, ``"intervals"``, ``"halfspaces"``.
        **params: The family's parameters (``n=64``); missing ones take their defaults.

    Returns:
        The [`HypothesisClass`][ltheory.HypothesisClass] of that member of the family.

    Raises:
        UnknownFamilyError: For an unknown family or parameter.
        InvalidInputError: For a value of the wrong type, out of range, or too large.

    Examples:
        >>> from ltheory import catalog
        >>> catalog.family("thresholds", n=64)
        <HypothesisClass 'thresholds n=64': 65 hypotheses on 64 points>
    """
    info = describe(name)
    values = check_params(info, params)
    fam = _record(name)
    if fam.validate is not None:
        fam.validate(values)
    if info.size is not None and name not in _USER:
        size = int(evaluate_formula(info.size, values))
        _check_cells(name, size, fam.domain_size(values))
    H = fam.build(**values)
    if name in _USER:
        if not isinstance(H, HypothesisClass):
            raise InvalidInputError(f"family {name!r}: build returned {type(H).__name__}, not a "
                                    "HypothesisClass")
        _check_cells(name, len(H), H.domain_size)
    return H.with_name(_class_name(name, values))


def known_values(name: str, **params: Any) -> dict[str, KnownValue]:
    """The literature values of family ``name`` that apply at ``params``.

    Keys are ``vc``, ``ldim``, ``tdim`` (exact values) and ``<dim>_lower`` / ``<dim>_upper``
    (bounds); when several entries of the same key apply the first listed in the TOML wins.
    """
    info = describe(name)
    values = check_params(info, params)
    validate = _record(name).validate
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
                                   spec.disagreement, spec.when)
    return out


_TOKEN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_INT = re.compile(r"^[+-]?\d{1,18}$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d{1,3})?$")
_WORD = re.compile(r"^[A-Za-z0-9_.:+-]{1,32}$")


def parse_value(text: str, key: str) -> Any:
    """One parameter value of a SPEC read by the restricted parser: an integer, a decimal number,
    true/false, or a short word (``key`` names the parameter in the error)."""
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
        params[key] = parse_value(text, key)
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
            if len(s) < 4096 and Path(s).exists():
                raise InvalidInputError(f"{s!r} is not a regular file (a class file is a JSON "
                                        "file in the ltheory.class/1 format)")
            raise InvalidInputError(f"class file {s!r} does not exist")
        raise UnknownFamilyError(f"{name!r} is neither a catalog family nor a class file; "
                                 f"families: {', '.join(families())}")
    return family(name, **params)
