"""Certifying one chosen neighbouring pair on fresh runs (used by the worst-case search).

Two ways, both sound at level α for the pair because the event is fixed before the
certification runs are drawn:

* `certify_exact_event` — for a mechanism with ``output_distribution``: the event is
  chosen from the *exact* distributions (no runs at all): among the sets "the k outputs of
  largest log-ratio" in either direction, the one whose bound, projected at the expected counts
  of ``runs`` runs, is largest.  Then ``runs // 2`` fresh outputs on each dataset are counted and
  ``ε_lb = ln((p_a,lower − δ) / p_b,upper)`` with one-sided Clopper–Pearson bounds at α/2 each
  (``stats.epsilon_lower_bound``).  Using every run for certification (no selection split) gives
  tighter bounds than a blind audit when the worst event is rare, and checks the sampler against
  the exact distribution it was chosen from.
* `audit_at` — ``core.certify_pair`` (selection split, then certification, no claim)
  judged against the claim: the bound does not depend on the claimed ε, only the verdict does.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError, UnrealizableSampleWarning
from ltheory.privacy.auditing import exact as exact_mod
from ltheory.privacy.auditing.budget import Deadline
from ltheory.privacy.auditing.config import AuditConfig
from ltheory.privacy.auditing.core import certify_pair, exact_distributions
from ltheory.privacy.auditing.projection import best_lr_prefix
from ltheory.privacy.auditing.report import AuditReport
from ltheory.privacy.auditing.target import as_target
from ltheory.privacy.stats import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
    log_ratio,
    max_certifiable_epsilon,
)

__all__ = ["audit_at", "certify_exact_event"]

CHUNK = 50_000
MAX_PREFIXES = 4_000


def _name(mech: Any) -> str:
    return str(getattr(mech, "name", type(mech).__name__))


def _draw(mech: Any, d: Any, n: int, rng: np.random.Generator,
          deadline: Deadline | None = None) -> list:
    """n outputs as hashable keys (``exact.output_key``; vector outputs as tuples), drawn in
    chunks of ``CHUNK`` by the target's own way of drawing; fewer (whole chunks) once
    ``deadline`` has passed."""
    target = as_target(mech)
    out: list = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnrealizableSampleWarning)
        while len(out) < n:
            if deadline is not None and deadline.expired():
                deadline.mark("certification")
                break
            batch = target.draw(d, min(CHUNK, n - len(out)), rng)
            out.extend(exact_mod.output_key(o) for o in batch)
    return out


def _choose(keys: list, p0: np.ndarray, p1: np.ndarray, n: int, a_each: float, delta: float
            ) -> tuple[int, set, float]:
    """(direction, event, projected bound) maximising the binomial bound at the expected
    counts (``projection.best_lr_prefix``)."""
    best = best_lr_prefix(p0, p1, n, 2 * a_each, delta, "binomial", MAX_PREFIXES)
    return best.direction, {keys[i] for i in best.cells}, best.bound


def certify_exact_event(mech: Any, d0: Any, d1: Any, *, claimed_epsilon: float,
                        claimed_delta: float, runs: int, seed: int, alpha: float = 0.05,
                        deadline: Deadline | None = None) -> AuditReport:
    """Certify (d0, d1) with an event chosen from the exact output distributions (see
    the module `ltheory.privacy.auditing.certify`); ``runs`` in total (half on each dataset), all
    used for certification.  With a ``deadline`` (``budget.Deadline``) the runs stop at a chunk
    boundary once it has passed and the event is certified on the runs counted (binomial given their
    number, decided by the clock: [`budget`][ltheory.privacy.auditing.budget]); the report is then
    ``partial``."""
    t0 = time.perf_counter()
    if isinstance(runs, bool) or not isinstance(runs, int | np.integer) or runs < 2:
        raise InvalidInputError(f"runs must be an integer >= 2, got {runs!r}")
    keys, p0, p1 = exact_mod.aligned(mech.output_distribution(d0), mech.output_distribution(d1))
    n = int(runs) // 2
    a_each = alpha / 2
    direction, event, _ = _choose(keys, p0, p1, n, a_each, claimed_delta)
    ss0, ss1 = np.random.SeedSequence(int(seed)).spawn(2)
    x0 = _draw(mech, d0, n, np.random.default_rng(ss0), deadline)
    x1 = _draw(mech, d1, n, np.random.default_rng(ss1), deadline)
    n0, n1 = len(x0), len(x1)
    k0 = sum(o in event for o in x0)
    k1 = sum(o in event for o in x1)
    ka, kb = (k0, k1) if direction == 0 else (k1, k0)
    na, nb = (max(n0, 1), max(n1, 1)) if direction == 0 else (max(n1, 1), max(n0, 1))
    bound = float(epsilon_lower_bound(ka, na, kb, nb, a_each, claimed_delta))
    notes: tuple[str, ...] = ()
    if not bound > 0:
        bound = 0.0
        notes = ("inconclusive: the event certified no positive bound (the bound is the "
                 "trivial 0)",)
    partial = (n0, n1) != (n, n)
    if partial:
        notes = (f"budget reached: the time budget ran out during certification; {n0 + n1} of "
                 f"{2 * n} runs were counted and the event is certified on them (partial)",
                 ) + notes
    a_name, b_name = ("d0", "d1") if direction == 0 else ("d1", "d0")
    ex_eps = exact_mod.exact_epsilon(p0, p1, claimed_delta)
    return AuditReport(
        mechanism=_name(mech), claimed_epsilon=float(claimed_epsilon),
        claimed_delta=float(claimed_delta), epsilon_lower_bound=bound,
        epsilon_point_estimate=float(log_ratio(ka / na, kb / nb, claimed_delta)),
        exact_epsilon=ex_eps, exact_delta=exact_mod.delta_of_epsilon(p0, p1, claimed_epsilon),
        verdict="violation" if bound > claimed_epsilon else "consistent",
        event=f"{len(event)} output(s) of largest log-ratio under {a_name} vs {b_name}, chosen "
              "from the exact distributions", direction=int(direction),
        counts={"selection": None, "certification": {"d0": k0, "d1": k1, "n": n, "n_d0": n0,
                                                     "n_d1": n1}},
        p_lower=float(clopper_pearson_lower(ka, na, a_each)),
        p_upper=float(clopper_pearson_upper(kb, nb, a_each)), runs=n0 + n1, selection_runs=0,
        certification_runs=n0 + n1, alpha=float(alpha), events_certified=1, seed=int(seed),
        seconds=time.perf_counter() - t0, notes=notes, partial=partial)


def audit_at(mech: Any, d0: Any, d1: Any, eps: float, delta: float, runs: int, seed: int,
             alpha: float, config: AuditConfig | None = None) -> AuditReport:
    """The certified bound of the pair (``core.certify_pair``, no claim involved) judged
    against the claim (ε, δ): runs too few to certify above ε still give their bound, and only
    the verdict depends on the claim."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnrealizableSampleWarning)
        rep = certify_pair(mech, d0, d1, runs=runs, seed=seed, alpha=alpha, delta=delta,
                           config=config)
    exact_delta = None
    ex = exact_distributions(mech, d0, d1) if rep.exact_epsilon is not None else None
    if ex is not None:
        exact_delta = exact_mod.delta_of_epsilon(*ex, eps)
    top = max_certifiable_epsilon(rep.certification_runs // 2,
                                  rep.alpha / (2 * rep.events_certified), delta)
    note = None if top > eps else (
        f"runs too few to certify above the claim {eps:g} (at most {top:.4g} with these runs): "
        "the bound is the pair's, only the verdict depends on the claim")
    return rep.with_claim(eps, exact_delta, note)
