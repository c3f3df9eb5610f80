"""The exact normal dynamics of landing: X^T X flows to I whatever the cost and the tangent term.

Along the landing flow dX/dt = -(T + omega X h(X)) with X^T T skew (every tangent term of
``geometry.TANGENT_TERMS`` is tangent to the layer, eq. (tgtspace1)), the Gram matrix M = X^T X
obeys

    dM/dt = -(T^T X + X^T T) - omega (M h + h M) = -2 omega M (M - I),

since the skew part cancels and M commutes with h = M - I. M keeps its eigenvectors, and each
eigenvalue lambda = sigma^2 (sigma a singular value of X) follows the logistic equation
d lambda/dt = -2 omega lambda (lambda - 1), solved by

    sigma(t)^2 = 1 / (1 + (sigma_0^{-2} - 1) e^{-2 omega t})

(1/lambda - 1 decays as e^{-2 omega t}). Neither f nor beta enters.

A discrete step X_{k+1} = X_k - eta_k (T_k + omega_k X_k h_k) gives
M_{k+1} = M_k - 2 eta_k omega_k M_k h_k + O(eta_k^2): the flow over a time eta_k omega_k / omega.
The time of iterate k is therefore t_k = sum_{j<k} eta_j omega_j / omega (``flow_time``; t_k =
k eta for a constant step), and the iterates follow the flow to O(eta) (the tangent term enters
M only through eta^2 T^T T).
"""

from __future__ import annotations

import numpy as np

Array = np.ndarray

__all__ = ["flow_time", "gram_flow", "singular_value_flow"]


def _check_omega(omega: float) -> float:
    if not (np.isfinite(omega) and omega > 0):
        raise ValueError(f"omega must be a finite number > 0, got {omega!r}")
    return float(omega)


def singular_value_flow(sigma0: Array, t: Array, omega: float) -> Array:
    """sigma_i(t) = (1 + (sigma_i0^{-2} - 1) e^{-2 omega t})^{-1/2}: shape t.shape + sigma0.shape.

    sigma0 > 0 (X_0 of full rank), t >= 0.
    """
    omega = _check_omega(omega)
    sigma0 = np.asarray(sigma0, dtype=float)
    if np.any(~np.isfinite(sigma0) | (sigma0 <= 0)):
        raise ValueError("the singular values of X_0 must be finite and > 0")
    t = np.asarray(t, dtype=float)
    decay = np.exp(-2.0 * omega * t)[..., None] if sigma0.ndim else np.exp(-2.0 * omega * t)
    return 1.0 / np.sqrt(1.0 + (sigma0**-2 - 1.0) * decay)


def gram_flow(M0: Array, t: Array, omega: float) -> Array:
    """M(t) = V diag(lambda(t)) V^T for M0 = V diag(lambda_0) V^T (p x p, symmetric positive
    definite): shape t.shape + (p, p)."""
    lam0, V = np.linalg.eigh(np.asarray(M0, dtype=float))
    lam = singular_value_flow(np.sqrt(lam0), t, omega) ** 2
    return (V * lam[..., None, :]) @ V.T


def flow_time(normal_step: Array, omega: float) -> Array:
    """t_k = sum_{j<k} eta_j omega_j / omega for iterates k = 0, 1, ...: the time of the flow
    the iterates follow. ``normal_step[k]`` is eta_{k-1} omega_{k-1}, the normal term's step
    that produced X_k (NaN at k = 0, as in ``solvers.Record``)."""
    omega = _check_omega(omega)
    steps = np.asarray(normal_step, dtype=float)[1:]
    return np.concatenate([[0.0], np.cumsum(steps)]) / omega
