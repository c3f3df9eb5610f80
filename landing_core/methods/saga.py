"""Stochastic landing with SAGA variance reduction (Ablin, Vary, Gao & Absil 2024,
Algorithm 3; Defazio, Bach & Lacoste-Julien 2014).

A table keeps, for every sample i, grad f_i at the last iterate phi_i where i was drawn
(through the problem's entries, ``problems.FiniteSum``), and its mean. With B_k the batch:

    G_k = 1/b sum_{i in B_k} (grad f_i(X_k) - grad f_i(phi_i)) + 1/m sum_j grad f_j(phi_j),

unbiased for a uniformly drawn batch, and its variance vanishes as the iterates converge, so a
constant step reaches the optimum (linearly near a nondegenerate one). Then phi_i = X_k for
i in B_k. The table starts at X_0 (m sample gradients).
"""

from __future__ import annotations

import math
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

__all__ = ["SAGA", "TABLE_LIMIT_MB", "saga_estimate"]

TABLE_LIMIT_MB = 512.0
"""The default bound on the table's memory (the option ``table_limit_mb``)."""


def saga_estimate(problem: FiniteSum, X: Array, idx: Array, table: Array,
                  mean: Array) -> tuple[Array, Array, Array, Array]:
    """(cost estimate, G, the batch's new entries, the new mean) at X for the batch ``idx``;
    ``table`` (..., m, *entry) and ``mean`` = 1/m sum_j grad f_j(phi_j) are not changed.

    The difference of the batch's new and old entries goes through the problem's linear map
    once: sum_{i in B} (grad f_i(X) - grad f_i(phi_i)) = entry_sum(E_new - E_old, B)."""
    values, entries = problem.sample_terms(X, idx)
    axis = X.ndim - 2  # the table's sample axis
    change = problem.entry_sum(entries - np.take(table, idx, axis=axis), idx)
    G = change / len(idx) + mean
    return values.sum(axis=-1) / len(idx), G, entries, mean + change / problem.n_samples


@dataclass(frozen=True)
class SAGA(StochasticLanding):
    """Landing on the SAGA estimate; ``table_limit_mb``: the most memory the table may take
    (m x entry floats per run, float64), refused above it."""

    table_limit_mb: float = TABLE_LIMIT_MB
    name: ClassVar[str] = "saga"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not (isinstance(self.table_limit_mb, int | float) and self.table_limit_mb > 0):
            raise ValueError(f"table_limit_mb must be a number > 0, got {self.table_limit_mb!r}")
        if self.problem is not None:
            self._check_memory(1)

    def _check_memory(self, runs: int) -> None:
        problem = self.problem
        size = problem.n_samples * problem.entry_floats * runs * 8 / 2**20
        if size > self.table_limit_mb:
            per = (f"{problem.n_samples} samples x {problem.entry_floats} floats"
                   + (f" x {runs} runs" if runs > 1 else ""))
            raise ValueError(
                f"SAGA's gradient table needs {size:.0f} MB ({per}), above the bound of "
                f"{self.table_limit_mb:g} MB (table_limit_mb): lower the number of samples"
                + (" or of runs" if runs > 1 else "") + ", use SGD, or raise table_limit_mb")

    def samples_used(self, updates: int) -> int:
        return self.problem.n_samples + super().samples_used(updates)

    def init(self, X: Array) -> State:
        self._check_memory(math.prod(X.shape[:-2]))
        everyone = np.arange(self.problem.n_samples)
        _, table = self.problem.sample_terms(X, everyone)
        mean = self.problem.entry_sum(table, everyone) / self.problem.n_samples
        axis = X.ndim - 2
        return super().init(X) | {"table": table, "mean": mean,
                                  "pending": np.take(table, np.arange(0), axis=axis)}

    def table(self, state: State, batch_axis: int) -> Array:
        """The memory's table: the stored one with the last batch's entries written (in place;
        ``batch_axis``: how many run axes lead, 0 for one run)."""
        table, k = state["table"], int(state["k"].flat[0])
        if k > 0:
            table[(slice(None),) * batch_axis + (self.batches(k - 1),)] = state["pending"]
        return table

    def gradient(self, problem: Any, X: Array, state: State) -> tuple[Array, Array, State]:
        """The estimate; the memory it returns holds the batch's new entries as ``pending``,
        written into the table by the next estimate. The write is a scatter in place
        (copying the m entries per update would cost a pass over the table), and deferring
        it keeps the memory passed in meaning what it meant: evaluated again (a sweep retries
        the runs that did not break), the same memory gives the same estimate, as writing the
        same entries twice is writing them once."""
        idx, k = self._next(state)
        table = self.table(state, X.ndim - 2)
        cost, G, entries, mean = saga_estimate(problem, X, idx, table, state["mean"])
        return cost, G, {"k": k, "table": table, "mean": mean, "pending": entries}


@register("saga", "Stochastic landing (SAGA)", needs=FiniteSum)
def _saga(*, beta: float | Array, omega: float | Array, tangent: str, problem: Any,
          constraint: Constraint = STIEFEL, batch_size: int = 10, seed: int = 0,
          table_limit_mb: float = TABLE_LIMIT_MB) -> SAGA:
    return SAGA(Landing(beta, omega, tangent, constraint), finite_sum("saga", problem),
                batch_size, seed, table_limit_mb)
