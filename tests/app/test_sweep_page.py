"""The Sweep page: heatmap builders on their data, the page's sweep against single runs, and the
page driven with AppTest (heatmaps drawn, a cell opened in the explorer, failures reported)."""

from __future__ import annotations

import base64
import json
from dataclasses import replace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer import figures, text
from explorer import sweeps as page
from explorer.state import AppConfig
from explorer.style import SUPERSCRIPTS
from landing_core import initial_point, landing
from landing_core import sweep as batch
from landing_core.run import Status
from landing_core.steps import Safe
from tests.app.helpers import greyed, open_app, visit
from tests.app.test_fuzz import HOSTILE, check_page

CONFIG = AppConfig()  # brockett on St(3, 2), X₀ at distance 0.4, 500 iterations


def _decode(value: object) -> np.ndarray:
    """A plotly array from JSON: a list, or numpy's base64 {"dtype", "bdata", "shape"}."""
    if isinstance(value, dict):
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = [int(s) for s in shape.split(",")]
        return data.reshape(shape) if shape else data
    return np.array(value, dtype=float)


@pytest.fixture(scope="module")
def constant_sweep() -> tuple[page.SweepSpec, page.SweepOutcome]:
    """A 7 x 7 constant-step sweep with converged, max_iter and diverged cells."""
    spec = page.make_spec(CONFIG, plane="beta", step="constant", param_range=(0.1, 10.0),
                          eta_range=(0.02, 2.0), size=7)
    return spec, page.run_sweep(spec)


def test_the_sweep_has_every_outcome(constant_sweep):
    spec, outcome = constant_sweep
    assert outcome.result.shape == (7, 1, 7, 1)
    assert set(outcome.result.status) == {"converged", "max_iter", "diverged"}
    assert outcome.f_star is not None and outcome.seconds > 0  # its time is reported


def test_heatmap_z_is_the_sweep_result_reshaped(constant_sweep):
    spec, outcome = constant_sweep
    res = outcome.result
    figs = page.heatmaps(spec, outcome)
    diverged = res.status.reshape(7, 7) == "diverged"
    expected = {
        "iterations": res.iterations.reshape(7, 7).astype(float),
        "gap": np.log10(np.maximum(np.abs(res.final_cost - outcome.f_star), figures.LOG_FLOOR))
        .reshape(7, 7),
        "infeasibility": np.log10(np.maximum(res.final_infeasibility, figures.LOG_FLOOR))
        .reshape(7, 7),
    }
    params, etas = spec.axes()
    for name, fig in figs.items():
        heat = fig.data[0]
        z = np.asarray(heat.z, dtype=float)
        np.testing.assert_array_equal(z[~diverged], expected[name][~diverged])
        assert np.all(np.isnan(z[diverged])), name
        # the edges are the geometric midpoints: each centre lies in its own cell
        assert len(heat.x) == len(etas) + 1 and len(heat.y) == len(params) + 1
        assert np.all((heat.x[:-1] < etas) & (etas < heat.x[1:]))
        assert np.all((heat.y[:-1] < params) & (params < heat.y[1:]))
        assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    # the infeasibility named as in the title and the chosen cell's text, not "‖h‖"
    assert figs["infeasibility"].data[0].colorbar.title.text == "‖XᵀX − I‖" == spec.infeasibility


def test_diverged_cells_are_marked_exactly(constant_sweep):
    spec, outcome = constant_sweep
    params, etas = spec.axes()
    fig = page.heatmaps(spec, outcome)["iterations"]
    marks = next(t for t in fig.data if t.name.startswith("diverged"))
    got = set(zip(np.asarray(marks.x), np.asarray(marks.y), strict=True))
    rows, cols = np.nonzero(outcome.result.status.reshape(7, 7) == "diverged")
    assert got == {(etas[j], params[i]) for i, j in zip(rows, cols, strict=True)}
    assert marks.marker.symbol == "x-thin"


def test_no_diverged_marks_without_diverged_cells():
    z = np.arange(6.0).reshape(2, 3)
    status = np.full((2, 3), "converged", dtype=object)
    fig = figures.sweep_heatmap([0.1, 0.2, 0.4], [1.0, 2.0], z, status,
                                np.full((2, 3), "t", dtype=object), param_label="β",
                                title="t", colour_title="c", selected=(1, 2))
    assert [t.name for t in fig.data[1:]] == ["cells", "chosen cell"]
    np.testing.assert_array_equal(fig.data[0].z, z)
    chosen = fig.data[2]
    assert (chosen.x[0], chosen.y[0]) == (0.4, 2.0)


def test_hover_text_holds_the_numbers(constant_sweep):
    spec, outcome = constant_sweep
    res = outcome.result
    cells = page.heatmaps(spec, outcome)["gap"].data[1]
    assert cells.name == "cells" and len(cells.hovertext) == 49
    for k in (0, 17, 48):
        text = cells.hovertext[k]
        assert (cells.x[k], cells.y[k]) == (res.params["eta"][k], res.params["beta"][k])
        for part in (f"β = {res.params['beta'][k]:.4g}", f"ω = {res.params['omega'][k]:.4g}",
                     f"η = {res.params['eta'][k]:.4g}", f"iterations: {res.iterations[k]}",
                     f"status: {res.status[k]}",
                     f"f − f* = {res.final_cost[k] - outcome.f_star:.3e}",
                     f"‖h‖ = {res.final_infeasibility[k]:.3e}"):
            assert part in text, (k, part, text)


def test_the_chosen_cells_text_says_why_f_can_be_below_f_star(constant_sweep):
    spec, outcome = constant_sweep
    res = outcome.result
    row, col = np.argwhere(outcome.grid(outcome.gap) > 0)[0]
    above, note = page.cell_summary(outcome, "‖XᵀX − I‖", row, col)
    gap = outcome.grid(outcome.gap)[row, col]
    assert f"f − f* = {gap:.3e} · ‖XᵀX − I‖ = " in above and note == ""
    status, k = outcome.grid(res.status)[row, col], outcome.grid(res.iterations)[row, col]
    assert above.startswith(f"**stopped at the iteration limit** of **{k}**  \n"
                            if status == "max_iter" else
                            f"**{page.STATUS_LABELS[status]}** after **{k}** iterations  \n")
    # both forms, whichever the cell above is
    done = np.argwhere(outcome.grid(res.status) == "converged")[0]
    assert page.cell_summary(outcome, "‖h‖", *done)[0].startswith(
        f"**converged** after **{outcome.grid(res.iterations)[tuple(done)]}** iterations")
    limit = np.argwhere(outcome.grid(res.status) == "max_iter")[0]
    assert page.cell_summary(outcome, "‖h‖", *limit)[0].startswith(
        f"**stopped at the iteration limit** of **{outcome.grid(res.iterations)[tuple(limit)]}**")
    # the same cell under an f* 1 higher: f ends 1 below it
    shifted = replace(outcome, result=replace(res, f_star=res.f_star + 1.0))
    below, note = page.cell_summary(shifted, "‖XᵀX − I‖", row, col)
    assert f"f − f* = {gap - 1.0:.3e} · ‖XᵀX − I‖ = " in below
    h = outcome.grid(res.final_infeasibility)[row, col]
    assert note == (f"f ends below f*: the iterate is off the manifold (‖XᵀX − I‖ = {h:.1e}), "
                    "where f can go below its minimum on it. The heatmap colours |f − f*|.")
    # f* raised by 50 units of rounding in |f*|: f is below it by no more than its rounding
    eps50 = 50 * np.finfo(float).eps * abs(outcome.f_star)
    near = replace(outcome, result=replace(res, f_star=res.final_cost + eps50),
                   f_star=outcome.f_star)
    _, note = page.cell_summary(near, "‖XᵀX − I‖", row, col)
    assert note == ("f ends below f* by less than f's rounding (100 ε |f*|). The heatmap "
                    "colours |f − f*|.")
    unknown, note = page.cell_summary(replace(outcome, f_star=None), "‖h‖", row, col)
    assert f"f = {outcome.grid(res.final_cost)[row, col]:.3e} · ‖h‖ = " in unknown
    assert note == ""


def test_log_colour_bar_is_ticked_in_powers_of_ten():
    z = np.array([[1e-12, 1e-3], [0.5, 0.0]])
    fig = figures.sweep_heatmap([0.1, 1.0], [1.0, 10.0], z, np.full((2, 2), "converged"),
                                np.full((2, 2), "", dtype=object), param_label="ω",
                                title="t", colour_title="|f − f*|", log_colour=True)
    bar = fig.data[0].colorbar
    assert np.asarray(fig.data[0].z)[1, 1] == np.log10(figures.LOG_FLOOR)  # zero at the floor
    assert bar.ticktext[-1] == "1" and bar.tickvals[0] >= -16 and len(bar.tickvals) <= 9
    assert bar.ticktext[-2] == "10" + str(int(bar.tickvals[-2])).translate(SUPERSCRIPTS)
    assert list(bar.tickvals) == sorted(bar.tickvals)
    # the colours span whole decades from the lowest value's to the highest's, so that the
    # top tick ("1", above 0.5) is shown: plotly hides the ticks outside the colours' range
    assert (fig.data[0].zmin, fig.data[0].zmax) == (np.log10(figures.LOG_FLOOR), 0.0)
    assert bar.tickvals[-1] == fig.data[0].zmax


@pytest.mark.parametrize("step", ["constant", "safe"])
def test_page_sweep_cells_match_single_runs(constant_sweep, step):
    spec = replace(constant_sweep[0], step=step)
    res = page.run_sweep(spec).result if step == "safe" else constant_sweep[1].result
    X0 = initial_point(CONFIG.n, CONFIG.p, CONFIG.distance, CONFIG.seed)
    problem = page.runner.build_problem(spec.base)
    picks = {s: np.flatnonzero(res.status == s)[:2] for s in set(res.status)}
    assert step == "safe" or len(picks) == 3
    for i in np.concatenate(list(picks.values())):
        eta = float(res.params["eta"][i])
        single = landing(problem, X0, beta=float(res.params["beta"][i]),
                         omega=float(res.params["omega"][i]), tangent=CONFIG.tangent,
                         step=eta if step == "constant" else Safe(eta), tol=CONFIG.tol,
                         max_iter=CONFIG.max_iter)
        assert (res.status[i], res.iterations[i]) == (single.status, single.iterations), i
        assert abs(res.final_cost[i] - single.cost[-1]) <= 1e-10 * max(1, abs(single.cost[-1]))


def test_cell_config_and_click_snapping(constant_sweep):
    spec = constant_sweep[0]
    params, etas = spec.axes()
    assert len(params) == 7 and params[0] == 0.1 and params[-1] == 10.0
    cell = spec.cell_config(replace(CONFIG, step="armijo", omega=2.0), 3, 5)
    assert (cell.beta, cell.eta, cell.omega, cell.step) == (params[3], etas[5], 2.0, "constant")
    assert page.nearest_index(etas, etas[4] * 1.05) == 4
    assert page.nearest_index(params, params[-1] * 3) == 6


def test_the_cache_key_ignores_what_the_sweep_does_not_read():
    a = page.make_spec(CONFIG, plane="beta")
    b = page.make_spec(replace(CONFIG, beta=4.0, eta=0.3, step="bb", speed="slow"), plane="beta")
    c = page.make_spec(replace(CONFIG, omega=4.0), plane="beta")
    assert a == b and a != c
    assert page.make_spec(replace(CONFIG, beta=4.0), plane="omega").base.beta == 4.0


# ----------------------------------------------------------------------------- AppTest


def _sweep_page(query: dict[str, str] | None = None) -> AppTest:
    return visit(open_app(query), "pages/sweep.py")


def _charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_page_draws_the_three_heatmaps_of_its_sweep():
    at = _sweep_page({"distance": "0.3"})
    at.slider(key="sw_size").set_value(8)
    at.radio(key="sw_step").set_value("constant").run()
    assert not at.exception
    config = at.session_state.config
    spec = page.make_spec(config, plane="beta", step="constant", param_range=(0.01, 100.0),
                          eta_range=(0.01, 10.0), size=8)
    res = page.run_sweep(spec).result
    charts = _charts(at)
    assert len(charts) == 3
    z = _decode(charts[0]["data"][0]["z"])
    diverged = res.status.reshape(8, 8) == "diverged"
    assert diverged.any() and not diverged.all()
    np.testing.assert_array_equal(z[~diverged], res.iterations.reshape(8, 8)[~diverged])
    assert np.all(np.isnan(z[diverged]))
    assert config.distance == 0.3 and "64 runs (8 × 8)" in at.caption[0].value


def test_choosing_a_cell_opens_it_in_the_explorer():
    at = _sweep_page()
    at.slider(key="sw_size").set_value(10)
    at.radio(key="sw_plane").set_value("omega").run()
    at.selectbox(key="sw_row").set_value(2)
    at.selectbox(key="sw_col").set_value(7).run()
    spec = page.make_spec(at.session_state.config, plane="omega", step="safe", size=10)
    params, etas = spec.axes()
    next(b for b in at.button if b.label == "Open in explorer").click().run()
    assert not at.exception
    config = at.session_state.config
    assert (config.omega, config.eta, config.step) == (params[2], etas[7], "safe")
    assert config.beta == AppConfig().beta
    assert at.title[0].value == "Landing on St(n, p)"  # the explorer
    at.switch_page("pages/sweep.py").run()  # the page's settings survive the round trip
    assert at.slider(key="sw_size").value == 10 and at.radio(key="sw_plane").value == "omega"
    assert (at.selectbox(key="sw_row").value, at.selectbox(key="sw_col").value) == (2, 7)


def test_the_sidebar_greys_out_the_swept_parameter_and_step():
    """The page sweeps eta and its plane's parameter with a step rule of its own: those
    sidebar settings are greyed out, the parameter following the plane from the first draw,
    for a link's plane too."""
    at = _sweep_page()
    assert greyed(at) == {"w_step", "w_eta", "w_beta", "w_speed", "w_scrub"}
    at.radio(key="sw_plane").set_value("omega").run()
    assert greyed(at) == {"w_step", "w_eta", "w_omega", "w_speed", "w_scrub"}
    linked = open_app({"sweep": "plane=omega,size=5"}, page="pages/sweep.py")
    assert greyed(linked) == {"w_step", "w_eta", "w_omega", "w_speed", "w_scrub"}
    assert any("Greyed out" in c.value for c in linked.sidebar.caption)


def test_a_safe_step_cell_at_the_iteration_limit_says_why(monkeypatch):
    """Every cell right of eta ~ 0.3 reaches the iteration limit with the safe step (its cap
    is then irrelevant: the steps are the safe region's); the chosen cell's run says why, in
    the explorer's words, and what cap would do; a converged cell, and a constant step,
    say nothing of the kind.

    These runs circle chaotically: whether one counts as stalled (``runner.stalled``: no
    progress in its last quarter) depends on its rounding, so on the BLAS kernel (under
    Prescott the cell beta = 0.452 did not, its neighbours did). The test takes a cell whose
    own run stalls under this kernel and checks the page says what that run says."""
    from explorer import runner

    at = _sweep_page()
    config = at.session_state.config
    spec = page.make_spec(config, plane="beta", step="safe")
    params, etas = spec.axes()
    status = page.run_sweep(spec).result.status.reshape(len(params), len(etas))
    for row in range(len(params)):
        new = spec.cell_config(config, row, 20)  # eta = 1.17
        trace = runner.run_to_end(*runner.start(new, runner.build_problem(new), views=False),
                                  new)
        hint = runner.limit_hint(trace, new).strip()
        if status[row, 20] == Status.MAX_ITER and "region's edge" in hint:
            break
    else:
        pytest.fail("no cell at eta = 1.17 circles at the safe region's edge")
    at.selectbox(key="sw_row").set_value(row)
    at.selectbox(key="sw_col").set_value(20).run()
    assert not at.exception and etas[20] > 1.0
    assert any("stopped at the iteration limit" in m.value for m in at.markdown)
    why = [c.value for c in at.caption if "only guards feasibility" in c.value]
    assert why == [hint], (why, hint)
    cap = float(why[0].split("Lower the cap η below ")[1].split(",")[0])
    assert 0 < cap < etas[20] / 2  # the steps it took, trimmed well below the cap
    converged = np.argwhere(status == Status.CONVERGED)
    assert len(converged)
    at.selectbox(key="sw_row").set_value(int(converged[0][0]))
    at.selectbox(key="sw_col").set_value(int(converged[0][1])).run()
    assert any("**converged**" in m.value for m in at.markdown)
    assert not any("only guards feasibility" in c.value for c in at.caption)
    at.radio(key="sw_step").set_value("constant").run()
    # a constant step's stall has no words of the kind: its run is not computed
    runs = []
    monkeypatch.setattr(runner, "start", lambda *a: runs.append(a))
    constant = page.make_spec(at.session_state.config, plane="beta", step="constant")
    stalled = np.argwhere(page.run_sweep(constant).result.status.reshape(30, 30)
                          == Status.MAX_ITER)
    row, col = stalled[len(stalled) // 2]
    at.selectbox(key="sw_row").set_value(int(row))
    at.selectbox(key="sw_col").set_value(int(col)).run()
    assert not at.exception
    assert any("stopped at the iteration limit" in m.value for m in at.markdown)
    assert runs == []
    assert not any("only guards feasibility" in c.value for c in at.caption)


def test_armijo_in_the_sidebar_is_explained():
    at = _sweep_page({"step": "armijo"})
    assert any("safe or constant step only" in i.value for i in at.info)
    assert at.radio(key="sw_step").value == "safe"


def test_a_rank_deficient_batch_is_reported_not_raised(monkeypatch):
    def fail(*args, **kwargs):
        raise np.linalg.LinAlgError("X^T X is singular")

    monkeypatch.setattr(batch, "run_batch", fail)
    at = _sweep_page({"seed": "4242"})  # a configuration no other test has cached
    assert at.error and "linear-algebra failure" in at.error[0].value
    assert not at.get("plotly_chart")


def test_unknown_optimum_colours_f_itself():
    config = AppConfig(problem="procrustes", n=4, p=2)  # p < n: no closed-form f*
    spec = page.make_spec(config, plane="omega", size=5)
    outcome = page.run_sweep(spec)
    assert outcome.f_star is None
    fig = page.heatmaps(spec, outcome)["gap"]
    ok = outcome.result.status.reshape(5, 5) != "diverged"
    np.testing.assert_array_equal(np.asarray(fig.data[0].z)[ok],
                                  outcome.result.final_cost.reshape(5, 5)[ok])
    assert fig.layout.title.text == "Final f" and "f = " in fig.data[1].hovertext[0]


def test_heatmap_axes_label_decades_only_over_two_decades_or_more():
    def axes(eta, param):
        z = np.ones((len(param), len(eta)))
        fig = figures.sweep_heatmap(eta, param, z, np.full(z.shape, "converged"),
                                    np.full(z.shape, ""), param_label="β", title="t",
                                    colour_title="c")
        return fig.layout.xaxis.dtick, fig.layout.yaxis.dtick

    assert axes(np.geomspace(0.01, 10, 5), np.geomspace(0.01, 100, 5)) == (1, 1)
    assert axes(np.geomspace(0.05, 0.1, 5), np.geomspace(0.3, 1, 5)) == (None, None)


# ----------------------------------------------------------------------------- the URL


def test_the_settings_round_trip_through_the_url_value():
    spec = page.make_spec(CONFIG, plane="omega", step="constant", param_range=(0.2, 50.0),
                          eta_range=(0.0001, 2.0), size=13)
    value = page.to_query(spec, (4, 11))
    assert value == "plane=omega,step=constant,size=13,range=0.2:50,eta=0.0001:2,cell=1.26:0.876"
    settings, warnings = page.from_query(value)
    assert warnings == []
    assert settings == {"plane": "omega", "step": "constant", "size": 13,
                        "param_range": (0.2, 50.0), "eta_range": (0.0001, 2.0),
                        "cell": (1.26, 0.876)}
    assert page.cell_of(spec, settings["cell"]) == ((4, 11), [])


def test_a_bad_url_value_warns_in_the_sidebars_words_and_keeps_the_rest():
    settings, warnings = page.from_query("step=fast,size=99,range=0:1,eta=abc,plane=omega")
    assert settings == {"plane": "omega"}
    assert warnings[:3] == [
        "URL parameter sweep: step='fast' is not one of safe, constant; using the default "
        "'safe'.",
        "URL parameter sweep: size='99' is outside [5, 40]; using the default 30.",
        "URL parameter sweep: range: omega='0' is outside [0.01, 100]; using the default "
        "0.01:100."]
    assert warnings[3].startswith("URL parameter sweep: eta='abc'")  # six named, then counted
    flood = ",".join(f"bogus{k}=1" for k in range(10))
    assert page.from_query(flood)[1][6:] == ["URL parameter sweep: 4 more invalid settings "
                                             "ignored."]
    settings, warnings = page.from_query("range=100:0.3,eta=0.5:0.5")
    assert settings == {"param_range": (0.2, 100.0)}
    assert warnings == [
        "URL parameter sweep: range: 0.3 is not a stop of the slider (1, 2, 5 a decade): "
        "using 0.2.",
        "URL parameter sweep: range runs from low to high: 0.2:100.",
        "URL parameter sweep: eta='0.5:0.5' is empty (its ends are equal); using the default "
        "0.01:10."]


def test_a_link_restores_the_sweep_and_its_chosen_cell():
    at = _sweep_page({"distance": "0.3"})
    at.slider(key="sw_size").set_value(8)
    at.radio(key="sw_plane").set_value("omega")
    at.select_slider(key="sw_eta_range").set_value((0.001, 1.0)).run()
    at.selectbox(key="sw_row").set_value(2)
    at.selectbox(key="sw_col").set_value(5).run()
    assert not at.exception
    link = dict(at.query_params.items())
    assert link["sweep"] == ("plane=omega,step=safe,size=8,range=0.01:100,eta=0.001:1,"
                             "cell=0.139:0.139")
    assert link["distance"] == "0.3"  # the sidebar's configuration beside it
    charts = _charts(at)

    shared = open_app(link, page="pages/sweep.py")  # the link, opened in a new session
    assert not shared.warning
    assert shared.radio(key="sw_plane").value == "omega"
    assert shared.slider(key="sw_size").value == 8
    assert tuple(shared.select_slider(key="sw_eta_range").value) == (0.001, 1.0)
    assert (shared.selectbox(key="sw_row").value, shared.selectbox(key="sw_col").value) == (2, 5)
    assert _charts(shared) == charts  # the same heatmaps, the same cell marked
    assert shared.query_params["sweep"] == link["sweep"]


def test_a_bad_link_is_reported_and_its_valid_rest_kept():
    at = open_app({"sweep": "plane=omega,size=6,range=100:0.3,cell=7:0.05,bogus=1"},
                  page="pages/sweep.py")
    warnings = [text.unescape(w.value) for w in at.warning]
    assert warnings == ["This link's settings were corrected:\n" + "\n".join(f"- {w}" for w in [
        "URL parameter sweep: unknown setting 'bogus' ignored.",
        "URL parameter sweep: range: 0.3 is not a stop of the slider (1, 2, 5 a decade): "
        "using 0.2.",
        "URL parameter sweep: range runs from low to high: 0.2:100.",
        "URL parameter sweep: the cell ω = 7, η = 0.05 is not on the grid: using the nearest, "
        "ω = 8.33, η = 0.0398."])]  # one box: four pushed the heatmaps down
    assert at.radio(key="sw_plane").value == "omega" and at.slider(key="sw_size").value == 6
    assert tuple(at.select_slider(key="sw_param_range").value) == (0.2, 100.0)
    assert at.query_params["sweep"] == ("plane=omega,step=safe,size=6,range=0.2:100,"
                                        "eta=0.01:10,cell=8.33:0.0398")
    assert not any("Unknown URL parameter" in w for w in warnings)


@pytest.mark.parametrize("payload", [HOSTILE[0], HOSTILE[3], ",".join(["bogus=1"] * 500)])
def test_hostile_sweep_links_are_shown_as_text(payload, monkeypatch):
    at = open_app({"sweep": f"size=6,plane={payload},{payload}=3,cell={payload}"},
                  page="pages/sweep.py")
    # the heatmaps hold none of the link's text; their traces' names are the page's own HTML
    # (‖h‖<sub>F</sub>), which check_page refuses in any chart
    monkeypatch.setattr(at, "get", lambda kind: [] if kind == "plotly_chart"
                        else AppTest.get(at, kind))
    check_page(at)
    assert at.slider(key="sw_size").value == 6  # the valid rest is kept
    assert len(at.warning) <= 4


def test_a_lecture_folds_the_sweeps_settings_and_keeps_them():
    """On a projector the heatmaps began 460 px down, under the description and the settings:
    a lecture folds both into "Settings", with the values as they were."""
    link = {"sweep": "plane=omega,step=safe,size=6,range=0.2:100,eta=0.01:10", "lecture": "1"}
    at = open_app(link, page="pages/sweep.py")
    (box,) = [e for e in at.expander if e.label == "Settings"]
    assert box.radio(key="sw_plane").value == "omega" and box.slider(key="sw_size").value == 6
    assert "Every cell is one landing run" in box.markdown[0].value
    plain = open_app({"sweep": link["sweep"]}, page="pages/sweep.py")
    assert [e for e in plain.expander if e.label == "Settings"] == []
    cells = [[[d.get("z") for d in c["data"]] for c in _charts(page)] for page in (at, plain)]
    assert cells[0] == cells[1]  # the same sweep, only its type larger
    # why every row is the same run stays in view, outside the folded box
    at = open_app({"sweep": "plane=beta,size=6", "tangent": "euclidean", "lecture": "1"},
                  page="pages/sweep.py")
    (box,) = [e for e in at.expander if e.label == "Settings"]
    assert any("β has no effect" in i.value for i in at.info)
    assert not any("β has no effect" in i.value for i in box.info)


def test_a_safe_sweep_with_runs_at_the_limit_says_why():
    """The default β × η sweep: its large-η runs reach the iteration limit though the rule is
    "safe"; where some do at η >= 1/(2ω), the summary says what the safe step guards and
    that steps stop growing there. Checked here: at ω = 1 the safe rule's runs from η = 0.35
    on reach the limit, and every η above 0.5 runs the same steps as 0.5."""
    from explorer import runner

    config = AppConfig()
    problem = runner.build_problem(config)
    X0 = runner.initial(config, problem)
    runs = {eta: landing(problem, X0, beta=0.5, step=Safe(eta=eta), max_iter=500)
            for eta in (0.3, 0.35, 0.5, 2.0)}
    assert runs[0.3].status == Status.CONVERGED
    assert all(runs[eta].status == Status.MAX_ITER for eta in (0.35, 0.5, 2.0))
    np.testing.assert_array_equal(runs[2.0].step, runs[0.5].step)
    at = open_app({"sweep": "plane=beta,step=safe,size=6,range=0.1:10,eta=0.1:2"},
                  page="pages/sweep.py")
    assert page.SAFE_LIMIT_NOTE in at.caption[0].value
    at = open_app({"sweep": "plane=beta,step=safe,size=6,range=0.1:10,eta=0.01:0.1"},
                  page="pages/sweep.py")
    # runs at the limit there are slow ones (large β), not capped ones: no such note
    assert "reached 500 iterations" in at.caption[0].value
    assert page.SAFE_LIMIT_NOTE not in at.caption[0].value
