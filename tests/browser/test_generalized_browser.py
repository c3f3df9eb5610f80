"""The constraint XᵀBX = I in the explorer, in headless Chromium: the layers as ellipses in
the plane (with the field) and as ellipsoid outlines on the 3-D view."""

from __future__ import annotations

import pytest

from .helpers import player, state

pytestmark = pytest.mark.browser

INK_JS = """() => { const c = document.querySelector('canvas');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 200) ink++;
    return ink / (d.length / 4); }"""


@pytest.mark.parametrize(("query", "view", "name"), [
    ("problem=brockett&n=2&p=1&seed=3&distance=0.5", "plane", "plane_B_2x1"),
    ("problem=brockett&n=3&p=1&seed=1", "sphere", "ellipsoid_B_3x1"),
])
def test_the_B_layers_are_drawn_and_the_run_lands_on_them(server, page, shots, query, view,
                                                          name):
    page.goto(f"{server}/?{query}&constraint=preset&step=bb&max_iter=600")
    frame = player(page)
    # on a loaded machine the run may still be streaming when the page is idle
    frame.wait_for_function("landingPlayer.run.done", timeout=30_000)
    assert state(frame)["view"] == view
    assert frame.evaluate("() => !!landingPlayer.run.view.W")
    # the HTML export's data keep the constraint (its panels name ‖XᵀBX − I‖)
    assert frame.evaluate("landingPlayer.payload().header.B") is True
    frame.get_by_role("button", name="Run", exact=True).click()
    frame.wait_for_function("!landingPlayer.playing", timeout=30_000)
    assert frame.evaluate(INK_JS) > 0.01
    assert "converged" in state(frame)["status"].lower()
    page.screenshot(path=shots / f"view_{name}.png")
    assert page.console_errors == []


def _reveal(page) -> None:
    """A lecture preset's question hides the outcome and the curves: press Reveal where there
    is one, then wait for the curves."""
    from .helpers import wait_idle

    wait_idle(page, charts=False)
    reveal = page.get_by_role("button", name="Reveal")
    if reveal.count():
        reveal.click()
    wait_idle(page)


def test_the_B_presets_open_the_ellipses_and_the_side_by_side_comparison(server, page, shots):
    from explorer.presets import PRESETS

    from .helpers import CHART, wait_idle

    index = [p.title for p in PRESETS].index("XᵀX = I against XᵀBX = I from the same X₀")
    page.goto(server)
    player(page)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Lecture presets",
                                                            exact=True).click()
    wait_idle(page, charts=False)
    page.get_by_text("XᵀX = I against XᵀBX = I").first.wait_for()
    page.get_by_role("button", name="Show me").nth(index).click()
    page.get_by_text("Compare configurations").wait_for(timeout=30_000)
    _reveal(page)
    names = page.evaluate(
        f"Array.from(document.querySelectorAll({CHART!r})[0]._fullData).map(t => t.name)")
    assert sorted(set(names)) == ["on XᵀBX = I", "on XᵀX = I"]
    page.get_by_text("Summary", exact=True).wait_for(timeout=30_000)  # shown once revealed
    page.get_by_text("XᵀBX = I", exact=True).first.wait_for(state="attached")  # the summary
    page.screenshot(path=shots / "compare_St_vs_B.png")
    assert page.console_errors == []


@pytest.mark.parametrize(("n", "p", "view"), [(2, 1, "plane"), (3, 2, "frame")])
def test_the_eigenproblem_on_XtBX_shows_its_gap_and_the_B_manifold(server, page, shots, n, p,
                                                                   view):
    page.goto(f"{server}/?problem=generalized_eigen&n={n}&p={p}&seed=2&constraint=preset"
              "&step=bb&max_iter=600")
    frame = player(page)
    # on a loaded machine the run may still be streaming when the page is idle
    frame.wait_for_function("landingPlayer.run.done", timeout=30_000)
    assert state(frame)["view"] == view
    assert frame.evaluate("() => !!landingPlayer.run.view.W")  # the B ellipse / ellipsoid
    frame.get_by_role("button", name="Run", exact=True).click()
    frame.wait_for_function("!landingPlayer.playing", timeout=30_000)
    assert "converged" in state(frame)["status"].lower()
    numbers = frame.evaluate("() => landingPlayer.nums.textContent")
    assert "f − f*" in numbers and "‖grad1B f‖" in numbers and "‖grad‖" not in numbers
    gap = frame.evaluate("() => landingPlayer.run.cost.at(-1) - landingPlayer.run.fStar")
    assert abs(gap) <= 1e-8
    assert frame.evaluate(INK_JS) > 0.01
    page.screenshot(path=shots / f"eigenproblem_B_{n}x{p}.png")
    assert page.console_errors == []


def test_the_eigenproblem_preset_compares_gaps_and_draws_both_manifolds(server, page, shots):
    from explorer.presets import PRESETS

    from .helpers import CHART, wait_idle

    title = "The generalized eigenproblem: min tr(XᵀAX) on XᵀX = I and on XᵀBX = I"
    index = [p.title for p in PRESETS].index(title)
    page.goto(server)
    player(page)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Lecture presets",
                                                            exact=True).click()
    wait_idle(page, charts=False)
    page.get_by_text(title).first.wait_for()
    page.get_by_role("button", name="Show me").nth(index).click()
    page.get_by_text("Compare configurations").wait_for(timeout=30_000)
    _reveal(page)
    titles = page.evaluate(f"document.querySelectorAll({CHART!r})[0].layout.annotations"
                           ".map(a => a.text)")
    assert titles[0] == "|f(Xₖ) − f*|"  # both rows know their optimum: gaps, not costs
    # the race draws both manifolds: the B ellipsoid, and the unit sphere dashed beside it
    race = player(page)
    race.wait_for_function("landingPlayer.run && landingPlayer.run.race")
    view = race.evaluate("(() => { const v = landingPlayer.run.view; "
                         "return {B: !!v.W, unit: !!v.unit}; })()")
    assert view == {"B": True, "unit": True}
    page.screenshot(path=shots / "compare_eigenproblem_St_vs_B.png")
    assert page.console_errors == []
