"""A short load test of a server started as deployed (deploy/run-app.sh), with one slot for
heavy work: heavy sessions queue at the gate and say so, a default run in another session
still completes, and closing the heavy tabs frees the server within seconds (its CPU read from
/proc). The full figures: benchmarks/bench_hosting.py."""

from __future__ import annotations

import time

import pytest

from benchmarks.bench_hosting import cpu_share, open_hostile, serve, still_working

from .helpers import player

pytestmark = pytest.mark.browser
DONE = "landingPlayer.run.done"
QUIET = 0.25  # of one core: Streamlit's own upkeep; heavy work left running takes a whole core


def quiets(pid: int, closed: float) -> float:
    """The server's CPU share in back-to-back 3 s windows from 2 s after ``closed``
    (time.monotonic) until one is under QUIET or the last (8-11 s) ends; that window's share. The
    worker's lease (1.5 s) has run out by the first window; a busy neighbour on the machine
    (another browser test) can delay what the server does as the sessions end (their
    teardown, the last step of a heavy job) into it. Work that did not
    stop would hold about a whole core in every window (the comparisons' budget is 90 s)."""
    for start in (2, 5, 8):
        share = cpu_share(pid, float(start), start + 3.0, closed)
        if share < QUIET:
            break
    return share


def test_heavy_sessions_queue_and_end_with_their_tabs(browser, tmp_path):
    # A budget of 90 s lets each comparison run about a minute (25 s at the default budget,
    # which a light run on a loaded CI machine outlasted); the tabs close before it ends.
    env = {"LANDING_HEAVY_SLOTS": "1", "LANDING_BUDGET_SECONDS": "90"}
    proc, url = serve(tmp_path / "server.log", env=env)
    try:
        # the light session opens first: a page load under a busy server's GIL takes ~20 s of
        # its script runs and file requests, the run itself milliseconds (a new seed is a new
        # run of the default kind, computed as any default run is)
        light = browser.new_context(viewport={"width": 1300, "height": 1400})
        light_page = light.new_page()
        light_page.goto(f"{url}/?seed=3")
        frame = player(light_page, timeout=120_000)
        frame.wait_for_function(DONE, timeout=120_000)
        ran = frame.evaluate("landingPlayer.run.id")
        first, _ = open_hostile(browser, url, "compare", 1, env)
        second, second_page = open_hostile(browser, url, "compare", 2, env)
        second_page.get_by_text("Queued: the server's 1 slot(s) for heavy work are busy"
                                ).wait_for(timeout=10_000)
        # light: not gated. Gated, it would queue behind the second heavy session and end
        # after it; a wall-clock bound would instead fail on a loaded machine.
        seed = light_page.get_by_label("seed", exact=True)
        seed.fill("4")
        seed.press("Enter")
        light_page.wait_for_function("location.search.includes('seed=4')", timeout=120_000)
        frame = player(light_page, timeout=120_000)
        frame.wait_for_function(f"{DONE} && landingPlayer.run.id !== {ran!r}", timeout=120_000)
        assert still_working(second_page)
        light.close()
        closed = time.monotonic()
        first.close()
        second.close()
        assert quiets(proc.pid, closed) < QUIET
        tab, _ = open_hostile(browser, url, "explorer", 4)  # the worker thread's run
        time.sleep(1.0)
        closed = time.monotonic()
        tab.close()
        assert quiets(proc.pid, closed) < QUIET
    finally:
        proc.terminate()
        proc.wait(timeout=10)
