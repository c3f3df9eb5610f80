"""Figure builders on their data: what is drawn is what was computed."""

import json
import re
import threading
import time

import numpy as np
import pytest

from explorer import figures, runner
from explorer.state import AppConfig
from tests.app.helpers import run_config


def test_the_history_csv_reads_back_as_therun_config(monkeypatch):
    # the time: CPU time (runner.CPU), read where each stretch of the run's own work starts and
    # ends (iterate); here a clock that counts its reads, so that each stretch reads 1
    assert runner.CPU is time.thread_time
    reads = iter(range(10**6))
    monkeypatch.setattr(runner, "CPU", lambda: float(next(reads)))
    trace, _, _ = run_config(n=5, p=2, step="bb", max_iter=30, tol=1e-14)
    rows = np.genfromtxt(trace.csv().splitlines(), delimiter=",", names=True)
    assert rows.dtype.names == ("k", "cost", "infeasibility", "grad_norm", "step",
                                "normal_step", "cpu_time")
    np.testing.assert_array_equal(rows["k"], np.arange(31))
    np.testing.assert_array_equal(rows["cpu_time"], np.arange(1, 32))
    for name in rows.dtype.names[1:-1]:
        np.testing.assert_array_equal(rows[name], getattr(trace, name))
    np.testing.assert_array_equal(rows["cpu_time"], trace.time)


def test_a_run_that_changes_threads_keeps_a_rising_cpu_time():
    """An explorer's run starts on the page's thread and goes on in a worker (explorer.live,
    whose lease can end the thread and a later request start another): its time is the CPU
    time its threads spent on it, never negative, never falling, whatever each thread's own
    clock reads."""
    config = AppConfig(n=5, p=2, max_iter=300, tol=1e-300)
    problem = runner.build_problem(config)
    trace, records = runner.start(config, problem)  # X_0 on this thread
    spent = time.thread_time() + 0.3
    while time.thread_time() < spent:  # this thread's clock runs ahead of any new thread's
        pass

    def finish(count: int) -> None:
        for _ in range(count):
            trace.feed(next(records), config.tol, config.max_iter)

    for count in (150, 150):  # two workers in turn, as two leases
        worker = threading.Thread(target=finish, args=(count,))
        worker.start()
        worker.join()
    assert len(trace.time) == 301 and trace.time[0] >= 0
    assert np.all(np.diff(trace.time) >= 0)
    assert 0 < trace.time[-1] < 0.3  # the run's work; the busy wait on this thread is not

    """plotly labels minor log ticks with bare digits ("10⁻¹, 9, 8 …"). Panels whose data span
    >= 2 decades get dtick = ceil(span / 5) decades; narrower ones labelled values placed."""
    k = np.arange(50)
    run = dict(label="a", cost=10.0 ** (-k / 4), infeasibility=0.3 * 0.8**k,
               grad_norm=0.5 * 0.97**k, time=k)
    fig = figures.comparison_figure([run], f_star=0.0)
    assert fig.layout.yaxis.dtick == 3  # |f - f*| over 12.25 decades
    assert fig.layout.yaxis2.dtick == 1  # ||h|| over 4.7 decades
    # grad from 0.115 to 0.5 (0.64 decades): 2 and 5 x 10^-1 (plotly's read "2, 3, 4, 5")
    assert fig.layout.yaxis3.dtick is None
    assert list(fig.layout.yaxis3.ticktext) == ["2×10⁻¹", "5×10⁻¹"]
    # the Stochastic page's batch 100: 0.3 to 3 read "3, 2, 1, 9 … 4, 3"
    run["grad_norm"] = np.geomspace(3.05, 0.305, 50)
    fig = figures.comparison_figure([run], f_star=0.0)
    assert list(fig.layout.yaxis3.ticktext) == ["5×10⁻¹", "10⁰", "2×10⁰"]
    # within one digit's step: plotly's own (e.g. 3.73×10⁻⁶)
    run["grad_norm"] = np.linspace(3.71e-6, 3.78e-6, 50)
    assert figures.comparison_figure([run], f_star=0.0).layout.yaxis3.tickvals is None
    # 1 to 2 decades would show a single power of ten: there 1, 2, 5 x 10^k are placed
    run = dict(label="a", cost=[1.0] * 4, infeasibility=[1.0] * 4,
               grad_norm=[np.nan, 3e-3, 1e-2, 0.09], time=np.arange(4))
    fig = figures.comparison_figure([run], f_star=0.0)
    assert list(fig.layout.yaxis3.tickvals) == pytest.approx([5e-3, 1e-2, 2e-2, 5e-2])
    assert list(fig.layout.yaxis3.ticktext) == ["5×10⁻³", "10⁻²", "2×10⁻²", "5×10⁻²"]


def test_the_frame_view_on_XtBX_draws_the_ellipsoid_its_columns_lie_on():
    from explorer import playback
    from explorer.constraint import preset_B

    config = AppConfig(problem="generalized_eigen", constraint="preset", n=3, p=2, step="bb",
                       max_iter=300)
    B = preset_B(3)
    problem = runner.build_problem(config, B=B)
    trace = runner.run_to_end(*runner.start(config, problem), config)
    view = playback.view_data("frame", trace, problem, config)
    W, L = np.array(view["W"]), np.array(view["L"])
    np.testing.assert_allclose(W.T @ B @ W, np.eye(3), atol=1e-10)  # W u on xᵀBx = 1
    np.testing.assert_allclose(L @ L.T, B, atol=1e-10)
    assert "ellipsoid xᵀBx = 1" in view["title"] and "B-orthogonal" in view["caption"]
    assert view["R"] >= 1.1 * view["axis"]  # the whole ellipsoid fits the box
    X = trace.X[-1]
    np.testing.assert_allclose(X.T @ B @ X, np.eye(2), atol=1e-7)
    plain = playback.view_data("frame", trace, runner.build_problem(config), config)
    assert "W" not in plain and "sphere" in plain["title"]


def test_figures_take_the_players_text_sizes_normal_and_lecture():
    """The pages' plotly figures read as the explorer's player does: its tick labels (13 px,
    17 in lecture mode) and its other text (15 px, 19), taken from player.js itself."""
    from pathlib import Path

    js = (Path(__file__).resolve().parents[2] / "explorer/player/player.js").read_text()
    tick = re.search(r"font: lecture \? (\d+) : (\d+),", js)
    text = re.search(r'"--lp-font", run\.lecture \? "(\d+)px" : "(\d+)px"', js)
    assert {False: (int(tick[2]), int(text[2])),
                                  True: (int(tick[1]), int(text[1]))} == figures.TEXT_SIZES
    runs = [dict(label="a", cost=[1.0, 0.5], infeasibility=[0.1, 0.01], grad_norm=[1.0, 0.1],
                 time=[0.0, 0.1])]
    for lecture, (small, large) in figures.TEXT_SIZES.items():
        fig = figures.text_size(figures.comparison_figure(runs, f_star=0.0), lecture)
        assert fig.layout.font.size == small and fig.layout.legend.font.size == large
        assert [a.font.size for a in fig.layout.annotations] == [large] * 3  # panel titles
        assert fig.layout.xaxis.tickfont.size is None  # the layout's font: no override
        assert fig.layout.xaxis3.title.font.size == small  # not plotly's 1.2 times
    default = figures.comparison_figure(runs, f_star=0.0)
    assert default.layout.font.size == 13 and default.layout.annotations[0].font.size == 15


def _stochastic_runs(epochs: int, span: float, diverged: bool = False) -> list[dict]:
    """Three runs whose ||h|| spans ``span`` decades (ticks by dtick from 2, placed values
    from 1 to 2, plotly's own below)."""
    rng = np.random.default_rng(epochs)
    return [dict(label=label, epoch=list(range(epochs + 1)),
                 cost=list(-5.0 + 10.0 ** rng.uniform(-6, 0, epochs + 1)),
                 infeasibility=list(np.logspace(-1, -1 - span, epochs + 1)),
                 grad_norm=list(10.0 ** rng.uniform(-1, -0.5, epochs + 1)),
                 status="diverged" if diverged and i == 1 else "running")
            for i, label in enumerate(("SGD", "SAGA", "full-batch landing"))]


def test_the_decreasing_steps_start_is_marked_on_every_panel():
    runs = _stochastic_runs(30, 2.0)
    fig = figures.stochastic_figure(runs, f_star=-5.0, epochs=100, decay_from=50.0)
    lines = [s for s in fig.layout.shapes if s.type == "line"]
    assert [(s.x0, s.x1, s.xref) for s in lines] == [(50.0, 50.0, x) for x in ("x", "x2", "x3")]
    assert len(fig.layout.annotations) == 3  # the panels' titles only (the caption names it)
    plain = figures.stochastic_figure(runs, f_star=-5.0, epochs=100)
    assert plain.layout.shapes == ()
    # the live page refreshes the points only: the line stays
    assert figures.refresh_stochastic_figure(fig, _stochastic_runs(40, 2.0), -5.0)
    assert len(fig.layout.shapes) == 3


def test_points_below_f_star_are_ringed_on_the_gap_panel_only():
    """|f - f*| dips through 0 where SGD's f crosses f*: the points with f < f* are ringed on
    the gap's panel, keyed in the legend; a refresh that adds the first ones rebuilds."""
    runs = _stochastic_runs(6, 1.0)
    above = figures.stochastic_figure(runs, f_star=-5.0)
    assert [t.name for t in above.data] == [r["label"] for r in runs for _ in range(3)]
    runs[0]["cost"] = [-4.0, -4.9, -5.0, -5.01, -4.99, -5.2, -4.5]  # f* = -5
    fig = figures.stochastic_figure(runs, f_star=-5.0)
    # after the curves, whose indices stay theirs (the browser tests read them)
    assert [t.name for t in fig.data[:9]] == [t.name for t in above.data]
    rings = [t for t in fig.data if t.name == "SGD: f < f*"]
    assert len(rings) == 1 and rings[0].xaxis == "x" and rings[0].showlegend is False
    assert list(rings[0].x) == [3, 5]
    np.testing.assert_allclose(rings[0].y, [0.01 / 5, 0.2 / 5], rtol=1e-12)
    assert rings[0].marker.symbol == "circle-open"
    key = [t for t in fig.data if t.name == figures.BELOW_F_STAR]
    assert len(key) == 1 and key[0].showlegend is None  # in the legend
    # live: the first points above f*, then a crossing arrives: new traces, a rebuild
    live = figures.stochastic_figure(_stochastic_runs(6, 1.0), f_star=-5.0)
    assert not figures.refresh_stochastic_figure(live, runs, -5.0)
    runs[0]["cost"][1] = -5.5  # one more below: refreshed in place, as built anew
    assert figures.refresh_stochastic_figure(fig, runs, -5.0)
    fresh = figures.stochastic_figure(runs, f_star=-5.0)
    assert json.loads(fig.to_json()) == json.loads(fresh.to_json())
    assert list(rings[0].x) == [1, 3, 5]
    # within f's rounding of f* (SAGA at its optimum): not ringed as off the manifold
    runs[0]["cost"] = [-5.0 * (1 + 4e-15), -5.0 * (1 + 1e-12), -4.0]
    runs[0]["epoch"] = [0, 1, 2]
    rings = [t for t in figures.stochastic_figure(runs[:1], f_star=-5.0).data
             if t.name == "SGD: f < f*"]
    assert len(rings) == 1 and list(rings[0].x) == [1]


@pytest.mark.parametrize("lecture", [False, True])
def test_a_stochastic_figure_refreshed_in_place_is_the_one_built_anew(lecture):
    """The live page replaces the points of the figure it drew (ticks recomputed from the new
    data) instead of building one per redraw: the result must be the figure built anew."""
    fig = figures.text_size(figures.stochastic_figure(_stochastic_runs(3, 3.0), f_star=-5.0,
                                                      epochs=20), lecture)
    assert fig.layout.yaxis2.dtick == 1
    for epochs, span in ((4, 1.5), (12, 0.5), (13, 2.5)):
        runs = _stochastic_runs(epochs, span)
        assert figures.refresh_stochastic_figure(fig, runs, -5.0)
        fresh = figures.text_size(figures.stochastic_figure(runs, f_star=-5.0, epochs=20),
                                  lecture)
        assert json.loads(fig.to_json()) == json.loads(fresh.to_json())  # (in any key order)
    # a run that diverged since gets a cross (a new trace): the figure must be built anew
    before = fig.to_json()
    runs = _stochastic_runs(14, 2.5, diverged=True)
    assert not figures.refresh_stochastic_figure(fig, runs, -5.0)
    assert fig.to_json() == before


def test_the_comparison_grows_by_its_legends_rows():
    """A horizontal legend fills rows left to right; the figure grows by the rows beyond the
    first, so that the panels keep their height (six long labels left them 88 px of 400)."""
    k = np.arange(50)

    def runs(labels):
        return [{"label": label, "cost": 1 + np.exp(-k / 9), "infeasibility": np.exp(-k / 8),
                 "grad_norm": np.exp(-k / 7), "time": k * 1e-3} for label in labels]

    short = [f"β = {b}" for b in (0.1, 0.5, 1, 5)]  # about 90 px each: one row
    assert figures._legend_rows(short) == 1
    assert figures.comparison_figure(runs(short), height=400).layout.height == 400
    long = [f"momentum (β = 0.5, γ = 0.9), ω = 1, safe (η ≤ 0.{i})" for i in range(1, 7)]
    assert figures._legend_rows(long) == 6  # 480 px each: one a row in 860
    assert figures.comparison_figure(runs(long), height=400).layout.height == 400 + 5 * 32
    # two of 380 px fit a row; HTML tags take no room
    assert figures._legend_rows(["<b>" + "x" * 39 + "</b>"] * 4) == 2
