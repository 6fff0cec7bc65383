"""Reports of theorem checks: Markdown (one table per paper, linking the PNG plots), JSON, and
PNG plots."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ltheory.plotting import new_figure
from proofs_check.base import CheckResult
from proofs_check.coverage import PAPERS, STATUSES, counts


def _verdict(h: bool | None, kind: str = "measured") -> str:
    if h is None and kind == "not_evaluable":
        return "not evaluable"
    if h is None and kind != "measured":
        return "no verdict"
    return {True: "holds", False: "**FAILS**", None: "measured"}[h]


def paper_counts(rs: list[CheckResult]) -> dict[str, int]:
    """Statements of one paper: checked (all but the not-evaluable ones), failed (findings),
    measured-only, not evaluable, holding, undecided."""
    st = [r.status for r in rs]
    return {"statements": len(rs), "checked": len(rs) - st.count("not evaluable"),
            "failed": st.count("fails"), "measured": st.count("measured"),
            "not_evaluable": st.count("not evaluable"), "holds": st.count("holds"),
            "undecided": st.count("undecided")}


def summary_line(source: str, rs: list[CheckResult]) -> str:
    """One line per paper: statements checked, failed (findings), measured-only, not
    evaluable."""
    c = paper_counts(rs)
    return (f"- **{PAPERS.get(source, source)}** (`{source}`): {c['checked']} statements "
            f"checked, {c['failed']} failed (findings), {c['measured']} measured-only, "
            f"{c['not_evaluable']} not evaluable")


def coverage_lines(groups: Mapping[str, list[CheckResult]]) -> list[str]:
    """Per seed of the report, its numbered statements by status (``ltheory check --list``)."""
    c = counts()
    out = [f"- numbered statements of `{src}`: " + ", ".join(
        f"{c[src][st]} {st}" for st in STATUSES) for src in groups if src in c]
    return ["", *out, "  (every one listed with its checks or reason by `ltheory check --list`)"] \
        if out else []


def _finding(r: CheckResult) -> list[str]:
    """A failing statement: its first failing row's witness and explanation."""
    bad = [row for row in r.rows if row.holds is False]
    row = next((x for x in bad if x.note), bad[0])
    wit = json.dumps(row.witness, ensure_ascii=False, default=str)
    if len(wit) > 700:
        wit = wit[:699] + "…"
    expl = row.note or f"{len(bad)} of {len(r.rows)} rows disagree with the statement."
    return [f"- **`{r.check.id}`** ({r.check.statement}): {expl} "
            f"({len(bad)} of {len(r.rows)} rows fail; first at {_short(row.params, 200)}.) "
            f"Witness: `{wit.replace('`', chr(39))}`"]


def _short(x: Any, width: int = 70) -> str:
    s = json.dumps(x, ensure_ascii=False, default=str) if not isinstance(x, str) else x
    s = s.replace("|", "\\|").replace("\n", " ")
    return s if len(s) <= width else s[: width - 1] + "…"


def _link(path: Path, base: Path) -> str:
    """A relative Markdown link target (POSIX separators, percent-encoded)."""
    rel = os.path.relpath(Path(path).resolve(), Path(base).resolve())
    return quote(Path(rel).as_posix())


def by_paper(results: list[CheckResult]) -> dict[str, list[CheckResult]]:
    """The results grouped by their ``source`` seed file, in first-seen order."""
    groups: dict[str, list[CheckResult]] = defaultdict(list)
    for r in results:
        groups[r.check.source].append(r)
    return dict(groups)


def markdown(results: list[CheckResult], plots: Mapping[str, list[Path]] | None = None,
             base: str | Path | None = None) -> str:
    """The report: a summary of the papers (time per paper), then per paper one table of its
    statements (bound, verdict, rows, seconds, plots) followed by each statement's evidence.

    ``plots`` maps check ids to the PNG files written for them (`plot_files`); they are
    linked and shown relative to ``base``, the folder the report is read from (default: the
    current directory).
    """
    plots = plots or {}
    base = Path.cwd() if base is None else Path(base)
    groups = by_paper(results)
    lines = ["# ltheory check", ""]
    lines += [summary_line(source, rs) for source, rs in groups.items()]
    lines += coverage_lines(groups)
    lines += ["", "| paper | seed file | statements | hold | fail | measured | not evaluable | "
              "seconds |", "|---|---|---|---|---|---|---|---|"]
    for source, rs in groups.items():
        c = paper_counts(rs)
        lines.append(f"| {PAPERS.get(source, source)} | `{source}` | {len(rs)} | "
                     f"{c['holds']} | {c['failed']} | {c['measured'] + c['undecided']} | "
                     f"{c['not_evaluable']} | {sum(r.seconds for r in rs):.2f} |")
    findings = [r for r in results if r.holds is False]
    if findings:
        lines += ["", "## Findings", ""]
        for r in findings:
            lines += _finding(r)
    for source, rs in groups.items():
        total = sum(r.seconds for r in rs)
        lines += ["", f"## {PAPERS.get(source, source)} (`{source}`, {total:.2f} s)", "",
                  summary_line(source, rs), "",
                  "| id | statement | kind | bound | verdict | rows | failing | seconds | plots |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rs:
            c = r.check
            failing = sum(row.holds is False for row in r.rows)
            links = ", ".join(f"[{p.name}]({_link(p, base)})" for p in plots.get(c.id, []))
            bound = f"`{_short(str(c.bound), 60)}`" if c.bound is not None else "—"
            lines.append(f"| `{c.id}` | {c.statement} | {c.kind} | {bound} | "
                         f"{_verdict(r.holds, c.kind)} | {len(r.rows)} | {failing} | "
                         f"{r.seconds:.2f} | {links or '—'} |")
        for r in rs:
            c = r.check
            lines += ["", f"### {c.statement} — `{c.id}`: {_verdict(r.holds, c.kind)}", "",
                      f"> {c.text}", ""]
            if c.bound is not None:
                lines += [f"Bound: `{c.bound}`", ""]
            if c.falsifiable:
                lines += [f"How it could fail: {c.falsifiable}", ""]
            failing_rows = [row for row in r.rows if row.holds is False]
            if failing_rows:
                lines.append(f"**{len(failing_rows)} of {len(r.rows)} rows disagree with the "
                             "statement.** " + (failing_rows[0].note or ""))
                lines.append("")
            open_rows = [row for row in r.rows if row.holds is None]
            if open_rows and c.kind != "measured":
                lines.append(f"**{len(open_rows)} of {len(r.rows)} rows have no verdict** "
                             "(see their notes).")
                lines.append("")
            for p in plots.get(c.id, []):
                lines += [f"![{c.id}: {p.name}]({_link(p, base)})", ""]
            lines += ["| class | params | values | bound | holds | slack | note |",
                      "|---|---|---|---|---|---|---|"]
            for row in r.rows:
                lines.append(f"| {_short(row.subject, 60)} | {_short(row.params, 40)} | "
                             f"{_short(row.values)} | {_short(row.bound, 40)} | "
                             f"{_verdict(row.holds, c.kind)} | {_short(row.slack, 30)} | "
                             f"{_short(row.note, 60) if row.note else ''} |")
    return "\n".join(lines) + "\n"


def write_outputs(results: list[CheckResult], plot_dir: str | Path | None,
                  markdown_file: str | Path | None) -> dict[str, list[Path]]:
    """Write the PNG plots into ``plot_dir`` and the Markdown report (plot links relative to its
    folder) to ``markdown_file``, each when given; return the plots by check id (for the report
    printed from the current directory).  Shared by ``ltheory check`` and
    ``python -m proofs_check``."""
    figures = plot_files(results, plot_dir) if plot_dir else {}
    if markdown_file:
        Path(markdown_file).write_text(
            markdown(results, figures, base=Path(markdown_file).resolve().parent),
            encoding="utf-8")
    return figures


def to_json(results: list[CheckResult]) -> list[dict[str, Any]]:
    return [r.to_json() for r in results]


def plots(results: list[CheckResult], directory: str | Path) -> list[Path]:
    """Write the PNG plots (see `plot_files`) and return their paths."""
    return [p for ps in plot_files(results, directory).values() for p in ps]


def plot_files(results: list[CheckResult], directory: str | Path) -> dict[str, list[Path]]:
    """Write one PNG per check with numeric bounds (measured value against the bound, y = x
    line), and the measured-Ldim plots of the composition checks; return them by check id."""

    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[Path]] = defaultdict(list)
    for r in results:
        pts = [(float(row.bound), float(row.bound - row.slack), row.holds)
               for row in r.rows
               if isinstance(row.bound, (int, float)) and isinstance(row.slack, (int, float))
               and not isinstance(row.bound, bool)]
        if not pts:
            continue
        fig, ax = new_figure((5, 4))
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
        written[r.check.id].append(path)
    for cid, path in _composition_plots(results, out_dir):
        written[cid].append(path)
    return dict(written)


def _composition_plots(results: list[CheckResult], out_dir: Path) -> list[tuple[str, Path]]:
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
        fig, ax = new_figure((5, 4))
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
        written.append((r.check.id, path))
    return written
