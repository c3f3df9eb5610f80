"""Stochastic landing on finite sums: the problem's sums against independent computations, the
SAGA estimator's unbiasedness by exact enumeration, the goals (SAGA converges, constant-step
SGD plateaus), reproducibility, and bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import compare
from landing_core import Config, check_gradient, initial_point, make_problem, solve
from landing_core.methods import methods_for
from landing_core.methods.minibatch import Minibatches
from landing_core.methods.saga import saga_estimate
from landing_core.problems import FiniteSum, online_pca
from landing_core.solvers import METHODS, make_method
from landing_core.steps import Decreasing, StepContext
from landing_core.stochastic import default_step, stochastic_landing
from landing_core.sweep import sweep

EPS = np.finfo(float).eps


@pytest.fixture(scope="module")
def small():
    return online_pca(6, 2, samples=9, seed=3)


def rounding(depth: int, bound: np.ndarray) -> float:
    """The rounding error of sums of ``depth`` products, each bounded entrywise by ``bound``
    (products of absolute values), with a factor 8 of slack: a tolerance no kernel exceeds."""
    return 8 * depth * EPS * float(np.max(bound))


def per_sample_grads(A: np.ndarray, X: np.ndarray) -> np.ndarray:
    """grad f_i(X) = -a_i a_i^T X for f_i = -1/2 ||X^T a_i||^2, one (n, p) matrix per sample."""
    return np.stack([-np.outer(a, a) @ X for a in A])


def test_the_full_gradient_is_the_mean_of_the_sample_gradients(small):
    X = initial_point(6, 2, 0.4, seed=1)
    A = small.samples
    grads = per_sample_grads(A, X)
    f, G = small.value_and_grad(X)
    # every sum runs over the n = 6 coordinates and the m = 9 samples, of terms |a_i||a_i|^T|X|
    err = rounding(6 + 9, abs(A).T @ abs(A) @ abs(X) / 9)
    np.testing.assert_allclose(G, grads.mean(axis=0), rtol=0, atol=err)
    np.testing.assert_allclose(G, -(A.T @ A / 9) @ X, rtol=0, atol=err)
    # f sums terms of one sign, so its relative error is at most the sums' depth times eps
    assert f == pytest.approx(np.mean([-0.5 * np.sum((X.T @ a) ** 2) for a in A]),
                              rel=8 * (6 + 2 + 9) * EPS)
    assert check_gradient(small, X).passed
    # each sample's entry, summed through the linear map, is its own gradient
    for i in range(9):
        values, E = small.sample_terms(X, np.array([i]))
        np.testing.assert_allclose(small.entry_sum(E, np.array([i])), grads[i], rtol=0,
                                   atol=rounding(6 + 1, np.outer(abs(A[i]), abs(A[i])) @ abs(X)))
        assert values[0] == pytest.approx(-0.5 * np.sum((X.T @ A[i]) ** 2), rel=8 * (6 + 2) * EPS)


def test_f_star_is_the_optimum_from_the_singular_vectors(small):
    _, s, Vt = np.linalg.svd(small.samples, full_matrices=False)
    X_star = Vt[:2].T  # the top-2 right singular vectors: the top principal subspace
    # a backward-stable SVD (or eigensolver) of the 9 x 6 samples errs by a few eps ||A||^2 in
    # each s_i^2, and f* sums two of them, of one sign
    rel = 8 * (9 + 6) * EPS * s[0] ** 2 / np.sum(s[:2] ** 2)
    assert small.f_star == pytest.approx(-0.5 * np.sum(s[:2] ** 2) / 9, rel=rel)
    assert small.cost(X_star) == pytest.approx(small.f_star, rel=rel)
    assert small.lipschitz == pytest.approx(np.max(np.sum(small.samples ** 2, axis=1)))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), b=st.integers(1, 9), stack=st.booleans())
def test_a_minibatch_is_the_mean_over_its_samples(small, seed, b, stack):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((3, 6, 2) if stack else (6, 2))
    idx = rng.choice(9, size=b, replace=False)
    f, G = small.minibatch(X, idx)
    for j, Xj in enumerate(X if stack else [X]):
        A = small.samples[idx]
        grads = per_sample_grads(A, Xj)
        np.testing.assert_allclose(G[j] if stack else G, grads.mean(axis=0), rtol=0,
                                   atol=rounding(6 + b, abs(A).T @ abs(A) @ abs(Xj) / b))
        want = np.mean([-0.5 * np.sum((Xj.T @ a) ** 2) for a in A])
        assert (f[j] if stack else f) == pytest.approx(want, rel=8 * (6 + 2 + b) * EPS)


@pytest.mark.parametrize("b", [1, 2, 4])
def test_the_saga_estimate_is_unbiased_by_exact_enumeration(small, b):
    """Over all C(m, b) batches drawn uniformly, the mean of the SAGA estimate at X is grad f(X),
    whatever points phi_i the table holds; the new mean is the mean of the updated table."""
    rng = np.random.default_rng(b)
    X = rng.standard_normal((6, 2))
    phis = rng.standard_normal((9, 6, 2))
    table = np.stack([small.sample_terms(phi, np.array([i]))[1][0]
                      for i, phi in enumerate(phis)])
    mean = np.mean([per_sample_grads(small.samples[[i]], phis[i])[0] for i in range(9)], axis=0)
    A = small.samples
    # every entry, old or new, is bounded entrywise by |a_i||a_i|^T(|X| + |phi_i|); an estimate
    # adds two means of such entries, over the batch and over the table
    terms = 2 * np.max([np.outer(abs(a), abs(a)) @ (abs(X) + abs(phi))
                        for a, phi in zip(A, phis, strict=True)], axis=0)
    estimates = []
    for batch in itertools.combinations(range(9), b):
        idx = np.array(batch)
        before = table.copy()
        _, G, entries, new_mean = saga_estimate(small, X, idx, table, mean)
        np.testing.assert_array_equal(table, before)  # the estimate leaves the table alone
        estimates.append(G)
        updated = table.copy()
        updated[idx] = entries
        np.testing.assert_allclose(new_mean, small.entry_sum(updated, np.arange(9)) / 9,
                                   rtol=0, atol=rounding(6 + 9 + b, terms))
    np.testing.assert_allclose(np.mean(estimates, axis=0), small.egrad(X), rtol=0,
                               atol=rounding(6 + 9 + b + len(estimates), terms))
    assert np.std(estimates, axis=0).max() > 1e-3  # a real random variable, not the mean


def test_the_schedule_uses_every_sample_once_per_epoch():
    batches = Minibatches(m=1000, size=30, seed=4)
    assert batches.per_epoch == 34
    for epoch in range(2):
        seen = np.concatenate([batches(epoch * 34 + j) for j in range(34)])
        np.testing.assert_array_equal(np.sort(seen), np.arange(1000))
    assert not np.array_equal(batches(0), batches(34))  # a new order each epoch
    assert batches.used(34) == 1000 and batches.used(35) == 1030 and batches.used(68) == 2000


# ----------------------------------------------------------------------------- the goals


@pytest.fixture(scope="module")
def goal():
    problem = online_pca(20, 3, samples=1000)
    X0 = initial_point(20, 3, 0.3, seed=0)
    return problem, X0, {m: stochastic_landing(problem, X0, method=m, batch_size=10, epochs=200)
                         for m in ("saga", "sgd")}


def gap(result, problem):
    return np.abs(result.cost - problem.f_star) / abs(problem.f_star)


def test_saga_reaches_the_optimum_within_200_epochs(goal):
    problem, _, runs = goal
    saga = runs["saga"]
    ok = (gap(saga, problem) <= 1e-8) & (saga.infeasibility <= 1e-8)
    assert ok.any(), (gap(saga, problem)[-1], saga.infeasibility[-1])
    assert np.argmax(ok) <= 200
    assert saga.sample_gradients[-1] == 1000 + 1000 * saga.epochs  # table + one per epoch
    assert saga.updates == 100 * saga.epochs


def test_constant_step_sgd_plateaus(goal):
    problem, _, runs = goal
    sgd = runs["sgd"]
    assert sgd.status == "max_iter" and sgd.epochs == 200
    g = gap(sgd, problem)
    assert g[100:].min() > 1e-4  # the noise floor, 4 orders above SAGA's goal
    assert g[190:].mean() > 0.5 * g[90:100].mean()  # no progress over the last 100 epochs
    assert sgd.infeasibility[100:].min() > 1e-3  # the noise keeps X off the manifold too
    assert sgd.sample_gradients[-1] == 200 * 1000


def test_a_decreasing_step_goes_below_the_constant_steps_floor(goal):
    problem, X0, runs = goal
    eta = default_step(problem, 10)
    slow = stochastic_landing(problem, X0, method="sgd", batch_size=10, epochs=200,
                              step=Decreasing(eta, half_life=2000))
    assert gap(slow, problem)[-1] < 0.1 * gap(runs["sgd"], problem)[-1]
    rule = Decreasing(0.4, half_life=10)
    ctx = StepContext(*(None,) * 7, k=30)
    assert rule(ctx, {}) == pytest.approx(0.1)


def _at(k: int) -> StepContext:
    return StepContext(*(None,) * 7, k=k)


@settings(max_examples=60, deadline=None)
@given(eta=st.floats(1e-6, 10.0), k0=st.integers(1, 10**6), k=st.integers(0, 10**7))
def test_a_delayed_decrease_is_eta_then_eta_k0_over_k(eta, k0, k):
    """half_life = constant_for = k_0: eta exactly before k_0 (the constant step's curve,
    bit for bit), eta k_0 / k from k_0 on (three roundings), never increasing."""
    rule = Decreasing(eta, half_life=k0, constant_for=k0)
    value = rule(_at(k), {})
    if k <= k0:
        assert value == eta
    else:
        assert value == pytest.approx(eta * k0 / k, rel=4 * EPS)
    assert 0 < rule(_at(k + 1), {}) <= value


def test_the_decreasing_steps_values():
    rule = Decreasing(0.4, half_life=10)
    assert [rule(_at(k), {}) for k in (0, 10, 30)] == pytest.approx([0.4, 0.2, 0.1],
                                                                     rel=2 * EPS)
    # about k_0 itself (a draw hypothesis rarely makes): eta h / h rounds one unit above eta
    # for this eta and k_0, which made a step up at k_0 in the rule's first version
    eta, k0 = 3.5290949463498174, 423091
    assert eta * k0 / k0 > eta
    delayed = Decreasing(eta, half_life=k0, constant_for=k0)
    steps = [delayed(_at(k), {}) for k in (k0 - 1, k0, k0 + 1)]
    assert steps[0] == steps[1] == eta > steps[2]
    later = Decreasing(0.4, half_life=10, constant_for=5)
    assert [later(_at(k), {}) for k in (0, 5, 15, 35)] == pytest.approx([0.4, 0.4, 0.2, 0.1],
                                                                        rel=2 * EPS)


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_a_bad_constant_phase_is_refused(bad):
    with pytest.raises(ValueError, match="constant_for must be a finite number >= 0"):
        Decreasing(0.1, half_life=10, constant_for=bad)


def test_full_batch_landing_runs_one_update_per_epoch(goal):
    problem, X0, _ = goal
    full = stochastic_landing(problem, X0, method="landing", epochs=5)
    ref = solve(problem, X0, Config(step=default_step(problem, 10)), max_iter=5)
    np.testing.assert_allclose(full.cost, ref.cost, rtol=1e-13)
    assert full.updates == 5 and list(full.sample_gradients) == [0, 1000, 2000, 3000, 4000,
                                                                  5000]


def test_a_run_is_reproducible_from_its_seed(goal):
    problem, X0, _ = goal
    runs = [stochastic_landing(problem, X0, method="saga", batch_size=50, epochs=3, seed=s)
            for s in (7, 7, 8)]
    np.testing.assert_array_equal(runs[0].X, runs[1].X)
    np.testing.assert_array_equal(runs[0].cost, runs[1].cost)
    assert not np.allclose(runs[0].X, runs[2].X)
    assert dict(runs[0].config.options) == {"batch_size": 50, "seed": 7}


# ----------------------------------------------------------------------------- the extension point


def test_the_methods_are_registered_and_run_by_solve_and_sweep(small):
    assert {"sgd", "saga"} <= set(METHODS)
    # the compare table runs the catalogue's problems, which have no samples
    assert {"sgd", "saga"}.isdisjoint(compare.row_methods())
    assert set(methods_for(FiniteSum)) == set(METHODS)
    assert "landing" in compare.row_methods()
    X0 = initial_point(6, 2, 0.2, seed=0)
    res = solve(small, X0, Config(method="saga", step=0.01, options={"batch_size": 3}),
                max_iter=20000, tol=1e-10)
    assert res.status == "converged"  # SAGA's estimate is exact at the optimum
    # the records hold the minibatch's cost, the estimate the method made
    assert abs(small.cost(res.X) - small.f_star) <= 1e-12 * abs(small.f_star)
    for name in ("sgd", "saga"):  # SAGA's table gets a batch axis: (runs, m, p)
        swept = sweep(small, eta=(0.005, 0.01), seed=(0, 1), method=name,
                      options={"batch_size": 3}, max_iter=50)
        for i in range(4):
            eta, seed = float(swept.params["eta"][i]), int(swept.params["seed"][i])
            single = solve(small, initial_point(6, 2, 0.3, seed),
                           Config(method=name, step=eta, options={"batch_size": 3}),
                           max_iter=50)
            assert swept.final_cost[i] == pytest.approx(single.cost[-1], rel=1e-10)
            assert swept.final_infeasibility[i] == pytest.approx(single.infeasibility[-1],
                                                                 rel=1e-9)


def test_sagas_table_and_running_mean_stay_exact(small):
    """After many updates the table holds each sample's entry at the iterate where it was last
    drawn, and the incrementally updated mean is the table's mean."""
    method = make_method(Config(method="saga", options={"batch_size": 2}), small)
    X = initial_point(6, 2, 0.2, seed=5)
    state = method.init(X)
    drawn_at = {}
    for k in range(400):
        idx = method.batches(k)
        _, G, state = method.gradient(small, X, state)
        fld, _ = method.field(X, G, state)
        drawn_at.update({int(i): X for i in idx})
        X = method.move(X, fld, 0.01)
    table = method.table(state, 0)
    A = small.samples
    for i, Xi in drawn_at.items():
        np.testing.assert_allclose(table[i], A[i] @ Xi, rtol=0,
                                   atol=rounding(6, abs(A[i]) @ abs(Xi)))
    # the mean is updated incrementally over 400 steps: each adds a rounding of its own
    bound = np.outer(abs(A).max(axis=0), abs(A).max(axis=0)) @ np.max(
        [abs(Xi) for Xi in drawn_at.values()], axis=0)
    np.testing.assert_allclose(state["mean"], small.entry_sum(table, np.arange(9)) / 9,
                               rtol=0, atol=rounding(6 + 9 + 400, bound))


def test_the_same_memory_gives_the_same_saga_estimate(small):
    """A sweep evaluates its runs again when one of them broke: the memory passed in must
    still give the estimate it gave (the table's update is deferred, then idempotent)."""
    method = make_method(Config(method="saga", options={"batch_size": 2}), small)
    X = initial_point(6, 2, 0.2, seed=5)
    state = method.init(X)
    for _ in range(3):
        _, G, state = method.gradient(small, X, state)
        X = X - 0.05 * G
    first = method.gradient(small, X, state)
    again = method.gradient(small, X, state)
    np.testing.assert_array_equal(first[1], again[1])
    np.testing.assert_array_equal(first[2]["mean"], again[2]["mean"])


# ----------------------------------------------------------------------------- bad input


def test_bad_input_gets_clear_errors(small):
    X0 = initial_point(6, 2, 0.2, seed=0)
    with pytest.raises(ValueError, match=r"batch_size must be an integer from 1 to .* m = 9"):
        stochastic_landing(small, X0, batch_size=10, epochs=1)
    with pytest.raises(ValueError, match="epochs must be an integer >= 1"):
        stochastic_landing(small, X0, batch_size=3, epochs=0)
    with pytest.raises(ValueError, match="has no samples"):
        stochastic_landing(make_problem("pca", 6, 2), X0, batch_size=3, epochs=1)
    with pytest.raises(ValueError, match="has no samples"):
        solve(make_problem("pca", 6, 2), X0, Config(method="sgd"))
    with pytest.raises(ValueError, match="batch_size must be"):
        Config(method="saga", options={"batch_size": 0})
    with pytest.raises(ValueError, match="samples must be an integer"):
        online_pca(6, 2, samples=0)


def test_saga_refuses_a_table_above_its_memory_bound():
    problem = online_pca(50, 10, samples=20000)  # 20000 x 10 floats: 1.5 MB
    X0 = initial_point(50, 10, 0.2, seed=0)
    with pytest.raises(ValueError, match=r"needs 2 MB \(20000 samples x 10 floats\), above "
                                         r"the bound of 1 MB \(table_limit_mb\): lower the "
                                         "number of samples"):
        stochastic_landing(problem, X0, method="saga", epochs=1, table_limit_mb=1)
    with pytest.raises(ValueError, match=r"x 4 runs.*or of runs"):
        sweep(problem, eta=(0.01, 0.02), seed=(0, 1), method="saga",
              options={"table_limit_mb": 4}, max_iter=1)
    assert stochastic_landing(problem, X0, method="saga", batch_size=1000,
                              epochs=1).epochs == 1


def frame_average(n: int, p: int, m: int, seed: int = 0) -> FiniteSum:
    """f_i(X) = 1/2 ||X - C_i||^2 over noisy copies C_i of a frame: a finite sum whose entries
    are the whole gradients X - C_i (n p floats, the generic table). On St(n, p),
    f = p/2 - <C, X> + mean 1/2 ||C_i||^2 with C the mean, so f* = p/2 - ||C||_* + that mean."""
    rng = np.random.default_rng(seed)
    Cs = np.linalg.qr(rng.standard_normal((n, p)))[0] + 0.3 * rng.standard_normal((m, n, p))
    C = Cs.mean(axis=0)
    const = 0.5 * np.mean(np.sum(Cs**2, axis=(1, 2)))

    def cost_and_egrad(X):
        value = 0.5 * np.sum(X * X, axis=(-2, -1)) - np.sum(C * X, axis=(-2, -1)) + const
        return value, X - C

    def sample_terms(X, idx):
        D = X[..., None, :, :] - Cs[idx]
        return 0.5 * np.sum(D * D, axis=(-2, -1)), D

    return FiniteSum(n=n, p=p, name="frame average", cost=lambda X: cost_and_egrad(X)[0],
                     egrad=lambda X: cost_and_egrad(X)[1], cost_and_egrad=cost_and_egrad,
                     f_star=p / 2 - np.linalg.svd(C, compute_uv=False).sum() + const,
                     n_samples=m, sample_terms=sample_terms,
                     entry_sum=lambda E, idx: E.sum(axis=-3), entry_floats=n * p, lipschitz=1.0)


def test_a_finite_sum_with_whole_gradients_as_entries():
    """The generic table (m x n x p): SAGA's gather and scatter on matrix entries, in one run and
    in a sweep, converges to the optimum; the memory bound counts n p floats per sample."""
    problem = frame_average(7, 3, 60)
    X0 = initial_point(7, 3, 0.2, seed=1)
    assert check_gradient(problem, X0).passed
    res = stochastic_landing(problem, X0, method="saga", batch_size=4, epochs=60, step=0.05)
    assert res.status == "converged"
    assert abs(res.cost[-1] - problem.f_star) <= 1e-9 * abs(problem.f_star)
    sgd = stochastic_landing(problem, X0, method="sgd", batch_size=4, epochs=60, step=0.05)
    assert abs(sgd.cost[-1] - problem.f_star) > 1e-5 * abs(problem.f_star)
    swept = sweep(problem, eta=(0.05,), seed=(0, 1), method="saga",
                  options={"batch_size": 4}, max_iter=50)
    for i in range(2):
        single = solve(problem, initial_point(7, 3, 0.3, i),
                       Config(method="saga", step=0.05, options={"batch_size": 4}), max_iter=50)
        assert swept.final_cost[i] == pytest.approx(single.cost[-1], rel=1e-10)
    with pytest.raises(ValueError, match=r"60 samples x 21 floats"):
        stochastic_landing(problem, X0, method="saga", epochs=1, table_limit_mb=1e-3)
