"""Say only what is true (issue 21, item 3): each corrected statement, read where the app shows
it, against a fresh computation of what it claims.

The seed paper (Goyens, Absil & Feppon) derives formulas and reports no experiments: every figure
the texts quote is this app's own measurement, recomputed here. Iteration counts may shift by a
few under other BLAS kernels, so counts are checked against their quoted values with a relative
margin, and spreads and orders rather than exact values.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from landing_core import geometry as geo
from landing_core.problems import initial_point, make_problem
from tests.app_helpers import open_app


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _page_text(page: str, query: dict[str, str] | None = None,
               radios: dict[str, str] | None = None) -> str:
    """Every markdown, caption and alert of ``page``, opened by a link with ``query``, after
    setting the radios ``radios`` (key -> option) in order."""
    at = open_app(query, page)
    for key, value in (radios or {}).items():
        at.radio(key=key).set_value(value).run()
        assert not at.exception
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "success")
             for e in getattr(at, kind)]
    return _squash(" ".join(parts))


@pytest.fixture(scope="module")
def theory_statements() -> str:
    return _page_text("pages/theory.py")


@pytest.fixture(scope="module")
def theory_generalized() -> str:
    return _page_text("pages/theory.py", radios={"theory_part": "generalized"})


# ----------------------------------------------------------------- who proves what (Theory page)


def test_the_theory_page_names_who_proves_convergence(theory_statements, theory_generalized):
    """The seed paper proves no convergence result and has no experiments; the results cited
    are Ablin et al.'s (St(n, p), the relative gradient) and Vary et al.'s (XᵀBX = I, Psi_B)."""
    assert "the paper's covers" not in theory_generalized
    assert "proves no convergence result" in theory_statements
    assert "reports no numerical experiments" in theory_statements
    assert "the app's own measurement" in theory_statements
    assert "Vary, Ablin, Gao & Absil (2024) for $\\Psi_B$" in theory_generalized
    assert "Ablin, Vary, Gao & Absil (2024) for the relative gradient" in theory_generalized
    assert "prove no convergence result" in theory_generalized
    # what is quoted: Ablin et al.'s relative gradient is half the beta = 1/2 tangent term, off
    # the manifold too
    problem = make_problem("brockett", 5, 3, 0)
    X = initial_point(5, 3, 0.7, 1)
    G = problem.egrad(X)
    relative = 0.5 * (G @ X.T - X @ G.T) @ X  # skew(G X^T) X, n x n only in this test
    np.testing.assert_allclose(geo.grad_beta(X, G, 0.5), 2 * relative,
                               atol=1e-13 * np.linalg.norm(G) * np.linalg.norm(X) ** 2)
