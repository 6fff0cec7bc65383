"""Every mechanism of ltheory, vectorised, with its privacy claim as data.

A mechanism is a callable ``mechanism(dataset, rng) -> output`` that also offers
``sample(dataset, n, rng)`` (n independent runs at once) and, where its output space is finite,
``output_distribution(dataset)``; ``claim`` is the (ε, δ) it claims and ``true_epsilon`` its
actual privacy where known, so the incorrect variants serve as negative controls.  The
interface and the neighbour relations are in ``base``; each other submodule holds one family:

* ``basic`` — Laplace, geometric (discrete Laplace), randomized response;
* ``selection`` — the exponential mechanism, report noisy max;
* ``sparse_vector`` — the sparse vector technique, Lyu, Su & Li's six variants;
* ``histograms`` — Laplace histogram, stability-based histogram, MWEM;
* ``tabulated`` — a mechanism given by its output distributions;
* ``gaussian`` — the Gaussian mechanism (classic and analytic calibration) and its exact curve;
* ``discrete_gaussian`` — the discrete Gaussian of Canonne, Kamath & Steinke, exact sampler;
* ``dpsgd`` — DP-SGD on a worst-case canary, with dp-accounting's claims;
* ``statdp`` — the StatDP / DP-Sniper benchmark (NoisyHist, RAPPOR, NumericalSVT, …);
* ``faulty`` and ``floating`` — leaky implementations (negative controls of the violation zoo)
  and Mironov's snapping mechanism.

Each public name has one public path, ``ltheory.privacy.mechanisms.<Name>``; the submodules are
where it is defined.  Adapters of third-party libraries (diffprivlib, OpenDP, jax-privacy) are in
``ltheory.privacy.adapters``, learners in ``ltheory.privacy.learners``.
"""

from ltheory.privacy.mechanisms.base import (
    Dataset,
    Mechanism,
    answer_vector,
    are_neighbours,
    count_query,
)
from ltheory.privacy.mechanisms.basic import (
    MIN_GEOMETRIC_RATE,
    GeometricMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    check_scale,
)
from ltheory.privacy.mechanisms.discrete_gaussian import (
    DiscreteGaussianMechanism,
    discrete_gaussian_pmf,
    sample_discrete_gaussian,
)
from ltheory.privacy.mechanisms.dpsgd import (
    CANARY,
    AccountantClaim,
    DPSGDCanary,
    dpsgd_accountant,
)
from ltheory.privacy.mechanisms.faulty import (
    ClampedNoiseLaplace,
    TailLeakGaussian,
    TailLeakLaplace,
)
from ltheory.privacy.mechanisms.floating import FloatNoise, SnappedLaplace
from ltheory.privacy.mechanisms.gaussian import (
    GaussianMechanism,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
)
from ltheory.privacy.mechanisms.histograms import Histogram, MultiplicativeWeights, StableHistogram
from ltheory.privacy.mechanisms.selection import (
    ExponentialMechanism,
    NoisyMaxWithValue,
    ReportNoisyMax,
    thresholds,
)
from ltheory.privacy.mechanisms.sparse_vector import SparseVector
from ltheory.privacy.mechanisms.statdp import (
    NoisyHist,
    NoisyMaxValue,
    NumericalSVT,
    OneTimeRappor,
    Parallel,
    PrefixSum,
    Rappor,
    TruncatedGeometric,
    dpsniper_suite,
    murmur3_32,
)
from ltheory.privacy.mechanisms.tabulated import TabulatedMechanism

__all__ = [
    # the interface
    "Dataset", "Mechanism", "answer_vector", "are_neighbours", "count_query",
    # basic
    "GeometricMechanism", "LaplaceMechanism", "RandomizedResponse", "MIN_GEOMETRIC_RATE",
    "check_scale",
    # selection, sparse vector, histograms, tables
    "ExponentialMechanism", "NoisyMaxWithValue", "ReportNoisyMax", "thresholds", "SparseVector",
    "Histogram", "MultiplicativeWeights", "StableHistogram", "TabulatedMechanism",
    # Gaussian family and DP-SGD
    "GaussianMechanism", "analytic_gaussian_sigma", "classic_gaussian_sigma",
    "DiscreteGaussianMechanism", "discrete_gaussian_pmf", "sample_discrete_gaussian",
    "CANARY", "AccountantClaim", "DPSGDCanary", "dpsgd_accountant",
    # StatDP / DP-Sniper benchmark
    "NoisyHist", "NoisyMaxValue", "NumericalSVT", "OneTimeRappor", "Parallel", "PrefixSum",
    "Rappor", "TruncatedGeometric", "dpsniper_suite", "murmur3_32",
    # leaky implementations and snapping
    "ClampedNoiseLaplace", "FloatNoise", "SnappedLaplace", "TailLeakGaussian", "TailLeakLaplace",
]
