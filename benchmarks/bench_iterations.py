"""Iterations per second of the landing loop on a tiny problem, where Python overhead dominates.

brockett(3, 2): ``solvers.landing`` (the whole run: records, histories, stopping test) and the
bare ``solvers.iterate`` generator, with a constant step (0.1) and with the default step rule
(None: Barzilai-Borwein made safe), ITERATIONS iterations each (tol = 1e-300 so
the run never stops early), REPEATS times interleaved. Goal: >= 30,000 iterations/s, so the app
never waits on numerics. Run: ``uv run python benchmarks/bench_iterations.py``.
"""

from __future__ import annotations

import itertools
import statistics

from _common import interleaved, machine

from landing_core import problems, solvers

N, P = 3, 2
ITERATIONS = 20_000
REPEATS = 7
GOAL = 30_000


def variants() -> dict:
    problem = problems.brockett(N, P, seed=0)
    X0 = problems.initial_point(N, P, 0.3, seed=1)

    def run_landing(step):
        def run():
            res = solvers.landing(problem, X0, step=step, tol=1e-300, max_iter=ITERATIONS)
            assert res.iterations == ITERATIONS, res.message
        return run

    def run_iterate(step):
        config = solvers.Config(step=step)

        def run():
            records = solvers.iterate(problem, X0, config)
            last = next(itertools.islice(records, ITERATIONS, None))
            assert last.k == ITERATIONS
        return run

    return {
        "landing, constant 0.1": run_landing(0.1),
        "landing, default (BB)": run_landing(None),
        "iterate, constant 0.1": run_iterate(0.1),
        "iterate, default (BB)": run_iterate(None),
    }


def main() -> None:
    print(machine())
    print()
    print(f"brockett({N}, {P}), {ITERATIONS:,} iterations per run, {REPEATS} runs each")
    header = f"{'variant':>24} {'best it/s':>10} {'median it/s':>12} {'goal':>8}"
    print(header)
    print("-" * len(header))
    times = interleaved(variants(), REPEATS)
    for name, ts in times.items():
        best, median = ITERATIONS / min(ts), ITERATIONS / statistics.median(ts)
        verdict = "met" if best >= GOAL else "MISSED"
        print(f"{name:>24} {best:>10,.0f} {median:>12,.0f} {verdict:>8}")
    print(f"\ngoal: >= {GOAL:,} iterations/s (judged on the best run: the machine is shared)")


if __name__ == "__main__":
    main()
