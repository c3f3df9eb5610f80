"""Armijo before and after a change: iterations to tol, ||h|| growth and the merit's weight mu.

Landing (beta = 0.5, omega = 1) with ``steps.Armijo(eta0)`` on 4 problems (brockett, pca,
linear, procrustes) x 6 sizes ((3, 2), (2, 1), (3, 1), (10, 3), (2, 2), (4, 4)) x 4 seeds, from
distances 0.1, 0.4 and 0.7 and eta0 = 0.1 and 1, tol = 1e-8, at most 3000 iterations; for
the library of this checkout and for another copy of it given as a package name (the library
before a change, copied under another name). Per (distance, eta0): the sum and median of the
iterations, the runs that did not converge, max_k ||h_k|| / ||h_0|| over the runs, and the
largest mu the rule reached. Counts, not times: the machine's load does not matter. Run:

    cp -r <old checkout>/landing_core /tmp/old/landing_core_base
    PYTHONPATH=/tmp/old uv run python benchmarks/bench_armijo.py landing_core_base
"""

from __future__ import annotations

import importlib
import statistics
import sys

PROBLEMS = ("brockett", "pca", "linear", "procrustes")
SIZES = ((3, 2), (2, 1), (3, 1), (10, 3), (2, 2), (4, 4))
SEEDS = range(4)
MAX_ITER = 3000


def grid(package: str, distance: float, eta0: float) -> str:
    lib = importlib.import_module(package)
    solvers = importlib.import_module(f"{package}.solvers")
    steps = importlib.import_module(f"{package}.steps")
    iterations, failed, growth, mu = [], 0, 0.0, 0.0
    for name in PROBLEMS:
        for n, p in SIZES:
            for seed in SEEDS:
                problem = lib.make_problem(name, n, p, seed=seed)
                X0 = lib.initial_point(n, p, distance, seed=seed)
                rule, state = steps.Armijo(eta0=eta0), {}

                def spy(ctx, _state, rule=rule, state=state):
                    return rule(ctx, state)

                res = solvers.landing(problem, X0, step=spy, tol=1e-8, max_iter=MAX_ITER)
                iterations.append(res.iterations)
                failed += res.status != "converged"
                growth = max(growth, float(res.infeasibility.max() / res.infeasibility[0]))
                mu = max(mu, state.get("mu", 0.0))
    return (f"sum {sum(iterations):>6,}  median {statistics.median(iterations):>5g}  "
            f"not converged {failed:>2}  max ||h_k||/||h_0|| {growth:>6.3f}  max mu {mu:>8.2e}")


def main() -> None:
    before = sys.argv[1]
    runs = len(PROBLEMS) * len(SIZES) * len(SEEDS)
    print(f"{runs} runs per line, tol 1e-8, at most {MAX_ITER} iterations")
    for distance in (0.1, 0.4, 0.7):
        for eta0 in (0.1, 1.0):
            for package in (before, "landing_core"):
                print(f"distance {distance}, eta0 {eta0:<4g} {package:>18}: "
                      f"{grid(package, distance, eta0)}")


if __name__ == "__main__":
    main()
