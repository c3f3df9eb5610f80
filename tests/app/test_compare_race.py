"""The race of the Compare page's rows in the player (explorer.race): every row as the compare
job computed it, the shared view drawn around all of them on the right manifolds, and the page
sending it (AppTest)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from explorer import compare, compare_job, live, race, text
from explorer.constraint import preset_B
from explorer.playback import DECIMALS
from explorer.runner import build_problem
from explorer.state import AppConfig
from explorer.style import PALETTE
from tests.app.helpers import open_app, race_data

ROWS = [compare.Row("safe", step="safe", eta=0.2),
        compare.Row("constant", step="constant", eta=0.05),
        compare.Row("BB", step="bb", beta=2.0),
        compare.Row("ω = 5", omega=5.0, step="armijo"),
        compare.Row("RGD", method="rgd-qr", beta=1.0, step="constant", eta=0.1),
        compare.Row("on B", step="bb", constraint="B")]


def _job_result(config: AppConfig, rows: list[dict]) -> tuple[list[dict], float | None]:
    """The comparison as the page computes it: the session's compare job, to its end."""
    session: dict = {}
    key = compare_job.job_key(config, rows, None, None, None)
    job = compare_job.session_job(session, key,
                                  lambda: compare.Comparison(config, rows, None),
                                  heavy=False, seconds=120.0, wall=480.0)
    end = time.monotonic() + 300
    while not job.done() and time.monotonic() < end:
        job.renew()
        job.wait(0.1)
    assert job.done() and job.error is None
    return job.result


def _exact(values) -> list[float | None]:
    """What JSON carries of a history: the floats themselves, non-finite ones as null."""
    return [float(v) if np.isfinite(v) else None for v in np.asarray(values, dtype=float)]


@pytest.mark.parametrize("n, p", [(2, 1), (3, 1), (3, 2), (3, 3), (6, 2)])
def test_every_row_of_the_race_is_the_compare_jobs_run(n, p):
    config = compare.shared(AppConfig(n=n, p=p, max_iter=300, distance=0.5))
    runs, f_star = _job_result(config, ROWS)
    problem = build_problem(config)
    B = compare.rows_B(config, None)
    data = json.loads(json.dumps(race.payload(runs, f_star, config, problem, B, "iteration")))
    assert data["header"]["f_star"] == f_star and data["header"]["race"]["against"] == "iteration"
    assert len(data["rows"]) == len(runs) == 6
    kinds = [v["kind"] for v in data["header"]["views"]]
    assert kinds == {(2, 1): ["plane"], (3, 1): ["sphere"], (3, 2): ["frame", "sigma", "cone"],
                     (3, 3): ["sigma"], (6, 2): []}[n, p]
    for i, (row, run) in enumerate(zip(data["rows"], runs, strict=True)):
        assert row["label"] == run["label"] and row["colour"] == PALETTE[i]
        assert (row["status"], row["message"], row["B"]) == (run["status"], run["message"],
                                                            run["B"])
        assert row["f_star"] == run["f_star"]
        for key, name in (("cost", "cost"), ("h", "infeasibility"), ("grad", "grad_norm"),
                          ("time", "time")):
            assert row[key] == _exact(run[name]), (i, key)  # bit for bit
        if n > 3:
            assert row["x"] is None and row["sigma"] is None
            continue
        X = np.asarray(run["X"])
        assert row["x"] == np.round(X.reshape(len(X), n * p), DECIMALS).tolist()
        # the views' rows against an independent computation: singular values of X (of
        # B^½X on XᵀBX = I, i.e. of LᵀX with B = LLᵀ), to the rounding of DECIMALS
        Y = np.linalg.cholesky(B).T @ X if run["B"] else X
        half_unit = 0.5 * 10.0 ** -DECIMALS
        if "sigma" in kinds:
            np.testing.assert_allclose(row["sigma"], np.linalg.svd(Y, compute_uv=False),
                                       rtol=0, atol=half_unit + 1e-12)
        if p == 2:
            M = np.einsum("kai,kaj->kij", Y, Y)
            np.testing.assert_allclose(row["gram"], M[:, [0, 1, 0], [0, 1, 1]], rtol=0,
                                       atol=half_unit + 1e-12 * np.max(np.abs(M)))


@pytest.mark.parametrize("n, p", [(2, 1), (3, 1), (3, 2)])
def test_the_shared_view_draws_the_manifolds_the_rows_keep_to(n, p):
    config = compare.shared(AppConfig(problem="generalized_eigen", n=n, p=p, max_iter=300))
    B = preset_B(n)
    problem = build_problem(config)

    def view(rows: list[dict]) -> dict:
        runs, f_star = compare.run_rows(config, rows, None)
        return race.payload(runs, f_star, config, problem, B, "iteration")["header"]["views"][0]

    on_B = view([compare.Row("a", step="bb", constraint="B"),
                 compare.Row("b", step="safe", constraint="B")])
    W = np.asarray(on_B["W"])
    np.testing.assert_allclose(W.T @ B @ W, np.eye(n), atol=1e-10)  # W u lies on xᵀBx = 1
    assert "unit" not in on_B
    mixed = view([compare.Row("a", step="bb", constraint="identity"),
                  compare.Row("b", step="bb", constraint="B")])
    assert mixed["unit"] and "W" in mixed  # the ellipse and the unit circle
    plain = view([compare.Row("a", step="bb"), compare.Row("b", step="safe")])
    assert "W" not in plain and "unit" not in plain
    if n == 2:  # no row's own field: the plane draws none
        assert plain["arrows"] == []


def test_a_diverged_row_does_not_shrink_the_view():
    config = compare.shared(AppConfig(n=3, p=1, max_iter=200))
    rows = [compare.Row("calm", step="bb"), compare.Row("wild", step="constant", eta=5.0)]
    runs, f_star = compare.run_rows(config, rows, None)
    assert [r["status"] for r in runs] == ["converged", "diverged"]
    head = race.payload(runs, f_star, config, build_problem(config), preset_B(3),
                        "time")["header"]
    calm = np.asarray(runs[0]["X"]).reshape(-1, 3)
    # the sphere's box: from the calm row alone (playback._sphere's rule)
    assert head["views"][0]["R"] == max(1.3, 1.1 * float(np.max(np.linalg.norm(calm, axis=1))))


def test_the_race_id_follows_the_results_and_the_clock():
    config = compare.shared(AppConfig(n=3, p=2, max_iter=100))
    runs, _ = compare.run_rows(config, ROWS[:2], None)
    assert race.race_id(runs, "iteration") == race.race_id(runs, "iteration")
    assert race.race_id(runs, "iteration") != race.race_id(runs, "time")
    assert race.race_id(runs, "iteration") != race.race_id(runs[:1], "iteration")
    with pytest.raises(ValueError, match="against"):
        race.payload(runs, None, config, build_problem(config), preset_B(3), "clock")


def test_the_compare_page_sends_the_race_of_its_rows():
    at = open_app({"n": "3", "p": "2", "lecture": "1"})
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    data = race_data(at)
    head = data["header"]
    assert head["race"]["against"] == "iteration" and head["lecture"]
    assert [v["kind"] for v in head["views"]] == ["frame", "sigma", "cone"]
    config = at.session_state.config
    rows = [compare.parse_row(cells) for cells in at.session_state.compare_rows]
    runs, f_star = compare.run_rows(compare.shared(config), rows, None)  # independently
    assert [r["label"] for r in data["rows"]] == [r.label for r in rows]
    assert head["f_star"] == f_star
    for row, run in zip(data["rows"], runs, strict=True):
        assert row["cost"] == _exact(run["cost"]) and row["h"] == _exact(run["infeasibility"])
        assert row["grad"] == _exact(run["grad_norm"]) and len(row["time"]) == len(run["time"])
        assert row["x"] == np.round(np.asarray(run["X"]).reshape(-1, 6), DECIMALS).tolist()
    # the clock: CPU time, a race of its own
    at.radio(key="compare_against").set_value("time").run()
    assert not at.exception
    timed = race_data(at)
    assert timed["header"]["race"]["against"] == "time" and timed["run_id"] != data["run_id"]
    assert [r["time"] for r in timed["rows"]] == [r["time"] for r in data["rows"]]  # cached


def test_bad_rows_are_still_explained_beside_the_race():
    rows = json.dumps([["ok", "landing", "beta", 0.5, 1, "safe", 0.1, "sidebar"],
                       ["bad", "landing", "beta", -3, 1, "safe", 0.1, "sidebar"]])
    at = open_app({"rows": rows}, page="pages/compare.py")
    warned = " ".join(text.unescape(w.value) for w in at.warning)
    assert "URL row 'bad' dropped: beta=-3 is outside [0.01, 100]." in warned  # as the sidebar
    assert [r["label"] for r in race_data(at)["rows"]] == ["ok"]


def test_the_race_is_built_once_per_comparison_and_sent_until_the_player_holds_it(monkeypatch):
    builds = []

    def counted(*args, **kwargs):
        builds.append(args[5])  # the clock
        return payload(*args, **kwargs)

    payload = race.payload
    monkeypatch.setattr(race, "payload", counted)
    at = open_app({"n": "3", "p": "1", "max_iter": "200"}, page="pages/compare.py")
    data = race_data(at)
    at.run()  # a rerun that leaves the comparison alone: the same race, not built again
    assert not at.exception and builds == ["iteration"]
    assert race_data(at) == data
    # the player says it holds the race (its value, as race.js sets it): a stand-in follows
    at.session_state["compare_race"] = {"race": data["data_id"]}
    at.run()
    assert not at.exception and builds == ["iteration"]
    sent = [json.loads(c.proto.json_args)["data"] for c in at.get("component_instance")]
    assert {"run_id": data["run_id"], "held": data["data_id"]} in sent
    assert at.session_state[live.RACE_SESSION][3] is None  # nor does the session keep it
    # a player that holds another race (or none: a frame made afresh) gets this one whole,
    # built again, the same
    at.session_state["compare_race"] = {"race": None}
    at.run()
    assert not at.exception and race_data(at) == data and builds == ["iteration"] * 2
    at.run()
    assert not at.exception and builds == ["iteration"] * 2
    # a new clock is a new race: built and sent whole although the player held the last
    at.session_state["compare_race"] = {"race": data["data_id"]}
    at.radio(key="compare_against").set_value("time").run()
    assert not at.exception and builds == ["iteration"] * 2 + ["time"]
    timed = race_data(at)
    assert timed["header"]["race"]["against"] == "time" and timed["data_id"] != data["data_id"]
