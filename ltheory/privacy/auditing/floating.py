"""Floating-point leaks, looked for by default: a candidate event family on the bits of float
outputs.

Textbook noise added in floating point, ``f(D) + noise``, is not DP as implemented: the set of
doubles the sum can take depends on ``f(D)`` (Mironov 2012, "On significance of the least
significant bits for differential privacy", CCS).  For ``f(D) = 1`` an output y of
``fl(1 + x)`` is always a multiple of 2⁻⁵³ (both operands are, when |x| < 1, and a rounded sum
only loses low bits), while for ``f(D) = 0`` the output ``y = x`` is an odd multiple of 2^g with
g as low as its exponent allows.  No threshold or histogram of the *value* sees this;
Delta-Siege (Lokna et al., CCS 2023) and ltheory's opt-in
``ltheory.privacy.adapters.floatbits.BitFeatures`` do.

So on float outputs the auditor adds, by default, one more cell family (``BitEncoder``): the
pair (binary exponent e of the output, its *grid exponent* g), g(y) = the exponent of its
lowest set bit (y is an odd multiple of 2^g; y = 0 and ±inf have cells of their own) — the
value's scale and the grid it lies on, the information of ``BitFeatures``' ``"ulp"`` code.
For vector outputs, the codes of up to ``MAX_COLUMNS`` coordinates, each its own family,
chosen on the fit half by how differently their grid exponents are distributed under the two
datasets (total-variation distance).  Its
events are likelihood-ratio prefixes of these cells, chosen on the selection split and
certified on fresh runs like every other event: g is a fixed post-processing, so a bound
certified for ``g ∘ M`` is a sound lower bound for M (Dwork & Roth 2014, Proposition 2.1).

The family is added only when the outputs are non-integer floats with many distinct values
(integer-valued outputs — counts, exact or discrete samplers such as the geometric or the
discrete Gaussian — have no float family, so they cannot lose power or flake because of it),
and only with ``arithmetic="float"`` (the default of ``AuditConfig``, ``audit_curve`` and
``assert_private``).  ``arithmetic="real"`` audits the real-arithmetic mechanism instead (no
bit family): the value of the outputs only.

A report whose certified event is a bit event carries ``floating_point=True``, and its notes
(and ``PrivacyViolation`` messages) name a *floating-point violation* and the fix (`FIX`).

Examples:
    >>> enc = BitEncoder(None, np.array([-55, -54, -53]))
    >>> grid_exponents(np.array([1.0, 0.5, 3.0, 0.1]))
    array([  0,  -1,   0, -55])
    >>> enc.describe_cells([0, 1])
    "output's bits: lowest set bit 2^k for k in [-55, -54] (an odd multiple of 2^k)"
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError

__all__ = ["ARITHMETIC", "FIX", "BitEncoder", "bit_encoders", "check_arithmetic",
           "float_columns", "grid_exponents", "is_float_event", "violation_note"]

#: the accepted values of the ``arithmetic`` option
ARITHMETIC = ("float", "real")
#: the bit families per output (or coordinate): the pair (exponent, grid exponent) (True)
#: and/or the grid exponent alone (False).  The pair alone, measured (bench_floating.py,
#: Laplace(1) at 2·10^5 runs): pairs (0, 1) 9.00 (grid exponent alone 9.01, both 8.80),
#: (0.1, 1.1) 8.65 (8.64, 8.44), (2, 3) 7.43 (0.98: the grid exponent alone misses it, since
#: both datasets reach 2^-52 but only one below |y| = 1)
JOINT = (True,)
#: most coordinates of a vector output given a bit family
MAX_COLUMNS = 3
#: fewest distinct values (pooled fit half) for outputs to count as continuous floats
MIN_DISTINCT = 64
#: the joint code's exponents are clipped to [-EMAX, EMAX]
EMAX = 64
#: grid exponents of 0, +inf and -inf (outside the range of g for finite non-zero doubles)
ZERO, INF, NINF = 2000, 2001, 2002
_MANT = (1 << 52) - 1

#: what a fix looks like, in every floating-point violation message
FIX = ("fix: snap the output to a power-of-two grid after clamping (Mironov 2012's snapping "
       "mechanism), or use an exact sampler (geometric, discrete Gaussian) or a float-safe "
       "library mechanism (OpenDP); to audit the real-arithmetic mechanism instead pass "
       "arithmetic='real'")


def check_arithmetic(value: Any) -> str:
    """``value`` if it is one of `ARITHMETIC`, else ``InvalidInputError``."""
    if not isinstance(value, str) or value not in ARITHMETIC:
        raise InvalidInputError(f"arithmetic must be 'float' (look for floating-point leaks, "
                                f"the default) or 'real' (audit the real-arithmetic "
                                f"mechanism), got {value!r}")
    return value


def grid_exponents(y: Any) -> np.ndarray:
    """Per float64 value, the exponent g of its lowest set bit (y = odd · 2^g); `ZERO`,
    `INF`, `NINF` for 0, +inf, -inf; NaN is refused by the auditor earlier (here it
    falls in the NINF cell)."""
    a = np.ascontiguousarray(np.asarray(y, dtype=np.float64).ravel())
    finite = np.isfinite(a)
    f = np.where(finite, a, 1.0)
    _, e = np.frexp(f)                       # |f| = m · 2^e, m in [0.5, 1)
    bits = f.view(np.uint64)
    expo = (bits >> np.uint64(52)) & np.uint64(0x7FF)
    sig = bits & np.uint64(_MANT)
    sig = np.where(expo > 0, sig | np.uint64(1 << 52), sig)   # subnormals: no hidden bit
    low = sig & (~sig + np.uint64(1))                          # lowest set bit
    tz = np.log2(np.maximum(low, np.uint64(1)).astype(np.float64)).astype(np.int64)
    # value = sig · 2^(E − 1075) for normals (E = biased exponent), 2^(−1074) for subnormals
    base = np.where(expo > 0, expo.astype(np.int64) - 1075, -1074)
    g = base + tz
    g = np.where(f == 0.0, ZERO, g)
    g = np.where(finite, g, np.where(a > 0, INF, NINF))
    return g.astype(np.int64)


def _column(b: Any, col: int | None) -> np.ndarray:
    a = np.asarray(b, dtype=float)
    return a if col is None else a[:, col]


def _non_integer(v: np.ndarray) -> bool:
    fin = v[np.isfinite(v)]
    return bool(fin.size) and bool(np.any(fin != np.round(fin))) and \
        len(np.unique(fin)) >= MIN_DISTINCT


@dataclass(frozen=True)
class BitEncoder:
    """Cells = grid exponents g (see
    [`ltheory.privacy.auditing.floating`][ltheory.privacy.auditing.floating]) of the output (``col``
    None) or of its
    coordinate ``col`` — with ``joint``, the pairs (binary exponent e of the value, clipped to
    ±``EMAX``; g), i.e. the value's scale and the position of its lowest set bit — among those
    seen on the fit half (``codes``, sorted; unseen: −1)."""

    col: int | None
    codes: np.ndarray
    joint: bool = False

    def keys(self, b: Any) -> np.ndarray:
        """The raw code of each output: g, or (e + EMAX)·4096 + g + 1100 with ``joint``."""
        v = _column(b, self.col)
        g = grid_exponents(v)
        if not self.joint:
            return g
        _, e = np.frexp(np.where(np.isfinite(v), v, 0.0))
        e = np.clip(e, -EMAX, EMAX).astype(np.int64) + EMAX
        return e * 4096 + g + 1100

    def encode(self, b: Any) -> np.ndarray:
        g = self.keys(b)
        i = np.clip(np.searchsorted(self.codes, g), 0, len(self.codes) - 1)
        return np.where(self.codes[i] == g, i, -1)

    def _split(self, cell: int) -> tuple[int | None, int]:
        k = int(self.codes[int(cell)])
        if not self.joint:
            return None, k
        e, g = divmod(k, 4096)
        return e - EMAX, g - 1100

    def describe(self, cell: int) -> str:
        """A short label of one cell (plots): "2^-54·odd", "0", "+inf" (with ``joint``, the
        exponent first: "e=-3, 2^-56·odd")."""
        e, g = self._split(cell)
        text = {ZERO: "0", INF: "+inf", NINF: "-inf"}.get(g, f"2^{g}·odd")
        return text if e is None or g in (ZERO, INF, NINF) else f"e={e}, {text}"

    def describe_cells(self, cells: Any) -> str:
        """The cells' grid exponents as ranges: "output's bits: lowest set bit 2^k for k in
        [−93, −55]" (with ``joint``, per exponent e of the value, |y| in [2^(e−1), 2^e))."""
        who = "output" if self.col is None else f"output[{self.col}]"
        special = {ZERO: "0", INF: "+inf", NINF: "-inf"}
        by_e: dict[int | None, list[int]] = {}
        named: set[str] = set()
        for c in cells:
            e, g = self._split(int(c))
            if g in special:
                named.add(special[g])
            else:
                by_e.setdefault(e, []).append(g)
        parts = []
        for e in sorted(by_e, key=lambda x: -1e9 if x is None else x)[:4]:
            ks = _ranges(sorted(by_e[e]))
            where = "" if e is None else f"|{who}| in [2^{e - 1}, 2^{e}) with "
            parts.append(f"{where}lowest set bit 2^k for k in {ks}")
        if len(by_e) > 4:
            parts.append(f"… ({len(by_e)} exponents)")
        text = f"{who}'s bits: " + "; ".join(parts)
        if parts:
            text += " (an odd multiple of 2^k)"
        if named:
            text += (" or " if parts else "") + f"{who} = {' or '.join(sorted(named))}"
        return text


def _ranges(gs: list[int]) -> str:
    runs: list[list[int]] = []
    for g in gs:
        if runs and g == runs[-1][1] + 1:
            runs[-1][1] = g
        else:
            runs.append([g, g])
    parts = [f"[{lo}, {hi}]" if lo != hi else f"{lo}" for lo, hi in runs[:6]]
    if len(runs) > 6:
        parts.append(f"… ({len(runs)} ranges)")
    return " ∪ ".join(parts)


def float_columns(fit: tuple[Any, Any], kind: str) -> list[int | None]:
    """The outputs (``[None]``, scalar) or coordinates (vector, at most ``MAX_COLUMNS``) that
    get a bit family: non-integer floats with at least ``MIN_DISTINCT`` distinct values on the
    fit half; for vectors those whose grid exponents differ most between the datasets."""
    if kind == "scalar":
        pooled = np.concatenate([np.asarray(fit[0], float), np.asarray(fit[1], float)])
        return [None] if _non_integer(pooled) else []
    if kind != "vector":
        return []
    x0, x1 = np.asarray(fit[0], float), np.asarray(fit[1], float)
    tv = []
    for j in range(x0.shape[1]):
        if not _non_integer(np.concatenate([x0[:, j], x1[:, j]])):
            continue
        g0, g1 = grid_exponents(x0[:, j]), grid_exponents(x1[:, j])
        u, inv = np.unique(np.concatenate([g0, g1]), return_inverse=True)
        h0 = np.bincount(inv[: len(g0)], minlength=len(u)) / max(len(g0), 1)
        h1 = np.bincount(inv[len(g0):], minlength=len(u)) / max(len(g1), 1)
        tv.append((0.5 * float(np.abs(h0 - h1).sum()), j))
    tv.sort(key=lambda t: (-t[0], t[1]))
    return [j for _, j in tv[:MAX_COLUMNS]]


def bit_encoders(fit: tuple[Any, Any], kind: str, arithmetic: str = "float"
                 ) -> list[BitEncoder]:
    """The bit families for outputs built on the fit half (see
    [`ltheory.privacy.auditing.floating`][ltheory.privacy.auditing.floating]); none with
    ``arithmetic="real"`` or for outputs that are not non-integer floats."""
    if check_arithmetic(arithmetic) == "real":
        return []
    out = []
    for col in float_columns(fit, kind):
        for joint in JOINT:
            probe = BitEncoder(col, np.zeros(1, dtype=np.int64), joint)
            codes = np.unique(np.concatenate([probe.keys(fit[0]), probe.keys(fit[1])]))
            out.append(BitEncoder(col, codes, joint))
    return out


def is_float_event(event: Any) -> bool:
    """Whether ``event`` is an event of a bit family (a floating-point leak when certified)."""
    return isinstance(getattr(event, "encoder", None), BitEncoder)


def violation_note(event: Any, bound: float | None = None) -> str:
    """The note of a report whose certified event is a bit event above the claim."""
    b = f", certified epsilon > {bound:.4g}" if bound is not None else ""
    return (f"floating-point violation: the event ({event.describe()}) is about the bits of "
            f"the floating-point outputs, not their values{b}: the mechanism as implemented in "
            f"floating point is not DP (Mironov 2012); {FIX}")
