"""The value every exact algorithm returns: a dimension with its witness and proven bounds."""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

from ltheory.jsonable import to_jsonable


@dataclass(frozen=True)
class DimensionResult:
    """A computed dimension.

    ``lower`` and ``upper`` are proven bounds; ``exact`` is ``lower == upper``; ``value`` is the
    exact value when exact and the proven lower bound otherwise.  ``witness`` (in the JSON form of
    the [witness formats][witness-formats], so anyone can re-check it) certifies ``lower``: a
    shattered set (VC), a mistake tree (Littlestone), a threshold ladder (threshold), a clique
    (contradiction graphs).  It is ``None`` only for the empty class, whose dimensions are -1 by
    convention.  ``stats`` holds counters (nodes, memo size, ...), ``seconds`` the wall time,
    ``kind`` the dimension's name."""

    kind: str
    value: int | float
    witness: Any
    exact: bool
    lower: int | float
    upper: int | float
    seconds: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def proven(cls, kind: str, lower: int | float, upper: int | float, witness: Any, *,
               seconds: float = 0.0, stats: dict[str, Any] | None = None) -> DimensionResult:
        """A result from proven bounds: ``value = lower`` (certified by ``witness``), exact iff
        ``lower == upper``.  Every engine builds its results through this constructor."""
        return cls(kind, lower, witness, lower == upper, lower, upper, seconds,
                   dict(stats or {}))

    @classmethod
    def empty(cls, kind: str, *, seconds: float = 0.0,
              stats: dict[str, Any] | None = None) -> DimensionResult:
        """The empty class: every dimension is -1 by convention, with no witness."""
        return cls.proven(kind, -1, -1, None, seconds=seconds, stats=stats)

    def replace(self, **changes: Any) -> DimensionResult:
        """A copy with some fields changed (``dataclasses.replace``); ``exact`` follows the
        bounds unless given."""
        if "exact" not in changes and ("lower" in changes or "upper" in changes):
            changes["exact"] = changes.get("lower", self.lower) == changes.get("upper", self.upper)
        return dataclasses.replace(self, **changes)

    def witness_json(self) -> Any:
        """A deep copy of the witness, in its JSON form ([witness formats][witness-formats])."""
        return copy.deepcopy(self.witness)

    def to_json(self) -> dict[str, Any]:
        """``{"value", "exact", "lower", "upper", "witness", "seconds", "stats"}``."""
        return {
            "value": self.value,
            "exact": self.exact,
            "lower": self.lower,
            "upper": self.upper,
            "witness": self.witness_json(),
            "seconds": round(self.seconds, 6),
            "stats": to_jsonable(dict(self.stats)),  # inf group orders -> "inf", numpy -> int
        }

    def __str__(self) -> str:
        if self.exact:
            return f"{self.kind} = {self.value}"
        return f"{self.lower} <= {self.kind} <= {self.upper} (budget reached)"

    def dumps(self, **kw: Any) -> str:
        """[`to_json`][ltheory.DimensionResult.to_json] as a JSON string (``json.dumps`` keywords
        pass through)."""
        return json.dumps(self.to_json(), **kw)
