"""The generalized Stiefel manifold {X : X^T B X = I_p}, B symmetric positive definite (Vary,
Ablin, Gao & Absil 2024), as a :class:`~.base.Constraint`.

h_B(X) = X^T B X - I_p, the normal term B X h_B(X) = grad N_B(X) (N_B = 1/4 ||h_B||_F^2), the
tangent terms, projection, stationarity and B-ball safe step of ``landing_core.generalized``,
which holds the formulas (at B = I each is St(n, p)'s). B enters only through the product B X,
made once per iterate and kept (with C = (B X)^T B X and lambda_max(C)) in the copy a method
binds (``bind``), so that the field, a step with a lowered normal weight, the safe step and
Armijo's merit share it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from ..generalized import (
    apply,
    check_spd,
    h_B,
    lambda_max,
    landing_direction_B,
    proj_euclidean_B,
    safe_step_B,
    stationarity_B,
    tangent_term_B,
)
from ..geometry import per_run
from .base import Constraint, finite_cap

Array = np.ndarray
Matrix = Any  # a dense (n, n) ndarray or a scipy.sparse matrix

__all__ = ["GeneralizedStiefel", "b_orthonormal"]


def b_orthonormal(U: Array, B: Matrix) -> Array:
    """U R^{-1} with R^T R = U^T B U (Cholesky): B-orthonormal columns spanning span(U)."""
    n = U.shape[0]
    if np.ndim(B) != 2 or B.shape != (n, n):
        raise ValueError(f"B must have shape ({n}, {n}), got {np.shape(B)}")
    try:
        R = np.linalg.cholesky(U.T @ apply(B, U)).T
    except np.linalg.LinAlgError as err:
        raise ValueError("B must be symmetric positive definite: UᵀBU is not") from err
    return scipy.linalg.solve_triangular(R, U.T, trans="T").T


class GeneralizedStiefel(Constraint):
    """X^T B X = I_p: B symmetric positive definite, dense or scipy.sparse (checked, as
    float64, by ``generalized.check_spd``). ``lam``: an upper bound on lambda_max(B) for the
    safe step, computed once when a method first binds the constraint (when not given)."""

    gram = "XᵀBX"

    def __init__(self, B: Matrix, *, lam: float | None = None) -> None:
        self.B = check_spd(B)
        self._lam = lam
        self._memo: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"GeneralizedStiefel(B of shape {self.B.shape})"

    @property
    def lam(self) -> float:
        if self._lam is None:
            self._lam = lambda_max(self.B)
        return self._lam

    def bind(self) -> GeneralizedStiefel:
        """A copy with its own cache of B X (the checked B and lambda_max shared)."""
        bound = object.__new__(GeneralizedStiefel)
        bound.B, bound._lam, bound._memo = self.B, self.lam, {}
        return bound

    def check(self, n: int, p: int) -> None:
        if self.B.shape != (n, n):
            raise ValueError(f"B must have shape ({n}, {n}), got {self.B.shape}")

    # the products of the current iterate

    def BX(self, X: Array) -> Array:
        """B X, computed once per iterate."""
        if self._memo.get("X") is not X:
            self._memo.clear()
            self._memo.update(X=X, BX=apply(self.B, X))
        return self._memo["BX"]

    def C(self, X: Array) -> Array:
        """C = (B X)^T B X, from the field when it was computed at X."""
        BX = self.BX(X)
        if "C" not in self._memo:
            self._memo["C"] = BX.mT @ BX
        return self._memo["C"]

    def C_top(self, X: Array) -> Any:
        """lambda_max(C) (p x p), once per iterate: the step rules ask for it several times."""
        self.BX(X)
        if "C_top" not in self._memo:
            top = np.linalg.eigvalsh(self.C(X))[..., -1]
            self._memo["C_top"] = float(top) if np.ndim(top) == 0 else top
        return self._memo["C_top"]

    # the constraint function

    def h(self, X: Array) -> Array:
        """h_B(X) = X^T B X - I_p (one product B X for a point other than the iterate's)."""
        BX = self._memo["BX"] if self._memo.get("X") is X else apply(self.B, X)
        return h_B(X, BX)

    def dh(self, X: Array, Z: Array) -> Array:
        """Dh_B(X)[Z] = (B X)^T Z + Z^T B X."""
        A = self.BX(X).mT @ Z
        return A + A.mT

    # the field

    def tangent_term(self, name: str, X: Array, G: Array, beta: float | Array) -> Array:
        return tangent_term_B(name, X, self.BX(X), G, beta)

    def project(self, X: Array, Z: Array) -> Array:
        """The Frobenius projection onto {T : X^T B T skew}."""
        return proj_euclidean_B(X, self.BX(X), Z)

    def normal_term(self, X: Array, H: Array) -> Array:
        """B X H (grad N_B(X) for H = h_B(X))."""
        return self.BX(X) @ H

    def add_normal(self, Y: Array, X: Array, H: Array, w: float | Array,
                   N: Array | None = None) -> Array:
        if N is None:
            Y += self.BX(X) @ (per_run(w) * H)  # the scalar on the p x p side
        else:  # formed by the caller: an n x p pass instead of a product
            Y += per_run(w) * N
        return Y

    def direction(self, X: Array, G: Array, beta: float | Array, omega: float | Array,
                  tangent: str, measure: bool = True
                  ) -> tuple[float | Array, Array, Array, float | Array | None]:
        """``generalized.landing_direction_B`` (which always measures), keeping C."""
        norm, V, H, stat, C = landing_direction_B(X, self.BX(X), G, beta, omega, tangent)
        self._memo["C"] = C
        return norm, V, H, stat

    def stationarity(self, X: Array, G: Array) -> float | Array:
        """||grad^B_1 f(X)||_F (``generalized.stationarity_B``), the analogue for B of the
        stopping rule's measure on St(n, p)."""
        return stationarity_B(X, self.BX(X), G)

    # Armijo's merit

    def multiplier(self, X: Array, G: Array) -> Array:
        """sym(X^T G): at a critical point on X^T B X = I, G = B X Lambda with
        Lambda = X^T G. (St(n, p)'s closed form of the cross term uses M = I + H, which has
        no analogue with C here: the base class forms it as written.)"""
        return 0.5 * (X.mT @ G + G.mT @ X)

    # the safe region

    def safe_bound(self, X: Array, H: Array, d: Any, g2: Any, w: Any, eps: float) -> Any:
        """The B-ball safe step (``generalized.safe_step_B``), capped where
        eta w lambda_max(C) = 1/2, beyond which the normal term overshoots in C's top
        direction."""
        cap = finite_cap(w, self.scale(X, H))
        return safe_step_B(H, self.C(X), w, g2, self.lam, eps, cap)

    def normal2(self, X: Array, H: Array) -> Any:
        """||B X H||^2 = <H, C H>."""
        value = np.einsum("...ij,...ij->...", H, self.C(X) @ H)
        return float(value) if np.ndim(value) == 0 else value

    def scale(self, X: Array, H: Array) -> Any:
        """lambda_max(C)."""
        return self.C_top(X)

    # points

    def nearest(self, X: Array) -> Array:
        """X (X^T B X)^{-1/2}: the nearest point in the B-norm ||B^{1/2} (Y - X)||_F (the
        polar factor of B^{1/2} X, mapped back)."""
        m, Q = np.linalg.eigh(X.mT @ apply(self.B, X))
        return X @ ((Q / np.sqrt(m)[..., None, :]) @ Q.mT)

    def frame(self, U: Array) -> Array:
        return b_orthonormal(U, self.B)
