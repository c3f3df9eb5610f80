"""Bounded work in the app's script thread: the budget, the time limit, cancellation, the gate.

- ``admit(cost)`` refuses (a message naming what to lower, then ``st.stop``) an action whose
  estimated worst case (``explorer.budget``) is over the deployment's budget.
- ``Watch`` is the ``should_stop`` the library's loops call after each iterate: it answers
  once the time limit has passed, and every ``TICK`` seconds redraws its progress element.
  Streamlit handles a pending stop or rerun (the page closed, Stop pressed, a setting changed)
  whenever an element is sent, by raising its own exception in the script thread: the redraw
  is what ends the loop within about a second, through public API only.
- ``heavy(cost)`` holds a slot of the process-wide gate (``explorer.gate``) for work estimated
  at ``HEAVY_SECONDS`` or more; while it waits, the element says it is queued.
- ``complete_only`` and ``served`` keep a result cut short (by the time limit) out of
  ``st.cache_data``: the time limit depends on the server's load at the time, so the same
  settings on an idle server must compute again, not replay the truncated result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

import streamlit as st

from landing_core.solvers import deadline

from .budget import Budget, Cost
from .gate import GATE, HEAVY_SECONDS, Gate

P = ParamSpec("P")
R = TypeVar("R")

BUDGET = Budget.from_env()  # read once per server process: the deployment's environment
TICK = 0.2  # seconds between redraws of a running action's progress element
WALL_FACTOR = 4  # a request's wall-clock limit, in units of its computing-time limit


def admit(cost: Cost, budget: Budget | None = None,
          hint: Callable[[Budget], str] | None = None) -> None:
    """Go on when ``cost`` fits ``budget`` (the deployment's); else say why and what to lower
    (and ``hint(budget)``, a setting that fits), and stop the page."""
    budget = budget or BUDGET
    refusal = cost.refusal(budget)
    if refusal is not None:
        extra = hint(budget) if hint is not None else ""
        st.error(refusal + (f" {extra}" if extra else ""),
                 icon=":material/hourglass_disabled:")
        st.stop()


class Watch:
    """A progress bar that is also the library's ``should_stop``: the time limit of
    ``seconds`` (the budget's) of this thread's CPU time, WALL_FACTOR times as many seconds
    of wall clock (a request on an overloaded server ends too), and a redraw every TICK
    seconds (Streamlit's cancellation point). ``at(fraction, text)`` sets what the next
    redraw shows."""

    def __init__(self, text: str, seconds: float | None = None) -> None:
        self.bar = st.progress(0.0, text=text)
        self.fraction, self.text = 0.0, text
        seconds = seconds or BUDGET.seconds
        cpu = deadline(seconds, clock=time.thread_time, what="computing-time limit")
        wall = deadline(WALL_FACTOR * seconds, what="waiting-time limit")
        self._late = lambda: cpu() or wall()
        self._next = time.monotonic() + TICK

    def at(self, fraction: float, text: str | None = None) -> None:
        self.fraction = min(max(fraction, 0.0), 1.0)
        self.text = text or self.text

    def __call__(self) -> str | None:
        now = time.monotonic()
        if now >= self._next:
            self._next = now + TICK
            self.bar.progress(self.fraction, text=self.text)  # may raise Streamlit's stop
        late = self._late()
        return None if late is None else (
            f"{late} (this server's budget per request; ask its deployer to raise "
            "LANDING_BUDGET_SECONDS)")

    def close(self) -> None:
        self.bar.empty()


@contextmanager
def heavy(cost: Cost, gate: Gate = GATE) -> Iterator[None]:
    """Hold a slot of the gate while the body computes, when ``cost`` is heavy; wait (the
    page says it is queued, and stays cancellable) until one is free."""
    if cost.seconds < HEAVY_SECONDS:
        yield
        return
    if not gate.acquire(timeout=0.0):
        note = st.empty()
        while not gate.acquire(timeout=TICK):
            note.info(gate.queued_text(), icon=":material/hourglass_top:")
        note.empty()
    try:
        yield
    finally:
        gate.release()


class CutShort(Exception):  # noqa: N818 - not an error: a result that must not be kept
    """A result cut short (status "stopped"), raised out of an ``st.cache_data`` function: the
    cache keeps nothing when its function raises, and ``served`` hands ``result`` to the page
    that asked for it."""

    def __init__(self, result: object) -> None:
        super().__init__("a result cut short is not cached")
        self.result = result


def complete_only(result: R, cut_short: bool) -> R:
    """``result`` for the cache to keep; raised past it (``CutShort``) when ``cut_short``."""
    if cut_short:
        raise CutShort(result)
    return result


def served(cached: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``cached(*args, **kwargs)`` (an ``st.cache_data`` function that ends in
    ``complete_only``), with a result cut short given to this request only."""
    try:
        return cached(*args, **kwargs)
    except CutShort as cut:
        return cut.result  # type: ignore[return-value]
