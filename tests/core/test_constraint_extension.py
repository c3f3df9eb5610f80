"""A third constraint, defined in this module alone: the scaled Stiefel manifold
X^T X = c^2 I_p. Landing, the safe step and a sweep run on it through ``Problem.constraint``
with no edit anywhere else (issue 22: the constraint is one object).

With X = c Y, h_c(X) = X^T X - c^2 I = c^2 h(Y) (h of eq. (h)), and the landing field
V = T + w X h_c(X) is c times the field T / c + (w c^2) Y h(Y) on St(n, p): the safe step lemma
of Ablin et al. applies to Y with d / c^2, ||V|| / c, w c^2 and eps / c^2. The layers
{X^T X = M} are St(n, p)'s, so the tangent terms, the projection and the stationarity measure
are ``geometry``'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from landing_core import geometry
from landing_core.constraints import Constraint
from landing_core.constraints.stiefel import safe_step_bound
from landing_core.problems import Problem, make_problem
from landing_core.solvers import Config, solve
from landing_core.steps import Armijo, Safe
from landing_core.sweep import sweep

Array = np.ndarray


@dataclass(frozen=True)
class ScaledStiefel(Constraint):
    """X^T X = c^2 I_p (module docstring)."""

    c: float = 2.0
    gram = "XᵀX/c²"

    def h(self, X: Array) -> Array:
        return geometry.gram(X) - self.c**2 * np.eye(X.shape[-1])

    def dh(self, X: Array, Z: Array) -> Array:
        return geometry.dh(X, Z)

    def tangent_term(self, name: str, X: Array, G: Array, beta: Any) -> Array:
        return geometry.tangent_term(name)(X, G, beta)

    def project(self, X: Array, Z: Array) -> Array:
        return geometry.proj_tangent(X, Z)

    def normal_term(self, X: Array, H: Array) -> Array:
        return X @ H  # 1/4 the gradient of ||h_c||^2 for H = h_c(X)

    def stationarity(self, X: Array, G: Array) -> Any:
        return geometry.stationarity(X, G)

    def multiplier(self, X: Array, G: Array) -> Array:
        """At a critical point G = X Lambda, so X^T G = c^2 Lambda."""
        return geometry.sym(X.mT @ G) / self.c**2

    def safe_bound(self, X: Array, H: Array, d: Any, g2: Any, w: Any, eps: float) -> Any:
        c2 = self.c**2
        return safe_step_bound(np.asarray(d) / c2, np.sqrt(g2) / self.c, np.asarray(w) * c2,
                               eps / c2)

    def scale(self, X: Array, H: Array) -> Any:
        return self.c**2  # X^T X H + H X^T X ~ 2 c^2 H near the constraint

    def nearest(self, X: Array) -> Array:
        return self.c * geometry.nearest_stiefel(X)

    def frame(self, U: Array) -> Array:
        return self.c * U


C = 2.0


def scaled_brockett(n: int, p: int) -> Problem:
    """Brockett's cost on X^T X = c^2 I: f(c Y) = c^2 f(Y), so f* = c^2 f*_St."""
    plain = make_problem("brockett", n, p, seed=3)
    return replace(plain, constraint=ScaledStiefel(C), f_star=C**2 * plain.f_star)


def residual(X: Array) -> float:
    """||X^T X - c^2 I||_F, formed here apart from the constraint object."""
    return float(np.linalg.norm(X.T @ X - C**2 * np.eye(X.shape[1])))


def test_initial_point_and_nearest_point_are_on_the_scaled_manifold():
    constraint = ScaledStiefel(C)
    s = np.array([1.2, 0.9, 1.05])
    X0 = constraint.initial_point(7, 3, seed=1, singular_values=s)
    # X0 = c U diag(s) V^T, so X0^T X0 - c^2 I = c^2 V diag(s^2 - 1) V^T
    assert residual(X0) == pytest.approx(C**2 * np.linalg.norm(s**2 - 1), rel=1e-12)
    assert residual(constraint.nearest(X0)) <= 1e-13 * C**2


@pytest.mark.parametrize("tangent", ["beta", "euclidean", "relative"])
@pytest.mark.parametrize("rule", ["bb", "armijo"])
def test_landing_converges_on_the_scaled_manifold(tangent, rule):
    """Barzilai-Borwein (the default, with the constraint's safe bound and scale) and Armijo
    (the constraint's h at trial points, Dh, multiplier and cross term)."""
    problem = scaled_brockett(8, 3)
    X0 = problem.constraint.initial_point(8, 3, 0.2, seed=4)
    step = Armijo() if rule == "armijo" else None
    res = solve(problem, X0, Config(tangent=tangent, step=step), tol=1e-10, max_iter=3000)
    assert res.status == "converged"
    assert res.infeasibility[-1] == pytest.approx(residual(res.X), rel=1e-6, abs=1e-14)
    assert residual(res.X) <= 1e-10
    # at convergence f - f* is of order ||Lambda|| ||h|| + ||grad||^2 / gap, far below 1e-8
    assert abs(res.cost[-1] - problem.f_star) <= 1e-8 * abs(problem.f_star)


@pytest.mark.parametrize("eta", [50.0, 0.02])
def test_the_safe_step_keeps_every_iterate_in_the_scaled_safe_region(eta):
    """Safe(eta): ||X_k^T X_k - c^2 I|| <= eps on every iterate from X_0 inside, however
    large eta (the lemma on Y = X / c, whose cap 1/(2 omega c^2) then binds); with a step
    below 2 / (the curvature of f, c^2 times St(n, p)'s), the run converges."""
    problem = scaled_brockett(6, 2)
    eps = 0.5
    X0 = problem.constraint.initial_point(6, 2, seed=5, singular_values=[1.05, 0.97])
    assert residual(X0) < eps
    res = solve(problem, X0, Config(step=Safe(eta=eta, eps=eps)), tol=1e-10, max_iter=3000,
                keep_iterates=3000)
    worst = max(residual(X) for X in res.iterates)
    # the lemma's bound is exact; the computed residual adds rounding of order n eps ||X||^2
    assert worst <= eps + 1e-12 * C**2
    assert np.max(res.infeasibility) <= eps + 1e-12 * C**2
    if eta > 1:
        assert np.nanmax(res.step) <= 0.5 / C**2  # the cap 1/(2 omega c^2), omega = 1
    else:
        assert res.status == "converged"
        assert abs(res.cost[-1] - problem.f_star) <= 1e-8 * abs(problem.f_star)


def test_the_safe_step_restores_from_outside_the_lemmas_range():
    """From ||h_c(X_0)|| > c^2 (||h(Y_0)|| > 1) the bound is NaN and the safe step takes the
    constraint's generic ``restoring_step``: ||h_c|| decreases at every step until the lemma
    applies, and never rises above max(eps, ||h_c||) after."""
    problem = scaled_brockett(6, 2)
    X0 = problem.constraint.initial_point(6, 2, seed=6, singular_values=[1.6, 0.5])
    assert residual(X0) > C**2
    res = solve(problem, X0, Config(step=Safe(eta=0.02)), tol=1e-10, max_iter=3000,
                keep_iterates=3000)
    assert res.status == "converged"
    h = np.array([residual(X) for X in res.iterates])
    assert np.all(np.diff(h[h >= C**2]) < 0)
    cross = np.argmax(h < C**2)
    assert np.all(h[cross + 1:] <= np.maximum(0.5, h[cross:-1]) + 1e-12 * C**2)


@pytest.mark.parametrize("step", ["safe", "constant"])
def test_a_sweep_runs_on_the_scaled_manifold(step):
    problem = scaled_brockett(6, 2)
    res = sweep(problem, beta=(0.5, 1.0), omega=(0.5, 1.0), eta=(0.02,), seed=(0, 1),
                distance=0.2, step=step, tol=1e-9, max_iter=4000)
    assert list(res.status) == ["converged"] * 8
    assert np.all(res.final_infeasibility <= 1e-9)
    assert np.all(np.abs(res.final_gap) <= 1e-7 * abs(problem.f_star))
    # the sweep's starts are the constraint's own: at seed s, initial_point(..., 0.2, s)
    X0 = problem.constraint.initial_point(6, 2, 0.2, 0)
    assert residual(X0) == pytest.approx(math.sqrt(np.sum(
        (np.linalg.svd(X0 / C, compute_uv=False) ** 2 - 1) ** 2)) * C**2, rel=1e-12)
