"""The Sweep page in headless Chromium: reached from the navigation, heatmaps drawn, diverged
cells marked, the grid resized, a cell clicked and opened in the explorer."""

from __future__ import annotations

import re

import pytest

from .helpers import CHART, IDLE, player

pytestmark = pytest.mark.browser


def _cells_js(index: int) -> str:
    """JS for the number of cells of the ``index``-th chart's heatmap (rows x columns)."""
    return (f"(() => {{ const z = document.querySelectorAll({CHART!r})[{index}]"
            "._fullData[0].z; return z.length * z[0].length; })()")


def _open_sweep(page, server: str) -> None:
    page.goto(server)
    # the explorer's title is enough: its charts need not finish before we navigate
    page.get_by_role("heading", name="Landing on St(n, p)").wait_for()
    page.get_by_role("link", name="Sweep").click()
    page.get_by_role("heading", name="Parameter sweep").wait_for()
    page.wait_for_function(f"document.querySelectorAll({CHART!r}).length === 3")
    page.wait_for_selector(IDLE)


def _cell_centre(page, index: int, eta: float, param: float) -> tuple[float, float]:
    """Page coordinates of the point (eta, param) in the ``index``-th heatmap."""
    return tuple(page.evaluate(
        f"""(() => {{
            const el = document.querySelectorAll({CHART!r})[{index}];
            const xa = el._fullLayout.xaxis, ya = el._fullLayout.yaxis;
            const r = el.getBoundingClientRect();
            return [r.left + xa._offset + xa.l2p(Math.log10({eta})),
                    r.top + ya._offset + ya.l2p(Math.log10({param}))];
        }})()"""))


def _plane_js(symbol: str) -> str:
    """JS: every heatmap's parameter axis is ``symbol``'s (the plane shown)."""
    return (f"[...document.querySelectorAll({CHART!r})].length === 3 && "
            f"[...document.querySelectorAll({CHART!r})].every(el => "
            f"el._fullLayout?.yaxis?.title?.text?.startsWith({symbol!r}))")


def test_sweep_heatmaps_diverged_cells_resize_and_open_a_cell(server, page, shots):
    """One page through the default grid, the ω plane with diverged cells, the smallest grid
    and a cell opened in the explorer (each sweep's page load and default grid, once)."""
    _open_sweep(page, server)
    for i in range(3):
        page.wait_for_function(f"{_cells_js(i)} === 900")  # the default 30 x 30 grid
    page.get_by_text(re.compile(r"900 runs \(30 × 30\) computed as one batch")).wait_for()
    page.screenshot(path=shots / "sweep_default_30x30.png")

    # the ω plane with the constant step: some runs diverge, and their cells are marked
    page.get_by_text("ω × η").click()
    page.get_by_text("constant η").click()
    page.get_by_text(re.compile(r"900 runs .* [1-9]\d* diverged")).wait_for(timeout=30_000)
    page.wait_for_selector(IDLE)
    page.wait_for_function(
        f"document.querySelectorAll({CHART!r})[0]._fullData.some(t => "
        "t.name.startsWith('diverged') && t.x.length > 0)")
    page.screenshot(path=shots / "sweep_omega_constant.png")

    grid = page.get_by_role("slider", name="Grid resolution (points per axis)")
    grid.focus()
    grid.press("Home")  # the smallest grid, 5 x 5
    page.get_by_text(re.compile(r"25 runs \(5 × 5\) computed")).wait_for(timeout=30_000)
    page.wait_for_selector(IDLE)
    for i in range(3):
        page.wait_for_function(f"{_cells_js(i)} === 25")

    page.get_by_text("β × η").click()  # the grid and the constant step stay
    page.wait_for_function(_plane_js("β"), timeout=30_000)
    page.get_by_text(re.compile(r"with the constant η in the explorer")).wait_for(timeout=30_000)
    page.wait_for_selector(IDLE)
    for i in range(3):
        page.wait_for_function(f"{_cells_js(i)} === 25")
    x, y = _cell_centre(page, 0, 0.0562, 1.0)  # the 5 x 5 grid's eta = 0.0562 and beta = 1
    page.mouse.move(x, y)
    page.mouse.click(x, y)
    opens = page.get_by_text("Opens β = 1, ω = 1, η = 0.0562 with the constant η")
    opens.wait_for(timeout=30_000)
    page.wait_for_selector(IDLE)
    page.screenshot(path=shots / "sweep_5x5_constant.png")
    page.locator(CHART).nth(0).screenshot(path=shots / "chart_sweep_iterations_5x5.png")

    page.get_by_role("button", name="Open in explorer").click()
    page.get_by_role("heading", name="Landing on St(n, p)").wait_for(timeout=30_000)
    player(page)
    page.get_by_text("β = 1 · ω = 1 · constant η, η = 0.0562").wait_for()
    assert "beta=1.0" in page.url and "eta=0.0562" in page.url and "step=constant" in page.url
    assert page.console_errors == []
