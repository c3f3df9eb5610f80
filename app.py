"""Landing Explorer: placeholder entry point (the app is built in its own issue)."""

import streamlit as st

st.title("Landing Explorer")
st.write("The numerical core is ready; the explorer is under construction.")
