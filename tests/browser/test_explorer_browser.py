"""The explorer end to end in headless Chromium: load, change a parameter, Run, Pause, views."""

from __future__ import annotations

import re

import pytest

from .helpers import CHART, chart_points, points_js, wait_idle

pytestmark = pytest.mark.browser


def _metric(page, label: str) -> str:
    box = page.locator('[data-testid="stMetric"]', has_text=label).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def test_default_load_shows_the_computed_run(server, page, shots):
    page.goto(server)
    wait_idle(page)
    page.get_by_text(re.compile(r"Converged after \d+ iterations")).wait_for()
    k = int(_metric(page, "iteration k"))
    assert k > 0
    assert chart_points(page, 0, 0) == k + 1  # |f - f*| has one point per iterate
    assert page.locator(CHART).count() == 2  # convergence and the chosen view (the frame)
    page.screenshot(path=shots / "explorer_default_3x2.png")
    assert page.console_errors == []


def test_change_a_parameter_then_run_to_the_end(server, page, shots):
    page.goto(server)
    wait_idle(page)
    box = page.get_by_label("max iterations")
    box.fill("60")
    box.press("Enter")
    page.get_by_text("Reached the iteration limit (60)").wait_for(timeout=30_000)
    wait_idle(page)
    page.get_by_role("button", name="Run").click()
    page.get_by_text(re.compile(r"Animated 60 iterations in")).wait_for(timeout=30_000)
    wait_idle(page)
    page.wait_for_function(f"{points_js(0, 0)} === 61")
    assert _metric(page, "iteration k") == "60"
    page.screenshot(path=shots / "explorer_after_run.png")
    assert page.console_errors == []


def test_pause_stops_a_slow_run(server, page):
    page.goto(f"{server}/?speed=slow&max_iter=400&tol=1e-14&n=20&p=4")
    wait_idle(page)
    page.get_by_role("button", name="Run").click()
    page.get_by_text(re.compile(r"Running… k = \d+")).wait_for(timeout=20_000)
    page.get_by_role("button", name="Pause").click()
    page.get_by_text(re.compile(r"Paused at k = \d+")).wait_for(timeout=20_000)
    k = int(re.search(r"Paused at k = (\d+)", page.inner_text("body")).group(1))
    assert 0 < k < 400
    assert page.console_errors == []


@pytest.mark.parametrize(
    ("query", "view", "name"),
    [
        ("problem=quartic&n=2&p=1&distance=0.5", None, "plane_2x1"),
        ("problem=brockett&n=3&p=1", None, "sphere_3x1"),
        ("problem=brockett&n=3&p=2", None, "frame_3x2"),
        ("problem=procrustes&n=20&p=4", None, "singular_values_20x4"),
        ("problem=linear&n=3&p=2&distance=1.0", "Gram matrix", "gram_cone_3x2"),
    ],
)
def test_each_view_renders(server, page, shots, query, view, name):
    page.goto(f"{server}/?{query}")
    wait_idle(page)
    if view is not None:
        page.get_by_role("radio", name=view).click()  # a segmented control
        page.get_by_text("The Gram matrix XₖᵀXₖ in the cone SPD(2)").wait_for(timeout=30_000)
        wait_idle(page)
    page.wait_for_function(f"document.querySelectorAll({CHART!r}).length === 2")
    page.screenshot(path=shots / f"view_{name}.png")
    page.locator(CHART).nth(1).screenshot(path=shots / f"chart_{name}.png")
    assert page.console_errors == []


def test_a_good_upload_right_after_a_rejected_one_is_used(server, page, shots, tmp_path):
    """Found by a user pass: replacing a rejected file passes through "no file", which cleared
    the uploader and dropped the good file that followed."""
    bad, good = tmp_path / "bad.csv", tmp_path / "good.csv"
    bad.write_text("1,2,3\n4,5\n7,8,9\n")
    good.write_text("3,0,0\n0,1,0\n0,0,-2\n")
    page.goto(f"{server}/?step=bb")
    wait_idle(page)
    page.get_by_text("Your own matrix").click()
    uploader = '[data-testid="stSidebar"] input[type="file"]'
    page.set_input_files(uploader, str(bad))
    page.get_by_text("row 2 has 2 values where the rows above have 3").wait_for(timeout=30_000)
    page.set_input_files(uploader, str(good))
    page.get_by_text("Using good.csv (3 × 3).").wait_for(timeout=30_000)
    wait_idle(page)
    # Brockett with A = diag(3, 1, -2), N = diag(2, 1): f* = 2(-2) + 1(1) = -3
    assert float(_metric(page, "f(Xₖ)")) == pytest.approx(-3.0, abs=1e-6)
    page.screenshot(path=shots / "explorer_upload_after_rejection.png")
