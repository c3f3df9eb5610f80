"""Landing Explorer: the entry point. Shared sidebar configuration, then the chosen page."""

import streamlit as st

from landing_core.ui import controls

st.set_page_config(page_title="Landing Explorer", page_icon="🛬", layout="wide")

page = st.navigation([
    st.Page("pages/explorer.py", title="Explorer", icon=":material/flight_land:", default=True),
    st.Page("pages/guide.py", title="Guide", icon=":material/menu_book:"),
])
controls.sidebar()
page.run()
