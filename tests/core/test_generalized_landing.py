"""Landing on X^T B X = I through the library's entry points: the problem generalized_eigen,
initial_point with B, the method chosen from the problem (no mention of B in solve or sweep),
and convergence to the optimum of scipy.linalg.eigh(A, B)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse

from landing_core import Config, landing, methods, riemannian_gd, solve
from landing_core import generalized as gz
from landing_core.constraints import STIEFEL, GeneralizedStiefel, Stiefel
from landing_core.methods.landing import Landing
from landing_core.problems import (
    Problem,
    as_problem,
    check_gradient,
    generalized_eigen,
    initial_point,
)
from landing_core.solvers import METHODS
from landing_core.steps import Armijo, Safe
from landing_core.sweep import run_batch


def laplacian_and_mass(m: int) -> tuple[scipy.sparse.csr_array, scipy.sparse.csr_array]:
    """The 2-D Dirichlet Laplacian (5-point) on an m x m grid and the lumped-plus-consistent
    mass matrix of linear finite elements in 1-D, tensorized (both n x n, n = m^2, SPD)."""
    e = np.ones(m)
    T = scipy.sparse.diags_array([-e[:-1], 2 * e, -e[:-1]], offsets=[-1, 0, 1])
    Mm = scipy.sparse.diags_array([e[:-1], 4 * e, e[:-1]], offsets=[-1, 0, 1]) / 6.0
    eye = scipy.sparse.identity(m)
    A = scipy.sparse.kron(T, eye) + scipy.sparse.kron(eye, T)
    return scipy.sparse.csr_array(A), scipy.sparse.csr_array(scipy.sparse.kron(Mm, Mm))


# ----------------------------------------------------------------------------- the problem


def test_generalized_eigen_has_A_B_and_the_optimum_of_eigh():
    P = generalized_eigen(12, 3, seed=5, condition=1e3)
    assert P.A.shape == P.B.shape == (12, 12)
    lam = scipy.linalg.eigh(P.A, P.B, eigvals_only=True)
    assert P.f_star == pytest.approx(lam[:3].sum(), rel=1e-12)
    assert np.linalg.cond(P.B) == pytest.approx(1e3, rel=1e-6)
    X = initial_point(12, 3, 0.3, 1, B=P.B)
    assert check_gradient(P, X).passed
    _, V = scipy.linalg.eigh(P.A, P.B, subset_by_index=[0, 2])
    assert P.cost(V) == pytest.approx(P.f_star, rel=1e-12)


def test_sparse_problem_matches_the_dense_one():
    A, B = laplacian_and_mass(6)
    sparse = generalized_eigen(36, 4, A=A, B=B)
    dense = generalized_eigen(36, 4, A=A.toarray(), B=B.toarray())
    assert sparse.f_star == pytest.approx(dense.f_star, rel=1e-10)
    X = initial_point(36, 4, 0.2, 0, B=B)
    assert sparse.cost(X) == pytest.approx(dense.cost(X), rel=1e-12)
    np.testing.assert_allclose(sparse.egrad(X), dense.egrad(X), rtol=1e-12, atol=1e-12)
    stack = np.stack([X, 2 * X])
    np.testing.assert_allclose(sparse.cost(stack), dense.cost(stack), rtol=1e-12)


def test_initial_point_with_B_is_at_the_prescribed_distance():
    B = generalized_eigen(10, 3, condition=1e4).B
    s = np.array([0.5, 1.0, 1.5])
    X = initial_point(10, 3, seed=2, singular_values=s, B=B)
    np.testing.assert_allclose(np.linalg.eigvalsh(X.T @ B @ X), s**2, rtol=1e-10)
    on = initial_point(10, 3, 0.0, 2, B=scipy.sparse.csr_array(B))
    assert np.linalg.norm(on.T @ B @ on - np.eye(3)) <= 1e-12


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"B": -np.eye(6)}, "positive definite"),
    ({"B": np.ones((5, 5))}, r"shape \(6, 6\)"),
    ({"B": np.triu(np.ones((6, 6)))}, "symmetric"),
    ({"A": np.triu(np.ones((6, 6)))}, "symmetric"),
    ({"A": np.ones((6, 5))}, "shape"),
    ({"condition": 0.5}, "condition"),
])
def test_bad_input_is_refused_clearly(kwargs, match):
    with pytest.raises(ValueError, match=match):
        generalized_eigen(6, 2, **kwargs)


def test_initial_point_refuses_a_B_that_is_not_spd():
    with pytest.raises(ValueError, match="positive definite"):
        initial_point(4, 2, 0.1, 0, B=-np.eye(4))
    with pytest.raises(ValueError, match="shape"):
        initial_point(4, 2, 0.1, 0, B=np.eye(3))


# ----------------------------------------------------------------------------- the method


def test_the_problem_chooses_the_constraint():
    P = generalized_eigen(8, 2, condition=10.0)
    method = methods.build("landing", problem=P)
    assert isinstance(method, Landing) and isinstance(method.constraint, GeneralizedStiefel)
    assert method.constraint.B is P.B  # the problem's checked B, bound with a cache of its own
    assert method.constraint is not P.constraint
    assert isinstance(methods.build("landing").constraint, Stiefel)
    assert set(METHODS) == set(methods.REGISTRY)  # no variant hidden from the menus
    with pytest.raises(ValueError, match="does not handle this problem's constraint"):
        riemannian_gd(P, initial_point(8, 2, 0.1, 0, B=P.B))
    duck = type("Duck", (), {"n": 8, "p": 2, "cost": P.cost, "egrad": P.egrad,
                             "constraint": GeneralizedStiefel(P.B)})()
    assert np.array_equal(as_problem(duck).B, P.B)
    assert isinstance(methods.build("landing", problem=as_problem(duck)).constraint,
                      GeneralizedStiefel)
    # a cost's own matrix named B is its data, not a constraint: only ``constraint`` sets it
    # (read as X^T B X = I, a cost 1/2 tr(X^T B X) ran to a point with X^T B X = I, f = p / 2)
    quadratic = type("Quadratic", (), {
        "n": 6, "p": 2, "B": np.diag(np.arange(1.0, 7.0)),
        "cost": lambda self, X: 0.5 * float(np.sum(X * (self.B @ X))),
        "egrad": lambda self, X: self.B @ X})()
    assert as_problem(quadratic).constraint is STIEFEL
    res = landing(quadratic, initial_point(6, 2, 0.3, 0), tol=1e-10, max_iter=5000)
    assert res.status == "converged" and res.cost[-1] == pytest.approx(1.5, rel=1e-9)


@pytest.mark.parametrize("tangent", ["beta", "euclidean", "relative"])
def test_landing_reaches_the_generalized_optimum(tangent):
    P = generalized_eigen(10, 3, seed=1, condition=1e2)
    X0 = initial_point(10, 3, 0.3, 1, B=P.B)
    res = landing(P, X0, step=0.002 if tangent == "relative" else 0.02, tangent=tangent,
                  tol=1e-10, max_iter=40000)
    assert res.status == "converged"
    assert np.linalg.norm(res.X.T @ P.B @ res.X - np.eye(3)) <= 1e-8
    assert abs(res.cost[-1] - P.f_star) <= 1e-8 * abs(P.f_star)
    # the run forms X^T (B X) - I, the test (X^T B) X - I: each within n eps ||X||^2 ||B||_2
    # entrywise of the exact one (Higham 3.5), so within 2 p n eps ||X||^2 ||B||_2 in norm
    err = 2 * 3 * 10 * np.finfo(float).eps * np.linalg.norm(res.X, 2) ** 2 * np.linalg.norm(P.B, 2)
    assert res.infeasibility[-1] == pytest.approx(
        np.linalg.norm(res.X.T @ P.B @ res.X - np.eye(3)), rel=0, abs=err)


def test_a_duck_typed_problem_with_B_keeps_to_XtBX():
    """Brockett's cost on X^T B X = I through a plain Problem carrying B."""
    P = generalized_eigen(8, 2, seed=4, condition=50.0)
    N = np.array([2.0, 1.0])
    prob = Problem(n=8, p=2, cost=lambda X: np.einsum("...ij,...ij->...", X, P.A @ X * N),
                   egrad=lambda X: 2.0 * (P.A @ X) * N, constraint=GeneralizedStiefel(P.B))
    res = solve(prob, initial_point(8, 2, 0.2, 3, B=P.B), Config(step=0.01), max_iter=40000,
                tol=1e-10)
    lam = scipy.linalg.eigh(P.A, P.B, eigvals_only=True)[:2]
    assert res.status == "converged"
    assert res.cost[-1] == pytest.approx(2 * lam[0] + lam[1], rel=1e-8)


def test_sweep_runs_B_runs_like_single_runs():
    P = generalized_eigen(8, 2, seed=2, condition=20.0)
    X0 = np.stack([initial_point(8, 2, 0.2, s, B=P.B) for s in (0, 1, 2)])
    betas = np.array([0.5, 1.0, 2.0])
    res = run_batch(P, X0, beta=betas, omega=1.0, eta=0.05, step="constant", max_iter=3000,
                    tol=1e-9)
    iters, status, cost = res.iterations, res.status, res.final_cost
    for i in range(3):
        single = solve(P, X0[i], Config(beta=float(betas[i]), step=0.05), max_iter=3000,
                       tol=1e-9)
        assert (status[i], iters[i]) == (single.status, single.iterations)
        assert cost[i] == pytest.approx(single.cost[-1], rel=1e-10)
    assert set(status) == {"converged"}


# ----------------------------------------------------------------------------- step rules


@pytest.mark.parametrize(("condition", "tangent"), [(1e2, "beta"), (1e2, "relative"),
                                                    (1e2, "euclidean"), (1e4, "beta")])
def test_the_default_step_reaches_the_goals(condition, tangent):
    """Barzilai-Borwein made safe by the B-ball safe step, no step to tune: ||XᵀBX - I|| and
    the relative gap both <= 1e-8 (issue 13's goals)."""
    P = generalized_eigen(20, 4, seed=1, condition=condition)
    res = landing(P, initial_point(20, 4, 0.3, 2, B=P.B), tangent=tangent, tol=1e-10,
                  max_iter=20000)
    assert res.status == "converged"
    assert np.linalg.norm(res.X.T @ P.B @ res.X - np.eye(4)) <= 1e-8
    assert abs(res.cost[-1] - P.f_star) <= 1e-8 * abs(P.f_star)


@pytest.mark.parametrize("step", [Safe(1.0), Safe(0.05), Armijo(), None])
def test_no_rule_lets_the_infeasibility_leave_the_B_ball(step):
    P = generalized_eigen(20, 4, seed=3, condition=1e3)
    X0 = initial_point(20, 4, 0.3, 4, B=P.B)
    res = landing(P, X0, step=step, max_iter=300)
    assert res.status != "diverged"
    assert np.max(res.infeasibility) <= max(0.5, res.infeasibility[0]) * (1 + 1e-12)


def test_safe_step_from_outside_the_ball_never_raises_the_infeasibility_above_eps():
    """||h_B(X_{k+1})|| <= max(eps, ||h_B(X_k)||) also where ||h_B|| >= 1 (where St(n, p)'s
    lemma says nothing): outside the ball the infeasibility only falls."""
    P = generalized_eigen(10, 3, seed=0, condition=1e2)
    X0 = initial_point(10, 3, seed=1, singular_values=np.array([0.3, 1.2, 1.6]), B=P.B)
    res = landing(P, X0, step=Safe(1.0), max_iter=200)
    d = res.infeasibility
    assert d[0] > 1.0
    assert np.all(d[1:] <= np.maximum(0.5, d[:-1]) * (1 + 1e-12))


def test_armijo_converges_on_B():
    P = generalized_eigen(20, 4, seed=1, condition=1e2)
    res = landing(P, initial_point(20, 4, 0.3, 2, B=P.B), step=Armijo(), tol=1e-10,
                  max_iter=5000)
    assert res.status == "converged"
    assert abs(res.cost[-1] - P.f_star) <= 1e-8 * abs(P.f_star)


def test_sweep_safe_steps_on_B_equal_single_runs():
    P = generalized_eigen(8, 2, seed=2, condition=10.0)
    X0 = np.stack([initial_point(8, 2, 0.4, s, B=P.B) for s in (0, 1)])
    etas = np.array([0.05, 0.1])
    res = run_batch(P, X0, beta=0.5, omega=1.0, eta=etas, step="safe", max_iter=2000, tol=1e-9)
    iters, status, cost = res.iterations, res.status, res.final_cost
    assert set(status) == {"converged"}
    for i in range(2):
        single = solve(P, X0[i], Config(step=Safe(float(etas[i]))), max_iter=2000, tol=1e-9)
        assert (status[i], iters[i]) == (single.status, single.iterations)
        assert cost[i] == pytest.approx(single.cost[-1], rel=1e-9)


def test_sweep_grid_starts_at_the_distance_from_XtBX():
    from landing_core.sweep import sweep

    P = generalized_eigen(6, 2, seed=0, condition=10.0)
    res = sweep(P, beta=(0.5, 2.0), eta=(0.05,), seed=(0, 1), distance=0.3, max_iter=3000,
                tol=1e-9)
    assert set(res.status) == {"converged"}
    np.testing.assert_allclose(res.final_cost, P.f_star, rtol=1e-7)
    X0 = initial_point(6, 2, 0.3, 0, B=P.B)
    single = solve(P, X0, Config(beta=0.5, step=Safe(0.05)), max_iter=3000, tol=1e-9)
    assert res.iterations[0] == single.iterations


def test_a_method_without_a_constraint_runs_on_stiefel_only():
    """A factory that does not take ``constraint`` is refused a problem on another one, and
    one registered elsewhere that takes it runs on the problem's, with no special case."""

    class Flagged(Landing):
        pass

    methods.register("landing-flagged-test", "flagged (test)")(
        lambda *, beta, omega, tangent, constraint: Flagged(beta, omega, tangent, constraint))
    try:
        P = generalized_eigen(5, 2, seed=0)
        flagged = methods.build("landing-flagged-test", problem=P)
        assert isinstance(flagged, Flagged)
        assert isinstance(flagged.constraint, GeneralizedStiefel)
        assert methods.on_any_constraint("landing-flagged-test")
        with pytest.raises(ValueError, match="does not handle"):
            methods.build("penalty", problem=P)
    finally:
        methods.unregister("landing-flagged-test")
    plain = Problem(n=5, p=2, cost=P.cost, egrad=P.egrad)
    assert isinstance(methods.build("penalty", problem=plain), methods.penalty.Penalty)
    assert not methods.on_any_constraint("penalty")


def test_a_problem_with_a_bad_B_is_refused_before_any_iteration():
    P = generalized_eigen(5, 2, seed=0)
    X0 = initial_point(5, 2, 0.1, 0)
    for B, match in ((-np.eye(5), "positive definite"), (np.eye(4), r"shape \(5, 5\)"),
                     (np.triu(np.ones((5, 5))), "symmetric")):
        with pytest.raises(ValueError, match=match):
            landing(Problem(n=5, p=2, cost=P.cost, egrad=P.egrad,
                            constraint=GeneralizedStiefel(B)), X0)


@pytest.mark.parametrize("sparse", [False, True])
def test_a_move_with_a_lowered_normal_weight_is_the_field_with_that_weight(sparse):
    """X - eta (T + omega_k B X h_B(X)) with T formed apart, and neither X nor V changed."""
    P = generalized_eigen(12, 3, seed=5, condition=1e3)
    B = scipy.sparse.csr_array(P.B) if sparse else P.B
    method = Landing(beta=0.5, omega=2.0, constraint=GeneralizedStiefel(B))
    X = initial_point(12, 3, 0.3, 2, B=P.B)
    X_copy = X.copy()
    fld, _ = method.field(X, P.egrad(X), {})
    V_copy = fld.V.copy()
    BX = P.B @ X
    T = gz.tangent_term_B("beta", X, BX, P.egrad(X), 0.5)
    H = X.T @ BX - np.eye(3)
    for eta, omega_k in [(0.7, 0.3), (5.0, 0.1), (0.2, None)]:
        Y = method.move(X, fld, eta, omega_k)
        w = 2.0 if omega_k is None else omega_k
        want = X - eta * (T + w * (BX @ H))
        assert np.linalg.norm(Y - want) <= 1e-13 * eta * (np.linalg.norm(T) + np.linalg.norm(BX))
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(fld.V, V_copy)
    C = BX.T @ BX
    assert method.constraint.C_top(X) == pytest.approx(np.linalg.eigvalsh(C)[-1], rel=1e-13)


def test_momentum_runs_on_XtBX_through_the_constraint():
    """Momentum needs only the constraint's parts (its tangent term, the projection onto
    {T : X^T B T skew}, h_B and B X h_B), so it runs on X^T B X = I with no code of its own,
    and reaches the optimum of the pencil (scipy.linalg.eigh(A, B))."""
    P = generalized_eigen(10, 3, seed=1, condition=1e2)
    X0 = P.constraint.initial_point(10, 3, 0.3, 1)
    res = solve(P, X0, Config(method="momentum", step=0.02, options={"gamma": 0.5}),
                tol=1e-10, max_iter=20000)
    assert res.status == "converged"
    assert np.linalg.norm(res.X.T @ P.B @ res.X - np.eye(3)) <= 1e-9
    assert abs(res.cost[-1] - P.f_star) <= 1e-8 * abs(P.f_star)


def test_a_rank_deficient_iterate_gives_nan_without_a_warning():
    """An iterate that has lost rank (a diverging run) makes the projection's Lyapunov solve
    divide 0 by 0: NaN, which the run's divergence test reports, and no RuntimeWarning
    besides (a family of runs printed two)."""
    X = np.zeros((4, 2))
    X[0, 0] = 1.0  # rank one: C = X^T X = diag(1, 0)
    Z = np.arange(8.0).reshape(4, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P = gz.proj_euclidean_B(X, X, Z)
    assert np.isnan(P).any()
