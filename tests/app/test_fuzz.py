"""Hostile input through the whole app (AppTest): every URL parameter, every compare field and
uploads. For each: no traceback, no live link, image, HTML or maths from the visitor's text in
any element, nothing echoed at length, and nothing lost (the valid rest is kept and a message
says what was ignored). The pure parsers get hypothesis on top.

Every hostile string carries the marker "pwn", so the checks look only at what came from it.
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import fields

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.lib import format as npy_format
from streamlit.testing.v1 import AppTest

from explorer import compare, text
from explorer.state import PAGE_PARAMS, AppConfig, from_query
from landing_core.geometry import TANGENT_TERMS
from landing_core.solvers import METHODS
from landing_core.steps import STEP_RULES
from tests.app.helpers import app_test

MARK = "pwn"
HOSTILE = [
    f"[{MARK} Session expired, log in](https://evil.example/login) "
    f"![{MARK}](https://evil.example/p.png)",
    f"<a href='https://evil.example'>{MARK}</a><img src='https://evil.example/p.png'>",
    f"<span style='font-size:90px;color:red'>{MARK}</span><script>alert(1)</script>",
    f"$\\Huge\\color{{red}}{{{MARK}}}$ $$\\href{{https://evil.example}}{{{MARK}}}$$",
    f":red[{MARK}] :material/warning: **{MARK}** _x_ `x` ~~x~~",
    f"{MARK} https://evil.example www.evil.example a@evil.example <https://evil.example>",
    f"{MARK}\n# heading\n> quote\n- item\n1. item\n    code",
    f"{MARK}" + "x" * 100_000,
    f"&lt;b&gt;{MARK}&#60;img&#62; \\[{MARK}\\]",
    f"=HYPERLINK(\"https://evil.example\",\"{MARK}\")",
    f"{MARK}\u202e\u200b😀\x00\t\r",
]
ODD = ["1" * 400, "-1e400", "nan", "inf", "-inf", "", " ", "0x10", "١٢", "1_0", "-0", "1e-400"]
VALID = {"problem": "pca", "constraint": "preset", "n": "7", "p": "3", "seed": "42",
         "distance": "0.7", "tangent": "relative", "beta": "2.0", "omega": "3.0",
         "step": "armijo", "eta": "0.05", "tol": "1e-06", "max_iter": "123", "speed": "slow",
         "lecture": "1", "scrub": "omega", "scrub_lo": "0.2", "scrub_hi": "5.0",
         "scrub_count": "9"}
LIVE = [  # what would render as markup: a link, an image, HTML, maths, a directive, a heading
    re.compile(p) for p in (r"\]\(", r"!\[", r"<[A-Za-z/!?]", r"\$", r":[a-z-]+(/[a-z_]+:|\[)",
                            r"\*\*", r"(^|\n)\s*#", r"(^|\n)\s*>", r"&[#a-z0-9]+;")]
# GFM's literal autolinks, found in the text after its escapes are resolved
AUTOLINK = re.compile(r"(?i)https?://|www\.|[-.\w+]@[-\w]+\.[-\w]")


def _walk(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def _strings(message, skip=("spec", "json_args", "data", "arrow_data")):
    """Every string in a protobuf message (labels, bodies, help, options …) but the chart
    specs, component arguments and table data (checked apart)."""
    for field, value in message.ListFields():
        if field.name in skip:
            continue
        repeated = getattr(field, "is_repeated", None)  # protobuf >= 6; .label before
        if repeated is None:
            repeated = field.label == field.LABEL_REPEATED
        values = value if repeated else [value]
        for v in values:
            if isinstance(v, str):
                yield v
            elif hasattr(v, "ListFields"):
                yield from _strings(v, skip)


ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _unescaped(markdown: str) -> str:
    """The text with its backslash escapes removed: what is left can still be markup."""
    return ESCAPE.sub("", markdown)


def check_page(at: AppTest) -> None:
    """No traceback; the visitor's text shown as text everywhere; no long echo."""
    assert not at.exception, [e.value for e in at.exception]
    for root in (at.main, at.sidebar):
        for node in _walk(root):
            proto = getattr(node, "proto", None)
            if proto is None:
                continue
            for s in _strings(proto):
                assert "x" * 200 not in s, f"a long value echoed in {node.type}"
                if MARK not in text.unescape(s):
                    continue
                bare = _unescaped(s)
                for pattern in LIVE:
                    assert not pattern.search(bare), (node.type, pattern.pattern, s[:300])
                assert not AUTOLINK.search(ESCAPE.sub(r"\1", s)), (node.type, s[:300])
    for chart in at.get("plotly_chart"):
        for trace in json.loads(chart.proto.spec)["data"]:
            name = trace.get("name") or ""
            assert "<" not in name and ">" not in name, name  # plotly renders HTML in names


def test_the_check_finds_unescaped_text(monkeypatch):
    """The check itself: with the escaping switched off, a hostile link is caught."""
    monkeypatch.setattr(text, "markdown", lambda s: s)
    with pytest.raises(AssertionError, match="is not a number"):
        check_page(_explorer({"n": HOSTILE[0]}))


def _warnings(at: AppTest) -> str:
    return " ".join(text.unescape(w.value) for w in at.warning)


def _explorer(query: dict[str, str]) -> AppTest:
    at = app_test(query)
    at.run()
    return at


NAMES = [f.name for f in fields(AppConfig)]


@pytest.mark.parametrize("round_", range(len(HOSTILE)))
def test_hostile_url_values_in_every_parameter(round_):
    """Round r: one field gets a valid non-default value, every other field a hostile one
    (shifted per field, so each field sees each payload over the rounds), plus the page's own
    parameters and an unknown one."""
    keep = NAMES[round_ % len(NAMES)]
    pool = HOSTILE + ODD
    query = {name: pool[(round_ + j) % len(pool)] for j, name in enumerate(NAMES)}
    query[keep] = VALID[keep]
    # (short: streamlit ignores a whole query string beyond 524 288 characters)
    query |= {page: HOSTILE[round_][:1000] for page in PAGE_PARAMS}
    query[f"{MARK}<a href=x>{round_}"] = HOSTILE[round_][:1000]
    at = _explorer(query)
    check_page(at)
    expected, _ = from_query(query)
    config = at.session_state.config
    assert config == expected  # the app keeps exactly what the parser accepts
    if keep != "p":  # p is clamped to n when n fell back to its default 3
        alone = getattr(from_query({keep: VALID[keep]})[0], keep)
        assert getattr(config, keep) == alone != getattr(AppConfig(), keep)
    warned = _warnings(at)
    for name in NAMES:
        if getattr(config, name) == getattr(AppConfig(), name) and name != keep:
            assert f"{name}=" in warned or "p = " in warned, name  # says what it ignored
    assert "Unknown URL parameter" in warned and "URL parameter view=" in warned


def test_a_400_digit_beta_and_a_100k_value_in_the_url():
    at = _explorer({"beta": "1" * 400, "n": "9" * 100_000, "seed": "5"})
    check_page(at)
    assert at.session_state.config.seed == 5
    warned = _warnings(at)
    assert "beta='111" in warned and "n='999" in warned and len(warned) < 600


@pytest.mark.parametrize("payload", [HOSTILE[0], HOSTILE[1], HOSTILE[7][:2000]])
def test_hostile_stochastic_settings_in_the_link(payload):
    raw = (f"n={payload},p=2,methods={payload}+sgd,decreasing={payload},epochs=3,"
           f"{payload}=1")
    at = app_test({"stoch": raw})
    at.switch_page("pages/stochastic.py").run()
    check_page(at)
    warned = _warnings(at)
    assert "URL parameter stoch: n=" in warned  # (a payload's commas split it in more parts)
    assert at.session_state.stoch_spec.epochs == 3  # the valid part is kept


# --------------------------------------------------------------------------- compare fields

BAD_FIELDS = {  # column -> values a URL's JSON (or a crafted client) may hold
    "method": [["landing"], {"a": 1}, None, 1, True, f"<b>{MARK}</b>"],
    "tangent": [["beta"], None, 3.5, f"[{MARK}](https://evil.example)"],
    "step": [["safe"], {}, None, f"$\\Huge {MARK}$"],
    "beta": [int("1" * 400), -1, 0, float("inf"), "x0.5", None, [0.5], True, 1e-300],
    "omega": [int("9" * 400), None, "x", [1], float("nan")],
    "eta": [10**400, -0.0, None, {"eta": 1}],
}


def _compare(query: dict[str, str]) -> AppTest:
    at = app_test(query)
    at.switch_page("pages/compare.py").run()
    return at


def _json_row(label, **bad) -> list:
    r = compare.Row(label, beta=0.3, step="bb").cells() | bad
    return [r[c] for c in compare.COLUMNS]


@pytest.mark.parametrize("column", list(BAD_FIELDS))
def test_hostile_compare_rows_from_a_link(column):
    """Two good rows with hostile labels, then rows whose ``column`` is each bad value: the
    good rows run, the bad ones are dropped with a bounded message, labels are shown as text."""
    good = [_json_row(HOSTILE[0]), _json_row(HOSTILE[9], beta=4.0)]
    bad = [_json_row(f"{MARK} bad {i}", **{column: v}) for i, v in enumerate(BAD_FIELDS[column])]
    raw = json.dumps(good + bad, allow_nan=True)  # JSON with NaN and Infinity, as Python reads
    at = _compare({"rows": raw, "steps": HOSTILE[2], "against": HOSTILE[3], "n": "3", "p": "2"})
    check_page(at)
    table = at.dataframe[-1].value
    labels = list(table["configuration"])
    assert len(labels) == 2  # the good rows are kept ...
    assert labels[1].startswith("'=HYPERLINK")  # ... with a CSV-safe label
    assert all(len(x) <= text.LABEL_MAX + 1 for x in labels)
    warned = _warnings(at)
    assert "dropped" in warned  # ... and the bad ones are named as dropped
    assert "URL parameter steps=" in warned and "URL parameter against=" in warned
    editor = at.dataframe[0].value
    assert not any(str(v).startswith(text.FORMULA_START) for v in editor["label"])


def test_compare_rows_that_cannot_be_read():
    for raw in ("[" * 5000, '{"a": 1}', "[[1,2]]", "nan", json.dumps([[HOSTILE[1]] * 7] * 40),
                "[[" + "1" * 4000 + "]]", HOSTILE[7]):
        at = _compare({"rows": raw})
        check_page(at)
        assert list(at.dataframe[-1].value["configuration"]) == [
            r.label for r in compare.default_rows(AppConfig())]  # the default table runs


def test_hostile_rows_stored_by_the_table_editor_render_and_are_skipped():
    """Whatever a crafted client sends as table edits goes through ``relabel`` into session
    state and back into the editor: odd types render, invalid rows are skipped by name."""
    at = _compare({"n": "3", "p": "2"})
    old = at.session_state.compare_rows
    edited = [dict(r) for r in old]
    edited[0]["label"] = HOSTILE[1]
    edited[1] = {**edited[1], "label": HOSTILE[9], "method": ["landing"], "beta": 10**400}
    edited[2] = {**edited[2], "label": {"x": HOSTILE[0]}, "step": None, "omega": float("nan")}
    edited.append({c: HOSTILE[4] for c in compare.COLUMNS})
    at.session_state["compare_rows"] = compare.relabel(old, edited)
    at.session_state["compare_version"] += 1
    at.run()
    check_page(at)
    assert len(at.dataframe[-1].value) == 2  # rows 0 and 3 of the defaults still run
    assert _warnings(at).count("skipped") == 3


def test_labels_reach_the_legend_as_text():
    rows = [compare.Row(f"<a href='https://evil.example'>{MARK}</a> & <b>", beta=0.2),
            compare.Row(f"<span style='color:red'>{MARK}</span>", beta=2.0)]
    at = _compare({"n": "3", "p": "2", "rows": compare.rows_query(rows)})
    check_page(at)
    names = [t["name"] for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
             if t.get("showlegend", True)]
    assert names == [text.html(r.label) for r in rows]


# ----------------------------------------------------------------------------------- uploads


def _npy(array, **kw) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, **kw)
    return buf.getvalue()


def _forged(shape, descr="<f8") -> bytes:
    buf = io.BytesIO()
    npy_format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False,
                                            "shape": shape})
    return buf.getvalue() + b"\0" * 64


HOSTILE_FILES = [
    ("empty.csv", b""), ("empty.npy", b""),
    ("garbage.npy", bytes(range(256)) * 4), ("garbage.csv", bytes(range(256)) * 4),
    ("huge-header.npy", _forged((100_000, 100_000))), ("3d-header.npy", _forged((10**9,) * 3)),
    ("nan.csv", b"1,nan\nnan,1\n"), ("inf.npy", _npy(np.array([[np.inf, 1.0], [1.0, 1.0]]))),
    ("vector.npy", _npy(np.ones(3))),  # (a 2-D misfit is kept: see the test below)
    ("ragged.csv", b"1,2\n3\n"), ("object.npy", _npy(np.array([[1, "a"]], dtype=object),
                                                     allow_pickle=True)),
    ("strings.npy", _npy(np.array([["1", "2"], ["3", "4"]]))),
    ("complex.npy", _npy(np.eye(3) + 1j)),
    (f"[{MARK}](https://evil.example) <img src=x>.csv", b"1,2\n3,x\n"),
    # (another extension never arrives: the browser's uploader refuses it, and streamlit
    # itself raises on it before the app runs)
    (f"{MARK}" + "y" * 5000 + ".npy", b"junk"), (f"{MARK}.txt", b"MZ\x90\x00\xff"),
    ("big.csv", ("\n".join([",".join(["1"] * 500)] * 400)).encode()),  # 200 000 entries
]


def test_hostile_uploads_keep_the_matrix_in_use():
    """A good matrix first, then every hostile file: each is refused with a message that says
    the good one is still used, and the run still uses it."""
    at = _explorer({"step": "bb"})
    good = _npy(np.diag([3.0, 1.0, -7.0]))
    at.file_uploader[0].set_value(("A.npy", good, "application/octet-stream")).run()
    check_page(at)
    expected = json.loads(at.get("component_instance")[0].proto.json_args)["data"]["run_id"]
    for name, data in HOSTILE_FILES:
        at.file_uploader[0].set_value((name, data, "application/octet-stream")).run()
        check_page(at)
        warned = _warnings(at)
        assert "Upload rejected" in warned and "Still using A.npy" in warned, name
        assert at.session_state.matrix_name == "A.npy"
        assert json.loads(at.get("component_instance")[0].proto.json_args)["data"][
            "run_id"] == expected  # the same run: nothing recomputed, nothing lost


def test_hostile_uploads_of_B_keep_the_B_in_use():
    at = _explorer({"constraint": "upload", "n": "3", "p": "2"})
    B = np.diag([1.0, 2.0, 3.0])
    uploader = at.file_uploader(key="w_upload_B")
    uploader.set_value(("B.npy", _npy(B), "application/octet-stream")).run()
    check_page(at)
    np.testing.assert_array_equal(at.session_state.B_matrix, B)
    for name, data in [*HOSTILE_FILES, ("indefinite.csv", b"1,0,0\n0,-1,0\n0,0,1\n")]:
        at.file_uploader(key="w_upload_B").set_value((name, data, "x")).run()
        check_page(at)
        warned = _warnings(at)
        assert "B rejected" in warned and "The B already uploaded is kept" in warned, name
        np.testing.assert_array_equal(at.session_state.B_matrix, B)


def test_an_upload_that_stops_fitting_says_the_built_in_matrix_runs():
    at = _explorer({})
    at.file_uploader[0].set_value(("A.csv", b"2,0,0\n0,1,0\n0,0,-1\n", "text/csv")).run()
    check_page(at)
    assert any(c.value.startswith("Using A\\.csv") for c in at.caption)
    at.number_input(key="w_n").set_value(4).run()
    check_page(at)
    caption = next(s for c in at.caption if "A.csv" in (s := text.unescape(c.value)))
    assert caption.startswith("A.csv (3 × 3) does not fit this problem")
    assert "the built-in matrix is used" in caption
    at.number_input(key="w_n").set_value(3).run()  # the upload was kept: it fits again
    assert any(c.value.startswith("Using A\\.csv") for c in at.caption)


# ------------------------------------------------------------------- the parsers, hypothesis

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(
                        st.text(max_size=5), inner, max_size=3), max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=30), st.text(max_size=60) | st.lists(
    st.text(max_size=10), max_size=3), max_size=20))
def test_any_query_gives_a_valid_config_and_bounded_warnings(params):
    config, warnings = from_query(params)
    assert config.p <= config.n
    assert all(len(w) < 300 for w in warnings)
    assert sum("Unknown URL parameter" in w for w in warnings) <= 1


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_any_json_gives_valid_rows_or_a_message(value):
    try:
        raw = json.dumps(value, allow_nan=True)
    except ValueError:  # a circular or otherwise unencodable value: not a URL
        return
    rows, warnings = compare.rows_from_query(raw)
    assert len(rows) <= compare.MAX_ROWS and len(warnings) <= 5
    assert all(len(w) < 300 for w in warnings)
    for r in rows:
        assert compare.parse_row(r.cells()) == r  # valid, and as parsing keeps it
        assert isinstance(r.label, str) and not r.label.startswith(text.FORMULA_START)
        assert all(math.isfinite(v) for v in (r.beta, r.omega, r.eta))


ODD_CELL = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
            | st.lists(st.integers(), max_size=2))
CELLS = {"label": ODD_CELL | st.sampled_from(HOSTILE[:7]),
         "method": ODD_CELL | st.sampled_from(list(METHODS)),
         "tangent": ODD_CELL | st.sampled_from(list(TANGENT_TERMS)),
         "step": ODD_CELL | st.sampled_from(list(STEP_RULES)),
         **{c: ODD_CELL | st.floats(1e-3, 10.0) for c in ("beta", "omega", "eta")}}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.fixed_dictionaries(CELLS), max_size=7))
def test_any_table_edit_relabels_without_raising(new):
    old = [r.cells() for r in compare.default_rows(AppConfig())]
    for r in compare.relabel(old, new):
        label = r["label"]
        assert label is None or isinstance(label, float) or (
            isinstance(label, str) and not label.startswith(text.FORMULA_START))
        try:
            compare.parse_row(r)
        except ValueError:
            continue
        assert isinstance(label, str) and label.strip()
