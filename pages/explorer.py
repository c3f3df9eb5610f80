"""The explorer: one landing run, computed at once, animated on demand, replayable."""

import streamlit as st

from explorer import controls, runner, views
from explorer.state import PROBLEM_LABELS, STEP_LABELS, TANGENT_LABELS

config = controls.sidebar(owns=("view",))
problem, matrix = controls.session_problem(config)

key = (config.run_key(), None if matrix is None else st.session_state.matrix_id)
if st.session_state.get("trace_key") != key:
    st.session_state.trace = runner.compute(config, matrix)
    st.session_state.records = None
    st.session_state.trace_key = key
    st.session_state.playing = False
    st.session_state.pop("replay", None)
trace: runner.Trace = st.session_state.trace

st.title("Landing on St(n, p)")
st.caption("Set the problem, β, ω and the step in the sidebar; **Run** animates the iterations "
           "from X₀. New here? Start from a **Lecture preset**, or read the **Guide**.")
st.markdown(
    f"**{PROBLEM_LABELS[config.problem]}** on St({problem.n}, {problem.p}) · "
    f"tangent term: {TANGENT_LABELS[config.tangent]}"
    + (f" · β = {config.beta:g}" if config.tangent == "beta" else "")
    + f" · ω = {config.omega:g} · {STEP_LABELS[config.step]}"
    + ("" if config.step == "bb" else f", η = {config.eta:g}")
)
st.latex(r"X_{k+1} = X_k - \eta_k\left(\operatorname{grad} f(X_k)"
         r" + \omega\, X_k (X_k^\top X_k - I_p)\right)")
if config.step == "bb":
    st.caption("Barzilai–Borwein: a step ηₖ > 1/(2ω) keeps its full length on the tangent term "
               "and lowers ω for that step to about 1/(2ηₖ), so that the normal term still moves "
               "by ½ Xₖ(XₖᵀXₖ − I).")


def _restart(cfg, prob) -> None:
    st.session_state.trace, st.session_state.records = runner.start(cfg, prob)


def _latest() -> None:
    """Run, Step and Reset show the newest iterate: the replay slider lets go of its place."""
    st.session_state.pop("replay", None)


# The buttons act in callbacks, which run before the page: every button is then drawn with the
# state its click produced (Step is enabled right after Reset, Pause while playing).
def _on_run(cfg, prob) -> None:
    if st.session_state.trace.finished or st.session_state.records is None:
        _restart(cfg, prob)
    st.session_state.playing = True
    _latest()


def _on_pause() -> None:
    st.session_state.playing = False
    t = st.session_state.trace
    t.status = "paused"
    t.message = f"Paused at k = {t.k}: Run resumes, Step advances one iteration."


def _on_step(cfg, prob) -> None:
    if st.session_state.records is None:
        _restart(cfg, prob)
    else:
        st.session_state.trace.feed(next(st.session_state.records), cfg.tol, cfg.max_iter)
    t = st.session_state.trace
    if not t.finished:
        t.status, t.message = "paused", f"Stepped to k = {t.k}."
    _latest()


def _on_reset(cfg, prob) -> None:
    _restart(cfg, prob)
    st.session_state.playing = False
    _latest()


b1, b2, b3, b4, _ = st.columns([1, 1, 1, 1, 3])
b1.button("Run", icon=":material/play_arrow:", type="primary", width="stretch",
          on_click=_on_run, args=(config, problem))
b2.button("Pause", icon=":material/pause:", width="stretch", on_click=_on_pause,
          disabled=not st.session_state.playing and trace.status != "running")
b3.button("Step", icon=":material/skip_next:", width="stretch", disabled=trace.finished,
          on_click=_on_step, args=(config, problem),
          help="Reset to step through a finished run from X₀.")
b4.button("Reset", icon=":material/restart_alt:", width="stretch", on_click=_on_reset,
          args=(config, problem))

status_box = st.empty()
current = trace.k
if trace.k > 0 and not st.session_state.playing:
    if st.session_state.get("replay", 0) > trace.k:
        del st.session_state["replay"]
    current = st.slider("Replay: iteration k", 0, trace.k, trace.k, key="replay",
                        help="Drag to go back to any iteration; the figures follow.")
else:  # the same place kept while a run plays (the page does not jump)
    st.slider("Replay: iteration k", 0, 1, 0, disabled=True,
              help="Available when the run is paused or has ended.")
metrics_box = st.empty()
progress_box = st.empty()
convergence_box = st.empty()
names = views.available(problem.n, problem.p)
view_name = names[0] if names else None
if len(names) > 1:
    if "view_from_url" not in st.session_state:  # a shared URL names the view
        st.session_state.view_from_url = st.query_params.get("view")
        if st.session_state.view_from_url in names:
            st.session_state.w_view = st.session_state.view_from_url
    controls.persist("w_view", names[0])  # the chosen view survives other pages
    if st.session_state.get("w_view") not in names:
        st.session_state.w_view = names[0]
    view_name = st.segmented_control(
        "Geometry view", names, key="w_view", format_func=lambda v: views.VIEWS[v][0],
        help="One view at a time keeps the animation smooth; switch at any moment.",
    ) or names[0]
    st.query_params["view"] = view_name
elif "view" in st.query_params:  # one view (or none) for this size: nothing to choose
    del st.query_params["view"]
geometry_box = st.empty()


def show_status(status: str, message: str, t: runner.Trace | None = None) -> None:
    kind = {"converged": status_box.success, "diverged": status_box.error,
            "max_iter": status_box.warning}.get(status, status_box.info)
    kind(message + (runner.limit_hint(t, config) if t is not None else ""))


def show_numbers(t: runner.Trace, k: int) -> None:
    with metrics_box.container():
        c = st.columns(4)
        c[0].metric("iteration k", f"{k}")
        c[1].metric("f(Xₖ)", f"{t.cost[k]:.9g}")
        c[2].metric(r"$\|X_k^\top X_k - I\|_F$", f"{t.infeasibility[k]:.3e}")
        c[3].metric("‖grad‖", f"{t.grad_norm[k]:.3e}")
    progress_box.progress(min(t.k / config.max_iter, 1.0),
                          text=f"{t.k} / {config.max_iter} iterations")


def show_figures(t: runner.Trace, current: int | None, geometry: bool = True) -> None:
    convergence_box.plotly_chart(views.convergence(t, f_star, current), width="stretch",
                                 theme=None)
    if not geometry or view_name is None:
        return
    view = views.build(view_name, t, problem, config, current)
    with geometry_box.container():
        st.subheader(view.title)
        st.plotly_chart(view.figure, width="stretch", theme=None)
        st.caption(view.caption)


f_star = runner.optimum(config, problem)

if st.session_state.playing:
    def draw(t: runner.Trace, full: bool) -> None:
        if t.finished:
            show_status(t.status, t.message, t)
        else:
            show_status("running", f"Running… k = {t.k}")
        show_numbers(t, t.k)
        show_figures(t, None, geometry=full)

    runner.animate(trace, st.session_state.records, config, draw)
    st.session_state.playing = False
    st.rerun()

show_status(trace.status, trace.message, trace)
show_numbers(trace, current)
show_figures(trace, current if current != trace.k else None)

st.subheader("Downloads")
d1, d2 = st.columns(2)
d1.download_button("History (CSV)", trace.csv(), file_name="landing_history.csv",
                   mime="text/csv")
d2.download_button("Configuration (JSON)", config.to_json(), file_name="landing_config.json",
                   mime="application/json")
