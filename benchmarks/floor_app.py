"""Reference pages for bench_browser.py: the least a Streamlit page with plotly charts costs.

``?page=bare``: a title and two one-trace 2-D plotly charts; ``?page=sidebar``: the same with
the explorer's sidebar (``controls.sidebar()``); ``?page=3d``: the bare page with the second
chart a one-trace 3-D scatter (WebGL). Not part of the app.
"""

import plotly.graph_objects as go
import streamlit as st

from explorer import controls

page = st.query_params.get("page", "bare")
if page == "sidebar":
    controls.sidebar()
st.title("Reference page")
st.plotly_chart(go.Figure(go.Scatter(y=[1, 3, 2])), key="a")
second = go.Scatter3d(x=[0, 1, 0], y=[1, 3, 2], z=[0, 0, 1]) if page == "3d" else go.Scatter(
    y=[2, 1, 3])
st.plotly_chart(go.Figure(second), key="b")
