"""Issue 11's teaching additions in Chromium: the exact normal flow in the player's views and
the Theory page's demonstrations (with lecture mode hiding their explanations)."""

from __future__ import annotations

import pytest

from .helpers import player, wait_idle

pytestmark = pytest.mark.browser

FLOW_GAP_JS = """() => { const r = landingPlayer.run; let gap = 0;
  for (let k = 0; k < r.gram.length; k++) for (let j = 0; j < 3; j++)
    gap = Math.max(gap, Math.abs(r.gram[k][j] - r.flowGram[k][j]));
  return {n: r.gram.length, flow: r.flowGram.length, cols: r.flowCols.length, gap}; }"""


def test_the_player_holds_and_draws_the_exact_normal_flow(server, page, shots):
    page.goto(f"{server}/?problem=linear&n=3&p=2&seed=1&distance=1&step=constant&eta=0.02"
              "&max_iter=300&view=cone")
    frame = player(page)
    frame.wait_for_function("landingPlayer.run.done", timeout=60_000)
    got = frame.evaluate(FLOW_GAP_JS)
    assert got["n"] == got["flow"] == 301 and got["cols"] == 2
    assert got["gap"] < 0.1  # the iterates follow the flow to O(eta)
    frame.evaluate("landingPlayer.seek(60)")
    page.screenshot(path=shots / "explorer_cone_with_flow.png")
    assert page.console_errors == []


def test_the_theory_demonstrations_show_in_the_browser(server, page, shots):
    """Every demonstration with its explanation, then lecture mode hides them. One page for
    both: typesetting the Theory page's formulas takes the browser ~20 s a load."""
    page.goto(server)
    wait_idle(page, charts=False)
    page.get_by_role("link", name="Theory").first.click()
    # the old page is idle too: wait for the Theory page itself before touching its sidebar
    demonstrations = page.get_by_text("Demonstrations: what they imply").first
    demonstrations.wait_for(timeout=60_000)
    wait_idle(page, charts=False)
    demonstrations.click()
    wait_idle(page)
    for label in ("The normal flow", "β within one layer", "The ω trade-off"):
        page.get_by_text(label).first.click()
        wait_idle(page)
        page.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot')
        assert page.get_by_text("Why", exact=True).count() == 1
    page.screenshot(path=shots / "theory_omega_demo.png")
    # lecture mode hides the explanations of all alike (its one switch: explorer.demos._explain),
    # so one demonstration shows it: the sidebar's toggle, on the ω trade-off shown
    page.locator('[data-testid="stSidebar"]').get_by_text("Lecture mode", exact=True).click()
    wait_idle(page, charts=False)
    page.get_by_text("The ω trade-off").first.click()
    wait_idle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot')
    # awaited, not read once: the page can be idle before the toggle's rerun has begun
    page.get_by_text("Why", exact=True).wait_for(state="detached", timeout=30_000)
    page.screenshot(path=shots / "theory_omega_demo_lecture.png")
    assert page.console_errors == []
