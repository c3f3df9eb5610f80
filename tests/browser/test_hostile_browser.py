"""A hostile link in headless Chromium: the visitor's text is shown as text (no link, image,
HTML, maths or coloured text from it), nothing is fetched from elsewhere, no traceback."""

from __future__ import annotations

import json
import urllib.parse

import pytest

from explorer import compare

from .helpers import CHART, player, wait_idle

pytestmark = pytest.mark.browser

EVIL = "evil.invalid"  # never resolves: a request to it would only show up in the log
LINK = f"[pwn Session expired, log in](https://{EVIL}/login) ![pwn](https://{EVIL}/p.png)"
HTML = (f"<a href='https://{EVIL}/a'>pwn-a</a><img src='https://{EVIL}/i.png'>"
        f"<span style='font-size:90px;color:red'>pwn-big</span>")
MATHS = r"$\Huge\color{red}{pwn}$ :red[pwn-red] **pwn-bold**"

# what the page may hold from the visitor: text only
NO_MARKUP_JS = f"""() => {{
  const doc = document;
  const bad = [];
  for (const a of doc.querySelectorAll('a[href*="{EVIL}"]')) bad.push('a ' + a.outerHTML);
  for (const i of doc.querySelectorAll('img[src*="{EVIL}"]')) bad.push('img ' + i.outerHTML);
  for (const k of doc.querySelectorAll('.katex')) if (k.textContent.includes('pwn'))
    bad.push('katex ' + k.textContent);
  for (const e of doc.querySelectorAll('strong, em, h1, h2, span[style], [class*="Colored"]'))
    if (e.textContent.includes('pwn') && e.textContent.length < 80)
      bad.push(e.tagName + ' ' + e.outerHTML.slice(0, 200));
  for (const svg of doc.querySelectorAll('.js-plotly-plot a')) bad.push('plotly ' + svg.outerHTML);
  return bad;
}}"""


def _watch_requests(page) -> list[str]:
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url)
            if (urllib.parse.urlsplit(r.url).hostname or "").endswith(EVIL) else None)
    return fetched


def _check(page, fetched: list[str]) -> None:
    assert page.evaluate(NO_MARKUP_JS) == []
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("Traceback").count() == 0
    assert fetched == []


def test_a_hostile_link_shows_its_text_as_text(server, page, shots):
    fetched = _watch_requests(page)
    query = urllib.parse.urlencode({"n": LINK, "beta": HTML, "omega": MATHS, "seed": "4",
                                    "x" * 300: "1"})
    page.goto(f"{server}/?{query}")
    player(page)
    wait_idle(page, charts=False)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("URL parameter n='[pwn Session expired, log in](https").wait_for()
    body = main.inner_text().replace("\u2060", "")  # the joiners that break autolinks
    # literally as typed: no markup, and no escaping backslash on screen
    assert f"n='{LINK[:39]}…'" in body
    assert f"beta='{HTML[:39]}…'" in body and f"omega='{MATHS[:39]}…'" in body
    assert "xxxxxxxxxx…" in body and "x" * 300 not in body  # cut, not echoed whole
    assert page.get_by_label("seed", exact=True).input_value() == "4"  # the valid part kept
    _check(page, fetched)
    main.screenshot(path=shots / "hostile_link.png")


def test_hostile_compare_labels_stay_text_in_the_table_legend_and_alerts(server, page, shots):
    fetched = _watch_requests(page)
    rows = [compare.Row(LINK, beta=0.2), compare.Row(HTML, beta=5.0),
            compare.Row("=HYPERLINK(\"https://evil.invalid\",\"pwn\")", beta=1.0)]
    raw = compare.rows_query(rows)[:-1] + ',["pwn-bad",["landing"],"beta",1,1,"safe",0.1]]'
    json.loads(raw)
    page.goto(f"{server}/compare?{urllib.parse.urlencode({'rows': raw, 'n': '3', 'p': '2'})}")
    page.get_by_text("Compare configurations").wait_for(timeout=60_000)
    wait_idle(page)
    page.wait_for_function(f"document.querySelectorAll({CHART!r}).length === 1",
                           timeout=60_000)
    # the race names its rows as text: no link or element from a label in the player
    race = player(page)
    race.wait_for_function("landingPlayer.run && landingPlayer.run.race")
    assert race.evaluate("document.querySelectorAll('a, img, iframe').length") == 0
    assert f"[pwn Session expired, log in](https://{EVIL}/login)" in race.evaluate(
        "document.body.textContent")
    names = page.evaluate(f"Array.from(document.querySelectorAll({CHART!r})[0]"
                          ".querySelectorAll('.legendtext')).map(t => t.textContent)")
    assert names[1].startswith("<a href='https://") and names[2].startswith("'=HYPERLINK")
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("URL row 'pwn-bad' dropped: unknown method ['landing'].").wait_for(
        timeout=30_000)
    summary = main.locator("summary").filter(has_text="Rows:").first.inner_text().replace(
        "\u2060", "")
    assert "[pwn Session expired, log in](https://" in summary and "\\" not in summary
    _check(page, fetched)
    main.screenshot(path=shots / "hostile_compare.png")
