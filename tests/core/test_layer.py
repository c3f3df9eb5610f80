"""β within one layer: the tangent term alone (ω = 0) and Riemannian GD in the β-metric of
St(n, p) (landing_core.methods.rgd), each against an independent computation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import null_space

from landing_core.geometry import grad_beta, riemannian_gradient_stiefel
from landing_core.methods.rgd import RiemannianGD, stiefel_beta_gradient
from landing_core.problems import initial_point, make_problem, nearest_stiefel
from landing_core.solvers import Config, landing, riemannian_gd, solve
from landing_core.steps import Armijo, BarzilaiBorwein, Constant, Safe, ScaleFree
from landing_core.sweep import run_batch


def _gradient_by_linear_algebra(Q: np.ndarray, G: np.ndarray, beta: float) -> np.ndarray:
    """The beta-metric gradient from its definition: the tangent xi with
    g^beta(xi, zeta) = <G, zeta> for every zeta in T_Q St(n, p), solved in a numerical basis of
    the tangent space (the null space of zeta -> Q^T zeta + zeta^T Q) with the metric's Gram
    matrix <zeta_a, (I - (1 - beta) Q Q^T) zeta_b>."""
    n, p = Q.shape
    rows = []
    for j in range(n * p):  # the matrix of zeta -> Q^T zeta + zeta^T Q, column by column
        E = np.zeros(n * p)
        E[j] = 1
        Z = E.reshape(n, p)
        rows.append((Q.T @ Z + Z.T @ Q).ravel())
    basis = null_space(np.array(rows).T)  # (np, dim)
    metric = np.eye(n) - (1 - beta) * Q @ Q.T
    Zs = [basis[:, a].reshape(n, p) for a in range(basis.shape[1])]
    gram = np.array([[np.sum(za * (metric @ zb)) for zb in Zs] for za in Zs])
    rhs = np.array([np.sum(G * za) for za in Zs])
    coef = np.linalg.solve(gram, rhs)
    return sum(c * z for c, z in zip(coef, Zs, strict=True))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 6), p=st.integers(1, 4), beta=st.floats(0.02, 50),
       seed=st.integers(0, 10**6))
def test_the_beta_gradient_on_stiefel_solves_its_definition(n, p, beta, seed):
    p = min(p, n)
    rng = np.random.default_rng(seed)
    Q = nearest_stiefel(rng.standard_normal((n, p)))
    G = rng.standard_normal((n, p))
    expected = _gradient_by_linear_algebra(Q, G, beta)
    got = stiefel_beta_gradient(Q, G, beta)
    np.testing.assert_allclose(got, expected, atol=1e-10 * (1 + 1 / beta) * np.linalg.norm(G))
    np.testing.assert_allclose(got, grad_beta(Q, G, beta),  # the ambient form at M = I
                               atol=1e-12 * (1 + 1 / beta) * np.linalg.norm(G))


def test_beta_one_is_the_embedded_gradient_and_the_old_baseline():
    problem = make_problem("brockett", 6, 3, 2)
    X0 = initial_point(6, 3, 0.3, 2)
    Q = nearest_stiefel(X0)
    G = problem.egrad(Q)
    # two formulas, a few products each of Q (||Q||_2 = 1) and G: n eps ||G|| apart at most
    np.testing.assert_allclose(stiefel_beta_gradient(Q, G), riemannian_gradient_stiefel(Q, G),
                               rtol=0, atol=8 * 6 * np.finfo(float).eps * np.linalg.norm(G))
    default = riemannian_gd(problem, X0, step=0.05, max_iter=50)
    assert Config(method="rgd-qr").options == ()
    explicit = solve(problem, X0, Config(method="rgd-qr", options={"metric_beta": 1.0},
                                         step=0.05), max_iter=50)
    np.testing.assert_array_equal(default.X, explicit.X)
    with pytest.raises(ValueError, match="metric_beta must be a finite number > 0"):
        RiemannianGD("qr", 0.0)


def test_rgd_in_the_beta_metric_runs_and_beta_sets_its_speed():
    problem = make_problem("brockett", 3, 2, 0)
    X0 = initial_point(3, 2, 0.4, 0)
    counts = {b: riemannian_gd(problem, X0, metric_beta=b, step=0.05, tol=1e-6,
                               max_iter=8000) for b in (3.0, 10.0)}
    assert all(r.status == "converged" and r.infeasibility.max() < 1e-12
               for r in counts.values())
    # the rotation block is scaled by 1/beta: beyond beta ~ 1 it sets the pace, iterations ~ beta
    assert 2.5 < counts[10.0].iterations / counts[3.0].iterations < 3.5


def test_omega_zero_is_the_tangent_term_alone_and_only_for_landing():
    problem = make_problem("brockett", 5, 2, 1)
    X0 = initial_point(5, 2, 0.5, 1)
    M0 = X0.T @ X0
    drift = {}
    for eta in (0.02, 0.01):
        run = landing(problem, X0, beta=0.3, omega=0.0, step=Constant(eta), tol=1e-12,
                      max_iter=round(4 / eta), keep_iterates=10**5)
        drift[eta] = max(np.linalg.norm(X.T @ X - M0) for X in run.iterates)
        assert run.grad_norm[-1] < 1e-2 * run.grad_norm[0]  # it descends, on its layer
    # it leaves the layer by O(eta) only: 6 % of ||M_0|| at eta = 0.02, half that at 0.01
    assert drift[0.02] < 0.1 * np.linalg.norm(M0) and 1.8 < drift[0.02] / drift[0.01] < 2.2
    for method in ("penalty", "rgd-qr"):
        with pytest.raises(ValueError, match="omega must be a finite number > 0"):
            Config(omega=0.0, method=method)
    assert Config(omega=0.0, method="momentum", step=0.1).omega == 0.0
    # the rules that keep ||h|| in the safe region do so through the normal term: without it
    # they cut the step to 0 at the region's edge (a run "diverged" with eta = 0)
    # (Armijo's filter keeps ||h|| <= max(eps, ||h(X_k)||) too: it took steps of 1e-16 there)
    for rule in (None, Safe(), BarzilaiBorwein(), ScaleFree(), Armijo()):
        with pytest.raises(ValueError, match="omega = 0 runs the tangent term alone"):
            landing(problem, X0, omega=0.0, step=rule)
    for bad in (-1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="omega"):
            Config(omega=bad)
    with pytest.raises(ValueError, match="omega"):  # the sweeps keep omega > 0
        run_batch(problem, X0[None], beta=0.5, omega=0.0, eta=0.1)


def test_from_the_manifold_the_tangent_term_alone_follows_rgd_in_the_beta_metric():
    """From Q on St(n, p), omega = 0 and RGD-beta take the same first direction
    (grad_beta at M = I) and differ by the retraction only: their paths agree to O(eta)."""
    problem = make_problem("procrustes", 5, 3, 0)
    Q = nearest_stiefel(initial_point(5, 3, 0.4, 0))
    gaps = {}
    for eta in (0.02, 0.01):
        steps = round(1.0 / eta)
        lay = landing(problem, Q, beta=0.2, omega=0.0, step=Constant(eta), tol=1e-300,
                      max_iter=steps)
        rgd = riemannian_gd(problem, Q, metric_beta=0.2, retraction="polar",
                            step=Constant(eta), tol=1e-300, max_iter=steps)
        gaps[eta] = np.linalg.norm(lay.X - rgd.X)
    assert gaps[0.02] < 0.05 and 1.6 < gaps[0.02] / gaps[0.01] < 2.6
