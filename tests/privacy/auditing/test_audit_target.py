"""``as_target``: what the auditor reads from a mechanism, read once and checked."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from ltheory.errors import InvalidInputError
from ltheory.privacy import MechanismError, as_target, audit
from ltheory.privacy.auditing import target as target_mod
from ltheory.privacy.mechanisms import RandomizedResponse


def test_doctests() -> None:
    assert doctest.testmod(target_mod).failed == 0


def coin(dataset, rng):
    return int(rng.random() < (0.75 if dataset else 0.25))


def test_plain_functions_are_named_by_their_name() -> None:
    t = as_target(coin)
    assert t.name == "coin" and t.draws_by == "call" and not t.has_distribution
    assert as_target(t) is t
    r = audit(coin, 0, 1, claimed_epsilon=0.5, runs=20_000, seed=0)
    assert r.mechanism == "coin" and r.verdict == "violation"


@pytest.mark.parametrize("obj, needle", [
    (42, "cannot audit a int"),
    (type("S", (), {"sample": lambda *a: 0, "sensitivity": -1})(), "sensitivity"),
    (type("S", (), {"sample": lambda *a: 0, "audit_chunk_runs": 0})(), "audit_chunk_runs"),
    (type("S", (), {"sample": lambda *a: 0, "neighbour_relation": 3})(), "neighbour_relation"),
])
def test_malformed_targets_are_refused(obj, needle: str) -> None:
    with pytest.raises(InvalidInputError, match=needle):
        as_target(obj)


def test_a_users_exception_keeps_its_frame() -> None:
    def broken(dataset, rng):
        raise KeyError("missing column")

    with pytest.raises(MechanismError, match="KeyError") as info:
        audit(broken, 0, 1, claimed_epsilon=1.0, runs=10_000, seed=0)
    assert isinstance(info.value.__cause__, KeyError)        # the user's traceback is kept


def test_one_way_of_drawing() -> None:
    t = as_target(RandomizedResponse(1.0))
    a = t.draw(0, 100, np.random.default_rng(1))
    b = RandomizedResponse(1.0).sample(0, 100, np.random.default_rng(1))
    assert np.array_equal(a, np.asarray(b, dtype=float))
