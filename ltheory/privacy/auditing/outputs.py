"""Drawing runs of a mechanism and normalising its outputs into batches.

A batch is one of: a 1-D float array (scalar outputs), a 2-D float array (vector outputs, one row
per run) or a list of hashable objects (anything else).  Runs are drawn by
``target.Target.draw``, which normalises them here.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError

Batch = np.ndarray | list


class MechanismError(InvalidInputError):
    """The audited mechanism raised, or returned outputs the auditor cannot use."""


def normalise(raw: Any, n: int, copy: bool = True) -> Batch:
    """The batch of ``n`` outputs ``raw`` (as ``mechanism.sample`` returned them): a float
    array (1-D for scalar outputs, one row per run for vectors) or a list of hashable outputs.
    ``copy=False`` lets a float64 array through without a copy (the batch may then share
    memory with what the mechanism returned: for batches used at once and dropped)."""
    if isinstance(raw, np.ndarray):
        arr = raw
    else:
        try:
            items = list(raw)
        except TypeError:
            raise MechanismError(f"mechanism.sample returned {type(raw).__name__}, expected a "
                                 "sequence of outputs") from None
        if len(items) and all(isinstance(o, numbers.Real) and not isinstance(o, bool)
                              or isinstance(o, bool | np.bool_) for o in items):
            arr = np.asarray(items, dtype=float)
        elif len(items) and all(isinstance(o, np.ndarray) for o in items):
            shapes = {o.shape for o in items}
            if len(shapes) != 1:
                raise MechanismError("mechanism returned numpy arrays of different shapes "
                                     f"{sorted(shapes)[:3]}; outputs must have one shape")
            arr = np.stack(items)
        else:
            for o in items:
                try:
                    hash(o)
                except TypeError:
                    raise MechanismError(f"mechanism returned an unhashable output of type "
                                         f"{type(o).__name__}; accepted: numbers, numpy arrays "
                                         "or hashable values") from None
            if len(items) != n:
                raise MechanismError(f"mechanism returned {len(items)} outputs, expected {n}")
            _refuse_mixed_numbers(items)
            return items
    if arr.dtype == object:
        return normalise(list(arr), n)
    if arr.shape[:1] != (n,):
        raise MechanismError(f"mechanism.sample returned shape {arr.shape}, expected {n} runs")
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        return normalise(arr.tolist(), n)
    arr = arr.astype(float, copy=copy)
    arr = arr.reshape(n, -1) if arr.ndim > 1 else arr
    if np.isnan(arr).any():
        raise MechanismError("mechanism returned NaN outputs; outputs must be comparable")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    return arr


def _refuse_mixed_numbers(items: list) -> None:
    """Outputs that mix non-integer numbers with other values (strings, tuples, None …) would
    be audited as opaque objects, every noisy number its own cell, so no event could separate
    the datasets and the audit would pass silently: refused."""
    other = next((o for o in items if not isinstance(o, numbers.Real)), None)
    if other is None:
        return
    num = next((o for o in items if isinstance(o, numbers.Real) and not isinstance(o, bool)
                and not float(o).is_integer()), None)
    if num is not None:
        raise MechanismError(
            f"mechanism returned a mix of numbers and other values (e.g. {num!r} and "
            f"{other!r}): a number among objects is compared by equality only, so noisy "
            "numbers could never be told apart; return numbers only (encode the other "
            "outcomes as numbers, or as a separate coordinate of a numpy array) or "
            "non-numeric values only")


def concat(batches: list[Batch]) -> Batch:
    if all(isinstance(b, np.ndarray) for b in batches):
        dims = {b.ndim for b in batches} | {b.shape[1:] for b in batches if b.ndim == 2}
        if len({b.ndim for b in batches}) == 1 and len(dims) <= 2:
            return np.concatenate(batches)
    out: list = []
    for b in batches:
        out.extend(b.tolist() if isinstance(b, np.ndarray) else b)
    out = [tuple(o) if isinstance(o, list) else o for o in out]
    _refuse_mixed_numbers(out)
    return out


def row_keys(x: np.ndarray) -> np.ndarray:
    """One int64 key per row of a 2-D array: equal iff the rows are equal (as values: ``-0.0``
    and ``0.0`` are one value), ordered as the rows are lexicographically.

    Each column is ranked by a 1-D sort and the ranks are combined in mixed radix, the key so
    far re-ranked before it could overflow: a few 1-D sorts, where ``np.unique(axis=0)`` sorts
    the rows as byte strings (~20 µs per row of 10 floats)."""
    key = np.zeros(len(x), dtype=np.int64)
    size = 1                                  # keys lie in [0, size)
    for j in range(x.shape[1]):
        vals, rank = np.unique(x[:, j], return_inverse=True)
        if size * len(vals) >= 2**62:         # re-rank the key so far: at most len(x) values
            uk, key = np.unique(key, return_inverse=True)
            size = len(uk)
        key = key * len(vals) + rank.ravel()
        size *= len(vals)
    return key


#: `unique_rows` of more than 4× this many rows first reads this many; when all rows are among
#: their (at most `HEAD_PATTERNS`) distinct rows, nothing else is sorted.
HEAD_ROWS, HEAD_PATTERNS = 20_000, 4_096


def unique_rows(x: np.ndarray, return_counts: bool = False
                ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-D array in lexicographic order (as ``np.unique(x, axis=0)``,
    ``-0.0`` and ``0.0`` one value), and their counts with ``return_counts``; ~50× faster than
    ``np.unique(axis=0)`` on the 2·10^5 selection runs of a sparse vector (`row_keys`).

    Examples:
        >>> unique_rows(np.array([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0]]), return_counts=True)
        (array([[0., 5.],
               [1., 2.]]), array([1, 2]))
    """
    x = np.asarray(x)
    if x.ndim != 2 or not x.size:
        return np.unique(x, axis=0, return_counts=return_counts)
    if len(x) > 4 * HEAD_ROWS and x.dtype.kind in "fiub":
        # the first rows' distinct rows, and every row looked up among them by one binary
        # search; only the rows not found are sorted (each distinct row is represented by its
        # first occurrence, all in row order, as below): the 6·10^6 selection rows of a
        # sparse vector audited at 2·10^7 runs (`distinct_outputs`, the cell encoder) in
        # ~0.7 s, not ~2.5 s
        pats = unique_rows(x[:HEAD_ROWS])
        found = _match_by_columns(pats, x) if len(pats) <= HEAD_PATTERNS else None
        miss = None if found is None else found < 0
        if miss is not None and 4 * int(miss.sum()) <= len(x):
            counts = np.bincount(found[~miss], minlength=len(pats))
            if miss.any():          # rows of patterns the head lacks: sorted among themselves
                mu, mc = unique_rows(x[miss], return_counts=True)
                both = np.concatenate([pats, mu])
                order = np.argsort(row_keys(both), kind="stable")
                pats, counts = both[order], np.concatenate([counts, mc])[order]
            return (pats, counts) if return_counts else pats
    _, first, counts = np.unique(row_keys(x), return_index=True, return_counts=True)
    rows = x[first]
    return (rows, counts) if return_counts else rows


def match_rows(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each row of ``rows`` its index in ``values`` (distinct rows, 2-D), or −1 where it
    is not among them; rows match as values (`row_keys`).

    Examples:
        >>> match_rows(np.array([[0.0, 5.0], [1.0, 2.0]]), np.array([[1.0, 2.0], [3.0, 3.0]]))
        array([ 1, -1])
    """
    values, rows = np.asarray(values, dtype=float), np.asarray(rows, dtype=float)
    if not len(rows):
        return np.zeros(0, dtype=np.int64)
    if not len(values):
        return np.full(len(rows), -1, dtype=np.int64)
    found = _match_by_columns(values, rows)
    if found is not None:
        return found
    key = row_keys(np.concatenate([values, rows]))
    kv, kr = key[: len(values)], key[len(values):]
    order = np.argsort(kv, kind="stable")
    sk = kv[order]
    i = np.clip(np.searchsorted(sk, kr), 0, len(sk) - 1)
    return np.where(sk[i] == kr, order[i], -1).astype(np.int64)


#: Rows per batch that `distinct_outputs` looks at first when given a ``limit`` (beyond the
#: limit's own need): continuous outputs show more than the limit among them.
PREFIX_ROWS = 1_000


#: The most distinct values (NaN counted) that `_value_index` reads by one comparison each of
#: the whole array instead of a binary search per entry.
COMPARE_VALUES = 8


def _value_index(u: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``min(searchsorted(u, x), len(u) − 1)`` for the sorted distinct values ``u`` (NaN last,
    at most once): an entry's position among ``u`` where it is one of them.  With at most
    `COMPARE_VALUES` values, the count of values below each entry, one comparison of the
    whole array per value (a sparse vector's ⊤/⊥ codes); NaN entries, which no comparison
    counts, are placed where the clipped binary search puts them (the last index)."""
    if len(u) > COMPARE_VALUES:
        return np.minimum(np.searchsorted(u, x), len(u) - 1)
    i = np.zeros(x.shape, dtype=np.int64)
    for v in u[:-1]:                 # the last value is never below an entry that is in u
        if np.isnan(v):
            break
        i += v < x
    i[np.isnan(x)] = len(u) - 1
    return i


def _match_by_columns(values: np.ndarray, rows: np.ndarray) -> np.ndarray | None:
    """`match_rows` by looking every entry of ``rows`` up among the few values the known rows
    take (`_value_index` over the whole array, no sort of ``rows``: the certification
    split's 10^7 rows of a sparse vector are matched against its ~10 patterns several times
    faster), the indices combined in mixed radix; None when the radix product would
    overflow."""
    u = np.unique(values)                           # sorted, NaNs last and as one value
    k = values.shape[1]
    if len(u) ** k >= 2**62:
        return None
    radix = len(u) ** np.arange(k - 1, -1, -1, dtype=np.int64)
    i = _value_index(u, rows)
    hit = u[i] == rows
    if np.isnan(u[-1]):
        hit |= np.isnan(rows) & (i == len(u) - 1)
    ok = hit.all(axis=1)
    code = i @ radix
    vcode = _value_index(u, values) @ radix
    order = np.argsort(vcode, kind="stable")
    sk = vcode[order]
    j = np.minimum(np.searchsorted(sk, code), len(sk) - 1)
    return np.where(ok & (sk[j] == code), order[j], -1).astype(np.int64)


def distinct_outputs(*batches: Batch, limit: int | None = None) -> int:
    """The number of distinct outputs over the batches (of one kind).  With ``limit``, only
    whether it exceeds ``limit`` is exact: when the first ``4·limit + PREFIX_ROWS`` outputs of
    each batch already hold more than ``limit`` distinct ones, that count is returned without
    reading the rest (a 2·10^7-run audit of a 20-coordinate output sorted all of its
    selection rows to learn they are not few)."""
    if limit is not None:
        m = 4 * int(limit) + PREFIX_ROWS
        if any(len(b) > m for b in batches):
            head = distinct_outputs(*(b[:m] for b in batches))
            if head > limit:
                return head
    if all(isinstance(b, np.ndarray) for b in batches):
        pooled = np.concatenate(batches)
        return len(unique_rows(pooled) if pooled.ndim > 1 else np.unique(pooled))
    return len({o for b in batches for o in b})


def column_values(x: np.ndarray, limit: int, head: int = 20_000) -> list[np.ndarray | None]:
    """Per column of the 2-D array ``x``: its distinct values, sorted (as ``np.unique``), when
    there are at most ``limit``, else None.  The first ``head`` rows are read first (a column
    with more there has more in all); the rest are looked up among those values
    (`_value_index`), and only the entries not found are sorted — no sort of a 10^6-row column that
    holds the same few values throughout."""
    out: list[np.ndarray | None] = []
    for j in range(x.shape[1]):
        col = x[:, j]
        u = np.unique(col[:head])
        if len(u) > limit:
            out.append(None)
            continue
        if len(col) > head:
            rest = col[head:]
            i = _value_index(u, rest)
            miss = ~((u[i] == rest) | (np.isnan(rest) & np.isnan(u[i])))
            if miss.any():
                u = np.unique(np.concatenate([u, rest[miss]]))
        out.append(u if len(u) <= limit else None)
    return out


def block_patterns(x: np.ndarray, values: list[np.ndarray], limit: int) -> np.ndarray | None:
    """The distinct rows of the 2-D array ``x`` in lexicographic order (as `unique_rows`), or
    None when there are more than ``limit``; ``values[j]`` are column j's distinct values
    (`column_values`), so each row is coded in mixed radix by lookups among them
    (`_value_index`), where the product of the columns' numbers of values fits in an int64
    (else `unique_rows`)."""
    sizes = [len(v) for v in values]
    if math.prod(sizes) >= 2**62:
        if distinct_outputs(x, limit=limit) > limit:
            return None
        return unique_rows(x)
    code = np.zeros(len(x), dtype=np.int64)
    for j, v in enumerate(values):
        code = code * len(v) + _value_index(v, x[:, j])
    codes = np.unique(code)
    if len(codes) > limit:
        return None
    rows = np.empty((len(codes), len(values)))
    for j in range(len(values) - 1, -1, -1):
        codes, r = np.divmod(codes, len(values[j]))
        rows[:, j] = values[j][r]
    return rows


#: The most distinct values of a *few-valued* coordinate (`mixed_output`; the cell families'
#: ``events.BINS``).
FEW_VALUES = 16


def mixed_output(s0: Batch, s1: Batch, limit: int = FEW_VALUES) -> bool:
    """Whether the vector outputs ``s0``, ``s1`` mix coordinates of at most ``limit`` distinct
    values with coordinates of more (sparse vector's ⊤/⊥ codes beside its released values)."""
    if batch_kind(s0) != "vector" or not len(s0) or not len(s1):
        return False
    x = np.concatenate([np.asarray(s0, dtype=float), np.asarray(s1, dtype=float)])
    if x.ndim != 2:
        return False
    few = [v is not None for v in column_values(x, limit)]
    return any(few) and not all(few)


def true_runs(flags: list[bool]) -> list[tuple[int, int]]:
    """The maximal runs of consecutive True entries of ``flags``, as (start, end) slices."""
    out: list[tuple[int, int]] = []
    j, k = 0, len(flags)
    while j < k:
        if not flags[j]:
            j += 1
            continue
        start = j
        while j < k and flags[j]:
            j += 1
        out.append((start, j))
    return out


def batch_kind(b: Batch) -> str:
    if isinstance(b, np.ndarray):
        return "scalar" if b.ndim == 1 else "vector"
    return "object"
