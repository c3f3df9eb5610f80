"""Stochastic landing on a finite sum: SGD against SAGA (and full-batch landing), from the same
X₀ with the same batch and step, the curves growing live over the epochs.

The settings live in explorer.stochastic (mirrored in the URL's ``stoch``); a worker thread
computes the runs while a fragment redraws what has arrived, ticking only while they run.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import budget, controls, figures, lecture, text, work
from explorer import stochastic as model
from explorer.gate import HEAVY_SECONDS
from explorer.worker import session_worker
from landing_core.run import Status
from landing_core.stochastic import default_step

TICK = 0.4  # seconds between redraws while the runs compute
# the figure's height in lecture mode: on a 1280 x 720 projector the figure starts about
# 235 px down, and its legend (which curve is SGD, SAGA, full batch) must end on the screen
LECTURE_HEIGHT = 470
WIDGETS = {"so_n": "n", "so_p": "p", "so_samples": "samples", "so_batch": "batch",
           "so_eta": "eta", "so_epochs": "epochs", "so_methods": "methods",
           "so_decreasing": "decreasing"}



def _fix_widgets() -> None:
    """Cross-field limits (p <= n, batch <= samples) applied to the widgets themselves, before
    they are drawn, so that they show what runs; what was asked and what is used stays in
    ``stoch_notes`` (with the spec it led to) and is shown until the settings change again."""
    asked = model.StochasticSpec(**{
        name: tuple(st.session_state[key]) if name == "methods" else st.session_state[key]
        for key, name in WIDGETS.items()})
    spec, messages = model.validate(asked)
    if not messages:
        return
    store = st.session_state.setdefault("page_widgets", {})
    for key, name in WIDGETS.items():
        if getattr(spec, name) != getattr(asked, name):
            st.session_state[key] = store[key] = getattr(spec, name)
    st.session_state.stoch_notes = (spec, messages)


# the page's problem, size and step are its own (the Settings below)
config = controls.sidebar(owns=("stoch",), unused=frozenset({
    "problem", "constraint", "n", "p", "step", "eta", "tol", "max_iter", "speed", "scrub",
    "matrix"}))

preset = st.session_state.pop("stoch_preset", None)
if preset is not None:  # a lecture preset: its settings replace the page's
    st.session_state.stoch_spec = preset
    for key, name in WIDGETS.items():
        value = getattr(preset, name)
        st.session_state[key] = list(value) if name == "methods" else value
if "stoch_spec" not in st.session_state:  # first visit: from the link, else the defaults
    spec, warnings = model.from_query(st.query_params.get("stoch"))
    st.session_state.stoch_spec = spec
    controls.link_warnings(warnings)
for key, name in WIDGETS.items():  # kept across visits to other pages and sidebar changes
    value = getattr(st.session_state.stoch_spec, name)
    controls.persist(key, list(value) if name == "methods" else value)
_fix_widgets()

st.title("Stochastic landing")
lecture.question(config, "stochastic")  # its place in the lecture deck
if not config.lecture:
    st.markdown(
        "Online PCA as a finite sum, f(X) = (1/m) Σᵢ fᵢ(X) with fᵢ(X) = −½‖Xᵀaᵢ‖² over m "
        "samples aᵢ (Ablin, Vary, Gao & Absil 2024). Each update lands along the field built "
        "from a **minibatch** estimate of ∇f: **SGD** takes the batch's mean gradient, whose "
        "noise never vanishes, so at a constant step it stalls at a noise floor (and a little "
        "off the manifold); **SAGA** corrects it with a table of the last gradient seen for "
        "each sample, so its noise vanishes at the optimum and a constant step converges. "
        "**Full-batch landing** makes one update per pass over the data. SGD's cost may end "
        "below f*: its noise holds X off the manifold, where f is lower. The sidebar's seed, "
        "X₀ distance, tangent term, β and ω apply; the rest is greyed out there.")
    with st.expander("The updates"):
        st.latex(r"X_{k+1} = X_k - \eta\big(\operatorname{grad}_\beta[G_k](X_k)"
                 r" + \omega X_k(X_k^\top X_k - I_p)\big)")
        st.latex(r"G_k^{\rm SGD} = \tfrac1b \textstyle\sum_{i\in B_k}\nabla f_i(X_k),\qquad "
                 r"G_k^{\rm SAGA} = \tfrac1b \sum_{i\in B_k}\big(\nabla f_i(X_k) - "
                 r"\nabla f_i(\phi_i)\big) + \tfrac1m\sum_{j}\nabla f_j(\phi_j)")
        st.caption("The batches reshuffle the samples every epoch and draw without "
                   "replacement, so given the epoch's earlier batches neither estimate is "
                   "unbiased: the next batch comes from the samples not used yet. What holds: "
                   "one batch, taken alone, is a uniformly drawn subset, so at a point fixed "
                   "in advance the SGD estimate's mean is ∇f; an epoch uses every sample once; "
                   "SAGA's estimate is exactly ∇f(X) once its table holds X for every sample. "
                   "Each curve shows the full sum once per epoch. SAGA's table holds "
                   "Xᵀaᵢ for each sample (p numbers: the gradient −aᵢaᵢᵀX is rebuilt from it).")

# a lecture folds the settings, so that the curves fill a projector's first screen
box = st.expander("Settings") if config.lecture else st.container()
c = box.columns([1, 1, 1.3, 1.2, 1.3, 1.2])
lim = model.LIMITS
n = c[0].number_input("n", *lim["n"][1:], step=1, key="so_n")
p = c[1].number_input("p", *lim["p"][1:], step=1, key="so_p")
samples = c[2].selectbox("samples m", model.SAMPLES, key="so_samples")
batch = c[3].number_input("batch b", *lim["batch"][1:], step=1, key="so_batch")
epochs = c[4].number_input("epochs", *lim["epochs"][1:], step=10, key="so_epochs")
eta = c[5].number_input("step η (0: default)", *lim["eta"][1:], step=1e-4, format="%.4g",
                        key="so_eta", help="One constant step for every method; 0 takes "
                        "min(1, b/10)/(5L), L = maxᵢ‖aᵢ‖² (the sample gradients' Lipschitz "
                        "constant): smaller batches are noisier and need smaller steps. From "
                        "b = 10 up the step stays 1/(5L), so a larger batch, making fewer "
                        "updates per epoch, moves less per epoch at that step (full-batch "
                        "landing, one update per epoch, the least).")
c1, c2 = box.columns([3, 2])
methods = c1.multiselect("methods", list(model.METHOD_LABELS), key="so_methods",
                         format_func=model.METHOD_LABELS.get)
decreasing = c2.toggle("SGD: decreasing step", key="so_decreasing",
                       help="ηₖ = η for the first half of the epochs, then η k₀/k "
                            "(k₀: half the run's updates). Where constant-step SGD sits at its "
                            "noise floor by the run's middle (the default settings), the decay "
                            "takes it below, slowly; where it is still falling there, the "
                            "decay slows it.")
if not methods:
    st.info("Choose at least one method.")
    st.stop()

spec, messages = model.validate(model.StochasticSpec(
    n=int(n), p=int(p), samples=int(samples), batch=int(batch), eta=float(eta),
    epochs=int(epochs), methods=tuple(m for m in model.METHOD_LABELS if m in methods),
    decreasing=bool(decreasing)))
noted, notes = st.session_state.get("stoch_notes", (None, []))
if noted != spec:  # the settings changed since: what the notes said no longer holds
    notes = []
    st.session_state.pop("stoch_notes", None)
for message in [*notes, *messages]:
    st.warning(message, icon="⚠️")
st.session_state.stoch_spec = spec
if st.query_params.get("stoch") != spec.to_query():
    st.query_params["stoch"] = spec.to_query()

cost = budget.stochastic_cost(spec.n, spec.p, spec.samples, spec.batch, spec.epochs,
                              spec.methods)
work.admit(cost)
key = (spec, config.seed, config.distance, config.tangent, config.beta, config.omega)


def _start() -> model.LiveStochastic:
    run = model.LiveStochastic(key, spec, config, heavy=cost.seconds >= HEAVY_SECONDS,
                               seconds=work.BUDGET.seconds)
    run.wait(0.3)  # a small run is done before the first draw
    return run


run = session_worker(st.session_state, "stoch_run", key, _start)
if not config.lecture:
    eta_used = spec.eta or default_step(run.problem, spec.batch)
    st.caption(f"m = {spec.samples:,} samples, batch {spec.batch}: "
               f"{-(-spec.samples // spec.batch)} updates per epoch · η = {eta_used:.3g}"
               + (f" (SGD's step decreasing after epoch {model.SWITCH * spec.epochs:g}, dotted)"
                  if spec.decreasing and "sgd" in spec.methods else "")
               + f" · f* = {run.f_star:.6g} from the eigenvalues of the samples' covariance")


@st.fragment(run_every=None if run.finished else TICK)
def curves() -> None:
    """The curves so far; a full rerun once the runs end, which stops the ticking. Each draw
    renews the worker's lease: it computes while the page is open."""
    run.renew()
    runs, finished, error = run.snapshot()
    # the figure is built once per run and lecture mode, then its points are replaced: a
    # new figure each tick took most of the interpreter from the runs' worker
    drawn = st.session_state.get("stoch_figure")
    if drawn is None or drawn[0] != (key, config.lecture) or \
            not figures.refresh_stochastic_figure(drawn[1], runs, run.f_star):
        decaying = spec.decreasing and "sgd" in spec.methods
        fig = figures.stochastic_figure(runs, f_star=run.f_star, epochs=spec.epochs,
                                        height=LECTURE_HEIGHT if config.lecture else 440,
                                        decay_from=model.SWITCH * spec.epochs if decaying
                                        else None)
        drawn = ((key, config.lecture), figures.text_size(fig, config.lecture))
        st.session_state.stoch_figure = drawn
    st.plotly_chart(drawn[1], key="stoch_chart", theme=None, width="stretch")
    if error:
        st.error(error)
    done = max((r["epoch"][-1] for r in runs if r["epoch"]), default=0)
    if finished:
        # a run cut short by the time limit says so beside its info box, with the epoch it
        # reached and the number asked for
        cut = any(r["status"] == Status.STOPPED for r in runs)
        st.caption(f"Stopped at epoch {done} of {spec.epochs}." if cut else
                   f"Done: {done} epochs.")
        if not config.lecture:
            st.dataframe(pd.DataFrame(model.summary(runs, run.f_star)), hide_index=True,
                         column_config={k: st.column_config.NumberColumn(format="%.2e") for k
                                        in ("|f − f*| / |f*|", "‖XᵀX − I‖", "‖grad₁ f‖")})
        for r in runs:
            if r["status"] == Status.DIVERGED:
                st.warning(f"{r['label']}: {text.plain(r['message'])}", icon="⚠️")
        stopped = {r["message"] for r in runs if r["status"] == Status.STOPPED}
        for message in stopped:
            st.info(text.plain(message), icon=":material/hourglass_disabled:")
        if st.session_state.get("stoch_ticking"):
            st.session_state.stoch_ticking = False
            st.rerun()
    elif run.queued:
        st.caption("Queued: the server is busy with other visitors' work; the runs start as "
                   "soon as a core is free.")
    else:
        st.caption(f"Computing: epoch {done} of {spec.epochs}…")


st.session_state.stoch_ticking = not run.finished
curves()
