"""The sweep page's model: a sweep's specification (its cache key), the batch run, the heatmaps.

A sweep runs landing over a log grid of (beta or omega) x eta as one vectorized batch
(``landing_core.sweep``); the problem, X0, tangent term, tolerance and iteration limit come from
the shared sidebar configuration.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from landing_core import sweep as batch
from landing_core.run import Status, StopCheck

from . import budget, figures, runner, work
from .constraint import infeasibility_name
from .state import CACHE_LIMITS, AppConfig, limits

Array = np.ndarray

PLANES = {"beta": "β × η", "omega": "ω × η"}
SYMBOLS = {"beta": "β", "omega": "ω"}
SWEEP_STEPS = batch.BATCH_STEP_RULES
RUN_FIELDS = ("problem", "constraint", "n", "p", "seed", "distance", "tangent", "tol",
              "max_iter")


def _choices(*names: str) -> list[float]:
    """Range choices 1-2-5 per decade within the sidebar's bounds of every one of ``names``,
    so that every cell of a sweep can be opened in the explorer."""
    low = max(limits(name)[0] for name in names)
    high = min(limits(name)[1] for name in names)
    stops = (round(m * 10.0**e, 6) for e in range(-12, 12) for m in (1, 2, 5))
    return [v for v in stops if low <= v <= high]


PARAM_CHOICES = _choices(*PLANES)  # beta or omega
ETA_CHOICES = _choices("eta")
SIZES = (5, 40)


@dataclass(frozen=True)
class SweepSpec:
    """Everything a sweep's result depends on (its cache key).

    ``base`` is the sidebar configuration with the fields the sweep does not read (the swept
    parameter, eta, step, speed) reset to their defaults, so changing those does not recompute.
    """

    base: AppConfig
    plane: str = "beta"
    step: str = "safe"
    param_range: tuple[float, float] = (0.01, 100.0)
    eta_range: tuple[float, float] = (0.01, 10.0)
    size: int = 30

    @property
    def infeasibility(self) -> str:
        """‖XᵀX − I‖, or ‖XᵀBX − I‖ when the sidebar's constraint is XᵀBX = I."""
        return infeasibility_name([self.base.constraint != "identity"])

    def axes(self) -> tuple[Array, Array]:
        """(param values, eta values): ``size`` log-spaced points each, 3 significant digits."""
        return _log_axis(*self.param_range, self.size), _log_axis(*self.eta_range, self.size)

    def cell_config(self, config: AppConfig, row: int, col: int) -> AppConfig:
        """``config`` with cell (row, col)'s parameter and eta and the sweep's step rule."""
        params, etas = self.axes()
        return replace(config, **{self.plane: float(params[row])}, eta=float(etas[col]),
                       step=self.step)


@dataclass
class SweepOutcome:
    """A sweep's result, f* reachable from X₀ (None when unknown) and its computing time."""

    result: batch.SweepResult
    f_star: float | None
    seconds: float

    def grid(self, values: Array) -> Array:
        """Per-run values as a (param, eta) matrix (the grid is param x 1 x eta x 1, or
        1 x param x eta x 1)."""
        return np.asarray(values).reshape(-1, self.result.shape[2])

    @property
    def gap(self) -> Array:
        """f - f* per run (f itself when f* is unknown), each run's f* from its final
        iterate's component of O(n) when p = n (``SweepResult.final_gap``)."""
        gap = self.result.final_gap
        if self.f_star is None or gap is None:
            return self.result.final_cost
        return gap


def _log_axis(low: float, high: float, count: int) -> Array:
    """``count`` log-spaced values from low to high, rounded to 3 significant digits."""
    return np.array([float(f"{v:.3g}") for v in np.geomspace(low, high, count)])


def make_spec(config: AppConfig, **settings: object) -> SweepSpec:
    """The sweep of the sidebar's ``config`` with the page's settings (plane, step, ranges,
    size); the parameter not swept (omega or beta) keeps the sidebar's value."""
    plane = str(settings.get("plane", "beta"))
    fixed = "omega" if plane == "beta" else "beta"
    base = replace(AppConfig(), **{f: getattr(config, f) for f in (*RUN_FIELDS, fixed)})
    return SweepSpec(base=base, **settings)


def run_sweep(
    spec: SweepSpec,
    matrix: Array | None = None,
    progress: Callable[[int, int], None] | None = None,
    B: Array | None = None,
    should_stop: StopCheck | None = None,
) -> SweepOutcome:
    """Run the sweep of ``spec`` as one batch (uncached); ``B``: the constraint's matrix (None
    for XᵀX = I); ``should_stop`` as in ``landing_core.sweep.run_batch``."""
    start = time.perf_counter()
    problem = runner.build_problem(spec.base, matrix, B)
    params, etas = spec.axes()
    fixed = "omega" if spec.plane == "beta" else "beta"
    result = batch.sweep(
        problem, **{spec.plane: params, fixed: (getattr(spec.base, fixed),)}, eta=etas,
        seed=(spec.base.seed,), distance=spec.base.distance, tangent=spec.base.tangent,
        step=spec.step, tol=spec.base.tol, max_iter=spec.base.max_iter, progress=progress,
        should_stop=should_stop,
    )
    return SweepOutcome(result, runner.optimum(spec.base, problem), time.perf_counter() - start)


@st.cache_data(**CACHE_LIMITS, show_spinner=False)
def cached_sweep(spec: SweepSpec, matrix: Array | None = None,
                 B: Array | None = None, _cost: budget.Cost | None = None) -> SweepOutcome:
    """``run_sweep`` cached per (spec, matrix, B) when complete (``work.complete_only``: a
    sweep stopped by the time limit is not kept; call it through ``work.served``). A cache
    miss holds a slot of the gate for heavy work (``_cost``, not part of the cache key) and
    shows a progress bar while it runs, which also ends the batch at the time limit or when
    the page goes away (``work.Watch``); a hit replays it in no time (cached functions record
    their elements)."""
    with work.heavy(_cost or budget.Cost(0.0, 0.0, "", "")):
        watch = work.Watch(f"Running {spec.size * spec.size} landing runs…")

        def progress(k: int, total: int) -> None:
            watch.at(k / max(total, 1), f"Running {spec.size * spec.size} landing runs… "
                                         f"iteration {k} of {total}")

        try:
            outcome = run_sweep(spec, matrix, progress, B, should_stop=watch)
            stopped = bool(np.any(outcome.result.status == Status.STOPPED))
            return work.complete_only(outcome, stopped)
        finally:
            watch.close()


def nearest_index(values: Array, x: float) -> int:
    """The index of the value nearest to x on a log scale (a click on a heatmap cell)."""
    return int(np.argmin(np.abs(np.log10(np.asarray(values, dtype=float)) - np.log10(x))))


def cell_hover(outcome: SweepOutcome) -> Array:
    """Hover text of every cell, shape (param, eta)."""
    res = outcome.result
    g = outcome.grid
    return figures.sweep_hover_text(
        g(res.params["beta"]), g(res.params["omega"]), g(res.params["eta"]), g(res.iterations),
        g(res.status), g(outcome.gap), g(res.final_infeasibility),
        gap_label="f − f*" if outcome.f_star is not None else "f")


def heatmaps(
    spec: SweepSpec, outcome: SweepOutcome, selected: tuple[int, int] | None = None
) -> dict[str, go.Figure]:
    """The three heatmaps (iterations, |f - f*| or f, ||h||) of a sweep, by name."""
    params, etas = spec.axes()
    res, g = outcome.result, outcome.grid
    common = dict(status=g(res.status), hover=cell_hover(outcome),
                  param_label=f"{SYMBOLS[spec.plane]} (log scale)", selected=selected)
    known = outcome.f_star is not None
    return {
        "iterations": figures.sweep_heatmap(
            etas, params, g(res.iterations), title=f"Iterations to tol {spec.base.tol:.0e}",
            colour_title=f"iterations<br>(limit {spec.base.max_iter})", **common),
        "gap": figures.sweep_heatmap(
            etas, params, g(outcome.gap), title="Final |f − f*|" if known else "Final f",
            colour_title="|f − f*|" if known else "f", log_colour=known, colorscale="Cividis",
            **common),
        "infeasibility": figures.sweep_heatmap(
            etas, params, g(res.final_infeasibility),
            title=f"Final {spec.infeasibility}<sub>F</sub>",
            colour_title="‖h‖", log_colour=True, colorscale="Cividis", **common),
    }
