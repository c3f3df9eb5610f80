/* Landing Explorer's player: the one DOM helper its scripts share (window.Landing; loaded
 * before player.js, family.js and race.js). */
(function (L) {
  "use strict";

  // an element with attributes ("text": its text) and children
  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const c of children || []) e.appendChild(c);
    return e;
  }

  Object.assign(L, { el });
})(window.Landing = window.Landing || {});
