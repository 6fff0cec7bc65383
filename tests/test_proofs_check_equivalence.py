"""The equivalence proofs of the mutation harness (issue 41): every mutant declared equivalent
carries a :class:`~proofs_check.base.Proof` whose numerical steps a test recomputes over the
proof's *whole* range — interval arithmetic (``mpmath.iv``), monotonicity plus endpoints, or a
sympy identity — or is marked "numerically supported (grid)" with its grid stated.  The tests
named by the proofs' ``verified_by`` are here (and in ``test_proofs_check_mutation.py``)."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
import sympy

from proofs_check import all_checks
from proofs_check.base import GRID, PROVED, Proof
from proofs_check.mutation import STATUSES, mutants

ROOT = Path(__file__).resolve().parent.parent


def _check(cid: str):
    return next(c for c in all_checks() if c.id == cid)


def _declarations() -> list[tuple[str, str, Proof]]:
    return [(c.id, key, proof) for c in all_checks() for spec in c.mutable
            for key, proof in spec.equivalent.items()]


def _declared(cid: str) -> list:
    """The mutants of ``cid`` declared true (equivalent or grid-supported)."""
    return [m for m in mutants(_check(cid))
            if m.spec.equivalent.get(m.key, m.spec.equivalent.get("*")) is not None]


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


def test_every_equivalence_names_its_range_and_an_existing_test() -> None:
    """Each declaration is a Proof with a range and a ``verified_by`` test that exists; a grid
    status states its grid; no declaration is a bare string."""
    decls = _declarations()
    assert len(decls) >= 15
    for cid, key, proof in decls:
        assert isinstance(proof, Proof), (cid, key)
        assert len(proof.text) > 40 and len(proof.range) > 5, (cid, key)
        path, _, name = proof.verified_by.partition("::")
        assert name in _tests_in(ROOT / path), (cid, key, proof.verified_by)
        assert proof.status in (PROVED, GRID) and proof.status in STATUSES
        if proof.status == GRID:
            assert len(proof.grid) > 20, (cid, key)


def test_equivalent_and_grid_counts_per_mutant() -> None:
    """The per-mutant split the harness reports: every one of the 37 declarations is verified
    over its range — the four reviewed proofs (Theorem 3.8, Theorem 5, the asadi and bunfang
    claims), the exponential mechanism's sup (pac.em_sample_bound, five declarations) and
    Claim 5.4's Sauer–Shelah ratio among them; none rests on a grid."""
    status: dict[str, list[str]] = {PROVED: [], GRID: []}
    for c in all_checks():
        for m in mutants(c):
            s = m.spec.equivalent
            proof = s.get(m.key, s.get("*"))
            if proof is not None:
                status[proof.status].append(c.id)
    assert {"abms20.thm3.8", "asadi.thm5", "privacy.claims.asadi",
            "privacy.claims.bunfang", "pac.em_sample_bound",
            "abms20.claim5.4"} <= set(status[PROVED])
    assert status[GRID] == []
    assert status[PROVED].count("abms20.thm3.8") == 3
    assert status[PROVED].count("pac.em_sample_bound") == 5
    assert status[PROVED].count("abms20.claim5.4") == 5
    assert len(status[PROVED]) == 37


# ------------------------------------------------------------------ ABMS20 Theorem 3.8

def test_thm38_equivalent_mutants_by_the_corrected_chain() -> None:
    """abms20.thm3.8's three 10% mutants, by the corrected chain (Π_H(2m)², c quantified) over
    the whole range α ∈ (0, 1], β ∈ (0, 1), d ≥ 0: each of the chain's steps is an interval
    above 0 (monotonicity and endpoint in interval arithmetic, the tail identity in sympy).
    The chain's own threshold is 58.7414…: 58.75 passes, 58.74 and the old 36 do not."""
    import proofs_check.abms2020_learning as al

    assert al.thm38_tail_identity()
    wanted = {"the whole bound moved 10%": (72, 16, 2), "constant 16 moved 10%": (80, "14.4", 2),
              "constant 2 moved 10%": (80, 16, "1.8")}
    ms = {m.key: m for m in mutants(_check("abms20.thm3.8"))}
    a, b, vc = (sympy.Symbol(s, positive=True) for s in ("alpha", "beta", "VC"))
    for key, (C, c1, c2) in wanted.items():
        m = ms[key]
        assert m.spec.equivalent[key] is al.THM38_PROOF
        expected = sympy.Rational(C) / a * (vc * sympy.log(sympy.Rational(str(c1)) / a)
                                            + sympy.log(sympy.Rational(str(c2)) / b))
        assert sympy.simplify(m.expr - expected) == 0, key
        chain = al.thm38_chain(C, c1, c2)
        assert chain["ok"], (key, chain)
    assert al.thm38_chain(al.THM38_PROVED_CONSTANT, 16, 2)["ok"]
    assert not al.thm38_chain("58.74", 16, 2)["ok"] and not al.thm38_chain(36, 16, 2)["ok"]
    assert al.thm38_chain_constant() == pytest.approx(58.7414, abs=1e-4)
    assert "58.75" in al.THM38_PROOF.text and "36 suffices" in al.THM38_PROOF.text


def test_thm38_chain_bound_against_the_failure_bound() -> None:
    """The chain's reductions are consequences of thm38_failure_bound: at the mutants' sample
    sizes the bound is ≤ β on a sample of the range, and at C = 36 (the old constant) it is
    above β at α = 1 with d large — the gap the review found."""
    import proofs_check.abms2020_learning as al

    def size(C: float, c1: float, c2: float, alpha: float, beta: float, d: int) -> float:
        return C / alpha * (d * math.log(c1 / alpha) + math.log(c2 / beta))

    for C, c1, c2 in ((72, 16, 2), (80, 14.4, 2), (80, 16, 1.8)):
        for alpha in (1.0, 0.3, 1e-3):
            for beta in (0.999, 1e-3, 1e-40):
                for d in (0, 1, 7, 10 ** 5):
                    m = math.ceil(size(C, c1, c2, alpha, beta, d))
                    assert al.thm38_failure_bound(m, alpha, d) <= beta
    assert al.thm38_failure_bound(size(36, 16, 2, 1.0, 0.5, 10 ** 6), 1.0, 10 ** 6) > 0.5


# ------------------------------------------------------------------ Bun & Fang claims

def test_bunfang_claims_bound_over_the_whole_range() -> None:
    """cover_em_epsilon ≤ 0.2892·ε₁ on ε₁ ∈ (0, 1], δ₁ ∈ (0, 1): interval branch-and-bound at
    ε₁ = 1 over L = ln(1/δ₁) ∈ [0, 60] and the analytic tail; the supremum 0.28916 (δ₁ ≈
    0.7265) is reached to 1e-5, so 0.2891 cannot be verified; the old step (ε₁/4)e^{ε′} ≤ 0.33ε₁
    is false at ε₁ = 1, δ₁ = 0.5; the ratio increases in ε₁ (sampled); and the learner refuses
    ε₁ > 1, where the bound exceeds ε₁."""
    import proofs_check.privacy_claims as pc
    from ltheory.errors import InvalidInputError
    from ltheory.privacy.learners.decision_lists import PrivateDecisionListLearner
    from proofs_check.verified import NotVerified

    r = pc.cover_em_fraction_verified()
    assert r["branch_and_bound"]["certified_sup"] < pc.COVER_EM_FRACTION
    assert r["tail_bound"] < pc.COVER_EM_FRACTION
    with pytest.raises(NotVerified):
        pc.cover_em_fraction_verified(0.2891)
    best = max(pc.cover_em_epsilon(1.0, d) for d in np.linspace(0.72, 0.735, 301))
    assert 0.28915 < best <= pc.COVER_EM_FRACTION
    step = 1 / (2 * math.log(math.e / 0.5))
    assert 0.25 * math.exp(step) > 0.33                      # the old, false step
    for delta1 in (1e-12, 1e-3, 0.3, 0.7265, 0.99):
        ratios = [pc.cover_em_epsilon(e, delta1) / e for e in np.linspace(1e-4, 1, 200)]
        assert all(x <= y + 1e-15 for x, y in zip(ratios, ratios[1:], strict=False))
    assert pc.cover_em_epsilon(50.0, 1e-2) > 50.0
    with pytest.raises(InvalidInputError):
        PrivateDecisionListLearner(2, 2.5, 0.1)
    text = pc.BUNFANG_CLAIMS_PROOF.text
    assert "0.2892" in text and "0.33ε₁ for" not in text


# ------------------------------------------------------------------ the exponential mechanism

def test_em_failure_bound_mutants_over_the_whole_range() -> None:
    """pac.em_sample_bound: for the bound itself and each declared mutant B = |C|(k1 e^{−u1εαn}
    + k2 e^{−u2α²n}), em_ratio_verified proves min(1/2, q)/(B/|C|) < EM_PROVED over α ∈ (0, 1),
    ε ∈ (0, ∞), n ≥ 0 (interval branch-and-bound on (α, t) ∈ [0, 1]², t = 1 − e^{−ε/2}, with
    n in closed form), so the failure stays below B.  Not vacuous: at the located supremum
    (real n with q = 1/2) the ratio's interval lies above a constant just below it, and the
    verifier fails there; the killed mutants (an exponent doubled) are not verified below 1,
    and the dropped-term mutants are not of the form.  EM_SAMPLES's declaration rests on the
    bound itself (R < 0.709 < 1 at every n)."""
    import proofs_check.lecture_pac as pac
    from proofs_check.verified import NotVerified

    declared = {m.key: m for m in _declared("pac.em_sample_bound")
                if m.spec.attr == "EM_FAILURE_BOUND"}
    assert set(declared) == set(pac.EM_PROVED) - {""}
    forms = {"": pac.em_bound_form(pac.EM_FAILURE_BOUND)}
    forms.update({k: pac.em_bound_form(m.expr) for k, m in declared.items()})
    assert forms[""] == (1, sympy.Rational(1, 4), 1, sympy.Rational(1, 2))
    for key, form in forms.items():
        proved = float(pac.EM_PROVED[key])
        r = pac.em_ratio_verified(form, proved)
        assert r["certified_sup"] < proved < 1
        num, alpha, eps = pac.EM_SUPREMA[key]
        at = pac.em_ratio_at(alpha, eps, None, form)
        just_below = num - 1e-4
        assert float(at.a) > just_below and proved - float(at.b) < 2e-3, (key, at)
        with pytest.raises(NotVerified):
            pac.em_ratio_verified(form, just_below, max_pieces=3000)
        if key:
            proof = declared[key].spec.equivalent[key]
            assert proof.status == PROVED and f"R < {pac.EM_PROVED[key]}" in proof.text
            assert f"{num:.5f}" in proof.text
    # the ratio at integer n stays below the real-n supremum (the relaxation is an upper bound)
    for n in range(60, 90):
        assert float(pac.em_ratio_at(0.5016, 0.03926, n, forms[""]).b) < pac.EM_SUPREMA[""][0]
    for m in mutants(_check("pac.em_sample_bound")):
        if m.spec.attr != "EM_FAILURE_BOUND" or m.key in declared:
            continue
        try:
            form = pac.em_bound_form(m.expr)
        except ValueError:
            assert "dropped" in m.key
            continue
        with pytest.raises(NotVerified):
            pac.em_ratio_verified(form, 1.0, max_pieces=3000)
    spec = next(s for s in _check("pac.em_sample_bound").mutable if s.attr == "EM_SAMPLES")
    assert spec.equivalent["*"].status == PROVED and "0.709" in spec.equivalent["*"].text


# ------------------------------------------------------------------ Asadi et al.

def test_asadi_claims_step_ii_the_finer_argument() -> None:
    """ASADI_CLAIMS_PROOF step (ii), written out: W's gradient lies in [0, 4]² (sympy), and on
    random LazyBB rounds (root and depth-1 leaves, the library's own Gini scores) the three
    steps move two candidates apart by ≤ 4p(i*) (remove), ≤ 4s (shift) and ≤ 4p′(i*) (add),
    with s = |p′(i*) − p(i*)| exactly, so the whole move is ≤ 8m; the remove step comes
    within 2% of 4p(i*) (the bound of a step is attained, not the 8p a per-candidate count
    would give)."""
    import proofs_check.asadi_sensitivity as s
    import proofs_check.privacy_claims as pc

    assert s.gini_gradient_bounds()
    rng = np.random.default_rng(41)
    tight_remove = 0.0
    for _ in range(600):
        n, d = int(rng.integers(2, 16)), int(rng.integers(1, 4))
        kappa, lam, t = float(rng.uniform(0.05, 1.0)), float(rng.uniform(0.01, 3)), int(
            rng.integers(0, 8))
        X, y = rng.integers(0, 2, (n, d)), rng.integers(0, 2, n)
        X2, y2 = X.copy(), y.copy()
        X2[0], y2[0] = rng.integers(0, 2, d), rng.integers(0, 2)
        sig = (2 * rng.binomial(t, 0.5, n) - t).astype(float)
        p, p2 = s.lazybb_measures(sig, float(2 * rng.binomial(t, 0.5) - t), kappa, lam)
        leaves = [()] if d == 1 else [((0, 0),), ((0, 1),)]
        r = s.gini_steps(X, y, X2, y2, p, p2, leaves)
        eps = 1e-12
        assert r["s"] == pytest.approx(abs(r["p"] - r["p2"]), abs=1e-12)
        assert r["remove"] <= 4 * r["p"] + eps and r["add"] <= 4 * r["p2"] + eps
        assert r["shift"] <= 4 * r["s"] + eps
        assert r["total"] <= r["remove"] + r["shift"] + r["add"] + eps <= 8 * r["m"] + 2 * eps
        assert r["m"] <= 1 / (kappa * n) + 1e-12
        if r["p"] > 0:
            tight_remove = max(tight_remove, r["remove"] / (4 * r["p"]))
    assert tight_remove > 0.98
    assert "Remove" in pc.ASADI_CLAIMS_PROOF.text and "parent term cancels" in (
        pc.ASADI_CLAIMS_PROOF.text)
    assert 12 / 16 == 0.75 < 0.9                              # DP-TopDown's fraction


def test_thm5_constants_over_the_whole_range() -> None:
    """asadi.thm5: the proved round counts' constants over γ ∈ (0, 1/2] — 4.5997 (per margin,
    worst at γ = 1/2) and 32/3 (count reading, the limit γ → 0), both enclosed by intervals
    below the mutant's 14.4; sampled thm5_proved_rounds agree and stay below them."""
    import proofs_check.asadi2023 as a

    r = a.thm5_constants()
    assert r["per_margin_denominator"].a > 0 and r["count_monotone"]
    assert float(r["per_margin_sup"].b) < 4.61 and float(r["count_sup"].b) < 10.67 < 14.4
    for gamma in np.geomspace(1e-4, 0.5, 60):
        unit = math.log(2) / gamma ** 2
        assert a.thm5_proved_rounds(0.5, gamma) <= float(r["per_margin_sup"].b) * unit * (
            1 + 1e-12)
        assert a.thm5_proved_rounds(0.5, gamma, False) <= float(r["count_sup"].b) * unit * (
            1 + 1e-12)
    assert a.THM5_PROOF.status == PROVED


# ------------------------------------------------------------------ the other proofs

def test_prop43_mutants_dominate_the_weighted_majority_bound() -> None:
    """abms20.prop4.3 / extremal.union_k: every mutant is a·d + b·log2 k with a, b ≥ 2.64, and
    ln 2/ln(4/3) = 2.4094 < 2.64 in interval arithmetic: each mutant is ≥ the proved bound
    2.41(d + log2 k) for every d ≥ 0, k ≥ 1 (coefficientwise)."""
    from mpmath import iv

    d, k = sympy.symbols("d k", positive=True)
    proved = iv.log(2) / iv.log(iv.mpf(4) / 3)
    assert float(proved.b) < 2.41
    for cid in ("abms20.prop4.3", "extremal.union_k"):
        ms = _declared(cid)
        assert len(ms) == 4, cid
        for m in ms:
            expr = sympy.expand(sympy.expand_log(m.expr.subs(
                {s: {"d": d, "k": k}[str(s)] for s in m.expr.free_symbols}), force=True))
            a = expr.coeff(d)
            b = sympy.simplify((expr - a * d) / sympy.log(k)) * sympy.log(2)
            assert a.is_number and b.is_number, (cid, m.key, expr)
            assert float(a) >= 2.6 > float(proved.b) and float(b) >= 2.6, (cid, m.key, a, b)


def test_thm22_mutants_are_above_the_ladder_bound() -> None:
    """abms20.thm2.2.lower: the proof gives T(H) ≤ 2k′ − 2 = 4⌊t/5⌋; each equivalent mutant
    minus 4⌊t/5⌋ is a non-negative constant (sympy), so it holds for every t."""
    t = sympy.Symbol("t", integer=True, nonnegative=True)
    ms = _declared("abms20.thm2.2.lower")
    assert len(ms) == 2
    for m in ms:
        (sym,) = m.expr.free_symbols
        gap = sympy.simplify(m.expr.subs(sym, t) - 4 * sympy.floor(t / 5))
        assert gap.is_number and gap >= 0, (m.key, gap)


def test_claim54_half_mutants_by_the_chain() -> None:
    """abms20.claim5.4 (|D| ≥ |S|/2 form): the proof's step h(x, L) = 0.8x + 3.5L + ln(1/0.09)
    − ln(4x + 10L) ≥ 0 on x ≥ 0, L ≥ ln(20e) by monotonicity (both partial derivatives'
    lower bounds are intervals above 0) and the endpoint; each mutant's |D| is ≥ the proof's
    D′ = 0.9·(the bound), coefficientwise (ln(18e/α) ≥ 0.9 ln(20e/α) as L ≥ 1.05)."""
    from mpmath import iv

    L0 = iv.log(20 * iv.e)
    assert (0.8 - 4 / (10 * L0)).a > 0 and (3.5 - 1 / L0).a > 0
    h0 = 3.5 * L0 + iv.log(1 / iv.mpf("0.09")) - iv.log(10 * L0)
    assert h0.a > 0
    # 2eD′/VC = 2e·0.9(4x + 10L)/α and 1/α = e^L/(20e): the factor 2e·0.9/(20e) is 9/100
    assert 2 * sympy.E * sympy.Rational(9, 10) / (20 * sympy.E) == sympy.Rational(9, 100)
    assert (0.1 * L0 - iv.log(iv.mpf(20) / 18)).a > 0
    ms = [m for m in _declared("abms20.claim5.4") if m.spec.attr == "CLAIM54_D_HALF"]
    assert len(ms) == 4
    import proofs_check.abms2020_learning as al

    for m in ms:
        assert m.spec.equivalent[m.key].status == PROVED
        for alpha in (1.0, 0.3, 1e-4):
            for beta in (0.9, 1e-9):
                for vc in (0, 1, 50):
                    at = {"alpha": alpha, "beta": beta, "VC": vc}
                    sub = {s: at[str(s)] for s in m.expr.free_symbols}
                    mine = float(m.expr.subs(sub))
                    full = float(al.CLAIM54_D_HALF.subs(
                        {s: at[str(s)] for s in al.CLAIM54_D_HALF.free_symbols}))
                    assert mine >= 0.9 * full * (1 - 1e-12), (m.key, at)


def test_claim54_ssp_ratio_over_every_size() -> None:
    """abms20.claim5.4's Sauer–Shelah mutant (0.9(e|S|/VC)^VC), proved for every 1 ≤ d ≤ S:
    claim54_ssp_ratio_verified bounds Σ_{i≤d} C(S, i)/(eS/d)^d by 2/e (d = 1) and by 0.685
    (d ≥ 2, three cases in S/d) in interval arithmetic; the supremum 2/e is attained at S = d = 1,
    so 0.7358 verifies and 0.7357 fails.  The case bounds are recomputed in exact integers on
    S ≤ 200, d ≤ 40 (each ratio below its case's bound, the largest at S = d = 1)."""
    from fractions import Fraction

    import proofs_check.abms2020_learning as al
    from proofs_check.verified import NotVerified

    steps = al.claim54_ssp_ratio_verified("0.9")
    assert al.claim54_ssp_ratio_verified("0.7358") == steps
    with pytest.raises(NotVerified):
        al.claim54_ssp_ratio_verified("0.7357")
    assert steps["d = 1"] == pytest.approx(2 / math.e)
    assert max(v for k, v in steps.items() if k != "d = 1") < 0.686
    worst, where = 0.0, None
    for S in range(1, 201):
        acc, binom = 1, 1
        for d in range(1, min(S, 40) + 1):
            binom = binom * (S - d + 1) // d
            acc += binom
            ratio = float(Fraction(acc * d ** d, S ** d)) / math.e ** d
            case = ("d = 1" if d == 1 else "d ≥ 2, S ≤ 2d" if S <= 2 * d else
                    "d ≥ 2, 2d ≤ S ≤ 3d" if S <= 3 * d else "d ≥ 2, S ≥ 3d")
            assert ratio <= steps[case] * (1 + 1e-12), (S, d)
            if ratio > worst:
                worst, where = ratio, (S, d)
    assert where == (1, 1) and worst == pytest.approx(2 / math.e)
    spec = next(s for s in _check("abms20.claim5.4").mutable if s.attr == "CLAIM54_SSP")
    proof = spec.equivalent["the whole bound moved 10%"]
    assert proof.status == PROVED and "2/e" in proof.text


def test_lemma410_chain_over_every_length() -> None:
    """bunfang.lemma4.10: f(ℓ, r) = (ℓ + 1)(r + 1)/(ℓ + r + 2) has partial derivatives
    (r + 1)²/(ℓ + r + 2)² and (ℓ + 1)²/(ℓ + r + 2)² (sympy), both > 0, so its least value off
    (1, 1) with r ≥ 1, ℓ ≥ 2 is f(2, 1) = 6/5; then ((ℓ + r + 2)/(r + 1))^{r+1} − 1 <
    ((ℓ + 1)/1.2)^{r+1} ≤ (ℓ + 1)^{r+1}/1.2, the margin ≥ 1.1/(ℓ + 1)^{r+1}."""
    ell, r = sympy.symbols("ell r", positive=True)
    f = (ell + 1) * (r + 1) / (ell + r + 2)
    assert sympy.simplify(sympy.diff(f, ell) - (r + 1) ** 2 / (ell + r + 2) ** 2) == 0
    assert sympy.simplify(sympy.diff(f, r) - (ell + 1) ** 2 / (ell + r + 2) ** 2) == 0
    assert f.subs({ell: 2, r: 1}) == sympy.Rational(6, 5)
    assert f.subs({ell: 1, r: 1}) == 1                       # the separate case: S ≤ 3
    assert sympy.Rational(1, 3) >= sympy.Rational(11, 10) / 4
    assert sympy.Rational(6, 5) ** 2 >= sympy.Rational(6, 5)   # (x/1.2)^{r+1} ≤ x^{r+1}/1.2
