"""The Stochastic page in headless Chromium: reached from the navigation, the curves grow while
the runs compute (no reload), SAGA ends far below SGD, and lecture mode keeps the curves.

The default 100 epochs on m = 1000 samples take seconds of the server's work before a chart is
done: that SAGA ends far below SGD there is checked under AppTest
(tests/app/test_stochastic_page.py); here a link to a smaller finite sum shows it in the chart."""

from __future__ import annotations

import re
import urllib.parse

import pytest

from .helpers import CHART, IDLE

pytestmark = pytest.mark.browser

# St(8, 2), m = 200 samples, batch 10, 100 epochs: 2,000 updates per stochastic method (the
# default's fifth), after which SAGA's gap is ~1e-8 and SGD's ~1e-2 (its noise floor)
SMALL = "n=8,p=2,samples=200,epochs=100"
POINTS = f"document.querySelector({CHART!r})?._fullData?.[0]?.x?.length ?? 0"


def _last_y(trace: int) -> str:
    return (f"(() => {{ const y = document.querySelector({CHART!r})._fullData[{trace}].y;"
            " return y[y.length - 1]; })()")


def test_the_curves_grow_live(server, page, shots):
    page.goto(server)
    page.get_by_role("heading", name="Landing on St(n, p)").wait_for()
    page.get_by_role("link", name="Stochastic").click()
    page.get_by_role("heading", name="Stochastic landing").wait_for()
    page.get_by_text("Computing: epoch").or_(page.get_by_text("Done: 100 epochs.")).wait_for()

    # m = 200 samples, batch 2 and 200 epochs: 20,000 updates per stochastic method, many of
    # the page's redraws even on a fast machine (a smaller run can end between two redraws).
    # Not more: the worker's budget is 30 s of its thread's CPU time, and the page's redraws
    # contend for the GIL, which inflates that time ~4.5x (a 40,000-update run took 8 s of
    # it alone and was stopped at 166 of 200 epochs in a full suite's run)
    page.get_by_role("combobox", name="samples m").click()
    page.get_by_role("option", name="200", exact=True).click()
    page.wait_for_function("decodeURIComponent(location.search).includes('samples=200,')")
    page.wait_for_selector(IDLE)
    epochs = page.get_by_label("epochs", exact=True)
    epochs.fill("200")
    epochs.press("Enter")
    page.get_by_text("Done: 200 epochs.").wait_for(timeout=60_000)
    page.wait_for_selector(IDLE)
    page.wait_for_function(f"{POINTS} === 201", timeout=30_000)
    batch = page.get_by_label("batch b", exact=True)
    batch.fill("2")
    batch.press("Enter")
    page.get_by_text(re.compile(r"Computing: epoch \d+ of 200")).wait_for(timeout=30_000)
    # the new run's chart, part drawn: the previous run's whole chart (201 points) can still
    # be on the page when the text shows (seen once on a loaded machine)
    part = f"(() => {{ const n = {POINTS}; return n > 1 && n < 201 && n; }})()"
    seen = page.wait_for_function(part, timeout=30_000).json_value()
    page.wait_for_function(f"{POINTS} > {seen}", timeout=30_000)  # more arrived, no reload
    # the shot once plotly has drawn the new points' lines (it draws after taking the data)
    page.wait_for_function(f"document.querySelectorAll('{CHART} .scatterlayer path').length",
                           timeout=30_000)
    page.screenshot(path=shots / "stochastic_live.png")
    # the caption of a run cut short by the time limit says "Stopped at epoch k of 200."
    done = page.get_by_text(re.compile(r"^(Done: \d+ epochs|Stopped at epoch \d+ of \d+)\.$"))
    done.wait_for(timeout=120_000)
    assert done.inner_text() == "Done: 200 epochs.", page.get_by_role("alert").all_inner_texts()
    page.wait_for_function(f"{POINTS} === 201", timeout=30_000)  # plotly draws after the text
    url = urllib.parse.unquote(page.url)
    assert "samples=200," in url and "batch=2," in url and "epochs=200," in url
    assert not [e for e in page.console_errors if "favicon" not in e]


def test_saga_beats_sgd_and_lecture_mode_keeps_the_curves(server, page, shots):
    page.goto(f"{server}/stochastic?stoch={urllib.parse.quote(SMALL)}")
    page.get_by_role("heading", name="Stochastic landing").wait_for()
    page.get_by_text("Done: 100 epochs.").wait_for(timeout=180_000)  # a loaded server is slow
    page.wait_for_selector(IDLE)
    # plotly draws the figure after Streamlit shows the text
    page.wait_for_function(f"{POINTS} === 101", timeout=30_000)
    # traces: SGD's three panels, then SAGA's, then full-batch landing's; panel 1 is the gap
    sgd, saga = page.evaluate(_last_y(0)), page.evaluate(_last_y(3))
    assert saga < 1e-3 * sgd, (sgd, saga)
    page.screenshot(path=shots / "stochastic_saga_sgd.png")

    page.get_by_text("Lecture mode").click()
    page.wait_for_function("location.search.includes('lecture=1')")
    page.wait_for_selector(IDLE)
    assert page.get_by_text("Online PCA as a finite sum").count() == 0
    assert page.evaluate(f"document.querySelector({CHART!r})._fullLayout.height") == 470
    # the same runs, not new ones: every epoch's point, SAGA's last value
    assert page.get_by_text("Done: 100 epochs.").count() == 1
    page.wait_for_function(f"{POINTS} === 101", timeout=30_000)
    assert page.evaluate(_last_y(3)) == saga
    page.get_by_text("Settings").click()  # folded in a lecture, with the values kept
    assert page.get_by_label("batch b", exact=True).input_value() == "10"
    main = page.get_by_test_id("stMainBlockContainer")  # the sidebar has an n of its own
    assert main.get_by_label("n", exact=True).input_value() == "8"
    page.get_by_text("Settings").click()
    page.set_viewport_size({"width": 1280, "height": 720})
    # the legend (which curve is which method) on the projector's first screen: the page at
    # its top, once plotly has redrawn at the new width
    page.evaluate("document.querySelectorAll('*').forEach((e) => { e.scrollTop = 0; })")
    legend = (f"document.querySelector({CHART!r} + ' .legend')"
              ".getBoundingClientRect().bottom")
    page.wait_for_function(f"(() => {{ const b = {legend}; return b > 0 && b <= 720; }})()",
                           timeout=10_000)
    page.screenshot(path=shots / "stochastic_lecture_1280x720.png")
