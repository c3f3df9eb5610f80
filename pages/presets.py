"""Lecture presets: one click loads a configuration and shows it, in lecture mode."""

import copy
from dataclasses import replace

import streamlit as st

from explorer import controls
from explorer.presets import PRESETS

controls.sidebar()
st.title("Lecture presets")
st.markdown("Each preset loads a configuration into the sidebar and opens the page that shows "
            "it, in lecture mode (large type, the sidebar folded: open it with » at the top "
            "left, and switch lecture mode off there). Everything stays editable afterwards.")

for i, preset in enumerate(PRESETS):
    with st.container(border=True):
        st.subheader(preset.title)
        st.markdown(preset.look_at)
        if st.button("Show me", key=f"preset_{i}", icon=":material/play_circle:"):
            controls.set_config(replace(preset.config, lecture=True))
            if preset.page == "compare":
                # a copy: PRESETS is one object shared by every session of the server
                st.session_state.compare_rows = copy.deepcopy(preset.rows)
                st.session_state.compare_version = st.session_state.get("compare_version",
                                                                        0) + 1
                st.session_state.compare_fairness = preset.fairness
            if preset.view is not None:
                st.session_state.explorer_view = preset.view
            if preset.stochastic is not None:
                st.session_state.stoch_preset = preset.stochastic
            if preset.demo is not None:
                st.session_state.theory_part = "demonstrations"
                st.session_state.theory_demo = preset.demo
            st.switch_page(f"pages/{preset.page}.py")
