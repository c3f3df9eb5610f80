"""What an action costs (seconds of one core, bytes of memory), and the server's budget for one.

Pure (no streamlit). Every action the app computes (the explorer's run, a comparison, a sweep,
the problem built from an uploaded matrix) is estimated here before it starts, at its worst
case (every run to max_iter); what is over budget is refused with a message naming what to
lower. The budget comes from the deployment's environment (``Budget.from_env``):

- ``LANDING_BUDGET_SECONDS``: computing seconds one request may take (default 30);
- ``LANDING_BUDGET_MB``: megabytes of working memory one request may take (default 1024).

The model counts work units per iteration of one run: the cost function's matrix products
(``problem_units``), on XᵀBX = I the product B X (``constrained``), plus the method's
O(np^2 + p^3) linear algebra, times a per-method and
per-step-rule factor; seconds = units x SECONDS_PER_UNIT plus a fixed Python overhead per
iteration. The constants were measured with one BLAS thread on the development machines
(benchmarks/bench_hosting.py prints the model beside measured times); a margin covers the
spread.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from landing_core.sweep import BATCH_STEP_RULES

SECONDS_PER_UNIT = 1.0e-10  # one landing iteration at n = 200, p = 50: ~2.6e6 units, ~0.26 ms
ITERATION_OVERHEAD = 30e-6  # seconds of Python per iteration of one run, whatever its size
BATCH_OVERHEAD = 0.6e-3  # seconds of Python per iteration of a sweep's batch
BATCH_RUN_OVERHEAD = 0.7e-6  # seconds per run per batch iteration (elementwise numpy)
MARGIN = 1.25  # the model's spread over sizes and methods, and a loaded machine
# the methods' linear algebra relative to landing's, and the step rules' extra evaluations
# (Armijo backtracks: several cost evaluations per iteration)
METHOD_FACTOR = {"landing": 1.0, "rgd-qr": 1.3, "rgd-polar": 2.3, "rgd-cayley": 2.3,
                 "penalty": 0.7, "momentum": 1.6}
# (scale-free forms the tangent term apart from the normal one: one more n p^2 product)
STEP_FACTOR = {"safe": 1.0, "constant": 1.0, "armijo": 3.2, "bb": 1.1,
               "scalefree": 1.4}  # every STEP_RULES name
# on XᵀBX = I (``constrained``) landing's Python per iteration is ~3.5x (more p x p steps, the
# memo of B X), and its linear algebra adds B X and about three more n p^2 products
B_OVERHEAD = 3.5
B_EXTRA_NPP = 3.0
DEFAULT_METHOD_FACTOR = 2.5  # a method registered later, not yet measured
BYTES_PER_RECORD = 400  # one iteration's history: six floats in lists and arrays, per run
SWEEP_COPIES = 14  # arrays of the batch's size (n p + p^2 per run) alive at once
RESIDUAL_COPIES = 2.5  # Procrustes: residuals A X - B of m x p per run
BASE_MEMORY = 5e6  # bytes any request may take besides its arrays


@dataclass(frozen=True)
class Budget:
    """The most one request may take: seconds of computing and bytes of memory."""

    seconds: float = 30.0
    memory: float = 1024 * 2**20

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Budget:
        """The budget the deployment sets (``LANDING_BUDGET_SECONDS``, ``LANDING_BUDGET_MB``),
        the defaults where unset; ValueError for a value that is not a positive number (a
        deployment error must not pass silently)."""
        env = os.environ if env is None else env
        values = {}
        for name, field, scale in (("LANDING_BUDGET_SECONDS", "seconds", 1.0),
                                   ("LANDING_BUDGET_MB", "memory", 2.0**20)):
            raw = env.get(name)
            if raw is None or not raw.strip():
                continue
            try:
                value = float(raw)
            except ValueError:
                value = math.nan
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name}={raw!r} must be a positive number")
            values[field] = value * scale
        return cls(**values)


@dataclass(frozen=True)
class Cost:
    """An action's estimated worst case: seconds of one core and bytes of memory; ``what`` names
    the action ("This sweep"), ``lower`` the settings that reduce it, ``iterations`` its
    iteration limit (to suggest one that fits)."""

    seconds: float
    memory: float
    what: str
    lower: str
    iterations: int = 0
    lower_memory: str = ""  # what reduces the memory, when not ``lower``

    def refusal(self, budget: Budget) -> str | None:
        """Why the action is refused (a message naming what to lower), or None when it fits."""
        over_time, over_memory = self.seconds > budget.seconds, self.memory > budget.memory
        if not (over_time or over_memory):
            return None
        needs = []
        if over_time:
            needs.append(f"about {_seconds(self.seconds)} of computing (this server allows "
                         f"{_seconds(budget.seconds)} per request)")
        if over_memory:
            needs.append(f"about {_bytes(self.memory)} of memory (this server allows "
                         f"{_bytes(budget.memory)})")
        lower = self.lower_memory if over_memory and not over_time and self.lower_memory \
            else self.lower
        text = f"{self.what} would need {' and '.join(needs)}. Lower {lower}"
        if over_time and not over_memory and self.iterations > 1:
            fits = int(self.iterations * budget.seconds / self.seconds)
            if fits >= 1:
                text += f" (for instance max iterations ≤ {fits})"
        return text + "."


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h"


def _bytes(b: float) -> str:
    return f"{b / 2**20:.0f} MB" if b < 2**30 else f"{b / 2**30:.3g} GB"


def problem_units(problem: str, n: int, p: int, m: int = 0) -> float:
    """Work units of one cost-and-gradient evaluation: the matrix products of the cost (A X for
    Brockett's, PCA's and the eigenproblem's n x n matrices; A X and A^T R for Procrustes'
    m x n matrix, m = n when built in); Linear and Quartic are elementwise."""
    if problem == "procrustes":
        return 2.0 * max(m, n) * n * p
    if problem in ("brockett", "pca", "generalized_eigen"):
        return float(n) * n * p
    return float(n) * p


def iteration_units(problem: str, n: int, p: int, m: int = 0, constrained: bool = False
                    ) -> float:
    """Work units of one landing iteration: the cost's products, on XᵀBX = I
    (``constrained``) the product B X with the dense n x n B and B_EXTRA_NPP more n p^2, and
    the method's O(np^2 + p^3) linear algebra."""
    extra = float(n) * n * p + B_EXTRA_NPP * n * p * p if constrained else 0.0
    return problem_units(problem, n, p, m) + extra + n * p * p + p**3


def matrix_memory(problem: str, n: int, p: int, m: int = 0, constrained: bool = False) -> float:
    """Bytes of the problem's own matrices (A n x n or m x n, B m x p), the constraint's B
    (n x n, ``constrained``) and one run's working arrays (a Procrustes residual of m x p, a
    few n x p)."""
    rows = max(m, n)
    own = {"procrustes": rows * n + rows * p, "brockett": n * n, "pca": n * n,
           "generalized_eigen": n * n}.get(problem, n * p) + (n * n if constrained else 0)
    work = RESIDUAL_COPIES * rows * p if problem == "procrustes" else 0
    return 8.0 * (own + work + SWEEP_COPIES * (n * p + p * p))


def run_seconds(problem: str, n: int, p: int, iterations: int, method: str = "landing",
                step: str = "safe", m: int = 0, constrained: bool = False) -> float:
    """Seconds of one run of ``iterations`` iterations (worst case: no early stop)."""
    factor = METHOD_FACTOR.get(method, DEFAULT_METHOD_FACTOR) * STEP_FACTOR[step]
    per = (ITERATION_OVERHEAD * (B_OVERHEAD if constrained else 1.0)
           + factor * iteration_units(problem, n, p, m, constrained) * SECONDS_PER_UNIT)
    return MARGIN * iterations * per


def run_cost(problem: str, n: int, p: int, iterations: int, *, method: str = "landing",
             step: str = "safe", m: int = 0, constrained: bool = False) -> Cost:
    """The explorer's run: one run to ``iterations``, its history (and per iterate the player's
    singular values, X_k for n <= 3); ``constrained``: on XᵀBX = I."""
    history = iterations * (BYTES_PER_RECORD + 8 * p + (8 * n * p if n <= 3 else 0))
    return Cost(run_seconds(problem, n, p, iterations, method, step, m, constrained),
                BASE_MEMORY + matrix_memory(problem, n, p, m, constrained) + history,
                "This run", "max iterations, n or p", iterations)


def compare_cost(problem: str, n: int, p: int, iterations: int,
                 rows: Sequence[tuple[str, str]], m: int = 0, constrained: bool = False
                 ) -> Cost:
    """A comparison: one run per row, ``rows`` as (method, step rule) pairs; ``constrained``:
    some row runs on XᵀBX = I (each row is counted so, the worst case)."""
    seconds = sum(run_seconds(problem, n, p, iterations, method, step, m, constrained)
                  for method, step in rows)
    kept = 8 * n * p * (iterations + 1) if n <= 3 else 0  # the trajectories drawn
    history = len(rows) * (iterations * BYTES_PER_RECORD + kept)
    return Cost(seconds, BASE_MEMORY + matrix_memory(problem, n, p, m, constrained) + history,
                "This comparison", "max iterations, the number of rows, n or p", iterations)


def sweep_cost(problem: str, n: int, p: int, iterations: int, runs: int, m: int = 0,
               constrained: bool = False) -> Cost:
    """A sweep: ``runs`` landing runs side by side, one batch (each run's arrays at once);
    ``constrained``: on XᵀBX = I."""
    per_iteration = BATCH_OVERHEAD + runs * (
        BATCH_RUN_OVERHEAD + iteration_units(problem, n, p, m, constrained) * SECONDS_PER_UNIT)
    rows = max(m, n)
    per_run = 8.0 * (SWEEP_COPIES * (n * p + p * p)
                     + (RESIDUAL_COPIES * rows * p if problem == "procrustes" else 0))
    return Cost(MARGIN * iterations * per_iteration,
                BASE_MEMORY + matrix_memory(problem, n, p, m, constrained) + runs * per_run,
                "This sweep",
                "the grid resolution, max iterations, n or p", iterations,
                "the grid resolution, n or p" + (", or upload a matrix with fewer rows"
                                                  if m > n else ""))


FAMILY_RECORD = 30e-6  # seconds per member per iteration: the player's rows of each iterate
# bytes per member and iterate at the peak of a family's computation, besides its arrays' 8 p
# and 8 n p: its history in lists, the rows kept of each iteration and their split into the
# members (909 measured at St(3, 2) with tracemalloc, 33 members x 3,000 iterations); the
# Metric view's rows (family.views) add 350 (1,257 measured): G_k kept, the 16-number row and
# the temporaries of metric_rows
FAMILY_BYTES = 850
FAMILY_METRIC_BYTES = 350


def family_cost(problem: str, n: int, p: int, iterations: int, runs: int, *,
                step: str = "safe", m: int = 0, constrained: bool = False,
                metric: bool = False) -> Cost:
    """The explorer's family of ``runs`` members: one batch (``sweep_cost``) for the safe and
    constant steps, else ``runs`` lone runs; plus each member's history and the rows the
    player draws of each iterate (``metric``: the Metric view's too)."""
    if step in BATCH_STEP_RULES:
        batch = sweep_cost(problem, n, p, iterations, runs, m, constrained)
        seconds, memory = batch.seconds, batch.memory
    else:
        seconds = runs * run_seconds(problem, n, p, iterations, step=step, m=m,
                                     constrained=constrained)
        memory = BASE_MEMORY + matrix_memory(problem, n, p, m, constrained)
    seconds += MARGIN * runs * iterations * FAMILY_RECORD
    history = runs * iterations * (FAMILY_BYTES + 8 * p + (8 * n * p if n <= 3 else 0)
                                   + (FAMILY_METRIC_BYTES if metric else 0))
    return Cost(seconds, memory + history, "This family of runs",
                "the number of members, max iterations, n or p", iterations)


def stochastic_cost(n: int, p: int, samples: int, batch: int, epochs: int,
                    methods: Sequence[str]) -> Cost:
    """The stochastic page's runs over ``epochs`` epochs: per epoch ceil(m / b) updates of a
    minibatch method (the minibatch's two products, 2 b n p, and the field, 5 n p^2) or one
    full-gradient update (2 m n p) for full-batch landing, and each epoch's evaluation of the
    full sum (2 m n p); SAGA's table (m p floats, filled by one pass at X_0); the samples
    (m n floats) once."""
    updates = math.ceil(samples / batch)
    full = 2.0 * samples * n * p + 5.0 * n * p * p
    seconds = 0.0
    for method in methods:
        if method == "landing":
            per_epoch = ITERATION_OVERHEAD + full * SECONDS_PER_UNIT
        else:
            per_epoch = updates * (ITERATION_OVERHEAD + (2.0 * batch * n * p + 5.0 * n * p * p)
                                   * SECONDS_PER_UNIT)
        seconds += epochs * (per_epoch + full * SECONDS_PER_UNIT)
    table = 8.0 * samples * p if "saga" in methods else 0.0
    history = len(methods) * (epochs + 1) * BYTES_PER_RECORD
    return Cost(MARGIN * seconds, BASE_MEMORY + 8.0 * samples * n + table + history,
                "These runs", "the epochs, the samples or n, or raise the batch")


def upload_cost(problem: str, shape: tuple[int, int]) -> Cost:
    """Building the problem from an uploaded matrix of ``shape``: PCA's covariance (m n^2),
    Procrustes' polar factor and Brockett's eigendecomposition (n^3); the matrix itself and its
    copies."""
    m, n = shape
    units = float(m) * n * n + float(n) ** 3
    return Cost(MARGIN * (ITERATION_OVERHEAD + 10 * units * SECONDS_PER_UNIT),
                BASE_MEMORY + 8.0 * 4 * m * n, "This matrix", "its size")


def matrix_rows(problem: str, shape: tuple[int, ...] | None) -> int:
    """m, the rows of an uploaded matrix that enter every iteration (Procrustes' A, m x n);
    0 when there is none (PCA's data is reduced to its n x n covariance once)."""
    return int(shape[0]) if problem == "procrustes" and shape else 0


def largest_fitting(cost_of: Callable[[int], Cost], values: Iterable[int],
                    budget: Budget) -> int | None:
    """The largest of ``values`` whose ``cost_of(value)`` fits ``budget`` (None if none does):
    a setting to suggest in a refusal (e.g. the sweep's grid resolution)."""
    fits = [v for v in values if cost_of(v).refusal(budget) is None]
    return max(fits) if fits else None
