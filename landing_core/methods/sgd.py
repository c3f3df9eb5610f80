"""Stochastic landing, plain SGD (Ablin, Vary, Gao & Absil 2024, Algorithm 2).

G_k = 1/b sum_{i in B_k} grad f_i(X_k), the minibatch estimate of grad f(X_k) (unbiased for a
batch drawn uniformly and independently of X_k; under the reshuffling of ``Minibatches`` only
marginally: given the epoch's earlier batches, B_k comes from the samples not used yet);
X_{k+1} = X_k - eta_k (grad_beta from G_k + omega X_k h(X_k)). Its variance does not vanish at
the optimum, so a constant step stalls at a noise floor of order eta; a decreasing step
(``steps.Decreasing``) goes on, slowly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..constraints import STIEFEL, Constraint
from ..problems import FiniteSum
from .base import State
from .landing import Landing
from .minibatch import StochasticLanding, finite_sum
from .registry import register

Array = np.ndarray

__all__ = ["SGD"]


@dataclass(frozen=True)
class SGD(StochasticLanding):
    """Landing on the minibatch gradient: the estimate costs b sample gradients."""

    name: ClassVar[str] = "sgd"

    def gradient(self, problem: Any, X: Array, state: State) -> tuple[Array, Array, State]:
        idx, k = self._next(state)
        cost, G = problem.minibatch(X, idx)
        return cost, G, {"k": k}


@register("sgd", "Stochastic landing (SGD)", needs=FiniteSum)
def _sgd(*, beta: float | Array, omega: float | Array, tangent: str, problem: Any,
         constraint: Constraint = STIEFEL, batch_size: int = 10, seed: int = 0) -> SGD:
    return SGD(Landing(beta, omega, tangent, constraint), finite_sum("sgd", problem),
               batch_size, seed)
