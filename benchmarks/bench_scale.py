"""The default step rule at three scales of each cost (issue 23, point 3): iteration counts only.

``landing(problem, X0)`` with no step argument (Barzilai-Borwein made safe), tol 1e-8,
max_iter 5000, from ``initial_point(200, 20, 0.3, seed=1)``, on linear, brockett, procrustes and
pca, each as is, times 1e-3 and times 1e3 (the tolerance is absolute). Goal (not yet met):
every run converges, with iteration counts within 2x of the unscaled run.
Run: ``uv run python benchmarks/bench_scale.py``.
"""

from __future__ import annotations

import time

import numpy as np
from _common import load_average, machine

from landing_core import problems, solvers

N, P = 200, 20
SCALES = (1.0, 1e-3, 1e3)


def main() -> None:
    print(machine())
    print()
    for name in ("linear", "brockett", "procrustes", "pca"):
        base = problems.make_problem(name, N, P, seed=0)
        X0 = problems.initial_point(N, P, 0.3, seed=1)
        row = []
        for s in SCALES:
            scaled = problems.Problem(n=N, p=P, cost=lambda X, s=s, b=base: s * b.cost(X),
                                      egrad=lambda X, s=s, b=base: s * b.egrad(X))
            t0 = time.thread_time()
            res = solvers.landing(scaled, X0, tol=1e-8, max_iter=5000)
            row.append(f"x{s:g}: {res.status} {res.iterations} it "
                       f"{time.thread_time() - t0:.1f}s")
        print(f"{name}({N},{P}) |G0|={np.linalg.norm(base.egrad(X0)):.3g}: " + "; ".join(row),
              flush=True)
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
