"""Safe evaluation of the catalog's formulas (known values, sizes, defaults).

Known values are stored as formulas in the family parameters (``ldim = "floor(log2(n + 1))"``),
with an optional condition (``when = "n >= 1"``).  They are evaluated by a whitelisting
evaluator over Python's `ast` -- never `eval`.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from typing import Any

from ltheory.errors import InvalidInputError

__all__ = ["evaluate_formula"]


def _gbinom(n: int, k: int, q: int) -> int:
    """Gaussian binomial [n choose k]_q: the number of k-dimensional subspaces of F_q^n."""
    if k < 0 or k > n:
        return 0
    num = den = 1
    for i in range(k):
        num *= q ** (n - i) - 1
        den *= q ** (i + 1) - 1
    return num // den


def _binsum(n: int, k: int, base: int = 1) -> int:
    """sum_{j=0}^{min(k, n)} comb(n, j) * base^j."""
    return sum(math.comb(n, j) * base**j for j in range(min(k, n) + 1))


def _evensum(n: int, k: int) -> int:
    """sum_{j=0}^{k} comb(n, 2j): the 0/1 strings of length n - 1 with at most k runs of 1s."""
    return sum(math.comb(n, 2 * j) for j in range(max(k, -1) + 1))


def _affine_count(p: int, n: int, lo: int, hi: int) -> int:
    """Number of affine subspaces of F_p^n of dimension lo..hi: sum p^(n-j) [n choose j]_p."""
    return sum(p ** (n - j) * _gbinom(n, j, p) for j in range(max(lo, 0), min(hi, n) + 1))


_FUNCS: dict[str, Callable[..., Any]] = {
    "gbinom": _gbinom,
    "binsum": _binsum,
    "evensum": _evensum,
    "affine_count": _affine_count,
    "min": min,
    "max": max,
    "floor": math.floor,
    "ceil": math.ceil,
    "log2": math.log2,
    "comb": math.comb,
}
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def evaluate_formula(formula: str, names: Mapping[str, Any]) -> Any:
    """Evaluate a formula of the catalog safely (an `ast` whitelist, never ``eval``).

    Allowed: int/float/bool literals, the given ``names`` (bools count as 0/1), ``+ - * / // %
    **`` (exponent at most 4096), unary ``- + not``, comparisons, ``and``/``or``, conditional
    expressions ``a if c else b``, and calls of ``min max floor ceil log2 comb`` and of
    ``binsum(n, k, base)`` = sum_{j<=k} comb(n, j) base^j, ``evensum(n, k)`` = sum_{j<=k}
    comb(n, 2j), ``gbinom(n, k, q)`` (Gaussian binomial)
    and ``affine_count(p, n, lo, hi)`` (number of affine subspaces of F_p^n of dimension lo..hi).
    ``floor(log2(m))`` and ``ceil(log2(m))`` are computed exactly for integers m >= 1.
    """
    if not isinstance(formula, str) or len(formula) > 500:
        raise InvalidInputError("a catalog formula must be a string of at most 500 characters")
    try:
        tree = ast.parse(formula.strip(), mode="eval")
    except SyntaxError as exc:
        raise InvalidInputError(f"cannot parse catalog formula {formula!r}: {exc.msg}") from exc
    return _eval_node(tree.body, names, formula)


def _int_log2(node: ast.AST, names: Mapping[str, Any], formula: str, fn: str) -> int | None:
    """Exact floor/ceil of log2 of an integer argument; None when not applicable."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "log2" \
            and len(node.args) == 1 and not node.keywords:
        x = _eval_node(node.args[0], names, formula)
        if isinstance(x, int) and x >= 1:
            return x.bit_length() - 1 if fn == "floor" else (x - 1).bit_length()
    return None


def _eval_node(node: ast.AST, names: Mapping[str, Any], formula: str) -> Any:
    bad = InvalidInputError
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (bool, int, float)):
            return node.value
        raise bad(f"formula {formula!r}: only numeric constants are allowed")
    if isinstance(node, ast.Name):
        if node.id in ("true", "false"):
            return node.id == "true"
        if node.id not in names:
            raise bad(f"formula {formula!r}: unknown name {node.id!r} "
                      f"(allowed: {', '.join(sorted(names)) or 'none'})")
        v = names[node.id]
        if isinstance(v, str):
            return v
        return int(v) if isinstance(v, bool) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a = _eval_node(node.left, names, formula)
        b = _eval_node(node.right, names, formula)
        if isinstance(node.op, ast.Pow) and (not isinstance(b, (int, float)) or abs(b) > 4096):
            raise bad(f"formula {formula!r}: exponent too large")
        try:
            return _BINOPS[type(node.op)](a, b)
        except (ZeroDivisionError, TypeError, OverflowError) as exc:
            raise bad(f"formula {formula!r}: {exc}") from exc
    if isinstance(node, ast.UnaryOp):
        v = _eval_node(node.operand, names, formula)
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return +v
        if isinstance(node.op, ast.Not):
            return not v
    if isinstance(node, ast.BoolOp):
        vals = [_eval_node(v, names, formula) for v in node.values]
        return all(vals) if isinstance(node.op, ast.And) else any(vals)
    if isinstance(node, ast.Compare) and all(type(o) in _CMPOPS for o in node.ops):
        left = _eval_node(node.left, names, formula)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = _eval_node(comp, names, formula)
            if not _CMPOPS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        if _eval_node(node.test, names, formula):
            return _eval_node(node.body, names, formula)
        return _eval_node(node.orelse, names, formula)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in _FUNCS and not node.keywords:
        fn = node.func.id
        if fn in ("floor", "ceil") and len(node.args) == 1:
            exact = _int_log2(node.args[0], names, formula, fn)
            if exact is not None:
                return exact
        args = [_eval_node(a, names, formula) for a in node.args]
        try:
            return _FUNCS[fn](*args)
        except (TypeError, ValueError, OverflowError) as exc:
            raise bad(f"formula {formula!r}: {fn}{tuple(args)} failed: {exc}") from exc
    raise bad(f"formula {formula!r}: {type(node).__name__} is not allowed in catalog formulas")
