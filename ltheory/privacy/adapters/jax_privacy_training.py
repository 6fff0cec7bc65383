"""One real DP-SGD training run with jax-privacy, audited in one run (optional extras ``jax``
and ``learners``).

What is trained: a small MLP (64 → ``hidden`` → 10, tanh) classifying the handwritten digits
that scikit-learn ships (``sklearn.datasets.load_digits``: 1,797 8×8 images, pixels scaled to
[0, 1]; a seeded 80/20 split), with jax-privacy's own DP-SGD pipeline — nothing of it is
re-implemented here: ``jax_privacy.batch_selection.CyclicPoissonSampling`` (Poisson sampling at
rate q over the whole training set, canaries included), ``jax_privacy.clipped_grad``
(per-example gradients clipped to L2 norm C and summed; the padding of a variable batch passed
as ``is_padding_example``) and ``jax_privacy.noise_addition.gaussian_privatizer`` (N(0, σ²C²)
per coordinate), chained with ``optax.sgd`` at rate η / (q·n), η the ``learning_rate`` and q·n
the expected batch size.

Two kinds of canaries are trained in the same run, each canary included independently with
probability 1/2 (the inclusion mask drawn by ``auditing.scores.inclusion_mask`` from
``inclusion_seed`` for the input canaries and ``inclusion_seed + 1`` for the gradient canaries):

* **input-space canaries** — images of uniform random pixels with a uniformly random label,
  ordinary training examples (cross-entropy loss, clipped like the rest); the auditor sees only
  the **final model** (black box) and scores each canary by its logit margin
  z_y − max_{j≠y} z_j;
* **gradient-space canaries** — the Dirac canaries of Steinke, Nasr & Jagielski (2023, §6;
  Nasr et al. 2023 "Tight auditing"): canary i's loss is −G·θ[c_i] on a parameter coordinate
  c_i of its own (G = 10C, so its clipped gradient is −C·e_{c_i} whatever θ); the auditor sees
  **every iterate** (white box) and scores canary i by the log-likelihood ratio of its
  coordinate's increments r_t = (θ_t − θ_{t−1})[c_i] /(lr·C) under "in" against "out",
  Σ_t log(1 − q + q·exp((2r_t − 1)/(2σ²))) — the exact likelihood ratio if the other examples'
  gradients had no component on c_i (they do, a little: the bound stays sound, only less
  tight).

Both statistics are fixed before training, so the one-run analysis applies unchanged
(``audit_scores(..., setting="one-run")``: Steinke et al. 2023; f-DP, Mahloujifar, Melis &
Chaudhuri 2024): the training is (ε, δ)-DP with respect to each canary — an example of the
Poisson-sampled dataset like any other — at the ε jax-privacy's accountant reports
(``DpsgdTrainingAccountant`` with ``SamplingMethod.POISSON``, PLD, add/remove, via
[`JaxPrivacyDPSGD`][ltheory.privacy.adapters.JaxPrivacyDPSGD]).  Each kind is audited at
level α/2, so the larger of the two bounds, ``epsilon_lower_bound``, is wrong with probability
at most α.

Randomness: the split, the canaries, the inclusion, the batch selection (a numpy
``Generator``) and the noise (``jax.random`` keys) all derive from ``seed`` and
``inclusion_seed``; a run is a deterministic function of them on one machine.
"""

from __future__ import annotations

import json
import math
import time
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ltheory.errors import InvalidInputError
from ltheory.jsonable import to_jsonable
from ltheory.privacy.adapters._common import require
from ltheory.privacy.adapters.jax_privacy_dpsgd import JaxPrivacyDPSGD, jax_modules
from ltheory.validation import check_delta, check_int, check_level, check_real, check_seed

__all__ = ["TrainingAuditReport", "audit_digits_training"]

#: a gradient canary's gradient norm before clipping, in units of C
CANARY_NORM = 10.0
#: batches are padded to a multiple of this (one compiled shape per run)
PAD_MULTIPLE = 32
#: the digits data: 64 pixels, 10 classes
PIXELS, CLASSES = 64, 10


@dataclass(frozen=True)
class TrainingAuditReport:
    """The result of
    [`audit_digits_training`][ltheory.privacy.adapters.audit_digits_training] (strict JSON
    via ``to_json``).

    ``epsilon_lower_bound``: the larger of the two kinds' one-run bounds at ``delta``, each
    certified at α/2, so wrong with probability at most ``alpha``; ``accountant_epsilon``: the ε
    of jax-privacy's accountant for the configuration at ``delta``; ``audits``: each kind's
    [`ScoreAuditReport`][ltheory.privacy.ScoreAuditReport] as JSON (``"input"``: black box,
    final model; ``"gradient"``: white box, all iterates); ``test_accuracy``: the trained
    model's accuracy on the held-out 20% of the digits; ``examples``: training examples,
    canaries per kind and how many were included; ``seconds``: wall time of the training
    (including compilation), of the audits and of the accountant.

    ``limits`` (not sound bounds: what the audit is measured against): ``<kind>_perfect_guesses``,
    the bound the same one-run analysis gives when every guess is correct — the most any
    one-run audit with these m canaries certifies at α/2; ``gradient_ideal``, the same audit
    of scores drawn from the exact law of the Dirac canary's statistic with no other examples
    ([`DPSGDCanary`][ltheory.privacy.mechanisms.DPSGDCanary], same q, σ, T, mask) — what the
    gradient canaries would certify if the digits' gradients did not touch their coordinates;
    ``gradient_uncentred`` (with ``centred=True``), the same one-run audit of the raw
    increments' statistic — sound on its own at α/2, but not together with the reported bound
    (taking the larger of the two would need α/3 each): it shows what centring gains."""

    epsilon_lower_bound: float
    accountant_epsilon: float
    delta: float
    alpha: float
    audits: dict
    test_accuracy: float
    examples: dict
    config: dict
    seconds: dict
    limits: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    settings: dict = field(default_factory=dict)

    @property
    def fraction_of_accountant(self) -> float:
        """``epsilon_lower_bound / accountant_epsilon``."""
        return self.epsilon_lower_bound / self.accountant_epsilon

    def to_json(self) -> dict:
        """The report as a JSON-ready dict (no NaN or infinity literals)."""
        return to_jsonable(asdict(self))

    def dumps(self, **kw: Any) -> str:
        """``to_json`` as a JSON string."""
        return json.dumps(self.to_json(), ensure_ascii=False, allow_nan=False, **kw)

    def summary(self) -> str:
        """A few lines for a terminal."""
        lines = [f"DP-SGD on digits (jax-privacy): accountant epsilon "
                 f"{self.accountant_epsilon:.3f} at delta={self.delta:g}; test accuracy "
                 f"{self.test_accuracy:.3f}",
                 f"one-run lower bound {self.epsilon_lower_bound:.3f} "
                 f"({self.fraction_of_accountant:.2f} of the accountant's), alpha="
                 f"{self.alpha:g}"]
        for kind, a in self.audits.items():
            c = a["counts"]
            lines.append(f"  {kind:8s} canaries: {a['epsilon_lower_bound']:.3f} "
                         f"({c.get('correct')} of {c.get('guesses')} guesses correct, "
                         f"{c.get('canaries')} canaries)")
        if self.limits:
            lines.append("  limits: " + ", ".join(f"{k} {v:.3f}" for k, v in self.limits.items()))
        lines.append("  seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in self.seconds.items()))
        return "\n".join(lines)


# --------------------------------------------------------------------------- the data
def _digits(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """(x_train, y_train, x_test, y_test): the digits, pixels in [0, 1], a seeded 80/20 split."""
    datasets = require("sklearn.datasets")
    d = datasets.load_digits()
    x = np.asarray(d.data, dtype=np.float32) / 16.0
    y = np.asarray(d.target, dtype=np.int32)
    order = rng.permutation(len(y))
    cut = int(round(0.8 * len(y)))
    tr, te = order[:cut], order[cut:]
    return x[tr], y[tr], x[te], y[te]


def _layout(hidden: int) -> tuple[slice, slice, slice, slice]:
    """Where W₁ (64 × hidden), b₁, W₂ (hidden × 10) and b₂ sit in the flat parameter vector."""
    a = PIXELS * hidden
    b = a + hidden
    c = b + hidden * CLASSES
    return slice(0, a), slice(a, b), slice(b, c), slice(c, c + CLASSES)


def _param_count(hidden: int) -> int:
    return _layout(hidden)[3].stop


def _logits(jnp: Any, theta: Any, x: Any, hidden: int) -> Any:
    """The MLP on a flat parameter vector θ (so a coordinate is one index)."""
    w1, b1, w2, b2 = (theta[s] for s in _layout(hidden))
    return jnp.tanh(x @ w1.reshape(PIXELS, hidden) + b1) @ w2.reshape(hidden, CLASSES) + b2


def _batches(q: float, steps: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """jax-privacy's Poisson batches of the n examples for every step, padded to one width:
    (indices (T, B), padding (T, B)), the pad rows pointing at example 0 and flagged."""
    _, _, _, jp = jax_modules()
    bs = jp.batch_selection
    strat = bs.CyclicPoissonSampling(sampling_prob=q, iterations=steps, cycle_length=1,
                                     partition_type=bs.PartitionType.INDEPENDENT)
    batches = [np.asarray(b, dtype=np.int64) for b in strat.batch_iterator(n, rng=rng)]
    width = max(1, max(b.size for b in batches))
    width = PAD_MULTIPLE * math.ceil(width / PAD_MULTIPLE)
    idx = np.zeros((steps, width), dtype=np.int32)
    pad = np.ones((steps, width), dtype=bool)
    for t, b in enumerate(batches):
        idx[t, :b.size] = b
        pad[t, :b.size] = False
    return idx, pad


# --------------------------------------------------------------------------- the audit
def audit_digits_training(*, input_canaries: int = 1000, gradient_canaries: int = 1000,
                          q: float = 0.1, sigma: float = 1.0, steps: int = 500,
                          clip: float = 1.0, learning_rate: float = 2.0, hidden: int = 64,
                          delta: float = 1e-5, alpha: float = 0.05, seed: int = 0,
                          inclusion_seed: int | None = None,
                          analysis: str = "fdp", centred: bool = True) -> TrainingAuditReport:
    """Train an MLP on scikit-learn's digits with jax-privacy's DP-SGD and canaries of both
    kinds in the same run, and audit the run in one run (module docstring).

    Args:
        input_canaries: m input-space canaries (each included with probability 1/2); 0
            leaves the kind out.  At least one kind must have 10 or more.
        gradient_canaries: m gradient-space canaries, on distinct parameter coordinates, so
            at most the model's ``64·hidden + hidden + 10·hidden + 10``; 0 leaves them out.
        q: the Poisson sampling rate.
        sigma: the noise multiplier σ.
        steps: the number of steps T.
        clip: the clipping norm C.
        learning_rate: η, the SGD rate per expected batch (the optimizer's rate is η / (q·n)).
        hidden: the width of the hidden layer.
        delta: the δ of the bound and of the accountant's ε.
        alpha: the failure probability of the reported bound (α/2 per kind).
        seed: the seed of the split, the canaries, the batches and the noise.
        inclusion_seed: the seed of the inclusion masks (default ``seed``): input canaries
            ``inclusion_seed``, gradient canaries ``inclusion_seed + 1``, as
            [`inclusion_mask`][ltheory.privacy.inclusion_mask] draws them.
        analysis: the one-run analysis, ``"fdp"`` or ``"steinke"``, as ``audit_scores``.
        centred: centre the gradient canaries' increments on the digits' expected share
            (module docstring); False scores the raw increments.

    Returns:
        A [`TrainingAuditReport`][ltheory.privacy.adapters.TrainingAuditReport].

    Raises:
        InvalidInputError: a parameter out of range, a configuration jax-privacy's accountant
            cannot account, or a missing extra (``jax``, ``learners``).

    Examples:
        >>> r = audit_digits_training(input_canaries=100, gradient_canaries=100,
        ...                           steps=20)                         # doctest: +SKIP
        >>> r.epsilon_lower_bound <= r.accountant_epsilon                # doctest: +SKIP
        True
    """
    from ltheory.privacy.auditing.scores import audit_scores, inclusion_mask

    m_in = check_int(input_canaries, "input_canaries", minimum=0, maximum=1_000_000)
    hidden = check_int(hidden, "hidden", minimum=1, maximum=4096)
    d = _param_count(hidden)
    m_g = check_int(gradient_canaries, "gradient_canaries", minimum=0, maximum=d)
    if max(m_in, m_g) < 10:
        raise InvalidInputError("at least one kind of canary needs 10 or more canaries "
                                f"(got input_canaries={m_in}, gradient_canaries={m_g})")
    if 0 < m_in < 10 or 0 < m_g < 10:
        raise InvalidInputError("a kind of canary with fewer than 10 canaries certifies "
                                "nothing: use 0 to leave it out")
    q = check_real(q, "q", 0.0, 1.0)
    sigma = check_real(sigma, "sigma", 0.0, 1e6)
    steps = check_int(steps, "steps", minimum=1, maximum=100_000)
    clip = check_real(clip, "clip", 0.0, 1e6)
    lr_eta = check_real(learning_rate, "learning_rate", 0.0, 1e6)
    delta = check_delta(delta)
    if delta <= 0:
        raise InvalidInputError("delta must be in (0, 1): DP-SGD is not pure DP")
    alpha = check_level(alpha, "alpha")
    seed = check_seed(seed, "seed", allow_none=False)
    inclusion_seed = seed if inclusion_seed is None else check_seed(
        inclusion_seed, "inclusion_seed", allow_none=False)
    if analysis not in ("fdp", "steinke"):
        raise InvalidInputError(f"analysis must be 'fdp' or 'steinke' (an (epsilon, delta) "
                                f"lower bound), got {analysis!r}")
    jax, jnp, optax, jp = jax_modules()

    t_acc = time.perf_counter()
    pipeline = JaxPrivacyDPSGD(q=q, sigma=sigma, steps=steps, delta=delta)
    acc_eps = pipeline.accountant_epsilon
    t_acc = time.perf_counter() - t_acc

    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    x_tr, y_tr, x_te, y_te = _digits(rng)
    mask_in = inclusion_mask(m_in, inclusion_seed) if m_in else np.zeros(0, bool)
    mask_g = inclusion_mask(m_g, inclusion_seed + 1) if m_g else np.zeros(0, bool)
    cx = rng.random((m_in, PIXELS)).astype(np.float32)
    cy = rng.integers(0, CLASSES, m_in).astype(np.int32)
    coords = np.sort(rng.choice(d, size=m_g, replace=False)).astype(np.int32)

    # the training set: the digits, the included input canaries, the included gradient canaries
    n_data, k_in, k_g = len(y_tr), int(mask_in.sum()), int(mask_g.sum())
    n = n_data + k_in + k_g
    x = np.zeros((n, PIXELS), dtype=np.float32)
    y = np.zeros(n, dtype=np.int32)
    kind = np.zeros(n, dtype=np.int32)             # 1: gradient canary
    coord = np.zeros(n, dtype=np.int32)
    x[:n_data], y[:n_data] = x_tr, y_tr
    x[n_data:n_data + k_in], y[n_data:n_data + k_in] = cx[mask_in], cy[mask_in]
    kind[n_data + k_in:] = 1
    coord[n_data + k_in:] = coords[mask_g]
    idx, pad = _batches(q, steps, n, rng)
    lr = lr_eta / (q * n)
    g_norm = CANARY_NORM * clip

    def loss(theta: Any, batch: Any) -> Any:
        bx, by, bk, bc = batch
        z = _logits(jnp, theta, bx, hidden)
        ce = -jnp.sum(jax.nn.log_softmax(z) * jax.nn.one_hot(by, CLASSES))
        dirac = -g_norm * jnp.sum(theta[bc])
        return jnp.sum(jnp.where(bk == 1, dirac, ce))

    grad = jp.clipped_grad(loss, l2_clip_norm=clip)
    init = np.random.default_rng(seed + 1).normal(0.0, 1.0, d).astype(np.float32)
    w1, b1, w2, b2 = _layout(hidden)
    init[w1] /= math.sqrt(PIXELS)
    init[w2] /= math.sqrt(hidden)
    init[b1] = 0.0
    init[b2] = 0.0
    arrays = tuple(jnp.asarray(v) for v in (x, y, kind, coord))
    digits = tuple(v[:n_data] for v in arrays)
    centre = bool(centred) and m_g > 0
    watch = jnp.asarray(coords)

    def train(key: Any, idx: Any, pad: Any) -> Any:
        opt = optax.chain(jp.noise_addition.gaussian_privatizer(stddev=sigma * clip,
                                                                prng_key=key),
                          optax.sgd(lr))
        theta = jnp.asarray(init)

        def step(carry: Any, batch: Any) -> Any:
            th, st = carry
            i, p = batch
            g = grad(th, tuple(v[i] for v in arrays), is_padding_example=p)
            # the white-box auditor's view of θ_{t−1}: the digits' summed clipped gradient
            drift = grad(th, digits)[watch] if centre else jnp.zeros_like(th[watch])
            upd, st = opt.update(g, st, th)
            th = optax.apply_updates(th, upd)
            return (th, st), (th[watch], drift)

        (theta, _), watched = jax.lax.scan(step, (theta, opt.init(theta)), (idx, pad))
        return theta, watched

    key = jax.random.key(int(rng.integers(0, 2**63 - 1)))
    with warnings.catch_warnings():        # jax-privacy 2.0 calls optax.global_norm, deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        theta, (watched, drift) = jax.jit(train)(key, jnp.asarray(idx), jnp.asarray(pad))
        theta = np.asarray(theta, dtype=np.float64)
        watched = np.asarray(watched, dtype=np.float64)
        drift = np.asarray(drift, dtype=np.float64)
    t_train = time.perf_counter() - t0

    t1 = time.perf_counter()
    z_te = np.asarray(_logits(jnp, jnp.asarray(theta, dtype=jnp.float32), jnp.asarray(x_te),
                              hidden))
    accuracy = float((z_te.argmax(axis=1) == y_te).mean())
    audits: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    kinds = [k for k, m in (("input", m_in), ("gradient", m_g)) if m]
    level = alpha / len(kinds)
    if m_in:
        z = np.asarray(_logits(jnp, jnp.asarray(theta, dtype=jnp.float32), jnp.asarray(cx),
                               hidden), dtype=np.float64)
        own = z[np.arange(m_in), cy]
        z[np.arange(m_in), cy] = -np.inf
        margin = own - z.max(axis=1)
        audits["input"] = audit_scores(margin, mask=mask_in, setting="one-run", delta=delta,
                                       alpha=level, seed=seed, analysis=analysis)
    if m_g:
        start = init[coords].astype(np.float64)[None, :]
        r = np.diff(np.concatenate([start, watched], axis=0), axis=0) / (lr * clip)
        if centre:                            # the other statistic, for comparison only
            other = pipeline.slot_llr(r, 1.0).sum(axis=0)
            limits["gradient_uncentred"] = audit_scores(
                other, mask=mask_g, setting="one-run", delta=delta, alpha=level, seed=seed,
                analysis=analysis).epsilon_lower_bound
            r = r + q * drift / clip          # centred: minus the digits' expected share
        llr = pipeline.slot_llr(r, 1.0).sum(axis=0)          # (m_g,)
        audits["gradient"] = audit_scores(llr, mask=mask_g, setting="one-run", delta=delta,
                                          alpha=level, seed=seed, analysis=analysis)
    for kind, mask in (("input", mask_in), ("gradient", mask_g)):
        if kind in audits:                 # every guess correct: no one-run audit does better
            perfect = mask + 0.5 * np.random.default_rng(seed + 2).random(mask.size)
            limits[f"{kind}_perfect_guesses"] = audit_scores(
                perfect, mask=mask, setting="one-run", delta=delta, alpha=level, seed=seed,
                analysis=analysis).epsilon_lower_bound
    if m_g:                                # the same audit of the exact Dirac-canary law
        from ltheory.privacy.mechanisms import DPSGDCanary

        ideal = DPSGDCanary(q, sigma, steps, release="all", clip=clip, delta=delta)
        out_d, in_d = ideal.default_pair()
        sim = np.random.default_rng(seed + 3)
        s = np.empty(m_g)
        s[mask_g] = ideal.sample(in_d, k_g, sim)
        s[~mask_g] = ideal.sample(out_d, m_g - k_g, sim)
        limits["gradient_ideal"] = audit_scores(
            s, mask=mask_g, setting="one-run", delta=delta, alpha=level, seed=seed,
            analysis=analysis).epsilon_lower_bound
    t_audit = time.perf_counter() - t1
    best = max(a.epsilon_lower_bound for a in audits.values())
    notes = []
    if best > acc_eps:
        notes.append("the certified bound exceeds the accountant's epsilon: a finding (the "
                     "training is less private than jax-privacy's accountant says)")
    return TrainingAuditReport(
        epsilon_lower_bound=float(best), accountant_epsilon=float(acc_eps), delta=delta,
        alpha=alpha, audits={k: v.to_json() for k, v in audits.items()},
        test_accuracy=accuracy,
        examples={"digits_train": n_data, "digits_test": int(len(y_te)),
                  "input_canaries": m_in, "input_included": k_in,
                  "gradient_canaries": m_g, "gradient_included": k_g, "training_set": n,
                  "expected_batch": q * n, "padded_batch": int(idx.shape[1])},
        config={"q": q, "sigma": sigma, "steps": steps, "clip": clip,
                "learning_rate": lr_eta, "hidden": hidden, "parameters": d,
                "analysis": analysis, "centred": bool(centred), "seed": seed,
                "inclusion_seed": inclusion_seed,
                "jax_privacy": jp.__version__, "accountant": pipeline.accountant_name},
        seconds={"training": t_train, "audit": t_audit, "accountant": t_acc},
        limits={k: float(v) for k, v in limits.items()}, notes=tuple(notes))
