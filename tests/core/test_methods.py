"""The method protocol (landing_core.methods): the registry behind METHODS, the shared stop and
divergence test, and each method's field against its formula."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from landing_core import geometry as geo
from landing_core import initial_point, make_problem, methods
from landing_core.geometry import h, riemannian_gradient_stiefel
from landing_core.methods.rgd import RETRACTIONS
from landing_core.problems import nearest_stiefel
from landing_core.run import BLOWUP, Code, run_status
from landing_core.solvers import METHODS, Config, make_method, solve


def test_methods_are_the_registry():
    """The menus list every registered method."""
    named = list(methods.REGISTRY)
    assert list(METHODS) == named and len(METHODS) == len(named)
    assert {"landing", "rgd-qr", "rgd-polar", "rgd-cayley", "penalty"} <= set(METHODS)
    assert METHODS["rgd-cayley"] == "Riemannian GD, Cayley retraction"
    assert all(METHODS[name] == methods.REGISTRY[name].label for name in named)


def test_an_entry_gives_its_options_defaults():
    """What a run without options gets (the app names momentum's gamma in a row's label):
    the factory's own default, as the method built with no option has it."""
    assert methods.REGISTRY["momentum"].defaults == {"gamma": 0.9}
    assert methods.build("momentum").gamma == 0.9
    assert methods.REGISTRY["landing"].defaults == {}
    assert set(methods.REGISTRY["rgd-qr"].defaults) == set(methods.REGISTRY["rgd-qr"].options)


def test_build_passes_common_parameters_and_rejects_unknown_options():
    m = methods.build("landing", beta=2.0, omega=3.0, tangent="relative")
    assert (m.beta, m.omega, m.tangent) == (2.0, 3.0, "relative")
    assert methods.build("penalty", beta=2.0, omega=3.0).omega == 3.0
    assert methods.build("rgd-polar").retraction == "polar"
    with pytest.raises(ValueError, match="unknown method 'newton'"):
        methods.build("newton")
    with pytest.raises(ValueError, match="method 'landing' takes no option 'gamma'"):
        methods.build("landing", gamma=0.5)
    with pytest.raises(ValueError, match="method 'landing' takes no option 'gamma'"):
        Config(options={"gamma": 0.5})
    with pytest.raises(ValueError, match="already registered"):
        methods.register("landing", "again")(lambda: None)


def test_config_options_are_stored_sorted_and_hashable():
    cfg = Config(method="landing")
    assert cfg.options == () and hash(cfg) == hash(Config())
    assert make_method(cfg) == methods.build("landing")
    cfg = Config(method="momentum", options={"gamma": 0.5})
    assert cfg.options == (("gamma", 0.5),) and make_method(cfg).gamma == 0.5
    assert Config(method="momentum", options=cfg.options) == cfg
    with pytest.raises(ValueError, match="beta must be a finite number > 0"):
        Config(beta=np.array([0.5, 1.0]))  # one run, one beta (sweeps take per-run arrays)


# ----------------------------------------------------------------------------- run_status

finite = st.floats(-1e3, 1e3)
anything = st.one_of(finite, st.sampled_from([math.nan, math.inf, -math.inf, 2 * BLOWUP]))


def _reference(cost, g, d, k, tol, max_iter):
    """The rule written out case by case."""
    if not (math.isfinite(cost) and math.isfinite(g) and math.isfinite(d)) or d > BLOWUP:
        return Code.DIVERGED
    if g + d <= tol:
        return Code.CONVERGED
    return Code.MAX_ITER if k >= max_iter else Code.RUNNING


@pytest.mark.filterwarnings("ignore:invalid value encountered in add")  # inf + (-inf)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(anything, st.one_of(st.floats(0, 10), anything),
                          st.one_of(st.floats(0, 10), anything)), min_size=1, max_size=8),
       st.integers(0, 5), st.sampled_from([1e-8, 0.5, 20.0]))
def test_run_status_for_one_run_and_a_batch_follows_the_rule(rows, k, tol):
    cost, g, d = (np.array(col) for col in zip(*rows, strict=True))
    batched = run_status(cost, g, d, k, tol, 3)
    for i, row in enumerate(rows):
        expected = _reference(*row, k, tol, 3)
        assert run_status(*row, k, tol, 3) == expected
        assert batched[i] == expected


# ----------------------------------------------------------------------------- the methods


@pytest.fixture(scope="module")
def point():
    rng = np.random.default_rng(7)
    X = initial_point(9, 3, 0.4, seed=3)
    return X, rng.standard_normal((9, 3))


def test_penalty_field_is_the_gradient_of_the_penalty(point):
    """V = G + omega X h: the gradient of f + omega/4 ||h||^2 by central differences."""
    X, G = point
    problem = make_problem("brockett", 9, 3, seed=1)
    G = problem.egrad(X)
    fld, _ = methods.build("penalty", omega=3.0).field(X, G, {})

    def phi(Y):
        return problem.cost(Y) + 3.0 / 4 * np.linalg.norm(h(Y)) ** 2

    E = np.random.default_rng(0).standard_normal(X.shape)
    t = 1e-6
    slope = (phi(X + t * E) - phi(X - t * E)) / (2 * t)
    assert np.vdot(fld.V, E) == pytest.approx(slope, rel=1e-7)
    assert fld.tangent_norm == pytest.approx(np.linalg.norm(fld.V), rel=1e-14)
    # the stopping rule reads the common measure, not ||V||
    assert fld.grad_norm == pytest.approx(geo.stationarity(X, G), rel=1e-14)


@pytest.mark.parametrize("retraction", sorted(RETRACTIONS))
def test_rgd_starts_on_the_manifold_and_retracts(point, retraction):
    X0, G = point
    m = methods.build(f"rgd-{retraction}")
    X = m.start(X0)
    np.testing.assert_allclose(X, nearest_stiefel(X0), atol=1e-14)
    fld, _ = m.field(X, G, {})
    np.testing.assert_allclose(fld.V, riemannian_gradient_stiefel(X, G), rtol=0,
                               atol=16 * 9 * np.finfo(float).eps * np.linalg.norm(G))
    Y = m.move(X, fld, 0.1)
    np.testing.assert_allclose(Y.T @ Y, np.eye(3), atol=1e-13)
    np.testing.assert_allclose(Y, X - 0.1 * fld.V, atol=0.1 ** 2 * np.linalg.norm(fld.V) ** 2)
    assert m.normal_weight == 0.0
    with pytest.raises(ValueError, match="no normal weight"):
        m.move(X, fld, 0.1, 0.5)


@pytest.mark.parametrize("retraction", sorted(RETRACTIONS))
def test_retractions_on_a_stack_equal_each_run(retraction):
    rng = np.random.default_rng(2)
    X = nearest_stiefel(rng.standard_normal((4, 7, 3)))
    W = rng.standard_normal((4, 7, 3))
    Z = W - X @ (0.5 * (np.swapaxes(X, -1, -2) @ W + np.swapaxes(W, -1, -2) @ X))
    R = RETRACTIONS[retraction]
    stacked = R(X, 0.3 * Z)
    for i in range(4):
        # stacked and 2-D products and factorizations round differently: each retraction is a
        # few of them on X (||X||_2 = 1) and 0.3 Z, so within (n + p) eps (1 + ||0.3 Z||)^2
        err = 16 * (7 + 3) * np.finfo(float).eps * (1 + np.linalg.norm(0.3 * Z[i])) ** 2
        np.testing.assert_allclose(stacked[i], R(X[i], 0.3 * Z[i]), rtol=0, atol=err)


def test_landing_move_with_a_lowered_normal_weight(point):
    """X - eta (T + omega_k X h): the tangent step whole, the normal step at omega_k."""
    X, G = point
    m = methods.build("landing", beta=0.7, omega=2.0)
    fld, _ = m.field(X, G, {})
    T = m.tangent_term(X, G)
    Y = m.move(X, fld, 0.3, 0.5)
    N = X @ h(X)
    # the two sides form T + omega_k N in different orders: each within (n + p) eps of the
    # magnitudes of the terms they add
    scale = np.abs(X).max() + 0.3 * (np.abs(T).max() + 0.5 * np.abs(N).max())
    tol = 8 * (9 + 3) * np.finfo(float).eps * scale
    np.testing.assert_allclose(Y, X - 0.3 * (T + 0.5 * N), rtol=0, atol=tol)
    np.testing.assert_allclose(m.constraint.project(X, T), T, atol=1e-13)  # T is tangent


def test_take_subsets_per_run_parameters():
    m = methods.build("landing", beta=np.array([0.1, 0.2, 0.3]), omega=np.array([1.0, 2, 3]))
    sub = m.take(np.array([True, False, True]))
    np.testing.assert_array_equal(sub.beta, [0.1, 0.3])
    np.testing.assert_array_equal(sub.omega, [1.0, 3.0])
    assert sub.tangent == "beta"
    with pytest.raises(ValueError, match="every beta must be a finite number > 0"):
        methods.build("landing", beta=np.array([0.1, -1.0]))


def test_take_leaves_fields_that_are_not_per_run_whole():
    """A matrix the method carries (a constraint's B, data) is not a batch of parameters."""

    @dataclass(frozen=True)
    class Weighted(methods.Method):
        B: np.ndarray
        omega: np.ndarray
        per_run: ClassVar[tuple[str, ...]] = ("omega",)

    B = np.eye(3)
    sub = Weighted(B, np.array([1.0, 2.0, 3.0])).take(np.array([0, 2]))
    assert sub.B is B
    np.testing.assert_array_equal(sub.omega, [1.0, 3.0])


@pytest.mark.parametrize("method", ["rgd-cayley", "penalty"])
def test_solve_runs_each_registered_baseline_by_name(method):
    """Gradient descent with a small step decreases what it descends: f on the manifold for
    RGD, the penalty f + omega/4 ||h||^2 for the penalty method."""
    problem = make_problem("brockett", 6, 2, seed=0)
    X0 = initial_point(6, 2, 0.2, seed=0)
    res = solve(problem, X0, Config(method=method, omega=2.0, step=0.1), max_iter=30,
                tol=1e-300)
    assert res.iterations == 30 and res.config.method == method
    merit = res.cost + (0.5 * res.infeasibility**2 if method == "penalty" else 0.0)
    assert np.all(np.diff(merit) < 0)
    if method.startswith("rgd"):
        assert np.all(res.infeasibility < 1e-13)
