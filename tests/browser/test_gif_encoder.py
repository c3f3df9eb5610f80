"""The player's GIF encoder (explorer/player/gif.js) in headless Chromium, no Streamlit server.

Frames are drawn on a canvas in the page (tests/browser/gif_scene.js: contour bands, a shaded
sphere, antialiased paths, a moving dot, text), encoded there, and the bytes come back as
base64. Pillow decodes them, and so does a strict reader written here: it walks every block,
checks the graphic control extensions, the sub-block chains and the LZW code widths (a code
read at the wrong width, a code past the table, a full table without a clear code or a missing
end code raise), so that a lenient decoder cannot hide an encoder bug.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageSequence

from tests.browser.conftest import ROOT

pytestmark = pytest.mark.browser

GIF_JS = ROOT / "explorer" / "player" / "gif.js"
SCENE_JS = Path(__file__).with_name("gif_scene.js")
W, H, N = 640, 400, 200

HELPERS = """
function b64(u8) {
  let s = "";
  for (let i = 0; i < u8.length; i += 0x8000) {
    s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
  }
  return btoa(s);
}
// frames from [{w, h, rgba: base64 of the RGBA bytes, or fill: [r, g, b, a]}]
function makeFrames(specs) {
  return specs.map((s) => {
    const data = new Uint8ClampedArray(s.w * s.h * 4);
    if (s.fill) for (let i = 0; i < s.w * s.h; i++) data.set(s.fill, 4 * i);
    else { const t = atob(s.rgba); for (let i = 0; i < t.length; i++) data[i] = t.charCodeAt(i); }
    return {data: data, width: s.w, height: s.h};
  });
}
"""


# ---------------------------------------------------------------- a strict GIF reader


def lzw_decode(data: bytes, min_size: int, npix: int) -> tuple[list[int], int]:
    """Palette indices and the number of clear codes after the first; strict."""
    clear, eoi = 1 << min_size, (1 << min_size) + 1
    bitpos, nbits = 0, 8 * len(data)
    value = int.from_bytes(data, "little")
    width, nxt, prev, clears = min_size + 1, eoi + 1, None, -1
    table: list[list[int]] = [[i] for i in range(clear)] + [[], []]
    out: list[int] = []
    while True:
        if bitpos + width > nbits:
            raise ValueError("LZW data ends before the end code")
        code = (value >> bitpos) & ((1 << width) - 1)
        bitpos += width
        if code == clear:
            del table[eoi + 1:]
            width, nxt, prev, clears = min_size + 1, eoi + 1, None, clears + 1
            continue
        if code == eoi:
            break
        if clears < 0:
            raise ValueError("LZW data does not start with a clear code")
        if prev is None:
            if code >= clear:
                raise ValueError(f"first code after a clear is {code}, not a colour")
            entry = table[code]
        else:
            if nxt >= 4096:
                raise ValueError("code table full without a clear code")
            if code < nxt:
                entry = table[code]
                table.append(prev + entry[:1])
            elif code == nxt:
                entry = prev + prev[:1]
                table.append(entry)
            else:
                raise ValueError(f"code {code} past the table ({nxt})")
            nxt += 1
            if nxt == 1 << width and width < 12:
                width += 1
        out.extend(entry)
        prev = entry
    if len(out) != npix:
        raise ValueError(f"{len(out)} pixels decoded, {npix} expected")
    if (nbits - bitpos) >= 8:
        raise ValueError(f"{(nbits - bitpos) // 8} bytes after the end code")
    if max(out) >= clear:
        raise ValueError("index outside the colour table")
    return out, clears


def read_gif(data: bytes, decode: bool | set[int] = True) -> dict:
    """Every block of a GIF89a file, strictly; the LZW data of the frames in ``decode``
    (True: all) decoded."""
    assert data[:6] == b"GIF89a"
    width, height = int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    packed = data[10]
    assert packed & 0x80, "no global colour table"
    size = 2 << (packed & 7)
    palette = np.frombuffer(data[13:13 + 3 * size], np.uint8).reshape(size, 3)
    pos = 13 + 3 * size
    gif = {"width": width, "height": height, "palette": palette, "loop": None, "frames": []}
    gce = None

    def sub_blocks(pos: int) -> tuple[bytes, int, list[int]]:
        chunks, sizes = [], []
        while data[pos]:
            n = data[pos]
            sizes.append(n)
            chunks.append(data[pos + 1:pos + 1 + n])
            pos += 1 + n
        return b"".join(chunks), pos + 1, sizes

    while True:
        tag = data[pos]
        if tag == 0x3B:
            assert pos == len(data) - 1, "bytes after the trailer"
            break
        if tag == 0x21 and data[pos + 1] == 0xFF:
            assert data[pos + 2] == 11
            ident = data[pos + 3:pos + 14]
            body, pos, _ = sub_blocks(pos + 14)
            if ident == b"NETSCAPE2.0":
                assert len(body) == 3 and body[0] == 1
                gif["loop"] = int.from_bytes(body[1:3], "little")
        elif tag == 0x21 and data[pos + 1] == 0xF9:
            assert gce is None, "two graphic control extensions for one image"
            assert data[pos + 2] == 4 and data[pos + 7] == 0
            flags = data[pos + 3]
            gce = {"disposal": (flags >> 2) & 7,
                   "transparent": data[pos + 6] if flags & 1 else None,
                   "delay": int.from_bytes(data[pos + 4:pos + 6], "little")}
            pos += 8
        elif tag == 0x2C:
            x, y, w, h = (int.from_bytes(data[pos + i:pos + i + 2], "little") for i in (1, 3, 5, 7))
            assert data[pos + 9] == 0, "local colour table or interlace"
            assert x + w <= width and y + h <= height, "image outside the screen"
            min_size = data[pos + 10]
            assert 2 <= min_size <= 8
            body, pos, sizes = sub_blocks(pos + 11)
            assert all(s == 255 for s in sizes[:-1]), f"short sub-block inside the chain: {sizes}"
            frame = dict(gce or {}, rect=(x, y, w, h), min_size=min_size, nbytes=len(body))
            if decode is True or (decode and len(gif["frames"]) in decode):
                frame["indices"], frame["clears"] = lzw_decode(body, min_size, w * h)
            gif["frames"].append(frame)
            gce = None
        else:
            raise ValueError(f"unknown block 0x{tag:02x} at {pos}")
    return gif


def composite(gif: dict) -> list[np.ndarray]:
    """The RGB frames a viewer shows (disposal 1: leave in place; transparency)."""
    screen = np.zeros((gif["height"], gif["width"], 3), np.uint8)
    shown = []
    for fr in gif["frames"]:
        assert fr["disposal"] == 1
        x, y, w, h = fr["rect"]
        ix = np.asarray(fr["indices"]).reshape(h, w)
        rgb = gif["palette"][ix]
        keep = ix == fr["transparent"] if fr["transparent"] is not None else np.zeros_like(ix, bool)
        region = screen[y:y + h, x:x + w]
        region[~keep] = rgb[~keep]
        shown.append(screen.copy())
    return shown


def pillow_frames(data: bytes) -> list[np.ndarray]:
    with Image.open(io.BytesIO(data)) as im:
        return [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(im)]


# ---------------------------------------------------------------- the page


@pytest.fixture(scope="module")
def gif_page(browser):
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_content(
        f"<!doctype html><html><body><script>{GIF_JS.read_text()}</script>"
        f"<script>{SCENE_JS.read_text()}</script><script>{HELPERS}</script></body></html>")
    yield page
    context.close()
    assert not errors, errors


def encode(page, specs: list[dict], options: dict | None = None) -> bytes:
    """Encode frames built from ``specs`` (see makeFrames) in the page."""
    b64 = page.evaluate(
        "([specs, opts]) => b64(LandingGif.encode(makeFrames(specs), opts))",
        [specs, options or {}])
    return base64.b64decode(b64)


def _b64(rgba: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(rgba, np.uint8).tobytes()).decode()


PICK = [0, 1, 57, 123, 199]


@pytest.fixture(scope="module")
def movie(gif_page):
    """200 frames of 640x400 drawn in the page, encoded; the GIF, timings and a few frames."""
    r = gif_page.evaluate(
        """([n, w, h, pick]) => {
          const t0 = performance.now();
          window.movie = GifScene.frames(n, w, h);
          const t1 = performance.now();
          const gif = LandingGif.encode(window.movie, {delayCs: 4, loop: 0});
          const t2 = performance.now();
          return {draw: (t1 - t0) / 1000, encode: (t2 - t1) / 1000, gif: b64(gif),
                  frames: pick.map((i) => b64(window.movie[i].data)),
                  flat: GifScene.FLAT};
        }""", [N, W, H, PICK])
    r["gif"] = base64.b64decode(r["gif"])
    r["frames"] = [np.frombuffer(base64.b64decode(f), np.uint8).reshape(H, W, 4)[..., :3]
                   for f in r["frames"]]
    return r


# ---------------------------------------------------------------- the 200-frame movie


def test_movie_structure(movie):
    """The GIF's frames, delays, rectangles and palette; how fast it is encoded is
    benchmarks/bench_gif.py's (a bound in seconds here measured the machine)."""
    data = movie["gif"]
    print(f"\n200 frames 640x400: drawn in {movie['draw']:.2f} s, "
          f"encoded in {movie['encode']:.2f} s, {len(data) / 1e3:.0f} kB")
    with Image.open(io.BytesIO(data)) as im:
        assert im.n_frames == N
        assert im.size == (W, H)
        assert im.info["loop"] == 0
        durations = [f.info["duration"] for f in ImageSequence.Iterator(im)]
    assert durations == [40] * N
    gif = read_gif(data, decode=False)
    frames = gif["frames"]
    assert len(frames) == N and gif["loop"] == 0
    assert [f["delay"] for f in frames] == [4] * N
    assert frames[0]["rect"] == (0, 0, W, H) and frames[0]["transparent"] is None
    assert all(f["disposal"] == 1 for f in frames)
    # later frames: only the changed rectangle, with a transparent index outside the colours
    assert {f["transparent"] for f in frames[1:]} == {255}  # after the 255 colours
    assert all(f["rect"][2] * f["rect"][3] < W * H for f in frames[1:])
    assert len(gif["palette"]) == 256
    # the deltas make the file far smaller than 200 full frames (the first alone is ~1/10)
    assert len(data) < 40 * frames[0]["nbytes"]


def test_movie_pixels_match_the_canvas(movie):
    decoded = pillow_frames(movie["gif"])
    assert len(decoded) == N
    flat = [np.array(c, np.uint8) for c in movie["flat"]]
    for i, src in zip(PICK, movie["frames"], strict=True):
        dec = decoded[i]
        err = np.abs(dec.astype(int) - src.astype(int))
        mae = err.mean(axis=(0, 1))
        print(f"frame {i}: mean abs error per channel {np.round(mae, 3)}, "
              f"exact pixels {np.mean(err.max(axis=2) == 0):.3f}")
        assert (mae < 2).all(), mae
        # a few mistakes are allowed at antialiased edges, not in regions
        assert np.mean(err.max(axis=2) > 24) < 0.002
        for c in flat:  # the flat fills (white, contour bands) come back exactly
            mask = (src == c).all(axis=2)
            assert mask.sum() > 100
            assert (dec[mask] == c).all(), c
    # the movie moves: the decoded last frame is not the first
    assert np.abs(decoded[-1].astype(int) - decoded[0].astype(int)).max() > 100


def test_first_frame_strict_decode_matches_pillow(movie):
    data = movie["gif"]
    gif = read_gif(data, decode={0})
    frame = gif["frames"][0]
    ours = gif["palette"][np.asarray(frame["indices"]).reshape(H, W)]
    assert frame["clears"] > 0  # 256k pixels of a 255-colour image fill the table
    assert (ours == pillow_frames(data)[0]).all()


# ---------------------------------------------------------------- small changes, disposal


def _scene(w: int, h: int, gradient: bool) -> np.ndarray:
    img = np.full((h, w, 4), 255, np.uint8)
    if gradient:  # ~600 colours: the palette is quantised
        x = np.arange(w)[None, :]
        y = np.arange(h)[:, None]
        img[..., 0] = (x * 255 // (w - 1)).astype(np.uint8)
        img[..., 1] = (y * 255 // (h - 1)).astype(np.uint8)
        img[..., 2] = 128
    img[40:90, 30:200, :3] = (31, 119, 180)
    img[120:160, 250:400, :3] = (44, 160, 44)
    img[170:185, 10:30, :3] = (3, 181, 128)  # a small flat fill amid the gradient's colours
    img[10:30, 220:240, :3] = (200, 200, 200)  # two fills one level apart
    img[10:30, 240:260, :3] = (201, 200, 200)
    return img


FILLS = [(31, 119, 180), (44, 160, 44), (3, 181, 128), (200, 200, 200), (201, 200, 200)]


@pytest.mark.parametrize("gradient", [False, True], ids=["flat", "gradient"])
def test_small_changes_decode_correctly(gif_page, gradient):
    w, h = 320, 200
    a = _scene(w, h, gradient)
    b = a.copy()
    b[103:108, 201:208, :3] = (214, 39, 40)        # a 7x5 square
    e = a.copy()
    e[h - 1, w - 1, :3] = (44, 160, 44)             # one corner pixel, a flat fill's colour
    src = [a, b, b, a, e]
    specs = [{"w": w, "h": h, "rgba": _b64(f)} for f in src]
    data = encode(gif_page, specs, {"delayCs": [10, 20, 30, 40, 50], "loop": 3})
    gif = read_gif(data)
    rects = [f["rect"] for f in gif["frames"]]
    assert rects == [(0, 0, w, h), (201, 103, 7, 5), (0, 0, 1, 1), (201, 103, 7, 5),
                     (w - 1, h - 1, 1, 1)]
    assert gif["frames"][2]["indices"] == [gif["frames"][2]["transparent"]]
    assert gif["loop"] == 3
    ours, pil = composite(gif), pillow_frames(data)
    with Image.open(io.BytesIO(data)) as im:
        assert [f.info["duration"] for f in ImageSequence.Iterator(im)] == [100, 200, 300, 400, 500]
        assert im.info["loop"] == 3
    for k, (s, o, p) in enumerate(zip(src, ours, pil, strict=True)):
        assert (o == p).all(), f"frame {k}: our reader and Pillow differ"
        err = np.abs(o.astype(int) - s[..., :3].astype(int))
        if gradient:
            assert err.mean() < 2.5 and err.max() <= 24, (k, err.mean(), err.max())
            for c in FILLS:  # flat fills exact, even amid a quantised gradient
                mask = (s[..., :3] == c).all(axis=2)
                assert mask.sum() >= 300 and (o[mask] == c).all(), (k, c)
        else:
            assert err.max() == 0, k
        if k:  # outside the changed rectangle the frame is exactly the previous one
            x, y, rw, rh = rects[k]
            outside = np.ones((h, w), bool)
            outside[y:y + rh, x:x + rw] = False
            assert (o[outside] == ours[k - 1][outside]).all()
    # the red square and the corner pixel are there, the revert removes the square
    assert (np.abs(ours[1][103:108, 201:208].astype(int) - (214, 39, 40)) <= 8).all()
    assert np.abs(ours[3][103:108, 201:208].astype(int) - a[103:108, 201:208, :3]).max() <= 24
    assert (ours[4][h - 1, w - 1] == (44, 160, 44)).all()


# ---------------------------------------------------------------- LZW edge cases


def test_lzw_one_pixel(gif_page):
    data = encode(gif_page, [{"w": 1, "h": 1, "rgba": _b64(np.array([12, 34, 56, 255], np.uint8))}])
    gif = read_gif(data)
    (fr,) = gif["frames"]
    assert fr["min_size"] == 2 and fr["rect"] == (0, 0, 1, 1) and len(gif["palette"]) == 2
    assert tuple(gif["palette"][fr["indices"][0]]) == (12, 34, 56)
    assert tuple(pillow_frames(data)[0][0, 0]) == (12, 34, 56)


def test_lzw_single_colour_animation(gif_page):
    spec = {"w": 64, "h": 48, "fill": [200, 10, 90, 255]}
    data = encode(gif_page, [spec, spec, spec])
    gif = read_gif(data)
    assert [f["rect"] for f in gif["frames"]] == [(0, 0, 64, 48), (0, 0, 1, 1), (0, 0, 1, 1)]
    first = gif["frames"][0]
    assert first["clears"] == 0 and first["nbytes"] < 80  # 3,072 pixels in ~80 codes
    for o, p in zip(composite(gif), pillow_frames(data), strict=True):
        assert (o == (200, 10, 90)).all() and (p == o).all()


@pytest.mark.parametrize("colours", [2, 5, 16, 256])
def test_lzw_every_length(gif_page, colours):
    """One-row frames of 1..300 pixels cycling through the colours: the code width grows at
    every length and the end code is read at the decoder's width (a byte-exact stream ends
    on a byte boundary only for some lengths, so all of them are tried)."""
    b64s = gif_page.evaluate("""(k) => {
      const out = [];
      for (let n = 1; n <= 300; n++) {
        const d = new Uint8ClampedArray(4 * n);
        for (let i = 0; i < n; i++) {
          const c = (i * 7 + (i >> 3)) % k;
          d.set([c, 255 - c, (c * 37) & 255, 255], 4 * i);
        }
        out.push(b64(LandingGif.encode([{data: d, width: n, height: 1}])));
      }
      return out;
    }""", colours)
    for n, b in enumerate(b64s, start=1):
        data = base64.b64decode(b)
        gif = read_gif(data)
        c = (np.arange(n) * 7 + (np.arange(n) >> 3)) % colours
        want = np.stack([c, 255 - c, (c * 37) & 255], axis=1)
        got = composite(gif)[0][0]
        assert (got == want).all(), n


def test_lzw_256_distinct_colours_exact(gif_page):
    rgba = np.zeros((16, 16, 4), np.uint8)
    k = np.arange(256).reshape(16, 16)
    rgba[..., 0], rgba[..., 1], rgba[..., 2], rgba[..., 3] = k, 255 - k, (k * 7) % 256, 255
    data = encode(gif_page, [{"w": 16, "h": 16, "rgba": _b64(rgba)}])
    gif = read_gif(data)
    assert gif["frames"][0]["min_size"] == 8 and len(gif["palette"]) == 256
    assert (composite(gif)[0] == rgba[..., :3]).all()
    assert (pillow_frames(data)[0] == rgba[..., :3]).all()


@pytest.mark.parametrize("colours", [4, 256])
def test_lzw_table_fills_and_clears(gif_page, colours):
    rng = np.random.default_rng(7)
    size = 200 if colours == 4 else 256
    pal = rng.integers(0, 256, (colours, 3), dtype=np.uint8)
    pal[:, 0] = np.arange(colours) % 256  # distinct colours
    ix = rng.integers(0, colours, (size, size))
    ix.flat[:colours] = np.arange(colours)  # every colour used
    rgba = np.concatenate([pal[ix], np.full((size, size, 1), 255, np.uint8)], axis=2)
    data = encode(gif_page, [{"w": size, "h": size, "rgba": _b64(rgba)}])
    gif = read_gif(data)
    (fr,) = gif["frames"]
    assert fr["min_size"] == (2 if colours == 4 else 8)
    assert fr["clears"] >= 2, fr["clears"]  # the 4096-code table filled, more than once
    assert (composite(gif)[0] == rgba[..., :3]).all()
    assert (pillow_frames(data)[0] == rgba[..., :3]).all()


def test_alpha_is_composited_and_loop_can_be_off(gif_page):
    specs = [{"w": 4, "h": 2, "fill": [0, 0, 0, 0]}, {"w": 4, "h": 2, "fill": [0, 0, 255, 128]}]
    data = encode(gif_page, specs, {"loop": None, "delayCs": 7})
    gif = read_gif(data)
    assert gif["loop"] is None
    shown = composite(gif)
    assert (shown[0] == 255).all()
    assert (shown[1] == (127, 127, 255)).all()
    with Image.open(io.BytesIO(data)) as im:
        assert "loop" not in im.info and im.info["duration"] == 70


def test_bad_input_raises(gif_page):
    msg = gif_page.evaluate("""() => {
      try { LandingGif.encode(makeFrames([{w: 2, h: 2, fill: [0,0,0,255]},
                                          {w: 3, h: 2, fill: [0,0,0,255]}])); return null; }
      catch (e) { return e.message; } }""")
    assert msg and "frame 1" in msg
    assert json.loads(gif_page.evaluate("() => JSON.stringify(Object.keys(LandingGif))")) == [
        "encode"]
