"""Many runs at once: parameter grids run as one stack of shape (B, n, p).

The same method objects as a single run (``landing_core.methods``: their fields broadcast over
the leading axis, with per-run beta and omega), and the same stop and divergence test
(``run.run_status``, batched); each run has its own beta, omega, eta and X_0, and is frozen
as soon as the test stops it. Step rules (``BATCH_STEP_RULES``): "constant" (eta) or "safe"
(``steps.safe_step``: min(eta, safe_step_bound), or the restoring step where ||h|| >= 1).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from . import methods
from .geometry import frobenius_norm
from .methods.base import Field, Method, State, take_state
from .methods.params import positive
from .problems import Problem, ProblemLike, as_problem, stacked
from .run import Code, Status, StopCheck, run_status
from .steps import SAFE_EPS, check_eps, safe_step

Array = np.ndarray

__all__ = ["BATCH_STEP_RULES", "BatchResult", "Iterates", "SweepResult", "grid", "run_batch",
           "sweep"]

BATCH_STEP_RULES = ("safe", "constant")
"""The step rules (names of ``steps.STEP_RULES``) that run_batch runs vectorized."""


@dataclass
class BatchResult:
    """What ``run_batch`` returns: per run, arrays of shape (B,) in the batch's order.

    ``iterations`` counts updates until the stopping rule held (max_iter when it never did;
    the last valid iterate's count for diverged runs; the last iterate's for runs "stopped" by
    ``should_stop``); ``status``: a ``run.Status`` per run; ``final_cost``,
    ``final_infeasibility``, ``final_grad_norm``: f, ||h||_F and the stationarity measure at
    the run's last valid iterate, ``final_X`` (B, n, p) (for p = n its component of O(n)
    gives the run's f*).
    """

    iterations: Array
    status: Array
    final_cost: Array
    final_infeasibility: Array
    final_grad_norm: Array
    final_X: Array


@dataclass
class SweepResult(BatchResult):
    """A batch over a grid (``BatchResult``), in the order of the flattened grid.

    ``params`` maps "beta", "omega", "eta", "seed" to the per-run values; ``shape`` is the grid's
    shape (so ``result.iterations.reshape(result.shape)`` is a heatmap); ``f_star`` per run
    when the problem knows it.
    """

    params: dict[str, Array]
    shape: tuple[int, ...]
    f_star: Array | None

    @property
    def final_gap(self) -> Array | None:
        """f(X_final) - f*, when the problem knows f* (per run: for p = n, the optimum over
        the component of O(n) of X_final, which a long step may have reached from the other)."""
        return None if self.f_star is None else self.final_cost - self.f_star


@dataclass(frozen=True)
class Iterates:
    """What ``run_batch`` shows its ``observe`` at iteration k: the runs (indices into the
    batch) whose X_k is valid (those the divergence test stops at k are left out, as a single
    run's history leaves out its "diverged" record), and per run what a single run's
    ``solvers.Record`` holds: X_k, f(X_k), ||h(X_k)||_F, ||grad||, the step eta_{k-1} that
    produced X_k and eta_{k-1} omega (NaN at k = 0), the Euclidean gradient G, the field V
    (X_{k+1} = X_k - eta_k V) and H = h(X_k) (X_k^T X_k - I, or X_k^T B X_k - I on a problem
    carrying B). The arrays are the batch's own: read them, do not keep them."""

    k: int
    runs: Array
    X: Array
    cost: Array
    infeasibility: Array
    grad_norm: Array
    step: Array
    normal_step: Array
    G: Array
    V: Array
    H: Array


def grid(**axes: Sequence[float]) -> tuple[dict[str, Array], tuple[int, ...]]:
    """The Cartesian product of named axes, flattened: ({name: values (B,)}, grid shape)."""
    names = list(axes)
    values = [np.asarray(axes[name], dtype=float).reshape(-1) for name in names]
    shape = tuple(len(v) for v in values)
    rows = np.array(list(itertools.product(*values)), dtype=float).reshape(-1, len(names))
    return {name: rows[:, i] for i, name in enumerate(names)}, shape


def _evaluate(problem: Problem, method: Method, X: Array,
              state: State) -> tuple[Array, Array, Field, State]:
    """(f, G, field, state) at every run of the stack X."""
    f, G, state = method.gradient(problem, X, state)
    fld, state = method.field(X, G, state)
    return f, G, fld, state


def _broken(problem: Problem, method: Method, X: Array, state: State) -> Array:
    """Per run: True where the evaluation raises LinAlgError (X^T X singular), the test a single
    run applies (it then stops as diverged). Found by bisection, O(log B) evaluations of halves
    per broken run; only called when the evaluation of the whole stack failed."""
    if len(X) == 0:
        return np.zeros(0, dtype=bool)
    try:
        _evaluate(problem, method, X, state)
        return np.zeros(len(X), dtype=bool)
    except np.linalg.LinAlgError:
        if len(X) == 1:
            return np.ones(1, dtype=bool)
    half = np.arange(len(X)) < len(X) // 2
    return np.concatenate([
        _broken(problem, method.take(part), X[part], take_state(state, part))
        for part in (half, ~half)])


def run_batch(
    problem: ProblemLike,
    X0: Array,
    *,
    beta: Array,
    omega: Array,
    eta: Array,
    tangent: str = "beta",
    step: str = "constant",
    eps: float = SAFE_EPS,
    tol: float = 1e-8,
    max_iter: int = 500,
    progress: Callable[[int, int], None] | None = None,
    method: str = "landing",
    options: Mapping[str, object] | None = None,
    should_stop: StopCheck | None = None,
    observe: Callable[[Iterates], None] | None = None,
) -> BatchResult:
    """Run B runs of ``method`` side by side; X0 has shape (B, n, p), parameters (B,).

    Returns each run's outcome (``BatchResult``).
    ``progress(k, max_iter)`` is called every 10 iterations; ``should_stop()`` (e.g.
    ``solvers.deadline``) after each, and a reason from it ends every run still going with
    status "stopped" and its values at its last iterate. ``options``: the method's own
    parameters, shared by every run. ``problem``: any object with n, p, cost and egrad; a cost
    that does not take stacks (B, n, p) is evaluated run by run (``problems.stacked``).
    ``observe(iterates)`` is called at every iteration with the valid iterates (``Iterates``):
    a caller that keeps histories (the explorer's family of runs) reduces them there.
    """
    if step not in BATCH_STEP_RULES:
        raise ValueError(f"sweep step rule must be one of {', '.join(BATCH_STEP_RULES)}, "
                         f"got {step!r}")
    check_eps(eps)
    problem = as_problem(problem)
    if np.ndim(X0) != 3 or np.shape(X0)[1:] != (problem.n, problem.p):
        raise ValueError(f"X0 must have shape (B, {problem.n}, {problem.p}), got "
                         f"{np.shape(X0)}")
    problem = stacked(problem, np.asarray(X0, dtype=float))
    B = len(X0)
    beta, omega, eta = (np.broadcast_to(np.asarray(v, dtype=float), (B,)) for v in
                        (beta, omega, eta))
    for name, v in (("beta", beta), ("omega", omega), ("eta", eta)):
        positive(name, v)
    runs = methods.build(method, beta=beta, omega=omega, tangent=tangent, problem=problem,
                         **(options or {}))
    # The active runs' iterates only, compacted as runs end: no copy of the whole stack per
    # iteration. Each move returns a new array, so the last valid iterates stay referenced
    # (``prev``) for runs that diverge at the next one, and a run's final iterate is written
    # once, when it ends.
    Xa = runs.start(np.array(X0, dtype=float, copy=True))
    state = runs.init(Xa)
    iterations = np.full(B, max_iter)
    status = np.full(B, Status.MAX_ITER, dtype=object)
    cost = np.full(B, np.nan)
    infeas = np.full(B, np.nan)
    gnorm = np.full(B, np.nan)
    final = Xa.copy()
    active = np.arange(B)
    prev, prev_active = final, active  # X_{k-1} of the active runs (X_0 at k = 0)
    taken, taken_w = np.full(B, np.nan), np.full(B, np.nan)  # eta_{k-1}, eta_{k-1} omega

    def keep_previous(runs_ended: Array) -> None:
        """Diverged runs keep their last valid iterate, X_{k-1}."""
        final[runs_ended] = prev[np.searchsorted(prev_active, runs_ended)]

    for k in range(max_iter + 1):
        if active.size == 0:
            break
        if progress is not None and k % 10 == 0:
            progress(k, max_iter)
        # one reduction pass; a run whose sum is not finite is looked at entry by entry
        finite = np.isfinite(Xa.sum(axis=(-2, -1)))
        if not np.all(finite):
            finite[~finite] = np.all(np.isfinite(Xa[~finite]), axis=(-2, -1))
        try:
            if not np.all(finite):
                raise np.linalg.LinAlgError("non-finite iterates")
            f, G, fld, state = _evaluate(problem, runs, Xa, state)
        except np.linalg.LinAlgError:  # rare: drop the runs whose evaluation broke, go on
            fine = finite.copy()
            fine[finite] = ~_broken(problem, runs.take(finite), Xa[finite],
                                    take_state(state, finite))
            status[active[~fine]], iterations[active[~fine]] = Status.DIVERGED, max(k - 1, 0)
            keep_previous(active[~fine])
            active, Xa, runs, state = (active[fine], Xa[fine], runs.take(fine),
                                       take_state(state, fine))
            if active.size == 0:
                break
            f, G, fld, state = _evaluate(problem, runs, Xa, state)
        d, g = frobenius_norm(fld.H), fld.grad_norm
        code = run_status(f, g, d, k, tol, max_iter)
        blown = code == Code.DIVERGED
        valid = ~blown if np.any(blown) else slice(None)  # a view when no run diverged
        ok = active[valid]  # diverged runs keep their last valid values
        cost[ok], infeas[ok], gnorm[ok] = f[valid], d[valid], g[valid]
        if observe is not None:
            observe(Iterates(k, ok, Xa[valid], f[valid], d[valid], g[valid], taken[ok],
                             taken_w[ok], G[valid], fld.V[valid], fld.H[valid]))
        done = code == Code.CONVERGED
        status[active[done]], iterations[active[done]] = Status.CONVERGED, k
        status[active[blown]], iterations[active[blown]] = Status.DIVERGED, max(k - 1, 0)
        keep = code == Code.RUNNING
        if not np.all(keep):
            ended = ~keep & ~blown  # converged, or at max_iter: X_k is their final iterate
            final[active[ended]] = Xa[ended]
            keep_previous(active[blown])
            active, Xa, d = active[keep], Xa[keep], d[keep]
            fld = Field(*(part if np.ndim(part) == 0 else part[keep]  # (None: 0 too)
                          for part in fld))
            runs, state = runs.take(keep), take_state(state, keep)
        if active.size == 0:
            break
        if should_stop is not None and should_stop():
            status[active], iterations[active] = Status.STOPPED, k
            final[active] = Xa
            break
        step_size = eta[active]
        if step == "safe":
            step_size = safe_step(Xa, fld.V, d, runs.normal_weight, step_size, eps,
                                  runs.constraint, fld.H)
        prev, prev_active = Xa, active
        Xa = runs.move(Xa, fld, step_size)
        taken[active] = step_size
        taken_w[active] = step_size * runs.normal_weight
    if progress is not None:
        progress(max_iter, max_iter)
    return BatchResult(iterations, status, cost, infeas, gnorm, final)


def sweep(
    problem: ProblemLike,
    *,
    beta: Sequence[float] = (0.5,),
    omega: Sequence[float] = (1.0,),
    eta: Sequence[float] = (0.1,),
    seed: Sequence[int] = (0,),
    distance: float = 0.3,
    tangent: str = "beta",
    step: str = "constant",
    eps: float = SAFE_EPS,
    tol: float = 1e-8,
    max_iter: int = 500,
    progress: Callable[[int, int], None] | None = None,
    method: str = "landing",
    options: Mapping[str, object] | None = None,
    should_stop: StopCheck | None = None,
    observe: Callable[[Iterates], None] | None = None,
) -> SweepResult:
    """``method`` (landing by default) over the grid beta x omega x eta x seed, as one
    vectorized batch.

    Run (i, j, l, m) starts from ``problem.constraint.initial_point(n, p, distance, seed[m])``
    (at that distance from the problem's constraint set) with beta[i],
    omega[j], eta[l]; results are flattened in that order (C order over the grid's shape).
    ``should_stop``, ``observe``: as in ``run_batch``.
    """
    problem = as_problem(problem)
    params, shape = grid(beta=beta, omega=omega, eta=eta, seed=seed)
    seeds = [int(s) for s in np.asarray(seed).reshape(-1)]
    starts = {s: problem.constraint.initial_point(problem.n, problem.p, distance, s)
              for s in seeds}
    X0 = np.stack([starts[int(s)] for s in params["seed"]])
    batch = run_batch(
        problem, X0, beta=params["beta"], omega=params["omega"], eta=params["eta"],
        tangent=tangent, step=step, eps=eps, tol=tol, max_iter=max_iter, progress=progress,
        method=method, options=options, should_stop=should_stop, observe=observe,
    )
    f_star = None if problem.f_star is None else np.array(
        [problem.optimum_from(X) for X in batch.final_X])
    return SweepResult(**vars(batch), params=params, shape=shape, f_star=f_star)
