"""The player's data (explorer.playback): chunks of a run's history and each view's static
data, checked against the trace and against the cost and the landing field computed
independently, point by point."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import playback, style
from explorer.state import AppConfig
from explorer.views import B_VIEWS, VIEWS
from landing_core.geometry import grad_beta
from tests.app.helpers import run_config

pytestmark = pytest.mark.filterwarnings("error")


def test_a_whole_chunk_holds_every_iterate_of_therun_config():
    trace, _, _ = run_config(n=3, p=2, max_iter=40, tol=1e-14)
    data = playback.chunk(trace, 0)
    assert data["start"] == 0 and len(data["cost"]) == trace.k + 1 == 41
    assert data["cost"] == trace.cost and data["h"] == trace.infeasibility
    assert data["step"][0] is None and data["step"][1:] == trace.step[1:]  # NaN travels as null
    X = np.array(trace.X)
    np.testing.assert_allclose(data["x"], X.reshape(41, 6), atol=0.5e-6)  # rounded to 1e-6
    np.testing.assert_array_equal(np.array(data["x"])[:, [0, 2, 4]],  # column 1: 0, 2, 4
                                  np.round(X[:, :, 0], playback.DECIMALS))
    np.testing.assert_allclose(data["sigma"], [np.linalg.svd(x, compute_uv=False) for x in X],
                               atol=1e-6)
    M = np.einsum("kij,kil->kjl", X, X)
    np.testing.assert_allclose(data["gram"], np.stack([M[:, 0, 0], M[:, 1, 1], M[:, 0, 1]], 1),
                               atol=1e-6)
    json.dumps(data, allow_nan=False)  # strict JSON: the browser's JSON.parse takes it


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 6), p=st.integers(1, 3), cut=st.floats(0, 1))
def test_chunks_are_suffixes_of_the_whole(n, p, cut):
    p = min(p, n)
    trace, _, _ = run_config(n=n, p=p, max_iter=15, tol=1e-14)
    whole = playback.chunk(trace, 0)
    start = round(cut * (trace.k + 1))
    part = playback.chunk(trace, start)
    assert part["start"] == start
    for key, value in whole.items():
        if isinstance(value, list):
            assert part[key] == value[start:], key
        elif key != "start":
            assert part[key] is None and value is None
    assert (whole["x"] is None) == (n > 3)
    assert (whole["sigma"] is None) == (p == 1 and n in (2, 3))
    assert (whole["gram"] is None) == (p != 2)


def test_a_chunk_outside_the_trace_is_refused():
    trace, _, _ = run_config(n=3, p=1, max_iter=5, tol=1e-14)
    assert playback.chunk(trace, trace.k + 1)["cost"] == []
    with pytest.raises(ValueError, match="outside"):
        playback.chunk(trace, trace.k + 2)


def test_the_plane_shows_the_cost_and_minus_the_landing_field():
    trace, problem, config = run_config(problem="quartic", n=2, p=1, distance=0.5, omega=2.0,
                                    max_iter=50)
    view = playback.view_data("plane", trace, problem, config)
    R, m = view["R"], view["m"]
    assert R >= 1.6 and 1.15 * max(np.linalg.norm(x) for x in trace.X) - 1e-12 <= R
    g = np.linspace(-R, R, m)
    for i, j in [(0, 0), (3, 71), (m - 1, 10), (50, m - 1)]:  # row i is x2 = g[i]
        x = np.array([[g[j]], [g[i]]])
        assert view["z"][i * m + j] == pytest.approx(float(problem.cost(x)), rel=1e-12)
    spacing = 2 * R / playback.PLANE_ARROWS
    for x1, x2, u, v in view["arrows"][::17]:
        X = np.array([[x1], [x2]])
        G = problem.egrad(X)
        V = grad_beta(X, G, config.beta) + config.omega * X * (X.T @ X - 1.0)  # eq. (landing)
        direction = -V[:, 0] / np.linalg.norm(V)
        arrow = np.array([u, v])
        assert np.linalg.norm(arrow) <= 0.9 * spacing + 1e-6  # coordinates rounded to 1e-6
        np.testing.assert_allclose(arrow, direction * np.linalg.norm(arrow), atol=2e-6)
        assert math.hypot(x1, x2) > 0.2  # never at the rank-deficient origin


def test_the_sphere_colours_each_cell_by_the_cost_at_its_centre():
    trace, problem, config = run_config(n=3, p=1, max_iter=30)
    view = playback.view_data("sphere", trace, problem, config)
    nlat, nlon = view["nlat"], view["nlon"]
    assert len(view["z"]) == nlat * nlon
    for i, j in [(0, 0), (5, 17), (nlat - 1, nlon - 1), (12, 30)]:
        lat = -np.pi / 2 + np.pi * (i + 0.5) / nlat  # as player.js places cell (i, j)
        lon = 2 * np.pi * (j + 0.5) / nlon
        x = np.array([[np.cos(lat) * np.cos(lon)], [np.cos(lat) * np.sin(lon)], [np.sin(lat)]])
        assert view["z"][i * nlon + j] == pytest.approx(float(problem.cost(x)), rel=1e-12)
    assert view["zlo"] == min(view["z"]) and view["zhi"] == max(view["z"])


def test_the_header_carries_the_speed_the_optimum_and_the_view():
    trace, problem, config = run_config(n=3, p=2, max_iter=10, speed="instant")
    names = ["frame", "sigma", "cone"]
    head = playback.header(names, "cone", trace, problem, config, -2.5)
    assert head["rate"] is None and head["f_star"] == -2.5 and head["max_iter"] == 10
    assert head["view"] == "cone" and [v["kind"] for v in head["views"]] == names
    assert head["views"][2]["top"] >= 2.2 and head["views"][2]["label"] == "Gram matrix"
    slow = playback.header(names, "frame", trace, problem, AppConfig(speed="slow"), None)
    assert slow["rate"] == 30.0 and slow["f_star"] is None and slow["views"][0]["R"] >= 1.3
    json.dumps(head, allow_nan=False)
    with pytest.raises(ValueError, match="not among"):
        playback.header(names, "plane", trace, problem, config, None)


@pytest.mark.parametrize(("n", "p", "view"), [(3, 2, "frame"), (3, 1, "sphere"),
                                             (2, 1, "plane")])
def test_a_diverging_run_leaves_the_view_rather_than_shrink_the_sphere(n, p, view):
    """Scaled to a diverging run's iterates (|x| in the hundreds) the unit circle or sphere
    was a dot. The view's reach is capped at VIEW_REACH and its caption says how far the
    iterates went; a run that stays near the manifold is framed by its iterates as before."""
    trace, problem, config = run_config(n=n, p=p, step="constant", eta=2.0, max_iter=50)
    assert trace.status == "diverged"
    far = float(np.max(np.linalg.norm(np.asarray(trace.X), axis=1)))
    assert far > 10 * playback.VIEW_REACH
    data = playback.view_data(view, trace, problem, config)
    assert data["R"] == playback.VIEW_REACH
    assert " The view reaches |x| = 3: the iterates go out to |x| = " in data["caption"]
    assert data["caption"].endswith(", beyond it.")
    calm, problem, config = run_config(n=n, p=p, max_iter=50)
    data = playback.view_data(view, calm, problem, config)
    # every column of every iterate inside the view, the farthest with its margin
    columns = np.asarray(calm.X).swapaxes(1, 2).reshape(-1, n)
    far = float(np.max(np.linalg.norm(columns, axis=1)))
    assert data["R"] >= (1.15 if view == "plane" else 1.1) * far and data["R"] < 2
    assert "beyond it" not in data["caption"]


def test_a_view_says_it_cuts_iterates_only_where_it_does():
    """Within |x| <= VIEW_REACH no iterate is cut, whatever the margin (at |x| = 2.8 the
    margin asked for 3.2 and the caption said 2.8 was beyond 3); the ellipsoid xᵀBx = 1 is
    framed whole however long its axis, and the caption names the radius drawn."""
    assert playback._radius(np.array([[2.8, 0.0]]), 1.15, 1.6, 0.0) == (3.0, "")
    assert playback._radius(np.array([[1.0, 0.0]]), 1.15, 1.6, 0.0) == (1.6, "")
    R, cut = playback._radius(np.array([[0.0, 10.0], [0.0, 40.0]]), 1.15, 1.6, 10.0)
    assert R == 11.5 and cut == (" The view reaches |x| = 11.5: the iterates go out to "
                                 "|x| = 40, beyond it.")
    assert playback._radius(np.array([[0.0, 10.0]]), 1.15, 1.6, 10.0) == (11.5, "")
    # the plane's view is the square [-R, R]²: (2.5, 2.5), |x| = 3.5, is inside it
    assert playback._radius(np.array([[2.5, 2.5]]), 1.15, 1.6, 0.0, square=True) == (3.0, "")
    assert playback._radius(np.array([[3.2, 0.0]]), 1.15, 1.6, 0.0, square=True)[1]
    # |x| in the caption: three digits, from 1000 on as m×10ᵉ (999.7 read 1e+03)
    for far, shown in ((65.1, "65.1"), (999.7, "1.0×10³"), (3529.0, "3.5×10³"),
                       (9990.0, "1.0×10⁴")):
        cut = playback._radius(np.array([[far, 0.0]]), 1.1, 1.3, 0.0)[1]
        assert cut == f" The view reaches |x| = 3: the iterates go out to |x| = {shown}, beyond it."


def test_the_cone_view_holds_the_whole_path_inside_its_cone():
    """The Gram view draws the cone up to the ring tr M = top and turns about its centre
    c = (top/2, top/2, 0) with radius 0.8 top (the cone reaches top/√2 from c). A nearly
    rank-one X0ᵀX0, (3.9, 3.9, -3.89), has trace 7.8: with top from max(m11, m22) (4.49) it
    lay outside the drawn cone and 1.01 top from c, out of the view."""
    trace, problem, config = run_config(n=3, p=2, max_iter=10)
    view = playback.view_data("cone", trace, problem, config)
    M = np.asarray(trace.gram)
    assert view["top"] == 1.1 * max(2.0, (M[:, 0, 0] + M[:, 1, 1]).max())
    assert view["R"] == 0.8 * view["top"]
    trace.gram[0] = np.array([[3.9, -3.89], [-3.89, 3.9]])
    view = playback.view_data("cone", trace, problem, config)
    top = view["top"]
    assert top == pytest.approx(1.1 * 7.8, rel=1e-15) and top > 7.8  # inside the ring
    reach = np.sqrt(2 * (3.9 - top / 2) ** 2 + 3.89 ** 2)
    assert reach < top / np.sqrt(2) and view["R"] == 0.8 * top


def test_each_iterate_gap_is_taken_in_its_own_component():
    """linear(2, 2), seed 14, constant eta = 0.6: the run crosses det X = 0; the chunk's f* per
    iterate follows the sign of det X_k, so the last gap is >= 0 (X_0's f* would give -2.12)."""
    trace, problem, _ = run_config(problem="linear", n=2, p=2, seed=14, distance=0.4, beta=1.0,
                               omega=1.0, step="constant", eta=0.6, max_iter=2000)
    data = playback.chunk(trace, 0)
    signs = [1 if np.linalg.det(X) > 0 else -1 for X in trace.X]
    assert signs[0] != signs[-1]
    assert data["fstar"] == [problem.f_star_by_det[s] for s in signs]
    assert abs(data["cost"][-1] - data["fstar"][-1]) <= 1e-8
    assert playback.chunk(run_config(n=3, p=2, max_iter=5)[0], 0)["fstar"] is None  # p < n


def test_the_player_draws_exactly_the_views_python_names():
    """The view names are written once, in explorer.views (each view's "kind" in the header);
    the player's views.js and metric.js have one drawing for each of them and no other. On
    XᵀBX = I every view has its B version but the Metric and Safe step views, not offered
    there."""
    folder = Path(playback.__file__).parent / "player"
    js = "".join((folder / name).read_text(encoding="utf-8") for name in ("views.js", "metric.js"))
    assert set(re.findall(r"^  VIEWS\.(\w+) = \{", js, re.M)) == set(VIEWS)
    assert set(B_VIEWS) == set(VIEWS) - {"metric", "safe"}


def test_the_figures_constants_are_the_players():
    """explorer.style reads the player's constants.js: the palette, and the digits of 10⁻¹²
    and X₁₃₂ as the player writes them."""
    assert len(set(style.PALETTE)) == 8 and style.PALETTE[0] == "#0072B2"
    assert "10" + "-12".translate(style.SUPERSCRIPTS) == "10⁻¹²"
    assert "X" + "132".translate(style.SUBSCRIPTS) == "X₁₃₂"
