/* Landing Explorer: a small GIF89a encoder for the animation player.
 *
 * Plain script (no modules, no dependencies): inline it in a <script> or load it with
 * importScripts() in a worker. It defines one global:
 *
 *   LandingGif.encode(frames, options) -> Uint8Array (the .gif file)
 *     frames:  ImageData[] or {data: Uint8ClampedArray (RGBA), width, height}[], all one size
 *     options: delayCs  hundredths of a second per frame, a number or an array (default 4;
 *                       browsers show delays below 2 as 10)
 *              loop     0 = forever (default), n = n repeats, null or -1 = play once
 *              background  [r, g, b] that non-opaque pixels are composited on (default white)
 *              dither   ordered-dither amplitude in levels (default 8, 0 = off), see below
 *              stats    an object to fill with {colours, distinct, paletteMs, framesMs}
 *
 * How:
 * - One global palette (up to 256 colours; 255 and a transparent index for animations).
 *   Colours are counted exactly over a subsample of the pixels of all frames (about a million
 *   samples, every frame). Colours that cover at least 1/1024 of the samples (backgrounds, the
 *   fills of a contour plot, solid lines) get their own exact entry, so flat regions come out
 *   exact; the rest of the palette comes from a variance-minimising median cut over the other
 *   colours (split the box with the largest squared error at the cut that minimises it),
 *   refined by two Lloyd (k-means) passes over the counted colours. If all the frames hold at
 *   most as many colours as there are entries, the palette is exact.
 * - Pixels map to the palette through a lazily filled 2^24-entry table (16 MB, and a 2 MB
 *   "filled" bitset): the exact nearest entry of each distinct colour is searched once (palette
 *   sorted by green, search outwards from the pixel's green with early exit). A 32^3 or 64^3
 *   table would be smaller but maps every colour of a cell to the entry nearest the cell, which
 *   loses the exactness of flat colours and adds up to 4 (or 2) levels of error per channel.
 * - Ordered dithering (4x4 Bayer, +-4 levels by default) of the colours the palette does not
 *   hold exactly: on a smoothly shaded sphere 255 colours leave visible contour rings, the
 *   dither hides them (mean error 0.4 instead of 0.3 levels, file ~5 % larger); flat colours
 *   and the background are never dithered.
 * - Frames after the first encode only the bounding rectangle of the pixels that changed, with
 *   unchanged pixels inside it set to the transparent index, disposal "do not dispose".
 *   A frame equal to the previous one is a 1x1 transparent frame (the frame count and delays
 *   stay as given).
 * - LZW with variable code width (minimum code size 2..8, codes up to 12 bits), a clear code
 *   when the table is full, 255-byte sub-blocks. NETSCAPE2.0 loop extension, a graphic control
 *   extension with the delay per frame.
 */
(function (root) {
  "use strict";

  var LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  var SAMPLE_TARGET = 1 << 20;  // colour samples over all frames
  var LLOYD_PASSES = 2;
  function now() { return typeof performance !== "undefined" ? performance.now() : Date.now(); }
  var BAYER4 = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5];

  /* ---------- output ---------- */

  function Writer(size) {
    this.buf = new Uint8Array(size);
    this.pos = 0;
  }
  Writer.prototype.ensure = function (n) {
    if (this.pos + n > this.buf.length) {
      var b = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
      b.set(this.buf.subarray(0, this.pos));
      this.buf = b;
    }
  };
  Writer.prototype.byte = function (v) {
    this.ensure(1);
    this.buf[this.pos++] = v & 255;
  };
  Writer.prototype.u16 = function (v) {
    this.ensure(2);
    this.buf[this.pos++] = v & 255;
    this.buf[this.pos++] = (v >>> 8) & 255;
  };
  Writer.prototype.ascii = function (s) {
    this.ensure(s.length);
    for (var i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i) & 255;
  };

  /* ---------- frames ---------- */

  // The frame's pixels as 32-bit words R | G << 8 | B << 16 | A << 24, opaque (pixels with
  // alpha < 255 are composited on the background colour, as a slide would show them).
  function pixelsOf(frame, n, bg) {
    var d = frame.data, px, i;
    if (LITTLE_ENDIAN && (d.byteOffset & 3) === 0) {
      px = new Uint32Array(d.buffer, d.byteOffset, n);
    } else {
      px = new Uint32Array(n);
      for (i = 0; i < n; i++) {
        px[i] = (d[4 * i] | (d[4 * i + 1] << 8) | (d[4 * i + 2] << 16) | (d[4 * i + 3] << 24)) >>> 0;
      }
    }
    for (i = 0; i < n; i++) if (px[i] < 0xFF000000) break;
    if (i === n) return px;
    var out = new Uint32Array(n);
    for (i = 0; i < n; i++) {
      var p = px[i], a = p >>> 24;
      if (a === 255) { out[i] = p; continue; }
      var r = ((p & 255) * a + bg[0] * (255 - a) + 127) / 255 | 0;
      var g = (((p >>> 8) & 255) * a + bg[1] * (255 - a) + 127) / 255 | 0;
      var b = (((p >>> 16) & 255) * a + bg[2] * (255 - a) + 127) / 255 | 0;
      out[i] = (r | (g << 8) | (b << 16) | 0xFF000000) >>> 0;
    }
    return out;
  }

  /* ---------- colour counting ---------- */

  // Open-addressing hash table: key (24-bit colour) + 1 -> count.
  function Counts(capacity) {
    var size = 1024;
    while (size < 2 * capacity) size *= 2;
    this.bits = Math.round(Math.log2(size));
    this.mask = size - 1;
    this.keys = new Int32Array(size);
    this.counts = new Float64Array(size);
    this.n = 0;
  }
  Counts.prototype.add = function (key, c) {
    var k1 = key + 1, mask = this.mask, keys = this.keys;
    var h = Math.imul(key, 0x9E3779B1) >>> (32 - this.bits);
    while (keys[h] !== 0 && keys[h] !== k1) h = (h + 1) & mask;
    if (keys[h] === 0) { keys[h] = k1; this.n++; }
    this.counts[h] += c;
  };

  // Count the colours of every `step`-th pixel of every frame (runs of one colour counted once).
  // Returns null when `limit` distinct colours are exceeded.
  function countColours(frames, n, bg, step, limit) {
    var samples = Math.ceil(n / step) * frames.length;
    var t = new Counts(Math.min(samples, limit === Infinity ? samples : 4 * limit + 16));
    for (var f = 0; f < frames.length; f++) {
      var px = pixelsOf(frames[f], n, bg);
      var last = -1, run = 0;
      for (var i = step > 1 ? (f * 7919) % step : 0; i < n; i += step) {
        var k = px[i] & 0xFFFFFF;
        if (k === last) { run++; continue; }
        if (run) t.add(last, run);
        if (t.n > limit) return null;
        last = k;
        run = 1;
      }
      if (run) t.add(last, run);
      if (t.n > limit) return null;
    }
    var m = t.n, r = new Uint8Array(m), g = new Uint8Array(m), b = new Uint8Array(m);
    var w = new Float64Array(m), j = 0;
    for (var h = 0; h <= t.mask; h++) {
      var k1 = t.keys[h];
      if (k1 === 0) continue;
      var key = k1 - 1;
      r[j] = key & 255; g[j] = (key >>> 8) & 255; b[j] = (key >>> 16) & 255;
      w[j++] = t.counts[h];
    }
    return {n: m, r: r, g: g, b: b, w: w};
  }

  /* ---------- nearest palette entry ---------- */

  // The palette sorted by green, with the first position of each green level, for a search
  // outwards from the query's green that stops once the green distance alone is too far.
  function Search(pr, pg, pb, n) {
    var order = [];
    for (var i = 0; i < n; i++) order.push(i);
    order.sort(function (a, b) { return pg[a] - pg[b]; });
    this.n = n;
    this.r = new Int32Array(n); this.g = new Int32Array(n); this.b = new Int32Array(n);
    this.idx = new Int32Array(n);
    for (i = 0; i < n; i++) {
      var o = order[i];
      this.r[i] = pr[o]; this.g[i] = pg[o]; this.b[i] = pb[o]; this.idx[i] = o;
    }
    this.start = new Int32Array(257);
    var p = 0;
    for (var v = 0; v <= 256; v++) {
      while (p < n && this.g[p] < v) p++;
      this.start[v] = p;
    }
  }
  Search.prototype.nearest = function (r, g, b) {
    var sr = this.r, sg = this.g, sb = this.b, n = this.n;
    var best = 1e9, bi = 0, i = this.start[g], j = i - 1, d, dr, dg, db;
    while (i < n || j >= 0) {
      if (i < n) {
        dg = sg[i] - g; d = dg * dg;
        if (d >= best) i = n;
        else {
          dr = sr[i] - r; db = sb[i] - b; d += dr * dr + db * db;
          if (d < best) { best = d; bi = i; }
          i++;
        }
      }
      if (j >= 0) {
        dg = sg[j] - g; d = dg * dg;
        if (d >= best) j = -1;
        else {
          dr = sr[j] - r; db = sb[j] - b; d += dr * dr + db * db;
          if (d < best) { best = d; bi = j; }
          j--;
        }
      }
    }
    return this.idx[bi];
  };

  /* ---------- palette ---------- */

  function boxStats(c, order, start, end) {
    var w = 0, s0 = 0, s1 = 0, s2 = 0, q0 = 0, q1 = 0, q2 = 0;
    for (var i = start; i < end; i++) {
      var o = order[i], cw = c.w[o], r = c.r[o], g = c.g[o], b = c.b[o];
      w += cw; s0 += cw * r; s1 += cw * g; s2 += cw * b;
      q0 += cw * r * r; q1 += cw * g * g; q2 += cw * b * b;
    }
    var e0 = q0 - s0 * s0 / w, e1 = q1 - s1 * s1 / w, e2 = q2 - s2 * s2 / w;
    return {start: start, end: end, w: w, s: [s0, s1, s2], e: [e0, e1, e2],
      sse: e0 + e1 + e2};
  }

  // Split the box along its axis of largest variance at the cut that minimises the total
  // squared error of the two halves (counting sort of the box's colours by that channel).
  function splitBox(c, order, tmp, box) {
    var axis = box.e[0] >= box.e[1] ? (box.e[0] >= box.e[2] ? 0 : 2) : (box.e[1] >= box.e[2] ? 1 : 2);
    var ch = axis === 0 ? c.r : axis === 1 ? c.g : c.b;
    var cnt = new Int32Array(257), bw = new Float64Array(256);
    var b0 = new Float64Array(256), b1 = new Float64Array(256), b2 = new Float64Array(256);
    var i, o, v;
    for (i = box.start; i < box.end; i++) {
      o = order[i]; v = ch[o];
      cnt[v + 1]++;
      var cw = c.w[o];
      bw[v] += cw; b0[v] += cw * c.r[o]; b1[v] += cw * c.g[o]; b2[v] += cw * c.b[o];
    }
    for (v = 0; v < 256; v++) cnt[v + 1] += cnt[v];
    for (i = box.start; i < box.end; i++) {
      o = order[i];
      tmp[box.start + cnt[ch[o]]++] = o;
    }
    for (i = box.start; i < box.end; i++) order[i] = tmp[i];
    var lw = 0, l0 = 0, l1 = 0, l2 = 0, best = -1, cut = -1;
    for (v = 0; v < 255; v++) {
      if (bw[v] === 0) continue;
      lw += bw[v]; l0 += b0[v]; l1 += b1[v]; l2 += b2[v];
      var rw = box.w - lw;
      if (rw <= 0) break;
      var r0 = box.s[0] - l0, r1 = box.s[1] - l1, r2 = box.s[2] - l2;
      var score = (l0 * l0 + l1 * l1 + l2 * l2) / lw + (r0 * r0 + r1 * r1 + r2 * r2) / rw;
      if (score > best) { best = score; cut = v; }
    }
    // after the scatter cnt[v] is the end of bucket v (relative to the box's start)
    var mid = cut >= 0 ? box.start + cnt[cut] : (box.start + box.end) >> 1;
    return [boxStats(c, order, box.start, mid), boxStats(c, order, mid, box.end)];
  }

  // A palette of at most k colours for the counted colours `c`: {r, g, b, n}.
  function makePalette(c, k) {
    var pr = new Uint8Array(k), pg = new Uint8Array(k), pb = new Uint8Array(k), i;
    if (c.n <= k) {
      for (i = 0; i < c.n; i++) { pr[i] = c.r[i]; pg[i] = c.g[i]; pb[i] = c.b[i]; }
      return {r: pr, g: pg, b: pb, n: c.n};
    }
    // exact entries for colours covering >= 1/1024 of the samples (at most k / 4 of them)
    var total = 0;
    for (i = 0; i < c.n; i++) total += c.w[i];
    var big = [];
    for (i = 0; i < c.n; i++) if (c.w[i] * 1024 >= total) big.push(i);
    big.sort(function (a, b) { return c.w[b] - c.w[a]; });
    big.length = Math.min(big.length, k >> 2);
    var fixed = new Uint8Array(c.n), nFixed = big.length;
    for (i = 0; i < nFixed; i++) {
      var o = big[i];
      fixed[o] = 1; pr[i] = c.r[o]; pg[i] = c.g[o]; pb[i] = c.b[o];
    }
    // median cut of the other colours
    var order = new Int32Array(c.n - nFixed), tmp = new Int32Array(c.n - nFixed), m = 0;
    for (i = 0; i < c.n; i++) if (!fixed[i]) order[m++] = i;
    var boxes = [boxStats(c, order, 0, m)];
    while (boxes.length < k - nFixed) {
      var bi = -1, be = 0;
      for (i = 0; i < boxes.length; i++) {
        var bx0 = boxes[i];
        if (bx0.end - bx0.start > 1 && bx0.sse > be) { be = bx0.sse; bi = i; }
      }
      if (bi < 0) break;
      var halves = splitBox(c, order, tmp, boxes[bi]);
      boxes[bi] = halves[0];
      boxes.push(halves[1]);
    }
    var n = nFixed + boxes.length;
    for (i = 0; i < boxes.length; i++) {
      var bx = boxes[i];
      pr[nFixed + i] = Math.round(bx.s[0] / bx.w);
      pg[nFixed + i] = Math.round(bx.s[1] / bx.w);
      pb[nFixed + i] = Math.round(bx.s[2] / bx.w);
    }
    // Lloyd passes: every counted colour to its nearest entry, free entries to their means
    var sw = new Float64Array(n), s0 = new Float64Array(n), s1 = new Float64Array(n);
    var s2 = new Float64Array(n);
    for (var pass = 0; pass < LLOYD_PASSES; pass++) {
      var search = new Search(pr, pg, pb, n);
      sw.fill(0); s0.fill(0); s1.fill(0); s2.fill(0);
      for (i = 0; i < c.n; i++) {
        var r = c.r[i], g = c.g[i], b = c.b[i], w = c.w[i];
        var e = search.nearest(r, g, b);
        sw[e] += w; s0[e] += w * r; s1[e] += w * g; s2[e] += w * b;
      }
      for (i = nFixed; i < n; i++) {
        if (sw[i] === 0) continue;
        pr[i] = Math.round(s0[i] / sw[i]);
        pg[i] = Math.round(s1[i] / sw[i]);
        pb[i] = Math.round(s2[i] / sw[i]);
      }
    }
    return {r: pr, g: pg, b: pb, n: n};
  }

  /* ---------- LZW ---------- */

  var DICT = null;   // child code of (prefix << 8 | index), 0 = none
  var USED = null;   // the DICT slots set since the last clear

  // LZW-compress `n` palette indices into 255-byte sub-blocks (and the 0 terminator).
  function lzw(ix, n, minSize, out) {
    if (DICT === null) { DICT = new Uint16Array(4096 << 8); USED = new Int32Array(4096); }
    var dict = DICT, used = USED, nUsed = 0;
    var clear = 1 << minSize, eoi = clear + 1, next = eoi + 1, width = minSize + 1;
    out.ensure(1 + 2 * n + ((2 * n) / 255 | 0) + 16);
    var buf = out.buf, pos = out.pos;
    buf[pos++] = minSize;
    var lenPos = pos++, blk = 0, acc = 0, nb = 0;

    // the clear code
    acc |= clear << nb; nb += width;
    while (nb >= 8) {
      buf[pos++] = acc & 255; acc >>>= 8; nb -= 8;
      if (++blk === 255) { buf[lenPos] = 255; lenPos = pos++; blk = 0; }
    }
    var prefix = ix[0];
    for (var i = 1; i < n; i++) {
      var k = ix[i], key = (prefix << 8) | k, code = dict[key];
      if (code !== 0) { prefix = code; continue; }
      acc |= prefix << nb; nb += width;
      while (nb >= 8) {
        buf[pos++] = acc & 255; acc >>>= 8; nb -= 8;
        if (++blk === 255) { buf[lenPos] = 255; lenPos = pos++; blk = 0; }
      }
      if (next < 4096) {
        dict[key] = next++;
        used[nUsed++] = key;
        if (next > (1 << width) && width < 12) width++;
      } else {
        acc |= clear << nb; nb += width;
        while (nb >= 8) {
          buf[pos++] = acc & 255; acc >>>= 8; nb -= 8;
          if (++blk === 255) { buf[lenPos] = 255; lenPos = pos++; blk = 0; }
        }
        for (var u = 0; u < nUsed; u++) dict[used[u]] = 0;
        nUsed = 0;
        next = eoi + 1;
        width = minSize + 1;
      }
      prefix = k;
    }
    acc |= prefix << nb; nb += width;
    while (nb >= 8) {
      buf[pos++] = acc & 255; acc >>>= 8; nb -= 8;
      if (++blk === 255) { buf[lenPos] = 255; lenPos = pos++; blk = 0; }
    }
    // the decoder adds an entry on reading that last code: the end code may be a bit wider
    if (next >= (1 << width) && width < 12) width++;
    acc |= eoi << nb; nb += width;
    while (nb > 0) {
      buf[pos++] = acc & 255; acc >>>= 8; nb -= 8;
      if (++blk === 255) { buf[lenPos] = 255; lenPos = pos++; blk = 0; }
    }
    buf[lenPos] = blk;          // the last sub-block's length, or the terminator if empty
    if (blk > 0) buf[pos++] = 0;
    out.pos = pos;
    for (u = 0; u < nUsed; u++) dict[used[u]] = 0;
  }

  /* ---------- encoder ---------- */

  // The bounding rectangle of the pixels that differ, [x, y, w, h], or null.
  function changedRect(px, prev, width, height) {
    var x0 = width, x1 = -1, y0 = -1, y1 = -1;
    for (var y = 0; y < height; y++) {
      var row = y * width, x = 0;
      while (x < width && px[row + x] === prev[row + x]) x++;
      if (x === width) continue;
      if (y0 < 0) y0 = y;
      y1 = y;
      if (x < x0) x0 = x;
      var xe = width - 1;
      while (xe > x1 && px[row + xe] === prev[row + xe]) xe--;
      if (xe > x1) x1 = xe;
    }
    return y0 < 0 ? null : [x0, y0, x1 - x0 + 1, y1 - y0 + 1];
  }

  function encode(frames, options) {
    options = options || {};
    if (!frames || !frames.length) throw new Error("LandingGif.encode: no frames");
    var width = frames[0].width, height = frames[0].height, n = width * height;
    if (!(width > 0 && height > 0 && width < 65536 && height < 65536)) {
      throw new Error("LandingGif.encode: bad frame size " + width + "x" + height);
    }
    for (var f = 0; f < frames.length; f++) {
      var fr = frames[f];
      if (fr.width !== width || fr.height !== height || !fr.data || fr.data.length !== 4 * n) {
        throw new Error("LandingGif.encode: frame " + f + " is not " + width + "x" + height + " RGBA");
      }
    }
    var bg = options.background || [255, 255, 255];
    var delay = options.delayCs === undefined ? 4 : options.delayCs;
    var loop = options.loop === undefined ? 0 : options.loop;
    var animated = frames.length > 1;
    var maxColours = animated ? 255 : 256;   // one index kept for "unchanged" pixels

    // palette: exact if the frames hold few colours, else quantised from a subsample
    var t0 = now(), total = n * frames.length;
    var step = Math.max(1, Math.floor(total / SAMPLE_TARGET));
    var counts = countColours(frames, n, bg, step, Infinity);
    if (step > 1 && counts.n <= maxColours) {
      counts = countColours(frames, n, bg, 1, maxColours) || counts;
    }
    var pal = makePalette(counts, maxColours);
    var tPalette = now();
    var nEntries = pal.n + (animated ? 1 : 0), bits = 1;
    while ((1 << bits) < nEntries) bits++;
    var trans = pal.n;
    var minSize = Math.max(2, bits);
    var search = new Search(pal.r, pal.g, pal.b, pal.n);
    var lut = new Uint8Array(1 << 24), seen = new Int32Array(1 << 19);
    var amp = options.dither === undefined ? 8 : +options.dither || 0, dither = amp > 0;
    var exact = new Int32Array(1 << 19), BAYER = new Int32Array(16);
    for (var bi = 0; bi < 16; bi++) BAYER[bi] = Math.round(((BAYER4[bi] + 0.5) / 16 - 0.5) * amp);
    function lookUp(key) {
      var r = key & 255, g = (key >>> 8) & 255, b = key >>> 16;
      var e = search.nearest(r, g, b);
      lut[key] = e;
      seen[key >>> 5] |= 1 << (key & 31);
      if (pal.r[e] === r && pal.g[e] === g && pal.b[e] === b) exact[key >>> 5] |= 1 << (key & 31);
      return e;
    }

    var out = new Writer(1 << 20);
    out.ascii("GIF89a");
    out.u16(width); out.u16(height);
    out.byte(0x80 | ((bits - 1) << 4) | (bits - 1));  // global table, its size
    out.byte(0); out.byte(0);                         // background index, aspect
    out.ensure(3 << bits);
    for (var e = 0; e < (1 << bits); e++) {
      out.byte(e < pal.n ? pal.r[e] : 0);
      out.byte(e < pal.n ? pal.g[e] : 0);
      out.byte(e < pal.n ? pal.b[e] : 0);
    }
    if (animated && loop !== null && loop !== false && loop >= 0) {
      out.byte(0x21); out.byte(0xFF); out.byte(11); out.ascii("NETSCAPE2.0");
      out.byte(3); out.byte(1); out.u16(Math.min(65535, Math.round(loop))); out.byte(0);
    }

    var ix = new Uint8Array(n), prev = null;
    for (f = 0; f < frames.length; f++) {
      var px = pixelsOf(frames[f], n, bg);
      var rect = prev === null ? [0, 0, width, height] : changedRect(px, prev, width, height);
      var count;
      if (rect === null) {
        rect = [0, 0, 1, 1];
        ix[0] = trans;
        count = 1;
      } else {
        var x0 = rect[0], y0 = rect[1], rw = rect[2], rh = rect[3], o = 0;
        var lastKey = -1, lastIdx = 0;
        for (var y = y0; y < y0 + rh; y++) {
          var row = y * width + x0, end = row + rw;
          for (var p = row; p < end; p++) {
            var v = px[p];
            if (prev !== null && v === prev[p]) { ix[o++] = trans; continue; }
            var key = v & 0xFFFFFF;
            if (key !== lastKey) {
              lastKey = key;
              if (seen[key >>> 5] & (1 << (key & 31))) lastIdx = lut[key];
              else lastIdx = lookUp(key);
            }
            if (dither && !(exact[key >>> 5] & (1 << (key & 31)))) {
              // ordered dither (4x4 Bayer) of colours the palette does not hold exactly
              var bias = BAYER[((y & 3) << 2) | ((p - row + x0) & 3)];
              var dr = (key & 255) + bias, dg = ((key >>> 8) & 255) + bias;
              var db = (key >>> 16) + bias;
              dr = dr < 0 ? 0 : dr > 255 ? 255 : dr;
              dg = dg < 0 ? 0 : dg > 255 ? 255 : dg;
              db = db < 0 ? 0 : db > 255 ? 255 : db;
              var dk = dr | (dg << 8) | (db << 16);
              ix[o++] = seen[dk >>> 5] & (1 << (dk & 31)) ? lut[dk] : lookUp(dk);
              continue;
            }
            ix[o++] = lastIdx;
          }
        }
        count = o;
      }
      var d = Array.isArray(delay) ? delay[Math.min(f, delay.length - 1)] : delay;
      d = Math.max(0, Math.min(65535, Math.round(+d || 0)));
      // graphic control extension: disposal 1 (leave in place), transparency after frame 0
      out.byte(0x21); out.byte(0xF9); out.byte(4);
      out.byte((1 << 2) | (prev !== null ? 1 : 0));
      out.u16(d);
      out.byte(prev !== null ? trans : 0);
      out.byte(0);
      // image descriptor, no local table, not interlaced
      out.byte(0x2C);
      out.u16(rect[0]); out.u16(rect[1]); out.u16(rect[2]); out.u16(rect[3]);
      out.byte(0);
      lzw(ix, count, minSize, out);
      prev = px;
    }
    out.byte(0x3B);
    if (options.stats) {
      options.stats.colours = pal.n;
      options.stats.distinct = counts.n;
      options.stats.paletteMs = tPalette - t0;
      options.stats.framesMs = now() - tPalette;
    }
    return out.buf.slice(0, out.pos);
  }

  root.LandingGif = {encode: encode};
})(typeof window !== "undefined" ? window : typeof self !== "undefined" ? self : this);
