"""Figure builders on their data: what is drawn is what was computed."""

import re

import numpy as np
import pytest

from explorer import figures, runner
from explorer.state import AppConfig
from tests.app_helpers import run_config


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
    run = dict(label="a", cost=10.0 ** (-k / 4), infeasibility=0.3 * 0.8**k,
               grad_norm=0.5 * 0.97**k, time=k)
    fig = figures.comparison_figure([run], f_star=0.0)
    assert fig.layout.yaxis.dtick == 3  # |f - f*| over 12.25 decades
    assert fig.layout.yaxis2.dtick == 1  # ||h|| over 4.7 decades
    assert fig.layout.yaxis3.dtick is None  # grad over 0.65 decades: plotly's own labels
    # 1 to 2 decades would show a single power of ten: there 1, 2, 5 x 10^k are placed
    run = dict(label="a", cost=[1.0] * 4, infeasibility=[1.0] * 4,
               grad_norm=[np.nan, 3e-3, 1e-2, 0.09], time=np.arange(4))
    fig = figures.comparison_figure([run], f_star=0.0)
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
