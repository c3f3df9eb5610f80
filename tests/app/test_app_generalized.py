"""The app's views of the generalized Stiefel constraint X^T B X = I, with AppTest."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.helpers import APP, renew_until


def test_theory_page_checks_the_B_formulas_live():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/theory.py").run()
    assert not at.exception
    assert not any("XᵀBX = I" in h.value for h in at.header)  # a part of its own
    at.radio(key="theory_part").set_value("generalized").run()
    assert not at.exception
    assert any("XᵀBX = I" in h.value for h in at.header)
    for label in ("10", "10⁴"):
        at.radio(key="theory_b_cond").set_value(label).run()
        assert not at.exception
        failing = [e.value for e in at.error]
        assert failing == []
        titles = " ".join(s.value for s in at.success)
        for name in ("every tangent term keeps XᵀBX", "Riemannian gradient of $g^{\\beta,B}$",
                     "change of variables", "B-ball safe step"):
            assert name in titles


def _player_data(at: AppTest) -> dict:
    import json

    return json.loads(at.get("component_instance")[0].proto.json_args)["data"]


def test_explorer_runs_on_XtBX_with_the_preset_B_and_draws_ellipses():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(n="2", p="1", constraint="preset", step="bb", max_iter="800")
    at.run()
    assert not at.exception
    assert at.title[0].value == "Landing on XᵀBX = I"
    data = _player_data(at)
    plane = data["header"]["views"][0]
    assert plane["kind"] == "plane"
    B, W = np.array(plane["B"]), np.array(plane["W"])
    np.testing.assert_allclose(W.T @ B @ W, np.eye(2), atol=1e-9)  # W maps circle to ellipse
    assert np.linalg.cond(B) == pytest.approx(25.0, rel=1e-6)
    x = np.array(data["x"][-1]) if data["done"] else np.array(data["x"][0])
    assert x.shape == (2,)
    assert at.query_params["constraint"] == "preset"


def test_the_constraint_choice_changes_the_run_and_returns_to_St():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(n="3", p="1")
    at.run()
    assert "B" not in _player_data(at)["header"]["views"][0]
    at.selectbox(key="w_constraint").set_value("preset").run()
    assert not at.exception
    sphere = _player_data(at)["header"]["views"][0]
    assert sphere["kind"] == "sphere" and len(sphere["W"]) == 3
    at.selectbox(key="w_constraint").set_value("upload").run()  # no B uploaded yet
    assert not at.exception
    assert any("upload a symmetric positive definite B" in i.value for i in at.info)
    assert "B" not in _player_data(at)["header"]["views"][0]


def test_compare_runs_St_and_the_B_constraint_side_by_side():
    from explorer import compare
    from explorer.constraint import preset_B
    from explorer.state import AppConfig

    config = AppConfig(problem="brockett", n=5, p=2, seed=1, distance=0.3, max_iter=3000)
    rows = [compare.Row("St", step="bb", constraint="identity"),
            compare.Row("B", step="bb", constraint="B")]
    runs, f_star = compare.run_rows(config, rows, None)
    assert f_star is None  # the B run's optimum is not St's
    (st_run, b_run) = runs
    assert st_run["status"] == b_run["status"] == "converged"
    B = preset_B(5)
    assert not st_run["B"] and b_run["B"]
    assert b_run["infeasibility"][-1] <= 1e-8 and st_run["infeasibility"][-1] <= 1e-8
    assert compare.summary(runs, None)[1]["constraint"] == "XᵀBX = I"
    assert np.linalg.cond(B) == pytest.approx(25.0)
    alone, f_alone = compare.run_rows(config, rows[:1], None)
    assert f_alone is not None and abs(alone[0]["cost"][-1] - f_alone) <= 1e-8


def test_old_compare_links_without_a_constraint_still_load():
    from explorer import compare

    old = '[["β = 1","landing","beta",1.0,1.0,"safe",0.1]]'
    rows, warnings = compare.rows_from_query(old)
    assert warnings == [] and rows[0].constraint == "sidebar"
    bad, warnings = compare.rows_from_query('[["x","landing","beta",1,1,"safe",0.1,"oval"]]')
    assert bad == [] and "unknown constraint 'oval'" in warnings[0]


def test_the_sweep_page_runs_on_XtBX_when_the_sidebar_says_so():
    from explorer import sweeps
    from explorer.constraint import preset_B
    from explorer.state import AppConfig

    config = AppConfig(problem="brockett", constraint="preset", n=4, p=2, max_iter=400)
    spec = sweeps.make_spec(config, plane="beta", step="safe", param_range=(0.3, 3.0),
                            eta_range=(0.05, 0.2), size=3)
    assert spec.base.constraint == "preset"
    outcome = sweeps.run_sweep(spec, None, None, preset_B(4))
    assert "converged" in set(outcome.result.status)
    assert np.all(outcome.result.final_infeasibility[outcome.result.status == "converged"]
                  <= 1e-8)
    plain = sweeps.run_sweep(spec)  # the same grid on XᵀX = I lands elsewhere
    assert not np.allclose(plain.result.final_cost, outcome.result.final_cost)
    assert sweeps.heatmaps(spec, outcome)["infeasibility"].layout.title.text.startswith(
        "Final ‖XᵀBX − I‖")
    plain_spec = sweeps.make_spec(AppConfig(n=4, p=2), size=3)
    assert sweeps.heatmaps(plain_spec, plain)["infeasibility"].layout.title.text.startswith(
        "Final ‖XᵀX − I‖")


def test_the_comparison_figure_names_each_constraint():
    from explorer import figures

    run = dict(label="a", cost=np.ones(3), infeasibility=np.ones(3), grad_norm=np.ones(3),
               time=np.arange(3.0))
    titles = [[a.text for a in figures.comparison_figure(runs).layout.annotations][1]
              for runs in ([run], [run | {"B": True}], [run, run | {"B": True}])]
    assert titles == ["‖XₖᵀXₖ − I‖<sub>F</sub>", "‖XₖᵀBXₖ − I‖<sub>F</sub>",
                      "‖XₖᵀXₖ − I‖ or ‖XₖᵀBXₖ − I‖"]


def test_an_uploaded_B_is_checked_and_used():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(n="2", p="1", constraint="upload")
    at.run()
    assert "B" not in _player_data(at)["header"]["views"][0]  # none yet: XᵀX = I
    at.file_uploader(key="w_upload_B").set_value(("B.csv", b"1,2\n2,1\n", "b1")).run()
    assert not at.exception
    assert any("B rejected" in w.value and "positive definite" in w.value for w in at.warning)
    assert "B" not in _player_data(at)["header"]["views"][0]
    at.file_uploader(key="w_upload_B").set_value(("B.csv", b"4,1\n1,1\n", "b2")).run()
    assert not at.exception
    plane = _player_data(at)["header"]["views"][0]
    np.testing.assert_allclose(plane["B"], [[4.0, 1.0], [1.0, 1.0]])
    assert at.title[0].value == "Landing on XᵀBX = I"


def _pencil_optimum(A: np.ndarray, B: np.ndarray | None, p: int) -> float:
    """The sum of the p smallest eigenvalues of (A, B), scipy's eigh (B None: of A alone)."""
    import scipy.linalg

    return float(np.sum(scipy.linalg.eigh(A, B, eigvals_only=True)[:p]))


@pytest.mark.parametrize("constraint, n, p", [("preset", 2, 1), ("identity", 3, 2),
                                              ("preset", 3, 2)])
def test_the_eigenproblem_takes_the_constraints_B_and_shows_its_gap(constraint, n, p):
    from explorer.constraint import preset_B
    from landing_core.problems import generalized_eigen

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(problem="generalized_eigen", constraint=constraint, n=str(n),
                           p=str(p), step="bb", max_iter="800")
    at.run()
    assert not at.exception
    assert at.selectbox(key="w_problem").value == "generalized_eigen"
    assert at.query_params["problem"] == "generalized_eigen"  # the link keeps it
    assert at.query_params["constraint"] == constraint
    A = generalized_eigen(n, p, 0, B=np.eye(n)).A  # the seed's A
    B = preset_B(n) if constraint == "preset" else None
    data = _player_data(at)
    if not data["done"]:  # the first render shows what 0.25 s computed: a loaded CI's was not all
        run = at.session_state["live_run"]
        renew_until(run, run.done)
        at.run()
        data = _player_data(at)
    f_star = data["header"]["f_star"]
    assert f_star == pytest.approx(_pencil_optimum(A, B, p), abs=1e-12)
    assert data["done"] and abs(data["cost"][-1] - f_star) <= 1e-8  # the gap curve reaches 0
    assert data["header"]["B"] == (B is not None)
    assert ("XᵀBX = I" in at.title[0].value) == (B is not None)


def test_the_eigenproblem_round_trips_through_the_url():
    from explorer.state import AppConfig, from_query, to_query

    config = AppConfig(problem="generalized_eigen", constraint="preset", n=7, p=3, seed=4)
    assert from_query(to_query(config)) == (config, [])


def test_the_eigenproblem_on_St_is_brocketts_with_N_I_and_compares_with_each_B():
    from explorer import compare
    from explorer.constraint import preset_B
    from explorer.runner import build_problem
    from explorer.state import AppConfig

    config = AppConfig(problem="generalized_eigen", n=5, p=2, seed=1, distance=0.3,
                       tol=1e-10, max_iter=3000)
    plain = build_problem(config)
    assert plain.B is None  # XᵀX = I: the plain landing, f* from eigh(A)
    assert plain.f_star == pytest.approx(_pencil_optimum(plain.A, None, 2), abs=1e-12)
    rows = [compare.Row("St", step="bb", constraint="identity"),
            compare.Row("B", step="bb", constraint="B")]
    runs, f_star = compare.run_rows(config, rows, None)
    assert f_star == pytest.approx(plain.f_star, abs=1e-12)  # every row knows its own f*
    st_run, b_run = runs
    assert st_run["f_star"] == pytest.approx(plain.f_star, abs=1e-12)
    assert b_run["f_star"] == pytest.approx(_pencil_optimum(plain.A, preset_B(5), 2),
                                            abs=1e-12)
    for run in runs:
        assert run["status"] == "converged" and abs(run["cost"][-1] - run["f_star"]) <= 1e-8
    gaps = [row["final f − f*"] for row in compare.summary(runs, f_star)]
    assert all(abs(g) <= 1e-8 for g in gaps)


def test_an_uploaded_A_defines_the_eigenproblem():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(problem="generalized_eigen", constraint="preset", n="2", p="1",
                           step="bb", max_iter="800")
    at.run()
    at.file_uploader(key="w_upload_0").set_value(("A.csv", b"2,1\n1,3\n", "a1")).run()
    assert not at.exception
    from explorer.constraint import preset_B

    f_star = _player_data(at)["header"]["f_star"]
    assert f_star == pytest.approx(_pencil_optimum(np.array([[2.0, 1.0], [1.0, 3.0]]),
                                                   preset_B(2), 1), abs=1e-12)


@pytest.mark.parametrize("page", ["pages/compare.py", "pages/sweep.py"])
def test_the_other_pages_run_the_eigenproblem_on_the_preset_B(page):
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(problem="generalized_eigen", n="4", p="2", constraint="preset",
                           max_iter="200")
    at.run()
    at.switch_page(page).run()
    assert not at.exception and not at.error
    assert at.session_state.config.problem == "generalized_eigen"


def test_the_infeasibility_is_named_for_the_constraint_in_messages_and_the_summary():
    """On XᵀBX = I the divergence message, the stall hint and the Compare summary's header
    name ‖XᵀBX − I‖ (on XᵀX = I, ‖XᵀX − I‖)."""
    from explorer import compare, runner
    from explorer.constraint import preset_B, with_constraint
    from explorer.state import AppConfig
    from landing_core.problems import initial_point, make_problem
    from landing_core.solvers import Config, solve

    plain = make_problem("brockett", 6, 2, 0)
    on_B = with_constraint(plain, preset_B(6))
    diverged = solve(on_B, initial_point(6, 2, 0.3, 0, B=on_B.B), Config(step=3.0),
                     max_iter=200)
    assert diverged.status == "diverged" and "‖XᵀBX − I‖ = " in diverged.message
    on_St = solve(plain, initial_point(6, 2, 0.3, 0), Config(step=3.0), max_iter=200)
    assert on_St.status == "diverged" and "‖XᵀX − I‖ = " in on_St.message

    def stalled(h: float, B: np.ndarray | None) -> runner.Trace:  # the same numbers for 40 steps
        return runner.Trace(3, 2, B=B, status="max_iter", infeasibility=[h] * 40,
                            grad_norm=[1.0] * 40, step=[np.nan] + [0.1] * 39)

    config = AppConfig(step="safe", eta=0.1)
    for B, name in ((None, "‖XᵀX − I‖"), (2.0 * np.eye(3), "‖XᵀBX − I‖")):
        outside = runner.limit_hint(stalled(0.8, B), config)
        inside = runner.limit_hint(stalled(0.1, B), config)
        assert f"outside the safe region ({name} = 0.8 > ε = 0.5)" in outside
        assert f"lets {name} only shrink" in outside
        assert f"only guards feasibility ({name} stays below ε" in inside

    rows = [compare.Row("St", constraint="identity"), compare.Row("B", constraint="B")]
    header = {k for k in compare.summary(compare.run_rows(
        AppConfig(n=3, p=2, max_iter=30), rows, None)[0], None)[0] if k.startswith("final ‖")}
    assert header == {"final ‖h‖"}  # each row's: ‖XᵀX − I‖ or ‖XᵀBX − I‖, as its constraint
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(constraint="preset", n="3", p="2", max_iter="100")
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    columns = list(at.dataframe[-1].value.columns)
    assert "final ‖XᵀBX − I‖" in columns and "final ‖XᵀX − I‖" not in columns
