"""Theorem checks: every statement of the seed papers that can be evaluated on finite classes.

``all_checks()`` lists them (one module per paper); ``run_checks(ids, quick)`` runs them;
``python -m proofs_check`` and ``ltheory check`` print the report.
"""

from __future__ import annotations

import importlib

from ltheory.progress import Progress
from ltheory.progress import report as _progress  # (proofs_check.report is a module)
from proofs_check.base import Check, CheckResult, Evidence

#: one module per paper; each defines CHECKS
MODULES = ["proofs_check.abms2020", "proofs_check.lecture_pac",
           "proofs_check.abms2020_composition", "proofs_check.abms2020_learning",
           "proofs_check.abms2020_subsampling",
           "proofs_check.bun_fang", "proofs_check.asadi2023", "proofs_check.amsy2024",
           "proofs_check.extremal", "proofs_check.privacy_claims",
           "proofs_check.asadi_sensitivity", "proofs_check.abms2020_more",
           "proofs_check.lecture_algorithm_g", "proofs_check.bun_fang_winnow"]

__all__ = ["Check", "CheckResult", "Evidence", "all_checks", "run_checks"]


def all_checks() -> list[Check]:
    """Every check of every paper module, in the order of `MODULES`."""
    out: list[Check] = []
    for name in MODULES:
        out.extend(importlib.import_module(name).CHECKS)
    return out


def run_checks(ids: list[str] | None = None, quick: bool = False,
               progress: Progress | None = None) -> list[CheckResult]:
    """Run the checks whose id is in ``ids`` (or starts with one of them), or all of them;
    ``progress(done, total)`` is called as checks finish (`ltheory.progress`)."""
    checks = all_checks()
    if ids:
        known = {c.id for c in checks}
        unknown = [i for i in ids if i not in known and not any(k.startswith(i) for k in known)]
        if unknown:
            from ltheory.errors import InvalidInputError

            raise InvalidInputError(f"unknown check id(s) {', '.join(unknown)}; known: "
                                    f"{', '.join(sorted(known))}")
        checks = [c for c in checks if any(c.id == i or c.id.startswith(i) for i in ids)]
    results = []
    for i, c in enumerate(checks):
        _progress(progress, i, len(checks))
        results.append(c.run(quick))
    _progress(progress, len(checks), len(checks))
    return results
