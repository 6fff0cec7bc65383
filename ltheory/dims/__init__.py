"""Exact engines for the dimensions of explicit finite classes, each returning a certified
[`DimensionResult`][ltheory.DimensionResult]; the public entry points with ``method=`` and composed
classes are in
`ltheory.dimensions`."""

from ltheory.dims.littlestone import littlestone_exact
from ltheory.dims.result import DimensionResult
from ltheory.dims.soa import StandardOptimalAlgorithm
from ltheory.dims.symmetry import ClassSymmetry, class_symmetry
from ltheory.dims.threshold import threshold_exact
from ltheory.dims.vc import vc_exact

__all__ = [
    "ClassSymmetry",
    "DimensionResult",
    "StandardOptimalAlgorithm",
    "class_symmetry",
    "littlestone_exact",
    "threshold_exact",
    "vc_exact",
]
