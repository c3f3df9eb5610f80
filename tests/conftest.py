"""Shared test settings.

.streamlit/config.toml is written for hosting: visitors see no error details. AppTest runs the
app in this process and reads that file, so an exception would reach a test as a redacted
message; the tests set full details for themselves (servers started by the browser tests are
separate processes and keep the hosting settings).
"""

import functools

from hypothesis import settings
from streamlit import config
from streamlit.components.v2 import manifest_scanner

config.set_option("client.showErrorDetails", "full")

# Every new AppTest scans the metadata of all installed distributions for v2 component
# manifests (Streamlit's BidiComponentManager, once per AppTest, not per process): a few hundred
# AppTests paid it each time. The installed packages do not change during a test session, so
# one scan answers them all.
manifest_scanner.scan_component_manifests = functools.cache(
    manifest_scanner.scan_component_manifests)

# Hypothesis's default 200 ms deadline per example measures the machine, not the code (a
# loaded runner misses it with correct code). Correctness is what the property tests check;
# speed lives in benchmarks/.
settings.register_profile("shared-machine", deadline=None)
settings.load_profile("shared-machine")
