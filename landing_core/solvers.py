"""The landing iteration (Algorithm 1) and the baselines it is compared with.

``iterate`` yields one :class:`Record` per iterate, X_0 first, and computes X_{k+1} only when the
next record is asked for; the app streams from it. ``landing`` (and ``riemannian_gd``,
``penalty``) fold it into a :class:`Result` with Algorithm 1's stopping rule
||grad|| + ||h(X_k)||_F <= tol.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from .geometry import frobenius_norm, h, landing_direction, riemannian_gradient_stiefel
from .problems import Problem, nearest_stiefel, qf
from .steps import BarzilaiBorwein, Safe, Step, StepContext, StepRule, as_step_rule

Array = np.ndarray

__all__ = [
    "METHODS",
    "RETRACTIONS",
    "Config",
    "Record",
    "Result",
    "iterate",
    "landing",
    "penalty",
    "riemannian_gd",
    "solve",
]

BLOWUP = 1e8  # ||h(X_k)||_F beyond this is divergence

METHODS: dict[str, str] = {
    "landing": "Landing (Algorithm 1)",
    "rgd-qr": "Riemannian GD, QR retraction",
    "rgd-polar": "Riemannian GD, polar retraction",
    "rgd-cayley": "Riemannian GD, Cayley retraction",
    "penalty": "Gradient descent on f + ω/4 ‖h‖²",
}


# ----------------------------------------------------------------------------- retractions


def _retract_qr(X: Array, Z: Array) -> Array:
    """QR retraction qf(X + Z), with the signs fixed so that diag(R) > 0."""
    return qf(X + Z)


def _retract_polar(X: Array, Z: Array) -> Array:
    """Polar retraction: the polar factor of X + Z (its nearest point on St(n, p))."""
    return nearest_stiefel(X + Z)


def _retract_cayley(X: Array, Z: Array) -> Array:
    """Cayley retraction (I - W/2)^{-1} (I + W/2) X with W = P X^T - X P^T, P = Z - X (X^T Z)/2.

    For X on St(n, p) and Z tangent, W X = Z. The n x n inverse is never formed: with
    U = [P, X] and Vt = [X, -P]^T (W = U Vt), Woodbury gives
    Y = X' + 1/2 U (I_2p - 1/2 Vt U)^{-1} Vt X',  X' = X + Z/2.
    """
    P = Z - 0.5 * X @ (X.T @ Z)
    U = np.hstack([P, X])
    Vt = np.vstack([X.T, -P.T])
    Xh = X + 0.5 * Z
    p2 = U.shape[1]
    return Xh + 0.5 * U @ np.linalg.solve(np.eye(p2) - 0.5 * Vt @ U, Vt @ Xh)


RETRACTIONS: dict[str, Callable[[Array, Array], Array]] = {
    "qr": _retract_qr,
    "polar": _retract_polar,
    "cayley": _retract_cayley,
}


# ----------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Config:
    """One run's method and parameters (a run is reproducible from Config, problem and X_0).

    method: "landing", "rgd-qr", "rgd-polar", "rgd-cayley" or "penalty";
    tangent: the landing tangent term ("beta", "euclidean", "relative");
    beta > 0 (beta-metric), omega > 0 (normal term weight; the penalty's weight too);
    step: a number (constant), a step rule, or None (Barzilai-Borwein, made safe).
    """

    beta: float = 0.5
    omega: float = 1.0
    step: float | StepRule | None = None
    tangent: str = "beta"
    method: str = "landing"

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; choose one of {list(METHODS)}")
        if self.tangent not in ("beta", "euclidean", "relative"):
            raise ValueError(
                f"unknown tangent term {self.tangent!r}; choose 'beta', 'euclidean' or 'relative'"
            )
        for name in ("beta", "omega"):
            value = getattr(self, name)
            if not (isinstance(value, numbers.Real) and np.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
            object.__setattr__(self, name, float(value))  # numpy scalars become floats
        as_step_rule(self.step)  # validates a numeric step


@dataclass(frozen=True)
class Record:
    """One iterate: k, X_k, f(X_k), ||h(X_k)||_F, ||grad|| (the tangent term's norm), the step
    eta_{k-1} that produced X_k (NaN for k = 0), seconds since the start, and the status:
    "running", or "diverged" on a final record that repeats the last valid iterate X_k (its
    step is then eta_k, the step that failed). ``normal_step``: eta_{k-1} omega_{k-1}, the step
    taken along X h (omega_{k-1} < omega where a rule lowered it; 0 for the retractions)."""

    k: int
    X: Array
    cost: float
    infeasibility: float
    grad_norm: float
    step: float
    time: float
    status: str = "running"
    message: str = ""
    normal_step: float = math.nan


@dataclass
class Result:
    """A finished run: final X, number of updates, status, message and histories.

    Histories hold iterations + 1 entries, X_0's first (``step`` and ``normal_step``, the steps
    that produced X_k, are NaN there). ``iterates`` holds X_k for the indices in
    ``iterate_index`` when asked for (decimated to a bounded count), else is None.
    """

    X: Array
    iterations: int
    status: str
    message: str
    cost: Array
    infeasibility: Array
    grad_norm: Array
    step: Array
    time: Array
    normal_step: Array
    f_star: float | None = None
    iterates: Array | None = None
    iterate_index: Array | None = None
    config: Config = field(default_factory=Config)

    @property
    def success(self) -> bool:
        return self.status == "converged"


class _Diverged(Exception):
    pass


# ----------------------------------------------------------------------------- checks


def _check_start(problem: Problem, X0: Array) -> Array:
    X0 = np.asarray(X0)
    if X0.ndim == 1:
        X0 = X0[:, None]
    if X0.shape != (problem.n, problem.p):
        raise ValueError(
            f"X0 has shape {X0.shape}, but the problem is on St({problem.n}, {problem.p})"
        )
    if not np.all(np.isfinite(X0)):
        raise ValueError("X0 contains NaN or infinite entries")
    s = np.linalg.svd(X0, compute_uv=False)
    if s[-1] <= 1e-12 * max(s[0], 1.0):
        raise ValueError(
            f"X0 is rank-deficient (smallest singular value {s[-1]:.2e}): the landing method "
            "needs a full-rank X0 in R_*^{n x p}"
        )
    return np.array(X0, dtype=float, copy=True)


def _check_run(tol: float, max_iter: int) -> None:
    if not (np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a finite number > 0, got {tol}")
    if int(max_iter) != max_iter or max_iter < 0:
        raise ValueError(f"max_iter must be an integer >= 0, got {max_iter}")


# ----------------------------------------------------------------------------- iteration



def _broken(X: Array, what: str) -> _Diverged:
    """The divergence to report when the evaluation at X broke: X itself, or what came of it."""
    if not np.isfinite(X).all():
        return _Diverged("the iterate has NaN or infinite entries")
    return _Diverged(what)


def _evaluate(
    problem: Problem, X: Array, config: Config
) -> tuple[float, Array, Array, Array, float, float]:
    """(f, G, V, h(X), ||h||_F, ||grad||) at X for the configured method; _Diverged if it breaks.

    Finiteness is checked on the scalars only: a finite ||h(X)||_F implies a finite X, and then
    V = grad + omega X h(X) is finite with grad (an overflow would surface at the next iterate).
    """
    try:
        cost, G = problem.value_and_grad(X)
        cost = float(cost)
        if config.method == "landing":
            gnorm, V, H = landing_direction(X, G, config.beta, config.omega, config.tangent)
            gnorm = float(gnorm)
        else:
            H = h(X)
            if config.method == "penalty":  # the gradient of f + omega/4 ||h||^2
                V = G + config.omega * (X @ H)
            else:
                V = riemannian_gradient_stiefel(X, G)
            gnorm = frobenius_norm(V)
    except np.linalg.LinAlgError as err:
        raise _broken(X, f"the Gram matrix XᵀX became singular ({err})") from err
    d = frobenius_norm(H)
    if not (math.isfinite(cost) and math.isfinite(gnorm) and math.isfinite(d)):
        raise _broken(X, "the cost or the gradient became NaN or infinite")
    if d > BLOWUP:
        raise _Diverged(f"‖XᵀX − I‖ = {d:.3g} exceeded {BLOWUP:.0e}")
    return cost, G, V, H, d, gnorm


def iterate(problem: Problem, X0: Array, config: Config | None = None) -> Iterator[Record]:
    """Yield one Record per iterate of the configured method, X_0 first, without end.

    The generator computes X_{k+1} only when asked for the next record; it ends after a record
    with status "diverged" (which repeats the last valid iterate). X0 is never mutated. The
    retraction baselines start from X0's nearest point on St(n, p) (its polar factor).
    """
    config = config or Config()
    X = _check_start(problem, X0)
    rule = as_step_rule(config.step)
    retraction = RETRACTIONS.get(config.method.removeprefix("rgd-"))
    omega = 0.0 if retraction else config.omega
    is_landing = config.method == "landing"  # V = T + omega X h: a rule may lower omega
    if retraction:
        X = nearest_stiefel(X)
    state: dict = {}
    hint = ("Try a smaller η cap or ω." if isinstance(rule, Safe | BarzilaiBorwein)
            else "Try a smaller step or the safe step rule.")
    t0 = time.perf_counter()
    try:
        cost, G, V, H, d, gnorm = _evaluate(problem, X, config)
    except _Diverged as err:
        raise ValueError(f"X0 is not a valid start: {err}") from err
    k, eta, eta_w = 0, math.nan, math.nan
    while True:
        yield Record(k, X, cost, d, gnorm, eta, time.perf_counter() - t0, normal_step=eta_w)

        def move(step: float, X: Array = X, V: Array = V) -> Array:
            # X - step V, written so that numpy reuses the temporary -step V for the result
            return retraction(X, -step * V) if retraction else -step * V + X

        eta_w = math.nan
        try:
            step = rule(StepContext(X, V, G, d, omega, problem.cost, move, k, H, is_landing,
                                    gnorm), state)
            eta = float(step.eta if isinstance(step, Step) else step)
            if not (math.isfinite(eta) and eta > 0):
                raise _Diverged(f"the step rule returned η = {eta}")
            X_next = move(eta)
            eta_w = eta * omega
            if isinstance(step, Step) and step.omega != omega:  # a lowered normal weight
                if not (is_landing and 0 < step.omega < omega):
                    raise ValueError(f"a Step's normal weight must lie in (0, ω = {omega:g}] "
                                     f"on a landing run, got {step.omega!r}")
                X_next += (eta * (omega - step.omega)) * (X @ H)
                eta_w = eta * step.omega
            cost, G, V, H, d, gnorm = _evaluate(problem, X_next, config)
        except (_Diverged, np.linalg.LinAlgError) as err:
            yield Record(k, X, cost, d, gnorm, eta, time.perf_counter() - t0, "diverged",
                         f"Diverged at iteration {k + 1}: {err}; X_{k} is the last valid "
                         f"iterate. {hint}", eta_w)
            return
        X, k = X_next, k + 1


def solve(
    problem: Problem,
    X0: Array,
    config: Config | None = None,
    *,
    tol: float = 1e-8,
    max_iter: int = 1000,
    keep_iterates: int = 0,
    callback: Callable[[Record], bool | None] | None = None,
) -> Result:
    """Run ``iterate`` to completion with Algorithm 1's stopping rule ||grad|| + ||h|| <= tol.

    ``iterations`` counts updates: with no earlier stop, X is the iterate after exactly
    ``max_iter`` updates and the histories hold max_iter + 1 entries. ``keep_iterates`` > 0 keeps
    at most that many X_k (uniformly decimated, always including X_0 and the last). A
    ``callback(record)`` returning True stops the run (status "stopped").
    """
    config = config or Config()
    _check_run(tol, max_iter)
    hist: dict[str, list[float]] = {k: [] for k in ("cost", "infeasibility", "grad_norm",
                                                    "step", "time", "normal_step")}
    index: list[int] = []
    frames: list[Array] = []
    stride = 1
    status, message, last = "max_iter", "", None
    for rec in iterate(problem, X0, config):
        reason = stop_reason(rec, tol, max_iter)
        if rec.status != "diverged":
            last = rec
            for key in hist:
                hist[key].append(getattr(rec, key))
            if keep_iterates and rec.k % stride == 0:
                index.append(rec.k)
                frames.append(rec.X)
                if len(frames) > keep_iterates:
                    index, frames = index[::2], frames[::2]
                    stride *= 2
        if reason is not None and reason[0] != "max_iter":
            status, message = reason
            break
        if callback is not None and callback(rec):
            status, message = "stopped", f"Stopped by the callback after {rec.k} iterations."
            break
        if reason is not None:
            status, message = reason
            break
    assert last is not None
    if keep_iterates and (not index or index[-1] != last.k):
        index.append(last.k)
        frames.append(last.X)
    return Result(
        X=last.X,
        iterations=last.k,
        status=status,
        message=message,
        **{key: np.array(values) for key, values in hist.items()},
        f_star=problem.optimum_from(X0),
        iterates=np.array(frames) if keep_iterates else None,
        iterate_index=np.array(index) if keep_iterates else None,
        config=config,
    )


def landing(
    problem: Problem,
    X0: Array,
    *,
    beta: float = 0.5,
    omega: float = 1.0,
    step: float | StepRule | None = None,
    tol: float = 1e-8,
    max_iter: int = 1000,
    tangent: str = "beta",
    keep_iterates: int = 0,
    callback: Callable[[Record], bool | None] | None = None,
) -> Result:
    """Algorithm 1: X_{k+1} = X_k - eta_k (grad f(X_k) + omega X_k (X_k^T X_k - I_p)).

    The normal term is the paper's omega X (X^T X - I) (= omega/2 times the gradient of
    N = 1/2 ||h||^2). ``step``: a number (constant), a rule from ``landing_core.steps``, or None
    for Barzilai-Borwein made safe by the safe step (converges without tuning; a long BB step
    lowers omega for that step so that the normal term's step eta omega stays 1/2, see
    ``steps.BarzilaiBorwein``).
    """
    config = Config(beta=beta, omega=omega, step=step, tangent=tangent, method="landing")
    return solve(problem, X0, config, tol=tol, max_iter=max_iter,
                 keep_iterates=keep_iterates, callback=callback)


def riemannian_gd(
    problem: Problem,
    X0: Array,
    *,
    retraction: str = "qr",
    step: float | StepRule | None = None,
    tol: float = 1e-8,
    max_iter: int = 1000,
    keep_iterates: int = 0,
    callback: Callable[[Record], bool | None] | None = None,
) -> Result:
    """Riemannian gradient descent on St(n, p) (embedded metric), retraction "qr", "polar" or
    "cayley"; starts from the polar factor of X0 (its nearest point on the manifold)."""
    if retraction not in RETRACTIONS:
        raise ValueError(f"unknown retraction {retraction!r}; choose one of {list(RETRACTIONS)}")
    config = Config(step=step, method=f"rgd-{retraction}")
    return solve(problem, X0, config, tol=tol, max_iter=max_iter,
                 keep_iterates=keep_iterates, callback=callback)


def penalty(
    problem: Problem,
    X0: Array,
    *,
    omega: float = 1.0,
    step: float | StepRule | None = None,
    tol: float = 1e-8,
    max_iter: int = 1000,
    keep_iterates: int = 0,
    callback: Callable[[Record], bool | None] | None = None,
) -> Result:
    """Gradient descent on the penalty f + omega/4 ||h||_F^2 (direction G + omega X h).

    Its minimizers lie off St(n, p) for finite omega, so ||h|| stalls at a bias and the run usually
    ends at the iteration limit: the contrast that landing removes.
    """
    config = Config(omega=omega, step=step, method="penalty")
    return solve(problem, X0, config, tol=tol, max_iter=max_iter,
                 keep_iterates=keep_iterates, callback=callback)


def stop_reason(record: Record, tol: float, max_iter: int) -> tuple[str, str] | None:
    """Algorithm 1's stopping rule on one record: (status, message), or None to go on.

    "converged" when ||grad|| + ||h|| <= tol, "max_iter" once record.k reaches max_iter,
    "diverged" for a diverged record.
    """
    if record.status == "diverged":
        return "diverged", record.message
    total = record.grad_norm + record.infeasibility
    if total <= tol:
        return "converged", (f"Converged after {record.k} iterations: ‖grad‖ + ‖h‖ = "
                             f"{total:.2e} ≤ tol = {tol:.0e}.")
    if record.k >= max_iter:
        return "max_iter", (f"Reached the iteration limit ({max_iter}): ‖grad‖ + ‖h‖ = "
                            f"{total:.2e} > tol = {tol:.0e}.")
    return None
