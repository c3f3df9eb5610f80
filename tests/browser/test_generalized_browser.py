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
    s = state(frame)
    assert s["view"] == view and s["done"]
    assert frame.evaluate("() => !!landingPlayer.run.view.W")
    frame.get_by_role("button", name="Run", exact=True).click()
    frame.wait_for_function("!landingPlayer.playing", timeout=30_000)
    assert frame.evaluate(INK_JS) > 0.01
    assert "converged" in state(frame)["status"].lower()
    page.screenshot(path=shots / f"view_{name}.png")
    assert page.console_errors == []
