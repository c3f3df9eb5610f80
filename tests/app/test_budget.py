"""The cost model and the budget (explorer.budget): estimates against measured memory (time is
measured by benchmarks/bench_budget.py), the refusals of the issue's costly requests, the
deployment's settings, and the pages refusing with AppTest."""

from __future__ import annotations

import io
import re
import tracemalloc

import numpy as np
import pytest

from explorer import budget, compare
from landing_core import sweep as batch
from landing_core.problems import make_problem
from landing_core.steps import STEP_RULES
from tests.app.helpers import app_test

DEFAULT = budget.Budget()


def _sweep_peak(problem: str, n: int, p: int, runs: int, **matrices) -> float:
    """Peak bytes numpy allocates during a 3-iteration sweep of ``runs`` runs."""
    P = make_problem(problem, n, p, 0, **matrices)
    tracemalloc.start()
    try:
        batch.sweep(P, beta=np.geomspace(0.1, 10, runs), eta=(1e-3,), step="safe",
                    tol=1e-300, max_iter=3)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("problem, n, p, runs, m", [
    ("brockett", 60, 15, 40, 0),
    ("brockett", 3, 2, 900, 0),
    ("procrustes", 1, 1, 50, 40000),
    ("procrustes", 8, 3, 30, 5000),
])
def test_the_sweep_memory_model_covers_the_measured_peak(problem, n, p, runs, m):
    rng = np.random.default_rng(0)
    matrices = {"A": rng.standard_normal((m, n))} if m else {}
    peak = _sweep_peak(problem, n, p, runs, **matrices)
    model = budget.sweep_cost(problem, n, p, 3, runs, m).memory
    assert peak <= model and model - budget.BASE_MEMORY <= 4 * peak + 1e6


@pytest.mark.parametrize("metric", [False, True])
def test_the_family_memory_model_covers_the_measured_peak(metric, monkeypatch):
    """A family (St(3, 2), 9 members x 1,500 iterations): the model is above the peak
    tracemalloc reads, its history's share within 2x of it; with the Metric view's rows
    (family.views) and without (the model of before, 464 B per member and iterate, put the
    largest family at 239 MB against a 624 MB peak)."""
    from explorer import family
    from explorer.runner import build_problem
    from explorer.state import AppConfig, validate

    config, _ = validate(AppConfig(scrub="beta", scrub_count=9, step="constant", eta=1e-3,
                                   max_iter=1500, tol=1e-12))
    problem = build_problem(config)
    monkeypatch.setattr(family, "_draws_metric", lambda *_: metric)
    tracemalloc.start()
    try:
        fam = family.compute(config, problem)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    iterates = sum(len(t.cost) for t in fam.members)
    assert iterates == 9 * 1501  # every member ran to the limit
    assert all(len(t.metric) == (1501 if metric else 0) for t in fam.members)

    def model(iterations: int) -> float:
        return budget.family_cost(config.problem, 3, 2, iterations, 9, step="constant",
                                  metric=metric).memory

    assert peak <= model(1500)
    assert model(1500) - model(0) <= 2 * peak  # the history's share, not far above


def test_the_time_model_puts_cayley_armijo_above_landing():
    """Cayley-RGD with Armijo costs well above landing with the safe step (1.8-3x measured on
    a quiet machine): the model's own ratio. The model against measured runs is timed by
    benchmarks/bench_budget.py (a timing belongs to a benchmark, not to a test)."""
    landing = budget.run_seconds("brockett", 120, 30, 60, "landing", "safe")
    cayley = budget.run_seconds("brockett", 120, 30, 60, "rgd-cayley", "armijo")
    assert cayley / landing > 2


def test_the_time_model_knows_the_eigenproblem_and_the_B_constraint():
    """The eigenproblem's A X counts as Brockett's; on XᵀBX = I a run also pays B X and the
    B method's longer iteration (~3x the plain run, measured by benchmarks/bench_budget.py)."""
    assert budget.problem_units("generalized_eigen", 50, 5) == budget.problem_units(
        "brockett", 50, 5) == 50 * 50 * 5
    assert budget.matrix_memory("generalized_eigen", 50, 5, constrained=True) - \
        budget.matrix_memory("generalized_eigen", 50, 5) == 8 * 50 * 50
    for n, p in ((3, 2), (120, 30)):
        model = budget.run_seconds("generalized_eigen", n, p, 200, constrained=True)
        plain = budget.run_seconds("generalized_eigen", n, p, 200)
        assert model > 2 * plain, (n, p, model, plain)


def test_the_issues_costly_requests_are_refused_and_say_what_to_lower():
    # the largest sweep: 40 x 40 at St(200, 50), 5000 iterations (most of an hour, GBs)
    largest = budget.sweep_cost("brockett", 200, 50, 5000, 40 * 40)
    text = largest.refusal(DEFAULT)
    assert text is not None and largest.seconds > 1800 and largest.memory > 2**30
    assert text.startswith("This sweep would need about") and "grid resolution" in text
    # a 160000 x 1 Procrustes matrix in the default 30 x 30 sweep: gigabytes of residuals
    upload = budget.sweep_cost("procrustes", 1, 1, 500, 900, m=160000)
    text = upload.refusal(DEFAULT)
    assert upload.memory > 2 * 2**30 and "GB of memory" in text and "fewer rows" in text
    assert "max iterations" not in text  # they do not lower the memory
    # six Cayley-RGD rows with Armijo at St(200, 50), 5000 iterations (~74 s measured)
    six = budget.compare_cost("brockett", 200, 50, 5000, [("rgd-cayley", "armijo")] * 6)
    assert 40 < six.seconds < 200
    text = six.refusal(DEFAULT)
    assert "the number of rows" in text and "max iterations ≤" in text
    fits = int(text.split("max iterations ≤ ")[1].split(")")[0])
    assert budget.compare_cost("brockett", 200, 50, fits, [("rgd-cayley", "armijo")] * 6
                               ).refusal(DEFAULT) is None


def test_what_the_app_offers_by_default_and_its_largest_run_fit():
    assert budget.run_cost("brockett", 3, 2, 500).refusal(DEFAULT) is None
    assert budget.compare_cost("brockett", 3, 2, 500, [("landing", "safe")] * 4
                               ).refusal(DEFAULT) is None
    assert budget.sweep_cost("brockett", 3, 2, 500, 900).refusal(DEFAULT) is None
    # the explorer's largest: St(200, 50), 5000 Armijo iterations, seconds
    assert budget.run_cost("brockett", 200, 50, 5000, step="armijo").refusal(DEFAULT) is None
    assert budget.run_cost("procrustes", 1, 1, 5000, m=160000).refusal(DEFAULT) is None
    assert budget.upload_cost("pca", (800, 200)).refusal(DEFAULT) is None


def test_a_raised_budget_admits_what_the_default_refuses():
    big = budget.compare_cost("brockett", 200, 50, 5000, [("rgd-cayley", "armijo")] * 6)
    raised = budget.Budget.from_env({"LANDING_BUDGET_SECONDS": "600",
                                     "LANDING_BUDGET_MB": "4096"})
    assert raised == budget.Budget(600.0, 4096 * 2**20)
    assert big.refusal(DEFAULT) is not None and big.refusal(raised) is None


@pytest.mark.parametrize("raw", ["0", "-3", "nan", "inf", "lots"])
def test_a_bad_budget_setting_is_a_clear_error(raw):
    with pytest.raises(ValueError, match="LANDING_BUDGET_SECONDS"):
        budget.Budget.from_env({"LANDING_BUDGET_SECONDS": raw})
    assert budget.Budget.from_env({"LANDING_BUDGET_MB": " "}) == DEFAULT


def test_the_largest_fitting_setting_fits_and_the_next_does_not():
    def cost_of(size: int) -> budget.Cost:
        return budget.sweep_cost("brockett", 100, 20, 2000, size**2)

    size = budget.largest_fitting(cost_of, range(5, 41), DEFAULT)
    assert 5 <= size < 40
    assert cost_of(size).refusal(DEFAULT) is None and cost_of(size + 1).refusal(DEFAULT)
    assert budget.largest_fitting(cost_of, range(5, 41), budget.Budget(seconds=1e-6)) is None


def test_only_procrustes_matrices_enter_every_iteration():
    assert budget.matrix_rows("procrustes", (160000, 1)) == 160000
    assert budget.matrix_rows("pca", (800, 200)) == 0
    assert budget.matrix_rows("procrustes", None) == 0


# ---------------------------------------------------------------------- the pages refuse


LARGEST = {"n": "200", "p": "50", "max_iter": "5000", "tol": "1e-14"}


def test_the_sweep_page_refuses_the_largest_sweep_before_computing():
    at = app_test(LARGEST)
    at.run()
    at.switch_page("pages/sweep.py").run()
    assert not at.exception
    assert any("This sweep would need" in e.value for e in at.error)
    assert not at.get("plotly_chart")
    # St(200, 50) at 5000 iterations: not even the smallest grid fits, so none is offered
    assert not any("fits." in e.value for e in at.error)


def test_the_sweep_page_offers_a_grid_that_fits():
    at = app_test({"n": "100", "p": "20", "max_iter": "2000", "tol": "1e-14"})
    at.run()
    at.switch_page("pages/sweep.py").run()
    assert not at.exception
    text = next(e.value for e in at.error if "This sweep would need" in e.value)
    size = int(re.search(r"A grid of (\d+) × \1 fits\.", text.replace("\\", ""))[1])
    assert size == budget.largest_fitting(
        lambda s: budget.sweep_cost("brockett", 100, 20, 2000, s**2), range(5, 30), DEFAULT)


def test_the_compare_page_refuses_six_cayley_rows():
    at = app_test(LARGEST)
    at.run()
    at.session_state["compare_rows"] = [
        compare.Row(f"c{i}", method="rgd-cayley", step="armijo").cells() for i in range(6)]
    at.session_state["compare_version"] = 0
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert any("This comparison would need" in e.value for e in at.error)


def test_a_long_procrustes_matrix_is_refused_in_a_sweep_not_in_the_explorer():
    buf = io.BytesIO()
    np.save(buf, np.random.default_rng(0).standard_normal((160000, 1)))
    at = app_test({"problem": "procrustes", "n": "1", "p": "1"})
    at.run()
    at.file_uploader[0].set_value(("A.npy", buf.getvalue(), "x")).run()
    assert not at.exception and not at.error
    assert at.session_state.matrix.shape == (160000, 1)
    at.switch_page("pages/sweep.py").run()
    assert not at.exception
    assert any("This sweep would need" in e.value and "memory" in e.value for e in at.error)


@pytest.fixture
def underestimated(monkeypatch):
    """A server whose model underestimates 1000-fold and whose budget is half a second: work
    is admitted, then ended by the time limit."""
    from explorer import work

    monkeypatch.setattr(budget, "MARGIN", 0.001)
    monkeypatch.setattr(work, "BUDGET", budget.Budget(seconds=0.5))


def test_a_comparison_over_its_time_limit_keeps_its_rows_and_says_so(underestimated):
    at = app_test(LARGEST | {"max_iter": "3000"})
    at.run()
    at.session_state["compare_rows"] = [
        compare.Row(f"c{i}", method="rgd-cayley", step="armijo").cells() for i in range(3)]
    at.session_state["compare_version"] = 0
    at.switch_page("pages/compare.py").run()
    assert not at.exception and not at.error
    stopped = [w.value.replace("\\", "") for w in at.warning if "Stopped after" in w.value]
    # the computing-time limit, or on a loaded machine the wall clock's (4 times as long)
    assert len(stopped) == 3 and all(re.search(r"time limit of (0\.5|2) s", w) for w in stopped)
    assert at.get("plotly_chart")  # what was computed is drawn


def test_a_sweep_over_its_time_limit_shows_its_cells_and_says_so(underestimated):
    at = app_test({"n": "100", "p": "20", "tol": "1e-14", "max_iter": "3000"})
    at.run()
    at.switch_page("pages/sweep.py").run()
    assert not at.exception and not at.error
    assert any("stopped at its time limit" in w.value for w in at.warning)
    assert len(at.get("plotly_chart")) == 3


def test_a_result_cut_short_is_handed_over_but_not_cached():
    """``work.complete_only`` and ``work.served`` around an st.cache_data function: a complete
    result is computed once, one cut short every time it is asked for."""
    import streamlit as st

    from explorer import work

    calls = []

    @st.cache_data(max_entries=4)
    def compute(x: int, cut: bool) -> int:
        calls.append(x)
        return work.complete_only(10 * x, cut)

    assert [work.served(compute, 1, True) for _ in range(2)] == [10, 10]
    assert calls == [1, 1]  # computed again: nothing was kept
    assert [work.served(compute, 2, False) for _ in range(2)] == [20, 20]
    assert calls == [1, 1, 2]  # kept after the first
    compute.clear()


@pytest.fixture
def tight_then_idle(monkeypatch):
    """A server whose budget first cuts the work short (the model underestimates it: admitted),
    then a roomy one with the same settings; no cache left from other tests."""
    import streamlit as st

    from explorer import work

    st.cache_data.clear()
    monkeypatch.setattr(budget, "MARGIN", 0.001)
    monkeypatch.setattr(work, "BUDGET", budget.Budget(seconds=0.02))

    def idle() -> None:
        monkeypatch.setattr(work, "BUDGET", budget.Budget(seconds=60.0))

    yield idle
    st.cache_data.clear()


def _stopped(at) -> list[str]:
    return [w.value for w in at.warning if "Stopped after" in w.value.replace("\\", "")]


def test_a_comparison_cut_short_is_computed_again_with_the_same_settings(tight_then_idle):
    rows = [compare.Row("a", beta=0.2, step="constant", eta=0.05),
            compare.Row("b", beta=5.0, step="constant", eta=0.05)]
    query = {"n": "3", "p": "2", "seed": "4242", "tol": "1e-14", "max_iter": "5000",
             "rows": compare.rows_query(rows)}
    at = app_test(query).switch_page("pages/compare.py")
    at.run()
    assert not at.exception and _stopped(at)
    tight_then_idle()
    at.run()  # a rerun of this session (another widget) keeps what it has, and offers more
    assert not at.exception and _stopped(at)
    later = app_test(query).switch_page("pages/compare.py")
    later.run()  # a later visit with the same settings: computed in full, not replayed
    assert not later.exception and not _stopped(later)
    statuses = list(later.dataframe[-1].value["status"])
    assert len(statuses) == 2 and "stopped" not in statuses
    import streamlit as st

    st.cache_data.clear()
    at.button(key="compare_again").click().run()  # this session asks for it again
    assert not at.exception and not _stopped(at)
    assert "compare_again" not in [b.key for b in at.button]


def test_a_sweep_cut_short_is_computed_again_with_the_same_settings(tight_then_idle):
    at = app_test({"n": "3", "p": "2", "seed": "4243", "tol": "1e-14", "max_iter": "1500"})
    at.session_state["sw_size"] = 5
    at.switch_page("pages/sweep.py").run()
    assert not at.exception
    assert any("stopped at its time limit" in w.value for w in at.warning)
    tight_then_idle()
    at.run()
    assert not at.exception
    assert not any("stopped at its time limit" in w.value for w in at.warning)
    assert len(at.get("plotly_chart")) == 3


def test_every_step_rule_has_its_measured_factor():
    """The model prices each rule the app offers by its own measured factor (Armijo's trials,
    BB's extra products): no rule falls back on a guess."""
    assert set(budget.STEP_FACTOR) == set(STEP_RULES)
    seconds = {step: budget.run_seconds("brockett", 50, 10, 100, step=step)
               for step in STEP_RULES}
    assert seconds["safe"] == seconds["constant"] < seconds["bb"] < seconds["armijo"]
