"""Test problems (landing_core.problems): gradients, batching, optimal values, input checks.

Optimal values are recomputed here from the problem's matrices with scipy (eigh, svd,
orthogonal_procrustes, polar) or by brute force over O(2) / O(3); gradients by finite differences.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import landing_core
from landing_core import landing, problems, riemannian_gd
from landing_core.problems import initial_point, make_problem
from landing_core.sweep import sweep

NAMES = ["brockett", "procrustes", "pca", "linear", "quartic"]
SHAPES = [(6, 3), (4, 4), (5, 1), (3, 3), (1, 1)]


def fd_gradient(cost, X, t=1e-5):
    G = np.zeros_like(X)
    for idx in np.ndindex(*X.shape):
        E = np.zeros_like(X)
        E[idx] = t
        G[idx] = (float(cost(X + E)) - float(cost(X - E))) / (2 * t)
    return G


def random_stiefel(rng, n, p):
    Q, _ = np.linalg.qr(rng.standard_normal((n, p)))
    return Q


# ----------------------------------------------------------------------------- gradients, batches


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", SHAPES)
def test_egrad_matches_finite_differences(name, shape):
    n, p = shape
    prob = make_problem(name, n, p, seed=7)
    rng = np.random.default_rng(1)
    for X in (initial_point(n, p, 0.3, seed=2), rng.standard_normal((n, p))):
        G = prob.egrad(X)
        assert G.shape == (n, p)
        fd = fd_gradient(prob.cost, X)
        assert np.linalg.norm(G - fd) <= 1e-8 * (1 + np.linalg.norm(G)), name


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("lead", [(3,), (2, 3)])
def test_cost_and_egrad_are_batched(name, lead):
    n, p = 5, 2
    prob = make_problem(name, n, p, seed=4)
    X = np.random.default_rng(0).standard_normal((*lead, n, p))
    cost, grad = prob.cost(X), prob.egrad(X)
    assert np.shape(cost) == lead and grad.shape == X.shape
    eps = np.finfo(float).eps
    for idx in np.ndindex(*lead):
        # stacked and 2-D products round differently: a few products of length <= n, so
        # within about n^2 eps of the operands' scale; that scale is ||grad|| ||X|| for the
        # cost and ||grad|| for the gradient (X is random, far from a critical point where
        # they would cancel), not each entry's own size
        one, g = prob.cost(X[idx]), prob.egrad(X[idx])
        err = 16 * n * n * eps * np.linalg.norm(g)
        np.testing.assert_allclose(cost[idx], one, rtol=16 * n * n * eps,
                                   atol=err * np.linalg.norm(X[idx]))
        np.testing.assert_allclose(grad[idx], g, rtol=0, atol=err)


# ----------------------------------------------------------------------------- optimal values


def _assert_is_lower_bound_on_stiefel(prob, f_star, rng, trials=200):
    vals = [float(prob.cost(random_stiefel(rng, prob.n, prob.p))) for _ in range(trials)]
    assert min(vals) >= f_star - 1e-10 * (1 + abs(f_star))


@pytest.mark.parametrize("shape", [(8, 3), (5, 5), (20, 4), (4, 1)])
def test_brockett_f_star_from_scipy_eigh(shape):
    n, p = shape
    rng = np.random.default_rng(n * 10 + p)
    B = rng.standard_normal((n, n))
    A = B + B.T
    prob = make_problem("brockett", n, p, A=A)
    lam, vecs = scipy.linalg.eigh(A)
    w = np.arange(p, 0, -1)  # N = diag(p, ..., 1): the largest weight on the smallest eigenvalue
    expected = float(np.sum(w * lam[:p]))
    # eigenvalues within n eps ||A||_2 (backward stable eigh), weighted by sum(w); the cost
    # tr(X^T A X N) is as accurate: an absolute bound (f* may be near 0)
    tol = 8 * n * np.finfo(float).eps * np.linalg.norm(A, 2) * w.sum()
    assert abs(prob.f_star - expected) <= tol
    assert abs(float(prob.cost(vecs[:, :p])) - expected) <= tol
    _assert_is_lower_bound_on_stiefel(prob, expected, rng)


def test_default_brockett_f_star_from_its_own_matrix():
    """The default (seeded) Brockett problem: recover A through the gradient oracle
    (egrad(e_i e_1^T) = 2 p A e_i e_1^T) and recompute f* with scipy."""
    n, p = 20, 4
    prob = make_problem("brockett", n, p, seed=0)
    A = np.zeros((n, n))
    for i in range(n):
        E = np.zeros((n, p))
        E[i, 0] = 1.0
        A[:, i] = prob.egrad(E)[:, 0] / (2 * p)
    np.testing.assert_allclose(A, A.T, atol=1e-14)
    lam = scipy.linalg.eigh(A, eigvals_only=True)
    assert prob.f_star == pytest.approx(float(np.arange(p, 0, -1) @ lam[:p]), rel=1e-12)


@pytest.mark.parametrize("n", [2, 3, 6])
def test_procrustes_square_f_star_from_scipy(n):
    rng = np.random.default_rng(n)
    A, B = rng.standard_normal((2 * n, n)), rng.standard_normal((2 * n, n))
    prob = make_problem("procrustes", n, n, A=A, B=B)
    R, _ = scipy.linalg.orthogonal_procrustes(A, B)
    expected = 0.5 * np.linalg.norm(A @ R - B) ** 2
    assert prob.f_star == pytest.approx(expected, rel=1e-12)
    sign = 1 if np.linalg.det(R) > 0 else -1
    assert prob.f_star_by_det[sign] == pytest.approx(expected, rel=1e-12)
    assert prob.f_star_by_det[-sign] >= expected - 1e-12
    _assert_is_lower_bound_on_stiefel(prob, expected, rng)


def test_procrustes_rectangular_has_no_f_star():
    prob = make_problem("procrustes", 6, 3, seed=0)
    assert prob.f_star is None and prob.f_star_by_det == {}
    assert prob.optimum_from(initial_point(6, 3)) is None


@pytest.mark.parametrize("shape", [(8, 3), (5, 5), (4, 1)])
def test_pca_f_star_from_scipy_eigh(shape):
    n, p = shape
    rng = np.random.default_rng(n + p)
    data = rng.standard_normal((3 * n, n)) * np.linspace(2, 0.5, n)
    prob = make_problem("pca", n, p, data=data)
    C = data.T @ data / data.shape[0]
    lam, vecs = scipy.linalg.eigh(C)
    expected = -0.5 * float(lam[-p:].sum())
    assert prob.f_star == pytest.approx(expected, rel=1e-12)
    assert float(prob.cost(vecs[:, -p:])) == pytest.approx(expected, rel=1e-12)
    _assert_is_lower_bound_on_stiefel(prob, expected, rng)


@pytest.mark.parametrize("shape", [(8, 3), (5, 5), (4, 1)])
def test_linear_f_star_is_minus_the_nuclear_norm(shape):
    n, p = shape
    rng = np.random.default_rng(n * p)
    C = rng.standard_normal((n, p))
    prob = make_problem("linear", n, p, C=C)
    expected = -float(scipy.linalg.svdvals(C).sum())
    assert prob.f_star == pytest.approx(expected, rel=1e-12)
    U = scipy.linalg.polar(C)[0]
    assert float(prob.cost(-U)) == pytest.approx(expected, rel=1e-12)
    _assert_is_lower_bound_on_stiefel(prob, expected, rng)


@pytest.mark.parametrize("shape", [(8, 3), (5, 5), (4, 1)])
def test_quartic_f_star_is_minus_p_over_four(shape):
    n, p = shape
    prob = make_problem("quartic", n, p)
    assert prob.f_star == -p / 4
    assert float(prob.cost(np.eye(n)[:, :p])) == -p / 4
    _assert_is_lower_bound_on_stiefel(prob, -p / 4, np.random.default_rng(0))


# ----------------------------------------------------------------------------- O(n) components


def _rot2(theta):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def _brute_force_o2(cost):
    """min of cost over SO(2) and over the det = -1 component, by a fine grid and refinement."""
    out = {}
    for sign, D in ((1, np.eye(2)), (-1, np.diag([1.0, -1.0]))):
        def f(t, D=D):
            return float(cost(_rot2(t) @ D))
        grid = np.linspace(0, 2 * np.pi, 4001)
        t0 = grid[np.argmin([f(t) for t in grid])]
        res = scipy.optimize.minimize_scalar(f, bounds=(t0 - 0.01, t0 + 0.01), method="bounded",
                                             options={"xatol": 1e-12})
        out[sign] = float(res.fun)
    return out


def _brute_force_o3(cost, starts=30, seed=0):
    """min of cost over SO(3) and over R diag(1, 1, -1), multistart BFGS on rotation vectors."""
    rng = np.random.default_rng(seed)
    out = {}
    for sign, D in ((1, np.eye(3)), (-1, np.diag([1.0, 1.0, -1.0]))):
        def f(r, D=D):
            return float(cost(Rotation.from_rotvec(r).as_matrix() @ D))
        out[sign] = min(scipy.optimize.minimize(f, rng.uniform(-np.pi, np.pi, 3), method="BFGS",
                                                options={"gtol": 1e-10}).fun
                        for _ in range(starts))
    return out


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_f_star_by_det_brute_force_on_O2(name, seed):
    prob = make_problem(name, 2, 2, seed=seed)
    brute = _brute_force_o2(prob.cost)
    for sign in (1, -1):
        assert prob.f_star_by_det[sign] == pytest.approx(brute[sign], rel=1e-8, abs=1e-10)
    assert prob.f_star == pytest.approx(min(brute.values()), rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("name", ["procrustes", "linear", "brockett"])
def test_f_star_by_det_brute_force_on_O3(name):
    prob = make_problem(name, 3, 3, seed=5)
    brute = _brute_force_o3(prob.cost)
    for sign in (1, -1):
        assert prob.f_star_by_det[sign] == pytest.approx(brute[sign], rel=1e-7, abs=1e-9)


def test_optimum_from_picks_the_component_of_X0():
    prob = make_problem("procrustes", 3, 3, seed=5)
    assert prob.f_star_by_det[1] != pytest.approx(prob.f_star_by_det[-1])
    X0 = initial_point(3, 3, 0.3, seed=0)
    X0m = X0 * np.array([-1.0, 1.0, 1.0])  # flip a column: the other component
    s = 1 if np.linalg.det(X0) > 0 else -1
    assert prob.optimum_from(X0) == prob.f_star_by_det[s]
    assert prob.optimum_from(X0m) == prob.f_star_by_det[-s]
    assert min(prob.f_star_by_det.values()) == pytest.approx(prob.f_star)
    rect = make_problem("brockett", 5, 2)
    assert rect.optimum_from(initial_point(5, 2)) == rect.f_star


# ----------------------------------------------------------------------------- input checks


@pytest.mark.parametrize(
    ("name", "kwargs", "match"),
    [
        ("brockett", {"A": np.ones((4, 5))}, r"A must have shape \(5, 5\)"),
        ("brockett", {"A": np.ones((4, 4))}, r"A must have shape \(5, 5\)"),
        ("brockett", {"A": np.full((5, 5), np.nan)}, "A contains NaN"),
        ("brockett", {"A": np.triu(np.ones((5, 5)))}, "A must be symmetric"),
        ("brockett", {"A": np.ones((2, 5, 5))}, "A must be a 2-D matrix"),
        ("procrustes", {"A": np.ones((7, 4))}, r"A must have shape \(.*, 5\), got \(7, 4\)"),
        ("procrustes", {"A": np.ones((7, 5)), "B": np.ones((7, 3))}, r"B must have shape \(7, 2\)"),
        ("procrustes", {"B": np.full((5, 2), np.inf)}, "B contains NaN or infinite"),
        ("pca", {"data": np.ones((9, 4))}, r"data must have shape \(.*, 5\), got \(9, 4\)"),
        ("pca", {"data": np.full((9, 5), np.nan)}, "data contains NaN"),
        ("linear", {"C": np.ones((5, 3))}, r"C must have shape \(5, 2\)"),
        ("linear", {"C": np.full((5, 2), np.nan)}, "C contains NaN"),
    ],
)
def test_bad_user_matrices_raise_value_error(name, kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_problem(name, 5, 2, **kwargs)


def test_wildcard_shape_in_message_is_printed_plainly():
    with pytest.raises(ValueError, match=r"A must have shape \(\*, 5\)"):
        make_problem("procrustes", 5, 2, A=np.ones((7, 4)))


def test_user_matrices_are_copied():
    A = np.diag([1.0, 2.0, 3.0])
    prob = make_problem("brockett", 3, 1, A=A)
    A[:] = 0.0
    assert prob.f_star == pytest.approx(1.0)


@pytest.mark.parametrize("name", NAMES)
def test_p_greater_than_n_raises(name):
    with pytest.raises(ValueError, match=r"p = 4 > n = 3"):
        make_problem(name, 3, 4)
    with pytest.raises(ValueError, match=r"p = 4 > n = 3"):
        getattr(problems, name)(3, 4)


def test_bad_sizes_and_unknown_problem_raise():
    with pytest.raises(ValueError, match=r"p = 4 > n = 3"):
        initial_point(3, 4)
    with pytest.raises(ValueError, match="positive integers"):
        make_problem("brockett", 0, 0)
    with pytest.raises(ValueError, match="positive integers"):
        initial_point(3, 1.5)
    with pytest.raises(ValueError, match=r"unknown problem 'nope'.*brockett"):
        make_problem("nope", 3, 2)


# ----------------------------------------------------------------------------- initial point


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.floats(0.0, 5.0), st.integers(0, 2**31))
def test_initial_point_distance_to_its_polar_factor(n, p, distance, seed):
    n, p = max(n, p), min(n, p)
    X0 = initial_point(n, p, distance, seed)
    assert X0.shape == (n, p) and np.all(np.isfinite(X0))
    U = scipy.linalg.polar(X0)[0]  # the nearest point of St(n, p)
    np.testing.assert_allclose(U.T @ U, np.eye(p), atol=1e-12)
    assert np.linalg.norm(X0 - U) == pytest.approx(distance, rel=1e-9, abs=1e-12)
    s = scipy.linalg.svdvals(X0)
    assert s.min() >= 0.1 - 1e-12  # full rank, well away from rank deficiency
    np.testing.assert_array_equal(X0, initial_point(n, p, distance, seed))  # reproducible


def test_initial_point_with_prescribed_singular_values_and_bad_inputs():
    s = np.array([0.3, 3.0, 1.0])
    X0 = initial_point(7, 3, seed=4, singular_values=s)
    np.testing.assert_allclose(scipy.linalg.svdvals(X0), np.sort(s)[::-1], rtol=1e-12)
    with pytest.raises(ValueError, match="singular_values must be 3 positive"):
        initial_point(7, 3, singular_values=[1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="singular_values must be 3 positive"):
        initial_point(7, 3, singular_values=[1.0, 1.0])
    with pytest.raises(ValueError, match="distance must be finite"):
        initial_point(7, 3, distance=-0.1)
    with pytest.raises(ValueError, match="distance must be finite"):
        initial_point(7, 3, distance=np.nan)


def test_nearest_stiefel_is_the_polar_factor():
    X = initial_point(9, 4, 0.8, seed=3)
    np.testing.assert_allclose(problems.nearest_stiefel(X), scipy.linalg.polar(X)[0], atol=1e-12)


@pytest.mark.parametrize("name", ["brockett", "procrustes", "pca", "linear", "quartic"])
def test_value_and_grad_equals_cost_and_egrad(name):
    problem = make_problem(name, 7, 3, seed=5)
    X = np.random.default_rng(0).standard_normal((2, 7, 3))
    f, G = problem.value_and_grad(X)
    np.testing.assert_allclose(f, problem.cost(X), rtol=1e-14)
    np.testing.assert_allclose(G, problem.egrad(X), rtol=1e-14)


# ----------------------------------------------------------------------------- your own problem
# A user's problem is any object with n, p, cost and egrad. These are written for one matrix
# (X.T, np.trace, a float): the solvers must take them as they are, and sweeps run them run by
# run. Their values are checked against the built-in Brockett cost on the same matrix.


class OwnBrockett:
    """tr(X^T A X N) written for one matrix only, returning a float; no name, no
    value_and_grad."""

    def __init__(self, A: np.ndarray, p: int):
        self.A, self.N = A, np.diag(np.arange(p, 0, -1.0))
        self.n, self.p = A.shape[0], p

    def cost(self, X):
        return float(np.trace(X.T @ self.A @ X @ self.N))

    def egrad(self, X):
        return 2.0 * self.A @ X @ self.N


def _own(n=5, p=2, seed=0):
    builtin = make_problem("brockett", n, p, seed=seed)
    B = np.random.default_rng(seed).standard_normal((n, n))
    return OwnBrockett((B + B.T) / (2.0 * np.sqrt(n)), p), builtin  # brockett's own A


def test_a_duck_typed_problem_runs_like_the_built_in_one():
    own, builtin = _own()
    X0 = initial_point(5, 2, 0.3, seed=1)
    mine, ref = landing(own, X0, step=0.1), landing(builtin, X0, step=0.1)
    assert mine.status == ref.status == "converged"
    assert mine.iterations == ref.iterations
    np.testing.assert_allclose(mine.cost, ref.cost, rtol=1e-12, atol=1e-12)
    assert mine.f_star is None  # the object has no f_star
    assert problems.as_problem(own).name == "OwnBrockett"


def test_a_float_returning_cost_runs_in_a_sweep_run_by_run():
    own, builtin = _own()
    with pytest.raises((IndexError, ValueError, TypeError)):
        own.cost(np.zeros((3, 5, 2)))  # it really does not take a stack
    axes = dict(beta=(0.5, 2.0), omega=(1.0,), eta=(0.05, 0.2), seed=(0, 1), max_iter=300)
    mine, ref = sweep(own, **axes), sweep(builtin, **axes)
    np.testing.assert_array_equal(mine.status, ref.status)
    np.testing.assert_array_equal(mine.iterations, ref.iterations)
    np.testing.assert_allclose(mine.final_cost, ref.final_cost, rtol=1e-10, atol=1e-12)
    assert mine.f_star is None and ref.f_star is not None


def test_stacked_keeps_a_vectorized_problem_and_wraps_a_single_matrix_one():
    own, builtin = _own()
    X = np.stack([initial_point(5, 2, 0.3, seed=s) for s in range(4)])
    assert problems.stacked(builtin, X) is builtin
    wrapped = problems.stacked(problems.as_problem(own), X)
    f, G = wrapped.value_and_grad(X)
    np.testing.assert_allclose(f, builtin.cost(X), rtol=1e-12)
    np.testing.assert_allclose(G, builtin.egrad(X), rtol=1e-12)
    np.testing.assert_allclose(wrapped.cost(X[None]), builtin.cost(X)[None], rtol=1e-12)
    assert wrapped.egrad(X).shape == X.shape


def test_value_and_grad_is_used_when_the_object_has_it():
    own, builtin = _own()
    calls = {"both": 0}

    def value_and_grad(X):
        calls["both"] += 1
        return own.cost(X), own.egrad(X)

    own.value_and_grad = value_and_grad
    res = landing(own, initial_point(5, 2, 0.3, seed=1), step=0.1, max_iter=20)
    assert calls["both"] == res.iterations + 1  # once per iterate, X_0 included


def test_a_cost_that_fails_on_one_matrix_gets_a_clear_error_in_a_sweep():
    class Flat(OwnBrockett):
        def egrad(self, X):
            return super().egrad(X).ravel()  # (n p,) instead of (n, p)

    own, _ = _own()
    flat = Flat(own.A, 2)
    with pytest.raises(ValueError, match=r"egrad an \(5, 2\) array.*gradient of shape \(10,\)"):
        sweep(flat, eta=(0.1,), max_iter=5)


def test_problem_is_keyword_only_and_exported():
    assert landing_core.Problem is problems.Problem
    own, _ = _own()
    with pytest.raises(TypeError):
        problems.Problem(5, 2, own.cost, own.egrad)  # positional
    built = problems.Problem(n=5, p=2, cost=own.cost, egrad=own.egrad)
    assert built.name == "custom" and built.f_star is None
    sized = problems.Problem(n=np.int64(5), p=2.0, cost=own.cost, egrad=own.egrad)
    assert (sized.n, sized.p) == (5, 2) and type(sized.n) is int and type(sized.p) is int
    assert isinstance(built, problems.ProblemLike) and isinstance(own, problems.ProblemLike)
    assert not isinstance(object(), problems.ProblemLike)
    with pytest.raises(ValueError, match="p = 6 > n = 5"):
        problems.Problem(n=5, p=6, cost=own.cost, egrad=own.egrad)
    with pytest.raises(TypeError, match="egrad must be callable"):
        problems.Problem(n=5, p=2, cost=own.cost, egrad=np.zeros((5, 2)))


class _Partial:
    n, p = 4, 2

    def cost(self, X):
        return float(np.sum(X))


@pytest.mark.parametrize("run", [
    lambda pb: landing(pb, initial_point(4, 2, seed=0)),
    lambda pb: sweep(pb, eta=(0.1,)),
    lambda pb: problems.check_gradient(pb, initial_point(4, 2, seed=0)),
])
def test_an_object_missing_attributes_gets_a_type_error_naming_them(run):
    with pytest.raises(TypeError, match=r"_Partial is not a problem: it has no egrad\."):
        run(_Partial())
    with pytest.raises(TypeError, match=r"it has no n, p, cost, egrad"):
        run(object())


def test_a_non_callable_cost_or_bad_sizes_are_named():
    class NotCallable(_Partial):
        egrad = np.ones((4, 2))

    with pytest.raises(TypeError, match=r"NotCallable.egrad must be a function of X"):
        problems.as_problem(NotCallable())

    sized = OwnBrockett(np.eye(4), 2)
    sized.n = "four"
    with pytest.raises(ValueError, match="positive integers, got n='four'"):
        problems.as_problem(sized)


def test_make_problem_names_the_choices_and_the_matrices_it_takes():
    with pytest.raises(ValueError, match=r"unknown problem 'mine'; choose one of brockett, "
                                         r"procrustes, pca, linear, quartic.*Problem\(n="):
        make_problem("mine", 3, 2)
    with pytest.raises(TypeError, match=r"make_problem\('brockett'\) takes the matrices A, not "
                                        r"cost"):
        make_problem("brockett", 3, 2, cost=lambda X: 0.0)
    with pytest.raises(TypeError, match=r"'quartic'\) takes no matrix, not A"):
        make_problem("quartic", 3, 2, A=np.eye(3))
    assert problems.MATRIX_KEYWORDS == {"brockett": ("A",), "procrustes": ("A", "B"),
                                        "pca": ("data",), "linear": ("C",), "quartic": (),
                                        "generalized_eigen": ("A", "B")}
    with pytest.raises(TypeError, match=r"takes the matrices A, B, not condition"):
        make_problem("generalized_eigen", 3, 2, condition=100.0)
    P = make_problem("generalized_eigen", 3, 2, B=np.diag([1.0, 2.0, 4.0]))
    assert P.f_star == pytest.approx(np.sum(scipy.linalg.eigh(
        P.A, np.diag([1.0, 2.0, 4.0]), eigvals_only=True)[:2]), abs=1e-12)


# ----------------------------------------------------------------------------- gradient check


class HalfSquare:
    """f(X) = 1/2 ||X||^2, gradient X; ``factor`` scales the claimed gradient."""

    def __init__(self, n, p, factor=1.0):
        self.n, self.p, self.factor = n, p, factor

    def cost(self, X):
        return 0.5 * float(np.sum(X * X))

    def egrad(self, X):
        return self.factor * X


def test_check_gradient_reports_the_relative_error_of_a_wrong_factor():
    """With the claimed gradient 2X for the true X, the error along Z is |<X, Z>| (finite
    differences of a quadratic are exact up to rounding), relative to 2 ||X|| ||Z||."""
    X = initial_point(6, 3, 0.3, seed=2)
    out = problems.check_gradient(HalfSquare(6, 3, factor=2.0), X, directions=3, seed=7)
    rng = np.random.default_rng(7)
    expected = max(abs(np.vdot(X, Z)) / (2 * np.linalg.norm(X) * np.linalg.norm(Z))
                   for Z in (rng.standard_normal(X.shape) for _ in range(3)))
    assert out.relative_error == pytest.approx(expected, rel=1e-6)
    assert not out.passed and "does not match" in out.message and out.directions == 3
    right = problems.check_gradient(HalfSquare(6, 3), X)
    assert right.passed and right.relative_error < 1e-9


def test_check_gradient_fails_a_zero_gradient_and_a_nan_cost():
    X = initial_point(4, 2, 0.3, seed=0)
    zero = problems.check_gradient(HalfSquare(4, 2, factor=0.0), X)
    assert zero.relative_error == pytest.approx(1.0) and not zero.passed

    class NaN(HalfSquare):
        def cost(self, X):
            return float("nan")

    broken = problems.check_gradient(NaN(4, 2), X)
    assert np.isnan(broken.relative_error) and not broken.passed


def test_check_gradient_rejects_a_wrong_shape():
    with pytest.raises(ValueError, match=r"X must have shape \(4, 2\), got \(4, 3\)"):
        problems.check_gradient(HalfSquare(4, 2), np.ones((4, 3)))

    class Flat(HalfSquare):
        def egrad(self, X):
            return X.ravel()

    with pytest.raises(ValueError, match=r"egrad an \(4, 2\) array; got a cost of shape \(\) "
                                         r"and a gradient of shape \(8,\)"):
        problems.check_gradient(Flat(4, 2), np.ones((4, 2)))


@pytest.mark.parametrize(("cost", "egrad", "said"), [
    (None, lambda X: X.T, "a gradient of shape (2, 4)"),  # numpy: "shapes not aligned"
    (None, lambda X: X.ravel(), "a gradient of shape (8,)"),
    (None, lambda X: X[:, :1], "a gradient of shape (4, 1)"),  # broadcast: no error at all
    (lambda X: X, None, "a cost of shape (4, 2)"),  # "only 0-dimensional arrays ..."
    (lambda X: None, None, "a cost of type NoneType"),
    (lambda X: 1j, None, "a cost of complex type complex128"),
    (lambda X: np.array([0.5 * np.sum(X * X)]), None, "a cost of shape (1,)"),  # numpy's words
    (None, lambda X: X + 0j, "a gradient of complex type complex128"),  # cast, with a warning
])
def test_a_run_names_a_cost_or_gradient_of_the_wrong_kind(cost, egrad, said):
    """Every run checks what cost and egrad return at X_0 (``check_values``), so that a wrong
    shape is named, not met as numpy's error in the field's products, or not at all."""

    class Wrong(HalfSquare):
        pass

    if cost is not None:
        Wrong.cost = lambda self, X: cost(X)
    if egrad is not None:
        Wrong.egrad = lambda self, X: egrad(X)
    for run in (landing, riemannian_gd):
        with pytest.raises(ValueError, match="cost must return one number and egrad an "
                                             r"\(4, 2\) array; got .*" + re.escape(said)):
            run(Wrong(4, 2), initial_point(4, 2, 0.1, 0), max_iter=3)


def test_landing_checks_the_gradient_on_request():
    own, _ = _own()

    class Wrong(OwnBrockett):
        def egrad(self, X):
            return self.A @ X @ self.N  # half the gradient

    wrong = Wrong(own.A, 2)
    X0 = initial_point(5, 2, 0.3, seed=1)
    with pytest.raises(ValueError, match=r"Wrong: the gradient does not match the cost"):
        landing(wrong, X0, step=0.1, check_gradient=True)
    checked = landing(own, X0, step=0.1, check_gradient=True)
    assert checked.status == "converged"
    with pytest.raises(ValueError, match=r"X0 has shape \(5, 3\)"):
        landing(own, np.ones((5, 3)), check_gradient=True)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(NAMES), st.integers(1, 8), st.integers(1, 8), st.integers(0, 2**31))
def test_check_gradient_passes_every_built_in_and_fails_a_perturbed_one(name, n, p, seed):
    n, p = max(n, p), min(n, p)
    problem = make_problem(name, n, p, seed=seed % 1000)
    X = initial_point(n, p, 0.5, seed=seed)
    assert problems.check_gradient(problem, X, seed=seed).passed
    E = np.random.default_rng(seed).standard_normal((n, p))
    G = problem.egrad(X)
    bump = 0.01 * max(np.linalg.norm(G), 1e-3) / np.linalg.norm(E)  # 1 % of ||G||
    perturbed = problems.Problem(n=n, p=p, cost=problem.cost,
                                 egrad=lambda Y: problem.egrad(Y) + bump * E)
    out = problems.check_gradient(perturbed, X, seed=seed)
    assert not out.passed and out.relative_error > problems.GRADIENT_TOL
