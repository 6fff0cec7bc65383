"""The neighbouring pairs ``assert_private_search`` tries: drawn from a hypothesis strategy, given
as a list, or generated around a dataset by the auditor's neighbour generators.

* A hypothesis ``SearchStrategy`` of ``(d0, d1)`` pairs (e.g.
  ``ltheory.strategies.neighbouring_datasets(domain_size, n)`` or
  ``neighbouring_query_answers(k)``): up to ``max_pairs`` distinct pairs are drawn with
  hypothesis's generator, seeded (``hypothesis.seed``) so the same seed draws the same pairs.
* A list of pairs ``[(d0, d1), …]`` or ``[(name, d0, d1), …]``, as ``datasets`` or as
  ``neighbours=``.  (A list of ``(x, y)`` items with every y in {0, 1} and x a single value is
  read as one labelled dataset; pass such pairs as ``neighbours=`` to mean pairs.)
* One dataset and ``neighbours=``, by the mechanism's neighbour relation (the pairs of
  ``ltheory.privacy.auditing.search.candidate_pairs``, a seeded random subset of ``max_pairs``
  when there are more):

  - a labelled dataset (tuple of ``(x, y)`` pairs; relations "substitution", "add_remove"):
    ``"auto"``, ``"flip"``, ``"move"``, ``"substitution"``, ``"add_remove"``;
  - a vector of query answers (``neighbour_relation = "query_answers"``): ``"auto"``,
    ``"patterns"`` (StatDP's), ``"extended"`` (more patterns), ``"sample"`` (random ones);
  - a single count or query value v: ``"auto"``, the pairs (v, v + s) and (v, v − s), s the
    mechanism's ``sensitivity`` (default 1), as ``assert_private(mechanism, 0, 1, ...)``.

Every pair is checked to be neighbours under the mechanism's relation; a strategy or list that
gives a pair which is not is a bad input (the message names the pair), a generated one is skipped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.neighbours import check_neighbours
from ltheory.privacy.auditing.search import neighbouring_candidates


def _is_strategy(x: Any) -> bool:
    try:
        from hypothesis.strategies import SearchStrategy
    except ImportError:  # pragma: no cover - hypothesis is a dependency
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


LABELLED = ("auto", "flip", "move", "substitution", "add_remove")
QUERY = ("auto", "patterns", "extended", "sample")
SCALAR = ("auto", "substitution")
_ACCEPTED_DATASETS = ("datasets must be a hypothesis strategy of (d0, d1) pairs, a list of pairs "
                      "[(d0, d1), ...], a labelled dataset (a tuple of (x, y) pairs) with "
                      "neighbours=, a vector of query answers (the mechanism declares "
                      "neighbour_relation = 'query_answers'), or a single count")


def _is_scalar(x: Any) -> bool:
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(x, bool)


def _looks_labelled(items: Any) -> bool:
    """Every item an (x, y) with x a single value and y in {0, 1}: one labelled dataset."""
    def one(p: Any) -> bool:
        return (len(p) == 2 and isinstance(p[0], str | int | np.integer)
                and not isinstance(p[0], bool) and p[1] in (0, 1))
    return all(one(p) for p in items)


def pair_list(datasets: Any) -> list[tuple] | None:
    """``datasets`` as a list of (name, d0, d1) when it is a list of pairs (see
    [`ltheory.testing.pairs`][ltheory.testing.pairs]),
    else None."""
    if not isinstance(datasets, list | tuple) or not datasets:
        return None
    if not all(isinstance(p, list | tuple) for p in datasets):
        return None
    if _looks_labelled(datasets):
        return None
    out = []
    for i, p in enumerate(datasets):
        if len(p) == 3 and isinstance(p[0], str):
            out.append(tuple(p))
        elif len(p) == 2:
            out.append((f"pair {i}", p[0], p[1]))
        else:
            return None
    return out


def _checked(mechanism: Any, pairs: list[tuple], source: str) -> list[tuple]:
    for name, a, b in pairs:
        try:
            check_neighbours(mechanism, a, b)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{source} {name} = ({_short(a)}, {_short(b)}), which is "
                                    f"not a neighbouring pair: {exc}") from None
    return pairs


def _short(d: Any, limit: int = 60) -> str:
    s = repr(d)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _check_neighbours_option(mechanism: Any, dataset: Any, neighbours: str) -> None:
    """A clear error when ``neighbours`` does not apply to this dataset and mechanism."""
    rel = getattr(mechanism, "neighbour_relation", "substitution")
    if _is_scalar(dataset):
        kind, accepted = "a single count or query value", SCALAR
    elif rel in ("query_answers", "single_entry"):
        kind, accepted = f"vectors of query answers (neighbour_relation {rel!r})", QUERY
    else:
        kind, accepted = f"a labelled dataset (neighbour_relation {rel!r})", LABELLED
    if neighbours in accepted:
        return
    hint = ""
    if neighbours in QUERY and accepted is not QUERY:
        hint = (f"; {neighbours!r} generates StatDP patterns for vectors of query answers, "
                "which needs a mechanism with neighbour_relation = 'query_answers'")
    elif neighbours in LABELLED and accepted is QUERY:
        hint = f"; {neighbours!r} applies to labelled datasets"
    raise InvalidInputError(f"neighbours={neighbours!r} does not apply to {kind}; accepted: "
                            f"{', '.join(accepted)}, or a list of pairs{hint}")


def search_pairs(mechanism: Any, datasets: Any, neighbours: Any, max_pairs: int,
                 seed: int) -> tuple[list[tuple], int]:
    """(pairs as (name, d0, d1), how many were considered before the max_pairs cut)."""
    if isinstance(max_pairs, bool) or not isinstance(max_pairs, int) or max_pairs < 1:
        raise InvalidInputError(f"max_pairs must be an integer >= 1, got {max_pairs!r}")
    explicit = not isinstance(neighbours, str)
    if datasets is None and not explicit:
        raise InvalidInputError("assert_private_search needs datasets: "
                                + _ACCEPTED_DATASETS.removeprefix("datasets must be ")
                                + " (or the pairs as neighbours=[(d0, d1), ...])")
    if _is_strategy(datasets):
        drawn = [_as_named(i, p) for i, p in enumerate(draw_pairs(datasets, max_pairs, seed))]
        if not drawn:
            raise InvalidInputError("the dataset strategy drew no pairs")
        return _checked(mechanism, drawn, "the dataset strategy drew"), len(drawn)
    given = None if explicit else pair_list(datasets)
    if given is not None:
        if neighbours != "auto":
            raise InvalidInputError(f"datasets is a list of pairs; neighbours={neighbours!r} "
                                    "generates pairs around one dataset (leave it 'auto')")
        valid, n_candidates = _checked(mechanism, given, "datasets holds"), len(given)
    elif _is_scalar(datasets) and not explicit:
        _check_neighbours_option(mechanism, datasets, neighbours)
        s = float(getattr(mechanism, "sensitivity", 1.0))
        v = datasets
        around = [(f"{v!r} + {s:g}", v, v + s), (f"{v!r} - {s:g}", v, v - s)]
        valid = [(n, a, b) for n, a, b in around if _neighbours(mechanism, a, b)]
        n_candidates = len(around)
        if not valid:
            raise InvalidInputError(f"no neighbouring pairs around the count {v!r}: neither "
                                    f"{v!r} ± {s:g} is a neighbour under the mechanism's relation")
    else:
        if not explicit:
            _check_neighbours_option(mechanism, datasets, neighbours)
        try:
            valid, n_candidates = neighbouring_candidates(mechanism, datasets, neighbours, seed,
                                                          "test")
        except InvalidInputError as exc:
            if "expects a labelled dataset" in str(exc):
                raise InvalidInputError(f"datasets={_short(datasets)} is not a dataset "
                                        f"neighbours={neighbours!r} can search around: "
                                        f"{_ACCEPTED_DATASETS}") from None
            raise
    if len(valid) > max_pairs:
        rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[1])
        idx = rng.choice(len(valid), size=max_pairs, replace=False)
        valid = [valid[i] for i in sorted(idx)]
    return valid, n_candidates


def _neighbours(mechanism: Any, a: Any, b: Any) -> bool:
    try:
        check_neighbours(mechanism, a, b)
    except InvalidInputError:
        return False
    return True
