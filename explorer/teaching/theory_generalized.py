"""The generalized Stiefel constraint X^T B X = I_p: its formulas checked numerically, live.

The statements of ``landing_core.generalized`` at a random full-rank X (off the layer
X^T B X = I) and a random symmetric positive definite B of a given condition number, each
against an independent computation: explicit n x n operators (fine here: the Theory page's n
is small), scipy.linalg.sqrtm for the change of variables Y = B^{1/2} X, central finite
differences. Returns :class:`~explorer.teaching.theory.Check` objects, as the paper's checks do.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg

from landing_core import generalized as gz
from landing_core import geometry as geo
from landing_core.constraints import SAFE_EPS  # the ball ||h_B|| <= eps of the safe step
from landing_core.problems import fd_directional, generalized_eigen, initial_point

from .theory import EXACT_TOL, FD_TOL, Check

Array = np.ndarray

__all__ = ["GeneralizedPoint", "check_generalized", "generalized_point"]


class GeneralizedPoint(NamedTuple):
    """A random instance: B (cond ``condition``), X off the layer, G = grad f(X) of the
    generalized eigenvalue cost tr(X^T A X), and the generator of test directions."""

    B: Array
    X: Array
    G: Array
    rng: np.random.Generator


def generalized_point(n: int, p: int, condition: float = 1e3, seed: int = 0,
                      distance: float = 0.4) -> GeneralizedPoint:
    problem = generalized_eigen(n, p, seed=seed, condition=condition)
    X = initial_point(n, p, distance, seed, B=problem.B)
    return GeneralizedPoint(problem.B, X, problem.egrad(X), np.random.default_rng([seed, 13]))


def _rel(a: Array, b: Array) -> float:
    scale = max(float(np.linalg.norm(a)), float(np.linalg.norm(b)))
    return float(np.linalg.norm(a - b)) / scale if scale > 0 else 0.0


def _tangent(B: Array, X: Array, rng: np.random.Generator) -> Array:
    W = rng.standard_normal((len(B), len(B)))
    return (W - W.T) @ B @ X


def check_generalized(point: GeneralizedPoint, beta: float) -> list[Check]:
    """Every statement about X^T B X = I at ``point`` for this beta."""
    B, X, G, rng = point.B, point.X, point.G, point.rng
    BX = B @ X
    p = X.shape[1]
    out = []
    worst = 0.0
    for name in ("beta", "euclidean", "relative"):
        T = gz.tangent_term_B(name, X, BX, G, beta)
        S = X.T @ B @ T
        worst = max(worst, float(np.linalg.norm(S + S.T))
                    / (float(np.linalg.norm(BX)) * float(np.linalg.norm(T)) or 1.0))
    out.append(Check("b_tangent", "every tangent term keeps XᵀBX to first order",
                     r"X^\top B\, T + T^\top B X = 0", worst, EXACT_TOL,
                     "max over β-family, Frobenius projection, relative gradient of "
                     "‖XᵀBT + TᵀBX‖ / (‖BX‖ ‖T‖)"))
    T = gz.grad_beta_B(X, BX, G, beta)
    U = scipy.linalg.orth(BX)
    Q = np.eye(len(B)) - (1.0 - beta) * U @ U.T
    Minv = np.linalg.inv(X.T @ BX)
    residual = 0.0
    for _ in range(4):
        xi = _tangent(B, X, rng)
        lhs, rhs = float(np.vdot(T, Q @ xi @ Minv)), float(np.vdot(G, xi))
        scale = float(np.linalg.norm(T) * np.linalg.norm(Q @ xi @ Minv)) + abs(rhs)
        residual = max(residual, abs(lhs - rhs) / scale)
    out.append(Check("b_riemannian",
                     r"$\operatorname{grad}^B_\beta$ is the Riemannian gradient of $g^{\beta,B}$",
                     r"g^{\beta,B}_X(\operatorname{grad}^B_\beta f, \xi) = "
                     r"\langle \nabla f, \xi\rangle\ \ \forall \xi: X^\top B\xi \in "
                     r"\mathrm{Skew}", residual, 1e-10,
                     r"the metric's operator $I - (1-\beta)P_{BX}$ formed explicitly "
                     r"($P_{BX}$ from "
                     "scipy.linalg.orth), four random tangent ξ = W B X"))
    Xs = X / np.linalg.norm(X, 2)
    out.append(Check("b_identity", "at B = I: the paper's gradᵦ",
                     r"B = I:\ \operatorname{grad}^B_\beta f = \operatorname{grad}_\beta f",
                     _rel(gz.grad_beta_B(Xs, Xs, G, beta), geo.grad_beta(Xs, G, beta)),
                     1e-10, "relative difference with geometry.grad_beta"))
    Bh = np.real(scipy.linalg.sqrtm(B))
    Y = Bh @ X
    ref = np.linalg.solve(Bh, geo.grad_beta(Y, np.linalg.solve(Bh, G), beta))
    mine = gz.change_of_variables_tangent(X, BX, G, np.linalg.solve(B, G), beta)
    out.append(Check("b_change", r"the change of variables $Y = B^{1/2}X$ (sqrtm)",
                     r"B^{-1/2}\operatorname{grad}_\beta \tilde f(B^{1/2}X) = B^{-1}GM - "
                     r"\tfrac{1}{2\beta}XG^\top X + (\tfrac{1}{2\beta}-1)XM^{-1}X^\top GM",
                     _rel(mine, ref), 1e-8,
                     "relative difference with the image computed through scipy.linalg.sqrtm "
                     "(whose own accuracy sets the threshold)"))
    Z = rng.standard_normal(X.shape)
    fd = fd_directional(lambda Y: gz.N_B(Y, B @ Y), X, Z, 1e-7)
    exact = float(np.vdot(gz.grad_N_B(X, BX), Z))
    out.append(Check("b_normal", r"$BXh_B$ is the gradient of ¼‖XᵀBX − I‖²",
                     r"\mathrm{D}\big(\tfrac14\|X^\top BX - I\|^2\big)[Z] = "
                     r"\langle BX(X^\top BX - I), Z\rangle",
                     abs(fd - exact) / max(abs(exact), 1e-300), FD_TOL,
                     r"central finite differences of $\mathcal{N}_B$"))
    W = G @ X.T @ B
    W = 0.5 * (W - W.T)
    Psi = gz.relative_gradient_B(X, BX, G)
    out.append(Check("b_relative", "the relative gradient is skew(G XᵀB) B X, a descent "
                     "direction", r"\langle \nabla f, \operatorname{skew}(GX^\top B)BX\rangle"
                     r" = \|\operatorname{skew}(GX^\top B)\|^2",
                     max(_rel(Psi, W @ B @ X), abs(float(np.vdot(G, Psi)) - float(np.sum(W * W)))
                         / float(np.sum(W * W))), 1e-10, "n x n skew(G XᵀB) formed explicitly"))
    omega = 1.0
    _, V, H = gz.landing_field_B(X, BX, G, beta, omega)
    eta = gz.safe_step_B(H, BX.T @ BX, omega, float(np.vdot(V, V)), gz.lambda_max(B), SAFE_EPS)
    Xn = X - eta * V
    after = float(np.linalg.norm(Xn.T @ B @ Xn - np.eye(p)))
    bound = max(SAFE_EPS, float(np.linalg.norm(H)))
    out.append(Check("b_safe", r"the B-ball safe step keeps "
                     r"$\|h_B\| \le \max(\varepsilon, \|h_B(X)\|)$",
                     r"\|h_B(X - \eta^* V)\| \le \max(\varepsilon, \|h_B(X)\|)",
                     max(after / bound - 1.0, 0.0), EXACT_TOL,
                     f"η* = {eta:.3g}: $\\|h_B\\|$ goes from {np.linalg.norm(H):.3g} to "
                     f"{after:.3g} (ε = {SAFE_EPS})"))
    return out
