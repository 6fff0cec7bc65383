"""The mechanism interface the auditor reads, the neighbour relations, and the counting query.

Every mechanism is a callable ``mechanism(dataset, rng) -> output`` and offers
``sample(dataset, n, rng)`` (n independent runs at once, as a numpy array).
``output_distribution(dataset)`` returns the exact ``{output: probability}`` where the output
space is finite, and raises ``NotImplementedError`` otherwise.  ``claim`` is the (ε, δ) the
mechanism *claims*; ``true_epsilon`` is its actual privacy at the claimed δ where it is known
(``math.inf`` for mechanisms that are not ε'-DP for any finite ε'), so the incorrect variants
serve as negative controls.

Neighbour relations (attribute ``neighbour_relation``, checked by ``are_neighbours``):

* ``"substitution"`` — labelled datasets (tuples of ``(x, y)`` pairs) of equal length that differ
  in exactly one pair.  Two distinct strings count as one-record datasets; a bare
  number is the query's value itself, so two numbers are neighbours when they differ by at
  most the mechanism's sensitivity Δ.
* ``"add_remove"`` — datasets whose lengths differ by one, the longer one the shorter one plus one
  record.
* ``"query_answers"`` — the dataset *is* the vector of answers of sensitivity-Δ queries, and
  neighbours differ by at most Δ in every coordinate (the setting of Lyu, Su & Li 2017, Ding et al.
  2018 "StatDP" and Bichsel et al. 2021 "DP-Sniper").
* ``"single_entry"`` — answer vectors differing in exactly one coordinate, by at most Δ (a
  histogram where one record moves; StatDP's NoisyHist and one-input mechanisms).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError

__all__ = ["Dataset", "Mechanism", "answer_vector", "are_neighbours", "count_query"]

Dataset = Any
"""A dataset as a mechanism takes it: a tuple of ``(x, y)`` pairs (substitution), a number
(a query's value) or a vector of query answers, by the mechanism's ``neighbour_relation``."""


def count_query(dataset: Dataset) -> float:
    """The counting query: number of records with label y = 1 (a bare number counts itself).
    Sensitivity 1 under substitution."""
    if isinstance(dataset, int | float | np.integer | np.floating):
        return float(dataset)
    try:
        return float(sum(1 for _, y in dataset if int(y) == 1))
    except (TypeError, ValueError):
        raise InvalidInputError("count_query expects a tuple of (x, y) pairs with y in {0, 1} "
                                "or a number") from None


def _is_scalar(d: Any) -> bool:
    return isinstance(d, int | float | str | np.integer | np.floating)


def _canonical(record: Any) -> Any:
    """A comparable form of a record: nested lists, tuples and arrays become nested tuples, numpy
    scalars become Python scalars (so ((0, 1), 1) and (array([0, 1]), 1) compare equal)."""
    if isinstance(record, np.ndarray):
        return tuple(_canonical(v) for v in record.tolist())
    if isinstance(record, (list, tuple)):
        return tuple(_canonical(v) for v in record)
    if isinstance(record, np.generic):
        return record.item()
    return record


def are_neighbours(d0: Dataset, d1: Dataset, relation: str = "substitution",
                   sensitivity: float = 1.0) -> bool:
    """Whether d0 and d1 are distinct neighbours under ``relation`` (see
    [`ltheory.privacy.mechanisms.base`][ltheory.privacy.mechanisms.base])."""
    if relation == "substitution":
        if _is_scalar(d0) and _is_scalar(d1):
            if isinstance(d0, str) or isinstance(d1, str):
                return d0 != d1
            # a bare number is the query's value on the dataset (``count_query``): neighbours
            # move it by at most the sensitivity, so 0 and 100 are not neighbours
            gap = abs(float(d0) - float(d1))
            return 0.0 < gap <= sensitivity + 1e-12
        try:
            a, b = list(d0), list(d1)
        except TypeError:
            return False
        if len(a) != len(b):
            return False
        diff = sum(1 for u, v in zip(a, b, strict=True) if _canonical(u) != _canonical(v))
        return diff == 1
    if relation == "add_remove":
        a, b = list(d0), list(d1)
        if abs(len(a) - len(b)) != 1:
            return False
        long, short = (a, b) if len(a) > len(b) else (b, a)
        return any(long[:i] + long[i + 1:] == short for i in range(len(long)))
    if relation in ("query_answers", "single_entry"):
        try:
            a = np.asarray(d0, dtype=float).ravel()
            b = np.asarray(d1, dtype=float).ravel()
        except (TypeError, ValueError):
            return False
        if a.shape != b.shape or np.array_equal(a, b):
            return False
        moved = np.abs(a - b)
        if relation == "single_entry" and np.count_nonzero(moved) != 1:
            return False
        return bool(moved.max() <= sensitivity + 1e-12)
    raise InvalidInputError(f"unknown neighbour relation {relation!r}; accepted: substitution, "
                            "add_remove, query_answers, single_entry")


class Mechanism:
    """Base class: subclasses implement ``sample``; ``__call__`` draws one output."""

    name: str = "mechanism"
    neighbour_relation: str = "substitution"
    sensitivity: float = 1.0
    epsilon: float
    delta: float = 0.0
    true_epsilon: float | None = None

    @property
    def claim(self) -> tuple[float, float]:
        """The claimed (ε, δ)."""
        return (self.epsilon, self.delta)

    def are_neighbours(self, d0: Dataset, d1: Dataset) -> bool:
        return are_neighbours(d0, d1, self.neighbour_relation, self.sensitivity)

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, dataset: Dataset, rng: np.random.Generator) -> Any:
        out = self.sample(dataset, 1, rng)[0]
        return out.item() if isinstance(out, np.generic) else out

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        raise NotImplementedError(f"{self.name} has no finite output distribution")

    def default_pair(self) -> tuple[Dataset, Dataset]:
        """A neighbouring pair at which the mechanism's privacy loss is worst (used by the CLI)."""
        return (((0, 0),), ((0, 1),))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon})"


def answer_vector(dataset: Dataset) -> np.ndarray:
    """A dataset of query answers as a non-empty float vector of finite numbers (clear error
    otherwise)."""
    try:
        q = np.asarray(dataset, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InvalidInputError("this mechanism expects a dataset that is a vector of query "
                                "answers (numbers)") from None
    if q.size == 0 or not np.all(np.isfinite(q)):
        raise InvalidInputError("query answers must be a non-empty vector of finite numbers")
    return q
