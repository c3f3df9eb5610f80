"""Landing on X^T B X = I at n = 20,000, p = 10 with sparse A and B (issue 13).

A: the 2-D Dirichlet Laplacian (5-point stencil) on a 200 x 100 grid; B: the mass matrix of
bilinear finite elements on that grid (the Kronecker product of the 1-D P1 mass matrices,
9 nonzeros a row). Problem: ``generalized_eigen(n, 10, A=A, B=B)``, min tr(X^T A X) subject to
X^T B X = I, its optimum from shift-invert Lanczos.

1. Cost of one iteration: ``solvers.iterate`` with the default step rule (``steps.ScaleFree``,
   made safe by the B-ball safe step), one iteration per call, interleaved round by round with its
   floors, once on the wall clock and once on thread CPU time (which leaves out the time the
   process waits descheduled on a loaded machine). Goal: iteration <= 1.5 x (A X + B X) plus
   the p x p work. Two ratios, each the median over rounds of the ratio within a round (and
   the ratio of minimums):
   - literal: iteration / (A X + B X);
   - with the floor: iteration / (A X + B X + the p x p work), the p x p work being what the
     field cannot do without: the six n x p x p products that form and apply p x p matrices,
     (B X)^T X = M (for h_B), (B X)^T B X = C (the beta term and the safe step),
     (B X)^T G = A_B, then G M, B X K_1 M (the stationarity measure grad_1 the stopping rule
     reads) and B X (K_beta M + omega H) (V), plus the O(p^3) work (``field_blocks``: a
     Cholesky, a p x p eigendecomposition and solves; lambda_max(C) and the safe step's
     bisection); also without the O(p^3) part.
   Then where the time goes: one instrumented run splits an iteration into the problem's
   gradient (A X, f, 2 A X), B X, the field, the step rule and the move.
2. Time to relative gap 1e-6 (no pass mark): landing from X0 = initial_point(..., B=B) against
   scipy.sparse.linalg.lobpcg on the same problem and the same X0 (plain, and with the Jacobi
   preconditioner diag(A)^{-1}), each rerun with just the iterations it needs; wall and
   thread CPU seconds (one BLAS thread: the CPU seconds are the work, whatever the load).

Run: ``OPENBLAS_NUM_THREADS=1 uv run python benchmarks/bench_generalized.py`` (one BLAS thread:
on this shared 2-core machine numpy's threads contend with the other jobs).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
import warnings
from unittest import mock

import numpy as np
import scipy.sparse
import scipy.sparse.linalg
from _common import interleaved, machine, median_ratio

from landing_core import Config, iterate
from landing_core.constraints import generalized as constraint_module
from landing_core.generalized import field_blocks, lambda_max, landing_direction_B, safe_step_B
from landing_core.methods.landing import Landing
from landing_core.problems import generalized_eigen, initial_point
from landing_core.steps import BarzilaiBorwein

NX, NY, P = 200, 100, 10
GAP = 1e-6


def grid_matrices(nx: int, ny: int) -> tuple[scipy.sparse.csr_array, scipy.sparse.csr_array]:
    def lap(m: int) -> scipy.sparse.dia_array:
        e = np.ones(m)
        return scipy.sparse.diags_array([-e[:-1], 2 * e, -e[:-1]], offsets=[-1, 0, 1])

    def mass(m: int) -> scipy.sparse.dia_array:
        e = np.ones(m)
        return scipy.sparse.diags_array([e[:-1], 4 * e, e[:-1]], offsets=[-1, 0, 1]) / 6.0

    ix, iy = scipy.sparse.identity(nx), scipy.sparse.identity(ny)
    A = scipy.sparse.kron(lap(nx), iy) + scipy.sparse.kron(ix, lap(ny))
    return scipy.sparse.csr_array(A), scipy.sparse.csr_array(scipy.sparse.kron(mass(nx), mass(ny)))


def per_iteration(problem, X0, rounds: int = 100) -> None:
    A, B = problem.A, problem.B
    X = X0.copy()
    runs = iterate(problem, X0, Config())
    next(runs)  # X_0 evaluated
    BX, G = B @ X, 2.0 * (A @ X)
    K = np.eye(problem.p)
    M, C, Ab = BX.T @ X, BX.T @ BX, BX.T @ G
    lam = lambda_max(B)
    V = landing_direction_B(X, BX, G, 0.5, 1.0).V
    g2 = float(np.vdot(V, V))  # ||V||^2 at X: the safe step's bisection as in the run

    def products():
        """A X, B X and the six n x p x p products of the field (``landing_direction_B``),
        alone."""
        AX, BX_ = A @ X, B @ X
        return BX_.T @ X, BX_.T @ BX_, BX_.T @ AX, AX @ K, BX_ @ K, BX_ @ K

    def cubic():
        """The O(p^3) work of one iteration: the field's blocks, lambda_max(C), the safe step."""
        H, wH, _, _ = field_blocks(M, C, Ab, 0.5, 1.0)
        top = np.linalg.eigvalsh(C)[-1]
        return safe_step_B(H, C, 1.0, g2, lam, 0.5, 0.5 / top), np.vdot(wH, C @ wH)

    variants = {
        "iteration": lambda: next(runs),
        "A X + B X": lambda: (A @ X, B @ X),
        "A X + B X + n p^2 products": products,
        "O(p^3) work": cubic,
        "field (B X given)": lambda: landing_direction_B(X, BX, G, 0.5, 1.0),
    }
    print(f"\n1. One iteration (n = {problem.n}, p = {problem.p}, nnz(A) = {A.nnz}, "
          f"nnz(B) = {B.nnz}), {rounds} rounds per clock:")
    for clock, label in ((time.perf_counter, "wall clock"),
                         (time.thread_time, "thread CPU time (descheduled time left out)")):
        times = interleaved(variants, rounds, clock=clock)
        it, prod = times["iteration"], times["A X + B X"]
        fl = times["A X + B X + n p^2 products"]
        floor = [a + b for a, b in zip(fl, times["O(p^3) work"], strict=True)]
        print(f"   {label}:")
        for name, t in times.items():
            print(f"     {name:28s} median {1e3 * statistics.median(t):7.3f} ms   "
                  f"min {1e3 * min(t):7.3f} ms")
        print(f"     literal: iteration / (A X + B X): median {median_ratio(it, prod):.2f}, "
              f"of minimums {min(it) / min(prod):.2f}")
        print(f"     with the floor: iteration / (A X + B X + n p^2 products + O(p^3) work): "
              f"median {median_ratio(it, floor):.2f}, of minimums {min(it) / min(floor):.2f}")
        print(f"     (without the O(p^3) work: median {median_ratio(it, fl):.2f}, of minimums "
              f"{min(it) / min(fl):.2f})")
    breakdown(problem, X0)


def breakdown(problem, X0, warm: int = 30, count: int = 300) -> None:
    """CPU milliseconds per iteration of each part (``time.thread_time``: robust to load), from
    one run with a timer around each (the best of three stretches of ``count`` iterations);
    the rest is the solver's loop."""
    spent: dict[str, float] = dict.fromkeys(("gradient (A X, f, G)", "B X", "field", "step rule",
                                             "move"), 0.0)

    def timed(name, fn):
        def call(*args, **kwargs):
            t0 = time.thread_time()
            out = fn(*args, **kwargs)
            spent[name] += time.thread_time() - t0
            return out
        return call

    rule = timed("step rule", BarzilaiBorwein())
    timed_problem = dataclasses.replace(
        problem, cost_and_egrad=timed("gradient (A X, f, G)", problem.cost_and_egrad))
    with (mock.patch.object(constraint_module, "landing_direction_B",
                            timed("field", constraint_module.landing_direction_B)),
          mock.patch.object(Landing, "move", timed("move", Landing.move)),
          mock.patch.object(constraint_module, "apply", timed("B X", constraint_module.apply))):
        runs = iterate(timed_problem, X0, Config(step=rule))
        for _ in range(warm):
            next(runs)
        best = None
        for _ in range(3):
            for key in spent:
                spent[key] = 0.0
            t0 = time.thread_time()
            for _ in range(count):
                next(runs)
            total = time.thread_time() - t0
            if best is None or total < best[0]:
                best = (total, dict(spent))
    total, parts = best
    print(f"   where the time goes (one instrumented run, CPU ms per iteration, total "
          f"{1e3 * total / count:.3f}):")
    for name, t in parts.items():
        print(f"     {name:22s} {1e3 * t / count:7.3f}")
    print(f"     {'solver loop (rest)':22s} {1e3 * (total - sum(parts.values())) / count:7.3f}")


def landing_time_to_gap(problem, X0, max_iter: int = 20000, seconds: float = 600.0):
    """(iterations, wall seconds, CPU seconds, ||h_B||) when |f - f*| <= GAP |f*| first holds."""
    f_star = problem.f_star
    t0, c0 = time.perf_counter(), time.thread_time()
    for rec in iterate(problem, X0, Config()):
        wall, cpu = time.perf_counter() - t0, time.thread_time() - c0
        if abs(rec.cost - f_star) <= GAP * abs(f_star):
            return rec.k, wall, cpu, rec.infeasibility
        if rec.status == "diverged" or rec.k >= max_iter or wall > seconds:
            return None, wall, cpu, rec.infeasibility
    return None, math.nan, math.nan, math.nan  # pragma: no cover (iterate never ends)


def lobpcg_time_to_gap(problem, X0, precondition: bool, max_iter: int = 5000):
    """(iterations, wall seconds, CPU seconds) for lobpcg to reach the gap: the history tells
    how many iterations, then a rerun with exactly that many is timed. lobpcg warns that it
    stops short of its tolerance (it is stopped by the iteration count on purpose): silenced."""
    A, B = problem.A, problem.B
    M = scipy.sparse.diags_array(1.0 / A.diagonal()) if precondition else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        lam, _, hist = scipy.sparse.linalg.lobpcg(A, X0, B=B, M=M, largest=False, tol=1e-12,
                                                   maxiter=max_iter, retLambdaHistory=True)
        sums = [float(np.sum(h)) for h in hist]
        hit = [k for k, s in enumerate(sums)
               if abs(s - problem.f_star) <= GAP * abs(problem.f_star)]
        if not hit:
            return None, math.nan, math.nan
        k = hit[0]
        t0, c0 = time.perf_counter(), time.thread_time()
        lam, _ = scipy.sparse.linalg.lobpcg(A, X0, B=B, M=M, largest=False, tol=1e-14,
                                            maxiter=k)
        return k, time.perf_counter() - t0, time.thread_time() - c0


def main() -> None:
    print(machine())
    A, B = grid_matrices(NX, NY)
    n = A.shape[0]
    t0 = time.perf_counter()
    problem = generalized_eigen(n, P, A=A, B=B)
    print(f"\nsetup: generalized_eigen (B check by sparse LU, f* by shift-invert Lanczos) "
          f"{time.perf_counter() - t0:.2f} s; f* = {problem.f_star:.12g}")
    X0 = initial_point(n, P, 0.1, seed=0, B=B)
    per_iteration(problem, X0)
    print(f"\n2. Time to relative gap {GAP:g} from the same X0 (||h_B(X0)|| = "
          f"{np.linalg.norm(X0.T @ (B @ X0) - np.eye(P)):.3f}):")
    k, sec, cpu, d = landing_time_to_gap(problem, X0)
    print("   landing (default: BB + B-ball safe step): "
          + (f"{k} iterations, {sec:.2f} s wall, {cpu:.2f} s CPU, ||h_B|| = {d:.1e}"
             if k is not None else f"not reached in {sec:.1f} s"))
    for pre in (False, True):
        k, sec, cpu = lobpcg_time_to_gap(problem, X0, pre)
        name = "lobpcg, Jacobi preconditioner" if pre else "lobpcg, no preconditioner"
        print(f"   {name}: " + (f"{k} iterations, {sec:.2f} s wall, {cpu:.2f} s CPU"
                                 if k is not None else "not reached"))

if __name__ == "__main__":
    main()
