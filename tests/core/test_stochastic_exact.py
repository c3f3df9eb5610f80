"""The stochastic methods' fast paths give the numbers of the plain computation.

The field of an estimate without its stationarity measure (``landing_direction(measure=False)``)
against the full field on the same G; SGD and SAGA driven by ``stochastic.epochs`` against
plain reference loops written here from the algorithms (random reshuffling, the minibatch mean
of -a_i a_i^T X, SAGA's table of whole sample gradients, ``geometry.landing_field``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from landing_core import geometry as geo
from landing_core.problems import initial_point, online_pca
from landing_core.solvers import Config, iterate, make_method
from landing_core.stochastic import epochs, stochastic_config

SHAPES = st.integers(1, 9).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n)))
BETAS = st.one_of(st.just(0.5), st.floats(0.05, 20.0))


@settings(max_examples=60, deadline=None)
@given(shape=SHAPES, beta=BETAS, omega=st.floats(0.0, 10.0), runs=st.integers(0, 3),
       tangent=st.sampled_from(sorted(geo.TANGENT_TERMS)), seed=st.integers(0, 2**32 - 1))
def test_the_field_without_its_measure_is_the_same_field(shape, beta, omega, runs, tangent,
                                                         seed):
    """V, H and ||T|| are the full call's bit for bit (beta = 1/2 skips the solve: its term is
    0 S), whether one run or a stack with per-run beta and omega; V is landing_field's."""
    n, p = shape
    rng = np.random.default_rng(seed)
    lead = (runs,) if runs else ()
    X = initial_point(n, p, 0.4, seed=seed) + 0.05 * rng.standard_normal(lead + (n, p))
    G = rng.standard_normal(lead + (n, p))
    b = np.full(runs, beta) if runs else beta
    w = np.full(runs, omega) if runs else omega
    full = geo.landing_direction(X, G, b, w, tangent)
    fast = geo.landing_direction(X, G, b, w, tangent, measure=False)
    assert fast.stationarity is None and full.stationarity is not None
    np.testing.assert_array_equal(fast.V, full.V)
    np.testing.assert_array_equal(fast.H, full.H)
    np.testing.assert_array_equal(fast.tangent_norm, full.tangent_norm)
    _, V, _ = geo.landing_field(X, G, b, w, tangent)
    np.testing.assert_allclose(fast.V, V, rtol=1e-11, atol=1e-11 * (1 + np.abs(V).max()))


@settings(max_examples=40, deadline=None)
@given(shape=SHAPES, m=st.integers(1, 40), data=st.data(), runs=st.integers(0, 3))
def test_online_pcas_one_pass_minibatch_is_the_generic_one(shape, m, data, runs):
    """``batch_cost_and_egrad`` (one gather) against the protocol's sample_terms + entry_sum
    and against the sample gradients -a_i a_i^T X summed here."""
    n, p = shape
    problem = online_pca(n, p, samples=m, seed=m)
    b = data.draw(st.integers(1, m))
    idx = np.random.default_rng(b).choice(m, size=b, replace=False)
    X = np.random.default_rng(m + b).standard_normal(((runs,) if runs else ()) + (n, p))
    f, G = problem.minibatch(X, idx)
    values, E = problem.sample_terms(X, idx)
    # a sum of b terms of one sign (-||X^T a_i||^2 / 2): within b eps of it, relatively
    eps = np.finfo(float).eps
    np.testing.assert_allclose(f, values.sum(axis=-1) / b, rtol=4 * b * eps, atol=1e-300)
    np.testing.assert_array_equal(G, problem.entry_sum(E, idx) / b)
    rows = problem.samples[idx]
    C = rows.T @ rows / b
    # both sides are sums of (n + b) products a_ij a_ik x_kl: each entry within (n + b) eps
    # of the sum of their magnitudes, |A|^T |A| |X| / b
    scale = np.abs(rows).T @ np.abs(rows) @ np.abs(X) / b
    assert np.all(np.abs(G + C @ X) <= 4 * (n + b) * eps * scale)
    assert np.shape(f) == X.shape[:-2]


# ----------------------------------------------------------------------------- trajectories


def reference_run(A: np.ndarray, X0: np.ndarray, *, saga: bool, b: int, eta: float,
                  beta: float, omega: float, seed: int, updates: int) -> list[np.ndarray]:
    """SGD or SAGA landing written out (Ablin, Vary, Gao & Absil 2024, Algorithms 2 and 3):
    the iterates after every update. Batches: the permutation of epoch e drawn from
    default_rng((seed, e)), cut in consecutive runs of b. SAGA's table holds each sample's
    whole gradient -a_i a_i^T phi_i, started at X0."""
    m = len(A)
    per_epoch = -(-m // b)

    def grads(X, idx):  # one (n, p) gradient per sample
        return np.stack([-np.outer(A[i], A[i]) @ X for i in idx])

    X = X0.copy()
    table = grads(X0, range(m)) if saga else None
    out = []
    for k in range(updates):
        epoch, j = divmod(k, per_epoch)
        idx = np.random.default_rng((seed, epoch)).permutation(m)[j * b:(j + 1) * b]
        new = grads(X, idx)
        if saga:
            G = (new - table[idx]).mean(axis=0) + table.mean(axis=0)
            table[idx] = new
        else:
            G = new.mean(axis=0)
        X = X - eta * geo.landing_field(X, G, beta, omega).V
        out.append(X)
    return out


@pytest.mark.parametrize("method", ["sgd", "saga"])
@pytest.mark.parametrize(("beta", "b"), [(0.5, 4), (0.3, 7), (2.0, 1)])
def test_epochs_follow_the_written_out_algorithm(method, beta, b):
    """The iterates at the epochs' ends are the reference loop's to rounding, and
    exactly those of ``iterate`` with the method that measures every estimate."""
    problem = online_pca(6, 3, samples=30, seed=2)
    X0 = initial_point(6, 3, 0.3, seed=4)
    eta, n_epochs = 0.01, 4
    config = stochastic_config(method, batch_size=b, step=eta, beta=beta, omega=1.5, seed=9,
                               problem=problem)
    records = list(epochs(problem, X0, config, n_epochs))
    per_epoch = -(-30 // b)
    ref = reference_run(problem.samples, X0, saga=method == "saga", b=b, eta=eta, beta=beta,
                        omega=1.5, seed=9, updates=n_epochs * per_epoch)
    measured = iterate(problem, X0, config)  # the method as solve and sweep build it
    assert make_method(config, problem).measure
    path = [rec.X for rec in (next(measured) for _ in range(n_epochs * per_epoch + 1))]
    # each update rounds X by a few products of length <= n + p (relative (n + p) eps); with a
    # small step the updates contract towards the manifold, so the errors add, not grow
    eps = np.finfo(float).eps
    for rec in records[1:]:
        want = ref[rec.updates - 1]
        tol = 4 * rec.updates * (6 + 3) * eps * np.abs(want).max()
        np.testing.assert_allclose(rec.X, want, rtol=0, atol=tol)
        np.testing.assert_array_equal(rec.X, path[rec.updates])
    assert [rec.epoch for rec in records] == list(range(n_epochs + 1))


def test_a_start_whose_gram_matrix_is_singular_is_refused():
    """At beta = 1/2 an estimate's field solves nothing: the full sum's measure at X_0 is
    what finds X^T X singular, with iterate's message."""
    problem = online_pca(4, 2, samples=8, seed=0)
    u, v = np.eye(4)[:2]
    # two columns 1e-11 apart: rank 2 for iterate's test, X^T X = [[1, 1], [1, 1 + 1e-22]]
    # singular in floats
    X0 = np.stack([u, u + 1e-11 * v], axis=1)
    config = stochastic_config("sgd", batch_size=2, step=0.01, beta=0.5, omega=1.0, seed=0,
                               problem=problem)
    with pytest.raises(ValueError, match="X0 is not a valid start: XᵀX is not positive"):
        list(epochs(problem, X0, config, 1))
    with pytest.raises(ValueError, match="X0 is not a valid start"):
        next(iterate(problem, X0, Config(method="sgd", options={"batch_size": 2})))
