"""The paper's geometry (landing_core.geometry) against independent computations.

Every reference below is built in the test from explicit n x n matrices (X M^{-1} X^T, W skew,
X_perp), scipy.linalg or finite differences; the library never forms those, so the two code paths
are independent. Shapes n <= 30, 1 <= p <= n; X = U diag(s) V^T with s spread over [0.3, 3]
(cond(M) = 100), close to 1, or exactly on St(n, p).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from landing_core import geometry as geo
from landing_core import problems

SETTINGS = settings(max_examples=50, deadline=None)
BETAS = st.floats(0.05, 20.0)
REL = 1e-10  # closed forms vs library, relative to the size of the terms


# ----------------------------------------------------------------------------- helpers


def _orth(rng: np.random.Generator, n: int, p: int) -> np.ndarray:
    Q, R = np.linalg.qr(rng.standard_normal((n, p)))
    return Q * np.sign(np.diagonal(R))


def make_point(n: int, p: int, seed: int, kind: str) -> np.ndarray:
    """X = U diag(s) V^T: 'spread' s in [0.3, 3] (both ends hit), 'well' s in [0.9, 1.1],
    'stiefel' s = 1."""
    rng = np.random.default_rng(seed)
    if kind == "stiefel":
        s = np.ones(p)
    elif kind == "well":
        s = rng.uniform(0.9, 1.1, p)
    else:
        s = rng.uniform(0.3, 3.0, p)
        s[0] = 0.3
        if p > 1:
            s[-1] = 3.0
    return (_orth(rng, n, p) * s) @ _orth(rng, p, p).T


@st.composite
def points(draw, max_n: int = 30, kinds=("spread", "well", "stiefel")):
    n = draw(st.integers(1, max_n))
    p = draw(st.integers(1, n))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(kinds))
    X = make_point(n, p, seed, kind)
    return X, np.random.default_rng(seed + 1)


def Minv(X):
    return np.linalg.inv(X.T @ X)


def P_of(X):
    """The explicit n x n orthogonal projector X M^{-1} X^T onto span(X)."""
    return X @ Minv(X) @ X.T


def skew_n(A):
    return 0.5 * (A - A.T)


def sym_n(A):
    return 0.5 * (A + A.T)


def random_skew(rng, k):
    return skew_n(rng.standard_normal((k, k)))


def random_sym(rng, k):
    return sym_n(rng.standard_normal((k, k)))


def tangent_from_W(X, rng):
    """(xi, scale): an element of the third description {W X : W skew n x n}, and the size of
    what it was computed from (for tolerances: xi may be ~0 by cancellation, e.g. n = p = 1)."""
    W = random_skew(rng, X.shape[0])
    return W @ X, np.linalg.norm(W) * np.linalg.norm(X)


def tangent_from_omega_delta(X, rng):
    """(xi, scale): an element of the second description X M^{-1} Omega + Delta, Delta^T X = 0."""
    n, p = X.shape
    R = rng.standard_normal((n, p))
    Omega = random_skew(rng, p)
    xi = X @ Minv(X) @ Omega + (np.eye(n) - P_of(X)) @ R
    kX = np.linalg.norm(X) * np.linalg.norm(Minv(X), 2)
    return xi, kX * np.linalg.norm(Omega) + np.linalg.norm(R)


def metric_explicit(X, xi, zeta, beta):
    """g^beta_X(xi, zeta) = <xi, (I - (1 - beta) X M^{-1} X^T) zeta M^{-1}> with n x n matrices."""
    n = X.shape[0]
    return float(np.trace(xi.T @ (np.eye(n) - (1 - beta) * P_of(X)) @ zeta @ Minv(X)))


def proj_explicit(X, Z):
    """Paper's eq. (proj_beta): X M^{-1} skew(X^T Z) + (I - X M^{-1} X^T) Z."""
    n = X.shape[0]
    return X @ Minv(X) @ skew_n(X.T @ Z) + (np.eye(n) - P_of(X)) @ Z


def nabla_explicit(X, G, beta):
    n = X.shape[0]
    return (np.eye(n) + (1 - beta) / beta * P_of(X)) @ G @ (X.T @ X)


def grad_closed_explicit(X, G, beta):
    """Paper's closed form of grad_beta f (Proposition, last display)."""
    M = X.T @ X
    c = 1 / (2 * beta)
    return G @ M - c * X @ G.T @ X + (c - 1) * P_of(X) @ G @ M


def tangent_defect(X, xi, scale):
    """||xi^T X + X^T xi|| relative to scale ||X||, scale = the size of what xi came from."""
    return np.linalg.norm(xi.T @ X + X.T @ xi) / (scale * np.linalg.norm(X) + 1e-300)


def assert_close(A, B, *, scale, rel=REL):
    """||A - B||_F <= rel * scale, scale = the size of the inputs (not of A, B: they may cancel)."""
    err = np.linalg.norm(np.asarray(A, dtype=float) - np.asarray(B, dtype=float))
    assert err <= rel * scale + 1e-300, (err, scale)


def vec_basis(n, p):
    """The standard basis E_ij of R^{n x p}."""
    return np.eye(n * p).reshape(n * p, n, p)


# ----------------------------------------------------------------------------- tangent space


@SETTINGS
@given(points())
def test_three_descriptions_of_the_tangent_space_agree(pt):
    X, rng = pt
    n, p = X.shape
    M_inv, P = Minv(X), P_of(X)
    kX = np.linalg.norm(X) * np.linalg.norm(M_inv, 2)  # ||X|| ||M^{-1}||: sizes of M^{-1} X^T
    for xi, sc in (tangent_from_W(X, rng), tangent_from_omega_delta(X, rng)):
        # description 1: xi^T X + X^T xi = 0
        assert tangent_defect(X, xi, sc) <= 1e-12
        # description 2: Omega = X^T xi is skew, Delta = (I - P) xi has Delta^T X = 0, and
        # X M^{-1} Omega + Delta reproduces xi
        Omega = X.T @ xi
        assert_close(Omega, -Omega.T, rel=1e-12, scale=sc * np.linalg.norm(X))
        Delta = (np.eye(n) - P) @ xi
        s2 = sc * (1 + kX * np.linalg.norm(X))
        assert_close(Delta.T @ X, 0, rel=1e-12, scale=s2 * np.linalg.norm(X))
        assert_close(X @ M_inv @ Omega + Delta, xi, rel=1e-12, scale=s2)
        # description 3: W = xi M^{-1} X^T - X M^{-1} xi^T - X M^{-1} Omega M^{-1} X^T is skew
        # and W X = xi
        W = xi @ M_inv @ X.T - X @ M_inv @ xi.T - X @ M_inv @ Omega @ M_inv @ X.T
        sW = sc * kX * (2 + kX * np.linalg.norm(X))
        assert_close(W, -W.T, rel=1e-12, scale=sW)
        assert_close(W @ X, xi, rel=1e-12, scale=sW * np.linalg.norm(X))


def _skew_basis(k):
    e = np.eye(k)
    return [np.outer(e[i], e[j]) - np.outer(e[j], e[i]) for i in range(k) for j in range(i + 1, k)]


def _sym_basis(k):
    e = np.eye(k)
    return [np.outer(e[i], e[j]) + np.outer(e[j], e[i]) for i in range(k) for j in range(i, k)]


def _tangent_basis(X):
    """A basis of {xi : xi^T X + X^T xi = 0} (description 1), as an array (dim, n, p)."""
    n, p = X.shape
    L = np.array([(e.T @ X + X.T @ e).ravel() for e in vec_basis(n, p)]).T
    return scipy.linalg.null_space(L).T.reshape(-1, n, p)


@settings(max_examples=25, deadline=None)
@given(points(max_n=6, kinds=("spread", "well")))
def test_tangent_space_dimension_and_equal_spans(pt):
    X, _ = pt
    n, p = X.shape
    dim = n * p - p * (p + 1) // 2
    E = vec_basis(n, p)
    S1 = _tangent_basis(X).reshape(-1, n * p)
    # description 2: X M^{-1} Omega_k and (I - P) E_ij
    S2 = [X @ Minv(X) @ Om for Om in _skew_basis(p)] + [(np.eye(n) - P_of(X)) @ e for e in E]
    S2 = np.array(S2).reshape(-1, n * p)
    # description 3: (E_ij - E_ji) X
    S3 = np.array([B @ X for B in _skew_basis(n)]).reshape(-1, n * p)
    for S in (S1, S2, S3):
        assert (np.linalg.matrix_rank(S, tol=1e-9) if S.size else 0) == dim
    assert np.linalg.matrix_rank(np.vstack([S1, S2, S3]), tol=1e-9) == dim


# ----------------------------------------------------------------------------- normal space


@SETTINGS
@given(points(), BETAS)
def test_normal_space_is_beta_orthogonal_to_tangent_vectors(pt, beta):
    X, rng = pt
    p = X.shape[1]
    for _ in range(2):
        S = random_sym(rng, p)
        N = X @ Minv(X) @ S
        for xi, sc in (tangent_from_W(X, rng), tangent_from_omega_delta(X, rng)):
            for b in (beta, 0.05, 1.0, 20.0):
                g = metric_explicit(X, N, xi, b)
                scale = np.linalg.norm(N) * sc * np.linalg.norm(Minv(X), 2) * max(1, b)
                assert abs(g) <= 1e-11 * scale


@settings(max_examples=25, deadline=None)
@given(points(max_n=6, kinds=("spread", "well")), BETAS)
def test_normal_space_computed_from_the_metric_is_independent_of_beta(pt, beta):
    """The g^beta-orthogonal complement of T_X, computed from the explicit Gram matrix of g^beta,
    is span{X M^{-1} S : S symmetric} (dimension p(p+1)/2) for every beta."""
    X, _ = pt
    n, p = X.shape
    E = vec_basis(n, p)
    T = _tangent_basis(X)
    if T.shape[0] == 0:  # n = p = 1: T_X = {0}, everything is normal
        Nb = np.eye(n * p)
    else:  # U -> g^beta(U, t_k) for each tangent basis vector t_k, as a matrix acting on vec(U)
        Gmat = np.array([[metric_explicit(X, e, t, beta) for e in E] for t in T])
        Nb = scipy.linalg.null_space(Gmat).T
    assert Nb.shape[0] == p * (p + 1) // 2
    Npaper = np.array([(X @ Minv(X) @ S).ravel() for S in _sym_basis(p)])
    assert np.linalg.matrix_rank(np.vstack([Nb, Npaper]), tol=1e-9) == p * (p + 1) // 2


# ----------------------------------------------------------------------------- projection


@SETTINGS
@given(points(), BETAS)
def test_proj_tangent(pt, beta):
    X, rng = pt
    n, p = X.shape
    Z = rng.standard_normal((n, p))
    sZ = np.linalg.norm(Z)
    P = geo.proj_tangent(X, Z)
    assert_close(P, proj_explicit(X, Z), scale=sZ)  # the paper's formula, explicit matrices
    assert tangent_defect(X, P, sZ) <= 1e-11  # lands in T_X
    assert_close(geo.proj_tangent(X, P), P, scale=sZ)  # idempotent
    xi, sc = tangent_from_W(X, rng)
    assert_close(geo.proj_tangent(X, xi), xi, scale=sc)  # identity on tangent vectors
    for b in (beta, 0.05, 0.5, 1.0, 20.0):  # g^beta(xi, Z - Proj Z) = 0 for every beta
        scale = sc * sZ * np.linalg.norm(Minv(X), 2) * max(1, b)
        assert abs(metric_explicit(X, xi, Z - P, b)) <= 1e-11 * scale


# ----------------------------------------------------------------------------- metric


@SETTINGS
@given(points(), BETAS)
def test_beta_metric_explicit_formula_and_proposition(pt, beta):
    X, rng = pt
    n, p = X.shape
    xi, zeta = rng.standard_normal((2, n, p))
    g = float(geo.beta_metric(X, xi, zeta, beta))
    scale = np.linalg.norm(xi) * np.linalg.norm(zeta) * np.linalg.norm(Minv(X), 2) * max(1, beta)
    assert abs(g - metric_explicit(X, xi, zeta, beta)) <= 1e-11 * scale
    # Proposition: X_perp any basis of span(X)^perp (here deliberately not orthonormal)
    M = X.T @ X
    if n > p:
        mix = np.eye(n - p) + 0.5 * rng.standard_normal((n - p, n - p))
        Xp = scipy.linalg.null_space(X.T) @ mix
    else:
        Xp = np.zeros((n, 0))
    basis = np.hstack([X, Xp])
    Axi, Bxi = np.split(np.linalg.solve(basis, xi), [p])
    Aze, Bze = np.split(np.linalg.solve(basis, zeta), [p])
    prop = (beta * np.trace(Axi.T @ M @ Aze @ np.linalg.inv(M))
            + np.trace(Bxi.T @ Xp.T @ Xp @ Bze @ np.linalg.inv(M)))
    assert abs(g - prop) <= 1e-9 * scale * np.linalg.cond(basis)
    # symmetric and positive
    assert abs(g - float(geo.beta_metric(X, zeta, xi, beta))) <= 1e-12 * scale
    assert float(geo.beta_metric(X, xi, xi, beta)) > 0
    # on St(n, p), with xi = Q Omega + Q_perp B tangent, it is the beta-metric
    # beta |Omega|^2 + |B|^2 of section 3
    Q = scipy.linalg.polar(X)[0]
    Om = random_skew(rng, p)
    Bq = rng.standard_normal((n - p, p))
    Qp = scipy.linalg.null_space(Q.T) if n > p else np.zeros((n, 0))
    t = Q @ Om + Qp @ Bq
    expected = beta * np.sum(Om**2) + np.sum(Bq**2)
    assert abs(float(geo.beta_metric(Q, t, t, beta)) - expected) <= 1e-10 * max(expected, 1)


@settings(max_examples=20, deadline=None)
@given(points(max_n=5, kinds=("spread", "well")), BETAS)
def test_beta_metric_gram_matrix_is_symmetric_positive_definite(pt, beta):
    X, _ = pt
    n, p = X.shape
    E = vec_basis(n, p)
    k = n * p
    stack_X = np.broadcast_to(X, (k, k, n, p))
    Gm = geo.beta_metric(stack_X, E[:, None], E[None, :], beta)
    assert Gm.shape == (k, k)
    scale = np.linalg.norm(Minv(X), 2) * max(1, beta)
    assert_close(Gm, Gm.T, rel=1e-12, scale=scale)
    explicit = np.array([[metric_explicit(X, a, b, beta) for b in E] for a in E])
    assert_close(Gm, explicit, rel=1e-11, scale=scale)
    assert np.linalg.eigvalsh(sym_n(Gm)).min() > 0


# ----------------------------------------------------------------------------- gradients

PROBLEM_NAMES = st.sampled_from(["brockett", "procrustes", "pca", "linear", "quartic"])


def fd_directional(cost, X, Z, t=1e-5):
    """Central difference of f along Z."""
    return (float(cost(X + t * Z)) - float(cost(X - t * Z))) / (2 * t)


@SETTINGS
@given(points(max_n=12, kinds=("spread", "well", "stiefel")), BETAS, PROBLEM_NAMES)
def test_nabla_beta_is_the_gradient_in_the_beta_metric(pt, beta, name):
    X, rng = pt
    n, p = X.shape
    prob = problems.make_problem(name, n, p, seed=3)
    G = prob.egrad(X)
    sG = np.linalg.norm(G) * np.linalg.norm(X) ** 2 * max(1, 1 / beta)
    nab = geo.nabla_beta(X, G, beta)
    assert_close(nab, nabla_explicit(X, G, beta), scale=sG)
    for Z, sZ in ((rng.standard_normal((n, p)), None), tangent_from_W(X, rng)):
        sZ = np.linalg.norm(Z) if sZ is None else sZ
        Df = fd_directional(prob.cost, X, Z)
        lhs = metric_explicit(X, Z, nab, beta)
        assert abs(lhs - Df) <= 1e-6 * (abs(Df) + np.linalg.norm(G) * sZ)
        # the Riesz identity itself holds to rounding: g^beta(nabla, Z) = <G, Z>
        tol = 1e-11 * np.linalg.norm(G) * sZ * np.linalg.cond(X.T @ X) * max(1, 1 / beta)
        assert abs(lhs - np.sum(G * Z)) <= tol
    # the constrained gradient represents Df on tangent vectors: g^beta(grad, xi) = Df[xi]
    gr = geo.grad_beta(X, G, beta)
    xi, sxi = tangent_from_omega_delta(X, rng)
    Df = fd_directional(prob.cost, X, xi)
    assert abs(metric_explicit(X, xi, gr, beta) - Df) <= 1e-6 * (abs(Df) + np.linalg.norm(G) * sxi)


@SETTINGS
@given(points(), BETAS)
def test_grad_beta_is_projected_nabla_and_equals_the_closed_form(pt, beta):
    X, rng = pt
    n, p = X.shape
    G = rng.standard_normal((n, p))
    gr = geo.grad_beta(X, G, beta)
    closed = grad_closed_explicit(X, G, beta)
    scale = np.linalg.norm(G) * np.linalg.norm(X.T @ X) * max(1, 1 / beta)
    assert_close(gr, closed, scale=scale)
    assert_close(gr, proj_explicit(X, nabla_explicit(X, G, beta)), scale=scale)
    assert_close(geo.proj_tangent(X, geo.nabla_beta(X, G, beta)), gr, scale=scale)
    assert tangent_defect(X, gr, scale) <= 1e-11


@SETTINGS
@given(points())
def test_beta_one_half_is_twice_the_relative_gradient(pt):
    X, rng = pt
    n, p = X.shape
    G = rng.standard_normal((n, p))
    canon = 2 * skew_n(G @ X.T) @ X  # explicit n x n
    scale = np.linalg.norm(G) * np.linalg.norm(X) ** 2
    assert_close(geo.grad_beta(X, G, 0.5), canon, scale=scale)
    assert_close(geo.relative_gradient(X, G), skew_n(G @ X.T) @ X, scale=scale)
    assert_close(geo.relative_gradient(X, G), 0.5 * geo.grad_beta(X, G, 0.5), scale=scale)


@SETTINGS
@given(points(kinds=("stiefel",)))
def test_beta_one_on_stiefel_is_the_embedded_riemannian_gradient(pt):
    X, rng = pt
    n, p = X.shape
    G = rng.standard_normal((n, p))
    expected = G - X @ sym_n(X.T @ G)
    assert_close(geo.grad_beta(X, G, 1.0), expected, scale=np.linalg.norm(G))
    assert_close(geo.riemannian_gradient_stiefel(X, G), expected, scale=np.linalg.norm(G))


# ----------------------------------------------------------------------------- Frobenius proj.


@SETTINGS
@given(points())
def test_proj_euclidean(pt):
    X, rng = pt
    n, p = X.shape
    Z = rng.standard_normal((n, p))
    sZ = np.linalg.norm(Z) * np.linalg.cond(X)
    P = geo.proj_euclidean(X, Z)
    assert tangent_defect(X, P, sZ) <= 1e-11
    assert_close(geo.proj_euclidean(X, P), P, scale=sZ)
    xi, sc = tangent_from_W(X, rng)
    assert abs(np.sum(xi * (Z - P))) <= 1e-11 * sc * sZ
    # Z - P(Z) = X S with S the symmetric solution of M S + S M = X^T Z + Z^T X (scipy)
    M = X.T @ X
    S_ref = scipy.linalg.solve_continuous_lyapunov(M, X.T @ Z + Z.T @ X)
    S = np.linalg.lstsq(X, Z - P, rcond=None)[0]
    sS = np.linalg.norm(X.T @ Z) * np.linalg.norm(Minv(X), 2) * np.linalg.cond(M)
    assert_close(S, S_ref, scale=sS)
    assert_close(S, S.T, scale=sS)
    assert_close(P, Z - X @ S_ref, scale=sZ)


# ----------------------------------------------------------------------------- infeasibility


@SETTINGS
@given(points(max_n=8))
def test_h_N_infeasibility_and_nabla_N_is_half_the_gradient(pt):
    X, _ = pt
    n, p = X.shape
    H = X.T @ X - np.eye(p)
    size = 1 + np.linalg.norm(X) ** 2
    assert_close(geo.h(X), H, rel=1e-14, scale=size)
    assert abs(float(geo.N(X)) - 0.5 * np.sum(H**2)) <= 1e-13 * size**2
    # infeasibility is ||h||_F, as the solvers report it (sqrt(2 N))
    assert abs(float(geo.infeasibility(X)) - np.linalg.norm(H, "fro")) <= 1e-13 * size
    # the finite-difference gradient of N = 1/2 ||h||^2 is 2 X (X^T X - I): the paper's normal
    # field nabla_N = X (X^T X - I) is HALF of it
    t = 1e-6
    fd = np.array([(geo.N(X + t * e) - geo.N(X - t * e)) / (2 * t)
                   for e in vec_basis(n, p)]).reshape(n, p)
    ig = geo.nabla_N(X)
    assert_close(ig, X @ H, rel=1e-13, scale=size ** 1.5)
    assert_close(2 * ig, fd, rel=1e-6, scale=size ** 1.5)


def test_nabla_N_factor_pinned_on_a_worked_example():
    """x = 2 (n = p = 1): N = 1/2 (x^2 - 1)^2 = 4.5, N'(x) = 2 x (x^2 - 1) = 12, field = 6,
    infeasibility |x^2 - 1| = 3."""
    X = np.array([[2.0]])
    assert float(geo.N(X)) == 4.5
    assert float(geo.infeasibility(X)) == 3.0
    fd = (geo.N(X + 1e-6) - geo.N(X - 1e-6)) / 2e-6
    assert abs(float(fd) - 12.0) < 1e-6
    assert float(geo.nabla_N(X)[0, 0]) == 6.0
    # and on a stack of random points the ratio is exactly 1/2 along every direction
    rng = np.random.default_rng(0)
    Xs = np.stack([make_point(6, 3, s, "spread") for s in range(4)])
    Z = rng.standard_normal(Xs.shape)
    t = 1e-6
    dN = (geo.N(Xs + t * Z) - geo.N(Xs - t * Z)) / (2 * t)
    ratio = np.einsum("kij,kij->k", geo.nabla_N(Xs), Z) / dN
    np.testing.assert_allclose(ratio, 0.5, rtol=1e-6)


# ----------------------------------------------------------------------------- batching


def _looped(fn, stacks, per_run=()):
    """fn applied to each run of the leading axes, with per-run parameters indexed too."""
    lead = stacks[0].shape[:-2]
    out = np.empty(lead, dtype=object)
    for idx in np.ndindex(*lead):
        args = [S[idx] for S in stacks] + [np.asarray(v)[idx] for v in per_run]
        out[idx] = fn(*args)
    return out


@pytest.mark.parametrize("lead", [(3,), (2, 3)])
@pytest.mark.parametrize("shape", [(7, 3), (4, 4), (5, 1)])
def test_batched_equals_looped_for_every_public_function(lead, shape):
    rng = np.random.default_rng([len(lead), *shape])
    n, p = shape
    X = np.stack([make_point(n, p, int(s), "spread")
                  for s in rng.integers(0, 2**31, np.prod(lead))]).reshape(*lead, n, p)
    Z, G, W = rng.standard_normal((3, *lead, n, p))
    beta = rng.uniform(0.05, 20, lead)
    omega = rng.uniform(0.1, 10, lead)

    def check(fn, stacks, per_run=()):
        batched = fn(*stacks, *per_run)
        looped = _looped(fn, stacks, per_run)
        for idx in np.ndindex(*lead):
            if isinstance(looped[idx], tuple):  # landing_field's (T, V, H)
                for got, ref in zip(batched, looped[idx], strict=True):
                    np.testing.assert_allclose(got[idx], ref, rtol=1e-12, atol=1e-12)
            else:
                np.testing.assert_allclose(batched[idx], looped[idx], rtol=1e-12, atol=1e-12)

    check(geo.gram, [X])
    check(geo.h, [X])
    check(geo.sym, [Z[..., :p, :p]])
    check(geo.skew, [Z[..., :p, :p]])
    check(geo.N, [X])
    check(geo.infeasibility, [X])
    check(geo.nabla_N, [X])
    check(geo.beta_metric, [X, Z, W], [beta])
    check(geo.proj_tangent, [X, Z])
    check(geo.nabla_beta, [X, G], [beta])
    check(geo.grad_beta, [X, G], [beta])
    check(geo.proj_euclidean, [X, Z])
    check(geo.relative_gradient, [X, G])
    check(geo.riemannian_gradient_stiefel, [X, G])
    for name in geo.TANGENT_TERMS:
        check(geo.tangent_term(name), [X, G], [beta])
        check(lambda X_, G_, b, o, name=name: geo.landing_field(X_, G_, b, o, name),
              [X, G], [beta, omega])
    # scalar beta on a stack too
    check(lambda X_, G_: geo.grad_beta(X_, G_, 2.0), [X, G])


# ----------------------------------------------------------------------------- landing field


@SETTINGS
@given(points(), BETAS, st.floats(0.01, 100.0), st.sampled_from(sorted(geo.TANGENT_TERMS)))
def test_landing_field_parts(pt, beta, omega, tangent):
    X, rng = pt
    n, p = X.shape
    G = rng.standard_normal((n, p))
    T, V, H = geo.landing_field(X, G, beta, omega, tangent)
    expected_T = {"beta": grad_closed_explicit(X, G, beta),
                  "euclidean": geo.proj_euclidean(X, G),
                  "relative": skew_n(G @ X.T) @ X}[tangent]
    scale = np.linalg.norm(G) * max(1, np.linalg.norm(X) ** 2) * max(1, 1 / beta)
    assert_close(T, expected_T, scale=scale * np.linalg.cond(X))
    assert_close(H, X.T @ X - np.eye(p), rel=1e-14, scale=1 + np.linalg.norm(X) ** 2)
    assert_close(V, T + omega * X @ (X.T @ X - np.eye(p)), rel=1e-12,
                 scale=scale + omega * (1 + np.linalg.norm(X) ** 3))
    assert tangent_defect(X, T, scale * np.linalg.cond(X)) <= 1e-11  # every tangent term is tangent


@SETTINGS
@given(points(), BETAS, st.floats(0.01, 100.0), st.sampled_from(sorted(geo.TANGENT_TERMS)),
       st.sampled_from(["random", "normal-dominated", "critical"]))
def test_landing_direction_matches_the_explicit_field(pt, beta, omega, tangent, kind):
    """V equals landing_field's; ||T|| equals the norm of the explicit T to ~1e-10 relative,
    also where the identity ||V||^2 - omega^2 ||X H||^2 would cancel (T tiny against X H)."""
    X, rng = pt
    n, p = X.shape
    G = rng.standard_normal((n, p))
    if kind != "random":  # G = X S, S symmetric: grad_beta = 0 exactly (beta-metric)
        S = rng.standard_normal((p, p))
        G = X @ (S + S.T) + (1e-7 * G if kind == "normal-dominated" else 0.0)
    T, V_ref, _ = geo.landing_field(X, G, beta, omega, tangent)
    norm, V, H, stat = geo.landing_direction(X, G, beta, omega, tangent)
    scale = np.linalg.norm(G) * max(1, np.linalg.norm(X) ** 2) * max(1, 1 / beta)
    assert_close(V, V_ref, rel=1e-12, scale=scale + omega * (1 + np.linalg.norm(X) ** 3))
    assert_close(H, X.T @ X - np.eye(p), rel=1e-14, scale=1 + np.linalg.norm(X) ** 2)
    exact = np.linalg.norm(T)
    assert abs(norm - exact) <= 1e-10 * exact + 1e-13 * scale * np.linalg.cond(X)
    # the stationarity measure, whatever the tangent term: ||grad_1 f(X)|| from the explicit formula
    grad_1 = G @ X.T @ X - 0.5 * X @ G.T @ X - 0.5 * X @ np.linalg.solve(X.T @ X, X.T @ G @ X.T @ X)
    assert abs(stat - np.linalg.norm(grad_1)) <= 1e-12 * scale * np.linalg.cond(X)


def test_landing_field_and_direction_share_one_order():
    """Both return (tangent part, V, H): the tangent term or its norm first, then the field and
    h(X), with the same names for the shared parts."""
    X = make_point(6, 2, 1, "spread")
    G = np.random.default_rng(1).standard_normal((6, 2))
    field = geo.landing_field(X, G, 0.3, 2.0, "relative")
    direction = geo.landing_direction(X, G, 0.3, 2.0, "relative")
    assert field._fields == ("T", "V", "H")
    assert direction._fields == ("tangent_norm", "V", "H", "stationarity")
    np.testing.assert_array_equal(direction.V, field.V)
    np.testing.assert_array_equal(direction.H, field.H)
    assert direction.tangent_norm == pytest.approx(np.linalg.norm(field.T), rel=1e-14)


def test_landing_direction_of_one_run_takes_any_scalar_parameters():
    """One run (2-D X) with beta and omega as Python floats, numpy scalars, 0-d or one-element
    arrays: the same one-run arithmetic, so the same values bit for bit."""
    X = make_point(7, 3, 1, "spread")
    G = np.random.default_rng(8).standard_normal((7, 3))
    for beta, omega in ((0.5, 1.0), (0.3, 2.0), (0.02, 0.0)):
        ref = geo.landing_direction(X, G, beta, omega)
        for b, w in ((np.float64(beta), np.float64(omega)), (np.array(beta), np.array(omega)),
                     (np.array([beta]), np.array([omega]))):
            out = geo.landing_direction(X, G, b, w)
            assert out.tangent_norm == ref.tangent_norm and out.stationarity == ref.stationarity
            np.testing.assert_array_equal(out.V, ref.V)
            np.testing.assert_array_equal(out.H, ref.H)


def test_landing_direction_batched_equals_looped():
    """The stacked call (matmul on n x p x p stacks) and four single calls (2-D gemm) are
    different BLAS call shapes, so they agree to rounding, not bit for bit: every quantity is a
    few products of X, G and a p x p solve with M = X^T X, whose error is at most about
    (n + p) eps kappa(M) (||G|| ||X||^2 (1 + 1/(2 beta)) + omega ||X|| ||H||) (Higham, Accuracy
    and Stability, 3.5 and 7.1); compared with 16 times that. Absolute, as run 1's tangent
    term and stationarity are at rounding level (the exact path)."""
    rng = np.random.default_rng(3)
    X = np.stack([make_point(7, 3, s, "spread") for s in range(4)])
    S = rng.standard_normal((4, 3, 3))
    G = rng.standard_normal((4, 7, 3))
    G[1] = X[1] @ (S[1] + S[1].T)  # one run whose tangent term vanishes (the exact path)
    beta, omega = np.array([0.1, 0.5, 2.0, 9.0]), np.array([1.0, 3.0, 0.5, 10.0])
    norm, V, H, stat = geo.landing_direction(X, G, beta, omega)
    errs = []
    for i in range(4):
        ni, Vi, Hi, si = geo.landing_direction(X[i], G[i], beta[i], omega[i])
        sv = np.linalg.svd(X[i], compute_uv=False)
        scale = (np.linalg.norm(G[i]) * sv[0] ** 2 * (1 + 0.5 / beta[i])
                 + omega[i] * sv[0] * np.linalg.norm(Hi))
        err = 16 * (7 + 3) * np.finfo(float).eps * (sv[0] / sv[-1]) ** 2 * scale
        errs.append(err)
        np.testing.assert_allclose(V[i], Vi, rtol=0, atol=err)
        np.testing.assert_allclose(H[i], Hi, rtol=0, atol=err)
        assert abs(norm[i] - ni) <= err and abs(stat[i] - si) <= err
        assert si == pytest.approx(geo.stationarity(X[i], G[i]), rel=0, abs=err)
    assert norm[1] <= errs[1] < 1e-6 * norm.max()


def test_unknown_tangent_term_and_rank_deficient_point_raise():
    X = make_point(5, 2, 0, "well")
    with pytest.raises(ValueError, match="unknown tangent term 'foo'"):
        geo.tangent_term("foo")
    with pytest.raises(ValueError, match="unknown tangent term"):
        geo.landing_field(X, X, 0.5, 1.0, "foo")
    X_bad = np.zeros((5, 2))
    X_bad[0, :] = 1.0  # rank 1
    with pytest.raises(np.linalg.LinAlgError, match="rank-deficient"):
        geo.proj_tangent(X_bad, X)
    with pytest.raises(np.linalg.LinAlgError, match="rank-deficient"):
        geo.proj_euclidean(X_bad, X)


# ----------------------------------------------------------------------------- stationarity


def _embedded_gradient_at_polar(problem, X):
    """||grad f(Q)||_F in the embedded metric at Q = polar(X), with scipy's polar factor."""
    Q, _ = scipy.linalg.polar(X)
    G = problem.egrad(Q)
    return np.linalg.norm(G - Q @ (0.5 * (Q.T @ G + G.T @ Q)))


@SETTINGS
@given(points(kinds=("stiefel",)))
def test_stationarity_is_the_embedded_riemannian_gradient_on_the_manifold(pt):
    X, rng = pt
    G = rng.standard_normal(X.shape)
    expected = np.linalg.norm(G - X @ (0.5 * (X.T @ G + G.T @ X)))
    # three formulas, a few products of X (||X||_2 = 1) and G each: n eps ||G|| apart
    err = 16 * X.shape[0] * np.finfo(float).eps * np.linalg.norm(G)
    assert geo.stationarity(X, G) == pytest.approx(expected, rel=0, abs=err)
    assert geo.stationarity(X, G) == pytest.approx(np.linalg.norm(geo.grad_beta(X, G, 1.0)),
                                                   rel=0, abs=err)


# n <= 16: L comes from the (np x np) Jacobian's SVD, which at n = p = 30 took most of a
# second per example; the bound holds for every n and the slack for rounding is 1e-12 relative
@SETTINGS
@given(points(max_n=16, kinds=("spread", "well")), st.sampled_from(["brockett", "linear", "pca"]))
def test_stationarity_is_within_its_bound_of_the_gradient_at_the_polar_factor(pt, name):
    """| ||grad_1 f(X)|| - ||grad f(Q)|| | <= (L + (5/2 + d/4) ||G(X)||) d, Q = polar(X),
    d = ||h(X)||_F, L the Lipschitz constant of the Euclidean gradient (the docstring's bound),
    with grad f(Q) computed independently (scipy's polar factor)."""
    X, rng = pt
    n, p = X.shape
    problem = problems.make_problem(name, n, p, seed=int(rng.integers(100)))
    d = np.linalg.norm(X.T @ X - np.eye(p))
    G = problem.egrad(X)
    # the gradients are linear in X: L is the operator norm of X -> G(X) - G(0)
    basis = np.eye(n * p).reshape(n * p, n, p)
    jac = np.stack([(problem.egrad(E) - problem.egrad(0 * E)).ravel() for E in basis], axis=1)
    L = np.linalg.norm(jac, 2)
    gap = abs(geo.stationarity(X, G) - _embedded_gradient_at_polar(problem, X))
    assert gap <= (L + (2.5 + d / 4) * np.linalg.norm(G)) * d * (1 + 1e-12) + 1e-12 * L


def test_stationarity_does_not_depend_on_the_tangent_term_or_beta():
    """The measure every method reports: one number at X whatever beta and tangent term (the
    tangent terms' own norms differ by the factor 1/beta in the rotation block)."""
    X = make_point(6, 3, 2, "spread")
    G = np.random.default_rng(2).standard_normal((6, 3))
    values = [geo.landing_direction(X, G, beta, 1.0, tangent).stationarity
              for beta in (0.02, 0.5, 50.0) for tangent in sorted(geo.TANGENT_TERMS)]
    np.testing.assert_allclose(values, geo.stationarity(X, G), rtol=1e-13)
    norms = [geo.landing_direction(X, G, beta, 1.0).tangent_norm for beta in (0.02, 50.0)]
    assert norms[0] > 5 * norms[1]  # the tangent term's norm would not be one measure
