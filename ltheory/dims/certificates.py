"""Independent checkers for dimension witnesses (VC, Littlestone, threshold).

Each checker re-verifies a witness *from the definitions only*: it shares no code with the search
algorithms in `ltheory.dims`, reads the class only through ``H.domain`` and ``H.matrix``, and walks
the witness in its JSON form (the [witness formats][witness-formats]), so a witness that was dumped
to JSON and loaded back verifies exactly like the in-memory one.

Definitions (Alon, Beimel, Moran, Stemmer, "Closure Properties for Private Classification and
Online Prediction", COLT 2020, §3.1; Littlestone 1987; Shelah 1978):

* **VC.**  ``S ⊆ X`` is *shattered* by ``H`` if ``H|_S = {0,1}^S``.  Witness: the list of the
  labels of S.  It certifies ``VC(H) ≥ |S|``.
* **Littlestone.**  A *mistake tree* is a complete binary tree whose internal nodes are labelled by
  points; a root-to-leaf path ``(x_1, y_1), ..., (x_d, y_d)`` has ``y_i = 1`` when it goes to the
  ``"1"`` (right) child.  The tree is *shattered* if every path is realised by some ``h ∈ H``.
  Witness: ``{"point": LABEL, "children": {"0": TREE, "1": TREE}}`` with leaves
  ``{"hypothesis": "0101..."}``, the leaf naming a hypothesis of H consistent with its path.  A
  tree of depth d certifies ``Ldim(H) ≥ d``.
* **Threshold.**  ``x_1, ..., x_k`` is *threshold-shattered* if there are ``h_1, ..., h_k ∈ H``
  with ``h_i(x_j) = 1`` iff ``i ≤ j``.  Witness: ``{"points": [x_1...x_k], "hypotheses":
  [h_1...h_k]}``.  It certifies ``T(H) ≥ k``.

Conventions checked here:

* The empty class has every dimension -1 and its witness is ``None``; conversely a non-empty
  class has every dimension ≥ 0 (the empty set is shattered, the single-leaf tree is shattered,
  the empty sequence is threshold-shattered), so a claim of -1 for a non-empty class is rejected.
* The claimed value must equal the witness's size (VC, threshold) or depth (Littlestone): a checker
  certifies exactly the number it is given, not merely "at least".
* **Repeated points on a mistake-tree path are rejected.**  The definition in the paper does not
  forbid them, but a path visiting a point twice is either contradictory (different labels, so no
  hypothesis realises it and the tree is not shattered) or redundant (same label, so the second
  visit is not a real split and the depth overstates what the tree proves).  Every shattered tree
  can be pruned to one without repeats of at least the same depth, and the exact algorithms never
  need repeats, so a repeat is reported as a malformed witness.
* Points are given by their domain labels (strings, as in ``H.domain``); an index or any other
  type is rejected with a message saying what is accepted.  Hypotheses are '0'/'1' strings with
  one character per domain point.

Every failure raises [`CertificateError`][ltheory.CertificateError] with a message naming the check
that failed (and where in the witness); a valid witness makes the checker return ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import BudgetExceededError, CertificateError

__all__ = ["CHECKERS", "verify", "verify_littlestone", "verify_threshold", "verify_vc"]


# --------------------------------------------------------------------------- boundary helpers
def _check_class(H: Any) -> None:
    if not isinstance(H, HypothesisClass):
        raise CertificateError(f"expected a HypothesisClass, got {type(H).__name__}")


def _check_value(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise CertificateError(f"{what}: the claimed value must be an integer, got {value!r}")
    v = int(value)
    if v < -1:
        raise CertificateError(f"{what}: the claimed value {v} is below -1 (the value of the "
                               "empty class)")
    return v


def _check_empty_convention(H: HypothesisClass, witness: Any, value: int, what: str) -> bool:
    """Handle value -1 / the empty class; return True when nothing more needs checking."""
    if len(H) == 0:
        if value != -1:
            raise CertificateError(f"{what}: the class is empty, so its dimension is -1 by "
                                   f"convention, but {value} was claimed")
        if witness is not None:
            raise CertificateError(f"{what}: the class is empty, so the witness must be None, "
                                   f"got {type(witness).__name__}")
        return True
    if value == -1:
        raise CertificateError(f"{what}: the class is non-empty ({len(H)} hypotheses), so its "
                               "dimension is at least 0, but -1 was claimed")
    if witness is None:
        raise CertificateError(f"{what}: the witness is None, which only certifies the empty "
                               f"class, but the class is non-empty and {value} was claimed")
    return False


def _is_sequence(obj: Any) -> bool:
    return isinstance(obj, Sequence) and not isinstance(obj, (str, bytes, bytearray))


class _LabelIndex:
    """label -> index in the domain.  A witness names few points, so on a wide domain (10^6
    labels: 0.9 s for the dict) the first lookups scan the tuple (C speed) and the dict is built
    only once there have been many."""

    _SCANS = 32

    def __init__(self, domain: tuple[str, ...]) -> None:
        self.domain = domain
        self.table: dict[str, int] | None = None
        self.scans = 0

    def get(self, label: Any) -> int | None:
        if self.table is None and (len(self.domain) <= 4096 or self.scans >= self._SCANS):
            self.table = {lab: i for i, lab in enumerate(self.domain)}
        if self.table is not None:
            return self.table.get(label)
        self.scans += 1
        try:
            return self.domain.index(label)
        except ValueError:
            return None


class _Ctx:
    """Look-up tables built once per check: label -> index, and the set of hypotheses (rows of
    ``H.matrix`` packed to bytes: a 200 MB class's 14,143 rows as strings took 1 s and as much
    memory again).  ``budget`` (an object with ``expired()``, e.g. `Budget`) stops the
    check with [`BudgetExceededError`][ltheory.BudgetExceededError] when it runs out."""

    def __init__(self, H: HypothesisClass, budget: Any = None) -> None:
        self.H = H
        self.index = _LabelIndex(H.domain)
        self.budget = budget
        self._rows: frozenset[bytes] | None = None

    @property
    def rows(self) -> frozenset[bytes]:
        """The class's rows, packed, as a set: built from ``H.matrix`` by this module once per
        class (kept on the immutable class: the checks of one command share it; 0.15 s for
        14,143 x 14,142)."""
        if self._rows is None:
            cached = self.H.__dict__.get("_certificate_rows")
            if cached is None:
                packed = np.packbits(np.asarray(self.H.matrix, dtype=np.uint8), axis=1,
                                     bitorder="little")
                cached = frozenset(row.tobytes() for row in packed)
                self.H.__dict__["_certificate_rows"] = cached
            self._rows = cached
        return self._rows

    def tick(self, what: str) -> None:
        """Stop the check if its budget ran out (nothing is certified then)."""
        if self.budget is not None and self.budget.expired():
            raise BudgetExceededError(f"{what}: the time budget ran out before the witness "
                                      "was checked")


def _point(ctx: _Ctx, label: Any, where: str) -> int:
    """The index of the domain point with this label (labels are strings, as in ``H.domain``)."""
    if not isinstance(label, str):
        raise CertificateError(f"{where}: a point must be given by its domain label (a string), "
                               f"got {type(label).__name__} {label!r}")
    i = ctx.index.get(label)
    if i is None:
        raise CertificateError(f"{where}: unknown label {label!r}, not a point of the domain")
    return i


def _distinct_points(ctx: _Ctx, labels: Any, where: str, name: str) -> list[int]:
    """The indices of a list of distinct domain labels (CertificateError on a repeat)."""
    idx: list[int] = []
    seen: set[int] = set()
    for pos, lab in enumerate(labels):
        i = _point(ctx, lab, f"{where}[{pos}]")
        if i in seen:
            raise CertificateError(f"{where.split(':')[0]}: duplicate point {lab!r} in {name}")
        idx.append(i)
        seen.add(i)
    return idx


#: bytes.translate table: '0' -> 0, '1' -> 1, any other byte -> 255
_TO_BITS = bytes(0 if b == ord("0") else 1 if b == ord("1") else 255 for b in range(256))


def _hypothesis_rows(ctx: _Ctx, hs: Sequence[Any], wheres: Sequence[str]) -> np.ndarray:
    """Parse '0'/'1' strings of the right length and check each is a hypothesis of H; their
    values as a k x n uint8 matrix.  The strings are checked one by one (type, length,
    characters), then converted and looked up in one numpy pass (string by string the
    conversions cost ~70 us on 14,142 points: 1 s for a ladder of 14,142 hypotheses).  The
    first failure in the given order is reported."""
    n = ctx.H.domain_size
    for h, where in zip(hs, wheres, strict=True):
        if not isinstance(h, str):
            raise CertificateError(f"{where}: a hypothesis must be a string of '0'/'1' "
                                   f"characters, got {type(h).__name__}")
        if len(h) != n:
            raise CertificateError(f"{where}: hypothesis {_short(h)} has length {len(h)}, but "
                                   f"the domain has {n} points")
    if not hs:
        return np.zeros((0, n), dtype=np.uint8)
    try:  # the characters of all the strings checked and converted in one pass
        bits = "".join(hs).encode("ascii").translate(_TO_BITS)
    except UnicodeEncodeError:
        bits = b"\xff"
    if bits.find(b"\xff") >= 0:
        for h, where in zip(hs, wheres, strict=True):
            if h.strip("01"):
                bad = h.replace("0", "").replace("1", "")
                raise CertificateError(f"{where}: hypothesis {_short(h)} contains {bad[0]!r}; "
                                       "only '0' and '1' are allowed")
    rows = np.frombuffer(bits, dtype=np.uint8).reshape(len(hs), n)
    packed = np.packbits(rows, axis=1, bitorder="little")
    known = ctx.rows
    for j, key in enumerate(packed):
        if key.tobytes() not in known:
            raise CertificateError(f"{wheres[j]}: hypothesis {_short(hs[j])} is not in the class")
    return rows


def _short(h: str) -> str:
    """A hypothesis string for a message: whole up to 80 characters, else its ends."""
    return repr(h) if len(h) <= 80 else repr(h[:38] + "..." + h[-38:]) + f" ({len(h)} bits)"


# --------------------------------------------------------------------------- VC
def verify_vc(H: HypothesisClass, witness: Any, value: Any, *,
              budget: Any = None) -> None:
    """Check that ``witness`` (a list of domain labels) is a set of exactly ``value`` points
    shattered by ``H``, i.e. ``H|_S = {0,1}^S``; this certifies ``VC(H) ≥ value``.

    Raises [`CertificateError`][ltheory.CertificateError] naming the failed check (wrong type,
    unknown label, duplicate
    point, size ≠ value, or the first pattern on S that no hypothesis realises).
    """
    what = "VC certificate"
    _check_class(H)
    v = _check_value(value, what)
    if _check_empty_convention(H, witness, v, what):
        return
    ctx = _Ctx(H, budget)
    if not _is_sequence(witness):
        raise CertificateError(f"{what}: the witness must be a list of domain labels, got "
                               f"{type(witness).__name__}")
    idx = _distinct_points(ctx, witness, f"{what}: witness", "the witness set")
    if len(idx) != v:
        raise CertificateError(f"{what}: the witness has {len(idx)} points but the claimed "
                               f"value is {v}")
    realised = {tuple(row) for row in H.matrix[:, idx].tolist()} if idx else {()}
    for code in range(2 ** len(idx)):
        if not code & 1023:
            ctx.tick(what)
        pattern = tuple((code >> (len(idx) - 1 - j)) & 1 for j in range(len(idx)))
        if pattern not in realised:
            shown = ", ".join(f"{witness[j]}={pattern[j]}" for j in range(len(idx)))
            raise CertificateError(f"{what}: the set is not shattered; no hypothesis realises "
                                   f"the pattern ({shown})")


# --------------------------------------------------------------------------- Littlestone
def verify_littlestone(H: HypothesisClass, witness: Any, value: Any, *,
                       budget: Any = None) -> None:
    """Check that ``witness`` is a complete mistake tree of depth exactly ``value`` shattered by
    ``H`` (every leaf names a hypothesis of H consistent with every edge of its path); this
    certifies ``Ldim(H) ≥ value``.

    Node forms: internal ``{"point": LABEL, "children": {"0": TREE, "1": TREE}}``, leaf
    ``{"hypothesis": BITS}``.  Rejected: other keys or types, unknown labels, a point repeated on a
    root-to-leaf path (see [`ltheory.dims.certificates`][ltheory.dims.certificates]), leaves at
    depth ≠ value (the tree is then not complete or of the wrong depth), a leaf hypothesis not in H
    or disagreeing with its path. The walk is iterative, so a hostile deep witness cannot exhaust
    the Python stack."""
    what = "Littlestone certificate"
    _check_class(H)
    v = _check_value(value, what)
    if _check_empty_convention(H, witness, v, what):
        return
    ctx = _Ctx(H, budget)
    # stack of (node, path as [(label, point index, bit)], textual position)
    stack: list[tuple[Any, list[tuple[str, int, int]], str]] = [(witness, [], "root")]
    leaves: list[tuple[Any, list[tuple[str, int, int]], str]] = []  # checked in batches

    def check_leaves() -> None:
        rows = _hypothesis_rows(ctx, [h for h, _, _ in leaves], [loc for _, _, loc in leaves])
        for row, (h, path, loc) in zip(rows, leaves, strict=True):
            for lab, i, bit in path:
                if row[i] != bit:
                    raise CertificateError(f"{loc}: leaf hypothesis {_short(h)} is "
                                           f"inconsistent with its path: it gives {lab!r} the "
                                           f"value {row[i]} but the path labels it {bit}")
        leaves.clear()

    while stack:
        node, path, where = stack.pop()
        loc = f"{what}: node at {where}"
        if not isinstance(node, Mapping):
            raise CertificateError(f"{loc}: a tree node must be a JSON object, got "
                                   f"{type(node).__name__}")
        ctx.tick(what)
        keys = set(node)
        if keys == {"hypothesis"}:
            if len(path) != v:
                raise CertificateError(f"{loc}: a leaf at depth {len(path)}, but the claimed "
                                       f"depth is {v} (every leaf of a complete tree of depth "
                                       f"{v} is at depth {v})")
            leaves.append((node["hypothesis"], path, loc))
            if len(leaves) >= _LEAF_BATCH:
                check_leaves()
            continue
        if keys != {"point", "children"}:
            raise CertificateError(f"{loc}: a node must have exactly the keys "
                                   "{'point', 'children'} (internal) or {'hypothesis'} (leaf), "
                                   f"got {sorted(map(str, keys))}{_components_hint(keys)}")
        if len(path) >= v:
            raise CertificateError(f"{loc}: an internal node at depth {len(path)}, but the "
                                   f"claimed depth is {v} (the tree is deeper than claimed)")
        label = node["point"]
        i = _point(ctx, label, loc)
        if any(j == i for _, j, _ in path):
            raise CertificateError(f"{loc}: point {label!r} is repeated on its root-to-leaf path; "
                                   "a path must visit distinct points")
        children = node["children"]
        if not isinstance(children, Mapping) or set(children) != {"0", "1"}:
            got = sorted(map(str, children)) if isinstance(children, Mapping) else type(
                children).__name__
            raise CertificateError(f"{loc}: 'children' must be an object with exactly the keys "
                                   f"'0' and '1', got {got}")
        for bit in (1, 0):
            stack.append((children[str(bit)], [*path, (label, i, bit)],
                          f"{where}/{label}={bit}" if where != "root" else f"/{label}={bit}"))
    check_leaves()


#: Leaves of a mistake tree whose hypotheses are checked together (`_hypothesis_rows`).
_LEAF_BATCH = 256


_COMPOSED_HINT = ("; a 'components' field marks a composed-class witness: check it against the "
                  "ComposedClass with ltheory.sat.certify.verify_composed, or drop the field with "
                  "ltheory.sat.certify.strip_components before checking it against a class")


def _components_hint(keys: Any) -> str:
    return _COMPOSED_HINT if "components" in keys else ""


# --------------------------------------------------------------------------- threshold
def verify_threshold(H: HypothesisClass, witness: Any, value: Any, *,
                     budget: Any = None) -> None:
    """Check that ``witness = {"points": [x_1..x_k], "hypotheses": [h_1..h_k]}`` is a threshold
    ladder of size exactly ``k = value``: distinct points, hypotheses of H, and
    ``h_i(x_j) = 1`` iff ``i ≤ j`` for all ``i, j ≤ k``; this certifies ``T(H) ≥ value``.
    """
    what = "threshold certificate"
    _check_class(H)
    v = _check_value(value, what)
    if _check_empty_convention(H, witness, v, what):
        return
    ctx = _Ctx(H, budget)
    if not isinstance(witness, Mapping):
        raise CertificateError(f"{what}: the witness must be an object with keys 'points' and "
                               f"'hypotheses', got {type(witness).__name__}")
    if set(witness) != {"points", "hypotheses"}:
        raise CertificateError(f"{what}: the witness must have exactly the keys 'points' and "
                               f"'hypotheses', got {sorted(map(str, witness))}"
                               f"{_components_hint(witness)}")
    points, hyps = witness["points"], witness["hypotheses"]
    if not _is_sequence(points):
        raise CertificateError(f"{what}: 'points' must be a list of domain labels, got "
                               f"{type(points).__name__}")
    if not _is_sequence(hyps):
        raise CertificateError(f"{what}: 'hypotheses' must be a list of bit strings, got "
                               f"{type(hyps).__name__}")
    if len(points) != len(hyps):
        raise CertificateError(f"{what}: {len(points)} points but {len(hyps)} hypotheses; a "
                               "ladder pairs each point with one hypothesis")
    if len(points) != v:
        raise CertificateError(f"{what}: the ladder has {len(points)} points but the claimed "
                               f"value is {v}")
    idx = _distinct_points(ctx, points, f"{what}: points", "'points'")
    # h_a(x_b) must be 1 exactly for a <= b: checked in batches of rows (a k x k matrix of the
    # whole ladder took 3 s and 400 MB for k = 14,142), reading the clock between them, with
    # the ladder's points taken in increasing index order (the columns read in order; all of
    # them, without a copy, when the ladder covers X)
    k = len(idx)
    order = np.argsort(np.asarray(idx, dtype=np.intp), kind="stable")
    cols = np.asarray(idx, dtype=np.intp)[order]
    whole = k == ctx.H.domain_size  # then cols is 0..n-1
    for a0 in range(0, k, _LADDER_BATCH):
        ctx.tick(what)
        batch = list(hyps[a0:a0 + _LADDER_BATCH])
        rows = _hypothesis_rows(ctx, batch, [f"{what}: hypotheses[{a0 + j}]"
                                             for j in range(len(batch))])
        got = rows if whole else rows[:, cols]
        want = order[None, :] >= np.arange(a0, a0 + len(batch))[:, None]
        wrong = got != want
        if wrong.any():
            i = int(np.argmax(wrong.any(axis=1)))
            j = int(np.flatnonzero(wrong[i])[np.argmin(order[wrong[i]])])
            a, b = a0 + i, int(order[j])  # the first ladder point where h_a fails
            raise CertificateError(
                f"{what}: h_{a + 1}(x_{b + 1}) must be {int(a <= b)} (h_i(x_j) = 1 iff i <= j) "
                f"but hypothesis {_short(hyps[a])} gives {points[b]!r} the value "
                f"{int(got[i, j])}")


#: Hypotheses of a ladder checked together (`_hypothesis_rows`), the clock read between.
_LADDER_BATCH = 512


# --------------------------------------------------------------------------- dispatch
#: the checker of each dimension's witness, by result kind
#: ([`ltheory.DIMENSIONS`][ltheory.DIMENSIONS]
#: holds each with its engines)
CHECKERS = {"vc": verify_vc, "ldim": verify_littlestone, "tdim": verify_threshold}


def verify(H: HypothesisClass, result: Any, *, budget: Any = None) -> None:
    """Check a [`DimensionResult`][ltheory.DimensionResult] against ``H``.

    Dispatches on ``result.kind`` ∈ {"vc", "ldim", "tdim"} and checks that ``result.witness``
    certifies ``result.lower`` exactly (size/depth equal to ``result.lower``; for the empty class
    ``lower == -1`` and the witness is ``None``).  Also checks the result is self-consistent:
    ``lower ≤ upper``, ``exact == (lower == upper)`` and ``value == lower``.

    ``budget``: an object with ``expired()`` (`ltheory.dims.budget.Budget`) read while
    the witness is walked; when it runs out the check stops with
    [`BudgetExceededError`][ltheory.BudgetExceededError] (the witness is then *not* certified).
    """
    for attr in ("kind", "witness", "lower", "upper", "value", "exact"):
        if not hasattr(result, attr):
            raise CertificateError(f"expected a DimensionResult, got {type(result).__name__} "
                                   f"without {attr!r}")
    kind = result.kind
    if kind not in CHECKERS:
        raise CertificateError(f"unknown result kind {kind!r}; expected one of {list(CHECKERS)}")
    lower, upper = result.lower, result.upper
    if isinstance(upper, (int, float, np.integer, np.floating)) and not isinstance(upper, bool):
        if isinstance(lower, (int, np.integer)) and lower > upper:
            raise CertificateError(f"{kind} result: lower bound {lower} exceeds upper bound "
                                   f"{upper}")
        if bool(result.exact) != (lower == upper):
            raise CertificateError(f"{kind} result: exact={result.exact!r} but lower={lower} and "
                                   f"upper={upper}")
    else:
        raise CertificateError(f"{kind} result: the upper bound must be a number, got {upper!r}")
    if result.value != lower:
        raise CertificateError(f"{kind} result: value {result.value} differs from the proven "
                               f"lower bound {lower}")
    CHECKERS[kind](H, result.witness, lower, budget=budget)
