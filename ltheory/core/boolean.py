"""Boolean aggregations G: {0,1}^k -> {0,1}.

Alon, Beimel, Moran, Stemmer, "Closure Properties for Private Classification and Online
Prediction" (COLT 2020), §2: for an aggregation G and classes H_1, ..., H_k over one domain,
G(H_1, ..., H_k) = {G(h_1, ..., h_k) : h_i in H_i}, with G applied pointwise.  This module only
describes G; composition lives in `ltheory.core.compose`.

An [`Aggregation`][ltheory.Aggregation] is stored as its truth table: bit ``i`` of ``table`` is G
evaluated on the
bits of ``i``, x1 the least significant bit (so ``"00010111"`` is the majority of three).  It is
built from

* a name: ``maj`` (majority, odd k), ``and``, ``or``, ``xor``, ``thr:t`` (at least t of the k
  inputs are 1), ``not`` (k = 1), ``id`` (k = 1).  A name may carry its arity (``maj5``,
  ``and:3``, ``thr:2:5``); without one the aggregation is a *family* whose arity is fixed by
  [`Aggregation.bind`][ltheory.Aggregation.bind] (``compose`` binds it to the number of classes);
* a truth table (a '0'/'1' string of length 2^k, character i = G(bits of i));
* an expression over x1..xk with ``&``, ``|``, ``^``, ``~`` (also ``and``/``or``/``not``), the
  constants 0 and 1, and the calls ``Majority``, ``And``, ``Or``, ``Xor``, ``Not``,
  ``Threshold(t, ...)``.  The text is parsed with `ast` and every node is checked against a
  whitelist; nothing is ever evaluated as code.  The tree is evaluated by this module on all 2^k
  inputs, and sympy is used only for the simplified DNF/CNF views.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError

__all__ = ["Aggregation", "MAX_ARITY"]

#: Largest arity accepted (the truth table has 2^k entries and the CNF views grow with it).
MAX_ARITY = 12
_MAX_EXPR_CHARS = 4000
#: Deepest expression tree accepted (evaluation and sympy's CNF recurse on it).
_MAX_EXPR_DEPTH = 200
_NAMES = ("maj", "and", "or", "xor", "not", "id", "thr:t")
_NAME_RE = re.compile(r"^(maj|and|or|xor|not|id)(?::?(\d+))?$|^thr:(\d+)(?::(\d+))?$")
_VAR_RE = re.compile(r"^x([1-9]\d*)$")
_CALLS = ("Majority", "And", "Or", "Xor", "Not", "Threshold")
_ACCEPTED = ("a name (maj, and, or, xor, not, id, thr:t, optionally with the arity: maj5, and:3, "
             "thr:2:5), a truth table ('0'/'1' string of length 2^k), or an expression over "
             "x1..xk with & | ^ ~ and Majority/And/Or/Xor/Not/Threshold(t, ...)")


# --------------------------------------------------------------------------- expression trees
# A parsed expression is a nested tuple: ("var", i) (0-based), ("const", b), ("not", e),
# ("and", [e...]), ("or", [e...]), ("xor", [e...]), ("thr", t, [e...]).
Expr = tuple[Any, ...]


def _expr_error(text: str, what: str) -> InvalidInputError:
    shown = text if len(text) <= 60 else text[:57] + "..."
    return InvalidInputError(f"aggregation expression {shown!r}: {what}; accepted: x1..xk, 0, 1, "
                             "& | ^ ~ (and/or/not), and calls Majority, And, Or, Xor, Not, "
                             "Threshold(t, ...)")


def _parse_expression(text: str) -> Expr:
    """Parse ``text`` into an expression tree, accepting only whitelisted syntax."""
    if len(text) > _MAX_EXPR_CHARS:
        raise _expr_error(text, f"longer than {_MAX_EXPR_CHARS} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise _expr_error(text, f"syntax error ({exc.msg})") from None
    except (ValueError, RecursionError, MemoryError):
        raise _expr_error(text, "cannot be parsed") from None
    try:
        e = _convert(tree.body, text)
    except RecursionError:
        raise _expr_error(text, "nested too deeply") from None
    if _depth(e) > _MAX_EXPR_DEPTH:
        raise _expr_error(text, f"nested more than {_MAX_EXPR_DEPTH} levels deep (a long chain of "
                                "binary operators nests one level per operator; use "
                                "Threshold/Majority or fewer terms)")
    return e


def _depth(e: Expr) -> int:
    """The nesting depth of an expression tree (iterative: no recursion limit)."""
    best, stack = 0, [(e, 1)]
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        kind = node[0]
        if kind == "not":
            stack.append((node[1], d + 1))
        elif kind in ("and", "or", "xor"):
            stack.extend((a, d + 1) for a in node[1])
        elif kind == "thr":
            stack.extend((a, d + 1) for a in node[2])
    return best


def _convert(node: ast.AST, text: str) -> Expr:
    if isinstance(node, ast.Name):
        m = _VAR_RE.match(node.id)
        if m is None:
            if node.id in ("True", "False"):
                return ("const", int(node.id == "True"))
            raise _expr_error(text, f"unknown identifier {node.id!r}")
        idx = int(m.group(1)) - 1
        if idx >= MAX_ARITY:
            raise _expr_error(text, f"variable {node.id} exceeds the largest arity {MAX_ARITY}")
        return ("var", idx)
    if isinstance(node, ast.Constant):
        if type(node.value) in (int, bool) and node.value in (0, 1):
            return ("const", int(node.value))
        raise _expr_error(text, f"constant {node.value!r} is not 0 or 1")
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, (ast.Invert, ast.Not)):
            return ("not", _convert(node.operand, text))
        raise _expr_error(text, f"operator {type(node.op).__name__} is not allowed")
    if isinstance(node, ast.BinOp):
        ops = {ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}
        op = ops.get(type(node.op))
        if op is None:
            raise _expr_error(text, f"operator {type(node.op).__name__} is not allowed")
        return (op, [_convert(node.left, text), _convert(node.right, text)])
    if isinstance(node, ast.BoolOp):
        op = "and" if isinstance(node.op, ast.And) else "or"
        return (op, [_convert(v, text) for v in node.values])
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _CALLS:
            what = node.func.id if isinstance(node.func, ast.Name) else type(node.func).__name__
            raise _expr_error(text, f"call of {what!r} is not allowed")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise _expr_error(text, "keyword or starred arguments are not allowed")
        fn = node.func.id
        if fn == "Threshold":
            if len(node.args) < 2 or not (isinstance(node.args[0], ast.Constant)
                                          and type(node.args[0].value) is int
                                          and node.args[0].value >= 0):
                raise _expr_error(text, "Threshold needs a non-negative integer t and operands")
            return ("thr", node.args[0].value, [_convert(a, text) for a in node.args[1:]])
        args = [_convert(a, text) for a in node.args]
        if fn == "Not":
            if len(args) != 1:
                raise _expr_error(text, "Not takes exactly one argument")
            return ("not", args[0])
        if not args:
            raise _expr_error(text, f"{fn} needs at least one argument")
        if fn == "Majority":
            if len(args) % 2 == 0:
                raise _expr_error(text, f"Majority needs an odd number of arguments, got "
                                        f"{len(args)}")
            return ("thr", (len(args) + 1) // 2, args)
        return (fn.lower(), args)
    if isinstance(node, ast.Attribute):
        raise _expr_error(text, "attribute access is not allowed")
    raise _expr_error(text, f"{type(node).__name__} is not allowed")


def _max_var(e: Expr) -> int:
    """1 + the largest variable index in ``e`` (0 if there is none)."""
    best = 0
    stack = [e]
    while stack:
        node = stack.pop()
        kind = node[0]
        if kind == "var":
            best = max(best, node[1] + 1)
        elif kind == "not":
            stack.append(node[1])
        elif kind in ("and", "or", "xor"):
            stack.extend(node[1])
        elif kind == "thr":
            stack.extend(node[2])
    return best


def _eval_expr(e: Expr, inputs: np.ndarray) -> np.ndarray:
    """Evaluate ``e`` on the rows of ``inputs`` (N x k, 0/1) with numpy; returns N bools."""
    kind = e[0]
    if kind == "var":
        return inputs[:, e[1]].astype(bool)
    if kind == "const":
        return np.full(inputs.shape[0], bool(e[1]))
    if kind == "not":
        return ~_eval_expr(e[1], inputs)
    if kind == "thr":
        total = sum(_eval_expr(a, inputs).astype(np.int64) for a in e[2])
        return np.asarray(total >= e[1]).reshape(inputs.shape[0])
    vals = [_eval_expr(a, inputs) for a in e[1]]
    out = vals[0].copy()
    for v in vals[1:]:
        if kind == "and":
            out &= v
        elif kind == "or":
            out |= v
        else:
            out ^= v
    return out


# --------------------------------------------------------------------------- aggregation
def _all_inputs(k: int) -> np.ndarray:
    """The 2^k x k matrix whose row i holds the bits of i (column 0 = x1 = least significant)."""
    idx = np.arange(1 << k, dtype=np.int64)
    return ((idx[:, None] >> np.arange(k, dtype=np.int64)) & 1).astype(np.uint8)


def _named_table(name: str, k: int, t: int | None) -> int:
    inputs = _all_inputs(k)
    ones = inputs.sum(axis=1)
    if name == "maj":
        if k % 2 == 0:
            raise InvalidInputError(f"maj needs an odd arity, got {k} (use thr:t for ties)")
        vals = ones > k // 2
    elif name == "and":
        vals = ones == k
    elif name == "or":
        vals = ones >= 1
    elif name == "xor":
        vals = ones % 2 == 1
    elif name in ("not", "id"):
        if k != 1:
            raise InvalidInputError(f"{name} has arity 1, got {k}")
        vals = ones == (1 if name == "id" else 0)
    else:  # thr
        assert t is not None
        if not 1 <= t <= k:
            raise InvalidInputError(f"thr:{t} needs 1 <= t <= k, got k = {k}")
        vals = ones >= t
    return _bits_to_int(vals)


def _bits_to_int(vals: np.ndarray) -> int:
    return sum(1 << i for i in np.flatnonzero(vals).tolist())


@dataclass(frozen=True, eq=False)
class Aggregation:
    """A Boolean function G: {0,1}^k -> {0,1} (ABMS20 §2), stored as its truth table.

    ``arity`` is k, or ``None`` for a named family not yet bound to an arity (``maj``, ``and``,
    ...; see [`bind`][ltheory.Aggregation.bind]).  ``table`` is the truth table as an int (bit i =
    G(bits of i), x1 the
    least significant bit), ``None`` for an unbound family.  ``name`` is a readable description.
    """

    name: str = field(compare=False)
    arity: int | None
    table: int | None
    family: str | None = field(default=None, compare=False)
    expr: Expr | None = field(default=None, compare=False, repr=False)

    def _key(self) -> tuple[Any, ...]:
        if self.table is None:
            return ("family", self.family or self.name)
        return ("table", self.arity, self.table)

    def __eq__(self, other: object) -> bool:
        """Bound aggregations are equal when they are the same function (arity and truth
        table, whatever their names); unbound families when they are the same family."""
        if not isinstance(other, Aggregation):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    # ------------------------------------------------------------------ constructors
    @classmethod
    def parse(cls, text: str, arity: int | None = None) -> Aggregation:
        """An aggregation from a name, a truth table or an expression (see
        [`ltheory.core.boolean`][ltheory.core.boolean]).

        ``arity`` fixes k for a family name or an expression (an expression may then ignore some
        of x1..xk); a conflicting arity is an error.
        """
        if isinstance(text, Aggregation):
            return text if arity is None else text.bind(arity)
        if not isinstance(text, str):
            raise InvalidInputError(f"an aggregation must be a string, got {type(text).__name__}")
        s = text.strip()
        if not s:
            raise InvalidInputError(f"empty aggregation; accepted: {_ACCEPTED}")
        low = s.lower()
        m = _NAME_RE.match(low)
        if m is not None:
            if m.group(1) is not None:
                name, k = m.group(1), m.group(2)
                t = None
            else:
                name, t, k = "thr", int(m.group(3)), m.group(4)
            if name in ("not", "id") and k is None:
                k = "1"
            fam = name if t is None else f"thr:{t}"
            agg = cls(fam, None, None, family=fam)
            if k is not None:
                agg = agg.bind(int(k))
            return agg if arity is None else agg.bind(arity)
        if set(s) <= {"0", "1"}:
            return cls.from_truth_table(s, arity)
        if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", s) and not _VAR_RE.match(s) and s not in (
                "True", "False"):
            raise InvalidInputError(f"unknown aggregation name {text!r}; accepted: {_ACCEPTED}")
        return cls.from_expression(s, arity)

    @classmethod
    def from_truth_table(cls, bits: str | int, arity: int | None = None) -> Aggregation:
        """G from its truth table: a '0'/'1' string of length 2^k (character i = G(bits of i),
        x1 the least significant bit of i), or an int (bit i) together with ``arity``."""
        if isinstance(bits, bool):
            raise InvalidInputError("a truth table must be a '0'/'1' string or an int")
        if isinstance(bits, (int, np.integer)):
            if arity is None:
                raise InvalidInputError("a truth table given as an int needs the arity")
            k = _check_arity(arity)
            if not 0 <= int(bits) < 1 << (1 << k):
                raise InvalidInputError(f"truth table {bits} does not fit 2^{k} bits")
            return cls(f"table:{_table_string(int(bits), k)}", k, int(bits))
        if not isinstance(bits, str) or not bits or set(bits) - {"0", "1"}:
            raise InvalidInputError(f"a truth table must be a string of '0'/'1' characters, got "
                                    f"{bits!r}")
        n = len(bits)
        if n < 2 or n & (n - 1):
            raise InvalidInputError(f"a truth table needs length 2^k with k >= 1, got length {n}")
        k = n.bit_length() - 1
        if arity is not None and _check_arity(arity) != k:
            raise InvalidInputError(f"truth table of length {n} has arity {k}, not {arity}")
        _check_arity(k)
        table = sum(1 << i for i, c in enumerate(bits) if c == "1")
        return cls(f"table:{bits}", k, table)

    @classmethod
    def from_expression(cls, text: str, arity: int | None = None) -> Aggregation:
        """G from an expression over x1..xk, parsed with a whitelist (never evaluated as code).

        The arity is the largest variable index used, or ``arity`` if given (it must be at least
        that index).
        """
        e = _parse_expression(text)
        used = _max_var(e)
        k = used if arity is None else _check_arity(arity)
        if k < used:
            raise InvalidInputError(f"expression {text!r} uses x{used} but the arity is {k}")
        if k == 0:
            raise InvalidInputError(f"expression {text!r} uses no variable x1..xk; give the arity")
        _check_arity(k)
        vals = _eval_expr(e, _all_inputs(k))
        return cls(text.strip(), k, _bits_to_int(vals), expr=e)

    def bind(self, k: int) -> Aggregation:
        """This aggregation with arity k: a named family is instantiated; a bound aggregation
        must already have arity k."""
        k = _check_arity(k)
        if self.arity is not None:
            if self.arity != k:
                raise InvalidInputError(f"aggregation {self.name!r} has arity {self.arity} but "
                                        f"{k} inputs were given")
            return self
        fam = self.family or self.name
        t = int(fam.split(":")[1]) if fam.startswith("thr:") else None
        base = "thr" if t is not None else fam
        table = _named_table(base, k, t)
        label = f"{fam}:{k}" if t is not None else f"{fam}{k}"
        return Aggregation(label, k, table, family=fam)

    # ------------------------------------------------------------------ views
    def _require_bound(self) -> int:
        if self.arity is None or self.table is None:
            raise InvalidInputError(f"aggregation {self.name!r} has no arity yet; bind it "
                                    "(e.g. Aggregation.parse('maj', arity=3))")
        return self.arity

    @property
    def truth_table(self) -> str:
        """The truth table as a '0'/'1' string (character i = G(bits of i))."""
        k = self._require_bound()
        assert self.table is not None
        return _table_string(self.table, k)

    @cached_property
    def table_array(self) -> np.ndarray:
        """The truth table as a uint8 array of length 2^k (for vectorised look-ups)."""
        k = self._require_bound()
        assert self.table is not None
        idx = np.arange(1 << k, dtype=np.int64)
        return ((self.table >> idx) & 1).astype(np.uint8) if k < 63 else np.array(
            [(self.table >> i) & 1 for i in range(1 << k)], dtype=np.uint8)

    def __call__(self, *bits: int) -> int:
        """G(b_1, ..., b_k) for bits given as ints 0/1."""
        k = self._require_bound()
        if len(bits) != k:
            raise InvalidInputError(f"aggregation {self.name!r} takes {k} bits, got {len(bits)}")
        i = 0
        for pos, b in enumerate(bits):
            if b not in (0, 1):
                raise InvalidInputError(f"aggregation inputs must be 0 or 1, got {b!r}")
            i |= int(b) << pos
        assert self.table is not None
        return (self.table >> i) & 1

    def evaluate(self, *arrays: Any) -> np.ndarray:
        """G applied elementwise to k equally shaped 0/1 arrays (e.g. bit matrices); uint8."""
        k = self._require_bound()
        if len(arrays) != k:
            raise InvalidInputError(f"aggregation {self.name!r} has arity {k} but {len(arrays)} "
                                    "arrays were given")
        arrs = [np.asarray(a) for a in arrays]
        shape = arrs[0].shape
        idx = np.zeros(shape, dtype=np.int64)
        for pos, a in enumerate(arrs):
            if a.shape != shape:
                raise InvalidInputError(f"evaluate needs equally shaped arrays, got {shape} and "
                                        f"{a.shape}")
            idx |= (a.astype(np.int64) & 1) << pos
        return self.table_array[idx]

    def negate(self) -> Aggregation:
        """The aggregation ¬G."""
        k = self._require_bound()
        assert self.table is not None
        return Aggregation(f"not({self.name})", k, ((1 << (1 << k)) - 1) ^ self.table)

    def is_symmetric_in(self, i: int, j: int) -> bool:
        """Is G invariant under exchanging its inputs i and j (0-based)?"""
        k = self._require_bound()
        if i == j:
            return True
        tab = self.table_array
        inputs = _all_inputs(k).astype(np.int64)
        swapped = inputs.copy()
        swapped[:, [i, j]] = swapped[:, [j, i]]
        idx = (swapped << np.arange(k, dtype=np.int64)).sum(axis=1)
        return bool((tab[idx] == tab).all())

    def depends_on(self, i: int) -> bool:
        """Does G depend on its input i (0-based)?"""
        k = self._require_bound()
        idx = np.arange(1 << k)
        tab = self.table_array
        return bool((tab[idx] != tab[idx ^ (1 << i)]).any())

    # ------------------------------------------------------------------ normal forms
    @cached_property
    def _minterms(self) -> list[list[int]]:
        k = self._require_bound()
        return [[(i >> p) & 1 for p in range(k)] for i in np.flatnonzero(self.table_array)]

    def sympy_expr(self) -> Any:
        """A simplified sympy Boolean expression over symbols x1..xk (sympy's ``SOPform``)."""
        from sympy import false, symbols
        from sympy.logic import SOPform

        k = self._require_bound()
        xs = symbols(f"x1:{k + 1}")
        if not self._minterms:
            return false
        return SOPform(list(xs), self._minterms)

    def dnf(self) -> list[list[int]]:
        """A DNF of G as a list of terms; a term is a list of literals (+i for x_i, -i for ¬x_i,
        1-based).  Minimised by sympy (``SOPform``, Quine–McCluskey) for k <= 8, the canonical
        minterms above that.  ``[]`` is the constant 0; ``[[]]`` the constant 1."""
        return _normal_form(self, positive=True)

    def cnf(self) -> list[list[int]]:
        """A CNF of G as a list of clauses (literals as in [`dnf`][ltheory.Aggregation.dnf]); ``[]``
        is the constant 1,
        ``[[]]`` the constant 0.  Used by the SAT encodings (Tseitin-style, one output bit)."""
        neg = _normal_form(self, positive=False)  # DNF of ¬G
        return [[-lit for lit in term] for term in neg]

    def __str__(self) -> str:
        return self.name


def _normal_form(G: Aggregation, positive: bool) -> list[list[int]]:
    """A DNF of G (positive) or of ¬G (not positive), as lists of 1-based signed literals."""
    cache = G.__dict__.setdefault("_nf_cache", {})
    if positive in cache:
        return [list(t) for t in cache[positive]]
    k = G._require_bound()
    tab = G.table_array
    rows = np.flatnonzero(tab == (1 if positive else 0)).tolist()
    if len(rows) == 1 << k:
        terms: list[list[int]] = [[]]
    elif not rows:
        terms = []
    elif k <= 8:
        from sympy import And, Not, Or, Symbol, symbols
        from sympy.logic import SOPform

        xs = list(symbols(f"x1:{k + 1}"))
        expr = SOPform(xs, [[(i >> p) & 1 for p in range(k)] for i in rows])
        pos = {x: n + 1 for n, x in enumerate(xs)}
        terms = []
        disjuncts = expr.args if isinstance(expr, Or) else (expr,)
        for t in disjuncts:
            lits = t.args if isinstance(t, And) else (t,)
            term = []
            for lit in lits:
                if isinstance(lit, Not):
                    term.append(-pos[lit.args[0]])
                elif isinstance(lit, Symbol):
                    term.append(pos[lit])
                else:  # pragma: no cover - SOPform only returns literals in terms
                    raise AssertionError(f"unexpected term {lit}")
            terms.append(sorted(term, key=abs))
    else:
        terms = [[(p + 1) if (i >> p) & 1 else -(p + 1) for p in range(k)] for i in rows]
    cache[positive] = [tuple(t) for t in terms]
    return terms


def _table_string(table: int, k: int) -> str:
    return "".join("1" if (table >> i) & 1 else "0" for i in range(1 << k))


def _check_arity(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidInputError(f"arity must be an integer, got {k!r}")
    if not 1 <= int(k) <= MAX_ARITY:
        raise InvalidInputError(f"arity must be between 1 and {MAX_ARITY}, got {k}")
    return int(k)
