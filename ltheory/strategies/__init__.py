"""Hypothesis strategies for finite classes, samples and neighbouring datasets.

Reusable in your own CI (``pip install hypothesis``)::

    from hypothesis import given
    from ltheory import strategies as lst

    @given(lst.hypothesis_classes(max_points=5))
    def test_vc_at_most_log_size(H):
        ...

    @given(lst.hypothesis_classes(max_points=6, min_vc=1, max_ldim=2))
    def test_something_about_classes_of_small_dimension(H):
        ...

The strategies live in `ltheory.strategies.classes` (classes, sub-classes, permutations),
`ltheory.strategies.samples` (labelled samples, neighbouring datasets),
`ltheory.strategies.query_answers` (neighbouring vectors of query answers) and
`ltheory.strategies.boolean` (aggregations, composed classes G(H_1, ..., H_k)); this module
only re-exports them.

Everything is small by default (at most 6 points, at most 16 hypotheses) so that exponential
reference computations stay fast; raise the bounds explicitly for heavier runs.  All strategies
shrink towards fewer points, fewer hypotheses and all-zero bits.

Definitions: a class is a finite set H ⊆ {0,1}^X ([`HypothesisClass`][ltheory.HypothesisClass]); a
labelled sample is a tuple of ``(x, y)`` pairs, ``x`` a domain point (index or label), ``y ∈ {0,
1}``; it is *realizable* by H if some h ∈ H has h(x) = y for every pair.  Two datasets are
*neighbouring* under substitution if they have the same length and differ in exactly one position
(Dwork, McSherry, Nissim, Smith 2006)."""

from ltheory.strategies.boolean import aggregation_expressions, aggregations, compositions
from ltheory.strategies.classes import domains, hypothesis_classes, point_permutations, subclasses
from ltheory.strategies.query_answers import neighbouring_query_answers
from ltheory.strategies.samples import labelled_samples, neighbouring_datasets

__all__ = [
    "aggregation_expressions",
    "aggregations",
    "compositions",
    "domains",
    "hypothesis_classes",
    "labelled_samples",
    "neighbouring_datasets",
    "neighbouring_query_answers",
    "point_permutations",
    "subclasses",
]
