"""A 30 x 30 (beta x eta) sweep of 500 iterations on brockett(5, 2), against one call per run.

``sweep.sweep`` runs the 900 configurations as one (900, 5, 2) stack with a constant step; the
reference is ``solvers.landing`` called once per configuration with the same parameters
(constant step, same X_0, max_iter = 500, tol = 1e-8). The calls are timed on a subset of
SUBSET configurations spread over the grid and extrapolated x (900 / SUBSET).
Goals: sweep <= 1 s, and >= 20x faster than the calls.
Run: ``uv run python benchmarks/bench_sweep.py``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from _common import machine

from landing_core import problems, solvers, sweep

N, P, MAX_ITER = 5, 2, 500
BETAS = np.geomspace(0.05, 5.0, 30)
ETAS = np.geomspace(0.01, 1.0, 30)
SUBSET = 90
REPEATS = 5


def main() -> None:
    print(machine())
    print()
    problem = problems.brockett(N, P, seed=0)
    X0 = problems.initial_point(N, P, 0.3, seed=0)  # sweep's default seed (0) and distance

    def run_sweep():
        return sweep.sweep(problem, beta=BETAS, eta=ETAS, step="constant", max_iter=MAX_ITER)

    params, _ = sweep.grid(beta=BETAS, eta=ETAS)
    chosen = np.linspace(0, len(params["beta"]) - 1, SUBSET).round().astype(int)

    def run_calls():
        return [solvers.landing(problem, X0, beta=float(params["beta"][i]),
                                step=float(params["eta"][i]), max_iter=MAX_ITER)
                for i in chosen]

    run_sweep()  # warm up
    sweep_times, call_times = [], []
    for _ in range(REPEATS):  # interleaved: the machine is shared
        t0 = time.perf_counter()
        result = run_sweep()
        sweep_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        calls = run_calls()
        call_times.append((time.perf_counter() - t0) * len(params["beta"]) / SUBSET)

    # the two agree run for run (same iterations and status on the subset)
    agree = all(result.iterations[i] == c.iterations and result.status[i] == c.status
                for i, c in zip(chosen, calls, strict=True))
    counts = {s: int(np.sum(result.status == s)) for s in ("converged", "max_iter", "diverged")}
    runs = len(params["beta"])
    print(f"brockett({N}, {P}), {runs} runs (30 beta x 30 eta, constant step), "
          f"max_iter {MAX_ITER}; outcomes {counts}")
    print(f"calls timed on {SUBSET} of the {runs} runs, extrapolated x{runs / SUBSET:g}; "
          f"sweep and calls agree on iterations and status: {agree}")
    header = f"{'variant':>24} {'best s':>8} {'median s':>9}"
    print(header)
    print("-" * len(header))
    for name, ts in (("sweep (one batch)", sweep_times), ("900 landing calls", call_times)):
        print(f"{name:>24} {min(ts):>8.3f} {statistics.median(ts):>9.3f}")
    speedup = statistics.median(c / s for c, s in zip(call_times, sweep_times, strict=True))
    print()
    print(f"sweep: {min(sweep_times):.3f} s best -> "
          f"{'met' if min(sweep_times) <= 1 else 'MISSED'} (goal <= 1 s)")
    print(f"speed-up: {speedup:.0f}x (median over rounds) -> "
          f"{'met' if speedup >= 20 else 'MISSED'} (goal >= 20x)")


if __name__ == "__main__":
    main()
