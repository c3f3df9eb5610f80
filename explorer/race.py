"""A race: the Compare page's rows played together in the explorer's canvas player. Pure (no
streamlit).

The rows come from ``compare.Comparison.run_row`` (the page's ``compare_job``); the player
(``explorer/player/race.js``) runs one clock over them, the iteration k or the time, and
draws every row in its colour on one geometry view and in the convergence panels. The data
travel once, whole: a comparison is complete before the page shows it.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import replace

import numpy as np

from landing_core.constraints import STIEFEL
from landing_core.problems import Problem

from .constraint import infeasibility_name, mixed, with_constraint
from .family import FAMILY_VIEWS
from .playback import COLORSCALE, header, json_floats, rounded_rows
from .runner import Trace
from .state import SPEEDS, TIME_NAME, AppConfig
from .style import PALETTE
from .views import available

Array = np.ndarray

AGAINST = ("iteration", "time")
"""The race's clock: the iteration k, or the time each row took to reach its iterates (its
``time`` history: CPU time on the Compare page, ``state.TIME_NAME``)."""


def colour(i: int) -> str:
    """Row i's colour: the page's curves' (``figures.comparison_figure``), the player's palette."""
    return PALETTE[i % len(PALETTE)]


def views(n: int, p: int, runs: list[dict]) -> list[str]:
    """The geometry views a race draws: those of a family (``family.FAMILY_VIEWS``) for this
    size but the Metric view (its rows need each row's gradient, which a comparison does not
    keep), where every row kept its iterates (the comparison keeps them for n <= 3); none
    beyond, where the player shows the convergence panels alone."""
    if not runs or any(run.get("X") is None for run in runs):
        return []
    return [v for v in available(n, p, constrained=True) if v in FAMILY_VIEWS and v != "metric"]


def _gram(X: Array, B: Array | None) -> Array:
    """XᵀX, or XᵀBX on XᵀBX = I, of a stack of iterates (K, n, p): what tends to I."""
    return np.swapaxes(X, -1, -2) @ (X if B is None else B @ X)


def row(run: dict, i: int, B: Array | None, names: list[str]) -> dict:
    """Row i of a race: its label and colour, status and message, its f* (``run["f_star"]``,
    the optimum of its final iterate's component), its histories (cost, ‖h‖, ‖grad‖, CPU
    time: exact, non-finite as null), and where the views are drawn its iterates (row-major,
    to ``playback.DECIMALS``), the singular values of X_k (of B^½X_k on XᵀBX = I) and for
    p = 2 the Gram matrix (m11, m22, m12). ``B``: the row's constraint matrix, if any."""
    data = {
        "label": str(run["label"]), "colour": colour(i), "B": bool(run.get("B")),
        "status": run["status"],
        "message": run["message"], "f_star": run.get("f_star"),
        "cost": json_floats(run["cost"]), "h": json_floats(run["infeasibility"]),
        "grad": json_floats(run["grad_norm"]), "time": json_floats(run["time"]),
        "x": None, "sigma": None, "gram": None,
    }
    if names:
        X = np.asarray(run["X"], dtype=float)
        K, n, p = X.shape
        M = _gram(X, B if run.get("B") else None)
        data["x"] = rounded_rows(list(X), 0, n * p)
        if "sigma" in names:
            sigma = np.sqrt(np.clip(np.linalg.eigvalsh(M), 0.0, None))[:, ::-1]
            data["sigma"] = rounded_rows(list(sigma), 0, p)
        if p == 2:
            data["gram"] = rounded_rows(list(M[:, [0, 1, 0], [0, 1, 1]]), 0, 3)
    return data


def view_problem(problem: Problem, B: Array, runs: list[dict]) -> Problem:
    """The problem whose manifold the shared geometry view draws: on XᵀBX = I (the rows' B)
    when some row keeps to it, else on XᵀX = I (the cost is the same either way)."""
    if any(run.get("B") for run in runs):
        return with_constraint(problem, B)
    return replace(problem, constraint=STIEFEL)


def race_id(runs: list[dict], against: str) -> str:
    """An id that changes with the comparison's results and the clock: the player starts
    the race afresh on a new one, and keeps its place and view on a rerun of the same."""
    digest = hashlib.sha256(json.dumps(against).encode())
    for run in runs:
        digest.update(np.asarray(run["cost"], dtype=float).tobytes())
        digest.update(np.asarray(run["time"], dtype=float).tobytes())
    return digest.hexdigest()[:12]


def payload(runs: list[dict], f_star: float | None, config: AppConfig, problem: Problem,
            B: Array, against: str, *, lecture: bool = False, ask: int | None = None,
            run_id: str | None = None) -> dict:
    """The player's arguments for a race of ``runs`` (``compare.run_rows``'s, with f* the
    comparison's): every row (``row``), and a header as the explorer's (``playback.header``:
    sizes, speed, the views' static data, drawn around every row's iterates) with the race's
    clock (``against``) and the name of the rows' infeasibility. ``problem``: the sidebar's;
    ``B``: the rows' on XᵀBX = I (``compare.rows_B``).

    ``ask``: a lecture's question stops the race at that iteration (``runs`` cut there,
    ``compare.until``): the player says so where it would call the race over. ``run_id``: the
    id of the whole race when ``runs`` is cut (``race_id`` of the runs uncut), so that on
    Reveal the player keeps its place and plays on instead of starting afresh."""
    if against not in AGAINST:
        raise ValueError(f"against must be one of {', '.join(AGAINST)}, got {against!r}")
    names = views(problem.n, problem.p, runs)
    drawn = view_problem(problem, B, runs)
    if not names:  # the convergence panels alone
        rate = SPEEDS[config.speed]
        head = {"n": problem.n, "p": problem.p, "f_star": f_star, "max_iter": config.max_iter,
                "rate": rate if math.isfinite(rate) else None, "colorscale": COLORSCALE,
                "views": [], "view": None, "lecture": lecture}
    else:
        merged = Trace(problem.n, problem.p, B=drawn.B)
        calm = [run for run in runs if run["status"] != "diverged"] or runs
        for run in calm:  # a diverged row's iterates would shrink every other path to a dot
            X = np.asarray(run["X"], dtype=float)
            merged.X += list(X)
            if problem.p == 2:
                merged.gram += list(_gram(X, B if run.get("B") else None))
        head = header(names, names[0], merged, drawn, config, f_star, lecture=lecture)
        for view in head["views"]:
            if view["kind"] == "plane":  # the field -V is each row's own: none is drawn
                view["arrows"] = []
            if mixed(run.get("B") for run in runs):
                view["unit"] = True  # rows on XᵀX = I too: the unit circle or sphere as well
    head["B"] = all(run.get("B") for run in runs)  # the panels name ‖XᵀBX − I‖ then
    head["race"] = {"against": against, "time_name": TIME_NAME,
                    "h_name": infeasibility_name(bool(run.get("B")) for run in runs),
                    "ask": ask}
    return {"run_id": run_id or race_id(runs, against), "done": True, "status": "",
            "message": "",
            "header": head,
            "rows": [row(run, i, B, names) for i, run in enumerate(runs)]}
