"""The sweep page's model: a sweep's specification (its cache key), the batch run, the heatmaps.

A sweep runs landing over a log grid of (beta or omega) x eta as one vectorized batch
(``landing_core.sweep``); the problem, X0, tangent term, tolerance and iteration limit come from
the shared sidebar configuration.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from landing_core import sweep as batch
from landing_core.run import Status, StopCheck

from . import budget, figures, runner, work
from .constraint import infeasibility_name
from .state import CACHE_LIMITS, STATUS_LABELS, AppConfig, bounded, limits, number
from .text import quote

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


ROUNDING_UNITS = figures.ROUNDING_UNITS


def cell_summary(outcome: SweepOutcome, infeasibility: str, row: int, col: int
                 ) -> tuple[str, str]:
    """The chosen cell's numbers as markdown (its status and iterations, then the final
    f − f*, the infeasibility named ``infeasibility`` and ‖grad‖), and a note for a signed
    f − f* below 0, which the heatmap of |f − f*| does not show, with its likelier cause ("" for
    f − f* ≥ 0)."""
    res, g = outcome.result, outcome.grid
    gap = float(g(outcome.gap)[row, col])
    known = outcome.f_star is not None
    status, k = g(res.status)[row, col], g(res.iterations)[row, col]
    # the limit is a count of iterations itself: "iteration limit after 500 iterations"
    ended = (f"**stopped at the iteration limit** of **{k}**" if status == Status.MAX_ITER
             else f"**{STATUS_LABELS[status]}** after **{k}** iterations")
    summary = (f"{ended}  \n"
               f"{'f − f*' if known else 'f'} = {gap:.3e} · {infeasibility} = "
               f"{g(res.final_infeasibility)[row, col]:.3e} · ‖grad‖ = "
               f"{g(res.final_grad_norm)[row, col]:.3e}")
    note = ""
    if known and gap < 0:
        # f's own rounding is a few units of eps |f| (a sum of n p terms of f's size); beyond
        # 100 of them the iterate's distance from the manifold is what lets f below f*
        if -gap <= ROUNDING_UNITS * np.finfo(float).eps * max(1.0, abs(outcome.f_star)):
            note = (f"f ends below f* by less than f's rounding ({ROUNDING_UNITS} ε |f*|). "
                    "The heatmap colours |f − f*|.")
        else:
            note = (f"f ends below f*: the iterate is off the manifold ({infeasibility} = "
                    f"{g(res.final_infeasibility)[row, col]:.1e}), where f can go below its "
                    "minimum on it. The heatmap colours |f − f*|.")
    return summary, note


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
            colour_title=spec.infeasibility, log_colour=True, colorscale="Cividis", **common),
    }


# the page's settings in the URL's ``sweep`` value, in this order; "cell" is the chosen cell's
# (parameter, eta), which a link gives as values, not as indices into the axes
URL_SETTINGS = ("plane", "step", "size", "range", "eta", "cell")
SAFE_LIMIT_NOTE = (
    " The safe step keeps ‖h‖ in its safe region; it does not make f decrease: a step too long "
    "for the cost's curvature circles instead of converging. Its steps are at most 1/(2ω): "
    "every η beyond that runs the same steps.")
"""Why a safe-step sweep has runs at the iteration limit at η >= 1/(2ω) (``capped_at_limit``):
the summary's last sentence."""


def capped_at_limit(spec: SweepSpec, outcome: SweepOutcome, constrained: bool) -> bool:
    """Whether a run of this safe-step sweep on XᵀX = I reached the iteration limit at
    η >= 1/(2ω), where the safe step takes 1/(2ω) (or less) whatever η. (On XᵀBX = I
    (``constrained``) its cap is 1/(2ω λmax(C)), C = (BX)ᵀBX, which varies along a run.)"""
    if spec.step != "safe" or constrained:
        return False
    params, etas = spec.axes()
    omega = params if spec.plane == "omega" else np.full(len(params), spec.base.omega)
    capped = etas[None, :] >= 0.5 / omega[:, None]
    return bool(np.any(capped & (outcome.grid(outcome.result.status) == Status.MAX_ITER)))


URL_WARNINGS_SHOWN = 6  # invalid parts of a ``sweep`` URL value named one by one


def to_query(spec: SweepSpec, cell: tuple[int, int]) -> str:
    """The page's settings as one URL value, e.g. ``plane=omega,step=safe,size=20,
    range=0.1:10,eta=0.01:1,cell=0.5:0.1`` (``from_query`` reads it back exactly)."""
    params, etas = spec.axes()
    return ",".join([f"plane={spec.plane}", f"step={spec.step}", f"size={spec.size}",
                     f"range={_pair_text(*spec.param_range)}",
                     f"eta={_pair_text(*spec.eta_range)}",
                     f"cell={_pair_text(params[cell[0]], etas[cell[1]])}"])


def _pair_text(a: float, b: float) -> str:
    return f"{a:g}:{b:g}"  # :g keeps the stops' and the axes' 3 digits exactly


def cell_of(spec: SweepSpec, cell: tuple[float, float]) -> tuple[tuple[int, int], list[str]]:
    """The (row, col) of the grid's cell nearest to (parameter, eta) = ``cell`` (log scale);
    a note when that cell's values are not the ones asked."""
    params, etas = spec.axes()
    row, col = nearest_index(params, cell[0]), nearest_index(etas, cell[1])
    notes = []
    if (params[row], etas[col]) != cell:
        notes.append(f"URL parameter sweep: the cell {SYMBOLS[spec.plane]} = {cell[0]:g}, "
                     f"η = {cell[1]:g} is not on the grid: using the nearest, "
                     f"{SYMBOLS[spec.plane]} = {params[row]:g}, η = {etas[col]:g}.")
    return (row, col), notes


def from_query(raw: str | None) -> tuple[dict[str, object], list[str]]:
    """The settings a ``sweep`` URL value gives: plane, step, size, param_range, eta_range
    and cell ((parameter, eta) values), checked as the sidebar's URL is (the parameter's and
    eta's bounds, ``state.number``); an invalid part gives a warning and is left out (the page
    uses its default); ranges snap to the sliders' stops and run from low to high, saying so."""
    settings: dict[str, object] = {}
    warnings: list[str] = []
    if not raw:
        return settings, warnings
    parts: dict[str, str] = {}
    for part in str(raw).split(","):
        key, _, value = part.partition("=")
        if key in URL_SETTINGS:
            parts[key] = value
        elif part:
            warnings.append(f"URL parameter sweep: unknown setting {quote(key)} ignored.")
    defaults = SweepSpec(AppConfig())
    checks = {"plane": lambda v: _category("plane", v, PLANES),
              "step": lambda v: _category("step", v, SWEEP_STEPS),
              "size": lambda v: bounded("size", v, int, *SIZES)}
    for key, check in checks.items():
        if key in parts:
            try:
                settings[key] = check(parts[key])
            except ValueError as err:
                warnings.append(f"URL parameter sweep: {err}; using the default "
                                f"{getattr(defaults, key)!r}.")
    plane = str(settings.get("plane", defaults.plane))
    for key, name, stops, field in (("range", plane, PARAM_CHOICES, "param_range"),
                                    ("eta", "eta", ETA_CHOICES, "eta_range")):
        if key in parts:
            try:
                settings[field], notes = _range(key, name, parts[key], stops)
                warnings += [f"URL parameter sweep: {note}" for note in notes]
            except ValueError as err:
                low, high = getattr(defaults, field)
                warnings.append(f"URL parameter sweep: {err}; using the default "
                                f"{low:g}:{high:g}.")
    if "cell" in parts:
        try:
            settings["cell"] = _pair("cell", parts["cell"], (plane, "eta"))
        except ValueError as err:
            warnings.append(f"URL parameter sweep: {err}; using the sidebar's {SYMBOLS[plane]} "
                            "and η.")
    if len(warnings) > URL_WARNINGS_SHOWN:  # a long hostile link: name a few, count the rest
        rest = len(warnings) - URL_WARNINGS_SHOWN
        warnings = [*warnings[:URL_WARNINGS_SHOWN], f"URL parameter sweep: {rest} more "
                    f"invalid setting{'s' if rest > 1 else ''} ignored."]
    return settings, warnings


def _category(name: str, value: str, choices: Collection[str]) -> str:
    if value not in choices:
        raise ValueError(f"{name}={quote(value)} is not one of {', '.join(choices)}")
    return value


def _pair(key: str, value: str, names: tuple[str, str]) -> tuple[float, float]:
    """Two numbers ``a:b``, each within the bounds of its name (``state.number``)."""
    ends = value.split(":")
    if len(ends) != 2:
        raise ValueError(f"{key}={quote(value)} is not two numbers a:b")
    try:
        return float(number(names[0], ends[0])), float(number(names[1], ends[1]))
    except ValueError as err:
        raise ValueError(f"{key}: {err}") from None


def _range(key: str, name: str, value: str, stops: list[float]
           ) -> tuple[tuple[float, float], list[str]]:
    """A range ``low:high`` of ``name`` on the slider's ``stops``, low below high; the notes
    say what was changed."""
    asked = _pair(key, value, (name, name))
    ends = tuple(stops[nearest_index(stops, v)] for v in asked)
    notes = [f"{key}: {v:g} is not a stop of the slider (1, 2, 5 a decade): using {e:g}."
             for v, e in zip(asked, ends, strict=True) if v != e]
    low, high = sorted(ends)
    if low == high:
        raise ValueError(f"{key}={quote(value)} is empty (its ends are equal)")
    if (low, high) != ends:
        notes.append(f"{key} runs from low to high: {low:g}:{high:g}.")
    return (low, high), notes
