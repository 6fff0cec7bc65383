"""``ltheory audit NAME [--param k=v ...] [--claimed-epsilon E] --runs N [--seed S] [--alpha A]
[--claimed-delta D] [--claim CLAIM] [--d0 JSON --d1 JSON] [--search] [--broken] [--tradeoff]
[--curve] [--json] [--plot FILE]``

NAME is one of ``MECHANISMS`` or a LEARNER: the name of one of the seeds' learner audit cases
([`ltheory.privacy.learners.audit_cases`][ltheory.privacy.learners.audit_cases], e.g.
``exponential/thresholds-n8-eps1``; the ``ltheory audit LEARNER`` of docs/reference/cli.md).  A
mechanism needs ``--claimed-epsilon``; its parameters are converted with the constructor's
annotations (int, float, bool, "lo,hi" int pairs), never evaluated, and its ε defaults to the
claimed ε.  A learner case has fixed settings (no ``--param``); its claim is the learner's own
``.claim`` unless ``--claimed-epsilon``/``--claimed-delta`` are given, and ``--broken`` audits the
case's deliberately broken variant instead.  Datasets default to the mechanism's ``default_pair()``
or the case's neighbouring pair; ``--d0``/``--d1`` take JSON (lists become tuples).  ``--curve``
audits the claim's whole privacy profile instead ([`ltheory.audit_curve`][ltheory.audit_curve]:
certified δ(ε) at every ε at once, the largest gap over the claimed curve; ``--plot`` then draws the
curves).  ``--claim`` states the claim as text instead of ``--claimed-epsilon``/``--claimed-delta``
(`ltheory.privacy.claim_text.parse_claim`, a restricted parser: ``eps:E``, ``eps:E,delta:D``,
``zcdp:RHO``, ``gdp:MU``, ``rdp:ALPHA=EPS,...``); the plain audit takes it where it is an (ε, δ)
claim, ``--curve`` takes any.  A mechanism whose constructor has an ``epsilon`` gets the claim's ε
by default; with a zCDP / GDP / RDP claim its noise comes from ``--param`` (e.g. ``gaussian -p
sigma=1 --claim zcdp:0.5 --curve``).  ``--budget SECONDS`` is the whole command's wall-clock time in
every mode (plain, ``--search``, ``--curve``, ``--worst-case``; ``inf`` = no limit; default: no
limit, 60 s for ``--worst-case``): once reached the report says ``partial`` and its bound is
certified on the runs counted; a budget that cannot pay for the fewest useful runs (known before
sampling) is an error.  ``--json`` prints strict JSON (non-finite numbers as the strings "inf",
"-inf", "nan").  Exit codes: 0 consistent, 1 violation, 2 bad input or a budget that cannot be met
(one line on stderr)."""

from __future__ import annotations

import inspect
import json
import sys
import time
from typing import Annotated, Any

import typer

from ltheory.cli.common import fail
from ltheory.errors import InvalidInputError, LtheoryError
from ltheory.privacy import mechanisms as mech
from ltheory.privacy.mechanisms import DiscreteGaussianMechanism, DPSGDCanary, GaussianMechanism
from ltheory.progress import progress_bar
from ltheory.validation import check_delta, check_epsilon, check_int

MECHANISMS: dict[str, tuple[type, dict[str, Any]]] = {
    "laplace": (mech.LaplaceMechanism, {}),
    "geometric": (mech.GeometricMechanism, {}),
    "randomized_response": (mech.RandomizedResponse, {}),
    "exponential": (mech.ExponentialMechanism, {}),
    "noisy_max": (mech.ReportNoisyMax, {}),
    "noisy_max_exponential": (mech.ReportNoisyMax, {"noise": "exponential"}),
    "noisy_max_value": (mech.NoisyMaxWithValue, {}),
    "svt": (mech.SparseVector, {}),
    **{f"svt{v}": (mech.SparseVector, {"variant": v}) for v in range(1, 7)},
    "histogram": (mech.Histogram, {}),
    "histogram_wrong_scale": (mech.Histogram, {"wrong_scale": True}),
    "stable_histogram": (mech.StableHistogram, {}),
    "mwem": (mech.MultiplicativeWeights, {}),
    "gaussian": (GaussianMechanism, {}),
    "discrete_gaussian": (DiscreteGaussianMechanism, {}),
    "dpsgd_canary": (DPSGDCanary, {}),
}


def _convert(name: str, raw: str, annotation: Any) -> Any:
    ann = str(annotation)
    try:
        if ann.startswith("tuple") or "tuple[int, int]" in ann:
            lo, hi = raw.split(",")
            return (int(lo), int(hi))
        if "bool" in ann:
            if raw.lower() in ("1", "true", "yes"):
                return True
            if raw.lower() in ("0", "false", "no"):
                return False
            raise ValueError
        if ann.startswith("int"):
            return int(raw)
        if ann.startswith("float"):
            return float(raw)
        if ann.startswith("str"):
            return raw
    except ValueError:
        pass
    else:
        raise InvalidInputError(f"parameter {name!r} cannot be set from the command line")
    raise InvalidInputError(f"parameter {name}={raw!r} is not a valid {ann}")


def build_mechanism(name: str, params: list[str], claimed_epsilon: float | None) -> Any:
    if name not in MECHANISMS:
        raise InvalidInputError(f"unknown mechanism {name!r}; accepted: "
                                + ", ".join(sorted(MECHANISMS)))
    cls, fixed = MECHANISMS[name]
    sig = inspect.signature(cls.__init__)
    kwargs: dict[str, Any] = dict(fixed)
    for p in params:
        if "=" not in p:
            raise InvalidInputError(f"--param must be k=v, got {p!r}")
        k, v = p.split("=", 1)
        k = k.strip()
        if k == "n" and cls is mech.ExponentialMechanism:
            kwargs["hypotheses"] = mech.thresholds(_convert("n", v, "int"))
            continue
        if k not in sig.parameters or k == "self" or k in ("query", "hypotheses", "queries"):
            accepted = [q for q in sig.parameters if q not in ("self", "query", "hypotheses",
                                                               "queries")]
            if cls is mech.ExponentialMechanism:
                accepted.append("n")
            raise InvalidInputError(f"unknown parameter {k!r} for {name}; accepted: "
                                    + ", ".join(accepted))
        kwargs[k] = _convert(k, v.strip(), sig.parameters[k].annotation)
    if claimed_epsilon is not None and "epsilon" in sig.parameters:
        kwargs.setdefault("epsilon", claimed_epsilon)
    missing = [q for q, v in sig.parameters.items() if q != "self" and q not in kwargs
               and v.default is inspect.Parameter.empty
               and v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)]
    if missing:
        raise InvalidInputError(f"{name} needs " + ", ".join(f"--param {q}=..." for q in missing)
                                + (" (or an (epsilon, delta) claim)" if "epsilon" in missing
                                   else ""))
    return cls(**kwargs)


def learner_cases() -> dict[str, Any]:
    """The seeds' learner audit cases by name."""
    from ltheory.privacy.learners import audit_cases

    return {c.name: c for c in audit_cases()}


def build_learner(case: Any, params: list[str], broken: bool) -> tuple[Any, Any, Any]:
    """(learner, d0, d1) of a learner audit case (its broken variant with ``broken``)."""
    name = case.name
    if params:
        raise InvalidInputError(f"learner audit case {name!r} has fixed settings ({case.setting})"
                                "; --param applies to mechanisms only")
    if broken:
        if case.broken is None:
            raise InvalidInputError(f"learner audit case {name!r} has no broken variant")
        return (case.broken(), *case.broken_pair())
    return case.make(), case.d0, case.d1


def _tuples(v: Any) -> Any:
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


#: Longest --d0/--d1 text and longest integer literal in it (digits) the command line decodes.
MAX_DATASET_CHARS = 1 << 20
MAX_INT_DIGITS = 30


def _int_literal(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise InvalidInputError(f"an integer of {len(text.lstrip('-'))} digits (at most "
                                f"{MAX_INT_DIGITS} are accepted)")
    return int(text)


def _no_constant(text: str) -> Any:
    raise InvalidInputError(f"{text} is not a number a dataset can hold")


def _dataset(raw: str, which: str) -> Any:
    """--d0/--d1: a JSON dataset, bounded before and while decoding (size, nesting, integer
    digits, no NaN/Infinity)."""
    if len(raw) > MAX_DATASET_CHARS:
        raise InvalidInputError(f"--{which} is {len(raw)} characters; at most "
                                f"{MAX_DATASET_CHARS} are accepted")
    try:
        return _tuples(json.loads(raw, parse_int=_int_literal, parse_constant=_no_constant))
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"--{which} is not valid JSON ({exc.msg})") from None
    except InvalidInputError as exc:
        raise InvalidInputError(f"--{which}: {exc}") from None
    except RecursionError:
        raise InvalidInputError(f"--{which} nests arrays too deeply to be a dataset") from None


NAME = "audit"


def command(
    name: Annotated[str, typer.Argument(
        metavar="MECHANISM|LEARNER",
        help="Mechanism (" + ", ".join(sorted(MECHANISMS)) + ") or learner audit case "
        "(ltheory.privacy.learners.audit_cases(), e.g. exponential/thresholds-n8-eps1).")],
    runs: Annotated[int, typer.Option("--runs", metavar="N",
                                      help="Total runs (half per dataset); with "
                                      "--search the whole budget, pilots included.")],
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", metavar="KEY=VALUE",
        help="A mechanism's constructor parameter, repeatable (-p epsilon=1 -p sigma=2); "
             "converted by the constructor's annotations, never evaluated. Not for "
             "learner cases.")] = None,
    claimed_epsilon: Annotated[float | None, typer.Option(
        "--claimed-epsilon", metavar="E", help="Claimed epsilon > 0 (required for a mechanism; "
        "a learner's own claim by default).")] = None,
    claimed_delta: Annotated[float | None, typer.Option(
        "--claimed-delta", metavar="D", help="Claimed delta in [0, 1) (default: the mechanism's "
        "claimed delta, 0 for pure DP).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random draw: the same "
                                      "seed gives the same runs and report.")] = 0,
    alpha: Annotated[float, typer.Option("--alpha", help="Probability that the certified "
                                         "lower bound on epsilon is wrong (in (0, 1)).")
                     ] = 0.05,
    d0: Annotated[str | None, typer.Option(
        "--d0", metavar="JSON", help="First dataset of the pair, as JSON (lists become "
        "tuples), e.g. '[0, 1, 1]' (default: the mechanism's default_pair() or the "
        "learner case's pair).")] = None,
    d1: Annotated[str | None, typer.Option(
        "--d1", metavar="JSON", help="Second dataset of the pair, as JSON (default as "
        "--d0).")] = None,
    search: Annotated[bool, typer.Option("--search",
                                         help="Search neighbours of d0 first (planned "
                                         "within --runs: audit_search(total_runs=...)).")
                      ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    plot: Annotated[str | None, typer.Option("--plot", metavar="FILE",
                                             help="Write a PNG of the two output "
                                             "distributions, event marked (with --curve: "
                                             "the certified and claimed curves).")] = None,
    tradeoff: Annotated[bool, typer.Option("--tradeoff", help="Add the certified (epsilon, "
                                           "delta) curve (41 points) to the report.")
                        ] = False,
    broken: Annotated[bool, typer.Option("--broken", help="Learner cases only: audit the "
                                         "case's deliberately broken variant (a negative "
                                         "control).")] = False,
    worst_case: Annotated[bool, typer.Option("--worst-case", help="Learner cases: search the "
                                             "neighbouring datasets of size --n for the "
                                             "largest privacy loss, then certify the worst "
                                             "pair with --runs fresh runs.")] = False,
    n: Annotated[int | None, typer.Option("--n", help="With --worst-case: the size of the "
                                          "datasets searched (default: the case's).")] = None,
    budget: Annotated[float | None, typer.Option(
        "--budget", metavar="SECONDS",
        help="Wall-clock seconds for the whole command, every mode (inf: no "
        "limit; default none, 60 with --worst-case). Past it the report is partial: "
        "certified on the runs counted.")] = None,
    method: Annotated[str, typer.Option("--method", help="With --worst-case: how the pairs "
                                        "are searched: exhaustive (every pair), anneal "
                                        "(simulated annealing), pilot (short audits, for "
                                        "learners without exact distributions) or auto "
                                        "(exhaustive when small enough).")] = "auto",
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar on stderr.")] = False,
    curve: Annotated[bool, typer.Option("--curve", help="Audit the whole privacy profile "
                                        "delta(epsilon) of the claim (audit_curve): certified "
                                        "at every epsilon at once, verdict at the largest "
                                        "gap.")] = False,
    claim: Annotated[str | None, typer.Option("--claim", metavar="CLAIM",
                                              help="The claim as text, instead of "
                                              "--claimed-epsilon/--claimed-delta: eps:E, "
                                              "eps:E,delta:D, zcdp:RHO, gdp:MU or "
                                              "rdp:ALPHA=EPS,... (zCDP, GDP and RDP claims "
                                              "need --curve).")] = None,
    arithmetic: Annotated[str, typer.Option(
        "--arithmetic", metavar="float|real",
        help="float (default): also look for floating-point leaks in float "
        "outputs (events on the outputs' bits); real: audit the real-arithmetic mechanism "
        "(output values only).")] = "float",
) -> None:
    """Audit a mechanism's (ε, δ) claim: a lower bound on ε wrong with probability ≤ α."""
    t_start = time.perf_counter()
    try:
        from ltheory.privacy.auditing.budget import check_time_budget
        from ltheory.privacy.auditing.floating import check_arithmetic
        seconds = check_time_budget(budget, "--budget")
        if budget is None and worst_case:
            seconds = 60.0
        check_arithmetic(arithmetic)
        claim_obj = None if claim is None else _claim(claim, claimed_epsilon, claimed_delta)
        curve_claim = False
        if claim_obj is not None:
            from ltheory.privacy.claim_text import claim_pair

            pair = claim_pair(claim_obj)
            if pair is None and not curve:
                raise InvalidInputError(f"--claim {claim}: a {claim_obj} claim is a whole "
                                        "privacy curve; audit it with --curve (the plain "
                                        "audit takes eps:E or eps:E,delta:D)")
            claimed_epsilon, claimed_delta = pair if pair is not None else (None, None)
            curve_claim = pair is None
        m, a, b, eps, delta, is_learner = _resolve(name, param, claimed_epsilon, claimed_delta,
                                                   broken, d0, d1, curve_claim)
        if worst_case and eps is None:
            raise InvalidInputError("--worst-case audits an (epsilon, delta) claim; --claim "
                                    f"{claim} is a whole curve: audit it with --curve alone")
        left = _left(seconds, t_start)
        if worst_case:
            _worst_case(m, a, b, eps, delta, is_learner, n, method, left, runs, alpha, seed,
                        as_json)
        if curve:
            _curve(m, a, b, claim_obj if claim_obj is not None else (eps, delta), runs, seed,
                   alpha, search, tradeoff, plot, as_json, arithmetic, left)
        found, report, a, b = _audit(m, a, b, name, eps, delta, runs, seed, alpha, search,
                                     tradeoff, quiet, arithmetic, left)
        if plot:
            from ltheory.privacy.auditing.plot import plot_audit
            plot_audit(m, a, b, report, plot, seed=seed)
    except LtheoryError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write the plot: {exc.strerror or exc} ({exc.filename})") from None
    except ValueError as exc:  # a mechanism's own check of its parameters
        raise fail(f"{type(exc).__name__}: {exc}") from None
    _emit(report, found, as_json)
    raise typer.Exit(1 if report.verdict == "violation" else 0)


def _left(seconds: float | None, t_start: float) -> float | None:
    """The time left of the command's budget (None: no limit); an error when setting up the
    audit (building the mechanism, its claim) already spent it."""
    if seconds is None:
        return None
    left = seconds - (time.perf_counter() - t_start)
    if not left > 0:
        from ltheory.errors import BudgetExceededError
        raise BudgetExceededError(f"--budget {seconds:g} s was spent before the audit started "
                                  f"(setting it up took {time.perf_counter() - t_start:.3g} s)")
    return left


def _claim(text: str, claimed_epsilon: float | None, claimed_delta: float | None) -> Any:
    """--claim: the parsed claim (``claim_text.parse_claim``); not with --claimed-*."""
    from ltheory.privacy.claim_text import parse_claim

    if claimed_epsilon is not None or claimed_delta is not None:
        raise InvalidInputError("--claim replaces --claimed-epsilon/--claimed-delta: give "
                                "the claim one way only")
    try:
        return parse_claim(text)
    except InvalidInputError as exc:
        raise InvalidInputError(f"--claim: {exc}") from None


def _resolve(name: str, param: list[str] | None, claimed_epsilon: float | None,
             claimed_delta: float | None, broken: bool, d0: str | None, d1: str | None,
             curve_claim: bool = False) -> tuple[Any, Any, Any, Any, Any, bool]:
    """The mechanism or learner case, its default pair (or --d0/--d1) and the claim (ε, δ);
    with ``curve_claim`` (a --claim that is not an (ε, δ) pair) ε and δ are None."""
    cases = learner_cases() if name not in MECHANISMS else {}
    if name not in MECHANISMS and name not in cases:
        raise InvalidInputError(
            f"unknown mechanism or learner {name!r}; mechanisms: "
            + ", ".join(sorted(MECHANISMS)) + "; learners: " + ", ".join(sorted(cases)))
    if claimed_epsilon is not None:
        check_epsilon(claimed_epsilon, "--claimed-epsilon")
    if name in cases:
        m, a, b = build_learner(cases[name], param or [], broken)
        eps = float(m.claim[0]) if claimed_epsilon is None else claimed_epsilon
        delta = float(m.claim[1]) if claimed_delta is None else claimed_delta
    else:
        if broken:
            raise InvalidInputError("--broken applies to learner audit cases only")
        if claimed_epsilon is None and not curve_claim:
            raise InvalidInputError(f"--claimed-epsilon is required to audit the "
                                    f"mechanism {name!r} (or --claim)")
        m = build_mechanism(name, param or [], claimed_epsilon)
        eps = claimed_epsilon
        delta = float(getattr(m, "delta", 0.0)) if claimed_delta is None else claimed_delta
        a, b = m.default_pair()
    a = _dataset(d0, "d0") if d0 is not None else a
    b = _dataset(d1, "d1") if d1 is not None else b
    if curve_claim:
        return m, a, b, None, None, name in cases
    check_delta(delta, "--claimed-delta")
    return m, a, b, eps, delta, name in cases


def _curve(m: Any, a: Any, b: Any, claim: Any, runs: int, seed: int, alpha: float,
           search: bool, tradeoff: bool, plot: str | None, as_json: bool,
           arithmetic: str = "float", budget: float | None = None) -> None:
    """--curve: the curve audit of the claim (a claim object or (ε, δ)) at (a, b); exits."""
    from ltheory.privacy.auditing.curve import audit_curve

    if search or tradeoff:
        raise InvalidInputError("--curve audits one pair and reports its curves itself; it "
                                "does not combine with --search or --tradeoff")
    r = audit_curve(m, a, b, claim=claim, runs=runs, seed=seed, alpha=alpha,
                    arithmetic=arithmetic, time_budget=budget)
    if plot:
        from ltheory.privacy.auditing.plot import plot_curve
        plot_curve(r, plot)
    if as_json:
        typer.echo(r.dumps(allow_nan=False))
    else:
        from rich.table import Table
        from rich.text import Text

        where = ("n/a" if r.gap_epsilon is None else
                 f"{r.gap:.4g} at ε = {r.gap_epsilon:.4g} ({r.gap_event})")
        rows = [("verdict", _verdict(r)), ("claimed", r.claim_text),
                ("largest gap", where),
                ("certified ε(δ)", ", ".join(f"δ={d:g}: {e:.4g}" for d, e in
                                             zip(r.deltas, r.epsilon_lower_bound,
                                                 strict=True))),
                ("events", f"{r.events_certified} (all bounds hold together with probability "
                           f"≥ {1 - r.alpha:g})"),
                ("runs", f"{r.runs} ({r.selection_runs} selection, {r.certification_runs} "
                         "certification)" + (" — partial: time budget reached"
                                             if r.partial else "")),
                ("seconds", f"{r.seconds:.2f}")]
        _print_rows(Table(title=Text(f"curve audit of {r.mechanism}"), show_header=False),
                    rows, r.notes)
    raise typer.Exit(1 if r.verdict == "violation" else 0)


def _worst_case(m: Any, a: Any, b: Any, eps: float, delta: float, is_learner: bool,
                n: int | None, method: str, budget: float | None, runs: int, alpha: float,
                seed: int, as_json: bool) -> None:
    """--worst-case: search the datasets of size n, certify the worst pair; exits."""
    from ltheory.privacy.auditing.worst_case import audit_worst_case

    if not is_learner:
        raise InvalidInputError("--worst-case applies to learner audit cases only; for a "
                                "mechanism use --search")
    check_int(runs, "--runs (the certification runs of the worst pair)", minimum=2)
    size = n if n is not None else max(len(a), len(b))
    wc = audit_worst_case(m, size, method=method, claimed_epsilon=eps, claimed_delta=delta,
                          budget=budget,
                          start_pairs=[(a, b)] if size == max(len(a), len(b)) else None,
                          certify_runs=runs, alpha=alpha, seed=seed)
    if as_json:
        typer.echo(wc.dumps(allow_nan=False))
    else:
        _print_worst_case(wc)
    raise typer.Exit(1 if wc.violation else 0)


def _audit(m: Any, a: Any, b: Any, name: str, eps: float, delta: float, runs: int, seed: int,
           alpha: float, search: bool, tradeoff: bool, quiet: bool,
           arithmetic: str = "float", budget: float | None = None
           ) -> tuple[Any, Any, Any, Any]:
    """The plain audit of (a, b), or with --search the planned search around a; a progress
    bar on stderr from 10^6 runs (not with --quiet, nor when stderr is not a terminal)."""
    from ltheory.privacy.auditing.core import audit
    from ltheory.privacy.auditing.search import audit_search

    with progress_bar(f"auditing {name}", quiet=quiet or runs < 1_000_000) as progress:
        if search:
            found = audit_search(m, a, claimed_epsilon=eps, claimed_delta=delta,
                                 total_runs=runs, seed=seed, alpha=alpha, progress=progress,
                                 tradeoff=tradeoff, arithmetic=arithmetic,
                                 time_budget=budget)
            return found, found.report, found.d0, found.d1
        report = audit(m, a, b, claimed_epsilon=eps, claimed_delta=delta, runs=runs,
                       seed=seed, alpha=alpha, progress=progress, tradeoff=tradeoff,
                       arithmetic=arithmetic, time_budget=budget)
        return None, report, a, b


def _emit(report: Any, found: Any, as_json: bool) -> None:
    if not as_json:
        _print_report(report, found)
    elif found is None:
        typer.echo(report.dumps(allow_nan=False))
    else:   # the audit's report, plus what the search found and how it spent --runs
        d = found.to_json()
        out = d.pop("report")
        d.pop("ranking")
        out["search"] = d
        typer.echo(json.dumps(out, ensure_ascii=False, allow_nan=False))


def _print_worst_case(w: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=Text(f"worst-case search for {w.learner}"), show_header=False)
    status = "complete (every pair)" if w.complete else (
        "partial (budget reached)" if w.partial else "heuristic search finished")
    rows = [
        ("verdict", "violation" if w.violation else "consistent"),
        ("claimed", f"ε = {w.claimed_epsilon:g}, δ = {w.claimed_delta:g}"),
        ("worst ε", f"{w.worst_epsilon:.6g} ({'exact' if w.exact else 'certified bound'}; "
                    f"{w.ratio:.3f} of the claim)"),
        ("certified bound", "n/a" if w.certified_bound is None
         else f"{w.certified_bound:.6g} (fresh runs)"),
        ("pair", f"n = {w.n}, {w.relation}: {json.dumps(w.to_json()['pair'])}"),
        ("d0", json.dumps(w.to_json()["d0"])),
        ("search", f"{w.method}, {status}, {w.evaluations} evaluations"),
        ("seconds", f"{w.seconds:.2f}"),
    ]
    _print_rows(t, rows, w.notes)


def _print_report(r: Any, found: Any = None) -> None:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=Text(f"audit of {r.mechanism}"), show_header=False)
    rows = [
        ("verdict", _verdict(r)),
        ("claimed", f"ε = {r.claimed_epsilon:g}, δ = {r.claimed_delta:g}"),
        ("ε lower bound", f"{r.epsilon_lower_bound:.6g} (wrong with probability ≤ {r.alpha:g})"),
        ("ε point estimate", f"{r.epsilon_point_estimate:.6g}"),
        ("exact ε", "n/a" if r.exact_epsilon is None else f"{r.exact_epsilon:.6g}"),
        ("event", r.event),
        ("direction", r.inequality),
        ("counts", json.dumps(r.counts["certification"])),
        ("runs", f"{r.runs} ({r.selection_runs} selection, {r.certification_runs} "
                 "certification)" + (" — partial: time budget reached"
                                     if getattr(r, "partial", False) else "")),
        ("seconds", f"{r.seconds:.2f}"),
    ]
    notes = tuple(r.notes)
    if found is not None:
        p = found.plan
        rows += [("pair found", f"{found.pattern}: d0 = {json.dumps(found.d0)}, "
                                f"d1 = {json.dumps(found.d1)}"),
                 ("search", f"{p.pairs} pairs ({p.neighbours}), {p.rungs} rung(s), "
                            f"{p.pilot_total} pilot runs; {found.total_runs} runs in all "
                            f"(budget {p.total_runs})")]
        notes += tuple(found.notes)
    _print_rows(t, rows, notes)


def _verdict(r: Any) -> str:
    """The verdict, "floating-point violation" when the event is on the outputs' bits."""
    if r.verdict == "violation" and getattr(r, "floating_point", False):
        return "floating-point violation (see the note: the fix)"
    return r.verdict


def _print_rows(table: Any, rows: list[tuple[str, Any]], notes: Any) -> None:
    """Fill a two-column rich table with (key, value) rows, print it, then the notes."""
    from rich.console import Console
    from rich.text import Text

    for k, v in rows:
        table.add_row(k, Text(str(v)))
    console = Console(file=sys.stdout)
    console.print(table)
    for note in notes:
        console.print(f"note: {note}", markup=False)
