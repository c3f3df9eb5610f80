"""The app driven with streamlit.testing.v1.AppTest: every page, controls, URL state, uploads."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer import compare, text
from explorer.controls import BETA_GRID, OMEGA_GRID
from explorer.views import VIEWS
from tests.app.helpers import open_app

# the payload's lists of one entry per iteration (explorer.playback.chunk)
PER_ITERATION = ("cost", "h", "grad", "step", "nstep", "x", "sigma", "gram", "flow_sigma",
                 "flow_gram", "fstar", "metric", "safe")


def _player(at: AppTest, *, finish: bool = True) -> dict:
    """The explorer player's arguments; with ``finish``, first ask for chunks as the browser
    does (its value {run_id, have}) until the run is complete, and return it whole."""
    data = json.loads(at.get("component_instance")[0].proto.json_args)["data"]
    whole = data
    for _ in range(200):
        if not finish or whole["done"]:
            return whole
        have = data["start"] + len(data["cost"])
        at.session_state["player"] = {"run_id": data["run_id"], "have": have}
        at.run()
        assert not at.exception
        data = json.loads(at.get("component_instance")[0].proto.json_args)["data"]
        assert data["run_id"] == whole["run_id"] and data["start"] == have
        whole = data | {"start": whole["start"]} | {
            key: whole[key] + data[key] for key in PER_ITERATION
            if isinstance(whole.get(key), list) and isinstance(data.get(key), list)}
    raise AssertionError("the run did not finish in 200 chunks")


def _numbers(at: AppTest) -> tuple[int, float, float]:
    """The final iteration count, f and ||grad|| of the explorer's run."""
    data = _player(at)
    return len(data["cost"]) - 1, data["cost"][-1], data["grad"][-1]


def test_default_load_shows_a_computed_run():
    at = open_app()
    data = _player(at)
    assert data["status"] == "converged" and data["message"].startswith("Converged after")
    assert data["start"] == 0 and len(data["cost"]) > 1
    assert len(data["x"]) == len(data["sigma"]) == len(data["gram"]) == len(data["cost"])
    assert data["header"]["view"] == "frame"  # the first view of St(3, 2)
    assert data["h"][-1] < 1e-8
    assert not at.get("plotly_chart")  # the player draws every view itself


@pytest.mark.parametrize(
    ("widget", "value"),
    [
        ("w_beta", BETA_GRID[30]),   # beta = 10
        ("w_omega", OMEGA_GRID[28]),  # omega ~ 6
        ("w_eta", 0.03),
        ("w_n", 5),
        ("w_p", 1),
    ],
)
def test_changing_a_parameter_changes_the_result(widget, value):
    at = open_app()
    before = _numbers(at)
    element = at.select_slider(key=widget) if widget in ("w_beta", "w_omega") else \
        at.number_input(key=widget)
    element.set_value(value).run()
    assert not at.exception
    assert _numbers(at) != before
    assert float(at.query_params[widget.removeprefix("w_")]) == value  # the URL follows


def test_run_to_completion_reports_the_status():
    data = _player(open_app({"max_iter": "30"}))
    assert data["status"] == "max_iter" and len(data["cost"]) == 31
    assert data["message"].startswith("Reached the iteration limit (30)")
    data = _player(open_app({"tol": "1e-06"}))
    assert data["status"] == "converged" and data["message"].startswith("Converged after")


def test_the_scale_free_rule_converges_where_the_safe_step_circles():
    """brockett(50, 10): the safe step (cap 0.1) circles at the safe region's edge for 1,000
    iterations; the library's default rule, offered as "scale-free", converges (454 iterations
    here), takes no η and says how it sets ω."""
    safe = _player(open_app({"n": "50", "p": "10", "max_iter": "1000"}))
    assert safe["status"] == "max_iter"
    at = open_app({"n": "50", "p": "10", "max_iter": "1000", "step": "scalefree"})
    data = _player(at)
    assert data["status"] == "converged" and len(data["cost"]) - 1 < 600, len(data["cost"])
    assert at.number_input(key="w_eta").disabled
    assert any("ωₖ = min(ω, 1)/(2ηₖ)" in c.value for c in at.caption)
    header = [m.value for m in at.markdown if "scale-free (BB" in m.value]
    assert len(header) == 1 and "η = " not in header[0], header
    # its steps move along T + omega_k N, not along the V the safe region's curve follows
    kinds = [[v["kind"] for v in run["header"]["views"]] for run in (data, safe)]
    assert "safe" not in kinds[0] and "safe" in kinds[1], kinds
    # omega above 1 acts as 1 there: said under the rule
    above = open_app({"n": "50", "p": "10", "step": "scalefree", "omega": "5"})
    assert any("takes ω above 1 as 1" in c.value for c in above.sidebar.caption)
    assert not any("takes ω above 1 as 1" in c.value for c in at.sidebar.caption)


def test_a_diverging_step_is_reported_not_raised():
    data = _player(open_app({"step": "constant", "eta": "5.0", "problem": "brockett", "n": "20",
                            "p": "4"}))
    assert data["status"] == "diverged" and data["message"].startswith("Diverged at iteration")


def test_the_speed_reaches_the_player_and_does_not_restart_the_run():
    at = open_app({"speed": "slow"})
    first = _player(at)
    assert first["header"]["rate"] == 30.0
    at.radio(key="w_speed").set_value("instant").run()
    data = _player(at, finish=False)
    assert data["header"]["rate"] is None  # instant: the final state at once
    assert data["run_id"] == first["run_id"]


@pytest.mark.parametrize(
    ("n", "p", "names"),
    [
        (2, 1, ["plane", "safe"]),
        (3, 1, ["sphere", "safe"]),
        (3, 2, ["frame", "sigma", "cone", "metric", "safe"]),
        (2, 2, ["sigma", "cone", "safe"]),
        (10, 4, ["sigma", "metric", "safe"]),
        (10, 1, ["sigma", "safe"]),
    ],
)
def test_every_view_appears_for_its_size(n, p, names):
    at = open_app({"n": str(n), "p": str(p)})
    head = _player(at, finish=False)["header"]
    assert [v["kind"] for v in head["views"]] == names  # the player's tabs
    assert [v["title"] for v in head["views"]] == [VIEWS[name][1] for name in names]
    for name in names:
        if len(names) > 1:
            at.session_state["player"] = {"view": name}  # a tab, as the player reports it
            at.run()
            assert not at.exception
            assert at.query_params["view"] == name
        assert _player(at, finish=False)["header"]["view"] == name


def test_p_equal_one_disables_beta_and_says_why():
    at = open_app({"n": "2", "p": "1"})
    assert at.select_slider(key="w_beta").disabled
    assert any("every β gives the same tangent term" in c.value for c in at.caption)


@pytest.mark.parametrize("query", [{"beta": "-3"}, {"n": "abc"}, {"problem": "nope"},
                                   {"tol": "1e9"}, {"p": "9", "n": "3"}])
def test_invalid_query_parameters_warn_not_raise(query):
    at = open_app(query)
    assert at.warning
    assert _player(at)["done"]  # a run is still shown


def test_url_restores_the_exact_view():
    query = {"problem": "pca", "n": "6", "p": "2", "beta": "0.3", "omega": "2.0", "eta": "0.05",
             "seed": "4", "max_iter": "123"}
    at = open_app(query)
    assert at.select_slider(key="w_beta").value == 0.3
    assert at.number_input(key="w_n").value == 6
    assert at.number_input(key="w_max_iter").value == 123
    assert at.query_params["beta"] == "0.3"


def test_malformed_upload_warns_and_keeps_the_built_in_problem():
    at = open_app()
    before = _player(at)["cost"][-1]
    at.file_uploader[0].set_value(("bad.csv", b"1,2\n3,oops\n", "text/csv")).run()
    assert not at.exception
    assert any("Upload rejected" in w.value for w in at.warning)
    assert _player(at)["cost"][-1] == before


def test_an_uploaded_matrix_defines_the_problem():
    A = np.diag([3.0, 1.0, -2.0])
    buf = io.BytesIO()
    np.save(buf, A)
    at = open_app({"step": "bb"})
    at.file_uploader[0].set_value(("A.npy", buf.getvalue(), "application/octet-stream")).run()
    assert not at.exception
    # Brockett with A = diag(3, 1, -2), N = diag(2, 1): f* = 2(-2) + 1(1) = -3
    assert _player(at)["cost"][-1] == pytest.approx(-3.0, abs=1e-7)


def _npy(A) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(A, dtype=float))
    return buf.getvalue()


def test_a_corrected_upload_under_the_same_name_replaces_the_first():
    at = open_app({"step": "bb"})
    at.file_uploader[0].set_value(("A.npy", _npy(np.diag([3.0, 1.0, -2.0])), "x")).run()
    assert _player(at)["cost"][-1] == pytest.approx(-3.0, abs=1e-7)
    at.file_uploader[0].set_value(("A.npy", _npy(np.diag([3.0, 1.0, -7.0])), "x")).run()
    assert not at.exception
    # f* = 2(-7) + 1(1) = -13
    assert _player(at)["cost"][-1] == pytest.approx(-13.0, abs=1e-7)


def test_the_built_in_matrix_comes_back_and_stays():
    at = open_app({"step": "bb"})
    built_in = _player(at)["cost"][-1]
    at.file_uploader[0].set_value(("A.npy", _npy(np.diag([3.0, 1.0, -7.0])), "x")).run()
    assert _player(at)["cost"][-1] == pytest.approx(-13.0, abs=1e-7)
    next(b for b in at.button if b.label == "Use the built-in matrix again").click().run()
    assert not at.exception
    assert _player(at)["cost"][-1] == built_in
    at.run()  # and on the next rerun too: the uploader was cleared
    assert _player(at)["cost"][-1] == built_in
    assert at.session_state.matrix is None


def test_a_matrix_too_large_to_evaluate_falls_back_with_a_warning():
    at = open_app()
    before = _player(at)["cost"][-1]
    at.file_uploader[0].set_value(("A.npy", _npy(1e200 * np.eye(3)), "x")).run()
    assert not at.exception
    assert any("does not fit" in w.value and "not a valid start" in w.value for w in at.warning)
    assert _player(at)["cost"][-1] == before


def test_wrong_shape_upload_warns():
    at = open_app()
    at.file_uploader[0].set_value(("A.csv", b"1,2,3\n4,5,6\n", "text/csv")).run()
    assert not at.exception
    assert any("does not fit" in w.value for w in at.warning)


def test_guide_page_renders():
    at = open_app()
    at.switch_page("pages/guide.py").run()
    assert not at.exception
    assert at.title[0].value == "Guide"
    formulas = [e.value.strip("$\n") for e in at.latex]  # the landing step and grad_beta
    assert any(f.startswith("X_{k+1} = X_k") and "grad}_\\beta" in f for f in formulas)
    assert any(f.startswith("\\operatorname{grad}_\\beta f(X) = GM") for f in formulas)


def test_a_new_size_shows_its_first_view_without_blaming_the_url():
    """The URL's view= mirrors the view shown: a size without it (St(5, 2) has no frame) shows
    its first view, with no warning about a "URL parameter" the user never typed; a link's
    view= that the size lacks is still reported."""
    at = open_app()  # St(3, 2): the frame
    assert at.query_params["view"] == "frame"
    at.number_input(key="w_n").set_value(5).run()
    assert not at.exception
    assert [w.value for w in at.warning if "view=" in text.unescape(w.value)] == []
    assert _player(at, finish=False)["header"]["view"] == "sigma"
    assert at.query_params["view"] == "sigma"
    at = open_app({"n": "5", "view": "frame"})
    assert any("view='frame' is not a view of this size" in text.unescape(w.value)
               for w in at.warning)
    # a view the size has but this run does not draw: the link is told why
    for query, why in (({"view": "metric", "constraint": "preset"}, "is drawn on XᵀX = I only"),
                       ({"view": "safe", "step": "scalefree"},
                        "is not drawn under the scale-free step rule")):
        at = open_app(query)
        assert any(f"view='{query['view']}' {why}" in text.unescape(w.value)
                   for w in at.warning), [w.value for w in at.warning]


def test_lowering_n_below_p_clamps_p_in_the_sidebar_with_a_warning():
    at = open_app({"n": "4", "p": "3"})
    at.number_input(key="w_n").set_value(2).run()
    assert not at.exception
    assert at.number_input(key="w_p").value == 2
    assert any("p = 3 > n = 2" in w.value for w in at.warning)
    assert at.session_state.config.p == 2 and at.query_params["p"] == "2"


def test_removing_the_uploaded_file_brings_the_built_in_matrix_back():
    at = open_app({"step": "bb"})
    built_in = _player(at)["cost"][-1]
    at.file_uploader[0].set_value(("A.npy", _npy(np.diag([3.0, 1.0, -7.0])), "x")).run()
    assert _player(at)["cost"][-1] == pytest.approx(-13.0, abs=1e-7)
    at.file_uploader[0].set_value(None).run()  # the user clicks × on the file
    assert not at.exception
    assert at.session_state.matrix is None
    assert _player(at)["cost"][-1] == built_in


def test_page_widgets_survive_a_visit_to_another_page():
    at = open_app({"n": "3", "p": "2"})
    at.session_state["player"] = {"view": "cone"}  # the player's Gram matrix tab
    at.run()
    at.switch_page("pages/compare.py").run()
    at.selectbox(key="compare_fairness").set_value(list(compare.FAIRNESS)[2]).run()
    at.radio(key="compare_against").set_value("time").run()
    at.switch_page("pages/theory.py").run()
    at.radio(key="theory_at").set_value(at.radio(key="theory_at").options[1]).run()
    at.switch_page("pages/guide.py").run()
    at.switch_page("pages/compare.py").run()
    assert at.selectbox(key="compare_fairness").value == list(compare.FAIRNESS)[2]
    assert at.radio(key="compare_against").value == "time"
    at.switch_page("pages/theory.py").run()
    assert at.radio(key="theory_at").index == 1
    at.switch_page("pages/explorer.py").run()
    assert not at.exception
    assert _player(at, finish=False)["header"]["view"] == "cone"
    assert at.query_params["view"] == "cone"


def test_the_url_keeps_only_what_restores_the_view():
    at = open_app({"bogus": "1", "n": "3", "p": "1", "constraint": "preset", "view": "frame"})
    assert any("Unknown URL parameter 'bogus'" in text.unescape(w.value) for w in at.warning)
    assert "bogus" not in at.query_params  # warned once, then dropped
    # XᵀBX = I with n = 3, p = 1 has one view (the ellipsoid; no Metric or Safe step on
    # XᵀBX = I): nothing to name
    assert "view" not in at.query_params
    at.run()
    assert not at.warning  # the warning does not come back


def _hint(at: AppTest) -> str:
    """The explorer's advice below the player once the run is computed ('' when none)."""
    assert _player(at)["message"].startswith("Reached the iteration limit")
    return " ".join(i.value for i in at.info)


def test_the_safe_step_stall_is_explained_only_when_the_run_stalls():
    cut_short = _hint(open_app({"max_iter": "60"}))  # converging, only cut at 60
    assert "only guards feasibility" not in cut_short
    circling = _hint(open_app({"n": "20", "p": "4", "max_iter": "300"}))  # eta too large
    assert "only guards feasibility" in circling
    assert "outside the safe region" not in circling


def test_a_run_circling_at_the_safe_regions_edge_is_explained():
    """brockett(40, 8) at the defaults: the safe step trims η to ~3e-2 (a third of its cap
    0.1) to hold ||h|| ~ 0.47 just inside ε = 0.5, where those steps are still too large for
    f; the run circles with ||grad|| ~ 7 and f below f*. No hint was shown (the stall was
    explained only at the cap, or outside the region); the cap must go below the steps taken
    (η = 0.02 converges)."""
    text = _hint(open_app({"n": "40", "p": "8"}))
    assert "only guards feasibility" in text and "region's edge" in text, text
    assert "Lower the cap η below 3.0e-02" in text, text
    assert "or the scale-free rule" in text  # it converges there (325 iterations)
    assert "outside the safe region" not in text


@pytest.mark.parametrize("step", ["safe", "bb"])
def test_a_run_held_outside_the_safe_region_is_not_called_circling(step):
    """brockett(50, 10) with the safe step never enters ||h|| <= 0.5 in 100 steps (~5e-4
    each, f falling): the hint says so and suggests a larger omega, not a smaller eta."""
    text = _hint(open_app({"problem": "brockett", "n": "50", "p": "10", "max_iter": "100",
                           "step": step}))
    assert "outside the safe region" in text and "Raise ω" in text
    assert "choose the scale-free step rule" in text  # it converges there (454 iterations)
    assert "only guards feasibility" not in text


def test_the_bb_rule_says_how_it_treats_omega():
    """BB's long steps lower ω for that step (steps.BarzilaiBorwein): the explorer says so under
    the update formula, for BB only."""
    text = "lowers ω for that step"
    assert any(text in c.value for c in open_app({"step": "bb"}).caption)
    assert not any(text in c.value for c in open_app({"step": "safe"}).caption)


def test_a_links_bad_values_are_named_in_one_box():
    """Five bad values of a link made five boxes above the player, pushing it off the first
    screen: the settings' corrections go in one, a line each."""
    at = open_app({"beta": "0", "omega": "-1", "eta": "1e9", "lecture": "maybe"})
    assert not at.exception
    boxes = [text.unescape(w.value) for w in at.main.warning if "URL parameter" in w.value]
    assert len(boxes) == 1, boxes
    lines = boxes[0].split("\n")
    assert lines[0] == "This link's settings were corrected:"
    assert [line.split("=")[0] for line in lines[1:]] == [
        "- URL parameter beta", "- URL parameter omega", "- URL parameter eta",
        "- URL parameter lecture"], lines
