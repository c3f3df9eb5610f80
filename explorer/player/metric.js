/* Landing Explorer's player: the Metric and Safe step views (Landing.VIEWS.metric, .safe;
 * after views.js). The server sends per iterate the rows of landing_core.metric_view:
 * metric_row (the slice's g^β blocks, beta-free, and the coordinates of the Frobenius
 * gradient) and safe_row (the quartic ‖h(Xₖ − ηVₖ)‖² and the safe bound η*); the views turn
 * them into the ball of g^β at the run's β and the curve along the step. */
(function (L) {
  "use strict";
  const { VIEWS, projector, camera, arrowHead, dot, dotGap, drawAxes, makeChart, num } = L;

  const dot3 = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const norm3 = (a) => Math.hypot(a[0], a[1], a[2]);

  // the eigen-decomposition of a symmetric 3 x 3 matrix (cyclic Jacobi: a few sweeps reach
  // rounding for 3 x 3): { values, vectors } with vectors[j] the j-th unit eigenvector
  function eigSym3(A) {
    const a = A.map((r) => r.slice());
    const v = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
    for (let sweep = 0; sweep < 30; sweep++) {
      const off = a[0][1] ** 2 + a[0][2] ** 2 + a[1][2] ** 2;
      const diag = a[0][0] ** 2 + a[1][1] ** 2 + a[2][2] ** 2;
      if (!(off > 1e-30 * diag)) break;
      for (const [p, q] of [[0, 1], [0, 2], [1, 2]]) {
        if (a[p][q] === 0) continue;
        const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (let k = 0; k < 3; k++) {  // A <- A J (columns p, q)
          const akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq; a[k][q] = s * akp + c * akq;
        }
        for (let k = 0; k < 3; k++) {  // A <- Jᵀ A (rows p, q)
          const apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk; a[q][k] = s * apk + c * aqk;
        }
        for (let k = 0; k < 3; k++) {  // V <- V J
          const vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq; v[k][q] = s * vkp + c * vkq;
        }
      }
    }
    return { values: [a[0][0], a[1][1], a[2][2]], vectors: [0, 1, 2].map((j) => [v[0][j], v[1][j], v[2][j]]) };
  }

  // a metric row (metric_view.metric_row) at the run's β: the matrix K = β T + S of g^β in the
  // slice's Frobenius-orthonormal coordinates (u, b₁, b₂), its ball's semi-axes, the
  // coordinates c of the Frobenius projection of ∇f, grad_β f = K⁻¹ c, and the point where the
  // plane df = ‖grad_β f‖_β touches the ball, grad_β f / ‖grad_β f‖_β
  function metricAt(row, beta) {
    const sym = (o) => [[row[o], row[o + 3], row[o + 4]], [row[o + 3], row[o + 1], row[o + 5]], [row[o + 4], row[o + 5], row[o + 2]]];
    const T = sym(0), S = sym(6);
    const K = T.map((r, i) => r.map((t, j) => beta * t + S[i][j]));
    const c = [row[12], row[13], row[14]];
    const { values, vectors } = eigSym3(K);
    const grad = [0, 0, 0];
    vectors.forEach((w, j) => { const a = dot3(w, c) / values[j]; for (let i = 0; i < 3; i++) grad[i] += a * w[i]; });
    const level = Math.sqrt(Math.max(dot3(c, grad), 0));
    const touch = level > 0 ? grad.map((g) => g / level) : [0, 0, 0];
    return { K, c, grad, touch, level, radii: values.map((l) => 1 / Math.sqrt(l)), axes: vectors, residual: row[15] };
  }

  // coordinates (u, b₁, b₂) are drawn with u vertical: the turn within the span is the axis
  // the ball stretches along for small β
  const place = (x) => [x[1], x[2], x[0]];

  function segment(ctx, pr, a, b, colour, width, faint) {
    const qa = pr.at(a), qb = pr.at(b);
    ctx.strokeStyle = faint && qa[2] + qb[2] < 0 ? faint : colour;
    ctx.lineWidth = width;
    ctx.beginPath(); ctx.moveTo(qa[0], qa[1]); ctx.lineTo(qb[0], qb[1]); ctx.stroke();
  }
  function polyline(ctx, pr, pts, colour, width, faint) {
    for (let i = 1; i < pts.length; i++) segment(ctx, pr, pts[i - 1], pts[i], colour, width, faint);
  }
  // the rings of an ellipsoid x = A u, |u| = 1 (three meridians, three parallels)
  function rings(map) {
    const out = [], n = 64;
    for (let m = 0; m < 3; m++) {
      const lon = (Math.PI * m) / 3, pts = [];
      for (let i = 0; i <= n; i++) { const a = (2 * Math.PI * i) / n; pts.push(map([Math.cos(lon) * Math.sin(a), Math.sin(lon) * Math.sin(a), Math.cos(a)])); }
      out.push(pts);
    }
    for (const lat of [-Math.PI / 4, 0, Math.PI / 4]) {
      const pts = [];
      for (let i = 0; i <= n; i++) { const a = (2 * Math.PI * i) / n; pts.push(map([Math.cos(lat) * Math.cos(a), Math.cos(lat) * Math.sin(a), Math.sin(lat)])); }
      out.push(pts);
    }
    return out;
  }
  // the outline of the ellipsoid {x : xᵀ K x <= 1} on the screen: the ellipse whose matrix is
  // the screen projection of K⁻¹ (x = A u with A Aᵀ = K⁻¹; its shadow is P A, P the screen rows)
  function outline(ctx, pr, A) {
    const r = pr.cam.r, u = pr.cam.u;
    const PA = [[0, 1, 2].map((j) => dot3(r, [A[0][j], A[1][j], A[2][j]])), [0, 1, 2].map((j) => dot3(u, [A[0][j], A[1][j], A[2][j]]))];
    const C = [[dot3(PA[0], PA[0]), dot3(PA[0], PA[1])], [0, dot3(PA[1], PA[1])]];
    const l11 = Math.sqrt(C[0][0]), l21 = C[0][1] / l11, l22 = Math.sqrt(Math.max(C[1][1] - l21 * l21, 0));
    ctx.beginPath();
    for (let i = 0; i <= 96; i++) {
      const a = (2 * Math.PI * i) / 96, w = [Math.cos(a), Math.sin(a)];
      const x = pr.cx + pr.s * l11 * w[0], y = pr.cy - pr.s * (l21 * w[0] + l22 * w[1]);
      if (i) ctx.lineTo(x, y); else ctx.moveTo(x, y);
    }
    ctx.closePath();
  }
  function arrow3(ctx, pr, to, colour, width, dash) {
    const o = pr.at([0, 0, 0]), t = pr.at(to);
    ctx.save();
    ctx.strokeStyle = colour; ctx.lineWidth = width; ctx.setLineDash(dash || []);
    ctx.beginPath(); ctx.moveTo(o[0], o[1]); ctx.lineTo(t[0], t[1]); ctx.stroke();
    ctx.setLineDash([]);
    if (Math.hypot(t[0] - o[0], t[1] - o[1]) > 4) arrowHead(ctx, o[0], o[1], t[0], t[1], 9 + 2 * width, colour);
    ctx.restore();
  }

  const BALL = "#0072B2", FROB = "#999", PLANE = "rgba(230,159,0,0.22)", PLANE_EDGE = "rgba(200,130,0,0.9)";
  const GRAD = "#D55E00", EGRAD = "#333";
  // the drawing's largest half-width: the semi-axis 1/√β = 4.5 of the Scrub range's least β
  // (0.05: its family is drawn at that scale) fits, off the manifold too (4.6 at X₀)
  const SHOWN = 5.6;

  // the axes u, b₁, b₂ in drawing coordinates (u vertical), from −R to R
  const AXIS_ENDS = (R) => [[[0, 0, -R], [0, 0, R]], [[-R, 0, 0], [R, 0, 0]], [[0, -R, 0], [0, R, 0]]];

  // The axes' names, drawn over the ball (with a white halo) so that its rings never strike
  // them out: u beside its tip, kept inside the box; b₁ and b₂ beyond theirs. Turned, an axis's
  // tip can come near another's name (or the lines at the bottom, ``avoid``): a name then goes
  // to the first of a few places along its axis, a line or two above or below, that overlaps
  // nothing placed and stays in the box. Returns the names' boxes.
  function axisLabels(ctx, pr, run, P, avoid) {
    const short = (run.view.labels || ["u", "b₁", "b₂"]).map((s) => s.split(":")[0]);
    const box = pr.box, h = P.font + 2, placed = [];
    const clear = (b) => ![...avoid, ...placed].some((o) => b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h);
    const inside = (b) => b.x >= box.x && b.x + b.w <= box.x + box.w && b.y >= box.y && b.y + b.h <= box.y + box.h;
    ctx.save();
    ctx.textBaseline = "middle"; ctx.lineJoin = "round"; ctx.strokeStyle = "#fff"; ctx.lineWidth = 4;
    AXIS_ENDS(pr.reach).forEach(([a, b], i) => {
      const qa = pr.at(a), qb = pr.at(b);
      const dx = qb[0] - qa[0], dy = qb[1] - qa[1], n = Math.hypot(dx, dy) || 1;
      ctx.fillStyle = i === 0 ? "#000" : "#333";
      ctx.font = `${i === 0 ? "600 " : ""}${P.font}px sans-serif`;
      // short, so as not to hide the top of a tall ball (small β); the caption says the rest;
      // u, u₂, u₃ turn the frame within its span (O(n)'s slice has three), b₁, b₂ tilt it
      const text = `${short[i]} (${short[i].startsWith("u") ? "turn" : "tilt"})`;
      const w = ctx.measureText(text).width;
      // candidate centres of the name, the first where it used to be
      const spots = [];
      if (i === 0) {
        const x = Math.max(box.x + 4, Math.min(qb[0] + 10, box.x + box.w - w - 4)) + w / 2;
        // beside the tip first: below it, the name would cover the top of a tall ball (small β)
        for (const j of [0, 1, 2, 3]) spots.push([x, qb[1] + j * h]);
      } else {
        // beyond the tip, then short of it (the axis seen end on from above reaches the box's
        // edge, where the lines at the bottom are)
        for (const t of [16, 16 + h, 16 + 2 * h, -16 - w / 2, -16 - w / 2 - h]) {
          for (const j of [0, -1, 1, -2, 2]) spots.push([qb[0] + (t * dx) / n, qb[1] + (t * dy) / n + j * h]);
        }
      }
      const boxAt = ([x, y]) => ({ x: x - w / 2, y: y - h / 2, w, h });
      const spot = spots.find((c) => clear(boxAt(c)) && inside(boxAt(c))) || spots[0];
      placed.push(boxAt(spot));
      ctx.textAlign = "center";
      ctx.strokeText(text, spot[0], spot[1]);
      ctx.fillText(text, spot[0], spot[1]);
    });
    ctx.restore();
    return placed;
  }

  VIEWS.metric = {
    three: true,
    initialCamera: () => camera(-0.55, 0.3),
    background(ctx, box, run, P, cam) {
      // the scale: the first iterate's ball (the ball changes little along a run), at most
      // SHOWN; a family's largest over its members (family.js), so that a drag over β
      // changes the ball against fixed axes and the Frobenius ball
      const first = run.metric && run.metric.find((r) => !r.some((v) => v === null));
      const reach = run.metricReach || (first ? Math.max(...metricAt(first, run.view.beta).radii) : 1);
      const R = Math.min(SHOWN, Math.max(1.25, 1.2 * reach));
      const pr = { ...projector(box, R, cam, P), box, reach: R };
      ctx.save();
      ctx.fillStyle = "#fff"; ctx.fillRect(box.x, box.y, box.w, box.h);
      AXIS_ENDS(R).forEach(([a, b]) => {
        segment(ctx, pr, a, b, "#aaa", 1);
        const qa = pr.at(a), qb = pr.at(b);
        arrowHead(ctx, qa[0], qa[1], qb[0], qb[1], 7, "#aaa");
      });
      // the Frobenius ball: the unit sphere of these coordinates
      for (const ring of rings((x) => x)) polyline(ctx, pr, ring, "#c8c8c8", 1, "#ececec");
      ctx.strokeStyle = FROB; ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.arc(pr.cx, pr.cy, pr.s, 0, 2 * Math.PI); ctx.stroke();
      ctx.restore();
      return pr;
    },
    moving(ctx, pr, run, kf, P) {
      const rows = run.metric;
      if (!rows || !rows.length) return;
      const k = Math.min(Math.floor(kf), rows.length - 1);
      const f = kf - k, row = f > 0 && k + 1 < rows.length ? rows[k].map((v, i) => v + f * (rows[k + 1][i] - v)) : rows[k];
      if (row.some((v) => v === null)) return;
      const beta = run.view.beta;
      const m = metricAt(row, beta);
      // A = V diag(r) maps the unit sphere onto the ball (columns: the semi-axes)
      const A = [0, 1, 2].map((i) => [0, 1, 2].map((j) => m.axes[j][i] * m.radii[j]));
      const onto = (x) => place([0, 1, 2].map((i) => dot3(A[i], x)));
      const Aplaced = [A[1], A[2], A[0]];
      // the plane df = level, touching the ball at grad_β f / ‖grad_β f‖_β: a square patch
      // spanned by two directions orthogonal to c (the plane's normal in these coordinates)
      ctx.save();
      const cn = norm3(m.c);
      let tip = null, frob = null;
      if (cn > 0 && m.level > 0) {
        const nrm = m.c.map((x) => x / cn);
        const helper = Math.abs(nrm[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
        let e1 = helper.map((x, i) => x - dot3(helper, nrm) * nrm[i]);
        const l1 = norm3(e1); e1 = e1.map((x) => x / l1);
        const e2 = [nrm[1] * e1[2] - nrm[2] * e1[1], nrm[2] * e1[0] - nrm[0] * e1[2], nrm[0] * e1[1] - nrm[1] * e1[0]];
        const h = 0.3 * pr.reach;
        const corner = (a, b) => place(m.touch.map((t, i) => t + a * h * e1[i] + b * h * e2[i]));
        const quad = [corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1)].map((x) => pr.at(x));
        ctx.beginPath(); quad.forEach((q, i) => (i ? ctx.lineTo(q[0], q[1]) : ctx.moveTo(q[0], q[1]))); ctx.closePath();
        ctx.fillStyle = PLANE; ctx.fill();
        ctx.strokeStyle = PLANE_EDGE; ctx.lineWidth = 1.2; ctx.stroke();
        tip = place(m.touch);
        frob = place(nrm);
      }
      // the β-ball over the plane: its outline filled, its rings with the far side faint
      outline(ctx, pr, Aplaced);
      ctx.fillStyle = "rgba(0,114,178,0.08)"; ctx.fill();
      ctx.strokeStyle = BALL; ctx.lineWidth = P.thick; ctx.stroke();
      for (const ring of rings(onto)) polyline(ctx, pr, ring, "rgba(0,114,178,0.75)", 1.2, "rgba(0,114,178,0.18)");
      if (tip) {
        arrow3(ctx, pr, frob, EGRAD, P.thick, [7, 5]);
        arrow3(ctx, pr, tip, GRAD, P.thick + 1.5);
        const q = pr.at(tip);
        dot(ctx, q[0], q[1], P.marker, GRAD, "#000");
      }
      // what the class reads off: the turn's share of the step in each metric
      const share = (x) => { const n = norm3(x); return n > 0 ? Math.abs(x[0]) / n : NaN; };
      ctx.fillStyle = "#111"; ctx.font = `${P.font}px sans-serif`; ctx.textAlign = "left"; ctx.textBaseline = "bottom";
      const lines = [
        `β = ${num(beta, 3)}, k = ${k}`,
        `turn share |u| / length: gradᵦ f ${num(share(m.grad), 2)}, Frobenius ${num(share(m.c), 2)}`,
      ];
      if (m.residual > 0) {  // the part of the Frobenius gradient the slice does not hold (p >= 3)
        const whole = Math.hypot(norm3(m.c), m.residual);
        lines.push(`Frobenius gradient outside the slice: ${num((100 * m.residual) / whole, 2)}% of it`);
      }
      const tangent = run.view.tangent;  // a run on another tangent term does not step along grad_β f
      if (tangent === "euclidean") lines.push("this run steps along the Frobenius projection (dashed)");
      if (tangent === "relative") lines.push("this run steps along skew(GXᵀ)X (½ gradᵦ f only at β = ½)");
      // g^β's ball outgrows the view far off the manifold (a diverging run), and on it below
      // β ≈ 0.03 (its turn semi-axis 1/√β passes SHOWN)
      if (Math.max(...m.radii) > pr.reach) {
        lines.push((run.h[k] > 1 ? "Xₖ far off the manifold: " : "") + "the ball reaches beyond the view");
      }
      // at the bottom left, clear of the turn axis's label at the top, on white where a large
      // ball or the arrow runs under them
      const bottom = pr.box.y + pr.box.h - 2, texts = [];
      lines.forEach((s, i) => {
        const y = bottom - (lines.length - 1 - i) * (P.font + 4);
        const back = { x: pr.box.x + 6, y: y - P.font - 2, w: ctx.measureText(s).width + 4, h: P.font + 4 };
        ctx.fillStyle = "rgba(255,255,255,0.85)";
        ctx.fillRect(back.x, back.y, back.w, back.h);
        ctx.fillStyle = "#111";
        ctx.fillText(s, pr.box.x + 8, y);
        texts.push(back);
      });
      const labels = axisLabels(ctx, pr, run, P, texts);
      ctx.restore();
      // the numbers drawn, for tests (the browser test compares them with the server's)
      run.metricDrawn = { k, beta, radii: m.radii, grad: m.grad, touch: m.touch, frobenius: m.c, level: m.level, R: pr.reach, lines, labels, texts };
    },
    legend: (P) => [
      { label: "unit ball of gᵝ", colour: BALL },
      { label: "Frobenius ball (β = 1 at XᵀX = I)", colour: FROB, width: 1.5 },
      { label: "gradᵦ f (to where df = const touches)", colour: GRAD },
      { label: "Frobenius projection of ∇f", colour: EGRAD, dash: [7, 5] },
      { label: "plane df = const", colour: PLANE_EDGE, width: 6 },
    ],
  };

  // ------------------------------------------------------------------ the safe region

  const quartic = (c, eta) => c[0] + eta * (c[1] + eta * (c[2] + eta * (c[3] + eta * c[4])));
  const hAt = (c, eta) => Math.sqrt(Math.max(quartic(c, eta), 0));

  VIEWS.safe = {
    three: false,
    background(ctx, box, run, P) {
      ctx.fillStyle = "#fff"; ctx.fillRect(box.x, box.y, box.w, box.h);
      return box;
    },
    moving(ctx, box, run, kf, P) {
      const rows = run.safe;
      if (!rows || !rows.length) return;
      const k = Math.min(Math.floor(kf), rows.length - 1);
      const row = rows[k];
      if (row.some((v, i) => v === null && i < 5)) return;
      const c = row.slice(0, 5), etaStar = row[5];
      const v = run.view, eps = v.eps, d = hAt(c, 0), lvl = Math.max(eps, d);
      const taken = k + 1 < run.step.length ? run.step[k + 1] : null;
      const next = k + 1 < run.h.length ? run.h[k + 1] : null;
      const lowered = taken && run.nstep[k + 1] !== null && Math.abs(run.nstep[k + 1] / taken - v.omega) > 1e-6 * v.omega;
      // the first crossing of the level (the curve starts under it, or on it when d >= ε)
      const reach = Math.max(isFinite(etaStar) ? etaStar : 0, taken || 0);
      let hi = reach > 0 ? 2.2 * reach : 1;
      let cross = null;
      const n = 400;
      for (let i = 1; i <= n; i++) {
        const a = (hi * 3 * (i - 1)) / n, b = (hi * 3 * i) / n;
        if (quartic(c, a) <= lvl * lvl && quartic(c, b) > lvl * lvl && (d < eps || a > 0)) {
          let lo = a, up = b;
          for (let j = 0; j < 50; j++) { const mid = (lo + up) / 2; if (quartic(c, mid) > lvl * lvl) up = mid; else lo = mid; }
          cross = lo; break;
        }
      }
      if (cross !== null && cross * 1.15 > hi) hi = Math.min(cross * 1.15, 3 * hi);
      let top = Math.max(1.3 * lvl, 1e-300);
      for (let i = 0; i <= 100; i++) top = Math.max(top, Math.min(hAt(c, (hi * i) / 100), 2.5 * lvl));
      top *= 1.05;
      const rect = { x: box.x + 5 * P.font, y: box.y + 2 * P.font + 8, w: 0, h: 0 };
      rect.w = box.x + box.w - rect.x - 16;
      rect.h = box.y + box.h - rect.y - 2 * P.font - 14;
      const chart = makeChart(rect, 0, hi, 0, top, false);
      // ε and ‖h(Xₖ)‖ are labelled at the axis (below), ‖h(Xₖ)‖ a line above ε at least
      // where the two are closer; no tick label under either
      const atEps = chart.Y(eps), labelled = d > eps ? [atEps, Math.min(chart.Y(d), atEps - 1.1 * P.font)] : [atEps];
      const ygap = dotGap(P);  // the dot of ‖h(Xₖ)‖ is on the axis
      drawAxes(ctx, chart, { font: P.font, title: `‖h(Xₖ − ηVₖ)‖ along the step, k = ${k}`, xtitle: "step size η", ylabelled: labelled, ygap });
      ctx.save();
      ctx.beginPath(); ctx.rect(rect.x, rect.y, rect.w, rect.h); ctx.clip();
      // the safe region ‖h‖ <= ε shaded, its level dashed
      ctx.fillStyle = "rgba(0,158,115,0.10)";
      ctx.fillRect(rect.x, chart.Y(Math.min(eps, top)), rect.w, rect.y + rect.h - chart.Y(Math.min(eps, top)));
      ctx.setLineDash([7, 5]); ctx.strokeStyle = "#009E73"; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(rect.x, chart.Y(eps)); ctx.lineTo(rect.x + rect.w, chart.Y(eps)); ctx.stroke();
      if (d > eps) {  // outside the region the guarantee is ‖h‖ <= ‖h(Xₖ)‖: the level d, dotted
        ctx.setLineDash([2, 4]); ctx.strokeStyle = "#009E73";
        ctx.beginPath(); ctx.moveTo(rect.x, chart.Y(d)); ctx.lineTo(rect.x + rect.w, chart.Y(d)); ctx.stroke();
      }
      ctx.setLineDash([]);
      // the curve
      ctx.strokeStyle = "#0072B2"; ctx.lineWidth = P.thick;
      ctx.beginPath();
      for (let i = 0; i <= 300; i++) { const e = (hi * i) / 300, x = chart.X(e), y = chart.Y(Math.min(hAt(c, e), 10 * top)); if (i) ctx.lineTo(x, y); else ctx.moveTo(x, y); }
      ctx.stroke();
      // η*: the safe bound; the first crossing; the step taken
      ctx.font = `${P.font}px sans-serif`; ctx.textBaseline = "top";
      const mark = (eta, colour, label, dash, row) => {
        if (!(eta > 0) || eta > hi) return;
        const x = chart.X(eta);
        ctx.setLineDash(dash); ctx.strokeStyle = colour; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.moveTo(x, rect.y); ctx.lineTo(x, rect.y + rect.h); ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = colour; ctx.textAlign = x > rect.x + rect.w - 120 ? "right" : "left";
        ctx.fillText(label, x + (ctx.textAlign === "right" ? -4 : 4), rect.y + 4 + row * (P.font + 4));
      };
      // η* is the lemma's root, capped at 1/(2ω); for ‖h(Xₖ)‖ ≥ 1 the lemma says nothing and
      // the rule halves min(η, 1/(2ω)) until ‖h‖² falls enough (steps.safe_step)
      // (the rows arrive to 7 significant digits: playback.SIGNIFICANT)
      const capped = Math.abs(etaStar - 0.5 / v.omega) <= 1e-6 * etaStar;
      mark(etaStar, "#D55E00", `η* = ${num(etaStar, 3)}${capped ? " = 1/(2ω), the cap" : ""}`, [], 0);
      const note = d < 1 ? [] : ["‖h(Xₖ)‖ ≥ 1: the lemma gives no η*" + (v.rule === "safe" ? ";" : ""),
        ...(v.rule === "safe" ? ["ηₖ: min(η, 1/(2ω)) halved until ‖h‖ falls"] : [])];
      if (cross !== null) mark(cross, "#999", `exact crossing ${num(cross, 3)}`, [3, 4], 1);
      if (taken) {
        mark(taken, "#000", `ηₖ = ${num(taken, 3)}${lowered ? " (ωₖ < ω: off this curve)" : ""}`, [2, 3], 2);
        if (next !== null && taken <= hi) dot(ctx, chart.X(taken), chart.Y(Math.min(next, top)), P.marker, "#000", "#fff");
      }
      const q = chart.Y(d);
      dot(ctx, chart.X(0), q, P.marker - 1, "#0072B2", "#000");
      // at the chart's foot, on white (the marks' labels are at its top)
      ctx.textAlign = "left"; ctx.textBaseline = "top";
      note.forEach((line, i) => {
        const y = rect.y + rect.h - (note.length - i) * (P.font + 6) - 2;
        ctx.fillStyle = "rgba(255,255,255,0.85)";
        ctx.fillRect(rect.x + 2, y - 2, ctx.measureText(line).width + 6, P.font + 6);
        ctx.fillStyle = "#D55E00"; ctx.fillText(line, rect.x + 5, y);
      });
      ctx.restore();
      ctx.fillStyle = "#009E73"; ctx.font = `${P.font}px sans-serif`; ctx.textAlign = "right"; ctx.textBaseline = "bottom";
      ctx.fillText(`ε = ${num(eps, 3)}`, rect.x - ygap, labelled[0] + P.font / 2);
      if (d > eps) ctx.fillText("‖h(Xₖ)‖", rect.x - ygap, labelled[1] + P.font / 2);
      run.safeDrawn = { k, eta_star: etaStar, eta_k: taken, h_next: next, d, eps, cross, note, capped,
        yticks: chart.yticks.map((t) => t.y), labelled, font: P.font,
        axis: rect.x, labelsEnd: rect.x - ygap, ticksEnd: chart.yticks.map((t) => t.right), dot: P.marker - 1 };
    },
    legend: (P) => [
      { label: "‖h(Xₖ − ηVₖ)‖", colour: "#0072B2" },
      { label: "ε: the safe region ‖h‖ ≤ ε", colour: "#009E73", dash: [7, 5], width: 2 },
      { label: "η*: the safe bound", colour: "#D55E00", width: 2 },
      { label: "ηₖ taken, and ‖h(Xₖ₊₁)‖", colour: "#000", dash: [2, 3], width: 2 },
    ],
  };

  Object.assign(L, { eigSym3, metricAt });
})(window.Landing = window.Landing || {});
