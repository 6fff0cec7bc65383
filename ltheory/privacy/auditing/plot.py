"""PNGs (matplotlib, Agg): the two output distributions with the audited event marked
(`plot_audit`), and a curve audit's certified, claimed and exact curves
(`plot_curve`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ltheory.plotting import new_figure, new_figure_row
from ltheory.privacy.auditing.core import AuditReport
from ltheory.privacy.auditing.curve import CurveReport
from ltheory.privacy.auditing.events import CellEvent, ThresholdEvent
from ltheory.privacy.auditing.target import as_target


def plot_audit(mechanism: Any, d0: Any, d1: Any, report: AuditReport, path: str | Path,
               runs: int = 20_000, seed: int = 0) -> Path:
    """Draw ``runs`` fresh outputs per dataset and save the figure (`audit_figure`) to
    ``path``."""
    out = Path(path)
    audit_figure(mechanism, d0, d1, report, runs=runs, seed=seed).savefig(out, dpi=110)
    return out


def audit_figure(mechanism: Any, d0: Any, d1: Any, report: AuditReport, runs: int = 20_000,
                 seed: int = 0) -> Any:
    """The audit's `matplotlib.figure.Figure`: ``runs`` fresh outputs per dataset, as
    densities (a score's histogram) or frequencies (output cells), the event shaded."""

    ss0, ss1 = np.random.SeedSequence([seed, 7]).spawn(2)
    t = as_target(mechanism)
    b0 = t.draw(d0, runs, np.random.default_rng(ss0))
    b1 = t.draw(d1, runs, np.random.default_rng(ss1))
    ev = report.chosen_event
    fig, ax = new_figure((8, 4.5))
    if isinstance(ev, ThresholdEvent):
        s0, s1 = ev.score(b0), ev.score(b1)
        lo, hi = np.quantile(np.r_[s0, s1], [0.001, 0.999])
        bins = np.linspace(lo, hi, 80) if hi > lo else 20
        ax.hist(s0, bins=bins, alpha=0.5, density=True, label="M(d0)")
        ax.hist(s1, bins=bins, alpha=0.5, density=True, label="M(d1)")
        ax.axvline(ev.t, color="k", lw=1.5)
        ax.axvspan(ev.t, hi, color="grey", alpha=0.15) if ev.geq else \
            ax.axvspan(lo, ev.t, color="grey", alpha=0.15)
        ax.set_xlabel(ev.score.describe())
        ax.set_ylabel("density (fraction of outputs per unit of the score)")
    elif isinstance(ev, CellEvent):
        e0, e1 = ev.encoder.encode(b0), ev.encoder.encode(b1)
        cells = np.unique(np.r_[e0, e1])
        cells = cells[cells >= 0]
        f0 = np.array([np.mean(e0 == c) for c in cells])
        f1 = np.array([np.mean(e1 == c) for c in cells])
        order = np.argsort(-(f0 + f1))[:40]
        cells, f0, f1 = cells[order], f0[order], f1[order]
        x = np.arange(len(cells))
        inside = np.isin(cells, ev.cells)
        ax.bar(x - 0.2, f0, 0.4, label="M(d0)")
        ax.bar(x + 0.2, f1, 0.4, label="M(d1)")
        for i in np.nonzero(inside)[0]:
            ax.axvspan(i - 0.5, i + 0.5, color="grey", alpha=0.2)
        ax.set_xticks(x, [ev.encoder.describe(int(c))[:18] for c in cells], rotation=60,
                      fontsize=7, ha="right")
        ax.set_ylabel("frequency (fraction of outputs)")
    ax.set_title(f"{report.mechanism}: event (shaded) {report.event[:60]}\n"
                 f"ε ≥ {report.epsilon_lower_bound:.4g} (α = {report.alpha:g}), claimed "
                 f"{report.claimed_epsilon:g}: {report.verdict}", fontsize=9)
    ax.legend()
    fig.tight_layout()
    return fig


def plot_curve(report: CurveReport, path: str | Path) -> Path:
    """Save a curve audit's figure to ``path``: left, the privacy profile — the claimed
    δ(ε), the certified lower bound δ_lb(ε) (each event's line, and their maximum, all at
    confidence 1 − α together) and the exact δ(ε) where known; right, the trade-off plane —
    the certified (α, β) points, their envelope (the true trade-off curve lies below it) and
    the claimed trade-off at the envelope's vertices."""
    fig, (ax, bx) = new_figure_row(2, (11, 4.5))
    e = np.asarray(report.epsilons, dtype=float)
    fine = np.linspace(0.0, float(e.max()) if e.size else 1.0, 400)
    floor = 1e-8
    ax.plot(e, np.maximum(report.delta_claimed, floor), "k-", lw=2,
            label=f"claimed: {report.claim_text}")
    if report.delta_exact is not None:
        ax.plot(e, np.maximum(report.delta_exact, floor), "g--", lw=1.5, label="exact")
    for p in report.pieces:
        line = p["p_lower"] - np.exp(fine) * p["p_upper"]
        ok = line > floor
        if ok.any():
            ax.plot(fine[ok], line[ok], color="tab:blue", lw=0.6, alpha=0.4)
    lb = report.delta_lower_bound_at(fine)
    ok = lb > floor
    conf = f"certified, {100 * (1 - report.alpha):g}% simultaneous"
    ax.plot(fine[ok], lb[ok], color="tab:blue", lw=2, label=conf)
    if report.gap_epsilon is not None and report.verdict == "violation":
        y = float(report.delta_lower_bound_at(report.gap_epsilon))
        ax.plot([report.gap_epsilon], [max(y, floor)], "rv", ms=9,
                label=f"largest gap {report.gap:.3g} at ε = {report.gap_epsilon:.3g}")
    ax.set_yscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel("δ(ε)")
    ax.legend(fontsize=8)
    pts = np.array(report.tradeoff_points, dtype=float).reshape(-1, 2)
    hull = np.array(report.tradeoff_envelope, dtype=float).reshape(-1, 2)
    grid = np.linspace(0, 1, 101)
    bx.plot(grid, 1 - grid, color="grey", lw=0.8, ls=":", label="perfect privacy")
    bx.plot(hull[:, 0], hull[:, 1], color="tab:blue", lw=2, label="certified envelope")
    bx.plot(pts[:, 0], pts[:, 1], "o", color="tab:blue", ms=4, label=conf + " points")
    inner = hull[(hull[:, 0] > 0) & (hull[:, 0] < 1)]
    if len(inner) == len(report.tradeoff_claimed) and len(inner):
        bx.plot(inner[:, 0], report.tradeoff_claimed, "ks", ms=5,
                label=f"claimed f ({report.tradeoff_source.split(' ')[0]})")
    bx.set_xlabel("type I error α")
    bx.set_ylabel("type II error β")
    bx.set_xlim(0, 1)
    bx.set_ylim(0, 1)
    bx.legend(fontsize=8)
    fig.suptitle(f"{report.mechanism}: curve audit against {report.claim_text} — "
                 f"{report.verdict}", fontsize=10)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    return out
