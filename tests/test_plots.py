"""Figures inspected as matplotlib objects (labels, colours, layers), not pixels (issue 43)."""

from __future__ import annotations

from pathlib import Path

from ltheory.privacy import audit
from ltheory.privacy.auditing.events import CellEvent, ThresholdEvent
from ltheory.privacy.auditing.plot import audit_figure, plot_audit
from ltheory.privacy.mechanisms import LaplaceMechanism


def test_audit_figure_labels_both_axes_for_a_threshold_event(tmp_path: Path) -> None:
    laplace = LaplaceMechanism(epsilon=1.0)
    report = audit(laplace, 0, 1, claimed_epsilon=0.5, runs=20_000, seed=0, arithmetic="real")
    assert isinstance(report.chosen_event, ThresholdEvent)
    (ax,) = audit_figure(laplace, 0, 1, report, runs=2_000).axes
    assert ax.get_xlabel() and ax.get_ylabel().startswith("density")
    assert plot_audit(laplace, 0, 1, report, tmp_path / "a.png", runs=2_000).stat().st_size > 1000


def _words(count: int, rng) -> str:
    """A categorical output (no order): randomized response on a count, as a word."""
    return ("yes", "no")[int((rng.random() < 0.73) != bool(count))]


def test_audit_figure_labels_both_axes_for_a_cell_event() -> None:
    report = audit(_words, 0, 1, claimed_epsilon=0.5, runs=20_000, seed=0)
    assert isinstance(report.chosen_event, CellEvent)
    (ax,) = audit_figure(_words, 0, 1, report, runs=2_000).axes
    assert ax.get_ylabel().startswith("frequency")
