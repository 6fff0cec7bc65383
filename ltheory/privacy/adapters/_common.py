"""Shared pieces of the third-party adapters: optional imports, seeding, scalar-query datasets."""

from __future__ import annotations

import importlib
import math
import warnings
from types import ModuleType
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.mechanisms import Mechanism

__all__ = ["ScalarQueryAdapter", "require", "random_state_from"]


def positive(name: str, v: Any) -> float:
    """``v`` as a finite float > 0, or InvalidInputError naming the parameter."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be a number > 0, got {v!r}") from None
    if not math.isfinite(f) or f <= 0:
        raise InvalidInputError(f"{name} must be a finite number > 0, got {v!r}")
    return f


def require(module: str) -> ModuleType:
    """Import an optional third-party module or raise ``InvalidInputError`` naming the extra."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        extra = {"sklearn": "diffprivlib", "jax_privacy": "jax", "optax": "jax"}.get(top, top)
        raise InvalidInputError(f"{top} is not installed; install the optional extra: "
                                f"pip install 'ltheory[{extra}]'") from None


def random_state_from(rng: np.random.Generator) -> np.random.RandomState:
    """A legacy ``RandomState`` for libraries that take ``random_state``, seeded from ``rng``
    (so runs are a deterministic function of the auditor's seed)."""
    if not isinstance(rng, np.random.Generator):
        raise InvalidInputError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return np.random.RandomState(np.random.MT19937(int(rng.integers(0, 2**63 - 1))))


def scalar_answer(dataset: Any) -> float:
    """The query answer a scalar mechanism is run on: a number or a 1-element vector."""
    try:
        a = np.asarray(dataset, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InvalidInputError("this adapter's dataset is the query answer: a number (or a "
                                "1-element vector)") from None
    if a.size != 1 or not np.isfinite(a[0]):
        raise InvalidInputError(f"this adapter's dataset is one finite query answer, got "
                                f"{dataset!r}")
    return float(a[0])


class ScalarQueryAdapter(Mechanism):
    """Base of adapters whose dataset *is* the answer of a sensitivity-Δ query (relation
    ``query_answers``: neighbours differ by at most Δ)."""

    neighbour_relation = "query_answers"
    library: str = ""
    reproducible: bool = True

    def default_pair(self) -> tuple[Any, Any]:
        return (0.0, float(self.sensitivity))

    def _strip(self) -> dict:
        d = dict(self.__dict__)
        d.pop("_cache", None)
        return d

    def __getstate__(self) -> dict:   # library objects (ctypes) are rebuilt in each process
        return self._strip()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self.epsilon:g}, delta={self.delta:g})"
