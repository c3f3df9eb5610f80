"""Shared test settings.

.streamlit/config.toml is written for hosting: visitors see no error details. AppTest runs the
app in this process and reads that file, so an exception would reach a test as a redacted
message; the tests set full details for themselves (servers started by the browser tests are
separate processes and keep the hosting settings).
"""

from streamlit import config

config.set_option("client.showErrorDetails", "full")
