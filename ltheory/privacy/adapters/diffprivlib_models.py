"""diffprivlib's private models as auditable mechanisms (optional extra ``diffprivlib``).

What is audited: one private fit of ``diffprivlib.models.GaussianNB``, ``LogisticRegression`` or
``DecisionTreeClassifier`` per run, on a labelled dataset given as a tuple of ``(x, y)`` records
(``x`` a tuple of feature values, ``y`` a class label).  The output of a run (``output=``):

* ``"predictions"`` (default) — the fitted model's predicted labels on a fixed *probe set* (given,
  or a grid over the declared bounds / data-norm ball), a vector: what a user of the model sees;
  a post-processing of the model, so a bound on it is a bound on the model;
* ``"parameters"`` — the fitted parameters as a vector: ``GaussianNB`` the per-class means and
  variances (``theta_``, ``var_``) and class counts, ``LogisticRegression`` ``coef_`` and
  ``intercept_``.  Not offered for trees (their structure is not a fixed-length vector).

Vectors rather than hashes: the auditor's events (per-coordinate thresholds, linear
discriminants, exact cells when few distinct vectors occur) use the geometry a hash would lose.

Claims (diffprivlib 0.6 documentation, https://diffprivlib.readthedocs.io/en/latest/modules/
models.html): each model is ε-DP *given bounds fixed independently of the data* — ``bounds`` for
``GaussianNB`` (Vaidya, Shafiq, Basu & Hong 2013) and ``DecisionTreeClassifier`` (Fletcher &
Islam 2017, random trees), ``data_norm`` for ``LogisticRegression`` (Chaudhuri, Monteleoni &
Sarwate 2011, output perturbation); data outside the bounds is clipped to them.  Without declared
bounds the library computes them from the data and warns ``PrivacyLeakWarning``: the adapter only
does that when asked (``bounds="from_data"``), as a negative control.  The neighbour relation the
documentation leaves implicit; the adapter accepts substitution of one record and addition /
removal of one record (``are_neighbours``), and ``model_neighbours`` names which is which.

The adapter respects the declared bounds: by default it refuses datasets outside them
(``InvalidInputError``); ``enforce_bounds=False`` passes such data to the library on purpose.
Randomness: each fit gets ``random_state`` a ``RandomState`` seeded from the auditor's rng, so
runs are reproducible.  Fits are slow (milliseconds each) and cannot be vectorised: ``sample``
loops; keep run counts modest.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.privacy.adapters._common import random_state_from, require
from ltheory.validation import check_epsilon

__all__ = ["MODELS", "DiffprivlibModel", "model_neighbours"]

MODELS = ("gaussian_nb", "logistic_regression", "decision_tree")
OUTPUTS = ("predictions", "parameters")


def records(dataset: Any) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) arrays of a labelled dataset of ``(x, y)`` records."""
    try:
        xs = [np.atleast_1d(np.asarray(x, dtype=float)) for x, _ in dataset]
        ys = [int(y) for _, y in dataset]
    except (TypeError, ValueError):
        raise InvalidInputError("a model's dataset is a tuple of (x, y) records, x a tuple of "
                                "numbers and y an int label") from None
    if not xs:
        raise InvalidInputError("a model's dataset needs at least one record")
    if len({x.shape for x in xs}) != 1:
        raise InvalidInputError("every record's x must have the same number of features")
    X = np.stack(xs)
    if not np.all(np.isfinite(X)):
        raise InvalidInputError("features must be finite numbers")
    return X, np.asarray(ys, dtype=np.int64)


def _key(r: Any) -> tuple:
    x, y = r
    return (tuple(float(v) for v in np.atleast_1d(np.asarray(x, dtype=float))), int(y))


class DiffprivlibModel:
    """One private fit of a diffprivlib model per run (see
    [`ltheory.privacy.adapters.diffprivlib_models`][ltheory.privacy.adapters.diffprivlib_models]).

    ``model`` one of ``MODELS``; ``bounds`` ``(lower, upper)`` per feature (GaussianNB, tree) or
    ``"from_data"``; ``data_norm`` (logistic regression); ``probe`` points (rows) for
    ``output="predictions"``; ``classes`` the label set (default (0, 1)); ``max_depth`` for trees.
    """

    neighbour_relation = "substitution_or_add_remove"
    library = "diffprivlib"
    reproducible = True
    #: a fit takes 1-150 ms and is not vectorised: chunks of 256 runs let an audit of a few
    #: thousand runs use the process pool (see ltheory.privacy.auditing.executors)
    audit_chunk_runs = 256
    delta = 0.0

    def __init__(self, model: str, epsilon: float = 1.0, *, bounds: Any = None,
                 data_norm: float | None = None, probe: Any = None, output: str = "predictions",
                 classes: Sequence[int] = (0, 1), max_depth: int = 3,
                 enforce_bounds: bool = True, n_features: int | None = None) -> None:
        if model not in MODELS:
            raise InvalidInputError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
        if output not in OUTPUTS:
            raise InvalidInputError(f"output must be one of {', '.join(OUTPUTS)}, got {output!r}")
        if model == "decision_tree" and output == "parameters":
            raise InvalidInputError("decision trees have no fixed-length parameter vector; use "
                                    "output='predictions'")
        self.model, self.output = model, output
        self.epsilon = check_epsilon(epsilon)
        self.classes = tuple(int(c) for c in classes)
        if len(self.classes) < 2:
            raise InvalidInputError("classes needs at least two labels")
        self.max_depth = int(max_depth)
        self.enforce_bounds = bool(enforce_bounds)
        self.bounds: tuple[np.ndarray, np.ndarray] | str | None = None
        self.data_norm: float | None = None
        if model == "logistic_regression":
            if data_norm is None:
                raise InvalidInputError("logistic_regression needs data_norm (a bound on every "
                                        "record's L2 norm, fixed independently of the data)")
            self.data_norm = float(data_norm)
            if not (math.isfinite(self.data_norm) and self.data_norm > 0):
                raise InvalidInputError(f"data_norm must be a finite number > 0, got {data_norm!r}")
            d = n_features if n_features is not None else (None if probe is None
                                                           else np.shape(probe)[1])
        else:
            if bounds is None:
                raise InvalidInputError(f"{model} needs bounds=(lower, upper) per feature, fixed "
                                        "independently of the data (or 'from_data' on purpose)")
            if isinstance(bounds, str):
                if bounds != "from_data":
                    raise InvalidInputError("bounds must be (lower, upper) or 'from_data'")
                self.bounds = "from_data"
                d = n_features if n_features is not None else (None if probe is None
                                                               else np.shape(probe)[1])
            else:
                try:
                    lo, hi = (np.atleast_1d(np.asarray(b, dtype=float)) for b in bounds)
                except (TypeError, ValueError):
                    raise InvalidInputError("bounds must be (lower, upper), numbers or one per "
                                            "feature") from None
                if lo.shape != hi.shape or not np.all(lo < hi):
                    raise InvalidInputError("bounds need lower < upper in every feature")
                d = int(n_features) if n_features is not None else lo.size
                if lo.size not in (1, d):
                    raise InvalidInputError(f"bounds have {lo.size} entries, expected 1 or {d}")
                self.bounds = (np.broadcast_to(lo, (d,)).copy(), np.broadcast_to(hi, (d,)).copy())
        if d is None:
            raise InvalidInputError("give n_features (or a probe set) so the probe/parameter "
                                    "vector has a fixed size")
        self.n_features = int(d)
        self.probe = self._probe(probe)
        self.name = f"diffprivlib.{self._class_name()}[{output}]"

    # ------------------------------------------------------------------ configuration
    def _class_name(self) -> str:
        return {"gaussian_nb": "GaussianNB", "logistic_regression": "LogisticRegression",
                "decision_tree": "DecisionTreeClassifier"}[self.model]

    def _probe(self, probe: Any) -> np.ndarray:
        if probe is not None:
            p = np.asarray(probe, dtype=float)
            if p.ndim != 2 or p.shape[1] != self.n_features or not np.all(np.isfinite(p)):
                raise InvalidInputError(f"probe must be a 2-D array of finite points with "
                                        f"{self.n_features} features")
            return p
        d = self.n_features
        if isinstance(self.bounds, tuple):
            lo, hi = self.bounds
            lo, hi = np.broadcast_to(lo, (d,)), np.broadcast_to(hi, (d,))
            axes = [np.linspace(lo[j], hi[j], 5 if d <= 2 else 3) for j in range(d)]
        else:
            r = self.data_norm / math.sqrt(d) if self.data_norm else 1.0
            axes = [np.linspace(-r, r, 5 if d <= 2 else 3) for _ in range(d)]
        return np.array(list(itertools.product(*axes)), dtype=float)

    @property
    def claim(self) -> tuple[float, float]:
        return (self.epsilon, 0.0)

    def in_bounds(self, dataset: Any) -> bool:
        """Whether every record respects the declared bounds / data norm."""
        X, _ = records(dataset)
        if self.model == "logistic_regression":
            return bool(np.all(np.linalg.norm(X, axis=1) <= self.data_norm * (1 + 1e-12)))
        if not isinstance(self.bounds, tuple):
            return True
        lo, hi = self.bounds
        return bool(np.all((X >= lo) & (X <= hi)))

    def are_neighbours(self, d0: Any, d1: Any) -> bool:
        """Substitution of one record, or addition/removal of one record."""
        try:
            a, b = [_key(r) for r in d0], [_key(r) for r in d1]
        except (TypeError, ValueError):
            return False
        if len(a) == len(b):
            return sum(u != v for u, v in zip(a, b, strict=True)) == 1
        if abs(len(a) - len(b)) != 1:
            return False
        long, short = (a, b) if len(a) > len(b) else (b, a)
        return any(long[:i] + long[i + 1:] == short for i in range(len(long)))

    # ------------------------------------------------------------------ running
    def _estimator(self, random_state: Any) -> Any:
        models = require("diffprivlib.models")
        bounds = None if self.bounds == "from_data" else self.bounds
        if self.model == "gaussian_nb":
            return models.GaussianNB(epsilon=self.epsilon, bounds=bounds,
                                     random_state=random_state)
        if self.model == "logistic_regression":
            return models.LogisticRegression(epsilon=self.epsilon, data_norm=self.data_norm,
                                             random_state=random_state)
        return models.DecisionTreeClassifier(max_depth=self.max_depth, epsilon=self.epsilon,
                                             bounds=bounds, classes=list(self.classes),
                                             random_state=random_state)

    def _check(self, dataset: Any) -> tuple[np.ndarray, np.ndarray]:
        X, y = records(dataset)
        if X.shape[1] != self.n_features:
            raise InvalidInputError(f"records have {X.shape[1]} features, the model was "
                                    f"configured for {self.n_features}")
        if not set(np.unique(y).tolist()) <= set(self.classes):
            raise InvalidInputError(f"labels must be in {self.classes}")
        if self.enforce_bounds and not self.in_bounds(dataset):
            what = "data_norm" if self.model == "logistic_regression" else "bounds"
            raise InvalidInputError(f"the dataset violates the declared {what}; pass "
                                    "enforce_bounds=False to audit out-of-bounds data on purpose")
        return X, y

    def _vector(self, est: Any) -> np.ndarray:
        if self.output == "predictions":
            return np.asarray(est.predict(self.probe), dtype=float)
        if self.model == "gaussian_nb":
            return np.concatenate([np.ravel(est.theta_), np.ravel(est.var_),
                                   np.ravel(est.class_count_)]).astype(float)
        return np.concatenate([np.ravel(est.coef_), np.ravel(est.intercept_)]).astype(float)

    def fit_once(self, dataset: Any, rng: np.random.Generator) -> Any:
        """One private fit (the fitted diffprivlib estimator)."""
        X, y = self._check(dataset)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self._estimator(random_state_from(rng)).fit(X, y)

    def sample(self, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        X, y = self._check(dataset)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(int(n)):
                est = self._estimator(random_state_from(rng)).fit(X, y)
                out.append(self._vector(est))
        return np.stack(out)

    def __call__(self, dataset: Any, rng: np.random.Generator) -> np.ndarray:
        return self.sample(dataset, 1, rng)[0]

    def __repr__(self) -> str:
        return f"DiffprivlibModel({self.model!r}, epsilon={self.epsilon:g}, output={self.output!r})"


def _corners(model: DiffprivlibModel) -> list[tuple[float, ...]]:
    d = model.n_features
    if isinstance(model.bounds, tuple):
        lo, hi = (np.broadcast_to(b, (d,)) for b in model.bounds)
        return [tuple(float(v) for v in c) for c in itertools.product(*zip(lo, hi, strict=True))]
    r = (model.data_norm or 1.0) / math.sqrt(d)
    return [tuple(c) for c in itertools.product(*([(-r, r)] * d))]


def model_neighbours(model: DiffprivlibModel, dataset: Any, *, boundary_records: int = 2,
                     outlier_scale: float | None = None) -> list[tuple[str, Any, Any]]:
    """Named neighbouring pairs ``(name, d0, d1)`` that stress a model, for ``audit_search``:

    * ``flip boundary i`` — flip the label of the records nearest the decision boundary of a
      non-private scikit-learn fit of the same family (substitution);
    * ``outlier replaces i: corner, y`` — record i replaced by a corner of the declared bounds
      (or of the cube inscribed in the data-norm ball) with either label (substitution);
    * ``outlier added: corner, y`` — a record at a corner added (add/remove);
    * with ``outlier_scale`` s: the corners scaled by s, i.e. *outside* the declared bounds when
      s > 1 (for the negative test; such pairs need ``enforce_bounds=False``).
    """
    X, y = records(dataset)
    d = tuple(_key(r) for r in dataset)
    sk = require("sklearn.linear_model")
    out: list[tuple[str, Any, Any]] = []
    if len(np.unique(y)) > 1:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = sk.LogisticRegression().fit(X, y)
        margin = np.abs(ref.decision_function(X))
        for i in np.argsort(margin, kind="stable")[:boundary_records]:
            i = int(i)
            flipped = (d[i][0], model.classes[1] if d[i][1] == model.classes[0]
                       else model.classes[0])
            out.append((f"flip boundary record {i}: {d[i]}", d, d[:i] + (flipped,) + d[i + 1:]))
    corners = _corners(model)
    if outlier_scale is not None:
        corners = [tuple(float(outlier_scale) * v for v in c) for c in corners]
    i = int(np.argmax(np.abs(ref.decision_function(X)))) if len(np.unique(y)) > 1 else 0
    for c in corners:
        for lab in model.classes[:2]:
            rec = (c, lab)
            if rec != d[i]:
                out.append((f"outlier replaces record {i}: {rec}", d, d[:i] + (rec,) + d[i + 1:]))
            out.append((f"outlier added: {rec}", d, d + (rec,)))
    return out
