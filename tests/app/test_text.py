"""explorer.text: a visitor's string is shown as typed, never as markup (pure; markdown-it-py,
a CommonMark renderer, is the oracle for Markdown; the browser test checks Streamlit's)."""

from __future__ import annotations

import csv
import html as std_html
import io
import re

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

from explorer import text

# CommonMark with raw HTML and linkify-it's autolinks of URLs with a scheme and e-mail
# addresses (its bare domains and schema-less //… are its own, not GFM's: off here)
RENDER = MarkdownIt("commonmark", {"html": True, "linkify": True}).enable("linkify")
RENDER.linkify.set({"fuzzy_link": False}).add("//", None)
# GFM's literal autolinks as remark-gfm finds them, in text whose escapes are resolved
GFM_AUTOLINK = re.compile(r"(?i)https?://|www\.|[-.\w+]@[-\w]+\.[-\w]")
HOSTILE = [
    "[Session expired, log in](https://evil.example) ![](https://evil.example/p.png)",
    "<a href='https://evil.example'>x</a> <img src=x onerror=alert(1)> <span style='font-size:"
    "90px;color:red'>BIG</span>",
    r"$\Huge\color{red} x$ $$\href{https://evil.example}{y}$$",
    ":red[huge] :material/warning: **bold** _it_ `code` ~~s~~",
    "https://evil.example/x www.evil.example WWW.Evil.example me@evil.example mailto:a@b.co",
    "# heading", "> quote", "1. list", "- item", "| a | b |", "<https://evil.example>",
    "&lt;b&gt; &amp; &#60;", "\\[not escaped\\]", "line\nbreak\r\n# second",
]
# visitors type anything printable; plain() (which every message applies) removes the rest
LINES = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=60)


def _rendered(markdown: str) -> str:
    """The HTML of ``markdown``, without the invisible word joiners that break autolinks
    (where none of GFM's may start)."""
    html = RENDER.render(markdown)
    assert not GFM_AUTOLINK.search(html.replace("&amp;", "&")), html
    return html.replace("\u2060", "")


def _paragraph(shown: str) -> str:
    return f"<p>{escapeHtml(shown)}</p>\n"


def test_hostile_strings_render_as_their_own_text():
    for s in HOSTILE:
        line = text.plain(s, 1000).strip()
        assert _rendered(text.markdown(line)) == _paragraph(line), s
        assert text.unescape(text.markdown(s)) == s
        assert _rendered(f"Row {text.markdown(line)} skipped.") == _paragraph(
            f"Row {line} skipped.")


@given(LINES)
def test_any_line_renders_as_itself(s):
    line = text.plain(s, 1000).strip()
    rendered = _rendered(text.markdown(line))
    assert rendered == (_paragraph(line) if line else "")
    for tag in ("<a", "<img", "<em", "<strong", "<code", "<h1", "<span"):
        assert tag not in rendered


def test_the_oracle_sees_autolinks_and_markup():
    """Unescaped, the hostile strings do render as links, images and HTML."""
    assert "<a href=" in RENDER.render(HOSTILE[0]) and "<img" in RENDER.render(HOSTILE[0])
    assert RENDER.render(HOSTILE[4]).count("<a href=") == 2  # https://, mailto:
    assert len(GFM_AUTOLINK.findall(HOSTILE[4])) == 5  # https://, www. twice, two e-mails
    assert "<span style" in RENDER.render(HOSTILE[1])


def test_normal_labels_need_no_visible_escaping():
    """The escapes vanish in rendering: a reader sees "beta=0.5 (BB)", no backslash."""
    for s in ("beta=0.5 (BB)", "β = 0.1, ω = 1, safe (η ≤ 0.1)", "RGD (QR) [BB]"):
        assert _rendered(text.markdown(s)) == _paragraph(s)
        assert text.html(s) == s.replace("&", "&amp;")  # no <, > here: unchanged


@given(st.text(max_size=60))
def test_html_escaping_leaves_no_tag_and_decodes_to_the_original(s):
    shown = text.html(s)
    assert "<" not in shown and ">" not in shown
    assert std_html.unescape(shown) == s


def test_plain_bounds_and_flattens():
    assert text.plain("x" * 100_000) == "x" * 39 + "…"
    assert len(text.plain("x" * 100_000, 10)) == 10
    assert text.plain("a\nb\tc\x00d") == "a b c d"
    assert text.plain("abc\u202edef\u200b") == "abcdef"  # bidi override and zero width gone
    assert text.plain("short") == "short"


def test_quote_shows_types_as_repr_and_bounds_them():
    assert text.quote("newton") == "'newton'"
    assert text.quote(["landing"]) == "['landing']"
    assert text.quote("y" * 500) == repr("y" * 39 + "…")
    assert text.quote("$\\Huge x$") == "'$\\Huge x$'"  # as typed: one backslash
    big = int("1" * 400)
    assert text.quote(big) == "1" * 39 + "…"
    huge = 10 ** 5000  # beyond Python's digit limit for str(): no ValueError
    assert text.quote(huge) == text.plain("<a int too long to show>")
    assert text.plain(huge) == "<a int too long to show>"


def test_csv_cells_starting_a_formula_are_neutralised():
    for s in ("=HYPERLINK(\"https://evil.example\",\"x\")", "+1+cmd", "-2+3", "@SUM(A1)",
              "\t=1", "\r=1"):
        assert text.csv_cell(s) == "'" + s
    for s in ("beta=0.5 (BB)", "β = 0.1", "'quoted", ""):
        assert text.csv_cell(s) == s


@given(st.text(max_size=200))
def test_a_label_is_one_bounded_csv_safe_line(s):
    label = text.label(s)
    assert len(label) <= text.LABEL_MAX + 1  # + the apostrophe
    assert label == label.strip() or label.startswith("'")
    assert not label.startswith(text.FORMULA_START)
    assert not any(c in label for c in "\n\r\t\x00")
    # and through a CSV written and read back, as a spreadsheet would see it
    buf = io.StringIO()
    pd.DataFrame({"label": [label]}).to_csv(buf, index=False)
    cell = list(csv.reader(io.StringIO(buf.getvalue())))[1][0] if label else ""
    assert cell == label and not cell.startswith(text.FORMULA_START)


def test_labels_keep_what_a_user_typed():
    assert text.label("  β = 0.1 [BB]  ") == "β = 0.1 [BB]"
    assert text.label("=HYPERLINK(\"u\")") == "'=HYPERLINK(\"u\")"
    assert text.label("a" * 200) == "a" * 79 + "…"
