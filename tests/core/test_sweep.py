"""Sweeps (landing_core.sweep): every cell of a vectorized grid equals the single run of
landing_core.solvers.landing with the same parameters and X0."""

from __future__ import annotations

import numpy as np
import pytest

from landing_core import initial_point, landing, make_problem
from landing_core.solvers import Config, solve
from landing_core.steps import Safe
from landing_core.sweep import grid, run_batch, sweep

BETAS = (0.25, 0.5, 1.0, 4.0)
SEEDS = (0, 1)
MAX_ITER = 800


def _single(problem, params, i, step, eps, tangent="beta", distance=0.3):
    beta, omega, eta, seed = (params[k][i] for k in ("beta", "omega", "eta", "seed"))
    X0 = initial_point(problem.n, problem.p, distance, int(seed))
    rule = float(eta) if step == "constant" else Safe(eta=float(eta), eps=eps)
    return landing(problem, X0, beta=float(beta), omega=float(omega), step=rule, tol=1e-8,
                   max_iter=MAX_ITER, tangent=tangent)


def _assert_cells_match_single_runs(problem, res, step, eps=0.5, tangent="beta"):
    for i in range(res.status.size):
        single = _single(problem, res.params, i, step, eps, tangent)
        assert res.status[i] == single.status, i
        assert res.iterations[i] == single.iterations, i
        for got, ref in ((res.final_cost[i], single.cost[-1]),
                         (res.final_infeasibility[i], single.infeasibility[-1]),
                         (res.final_grad_norm[i], single.grad_norm[-1])):
            assert np.isfinite(got)
            assert abs(got - ref) <= 1e-10 * max(1.0, abs(ref)), (i, got, ref)
        # the last valid iterate itself (a diverged run's X_{k-1}), entry by entry
        gap = np.max(np.abs(res.final_X[i] - single.X))
        assert gap <= 1e-10 * max(1.0, np.max(np.abs(single.X))), (i, gap)


@pytest.fixture(scope="module")
def brockett_5_2():
    return make_problem("brockett", 5, 2, seed=0)


def test_sweep_constant_step_cells_match_single_runs(brockett_5_2):
    res = sweep(brockett_5_2, beta=BETAS, eta=(0.05, 0.1, 0.5), seed=SEEDS, step="constant",
                max_iter=MAX_ITER)
    assert res.shape == (4, 1, 3, 2) and res.status.shape == (24,)
    status = res.status.reshape(res.shape)  # every outcome is compared:
    assert np.all(status[:, :, 0] == "max_iter")
    assert np.all(status[:, :, 1] == "converged")
    assert np.all(status[:, :, 2] == "diverged")
    _assert_cells_match_single_runs(brockett_5_2, res, "constant")
    # diverged cells report their last valid iterate: finite values, infeasible
    div = res.status == "diverged"
    assert np.all(np.isfinite(res.final_cost[div]) & np.isfinite(res.final_infeasibility[div]))
    assert np.all(res.iterations[div] < MAX_ITER)


def test_sweep_safe_step_cells_match_single_runs(brockett_5_2):
    res = sweep(brockett_5_2, beta=BETAS, eta=(0.1, 0.15, 0.2), seed=SEEDS, step="safe",
                eps=0.5, max_iter=MAX_ITER)
    assert np.all(res.status == "converged")
    _assert_cells_match_single_runs(brockett_5_2, res, "safe")
    np.testing.assert_allclose(res.final_gap, res.final_cost - brockett_5_2.f_star)
    assert np.all(np.abs(res.final_gap) <= 1e-6 * abs(brockett_5_2.f_star))


@pytest.mark.parametrize("tangent", ["euclidean", "relative"])
def test_sweep_other_tangent_terms_match_single_runs(brockett_5_2, tangent):
    res = sweep(brockett_5_2, beta=(1.0,), omega=(0.5, 2.0), eta=(0.15, 0.6), seed=(3,),
                tangent=tangent, max_iter=MAX_ITER)
    assert set(res.status) <= {"converged", "diverged", "max_iter"}
    _assert_cells_match_single_runs(brockett_5_2, res, "constant", tangent=tangent)


def test_sweep_max_iter_cells(brockett_5_2):
    res = sweep(brockett_5_2, beta=(0.5, 2.0), eta=(0.05,), seed=(0,), max_iter=30)
    assert np.all(res.status == "max_iter") and np.all(res.iterations == 30)
    for i in range(2):
        single = landing(brockett_5_2, initial_point(5, 2, 0.3, 0), beta=res.params["beta"][i],
                         step=0.05, max_iter=30)
        assert single.status == "max_iter"
        assert res.final_cost[i] == pytest.approx(single.cost[-1], rel=1e-12)


def test_grid_order_is_c_order_over_the_axes():
    params, shape = grid(beta=[1, 2], omega=[3], eta=[4, 5, 6], seed=[7, 8])
    assert shape == (2, 1, 3, 2)
    combos = list(zip(*(params[k] for k in ("beta", "omega", "eta", "seed")), strict=True))
    expected = [(b, o, e, s) for b in (1, 2) for o in (3,) for e in (4, 5, 6) for s in (7, 8)]
    assert combos == expected


def test_progress_is_reported(brockett_5_2):
    calls = []
    sweep(brockett_5_2, eta=(0.1,), max_iter=25, progress=lambda k, m: calls.append((k, m)))
    assert calls[0] == (0, 25) and calls[-1] == (25, 25)


def test_run_batch_rejects_bad_parameters(brockett_5_2):
    X0 = np.stack([initial_point(5, 2, 0.3, s) for s in range(2)])
    with pytest.raises(ValueError, match="every beta must be a finite number > 0"):
        run_batch(brockett_5_2, X0, beta=np.array([0.5, -1.0]), omega=1.0, eta=0.1)
    with pytest.raises(ValueError, match="every omega must be a finite number > 0"):
        run_batch(brockett_5_2, X0, beta=0.5, omega=0.0, eta=0.1)
    with pytest.raises(ValueError, match="every eta must be a finite number > 0"):
        run_batch(brockett_5_2, X0, beta=0.5, omega=1.0, eta=np.nan)
    with pytest.raises(ValueError, match="sweep step rule must be one of safe, constant"):
        run_batch(brockett_5_2, X0, beta=0.5, omega=1.0, eta=0.1, step="armijo")


def test_run_batch_reports_a_rank_deficient_iterate_as_diverged():
    """x0 = 1.25 e1 is an eigenvector of A (tangent term exactly 0) with ||h|| = 0.5625 < 0.9;
    with omega = 1 and eta = 1 / (x0^2 - 1), x1 = x0 - eta x0 (x0^2 - 1) is exactly 0."""
    problem = make_problem("brockett", 2, 1, A=np.diag([1.0, 2.0]))
    a = 1.25
    eta = a / (a * (a * a - 1.0))
    x0 = np.array([[a], [0.0]])
    single = landing(problem, x0, beta=0.5, omega=1.0, step=eta)
    assert single.status == "diverged" and single.iterations == 0  # the reference behaviour
    good = initial_point(2, 1, 0.3, seed=0)
    res = run_batch(problem, np.stack([x0, good]), beta=0.5, omega=1.0, eta=np.array([eta, 0.1]))
    assert res.status[0] == "diverged" and res.iterations[0] == 0


def test_final_gap_is_taken_in_each_runs_component_of_O_n():
    """p = n: f* depends on the sign of det X0 (landing stays in X0's component)."""
    problem = make_problem("procrustes", 4, 4, seed=0)
    seeds = range(8)
    signs = [np.sign(np.linalg.det(initial_point(4, 4, 0.3, s))) for s in seeds]
    assert set(signs) == {-1.0, 1.0}  # both components are sampled
    res = sweep(problem, eta=(0.1,), seed=seeds, step="safe", max_iter=2000)
    assert np.all(res.status == "converged")
    expected = [problem.f_star_by_det[int(s)] for s in signs]
    np.testing.assert_allclose(res.f_star, expected, rtol=1e-14)
    assert np.all(np.abs(res.final_gap) < 1e-8)


def _assert_cells_match(problem, res, config_of, distance=0.3, max_iter=MAX_ITER):
    """Every cell of ``res`` against ``solve`` with ``config_of(beta, omega, eta)``. A
    diverged run's last ||grad|| is compared to 1e-6: the stationarity solves with X^T X, whose
    condition number reaches ~1e8 there (batched and single solves round differently)."""
    for i in range(res.status.size):
        beta, omega, eta, seed = (res.params[k][i] for k in ("beta", "omega", "eta", "seed"))
        X0 = initial_point(problem.n, problem.p, distance, int(seed))
        single = solve(problem, X0, config_of(float(beta), float(omega), float(eta)),
                       tol=1e-8, max_iter=max_iter)
        assert (res.status[i], res.iterations[i]) == (single.status, single.iterations), i
        grad_rel = 1e-6 if single.status == "diverged" else 1e-10
        for got, ref, rel in ((res.final_cost[i], single.cost[-1], 1e-10),
                              (res.final_infeasibility[i], single.infeasibility[-1], 1e-10),
                              (res.final_grad_norm[i], single.grad_norm[-1], grad_rel)):
            assert abs(got - ref) <= rel * max(1.0, abs(ref)), (i, got, ref)


@pytest.mark.parametrize("method", ["rgd-qr", "rgd-polar", "rgd-cayley", "penalty"])
@pytest.mark.parametrize("step", ["constant", "safe"])
def test_sweep_runs_every_registered_baseline_like_single_runs(brockett_5_2, method, step):
    """The same method objects, stop test and step rules as ``solve``, batched."""
    res = sweep(brockett_5_2, omega=(5.0, 20.0), eta=(0.05, 0.4, 3.0), seed=SEEDS,
                method=method, step=step, max_iter=300)

    def config(beta, omega, eta):
        return Config(beta=beta, omega=omega, method=method,
                      step=eta if step == "constant" else Safe(eta=eta))

    _assert_cells_match(brockett_5_2, res, config, max_iter=300)


def test_a_broken_evaluation_stops_only_its_runs():
    """The Frobenius projection refuses X^T X with an eigenvalue <= 0 where its Cholesky
    factor still exists: those runs stop as diverged, as single runs do, and the rest go on
    (the sweep once raised LinAlgError for the whole grid here)."""
    problem = make_problem("brockett", 4, 4, seed=3)
    res = sweep(problem, beta=(0.5,), omega=(0.5, 2.0), eta=(0.05, 0.3, 2.0), seed=(0, 1),
                distance=0.5, tangent="euclidean", max_iter=150)
    assert "diverged" in set(res.status) and len(set(res.status)) > 1

    def config(beta, omega, eta):
        return Config(beta=beta, omega=omega, step=eta, tangent="euclidean")

    _assert_cells_match(problem, res, config, distance=0.5, max_iter=150)


@pytest.mark.filterwarnings("ignore:overflow encountered")
@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_runs_with_non_finite_iterates_stop_as_diverged_and_the_rest_go_on(brockett_5_2):
    """eta = 1e3 blows ||h|| past the divergence bound; eta = 1e308 overflows X_1 itself to
    inf, which the sweep sets apart before evaluating. Both stop at their last finite iterate,
    as single runs do, while the small step converges."""
    res = sweep(brockett_5_2, eta=(0.1, 1e3, 1e308), seed=SEEDS, max_iter=MAX_ITER)
    assert list(res.status.reshape(3, 2)[:, 0]) == ["converged", "diverged", "diverged"]
    _assert_cells_match_single_runs(brockett_5_2, res, "constant")
    assert np.all(res.iterations.reshape(3, 2)[2] == 0)


def test_a_run_that_crosses_to_the_other_component_gets_that_component_optimum():
    """linear(2, 2), seed 14: eta = 0.6 jumps across det X = 0, eta = 0.1 does not; each run's
    gap is taken in its final iterate's component (X_0's would give -2.12 for the first)."""
    problem = make_problem("linear", 2, 2, seed=14)
    res = sweep(problem, beta=(1.0,), omega=(1.0,), eta=(0.6, 0.1), seed=(14,), distance=0.4,
                max_iter=2000)
    assert np.all(res.status == "converged")
    assert res.f_star[0] != res.f_star[1]  # different components
    assert np.all(np.abs(res.final_gap) <= 1e-8)


def test_observe_sees_every_valid_iterate_as_a_single_run_records_it(brockett_5_2):
    """run_batch's ``observe``: per run, X_k, f, ||h||, ||grad||, the step that produced X_k and
    eta omega, as ``landing``'s histories (converging runs: rounding does not grow, 1e-12)."""
    seen: dict[int, list] = {}

    def observe(it):
        for j, i in enumerate(it.runs):
            seen.setdefault(int(i), []).append(
                (it.k, it.X[j].copy(), it.cost[j], it.infeasibility[j], it.grad_norm[j],
                 it.step[j], it.normal_step[j]))

    res = sweep(brockett_5_2, beta=(0.5, 2.0), omega=(1.0, 3.0), eta=(0.1,), step="safe",
                max_iter=MAX_ITER, observe=observe)
    for i in range(res.status.size):
        single = _single(brockett_5_2, res.params, i, "safe", 0.5)
        rows = seen[i]
        assert [r[0] for r in rows] == list(range(single.iterations + 1))
        for name, col in (("cost", 2), ("infeasibility", 3), ("grad_norm", 4), ("step", 5),
                          ("normal_step", 6)):
            np.testing.assert_allclose([r[col] for r in rows], getattr(single, name),
                                       rtol=1e-12, atol=1e-12, err_msg=name)
