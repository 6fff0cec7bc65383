"""The neighbouring pairs ``assert_private_search`` tries: drawn from a hypothesis strategy, or
generated around a dataset by the auditor's neighbour generators.

* A hypothesis ``SearchStrategy`` of ``(d0, d1)`` pairs (e.g.
  ``ltheory.strategies.neighbouring_datasets(domain_size, n)`` or
  ``neighbouring_query_answers(k)``): up to ``max_pairs`` distinct pairs are drawn with
  hypothesis's generator, seeded (``hypothesis.seed``) so the same seed draws the same pairs.
* A dataset and ``neighbours=`` (``"auto"``, ``"flip"``, ``"move"``, ``"substitution"``,
  ``"add_remove"``, ``"patterns"``, ``"sample"`` or an explicit list of pairs): the pairs of
  ``ltheory.privacy.auditing.search.candidate_pairs`` (StatDP patterns for query answers), a
  seeded random subset of ``max_pairs`` when there are more.

Every pair is checked to be neighbours under the mechanism's relation; a strategy that draws a
pair which is not is a bad input (the message names the pair), a generated one is skipped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.core import check_neighbours
from ltheory.privacy.auditing.search import neighbouring_candidates


def _is_strategy(x: Any) -> bool:
    try:
        from hypothesis.strategies import SearchStrategy
    except ImportError:  # pragma: no cover - hypothesis is a test dependency
        return False
    return isinstance(x, SearchStrategy)


def draw_pairs(strategy: Any, max_pairs: int, seed: int) -> list[tuple]:
    """Up to ``max_pairs`` distinct examples of ``strategy``, reproducibly for a seed."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    out: list = []
    seen: set[str] = set()

    @hseed(seed)
    @settings(max_examples=max_pairs, database=None, phases=[Phase.generate], deadline=None,
              derandomize=False, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example: Any) -> None:
        key = repr(example)
        if key not in seen and len(out) < max_pairs:
            seen.add(key)
            out.append(example)

    collect()
    return out


def _as_named(i: int, p: Any) -> tuple:
    try:
        items = tuple(p)
    except TypeError:
        items = ()
    if len(items) == 2:
        return (f"pair {i}", items[0], items[1])
    if len(items) == 3:
        return (str(items[0]), items[1], items[2])
    raise InvalidInputError(f"a dataset strategy must draw pairs (d0, d1) or (name, d0, d1), got "
                            f"{p!r}")


def search_pairs(mechanism: Any, datasets: Any, neighbours: Any, max_pairs: int,
                 seed: int) -> tuple[list[tuple], int]:
    """(pairs as (name, d0, d1), how many were considered before the max_pairs cut)."""
    if isinstance(max_pairs, bool) or not isinstance(max_pairs, int) or max_pairs < 1:
        raise InvalidInputError(f"max_pairs must be an integer >= 1, got {max_pairs!r}")
    if _is_strategy(datasets):
        drawn = [_as_named(i, p) for i, p in enumerate(draw_pairs(datasets, max_pairs, seed))]
        for name, a, b in drawn:
            try:
                check_neighbours(mechanism, a, b)
            except InvalidInputError as exc:
                raise InvalidInputError(f"the dataset strategy drew {name} = ({a!r}, {b!r}), "
                                        f"which is not a neighbouring pair: {exc}") from None
        if not drawn:
            raise InvalidInputError("the dataset strategy drew no pairs")
        return drawn, len(drawn)
    valid, n_candidates = neighbouring_candidates(mechanism, datasets, neighbours, seed, "test")
    if len(valid) > max_pairs:
        rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[1])
        idx = rng.choice(len(valid), size=max_pairs, replace=False)
        valid = [valid[i] for i in sorted(idx)]
    return valid, n_candidates
