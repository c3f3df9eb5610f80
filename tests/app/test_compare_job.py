"""The Compare page's job (explorer.compare_job): one computation per session and key, kept
across reruns that do not change it, resumed after the page stopped asking, bounded by the
time limit. Timing-free where it can be: a stand-in comparison whose rows sleep (the lease
is wall-clock time) and a real one for the results and the time limit (CPU time)."""

from __future__ import annotations

import re
import time

import numpy as np

from explorer import compare, compare_job, worker
from explorer.state import AppConfig

CONFIG = AppConfig(n=5, p=2, tol=1e-14, max_iter=300)
ROWS = [compare.Row(f"β = {b:g}", beta=b, step="constant", eta=0.05) for b in (0.2, 1.0, 5.0)]


class Sleepy:
    """A comparison whose rows each take ``seconds`` of wall clock (no CPU), asking
    ``should_stop`` every 10 ms; ``calls`` lists the rows started."""

    def __init__(self, rows: int, seconds: float) -> None:
        self.rows = [compare.Row(f"r{i}") for i in range(rows)]
        self.seconds, self.calls = seconds, []

    def run_row(self, i: int, should_stop) -> dict:
        self.calls.append(i)
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:
            if should_stop():
                return dict(label=f"r{i}", status="stopped")
            time.sleep(0.01)
        return dict(label=f"r{i}", status="max_iter")

    def f_star(self, runs: list[dict]) -> float:
        return -1.0


def _job(session: dict, comparison, key: tuple = ("k",), seconds: float = 60.0,
         made: list | None = None) -> compare_job.CompareJob:
    def make():
        if made is not None:
            made.append(key)
        return comparison

    return compare_job.session_job(session, key, make, heavy=False, seconds=seconds,
                                   wall=4 * seconds)


def _finish(job: compare_job.CompareJob, limit: float = 120.0) -> None:
    end = time.monotonic() + limit
    while not job.done() and time.monotonic() < end:
        job.renew()
        job.wait(0.1)
    assert job.done()


def test_a_rerun_with_the_same_settings_waits_for_the_same_work():
    session, made = {}, []
    slow = Sleepy(2, 0.3)
    job = _job(session, slow, made=made)
    again = _job(session, Sleepy(2, 0.3), made=made)  # a widget not in the result: same key
    assert again is job and len(made) == 1 and not job.cancelled
    _finish(job)
    assert slow.calls == [0, 1] and job.result == ([dict(label="r0", status="max_iter"),
                                                    dict(label="r1", status="max_iter")], -1.0)


def test_the_job_computes_what_run_rows_does():
    key = compare_job.job_key(CONFIG, ROWS, None, None, None)
    equal = [compare.parse_row(r.cells()) for r in ROWS]  # equal rows, other objects
    assert key == compare_job.job_key(CONFIG, equal, None, None, None)
    assert key != compare_job.job_key(CONFIG, ROWS[::-1], None, None, None)
    assert key != compare_job.job_key(CONFIG, ROWS, "bb", None, None)
    assert key != compare_job.job_key(CONFIG, ROWS, None, None, np.eye(5))
    job = _job({}, compare.Comparison(CONFIG, ROWS, None), key)
    _finish(job)
    runs, f_star = job.result
    expected, expected_f = compare.run_rows(CONFIG, ROWS, None)
    assert f_star == expected_f
    for got, want in zip(runs, expected, strict=True):
        assert got["status"] == want["status"] and got["label"] == want["label"]
        np.testing.assert_array_equal(got["cost"], want["cost"])


def test_new_settings_cancel_the_work_and_start_anew():
    session = {}
    first = _job(session, Sleepy(3, 1.0), ("a",))
    second = _job(session, Sleepy(1, 0.1), ("b",))
    assert second is not first and first.cancelled and session["compare_job"] is second
    first.wait(5.0)
    assert not first._thread.is_alive() and first.result is None
    _finish(second)


def test_the_work_pauses_when_the_page_stops_asking_and_resumes_at_its_row():
    slow = Sleepy(3, 1.0)
    job = _job({}, slow)
    job.wait(worker.LEASE + 10.0)  # nobody asks: the lease runs out during row 2 (joined)
    assert not job._thread.is_alive() and not job.done()
    assert slow.calls == [0, 1] and len(job.runs) == 1
    _finish(job)  # asked again: row 2 runs again, from its start
    assert slow.calls == [0, 1, 1, 2] and len(job.result[0]) == 3


def test_the_time_limit_keeps_what_was_computed_and_stops_the_rest_at_x0():
    config = AppConfig(n=60, p=10, tol=1e-14, max_iter=3000)
    rows = [compare.Row(f"β = {b:g}", beta=b) for b in (0.2, 1.0, 5.0)]  # safe steps
    job = _job({}, compare.Comparison(config, rows, None), seconds=0.05)
    _finish(job)
    runs, _ = job.result
    assert compare.cut_short(runs)
    first = next(i for i, r in enumerate(runs) if r["status"] == "stopped")
    assert 0 < len(runs[first]["cost"]) - 1 < config.max_iter
    # the computing-time limit, or on a loaded machine the wall clock's (4 times as long)
    assert re.search(r"time limit of (0\.05|0\.2) s", runs[first]["message"])
    assert all(len(r["cost"]) == 1 and r["status"] == "stopped" for r in runs[first + 1:])


def test_an_error_in_a_row_ends_the_job_for_the_page_to_raise():
    bad = [compare.Row("rgd on B", method="rgd-qr", constraint="B")]
    job = _job({}, compare.Comparison(CONFIG, bad, None))
    _finish(job, 30.0)
    assert isinstance(job.error, ValueError) and job.result is None
