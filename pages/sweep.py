"""Placeholder: the sweep page is being built."""

import streamlit as st

from landing_core.ui import controls

controls.sidebar()
st.title("sweep")
st.info("This page is under construction.")
