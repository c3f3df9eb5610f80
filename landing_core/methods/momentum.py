"""Landing with heavy-ball momentum on the tangent term.

Polyak's heavy ball applied to the tangent term of a landing field, with the buffer carried from
X_{k-1} to X_k by the tangent projection (the projection as a vector transport, Absil, Mahony &
Sepulchre 2008, Sec. 8.1):

    M_k = T_k + gamma Proj_{X_k}(M_{k-1}),   M_0 = T_0,
    X_{k+1} = X_k - eta_k (M_k + omega X_k h(X_k)).

T_k is the landing method's tangent term and Proj the projection onto T_{X_k} St_{X_k^T X_k}
of eq. (proj_beta), so X_k^T M_k is skew: M_k is again a tangent term and the safe step lemma
holds for the field. The field also carries T_k and the buffer's gain 1 / (1 - gamma)
(``Field.T``, ``Field.gain``): Barzilai-Borwein's quotients on the buffer's differences mix
the cost's curvature with the buffer's memory, so the curvature rules read T_k's instead.
The stopping rule reads the stationarity at X_k (``inner.stationarity``,
the same measure as without momentum), not ||M_k||. gamma = 0 is
Algorithm 1. The transform needs only the constraint's parts (its tangent term, projection,
h and normal term, ``landing_core.constraints``), so it applies unchanged on any constraint:
on X^T B X = I, Proj is the projection onto {T : X^T B T skew} and the normal term B X h_B(X).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..constraints import STIEFEL, Constraint
from ..geometry import frobenius_norm, per_run
from .base import Field, OnLanding, State
from .landing import Landing
from .registry import register

Array = np.ndarray

__all__ = ["Momentum"]


@dataclass(frozen=True)
class Momentum(OnLanding):
    """Heavy-ball momentum gamma in [0, 1) on the tangent term of ``inner``."""

    inner: Landing
    gamma: float | Array = 0.9
    per_run: ClassVar[tuple[str, ...]] = ("gamma",)

    def __post_init__(self) -> None:
        gamma = self.gamma
        if isinstance(gamma, np.ndarray) and gamma.ndim > 0:
            ok = bool(np.all((gamma >= 0) & (gamma < 1)))
        else:
            ok = isinstance(gamma, numbers.Real) and math.isfinite(gamma) and 0 <= gamma < 1
        if not ok:
            raise ValueError(f"momentum gamma must lie in [0, 1), got {self.gamma!r}")
        if not isinstance(gamma, np.ndarray):
            object.__setattr__(self, "gamma", float(gamma))  # numpy scalars become floats

    @property
    def omega(self) -> float | Array:
        return self.inner.omega

    def field(self, X: Array, G: Array, state: State) -> tuple[Field, State]:
        constraint = self.inner.constraint
        T = self.inner.tangent_term(X, G)
        M = T
        if "M" in state:
            M = T + constraint.project(X, per_run(self.gamma) * state["M"])
        H = constraint.h(X)
        V = M + constraint.normal_term(X, per_run(self.inner.omega) * H)
        return Field(V, H, constraint.stationarity(X, G), frobenius_norm(M), T,
                     1.0 / (1.0 - per_run(self.gamma))), {"M": M}


@register("momentum", "Landing with heavy-ball momentum")
def _momentum(*, beta: float | Array, omega: float | Array, tangent: str,
              constraint: Constraint = STIEFEL, gamma: float = 0.9) -> Momentum:
    return Momentum(Landing(beta, omega, tangent, constraint), gamma)
