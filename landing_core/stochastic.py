"""Stochastic landing on finite sums, epoch by epoch (Ablin, Vary, Gao & Absil 2024).

``epochs`` drives a method through ``solvers.iterate`` (the stochastic methods are ordinary
registered methods, ``methods.sgd`` and ``methods.saga``, whose gradient is a minibatch
estimate) and yields one :class:`EpochRecord` per epoch: ceil(m / b) updates, one pass over
the data. At each epoch's end it evaluates the full sum once for the record: f(X), ||h(X)||
and the stationarity measure of the full gradient (``Method.stationarity``, the one every
stopping rule reads: ||grad_1 f(X)||_F on St(n, p)); this monitoring is not counted among
the sample gradients used; the minibatch estimates are not measured in between (their
fields skip the stationarity measure, ``StochasticLanding.measure``). A method without a
batch (full-batch landing) makes one update per epoch, m sample gradients each.
``stochastic_landing`` folds the records into a :class:`StochasticResult`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from .methods.base import Method
from .methods.minibatch import StochasticLanding, check_batch_size
from .methods.registry import REGISTRY
from .problems import FiniteSum
from .run import History, Outcome, Status
from .solvers import Config, iterate, make_method
from .steps import StepRule

Array = np.ndarray

__all__ = ["EpochRecord", "StochasticResult", "default_step", "epochs", "stochastic_landing"]


@dataclass(frozen=True)
class EpochRecord:
    """The iterate at the end of ``epoch`` (0: X_0) with the full sum's numbers there.

    cost: f(X); infeasibility: ||h(X)||_F; stationarity: the stopping rule's measure
    (``Method.stationarity``) of the full gradient; step: the last step taken; updates:
    minibatch updates so far; sample_gradients: sample gradients evaluated so far (SAGA's
    table at X_0 included); time: seconds of the run so far; status "running", or
    "diverged" (with the message) on a final record that repeats the last epoch's numbers."""

    epoch: int
    X: Array
    cost: float
    infeasibility: float
    stationarity: float
    step: float
    updates: int
    sample_gradients: int
    time: float
    status: Status = Status.RUNNING
    message: str = ""


@dataclass(kw_only=True, repr=False)
class StochasticResult(Outcome):
    """A finished stochastic run (``run.Outcome``) with the number of ``epochs`` run; its
    histories are per epoch (epochs + 1 entries, X_0's first): ``grad_norm`` is the full
    sum's stationarity measure, ``step`` the epoch's last step and ``normal_step`` that step
    times omega; ``f_star`` over X_0's component of O(n) when p = n. ``updates``: the
    minibatch updates made; ``sample_gradients``: the sample gradients used by each epoch's
    end (cumulative)."""

    epochs: int
    updates: int
    sample_gradients: Array
    config: Config


def default_step(problem: FiniteSum, batch_size: int) -> float:
    """eta = min(1, b / 10) / (5 L), L = max_i L_i, used by every method of a comparison so
    that curves side by side differ in the gradient estimate only.

    SAGA's theory takes 1 / (3 L) for the Euclidean gradient, whatever the batch (Defazio et
    al. 2014, Theorem 1). Landing asks for less: the noise of the estimate pushes X off the
    manifold by about eta sigma^2 / (b omega) against the normal term's pull, and the tangent
    term is cubic in X. On online PCA, SAGA converges linearly with about these steps for
    b = 10, 3 and 1, and stalls or diverges with twice them (tests/app/test_stochastic.py checks
    b = 10)."""
    return min(1.0, batch_size / 10) / (5.0 * problem.lipschitz)


def _check(problem: object, batch_size: int, n_epochs: int) -> FiniteSum:
    if not isinstance(problem, FiniteSum):
        raise ValueError(f"stochastic landing needs a finite sum f = 1/m sum_i f_i, and the "
                         f"problem {getattr(problem, 'name', problem)!r} has no samples; use a "
                         "problems.FiniteSum such as problems.online_pca(n, p, samples)")
    if not (isinstance(n_epochs, numbers.Integral) and n_epochs >= 1):
        raise ValueError(f"epochs must be an integer >= 1, got {n_epochs!r}")
    check_batch_size(batch_size, problem.n_samples)
    return problem


def stochastic_config(method: str, *, batch_size: int, step: float | str | StepRule | None,
                      beta: float, omega: float, seed: int, tangent: str = "beta",
                      problem: FiniteSum, **options: object) -> Config:
    """The Config of a stochastic run: a method that takes a batch gets ``batch_size`` and
    ``seed``; any other (full-batch landing) takes neither. ``step`` None: ``default_step``."""
    if method in REGISTRY and "batch_size" in REGISTRY[method].options:
        options = {"batch_size": batch_size, "seed": seed} | options
    return Config(beta=beta, omega=omega, tangent=tangent, method=method,
                  step=default_step(problem, batch_size) if step is None else step, options=options)


def epochs(problem: FiniteSum, X0: Array, config: Config, n_epochs: int) -> Iterator[EpochRecord]:
    """Yield the record of X_0 and of each epoch's end, up to ``n_epochs`` epochs or a
    divergence (a final record with status "diverged")."""
    method: Method = make_method(config, problem)
    if isinstance(method, StochasticLanding):
        # the records' stationarity is the full sum's, measured below: none per estimate
        method = replace(method, measure=False)
    per_epoch = getattr(method, "updates_per_epoch", 1)
    used: Callable[[int], int] = getattr(method, "samples_used",
                                         lambda updates: updates * problem.n_samples)
    last: EpochRecord | None = None
    for rec in iterate(problem, X0, config, method=method):
        if rec.status == Status.DIVERGED:
            assert last is not None
            yield EpochRecord(last.epoch, last.X, last.cost, last.infeasibility,
                              last.stationarity, rec.step, last.updates, last.sample_gradients,
                              rec.time, Status.DIVERGED, rec.message)
            return
        if rec.k % per_epoch:
            continue
        cost, G = problem.value_and_grad(rec.X)
        try:
            stationarity = float(method.constraint.stationarity(rec.X, G))
        except np.linalg.LinAlgError as err:  # the estimates' fields may not have checked X
            if last is None:  # as iterate says of a start its method cannot evaluate
                raise ValueError(f"X0 is not a valid start: {err}") from err
            yield replace(last, step=rec.step, time=rec.time, status=Status.DIVERGED,
                          message=f"Diverged at update {rec.k}: the Gram matrix "
                                  f"{method.constraint.gram} became singular ({err}).")
            return
        last = EpochRecord(rec.k // per_epoch, rec.X, float(cost), rec.infeasibility,
                           stationarity, rec.step, rec.k, used(rec.k), rec.time)
        yield last
        if last.epoch >= n_epochs:
            return


def stochastic_landing(
    problem: FiniteSum,
    X0: Array,
    *,
    method: str = "sgd",
    batch_size: int = 10,
    epochs: int = 100,
    step: float | str | StepRule | None = None,
    beta: float = 0.5,
    omega: float = 1.0,
    seed: int = 0,
    tangent: str = "beta",
    tol: float = 1e-8,
    callback: Callable[[EpochRecord], bool | None] | None = None,
    **options: object,
) -> StochasticResult:
    """Stochastic landing on the finite sum ``problem`` for ``epochs`` epochs.

    ``method``: "sgd" (minibatch gradient), "saga" (variance reduced), or a method without a
    batch such as "landing" (full gradient, one update per epoch). ``step``: a number
    (constant), a rule (``steps.Decreasing`` for SGD's decreasing step) or None for
    ``default_step``. The run stops early, "converged", when an epoch ends with
    stationarity + ||h|| <= ``tol`` (Algorithm 1's rule on the full sum), or when
    ``callback(record)`` returns True ("stopped"). Deterministic for a seed. ``options``: the
    method's own (SAGA's ``table_limit_mb``).
    """
    problem = _check(problem, batch_size, epochs)
    if not (math.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    config = stochastic_config(method, batch_size=batch_size, step=step, beta=beta,
                               omega=omega, seed=seed, tangent=tangent, problem=problem,
                               **options)
    history = History()
    last: EpochRecord | None = None
    samples: list[int] = []  # sample gradients used by each epoch's end
    status = Status.MAX_ITER
    message = f"Ran {epochs} epochs."
    for rec in _epochs(problem, X0, config, epochs):
        if rec.status == Status.DIVERGED:
            status, message = Status.DIVERGED, rec.message
            break
        last = rec
        history.add(rec.cost, rec.infeasibility, rec.stationarity, rec.step,
                    rec.step * config.omega, rec.time)
        samples.append(rec.sample_gradients)
        total = rec.stationarity + rec.infeasibility
        if total <= tol:
            status = Status.CONVERGED
            message = (f"Converged after {rec.epoch} epochs: ‖grad‖ + ‖h‖ = {total:.2e} ≤ "
                       f"tol = {tol:.0e}.")
            break
        if callback is not None and callback(rec):
            status, message = Status.STOPPED, f"Stopped by the callback after {rec.epoch} epochs."
            break
    assert last is not None  # epochs yields X_0's record or raises
    return StochasticResult(
        X=last.X, epochs=last.epoch, status=status, message=message, **history.arrays(),
        f_star=problem.optimum_from(X0), config=config, updates=last.updates,
        sample_gradients=np.array(samples))


_epochs = epochs  # stochastic_landing's keyword ``epochs`` shadows the generator
