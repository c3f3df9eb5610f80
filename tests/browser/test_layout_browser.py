"""What a projector shows on the first screen (1280x720 and 1024x768), in normal and lecture
mode: the controls, the geometry view and the convergence curves, unscrolled, and numbers that
are never cut."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from .conftest import open_page
from .helpers import assert_frame_fits, player

pytestmark = pytest.mark.browser

SCREENS = [(1280, 720), (1024, 768)]


def _inside(box: dict, width: int, height: int) -> bool:
    return (box is not None and box["x"] >= 0 and box["y"] >= 0
            and box["x"] + box["width"] <= width + 0.5 and box["y"] + box["height"] <= height + 0.5)


# each convergence panel's legend (the player's record of its box) against the panel's curves,
# all the data held: whether it is above the plot area, and the points of every segment (four
# a segment) in the plot area that its box covers, with the lines' half width around it
LEGENDS_JS = """() => { const p = landingPlayer, P = p.P();
  p.show();  // the data arrived last are drawn, and the legends placed with them
  const { charts } = p.convLayout({ x: 0, y: 0, w: p.size.cw, h: p.size.ch }, P);
  const m = P.thick / 2, out = [];
  p.legends.forEach((b, i) => { if (!b) return;
    const chart = charts[i], r = chart.rect, pts = [];
    for (const s of p.conv[i].series) for (let k = 0; k < s.ys.length; k++) {
      const a = s.ys[k], z = s.ys[k + 1];
      if (!(a > 0 && isFinite(a))) continue;
      const ok = z > 0 && isFinite(z);
      for (let t = 0; t < (ok ? 4 : 1); t++) {
        const y = ok ? Math.exp(Math.log(a) + (t / 4) * (Math.log(z) - Math.log(a))) : a;
        pts.push([chart.X(k + t / 4), chart.Y(y)]);
      }
    }
    const hidden = pts.filter(([x, y]) => y >= r.y && y <= r.y + r.h
      && x >= b.x - m && x <= b.x + b.w + m && y >= b.y - m && y <= b.y + b.h + m).length;
    out.push({ panel: i, place: b.place, above: b.y + b.h <= r.y, hidden, x: b.x, w: b.w,
               cw: p.size.cw });
  });
  return out; }"""


# the height of the player's line of numbers at k = 0, 1 and the last iterate
NUMS_HEIGHTS_JS = """() => [0, 1, landingPlayer.available].map((k) => {
  landingPlayer.kf = k; landingPlayer.updateText(); return landingPlayer.nums.offsetHeight; })"""


# each convergence panel's title as the player drew it: its text, font and extent, and the
# room it had (its panel's width, from the tick labels' margin when panels stand side by side)
TITLES_JS = """() => { const p = landingPlayer; p.show();
  return { font: p.P().font, titles: p.titles.filter((t) => t) }; }"""


def _titles_fit(frame, full: list[str]) -> None:
    """Every convergence panel's title lies within its room, whole (the ``full`` titles) in a
    font at least three quarters of the tick labels'."""
    drawn = frame.evaluate(TITLES_JS)
    titles = drawn["titles"]
    assert [t["text"] for t in titles] == full, titles
    assert all(t["left"] - 0.5 <= t["x"] and t["x"] + t["w"] <= t["right"] + 0.5
               and t["font"] >= 0.75 * drawn["font"] for t in titles), drawn


@pytest.mark.parametrize("lecture", [False, True], ids=["normal", "lecture"])
@pytest.mark.parametrize(("size", "view"), [("n=2&p=1&problem=quartic&distance=0.5", "plane"),
                                            ("n=3&p=1", "sphere"), ("n=3&p=2", "frame")])
def test_the_explorer_first_screen_holds_run_view_and_curves(server, browser, shots, lecture,
                                                             size, view):
    """One page per case, opened on the first screen and then resized to the second: the
    player re-fits to a resized window as it does to a new one."""
    with open_page(browser, *SCREENS[0]) as page:
        page.goto(f"{server}/?{size}&lecture={int(lecture)}")
        frame = player(page)
        assert frame.evaluate("landingPlayer.run.view.kind") == view
        frame.wait_for_function("landingPlayer.run.done")
        for width, height in SCREENS:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(800)  # the player re-fits once the page above it has settled
            run = frame.get_by_role("button", name="Run", exact=True)
            boxes = {"Run": run.bounding_box(),
                     "geometry": frame.locator("canvas").nth(0).bounding_box(),
                     "convergence": frame.locator("canvas").nth(1).bounding_box()}
            outside = {name: box for name, box in boxes.items()
                       if not _inside(box, width, height)}
            mode = "lecture" if lecture else "normal"
            page.screenshot(path=shots / f"first_screen_{view}_{width}x{height}_{mode}.png")
            assert outside == {}, (width, height, outside)
            assert_frame_fits(page)
            cut = frame.evaluate("""() => [...document.querySelectorAll('.lp-nums span')]
                .filter(s => s.scrollWidth > s.clientWidth + 1 || s.textContent.includes('…'))
                .map(s => s.textContent)""")
            assert cut == []  # no metric value is truncated
            # the numbers' line as high at the run's end as at X_0: the views do not jump
            # down mid-run where a value grows a digit (k = 100 did, 23 px, at 1280)
            heights = frame.evaluate(NUMS_HEIGHTS_JS)
            assert len(set(heights)) == 1, (width, heights)
            # every panel labels two values at least (one label alone gives no scale), and no
            # two labels closer than the font's size (six once touched in a short panel)
            yticks, font = frame.evaluate("landingPlayer.show(), "
                                          "[landingPlayer.yticks, landingPlayer.P().font]")
            assert yticks and all(len(ticks) >= 2 for ticks in yticks), (width, yticks)
            assert all(abs(a["y"] - b["y"]) >= font for ticks in yticks
                       for a, b in pairwise(ticks)), (width, font, yticks)
            # each label within the canvas, and clear of the current value's dot (radius
            # marker − 2, its stroke 1), which sits on the panel's frame at k = 0 (it hid the
            # last character of "10⁰" there)
            frames, marker = frame.evaluate("[landingPlayer.convLayout({x: 0, y: 0, "
                                            "w: landingPlayer.size.cw, h: landingPlayer.size.ch},"
                                            " landingPlayer.P()).charts.map(c => c.rect.x), "
                                            "landingPlayer.P().marker]")
            assert all(t["left"] >= 0 and t["right"] <= x - (marker - 2) - 1
                       for ticks, x in zip(yticks, frames, strict=True) for t in ticks), (
                width, marker, frames, yticks)
            # the ranges a family's panels met: η from 0.02 to 1.1 in room for three labels
            # (it drew six), 15 decades in room for two (it drew one)
            # and a constant step's panel (0.0689 to 0.145 around η = 0.1) in one notation
            # (it read "0.0689", "10⁻¹", "0.145"), as a range of small values; and a range
            # whose end lies near its one decade, in room for two (it drew "1.14" 13 px
            # above "1"): the decade and the other end
            assert frame.evaluate("[Landing.logTicks(-1.75, 0.05, 3).map(t => t.label), "
                                  "Landing.logTicks(-15.3, -0.1, 2).map(t => t.label), "
                                  "Landing.logTicks(Math.log10(0.0689), Math.log10(0.145), 3)"
                                  ".map(t => t.label), Landing.logTicks(Math.log10(1.2e-7), "
                                  "Math.log10(1.9e-7), 3).map(t => t.label), "
                                  "Landing.logTicks(Math.log10(0.541), Math.log10(1.14), 2)"
                                  ".map(t => t.label)]") == [
                ["10⁻¹", "10⁰"], ["10⁻¹⁵", "10⁻¹"], ["0.0689", "0.1", "0.145"],
                ["1.2×10⁻⁷", "1.9×10⁻⁷"], ["0.541", "1"]]
            legends = frame.evaluate(LEGENDS_JS)  # ‖XᵀX − I‖ and ‖grad f‖: a legend at least
            assert legends and all((g["above"] or g["hidden"] == 0)
                                   and 0 <= g["x"] <= g["cw"] - g["w"]
                                   for g in legends), (width, height, legends)
            side = page.locator('[data-testid="stSidebar"]').bounding_box()
            expanded = side is not None and side["width"] > 100 and side["x"] + side["width"] > 100
            if lecture:
                assert frame.evaluate("landingPlayer.P().font") >= 16  # tick labels, from the back
                assert not expanded  # folded: the screen goes to the run
                assert page.get_by_text("The update, and how to use this page").count() == 0
            else:
                assert expanded
        # scrolled down (to the downloads below it, say), the player keeps its size: what lies
        # below it stays under the pointer
        sizes = "[...document.querySelectorAll('canvas')].map(c => c.clientHeight)"
        before = frame.evaluate(sizes)
        page.locator('[data-testid="stMain"]').evaluate("m => m.scrollBy(0, 400)")
        page.wait_for_timeout(1200)  # the player checks its place every 0.5 s
        assert page.locator('[data-testid="stMain"]').evaluate("m => m.scrollTop") > 0
        assert frame.evaluate(sizes) == before


@pytest.mark.parametrize("lecture", [False, True], ids=["normal", "lecture"])
def test_the_compare_first_screen_holds_steps_and_the_race(server, browser, shots, lecture):
    """The Compare page's first screen: the Steps control and the race (its Run button, the
    geometry view and the convergence panels)."""
    with open_page(browser, *SCREENS[0]) as page:
        if lecture:  # the sidebar is folded: a link opens the page
            page.goto(f"{server}/compare?n=3&p=2&lecture=1")
        else:
            page.goto(f"{server}/?n=3&p=2&lecture=0")
            player(page)
            page.locator('[data-testid="stSidebarNav"]').get_by_text("Compare",
                                                                      exact=True).click()
        page.get_by_role("heading", name="Compare configurations").wait_for(timeout=60_000)
        race = player(page)
        race.wait_for_function("landingPlayer.run && landingPlayer.run.race")
        for width, height in SCREENS:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(800)  # the player re-fits once the page above it has settled
            # in a lecture the Steps control is folded with the rows
            steps = page.get_by_text("steps and clock", exact=False) if lecture else \
                page.get_by_text("Steps", exact=True)
            boxes = {"Steps": steps.bounding_box(),
                     "Run": race.get_by_role("button", name="Run", exact=True).bounding_box(),
                     "geometry": race.locator("canvas").nth(0).bounding_box(),
                     "convergence": race.locator("canvas").nth(1).bounding_box()}
            mode = "lecture" if lecture else "normal"
            page.screenshot(path=shots / f"first_screen_compare_{width}x{height}_{mode}.png")
            outside = {k: box for k, box in boxes.items() if not _inside(box, width, height)}
            assert outside == {}, (width, height, outside)
            assert_frame_fits(page)
            # three panels side by side: "stationarity ‖grad₁ f‖" ran off the canvas's edge
            _titles_fit(race, ["|f(Xₖ) − f*|", "‖XᵀX − I‖", "stationarity ‖grad₁ f‖"])


def test_a_compare_question_leaves_the_race_room_on_a_small_projector(server, browser, shots):
    """A Compare preset's question in a lecture at 1024 x 768: the question's line above the
    page's controls left the race's three panels 40 px each; the Steps and Against controls
    fold with the rows there, and the views keep 280 px of height."""
    with open_page(browser, *SCREENS[1]) as page:
        page.goto(f"{server}/?deck=0&lecture=1")
        page.wait_for_function("() => !!window.__landingDeck", timeout=60_000)
        player(page).wait_for_function("landingPlayer.run && landingPlayer.run.done")
        page.keyboard.press("PageDown")  # preset 0: a race with a question
        page.get_by_text("Where does each method end").first.wait_for(timeout=60_000)
        race = player(page)
        race.wait_for_function("landingPlayer.run && landingPlayer.run.race")
        page.wait_for_timeout(800)  # the player re-fits once the page above it has settled
        boxes = {"Run": race.get_by_role("button", name="Run", exact=True).bounding_box(),
                 "geometry": race.locator("canvas").nth(0).bounding_box(),
                 "convergence": race.locator("canvas").nth(1).bounding_box()}
        page.screenshot(path=shots / "compare_question_1024x768_lecture.png")
        assert {k: b for k, b in boxes.items() if not _inside(b, *SCREENS[1])} == {}
        assert boxes["geometry"]["height"] >= 280 and boxes["convergence"]["height"] >= 280, \
            boxes
        assert page.get_by_text("Steps", exact=True).is_hidden()  # folded with the rows


CLIPPED_JS = """() => [...document.querySelectorAll('[data-testid="stMain"] *')]
    .filter(e => getComputedStyle(e).textOverflow === 'ellipsis'
                 && e.scrollWidth > e.clientWidth + 1)
    .map(e => e.textContent.slice(0, 60))"""


# the displayed formulas wider than their column (KaTeX's struts overhang by 2 px)
WIDE_JS = """() => [...document.querySelectorAll('.katex-display')]
    .filter((k) => k.scrollWidth > k.clientWidth + 2)
    .map((k) => [k.scrollWidth, k.clientWidth, k.textContent.slice(0, 30)])"""


def test_the_theory_page_shows_its_x_whole_on_a_projector(server, browser, shots):
    """The theory page's facts about X (its size, ‖XᵀX − I‖_F, the range of σ(X), β) stay
    whole at 1280x720 with the sidebar open: a row of st.metric columns cut the σ range to
    "0.71 … …" and the I of ‖XᵀX − I‖_F."""
    with open_page(browser, *SCREENS[0]) as page:
        page.goto(server)
        player(page)
        page.locator('[data-testid="stSidebarNav"]').get_by_text("Theory", exact=True).click()
        page.get_by_text("checks pass").wait_for()
        page.wait_for_timeout(1000)  # KaTeX typesets after the text is there
        page.screenshot(path=shots / "theory_first_screen_1280x720.png")
        assert page.evaluate(CLIPPED_JS) == []
        # every displayed formula whole in its column (KaTeX's struts overhang by 2 px): five
        # ran 10-60 px past it, cut ("ΔᵀX =" without its "0}")
        wide = page.evaluate(WIDE_JS)
        assert page.locator(".katex-display").count() >= 10 and wide == [], wide
        facts = page.get_by_text("σ(X) from").inner_text()
        assert re.search(r"σ\(X\) from \d\.\d\d to \d\.\d\d", facts), facts
        # and on the part on XᵀBX = I, whose four longest ran 474-646 px in a 460 px column
        page.get_by_text("Beyond XᵀX = I", exact=False).first.click()
        page.get_by_text("A safe step for the B-ball").wait_for()
        page.wait_for_timeout(1000)
        wide = page.evaluate(WIDE_JS)
        assert page.locator(".katex-display").count() >= 10 and wide == [], wide
        # no LaTeX left as text in its headings, checks and captions
        shown = page.get_by_test_id("stMain").inner_text()
        assert not re.search(r"[_^]\{|\\[a-z]", shown), re.findall(r".{20}[_^]\{.{10}", shown)
