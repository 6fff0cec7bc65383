"""Write the API reference pages, ``docs/reference/api/*.md``, one per topic.

Not an MkDocs hook (``mkdocs.yml`` does not list it): run ``python docs/_hooks/api_pages.py``
after adding a public name or changing the first sentence of a documented docstring, and commit
the pages.  ``tests/test_api_reference.py`` fails when a page differs from what this script
writes, and when a name of a public ``__all__`` has no entry.

Each page opens with a summary table (name, the first sentence of its docstring, linked to the
entry), then one ``:::`` entry per name, on its public import path: ``ltheory.X`` for the names
``ltheory`` re-exports, ``ltheory.privacy.X`` for the auditor, ``ltheory.testing.X`` for the
privacy tests, and the subpackage (``ltheory.privacy.mechanisms``, ``ltheory.catalog``, …)
otherwise.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "reference" / "api"


@dataclass
class Section:
    title: str
    names: list[str]
    intro: str = ""
    #: ``:::`` options of single entries, by name (e.g. a module shown without its members)
    options: dict[str, dict[str, object]] = field(default_factory=dict)
    #: whether the names appear in the page's summary table (module notes do not)
    summary: bool = True


@dataclass
class Page:
    file: str
    title: str
    intro: str
    sections: list[Section]


def _names(prefix: str, *names: str) -> list[str]:
    return [f"{prefix}.{n}" for n in names]


def _all(module: str, skip: tuple[str, ...] = ()) -> list[str]:
    import importlib

    mod = importlib.import_module(module)
    return [f"{module}.{n}" for n in mod.__all__ if n not in skip]


NO_MEMBERS = {"members": False}

#: modules whose docstring the entries refer to (definitions, algorithms, sources): each is
#: shown, without its members, in the "Module notes" of the page of its topic
NOTES = [
    "ltheory.catalog.halfspaces",
    "ltheory.core.boolean",
    "ltheory.core.compose",
    "ltheory.dimensions",
    "ltheory.dims.certificates",
    "ltheory.graphs.certificates",
    "ltheory.graphs.contradiction",
    "ltheory.graphs.fractional",
    "ltheory.privacy.adapters.diffprivlib_models",
    "ltheory.privacy.adapters.floatbits",
    "ltheory.privacy.adapters.jax_privacy_dpsgd",
    "ltheory.privacy.adapters.jax_privacy_training",
    "ltheory.privacy.auditing.budget",
    "ltheory.privacy.auditing.ceiling",
    "ltheory.privacy.auditing.certify",
    "ltheory.privacy.auditing.config",
    "ltheory.privacy.auditing.coord_blocks",
    "ltheory.privacy.auditing.core",
    "ltheory.privacy.auditing.count_model",
    "ltheory.privacy.auditing.curve",
    "ltheory.privacy.auditing.deeper",
    "ltheory.privacy.auditing.events",
    "ltheory.privacy.auditing.exact",
    "ltheory.privacy.auditing.executors",
    "ltheory.privacy.auditing.features",
    "ltheory.privacy.auditing.floating",
    "ltheory.privacy.auditing.memo",
    "ltheory.privacy.auditing.neighbours",
    "ltheory.privacy.auditing.one_run",
    "ltheory.privacy.auditing.outputs",
    "ltheory.privacy.auditing.pilot_ranking",
    "ltheory.privacy.auditing.pilots",
    "ltheory.privacy.auditing.plan",
    "ltheory.privacy.auditing.plot",
    "ltheory.privacy.auditing.projection",
    "ltheory.privacy.auditing.report",
    "ltheory.privacy.auditing.score_pilot",
    "ltheory.privacy.auditing.scores",
    "ltheory.privacy.auditing.search",
    "ltheory.privacy.auditing.stages",
    "ltheory.privacy.auditing.tail_model",
    "ltheory.privacy.auditing.target",
    "ltheory.privacy.auditing.worst_case",
    "ltheory.privacy.claims",
    "ltheory.privacy.learners.boosting",
    "ltheory.privacy.learners.closure",
    "ltheory.privacy.learners.decision_lists",
    "ltheory.privacy.learners.exponential",
    "ltheory.privacy.learners.subsampling",
    "ltheory.privacy.learners.winnow",
    "ltheory.privacy.mechanisms.base",
    "ltheory.privacy.mechanisms.discrete_gaussian",
    "ltheory.privacy.mechanisms.dpsgd",
    "ltheory.privacy.mechanisms.gaussian",
    "ltheory.privacy.zoo",
    "ltheory.sat.certify",
    "ltheory.sat.encode",
    "ltheory.strategies.query_answers",
    "ltheory.tables.table",
    "ltheory.testing.budget",
    "ltheory.testing.claim_points",
    "ltheory.testing.conformance",
    "ltheory.testing.gap_events",
    "ltheory.testing.pairs",
    "ltheory.testing.sequential",
]

#: the page of a module note, by the longest matching prefix
NOTE_PAGES = {"ltheory.catalog": "catalog.md", "ltheory.tables": "tables.md",
              "proofs_check": "checks.md", "ltheory.privacy.claims": "claims.md",
              "ltheory.privacy.auditing": "auditing.md",
              "ltheory.privacy.mechanisms": "mechanisms.md",
              "ltheory.privacy.adapters": "adapters.md", "ltheory.privacy.learners": "adapters.md",
              "ltheory.privacy.zoo": "adapters.md", "ltheory.testing": "testing.md",
              "ltheory.strategies": "strategies.md", "ltheory": "classes.md"}


def _note_page(module: str) -> str:
    best = max((p for p in NOTE_PAGES if module == p or module.startswith(p + ".")), key=len)
    return NOTE_PAGES[best]


def _with_notes(pages: list[Page]) -> list[Page]:
    for page in pages:
        shown = {n for sec in page.sections for n in sec.names}
        notes = [m for m in NOTES if _note_page(m) == page.file and m not in shown]
        if notes:
            page.sections.append(Section(
                "Module notes", notes, summary=False,
                intro="The module docstrings the entries above refer to: definitions, "
                      "algorithms and their sources.",
                options={m: NO_MEMBERS for m in notes}))
    return pages


def pages() -> list[Page]:
    mech = "ltheory.privacy.mechanisms"
    return _with_notes([
        Page("classes.md", "Classes, dimensions and graphs",
             "Finite hypothesis classes, their exact dimensions with checkable witnesses, and the "
             "clique numbers of their contradiction graphs. Everything here is imported from "
             "`ltheory` (the graphs' helpers from `ltheory.graphs`).", [
                 Section("Hypothesis classes", _names(
                     "ltheory", "HypothesisClass", "load_class", "save_class", "class_from_json",
                     "class_to_json", "Aggregation", "compose", "ComposedClass", "negated")),
                 Section("Dimensions", _names(
                     "ltheory", "vc_dimension", "littlestone_dimension", "threshold_dimension",
                     "DimensionResult", "verify", "DIMENSIONS", "Dimension",
                     "StandardOptimalAlgorithm")),
                 Section("Contradiction graphs",
                         _names("ltheory", "clique_number", "fractional_clique_number")
                         + _all("ltheory.graphs", skip=("clique_number",
                                                         "fractional_clique_number"))),
             ]),
        Page("catalog.md", "Catalog",
             "Named families of finite classes with their known dimensions and citations "
             "(`ltheory.catalog`; the CLI's `ltheory catalog`).", [
                 Section("The catalog", ["ltheory.catalog"],
                         options={"ltheory.catalog": NO_MEMBERS}),
                 Section("Families and specs", _names(
                     "ltheory.catalog", "family", "families", "from_spec", "parse_spec",
                     "parse_value", "describe", "FAMILIES", "Family", "FamilyInfo", "ParamInfo",
                     "MAX_CELLS")),
                 Section("Known values", _names(
                     "ltheory.catalog", "known_values", "KnownValue", "KnownValueSpec",
                     "KNOWN_KEYS", "evaluate_formula", "data_file")),
                 Section("Halfspaces and planted classes", _names(
                     "ltheory.catalog", "halfspace_dichotomies", "HALFSPACE_METHODS",
                     "HALFSPACE_MAX_CELLS", "planted_points")),
                 Section("Your own families", _names("ltheory.catalog", "register_family")),
             ]),
        Page("tables.md", "Tables",
             "`ltheory table`: the members of a family over parameter ranges, their exact "
             "dimensions, and the cited formulas judged against them.", [
                 Section("Tables", _names("ltheory", "dimension_table", "DimensionTable")
                         + _names("ltheory.tables", "TableRow", "FormulaCheck", "judge",
                                  "plot_table", "expand", "parse_range", "parse_ranges",
                                  "DEFAULT_BUDGET", "MAX_MEMBERS", "formula_checks", "MARKS",
                                  "mark", "legend")),
             ]),
        Page("checks.md", "Theorem checks",
             "`proofs_check` (the CLI's `ltheory check`): each statement of a paper as a `Check` "
             "run on concrete classes.", [
                 Section("Theorem checks", _all("proofs_check")),
             ]),
        Page("claims.md", "Privacy claims",
             "Privacy claims as objects with their privacy profile δ(ε), imported from `ltheory` "
             "(or `ltheory.privacy`). See [Privacy claims as curves](../../privacy/claims.md).", [
                 Section("Claims", _names(
                     "ltheory", "PrivacyClaim", "PureDP", "ApproxDP", "ZCDP", "RDP", "GDP",
                     "ProfileClaim", "as_claim", "claim_from_json")),
             ]),
        Page("auditing.md", "Privacy auditing",
             "Sound lower bounds on the privacy of a mechanism, a learner or a training "
             "pipeline: `from ltheory.privacy import audit` (the curve and score audits are also "
             "re-exported from `ltheory`). See [Audit a mechanism](../../privacy/audit.md).", [
                 Section("Audits", ["ltheory.privacy.audit", "ltheory.audit_curve",
                                    "ltheory.privacy.audit_search",
                                    "ltheory.privacy.audit_worst_case",
                                    "ltheory.privacy.certify_pair", "ltheory.audit_scores",
                                    "ltheory.privacy.inclusion_mask", "ltheory.privacy.min_runs",
                                    "ltheory.privacy.search_plan", "ltheory.privacy.as_target"]),
                 Section("Configuration", _names("ltheory.privacy", "AuditConfig",
                                                 "SearchConfig", "WorstCaseConfig")),
                 Section("Reports", ["ltheory.privacy.AuditReport", "ltheory.CurveReport",
                                     "ltheory.ScoreAuditReport", "ltheory.privacy.SearchReport",
                                     "ltheory.privacy.WorstCaseReport",
                                     "ltheory.privacy.SearchPlan", "ltheory.privacy.Target"]),
                 Section("Errors and warnings", _names(
                     "ltheory.privacy", "TooFewRunsError", "MechanismError",
                     "DistributionMismatchWarning")),
                 Section("One-run audits", ["ltheory.privacy.auditing.one_run"], summary=False),
                 Section("Floating-point outputs", ["ltheory.privacy.auditing.floating"],
                         summary=False,
                         options={"ltheory.privacy.auditing.floating": {
                             "members": ["BitEncoder", "grid_exponents", "bit_encoders", "FIX"]}}),
             ]),
        Page("mechanisms.md", "Mechanisms",
             "Every mechanism of ltheory, `ltheory.privacy.mechanisms.<Name>`: vectorised, each "
             "with its claim (and, for the broken variants, its true ε). See [The mechanism "
             "contract](../../privacy/mechanisms.md) for what the auditor expects of your own.", [
                 Section("The interface", _names(
                     mech, "Mechanism", "Dataset", "count_query", "answer_vector",
                     "are_neighbours")),
                 Section("Laplace, geometric, randomized response", _names(
                     mech, "LaplaceMechanism", "GeometricMechanism", "RandomizedResponse",
                     "MIN_GEOMETRIC_RATE", "check_scale")),
                 Section("Selection, sparse vector, histograms", _names(
                     mech, "ExponentialMechanism", "ReportNoisyMax", "NoisyMaxWithValue",
                     "thresholds", "SparseVector", "Histogram", "StableHistogram",
                     "MultiplicativeWeights", "TabulatedMechanism")),
                 Section("Gaussian mechanisms and DP-SGD", _names(
                     mech, "GaussianMechanism", "analytic_gaussian_sigma",
                     "classic_gaussian_sigma", "DiscreteGaussianMechanism",
                     "discrete_gaussian_pmf", "sample_discrete_gaussian", "DPSGDCanary",
                     "dpsgd_accountant", "AccountantClaim", "CANARY")),
                 Section("The StatDP / DP-Sniper benchmark", _names(
                     mech, "dpsniper_suite", "NoisyHist", "NoisyMaxValue", "NumericalSVT",
                     "OneTimeRappor", "Parallel", "PrefixSum", "Rappor", "TruncatedGeometric",
                     "murmur3_32")),
                 Section("Floating point and faulty mechanisms", _names(
                     mech, "FloatNoise", "SnappedLaplace", "TailLeakGaussian", "TailLeakLaplace",
                     "ClampedNoiseLaplace")),
             ]),
        Page("adapters.md", "Adapters, learners and the zoo",
             "Third-party libraries behind the mechanism contract (`ltheory.privacy.adapters`: "
             "diffprivlib, OpenDP, jax-privacy), the private learners of the seed papers "
             "(`ltheory.privacy.learners`) and the violation zoo (`ltheory.privacy.zoo`).", [
                 Section("Adapters", _all("ltheory.privacy.adapters")),
                 Section("Learners", _all("ltheory.privacy.learners")),
                 Section("The violation zoo", _all("ltheory.privacy.zoo")),
             ]),
        Page("testing.md", "Privacy tests and the pytest plugin",
             "Statistical privacy tests for CI, `from ltheory.testing import assert_private`. "
             "See [Privacy tests in CI](../../ci/index.md).", [
                 Section("Tests", _names("ltheory.testing", "assert_private",
                                         "assert_private_search", "DEFAULT_MAX_RUNS",
                                         "min_runs_to_reject", "runs_to_detect",
                                         "check_mechanism")),
                 Section("Reports, errors and warnings", _names(
                     "ltheory.testing", "PrivacyTestReport", "PrivacySearchReport",
                     "PrivacyViolation", "ConformanceReport", "ConformanceError",
                     "BudgetWarning")),
                 Section("The pytest plugin", ["ltheory.testing.pytest_plugin"],
                         options={"ltheory.testing.pytest_plugin": NO_MEMBERS}),
             ]),
        Page("strategies.md", "Strategies",
             "Hypothesis strategies for property tests of learning-theory code "
             "(`ltheory.strategies`).", [
                 Section("Strategies", _all("ltheory.strategies")),
             ]),
        Page("errors.md", "Errors, validation and progress",
             "Everything raised on purpose derives from `ltheory.LtheoryError`; the boundary "
             "checks that raise it are in `ltheory.validation`.", [
                 Section("Errors", _names(
                     "ltheory", "LtheoryError", "InvalidInputError", "ClassFileError",
                     "UnknownFamilyError", "BudgetExceededError", "CertificateError")
                         + _names("ltheory.errors", "SymmetryUnavailable",
                                  "UnrealizableSampleWarning")),
                 Section("Validation", _all("ltheory.validation")),
                 Section("Progress", _names("ltheory.progress", "progress_bar", "report",
                                            "Progress")),
             ]),
    ])


# --------------------------------------------------------------------------- summaries
_AUTOREF = re.compile(r"\[([^\]]+)\]\[[\w.]*\]")
_SENTENCE = re.compile(r"^(.+?[.!?])(?=\s+[A-Z(`]|\s*$)", re.S)


def summary(doc: str | None) -> str:
    """The first sentence of a docstring, on one line, fit for a table cell."""
    if not doc:
        return ""
    para = doc.strip().split("\n\n")[0]
    text = " ".join(line.strip() for line in para.splitlines())
    text = _AUTOREF.sub(r"\1", text)
    m = _SENTENCE.match(text)
    if m:
        text = m.group(1)
    if len(text) > 160:
        text = text[:157].rsplit(" ", 1)[0] + " …"
    if text.count("``") % 2 or (text.count("`") - 2 * text.count("``")) % 2:
        text = text.replace("`", "")               # a code span cut in two
    return text.replace("|", "\\|")


def _griffe_object(path: str):          # noqa: ANN202 (griffe is a docs dependency)
    import griffe

    top = path.split(".")[0]
    loader = _griffe_object.__dict__.setdefault("loaded", {})
    if top not in loader:
        loader[top] = griffe.load(top, search_paths=[str(ROOT)], allow_inspection=False,
                                  docstring_parser=None)
    obj = loader[top]
    rest = path.split(".")[1:]
    return obj[".".join(rest)] if rest else obj


def first_sentence(path: str) -> str:
    obj = _griffe_object(path)
    doc = obj.docstring.value if obj.docstring else None
    return summary(doc)


def render(page: Page) -> str:
    out = [f"# {page.title}", "", page.intro, ""]
    out += ["| Name | Summary |", "| --- | --- |"]
    for sec in page.sections:
        for name in sec.names if sec.summary else ():
            short = name.rsplit(".", 1)[-1]
            out.append(f"| [`{short}`][{name}] | {first_sentence(name)} |")
    out.append("")
    for sec in page.sections:
        out += [f"## {sec.title}", ""]
        if sec.intro:
            out += [sec.intro, ""]
        for name in sec.names:
            out.append(f"::: {name}")
            opts = sec.options.get(name)
            if opts:
                out.append("    options:")
                for k, v in opts.items():
                    val = ("[" + ", ".join(v) + "]") if isinstance(v, list) else \
                        str(v).lower() if isinstance(v, bool) else v
                    out.append(f"      {k}: {val}")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def main() -> None:
    sys.path.insert(0, str(ROOT))
    OUT.mkdir(parents=True, exist_ok=True)
    for page in pages():
        (OUT / page.file).write_text(render(page), encoding="utf-8")
        print("wrote", (OUT / page.file).relative_to(ROOT))


if __name__ == "__main__":
    main()
