"""Extremal search: small classes (and aggregations) that maximise the ratio of a measured
dimension to a bound of the seeds, by seeded random restarts with hill climbing (flip one bit of
one hypothesis; keep the move if the ratio does not drop).  The project's tests add a
hypothesis-driven search (``hypothesis.target``) over the same objectives.

Objectives (each value exact and certified by ``proofs_check.base.dims``):

- ``union``:    Ldim(H1 ∪ H2) / (Ldim H1 + Ldim H2 + 1)          (ABMS20 Prop. 4.2: ≤ 1)
- ``union_k``:  Ldim(∪_{i≤k} Hi) / (3d + 3 log2 k), d = max Ldim Hi  (ABMS20 Prop. 4.3: ≤ 1)
- ``maj3``:     Ldim(MAJ3(H, H, H)) / max(Ldim H, 1)               (§4.2.2: Õ(k²d), measured)
- ``thm22``:    T(H∨H) / T(H), searched separately at each t = T(H)  (Thm 2.2: T(H∨H) <
                2^{4k·4^k·(t+1)}, unreachable; §4.2.1: ≥ 2^{⌊t'/5⌋} for some H with T(H) ≤ t';
                measured, with the witnesses)

The best examples are kept in ``catalog/extremal.json`` (the classes in the ``ltheory.class/1``
format, the aggregation's truth table, the ratio and the search settings) and re-verified by the
checks below and by the tests; ``python -m proofs_check.extremal --write`` regenerates it.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import sympy

from ltheory import catalog
from ltheory.catalog import data_file
from ltheory.core.boolean import Aggregation
from ltheory.core.class_file import class_from_json, class_to_json
from ltheory.core.compose import compose
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.jsonable import to_jsonable
from proofs_check.abms2020 import PROP43_PROOF
from proofs_check.base import Check, Evidence, Mutable, declare, dims, evaluate_bound

SOURCE = "001_ed369e7bc84e5ca0.txt"
_d1, _d2, _d, _k, _t = sympy.symbols("d1 d2 d k t", integer=True, nonnegative=True)
DATA_FILE = "extremal.json"  # in the catalog's data folder (ltheory/catalog/data, shipped)


@dataclass(frozen=True)
class Instance:
    """Classes (as 0/1 matrices on a common domain) and an optional aggregation truth table."""

    mats: tuple[np.ndarray, ...]
    table: str | None = None

    def classes(self) -> list[HypothesisClass]:
        return [HypothesisClass.from_matrix(m) for m in self.mats]


def _ratio(name: str, measured: int, values: dict[str, Any]) -> Any:
    """measured / the objective's bound, the bound evaluated from its declared expression at
    the row's values (exact where the bound is rational; ∞ when it is ≤ 0 under a positive
    measurement)."""
    obj = OBJECTIVES[name]
    bound = evaluate_bound(obj.expr, **obj.at(values))
    if bound <= 0:
        return Fraction(0) if measured <= 0 else math.inf
    return Fraction(measured) / bound if isinstance(bound, (int, Fraction)) else measured / bound


def _union(inst: Instance) -> tuple[Any, dict[str, Any]]:
    H1, H2 = inst.classes()
    d1, d2 = dims(H1, "ldim")["ldim"], dims(H2, "ldim")["ldim"]
    du = dims(H1.union(H2), "ldim")["ldim"]
    values = {"Ldim(H1)": d1, "Ldim(H2)": d2, "Ldim(H1∪H2)": du}
    return _ratio("union", du, values), values


def _union_k(inst: Instance) -> tuple[Any, dict[str, Any]]:
    hs = inst.classes()
    k = len(hs)
    d = max(dims(H, "ldim")["ldim"] for H in hs)
    du = dims(hs[0].union(*hs[1:]), "ldim")["ldim"]
    values = {"k": k, "d": d, "Ldim(∪Hi)": du}
    return _ratio("union_k", du, values), values


def _maj3(inst: Instance) -> tuple[Any, dict[str, Any]]:
    (H,) = inst.classes()
    d = dims(H, "ldim")["ldim"]
    L = dims(compose(Aggregation.parse("maj").bind(3), H, H, H), "ldim")["ldim"]
    return Fraction(L, max(d, 1)), {"Ldim(H)": d, "Ldim(MAJ3(H,H,H))": L}


def _thm22(inst: Instance) -> tuple[Any, dict[str, Any]]:
    (H,) = inst.classes()
    tH = dims(H, "tdim")["tdim"]
    T = dims(compose(Aggregation.parse("or").bind(2), H, H), "tdim")["tdim"]
    return Fraction(T, max(tH, 1)), {"T(H)": tH, "T(H∨H)": T}


@dataclass(frozen=True)
class Objective:
    name: str
    statement: str
    evaluate: Callable[[Instance], tuple[Any, dict[str, Any]]]
    pieces: int                 # number of classes
    aggregation: bool           # whether a random 2-ary aggregation is searched too
    bound: bool                 # ratio ≤ 1 is a theorem (a failing row is a finding)
    expr: sympy.Expr            # the statement's bound (or reference curve), built in code
    at: Callable[[dict[str, Any]], dict[str, Any]]   # a row's values -> the symbols of expr


OBJECTIVES = {
    "union": Objective("union", "Ldim(H1∪H2)/(Ldim H1 + Ldim H2 + 1) ≤ 1 (Prop. 4.2)",
                       _union, 2, False, True, _d1 + _d2 + 1,
                       lambda v: {"d1": v["Ldim(H1)"], "d2": v["Ldim(H2)"]}),
    "union_k": Objective("union_k", "Ldim(∪Hi)/(3d + 3 log2 k) ≤ 1 (Prop. 4.3), k = 3",
                         _union_k, 3, False, True, 3 * _d + 3 * sympy.log(_k, 2),
                         lambda v: {"d": v["d"], "k": v["k"]}),
    # the ratio is taken to max(d, 1); with k = 3 the reference k²d is 9 times that
    "maj3": Objective("maj3", "Ldim(MAJ3(H,H,H))/Ldim(H) (§4.2.2, Õ(k²d): measured)",
                      _maj3, 1, False, False, _k ** 2 * sympy.Max(_d, 1),
                      lambda v: {"k": 3, "d": v["Ldim(H)"]}),
    # the largest growth T(H∨H)/T(H) at each t (the theorem's 2^{4k·4^k·(t+1)} for reference)
    "thm22": Objective("thm22", "max T(H∨H)/T(H) at each t = T(H) (Thm 2.2, measured)",
                       _thm22, 1, False, False, 2 ** (4 * _k * 4 ** _k * _t),
                       lambda v: {"k": 2, "t": v["T(H)"] + 1}),
}


def _random_instance(obj: Objective, rng: np.random.Generator, n: int, m: int) -> Instance:
    p = float(rng.uniform(0.2, 0.8))
    n = int(rng.integers(max(2, n - 2), n + 1))
    m = int(rng.integers(max(2, m - 3), m + 1))
    mats = tuple((rng.random((m, n)) < p).astype(np.uint8) for _ in range(obj.pieces))
    table = "".join(str(int(b)) for b in rng.integers(0, 2, 4)) if obj.aggregation else None
    return Instance(mats, table)


def _mutate(inst: Instance, rng: np.random.Generator) -> Instance:
    mats = [m.copy() for m in inst.mats]
    i = int(rng.integers(len(mats)))
    r, c = int(rng.integers(mats[i].shape[0])), int(rng.integers(mats[i].shape[1]))
    mats[i][r, c] ^= 1
    table = inst.table
    if table is not None and rng.random() < 0.1:
        j = int(rng.integers(4))
        table = table[:j] + ("1" if table[j] == "0" else "0") + table[j + 1:]
    return Instance(tuple(mats), table)


def search(obj: Objective, seed: int, restarts: int, steps: int, n: int,
           m: int) -> tuple[Instance, Any, dict[str, Any]]:
    """Best instance found by ``restarts`` random starts, each hill-climbed ``steps`` times."""
    rng = np.random.default_rng(seed)
    best: tuple[Instance, Any, dict[str, Any]] | None = None
    for _ in range(restarts):
        cur = _random_instance(obj, rng, n, m)
        val, vals = obj.evaluate(cur)
        for _ in range(steps):
            cand = _mutate(cur, rng)
            cv, cvals = obj.evaluate(cand)
            if cv >= val:
                cur, val, vals = cand, cv, cvals
        if best is None or val > best[1]:
            best = (cur, val, vals)
    assert best is not None
    return best


def search_at_t(obj: Objective, t: int, seed: int, restarts: int, steps: int, n: int,
                m: int) -> tuple[Instance, Any, dict[str, Any]] | None:
    """Like `search`, restricted to classes with T(H) = t (moves toward T(H) = t are
    accepted first); None if no class with T(H) = t was reached."""
    rng = np.random.default_rng(seed)

    def score(vals: dict[str, Any], ratio: Any) -> float:
        return float(ratio) if vals["T(H)"] == t else -1.0 - abs(vals["T(H)"] - t)

    best: tuple[Instance, Any, dict[str, Any]] | None = None
    for _ in range(restarts):
        cur = _random_instance(obj, rng, n, m)
        val, vals = obj.evaluate(cur)
        cs = score(vals, val)
        for _ in range(steps):
            cand = _mutate(cur, rng)
            cv, cvals = obj.evaluate(cand)
            if score(cvals, cv) >= cs:
                cur, val, vals, cs = cand, cv, cvals, score(cvals, cv)
        if vals["T(H)"] == t and (best is None or val > best[1]):
            best = (cur, val, vals)
    return best


def _ratio_json(x: Any) -> Any:
    return str(x) if isinstance(x, Fraction) else x


def entry(obj: Objective, inst: Instance, ratio: Any, values: dict[str, Any],
          settings: dict[str, Any]) -> dict[str, Any]:
    """The JSON record of an extremal example."""
    return {"objective": obj.name, "statement": obj.statement, "ratio": _ratio_json(ratio),
            "ratio_float": float(ratio), "values": values,
            "classes": [class_to_json(H, name=f"{obj.name}-H{i + 1}")
                        for i, H in enumerate(inst.classes())],
            "aggregation": inst.table, "settings": settings}


def instance_of(record: dict[str, Any]) -> Instance:
    hs = [class_from_json(doc, source="catalog/extremal.json") for doc in record["classes"]]
    return Instance(tuple(H.matrix for H in hs), record.get("aggregation"))


def reverify(record: dict[str, Any]) -> tuple[bool, Any, dict[str, Any]]:
    """Recompute a stored example; True iff its exact values (the dimensions) reproduce the
    stored ones.  The ratio is recomputed from the objective's bound as it is now (so a changed
    bound changes the verdict, not the reproduction)."""
    obj = OBJECTIVES[record["objective"]]
    ratio, values = obj.evaluate(instance_of(record))
    same = {k: to_jsonable(v) for k, v in values.items()} == record["values"]
    return same, ratio, values


def load_records(path: Path | None = None) -> list[dict[str, Any]]:
    """The stored best examples: ``catalog/extremal.json`` as shipped, or the file at ``path``."""
    text = path.read_text() if path is not None else data_file(DATA_FILE).read_text()
    return json.loads(text)["examples"]


SETTINGS_FULL = {"restarts": 8, "steps": 200, "n": 7, "m": 8}
SETTINGS_QUICK = {"restarts": 2, "steps": 30, "n": 5, "m": 5}


def _thm22_rows(obj: Objective, quick: bool) -> Iterator[Evidence]:
    """Stored best examples (one per t), then this run's search at each t: T(H∨H)/T(H) with the
    class and the threshold witness of H∨H."""
    from proofs_check.base import witness_of
    for rec in load_records():
        if rec["objective"] != obj.name:
            continue
        same, ratio, values = reverify(rec)
        yield Evidence(f"stored extremal example (t = {rec['settings'].get('t')})",
                       {"settings": rec["settings"]}, {**values, "ratio": _ratio_json(ratio),
                                                        "reproduced": same},
                       None, None if same else False, None, None if same else {"record": rec},
                       "regression data from catalog/extremal.json, recomputed exactly")
    settings = SETTINGS_QUICK if quick else SETTINGS_FULL
    for t in (1, 2) if quick else (1, 2, 3):
        found = search_at_t(obj, t, 0, **settings)
        if found is None:
            yield Evidence(f"search at t = {t} (this run)", {"t": t, **settings},
                           {"reached T(H) = t": False}, None, None,
                           note="no class with T(H) = t reached with these settings")
            continue
        inst, ratio, values = found
        (H,) = inst.classes()
        C = compose(Aggregation.parse("or").bind(2), H, H)
        yield Evidence(f"search at t = {t} (this run)", {"t": t, "seed": 0, **settings},
                       {**values, "ratio": _ratio_json(ratio), "ratio_float": float(ratio)},
                       {"reference 2^{⌊t/5⌋} (§4.2.1)": 2 ** (t // 5)}, None,
                       witness={"class": entry(obj, inst, ratio, values, {"t": t, "seed": 0,
                                                                         **settings}),
                                "threshold witness of H∨H": witness_of(C, "tdim")},
                       note="measured: the largest growth found; the theorem allows "
                            "2^{4k·4^k·(t+1)}")


def _union_k_constructions(obj: Objective, quick: bool) -> Iterator[Evidence]:
    """The paper's own constructions among the k = 3 unions the bound is tested on (issue 31):
    Proposition 4.2's tight union weight≤d ∪ weight≥n−d (Ldim 2d + 1) with a third class, a
    copy of the first; at d = 0 the union of the two constant hypotheses (Ldim 1 > 3d = 0)."""
    for d, n in ((0, 3), (1, 4), (2, 6)) if quick else ((0, 3), (1, 4), (2, 6), (3, 8)):
        lo = catalog.family("weight_at_most", n=n, d=d)
        hi = catalog.family("weight_at_least", n=n, d=d)
        inst = Instance(tuple(H.matrix.astype(np.uint8) for H in (lo, hi, lo)))
        ratio, values = _union_k(inst)
        holds = bool(ratio <= 1)
        yield Evidence("construction: Prop. 4.2's tight union weight≤d ∪ weight≥n−d, and a copy "
                       "of weight≤d (k = 3)", {"d": d, "n": n},
                       {**values, "ratio": _ratio_json(ratio)}, {"ratio <=": 1}, holds,
                       1 - float(ratio), None if holds else entry(obj, inst, ratio, values,
                                                                  {"construction": "prop4.2",
                                                                   "d": d, "n": n}),
                       "the union reaches 2d + 1 (d = 0: two constant hypotheses, Ldim 1)",
                       float(ratio))


def _rows(obj: Objective, quick: bool) -> Iterator[Evidence]:
    if obj.name == "thm22":
        yield from _thm22_rows(obj, quick)
        return
    for rec in load_records():
        if rec["objective"] != obj.name:
            continue
        same, ratio, values = reverify(rec)
        ok = same and (not obj.bound or ratio <= 1)
        yield Evidence(f"stored extremal example ({rec['settings'].get('seed')})",
                       {"settings": rec["settings"]}, {**values, "ratio": _ratio_json(ratio),
                                                        "reproduced": same},
                       {"ratio <=": 1} if obj.bound else None, ok if obj.bound else
                       (None if same else False), None if not obj.bound else 1 - float(ratio),
                       None if ok else {"record": rec},
                       "regression data from catalog/extremal.json, recomputed exactly",
                       float(ratio) if obj.bound else None)
    if obj.name == "union_k":
        yield from _union_k_constructions(obj, quick)
    settings = SETTINGS_QUICK if quick else SETTINGS_FULL
    for seed in (0,) if quick else (0, 1):
        inst, ratio, values = search(obj, seed, **settings)
        holds = bool(ratio <= 1) if obj.bound else None
        yield Evidence("search (this run)", {"seed": seed, **settings},
                       {**values, "ratio": _ratio_json(ratio), "ratio_float": float(ratio)},
                       {"ratio <=": 1} if obj.bound else None, holds,
                       None if not obj.bound else 1 - float(ratio),
                       None if holds is not False else entry(obj, inst, ratio, values,
                                                             {"seed": seed, **settings}),
                       tightness=float(ratio) if obj.bound else None)


FALSIFIABLE = {
    "union": "fails if the stored example stops reproducing, or a search finds H1, H2 with "
             "Ldim(H1∪H2) > Ldim H1 + Ldim H2 + 1 (the stored example reaches ratio 1)",
    "union_k": "fails if a search finds k = 3 classes whose union's Ldim exceeds 3d + 3 log2 3; "
               "also evaluated on Prop. 4.2's tight union (2d + 1) with a copy as third class",
    "maj3": "measured only (Õ(k²d) without constants); fails only if a stored example stops "
            "reproducing",
    "thm22": "measured only (the bound 2^{4k·4^k·t} cannot be approached on small classes); "
             "reports the largest T(H∨H)/T(H) found at each t, with the class and the threshold "
             "witness; fails only if a stored example stops reproducing",
}

CHECKS = [
    Check(f"extremal.{o.name}", SOURCE, f"Extremal search: {o.name}", o.statement, o.expr,
          (lambda quick, o=o: _rows(o, quick)), kind="bound" if o.bound else "measured",
          falsifiable=FALSIFIABLE[o.name])
    for o in OBJECTIVES.values()
]
#: the 10% constant changes of 3d + 3 log2 k are still true (proof in abms2020.PROP43_PROOF)
_UNION_K_EQUIVALENT = {
    k: replace(PROP43_PROOF, text="see abms20.prop4.3: " + PROP43_PROOF.text) for k in (
        "the whole bound moved 10%", "constant 3 moved 10%", "constant 3 moved 10% #2",
        "constant 2 moved 10%")}


def main(argv: list[str] | None = None) -> None:
    """Run the full search and write catalog/extremal.json (seeds 0..S-1 per objective)."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--only", nargs="*", help="objectives to regenerate (others are kept)")
    args = ap.parse_args(argv)
    only = set(args.only or OBJECTIVES)
    out = [r for r in load_records() if r["objective"] not in only]
    for obj in (o for o in OBJECTIVES.values() if o.name in only):
        if obj.name == "thm22":
            for t in (1, 2, 3):
                got = [(seed, search_at_t(obj, t, seed, **SETTINGS_FULL))
                       for seed in range(args.seeds)]
                got = [(seed, g) for seed, g in got if g is not None]
                if not got:
                    continue
                seed, (inst, ratio, values) = max(got, key=lambda sg: sg[1][1])
                print(obj.name, t, seed, float(ratio), values, flush=True)
                out.append(entry(obj, inst, ratio, values,
                                 {"seed": seed, "t": t, **SETTINGS_FULL,
                                  "method": "random restarts + hill climbing at T(H) = t",
                                  "seeds_tried": args.seeds}))
            continue
        best = None
        for seed in range(args.seeds):
            inst, ratio, values = search(obj, seed, **SETTINGS_FULL)
            print(obj.name, seed, float(ratio), values, flush=True)
            if best is None or ratio > best[2]:
                best = (seed, inst, ratio, values)
        seed, inst, ratio, values = best
        out.append(entry(obj, inst, ratio, values, {"seed": seed, **SETTINGS_FULL,
                                                    "method": "random restarts + hill climbing",
                                                    "seeds_tried": args.seeds}))
    if args.write:  # from a checkout: the data folder is a real directory
        target = Path(str(data_file(DATA_FILE)))
        target.write_text(json.dumps({"format": "ltheory.extremal/1", "examples": out},
                                     indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {target}")


if __name__ == "__main__":
    main()

CHECKS = declare(CHECKS, {
    "extremal.union": (Mutable(__name__, "OBJECTIVES", -1, ({"d1": 1, "d2": 2},),
                               key="union", member="expr"),),
    "extremal.union_k": (Mutable(__name__, "OBJECTIVES", -1, ({"d": 1, "k": 3},),
                                 key="union_k", member="expr",
                                 equivalent=_UNION_K_EQUIVALENT),),
})
