"""Placeholder: the presets page is being built."""

import streamlit as st

from landing_core.ui import controls

controls.sidebar()
st.title("presets")
st.info("This page is under construction.")
