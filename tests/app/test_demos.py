"""The Theory page's demonstrations (explorer.teaching.demos, explorer.demos) and the presets that
show them: each claim against the numbers of independent runs or formulas."""

from __future__ import annotations

import base64
import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import compare, playback, runner
from explorer import demos as page_demos
from explorer.presets import PRESETS
from explorer.teaching import demo_figures, demos
from landing_core.geometry import grad_beta
from landing_core.problems import initial_point, make_problem
from landing_core.solvers import landing
from landing_core.steps import Constant
from tests.app.helpers import open_app, visit


def _preset(title: str):
    return next(p for p in PRESETS if p.title.startswith(title))


def _rayleigh_matrix(problem) -> np.ndarray:
    """A of f(x) = x^T A x, read off the gradient 2 A x at the unit vectors."""
    n = problem.n
    return np.stack([problem.egrad(np.eye(n)[:, [j]])[:, 0] for j in range(n)], axis=1) / 2


# ----------------------------------------------------------------------------- the normal flow


def test_three_costs_lie_on_the_flow():
    X0 = initial_point(4, 2, 0.5, 3)
    paths = demos.flow_paths(X0, seed=3, eta=0.02, t_end=3.0)
    assert set(paths.sigma) == {"brockett", "pca", "linear"}
    assert max(paths.gap.values()) < 0.03
    half = demos.flow_paths(X0, seed=3, eta=0.01, t_end=3.0)
    for name in paths.gap:  # O(eta)
        assert 1.7 < paths.gap[name] / half.gap[name] < 2.3
    np.testing.assert_allclose(paths.t, 0.02 * np.arange(151), rtol=1e-12)
    fig = demo_figures.flow_paths_figure(paths)
    assert sum(t.showlegend is not False for t in fig.data) == 4  # three costs and the flow


# ----------------------------------------------------------------------------- beta in a layer


def test_beta_acts_within_a_layer_as_on_stiefel():
    problem = make_problem("brockett", 3, 2, 0)
    X0 = initial_point(3, 2, 0.4, 0)
    runs = demos.layer_runs(problem, X0, page_demos.LAYER_BETAS, eta=page_demos.LAYER_ETA,
                            max_iter=page_demos.LAYER_MAX_ITER)
    assert None not in runs.layer + runs.rgd
    for counts in (runs.layer, runs.rgd):
        slope = np.log(counts[-1] / counts[-2]) / np.log(10 / 3)
        assert 0.8 < slope < 1.1  # iterations grow about like beta for large beta
        assert abs(counts[1] / counts[0] - 1) < 0.05  # and level off for small beta
    assert runs.drift.max() < 0.15 * np.linalg.norm(X0.T @ X0)  # near its layer: O(eta)
    # the preset says so, and opens this demonstration with the same setting
    preset = _preset("β within one layer")
    assert preset.demo == "layer" and preset.config.problem == "brockett"
    assert (preset.config.seed, preset.config.distance) == (0, 0.4)
    assert "grow about like β for large β in both" in preset.look_at


# ----------------------------------------------------------------------------- the omega trade-off


def test_the_penalty_bias_is_two_lambda_min_over_omega_and_landing_has_none():
    problem = make_problem("brockett", 3, 1, 0)
    X0 = initial_point(3, 1, 0.5, 0)
    sweep = demos.omega_sweep(problem, X0, page_demos.OMEGAS, eta=page_demos.OMEGA_ETA)
    lam_min = np.linalg.eigvalsh(_rayleigh_matrix(problem))[0]
    # within 1e-6 relative: the penalty runs stop at ||G + omega X h|| <= 1e-10
    np.testing.assert_allclose(sweep.penalty_h, 2 * abs(lam_min) / sweep.omegas, rtol=1e-6)
    np.testing.assert_allclose(sweep.predicted, 2 * abs(lam_min) / sweep.omegas, rtol=1e-6)
    assert np.all(sweep.landing_h <= sweep.tol)
    its = sweep.landing_iterations
    assert None not in its
    best = int(np.argmin(its))
    assert 0 < best < len(its) - 1  # too small an omega lands slowly, too large crawls
    assert sweep.omegas[best - 1] < 0.5 / sweep.eta < sweep.omegas[best + 1]
    assert len(demo_figures.omega_sweep_figure(sweep).data) == 4


def test_the_bias_formula_is_first_order_in_one_over_omega_in_general():
    problem = make_problem("procrustes", 5, 3, 0)
    X0 = initial_point(5, 3, 0.4, 0)
    sweep = demos.omega_sweep(problem, X0, (3.0, 30.0), eta=0.2, penalty_iter=40000)
    error = np.abs(sweep.penalty_h / sweep.predicted - 1)
    assert error[1] < 0.1 and error[1] < error[0] / 3  # the relative error falls like 1/omega


def test_the_omega_preset_shows_its_numbers():
    preset = _preset("ω: pull harder")
    runs, _ = compare.run_rows(preset.config, preset.rows, None)
    slow, best, crawl, pen = runs
    assert [r["iterations"] for r in (slow, best, crawl)] == [151, 72, 801]
    assert all(r["status"] == "converged" and r["infeasibility"][-1] < 1e-8
               for r in (slow, best, crawl))
    lam_min = np.linalg.eigvalsh(_rayleigh_matrix(runner.build_problem(preset.config)))[0]
    assert pen["infeasibility"][-1] == pytest.approx(2 * abs(lam_min) / 3, rel=1e-6)
    assert f"{2 * abs(lam_min) / 3:.2f}" in preset.look_at
    assert "151" in preset.look_at and "801" in preset.look_at and "(72)" in preset.look_at
    assert {preset.config.step} | {r.step for r in preset.rows} == {"safe"}


def test_the_gram_preset_stays_on_the_dotted_flow_for_every_cost():
    preset = _preset("The Gram matrix")
    assert preset.config.step == "constant" and preset.config.eta == 0.02
    for cost in ("linear", "brockett", "pca", "quartic"):
        config = replace(preset.config, problem=cost)
        problem = runner.build_problem(config)
        trace = runner.run_to_end(*runner.start(config, problem), config)
        data = playback.chunk(trace, 0)
        gap = np.abs(np.array(data["flow_gram"]) - np.array(data["gram"])).max()
        assert gap < 0.1, cost  # the path's extent is ~3: a few percent of it
        assert np.linalg.norm(trace.gram[-1] - np.eye(2)) < 1e-4  # and it ends at I


# ----------------------------------------------------------------------------- fair rates


def test_local_rate_recovers_a_linear_rate():
    k = np.arange(200)
    assert demos.local_rate(3.0 * 0.7**k) == pytest.approx(0.7, rel=1e-12)
    wobble = np.exp(0.3 * np.sin(1.7 * k))  # BB-like: not monotone, linear on average
    assert demos.local_rate(3.0 * 0.8**k * wobble) == pytest.approx(0.8, rel=0.02)
    assert np.isnan(demos.local_rate(np.ones(50)))  # never enters the window


@settings(max_examples=25, deadline=None)
@given(p=st.integers(1, 5), beta=st.floats(0.02, 50), seed=st.integers(0, 10**6))
def test_for_p_equal_n_beta_only_rescales_the_tangent_term(p, beta, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((p, p)) + 2 * np.eye(p)  # full rank
    G = rng.standard_normal((p, p))
    np.testing.assert_allclose(grad_beta(X, G, beta), grad_beta(X, G, 1.0) / beta,
                               atol=1e-11 * (1 + 1 / beta) * np.linalg.norm(G)
                               * np.linalg.norm(X.T @ X))


def test_for_p_equal_n_the_beta_run_is_the_beta_one_run_with_a_rescaled_step():
    problem = make_problem("procrustes", 4, 4, 1)
    X0 = initial_point(4, 4, 0.4, 1)
    for beta in (0.2, 5.0):
        scaled = landing(problem, X0, beta=beta, omega=2.0 / beta, step=Constant(0.05),
                         max_iter=80, tol=1e-300)
        plain = landing(problem, X0, beta=1.0, omega=2.0, step=Constant(0.05 / beta),
                        max_iter=80, tol=1e-300)
        np.testing.assert_allclose(scaled.X, plain.X, atol=1e-12)
        np.testing.assert_allclose(scaled.cost, plain.cost, atol=1e-12)


def test_adaptive_rules_absorb_beta_for_p_equal_n_and_not_for_p_below_n():
    rates = demos.fair_rates("brockett", *page_demos.RATE_SHAPE, page_demos.RATE_BETAS,
                             tol=page_demos.RATE_TOL, max_iter=page_demos.RATE_MAX_ITER)
    square, tall = rates.iterations["bb"]["p = n"], rates.iterations["bb"]["p < n"]
    assert None not in square + tall
    assert len(set(square)) == 1  # beta only rescales: BB's steps absorb it exactly
    assert max(tall) / min(tall) > 2  # beta changes the conditioning
    assert np.ptp(rates.rates["bb"]["p = n"]) < 0.01
    assert np.ptp(rates.rates["bb"]["p < n"]) > 0.2
    # Armijo: its halving grid is not scale-free, yet beta moves it far less for p = n
    square, tall = rates.iterations["armijo"]["p = n"], rates.iterations["armijo"]["p < n"]
    assert None not in square and max(square) / min(square) < 3
    assert None in tall or max(tall) / min(tall) > 2 * max(square) / min(square)
    assert np.all(rates.rates["armijo"]["p = n"] < rates.rates["armijo"]["p < n"])
    assert len(demo_figures.fair_rates_figure(rates).data) == 4
    preset = _preset("Fair rates")  # the preset opens this demonstration on this cost
    assert preset.demo == "rates" and preset.config.problem == "brockett"
    assert (preset.config.seed, preset.config.distance) == (0, 0.4)
    assert "same number of iterations for every β" in preset.look_at
    assert "Armijo's counts still move" in preset.look_at  # tests/app/test_true_texts.py: figures


# ----------------------------------------------------------------------------- the page


@pytest.mark.parametrize("lecture", [False, True])
def test_each_demonstration_renders_and_lecture_mode_hides_its_words(lecture):
    at = visit(open_app({"lecture": "1"} if lecture else None), "pages/theory.py")
    assert at.radio(key="theory_part").value == "statements"  # the default: fast, as before
    at.radio(key="theory_part").set_value("demonstrations").run()
    for demo in page_demos.DEMOS:
        at.radio(key="theory_demo").set_value(demo).run()
        assert not at.exception, demo
        assert at.get("plotly_chart"), demo
        whys = [e for e in at.expander if e.label == "Why"]
        assert len(whys) == (0 if lecture else 1), demo


def test_the_guide_names_every_demonstration_and_the_overlay():
    at = visit(open_app(), "pages/guide.py")
    text = " ".join(m.value for m in at.markdown)
    for title in ("the normal flow", "β within one layer", "the ω trade-off", "fair rates"):
        assert f"*{title}*" in text.lower()
    assert "2|\\lambda_{\\min}|/\\omega" in text and "dotted" in text
    assert "t_k = \\sum_{j<k} \\eta_j\\omega_j/\\omega" in text


@pytest.mark.parametrize(("omega", "eta"), [(100.0, 1e-3), (0.01, 0.02)])  # the bounds
def test_the_flow_demonstration_stays_stable_and_bounded_for_any_omega(omega, eta):
    at = visit(open_app({"omega": str(omega)}), "pages/theory.py")
    at.radio(key="theory_part").set_value("demonstrations").run()
    assert not at.exception
    caption = next(c.value for c in at.caption if c.value.startswith("Three costs"))
    assert f"constant step η = {eta:g}" in caption
    gap = float(caption.split("within ")[1].split(" ")[0])
    assert gap < 0.05  # eta omega <= 0.1: stable, on the flow
    x = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["x"]
    count = len(x) if isinstance(x, list) else len(base64.b64decode(x["bdata"])) // 8
    assert count <= page_demos.FLOW_STEPS + 1  # however small omega
