/* Landing Explorer's player: a race, the Compare page's rows played together (explorer/race.py;
 * methods of Landing.Player, after player.js).
 *
 * One clock, this.kf in [0, C] (C: the longest row's iterations), drives every row: against the
 * iterations each row is at k = min(kf, its last iterate); against the time (the CPU time,
 * header.race.time_name, on the Compare page) the clock is the time t = kf / C · T (T: the
 * slowest row's) and each row is where its own run was at t. The
 * views draw every row's iterates in its colour on one background; the convergence panels draw
 * every row. Run, Pause, Step, Reset, the slider and the keys are the explorer's. */
(function (L) {
  "use strict";
  const { Player, FLOW, LAYER_DASH, UNIT_DASH, drawSeries, el, faint, linRange, logRange, makeScale, num, sci } = L;

  // the largest index i with xs[i] <= t (-1 when none): xs increases
  function below(xs, t) {
    let lo = -1, hi = xs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (xs[mid] <= t) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  Object.assign(Player.prototype, {
    receiveRace(args) {
      const h = args.header, R = h.race;
      const fresh = !this.run || this.run.id !== args.run_id;
      // the same race, longer (a question's Reveal): on the time clock the place is a
      // time, kept as such (kf runs over [0, C], and C and T change)
      const clock = !fresh && this.run.race && R.against === "time" ? this.clockX() : null;
      this.raceArgs = args;  // for the HTML export
      this.raceCaption = null;  // raceText writes the caption afresh
      if (this.hideFamily) this.hideFamily();
      const rows = args.rows.map((r) => {
        const gap = h.f_star === null ? null : r.cost.map((c) => (c === null ? null : Math.abs(c - (r.f_star === null ? h.f_star : r.f_star))));
        const sigma = r.sigma || [];
        const sigmaCols = sigma.length ? sigma[0].map((_, i) => sigma.map((row) => row[i])) : null;
        return { ...r, gap, last: r.cost.length - 1, x: r.x || [], sigma, sigmaCols, gram: r.gram || [], flowCols: [], flowGram: [], ghosts: [] };
      });
      const C = Math.max(1, ...rows.map((r) => r.last));
      const T = Math.max(1e-9, ...rows.map((r) => r.time[r.last] || 0));
      const time = R.against === "time", timeName = R.time_name || "time";
      const view = this.chooseView(h, fresh);
      let sigmaHi = 1.2;
      for (const r of rows) for (const row of r.sigma) for (const v of row) if (isFinite(v) && v * 1.05 > sigmaHi) sigmaHi = v * 1.05;
      this.run = {
        id: args.run_id, n: h.n, p: h.p, fStar: h.f_star, maxIter: h.max_iter, rate: h.rate, lecture: !!h.lecture, B: !!h.B,
        views: h.views, view, done: true, status: "", message: "", xmax: C, sigmaHi,
        x: rows[0].x, sigma: rows[0].sigma,  // the 3-D views aim at the first row's path
        race: { rows, data: args.data_id, against: R.against, hName: R.h_name, C, T, xmax: time ? T : C, timeName, xtitle: time ? `${timeName} (s)` : "iteration k",
          ask: Number.isInteger(R.ask) ? R.ask : null },
      };
      if (fresh) {
        this.kf = 0;
        this.playing = false;
        this.ended = false;
        this.paused = false;
        this.costScale = makeScale(h.colorscale);
      }
      this.kf = clock === null ? Math.min(this.kf, C) : Math.min(C, (clock / T) * C);
      this.present();
      this.aim();
      this.raceRanges();
      this.background = null;
      this.convBack = null;
      this.slider.max = String(C);
      this.slider.setAttribute("aria-label", time ? `Replay: ${timeName}` : "Replay: iteration k");
      this.layout();
      this.show();
      // the page sends the race whole only until the player says it holds it (live.race_args)
      if (args.data_id) this.host.request(1, null, { race: args.data_id });
    },

    // a rerun's stand-in for the race the player said it holds: nothing to do, unless this
    // player does not hold it (its frame was made afresh): it asks for the race whole then
    receiveHeld(args) {
      if (this.run && this.run.race && this.run.race.data === args.held) return;
      this.host.request(0, null, { race: null });
    },

    // row i's fractional iteration at the clock
    rowKf(i) {
      const race = this.run.race, r = race.rows[i];
      if (race.against !== "time") return Math.min(this.kf, r.last);
      const t = this.clockX(), k = below(r.time, t);
      if (k < 0) return 0;
      if (k >= r.last) return r.last;
      return k + (t - r.time[k]) / (r.time[k + 1] - r.time[k] || 1);
    },

    // the clock on the convergence panels' x axis: the iteration, or the time
    clockX() {
      const race = this.run.race;
      return race.against === "time" ? (this.kf / race.C) * race.T : this.kf;
    },

    // the compare page's three panels, each drawing every row in its colour, on axes that hold
    // every row (a diverging row's blow-up included: the summary table names it)
    raceRanges() {
      const race = this.run.race, rows = race.rows, time = race.against === "time";
      const gapLog = this.run.fStar !== null;
      const series = (key) => rows.map((r, i) => ({ ys: r[key], colour: r.colour, label: r.label, row: i, xs: time ? r.time : undefined }));
      const panels = [
        { title: gapLog ? "|f(Xₖ) − f*|" : "f(Xₖ)", log: gapLog, series: series(gapLog ? "gap" : "cost") },
        { title: race.hName, log: true, series: series("h") },
        { title: "stationarity ‖grad₁ f‖", log: true, series: series("grad") },
      ];
      this.conv = panels.map((panel) => ({
        ...panel,
        range: panel.log ? logRange(panel.series.map((s) => s.ys)) : linRange([].concat(...panel.series.map((s) => s.ys))),
      }));
    },

    // the convergence panels' background with every series drawn to its last vertex drawn
    // (drawSeries: within a pixel of its row's last whole iterate), kept between frames and
    // extended from there by the iterates passed since: a frame then draws only the heads
    // (18 series of 1,500 iterates cost 2-3 ms a frame in software canvas). A step back, a
    // new size, new axes or new panels (ranges()) draw it afresh.
    convTrail(charts, P, upto) {
      const back = this.convBack;
      const want = this.conv.map((panel) => panel.series.map((s) => Math.max(0, Math.min(Math.floor(upto(s)), s.ys.length - 1))));
      let t = this.trail;
      if (!t || t.back !== back || t.conv !== this.conv || t.k.some((row, i) => row.some((k, j) => want[i][j] < k))) {
        const off = document.createElement("canvas");
        off.width = back.off.width; off.height = back.off.height;
        const ctx = off.getContext("2d");
        ctx.drawImage(back.off, 0, 0);
        const dpr = window.devicePixelRatio || 1;
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        t = this.trail = { off, ctx, back, conv: this.conv, k: want.map((row) => row.map(() => 0)) };
      }
      // from the last vertex drawn, not the last iterate passed: a frame passes a few
      // iterates, often under a pixel apart, which drawSeries leaves out; a trail that went on
      // from them drew a flat or slow series as scattered dots (the penalty row's level line)
      charts.forEach((chart, i) => this.conv[i].series.forEach((s, j) => {
        if (want[i][j] <= t.k[i][j]) return;
        t.k[i][j] = drawSeries(t.ctx, chart, s.ys, want[i][j], { colour: s.colour, width: P.thick, xs: s.xs, from: t.k[i][j], cap: "round" });
      }));
      return t;
    },

    // every row's iterate and path in its colour (the frame's second column lighter), drawn
    // by the view's own moving part with a palette of that colour
    raceMoving(ctx, view, frame, P) {
      const run = this.run;
      run.race.rows.forEach((r, i) => {
        const palette = P.palette.map(() => r.colour);
        if (run.view.kind === "frame") palette[1] = faint(r.colour, 0.5);
        else if (run.view.kind !== "sigma") palette[2] = "#fff";  // X₀, the rows' shared start
        // a row on XᵀX = I beside rows on XᵀBX = I: its layers are spheres, not ellipsoids
        r.view = r.B || !run.view.W ? run.view : { ...run.view, B: undefined, W: undefined, L: undefined };
        r.xmax = run.xmax;
        r.sigmaHi = run.sigmaHi;
        view.moving(ctx, frame, r, this.rowKf(i), { ...P, palette });
      });
    },

    // the view's own legend without its coloured items (a race draws them in each row's
    // colour; its rows are named above the panels), and what the colours mean here
    raceLegend(view, P) {
      const run = this.run, kind = run.view.kind;
      const items = view.legend(P, run).filter((it) => !P.palette.includes(it.colour) && it.colour !== FLOW);
      if (kind === "plane" || kind === "sphere") items.push({ label: "dashed: each row's layer", colour: "#777", dash: LAYER_DASH, width: 2 });  // short: a race's plane view is a quarter of the width, and a legend item does not wrap
      if (kind === "frame") items.push({ label: "column 1", colour: "#555" }, { label: "column 2 (lighter)", colour: "#bbb" });
      if (kind === "plane" || kind === "sphere" || kind === "cone") items.push({ label: kind === "cone" ? "X₀ᵀX₀ (each row's diamond: XₖᵀXₖ)" : "X₀ (each row's diamond: Xₖ)", colour: "#fff", marker: true });
      if (run.view.unit) items.push({ label: kind === "plane" ? "unit circle (rows on XᵀX = I)" : "unit sphere (rows on XᵀX = I)", colour: "#000", dash: UNIT_DASH, width: 2 });
      return items;
    },

    // the clock, and each row's place: its iteration and its gap (or f), in its colour
    raceText() {
      const run = this.run, race = run.race, time = race.against === "time";
      const k = Math.floor(this.kf), t = this.clockX();
      // t: the line of numbers under it names the clock (CPU time on the Compare page)
      const clock = time ? `t = ${num(t, 3)} s` : `k = ${k}`;
      this.slider.value = String(k);
      this.kLabel.textContent = clock;
      // the numbers' elements are made once per race; a frame sets their text only (rebuilt
      // every frame, they cost a layout of the player's document each time)
      // (a question's Reveal keeps the race's id: the rows' messages arrive with it)
      const made = run.id + race.against + race.ask;
      if (this.nums.dataset.race !== made) {
        this.nums.dataset.race = made;
        this.nums.innerHTML = "";
        const head = el("span");
        head.append(time ? `${race.timeName} ` : "iteration k ", el("b"), run.fStar !== null ? " · |f − f*|:" : " · f:");
        this.nums.appendChild(head);
        race.rows.forEach((r, i) => {
          const s = el("span", { class: "lp-row", "data-row": String(i), title: r.message },
            [el("span", { class: "lp-swatch", style: `background:${r.colour}` }), document.createTextNode(` ${r.label} `), el("b")]);
          this.nums.appendChild(s);
        });
      }
      const cells = this.nums.children;
      cells[0].children[0].textContent = time ? `${num(t, 3)} s` : String(k);
      // each row's value at its place; a row that has ended says how, in a mark a reader
      // knows or in words (✓ converged, ✗ diverged, the iteration limit, the time limit)
      const mark = { converged: " ✓", diverged: " ✗", max_iter: " (limit)", stopped: " (stopped)" };
      race.rows.forEach((r, i) => {
        const ki = Math.floor(this.rowKf(i));
        cells[i + 1].lastChild.textContent = (time ? `(k = ${ki}) ` : "") + (run.fStar !== null ? sci(r.gap[ki]) : num(r.cost[ki], 6)) + (ki >= r.last ? mark[r.status] || "" : "");
      });
      let text, cls = "";
      if (this.playing) text = `Racing… ${clock}`;
      else if (k >= race.C && race.ask !== null) text = `Stopped at k = ${race.C} for the question: predict, then Reveal.`;
      else if (k >= race.C && (this.ended || k > 0)) {
        // the winner: the row that converged in the fewest iterations, or the least time
        const done = race.rows.filter((r) => r.status === "converged");
        const key = (r) => (time ? r.time[r.last] : r.last);
        const first = done.reduce((a, r) => (a === null || key(r) < key(a) ? r : a), null);
        text = "The race is over: " + (first ? `${first.label} converged first (k = ${first.last}${time ? `, ${num(key(first), 3)} s` : ""}).` : "no row converged.") + " The summary below compares them.";
        cls = race.rows.some((r) => r.status === "diverged") ? "diverged" : race.rows.every((r) => r.status === "converged") ? "converged" : "max_iter";
      } else if (this.paused) text = `Paused at ${clock}: Run resumes, Step advances one ${time ? "tick" : "iteration"}.`;
      else if (k === 0) {
        const one = race.rows.length === 1;
        const what = one ? "play the one row" : `race the ${race.rows.length} rows`;
        const how = time ? `against the ${race.timeName} ${one ? "it" : "each"} took` : "iteration by iteration";
        text = `Ready: press Run to ${what} ${how}.`;
      }
      else text = `At ${clock}.`;
      // the status line and the caption set only when they change: each write costs a
      // layout of the player's document, and a race writes its numbers every frame already
      if (this.status.textContent !== text || this.status.className !== "lp-status " + cls) {
        this.status.textContent = text;
        this.status.title = text;
        this.status.className = "lp-status " + cls;
      }
      this.btn.pause.disabled = !this.playing;
      this.btn.step.disabled = k >= race.C;
      const v = run.view, caption = v ? run.id + v.kind : "";
      if (this.raceCaption !== caption) {
        this.raceCaption = caption;
        this.geoTitle.textContent = "";
        this.geoCaption.innerHTML = "";
        if (v) {
          this.geoCaption.appendChild(el("b", { text: (v.title || "") + ". " }));
          this.geoCaption.appendChild(document.createTextNode("Every row from the same X₀, each in its colour."));
        }
      }
    },
  });

  // the rows' swatches beside their names
  const style = el("style");
  style.textContent = ".lp-swatch { display: inline-block; width: 0.8em; height: 0.8em; border-radius: 2px; vertical-align: -0.05em; } .lp-row { white-space: nowrap; }";
  document.head.appendChild(style);
})(window.Landing = window.Landing || {});
