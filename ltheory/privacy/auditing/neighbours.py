"""Neighbouring pairs: the relation check and the pair generators of the neighbour search.

Generators (``neighbours=`` of ``audit_search``):

* labelled datasets (relation ``substitution``): ``"flip"`` (flip one label), ``"move"`` (move one
  record to another domain point, same label), ``"substitution"`` (every single-record
  substitution over domain × {0, 1}), ``"add_remove"`` (remove one record, or add one record
  (z, b) for every domain point z and label b); ``"auto"`` = substitution, or add_remove for a
  mechanism declaring that relation.
* query answers (relations ``query_answers``, ``single_entry``): ``"patterns"`` — the input
  patterns of Ding et al. 2018 (StatDP, Section 5.2), offsets around the given answer vector
  scaled by the sensitivity: one above, one below, one above rest below, one below rest above,
  half-half, all above, all below, X-shape; ``"extended"`` adds every split point h of the
  half-half and X shapes (up-shifted X too: sparse-vector leaks depend on where the ⊤ can
  fall; no random pairs); ``"sample"``: random pairs with independent offsets in {−Δ, 0, +Δ};
  ``"auto"`` = patterns and 8 random pairs.  Pairs equal to another (or to its swap) are dropped.
* an explicit list of ``(d0, d1)`` or ``(name, d0, d1)``.

Every generated pair is checked against the mechanism's relation (`check_neighbours`)
before it is audited (`neighbouring_candidates`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.target import as_target

__all__ = ["candidate_pairs", "check_neighbours", "labelled_neighbours",
           "neighbouring_candidates", "query_patterns"]


def _same(d0: Any, d1: Any) -> bool:
    try:
        r = d0 == d1
        if isinstance(r, np.ndarray):
            return bool(np.array_equal(np.asarray(d0), np.asarray(d1)))
        return bool(r)
    except Exception:  # noqa: BLE001
        return False


def check_neighbours(mechanism: Any, d0: Any, d1: Any) -> None:
    """Raise ``InvalidInputError`` unless d0 and d1 are distinct neighbours under the target's
    relation (its own ``are_neighbours``, or ``mechanisms.are_neighbours`` for its declared
    relation and sensitivity), naming the relation and its rule."""
    if _same(d0, d1):
        raise InvalidInputError("d0 and d1 are the same dataset; an audit needs two distinct "
                                "neighbouring datasets")
    t = as_target(mechanism)
    if not t.are_neighbours(d0, d1):
        rel = t.relation if not t.declares_neighbours or t.relation != "substitution" \
            else "declared"
        raise InvalidInputError(f"d0 and d1 are not neighbours under the mechanism's relation "
                                f"{rel!r} ({t.relation_rule()})")


def _domain_size(mechanism: Any, dataset: Sequence) -> int:
    size = as_target(mechanism).domain_size
    return size if size is not None else max(int(x) for x, _ in dataset) + 1


def labelled_neighbours(mechanism: Any, dataset: Sequence, kind: str) -> list[tuple]:
    d = tuple((x, int(y)) for x, y in dataset)
    out: list[tuple] = []
    m = _domain_size(mechanism, d) if kind in ("move", "substitution", "add_remove") else 0
    if kind == "add_remove":
        for i, r in enumerate(d):
            out.append((f"remove record {i}: {r}", d, d[:i] + d[i + 1:]))
        for z in range(m):
            for b in (0, 1):
                out.append((f"add record {(z, b)}", d, d + ((z, b),)))
        return out
    for i, (x, y) in enumerate(d):
        subs: list[tuple] = []
        if kind == "flip":
            subs = [(x, 1 - y)]
        elif kind == "move":
            subs = [(z, y) for z in range(m) if z != x]
        else:
            subs = [(z, b) for z in range(m) for b in (0, 1) if (z, b) != (x, y)]
        for s in subs:
            out.append((f"record {i}: {(x, y)} -> {s}", d, d[:i] + (s,) + d[i + 1:]))
    return out


def _floats(v: np.ndarray) -> tuple[float, ...]:
    return tuple(float(x) for x in v)


def query_patterns(base: Sequence[float], sensitivity: float = 1.0, n_random: int = 0,
                   rng: np.random.Generator | None = None, extended: bool = False) -> list[tuple]:
    """The StatDP patterns (see
    [`ltheory.privacy.auditing.neighbours`][ltheory.privacy.auditing.neighbours]) around ``base``,
    plus random pairs; ``extended``
    adds the split-point variants of half-half and X-shape."""
    q = np.asarray(base, dtype=float).ravel()
    k, h = q.size, max(q.size // 2, 1)
    ones = np.ones(k)
    pats = {
        "one above": (ones, np.r_[2, ones[1:]]),
        "one below": (ones, np.r_[0, ones[1:]]),
        "one above rest below": (ones, np.r_[2, np.zeros(k - 1)]),
        "one below rest above": (ones, np.r_[0, 2 * ones[1:]]),
        "half-half": (ones, np.r_[np.zeros(h), 2 * ones[h:]]),
        "all above": (ones, 2 * ones),
        "all below": (ones, 0 * ones),
        "X-shape": (np.r_[ones[:h], np.zeros(k - h)], np.r_[np.zeros(h), ones[h:]]),
    }
    if extended and k > 2:
        splits = range(1, k) if k <= 16 else sorted({max(1, round(k * f / 8)) for f in range(1, 8)})
        for j in splits:
            pats[f"half-half h={j}"] = (ones, np.r_[2 * ones[:j], np.zeros(k - j)])
            pats[f"X-shape h={j}"] = (np.r_[ones[:j], np.zeros(k - j)],
                                      np.r_[np.zeros(j), ones[j:]])
            pats[f"X-shape above h={j}"] = (np.r_[2 * ones[:j], ones[j:]],
                                            np.r_[ones[:j], 2 * ones[j:]])
    out = []
    for name, (a, b) in pats.items():
        if not np.array_equal(a, b):
            out.append((name, _floats(q + sensitivity * (a - 1)),
                        _floats(q + sensitivity * (b - 1))))
    rng = rng or np.random.default_rng(0)
    for j in range(n_random):
        off = rng.integers(-1, 2, size=k)
        if not off.any():
            off[0] = 1
        out.append((f"random {j}", _floats(q), _floats(q + sensitivity * off)))
    return out


def candidate_pairs(mechanism: Any, dataset: Any, neighbours: Any, seed: int) -> list[tuple]:
    if not isinstance(neighbours, str):
        pairs = []
        for i, p in enumerate(neighbours):
            if len(p) == 3:
                pairs.append(tuple(p))
            elif len(p) == 2:
                pairs.append((f"pair {i}", p[0], p[1]))
            else:
                raise InvalidInputError("explicit neighbours must be (d0, d1) or (name, d0, d1)")
        return pairs
    t = as_target(mechanism)
    rel = t.relation
    if rel in ("query_answers", "single_entry"):
        if neighbours not in ("auto", "patterns", "extended", "sample"):
            raise InvalidInputError(f"neighbours={neighbours!r} does not apply to query answers; "
                                    "accepted: auto, patterns, extended, sample, or a list of "
                                    "pairs")
        rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[2])
        pats = query_patterns(dataset, t.sensitivity,
                              8 if neighbours in ("auto", "sample") else 0, rng,
                              extended=neighbours == "extended")
        if neighbours == "sample":
            pats = [p for p in pats if p[0].startswith("random")]
        return _distinct(pats)
    kind = neighbours
    if neighbours == "auto":
        kind = "add_remove" if rel == "add_remove" else "substitution"
    if kind in ("patterns", "extended", "sample"):
        raise InvalidInputError(f"neighbours={neighbours!r} generates query-answer vectors, for "
                                "mechanisms of relation 'query_answers' or 'single_entry'; this "
                                f"mechanism's relation is {rel!r}: accepted auto, flip, move, "
                                "substitution, add_remove, or a list of pairs")
    if kind not in ("flip", "move", "substitution", "add_remove"):
        raise InvalidInputError(f"neighbours={neighbours!r} unknown; accepted: auto, flip, move, "
                                "substitution, add_remove (labelled datasets), patterns, "
                                "extended, sample (query answers), or a list of pairs")
    try:
        return labelled_neighbours(mechanism, dataset, kind)
    except (TypeError, ValueError):
        raise InvalidInputError("neighbour search expects a labelled dataset (tuple of (x, y) "
                                "pairs) for this mechanism") from None


def _distinct(pairs: list[tuple]) -> list[tuple]:
    """Drop pairs equal to an earlier one or to its swap (events are tried in both
    directions)."""
    seen: set = set()
    out = []
    for name, a, b in pairs:
        key = frozenset((tuple(np.ravel(a).tolist()), tuple(np.ravel(b).tolist())))
        if key not in seen:
            seen.add(key)
            out.append((name, a, b))
    return out


def neighbouring_candidates(mechanism: Any, dataset: Any, neighbours: Any, seed: int,
                            purpose: str = "audit"
                            ) -> tuple[list[tuple[str, Any, Any]], int]:
    """The candidate pairs of `candidate_pairs` that are neighbours under the
    mechanism's relation (others are dropped), as (name, d0, d1), and the number of
    candidates; a clear error when none is left (``purpose`` names what the pairs were for in
    that message)."""
    valid = []
    pairs = candidate_pairs(mechanism, dataset, neighbours, seed)
    for name, a, b in pairs:
        try:
            check_neighbours(mechanism, a, b)
        except InvalidInputError:
            continue
        valid.append((name, a, b))
    if not valid:
        raise InvalidInputError(f"no neighbouring pairs to {purpose}: the generator produced "
                                f"none that are neighbours under the mechanism's relation")
    return valid, len(pairs)


