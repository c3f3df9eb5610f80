"""The Stochastic page under AppTest: the live runs reach the chart, the URL restores the
settings, bad settings warn, lecture mode hides the words."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer import figures, text, worker
from explorer import stochastic as model
from explorer.gate import Gate
from explorer.state import AppConfig
from landing_core.run import Status
from landing_core.stochastic import epochs, stochastic_config
from tests.app.helpers import APP, greyed, renew_until
from tests.app.test_fuzz import HOSTILE, check_page

TIMEOUT = 60


def _page(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.switch_page("pages/stochastic.py").run()  # a link to the page: its URL first
    assert not at.exception
    return at


def _finish(at: AppTest) -> None:
    """Let the worker end, renewing its lease, then rerun (what the fragment's ticks do in a
    browser)."""
    run = at.session_state.stoch_run
    for _ in range(240):
        if run.finished:
            break
        run.renew()
        run.wait(0.25)
    assert run.finished
    at.run()
    assert not at.exception


def _curves(at: AppTest, mode: str = "lines+markers") -> dict[str, list[np.ndarray]]:
    """label -> the y values of its three panels (relative gap, ||h||, ||grad||); ``mode``
    "markers": the rings of the points below f* and their legend key instead."""
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    out: dict[str, list[np.ndarray]] = {}
    for trace in spec["data"]:
        if trace["mode"] != mode:
            continue
        y = trace["y"]
        if isinstance(y, dict):  # plotly.py sends numeric arrays base64-encoded
            y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
        out.setdefault(trace["name"], []).append(np.asarray(y, dtype=float))
    return out


def test_the_default_page_shows_sgd_against_saga_and_full_batch():
    at = _page()
    assert at.title[0].value == "Stochastic landing"
    assert any("Online PCA as a finite sum" in m.value for m in at.markdown)
    _finish(at)
    curves = _curves(at)
    assert set(curves) == {"SGD", "SAGA", "full-batch landing"}
    spec = model.StochasticSpec()
    for panels in curves.values():
        assert len(panels) == 3 and all(len(y) == spec.epochs + 1 for y in panels)
    sgd_gap, saga_gap = curves["SGD"][0][-1], curves["SAGA"][0][-1]
    assert saga_gap < 1e-3 * sgd_gap  # SAGA far below SGD's noise floor
    # SGD's f crosses f* (its noise holds X off the manifold): those points are ringed
    below = [r for r in at.session_state.stoch_run.snapshot()[0] if r["label"] == "SGD"][0]
    below = np.asarray(below["cost"]) < at.session_state.stoch_run.f_star
    assert 0 < below.sum() < below.size
    rings = _curves(at, "markers")
    assert set(rings) == {"SGD: f < f*", figures.BELOW_F_STAR}
    np.testing.assert_array_equal(rings["SGD: f < f*"][0], curves["SGD"][0][below])
    assert any("Done: 100 epochs." in c.value for c in at.caption)
    table = at.dataframe[0].value
    assert list(table["method"]) == ["SGD", "SAGA", "full-batch landing"]
    assert table["sample gradients"].tolist() == [100_000, 101_000, 100_000]
    assert table["status"].tolist() == ["all epochs run"] * 3
    assert at.query_params["stoch"] == spec.to_query()


def test_the_url_restores_the_settings_and_a_widget_restarts_the_runs():
    query = "n=8,p=2,samples=200,batch=20,eta=0.002,epochs=30,methods=saga,decreasing=0"
    at = _page({"stoch": query})
    assert at.number_input(key="so_batch").value == 20
    assert at.multiselect(key="so_methods").value == ["saga"]
    _finish(at)
    assert set(_curves(at)) == {"SAGA"}
    first = at.session_state.stoch_run
    at.number_input(key="so_batch").set_value(40).run()
    assert at.session_state.stoch_run is not first and first.cancelled
    assert "batch=40" in at.query_params["stoch"]
    _finish(at)
    assert len(_curves(at)["SAGA"][0]) == 31
    second = at.session_state.stoch_run
    at.selectbox(key="w_tangent").set_value("relative").run()  # the sidebar's apply
    assert at.session_state.stoch_run is not second
    _finish(at)
    assert at.session_state.stoch_run.runs["saga"]["status"] == Status.MAX_ITER


def test_bad_settings_warn_and_fall_back():
    at = _page({"stoch": "n=8,p=9,samples=200,batch=500,epochs=abc,bogus=1"})
    warnings = " ".join(text.unescape(w.value) for w in at.warning)
    assert "epochs='abc' is not a number" in warnings and "unknown setting 'bogus'" in warnings
    assert "p = 9 > n = 8" in warnings and "cannot exceed the samples (200)" in warnings
    spec = at.session_state.stoch_spec
    assert (spec.p, spec.batch, spec.epochs) == (8, 200, 100)
    at.multiselect(key="so_methods").set_value([]).run()
    assert not at.exception and any("at least one method" in i.value for i in at.info)


def test_an_impossible_p_or_batch_is_fixed_in_the_widget_with_a_message():
    """p > n (and batch > samples) typed in the page: the widget shows the value that runs,
    and the message (what was asked, what is used) stays until the settings change."""
    at = _page({"stoch": "n=8,p=2,samples=200,batch=20,epochs=5"})
    at.number_input(key="so_p").set_value(6).run()
    at.number_input(key="so_n").set_value(5).run()  # now p = 6 > n = 5
    assert at.number_input(key="so_p").value == 5 and at.session_state.stoch_spec.p == 5
    note = "p = 6 > n = 5 is impossible (St(n, p) needs p ≤ n): using p = 5."
    assert [w.value for w in at.warning] == [note]
    assert "n=5,p=5," in at.query_params["stoch"]
    _finish(at)  # the rerun once the runs end keeps the message
    assert [w.value for w in at.warning] == [note]
    at.number_input(key="so_p").set_value(9).run()
    assert at.number_input(key="so_p").value == 5
    assert [w.value for w in at.warning] == [note.replace("6", "9")]
    at.number_input(key="so_batch").set_value(300).run()  # samples are 200
    assert at.number_input(key="so_batch").value == 200
    assert [w.value for w in at.warning] == [
        "The batch (300) cannot exceed the samples (200): using 200."]
    at.number_input(key="so_epochs").set_value(6).run()  # another change: the notes go
    assert not at.warning and at.number_input(key="so_batch").value == 200
    assert at.number_input(key="so_p").value == 5


def test_runs_over_the_budget_are_refused_with_what_to_lower():
    at = _page({"stoch": "n=100,p=10,samples=5000,batch=1,epochs=500"})
    errors = " ".join(e.value for e in at.error)
    assert "These runs would need about" in errors and "raise the batch" in errors
    assert "stoch_run" not in at.session_state


@pytest.mark.parametrize("payload", [HOSTILE[0], HOSTILE[3], HOSTILE[7][:5000],
                                     ",".join(["bogus=1"] * 500)])
def test_hostile_links_are_shown_as_text(payload):
    at = _page({"stoch": f"n={payload},epochs=7,{payload}=3,methods={payload}"})
    check_page(at)
    assert at.session_state.stoch_spec.epochs == 7  # the valid rest is kept
    assert len(at.warning) <= 5


def test_lecture_mode_shows_the_curves_without_the_words():
    at = _page({"lecture": "1", "stoch": "samples=200,batch=20,epochs=20"})
    _finish(at)
    assert [e.label for e in at.expander] == ["Settings", "Your own matrix"]  # no "updates"
    assert not any("Online PCA" in m.value for m in at.markdown)
    assert not at.dataframe  # the summary table is for the desk, not the projector
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["layout"]["height"] == 470  # its legend on a 720-row projector's first screen


def test_the_settings_survive_a_visit_to_another_page():
    at = _page({"stoch": "samples=200,batch=20,epochs=20"})
    at.number_input(key="so_epochs").set_value(30).run()
    at.switch_page("pages/guide.py").run()
    at.switch_page("pages/stochastic.py").run()
    assert not at.exception
    assert at.number_input(key="so_epochs").value == 30
    assert at.session_state.stoch_spec.epochs == 30


def test_the_sidebar_greys_out_what_the_page_does_not_read_and_keeps_it():
    """The page reads the sidebar's seed, X₀ distance, tangent term, β and ω (the runs' key);
    the rest is greyed out under a caption, and a size set on the explorer survives a visit."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.number_input(key="w_n").set_value(7).run()
    at.switch_page("pages/stochastic.py").run()
    assert not at.exception
    drawn = {w.key for kind in ("number_input", "selectbox", "select_slider", "radio")
             for w in getattr(at.sidebar, kind) if w.key and w.key.startswith("w_")}
    assert greyed(at) == {
        "w_problem", "w_constraint", "w_n", "w_p", "w_step", "w_eta", "w_tol", "w_max_iter",
        "w_speed", "w_scrub"}
    assert drawn - greyed(at) == {
        "w_seed", "w_distance", "w_tangent", "w_beta", "w_omega"}
    assert any("Greyed out" in c.value for c in at.sidebar.caption)
    assert at.number_input(key="w_n").value == 7
    at.switch_page("pages/explorer.py").run()
    assert not at.exception
    assert at.number_input(key="w_n").value == 7 and not at.number_input(key="w_n").disabled
    assert not any("Greyed out" in c.value for c in at.sidebar.caption)


def test_spec_round_trips_through_the_url():
    spec = model.StochasticSpec(n=7, p=2, samples=5000, batch=33, eta=0.0125, epochs=12,
                                methods=("sgd", "landing"), decreasing=True)
    assert model.from_query(spec.to_query()) == (spec, [])


def test_the_decreasing_step_follows_sgd_to_its_floor_and_then_goes_below():
    """What the toggle's help says, on the small finite sum the browser test uses (St(8, 2),
    m = 200, batch 10, 100 epochs): the two SGD runs agree bit for bit to epoch 50, where the
    constant step sits at its noise floor; at epoch 100 the decreasing one is below it in the
    gap and in the stationarity measure (measured 0.52x and 0.43x; a decay from k = 0 ended
    at 7.7x and 27x)."""
    config = AppConfig()
    runs = {}
    for decreasing in (False, True):
        spec = model.StochasticSpec(n=8, p=2, samples=200, epochs=100, methods=("sgd",),
                                    decreasing=decreasing)
        problem, X0 = model.problem_of(spec, config)
        rule = stochastic_config("sgd", batch_size=10, step=model.step_of(spec, problem, "sgd"),
                                 beta=config.beta, omega=config.omega, seed=config.seed,
                                 tangent=config.tangent, problem=problem)
        runs[decreasing] = list(epochs(problem, X0, rule, spec.epochs))
    constant, decreasing = runs[False], runs[True]
    for a, b in zip(constant[:51], decreasing[:51], strict=True):
        np.testing.assert_array_equal(a.X, b.X)
    gap = [abs(r.cost - problem.f_star) for r in (constant[-1], decreasing[-1])]
    assert gap[1] < 0.7 * gap[0]
    assert decreasing[-1].stationarity < 0.6 * constant[-1].stationarity
    assert not np.array_equal(constant[51].X, decreasing[51].X)


def test_runs_cut_short_by_the_time_limit_say_where_they_stopped(monkeypatch):
    """A server whose budget is a quarter of a second (and whose cost model admits the run):
    the caption says "Stopped at epoch k of 200.", not "Done: k epochs.", which read as if k
    had been asked for, and the info box says why."""
    from explorer import budget, work

    monkeypatch.setattr(budget, "MARGIN", 0.001)
    monkeypatch.setattr(work, "BUDGET", budget.Budget(seconds=0.25))
    at = _page({"stoch": "samples=1000,batch=1,epochs=200,methods=sgd"})
    _finish(at)
    run = at.session_state.stoch_run
    done = run.runs["sgd"]["epoch"][-1]
    assert run.runs["sgd"]["status"] == "stopped" and 0 < done < 200
    assert [c.value for c in at.caption if c.value.startswith(("Done", "Stopped"))] == [
        f"Stopped at epoch {done} of 200."]
    assert any("time limit of 0.25 s" in i.value for i in at.info)


def test_a_diverging_step_is_reported_on_the_page():
    at = _page({"stoch": "samples=200,batch=10,eta=0.5,epochs=5,methods=sgd+saga"})
    _finish(at)
    warnings = [w.value for w in at.warning]
    assert any(w.startswith("SGD: Diverged at iteration") for w in warnings)
    assert any(w.startswith("SAGA: Diverged at iteration") for w in warnings)
    assert list(at.dataframe[0].value["status"]) == ["diverged", "diverged"]


# ----------------------------------------------------------------------------- the worker


def _worker(**kwargs) -> model.LiveStochastic:
    spec = model.StochasticSpec(samples=1000, batch=1, epochs=200, methods=("sgd",))
    return model.LiveStochastic(("test",), spec, AppConfig(), **kwargs)


def test_the_worker_computes_only_while_the_page_renews_its_lease():
    run = _worker()
    run.wait(worker.LEASE + 10.0)  # no redraw: the lease runs out, the thread ends (joined)
    assert not run._thread.is_alive() and not run.finished
    done = len(run.runs["sgd"]["epoch"])
    assert 0 < done < 201
    renew_until(run, lambda: len(run.runs["sgd"]["epoch"]) > done)  # the same iterates go on
    run.cancelled = True


def test_the_worker_stops_at_the_time_limit_and_waits_for_the_gate():
    run = _worker(seconds=0.3)
    renew_until(run, lambda: run.finished)
    assert run.runs["sgd"]["status"] == "stopped"
    assert "time limit of 0.3 s" in run.runs["sgd"]["message"]
    gate = Gate(1)
    assert gate.acquire(timeout=0)  # someone else holds the only slot
    run = _worker(heavy=True, gate=gate)
    renew_until(run, lambda: run.queued)
    run.wait(0.3)
    assert run.queued and not run.runs["sgd"]["epoch"]
    gate.release()
    renew_until(run, lambda: not run.queued and run.runs["sgd"]["epoch"])
    run.cancelled = True


def test_the_lecture_presets_claims_hold():
    """What the preset tells the audience: SAGA below 1e-8 within about 100 epochs, SGD near
    1e-2 in gap and in ‖XᵀX − I‖, full-batch landing hardly moved."""
    from explorer.presets import PRESETS
    from landing_core.stochastic import stochastic_landing

    preset = next(p for p in PRESETS if p.page == "stochastic")
    spec = preset.stochastic
    problem, X0 = model.problem_of(spec, preset.config)
    gaps, feas = {}, {}
    for m in spec.methods:
        res = stochastic_landing(problem, X0, method=m, batch_size=spec.batch,
                                 epochs=spec.epochs, tol=0.0)
        gaps[m] = np.abs(res.cost - problem.f_star) / abs(problem.f_star)
        feas[m] = res.infeasibility
    assert np.argmax(gaps["saga"] <= 1e-8) <= 110
    assert 3e-3 < gaps["sgd"][-1] < 3e-2 and 3e-3 < feas["sgd"][-1] < 3e-2
    assert gaps["landing"][-1] > 0.1


def test_a_misspelt_unused_setting_is_refused():
    from explorer import controls

    with pytest.raises(ValueError, match=r"unknown sidebar settings \['n_max'\]"):
        controls.sidebar(unused=frozenset({"n", "n_max"}))
