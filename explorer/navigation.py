"""The app's pages, and the one way into them: app.py's ``st.navigation``.

Streamlit treats a ``pages/`` folder beside the entry point as its legacy multipage mode until
some session calls ``st.navigation``; from then on it ignores the folder in every session (the
documented behaviour of ``st.navigation``). Before that, a page URL opened first (a shared link
to /compare on a freshly started server) would run the page file alone: file names in the
sidebar, no wide layout, for every visitor. ``through_navigation`` leaves that mode with the
public call itself.
"""

from __future__ import annotations

import streamlit as st

# (file, title, icon); the first is the default page
PAGES = (
    ("pages/explorer.py", "Explorer", ":material/flight_land:"),
    ("pages/compare.py", "Compare", ":material/compare_arrows:"),
    ("pages/sweep.py", "Sweep", ":material/grid_on:"),
    ("pages/stochastic.py", "Stochastic", ":material/shuffle:"),
    ("pages/theory.py", "Theory", ":material/functions:"),
    ("pages/presets.py", "Lecture presets", ":material/school:"),
    ("pages/guide.py", "Guide", ":material/menu_book:"),
)
_MARK = "run_via_app"


def pages() -> list[st.Page]:
    """The app's pages for ``st.navigation`` (paths relative to app.py's folder)."""
    return [st.Page(path, title=title, icon=icon, default=i == 0)
            for i, (path, title, icon) in enumerate(PAGES)]


def mark_run() -> None:
    """Called by app.py on each run it makes: this run went through st.navigation."""
    st.session_state[_MARK] = True


def through_navigation() -> None:
    """Run this page through app.py's st.navigation (every page calls this first).

    A session's first run that app.py did not mark ran the page file alone, in the legacy
    mode: calling ``st.navigation`` ends that mode for the whole app, and the rerun goes
    through app.py, which opens this page by its URL. The per-run mark, not whether some
    session already left the legacy mode, decides: visitors arriving together after a restart
    each started in it. Only on a session's first run, before any widget event a rerun would
    drop.
    """
    via_app = st.session_state.pop(_MARK, False)
    if not via_app and "config" not in st.session_state:
        st.navigation(pages(), position="hidden")
        st.rerun()
