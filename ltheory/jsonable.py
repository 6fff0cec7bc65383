"""Plain JSON values for the ``to_json()`` of every result record.

One conversion for the whole package (it used to be written three times, in the audit core,
the theorem checks and the testing API): numpy scalars and arrays become Python numbers and
lists, NaN and infinities the strings ``"nan"``, ``"inf"``, ``"-inf"`` (JSON has no literals
for them), exact fractions an integer or ``"p/q"``, containers are converted item by item,
and anything else JSON cannot hold (sympy expressions, labels of other types) its ``str``.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["to_jsonable"]


def to_jsonable(v: Any) -> Any:
    """``v`` as nested dicts, lists, strings, ints, finite floats, bools and None."""
    if v is None or isinstance(v, bool | str):
        return v
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, int | np.integer):
        return int(v)
    if isinstance(v, float | np.floating):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    if isinstance(v, Fraction):
        return v.numerator if v.denominator == 1 else str(v)
    if isinstance(v, np.ndarray):
        return to_jsonable(v.tolist())
    if isinstance(v, dict):
        return {str(k): to_jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple | set | frozenset):
        return [to_jsonable(x) for x in v]
    try:
        json.dumps(v)
    except (TypeError, ValueError):
        return str(v)
    return v
