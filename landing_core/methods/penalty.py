"""Gradient descent on the quadratic penalty f + omega/4 ||h||_F^2 (direction G + omega X h(X)),
the infeasible baseline whose minimizers lie off St(n, p) for finite omega."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..geometry import frobenius_norm, h, per_run
from .base import Field, Method, State
from .params import positive
from .registry import register

Array = np.ndarray

__all__ = ["Penalty"]


@dataclass(frozen=True)
class Penalty(Method):
    """V = G + omega X (X^T X - I_p), the Euclidean gradient of f + omega/4 ||h||^2. The stopping
    rule reads the common stationarity measure (``Method.stationarity``), not ||V||: at the
    penalty's minimizers it is 0 while ||h|| keeps the bias. The step rules see omega (the safe
    step's cap 1/(2 omega)) but may not lower it (V has no tangent part in the landing sense)."""

    omega: float | Array = 1.0
    per_run: ClassVar[tuple[str, ...]] = ("omega",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "omega", positive("omega", self.omega))

    @property
    def normal_weight(self) -> float | Array:
        return self.omega

    def field(self, X: Array, G: Array, state: State) -> tuple[Field, State]:
        H = h(X)
        V = G + per_run(self.omega) * (X @ H)
        return Field(V, H, self.stationarity(X, G), frobenius_norm(V)), state


@register("penalty", "Gradient descent on f + ω/4 ‖h‖²")
def _penalty(*, omega: float | Array) -> Penalty:
    return Penalty(omega)
