"""One epoch of stochastic landing against one full-gradient landing iteration, same data.

online_pca(200, 20, samples=10,000): one epoch of SGD and of SAGA at batch 50 (200 minibatch
updates through ``solvers.iterate``, the code every run uses, constant step) against one
full-gradient landing iteration (``iterate`` with ``method="landing"``: f and its gradient
from the 10,000 samples, one pass over the data, then the field). Both touch every sample
once. Also reported: ``stochastic.epochs`` run for one epoch (the updates plus the
full sum evaluated at X_0 and at the epoch's end). Variants are interleaved and timed ROUNDS
times; the ratio is taken within each round, and its median over rounds reported.
Goal: one epoch <= 2x one full iteration.

The arithmetic alone bounds the ratio from below: an update costs 2 b n p multiply-adds for
the minibatch gradient and 4 n p^2 for the landing field, so an epoch costs
(m / b)(2 b n p + 4 n p^2) = 2 m n p (1 + 2 p / b) against 2 m n p for the full gradient:
1.8x here (p = 20, b = 50) at equal BLAS speed, which small products do not reach.
Run: ``uv run python benchmarks/bench_stochastic.py``.
"""

from __future__ import annotations

import itertools
import statistics
import time

from _common import interleaved, machine, median_ratio

from landing_core import problems, solvers
from landing_core.stochastic import default_step, epochs, stochastic_config

N, P, M, BATCH = 200, 20, 10_000, 50
ROUNDS = 15
FULL_ITERATIONS = 20  # full-gradient iterations per sample (its time is divided by this)
GOAL = 2.0


def variants() -> dict:
    problem = problems.online_pca(N, P, samples=M, seed=0)
    X0 = problems.initial_point(N, P, 0.3, seed=1)
    eta = default_step(problem, BATCH)
    per_epoch = -(-M // BATCH)

    def config(method: str) -> solvers.Config:
        return stochastic_config(method, batch_size=BATCH, step=eta, beta=0.5, omega=1.0,
                                 seed=0, problem=problem)

    def updates(method: str, count: int):
        cfg = config(method)
        # the generator is made (and SAGA's table filled at X_0) outside the timed call
        state = {}

        def prepare():
            state["records"] = solvers.iterate(problem, X0, cfg)
            next(state["records"])  # X_0's record: the table and the first estimate

        def run():
            next(itertools.islice(state["records"], count - 1, None))
        return prepare, run

    runs = {}
    for name, method, count in (("full-gradient iteration", "landing", FULL_ITERATIONS),
                                ("SGD epoch (updates)", "sgd", per_epoch),
                                ("SAGA epoch (updates)", "saga", per_epoch)):
        prepare, run = updates(method, count)
        runs[name] = (prepare, run, count if method == "landing" else 1)

    def monitored(method: str):
        cfg = config(method)

        def run():
            last = list(epochs(problem, X0, cfg, 1))[-1]
            assert last.epoch == 1
        return run
    return runs, {"SGD: epochs(1), 2 full evaluations": monitored("sgd")}


def main() -> None:
    print(machine())
    print()
    print(f"online_pca({N}, {P}, samples={M:,}), batch {BATCH}: {-(-M // BATCH)} updates per "
          f"epoch; {ROUNDS} rounds, interleaved")
    runs, extra = variants()
    # interleaved like _common.interleaved, but only ``run`` is timed (``prepare`` makes the
    # generator and SAGA's table before it)
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(ROUNDS + 1):
        for name, (prepare, run, count) in (list(runs.items()) if r % 2 == 0
                                            else list(runs.items())[::-1]):
            prepare()
            t0 = time.perf_counter()
            run()
            if r:  # round 0 warms up
                samples[name].append((time.perf_counter() - t0) / count)
    extra_t = interleaved(extra, ROUNDS // 3)
    full = samples["full-gradient iteration"]
    header = f"{'variant':>42} {'best ms':>9} {'median ms':>10} {'ratio (median)':>15}"
    print(header)
    print("-" * len(header))
    for name, ts in samples.items():
        ratio = median_ratio(ts, full)
        print(f"{name:>42} {1e3 * min(ts):>9.2f} {1e3 * statistics.median(ts):>10.2f} "
              f"{ratio:>15.2f}")
    for name, ts in extra_t.items():
        print(f"{name:>42} {1e3 * min(ts):>9.2f} {1e3 * statistics.median(ts):>10.2f} "
              f"{statistics.median(ts) / statistics.median(full):>15.2f}")
    for name in ("SGD epoch (updates)", "SAGA epoch (updates)"):
        ratio = median_ratio(samples[name], full)
        print(f"goal {name}: ratio {ratio:.2f} {'<=' if ratio <= GOAL else '>'} {GOAL} "
              f"({'met' if ratio <= GOAL else 'MISSED'})")


if __name__ == "__main__":
    main()
