"""User text shown as text: the one place that makes a string from a visitor harmless.

Strings that come from a visitor (URL values, compare labels, file names, a file's contents)
reach four kinds of sink, each with its own escaping:

- ``markdown``: every Streamlit element that renders Markdown (``st.markdown``, captions,
  alerts, expander and widget labels). CommonMark lets a backslash escape any ASCII
  punctuation character and then shows the character alone, so escaping all of them disables
  links, images, emphasis, headings, raw HTML, ``$…$`` maths (KaTeX) and Streamlit's
  ``:red[…]`` directives, while the reader sees the text exactly as typed, without
  backslashes. GFM's literal autolinks (``https://…``, ``www.…``, ``a@b.c``) are found later,
  in the text with its escapes already resolved: an invisible word joiner inside each ``://``
  and ``www.`` and after each ``@`` breaks them.
- ``html``: plotly trace names and hover text, where plotly renders a subset of HTML
  (``<a href>``, ``<span style>``, ``<br>``): ``&``, ``<`` and ``>`` as entities.
- ``csv_cell``: a cell of a CSV that a spreadsheet may open: a leading ``=``, ``+``, ``-``,
  ``@``, tab or carriage return starts a formula there (``=HYPERLINK(…)``), so such a cell
  gets a leading apostrophe, the spreadsheet convention for "this is text".
- tables (``st.dataframe``, ``st.data_editor``) show cells as plain text: they need ``label``
  (one line, bounded, CSV-safe), not escaping.

``plain`` and ``quote`` bound a value before it enters a message: a 100 000-character URL
value is echoed as its first few dozen characters.
"""

from __future__ import annotations

import re
import unicodedata

QUOTE_MAX = 40  # characters of a visitor's value echoed in a message
LABEL_MAX = 80  # characters of a compare row's label

# ASCII punctuation: exactly the characters CommonMark's backslash escape applies to
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# Unicode format characters that reorder or hide text (bidi overrides and isolates, zero-width
# marks): a label could otherwise display differently from what it holds
_HIDDEN = {cp: None for cp in (*range(0x200B, 0x2010), *range(0x202A, 0x202F), 0x2060,
                               *range(0x2066, 0x206A), 0xFEFF)}
_JOINER = "\u2060"  # WORD JOINER: zero width, no break opportunity
_AUTOLINK_START = re.compile(r"(?<=:)(?=//)|(?<=@)|(?<=www)(?=\.)", re.IGNORECASE)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _one_line(text: str) -> str:
    """Control characters (newlines, tabs, NUL …) as spaces; hidden format characters gone."""
    text = text.translate(_HIDDEN)
    return "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)


def _shown(value: object, show=str) -> str:
    try:
        return show(value)
    except ValueError:  # an int beyond Python's digit limit for str()
        return f"<a {type(value).__name__} too long to show>"


def plain(value: object, limit: int = QUOTE_MAX) -> str:
    """``str(value)`` on one line and at most ``limit`` characters (cut with "…")."""
    raw = _shown(value)
    text = _one_line(raw[:2 * limit + 64])  # the rest is cut anyway: not scanned
    return text if len(text) <= limit and len(raw) <= 2 * limit + 64 else (
        text[:limit - 1] + "…")


def quote(value: object, limit: int = QUOTE_MAX) -> str:
    """A visitor's value for a message, bounded: a string in single quotes as typed ('abc';
    no backslashes doubled, as repr would), anything else as ``repr`` shows it (3, ['x'])."""
    if isinstance(value, str):
        return f"'{plain(value, limit)}'"
    return plain(_shown(value, repr), limit)


def markdown(text: str) -> str:
    """``text`` for a Markdown-rendering element: shown literally (see the module's note)."""
    return _PUNCTUATION.sub(r"\\\1", _AUTOLINK_START.sub(_JOINER, text))


def html(text: str) -> str:
    """``text`` for a plotly name or hover text: shown literally."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def csv_cell(text: str) -> str:
    """``text`` that a spreadsheet opening a CSV of it reads as text, never as a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def label(value: object, limit: int = LABEL_MAX) -> str:
    """A visitor's label as the app stores it: one line, no outer spaces, at most ``limit``
    characters, CSV-safe (it reaches the tables' CSV downloads)."""
    return csv_cell(plain(plain(value, 2 * limit + 64).strip(), limit))


def unescape(markdown_text: str) -> str:
    """What a reader sees of ``markdown(text)``: ``text`` (how tests read the app's alerts)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown_text).replace(_JOINER, "")
