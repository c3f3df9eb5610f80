"""Landing Explorer: the entry point. Each page draws the shared sidebar (controls.sidebar), whose
configuration lives in one object in session state, so every page sees the same settings."""

import streamlit as st

# The package first: it loads every module of the app, landing_core with them, while the other
# sessions' threads wait for it (explorer/__init__.py: cold servers deadlocked in importlib)
import explorer  # noqa: F401
from explorer import navigation
from explorer.state import FLAGS

# lecture mode (the session's configuration, or lecture=1 in a link) folds the sidebar: the
# projector's screen goes to the run. The sidebar's toggle is read first: its new value is in
# the session before this rerun, the configuration only after the sidebar has run, and
# Streamlit folds or opens the sidebar only on a run whose initial state differs from the last
config = st.session_state.get("config")
lecture = st.session_state.get("w_lecture", config.lecture if config is not None else FLAGS.get(
    str(st.query_params.get("lecture", "0")).lower(), False))
st.set_page_config(page_title="Landing Explorer", page_icon="🛬", layout="wide",
                   initial_sidebar_state="collapsed" if lecture else "auto")
# a compact top: the default padding above the title would push the player below a 720-row
# projector's fold; the lecture deck's key listener (explorer.lecture) is an iframe with
# nothing to show; a preset's question is read from the back of a lecture hall
st.html("<style>[data-testid='stMainBlockContainer'] { padding-top: 2.2rem; }"
        " .st-key-deck_keys { display: none; }"
        " .st-key-deck_question [data-testid='stMarkdownContainer'] p { font-size: 1.3rem; }"
        "</style>")


@st.fragment(run_every=3600)
def _rerun_on_reconnect() -> None:
    """Nothing, hourly. A timed fragment is what makes Streamlit's page (1.67) ask for a full
    rerun when its websocket reconnects; without one it expects the server to resume its
    session, and a replica that died took the session with it (issue 19): the page would stay
    idle, and the new session's first run would write the URL's settings over the first change."""


_rerun_on_reconnect()
page = st.navigation(navigation.pages())
navigation.mark_run()
page.run()
