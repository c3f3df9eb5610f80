"""The race against pymanopt (issue 23, point 3): time to a relative gap |f - f*| / |f*| <= 1e-6.

Landing as a user calls it, ``solvers.landing(problem, X0)`` with no step argument (the default
rule), from X0 = problems.initial_point(n, p, 0.3, seed) (infeasible: ||X0^T X0 - I||_F about
0.6), must reach the gap with ||X^T X - I||_F <= 1e-6; pymanopt's ConjugateGradient and
SteepestDescent (pymanopt.manifolds.Stiefel, QR retraction, their default line searches) start
from X0's polar factor problems.nearest_stiefel(X0) (not timed) and stay on St(n, p). Costs:
brockett(n, p, seed=0) and linear(n, p, seed=0), whose f* the library knows in closed form.

Both sides evaluate the cost the same way. pymanopt gets the cost and the Euclidean gradient
as separate functions (numpy backend, no automatic differentiation), as its API asks: for
brockett they share a one-entry cache of A X N, so a point's cost and gradient cost one
product A X, as landing's ``cost_and_egrad`` does; for linear they are the problem's own
``cost`` and ``egrad`` (nothing to share), which landing calls too.

Stops: landing through its callback at the first iterate within the gap and feasible;
pymanopt has no callback, so its cost function stops the run (by an exception) at the first
evaluation within the gap, a line-search trial point included (this favours pymanopt a
little). Every run is capped at ``--cap`` seconds. pymanopt's iterations are counted as its
gradient evaluations (one per iterate); its cost evaluations, the line-search trials, are
reported beside them (for brockett, each one is a product A X). Landing evaluates cost and
gradient once per iterate.

The solvers run interleaved start by start (the machine is shared), in rounds whose order
alternates; from a start where one round takes under 2 s the rounds repeat (up to 15, 2 s in
all) and each solver's median run counts. Ratios landing / rival are taken per start, then
the median over the starts. BLAS threads: whatever the environment sets (printed with the
machine), the same for both. Run: ``.venv/bin/python benchmarks/bench_pymanopt.py`` (needs
the ``bench`` group); ``--help`` for the options that rerun parts.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pymanopt
from _common import load_average, machine
from pymanopt.manifolds import Stiefel
from pymanopt.optimizers import ConjugateGradient, SteepestDescent

from landing_core import problems, solvers

GAP, FEAS = 1e-6, 1e-6
MIN_SECONDS, MAX_ROUNDS = 2.0, 15  # runs from one start repeated while they are this short
LANDING, CG, SD = "landing", "CG", "SD"
OPTIMIZERS = {CG: ConjugateGradient, SD: SteepestDescent}
# the goals: landing's time / CG's at most this; ahead of SD (ratio < 1) everywhere
CG_GOAL = {(2000, 100): 2.0, (200, 20): 1.0}


@dataclass
class Race:
    """One cost at one size: the problem landing runs, and the cost and Euclidean gradient
    handed to pymanopt (the same arithmetic)."""

    problem: problems.Problem
    cost: Callable[[np.ndarray], float]
    egrad: Callable[[np.ndarray], np.ndarray]
    products: Callable[[], int]  # how many A X the pymanopt functions formed so far


@dataclass
class Outcome:
    seconds: float
    iterations: int
    evaluations: int  # cost evaluations (pymanopt: line-search trials included)
    gap: float
    reached: bool
    note: str


def brockett_race(n: int, p: int) -> Race:
    """brockett(n, p, seed=0), and for pymanopt f = <X, A X N>, G = 2 A X N from one cached
    A X N per point, as brockett's cost_and_egrad computes them."""
    B = np.random.default_rng(0).standard_normal((n, n))  # brockett's own recipe for A
    A = (B + B.T) / (2.0 * np.sqrt(n))
    problem = problems.brockett(n, p, seed=0, A=A)
    w = np.arange(p, 0, -1, dtype=float)
    last: list = [None, None, 0]  # the point, its A X N, the products formed

    def AXw(X: np.ndarray) -> np.ndarray:
        if X is not last[0]:  # pymanopt evaluates cost and gradient at the same array
            last[:2] = [X, A.dot(X) * w]
            last[2] += 1
        return last[1]

    return Race(problem, lambda X: float(np.vdot(X, AXw(X))), lambda X: 2.0 * AXw(X),
                lambda: last[2])


def linear_race(n: int, p: int) -> Race:
    """linear(n, p, seed=0): f = <C, X>, G = C; pymanopt gets the problem's own functions."""
    problem = problems.linear(n, p, seed=0)
    return Race(problem, lambda X: float(problem.cost(X)), problem.egrad, lambda: 0)


RACES = {"brockett": brockett_race, "linear": linear_race}


def run_landing(spec: Race, X0: np.ndarray, cap: float) -> Outcome:
    """landing(problem, X0) with the default step rule, stopped by its callback at the target."""
    f_star = spec.problem.f_star

    def reached(rec: solvers.Record) -> bool:
        done = abs(rec.cost - f_star) <= GAP * abs(f_star) and rec.infeasibility <= FEAS
        return done or rec.time > cap

    t0 = time.perf_counter()
    res = solvers.landing(spec.problem, X0, tol=1e-300, max_iter=10**9, callback=reached)
    seconds = time.perf_counter() - t0
    gap = abs(res.cost[-1] - f_star) / abs(f_star)
    ok = gap <= GAP and res.infeasibility[-1] <= FEAS
    return Outcome(seconds, res.iterations, res.iterations + 1, gap, ok,
                   f"||h|| {res.infeasibility[-1]:.1e}")


class _Reached(Exception):
    pass


def run_pymanopt(name: str, spec: Race, X0: np.ndarray, cap: float) -> Outcome:
    """pymanopt's optimizer ``name`` from X0's polar factor, stopped at the first cost
    evaluation within the gap."""
    n, p, f_star = spec.problem.n, spec.problem.p, spec.problem.f_star
    manifold = Stiefel(n, p)
    count = {"cost": 0, "grad": 0, "products": spec.products()}

    @pymanopt.function.numpy(manifold)
    def cost(X):
        f = spec.cost(X)
        count["cost"] += 1
        if abs(f - f_star) <= GAP * abs(f_star):
            count["time"], count["gap"] = time.perf_counter(), abs(f - f_star) / abs(f_star)
            raise _Reached
        return f

    @pymanopt.function.numpy(manifold)
    def euclidean_gradient(X):
        count["grad"] += 1
        return spec.egrad(X)

    problem = pymanopt.Problem(manifold, cost, euclidean_gradient=euclidean_gradient)
    optimizer = OPTIMIZERS[name](max_time=cap, max_iterations=10**9, min_gradient_norm=0.0,
                                 min_step_size=0.0, max_cost_evaluations=10**12, verbosity=0)
    start = problems.nearest_stiefel(X0)
    t0 = time.perf_counter()
    try:
        result = optimizer.run(problem, initial_point=start)
    except _Reached:
        seconds, gap, ok, note = count["time"] - t0, count["gap"], True, ""
    else:
        seconds, ok = time.perf_counter() - t0, False
        gap, note = abs(result.cost - f_star) / abs(f_star), result.stopping_criterion
    products = spec.products() - count["products"]
    if products:
        note = f"{products:,} products A X {note}".strip()
    return Outcome(seconds, count["grad"], count["cost"], gap, ok, note)


def run(name: str, spec: Race, X0: np.ndarray, cap: float) -> Outcome:
    return run_landing(spec, X0, cap) if name == LANDING else run_pymanopt(name, spec, X0, cap)


def warm_up(names: list[str]) -> None:
    """One short run of each solver (lazy imports, BLAS threads), not timed."""
    spec = linear_race(20, 4)
    X0 = problems.initial_point(20, 4, 0.3, seed=0)
    for name in names:
        run(name, spec, X0, 1.0)


def print_runs(outs: dict[int, dict[str, Outcome]]) -> None:
    """One row per start and solver: where the time goes (iterations, ms per iteration)."""
    header = (f"{'seed':>4} {'solver':>8} {'seconds':>8} {'iterations':>10} {'ms/iter':>8} "
              f"{'cost evals':>10} {'final gap':>9}  outcome")
    print(header)
    print("-" * len(header))
    for seed, row in outs.items():
        for name, o in row.items():
            print(f"{seed:>4} {name:>8} {o.seconds:>8.3f} {o.iterations:>10,} "
                  f"{1e3 * o.seconds / max(o.iterations, 1):>8.3f} {o.evaluations:>10,} "
                  f"{o.gap:>9.2e}  {'reached' if o.reached else 'NOT reached'} ({o.note})")


def ratio(land: Outcome, rival: Outcome) -> tuple[float, float]:
    """landing's time over the rival's, as an interval (low, high): a run that hit the cap
    bounds it from one side only; where both did, nothing is known."""
    r = land.seconds / rival.seconds
    if land.reached and rival.reached:
        return r, r
    if land.reached:  # the rival needs more than its seconds
        return 0.0, r
    if rival.reached:  # landing needs more than its seconds
        return r, math.inf
    return 0.0, math.inf


def interval(low: float, high: float) -> str:
    """'r' for a known ratio, '<r' or '>r' for a bound, 'low-high' for a range."""
    if low == high:
        return f"{low:.3g}"
    if low == 0.0:
        return "n/a" if high == math.inf else f"<{high:.3g}"
    return f">{low:.3g}" if high == math.inf else f"{low:.3g}-{high:.3g}"


def print_ratios(outs: dict[int, dict[str, Outcome]], rivals: list[str]
                 ) -> dict[str, tuple[float, float]]:
    """landing / each rival per start and the median over the starts (an interval where runs
    hit the cap: the medians of the lower and of the upper bounds); returns the medians."""
    print(f"{'seed':>6} " + " ".join(f"{'landing / ' + r:>14}" for r in rivals))
    cells = {r: [ratio(row[LANDING], row[r]) for row in outs.values()] for r in rivals}
    for i, seed in enumerate(outs):
        print(f"{seed:>6} " + " ".join(f"{interval(*cells[r][i]):>14}" for r in rivals))
    medians = {r: (statistics.median(c[0] for c in cells[r]),
                   statistics.median(c[1] for c in cells[r])) for r in rivals}
    print(f"{'median':>6} " + " ".join(f"{interval(*medians[r]):>14}" for r in rivals))
    for name in [LANDING, *rivals]:
        its = [row[name].iterations for row in outs.values()]
        ms = [1e3 * row[name].seconds / max(row[name].iterations, 1) for row in outs.values()]
        print(f"  {name}: median {statistics.median(its):,.0f} iterations at "
              f"{statistics.median(ms):.3f} ms each")
    return medians


def rounds(spec: Race, X0: np.ndarray, names: list[str], cap: float) -> dict[str, Outcome]:
    """Each solver from X0, interleaved, the order reversed every round; short runs are
    repeated (rounds until ``MIN_SECONDS`` have passed, at most ``MAX_ROUNDS``) and each
    solver's run of median time is kept: a single run of milliseconds is mostly the noise
    of a shared machine."""
    runs: dict[str, list[Outcome]] = {name: [] for name in names}
    t0 = time.perf_counter()
    for r in range(MAX_ROUNDS):
        for name in names if r % 2 == 0 else names[::-1]:
            runs[name].append(run(name, spec, X0, cap))
        if time.perf_counter() - t0 >= MIN_SECONDS:
            break
    return {name: sorted(outs, key=lambda o: o.seconds)[(len(outs) - 1) // 2]
            for name, outs in runs.items()}


def evaluation_ms(problem: problems.Problem, X: np.ndarray, repeats: int = 5) -> float:
    """Milliseconds of one cost-and-gradient evaluation at X (median of ``repeats``): the part
    of an iteration that is the cost's, the same on both sides."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        problem.value_and_grad(X)
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def race(cost: str, n: int, p: int, seeds: list[int], names: list[str], cap: float
         ) -> dict[str, tuple[float, float]]:
    """All solvers from every start, interleaved; prints the runs and the ratios."""
    spec = RACES[cost](n, p)
    print(f"\n{cost}({n}, {p}, seed=0), f* = {spec.problem.f_star:.12g}; target gap <= {GAP:g} "
          f"(and ||XᵀX − I||_F <= {FEAS:g}); cap {cap:g} s; load {load_average()}")
    X0 = problems.initial_point(n, p, 0.3, seed=seeds[0])
    print(f"one cost and gradient evaluation: {evaluation_ms(spec.problem, X0):.3f} ms")
    outs: dict[int, dict[str, Outcome]] = {}
    for seed in seeds:
        outs[seed] = rounds(spec, problems.initial_point(n, p, 0.3, seed=seed), names, cap)
    print_runs(outs)
    rivals = [name for name in names if name != LANDING]
    return print_ratios(outs, rivals) if LANDING in names and rivals else {}


def verdict(low: float, high: float, goal: float, strict: bool = False) -> str:
    """'met' if the median's whole interval is within the goal, 'MISSED' if none of it is."""
    def within(x: float) -> bool:
        return x < goal if strict else x <= goal
    return "met" if within(high) else "MISSED" if not within(low) else "undetermined"


def verdicts(medians: dict[tuple[str, int, int], dict[str, tuple[float, float]]]) -> None:
    """The issue's goals: landing / CG <= 2 at (2000, 100), <= 1 at (200, 20); landing / SD < 1."""
    print("\ngoals (median over the starts):")
    for (cost, n, p), m in medians.items():
        if CG in m and (n, p) in CG_GOAL:
            goal = CG_GOAL[(n, p)]
            print(f"  {cost}({n}, {p}): landing / CG = {interval(*m[CG])} (goal <= {goal:g})"
                  f" -> {verdict(*m[CG], goal)}")
        if SD in m:
            print(f"  {cost}({n}, {p}): landing / SD = {interval(*m[SD])} (goal < 1) -> "
                  f"{verdict(*m[SD], 1.0, strict=True)}")


def size(text: str) -> tuple[int, int]:
    n, p = text.lower().split("x")
    return int(n), int(p)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=size, nargs="+", default=[(200, 20), (2000, 100)],
                        help="n x p, e.g. 200x20 2000x100")
    parser.add_argument("--costs", nargs="+", choices=list(RACES), default=list(RACES))
    parser.add_argument("--solvers", nargs="+", choices=[LANDING, CG, SD],
                        default=[LANDING, CG, SD])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--cap", type=float, nargs="+", default=[120.0],
                        help="seconds per run: one value, or one per size")
    args = parser.parse_args()
    if len(args.cap) not in (1, len(args.sizes)):
        parser.error("--cap: one value, or one per size")
    return args


def main() -> None:
    args = arguments()
    print(machine())
    print(f"pymanopt {pymanopt.__version__}")
    warm_up(args.solvers)
    caps = args.cap * len(args.sizes) if len(args.cap) == 1 else args.cap
    medians = {}
    for (n, p), cap in zip(args.sizes, caps, strict=True):
        for cost in args.costs:
            medians[(cost, n, p)] = race(cost, n, p, args.seeds, args.solvers, cap)
    verdicts(medians)
    print(f"\nload average at the end: {load_average()}")


if __name__ == "__main__":
    main()
