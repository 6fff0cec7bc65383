"""Parameter ranges of a table: ``n=1..8``, ``n=2,4,8``, ``k=2``, ``monotone=true,false``.

A range is a comma-separated list of items; an item is a value (read like a SPEC value: integer,
number, true/false, short word) or an inclusive integer interval ``a..b``.  Several parameters
give the cartesian product of their values, in the order given (the first parameter with more
than one value is the table's x axis).  Parameter names and value types are checked against the
family's declaration here, so a typo is one clear error rather than a table of skipped rows.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ltheory.catalog import describe, parse_value
from ltheory.catalog.schema import ParamInfo
from ltheory.errors import InvalidInputError, UnknownFamilyError

__all__ = ["MAX_MEMBERS", "expand", "parse_range", "parse_ranges"]

MAX_MEMBERS = 256
"""The most members (parameter combinations) one table computes."""

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_INTERVAL = re.compile(r"^([+-]?\d{1,18})\.\.([+-]?\d{1,18})$")


def parse_range(text: str, key: str) -> tuple[Any, ...]:
    """The values of one range text (``"1..8"``, ``"2,4,8"``, ``"1..3,8"``, ``"true,false"``),
    in the order written, duplicates removed."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError(f"parameter {key!r}: empty range; write e.g. {key}=1..8, "
                                f"{key}=2,4,8 or {key}=2")
    if len(text) > 1000:
        raise InvalidInputError(f"parameter {key!r}: range text too long (at most 1000 "
                                "characters)")
    out: list[Any] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise InvalidInputError(f"parameter {key!r}: empty item in range {text!r}")
        m = _INTERVAL.match(item)
        if m is not None:
            lo, hi = int(m.group(1)), int(m.group(2))
            if hi < lo:
                raise InvalidInputError(f"parameter {key!r}: the range {item} is empty "
                                        f"({hi} < {lo}); write {key}={hi}..{lo}")
            if hi - lo + 1 > MAX_MEMBERS:
                raise InvalidInputError(f"parameter {key!r}: the range {item} has {hi - lo + 1:,} "
                                        f"values; a table has at most {MAX_MEMBERS} members")
            out.extend(range(lo, hi + 1))
        elif ".." in item:
            raise InvalidInputError(f"parameter {key!r}: cannot read the range {item!r}; an "
                                    "interval is written a..b with integers a <= b (e.g. 1..8)")
        else:
            out.append(parse_value(item, key))
        if len(out) > MAX_MEMBERS:
            raise InvalidInputError(f"parameter {key!r}: more than {MAX_MEMBERS} values")
    seen: list[Any] = []
    for v in out:
        if not any(v == w and type(v) is type(w) for w in seen):
            seen.append(v)
    return tuple(seen)


def parse_ranges(tokens: Sequence[str]) -> dict[str, tuple[Any, ...]]:
    """``["n=1..8", "k=2"]`` -> ``{"n": (1, ..., 8), "k": (2,)}`` (names not yet checked)."""
    out: dict[str, tuple[Any, ...]] = {}
    for tok in tokens:
        if not isinstance(tok, str) or "=" not in tok:
            raise InvalidInputError(f"cannot read {tok!r}; parameters are written PARAM=RANGE, "
                                    "e.g. n=1..8, n=2,4,8 or k=2")
        key, text = tok.split("=", 1)
        key = key.strip()
        if not _NAME.match(key):
            raise InvalidInputError(f"{key!r} is not a parameter name (in {tok!r})")
        if key in out:
            raise InvalidInputError(f"parameter {key!r} is given twice")
        out[key] = parse_range(text, key)
    return out


def _values(key: str, spec: Any) -> tuple[Any, ...]:
    if isinstance(spec, str):
        return parse_range(spec, key)
    if isinstance(spec, (bool, int, float)):
        return (spec,)
    if isinstance(spec, Iterable):
        vals = tuple(spec)
        if not vals:
            raise InvalidInputError(f"parameter {key!r}: empty range")
        if len(vals) > MAX_MEMBERS:
            raise InvalidInputError(f"parameter {key!r}: more than {MAX_MEMBERS} values")
        return vals
    raise InvalidInputError(f"parameter {key!r}: expected a value, a range text such as "
                            f"'1..8', or a list of values; got {type(spec).__name__}")


def _check_type(fam: str, p: ParamInfo, v: Any) -> None:
    ok = {"int": isinstance(v, int) and not isinstance(v, bool),
          "float": isinstance(v, (int, float)) and not isinstance(v, bool),
          "bool": isinstance(v, bool),
          "str": isinstance(v, str) and (not p.choices or v in p.choices)}[p.type]
    if not ok:
        raise InvalidInputError(f"{fam}: parameter {p.name!r} takes {p.accepted()}; got {v!r}")


def expand(family: str, ranges: Mapping[str, Any] | Sequence[str]
           ) -> tuple[dict[str, tuple[Any, ...]], list[dict[str, Any]]]:
    """The checked ranges and the list of members (one parameter dict each) of a table.

    ``ranges`` is a mapping (name -> value, range text, or iterable of values) or a sequence of
    ``PARAM=RANGE`` tokens.  Unknown family or parameter, a value of the wrong type, an empty or
    malformed range, or more than [`MAX_MEMBERS`][ltheory.tables.MAX_MEMBERS] members raise an
    [`InvalidInputError`][ltheory.InvalidInputError].  Values outside a parameter's declared range
    are
    *not* errors here: those members are reported as skipped by the table.
    """
    info = describe(family)
    if isinstance(ranges, Mapping):
        parsed = {str(k): _values(str(k), v) for k, v in ranges.items()}
    elif isinstance(ranges, Sequence) and not isinstance(ranges, str):
        parsed = parse_ranges(ranges)
    else:
        raise InvalidInputError("ranges must be a mapping {param: range} or a list of "
                                "'PARAM=RANGE' strings")
    declared = {p.name: p for p in info.parameters}
    for key, vals in parsed.items():
        if key not in declared:
            raise UnknownFamilyError(f"family {family!r} has no parameter {key!r}; parameters: "
                                     f"{', '.join(declared) or 'none'}")
        for v in vals:
            _check_type(family, declared[key], v)
    total = 1
    for vals in parsed.values():
        total *= len(vals)
    if total > MAX_MEMBERS:
        raise InvalidInputError(f"the ranges give {total:,} members; a table has at most "
                                f"{MAX_MEMBERS} (narrow a range)")
    keys = list(parsed)
    members = [dict(zip(keys, combo, strict=True))
               for combo in itertools.product(*(parsed[k] for k in keys))]
    return parsed, members
