"""Figure builders on their data: what is drawn is what was computed."""

import re

import numpy as np
import pytest

from explorer import runner
from explorer.state import AppConfig
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


def _B_runs(n: int, p: int, on_B: tuple[bool, ...]) -> tuple[list[dict], np.ndarray]:
    """Runs of the eigenproblem from one X_0, on XᵀX = I or XᵀBX = I (the preset B)."""
    from explorer import compare
    from explorer.constraint import preset_B

    config = AppConfig(problem="generalized_eigen", n=n, p=p, step="bb", max_iter=300)
    rows = [compare.row(f"r{i}", step="bb", constraint="B" if b else "identity")
            for i, b in enumerate(on_B)]
    return compare.run_rows(config, rows, None)[0], preset_B(n)


def _on(points: np.ndarray, B: np.ndarray) -> np.ndarray:
    """x^T B x of each finite point (rows)."""
    points = points[np.all(np.isfinite(points), axis=1)]
    return np.einsum("ij,jk,ik->i", points, B, points)


@pytest.mark.parametrize("n, p", [(2, 1), (3, 1), (3, 2)])
def test_trajectories_on_XtBX_are_drawn_with_the_B_ellipse_or_ellipsoid(n, p):
    runs, B = _B_runs(n, p, (True, True))
    cost = runner.build_problem(AppConfig(problem="generalized_eigen", n=n, p=p)).cost
    fig = figures.trajectories_figure(runs, cost, n, p, B=B)
    names = [t.name for t in fig.data]
    assert "‖x‖ = 1" not in names and "unit sphere" not in names
    assert not any(str(name).startswith("sphere") for name in names)
    if n == 2:
        (ellipse,) = [t for t in fig.data if t.name == "xᵀBx = 1"]
        pts = np.stack([ellipse.x, ellipse.y], axis=1)
    elif p == 1:
        (surface,) = [t for t in fig.data if t.name == "ellipsoid xᵀBx = 1"]
        assert isinstance(surface, figures.go.Surface)
        pts = np.stack([np.ravel(surface.x), np.ravel(surface.y), np.ravel(surface.z)], axis=1)
    else:
        (wire,) = [t for t in fig.data if t.name == "ellipsoid xᵀBx = 1"]
        pts = np.stack([wire.x, wire.y, wire.z], axis=1).astype(float)
    assert len(pts) > 100
    np.testing.assert_allclose(_on(pts, B), 1.0, atol=1e-12)
    # the last iterates' columns lie on the drawn manifold
    for run in runs:
        X = np.asarray(run["X"])[-1]
        np.testing.assert_allclose(np.einsum("ij,jk,ik->i", X.T, B, X.T), 1.0, atol=1e-7)


@pytest.mark.parametrize("n, p", [(2, 1), (3, 1), (3, 2)])
def test_trajectories_of_mixed_rows_draw_both_manifolds(n, p):
    runs, B = _B_runs(n, p, (False, True))
    cost = runner.build_problem(AppConfig(problem="generalized_eigen", n=n, p=p)).cost
    fig = figures.trajectories_figure(runs, cost, n, p, B=B)
    by_name = {t.name: t for t in fig.data}
    unit = by_name["‖x‖ = 1" if n == 2 else "unit sphere" if p == 1 else "sphere ‖x‖ = 1"]
    ellipse = by_name["xᵀBx = 1" if n == 2 else "ellipsoid xᵀBx = 1"]
    coords = ("x", "y") if n == 2 else ("x", "y", "z")

    def points(trace) -> np.ndarray:
        return np.stack([np.ravel(np.asarray(getattr(trace, c), dtype=float))
                         for c in coords], axis=1)

    np.testing.assert_allclose(_on(points(unit), np.eye(n)), 1.0, atol=1e-12)
    np.testing.assert_allclose(_on(points(ellipse), B), 1.0, atol=1e-12)
    # without B (the St rows alone, or no matrix given) nothing of B is drawn
    plain = figures.trajectories_figure(runs[:1], cost, n, p, B=B)
    assert all("B" not in str(t.name) for t in plain.data)


def test_the_frame_view_on_XtBX_draws_the_ellipsoid_its_columns_lie_on():
    from explorer import playback
    from explorer.constraint import preset_B

    config = AppConfig(problem="generalized_eigen", constraint="preset", n=3, p=2, step="bb",
                       max_iter=300)
    B = preset_B(3)
    problem = runner.build_problem(config, B=B)
    trace = runner.run_to_end(*runner.start(config, problem), config)
    view = playback.view_data("frame", trace, problem, config)
    W, L = np.array(view["W"]), np.array(view["L"])
    np.testing.assert_allclose(W.T @ B @ W, np.eye(3), atol=1e-10)  # W u on xᵀBx = 1
    np.testing.assert_allclose(L @ L.T, B, atol=1e-10)
    assert "ellipsoid xᵀBx = 1" in view["title"] and "B-orthogonal" in view["caption"]
    assert view["R"] >= 1.1 * view["axis"]  # the whole ellipsoid fits the box
    X = trace.X[-1]
    np.testing.assert_allclose(X.T @ B @ X, np.eye(2), atol=1e-7)
    plain = playback.view_data("frame", trace, runner.build_problem(config), config)
    assert "W" not in plain and "sphere" in plain["title"]


def test_the_compare_caption_names_the_manifolds_drawn():
    from explorer import compare

    assert compare.manifolds_drawn([False, False], 3) == ""
    assert "ellipse xᵀBx = 1" in compare.manifolds_drawn([True], 2)
    both = compare.manifolds_drawn([False, True], 3)
    assert "unit sphere" in both and "ellipsoid xᵀBx = 1" in both


def test_figures_take_the_players_text_sizes_normal_and_lecture():
    """The pages' plotly figures read as the explorer's player does: its tick labels (13 px,
    17 in lecture mode) and its other text (15 px, 19), taken from player.js itself."""
    from pathlib import Path

    js = (Path(__file__).resolve().parents[1] / "explorer/player/player.js").read_text()
    tick = re.search(r"font: lecture \? (\d+) : (\d+),", js)
    text = re.search(r'"--lp-font", run\.lecture \? "(\d+)px" : "(\d+)px"', js)
    assert {False: (int(tick[2]), int(text[2])),
                                  True: (int(tick[1]), int(text[1]))} == figures.TEXT_SIZES
    runs = [dict(label="a", cost=[1.0, 0.5], infeasibility=[0.1, 0.01], grad_norm=[1.0, 0.1],
                 time=[0.0, 0.1])]
    for lecture, (small, large) in figures.TEXT_SIZES.items():
        fig = figures.text_size(figures.comparison_figure(runs, f_star=0.0), lecture)
        assert fig.layout.font.size == small and fig.layout.legend.font.size == large
        assert [a.font.size for a in fig.layout.annotations] == [large] * 3  # panel titles
        assert fig.layout.xaxis.tickfont.size is None  # the layout's font: no override
        assert fig.layout.xaxis3.title.font.size == small  # not plotly's 1.2 times
    default = figures.comparison_figure(runs, f_star=0.0)
    assert default.layout.font.size == 13 and default.layout.annotations[0].font.size == 15
    cube = figures.text_size(figures.trajectories_figure(
        [dict(label="a", X=np.tile(np.eye(3)[:, :2], (3, 1, 1)))], lambda X: X.sum(axis=(-2, -1)),
        3, 2), lecture=True)
    assert cube.layout.scene.xaxis.title.font.size == 17 and cube.layout.font.size == 17
