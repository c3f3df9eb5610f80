"""The figures the app's texts quote (issue 21, item 3), measured afresh: run it after a change to
the solvers or step rules and compare with the texts (tests/app/test_true_texts.py checks them).

Prints: BB iterations against omega (brockett 3 x 2 and 20 x 4); the fraction of BB steps that
lower omega at omega = 10 (default problem, five costs at four small sizes and two seeds,
brockett 50 x 10); O(3) iterations against beta (BB with omega fixed and omega/beta, Armijo with
omega/beta). Run: ``uv run python benchmarks/bench_true_texts.py`` (OPENBLAS_CORETYPE=... to
try another kernel).
"""

from __future__ import annotations

import numpy as np
from _common import machine

from landing_core.problems import initial_point, make_problem
from landing_core.solvers import Config, solve
from landing_core.steps import BarzilaiBorwein, make_step_rule

OMEGAS = (0.1, 1.0, 10.0, 100.0)
BETAS = (0.1, 0.3, 1.0, 3.0, 10.0)  # explorer.demos.RATE_BETAS
COSTS = ("brockett", "procrustes", "pca", "linear", "quartic")
SIZES = ((3, 2), (5, 2), (5, 3), (10, 3))


def bb(cost: str, n: int, p: int, seed: int, omega: float, beta: float = 0.5):
    """BB landing from the app's X0 (distance 0.4), tol 1e-8."""
    return solve(make_problem(cost, n, p, seed), initial_point(n, p, 0.4, seed),
                 Config(beta=beta, omega=omega, step=BarzilaiBorwein()), max_iter=5000)


def lowered(run, omega: float) -> float:
    """The fraction of the run's steps with omega_k < omega."""
    return float(np.mean(run.normal_step[1:] < omega * run.step[1:] * (1 - 1e-12)))


def o3(rule: str, scale_omega: bool) -> list[int | None]:
    problem, X0 = make_problem("brockett", 3, 3, 0), initial_point(3, 3, 0.4, 0)
    counts = []
    for beta in BETAS:
        run = solve(problem, X0, Config(beta=beta, omega=1 / beta if scale_omega else 1.0,
                                        step=make_step_rule(rule, 1.0)),
                    tol=1e-10, max_iter=2000)
        counts.append(run.iterations if run.status == "converged" else None)
    return counts


def main() -> None:
    print(machine())
    for n, p in ((3, 2), (20, 4)):
        print(f"BB on brockett {n} x {p}, omega = {OMEGAS}:",
              [bb("brockett", n, p, 0, w).iterations for w in OMEGAS])
    fractions = [lowered(bb(c, n, p, s, 10.0), 10.0)
                 for c in COSTS for n, p in SIZES for s in (0, 1)]
    print(f"BB steps lowering omega = 10: default {fractions[0]:.3f}; five costs x {SIZES} x "
          f"seeds 0, 1: {min(fractions):.3f} to {max(fractions):.3f}; brockett 50 x 10: "
          f"{lowered(bb('brockett', 50, 10, 0, 10.0), 10.0):.3f}")
    print(f"O(3), beta = {BETAS}: BB omega fixed {o3('bb', False)}, BB omega/beta "
          f"{o3('bb', True)}, Armijo omega/beta {o3('armijo', True)}")


if __name__ == "__main__":
    main()
