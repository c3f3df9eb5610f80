"""The player's GIF export (explorer/player/gif.js) in headless Chromium: 200 frames of 640x400.

Run: uv run python benchmarks/bench_gif.py [rounds]
Launches Debian's /usr/bin/chromium as the browser tests do (no Streamlit server: the encoder
and the scene, tests/browser/gif_scene.js, are inlined in a blank page), draws 200 frames of a
landing run (contour bands, a shaded sphere, paths, a moving dot, a growing convergence curve,
text), and times LandingGif.encode on them `rounds` times (default 3). Two scenes:

- player: what the player shows, the iterate and the curves move (frames after the first
  encode only their changed rectangle);
- pan: the whole scene moves every frame (every pixel changes: the worst case, as when a 3-D
  view rotates).

Prints the median and minimum encode time, the time to draw and capture the frames, the file
size, the palette's share of the time, and the mean absolute error per channel of every 20th
decoded frame (Pillow) against the canvas.
"""

from __future__ import annotations

import base64
import io
import os
import platform
import statistics
import sys
from datetime import UTC, datetime

import numpy as np
from _common import CHROMIUM_ARGS, ROOT
from PIL import Image, ImageSequence
from playwright.sync_api import sync_playwright

W, H, N = 640, 400, 200
PICK = list(range(0, N, 20)) + [N - 1]

B64 = """function b64(u8) {
  let s = "";
  for (let i = 0; i < u8.length; i += 0x8000) {
    s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
  }
  return btoa(s);
}"""

RUN = """([n, w, h, pan, rounds, pick]) => {
  const t0 = performance.now();
  const frames = GifScene.frames(n, w, h, {pan: pan});
  const draw = performance.now() - t0;
  const times = [], stats = [];
  let gif = null;
  for (let r = 0; r < rounds; r++) {
    const st = {};
    const a = performance.now();
    gif = LandingGif.encode(frames, {delayCs: 4, loop: 0, stats: st});
    times.push((performance.now() - a) / 1000);
    stats.push(st);
  }
  return {draw: draw / 1000, times, stats, gif: b64(gif),
          frames: pick.map((i) => b64(frames[i].data))};
}"""


def main(rounds: int = 3) -> None:
    page_html = (f"<!doctype html><html><body>"
                 f"<script>{(ROOT / 'explorer/player/gif.js').read_text()}</script>"
                 f"<script>{(ROOT / 'tests/browser/gif_scene.js').read_text()}</script>"
                 f"<script>{B64}</script></body></html>")
    with open("/proc/cpuinfo") as f:
        cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        print(f"date: {datetime.now(UTC).isoformat(timespec='seconds')}")
        print(f"machine: {cpu} ({platform.machine()}), {os.cpu_count()} CPUs; "
              f"Chromium {browser.version} headless, no GPU")
        print(f"{N} frames of {W}x{H}, {rounds} encodes per scene, delay 4 cs, loop forever")
        print(f"{'scene':8s}{'median s':>10s}{'min s':>8s}{'draw s':>8s}{'palette':>9s}"
              f"{'size kB':>9s}{'colours':>9s}{'MAE r,g,b (every 20th frame)':>32s}")
        for scene in ("player", "pan"):
            context = browser.new_context()
            page = context.new_page()
            page.set_content(page_html)
            r = page.evaluate(RUN, [N, W, H, scene == "pan", rounds, PICK])
            context.close()
            data = base64.b64decode(r["gif"])
            with Image.open(io.BytesIO(data)) as im:
                assert im.n_frames == N
                decoded = [np.asarray(f.convert("RGB"), np.int16)
                           for f in ImageSequence.Iterator(im)]
            errs = []
            for i, b in zip(PICK, r["frames"], strict=True):
                src = np.frombuffer(base64.b64decode(b), np.uint8).reshape(H, W, 4)[..., :3]
                errs.append(np.abs(decoded[i] - src).mean(axis=(0, 1)))
            mae = ", ".join(f"{v:.2f}" for v in np.mean(errs, axis=0))
            st = r["stats"][-1]
            share = statistics.median(s["paletteMs"] / (s["paletteMs"] + s["framesMs"])
                                      for s in r["stats"])
            print(f"{scene:8s}{statistics.median(r['times']):10.2f}{min(r['times']):8.2f}"
                  f"{r['draw']:8.2f}{share:8.0%} {len(data) / 1e3:8.0f}{st['colours']:9d}"
                  f"{mae:>32s}")
        browser.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
