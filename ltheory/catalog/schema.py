"""What a family declares in its data file (``ltheory/catalog/data/<family>.toml``): summary,
domain, parameters with types and ranges, size formula, and known values with citations.

Keys of known values are the dimension keys of [`ltheory.DIMENSIONS`][ltheory.DIMENSIONS]
(``vc``,
``ldim``, ``tdim``: exact values) and ``<key>_lower`` / ``<key>_upper`` (bounds).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ltheory.catalog.formulas import evaluate_formula
from ltheory.dimensions import DIMENSIONS
from ltheory.errors import InvalidInputError, UnknownFamilyError

__all__ = ["KNOWN_KEYS", "FamilyInfo", "KnownValue", "KnownValueSpec", "ParamInfo",
           "check_params", "parse_info"]

KNOWN_KEYS = tuple(k + s for k in DIMENSIONS for s in ("", "_lower", "_upper"))
"""The keys of a family's known values: ``vc``, ``ldim``, ``tdim`` and their ``_lower`` /
``_upper`` bounds."""
_PARAM_TYPES = ("int", "float", "bool", "str")


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
    ``disagreement`` is set when exact computation was found to contradict the published value;
    ``when`` is the condition under which the formula is cited (``"2 * k >= n"``; None: always).
    """

    value: int
    citation: str
    note: str | None = None
    key: str = ""
    formula: str = ""
    disagreement: str | None = None
    when: str | None = None

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


def parse_info(text: str, source: str) -> FamilyInfo:
    """The [`FamilyInfo`][ltheory.catalog.FamilyInfo] declared by a family's TOML text (``source``
    names it in errors)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"{source}: not valid TOML ({exc})") from None
    fam = doc.get("family", {})
    name = fam.get("name", source.rsplit("/", 1)[-1].removesuffix(".toml"))
    params = []
    for pname, p in doc.get("params", {}).items():
        ptype = p.get("type")
        if ptype not in _PARAM_TYPES:
            raise InvalidInputError(f"{source}: parameter {pname!r} has unknown type {ptype!r}")
        choices = tuple(p["choices"]) if "choices" in p else None
        params.append(ParamInfo(pname, ptype, p.get("default"), p.get("min"), p.get("max"),
                                choices, p.get("doc", "")))
    known = []
    for entry in doc.get("known", []):
        keys = [k for k in entry if k in KNOWN_KEYS]
        if len(keys) != 1:
            raise InvalidInputError(f"{source}: each [[known]] entry needs exactly one of "
                                    f"{', '.join(KNOWN_KEYS)}")
        if not entry.get("citation"):
            raise InvalidInputError(f"{source}: [[known]] {keys[0]} has no citation")
        known.append(KnownValueSpec(keys[0], str(entry[keys[0]]), entry["citation"],
                                    entry.get("when"), entry.get("note"),
                                    entry.get("disagreement")))
    return FamilyInfo(name=name, summary=fam.get("summary", ""), domain=fam.get("domain", ""),
                      parameters=tuple(params), size=fam.get("size"),
                      size_note=fam.get("size_note"), method=fam.get("method"),
                      limits=fam.get("limits"), known=tuple(known),
                      examples=tuple(fam.get("examples", ())))


def check_params(info: FamilyInfo, params: Mapping[str, Any]) -> dict[str, Any]:
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
