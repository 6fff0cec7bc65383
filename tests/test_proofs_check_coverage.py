"""Coverage as data (issue 31): every numbered statement of the five seeds has a status —
checked (by named checks), not evaluable or qualitative (with the reason), or not encoded (with
what it would take) — and ``ltheory check --list`` prints them."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ltheory.cli import app
from proofs_check import all_checks
from proofs_check.base import NOT_EVALUABLE
from proofs_check.coverage import (
    CHECKED,
    STATEMENTS,
    STATUSES,
    counts,
    listing,
)
from proofs_check.coverage import (
    NOT_EVALUABLE as NE,
)

SEEDS = Path(os.environ.get("LTHEORY_SEEDS", "/work/shared/seeds"))
_NUMBERED = re.compile(r"^(Theorem|Lemma|Proposition|Corollary|Claim|Observation|Remark|"
                       r"Example|Fact)\s+((?:A\.)?\d+(?:\.\d+)*)", re.M)


def test_every_statement_has_a_status_and_a_reason_or_checks() -> None:
    keys = [(s.source, s.number) for s in STATEMENTS]
    assert len(keys) == len(set(keys))
    ids = {c.id: c for c in all_checks()}
    for s in STATEMENTS:
        assert s.status in STATUSES, s
        if s.status == CHECKED:
            assert s.checks, s
            for cid in s.checks:
                assert cid in ids and ids[cid].source == s.source, (s.number, cid)
        else:
            assert len(s.reason) > 15, s
        if s.status == NE:
            assert all(ids[c].kind == NOT_EVALUABLE for c in s.checks), s


def test_every_check_belongs_to_a_statement() -> None:
    named = {c for s in STATEMENTS for c in s.checks}
    assert {c.id for c in all_checks()} <= named


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed files are not at hand")
def test_every_numbered_statement_of_the_seeds_is_listed() -> None:
    listed = {(s.source, s.number) for s in STATEMENTS}
    missing = []
    for path in sorted(SEEDS.glob("*.txt")):
        for kind, num in _NUMBERED.findall(path.read_text(encoding="utf-8")):
            if (path.name, f"{kind} {num}") not in listed:
                missing.append((path.name, f"{kind} {num}"))
    assert not missing, sorted(set(missing))


def test_counts_per_seed() -> None:
    c = counts()
    assert len(c) == 5 and sum(sum(v.values()) for v in c.values()) == len(STATEMENTS)
    assert c["004_5635bafb29a98a47.txt"]["not encoded"] == 0


def test_cli_list() -> None:
    res = CliRunner().invoke(app, ["check", "--list"])
    assert res.exit_code == 0, res.output
    assert res.output == listing() + "\n"
    assert "| Lemma 3.12 |" in res.output and "not encoded" in res.output
    doc = json.loads(CliRunner().invoke(app, ["check", "--list", "--json"]).output)
    assert doc["counts"] == counts() and len(doc["statements"]) == len(STATEMENTS)
    bad = CliRunner().invoke(app, ["check", "abms20", "--list"])
    assert bad.exit_code == 2 and "--list takes no check ids" in bad.output


def test_lemma312_witness_recomputed_independently() -> None:
    """The smallest witness of abms20.lemma3.12 by hand: N = 18 examples, m = 2 draws, A the
    truncated geometric count (clamp 0..2) at ε; at the top output o = 2 the likelihood ratio is
    Σ_k P[K = k]·G_k(2) / G_0(2), K ~ Bin(2, 1/18)."""
    import math

    from proofs_check.abms2020_subsampling import smallest_failing_epsilon, subsampled_epsilon

    eps = 10.0
    a = math.exp(-eps)
    top = [a ** 2 / (1 + a), a / (1 + a), 1 / (1 + a)]          # G_k(2) for k = 0, 1, 2
    b = [(17 / 18) ** 2, 2 * (1 / 18) * (17 / 18), (1 / 18) ** 2]
    ratio = sum(bk * gk for bk, gk in zip(b, top, strict=True)) / top[0]
    assert math.log(ratio) > eps
    assert subsampled_epsilon(eps, 2) >= math.log(ratio) - 1e-9
    e_star = smallest_failing_epsilon(2)
    assert 5.6 < e_star < 5.7 and subsampled_epsilon(e_star - 1e-3, 2) <= e_star - 1e-3
