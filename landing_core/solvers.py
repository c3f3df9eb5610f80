"""One iteration for every method, folded into a result by Algorithm 1's stopping rule.

``iterate`` drives a method of ``landing_core.methods`` (its direction, composed with a step rule
of ``landing_core.steps``) and yields one :class:`Record` per iterate, X_0 first, computing
X_{k+1} only when the next record is asked for; the app streams from it. ``solve`` (and
``landing``, ``riemannian_gd``, ``penalty``) fold it into a :class:`Result` with Algorithm 1's
stopping rule ||grad|| + ||h(X_k)||_F <= tol (line 2): ``stop_reason`` and ``iterate`` test it
with ``run.run_status``, the one test of every driver.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from . import methods
from .geometry import frobenius_norm
from .methods.base import Field, Method, State
from .methods.params import positive, tangent_name
from .methods.rgd import RETRACTIONS
from .problems import Problem, ProblemLike, as_problem, check_values
from .problems import check_gradient as _check_gradient
from .run import (
    BLOWUP,
    Code,
    History,
    Outcome,
    Status,
    StopCheck,
    deadline,
    run_status,
    stopped_message,
    valid,
)
from .steps import (
    Armijo,
    BarzilaiBorwein,
    Constant,
    Safe,
    ScaleFree,
    Step,
    StepContext,
    StepRule,
    as_step_rule,
)

Array = np.ndarray

__all__ = [
    "METHODS",
    "RETRACTIONS",
    "Config",
    "Record",
    "Result",
    "Status",
    "StopCheck",
    "deadline",
    "iterate",
    "landing",
    "make_method",
    "penalty",
    "riemannian_gd",
    "solve",
    "stop_reason",
]

METHODS: Mapping[str, str] = methods.LABELS  # name -> label, from the one registry


RANK_TOL = 1e-12
"""X0 is rank-deficient where its smallest singular value is at most this times its largest
(or 1): its Gram matrix, whose condition number is their ratio squared, would then be singular
to working precision."""


# ----------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Config:
    """One run's method and parameters (a run is reproducible from Config, problem and X_0).

    method: a name of METHODS ("landing", "rgd-qr", "rgd-polar", "rgd-cayley", "penalty",
    "momentum", or one registered later); tangent: the landing tangent term (a name of
    ``geometry.TANGENT_TERMS``); beta > 0 (beta-metric), omega > 0 (normal term weight; the
    penalty's weight too; 0 for a landing run of the tangent term alone, with a constant
    step: the other rules keep ||h|| bounded through the normal term); step: a number
    (constant), a step rule or its name (``steps.BY_NAME``), or None (``steps.ScaleFree``);
    options: the method's own parameters (e.g. ``{"gamma": 0.5}`` for momentum,
    ``{"metric_beta": 0.1}`` for the retraction baselines' beta-metric, which ignore
    ``beta``), stored as sorted (name, value) pairs.
    """

    beta: float = 0.5
    omega: float = 1.0
    step: float | str | StepRule | None = None
    tangent: str = "beta"
    method: str = "landing"
    options: Mapping[str, object] | tuple[tuple[str, object], ...] = ()

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; choose one of {list(METHODS)}")
        tangent_name(self.tangent)
        object.__setattr__(self, "beta", positive("beta", self.beta, per_run=False))
        # omega = 0 (the tangent term alone) only where the method takes omega and accepts it
        # (landing; the penalty refuses it); any other method's omega must be > 0 as ever
        if self.omega == 0 and "omega" in inspect.signature(
                methods.REGISTRY[self.method].factory).parameters:
            object.__setattr__(self, "omega", 0.0)
        else:
            object.__setattr__(self, "omega", positive("omega", self.omega, per_run=False))
        object.__setattr__(self, "options", tuple(sorted(dict(self.options).items())))
        make_method(self)  # validates the options
        rule = as_step_rule(self.step)  # validates a numeric step
        if self.omega == 0 and isinstance(rule, Safe | BarzilaiBorwein | ScaleFree | Armijo):
            raise ValueError(
                "omega = 0 runs the tangent term alone, with no normal term to bring X back: "
                f"{type(rule).__name__}{' (the default rule)' if self.step is None else ''} "
                "keeps ||h|| in its safe region through that term and would stop at the "
                "region's edge; give a constant step (a number)")


def make_method(config: Config, problem: Problem | None = None) -> Method:
    """The method object of ``config`` for ``problem`` (from the registry)."""
    return methods.build(config.method, beta=config.beta, omega=config.omega,
                         tangent=config.tangent, problem=problem, **dict(config.options))


@dataclass(frozen=True, init=False)
class Record:
    """One iterate: k, X_k, f(X_k), ||h(X_k)||_F, ||grad|| (the stationarity measure of the
    stopping rule, ``Method.stationarity``: ||grad_1 f(X_k)||_F on St(n, p), whatever the
    tangent term), the step eta_{k-1} that produced X_k (NaN for k = 0), seconds since the
    start, and the status: "running", or "diverged" on a final record that repeats the last
    valid iterate X_k (its step is then eta_k, the step that failed). ``normal_step``:
    eta_{k-1} omega_{k-1}, the step taken along X h (omega_{k-1} < omega where a rule lowered
    it; 0 for the retractions).
    ``G`` and ``V``: the Euclidean gradient and the method's field at X_k (X_{k+1} = X_k -
    eta_k V for landing at the run's omega), for a caller that draws them (the explorer's
    Metric and Safe region views); None on a "diverged" record. They are the solver's own
    arrays, not copies: read them, do not modify them."""

    k: int
    X: Array
    cost: float
    infeasibility: float
    grad_norm: float
    step: float
    time: float
    status: Status = Status.RUNNING
    message: str = ""
    normal_step: float = math.nan
    G: Array | None = None
    V: Array | None = None

    def __init__(self, k: int, X: Array, cost: float, infeasibility: float, grad_norm: float,
                 step: float, time: float, status: Status = Status.RUNNING, message: str = "",
                 normal_step: float = math.nan, G: Array | None = None,
                 V: Array | None = None) -> None:
        # the fields in one assignment: the solver makes a Record per iterate, and the frozen
        # dataclass's own __init__ (an object.__setattr__ call per field) took 4 us of a
        # (3, 2) iteration's 30-odd
        object.__setattr__(self, "__dict__", {
            "k": k, "X": X, "cost": cost, "infeasibility": infeasibility,
            "grad_norm": grad_norm, "step": step, "time": time, "status": status,
            "message": message, "normal_step": normal_step, "G": G, "V": V})


@dataclass(kw_only=True, repr=False)
class Result(Outcome):
    """A finished run (``run.Outcome``) with its number of updates, ``iterations``.

    Histories hold iterations + 1 entries, X_0's first: ``cost`` f(X_k), ``infeasibility``
    ||h(X_k)||_F (||X_k^T X_k - I||_F on St(n, p)), ``grad_norm`` the stationarity measure of
    the stopping rule (||grad_1 f(X_k)||_F on St(n, p)), ``step`` eta_{k-1} and
    ``normal_step`` eta_{k-1} omega_{k-1}, the steps that produced X_k (NaN at X_0), and
    ``time``, the seconds of the run's own work up to X_k (``iterate``'s ``clock``).
    ``iterates`` holds X_k for the indices in ``iterate_index`` when asked for (decimated to a
    bounded count), else is None. ``f_star``: the optimal value when known, for p = n over
    the component of O(n) of the final X (where the final gap cost[-1] - f_star is measured;
    a long step can leave X_0's component).
    """

    iterations: int
    iterates: Array | None = None
    iterate_index: Array | None = None
    config: Config = field(default_factory=Config)


RUNNING = Status.RUNNING


def _divergence_hint(rule: StepRule) -> str:
    """What to try after a divergence under ``rule``. The default rule and Armijo bound their
    steps (the safe step lemma, a sufficient decrease), so a run of theirs diverges through the
    cost itself (a NaN, an overflow, a gradient that is not the cost's); a capped rule through
    its cap or ω; a fixed step through the step."""
    if isinstance(rule, ScaleFree | Armijo):
        return ("This step rule bounds its steps: check that the cost is finite there and that "
                "egrad is its gradient (problems.check_gradient).")
    if isinstance(rule, Safe | BarzilaiBorwein):
        return "Try a smaller η cap or ω."
    return "Try a smaller step or the safe step rule."


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
    if X0.dtype.kind not in "iuf":  # cast, a complex X0 would lose its imaginary part
        raise ValueError(f"X0 must be a real matrix, got entries of type {X0.dtype}")
    if not np.all(np.isfinite(X0)):
        raise ValueError("X0 contains NaN or infinite entries")
    s = np.linalg.svd(X0, compute_uv=False)
    if s[-1] <= RANK_TOL * max(s[0], 1.0):
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


def _evaluator(problem: Problem, method: Method
               ) -> Callable[[Array, State], tuple[float, Array, Field, float, float, State]]:
    """evaluate(X, state) -> (f, G, field, ||h||_F, ||grad||, state) at X; _Diverged if the
    evaluation breaks or the divergence test of ``run_status`` holds.

    Finiteness is tested on the scalars only: a finite ||h(X)||_F implies a finite X, and then
    the field is finite with its norm (an overflow would surface at the next iterate). The
    functions are bound once, and a method that takes the problem's value and gradient as they
    are (``Method.gradient``) calls the problem's own function directly: on a small problem
    the iteration is mostly such per-call overhead.
    """
    gradient, field, constraint = method.gradient, method.field, method.constraint
    value_and_grad = None
    if type(method).gradient is Method.gradient:
        value_and_grad = problem.value_and_grad
        if type(problem).value_and_grad is Problem.value_and_grad and \
                problem.cost_and_egrad is not None:
            value_and_grad = problem.cost_and_egrad

    first = True

    def evaluate(X: Array, state: State) -> tuple[float, Array, Field, float, float, State]:
        nonlocal first
        try:
            if value_and_grad is not None:
                cost, G = value_and_grad(X)
            else:
                cost, G, state = gradient(problem, X, state)
            if first:  # X_0: values of the wrong kind named before numpy meets them
                check_values(problem, cost, G)
                first = False
            cost = float(cost)
            fld, state = field(X, G, state)
            gnorm = float(fld.grad_norm)
        except np.linalg.LinAlgError as err:
            raise _broken(X, f"the Gram matrix {constraint.gram} became singular ({err})"
                          ) from err
        H = fld.H
        d = math.sqrt(np.vdot(H, H)) if H.ndim == 2 else float(frobenius_norm(H))
        # the divergence test alone: no tolerance or limit can stop the run here
        if not valid(cost, gnorm, d):
            if not (math.isfinite(cost) and math.isfinite(gnorm) and math.isfinite(d)):
                raise _broken(X, "the cost or the gradient became NaN or infinite")
            raise _Diverged(f"‖{constraint.gram} − I‖ = {d:.3g} exceeded {BLOWUP:.0e}")
        return cost, G, fld, d, gnorm, state

    return evaluate


def _broken(X: Array, what: str) -> _Diverged:
    """The divergence to report when the evaluation at X broke: X itself, or what came of it."""
    if not np.isfinite(X).all():
        return _Diverged("the iterate has NaN or infinite entries")
    return _Diverged(what)


def iterate(problem: ProblemLike, X0: Array, config: Config | None = None, *,
            method: Method | None = None,
            clock: Callable[[], float] = time.perf_counter) -> Iterator[Record]:
    """Yield one Record per iterate of the configured method, X_0 first, without end.

    The generator computes X_{k+1} only when asked for the next record; it ends after a record
    with status "diverged" (which repeats the last valid iterate). X0 is never mutated. The
    method chooses the first iterate (the retraction baselines start from X0's polar factor).
    ``problem``: any object with n, p, cost and egrad (``problems.as_problem``). ``method``:
    the method object to run, when the caller built ``make_method(config, problem)`` and
    adjusted it (``stochastic.epochs``); by default that method. ``clock``: what each record's
    ``time`` sums, the seconds spent computing the run from just before X_0 is evaluated: the
    wall clock by default; ``time.thread_time`` counts the computing thread's CPU seconds only,
    so that the waits of a thread that shares the interpreter (or the machine) stay out of the
    run's time. Only the generator's own work is counted, each stretch from a resume to the
    next record (one ``next`` call, so on one thread even where a run moves between threads):
    what the caller does between two records (drawing, storing) is not the method's time.
    """
    problem = as_problem(problem)
    config = config or Config()
    method = make_method(config, problem) if method is None else method
    X = method.start(_check_start(problem, X0))
    rule = as_step_rule(config.step)
    fixed = rule.eta if type(rule) is Constant else None  # a constant step needs no context
    omega = method.normal_weight  # what the step rules see (0: no normal term)
    rule_state: dict = {}
    # a method's move that takes the step rule's N(X) (``steps.Step.normal``) is handed it; a
    # user's method with the older signature move(X, field, eta, omega) still runs
    takes = inspect.signature(method.move).parameters
    takes_normal, takes_tangent = "normal" in takes, "tangent" in takes
    hint = _divergence_hint(rule)
    # bound once: the loop below is most of a small run's time
    move_by, cost_of = method.move, problem.cost
    landing, constraint = method.landing, method.constraint
    evaluate = _evaluator(problem, method)
    resumed, spent = clock(), 0.0
    try:
        cost, G, fld, d, gnorm, state = evaluate(X, method.init(X))
    except _Diverged as err:
        raise ValueError(f"X0 is not a valid start: {err}") from err
    k, eta, eta_w = 0, math.nan, math.nan
    while True:
        spent += clock() - resumed
        yield Record(k, X, cost, d, gnorm, eta, spent, RUNNING, "", eta_w, G, fld.V)
        resumed = clock()
        eta_w = math.nan
        try:
            if fixed is not None:
                eta = fixed
                X_next = move_by(X, fld, eta)
                eta_w = eta * omega
            else:
                def move(step: float, omega_k: float | None = None, X: Array = X,
                         fld: Field = fld) -> Array:
                    return move_by(X, fld, step, omega_k)

                step = rule(StepContext(X, fld.V, G, d, omega, cost_of, move, k, fld.H,
                                        landing, fld.tangent_norm, constraint, fld.T,
                                        float(fld.gain)), rule_state)
                own = isinstance(step, Step)
                eta = float(step.eta if own else step)
                if not (math.isfinite(eta) and eta > 0):
                    raise _Diverged(f"the step rule returned η = {eta}")
                if own and step.omega != omega:  # the step's own normal weight
                    if not (landing and 0 < step.omega < math.inf):
                        raise ValueError("a Step's normal weight must be a finite number > 0 "
                                         f"on a landing run, got {step.omega!r}")
                    X_next = (move_by(X, fld, eta, step.omega, step.normal, step.tangent)
                              if takes_tangent and step.normal is not None
                              else move_by(X, fld, eta, step.omega, step.normal) if takes_normal
                              else move_by(X, fld, eta, step.omega))
                    eta_w = eta * step.omega
                else:
                    X_next = move_by(X, fld, eta)
                    eta_w = eta * omega
            cost, G, fld, d, gnorm, state = evaluate(X_next, state)
        except (_Diverged, np.linalg.LinAlgError) as err:
            yield Record(k, X, cost, d, gnorm, eta, spent + clock() - resumed, Status.DIVERGED,
                         f"Diverged at iteration {k + 1}: {err}; X_{k} is the last valid "
                         f"iterate. {hint}", eta_w)
            return
        X, k = X_next, k + 1


def solve(
    problem: ProblemLike,
    X0: Array,
    config: Config | None = None,
    *,
    tol: float = 1e-8,
    max_iter: int = 1000,
    keep_iterates: int = 0,
    callback: Callable[[Record], bool | None] | None = None,
    should_stop: StopCheck | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Result:
    """Run ``iterate`` to completion with Algorithm 1's stopping rule ||grad|| + ||h|| <= tol.

    ``iterations`` counts updates: with no earlier stop, X is the iterate after exactly
    ``max_iter`` updates and the histories hold max_iter + 1 entries. ``keep_iterates`` >= 2
    keeps at most that many X_k (uniformly decimated, always including X_0 and the last). A
    ``callback(record)`` returning True stops the run (status "stopped"); so does
    ``should_stop()`` returning a reason (checked after each iterate: e.g. ``deadline(30)``,
    or a closed page), with the histories computed so far. ``clock``: what the ``time``
    history reads (``iterate``).
    """
    problem = as_problem(problem)
    config = config or Config()
    _check_run(tol, max_iter)
    if int(keep_iterates) != keep_iterates or keep_iterates < 0 or keep_iterates == 1:
        raise ValueError("keep_iterates must be 0 (none) or an integer >= 2 (X_0 and the last "
                         f"at least), got {keep_iterates}")
    history = History()
    index: list[int] = []
    frames: list[Array] = []
    stride = 1
    status, message, last = Status.MAX_ITER, "", None
    add = history.add
    for rec in iterate(problem, X0, config, clock=clock):
        # iterate has run the divergence test: a running record below max_iter and above
        # tol needs no stop_reason (its messages are built only where a run ends)
        running = (rec.status is RUNNING and rec.k < max_iter
                   and not rec.grad_norm + rec.infeasibility <= tol)
        reason = None if running else stop_reason(rec, tol, max_iter)
        if rec.status != Status.DIVERGED:
            last = rec
            add(rec.cost, rec.infeasibility, rec.grad_norm, rec.step, rec.normal_step,
                rec.time)
            if keep_iterates and rec.k % stride == 0:
                index.append(rec.k)
                frames.append(rec.X)
                if len(frames) > keep_iterates:
                    index, frames = index[::2], frames[::2]
                    stride *= 2
        if reason is not None and reason[0] != Status.MAX_ITER:
            status, message = reason
            break
        if callback is not None and callback(rec):
            status, message = Status.STOPPED, f"Stopped by the callback after {rec.k} iterations."
            break
        if should_stop is not None and reason is None and (why := should_stop()):
            status, message = Status.STOPPED, stopped_message(why, rec.k)
            break
        if reason is not None:
            status, message = reason
            break
    assert last is not None
    if keep_iterates and (not index or index[-1] != last.k):
        if len(frames) == keep_iterates:  # the last takes the place of the one before it
            index.pop()
            frames.pop()
        index.append(last.k)
        frames.append(last.X)
    return Result(
        X=last.X,
        iterations=last.k,
        status=status,
        message=message,
        **history.arrays(),
        f_star=problem.optimum_from(last.X),
        iterates=np.array(frames) if keep_iterates else None,
        iterate_index=np.array(index) if keep_iterates else None,
        config=config,
    )


def landing(
    problem: ProblemLike,
    X0: Array,
    *,
    beta: float = 0.5,
    omega: float = 1.0,
    step: float | str | StepRule | None = None,
    tol: float = 1e-8,
    max_iter: int = 1000,
    tangent: str = "beta",
    keep_iterates: int = 0,
    callback: Callable[[Record], bool | None] | None = None,
    check_gradient: bool = False,
) -> Result:
    """Algorithm 1: X_{k+1} = X_k - eta_k (grad f(X_k) + omega X_k (X_k^T X_k - I_p)), on the
    problem's constraint (``Problem.constraint``; St(n, p) by default).

    The normal term is the paper's omega X (X^T X - I) (= omega/2 times the gradient of
    N = 1/2 ||h||^2) on St(n, p), the constraint's N(X) on another.

    - ``problem``: any object with n, p, cost(X) and egrad(X) (``problems.ProblemLike``);
      ``X0``: an (n, p) matrix of full rank, on the constraint or off it.
    - ``beta`` > 0: the beta-metric of the tangent term grad_beta f (the paper's eq.
      (grad_beta)); ``tangent``: that term, "beta", or "euclidean" (the Frobenius projection
      of the gradient) or "relative" (skew(G X^T) X, Ablin & Peyre), which ignore beta
      (``geometry.TANGENT_TERMS``).
    - ``omega`` > 0: the normal term's weight (0: the tangent term alone, with a constant
      step).
    - ``step``: a number (constant), a rule from ``landing_core.steps`` or its name ("safe",
      "armijo", "bb", "scalefree"), or None for ``steps.ScaleFree``: BB steps on the tangent
      term with the normal step eta omega_k kept at min(omega, 1)/2, made safe (converges
      without tuning, whatever the cost's scale).
    - ``tol``, ``max_iter``: the run stops when ||grad_1 f|| + ||h|| <= tol (the stationarity
      measure whatever the tangent term), or after max_iter updates.
    - ``keep_iterates``: 0, or at most that many iterates X_k kept (>= 2: X_0 and the last
      among them); ``callback(record)``: called at every iterate, True stops the run.
    - ``check_gradient``: first compare the gradient with finite differences of the cost at X0
      (``problems.check_gradient``) and raise ValueError when they disagree: a wrong gradient
      still lets the iteration settle, at a point that is not a solution.

    Returns a :class:`Result`: the final X, its status ("converged", "max_iter", "diverged",
    "stopped") and message, the histories per iterate (cost f, infeasibility ||h||_F,
    grad_norm, step, normal_step, time) and ``iterations``.
    """
    if check_gradient:
        outcome = _check_gradient(problem, _check_start(as_problem(problem), X0))
        if not outcome.passed:
            raise ValueError(outcome.message)
    config = Config(beta=beta, omega=omega, step=step, tangent=tangent, method="landing")
    return solve(problem, X0, config, tol=tol, max_iter=max_iter,
                 keep_iterates=keep_iterates, callback=callback)


def riemannian_gd(
    problem: ProblemLike,
    X0: Array,
    *,
    retraction: str = "qr",
    metric_beta: float = 1.0,
    step: float | str | StepRule | None = None,
    tol: float = 1e-8,
    max_iter: int = 1000,
    keep_iterates: int = 0,
    callback: Callable[[Record], bool | None] | None = None,
) -> Result:
    """Riemannian gradient descent on St(n, p) in the beta-metric (``metric_beta``; 1, the
    default, is the embedded metric), retraction "qr", "polar" or "cayley"; starts from the
    polar factor of X0 (its nearest point on the manifold)."""
    if retraction not in RETRACTIONS:
        raise ValueError(f"unknown retraction {retraction!r}; choose one of {list(RETRACTIONS)}")
    config = Config(step=step, method=f"rgd-{retraction}",
                    options={"metric_beta": metric_beta})
    return solve(problem, X0, config, tol=tol, max_iter=max_iter,
                 keep_iterates=keep_iterates, callback=callback)


def penalty(
    problem: ProblemLike,
    X0: Array,
    *,
    omega: float = 1.0,
    step: float | str | StepRule | None = None,
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


def stop_reason(record: Record, tol: float, max_iter: int) -> tuple[Status, str] | None:
    """Algorithm 1's stopping rule on one record (``run_status``): (status, message), or None to
    go on.

    "converged" when ||grad|| + ||h|| <= tol, "max_iter" once record.k reaches max_iter,
    "diverged" for a diverged record.
    """
    if record.status == Status.DIVERGED:
        return Status.DIVERGED, record.message
    total = record.grad_norm + record.infeasibility
    code = run_status(record.cost, record.grad_norm, record.infeasibility, record.k, tol,
                      max_iter)
    if code == Code.CONVERGED:
        return Status.CONVERGED, (f"Converged after {record.k} iterations: ‖grad‖ + ‖h‖ = "
                             f"{total:.2e} ≤ tol = {tol:.0e}.")
    if code == Code.MAX_ITER:
        return Status.MAX_ITER, (f"Reached the iteration limit ({max_iter}): ‖grad‖ + ‖h‖ = "
                            f"{total:.2e} > tol = {tol:.0e}.")
    if code == Code.DIVERGED:
        return Status.DIVERGED, (f"Diverged at iteration {record.k}: the cost, ‖grad‖ or ‖h‖ is "
                            "NaN, infinite or beyond the divergence bound.")
    return None
