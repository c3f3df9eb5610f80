/* Landing Explorer's player: its exports, a self-contained HTML file and an animated GIF
 * (methods of Landing.Player; after player.js). */
(function (L) {
  "use strict";
  const { legend, legendRows, num, sci } = L;

  Object.assign(L.Player.prototype, {
    payload() {
      // the whole run as one chunk, for the standalone file
      const r = this.run;
      if (r.family) return this.familyPayload();
      if (r.race) {  // the race as received, showing the view chosen here
        const a = this.raceArgs;
        return { ...a, header: { ...a.header, view: r.view ? r.view.kind : null } };
      }
      return {
        run_id: r.id, start: 0, done: r.done, status: r.status, message: r.message,
        header: this.exportHeader(),
        cost: r.cost, h: r.h, grad: r.grad, step: r.step, nstep: r.nstep, x: r.x, sigma: r.sigma, gram: r.gram,
        flow_sigma: r.flowSigma, flow_gram: r.flowGram, metric: r.metric, safe: r.safe,
        fstar: r.fstar.length ? r.fstar : null,
      };
    },

    // the header the server sent, as the player holds it (B: the panels name ‖XᵀBX − I‖)
    exportHeader() {
      const r = this.run;
      return { n: r.n, p: r.p, f_star: r.fStar, max_iter: r.maxIter, rate: r.rate, lecture: r.lecture, colorscale: this.headerScale, views: r.views, view: r.view.kind, B: r.B };
    },

    // the player's scripts in their order: this standalone file's inlined ones, or the files
    // index.html loads (a file that fails to load is left out, as the page did without it)
    async sources() {
      const inlined = document.querySelectorAll("script[data-lp]");
      if (inlined.length) return Array.from(inlined, (s) => s.textContent);
      const get = async (name) => { const r = await fetch(name); return r.ok ? r.text() : ""; };
      return Promise.all(Array.from(document.querySelectorAll("script[src]"), (s) => get(s.getAttribute("src"))));
    },

    // a family: every member as one chunk, the shown one selected (the file's scrubber)
    familyPayload() {
      const r = this.run, fam = r.family;
      return {
        run_id: r.id, start: 0, done: true, status: r.status, message: r.message,
        header: { ...this.exportHeader(),
          family: { param: fam.param, symbol: fam.symbol, values: fam.values, index: fam.shown, count: fam.members.length } },
        members: fam.members.map((m) => ({
          i: m.i, value: m.value, cost: m.cost, h: m.h, grad: m.grad, step: m.step, nstep: m.nstep, x: m.x, sigma: m.sigma, gram: m.gram,
          fstar: m.fstar.length ? m.fstar : null, flow_sigma: m.flowSigma, flow_gram: m.flowGram, metric: m.metric, status: m.status, message: m.message })),
      };
    },

    async exportHtml() {
      const fam = this.run && this.run.family;
      if (fam && fam.have < fam.members.length) { this.note("The family is still arriving: export it once every run is here."); return; }
      if (!this.run.done) return;  // its button is disabled until then (updateText)
      const src = await this.sources();
      const data = JSON.stringify(this.payload()).replace(/</g, "\\u003c");
      // the view's title, where there is a view (a race beyond n = 3 has none)
      const view = this.run.view;
      const title = "Landing Explorer" + (view && view.title ? `: ${view.title.replace(/</g, "&lt;")}` : "");
      const esc = (s) => s.replace(/<\/script/gi, "<\\/script");
      const html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>\n<body><div id="landing-player"></div>\n<script>window.LANDING_DATA = ${data};</script>\n${src.map((s) => `<script data-lp>${esc(s)}</script>\n`).join("")}</body></html>\n`;
      const name = fam ? "landing-family.html" : this.run.race ? "landing-race.html" : "landing-run.html";
      download(new Blob([html], { type: "text/html" }), name);
      this.note(`Saved ${name}: it plays offline in any browser` + (fam ? `, with its ${fam.symbol} scrubber.` : "."));
    },

    async exportGif() {
      if (!window.LandingGif || !this.run) return;
      const frames = Math.min(200, this.available + 1);
      this.note(`Making a ${frames}-frame GIF…`);
      await new Promise((r) => setTimeout(r, 30));
      const t0 = performance.now();
      const run = this.run, race = run.race, P = this.P();
      // a race names its rows in their colours in a band under the title; beyond n = 3 it
      // has no geometry view, and the panels take the whole width
      const W = 880, gw = run.view ? 380 : 0;
      const canvas = document.createElement("canvas");
      canvas.width = W;
      const rowItems = race ? race.rows.map((r) => ({ label: r.label, colour: r.colour })) : [];
      const band = race ? (P.font + 6) * legendRows(canvas.getContext("2d"), rowItems, P.font, W - 16) + 4 : 0;
      const H = 400 + band, top = 24 + band;
      canvas.height = H;
      const ctx = canvas.getContext("2d", { willReadFrequently: true });
      const saved = this.kf;
      const images = [];
      for (let i = 0; i < frames; i++) {
        this.kf = frames === 1 ? 0 : (i * this.available) / (frames - 1);
        ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, H);
        if (run.view) this.drawGeometry(ctx, { x: 0, y: top, w: gw, h: H - top }, false);
        this.drawConvergence(ctx, { x: gw && gw + 10, y: top, w: W - (gw && gw + 10), h: H - top }, false);
        const k = Math.floor(this.kf);
        ctx.fillStyle = "#111"; ctx.font = `600 ${P.font + 1}px sans-serif`; ctx.textAlign = "left"; ctx.textBaseline = "top";
        if (race) {
          const clock = race.against === "time" ? `${race.timeName} ${num(this.clockX(), 3)} s` : `k = ${k}`;
          ctx.fillText(`A race of ${race.rows.length} rows${run.view ? ": " + run.view.title : ""}   ${clock}`, 8, 4);
          legend(ctx, rowItems, 8, 24 + P.font / 2 + 4, P.font, W - 16);
        } else {
          ctx.fillText(`${run.view.title}   k = ${k}   ${run.B ? "‖XᵀBX − I‖" : "‖XᵀX − I‖"} = ${sci(run.h[k])}`, 8, 4);
        }
        images.push(ctx.getImageData(0, 0, W, H));
      }
      this.kf = saved;
      this.invalidate();
      const bytes = window.LandingGif.encode(images, { delayCs: 5, loop: 0 });
      const seconds = (performance.now() - t0) / 1000;
      this.stats.gif = { frames, seconds, bytes: bytes.length };
      const name = race ? "landing-race.gif" : "landing-run.gif";
      download(new Blob([bytes], { type: "image/gif" }), name);
      this.note(`Saved ${name}: ${frames} frames, ${(bytes.length / 1e6).toFixed(1)} MB, made in ${seconds.toFixed(1)} s.`);
    },
  });

  function download(blob, name) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
})(window.Landing = window.Landing || {});
