"""The extension point: a method defined and registered in one module (this one), with no edit
anywhere else, runs through solve, sweep and the app's configuration checks by name.

The method is heavy-ball landing written from the protocol alone, so it can be checked against
the library's own ``momentum`` module: two independent implementations must agree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from landing_core import geometry, initial_point, make_problem, methods
from landing_core.methods import Field, Method, State
from landing_core.methods.landing import Landing
from landing_core.problems import Problem
from landing_core.solvers import METHODS, Config, solve
from landing_core.steps import Safe
from landing_core.sweep import sweep

NAME = "heavy-ball-test"


@dataclass(frozen=True)
class HeavyBall(Method):
    """V_k = M_k + omega X_k h(X_k), M_k = T_k + gamma Proj_{X_k}(M_{k-1}), T the beta-metric
    gradient; per-run beta and omega broadcast over a batch."""

    beta: float | np.ndarray = 0.5
    omega: float | np.ndarray = 1.0
    gamma: float = 0.8
    landing: ClassVar[bool] = True
    per_run: ClassVar[tuple[str, ...]] = ("beta", "omega")

    @property
    def normal_weight(self) -> float | np.ndarray:
        return self.omega

    def field(self, X: np.ndarray, G: np.ndarray, state: State) -> tuple[Field, State]:
        T = geometry.grad_beta(X, G, self.beta)
        M = T + geometry.proj_tangent(X, self.gamma * state["M"]) if state else T
        H = geometry.h(X)
        V = M + X @ (geometry.per_run(self.omega) * H)
        # the stopping rule's measure: the base class's, the same for every method
        # T and the buffer's gain 1 / (1 - gamma): what the curvature rules read (Field)
        return Field(V, H, self.stationarity(X, G), geometry.frobenius_norm(M), T,
                     1.0 / (1.0 - self.gamma)), {"M": M}


@pytest.fixture
def registered():
    methods.register(NAME, "Heavy-ball landing (test)")(
        lambda *, beta, omega, gamma=0.8: HeavyBall(beta, omega, gamma))
    yield NAME
    methods.unregister(NAME)
    assert NAME not in METHODS


@pytest.fixture(scope="module")
def problem():
    return make_problem("brockett", 10, 3, seed=4), initial_point(10, 3, 0.4, seed=2)


def test_a_registered_method_is_listed_and_checked_by_the_app(registered):
    from explorer.compare import Row, parse_row

    assert METHODS[registered] == "Heavy-ball landing (test)"
    assert parse_row(Row("mine", method=registered).cells()).method == registered


@pytest.mark.parametrize("step", [0.05, Safe(0.2), None])
def test_solve_runs_it_and_it_agrees_with_the_library_momentum(registered, problem, step):
    problem, X0 = problem
    mine = solve(problem, X0, Config(method=registered, beta=0.7, step=step,
                                     options={"gamma": 0.6}), max_iter=3000)
    ref = solve(problem, X0, Config(method="momentum", beta=0.7, step=step,
                                    options={"gamma": 0.6}), max_iter=3000)
    assert mine.status == ref.status and mine.iterations == ref.iterations
    for a, b in ((mine.cost, ref.cost), (mine.infeasibility, ref.infeasibility),
                 (mine.grad_norm, ref.grad_norm), (mine.step, ref.step)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert mine.status == "converged"
    assert abs(mine.cost[-1] - problem.f_star) <= 1e-8 * abs(problem.f_star)


def test_sweep_runs_it_like_single_runs(registered, problem):
    problem, _ = problem
    res = sweep(problem, beta=(0.3, 2.0), omega=(1.0, 4.0), eta=(0.05, 0.1), seed=(0, 1),
                step="safe", method=registered, options={"gamma": 0.5}, max_iter=600)
    assert "converged" in set(res.status)
    for i in range(res.status.size):
        beta, omega, eta, seed = (res.params[k][i] for k in ("beta", "omega", "eta", "seed"))
        single = solve(problem, initial_point(10, 3, 0.3, int(seed)),
                       Config(beta=float(beta), omega=float(omega), step=Safe(float(eta)),
                              method=registered, options={"gamma": 0.5}), max_iter=600)
        assert (res.status[i], res.iterations[i]) == (single.status, single.iterations)
        assert res.final_cost[i] == pytest.approx(single.cost[-1], rel=1e-10)


# ----------------------------------------------------------------------------- a stochastic one


@dataclass(frozen=True)
class FiniteSum(Problem):
    """f(X) = 1/m sum_i f_i(X), f_i(X) = -1/2 ||X^T a_i||^2 (PCA from the samples a_i, the rows
    of ``samples``): a problem that carries data for a method to read."""

    samples: np.ndarray | None = None


def finite_sum_pca(n: int, p: int, m: int, seed: int = 0) -> FiniteSum:
    A = np.random.default_rng(seed).standard_normal((m, n)) * np.linspace(2.0, 0.5, n)
    C = A.T @ A / m
    f_star = -0.5 * float(np.sum(np.linalg.eigvalsh(C)[-p:]))
    return FiniteSum(name="finite-sum pca", n=n, p=p, cost=lambda X: -0.5 * np.einsum(
        "...ij,...ij->...", X, C @ X), egrad=lambda X: -(C @ X), f_star=f_star, samples=A)


@dataclass(frozen=True)
class SagaLanding(Method):
    """Landing with the SAGA estimate of the gradient (Defazio et al. 2014) over cyclic
    minibatches: G = mean_{i in batch}(grad f_i(X) - table_i) + mean(table), then the table
    takes grad f_i(X) for the batch. The table (m x n x p per run) lives in ``state``."""

    inner: Landing
    problem: FiniteSum | None
    batch: int = 5
    landing: ClassVar[bool] = True

    @property
    def normal_weight(self) -> float | np.ndarray:
        return self.inner.omega

    def _sample_grads(self, X: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """grad f_i(X) = -a_i (a_i^T X) for the rows a_i (..., b, n): shape (..., b, n, p)."""
        return -rows[..., :, None] * (rows @ X)[..., :, None, :]

    def init(self, X: np.ndarray) -> State:
        A = self.problem.samples
        table = self._sample_grads(X, A)
        return {"table": table, "mean": table.mean(axis=-3), "k": np.zeros(X.shape[:-2], int)}

    def gradient(self, problem, X, state):
        A = self.problem.samples
        idx = (state["k"][..., None] * self.batch + np.arange(self.batch)) % len(A)
        new = self._sample_grads(X, A[idx])
        old = np.take_along_axis(state["table"], idx[..., None, None], axis=-3)
        table = state["table"].copy()
        np.put_along_axis(table, idx[..., None, None], new, axis=-3)
        change = new - old
        G = change.mean(axis=-3) + state["mean"]
        mean = state["mean"] + change.sum(axis=-3) / len(A)
        return problem.cost(X), G, {"table": table, "mean": mean, "k": state["k"] + 1}

    def field(self, X, G, state):
        return self.inner.field(X, G, {})[0], state

    def move(self, X, field, eta, omega=None):
        return self.inner.move(X, field, eta, omega)


@pytest.fixture
def saga():
    methods.register("saga-test", "SAGA landing (test)")(
        lambda *, beta, omega, tangent, problem, batch=5: SagaLanding(
            Landing(beta, omega, tangent), problem, batch))
    yield "saga-test"
    methods.unregister("saga-test")


def test_a_stochastic_method_plugs_in_through_the_gradient_hook(saga):
    """The method reads the problem's samples (the factory's ``problem``) and keeps its table
    in the run's memory; solve and sweep run it unchanged, and SAGA's constant step reaches
    the optimum exactly (cyclic minibatches: deterministic)."""
    # 20 samples in minibatches of 5: four different minibatch gradients per epoch, so the
    # estimate is stochastic and only SAGA's table makes a constant step reach the optimum
    problem = finite_sum_pca(8, 2, 20)
    X0 = initial_point(8, 2, 0.2, 0)
    res = solve(problem, X0, Config(method=saga, step=0.1, options={"batch": 5}),
                max_iter=20000, tol=1e-10)
    assert res.status == "converged"
    assert abs(res.cost[-1] - problem.f_star) <= 1e-12 * abs(problem.f_star)
    assert res.infeasibility[-1] <= 1e-12
    # two steps and two seeds whose four iteration counts all differ: a mix-up of the grid's
    # axes (or of any two cells) changes them
    swept = sweep(problem, eta=(0.08, 0.1), seed=(0, 1), method=saga, options={"batch": 5},
                  max_iter=20000, tol=1e-10)
    assert len(set(swept.iterations)) == 4
    for i in range(4):
        eta, seed = swept.params["eta"][i], int(swept.params["seed"][i])
        single = solve(problem, initial_point(8, 2, 0.3, seed),
                       Config(method=saga, step=float(eta), options={"batch": 5}),
                       max_iter=20000, tol=1e-10)
        assert (swept.status[i], swept.iterations[i]) == (single.status, single.iterations)
        assert swept.status[i] == "converged"
