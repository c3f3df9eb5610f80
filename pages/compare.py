"""Compare: up to six configurations on the same problem from the same X₀, overlaid."""

import pandas as pd
import streamlit as st

from explorer import (
    budget,
    compare,
    compare_job,
    controls,
    figures,
    fragments,
    lecture,
    live,
    race,
    text,
    work,
)
from explorer.gate import GATE, HEAVY_SECONDS
from explorer.state import (
    CACHE_LIMITS,
    PROBLEM_LABELS,
    STEP_LABELS,
    TANGENT_LABELS,
    TIME_NAME,
    limits,
)

# each row sets its own tangent term, beta, omega, step rule and eta (the sidebar's are only
# an added row's first values)
config = controls.sidebar(owns=("rows", "steps", "against"), unused=frozenset({
    "tangent", "beta", "omega", "step", "eta", "scrub"}))
st.title("Compare configurations")

STEPS_CODE = {label: code or "rows" for label, code in compare.FAIRNESS.items()}  # for the URL
if "compare_rows" not in st.session_state:  # the session's first visit: a shared link's table
    url_rows, url_warnings = (compare.rows_from_query(st.query_params["rows"])
                              if "rows" in st.query_params else ([], []))
    for warning in url_warnings:
        st.warning(text.markdown(warning), icon="⚠️")
    st.session_state.compare_rows = [r.cells() for r in
                                     url_rows or compare.default_rows(config)]
    st.session_state.compare_version = 0
    by_code = {code: label for label, code in STEPS_CODE.items()}
    for name, key, choices in (("steps", "compare_fairness", by_code),
                               ("against", "compare_against", {a: a for a in ("iteration",
                                                                              "time")})):
        raw = st.query_params.get(name)
        if raw in choices:
            st.session_state[key] = choices[raw]
        elif raw is not None:
            st.warning(text.markdown(f"URL parameter {name}={text.quote(raw)} is not one of "
                                     f"{', '.join(choices)}; ignored."), icon="⚠️")
# a lecture preset's question: until Reveal the curves stop there and no outcome shows
hide_after = lecture.question(config, "compare")


def _number(label: str, name: str, help: str | None = None) -> st.column_config.NumberColumn:
    """A number column of the table, limited to the range a row accepts (the sidebar's); a row
    added in the table starts with the sidebar's value."""
    low, high = limits(name)
    # the grid clamps a value beyond the range without a word (1000 became 100): say it here
    bounds = f"From {low:g} to {high:g}."
    return st.column_config.NumberColumn(label, min_value=low, max_value=high, format="%.3g",
                                         help=f"{help} {bounds}" if help else bounds,
                                         default=getattr(config, name))


labels = " · ".join(text.plain(r.get("label")) for r in st.session_state.compare_rows)
# folded by default: the charts, not the table, fill a projector's first screen; in a lecture
# the Steps and Against controls fold there too, so that the race keeps its room below a
# question at 1024 x 768
# (a key keeps it open when its label changes: an edited row relabels it, and a fresh
# expander came back folded after every edit)
table_box = st.expander(text.markdown(
    f"Rows: {labels} (edit, add or remove" + ("; steps and clock)" if config.lecture else ")")),
    key="compare_rows_box")
if not config.lecture:  # how the rows run, where they are edited (not a fold of its own above
    # the race: the race fills what the controls leave of the first screen)
    table_box.markdown(
        f"Every row runs on **the same problem** ({PROBLEM_LABELS[config.problem]} on "
        f"St({config.n}, {config.p}), seed {config.seed}) **from the same X₀** (distance "
        f"{config.distance:g} from the manifold), with the sidebar's tolerance "
        f"{config.tol:.0e} and at most {config.max_iter} iterations. Edit, add or remove "
        "rows (up to six) in this table; a row's label follows its settings. Each row sets "
        "its own method, tangent term, β, ω, step rule and η: the sidebar's do not apply "
        "here."
    )
edited = table_box.data_editor(
    pd.DataFrame(st.session_state.compare_rows, columns=compare.COLUMNS),
    num_rows="dynamic",
    width="stretch",
    key=f"compare_editor_{st.session_state.compare_version}",
    column_config={
        "label": st.column_config.TextColumn(
            "label", help="Follows the row's settings when you edit them; type your own after."),
        # an added row starts as the sidebar's run (else blank cells hold it back unsaid)
        "method": st.column_config.SelectboxColumn("method", options=compare.row_methods(),
                                                   required=True, default="landing"),
        "tangent": st.column_config.SelectboxColumn(
            "tangent term", options=list(TANGENT_LABELS), required=True, default=config.tangent,
            format_func=TANGENT_LABELS.__getitem__,
            help="Landing's tangent term (also momentum's). The penalty and Riemannian GD "
                 "do not use it."),
        "beta": _number("β", "beta", "The β-metric's β: landing's β-metric tangent term, and "
                        "the metric of Riemannian GD's gradient (β = 1: the embedded metric). "
                        "The penalty and the Frobenius and relative tangent terms do not use "
                        "it."),
        "omega": _number("ω", "omega", "The normal term's weight (landing), or the penalty's. "
                         "Riemannian GD has none: it stays on St(n, p)."),
        # the sidebar's words for the rules, not their codes (typing "Barz" found nothing)
        "step": st.column_config.SelectboxColumn("step rule", options=list(STEP_LABELS),
                                                 required=True, default=config.step,
                                                 format_func=STEP_LABELS.__getitem__,
                                                 width="medium"),
        "eta": _number("η", "eta"),
        "constraint": st.column_config.SelectboxColumn(
            "constraint", options=list(compare.ROW_CONSTRAINTS), required=True,
            default="sidebar",
            help="sidebar: the sidebar's constraint; identity: XᵀX = I; B: XᵀBX = I (the "
                 "sidebar's B, else the preset), so St and the B-constraint run side by side "
                 "from the same X₀."),
    },
)
rows = edited.to_dict("records")
if not edited.equals(pd.DataFrame(st.session_state.compare_rows, columns=compare.COLUMNS)):
    # keep edits across pages: the edited table becomes the base of a fresh editor
    st.session_state.compare_rows = compare.relabel(st.session_state.compare_rows, rows)
    st.session_state.compare_version += 1
    st.rerun()

if len(rows) > compare.MAX_ROWS:
    st.warning(f"Only the first {compare.MAX_ROWS} rows are compared.")
    rows = rows[:compare.MAX_ROWS]
problem, matrix = controls.session_problem(config)
valid = []
for cells in rows:
    try:
        r = compare.parse_row(cells)
        problem_with_row = compare.constraint_misfit(r, problem.B is not None)
    except ValueError as why:
        problem_with_row = str(why)
    if problem_with_row:
        st.warning(text.markdown(f"Row {text.quote(cells.get('label'))} skipped: "
                                 f"{problem_with_row}."))
    else:
        valid.append(r)
unused = [note for r in valid if (note := compare.unused_note(r))]
if unused:  # the table cannot grey out one row's cells: say it beneath them
    table_box.caption(text.markdown(" ".join(unused)))
st.query_params["rows"] = compare.rows_query(st.session_state.compare_rows)  # for a link
if not valid:
    st.info("Add a row to compare.")
    st.stop()

controls.persist("compare_fairness", next(iter(compare.FAIRNESS)))
controls.persist("compare_against", "iteration")
steps_box, against_box = (table_box if config.lecture else st).columns(
    [3, 2], vertical_alignment="bottom")
fair_label = steps_box.selectbox("Steps", list(compare.FAIRNESS), key="compare_fairness",
                                 help=compare.STEPS_HELP)
fairness_note = None  # said below the race, which comes first on a projector's screen
if compare.FAIRNESS[fair_label] is None and compare.constant_step_is_unfair(valid):
    fairness_note = compare.CONSTANT_NOTE
elif compare.FAIRNESS[fair_label] == "safe" and compare.differ_in_field(valid):
    fairness_note = compare.SAFE_NOTE


@st.cache_data(**CACHE_LIMITS, show_spinner=False)
def _run(cfg, rows_, fairness, matrix, B, _cost):
    """The rows' runs, cached when complete (``work.complete_only``: rows stopped by the time
    limit are not kept). A miss waits for the session's job of these settings
    (``compare_job``: a rerun by a widget that does not change them waits for the same work),
    redrawing a progress bar: Streamlit ends this wait, not the work, at a rerun or Stop."""
    job = compare_job.session_job(
        st.session_state, compare_job.job_key(cfg, rows_, fairness, matrix, B),
        lambda: compare.Comparison(cfg, rows_, fairness, matrix, B),
        heavy=_cost.seconds >= HEAVY_SECONDS, seconds=work.BUDGET.seconds,
        wall=work.WALL_FACTOR * work.BUDGET.seconds)
    bar = st.progress(job.fraction, text=job.text)
    try:
        while not job.done():
            job.renew()
            bar.progress(job.fraction, text=GATE.queued_text() if job.queued else job.text)
            job.wait(work.TICK)
    finally:
        bar.empty()
    if job.error is not None:
        raise job.error
    return work.complete_only(job.result, compare.cut_short(job.result[0]))


cost = budget.compare_cost(
    config.problem, problem.n, problem.p, config.max_iter,
    [(r.method, compare.FAIRNESS[fair_label] or r.step) for r in valid],
    m=budget.matrix_rows(config.problem, getattr(matrix, "shape", None)),
    constrained=problem.B is not None or any(r.constraint == "B" for r in valid))
work.admit(cost)
runs, f_star = work.served(_run, compare.shared(config), valid, compare.FAIRNESS[fair_label],
                           matrix, problem.B, cost)

against = against_box.radio("Against", ["iteration", "time"], horizontal=True,
                            key="compare_against",
                            format_func={"iteration": "iterations", "time": TIME_NAME}.get,
                            help=compare.TIME_HELP)
st.query_params.update(steps=STEPS_CODE[fair_label], against=against)  # a link reopens this
# the race: every row played together in the explorer's player, one clock, one view; before a
# lecture's Reveal, the rows as far as the question's iteration only
shown = runs if hide_after is None else compare.until(runs, hide_after)
# built once per comparison, clock, question and presentation (and the runs' results: their
# race id, new after Compute again)
race_key = (compare_job.job_key(compare.shared(config), valid, compare.FAIRNESS[fair_label],
                                matrix, problem.B),
            race.race_id(shown, against), hide_after, config.speed, config.lecture)
live.race_player(race_key, lambda: race.payload(
    shown, f_star, config, problem, compare.rows_B(config, problem.B), against,
    lecture=config.lecture, ask=hide_after, run_id=race.race_id(runs, against)))
if config.p == 1 and compare.differ_only_in_beta(valid):  # below the race, as the notes after
    st.info("For p = 1 every β gives the same tangent term (skew(XᵀG) is 1 × 1, so 0): rows "
            "that differ only in β coincide. Compare methods, tangent terms or steps, or set "
            "p ≥ 2.", icon=":material/info:")
if hide_after is not None:
    st.caption(f"The race stops at k = {hide_after}: the rest, the summary and the outcome "
               f"show on Reveal ({lecture.REVEAL_KEYS}).")
    st.stop()
if fairness_note:
    st.info(fairness_note, icon=":material/balance:")
st.subheader("Summary")
table = compare.summary(runs, f_star)
for entry in table:  # "—" where a run never reached the tolerance
    it, ms = entry["iterations to tol"], entry[compare.TIME_COLUMN]
    entry["iterations to tol"] = "—" if it is None else f"{it:,}"
    entry[compare.TIME_COLUMN] = "—" if ms is None else f"{ms:.1f}"
st.dataframe(pd.DataFrame(table), width="stretch", hide_index=True,
             column_config={"iterations to tol": st.column_config.TextColumn(
                                help=compare.ITERATIONS_HELP),
                            compare.TIME_COLUMN: st.column_config.TextColumn(
                                help="Milliseconds to the tolerance. " + compare.TIME_HELP),
                            "final f − f*": st.column_config.NumberColumn(
                                format="%.3e", help=compare.GAP_HELP),
                            compare.infeasibility_column(runs): st.column_config.NumberColumn(
                                format="%.3e", help="‖XᵀX − I‖ for a row on XᵀX = I, "
                                "‖XᵀBX − I‖ for a row on XᵀBX = I (the constraint column, where "
                                "the rows differ)"),
                            compare.TURN_COLUMN: st.column_config.NumberColumn(
                                format="%.3g", help=compare.TURN_HELP),
                            compare.SPAN_COLUMN: st.column_config.NumberColumn(
                                format="%.3g", help=compare.SPAN_HELP)})
on = "XᵀBX = I" if all(run["B"] for run in runs) else "St(n, p)" + (
    " or XᵀBX = I" if any(run["B"] for run in runs) else "")
st.subheader("Curves")
legend = [{**run, "label": text.html(run["label"])} for run in runs]  # names are HTML to plotly
st.plotly_chart(figures.text_size(figures.comparison_figure(
    legend, f_star=f_star, against=against, height=400), config.lecture), width="stretch",
    theme=None)
st.caption("A negative final f − f* means the last iterate is off the manifold (by the "
           f"table's {compare.infeasibility_column(runs)}), where f can go below its minimum "
           f"on {on}; the plots show |f − f*|.")
for run in runs:
    if run["status"] == "diverged":
        st.error(text.markdown(f"{run['label']}: {run['message']}"))
    elif run["status"] == "stopped":
        st.warning(text.markdown(f"{run['label']}: {run['message']}"), icon=":material/timer_off:")
if compare.cut_short(runs):
    # a callback, not the click's value: a click that goes with the race's report reaches
    # the session in the race's own run (explorer.fragments), which then reruns the page
    st.button("Compute again", icon=":material/refresh:",
              key=fragments.button_key("compare_again"),
              on_click=lambda: st.session_state.pop(compare_job.SESSION_KEY, None),
              help="The runs stopped at the time limit are not kept: compute them again "
                   "(the server may be less busy now).")

if not race.views(config.n, config.p, runs):
    st.caption("The geometry views are drawn for n ≤ 3, where the comparison keeps the "
               "iterates; here the rows race in the convergence panels.")
