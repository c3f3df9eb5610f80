"""Iterations per second of the landing loop on a tiny problem, where Python overhead dominates.

``solvers.landing`` (the whole run: records, histories, stopping test, the stationarity measure
at every iterate) at (3, 2), with a constant step (0.1) and with the default step rule (None:
``steps.ScaleFree``, "default" in the table), ITERATIONS iterations each (tol = 1e-300 so the
run never stops early), REPEATS times interleaved, for each way a user may pose the problem
(issue 23):

- ``brockett``: ``make_problem("brockett", 3, 2)``, the library's own;
- ``Problem(cost, egrad)``: a ``problems.Problem`` built from a user's separate functions;
- ``class: cost, egrad``: a user's class with only n, p, cost and egrad;
- ``class: value_and_grad``: the same class with ``value_and_grad`` as well.

The user's cost is the same Brockett cost tr(X^T A X N), written as a user would in numpy.
Goal: >= 30,000 iterations/s for each, so the app never waits on numerics.

The floor of each kind, timed in the same rounds: a bare numpy loop of the same constant-step
iterations, with nothing but what any landing run must compute: the problem's value and
gradient (its own function for both where it has one, else cost and egrad), the four products
X^T X, X^T G, G M, X W of the field at beta = 1/2 (W = X^T X - I - G^T X) and the move
X - eta V, with no stopping measure, record, history or check. The table gives each run's
median time over the floor's ("/ bare"), a reading of the library's own overhead that does not
depend on how fast the machine runs numpy's calls (about 1 microsecond each here).
``--clock thread``: time by ``time.thread_time`` (this thread's CPU seconds: the loop runs in
one thread, so that is its work, whatever the load). ``--before PACKAGE``: also run a copy of
the library as it was before a change (``cp -r <old>/landing_core /tmp/old/landing_core_base``,
``PYTHONPATH=/tmp/old``), interleaved with the rest. A copy older than ``problems.as_problem``
(3870a4d, section 3's code: its ``Problem`` needs a ``name``, its solvers take no other) runs the
two classes as the ``Problem`` a user of that library had to build from them (``cost_and_egrad``
from ``value_and_grad``); its default rule is the one it had (Barzilai-Borwein before section
14's ``ScaleFree``). ``--rounds`` and ``--iterations`` set REPEATS and ITERATIONS (more, shorter
rounds give steadier ratios on a loaded machine).
Run: ``uv run python benchmarks/bench_iterations.py --clock thread``.
"""

from __future__ import annotations

import importlib
import statistics

import numpy as np
from _common import interleaved, load_average, median_ratio, timing_arguments

from landing_core.problems import Problem

N, P = 3, 2
ITERATIONS = 10_000
REPEATS = 7
GOAL = 30_000

_B = np.random.default_rng(0).standard_normal((N, N))
A = (_B + _B.T) / (2.0 * np.sqrt(N))  # brockett(3, 2, seed=0)'s matrix
W = np.arange(P, 0, -1, dtype=float)  # N = diag(p, ..., 1)


def cost(X):
    return float(np.sum(X * ((A @ X) * W)))


def egrad(X):
    return 2.0 * (A @ X) * W


class Plain:
    """Only n, p, cost and egrad."""

    n, p = N, P

    def cost(self, X):
        return cost(X)

    def egrad(self, X):
        return egrad(X)


class WithValueAndGrad(Plain):
    def value_and_grad(self, X):
        AXW = (A @ X) * W
        return float(np.sum(X * AXW)), 2.0 * AXW


def runs(package: str) -> dict:
    lib = importlib.import_module(package)
    solvers = importlib.import_module(f"{package}.solvers")
    problems = importlib.import_module(f"{package}.problems")
    X0 = lib.initial_point(N, P, 0.3, seed=1)
    if hasattr(problems, "as_problem"):
        user, plain, both = problems.Problem(n=N, p=P, cost=cost, egrad=egrad), Plain(), \
            WithValueAndGrad()
    else:  # an old copy: a Problem needs a name, and only a Problem is accepted
        user = plain = problems.Problem(name="user", n=N, p=P, cost=cost, egrad=egrad)
        both = problems.Problem(name="user", n=N, p=P, cost=cost, egrad=egrad,
                                cost_and_egrad=WithValueAndGrad().value_and_grad)
    kinds = {
        "brockett": lib.make_problem("brockett", N, P, seed=0),
        "Problem(cost, egrad)": user,
        "class: cost, egrad": plain,
        "class: value_and_grad": both,
    }

    def run(problem, step):
        def go():
            res = solvers.landing(problem, X0, step=step, tol=1e-300, max_iter=ITERATIONS)
            assert res.iterations == ITERATIONS, res.message
        return go

    out = {(package, kind, rule): run(problem, step)
           for kind, problem in kinds.items()
           for rule, step in (("constant 0.1", 0.1), ("default", None))}
    if package == "landing_core":
        out |= {("bare loop", kind, "constant 0.1"): bare(problem, X0)
                for kind, problem in kinds.items()}
    return out


def bare(problem, X0: np.ndarray):
    """The floor: ITERATIONS landing steps of eta = 0.1 at beta = 1/2, omega = 1, as a bare
    loop (the module's docstring); ``problem`` as the user gave it."""
    both = getattr(problem, "cost_and_egrad", None) or (
        None if isinstance(problem, Problem) else getattr(problem, "value_and_grad", None))
    if both is not None:
        value_and_grad = both
    else:
        def value_and_grad(X):
            return problem.cost(X), problem.egrad(X)
    identity = np.eye(P)

    def go():
        X = X0
        for _ in range(ITERATIONS):
            f, G = value_and_grad(X)
            M = X.T.dot(X)
            V = X.dot(M - identity - X.T.dot(G).T)
            V += G.dot(M)
            X = X - 0.1 * V
        assert np.isfinite(f) and np.isfinite(X).all()
    return go


def main() -> None:
    global ITERATIONS, REPEATS
    args, clock = timing_arguments(__doc__.split("\n")[0], "run in the same rounds",
                                   extra=(("--rounds", REPEATS), ("--iterations", ITERATIONS)))
    REPEATS, ITERATIONS = args.rounds, args.iterations
    print(f"\n({N}, {P}), {ITERATIONS:,} iterations per run, {REPEATS} runs each")
    variants = runs("landing_core")
    if args.before:
        variants |= runs(args.before)
    times = interleaved(variants, REPEATS, clock=clock)
    header = (f"{'package':>18} {'problem':>22} {'step':>13} {'best it/s':>10} "
              f"{'median it/s':>12} {'goal':>7} {'/ bare':>7}")
    print(header)
    print("-" * len(header))
    for (package, kind, rule), ts in times.items():
        best, median = ITERATIONS / min(ts), ITERATIONS / statistics.median(ts)
        verdict = "met" if best >= GOAL else "MISSED"
        floor = median_ratio(ts, times[("bare loop", kind, "constant 0.1")])
        print(f"{package:>18} {kind:>22} {rule:>13} {best:>10,.0f} {median:>12,.0f} "
              f"{verdict:>7} {floor:>7.2f}")
    if args.before:
        print("\nafter / before (median of the rounds' ratios of it/s):")
        for (package, kind, rule), ts in times.items():
            if package == "landing_core":
                old = times[(args.before, kind, rule)]
                print(f"{kind:>22} {rule:>13}: {median_ratio(old, ts):.3f}")
    print(f"\ngoal: >= {GOAL:,} iterations/s (judged on the best run: the machine is shared)")
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
