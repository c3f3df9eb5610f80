/* Landing Explorer's player: a family of runs over β, ω or η (explorer/family.py), scrubbed
 * in the browser (methods of Landing.Player; after player.js).
 *
 * The server sends every member's whole history once, in chunks (the shown member first); the
 * scrubber swaps the member's arrays into the run the views draw, so a drag redraws both
 * canvases at once with no message to the server. Only the release (change event, [ or ])
 * tells the server, which sets the sidebar's value and the URL. The axes are the family's
 * (fixed over a drag); the neighbouring members' paths are drawn faint (run.ghosts). */
(function (L) {
  "use strict";
  const { Player, convergencePanels, el, logRange, linRange, makeScale, metricAt } = L;

  // the neighbours drawn faint, at these distances on each side of the shown member (next
  // members' paths nearly coincide with its own: farther ones show where the drag leads)
  const GHOSTS = [1, 3, 6];
  // a release reaches the server this long after the last of a quick series (a clicker's
  // presses of ] or a held arrow key: one rerun of the page, not one per press)
  const RELEASE_WAIT = 250;
  L.RELEASE_WAIT = RELEASE_WAIT;  // (the browser tests read it)
  const FIELDS = ["cost", "gap", "h", "grad", "step", "nstep", "x", "sigma", "gram", "fstar",
    "flowSigma", "flowGram", "metric", "safe", "sigmaCols", "flowCols", "hasNormal", "done", "status", "message"];

  const fmt = (v) => String(Number(v.toPrecision(3)));

  Object.assign(Player.prototype, {
    // one member's chunk (playback.chunk + i, value, status) as the run's arrays
    member(m, fStar) {
      const o = {
        i: m.i, value: m.value, cost: m.cost, h: m.h, grad: m.grad, step: m.step, nstep: m.nstep,
        x: m.x || [], sigma: m.sigma || [], gram: m.gram || [], fstar: m.fstar || [],
        flowSigma: m.flow_sigma || [], flowGram: m.flow_gram || [], metric: m.metric || [], safe: [],
        done: true, status: m.status, message: m.message || "",
      };
      o.gap = o.cost.map((c, i) => (fStar === null || c === null ? null : Math.abs(c - (o.fstar.length > i ? o.fstar[i] : fStar))));
      o.hasNormal = o.nstep.some((v) => v !== null && isFinite(v) && v > 0);
      o.sigmaCols = null;
      if (o.sigma.length && o.sigma[0].length > 1) {
        o.sigmaCols = [];
        for (let i = 0; i < o.sigma[0].length; i++) o.sigmaCols.push(o.sigma.map((r) => r[i]));
      }
      o.flowCols = [];
      if (o.flowSigma.length) for (let i = 0; i < o.flowSigma[0].length; i++) o.flowCols.push(o.flowSigma.map((r) => r[i]));
      return o;
    },

    receiveFamily(args) {
      const h = args.header, F = h.family;
      const fresh = !this.run || this.run.id !== args.run_id;
      if (fresh && args.start > 0) { this.askFromStart(); return; }
      if (fresh) {
        this.run = {
          id: args.run_id, n: h.n, p: h.p, fStar: h.f_star, maxIter: h.max_iter,
          cost: [], gap: [], h: [], grad: [], step: [], nstep: [], x: [], sigma: [], gram: [], fstar: [],
          flowSigma: [], flowGram: [], metric: [], safe: [], done: true, status: "", message: "",
          view: null, hasNormal: false, xmax: 1, ghosts: [],
          family: { param: F.param, symbol: F.symbol, values: F.values, members: new Array(F.count).fill(null), have: 0, index: F.index, shown: -1, sent: new Set() },
        };
        this.playing = false;
        this.ended = true;
        this.kWant = Infinity;  // a new family shows every member's whole path
        if (this.famValue) this.famValue.style.minWidth = "";  // (useMember)
        this.costScale = makeScale(h.colorscale);
      }
      const run = this.run, fam = run.family;
      this.takeHeader(h, fresh);
      // the Metric view opens at X₀, every member's: there only the metric differs (at the
      // runs' ends the gradients are small and the members' iterates apart)
      if (fresh && run.view && run.view.kind === "metric") this.kWant = 0;
      if (fam.shown >= 0) this.memberViews(fam.shown);  // the header's views are new objects
      if (args.start > fam.have) { this.host.request(fam.have); return; }
      for (const m of args.members) if (!fam.members[m.i]) fam.members[m.i] = this.member(m, run.fStar);
      fam.have = Math.max(fam.have, args.start + args.members.length);
      this.familyRanges();
      // the sidebar moved the value (not a release of ours): follow it
      let show = fam.shown;
      if (F.index !== fam.index && !fam.sent.has(F.index)) show = F.index;
      fam.index = F.index;
      if (F.index === fam.shown) fam.sent.clear();
      if (show < 0) show = F.index;
      this.familyBar();
      this.useMember(show);
      this.aim();
      if (fam.have < F.count) this.host.request(fam.have);
      if (fresh) this.layout(); else { this.background = null; this.convBack = null; }
      this.show();
    },

    // the convergence panels' ranges and the views' extents over every member received, so
    // that the axes stay put while the scrubber moves
    familyRanges() {
      const run = this.run, fam = run.family, P = this.P();
      const got = fam.members.filter((m) => m);
      const calm = got.filter((m) => m.status !== "diverged");
      run.xmax = Math.max(1, ...got.map((m) => m.cost.length - 1));
      // two sets of axes: the members that do not diverge (a diverging one's blow-up would
      // flatten every other curve), and all of them, for a diverging member
      this.famAxes = { calm: this.axesOver(calm.length ? calm : got, P), all: this.axesOver(got, P) };
      // the Metric view's scale: every member starts from X₀, so its first ball at the
      // family's largest ball (the smallest β of a β family)
      const metric = run.views.find((v) => v.kind === "metric");
      const row0 = got.length ? got[0].metric.find((r) => !r.some((v) => v === null)) : null;
      run.metricReach = metric && row0 ? Math.max(...(metric.beta_by_member || [metric.beta]).map((b) => Math.max(...metricAt(row0, b).radii))) : undefined;
    },

    axesOver(members, P) {
      const run = this.run;
      const panels = members.map((m) => convergencePanels({ ...run, ...m, hasNormal: true }, P));
      const ranges = panels[0].map((panel, j) => {
        const all = panels.flatMap((ps) => ps[j].series.map((s) => s.ys));
        return panel.log ? logRange(all) : linRange([].concat(...all));
      });
      let sigmaHi = 1.2;
      for (const m of members) for (const row of m.sigma) for (const v of row) if (isFinite(v) && v * 1.05 > sigmaHi) sigmaHi = v * 1.05;
      return { ranges, sigmaHi };
    },

    // draw member i (or the nearest received) at the iteration the user chose
    useMember(i) {
      const run = this.run, fam = run.family, n = fam.members.length;
      i = Math.max(0, Math.min(n - 1, i));
      let j = i;
      for (let d = 1; !fam.members[j] && d < n; d++) {
        if (i - d >= 0 && fam.members[i - d]) j = i - d;
        else if (i + d < n && fam.members[i + d]) j = i + d;
      }
      const m = fam.members[j];
      if (!m) return;
      for (const f of FIELDS) run[f] = m[f];
      fam.shown = j;
      const want = this.kWant !== undefined ? this.kWant : this.kf >= this.available ? Infinity : this.kf;
      this.kWant = want;
      this.kf = Math.min(want, this.available);
      run.ghosts = [];
      for (const d of GHOSTS) for (const g of [j - d, j + d]) if (g >= 0 && g < n && fam.members[g]) run.ghosts.push(fam.members[g]);
      this.memberViews(j);
      const P = this.P(), axes = m.status === "diverged" ? this.famAxes.all : this.famAxes.calm;
      if (run.sigmaHi !== axes.sigmaHi) { run.sigmaHi = axes.sigmaHi; if (run.view.kind === "sigma") this.background = null; }
      this.conv = convergencePanels(run, P).map((panel, k) => ({ ...panel, range: axes.ranges[k] }));
      this.slider.max = String(Math.max(0, run.cost.length - 1));
      if (this.famInput) {
        this.famInput.value = String(j);
        const text = `${fam.symbol} = ${fmt(m.value)}`;
        this.famInput.setAttribute("aria-valuetext", text);
        // on a loaded server the members can arrive seconds after the page says the family
        // was computed: until every one has, the line says how many are here
        const got = fam.members.filter(Boolean).length;
        this.famValue.textContent = `${text}  (run ${j + 1} of ${n}${got < n ? `; ${got} received so far` : ""})`;
        // the longer line keeps its width until the family is replaced: else the slider beside
        // it would narrow as the count appears and widen as it goes, moving the thumb mid-drag
        if (got < n) this.famValue.style.minWidth = `${Math.max(parseFloat(this.famValue.style.minWidth) || 0, this.famValue.scrollWidth)}px`;
      }
    },

    // what the views draw of member j besides its arrays: the plane's field of its ω, the
    // Metric view's ball g^β of its β
    memberViews(j) {
      const run = this.run;
      const plane = run.views.find((v) => v.kind === "plane");
      if (plane && plane.arrows_by_member) {
        plane.arrows = plane.arrows_by_member[j];
        if (run.view === plane) this.background = null;
      }
      const metric = run.views.find((v) => v.kind === "metric");
      if (metric && metric.beta_by_member) metric.beta = metric.beta_by_member[j];
    },

    // the scrubber: a range input named by the parameter's symbol, under the controls
    familyBar() {
      const fam = this.run.family;
      if (!this.famBox) {
        this.famInput = el("input", { type: "range", min: "0", step: "1", id: "lp-fam", class: "lp-fam-input" });
        this.famLabel = el("label", { for: "lp-fam", class: "lp-fam-label" });
        this.famValue = el("span", { class: "lp-fam-value", "aria-hidden": "true" });
        this.famBox = el("div", { class: "lp-family" }, [this.famLabel, this.famInput, this.famValue]);
        const style = el("style");
        style.textContent = `.lp-family { display: flex; align-items: center; gap: 10px; margin: 6px 0 2px; }
          .lp-family input { flex: 1 1 auto; accent-color: #0072B2; }
          .lp-fam-label { font-weight: 600; white-space: nowrap; }
          .lp-fam-value { white-space: nowrap; font-variant-numeric: tabular-nums; min-width: 12em; }`;
        document.head.appendChild(style);
        this.rootEl.insertBefore(this.famBox, this.nums);
        this.famKeys = el("span");
        this.famKeys.innerHTML = " · <kbd>[</kbd> <kbd>]</kbd> previous / next run of the family";
        this.keys.appendChild(this.famKeys);
        this.famInput.addEventListener("input", () => { this.useMember(+this.famInput.value); this.show(); });
        this.famInput.addEventListener("change", () => this.releaseMember());
        this.famInput.addEventListener("pointerdown", () => { this.kWant = this.kf >= this.available ? Infinity : this.kf; });
        this.pickSeq = 0;
      }
      const lo = fmt(fam.values[0]), hi = fmt(fam.values[fam.values.length - 1]);
      this.famInput.max = String(fam.values.length - 1);
      this.famInput.setAttribute("aria-label", `${fam.symbol}: family of ${fam.values.length} runs from ${lo} to ${hi}`);
      this.famLabel.textContent = `${fam.symbol} (${lo} … ${hi})`;
      this.famBox.style.display = "";
      this.famKeys.style.display = "";
    },

    hideFamily() {
      if (this.famBox) { this.famBox.style.display = "none"; this.famKeys.style.display = "none"; }
    },

    // [ and ]: one member down or up, released (``releaseMember``)
    stepMember(d) {
      const run = this.run;
      if (!run || !run.family) return;
      if (this.kWant === undefined) this.kWant = this.kf >= this.available ? Infinity : this.kf;
      this.useMember(run.family.shown + d);
      this.show();
      this.releaseMember();
    },

    // the value reaches the server (the sidebar, the URL) on release only, RELEASE_WAIT after
    // the last of a series: each release reruns the page, and a release sent per press would
    // meet the reruns of the presses before it
    releaseMember() {
      clearTimeout(this.releaseTimer);
      const id = this.run.id;
      this.releaseTimer = setTimeout(() => this.sendPick(id), RELEASE_WAIT);
    },

    // The server takes a release whose number is above the last it took: numbered from the
    // clock, a player the page re-created (a new iframe, in the same session) is heard at
    // once, where its count from 1 was ignored until it passed the old player's
    sendPick(id) {
      if (!this.run || this.run.id !== id || !this.run.family) return;  // another run came
      const fam = this.run.family;
      fam.sent.add(fam.shown);
      this.pickSeq = Math.max(this.pickSeq + 1, Date.now());
      this.host.request(fam.have, null, { pick: { i: fam.shown, seq: this.pickSeq } });
    },
  });
})(window.Landing = window.Landing || {});
