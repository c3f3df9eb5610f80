"""Figure builders on their data: what is drawn is what was computed."""

import numpy as np
import pytest

from explorer import runner
from landing_core import figures
from landing_core.geometry import landing_field
from landing_core.problems import brockett, quartic
from landing_core.solvers import landing
from tests.app_helpers import run_config


def test_convergence_figure_has_one_point_per_iterate_and_the_gap():
    trace, problem, config = run_config(n=5, p=2, max_iter=40, tol=1e-14)
    f_star = runner.optimum(config, problem)
    fig = figures.convergence_figure(trace.cost, trace.infeasibility, trace.grad_norm,
                                     trace.step, f_star=f_star)
    assert trace.k == 40
    gap, infeas, grad, step = (fig.data[i] for i in range(4))
    assert len(gap.y) == len(infeas.y) == len(grad.y) == len(step.y) == 41
    np.testing.assert_allclose(gap.y, np.abs(np.array(trace.cost) - f_star))
    np.testing.assert_allclose(infeas.y, trace.infeasibility)
    assert np.isnan(step.y[0]) and step.y[1] == pytest.approx(trace.step[1])
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type == "log"


def test_convergence_figure_without_f_star_plots_the_cost_itself():
    fig = figures.convergence_figure([3.0, 2.0, 1.5], [1, 0.5, 0.1], [1, 0.1, 0.01],
                                     [np.nan, 0.1, 0.1])
    np.testing.assert_array_equal(fig.data[0].y, [3.0, 2.0, 1.5])
    assert fig.layout.yaxis.type != "log"


def test_trajectory_and_layer_circles_in_the_plane():
    problem = quartic(2, 1)
    x0 = np.array([[1.3], [0.4]])
    result = landing(problem, x0, step=0.1, max_iter=30, tol=1e-14, keep_iterates=100)
    X = result.iterates
    fig = figures.plane_figure(X, problem.cost, problem.egrad, beta=0.5, omega=1.0,
                               tangent="beta")
    traj = next(t for t in fig.data if t.name == "trajectory")
    assert len(traj.x) == result.iterations + 1 == 31
    np.testing.assert_allclose(traj.x, X[:, 0, 0])
    radii = figures.layer_radii(X)
    norms = np.linalg.norm(X[:, :, 0], axis=1)
    assert radii[0] == pytest.approx(norms[0])
    assert np.min(np.abs(radii - norms[-1])) <= 1e-3  # the last layer, up to merged duplicates
    assert all(np.min(np.abs(norms - r)) < 1e-12 for r in radii)
    circles = [t for t in fig.data if t.legendgroup == "layers"]
    assert len(circles) == len(radii)
    for circle, r in zip(circles, radii, strict=True):
        np.testing.assert_allclose(np.hypot(circle.x, circle.y), r)
    unit = next(t for t in fig.data if t.name.startswith("St(2, 1)"))
    np.testing.assert_allclose(np.hypot(unit.x, unit.y), 1.0)
    start = next(t for t in fig.data if t.name == "X₀")
    assert (start.x[0], start.y[0]) == (1.3, 0.4)


def test_plane_arrows_follow_minus_the_landing_field():
    problem = brockett(2, 1, seed=3)
    X = np.array([[[0.9], [0.8]]])
    pts = np.array([[0.7, -1.1]])
    V = figures._field_on_points(pts, problem.egrad, 0.5, 2.0, "beta")
    _, V_ref, _ = landing_field(pts.reshape(1, 2, 1), problem.egrad(pts.reshape(1, 2, 1)),
                                0.5, 2.0, "beta")
    np.testing.assert_allclose(V, V_ref[:, :, 0])
    fig = figures.plane_figure(X, problem.cost, problem.egrad, beta=0.5, omega=2.0,
                               tangent="beta")
    assert any(t.name == "landing field −V" for t in fig.data)


def test_sphere_frame_and_cone_figures_draw_every_iterate():
    trace, _, _ = run_config(n=3, p=1, max_iter=25, tol=1e-14)
    fig = figures.sphere_figure(np.array(trace.X), brockett(3, 1).cost)
    traj = next(t for t in fig.data if t.name == "trajectory")
    assert len(traj.x) == 26
    trace, _, _ = run_config(n=3, p=2, max_iter=25, tol=1e-14)
    X = np.array(trace.X)
    paths = [t for t in figures.frame_figure(X).data if (t.name or "").startswith("path")]
    for j, path in enumerate(paths):
        np.testing.assert_allclose(path.x, X[:, 0, j])
    cone = figures.gram_cone_figure(np.array(trace.gram))
    point = next(t for t in cone.data if t.name == "XₖᵀXₖ")
    M = np.einsum("kij,kil->kjl", X, X)
    np.testing.assert_allclose(point.x, M[:, 0, 0])
    np.testing.assert_allclose(point.z, M[:, 0, 1])


def test_frame_view_draws_the_unit_sphere_as_one_wireframerun_config():
    X = np.array([np.eye(3)[:, :2] * (1 + 0.1 * k) for k in range(5)])
    fig = figures.frame_figure(X)
    spheres = [t for t in fig.data if (t.name or "").startswith("sphere")]
    assert len(spheres) == 1 and spheres[0].type == "scatter3d"
    assert not any(t.type == "surface" for t in fig.data)
    assert {"column 1 of X₄", "column 2 of X₄"} <= {t.name for t in fig.data}  # subscripts
    pts = np.stack([spheres[0].x, spheres[0].y, spheres[0].z], axis=1).astype(float)
    rings = np.isnan(pts[:, 0])
    assert rings.sum() == 6 + 5  # six great circles (12 meridians) and five parallels
    np.testing.assert_allclose(np.linalg.norm(pts[~rings], axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(sorted(set(np.round(pts[~rings, 2], 12)) & {-0.866025403784,
                               -0.5, 0.0, 0.5, 0.866025403784}),
                               [-0.866025403784, -0.5, 0.0, 0.5, 0.866025403784])


def test_singular_values_are_those_of_the_iterates():
    trace, problem, config = run_config(problem="procrustes", n=12, p=3, max_iter=10, tol=1e-14)
    fig = figures.singular_values_figure(np.array(trace.sigma))
    assert len(fig.data) == 3
    assert fig.data[0].y[0] == pytest.approx(np.linalg.svd(
        runner.initial(config, problem), compute_uv=False)[0])


def test_a_plane_figure_marks_the_chosen_iteration():
    trace, problem, config = run_config(n=2, p=1, max_iter=20, tol=1e-14)
    fig = figures.plane_figure(np.array(trace.X), problem.cost, problem.egrad, beta=0.5,
                               omega=1.0, tangent="beta", current=7)
    mark = next(t for t in fig.data if t.name == "X₇")
    np.testing.assert_allclose([mark.x[0], mark.y[0]], trace.X[7][:, 0])


def test_the_step_panel_shows_the_normal_step_where_there_is_one():
    """BB lowers omega on long steps: the step panel draws eta_k omega_k (from the trace) beside
    eta_k; Riemannian GD has no normal term, and the panel shows eta_k alone."""
    trace, problem, config = run_config(n=20, p=4, step="bb", max_iter=200)
    fig = figures.convergence_figure(trace.cost, trace.infeasibility, trace.grad_norm,
                                     trace.step, f_star=runner.optimum(config, problem),
                                     normal_step=trace.normal_step)
    normal = next(t for t in fig.data if t.name.startswith("ηₖωₖ"))
    np.testing.assert_array_equal(normal.y[1:], trace.normal_step[1:])
    assert np.nanmax(normal.y) <= 0.5 * (1 + 1e-12) < np.nanmax(trace.step)  # long steps
    rgd = figures.convergence_figure([1.0, 0.5], [0.0, 0.0], [1.0, 0.5], [np.nan, 0.1],
                                     normal_step=[np.nan, 0.0])
    assert [t.name for t in rgd.data] == ["f", "‖XᵀX − I‖<sub>F</sub>", "‖grad₁ f‖ (stationarity)",
                                          "ηₖ"]


def test_the_history_csv_reads_back_as_therun_config():
    trace, _, _ = run_config(n=5, p=2, step="bb", max_iter=30, tol=1e-14)
    rows = np.genfromtxt(trace.csv().splitlines(), delimiter=",", names=True)
    assert rows.dtype.names == ("k", "cost", "infeasibility", "grad_norm", "step",
                                "normal_step", "time")
    np.testing.assert_array_equal(rows["k"], np.arange(31))
    for name in rows.dtype.names[1:]:
        np.testing.assert_array_equal(rows[name], getattr(trace, name))


def test_log_axes_over_a_decade_or_more_tick_at_powers_of_ten_only():
    """plotly labels minor log ticks with bare digits ("10⁻¹, 9, 8 …"). Panels whose data span
    >= 1 decade get dtick = ceil(span / 5) decades; narrower ones keep plotly's ticks."""
    k = np.arange(50)
    fig = figures.convergence_figure(10.0 ** (-k / 4), 0.3 * 0.8**k, 0.5 * 0.97**k,
                                     np.r_[np.nan, np.full(49, 0.1)], f_star=0.0)
    assert fig.layout.yaxis.dtick == 3  # |f - f*| over 12.25 decades
    assert fig.layout.yaxis2.dtick == 1  # ||h|| over 4.7 decades (grad over 0.65)
    assert fig.layout.yaxis3.dtick is None  # a constant step: plotly's own label
    # 1 to 2 decades would show a single power of ten: there 1, 2, 5 x 10^k are placed
    fig = figures.convergence_figure([1.0] * 4, [1.0] * 4, [1.0] * 4, [np.nan, 3e-3, 1e-2, 0.09])
    assert list(fig.layout.yaxis3.tickvals) == pytest.approx([5e-3, 1e-2, 2e-2, 5e-2])
    assert list(fig.layout.yaxis3.ticktext) == ["5×10⁻³", "10⁻²", "2×10⁻²", "5×10⁻²"]
