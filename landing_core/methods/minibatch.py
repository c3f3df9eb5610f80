"""What the stochastic methods share: the minibatch schedule and landing on an estimate.

A stochastic method (``sgd``, ``saga``) is landing (Algorithm 1) whose Euclidean gradient is
an estimate from a minibatch of a :class:`~landing_core.problems.FiniteSum`, made in
``Method.gradient`` (Ablin, Vary, Gao & Absil 2024, Algorithms 2 and 3): the field, the move
and the step rules are landing's own. The minibatches follow random reshuffling: each epoch
draws a permutation of the m samples (from the seed and the epoch number, so a run is
reproducible) and cuts it into ceil(m / b) batches, the last one shorter when b does not
divide m; every sample is used once per epoch.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cached_property, lru_cache
from typing import Any, ClassVar

import numpy as np

from ..problems import FiniteSum
from .base import Field, OnLanding, State
from .landing import Landing

Array = np.ndarray

__all__ = ["Minibatches", "StochasticLanding", "check_batch_size", "finite_sum"]


@lru_cache(maxsize=4)
def _permutation(seed: int, m: int, epoch: int) -> Array:
    """The order of the samples in ``epoch`` (read-only; cached: one draw per epoch)."""
    perm = np.random.default_rng((seed, epoch)).permutation(m)
    perm.setflags(write=False)
    return perm


def check_batch_size(size: object, m: int) -> None:
    """ValueError unless ``size`` is an integer from 1 to the number of samples m."""
    if not (isinstance(size, numbers.Integral) and 1 <= size <= m):
        raise ValueError(f"batch_size must be an integer from 1 to the number of samples "
                         f"m = {m}, got {size!r}")


@dataclass(frozen=True)
class Minibatches:
    """Random reshuffling of m samples in batches of ``size``: ``self(k)`` is the index array
    of update k (0-based), ``per_epoch`` = ceil(m / size) updates make one epoch."""

    m: int
    size: int
    seed: int = 0

    def __post_init__(self) -> None:
        check_batch_size(self.size, self.m)
        if not isinstance(self.seed, numbers.Integral) or self.seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {self.seed!r}")

    @property
    def per_epoch(self) -> int:
        return math.ceil(self.m / self.size)

    def __call__(self, k: int) -> Array:
        epoch, j = divmod(k, self.per_epoch)
        return _permutation(int(self.seed), self.m, epoch)[j * self.size:(j + 1) * self.size]

    def used(self, updates: int) -> int:
        """How many sample gradients ``updates`` minibatches hold."""
        epochs, j = divmod(updates, self.per_epoch)
        return epochs * self.m + min(j * self.size, self.m)


def finite_sum(method: str, problem: Any) -> FiniteSum | None:
    """``problem`` when it is a finite sum (None: only a configuration is being checked);
    ValueError naming what the method needs otherwise."""
    if problem is None or isinstance(problem, FiniteSum):
        return problem
    raise ValueError(f"the method {method!r} samples a finite sum f = 1/m sum_i f_i, and the "
                     f"problem {getattr(problem, 'name', problem)!r} has no samples; use a "
                     "problems.FiniteSum such as problems.online_pca(n, p, samples)")


@dataclass(frozen=True)
class StochasticLanding(OnLanding):
    """Landing's field and move on the Euclidean gradient estimate of ``gradient``.

    ``inner``: the landing method (tangent term, beta, omega); ``problem``: the finite sum
    (None when only a configuration is checked); ``batch_size``, ``seed``: the schedule.
    The memory holds ``k``, the number of estimates made (one per run of a batch: the runs of
    a sweep move in lockstep and share the schedule).

    ``measure``: whether ``Field.grad_norm`` is the stationarity measure of the estimate (what
    ``solvers.solve``'s stopping rule and a sweep read per update). A driver that monitors the
    full sum itself (``stochastic.epochs``) sets it False: the field then skips that measure
    (a fifth n x p x p product, and at beta = 1/2 the p x p solve) and reports the estimate's
    tangent norm in its place; the iterates are the same.
    """

    inner: Landing
    problem: FiniteSum | None
    batch_size: int = 10
    seed: int = 0
    measure: bool = dataclass_field(default=True, kw_only=True)
    name: ClassVar[str] = "stochastic"

    def __post_init__(self) -> None:
        # without the problem (a configuration checked alone) m is unknown: m = batch_size
        m = self.batch_size if self.problem is None else self.problem.n_samples
        Minibatches(m, self.batch_size, self.seed)  # validates batch_size and seed

    @cached_property  # one schedule per method object, not one per update
    def batches(self) -> Minibatches:
        if self.problem is None:
            raise ValueError(f"the method {self.name!r} needs the finite sum it samples")
        return Minibatches(self.problem.n_samples, self.batch_size, self.seed)

    @property
    def updates_per_epoch(self) -> int:
        return self.batches.per_epoch

    def samples_used(self, updates: int) -> int:
        """Sample gradients evaluated to make ``updates`` updates."""
        return self.batches.used(updates)

    def init(self, X: Array) -> State:
        return {"k": np.zeros(X.shape[:-2], dtype=int)}

    def _next(self, state: State) -> tuple[Array, Array]:
        """The batch of this estimate, and the count after it."""
        k = state["k"]
        return self.batches(int(k.flat[0])), k + 1

    def field(self, X: Array, G: Array, state: State) -> tuple[Field, State]:
        return self.inner.field(X, G, {}, self.measure)[0], state
