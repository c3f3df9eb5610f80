"""The app's configuration state, URL round trip and upload parsing (pure functions)."""

import io

import numpy as np
import pytest

from explorer.state import AppConfig, from_query, to_query, validate
from explorer.upload import parse_matrix


def test_url_round_trip_restores_the_exact_config():
    config = AppConfig(problem="procrustes", n=7, p=3, seed=11, distance=0.37, tangent="relative",
                       beta=0.3, omega=2.5, step="armijo", eta=0.0123, tol=1e-10,
                       max_iter=777, speed="slow")
    restored, warnings = from_query(to_query(config))
    assert restored == config
    assert warnings == []


@pytest.mark.parametrize(
    ("params", "field", "fragment"),
    [
        ({"beta": "abc"}, "beta", "not a number"),
        ({"beta": "0"}, "beta", "outside"),
        ({"beta": "nan"}, "beta", "beta='nan' is not a finite number"),
        ({"n": "nan"}, "n", "n='nan' is not a finite number"),  # names the parameter
        ({"max_iter": "inf"}, "max_iter", "max_iter='inf' is not a finite number"),
        ({"n": "2.5"}, "n", "not an integer"),
        ({"n": "100000"}, "n", "outside"),
        ({"problem": "nope"}, "problem", "not one of"),
        ({"step": "huge"}, "step", "not one of"),
    ],
)
def test_invalid_url_values_warn_and_fall_back_to_the_default(params, field, fragment):
    config, warnings = from_query(params)
    assert getattr(config, field) == getattr(AppConfig(), field)
    assert len(warnings) == 1 and fragment in warnings[0]


def test_unknown_url_parameter_is_ignored_with_a_warning():
    config, warnings = from_query({"colour": "red", "n": "5"})
    assert config.n == 5 and "colour" in warnings[0]


def test_p_larger_than_n_is_fixed_with_a_message():
    config, messages = validate(AppConfig(n=3, p=5))
    assert config.p == 3
    assert "p = 5 > n = 3" in messages[0]


def test_run_key_ignores_only_the_animation_speed():
    assert AppConfig(speed="slow").run_key() == AppConfig(speed="instant").run_key()
    assert AppConfig(beta=0.3).run_key() != AppConfig().run_key()


def test_parse_matrix_reads_csv_and_npy():
    A = np.arange(6.0).reshape(2, 3) / 7
    buf = io.BytesIO()
    np.save(buf, A)
    np.testing.assert_array_equal(parse_matrix("a.npy", buf.getvalue()), A)
    text = "\n".join(",".join(repr(float(v)) for v in row) for row in A).encode()
    np.testing.assert_array_equal(parse_matrix("a.csv", text), A)


@pytest.mark.parametrize(
    ("name", "data", "fragment"),
    [
        ("a.csv", b"1,2\n3,x\n", "'x' in row 2, column 2 is not a number"),
        ("a.csv", b"1,2,3\n4,5\n", "row 2 has 2 values where the rows above have 3"),
        ("a.csv", b"1,nan\n3,4\n", "NaN or infinite"),
        ("a.npy", b"not a numpy file", r"not a \.npy file of numbers \(write one with numpy"),
        ("a.xlsx", b"1,2", "upload a .csv or .npy"),
        ("a.csv", b"\xff\xfe\x00", "not UTF-8 text; save the matrix as comma-separated"),
    ],
)
def test_malformed_uploads_raise_a_clear_value_error(name, data, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_matrix(name, data)


def test_npy_of_wrong_dimension_is_rejected():
    buf = io.BytesIO()
    np.save(buf, np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="2-D matrix"):
        parse_matrix("a.npy", buf.getvalue())


def test_stalled_tells_a_run_cut_short_from_one_going_nowhere():
    from explorer.runner import Trace, stalled
    k = np.arange(200)

    def trace(residual):
        t = Trace(3, 2)
        t.grad_norm, t.infeasibility = list(residual), [0.0] * len(residual)
        return t

    assert not stalled(trace(0.9**k))  # converging, cut at the limit
    assert stalled(trace(1 + 0.1 * np.sin(k)))  # circling
    assert stalled(trace(np.r_[0.9 ** k[:100], 0.9 ** 100 * 1.05 ** k[:100]]))  # drifting away
    assert not stalled(trace(np.ones(10)))  # too short to tell


# ----------------------------------------------------------------------------- one list per name


def test_the_apps_names_are_the_librarys_lists_in_their_order():
    from explorer import compare, controls, state, sweeps
    from landing_core import geometry, problems, steps, sweep

    assert list(state.PROBLEM_LABELS) == list(problems.PROBLEMS)
    assert list(state.TANGENT_LABELS) == list(geometry.TANGENT_TERMS)
    assert list(state.STEP_LABELS) == list(steps.STEP_RULES) == ["safe", "constant", "armijo",
                                                                 "bb"]
    assert state.BOUNDS["problem"] == tuple(problems.PROBLEMS)
    assert state.BOUNDS["tangent"] == tuple(geometry.TANGENT_TERMS)
    assert state.BOUNDS["step"] == tuple(steps.STEP_RULES)
    assert sweeps.SWEEP_STEPS == sweep.BATCH_STEP_RULES == ("safe", "constant")
    assert set(sweep.BATCH_STEP_RULES) <= set(steps.STEP_RULES)
    assert list(compare._STEP_TEXT) == list(steps.STEP_RULES)
    assert list(compare._TANGENT_TEXT) == list(geometry.TANGENT_TERMS)
    # the safe region's epsilon in the sidebar's help is the rule's own
    assert f"ε = {steps.Safe().eps:g} " in controls.STEP_HELP
    assert steps.SAFE_EPS == steps.Safe().eps == steps.BarzilaiBorwein().eps == 0.5


def test_the_sidebars_grids_follow_the_bounds():
    from explorer import controls, state, sweeps

    assert controls.LOG_GRID[0] == state.BOUNDS["beta"][1] == 0.01
    assert controls.LOG_GRID[-1] == state.BOUNDS["beta"][2] == 100.0
    assert len(controls.LOG_GRID) == 41 and controls.LOG_GRID[30] == 10.0
    np.testing.assert_allclose(np.diff(np.log10(controls.LOG_GRID)), 0.1, atol=2e-3)
    tol_grid = controls.TOL_GRID
    assert tol_grid == [10.0**e for e in range(-14, -1)]
    assert sweeps.PARAM_CHOICES[0] == 0.01 and sweeps.PARAM_CHOICES[-1] == 100.0
    assert sweeps.ETA_CHOICES[0] == 1e-4 and sweeps.ETA_CHOICES[-1] == 10.0
    assert sweeps.ETA_CHOICES[:4] == [1e-4, 2e-4, 5e-4, 1e-3]


def test_make_step_rule_builds_each_named_rule_with_its_eta():
    from landing_core import steps

    assert steps.make_step_rule("safe", 0.3) == steps.Safe(eta=0.3)
    assert steps.make_step_rule("constant", 0.3) == steps.Constant(eta=0.3)
    assert steps.make_step_rule("armijo", 0.3) == steps.Armijo(eta0=0.3)
    assert steps.make_step_rule("bb", 0.3) == steps.BarzilaiBorwein()
    assert steps.USES_ETA == {"safe": True, "constant": True, "armijo": True, "bb": False}
    with pytest.raises(ValueError, match="unknown step rule 'fast'; choose one of safe, "
                                         "constant, armijo, bb"):
        steps.make_step_rule("fast", 0.1)


@pytest.mark.parametrize("key", ["method", "tangent", "step"])
def test_a_row_naming_a_list_is_refused_not_raised(key):
    from explorer import compare

    assert compare.check_row({**compare.row("x"), key: ["beta"]}).startswith("unknown ")
