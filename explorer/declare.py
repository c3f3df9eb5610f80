"""Streamlit components declared one at a time.

``components.declare_component`` names a component after its caller's module, which it finds
with ``inspect.getmodule(frame)``: a scan of ``sys.modules`` that fills two process-wide caches
without a lock, marking a module as mapped before it maps the module's file. Two sessions that
import the app's declaring modules at once (a class opening its links together after a
restart) interleave their scans; the second finds a module marked and its file unmapped, gets
None, and Streamlit raises "module is None. This should never happen.": that page showed the
exception instead of the app. Every declaration in the app holds :data:`LOCK`.
"""

from __future__ import annotations

import threading

LOCK = threading.Lock()
