"""One landing update against its floor and against one retraction-based update.

Given X (n x p, near St(n, p)) and the Euclidean gradient G (the cost's gradient is excluded):

- landing: ``methods.Landing(beta=0.3, omega=1).field`` (``geometry.landing_direction``: V,
  ||T|| and the stationarity measure ||grad_1 f||, both norms from p x p work) and then its
  ``move`` X - eta V, what the solver runs at every iterate;
- floor: the four n x p x p products no beta-metric landing update can avoid,
  X^T X, X^T G, G M and one X K (K a p x p matrix), timed alone;
- RGD-QR: grad = G - X sym(X^T G), then the QR retraction of X - eta grad;
- RGD-polar: the same gradient, then the polar retraction (SVD);
- "with T", for information: the same update from ``geometry.landing_field``, which also forms
  the tangent term T itself (a fifth product), without the stationarity measure.

Goal: landing <= 1.3 x floor, and faster than both retraction updates, at one and at two BLAS
threads (``OPENBLAS_NUM_THREADS``; the script prints what numpy's OpenBLAS runs).
``--clock thread`` times with ``time.thread_time`` (the CPU seconds of this thread: with one
BLAS thread that is all the work, and time spent descheduled on a loaded machine is left out;
meaningless with two BLAS threads, whose second thread it does not count).
``--before landing_core_base``: also time the update of a copy of the library as it was before
a change (``cp -r <old checkout>/landing_core /tmp/old/landing_core_base`` and
``PYTHONPATH=/tmp/old``), interleaved with the rest.
Run: ``OPENBLAS_NUM_THREADS=1 uv run python benchmarks/bench_update.py --clock thread``.
"""

from __future__ import annotations

import importlib
import statistics

import numpy as np
from _common import interleaved, load_average, median_ratio, timing_arguments

from landing_core import geometry, methods, problems, solvers

SIZES = [(2000, 100), (5000, 500)]
ROUNDS = {(2000, 100): 60, (5000, 500): 15}
BETA, OMEGA, ETA = 0.3, 1.0, 0.1


def variants(n: int, p: int, before: str | None) -> dict:
    rng = np.random.default_rng(0)
    X = problems.initial_point(n, p, 0.3, seed=1)
    G = rng.standard_normal((n, p))
    K = rng.standard_normal((p, p))
    Xs = problems.nearest_stiefel(X)  # the retraction baselines start on the manifold

    def floor():
        M = X.T @ X
        X.T @ G
        G @ M
        return X @ K

    method = methods.landing.Landing(BETA, OMEGA)

    def landing():
        field, _ = method.field(X, G, {})
        assert field.grad_norm > 0  # the stationarity measure is computed
        return method.move(X, field, ETA)

    def with_t():
        _, V, _ = geometry.landing_field(X, G, BETA, OMEGA, "beta")
        return -ETA * V + X

    def rgd(retraction):
        def update():
            grad = geometry.riemannian_gradient_stiefel(Xs, G)
            return solvers.RETRACTIONS[retraction](Xs, -ETA * grad)
        return update

    out = {"floor": floor, "landing": landing, "with T": with_t, "rgd-qr": rgd("qr"),
           "rgd-polar": rgd("polar")}
    if before:  # the same update by another copy of the library (the code before a change)
        old = importlib.import_module(f"{before}.methods.landing").Landing(BETA, OMEGA)

        def landing_before():
            field, _ = old.field(X, G, {})
            return old.move(X, field, ETA)
        out["before"] = landing_before
    return out


def main() -> None:
    args, clock = timing_arguments(__doc__.split("\n")[0], "timed as the variant 'before'")
    print()
    header = (f"{'n':>5} {'p':>4} {'variant':>10} {'median ms':>10} {'min ms':>9} "
              f"{'/ floor':>8} {'landing /':>10}")
    print(header)
    print("-" * len(header))
    verdicts = []
    for n, p in SIZES:
        times = interleaved(variants(n, p, args.before), ROUNDS[(n, p)], clock=clock)
        for name, ts in times.items():
            vs_floor = median_ratio(ts, times["floor"])
            vs_landing = median_ratio(times["landing"], ts)
            print(f"{n:>5} {p:>4} {name:>10} {1e3 * statistics.median(ts):>10.3f} "
                  f"{1e3 * min(ts):>9.3f} {vs_floor:>8.2f} {vs_landing:>10.2f}")
        r_floor = median_ratio(times["landing"], times["floor"])
        r_min = min(times["landing"]) / min(times["floor"])
        beats = all(median_ratio(times["landing"], times[b]) < 1 for b in ("rgd-qr", "rgd-polar"))
        with_t = median_ratio(times["with T"], times["floor"])
        verdicts.append(f"({n}, {p}): landing / floor = {r_floor:.2f} (median of rounds), "
                        f"{r_min:.2f} (min / min) -> {'met' if r_floor <= 1.3 else 'MISSED'} "
                        f"(goal <= 1.3); faster than both retractions: "
                        f"{'yes' if beats else 'NO'}; with T / floor = {with_t:.2f}")
    print()
    print("\n".join(verdicts))
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
