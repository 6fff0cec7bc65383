"""Exact dimensions of finite classes, each returning a certified :class:`DimensionResult`."""

from ltheory.dims.littlestone import littlestone_dimension
from ltheory.dims.result import DimensionResult
from ltheory.dims.soa import StandardOptimalAlgorithm
from ltheory.dims.threshold import threshold_dimension
from ltheory.dims.vc import vc_dimension

__all__ = [
    "DimensionResult",
    "StandardOptimalAlgorithm",
    "littlestone_dimension",
    "threshold_dimension",
    "vc_dimension",
]
