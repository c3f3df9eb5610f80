"""Solvers (landing_core.solvers): convergence against scipy optima, baselines, the run contract
(histories, statuses, X0 untouched, iterate, keep_iterates, callback) and input checks."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from landing_core import initial_point, iterate, landing, make_problem, penalty, riemannian_gd
from landing_core.problems import Problem, nearest_stiefel
from landing_core.solvers import RETRACTIONS, Config, solve
from landing_core.steps import Armijo, Constant, Safe

BETAS = [0.25, 0.5, 1.0, 4.0]
TANGENTS = ["beta", "euclidean", "relative"]


def _feas(X):
    return np.linalg.norm(X.T @ X - np.eye(X.shape[1]))


def _brockett_matrix(problem):
    """A of tr(X^T A X N), recovered through the gradient oracle: egrad(e_i e_1^T) = 2 p A e_i."""
    n, p = problem.n, problem.p
    A = np.zeros((n, n))
    for i in range(n):
        E = np.zeros((n, p))
        E[i, 0] = 1.0
        A[:, i] = problem.egrad(E)[:, 0] / (2 * p)
    return A


@pytest.fixture(scope="module")
def brockett():
    problem = make_problem("brockett", 20, 4, seed=0)
    lam = scipy.linalg.eigh(_brockett_matrix(problem), eigvals_only=True)
    f_star = float(np.arange(4, 0, -1) @ lam[:4])
    return problem, f_star, initial_point(20, 4, 0.3, seed=1)


def _procrustes_optimum_on_component(problem, sign):
    """min of 1/2 ||A X - B||^2 over {X in O(n): sign det X = sign}. On O(n) the cost is
    cost(0) + 1/2 ||A||^2 - <A^T B, X>; A^T B = -egrad(0). scipy's orthogonal_procrustes gives the
    maximizer of <C, X> over O(n); on the other component, flip the last singular direction."""
    n = problem.n
    C = -problem.egrad(np.zeros((n, n)))
    R, _ = scipy.linalg.orthogonal_procrustes(np.eye(n), C)
    if np.sign(np.linalg.det(R)) != sign:
        U, _, Vt = np.linalg.svd(C)
        R = U @ np.diag([1.0] * (n - 1) + [-1.0]) @ Vt
        R = R if np.sign(np.linalg.det(R)) == sign else U @ Vt
    assert np.sign(np.linalg.det(R)) == sign
    return float(problem.cost(R))


@pytest.fixture(scope="module")
def procrustes():
    problem = make_problem("procrustes", 10, 10, seed=0)
    X0 = initial_point(10, 10, 0.3, seed=1)
    flip = np.ones(10)
    flip[0] = -1.0
    starts = [X0, X0 * flip]  # one start on each component of O(10)
    return problem, starts


# ----------------------------------------------------------------------------- convergence


@pytest.mark.parametrize("tangent", TANGENTS)
@pytest.mark.parametrize("beta", BETAS)
def test_landing_reaches_the_scipy_optimum_on_brockett(brockett, beta, tangent):
    problem, f_star, X0 = brockett
    res = landing(problem, X0, beta=beta, tangent=tangent, step=None, max_iter=5000)
    assert res.status == "converged", res.message
    assert abs(res.cost[-1] - f_star) <= 1e-6 * abs(f_star)
    assert _feas(res.X) <= 1e-8
    assert res.f_star == pytest.approx(f_star, rel=1e-12)


@pytest.mark.parametrize("tangent", TANGENTS)
@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("component", [0, 1])
def test_landing_reaches_the_optimum_of_its_component_on_procrustes(
    procrustes, beta, tangent, component
):
    problem, starts = procrustes
    X0 = starts[component]
    sign = np.sign(np.linalg.det(X0))
    f_ref = _procrustes_optimum_on_component(problem, sign)
    assert problem.optimum_from(X0) == pytest.approx(f_ref, rel=1e-12)
    res = landing(problem, X0, beta=beta, tangent=tangent, step=None, max_iter=5000,
                  keep_iterates=10_000)
    assert res.status == "converged", res.message
    assert abs(res.cost[-1] - f_ref) <= 1e-6 * abs(f_ref)
    assert _feas(res.X) <= 1e-8
    # landing never leaves the component of X0: the sign of det X_k is constant along the run
    assert len(res.iterates) == res.iterations + 1
    assert np.all(np.sign(np.linalg.det(res.iterates)) == sign)


def test_procrustes_components_have_different_optima(procrustes):
    problem, starts = procrustes
    values = {_procrustes_optimum_on_component(problem, s) for s in (1, -1)}
    assert len(values) == 2 and min(values) == pytest.approx(problem.f_star, rel=1e-12)


@pytest.mark.parametrize("retraction", ["qr", "polar", "cayley"])
def test_riemannian_gd_baselines_converge_on_brockett(brockett, retraction):
    problem, f_star, X0 = brockett
    res = riemannian_gd(problem, X0, retraction=retraction, max_iter=3000, keep_iterates=5000)
    assert res.status == "converged", res.message
    assert abs(res.cost[-1] - f_star) <= 1e-6 * abs(f_star)
    # a retraction keeps every iterate on St(n, p) (it starts from X0's polar factor; Cayley's
    # Woodbury solve lets rounding drift accumulate slowly)
    assert max(_feas(X) for X in res.iterates) <= 1e-10
    np.testing.assert_allclose(res.iterates[0], scipy.linalg.polar(X0)[0], atol=1e-12)


def test_penalty_stalls_at_a_biased_infeasible_point(brockett):
    """Gradient descent on f + omega/4 ||h||^2 converges to the penalty's minimizer, whose columns
    are eigenvectors of A with ||x_j||^2 = 1 - 2 lambda_j w_j / omega: ||h||_F stalls at
    (2 / omega) ||(lambda_j w_j)_j|| > 0 instead of going to 0."""
    problem, f_star, X0 = brockett
    omega = 30.0
    lam = scipy.linalg.eigh(_brockett_matrix(problem), eigvals_only=True)[:4]
    bias = 2.0 / omega * np.linalg.norm(lam * np.arange(4, 0, -1))
    res = penalty(problem, X0, omega=omega, max_iter=3000)
    assert res.status == "max_iter"
    assert res.infeasibility[-1] == pytest.approx(bias, rel=1e-3)
    assert np.all(res.infeasibility[-500:] > 0.9 * bias)
    assert res.cost[-1] < f_star  # infeasible points below the constrained optimum


# ----------------------------------------------------------------------------- run contract


@pytest.fixture(scope="module")
def small():
    return make_problem("brockett", 8, 3, seed=2), initial_point(8, 3, 0.4, seed=5)


@pytest.mark.parametrize("k", [0, 1, 7, 40])
@pytest.mark.parametrize("method", ["landing", "rgd-qr", "penalty"])
def test_histories_have_max_iter_plus_one_entries(small, k, method):
    problem, X0 = small
    res = solve(problem, X0, Config(method=method, step=0.05), tol=1e-300, max_iter=k)
    assert res.status == "max_iter" and res.iterations == k
    for hist in (res.cost, res.infeasibility, res.grad_norm, res.step, res.time):
        assert hist.shape == (k + 1,)
    assert "iteration limit" in res.message and not res.success
    assert np.all(np.diff(res.time) >= 0)


def test_histories_match_the_records_of_iterate(small):
    problem, X0 = small
    cfg = Config(beta=2.0, omega=0.5, step=0.05)
    res = solve(problem, X0, cfg, tol=1e-300, max_iter=10, keep_iterates=100)
    records = [rec for rec, _ in zip(iterate(problem, X0, cfg), range(11), strict=False)]
    for rec in records:
        np.testing.assert_array_equal(res.iterates[rec.k], rec.X)
        assert res.cost[rec.k] == rec.cost == pytest.approx(float(problem.cost(rec.X)), rel=1e-14)
        assert res.infeasibility[rec.k] == pytest.approx(_feas(rec.X), rel=1e-12)
    # X_{k+1} = X_k - eta_k V(X_k) (Algorithm 1) with grad_beta and the normal term omega X h
    for a, b in zip(records, records[1:], strict=False):
        X = a.X
        G = problem.egrad(X)
        M = X.T @ X
        c = 1 / (2 * cfg.beta)
        grad = G @ M - c * X @ G.T @ X + (c - 1) * X @ np.linalg.solve(M, X.T @ G @ M)
        V = grad + cfg.omega * X @ (M - np.eye(3))
        # another order of the same products and solve: X's rounding plus the step's, which is
        # (n + p) eps kappa(M) times its operands' scale (Higham 3.5, 7.1)
        s = np.linalg.svd(X, compute_uv=False)
        scale = (np.linalg.norm(G) * s[0] ** 2 * (1 + c) + cfg.omega * s[0]
                 * np.linalg.norm(M - np.eye(3)))
        err = 4 * np.finfo(float).eps * (np.abs(X).max()
                                         + 0.05 * 4 * sum(X.shape) * (s[0] / s[-1]) ** 2 * scale)
        np.testing.assert_allclose(b.X, X - 0.05 * V, rtol=0, atol=err)
        # ||grad|| is the stationarity ||grad_1 f(X)||, not the norm of this beta's tangent term
        grad_1 = G @ M - 0.5 * X @ G.T @ X - 0.5 * X @ np.linalg.solve(M, X.T @ G @ M)
        assert a.grad_norm == pytest.approx(np.linalg.norm(grad_1), rel=1e-10)
        assert abs(a.grad_norm - np.linalg.norm(grad)) > 1e-3 * a.grad_norm


@pytest.mark.parametrize("method", ["landing", "rgd-polar", "penalty"])
def test_X0_is_never_mutated(small, method):
    problem, X0 = small
    keep = X0.copy()
    res = solve(problem, X0, Config(method=method), max_iter=50, keep_iterates=10)
    np.testing.assert_array_equal(X0, keep)
    gen = iterate(problem, X0, Config(method=method))
    first = next(gen)
    for _ in range(5):
        next(gen)
    np.testing.assert_array_equal(X0, keep)
    assert first.X is not X0
    res.X[:] = 0.0
    np.testing.assert_array_equal(X0, keep)


def test_iterate_yields_X0_first(small):
    problem, X0 = small
    gen = iterate(problem, X0, Config(beta=0.7))
    rec = next(gen)
    assert rec.k == 0 and rec.status == "running" and np.isnan(rec.step)
    np.testing.assert_array_equal(rec.X, X0)
    assert rec.cost == float(problem.cost(X0))
    assert rec.infeasibility == pytest.approx(_feas(X0), rel=1e-12)
    assert [next(gen).k for _ in range(3)] == [1, 2, 3]


def test_converged_status_and_message(brockett):
    problem, f_star, X0 = brockett
    res = landing(problem, X0, tol=1e-8)
    assert res.status == "converged" and res.success
    assert res.message.startswith(f"Converged after {res.iterations} iterations")
    assert res.grad_norm[-1] + res.infeasibility[-1] <= 1e-8
    assert np.all(res.grad_norm[:-1] + res.infeasibility[:-1] > 1e-8)  # the first time it held


def test_constant_large_step_diverges_cleanly(brockett):
    problem, f_star, X0 = brockett
    res = landing(problem, X0, step=10.0, max_iter=1000)
    assert res.status == "diverged" and not res.success
    assert res.message.startswith("Diverged at iteration") and "smaller step" in res.message
    assert res.iterations < 1000
    assert np.all(np.isfinite(res.X))
    for hist in (res.cost, res.infeasibility, res.grad_norm, res.step, res.time):
        assert hist.shape == (res.iterations + 1,)
    for hist in (res.cost, res.infeasibility, res.grad_norm, res.step[1:], res.time):
        assert np.all(np.isfinite(hist))
    # the final X is the last valid iterate
    assert float(problem.cost(res.X)) == res.cost[-1]


def _problem_from(base: Problem, cost=None, egrad=None) -> Problem:
    return Problem(name=base.name, n=base.n, p=base.p, cost=cost or base.cost,
                   egrad=egrad or base.egrad, f_star=base.f_star,
                   f_star_by_det=base.f_star_by_det)


def _nan_gradient_after(problem, k):
    seen = {"n": 0}

    def egrad(X):  # NaN from the (k+1)-th evaluation on
        seen["n"] += 1
        return problem.egrad(X) * (np.nan if seen["n"] > k else 1.0)

    return _problem_from(problem, egrad=egrad)


@pytest.mark.parametrize("tangent", ["beta", "relative", "euclidean"])
def test_a_nan_gradient_ends_the_run_as_diverged(small, tangent):
    """(At 03b6298 the "beta" case raised scipy's ValueError 'array must not contain infs or
    NaNs' from cho_solve(check_finite=True) out of the run; the LAPACK potrf/potrs path lets the
    NaN propagate to the solver's finiteness check.)"""
    problem, X0 = small
    res = landing(_nan_gradient_after(problem, 5), X0, tangent=tangent, max_iter=100)
    assert res.status == "diverged" and not res.success
    assert res.iterations == 4 and "NaN" in res.message
    assert np.all(np.isfinite(res.X)) and np.all(np.isfinite(res.cost))


def test_a_nan_is_never_returned_as_success(small):
    problem, X0 = small
    calls = {"n": 0}

    def cost(X):  # NaN from the 6th evaluation on
        calls["n"] += 1
        return np.nan if calls["n"] > 5 else problem.cost(X)

    res = landing(_problem_from(problem, cost=cost), X0, max_iter=100)
    assert res.status == "diverged" and not res.success
    assert res.iterations == 4 and "NaN" in res.message
    # the default rule bounds its steps: the hint points at the cost, not at a smaller step
    assert "problems.check_gradient" in res.message and "smaller" not in res.message
    calls["n"] = 0
    capped = landing(_problem_from(problem, cost=cost), X0, step=Safe(eta=0.1), max_iter=100)
    assert capped.status == "diverged" and "smaller η cap or ω" in capped.message
    assert np.all(np.isfinite(res.X)) and np.all(np.isfinite(res.cost))
    # NaN cost from the start: a ValueError, not a run
    with pytest.raises(ValueError, match="X0 is not a valid start"):
        landing(_problem_from(problem, cost=lambda X: np.nan), X0)


def test_nan_cost_on_a_converging_run_is_not_success(small):
    problem, X0 = small

    def cost(X):  # NaN once close to feasible: would otherwise converge
        return np.nan if _feas(X) < 1e-6 else problem.cost(X)

    res = landing(_problem_from(problem, cost=cost), X0, max_iter=2000)
    assert res.status == "diverged" and not res.success
    assert np.all(np.isfinite(res.cost))


@pytest.mark.parametrize("keep", [2, 3, 5, 6, 7, 50])
@pytest.mark.parametrize("iterations", [123, 153])
def test_keep_iterates_bounds_memory_and_keeps_the_ends(small, keep, iterations):
    """At most ``keep`` iterates, X_0 and the last among them (the last takes the place of the
    frame before it where the decimated ones fill the count: keep = 5 at 153 iterations kept
    0, 32, 64, 96, 128 and 153)."""
    problem, X0 = small
    res = landing(problem, X0, step=0.05, tol=1e-300, max_iter=iterations, keep_iterates=keep)
    assert len(res.iterates) <= keep
    assert len(res.iterate_index) == len(res.iterates)
    assert res.iterate_index[0] == 0 and res.iterate_index[-1] == res.iterations == iterations
    assert np.all(np.diff(res.iterate_index) > 0)
    np.testing.assert_array_equal(res.iterates[0], X0)
    np.testing.assert_array_equal(res.iterates[-1], res.X)
    # the kept frames are the iterates with those indices
    cfg = Config(step=0.05)
    by_k = {rec.k: rec.X for rec, _ in
            zip(iterate(problem, X0, cfg), range(iterations + 1), strict=False)}
    for k, X in zip(res.iterate_index, res.iterates, strict=True):
        np.testing.assert_array_equal(X, by_k[int(k)])


def test_no_iterates_kept_by_default(small):
    problem, X0 = small
    res = landing(problem, X0, max_iter=5)
    assert res.iterates is None and res.iterate_index is None
    for keep in (1, -1, 2.5):  # one cannot hold X_0 and the last
        with pytest.raises(ValueError, match="keep_iterates must be 0 .none. or an integer >= 2"):
            landing(problem, X0, max_iter=5, keep_iterates=keep)


def test_callback_returning_true_stops(small):
    problem, X0 = small
    seen = []

    def callback(rec):
        seen.append(rec.k)
        return rec.k == 6

    res = landing(problem, X0, tol=1e-300, max_iter=100, callback=callback)
    assert res.status == "stopped" and not res.success
    assert res.iterations == 6 and seen == list(range(7))
    assert len(res.cost) == 7 and "callback" in res.message
    res = landing(problem, X0, tol=1e-300, max_iter=10, callback=lambda rec: None)
    assert res.status == "max_iter"


def test_config_is_recorded_and_landing_matches_solve(small):
    problem, X0 = small
    res = landing(problem, X0, beta=3.0, omega=2.0, step=0.02, tangent="relative", max_iter=20)
    assert res.config == Config(beta=3.0, omega=2.0, step=0.02, tangent="relative")
    ref = solve(problem, X0, res.config, max_iter=20)
    np.testing.assert_array_equal(res.X, ref.X)
    np.testing.assert_array_equal(res.cost, ref.cost)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"beta": 0.0}, "beta must be a finite number > 0"),
        ({"beta": -1.0}, "beta must be a finite number > 0"),
        ({"beta": np.inf}, "beta must be a finite number > 0"),
        ({"omega": np.nan}, "omega must be a finite number > 0"),
        ({"omega": -2.0}, "omega must be a finite number > 0"),
        ({"step": 0.0}, "step eta must be a finite number > 0"),
        ({"step": -0.1}, "step eta must be a finite number > 0"),
        ({"step": "big"}, "unknown step rule 'big': give one of safe, armijo, bb, scalefree"),
        ({"step": [0.1]}, "step must be a positive number, a step rule's name or object"),
        ({"tangent": "newton"}, "unknown tangent term 'newton'"),
        ({"tol": 0.0}, "tol must be a finite number > 0"),
        ({"tol": np.nan}, "tol must be a finite number > 0"),
        ({"max_iter": -1}, "max_iter must be an integer >= 0"),
        ({"max_iter": 2.5}, "max_iter must be an integer >= 0"),
    ],
)
def test_bad_parameters_raise_value_error(small, kwargs, match):
    problem, X0 = small
    with pytest.raises(ValueError, match=match):
        landing(problem, X0, **kwargs)


def test_bad_starts_raise_value_error(small):
    problem, X0 = small
    with pytest.raises(ValueError, match=r"X0 has shape \(3, 8\), but the problem is on St\(8, 3"):
        landing(problem, X0.T)
    with pytest.raises(ValueError, match=r"X0 has shape \(8, 2\)"):
        landing(problem, X0[:, :2])
    bad = X0.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="X0 contains NaN or infinite"):
        landing(problem, bad)
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match="X0 contains NaN or infinite"):
        iterate(problem, bad).__next__()
    for odd in (X0 + 1e-3j, X0.astype(object), X0.astype(str)):  # cast, a part would be lost
        with pytest.raises(ValueError, match="X0 must be a real matrix, got entries of type"):
            landing(problem, odd)
    deficient = X0.copy()
    deficient[:, 2] = 2 * deficient[:, 0]
    with pytest.raises(ValueError, match="X0 is rank-deficient"):
        landing(problem, deficient)
    with pytest.raises(ValueError, match="X0 is rank-deficient"):
        riemannian_gd(problem, np.zeros((8, 3)))


def test_step_rule_objects_with_bad_values_are_rejected():
    with pytest.raises(ValueError, match="step eta must be a finite number > 0"):
        Constant(-1)


def test_unknown_names_raise_value_error(small):
    problem, X0 = small
    with pytest.raises(ValueError, match="unknown method 'newton'"):
        Config(method="newton")
    with pytest.raises(ValueError, match="unknown retraction 'exp'"):
        riemannian_gd(problem, X0, retraction="exp")
    with pytest.raises(ValueError, match="unknown problem 'rosenbrock'"):
        make_problem("rosenbrock", 8, 3)
    with pytest.raises(ValueError, match=r"p = 9 > n = 8"):
        make_problem("brockett", 8, 9)


def test_one_dimensional_start_for_p_equal_one():
    problem = make_problem("brockett", 4, 1, seed=0)
    x0 = initial_point(4, 1, 0.2, seed=0)
    res = landing(problem, x0[:, 0], max_iter=2000)
    ref = landing(problem, x0, max_iter=2000)
    assert res.status == ref.status == "converged"
    np.testing.assert_array_equal(res.X, ref.X)


def test_one_dimensional_start_on_St_1_1():
    problem = make_problem("brockett", 1, 1, A=np.array([[2.0]]))
    res = landing(problem, np.array([1.3]), max_iter=500)
    assert res.status == "converged" and res.f_star == 2.0


def test_numpy_scalar_parameters_are_accepted(small):
    problem, X0 = small
    res = landing(problem, X0, beta=np.float32(0.5), omega=np.int64(1), max_iter=5)
    assert res.iterations == 5


@pytest.mark.parametrize("name", ["qr", "polar", "cayley"])
def test_retractions_are_first_order(name):
    """R_X(0) = X and R_X(tZ) = X + tZ + O(t^2) for Z tangent at X on St(n, p): halving t
    quarters the remainder (a QR without the sign fix of diag R fails R_X(0) = X)."""
    rng = np.random.default_rng(4)
    X = nearest_stiefel(rng.standard_normal((7, 3)))
    W = rng.standard_normal((7, 3))
    Z = W - X @ (0.5 * (X.T @ W + W.T @ X))  # tangent: X^T Z skew
    R = RETRACTIONS[name]
    for S in (X, -X, X * [1.0, -1.0, 1.0]):  # columns of both signs: R_S(0) = S exactly
        np.testing.assert_allclose(R(S, 0 * Z), S, atol=1e-14)
    rem = [np.linalg.norm(R(X, t * Z) - X - t * Z) for t in (1e-2, 5e-3)]
    assert 3.5 < rem[0] / rem[1] < 4.5
    Y = R(X, 1e-2 * Z)
    np.testing.assert_allclose(Y.T @ Y, np.eye(3), atol=1e-14)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 9), data=st.data(), off=st.floats(0.0, 0.3),
       scale=st.floats(1e-3, 10.0), seed=st.integers(0, 2**16))
def test_the_cayley_retraction_turns_x_by_an_orthogonal_matrix(n, data, off, scale, seed):
    """R_X(Z) = (I - W/2)^{-1} (I + W/2) X with W skew (eq. of ``_retract_cayley``): against the
    n x n formula solved densely, and Y^T Y = X^T X for any X and Z, off St(n, p) and not
    tangent included. Its shortcut (I + W/2) X = X + Z/2, true only for X^T X = I and Z
    tangent, added the rounding to X^T X at every step: the runs drifted off St(n, p)."""
    p = data.draw(st.integers(1, n))
    rng = np.random.default_rng(seed)
    S = rng.standard_normal((p, p))
    X = nearest_stiefel(rng.standard_normal((n, p))) @ (np.eye(p) + off * (S + S.T) / 4)
    Z = rng.standard_normal((n, p))
    Z *= scale / np.linalg.norm(Z)
    P = Z - 0.5 * X @ (X.T @ Z)
    W = P @ X.T - X @ P.T
    dense = scipy.linalg.solve(np.eye(n) - W / 2, X + W @ X / 2)
    Y = RETRACTIONS["cayley"](X, Z)
    # a few products and a 2p x 2p solve, whose matrix I - Vt U / 2 has eigenvalues
    # 1 - i lambda / 2 (W's lambda, |1 - i lambda / 2| >= 1): rounding within
    # (n + p) eps (1 + ||W||)^2 of ||X|| <= 2
    eps = 64 * (n + p) * np.finfo(float).eps * (1 + np.linalg.norm(W, 2)) ** 2
    np.testing.assert_allclose(Y, dense, rtol=0, atol=eps)
    np.testing.assert_allclose(Y.T @ Y, X.T @ X, rtol=0, atol=4 * eps)


def test_riemannian_gd_with_cayley_stays_on_the_manifold_at_long_steps():
    """¼ sum X^4 on St(8, 3) by the default rule: its long steps took the Cayley shortcut's
    rounding to ||X^T X - I|| = 0.6 and a reported divergence at iteration 68."""

    class Quartic:
        n, p = 8, 3

        def cost(self, X):
            return 0.25 * float(np.sum(X**4))

        def egrad(self, X):
            return X**3

    res = solve(Quartic(), initial_point(8, 3, 0.3, seed=1), Config(method="rgd-cayley"),
                max_iter=3000)
    assert res.status == "converged", res.message
    assert res.infeasibility.max() <= 1e-13


def test_result_infeasibility_is_geometry_infeasibility_of_each_iterate():
    """One name, one quantity: Result.infeasibility[k] = geometry.infeasibility(X_k) =
    ||X_k^T X_k - I||_F (not the paper's N = 1/2 ||h||^2, which is geometry.N)."""
    from landing_core import geometry

    problem = make_problem("brockett", 6, 3, seed=2)
    res = landing(problem, initial_point(6, 3, 0.5, seed=3), step=0.05, max_iter=40,
                  keep_iterates=100)
    ref = [np.linalg.norm(X.T @ X - np.eye(3)) for X in res.iterates]
    np.testing.assert_allclose(geometry.infeasibility(res.iterates), ref, rtol=1e-12)
    np.testing.assert_allclose(res.infeasibility[res.iterate_index], ref, rtol=1e-12)
    np.testing.assert_allclose(geometry.N(res.iterates), 0.5 * np.square(ref), rtol=1e-12)


# ----------------------------------------------------------------------------- one stationarity


def _stationarity_at_polar(problem, X):
    """||grad f(Q)||_F (embedded metric) at Q = polar(X), plus ||X^T X - I||_F: computed here
    with scipy's polar factor and the problem's gradient at Q, independently of the library."""
    Q, _ = scipy.linalg.polar(X)
    G = problem.egrad(Q)
    return np.linalg.norm(G - Q @ (0.5 * (Q.T @ G + G.T @ Q))) + _feas(X)


@pytest.mark.parametrize(("n", "p"), [(3, 2), (10, 3), (4, 4)])
@pytest.mark.parametrize(("tangent", "beta"), [("beta", 50.0), ("beta", 0.02),
                                               ("relative", 1.0), ("euclidean", 1.0)])
def test_converged_means_stationary_whatever_the_tangent_term_and_beta(n, p, tangent, beta):
    """At tol = 1e-8 the stopping rule's verdict holds for the independent measure
    ||grad f(polar X)|| + ||h||: the rule reads one measure for every tangent term and beta (the
    tangent term's own norm, 1/beta in its rotation block, let beta = 50 stop at 4e-7)."""
    problem = make_problem("brockett", n, p, seed=0)
    res = landing(problem, initial_point(n, p, 0.4, seed=0), beta=beta, tangent=tangent,
                  tol=1e-8, max_iter=5000)
    assert res.status == "converged"
    assert _stationarity_at_polar(problem, res.X) <= 1.1e-8


def test_iterations_to_tol_compare_like_with_like_across_beta_and_methods():
    """Every method's recorded ||grad|| is the same function of X_k: ||grad_1 f(X_k)||_F, written
    out here (eq. (grad_beta) at beta = 1), for landing at three betas, momentum, the penalty
    and Riemannian GD; so the rows' "iterations to tol" count to the same target."""
    problem = make_problem("brockett", 6, 2, seed=1)
    X0 = initial_point(6, 2, 0.4, seed=1)
    configs = [Config(beta=b, step=0.05) for b in (0.1, 1.0, 20.0)] + [
        Config(method="momentum", step=0.05), Config(method="penalty", omega=5.0, step=0.05),
        Config(method="rgd-qr", step=0.05)]
    for config in configs:
        res = solve(problem, X0, config, tol=1e-8, max_iter=60, keep_iterates=100)
        for k, X in zip(res.iterate_index, res.iterates, strict=True):
            G, M = problem.egrad(X), X.T @ X
            grad_1 = G @ M - 0.5 * X @ G.T @ X - 0.5 * X @ np.linalg.solve(M, X.T @ G @ M)
            assert res.grad_norm[k] == pytest.approx(np.linalg.norm(grad_1), rel=1e-10), config


# ----------------------------------------------------------------------------- components of O(n)

# linear(2, 2), seed 14, from distance 0.4, beta = omega = 1: the constant step 0.6 jumps
# across det X = 0 and converges in the other component of O(2)
CROSSING = dict(seed=14, distance=0.4, eta=0.6)


def test_a_long_step_crosses_and_the_gap_is_taken_in_the_final_component():
    problem = make_problem("linear", 2, 2, seed=CROSSING["seed"])
    X0 = initial_point(2, 2, CROSSING["distance"], seed=CROSSING["seed"])
    res = landing(problem, X0, beta=1.0, omega=1.0, step=CROSSING["eta"], tol=1e-8,
                  max_iter=2000)
    assert res.status == "converged"
    final = 1 if np.linalg.det(res.X) > 0 else -1
    assert final != np.sign(np.linalg.det(X0))  # it crossed
    assert res.f_star == problem.f_star_by_det[final]
    assert abs(res.cost[-1] - res.f_star) <= 1e-8  # X_0's optimum would give -2.12


def test_the_issue_case_reports_a_gap_of_its_final_component():
    """linear(2, 2), seed 15, distance 0.4, beta = omega = 1, Armijo eta0 = 0.1: the former
    Armijo crossed and reported f - f* = -1.31; the gap is taken in the final component
    (whether or not the run crosses)."""
    problem = make_problem("linear", 2, 2, seed=15)
    X0 = initial_point(2, 2, 0.4, seed=15)
    res = landing(problem, X0, beta=1.0, omega=1.0, step=Armijo(eta0=0.1), tol=1e-8)
    assert res.status == "converged"
    assert res.f_star == problem.optimum_from(res.X)
    assert abs(res.cost[-1] - res.f_star) <= 1e-8  # -1.31 with X_0's optimum


def test_a_results_repr_is_one_line_of_its_fields_and_final_values(small):
    """print(result) in a REPL: the histories by their shape and last value, not in full
    (a run of 1,000 iterations printed 20,000-odd characters)."""
    problem, X0 = small
    res = landing(problem, X0, step=0.05, tol=1e-300, max_iter=1000, keep_iterates=5)
    text = repr(res)
    assert len(text) < 1000 and "\n" not in text
    assert text.startswith("Result(X=<array of shape (8, 3)>, status=")
    assert f"cost=<array of shape (1001,), last {res.cost[-1]:.6g}>" in text
    assert "iterations=1000" in text and "iterates=<array of shape (5, 8, 3)>" in text
