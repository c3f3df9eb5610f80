"""The explorer: one landing run, computed on the server and played in the browser."""

import streamlit as st

from explorer import controls, live, views
from explorer.state import PROBLEM_LABELS, STEP_LABELS, TANGENT_LABELS

config = controls.sidebar(owns=("view",))
problem, matrix = controls.session_problem(config)

st.title("Landing on St(n, p)")
st.caption("Set the problem, β, ω and the step in the sidebar; **Run** plays the iterations "
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

names = views.available(problem.n, problem.p)
view_name = names[0]
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
        help="Switch at any moment: the player keeps its place.",
    ) or names[0]
    st.query_params["view"] = view_name
elif "view" in st.query_params:  # one view for this size: nothing to choose
    del st.query_params["view"]

live.player(config, problem, None if matrix is None else st.session_state.matrix_id, view_name)
