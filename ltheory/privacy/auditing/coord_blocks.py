"""The per-coordinate statistics of the structure scores (``features``), computed a block of
runs at a time.

A sign count or a naive-Bayes sum reads every continuous coordinate (or first difference) of
every run; column by column over a whole batch that is one pass over memory, and one temporary
array, per coordinate.  Here the runs are cut into blocks of `ROWS` (their temporaries stay in
cache and are reused): in each block every coordinate is compared with its median, or cut at
its quartiles, at once, first differences being taken on the block's flattened rows (the same
subtraction as ``Coord.values``).  The numbers are those of the column-by-column code:

* `SignTable`: the indicators ``1[o_j above its median, not an atom]`` (``Coord.up``) and the
  signed count Σ sign_j · indicator_j (small integers, exact in any order of summation);
* `cell_sum`: Σ_g w_g[cell_g(o)] over the coordinates' atom-or-quartile cells
  (``Coord.cell``), added left to right in the coordinates' order, as the naive-Bayes score
  adds them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

#: runs per block
ROWS = 1 << 13


def value_blocks(a: np.ndarray, diff: bool) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
    """Blocks of the runs ``a`` (2-D): (rows, the block, its first differences — column j is
    ``o_j − o_{j−1}``, column 0 meaningless — or the block again when ``diff`` is False)."""
    a = np.ascontiguousarray(a, dtype=float)
    k = a.shape[1]
    d = np.empty(min(ROWS, len(a)) * k) if diff else None
    for i in range(0, len(a), ROWS):
        blk = a[i:i + ROWS]
        r = len(blk)
        if d is None:
            yield slice(i, i + r), blk, blk
            continue
        flat = blk.reshape(-1)
        with np.errstate(invalid="ignore", over="ignore"):
            np.subtract(flat[1:], flat[:-1], out=d[1:r * k])
        yield slice(i, i + r), blk, d[:r * k].reshape(r, k)


def _tiled(row: np.ndarray, rows: int) -> np.ndarray:
    """``row`` repeated ``rows`` times (a C-contiguous block): compared with a block of runs it
    makes one long contiguous loop, where broadcasting the row loops over runs × columns."""
    return np.ascontiguousarray(np.broadcast_to(row, (rows, len(row))))


class SignTable:
    """``Coord.up`` of several coordinates (``coords``: objects with ``col``, ``diff``,
    ``median``, ``atoms``) on runs of ``width`` columns."""

    def __init__(self, coords: Sequence[Any], width: int) -> None:
        self.coords = list(coords)
        self.width = width
        med = np.zeros((2, width))              # [plain columns, first differences]
        for c in self.coords:
            med[int(c.diff), c.col] = c.median
        self.med = med
        self.idx = np.array([c.col + width * c.diff for c in self.coords], dtype=np.intp)
        self.atoms = [(int(c.diff), c.col, c.atoms) for c in self.coords if len(c.atoms)]
        self.kinds = sorted({int(c.diff) for c in self.coords})
        # a kind read at few of its columns (the leads of the increments: one plain column
        # beside the differences) is compared at those columns only; its others stay False
        used = [sorted({c.col for c in self.coords if int(c.diff) == h}) for h in (0, 1)]
        self.few = [np.array(u, dtype=np.intp) if 2 * len(u) <= width else None for u in used]

    def _blocks(self, a: np.ndarray) -> Iterator[tuple[slice, list[Any]]]:
        """(rows, [bool block of the plain columns, of the differences] (None: not read))."""
        rows = min(ROWS, len(a))
        med = [_tiled(self.med[h], rows) if h in self.kinds and self.few[h] is None else None
               for h in (0, 1)]
        up = [np.zeros((rows, self.width), dtype=bool) if h in self.kinds else None
              for h in (0, 1)]
        for sl, blk, dv in value_blocks(a, 1 in self.kinds):
            r = len(blk)
            vals = (blk, dv)
            out = [None if u is None else u[:r] for u in up]
            for h in self.kinds:
                few = self.few[h]
                if few is None:
                    np.greater(vals[h], med[h][:r], out=out[h])
                else:
                    out[h][:, few] = vals[h][:, few] > self.med[h][few]
            for h, j, x in self.atoms:
                out[h][:, j] &= ~np.isin(vals[h][:, j], x)
            yield sl, out

    def matrix(self, a: np.ndarray) -> np.ndarray:
        """The indicators (runs × number of coordinates, bool)."""
        res = np.empty((len(a), len(self.coords)), dtype=bool)
        for rows, (p, d) in self._blocks(a):
            if p is None:
                res[rows] = d[:, self.idx - self.width]
            elif d is None:
                res[rows] = p[:, self.idx]
            else:
                res[rows] = np.concatenate((p, d), axis=1)[:, self.idx]
        return res

    def count(self, a: np.ndarray, signs: Sequence[float]) -> np.ndarray:
        """Σ_j signs_j · indicator_j per run (``signs`` ±1 per coordinate), as floats."""
        small = len(self.coords) < 128
        w = np.zeros(2 * self.width, dtype=np.int8 if small else np.int32)
        np.add.at(w, self.idx, np.asarray(signs).astype(w.dtype))
        w = w.reshape(2, self.width)
        res = np.empty(len(a))
        for rows, ups in self._blocks(a):
            tot: Any = 0
            for h, u in enumerate(ups):
                if u is None:
                    continue
                few = self.few[h]
                if few is not None:             # only those columns can be True
                    u, wh = np.ascontiguousarray(u[:, few]), w[h][few]
                else:
                    wh = w[h]
                tot = tot + u.view(np.int8 if small else np.uint8) @ wh
            res[rows] = tot
        return res


def cell_sum(coords: Sequence[Any], weights: Sequence[np.ndarray], a: np.ndarray) -> np.ndarray:
    """Σ_g weights[g][coords[g].cell(coords[g].values(o))] per run, summed left to right
    (``coords`` plain coordinates, first differences or both; each with ``atoms`` and sorted
    ``quartiles``: cell = atom index, else len(atoms) + the number of quartiles ≤ o)."""
    n, m = len(a), len(coords)
    if m == 0:
        return np.zeros(n)
    cols = np.array([c.col for c in coords], dtype=np.intp)
    is_diff = np.array([bool(c.diff) for c in coords])
    diff, mixed = bool(is_diff.any()), bool(is_diff.any() and not is_diff.all())
    rows = min(ROWS, n)
    nq = max(len(c.quartiles) for c in coords)
    q = np.full((nq, m), -np.inf)                 # padding: never above a value
    for g, c in enumerate(coords):
        q[:len(c.quartiles), g] = c.quartiles
    qt = [_tiled(q[k], rows) for k in range(nq)]
    offsets = np.cumsum([0] + [len(w) for w in weights[:-1]]).astype(np.intp)
    # each coordinate's last cell, as a position in the concatenated weights
    last = _tiled(offsets + np.array([len(c.atoms) + len(c.quartiles) for c in coords],
                                     dtype=np.intp), rows)
    flat_w = np.concatenate([np.asarray(w, dtype=float) for w in weights])
    atoms = [(g, c.atoms) for g, c in enumerate(coords) if len(c.atoms)]
    out = np.empty(n)
    for sl, blk, dv in value_blocks(a, diff):
        r = len(blk)
        if mixed:                                 # the plain columns, then the differences
            v = np.empty((r, m))
            v[:, ~is_diff] = blk[:, cols[~is_diff]]
            v[:, is_diff] = dv[:, cols[is_diff]]
        else:
            v = (dv if diff else blk)[:, cols]
        code = last[:r].copy()
        for k in range(nq):
            code -= v < qt[k][:r]
        for g, x in atoms:
            for i, at in enumerate(x):
                code[:, g] = np.where(v[:, g] == at, offsets[g] + i, code[:, g])
        terms = flat_w[code]
        acc = out[sl]
        np.add(terms[:, 0], 0.0, out=acc)         # the sum starts from 0.0, as s = zeros
        for g in range(1, m):
            acc += terms[:, g]
    return out


def above_matrix(coords: Sequence[Any], a: np.ndarray) -> np.ndarray:
    """``Coord.up`` of each of ``coords`` on the runs ``a`` (2-D) as one bool matrix (runs ×
    len(coords)), by `SignTable`."""
    return SignTable(coords, a.shape[1]).matrix(a)
