"""Streamlit components declared without a race on a fresh server.

``components.declare_component`` names a component after its caller's module, which it finds
with ``inspect.getmodule(frame)``: on a file not yet in inspect's cache, a scan of
``sys.modules`` that fills two process-wide caches without a lock, marking a module as mapped
before it maps the module's file. Any thread's ``getmodule`` scans (Streamlit calls it for its
usage metrics on st commands, not only here), so a session importing a declaring module while
another scans can find its own module marked and its file unmapped: None, and Streamlit raises
"module is None. This should never happen."; that page showed the exception instead of the app
(a class opening its links together after a restart). A lock around the declarations alone did
not stop it. :func:`map_caller` makes the cache hold the declaring module's file first; the
declaration's own lookup then finds it without a scan.
"""

from __future__ import annotations

import inspect
import time

PATIENCE = 1.0  # seconds: another thread's scan maps the file within microseconds of marking it


def map_caller() -> None:
    """Make ``inspect.getmodule`` map the calling module's file, retrying while another
    thread's scan has marked the module but not yet mapped its file; call it right before
    ``declare_component``. Raises RuntimeError if the file stays unmapped."""
    frame = inspect.currentframe().f_back
    end = time.monotonic() + PATIENCE
    while inspect.getmodule(frame) is None:
        if time.monotonic() > end:
            raise RuntimeError(f"inspect finds no module for {frame.f_code.co_filename}")
        time.sleep(0.001)
