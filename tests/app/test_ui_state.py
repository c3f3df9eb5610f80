"""The app's configuration state, URL round trip and upload parsing (pure functions)."""

import io
import pickle
import re
import warnings
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.lib import format as npy_format

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
    flood = {f"x{i}": "1" for i in range(1000)}
    config, warnings = from_query(flood | {"seed": "9"})
    assert config.seed == 9
    assert warnings == ["Unknown URL parameters 'x0', 'x1', 'x2' and 997 more ignored."]


def test_hostile_url_values_are_quoted_short_and_the_rest_is_kept():
    """A link can hold anything: each bad value falls back to the default with a warning that
    quotes it cut to a few dozen characters; the good values of the same link are kept."""
    hostile = {"n": "[Session expired, log in](https://evil.example) ![](https://e.x/p.png)",
               "beta": "1" * 400, "omega": "9" * 100_000, "tol": "1e-400", "eta": "-0",
               "problem": "<a href=x>brockett</a>", "lecture": "$\\Huge x$",
               "speed": "slow\n# heading", "x" * 5000: "y"}
    config, warnings = from_query(hostile | {"seed": "7", "p": "1"})
    assert (config.seed, config.p) == (7, 1)
    assert replace(config, seed=0, p=AppConfig().p) == AppConfig()
    assert len(warnings) == 9 and all(len(w) < 200 and "\n" not in w for w in warnings)
    assert warnings[0] == f"Unknown URL parameter {'x' * 39 + '…'!r} ignored."
    assert "beta='1111" in warnings[2] and "is not a finite number" in warnings[2]


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


def _npy(array, **kw) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, **kw)
    return buf.getvalue()


def _forged_npy(shape, descr="<f8", body=b"\0" * 64) -> bytes:
    """A .npy file whose header claims ``shape``: 200 bytes that could ask for 80 GB."""
    buf = io.BytesIO()
    npy_format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False,
                                            "shape": shape})
    return buf.getvalue() + body


class _Exploit:
    """Unpickling this would create a file: a pickled upload must never be unpickled."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (str(self.path), "w"))


def test_hostile_npy_files_are_refused_before_anything_is_allocated(tmp_path):
    cases = {
        "claims 1e10 entries": (_forged_npy((100_000, 100_000)), "10000000000 entries"),
        "claims 3-D": (_forged_npy((10**6, 10**6, 10**6)), "entries is more than"),
        "shorter than its header": (_forged_npy((20, 20)), "shorter than its header"),
        "object array": (_npy(np.array([_Exploit(tmp_path / "pwned")], dtype=object),
                              allow_pickle=True), "must hold numbers, got dtype object"),
        "plain pickle": (pickle.dumps(_Exploit(tmp_path / "pwned")), "not a .npy file"),
        ".npz archive": (_npz(), "not a .npy file"),
        "complex": (_npy(np.eye(2) + 1j), "dtype complex128"),
        "strings": (_npy(np.array([["a"]])), "dtype <U1"),
        "structured": (_npy(np.zeros((2, 2), dtype=[("a", "f8")])), "must hold numbers"),
        "0-d": (_npy(np.float64(1.0)), "expected a 2-D matrix, got shape ()"),
        "empty": (b"", "is empty"),
        "no rows": (_npy(np.zeros((0, 3))), "got shape (0, 3)"),
        "infinite": (_npy(np.array([[1.0, np.inf]])), "NaN or infinite"),
    }
    for what, (data, fragment) in cases.items():
        with pytest.raises(ValueError, match=re.escape(fragment)):
            parse_matrix("A.npy", data)
        assert not (tmp_path / "pwned").exists(), what


def _npz() -> bytes:
    buf = io.BytesIO()
    np.savez(buf, a=np.eye(2))
    return buf.getvalue()


def test_odd_but_valid_npy_files_are_read():
    A = np.arange(6.0).reshape(2, 3)
    for data in (_npy(np.asfortranarray(A)), _npy(A.astype(">f8")), _npy(A.astype(np.int16)),
                 _npy(A, allow_pickle=False)):
        np.testing.assert_array_equal(parse_matrix("a.npy", data), A)
    np.testing.assert_array_equal(parse_matrix("a.npy", _npy(np.eye(2, dtype=bool))), np.eye(2))
    # a spreadsheet's CSV UTF-8 starts with a byte-order mark
    np.testing.assert_array_equal(parse_matrix("a.csv", "\ufeff1,2\n3,4".encode()),
                                  [[1, 2], [3, 4]])


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(["a.npy", "a.csv", "a.txt"]))
def test_any_bytes_give_a_matrix_or_a_value_error(data, name):
    try:
        A = parse_matrix(name, data)
    except ValueError as err:
        assert len(str(err)) < 400
    else:
        assert A.dtype == float and A.ndim == 2 and np.all(np.isfinite(A))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_any_npy_body_after_a_valid_header_gives_a_matrix_or_a_value_error(body):
    try:
        A = parse_matrix("a.npy", _forged_npy((3, 2), body=body))
    except ValueError as err:  # 3 x 2 float64 need 48 bytes; random ones may hold a NaN
        assert len(body) < 48 or "NaN" in str(err)
    else:
        assert A.shape == (3, 2)


@pytest.mark.parametrize("data", [b"# only a comment\n", b"\xef\xbb\xbf\n", b"\n\n#\n"])
def test_text_without_a_number_says_so_without_a_warning(data):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="a.csv holds no numbers"):
            parse_matrix("a.csv", data)


def test_a_long_hostile_file_name_is_cut_in_the_message():
    with pytest.raises(ValueError) as err:
        parse_matrix("[x](https://evil.example)" * 1000 + ".csv", b"1,a")
    assert len(str(err.value)) < 200 and "\n" not in str(err.value)


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
                                                                 "bb", "scalefree"]
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

    assert controls.BETA_GRID[0] == state.BOUNDS["beta"][1] == 0.01
    assert controls.BETA_GRID[-1] == state.BOUNDS["beta"][2] == 100.0
    assert len(controls.BETA_GRID) == 41 and controls.BETA_GRID[30] == 10.0
    np.testing.assert_allclose(np.diff(np.log10(controls.BETA_GRID)), 0.1, atol=2e-3)
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
    assert steps.make_step_rule("scalefree", 0.3) == steps.ScaleFree() == \
        steps.as_step_rule(None)  # the library's default
    assert steps.USES_ETA == {"safe": True, "constant": True, "armijo": True, "bb": False,
                              "scalefree": False}
    with pytest.raises(ValueError, match="unknown step rule 'fast'; choose one of safe, "
                                         "constant, armijo, bb, scalefree"):
        steps.make_step_rule("fast", 0.1)


@pytest.mark.parametrize("key", ["method", "tangent", "step"])
def test_a_row_naming_a_list_is_refused_not_raised(key):
    from explorer import compare

    with pytest.raises(ValueError, match="^unknown "):
        compare.parse_row(compare.Row("x").cells() | {key: ["beta"]})
