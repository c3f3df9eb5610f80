"""Bounded work outside the pages: the explorer's worker (explorer.live.LiveRun) computes only
while its page asks, stops at the time limit, waits for the gate when heavy; the gate
(explorer.gate) and its settings."""

from __future__ import annotations

import threading
import time

import pytest

from explorer import live, worker
from explorer.gate import Gate, slots_from_env
from explorer.runner import build_problem
from explorer.state import AppConfig
from tests.app.helpers import renew_until

# St(200, 50) with an unreachable tolerance and far more iterations than the app allows: the
# app's 5000 can end within one lease on a fast BLAS, and these tests need a run that is paused
# by its lease, not finished
LONG = AppConfig(n=200, p=50, tol=1e-14, max_iter=200_000, step="constant", eta=1e-4)


def _run(config: AppConfig = LONG, **kw) -> live.LiveRun:
    return live.LiveRun(("test",), config, build_problem(config), **kw)


def test_the_worker_stops_when_the_page_stops_asking_and_resumes_on_request():
    run = _run()
    run.wait(worker.LEASE + 10.0)  # no request since the start: the lease runs out (joined)
    k1 = run.trace.k
    assert not run.trace.finished and 0 < k1 < LONG.max_iter
    assert not run._thread.is_alive()
    time.sleep(0.3)
    assert run.trace.k == k1  # nothing computes
    # the page asks again (as a rerun does, every few tenths of a second): the same iterates
    # go on
    renew_until(run, lambda: run.trace.k > k1)
    assert run._thread.is_alive()
    run.cancelled = True  # a new configuration replaces it
    run.wait(30.0)  # joined: returns as the worker ends
    assert not run._thread.is_alive()


def test_a_renewed_lease_keeps_the_worker_computing():
    run = _run()
    for _ in range(int(2 * worker.LEASE / 0.25)):
        time.sleep(0.25)
        run.renew()
    assert run._thread.is_alive() or run.trace.finished
    run.cancelled = True


def test_the_worker_ends_at_the_time_limit_with_what_it_computed():
    run = _run(seconds=0.3)  # CPU seconds: on a loaded machine they take longer to pass
    for _ in range(300):
        run.renew()
        run.wait(0.1)
        if run.trace.finished:
            break
    t = run.trace
    assert t.status == "stopped" and t.finished
    assert t.message.startswith(f"Stopped after {t.k} iterations: the time limit of 0.3 s")
    assert 0 < t.k < LONG.max_iter and len(t.cost) == t.k + 1
    assert 0.3 <= run.spent < 0.6


def test_a_heavy_run_waits_for_the_gate_and_says_so():
    gate = Gate(1)
    assert gate.acquire(timeout=0)  # another visitor's heavy work holds the only slot
    run = _run(heavy=True, gate=gate)
    renew_until(run, lambda: run.queued and gate.waiting == 1)
    run.wait(0.3)
    assert run.queued and run.trace.k == 0 and gate.waiting == 1
    gate.release()
    renew_until(run, lambda: not run.queued and run.trace.k > 0)
    assert gate.busy == 1
    run.cancelled = True
    run.wait(30.0)  # joined: returns as the worker ends
    assert gate.busy == 0  # the slot is given back when the worker ends


def test_a_queued_run_whose_page_left_gives_up_its_place():
    gate = Gate(1)
    assert gate.acquire(timeout=0)
    run = _run(heavy=True, gate=gate)
    run.wait(worker.LEASE + 10.0)  # joined: returns as the lease runs out and the thread ends
    assert not run._thread.is_alive() and gate.waiting == 0 and run.trace.k == 0
    gate.release()


def test_the_gate_admits_at_most_its_slots():
    gate = Gate(2)
    inside, most = [0], [0]
    lock = threading.Lock()

    def heavy() -> None:
        while not gate.acquire(timeout=0.05):
            pass
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.05)
        with lock:
            inside[0] -= 1
        gate.release()

    threads = [threading.Thread(target=heavy) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 2 and gate.busy == 0 and gate.waiting == 0
    with pytest.raises(RuntimeError):
        gate.release()


def test_the_slots_come_from_the_environment_or_the_cores():
    assert slots_from_env({"LANDING_HEAVY_SLOTS": "3"}) == 3
    assert slots_from_env({}) >= 1
    for bad in ("0", "-1", "two"):
        with pytest.raises(ValueError, match="LANDING_HEAVY_SLOTS"):
            slots_from_env({"LANDING_HEAVY_SLOTS": bad})


class _Idle(worker.LeasedWorker):
    """Work with nothing to compute: only its key and its cancellation matter here."""

    def __init__(self, key) -> None:
        super().__init__(key, "idle", heavy=False, seconds=1.0)

    def done(self) -> bool:
        return True


def test_a_session_keeps_the_worker_of_its_key_and_cancels_a_replaced_one():
    session: dict = {}
    started: list = []

    def start(key):
        def make():
            started.append(key)
            return _Idle(key)
        return make

    first = worker.session_worker(session, "job", ("a",), start(("a",)))
    assert worker.session_worker(session, "job", ("a",), start(("a",))) is first
    assert started == [("a",)] and not first.cancelled
    second = worker.session_worker(session, "job", ("b",), start(("b",)))
    assert second is not first and second.key == ("b",) and session["job"] is second
    assert first.cancelled and not second.cancelled and started == [("a",), ("b",)]
    other = worker.session_worker(session, "other", ("a",), start(("a",)))
    assert other is not first and not second.cancelled  # each name holds its own worker


class _LateGate(Gate):
    """A gate whose slot comes free only once the worker's lease has run out."""

    def __init__(self, worker_of) -> None:
        super().__init__(1)
        self.worker_of = worker_of

    def acquire(self, timeout: float) -> bool:
        job = self.worker_of()
        job._lease = time.monotonic() - 1.0  # the page's last request was long ago
        return super().acquire(timeout)


class _Counting(worker.LeasedWorker):
    def __init__(self, gate) -> None:
        super().__init__(("k",), "counting", heavy=True, seconds=10.0, gate=gate)
        self.steps = 0

    def done(self) -> bool:
        return False

    def compute(self) -> None:
        self.steps += 1


def test_a_slot_that_comes_free_after_the_lease_ran_out_computes_nothing():
    """A heavy worker queued while its page closed: the slot it gets is handed back at once,
    with no step computed (a closed tab's queued work must not run its first step)."""
    box: list = []
    gate = _LateGate(lambda: box[0])
    job = _Counting(gate)
    box.append(job)
    job.renew()
    job.wait(5.0)
    assert job.steps == 0 and not job.queued
    assert gate.busy == 0 and gate.waiting == 0
