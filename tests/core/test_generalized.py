"""The generalized Stiefel constraint X^T B X = I (landing_core.generalized) against independent
computations: explicit n x n matrices (the metric's operator, skew(G X^T B), projectors), the
change of variables Y = B^{1/2} X with scipy.linalg.sqrtm, finite differences, and
scipy.linalg.eigh(A, B) for optima. B is random symmetric positive definite with condition
numbers from 1 to 1e4; the library never forms an n x n matrix, so the two paths are
independent.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

from landing_core import generalized as gz
from landing_core import geometry as geo
from landing_core.problems import fd_directional, generalized_eigen, initial_point

SETTINGS = settings(max_examples=40, deadline=None)
TANGENTS = ("beta", "euclidean", "relative")


def spd(n: int, condition: float, seed: int) -> np.ndarray:
    """Q diag(logspace(0, log10 condition)) Q^T with Q Haar-random."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (Q * np.logspace(0.0, np.log10(condition), n)) @ Q.T


@st.composite
def cases(draw):
    n = draw(st.integers(2, 10))
    p = draw(st.integers(1, n))
    condition = 10.0 ** draw(st.floats(0.0, 4.0))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    B = spd(n, condition, seed)
    # X full rank, off the manifold: B-orthonormal columns scaled by s in [0.5, 1.5]
    X = initial_point(n, p, 0.0, seed, singular_values=rng.uniform(0.5, 1.5, p), B=B)
    G = rng.standard_normal((n, p))
    beta = 10.0 ** draw(st.floats(-1.5, 1.5))
    return B, X, G, beta, rng


def skew_part(A: np.ndarray) -> np.ndarray:
    return 0.5 * (A - A.T)


def rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b), 1e-300))


def random_tangent(B: np.ndarray, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """W B X with W skew: the tangent space {xi : X^T B xi skew} (through Y = B^{1/2} X it is
    B^{-1/2} {W' Y : W' skew})."""
    W = rng.standard_normal((len(B), len(B)))
    return (W - W.T) @ B @ X


# ----------------------------------------------------------------------------- the formulas


@SETTINGS
@given(cases())
def test_every_tangent_term_keeps_XtBX_to_first_order(case):
    B, X, G, beta, _ = case
    for name in TANGENTS:
        T = gz.tangent_term_B(name, X, B @ X, G, beta)
        S = X.T @ B @ T
        # the size of the rounding errors of X^T (B T): ||X|| ||B||_2 ||T||, not ||B X|| ||T||,
        # which is smaller where X lies along B's small eigenvalues
        scale = np.linalg.norm(X) * np.linalg.norm(B, 2) * np.linalg.norm(T)
        assert np.linalg.norm(S + S.T) <= 1e-12 * scale, name
        # and Euclidean-orthogonal to the normal term B X h_B
        N = gz.grad_N_B(X, B @ X)
        assert abs(np.vdot(T, N)) <= 1e-9 * np.linalg.norm(T) * np.linalg.norm(N) + 1e-14


@SETTINGS
@given(cases())
def test_grad_beta_B_is_the_riemannian_gradient_of_the_metric(case):
    """g(T, xi) = <G, xi> for tangent xi, with the metric's operator formed explicitly:
    g_X(xi, zeta) = <xi, (I - (1 - beta) P) zeta M^{-1}>, P the orthogonal projector onto
    span(B X) (scipy.linalg.orth)."""
    B, X, G, beta, rng = case
    T = gz.grad_beta_B(X, B @ X, G, beta)
    U = scipy.linalg.orth(B @ X)
    Q = np.eye(len(B)) - (1.0 - beta) * U @ U.T
    Minv = np.linalg.inv(X.T @ B @ X)
    for _ in range(3):
        xi = random_tangent(B, X, rng)
        lhs = np.vdot(T, Q @ xi @ Minv)
        scale = np.linalg.norm(T) * np.linalg.norm(Q @ xi @ Minv) + abs(np.vdot(G, xi))
        assert abs(lhs - np.vdot(G, xi)) <= 1e-8 * scale


@SETTINGS
@given(cases())
def test_at_B_identity_the_terms_are_the_papers(case):
    _, X, G, beta, _ = case
    X = X / np.linalg.norm(X, 2)  # any full-rank X; B = I now
    assert rel(gz.grad_beta_B(X, X, G, beta), geo.grad_beta(X, G, beta)) <= 1e-9
    assert rel(gz.proj_euclidean_B(X, X, G), geo.proj_euclidean(X, G)) <= 1e-9
    assert rel(gz.relative_gradient_B(X, X, G), geo.relative_gradient(X, G)) <= 1e-12
    assert rel(gz.grad_N_B(X, X), geo.nabla_N(X)) <= 1e-12


@SETTINGS
@given(cases())
def test_relative_gradient_is_skew_GXtB_BX_and_a_descent_direction(case):
    B, X, G, _, _ = case
    W = skew_part(G @ X.T @ B)
    Psi = gz.relative_gradient_B(X, B @ X, G)
    assert rel(Psi, W @ B @ X) <= 1e-10
    assert np.vdot(G, Psi) == pytest.approx(np.sum(W * W), rel=1e-8, abs=1e-12)


@SETTINGS
@given(cases())
def test_euclidean_projection_is_the_frobenius_projection(case):
    B, X, G, _, rng = case
    P = gz.proj_euclidean_B(X, B @ X, G)
    for _ in range(3):  # the residual G - P is Frobenius-orthogonal to the tangent space
        xi = random_tangent(B, X, rng)
        assert abs(np.vdot(G - P, xi)) <= 1e-8 * np.linalg.norm(G) * np.linalg.norm(xi)
    assert rel(gz.proj_euclidean_B(X, B @ X, P), P) <= 1e-8  # idempotent


@SETTINGS
@given(cases())
def test_normal_term_is_the_gradient_of_a_quarter_of_the_squared_constraint(case):
    B, X, _, _, rng = case
    Z = rng.standard_normal(X.shape)
    h = 1e-7
    fd = fd_directional(lambda Y: gz.N_B(Y, B @ Y), X, Z, h)
    exact = np.vdot(gz.grad_N_B(X, B @ X), Z)
    # the difference quotient carries N_B's rounding over h: each entry of X^T B X - I is
    # off by about eps (|X|^T |B| |X|)_ij, which moves N_B = 1/4 ||X^T B X - I||^2 by
    # 1/2 |X^T B X - I|_ij times that (with B of condition 1e4 and entries near 8e3, one
    # hypothesis case missed rel = 1e-6 by 3e-7 under OPENBLAS_CORETYPE=Prescott)
    H = np.abs(X.T @ B @ X - np.eye(X.shape[1]))
    rounding = 0.5 * np.finfo(float).eps * np.sum(H * (np.abs(X).T @ np.abs(B) @ np.abs(X))) / h
    assert fd == pytest.approx(exact, rel=1e-6, abs=1e-7 * np.linalg.norm(Z) + rounding)
    assert gz.N_B(X, B @ X) == pytest.approx(
        0.25 * np.linalg.norm(X.T @ B @ X - np.eye(X.shape[1])) ** 2, rel=1e-12)


@SETTINGS
@given(cases())
def test_change_of_variables_is_the_papers_landing_in_Y(case):
    """Y = B^{1/2} X (scipy.linalg.sqrtm): B^{-1/2} grad_beta f~(Y), f~(Y) = f(B^{-1/2} Y),
    and B^{-1/2} Y h(Y) = X h_B(X)."""
    B, X, G, beta, _ = case
    Bh = np.real(scipy.linalg.sqrtm(B))
    Y = Bh @ X
    ref = np.linalg.solve(Bh, geo.grad_beta(Y, np.linalg.solve(Bh, G), beta))
    mine = gz.change_of_variables_tangent(X, B @ X, G, np.linalg.solve(B, G), beta)
    assert rel(mine, ref) <= 1e-6  # sqrtm of a condition-1e4 matrix: ~1e-8 accurate
    assert rel(np.linalg.solve(Bh, geo.nabla_N(Y)), X @ gz.h_B(X, B @ X)) <= 1e-6


def test_every_tangent_term_vanishes_at_the_optimum():
    problem = generalized_eigen(9, 3, seed=3, condition=1e3)
    _, V = scipy.linalg.eigh(problem.A, problem.B, subset_by_index=[0, 2])  # V^T B V = I
    G = problem.egrad(V)
    BX = problem.B @ V
    assert np.linalg.norm(gz.h_B(V, BX)) <= 1e-12
    for name in TANGENTS:
        assert np.linalg.norm(gz.tangent_term_B(name, V, BX, G, 0.3)) <= 1e-10, name


def test_stacks_and_sparse_B_give_the_single_results():
    rng = np.random.default_rng(1)
    B = spd(8, 1e3, 1)
    X, G = rng.standard_normal((4, 8, 3)), rng.standard_normal((4, 8, 3))
    BX = gz.apply(scipy.sparse.csr_array(B), X)
    np.testing.assert_allclose(BX, B @ X, rtol=1e-12, atol=1e-12)
    betas = np.array([0.2, 0.5, 1.0, 4.0])
    for name in TANGENTS:
        stack = gz.tangent_term_B(name, X, BX, G, betas)
        for i in range(4):
            single = gz.tangent_term_B(name, X[i], B @ X[i], G[i], float(betas[i]))
            np.testing.assert_allclose(stack[i], single, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------- the safe step


@SETTINGS
@given(cases(), st.floats(0.1, 10.0), st.sampled_from(TANGENTS))
def test_safe_step_keeps_the_B_ball_and_is_the_largest_for_its_bound(case, omega, name):
    B, X, G, beta, _ = case
    BX = B @ X
    T, V, H = gz.landing_field_B(X, BX, G, beta, omega, name)
    lam = gz.lambda_max(B)
    eps = 0.5
    eta = gz.safe_step_B(H, BX.T @ BX, omega, float(np.vdot(V, V)), lam, eps)
    assert eta > 0
    bound = max(eps, np.linalg.norm(H))
    for t in np.linspace(0.0, eta, 7)[1:]:
        Y = X - t * V
        assert np.linalg.norm(Y.T @ B @ Y - np.eye(X.shape[1])) <= bound * (1 + 1e-9)
    # the bound phi is exceeded just beyond eta (it is the largest safe step for the bound)
    C = BX.T @ BX
    L = C @ H + H @ C

    def phi(t):
        return np.linalg.norm(H - t * omega * L) + lam * np.vdot(V, V) * t * t

    assert phi(eta * (1 + 1e-6)) > bound * (1 - 1e-9)


def test_safe_step_batched_equals_single():
    rng = np.random.default_rng(0)
    B = spd(6, 1e2, 0)
    X, G = rng.standard_normal((3, 6, 2)), rng.standard_normal((3, 6, 2))
    BX = B @ X
    _, V, H = gz.landing_field_B(X, BX, G, 0.5, np.array([0.5, 1.0, 2.0]))
    g2 = np.einsum("bij,bij->b", V, V)
    lam = gz.lambda_max(B)
    batch = gz.safe_step_B(H, np.swapaxes(BX, 1, 2) @ BX, np.array([0.5, 1.0, 2.0]), g2, lam,
                           0.5, np.array([1.0, 1e-9, 1.0]))
    for i, w in enumerate((0.5, 1.0, 2.0)):
        single = gz.safe_step_B(H[i], BX[i].T @ BX[i], w, float(g2[i]), lam, 0.5,
                                [1.0, 1e-9, 1.0][i])
        assert batch[i] == pytest.approx(single, rel=1e-14)
    assert batch[1] == 1e-9  # the cap


# ----------------------------------------------------------------------------- B itself


@pytest.mark.parametrize("make", [lambda B: B, scipy.sparse.csr_array])
def test_lambda_max_bounds_the_spectrum_from_above_tightly(make):
    B = spd(40, 1e4, 2)
    top = np.linalg.eigvalsh(B)[-1]
    lam = gz.lambda_max(make(B))
    assert top <= lam <= top * (1 + 1e-6)


@pytest.mark.parametrize("make", [lambda B: B, scipy.sparse.csr_array])
def test_bad_B_is_refused_clearly(make):
    good = spd(5, 10.0, 0)
    with pytest.raises(ValueError, match="symmetric"):
        gz.check_spd(make(good + np.triu(np.ones((5, 5)), 1)))
    with pytest.raises(ValueError, match="positive definite"):
        gz.check_spd(make(good - 2.0 * np.eye(5)))
    with pytest.raises(ValueError, match="positive definite"):
        gz.check_spd(make(np.diag([1.0, 1.0, 0.0, 1.0, 1.0])))
    with pytest.raises(ValueError, match=r"shape \(4, 4\)"):
        gz.check_spd(make(good), 4)
    with pytest.raises(ValueError, match="square"):
        gz.check_spd(make(np.ones((5, 4))))
    bad = good.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        gz.check_spd(make(bad))
    assert np.allclose(np.asarray(scipy.sparse.csr_array(gz.check_spd(make(good))).todense()),
                       good)


@SETTINGS
@given(cases(), st.floats(0.1, 10.0), st.sampled_from(TANGENTS))
def test_landing_direction_B_is_its_parts(case, omega, name):
    """V, ||T|| and the stationarity measure against the separate formulas; the measure is
    the beta = 1 gradient, which is geometry.stationarity's grad_1 at B = I."""
    B, X, G, beta, _ = case
    BX = B @ X
    T, V, H = gz.landing_field_B(X, BX, G, beta, omega, name)
    norm, V2, H2, stat, C = gz.landing_direction_B(X, BX, G, beta, omega, name)
    assert rel(C, BX.T @ BX) <= 1e-12
    assert rel(V2, V) <= 1e-9 and rel(H2, H) <= 1e-12
    assert norm == pytest.approx(np.linalg.norm(T), rel=1e-6, abs=1e-9 * np.linalg.norm(V))
    assert stat == pytest.approx(np.linalg.norm(gz.grad_beta_B(X, BX, G, 1.0)), rel=1e-9)
    Xs = X / np.linalg.norm(X, 2)
    assert gz.stationarity_B(Xs, Xs, G) == pytest.approx(
        np.linalg.norm(geo.grad_beta(Xs, G, 1.0)), rel=1e-9)


# ----------------------------------------------------------------------------- lean assembly


@SETTINGS
@given(cases(), st.floats(0.1, 10.0))
def test_landing_direction_B_assembles_V_as_one_sum(case, omega):
    """The beta field forms T_1 = G M + B X K_1 M, takes its norm, then adds B X (K_beta M +
    omega H - K_1 M) in the same array: V must equal G M + B X (K_beta M + omega H) summed
    at once to rounding of the terms (not only of V, which may be small), and T_1's norm the
    norm of grad_1 formed apart."""
    B, X, G, beta, _ = case
    BX = B @ X
    M, C, A = BX.T @ X, BX.T @ BX, BX.T @ G
    S1, CA = gz._beta_blocks(M, C, A)
    Q = gz._K(S1, CA, beta) @ M + omega * (M - np.eye(len(M)))
    K1M = -S1 @ M
    GM = G @ M
    want = GM + BX @ Q
    out = gz.landing_direction_B(X, BX, G, beta, omega)
    scale = np.linalg.norm(GM) + np.linalg.norm(BX) * (np.linalg.norm(Q) + np.linalg.norm(K1M))
    assert np.linalg.norm(out.V - want) <= 1e-14 * scale
    T1 = GM + BX @ K1M
    assert abs(out.stationarity - np.linalg.norm(T1)) <= 1e-14 * scale
