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

So a page must not store a plain value that differs at every run after a guarded fragment
has drawn (each of the fragment's runs would rerun the page), and a keyed widget inside a
guarded fragment would rerun the page at each change: its key is not the fragment's own.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import streamlit as st

log = logging.getLogger(__name__)

PAGE_RUN = "page_run"  # counts the page's runs (``page_run_started``)
_SNAPSHOTS = "fragment_inputs"  # a fragment's key -> (page run, the values it left)
_PLAIN = (str, int, float, bool, type(None))
# what a value left out of the comparison (an object, large data) is recorded as: its turning
# into one (a widget's value grown past the limits) is a change, its appearing is not
_OBJECT = "<object>"
_BUTTONS: set[str] = set()  # the keys of buttons (``button_key``)

P = ParamSpec("P")
R = TypeVar("R")


def page_run_started() -> None:
    """Count a run of the page: called at the top of every page's run (``controls.sidebar``),
    never by a fragment's own run."""
    st.session_state[PAGE_RUN] = st.session_state.get(PAGE_RUN, 0) + 1


def _plain(value: object, depth: int = 0) -> bool:
    """A value a widget holds (a number, a string, a button's trigger, a component's small
    JSON, a data editor's edits, whose rows are int keys): compared by its repr, so NaN
    equals NaN; objects and large data the app keeps (a run, a race's payload) are left out."""
    if isinstance(value, _PLAIN):
        return True
    if depth >= 3 or not isinstance(value, list | tuple | dict) or len(value) > 100:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str | int) and _plain(v, depth + 1) for k, v in value.items())
    return all(_plain(v, depth + 1) for v in value)


def button_key(key: str) -> str:
    """``key``, registered as a button's: a button holds True from its click's run until
    the next run begins, so a snapshot taken in the click's run would see the reset as a
    change and a second click as none; a button counts as changed when it reads True (a
    click in the fragment's batch). Streamlit has no public way to tell a button's key from
    a toggle's."""
    _BUTTONS.add(key)
    return key


def snapshot(own: str) -> dict[str, str]:
    """The session's values (the reprs of plain ones, ``_OBJECT`` for the rest) except the
    fragment's own component value."""
    return {key: repr(value) if _plain(value) else _OBJECT
            for key, value in st.session_state.to_dict().items()
            if key not in (own, PAGE_RUN, _SNAPSHOTS)}


def changed(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """The keys whose values changed, turned into objects or appeared, but for an object
    appearing (the app storing a result); a button (``button_key``) when it reads True. A
    key gone is Streamlit's cleanup of a widget no longer drawn, or a value a callback
    removed, which the callback's other writes show."""
    def moved(key: str, value: str) -> bool:
        return value == repr(True) if key in _BUTTONS else before.get(key, _OBJECT) != value
    return [key for key, value in now.items() if moved(key, value)]


def outside_changes_rerun_the_page(own: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a fragment's function (below ``st.fragment``) whose component's value is
    ``own``: in a run of the fragment alone, a plain value changed since its last run of the
    same page run reruns the page (``st.rerun(scope="app")``) before the fragment draws."""

    def wrap(draw: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(draw)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            run = st.session_state.get(PAGE_RUN)
            seen = st.session_state.get(_SNAPSHOTS, {}).get(own)
            if seen is not None and seen[0] == run:  # the fragment's own run
                moved = changed(seen[1], snapshot(own))
                if moved:
                    log.info("%s: changed outside (%s): the page reruns", own,
                             ", ".join(sorted(moved)))
                    st.rerun(scope="app")
            result = draw(*args, **kwargs)
            st.session_state.setdefault(_SNAPSHOTS, {})[own] = (run, snapshot(own))
            return result

        return guarded

    return wrap
