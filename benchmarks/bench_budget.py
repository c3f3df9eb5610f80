"""The budget's time model (explorer.budget.run_seconds) against measured runs.

The model decides what the app refuses: it must not exceed a measured run grossly (it would
refuse what fits). For each case the fastest of three runs is timed (a loaded machine only
slows them) and set against the model:

- brockett St(3, 2) and St(120, 30): landing with the safe step, Cayley-RGD with Armijo;
- the generalized eigenproblem on XᵀBX = I (the preset B) at St(3, 2) and St(120, 30), whose
  model also pays B X and the B method's longer iteration.

Goal: model < 8 x measured in every case. Prints the ratios with the machine and the load;
exits 1 when a goal is missed.
Run: ``uv run --group test python benchmarks/bench_budget.py``.
"""

from __future__ import annotations

import os
import sys
import time

from _common import machine

from explorer import budget
from explorer.constraint import preset_B
from explorer.runner import build_problem
from explorer.state import AppConfig
from landing_core.problems import initial_point, make_problem
from landing_core.solvers import Config, solve
from landing_core.steps import make_step_rule

RATIO = 8  # the model may exceed the measured time by less than this


def best_time(P, X0, cfg: Config, iters: int) -> tuple[float, int]:
    """The fastest of three timed runs (seconds) and its iteration count."""
    best, count = float("inf"), 0
    for _ in range(3):
        t = time.perf_counter()
        r = solve(P, X0, cfg, tol=1e-300, max_iter=iters)
        best, count = min(best, time.perf_counter() - t), r.iterations
    return best, count


def main() -> int:
    print(machine())
    missed = 0
    for n, p, method, step, iters in ((3, 2, "landing", "safe", 300),
                                      (120, 30, "landing", "safe", 60),
                                      (120, 30, "rgd-cayley", "armijo", 60)):
        cfg = Config(method=method, step=make_step_rule(step, 0.1))
        measured, k = best_time(make_problem("brockett", n, p, 0), initial_point(n, p, 0.4, 0),
                                cfg, iters)
        model = budget.run_seconds("brockett", n, p, k, method, step)
        missed += model >= RATIO * measured
        print(f"brockett St({n}, {p}) {method}/{step}, {k} iterations: measured "
              f"{measured * 1e3:.2f} ms, model {model * 1e3:.2f} ms, model/measured "
              f"{model / measured:.2f} (goal < {RATIO})")
    for n, p in ((3, 2), (120, 30)):
        P = build_problem(AppConfig(problem="generalized_eigen", constraint="preset", n=n, p=p),
                          B=preset_B(n))
        X0 = initial_point(n, p, 0.4, 0, B=P.B)
        measured, k = best_time(P, X0, Config(step=make_step_rule("safe", 0.1)), 200)
        model = budget.run_seconds("generalized_eigen", n, p, k, constrained=True)
        missed += model >= RATIO * measured
        print(f"generalized_eigen on XᵀBX = I, St({n}, {p}), {k} iterations: measured "
              f"{measured * 1e3:.2f} ms, model {model * 1e3:.2f} ms, model/measured "
              f"{model / measured:.2f} (goal < {RATIO})")
    print("load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
