"""Pilots of the neighbour search: cheap runs on each candidate pair that rank the pairs.

A pilot never certifies anything: the final audit of the chosen pair runs on seed streams
independent of the pilots', so the pilots only decide *which* pair is audited and soundness does
not depend on them.  Every kind implements `Pilot` (``run`` a pair, ``rescore`` it at the
end of a rung); `choose_pilot` picks one from a `Probe` of ``PROBE_RUNS`` runs per
dataset on the first pair:

* `CellPilot` — few distinct outputs (at most ``PILOT_CELLS``, on average 4 runs each):
  each pilot adds its runs' counts per output to the pair's earlier counts (with
  ``pool_pilots``, to each dataset's counts over every pair sharing it) and ranks the pair by
  the *plug-in projection*: the best bound a likelihood-ratio prefix of outputs (the
  Neyman–Pearson events of a finite output space) would certify with the final runs, each
  prefix's counts shrunk to their confidence bounds (``pilot_ranking``: unshrunk, the
  projection favoured weak pairs' noise; issue 42).  With ``cols`` (pattern pilots), the same
  on the discrete coordinates of outputs that mix few-valued codes with continuous values (a
  sparse vector that releases its noisy answers): a lower estimate of what the output leaks;
* `BlockPilot` — the discrete coordinates as several few-valued blocks (a parallel
  composition): the best block's plug-in projection;
* `ScorePilot` (``score_pilot``) — vectors of few-valued coordinates with too many joint
  values (a RAPPOR report): quantile bins of a per-coordinate likelihood-ratio score fitted on
  half of the pair's pilot runs and binned on the other half;
* `BinnedPilot` — other scalar outputs: the plug-in projection of quantile bins (about
  ``PILOT_BIN_RUNS`` pooled runs per bin) of all the pair's pilot runs (with
  ``pool_pilots``, of every pilot run of each of its datasets, whichever pair drew it), shrunk
  at `BIN_PILOT_SHRINK` at most;
* `AuditPilot` — anything else, and the fallback of a pair a plug-in kind cannot count: a
  short audit, ranked by its certified event's projection to the final runs.

Why these kinds, and what each gained on DP-Sniper's suite: ``docs/reference/auditor.md``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ltheory.jsonable import to_jsonable
from ltheory.privacy.auditing.core import exact_distributions, run_audit, split_runs
from ltheory.privacy.auditing.events import SHRINK
from ltheory.privacy.auditing.exact import exact_epsilon
from ltheory.privacy.auditing.executors import resolve_executor, run_sampling
from ltheory.privacy.auditing.outputs import batch_kind, unique_rows
from ltheory.privacy.auditing.pilot_ranking import shrunk_lr_prefix
from ltheory.privacy.auditing.projection import best_lr_prefix, projected_bound, shrunk
from ltheory.privacy.auditing.report import AuditReport

#: Most distinct outputs for discrete pilots: with more cells than this, the plug-in ranking from
#: a few thousand runs per pair is noise-driven and the likelihood-ratio cells lose to smoother
#: families in the final selection (SVT6, 2^10 patterns: 0.20 instead of 0.31 at 2e7).
PILOT_CELLS = 64
#: Runs per dataset of the probe deciding whether the pilots are discrete.
PROBE_RUNS = 2_000
#: Most values of a coordinate counted as discrete for pattern pilots (``pattern_pilots``).
PATTERN_VALUES = 3
#: Pooled pilot runs per quantile bin of the binned pilots (``binned_pilots``).
PILOT_BIN_RUNS = 1_000
#: The most the binned pilots' counts are shrunk at (one-sided Clopper–Pearson level; the
#: search's ``pilot_shrink`` when that is smaller).  Their ~30 quantile bins of a continuous
#: output are ordered by noisy ratios, so a weak pair's chance prefix needs more discount than
#: the few exact cells of ``PILOT_SHRINK``.  With pooled runs, 201 searches at 2·10^6 runs run
#: up to their final audit (as ``bench_pair_choice`` runs them), the chosen pair at the largest
#: ceiling: ReportNoisyMax3 182 at 0.16 -> 191 at 0.05 (191 at 0.02); ReportNoisyMax4 194 at
#: 0.16 and 0.05 (auditor.md, "Pair choice under pilot noise").
BIN_PILOT_SHRINK = 0.05



def draw_rows(mechanism: Any, a: Any, b: Any, n: int, ss: np.random.SeedSequence,
               executor: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """n outputs on each of a and b (seeds spawned from ``ss``) as float rows, or None when
    they are not numeric arrays of one shape (the pilots then cannot count them as cells)."""
    ss0, ss1 = ss.spawn(2)
    ex, owned, _ = resolve_executor(executor, mechanism, 2 * n)
    try:
        s0 = run_sampling(ex, mechanism, a, ss0, n)
        s1 = run_sampling(ex, mechanism, b, ss1, n)
    finally:
        if owned:
            ex.shutdown(wait=True)
    if batch_kind(s0) == "object" or batch_kind(s0) != batch_kind(s1):
        return None
    x0 = np.asarray(s0, dtype=float).reshape(n, -1)
    x1 = np.asarray(s1, dtype=float).reshape(n, -1)
    return None if x0.shape[1] != x1.shape[1] else (x0, x1)


@dataclass(frozen=True)
class Probe:
    """What a probe of the first pair's outputs shows (`probe_outputs`).

    ``kind``: ``"cells"`` (few distinct outputs), ``"pattern"`` (few joint values of the
    low-cardinality coordinates ``cols`` beside continuous ones), ``"blocks"`` (too many joint
    values, but each block of consecutive discrete coordinates in ``blocks`` is few-valued),
    ``"coordinates"`` (every coordinate few-valued, too many joint values: score pilots),
    ``"numeric"`` (numbers of ``columns`` coordinates, none of the above) or ``"objects"``
    (outputs that are not numeric arrays of one shape)."""

    kind: str
    columns: int | None = None
    cols: tuple[int, ...] | None = None
    blocks: tuple[tuple[int, ...], ...] | None = None


def probe_outputs(mechanism: Any, a: Any, b: Any, n: int, ss: np.random.SeedSequence,
                  executor: Any, patterns: bool = True) -> Probe:
    """Draw n runs on each of a, b and say what their outputs look like (`Probe`): few
    distinct outputs (at most ``PILOT_CELLS``, and on average at least 4 runs per output);
    with ``patterns``, the discrete projection of outputs that mix few-valued coordinates (at
    most ``PATTERN_VALUES`` values each, e.g. the ⊤/⊥ pattern of a sparse vector that also
    releases values) with continuous ones, or its blocks of consecutive coordinates."""
    rows = draw_rows(mechanism, a, b, n, ss, executor) if n >= 1 else None
    if rows is None:
        return Probe("objects")
    columns = rows[0].shape[1]
    pooled = np.concatenate(rows)
    cap = cell_cap(n)
    if len(unique_rows(pooled)) <= cap:
        return Probe("cells", columns)
    if not patterns:
        return Probe("numeric", columns)
    card = [len(np.unique(pooled[:, j])) for j in range(pooled.shape[1])]
    cols = tuple(j for j, c in enumerate(card) if 1 < c <= PATTERN_VALUES)
    if len(cols) == len(card) > 1:            # every coordinate few-valued, too many joint values
        return Probe("coordinates", columns)
    if not cols or len(cols) == len(card):
        return Probe("numeric", columns)
    if len(unique_rows(pooled[:, cols])) <= cap:
        return Probe("pattern", columns, cols=cols)
    # too many joint codes: the blocks (maximal runs of consecutive discrete coordinates, e.g.
    # the codes of each sparse vector of a parallel composition), when each is few-valued
    blocks = consecutive_runs(cols)
    if len(blocks) < 2 or any(len(unique_rows(pooled[:, list(bl)])) > cap
                              for bl in blocks):
        return Probe("numeric", columns)
    return Probe("blocks", columns, blocks=blocks)


def consecutive_runs(cols: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """``cols`` (increasing) cut into maximal runs of consecutive indices."""
    out: list[list[int]] = []
    for j in cols:
        if out and out[-1][-1] == j - 1:
            out[-1].append(j)
        else:
            out.append([j])
    return tuple(tuple(r) for r in out)


def dataset_key(ds: Any) -> str:
    """A key identifying a dataset (equal datasets of different pairs share it)."""
    try:
        return json.dumps(to_jsonable(ds), sort_keys=True)
    except (TypeError, ValueError):
        return repr(ds)


def discrete_pilot(mechanism: Any, a: Any, b: Any, runs: int, seed: int, executor: Any,
                    d: dict, cols: tuple[int, ...] | None = None,
                    pool: dict | None = None) -> bool:
    """Draw runs // 2 outputs on each of a, b from ``seed`` and add their counts per distinct
    output to ``d["_cells"]`` (key -> [row, count under a, count under b]) and, with ``pool``,
    to the pooled counts of each dataset (``pool[key] = [{cell: [row, count]}, runs]``); False
    (nothing recorded) when the outputs take too many distinct values for cells."""
    n = runs // 2
    rows = draw_rows(mechanism, a, b, n, np.random.SeedSequence(seed), executor)
    if rows is None:
        return False
    x0, x1 = rows
    if cols is not None:                       # the discrete projection of the outputs
        x0, x1 = x0[:, list(cols)], x1[:, list(cols)]
    cells = d.setdefault("_cells", {})
    drawn = count_cells(cells, x0, x1)
    d["_n"] = d.get("_n", 0) + n
    if len(cells) > cell_cap(d["_n"]):
        d.pop("_cells")
        d.pop("_n")
        return False
    if pool is not None:
        keys = (dataset_key(a), dataset_key(b))
        for key, (u, cnt) in zip(keys, drawn, strict=True):
            got = pool.setdefault(key, [{}, 0])
            for row, c in zip(u, cnt, strict=True):
                got[0].setdefault(row.tobytes(), [row, 0])[1] += int(c)
            got[1] += n
        d["_pool"] = keys
    return True


def cell_cap(n: int) -> int:
    """Most distinct outputs the plug-in pilots count as cells after n runs per dataset: at most
    ``PILOT_CELLS``, and on average at least 4 runs per cell."""
    return min(PILOT_CELLS, (2 * n) // 4)


def count_cells(cells: dict, x0: np.ndarray, x1: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """Add the counts of the distinct rows of x0 (under a) and x1 (under b) to ``cells`` (key ->
    [row, count under a, count under b]); returns each side's (distinct rows, counts)."""
    drawn = []
    for j, x in enumerate((x0, x1)):
        u, cnt = unique_rows(x, return_counts=True)
        drawn.append((u, cnt))
        for row, c in zip(u, cnt, strict=True):
            cells.setdefault(row.tobytes(), [row, 0, 0])[1 + j] += int(c)
    return drawn


def block_pilot(mechanism: Any, a: Any, b: Any, runs: int, seed: int, executor: Any,
                 d: dict, blocks: tuple[tuple[int, ...], ...]) -> bool:
    """As ``discrete_pilot``, with counts kept per block of columns (``d["_blocks"]``: one
    ``{"_cells", "_n"}`` per block): each block's codes are a coarsening of the output, so the
    plug-in projection of any one of them is a lower estimate of what the pair leaks, whether
    or not the blocks are independent.  False when a block has too many codes for cells."""
    n = runs // 2
    rows = draw_rows(mechanism, a, b, n, np.random.SeedSequence(seed), executor)
    if rows is None:
        return False
    per = d.setdefault("_blocks", [{} for _ in blocks])
    for bl, got in zip(blocks, per, strict=True):
        cells = got.setdefault("_cells", {})
        count_cells(cells, rows[0][:, list(bl)], rows[1][:, list(bl)])
        got["_n"] = got.get("_n", 0) + n
        if len(cells) > cell_cap(got["_n"]):
            d.pop("_blocks")
            return False
    d["_n"] = d.get("_n", 0) + n
    return True


def plugin_ranked(d: dict, pilot_runs: int, projected: float, event: str) -> dict:
    """``d`` completed as the ranking row of a plug-in pilot (discrete, per-block or binned):
    no event is certified inside such a pilot, so it has no pilot lower bound."""
    d.update({"pilot_runs": pilot_runs, "projected_bound": projected,
              "pilot_lower_bound": -np.inf, "pilot_point_estimate": None, "pilot_event": event})
    return d


def binned_pilot(mechanism: Any, a: Any, b: Any, runs: int, seed: int, executor: Any,
                  d: dict) -> bool:
    """Draw runs // 2 outputs on each of a, b from ``seed`` and add them to the pair's pilot
    samples ``d["_x"]`` (scalar outputs; False when they are not)."""
    rows = draw_rows(mechanism, a, b, runs // 2, np.random.SeedSequence(seed), executor)
    if rows is None or rows[0].shape[1] != 1:
        return False
    old = d.get("_x")
    d["_x"] = tuple(r[:, 0] if old is None else np.concatenate([o, r[:, 0]])
                    for o, r in zip(old or (None, None), rows, strict=True))
    return True


def bin_counts(x: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Counts of the two samples ``x`` in quantile bins of their pooled values (about
    ``PILOT_BIN_RUNS`` pooled runs per bin, between 8 and ``PILOT_CELLS`` bins; the edges are
    the distinct quantiles, so an atom of the output is never split across bins): a (bins × 2)
    count matrix and the two sample sizes."""
    pooled = np.concatenate(x)
    k = int(np.clip(len(pooled) // PILOT_BIN_RUNS, 8, PILOT_CELLS))
    edges = np.unique(np.quantile(pooled, np.linspace(0, 1, k + 1)[1:-1]))
    c = np.stack([np.bincount(np.searchsorted(edges, xi, side="right"),
                              minlength=len(edges) + 1) for xi in x], axis=1).astype(float)
    return c, np.array([len(x[0]), len(x[1])], dtype=float)


def lr_prefix_projection(c: np.ndarray, nn: np.ndarray, n_final: int, alpha: float,
                          test: str, delta: float = 0.0, shrink: float | None = None) -> float:
    """The best bound a likelihood-ratio prefix of the cells with counts ``c`` (cells × 2, out
    of ``nn`` runs) would certify with ``n_final`` runs per dataset: with ``shrink``, each
    prefix at its counts shrunk to Clopper–Pearson bounds at that level
    (``pilot_ranking.shrunk_lr_prefix``, what the search ranks by); with None, at the smoothed
    (add-½) frequencies (``projection.best_lr_prefix`` at level ``alpha``, δ included)."""
    if shrink is not None:
        return shrunk_lr_prefix(c, nn, n_final, alpha, shrink, delta, test)
    p = (c + 0.5) / (nn + 0.5 * len(c))
    return best_lr_prefix(p[:, 0], p[:, 1], n_final, alpha, delta, test).bound


def plugin_projection(d: dict, n_final: int, alpha: float, test: str,
                       pool: dict | None = None, delta: float = 0.0,
                       shrink: float | None = None) -> float:
    """The best bound a likelihood-ratio prefix of output values would certify with ``n_final``
    runs per dataset (``lr_prefix_projection``, shrunk at ``shrink`` or at the smoothed
    frequencies) from the pair's pilot counts: its own pilot runs, or with ``pool`` every
    pilot run of each of its datasets (from any pair)."""
    if pool is not None and "_pool" in d:
        k0, k1 = d["_pool"]
        cells = list(dict.fromkeys([*pool[k0][0], *pool[k1][0]]))
        c = np.array([[pool[k][0].get(x, (None, 0))[1] for k in (k0, k1)] for x in cells],
                     dtype=float)
        nn = np.array([pool[k0][1], pool[k1][1]], dtype=float)
    else:
        c = np.array([[v[1], v[2]] for v in d["_cells"].values()], dtype=float)
        nn = np.array([d["_n"], d["_n"]], dtype=float)
    return lr_prefix_projection(c, nn, n_final, alpha, test, delta, shrink)


def pooled_samples(d: dict, pick_ss: np.random.SeedSequence) -> tuple[np.ndarray, np.ndarray]:
    """The pair's pooled pilot runs as two batches (rows repeated by count, shuffled with a seed
    of the search's own stream, so the events' fit/eval halves are random halves)."""
    rows = np.array([v[0] for v in d["_cells"].values()])
    rng = np.random.default_rng(pick_ss.spawn(1)[0])
    out = []
    for j in (1, 2):
        cnt = np.array([v[j] for v in d["_cells"].values()])
        x = np.repeat(rows, cnt, axis=0)
        x = x[rng.permutation(len(x))]
        out.append(x[:, 0] if x.shape[1] == 1 else x)
    return out[0], out[1]


def topped_up_selection(mechanism: Any, pair: tuple[Any, Any],
                        runs: tuple[np.ndarray, np.ndarray], n_sel: int,
                        ss: np.random.SeedSequence, executor: Any
                        ) -> tuple[tuple[np.ndarray, np.ndarray], int]:
    """A selection split of ``n_sel`` runs per dataset that starts with the pilots' ``runs``
    on each (their first ``n_sel``) and is topped up with fresh runs (a stream of ``ss`` per
    dataset); returns the split and the number of fresh runs drawn.  The pilot runs are
    independent draws on the same datasets, made before and apart from the final audit's
    certification runs, so an event chosen on them is certified on independent data just as
    one chosen on the audit's own selection split is."""
    kept = [np.asarray(x, dtype=float)[:n_sel] for x in runs]
    need = [n_sel - len(x) for x in kept]
    if max(need) <= 0:
        return (kept[0], kept[1]), 0
    ex, owned, _ = resolve_executor(executor, mechanism, sum(need))   # one executor for both
    try:
        for i, (d, s) in enumerate(zip(pair, ss.spawn(2), strict=True)):
            if need[i] > 0:
                top = np.asarray(run_sampling(ex, mechanism, d, s, need[i]), dtype=float)
                kept[i] = np.concatenate([kept[i], top.reshape((need[i], *kept[i].shape[1:]))])
    finally:
        if owned:
            ex.shutdown(wait=True)
    return (kept[0], kept[1]), sum(max(k, 0) for k in need)


def pilot_audit_projection(r: AuditReport, runs: int, alpha: float, delta: float) -> float:
    """The bound the pilot's certified event is projected to reach with the final ``runs``
    (pilot frequencies shrunk to their 98% Clopper–Pearson bounds, as in event selection), with
    the certification test the pilot used; ``-inf`` when the pilot certified no event (its
    time budget ran out first)."""
    c = r.counts["certification"]
    if c is None:
        return -math.inf
    first = r.direction == 0
    ka, kb = (c["d0"], c["d1"]) if first else (c["d1"], c["d0"])
    na, nb = (c.get("n_d0", c["n"]), c.get("n_d1", c["n"]))
    na, nb = (na, nb) if first else (nb, na)
    _, n_final = split_runs(runs, r.selection_runs / r.runs)
    pa, pb = shrunk(ka, kb, max(na, 1), max(nb, 1), SHRINK)
    return float(projected_bound(pa, pb, n_final, alpha, delta, r.certification_test))


# --------------------------------------------------------------------------- the protocol
@dataclass
class PilotContext:
    """What every pilot of one search shares: the target, the claim, how the final audit will
    certify (``n_final`` runs per dataset, ``test``), the pilot audits' config and the pooled
    counts per dataset (``pool``, None when pooling is off)."""

    target: Any
    executor: Any
    claimed_epsilon: float
    delta: float
    alpha: float
    final_runs: int
    n_final: int
    test: str
    exact: bool
    audit_config: Any
    pool: dict | None
    exact_cache: dict = field(default_factory=dict)
    #: the pilots' ``budget.Deadline`` (their share of a search's time budget), or None
    deadline: Any = None
    #: level the plug-in pilots' counts are shrunk to (``pilot_ranking``); None: unshrunk
    shrink: float | None = None

    def exact_epsilon(self, a: Any, b: Any) -> float | None:
        """The pair's exact ε at δ (None where the target has no output distribution)."""
        if not self.exact:
            return None
        key = (dataset_key(a), dataset_key(b))
        if key not in self.exact_cache:
            ex = exact_distributions(self.target, a, b)
            self.exact_cache[key] = None if ex is None else exact_epsilon(*ex, self.delta)
        return self.exact_cache[key]


class Pilot(Protocol):
    """One pilot kind: ``run`` draws ``runs`` runs on the pair (seed ``seed``) and returns its
    ranking row (``projected_bound``, ``pilot_lower_bound``, ...) or None when this kind cannot
    rank the pair (the search then pilots it with an `AuditPilot`); ``rescore``
    re-ranks a pair at the end of a rung (pooled counts)."""

    note: str | None
    fallback_note: str | None

    def run(self, d: dict, runs: int, seed: int, ctx: PilotContext) -> dict | None: ...

    def rescore(self, d: dict, ctx: PilotContext) -> None: ...


class AuditPilot:
    """A pilot audit (selection and certification inside the pilot, ``ctx.audit_config``);
    the pair is ranked by the projection of its certified event to the final runs."""

    note = None
    fallback_note = None

    def run(self, d: dict, runs: int, seed: int, ctx: PilotContext) -> dict | None:
        a, b = d["_pair"]
        r = run_audit(ctx.target, a, b, ctx.claimed_epsilon, ctx.delta, ctx.alpha, runs, seed,
                      ctx.audit_config, deadline=ctx.deadline)
        d.update({"pilot_runs": r.runs, "pilot_lower_bound": r.epsilon_lower_bound,
                  "projected_bound": pilot_audit_projection(r, ctx.final_runs, ctx.alpha,
                                                            ctx.delta),
                  "pilot_point_estimate": r.epsilon_point_estimate,
                  "exact_epsilon": r.exact_epsilon, "pilot_event": r.event[:80]})
        d["_spent"] = r.runs
        return d

    def rescore(self, d: dict, ctx: PilotContext) -> None:
        return None


class CellPilot:
    """Plug-in pilot on the exact output cells (``cols=None``) or on the discrete coordinates
    ``cols`` (pattern pilots); with ``ctx.pool`` the counts of each dataset are pooled over
    every pair that shares it."""

    fallback_note = "too many distinct outputs"

    def __init__(self, cols: tuple[int, ...] | None = None) -> None:
        self.cols = cols
        self.note = None if cols is None else (
            f"pattern pilots: pairs ranked by the plug-in projection of the discrete "
            f"coordinates {list(cols)} of the outputs")

    def run(self, d: dict, runs: int, seed: int, ctx: PilotContext) -> dict | None:
        a, b = d["_pair"]
        if not discrete_pilot(ctx.target, a, b, runs, seed, ctx.executor, d, self.cols,
                              ctx.pool):
            return None
        if "exact_epsilon" not in d:
            d["exact_epsilon"] = ctx.exact_epsilon(a, b)
        projected = plugin_projection(d, ctx.n_final, ctx.alpha, ctx.test, ctx.pool, ctx.delta,
                                      ctx.shrink)
        return plugin_ranked(d, d["_n"] * 2, projected,
                             "plug-in (likelihood-ratio prefixes of outputs)")

    def rescore(self, d: dict, ctx: PilotContext) -> None:
        if ctx.pool is not None and "_pool" in d:
            d["projected_bound"] = plugin_projection(d, ctx.n_final, ctx.alpha, ctx.test,
                                                     ctx.pool, ctx.delta, ctx.shrink)
            d["pooled_runs"] = [ctx.pool[k][1] for k in d["_pool"]]   # per dataset


class BlockPilot:
    """Plug-in pilot per block of discrete coordinates: the pair is ranked by its best
    block's projection (each block is a coarsening of the output)."""

    fallback_note = "too many distinct block codes"

    def __init__(self, blocks: tuple[tuple[int, ...], ...]) -> None:
        self.blocks = blocks
        self.note = ("pattern pilots per block: pairs ranked by the best plug-in projection of "
                     "one block of discrete coordinates "
                     f"{[f'{bl[0]}..{bl[-1]}' for bl in blocks]} of the outputs")

    def run(self, d: dict, runs: int, seed: int, ctx: PilotContext) -> dict | None:
        a, b = d["_pair"]
        if not block_pilot(ctx.target, a, b, runs, seed, ctx.executor, d, self.blocks):
            return None
        projected = max(plugin_projection(c, ctx.n_final, ctx.alpha, ctx.test,
                                          delta=ctx.delta, shrink=ctx.shrink)
                        for c in d["_blocks"])
        return plugin_ranked(d, d["_n"] * 2, projected, "plug-in per block (likelihood-ratio "
                             "prefixes of each block's codes; the best block)")

    def rescore(self, d: dict, ctx: PilotContext) -> None:
        return None


class BinnedPilot:
    """Plug-in pilot on quantile bins of scalar outputs; with ``ctx.pool`` the runs of each
    dataset are pooled over every pair that shares it (a search's pairs all share the dataset
    it was given, so each pair is ranked on all the pilot runs of that side: ReportNoisyMax3
    at 2·10^6 runs, 8 pairs of 15,000 runs per dataset, 201 seeds: the pair of the largest
    ceiling chosen on 191 instead of 179, ReportNoisyMax4 on 194 instead of 180)."""

    note = ("binned pilots: pairs ranked by the plug-in projection of quantile bins of the "
            "(scalar) outputs")
    fallback_note = None

    def run(self, d: dict, runs: int, seed: int, ctx: PilotContext) -> dict | None:
        a, b = d["_pair"]
        if not binned_pilot(ctx.target, a, b, runs, seed, ctx.executor, d):
            return None
        if "exact_epsilon" not in d:
            d["exact_epsilon"] = ctx.exact_epsilon(a, b)
        if ctx.pool is not None:
            n = runs // 2                    # this pilot's own runs: the last n of each side
            keys = (dataset_key(a), dataset_key(b))
            for key, x in zip(keys, d["_x"], strict=True):
                ctx.pool.setdefault(("bins", key), []).append(x[len(x) - n:])
            d["_bin_pool"] = keys
        projected, bins = self._projection(d, ctx)
        return plugin_ranked(d, 2 * len(d["_x"][0]), projected, self._event(bins))

    @staticmethod
    def _event(bins: int) -> str:
        return f"plug-in ({bins} quantile bins of the output)"

    def rescore(self, d: dict, ctx: PilotContext) -> None:
        if ctx.pool is not None and "_bin_pool" in d:
            d["projected_bound"], bins = self._projection(d, ctx)
            d["pilot_event"] = self._event(bins)
            d["pooled_runs"] = [sum(len(x) for x in ctx.pool[("bins", k)])
                                for k in d["_bin_pool"]]          # per dataset

    @staticmethod
    def _projection(d: dict, ctx: PilotContext) -> tuple[float, int]:
        """The pair's projection from its own runs or, with the pool, every pilot run of each
        of its datasets; and the number of bins."""
        x = d["_x"]
        if ctx.pool is not None and "_bin_pool" in d:
            x = tuple(np.concatenate(ctx.pool[("bins", k)]) for k in d["_bin_pool"])
        c, nn = bin_counts(x)
        shrink = None if ctx.shrink is None else min(ctx.shrink, BIN_PILOT_SHRINK)
        return lr_prefix_projection(c, nn, ctx.n_final, ctx.alpha, ctx.test, ctx.delta,
                                    shrink), len(c)


#: The pilot kinds ``audit_search(pilots=...)`` accepts: "auto" (the probe picks among all),
#: "cells" (plug-in pilots only for few-valued outputs; pilot audits otherwise), "audit".
PILOT_KINDS = ("auto", "cells", "audit")


def choose_pilot(probe: Probe | None, kinds: str) -> Pilot:
    """The pilot kind for a search from its probe (see
    [`ltheory.privacy.auditing.pilots`][ltheory.privacy.auditing.pilots]): cells for few-valued
    outputs, the discrete projection or its blocks for mixed outputs, a fitted per-coordinate
    score for vectors of few-valued coordinates, quantile bins for other scalar outputs, else
    pilot audits."""
    if probe is None or kinds == "audit":
        return AuditPilot()
    if probe.kind == "cells":
        return CellPilot()
    if kinds == "cells":
        return AuditPilot()
    if probe.kind == "pattern":
        return CellPilot(probe.cols)
    if probe.kind == "blocks":
        return BlockPilot(probe.blocks)
    if probe.kind == "coordinates":
        from ltheory.privacy.auditing.score_pilot import ScorePilot  # it imports this module
        return ScorePilot()
    if probe.kind == "numeric" and probe.columns == 1:
        return BinnedPilot()
    return AuditPilot()


def reusable_runs(d: dict, pilot: Any, pool: dict | None, ss: np.random.SeedSequence
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    """The pilot runs on each dataset of the chosen pair ``d`` that its final audit may select
    on (``SearchConfig.reuse_pilots``), or None: a binned pilot's runs (every pilot run of the
    dataset when the search pools them), a whole-output cell pilot's pooled runs
    (`pooled_samples`, shuffled from ``ss``)."""
    if isinstance(pilot, BinnedPilot) and "_x" in d:
        if pool is not None and "_bin_pool" in d:
            return tuple(np.concatenate(pool[("bins", k)]) for k in d["_bin_pool"])
        return d["_x"]
    if isinstance(pilot, CellPilot) and pilot.cols is None and "_cells" in d:
        return pooled_samples(d, ss)
    return None
