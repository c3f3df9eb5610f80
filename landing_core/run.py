"""The words for a run that every driver shares: its status, the stop test, its histories.

``Status`` names how a run stands or ended, once for the library and the app; ``run_status``
is Algorithm 1's stopping rule with the divergence test, on one run or a batch (``solvers``,
``stochastic`` and ``sweep`` all call it); ``deadline`` and ``stopped_message`` end a run from
outside; ``History`` accumulates a run's scalar histories (``solvers.solve``,
``stochastic.stochastic_landing`` and the app's trace), ``Outcome`` is what every finished
run holds. This module imports nothing of the package, so every driver can build on it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import IntEnum, StrEnum
from typing import Protocol

import numpy as np

Array = np.ndarray

__all__ = [
    "BLOWUP",
    "FINISHED",
    "HISTORIES",
    "Code",
    "History",
    "Outcome",
    "Status",
    "StopCheck",
    "deadline",
    "run_status",
    "stopped_message",
    "valid",
]

BLOWUP = 1e8  # ||h(X_k)||_F beyond this is divergence


class Status(StrEnum):
    """How a run stands or ended. A ``str``: ``Status.DIVERGED == "diverged"``, and it travels
    as its value in JSON, URLs and numpy string arrays."""

    RUNNING = "running"
    CONVERGED = "converged"  # Algorithm 1's rule ||grad|| + ||h|| <= tol held (line 2)
    MAX_ITER = "max_iter"  # the iteration (or epoch) limit came first
    DIVERGED = "diverged"  # the divergence test held, or the evaluation broke
    STOPPED = "stopped"  # ended from outside (a callback, a time limit, a closed page)


FINISHED = frozenset(Status) - {Status.RUNNING}
"""The statuses of a run that has ended."""


class Code(IntEnum):
    """``run_status``'s answer as a number, so that a batch gets it as an int array; ``status``
    is its Status. (STOPPED is no code: no stop test ends a run from outside.)"""

    RUNNING = 0
    CONVERGED = 1
    MAX_ITER = 2
    DIVERGED = 3

    @property
    def status(self) -> Status:
        return Status[self.name]


def valid(cost: float | Array, grad_norm: float | Array, infeasibility: float | Array
          ) -> bool | Array:
    """Not diverged (``run_status``'s test): f(X_k) and ||grad|| finite, ||h(X_k)||_F <= BLOWUP.
    For one run (floats: a bool) or a batch ((B,) arrays)."""
    return (abs(cost) < math.inf) & (abs(grad_norm) < math.inf) & (abs(infeasibility) <= BLOWUP)


def run_status(
    cost: float | Array,
    grad_norm: float | Array,
    infeasibility: float | Array,
    k: int,
    tol: float,
    max_iter: float,
) -> int | Array:
    """Algorithm 1's stopping rule and the divergence test, for one run (floats: an int) or a
    batch ((B,) arrays: an int array): the ``Code`` of

    - DIVERGED: f(X_k) or ||grad|| NaN or infinite, or ||h(X_k)||_F > BLOWUP (or NaN);
    - else CONVERGED: ||grad|| + ||h(X_k)||_F <= tol (line 2);
    - else MAX_ITER: k >= max_iter;
    - else RUNNING.

    Written with operators only (no numpy call), so one run pays no per-call overhead.
    """
    ok = valid(cost, grad_norm, infeasibility)
    converged = ok & (grad_norm + infeasibility <= tol)
    at_limit = ok & (k >= max_iter)
    return (Code.DIVERGED * (1 - ok) + Code.CONVERGED * converged
            + Code.MAX_ITER * at_limit * (1 - converged))


StopCheck = Callable[[], object]
"""``should_stop()``: falsy to go on, else why to stop (a string names it in the message)."""


def deadline(seconds: float, clock: Callable[[], float] = time.monotonic,
             what: str = "time limit") -> StopCheck:
    """A ``should_stop`` for ``solve`` and ``sweep.run_batch``: the reason ("the time limit
    of 30 s was reached") once ``seconds`` of ``clock`` have passed since this call, None
    before. One clock read per check. ``clock``: the wall clock by default;
    ``time.thread_time`` counts the calling thread's CPU seconds only (a loaded machine then
    does not cut the work short)."""
    if not seconds > 0:
        raise ValueError(f"a deadline needs seconds > 0, got {seconds!r}")
    end = clock() + seconds
    reason = f"the {what} of {seconds:g} s was reached"
    return lambda: reason if clock() >= end else None


def stopped_message(reason: object, k: int) -> str:
    """The message of a run ended by ``should_stop`` after k updates."""
    why = f": {reason}" if isinstance(reason, str) else ""
    return f"Stopped after {k} iterations{why}; the iterates so far are kept."


HISTORIES = ("cost", "infeasibility", "grad_norm", "step", "normal_step", "time")
"""The scalar histories of a run, in ``History``'s order."""


class Entries(Protocol):
    """One iterate's numbers by the names of ``HISTORIES`` (``solvers.Record`` has them)."""

    cost: float
    infeasibility: float
    grad_norm: float
    step: float
    normal_step: float
    time: float


@dataclass(kw_only=True)
class History:
    """A run's scalar histories as they grow, one entry per iterate (or epoch), X_0's first.

    cost: f(X_k); infeasibility: ||h(X_k)||_F; grad_norm: the stationarity measure of
    Algorithm 1's stopping rule (``Method.stationarity``: ||grad_1 f(X_k)||_F on St(n, p));
    step: the step eta_{k-1} that produced X_k; normal_step: eta_{k-1} omega_{k-1}, the step
    taken along the normal term (both NaN at X_0); time: the seconds of the run's own work
    up to X_k, on its clock (``solvers.iterate``: the wall clock unless the caller hands
    another).
    """

    cost: list[float] = field(default_factory=list)
    infeasibility: list[float] = field(default_factory=list)
    grad_norm: list[float] = field(default_factory=list)
    step: list[float] = field(default_factory=list)
    normal_step: list[float] = field(default_factory=list)
    time: list[float] = field(default_factory=list)

    def add(self, cost: float, infeasibility: float, grad_norm: float, step: float,
            normal_step: float, time: float) -> None:
        """One iterate's entries."""
        self.cost.append(cost)
        self.infeasibility.append(infeasibility)
        self.grad_norm.append(grad_norm)
        self.step.append(step)
        self.normal_step.append(normal_step)
        self.time.append(time)

    def append(self, rec: Entries) -> None:
        """The entries of a record that carries them by name (``solvers.Record``)."""
        self.add(rec.cost, rec.infeasibility, rec.grad_norm, rec.step, rec.normal_step,
                 rec.time)

    def arrays(self) -> dict[str, Array]:
        """The histories as float arrays, by the names of ``HISTORIES``."""
        return {name: np.array(getattr(self, name), dtype=float) for name in HISTORIES}


@dataclass(kw_only=True)
class Outcome:
    """What every finished run holds: the final X, the status and its message, the histories
    of ``History`` as arrays (X_0's entry first), and ``f_star``, the optimal value when known
    (for p = n over one component of O(n); ``solvers.Result`` says which). ``solvers.Result``
    and ``stochastic.StochasticResult`` add how far the run went."""

    X: Array
    status: Status
    message: str
    cost: Array
    infeasibility: Array
    grad_norm: Array
    step: Array
    normal_step: Array
    time: Array
    f_star: float | None = None

    @property
    def success(self) -> bool:
        return self.status == Status.CONVERGED

    def __repr__(self) -> str:
        """The fields on one line, an array as its shape and a history by its last value:
        printed whole, a run's histories fill a screen. (The subclasses are dataclasses with
        ``repr=False``, so that this one serves them.)"""
        parts = []
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, np.ndarray):
                last = (f", last {value[-1]:.6g}" if value.ndim == 1 and value.size
                        and value.dtype.kind == "f" else "")
                value = f"<array of shape {value.shape}{last}>"
            else:
                value = repr(value)
            parts.append(f"{item.name}={value}")
        return f"{type(self).__name__}({', '.join(parts)})"
