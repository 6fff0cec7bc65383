"""A PNG of the two output distributions with the audited event marked (matplotlib)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ltheory.plotting import new_figure
from ltheory.privacy.auditing.core import AuditReport
from ltheory.privacy.auditing.events import CellEvent, ThresholdEvent
from ltheory.privacy.auditing.target import as_target


def plot_audit(mechanism: Any, d0: Any, d1: Any, report: AuditReport, path: str | Path,
               runs: int = 20_000, seed: int = 0) -> Path:
    """Draw ``runs`` fresh outputs per dataset and save the figure to ``path``."""

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
        ax.set_ylabel("frequency")
    ax.set_title(f"{report.mechanism}: event (shaded) {report.event[:60]}\n"
                 f"ε ≥ {report.epsilon_lower_bound:.4g} (α = {report.alpha:g}), claimed "
                 f"{report.claimed_epsilon:g}: {report.verdict}", fontsize=9)
    ax.legend()
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    return out
