/* Landing Explorer's player: predict, then run (a lecture preset's question, explorer/lecture.py;
 * methods of Landing.Player wrapped, after player.js).
 *
 * While the page hides the answer, the header carries ask = {at: k}: the player goes no further
 * than iteration k (Run stops there, Step and the slider end there), its axes span only
 * iterations 0 to k, and no line tells how the run ends. Reveal sends ask = null: the rest of
 * the run plays on from where it stopped.
 */
(function (L) {
  "use strict";
  const { Player, logRange, linRange } = L;
  const P = Player.prototype;
  const base = { receive: P.receive, updateText: P.updateText, loop: P.loop, ranges: P.ranges };
  const available = Object.getOwnPropertyDescriptor(P, "available").get;

  // the iteration the question stops at, while the answer is hidden; else null
  function asked(player) {
    const a = player.run && player.run.ask;
    return a && Number.isInteger(a.at) ? a.at : null;
  }

  Object.defineProperty(P, "available", {
    configurable: true,
    get() {
      const all = available.call(this), at = asked(this);
      return at === null ? all : Math.min(all, at);
    },
  });

  Object.assign(P, {
    receive(args) {
      const before = this.run ? JSON.stringify(this.run.ask || null) : undefined;
      base.receive.call(this, args);
      // a family has no question; a race comes already cut at it (pages/compare.py)
      if (!this.run || args.header.family || args.header.race) return;
      const ask = args.header.ask || null;
      this.run.ask = ask;
      const at = asked(this);
      if (at !== null) this.run.xmax = Math.max(1, at);  // the axes end where the question stops
      this.slider.max = String(Math.max(0, this.available));
      if (!this.run.cost.length) return;  // a re-created player: its first chunk is on its way
      if (at !== null || JSON.stringify(ask) !== before) {
        this.kf = Math.min(this.kf, this.available);
        this.stale = false;
        this.ranges();
        this.background = null;
        this.convBack = null;
        this.show();
      }
    },

    ranges() {
      base.ranges.call(this);
      const at = asked(this);
      if (at === null) return;
      const upTo = (ys) => ys.slice(0, at + 1);  // what the class has seen so far
      this.conv = this.conv.map((panel) => ({
        ...panel,
        range: panel.log ? logRange(panel.series.map((s) => upTo(s.ys))) : linRange(upTo(panel.series[0].ys)),
      }));
    },

    loop(now) {
      base.loop.call(this, now);
      const at = asked(this);
      if (at !== null && this.playing && this.kf >= at) {  // a run still streaming: stop here too
        this.kf = at;
        this.playing = false;
        this.ended = true;
        this.updateText();
        this.invalidate();
      }
    },

    updateText() {
      base.updateText.call(this);
      const at = asked(this);
      if (at === null || this.playing) return;
      const k = Math.min(Math.floor(this.kf), this.available);
      const text = k >= at ? `Stopped at k = ${at} for the question: predict, then Reveal.`
        : k === 0 && !this.paused ? "Ready: press Run to watch the iterations, or Step to take one." : null;
      if (text === null) return;
      this.status.textContent = text;
      this.status.title = text;
      this.status.className = "lp-status";
      this.btn.step.disabled = k >= at;
    },
  });
})(window.Landing = window.Landing || {});
