"""Reports of theorem checks: Markdown (one table per paper), JSON, and PNG plots."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from proofs_check.base import CheckResult

PAPERS = {
    "000_999a11082cbb8294.txt": "Bun & Fang, Privately Learning Decision Lists and a DP Winnow",
    "001_ed369e7bc84e5ca0.txt": "Alon, Beimel, Moran & Stemmer 2020, Closure Properties for "
                                "Private Classification and Online Prediction",
    "002_4e9b9d6d42ab751c.txt": "Lecture notes: Online Learning Implies Private PAC Learning "
                                "(Bun, Livni & Moran; Alon, Moran, Schefler & Yehudayoff 2024)",
    "004_5635bafb29a98a47.txt": "Lecture notes: private PAC learning and multiplicative weights",
}


def _verdict(h: bool | None) -> str:
    return {True: "holds", False: "**FAILS**", None: "measured"}[h]


def _short(x: Any, width: int = 70) -> str:
    s = json.dumps(x, ensure_ascii=False, default=str) if not isinstance(x, str) else x
    return s if len(s) <= width else s[: width - 1] + "…"


def markdown(results: list[CheckResult]) -> str:
    """The report: a summary table, then one section per paper with one table per statement."""
    lines = ["# ltheory check", "", "| id | statement | verdict | rows | seconds |",
             "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r.check.id} | {r.check.statement} | {_verdict(r.holds)} | "
                     f"{len(r.rows)} | {r.seconds:.2f} |")
    by_paper: dict[str, list[CheckResult]] = defaultdict(list)
    for r in results:
        by_paper[r.check.source].append(r)
    for source, rs in by_paper.items():
        total = sum(r.seconds for r in rs)
        lines += ["", f"## {PAPERS.get(source, source)} (`{source}`, {total:.2f} s)"]
        for r in rs:
            c = r.check
            lines += ["", f"### {c.statement} — `{c.id}`: {_verdict(r.holds)}", "",
                      f"> {c.text}", ""]
            if c.bound is not None:
                lines += [f"Bound: `{c.bound}`", ""]
            failing = [row for row in r.rows if row.holds is False]
            if failing:
                lines.append(f"**{len(failing)} of {len(r.rows)} rows disagree with the "
                             "statement.** " + (failing[0].note or ""))
                lines.append("")
            lines += ["| class | params | values | bound | holds | slack |",
                      "|---|---|---|---|---|---|"]
            for row in r.rows:
                lines.append(f"| {row.subject} | {_short(row.params, 40)} | "
                             f"{_short(row.values)} | {_short(row.bound, 40)} | "
                             f"{_verdict(row.holds)} | {_short(row.slack, 30)} |")
    return "\n".join(lines) + "\n"


def to_json(results: list[CheckResult]) -> list[dict[str, Any]]:
    return [r.to_json() for r in results]


def plots(results: list[CheckResult], directory: str | Path) -> list[Path]:
    """One PNG per check with numeric bounds: measured value against the bound (y = x line)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for r in results:
        pts = [(float(row.bound), float(row.bound - row.slack), row.holds)
               for row in r.rows
               if isinstance(row.bound, (int, float)) and isinstance(row.slack, (int, float))
               and not isinstance(row.bound, bool)]
        if not pts:
            continue
        fig, ax = plt.subplots(figsize=(5, 4))
        xs = [p[0] for p in pts]
        ax.scatter(xs, [p[1] for p in pts],
                   c=["tab:red" if p[2] is False else "tab:blue" for p in pts], s=18)
        hi = max(xs + [p[1] for p in pts]) + 1
        ax.plot([0, hi], [0, hi], "k--", lw=0.8, label="measured = bound")
        ax.set_xlabel("bound")
        ax.set_ylabel("exact value")
        ax.set_title(f"{r.check.id}: {r.check.statement}", fontsize=9)
        ax.legend(fontsize=8)
        path = out_dir / f"{r.check.id.replace('/', '_')}.png"
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    written += _composition_plots(results, out_dir, plt)
    return written


def _composition_plots(results: list[CheckResult], out_dir: Path, plt: Any) -> list[Path]:
    """Measured Ldim of composed classes against k²d (§4.2.2) and 2^{2k}k²d (Theorem 2.1)."""
    written = []
    refs = {"abms20.sec4.2.2.maj": ("Ldim(MAJ_k)", "k²d"),
            "abms20.thm2.1": ("Ldim(G(H…H))", "2^{2k}k²d")}
    for r in results:
        if r.check.id not in refs:
            continue
        key, ref = refs[r.check.id]
        pts = [(row.values[ref], row.values[key]) for row in r.rows
               if isinstance(row.values, dict) and key in row.values and ref in row.values]
        if not pts:
            continue
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=18, label="measured")
        hi = max(max(p[0] for p in pts), max(p[1] for p in pts)) + 1
        ax.plot([1, hi], [1, hi], "k--", lw=0.8, label=f"Ldim = {ref}")
        ax.set_xscale("log")
        ax.set_xlabel(ref)
        ax.set_ylabel(f"exact {key}")
        ax.set_title(f"{r.check.id}: measured Ldim against {ref}", fontsize=9)
        ax.legend(fontsize=8)
        path = out_dir / f"{r.check.id}.ldim_vs_reference.png"
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written
