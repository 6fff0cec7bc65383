"""``ltheory audit-scores IN [OUT] --delta D [--alpha A] [--setting many-run|one-run]
[--mask MASK] [--inclusion-seed S] [--seed S] [--analysis fdp|steinke] [--events K]
[--claimed-epsilon E] [--json]``

Audit a file of canary scores ([`ltheory.audit_scores`][ltheory.audit_scores]).  Files are
``.npy``
arrays (or text, one score per line; 2-D: one row of features per run or canary).
many-run (default): IN holds the scores of the runs with the canary, OUT of the runs
without.  one-run: IN holds the scores of all m canaries of the one run and ``--mask`` a
``.npy`` boolean (or 0/1) array of their inclusion, or ``--inclusion-seed`` the seed it was
drawn from (``ltheory.privacy.inclusion_mask``); OUT is not given.  ``--json`` prints the
report as one strict JSON document.  Exit codes: 0 done (or the bound is within
``--claimed-epsilon``), 1 the bound exceeds ``--claimed-epsilon``, 2 bad input (one line on
stderr naming the file or array at fault).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from ltheory.cli.common import fail
from ltheory.errors import LtheoryError

NAME = "audit-scores"


def command(
    in_scores: Annotated[str, typer.Argument(
        metavar="IN", help="scores of the runs with the canary (.npy or text); one-run: the "
                           "scores of all canaries of the run")],
    out_scores: Annotated[str | None, typer.Argument(
        metavar="OUT", help="scores of the runs without the canary (many-run only)")] = None,
    delta: Annotated[float, typer.Option("--delta", metavar="D",
                                         help="the δ of the ε lower bound")
                     ] = 1e-5,
    alpha: Annotated[float, typer.Option("--alpha", help="probability that the bound is "
                                         "wrong")] = 0.05,
    setting: Annotated[str, typer.Option("--setting", metavar="many-run|one-run",
                                         help="many-run or one-run")
                       ] = "many-run",
    mask: Annotated[str | None, typer.Option("--mask", metavar="MASK.npy",
                                             help="one-run: .npy boolean array, "
                                             "True where the canary was included")] = None,
    inclusion_seed: Annotated[int | None, typer.Option(
        "--inclusion-seed", help="one-run: the seed the inclusion was drawn from "
                                 "(ltheory.privacy.inclusion_mask)")] = None,
    seed: Annotated[int, typer.Option("--seed", help="seed of the selection split")] = 0,
    analysis: Annotated[str, typer.Option(
        "--analysis", metavar="fdp|steinke|gdp",
        help="one-run: fdp, steinke, or gdp (the refuted GDP claim's ε)")
                        ] = "fdp",
    events: Annotated[int, typer.Option("--events", help="many-run: events certified "
                                        "(more: a fuller certified curve)")] = 1,
    claimed_epsilon: Annotated[float | None, typer.Option(
        "--claimed-epsilon", help="exit 1 when the bound exceeds this ε")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """A sound ε lower bound from the canary scores of DP training runs.

    Many-run: one score per training run, with or without the canary (IN and OUT); one-run:
    the scores of many canaries of one run, included at random (IN with --mask or
    --inclusion-seed)."""
    from ltheory.privacy.auditing.scores import audit_scores, load_scores

    try:
        x_in = load_scores(in_scores, "IN")
        x_out = None if out_scores is None else load_scores(out_scores, "OUT")
        m = None
        if mask is not None:
            m = load_scores(mask, "--mask")
        if setting == "one-run" and x_out is not None:
            raise fail("a one-run audit takes one file (the scores of all canaries of the "
                       "run) and --mask or --inclusion-seed, not IN and OUT: the bound is "
                       "sound only for randomised inclusion, which IN/OUT alone do not show")
        if setting == "one-run" and mask is None and inclusion_seed is None:
            raise fail("a one-run audit needs the canaries' inclusion: --mask MASK.npy (True "
                       "where the canary was included, each with probability 1/2) or "
                       "--inclusion-seed S; the bound is sound only for randomised inclusion")
        if setting == "many-run" and x_out is None:
            raise fail("a many-run audit needs IN and OUT (the scores of the runs with and "
                       "without the canary); for one run use --setting one-run --mask MASK")
        report = audit_scores(x_in, x_out, delta=delta, alpha=alpha, setting=setting,
                              mask=m, inclusion_seed=inclusion_seed, seed=seed,
                              analysis=analysis, events=events)
    except LtheoryError as exc:
        raise fail(str(exc)) from None
    violation = claimed_epsilon is not None and report.epsilon_lower_bound > claimed_epsilon
    if as_json:
        doc = report.to_json()
        if claimed_epsilon is not None:
            doc["claimed_epsilon"] = claimed_epsilon
            doc["verdict"] = "violation" if violation else "consistent"
        import json
        typer.echo(json.dumps(doc, ensure_ascii=False, allow_nan=False))
    else:
        c = Console(highlight=False)
        c.print(f"{report.setting} score audit: epsilon >= {report.epsilon_lower_bound:.4g} "
                f"at delta = {report.delta:g} (confidence {1 - report.alpha:g}, "
                f"{report.analysis})")
        if report.event:
            c.print(f"  event: {report.event}")
        sel, cert = report.selection, report.certification
        c.print(f"  scores: {report.n_in} in, {report.n_out} out; selection "
                f"{sel['in']}/{sel['out']}, certification {cert['in']}/{cert['out']}")
        if report.ceiling is not None:
            c.print(f"  ceiling (estimate, not a bound): {report.ceiling:.4g}")
        for k, v in report.analyses.items():
            c.print(f"  {k}: {v:.4g}")
        for n in report.notes:
            c.print(f"  note: {n}")
        if claimed_epsilon is not None:
            c.print("violation" if violation else "consistent", f"with the claim "
                    f"epsilon = {claimed_epsilon:g}")
    if violation:
        raise typer.Exit(1)
