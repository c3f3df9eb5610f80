"""The Theory page's checks for X^T B X = I pass on correct formulas and fail on wrong ones."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.teaching.theory_generalized import check_generalized, generalized_point
from landing_core import generalized as gz


@pytest.mark.parametrize(("condition", "seed", "beta"), [(1.0, 0, 0.5), (1e2, 1, 0.2),
                                                         (1e4, 2, 3.0)])
def test_every_check_passes(condition, seed, beta):
    checks = check_generalized(generalized_point(6, 2, condition, seed), beta)
    assert len(checks) == 7
    assert [c.key for c in checks if not c.passed] == []


def test_a_wrong_formula_fails_its_check(monkeypatch):
    """The relative gradient with B X replaced by X is no longer tangent (nor skew(G XᵀB) B X)."""
    monkeypatch.setattr(gz, "relative_gradient_B",
                        lambda X, BX, G: 0.5 * (G @ (X.T @ X) - X @ (G.T @ X)))
    checks = {c.key: c for c in check_generalized(generalized_point(6, 2, 1e2, 0), 0.5)}
    assert not checks["b_tangent"].passed and not checks["b_relative"].passed
    assert checks["b_riemannian"].passed
    assert np.isfinite(checks["b_tangent"].residual)
