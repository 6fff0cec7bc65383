"""Property tests of the exact dimension algorithms and the Standard Optimal Algorithm.

Checked against the brute-force references in tests/reference.py and against theorems:

* VC ≤ Ldim ≤ ⌊log2 |H|⌋ (Littlestone 1988);
* Ldim(H1 ∪ H2) ≤ Ldim(H1) + Ldim(H2) + 1 and T(H1 ∪ H2) ≤ T(H1) + T(H2) (Alon, Beimel, Moran,
  Stemmer 2020, Props. 4.1 and 4.2);
* monotonicity under sub-classes, invariance under renaming/permuting points and reordering
  hypotheses; VC and Ldim invariant under complement (1 − h);
* |T(H) − T(¬H)| ≤ 1 (reverse the ladder: if h_1..h_k threshold-shatter x_1..x_k then the
  complements of h_2..h_k threshold-shatter x_{k-1}..x_1; checked exhaustively on all classes
  over ≤ 3 points in test_threshold_complement_exhaustive, and it is tight);
* Shelah–Hodges (ABMS 2020, Thm. 3.2): T ≥ ⌊log2 Ldim⌋ and Ldim ≥ ⌊log2 T⌋;
* SOA makes ≤ Ldim(H) mistakes on every realizable sequence (Littlestone 1988), and exactly
  Ldim(H) when an adversary walks down a shattered tree labelling against its predictions.

The algorithms are imported lazily: a test skips when its module has not landed yet.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltheory import HypothesisClass
from ltheory import strategies as lst
from ltheory.dimensions import littlestone_dimension, threshold_dimension, vc_dimension
from ltheory.dims.certificates import verify
from ltheory.dims.result import DimensionResult
from ltheory.dims.soa import StandardOptimalAlgorithm
from tests.reference import ldim_reference, tdim_reference, vc_reference

Algo = Callable[..., DimensionResult]


def vc_algo() -> Algo:
    return vc_dimension


def ldim_algo() -> Algo:
    return littlestone_dimension


def tdim_algo() -> Algo:
    return threshold_dimension


def soa_class() -> Any:
    return StandardOptimalAlgorithm


ALGOS = {"vc": vc_algo, "ldim": ldim_algo, "tdim": tdim_algo}
REFS = {"vc": vc_reference, "ldim": ldim_reference, "tdim": tdim_reference}
KINDS = list(ALGOS)


def exact(kind: str, H: HypothesisClass) -> int:
    """Run the exact algorithm, check the result is well-formed and certified, return its value."""
    r = ALGOS[kind]()(H)
    assert isinstance(r, DimensionResult)
    assert r.kind == kind
    assert r.exact is True
    assert r.value == r.lower == r.upper
    verify(H, r)
    if len(H) == 0:
        assert r.value == -1 and r.witness is None
    return int(r.value)


def flog2(x: int) -> int:
    return math.floor(math.log2(x))


small = lst.hypothesis_classes(max_points=5, max_size=12)
tiny_with_empty = lst.hypothesis_classes(max_points=4, max_size=10, allow_empty=True)


@st.composite
def class_pairs(draw: st.DrawFn, max_points: int = 5, max_size: int = 10,
                allow_empty: bool = True) -> tuple[HypothesisClass, HypothesisClass]:
    """Two classes over the same domain."""
    n = draw(st.integers(0, max_points))
    cls = lst.hypothesis_classes(min_points=n, max_points=n, max_size=max_size,
                                 allow_empty=allow_empty)
    return draw(cls), draw(cls)


# --------------------------------------------------------------------------- exact vs reference
@pytest.mark.parametrize("kind", KINDS)
@given(H=tiny_with_empty)
def test_exact_equals_reference(kind: str, H: HypothesisClass) -> None:
    assert exact(kind, H) == REFS[kind](H)


@pytest.mark.parametrize("kind", KINDS)
@given(H=lst.hypothesis_classes(max_points=5, max_size=12, labelled=True))
def test_exact_equals_reference_labelled(kind: str, H: HypothesisClass) -> None:
    assert exact(kind, H) == REFS[kind](H)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=300)
@given(H=lst.hypothesis_classes(min_points=4, max_points=7, min_size=8, max_size=48))
def test_exact_equals_reference_slow(kind: str, H: HypothesisClass) -> None:
    assert exact(kind, H) == REFS[kind](H)


def _thresholds(n: int) -> HypothesisClass:
    return HypothesisClass.from_strings(["0" * (n - i) + "1" * i for i in range(n + 1)])


def _singletons(n: int) -> HypothesisClass:
    return HypothesisClass.from_strings(
        ["0" * n] + ["".join("1" if j == i else "0" for j in range(n)) for i in range(n)])


def _cube(n: int) -> HypothesisClass:
    return HypothesisClass.from_matrix(list(itertools.product((0, 1), repeat=n)), n)


@pytest.mark.parametrize("name, H, values", [
    # thresholds on n points (n+1 hypotheses): VC 1, Ldim ⌊log2(n+1)⌋, T n
    ("thresholds-7", _thresholds(7), {"vc": 1, "ldim": 3, "tdim": 7}),
    ("thresholds-12", _thresholds(12), {"vc": 1, "ldim": 3, "tdim": 12}),
    # singletons + the zero function: VC 1, Ldim 1, T 1
    ("singletons-9", _singletons(9), {"vc": 1, "ldim": 1, "tdim": 1}),
    # the full cube {0,1}^n: everything equals n
    ("cube-5", _cube(5), {"vc": 5, "ldim": 5, "tdim": 5}),
    ("one-hypothesis", HypothesisClass.from_strings(["0110"]), {"vc": 0, "ldim": 0, "tdim": 1}),
    ("zero-function", HypothesisClass.from_strings(["000"]), {"vc": 0, "ldim": 0, "tdim": 0}),
    ("empty-domain", HypothesisClass.from_strings([""]), {"vc": 0, "ldim": 0, "tdim": 0}),
    ("empty-class", HypothesisClass.from_strings([], domain=4),
     {"vc": -1, "ldim": -1, "tdim": -1}),
])
@pytest.mark.parametrize("kind", KINDS)
def test_known_values(kind: str, name: str, H: HypothesisClass, values: dict[str, int]) -> None:
    assert exact(kind, H) == values[kind]


# --------------------------------------------------------------------------- inequalities
@given(H=small)
def test_vc_le_ldim_le_log_size(H: HypothesisClass) -> None:
    v, d = exact("vc", H), exact("ldim", H)
    assert v <= d <= flog2(len(H))


@given(pair=class_pairs())
def test_ldim_union_bound(pair: tuple[HypothesisClass, HypothesisClass]) -> None:
    H1, H2 = pair
    assert exact("ldim", H1 | H2) <= exact("ldim", H1) + exact("ldim", H2) + 1


@given(pair=class_pairs(allow_empty=False))
def test_tdim_union_bound(pair: tuple[HypothesisClass, HypothesisClass]) -> None:
    H1, H2 = pair
    assert exact("tdim", H1 | H2) <= exact("tdim", H1) + exact("tdim", H2)


def test_ldim_union_bound_is_tight() -> None:
    """ABMS 2020, Prop. 4.2: thresholds split into two halves reach d1 + d2 + 1."""
    H = _thresholds(7)  # 8 hypotheses, Ldim 3
    strings = H.to_strings()
    H1 = HypothesisClass.from_strings(strings[:4], domain=7)
    H2 = HypothesisClass.from_strings(strings[4:], domain=7)
    d1, d2 = exact("ldim", H1), exact("ldim", H2)
    assert (d1, d2) == (2, 2)
    assert exact("ldim", H1 | H2) == 3 <= d1 + d2 + 1


@pytest.mark.parametrize("kind", KINDS)
@given(data=st.data(), H=small)
def test_monotone_under_subclasses(kind: str, data: st.DataObject, H: HypothesisClass) -> None:
    G = data.draw(lst.subclasses(H))
    assert exact(kind, G) <= exact(kind, H)


# --------------------------------------------------------------------------- invariances
@pytest.mark.parametrize("kind", KINDS)
@given(data=st.data(), H=small)
def test_invariant_under_point_permutation(kind: str, data: st.DataObject,
                                           H: HypothesisClass) -> None:
    p = data.draw(lst.point_permutations(H))
    assert exact(kind, H.permute_points(p)) == exact(kind, H)


@pytest.mark.parametrize("kind", KINDS)
@given(data=st.data(), H=small)
def test_invariant_under_hypothesis_order(kind: str, data: st.DataObject,
                                          H: HypothesisClass) -> None:
    order = data.draw(st.permutations(H.to_strings()))
    G = HypothesisClass.from_strings(order, domain=H.domain)
    assert G == H
    assert exact(kind, G) == exact(kind, H)


@pytest.mark.parametrize("kind", KINDS)
@given(data=st.data(), H=small)
def test_invariant_under_relabelling(kind: str, data: st.DataObject, H: HypothesisClass) -> None:
    labels = data.draw(lst.domains(H.domain_size, H.domain_size))
    assert exact(kind, H.relabel(labels)) == exact(kind, H)


@pytest.mark.parametrize("kind", ["vc", "ldim"])
@given(H=tiny_with_empty)
def test_vc_ldim_invariant_under_complement(kind: str, H: HypothesisClass) -> None:
    assert exact(kind, H.complement()) == exact(kind, H)


@given(H=tiny_with_empty)
def test_threshold_under_complement(H: HypothesisClass) -> None:
    assert abs(exact("tdim", H.complement()) - exact("tdim", H)) <= 1


def test_threshold_complement_exhaustive() -> None:
    """|T(H) − T(¬H)| ≤ 1 on every class over at most 3 points (brute force), and it is tight."""
    worst = 0
    for n in range(4):
        cube = ["".join(p) for p in itertools.product("01", repeat=n)]
        for mask in range(1, 2 ** len(cube)):
            H = HypothesisClass.from_strings([h for i, h in enumerate(cube) if mask >> i & 1],
                                             domain=n)
            worst = max(worst, abs(tdim_reference(H) - tdim_reference(H.complement())))
    assert worst == 1
    zero = HypothesisClass.from_strings(["000"])
    assert (tdim_reference(zero), tdim_reference(zero.complement())) == (0, 1)


# --------------------------------------------------------------------------- Shelah–Hodges
@given(H=small)
def test_shelah_hodges(H: HypothesisClass) -> None:
    d, t = exact("ldim", H), exact("tdim", H)
    if d >= 1:
        assert t >= flog2(d)
    if t >= 1:
        assert d >= flog2(t)


def test_shelah_hodges_on_references_exhaustive() -> None:
    """The same inequalities by brute force on every class over at most 3 points."""
    for n in range(4):
        cube = ["".join(p) for p in itertools.product("01", repeat=n)]
        for mask in range(1, 2 ** len(cube)):
            H = HypothesisClass.from_strings([h for i, h in enumerate(cube) if mask >> i & 1],
                                             domain=n)
            d, t = ldim_reference(H), tdim_reference(H)
            assert vc_reference(H) <= d <= flog2(len(H))
            if d >= 1:
                assert t >= flog2(d)
            if t >= 1:
                assert d >= flog2(t)


# --------------------------------------------------------------------------- SOA
def _play(soa: Any, sample: Any) -> int:
    """Feed the sample to SOA, counting the rounds where its prediction was wrong."""
    wrong = 0
    for x, y in sample:
        wrong += soa.predict(x) != y
        soa.update(x, y)
    return wrong


@given(data=st.data(), H=small)
def test_soa_mistake_bound_random_sequences(data: st.DataObject, H: HypothesisClass) -> None:
    SOA = soa_class()
    sample = data.draw(lst.labelled_samples(H, realizable=True, max_len=12,
                                            as_labels=data.draw(st.booleans())))
    soa = SOA(H)
    wrong = _play(soa, sample)
    assert wrong == soa.mistakes
    assert wrong <= exact("ldim", H)


@given(data=st.data(), H=small)
def test_soa_mistake_bound_greedy_adversary(data: st.DataObject, H: HypothesisClass) -> None:
    """An adversary that picks points (drawn) and labels against SOA whenever some hypothesis
    agrees; the sequence stays realizable, so SOA still errs at most Ldim(H) times."""
    SOA = soa_class()
    soa = SOA(H)
    V = H
    wrong = 0
    for _ in range(data.draw(st.integers(0, 10))):
        if H.domain_size == 0:
            break
        x = data.draw(st.integers(0, H.domain_size - 1))
        p = soa.predict(x)
        y = 1 - p if len(V.version_space([(x, 1 - p)])) else p
        wrong += p != y
        soa.update(x, y)
        V = V.version_space([(x, y)])
        assert len(V) >= 1
    assert wrong == soa.mistakes <= exact("ldim", H)


@given(data=st.data(), H=small)
def test_soa_predicts_the_side_of_larger_ldim(data: st.DataObject, H: HypothesisClass) -> None:
    """SOA's defining rule: after a realizable prefix with version space V, the prediction b on x
    satisfies Ldim(V_x^b) ≥ Ldim(V_x^(1−b)) (ties may go either way); its version space is V."""
    SOA = soa_class()
    prefix = data.draw(lst.labelled_samples(H, realizable=True, max_len=5))
    soa = SOA(H)
    _play(soa, prefix)
    V = H.version_space(prefix)
    if hasattr(soa, "version_space"):
        assert soa.version_space() == V
    for x in range(H.domain_size):
        b = soa.predict(x)
        assert b in (0, 1)
        assert ldim_reference(V.version_space([(x, b)])) >= ldim_reference(
            V.version_space([(x, 1 - b)]))


def test_soa_version_space_after_contradiction() -> None:
    SOA = soa_class()
    soa = SOA(HypothesisClass.from_strings(["01", "10"]))
    soa.update(0, 1)
    soa.update(1, 1)  # no hypothesis has both
    assert len(soa.version_space()) == 0
    assert soa.predict(0) in (0, 1)  # still usable, though the mistake bound no longer applies


def _walk_against(soa: Any, tree: dict[str, Any]) -> tuple[int, list[tuple[str, int]], str]:
    path: list[tuple[str, int]] = []
    wrong = 0
    node = tree
    while "hypothesis" not in node:
        x = node["point"]
        y = 1 - soa.predict(x)
        wrong += 1
        soa.update(x, y)
        path.append((x, y))
        node = node["children"][str(y)]
    return wrong, path, node["hypothesis"]


@given(H=lst.hypothesis_classes(max_points=6, max_size=16, labelled=True))
def test_soa_adversarial_tree_walk(H: HypothesisClass) -> None:
    """Walk down the witness mistake tree labelling against SOA's prediction: every round is a
    mistake, the path is realised by its leaf, so SOA makes exactly Ldim(H) mistakes."""
    SOA = soa_class()
    r = ldim_algo()(H)
    soa = SOA(H)
    wrong, path, leaf = _walk_against(soa, r.witness)
    assert wrong == r.value == soa.mistakes
    assert leaf in H
    assert all(leaf[H.point_index(x)] == str(y) for x, y in path)
    assert len(H.version_space(path)) >= 1


@pytest.mark.slow
@settings(max_examples=200)
@given(H=lst.hypothesis_classes(min_points=5, max_points=8, min_size=16, max_size=80))
def test_soa_adversarial_tree_walk_slow(H: HypothesisClass) -> None:
    SOA = soa_class()
    r = ldim_algo()(H)
    verify(H, r)
    wrong, _, _ = _walk_against(SOA(H), r.witness)
    assert wrong == r.value


@pytest.mark.slow
@settings(max_examples=100)
@given(H=lst.hypothesis_classes(min_points=4, max_points=6, min_size=8, max_size=40))
def test_soa_exhaustive_adversary_slow(H: HypothesisClass) -> None:
    """The best adversary (game-tree search over all realizable continuations, a few rounds
    deep) never forces more than Ldim(H) mistakes.  SOA's prediction depends only on its
    version space V, so the game value is memoised on V and SOA is re-created on V."""
    SOA = soa_class()
    d = exact("ldim", H)
    memo: dict[tuple[frozenset[str], int], int] = {}

    def worst(V: HypothesisClass, depth: int) -> int:
        key = (frozenset(V.to_strings()), depth)
        if depth == 0 or len(V) <= 1:
            return 0
        if key not in memo:
            soa = SOA(V)
            best = 0
            for x in range(H.domain_size):
                p = soa.predict(x)
                for y in (0, 1):
                    W = V.version_space([(x, y)])
                    if len(W):
                        best = max(best, (p != y) + worst(W, depth - 1))
            memo[key] = best
        return memo[key]

    depth = min(4, d + 1)
    # the adversary can force min(d, depth) mistakes (walk a shattered tree), and no more
    assert worst(H, depth) == min(d, depth)


# --------------------------------------------------------------------------- budgets
KINDS_BUDGET = ["vc", "ldim", "tdim"]


@pytest.mark.parametrize("kind", KINDS_BUDGET)
@given(H=lst.hypothesis_classes(min_points=6, max_points=8, min_size=20, max_size=60))
@settings(max_examples=20)
def test_budgeted_results_are_certified_bounds(kind: str, H: HypothesisClass) -> None:
    """With a tiny budget a result may be inexact, but its witness still certifies ``lower`` and
    the true value lies in [lower, upper]."""
    algo = ALGOS[kind]()
    r = algo(H, budget=1e-6)
    verify(H, r)
    true = exact(kind, H)
    assert r.lower <= true <= r.upper


class _CountdownBudget:
    """A stand-in for ltheory.dims.budget.Budget that expires after a fixed number of checks, so
    that budget exhaustion is deterministic (the real one reads the wall clock)."""

    deadline = None  # no wall-clock deadline: nauty calls are not cut short

    def __init__(self, seconds: float | None, checks: int) -> None:
        self.seconds = seconds
        self.left = checks

    def remaining(self) -> float | None:
        return None if self.seconds is None else float(self.seconds)

    def expired(self) -> bool:
        if self.seconds is None:
            return False
        self.left -= 1
        return self.left < 0

    def elapsed(self) -> float:
        return 0.0


_BUDGET_CLASS = HypothesisClass.from_strings([
    "11011001", "00110110", "10001100", "00011000", "01100100", "00010100", "10110101",
    "10111010", "10010101", "11001000", "00110000", "01110101", "10100110", "01100000",
    "01111001", "10101010", "11011000", "11000001", "01000110", "10001110", "01010111",
    "10101101", "00001010", "11001010", "10011000", "10111100", "11001111", "11010101",
    "00010101", "10011100", "00001110", "10010010", "01000111", "11010001", "11110110",
    "11110011", "10010100", "00101000", "11100111", "00100000", "11100000", "00000111",
    "10100111", "01011101", "00110010", "11101111", "10101001"])


@pytest.mark.parametrize("kind, module", [
    ("vc", "ltheory.dims.vc"), ("ldim", "ltheory.dims.littlestone"),
    ("tdim", "ltheory.dims.threshold"),
])
def test_budget_expiring_at_every_step_gives_certified_bounds(
        kind: str, module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deterministic version: let the budget run out after 0, 1, 2, ... checks; every result must
    verify and bracket the exact value."""
    mod = pytest.importorskip(module)
    H = _BUDGET_CLASS
    true = exact(kind, H)
    algo = ALGOS[kind]()
    for checks in range(0, 400, 3):
        monkeypatch.setattr(mod, "Budget",
                            lambda seconds, c=checks, **_: _CountdownBudget(seconds, c))
        r = algo(H, budget=1.0)
        verify(H, r)
        assert r.lower <= true <= r.upper, (checks, r)


@pytest.mark.parametrize("kind", KINDS)
def test_empty_class_is_minus_one(kind: str) -> None:
    for H in (HypothesisClass.from_strings([], domain=0), HypothesisClass.from_strings([],
                                                                                       domain=5)):
        r = ALGOS[kind]()(H)
        assert (r.value, r.lower, r.upper, r.exact, r.witness) == (-1, -1, -1, True, None)
        verify(H, r)


# --------------------------------------------------------------------------- strategies
@given(H=lst.hypothesis_classes(min_points=2, max_points=5, min_size=3, max_size=7))
def test_hypothesis_classes_respect_bounds(H: HypothesisClass) -> None:
    assert 2 <= H.domain_size <= 5
    assert 3 <= len(H) <= 7


def test_hypothesis_classes_reach_the_empty_class_when_allowed() -> None:
    from hypothesis import find

    E = find(lst.hypothesis_classes(min_points=2, allow_empty=True), lambda H: len(H) == 0)
    assert len(E) == 0 and E.domain_size == 2


@given(H=lst.hypothesis_classes(max_points=4))
def test_hypothesis_classes_non_empty_by_default(H: HypothesisClass) -> None:
    assert len(H) >= 1


@given(data=st.data(), H=small)
def test_subclasses_are_subsets(data: st.DataObject, H: HypothesisClass) -> None:
    G = data.draw(lst.subclasses(H, allow_empty=False))
    assert 1 <= len(G) and set(G.to_strings()) <= set(H.to_strings()) and G.domain == H.domain


@pytest.mark.parametrize("relation", ["substitution", "add_remove"])
@given(data=st.data(), m=st.integers(1, 5), n=st.integers(1, 6))
def test_neighbouring_datasets(relation: str, data: st.DataObject, m: int, n: int) -> None:
    d0, d1 = data.draw(lst.neighbouring_datasets(m, n, relation=relation))
    for d in (d0, d1):
        assert all(0 <= x < m and y in (0, 1) for x, y in d)
    if relation == "substitution":
        assert len(d0) == len(d1) == n
        assert sum(a != b for a, b in zip(d0, d1, strict=True)) == 1
    else:
        short, long_ = sorted((d0, d1), key=len)
        assert (len(short), len(long_)) == (n, n + 1)
        assert any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


@pytest.mark.parametrize("make", [
    lambda: lst.hypothesis_classes(min_points=3, max_points=2),
    lambda: lst.hypothesis_classes(min_size=20, max_points=4),
    lambda: lst.hypothesis_classes(max_size=0),
    lambda: lst.domains(-1, 2),
    lambda: lst.neighbouring_datasets(0, 3),
    lambda: lst.neighbouring_datasets(3, 0),
    lambda: lst.neighbouring_datasets(3, 2, relation="swap"),
    lambda: lst.labelled_samples(HypothesisClass.from_strings([], domain=2)),
    lambda: lst.subclasses(HypothesisClass.from_strings([], domain=2), allow_empty=False),
])
def test_strategy_argument_errors(make: Callable[[], Any]) -> None:
    from hypothesis.errors import InvalidArgument

    with pytest.raises(InvalidArgument):
        make().example()


def test_budgeted_ldim_falls_back_on_a_greedy_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the budget runs out before the search proves anything at its root, the lower bound
    is the greedy tree's depth (most balanced split at every node), with that tree as witness;
    on the 47 x 8 class the greedy tree reaches floor(log2 47) = 5, so the value is exact."""
    import ltheory.dims.littlestone as ld

    monkeypatch.setattr(ld, "Budget", lambda seconds, **_: _CountdownBudget(seconds, 0))
    r = ld.littlestone_exact(_BUDGET_CLASS, budget=1.0)
    assert r.stats["nodes"] <= 1 and r.stats["greedy_depth"] == r.lower == 5 and r.exact
    verify(_BUDGET_CLASS, r)
    assert r.lower <= exact("ldim", _BUDGET_CLASS) <= r.upper
