"""The cost of the common stationarity measure: iterations/s of the landing loop before and after.

``solvers.landing`` on brockett(3, 2) (bench_iterations.py's setting: 20,000 iterations, tol =
1e-300, constant step 0.1 and the default BB step), run with the library of this checkout and
with another copy of it given as a package name on the command line (the library as it was
before a change, copied under another name), interleaved round by round on the same machine,
so the ratio is taken under the same load. Run from the repository's root:

    cp -r <old checkout>/landing_core /tmp/old/landing_core_base
    PYTHONPATH=/tmp/old uv run python benchmarks/bench_stationarity.py landing_core_base
"""

from __future__ import annotations

import importlib
import statistics
import sys

from _common import interleaved, machine, median_ratio

N, P = 3, 2
ITERATIONS = 20_000
REPEATS = 11


def runs(package: str) -> dict:
    lib = importlib.import_module(package)
    solvers = importlib.import_module(f"{package}.solvers")
    problem = lib.make_problem("brockett", N, P, seed=0)
    X0 = lib.initial_point(N, P, 0.3, seed=1)

    def run(step):
        def go():
            res = solvers.landing(problem, X0, step=step, tol=1e-300, max_iter=ITERATIONS)
            assert res.iterations == ITERATIONS, res.message
        return go

    return {f"{package}, constant 0.1": run(0.1), f"{package}, default (ScaleFree)": run(None)}


def main() -> None:
    before = sys.argv[1]
    print(machine())
    print(f"\nbrockett({N}, {P}), {ITERATIONS:,} iterations per run, {REPEATS} runs each")
    variants = {**runs(before), **runs("landing_core")}
    times = interleaved(variants, REPEATS)
    rate = {name: ITERATIONS / min(ts) for name, ts in times.items()}
    median = {name: ITERATIONS / statistics.median(ts) for name, ts in times.items()}
    for name in times:
        print(f"{name:>34}  best {rate[name]:>8,.0f} it/s  median {median[name]:>8,.0f} it/s")
    for rule in ("constant 0.1", "default (ScaleFree)"):
        after, old = f"landing_core, {rule}", f"{before}, {rule}"
        print(f"{rule:>14}: after/before = {rate[after] / rate[old]:.3f} (best over best), "
              f"{median_ratio(times[old], times[after]):.3f} (median of the rounds' ratios)")


if __name__ == "__main__":
    main()
