/* Landing Explorer's player: plays a computed landing run in the browser.
 *
 * The server computes the run (or streams it in chunks) and hands over the whole trajectory once;
 * every animation frame is drawn here on <canvas>, so Run, Pause, Step, Reset, the replay slider
 * and the keys (Space, →, ←, Home) never wait for the server. Canvas rather than plotly.js: plotly
 * cannot redraw a 3-D scene and three panels at the animation's frame rate (benchmarks/RESULTS.md).
 *
 * Two modes (host.js): inside Streamlit (a components.v1 iframe: the "streamlit:" messages), or
 * standalone, in an exported HTML file that sets window.LANDING_DATA before the scripts.
 *
 * The player is split into classic scripts sharing one namespace, window.Landing, loaded in
 * the order index.html lists them: axes.js, views.js, player.js (this file), exports.js, host.js.
 */
(function (L) {
  "use strict";
  const { PALETTE, VIEWS, camera, convergencePanels, cursor, dot, dotGap, drawAxes, drawSeries, el, emptiestCorner, floorMark, legend, legendRows, linRange, logRange, makeChart, makeScale, num, projector, sci } = L;

  // the top of the player's frame in the page's content, however far the page is scrolled:
  // Streamlit scrolls its main area, not the window, and a layout that followed the reader's
  // scrolling grew the player under the pointer (and moved everything below it)
  function pageTop(frame) {
    let top = frame.getBoundingClientRect().top + (window.parent.scrollY || 0);
    for (let box = frame.parentElement; box; box = box.parentElement) top += box.scrollTop;
    return top;
  }

  // the height the player's content needs: its body and the body's margins. Not the document's
  // scrollHeight, which is at least the frame's own height: a frame made tall once (the first
  // layout, at an iframe's default 300 px width, stacks the panels) then never shrank, leaving
  // a blank screen below a family's player
  function contentHeight() {
    const body = document.body, style = getComputedStyle(body);
    return Math.ceil(body.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom));
  }

  // ------------------------------------------------------------------ the player

  const CSS = `
  .lp { font-family: "Source Sans Pro", "Source Sans 3", sans-serif; color: #111; font-size: var(--lp-font, 15px); }
  .lp * { box-sizing: border-box; }
  .lp-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 8px; }
  .lp button { font: inherit; padding: 4px 12px; border-radius: 8px; border: 1px solid #bbb; background: #fff; cursor: pointer; min-height: 34px; }
  .lp button:hover:not(:disabled) { border-color: ${PALETTE[1]}; color: ${PALETTE[1]}; }
  .lp button:focus-visible { outline: 3px solid ${PALETTE[0]}; outline-offset: 1px; }
  .lp button.lp-primary { background: ${PALETTE[1]}; border-color: ${PALETTE[1]}; color: #fff; }
  .lp button.lp-primary:hover:not(:disabled) { color: #fff; filter: brightness(1.08); }
  .lp button:disabled { opacity: 0.45; cursor: default; }
  .lp-slider { display: flex; align-items: center; gap: 8px; flex: 1 1 220px; min-width: 180px; }
  .lp-slider input { flex: 1; accent-color: ${PALETTE[1]}; }
  .lp-slider label { white-space: nowrap; }
  .lp-export { display: flex; gap: 6px; align-items: center; color: #555; font-size: 0.88em; }
  .lp-export button { min-height: 28px; padding: 2px 10px; }
  .lp-foot { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: 4px 16px; margin-top: 4px; }
  .lp-nums { display: flex; flex-wrap: wrap; gap: 2px 14px; margin: 6px 0 2px; font-variant-numeric: tabular-nums; }
  .lp-nums span { white-space: nowrap; }
  .lp-nums b { font-weight: 600; }
  .lp-status { margin: 2px 0 4px; padding: 3px 10px; border-radius: 6px; background: #eef4fb; }
  .lp-status.converged { background: #e7f6ec; } .lp-status.diverged { background: #fde8e8; } .lp-status.max_iter { background: #fff6dd; }
  .lp-panels { display: flex; gap: 10px; align-items: flex-start; }
  .lp-panels.stacked { flex-direction: column; }
  .lp-panels > div { position: relative; }
  .lp canvas { display: block; touch-action: none; }
  .lp-head { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; min-height: 30px; }
  /* the tabs wrap in a narrow geometry box (five views at a 1024-pixel window) rather than
     run under the convergence panel beside it */
  .lp-tabs { display: flex; flex-wrap: wrap; row-gap: 4px; max-width: 100%; }
  .lp-tabs button { min-height: 28px; padding: 2px 10px; border-radius: 0; margin-left: -1px; font-size: 0.9em; }
  .lp-tabs button:first-child { border-radius: 8px 0 0 8px; } .lp-tabs button:last-child { border-radius: 0 8px 8px 0; }
  .lp-tabs button.on { background: #eef4fb; border-color: ${PALETTE[0]}; color: ${PALETTE[0]}; position: relative; }
  .lp-title { font-weight: 600; margin: 0 0 2px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .lp-caption { color: #555; margin: 2px 0 0; font-size: 0.88em; }
  .lp-keys { color: #555; font-size: 0.88em; margin: 0; }
  .lp { position: relative; }
  /* one line where it fits, wrapped on a phone (one line ran off both sides of its screen) */
  .lp-toast { position: absolute; left: 50%; top: 96px; transform: translateX(-50%); background: rgba(20,20,20,0.88); color: #fff; padding: 10px 18px; border-radius: 10px; opacity: 0; pointer-events: none; transition: opacity 0.6s; width: max-content; max-width: calc(100% - 16px); text-align: center; z-index: 2; }
  .lp-toast.on { opacity: 1; }
  .lp-toast kbd { border: 1px solid #aaa; border-radius: 4px; padding: 0 5px; font: inherit; white-space: nowrap; }
  .lp-keys kbd { border: 1px solid #bbb; border-radius: 4px; padding: 0 4px; background: #f7f7f7; font: inherit; }
  `;

  const HTML_TITLE = "A self-contained HTML file that plays offline";

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
      this.btnHtml = el("button", { type: "button", title: HTML_TITLE, text: "HTML" });
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
      // the hint has served once the keys or the player are used: it goes then, not 7 s later
      this.rootEl.addEventListener("pointerdown", () => this.toast.classList.remove("on"));
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
      // frames only while something moves (playing, a camera drag, a redraw asked for): an idle
      // player costs no CPU, where a loop on every frame kept a lecture laptop's core busy
      this.frame = null;
      this.loop = this.loop.bind(this);
      this.wake();
      setInterval(() => this.checkPlacement(), 500);
    }

    // a frame is asked for once, however many changes ask before it comes
    wake() {
      if (this.frame === null) this.frame = requestAnimationFrame(this.loop);
    }

    // redraw on the next frame
    invalidate() {
      this.dirty = true;
      this.wake();
    }

    // ---- data

    receive(args) {
      const h = args.header;
      if (h.family && this.receiveFamily) { this.stale = false; this.receiveFamily(args); return; }
      if (h.race && this.receiveRace) { this.receiveRace(args); return; }
      const fresh = !this.run || this.run.id !== args.run_id;
      if (fresh && args.start > 0) { this.askFromStart(); return; }
      if (fresh) {
        if (this.hideFamily) this.hideFamily();
        this.run = {
          id: args.run_id, n: h.n, p: h.p, fStar: h.f_star, maxIter: h.max_iter,
          cost: [], gap: [], h: [], grad: [], step: [], nstep: [], x: [], sigma: [], gram: [], fstar: [],
          flowSigma: [], flowGram: [], metric: [], safe: [],
          done: false, status: "running", message: "", view: null, hasNormal: false, xmax: h.max_iter,
        };
        this.kf = 0;
        this.playing = false;
        this.ended = false;
        this.costScale = makeScale(h.colorscale);
      }
      const run = this.run;
      this.takeHeader(h, fresh);
      const have = run.cost.length;
      if (args.start > have) { this.host.request(have); return; }
      const skip = have - args.start;
      const take = (dst, src) => { if (src) for (let i = skip; i < src.length; i++) dst.push(src[i]); };
      take(run.cost, args.cost); take(run.h, args.h); take(run.grad, args.grad);
      take(run.step, args.step); take(run.nstep, args.nstep);
      take(run.x, args.x); take(run.sigma, args.sigma); take(run.gram, args.gram); take(run.fstar, args.fstar);
      take(run.flowSigma, args.flow_sigma); take(run.flowGram, args.flow_gram);
      take(run.metric, args.metric); take(run.safe, args.safe);
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

    // a new run's first chunk that starts past k = 0: the server sends from what the page's
    // last player said it held (a player re-created by a rerun holds nothing; a rerun's
    // payload can overtake the first). The player asks for the run from its start and keeps
    // what it shows until then: a run taken without its first iterate has no axes and no
    // camera, which a layout (a resize, the page moving) would draw
    askFromStart() {
      this.host.request(0);
    }

    // what a header (a run's or a family's) says of how the run is shown: its rate, lecture
    // mode, constraint (B: the run keeps to XᵀBX = I, the labels of h say so) and views
    takeHeader(h, fresh) {
      const run = this.run;
      run.rate = h.rate;
      run.lecture = !!h.lecture;
      run.B = !!h.B;
      run.views = h.views;
      run.view = this.chooseView(h, fresh);
      this.present();
    }

    // the view to show: the player's own choice once made (a tab) while the run is the same,
    // else the page's (a link's view=); null where the header has none (a race beyond n = 3)
    chooseView(h, fresh) {
      const own = fresh || !this.run ? null : this.run.view;
      const keep = own && h.views.some((v) => v.kind === own.kind);
      return h.views.find((v) => v.kind === (keep ? own.kind : h.view)) || h.views[0] || null;
    }

    // lecture mode's larger text, without the keys' line (a hint once instead), and the tabs
    present() {
      const run = this.run;
      this.rootEl.style.setProperty("--lp-font", run.lecture ? "19px" : "15px");
      this.keys.style.display = run.lecture ? "none" : "";
      if (run.lecture) this.hintOnce();
      this.makeTabs();
    }

    aim() {
      const run = this.run;
      if (!run.view) return;  // a race beyond n = 3: the convergence panels alone
      const key = run.view.kind + run.id;
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
      if (!run.race) this.host.request(run.cost.length, kind);  // the page keeps the choice (and the URL)
    }

    ranges() {
      if (this.run.race) { this.raceRanges(); return; }
      const run = this.run, P = this.P();
      this.conv = convergencePanels(run, P).map((panel) => ({
        ...panel,
        range: panel.log ? logRange(panel.series.map((s) => s.ys)) : linRange(panel.series[0].ys),
      }));
    }

    get available() { return this.run ? (this.run.race ? this.run.race.C : this.run.cost.length - 1) : 0; }

    // the keys, once per browser tab, over the view (a lecture shows no footnotes)
    hintOnce() {
      let seen = false;
      try { seen = sessionStorage.getItem("landing-keys-hint") === "1"; sessionStorage.setItem("landing-keys-hint", "1"); } catch (err) { /* storage off */ }
      if (seen || this.toastShown) return;
      this.toastShown = true;
      // over the top of the geometry view, where it hides an axis label for 7 s or until the
      // first key or click (bindKeys, the constructor): not over the status line, which says
      // what the run does, nor below the first screen. Placed once the page has laid the view
      // out (present() runs before); until then, the CSS's place
      const place = () => {
        const box = this.geoCanvas.getBoundingClientRect(), root = this.rootEl.getBoundingClientRect();
        if (!(box.height > 0)) return;
        const half = this.toast.offsetWidth / 2;  // centred on the view, within the player
        const x = Math.min(Math.max(box.left + box.width / 2 - root.left, half), root.width - half);
        this.toast.style.top = `${box.top - root.top + 8}px`;
        this.toast.style.left = `${x}px`;
      };
      requestAnimationFrame(() => requestAnimationFrame(place));
      this.toast.classList.add("on");
      setTimeout(() => this.toast.classList.remove("on"), 7000);
    }

    // ---- controls

    play() {
      if (!this.run) return;
      this.kWant = undefined;
      if (this.kf >= this.available && this.run.done) this.kf = 0;
      this.playing = true;
      this.ended = false;
      this.last = null;
      if (!this.run.rate) this.kf = this.available;
      this.show();
      this.wake();
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
      this.kWant = undefined;
      this.playing = false;
      this.ended = false;
      this.kf = Math.max(0, Math.min(this.available, Math.floor(this.kf) + dk));
      this.paused = true;
      this.show();
    }
    reset() {
      this.kWant = undefined;
      this.playing = false;
      this.paused = false;
      this.ended = false;
      this.kf = 0;
      this.show();
    }
    seek(k) {
      this.kWant = undefined;
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
        const member = e.key === "[" || e.key === "]";  // a family's scrubber (family.js)
        if (mine && t.tagName === "INPUT" && t !== this.slider && !(member && t === this.famInput)) return;
        const act = { " ": () => this.toggle(), ArrowRight: () => this.step(1), ArrowLeft: () => this.step(-1), Home: () => this.reset(),
          "[": () => this.stepMember && this.stepMember(-1), "]": () => this.stepMember && this.stepMember(1) }[e.key];
        if (!act) return;
        e.preventDefault();
        this.toast.classList.remove("on");
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
        // the view may have changed under the drag (a tab, a clicker's next preset: a new
        // run): the drag ends with the 3-D view it turned
        const view = this.run && this.run.view, key = view && view.kind + this.run.id;
        const c = key && VIEWS[view.kind].three ? this.cams[key] : undefined;
        if (!c) { from = null; return; }
        this.cams[key] = camera(c.theta - (e.clientX - from[0]) * 0.01, Math.max(-1.5, Math.min(1.5, c.phi + (e.clientY - from[1]) * 0.01)));
        from = [e.clientX, e.clientY];
        this.background = null;
        this.invalidate();
      });
      const end = () => { from = null; };
      this.geoCanvas.addEventListener("pointerup", end);
      this.geoCanvas.addEventListener("pointercancel", end);
    }

    // ---- layout and drawing

    P() {
      const lecture = this.run && this.run.lecture;
      return {
        palette: PALETTE, scale: this.costScale || ((t) => [t * 255, t * 255, t * 255]),
        font: lecture ? 17 : 13, thick: lecture ? 4.5 : 3, thin: lecture ? 2.5 : 1.5, marker: lecture ? 9 : 6, pad: 18,
      };
    }

    layout() {
      const width = Math.max(320, document.documentElement.clientWidth - 2);
      const side = width >= 520, geometry = !!(this.run && this.run.view);
      this.geoBox.style.display = geometry ? "" : "none";
      this.panels.classList.toggle("stacked", !side);
      // the panels fill what is left of the window below the player's top, within bounds, so
      // the controls, the view and the curves share one screen (a projector's 720 rows)
      let room = 560;
      try {
        const frame = window.frameElement;
        if (frame) {
          const top = pageTop(frame);
          this.placed = [top, window.parent.innerHeight];
          const above = this.panels.getBoundingClientRect().top + this.geoHead.offsetHeight;
          room = window.parent.innerHeight - top - above - 12;
        }
      } catch (err) { /* standalone or another origin */ }
      let gw, gh, cw, ch;
      if (side) {
        gh = ch = Math.round(Math.max(260, Math.min(room, 0.5 * width, 640)));
        gw = Math.round(Math.min(width * (width < 760 ? 0.5 : 0.46), gh * 1.25));
        cw = geometry ? width - gw - 12 : width;
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
      this.host.height(contentHeight());
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
      if (run.race) { this.raceText(); return; }
      const k = Math.min(Math.floor(this.kf), this.available);
      this.slider.value = String(k);
      this.kLabel.textContent = `k = ${k}`;
      this.nums.innerHTML = "";
      // each number in a box as wide as its longest form (num's 10 digits with a sign and a
      // leading 0.0, sci's "-1.234e-16"), and η's cell at k = 0 too: the line wraps where the
      // player's width says, not where a value grows a digit, so the views below it keep
      // their place mid-run
      const cell = (label, value, chars, hint) => {
        const s = el("span");
        s.innerHTML = `${label} <b style="display: inline-block; min-width: ${chars}ch">${value}</b>`;
        if (hint) s.title = hint;
        this.nums.appendChild(s);
      };
      cell("iteration k", String(k), String(run.maxIter || k).length);
      cell("f(X<sub>k</sub>)", num(run.cost[k], 10), 13);
      if (run.fStar !== null) cell("f − f*", sci(run.cost[k] - this.fStarAt(k)), 10);
      cell(run.B ? "‖X<sub>k</sub><sup>T</sup>BX<sub>k</sub> − I‖<sub>F</sub>" : "‖X<sub>k</sub><sup>T</sup>X<sub>k</sub> − I‖<sub>F</sub>", sci(run.h[k]), 9);
      // the stationarity of every method (geometry.stationarity; stationarity_B on XᵀBX = I),
      // as the Compare page names it
      cell(run.B ? "‖grad<sub>1</sub><sup>B</sup> f‖" : "‖grad<sub>1</sub> f‖", sci(run.grad[k]), 9,
           "stationarity: the Riemannian gradient on the layer through Xₖ in the β = 1 metric" + (run.B ? " for B" : ""));
      cell("η<sub>k−1</sub>", k > 0 ? sci(run.step[k]) : "—", 9);
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
      // a file saved mid-run would hold the iterations so far and, with no server to ask for
      // the rest, say "computing the next iterations" for ever: as the History (CSV), the
      // HTML file waits for the whole run
      this.btnHtml.disabled = !run.done;
      this.btnHtml.title = run.done ? HTML_TITLE : "Available once the run is computed.";
      const v = run.view;
      // with tabs the title would be cut beside them: it leads the caption instead
      const tabs = run.views.length > 1;
      this.geoTitle.textContent = tabs ? "" : v.title || "";
      this.geoCaption.innerHTML = "";
      if (tabs) this.geoCaption.appendChild(el("b", { text: (v.title || "") + ". " }));
      this.geoCaption.appendChild(document.createTextNode(v.caption || ""));
    }

    loop(now) {
      this.frame = null;
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
      if (this.playing) this.wake();
    }

    // the page above moved the player, or the window's height changed: lay it out again
    checkPlacement() {
      try {
        const frame = window.frameElement;
        const top = frame ? pageTop(frame) : 0;
        const tall = window.parent.innerHeight;
        if (this.placed && (Math.abs(top - this.placed[0]) > 4 || tall !== this.placed[1])) this.layout();
      } catch (err) { /* standalone */ }
    }

    drawNow() {
      this.dirty = false;
      if (!this.run || !this.size) return;
      if (this.run.view) this.drawGeometry(this.geoCanvas.getContext("2d"), { x: 0, y: 0, w: this.size.gw, h: this.size.gh }, true);
      this.drawConvergence(this.convCanvas.getContext("2d"), { x: 0, y: 0, w: this.size.cw, h: this.size.ch }, true);
      this.stats.frames++;
    }

    drawGeometry(ctx, box, cached) {
      const run = this.run, view = VIEWS[run.view.kind], P = this.P();
      if (!view) return;
      const cam = this.cams[run.view.kind + run.id];
      // a header can turn a run to a view whose chunk the player must ask again for
      // (receive returns before aim()): the 3-D view waits for the camera its data aims
      if (view.three && !cam) return;
      // the legend and the room it leaves, measured (measureText) when the view is drawn
      // afresh, not every frame
      const frame0 = () => {
        const items = run.race ? this.raceLegend(view, P) : view.legend(P, run);
        return { items, inner: { x: box.x, y: box.y, w: box.w, h: box.h - (P.font + 6) * legendRows(ctx, items, P.font, box.w - 16) - 8 } };
      };
      if (cached) {
        if (!this.background) {
          const { items: legendItems, inner } = frame0();
          const off = document.createElement("canvas");
          const dpr = window.devicePixelRatio || 1;
          off.width = Math.round(box.w * dpr); off.height = Math.round(box.h * dpr);
          const octx = off.getContext("2d");
          octx.setTransform(dpr, 0, 0, dpr, 0, 0);
          octx.fillStyle = "#fff"; octx.fillRect(0, 0, box.w, box.h);
          const frame = view.background(octx, inner, run, P, cam);
          legend(octx, legendItems, box.x + 8, inner.y + inner.h + P.font / 2 + 4, P.font, box.w - 16);
          this.background = { off, frame, inner };
        }
        ctx.save();
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.drawImage(this.background.off, 0, 0);
        ctx.restore();
        this.moving(ctx, view, this.background.frame, P, this.background.inner);
      } else {
        const { items: legendItems, inner } = frame0();
        ctx.fillStyle = "#fff"; ctx.fillRect(box.x, box.y, box.w, box.h);
        const frame = view.background(ctx, inner, run, P, cam);
        legend(ctx, legendItems, box.x + 8, inner.y + inner.h + P.font / 2 + 4, P.font, box.w - 16);
        this.moving(ctx, view, frame, P, inner);
      }
      this.stats.draws.geometry++;
    }

    // the moving part of the view: the run's X_k, or every row's of a race (race.js), within
    // the view's plot (its frame's clip, else the box above the legend): a view's reach is
    // capped (playback.py, VIEW_REACH), and a diverging run's iterates leave it rather than
    // run over the legend, the ticks or the colour bar
    moving(ctx, view, frame, P, inner) {
      const c = frame.clip || inner;
      ctx.save();
      ctx.beginPath(); ctx.rect(c.x, c.y, c.w, c.h); ctx.clip();
      if (this.run.race) this.raceMoving(ctx, view, frame, P);
      else view.moving(ctx, frame, this.run, this.kf, P);
      ctx.restore();
    }

    convLayout(box, P) {
      const rowH = (box.h - 3 * P.font - 40) / 3;
      const vertical = rowH >= 4.5 * P.font || box.w / 3 < 13 * P.font;
      // the tick labels' margin: "1.95×10⁻¹⁰" (seven characters' width at the font's mean
      // advance: its exponent is small) and the gap that keeps them clear of the current
      // value's dot, beyond drawAxes' default 4 px
      const left = 7 * P.font * 0.62 + 14 + (dotGap(P) - 4);
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
        const race = this.run.race;  // a race's x axis: the iterations or the time
        const chart = makeChart(rect, 0, race ? race.xmax : this.run.xmax, panel.range[0], panel.range[1], panel.log);
        // a title spans its panel (the last one's to the box's right edge); side by side, it
        // may start in the panel's tick labels' margin, which the previous title leaves free
        chart.titleRoom = vertical || i === n - 1 ? box.x + box.w - rect.x - 4 : rect.w + 2;
        chart.titleSlack = vertical ? 0 : left - 6;
        charts.push(chart);
      }
      return { vertical, charts };
    }

    drawConvergence(ctx, box, cached) {
      const P = this.P();
      const { vertical, charts } = this.convLayout(box, P);
      const legends = [];
      const paintBack = (c) => {
        c.fillStyle = "#fff"; c.fillRect(box.x, box.y, box.w, box.h);
        charts.forEach((chart, i) => {
          const panel = this.conv[i];
          const last = vertical ? i === charts.length - 1 : true;
          const xtitle = this.run.race ? this.run.race.xtitle : "iteration k";
          // iterations are whole numbers (a run that diverges at once spans k = 0 to 2)
          const xint = !(this.run.race && this.run.race.against === "time");
          const items = panel.series.map((s) => ({ label: s.label, colour: s.colour, dash: s.dash }));
          // a race's rows are named above the panels
          const spot = items.length > 1 && !this.run.race ? this.legendSpot(c, chart, panel, items, P) : null;
          const title = spot && spot.place === "title" ? null : panel.title;
          // the y labels clear of the current value's dot, which sits on the frame at k = 0
          drawAxes(c, chart, { font: P.font, title, titleRoom: chart.titleRoom, titleSlack: chart.titleSlack, xlabels: last, xtitle: last ? xtitle : null, xint, ygap: dotGap(P) });
          legends[i] = spot;
          if (spot) {
            if (spot.place === "corner") {
              c.save();
              c.fillStyle = "rgba(255,255,255,0.85)";
              c.fillRect(spot.x, spot.y, spot.w, spot.h);
              c.restore();
            }
            legend(c, items, spot.x + spot.inset, spot.y + 4 + P.font / 2, P.font, spot.wrap);
          }
        });
        this.legends = legends;  // where each panel's legend went (the browser tests read it)
        this.titles = charts.map((chart) => chart.title && { ...chart.title, left: chart.rect.x - chart.titleSlack, right: chart.rect.x + chart.titleRoom });
        this.yticks = charts.map((chart) => chart.yticks);
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
      }
      // a race's series: each row's own place (rowKf, race.js) against its iterations or
      // its time (s.xs), the cursor at the race's clock; drawn up to the last vertex
      // drawn on a trail canvas kept between frames (race.js), only their heads here
      const upto = (s) => (s.row === undefined ? this.kf : this.rowKf(s.row));
      const trail = cached && this.run.race ? this.convTrail(charts, P, upto) : null;
      if (cached) {
        ctx.save();
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.drawImage(trail ? trail.off : this.convBack.off, 0, 0);
        ctx.restore();
      } else paintBack(ctx);
      const clock = this.run.race ? this.clockX() : this.kf;
      const heads = [];
      charts.forEach((chart, i) => {
        this.conv[i].series.forEach((s, j) => drawSeries(ctx, chart, s.ys, upto(s), {
          colour: s.colour, width: P.thick, dash: s.dash, xs: s.xs, from: trail ? trail.k[i][j] : 0, cap: trail ? "round" : undefined }));
        cursor(ctx, chart, clock);
        heads[i] = { dots: 0, zeros: 0 };
        for (const s of this.conv[i].series) {
          const k = Math.min(Math.floor(upto(s)), this.available, s.ys.length - 1), y = s.ys[k];
          if (y === null || !isFinite(y)) continue;
          const x = chart.X(s.xs ? s.xs[k] : k);
          if (!chart.ylog || y > 0) {
            dot(ctx, x, chart.Y(y), P.marker - 2, s.colour, "#000");
            heads[i].dots++;
          } else if (y === 0) {  // f − f* = 0 exactly (a run can end there): no place on a log axis
            floorMark(ctx, x, chart.rect.y + chart.rect.h, P.marker - 2, s.colour, P.font);
            heads[i].zeros++;
          }
        }
      });
      this.heads = heads;  // each panel's current points: dots, and zeros on its floor (tests)
      this.stats.draws.convergence++;
    }

    // where a panel's legend goes, over none of its curves when it can (place): "beside" the
    // title, above the plot area, when that row holds both; else a "corner" of the plot area,
    // in one row or one item a row, that hides none of the curves (all the data held up to
    // the x axis' end: the legend stays put while they grow, moves when new data do);
    // else in the "title"'s place (its labels name the same quantities); else the corner
    // that hides the least. x, y, w, h: its box; inset: from the box's left to the first
    // swatch; wrap: the width legend() wraps at
    legendSpot(c, chart, panel, items, P) {
      c.save();
      c.font = `${P.font}px sans-serif`;
      // legend() gives each item 26 px of swatch and gap, its label and 14 px after it
      const widths = items.map((it) => 40 + c.measureText(it.label).width);
      c.font = `600 ${P.font}px sans-serif`;
      const title = c.measureText(panel.title).width;
      c.restore();
      const r = chart.rect, row = P.font + 8, pad = 3;
      const w = widths.reduce((a, b) => a + b, 0) - 14, wide = Math.max(...widths) - 14;
      // above the plot area, the text's middle near the title's (whose text ends 4 px above it)
      const y = r.y - 2 - row;
      if (title + 2 * P.font + w <= r.w) return { x: r.x + r.w - w, y, w, h: row, inset: 0, wrap: w + 20, place: "beside" };
      // the curves up to the x axis' end: a question's axes end where it stops (question.js),
      // and the legend must not tell where the hidden rest goes
      const shown = panel.series.map((s) => ({ ...s, ys: s.ys.slice(0, Math.floor(chart.xhi) + 1) }));
      const corners = [[w + 10, row, w + 20], [wide + 10, row + (items.length - 1) * (P.font + 6), wide + 1]]
        .filter(([bw, bh]) => bw + 2 * pad <= r.w && bh + 2 * pad <= r.h)
        .map(([bw, bh, wrap]) => ({ ...emptiestCorner(chart, shown, bw, bh, pad, P.thick / 2 + 1), inset: 5, wrap, place: "corner" }));
      const clear = corners.find((spot) => spot.hidden === 0);
      if (clear) return clear;
      if (w <= r.w) return { x: r.x, y, w, h: row, inset: 0, wrap: w + 20, place: "title" };
      return corners.reduce((a, b) => (b.hidden < a.hidden ? b : a), corners[0]) || { x: r.x, y, w, h: row, inset: 0, wrap: r.w, place: "title" };
    }

    rangeKey() {
      return JSON.stringify([this.conv.map((c) => c.range), this.run.xmax, this.size]);
    }

    fStarAt(k) {
      // f* of iterate k's component of O(n) (p = n: a long step can cross), else the run's f*
      const r = this.run;
      return r.fstar.length > k ? r.fstar[k] : r.fStar;
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

  Object.assign(L, { Player });
})(window.Landing = window.Landing || {});
