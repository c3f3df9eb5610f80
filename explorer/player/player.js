/* Landing Explorer's player: plays a computed landing run in the browser.
 *
 * The server computes the run (or streams it in chunks) and hands over the whole trajectory once;
 * every animation frame is drawn here on <canvas>, so Run, Pause, Step, Reset, the replay slider
 * and the keys (Space, →, ←, Home) never wait for the server. Canvas rather than plotly.js: in
 * headless Chromium plotly re-rendered a three-panel convergence figure 36 times a second and a
 * 3-D scene 18 times a second (benchmarks/RESULTS.md); a canvas redraw of both takes a few ms.
 *
 * Two modes: inside Streamlit (a components.v1 iframe: the "streamlit:" messages below), or
 * standalone, in an exported HTML file that sets window.LANDING_DATA before this script.
 */
(function () {
  "use strict";

  // ------------------------------------------------------------------ formatting

  const SUP = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };
  const sup = (n) => String(n).split("").map((c) => SUP[c] || c).join("");
  const SUB = "₀₁₂₃₄₅₆₇₈₉";
  const sub = (n) => String(n).split("").map((c) => SUB[+c]).join("");

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
  function linearTicks(lo, hi, count) {
    const step = niceStep(hi - lo, count);
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
      return ticks;
    }
    for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) {
      for (const m of span >= 1 ? [1, 2, 5] : [1, 2, 3, 5]) {
        const v = Math.log10(m) + e;
        if (v >= lo - 1e-9 && v <= hi + 1e-9) ticks.push({ v, label: (m === 1 ? "" : m + "×") + "10" + sup(e) });
      }
    }
    if (ticks.length < 2) {
      for (const t of [lo, hi]) {
        const val = Math.pow(10, t);
        ticks.push({ v: t, label: val.toPrecision(3) });
      }
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
    for (const t of yt) {
      const y = rect.y + rect.h - ((t.v - chart.ylo) / (chart.yhi - chart.ylo || 1)) * rect.h;
      ctx.beginPath(); ctx.moveTo(rect.x, y); ctx.lineTo(rect.x + rect.w, y); ctx.stroke();
      ctx.fillText(t.label, rect.x - 4, y);
    }
    if (opts.xticks !== false) {
      const xt = linearTicks(chart.xlo, chart.xhi, Math.max(2, Math.floor(rect.w / (font * 5))));
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      for (const t of xt) {
        const x = chart.X(t.v);
        ctx.beginPath(); ctx.moveTo(x, rect.y); ctx.lineTo(x, rect.y + rect.h); ctx.stroke();
        if (opts.xlabels !== false) ctx.fillText(t.label, x, rect.y + rect.h + 3);
      }
    }
    ctx.strokeStyle = "#888";
    ctx.strokeRect(rect.x + 0.5, rect.y + 0.5, rect.w - 1, rect.h - 1);
    if (opts.title) {
      ctx.textAlign = "left";
      ctx.textBaseline = "bottom";
      ctx.fillStyle = "#111";
      ctx.font = `600 ${font}px sans-serif`;
      ctx.fillText(opts.title, rect.x, rect.y - 4);
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
  // points per pixel column (the minimum and maximum of each bucket), gaps at non-finite values
  function drawSeries(ctx, chart, ys, upto, style) {
    const last = Math.min(Math.floor(upto), ys.length - 1);
    if (last < 0) return;
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
    ctx.beginPath();
    let pen = false;
    const put = (i, y) => {
      const x = chart.X(i), yy = chart.Y(y);
      if (pen) ctx.lineTo(x, yy); else { ctx.moveTo(x, yy); pen = true; }
    };
    for (let i = 0; i <= last; i += bucket) {
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
  }

  function dot(ctx, x, y, r, fill, stroke) {
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    if (fill) { ctx.fillStyle = fill; ctx.fill(); }
    if (stroke) { ctx.strokeStyle = stroke; ctx.lineWidth = 1.5; ctx.stroke(); }
  }
  function diamond(ctx, x, y, r, fill) {
    ctx.beginPath();
    ctx.moveTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.lineTo(x - r, y);
    ctx.closePath();
    ctx.fillStyle = fill; ctx.fill();
    ctx.strokeStyle = "#000"; ctx.lineWidth = 1.5; ctx.stroke();
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
      if (it.marker) {
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

  // ------------------------------------------------------------------ 3-D (orthographic)

  function camera(theta, phi) {
    const ct = Math.cos(theta), st = Math.sin(theta), cp = Math.cos(phi), sp = Math.sin(phi);
    return {
      theta, phi,
      d: [cp * ct, cp * st, sp],          // towards the viewer
      r: [-st, ct, 0],                    // screen right
      u: [-sp * ct, -sp * st, cp],        // screen up
    };
  }
  // aim the camera at a direction (the path's), a little from above
  function cameraAt(v) {
    const n = Math.hypot(v[0], v[1], v[2]);
    if (!(n > 1e-9)) return camera(Math.PI / 4, 0.35);
    const phi = Math.max(-1.0, Math.min(1.0, Math.asin(v[2] / n) + 0.25));
    return camera(Math.atan2(v[1], v[0]), phi);
  }
  const dot3 = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

  // ------------------------------------------------------------------ views
  //
  // Each view draws its static part (cached per size and camera) and its moving part at a
  // fractional iteration kf; geometry data come per iterate from the run (run.x, run.sigma,
  // run.gram), static data from the server (view.*).

  function lerpRow(rows, kf) {
    const k = Math.min(Math.floor(kf), rows.length - 1);
    const f = kf - k;
    if (f <= 0 || k + 1 >= rows.length) return rows[k];
    return rows[k].map((v, i) => v + f * (rows[k + 1][i] - v));
  }

  const VIEWS = {};
  const FLOW = "#222";  // the exact normal flow overlaid on the singular-value and cone views

  VIEWS.plane = {
    three: false,
    background(ctx, box, run, P) {
      const v = run.view, R = v.R;
      const s = Math.min(box.w - 2 * P.pad - 40, box.h - 2 * P.pad) / (2 * R);
      const cx = box.x + P.pad + 8 + s * R, cy = box.y + box.h / 2;
      const chart = { X: (x) => cx + s * x, Y: (y) => cy - s * y, s, cx, cy };
      // the cost as an image (bilinear smoothing by drawImage), the scale beside it
      const m = v.m, img = new ImageData(m, m);
      const scale = P.scale;
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < m; j++) {
          const z = v.z[i * m + j];
          const c = scale((z - v.zlo) / (v.zhi - v.zlo || 1));
          const o = ((m - 1 - i) * m + j) * 4;
          img.data[o] = c[0]; img.data[o + 1] = c[1]; img.data[o + 2] = c[2]; img.data[o + 3] = 215;
        }
      }
      const tmp = document.createElement("canvas");
      tmp.width = tmp.height = m;
      tmp.getContext("2d").putImageData(img, 0, 0);
      ctx.save();
      ctx.fillStyle = "#fff";
      ctx.fillRect(box.x, box.y, box.w, box.h);
      ctx.imageSmoothingEnabled = true;
      ctx.drawImage(tmp, chart.X(-R), chart.Y(R), 2 * R * s, 2 * R * s);
      ctx.strokeStyle = "#777";
      ctx.strokeRect(chart.X(-R), chart.Y(R), 2 * R * s, 2 * R * s);
      colourBar(ctx, chart.X(R) + 10, chart.Y(R), 12, 2 * R * s, scale, v.zlo, v.zhi, "f", P.font);
      // ticks
      ctx.font = `${P.font}px sans-serif`;
      ctx.fillStyle = "#333";
      for (const t of linearTicks(-R, R, 4)) {
        ctx.textAlign = "center"; ctx.textBaseline = "top";
        ctx.fillText(t.label, chart.X(t.v), chart.Y(-R) + 3);
        ctx.textAlign = "right"; ctx.textBaseline = "middle";
        ctx.fillText(t.label, chart.X(-R) - 4, chart.Y(t.v));
      }
      // the landing field -V
      ctx.strokeStyle = "rgba(40,40,40,0.75)";
      ctx.fillStyle = "rgba(40,40,40,0.75)";
      ctx.lineWidth = 1.2;
      for (const a of v.arrows) {
        const x0 = chart.X(a[0]), y0 = chart.Y(a[1]), x1 = chart.X(a[0] + a[2]), y1 = chart.Y(a[1] + a[3]);
        ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
        arrowHead(ctx, x0, y0, x1, y1, 5, "rgba(40,40,40,0.75)");
      }
      // St(2, 1): the unit circle; XᵀBX = 1: the ellipse W u, |u| = 1
      ctx.strokeStyle = "#000"; ctx.lineWidth = P.thick;
      planeLayer(ctx, chart, v, 1);
      ctx.stroke();
      ctx.restore();
      return chart;
    },
    moving(ctx, chart, run, kf, P) {
      const X = run.x, n = X.length;
      if (!n) return;
      const cur = lerpRow(X, kf);
      // the layer through X_k: the circle ||x|| = ||x_k||, or the ellipse xᵀBx = x_kᵀBx_k
      ctx.save();
      layerStroke(ctx, P, () => planeLayer(ctx, chart, run.view, level(run.view, cur)));
      path2d(ctx, X, kf, (p) => [chart.X(p[0]), chart.Y(p[1])], P.palette[1], P.thick, P);
      markEnds(ctx, [chart.X(X[0][0]), chart.Y(X[0][1])], [chart.X(cur[0]), chart.Y(cur[1])], P);
      ctx.restore();
    },
    legend: (P, run) => [
      { label: run && run.view.B ? "xᵀBx = 1" : "St(2, 1): ‖x‖ = 1", colour: "#000" },
      { label: run && run.view.B ? "layer xᵀBx = xₖᵀBxₖ" : "layer ‖x‖ = ‖xₖ‖", colour: P.palette[5], dash: LAYER_DASH, width: 2 },
      { label: "trajectory", colour: P.palette[1] },
      ...endsLegend(P),
      { label: "field −V", colour: "#444", width: 1.5 },
    ],
  };

  // the constraint's matrix B (view.B, view.W with Wᵀ B W = I; none for XᵀX = I): the level
  // sqrt(xᵀBx) of x, and the path of the layer {xᵀBx = r²} = {r W u : |u| = 1} in the plane
  function level(v, x) {
    if (!v.B) return Math.hypot(...x);
    let q = 0;
    for (let i = 0; i < x.length; i++) for (let j = 0; j < x.length; j++) q += x[i] * v.B[i][j] * x[j];
    return Math.sqrt(Math.max(q, 0));
  }
  function planeLayer(ctx, chart, v, r) {
    if (!v.W) { circle(ctx, chart.cx, chart.cy, r * chart.s); return; }
    for (let i = 0; i <= 96; i++) {
      if (i === 0) ctx.beginPath();
      const a = (2 * Math.PI * i) / 96, u = [r * Math.cos(a), r * Math.sin(a)];
      const x = [v.W[0][0] * u[0] + v.W[0][1] * u[1], v.W[1][0] * u[0] + v.W[1][1] * u[1]];
      if (i === 0) ctx.moveTo(chart.X(x[0]), chart.Y(x[1])); else ctx.lineTo(chart.X(x[0]), chart.Y(x[1]));
    }
  }
  // the outline of the ellipsoid {xᵀBx = r²} under the projector: the ellipse
  // {y : yᵀ S⁻¹ y = r²}, S = Pr B⁻¹ Prᵀ (Pr: the screen's two camera axes), drawn as r Lₛ u
  function ellipsoidOutline(ctx, pr, v, r) {
    const Binv = [0, 1, 2].map((i) => [0, 1, 2].map((j) => v.W[i][0] * v.W[j][0] + v.W[i][1] * v.W[j][1] + v.W[i][2] * v.W[j][2]));
    const quad = (a, b) => { let q = 0; for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) q += a[i] * Binv[i][j] * b[j]; return q; };
    const s11 = quad(pr.cam.r, pr.cam.r), s12 = quad(pr.cam.r, pr.cam.u), s22 = quad(pr.cam.u, pr.cam.u);
    const l11 = Math.sqrt(s11), l21 = s12 / l11, l22 = Math.sqrt(Math.max(s22 - l21 * l21, 0));
    ctx.beginPath();
    for (let i = 0; i <= 96; i++) {
      const a = (2 * Math.PI * i) / 96, c = r * Math.cos(a), d = r * Math.sin(a);
      const X = pr.cx + pr.s * l11 * c, Y = pr.cy - pr.s * (l21 * c + l22 * d);
      if (i === 0) ctx.moveTo(X, Y); else ctx.lineTo(X, Y);
    }
  }

  // the layer manifold through X_k, ||x|| = ||x_k||: a dashed circle (p = 1; in 3-D the layer
  // sphere's outline, its silhouette under the orthographic projection)
  const LAYER_DASH = [5, 4];
  function layerStroke(ctx, P, path) {
    ctx.setLineDash(LAYER_DASH);
    ctx.strokeStyle = P.palette[5]; ctx.lineWidth = P.thin + 0.5;
    path();
    ctx.stroke();
    ctx.setLineDash([]);
  }
  function circle(ctx, cx, cy, radius) {
    ctx.beginPath(); ctx.arc(cx, cy, radius, 0, 2 * Math.PI);
  }

  // X_0 (a dot) and X_k (a diamond), at screen points q0 and qk, and their legend entries
  function markEnds(ctx, q0, qk, P) {
    dot(ctx, q0[0], q0[1], P.marker, P.palette[2], "#000");
    diamond(ctx, qk[0], qk[1], P.marker + 2, P.palette[3]);
  }
  const endsLegend = (P) => [
    { label: "X₀", colour: P.palette[2], marker: true },
    { label: "Xₖ", colour: P.palette[3], marker: true },
  ];

  function path2d(ctx, X, kf, at, colour, width, P) {
    const last = Math.min(Math.floor(kf), X.length - 1);
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.lineJoin = "round";
    ctx.beginPath();
    for (let i = 0; i <= last; i++) {
      const q = at(X[i]);
      if (i === 0) ctx.moveTo(q[0], q[1]); else ctx.lineTo(q[0], q[1]);
    }
    const q = at(lerpRow(X, kf));
    ctx.lineTo(q[0], q[1]);
    ctx.stroke();
    if (last < 400) {
      ctx.fillStyle = colour;
      for (let i = 0; i <= last; i++) {
        const p = at(X[i]);
        ctx.fillRect(p[0] - P.thin, p[1] - P.thin, 2 * P.thin, 2 * P.thin);
      }
    }
  }

  function colourBar(ctx, x, y, w, h, scale, lo, hi, title, font) {
    for (let i = 0; i < h; i++) {
      ctx.fillStyle = rgb(scale(1 - i / h));
      ctx.fillRect(x, y + i, w, 1.5);
    }
    ctx.strokeStyle = "#777"; ctx.strokeRect(x, y, w, h);
    ctx.fillStyle = "#333";
    ctx.font = `${font - 2}px sans-serif`;
    ctx.textAlign = "left"; ctx.textBaseline = "middle";
    ctx.fillText(num(hi, 3), x + w + 3, y + 6);
    ctx.fillText(num(lo, 3), x + w + 3, y + h - 6);
    ctx.fillText(title, x + w + 3, y + h / 2);
  }

  // 3-D helpers: a projector for a box, the unit sphere's wire, axes
  function projector(box, R, cam, P) {
    const s = (Math.min(box.w, box.h) - 2 * P.pad) / (2 * R);
    const cx = box.x + box.w / 2, cy = box.y + box.h / 2;
    return {
      s, cx, cy, cam,
      at: (p) => [cx + s * dot3(p, cam.r), cy - s * dot3(p, cam.u), dot3(p, cam.d)],
    };
  }
  function wireRings(radius) {
    const rings = [], t = [];
    for (let i = 0; i <= 72; i++) t.push((2 * Math.PI * i) / 72);
    for (let m = 0; m < 6; m++) {
      const lon = (Math.PI * m) / 6;
      rings.push(t.map((a) => [radius * Math.cos(lon) * Math.sin(a), radius * Math.sin(lon) * Math.sin(a), radius * Math.cos(a)]));
    }
    for (let l = 1; l <= 5; l++) {
      const lat = -Math.PI / 2 + (Math.PI * l) / 6;
      rings.push(t.map((a) => [radius * Math.cos(lat) * Math.cos(a), radius * Math.cos(lat) * Math.sin(a), radius * Math.sin(lat)]));
    }
    return rings;
  }
  // a 3-D polyline, its far part (depth < 0 relative to the origin) faint
  function line3(ctx, pr, pts, colour, width, faint) {
    ctx.lineWidth = width;
    ctx.lineJoin = "round";
    let prev = null;
    for (const p of pts) {
      const q = pr.at(p);
      if (prev) {
        ctx.strokeStyle = faint && (prev[2] + q[2]) < 0 ? faint : colour;
        ctx.beginPath(); ctx.moveTo(prev[0], prev[1]); ctx.lineTo(q[0], q[1]); ctx.stroke();
      }
      prev = q;
    }
  }
  function axes3(ctx, pr, ends, labels, P) {
    ctx.save();
    ctx.font = `${P.font}px sans-serif`;
    ctx.fillStyle = "#333";
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    for (let i = 0; i < 3; i++) {
      const [a, b] = ends[i];
      const qa = pr.at(a), qb = pr.at(b);
      ctx.strokeStyle = "#999"; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(qa[0], qa[1]); ctx.lineTo(qb[0], qb[1]); ctx.stroke();
      arrowHead(ctx, qa[0], qa[1], qb[0], qb[1], 7, "#999");
      const dx = qb[0] - qa[0], dy = qb[1] - qa[1], L = Math.hypot(dx, dy) || 1;
      ctx.fillText(labels[i], qb[0] + (12 * dx) / L, qb[1] + (12 * dy) / L);
    }
    ctx.restore();
  }

  VIEWS.sphere = {
    three: true,
    initialCamera: (run) => aimAtPath(run.x.map((r) => r.slice(0, 3))),
    background(ctx, box, run, P, cam) {
      const v = run.view, pr = projector(box, v.R, cam, P);
      ctx.save();
      ctx.fillStyle = "#fff"; ctx.fillRect(box.x, box.y, box.w, box.h);
      const R = v.R;
      axes3(ctx, pr, [[[-R, 0, 0], [R, 0, 0]], [[0, -R, 0], [0, R, 0]], [[0, 0, -R], [0, 0, R]]], ["x₁", "x₂", "x₃"], P);
      // the unit sphere coloured by f: the quads that face the viewer, slightly shaded
      // on XᵀBX = I the ellipsoid W u (|u| = 1), whose normal at W u is along L u
      const nlat = v.nlat, nlon = v.nlon;
      const mat = (M, u) => (M ? M.map((row) => dot3(row, u)) : u);
      const unit = (i, j) => {
        const lat = -Math.PI / 2 + (Math.PI * i) / nlat, lon = (2 * Math.PI * j) / nlon;
        return [Math.cos(lat) * Math.cos(lon), Math.cos(lat) * Math.sin(lon), Math.sin(lat)];
      };
      const vert = (i, j) => mat(v.W, unit(i, j));
      for (let i = 0; i < nlat; i++) {
        for (let j = 0; j < nlon; j++) {
          const nrm = mat(v.L, unit(i + 0.5, j + 0.5));
          const facing = dot3(nrm, cam.d) / Math.hypot(...nrm);
          if (facing <= 0) continue;
          const z = v.z[i * nlon + j];
          const col = P.scale((z - v.zlo) / (v.zhi - v.zlo || 1));
          const shade = 0.72 + 0.28 * facing;
          ctx.fillStyle = rgb(col.map((x) => x * shade), 0.88);
          ctx.beginPath();
          for (const [a, b] of [[i, j], [i, j + 1], [i + 1, j + 1], [i + 1, j]]) {
            const q = pr.at(vert(a, b));
            if (a === i && b === j) ctx.moveTo(q[0], q[1]); else ctx.lineTo(q[0], q[1]);
          }
          ctx.closePath();
          ctx.fill();
          ctx.strokeStyle = ctx.fillStyle; ctx.lineWidth = 0.6; ctx.stroke();
        }
      }
      ctx.strokeStyle = "#000"; ctx.lineWidth = P.thick - 1;
      if (v.W) ellipsoidOutline(ctx, pr, v, 1); else circle(ctx, pr.cx, pr.cy, pr.s);
      ctx.stroke();
      colourBar(ctx, box.x + box.w - 56, box.y + box.h * 0.2, 12, box.h * 0.6, P.scale, v.zlo, v.zhi, "f", P.font);
      ctx.restore();
      return pr;
    },
    moving(ctx, pr, run, kf, P) {
      const X = run.x;
      if (!X.length) return;
      const cur = lerpRow(X, kf);
      const v = run.view, r = level(v, cur);
      ctx.save();
      // the layer sphere's (or ellipsoid's) outline
      layerStroke(ctx, P, () => (v.W ? ellipsoidOutline(ctx, pr, v, r) : circle(ctx, pr.cx, pr.cy, r * pr.s)));
      // the path just outside the surface it lies on, so the surface never hides it; its far
      // half faint
      const lift = (p) => { const m = level(v, p) || 1, f = Math.max(1, 1.02 / m); return [p[0] * f, p[1] * f, p[2] * f]; };
      const last = Math.min(Math.floor(kf), X.length - 1);
      const pts = X.slice(0, last + 1).map(lift);
      pts.push(lift(cur));
      line3(ctx, pr, pts, P.palette[1], P.thick, "rgba(213,94,0,0.28)");
      markEnds(ctx, pr.at(lift(X[0])), pr.at(lift(cur)), P);
      ctx.restore();
    },
    legend: (P, run) => [
      { label: run && run.view.B ? "xᵀBx = 1 coloured by f" : "St(3, 1) coloured by f", colour: "#000" },
      { label: run && run.view.B ? "layer xᵀBx = xₖᵀBxₖ (outline)" : "layer ‖x‖ = ‖xₖ‖ (outline)", colour: P.palette[5], dash: LAYER_DASH, width: 2 },
      { label: "trajectory (far side faint)", colour: P.palette[1] },
      ...endsLegend(P),
    ],
  };

  function aimAtPath(pts) {
    if (!pts.length) return camera(Math.PI / 4, 0.35);
    const a = pts[0], b = pts[pts.length - 1];
    const na = Math.hypot(...a) || 1, nb = Math.hypot(...b) || 1;
    const m = [0, 1, 2].map((i) => a[i] / na + 2 * b[i] / nb);
    return cameraAt(m);
  }

  VIEWS.frame = {
    three: true,
    initialCamera: (run) => {
      const last = run.x[run.x.length - 1] || [1, 0, 0, 0, 1, 0];
      const first = run.x[0] || last;
      // X is stored row-major (3 x 2): column j is entries j, 2 + j, 4 + j
      const col = (r, j) => [r[j], r[2 + j], r[4 + j]];
      return aimAtPath([col(first, 0), col(first, 1), col(last, 0), col(last, 1)].reduce(
        (acc, c) => [acc[0], [acc[1][0] + c[0], acc[1][1] + c[1], acc[1][2] + c[2]]], [[0, 0, 0], [0, 0, 0]]).slice(1));
    },
    background(ctx, box, run, P, cam) {
      const v = run.view, pr = projector(box, v.R, cam, P);
      ctx.save();
      ctx.fillStyle = "#fff"; ctx.fillRect(box.x, box.y, box.w, box.h);
      const R = v.R;
      axes3(ctx, pr, [[[-R, 0, 0], [R, 0, 0]], [[0, -R, 0], [0, R, 0]], [[0, 0, -R], [0, 0, R]]], ["x₁", "x₂", "x₃"], P);
      // the unit sphere, or on XᵀBX = I the ellipsoid xᵀBx = 1: its image W u, |u| = 1
      const onto = (x) => (v.W ? v.W.map((row) => dot3(row, x)) : x);
      for (const ring of wireRings(1)) line3(ctx, pr, ring.map(onto), "#9a9a9a", 1.3, "#e2e2e2");
      ctx.strokeStyle = "#555"; ctx.lineWidth = 1.5;
      if (v.W) ellipsoidOutline(ctx, pr, v, 1); else { ctx.beginPath(); ctx.arc(pr.cx, pr.cy, pr.s, 0, 2 * Math.PI); }
      ctx.stroke();
      ctx.restore();
      return pr;
    },
    moving(ctx, pr, run, kf, P) {
      const X = run.x;
      if (!X.length) return;
      const cur = lerpRow(X, kf);
      const last = Math.min(Math.floor(kf), X.length - 1);
      ctx.save();
      for (let j = 0; j < 2; j++) {
        const colour = P.palette[j];
        const col = (r) => [r[j], r[2 + j], r[4 + j]];
        const tips = X.slice(0, last + 1).map(col);
        tips.push(col(cur));
        line3(ctx, pr, tips, colour, P.thick, j ? "rgba(213,94,0,0.3)" : "rgba(0,114,178,0.3)");
        const o = pr.at([0, 0, 0]), t = pr.at(col(cur)), s = pr.at(col(X[0]));
        ctx.strokeStyle = colour; ctx.lineWidth = P.thick + 2;
        ctx.beginPath(); ctx.moveTo(o[0], o[1]); ctx.lineTo(t[0], t[1]); ctx.stroke();
        arrowHead(ctx, o[0], o[1], t[0], t[1], 8 + 2 * P.thick, colour);
        dot(ctx, s[0], s[1], P.marker - 1, null, colour);
      }
      ctx.restore();
    },
    legend: (P, run) => [
      { label: "column 1 of Xₖ (and its path)", colour: P.palette[0] },
      { label: "column 2 of Xₖ (and its path)", colour: P.palette[1] },
      { label: run && run.view.B ? "ellipsoid xᵀBx = 1" : "unit sphere", colour: "#9a9a9a", width: 1.5 },
    ],
  };

  VIEWS.cone = {
    three: true,
    initialCamera: () => camera(-0.3, 0.3),  // across the cone's axis (1, 1, 0): its apex shows
    background(ctx, box, run, P, cam) {
      const v = run.view, top = v.top;
      const c = [top / 2, top / 2, 0];
      const pr0 = projector(box, top * 0.95, cam, P);
      const pr = { ...pr0, at: (p) => pr0.at([p[0] - c[0], p[1] - c[1], p[2] - c[2]]) };
      ctx.save();
      ctx.fillStyle = "#fff"; ctx.fillRect(box.x, box.y, box.w, box.h);
      axes3(ctx, pr, [[[0, 0, 0], [top, 0, 0]], [[0, 0, 0], [0, top, 0]], [[0, 0, -top / 2], [0, 0, top / 2]]], ["m₁₁", "m₂₂", "m₁₂"], P);
      // the boundary of SPD(2), det M = 0: M = λ v vᵀ, v = (cos s, sin s); rings at fixed λ
      // (= tr M), rays at fixed s
      const ring = (lam) => { const pts = []; for (let i = 0; i <= 72; i++) { const s = (Math.PI * i) / 72; pts.push([lam * Math.cos(s) ** 2, lam * Math.sin(s) ** 2, lam * Math.cos(s) * Math.sin(s)]); } return pts; };
      for (const f of [0.25, 0.5, 0.75, 1]) line3(ctx, pr, ring(f * top), "rgba(86,180,233,0.9)", 1.3);
      for (let i = 0; i < 12; i++) {
        const s = (Math.PI * i) / 12;
        line3(ctx, pr, [[0, 0, 0], [top * Math.cos(s) ** 2, top * Math.sin(s) ** 2, top * Math.cos(s) * Math.sin(s)]], "rgba(86,180,233,0.55)", 1);
      }
      const I = pr.at([1, 1, 0]);
      diamond(ctx, I[0], I[1], P.marker + 1, "#000");
      ctx.fillStyle = "#000"; ctx.font = `${P.font}px sans-serif`; ctx.textAlign = "left"; ctx.textBaseline = "bottom";
      ctx.fillText("I", I[0] + 8, I[1] - 4);
      ctx.restore();
      return pr;
    },
    moving(ctx, pr, run, kf, P) {
      const G = run.gram;
      if (!G.length) return;
      const last = Math.min(Math.floor(kf), G.length - 1);
      const pts = G.slice(0, last + 1);
      const cur = lerpRow(G, kf);
      pts.push(cur);
      ctx.save();
      line3(ctx, pr, pts, P.palette[1], P.thick);
      const F = run.flowGram;
      if (F && F.length) {  // the exact normal flow of X₀ᵀX₀ to the current time, over the path
        const fpts = F.slice(0, Math.min(last, F.length - 1) + 1);
        fpts.push(lerpRow(F, Math.min(kf, F.length - 1)));
        ctx.setLineDash([2, 4]);
        line3(ctx, pr, fpts, FLOW, 2);
        ctx.setLineDash([]);
      }
      markEnds(ctx, pr.at(G[0]), pr.at(cur), P);
      ctx.restore();
    },
    legend: (P) => [
      { label: "boundary m₁₁m₂₂ = m₁₂²", colour: "rgba(86,180,233,0.9)", width: 1.5 },
      { label: "XₖᵀXₖ = (m₁₁, m₂₂, m₁₂)", colour: P.palette[1] },
      { label: "exact normal flow (any f, β)", colour: FLOW, dash: [2, 4], width: 2 },
      { label: "X₀ᵀX₀", colour: P.palette[2], marker: true },
      { label: "I", colour: "#000", marker: true },
    ],
  };

  VIEWS.sigma = {
    three: false,
    background(ctx, box, run, P) {
      const S = run.sigma;
      let hi = 1.2;
      for (const row of S) for (const v of row) if (isFinite(v) && v * 1.05 > hi) hi = v * 1.05;
      const rect = { x: box.x + 8 * P.font * 0.5 + 20, y: box.y + P.font + 10, w: 0, h: 0 };
      rect.w = box.x + box.w - rect.x - 12;
      rect.h = box.y + box.h - rect.y - 2 * P.font - 16;
      const chart = makeChart(rect, 0, run.xmax, 0, hi, false);
      ctx.fillStyle = "#fff"; ctx.fillRect(box.x, box.y, box.w, box.h);
      drawAxes(ctx, chart, { font: P.font, title: "singular values σᵢ(Xₖ)", xtitle: "iteration k" });
      ctx.save();
      ctx.setLineDash([6, 5]); ctx.strokeStyle = "#000"; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(rect.x, chart.Y(1)); ctx.lineTo(rect.x + rect.w, chart.Y(1)); ctx.stroke();
      ctx.restore();
      return chart;
    },
    moving(ctx, chart, run, kf, P) {
      const S = run.sigma;
      if (!S.length) return;
      const p = S[0].length;
      for (let i = 0; i < p; i++) {
        const ys = run.sigmaCols ? run.sigmaCols[i] : S.map((r) => r[i]);
        drawSeries(ctx, chart, ys, kf, { colour: P.palette[i % P.palette.length], width: p > 8 ? 1.5 : P.thin + 1 });
      }
      // the exact normal flow σᵢ(t), t = Σ ηⱼωⱼ/ω: the same for every cost and β
      for (const ys of run.flowCols || []) drawSeries(ctx, chart, ys, kf, { colour: FLOW, width: 2, dash: [2, 4] });
      cursor(ctx, chart, kf);
    },
    legend: (P, run) => {
      const p = run.sigma.length ? run.sigma[0].length : 0;
      const items = [];
      for (let i = 0; i < Math.min(p, 8); i++) items.push({ label: "σ" + sub(i + 1), colour: P.palette[i % P.palette.length] });
      items.push({ label: "St(n, p): all σᵢ = 1", colour: "#000", dash: [6, 5], width: 2 });
      if (run.flowCols && run.flowCols.length) items.push({ label: "exact normal flow (any f, β)", colour: FLOW, dash: [2, 4], width: 2 });
      return items;
    },
  };

  function cursor(ctx, chart, kf) {
    const x = chart.X(kf);
    ctx.save();
    ctx.strokeStyle = "rgba(0,0,0,0.8)";
    ctx.lineWidth = 2;
    ctx.setLineDash([5, 4]);
    ctx.beginPath(); ctx.moveTo(x, chart.rect.y); ctx.lineTo(x, chart.rect.y + chart.rect.h); ctx.stroke();
    ctx.restore();
  }

  // ------------------------------------------------------------------ convergence panels

  function logRange(arrays) {
    let lo = Infinity, hi = -Infinity;
    for (const ys of arrays) {
      for (const y of ys) {
        if (y !== null && isFinite(y) && y > 0) {
          const l = Math.log10(y);
          if (l < lo) lo = l;
          if (l > hi) hi = l;
        }
      }
    }
    if (!isFinite(lo)) return [-1, 1];
    if (hi - lo < 0.3) { const m = (hi + lo) / 2; lo = m - 0.15; hi = m + 0.15; }
    const pad = 0.04 * (hi - lo);
    return [lo - pad, hi + pad];
  }
  function linRange(ys) {
    let lo = Infinity, hi = -Infinity;
    for (const y of ys) if (y !== null && isFinite(y)) { lo = Math.min(lo, y); hi = Math.max(hi, y); }
    if (!isFinite(lo)) return [0, 1];
    if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) { lo -= 0.5; hi += 0.5; }
    const pad = 0.05 * (hi - lo);
    return [lo - pad, hi + pad];
  }

  function convergencePanels(run, P) {
    const gapLog = run.fStar !== null;
    return [
      {
        title: gapLog ? "|f(Xₖ) − f*|" : "f(Xₖ)",
        log: gapLog,
        series: [{ ys: gapLog ? run.gap : run.cost, colour: P.palette[0], label: gapLog ? "|f − f*|" : "f" }],
      },
      {
        title: run.B ? "‖XₖᵀBXₖ − I‖ and ‖grad₁ᴮ f‖" : "‖XₖᵀXₖ − I‖ and ‖grad₁ f‖",
        log: true,
        series: [
          { ys: run.h, colour: P.palette[1], label: run.B ? "‖XᵀBX − I‖" : "‖XᵀX − I‖" },
          { ys: run.grad, colour: P.palette[2], label: run.B ? "‖grad₁ᴮ f‖" : "‖grad₁ f‖", dash: [8, 5] },
        ],
      },
      {
        title: run.hasNormal ? "steps ηₖ and ηₖωₖ" : "step ηₖ",
        log: true,
        series: [{ ys: run.step, colour: P.palette[3], label: "ηₖ" }].concat(
          run.hasNormal ? [{ ys: run.nstep, colour: P.palette[4], label: "ηₖωₖ", dash: [2, 4] }] : []),
      },
    ];
  }

  // ------------------------------------------------------------------ the player

  const CSS = `
  .lp { font-family: "Source Sans Pro", "Source Sans 3", sans-serif; color: #111; font-size: var(--lp-font, 15px); }
  .lp * { box-sizing: border-box; }
  .lp-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 8px; }
  .lp button { font: inherit; padding: 4px 12px; border-radius: 8px; border: 1px solid #bbb; background: #fff; cursor: pointer; min-height: 34px; }
  .lp button:hover:not(:disabled) { border-color: #D55E00; color: #D55E00; }
  .lp button:focus-visible { outline: 3px solid #0072B2; outline-offset: 1px; }
  .lp button.lp-primary { background: #D55E00; border-color: #D55E00; color: #fff; }
  .lp button.lp-primary:hover:not(:disabled) { color: #fff; filter: brightness(1.08); }
  .lp button:disabled { opacity: 0.45; cursor: default; }
  .lp-slider { display: flex; align-items: center; gap: 8px; flex: 1 1 220px; min-width: 180px; }
  .lp-slider input { flex: 1; accent-color: #D55E00; }
  .lp-slider label { white-space: nowrap; }
  .lp-export { display: flex; gap: 6px; align-items: center; color: #555; font-size: 0.88em; }
  .lp-export button { min-height: 28px; padding: 2px 10px; }
  .lp-foot { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: 4px 16px; margin-top: 4px; }
  .lp-nums { display: flex; flex-wrap: wrap; gap: 2px 22px; margin: 6px 0 2px; font-variant-numeric: tabular-nums; }
  .lp-nums span { white-space: nowrap; }
  .lp-nums b { font-weight: 600; }
  .lp-status { margin: 2px 0 4px; padding: 3px 10px; border-radius: 6px; background: #eef4fb; }
  .lp-status.converged { background: #e7f6ec; } .lp-status.diverged { background: #fde8e8; } .lp-status.max_iter { background: #fff6dd; }
  .lp-panels { display: flex; gap: 10px; align-items: flex-start; }
  .lp-panels.stacked { flex-direction: column; }
  .lp-panels > div { position: relative; }
  .lp canvas { display: block; touch-action: none; }
  .lp-head { display: flex; align-items: center; gap: 10px; min-height: 30px; }
  .lp-tabs { display: flex; flex: none; }
  .lp-tabs button { min-height: 28px; padding: 2px 10px; border-radius: 0; margin-left: -1px; font-size: 0.9em; }
  .lp-tabs button:first-child { border-radius: 8px 0 0 8px; } .lp-tabs button:last-child { border-radius: 0 8px 8px 0; }
  .lp-tabs button.on { background: #eef4fb; border-color: #0072B2; color: #0072B2; position: relative; }
  .lp-title { font-weight: 600; margin: 0 0 2px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .lp-caption { color: #555; margin: 2px 0 0; font-size: 0.88em; }
  .lp-keys { color: #555; font-size: 0.88em; margin: 0; }
  .lp { position: relative; }
  .lp-toast { position: absolute; left: 50%; top: 96px; transform: translateX(-50%); background: rgba(20,20,20,0.88); color: #fff; padding: 10px 18px; border-radius: 10px; opacity: 0; pointer-events: none; transition: opacity 0.6s; white-space: nowrap; z-index: 2; }
  .lp-toast.on { opacity: 1; }
  .lp-toast kbd { border: 1px solid #aaa; border-radius: 4px; padding: 0 5px; font: inherit; }
  .lp-keys kbd { border: 1px solid #bbb; border-radius: 4px; padding: 0 4px; background: #f7f7f7; font: inherit; }
  `;

  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const c of children || []) e.appendChild(c);
    return e;
  }

  class Player {
    constructor(root, host) {
      this.host = host; // {request(have), height(px), standalone}
      this.run = null;
      this.kf = 0;
      this.playing = false;
      this.stats = { draws: { geometry: 0, convergence: 0 }, frames: 0 };
      this.cams = {};
      this.dirty = true;
      const style = el("style");
      style.textContent = CSS;
      document.head.appendChild(style);
      const b = (name, label, primary) => el("button", { type: "button", class: primary ? "lp-primary" : "", "aria-label": name, title: label, text: name });
      this.btn = { run: b("Run", "Run (Space)", true), pause: b("Pause", "Pause (Space)"), step: b("Step", "Step one iteration (→)"), reset: b("Reset", "Back to X₀ (Home)") };
      this.slider = el("input", { type: "range", min: "0", max: "0", value: "0", step: "1", "aria-label": "Replay: iteration k", id: "lp-k" });
      this.kLabel = el("label", { for: "lp-k", text: "k = 0" });
      this.btnHtml = el("button", { type: "button", title: "A self-contained HTML file that plays offline", text: "HTML" });
      this.btnGif = el("button", { type: "button", title: "An animated GIF (200 frames) for slides", text: "GIF" });
      this.nums = el("div", { class: "lp-nums", "aria-live": "off" });
      this.status = el("div", { class: "lp-status", role: "status" });
      this.geoTitle = el("p", { class: "lp-title" });
      this.geoCanvas = el("canvas", { "aria-label": "geometry view", role: "img" });
      this.geoCaption = el("p", { class: "lp-caption" });
      this.convCanvas = el("canvas", { "aria-label": "convergence panels", role: "img" });
      this.keys = el("p", { class: "lp-keys" });
      this.keys.innerHTML = "Keys: <kbd>Space</kbd> run / pause · <kbd>→</kbd> step · <kbd>←</kbd> step back · <kbd>Home</kbd> reset · drag a 3-D view to turn it";
      this.tabs = el("div", { class: "lp-tabs", role: "radiogroup", "aria-label": "Geometry view" });
      this.geoHead = el("div", { class: "lp-head" }, [this.tabs, this.geoTitle]);
      this.geoBox = el("div", { class: "lp-geo" }, [this.geoHead, this.geoCanvas, this.geoCaption]);
      this.convBox = el("div", { class: "lp-conv" }, [el("div", { class: "lp-head" }, [el("p", { class: "lp-title", text: "Convergence" })]), this.convCanvas]);
      this.panels = el("div", { class: "lp-panels" }, [this.geoBox, this.convBox]);
      this.toast = el("div", { class: "lp-toast", role: "note" });
      this.toast.innerHTML = "<kbd>Space</kbd> run / pause &nbsp; <kbd>→</kbd> step &nbsp; <kbd>←</kbd> back &nbsp; <kbd>Home</kbd> reset";
      this.rootEl = el("div", { class: "lp" }, [
        el("div", { class: "lp-bar" }, [this.btn.run, this.btn.pause, this.btn.step, this.btn.reset,
          el("div", { class: "lp-slider" }, [this.slider, this.kLabel])]),
        this.nums, this.status, this.panels,
        el("div", { class: "lp-foot" }, [this.keys, el("div", { class: "lp-export" }, [el("span", { text: "Save the animation:" }), this.btnHtml, this.btnGif])]),
        this.toast,
      ]);
      root.appendChild(this.rootEl);
      this.btn.run.onclick = () => this.play();
      this.btn.pause.onclick = () => this.pause();
      this.btn.step.onclick = () => this.step(1);
      this.btn.reset.onclick = () => this.reset();
      this.slider.oninput = () => { this.pause(true); this.seek(+this.slider.value); };
      this.btnHtml.onclick = () => this.exportHtml();
      this.btnGif.onclick = () => this.exportGif();
      if (!window.LandingGif) { this.btnGif.disabled = true; this.btnGif.title = "GIF export unavailable (gif.js missing)"; }
      this.bindKeys();
      this.bindDrag();
      window.addEventListener("resize", () => this.layout());
      this.loop = this.loop.bind(this);
      requestAnimationFrame(this.loop);
    }

    // ---- data

    receive(args) {
      const h = args.header;
      const fresh = !this.run || this.run.id !== args.run_id;
      if (fresh) {
        const P = h.palette;
        this.run = {
          id: args.run_id, n: h.n, p: h.p, fStar: h.f_star, maxIter: h.max_iter,
          cost: [], gap: [], h: [], grad: [], step: [], nstep: [], x: [], sigma: [], gram: [], fstar: [],
          flowSigma: [], flowGram: [],
          done: false, status: "running", message: "", view: null, hasNormal: false, xmax: h.max_iter,
        };
        this.kf = 0;
        this.playing = false;
        this.ended = false;
        this.P0 = { palette: P, scale: makeScale(h.colorscale) };
      }
      const run = this.run;
      run.rate = h.rate;
      run.lecture = !!h.lecture;
      run.B = !!h.B;  // the run keeps to XᵀBX = I (the labels of h say so)
      this.rootEl.style.setProperty("--lp-font", run.lecture ? "19px" : "15px");
      this.keys.style.display = run.lecture ? "none" : "";
      if (run.lecture) this.hintOnce();
      // the view: the player's own choice once made (a tab), else the page's (a link's view=)
      run.views = h.views;
      const keep = !fresh && run.view && h.views.some((v) => v.kind === run.view.kind);
      run.view = h.views.find((v) => v.kind === (keep ? run.view.kind : h.view)) || h.views[0];
      this.makeTabs();
      const have = run.cost.length;
      if (args.start > have) { this.host.request(have); return; }
      const skip = have - args.start;
      const take = (dst, src) => { if (src) for (let i = skip; i < src.length; i++) dst.push(src[i]); };
      take(run.cost, args.cost); take(run.h, args.h); take(run.grad, args.grad);
      take(run.step, args.step); take(run.nstep, args.nstep);
      take(run.x, args.x); take(run.sigma, args.sigma); take(run.gram, args.gram); take(run.fstar, args.fstar);
      take(run.flowSigma, args.flow_sigma); take(run.flowGram, args.flow_gram);
      for (let i = run.gap.length; i < run.cost.length; i++) run.gap.push(run.fStar === null ? null : Math.abs(run.cost[i] - this.fStarAt(i)));
      run.hasNormal = run.nstep.some((v) => v !== null && isFinite(v) && v > 0);
      if (run.sigma.length && run.p > 1) {
        run.sigmaCols = [];
        for (let i = 0; i < run.sigma[0].length; i++) run.sigmaCols.push(run.sigma.map((r) => r[i]));
      } else run.sigmaCols = null;
      run.flowCols = [];  // the exact normal flow's singular values, one column each
      if (run.flowSigma.length) for (let i = 0; i < run.flowSigma[0].length; i++) run.flowCols.push(run.flowSigma.map((r) => r[i]));
      run.done = !!args.done;
      run.status = args.status;
      run.message = args.message || "";
      run.xmax = run.done ? Math.max(1, run.cost.length - 1) : Math.max(run.maxIter, 1);
      // a paused player keeps its axes while chunks arrive: they rescale on the next control
      this.stale = !fresh && !this.playing && have > 0;
      if (!this.stale) { this.ranges(); this.background = null; }
      this.slider.max = String(Math.max(0, run.cost.length - 1));
      this.aim();
      if (!run.done) this.host.request(run.cost.length);
      if (fresh) this.layout();
      this.holding = this.stale;
      this.show();
      this.holding = false;
    }

    aim() {
      const run = this.run, key = run.view.kind + run.id;
      if (VIEWS[run.view.kind].three && !this.cams[key]) this.cams[key] = VIEWS[run.view.kind].initialCamera(run);
    }

    // one tab per view of this size (a radio group: arrows move between them)
    makeTabs() {
      const kinds = this.run.views.map((v) => v.kind).join();
      if (this.tabKinds !== kinds) {
        this.tabKinds = kinds;
        this.tabs.innerHTML = "";
        for (const v of this.run.views) {
          const b = el("button", { type: "button", role: "radio", "data-view": v.kind, text: v.label });
          b.onclick = () => this.choose(v.kind);
          this.tabs.appendChild(b);
        }
        this.tabs.style.display = this.run.views.length > 1 ? "" : "none";
      }
      for (const b of this.tabs.children) {
        const on = b.dataset.view === this.run.view.kind;
        b.setAttribute("aria-checked", String(on));
        b.classList.toggle("on", on);
      }
    }

    choose(kind) {
      const run = this.run;
      if (!run || run.view.kind === kind) return;
      run.view = run.views.find((v) => v.kind === kind);
      this.aim();
      this.makeTabs();
      this.background = null;
      this.show();
      this.host.request(run.cost.length, kind);  // the page keeps the choice (and the URL)
    }

    ranges() {
      const run = this.run, P = this.P();
      this.conv = convergencePanels(run, P).map((panel) => ({
        ...panel,
        range: panel.log ? logRange(panel.series.map((s) => s.ys)) : linRange(panel.series[0].ys),
      }));
    }

    get available() { return this.run ? this.run.cost.length - 1 : 0; }

    // the keys, once per browser tab, over the view (a lecture shows no footnotes)
    hintOnce() {
      let seen = false;
      try { seen = sessionStorage.getItem("landing-keys-hint") === "1"; sessionStorage.setItem("landing-keys-hint", "1"); } catch (err) { /* storage off */ }
      if (seen || this.toastShown) return;
      this.toastShown = true;
      this.toast.classList.add("on");
      setTimeout(() => this.toast.classList.remove("on"), 7000);
    }

    // ---- controls

    play() {
      if (!this.run) return;
      if (this.kf >= this.available && this.run.done) this.kf = 0;
      this.playing = true;
      this.ended = false;
      this.last = null;
      if (!this.run.rate) this.kf = this.available;
      this.show();
    }
    pause(silent) {
      if (!this.playing) return;
      this.playing = false;
      this.kf = Math.floor(this.kf);
      this.paused = !silent;
      this.show();
    }
    step(dk) {
      if (!this.run) return;
      this.playing = false;
      this.ended = false;
      this.kf = Math.max(0, Math.min(this.available, Math.floor(this.kf) + dk));
      this.paused = true;
      this.show();
    }
    reset() {
      this.playing = false;
      this.paused = false;
      this.ended = false;
      this.kf = 0;
      this.show();
    }
    seek(k) {
      this.kf = Math.max(0, Math.min(this.available, k));
      this.paused = true;
      this.show();
    }
    toggle() { if (this.playing) this.pause(); else this.play(); }

    bindKeys() {
      const handler = (e) => {
        if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
        const t = e.target;
        const mine = t && t.ownerDocument === document;
        if (t && t.closest && !mine && t.closest("input, textarea, select, button, [contenteditable], [role=slider], [role=textbox], [role=combobox], [role=spinbutton], [role=radio], [role=option]")) return;
        if (mine && t.tagName === "INPUT" && t !== this.slider) return;
        const act = { " ": () => this.toggle(), ArrowRight: () => this.step(1), ArrowLeft: () => this.step(-1), Home: () => this.reset() }[e.key];
        if (!act) return;
        e.preventDefault();
        act();
      };
      document.addEventListener("keydown", handler);
      // a presenter's clicker types into the page around the player: listen there too
      // (the component's iframe has the page's origin)
      try {
        const doc = window.parent && window.parent !== window ? window.parent.document : null;
        if (doc) {
          doc.addEventListener("keydown", handler);
          window.addEventListener("pagehide", () => doc.removeEventListener("keydown", handler));
        }
      } catch (err) { /* another origin: keys work while the player has the focus */ }
    }

    bindDrag() {
      let from = null;
      this.geoCanvas.addEventListener("pointerdown", (e) => {
        if (!this.run || !VIEWS[this.run.view.kind].three) return;
        from = [e.clientX, e.clientY];
        this.geoCanvas.setPointerCapture(e.pointerId);
      });
      this.geoCanvas.addEventListener("pointermove", (e) => {
        if (!from) return;
        const key = this.run.view.kind + this.run.id;
        const c = this.cams[key];
        this.cams[key] = camera(c.theta - (e.clientX - from[0]) * 0.01, Math.max(-1.5, Math.min(1.5, c.phi + (e.clientY - from[1]) * 0.01)));
        from = [e.clientX, e.clientY];
        this.background = null;
        this.dirty = true;
      });
      const end = () => { from = null; };
      this.geoCanvas.addEventListener("pointerup", end);
      this.geoCanvas.addEventListener("pointercancel", end);
    }

    // ---- layout and drawing

    P() {
      const lecture = this.run && this.run.lecture;
      return {
        palette: this.P0 ? this.P0.palette : [], scale: this.P0 ? this.P0.scale : (t) => [t * 255, t * 255, t * 255],
        font: lecture ? 17 : 13, thick: lecture ? 4.5 : 3, thin: lecture ? 2.5 : 1.5, marker: lecture ? 9 : 6, pad: 18,
      };
    }

    layout() {
      const width = Math.max(320, document.documentElement.clientWidth - 2);
      const side = width >= 520;
      this.panels.classList.toggle("stacked", !side);
      // the panels fill what is left of the window below the player's top, within bounds, so
      // the controls, the view and the curves share one screen (a projector's 720 rows)
      let room = 560;
      try {
        const frame = window.frameElement;
        if (frame) {
          const top = frame.getBoundingClientRect().top + (window.parent.scrollY || 0);
          this.placed = [top, window.parent.innerHeight];
          const above = this.panels.getBoundingClientRect().top + this.geoHead.offsetHeight;
          room = window.parent.innerHeight - top - above - 12;
        }
      } catch (err) { /* standalone or another origin */ }
      let gw, gh, cw, ch;
      if (side) {
        gh = ch = Math.round(Math.max(260, Math.min(room, 0.5 * width, 640)));
        gw = Math.round(Math.min(width * (width < 760 ? 0.5 : 0.46), gh * 1.25));
        cw = width - gw - 12;
      } else {
        gw = cw = width;
        gh = Math.round(Math.min(width, 460));
        ch = 300;
      }
      this.size = { gw, gh, cw, ch };
      this.fit(this.geoCanvas, gw, gh);
      this.fit(this.convCanvas, cw, ch);
      this.geoBox.style.width = gw + "px";
      this.convBox.style.width = cw + "px";
      this.background = null;
      this.convBack = null;
      this.dirty = true;
      this.drawNow();
      this.host.height(document.documentElement.scrollHeight);
    }

    fit(canvas, w, h) {
      const dpr = window.devicePixelRatio || 1;
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      canvas.style.width = w + "px";
      canvas.style.height = h + "px";
      canvas.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
    }

    // a control's effect is drawn at once, not at the next animation frame: after Pause the
    // canvases already hold X_k when the click returns
    show() {
      if (this.stale && !this.holding) { this.stale = false; this.ranges(); this.background = null; this.convBack = null; }
      this.updateText();
      if (!this.holding) this.drawNow();
    }

    updateText() {
      const run = this.run;
      if (!run) return;
      const k = Math.min(Math.floor(this.kf), this.available);
      this.slider.value = String(k);
      this.kLabel.textContent = `k = ${k}`;
      this.nums.innerHTML = "";
      const cell = (label, value, hint) => { const s = el("span"); s.innerHTML = `${label} <b>${value}</b>`; if (hint) s.title = hint; this.nums.appendChild(s); };
      cell("iteration k", String(k));
      cell("f(X<sub>k</sub>)", num(run.cost[k], 10));
      if (run.fStar !== null) cell("f − f*", sci(run.cost[k] - this.fStarAt(k)));
      cell(run.B ? "‖X<sub>k</sub><sup>T</sup>BX<sub>k</sub> − I‖<sub>F</sub>" : "‖X<sub>k</sub><sup>T</sup>X<sub>k</sub> − I‖<sub>F</sub>", sci(run.h[k]));
      // the stationarity of every method (geometry.stationarity; stationarity_B on XᵀBX = I),
      // as the Compare page names it
      cell(run.B ? "‖grad<sub>1</sub><sup>B</sup> f‖" : "‖grad<sub>1</sub> f‖", sci(run.grad[k]),
           "stationarity: the Riemannian gradient on the layer through Xₖ in the β = 1 metric" + (run.B ? " for B" : ""));
      if (k > 0) cell("η<sub>k−1</sub>", sci(run.step[k]));
      const end = run.done && k >= this.available;
      let text, cls = "";
      if (this.playing) {
        text = k >= this.available && !run.done ? `Running… k = ${k} (computing the next iterations)` : `Running… k = ${k}`;
      } else if (end && (this.ended || k > 0)) {
        text = run.message; cls = run.status;
      } else if (this.paused) {
        text = `Paused at k = ${k}: Run resumes, Step advances one iteration.`;
      } else if (k === 0) {
        text = "Ready: press Run to watch the iterations, or Step to take one." + (run.done ? " " + outcome(run) : "");
      } else {
        text = `At k = ${k}.`;
      }
      this.status.textContent = text;
      this.status.title = text;
      this.status.className = "lp-status " + cls;
      this.btn.pause.disabled = !this.playing;
      this.btn.step.disabled = run.done && k >= this.available;
      const v = run.view;
      // with tabs the title would be cut beside them: it leads the caption instead
      const tabs = run.views.length > 1;
      this.geoTitle.textContent = tabs ? "" : v.title || "";
      this.geoCaption.innerHTML = "";
      if (tabs) this.geoCaption.appendChild(el("b", { text: (v.title || "") + ". " }));
      this.geoCaption.appendChild(document.createTextNode(v.caption || ""));
    }

    loop(now) {
      if (this.playing && this.run) {
        const dt = this.last === null ? 0 : Math.min(0.1, (now - this.last) / 1000);
        this.last = now;
        const before = Math.floor(this.kf);
        if (this.run.rate) this.kf = Math.min(this.available, this.kf + this.run.rate * dt);
        else this.kf = this.available;
        if (this.kf >= this.available && this.run.done) {
          this.kf = this.available;
          this.playing = false;
          this.ended = true;
          this.paused = false;
        }
        this.dirty = true;
        if (Math.floor(this.kf) !== before || !this.playing) this.updateText();
      }
      if (this.dirty) this.drawNow();
      if (!this.checked || now - this.checked > 500) {  // the page above moved the player
        this.checked = now;
        try {
          const frame = window.frameElement;
          const top = frame ? frame.getBoundingClientRect().top + (window.parent.scrollY || 0) : 0;
          const tall = window.parent.innerHeight;
          if (this.placed && (Math.abs(top - this.placed[0]) > 4 || tall !== this.placed[1])) this.layout();
        } catch (err) { /* standalone */ }
      }
      requestAnimationFrame(this.loop);
    }

    drawNow() {
      this.dirty = false;
      if (!this.run || !this.size) return;
      this.drawGeometry(this.geoCanvas.getContext("2d"), { x: 0, y: 0, w: this.size.gw, h: this.size.gh }, true);
      this.drawConvergence(this.convCanvas.getContext("2d"), { x: 0, y: 0, w: this.size.cw, h: this.size.ch }, true);
      this.stats.frames++;
    }

    drawGeometry(ctx, box, cached) {
      const run = this.run, view = VIEWS[run.view.kind], P = this.P();
      if (!view) return;
      const cam = this.cams[run.view.kind + run.id];
      const legendItems = view.legend(P, run);
      const inner = { x: box.x, y: box.y, w: box.w, h: box.h - (P.font + 6) * legendRows(ctx, legendItems, P.font, box.w - 16) - 8 };
      if (cached) {
        if (!this.background) {
          const off = document.createElement("canvas");
          const dpr = window.devicePixelRatio || 1;
          off.width = Math.round(box.w * dpr); off.height = Math.round(box.h * dpr);
          const octx = off.getContext("2d");
          octx.setTransform(dpr, 0, 0, dpr, 0, 0);
          octx.fillStyle = "#fff"; octx.fillRect(0, 0, box.w, box.h);
          const frame = view.background(octx, inner, run, P, cam);
          legend(octx, legendItems, box.x + 8, inner.y + inner.h + P.font / 2 + 4, P.font, box.w - 16);
          this.background = { off, frame };
        }
        ctx.save();
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.drawImage(this.background.off, 0, 0);
        ctx.restore();
        view.moving(ctx, this.background.frame, run, this.kf, P);
      } else {
        ctx.fillStyle = "#fff"; ctx.fillRect(box.x, box.y, box.w, box.h);
        const frame = view.background(ctx, inner, run, P, cam);
        legend(ctx, legendItems, box.x + 8, inner.y + inner.h + P.font / 2 + 4, P.font, box.w - 16);
        view.moving(ctx, frame, run, this.kf, P);
      }
      this.stats.draws.geometry++;
    }

    convLayout(box, P) {
      const rowH = (box.h - 3 * P.font - 40) / 3;
      const vertical = rowH >= 4.5 * P.font || box.w / 3 < 13 * P.font;
      const left = 7 * P.font * 0.62 + 14;
      const charts = [];
      const n = this.conv.length;
      const top = P.font + 8, bottom = 2 * P.font + 12, gap = P.font + 12;
      for (let i = 0; i < n; i++) {
        let rect;
        if (vertical) {
          const h = (box.h - top - bottom - gap * (n - 1)) / n;
          rect = { x: box.x + left, y: box.y + top + i * (h + gap), w: box.w - left - 12, h };
        } else {
          const w = (box.w - n * left - 12) / n;
          rect = { x: box.x + left + i * (w + left), y: box.y + top, w, h: box.h - top - bottom - (P.font + 8) };
        }
        const panel = this.conv[i];
        charts.push(makeChart(rect, 0, this.run.xmax, panel.range[0], panel.range[1], panel.log));
      }
      return { vertical, charts };
    }

    drawConvergence(ctx, box, cached) {
      const P = this.P();
      const { vertical, charts } = this.convLayout(box, P);
      const paintBack = (c) => {
        c.fillStyle = "#fff"; c.fillRect(box.x, box.y, box.w, box.h);
        charts.forEach((chart, i) => {
          const panel = this.conv[i];
          const last = vertical ? i === charts.length - 1 : true;
          drawAxes(c, chart, { font: P.font, title: panel.title, xlabels: last, xtitle: last ? "iteration k" : null });
          const items = panel.series.map((s) => ({ label: s.label, colour: s.colour, dash: s.dash }));
          if (items.length > 1) {
            c.save();
            c.font = `${P.font}px sans-serif`;
            const w = items.reduce((a, it) => a + 40 + c.measureText(it.label).width, 0);
            const x = chart.rect.x + chart.rect.w - w - 4, y = chart.rect.y + 3;
            c.fillStyle = "rgba(255,255,255,0.85)";
            c.fillRect(x - 4, y, w + 6, P.font + 8);
            c.restore();
            legend(c, items, x, y + P.font / 2 + 4, P.font, w + 20);
          }
        });
      };
      if (cached) {
        if (!this.convBack || this.convBack.key !== this.rangeKey()) {
          const off = document.createElement("canvas");
          const dpr = window.devicePixelRatio || 1;
          off.width = Math.round(box.w * dpr); off.height = Math.round(box.h * dpr);
          const octx = off.getContext("2d");
          octx.setTransform(dpr, 0, 0, dpr, 0, 0);
          paintBack(octx);
          this.convBack = { off, key: this.rangeKey() };
        }
        ctx.save();
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.drawImage(this.convBack.off, 0, 0);
        ctx.restore();
      } else paintBack(ctx);
      charts.forEach((chart, i) => {
        for (const s of this.conv[i].series) drawSeries(ctx, chart, s.ys, this.kf, { colour: s.colour, width: P.thick, dash: s.dash });
        cursor(ctx, chart, this.kf);
        const k = Math.min(Math.floor(this.kf), this.available);
        for (const s of this.conv[i].series) {
          const y = s.ys[k];
          if (y !== null && isFinite(y) && (!chart.ylog || y > 0)) dot(ctx, chart.X(k), chart.Y(y), P.marker - 2, s.colour, "#000");
        }
      });
      this.stats.draws.convergence++;
    }

    rangeKey() {
      return JSON.stringify([this.conv.map((c) => c.range), this.run.xmax, this.size]);
    }

    // ---- exports

    payload() {
      // the whole run as one chunk, for the standalone file
      const r = this.run;
      return {
        run_id: r.id, start: 0, done: r.done, status: r.status, message: r.message,
        header: { n: r.n, p: r.p, f_star: r.fStar, max_iter: r.maxIter, rate: r.rate, lecture: r.lecture, palette: this.P0.palette, colorscale: this.headerScale, views: r.views, view: r.view.kind },
        cost: r.cost, h: r.h, grad: r.grad, step: r.step, nstep: r.nstep, x: r.x, sigma: r.sigma, gram: r.gram,
        flow_sigma: r.flowSigma, flow_gram: r.flowGram,
        fstar: r.fstar.length ? r.fstar : null,
      };
    }

    fStarAt(k) {
      // f* of iterate k's component of O(n) (p = n: a long step can cross), else the run's f*
      const r = this.run;
      return r.fstar.length > k ? r.fstar[k] : r.fStar;
    }

    async sources() {
      if (window.LANDING_SOURCES) return window.LANDING_SOURCES;
      const get = async (name) => (await fetch(name)).text();
      return { player: await get("player.js"), gif: window.LandingGif ? await get("gif.js") : "" };
    }

    async exportHtml() {
      const src = await this.sources();
      const data = JSON.stringify(this.payload()).replace(/</g, "\\u003c");
      const title = (this.run.view.title || "Landing Explorer").replace(/</g, "&lt;");
      const esc = (s) => s.replace(/<\/script/gi, "<\\/script");
      const html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Landing Explorer: ${title}</title></head>\n<body><div id="landing-player"></div>\n<script>window.LANDING_DATA = ${data};</script>\n<script id="lp-gif">${esc(src.gif)}</script>\n<script id="lp-player">${esc(src.player)}</script>\n</body></html>\n`;
      download(new Blob([html], { type: "text/html" }), "landing-run.html");
      this.note("Saved landing-run.html: it plays offline in any browser.");
    }

    async exportGif() {
      if (!window.LandingGif || !this.run) return;
      const frames = Math.min(200, this.available + 1);
      this.note(`Making a ${frames}-frame GIF…`);
      await new Promise((r) => setTimeout(r, 30));
      const t0 = performance.now();
      const W = 880, H = 400, gw = 380;
      const canvas = document.createElement("canvas");
      canvas.width = W; canvas.height = H;
      const ctx = canvas.getContext("2d", { willReadFrequently: true });
      const saved = this.kf, P = this.P();
      const images = [];
      for (let i = 0; i < frames; i++) {
        this.kf = frames === 1 ? 0 : (i * this.available) / (frames - 1);
        ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, H);
        this.drawGeometry(ctx, { x: 0, y: 24, w: gw, h: H - 24 }, false);
        this.drawConvergence(ctx, { x: gw + 10, y: 24, w: W - gw - 10, h: H - 24 }, false);
        const k = Math.floor(this.kf);
        ctx.fillStyle = "#111"; ctx.font = `600 ${P.font + 1}px sans-serif`; ctx.textAlign = "left"; ctx.textBaseline = "top";
        ctx.fillText(`${this.run.view.title}   k = ${k}   ${this.run.B ? "‖XᵀBX − I‖" : "‖XᵀX − I‖"} = ${sci(this.run.h[k])}`, 8, 4);
        images.push(ctx.getImageData(0, 0, W, H));
      }
      this.kf = saved;
      this.dirty = true;
      const bytes = window.LandingGif.encode(images, { delayCs: 5, loop: 0 });
      const seconds = (performance.now() - t0) / 1000;
      this.stats.gif = { frames, seconds, bytes: bytes.length };
      download(new Blob([bytes], { type: "image/gif" }), "landing-run.gif");
      this.note(`Saved landing-run.gif: ${frames} frames, ${(bytes.length / 1e6).toFixed(1)} MB, made in ${seconds.toFixed(1)} s.`);
    }

    note(text) {
      this.status.textContent = text;
      this.status.title = text;
    }
  }

  // the run's outcome in a few words, for the ready line
  function outcome(run) {
    const n = run.cost.length - 1;
    return { converged: `This run converged after ${n} iterations.`, max_iter: `This run reaches the iteration limit (${n}).`,
      diverged: `This run diverges after ${n} iterations.` }[run.status] || "";
  }

  function download(blob, name) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }

  // ------------------------------------------------------------------ hosts

  function boot() {
    const root = document.getElementById("landing-player");
    if (window.LANDING_DATA) {
      // standalone: the sources of this file, for exports from the export
      const text = (id) => { const s = document.getElementById(id); return s ? s.textContent : ""; };
      window.LANDING_SOURCES = { player: text("lp-player"), gif: text("lp-gif") };
      const player = new Player(root, { request() {}, height() {}, standalone: true });
      player.headerScale = window.LANDING_DATA.header.colorscale;
      player.receive(window.LANDING_DATA);
      window.landingPlayer = player;
      return;
    }
    const send = (type, extra) => window.parent.postMessage(Object.assign({ isStreamlitMessage: true, type }, extra), "*");
    let lastHeight = 0, asked = -1, askedView = null;
    const host = {
      request(have, view) {
        const v = view || (player.run && player.run.view ? player.run.view.kind : null);
        if (have === asked && v === askedView) return;
        asked = have; askedView = v;
        send("streamlit:setComponentValue", { value: { run_id: player.run ? player.run.id : null, have, view: v }, dataType: "json" });
      },
      height(h) {
        if (Math.abs(h - lastHeight) < 2) return;
        lastHeight = h;
        send("streamlit:setFrameHeight", { height: h });
      },
    };
    const player = new Player(root, host);
    window.landingPlayer = player;
    window.addEventListener("message", (event) => {
      const msg = event.data;
      if (!msg || msg.type !== "streamlit:render") return;
      const args = msg.args.data;
      player.headerScale = args.header.colorscale;
      if (player.run && player.run.id !== args.run_id) asked = -1;
      player.receive(args);
      player.layout();
    });
    send("streamlit:componentReady", { apiVersion: 1 });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
