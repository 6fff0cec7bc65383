"""Witnesses on a materialised composed class, carried back to the lazy class.

An exact engine run on the materialised class G(H_1, ..., H_k) (Alon, Beimel, Moran, Stemmer
2020, §2) returns witnesses made of composed hypotheses.  To be re-checked against the lazy
[`ComposedClass`][ltheory.ComposedClass] (`ltheory.sat.certify.verify_composed`), each
composed hypothesis must name a tuple (h_1, ..., h_k) realising it: its ``"components"``.
`attach_components` adds them, from the tuples recorded during materialisation (or SAT
enumeration).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ltheory.core.compose import ComposedClass
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.result import DimensionResult

__all__ = ["attach_components", "bit_string"]


def bit_string(row: np.ndarray) -> str:
    """A 0/1 row as the string of the class file format ("0101...")."""
    return (np.asarray(row, dtype=np.uint8) + ord("0")).tobytes().decode("ascii")


def attach_components(C: ComposedClass, mat: Any, res: DimensionResult) -> DimensionResult:
    """``res`` (an exact result on the materialised class ``mat.H``) with the components of its
    witness's hypotheses; ``mat.components[r]`` holds the component indices realising row r.

    Littlestone leaves and threshold ladders get ``"components"`` beside each hypothesis; for VC
    the realisations of the 2^d patterns of the shattered set go into ``stats["realisations"]``.
    """
    H: HypothesisClass = mat.H
    strings = H.to_strings()
    where = {h: r for r, h in enumerate(strings)}

    def comps(h: str) -> list[str]:
        tup = mat.components[where[h]]
        return [bit_string(C.classes[i].matrix[int(j)]) for i, j in enumerate(tup)]

    w = res.witness
    if w is None:
        return res
    stats = dict(res.stats)
    if res.kind == "ldim":
        def attach(node: dict[str, Any]) -> dict[str, Any]:
            if "hypothesis" in node:
                return {"hypothesis": node["hypothesis"], "components": comps(node["hypothesis"])}
            return {"point": node["point"],
                    "children": {b: attach(node["children"][b]) for b in ("0", "1")}}
        w = attach(w)
    elif res.kind == "tdim":
        w = {"points": list(w["points"]), "hypotheses": list(w["hypotheses"]),
             "components": [comps(h) for h in w["hypotheses"]]}
    else:
        idx = [H.point_index(lab) for lab in w]
        codes = (H.matrix[:, idx].astype(np.int64) << np.arange(len(idx))).sum(axis=1) if idx \
            else np.zeros(len(H), dtype=np.int64)
        first: dict[int, int] = {}
        for r, c in enumerate(codes.tolist()):
            first.setdefault(c, r)
        stats["realisations"] = [comps(strings[first[a]]) for a in range(1 << len(idx))]
    return res.replace(witness=w, stats=stats)
