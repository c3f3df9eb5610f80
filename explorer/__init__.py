"""The app's Streamlit glue: configuration and URL state, sidebar controls, the runner and the
in-browser player. The only streamlit code besides ``app.py`` and ``pages/``; the numerics live in
``landing_core``, which never imports this package or streamlit.

``controls``, ``live`` (the player's component and its streaming), ``navigation`` and ``sweeps``
import streamlit; the other modules are pure (testable without a running app). ``player/``
holds the player's JavaScript, ``figures`` the pages' plotly figures, and ``teaching/`` what the
Theory page computes (the paper's propositions checked, its demonstrations).
"""
