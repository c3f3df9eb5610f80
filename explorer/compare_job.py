"""The Compare page's computation, kept across reruns that do not change it.

A widget changed while a comparison computes reruns the page, and Streamlit ends the running
script at its next element: computed in the script, the comparison would start over, even for
a widget that does not enter the result (the sidebar's β, ω or step rule, which the rows set
themselves; the x axis; lecture mode). Here a worker thread (``worker.LeasedWorker``: bounded
by the budget, tied to the page's requests, gated when heavy) computes it row by row, and the
session keeps it under its key (``job_key``): a rerun with the same key waits for the same
work, a new key cancels it and starts another. When the page stops asking, the thread ends
after its lease; a later request resumes at the row it had not finished.

Pure (no streamlit): ``session_job`` takes the session's mapping.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, MutableMapping

import numpy as np

from landing_core.run import Status
from landing_core.solvers import deadline

from .compare import Comparison, Row
from .gate import GATE, Gate
from .state import AppConfig
from .worker import LeasedWorker, session_worker

SESSION_KEY = "compare_job"


def _digest(array: np.ndarray | None) -> str | None:
    if array is None:
        return None
    array = np.ascontiguousarray(array)
    return hashlib.sha256(f"{array.dtype}{array.shape}".encode() + array.tobytes()).hexdigest()


def job_key(config: AppConfig, rows: list[Row], fairness: str | None,
            matrix: np.ndarray | None, B: np.ndarray | None) -> tuple:
    """Everything the comparison's result depends on: the shared configuration
    (``compare.shared``), the rows, the step choice and the matrices (by content)."""
    return (config, tuple(rows), fairness, _digest(matrix), _digest(B))


class CompareJob(LeasedWorker):
    """The rows of one comparison computed by a worker thread; ``result`` is (runs, f*) once
    every row has run. ``fraction`` and ``text`` say how far it is.

    A row cut by the time limit (``seconds`` of the thread's CPU time, or ``wall`` seconds of
    the wall clock from the first computing, for an overloaded server) keeps what it computed
    (status "stopped") and the rows after it stop at X_0; a row cut because the page stopped
    asking (or the job was replaced) is dropped, and runs again from X_0 when the page asks
    again. An exception in a row ends the job with ``error``, for the page to raise.
    """

    def __init__(self, key: tuple, comparison: Comparison, *, heavy: bool, seconds: float,
                 wall: float, gate: Gate = GATE) -> None:
        self.comparison = comparison
        self.runs: list[dict] = []
        self.result: tuple[list[dict], float | None] | None = None
        self.error: Exception | None = None
        self.fraction, self.text = 0.0, "Running the configurations…"
        self._late = ""  # the time limit's reason, once reached
        self._wall_seconds = wall
        self._wall: Callable[[], object] | None = None
        super().__init__(key, "compare", heavy=heavy, seconds=seconds, gate=gate)
        self.renew()

    def done(self) -> bool:
        return self.result is not None or self.error is not None

    def _should_stop(self) -> str | None:
        if not self._late and self.over_time():
            self._late = self.time_limit_text()
        elif not self._late and self._wall is not None and (late := self._wall()):
            self._late = f"{late} (this server is busy)"
        return self._late or (None if self.wanted() else "the page stopped asking")

    def compute(self) -> None:
        if self._wall is None:
            self._wall = deadline(self._wall_seconds, what="waiting-time limit")
        rows = self.comparison.rows
        try:
            while len(self.runs) < len(rows):
                i = len(self.runs)
                self.fraction = i / len(rows)
                self.text = f"Running row {i + 1} of {len(rows)}: {rows[i].label}"
                run = self.comparison.run_row(i, self._should_stop)
                if run["status"] == Status.STOPPED and not self._late:
                    return  # not wanted any more: this row runs again when the page asks
                self.runs.append(run)
            self.fraction = 1.0
            self.result = (self.runs, self.comparison.f_star(self.runs))
        except Exception as err:  # noqa: BLE001 - the page raises it, not a dead thread
            self.error = err


def session_job(session: MutableMapping, key: tuple, comparison: Callable[[], Comparison],
                *, heavy: bool, seconds: float, wall: float, gate: Gate = GATE) -> CompareJob:
    """The session's job for ``key``: the one already computing (or computed) when the key is
    the same, else a new one of ``comparison()`` (the previous one is cancelled)."""
    return session_worker(session, SESSION_KEY, key, lambda: CompareJob(
        key, comparison(), heavy=heavy, seconds=seconds, wall=wall, gate=gate))
