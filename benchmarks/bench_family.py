"""A family of 33 runs (issue 20's goal: it must pay for itself): one batch against its members
run one by one.

Three variants per size, interleaved over REPEATS rounds (thread CPU time: the machine is
shared), for the explorer's default family (brockett, β from 0.05 to 20, 33 values, ω = 1,
safe step η = 0.1, tol 1e-8, max_iter 500, X₀ at distance 0.4, seed 0):

- ``batch``: ``sweep.run_batch`` alone (the library's vectorized batch, final values only);
- ``family``: ``explorer.family.compute``, the batch with every member's history kept as the
  player needs it (what the explorer computes);
- ``one by one``: ``solvers.landing`` once per member (histories kept by ``solve``);
- ``floor``: the arithmetic no landing run can avoid, for every member-iteration the family
  runs: the cost and its gradient (``value_and_grad``) and the four n x p x p products of one
  update (X^T X, X^T G, G M, X K), on the stack of the members still running at each k
  (``floor, batch``) and on one member at a time (``floor, one by one``). Where the products
  dominate (the cost's A X at St(200, 20)) the batch cannot do less arithmetic than its members
  do one by one, so family / one by one is bounded below by floor, batch / floor, one by one.

Goal: family ≤ 0.5 × one by one, best of 5, at St(3, 2) and at St(200, 20).
Run: ``OPENBLAS_NUM_THREADS=1 uv run python benchmarks/bench_family.py`` (one BLAS thread, as
the budget's model assumes; thread CPU time leaves a BLAS worker thread's seconds out).
"""

from __future__ import annotations

import time

import numpy as np
from _common import interleaved, load_average, machine

from explorer import family
from explorer.runner import build_problem, initial
from explorer.state import AppConfig, validate
from landing_core import solvers
from landing_core.steps import Safe
from landing_core.sweep import run_batch

REPEATS = 5
SIZES = ((3, 2), (200, 20))


def variants(n: int, p: int) -> dict:
    config, _ = validate(AppConfig(n=n, p=p, scrub="beta"))
    problem = build_problem(config)
    betas = family.values(config.scrub_lo, config.scrub_hi, config.scrub_count)
    X0 = initial(config, problem)
    stack = np.repeat(X0[None], len(betas), axis=0)

    def batch():
        return run_batch(problem, stack, beta=betas, omega=config.omega, eta=config.eta,
                         step="safe", tol=config.tol, max_iter=config.max_iter)

    def members():
        return family.compute(config, problem, betas)

    def one_by_one():
        return [solvers.landing(problem, X0, beta=float(b), omega=config.omega,
                                step=Safe(eta=config.eta), tol=config.tol,
                                max_iter=config.max_iter) for b in betas]

    iterations = np.array([len(t.cost) - 1 for t in members().members])
    print(f"St({n}, {p}): {len(betas)} members, iterations {iterations.min()}-"
          f"{iterations.max()} (total {iterations.sum()})")
    K = np.eye(p)

    def update_floor(X: np.ndarray) -> None:
        _, G = problem.value_and_grad(X)
        M = np.swapaxes(X, -1, -2) @ X
        np.swapaxes(X, -1, -2) @ G
        G @ M
        X @ K

    def floor_batch():
        for k in range(iterations.max()):
            update_floor(stack[iterations > k])

    def floor_single():
        for count in iterations:
            for _ in range(count):
                update_floor(X0)

    return {"batch": batch, "family": members, "one by one": one_by_one,
            "floor, batch": floor_batch, "floor, one by one": floor_single}


def main() -> None:
    print(machine())
    print()
    for n, p in SIZES:
        times = interleaved(variants(n, p), REPEATS, clock=time.thread_time)
        best = {name: min(t) for name, t in times.items()}
        for name, t in times.items():
            print(f"  {name:>10}: best {best[name]:.3f} s, median {np.median(t):.3f} s")
        print(f"  family / one by one (best): {best['family'] / best['one by one']:.2f}"
              f"  (goal <= 0.5); batch / one by one: "
              f"{best['batch'] / best['one by one']:.2f}")
        print(f"  floor, batch / floor, one by one (best): "
              f"{best['floor, batch'] / best['floor, one by one']:.2f}; family / floor, batch: "
              f"{best['family'] / best['floor, batch']:.2f}; one by one / floor, one by one: "
              f"{best['one by one'] / best['floor, one by one']:.2f}")
        print(f"  load average: {load_average()}")
        print()


if __name__ == "__main__":
    main()
