"""The compare and presets pages end to end in headless Chromium."""

from __future__ import annotations

import pytest

from .helpers import CHART, player, points_js, wait_idle

pytestmark = pytest.mark.browser


def _open(page, server, link: str, charts: bool = True) -> None:
    """Load the app and go to a page through the sidebar navigation (a direct page URL makes
    the frontend request /<page>/_stcore/... first and log 404s)."""
    page.goto(server)
    player(page)  # the explorer, where the app opens
    page.locator('[data-testid="stSidebarNav"]').get_by_text(link, exact=True).click()
    wait_idle(page, charts=charts)


def test_compare_page_overlays_runs_and_switches_to_wall_time(server, page, shots):
    _open(page, server, "Compare")
    page.get_by_text("Compare configurations").wait_for()
    page.get_by_text("Right: the trajectories from the same X₀").wait_for(timeout=60_000)
    wait_idle(page)
    page.wait_for_function(f"document.querySelectorAll({CHART!r}).length === 2",
                           timeout=60_000)
    # one trace per row in each of the three panels, plus the trajectories
    names = page.evaluate(
        f"Array.from(document.querySelectorAll({CHART!r})[0]._fullData).map(t => t.name)")
    assert sorted(set(names)) == ["β = 0.1", "β = 0.5", "β = 1", "β = 5"]
    page.get_by_text("wall time", exact=True).click()
    page.wait_for_function(
        f"document.querySelectorAll({CHART!r})[0]?._fullLayout?.xaxis?.title?.text === "
        "'wall time (s)'", timeout=30_000)  # ?.: the chart may be mid-redraw when polled
    wait_idle(page)
    assert page.evaluate(points_js(0, 0)) > 1
    page.screenshot(path=shots / "compare.png")
    assert page.console_errors == []


def test_a_preset_opens_its_comparison(server, page, shots):
    _open(page, server, "Lecture presets", charts=False)
    page.get_by_text("Too large a step diverges").first.wait_for()
    page.get_by_role("button", name="Show me").nth(2).click()
    page.get_by_text("Compare configurations").wait_for(timeout=30_000)
    wait_idle(page)
    # its question first: the outcome waits for Reveal (explorer.lecture)
    page.get_by_text("Will the constant step η = 0.08 converge?").wait_for(timeout=30_000)
    assert page.get_by_text("Diverged at iteration").count() == 0
    page.get_by_role("button", name="Reveal").click()
    page.get_by_text("constant η = 0.08: Diverged at iteration").wait_for(timeout=30_000)
    wait_idle(page)
    names = page.evaluate(
        f"Array.from(document.querySelectorAll({CHART!r})[0]._fullData).map(t => t.name)")
    assert sorted(set(names)) == ["constant η = 0.08", "constant η = 0.08: diverged",
                                  "safe step, η ≤ 0.08"]  # a cross where the run ended
    # the preset's configuration reached the sidebar
    assert page.get_by_label("n", exact=True).input_value() == "20"
    page.screenshot(path=shots / "preset_safe_step.png")
    assert page.console_errors == []


PROGRESS = '[data-testid="stProgress"]'


def test_a_widget_that_does_not_change_the_comparison_does_not_restart_it(server, page, shots):
    """While four long rows compute, the sidebar's η changes (the rows set their own): the
    page reruns, and the progress goes on from the row it had reached instead of row 1."""
    page.goto(f"{server}/?n=120&p=30&max_iter=5000&tol=1e-14")  # rows of 0.5 s or more
    player(page)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Compare", exact=True).click()
    seen = page.locator(PROGRESS).get_by_text("Running row 2 of 4")
    seen.wait_for(timeout=300_000)
    page.screenshot(path=shots / "compare_running.png")
    eta = page.get_by_label("η (step; the cap for safe, first trial for Armijo)")
    eta.fill("0.05")
    eta.press("Enter")
    texts = []
    for _ in range(3000):  # until the summary shows: the progress texts seen meanwhile
        texts += page.evaluate(f"""Array.from(document.querySelectorAll({PROGRESS!r}))
                                       .map(e => e.textContent)""")
        if page.get_by_text("Summary", exact=True).count():
            break
        page.wait_for_timeout(100)
    assert page.get_by_text("Summary", exact=True).count()
    rows = [int(t.split("Running row ")[1][0]) for t in texts if "Running row" in t]
    assert rows and min(rows) >= 2 and rows == sorted(rows), texts  # never back to row 1
    assert not any("Running the configurations" in t for t in texts), texts
    wait_idle(page)
    assert page.console_errors == []
