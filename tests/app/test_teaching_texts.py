"""What the app tells a student: each claim in the texts, and the numbers behind it (issue 11)."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from scipy.linalg import expm

from explorer import compare, controls, presets, state
from explorer.runner import build_problem, initial
from landing_core import geometry as geo
from landing_core.problems import initial_point, make_problem
from landing_core.solvers import Config, solve
from landing_core.steps import SAFE_EPS, BarzilaiBorwein, Safe
from tests.app.helpers import open_app, visit


def _guide_text() -> str:
    at = visit(open_app(), "pages/guide.py")
    return " ".join(m.value for m in at.markdown)


@pytest.fixture(scope="module")
def guide() -> str:
    return re.sub(r"\s+", " ", _guide_text())


def _preset(title: str) -> presets.Preset:
    return next(p for p in presets.PRESETS if p.title.startswith(title))


# ----------------------------------------------------------------------------- 1: the safe step


@pytest.fixture(scope="module")
def fair_runs() -> dict[str, list[dict]]:
    """brockett(3, 2), the default X0, rows beta = 0.1, 0.5, 1, 5 under each adaptive choice."""
    config = state.AppConfig(max_iter=3000)
    rows = [compare.Row(f"β = {b:g}", beta=b) for b in (0.1, 0.5, 1.0, 5.0)]
    return {rule: compare.run_rows(config, rows, rule)[0] for rule in ("safe", "bb")}


def test_the_safe_step_keeps_the_constant_steps_bias(fair_runs):
    """Near the solution the safe step is the constant min(eta, 1/(2 omega)) = 0.1, so its
    iteration counts spread with beta as a constant step's do; BB's hardly do."""
    safe, bb = ([r["iterations"] for r in fair_runs[k]] for k in ("safe", "bb"))
    assert all(r["status"] == "converged" for k in fair_runs for r in fair_runs[k])
    assert safe[1] < safe[2] < safe[3] and safe[3] / min(safe) > 5
    assert max(bb) / min(bb) < 2 and max(bb) < min(safe) / 2
    problem = build_problem(state.AppConfig())
    X0 = initial(state.AppConfig(), problem)
    result = solve(problem, X0, Config(beta=5.0, step=Safe(0.1)), max_iter=3000)
    tail = result.step[result.iterations // 2:]  # the second half: the constant step 0.1
    assert result.iterations == safe[3] and np.all(tail == 0.1)


def test_no_text_calls_the_safe_step_fair(guide, fair_runs):
    safe, bb = ([r["iterations"] for r in fair_runs[k]] for k in ("safe", "bb"))
    quoted = (f"{safe[0]}, {safe[1]}, {safe[2]} and {safe[3]} iterations",
              f"{bb[0]}, {bb[1]}, {bb[2]} and {bb[3]}")
    assert all(q in guide for q in quoted)
    assert f"{safe[0]}, {safe[1]}, {safe[2]} and {safe[3]} iterations" in compare.STEPS_HELP
    assert f"{bb[0]}, {bb[1]}, {bb[2]}, {bb[3]} with BB" in compare.STEPS_HELP
    assert "for a fair contest" not in guide
    assert "“each at its safe step”, “each with Armijo”" not in compare.CONSTANT_NOTE
    assert "not adaptive" in next(k for k, v in compare.FAIRNESS.items() if v == "safe")
    for text in (guide, compare.STEPS_HELP, compare.SAFE_NOTE, compare.CONSTANT_NOTE):
        assert "Armijo" in text and "Barzilai–Borwein" in text
    assert "the safe step does not" in compare.STEPS_HELP.lower()
    assert "Not a fair contest" in compare.SAFE_NOTE


def test_the_compare_page_warns_under_the_safe_step():
    at = visit(open_app(), "pages/compare.py")
    label = next(k for k, v in compare.FAIRNESS.items() if v == "safe")
    at.selectbox(key="compare_fairness").set_value(label).run()
    assert not at.exception
    assert any(i.value == compare.SAFE_NOTE for i in at.info)
    assert at.selectbox(key="compare_fairness").help == compare.STEPS_HELP


# ----------------------------------------------------------------------------- 3: turning


def test_the_turn_within_the_span_is_described_as_a_rotation_rate(guide):
    texts = [compare.TURN_HELP, _preset("The frame on the sphere").look_at, guide]
    for text in texts:
        assert "about each other" not in text
        assert "β scales it by 1/β" not in text
    assert "turn together" in compare.TURN_HELP and "rate" in compare.TURN_HELP
    assert "turn together" in texts[1] and "turn together" in guide
    assert "turn together" in controls.BETA_HELP and "rate" in controls.BETA_HELP
    assert "rate scaled by" in guide


def test_on_the_manifold_the_columns_stay_orthonormal_and_turn_together():
    """Under the rotation block alone (a step X <- X exp(-t Omega) of the 1/beta block
    X skew(X^T G)), the Gram matrix is unchanged: the columns keep their lengths and angle and
    turn together, by the same angle, within span(X)."""
    problem = make_problem("brockett", 3, 2, 4)
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((3, 2)))[0]
    Omega = geo.skew(Q.T @ problem.egrad(Q))
    for t in (0.1, 0.5):
        Y = Q @ expm(-t * Omega)
        np.testing.assert_allclose(Y.T @ Y, np.eye(2), atol=1e-14)
        angles = [np.arccos(np.clip(Q[:, j] @ Y[:, j], -1, 1)) for j in range(2)]
        assert angles[0] == pytest.approx(angles[1], rel=1e-12)  # together
        np.testing.assert_allclose(Y - Q @ (Q.T @ Y), 0, atol=1e-14)  # within the span


# ----------------------------------------------------------------------------- 4: PCA


def test_pca_is_beta_invariant_on_the_manifold_only():
    problem = make_problem("pca", 3, 2, 0)
    X = initial_point(3, 2, state.AppConfig().distance, 0)
    G = problem.egrad(X)
    spread = (np.linalg.norm(geo.grad_beta(X, G, 0.1) - geo.grad_beta(X, G, 10.0))
              / np.linalg.norm(geo.grad_beta(X, G, 10.0)))
    assert round(100 * spread) == 88
    # symmetric off the manifold too, up to two products' rounding (n eps ||X|| ||G||)
    np.testing.assert_allclose(X.T @ G, G.T @ X, rtol=0,
                               atol=16 * 3 * np.finfo(float).eps * np.linalg.norm(X)
                               * np.linalg.norm(G))
    Q = np.linalg.svd(X, full_matrices=False)
    Q = Q[0] @ Q[2]
    GQ = problem.egrad(Q)
    # equal but for rounding in skew(Q^T G) (n eps ||G||), which 1/beta scales
    np.testing.assert_allclose(geo.grad_beta(Q, GQ, 0.1), geo.grad_beta(Q, GQ, 10.0), rtol=0,
                               atol=16 * 3 * np.finfo(float).eps * (1 + 1 / 0.1)
                               * np.linalg.norm(GQ))
    text = _preset("PCA").look_at
    big = make_problem("pca", 5, 2, 0)
    Y = initial_point(5, 2, 0.4, 0)
    GY = big.egrad(Y)
    spread5 = (np.linalg.norm(geo.grad_beta(Y, GY, 0.1) - geo.grad_beta(Y, GY, 10.0))
               / np.linalg.norm(geo.grad_beta(Y, GY, 10.0)))
    assert f"{round(100 * spread5)} % at X₀ (88 % on PCA 3 × 2)" in text
    assert "on the manifold XᵀG is symmetric" not in text
    # "the early cost curves part (by about 0.02, against 10⁻⁴ from the manifold)"
    pca = _preset("PCA")
    spread = {}
    for distance in (0.0, 0.4):
        runs, _ = compare.run_rows(replace(pca.config, distance=distance), pca.rows, None)
        spread[distance] = np.abs(runs[0]["cost"][:30] - runs[2]["cost"][:30]).max()
    assert spread[0.0] < 2e-4 and 0.01 < spread[0.4] < 0.04
    assert "symmetric at every X" in text and "XᵀX = I only" in text
    assert state.PROBLEM_LABELS["pca"].endswith("(β-invariant on St(n, p))")


# ----------------------------------------------------------------------------- 7: the safe region


def test_the_safe_step_help_says_what_the_lemma_gives():
    config = state.AppConfig()
    problem = build_problem(config)
    d0 = float(np.linalg.norm(geo.h(initial(config, problem))))
    assert d0 > SAFE_EPS and f"starts at {d0:.2f}" in controls.STEP_HELP
    assert "stays ≤ ε" not in controls.STEP_HELP
    assert "from growing" in controls.STEP_HELP and "penalty" in controls.STEP_HELP
    # the default run: ||h|| never grows above its start ...
    result = solve(problem, initial(config, problem),
                   Config(beta=config.beta, omega=config.omega, step=Safe(config.eta)))
    assert result.infeasibility.max() <= result.infeasibility[0]
    # ... while a penalty run under the safe step does grow it (the circle preset's)
    circle = _preset("The circle")
    runs, _ = compare.run_rows(circle.config, circle.rows, None)
    landing_run, penalty_run = runs[0], runs[1]
    assert landing_run["infeasibility"].max() <= landing_run["infeasibility"][0]
    assert penalty_run["infeasibility"].max() > 1.05 * penalty_run["infeasibility"][0]


# ----------------------------------------------------------------------------- 8: omega under BB


def test_bb_lowers_omega_on_most_steps_here(guide):
    config = state.AppConfig()
    problem = build_problem(config)
    X0 = initial(config, problem)
    result = solve(problem, X0, Config(beta=config.beta, omega=10.0, step=BarzilaiBorwein()))
    lowered = result.normal_step[1:] < 10.0 * result.step[1:] * (1 - 1e-12)
    assert lowered.mean() > 0.8  # 17 of 20 here (tests/app/test_true_texts.py quotes it)
    assert "constant or the safe step" in guide and "constant or the" in controls.OMEGA_HELP
    for preset in presets.PRESETS:  # presets about omega use a rule where it acts
        about_omega = "ω" in preset.title or "ω" in preset.look_at
        rules = {preset.config.step} | {r.step for r in preset.rows}
        if about_omega:
            assert rules <= {"safe", "constant"}, preset.title


def test_the_theory_page_says_where_pca_is_beta_invariant():
    at = visit(open_app({"problem": "pca", "n": "3", "p": "2"}), "pages/theory.py")
    note = next(i.value for i in at.info if "PCA" in i.value)
    assert "β-invariant on St(n, p) only" in note and "differ by 88 %" in note
