"""Streamlit glue for the app: configuration state, URL state, sidebar controls, live runner.

The only streamlit code outside ``app.py`` and ``pages/``. ``state`` and ``upload`` are pure
(testable without a running app); ``controls`` and ``runner`` draw widgets.
"""
