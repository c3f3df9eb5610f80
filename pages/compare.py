"""Placeholder: the compare page is being built."""

import streamlit as st

from landing_core.ui import controls

controls.sidebar()
st.title("compare")
st.info("This page is under construction.")
