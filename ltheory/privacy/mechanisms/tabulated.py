"""A mechanism given by its output distributions, one table per dataset."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.mechanisms.base import Dataset, Mechanism
from ltheory.validation import check_delta, check_epsilon

__all__ = ["TabulatedMechanism"]


class TabulatedMechanism(Mechanism):
    """A mechanism given by its output distributions: ``table[dataset] = {output: probability}``
    (outputs are integers 0..m−1 or any hashables).  Every two distinct tabulated datasets are
    treated as neighbours (relation ``"tabulated"``).  Useful for tests and for auditing a
    mechanism whose distributions are known analytically; ``epsilon``/``delta`` are its claim."""

    name = "tabulated"
    neighbour_relation = "tabulated"

    def __init__(self, table: dict, epsilon: float = 1.0, delta: float = 0.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.table = {}
        for d, dist in table.items():
            p = np.array(list(dist.values()), dtype=float)
            if p.size == 0 or np.any(p < 0) or abs(p.sum() - 1) > 1e-9:
                raise InvalidInputError(f"table[{d!r}] is not a probability distribution")
            self.table[d] = (list(dist.keys()), np.cumsum(p / p.sum()), p / p.sum())

    def are_neighbours(self, d0: Dataset, d1: Dataset) -> bool:
        return d0 in self.table and d1 in self.table and d0 != d1

    def sample(self, dataset: Dataset, n: int, rng: np.random.Generator) -> Any:
        try:
            keys, cdf, _ = self.table[dataset]
        except (KeyError, TypeError):
            raise InvalidInputError(f"dataset {dataset!r} is not in the table") from None
        idx = np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), len(keys) - 1)
        if all(isinstance(k, int) for k in keys):
            return np.asarray(keys, dtype=np.int64)[idx]
        return [keys[i] for i in idx]

    def output_distribution(self, dataset: Dataset) -> dict[Hashable, float]:
        keys, _, p = self.table[dataset]
        return dict(zip(keys, p.tolist(), strict=True))

    def default_pair(self) -> tuple[Dataset, Dataset]:
        a, b = list(self.table)[:2]
        return a, b
