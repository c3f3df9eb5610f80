"""Sweep: landing over a log grid of (beta or omega) x eta, as heatmaps of the outcome.

The problem, X₀, tangent term, tolerance and iteration limit come from the shared sidebar; the
page chooses the plane, the grid and the step rule ("safe" or "constant": the batch runner's two).
One sweep is one vectorized batch (landing_core.sweep), cached per configuration. A cell (chosen
in the selectboxes or by clicking a heatmap) opens in the explorer with its parameters. The
page's settings and its chosen cell live in the URL's ``sweep``: a link restores them.
The model (specification, batch run, heatmaps) lives in explorer.sweeps.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np
import streamlit as st

from explorer import budget, controls, figures, runner, work
from explorer.state import (
    CACHE_LIMITS,
    PRESENTATION,
    PROBLEM_LABELS,
    STEP_LABELS,
    TANGENT_LABELS,
    AppConfig,
)
from explorer.sweeps import (
    ETA_CHOICES,
    PARAM_CHOICES,
    PLANES,
    SAFE_LIMIT_NOTE,
    SIZES,
    SWEEP_STEPS,
    SYMBOLS,
    Array,
    SweepOutcome,
    SweepSpec,
    cached_sweep,
    capped_at_limit,
    cell_of,
    cell_summary,
    from_query,
    heatmaps,
    make_spec,
    nearest_index,
    to_query,
)
from landing_core.problems import Problem
from landing_core.run import FINISHED, Status

_SPEC = SweepSpec(AppConfig())  # the page's default settings
RANGES = ("sw_param_range", "sw_eta_range")  # range sliders take value=: a tuple makes a range


def _first_settings(config: AppConfig) -> dict[str, object]:
    """The page's settings on a session's first visit: the link's (``sweep``, with a warning
    for each invalid part), else the defaults and the sidebar's step rule; the cell the link
    names, else the sidebar's own (its parameter and η)."""
    linked, warnings = from_query(st.query_params.get("sweep"))
    step = config.step if config.step in SWEEP_STEPS else "safe"
    spec = replace(_SPEC, **{"step": step} | {k: v for k, v in linked.items() if k != "cell"})
    plane = spec.plane
    if "cell" in linked:
        (row, col), notes = cell_of(spec, linked["cell"])
        warnings += notes
    else:
        params, etas = spec.axes()
        row, col = nearest_index(params, getattr(config, plane)), nearest_index(etas, config.eta)
    controls.link_warnings(warnings)
    return {"sw_plane": plane, "sw_step": spec.step, "sw_size": spec.size,
            "sw_param_range": spec.param_range, "sw_eta_range": spec.eta_range,
            "sw_row": row, "sw_col": col}


def _restore_widgets(config: AppConfig) -> None:
    """Widget keys vanish when another page runs: put back the page's last settings (the range
    sliders get theirs as ``value``)."""
    if "sweep_settings" not in st.session_state:
        st.session_state.sweep_settings = _first_settings(config)
    for key, value in st.session_state.sweep_settings.items():
        if key not in st.session_state and key not in RANGES:
            st.session_state[key] = value


def _save_widgets(spec: SweepSpec) -> None:
    """Remember the page's widget values (restored by ``_restore_widgets``) and write them in
    the URL's ``sweep`` (a link restores them: ``_first_settings``)."""
    saved = st.session_state.sweep_settings
    st.session_state.sweep_settings = now = {k: st.session_state.get(k, v)
                                             for k, v in saved.items()}
    params, etas = spec.axes()
    cell = (min(int(now["sw_row"]), len(params) - 1), min(int(now["sw_col"]), len(etas) - 1))
    value = to_query(spec, cell)
    if st.query_params.get("sweep") != value:
        st.query_params["sweep"] = value


def _settings(config: AppConfig) -> tuple[SweepSpec, list[str]]:
    """The page's controls: plane, step rule, grid size and ranges; and what to tell about
    the sidebar's settings the sweep cannot use (shown outside a lecture's folded box)."""
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
                                   format_func=controls.fmt)
    eta_range = c2.select_slider("η range", ETA_CHOICES, value=saved["sw_eta_range"],
                                 key="sw_eta_range", format_func=controls.fmt)
    notes = []
    if config.step not in SWEEP_STEPS:
        notes.append(f"The sidebar's step rule is {STEP_LABELS[config.step]}; sweeps run with "
                     "the safe or constant step only (the batch runner supports those two). "
                     "The cell you open in the explorer uses the step rule chosen here.")
    if plane == "beta" and (config.tangent != "beta" or config.p == 1):
        why = "p = 1" if config.tangent == "beta" else f"the {TANGENT_LABELS[config.tangent]}"
        notes.append(f"β has no effect with {why}: every row of the β × η plane is the same "
                     "run. Try the ω × η plane.")
    return make_spec(config, plane=plane, step=step, param_range=tuple(param_range),
                     eta_range=tuple(eta_range), size=int(size)), notes


def _compute(spec: SweepSpec) -> tuple[SweepOutcome | None, Problem]:
    """The cached sweep with the session's matrix (as the explorer uses it), and its problem;
    None, with a clear message, when the batch fails."""
    problem, matrix = controls.session_problem(spec.base)
    rows = budget.matrix_rows(spec.base.problem, getattr(matrix, "shape", None))

    def cost_of(size: int) -> budget.Cost:
        return budget.sweep_cost(spec.base.problem, problem.n, problem.p, spec.base.max_iter,
                                 size**2, rows, constrained=problem.B is not None)

    def hint(limit: budget.Budget) -> str:
        size = budget.largest_fitting(cost_of, range(SIZES[0], spec.size), limit)
        return "" if size is None else f"A grid of {size} × {size} fits."

    cost = cost_of(spec.size)
    work.admit(cost, hint=hint)
    try:
        return work.served(cached_sweep, spec, matrix, problem.B, cost), problem
    except np.linalg.LinAlgError as err:  # the batch runner marks singular runs as diverged;
        st.error(f"The sweep stopped: a linear-algebra failure in the batch ({err}). Narrow "
                 "the η range or use the safe step.", icon=":material/error:")  # kept as a net
        return None, problem


@st.cache_data(**CACHE_LIMITS, show_spinner=False)
def _limit_hint(config: AppConfig, matrix_id: str | None, B_id: str | None,
                _problem: Problem) -> str:
    """Why a cell's run reached the iteration limit, in the explorer's words
    (``runner.limit_hint``), from the cell's run alone: the batch keeps final values only, and
    the words need the steps taken. Cached by the cell's configuration and the session's
    uploads (``_problem`` is built from them), the presentation's fields left out. One run is
    1/size² of the admitted sweep, without the views' rows."""
    trace, records = runner.start(config, _problem, views=False)
    return runner.limit_hint(runner.run_to_end(trace, records, config), config).strip()


def _on_click(chart_key: str, params: Array, etas: Array) -> None:
    """A heatmap click (points selection): choose the clicked cell."""
    points = st.session_state[chart_key].selection.points
    if points:
        st.session_state.sw_row = nearest_index(params, points[0]["y"])
        st.session_state.sw_col = nearest_index(etas, points[0]["x"])


def _summary(spec: SweepSpec, outcome: SweepOutcome, problem: Problem) -> None:
    status = outcome.result.status
    counts = {s: int(np.sum(status == s)) for s in FINISHED}
    if counts[Status.STOPPED]:
        st.warning(f"The sweep was stopped at its time limit: {counts[Status.STOPPED]} runs ended "
                   "early (their cells show where they were). Lower the grid resolution or "
                   "max iterations.", icon=":material/timer_off:")
    st.caption(
        f"{status.size} runs ({spec.size} × {spec.size}) computed as one batch in "
        f"{outcome.seconds:.2f} s: {counts[Status.CONVERGED]} converged, {counts[Status.MAX_ITER]} "
        f"reached {spec.base.max_iter} iterations, {counts[Status.DIVERGED]} diverged (grey cells "
        "with ×). Hover a cell for its numbers; click one (or pick it below) to open it in the "
        "explorer."
        + (SAFE_LIMIT_NOTE if capped_at_limit(spec, outcome, problem.B is not None) else ""))


def _chooser(config: AppConfig, spec: SweepSpec, outcome: SweepOutcome, problem: Problem
             ) -> None:
    """Pick a cell, see its numbers (for a safe step's run at the iteration limit, why it got
    there), open it in the explorer."""
    params, etas = spec.axes()
    symbol = SYMBOLS[spec.plane]
    st.subheader("Chosen cell")
    c1, c2 = st.columns(2)
    row = c1.selectbox(symbol, range(len(params)), key="sw_row",
                       format_func=lambda i: controls.fmt(params[i]))
    col = c2.selectbox("η", range(len(etas)), key="sw_col",
                       format_func=lambda j: controls.fmt(etas[j]))
    summary, note = cell_summary(outcome, spec.infeasibility, row, col)
    st.markdown(summary)
    if note:
        st.caption(note)
    new = spec.cell_config(config, row, col)
    # (a constant step's stall has no such words: its run is not computed)
    if spec.step == "safe" and outcome.grid(outcome.result.status)[row, col] == Status.MAX_ITER:
        run = replace(new, **{name: getattr(AppConfig(), name) for name in PRESENTATION},
                      scrub="off")  # what the run does not read: not in the cache's key
        hint = _limit_hint(run, st.session_state.get("matrix_id"), st.session_state.get("B_id"),
                           problem)
        if hint:
            st.caption(hint)
    st.caption(f"Opens β = {new.beta:g}, ω = {new.omega:g}, η = {new.eta:g} with the "
               f"{STEP_LABELS[new.step]} in the explorer.")
    if st.button("Open in explorer", icon=":material/open_in_new:", type="primary"):
        _save_widgets(spec)
        controls.set_config(new)
        st.switch_page("pages/explorer.py")


def _plane() -> str:
    """The plane this run draws, before the page's widgets are: the page's radio, else its
    saved settings, else the link's or the default plane."""
    if "sw_plane" in st.session_state:
        return st.session_state.sw_plane
    saved = st.session_state.get("sweep_settings")
    if saved:
        return saved["sw_plane"]
    return from_query(st.query_params.get("sweep"))[0].get("plane", _SPEC.plane)


def main() -> None:
    # the page sets its own step rule, and sweeps eta and the plane's parameter; the sidebar's
    # are read once only, for a first visit's chosen cell (_first_settings)
    config = controls.sidebar(owns=("sweep",), unused=frozenset({
        "step", "eta", _plane(), "speed", "scrub"}))
    st.title("Parameter sweep")
    # a lecture folds the description and the settings, so that the heatmaps start on a
    # projector's first screen (under them, at 1280 x 720, they begin 460 px down)
    box = st.expander("Settings") if config.lecture else st.container()
    box.markdown(
        f"**{PROBLEM_LABELS[config.problem]}** on St({config.n}, {config.p}), seed "
        f"{config.seed}, X₀ at distance {config.distance:g} · tangent term: "
        f"{TANGENT_LABELS[config.tangent]} · tolerance {config.tol:.0e}, at most "
        f"{config.max_iter} iterations (all from the sidebar). Every cell is one landing run "
        "from the same X₀.")
    _restore_widgets(config)
    with box:
        spec, notes = _settings(config)
    for note in notes:  # outside the box: a lecture sees why the rows are alike
        st.info(note)
    outcome, problem = _compute(spec)
    if outcome is None:
        _save_widgets(spec)
        st.stop()
    params, etas = spec.axes()
    for key, top in (("sw_row", len(params)), ("sw_col", len(etas))):
        st.session_state[key] = min(int(st.session_state[key]), top - 1)
    _summary(spec, outcome, problem)
    figs = heatmaps(spec, outcome, (st.session_state.sw_row, st.session_state.sw_col))
    left, right = st.columns(2)
    slots = {"iterations": left, "gap": right, "infeasibility": left}
    for name, fig in figs.items():
        key = f"sw_chart_{name}"
        slots[name].plotly_chart(figures.text_size(fig, config.lecture), width="stretch",
                                 theme=None, key=key,
                                 on_select=partial(_on_click, key, params, etas),
                                 selection_mode="points")
    with right:
        _chooser(config, spec, outcome, problem)
    _save_widgets(spec)


main()
