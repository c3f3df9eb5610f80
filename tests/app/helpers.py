"""The app as the tests drive it: opened by a URL in AppTest, or a configuration run to its end
as the explorer runs it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

from explorer import runner
from explorer.state import AppConfig

TIMEOUT = 60  # seconds for one script run: the machine is shared
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def app_test(query: dict[str, str] | None = None) -> AppTest:
    """The app with the URL query ``query``, not yet run."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at


def open_app(query: dict[str, str] | None = None, page: str | None = None) -> AppTest:
    """The app opened by a link with ``query``: at ``page`` (e.g. "pages/compare.py") without
    passing the main page, or at the main page when None; fails on an exception."""
    at = app_test(query)
    (at.switch_page(page) if page else at).run()
    assert not at.exception
    return at


def visit(at: AppTest, page: str) -> AppTest:
    """``at`` after a click on ``page`` in the navigation; fails on an exception."""
    at.switch_page(page).run()
    assert not at.exception
    return at



def run_config(**settings) -> tuple[runner.Trace, object, AppConfig]:
    """(trace run to its end, problem, configuration) of ``AppConfig(**settings)``."""
    config = AppConfig(**settings)
    problem = runner.build_problem(config)
    return runner.run_to_end(*runner.start(config, problem), config), problem, config


def answer(at: AppTest) -> str | None:
    """The paragraph of a revealed lecture question (``explorer.lecture.question``: the answer
    follows the question in it), or None while the answer is hidden."""
    from explorer.lecture import ANSWER
    found = [m.value for m in at.markdown if ANSWER in m.value]
    assert len(found) <= 1, found
    return found[0] if found else None


def greyed(at: AppTest) -> set[str]:
    """The keys of the sidebar's settings drawn greyed out (``controls.sidebar(unused=...)``)."""
    return {w.key for kind in ("number_input", "selectbox", "select_slider", "radio")
            for w in getattr(at.sidebar, kind) if w.key and w.key.startswith("w_") and w.disabled}


def renew_until(run, condition: Callable[[], object], seconds: float = 60.0) -> None:
    """Renew a leased worker's lease, as a page that keeps asking does, until ``condition()``
    holds. The deadline is for a hung worker only: a loaded machine schedules the thread late,
    so no test may expect progress within a fixed fraction of a second."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the worker made no progress"
        run.renew()
        run.wait(0.05)


def race_data(at: AppTest) -> dict:
    """The Compare page's race (``explorer.race.payload``) as its player receives it (other
    components, such as lecture mode's keys, may be on the page)."""
    return next(a["data"] for c in at.get("component_instance")
                if "rows" in (a := json.loads(c.proto.json_args)).get("data", {}))
