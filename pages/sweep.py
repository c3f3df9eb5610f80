"""Sweep: landing over a log grid of (beta or omega) x eta, as heatmaps of the outcome.

The problem, X₀, tangent term, tolerance and iteration limit come from the shared sidebar; the
page chooses the plane, the grid and the step rule ("safe" or "constant": the batch runner's two).
One sweep is one vectorized batch (landing_core.sweep), cached per configuration. A cell (chosen
in the selectboxes or by clicking a heatmap) opens in the explorer with its parameters.

Streamlit runs this file as ``__main__``; importing it (the tests) only defines the helpers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from landing_core import figures
from landing_core import sweep as batch
from landing_core.ui import controls, runner
from landing_core.ui.state import PROBLEM_LABELS, STEP_LABELS, TANGENT_LABELS, AppConfig

Array = np.ndarray

PLANES = {"beta": "β × η", "omega": "ω × η"}
SYMBOLS = {"beta": "β", "omega": "ω"}
SWEEP_STEPS = ("safe", "constant")
RUN_FIELDS = ("problem", "n", "p", "seed", "distance", "tangent", "tol", "max_iter")
# range choices (1-2-5 per decade) within the sidebar's bounds, so every cell can be opened
PARAM_CHOICES = [round(m * 10.0**e, 6) for e in range(-2, 3) for m in (1, 2, 5)][:-2]
ETA_CHOICES = [round(m * 10.0**e, 6) for e in range(-4, 2) for m in (1, 2, 5)][:-2]
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
        """f - f* per run (f itself when f* is unknown)."""
        cost = self.result.final_cost
        return cost if self.f_star is None else cost - self.f_star


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
) -> SweepOutcome:
    """Run the sweep of ``spec`` as one batch (uncached); raises np.linalg.LinAlgError when a run
    of the batch becomes rank-deficient (a known landing_core.sweep bug)."""
    start = time.perf_counter()
    problem = runner.build_problem(spec.base, matrix)
    params, etas = spec.axes()
    fixed = "omega" if spec.plane == "beta" else "beta"
    result = batch.sweep(
        problem, **{spec.plane: params, fixed: (getattr(spec.base, fixed),)}, eta=etas,
        seed=(spec.base.seed,), distance=spec.base.distance, tangent=spec.base.tangent,
        step=spec.step, tol=spec.base.tol, max_iter=spec.base.max_iter, progress=progress,
    )
    return SweepOutcome(result, runner.optimum(spec.base, problem), time.perf_counter() - start)


@st.cache_data(max_entries=32, show_spinner=False)
def cached_sweep(
    spec: SweepSpec, matrix: Array | None = None
) -> tuple[batch.SweepResult, float | None, float]:
    """``run_sweep`` cached per (spec, matrix), as a picklable (result, f*, seconds) tuple (this
    page's own classes live in ``__main__`` and do not pickle). A cache miss shows a progress
    bar while it runs; a hit replays it in no time (cached functions record their elements)."""
    bar = st.progress(0.0, text=f"Running {spec.size * spec.size} landing runs…")
    shown = [-1]

    def progress(k: int, total: int) -> None:
        tick = int(20 * k / max(total, 1))  # at most ~20 redraws
        if tick > shown[0]:
            shown[0] = tick
            bar.progress(min(k / max(total, 1), 1.0),
                         text=f"Running {spec.size * spec.size} landing runs… iteration {k} of "
                              f"{total}")

    try:
        outcome = run_sweep(spec, matrix, progress)
        return outcome.result, outcome.f_star, outcome.seconds
    finally:
        bar.empty()


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
            etas, params, g(res.final_infeasibility), title="Final ‖XᵀX − I‖_F",
            colour_title="‖h‖", log_colour=True, colorscale="Cividis", **common),
    }


# ----------------------------------------------------------------------------- the page

_SPEC = SweepSpec(AppConfig())
DEFAULTS = {"sw_plane": _SPEC.plane, "sw_step": _SPEC.step, "sw_size": _SPEC.size,
            "sw_param_range": _SPEC.param_range, "sw_eta_range": _SPEC.eta_range,
            "sw_row": _SPEC.size // 2, "sw_col": _SPEC.size // 2}
RANGES = ("sw_param_range", "sw_eta_range")  # range sliders take value=: a tuple makes a range


def _restore_widgets(config: AppConfig) -> None:
    """Widget keys vanish when another page runs: put back the page's last settings (the range
    sliders get theirs as ``value``)."""
    if "sweep_settings" not in st.session_state:
        step = config.step if config.step in SWEEP_STEPS else "safe"
        st.session_state.sweep_settings = dict(DEFAULTS, sw_step=step)
    for key, value in st.session_state.sweep_settings.items():
        if key not in st.session_state and key not in RANGES:
            st.session_state[key] = value


def _save_widgets() -> None:
    """Remember the page's widget values (restored by ``_restore_widgets``)."""
    saved = st.session_state.sweep_settings
    st.session_state.sweep_settings = {k: st.session_state.get(k, v) for k, v in saved.items()}


def _settings(config: AppConfig) -> SweepSpec:
    """The page's controls: plane, step rule, grid size and ranges."""
    c1, c2, c3 = st.columns([1, 1, 2])
    plane = c1.radio("Plane", list(PLANES), format_func=PLANES.get, key="sw_plane",
                     horizontal=True)
    step = c2.radio("Step rule", SWEEP_STEPS, format_func=STEP_LABELS.get, key="sw_step",
                    horizontal=True)
    size = c3.slider("Grid resolution (points per axis)", *SIZES, key="sw_size")
    saved = st.session_state.sweep_settings
    c1, c2 = st.columns(2)
    param_range = c1.select_slider(f"{SYMBOLS[plane]} range", PARAM_CHOICES,
                                   value=saved["sw_param_range"], key="sw_param_range",
                                   format_func=_fmt)
    eta_range = c2.select_slider("η range", ETA_CHOICES, value=saved["sw_eta_range"],
                                 key="sw_eta_range", format_func=_fmt)
    if config.step not in SWEEP_STEPS:
        st.info(f"The sidebar's step rule is {STEP_LABELS[config.step]}; sweeps run with the "
                "safe or constant step only (the batch runner supports those two). The cell "
                "you open in the explorer uses the step rule chosen here.")
    if plane == "beta" and (config.tangent != "beta" or config.p == 1):
        why = "p = 1" if config.tangent == "beta" else f"the {TANGENT_LABELS[config.tangent]}"
        st.info(f"β has no effect with {why}: every row of the β × η plane is the same run. "
                "Try the ω × η plane.")
    return make_spec(config, plane=plane, step=step, param_range=tuple(param_range),
                     eta_range=tuple(eta_range), size=int(size))


def _fmt(v: float) -> str:
    return f"{v:g}"


def _compute(spec: SweepSpec) -> SweepOutcome | None:
    """The cached sweep with the session's matrix (as the explorer uses it); None, with a clear
    message, when the batch fails."""
    matrix = st.session_state.get("matrix")
    try:
        runner.build_problem(spec.base, matrix)
    except ValueError as err:
        st.warning(f"Your matrix does not fit this problem ({err}); using the built-in one.")
        matrix = None
    try:
        return SweepOutcome(*cached_sweep(spec, matrix))
    except np.linalg.LinAlgError as err:
        st.error(f"The sweep stopped: an iterate of one of its runs became rank-deficient "
                 f"(numpy: {err}), which stops the whole batch. This is a known bug of the batch "
                 "runner, being fixed; meanwhile narrow the η range (large constant steps "
                 "trigger it) or use the safe step.", icon="🚫")
        return None


def _on_click(chart_key: str, params: Array, etas: Array) -> None:
    """A heatmap click (points selection): choose the clicked cell."""
    points = st.session_state[chart_key].selection.points
    if points:
        st.session_state.sw_row = nearest_index(params, points[0]["y"])
        st.session_state.sw_col = nearest_index(etas, points[0]["x"])


def _summary(spec: SweepSpec, outcome: SweepOutcome) -> None:
    status = outcome.result.status
    counts = {s: int(np.sum(status == s)) for s in ("converged", "max_iter", "diverged")}
    st.caption(
        f"{status.size} runs ({spec.size} × {spec.size}) computed as one batch in "
        f"{outcome.seconds:.2f} s: {counts['converged']} converged, {counts['max_iter']} "
        f"reached {spec.base.max_iter} iterations, {counts['diverged']} diverged (grey cells "
        "with ×). Hover a cell for its numbers; click one (or pick it below) to open it in the "
        "explorer.")


def _chooser(config: AppConfig, spec: SweepSpec, outcome: SweepOutcome) -> None:
    """Pick a cell, see its numbers, open it in the explorer."""
    params, etas = spec.axes()
    symbol = SYMBOLS[spec.plane]
    st.subheader("Chosen cell")
    c1, c2 = st.columns(2)
    row = c1.selectbox(symbol, range(len(params)), key="sw_row",
                       format_func=lambda i: _fmt(params[i]))
    col = c2.selectbox("η", range(len(etas)), key="sw_col", format_func=lambda j: _fmt(etas[j]))
    res, g = outcome.result, outcome.grid
    gap_label = "f − f*" if outcome.f_star is not None else "f"
    st.markdown(
        f"**{g(res.status)[row, col]}** after **{g(res.iterations)[row, col]}** iterations  \n"
        f"{gap_label} = {g(outcome.gap)[row, col]:.3e} · ‖XᵀX − I‖_F = "
        f"{g(res.final_infeasibility)[row, col]:.3e} · ‖grad‖ = "
        f"{g(res.final_grad_norm)[row, col]:.3e}")
    new = spec.cell_config(config, row, col)
    st.caption(f"Opens β = {new.beta:g}, ω = {new.omega:g}, η = {new.eta:g} with the "
               f"{STEP_LABELS[new.step]} in the explorer.")
    if st.button("Open in explorer", icon=":material/open_in_new:", type="primary"):
        _save_widgets()
        controls.set_config(new)
        st.switch_page("pages/explorer.py")


def main() -> None:
    config = controls.sidebar()
    st.title("Parameter sweep")
    st.markdown(
        f"**{PROBLEM_LABELS[config.problem]}** on St({config.n}, {config.p}), seed "
        f"{config.seed}, X₀ at distance {config.distance:g} · tangent term: "
        f"{TANGENT_LABELS[config.tangent]} · tolerance {config.tol:.0e}, at most "
        f"{config.max_iter} iterations (all from the sidebar). Every cell is one landing run "
        "from the same X₀.")
    _restore_widgets(config)
    spec = _settings(config)
    outcome = _compute(spec)
    if outcome is None:
        _save_widgets()
        st.stop()
    params, etas = spec.axes()
    for key, top in (("sw_row", len(params)), ("sw_col", len(etas))):
        st.session_state[key] = min(int(st.session_state[key]), top - 1)
    _summary(spec, outcome)
    figs = heatmaps(spec, outcome, (st.session_state.sw_row, st.session_state.sw_col))
    left, right = st.columns(2)
    slots = {"iterations": left, "gap": right, "infeasibility": left}
    for name, fig in figs.items():
        key = f"sw_chart_{name}"
        slots[name].plotly_chart(fig, width="stretch", theme=None, key=key,
                                 on_select=partial(_on_click, key, params, etas),
                                 selection_mode="points")
    with right:
        _chooser(config, spec, outcome)
    _save_widgets()


if __name__ == "__main__":
    main()
