"""The compare page, its model, and every lecture preset (AppTest and pure)."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import numpy as np
import pytest

from explorer import compare, figures, runner
from explorer.lecture import ANSWER
from explorer.presets import PRESETS
from explorer.state import STEP_LABELS, TANGENT_LABELS, AppConfig, limits
from explorer.text import LABEL_MAX
from explorer.views import B_VIEWS, VIEWS
from landing_core.problems import initial_point, make_problem
from landing_core.solvers import Config, riemannian_gd, solve
from landing_core.steps import BarzilaiBorwein, Safe
from tests.app.helpers import answer, greyed, open_app


def _decode(values) -> np.ndarray:
    """Plotly sends numpy arrays base64-encoded ({"dtype", "bdata"})."""
    if isinstance(values, dict):
        import base64

        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
    return np.asarray(values, dtype=float)


def test_rows_match_independent_solver_runs():
    config = AppConfig(problem="brockett", n=6, p=2, seed=1, distance=0.3, max_iter=300)
    rows = [compare.Row("a", beta=0.2, step="safe", eta=0.05),
            compare.Row("b", tangent="relative", step="bb"),
            compare.Row("c", method="rgd-polar", beta=0.3, step="bb"),
            compare.Row("d", method="momentum", beta=2.0, step="safe", eta=0.05)]
    runs, f_star = compare.run_rows(config, rows, None)
    problem = make_problem("brockett", 6, 2, 1)
    X0 = initial_point(6, 2, 0.3, 1)
    assert f_star == problem.f_star
    for run, cfg in zip(runs, [Config(beta=0.2, step=Safe(0.05)),
                               Config(tangent="relative", step=BarzilaiBorwein()),
                               Config(method="rgd-polar", step=BarzilaiBorwein(),
                                      options={"metric_beta": 0.3}),
                               Config(method="momentum", beta=2.0, step=Safe(0.05))],
                        strict=True):
        ref = solve(problem, X0, cfg, tol=config.tol, max_iter=300)
        assert run["status"] == ref.status and run["iterations"] == ref.iterations
        np.testing.assert_array_equal(run["cost"], ref.cost)


def test_fairness_overrides_every_rows_step_rule():
    config = AppConfig(problem="brockett", n=6, p=2, max_iter=200)
    rows = [compare.Row("const", step="constant", eta=5.0)]
    (diverged,), _ = compare.run_rows(config, rows, None)
    (safe,), _ = compare.run_rows(config, rows, "safe")
    assert diverged["status"] == "diverged"
    assert safe["status"] != "diverged" and safe["infeasibility"].max() <= 0.5 + 1e-12 or \
        safe["infeasibility"][0] > 0.5
    (bb,), _ = compare.run_rows(config, rows, "bb")  # BB ignores eta = 5 and converges
    assert bb["status"] == "converged"
    assert (diverged["label"], safe["label"], bb["label"]) == (
        "const", "const [safe (η ≤ 5)]", "const [BB]")  # the rule that ran is named


@pytest.mark.parametrize(("bad", "fragment"), [
    (dict(beta=-1.0), "beta=-1.0 is outside [0.01, 100]"),  # the sidebar's words and bounds
    (dict(eta=50.0), "eta=50.0 is outside [0.0001, 10]"),
    (dict(eta=float("nan")), "eta=nan is not a finite number"),
    (dict(omega=True), "omega=True is not a number"),  # a JSON true from a URL is no number
    (dict(beta=1e300), "beta=1e+300 is outside"),
    (dict(method="newton"), "unknown method 'newton'"),
    (dict(step=None), "unknown step rule None"),
])
def test_bad_rows_are_explained(bad, fragment):
    with pytest.raises(ValueError) as why:
        compare.parse_row(compare.Row("x").cells() | bad)
    assert fragment in str(why.value)
    with pytest.raises(ValueError, match="is outside|unknown|not a"):  # built by hand as well
        compare.Row("x", **bad)


def test_the_rows_time_is_the_computing_threads_cpu_time(monkeypatch):
    """A row's time history reads CPU time (``runner.CPU``), not the wall clock, on which a
    row's time in the app is mostly its wait for the interpreter."""
    assert compare.CPU is runner.CPU is time.thread_time
    reads = iter(range(10**6))
    monkeypatch.setattr(compare, "CPU", lambda: float(next(reads)))
    runs, _ = compare.run_rows(AppConfig(n=3, p=2, max_iter=50),
                               [compare.Row("a"), compare.Row("b", beta=2.0)], None)
    for run in runs:  # each stretch of the run's own work reads 1: from 1 at X_0, its own
        assert run["iterations"] > 10
        np.testing.assert_array_equal(run["time"], np.arange(1, run["iterations"] + 2))
    table = compare.summary(runs, None)
    assert compare.TIME_COLUMN in table[0] and "CPU" in compare.TIME_COLUMN


def test_summary_reports_time_and_iterations_only_for_converged_runs():
    runs = [dict(label="a", status="converged", iterations=7, time=np.array([0, 0.002]),
                 cost=np.array([2.0, 1.0]), infeasibility=np.array([1.0, 1e-12])),
            dict(label="b", status="max_iter", iterations=9, time=np.array([0, 0.001]),
                 cost=np.array([2.0, 1.5]), infeasibility=np.array([1.0, 0.1]))]
    table = compare.summary(runs, f_star=1.0)
    assert table[0]["iterations to tol"] == 7 and table[0][compare.TIME_COLUMN] == 2.0
    assert table[1]["iterations to tol"] is None and table[1]["final f − f*"] == 0.5
    assert [row["status"] for row in table] == ["converged", "iteration limit"]
    # one constraint for every row: the column of ‖h‖ names it, no column of its own
    assert "final ‖XᵀX − I‖" in table[0] and "constraint" not in table[0]
    mixed = compare.summary([runs[0], {**runs[1], "B": True}], f_star=1.0)
    assert [row["constraint"] for row in mixed] == ["XᵀX = I", "XᵀBX = I"]
    assert all("final ‖h‖" in row for row in mixed)  # the constraint column says which


def test_compare_page_overlays_the_default_rows():
    at = open_app({"n": "3", "p": "2"})
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) == 1  # the curves; the trajectories race in the player
    names = {t["name"] for t in charts[0]["data"]}
    assert names == {"β = 0.1", "β = 0.5", "β = 1", "β = 5"}
    summary = at.dataframe[-1].value
    assert list(summary["configuration"]) == ["β = 0.1", "β = 0.5", "β = 1", "β = 5"]
    # the sidebar's settings survive the page switch
    assert at.session_state.config.omega == 1.0 and at.session_state.config.eta == 0.1


def test_compare_against_cpu_time():
    at = open_app()
    at.switch_page("pages/compare.py").run()
    at.radio(key="compare_against").set_value("time").run()
    assert not at.exception
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert chart["layout"]["xaxis"]["title"]["text"] == "CPU time (s)"


@pytest.mark.parametrize("index", range(len(PRESETS)))
def test_every_preset_loads_and_shows(index):
    preset = PRESETS[index]
    at = open_app()
    at.switch_page("pages/presets.py").run()
    assert not at.exception
    at.button(key=f"preset_{index}").click().run()
    assert not at.exception
    assert at.session_state.config.run_key() == preset.config.run_key()
    if preset.question is not None:  # its outcome hidden until Reveal (tests/app/test_lecture.py)
        assert [m.value for m in at.markdown if m.value.startswith("**Predict**")]
        at.button(key="deck_reveal").click()
        at.switch_page(f"pages/{preset.page}.py").run()  # AppTest's page is the one it opened
        assert not at.exception
        assert f"{ANSWER} {preset.question.answer}]" in answer(at)
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    if preset.page == "compare":
        rows = at.session_state.compare_rows  # the session's own cells, not the shared PRESETS
        assert [compare.parse_row(r) for r in rows] == preset.rows
        assert charts, "the comparison shows its figures"
        names = [t["name"] for t in charts[0]["data"] if t.get("showlegend", True)]
        assert names == [r.label for r in preset.rows]
        table = at.dataframe[-1].value
        assert list(table["configuration"]) == [r.label for r in preset.rows]
    elif preset.page == "theory":  # the demonstration it names, without the page's words
        assert at.title[0].value.startswith("Theory")
        assert at.radio(key="theory_part").value == "demonstrations"
        assert at.radio(key="theory_demo").value == preset.demo
        assert charts and "Why" not in [e.label for e in at.expander]  # lecture mode: no words
        assert at.session_state.config.lecture
    elif preset.page == "stochastic":  # its settings in the widgets, the curves computed
        assert at.title[0].value == "Stochastic landing"
        assert at.session_state.stoch_spec == preset.stochastic
        assert at.number_input(key="so_epochs").value == preset.stochastic.epochs
        assert charts and at.session_state.config.lecture
    else:
        on_B = preset.config.constraint != "identity"
        assert at.title[0].value.startswith("Landing on XᵀBX = I" if on_B
                                            else "Landing on St(n, p)")
        player = next(a["data"] for c in at.get("component_instance")  # not the deck's keys
                      if "data" in (a := json.loads(c.proto.json_args)))
        head = player["header"]
        assert head["view"] == (preset.view or head["views"][0]["kind"])
        titles = {k: (B_VIEWS.get(k) if on_B else None) or VIEWS[k] for k in VIEWS}
        assert [v["title"] for v in head["views"]] == [titles[v["kind"]][1]
                                                       for v in head["views"]]
        assert head["lecture"] and at.session_state.config.lecture  # presets open in lecture mode


def _frame_motion(X) -> tuple[float, float]:
    """(rotation within the span, motion of the span) summed along a run on St(3, 2): the skew
    part of X_kᵀ ΔX (the in-span rotation angle for p = 2) and the part of ΔX off span(X_k)."""
    X = np.asarray(X)
    rotation = span = 0.0
    for a, b in zip(X[:-1], X[1:], strict=True):
        d = b - a
        A = a.T @ d
        rotation += abs(0.5 * (A[0, 1] - A[1, 0]))
        Q = np.linalg.qr(a)[0]
        span += np.linalg.norm(d - Q @ (Q.T @ d))
    return rotation, span


def test_preset_claims_hold():
    """What each preset tells the audience to look at is what the runs do."""
    by_title = {p.title.split(":")[0]: p for p in PRESETS}
    circle = by_title["The circle"]
    runs, _ = compare.run_rows(circle.config, circle.rows, None)
    landing_run, penalty_run, rgd_run = runs
    assert landing_run["status"] == "converged" and landing_run["infeasibility"][-1] < 1e-8
    assert penalty_run["status"] == "max_iter" and 0.5 < penalty_run["infeasibility"][-1] < 2
    assert np.ptp(penalty_run["infeasibility"][-50:]) < 1e-6  # settled, off the circle ...
    assert penalty_run["grad_norm"][-1] < 1e-8  # ... at the penalty's stationary point
    assert rgd_run["infeasibility"].max() < 1e-12
    step = by_title["Too large a step diverges; the safe step does not"]
    (const, safe), _ = compare.run_rows(step.config, step.rows, None)
    assert const["status"] == "diverged" and safe["status"] == "converged"
    brockett = by_title["Brockett"]
    runs, f_star = compare.run_rows(brockett.config, brockett.rows, None)
    assert all(r["status"] == "converged" and abs(r["cost"][-1] - f_star) < 1e-9 for r in runs)
    assert len({len(r["cost"]) for r in runs}) > 1  # different paths
    frame = by_title["The frame on the sphere"]
    (small, large), _ = compare.run_rows(frame.config, frame.rows, None)
    assert small["status"] == large["status"] == "converged"
    (rot_s, span_s), (rot_l, span_l) = _frame_motion(small["X"]), _frame_motion(large["X"])
    assert 6 < rot_s / rot_l < 8.5  # the preset's text: "about seven times as far" (7.3)
    assert 0.8 < span_s / span_l < 1.25  # "the span moves about as much"
    # the summary shows it: the library's batched frame_motion equals the loop above
    table = compare.summary([small, large], None)
    assert table[0][compare.TURN_COLUMN] == pytest.approx(rot_s, rel=1e-12)
    assert table[1][compare.SPAN_COLUMN] == pytest.approx(span_l, rel=1e-12)
    pca = by_title["PCA"]
    runs, _ = compare.run_rows(pca.config, pca.rows, None)
    assert all(r["status"] == "converged" for r in runs)
    for r in runs[1:]:  # β = 0.1 against β = 10: within 1e-3 relative, while for Brockett ...
        np.testing.assert_allclose(r["cost"][:50], runs[0]["cost"][:50], rtol=1e-3)
    b_runs, _ = compare.run_rows(brockett.config, brockett.rows, None)
    spread = np.abs(b_runs[0]["cost"][:20] - b_runs[2]["cost"][:20]).max()
    assert spread > 1e-2  # ... β changes the path visibly


def test_a_label_follows_its_rows_settings():
    old = [r.cells() for r in compare.default_rows(AppConfig())]
    assert [r["label"] for r in old] == ["β = 0.1", "β = 0.5", "β = 1", "β = 5"]
    new = [dict(r) for r in old]
    new[1]["method"] = "rgd-qr"  # one cell edited: its label no longer says what runs
    out = compare.relabel(old, new)
    assert out[1]["label"] == f"RGD (QR, β = 0.5), safe (η ≤ {old[1]['eta']:g})"
    assert [r["label"] for i, r in enumerate(out) if i != 1] == ["β = 0.1", "β = 1", "β = 5"]
    edited = [dict(r) for r in out]
    edited[0]["beta"] = 2.0
    assert compare.relabel(out, edited)[0]["label"] == "β = 2, ω = 1, safe (η ≤ 0.1)"
    typed = [dict(r) for r in out]
    typed[2]["label"] = "my run"  # a label typed by the user stays (until a setting changes)
    assert compare.relabel(out, typed)[2]["label"] == "my run"
    blank = [dict(r) for r in out]
    blank[3]["label"] = None
    assert compare.relabel(out, blank)[3]["label"] == "β = 5, ω = 1, safe (η ≤ 0.1)"
    added = out + [dict.fromkeys(compare.COLUMNS)]  # a new, still empty row stays as it is
    assert compare.relabel(out, added)[-1]["label"] is None
    penalty = compare.Row("x", method="penalty", step="armijo", omega=3.0)
    assert compare.auto_label(penalty) == "penalty, ω = 3, Armijo"
    frob = compare.Row("x", tangent="euclidean", step="constant", eta=0.05)
    assert compare.auto_label(frob) == "Frobenius, ω = 1, η = 0.05"
    momentum = compare.Row("x", method="momentum", beta=0.3, step="bb")
    # its gamma, which no column sets, in its label (the factory's default)
    assert compare.auto_label(momentum) == "momentum (β = 0.3, γ = 0.9), ω = 1, BB"


def test_every_automatic_label_fits_a_label_whole():
    """A stored label is cut at text.LABEL_MAX (a link's, or the table's after another row's
    edit): "Landing with heavy-ball momentum (β = 0.5, γ = 0.9), ω = 1, safe (η ≤ 0.1), on
    XᵀBX = I" (87 characters) lost its constraint. Every method, tangent term, step rule
    and constraint fits, with numbers of the three digits the cells show (six, typed,
    make the longest 82)."""
    longest = max(
        (compare.auto_label(compare.Row("", method=m, tangent=t, beta=0.0123, omega=12.3,
                                        step=s, eta=0.00123, constraint=c))
         for m in compare.row_methods() for t in TANGENT_LABELS for s in STEP_LABELS
         for c in compare.ROW_CONSTRAINTS), key=len)
    assert len(longest) <= LABEL_MAX, longest


def test_rows_share_only_what_they_do_not_set():
    base = AppConfig(n=5, p=2, seed=3, distance=0.2, tol=1e-9, max_iter=300)
    moved = replace(base, beta=7.0, omega=3.0, eta=0.02, step="armijo", tangent="relative",
                    speed="slow")
    assert compare.shared(base) == compare.shared(moved)  # one cache entry for both
    assert compare.shared(replace(base, seed=4)) != compare.shared(base)
    rows = compare.default_rows(base)
    a, _ = compare.run_rows(moved, rows, None)
    b, _ = compare.run_rows(compare.shared(moved), rows, None)
    for ra, rb in zip(a, b, strict=True):
        np.testing.assert_array_equal(ra["cost"], rb["cost"])


def test_the_fairness_note_only_where_a_constant_step_compares_different_fields():
    same = [compare.Row("a", step="constant"), compare.Row("b", step="constant", omega=3.0)]
    assert not compare.constant_step_is_unfair(same)  # only ω differs: one field's scale
    betas = [compare.Row("a", step="constant", beta=0.1), compare.Row("b", beta=10.0)]
    assert compare.constant_step_is_unfair(betas)
    safe = [compare.Row("a", beta=0.1), compare.Row("b", beta=10.0)]
    assert not compare.constant_step_is_unfair(safe)
    frob = [compare.Row("a", tangent="euclidean", beta=0.1, step="constant"),
            compare.Row("b", tangent="euclidean", beta=9.0, step="constant")]
    assert not compare.constant_step_is_unfair(frob)  # β does not enter the Frobenius term
    rgd = [compare.Row("a", method="rgd-qr", beta=0.1, step="constant"),
           compare.Row("b", method="rgd-qr", beta=9.0, step="constant")]
    assert compare.constant_step_is_unfair(rgd)  # β scales RGD's rotation block too
    assert not compare.constant_step_is_unfair([replace(r, beta=0.1) for r in rgd])
    mixed = [compare.Row("a", step="constant"), compare.Row("b", method="penalty")]
    assert compare.constant_step_is_unfair(mixed)


def test_rows_round_trip_through_the_url_and_bad_rows_are_dropped_with_a_reason():
    rows = [compare.Row("β = 0.1 | a ~ label", beta=0.1, step="bb"),
            compare.Row("RGD", method="rgd-polar", step="safe", eta=0.05)]
    text = compare.rows_query(rows)
    assert compare.rows_from_query(text) == (rows, [])
    bad = json.loads(text) + [["x", "newton", "beta", 1, 1, "safe", 0.1]]
    kept, warnings = compare.rows_from_query(json.dumps(bad))
    assert kept == rows and warnings == ["URL row 'x' dropped: unknown method 'newton'."]
    assert compare.rows_from_query("[[1, 2") == (
        [], ["URL parameter rows could not be read; showing the default rows."])
    assert compare.rows_from_query('[["a", "landing"]]')[0] == []  # too few fields
    # a malformed row among good ones costs only itself, named by its place
    for odd in ([1, 2, 3], "abcdefg", None, {}, ["x"] * 9):
        kept, warnings = compare.rows_from_query(json.dumps(json.loads(text) + [odd]))
        assert kept == rows and warnings == [
            "URL row 3 dropped: it is not a list of the 8 entries label, method, tangent, beta, "
            "omega, step, eta, constraint."]
    many, warnings = compare.rows_from_query(compare.rows_query(rows * 4))
    assert len(many) == compare.MAX_ROWS and "first 6 rows" in warnings[0]
    # hostile or odd links: a crash while reading one would stay for the whole session
    unreadable = ([], ["URL parameter rows could not be read; showing the default rows."])
    assert compare.rows_from_query("[" * 1000 + "]" * 1000) == unreadable  # RecursionError
    assert compare.rows_from_query('{"a": 1}') == unreadable
    assert compare.rows_from_query("[" + ",".join(['["x"]'] * 5000) + "]") == unreadable
    bools, warnings = compare.rows_from_query('[["b","landing","beta",true,1,"safe",0.1]]')
    assert bools == [] and "beta=True is not a number" in warnings[0]
    flood = json.dumps([["x", "newton", "beta", 1, 1, "safe", 0.1]] * 50)
    assert compare.rows_from_query(flood)[1][-1] == "… and 47 more rows dropped."
    # an unlabelled bad row is named by its place
    assert compare.rows_from_query('[[null,"newton","beta",2,1,"bb",1]]')[1] == [
        "URL row 1 dropped: unknown method 'newton'."]
    (unlabelled,), _ = compare.rows_from_query('[[null,"landing","beta",2,1,"bb",1]]')
    assert unlabelled.label == "β = 2, ω = 1, BB" and unlabelled.beta == 2.0


def test_a_compare_link_reopens_its_table_steps_and_axis():
    """A copied Compare URL reopens its table, its Steps choice and its x axis: all three are
    in the URL."""
    rows = [compare.Row("β = 0.1", beta=0.1), compare.Row("β = 10", beta=10.0)]
    at = open_app({"n": "3", "p": "2", "rows": compare.rows_query(rows), "steps": "bb",
                   "against": "time"}, page="pages/compare.py")
    assert at.session_state.compare_rows == [r.cells() for r in rows]
    assert compare.FAIRNESS[at.selectbox(key="compare_fairness").value] == "bb"
    assert at.radio(key="compare_against").value == "time"
    summary = at.dataframe[1].value  # [0] is the editable table
    assert list(summary["configuration"]) == ["β = 0.1 [BB]", "β = 10 [BB]"]
    # and the page writes what it shows back into the URL
    at.selectbox(key="compare_fairness").set_value(list(compare.FAIRNESS)[2]).run()
    assert at.query_params["steps"] == "armijo"
    assert compare.rows_from_query(at.query_params["rows"])[0] == rows
    at.switch_page("pages/explorer.py").run()  # another page drops the table from the URL
    assert "rows" not in at.query_params and "steps" not in at.query_params


def test_the_p1_note_only_where_rows_differ_in_beta_alone():
    """The note that β does nothing for p = 1 shows only where two rows differ in β alone
    (not for the circle preset, whose rows differ by method)."""
    betas = [compare.Row("a", beta=0.1), compare.Row("b", beta=5.0)]
    methods = [compare.Row("a"), compare.Row("b", method="penalty"),
               compare.Row("c", method="rgd-qr")]
    assert compare.differ_only_in_beta(betas)
    assert not compare.differ_only_in_beta(methods)
    assert not compare.differ_only_in_beta([compare.Row("a", beta=0.1),
                                            compare.Row("b", beta=5.0, omega=2.0)])
    note = "every β gives the same tangent term"
    at = open_app({"n": "2", "p": "1", "rows": compare.rows_query(betas)},
                  page="pages/compare.py")
    assert any(note in i.value for i in at.info)
    at = open_app({"n": "2", "p": "1", "rows": compare.rows_query(methods)},
                  page="pages/compare.py")
    assert not any(note in i.value for i in at.info)


def test_a_diverged_run_is_marked_where_it_ends():
    config = AppConfig(problem="brockett", n=20, p=4, max_iter=300)
    runs, f_star = compare.run_rows(config, [compare.Row("const", step="constant", eta=0.08),
                                             compare.Row("safe", step="safe", eta=0.08)], None)
    assert [r["status"] for r in runs] == ["diverged", "max_iter"]
    fig = figures.comparison_figure(runs, f_star=f_star)
    crosses = [t for t in fig.data if t.mode == "markers"]
    assert len(crosses) == 3 and all(t.name == "const: diverged" for t in crosses)
    k = runs[0]["iterations"]
    assert all(list(t.x) == [k] for t in crosses)
    assert crosses[1].y[0] == pytest.approx(runs[0]["infeasibility"][-1])
    assert fig.layout.yaxis2.dtick >= 1  # decades only over the blow-up's many decades


def test_each_row_gap_is_taken_in_its_final_component():
    """linear(2, 2), seed 14: the constant step 0.6 crosses det X = 0, the safe step does not;
    the table's final f − f* and the figure's gap use each row's own component (X_0's optimum
    would give −2.12 for the first row)."""
    config = AppConfig(problem="linear", n=2, p=2, seed=14, distance=0.4, beta=1.0, omega=1.0,
                       max_iter=2000)
    rows = [compare.Row("long", beta=1.0, step="constant", eta=0.6),
            compare.Row("safe", beta=1.0, step="safe")]
    runs, f_star = compare.run_rows(config, rows, None)
    assert runs[0]["f_star"] != runs[1]["f_star"] and f_star == runs[1]["f_star"]
    for entry in compare.summary(runs, f_star):
        assert abs(entry["final f − f*"]) <= 1e-8, entry
    fig = figures.comparison_figure(runs, f_star=f_star)
    gap = fig.data[0].y  # the first row's |f − f*| panel
    assert np.nanmin(gap[-5:]) <= 1e-8


def test_rgd_rows_take_their_beta_as_the_metric_and_the_table_says_what_a_row_ignores():
    """An RGD row runs Riemannian GD in the β-metric of its β (not the embedded metric
    whatever β); the table says which of β, ω and the tangent term a row does not use."""
    config = AppConfig(problem="brockett", n=5, p=3, seed=2, max_iter=60)
    rows = [compare.Row("small", method="rgd-qr", beta=0.2, step="constant", eta=0.05),
            compare.Row("large", method="rgd-qr", beta=5.0, step="constant", eta=0.05)]
    runs, _ = compare.run_rows(config, rows, None)
    problem = make_problem("brockett", 5, 3, 2)
    X0 = initial_point(5, 3, config.distance, 2)
    for run, beta in zip(runs, (0.2, 5.0), strict=True):
        ref = riemannian_gd(problem, X0, metric_beta=beta, retraction="qr", step=0.05,
                            tol=config.tol, max_iter=60)
        np.testing.assert_array_equal(run["cost"], ref.cost)
    assert abs(runs[0]["cost"][-1] - runs[1]["cost"][-1]) > 1e-3  # β changed the run
    assert compare.row_reads("rgd-qr", "relative") == {"beta"}
    assert compare.row_reads("penalty", "beta") == {"omega"}
    assert compare.row_reads("landing", "euclidean") == {"tangent", "omega"}
    assert compare.row_reads("momentum", "beta") == {"tangent", "beta", "omega"}
    assert compare.unused_note(rows[0]) == (
        "'small' does not use the tangent term or ω: Riemannian GD stays on St(n, p) (no "
        "normal term) and takes the Riemannian gradient in the β-metric of the row's β (β = 1: "
        "the embedded metric).")
    assert "does not use the tangent term or β" in compare.unused_note(
        compare.Row("p", method="penalty"))
    assert compare.unused_note(compare.Row("f", tangent="euclidean")).endswith(
        "does not use β: β enters only the β-metric tangent term.")
    assert compare.unused_note(compare.Row("l")) == ""
    assert compare.differ_only_in_beta(rows)  # for p = 1 they coincide too
    at = open_app({"n": "5", "p": "3", "rows": compare.rows_query(rows)}, page="pages/compare.py")
    notes = [c.value for c in at.caption if "does not use" in c.value]
    assert len(notes) == 1 and "large" in notes[0] and "ω" in notes[0]


def test_a_row_whose_method_has_no_b_variant_is_skipped_on_xtbx_with_its_reason():
    rows = [compare.Row("landing"), compare.Row("rgd", method="rgd-qr"),
            compare.Row("rgd on St", method="rgd-qr", constraint="identity")]
    at = open_app({"constraint": "preset", "n": "3", "p": "2",
                   "rows": compare.rows_query(rows)}, page="pages/compare.py")
    assert not at.exception
    skipped = [w.value.replace("\\", "") for w in at.warning if "skipped" in w.value]
    assert len(skipped) == 1 and "'rgd'" in skipped[0] and "XᵀX = I only" in skipped[0]
    assert list(at.dataframe[-1].value["configuration"]) == ["landing", "rgd on St"]
    assert compare.constraint_misfit(rows[1], sidebar_B=False) is None
    assert compare.constraint_misfit(replace(rows[0], constraint="B"), sidebar_B=False) is None
    assert "runs on XᵀX = I only" in compare.constraint_misfit(
        compare.Row("p", method="penalty", constraint="B"), sidebar_B=False)


def test_a_row_added_in_the_table_starts_as_the_sidebars_run():
    """The editor fills a row added with "+" from its columns' defaults: every cell a row
    needs, from the sidebar, so the new row runs at once (blank required cells held it back
    with no word above the table)."""
    at = open_app({"n": "3", "p": "2", "beta": "2.0", "omega": "3.0", "step": "bb",
                   "eta": "0.05"}, page="pages/compare.py")
    columns = json.loads(at.dataframe[0].proto.columns)  # [0] is the editable table
    added = {c: columns[c].get("default") for c in compare.COLUMNS}
    assert added == {"label": None, "method": "landing", "tangent": "beta", "beta": 2.0,
                     "omega": 3.0, "step": "bb", "eta": 0.05, "constraint": "sidebar"}
    row = compare.relabel([], [added])[0]
    assert compare.parse_row(row) == compare.Row(row["label"], beta=2.0, omega=3.0, step="bb",
                                                 eta=0.05)


def test_the_note_on_a_negative_gap_points_at_the_tables_infeasibility():
    """A penalty row may end far off the manifold (‖XᵀX − I‖ = 3.8 at ω = 1): the note on a
    negative f − f* must not call that "slightly" off."""
    at = open_app({"n": "3", "p": "2"}, page="pages/compare.py")
    note = next(c.value for c in at.caption if "negative final f − f*" in c.value)
    assert "slightly" not in note
    assert "off the manifold (by the table's final ‖XᵀX − I‖)" in note


def test_the_sidebar_greys_out_what_each_row_sets_and_a_lecture_folds_the_steps():
    """Each row sets its tangent term, beta, omega, step rule and eta: the sidebar's, which
    changed the URL and nothing else, are greyed out. In a lecture the Steps and Against
    controls fold with the rows (the race keeps the first screen)."""
    at = open_app({"n": "3", "p": "2"}, page="pages/compare.py")
    assert greyed(at) == {"w_tangent", "w_beta", "w_omega", "w_step", "w_eta", "w_scrub"}
    assert at.selectbox(key="compare_fairness").value  # drawn, on the page
    assert not any("steps and clock" in e.label for e in at.expander)
    lecture = open_app({"n": "3", "p": "2", "lecture": "1"}, page="pages/compare.py")
    box = [e for e in lecture.expander if "steps and clock" in e.label]
    assert len(box) == 1
    assert {w.key for w in box[0].selectbox} == {"compare_fairness"}
    assert {w.key for w in box[0].radio} == {"compare_against"}


def test_the_tables_choices_read_as_the_sidebars():
    """The step rule and tangent term cells offer the sidebar's words, their codes kept as
    the values (a new user typed "Barz" for Barzilai–Borwein and found nothing: the cells
    offered "bb"); the number cells name their range (ω = 1000 became 100 unsaid)."""
    at = open_app({"n": "3", "p": "2"}, page="pages/compare.py")
    columns = json.loads(at.dataframe[0].proto.columns)
    for column, labels in (("step", STEP_LABELS), ("tangent", TANGENT_LABELS)):
        offered = columns[column]["type_config"]["options"]
        assert offered == [{"value": code, "label": label} for code, label in labels.items()]
    # the number cells say their range: the grid clamps a value beyond it without a word
    for column in ("beta", "omega", "eta"):
        low, high = limits(column)
        assert columns[column]["help"].endswith(f"From {low:g} to {high:g}.")
        assert columns[column]["type_config"]["max_value"] == high
