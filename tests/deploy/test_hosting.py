"""Hosting settings: .streamlit/config.toml, the bounded caches, and what any client's
clear-cache message can do (it empties every st.cache_data for the whole server and the
sender's own session state; Streamlit offers no switch to refuse it)."""

from __future__ import annotations

import re
import time
import tomllib
from pathlib import Path

import numpy as np
import streamlit as st
from streamlit import config as st_config

from explorer import compare, runner, worker
from explorer.state import CACHE_LIMITS
from explorer.upload import MAX_ENTRIES
from tests.app.helpers import open_app

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())


def _option(name: str):
    section, key = name.split(".")
    return CONFIG[section][key]


def test_every_setting_is_a_streamlit_option():
    options = st_config.get_config_options()
    for section, values in CONFIG.items():
        for key in values:
            assert f"{section}.{key}" in options, f"{section}.{key} is not a streamlit option"


def test_visitors_get_no_error_details_and_no_developer_menu():
    # streamlit's values: full, stacktrace, type, none (and the legacy true/false)
    assert _option("client.showErrorDetails") == "none"
    assert _option("client.toolbarMode") in ("viewer", "minimal")
    assert _option("client.showErrorLinks") is False


def test_server_watches_no_files_and_bounds_what_it_accepts():
    assert _option("server.fileWatcherType") == "none"
    assert _option("server.runOnSave") is False
    assert _option("server.enableXsrfProtection") is True
    assert 1 <= _option("server.maxUploadSize") <= 10  # MB; streamlit's default is 200
    assert 5 <= _option("server.maxMessageSize") <= 50
    # the largest matrix the app reads fits the upload limit as a CSV of full-precision floats
    rng = np.random.default_rng(0)
    side = int(np.sqrt(MAX_ENTRIES))
    csv = "\n".join(",".join(repr(float(v)) for v in row)
                    for row in rng.standard_normal((side, side))).encode()
    assert len(csv) < _option("server.maxUploadSize") * 1e6


def test_every_cache_is_bounded_in_entries_and_time():
    """No st.cache_resource (one object shared and mutable by every session); each
    st.cache_data uses CACHE_LIMITS."""
    assert CACHE_LIMITS["max_entries"] <= 64 and CACHE_LIMITS["ttl"] <= 24 * 3600
    sources = [p for d in ("explorer", "pages") for p in (ROOT / d).glob("*.py")]
    sources.append(ROOT / "app.py")
    uses = []
    for path in sources:
        text = path.read_text()
        assert "cache_resource" not in text, path
        uses += re.findall(r"@st\.cache_data\(([^)]*)\)", text)
    assert len(uses) >= 2
    assert all(u.startswith("**CACHE_LIMITS") for u in uses), uses


def test_a_clear_cache_message_loses_nothing():
    """Every cache emptied (as any client can do for everyone): the page computes again and
    shows the same numbers."""
    rows = [compare.Row("a", beta=0.2), compare.Row("b", beta=5.0)]
    at = open_app({"n": "4", "p": "2", "rows": compare.rows_query(rows)}, page="pages/compare.py")
    before = at.dataframe[-1].value
    st.cache_data.clear()
    st.cache_resource.clear()
    at.run()
    assert not at.exception
    assert at.dataframe[-1].value.drop(columns=compare.TIME_COLUMN).equals(
        before.drop(columns=compare.TIME_COLUMN))


def _slowed(started):
    """A run's trace and its iterates, each at least 2 ms after the last."""
    trace, records = started
    return trace, (time.sleep(0.002) or record for record in records)


def test_a_run_whose_session_state_was_emptied_stops_by_itself(monkeypatch):
    """A client that empties its own session state (the clear-cache message does) and asks for
    another run does not leave the first one computing beside the new one: nothing asks the
    orphaned run for chunks any more, so its worker ends when its lease runs out."""
    # a run that outlasts the lease on any machine: the app's longest can end within one lease
    # on a fast BLAS
    start = runner.start
    monkeypatch.setattr(runner, "start", lambda config, problem: _slowed(start(config, problem)))
    at = open_app(dict(n="200", p="50", max_iter="5000", tol="1e-14", step="constant",
                       eta="0.0001"))
    first = at.session_state.live_run
    assert not first.trace.finished
    del at.session_state["live_run"]  # what the message's SessionState.clear() loses
    at.run()  # the page starts the run again, as it must
    assert not at.exception
    second = at.session_state.live_run
    assert second is not first
    first._thread.join(worker.LEASE + 5)
    assert not first._thread.is_alive() and not first.trace.finished
    second.cancelled = True
