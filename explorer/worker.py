"""A page's background computation, bounded and tied to demand (the explorer's live run, the
Stochastic page's runs).

- The thread computes only while the page keeps asking: each request (a chunk, a redraw)
  renews a lease of LEASE seconds, and the thread ends when it runs out (a closed tab, a
  stopped script); a later request starts a new thread that goes on where the last one ended.
- Replacing the work (a new configuration) cancels it: ``cancelled``.
- After ``seconds`` of computing (the server's budget; the thread's CPU time, so that a loaded
  machine does not shorten the work) the subclass ends it with status "stopped".
- Heavy work computes only while it holds a slot of the process-wide gate; ``queued`` says it
  is waiting for one.

A subclass implements ``done`` (nothing is left to compute) and ``compute`` (the loop, which
checks ``wanted()`` and ``over_time()`` between steps). A page keeps one worker per kind of
work in its session: ``session_worker`` returns the one computing its ``key``, or cancels it
and starts the next.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, MutableMapping
from typing import TypeVar

from .gate import GATE, Gate

LEASE = 1.5  # seconds the worker computes on after the page's last request


class LeasedWorker:
    """Work for ``key`` (what its result depends on), computed by threads named ``name``."""

    def __init__(self, key: Hashable, name: str, *, heavy: bool, seconds: float,
                 gate: Gate = GATE) -> None:
        self.key = key
        self.lock = threading.Lock()
        self.cancelled = False
        self.queued = False
        self.spent = 0.0  # CPU seconds of computing so far
        self._name, self._heavy, self._seconds, self._gate = name, heavy, seconds, gate
        self._lease = 0.0
        self._thread: threading.Thread | None = None
        self._started = 0.0  # the running thread's thread_time() when it began computing

    def done(self) -> bool:
        raise NotImplementedError

    def compute(self) -> None:
        raise NotImplementedError

    def renew(self) -> None:
        """The page asked for more: extend the lease, and compute again if the worker ended
        for want of requests."""
        self._lease = time.monotonic() + LEASE
        with self.lock:
            idle = self._thread is None or not self._thread.is_alive()
            if idle and not self.done() and not self.cancelled:
                self._thread = threading.Thread(target=self._work, daemon=True,
                                                name=self._name)
                self._thread.start()

    def wanted(self) -> bool:
        return not self.cancelled and time.monotonic() < self._lease

    def over_time(self) -> bool:
        """Whether the work has spent its budget (called from the worker thread)."""
        return self.spent + time.thread_time() - self._started > self._seconds

    def time_limit_text(self) -> str:
        return (f"the time limit of {self._seconds:g} s of computing was reached (this server's "
                "budget per request)")

    def _work(self) -> None:
        if self._heavy:
            self.queued = True
            while not self._gate.acquire(timeout=0.1):
                if not self.wanted():
                    self.queued = False
                    return
            self.queued = False
            # the slot may come free just after the lease ran out (a page closed while it
            # waited): compute nothing for it, not even a first step
            if not self.wanted():
                self._gate.release()
                return
        self._started = time.thread_time()
        try:
            self.compute()
        finally:
            self.spent += time.thread_time() - self._started
            if self._heavy:
                self._gate.release()

    def wait(self, seconds: float) -> None:
        """Let the worker run for up to ``seconds`` (less if the work ends)."""
        thread = self._thread
        if thread is not None:
            thread.join(seconds)


W = TypeVar("W", bound=LeasedWorker)


def session_worker(session: MutableMapping, name: str, key: Hashable,
                   start: Callable[[], W]) -> W:
    """The session's worker under ``name``: the one already computing (or done) when its key is
    ``key``, so that a rerun which changes nothing it depends on waits for the same work; else
    ``start()``'s, stored under ``name``, and the previous one cancelled (its thread ends at its
    next check)."""
    worker = session.get(name)
    if worker is None or worker.key != key:
        if worker is not None:
            worker.cancelled = True
        worker = start()
        session[name] = worker
    return worker
