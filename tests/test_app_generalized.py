"""The app's views of the generalized Stiefel constraint X^T B X = I, with AppTest."""

from __future__ import annotations

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
