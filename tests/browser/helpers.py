"""Small waits shared by the browser tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
CHART = '[data-testid="stPlotlyChart"] .js-plotly-plot'


def wait_idle(page, timeout: float = 60_000, charts: bool = True) -> None:
    """Wait until the script has finished and (``charts``) at least one chart has rendered."""
    page.wait_for_selector(IDLE, timeout=timeout)
    if charts:
        page.wait_for_selector(CHART, timeout=timeout)
        page.wait_for_selector(IDLE, timeout=timeout)


def points_js(index: int = 0, trace: int = 0) -> str:
    """JS for the number of points plotted in a trace (``_fullData``: plotly.py sends numpy
    arrays base64-encoded, so ``data[t].x`` is not an array)."""
    # ?.: undefined, not an exception, while the chart is mid-redraw (wait_for_function polls)
    return f"document.querySelectorAll({CHART!r})[{index}]?._fullData?.[{trace}]?.x?.length"


def chart_points(page, index: int = 0, trace: int = 0) -> int:
    """The number of points in trace ``trace`` of the ``index``-th plotly chart."""
    return page.evaluate(points_js(index, trace))


PLAYER = 'iframe[title="explorer.live.landing_player"]'


def player(page, timeout: float = 60_000):
    """The explorer's player (its iframe's Frame) once it holds a run."""
    page.wait_for_selector(IDLE, timeout=timeout)
    frame = page.wait_for_selector(PLAYER, timeout=timeout).content_frame()
    frame.wait_for_function("window.landingPlayer && landingPlayer.run", timeout=timeout)
    return frame


# the player's frame against the bottom of its content (the player's root and the body's margin
# below it), in the page's pixels
FIT_JS = f"""() => {{ const f = document.querySelector('{PLAYER}'), d = f.contentDocument;
  const bottom = d.getElementById("landing-player").getBoundingClientRect().bottom
    + parseFloat(getComputedStyle(d.body).marginBottom);
  return [f.getBoundingClientRect().height, bottom]; }}"""


def assert_frame_fits(page, timeout: float = 10_000) -> None:
    """The player's frame is as tall as its content (within the 2 px its host ignores): no
    blank band below the player, and nothing of it cut."""
    fits = (f"() => {{ const [height, bottom] = ({FIT_JS})(); "
            f"return Math.abs(height - bottom) <= 2; }}")
    try:
        page.wait_for_function(fits, timeout=timeout)
    except Exception as e:
        e.add_note(f"frame height, content bottom: {page.evaluate(FIT_JS)}")
        raise


STATE_JS = """() => { const p = landingPlayer, r = p.run;
  return {k: Math.floor(p.kf), kf: p.kf, have: r.cost.length, done: r.done, playing: p.playing,
          status: p.status.textContent, view: r.view.kind, cost: r.cost[r.cost.length - 1],
          draws: p.stats.draws.geometry, run_id: r.id}; }"""


def state(frame) -> dict:
    """The player's place (k, fractional kf), what it holds and what it shows."""
    return frame.evaluate(STATE_JS)


@contextlib.contextmanager
def offline_export(browser, path: Path, width: int = 1300, height: int = 900) -> Iterator:
    """A player's HTML export opened in an offline browser context: (page, its page errors).
    Asserts first that the file is self-contained (no script or link fetched from a server)."""
    html = path.read_text()
    assert "<script src" not in html and "http" not in html.split("LANDING_DATA")[0]
    context = browser.new_context(offline=True, viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        yield page, errors
    finally:
        context.close()


# the first payload each player frame receives, kept as window.firstArgs (an init script: it
# runs in every frame before the player's own scripts, whose host sets window.landingPlayer)
KEEP_FIRST = """(() => { let kept;
  Object.defineProperty(window, "landingPlayer", { configurable: true, get: () => kept,
    set: (p) => { kept = p; const receive = p.receive.bind(p);
      p.receive = (a) => { if (window.firstArgs === undefined) window.firstArgs = a;
                           return receive(a); }; } }); })()"""
# a new run's (or family's) first chunk that starts past what the player holds (the server
# sends from what the page's last player said it held: a rerun's payload can overtake the
# first, a player re-created by a rerun holds nothing), then a layout (the page moving or
# resizing): the player asks for the run from its start and shows what it held until then;
# a new player shows nothing (taken without its first iterate, a run had no axes to draw)
OUT_OF_ORDER = """() => {
  const p = landingPlayer, a = window.firstArgs, asked = [], held = p.run.id;
  p.host.request = (k) => asked.push(k);
  p.receive({ ...a, run_id: a.run_id + "-next", start: 5 });
  p.layout();
  const box = document.createElement("div");
  document.body.appendChild(box);
  const q = new Landing.Player(box, { request: (k) => asked.push(k), height() {} });
  q.receive({ ...a, start: 5 });
  q.layout();
  box.remove();
  return { asked, held: p.run.id === held, empty: !q.run }; }"""
OUT_OF_ORDER_ANSWER = {"asked": [0, 0], "held": True, "empty": True}
