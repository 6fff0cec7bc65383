"""Every setting of an audit in one frozen, validated object:
[`AuditConfig`][ltheory.privacy.AuditConfig].

``audit``, ``audit_search`` and ``audit_worst_case`` all take ``config=AuditConfig(...)``
(or the same names as keyword options, ``audit(..., events=2)``), so the three entry points
share one set of settings and one set of defaults.  The defaults are the settings measured best
on DP-Sniper's suite of 20 mechanisms (Bichsel et al. 2021; ``benchmarks/bench_dpsniper_suite.py``
and ``docs/reference/auditor.md``): a user who changes nothing gets the auditor's best path.

Every value is checked when the config is built, and combinations that cannot work together are
refused there (``certify="poisson"`` with a claimed δ > 0 is refused by
[`for_claim`][ltheory.privacy.AuditConfig.for_claim], the
one place that knows the claim).  A pilot's settings are derived with
[`AuditConfig.replace`][ltheory.privacy.AuditConfig.replace]
(``dataclasses.replace`` plus validation): a value the caller set is never overridden silently.

Examples:
    >>> cfg = AuditConfig()
    >>> cfg.events, cfg.certify, cfg.lean_events
    ('auto', 'auto', 'auto')
    >>> AuditConfig(events=0)
    Traceback (most recent call last):
    ...
    ltheory.errors.InvalidInputError: events must be an integer >= 1 or 'auto', got 0
    >>> AuditConfig.from_options(None, {"events": 2}).events
    2
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from ltheory.errors import InvalidInputError
from ltheory.privacy.auditing.budget import check_time_budget
from ltheory.privacy.auditing.events import CREDIBLE_MAX_SELECTION, CREDIBLE_SHRINK, SCREEN, SHRINK
from ltheory.privacy.auditing.floating import check_arithmetic
from ltheory.validation import check_choice, check_int, check_level

__all__ = ["AuditConfig", "FEW_OUTPUTS", "LEAN_SHRINK"]

#: Most distinct outputs (pooled over both datasets) for which an output space counts as "few
#: outputs": the exact output cells' likelihood-ratio prefixes then contain the best event, so
#: ``lean_events="auto"`` selects among them only (and the search's pilots count cells).
FEW_OUTPUTS = 64
#: The selection-shrinkage level used with lean events on vector outputs: one standard error.
#: With lean events the exact-output cells are ordered and scored on the whole selection split
#: (``events.candidate_families``; before issue 42's last round: ordered on one half, scored
#: unshrunk (0.5) on the other), so the order is read from twice the runs and the shrinkage
#: pays for the prefixes' winner's curse (SVT1 at 2e6 on its headline pair, 60 seeds: 0.0465
#: -> 0.0550, ceiling 0.0724; SVT2 0.0491 -> 0.0540; ``benchmarks/bench_lean_selection.py``;
#: in simulation (exact cells, 300 draws) it is at or above the old rule on SVT1, SVT4,
#: ReportNoisyMax1 and TruncatedGeometric at 10^4, 10^5 and 10^6 selection runs per dataset).
#: Unshrunk, a rare cell whose ratio is high by chance wins; at the 98% bound, frequent cells of
#: small ratio (round 3 in docs/reference/auditor.md: 0.046 unshrunk against 0.032 at 0.02).
#: A *scalar* output keeps ``events.SHRINK``: its thresholds compete with the cells, and
#: unshrunk, a lucky deep-tail cut or a few-cell subset of cells of equal ratio wins (the
#: exponential mechanism on 1,023 thresholds at 1e6 runs, seeds 0-9: mean 0.919 -> 0.962;
#: TruncatedGeometric at 2e6, 9 seeds: 0.1101 -> 0.1140; ReportNoisyMax1/2 unchanged).
LEAN_SHRINK = 0.16


@dataclass(frozen=True)
class AuditConfig:
    """The settings of an audit (see
    [`ltheory.privacy.auditing.config`][ltheory.privacy.auditing.config]); every field is validated
    when built.

    Attributes:
        selection_fraction: share of each dataset's runs that selects the events (the rest
            certifies them on fresh runs).
        lean_selection_fraction: the selection share once the selection split shows a vector
            output of few distinct outputs (lean events, ``lean_events``), or ``None`` (keep
            ``selection_fraction``).  The cells' likelihood-ratio order is estimated from the
            selection counts themselves, and at 10% of the runs the ratios of a sparse
            vector's rare patterns are noise.  When the event chosen on the planned split holds
            at least ``stages.WIDEN_MIN_RUNS`` selection runs on each side (an event rarer on
            one side certifies by its rarity, and every certification run counts), the audit
            draws fresh selection runs up to this share and chooses again (never fewer than
            planned; the certification runs it takes them from are fixed before any is drawn,
            so the bound stays sound: ``stages.widen_selection``).  SVT1 and SVT2 at 2·10^6
            runs, 30 fresh seeds each: 0.71-0.80 → 0.83-0.87 of the whole-budget ceiling
            (``benchmarks/bench_event_quality.py``).
        mixed_selection_fraction: the selection share for a vector output that *mixes*
            few-valued coordinates with continuous ones (sparse vector's ⊤/⊥ codes beside its
            released values: the output with the most candidate families — pattern blocks,
            released-value and mixed cells, structure scores — which a 10% split cannot tell
            apart), while the planned selection split holds at most
            ``stages.WIDEN_MAX_SELECTION`` runs per dataset; or ``None``.  Fresh selection runs
            are drawn before any event is chosen, from the planned certification runs, as for
            lean outputs.  DP-Sniper's SVT3, NumericalSVT and SVT34Parallel, nine seeds, on
            the search: 0.34-0.67 → 0.54-0.89 of the whole-budget ceiling at 2·10^6 runs,
            0.73-0.92 → 0.84-1.04 at 2·10^7 (``docs/reference/auditor.md``).
        events: how many events are certified (Bonferroni over them), or ``"auto"``: one or
            two, decided on the selection split (``events.events_to_certify``), and beside the
            first up to two nested, rarer events of its own family (``deeper``).
        certify: ``"binomial"`` (two Clopper–Pearson bounds), ``"poisson"`` (Poisson numbers
            of runs, one conditional test of the ratio; needs δ = 0) or ``"auto"`` (Poisson
            numbers of runs, each event certified by the test projected better on the selection
            split; binomial when δ > 0).
        structure_events: add the structure-score families (``features``) for vector outputs.
        exact: report the exact ε (and δ) where the mechanism offers ``output_distribution``.
        lean_events: select among the exact-output cells only: ``True``, ``False`` or ``"auto"``
            (when the selection split shows at most ``FEW_OUTPUTS`` distinct outputs, and on
            average at least 4 runs per output).
        selection_shrink: the Clopper–Pearson level selection frequencies are shrunk to when
            projecting, or ``"auto"``: ``LEAN_SHRINK`` with lean events on vector outputs,
            else ``events.SHRINK`` — and, on vector outputs with selection splits of at most
            ``events.CREDIBLE_MAX_SELECTION`` runs per dataset, once the credibility screen
            has passed some candidate, ``events.CREDIBLE_SHRINK`` for ranking the credible
            ones (``credible_shrink_for``).
        credible_ranking: with ``selection_shrink="auto"``, rank the credible candidates of a
            vector output again at ``events.CREDIBLE_SHRINK`` on small selection splits
            (``credible_shrink_for``); the planned search's pilot audits turn it off
            (``plan.PILOT_SETTINGS``).
        selection_screen: family-wise level of the credibility screen over many candidate
            events (``None``: off).
        tail_model: let a power-law model of a threshold family's tail place its rarest cuts
            (``tail_model``): where the tail's log-ratio visibly grows, positions too rare
            for their own selection counts are projected from the trend.
        tradeoff: add the certified (ε, δ) curve (``True`` = 41 points, or a number of points).
        verify_neighbours: check that the two datasets are neighbours under the mechanism's
            relation.
        executor: ``None`` (serial, or a local process pool for large audits), ``"serial"``,
            ``"process"`` or any ``concurrent.futures.Executor``.  Whatever the executor, an
            audit runs with the BLAS libraries at one thread, in-process and in the forked
            pool's workers (``ltheory.blas.one_blas_thread``; a learner whose ``sample`` needs
            threaded BLAS can set its own limit inside it).
        progress: ``progress(done, total)`` called after every chunk of runs.
        arithmetic: ``"float"`` (default): on float outputs, also look for floating-point
            leaks (events on the bits of the outputs, ``floating``; a report certified on one
            says *floating-point violation*); ``"real"``: audit the real-arithmetic
            mechanism (events on the output values only).
        time_budget: wall-clock seconds for the whole call (``None`` or ``inf``: no limit).
            When it is reached the report says ``partial`` and certifies on the runs counted
            ([`budget`][ltheory.privacy.auditing.budget]: how, and why it stays sound); a budget
            known before sampling to be too small raises ``BudgetExceededError``.
    """

    selection_fraction: float = 0.1
    lean_selection_fraction: float | None = 0.3
    mixed_selection_fraction: float | None = 0.3
    events: int | str = "auto"
    certify: str = "auto"
    structure_events: bool = True
    exact: bool = True
    lean_events: bool | str = "auto"
    selection_shrink: float | str = "auto"
    credible_ranking: bool = True
    selection_screen: float | None = SCREEN
    tail_model: bool = True
    tradeoff: bool | int = False
    verify_neighbours: bool = True
    executor: Any = field(default=None, compare=False)
    progress: Callable[[int, int], None] | None = field(default=None, compare=False,
                                                        repr=False)
    arithmetic: str = "float"
    time_budget: float | None = None

    def __post_init__(self) -> None:
        check_level(self.selection_fraction, "selection_fraction")
        for name in ("lean_selection_fraction", "mixed_selection_fraction"):
            if getattr(self, name) is not None:
                check_level(getattr(self, name), name)
        object.__setattr__(self, "time_budget", check_time_budget(self.time_budget))
        if self.events != "auto":
            if isinstance(self.events, bool) or not isinstance(self.events, int) \
                    or self.events < 1:
                raise InvalidInputError(f"events must be an integer >= 1 or 'auto', got "
                                        f"{self.events!r}")
        check_choice(self.certify, "certify", ("binomial", "poisson", "auto"))
        check_arithmetic(self.arithmetic)
        for name in ("structure_events", "exact", "verify_neighbours", "tail_model",
                     "credible_ranking"):
            check_choice(getattr(self, name), name, (True, False))
        check_choice(self.lean_events, "lean_events", (True, False, "auto"))
        if self.selection_shrink != "auto":
            check_level(self.selection_shrink, "selection_shrink")
        if self.selection_screen is not None:
            check_level(self.selection_screen, "selection_screen")
        if self.tradeoff is not True and self.tradeoff is not False:
            check_int(self.tradeoff, "tradeoff (True, False or a number of points)", minimum=2)
        ex = self.executor
        if not (ex is None or isinstance(ex, Executor) or ex in ("serial", "process", "auto")):
            raise InvalidInputError(f"executor must be None, 'serial', 'process' or a "
                                    f"concurrent.futures.Executor, got {ex!r}")
        if self.progress is not None and not callable(self.progress):
            raise InvalidInputError(f"progress must be a callable progress(done, total) or "
                                    f"None, got {self.progress!r}")

    @classmethod
    def from_options(cls, config: AuditConfig | None, options: dict[str, Any]) -> AuditConfig:
        """``config`` (default: ``AuditConfig()``) with the keyword ``options`` applied; an
        unknown option is an error naming the accepted ones."""
        if config is not None and not isinstance(config, AuditConfig):
            raise InvalidInputError(f"config must be an AuditConfig or None, got "
                                    f"{type(config).__name__}")
        base = config or cls()
        return base.replace(**options) if options else base

    def replace(self, **changes: Any) -> AuditConfig:
        """A copy with ``changes`` (validated like any config)."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise InvalidInputError(f"unknown audit option(s) {', '.join(unknown)}; accepted: "
                                    f"{', '.join(sorted(names))}")
        return dataclasses.replace(self, **changes)

    def for_claim(self, delta: float) -> AuditConfig:
        """Refuse settings that cannot work with a claimed δ (the Poisson test needs δ = 0)."""
        if self.certify == "poisson" and delta > 0:
            raise InvalidInputError("certify='poisson' bounds the ratio of two probabilities, "
                                    "so it needs claimed_delta = 0; use 'binomial' or 'auto'")
        return self

    @property
    def max_events(self) -> int:
        """The most events this config certifies (Bonferroni over them): 2 for ``"auto"``."""
        return 2 if self.events == "auto" else int(self.events)

    def shrink_for(self, lean: bool, kind: str = "vector") -> float:
        """The selection-shrinkage level, ``"auto"`` resolved for lean or full selection of
        outputs of ``kind`` (``outputs.batch_kind``: ``LEAN_SHRINK`` only for lean selection
        on non-scalar outputs)."""
        if self.selection_shrink != "auto":
            return float(self.selection_shrink)
        return LEAN_SHRINK if lean and kind != "scalar" else SHRINK

    def credible_shrink_for(self, lean: bool, kind: str = "vector",
                            n_sel: int = 0) -> float | None:
        """The milder shrinkage credible candidates are ranked at (``select_events``'
        ``credible_shrink``): `events.CREDIBLE_SHRINK` for ``selection_shrink="auto"`` on full
        (not lean) selection of vector outputs with at most `events.CREDIBLE_MAX_SELECTION`
        selection runs ``n_sel`` per dataset and ``credible_ranking``, else None (off)."""
        if self.selection_shrink != "auto" or not self.credible_ranking or lean \
                or kind != "vector" or n_sel > CREDIBLE_MAX_SELECTION:
            return None
        return CREDIBLE_SHRINK

    def to_json(self) -> dict:
        """The settings as a JSON-ready dict (the executor and progress callback by name)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["executor"] = d["executor"] if d["executor"] is None or isinstance(
            d["executor"], str) else type(d["executor"]).__name__
        d["progress"] = d["progress"] is not None
        return d
