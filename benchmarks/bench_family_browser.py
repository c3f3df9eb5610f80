"""A family of runs in the explorer's player, in headless Chromium (issue 20's browser goals).

Run: uv run python benchmarks/bench_family_browser.py [rounds]   (default 5)

Starts its own Streamlit server on a free loopback port and drives Debian's Chromium (no GPU:
canvas in software) through Playwright.

1. Drag (frame: St(3, 2), β family; sphere: St(3, 1), ω family; lecture mode, 1280 × 720):
   30 mouse moves over the scrubber, each one member or more. Per move, in the player's own
   clock: from the input event (a capturing listener, first to run) to the end of the player's
   handler, which redraws both canvases (a listener on the input registered after the
   player's, last to run), and the idle animation frame interval of the same page. Goal: p95
   of the handler <= 1 animation frame. Also: the messages the page sent over its websocket
   and the script state during the drag (goal: none, idle).
2. A changed family setting (seed + 1, typed in the sidebar and Enter) to the player drawing the
   new family's shown member, against the same change with Scrub off (a single run), rounds
   alternating; times from the keydown (a capturing listener in the page) to the first drawn
   frame of the new run (polled in the player's animation frames), both clocks taken as
   performance.timeOrigin + performance.now(). Goal: family <= 2 × single run.
"""

from __future__ import annotations

import statistics
import sys
import time

from _common import CHROMIUM_ARGS, ROOT, free_port, load_average, machine, start_server
from playwright.sync_api import sync_playwright

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
PLAYER = 'iframe[title="explorer.live.landing_player"]'
VIEWPORT = {"width": 1280, "height": 720}
COMPLETE = ("window.landingPlayer && landingPlayer.run && landingPlayer.run.family && "
            "landingPlayer.run.family.have === landingPlayer.run.family.members.length")
DRAG_PROBE = """() => {
  const input = document.getElementById("lp-fam");
  window.__drag = { starts: [], ends: [] };
  document.addEventListener("input", () => __drag.starts.push(performance.now()), true);
  input.addEventListener("input", () => __drag.ends.push(performance.now()));
}"""
IDLE_FRAME_JS = """() => new Promise(done => { const t = [];
  const tick = (now) => { t.push(now); if (t.length < 61) requestAnimationFrame(tick);
    else { const d = t.slice(1).map((x, i) => x - t[i]).sort((a, b) => a - b); done(d[30]); } };
  requestAnimationFrame(tick); })"""
# in the player: the absolute time of the first animation frame drawn with another run
NEW_RUN_JS = """(old) => { window.__newRun = null;
  const tick = () => { const p = landingPlayer;
    if (p.run && p.run.id !== old && p.stats.frames > 0 && p.run.cost.length)
      __newRun = performance.timeOrigin + performance.now();
    else requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""
KEY_JS = """() => { window.__key = null; document.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && window.__key === null)
    __key = performance.timeOrigin + performance.now(); }, true); }"""


def serve():
    port = free_port()
    return start_server([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
                         "--server.address", "127.0.0.1", "--server.port", str(port),
                         "--server.headless", "true", "--server.fileWatcherType", "none",
                         "--browser.gatherUsageStats", "false"], port,
                        stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))


def open_family(browser, url: str):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    sent = [0]
    page.on("websocket", lambda ws: ws.on("framesent",
                                          lambda _: sent.__setitem__(0, sent[0] + 1)))
    page.goto(url)
    frame = page.wait_for_selector(PLAYER, timeout=120_000).content_frame()
    frame.wait_for_function(COMPLETE, timeout=120_000)
    page.wait_for_selector(IDLE, timeout=60_000)
    frame.wait_for_function("!document.querySelector('.lp-toast.on')", timeout=15_000)
    return context, page, frame, sent


def drag(browser, url: str, label: str) -> bool:
    context, page, frame, sent = open_family(browser, url)
    idle_frame = frame.evaluate(IDLE_FRAME_JS)
    frame.evaluate(DRAG_PROBE)
    box = frame.locator("#lp-fam").bounding_box()
    y = box["y"] + box["height"] / 2
    before, busy = sent[0], 0
    page.mouse.move(box["x"] + 4, y)
    page.mouse.down()
    for i in range(1, 31):
        page.mouse.move(box["x"] + 4 + i * 0.9 * box["width"] / 30, y)
        page.wait_for_timeout(30)
        busy += page.locator(IDLE).count() == 0
    during = sent[0] - before
    page.mouse.up()
    probe = frame.evaluate("window.__drag")
    page.wait_for_timeout(1500)
    context.close()
    handled = sorted(b - a for a, b in zip(probe["starts"], probe["ends"], strict=True))
    p95 = handled[min(len(handled) - 1, int(0.95 * len(handled)))]
    ok = p95 <= idle_frame and during == 0 and busy == 0
    print(f"   {label:<28} {len(handled)} input events; handler median "
          f"{statistics.median(handled):.1f} ms, p95 {p95:.1f} ms, max {handled[-1]:.1f} ms; "
          f"idle frame {idle_frame:.1f} ms; messages sent during the drag {during}, "
          f"script busy at {busy} of 30 moves -> {'met' if ok else 'NOT met'}")
    return ok


def setting_change(browser, url: str) -> float:
    """Seconds from Enter on seed + 1 in the sidebar to the player's first frame of the new
    run (or family)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url)
    frame = page.wait_for_selector(PLAYER, timeout=120_000).content_frame()
    frame.wait_for_function("window.landingPlayer && landingPlayer.run && "
                            "landingPlayer.stats.frames > 0", timeout=120_000)
    if "scrub=" in url:
        frame.wait_for_function(COMPLETE, timeout=120_000)
    page.wait_for_selector(IDLE, timeout=60_000)
    old = frame.evaluate("landingPlayer.run.id")
    seed = page.get_by_label("seed")
    seed.fill(str(int(seed.input_value()) + 1))
    page.evaluate(KEY_JS)
    frame.evaluate(NEW_RUN_JS, old)
    seed.press("Enter")
    frame.wait_for_function("window.__newRun !== null", timeout=120_000)
    seconds = (frame.evaluate("__newRun") - page.evaluate("__key")) / 1000
    context.close()
    return seconds


def main(rounds: int = 5) -> None:
    print(machine())
    print(f"load average at the start: {load_average()}")
    app, url = serve()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            print(f"Chromium {browser.version}, headless, no GPU")
            setting_change(browser, f"{url}/?scrub=beta")  # warm-up, untimed
            print("\n1. Drag: 30 moves of the scrubber, lecture mode, 1280 x 720")
            drag(browser, f"{url}/?scrub=beta&lecture=1", "frame, beta (St(3, 2))")
            drag(browser, f"{url}/?scrub=omega&n=3&p=1&lecture=1",
                 "sphere, omega (St(3, 1))")
            print(f"\n2. seed + 1 in the sidebar to the new run drawn, {rounds} rounds "
                  "alternating (default St(3, 2) run; its beta family of 33)")
            times: dict[str, list[float]] = {"single run": [], "family of 33": []}
            queries = {"single run": "", "family of 33": "scrub=beta"}
            for r in range(rounds):
                order = list(times) if r % 2 == 0 else list(times)[::-1]
                for name in order:
                    times[name].append(setting_change(browser, f"{url}/?{queries[name]}"))
            for name, ts in times.items():
                print(f"   {name:<14} median {statistics.median(ts):.2f} s, min {min(ts):.2f} s"
                      " (" + ", ".join(f"{t:.2f}" for t in ts) + ")")
            ratio = statistics.median(a / b for a, b in zip(times["family of 33"],
                                                             times["single run"], strict=True))
            print(f"   family / single: median of the rounds' ratios {ratio:.2f} -> goal <= 2 "
                  f"{'met' if ratio <= 2 else 'NOT met'}")
            browser.close()
    finally:
        app.terminate()
        app.wait(10)
    print(f"load average at the end: {load_average()}; {time.strftime('%H:%M:%S')} UTC")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
