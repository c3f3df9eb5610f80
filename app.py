"""Landing Explorer: the entry point. Each page draws the shared sidebar (controls.sidebar), whose
configuration lives in one object in session state, so every page sees the same settings."""

import streamlit as st

st.set_page_config(page_title="Landing Explorer", page_icon="🛬", layout="wide")

page = st.navigation([
    st.Page("pages/explorer.py", title="Explorer", icon=":material/flight_land:", default=True),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
    st.Page("pages/sweep.py", title="Sweep", icon=":material/grid_on:"),
    st.Page("pages/theory.py", title="Theory", icon=":material/functions:"),
    st.Page("pages/presets.py", title="Lecture presets", icon=":material/school:"),
    st.Page("pages/guide.py", title="Guide", icon=":material/menu_book:"),
])
st.session_state.run_via_app = True  # this run went through st.navigation (controls.sidebar)
page.run()
