"""The process-wide gate for heavy work: at most ``SLOTS`` heavy actions compute at once.

Pure (threading only). One gate per server process (a module attribute: every session imports
the same module); the sessions' script threads and the explorer's workers share it. Work that
cannot get a slot waits, and the page says so ("queued"), so that one visitor cannot take every
core. ``LANDING_HEAVY_SLOTS`` sets the number of slots; the default is the cores this process
may use.
"""

from __future__ import annotations

import os
import threading

HEAVY_SECONDS = 1.0  # work estimated below this many seconds runs at once, without a slot


def cores() -> int:
    """The cores this process may use (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def slots_from_env(env: dict[str, str] | None = None) -> int:
    """``LANDING_HEAVY_SLOTS`` (a positive integer), else the number of cores."""
    raw = (os.environ if env is None else env).get("LANDING_HEAVY_SLOTS", "").strip()
    if not raw:
        return cores()
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"LANDING_HEAVY_SLOTS={raw!r} must be a positive integer")
    return int(raw)


class Gate:
    """A counting gate that knows how many hold a slot and how many wait."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._free = threading.Semaphore(slots)
        self._lock = threading.Lock()
        self.busy = 0
        self.waiting = 0

    def acquire(self, timeout: float) -> bool:
        """Take a slot within ``timeout`` seconds; False if none came free (call again)."""
        with self._lock:
            self.waiting += 1
        try:
            got = self._free.acquire(timeout=timeout)
        finally:
            with self._lock:
                self.waiting -= 1
                self.busy += got
        return got

    def release(self) -> None:
        with self._lock:
            if self.busy <= 0:
                raise RuntimeError("Gate.release without a slot")
            self.busy -= 1
        self._free.release()

    def queued_text(self) -> str:
        return (f"Queued: the server's {self.slots} slot(s) for heavy work are busy "
                f"({self.waiting} waiting); this starts as soon as one is free.")


GATE = Gate(slots_from_env())
