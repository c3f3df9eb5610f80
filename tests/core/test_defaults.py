"""The default step rule (``steps.ScaleFree``) at any scale of the cost (issue 23, point 3)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from landing_core import steps
from landing_core.problems import Problem, initial_point, make_problem
from landing_core.solvers import Config, iterate, landing


def _scaled(problem: Problem, s: float) -> Problem:
    """s f, with the problem's shared cost-and-gradient kept (s * each, exact for s = 2^k)."""
    both = problem.cost_and_egrad

    def cost_and_egrad(X):
        f, G = both(X)
        return s * f, s * G

    return Problem(n=problem.n, p=problem.p, name=problem.name,
                   cost=lambda X: s * problem.cost(X), egrad=lambda X: s * problem.egrad(X),
                   cost_and_egrad=cost_and_egrad if both is not None else None)


def test_the_default_rule_is_scale_free():
    assert isinstance(steps.as_step_rule(None), steps.ScaleFree)
    assert isinstance(Config().step, type(None))


@pytest.mark.parametrize("name", ["linear", "procrustes", "pca", "brockett"])
def test_the_default_converges_at_every_scale(name):
    """landing(problem, X0), no step argument, tol 1e-8 (absolute), on f, 1e-3 f and 1e3 f at
    (200, 20) from distance 0.3: converged, with iteration counts within 2x of f's.

    Measured (seed 0, X0 seed 1): linear 26/34/39, procrustes 30/37/46, pca 77/98/132 (1e-3,
    1, 1e3), brockett 2,468/3,028 at 1e-3 and 1. Brockett times 1e3 is run to tol 1e-8 times
    1e3 instead: the rule's iterates are the same at every scale (the property test below), so
    the absolute tolerance asks 1e3 f for a measure 1e3 times smaller relative to f, and
    brockett's slowest mode (close eigenvalues of A) then converges at about 0.9995 per
    iteration: 1e3 f had not reached 1e-8 after 30,000 iterations (2.2e-8 there)."""
    base = make_problem(name, 200, 20, seed=0)
    X0 = initial_point(200, 20, 0.3, seed=1)
    counts = {}
    for s in (1.0, 1e-3, 1e3):
        tol = 1e-8 * (s if name == "brockett" and s > 1 else 1.0)
        res = landing(_scaled(base, s), X0, tol=tol, max_iter=8000)
        assert res.status == "converged", (s, res.message)
        assert res.grad_norm[-1] + res.infeasibility[-1] <= tol
        counts[s] = res.iterations
    for s in (1e-3, 1e3):
        assert counts[1.0] / 2 <= counts[s] <= 2 * counts[1.0], counts


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(["brockett", "procrustes", "pca", "linear", "quartic"]),
       size=st.sampled_from([(3, 2), (6, 3), (10, 3), (4, 4)]),
       seed=st.integers(0, 20), distance=st.sampled_from([0.1, 0.4, 0.7]),
       k=st.integers(-20, 20), omega=st.sampled_from([1.0, 2.0, 8.0]))
# ||T|| = 1.9594... here: libm's pow gives (4 ||T||) ** 2 one ulp off 16 ||T|| ** 2
@example(name="procrustes", size=(10, 3), seed=8, distance=0.7, k=2, omega=8.0)
def test_scaling_the_cost_leaves_the_iterates_unchanged(name, size, seed, distance, k, omega):
    """Under f -> s f with s = 2^k, the default rule's steps scale as 1/s and its normal weights
    as s, so the iterates are the same, bit for bit: every quantity the rule forms is a
    product, quotient, sum or square root of quantities that scale by powers of s (squares are
    products: libm's pow is not correctly rounded), and scaling by a power of two commutes
    with rounding (barring overflow and underflow), whatever the BLAS kernel's order of
    summation (compared until the run reaches 1e-12). The run's omega
    is scaled with f (omega s) so that the field V = T + omega N scales exactly; the rule uses
    omega only through T = V - omega N and min(omega, 1), which omega >= 1 and s omega >= 1
    leave unchanged."""
    n, p = size
    s = 2.0 ** k
    if omega * s < 1:
        s = 1.0 / s
    base = make_problem(name, n, p, seed=seed)
    X0 = initial_point(n, p, distance, seed=seed)
    runs = [iterate(problem, X0, Config(omega=w))
            for problem, w in ((base, omega), (_scaled(base, s), omega * s))]
    for a, b in itertools.islice(zip(*runs, strict=True), 30):
        assert a.status == b.status == "running"
        if a.grad_norm + a.infeasibility <= 1e-12:
            break  # converged: entries of X near 0 could underflow (quartic's X^3)
        np.testing.assert_array_equal(a.X, b.X)
        if a.k:
            assert a.step == s * b.step
            assert a.normal_step == b.normal_step


def test_explicit_rules_are_unchanged():
    """The named rules are the classes they were: the default changed, not "bb" or "safe"."""
    assert steps.make_step_rule("bb", 0.1) == steps.BarzilaiBorwein()
    assert steps.make_step_rule("safe", 0.3) == steps.Safe(eta=0.3)
    assert steps.make_step_rule("armijo", 0.5) == steps.Armijo(eta0=0.5)
    assert steps.make_step_rule("constant", 0.2) == steps.Constant(0.2)
