"""The method protocol: a direction at X_k, composed with how X_{k+1} is reached along it.

A method is a frozen dataclass whose fields are its parameters: floats for one run, arrays of
shape (B,) for a batch of B runs (``sweep.run_batch``), so one method object drives a single
run and a vectorized sweep alike. The solver (``solvers.iterate``) and the sweep call, per
iterate X_k:

    f_k, G_k, state = method.gradient(problem, X_k, state)  # f and its Euclidean gradient
    field, state = method.field(X_k, G_k, state)    # V_k, h(X_k), stationarity, ||tangent||
    eta_k = step_rule(...)                          # the step rule sees field.V (steps.py)
    X_{k+1} = method.move(X_k, field, eta_k)        # X_k - eta_k V_k, or a retraction

``state`` is the method's own memory between iterates (a dict of arrays with the batch axis
first, such as a momentum buffer; ``{}`` for memoryless methods), returned rather than mutated,
so a step that is not taken leaves no trace. Algorithm 1's stopping rule reads
``field.grad_norm`` + ||h(X_k)||_F (``field.H``), where ``field.grad_norm`` is
``method.stationarity(X_k, G_k)``: one measure for every method (``geometry.stationarity`` on
St(n, p)), so that "iterations to tol" compares like with like.

``method.constraint`` is the constraint the method keeps to (``landing_core.constraints``):
St(n, p) for the baselines; the problem's for the landing methods, whose factories take it. The
step rules read the constraint's functions from it (``steps.StepContext.constraint``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, NamedTuple, Self

import numpy as np

from ..constraints import STIEFEL
from ..geometry import per_run

Array = np.ndarray
State = dict[str, Array]

__all__ = ["Field", "Method", "OnLanding", "State", "take_state"]


class Field(NamedTuple):
    """A method's direction at X (one run, or a stack with the batch axis first).

    V: the direction, X_{k+1} = move(X, field, eta) (= X - eta V off the retractions);
    H: h(X) of the method's constraint (X^T X - I_p on St(n, p), eq. (h)); grad_norm: the
    ||grad|| of Algorithm 1's stopping rule, ``Method.stationarity(X, G)`` (the same measure
    for every method, tangent term and beta; a stochastic method told not to measure its
    estimates reports ``tangent_norm`` here, ``minibatch.StochasticLanding.measure``);
    tangent_norm: the norm of V's tangent part (what a step rule may use; it differs from
    grad_norm with the tangent term, its beta, or a transform such as momentum).
    T: the tangent term of the cost's gradient where V's tangent part is another (momentum's
    buffer M_k = T_k + gamma Proj(M_{k-1})), None where it is V's own; gain: how much longer
    V's tangent part moves than T in the long run (1 / (1 - gamma) for the buffer, whose
    steady state under a constant T is T / (1 - gamma)). A rule that measures the curvature
    from differences of the field reads the cost's instead (``steps.BarzilaiBorwein``: of
    T + omega N(X); ``steps.ScaleFree``: of T) and divides its step by the gain: the buffer's
    differences mix the cost's curvature with the buffer's memory, and BB's steps on them did
    not converge.
    """

    V: Array
    H: Array
    grad_norm: float | Array
    tangent_norm: float | Array
    T: Array | None = None
    gain: float | Array = 1.0


@dataclass(frozen=True)
class Method:
    """The base of every method; subclasses implement ``field`` and may override the rest.

    ``landing``: V = T + omega N(X) with T tangent to the layer through X (X^T T skew) and N the
    normal term, so that a step rule may lower omega for one step (``steps.Step``) and the safe
    step lemma applies. ``normal_weight``: the omega the step rules see (0: no normal term).
    """

    landing: ClassVar[bool] = False
    constraint = STIEFEL  # not a dataclass field: a landing method's own field overrides it
    per_run: ClassVar[tuple[str, ...]] = ()
    """The fields that may hold one value per run of a batch (as (B,) arrays); ``take`` subsets
    them, and leaves every other field (a constraint matrix, data) whole."""

    @property
    def normal_weight(self) -> float | Array:
        return 0.0

    def start(self, X0: Array) -> Array:
        """The first iterate from the user's X0 (a fresh array; X0 itself is never mutated)."""
        return X0

    def init(self, X: Array) -> State:
        """The method's memory at X_0."""
        return {}

    def gradient(self, problem: Any, X: Array, state: State) -> tuple[Array, Array, State]:
        """(f(X), G, state): the value and Euclidean gradient the field is built from; the
        problem's own by default. A stochastic method estimates them here (a minibatch, a
        variance-reduction table kept in ``state``)."""
        cost, G = problem.value_and_grad(X)
        return cost, G, state

    def stationarity(self, X: Array, G: Array) -> float | Array:
        """The stationarity measure ``Field.grad_norm`` reports, the constraint's
        (``Constraint.stationarity``): ||grad_1 f(X)||_F on St(n, p) (``geometry.stationarity``,
        whose docstring relates it to ||grad f|| at the nearest point of St(n, p)); on another
        constraint its analogue, the Riemannian gradient on the layer through X in the metric
        that is the embedded one on the constraint set."""
        return self.constraint.stationarity(X, G)

    def field(self, X: Array, G: Array, state: State) -> tuple[Field, State]:
        """The direction at X from the Euclidean gradient G, and the memory for the next
        iterate. May raise numpy.linalg.LinAlgError where X^T X is singular (the run then
        stops as diverged)."""
        raise NotImplementedError

    def move(self, X: Array, field: Field, eta: float | Array,
             omega: float | Array | None = None, normal: Array | None = None,
             tangent: Array | None = None) -> Array:
        """X_{k+1} = X - eta V. ``omega``: the normal weight of this step (``steps.Step``; only
        for ``landing`` methods, whose V = T + omega N(X) with omega = ``normal_weight``): the
        normal term then moves by eta omega N(X), as ``landing.Landing.move``. ``normal``: N(X)
        where the step rule formed it (``steps.Step.normal``); a method whose ``move`` takes
        this parameter is handed it by the solver (one n x p x p product fewer per step);
        ``tangent``: the rule's T = V - omega N(X) (``steps.Step.tangent``), for
        X - eta T - eta omega N(X), the point the rule checked."""
        if omega is not None and not self.landing:
            raise ValueError(f"{type(self).__name__} has no normal weight to change")
        if omega is not None and tangent is not None:
            Y = -per_run(eta) * tangent + X
            return self.constraint.add_normal(Y, X, field.H, -per_run(eta) * omega, normal)
        Y = -per_run(eta) * field.V + X  # the temporary -eta V is reused for the result
        if omega is not None:
            Y = self.constraint.add_normal(Y, X, field.H, eta * (self.normal_weight - omega),
                                           normal)
        return Y

    def take(self, index: Array) -> Self:
        """The method of the runs ``index`` of a batch: its ``per_run`` arrays subset, and any
        method it wraps taken likewise."""
        changes: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Method):
                changes[f.name] = value.take(index)
            elif f.name in self.per_run and isinstance(value, np.ndarray) and value.ndim > 0:
                changes[f.name] = value[index]
        return replace(self, **changes)


def take_state(state: State, index: Array) -> State:
    """The memory of the runs ``index`` of a batch."""
    return {key: value[index] for key, value in state.items()}


@dataclass(frozen=True)
class OnLanding(Method):
    """A method built on a landing method ``inner`` (a field of the subclass): momentum on its
    tangent term, a stochastic estimate of its gradient. Its constraint, normal weight, first
    iterate and move are ``inner``'s."""

    landing: ClassVar[bool] = True

    @property
    def constraint(self) -> Any:  # type: ignore[override]
        return self.inner.constraint  # type: ignore[attr-defined]

    @property
    def normal_weight(self) -> float | Array:
        return self.inner.omega  # type: ignore[attr-defined]

    def start(self, X0: Array) -> Array:
        return self.inner.start(X0)  # type: ignore[attr-defined]

    def move(self, X: Array, field: Field, eta: float | Array,
             omega: float | Array | None = None, normal: Array | None = None,
             tangent: Array | None = None) -> Array:
        return self.inner.move(X, field, eta, omega, normal, tangent)  # type: ignore[attr-defined]
