"""Work ended from outside: ``should_stop`` in solvers.solve and sweep.run_batch, and
solvers.deadline. A stopped run keeps exactly what an unstopped run computed up to there."""

from __future__ import annotations

import inspect
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from landing_core import initial_point, make_problem
from landing_core.run import Status
from landing_core.solvers import Config, deadline, iterate, solve
from landing_core.steps import Safe
from landing_core.sweep import sweep

PROBLEM = make_problem("brockett", 5, 2, 0)
X0 = initial_point(5, 2, 0.4, 0)
CONFIG = Config(beta=0.5, omega=1.0, step=Safe(0.05))


def _after(calls: int, reason: object = "closed"):
    """A should_stop that answers ``reason`` on its ``calls``-th call (1-based) and after."""
    count = [0]

    def should_stop() -> object:
        count[0] += 1
        return reason if count[0] >= calls else None

    return should_stop, count


@settings(max_examples=25, deadline=None)
@given(calls=st.integers(1, 60), reason=st.sampled_from(["the page closed", True]))
def test_a_stopped_run_is_the_prefix_of_the_full_run(calls, reason):
    full = solve(PROBLEM, X0, CONFIG, tol=1e-300, max_iter=80)
    should_stop, count = _after(calls, reason)
    cut = solve(PROBLEM, X0, CONFIG, tol=1e-300, max_iter=80, should_stop=should_stop)
    # checked once per iterate from X_0 on: the calls-th check follows X_{calls-1}
    assert cut.status == Status.STOPPED and cut.iterations == calls - 1 and count[0] == calls
    assert cut.message.startswith(f"Stopped after {calls - 1} iterations")
    assert ("the page closed" in cut.message) == isinstance(reason, str)
    for name in ("cost", "infeasibility", "grad_norm", "step"):
        np.testing.assert_array_equal(getattr(cut, name), getattr(full, name)[:calls])
    np.testing.assert_array_equal(cut.X, solve(PROBLEM, X0, CONFIG, tol=1e-300,
                                               max_iter=calls - 1).X)


def test_a_run_that_stops_on_its_own_is_not_marked_stopped():
    should_stop, _ = _after(1)  # would stop at X_0, where the iteration limit holds first
    res = solve(PROBLEM, X0, CONFIG, tol=1e-8, max_iter=0, should_stop=should_stop)
    assert res.status == "max_iter"
    converged = solve(PROBLEM, X0, CONFIG, tol=1e-8, max_iter=5000)
    k = converged.iterations
    should_stop, count = _after(k + 1)  # answers on the check after X_k: not asked there
    res = solve(PROBLEM, X0, CONFIG, tol=1e-8, max_iter=5000, should_stop=should_stop)
    assert res.status == "converged" and res.iterations == k and count[0] == k


def test_deadline_answers_once_its_time_has_passed():
    now = [100.0]
    check = deadline(2.5, clock=lambda: now[0])
    assert check() is None
    now[0] = 102.4
    assert check() is None
    now[0] = 102.5
    assert check() == "the time limit of 2.5 s was reached"
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="seconds > 0"):
            deadline(bad)


def _ticks(seconds_per_read: float):
    """A clock that advances ``seconds_per_read`` at each read: a deadline of ``T`` seconds then
    answers on its ``T / seconds_per_read``-th check (its first read is at its creation), the
    same on any machine, where the wall clock would measure the machine. Powers of two: the
    reads are exact, so the check that reaches ``T`` is the one the test counts."""
    reads = [0]

    def clock() -> float:
        reads[0] += 1
        return (reads[0] - 1) * seconds_per_read

    return clock


def test_a_deadline_ends_a_long_run_on_time():
    big = make_problem("brockett", 40, 10, 0)
    checks = 32  # the deadline of 0.25 s, read every 2**-7 s of the clock
    res = solve(big, initial_point(40, 10, 0.4, 0), CONFIG, tol=1e-300, max_iter=10**7,
                should_stop=deadline(0.25, clock=_ticks(2.0**-7)))
    # checked once per iterate from X_0 on: the checks-th check follows X_{checks-1}
    assert res.status == Status.STOPPED and res.iterations == checks - 1
    assert "the time limit of 0.25 s was reached" in res.message
    assert len(res.cost) == res.iterations + 1 and np.all(np.isfinite(res.cost))
    # the clocks a caller gets: the wall clock by default, a thread's CPU time on request
    assert inspect.signature(deadline).parameters["clock"].default is time.monotonic
    cpu = deadline(5.0, clock=time.thread_time, what="computing-time limit")
    assert cpu() is None


def test_a_runs_time_reads_the_clock_it_is_given():
    """``time`` sums ``clock`` over the run's own work, each stretch read where it starts and
    where its record is yielded: a clock of 2**-7 s per read gives k + 1 times that at X_k, on
    any machine. The wall clock by default; the app hands the thread's CPU time."""
    res = solve(PROBLEM, X0, CONFIG, tol=1e-300, max_iter=20, clock=_ticks(2.0**-7))
    np.testing.assert_array_equal(res.time, (np.arange(21) + 1) * 2.0**-7)
    for run in (solve, iterate):
        assert inspect.signature(run).parameters["clock"].default is time.perf_counter


def test_the_callers_work_between_records_is_not_the_runs_time():
    """What the caller does between two records (the app draws the geometry views, stores the
    iterates) is not the method's time: a caller that spends 1 s of the same clock after every
    record leaves the run's time as it is without it, the run's own stretches (k + 1 of 2**-7
    s at X_k)."""
    now = [0.0]

    def clock() -> float:
        now[0] += 2.0**-7  # every read: a stretch of the run's work reads 2**-7
        return now[0]

    times = []
    for rec in iterate(PROBLEM, X0, CONFIG, clock=clock):
        times.append(rec.time)
        now[0] += 1.0  # the caller's work
        if rec.k == 20:
            break
    np.testing.assert_array_equal(times, (np.arange(21) + 1) * 2.0**-7)


def test_a_stopped_sweep_keeps_finished_runs_and_the_last_iterate_of_the_rest():
    etas = (0.002, 0.2)  # the large step converges in about 200 iterations, the small not
    full = sweep(PROBLEM, beta=(0.5,), omega=(1.0,), eta=etas, step="safe", tol=1e-6,
                 max_iter=3000)
    fast = int(np.argmin(full.iterations))
    k_fast = int(full.iterations[fast])
    stop_at = k_fast + 5  # the check after batch iteration k runs k + 1 times
    should_stop, _ = _after(stop_at + 1)
    cut = sweep(PROBLEM, beta=(0.5,), omega=(1.0,), eta=etas, step="safe", tol=1e-6,
                max_iter=3000, should_stop=should_stop)
    assert cut.status[fast] == "converged" and cut.iterations[fast] == k_fast
    np.testing.assert_array_equal(cut.final_X[fast], full.final_X[fast])
    slow = 1 - fast
    assert cut.status[slow] == Status.STOPPED and cut.iterations[slow] == stop_at
    # its values are those of the same run with the limit at stop_at
    limited = sweep(PROBLEM, beta=(0.5,), omega=(1.0,), eta=(etas[slow],), step="safe",
                    tol=1e-6, max_iter=stop_at)
    assert limited.status[0] == "max_iter"
    for name in ("final_cost", "final_infeasibility", "final_grad_norm", "final_X"):
        np.testing.assert_allclose(getattr(cut, name)[slow], getattr(limited, name)[0],
                                   rtol=1e-12, atol=0)


def test_a_deadline_ends_a_large_sweep_on_time():
    big = make_problem("brockett", 60, 15, 0)
    checks = 16  # the deadline of 0.25 s, read every 2**-6 s of the clock
    res = sweep(big, beta=np.geomspace(0.1, 10, 10), eta=(1e-4,), step="safe", tol=1e-300,
                max_iter=10**6, should_stop=deadline(0.25, clock=_ticks(2.0**-6)))
    # every run of the batch ends at the same check: the checks-th, after iteration checks - 1
    assert set(res.status) == {Status.STOPPED} and np.all(res.iterations == checks - 1)
    assert np.all(np.isfinite(res.final_cost))
