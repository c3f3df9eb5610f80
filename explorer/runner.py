"""Build the run an AppConfig describes, compute it at once or stream it live.

``Trace`` accumulates records and what the player's views need; ``start`` begins a run of an
``AppConfig`` (``explorer.live`` feeds it in chunks).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from landing_core.metric_view import METRIC_ROW, SAFE_ROW, metric_row, safe_row
from landing_core.problems import Problem, make_problem
from landing_core.run import FINISHED, History, Status
from landing_core.solvers import Config, Record, iterate, stop_reason
from landing_core.steps import SAFE_EPS, StepRule, make_step_rule

from .constraint import infeasibility_name, pencil, with_constraint
from .state import AppConfig
from .upload import MATRIX_ROLES
from .views import available

Array = np.ndarray


def step_rule(config: AppConfig) -> StepRule:
    """The step rule of the sidebar's choice, with eta where it applies."""
    return make_step_rule(config.step, config.eta)


def stalled(trace: Trace) -> bool:
    """No progress in the last quarter of the run: the residual ||grad|| + ||h|| never fell
    below half of its best over the first three quarters (a run cut short while converging
    keeps falling; one circling under too large a step does not)."""
    r = np.add(trace.grad_norm, trace.infeasibility)
    if len(r) < 20:
        return False
    cut = 3 * len(r) // 4
    return bool(np.min(r[cut:]) > 0.5 * np.min(r[:cut]))


READY = "ready"  # a Trace's status before its run starts (a Status once it has)
# the runs' clock (the time history, the CSV's cpu_time, the Compare page's time column and
# axis): CPU time. The app's runs are computed in worker threads that share the interpreter
# with the pages and every other session: on the wall clock a run's time in the app can be
# many times its time alone, most of it waiting for the GIL, so that it would measure the
# server, not the method. ``iterate`` reads it only within its own work, one ``next`` call at
# a time, so a run that moves from the page's thread to a worker's is timed on each thread
# in turn. The hosted app runs one BLAS thread (deploy/), whose work this clock counts whole.
CPU = time.thread_time


def limit_hint(trace: Trace, config: AppConfig) -> str:
    """Why a safe-step or BB run that reached the iteration limit without progress got there
    (an empty string when it did not stall, or for other rules), in the words of the run's
    constraint (‖XᵀBX − I‖ on XᵀBX = I):

    - X_k still outside the safe region: the safe step only lets ||h|| shrink there, and a
      large tangent term leaves room for short steps only; a larger omega pulls X_k in sooner;
    - the safe step at its cap eta (steps of at least half the cap): eta is too large for f;
    - the safe step trimmed below its cap (X_k held at the safe region's edge, where the
      trimmed steps are still too large for f): the cap must go below the steps taken.
    """
    if trace.status != Status.MAX_ITER or config.step not in ("safe", "bb") or not stalled(trace):
        return ""
    h = infeasibility_name([trace.B is not None])
    d = trace.infeasibility[-1]
    steps = np.asarray(trace.step[1:], dtype=float)
    recent = float(np.median(steps[3 * len(steps) // 4:]))
    if d > SAFE_EPS:
        return (f" Xₖ is still outside the safe region ({h} = {d:.3g} > ε = "
                f"{SAFE_EPS:g}), where the safe step lets {h} only shrink; a large "
                f"tangent term then leaves room for short steps only (ηₖ ≈ {recent:.1e}). "
                "Raise ω to pull Xₖ in sooner, start nearer the manifold (X₀ distance), "
                "choose the scale-free step rule (its ω follows the step), or raise the "
                "iteration limit.")
    if config.step == "safe" and recent >= 0.5 * config.eta:
        return (f" The safe step only guards feasibility ({h} stays below ε = "
                f"{SAFE_EPS:g} once there); it does not make f decrease: here η = "
                f"{config.eta:g} is too large for f and the run circles instead of converging. "
                "Lower the cap η, or choose Armijo, Barzilai–Borwein or the scale-free rule.")
    if config.step == "safe":  # trimmed below its cap, at the safe region's edge
        # a circling run's last ||h|| is any value of its circle, and a sweep's cell, the same
        # run computed in a batch, ends elsewhere on it: the last quarter's median, as eta_k
        edge = float(np.median(trace.infeasibility[3 * len(trace.infeasibility) // 4:]))
        return (f" The safe step only guards feasibility: it trims η to keep {h} below ε = "
                f"{SAFE_EPS:g} (over the last quarter of the run, ηₖ ≈ {recent:.1e} and {h} ≈ "
                f"{edge:.2g}); it does not make f "
                "decrease, and these steps are still too large for f: the run circles at the "
                f"region's edge instead of converging. Lower the cap η below {recent:.1e}, or "
                "choose Armijo, Barzilai–Borwein or the scale-free rule.")
    return ""


def build_problem(config: AppConfig, matrix: Array | None = None,
                  B: Array | None = None) -> Problem:
    """The problem of ``config``, from the user's matrix when one is given (ValueError if bad),
    on XᵀBX = I when the constraint's matrix ``B`` is given (``constraint.constraint_matrix``).
    The eigenproblem's pencil (A, B) takes the constraint's B (I for XᵀX = I), never a B of its
    own drawn from the seed."""
    matrices = {} if matrix is None or config.problem not in MATRIX_ROLES else {
        MATRIX_ROLES[config.problem][0]: matrix}
    if config.problem == "generalized_eigen":
        return pencil(matrices.get("A"), config.n, config.p, B, config.seed)
    problem = make_problem(config.problem, config.n, config.p, config.seed, **matrices)
    return with_constraint(problem, B)


def solver_config(config: AppConfig) -> Config:
    return Config(beta=config.beta, omega=config.omega, step=step_rule(config),
                  tangent=config.tangent)


@dataclass
class Trace(History):
    """A run's history as it grows: the scalar histories (``History``), and per iterate what
    the views need (X_k itself for n <= 3, the singular values, the Gram matrix for p = 2);
    ``omega`` is the run's normal weight, which sets the time of the exact normal flow the
    views overlay.
    ``optima``: f* by the sign of det X (p = n), so that each iterate's gap is measured against
    the optimum of its own component of O(n) (``f_star``; a long step can cross). With the
    constraint's matrix ``B``, the Gram matrix is XᵀBX and the singular values are those of
    B^{1/2} X (square roots of its eigenvalues): what tends to I and to 1.
    ``extras``: the per-iterate rows to record for the views that need the gradient or the
    field ("metric": ``metric_view.metric_row``, "safe": ``metric_view.safe_row`` with the run's
    omega and the safe region's ``eps``); NaN rows for records that carry no G, V."""

    n: int
    p: int
    omega: float = 1.0  # the run's normal weight: the time scale of the normal flow
    optima: Mapping[int, float] | None = None
    f_star: list[float] = field(default_factory=list)
    B: Array | None = None
    X: list[Array] = field(default_factory=list)
    sigma: list[Array] = field(default_factory=list)
    gram: list[Array] = field(default_factory=list)
    extras: tuple[str, ...] = ()
    eps: float = SAFE_EPS
    metric: list[Array] = field(default_factory=list)
    safe: list[Array] = field(default_factory=list)
    status: Status | str = READY
    message: str = "Ready: press Run to watch the iterations, or Step to take one."

    @property
    def k(self) -> int:
        """The index of the last iterate (number of updates so far)."""
        return len(self.cost) - 1

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def append(self, rec: Record) -> None:
        super().append(rec)
        M = rec.X.T @ (rec.X if self.B is None else self.B @ rec.X)
        self.sigma.append(np.sqrt(np.clip(np.linalg.eigvalsh(M), 0.0, None))[::-1])
        if self.n <= 3:
            self.X.append(rec.X)
        if self.p == 2:
            self.gram.append(M)
        if self.optima:
            self.f_star.append(self.optima[1 if np.linalg.det(rec.X) > 0 else -1])
        if "metric" in self.extras:
            self.metric.append(np.full(METRIC_ROW, np.nan) if rec.G is None
                               else metric_row(rec.X, rec.G))
        if "safe" in self.extras:
            self.safe.append(np.full(SAFE_ROW, np.nan) if rec.V is None
                             else safe_row(rec.X, rec.V, self.omega, self.eps))

    def feed(self, rec: Record, tol: float, max_iter: int) -> bool:
        """Take one record; True (with status and message set) when the run ends there."""
        if rec.status != Status.DIVERGED:
            self.append(rec)
        reason = stop_reason(rec, tol, max_iter)
        if reason is None:
            return False
        self.status, self.message = reason
        return True

    def csv(self) -> str:
        rows = ["k,cost,infeasibility,grad_norm,step,normal_step,cpu_time"]
        rows += [f"{k},{c!r},{h!r},{g!r},{s!r},{w!r},{t!r}" for k, (c, h, g, s, w, t) in
                 enumerate(zip(self.cost, self.infeasibility, self.grad_norm, self.step,
                               self.normal_step, self.time, strict=True))]
        return "\n".join(rows) + "\n"


def initial(config: AppConfig, problem: Problem) -> Array:
    """X_0 of this configuration."""
    return problem.constraint.initial_point(problem.n, problem.p, config.distance, config.seed)


def optimum(config: AppConfig, problem: Problem) -> float | None:
    """f* over X_0's component of O(n) when p = n (else f*), when known; the player
    measures each iterate's gap against its own component's (``Trace.f_star``)."""
    return problem.optimum_from(initial(config, problem))


def start(config: AppConfig, problem: Problem, views: bool = True
          ) -> tuple[Trace, Iterator[Record]]:
    """A fresh trace holding X_0, and the generator of the following iterates; ``views=False``
    leaves out the rows only the geometry views draw (the metric's, the safe region's)."""
    records = iterate(problem, initial(config, problem), solver_config(config),
                      clock=CPU)
    extras = tuple(v for v in ("metric", "safe") if views and v in available(
        problem.n, problem.p, problem.B is not None, config.step))
    trace = Trace(problem.n, problem.p, config.omega, B=problem.B,
                  optima=problem.f_star_by_det if problem.n == problem.p else None,
                  extras=extras)
    trace.feed(next(records), config.tol, config.max_iter)
    return trace, records


def run_to_end(trace: Trace, records: Iterator[Record], config: AppConfig) -> Trace:
    while not trace.finished:
        trace.feed(next(records), config.tol, config.max_iter)
    return trace
