"""The theory module (the paper's propositions checked numerically) and the Theory page."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer import figures
from explorer.teaching import theory
from landing_core import geometry
from landing_core.problems import make_problem, nearest_stiefel
from tests.app.helpers import open_app, visit

KEYS = ["tangent_space", "metric_pullback", "normal_space", "proj_tangent", "proj_orthogonal",
        "proj_idempotent", "nabla_identity", "nabla_fd", "grad_closed_form", "grad_riemannian",
        "grad_half", "grad_blocks", "grad_stiefel", "normal_term_fd"]


def _checks(problem="brockett", n=7, p=3, beta=0.3, distance=0.5, seed=0):
    pb = make_problem(problem, n, p, seed)
    X = theory.random_point(n, p, distance, seed)
    return {c.key: c for c in theory.check_propositions(pb, X, beta, np.random.default_rng(99))}


def _span_projector(X):
    """The n x n orthogonal projector onto span(X) (fine in a test, small n)."""
    Q, _ = np.linalg.qr(X)
    return Q @ Q.T


# ----------------------------------------------------------------------------- pure checks


@pytest.mark.parametrize(
    ("problem", "n", "p", "beta", "distance"),
    [("brockett", 3, 2, 0.5, 0.4), ("procrustes", 10, 4, 0.01, 1.0), ("pca", 6, 6, 100.0, 0.3),
     ("linear", 2, 1, 3.0, 0.4), ("quartic", 12, 5, 0.07, 2.0), ("brockett", 1, 1, 1.0, 0.4),
     ("procrustes", 120, 30, 0.2, 0.4)],
)
def test_every_proposition_holds_at_a_random_point(problem, n, p, beta, distance):
    checks = _checks(problem, n, p, beta, distance)
    assert list(checks) == KEYS
    for c in checks.values():
        assert c.passed, (c.key, c.residual)
        assert c.residual < (1e-7 if c.finite_difference else 5e-13), (c.key, c.residual)


def test_thresholds_and_pass_marks():
    checks = _checks()
    fd = {k for k, c in checks.items() if c.finite_difference}
    assert fd == {"nabla_fd", "normal_term_fd"}
    assert {c.threshold for c in checks.values()} == {theory.EXACT_TOL, theory.FD_TOL}
    assert not theory.Check("k", "n", "x", float("nan"), 1e-12).passed
    assert not theory.Check("k", "n", "x", 2e-12, 1e-12).passed
    assert theory.Check("k", "n", "x", 1e-13, 1e-12).passed


def test_a_wrong_grad_beta_fails_its_checks(monkeypatch):
    def wrong(X, G, beta):  # the closed form without its third term
        return G @ geometry.gram(X) - X @ G.T @ X / (2 * beta)

    monkeypatch.setattr(geometry, "grad_beta", wrong)
    checks = _checks(beta=0.3)
    assert not checks["grad_closed_form"].passed
    assert not checks["grad_riemannian"].passed
    assert not checks["grad_blocks"].passed
    assert checks["grad_closed_form"].residual > 1e-3
    assert checks["proj_orthogonal"].passed and checks["nabla_identity"].passed


def test_the_frobenius_projection_is_tangent_but_not_g_beta_orthogonal(monkeypatch):
    monkeypatch.setattr(geometry, "proj_tangent", geometry.proj_euclidean)
    checks = _checks(beta=0.3)
    assert checks["proj_tangent"].passed and checks["proj_idempotent"].passed
    assert not checks["proj_orthogonal"].passed


def test_a_wrong_nabla_beta_fails_the_exact_and_the_finite_difference_identity(monkeypatch):
    def wrong(X, G, beta):  # (1 - beta) instead of (1 - beta) / beta
        M = geometry.gram(X)
        return G @ M + (1 - beta) * X @ np.linalg.solve(M, X.T @ G @ M)

    monkeypatch.setattr(geometry, "nabla_beta", wrong)
    checks = _checks(beta=0.3)
    assert not checks["nabla_identity"].passed and not checks["nabla_fd"].passed


def test_the_normal_term_is_half_the_gradient_of_n(monkeypatch):
    checks = _checks()
    assert checks["normal_term_fd"].passed and "2.000000" in checks["normal_term_fd"].detail
    monkeypatch.setattr(geometry, "nabla_N", lambda X: 2 * X @ geometry.h(X))
    checks = _checks()
    assert not checks["normal_term_fd"].passed and "1.000000" in checks["normal_term_fd"].detail


def test_tangent_samples_are_tangent_and_the_space_is_trivial_for_n_p_1():
    X = theory.random_point(5, 2, 0.5, 1)
    for xi in theory.tangent_samples(X, np.random.default_rng(0)):
        assert np.linalg.norm(xi.T @ X + X.T @ xi) < 1e-13 * np.linalg.norm(xi)
    X1 = theory.random_point(1, 1, 0.5, 1)
    assert all(not xi.any() for xi in theory.tangent_samples(X1, np.random.default_rng(0)))


def test_finite_differences_are_accurate_for_a_quadratic():
    A = np.arange(12.0).reshape(4, 3)
    X, Z = np.ones((4, 3)), np.eye(4, 3)
    exact = 2 * np.sum(A * X * Z)
    assert theory.fd_directional(lambda Y: np.sum(A * Y * Y), X, Z) == pytest.approx(exact,
                                                                                   rel=1e-9)


# ----------------------------------------------------------------------------- what beta does


@pytest.mark.parametrize(("n", "p"), [(6, 3), (5, 1), (4, 4)])
def test_block_norms_equal_independent_projections(n, p):
    problem = make_problem("procrustes", n, p, 2)
    X = theory.random_point(n, p, 0.6, 3)
    G = problem.egrad(X)
    betas = np.logspace(-2, 2, 9)
    blocks = theory.beta_blocks(X, G, betas)
    P = _span_projector(X)
    for i, b in enumerate(betas):
        g = geometry.grad_beta(X, G, b)
        assert blocks.rotation[i] == pytest.approx(np.linalg.norm(P @ g), rel=1e-10, abs=1e-12)
        assert blocks.normal[i] == pytest.approx(np.linalg.norm(g - P @ g), rel=1e-10,
                                                 abs=1e-12)
        assert blocks.total[i] == pytest.approx(np.linalg.norm(g), rel=1e-13)
        assert blocks.total[i] ** 2 == pytest.approx(blocks.rotation[i] ** 2
                                                     + blocks.normal[i] ** 2, rel=1e-10)
    if p == 1:
        assert not blocks.rotation.any()  # beta changes nothing
        np.testing.assert_allclose(blocks.total, blocks.total[0], rtol=1e-13)
    else:
        np.testing.assert_allclose(blocks.rotation * betas, blocks.rotation[0] * betas[0],
                                   rtol=1e-13)


def test_on_the_manifold_beta_scales_only_the_rotation_block():
    """grad_beta f(Q) = (1/beta) Q skew(Q^T G) + (I - Q Q^T) G, with n x n matrices formed."""
    problem = make_problem("brockett", 6, 3, 1)
    Q = nearest_stiefel(theory.random_point(6, 3, 0.7, 4))
    G = problem.egrad(Q)
    for beta in (0.05, 0.5, 1.0, 20.0):
        skew = 0.5 * (Q.T @ G - G.T @ Q)
        expected = Q @ skew / beta + (np.eye(6) - Q @ Q.T) @ G
        # products of Q (||Q||_2 = 1) and G, the rotation block scaled by 1/beta
        err = 16 * 6 * np.finfo(float).eps * (1 + 1 / beta) * np.linalg.norm(G)
        np.testing.assert_allclose(geometry.grad_beta(Q, G, beta), expected, rtol=0, atol=err)


def test_the_block_figure_carries_its_data():
    X = theory.random_point(5, 2, 0.4, 0)
    G = make_problem("brockett", 5, 2, 0).egrad(X)
    b = theory.beta_blocks(X, G, np.union1d(np.logspace(-2, 2, 21), [0.3]))
    fig = figures.beta_blocks_figure(b.betas, b.rotation, b.normal, b.total, beta=0.3)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert [t.name.split(":")[0] for t in lines] == ["‖R‖ / β", "‖N‖", "‖gradᵦ f‖ (total)"]
    for trace, y in zip(lines, (b.rotation, b.normal, b.total), strict=True):
        np.testing.assert_allclose(trace.y, y)
    markers = [t for t in fig.data if t.mode == "markers"]
    assert all(t.x[0] == pytest.approx(0.3) for t in markers)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_the_block_figure_says_beta_changes_nothing_for_p_1():
    X = theory.random_point(4, 1, 0.4, 0)
    G = make_problem("quartic", 4, 1).egrad(X)
    b = theory.beta_blocks(X, G, np.logspace(-2, 2, 11))
    fig = figures.beta_blocks_figure(b.betas, b.rotation, b.normal, b.total, beta=1.0)
    assert not any(t.name.startswith("‖R‖") for t in fig.data)
    assert any("β changes nothing" in a.text for a in fig.layout.annotations)


# ----------------------------------------------------------------------------- the page


def _decode(values):
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
    return np.asarray(values, dtype=float)


def _theory_page(query: dict[str, str] | None = None) -> AppTest:
    return visit(open_app(query), "pages/theory.py")


def _chart_lines(at: AppTest) -> dict[str, dict[str, np.ndarray]]:
    (chart,) = at.get("plotly_chart")
    spec = json.loads(chart.proto.spec)
    return {d["name"].split(":")[0]: {"x": _decode(d["x"]), "y": _decode(d["y"])}
            for d in spec["data"] if d["mode"] == "lines"}


def _assert_all_pass(at: AppTest) -> None:
    """The header's summary and the paper's checks, one box each, all passed; the boxes after
    them (the generalized constraint's own section) pass too."""
    assert not at.error
    assert at.success[0].value == f"All {len(KEYS)} checks pass ✓"
    marks = [s.value for s in at.success[1:]]
    checks = {c.name for c in theory.check_propositions(
        make_problem("brockett", 3, 2, 0), theory.random_point(3, 2, 0.4, 0), 0.5,
        np.random.default_rng(0))}
    paper = [m for m in marks if m.split("**")[1].removeprefix("✓ ") in checks]
    assert len(paper) == len(KEYS) and all(m.startswith("**✓") for m in marks)


def test_theory_page_default_config():
    at = _theory_page()
    assert at.title[0].value.startswith("Theory")
    _assert_all_pass(at)
    assert "explorer's X₀ (seed 0)" in at.caption[0].value
    # the figure is the block data at the explorer's X0 (brockett, 3 x 2, seed 0, distance 0.4)
    X = theory.random_point(3, 2, 0.4, 0)
    G = make_problem("brockett", 3, 2, 0).egrad(X)
    lines = _chart_lines(at)
    blocks = theory.beta_blocks(X, G, lines["‖N‖"]["x"])
    np.testing.assert_allclose(lines["‖R‖ / β"]["y"], blocks.rotation, rtol=1e-12)
    np.testing.assert_allclose(lines["‖N‖"]["y"], blocks.normal, rtol=1e-12)
    np.testing.assert_allclose(lines["‖gradᵦ f‖ (total)"]["y"], blocks.total, rtol=1e-12)
    assert 0.5 in lines["‖N‖"]["x"] and lines["‖N‖"]["x"].min() == pytest.approx(0.01)


@pytest.mark.parametrize(
    "query",
    [{"problem": "procrustes", "n": "40", "p": "7", "beta": "0.03"},
     {"problem": "pca", "n": "4", "p": "4", "beta": "100.0", "distance": "0.0"},
     {"problem": "quartic", "n": "2", "p": "1", "beta": "10.0", "seed": "5"}],
)
def test_theory_page_checks_pass_for_other_configs(query):
    at = _theory_page(query)
    _assert_all_pass(at)
    lines = _chart_lines(at)
    if query["p"] == "1":
        assert "‖R‖ / β" not in lines
        assert any(w.value.startswith("**p = 1: β changes nothing.**") for w in at.warning)
    else:
        assert "‖R‖ / β" in lines and not at.warning
    if query.get("distance") == "0.0":
        assert "X is taken at distance 0.4" in at.caption[0].value


def test_new_random_x_and_the_polar_factor():
    at = _theory_page({"n": "6", "p": "3"})
    before = _chart_lines(at)["‖R‖ / β"]["y"]
    next(b for b in at.button if b.label == "New random X").click().run()
    assert not at.exception
    _assert_all_pass(at)
    assert "random draw #1" in at.caption[0].value
    drawn = _chart_lines(at)["‖R‖ / β"]["y"]
    assert not np.allclose(drawn, before)
    at.radio(key="theory_at").set_value(at.radio(key="theory_at").options[1]).run()
    assert not at.exception
    on_manifold = _chart_lines(at)
    assert not np.allclose(on_manifold["‖R‖ / β"]["y"], drawn)


@pytest.mark.parametrize(("query", "spread"), [
    ({}, "σ(X) from **0.71** to **1.28**"),  # σ = 0.7103, 1.2758 (3 × 2, seed 0)
    ({"n": "3", "p": "1"}, "σ(X) = **1.40**"),  # one singular value: no range
])
def test_the_header_states_x_whole_in_one_line(query, spread):
    """X's size, ‖XᵀX − I‖_F, the spread of σ(X) and β, in one line that wraps (a row of
    st.metric cut them at 1280 pixels); σ(X)'s one value for p = 1, not a range of it."""
    at = _theory_page(query)
    line = next(m.value for m in at.markdown if m.value.startswith("X is **"))
    assert spread in line, line
    assert "β = **0.5**" in line
