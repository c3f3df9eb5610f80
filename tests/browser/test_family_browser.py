"""A family of runs in the explorer's player (Scrub: β, ω, η) in Chromium: a drag on the
scrubber redraws both canvases in its input event, sends nothing to the server and runs no
script until released; the release sets the sidebar and the URL; [ and ] and the arrow keys
step it. Screenshots of a drag at 1280 × 720 in lecture mode, on the frame and the sphere."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import open_page
from tests.browser.helpers import (
    IDLE,
    KEEP_FIRST,
    OUT_OF_ORDER,
    OUT_OF_ORDER_ANSWER,
    assert_frame_fits,
    offline_export,
    player,
)

pytestmark = pytest.mark.browser

FAMILY = "landingPlayer.run && landingPlayer.run.family"
COMPLETE = f"{FAMILY} && landingPlayer.run.family.have === landingPlayer.run.family.members.length"
# the canvases' pixels and the member drawn, read by a listener that runs after the player's
# own input handler: what the page shows when the input event has been handled
PROBE = """() => {
  const p = landingPlayer, input = document.getElementById("lp-fam");
  const look = () => ({ geo: p.geoCanvas.toDataURL(), conv: p.convCanvas.toDataURL(),
                        shown: p.run.family.shown,
                        drawn: p.run.cost === p.run.family.members[p.run.family.shown].cost });
  window.probe = { before: look(), events: [] };
  input.addEventListener("input", () => window.probe.events.push(look()));
}"""


# the releases the player sends from here on (its host's requests with a pick); again on the
# same player, it starts a new count (its host's own request kept once)
COUNT_PICKS = """() => { const h = landingPlayer.host; window.picks = [];
  if (!h.unwrapped) h.unwrapped = h.request.bind(h);
  h.request = (...a) => {
    if (a[2] && a[2].pick) window.picks.push(a[2].pick.i);
    return h.unwrapped(...a);
  };
}"""


# four presses of a key 60 ms apart, as a clicker sends them, dispatched in the player's
# document (Playwright's presses, one round trip each, were sometimes 300 ms apart on a loaded
# machine); returns the gaps between them (ms) as the page's clock saw them
PRESSES = """async (key) => {
  const times = [];
  for (let i = 0; i < 4; i++) {
    if (i) await new Promise((r) => setTimeout(r, 60));
    times.push(performance.now());
    document.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
  }
  return times.slice(1).map((t, i) => t - times[i]);
}"""


def _open(page, server: str, query: str):
    page.goto(f"{server}/?{query}")
    frame = player(page, 120_000)
    frame.wait_for_function(COMPLETE, timeout=120_000)
    page.wait_for_selector(IDLE, timeout=60_000)
    return frame


def _count_sent(page) -> list[int]:
    """A counter of the messages the page sends to the server over its websocket."""
    sent = [0]
    page.on("websocket", lambda ws: ws.on("framesent", lambda _: sent.__setitem__(0, sent[0] + 1)))
    return sent


def _drag(page, frame, shots, name: str, steps: int = 10) -> dict:
    """Drag the scrubber from its left end over half its length in ``steps`` moves, checking
    after each that the script stays idle; a screenshot mid-drag; returns the probe."""
    # the keys' hint of a lecture fades after 7 s: the screenshot shows the view
    frame.wait_for_function("!document.querySelector('.lp-toast.on')", timeout=15_000)
    frame.evaluate(PROBE)
    box = frame.locator("#lp-fam").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 4, y)
    page.mouse.down()
    for i in range(1, steps + 1):
        page.mouse.move(box["x"] + 4 + i * 0.5 * box["width"] / steps, y)
        page.wait_for_timeout(60)
        assert page.locator(IDLE).count() == 1  # no rerun during the drag
        if i == steps // 2 + 2:
            page.screenshot(path=str(shots / name))
    probe = frame.evaluate("window.probe")
    return probe


def _assert_drag_redraws_at_once(probe: dict) -> None:
    events = probe["events"]
    assert len(events) >= 5
    assert all(e["drawn"] for e in events)  # the member on the slider is the one drawn
    members = [e["shown"] for e in events]
    assert len(set(members)) >= 4, members
    changed = [e for e in events if e["shown"] != probe["before"]["shown"]]
    assert all(e["geo"] != probe["before"]["geo"] for e in changed)
    assert all(e["conv"] != probe["before"]["conv"] for e in changed)


def _settled(page, value: float) -> None:
    """The release of ``value`` reached the server (it is in the URL), and its reruns ended."""
    page.wait_for_function(f"location.search.includes('beta={float(value)!r}')", timeout=60_000)
    page.wait_for_selector(IDLE, timeout=60_000)


def test_dragging_beta_on_the_frame_in_lecture_mode(server, browser, shots):
    with open_page(browser, 1280, 720) as page:
        sent = _count_sent(page)
        page.add_init_script(KEEP_FIRST)
        frame = _open(page, server, "scrub=beta&lecture=1")
        name = frame.evaluate("document.getElementById('lp-fam').getAttribute('aria-label')")
        assert name.startswith("β")
        assert frame.evaluate("landingPlayer.run.view.kind") == "frame"
        # the line under the scrubber: the member shown, and while members are still on
        # their way, how many have come (here one taken away, then put back)
        line = "document.querySelector('.lp-fam-value').textContent"
        count = frame.evaluate("landingPlayer.run.family.members.length")
        assert frame.evaluate(line).endswith(f" of {count})")
        slider = "document.getElementById('lp-fam').getBoundingClientRect().width"
        said, widths = frame.evaluate(f"""() => {{ const p = landingPlayer, f = p.run.family;
            const i = f.shown === 0 ? 1 : 0, m = f.members[i];
            f.members[i] = null; p.useMember(f.shown); const said = {line}, w = {slider};
            f.members[i] = m; p.useMember(f.shown); return [said, [w, {slider}]]; }}""")
        assert said.endswith(f" of {count}; {count - 1} received so far)")
        assert frame.evaluate(line).endswith(f" of {count})")
        # the slider keeps its width when the last member comes: no thumb moves under a drag
        assert widths[0] == widths[1], widths
        # the family's first layout, at the iframe's default 300 px width, stacks the panels:
        # the frame shrinks back to the player once it has the page's width
        assert_frame_fits(page)
        page.wait_for_timeout(500)
        before = sent[0]
        probe = _drag(page, frame, shots, "family_frame_drag.png")
        _assert_drag_redraws_at_once(probe)
        assert sent[0] == before  # nothing reached the server during the drag
        shown = frame.evaluate("landingPlayer.run.family.shown")
        values = frame.evaluate("landingPlayer.run.family.values")
        value = values[shown]
        page.mouse.up()
        # the release: the sidebar's β and the URL follow
        page.wait_for_function(f"location.search.includes('beta={float(value)!r}')",
                               timeout=60_000)
        assert sent[0] > before
        page.wait_for_selector(IDLE, timeout=60_000)
        assert frame.evaluate("landingPlayer.run.family.shown") == shown  # it stays
        # [ and ] step the value, each a release of its own
        page.keyboard.press("]")
        assert frame.evaluate("landingPlayer.run.family.shown") == shown + 1
        _settled(page, values[shown + 1])
        page.keyboard.press("[")
        page.keyboard.press("[")
        assert frame.evaluate("landingPlayer.run.family.shown") == shown - 1
        _settled(page, values[shown - 1])
        # a quick series of presses (a clicker's) is one release, of the member it ends on;
        # one by one, their reruns met the next presses, and stale slider states put β = 0.01
        # or 7.94 (no member) in the URL. Out and back, the page settled in between.
        d = 1 if shown + 4 < len(values) else -1
        for start, step in ((shown - 1, d), (shown - 1 + 4 * d, -d)):
            frame = player(page)
            frame.evaluate(COUNT_PICKS)
            gaps = frame.evaluate(PRESSES, "]" if step > 0 else "[")
            end = start + 4 * step
            assert frame.evaluate("landingPlayer.run.family.shown") == end
            frame.wait_for_function("window.picks.length > 0")
            page.wait_for_timeout(400)  # (a second release would be sent by now)
            picks = frame.evaluate("window.picks")
            assert picks[-1] == end
            # one release for the series; a loaded machine can hold a press back past
            # RELEASE_WAIT, which may then end a series of its own (may: the release's timer
            # starts after the press's redraw, so the next press can still cancel it)
            wait = frame.evaluate("Landing.RELEASE_WAIT")  # ms from a series' last press
            breaks = sum(g >= wait for g in gaps)
            assert (len(picks) == 1) if breaks == 0 else (1 <= len(picks) <= 1 + breaks), gaps
            _settled(page, values[end])
            assert frame.evaluate("landingPlayer.run.family.shown") == end
        # the arrow keys on the focused slider: one member, by a player the page re-created
        # (its iframe loaded again, as the releases' reruns can do): its first release is heard
        frame = player(page)
        frame.evaluate("window.before = true; setTimeout(() => location.reload(), 0)")
        frame.wait_for_function(f"!window.before && window.landingPlayer && {COMPLETE}",
                               timeout=60_000)
        assert frame.evaluate("landingPlayer.run.family.shown") == shown - 1
        frame.locator("#lp-fam").focus()
        page.keyboard.press("ArrowRight")
        assert frame.evaluate("landingPlayer.run.family.shown") == shown
        # the click below meets the page at rest, not in the middle of a rerun
        _settled(page, value)
        # the page's player now: a rerun can re-create it (its iframe)
        frame = player(page)
        # the history of the member shown, its file made on the click (after the releases'
        # quick reruns, which deleted the files the browser was checking: 404s), pressed from
        # the keyboard: the button lies below the fold of 720 rows, where a pointer's click
        # depends on the layout holding still. The press's own wait is the shorter: a button
        # not found is named as such, not as no download.
        iterates = frame.evaluate("landingPlayer.run.cost.length")
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name=f"History of β = {value:g} (CSV)",
                             exact=True).press("Enter", timeout=30_000)
        rows = Path(info.value.path()).read_text().splitlines()
        assert rows[0].startswith("k,cost,") and len(rows) == 1 + iterates
        # last: OUT_OF_ORDER feeds the player a chunk of another run, which no page sends
        assert frame.evaluate(OUT_OF_ORDER) == OUT_OF_ORDER_ANSWER
        assert not page.console_errors, "\n\n".join(page.console_errors)  # whole, with stacks


def test_dragging_omega_on_the_sphere_in_lecture_mode(server, browser, shots):
    with open_page(browser, 1280, 720) as page:
        sent = _count_sent(page)
        page.add_init_script(KEEP_FIRST)
        frame = _open(page, server, "scrub=omega&n=3&p=1&lecture=1&distance=0.8")
        assert frame.evaluate("landingPlayer.run.view.kind") == "sphere"
        name = frame.evaluate("document.getElementById('lp-fam').getAttribute('aria-label')")
        assert name.startswith("ω")
        page.wait_for_timeout(500)
        before = sent[0]
        probe = _drag(page, frame, shots, "family_sphere_drag.png")
        _assert_drag_redraws_at_once(probe)
        assert sent[0] == before
        shown = frame.evaluate("landingPlayer.run.family.shown")
        value = frame.evaluate(f"landingPlayer.run.family.values[{shown}]")
        assert value != 1.0  # (the URL's omega before the drag)
        page.mouse.up()
        page.wait_for_function(f"location.search.includes('omega={float(value)!r}')",
                               timeout=60_000)
        page.wait_for_selector(IDLE, timeout=60_000)
        assert frame.evaluate("landingPlayer.run.family.shown") == shown
        assert not page.console_errors, "\n\n".join(page.console_errors)  # whole, with stacks
        frame = player(page)  # the page holds the same player frame, or a new one
        assert frame.evaluate("landingPlayer.run.view.kind") == "sphere"
        assert frame.evaluate(OUT_OF_ORDER) == OUT_OF_ORDER_ANSWER
        assert not page.console_errors, "\n\n".join(page.console_errors)  # whole, with stacks


def test_the_html_export_of_a_family_scrubs_offline(server, browser, shots, tmp_path):
    with open_page(browser, 1280, 800) as page:
        frame = _open(page, server, "scrub=omega&n=2&p=1&scrub_count=9&distance=0.6")
        shown = frame.evaluate("landingPlayer.run.family.shown")
        with page.expect_download(timeout=60_000) as info:
            frame.get_by_role("button", name="HTML", exact=True).click()
        path = tmp_path / "landing-family.html"
        info.value.save_as(path)
        assert not page.console_errors, "\n\n".join(page.console_errors)  # whole, with stacks
    with offline_export(browser, path, 1280, 800) as (standalone, errors):
        standalone.wait_for_function(COMPLETE, timeout=20_000)
        fam = standalone.evaluate("({n: landingPlayer.run.family.members.length, "
                                  "shown: landingPlayer.run.family.shown, "
                                  "label: document.getElementById('lp-fam').ariaLabel})")
        assert fam["n"] == 9 and fam["shown"] == shown and fam["label"].startswith("ω")
        before = standalone.evaluate("landingPlayer.geoCanvas.toDataURL()")
        standalone.keyboard.press("]")
        assert standalone.evaluate("landingPlayer.run.family.shown") == shown + 1
        assert standalone.evaluate("landingPlayer.geoCanvas.toDataURL()") != before
        standalone.locator("#lp-fam").focus()
        standalone.keyboard.press("ArrowLeft")
        standalone.keyboard.press("ArrowLeft")
        assert standalone.evaluate("landingPlayer.run.family.shown") == shown - 1
        standalone.get_by_role("button", name="Run", exact=True).click()
        standalone.wait_for_function("landingPlayer.status.textContent.startsWith('Converged')",
                                     timeout=30_000)
        standalone.screenshot(path=str(shots / "family_exported_html.png"))
        assert errors == []
