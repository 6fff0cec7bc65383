"""Adapters that turn third-party differential-privacy code into auditable mechanisms.

Each adapter is a mechanism in the sense of the [mechanism
contract][ltheory.privacy.mechanisms.Mechanism]: callable as ``mechanism(dataset, rng)``, with a
vectorised ``sample(dataset, n, rng)`` and its library's privacy claim as data (``.claim = (ε,
δ)``), so ``ltheory.privacy.audit`` can check the claim of code we did not write.  The libraries are
the optional extras ``diffprivlib``, ``opendp`` and ``jax`` (``pip install 'ltheory[diffprivlib]'``,
which pins a compatible scikit-learn, ``pip install 'ltheory[opendp]'`` and ``pip install
'ltheory[jax]'``, which pins jax-privacy, jax and jaxlib):

* ``ltheory.privacy.adapters.diffprivlib_mechanisms`` — IBM diffprivlib's ``Laplace``,
  ``Geometric``, ``Gaussian``, ``Exponential`` and ``Snapping`` mechanisms;
* ``ltheory.privacy.adapters.diffprivlib_models`` — diffprivlib's ``GaussianNB``,
  ``LogisticRegression`` and ``DecisionTreeClassifier`` (output: predictions on a probe set, or
  the fitted parameters), with neighbouring datasets that stress a model (``model_neighbours``);
* ``ltheory.privacy.adapters.opendp_measurements`` — OpenDP's Laplace, Gaussian, geometric,
  randomized-response and noisy-max measurements, and its zCDP Gaussian (float, or the discrete
  Gaussian on integers) with the claim ``ZCDP(ρ)`` as a curve;
* ``ltheory.privacy.adapters.jax_privacy_dpsgd`` — jax-privacy's DP-SGD pipeline (its batch
  selection, ``clipped_grad`` and noise addition, Gaussian or matrix-factorisation) on a
  gradient canary, many runs vectorised with ``jax.vmap``, against the ε of jax-privacy's own
  accountant (``JaxPrivacyDPSGD``);
* ``ltheory.privacy.adapters.jax_privacy_training`` — one real training run: an MLP on
  scikit-learn's digits trained with jax-privacy's DP-SGD, with input-space and gradient-space
  canaries audited in one run (``audit_digits_training``; extras ``jax`` and ``learners``);
* ``ltheory.privacy.adapters.floatbits`` — bit-level features of floating-point outputs
  (exponent, trailing zero bits and low-order bits of the significand) as a post-processing
  wrapper, to test the floating-point weakness of naive Laplace noise (Mironov 2012).

The modules import their library lazily and raise ``InvalidInputError`` naming the extra when it
is missing.  Randomness: diffprivlib draws from the ``numpy.random.RandomState`` passed as
``random_state``, which the adapters seed from the auditor's ``rng`` (runs are reproducible);
OpenDP samples from OS randomness and cannot be seeded (runs are not bit-reproducible, the bound
is still sound because every run is a fresh, independent draw).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:       # the names, for type checkers, editors and the API reference (never run)
    from ltheory.privacy.adapters.diffprivlib_mechanisms import (
        DiffprivlibExponential,
        DiffprivlibGaussian,
        DiffprivlibGeometric,
        DiffprivlibLaplace,
        DiffprivlibSnapping,
    )
    from ltheory.privacy.adapters.diffprivlib_models import DiffprivlibModel, model_neighbours
    from ltheory.privacy.adapters.floatbits import BitFeatures, float_features
    from ltheory.privacy.adapters.jax_privacy_dpsgd import JaxPrivacyDPSGD
    from ltheory.privacy.adapters.jax_privacy_training import (
        TrainingAuditReport,
        audit_digits_training,
    )
    from ltheory.privacy.adapters.opendp_measurements import (
        OpenDPGaussian,
        OpenDPGeometric,
        OpenDPLaplace,
        OpenDPNoisyMax,
        OpenDPRandomizedResponse,
        OpenDPZCDPGaussian,
    )

_EXPORTS = {
    "DiffprivlibLaplace": "diffprivlib_mechanisms",
    "DiffprivlibGeometric": "diffprivlib_mechanisms",
    "DiffprivlibGaussian": "diffprivlib_mechanisms",
    "DiffprivlibExponential": "diffprivlib_mechanisms",
    "DiffprivlibSnapping": "diffprivlib_mechanisms",
    "DiffprivlibModel": "diffprivlib_models",
    "model_neighbours": "diffprivlib_models",
    "OpenDPLaplace": "opendp_measurements",
    "OpenDPGaussian": "opendp_measurements",
    "OpenDPZCDPGaussian": "opendp_measurements",
    "OpenDPGeometric": "opendp_measurements",
    "OpenDPRandomizedResponse": "opendp_measurements",
    "OpenDPNoisyMax": "opendp_measurements",
    "JaxPrivacyDPSGD": "jax_privacy_dpsgd",
    "audit_digits_training": "jax_privacy_training",
    "TrainingAuditReport": "jax_privacy_training",
    "BitFeatures": "floatbits",
    "float_features": "floatbits",
}

__all__ = ["BitFeatures", "DiffprivlibExponential", "DiffprivlibGaussian", "DiffprivlibGeometric",
           "DiffprivlibLaplace", "DiffprivlibModel", "DiffprivlibSnapping", "JaxPrivacyDPSGD",
           "OpenDPGaussian", "OpenDPGeometric", "OpenDPLaplace", "OpenDPNoisyMax",
           "OpenDPRandomizedResponse", "OpenDPZCDPGaussian", "TrainingAuditReport",
           "audit_digits_training", "float_features", "model_neighbours"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        mod = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
        return getattr(mod, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
