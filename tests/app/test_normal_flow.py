"""The exact normal dynamics (landing_core.normal_flow): the closed form against an ODE solver,
the derivation against the landing field itself, the discrete iterates against the flow (to
O(eta), for three costs), and the player's overlay."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from explorer import playback, runner
from explorer.state import AppConfig
from landing_core.geometry import TANGENT_TERMS, landing_field
from landing_core.normal_flow import flow_time, gram_flow, singular_value_flow
from landing_core.problems import initial_point, make_problem
from landing_core.solvers import Config, solve
from landing_core.steps import BarzilaiBorwein, Constant

COSTS = ("brockett", "pca", "linear")


@pytest.mark.parametrize("omega", [0.3, 1.0, 4.0])
def test_the_closed_form_solves_the_matrix_ode(omega):
    rng = np.random.default_rng(1)
    A = rng.standard_normal((3, 3))
    M0 = A @ A.T + 0.2 * np.eye(3)

    def rhs(_, m):
        M = m.reshape(3, 3)
        return (-2.0 * omega * M @ (M - np.eye(3))).ravel()

    t = np.linspace(0.0, 3.0, 13)
    ode = solve_ivp(rhs, (0, 3.0), M0.ravel(), t_eval=t, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gram_flow(M0, t, omega), ode.y.T.reshape(-1, 3, 3), atol=1e-9)
    sigma = singular_value_flow(np.sqrt(np.linalg.eigvalsh(M0)), t, omega)
    np.testing.assert_allclose(sigma**2, np.linalg.eigvalsh(ode.y.T.reshape(-1, 3, 3)),
                               atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(cost=st.sampled_from(COSTS), tangent=st.sampled_from(list(TANGENT_TERMS)),
       beta=st.floats(0.05, 20), omega=st.floats(0.1, 10), seed=st.integers(0, 1000))
def test_the_gram_matrix_moves_as_the_flow_says_whatever_f_and_beta(cost, tangent, beta, omega,
                                                                   seed):
    """dM/dt along -V is -(V^T X + X^T V) = -2 omega M (M - I): the tangent term drops out."""
    problem = make_problem(cost, 5, 3, seed)
    X = initial_point(5, 3, 0.5, seed)
    V = landing_field(X, problem.egrad(X), beta, omega, tangent).V
    M = X.T @ X
    t = 1e-6  # central difference of M along -V: exact for a quadratic, up to rounding
    dM = ((X - t * V).T @ (X - t * V) - (X + t * V).T @ (X + t * V)) / (2 * t)
    np.testing.assert_allclose(dM, -2 * omega * M @ (M - np.eye(3)), atol=1e-8 * (1 + omega))


def _sigma_path(cost: str, eta: float, t_end: float = 3.0) -> tuple[np.ndarray, np.ndarray]:
    problem = make_problem(cost, 5, 3, 1)
    X0 = initial_point(5, 3, 0.6, 2)
    result = solve(problem, X0, Config(beta=0.5, omega=1.0, step=Constant(eta)),
                   max_iter=round(t_end / eta), tol=1e-300, keep_iterates=10**6)
    sigma = np.linalg.svd(result.iterates, compute_uv=False)
    t = flow_time(result.normal_step, 1.0)
    np.testing.assert_allclose(t, eta * np.arange(len(t)), rtol=1e-12)  # t_k = k eta
    return sigma, singular_value_flow(sigma[0], t, 1.0)


def test_three_costs_follow_one_flow_to_order_eta():
    errors = {}
    for eta in (0.02, 0.01):
        paths = {cost: _sigma_path(cost, eta) for cost in COSTS}
        errors[eta] = [np.abs(s - flow).max() for s, flow in paths.values()]
        sigmas = [s for s, _ in paths.values()]
        assert max(np.abs(a - b).max() for a in sigmas for b in sigmas) < 2 * max(errors[eta])
    assert max(errors[0.02]) < 0.02  # O(eta): a fraction of a percent of sigma at eta = 0.02
    for big, small in zip(errors[0.02], errors[0.01], strict=True):
        assert 1.7 < big / small < 2.3  # halving eta halves the gap: first order


def test_flow_time_reads_the_normal_step_a_rule_took():
    problem = make_problem("brockett", 3, 2, 0)
    result = solve(problem, initial_point(3, 2, 0.4, 0), Config(omega=10.0,
                                                                step=BarzilaiBorwein()))
    t = flow_time(result.normal_step, 10.0)
    assert t[0] == 0 and np.all(np.diff(t) > 0)
    np.testing.assert_allclose(np.diff(t), result.normal_step[1:] / 10.0, rtol=1e-13)
    assert np.any(np.diff(t) < result.step[1:] * (1 - 1e-9))  # BB lowered omega: t < sum eta


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="omega"):
        singular_value_flow([1.0], [0.0], 0.0)
    with pytest.raises(ValueError, match="singular values"):
        singular_value_flow([0.0, 1.0], [0.0], 1.0)
    with pytest.raises(ValueError, match="omega"):
        flow_time([np.nan, 0.1], -1.0)


def test_the_player_overlays_the_flow_at_the_iterates_times():
    config = AppConfig(n=3, p=2, omega=2.0, step="constant", eta=0.01, max_iter=150, tol=1e-14)
    problem = runner.build_problem(config)
    trace = runner.run_to_end(*runner.start(config, problem), config)
    data = playback.chunk(trace, 0)
    t = 0.01 * 2.0 * np.arange(trace.k + 1) / 2.0
    np.testing.assert_allclose(data["flow_sigma"], singular_value_flow(trace.sigma[0], t, 2.0),
                               atol=1e-6)
    M = gram_flow(trace.gram[0], t, 2.0)
    np.testing.assert_allclose(data["flow_gram"], np.stack([M[:, 0, 0], M[:, 1, 1], M[:, 0, 1]],
                                                           axis=1), atol=1e-6)
    assert np.abs(np.array(data["flow_sigma"]) - np.array(data["sigma"])).max() < 0.01
    part = playback.chunk(trace, 40)
    assert part["flow_sigma"] == data["flow_sigma"][40:]
    assert part["flow_gram"] == data["flow_gram"][40:]
    line = playback.chunk(runner.run_to_end(*runner.start(AppConfig(n=2, p=1), make_problem(
        "brockett", 2, 1, 0)), AppConfig(n=2, p=1)), 0)
    assert line["flow_sigma"] is None and line["flow_gram"] is None  # the plane view only
