"""The default step rule at three scales of each cost (issue 23, point 3).

``landing(problem, X0)`` with no step argument (``steps.ScaleFree``), tol 1e-8 (absolute, as
Algorithm 1's test), from ``initial_point(n, p, 0.3, seed=1)``, on linear, brockett,
procrustes and pca (seed 0) at (200, 20) and (2000, 100), each as is, times 1e-3 and times
1e3 (the cost and gradient functions scaled, sharing their work as the catalogue's do). Each
run stops at the tolerance, after MAX_ITER updates, or after CAP seconds (a callback).
Printed per run: the status, the updates, the first k with ||grad|| + ||h|| <= 1e-8 s (the
tolerance scaled with the cost, which the iterates of a scale-free rule reach at the same k
whatever s; for s < 1 the run goes on to 1e-8 s), wall seconds to the absolute tolerance
(prorated by iterations where the run went on), the relative gap there |f - f*| / |f*| (n/a
where f* is not known: procrustes with p < n) and ||X^T X - I||_F.
Goal: every run converges, iteration counts within 2x of the unscaled run.
Run: ``uv run python benchmarks/bench_defaults.py [--sizes 200x20,2000x100] [--costs pca]
[--cap 90]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import load_average, machine

from landing_core import problems, solvers

COSTS = ("linear", "brockett", "procrustes", "pca")
SCALES = (1.0, 1e-3, 1e3)
TOL, MAX_ITER = 1e-8, 20000


def scaled(problem: problems.Problem, s: float) -> problems.Problem:
    """s f, keeping the problem's shared cost-and-gradient evaluation."""
    both = problem.cost_and_egrad
    return problems.Problem(
        n=problem.n, p=problem.p, name=problem.name,
        cost=lambda X: s * problem.cost(X), egrad=lambda X: s * problem.egrad(X),
        cost_and_egrad=None if both is None else (lambda X: tuple(s * v for v in both(X))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200x20,2000x100")
    parser.add_argument("--costs", default=",".join(COSTS))
    parser.add_argument("--cap", type=float, default=90.0, help="seconds per run")
    args = parser.parse_args()
    print(machine())
    print(f"tol {TOL:g}, max_iter {MAX_ITER}, cap {args.cap:g} s per run\n")
    print(f"{'cost':>10} {'(n, p)':>11} {'scale':>6} {'status':>9} {'iters':>6} "
          f"{'k(tol s)':>8} {'time s':>7} {'gap':>9} {'‖XᵀX − I‖':>10}")
    for size in args.sizes.split(","):
        n, p = (int(v) for v in size.split("x"))
        X0 = problems.initial_point(n, p, 0.3, seed=1)
        for name in args.costs.split(","):
            base = problems.make_problem(name, n, p, seed=0)
            for s in SCALES:
                end = time.perf_counter() + args.cap
                t0 = time.perf_counter()
                res = solvers.landing(scaled(base, s), X0, tol=min(TOL, TOL * s),
                                      max_iter=MAX_ITER,
                                      callback=lambda rec, end=end: time.perf_counter() > end)
                seconds = time.perf_counter() - t0
                total = res.grad_norm + res.infeasibility
                reached = np.flatnonzero(total <= TOL)
                status = res.status if reached.size == 0 else "converged"
                iters = int(reached[0]) if reached.size else res.iterations
                rel = np.flatnonzero(total <= TOL * s)
                k_rel = str(rel[0]) if rel.size else "-"
                # the time to the absolute tolerance (the run may go on to TOL s for s < 1)
                seconds *= (iters + 1) / (res.iterations + 1)
                f_star = base.f_star
                gap = (f"{abs(res.cost[iters] / s - f_star) / abs(f_star):.2e}"
                       if f_star is not None else "n/a")
                X = res.X
                feas = np.linalg.norm(X.T @ X - np.eye(p)) if iters == res.iterations else \
                    res.infeasibility[iters]
                print(f"{name:>10} {f'({n}, {p})':>11} {s:>6g} {status:>9} {iters:>6} "
                      f"{k_rel:>8} {seconds:>7.2f} {gap:>9} {feas:>10.2e}", flush=True)
    print(f"\nload average at the end: {load_average()}")


if __name__ == "__main__":
    main()
