"""Time to a relative gap |f - f*| / |f*| <= 1e-6 on brockett(200, 20): landing vs pymanopt.

Landing starts from X_0 = initial_point(200, 20, 0.3, seed=1) and must also reach
||X^T X - I||_F <= 1e-6; pymanopt's SteepestDescent and ConjugateGradient run on
pymanopt.manifolds.Stiefel(200, 20) (QR retraction, its default) from X_0's polar factor, with
the cost tr(X^T A X N) and its Euclidean gradient 2 A X N given directly (numpy backend, no
automatic differentiation). Each run is capped at 60 s. Landing stops through its callback;
pymanopt has no callback, so its cost function records the first evaluation that meets the
gap and stops the run (a trial point of the line search counts: this favours pymanopt a
little); its iterations are counted as gradient evaluations. Constant steps: 0.01 is about the
largest stable one here (0.015 diverges).

The first table runs landing as the library ships it: problems.brockett's value_and_grad computes
A X once per iterate for the cost and the gradient; pymanopt gets the cost and the gradient as
separate functions, each computing A X, as its API asks. The second table gives both sides a
one-entry cache of A X, shared by the cost and the gradient at the same point.
The row "BB, whole step <= 1/(2ω)" is the BB rule of sessions 1-2, which capped the whole step
at the safe step's 1/(2 omega) instead of the normal term's step alone (``normal_cap=False``).
The last table repeats landing (default step) and CG from eight starts, since the number of
iterations either needs depends on X_0. Goal: landing faster than both pymanopt solvers.
Run: ``uv run --group bench python benchmarks/bench_pymanopt.py`` (needs pymanopt).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np
import pymanopt
from _common import machine
from pymanopt.manifolds import Stiefel
from pymanopt.optimizers import ConjugateGradient, SteepestDescent

from landing_core import problems, solvers, steps

N, P = 200, 20
GAP, FEAS, CAP = 1e-6, 1e-6, 60.0
REPEATS = 5
DEFAULT, CG, SD = "landing, default step (ScaleFree)", "pymanopt ConjugateGradient", \
    "pymanopt SteepestDescent"


class _Reached(Exception):
    pass


def brockett_parts() -> tuple[problems.Problem, np.ndarray, np.ndarray]:
    """problems.brockett(200, 20, seed=0), and its A and weights N = diag(w) rebuilt."""
    problem = problems.brockett(N, P, seed=0)
    B = np.random.default_rng(0).standard_normal((N, N))  # as problems.brockett builds A
    A = (B + B.T) / (2.0 * np.sqrt(N))
    w = np.arange(P, 0, -1, dtype=float)
    X = problems.initial_point(N, P, 0.3, seed=1)
    assert abs(problem.cost(X) - np.trace(X.T @ A @ X @ np.diag(w))) < 1e-9
    return problem, A, w


def product(A: np.ndarray, shared: bool) -> Callable[[np.ndarray], np.ndarray]:
    """X -> A X; with ``shared``, the last result is reused for the same array X."""
    if not shared:
        return lambda X: A @ X
    last: list = [None, None]

    def AX(X):
        if X is not last[0]:
            last[:] = [X, A @ X]
        return last[1]
    return AX


def run_landing(problem, A, w, X0, step, shared):
    AX = product(A, shared)
    if shared:
        problem = problems.Problem(name="brockett", n=N, p=P,
                                   cost=lambda X: np.einsum("ij,ij->", X, AX(X) * w),
                                   egrad=lambda X: 2.0 * AX(X) * w, f_star=problem.f_star)
    f_star = problem.f_star

    def reached(rec: solvers.Record) -> bool:
        done = abs(rec.cost - f_star) <= GAP * abs(f_star) and rec.infeasibility <= FEAS
        return done or rec.time > CAP

    t0 = time.perf_counter()
    res = solvers.landing(problem, X0, beta=0.5, omega=1.0, step=step, tol=1e-300,
                          max_iter=10**8, callback=reached)
    seconds = time.perf_counter() - t0
    gap = abs(res.cost[-1] - f_star) / abs(f_star)
    ok = gap <= GAP and res.infeasibility[-1] <= FEAS
    return seconds, res.iterations, gap, ok, res.status.replace("stopped", "callback")


def run_pymanopt(optimizer_class, problem, A, w, X0, shared):
    manifold = Stiefel(N, P)
    f_star = problem.f_star
    AX = product(A, shared)
    state = {"evaluations": 0, "gradients": 0}

    @pymanopt.function.numpy(manifold)
    def cost(X):
        f = float(np.einsum("ij,ij->", X, AX(X) * w))
        state["evaluations"] += 1
        if abs(f - f_star) <= GAP * abs(f_star):
            state["gap"], state["time"] = abs(f - f_star) / abs(f_star), time.perf_counter()
            raise _Reached
        return f

    @pymanopt.function.numpy(manifold)
    def euclidean_gradient(X):
        state["gradients"] += 1  # one per iteration
        return 2.0 * AX(X) * w

    mproblem = pymanopt.Problem(manifold, cost, euclidean_gradient=euclidean_gradient)
    optimizer = optimizer_class(max_time=CAP, max_iterations=10**8, min_gradient_norm=0.0,
                                min_step_size=0.0, max_cost_evaluations=10**9, verbosity=0)
    start = problems.nearest_stiefel(X0)
    t0 = time.perf_counter()
    try:
        result = optimizer.run(mproblem, initial_point=start)
    except _Reached:
        return (state["time"] - t0, state["gradients"], state["gap"], True,
                f"{state['evaluations']:,} cost evaluations")
    seconds = time.perf_counter() - t0
    gap = abs(result.cost - f_star) / abs(f_star)
    return seconds, result.iterations, gap, False, f"stopped: {result.stopping_criterion}"


def table(problem, A, w, X0, shared: bool, slow: bool) -> float:
    """Print one table; return landing's best time over the faster pymanopt solver's."""
    runs = {
        DEFAULT: lambda: run_landing(problem, A, w, X0, None, shared),
        "landing, constant step 0.015": lambda: run_landing(problem, A, w, X0, 0.015, shared),
        CG: lambda: run_pymanopt(ConjugateGradient, problem, A, w, X0, shared),
    }
    if slow:
        runs |= {
            "landing, BB, whole step <= 1/(2ω)": lambda: run_landing(
                problem, A, w, X0, steps.BarzilaiBorwein(normal_cap=False), shared),
            "landing, Armijo": lambda: run_landing(problem, A, w, X0, steps.Armijo(), shared),
            "landing, constant step 0.01": lambda: run_landing(problem, A, w, X0, 0.01, shared),
            SD: lambda: run_pymanopt(SteepestDescent, problem, A, w, X0, shared),
        }
    fast = (DEFAULT, "landing, constant step 0.015", CG)
    outs: dict[str, list] = {name: [] for name in runs}
    for _ in range(REPEATS):  # the fast runs interleaved (the machine is shared)
        for name in fast:
            outs[name].append(runs[name]())
    for name in runs:  # the slow ones (seconds to tens of seconds) once
        if name not in fast:
            outs[name].append(runs[name]())
    header = (f"{'method':>38} {'best s':>8} {'median s':>9} {'iterations':>11} "
              f"{'final gap':>10}  outcome")
    print(header)
    print("-" * len(header))
    best = {}
    for name in runs:
        times = [o[0] for o in outs[name]]
        _, iters, gap, ok, status = outs[name][-1]
        best[name] = min(times) if ok else float("inf")
        print(f"{name:>38} {min(times):>8.3f} {statistics.median(times):>9.3f} {iters:>11,} "
              f"{gap:>10.2e}  {'reached' if ok else 'NOT reached'} ({status})")
    rounds = statistics.median(a[0] / b[0] for a, b in zip(outs[DEFAULT], outs[CG], strict=True))
    rival = min(best[CG], best.get(SD, float("inf")))
    print(f"landing (default step) / pymanopt CG, median over rounds: {rounds:.2f}")
    print(f"landing (default step) {best[DEFAULT]:.3f} s vs the faster pymanopt solver "
          f"{rival:.3f} s -> {'met' if best[DEFAULT] < rival else 'MISSED'} "
          "(goal: landing faster than both)")
    return best[DEFAULT] / rival


def starts_table(problem, A, w, seeds: range) -> None:
    """Landing (default step) against CG from several starts: the outcome depends on X_0."""
    print(f"{'seed':>5} {'landing s':>10} {'iterations':>11} {'CG s':>8} {'iterations':>11} "
          f"{'landing / CG':>13}")
    ratios = []
    for seed in seeds:
        X0 = problems.initial_point(N, P, 0.3, seed=seed)
        land = min((run_landing(problem, A, w, X0, None, False) for _ in range(2)),
                   key=lambda o: o[0])
        cg = min((run_pymanopt(ConjugateGradient, problem, A, w, X0, False) for _ in range(2)),
                 key=lambda o: o[0])
        ratio = land[0] / cg[0] if land[3] and cg[3] else float("nan")
        ratios.append(ratio)
        print(f"{seed:>5} {land[0]:>10.3f} {land[1]:>11,} {cg[0]:>8.3f} {cg[1]:>11,} "
              f"{ratio:>13.2f}")
    wins = sum(r < 1 for r in ratios)
    print(f"landing faster than CG from {wins} of {len(ratios)} starts; median landing / CG = "
          f"{statistics.median(ratios):.2f}")


def main() -> None:
    print(machine())
    print(f"pymanopt {pymanopt.__version__}")
    print()
    problem, A, w = brockett_parts()
    X0 = problems.initial_point(N, P, 0.3, seed=1)
    print(f"brockett({N}, {P}, seed=0), f* = {problem.f_star:.12g}; target: gap <= {GAP:g} "
          f"(and ||XᵀX − I||_F <= {FEAS:g} for landing); cap {CAP:g} s; best and median of "
          f"{REPEATS} runs (1 for the slow ones)")
    print("\nas shipped (landing: value_and_grad shares A X; pymanopt: cost and gradient each "
          "compute A X):")
    table(problem, A, w, X0, shared=False, slow=True)
    print("\ncost and gradient share A X at the same point (both sides):")
    table(problem, A, w, X0, shared=True, slow=False)
    print("\nfrom other starts X_0 = initial_point(200, 20, 0.3, seed), as shipped, best of 2:")
    starts_table(problem, A, w, range(1, 9))


if __name__ == "__main__":
    main()
