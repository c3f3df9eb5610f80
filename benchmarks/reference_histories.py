"""A reference set of runs whose histories a refactor must leave bit-identical.

``run OUT.npz`` runs every method, step rule and tangent term on both constraints (XᵀX = I
and XᵀBX = I, B dense and sparse), landing with omega = 0, momentum, the stochastic methods
(SGD, SAGA, full-batch landing), small sweeps (every sweep step rule, several methods, both
constraints) and the app's runs (``explorer.runner``: every problem, constraint and step rule
of the sidebar at its defaults; the Compare page's rows: every compare preset's and the default
rows under every "Steps" choice), and saves every history array (the wall-clock times
excepted) under a name that says which run and which history it is.

``compare A.npz B.npz`` reports, for every name, whether the two arrays are bit-identical
(``np.array_equal`` with ``equal_nan``: same shape, same values, NaN at the same places;
strings compared as strings), and exits 1 when any array differs or is missing.

    uv run --locked --group test python benchmarks/reference_histories.py run /tmp/ref_before.npz
    uv run --locked --group test python benchmarks/reference_histories.py compare \
        /tmp/ref_before.npz /tmp/ref_after.npz
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import scipy.sparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from landing_core import solvers, steps  # noqa: E402
from landing_core.problems import (  # noqa: E402
    Problem,
    generalized_eigen,
    initial_point,
    make_problem,
    online_pca,
)
from landing_core.run import HISTORIES  # noqa: E402
from landing_core.solvers import Config, solve  # noqa: E402
from landing_core.stochastic import stochastic_landing  # noqa: E402
from landing_core.sweep import run_batch, sweep  # noqa: E402

Array = np.ndarray
Out = dict[str, Array]

TANGENTS = ("beta", "euclidean", "relative")


def _rules() -> dict[str, Callable[[], object]]:
    """Every step rule, fresh per run (rules keep no state of their own, but be safe)."""
    return {
        "safe": lambda: steps.Safe(eta=1.0),
        "constant": lambda: steps.Constant(0.05),
        "armijo": lambda: steps.Armijo(),
        "bb": lambda: steps.BarzilaiBorwein(),
        "bb-capped": lambda: steps.BarzilaiBorwein(normal_cap=False),
        "decreasing": lambda: steps.Decreasing(0.1, 20.0),
    }


def _problems() -> dict[str, tuple[Problem, Array]]:
    """name -> (problem, X0): St(n, p) problems, p = n, and XᵀBX = I with B dense and sparse."""
    out: dict[str, tuple[Problem, Array]] = {}
    for name, n, p in (("brockett", 6, 3), ("procrustes", 4, 4), ("pca", 7, 2),
                       ("quartic", 5, 2), ("linear", 5, 3)):
        out[f"{name}{n}x{p}"] = (make_problem(name, n, p, seed=1),
                                 initial_point(n, p, 0.4, seed=2))
    gen = generalized_eigen(8, 3, seed=3, condition=30.0)
    out["geneig8x3"] = (gen, initial_point(8, 3, 0.3, 4, B=gen.B))
    rng = np.random.default_rng(5)
    n = 12
    Bs = scipy.sparse.diags([np.full(n - 1, -0.3), 2.0 + rng.random(n), np.full(n - 1, -0.3)],
                            [-1, 0, 1], format="csr")
    sparse = generalized_eigen(n, 2, seed=6, B=Bs)
    out["geneig_sparse12x2"] = (sparse, initial_point(n, 2, 0.5, 7, B=sparse.B))
    far = generalized_eigen(6, 2, seed=8, condition=5.0)
    out["geneig_far6x2"] = (far, initial_point(6, 2, 0.0, 9, singular_values=[1.7, 0.6],
                                               B=far.B))
    out["brockett_far5x2"] = (make_problem("brockett", 5, 2, seed=10),
                              initial_point(5, 2, 0.0, 11, singular_values=[1.6, 0.5]))
    return out


def _result(out: Out, key: str, res: solvers.Result) -> None:
    for name in ("cost", "infeasibility", "grad_norm", "step", "normal_step"):
        out[f"{key}/{name}"] = np.asarray(getattr(res, name))
    out[f"{key}/X"] = np.asarray(res.X)
    out[f"{key}/status"] = np.array([res.status, res.message])
    out[f"{key}/iterations"] = np.array([res.iterations])
    out[f"{key}/f_star"] = np.array([np.nan if res.f_star is None else res.f_star])
    if res.iterates is not None:
        out[f"{key}/iterates"] = res.iterates
        out[f"{key}/iterate_index"] = res.iterate_index


def _solve_runs(out: Out) -> None:
    rules = _rules()
    for pname, (problem, X0) in _problems().items():
        on_B = problem.B is not None
        methods = ["landing"] if on_B else ["landing", "penalty", "momentum", "rgd-qr",
                                            "rgd-polar", "rgd-cayley"]
        for method in methods:
            tangents = TANGENTS if method in ("landing", "momentum") else ("beta",)
            for tangent in tangents:
                for rname, rule in rules.items():
                    if rname == "decreasing" and method != "landing":
                        continue
                    options = {"metric_beta": 0.7} if method.startswith("rgd") else {}
                    if method == "momentum":
                        options = {"gamma": 0.6}
                    config = Config(beta=0.3, omega=1.5, step=rule(), tangent=tangent,
                                    method=method, options=options)
                    res = solve(problem, X0, config, tol=1e-10, max_iter=150, keep_iterates=7)
                    _result(out, f"solve/{pname}/{method}/{tangent}/{rname}", res)
        # beta = 1/2 and omega = 1 (the hot path's special cases), omega = 0, a large beta
        for beta, omega in ((0.5, 1.0), (0.5, 0.0), (4.0, 0.7)):
            for rname in ("safe", "bb", "constant", "armijo"):
                if omega == 0.0 and (rname != "constant" or problem.B is not None):
                    continue  # the other rules need a normal term; on XᵀBX = I, omega > 0
                config = Config(beta=beta, omega=omega, step=rules[rname](), method="landing")
                res = solve(problem, X0, config, tol=1e-10, max_iter=120)
                _result(out, f"solve/{pname}/landing/b{beta}w{omega}/{rname}", res)
    # a large constant step: divergence as a status
    problem, X0 = _problems()["brockett6x3"]
    for method in ("landing", "penalty"):
        res = solve(problem, X0, Config(step=40.0, method=method), max_iter=100)
        _result(out, f"solve/diverge/{method}", res)
    gen, X0g = _problems()["geneig8x3"]
    res = solve(gen, X0g, Config(step=60.0), max_iter=100)
    _result(out, "solve/diverge/landing-B", res)


def _stochastic_runs(out: Out) -> None:
    problem = online_pca(8, 3, samples=200, seed=1)
    X0 = initial_point(8, 3, 0.4, seed=2)
    for method in ("sgd", "saga", "landing"):
        for tangent in TANGENTS:
            for sname, step in (("default", None), ("decreasing", steps.Decreasing(0.05, 50.0)),
                                ("safe", steps.Safe(eta=0.05)), ("bb", steps.BarzilaiBorwein())):
                if sname in ("safe", "bb") and tangent != "beta":
                    continue
                for batch in (1, 7):
                    if method == "landing" and batch == 1:
                        continue
                    res = stochastic_landing(problem, X0, method=method, batch_size=batch,
                                             epochs=6, step=step, beta=0.4, omega=1.2,
                                             seed=3, tangent=tangent)
                    key = f"stochastic/{method}/{tangent}/{sname}/b{batch}"
                    for name in HISTORIES:
                        if name != "time":
                            out[f"{key}/{name}"] = np.asarray(getattr(res, name))
                    out[f"{key}/X"] = np.asarray(res.X)
                    out[f"{key}/status"] = np.array([res.status, res.message])
                    out[f"{key}/iterations"] = np.array([res.epochs])  # the name of before
                    out[f"{key}/f_star"] = np.array([np.nan if res.f_star is None
                                                     else res.f_star])
                    out[f"{key}/sample_gradients"] = np.asarray(res.sample_gradients)
                    out[f"{key}/updates"] = np.array([res.updates])


def _sweep_runs(out: Out) -> None:
    cases = [("brockett", make_problem("brockett", 6, 2, seed=1)),
             ("procrustes", make_problem("procrustes", 3, 3, seed=2)),
             ("geneig", generalized_eigen(7, 2, seed=3, condition=20.0))]
    for pname, problem in cases:
        on_B = problem.B is not None
        methods = ["landing"] if on_B else ["landing", "momentum", "penalty", "rgd-qr"]
        for method in methods:
            tangents = TANGENTS if method == "landing" else ("beta",)
            for tangent in tangents:
                for step in ("constant", "safe"):
                    options = {"gamma": 0.5} if method == "momentum" else None
                    res = sweep(problem, beta=(0.3, 1.0), omega=(0.5, 2.0), eta=(0.05, 0.9),
                                seed=(0, 1), distance=0.5, tangent=tangent, step=step,
                                max_iter=80, method=method, options=options)
                    key = f"sweep/{pname}/{method}/{tangent}/{step}"
                    for name in ("iterations", "final_cost", "final_infeasibility",
                                 "final_grad_norm"):
                        out[f"{key}/{name}"] = np.asarray(getattr(res, name))
                    out[f"{key}/status"] = np.asarray(res.status, dtype=str)
                    if res.f_star is not None:
                        out[f"{key}/f_star"] = res.f_star
    # run_batch directly, with starts outside the lemma's range (the restoring step)
    for pname, problem in (("brockett", make_problem("brockett", 5, 2, seed=4)),
                           ("geneig", generalized_eigen(6, 2, seed=5, condition=8.0))):
        X0 = np.stack([initial_point(problem.n, problem.p, 0.0, s, singular_values=sv,
                                     B=problem.B)
                       for s, sv in ((0, [1.8, 0.4]), (1, [1.1, 0.9]), (2, [1.3, 1.0]))])
        res = run_batch(problem, X0, beta=np.array([0.5, 0.2, 2.0]),
                        omega=np.array([1.0, 3.0, 0.5]), eta=np.array([2.0, 0.3, 50.0]),
                        step="safe", max_iter=60)
        for i, name in enumerate(("iterations", "status", "final_cost", "final_infeasibility",
                                  "final_grad_norm", "final_X")):  # the order of the 6-tuple
            out[f"run_batch/{pname}/{i}"] = np.asarray(getattr(res, name),
                                                       dtype=str if name == "status" else float)


def _app_runs(out: Out) -> None:
    from explorer import runner
    from explorer.constraint import constraint_matrix
    from explorer.state import CONSTRAINT_LABELS, PROBLEM_LABELS, STEP_LABELS, AppConfig

    for problem_name in PROBLEM_LABELS:
        for constraint in CONSTRAINT_LABELS:
            if constraint == "upload":
                continue
            for step in STEP_LABELS:
                for n, p in ((3, 2), (4, 4)):
                    config = AppConfig(problem=problem_name, constraint=constraint, step=step,
                                       n=n, p=p, max_iter=120)
                    try:
                        problem = runner.build_problem(config, B=constraint_matrix(config, None))
                    except ValueError:
                        continue
                    trace = runner.run_to_end(*runner.start(config, problem), config)
                    key = f"app/{problem_name}/{constraint}/{step}/{n}x{p}"
                    for name in ("cost", "infeasibility", "grad_norm", "step", "normal_step",
                                 "f_star"):
                        out[f"{key}/{name}"] = np.asarray(getattr(trace, name), dtype=float)
                    for name in ("X", "sigma", "gram", "metric", "safe"):
                        values = getattr(trace, name)
                        if values:
                            out[f"{key}/{name}"] = np.stack(values)
                    out[f"{key}/status"] = np.array([trace.status, trace.message])


def _compare_runs(out: Out) -> None:
    """The Compare page's rows (``explorer.compare.run_rows``): every compare preset with its
    own step choice, and the default rows under every choice; at most 400 iterations each."""
    from dataclasses import replace

    from explorer import compare
    from explorer.presets import PRESETS
    from explorer.state import AppConfig

    cases = [(f"preset{i}", replace(p.config, max_iter=min(p.config.max_iter, 400)), p.rows,
              compare.FAIRNESS[p.fairness]) for i, p in enumerate(PRESETS)
             if p.page == "compare"]
    config = AppConfig(max_iter=400)
    cases += [(f"default/{rule}", config, compare.default_rows(config), rule)
              for rule in compare.FAIRNESS.values()]
    for name, config, rows, fairness in cases:
        runs, f_star = compare.run_rows(config, rows, fairness)
        out[f"compare/{name}/f_star"] = np.array([np.nan if f_star is None else f_star])
        for i, run in enumerate(runs):
            key = f"compare/{name}/{i}"
            for field in ("cost", "infeasibility", "grad_norm"):
                out[f"{key}/{field}"] = np.asarray(run[field])
            if run["X"] is not None:
                out[f"{key}/X"] = np.asarray(run["X"])
            out[f"{key}/status"] = np.array([run["label"], run["status"], run["message"]])
            out[f"{key}/iterations"] = np.array([run["iterations"]])
            out[f"{key}/row_f_star"] = np.array(
                [np.nan if run["f_star"] is None else run["f_star"], float(run["B"])])


def runs() -> Iterator[tuple[str, Callable[[Out], None]]]:
    yield "solve", _solve_runs
    yield "stochastic", _stochastic_runs
    yield "sweep", _sweep_runs
    yield "app", _app_runs
    yield "compare", _compare_runs


def run(path: str) -> None:
    out: Out = {}
    for name, make in runs():
        before = len(out)
        make(out)
        print(f"{name}: {len(out) - before} arrays")
    np.savez_compressed(path, **out)
    print(f"{len(out)} arrays -> {path}")


def _equal(a: Array, b: Array) -> bool:
    if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def compare(path_a: str, path_b: str) -> int:
    a, b = np.load(path_a), np.load(path_b)
    names_a, names_b = set(a.files), set(b.files)
    missing = sorted(names_a ^ names_b)
    differ = [name for name in sorted(names_a & names_b) if not _equal(a[name], b[name])]
    for name in missing:
        print(f"only in {'A' if name in names_a else 'B'}: {name}")
    for name in differ:
        x, y = a[name], b[name]
        detail = ""
        if x.shape == y.shape and x.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                detail = f" max |diff| = {np.nanmax(np.abs(x - y)):.3e}"
        print(f"differs: {name} {x.shape} vs {y.shape}{detail}")
    same = len(names_a & names_b) - len(differ)
    print(f"{same} of {len(names_a | names_b)} arrays bit-identical; {len(differ)} differ, "
          f"{len(missing)} missing")
    return 1 if differ or missing else 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "run":
        run(argv[1])
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(argv[1], argv[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
