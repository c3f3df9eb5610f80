"""The landing method (Algorithm 1): V = T + omega X (X^T X - I_p), X_{k+1} = X_k - eta_k V.

The tangent term T is the beta-metric gradient grad_beta f (eq. (grad_beta)), the Frobenius
projection of the Euclidean gradient, or the relative gradient skew(G X^T) X
(``geometry.TANGENT_TERMS``); the normal term is the paper's X(X^T X - I), eq. (3lio6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..geometry import h, landing_direction, per_run, proj_tangent, tangent_term
from .base import Field, Method, State
from .params import nonnegative, positive, tangent_name
from .registry import register

Array = np.ndarray

__all__ = ["Landing"]


@dataclass(frozen=True)
class Landing(Method):
    """Algorithm 1 with tangent term ``tangent`` ("beta", "euclidean", "relative"), beta > 0
    (the beta-metric's parameter), omega >= 0 (the normal term's weight; omega = 0 is the
    tangent term alone, which keeps X on the layer through X_0 to first order). The field costs
    four n x p x p products for the beta-metric (``geometry.landing_direction``)."""

    beta: float | Array = 0.5
    omega: float | Array = 1.0
    tangent: str = "beta"
    landing: ClassVar[bool] = True
    per_run: ClassVar[tuple[str, ...]] = ("beta", "omega")

    def __post_init__(self) -> None:
        object.__setattr__(self, "beta", positive("beta", self.beta))
        object.__setattr__(self, "omega", nonnegative("omega", self.omega))
        tangent_name(self.tangent)

    @property
    def normal_weight(self) -> float | Array:
        return self.omega

    def field(self, X: Array, G: Array, state: State, measure: bool = True
              ) -> tuple[Field, State]:
        """The field; ``measure=False`` (G an estimate, see ``geometry.landing_direction``)
        reports the tangent term's norm as ``grad_norm`` instead of the stationarity measure."""
        norm, V, H, stat = landing_direction(X, G, self.beta, self.omega, self.tangent,
                                             measure=measure)
        return Field(V, H, stat if measure else norm, norm), state

    def move(self, X: Array, field: Field, eta: float | Array,
             omega: float | Array | None = None) -> Array:
        """X - eta V; with a lowered weight omega_k (``steps.Step``) the normal term moves by
        eta omega_k X h(X) instead of eta omega X h(X)."""
        Y = -per_run(eta) * field.V + X
        if omega is not None:
            Y += per_run(eta * (self.omega - omega)) * self.normal_term(X, field.H)
        return Y

    # the parts of the field (LandingTerms), for transforms such as momentum

    def constraint(self, X: Array) -> Array:
        return h(X)

    def tangent_term(self, X: Array, G: Array) -> Array:
        return tangent_term(self.tangent)(X, G, self.beta)

    def normal_term(self, X: Array, H: Array) -> Array:
        return X @ H

    def project(self, X: Array, Z: Array) -> Array:
        return proj_tangent(X, Z)


@register("landing", "Landing (Algorithm 1)")
def _landing(*, beta: float | Array, omega: float | Array, tangent: str) -> Landing:
    return Landing(beta, omega, tangent)
