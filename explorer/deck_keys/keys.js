/* Landing Explorer's lecture keys (explorer/lecture.py): a presenter's clicker drives the deck.
 *
 * PageDown and PageUp (what clickers send for next and previous) open the next and previous
 * preset; "." and "b" (their blank-screen key) reveal the answer. The keys reach the server as
 * this component's value {action, seq}; seq grows with every press (it starts from the clock,
 * so that a new instance of this iframe never repeats an old value).
 *
 * It also folds the sidebar when the sidebar's toggle or a preset turns lecture mode on
 * (``fold``).
 *
 * This iframe is hidden (display: none). A key goes to whichever document has the focus: the
 * page around it, or another of the page's iframes (the player): the listener is attached to
 * each of them, since they share the page's origin. Only one instance listens at a time (the
 * page keeps a registry), or a key pressed after a page switch would act twice.
 */
(function () {
  "use strict";
  const ACTIONS = { PageDown: "next", PageUp: "prev", ".": "reveal", b: "reveal" };
  // where a key is typed, not a command: text fields, selects, Streamlit's sliders, the Compare
  // table (a grid: "." starts a number in a cell, PageDown scrolls it)
  const TYPING = "textarea, select, [contenteditable], [role=textbox], [role=combobox], [role=spinbutton], [role=listbox], [role=slider], [role=grid]";
  let seq = 0;
  const send = (type, extra) => window.parent.postMessage(Object.assign({ isStreamlitMessage: true, type }, extra), "*");

  function typing(t) {
    if (!t || !t.closest) return false;
    if (t.tagName === "INPUT") return t.type !== "range" && t.type !== "button" && t.type !== "checkbox" && t.type !== "radio";
    return !!t.closest(TYPING);
  }

  function handler(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    const action = ACTIONS[e.key];
    if (!action || typing(e.target)) return;
    e.preventDefault();
    seq = Math.max(seq + 1, Date.now());
    send("streamlit:setComponentValue", { value: { action, seq }, dataType: "json" });
  }

  let top = null;
  try { top = window.parent.document ? window.parent : null; } catch (err) { top = null; }
  const docs = new Set();
  function listen(doc) {
    if (!doc || docs.has(doc)) return;
    docs.add(doc);
    doc.addEventListener("keydown", handler);
  }
  function forget() {
    for (const doc of docs) { try { doc.removeEventListener("keydown", handler); } catch (err) { /* gone */ } }
    docs.clear();
  }
  // the registry: the instance that listens, and its iframe. Should that instance go (its
  // iframe removed) while another stays, as a page switch that mounts this component twice for
  // a moment can leave it, the one that stays claims the registry (``scan``): otherwise no key
  // would be heard until the page is loaded again
  function claim() {
    const old = top.__landingDeckForget;
    // an earlier instance (the page before a switch) stops listening; its document may be
    // gone, which must not keep this one from claiming
    if (old && old !== forget) { try { old(); } catch (err) { /* gone */ } }
    top.__landingDeck = handler;
    top.__landingDeckForget = forget;
    top.__landingDeckFrame = window.frameElement;
  }
  function scan() {
    if (!top) return;
    const owner = top.__landingDeckFrame;
    if (!top.__landingDeck || !owner || !owner.isConnected) claim();
    if (top.__landingDeck !== handler) return;
    listen(top.document);
    for (const frame of top.document.querySelectorAll("iframe")) {
      try { listen(frame.contentDocument); } catch (err) { /* another origin */ }
    }
  }

  listen(document);
  if (top) {
    claim();
    scan();
    setInterval(scan, 400);  // iframes come and go (the player is re-created with its page)
    window.addEventListener("pagehide", () => {
      if (top.__landingDeck === handler) { top.__landingDeck = null; top.__landingDeckForget = null; top.__landingDeckFrame = null; }
      forget();
    });
  }
  // the sidebar's toggle or a preset turning lecture mode on hands a new args.fold
  // (explorer/lecture.py):
  // fold the sidebar once for it, if open, with Streamlit's own button (which also records
  // the fold as the user's)
  function fold(n) {
    if (!top || !n || top.__landingFolded === n) return;
    top.__landingFolded = n;
    const bar = top.document.querySelector('[data-testid="stSidebar"]');
    const button = top.document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (!bar || !button || bar.getBoundingClientRect().right <= 0) return;
    // the button records the fold as the user's own choice, which Streamlit would then prefer
    // to the page config on every later load (a folded sidebar outside lecture mode): the
    // stored choices are put back as they were
    const store = top.localStorage, mine = (k) => k && k.startsWith("stSidebarCollapsed");
    const saved = {};
    try { for (let i = 0; i < store.length; i++) if (mine(store.key(i))) saved[store.key(i)] = store.getItem(store.key(i)); } catch (err) { /* no storage */ }
    button.click();
    try {
      for (let i = store.length - 1; i >= 0; i--) if (mine(store.key(i)) && !(store.key(i) in saved)) store.removeItem(store.key(i));
      for (const k of Object.keys(saved)) store.setItem(k, saved[k]);
    } catch (err) { /* no storage */ }
  }
  window.addEventListener("message", (event) => {
    if (!event.data || event.data.type !== "streamlit:render") return;
    send("streamlit:setFrameHeight", { height: 0 });
    fold((event.data.args || {}).fold);
  });
  send("streamlit:componentReady", { apiVersion: 1 });
})();
