"""A family of runs: the explorer's run repeated over a range of one parameter (β, ω or η), for
the player's scrubber. Pure (no streamlit).

Every member starts from the same X₀ with every other setting of the sidebar; the family is one
vectorized batch (``landing_core.sweep.run_batch``, whose ``observe`` hands over every
iteration's valid iterates), and each member becomes a ``runner.Trace``, the same record a lone
run of the explorer keeps, so that ``playback.chunk`` sends it unchanged. The step rules the
batch does not run (Armijo, Barzilai–Borwein, scale-free) compute their members one by one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np

from landing_core.metric_view import metric_rows
from landing_core.problems import Problem
from landing_core.run import Status, StopCheck, stopped_message
from landing_core.solvers import Record, stop_reason
from landing_core.steps import USES_ETA
from landing_core.sweep import BATCH_STEP_RULES, Iterates, run_batch

from . import runner
from .runner import CPU, SAFE_EPS, Trace
from .state import STEP_LABELS, AppConfig
from .views import available

Array = np.ndarray

PARAMS = ("beta", "omega", "eta")
"""The parameters a family can scrub (``AppConfig.scrub``; "off": no family)."""
SYMBOLS = {"beta": "β", "omega": "ω", "eta": "η"}
FAMILY_VIEWS = ("plane", "sphere", "frame", "sigma", "cone", "metric")
"""The views a family draws (``views``). The Metric view at St(3, 2) only, where its rows are a
closed form (``metric_view.metric_rows``: the batch's in one pass over every member's iterates);
elsewhere its slice takes a Gram-Schmidt and a Lyapunov solve per member and iterate, far more
than the family's own iterations. The Safe step view stays the single run's."""
METRIC_SIZE = (3, 2)


def views(shown: list[str], n: int, p: int) -> list[str]:
    """The views of ``shown`` (``views.available``) a family of St(n, p) draws
    (FAMILY_VIEWS)."""
    return [v for v in shown if v in FAMILY_VIEWS and (v != "metric" or (n, p) == METRIC_SIZE)]


def _draws_metric(config: AppConfig, problem: Problem) -> bool:
    return "metric" in views(available(problem.n, problem.p, problem.B is not None,
                                       config.step), problem.n, problem.p)


def values(lo: float, hi: float, count: int) -> Array:
    """``count`` log-spaced values from lo to hi, to 3 significant digits (the sidebar and the
    URL show them as typed numbers; distinct for any count a decade or more apart up to
    ~300)."""
    v = np.logspace(math.log10(lo), math.log10(hi), count)
    digits = 2 - np.floor(np.log10(v)).astype(int)
    return np.array([round(float(x), int(d)) for x, d in zip(v, digits, strict=True)])


def scrub_values(config: AppConfig) -> Array:
    """The family's values: ``values`` of its range and count, with the member nearest the
    sidebar's value (``selected``) replaced by that value where it lies inside the range, so
    the run the sidebar sets is the run the player shows first (β = 0.5 is no member of the
    default 0.05-20: 0.473 would stand for it). The replaced member moves by less than half a
    log step; the others stay where ``values`` puts them."""
    v = values(config.scrub_lo, config.scrub_hi, config.scrub_count)
    value = getattr(config, config.scrub)
    if v[0] < value < v[-1]:
        v[selected(config, v)] = value
    return v


def idle_reason(param: str, config: AppConfig) -> str | None:
    """Why the parameter does nothing in this configuration (None where it acts): β at p = 1
    (skew(XᵀG) is 1 × 1) or off the β-metric; η under a rule that takes none (Barzilai–Borwein,
    the scale-free rule)."""
    if param == "beta" and config.tangent != "beta":
        return "β only enters the β-metric tangent term"
    if param == "beta" and config.p == 1:
        return "for p = 1 every β gives the same tangent term (skew(XᵀG) is 1 × 1, so 0)"
    if param == "eta" and not USES_ETA[config.step]:
        return f"{STEP_LABELS[config.step].split(' (')[0]} takes no η"
    return None


def active_others(param: str, config: AppConfig) -> list[str]:
    """The parameters other than ``param`` that act in this configuration (``idle_reason``):
    what to offer where ``param`` does nothing."""
    return [name for name in PARAMS if name != param and idle_reason(name, config) is None]


def selected(config: AppConfig, grid: Array) -> int:
    """The member nearest (in log scale) to the sidebar's value of the scrubbed parameter."""
    return int(np.argmin(np.abs(np.log(grid) - math.log(getattr(config, config.scrub)))))


@dataclass
class Family:
    """The members' traces in the order of ``values`` (None for a member not computed yet:
    ``first``); ``seconds``: the computing time."""

    param: str
    values: Array
    members: list[Trace | None]
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        return all(t is not None for t in self.members)


def _new_trace(config: AppConfig, problem: Problem, omega: float) -> Trace:
    return Trace(problem.n, problem.p, omega, B=problem.B,
                 optima=problem.f_star_by_det if problem.n == problem.p else None)


class _Keeper:
    """``run_batch``'s ``observe``: what ``Trace.append`` keeps of each record (X_k for
    n <= 3, the Gram matrix for p = 2, singular values, det X_k's sign for p = n), reduced for
    the whole stack at each iteration and split into the members' traces at the end. Where
    ``metric``, G_k too, whose Metric view rows are computed at the end in one pass (per
    iteration, the small arrays' calls over the stack cost about as much as the batch's
    step)."""

    def __init__(self, metric: bool = False) -> None:
        self.rows = []
        self.metric = metric
        # the batch's CPU time (its time history) from here, without this observer's own
        # work: as ``iterate`` times a lone run
        self.spent, self.resumed = 0.0, CPU()

    def __call__(self, it: Iterates) -> None:
        self.spent += CPU() - self.resumed
        X = it.X
        n, p = X.shape[1:]
        M = it.H + np.eye(p)  # the Gram matrix (XᵀBX on XᵀBX = I), as the batch formed it
        sigma = np.sqrt(np.clip(np.linalg.eigvalsh(M), 0.0, None))[:, ::-1]
        self.rows.append((
            it.runs, np.stack([it.cost, it.infeasibility, it.grad_norm, it.step,
                               it.normal_step], axis=1),
            sigma, X.copy() if n <= 3 else None, M if p == 2 else None,
            np.linalg.det(X) > 0 if n == p else None, self.spent,
            it.G.copy() if self.metric else None))
        self.resumed = CPU()

    def fill(self, traces: list[Trace]) -> None:
        runs = np.concatenate([r[0] for r in self.rows])
        order = np.argsort(runs, kind="stable")  # by run, then by k
        cuts = np.searchsorted(runs[order], np.arange(len(traces) + 1))
        def column(i: int) -> Array | None:
            if self.rows[0][i] is None:
                return None
            return np.concatenate([r[i] for r in self.rows])[order]
        scalars, sigma, X, gram, positive = (column(i) for i in range(1, 6))
        G = column(7)  # the Metric view's rows in one pass over every member's iterates
        metric = metric_rows(X, G) if G is not None else None
        clock = np.concatenate([np.full(len(r[0]), r[6]) for r in self.rows])[order]
        for i, t in enumerate(traces):
            part = slice(cuts[i], cuts[i + 1])
            t.cost, t.infeasibility, t.grad_norm, t.step, t.normal_step = (
                scalars[part].T.tolist())
            t.time = clock[part].tolist()
            t.sigma = list(sigma[part])
            if X is not None:
                t.X = list(X[part])
            if gram is not None:
                t.gram = list(gram[part])
            if positive is not None and t.optima:
                t.f_star = [t.optima[1 if s else -1] for s in positive[part]]
            if metric is not None:
                t.extras, t.metric = ("metric",), list(metric[part])


def _batch(config: AppConfig, problem: Problem, param: str, grid: Array,
           should_stop: StopCheck | None) -> list[Trace]:
    """The family as one batch: ``run_batch`` from B copies of X₀."""
    each = {name: np.full(len(grid), getattr(config, name)) for name in PARAMS}
    each[param] = grid
    traces = [_new_trace(config, problem, float(w)) for w in each["omega"]]
    X0 = np.repeat(runner.initial(config, problem)[None], len(grid), axis=0)
    keep = _Keeper(metric=_draws_metric(config, problem))
    status = run_batch(
        problem, X0, beta=each["beta"], omega=each["omega"], eta=each["eta"],
        tangent=config.tangent, step=config.step, eps=SAFE_EPS, tol=config.tol,
        max_iter=config.max_iter, should_stop=should_stop, observe=keep).status
    keep.fill(traces)
    for t, code in zip(traces, status, strict=True):
        _finish(t, str(code), config, should_stop)
    return traces


def _finish(trace: Trace, status: str, config: AppConfig, should_stop: StopCheck | None) -> None:
    """A member's status and message, in the words of a lone run's (``stop_reason``)."""
    k = trace.k
    if status == Status.STOPPED:
        reason = should_stop() if should_stop is not None else None
        trace.status, trace.message = Status.STOPPED, stopped_message(reason, k)
        return
    if status == Status.DIVERGED:
        trace.status = Status.DIVERGED
        trace.message = (f"Diverged at iteration {k + 1}: the cost, ‖grad‖ or ‖h‖ became NaN, "
                         f"infinite or beyond the divergence bound; X_{k} is the last valid "
                         "iterate.")
        return
    last = Record(k, np.empty(0), trace.cost[-1], trace.infeasibility[-1],
                  trace.grad_norm[-1], trace.step[-1], trace.time[-1])
    trace.status, trace.message = stop_reason(last, config.tol, config.max_iter) or (status, "")


def _one_by_one(config: AppConfig, problem: Problem, param: str, grid: Array,
                should_stop: StopCheck | None) -> list[Trace]:
    """The family as lone runs (the step rules ``run_batch`` does not run)."""
    traces = []
    for v in grid:
        member = replace(config, **{param: float(v)})
        trace, records = runner.start(member, problem)
        _member_rows(trace)
        while not trace.finished:
            trace.feed(next(records), config.tol, config.max_iter)
            if not trace.finished and should_stop is not None and (why := should_stop()):
                trace.status, trace.message = Status.STOPPED, stopped_message(why, trace.k)
        traces.append(trace)
    return traces


def _member_rows(trace: Trace) -> None:
    """Of the rows a lone run records for the views (``runner.start``, X_0's so far), a
    member keeps those a family draws (``views``): the Metric view's at St(3, 2)."""
    keep = views(list(trace.extras), trace.n, trace.p)
    trace.extras = tuple(keep)
    trace.metric = trace.metric if "metric" in keep else []
    trace.safe = []


def first(config: AppConfig, problem: Problem) -> Family:
    """The family with only the member the sidebar's value picks (``selected``), computed as
    the lone run it is: what the player draws first, while the batch computes the rest (a
    family at St(3, 2) runs to its slowest member's 500 iterations, the shown one's ~130)."""
    grid = scrub_values(config)
    index = selected(config, grid)
    t0 = time.perf_counter()
    member = replace(config, **{config.scrub: float(grid[index])})
    trace, records = runner.start(member, problem)
    _member_rows(trace)
    runner.run_to_end(trace, records, member)
    members: list[Trace | None] = [None] * len(grid)
    members[index] = trace
    return Family(config.scrub, grid, members, time.perf_counter() - t0)


def compute(config: AppConfig, problem: Problem, grid: Array | None = None,
            should_stop: StopCheck | None = None) -> Family:
    """The family of ``config.scrub`` over ``grid`` (by default ``scrub_values``: its range and
    count, ``state.validate``'s, through the sidebar's value), every member from the same X₀
    with the sidebar's other settings."""
    param = config.scrub
    if param not in PARAMS:
        raise ValueError(f"scrub must be one of {', '.join(PARAMS)}, got {param!r}")
    if grid is None:
        grid = scrub_values(config)
    grid = np.asarray(grid, dtype=float)
    t0 = time.perf_counter()
    make = _batch if config.step in BATCH_STEP_RULES else _one_by_one
    members = make(config, problem, param, grid, should_stop)
    return Family(param, grid, members, time.perf_counter() - t0)
