"""Landing with heavy-ball momentum (landing_core.methods.momentum): the buffer stays tangent
to the layer, the field is M + omega X h, and the method converges faster on Brockett."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from landing_core import initial_point, make_problem, methods
from landing_core.geometry import h, tangent_term
from landing_core.solvers import Config, solve
from landing_core.steps import Safe, make_step_rule
from landing_core.sweep import sweep


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 4), st.integers(0, 2**31),
       st.sampled_from(["beta", "euclidean", "relative"]), st.floats(0.0, 0.99),
       st.floats(0.1, 5.0), st.floats(0.0, 1.5))
def test_the_momentum_buffer_is_tangent_and_the_field_is_m_plus_the_normal_term(
        n, p, seed, tangent, gamma, beta, distance):
    """X^T M skew for any previous buffer (even one far from tangent), M = T + gamma
    Proj_X(M_prev), V = M + omega X h(X), ||grad|| = ||grad_1 f(X)|| (the common stationarity,
    neither ||T|| nor ||M||), ||tangent part|| = ||M||."""
    p = min(p, n)
    rng = np.random.default_rng(seed)
    X = initial_point(n, p, distance, seed)
    G, M_prev = rng.standard_normal((2, n, p))
    m = methods.build("momentum", beta=beta, omega=1.7, tangent=tangent, gamma=gamma)
    fld, state = m.field(X, G, {"M": M_prev})
    M = state["M"]
    scale = (np.linalg.norm(G) + np.linalg.norm(M_prev)) * (1 + np.linalg.norm(X)) ** 4 * (
        1 + 1 / beta) * np.linalg.cond(X) ** 2
    XtM = X.T @ M
    assert np.linalg.norm(XtM + XtM.T) <= 1e-12 * scale
    T = tangent_term(tangent)(X, G, beta)
    # Proj_X(Z) = Z - X M^{-1} sym(X^T Z) (eq. (proj_beta)), written out with a solve
    Z = gamma * M_prev
    S = X.T @ Z
    proj = Z - X @ np.linalg.solve(X.T @ X, 0.5 * (S + S.T))
    np.testing.assert_allclose(M, T + proj, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(fld.V, M + 1.7 * X @ (X.T @ X - np.eye(p)), rtol=0,
                               atol=1e-12 * scale)
    np.testing.assert_allclose(fld.H, h(X), rtol=0, atol=1e-15 * scale)
    grad_1 = tangent_term("beta")(X, G, 1.0)
    assert fld.grad_norm == pytest.approx(np.linalg.norm(grad_1), rel=1e-12, abs=1e-14 * scale)
    assert fld.tangent_norm == pytest.approx(np.linalg.norm(M), rel=1e-12, abs=1e-14 * scale)
    # what the curvature rules read: the cost's tangent term, and the buffer's gain
    np.testing.assert_array_equal(fld.T, T)
    assert fld.gain == 1.0 / (1.0 - gamma)


def test_the_first_buffer_is_the_tangent_term():
    X = initial_point(7, 3, 0.4, seed=1)
    G = np.random.default_rng(1).standard_normal((7, 3))
    m = methods.build("momentum", beta=0.3, gamma=0.9)
    _, state = m.field(X, G, m.init(X))
    np.testing.assert_array_equal(state["M"], tangent_term("beta")(X, G, 0.3))


def test_a_stack_of_runs_equals_each_run():
    rng = np.random.default_rng(5)
    X = np.stack([initial_point(6, 2, 0.5, seed=s) for s in range(4)])
    G, M_prev = rng.standard_normal((2, 4, 6, 2))
    beta, omega, gamma = np.array([0.2, 1, 3, 9]), np.array([0.5, 1, 2, 4]), 0.7
    m = methods.build("momentum", beta=beta, omega=omega, gamma=gamma)
    fld, state = m.field(X, G, {"M": M_prev})
    for i in range(4):
        one = methods.build("momentum", beta=beta[i], omega=omega[i], gamma=gamma)
        fi, si = one.field(X[i], G[i], {"M": M_prev[i]})
        # stacked matmuls and 2-D gemm round differently: a few products and a p x p solve
        # with X^T X apart, (n + p) eps kappa(X)^2 times the operands' scale (Higham 3.5, 7.1)
        s = np.linalg.svd(X[i], compute_uv=False)
        scale = (np.linalg.norm(G[i]) * s[0] ** 2 * (1 + 1 / beta[i])
                 + omega[i] * s[0] * np.linalg.norm(fi.H) + gamma * np.linalg.norm(M_prev[i]))
        err = 16 * (6 + 2) * np.finfo(float).eps * (s[0] / s[-1]) ** 2 * scale
        np.testing.assert_allclose(fld.V[i], fi.V, rtol=0, atol=err)
        np.testing.assert_allclose(state["M"][i], si["M"], rtol=0, atol=err)
        assert fld.grad_norm[i] == pytest.approx(fi.grad_norm, rel=0, abs=err)


@pytest.fixture(scope="module")
def brockett():
    return make_problem("brockett", 20, 4, seed=0), initial_point(20, 4, 0.3, seed=1)


def test_gamma_zero_is_algorithm_1(brockett):
    problem, X0 = brockett
    ref = solve(problem, X0, Config(step=0.05, tangent="relative"), max_iter=300, tol=1e-300)
    res = solve(problem, X0, Config(method="momentum", step=0.05, tangent="relative",
                                    options={"gamma": 0.0}), max_iter=300, tol=1e-300)
    # gamma = 0 adds an exact zero (0 M projected) to the tangent term, so every operation is
    # Algorithm 1's: the runs agree bit for bit, under any BLAS kernel
    for a, b in ((res.cost, ref.cost), (res.infeasibility, ref.infeasibility),
                 (res.grad_norm, ref.grad_norm), (res.X, ref.X)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("step", [0.05, Safe(0.05)])
def test_momentum_converges_on_brockett_in_fewer_iterations(brockett, step):
    problem, X0 = brockett
    plain = solve(problem, X0, Config(method="momentum", step=step, options={"gamma": 0.0}),
                  max_iter=5000)
    fast = solve(problem, X0, Config(method="momentum", step=step, options={"gamma": 0.8}),
                 max_iter=5000)
    for res in (plain, fast):
        assert res.status == "converged", res.message
        assert abs(res.cost[-1] - problem.f_star) <= 1e-8 * abs(problem.f_star)
        X = res.X
        assert np.linalg.norm(X.T @ X - np.eye(4)) <= 1e-8
    assert fast.iterations < plain.iterations / 3  # measured: 394 (538 safe) against 2304


@pytest.mark.parametrize("rule", ["bb", "scalefree"])
@pytest.mark.parametrize("gamma", [0.5, 0.9])
def test_the_curvature_rules_converge_with_momentum(brockett, rule, gamma):
    """BB and the default rule read their quotients from the cost's tangent term and divide
    the step by the buffer's gain 1 / (1 - gamma) (``methods.Field``). On the buffer's own
    differences they ran to the limit here with ||grad|| 0.8-16 (gamma 0.5-0.9)."""
    problem, X0 = brockett
    res = solve(problem, X0, Config(method="momentum", step=make_step_rule(rule, 0.1),
                                    options={"gamma": gamma}), max_iter=2000)
    assert res.status == "converged", res.message  # measured: 300-790 iterations
    assert abs(res.cost[-1] - problem.f_star) <= 1e-8 * abs(problem.f_star)
    assert np.linalg.norm(res.X.T @ res.X - np.eye(4)) <= 1e-8


def test_momentum_sweep_cells_equal_single_runs(brockett):
    problem, _ = brockett
    res = sweep(problem, beta=(0.5, 2.0), eta=(0.02, 0.05), seed=(0, 1), method="momentum",
                options={"gamma": 0.8}, max_iter=600)
    assert "converged" in set(res.status)
    for i in range(res.status.size):
        beta, eta, seed = (res.params[k][i] for k in ("beta", "eta", "seed"))
        single = solve(problem, initial_point(20, 4, 0.3, int(seed)),
                       Config(beta=float(beta), step=float(eta), method="momentum",
                              options={"gamma": 0.8}), max_iter=600)
        assert (res.status[i], res.iterations[i]) == (single.status, single.iterations)
        assert res.final_cost[i] == pytest.approx(single.cost[-1], rel=1e-10)


@pytest.mark.parametrize("gamma", [-0.1, 1.0, float("nan"), "big"])
def test_bad_gamma_is_refused(gamma):
    with pytest.raises(ValueError, match=r"momentum gamma must lie in \[0, 1\)"):
        Config(method="momentum", options={"gamma": gamma})
