"""Score audits: ε lower bounds from canary scores of training runs (issue 39, part 1).

A model trained with DP-SGD cannot be run 10^5 times; its audit is a *canary* audit: insert
marked examples (or gradients), train, score each canary, and turn the scores into a bound.
[`audit_scores`][ltheory.audit_scores] does the last step, soundly in each setting's own statistical
model.

**many-run** (``setting="many-run"``): every score comes from its own training run, with the
canary (``in_scores``) or without it (``out_scores``); the runs are independent, so the in
scores are i.i.d. draws of the score under the dataset with the canary, the out scores under
the one without.  This is the auditor's setting with the runs given rather than sampled:
the scores are split at random (``seed``) into a *selection* part and a *certification*
part; the events — thresholds ``{score ≥ t}`` and ``{score ≤ t}`` in either direction, the
family that holds the optimal (Neyman–Pearson) events of a monotone-likelihood-ratio pair —
are chosen on the selection part only, ranked by the bound each projects on the
certification part (``projection.certified_bound`` at the expected counts: the number the
certification will compute, δ included), from the selection part's frequencies
(``projection.shrunk``) or, when both sides' selection scores pass a normality test, from a
Gaussian fit (which sees the far tail the selection sample cannot; ``selection="auto"``).
The chosen events are then certified on the untouched part by two one-sided
Clopper–Pearson bounds each (the levels of ``curve.event_levels``, Bonferroni), so with
probability ≥ 1 − α, *for every δ and ε at once*,
``ε_lb(δ) = max_E ln((p_a,lower(E) − δ) / p_b,upper(E))`` and
``δ_lb(ε) = max_E p_a,lower(E) − e^ε p_b,upper(E)`` are below the pair's true curve
(Balle, Barthe & Gaboardi 2018, Definition 3; the complement of each event is read the
other way for free, as in ``audit_curve``).  In and out scores may be in unequal numbers.

**one-run** (``setting="one-run"``): the scores of m canaries of **one** training run, each
included independently with probability 1/2 (``mask``, or the ``inclusion_seed`` that drew
it with [`inclusion_mask`][ltheory.privacy.inclusion_mask]); the bound comes from guesses on the top
and bottom scores
(``one_run``: Steinke, Nasr & Jagielski 2023; Mahloujifar, Melis & Chaudhuri 2024), the
number of guesses chosen over a grid fixed by m with Bonferroni.  Its soundness rests on the
randomised inclusion, not on independent runs, which is why the mask (or seed) is required.

**Multi-dimensional observations** (2-D arrays, rows = runs or canaries, columns =
features: the per-step gradient projections of a white-box canary, say): reduced to one
score by a linear discriminant ``w·x`` (Fisher's, ``w = Σ⁻¹(mean_in − mean_out)``, the
log-likelihood ratio of a Gaussian fit with a shared covariance) fitted on a split — the
selection part (many-run) or a random share of the canaries (one-run) — and the reduced
scores audited on the rest; the statistic is fixed before any certification score is looked
at, so the certification keeps its level.

Examples:
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> r = audit_scores(rng.normal(2, 1, 20_000), rng.normal(0, 1, 20_000), delta=1e-5, seed=0)
    >>> 3.5 < r.epsilon_lower_bound < 10.0      # exact: 2-GDP has ε(1e-5) = 10.0
    True
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import stats as sps

from ltheory.errors import InvalidInputError
from ltheory.jsonable import to_jsonable
from ltheory.privacy.auditing import one_run
from ltheory.privacy.auditing.curve import DELTAS, certified_epsilon, event_levels, lower_hull
from ltheory.privacy.auditing.events import threshold_grid
from ltheory.privacy.auditing.projection import (
    certified_bound,
    certified_interval,
    hockey_stick_lower,
    shrunk,
)
from ltheory.privacy.stats import clopper_pearson_lower, clopper_pearson_upper
from ltheory.validation import check_delta, check_int, check_level, check_seed

__all__ = ["SETTINGS", "ScoreAuditReport", "audit_scores", "inclusion_mask", "load_scores"]

#: the statistical models of [`audit_scores`][ltheory.audit_scores]
SETTINGS = ("many-run", "one-run")
#: many-run, ``selection_share=None``: the share of each side's scores that chooses the
#: events (the rest certifies) is ``SELECTION_RUNS / n`` for the smaller side's n, clipped to
#: [SELECTION_MIN, SELECTION_MAX]: 10% up to 2·10^4 scores per side, then 2,000 selection
#: scores, down to 2% (a Gaussian fit on 2,000 scores places the cut as well as on 10^4)
SELECTION_RUNS = 2_000
SELECTION_MIN, SELECTION_MAX = 0.02, 0.1
#: many-run: the candidates (cut, family, α split) with the best bound at the expected counts
#: whose *expected* certified bound (over the binomial count on the rarer side) is computed
EXPECTED_TOP = 48
#: one-run, multi-dimensional scores: the share of the canaries that fits the reduction
REDUCTION_SHARE = 0.2
#: many-run selection: the shrinkage level of the selection frequencies (as ``audit_curve``)
SHRINK = 0.16
#: many-run selection="auto": the Gaussian fit is used when both sides' selection scores pass
#: D'Agostino–Pearson's normality test at this level (and number at least `MIN_FIT`)
NORMAL_LEVEL = 0.01
MIN_FIT = 20
#: threshold candidates of the Gaussian fit
FIT_GRID = 4001
#: one-run: a mask whose count of included canaries is this improbable under Binomial(m, 1/2)
#: (two-sided) is refused as not randomised
MASK_LEVEL = 1e-6
#: many-run, one event: the shares of α its lower bound on the larger side may take (the rest
#: goes to the upper bound on the other side), chosen with the event on the selection part
LOWER_SHARES = (0.5, 0.4, 0.3, 0.2, 0.1, 0.05)
#: points of the reported ε grid of δ_lb(ε)
EPSILON_POINTS = 41
#: the ridge added to the pooled covariance of the discriminant (times its mean variance)
RIDGE = 1e-6


# --------------------------------------------------------------------------- report
@dataclass(frozen=True)
class ScoreAuditReport:
    """The result of [`audit_scores`][ltheory.audit_scores]; strict JSON (``to_json``: non-finite
    numbers as the
    strings "inf"/"-inf").

    ``epsilon_lower_bound``: sound at confidence 1 − ``alpha`` in the ``setting``'s model at
    ``delta``.  ``direction``: 0 when the certified event is more likely with the canary in
    (``P_in(E) ≤ e^ε P_out(E) + δ`` is what is refuted), 1 with the canary out; ``event``
    describes it (many-run), or the guesses (one-run).  ``counts``: the certification counts
    (many-run: scores in the event per side, of ``certification``'s numbers; one-run:
    ``canaries``, ``guesses``, ``correct``, ``k``).  ``selection`` / ``certification``: the
    numbers of scores per side that chose and that certified (one-run: canaries that fitted a
    reduction / that were guessed on).  ``ceiling``: many-run, the best bound any threshold
    event projects with *all* the scores certifying at level α (no split), estimated on the
    selection part (the Gaussian fit or the frequencies, as selection used); one-run, the bound
    of the best guess count at level α without the grid's Bonferroni factor (what the best k,
    known in advance, would certify on these scores) — neither is a sound bound, both say how
    much the selection cost.  ``analyses``: one-run, each analysis' bound at ``delta``
    (``"steinke"``, ``"fdp"``: (ε, δ) lower bounds; ``"gdp_mu"``: the largest μ-GDP claim
    refuted, and ``"gdp_epsilon"``: that Gaussian's ε at ``delta`` — *not* an (ε, δ) lower
    bound unless the trade-off curve is assumed Gaussian).  The curve: ``epsilon_curve`` is
    ``ε_lb`` at each δ of ``deltas``; many-run also ``delta_lower_bound`` (``δ_lb``) on
    ``epsilons`` and the trade-off ``tradeoff_envelope`` (f-DP, as ``audit_curve``), all
    simultaneous; one-run's ``epsilon_curve`` holds pointwise (each δ at 1 − α).
    ``reduction``: the discriminant of 2-D scores (weights, fitted on how many rows)."""

    setting: str
    epsilon_lower_bound: float
    delta: float
    alpha: float
    analysis: str
    event: str | None
    direction: int | None
    counts: dict
    n_in: int
    n_out: int
    selection: dict
    certification: dict
    ceiling: float | None
    analyses: dict
    deltas: tuple
    epsilon_curve: tuple
    epsilons: tuple = ()
    delta_lower_bound: tuple = ()
    tradeoff_envelope: tuple = ()
    events: tuple = ()
    reduction: dict | None = None
    selection_model: str | None = None
    seed: int | None = None
    seconds: float = 0.0
    notes: tuple[str, ...] = ()
    settings: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """The report as a JSON-ready dict (strict JSON: no NaN or infinity literals)."""
        return to_jsonable(asdict(self))

    def dumps(self, **kw: Any) -> str:
        """[`to_json`][ltheory.ScoreAuditReport.to_json] as a JSON string (``json.dumps`` keywords
        pass through)."""
        return json.dumps(self.to_json(), ensure_ascii=False, allow_nan=False, **kw)


# --------------------------------------------------------------------------- inputs
def _scores(x: Any, name: str) -> np.ndarray:
    """A finite float array of one score per row (1-D) or a feature vector per row (2-D)."""
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} must be an array of numbers (one score per run or "
                                f"canary, or one row of features each), got {type(x).__name__}"
                                ) from None
    if a.ndim == 0 or a.ndim > 2:
        raise InvalidInputError(f"{name} must be a 1-D array of scores or a 2-D array (rows "
                                f"x features), got an array of shape {a.shape}")
    if a.shape[0] == 0 or a.size == 0:
        raise InvalidInputError(f"{name} is empty: an audit needs scores on both sides")
    bad = ~np.isfinite(a)
    if bad.any():
        i = int(np.flatnonzero(bad.reshape(len(a), -1).any(axis=1))[0])
        what = "NaN" if np.isnan(a).any() else "infinite values"
        raise InvalidInputError(f"{name} holds {what} ({int(bad.sum())} entries, the first in "
                                f"row {i}): scores must be finite numbers")
    return a


def inclusion_mask(m: int, seed: int) -> np.ndarray:
    """The inclusion of m canaries drawn from ``seed``: canary i is in iff
    ``numpy.random.default_rng(seed).random(m)[i] < 1/2`` — each independently with
    probability 1/2, the draw a one-run audit (``inclusion_seed=``) re-creates."""
    m = check_int(m, "m", minimum=1)
    seed = check_seed(seed, "inclusion_seed", allow_none=False)
    return np.random.default_rng(seed).random(m) < 0.5


def _mask(mask: Any, inclusion_seed: Any, m: int) -> tuple[np.ndarray, str]:
    if mask is None and inclusion_seed is None:
        raise InvalidInputError(
            "a one-run audit needs the canaries' inclusion: pass mask= (True where the canary "
            "was included, each independently with probability 1/2) or inclusion_seed= (the "
            "seed that drew it with inclusion_mask); the bound is sound only for randomised "
            "inclusion, which in/out scores alone do not show")
    if mask is not None and inclusion_seed is not None:
        want = inclusion_mask(m, inclusion_seed)
        got, _ = _mask(mask, None, m)
        if not np.array_equal(want, got):
            raise InvalidInputError("mask and inclusion_seed disagree: the mask is not the one "
                                    "inclusion_mask(m, inclusion_seed) draws")
        return want, "mask and inclusion_seed"
    if mask is None:
        return inclusion_mask(m, inclusion_seed), f"inclusion_seed={int(inclusion_seed)}"
    a = np.asarray(mask)
    if a.ndim != 1 or len(a) != m:
        raise InvalidInputError(f"mask must be a 1-D array with one entry per canary ({m}), "
                                f"got shape {a.shape}")
    if a.dtype != bool:
        if a.dtype.kind not in "iuf" or not np.all(np.isin(a, (0, 1))):
            raise InvalidInputError("mask must hold booleans (or 0/1): True where the canary "
                                    "was included")
        a = a.astype(bool)
    return a, "mask"


def load_scores(path: str, name: str) -> np.ndarray:
    """Scores from a ``.npy`` file (or text: one score per line, or rows of features), with
    the checks of [`audit_scores`][ltheory.audit_scores]; a clear error naming the file
    otherwise."""
    import os
    if not os.path.isfile(path):
        raise InvalidInputError(f"{name}: no such file {path!r}")
    try:
        if path.endswith(".npy"):
            raw = np.load(path, allow_pickle=False)
        else:
            raw = np.loadtxt(path, dtype=float, ndmin=1)
    except (OSError, ValueError, EOFError) as exc:
        raise InvalidInputError(f"{name}: cannot read {path!r} as scores ({exc})") from None
    if raw.dtype == bool:
        return raw
    return _scores(raw, f"{name} ({path})")


# --------------------------------------------------------------------------- reduction
def _discriminant(x_in: np.ndarray, x_out: np.ndarray) -> np.ndarray:
    """Fisher's discriminant ``Σ⁻¹(mean_in − mean_out)`` (pooled covariance, a small ridge):
    the log-likelihood ratio of Gaussians with a shared covariance, up to a constant."""
    d = x_in.shape[1]
    c = np.zeros((d, d))
    for x in (x_in, x_out):
        if len(x) > 1:
            c += np.cov(x, rowvar=False).reshape(d, d) * (len(x) - 1)
    c /= max(len(x_in) + len(x_out) - 2, 1)
    c += RIDGE * max(float(np.trace(c)) / d, 1e-12) * np.eye(d)
    w = np.linalg.solve(c, x_in.mean(axis=0) - x_out.mean(axis=0))
    return w if np.all(np.isfinite(w)) and np.any(w != 0) else np.ones(d)


# --------------------------------------------------------------------------- many-run
@dataclass(frozen=True)
class _Event:
    t: float
    geq: bool
    direction: int              # 0: more likely with the canary in

    def count(self, s: np.ndarray) -> int:
        return int(np.count_nonzero(s >= self.t if self.geq else s <= self.t))

    def describe(self) -> str:
        return f"score {'≥' if self.geq else '≤'} {self.t:.6g}"


def _gaussian_ok(a: np.ndarray) -> bool:
    if len(a) < MIN_FIT or not np.std(a) > 0:
        return False
    with np.errstate(all="ignore"):
        p = sps.normaltest(a).pvalue
    return bool(np.isfinite(p) and p > NORMAL_LEVEL)


def _candidates(sel_in: np.ndarray, sel_out: np.ndarray, model: str
                ) -> tuple[np.ndarray, dict[tuple[bool, int], tuple[np.ndarray, np.ndarray]]]:
    """Threshold cuts and, per (≥ or ≤, direction), the estimated probabilities (p_a, p_b) of
    each cut's event on its more likely side a and the other side b."""
    if model == "gaussian":
        mi, si = sel_in.mean(), sel_in.std(ddof=1)
        mo, so = sel_out.mean(), sel_out.std(ddof=1)
        span = 12 * max(si, so)
        t = np.linspace(min(mi, mo) - span, max(mi, mo) + span, FIT_GRID)
        ge_in, ge_out = sps.norm.sf(t, mi, si), sps.norm.sf(t, mo, so)
        le_in, le_out = sps.norm.cdf(t, mi, si), sps.norm.cdf(t, mo, so)
    else:
        t = threshold_grid(np.concatenate([sel_in, sel_out]))
        a, b = np.sort(sel_in), np.sort(sel_out)
        ni, no = len(a), len(b)
        gi, go = ni - np.searchsorted(a, t, "left"), no - np.searchsorted(b, t, "left")
        li, lo = np.searchsorted(a, t, "right"), np.searchsorted(b, t, "right")
        ge_in, ge_out = gi / ni, go / no
        le_in, le_out = li / ni, lo / no
        if model == "shrunk":
            (ge_in, ge_out), (le_in, le_out) = (
                _shrink2(gi, ni, go, no), _shrink2(li, ni, lo, no))
    probs = {(True, 0): (ge_in, ge_out), (True, 1): (ge_out, ge_in),
             (False, 0): (le_in, le_out), (False, 1): (le_out, le_in)}
    return t, probs


def _shrink2(ci: np.ndarray, ni: int, co: np.ndarray, no: int) -> tuple[np.ndarray, np.ndarray]:
    """Per cut: the in and out frequencies shrunk towards each other (each side's lower and
    upper Clopper–Pearson bound at `SHRINK`, whichever is the nearer the other side's
    frequency): neither side of a candidate is flattered in either direction."""
    lo_i, up_o = shrunk(ci, co, ni, no, SHRINK)
    lo_o, up_i = shrunk(co, ci, no, ni, SHRINK)
    fi, fo = ci / ni, co / no
    return np.where(fi >= fo, lo_i, up_i), np.where(fi >= fo, up_o, lo_o)


def _split_bound(ka: Any, na: float, kb: Any, nb: float, a_lower: float, a_upper: float,
                 delta: float) -> np.ndarray:
    """``ln((p_a,lower − δ)/p_b,upper)`` with the two one-sided Clopper–Pearson bounds at
    ``a_lower`` and ``a_upper`` (−inf where nothing is certified)."""
    lo = clopper_pearson_lower(ka, na, a_lower) - delta
    up = clopper_pearson_upper(kb, nb, a_upper)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(lo > 0, np.log(np.maximum(lo, 1e-300)) - np.log(up), -np.inf)
    return np.where(np.isnan(v), -np.inf, v)


def _projected(probs: dict, na: dict, delta: float, level: float, share: float = 0.5
               ) -> list[tuple[np.ndarray, tuple[bool, int]]]:
    """Each family's projected bounds with ``na[direction] = (n on side a, n on side b)``, the
    lower bound at ``share·level``, the upper at the rest."""
    out = []
    for key, (pa, pb) in probs.items():
        n_a, n_b = na[key[1]]
        if share == 0.5:
            v = certified_bound(pa * n_a, n_a, pb * n_b, n_b, level, delta)
            v = np.where(np.isnan(v), -np.inf, v)
        else:
            v = _split_bound(pa * n_a, n_a, pb * n_b, n_b, share * level,
                             (1 - share) * level, delta)
        out.append((v, key))
    return out


def _expected_bound(pa: float, pb: float, na: int, nb: int, a_lower: float, a_upper: float,
                    delta: float) -> float:
    """``E[max(0, bound)]`` over the certification counts: the count on the more likely side
    at its mean, the one on the other side binomial (where the bound is convex in a small
    count, the mean bound is above the bound at the mean count)."""
    mean, sd = nb * pb, math.sqrt(max(nb * pb * (1 - pb), 1e-12))
    kb = np.arange(max(0, math.floor(mean - 8 * sd)), min(nb, math.ceil(mean + 8 * sd)) + 1)
    w = sps.binom.pmf(kb, nb, pb)
    v = np.maximum(_split_bound(pa * na, na, kb, nb, a_lower, a_upper, delta), 0.0)
    return float(np.sum(w * v) / max(np.sum(w), 1e-300))


def _lead_share(t: np.ndarray, probs: dict, sizes: dict, delta: float, alpha: float
                ) -> tuple[_Event | None, float]:
    """One event and the share of α for its lower bound (`LOWER_SHARES`): among the
    `EXPECTED_TOP` best projections at the expected counts, the pair with the best
    expected certified bound (`_expected_bound`)."""
    cands: list[tuple[float, int, tuple[bool, int], float]] = []
    for w in LOWER_SHARES:
        for v, key in _projected(probs, sizes, delta, alpha, w):
            for i in np.argsort(-v)[:EXPECTED_TOP]:
                if np.isfinite(v[i]):
                    cands.append((float(v[i]), int(i), key, w))
    if not cands:
        return None, 0.5
    cands.sort(key=lambda c: -c[0])
    best: tuple[float, _Event | None, float] = (-math.inf, None, 0.5)
    for _, i, (geq, direction), w in cands[:EXPECTED_TOP]:
        pa, pb = (float(x[i]) for x in probs[(geq, direction)])
        na, nb = sizes[direction]
        e = _expected_bound(pa, pb, na, nb, w * alpha, (1 - w) * alpha, delta)
        if e > best[0]:
            best = (e, _Event(float(t[i]), geq, direction), w)
    return best[1], best[2]


def _choose(t: np.ndarray, probs: dict, sizes: dict, deltas: list[float], level: float,
            k: int) -> list[_Event]:
    """Up to k distinct events: the best projected at ``deltas[0]`` (the audit's δ), then the
    best at each other δ of the grid, in order (the curve's slots, as ``audit_curve``)."""
    chosen: list[_Event] = []
    for d in deltas:
        if len(chosen) >= k:
            break
        best: tuple[float, _Event] | None = None
        for v, (geq, direction) in _projected(probs, sizes, d, level):
            i = int(np.argmax(v))
            ev = _Event(float(t[i]), geq, direction)
            if np.isfinite(v[i]) and ev not in chosen and (best is None or v[i] > best[0]):
                best = (float(v[i]), ev)
        if best is not None:
            chosen.append(best[1])
    return chosen


def _sizes(n_in: int, n_out: int) -> dict:
    return {0: (n_in, n_out), 1: (n_out, n_in)}


def _many_run(x_in: np.ndarray, x_out: np.ndarray, delta: float, alpha: float,
              rng: np.random.Generator, share: float | None, selection: str, k: int,
              deltas: tuple[float, ...], notes: list[str]) -> dict:
    n_in, n_out = len(x_in), len(x_out)
    if share is None:
        share = min(SELECTION_MAX, max(SELECTION_MIN, SELECTION_RUNS / min(n_in, n_out)))
    if min(n_in, n_out) < 2:
        raise InvalidInputError(f"a many-run audit needs at least 2 scores per side (one to "
                                f"choose the event, one to certify it); got {n_in} in, "
                                f"{n_out} out")
    pi, po = rng.permutation(n_in), rng.permutation(n_out)
    s_in = min(max(1, round(share * n_in)), n_in - 1)
    s_out = min(max(1, round(share * n_out)), n_out - 1)
    sel_in, cert_in = x_in[pi[:s_in]], x_in[pi[s_in:]]
    sel_out, cert_out = x_out[po[:s_out]], x_out[po[s_out:]]
    reduction = None
    if x_in.ndim == 2:
        w = _discriminant(sel_in, sel_out)
        sel_in, cert_in, sel_out, cert_out = (a @ w for a in (sel_in, cert_in, sel_out,
                                                              cert_out))
        reduction = {"statistic": "linear discriminant (Gaussian log-likelihood ratio, shared "
                                  "covariance)", "weights": w.tolist(),
                     "fitted_on": {"in": s_in, "out": s_out}}
    if selection == "auto":
        model = "gaussian" if _gaussian_ok(sel_in) and _gaussian_ok(sel_out) else "shrunk"
    else:
        model = {"gaussian": "gaussian", "empirical": "shrunk"}[selection]
    if model == "gaussian" and not (np.std(sel_in) > 0 and np.std(sel_out) > 0):
        model = "shrunk"
        notes.append("selection='gaussian' needs varying scores on both sides; the "
                     "selection frequencies were used")
    t, probs = _candidates(sel_in, sel_out, model)
    nc_in, nc_out = len(cert_in), len(cert_out)
    levels = event_levels(alpha, k)
    grid = [delta] + [d for d in deltas if d != delta]
    w = 0.5
    if k == 1:
        lead, w = _lead_share(t, probs, _sizes(nc_in, nc_out), delta, alpha)
        chosen = [] if lead is None else [lead]
    else:
        chosen = _choose(t, probs, _sizes(nc_in, nc_out), grid, 2 * levels[-1], k)
    if not chosen:
        raise InvalidInputError("no candidate event: the selection scores show no threshold "
                                "that separates the in and out scores")
    levels = event_levels(alpha, len(chosen))
    pieces, rows = [], []
    for ev, lv in zip(chosen, levels, strict=True):
        ci, co = ev.count(cert_in), ev.count(cert_out)
        ka, na, kb, nb = (ci, nc_in, co, nc_out) if ev.direction == 0 else (co, nc_out, ci,
                                                                             nc_in)
        if len(chosen) == 1:         # the lead's α split as chosen on the selection part
            lo = float(clopper_pearson_lower(ka, na, w * alpha))
            up = float(clopper_pearson_upper(kb, nb, (1 - w) * alpha))
            lv = alpha
        else:
            lo, up = (float(v) for v in certified_interval(ka, na, kb, nb, lv))
        pieces.append({"p_lower": lo, "p_upper": up, "direction": ev.direction,
                       "complement": False})
        pieces.append({"p_lower": 1.0 - up, "p_upper": 1.0 - lo,
                       "direction": 1 - ev.direction, "complement": True})
        rows.append({"event": ev.describe(), "more_likely": "in" if ev.direction == 0
                     else "out", "in": ci, "out": co, "p_lower": lo, "p_upper": up,
                     "level": lv, "lower_share": w if len(chosen) == 1 else 0.5})
    eps = certified_epsilon(pieces, delta)
    best = max(pieces, key=lambda p: (certified_epsilon([p], delta), not p["complement"]))
    # the ceiling: all the scores certifying one event at level α, estimated as selection did
    t2, probs2 = _candidates(sel_in, sel_out, model if model == "gaussian" else "empirical")
    ceiling = max(float(np.max(v)) for w2 in LOWER_SHARES
                  for v, _ in _projected(probs2, _sizes(n_in, n_out), delta, alpha, w2))
    top = certified_epsilon(pieces, 0.0)
    top = 1.1 * top if math.isfinite(top) and top > 0 else 1.0
    e = np.linspace(0.0, top, EPSILON_POINTS)
    lo = np.array([p["p_lower"] for p in pieces])
    up = np.array([p["p_upper"] for p in pieces])
    dlb = np.maximum(0.0, hockey_stick_lower(lo, up, e).max(axis=0))
    hull = lower_hull([(p["p_upper"], 1.0 - p["p_lower"]) for p in pieces])
    i_best = pieces.index(best)
    return {
        "epsilon_lower_bound": eps, "analysis": "clopper-pearson",
        "event": ("not (" + chosen[i_best // 2].describe() + ")") if best["complement"]
        else chosen[i_best // 2].describe(),
        "direction": int(best["direction"]),
        "counts": {"in": rows[i_best // 2]["in"], "out": rows[i_best // 2]["out"],
                   "p_lower": best["p_lower"], "p_upper": best["p_upper"]},
        "selection": {"in": s_in, "out": s_out, "share": share},
        "certification": {"in": nc_in, "out": nc_out},
        "ceiling": ceiling if math.isfinite(ceiling) else None, "analyses": {},
        "epsilon_curve": tuple(certified_epsilon(pieces, d) for d in deltas),
        "epsilons": tuple(float(x) for x in e),
        "delta_lower_bound": tuple(float(x) for x in dlb),
        "tradeoff_envelope": tuple(hull), "events": tuple(rows), "reduction": reduction,
        "selection_model": {"gaussian": "gaussian fit", "shrunk": "selection frequencies"
                            }[model],
    }


# --------------------------------------------------------------------------- one-run
def _one_run(x: np.ndarray, mask: np.ndarray, delta: float, alpha: float,
             rng: np.random.Generator, analysis: str, guesses: str,
             deltas: tuple[float, ...], notes: list[str]) -> dict:
    m_all = len(x)
    n_in = int(mask.sum())
    if n_in == 0 or n_in == m_all:
        raise InvalidInputError(f"the inclusion mask is one-sided ({n_in} of {m_all} canaries "
                                "included): a one-run audit needs canaries on both sides")
    p_mask = float(sps.binomtest(n_in, m_all, 0.5).pvalue)
    if p_mask < MASK_LEVEL:
        raise InvalidInputError(
            f"the inclusion mask is not consistent with independent inclusion with probability "
            f"1/2 ({n_in} of {m_all} canaries included; two-sided binomial p = {p_mask:.2g}): "
            "one-run bounds are sound only for randomised inclusion")
    reduction = None
    fit = np.zeros(m_all, dtype=bool)
    if x.ndim == 2:
        idx = rng.permutation(m_all)[: max(2, round(REDUCTION_SHARE * m_all))]
        fit[idx] = True
        fi, fo = x[fit & mask], x[fit & ~mask]
        if len(fi) < 2 or len(fo) < 2:
            raise InvalidInputError("too few canaries to fit the reduction of 2-D scores "
                                    "(at least 2 included and 2 excluded in the fitting share)")
        w = _discriminant(fi, fo)
        x = x @ w
        reduction = {"statistic": "linear discriminant (Gaussian log-likelihood ratio, shared "
                                  "covariance)", "weights": w.tolist(),
                     "fitted_on": {"in": len(fi), "out": len(fo)}}
    s, lab = x[~fit], mask[~fit]
    m = len(s)
    two = guesses == "both"
    ks = one_run.k_grid(m, two_sided=two)
    if len(ks) == 0:
        raise InvalidInputError(f"too few canaries to guess on ({m})")
    order = np.argsort(-s, kind="stable")
    top_in = np.cumsum(lab[order])                    # included among the top k
    bot_out = np.cumsum(~lab[order[::-1]])            # excluded among the bottom k
    counts = [(int(k), int(2 * k if two else k),
               int(top_in[k - 1] + (bot_out[k - 1] if two else 0))) for k in ks]
    level = alpha / len(ks)
    res: dict[str, float] = {}
    where: dict[str, int] = {}
    for a in ("steinke", "fdp", "gdp"):
        res[a], where[a] = one_run.best_over_grid(a, m, counts, level, delta)
    j = where[analysis]
    ceiling, _ = one_run.best_over_grid(analysis, m, counts, alpha, delta)
    if analysis == "gdp":           # μ does not depend on δ: the refuted Gaussian's curve
        main = one_run.gdp_epsilon(res["gdp"], delta)
        ceiling = one_run.gdp_epsilon(ceiling, delta)
        curve = tuple(one_run.gdp_epsilon(res["gdp"], d) for d in deltas)
        notes.append(f"analysis='gdp': the guesses refute {res['gdp']:.4g}-GDP; the bound is "
                     "the epsilon of that Gaussian at delta, an (epsilon, delta) lower bound "
                     "only if the mechanism's trade-off curve is Gaussian (DP-SGD's is, "
                     "asymptotically); analyses['fdp'] is the (epsilon, delta) lower bound")
    else:
        main = res[analysis]
        curve = tuple(main if d == delta else one_run.best_over_grid(
            analysis, m, counts, level, d)[0] for d in deltas)
    k, c, v = counts[j] if j >= 0 else (0, 0, 0)
    event = (f"guess 'in' on the {k} highest scores" + (f" and 'out' on the {k} lowest"
                                                        if two else "")) if j >= 0 else None
    return {
        "epsilon_lower_bound": main, "analysis": analysis, "event": event,
        "direction": 0 if j >= 0 else None,
        "counts": {"canaries": m, "guesses": c, "correct": v, "k": k,
                   "grid_size": len(ks), "level_per_k": level},
        "selection": {"in": int((fit & mask).sum()), "out": int((fit & ~mask).sum())},
        "certification": {"in": int(lab.sum()), "out": int((~lab).sum())},
        "ceiling": ceiling,
        "analyses": {"steinke": res["steinke"], "fdp": res["fdp"], "gdp_mu": res["gdp"],
                     "gdp_epsilon": one_run.gdp_epsilon(res["gdp"], delta)},
        "epsilon_curve": curve, "reduction": reduction, "selection_model": None,
    }


# --------------------------------------------------------------------------- API
def audit_scores(in_scores: Any, out_scores: Any = None, *, delta: float, alpha: float = 0.05,
                 setting: str = "many-run", mask: Any = None, inclusion_seed: Any = None,
                 seed: int | None = 0, selection: str = "auto",
                 selection_share: float | None = None, events: int = 1,
                 analysis: str = "fdp", guesses: str = "both",
                 deltas: Any = None) -> ScoreAuditReport:
    """A sound ε lower bound at ``delta`` from canary scores of training runs.

    The scores are what an attacker computes on a canary (a loss, a gradient dot product...)
    after training with or without it.  Two statistical settings, each sound in its own model
    (see [`ltheory.privacy.auditing.scores`][ltheory.privacy.auditing.scores] for the models
    and their soundness):

    * ``"many-run"``: ``in_scores`` / ``out_scores``, one score (or 1-D feature row) per
      training run with / without the canary, in any numbers (at least 2 each).  Part of each
      side chooses threshold events, the rest certifies them with Clopper–Pearson bounds.
    * ``"one-run"``: ``in_scores`` holds the scores of all m canaries of one run, and ``mask``
      their inclusion (each drawn independently with probability 1/2), or ``inclusion_seed``
      the seed [`inclusion_mask`][ltheory.privacy.inclusion_mask] drew it from (Steinke, Nasr &
      Jagielski 2023; Mahloujifar, Melis & Chaudhuri 2024).

    Args:
        in_scores: many-run: the scores of the runs with the canary; one-run: the scores of
            all canaries of the run.
        out_scores: many-run: the scores of the runs without the canary; one-run: ``None``.
        delta: The δ at which ε is bounded.
        alpha: The probability that the bound (and many-run's whole certified curve) is wrong.
        setting: ``"many-run"`` or ``"one-run"``.
        mask: one-run: the inclusion of each canary (True = in).
        inclusion_seed: one-run: the seed the mask was drawn from, instead of ``mask``.
        seed: The seed of the random selection split (many-run).
        selection: many-run: ``"auto"`` (a Gaussian fit where both sides look normal, else the
            shrunk frequencies), ``"gaussian"`` or ``"empirical"``.
        selection_share: many-run: the share of each side that chooses the events; default
            the `SELECTION_RUNS` rule (10% up to 2·10⁴ scores per side, then 2 000 scores).
        events: many-run: the number of threshold events; 1 (default) is the best at
            ``delta``, more add the best at each δ of ``deltas`` to the certified curve.
        analysis: one-run: ``"fdp"`` (Mahloujifar et al.'s recursion with the (ε, δ) trade-off
            curve, default), ``"steinke"``, or ``"gdp"`` (the same recursion with the Gaussian
            curve: sound for GDP claims, an (ε, δ) bound only for mechanisms with a Gaussian
            trade-off curve; a note says so).  Every analysis is reported in ``analyses``.
        guesses: one-run: ``"both"`` (top k in, bottom k out) or ``"top"`` (top k only).
        deltas: The δ grid of the reported curve; default (10⁻¹, …, 10⁻⁶) and ``delta``.

    Returns:
        A [`ScoreAuditReport`][ltheory.ScoreAuditReport]: ``epsilon_lower_bound`` at
            ``delta`` (sound at confidence 1 − alpha), the certified event, the curve.

    Raises:
        InvalidInputError: On NaN or infinite scores, empty or one-sided inputs, a one-run
            audit without ``mask`` / ``inclusion_seed`` or with a mask not consistent with
            randomised inclusion, and on bad options.

    Examples:
        >>> import numpy as np
        >>> from ltheory import audit_scores
        >>> rng = np.random.default_rng(0)
        >>> r = audit_scores(rng.normal(2.0, 1.0, 1000), rng.normal(0.0, 1.0, 1000), delta=1e-5)
        >>> r.setting, r.epsilon_lower_bound > 2
        ('many-run', True)
    """
    t0 = time.perf_counter()
    if setting not in SETTINGS:
        raise InvalidInputError(f"setting must be one of {', '.join(SETTINGS)}; got "
                                f"{setting!r}")
    delta = check_delta(delta, "delta")
    alpha = check_level(alpha, "alpha")
    seed = check_seed(seed, "seed")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
    rng = np.random.default_rng(seed)
    if selection not in ("auto", "gaussian", "empirical"):
        raise InvalidInputError(f"selection must be 'auto', 'gaussian' or 'empirical'; got "
                                f"{selection!r}")
    share = None if selection_share is None else check_level(selection_share,
                                                             "selection_share")
    k = check_int(events, "events", minimum=1, maximum=len(DELTAS) + 1)
    if analysis not in one_run.ANALYSES:
        raise InvalidInputError(f"analysis must be one of {', '.join(one_run.ANALYSES)}; got "
                                f"{analysis!r}")
    if guesses not in ("both", "top"):
        raise InvalidInputError(f"guesses must be 'both' or 'top'; got {guesses!r}")
    grid = tuple(sorted({*(DELTAS if deltas is None else _deltas(deltas)), delta},
                        reverse=True))
    notes: list[str] = []
    x_in = _scores(in_scores, "in_scores")
    if setting == "many-run":
        if out_scores is None:
            raise InvalidInputError("a many-run audit needs out_scores (the scores of the "
                                    "runs without the canary)")
        if mask is not None or inclusion_seed is not None:
            raise InvalidInputError("mask / inclusion_seed belong to one-run audits "
                                    "(setting='one-run')")
        x_out = _scores(out_scores, "out_scores")
        if x_in.ndim != x_out.ndim or x_in.shape[1:] != x_out.shape[1:]:
            raise InvalidInputError(f"in_scores and out_scores must have the same number of "
                                    f"features; got shapes {x_in.shape} and {x_out.shape}")
        body = _many_run(x_in, x_out, delta, alpha, rng, share, selection, k, grid, notes)
        n_in, n_out = len(x_in), len(x_out)
    else:
        if out_scores is not None:
            raise InvalidInputError(
                "a one-run audit takes the scores of all m canaries of the run (in_scores) "
                "and their inclusion (mask= or inclusion_seed=), not separate in/out arrays: "
                "the bound is sound only for randomised inclusion, which in/out arrays alone "
                "do not show")
        m = len(x_in)
        incl, how = _mask(mask, inclusion_seed, m)
        notes.append(f"inclusion from {how}")
        body = _one_run(x_in, incl, delta, alpha, rng, analysis, guesses, grid, notes)
        n_in, n_out = int(incl.sum()), int(m - incl.sum())
    eps = body.pop("epsilon_lower_bound")
    if not eps > 0:
        notes.append("inconclusive: no event (or guess count) certified a positive epsilon; "
                     "the bound is the trivial 0")
    return ScoreAuditReport(
        setting=setting, epsilon_lower_bound=float(eps), delta=delta, alpha=alpha,
        n_in=n_in, n_out=n_out, deltas=grid, seed=seed,
        seconds=time.perf_counter() - t0, notes=tuple(notes),
        settings={"selection": selection, "selection_share": share, "events": k,
                  "analysis": analysis, "guesses": guesses}, **body)


def _deltas(values: Any) -> tuple[float, ...]:
    try:
        a = np.atleast_1d(np.asarray(values, dtype=float))
    except (TypeError, ValueError):
        raise InvalidInputError(f"deltas must be numbers in [0, 1), got {values!r}") from None
    if a.size == 0 or a.ndim != 1 or not np.all((a >= 0) & (a < 1)):
        raise InvalidInputError(f"deltas must be numbers in [0, 1), got {values!r}")
    return tuple(float(x) for x in a)
