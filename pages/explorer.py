"""The explorer: one landing run, computed on the server and played in the browser."""

import streamlit as st

from explorer import budget, controls, family, lecture, live, views, work
from explorer.state import PROBLEM_LABELS, STEP_LABELS, TANGENT_LABELS
from landing_core.steps import USES_ETA

config = controls.sidebar(owns=("view",))
problem, matrix = controls.session_problem(config)

st.title("Landing on St(n, p)" if problem.B is None else "Landing on XᵀBX = I")
hide_after = lecture.question(config, "explorer")  # a preset's question: the player stops there
if not config.lecture:  # a lecture shows the run; the words are the lecturer's
    st.markdown(
        f"**{PROBLEM_LABELS[config.problem]}** on "
        + (f"St({problem.n}, {problem.p})" if problem.B is None else "XᵀBX = I") + " · "
        f"{TANGENT_LABELS[config.tangent]}"
        + (f" · β = {config.beta:g}" if config.tangent == "beta" else "")
        + f" · ω = {config.omega:g} · {STEP_LABELS[config.step]}"
        + (f", η = {config.eta:g}" if USES_ETA[config.step] else "")
    )
    with st.expander("The update, and how to use this page"):
        st.latex(r"X_{k+1} = X_k - \eta_k\left(\operatorname{grad} f(X_k)"
                 r" + \omega\, X_k (X_k^\top X_k - I_p)\right)")
        if config.step == "bb":
            st.caption("Barzilai–Borwein: a step ηₖ > 1/(2ω) keeps its full length on the "
                       "tangent term and lowers ω for that step to about 1/(2ηₖ), so that the "
                       "normal term still moves by ½ Xₖ(XₖᵀXₖ − I).")
        elif config.step == "scalefree":
            st.caption("Scale-free: Barzilai–Borwein steps ηₖ on the tangent term alone, with "
                       "ωₖ = min(ω, 1)/(2ηₖ), so that the normal term moves by "
                       "½ min(ω, 1) Xₖ(XₖᵀXₖ − I) at every step whatever the cost's scale; "
                       "made safe.")
        st.caption("Set the problem, β, ω and the step in the sidebar; **Run** plays the "
                   "iterations from X₀ (keys: Space, →, ←, Home); the tabs above the view "
                   "switch views; drag a 3-D view to turn it. New here? Start from a "
                   "**Lecture preset**, or read the **Guide**.")

m = budget.matrix_rows(config.problem, getattr(matrix, "shape", None))
uploads = (None if matrix is None else st.session_state.matrix_id,
           st.session_state.get("B_id") if config.constraint == "upload" else None)
shown = views.available(problem.n, problem.p, problem.B is not None, config.step)
if config.scrub != "off":  # a family of runs over beta, omega or eta (explorer.family)
    cost = budget.family_cost(config.problem, problem.n, problem.p, config.max_iter,
                              config.scrub_count, step=config.step, m=m,
                              constrained=problem.B is not None,
                              metric="metric" in family.views(shown, problem.n, problem.p))
    work.admit(cost)
    live.family_player(config, problem, uploads, shown, lecture=config.lecture, cost=cost)
else:
    cost = budget.run_cost(config.problem, problem.n, problem.p, config.max_iter,
                           step=config.step, m=m, constrained=problem.B is not None)
    work.admit(cost)
    live.player(config, problem, uploads, shown, lecture=config.lecture, cost=cost,
                ask=None if hide_after is None else {"at": hide_after})
