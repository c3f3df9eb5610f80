"""Many landing runs at once: parameter grids run as one stack of shape (B, n, p).

The same geometry code as a single run (``landing_direction`` broadcasts over the leading
axis); each run has its own beta, omega, eta and X_0, and is frozen as soon as it meets
Algorithm 1's stopping rule or diverges. Step rules: "constant" (eta) or "safe"
(``steps.safe_step``: min(eta, safe_step_bound), or the restoring step where ||h|| >= 1).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .geometry import landing_direction
from .problems import Problem, initial_point
from .solvers import BLOWUP
from .steps import check_eps, safe_step

Array = np.ndarray

__all__ = ["SweepResult", "grid", "run_batch", "sweep"]

CONVERGED, MAX_ITER, DIVERGED = "converged", "max_iter", "diverged"


@dataclass
class SweepResult:
    """Per-run outcomes, each an array of shape (B,), in the order of the flattened grid.

    ``params`` maps "beta", "omega", "eta", "seed" to the per-run values; ``shape`` is the grid's
    shape (so ``result.iterations.reshape(result.shape)`` is a heatmap). ``iterations`` counts
    updates until the stopping rule held (max_iter when it never did; the last valid iterate's
    count for diverged runs).
    """

    params: dict[str, Array]
    shape: tuple[int, ...]
    iterations: Array
    status: Array
    final_cost: Array
    final_infeasibility: Array
    final_grad_norm: Array
    f_star: Array | None

    @property
    def final_gap(self) -> Array | None:
        """f(X_final) - f*, when the problem knows f* (per run: for p = n, the optimum over
        the component of O(n) the run starts in, which landing never leaves)."""
        return None if self.f_star is None else self.final_cost - self.f_star


def grid(**axes: Sequence[float]) -> tuple[dict[str, Array], tuple[int, ...]]:
    """The Cartesian product of named axes, flattened: ({name: values (B,)}, grid shape)."""
    names = list(axes)
    values = [np.asarray(axes[name], dtype=float).reshape(-1) for name in names]
    shape = tuple(len(v) for v in values)
    rows = np.array(list(itertools.product(*values)), dtype=float).reshape(-1, len(names))
    return {name: rows[:, i] for i, name in enumerate(names)}, shape


def _cholesky_fails(X: Array) -> Array:
    """Per run: True where the Cholesky factorization of X^T X fails, the test a single run
    applies (it then stops as diverged). Only called when the batched factorization failed."""
    fails = np.zeros(X.shape[0], dtype=bool)
    for i, M in enumerate(np.swapaxes(X, -1, -2) @ X):
        try:
            np.linalg.cholesky(M)
        except np.linalg.LinAlgError:
            fails[i] = True
    return fails


def run_batch(
    problem: Problem,
    X0: Array,
    *,
    beta: Array,
    omega: Array,
    eta: Array,
    tangent: str = "beta",
    step: str = "constant",
    eps: float = 0.5,
    tol: float = 1e-8,
    max_iter: int = 500,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Array, ...]:
    """Run B landing iterations side by side; X0 has shape (B, n, p), parameters shape (B,).

    Returns (iterations, status, final cost, final ||h||_F, final ||grad||), each of shape (B,).
    ``progress(k, max_iter)`` is called every 10 iterations.
    """
    if step not in ("constant", "safe"):
        raise ValueError(f"sweep step rule must be 'constant' or 'safe', got {step!r}")
    check_eps(eps)
    X = np.array(X0, dtype=float, copy=True)
    B = X.shape[0]
    beta, omega, eta = (np.broadcast_to(np.asarray(v, dtype=float), (B,)) for v in
                        (beta, omega, eta))
    for name, v in (("beta", beta), ("omega", omega), ("eta", eta)):
        if not np.all(np.isfinite(v) & (v > 0)):
            raise ValueError(f"every {name} must be a finite number > 0")
    iterations = np.full(B, max_iter)
    status = np.full(B, MAX_ITER, dtype=object)
    cost = np.full(B, np.nan)
    infeas = np.full(B, np.nan)
    gnorm = np.full(B, np.nan)
    active = np.arange(B)
    for k in range(max_iter + 1):
        if active.size == 0:
            break
        if progress is not None and k % 10 == 0:
            progress(k, max_iter)
        Xa = X[active]
        finite = np.all(np.isfinite(Xa), axis=(-2, -1))
        try:
            if not np.all(finite):
                raise np.linalg.LinAlgError("non-finite iterates")
            f, G = problem.value_and_grad(Xa)
            g, V, H = landing_direction(Xa, G, beta[active], omega[active], tangent)
        except np.linalg.LinAlgError:  # rare: drop the runs whose X^T X is singular, go on
            fine = finite.copy()
            fine[finite] = ~_cholesky_fails(Xa[finite])
            status[active[~fine]], iterations[active[~fine]] = DIVERGED, max(k - 1, 0)
            active, Xa = active[fine], Xa[fine]
            if active.size == 0:
                break
            f, G = problem.value_and_grad(Xa)
            g, V, H = landing_direction(Xa, G, beta[active], omega[active], tangent)
        d = np.linalg.norm(H, axis=(-2, -1))
        blown = ~(np.isfinite(f) & np.isfinite(g) & (d <= BLOWUP))
        ok = active[~blown]  # diverged runs keep their last valid values
        cost[ok], infeas[ok], gnorm[ok] = f[~blown], d[~blown], g[~blown]
        done = ~blown & (g + d <= tol)
        status[active[done]], iterations[active[done]] = CONVERGED, k
        status[active[blown]], iterations[active[blown]] = DIVERGED, max(k - 1, 0)
        keep = ~(done | blown)
        active, Xa, V, d = active[keep], Xa[keep], V[keep], d[keep]
        if k == max_iter or active.size == 0:
            break
        step_size = eta[active]
        if step == "safe":
            step_size = safe_step(Xa, V, d, omega[active], step_size, eps)
        X[active] = Xa - step_size[:, None, None] * V
    if progress is not None:
        progress(max_iter, max_iter)
    return iterations, status, cost, infeas, gnorm


def sweep(
    problem: Problem,
    *,
    beta: Sequence[float] = (0.5,),
    omega: Sequence[float] = (1.0,),
    eta: Sequence[float] = (0.1,),
    seed: Sequence[int] = (0,),
    distance: float = 0.3,
    tangent: str = "beta",
    step: str = "constant",
    eps: float = 0.5,
    tol: float = 1e-8,
    max_iter: int = 500,
    progress: Callable[[int, int], None] | None = None,
) -> SweepResult:
    """Landing over the grid beta x omega x eta x seed, as one vectorized batch.

    Run (i, j, l, m) starts from ``initial_point(n, p, distance, seed[m])`` with beta[i],
    omega[j], eta[l]; results are flattened in that order (C order over the grid's shape).
    """
    params, shape = grid(beta=beta, omega=omega, eta=eta, seed=seed)
    seeds = [int(s) for s in np.asarray(seed).reshape(-1)]
    starts = {s: initial_point(problem.n, problem.p, distance, s) for s in seeds}
    X0 = np.stack([starts[int(s)] for s in params["seed"]])
    iterations, status, cost, infeas, gnorm = run_batch(
        problem, X0, beta=params["beta"], omega=params["omega"], eta=params["eta"],
        tangent=tangent, step=step, eps=eps, tol=tol, max_iter=max_iter, progress=progress,
    )
    f_star = None if problem.f_star is None else np.array(
        [problem.optimum_from(starts[int(s)]) for s in params["seed"]])
    return SweepResult(params, shape, iterations, status, cost, infeas, gnorm, f_star)
