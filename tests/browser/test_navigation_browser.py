"""A shared page link opened first on a freshly started server.

Streamlit starts in its legacy pages/ mode and leaves it only once st.navigation has run; a
first visit straight to /compare would run pages/compare.py alone: the sidebar would list file
names ("app", "compare", ...), the layout would not be wide, and so for every later visitor
(explorer.navigation.through_navigation).
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Error as PlaywrightError

from .helpers import IDLE, wait_idle

pytestmark = pytest.mark.browser

NAV = '[data-testid="stSidebarNav"] a'


def test_page_links_opened_together_on_a_fresh_server_all_get_the_app(fresh_server, browser,
                                                                       shots):
    """A class opening one shared link together after a restart: each of the first sessions
    starts in the legacy mode, also those reaching the guard after another has left it, so
    app.py's per-run mark decides, not the process-wide mode. The compare link keeps its
    settings and the wide layout, and a later visitor gets the app too. (One fresh server for
    all: a first visitor alone is the same case with one page.)"""
    # any pages but the explorer; not Theory: its formulas take the browser ~20 s to typeset,
    # time the other pages wait for on two cores, and the guard is the same for every page
    paths = ["compare?n=20&p=4", "presets", "sweep", "guide"]
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1200}) for _ in paths]
    pages = [c.new_page() for c in contexts]
    for pg, path in zip(pages, paths, strict=True):
        pg.goto(f"{fresh_server}/{path}", wait_until="commit")  # all at once, not in turn
    time.sleep(2)
    try:
        for pg in pages:
            # the page's sidebar has run (it writes the settings into the URL), then settled
            try:
                pg.wait_for_function("location.search.includes('problem=')", timeout=90_000)
                pg.wait_for_selector(IDLE, state="attached", timeout=90_000)
            except PlaywrightError as e:
                pytest.fail(f"{_stuck(pages, shots)}\n{e}")  # (and the server's log: conftest)
            pg.wait_for_timeout(1000)
            labels = [t.split("\n")[-1] for t in pg.locator(NAV).all_inner_texts()]
            assert labels == ["Explorer", "Compare", "Sweep", "Stochastic", "Theory",
                              "Lecture presets", "Guide"], (pg.url, labels)
        compare = pages[0]
        wait_idle(compare)
        compare.screenshot(path=shots / "navigation_first_visit_compare.png")
        assert compare.locator("h1").first.inner_text() == "Compare configurations"
        assert "n=20" in compare.url and "p=4" in compare.url  # the link's settings were kept
        # the wide layout of app.py's set_page_config: the main block spans most of the window
        width = compare.evaluate("document.querySelector('[data-testid=\"stMainBlockContainer\"]')"
                                 ".getBoundingClientRect().width")
        assert width > 1000
        compare.goto(f"{fresh_server}/sweep")  # and the next visitor too
        wait_idle(compare, charts=False)
        assert compare.locator(NAV).first.inner_text().endswith("Explorer")
    finally:
        for c in contexts:
            c.close()


def _stuck(pages, shots) -> str:
    """What each page shows (its URL, the start of its text, a screenshot in failures/): which
    of the pages opened together did not get the app, and what it showed instead."""
    folder = shots / "failures"
    folder.mkdir(exist_ok=True)
    lines = []
    for i, pg in enumerate(pages):
        pg.screenshot(path=folder / f"navigation_fresh_server_{i}.png")
        text = pg.evaluate("document.body.innerText").replace("\n", " | ")[:300]
        lines.append(f"page {i} {pg.url}: {text}")
    return "\n".join(lines)


def test_back_leaves_a_page_in_a_few_presses(server, page):
    """Each write of st.query_params is an entry in the browser's history: the sidebar wrote
    each parameter on its own, 16 entries on a first visit to the explorer and 18 more on the
    Compare page, so that Back stayed on Compare for 18 presses. It now writes them at once."""
    page.goto(f"{server}/?n=2&p=1")
    wait_idle(page, charts=False)
    page.wait_for_selector('iframe[title="explorer.live.landing_player"]')
    page.wait_for_timeout(1000)  # the player's first request reruns its fragment
    assert page.evaluate("history.length") <= 5
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Compare", exact=True).click()
    page.get_by_text("Compare configurations").wait_for()
    wait_idle(page, charts=False)
    page.wait_for_timeout(1000)
    presses = 0
    while page.locator("h1").first.inner_text() != "Landing on St(n, p)":
        assert presses < 6, page.url
        page.go_back()
        presses += 1
        page.wait_for_timeout(1500)
        page.wait_for_selector(IDLE)
