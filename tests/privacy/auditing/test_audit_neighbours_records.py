"""Substitution neighbours of datasets whose points are feature tuples or arrays."""

from __future__ import annotations

import numpy as np

from ltheory.privacy.mechanisms import are_neighbours


def test_feature_tuple_records_are_compared_structurally() -> None:
    d0 = (((0, 1), 1), ((1, 1), 0))
    assert are_neighbours(d0, (((0, 1), 1), ((1, 1), 1)))        # one label flipped
    assert are_neighbours(d0, (((0, 0), 1), ((1, 1), 0)))        # one point moved
    assert not are_neighbours(d0, d0)                            # identical
    assert not are_neighbours(d0, (((0, 0), 0), ((1, 1), 1)))    # two records differ
    # arrays and tuples with the same entries are the same record
    assert not are_neighbours(((np.array([0, 1]), 1),), (((0, 1), 1),))
    assert are_neighbours(((np.array([0, 1]), np.int64(1)),), (((0, 1), 0),))
