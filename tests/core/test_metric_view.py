"""The Metric view's numbers (landing_core.metric_view) against landing_core.geometry and steps.

The slice's metric matrix is built from the proposition on g^beta in the basis [X X_perp]; here
it is compared with ``geometry.beta_metric`` (eq. (beta_metric), a different formula) on the
slice's axes, its gradient with ``geometry.grad_beta`` (eq. (grad_beta)), its Frobenius
coordinates with ``geometry.proj_euclidean`` and, for St(3, 2), with an explicit n x n
projector. The quartic is compared with ||h(X - eta V)||^2 evaluated directly, its safe bound
with what the Safe rule of ``steps`` returns. X ranges over full-rank matrices off the manifold
(singular values in [0.3, 2], cond(M) <= 45), beta is log-uniform on [1e-2, 1e2], G a problem's
gradient or a random matrix, scaled over six decades.

Tolerances: a relative 1e-12 times the size of the terms a result is computed from; every solve
with M = X^T X multiplies rounding by up to cond(M), hence the factor cond(M).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from landing_core import geometry as geo
from landing_core import metric_view as mv
from landing_core import problems, steps

SETTINGS = settings(max_examples=60, deadline=None)
REL = 1e-12


def _orth(rng: np.random.Generator, n: int, p: int) -> np.ndarray:
    Q, R = np.linalg.qr(rng.standard_normal((n, p)))
    return Q * np.sign(np.diagonal(R))


@st.composite
def iterates(draw, max_n: int = 8, min_n: int = 1, sizes=None, s_range=(0.3, 2.0)):
    """(X, G, rng): X = U diag(s) V^T with s drawn in s_range; G a problem's Euclidean gradient
    at X or a random matrix, times 10^k, k in [-3, 3]."""
    if sizes is None:
        n = draw(st.integers(min_n, max_n))
        p = draw(st.integers(1, n))
    else:
        n, p = draw(st.sampled_from(sizes))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    s = np.array([draw(st.floats(*s_range)) for _ in range(p)])
    X = (_orth(rng, n, p) * s) @ _orth(rng, p, p).T
    name = draw(st.sampled_from(["random", "brockett", "pca", "procrustes", "quartic"]))
    G = (rng.standard_normal((n, p)) if name == "random"
         else problems.make_problem(name, n, p, seed=seed % 1000).egrad(X))
    return X, G * 10.0 ** draw(st.floats(-3, 3)), rng


BETAS = st.floats(-2.0, 2.0).map(lambda e: 10.0**e)


def _sizes(X: np.ndarray) -> tuple[float, float, float]:
    """(||M||_2, ||M^{-1}||_2, cond(M))."""
    sv = np.linalg.svd(X, compute_uv=False)
    return sv[0] ** 2, sv[-1] ** -2, (sv[0] / sv[-1]) ** 2


def _err(A, B) -> float:
    return float(np.linalg.norm(np.asarray(A, dtype=float) - np.asarray(B, dtype=float)))


@SETTINGS
@given(iterates(), BETAS)
def test_slice_coordinates_match_geometry(it, beta):
    X, G, _ = it
    n, p = X.shape
    S = mv.metric_slice(X, G, beta)
    E, k = S.axes, len(S.axes)
    nM, nMinv, cond = _sizes(X)
    dim = n * p - p * (p + 1) // 2
    assert k == min(3, dim) and S.full == (k == dim)
    # Frobenius-orthonormal tangent vectors
    assert _err(np.einsum("iab,jab->ij", E, E), np.eye(k)) <= REL * cond
    for e in E:
        assert _err(X.T @ e + e.T @ X, 0) <= REL * cond * math.sqrt(nM)
    # the metric's matrix: g^beta(E_i, E_j) of eq. (beta_metric)
    K = np.array([[geo.beta_metric(X, a, b, beta) for b in E] for a in E]).reshape(k, k)
    assert _err(S.metric, K) <= REL * max(1.0, beta) * nMinv * cond
    assert _err(S.metric, mv.slice_metric(S.turn_metric, S.span_metric, beta)) == 0
    if k == 0:
        return
    # grad_beta f lies in the slice, and its coordinates are K^{-1} c_E
    gb = geo.grad_beta(X, G, beta)
    scale_g = np.linalg.norm(G) * nM * max(1.0, 1.0 / beta) * cond
    assert _err(S.grad, np.einsum("iab,ab->i", E, gb)) <= REL * scale_g
    assert _err(np.einsum("i,iab->ab", S.grad, E), gb) <= REL * scale_g
    # the Frobenius projection's coordinates, and its part outside the slice
    PG = geo.proj_euclidean(X, G)
    scale_e = np.linalg.norm(G) * cond
    assert _err(S.frobenius, np.einsum("iab,ab->i", E, PG)) <= REL * scale_e
    outside = _err(PG, np.einsum("i,iab->ab", S.frobenius, E))
    assert abs(S.residual - outside) <= REL * scale_e
    if p <= 2:  # the turn block is one-dimensional: P^E G lies in the slice
        assert S.residual <= REL * scale_e
    # the tangent point: on the unit ball of g^beta, where df is largest
    if S.level > REL * scale_g:
        assert abs(S.touch @ S.metric @ S.touch - 1.0) <= REL * cond * max(beta, 1 / beta)
        norm2 = geo.beta_metric(X, gb, gb, beta)
        assert abs(S.level**2 - norm2) <= REL * scale_g * np.linalg.norm(G)
        radii, V = mv.ball_axes(S.metric)
        for c in np.random.default_rng(1).standard_normal((20, k)):
            on_ball = c / math.sqrt(c @ S.metric @ c)
            assert S.frobenius @ on_ball <= S.level * (1 + REL * cond)
        assert _err((V * radii**-2) @ V.T, S.metric) <= REL * _err(S.metric, 0) * cond


@SETTINGS
@given(iterates(sizes=[(3, 2)]), BETAS)
def test_st32_slice_is_the_tangent_space_in_turn_and_column_coordinates(it, beta):
    X, G, rng = it
    S = mv.metric_slice(X, G, beta)
    M = X.T @ X
    Minv = np.linalg.inv(M)
    P = X @ Minv @ X.T  # explicit 3 x 3 projector onto span(X), independent of the module
    cond = np.linalg.cond(M)
    assert S.full and S.kinds == ("turn", "span", "span")
    # every tangent vector X M^{-1} theta J + Delta is recovered from its three coordinates
    theta = rng.standard_normal()
    Delta = (np.eye(3) - P) @ rng.standard_normal((3, 2))
    xi = X @ Minv @ (theta * mv.J) + Delta
    c = np.einsum("iab,ab->i", S.axes, xi)
    assert _err(np.einsum("i,iab->ab", c, S.axes), xi) <= REL * cond * (abs(theta) + 1) * 10
    assert abs(c[0] - math.sqrt(np.trace(Minv)) * theta) <= REL * cond * (abs(theta) + 1) * 10
    # b_j: column j's component along the normal of the span
    nrm = np.cross(X[:, 0], X[:, 1])
    nrm /= np.linalg.norm(nrm)
    assert _err(c[1:], nrm @ Delta) <= REL * cond * 10
    # the turn block is 2 beta / tr M (tr(J^T M^{-1} J M^{-1}) = 2 / det M), the span block M^{-1}
    assert abs(S.metric[0, 0] - 2 * beta / np.trace(M)) <= REL * cond * beta
    assert _err(S.metric[1:, 1:], Minv) <= REL * cond * np.linalg.norm(Minv)
    assert _err(S.metric[0, 1:], 0) == 0


def test_on_the_manifold_the_ball_has_semi_axes_one_over_sqrt_beta_and_one():
    """At M = I: u = sqrt(2) theta, the ball's semi-axes are 1/sqrt(beta) (turn) and 1 (span),
    and grad_beta f = (g_u / beta, g_b) for P^E G = (g_u, g_b)."""
    X = _orth(np.random.default_rng(4), 3, 2)
    G = problems.make_problem("brockett", 3, 2, seed=0).egrad(X)
    for beta in (0.1, 1.0, 10.0):
        S = mv.metric_slice(X, G, beta)
        assert _err(S.metric, np.diag([beta, 1.0, 1.0])) <= 1e-14 * 10
        radii, V = mv.ball_axes(S.metric)
        assert _err(sorted(radii), sorted([1 / math.sqrt(beta), 1.0, 1.0])) <= 1e-14 * 10 / beta
        assert _err(S.grad, S.frobenius * [1 / beta, 1, 1]) <= 1e-14 * 10 * np.linalg.norm(G) / beta
        xi = X @ (0.3 * mv.J)
        assert abs(np.vdot(S.axes[0], xi) - math.sqrt(2) * 0.3) <= 1e-15 * 10


# ----------------------------------------------------------------------------- the safe region


OMEGAS = st.floats(-2.0, 2.0).map(lambda e: 10.0**e)


@SETTINGS
@given(iterates(max_n=8, s_range=(0.6, 1.3)), BETAS, OMEGAS, st.floats(0.05, 0.95),
       st.sampled_from(sorted(geo.TANGENT_TERMS)))
def test_quartic_matches_direct_evaluation_and_the_safe_rule(it, beta, omega, eps, tangent):
    X, G, rng = it
    n, p = X.shape
    T, V, H = geo.landing_field(X, G, beta, omega, tangent)
    C = mv.safe_curve(X, V, omega, eps)
    d = float(np.linalg.norm(H))
    assert abs(C.d - d) <= REL * (1 + d)
    nX, nV = np.linalg.norm(X), np.linalg.norm(V)
    for eta in np.concatenate([[0.0], 10.0 ** rng.uniform(-4, 1, 8) / max(nV, 1e-300)]):
        Y = X - eta * V
        direct = np.linalg.norm(Y.T @ Y - np.eye(p)) ** 2
        quartic = np.polynomial.polynomial.polyval(eta, C.coefficients)
        size = (math.sqrt(p) + nX**2 + 2 * eta * nX * nV + (eta * nV) ** 2) ** 2
        assert abs(quartic - direct) <= REL * size
    # the safe bound is what the Safe rule computes (its request eta far above the bound)
    ctx = steps.StepContext(X=X, V=V, G=G, d=d, omega=omega, cost=lambda Z: 0.0,
                            move=lambda eta: X - eta * V, k=0, H=H, landing=True)
    taken = steps.Safe(eta=1e12, eps=eps)(ctx, {})
    if d < 1:
        assert abs(C.eta_star - taken) <= REL * 10 * taken
        # the lemma is a guarantee: up to eta* the curve stays below max(eps, d)
        level = max(eps, d)
        assert C.eta_star <= C.eta_exact * (1 + 1e-9)
        grid = np.linspace(0, C.eta_star, 50)
        size = (math.sqrt(p) + nX**2 + 2 * C.eta_star * nX * nV + (C.eta_star * nV) ** 2) ** 2
        curve = np.polynomial.polynomial.polyval(grid, C.coefficients)
        assert np.all(curve <= level**2 + REL * size)
    else:
        assert math.isnan(C.eta_star)
    if math.isfinite(C.eta_exact):
        at = np.polynomial.polynomial.polyval(C.eta_exact, C.coefficients)
        size = (math.sqrt(p) + nX**2 + 2 * C.eta_exact * nX * nV + (C.eta_exact * nV) ** 2) ** 2
        assert abs(at - max(eps, d) ** 2) <= 1e-9 * size


# ----------------------------------------------------------------------------- what the player gets


def test_views_offer_the_metric_where_the_tangent_space_has_a_turn_and_three_dimensions():
    from explorer.views import available

    assert {"metric", "safe"} <= set(available(3, 2)) and "metric" in available(20, 4)
    assert "metric" in available(3, 3)  # O(3): three turns
    for n, p in ((2, 1), (3, 1), (2, 2), (50, 1)):
        assert "metric" not in available(n, p) and "safe" in available(n, p)
    assert not {"metric", "safe"} & set(available(3, 2, constrained=True))
    assert "metric" not in available(200, 50) and "safe" in available(200, 50)


def test_the_run_sends_each_iterates_metric_and_safe_rows():
    """A safe-step run on St(3, 2): each iterate's rows equal the module's at X_k (recomputed
    from X_k and the problem's gradient), to the 7 digits sent; the step taken is min(eta, eta*)."""
    from explorer import playback, runner
    from explorer.state import AppConfig

    config = AppConfig(problem="brockett", n=3, p=2, beta=0.2, step="safe", eta=0.5,
                       max_iter=60)
    problem = runner.build_problem(config)
    trace, records = runner.start(config, problem)
    runner.run_to_end(trace, records, config)
    sent = playback.chunk(trace, 0)
    assert len(sent["metric"]) == len(sent["safe"]) == trace.k + 1
    for k in (0, 1, trace.k // 2, trace.k):
        X = trace.X[k]
        G = problem.egrad(X)
        S = mv.metric_slice(X, G, config.beta)
        row = np.array(sent["metric"][k], dtype=float)
        turn, span = np.zeros((3, 3)), np.zeros((3, 3))
        turn[mv._UPPER] = row[:6]
        span[mv._UPPER] = row[6:12]
        turn, span = np.triu(turn) + np.triu(turn, 1).T, np.triu(span) + np.triu(span, 1).T
        tol = 1e-6 * (1 + np.abs(S.metric).max())
        assert _err(config.beta * turn + span, S.metric) <= tol
        assert _err(row[12:15], S.frobenius) <= 1e-6 * np.linalg.norm(S.frobenius) + 1e-300
        V = geo.landing_field(X, G, config.beta, config.omega).V
        C = mv.safe_curve(X, V, config.omega, trace.eps)
        safe = np.array(sent["safe"][k], dtype=float)
        assert _err(safe[:5], C.coefficients) <= 1e-6 * np.abs(C.coefficients).max()
        assert abs(safe[5] - C.eta_star) <= 1e-6 * C.eta_star
        if k < trace.k:  # the Safe rule took min(eta, eta*)
            assert abs(trace.step[k + 1] - min(config.eta, C.eta_star)) <= 1e-12 * config.eta


@SETTINGS
@given(iterates(sizes=[(3, 2), (4, 2), (6, 3), (3, 3), (5, 1)]))
def test_metric_row_packs_the_slice(it):
    """metric_row (St(3, 2): its scalar closed form) holds the slice's blocks and coordinates."""
    X, G, _ = it
    S = mv.metric_slice(X, G, 1.0)
    row = mv.metric_row(X, G)
    k = len(S.axes)
    turn, span = np.zeros((3, 3)), np.zeros((3, 3))
    turn[mv._UPPER], span[mv._UPPER] = row[:6], row[6:12]
    turn, span = np.triu(turn) + np.triu(turn, 1).T, np.triu(span) + np.triu(span, 1).T
    _, nMinv, cond = _sizes(X)
    assert _err(turn[:k, :k], S.turn_metric) <= REL * nMinv * cond
    assert _err(span[:k, :k], S.span_metric) <= REL * nMinv * cond
    assert _err(row[12:12 + k], S.frobenius) <= REL * np.linalg.norm(G) * cond
    assert row[15] == S.residual


@SETTINGS
@given(st.lists(iterates(sizes=[(3, 2)]), min_size=1, max_size=5),
       st.sampled_from([(3, 2), (4, 2)]))
def test_metric_rows_of_a_stack_are_each_iterates_row(its, size):
    """metric_rows (a family's members at one iteration) is metric_row of each member, bit for
    bit: at St(3, 2) the same closed form in array arithmetic (the same operations in the same
    order, each correctly rounded), elsewhere metric_row itself."""
    if size == (3, 2):
        X = np.array([x for x, _, _ in its])
        G = np.array([g for _, g, _ in its])
    else:  # (4, 2): the one-by-one path, on iterates of its own size
        rng = np.random.default_rng(len(its))
        X = np.array([_orth(rng, 4, 2) * 1.1 for _ in its])
        G = rng.standard_normal(X.shape)
    rows = mv.metric_rows(X, G)
    assert rows.shape == (len(X), mv.METRIC_ROW)
    for row, x, g in zip(rows, X, G, strict=True):
        np.testing.assert_array_equal(row, mv.metric_row(x, g))


@pytest.mark.parametrize("X", [np.array([[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]]),  # parallel columns
                               np.zeros((3, 2)), np.zeros((4, 2))])
def test_metric_row_of_a_rank_deficient_x_says_so(X):
    """No g^beta ball at a rank-deficient X (M is singular): the scalar closed form at St(3, 2)
    divided by zero with a bare ZeroDivisionError; both paths say what is wrong."""
    with pytest.raises(np.linalg.LinAlgError, match="rank-deficient"):
        mv.metric_row(X, np.ones_like(X))
