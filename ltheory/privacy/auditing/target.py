"""What the auditor reads from the thing it audits, read once:
[`as_target`][ltheory.privacy.as_target].

A *target* is a mechanism, a learner or a third-party adapter.  The auditor needs from it:

* a way to draw outputs — ``sample(dataset, n, rng)`` (a batch of n outputs, used when present),
  a call ``mechanism(dataset, rng)``, or a learner's ``fit(dataset, rng)``;
* optionally ``output_distribution(dataset) -> {output: probability}`` (the exact ε);
* the neighbour relation — ``neighbour_relation`` (``"substitution"`` by default,
  ``"add_remove"``, ``"query_answers"``, ``"single_entry"``, or a learner's own) and
  ``sensitivity`` (for numeric datasets), or its own ``are_neighbours(d0, d1)``;
* optionally ``name``, ``claim`` (ε, δ), ``audit_chunk_runs`` (runs per chunk, for slow
  mechanisms), ``audit_draws_per_run`` (the random numbers one run draws: the work estimate a
  time budget is checked against before sampling, ``budget.check_work``),
  ``audit_output_bytes`` (the bytes one run's output takes: the memory estimate checked before
  sampling, ``budget.check_memory``) and, for labelled datasets, the domain size (``bins``
  or ``matrix``).

[`as_target`][ltheory.privacy.as_target] reads all of it and checks it, once, at the boundary; the
rest of the auditor
uses the [`Target`][ltheory.privacy.Target] and never probes the object again.  A plain function is
named by its
``__name__``.

Examples:
    >>> from ltheory.privacy.mechanisms import RandomizedResponse
    >>> t = as_target(RandomizedResponse(1.0))
    >>> t.draws_by, t.relation, t.has_distribution
    ('sample', 'substitution', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.outputs import Batch, MechanismError, normalise
from ltheory.privacy.mechanisms import are_neighbours

__all__ = ["CHUNK", "Target", "as_target"]

#: Runs per chunk unless the target declares ``audit_chunk_runs`` (executors module docstring).
CHUNK = 1 << 17

_RULES = {"substitution": "same length, exactly one pair differs; two numbers (query values) "
                          "differ by at most the sensitivity {s:g}",
          "add_remove": "one dataset is the other with one record added",
          "query_answers": "answer vectors differing by at most {s:g} in every coordinate"}


@dataclass(frozen=True, eq=False)
class Target:
    """A mechanism, learner or adapter as the auditor sees it (see
    [`ltheory.privacy.auditing.target`][ltheory.privacy.auditing.target])."""

    mechanism: Any
    name: str
    draws_by: str                  # "sample" | "call" | "fit"
    relation: str
    sensitivity: float
    chunk_runs: int
    has_distribution: bool
    declares_neighbours: bool
    domain_size: int | None
    draws_per_run: float | None = None
    output_bytes: float | None = None

    @property
    def claim(self) -> tuple[float, float] | None:
        """The target's own claim (ε, δ), or None; read on demand, not by
        [`as_target`][ltheory.privacy.as_target]:
        a mechanism may compute it expensively (DP-SGD's accountant composes T steps, and at
        T = 10⁹ runs out of memory), and no stage of an audit needs it."""
        return _claim(self.mechanism)

    def draw(self, dataset: Any, n: int, rng: np.random.Generator, copy: bool = True) -> Batch:
        """n runs on ``dataset`` as a normalised batch (``outputs.normalise``, ``copy`` passed
        on: False for a batch used at once and dropped); an exception raised by
        the mechanism becomes a [`MechanismError`][ltheory.privacy.MechanismError] chained to it
        (the user's frame is
        kept in ``__cause__``)."""
        m = self.mechanism
        try:
            if self.draws_by == "sample":
                raw = m.sample(dataset, n, rng)
            elif self.draws_by == "call":
                raw = [m(dataset, rng) for _ in range(n)]
            else:
                raw = [m.fit(dataset, rng) for _ in range(n)]
        except MechanismError:
            raise
        except Exception as exc:  # noqa: BLE001 - the mechanism is user code: report it
            raise MechanismError(f"the mechanism raised {type(exc).__name__}: {exc}") from exc
        return normalise(raw, n, copy)

    def output_distribution(self, dataset: Any) -> dict | None:
        """The exact output distribution on ``dataset``, or None where the target offers none
        (or raises ``NotImplementedError`` for this dataset)."""
        if not self.has_distribution:
            return None
        try:
            return self.mechanism.output_distribution(dataset)
        except NotImplementedError:
            return None
        except Exception as exc:  # noqa: BLE001 - user code
            raise MechanismError(f"output_distribution raised {type(exc).__name__}: "
                                 f"{exc}") from exc

    def are_neighbours(self, d0: Any, d1: Any) -> bool:
        """Whether (d0, d1) are neighbours under the target's relation."""
        if self.declares_neighbours:
            return bool(self.mechanism.are_neighbours(d0, d1))
        return are_neighbours(d0, d1, self.relation, self.sensitivity)

    def relation_rule(self) -> str:
        """The neighbour relation in words (for error messages)."""
        rule = _RULES.get(self.relation, "as the mechanism declares")
        return rule.format(s=self.sensitivity)


def as_target(obj: Any) -> Target:
    """The [`Target`][ltheory.privacy.Target] of a mechanism, learner or adapter (see
    [`ltheory.privacy.auditing.target`][ltheory.privacy.auditing.target]);
    a Target is
    returned as is.  Raises ``InvalidInputError`` naming what is missing or malformed."""
    if isinstance(obj, Target):
        return obj
    if hasattr(obj, "sample"):
        draws_by = "sample"
    elif callable(obj):
        draws_by = "call"
    elif hasattr(obj, "fit"):
        draws_by = "fit"
    else:
        raise InvalidInputError(
            f"cannot audit a {type(obj).__name__}: a mechanism must be callable as "
            "mechanism(dataset, rng), offer mechanism.sample(dataset, n, rng), or be a learner "
            "with .fit(dataset, rng)")
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name:
        name = getattr(obj, "__name__", None) if draws_by == "call" else None
        name = name if isinstance(name, str) and name != "<lambda>" else type(obj).__name__
    relation = getattr(obj, "neighbour_relation", "substitution")
    if not isinstance(relation, str):
        raise InvalidInputError(f"{name}.neighbour_relation must be a string, got "
                                f"{relation!r}")
    sens = getattr(obj, "sensitivity", 1.0)
    try:
        sens = float(sens)
    except (TypeError, ValueError):
        sens = math.nan
    if not (math.isfinite(sens) and sens > 0):
        raise InvalidInputError(f"{name}.sensitivity must be a finite number > 0, got "
                                f"{getattr(obj, 'sensitivity', None)!r}")
    chunk = getattr(obj, "audit_chunk_runs", None)
    if chunk is None:
        chunk = CHUNK
    elif isinstance(chunk, bool) or not isinstance(chunk, int | np.integer) or chunk < 1:
        raise InvalidInputError(f"audit_chunk_runs must be a positive integer, got {chunk!r}")
    return Target(mechanism=obj, name=name, draws_by=draws_by, relation=relation,
                  sensitivity=sens, chunk_runs=int(chunk),
                  has_distribution=callable(getattr(obj, "output_distribution", None)),
                  declares_neighbours=callable(getattr(obj, "are_neighbours", None)),
                  domain_size=_domain_size(obj),
                  draws_per_run=_declared(obj, "audit_draws_per_run"),
                  output_bytes=_declared(obj, "audit_output_bytes"))


def _declared(obj: Any, attr: str) -> float | None:
    """A declared positive cost (``audit_draws_per_run``, ``audit_output_bytes``) or None."""
    v = getattr(obj, attr, None)
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        f = math.nan
    if isinstance(v, bool) or not (math.isfinite(f) and f > 0):
        raise InvalidInputError(f"{attr} must be a finite number > 0 or None, got {v!r}")
    return f


def _claim(obj: Any) -> tuple[float, float] | None:
    c = getattr(obj, "claim", None)
    if c is None or callable(c):
        return None
    try:
        eps, delta = c
        return float(eps), float(delta)
    except (TypeError, ValueError):
        return None


def _domain_size(obj: Any) -> int | None:
    if hasattr(obj, "bins"):
        return int(obj.bins)
    if hasattr(obj, "matrix"):
        return int(np.shape(obj.matrix)[1])
    return None
