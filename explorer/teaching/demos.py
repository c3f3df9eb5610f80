"""Demonstrations for the Theory page: small runs that show what the paper's formulas imply.

Each function runs the solvers on a given problem and start and returns a plain dataclass of
arrays; ``demo_figures`` draws them. Pure numerics (no streamlit); each run is a few hundred to a
few thousand p x p-sized iterations.

- ``flow_paths``: the singular values of X_k for several costs against the exact normal flow
  (``landing_core.normal_flow``): one path whatever f.
- ``layer_runs``: the tangent term alone (omega = 0, on the layer through X_0) for several beta,
  beside Riemannian GD in the beta-metric of St(n, p).
- ``omega_sweep``: landing's iterations and final ||h|| against omega, and the penalty's bias
  ||X*^T grad f(X*)|| / omega (= 2 |lambda_min| / omega for a Rayleigh cost on the sphere).
- ``fair_rates``: local linear rates of the stopping rule's measure against beta under the
  adaptive step rules, for p < n and for p = n (where beta only rescales the tangent term).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from landing_core.normal_flow import flow_time, singular_value_flow
from landing_core.problems import Problem, initial_point, make_problem
from landing_core.run import Status
from landing_core.solvers import Config, Record, Result, solve
from landing_core.steps import Constant, Safe, make_step_rule

Array = np.ndarray

__all__ = ["FairRates", "FlowPaths", "LayerRuns", "OmegaSweep", "fair_rates", "flow_paths",
           "layer_runs", "local_rate", "omega_sweep", "penalty_bias"]


def _singular_values(X: Array) -> Array:
    """The singular values of X, largest first, from the p x p Gram matrix."""
    return np.sqrt(np.clip(np.linalg.eigvalsh(X.T @ X), 0.0, None))[::-1]


# ----------------------------------------------------------------------------- the normal flow


@dataclass(frozen=True)
class FlowPaths:
    """sigma[name][k] = the singular values of X_k for cost ``name`` (all from one X_0, one
    constant step eta), at the flow times t[k] = k eta; ``flow[k]`` the exact normal flow
    there; gap[name] = max_k |sigma - flow| (O(eta))."""

    t: Array
    sigma: dict[str, Array]
    flow: Array
    gap: dict[str, float]
    omega: float
    eta: float


def flow_paths(X0: Array, costs: Sequence[str] = ("brockett", "pca", "linear"), *,
               seed: int = 0, beta: float = 0.5, omega: float = 1.0, eta: float = 0.02,
               t_end: float = 3.0) -> FlowPaths:
    """Landing (beta-metric, constant step eta) on each cost from X0 for t_end / eta steps."""
    n, p = X0.shape
    steps = max(1, round(t_end / eta))
    sigma, times = {}, None
    for name in costs:
        rows: list[Array] = []

        def keep(record: Record, rows: list[Array] = rows) -> None:
            rows.append(_singular_values(record.X))

        result = solve(make_problem(name, n, p, seed), X0,
                       Config(beta=beta, omega=omega, step=Constant(eta)), tol=1e-300,
                       max_iter=steps, callback=keep)
        sigma[name] = np.array(rows)[: result.iterations + 1]
        times = flow_time(result.normal_step, omega)
    assert times is not None
    flow = singular_value_flow(_singular_values(X0), times, omega)
    gap = {name: float(np.max(np.abs(s - flow[: len(s)]))) for name, s in sigma.items()}
    return FlowPaths(times, sigma, flow, gap, omega, eta)


# ----------------------------------------------------------------------------- beta in a layer


@dataclass(frozen=True)
class LayerRuns:
    """For each beta: iterations until the tangent term's norm falls below tol, for the tangent
    term alone on the layer through X_0 (omega = 0) and for Riemannian GD in the beta-metric
    from X_0's polar factor, both at the constant step eta (None where max_iter did not
    suffice); ``drift``: max_k ||X_k^T X_k - X_0^T X_0|| of the layer runs (O(eta))."""

    betas: Array
    layer: list[int | None]
    rgd: list[int | None]
    drift: Array
    eta: float
    tol: float


def _iterations_to(problem: Problem, X0: Array, config: Config, tol: float,
                   max_iter: int) -> tuple[int | None, Result]:
    """Iterations until ||grad|| (the field's tangent norm) <= tol: the stop test without the
    ||h|| term, which a run on a layer off St(n, p) never meets."""
    result = solve(problem, X0, config, tol=1e-300, max_iter=max_iter,
                   callback=lambda record: record.grad_norm <= tol)
    return (result.iterations if result.status == Status.STOPPED else None), result


def layer_runs(problem: Problem, X0: Array, betas: Sequence[float], *, eta: float = 0.05,
               tol: float = 1e-6, max_iter: int = 20000) -> LayerRuns:
    """The tangent term alone (landing with omega = 0) and RGD-beta (QR retraction) per beta."""
    M0 = X0.T @ X0
    layer, rgd, drift = [], [], []
    for beta in betas:
        worst = [0.0]

        def watch(record: Record, worst: list[float] = worst) -> bool:
            worst[0] = max(worst[0], float(np.linalg.norm(record.X.T @ record.X - M0)))
            return record.grad_norm <= tol

        result = solve(problem, X0, Config(beta=float(beta), omega=0.0, step=Constant(eta)),
                       tol=1e-300, max_iter=max_iter, callback=watch)
        layer.append(result.iterations if result.status == Status.STOPPED else None)
        drift.append(worst[0])
        rgd.append(_iterations_to(problem, X0, Config(
            method="rgd-qr", options={"metric_beta": float(beta)}, step=Constant(eta)),
            tol, max_iter)[0])
    return LayerRuns(np.asarray(betas, dtype=float), layer, rgd, np.array(drift), eta, tol)


# ----------------------------------------------------------------------------- the omega trade-off


def penalty_bias(problem: Problem, X_star: Array, omega: float) -> float:
    """||h|| at the penalty's stationary point near a solution X* on St(n, p), to first order in
    1/omega: G + omega X h = 0 gives h = -M^{-1} X^T G / omega, so ||h|| ~ ||X*^T G(X*)|| / omega
    (X*^T G is the symmetric Lagrange multiplier). Exact for p = 1 and a Rayleigh cost
    f = x^T A x: x^T G = 2 lambda_min there, so ||h|| = 2 |lambda_min| / omega."""
    return float(np.linalg.norm(X_star.T @ problem.egrad(X_star))) / float(omega)


@dataclass(frozen=True)
class OmegaSweep:
    """Per omega: landing's iterations to tol (None: not within max_iter) and final ||h|| at its
    safe step (cap eta); the penalty's final ||h|| (its stationary point) and the predicted
    bias ``penalty_bias``."""

    omegas: Array
    landing_iterations: list[int | None]
    landing_h: Array
    penalty_h: Array
    predicted: Array
    eta: float
    tol: float


def omega_sweep(problem: Problem, X0: Array, omegas: Sequence[float], *, eta: float = 0.2,
                tol: float = 1e-8, max_iter: int = 3000, penalty_tol: float = 1e-10,
                penalty_iter: int = 20000) -> OmegaSweep:
    """Landing and the penalty method, both at the safe step with cap eta, for each omega. The
    penalty runs until its field ||G + omega X h|| <= penalty_tol (its stationary point; its
    ||h|| never reaches 0). The prediction is taken at landing's final iterate."""
    iterations, landing_h, penalty_h, predicted = [], [], [], []
    for omega in omegas:
        run = solve(problem, X0, Config(omega=float(omega), step=Safe(eta)), tol=tol,
                    max_iter=max_iter)
        iterations.append(run.iterations if run.status == Status.CONVERGED else None)
        landing_h.append(run.infeasibility[-1])
        _, pen = _iterations_to(problem, X0, Config(omega=float(omega), step=Safe(eta),
                                                    method="penalty"),
                                penalty_tol, penalty_iter)
        penalty_h.append(pen.infeasibility[-1])
        predicted.append(penalty_bias(problem, run.X, float(omega)))
    return OmegaSweep(np.asarray(omegas, dtype=float), iterations, np.array(landing_h),
                      np.array(penalty_h), np.array(predicted), eta, tol)


# ----------------------------------------------------------------------------- fair rates


def local_rate(measure: Array, start: float = 1e-3, stop: float = 1e-9) -> float:
    """The local linear rate r of a run, measure_k ~ C r^k: exp of the least-squares slope of
    log measure_k against k over the iterations where start >= measure_k / measure_0 >= stop
    (the run's final, linear phase; BB is not monotone, hence a fit and not a ratio). NaN with
    fewer than three such iterations."""
    m = np.asarray(measure, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = m / m[0]
    k = np.flatnonzero((ratio <= start) & (ratio >= stop) & np.isfinite(ratio))
    if k.size < 3:
        return float("nan")
    return float(np.exp(np.polyfit(k, np.log(m[k]), 1)[0]))


@dataclass(frozen=True)
class FairRates:
    """Per step rule (``rates[rule][case]``, ``iterations[rule][case]``) and beta: the local
    rate (``local_rate``) of the stopping rule's measure ||grad|| + ||h|| and the iterations to
    tol, for two cases: "p < n" (St(n, p), omega fixed) and "p = n" (O(n), omega = omega/beta,
    so that the run is the beta = 1 run with its step divided by beta: there
    grad_beta = grad_1 / beta)."""

    betas: Array
    rates: dict[str, dict[str, Array]]
    iterations: dict[str, dict[str, list[int | None]]]
    shapes: dict[str, tuple[int, int]]
    omega: float
    tol: float


def fair_rates(cost: str, n: int, p: int, betas: Sequence[float], *, seed: int = 0,
               distance: float = 0.4, rules: Sequence[str] = ("bb", "armijo"),
               omega: float = 1.0, eta: float = 1.0, tol: float = 1e-12,
               max_iter: int = 3000) -> FairRates:
    """Landing on ``cost`` at (n, p) with p < n, and at (p, p), for each adaptive rule and
    beta, from X_0 at ``distance`` (seed ``seed``); ``eta`` is Armijo's first trial."""
    shapes = {"p < n": (n, p), "p = n": (p, p)}
    rates: dict[str, dict[str, Array]] = {}
    iterations: dict[str, dict[str, list[int | None]]] = {}
    for rule in rules:
        rates[rule], iterations[rule] = {}, {}
        for case, (rows, cols) in shapes.items():
            problem = make_problem(cost, rows, cols, seed)
            X0 = initial_point(rows, cols, distance, seed)
            found, counts = [], []
            for beta in betas:
                weight = omega / beta if case == "p = n" else omega
                run = solve(problem, X0, Config(beta=float(beta), omega=float(weight),
                                                step=make_step_rule(rule, eta)),
                            tol=tol, max_iter=max_iter)
                found.append(local_rate(run.grad_norm + run.infeasibility))
                counts.append(run.iterations if run.status == Status.CONVERGED else None)
            rates[rule][case] = np.array(found)
            iterations[rule][case] = counts
    return FairRates(np.asarray(betas, dtype=float), rates, iterations, shapes, omega, tol)
