"""Budgets at scale (issue 40): ``--budget`` is the whole command's time, every long loop reads
the clock, the witness check runs within the budget (and a witness it could not check is never
shown), and the wide-class fast paths agree with the plain ones.  No wall-clock asserts: the
deadline is driven by fake clocks and expired budgets."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from ltheory import HypothesisClass, catalog
from ltheory.cli import app, common
from ltheory.core.hypothesis_class import pack_columns
from ltheory.dimensions import DIMENSIONS, verify
from ltheory.dims import budget as budget_mod
from ltheory.dims import threshold as threshold_mod
from ltheory.dims import vc as vc_mod
from ltheory.dims.budget import Budget, BudgetExpired, Deadline, check_budget
from ltheory.dims.littlestone import LittlestoneSolver, littlestone_exact
from ltheory.dims.threshold import full_domain_ladder, threshold_exact
from ltheory.dims.vc import vc_exact
from ltheory.errors import BudgetExceededError, InvalidInputError

runner = CliRunner()


class _Expired(Budget):
    """A budget that has always run out."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(None)
        self.deadline = self.start
        self.checks = 0

    def expired(self) -> bool:
        self.checks += 1
        return True


def random_class(m: int, n: int, seed: int = 0) -> HypothesisClass:
    rng = np.random.default_rng(seed)
    return HypothesisClass.from_matrix((rng.random((m, n)) < 0.5).astype(np.uint8))


# ------------------------------------------------------------------ the budget's values
def test_budget_values_have_one_meaning_each() -> None:
    assert check_budget(None) is None
    assert check_budget(float("inf")) is None  # inf: no limit
    assert check_budget(2) == 2.0
    for bad in (0, -1, float("nan"), float("-inf"), "5", True):
        with pytest.raises(InvalidInputError):
            check_budget(bad)
    assert Budget(float("inf")).deadline is None
    assert Budget.until(None).expired() is False
    assert Budget.until(time.perf_counter() - 1).expired() is True


def test_deadline_shares_what_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(budget_mod.time, "perf_counter", lambda: now[0])
    d = Deadline(9.0, start=97.0)       # started 3 s ago (loading counts): 6 s left
    assert d.remaining() == pytest.approx(6.0)
    assert d.share(3) == pytest.approx(2.0)
    now[0] = 101.0                       # the first step took 1 s of its 2: the rest pass on
    assert d.share(2) == pytest.approx(2.5)
    now[0] = 200.0                       # long past the deadline: the least share, not 0
    assert d.share(1) == budget_mod.MIN_SHARE
    assert Deadline(None).share(3) is None


def test_compute_gives_each_dimension_a_share_of_one_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's budget is split among the dimensions (not given to each whole)."""
    seen: dict[str, float | None] = {}
    real = {k: d.compute for k, d in DIMENSIONS.items()}

    class Spy:
        def __init__(self, key: str) -> None:
            self.key = key

        def compute(self, H: object, budget: float | None = None, method: str = "auto"):
            seen[self.key] = budget
            return real[self.key](H, budget=budget, method=method)

    monkeypatch.setattr(common, "DIMENSIONS", {k: Spy(k) for k in DIMENSIONS})
    H = catalog.family("thresholds", n=16)
    results = common.compute(H, ["vc", "ldim", "tdim"], 30.0)
    assert set(seen) == {"vc", "ldim", "tdim"}
    assert all(b is not None and b <= 30.0 * common.ENGINE_SHARE for b in seen.values())
    assert seen["vc"] <= 10.0 * common.ENGINE_SHARE + 1e-9  # a third of the whole, not all
    assert all(r.exact for r in results.values())


# ------------------------------------------------------------------ the witness check
def test_witness_not_checked_in_time_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the check runs out of time, the dimension is reported with lower bound 0 (the
    empty witness, checked) and its upper bound, marked unverified -- not the engine's value."""
    monkeypatch.setattr(common.Budget, "until",
                        classmethod(lambda cls, deadline, stride=1: _Expired()))
    H = catalog.family("thresholds", n=12)
    results = common.compute(H, ["vc", "ldim", "tdim"], 60.0)
    for key, r in results.items():
        assert r.lower == 0 and not r.exact, key
        assert r.stats["unverified"]["lower"] >= 1
        verify(H, r)  # what is shown is certified
        doc = common.result_json(r)
        assert doc["verified"] is False and doc["exact"] is False
    assert "(unverified)" in common.cell(results["vc"])


@pytest.mark.parametrize("key", ["vc", "ldim", "tdim"])
def test_checkers_read_the_budget(key: str) -> None:
    H = catalog.family("thresholds", n=40)
    res = DIMENSIONS[key].compute(H)
    verify(H, res, budget=Budget.until(None))
    with pytest.raises(BudgetExceededError):
        verify(H, res, budget=_Expired())


def test_cli_budget_counts_from_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """``dims --budget`` passes the moment the command started to compute (loading counts)."""
    got: dict[str, object] = {}

    def fake(H: object, names: list[str], budget: float | None, method: str = "auto",
             start: float | None = None):
        got.update(budget=budget, start=start, now=time.perf_counter())
        return {}

    monkeypatch.setattr("ltheory.cli.dims.compute", fake)
    res = runner.invoke(app, ["dims", "thresholds n=4", "--budget", "3", "--json"])
    assert res.exit_code == 0
    assert got["budget"] == 3.0 and got["start"] is not None
    assert got["start"] <= got["now"]


# ------------------------------------------------------------------ the engines' loops
def test_full_domain_ladder_reads_the_clock() -> None:
    T = catalog.family("thresholds", n=64)
    # two hypotheses of every size (suffixes and prefixes): the chain is searched, not forced
    H = T.union(HypothesisClass.from_matrix(T.matrix[:, ::-1], T.domain))
    assert full_domain_ladder(H) is not None
    with pytest.raises(BudgetExpired):
        full_domain_ladder(H, _Expired())


def test_forced_chain_fast_path() -> None:
    """One hypothesis of each size: the chain is forced (checked in one numpy pass)."""
    rng = np.random.default_rng(7)
    for n in (1, 2, 9, 17, 64):
        T = catalog.family("thresholds", n=n)
        H = T.permute_points(rng.permutation(n).tolist())
        top = full_domain_ladder(H)
        assert top is not None
        res = threshold_exact(H)
        assert res.value == n and res.exact
        verify(H, res)
    # sizes 1, 2, 3 once each, but {0} is not inside {1, 2}: no chain, T < 3
    H = HypothesisClass.from_strings(["100", "011", "111"])
    assert full_domain_ladder(H) is None
    res = threshold_exact(H)
    assert res.value < 3 and res.exact
    verify(H, res)


def test_threshold_out_of_time_at_the_chain_gives_trivial_bounds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threshold_mod, "Budget", _Expired)
    T = catalog.family("thresholds", n=64)
    H = T.union(HypothesisClass.from_matrix(T.matrix[:, ::-1], T.domain))  # chain not forced
    res = threshold_exact(H, budget=5)
    assert (res.lower, res.upper, res.exact) == (1, 64, False)
    assert res.stats["full_domain_chain"] == "undecided"
    verify(H, res)


def test_engines_out_of_time_return_proven_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A moderately sized class with a budget that has always run out: each engine returns
    at once with proven bounds (checked), having read the clock."""
    H = random_class(600, 700, seed=1)
    for mod, engine in ((vc_mod, vc_exact), (threshold_mod, threshold_exact)):
        monkeypatch.setattr(mod, "Budget", _Expired)
        res = engine(H, budget=5)
        assert not res.exact and res.lower <= res.upper
        verify(H, res)
    from ltheory.dims import littlestone as ldim_mod
    monkeypatch.setattr(ldim_mod, "Budget", _Expired)
    monkeypatch.setattr(ldim_mod, "GREEDY_SECONDS", 0.0)
    res = littlestone_exact(H, budget=5)
    assert res.stats["nodes"] <= 1  # the search stopped at once (the greedy bound may meet
    verify(H, res)                  # the counting bound: then exact, and checked)


def test_small_budget_on_a_wide_class_is_partial_and_checked() -> None:
    """A tiny real budget: every result is either exact or proven bounds, and checked."""
    H = random_class(300, 3000, seed=2)
    results = common.compute(H, ["vc", "ldim", "tdim"], 0.05)
    for r in results.values():
        assert r.lower <= r.upper
        verify(H, r)
    assert any(not r.exact for r in results.values())


# ------------------------------------------------------------------ fast paths agree
def test_pack_columns_matches_packbits() -> None:
    rng = np.random.default_rng(3)
    for m, n in ((1, 1), (7, 3), (8, 5), (9, 17), (100, 33), (1, 0)):
        M = (rng.random((m, n)) < 0.5).astype(np.uint8)
        want = np.packbits(M.T, axis=1, bitorder="little")
        assert np.array_equal(pack_columns(M), want)


def test_active_points_numpy_path_matches_the_scan() -> None:
    H = random_class(40, 1500, seed=4)
    solver = LittlestoneSolver(H)
    rng = np.random.default_rng(5)
    for _ in range(30):
        V = int(rng.integers(1, 1 << 40)) & solver.full
        want = [x for x in range(H.domain_size)
                if (solver.cols[x] & V) not in (0, V)]
        assert solver.active_points(V) == want
        cand = sorted(rng.choice(H.domain_size, 800, replace=False).tolist())
        assert solver.active_points(V, cand) == [x for x in cand if x in set(want)]


def test_vc_wide_paths_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    classes = [random_class(64, 12, seed=s) for s in range(4)]
    classes.append(catalog.family("halfspaces", g=4, dim=2))
    plain = [vc_exact(H).value for H in classes]
    monkeypatch.setattr(vc_mod, "_WIDE_CELLS", 0)          # popcount cell counts
    monkeypatch.setattr(vc_mod, "_PAIR_BLOCK_ENTRIES", 7)  # the pair test in tiny blocks
    for H, want in zip(classes, plain, strict=True):
        res = vc_exact(H)
        assert res.value == want and res.exact
        verify(H, res)


def test_dims_json_on_a_class_file_within_budget(tmp_path) -> None:
    from ltheory.core.class_file import save_class

    path = tmp_path / "t.json"
    save_class(catalog.family("thresholds", n=300), path)
    res = runner.invoke(app, ["dims", str(path), "--budget", "30", "--json"])
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert doc["tdim"]["value"] == 300 and doc["tdim"]["verified"] is True


def test_budget_counts_from_process_start_under_main(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the ``ltheory`` entry point the budget counts from the process start (start-up
    and imports included); commands run in-process count from their own start."""
    monkeypatch.setattr(common, "PROCESS_START", None)
    now = time.perf_counter()
    assert common.command_start() >= now
    monkeypatch.setattr(common, "PROCESS_START", now - 2.0)
    assert common.command_start() == now - 2.0
    age = common.process_age()
    assert age is None or age >= 0


def test_output_reserve_shrinks_the_next_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [10.0]
    monkeypatch.setattr(budget_mod.time, "perf_counter", lambda: now[0])
    d = Deadline(6.0, start=10.0)
    assert d.share(2, reserve=2.0) == pytest.approx(2.0)
    assert common._witness_chars({"points": ["a", "bc"], "hypotheses": ["0101"]}) == 7


def test_nested_columns_rule_against_brute_force() -> None:
    """VC <= 1 when the points' columns form a chain: exact values agree with brute force on
    chain classes (thresholds with points permuted, sub-classes) and on random classes."""
    from tests.reference import vc_reference

    rng = np.random.default_rng(11)
    classes = []
    for n in (2, 3, 5, 8):
        T = catalog.family("thresholds", n=n).permute_points(rng.permutation(n).tolist())
        classes.append(T)
        classes.append(T.subclass(rng.random(len(T)) < 0.6) if len(T) > 2 else T)
    classes += [random_class(6, 5, seed=s) for s in range(6)]
    for H in classes:
        if len(H) == 0:
            continue
        res = vc_exact(H)
        assert res.exact and res.value == vc_reference(H)
        verify(H, res)


def test_cooccurrence_in_blocks_reads_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    from ltheory.dims import symmetry

    M = random_class(50, 9, seed=12).matrix
    monkeypatch.setattr(symmetry, "COOCCURRENCE_BLOCK_ENTRIES", 20)  # blocks of 2 rows
    want = M.astype(np.int64).T @ M.astype(np.int64)
    assert np.array_equal(symmetry._cooccurrence(M, None), want)
    assert symmetry._cooccurrence(M, time.perf_counter() - 1) is None
    H = catalog.family("parities", n=3)
    sym = symmetry.point_symmetry(H, time.perf_counter() - 1)
    assert sym.order == 1.0 and not sym.complete  # the trivial group: sound


def test_memory_guard_refuses_before_allocating(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path) -> None:
    """A class file whose load would not fit is refused before it is read; the VC search
    stops with its bounds rather than make a copy that would not fit."""
    from ltheory import validation
    from ltheory.core import class_file
    from ltheory.core.class_file import load_class, save_class
    from ltheory.errors import ClassFileError

    path = tmp_path / "c.json"
    save_class(catalog.family("thresholds", n=50), path)
    monkeypatch.setattr(validation, "available_memory", lambda: 1000)
    with pytest.raises(ClassFileError, match="GiB of memory"):
        load_class(path)
    read = []
    monkeypatch.setattr(class_file.Path, "open", lambda *a, **k: read.append(a) or 1 / 0)
    with pytest.raises(ClassFileError):
        load_class(path)
    assert not read  # refused before opening the file

    H = random_class(64, 40, seed=4)  # its VC search needs the float copy of the matrix
    res = vc_exact(H, symmetry=False)
    assert not res.exact and "GiB of memory" in res.stats["memory"]
    verify(H, res)


def test_chain_found_after_the_budget_writes_no_large_witness(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threshold_mod, "Budget", _Expired)
    H = catalog.family("thresholds", n=64)
    assert threshold_exact(H, budget=5).exact  # a small ladder is still written out
    monkeypatch.setattr(threshold_mod, "WITNESS_AFTER_BUDGET_CELLS", 100)
    res = threshold_exact(H, budget=5)
    assert (res.lower, res.upper) == (1, 64)
    assert res.stats["full_domain_chain"] == "found after the budget"
    verify(H, res)


def test_main_counts_from_process_start_only_as_the_process_command(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import ltheory.cli as cli

    seen: list[float | None] = []
    real = common.command_start

    def spy() -> float:
        seen.append(common.PROCESS_START)
        return real()

    monkeypatch.setattr("ltheory.cli.dims.command_start", spy)
    monkeypatch.setattr(cli.sys, "argv", ["ltheory", "dims", "thresholds n=4", "--json"])
    monkeypatch.setattr(cli, "_IMPORTED", time.perf_counter() - 100)  # imported long ago
    with pytest.raises(SystemExit):
        cli.main()
    assert seen == [None]  # in-process: the command counts from its own start
    monkeypatch.setattr(cli, "_IMPORTED", time.perf_counter())      # just imported
    monkeypatch.setattr(common, "process_age", lambda: 0.5)
    with pytest.raises(SystemExit):
        cli.main()
    assert seen[1] is not None and seen[1] <= time.perf_counter() - 0.5
    assert common.PROCESS_START is None  # reset after the command
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["vc"]["exact"]
