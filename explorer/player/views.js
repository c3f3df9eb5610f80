/* Landing Explorer's player: the 3-D projection, the geometry views (Landing.VIEWS) and the
 * convergence panels (window.Landing; after axes.js). */
(function (L) {
  "use strict";
  const { arrowHead, diamond, dot, drawAxes, drawSeries, legend, linearTicks, makeChart, num, parseColour, rgb, sub } = L;

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
  const FLOW = "#222";

  // a family's neighbouring members (run.ghosts, family.js): each with its own k, the shown
  // iteration within its run, for its path drawn faint behind the shown member's
  const GHOST_ALPHA = 0.3;
  function eachGhost(run, kf, rows, draw) {
    for (const g of run.ghosts || []) {
      const R = g[rows];
      if (R && R.length) draw(R, Math.min(kf, R.length - 1));
    }
  }
  function faint(colour, alpha) { return rgb(parseColour(colour), alpha === undefined ? GHOST_ALPHA : alpha); }  // the exact normal flow overlaid on the singular-value and cone views

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
      // the safe region ‖h(x)‖ = |xᵀx − 1| <= ε (xᵀBx on XᵀBX = I): the band between the
      // layers of level sqrt(1 − ε) and sqrt(1 + ε)
      if (v.eps) {
        const band = (r) => {
          for (let i = 0; i <= 96; i++) {
            const a = (2 * Math.PI * i) / 96, u = [r * Math.cos(a), r * Math.sin(a)];
            const x = v.W ? [v.W[0][0] * u[0] + v.W[0][1] * u[1], v.W[1][0] * u[0] + v.W[1][1] * u[1]] : u;
            if (i) ctx.lineTo(chart.X(x[0]), chart.Y(x[1])); else ctx.moveTo(chart.X(x[0]), chart.Y(x[1]));
          }
          ctx.closePath();
        };
        ctx.beginPath(); band(Math.sqrt(1 + v.eps)); band(Math.sqrt(1 - v.eps));
        ctx.fillStyle = SAFE_BAND; ctx.fill("evenodd");
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
      if (v.unit) unitOutline(ctx, chart.cx, chart.cy, chart.s);
      ctx.restore();
      // the moving layer's clip (player.js): the square, not its ticks or colour bar
      chart.clip = { x: chart.X(-R), y: chart.Y(R), w: 2 * R * s, h: 2 * R * s };
      return chart;
    },
    moving(ctx, chart, run, kf, P) {
      const X = run.x, n = X.length;
      if (!n) return;
      const cur = lerpRow(X, kf);
      // the layer through X_k: the circle ||x|| = ||x_k||, or the ellipse xᵀBx = x_kᵀBx_k
      ctx.save();
      layerStroke(ctx, P, () => planeLayer(ctx, chart, run.view, level(run.view, cur)));
      eachGhost(run, kf, "x", (G, k) => {
        ctx.strokeStyle = faint(P.palette[1]); ctx.lineWidth = P.thin; ctx.lineJoin = "round";
        ctx.beginPath();
        for (let i = 0; i <= Math.floor(k); i++) { const q = [chart.X(G[i][0]), chart.Y(G[i][1])]; if (i) ctx.lineTo(q[0], q[1]); else ctx.moveTo(q[0], q[1]); }
        ctx.stroke();
      });
      path2d(ctx, X, kf, (p) => [chart.X(p[0]), chart.Y(p[1])], P.palette[1], P.thick, P);
      markEnds(ctx, [chart.X(X[0][0]), chart.Y(X[0][1])], [chart.X(cur[0]), chart.Y(cur[1])], P);
      ctx.restore();
    },
    legend: (P, run) => [
      ...pathLegend(P, run, "St(2, 1): ‖x‖ = 1", { trajectory: "trajectory" }),
      { label: "field −V", colour: "#444", width: 1.5 },
      ...(run && run.view.eps ? [{ label: `safe region ‖h‖ ≤ ε = ${run.view.eps} (light band)`, colour: "#d4d4d4", width: 10 }] : []),
    ],
  };
  const SAFE_BAND = "rgba(255,255,255,0.45)";

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
  // a race whose rows keep to XᵀX = I and to XᵀBX = I (view.unit): the unit circle, or the
  // unit sphere's outline, dashed beside the ellipse or ellipsoid
  const UNIT_DASH = [7, 5];
  function unitOutline(ctx, cx, cy, radius) {
    ctx.save();
    ctx.setLineDash(UNIT_DASH); ctx.strokeStyle = "#000"; ctx.lineWidth = 2;
    circle(ctx, cx, cy, radius); ctx.stroke();
    ctx.restore();
  }
  // the outline of a 3-D view's surface as the camera sees it: the unit sphere, or the
  // ellipsoid xᵀBx = 1 (and the unit sphere dashed beside it, view.unit)
  function surfaceOutline(ctx, pr, v, colour, width) {
    ctx.strokeStyle = colour; ctx.lineWidth = width;
    if (v.W) ellipsoidOutline(ctx, pr, v, 1); else circle(ctx, pr.cx, pr.cy, pr.s);
    ctx.stroke();
    if (v.unit) unitOutline(ctx, pr.cx, pr.cy, pr.s);
  }

  // X_0 (a dot) and X_k (a diamond), at screen points q0 and qk, and their legend entries
  function markEnds(ctx, q0, qk, P) {
    dot(ctx, q0[0], q0[1], P.marker, P.palette[2], "#000");
    diamond(ctx, qk[0], qk[1], P.marker + 2, P.palette[3]);
  }
  // the legend of a path of x (p = 1) in the plane or in space: the constraint (St, or xᵀBx = 1
  // on XᵀBX = I) and ``more.surface`` after it, the layer through x_k and ``more.layer``, the
  // trajectory, X_0 and X_k
  const pathLegend = (P, run, St, more) => [
    { label: run && run.view.B ? `xᵀBx = 1${more.surface || ""}` : `${St}${more.surface || ""}`, colour: "#000" },
    { label: `${run && run.view.B ? "layer xᵀBx = xₖᵀBxₖ" : "layer ‖x‖ = ‖xₖ‖"}${more.layer || ""}`, colour: P.palette[5], dash: LAYER_DASH, width: 2 },
    { label: more.trajectory, colour: P.palette[1] },
    { label: "X₀", colour: P.palette[2], marker: true },
    { label: "Xₖ", colour: P.palette[3], marker: "diamond" },
  ];

  function path2d(ctx, X, kf, at, colour, width, P) {
    const last = Math.min(Math.floor(kf), X.length - 1);
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.lineJoin = "round";
    ctx.beginPath();
    let drawn = null;
    for (let i = 0; i <= last; i++) {  // vertices MIN_STEP apart, as line3's
      const q = at(X[i]);
      if (i === 0) ctx.moveTo(q[0], q[1]);
      else if (i === last || Math.abs(q[0] - drawn[0]) + Math.abs(q[1] - drawn[1]) >= MIN_STEP) ctx.lineTo(q[0], q[1]);
      else continue;
      drawn = q;
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

  const BAR_STRIP = 64;  // px at the right of a view with a colour bar (bar and its labels)
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
  // a 3-D polyline, its far part (depth < 0 relative to the origin) faint: one stroke per run
  // of segments on the same side (a stroke per segment made a race of six 1,500-iterate paths
  // on the sphere cost 66 ms a frame in software canvas), its points closer than MIN_STEP
  // pixels to the last one drawn left out (a converging path's last hundreds of iterates
  // share a few pixels; the stroker pays for every vertex)
  // (count, map, tail: the first count points of pts, each mapped, then the point tail; the
  // sphere's path lifted off the surface without copies of it every frame)
  function line3(ctx, pr, pts, colour, width, faint, count, map, tail) {
    ctx.lineWidth = width;
    ctx.lineJoin = "round";
    const n = count === undefined ? pts.length : count, end = tail ? n : n - 1;
    let prev = null, style = null, drawn = null;
    for (let i = 0; i <= end; i++) {
      const q = pr.at(i < n ? (map ? map(pts[i]) : pts[i]) : tail);
      if (prev) {
        const s = faint && (prev[2] + q[2]) < 0 ? faint : colour;
        if (s !== style) {
          if (style !== null) ctx.stroke();
          ctx.strokeStyle = style = s;
          ctx.beginPath(); ctx.moveTo(prev[0], prev[1]);
          drawn = prev;
        }
        if (i === end || Math.abs(q[0] - drawn[0]) + Math.abs(q[1] - drawn[1]) >= MIN_STEP) {
          ctx.lineTo(q[0], q[1]);
          drawn = q;
        }
      }
      prev = q;
    }
    if (style !== null) ctx.stroke();
  }
  const MIN_STEP = 1;  // pixels (L1) between the vertices of a drawn path
  function axes3(ctx, pr, ends, labels, P) {
    ctx.save();
    ctx.font = `${P.font}px sans-serif`;
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    for (let i = 0; i < 3; i++) {
      const [a, b] = ends[i];
      const qa = pr.at(a), qb = pr.at(b);
      ctx.strokeStyle = "#999"; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(qa[0], qa[1]); ctx.lineTo(qb[0], qb[1]); ctx.stroke();
      arrowHead(ctx, qa[0], qa[1], qb[0], qb[1], 7, "#999");
      const dx = qb[0] - qa[0], dy = qb[1] - qa[1], L = Math.hypot(dx, dy) || 1;
      // after the arrow head, which fills with its lighter grey
      ctx.fillStyle = "#333";
      ctx.fillText(labels[i], qb[0] + (12 * dx) / L, qb[1] + (12 * dy) / L);
    }
    ctx.restore();
  }

  VIEWS.sphere = {
    three: true,
    initialCamera: (run) => aimAtPath(run.x.map((r) => r.slice(0, 3))),
    background(ctx, box, run, P, cam) {
      // the sphere and its axes left of the colour bar's strip, so that no axis runs under it
      const v = run.view, pr = projector({ ...box, w: box.w - BAR_STRIP }, v.R, cam, P);
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
      surfaceOutline(ctx, pr, v, "#000", P.thick - 1);
      colourBar(ctx, box.x + box.w - 56, box.y + box.h * 0.2, 12, box.h * 0.6, P.scale, v.zlo, v.zhi, "f", P.font);
      ctx.restore();
      pr.clip = { x: box.x, y: box.y, w: box.w - BAR_STRIP, h: box.h };  // not the colour bar
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
      eachGhost(run, kf, "x", (G, k) => line3(ctx, pr, G, faint(P.palette[1]), P.thin, faint(P.palette[1], 0.12), Math.floor(k) + 1, lift));
      line3(ctx, pr, X, P.palette[1], P.thick, rgb(parseColour(P.palette[1]), 0.28), last + 1, lift, lift(cur));
      markEnds(ctx, pr.at(lift(X[0])), pr.at(lift(cur)), P);
      ctx.restore();
    },
    legend: (P, run) => pathLegend(P, run, "St(3, 1)", { surface: " coloured by f", layer: " (outline)", trajectory: "trajectory (far side faint)" }),
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
      surfaceOutline(ctx, pr, v, "#555", 1.5);
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
        const col = (r) => [r[j], r[2 + j], r[4 + j]];
        eachGhost(run, kf, "x", (G, k) => line3(ctx, pr, G.slice(0, Math.floor(k) + 1).map(col), faint(P.palette[j]), P.thin, faint(P.palette[j], 0.12)));
      }
      for (let j = 0; j < 2; j++) {
        const colour = P.palette[j];
        const col = (r) => [r[j], r[2 + j], r[4 + j]];
        const tips = X.slice(0, last + 1).map(col);
        tips.push(col(cur));
        line3(ctx, pr, tips, colour, P.thick, rgb(parseColour(colour), 0.3));
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
      // turned about c, the ring's centre, the cone reaches top/√2 from it (its apex, and the
      // ring's ends on the m₁₁ and m₂₂ axes); an m₁₂ axis as long as the ring is wide
      // (±top/2) reached 0.87 top and made the cone a fifth smaller: it is ±0.3 top (0.77 top).
      // v.R: 0.8 top, or more for a path that reaches further (playback.py)
      const c = [top / 2, top / 2, 0], m12 = 0.3 * top;
      const pr0 = projector(box, v.R || top * 0.8, cam, P);
      const pr = { ...pr0, at: (p) => pr0.at([p[0] - c[0], p[1] - c[1], p[2] - c[2]]) };
      ctx.save();
      ctx.fillStyle = "#fff"; ctx.fillRect(box.x, box.y, box.w, box.h);
      axes3(ctx, pr, [[[0, 0, 0], [top, 0, 0]], [[0, 0, 0], [0, top, 0]], [[0, 0, -m12], [0, 0, m12]]], ["m₁₁", "m₂₂", "m₁₂"], P);
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
      eachGhost(run, kf, "gram", (G, k) => line3(ctx, pr, G.slice(0, Math.floor(k) + 1), faint(P.palette[1]), P.thin));
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
      // I's marker again, as an outline over the path's end: a converged Xₖ covers I there,
      // and the outline around it shows that it reached I
      const I = pr.at([1, 1, 0]);
      diamond(ctx, I[0], I[1], P.marker + 5, null, 2);
      ctx.restore();
    },
    legend: (P) => [
      { label: "boundary m₁₁m₂₂ = m₁₂²", colour: "rgba(86,180,233,0.9)", width: 1.5 },
      { label: "XₖᵀXₖ = (m₁₁, m₂₂, m₁₂)", colour: P.palette[1] },
      { label: "exact normal flow (any f, β)", colour: FLOW, dash: [2, 4], width: 2 },
      { label: "X₀ᵀX₀", colour: P.palette[2], marker: true },
      { label: "XₖᵀXₖ", colour: P.palette[3], marker: "diamond" },
      { label: "I", colour: "#000", marker: "diamond" },
    ],
  };

  VIEWS.sigma = {
    three: false,
    background(ctx, box, run, P) {
      const S = run.sigma;
      let hi = 1.2;
      if (run.sigmaHi) hi = run.sigmaHi;  // a family's, so that its axes stay over a drag
      else for (const row of S) for (const v of row) if (isFinite(v) && v * 1.05 > hi) hi = v * 1.05;
      const rect = { x: box.x + 8 * P.font * 0.5 + 20, y: box.y + P.font + 10, w: 0, h: 0 };
      rect.w = box.x + box.w - rect.x - 12;
      rect.h = box.y + box.h - rect.y - 2 * P.font - 16;
      const chart = makeChart(rect, 0, run.xmax, 0, hi, false);
      ctx.fillStyle = "#fff"; ctx.fillRect(box.x, box.y, box.w, box.h);
      drawAxes(ctx, chart, { font: P.font, title: "singular values σᵢ(Xₖ)", xtitle: "iteration k", xint: true });
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
      if (p <= 8) {
        for (const g of run.ghosts || []) {
          for (let i = 0; i < p && g.sigma.length; i++) {
            const ys = g.sigmaCols ? g.sigmaCols[i] : g.sigma.map((r) => r[i]);
            drawSeries(ctx, chart, ys, Math.min(kf, ys.length - 1), { colour: faint(P.palette[i % P.palette.length]), width: 1.2 });
          }
        }
      }
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

  Object.assign(L, { camera, VIEWS, projector, cursor, logRange, linRange, convergencePanels, FLOW, LAYER_DASH, UNIT_DASH, faint });
})(window.Landing = window.Landing || {});
