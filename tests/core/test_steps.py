"""Step-size rules (landing_core.steps): the safe step's guarantee and formula, Armijo, BB."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
import scipy.linalg
from hypothesis import example, given, settings
from hypothesis import strategies as st

from landing_core import geometry as geo
from landing_core import steps
from landing_core.constraints.stiefel import STIEFEL
from landing_core.methods.base import Field
from landing_core.methods.landing import Landing
from landing_core.problems import Problem, initial_point, make_problem
from landing_core.solvers import Config, iterate, landing, solve
from landing_core.steps import Armijo, BarzilaiBorwein, Constant, Safe, safe_step_bound


def _relative_gap(result, f_star):
    return abs(result.cost[-1] - f_star) / abs(f_star)


def _feas(X):
    return np.linalg.norm(X.T @ X - np.eye(X.shape[1]))


def _start_inside(n, p, radius, seed):
    """X0 with ||X0^T X0 - I||_F = radius exactly (singular values s_i^2 = 1 + radius u_i,
    ||u|| = 1)."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(p)
    u /= np.linalg.norm(u)
    u = np.where(1.0 + radius * u < 0.05, np.abs(u), u)  # radius >= 1: keep s_i^2 > 0
    s = np.sqrt(1.0 + radius * u)
    return initial_point(n, p, seed=seed, singular_values=s)


# ----------------------------------------------------------------------------- the safe step


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(["brockett", "procrustes", "pca", "linear", "quartic"]),
    n=st.integers(1, 10),
    p=st.integers(1, 10),
    tangent=st.sampled_from(["beta", "euclidean", "relative"]),
    beta=st.floats(0.05, 20.0),
    omega=st.floats(0.05, 20.0),
    radius=st.floats(0.0, 0.499),
    seed=st.integers(0, 2**31),
)
def test_safe_step_keeps_every_iterate_in_the_safe_region(
    name, n, p, tangent, beta, omega, radius, seed
):
    n, p = max(n, p), min(n, p)
    problem = make_problem(name, n, p, seed=seed % 7)
    X0 = _start_inside(n, p, radius, seed)
    assert _feas(X0) < 0.5
    config = Config(beta=beta, omega=omega, step=Safe(eta=1e6, eps=0.5), tangent=tangent)
    for rec, _ in zip(iterate(problem, X0, config), range(80), strict=False):
        assert rec.status == "running"
        assert _feas(rec.X) <= 0.5 + 1e-12, (rec.k, _feas(rec.X))


@pytest.mark.parametrize("eps", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("tangent", ["beta", "euclidean", "relative"])
def test_safe_step_region_with_keep_iterates(eps, tangent):
    problem = make_problem("brockett", 20, 4, seed=1)
    X0 = _start_inside(20, 4, 0.9 * eps, seed=3)
    res = landing(problem, X0, beta=2.0, omega=3.0, step=Safe(eta=1e6, eps=eps), tangent=tangent,
                  max_iter=300, keep_iterates=400)
    assert len(res.iterates) == res.iterations + 1  # every iterate kept
    assert max(_feas(X) for X in res.iterates) <= eps + 1e-12
    assert np.all(res.infeasibility <= eps + 1e-12)


def test_safe_step_bound_formula_against_direct_evaluation():
    cases = [  # (d, g, omega, eps)
        (0.2, 3.0, 1.0, 0.5), (0.0, 2.0, 1.0, 0.5), (0.49, 10.0, 5.0, 0.5), (0.3, 0.01, 2.0, 0.5),
        (0.1, 1.0, 0.5, 0.9), (0.7, 2.0, 1.0, 0.5), (0.95, 4.0, 2.0, 0.5),
    ]
    for d, g, omega, eps in cases:
        e = max(eps, d)  # a start outside the region: do not let it grow
        root = (omega * d * (1 - d) + math.sqrt((omega * d * (1 - d)) ** 2 + g**2 * (e - d))) / g**2
        expected = min(root, 1 / (2 * omega))
        assert float(safe_step_bound(d, g, omega, eps)) == pytest.approx(expected, rel=1e-14)
        if root < 1 / (2 * omega):  # the bound is the root of g^2 t^2 - 2 omega d (1-d) t + d - e
            assert g**2 * root**2 - 2 * omega * d * (1 - d) * root + d - e == pytest.approx(
                0, abs=1e-12)
    # d >= 1: outside the lemma's range, no bound (safe_step backtracks there)
    assert np.isnan(safe_step_bound(1.5, 3.0, 2.0))
    assert np.isnan(safe_step_bound(np.array([1.0, 0.5]), 3.0, 2.0)[0])
    # omega = 0 (retractions): sqrt(eps) / g ; g = 0: the cap 1/(2 omega)
    assert float(safe_step_bound(0.0, 4.0, 0.0, 0.25)) == pytest.approx(0.5 / 4.0)
    assert float(safe_step_bound(0.2, 0.0, 2.0)) == pytest.approx(0.25)
    # vectorized over runs = looped
    rng = np.random.default_rng(0)
    d, g, om = rng.uniform(0, 1.2, 50), rng.uniform(0.01, 10, 50), rng.uniform(0.1, 10, 50)
    vec = safe_step_bound(d, g, om, 0.5)
    np.testing.assert_allclose(vec, [float(safe_step_bound(*a, 0.5)) for a in zip(d, g, om,
                                                                                  strict=True)])


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.floats(0.0, 0.5), st.floats(0.05, 20.0),
       st.floats(0.05, 20.0), st.sampled_from(["beta", "euclidean", "relative"]),
       st.integers(0, 2**31))
def test_one_safe_step_from_random_points_lands_in_the_region(n, p, radius, beta, omega,
                                                              tangent, seed):
    """The lemma directly: for X with ||h|| <= eps and any tangent term, X - eta V, with
    eta = safe_step_bound, has ||h|| <= eps (G random: the bound does not depend on f)."""
    n, p = max(n, p), min(n, p)
    X = _start_inside(n, p, radius, seed)
    G = 10 * np.random.default_rng(seed + 1).standard_normal((n, p))
    _, V, H = geo.landing_field(X, G, beta, omega, tangent)
    d = np.linalg.norm(X.T @ X - np.eye(p))
    eta = float(safe_step_bound(d, np.linalg.norm(V), omega, 0.5))
    assert eta > 0
    assert _feas(X - eta * V) <= 0.5 + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.floats(0.0, 0.45), st.sampled_from([0.5, 0.25]),
       st.floats(1e-3, 1e3), st.sampled_from(["beta", "euclidean", "relative", "any"]),
       st.integers(0, 2**31))
def test_the_exact_safe_step_keeps_the_region_up_to_its_edge(n, p, radius, s, scale, tangent,
                                                              seed):
    """STIEFEL.safe_step_exact against X(t) = X - s X H - t T formed explicitly (not through
    its p x p quartic): with no request, ||h(X(t))|| <= eps on a grid of [0, eta] and = eps
    at eta, the first root; for each tangent term and for any T ("any": G itself)."""
    n, p = max(n, p), min(n, p)
    X = _start_inside(n, p, radius, seed)
    H = X.T @ X - np.eye(p)
    G = scale * np.random.default_rng(seed + 1).standard_normal((n, p))
    T = G if tangent == "any" else geo.landing_field(X, G, 0.5, 1.0, tangent)[0]
    eta = STIEFEL.safe_step_exact(X, H, T, s, 0.5)
    Y = X - s * X @ H
    if not np.any(Y.T @ T + T.T @ Y) and not np.any(T.T @ T):
        assert eta == math.inf  # (St(1, 1)'s tangent terms vanish)
        return
    assert 0 < eta < math.inf
    assert max(_feas(Y - t * T) for t in np.linspace(0.0, eta, 41)) <= 0.5 + 1e-12
    assert _feas(Y - eta * T) == pytest.approx(0.5, rel=1e-7)
    # a request is kept where X(request) is inside (past the first root, h can come back
    # inside), else cut to the first root
    for want in (0.5 * eta, 2.0 * eta):
        got, inside = STIEFEL.safe_step_exact(X, H, T, s, 0.5, want), _feas(Y - want * T)
        if abs(inside - 0.5) > 1e-9:  # (not at the edge, where rounding decides)
            assert got == (want if inside < 0.5 else pytest.approx(eta, rel=1e-12))


def test_the_exact_safe_step_says_nothing_where_the_normal_step_ends_outside():
    X = _start_inside(8, 3, 0.9, seed=2)
    H = X.T @ X - np.eye(3)
    T = np.random.default_rng(0).standard_normal((8, 3))
    assert math.isnan(STIEFEL.safe_step_exact(X, H, T, 0.0, 0.5))  # no normal step: 0.9 > 0.5
    assert STIEFEL.safe_step_exact(X, H, T, 0.5, 0.5) > 0  # the whole normal step: 0.6 d^2
    assert STIEFEL.safe_step_exact(X, H, np.zeros((8, 3)), 0.5, 0.5) == math.inf


@pytest.mark.parametrize("scale", [1.0, 1e3])
def test_the_default_rule_takes_the_exact_bound_where_the_lemma_cuts_its_step(scale):
    """ScaleFree's first step from a point inside the region with a large gradient: the
    lemma's bound is below the request sqrt(eps) / ||T||, and the rule steps min(request,
    exact bound) with the whole normal step (eta omega_k = 1/2), landing inside the region;
    the exact bound is at least twice the lemma's here."""
    n, p = 200, 20
    X = _start_inside(n, p, 0.2, seed=1)
    G = scale * np.random.default_rng(5).standard_normal((n, p))
    H = X.T @ X - np.eye(p)
    T, V, _ = geo.landing_field(X, G, 0.5, 1.0, "beta")
    d, tn = _feas(X), float(np.linalg.norm(T))
    ctx = steps.StepContext(X, V, G, d, 1.0, None, None, 0, H, True, tn)
    step = steps.ScaleFree()(ctx, {})
    request = math.sqrt(0.5) / tn
    w = 0.5 / request
    lemma = float(safe_step_bound(d, math.sqrt(tn**2 + w * w * np.vdot(X @ H, X @ H)), w))
    exact = STIEFEL.safe_step_exact(X, H, T, 0.5, 0.5)
    assert lemma < request and 2 * lemma < exact
    assert step.eta == pytest.approx(min(request, exact), rel=1e-12)
    assert step.eta * step.omega == pytest.approx(0.5, rel=1e-12)
    assert _feas(X - step.eta * (T + step.omega * X @ H)) <= 0.5 + 1e-12


@pytest.mark.parametrize("omega, radius", [(0.3, 0.7), (0.3, 0.2)])
def test_the_default_rule_cuts_its_request_to_the_exact_root(omega, radius):
    """ScaleFree where the exact root is below the request (a rank-2 tangent term, for which
    the region's edge is close to the lemma's): eta is the first root for the normal step
    min(omega, 1)/2 actually taken and e = max(eps, d), omega_k is raised to keep that normal
    step whole, and X_{k+1} lands on the edge. Outside the region (d = 0.7 > eps) e = d;
    inside (d = 0.2) e = eps, and the request itself is inside the edge."""
    n, p, eps = 50, 6, 0.5
    X = _start_inside(n, p, radius, seed=3)
    rng = np.random.default_rng(4)
    G = np.outer(rng.standard_normal(n), rng.standard_normal(p))
    H = X.T @ X - np.eye(p)
    T, V, _ = geo.landing_field(X, G, 0.5, omega, "beta")
    d, tn = _feas(X), float(np.linalg.norm(T))
    ctx = steps.StepContext(X, V, G, d, omega, None, None, 0, H, True, tn)
    step = steps.ScaleFree(eps=eps)(ctx, {})
    request, normal_step, e = math.sqrt(eps) / tn, 0.5 * omega, max(eps, d)
    w = normal_step / request
    lemma = float(safe_step_bound(d, math.sqrt(tn**2 + w * w * np.vdot(X @ H, X @ H)), w, eps))
    root = STIEFEL.safe_step_exact(X, H, T, normal_step, e)
    assert lemma < request  # the exact path is taken
    assert step.eta == pytest.approx(min(request, root), rel=1e-12)
    assert step.eta * step.omega == pytest.approx(normal_step, rel=1e-12)
    h = _feas(X - step.eta * (T + step.omega * X @ H))
    if root < request:
        assert h == pytest.approx(e, rel=1e-8)
    else:
        assert h < e


@pytest.mark.parametrize("scale", [2.0**-300, 1e-100, 1e100, 2.0**300])
def test_the_exact_safe_step_scales_with_the_tangent_term(scale):
    """safe_step_exact(c T) = safe_step_exact(T) / c, also where ||T||^4 over- or underflows
    (a cost times 1e80 or 1e-80 under the default rule)."""
    X = _start_inside(20, 5, 0.3, seed=1)
    H = X.T @ X - np.eye(5)
    T = np.random.default_rng(2).standard_normal((20, 5))
    eta = STIEFEL.safe_step_exact(X, H, T, 0.5, 0.5)
    assert STIEFEL.safe_step_exact(X, H, scale * T, 0.5, 0.5) == pytest.approx(eta / scale,
                                                                              rel=1e-12)
    assert STIEFEL.safe_step_exact(X, H, scale * T, 0.5, 0.5, 0.5 * eta / scale) == \
        0.5 * eta / scale


def test_a_long_step_moves_to_the_point_the_rule_checked():
    """A Step carrying the rule's T moves to X - eta T - eta omega_k N(X) to rounding, where
    eta omega_run >> 1 (ScaleFree's long step on a small tangent term; omega_run = 0.02,
    eta = 1e11): formed as X - eta V + eta (omega_run - omega_k) N(X), the two normal terms
    of size 2e9 ||N|| cancel and leave an error of about 1e-7 (what moved ||h|| past the exact
    safe step's e in a SkylakeX run)."""
    X = _start_inside(6, 3, 0.8, seed=4)
    H = X.T @ X - np.eye(3)
    N = X @ H
    T0 = np.random.default_rng(2).standard_normal((6, 3))
    T = 1e-12 * (T0 - X @ np.linalg.solve(X.T @ X, 0.5 * (X.T @ T0 + T0.T @ X)))
    omega, eta, s = 0.02, 1e11, 0.01
    method = Landing(omega=omega)
    field = Field(T + omega * N, H, 0.0, float(np.linalg.norm(T)))
    want = X - eta * T - s * N
    moved = method.move(X, field, eta, s / eta, N, T)
    assert np.max(np.abs(moved - want)) <= 1e-14 * (1 + np.max(np.abs(want)))
    old = method.move(X, field, eta, s / eta, N)  # the same point, up to the cancellation
    assert np.max(np.abs(old - want)) > 1e-10


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["linear", "procrustes", "pca", "brockett", "quartic"]),
       st.sampled_from([(2, 1), (30, 1), (2, 2), (4, 4), (10, 3), (40, 8)]),
       st.integers(0, 1000), st.sampled_from([0.0, 0.1, 0.45, 0.6, 0.9]),
       st.sampled_from([1.0, 0.3, 0.02, 2.0, 8.0]), st.sampled_from([1.0, 1e-3, 1e3, 1e6]),
       st.sampled_from([0.5, 0.1, 0.9]))
@example(name="linear", size=(2, 2), seed=77, distance=0.0, omega=0.02, scale=1e-3, eps=0.9)
def test_the_default_rule_keeps_every_iterate_in_its_region(name, size, seed, distance, omega,
                                                           scale, eps):
    """Every iterate of a default run has ||h(X_k)|| <= max(eps, ||h(X_0)||) (the lemma's and
    the exact step's guarantee, the latter for the normal step the rule takes), whatever the
    cost's scale and omega. (St(1, 1) is left out: its tangent term is rounding alone, and
    eta ~ 1/||T|| times that rounding moves X by O(1); it fails there before and after the
    exact step.)"""
    n, p = size
    base = make_problem(name, n, p, seed=seed)
    problem = Problem(n=n, p=p, name=name, cost=lambda X: scale * base.cost(X),
                      egrad=lambda X: scale * base.egrad(X))
    X0 = initial_point(n, p, distance, seed=seed + 1)
    res = landing(problem, X0, step=steps.ScaleFree(eps=eps), omega=omega, tol=1e-10 * scale,
                  max_iter=100)
    h = np.asarray(res.infeasibility)
    # h_k is formed in floating point: within a few ulps of a quantity of size <= 1 + ||X||^2
    assert np.max(h - max(eps, h[0])) <= 1e-13 * (1 + h[0])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10), st.integers(1, 10), st.floats(1.0, 6.0), st.floats(0.05, 20.0),
       st.floats(0.05, 20.0), st.sampled_from(["beta", "euclidean", "relative"]),
       st.floats(1e-3, 1e6), st.integers(0, 2**31))
def test_restoring_step_decreases_the_infeasibility_above_one(n, p, radius, beta, omega,
                                                              tangent, eta, seed):
    """Where ||h|| >= 1 the safe rule's step passes its sufficient-decrease test, checked on
    X - t V formed explicitly (not through the p x p expansion the step uses)."""
    n, p = max(n, p), min(n, p)
    X = _start_inside(n, p, radius, seed)
    G = 10 * np.random.default_rng(seed + 1).standard_normal((n, p))
    _, V, H = geo.landing_field(X, G, beta, omega, tangent)
    d = np.linalg.norm(H)
    assert d >= 1.0 - 1e-12
    t = steps.safe_step(X, V, d, omega, eta)
    assert 0 < t <= min(eta, 0.5 / omega)
    slope = 2 * np.vdot(H, X.T @ V + V.T @ X)
    assert slope > 0  # the normal term makes the infeasibility a descent direction
    after = _feas(X - t * V) ** 2
    assert after <= d**2 - 0.5 * t * slope + 1e-9 * d**2
    if t < min(eta, 0.5 / omega):  # a halved step: twice it failed the test
        assert _feas(X - 2 * t * V) ** 2 > d**2 - 0.5 * 2 * t * slope - 1e-9 * d**2


def _stationary(record) -> bool:
    """Stop a penalty run once it is at a stationary point: ||G + omega X h|| < 1e-9 (the runs
    never meet the stopping rule, whose ||h|| stays at the penalty's bias)."""
    return record.grad_norm < 1e-9


@functools.cache
def _penalty_with_a_constant_step(name: str, n: int, p: int):
    """The reference run of both rules: a constant step has no safe region to freeze at."""
    from landing_core.solvers import penalty
    return penalty(make_problem(name, n, p, seed=0), initial_point(n, p, 0.3, seed=0),
                   omega=1.0, step=0.05, max_iter=20000, callback=_stationary)


@pytest.mark.parametrize("rule", [Safe(eta=0.1), BarzilaiBorwein()])
@pytest.mark.parametrize(("name", "n", "p"), [("brockett", 2, 1), ("procrustes", 10, 3),
                                              ("pca", 8, 2)])
def test_safe_rules_let_the_penalty_method_reach_its_stationary_point(rule, name, n, p):
    """The penalty gradient G + omega X h is no landing field: h need not decrease along it
    above ||h|| = 1, so backtracking on h would freeze such runs at ||h|| = 1 with steps of
    1e-17. The rules then fall back to 1/(2 omega (1 + d)); the runs reach grad = 0."""
    from landing_core.solvers import penalty
    problem = make_problem(name, n, p, seed=0)
    X0 = initial_point(n, p, 0.3, seed=0)
    res = penalty(problem, X0, omega=1.0, step=rule, max_iter=5000, callback=_stationary)
    assert res.status == "stopped" and res.grad_norm[-1] < 1e-9  # stationary within 5000
    ref = _penalty_with_a_constant_step(name, n, p)
    assert ref.status == "stopped"
    assert res.infeasibility[-1] == pytest.approx(ref.infeasibility[-1], rel=1e-6)


def test_restoring_step_is_nan_where_h_cannot_decrease():
    X = _start_inside(4, 2, 2.0, 0)
    H = X.T @ X - np.eye(2)
    V = -X @ H  # moves away from the manifold: <h, X^T V + V^T X> < 0
    assert np.isnan(steps.restoring_step(X, V, 0.1))
    d = np.linalg.norm(H)
    assert steps.safe_step(X, V, d, 2.0, 0.1) == pytest.approx(min(0.1, 1 / (2 * 2.0 * (1 + d))))
    stack = steps.safe_step(np.stack([X, X]), np.stack([V, -V]), np.array([d, d]),
                            np.array([2.0, 2.0]), np.array([0.1, 0.1]))
    assert stack[0] == pytest.approx(1 / (2 * 2.0 * (1 + d)))
    assert stack[1] == steps.safe_step(X, -V, d, 2.0, 0.1)  # -V restores: backtracking


def test_safe_step_on_a_stack_equals_one_run_at_a_time():
    rng = np.random.default_rng(3)
    X = np.stack([_start_inside(5, 3, r, i) for i, r in enumerate([0.1, 0.7, 1.5, 3.0])])
    G = rng.standard_normal(X.shape)
    omega = np.array([0.5, 1.0, 2.0, 4.0])
    _, V, H = geo.landing_field(X, G, 0.5, omega, "beta")
    d = np.linalg.norm(H, axis=(-2, -1))
    stacked = steps.safe_step(X, V, d, omega, np.full(4, 10.0))
    single = [steps.safe_step(X[i], V[i], d[i], omega[i], 10.0) for i in range(4)]
    np.testing.assert_allclose(stacked, single, rtol=1e-15)


@pytest.mark.parametrize("rule", [Safe(eta=0.1), BarzilaiBorwein()])
@pytest.mark.parametrize("distance", [0.7, 1.0, 1.5, 2.0])
def test_safe_rules_converge_from_far_outside_the_safe_region(rule, distance):
    """Starts with ||h(X0)|| well above 1 (a first-order step 1/(2 omega (1 + d)) ignores ||V||
    and diverges from brockett(3, 2), seed 3, distance 0.7). The infeasibility never grows
    while it is >= 1, and every run converges."""
    for seed in range(10):
        problem = make_problem("brockett", 3, 2, seed=seed)
        X0 = initial_point(3, 2, distance, seed=seed)
        res = landing(problem, X0, beta=0.5, omega=1.0, step=rule, max_iter=3000, tol=1e-8)
        assert res.status == "converged", (seed, res.message)
        h = res.infeasibility
        above = h[:-1] >= 1.0
        assert np.all(h[1:][above] <= h[:-1][above])


# ----------------------------------------------------------------------------- Armijo, BB


@pytest.fixture(scope="module")
def brockett_20_4():
    problem = make_problem("brockett", 20, 4, seed=0)
    A = np.zeros((20, 20))  # recover A from the gradient oracle for an independent f*
    for i in range(20):
        E = np.zeros((20, 4))
        E[i, 0] = 1.0
        A[:, i] = problem.egrad(E)[:, 0] / 8.0
    f_star = float(np.arange(4, 0, -1) @ scipy.linalg.eigh(A, eigvals_only=True)[:4])
    return problem, f_star, initial_point(20, 4, 0.3, seed=1)


@pytest.mark.parametrize("rule", [BarzilaiBorwein, steps.ScaleFree])
def test_on_momentum_the_curvature_rules_measure_the_cost_and_divide_by_the_gain(rule):
    """With momentum's buffer M in the field V = M + omega N (``StepContext.T``: the cost's
    tangent term T; ``gain``: 1 / (1 - gamma)) a rule's step is its step on the field
    T + omega N divided by the gain, where the safe bound does not cut it: its quotients read
    T's differences, not M's. 20 x 7 (140 entries): ScaleFree's scratch buffers are used."""
    problem, omega, gain = make_problem("brockett", 20, 7, seed=3), 0.3, 1.0 / (1.0 - 0.8)
    X1 = initial_point(20, 7, 0.05, seed=2)

    def context(X, k, extra, momentum):
        """The context at X; the buffer is T + extra (tangent), with momentum."""
        G, H = problem.egrad(X), X.T @ X - np.eye(7)
        T, d = geo.grad_beta(X, G, 0.5), float(np.linalg.norm(H))
        if not momentum:
            V = STIEFEL.add_normal(np.array(T), X, H, omega)  # as the rule forms T + omega N
            return steps.StepContext(X, V, G, d, omega, None, None, k, H, True,
                                     float(np.linalg.norm(T)), STIEFEL)
        M = T + extra
        return steps.StepContext(X, M + omega * (X @ H), G, d, omega, None, None, k, H, True,
                                 float(np.linalg.norm(M)), STIEFEL, T, gain)

    first = context(X1, 0, 0.0, False)
    X2 = X1 - 0.05 * first.V
    extra = 0.3 * geo.proj_tangent(X2, np.random.default_rng(0).standard_normal((20, 7)))
    etas = []
    for momentum in (True, False):
        r, state = rule(), {}
        r(context(X1, 0, 0.0, momentum), state)
        step = r(context(X2, 2, extra, momentum), state)  # k = 2: BB's short step
        etas.append(float(getattr(step, "eta", step)))
    # one division apart (measured: 0.00378 and 0.0189 for BB, 0.00376 and 0.0188 ScaleFree)
    assert etas[0] * gain == pytest.approx(etas[1], rel=4 * np.finfo(float).eps)


def test_barzilai_borwein_converges_on_brockett(brockett_20_4):
    problem, f_star, X0 = brockett_20_4
    res = landing(problem, X0, step=BarzilaiBorwein(), max_iter=3000)
    assert res.status == "converged"
    assert _relative_gap(res, f_star) <= 1e-6 and _feas(res.X) <= 1e-8
    assert np.all(res.step[1:] <= 1e3) and np.all(res.step[1:] > 0)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.floats(0.0, 0.99), st.floats(0.05, 20.0),
       st.floats(0.05, 20.0), st.sampled_from(["beta", "euclidean", "relative"]),
       st.floats(1e-3, 1e3), st.floats(1e-3, 1e2), st.integers(0, 2**31))
@example(n=1, p=1, radius=0.9899999999999999, beta=0.0546875, omega=2.0, tangent="beta",
         want=13.0, scale=25.0, seed=0)  # a T of rounding noise: omega_k 1.2e-12 off
def test_bb_long_step_lowers_the_normal_weight_and_stays_safe(n, p, radius, beta, omega,
                                                              tangent, want, scale, seed):
    """A BB step beyond 1/(2 omega) with ||h|| < 1: the rule's choice, recomputed here from
    landing_field at each trial weight (not from the rule's p x p norms). The step capped as a
    whole, A = min(want, bound(omega)), or the long step with omega_k = 1/(2 want), shortened
    to the safe bound and, where shortened to t, omega_k = min(omega, 1/(2 t)) and the bound
    again: the longer of the two. Either way X - eta (T + omega_k X h), formed explicitly, has
    ||h|| <= max(eps, ||h(X)||)."""
    n, p = max(n, p), min(n, p)
    X = _start_inside(n, p, radius, seed)
    G = scale * np.random.default_rng(seed + 1).standard_normal((n, p))
    d = _feas(X)

    def field(w):
        return geo.landing_field(X, G, beta, w, tangent)[1]

    def bound(w):
        return float(safe_step_bound(d, np.linalg.norm(field(w)), w))

    V = field(omega)
    rule = BarzilaiBorwein(eta_max=want)  # the first call asks for eta_max
    T = geo.landing_field(X, G, beta, omega, tangent)[0]
    ctx = steps.StepContext(X, V, G, d, omega, None, None, 0, X.T @ X - np.eye(p), True,
                            float(np.linalg.norm(T)))
    step = rule(ctx, {})
    whole = min(want, bound(omega))
    w, t = 0.5 / want, want
    if 2 * want * omega > 1:
        t = min(want, bound(w))
        if t < want:
            w = min(omega, 0.5 / t)
            t = min(t, bound(w))
    long = 2 * want * omega > 1
    # the rule takes ||T + w X H||^2 as ||T||^2 + w^2 ||X H||^2: <T, X H> = 0 in exact
    # arithmetic, but a T at rounding level (St(1, 1) has no tangent directions) keeps a cross
    # term 2 w <T, X H> that this test's norms include, at most |cos(T, X H)| of g^2 (as
    # ||T||^2 + w^2 ||X H||^2 >= 2 w ||T|| ||X H||); the bound (~ g^-1 to g^-2) and
    # omega_k = 1/(2 t) err by as much at most
    N = X @ ctx.H
    cos = abs(float(np.vdot(T, N))) / max(float(np.linalg.norm(T) * np.linalg.norm(N)), 1e-300)
    if long and t > whole * (1 + 1e-9 + cos):
        assert isinstance(step, steps.Step)
    eta = step.eta if isinstance(step, steps.Step) else step
    assert eta == pytest.approx(max(whole, t) if long else whole, rel=1e-9 + cos)
    w_used = omega
    if isinstance(step, steps.Step):
        assert step.omega == pytest.approx(w, rel=1e-12 + cos)
        assert step.eta * step.omega <= 0.5 * (1 + 1e-12)  # the normal term within its cap
        w_used = step.omega
    assert _feas(X - eta * field(w_used)) <= max(0.5, d) + 1e-12


@pytest.mark.parametrize("eta_max", [1e3, 1e6, 1e10])
@pytest.mark.parametrize("omega", [1.0, 10.0])
def test_bb_long_steps_stay_safe_where_the_normal_term_dominates(eta_max, omega):
    """Near a solution pushed off the manifold (||T|| ~ 1e-8, ||h|| = 0.26), ||T + w X h||^2
    taken as ||V||^2 - (omega^2 - w^2) ||X h||^2 would lose ||T||^2 to rounding, and a request
    of eta_max = 1e8 would leave the safe region (||h_1|| = 5.6). With ||T|| from the solver
    every iterate keeps ||h|| <= eps."""
    problem = make_problem("brockett", 10, 3, seed=0)
    X_star = landing(problem, initial_point(10, 3, 0.3, seed=1), tol=1e-13, max_iter=5000).X
    rng = np.random.default_rng(0)
    for pert in (1e-9, 1e-6):
        X0 = X_star * np.sqrt(1.15) + pert * rng.standard_normal(X_star.shape)
        res = landing(problem, X0, omega=omega, step=BarzilaiBorwein(eta_max=eta_max),
                      max_iter=2000)
        assert res.status == "converged"
        assert res.infeasibility.max() <= 0.5


def test_a_lowered_normal_weight_is_what_the_solver_applies():
    """Step(eta, omega_k): the solver's X_1 is X_0 - eta (grad_beta f + omega_k X h), checked
    against landing_field at omega_k, below and above the run's omega; a Step with omega_k
    <= 0, infinite or NaN is an error."""
    problem = make_problem("brockett", 7, 3, seed=4)
    X0 = _start_inside(7, 3, 0.3, seed=4)

    for omega_k in (0.25, 3.0):
        def rule(ctx, state, omega_k=omega_k):
            return steps.Step(0.05, omega_k)

        rec = list(zip(iterate(problem, X0, Config(beta=0.7, omega=2.0, step=rule)), range(2),
                       strict=False))[1][0]
        _, V, _ = geo.landing_field(X0, problem.egrad(X0), 0.7, omega_k, "beta")
        # the solver moves by -eta V and adds back eta (omega - omega_k) X h: X0's rounding
        # plus a few rounding errors of eta ||V|| and eta max(omega, omega_k) ||X h||
        err = 8 * np.finfo(float).eps * (np.abs(X0).max() + 0.05 * (
            np.linalg.norm(V) + 3.0 * np.linalg.norm(X0 @ (X0.T @ X0 - np.eye(X0.shape[1])))))
        np.testing.assert_allclose(rec.X, X0 - 0.05 * V, rtol=0, atol=err)
        assert rec.step == 0.05
    for bad in (0.0, -1.0, math.inf, math.nan):
        runs = iterate(problem, X0, Config(omega=2.0, step=lambda c, s, w=bad: steps.Step(.1, w)))
        next(runs)
        with pytest.raises(ValueError, match="normal weight must be a finite"):
            next(runs)


def test_the_move_reuses_the_rules_normal_term_bit_for_bit():
    """ScaleFree hands its N(X) = X h(X) to the move (``Step.normal``): the iterates are the
    ones a move that forms X h itself gives, bit for bit (the same product of the same
    arrays), and a user's landing method whose move has the older signature (no ``normal``)
    runs too. With the rule's T as well (``Step.tangent``) the move forms X - eta T - eta
    omega_k N instead of X - eta V + eta (omega - omega_k) N: the same point to rounding
    (1e-16 a move, measured; BB's steps carry it to 3e-12 over these 40 iterations).
    From a start outside the safe region, so that the restoring branch runs as well."""
    from landing_core.methods.landing import Landing

    class OldMove(Landing):
        def move(self, X, field, eta, omega=None):  # the signature before Step.normal
            return super().move(X, field, eta, omega)

    class NormalOnly(Landing):
        def move(self, X, field, eta, omega=None, normal=None):  # before Step.tangent
            return super().move(X, field, eta, omega, normal)

    problem = make_problem("brockett", 9, 3, seed=2)
    for radius in (0.3, 1.5):
        X0 = _start_inside(9, 3, radius, seed=5)
        runs = [[r.X for r, _ in zip(iterate(problem, X0, method=method), range(40),
                                     strict=False)]
                for method in (Landing(), OldMove(), NormalOnly())]
        assert [len(run) for run in runs] == [40, 40, 40]
        for new, old, normal in zip(*runs, strict=True):
            np.testing.assert_array_equal(normal, old)
            np.testing.assert_allclose(new, old, rtol=0, atol=1e-10)


def test_bb_normal_cap_needs_fewer_iterations_on_brockett():
    """Capping only the normal term keeps BB's long tangent steps: brockett(50, 5) from three
    starts converges in over 3x fewer iterations than with the whole step capped at 1/(2 omega)
    (measured 240-350 against 914-1,176), to the same optimum."""
    problem = make_problem("brockett", 50, 5, seed=0)
    for seed in range(3):
        X0 = initial_point(50, 5, 0.3, seed=seed)
        split = landing(problem, X0, step=BarzilaiBorwein(), max_iter=5000)
        whole = landing(problem, X0, step=BarzilaiBorwein(normal_cap=False), max_iter=5000)
        assert split.status == whole.status == "converged"
        assert split.iterations * 3 < whole.iterations
        assert _relative_gap(split, problem.f_star) <= 1e-12
        assert split.infeasibility[-1] <= 1e-8


def test_armijo_reaches_the_optimum_on_brockett(brockett_20_4):
    problem, f_star, X0 = brockett_20_4
    res = landing(problem, X0, step=Armijo(), tol=1e-5, max_iter=3000)
    assert res.status == "converged"
    assert _relative_gap(res, f_star) <= 1e-6 and _feas(res.X) <= 1e-8
    # every accepted step is a power of 1/2 times eta0 (doubling / halving only)
    k = np.log2(res.step[1:])
    np.testing.assert_allclose(k, np.round(k), atol=1e-12)


def test_armijo_meets_the_default_tolerance_on_brockett(brockett_20_4):
    problem, f_star, X0 = brockett_20_4
    res = landing(problem, X0, step=Armijo(), max_iter=3000)
    assert res.status == "converged"


# ----------------------------------------------------------------------------- construction


@pytest.mark.parametrize("eta", [0.0, -1.0, np.nan, np.inf])
def test_constant_rejects_non_positive_or_non_finite_eta(eta):
    with pytest.raises(ValueError, match="step eta must be a finite number > 0"):
        Constant(eta)


@pytest.mark.parametrize(
    ("factory", "match"),
    [
        (lambda: Safe(eta=-1.0), "step eta"),
        (lambda: Safe(eps=0.0), "safe-step eps"),
        (lambda: Safe(eps=1.0), r"safe-step eps must lie in \(0, 1\)"),
        (lambda: BarzilaiBorwein(eps=1.5), "safe-step eps"),
        (lambda: Armijo(eta0=0.0), "Armijo eta0"),
        (lambda: Armijo(c=1.5), "0 < c < 1"),
        (lambda: Armijo(shrink=1.0), "0 < shrink < 1"),
        (lambda: BarzilaiBorwein(eta_max=-1.0), "BB eta_max"),
        (lambda: BarzilaiBorwein(eps=np.nan), "safe-step eps"),
    ],
)
def test_rules_reject_bad_parameters(factory, match):
    with pytest.raises(ValueError, match=match):
        factory()


def test_as_step_rule():
    assert steps.as_step_rule(0.25) == Constant(0.25)
    assert steps.as_step_rule(np.float64(0.5)) == Constant(0.5)
    assert isinstance(steps.as_step_rule(None), steps.ScaleFree)
    rule = Safe(eta=2.0)
    assert steps.as_step_rule(rule) is rule
    # the app's names, each rule with its defaults (a constant step is its number)
    for name, rule in (("safe", Safe()), ("armijo", Armijo()), ("bb", BarzilaiBorwein()),
                       ("scalefree", steps.ScaleFree())):
        assert steps.as_step_rule(name) == rule
    for name in ("fast", "constant"):
        with pytest.raises(ValueError, match=f"unknown step rule '{name}': give one of safe, "
                                             "armijo, bb, scalefree, a number"):
            steps.as_step_rule(name)
    with pytest.raises(ValueError, match="step must be a positive number, a step rule's name"):
        steps.as_step_rule([0.1])
    with pytest.raises(ValueError, match="step eta must be a finite number > 0"):
        steps.as_step_rule(-0.1)


def test_constant_step_is_used_verbatim():
    problem = make_problem("brockett", 6, 2, seed=0)
    res = landing(problem, initial_point(6, 2, 0.3, seed=0), step=0.05, max_iter=20, tol=1e-30)
    assert np.isnan(res.step[0])
    np.testing.assert_array_equal(res.step[1:], 0.05)


def test_bb_takes_the_ratio_of_norms_under_negative_curvature():
    """<s, y> <= 0: eta = ||s|| / ||y|| (clipped by the safe step), not the previous step."""
    rule = BarzilaiBorwein()
    problem = make_problem("brockett", 6, 2, seed=0)
    X = initial_point(6, 2, 0.0, seed=0)
    rng = np.random.default_rng(1)
    V0, V1 = rng.standard_normal((2, 6, 2))
    X1 = X - 1e-3 * V0
    state = {"X": X, "V": V0, "eta": 1e-9}
    s, y = X1 - X, V1 - V0
    if np.vdot(s, y) > 0:
        V1 = V0 - (V1 - V0)  # flip y so that <s, y> < 0
        y = V1 - V0
    assert np.vdot(s, y) < 0
    d = _feas(X1)
    ctx = steps.StepContext(X1, V1, V1, d, 1.0, problem.cost, lambda e: X1 - e * V1, 1)
    safe = steps.safe_step(X1, V1, d, 1.0, rule.eta_max, rule.eps)
    expected = min(np.linalg.norm(s) / np.linalg.norm(y), safe)
    assert rule(ctx, state) == pytest.approx(expected, rel=1e-14)
    assert expected > 1e-6  # far from the previous step 1e-9: it was not kept


@pytest.mark.parametrize("tangent", ["beta", "euclidean", "relative"])
def test_every_armijo_step_satisfies_sufficient_decrease_of_the_merit(tangent):
    """phi_k = f - 1/2 <sym(X_k^T G_k), h> + mu/2 ||h||^2, its slope along the step taken from
    central finite differences (independent of the rule's formula): phi_k(X_{k+1}) <=
    phi_k(X_k) - c Dphi_k(X_k)[X_k - X_{k+1}] at each accepted step, long steps included (their
    normal weight lowered to 1/(2 eta), checked here too)."""
    problem = make_problem("brockett", 10, 3, seed=2)
    X = initial_point(10, 3, 0.6, seed=2)
    rule, state, checked, long = Armijo(eta0=0.2), {}, 0, 0
    for k in range(40):
        G = problem.egrad(X)
        T, V, H = geo.landing_field(X, G, 0.5, 4.0, tangent)

        def move(e, w=None, X=X, T=T):
            return X - e * T - e * (4.0 if w is None else w) * X @ (X.T @ X - np.eye(3))

        ctx = steps.StepContext(X, V, G, _feas(X), 4.0, problem.cost, move, k, H, True)
        last = state.get("eta")
        step = rule(ctx, state)
        eta, w = (step.eta, step.omega) if isinstance(step, steps.Step) else (step, 4.0)
        if isinstance(step, steps.Step):
            assert w == pytest.approx(0.5 / eta, rel=1e-15) and eta > 1 / 8
            long += 1
        Y = move(eta, w)
        mu, Lam = state["mu"], 0.5 * (X.T @ G + G.T @ X)

        def phi(Z, mu=mu, Lam=Lam):
            HZ = Z.T @ Z - np.eye(3)
            return problem.cost(Z) - 0.5 * np.vdot(Lam, HZ) + 0.5 * mu * np.vdot(HZ, HZ)

        t = 1e-6
        D = X - Y
        slope = (phi(X + t * D) - phi(X - t * D)) / (2 * t)
        assert slope > 0  # Dphi[X - Y] > 0: phi decreases from X towards Y
        if last is None or rule.c * last * np.linalg.norm(V) ** 2 > 1e-9:  # not rounding
            assert phi(Y) <= phi(X) - rule.c * slope * (1 - 1e-5)
            checked += 1
        X = Y
    assert checked >= 20 and long >= 5


def _mu_bound(problem, X):
    """mu0 + ||Lambda||_2 / (2 sigma_min(X)^2), the bound of Armijo's weight from numpy's SVDs,
    raised by its rounding margin: the rule's a and b carry a relative error of at most about
    8 p (n + p^2) kappa_F(X) eps (Armijo's docstring), the SVDs about p eps kappa(X) more;
    16 p (n + p^2) kappa_F(X)^2 eps covers both."""
    n, p = X.shape
    Lam = geo.multiplier(X, problem.egrad(X))
    s = np.linalg.svd(X, compute_uv=False)
    margin = 16 * p * (n + p * p) * (np.linalg.norm(X) / s[-1]) ** 2 * np.finfo(float).eps
    return (1.0 + np.linalg.norm(Lam, 2) / (2 * s[-1] ** 2)) * (1 + margin)


@pytest.mark.parametrize("name", ["brockett", "pca", "linear", "procrustes"])
@pytest.mark.parametrize(("n", "p"), [(3, 2), (10, 3), (4, 4)])
def test_armijo_keeps_the_infeasibility_and_its_weight_bounded(name, n, p):
    """From distance 0.7 (||h(X_0)|| > eps = 0.5): ||h(X_k)|| <= ||h(X_0)|| at every k, the merit
    weight mu stays below mu0 + max_k ||Lambda_k||_2 / (2 lambda_min(M_k)) (and below 50),
    also once ||h|| is at rounding level, and the run reaches tol = 1e-8."""
    for seed in range(3):
        problem = make_problem(name, n, p, seed=seed)
        X0 = initial_point(n, p, 0.7, seed=seed)
        rule, mus = Armijo(eta0=0.1), []

        def spy(ctx, state, rule=rule, mus=mus):
            step = rule(ctx, state)
            mus.append(state["mu"])
            return step

        res = landing(problem, X0, step=spy, tol=1e-8, max_iter=3000, keep_iterates=4000)
        assert res.status == "converged", (seed, res.message)
        assert res.infeasibility[0] > 0.5
        assert res.infeasibility.max() <= res.infeasibility[0] * (1 + 1e-12), seed
        bound = max(_mu_bound(problem, X) for X in res.iterates)
        assert max(mus) <= bound and max(mus) <= 50, (seed, max(mus), bound)


def test_armijo_weight_stays_bounded_once_h_is_at_rounding_level():
    """Run on past convergence: ||h|| reaches 1e-15, where the merit f + mu N needed
    mu ~ 1e17; the weight stays at its bound and ||h|| and ||grad|| stay at rounding level."""
    problem = make_problem("brockett", 10, 3, seed=0)
    rule, mus = Armijo(eta0=0.1), []

    def spy(ctx, state):
        step = rule(ctx, state)
        mus.append(state["mu"])
        return step

    res = landing(problem, initial_point(10, 3, 0.7, seed=0), step=spy, tol=1e-300,
                  max_iter=1500)
    assert res.infeasibility[-200:].max() < 1e-14 and res.grad_norm[-200:].max() < 1e-12
    assert max(mus) == mus[-1] <= 10


def test_armijo_on_the_penalty_descends_the_penalty_function():
    """Not a landing field: the merit is f + omega/4 ||h||^2, the function the penalty's field
    is the gradient of; every step decreases it, and the run ends at its stationary point."""
    problem = make_problem("brockett", 6, 2, seed=1)
    res = iterate(problem, initial_point(6, 2, 0.4, seed=1),
                  Config(method="penalty", omega=4.0, step=Armijo(eta0=0.1)))
    values = []
    for rec, _ in zip(res, range(300), strict=False):
        values.append(rec.cost + 4.0 / 4 * rec.infeasibility ** 2)
    assert np.all(np.diff(values) <= 1e-12 * abs(values[0]))
    assert values[0] - values[-1] > 1.0


@pytest.mark.parametrize("method", ["rgd-qr", "rgd-polar", "rgd-cayley"])
def test_armijo_on_a_retraction_decreases_f_at_every_step(method):
    """Riemannian GD moves on the retraction's curve: the test is along its tangent, c eta
    <G, V>. On its chord X - Y, which at a long step can point uphill, pca(8, 3) from this X0
    accepted steps that raised f, doubled them up to 1e307 and ended at the iteration limit
    (QR, Cayley) or diverged (polar)."""
    problem = make_problem("pca", 8, 3, seed=0)
    res = solve(problem, initial_point(8, 3, 0.4, seed=0), Config(method=method, step=Armijo()),
                max_iter=500)
    assert res.status == "converged", res.message
    assert np.all(np.diff(res.cost) <= 1e-13 * abs(res.cost[0]))
    assert res.cost[-1] == pytest.approx(problem.f_star, rel=1e-10)
    assert np.nanmax(res.step) <= 1.0


def test_the_history_records_the_normal_step_actually_taken():
    """Result.normal_step: X_{k+1} = X_k - eta_k T_k - (eta_k omega_k) X_k h(X_k), checked on every
    kept iterate of a BB run (rebuilt from landing_field with omega = 0 for T, and X h); with
    long steps its normal step never exceeds 1/2, and a constant step records eta omega."""
    problem = make_problem("brockett", 12, 3, seed=2)
    X0 = initial_point(12, 3, 0.3, seed=2)
    res = landing(problem, X0, beta=0.7, omega=2.0, step=BarzilaiBorwein(), max_iter=120,
                  tol=1e-30, keep_iterates=200)
    X = res.iterates
    assert len(X) == res.iterations + 1 and np.isnan(res.normal_step[0])
    for k in range(res.iterations):
        T = geo.landing_field(X[k], problem.egrad(X[k]), 0.7, 1.0)[0]
        Xh = X[k] @ (X[k].T @ X[k] - np.eye(3))
        # rebuilt from T and X h by other products: X's rounding plus the step's, which is
        # (n + p) eps kappa(X^T X) times the operands' scale ||G|| ||X||^2 (1 + 1/(2 beta))
        # (not ||T||, which vanishes as the run converges) and ||X|| ||h||
        s = np.linalg.svd(X[k], compute_uv=False)
        scale = (res.step[k + 1] * np.linalg.norm(problem.egrad(X[k])) * s[0] ** 2 * (1 + 1 / 1.4)
                 + (res.step[k + 1] + res.normal_step[k + 1]) * np.linalg.norm(Xh))
        err = 16 * np.finfo(float).eps * (np.abs(X[k]).max() + 15 * (s[0] / s[-1]) ** 2 * scale)
        np.testing.assert_allclose(X[k + 1], X[k] - res.step[k + 1] * T
                                   - res.normal_step[k + 1] * Xh, rtol=0, atol=err)
    long = res.step[1:] > 0.25  # beyond 1/(2 omega)
    assert long.sum() > 10
    assert np.all(res.normal_step[1:][long] <= 0.5 * (1 + 1e-12))
    assert np.all(res.normal_step[1:][~long] == pytest.approx(2.0 * res.step[1:][~long]))
    const = landing(problem, X0, omega=2.0, step=0.01, max_iter=5, tol=1e-30)
    np.testing.assert_allclose(const.normal_step[1:], 0.02, rtol=1e-15)


def test_bb_steps_on_one_state_are_the_textbook_ratios_and_touch_no_iterate():
    """Calls in a row on one state (its work arrays reused): each step is <s,s>/<s,y> (odd k)
    or <s,y>/<y,y> (even k) from s, y formed apart, clipped by the safe step; the iterates
    and directions the rule saw are left as they were."""
    rule, state = BarzilaiBorwein(), {}
    problem = make_problem("brockett", 8, 3, seed=0)
    rng = np.random.default_rng(4)
    R = rng.standard_normal((8, 8))
    L, W = R @ R.T + np.eye(8), rng.standard_normal((8, 3))  # V = L X + W: <s, y> > 0
    X = initial_point(8, 3, 0.1, seed=0)
    seen = []
    for k in range(6):
        V = L @ X + W
        d = _feas(X)
        ctx = steps.StepContext(X, V, V, d, 1.0, problem.cost, lambda e, X=X, V=V: X - e * V, k)
        eta = rule(ctx, state)
        if seen:
            X0, V0, _, _ = seen[-1]
            s, y = X - X0, V - V0
            sy = float(np.vdot(s, y))
            assert sy > 0
            bb = np.vdot(s, s) / sy if k % 2 else sy / np.vdot(y, y)
            safe = steps.safe_step(X, V, d, 1.0, rule.eta_max, rule.eps)
            assert eta == pytest.approx(min(bb, safe), rel=1e-13)
        seen.append((X, V, X.copy(), V.copy()))
        X = X - min(eta, 0.05) * V
    for X_k, V_k, X_was, V_was in seen:
        np.testing.assert_array_equal(X_k, X_was)
        np.testing.assert_array_equal(V_k, V_was)
