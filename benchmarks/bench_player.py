"""The explorer's live player in headless Chromium: issue 9's goals, each as a ratio or a time
measured in one run of this script.

Run: uv run python benchmarks/bench_player.py [rounds]   (rounds of section 4, default 5)

Starts its own Streamlit servers on free loopback ports (the app, and benchmarks/floor_app.py
for the reference page), each warmed by one untimed visit, and drives Debian's Chromium
(``/usr/bin/chromium``, no GPU: canvas and WebGL in software) through Playwright. The player is
the components.v1 iframe ``explorer.live.landing_player``; ``window.landingPlayer`` in it holds
the run, the fractional iteration ``kf`` and draw counters (``stats.draws``).

1. Motion: brockett on the plane (n = 2, p = 1), the sphere (3, 1) and the frame (3, 2), constant
   eta = 0.01, 1,500 iterations at normal speed (250 it/s). In the same page: the idle
   requestAnimationFrame rate (paused), then during playback the rate at which each canvas
   changes, counted twice: a probe that hashes every pixel of both canvases (``getImageData``)
   on every animation frame and counts the frames on which a hash changed (1 s early in the
   run, 1 s late), and the player's own redraw counters (the probe's seconds, and 1 s without
   the probe, whose hashing costs the page a few ms a frame). Goal: each >= 0.5x idle.
2. Controls, on slow runs (30 it/s): Pause clicked in the page while playing, both canvases
   hashed on every animation frame for 1 s after the click, the time of the last change
   (goal <= 150 ms); Step (goal: exactly one iteration, ``Math.floor(kf)`` before and after);
   the slider set by an input event, the time until both canvases changed (goal <= 100 ms).
3. Server CPU (``/proc/<pid>/stat`` utime + stime of the Streamlit process, all its threads)
   over 10 s of playback of a computed run (slow, constant eta = 0.01, 330 iterations: it plays
   through the window), and over 10 s paused.
   Goal: <= 10 % of one core.
4. First complete render in a fresh browser context: the explorer (script idle, the player
   holds its run and has drawn a frame) against the reference page (floor_app ?page=sidebar:
   the sidebar and two one-trace plotly charts, script idle), alternating, median and ratio.
   The explorer with a family too (``?scrub=beta``, issue 20): drawn with its shown member
   (the family's first message), and with every member arrived.
   Goal: ratio <= 1.2. ``bench_player.py render [rounds]`` runs this section alone.
5. Streaming, n = 200, p = 50, 5,000 iterations (last: the run's worker thread goes on after
   its page closes): Run clicked in the page as soon as the player holds the first chunk, the
   time until ``kf > 0`` (polled per animation frame; goal < 0.5 s); Pause while ``run.done``
   is false: ``kf`` and the canvases over the next second.
6. The HTML export of the default run: the downloaded file's size.
7. A race (issue 20): the Compare page with six rows on the sphere (brockett, n = 3, p = 1,
   constant or safe steps near eta = 0.01, 1,500 iterations each, normal speed) at 1280 x 720
   in lecture mode. The idle requestAnimationFrame rate of the page (paused), then 1 s of
   playback with the pixel-hash probe of section 1 (changes of each canvas per second, and the
   player's own redraw counters), ratios to the idle rate; Pause clicked in the page while
   playing, both canvases hashed per animation frame for 1 s after it (PAUSE_JS). Goals:
   playback >= 0.9x idle; Pause stills it within one frame (no change after the first
   animation frame that follows the click, kf unchanged).
   ``bench_player.py race`` runs this section alone.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlencode

from _common import CHROMIUM_ARGS, ROOT, machine
from bench_browser import serve
from playwright.sync_api import sync_playwright

VIEWPORT = {"width": 1500, "height": 2400}
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
CHART = '[data-testid="stPlotlyChart"] .js-plotly-plot'
PLAYER = 'iframe[title="explorer.live.landing_player"]'
MOTION = "step=constant&eta=0.01&max_iter=1500&tol=1e-14"
VIEWS = {"plane": "problem=brockett&n=2&p=1", "sphere": "problem=brockett&n=3&p=1",
         "frame": "problem=brockett&n=3&p=2"}
SLOW = "speed=slow&max_iter=400&tol=1e-14"
TARGETS = (37, 5, 90, 20, 60)  # slider positions: early iterates, where every view still moves
STREAM = "n=200&p=50&max_iter=5000&tol=1e-14"

# Inside the player's iframe. hashes(): an FNV-1a hash of every pixel of each canvas
# (geometry, convergence); any pixel that differs changes it.
HASH_JS = """window.__bp = window.__bp || {
  canvases: () => [...document.querySelectorAll('canvas')],
  hashes() { return this.canvases().map(c => {
    const d = new Uint32Array(c.getContext('2d').getImageData(0, 0, c.width, c.height).data.buffer);
    let h = 2166136261; for (let i = 0; i < d.length; i++) h = Math.imul(h ^ d[i], 16777619);
    return h; }); },
  rafs(ms) { return new Promise(done => { let n = 0; const t0 = performance.now();
    const tick = () => { n++; if (performance.now() - t0 < ms) requestAnimationFrame(tick);
                         else done(n / ((performance.now() - t0) / 1000)); };
    requestAnimationFrame(tick); }); },
};"""
IDLE_FPS_JS = "() => __bp.rafs(1000)"
# the player's redraw counters over 1 s, and the animation frames of the same second
COUNTERS_JS = """() => new Promise(done => { const s = landingPlayer.stats.draws;
  const g0 = s.geometry, c0 = s.convergence; let n = 0; const t0 = performance.now();
  const tick = () => { n++; const dt = performance.now() - t0;
    if (dt < 1000) return requestAnimationFrame(tick);
    done({geometry: (s.geometry - g0) / dt * 1000, convergence: (s.convergence - c0) / dt * 1000,
          raf: n / dt * 1000, playing: landingPlayer.playing}); };
  requestAnimationFrame(tick); })"""
# the probe: per animation frame, which canvases' pixels changed since the previous frame, and
# how far the iterate moved on the geometry view (pixels: the view's scale times the change of
# X_k, interpolated at kf as the player draws it), summed over the window
PROBE_JS = """() => new Promise(done => { const s = landingPlayer.stats.draws, P = landingPlayer;
  const at = kf => { const X = P.run.x, k = Math.min(Math.floor(kf), X.length - 1), f = kf - k;
    return f > 0 && k + 1 < X.length ? X[k].map((v, i) => v + f * (X[k + 1][i] - v)) : X[k]; };
  const scale = P.background.frame.s;
  const g0 = s.geometry, c0 = s.convergence, k0 = P.kf; let prev = __bp.hashes(), n = 0, cost = 0;
  let x = at(P.kf), moved = 0; const changed = [0, 0]; const t0 = performance.now();
  const tick = () => { n++; const a = performance.now(); const h = __bp.hashes();
    cost += performance.now() - a;
    h.forEach((v, i) => { if (v !== prev[i]) changed[i]++; }); prev = h;
    const y = at(P.kf); moved += scale * Math.hypot(...y.map((v, i) => v - x[i])); x = y;
    const dt = performance.now() - t0;
    if (dt < 1000) return requestAnimationFrame(tick);
    done({geometry: changed[0] / dt * 1000, convergence: changed[1] / dt * 1000,
          counted_geometry: (s.geometry - g0) / dt * 1000,
          counted_convergence: (s.convergence - c0) / dt * 1000, raf: n / dt * 1000,
          probe_ms: cost / n, k0, k1: P.kf, moved_px: moved, playing: P.playing}); };
  requestAnimationFrame(tick); })"""
# Pause clicked in the page; both canvases hashed per animation frame for 1 s after it
PAUSE_JS = """() => new Promise(done => { let prev = __bp.hashes();
  const last = [null, null], k0 = landingPlayer.kf, was = landingPlayer.playing;
  const doneBefore = landingPlayer.run.done, have0 = landingPlayer.run.cost.length;
  const t0 = performance.now();
  document.querySelector('button[aria-label=Pause]').click();
  const kClick = landingPlayer.kf;
  const tick = () => { const t = performance.now() - t0; const h = __bp.hashes();
    h.forEach((v, i) => { if (v !== prev[i]) last[i] = t; }); prev = h;
    if (t < 1000) return requestAnimationFrame(tick);
    done({last_ms: last, was_playing: was, playing: landingPlayer.playing, kf_before: k0,
          kf_click: kClick, kf_after: landingPlayer.kf, done_at_click: doneBefore,
          have_at_click: have0, have_after: landingPlayer.run.cost.length}); };
  requestAnimationFrame(tick); })"""
# the slider set to k by an input event; ms until the first animation frame (the next paint)
# at which both canvases differ from before
SLIDER_JS = """k => new Promise(done => { const before = __bp.hashes();
  const slider = document.querySelector('input[type=range]'); const t0 = performance.now();
  slider.value = String(k); slider.dispatchEvent(new Event('input'));
  const tick = () => { const t = performance.now() - t0; const h = __bp.hashes();
    if (h.every((v, i) => v !== before[i]) || t > 2000)
      return done({ms: t, k: Math.floor(landingPlayer.kf),
                   changed: h.map((v, i) => v !== before[i])});
    requestAnimationFrame(tick); };
  requestAnimationFrame(tick); })"""
# Run clicked in the page; ms until the player has moved (kf > 0), polled per animation frame
START_JS = """() => new Promise(done => { const r = landingPlayer.run;
  const info = {have: r.cost.length, done: r.done}; const t0 = performance.now();
  document.querySelector('button[aria-label=Run]').click();
  const poll = () => landingPlayer.kf > 0 ? done({...info, ms: performance.now() - t0})
                                          : requestAnimationFrame(poll);
  requestAnimationFrame(poll); })"""
EXPLORER_DRAWN_JS = f"""() => {{ if (!document.querySelector({IDLE!r})) return false;
  const f = document.querySelector({PLAYER!r}), p = f && f.contentWindow.landingPlayer;
  return !!(p && p.run && p.stats.frames > 0); }}"""
# the explorer with a family (?scrub=beta): drawn with its shown member (the family's first
# message), and drawn with every member arrived (the batch's)
FAMILY_SHOWN_JS = f"""() => {{ if (!document.querySelector({IDLE!r})) return false;
  const f = document.querySelector({PLAYER!r}), p = f && f.contentWindow.landingPlayer;
  return !!(p && p.run && p.run.family && p.stats.frames > 0); }}"""
FAMILY_COMPLETE_JS = f"""() => {{ if (!document.querySelector({IDLE!r})) return false;
  const f = document.querySelector({PLAYER!r}), p = f && f.contentWindow.landingPlayer;
  const fam = p && p.run && p.run.family;
  return !!(fam && fam.have === fam.members.length && p.stats.frames > 0); }}"""
REFERENCE_DRAWN_JS = f"""() => document.querySelector({IDLE!r}) !== null
  && document.querySelectorAll({CHART!r}).length === 2"""


# floor_app.py's sidebar page behind the mark app.py sets on each of its runs: without it,
# controls.sidebar() (its _through_navigation guard) reruns a page that never went through app.py
# over and over, and the reference page never renders
REFERENCE = """import runpy
import streamlit as st
st.session_state.run_via_app = True
runpy.run_path({path!r}, run_name="__main__")
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, all its threads (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_player(browser, url: str):
    """A new browser context on ``url``; (context, page, the player's frame holding a run)."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(IDLE, timeout=60_000)
    frame = page.wait_for_selector(PLAYER, timeout=60_000).content_frame()
    frame.wait_for_function("window.landingPlayer && landingPlayer.run && "
                            "landingPlayer.stats.frames > 0", timeout=60_000)
    frame.evaluate(HASH_JS)
    return context, page, frame


def click(frame, name: str) -> None:
    frame.get_by_role("button", name=name, exact=True).click()


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


# ---------------------------------------------------------------------------- 1. motion

def motion(browser, url: str) -> bool:
    print("\n1. Motion: brockett, constant eta = 0.01, 1,500 iterations, normal speed (250 it/s)")
    print("   per second: canvas changes seen by the pixel-hash probe (0.2-1.2 s after Run), "
          "the player's\n   redraw counters alone (1.2-2.2 s), the probe again (4.5-5.5 s), "
          "with the player's counts in\n   the probe's seconds; ratios to the idle rAF rate of "
          "the same page. 'moved': the path length\n   of X_k on the geometry view in the "
          "window, in pixels; the geometry is judged where it moved >= 1 px")
    print(f"   {'view':<7}{'idle':>6}  {'window':<15}{'k':>11}{'rAF':>6}{'geometry':>9}"
          f"{'converg.':>9}{'geo/idle':>9}{'conv/idle':>10}{'moved':>7}{'probe ms':>9}")
    ok = True
    for view, query in VIEWS.items():
        context, page, frame = open_player(browser, f"{url}/?{query}&{MOTION}")
        assert frame.evaluate("landingPlayer.run.view.kind") == view
        idle = frame.evaluate(IDLE_FPS_JS)
        click(frame, "Run")
        t_run = time.perf_counter()
        page.wait_for_timeout(200)
        rows = [("probe", frame.evaluate(PROBE_JS))]
        rows.append(("counters", frame.evaluate(COUNTERS_JS)))
        page.wait_for_timeout(max(0, 4500 - 1000 * (time.perf_counter() - t_run)))
        rows.append(("probe", frame.evaluate(PROBE_JS)))
        frame.wait_for_function("!landingPlayer.playing", timeout=60_000)
        idle_before, idle_after = idle, frame.evaluate(IDLE_FPS_JS)
        idle = max(idle_before, idle_after)
        for i, (name, r) in enumerate(rows):
            geo, conv = r["geometry"] / idle, r["convergence"] / idle
            extra = ""
            if name == "probe":
                moving = r["moved_px"] >= 1
                if r["playing"]:
                    ok &= conv >= 0.5 and (geo >= 0.5 or not moving)
                name = "probe" + ("" if r["playing"] else " (ended)") + (
                    "" if moving else " (still)")
                extra = f"{r['moved_px']:>7.1f}{r['probe_ms']:>9.1f}"
                k = f"{r['k0']:.0f}-{r['k1']:.0f}"
            else:
                k = ""
            print(f"   {view if i == 0 else '':<7}{f'{idle:.1f}' if i == 0 else '':>6}  "
                  f"{name:<15}{k:>11}{r['raf']:>6.1f}{r['geometry']:>9.1f}"
                  f"{r['convergence']:>9.1f}{geo:>9.2f}{conv:>10.2f}{extra}")
            if name.startswith("probe"):
                print(f"   {'':<13}  {'  its counters':<15}{'':>17}{r['counted_geometry']:>9.1f}"
                      f"{r['counted_convergence']:>9.1f}")
        print(f"   {'':<13}  idle rAF/s before Run {idle_before:.1f}, after the run "
              f"{idle_after:.1f} (the ratios use the larger)")
        context.close()
    print(f"   goal: every moving chart >= 0.5x the idle rate (judged on the probe) -> "
          f"{verdict(ok)}")
    return ok


# ---------------------------------------------------------------------------- 2. controls

def controls(browser, url: str) -> tuple[bool, bool, bool]:
    print("\n2. Pause, Step, slider on slow runs (30 it/s, 400 iterations)")
    pause_ok = step_ok = slider_ok = True
    for view, query in VIEWS.items():
        context, page, frame = open_player(browser, f"{url}/?{query}&{SLOW}")
        click(frame, "Run")
        page.wait_for_timeout(1500)
        p = frame.evaluate(PAUSE_JS)
        last = [f"{t:.0f} ms" if t is not None else "none" for t in p["last_ms"]]
        latest = max((t for t in p["last_ms"] if t is not None), default=0.0)
        still = p["kf_after"] == p["kf_click"] and not p["playing"]
        pause_ok &= latest <= 150 and still and p["was_playing"]
        print(f"   {view}: Pause at kf = {p['kf_before']:.2f} -> k = {p['kf_after']:.0f}; last "
              f"change after the click: geometry {last[0]}, convergence {last[1]}; kf "
              f"unchanged for 1 s: {still}")
        steps = []
        for _ in range(3):
            k0 = frame.evaluate("Math.floor(landingPlayer.kf)")
            click(frame, "Step")
            steps.append(frame.evaluate("Math.floor(landingPlayer.kf)") - k0)
        integral = frame.evaluate("Number.isInteger(landingPlayer.kf)")
        step_ok &= steps == [1, 1, 1] and integral
        seeks = [frame.evaluate(SLIDER_JS, k) for k in TARGETS]
        slider_ok &= all(s["ms"] <= 100 and all(s["changed"]) for s in seeks)
        slider_ok &= [s["k"] for s in seeks] == list(TARGETS)
        print(f"   {'':<{len(view)}}  Step x3 moved {steps} iterations (kf integral: "
              f"{integral}); slider to k = "
              f"{', '.join(map(str, TARGETS))}: both canvases changed after "
              + ", ".join(f"{s['ms']:.0f}" for s in seeks) + " ms")
        context.close()
    print(f"   goals: Pause, last change <= 150 ms -> {verdict(pause_ok)}; Step exactly one "
          f"iteration -> {verdict(step_ok)}; slider <= 100 ms -> {verdict(slider_ok)}")
    return pause_ok, step_ok, slider_ok


# ---------------------------------------------------------------------------- 3. server CPU

def server_cpu(browser, url: str, pid: int) -> bool:
    print("\n3. Server CPU, default view (St(3, 2)), speed=slow (30 it/s), constant eta = 0.01, "
          "330 iterations\n   (11 s of playback: it plays through the whole 10 s window)")
    context, page, frame = open_player(
        browser, f"{url}/?speed=slow&step=constant&eta=0.01&max_iter=330&tol=1e-14")
    frame.wait_for_function("landingPlayer.run.done", timeout=60_000)
    page.wait_for_timeout(1000)
    c0, t0 = cpu_seconds(pid), time.perf_counter()
    page.wait_for_timeout(10_000)
    idle = (cpu_seconds(pid) - c0) / (time.perf_counter() - t0)
    c0, t0 = cpu_seconds(pid), time.perf_counter()
    click(frame, "Run")
    page.wait_for_timeout(10_000)
    playing = (cpu_seconds(pid) - c0) / (time.perf_counter() - t0)
    s = frame.evaluate("({k: Math.floor(landingPlayer.kf), draws: landingPlayer.stats.draws"
                       ".geometry, playing: landingPlayer.playing})")
    context.close()
    print(f"   paused 10 s: {100 * idle:.1f} % of one core; playing 10 s: {100 * playing:.1f} % "
          f"(reached k = {s['k']}, {s['draws']} geometry redraws, still playing: "
          f"{s['playing']})")
    ok = playing <= 0.10
    print(f"   goal: <= 10 % of one core -> {verdict(ok)}")
    return ok


# ---------------------------------------------------------------------------- 4. first render

def first_render(browser, url: str, drawn_js: str) -> float:
    """Seconds from navigation to the complete first render, in a fresh browser context."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    t0 = time.perf_counter()
    page.goto(url)
    page.wait_for_function(drawn_js, timeout=60_000)
    seconds = time.perf_counter() - t0
    context.close()
    return seconds


def render(browser, app_url: str, ref_url: str, rounds: int) -> dict[str, bool]:
    """Section 4: each explorer page against the reference, rounds in alternating order."""
    print(f"\n4. Fresh-browser first complete render, {rounds} rounds alternating")
    reference = "reference (sidebar + 2 plotly)"
    family = f"{app_url}/?scrub=beta"
    pages = {"explorer": (app_url, EXPLORER_DRAWN_JS),
             "explorer, family shown": (family, FAMILY_SHOWN_JS),
             "explorer, family complete": (family, FAMILY_COMPLETE_JS),
             reference: (f"{ref_url}/?page=sidebar", REFERENCE_DRAWN_JS)}
    times: dict[str, list[float]] = {name: [] for name in pages}
    order = list(pages.items())
    for r in range(rounds):
        for name, (url, js) in (order if r % 2 == 0 else order[::-1]):
            times[name].append(first_render(browser, url, js))
    for name, ts in times.items():
        print(f"   {name:<32} median {statistics.median(ts):.2f} s, min {min(ts):.2f} s  ("
              + ", ".join(f"{t:.2f}" for t in ts) + ")")
    goals = {}
    for name, ts in times.items():
        if name == reference:
            continue
        ratios = [a / b for a, b in zip(ts, times[reference], strict=True)]
        ratio = statistics.median(ratios)
        goals[name] = ratio <= 1.2
        print(f"   {name} / reference: median of the rounds' ratios {ratio:.2f} (rounds: "
              + ", ".join(f"{x:.2f}" for x in ratios) + "); of the medians "
              f"{statistics.median(ts) / statistics.median(times[reference]):.2f}; "
              f"goal <= 1.2 -> {verdict(goals[name])}")
    return goals


# ---------------------------------------------------------------------------- 5. streaming

def streaming(browser, url: str) -> tuple[bool, bool, bool]:
    print("\n5. Streaming: brockett n = 200, p = 50, 5,000 iterations")
    t_nav = time.perf_counter()
    context, page, frame = open_player(browser, f"{url}/?{STREAM}")
    t_ready = time.perf_counter() - t_nav
    s = frame.evaluate(START_JS)
    start_ok = s["ms"] < 500
    page.wait_for_timeout(1500)
    p = frame.evaluate(PAUSE_JS)
    last = [f"{t:.0f} ms" if t is not None else "none" for t in p["last_ms"]]
    held = p["kf_after"] == p["kf_click"] and not p["playing"]
    latest = max((t for t in p["last_ms"] if t is not None), default=0.0)
    pause_ok = held and not p["done_at_click"] and p["was_playing"]
    still_ok = latest <= 150
    have = frame.evaluate("landingPlayer.run.cost.length")
    page.wait_for_timeout(5000)
    arrived = frame.evaluate("landingPlayer.run.cost.length") - have
    context.close()
    print(f"   player ready {t_ready:.1f} s after navigation, holding {s['have']} iterates "
          f"(done: {s['done']}); Run -> kf > 0: {s['ms']:.0f} ms")
    print(f"   Pause at k = {p['kf_after']:.0f} with {p['have_at_click']} iterates held, "
          f"run.done {p['done_at_click']}; 1 s later kf unchanged: {held}, "
          f"{p['have_after']} held;\n   last canvas change after the click: geometry "
          f"{last[0]}, convergence {last[1]}")
    print(f"   iterates arriving while paused: {arrived} in 5 s ({arrived / 5:.0f} it/s; "
          f"playback asks for 250 it/s)")
    print(f"   goals: motion < 0.5 s after Run -> {verdict(start_ok)}; Pause while chunks are "
          f"computed holds k -> {verdict(pause_ok)}; no canvas change > 150 ms after it -> "
          f"{verdict(still_ok)}")
    return start_ok, pause_ok, still_ok


# ---------------------------------------------------------------------------- 6. HTML export

def html_export(browser, url: str) -> None:
    context, page, frame = open_player(browser, url)
    have = frame.evaluate("landingPlayer.run.cost.length")
    with page.expect_download() as info:
        click(frame, "HTML")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "landing-run.html"
        info.value.save_as(path)
        size = path.stat().st_size
        text = path.read_text()
    data = text.split('<script data-lp>')[0]
    context.close()
    print(f"\n6. HTML export of the default run ({have} iterates): {size / 1024:.0f} kB "
          f"({size:,} bytes; the run's data {len(data.encode()) / 1024:.0f} kB, the rest the "
          f"inlined player scripts)")


# ---------------------------------------------------------------------------- 7. race

RACE_ROWS = [["η = 0.01", "landing", "beta", 0.5, 1, "constant", 0.01, "sidebar"],
             ["η = 0.02", "landing", "beta", 0.5, 1, "constant", 0.02, "sidebar"],
             ["η = 0.005", "landing", "beta", 0.5, 1, "constant", 0.005, "sidebar"],
             ["safe η ≤ 0.01", "landing", "beta", 0.5, 1, "safe", 0.01, "sidebar"],
             ["ω = 5", "landing", "beta", 0.5, 5, "constant", 0.01, "sidebar"],
             ["RGD (QR)", "rgd-qr", "beta", 1, 1, "constant", 0.01, "sidebar"]]
RACE = {"problem": "brockett", "n": 3, "p": 1, "max_iter": 1500, "tol": 1e-14, "lecture": 1,
        "rows": json.dumps(RACE_ROWS, ensure_ascii=False)}
# the race's probe: per animation frame, which canvases' pixels changed since the previous one
RACE_PROBE_JS = """() => new Promise(done => {
  const s = landingPlayer.stats.draws, P = landingPlayer, g0 = s.geometry, c0 = s.convergence;
  const k0 = P.kf; let prev = __bp.hashes(), n = 0, cost = 0;
  const changed = [0, 0]; const t0 = performance.now();
  const tick = () => { n++; const a = performance.now(); const h = __bp.hashes();
    cost += performance.now() - a;
    h.forEach((v, i) => { if (v !== prev[i]) changed[i]++; }); prev = h;
    const dt = performance.now() - t0;
    if (dt < 1000) return requestAnimationFrame(tick);
    done({geometry: changed[0] / dt * 1000, convergence: changed[1] / dt * 1000,
          counted_geometry: (s.geometry - g0) / dt * 1000,
          counted_convergence: (s.convergence - c0) / dt * 1000, raf: n / dt * 1000,
          probe_ms: cost / n, k0, k1: P.kf, playing: P.playing}); };
  requestAnimationFrame(tick); })"""
# the player's own drawing over 1 s of playback: drawNow timed per call (its geometry and
# convergence canvases; not the browser's compositing), with the frames of the same second
DRAW_MS_JS = """() => new Promise(done => { const p = landingPlayer, draw = p.drawNow;
  const ms = []; p.drawNow = function () { const a = performance.now(); draw.call(this);
    ms.push(performance.now() - a); };
  let n = 0; const t0 = performance.now();
  const tick = () => { n++; if (performance.now() - t0 < 1000) return requestAnimationFrame(tick);
    p.drawNow = draw; ms.sort((a, b) => a - b);
    done({calls: ms.length, raf: n / (performance.now() - t0) * 1000,
          median: ms[Math.floor(ms.length / 2)] || 0, p95: ms[Math.floor(0.95 * ms.length)] || 0,
          k: p.kf, playing: p.playing}); };
  requestAnimationFrame(tick); })"""
# Pause clicked in the page; per animation frame after it (for 1 s), whether either canvas
# changed: the frames counted from the click (1: the first after it) of the last change
RACE_PAUSE_JS = """() => new Promise(done => { let prev = __bp.hashes(), n = 0;
  const k0 = landingPlayer.kf, was = landingPlayer.playing, t0 = performance.now();
  let last = 0, lastMs = null;
  document.querySelector('button[aria-label=Pause]').click();
  const kClick = landingPlayer.kf;
  const tick = () => { n++; const t = performance.now() - t0; const h = __bp.hashes();
    if (h.some((v, i) => v !== prev[i])) { last = n; lastMs = t; } prev = h;
    if (t < 1000) return requestAnimationFrame(tick);
    done({last_frame: last, last_ms: lastMs, frames: n, was_playing: was,
          playing: landingPlayer.playing, kf_before: k0, kf_click: kClick,
          kf_after: landingPlayer.kf}); };
  requestAnimationFrame(tick); })"""


def _settled_player(browser, address: str, ready: str, timeout: float):
    """A 1280 x 720 page at ``address`` whose player holds what ``ready`` (JS) says and has
    drawn, its canvases hashed (HASH_JS), its keys' toast gone and a second left to settle:
    (context, page, the player's frame)."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(address)
    page.wait_for_selector(IDLE, timeout=timeout)
    frame = page.wait_for_selector(PLAYER, timeout=timeout).content_frame()
    frame.wait_for_function(f"window.landingPlayer && landingPlayer.run && {ready}"
                            " && landingPlayer.stats.frames > 0", timeout=timeout)
    frame.evaluate(HASH_JS)
    frame.wait_for_function("!document.querySelector('.lp-toast.on')", timeout=15_000)
    page.wait_for_timeout(1000)
    return context, page, frame


def race(browser, url: str) -> tuple[bool, bool]:
    print("\n7. A race: six rows on the sphere (brockett 3 x 1, steps near eta = 0.01, 1,500 "
          "iterations each),\n   normal speed, lecture mode, 1280 x 720")
    # (the frontend's 404s for /compare/_stcore)
    context, page, frame = _settled_player(browser, f"{url}/compare?{urlencode(RACE)}",
                                           "landingPlayer.run.race", 300_000)
    info = frame.evaluate("({rows: landingPlayer.run.race.rows.map(r => r.last), view: "
                          "landingPlayer.run.view.kind, C: landingPlayer.run.race.C})")
    idle = frame.evaluate(IDLE_FPS_JS)
    click(frame, "Run")
    page.wait_for_timeout(200)
    probe = frame.evaluate(RACE_PROBE_JS)
    counters = frame.evaluate(COUNTERS_JS)
    drawn = frame.evaluate(DRAW_MS_JS)
    pause = frame.evaluate(RACE_PAUSE_JS)
    idle_after = frame.evaluate(IDLE_FPS_JS)
    context.close()
    idle = max(idle, idle_after)
    geo, conv = probe["geometry"] / idle, probe["convergence"] / idle
    print(f"   view {info['view']}, rows of {info['rows']} iterations; idle rAF "
          f"{idle:.1f}/s (before Run and after the run; the larger)")
    print(f"   probe 0.2-1.2 s after Run, k {probe['k0']:.0f}-{probe['k1']:.0f}: rAF "
          f"{probe['raf']:.1f}/s, geometry changed {probe['geometry']:.1f}/s ({geo:.2f}x idle), "
          f"convergence {probe['convergence']:.1f}/s ({conv:.2f}x); its counters "
          f"{probe['counted_geometry']:.1f}, {probe['counted_convergence']:.1f}; probe "
          f"{probe['probe_ms']:.1f} ms a frame")
    print(f"   counters alone, the next 1 s: rAF {counters['raf']:.1f}/s, geometry "
          f"{counters['geometry']:.1f}/s ({counters['geometry'] / idle:.2f}x), convergence "
          f"{counters['convergence']:.1f}/s ({counters['convergence'] / idle:.2f}x)")
    print(f"   the player's drawing, the next 1 s (to k = {drawn['k']:.0f}): {drawn['calls']} "
          f"redraws, median {drawn['median']:.1f} ms, p95 {drawn['p95']:.1f} ms; rAF "
          f"{drawn['raf']:.1f}/s")
    still = pause["kf_after"] == pause["kf_click"] and not pause["playing"]
    when = ("none" if pause["last_ms"] is None else
            f"at animation frame {pause['last_frame']} after the click ({pause['last_ms']:.1f} ms)")
    print(f"   Pause at kf = {pause['kf_before']:.2f} -> k = {pause['kf_after']:.0f}; last canvas "
          f"change: {when}, of {pause['frames']} frames in 1 s; kf unchanged: {still}")
    # the same second of playback of one run of the race in the explorer, in the same
    # window: what the machine gives a single path
    context, page, frame = _settled_player(
        browser, f"{url}/?problem=brockett&n=3&p=1&step=constant&eta=0.01&max_iter=1500"
        "&tol=1e-14&lecture=1", "landingPlayer.run.done", 120_000)
    single_idle = frame.evaluate(IDLE_FPS_JS)
    click(frame, "Run")
    page.wait_for_timeout(1400)
    single = frame.evaluate(COUNTERS_JS)
    single_drawn = frame.evaluate(DRAW_MS_JS)
    context.close()
    print(f"   one run (η = 0.01) in the explorer, the same window: idle rAF {single_idle:.1f}/s; "
          f"counters 1.4-2.4 s after Run: rAF {single['raf']:.1f}/s, geometry "
          f"{single['geometry']:.1f}/s ({single['geometry'] / single_idle:.2f}x), convergence "
          f"{single['convergence']:.1f}/s ({single['convergence'] / single_idle:.2f}x); its "
          f"drawing the next 1 s: median {single_drawn['median']:.1f} ms, p95 "
          f"{single_drawn['p95']:.1f} ms")
    play_ok = probe["playing"] and geo >= 0.9 and conv >= 0.9
    pause_ok = still and pause["was_playing"] and pause["last_frame"] <= 1
    print(f"   goals: playback >= 0.9x idle -> {verdict(play_ok)}; Pause stills it within one "
          f"frame -> {verdict(pause_ok)}")
    return play_ok, pause_ok


def race_only() -> None:
    """Section 7 alone: its own app server and browser."""
    print(machine())
    print(f"UTC: {datetime.now(UTC):%Y-%m-%d %H:%M:%S}; load average at start: "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    app, app_url = serve(ROOT / "app.py")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            print(f"Chromium {browser.version}, headless, no GPU")
            race(browser, app_url)
            browser.close()
    finally:
        app.terminate()
    print(f"UTC: {datetime.now(UTC):%Y-%m-%d %H:%M:%S}; load average at the end: "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))


def render_only(rounds: int) -> None:
    """Section 4 alone: the app's and the reference page's servers, one browser."""
    print(machine())
    print(f"UTC: {datetime.now(UTC):%Y-%m-%d %H:%M:%S}; load average at start: "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    app, app_url = serve(ROOT / "app.py")
    wrapper = Path(tempfile.mkdtemp()) / "reference.py"
    wrapper.write_text(REFERENCE.format(path=str(ROOT / "benchmarks" / "floor_app.py")))
    ref, ref_url = serve(wrapper)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            first_render(browser, app_url, EXPLORER_DRAWN_JS)  # warm-up visits, untimed
            first_render(browser, f"{app_url}/?scrub=beta", FAMILY_COMPLETE_JS)
            first_render(browser, f"{ref_url}/?page=sidebar", REFERENCE_DRAWN_JS)
            render(browser, app_url, ref_url, rounds)
            browser.close()
    finally:
        app.terminate()
        ref.terminate()
    print(f"UTC: {datetime.now(UTC):%Y-%m-%d %H:%M:%S}; load average at the end: "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))


def main(rounds: int = 5) -> None:
    print(machine())
    print(f"UTC: {datetime.now(UTC):%Y-%m-%d %H:%M:%S}; load average at start: "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    git = ["git", "-C", str(ROOT)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.split("\n")
    print(f"code: {ROOT}, commit {head or 'unknown'}; uncommitted changes: "
          + (", ".join(line[3:] for line in dirty if line) or "none"))
    app, app_url = serve(ROOT / "app.py")
    wrapper = Path(tempfile.mkdtemp()) / "reference.py"
    wrapper.write_text(REFERENCE.format(path=str(ROOT / "benchmarks" / "floor_app.py")))
    ref, ref_url = serve(wrapper)
    goals = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            print(f"Chromium {browser.version}, headless, no GPU")
            first_render(browser, app_url, EXPLORER_DRAWN_JS)  # warm-up visits, untimed
            first_render(browser, f"{app_url}/?scrub=beta", FAMILY_COMPLETE_JS)
            first_render(browser, f"{ref_url}/?page=sidebar", REFERENCE_DRAWN_JS)
            goals |= {f"render: {k}": v for k, v in
                      render(browser, app_url, ref_url, rounds).items()}
            ref.terminate()
            goals["motion"] = motion(browser, app_url)
            goals["pause"], goals["step"], goals["slider"] = controls(browser, app_url)
            goals["server cpu"] = server_cpu(browser, app_url, app.pid)
            html_export(browser, app_url)
            # last: the streamed run's worker goes on computing after its page closes
            goals["race play"], goals["race pause"] = race(browser, app_url)
            goals["stream start"], goals["stream pause"], goals["stream still"] = streaming(
                browser, app_url)
            browser.close()
    finally:
        app.terminate()
        ref.terminate()
    print(f"\nUTC: {datetime.now(UTC):%Y-%m-%d %H:%M:%S}; load average at the end: "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    print("goals: " + "; ".join(f"{k} {verdict(v)}" for k, v in goals.items()))


if __name__ == "__main__":
    if sys.argv[1:] == ["race"]:
        race_only()
    elif sys.argv[1:2] == ["render"]:
        render_only(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
