"""The app's views of the generalized Stiefel constraint X^T B X = I, with AppTest."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

APP = "../app.py"


def test_theory_page_checks_the_B_formulas_live():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/theory.py").run()
    assert not at.exception
    assert any("XᵀBX = I" in h.value for h in at.header)
    for label in ("10", "10⁴"):
        at.radio(key="theory_b_cond").set_value(label).run()
        assert not at.exception
        failing = [e.value for e in at.error]
        assert failing == []
        titles = " ".join(s.value for s in at.success)
        for name in ("every tangent term keeps XᵀBX", "Riemannian gradient of g^{β,B}",
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
