"""Independent witness checkers for composed classes G(H_1, ..., H_k) (never materialised).

A witness for a composed class is the witness of the [witness formats][witness-formats] with an
optional ``"components"`` field that says *why* each hypothesis it names belongs to G(H_1, ..., H_k)
(ABMS20 §2):

* Littlestone: every leaf is ``{"hypothesis": BITS, "components": [BITS_1, ..., BITS_k]}``;
* threshold: ``{"points": [...], "hypotheses": [...], "components": [[BITS_1..BITS_k], ...]}``
  (one list per ladder hypothesis);
* VC: the witness stays the list of labels S; ``result.stats["realisations"]`` lists, for every
  pattern a in {0,1}^|S| in order (bit t of a = value at S[t]), the components realising it.

The checker verifies, from the definitions only: each BITS_i is a hypothesis of H_i (membership in
the stored matrix), the named hypothesis equals G(BITS_1, ..., BITS_k) pointwise (G read through
its truth table, one call per point), and then the ordinary conditions (consistency with the tree
path and distinct points on a path; h_i(x_j) = 1 iff i <= j; every pattern realised).  For an
explicit [`HypothesisClass`][ltheory.HypothesisClass] `verify_any` defers to
`ltheory.dims.certificates`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ltheory.core.compose import ComposedClass
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.certificates import verify
from ltheory.errors import CertificateError

__all__ = ["strip_components", "verify_any", "verify_composed"]


class _Members:
    def __init__(self, C: ComposedClass) -> None:
        self.C = C
        self.sets = [set(c.to_strings()) for c in C.classes]
        self.index = {lab: i for i, lab in enumerate(C.domain)}

    def point(self, label: Any, where: str) -> int:
        if not isinstance(label, str) or label not in self.index:
            raise CertificateError(f"{where}: {label!r} is not a domain label")
        return self.index[label]

    def hypothesis(self, h: Any, comps: Any, where: str) -> str:
        """Check comps realise h in G(H_1..H_k); return h."""
        C = self.C
        n = C.domain_size
        if not isinstance(comps, Sequence) or isinstance(comps, str) or len(comps) != C.arity:
            raise CertificateError(f"{where}: 'components' must be a list of {C.arity} bit "
                                   f"strings (one per class), got {comps!r:.60}")
        for i, c in enumerate(comps):
            if not isinstance(c, str) or len(c) != n or set(c) - {"0", "1"}:
                raise CertificateError(f"{where}: component {i + 1} is not a bit string of "
                                       f"length {n}")
            if c not in self.sets[i]:
                raise CertificateError(f"{where}: component {i + 1} {c!r} is not a hypothesis of "
                                       f"class {i + 1}")
        if not isinstance(h, str) or len(h) != n or set(h) - {"0", "1"}:
            raise CertificateError(f"{where}: hypothesis {h!r:.60} is not a bit string of "
                                   f"length {n}")
        for x in range(n):
            g = C.G(*[int(c[x]) for c in comps])
            if int(h[x]) != g:
                raise CertificateError(f"{where}: hypothesis {h!r} differs from G(components) at "
                                       f"point {C.domain[x]!r} ({h[x]} vs {g})")
        return h


def _check_header(C: Any, result: Any) -> int:
    if not isinstance(C, ComposedClass):
        raise CertificateError(f"expected a ComposedClass, got {type(C).__name__}")
    for attr in ("kind", "witness", "lower", "upper", "value", "exact"):
        if not hasattr(result, attr):
            raise CertificateError(f"expected a DimensionResult without {attr!r}")
    lo, up = result.lower, result.upper
    if isinstance(lo, bool) or not isinstance(lo, int):
        raise CertificateError(f"the lower bound must be an integer, got {lo!r}")
    if lo > up or bool(result.exact) != (lo == up) or result.value != lo:
        raise CertificateError(f"inconsistent result: value={result.value}, lower={lo}, "
                               f"upper={up}, exact={result.exact}")
    if C.is_empty():
        if lo != -1 or result.witness is not None:
            raise CertificateError("the composed class is empty: dimension -1, witness None")
        return -1
    if lo < 0:
        raise CertificateError(f"the composed class is non-empty, so {lo} cannot be its "
                               "dimension")
    return lo


def _verify_tree(M: _Members, tree: Any, d: int) -> None:
    stack: list[tuple[Any, list[tuple[int, int]], str]] = [(tree, [], "root")]
    while stack:
        node, path, where = stack.pop()
        loc = f"Littlestone certificate: node at {where}"
        if not isinstance(node, Mapping):
            raise CertificateError(f"{loc}: a node must be an object")
        if "hypothesis" in node:
            if set(node) != {"hypothesis", "components"}:
                raise CertificateError(f"{loc}: a leaf of a composed class needs exactly the keys "
                                       "'hypothesis' and 'components'")
            if len(path) != d:
                raise CertificateError(f"{loc}: leaf at depth {len(path)}, claimed depth {d}")
            h = M.hypothesis(node["hypothesis"], node["components"], loc)
            for x, b in path:
                if int(h[x]) != b:
                    raise CertificateError(f"{loc}: leaf hypothesis disagrees with its path at "
                                           f"{M.C.domain[x]!r}")
            continue
        if set(node) != {"point", "children"}:
            raise CertificateError(f"{loc}: an internal node needs exactly 'point', 'children'")
        if len(path) >= d:
            raise CertificateError(f"{loc}: internal node at depth {len(path)} >= claimed {d}")
        x = M.point(node["point"], loc)
        if any(y == x for y, _ in path):
            raise CertificateError(f"{loc}: point {node['point']!r} repeated on its path")
        ch = node["children"]
        if not isinstance(ch, Mapping) or set(ch) != {"0", "1"}:
            raise CertificateError(f"{loc}: 'children' must have exactly the keys '0' and '1'")
        for b in (0, 1):
            stack.append((ch[str(b)], [*path, (x, b)], f"{where}/{node['point']}={b}"))


def _verify_threshold(M: _Members, w: Any, k: int) -> None:
    what = "threshold certificate"
    if not isinstance(w, Mapping) or set(w) != {"points", "hypotheses", "components"}:
        raise CertificateError(f"{what}: a composed-class ladder needs exactly the keys 'points', "
                               "'hypotheses', 'components'")
    pts, hyps, comps = w["points"], w["hypotheses"], w["components"]
    if not all(isinstance(v, Sequence) and not isinstance(v, str) for v in (pts, hyps, comps)):
        raise CertificateError(f"{what}: 'points', 'hypotheses', 'components' must be lists")
    if not len(pts) == len(hyps) == len(comps) == k:
        raise CertificateError(f"{what}: the ladder must have {k} points, hypotheses and "
                               "component lists")
    idx = [M.point(p, f"{what}: points") for p in pts]
    if len(set(idx)) != len(idx):
        raise CertificateError(f"{what}: the points must be distinct")
    rows = [M.hypothesis(h, c, f"{what}: hypotheses[{i}]")
            for i, (h, c) in enumerate(zip(hyps, comps, strict=True))]
    for a, h in enumerate(rows):
        for b, x in enumerate(idx):
            if int(h[x]) != (1 if a <= b else 0):
                raise CertificateError(f"{what}: h_{a + 1}(x_{b + 1}) must be "
                                       f"{int(a <= b)}")


def _verify_vc(M: _Members, w: Any, d: int, stats: Mapping[str, Any]) -> None:
    what = "VC certificate"
    if not isinstance(w, Sequence) or isinstance(w, str) or len(w) != d:
        raise CertificateError(f"{what}: the witness must be a list of {d} labels")
    idx = [M.point(p, what) for p in w]
    if len(set(idx)) != d:
        raise CertificateError(f"{what}: the points must be distinct")
    real = stats.get("realisations") if isinstance(stats, Mapping) else None
    if not isinstance(real, Sequence) or len(real) != 1 << d:
        raise CertificateError(f"{what}: a composed class needs stats['realisations'] with "
                               f"{1 << d} entries (components per pattern)")
    for a, comps in enumerate(real):
        if not isinstance(comps, Sequence) or isinstance(comps, str) or len(comps) != M.C.arity:
            raise CertificateError(f"{what}: realisation {a} must list {M.C.arity} components")
        h = "".join(str(M.C.G(*[int(c[x]) for c in comps])) if all(
            isinstance(c, str) and len(c) == M.C.domain_size for c in comps) else "?"
            for x in range(M.C.domain_size))
        M.hypothesis(h if "?" not in h else "", comps, f"{what}: realisation {a}")
        for t, x in enumerate(idx):
            if int(h[x]) != (a >> t) & 1:
                raise CertificateError(f"{what}: realisation {a} gives {w[t]!r} the wrong value")


def verify_composed(C: ComposedClass, result: Any) -> None:
    """Check a DimensionResult for the composed class C (see
    [`ltheory.sat.certify`][ltheory.sat.certify]).

    Raises [`CertificateError`][ltheory.CertificateError] naming the failed check; returns None when
    the witness
    certifies ``result.lower`` exactly.
    """
    d = _check_header(C, result)
    if d == -1:
        return
    M = _Members(C)
    kind = result.kind
    w = result.witness
    if kind == "ldim":
        _verify_tree(M, w, d)
    elif kind == "tdim":
        _verify_threshold(M, w, d)
    elif kind == "vc":
        _verify_vc(M, w, d, result.stats)
    else:
        raise CertificateError(f"unknown result kind {kind!r}; expected vc, ldim or tdim")


def verify_any(H: HypothesisClass | ComposedClass, result: Any, budget: Any = None) -> None:
    """`verify_composed` for a ComposedClass, ``certificates.verify`` otherwise (within
    ``budget`` for an explicit class, see there)."""
    if isinstance(H, ComposedClass):
        verify_composed(H, result)
        return
    verify(H, result, budget=budget)


def strip_components(witness: Any) -> Any:
    """The witness without its ``"components"`` fields (for checking it against a materialised
    class with `ltheory.dims.certificates.verify`)."""
    if isinstance(witness, Mapping):
        return {k: strip_components(v) for k, v in witness.items() if k != "components"}
    if isinstance(witness, list):
        return [strip_components(v) for v in witness]
    return witness
