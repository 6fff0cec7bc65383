"""Coverage as data: every numbered statement of the five seed papers, with its status.

Each `Statement` of `STATEMENTS` (seed file, number as the seed numbers it, a short
summary) has one status:

- ``checked``: evaluated by the checks named in ``checks`` (ids of
[`proofs_check.all_checks`][proofs_check.all_checks]);
- ``not evaluable``: no finite instance can refute it (an O(·)/Õ(·) without constants, an
  existence or asymptotic statement over all algorithms), with the reason;
- ``qualitative``: no quantitative content to evaluate (an equivalence, a sketch, a restatement
  whose quantitative part is checked elsewhere), with the reason;
- ``not encoded``: quantitative and finitely checkable, not encoded yet — listed with what it
  would take, so that nothing is silently absent.

This module owns the statuses (`STATUSES`) and the seed papers' titles (`PAPERS`);
`proofs_check.report` imports them (and nothing here imports the report).

Definitions and algorithm boxes are not statements and are not listed.  ``ltheory check --list``
prints this table; ``tests/test_proofs_check_coverage.py`` fails when a check is not named by any
statement, a named check does not exist, or (where the seed files are at hand) a numbered
statement of a seed is missing here.
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKED, NOT_EVALUABLE, QUALITATIVE, NOT_ENCODED = ("checked", "not evaluable", "qualitative",
                                                    "not encoded")
STATUSES = (CHECKED, NOT_EVALUABLE, QUALITATIVE, NOT_ENCODED)
#: the seed files' papers, by seed file name
PAPERS = {
    "000_999a11082cbb8294.txt": "Bun & Fang, Privately Learning Decision Lists and a DP Winnow",
    "001_ed369e7bc84e5ca0.txt": "Alon, Beimel, Moran & Stemmer 2020, Closure Properties for "
                                "Private Classification and Online Prediction",
    "002_4e9b9d6d42ab751c.txt": "Lecture notes: Online Learning Implies Private PAC Learning "
                                "(Bun, Livni & Moran; Alon, Moran, Schefler & Yehudayoff 2024)",
    "003_6155d6bc744b4bb1.txt": "Asadi, Carmosino, Jahanara, Rafiey & Salamatian, Private Boosted "
                                "Decision Trees via Smooth Re-Weighting",
    "004_5635bafb29a98a47.txt": "Lecture notes: private PAC learning and multiplicative weights",
}
S000, S001, S002, S003, S004 = ("000_999a11082cbb8294.txt", "001_ed369e7bc84e5ca0.txt",
                                "002_4e9b9d6d42ab751c.txt", "003_6155d6bc744b4bb1.txt",
                                "004_5635bafb29a98a47.txt")
_LOST = ("formula lost in the seed's extraction, not determined by the seed's proof, and the "
         "published text is not in the search corpus (only the abstract and §1 of the arXiv "
         "HTML are)")
_RECON = ("the lost formula as the seed's own appendix proof derives it (the published text is "
          "not in the search corpus); see the check's docstring")


@dataclass(frozen=True)
class Statement:
    source: str
    number: str
    summary: str
    status: str
    checks: tuple[str, ...] = ()
    reason: str = ""


def _c(source: str, number: str, summary: str, *checks: str, note: str = "") -> Statement:
    return Statement(source, number, summary, CHECKED, tuple(checks), note)


def _ne(source: str, number: str, summary: str, reason: str, *checks: str) -> Statement:
    """Not evaluable; ``checks`` are the not-evaluable checks that list it in the report."""
    return Statement(source, number, summary, NOT_EVALUABLE, tuple(checks), reason)


def _q(source: str, number: str, summary: str, reason: str) -> Statement:
    return Statement(source, number, summary, QUALITATIVE, (), reason)


def _open(source: str, number: str, summary: str, reason: str) -> Statement:
    return Statement(source, number, summary, NOT_ENCODED, (), reason)


STATEMENTS: tuple[Statement, ...] = (
    # ------------------------------------------------------------------ 000 Bun & Fang
    _q(S000, "Theorem 1.1", "informal statement of Theorem 3.5",
       "restates Theorem 3.5 informally (see there)"),
    _q(S000, "Theorem 1.2", "informal statement of Theorem 4.5",
       "restates Theorem 4.5 informally (see there)"),
    _c(S000, "Proposition 2.1", "exponential mechanism: ε-DP and utility tail",
       "bunfang.prop2.1", "privacy.claims.bunfang"),
    _c(S000, "Proposition 3.3", "a consistent decision list remains at every iteration",
       "bunfang.prop3.3"),
    _c(S000, "Theorem 3.5", "private PAC learner for F-decision lists (privacy and utility)",
       "bunfang.thm3.5", "privacy.claims.bunfang",
       note="privacy checked; utility is an Õ(·) bound (bunfang.thm3.5, not evaluable)"),
    _c(S000, "Lemma 4.2", "ConfidentWinnow's number of updates under a margin",
       "bunfang.lemma4.2", note=_RECON + " (Appendix B: ln d/(ηρ(1−κ) − η²/2))"),
    _ne(S000, "Lemma 4.3", "the sparse vector technique (Dwork & Roth 2014)",
        "its accuracy threshold is stated with unspecified constants (O(·)) in the published "
        "form; the privacy of the library's sparse vector is audited under ltheory.privacy"),
    _c(S000, "Theorem 4.4", "DP-Winnow is differentially private", "privacy.claims.bunfang",
       note="its parameter conditions were lost; checked as the learner's claim composed as "
            "Appendix C's proof does (sequential composition of AboveThreshold and "
            "exponential-mechanism draws), on the learner's exact output distribution"),
    _ne(S000, "Theorem 4.5", "DP-Winnow's mistake bound",
        "the mistake bound and its parameter settings: " + _LOST + "; the informal "
        "Theorem 1.2 states only polylog(d)/poly(ρ) orders, and the proof composes Lemma 4.7 "
        "with the O(·) accuracy of the sparse vector technique (Lemma 4.3): no constant to "
        "evaluate"),
    _c(S000, "Lemma 4.6", "shadow and approximate weight vectors agree w.h.p.",
       "bunfang.lemma4.6", note=_RECON + " (Appendix D: N ≥ 2 ln(1/β)/(κρ)², Hoeffding)"),
    _ne(S000, "Lemma 4.7", "DP-Winnow performs fewer than U updates w.h.p.",
        "its update count is Lemma 4.2's and its failure probability Lemma 4.6's, union-bounded "
        "over the T rounds (both checked as reconstructed: bunfang.lemma4.2, bunfang.lemma4.6); "
        "the composed statement's own parameters (N, the split of β): " + _LOST),
    _c(S000, "Lemma 4.10", "monotone 1-decision lists as margin halfspaces",
       "bunfang.lemma4.10",
       note="the margin 1/(ℓ+1)^{r+1} checked is a reconstruction (formula lost)"),
    _ne(S000, "Theorem 4.11", "online private learning of monotone 1-decision lists",
        "its mistake bound is Theorem 4.5's (not evaluable) at Lemma 4.10's margin (checked, "
        "bunfang.lemma4.10); the bound itself: " + _LOST),
    _ne(S000, "Theorem 4.12", "online private learning of k-decision lists",
        "as Theorem 4.11 over a feature space F (Theorem 4.5's bound, not evaluable); the bound "
        "itself: " + _LOST),
    _q(S000, "Lemma A.1", "the exponential mechanism's guarantee (used for Theorem 3.5)",
       "the same statement as Proposition 2.1 for the covering algorithm's score family; "
       "checked there"),
    _c(S000, "Lemma A.3", "the 'no heads within the first steps' process: P[Z > q] ≤ e^{−q}",
       "bunfang.lemmaA.3",
       note="the lost formula as in the cited source (Gupta et al. 2010); exact for constant "
            "and grid-adaptive adversaries"),
    _ne(S000, "Lemma A.4", "empirical error of the private decision-list learner",
        "its error count and conditions: " + _LOST + "; its proof is Proposition "
        "2.1's tail (checked, bunfang.prop2.1) union-bounded over the iterations"),
    _ne(S000, "Theorem A.6", "VC generalization bound (Blumer et al. 1989)",
        "the published constants were lost in extraction; the same bound with explicit "
        "constants is seed 001's Theorem 3.8 (abms20.thm3.8)"),
    _ne(S000, "Corollary A.8", "DP PAC learner for k-decision lists",
        "sample complexity Õ(·)", "bunfang.thm3.5"),
    _ne(S000, "Proposition A.9", "the number of conjunctions of exactly k literals is bounded",
        "its bound: " + _LOST + "; the exact count C(n, k)·2^k is elementary and the "
        "bound only feeds Corollary A.8's Õ(·) sample complexity"),
    _ne(S000, "§4.4", "Ω(log T) mistakes for private online learners of point functions",
        "a lower bound over all private online learners", "bunfang.sec4.4"),
    # ------------------------------------------------------------------ 001 ABMS 2020
    _c(S001, "§1 example", "affine subspaces of F_p^n of dimension ≤ d have Ldim d",
       "abms20.sec1.affine"),
    _c(S001, "Theorem 2.1", "Ldim(G(H1…Hk)) ≤ Õ(2^{2k}k²d)", "abms20.thm2.1",
       "extremal.maj3", note="Õ(·): measured only"),
    _c(S001, "Theorem 2.2", "T(Hi) < t ⇒ T(G(H1…Hk)) < 2^{4k4^k t}; a lower bound construction",
       "abms20.thm2.2", "abms20.thm2.2.lower", "extremal.thm22"),
    _ne(S001, "Theorem 2.3", "closure of private learnability (informal)",
        "informal statement of Theorem 7.1 with Õ(·) sample complexity"),
    _c(S001, "Theorem 2.4", "private learning implies agnostic private learning",
       "privacy.claims.abms20",
       note="the privacy constant (ε'+3 against the seed's ε+3) is checked; the accuracy part "
            "has O(·) constants"),
    _c(S001, "Theorem 3.2", "Shelah–Hodges: T ≥ ⌊log2 Ldim⌋ and Ldim ≥ ⌊log2 T⌋",
       "abms20.thm3.2"),
    _c(S001, "Theorem 3.8", "VC generalization bound with explicit constants", "abms20.thm3.8"),
    _ne(S001, "Theorem 3.9", "agnostic VC bound", "constants unspecified", "abms20.thm3.9"),
    _c(S001, "Lemma 3.12", "sub-sampling with replacement keeps (ε, δ)-DP", "abms20.lemma3.12",
       note="false for large ε (a finding); the finding of privacy.claims.abms20 comes from it"),
    _c(S001, "Proposition 3.13", "the exponential mechanism: ε-DP and utility |H|e^{−εΔm/2}",
       "abms20.prop3.13", "abms20.prop3.13.utility"),
    _ne(S001, "Theorem 3.14", "DP generalization (multiplicative)",
        "constants unspecified", "abms20.thm3.14"),
    _c(S001, "Observation 4.1", "T(H1 ∪ H2) ≤ T(H1) + T(H2), tight", "abms20.obs4.1"),
    _c(S001, "Proposition 4.2", "Ldim(H1 ∪ H2) ≤ Ldim H1 + Ldim H2 + 1, tight",
       "abms20.prop4.2", "extremal.union"),
    _c(S001, "Proposition 4.3", "Ldim of a union of k classes ≤ 3d + 3 log2 k",
       "abms20.prop4.3", "abms20.remark4.3", "extremal.union_k"),
    _c(S001, "§4.2.2", "MAJ_k bound (4), the gates of (5), equation (6)",
       "abms20.sec4.2.2.maj", "abms20.sec4.2.2.gates", "abms20.eq6"),
    _c(S001, "§2.1.1", "Dudley's VC composition bound and its simplification",
       "dudley.vc_composition", "abms20.sec2.1.1.simplified", "compose.facts"),
    _c(S001, "Example 5.2", "the error-count score has matched sensitivity ≤ 1",
       "abms20.example5.2"),
    _c(S001, "Lemma 5.3", "relabelling by a matched-sensitivity score keeps (ε+3, 4eδ)-DP",
       "abms20.lemma5.3", "privacy.claims.abms20",
       note="the 4eδ part is not exercised (pure A, δ = 0)"),
    _c(S001, "Claim 5.4", "A_Relabel's exponential mechanism: the chain of bounds",
       "abms20.claim5.4"),
    _ne(S001, "Lemma 5.5", "the relabelled sample is accurate",
        "accuracy with O(·) constants (see the check)",
        "abms20.lemma5.5"),
    _c(S001, "Theorem 6.1", "Theorem 2.4 restated (A_PrivateAgnostic)", "privacy.claims.abms20",
       note="privacy; accuracy has O(·) constants"),
    _ne(S001, "Theorem 7.1", "closure theorem for private learning",
        "sample complexity Õ(·) with unspecified constants"),
    _c(S001, "Lemma 7.2", "ClosureLearn is (ε, O(δ))-DP for every ε < 1", "abms20.lemma7.2",
       "privacy.claims.abms20",
       note="a typo-level finding: false as literally stated (δ = 0) under both readings of "
            "the seed, both computed from ClosureLearn's exact output distributions on one "
            "pair — ε = 0.2555 with the relabelling scored on S_i = D_i ∘ T_i (Eq. (17), "
            "score_on=\"part\", the default), ε = 0.0586 scored on the database D_i "
            "(Algorithm 2 step 3, score_on=\"database\") — while its proof ends with "
            "(O(1), O(δ))"),
    _ne(S001, "Lemma 7.3", "ClosureLearn is accurate",
        "accuracy with O(·) constants (see the check)", "abms20.lemma7.3"),
    _ne(S001, "Remark 7.4", "m_i(α/k, β/k, 1, δ) = Ω(k·VC(H_i)/α); sample complexity Õ(·)",
        "an Ω(·) lower bound and an Õ(·) sample complexity, no constants; its \"accurate "
        "learning algorithm for the class H_1\" is a typo for H_i (the sentence ranges over i "
        "and the bound names VC(H_i))"),
    _c(S001, "Sauer–Shelah–Perles", "|H| ≤ Σ_{i≤VC} C(n, i) (used in §5, §7)", "ssp.lemma"),
    # ------------------------------------------------------------------ 002 lecture 7
    _ne(S002, "Theorem 1", "Ldim d ⇒ DP PAC learnable with n = (2^{Õ(2^d)} + log 1/βδ)/(αε)",
        "Õ(·) in the exponent: no constant to evaluate"),
    _q(S002, "Theorem 2", "online learnable iff DP PAC learnable (Alon et al. 2022)",
       "an equivalence without quantities"),
    _ne(S002, "Theorem 3", "a globally stable algorithm with n = poly(2^{2^d}/α)",
        "n is poly(·) with no stated degree"),
    _c(S002, "Algorithm G", "Pr[G(S) = f] > 2^{-2^{d+2}}/(d+1) with explicit n and N",
       "lecture7.algorithm_g",
       note="exact at d = 1 on every class of Ldim 1 on 3 points; the minimum met is 1/2"),
    _c(S002, "Theorem 4", "stable histograms: privacy (and an O(·) sample bound)",
       "privacy.claims.lecture7", note="privacy checked; the sample bound is O(·)"),
    _c(S002, "Theorem 5", "the clique dichotomy of Alon, Moran, Schefler & Yehudayoff 2024",
       "amsy24.sandwich", "amsy24.tree_clique", "amsy24.dichotomy"),
    # ------------------------------------------------------------------ 003 Asadi et al.
    _c(S003, "Theorem 1", "sequential (advanced) composition", "asadi.thm1"),
    _c(S003, "Theorem 2", "parallel composition (McSherry 2010)", "asadi.thm2",
       "asadi.thm2.substitution",
       note="parallel composition itself is true (exactly max ε_i for add/remove neighbours, "
            "McSherry's setting); what fails is Theorem 2 under the paper's own same-size "
            "neighbours, which its proofs use (a record moved between parts costs ε_i + ε_j; "
            "a finding)"),
    _c(S003, "Theorem 3", "WEM(η, q) is (2ηΔ_ζ, 0, ζ)-DP, with its utility tail",
       "asadi.thm3", "asadi.thm3.utility", "privacy.claims.asadi"),
    _c(S003, "Theorem 4", "WRNM is (2ηΔ_ζ, 0, ζ)-DP", "asadi.thm4"),
    _c(S003, "Theorem 5", "privacy and utility of LazyBB", "asadi.thm5", "asadi.thm1"),
    _c(S003, "Theorem 6", "DP-1R is a (4ηζ, 0, ζ)-DP weak learner", "privacy.claims.asadi"),
    _c(S003, "Theorem 7", "LazyBB with DP-1R at η = εκn/(4τ) is ε-DP", "privacy.claims.asadi"),
    _c(S003, "Observation 8", "|err(S, μ, T) − err(S', μ', T)| ≤ 2·d(μ, μ') (robust sensitivity "
       "2ζ of err)", "asadi.obs8",
       note="false as literally stated (n = 1, μ = μ', one label flipped: |Δerr| = 1 > 0); the "
            "valid bound adds max(μ(i), μ'(i)) (a finding; unnumbered '{obs}' in the seed's "
            "extraction)"),
    _c(S003, "Theorem 8", "DP-1R's advantage γ − ln(|H|/β)/η", "asadi.thm8"),
    _c(S003, "Theorem 9", "DP-TopDown is (16tηζ, 0, ζ)-DP", "privacy.claims.asadi"),
    _c(S003, "Theorem 10", "LazyBB with DP-TopDown at η = εκn/(16τt) is ε-DP",
       "privacy.claims.asadi"),
    _c(S003, "Theorem 11", "Algorithm 3 (DP-1R) is (4ηζ, 0, ζ)-DP", "privacy.claims.asadi"),
    _c(S003, "Theorem 12", "DP-1R's error ≤ err(h_opt) + ln(|H|/β)/η w.p. 1 − β",
       "asadi.thm12"),
    _c(S003, "Theorem 13", "Theorem 8 restated for Algorithm 3", "asadi.thm8"),
    _c(S003, "Lemma 14", "robust sensitivity of w·q(1−q) is ≤ 5/4·ζ", "asadi.lemma14",
       note="holds; the supremum over all n is ζ"),
    _c(S003, "Lemma 15", "robust sensitivity of the Gini score ≤ 4ζ", "asadi.lemma15"),
    _c(S003, "Remark 16", "approximate-DP composition for DP-TopDown", "asadi.remark16"),
    _c(S003, "§5 example", "κ = 1/2, γ = 1/20: Theorem 5 needs ≈ 4,000 rounds",
       "asadi.sec5.rounds"),
    # ------------------------------------------------------------------ 004 lecture notes
    _c(S004, "Theorem 1", "consistent learners: n = 2 ln|C|/α samples suffice", "pac.thm1"),
    _c(S004, "§1 generic private learner", "the exponential mechanism's failure bound",
       "pac.em_sample_bound", "privacy.claims.pac"),
    _c(S004, "Theorem 2", "MW regret ≤ αT + ln K/α for α ≤ 1.79", "pmw.thm2", "pmw.thm2.exp"),
    _c(S004, "§2 approximate privacy", "MW is (12Tα², e^{−Tα})-DP", "pmw.claim"),
    _ne(S004, "Theorem 3", "MW is (ε, e^{−Ω(√(Tε))})-DP with O(·) regret",
        "Ω(·) and O(·) hide the constants; the explicit claim it rests on is pmw.claim",
        "pmw.thm3"),
)


def by_source() -> dict[str, list[Statement]]:
    out: dict[str, list[Statement]] = {}
    for s in STATEMENTS:
        out.setdefault(s.source, []).append(s)
    return out


def counts() -> dict[str, dict[str, int]]:
    """Statements per seed by status."""
    return {src: {st: sum(s.status == st for s in ss) for st in STATUSES}
            for src, ss in by_source().items()}


def listing() -> str:
    """The coverage table printed by ``ltheory check --list``."""
    lines = ["# Seed statements and their status", ""]
    for src, c in counts().items():
        lines.append(f"- `{src}` ({PAPERS.get(src, src)}): " + ", ".join(
            f"{c[st]} {st}" for st in STATUSES))
    for src, ss in by_source().items():
        lines += ["", f"## {PAPERS.get(src, src)} (`{src}`)", "",
                  "| statement | summary | status | checks / reason |", "|---|---|---|---|"]
        for s in ss:
            what = ", ".join(f"`{c}`" for c in s.checks) if s.checks else ""
            why = s.reason.replace("|", "\\|")
            detail = f"{what} — {why}" if what and why else (what or why)
            lines.append(f"| {s.number} | {s.summary.replace('|', chr(92) + '|')} | "
                         f"{s.status} | {detail} |")
    return "\n".join(lines) + "\n"


def to_json() -> dict:
    """``{"counts": {seed: {status: n}}, "statements": [...]}``."""
    return {"counts": counts(),
            "statements": [{"source": s.source, "number": s.number, "summary": s.summary,
                            "status": s.status, "checks": list(s.checks), "reason": s.reason}
                           for s in STATEMENTS]}
