"""Smoke test: the README example runs and converges to the scipy optimum."""

import numpy as np

from landing_core import initial_point, landing, make_problem


def test_readme_example_converges_to_scipy_optimum():
    problem = make_problem("brockett", n=20, p=4, seed=0)
    X0 = initial_point(20, 4, distance=0.3, seed=1)
    result = landing(problem, X0, beta=0.5, omega=1.0)
    assert result.status == "converged"
    assert abs(result.cost[-1] - problem.f_star) <= 1e-6 * abs(problem.f_star)
    assert np.linalg.norm(result.X.T @ result.X - np.eye(4)) <= 1e-8
