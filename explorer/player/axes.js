/* Landing Explorer's player: formatting, colours, and the 2-D charts' axes, ticks, series,
 * markers and legends (window.Landing; loaded first, see index.html). */
(function (L) {
  "use strict";

  // ------------------------------------------------------------------ formatting

  // what Python's figures share with the player (constants.js, read by explorer/style.py too)
  const { palette: PALETTE, superscripts, subscripts } = window.LANDING_CONSTANTS;
  const sup = (n) => String(n).split("").map((c) => superscripts[c] || c).join("");
  const sub = (n) => String(n).split("").map((c) => subscripts[c]).join("");

  function num(v, digits) {
    if (v === null || v === undefined || !isFinite(v)) return "—";
    return Number(v).toPrecision(digits).replace(/(\.\d*?)0+(e|$)/, "$1$2").replace(/\.(e|$)/, "$1");
  }
  function sci(v) {
    if (v === null || v === undefined || !isFinite(v)) return "—";
    return Number(v).toExponential(3);
  }

  // ------------------------------------------------------------------ colours

  function parseColour(c) {
    if (c[0] === "#") {
      return [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
    }
    return c.replace(/[^\d,.]/g, "").split(",").slice(0, 3).map(Number);
  }
  function makeScale(stops) {
    const ts = stops.map((s) => s[0]);
    const cs = stops.map((s) => parseColour(s[1]));
    return function (t) {
      t = Math.min(1, Math.max(0, t));
      let i = 1;
      while (i < ts.length - 1 && ts[i] < t) i++;
      const u = (t - ts[i - 1]) / (ts[i] - ts[i - 1] || 1);
      return [0, 1, 2].map((j) => cs[i - 1][j] + u * (cs[i][j] - cs[i - 1][j]));
    };
  }
  const rgb = (c, a) => (a === undefined ? `rgb(${c[0] | 0},${c[1] | 0},${c[2] | 0})`
    : `rgba(${c[0] | 0},${c[1] | 0},${c[2] | 0},${a})`);

  // ------------------------------------------------------------------ axes

  function niceStep(span, count) {
    const raw = span / Math.max(1, count);
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / mag;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
  }
  // least: the smallest step (1 on an axis of iterations, which has no k = 0.5)
  function linearTicks(lo, hi, count, least = 0) {
    const step = Math.max(niceStep(hi - lo, count), least);
    const ticks = [];
    for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + 1e-9 * step; v += step) {
      ticks.push({ v, label: fmtTick(Math.abs(v) < 1e-12 * step ? 0 : v, step) });
    }
    return ticks;
  }
  function fmtTick(v, step) {
    if (v === 0) return "0";
    const a = Math.abs(v);
    if (a >= 1e5 || a < 1e-3) return v.toExponential(Math.max(0, -Math.floor(Math.log10(step)) + Math.floor(Math.log10(a))));
    const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    return v.toFixed(decimals).replace("-", "−");
  }
  // log10 range [lo, hi]: powers of ten (at most about six); over one to two decades 1-2-5
  // times the powers of ten; narrower, a few labelled values (as figures._decade_ticks)
  function logTicks(lo, hi, most) {
    const span = hi - lo;
    const ticks = [];
    if (span >= 2) {
      const step = Math.max(1, Math.ceil(span / Math.max(1, Math.min(5, (most || 6) - 1))));
      for (let e = Math.ceil(lo); e <= Math.floor(hi); e += step) ticks.push({ v: e, label: "10" + sup(e) });
      // a short panel over many decades (most = 2: one step spans the range) still gets the
      // decade at its top, so that a reader sees how far the curve falls, not one label alone
      const top = Math.floor(hi);
      if (ticks.length < 2 && top > Math.ceil(lo)) ticks.push({ v: top, label: "10" + sup(top) });
      return ticks;
    }
    for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) {
      for (const m of span >= 1 ? [1, 2, 5] : [1, 2, 3, 5]) {
        const v = Math.log10(m) + e;
        if (v >= lo - 1e-9 && v <= hi + 1e-9) ticks.push({ v, m, label: (m === 1 ? "" : m + "×") + "10" + sup(e) });
      }
    }
    if (most && ticks.length > most) {
      // more than the panel's height holds (six labels touched in a 60-pixel step panel):
      // the powers of ten where there are two, else every other label or fewer
      const decades = ticks.filter((t) => t.m === 1);
      if (decades.length >= 2) return decades;
      const stride = Math.ceil(ticks.length / most);
      return ticks.filter((_, i) => i % stride === 0);
    }
    if (ticks.length < 2) {
      // the range's ends too, all labels in one notation: decimals from 0.001 to 10⁴
      // (narrower than m×10ᵉ), else m×10ᵉ. An end closer to a tick than the panel's height
      // holds (span / most: 1.7 lines) is left out where two labels remain without it: its
      // label would touch the tick's
      const room = most ? span / most : 0;
      const ends = [lo, hi].filter((t) => !ticks.some((k) => Math.abs(k.v - t) < 1e-9));  // not on a decade
      const clear = ends.filter((t) => !ticks.some((k) => Math.abs(k.v - t) < room));
      for (const t of ticks.length + clear.length >= 2 ? clear : ends) ticks.push({ v: t });
      const decimal = lo >= -3 && hi < 4;
      for (const k of ticks) {
        let e = Math.floor(k.v), m = num(Math.pow(10, k.v - e), 3);
        if (m === "10") { e += 1; m = "1"; }  // 9.996 rounded up
        k.label = decimal ? num(Math.pow(10, k.v), 3) : (m === "1" ? "" : m + "×") + "10" + sup(e);
      }
      ticks.sort((a, b) => a.v - b.v);
    }
    return ticks;
  }

  // a 2-D chart: rectangle in CSS pixels, ranges; y on a log axis stores log10 values
  function makeChart(rect, xlo, xhi, ylo, yhi, ylog) {
    const c = { rect, xlo, xhi, ylo, yhi, ylog };
    c.X = (v) => rect.x + ((v - xlo) / (xhi - xlo || 1)) * rect.w;
    c.Y = (v) => rect.y + rect.h - (((ylog ? Math.log10(v) : v) - ylo) / (yhi - ylo || 1)) * rect.h;
    return c;
  }

  // a panel's title in the width it has (panels side by side are narrow): moved left into the
  // tick labels' margin by up to ``slack``, then a smaller font down to three quarters of the
  // labels', then the end cut with an ellipsis; where it was drawn is kept on the chart (the
  // browser tests read it)
  function fitTitle(ctx, title, font, room, slack) {
    ctx.font = `600 ${font}px sans-serif`;
    const width = ctx.measureText(title).width;
    const shift = (w) => Math.min(slack, Math.max(0, w - room));
    if (width <= room + slack) return { text: title, font, w: width, shift: shift(width) };
    const size = Math.max(Math.ceil(0.75 * font), Math.floor((font * (room + slack)) / width));
    ctx.font = `600 ${size}px sans-serif`;
    let text = title, w = ctx.measureText(text).width;
    while (w > room + slack && text.length > 1) {
      text = text.slice(0, -2) + "…";
      w = ctx.measureText(text).width;
    }
    return { text, font: size, w, shift: shift(w) };
  }

  function drawAxes(ctx, chart, opts) {
    const { rect } = chart;
    const font = opts.font;
    ctx.save();
    ctx.fillStyle = "#fff";
    ctx.fillRect(rect.x, rect.y, rect.w, rect.h);
    ctx.font = `${font}px sans-serif`;
    ctx.fillStyle = "#333";
    ctx.strokeStyle = "#e3e3e3";
    ctx.lineWidth = 1;
    const most = Math.max(2, Math.floor(rect.h / (1.7 * font)));  // labels never touch
    const yt = chart.ylog ? logTicks(chart.ylo, chart.yhi, most) : linearTicks(chart.ylo, chart.yhi, Math.min(4, most));
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    chart.yticks = [];  // what the y axis says, and where (the browser tests read it)
    // where the view labels the axis itself (opts.ylabelled: heights in pixels): a tick within
    // a line of one keeps its grid line and leaves the place to that label
    const own = opts.ylabelled || [];
    for (const t of yt) {
      const y = rect.y + rect.h - ((t.v - chart.ylo) / (chart.yhi - chart.ylo || 1)) * rect.h;
      ctx.beginPath(); ctx.moveTo(rect.x, y); ctx.lineTo(rect.x + rect.w, y); ctx.stroke();
      if (own.some((o) => Math.abs(o - y) < 1.1 * font)) continue;
      const right = rect.x - (opts.ygap ?? 4);
      ctx.fillText(t.label, right, y);
      chart.yticks.push({ label: t.label, y, right, left: right - ctx.measureText(t.label).width });
    }
    if (opts.xticks !== false) {
      const xt = linearTicks(chart.xlo, chart.xhi, Math.max(2, Math.floor(rect.w / (font * 5))), opts.xint ? 1 : 0);
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      for (const t of xt) {
        const x = chart.X(t.v);
        ctx.beginPath(); ctx.moveTo(x, rect.y); ctx.lineTo(x, rect.y + rect.h); ctx.stroke();
        // a label at the right end (x max = the iteration limit, a round number) ends at
        // the frame's edge instead of running off the canvas
        const half = ctx.measureText(t.label).width / 2;
        if (opts.xlabels !== false) ctx.fillText(t.label, Math.min(x, rect.x + rect.w - half), rect.y + rect.h + 3);
      }
    }
    ctx.strokeStyle = "#888";
    ctx.strokeRect(rect.x + 0.5, rect.y + 0.5, rect.w - 1, rect.h - 1);
    if (opts.title) {
      ctx.textAlign = "left";
      ctx.textBaseline = "bottom";
      ctx.fillStyle = "#111";
      const t = fitTitle(ctx, opts.title, font, opts.titleRoom || Infinity, opts.titleSlack || 0);
      t.x = rect.x - t.shift;
      ctx.font = `600 ${t.font}px sans-serif`;
      ctx.fillText(t.text, t.x, rect.y - 4);
      chart.title = t;
    }
    if (opts.xtitle) {
      ctx.textAlign = "right";
      ctx.textBaseline = "top";
      ctx.font = `${font}px sans-serif`;
      ctx.fillStyle = "#333";
      ctx.fillText(opts.xtitle, rect.x + rect.w, rect.y + rect.h + font + 6);
    }
    ctx.restore();
  }

  // ys[0..upto] (upto may be fractional: the last segment is drawn part way) with at most two
  // points per pixel column (the minimum and maximum of each bucket), gaps at non-finite values;
  // at x = i, or at x = style.xs[i] (a race against the time)
  function drawSeries(ctx, chart, ys, upto, style) {
    const xs = style.xs;
    const last = Math.min(Math.floor(upto), ys.length - 1);
    if (last < 0) return style.from || 0;
    const ok = (y) => y !== null && isFinite(y) && (!chart.ylog || y > 0);
    const bucket = Math.max(1, Math.floor((last + 1) / (2 * chart.rect.w)));
    ctx.save();
    ctx.beginPath();
    ctx.rect(chart.rect.x, chart.rect.y, chart.rect.w, chart.rect.h);
    ctx.clip();
    ctx.strokeStyle = style.colour;
    ctx.lineWidth = style.width;
    ctx.setLineDash(style.dash || []);
    ctx.lineJoin = "round";
    ctx.lineCap = style.cap || "butt";
    ctx.beginPath();
    let pen = false;
    // vertices at least a pixel apart (L1): a converging series' tail is flat, and the
    // stroker pays for every vertex
    let px = -Infinity, py = -Infinity, put_at = style.from || 0;
    const put = (i, y) => {
      const x = chart.X(xs ? xAt(xs, i) : i), yy = chart.Y(y);
      if (!pen) { ctx.moveTo(x, yy); pen = true; } else if (Math.abs(x - px) + Math.abs(yy - py) >= 1) ctx.lineTo(x, yy); else return;
      px = x; py = yy;
      if (Number.isInteger(i)) put_at = i;  // not the head's point between two iterates
    };
    for (let i = style.from || 0; i <= last; i += bucket) {  // from: a race's trail (race.js)
      const end = Math.min(last, i + bucket - 1);
      let lo = null, hi = null, ilo = i, ihi = i;
      for (let j = i; j <= end; j++) {
        const y = ys[j];
        if (!ok(y)) { pen = false; continue; }
        if (lo === null || y < lo) { lo = y; ilo = j; }
        if (hi === null || y > hi) { hi = y; ihi = j; }
      }
      if (lo === null) { pen = false; continue; }
      if (ilo <= ihi) { put(ilo, lo); if (ihi !== ilo) put(ihi, hi); } else { put(ihi, hi); put(ilo, lo); }
    }
    const frac = upto - last;
    if (frac > 0 && last + 1 < ys.length && ok(ys[last]) && ok(ys[last + 1]) && pen) {
      const a = chart.ylog ? Math.log10(ys[last]) : ys[last];
      const b = chart.ylog ? Math.log10(ys[last + 1]) : ys[last + 1];
      const v = a + frac * (b - a);
      put(last + frac, chart.ylog ? Math.pow(10, v) : v);
    }
    ctx.stroke();
    ctx.restore();
    return put_at;  // the last vertex drawn (a race's trail goes on from it)
  }

  // xs at a fractional index i, between its neighbours
  function xAt(xs, i) {
    const k = Math.floor(i), f = i - k;
    return f > 0 && k + 1 < xs.length ? xs[k] + f * (xs[k + 1] - xs[k]) : xs[k];
  }

  function dot(ctx, x, y, r, fill, stroke) {
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    if (fill) { ctx.fillStyle = fill; ctx.fill(); }
    if (stroke) { ctx.strokeStyle = stroke; ctx.lineWidth = 1.5; ctx.stroke(); }
  }
  // fill null: the outline alone (``width`` wide)
  function diamond(ctx, x, y, r, fill, width = 1.5) {
    ctx.beginPath();
    ctx.moveTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.lineTo(x - r, y);
    ctx.closePath();
    if (fill !== null) { ctx.fillStyle = fill; ctx.fill(); }
    ctx.strokeStyle = "#000"; ctx.lineWidth = width; ctx.stroke();
  }
  // a value of 0 on a log axis: a triangle pointing down, its tip on the plot's floor at x,
  // and "= 0" to its left: the triangle alone would read as a value near the floor
  function floorMark(ctx, x, floor, r, fill, font) {
    ctx.beginPath();
    ctx.moveTo(x, floor); ctx.lineTo(x + r, floor - 1.7 * r); ctx.lineTo(x - r, floor - 1.7 * r);
    ctx.closePath();
    ctx.fillStyle = fill; ctx.fill();
    ctx.strokeStyle = "#000"; ctx.lineWidth = 1.5; ctx.stroke();
    ctx.save();
    ctx.font = `bold ${font}px sans-serif`; ctx.fillStyle = "#000";
    ctx.textAlign = "right"; ctx.textBaseline = "bottom";
    const w = ctx.measureText("= 0").width;  // on white: the curve runs into the floor here
    ctx.fillStyle = "rgba(255,255,255,0.85)";
    ctx.fillRect(x - r - 5 - w, floor - font - 3, w + 4, font + 2);
    ctx.fillStyle = "#000";
    ctx.fillText("= 0", x - r - 3, floor - 2);
    ctx.restore();
  }
  function arrowHead(ctx, x0, y0, x1, y1, size, colour) {
    const a = Math.atan2(y1 - y0, x1 - x0);
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - size * Math.cos(a - 0.4), y1 - size * Math.sin(a - 0.4));
    ctx.lineTo(x1 - size * Math.cos(a + 0.4), y1 - size * Math.sin(a + 0.4));
    ctx.closePath();
    ctx.fillStyle = colour;
    ctx.fill();
  }
  // the rows a legend takes (as legend() wraps it)
  function legendRows(ctx, items, font, maxWidth) {
    ctx.save();
    ctx.font = `${font}px sans-serif`;
    let cx = 0, rows = 1;
    for (const it of items) {
      const w = 26 + ctx.measureText(it.label).width + 14;
      if (cx + w > maxWidth && cx > 0) { cx = 0; rows++; }
      cx += w;
    }
    ctx.restore();
    return rows;
  }
  function legend(ctx, items, x, y, font, maxWidth) {
    ctx.save();
    ctx.font = `${font}px sans-serif`;
    ctx.textBaseline = "middle";
    let cx = x, cy = y;
    for (const it of items) {
      const w = 26 + ctx.measureText(it.label).width + 14;
      if (cx + w > x + maxWidth && cx > x) { cx = x; cy += font + 6; }
      if (it.marker === "diamond") {  // as markEnds draws X_k, and the Gram view I
        diamond(ctx, cx + 10, cy, 6, it.colour);
      } else if (it.marker) {
        dot(ctx, cx + 10, cy, 5, it.colour, "#000");
      } else {
        ctx.strokeStyle = it.colour;
        ctx.lineWidth = it.width || 3;
        ctx.setLineDash(it.dash || []);
        ctx.beginPath(); ctx.moveTo(cx, cy); ctx.lineTo(cx + 20, cy); ctx.stroke();
        ctx.setLineDash([]);
      }
      ctx.fillStyle = "#222";
      ctx.fillText(it.label, cx + 26, cy);
      cx += w;
    }
    ctx.restore();
    return cy + font;
  }

  // whether the segment (x0, y0)-(x1, y1) meets the box {x, y, w, h} (Liang-Barsky clipping)
  function meets(x0, y0, x1, y1, b) {
    const dx = x1 - x0, dy = y1 - y0;
    let t0 = 0, t1 = 1;
    for (const [p, q] of [[-dx, x0 - b.x], [dx, b.x + b.w - x0], [-dy, y0 - b.y], [dy, b.y + b.h - y0]]) {
      if (p === 0) {
        if (q < 0) return false;  // parallel to this edge and outside it
      } else if (p < 0) {
        t0 = Math.max(t0, q / p);
      } else {
        t1 = Math.min(t1, q / p);
      }
      if (t0 > t1) return false;
    }
    return true;
  }

  // how much of a chart's curves a box (canvas pixels) would hide: the segments between
  // consecutive drawable points (y over k = 0, 1, ..., or over s.xs) that meet it, and the
  // lone points inside it, over every series in full
  function hidden(chart, series, box) {
    const ok = (y) => y !== null && isFinite(y) && (!chart.ylog || y > 0);
    let count = 0;
    for (const s of series) {
      let px = null, py = null;
      for (let i = 0; i < s.ys.length; i++) {
        if (!ok(s.ys[i])) { px = null; continue; }
        const x = chart.X(s.xs ? s.xs[i] : i), y = chart.Y(s.ys[i]);
        if (meets(px === null ? x : px, px === null ? y : py, x, y, box)) count++;
        px = x; py = y;
      }
    }
    return count;
  }

  // the box w x h inside the chart's plot area (pad from its frame) that hides the fewest of
  // the curves (``hidden``; ``margin``: the lines' half width), among the four corners: top
  // right, top left, bottom right, bottom left, the first of equals
  function emptiestCorner(chart, series, w, h, pad, margin) {
    const r = chart.rect;
    const corners = [[r.x + r.w - w - pad, r.y + pad], [r.x + pad, r.y + pad],
      [r.x + r.w - w - pad, r.y + r.h - h - pad], [r.x + pad, r.y + r.h - h - pad]];
    let best = null;
    for (const [x, y] of corners) {
      const n = hidden(chart, series, { x: x - margin, y: y - margin, w: w + 2 * margin, h: h + 2 * margin });
      if (best === null || n < best.hidden) best = { x, y, w, h, hidden: n };
    }
    return best;
  }

  // drawAxes' ygap where a value's dot (radius P.marker - 1, dot()) sits on the y axis: its
  // labels end clear of it
  const dotGap = (P) => P.marker + 1;

  Object.assign(L, { dotGap, PALETTE, sub, num, sci, parseColour, makeScale, rgb, linearTicks, logTicks, makeChart, drawAxes, drawSeries, dot, diamond, floorMark, arrowHead, legendRows, legend, hidden, emptiestCorner });
})(window.Landing = window.Landing || {});
