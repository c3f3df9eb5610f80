/* Landing Explorer's player: its hosts, a Streamlit components.v1 iframe or a standalone file
 * (window.Landing; loaded last). */
(function (L) {
  "use strict";
  const { Player } = L;

  // ------------------------------------------------------------------ hosts

  function boot() {
    const root = document.getElementById("landing-player");
    if (window.LANDING_DATA) {
      // standalone: an exported file (its scripts inlined, for exports from the export)
      const player = new Player(root, { request() {}, height() {}, standalone: true });
      player.headerScale = window.LANDING_DATA.header.colorscale;
      player.receive(window.LANDING_DATA);
      window.landingPlayer = player;
      return;
    }
    const send = (type, extra) => window.parent.postMessage(Object.assign({ isStreamlitMessage: true, type }, extra), "*");
    let lastHeight = 0, asked = -1, askedView = null;
    const host = {
      // extra: more of the value (a family's pick, family.js), sent even when have and the
      // view are unchanged
      request(have, view, extra) {
        const v = view || (player.run && player.run.view ? player.run.view.kind : null);
        if (have === asked && v === askedView && !extra) return;
        asked = have; askedView = v;
        send("streamlit:setComponentValue", { value: Object.assign({ run_id: player.run ? player.run.id : null, have, view: v }, extra || {}), dataType: "json" });
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
      if (args.held !== undefined) { player.receiveHeld(args); return; }  // race.js
      player.headerScale = args.header.colorscale;
      if (player.run && player.run.id !== args.run_id) asked = -1;
      player.receive(args);
      player.layout();
    });
    send("streamlit:componentReady", { apiVersion: 1 });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})(window.Landing = window.Landing || {});
