"""Drawing runs of a mechanism and normalising its outputs into batches.

A batch is one of: a 1-D float array (scalar outputs), a 2-D float array (vector outputs, one row
per run) or a list of hashable objects (anything else).  Runs are drawn by
``target.Target.draw``, which normalises them here.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError

Batch = np.ndarray | list


class MechanismError(InvalidInputError):
    """The audited mechanism raised, or returned outputs the auditor cannot use."""


def normalise(raw: Any, n: int) -> Batch:
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
            return items
    if arr.dtype == object:
        return normalise(list(arr), n)
    if arr.shape[:1] != (n,):
        raise MechanismError(f"mechanism.sample returned shape {arr.shape}, expected {n} runs")
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        return normalise(arr.tolist(), n)
    arr = arr.astype(float).reshape(n, -1) if arr.ndim > 1 else arr.astype(float)
    if np.isnan(arr).any():
        raise MechanismError("mechanism returned NaN outputs; outputs must be comparable")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    return arr


def concat(batches: list[Batch]) -> Batch:
    if all(isinstance(b, np.ndarray) for b in batches):
        dims = {b.ndim for b in batches} | {b.shape[1:] for b in batches if b.ndim == 2}
        if len({b.ndim for b in batches}) == 1 and len(dims) <= 2:
            return np.concatenate(batches)
    out: list = []
    for b in batches:
        out.extend(b.tolist() if isinstance(b, np.ndarray) else b)
    return [tuple(o) if isinstance(o, list) else o for o in out]


def distinct_outputs(*batches: Batch) -> int:
    """The number of distinct outputs over the batches (of one kind)."""
    if all(isinstance(b, np.ndarray) for b in batches):
        pooled = np.concatenate(batches)
        return len(np.unique(pooled, axis=0 if pooled.ndim > 1 else None))
    return len({o for b in batches for o in b})


def batch_kind(b: Batch) -> str:
    if isinstance(b, np.ndarray):
        return "scalar" if b.ndim == 1 else "vector"
    return "object"
