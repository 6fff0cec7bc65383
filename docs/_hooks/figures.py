"""The documentation's figures, drawn when the site is built (an MkDocs hook), never pasted.

Each figure is drawn by the same public call a tutorial shows: ``plot_table`` for the table
tutorial (theory/tables.md), ``ltheory audit ... --plot`` for the audit tutorial
(privacy/audit.md).  ``mkdocs build`` calls :func:`on_pre_build`, which draws the missing ones
into ``docs/figures/`` (ignored by git); ``tests/test_docs.py`` draws them all into a temporary
folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def table_interval_unions(path: Path) -> None:
    from ltheory import dimension_table
    from ltheory.tables import plot_table

    plot_table(dimension_table("interval_unions", {"n": "2..8", "k": 2}), path)


def audit_geometric(path: Path) -> None:
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "ltheory.cli", "audit", "geometric",
                           "-p", "epsilon=1", "--claimed-epsilon", "0.5", "--runs", "200000",
                           "--seed", "0", "--plot", str(path)], capture_output=True, text=True,
                          env=env)
    if proc.returncode not in (0, 1) or not path.exists():    # 1: the audit found a violation
        raise RuntimeError(f"ltheory audit --plot failed ({proc.returncode}): {proc.stderr}")


#: file name -> drawing function
FIGURES: dict[str, Callable[[Path], None]] = {
    "table_interval_unions.png": table_interval_unions,
    "audit_geometric.png": audit_geometric,
}


def draw(folder: Path, missing_only: bool = False) -> list[Path]:
    """Draw every figure into ``folder``; with ``missing_only``, only those not there yet."""
    import matplotlib

    matplotlib.use("Agg")
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, fn in FIGURES.items():
        path = folder / name
        if not (missing_only and path.exists()):
            fn(path)
        out.append(path)
    return out


def on_pre_build(config: dict, **_: object) -> None:
    """MkDocs hook: draw the figures the pages link to (``docs/figures/``)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    draw(Path(config["docs_dir"]) / "figures", missing_only=True)
