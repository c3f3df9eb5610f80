"""Shared test settings.

.streamlit/config.toml is written for hosting: visitors see no error details. AppTest runs the
app in this process and reads that file, so an exception would reach a test as a redacted
message; the tests set full details for themselves (servers started by the browser tests are
separate processes and keep the hosting settings).
"""

from hypothesis import settings
from streamlit import config

config.set_option("client.showErrorDetails", "full")

# Hypothesis's default 200 ms deadline per example measures the machine, not the code (a
# loaded runner misses it with correct code). Correctness is what the property tests check;
# speed lives in benchmarks/.
settings.register_profile("shared-machine", deadline=None)
settings.load_profile("shared-machine")
