"""The interface every private learner of ``ltheory.privacy.learners`` implements.

A learner is a randomized algorithm A mapping a labelled dataset S = ((x_1, y_1), ..., (x_n, y_n))
to a hypothesis; it is (ε, δ)-differentially private if for all neighbouring S, S' and every event
E, P[A(S) ∈ E] <= e^ε P[A(S') ∈ E] + δ (Dwork, McSherry, Nissim, Smith 2006).  Neighbouring means
one pair substituted unless the learner says otherwise in ``neighbour_relation`` (an online
learner's input sequence, say) and implements ``are_neighbours``.

Every learner here is usable directly as a mechanism by the auditor (``ltheory.privacy.audit``):
``learner(dataset, rng)`` is ``learner.fit(dataset, rng)``; ``sample(dataset, n, rng)`` draws n
independent fits (override it when a vectorised form exists); ``output_distribution(dataset)``
is offered only by learners whose output distribution can be computed exactly.  Hypotheses are
returned hashable (e.g. a truth-table bit string over a finite domain).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError

Dataset = tuple[tuple[Any, int], ...]


@dataclass(frozen=True)
class PrivacyClaim:
    """A privacy guarantee exactly as the source states it.

    ``epsilon``/``delta`` are the numbers at the learner's parameters; ``source`` names the paper
    and theorem; ``statement`` quotes the guarantee's form (e.g. "(2αT, 0)-DP").
    """

    epsilon: float
    delta: float
    source: str
    statement: str = ""

    def as_tuple(self) -> tuple[float, float]:
        return (self.epsilon, self.delta)


class PrivateLearner(ABC):
    """Base class: ``fit(dataset, rng) -> hashable hypothesis``, ``claim -> (ε, δ)``."""

    #: how neighbouring datasets differ; the auditor checks d0, d1 against it
    neighbour_relation: str = "substitution"

    @property
    @abstractmethod
    def privacy_claim(self) -> PrivacyClaim:
        """The guarantee as the paper states it, at this learner's parameters."""

    @property
    def claim(self) -> tuple[float, float]:
        """(ε, δ) as claimed (the [mechanism contract][ltheory.privacy.mechanisms.Mechanism])."""
        return self.privacy_claim.as_tuple()

    @abstractmethod
    def fit(self, dataset: Sequence[tuple[Any, int]], rng: np.random.Generator) -> Hashable:
        """Run the learner once on ``dataset`` with randomness from ``rng``."""

    def __call__(self, dataset: Sequence[tuple[Any, int]], rng: np.random.Generator) -> Hashable:
        return self.fit(dataset, rng)

    def sample(self, dataset: Sequence[tuple[Any, int]], n: int,
               rng: np.random.Generator) -> list[Hashable]:
        """n independent runs (learners with a vectorised form override this)."""
        return [self.fit(dataset, rng) for _ in range(n)]

    @property
    def name(self) -> str:
        return type(self).__name__

    def record_space(self) -> tuple | None:
        """The finite alphabet of records a dataset of this learner is built from, as the
        worst-case neighbour search (``ltheory.privacy.audit_worst_case``) enumerates it; None
        when the learner cannot name one (then pass ``records=`` to the search)."""
        return None


def check_dataset(dataset: Any, *, domain_size: int | None = None,
                  allow_empty: bool = False) -> Dataset:
    """Validate a labelled dataset at the boundary: a sequence of (x, y) with y in {0, 1}."""
    try:
        pairs = tuple((x, y) for x, y in dataset)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError("a dataset is a sequence of (x, y) pairs with y in {0, 1}"
                                ) from exc
    if not pairs and not allow_empty:
        raise InvalidInputError("the dataset is empty; a learner needs at least one example")
    for i, (x, y) in enumerate(pairs):
        if isinstance(y, bool) or not isinstance(y, int | np.integer) or int(y) not in (0, 1):
            raise InvalidInputError(f"example {i}: label {y!r} is not 0 or 1")
        if domain_size is not None:
            if isinstance(x, bool) or not isinstance(x, int | np.integer) or not (
                    0 <= int(x) < domain_size):
                raise InvalidInputError(f"example {i}: point {x!r} is not an index in "
                                        f"0..{domain_size - 1}")
    return tuple((x if domain_size is None else int(x), int(y)) for x, y in pairs)


@dataclass(frozen=True)
class LearnerAuditCase:
    """One small configuration at which a learner's claim is audited (tests and the script that
    regenerates ``catalog/learners.toml``).  ``broken`` builds a deliberately broken variant that
    the auditor must flag, on (``broken_d0``, ``broken_d1``) when its leak shows on another pair
    than the honest audit's; ``runs`` is enough for a meaningful bound at this size."""

    name: str
    make: Callable[[], PrivateLearner]
    d0: Any
    d1: Any
    runs: int
    setting: str
    broken: Callable[[], Any] | None = None
    broken_note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    broken_d0: Any = None
    broken_d1: Any = None

    def broken_pair(self) -> tuple[Any, Any]:
        """The neighbouring pair on which the broken variant is audited."""
        if (self.broken_d0 is None) != (self.broken_d1 is None):
            raise ValueError(f"{self.name}: give both broken_d0 and broken_d1, or neither")
        if self.broken_d0 is None:
            return self.d0, self.d1
        return self.broken_d0, self.broken_d1
