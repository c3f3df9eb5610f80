"""The app's fragments (the players) rerun the whole page when a change made outside them
reaches the session in their own run.

Streamlit's browser sends the widget changes made in one task as one rerun, and when one of
them belongs to a fragment (a player reporting what it holds), that rerun runs the fragment
alone: the other changes of the batch reach the session (their values are set, their
callbacks run) but the page around the fragment is not drawn again. A lecturer's Reveal, a
sidebar setting or a clicker's key that met a player's report would change nothing on screen
(seen in the browser: the console's "Multiple different fragmentIds detected in a single
batch of widget updates"). So each fragment compares the session's plain values (every
keyed widget's among them) with those it left at its previous run of the same page run, and
reruns the page when one changed or appeared (``outside_changes_rerun_the_page``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import streamlit as st

log = logging.getLogger(__name__)

PAGE_RUN = "page_run"  # counts the page's runs (``page_run_started``)
_SEEN = "fragment_inputs"  # a fragment's key -> (page run, plain values it left)
_PLAIN = (str, int, float, bool, type(None))

P = ParamSpec("P")
R = TypeVar("R")


def page_run_started() -> None:
    """Count a run of the page: called at the top of every page's run (``controls.sidebar``),
    never by a fragment's own run."""
    st.session_state[PAGE_RUN] = st.session_state.get(PAGE_RUN, 0) + 1


def _plain(value: object, depth: int = 0) -> bool:
    """A value a widget holds (a number, a string, a button's trigger, a component's small
    JSON): compared by its repr, so NaN equals NaN; objects and large data the app keeps
    (a run, a race's payload) are left out."""
    if isinstance(value, _PLAIN):
        return True
    if depth >= 3 or not isinstance(value, list | tuple | dict) or len(value) > 100:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v, depth + 1) for k, v in value.items())
    return all(_plain(v, depth + 1) for v in value)


def plain_values(own: str) -> dict[str, str]:
    """The session's plain values (their reprs) but the fragment's own component value."""
    values = {}
    for key in list(st.session_state.keys()):
        if key in (own, PAGE_RUN, _SEEN):
            continue
        try:
            value = st.session_state[key]
        except KeyError:  # a widget's key whose widget is gone
            continue
        if _plain(value):
            values[key] = repr(value)
    return values


def changed(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """The keys whose values changed or appeared (a key gone is Streamlit's cleanup of a
    widget no longer drawn, not a change)."""
    return [key for key, value in now.items() if before.get(key) != value]


def outside_changes_rerun_the_page(own: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a fragment's function (below ``st.fragment``) whose component's value is
    ``own``: in a run of the fragment alone, a plain value changed since its last run of the
    same page run reruns the page (``st.rerun(scope="app")``) before the fragment draws."""

    def wrap(draw: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(draw)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            run = st.session_state.get(PAGE_RUN)
            seen = st.session_state.get(_SEEN, {}).get(own)
            if seen is not None and seen[0] == run:  # the fragment's own run
                moved = changed(seen[1], plain_values(own))
                if moved:
                    log.info("%s: changed outside (%s): the page reruns", own,
                             ", ".join(sorted(moved)))
                    st.rerun(scope="app")
            result = draw(*args, **kwargs)
            st.session_state.setdefault(_SEEN, {})[own] = (run, plain_values(own))
            return result

        return guarded

    return wrap
