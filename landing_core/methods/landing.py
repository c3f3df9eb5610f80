"""The landing method (Algorithm 1): V = T + omega N(X), X_{k+1} = X_k - eta_k V, on any
constraint (``landing_core.constraints``).

On St(n, p) the normal term is the paper's X(X^T X - I), eq. (3lio6), and the tangent term T
the beta-metric gradient grad_beta f (eq. (grad_beta)), the Frobenius projection of the
Euclidean gradient, or the relative gradient skew(G X^T) X (``geometry.TANGENT_TERMS``); on
X^T B X = I, B X (X^T B X - I) and the same three for B (Vary, Ablin, Gao & Absil 2024;
``landing_core.generalized``). The constraint is the problem's (the factory reads it), so
``landing(problem, X0)``, ``solve``, ``sweep`` and the app run it with no mention of B.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..constraints import STIEFEL, Constraint
from ..geometry import per_run
from .base import Field, Method, State
from .params import nonnegative, positive, tangent_name
from .registry import register

Array = np.ndarray

__all__ = ["Landing"]


@dataclass(frozen=True)
class Landing(Method):
    """Algorithm 1 with tangent term ``tangent`` ("beta", "euclidean", "relative"), beta > 0
    (the beta-metric's parameter), omega >= 0 (the normal term's weight; omega = 0 is the
    tangent term alone, which keeps X on the layer through X_0 to first order), on
    ``constraint`` (St(n, p) by default). The field is the constraint's
    (``Constraint.direction``): four n x p x p products for the beta-metric on St(n, p)
    (``geometry.landing_direction``). The method keeps its own copy of the constraint
    (``Constraint.bind``), whose cache of products of the current iterate it alone uses."""

    beta: float | Array = 0.5
    omega: float | Array = 1.0
    tangent: str = "beta"
    constraint: Constraint = STIEFEL
    landing: ClassVar[bool] = True
    per_run: ClassVar[tuple[str, ...]] = ("beta", "omega")

    def __post_init__(self) -> None:
        object.__setattr__(self, "beta", positive("beta", self.beta))
        object.__setattr__(self, "omega", nonnegative("omega", self.omega))
        tangent_name(self.tangent)
        object.__setattr__(self, "constraint", self.constraint.bind())

    @property
    def normal_weight(self) -> float | Array:
        return self.omega

    def field(self, X: Array, G: Array, state: State, measure: bool = True
              ) -> tuple[Field, State]:
        """The field; ``measure=False`` (G an estimate, see ``geometry.landing_direction``)
        reports the tangent term's norm as ``grad_norm`` instead of the stationarity measure."""
        norm, V, H, stat = self.constraint.direction(X, G, self.beta, self.omega, self.tangent,
                                                     measure)
        return Field(V, H, stat if measure else norm, norm), state

    def move(self, X: Array, field: Field, eta: float | Array,
             omega: float | Array | None = None, normal: Array | None = None,
             tangent: Array | None = None) -> Array:
        """X - eta V; with a lowered weight omega_k (``steps.Step``) the normal term moves by
        eta omega_k N(X) instead of eta omega N(X) (``normal``: N(X) where the step rule formed
        it, ``steps.Step.normal``; ``tangent``: the T it formed, ``steps.Step.tangent``, for
        X - eta T - eta omega_k N(X), the step it checked)."""
        if omega is not None and tangent is not None:
            Y = -eta * tangent + X
            return self.constraint.add_normal(Y, X, field.H, -eta * omega, normal)
        # a float (one run) needs no reshaping: per_run's call is most of a tiny move's time
        Y = -(eta if type(eta) is float else per_run(eta)) * field.V + X
        if omega is not None:
            Y = self.constraint.add_normal(Y, X, field.H, eta * (self.omega - omega), normal)
        return Y

    def tangent_term(self, X: Array, G: Array) -> Array:
        """The tangent term alone (for transforms such as momentum)."""
        return self.constraint.tangent_term(self.tangent, X, G, self.beta)


@register("landing", "Landing (Algorithm 1)")
def _landing(*, beta: float | Array, omega: float | Array, tangent: str,
             constraint: Constraint = STIEFEL) -> Landing:
    return Landing(beta, omega, tangent, constraint)
