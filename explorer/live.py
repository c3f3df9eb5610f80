"""The explorer's player in Streamlit: a components.v1 iframe fed with a run in chunks.

The session keeps one ``LiveRun``: a worker thread computes the run while the page sends what
has arrived (all of a small run at once); the player asks for the next chunk each time one
arrives, by setting its value {run_id, have}, which reruns only the player's fragment.
Animation frames never reach the server: Run, Pause, Step, Reset, the slider and the keys act
in the browser.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

import streamlit as st
import streamlit.components.v1 as components

from landing_core.problems import Problem
from landing_core.run import Status, stopped_message

from . import declare, family, fragments, playback, runner, text, work
from .budget import Cost
from .controls import set_config
from .gate import GATE, HEAVY_SECONDS, Gate
from .state import AppConfig
from .views import VIEWS, why_not_drawn
from .worker import LeasedWorker, session_worker

FIRST_WAIT = 0.25  # seconds a new run may take before the page shows it (all of a small run)
CHUNK_WAIT = 0.25  # seconds a request for more waits for new iterations
declare.map_caller()  # (declare.py: sessions importing this at once)
_player = components.declare_component(
    "landing_player", path=str(Path(__file__).resolve().parent / "player"))


class LiveRun(LeasedWorker):
    """A run computed by a worker thread while the browser plays what has arrived
    (``worker.LeasedWorker``: the work is bounded and tied to the player's requests).

    The thread appends to ``trace`` under ``lock``; the page reads a consistent chunk under the
    same lock.
    """

    def __init__(self, key: tuple, config: AppConfig, problem: Problem, *, heavy: bool = False,
                 seconds: float | None = None, gate: Gate = GATE) -> None:
        self.run_id = uuid.uuid4().hex[:12]
        self.trace, self._records = runner.start(config, problem)
        self._config = config
        super().__init__(key, f"landing-{self.run_id}", heavy=heavy,
                         seconds=seconds or work.BUDGET.seconds, gate=gate)
        self.renew()

    def done(self) -> bool:
        return self.trace.finished

    def compute(self) -> None:
        tol, limit = self._config.tol, self._config.max_iter
        try:
            while self.wanted():
                record = next(self._records)
                with self.lock:
                    if self.trace.feed(record, tol, limit):
                        return
                    if self.over_time():
                        self.trace.status = Status.STOPPED
                        self.trace.message = stopped_message(self.time_limit_text(),
                                                             self.trace.k)
                        return
        except Exception as err:  # noqa: BLE001 - the page must hear of it, not a dead thread
            with self.lock:
                self.trace.status = Status.DIVERGED
                self.trace.message = f"The run stopped at k = {self.trace.k}: {err}"


def session_run(config: AppConfig, problem: Problem, matrix_id: object,
                cost: Cost | None = None) -> LiveRun:
    """The session's run of this configuration, started when the configuration is new (the
    previous run's worker is cancelled); a run whose ``cost`` is heavy waits for the gate."""
    key = (config.run_key(), matrix_id)

    def start() -> LiveRun:
        run = LiveRun(key, config, problem,
                      heavy=cost is not None and cost.seconds >= HEAVY_SECONDS)
        run.wait(FIRST_WAIT)
        return run

    return session_worker(st.session_state, "live_run", key, start)


def requested(run: LiveRun) -> int:
    """Where the chunk to send starts: the browser's last request for this run (what it
    has), or 0 (a new run, or a player that was re-created and holds nothing)."""
    ask = st.session_state.get("player")
    if not isinstance(ask, dict) or ask.get("run_id") != run.run_id:
        return 0
    have = ask.get("have")
    if not isinstance(have, int) or not 0 <= have <= run.trace.k + 1:
        return 0
    return have


def _why_not(config: AppConfig, problem: Problem) -> Callable[[str], str]:
    """``views.why_not_drawn`` for this run."""
    return functools.partial(why_not_drawn, n=problem.n, p=problem.p,
                             constrained=problem.B is not None, step=config.step)


def chosen_view(names: list[str], why_not: Callable[[str], str],
                of_size: list[str] | None = None) -> str:
    """The geometry view to show first: the player's last choice (its tabs), else the one kept
    in the session (other pages visited meanwhile), else a link's ``view=``, else the first.
    ``why_not``: why a view the link names is not among ``names`` (``views.why_not_drawn``);
    ``of_size``: the views of this run where ``names`` are fewer (a family's)."""
    ask = st.session_state.get("player")
    picked = ask.get("view") if isinstance(ask, dict) else None
    if picked in names:
        st.session_state.explorer_view = picked
    elif st.session_state.get("explorer_view") not in names:
        # a session that showed a view wrote it to the URL itself: when the size no longer has
        # it (n or p changed), the URL's view= is that echo, not a link's to report
        linked = st.session_state.get("explorer_view") is None
        url = st.query_params.get("view")
        st.session_state.explorer_view = url if url in names else names[0]
        if linked and url is not None and url not in names:
            why = ("is the single run's: a family of runs draws "
                   if url in (of_size or ()) else why_not(url) + " ")
            st.warning(text.markdown(f"URL parameter view={text.quote(url)} {why}"
                                     f"({', '.join(names)}); showing {names[0]}."), icon="⚠️")
    return st.session_state.explorer_view


def payload(run: LiveRun, start: int, config: AppConfig, problem: Problem, views: list[str],
            view: str, *, lecture: bool = False, ask: dict | None = None) -> dict:
    """The player's arguments: the chunk from ``start`` and the header, read under the run's
    lock (the worker may be appending). ``ask``: {"at": k} while a lecture's question hides
    the run after iteration k (player/question.js)."""
    with run.lock:
        t = run.trace
        data = playback.chunk(t, min(start, t.k + 1))
        data |= {
            "run_id": run.run_id,
            "done": t.finished,
            "status": t.status,
            "message": t.message if t.finished else "",
            "header": playback.header(views, view, t, problem, config,
                                      runner.optimum(config, problem), lecture=lecture),
        }
    data["header"]["ask"] = ask
    return data


@st.fragment
@fragments.outside_changes_rerun_the_page("player")
def player(config: AppConfig, problem: Problem, matrix_id: object, views: list[str],
           *, lecture: bool = False, cost: Cost | None = None,
           ask: dict | None = None) -> LiveRun:
    """Draw the player for this configuration with the chunk the browser needs (and every
    geometry view of ``views``), and the downloads of the history computed so far (not while
    ``ask`` hides the run's end: see ``payload``). A link names the view shown (``view=``,
    when the size has several)."""
    view = chosen_view(views, _why_not(config, problem))
    if len(views) > 1:
        st.query_params["view"] = view
    elif "view" in st.query_params:
        del st.query_params["view"]
    run = session_run(config, problem, matrix_id, cost)
    run.renew()
    start = requested(run)
    note, waited = st.empty(), 0.0
    # the browser has everything so far: wait for more (while queued, as long as it takes,
    # saying so; the note is also where Streamlit ends this wait when the page goes away)
    while start > run.trace.k and not run.trace.finished and (run.queued or waited < CHUNK_WAIT):
        if run.queued:
            note.info(GATE.queued_text(), icon=":material/hourglass_top:")
        run.wait(work.TICK if run.queued else CHUNK_WAIT)
        waited += CHUNK_WAIT
        run.renew()
    note.empty()
    data = payload(run, start, config, problem, views, view, lecture=lecture, ask=ask)
    _player(data=data, key="player", default=None)
    if ask is not None:
        return run
    with run.lock:
        done = run.trace.finished
        csv = run.trace.csv() if done else ""
        hint = runner.limit_hint(run.trace, config).strip() if done else ""
    if hint:  # advice on why the run stalled: below the player, where it has room
        st.info(hint, icon=":material/lightbulb:")
    downloads(csv, config.to_json(), "History (CSV)", disabled=not done)
    return run


Data = str | Callable[[], str]


def downloads(history: Data, configuration: Data, label: str, *,
              disabled: bool = False) -> None:
    """The History (CSV) and Configuration (JSON) buttons. A callable makes its file when
    clicked (Streamlit's deferred download); a string's file is made with the page, and the
    next run of the page deletes it. A deferred button's click does not rerun the page: a
    rerun registers the button's callable afresh and drops the one the click asks for."""
    rerun = "rerun" if isinstance(history, str) else "ignore"
    d1, d2 = st.columns(2)
    d1.download_button(label, history, file_name="landing_history.csv", mime="text/csv",
                       disabled=disabled, on_click=rerun,
                       help="Available once the run is computed." if disabled else None)
    d2.download_button("Configuration (JSON)", configuration, file_name="landing_config.json",
                       mime="application/json", on_click=rerun)


RACE_KEY = "compare_race"  # the race player's value
RACE_SESSION = "compare_race_sent"
"""Session key of the race last built: (its key, data id, run id, its payload or None)."""


def race_args(race_key: tuple, build: Callable[[], dict], ask: object) -> dict:
    """The race player's arguments: the race of ``race_key`` (``build()``: ``race.payload``,
    built once per key, so that a rerun that leaves the comparison alone rebuilds nothing),
    whole, or only {"run_id", "held"} once the player says it holds it (``ask``, its value:
    {"race": the payload's ``data_id``}), which spares the server serializing up to a few MB
    of JSON on every rerun of the page. The session keeps the payload until the player holds
    it (as Python objects it is several times its JSON); a player that holds it no longer (its
    frame made afresh: another page visited) gets it built again."""
    held = st.session_state.get(RACE_SESSION)
    if held is None or held[0] != race_key:
        data = build() | {"data_id": uuid.uuid4().hex[:12]}
        held = (race_key, data["data_id"], data["run_id"], data)
    key, data_id, run_id, data = held
    if isinstance(ask, dict) and ask.get("race") == data_id:
        st.session_state[RACE_SESSION] = (key, data_id, run_id, None)
        return {"run_id": run_id, "held": data_id}
    if data is None:
        data = build() | {"data_id": data_id}
    st.session_state[RACE_SESSION] = (key, data_id, run_id, data)
    return data


@st.fragment
@fragments.outside_changes_rerun_the_page(RACE_KEY)
def race_player(race_key: tuple, build: Callable[[], dict]) -> None:
    """The player with a race of the Compare page's rows (``race_args``): it plays them in
    the browser and reports the race it holds, which reruns this fragment alone."""
    _player(data=race_args(race_key, build, st.session_state.get(RACE_KEY)), key=RACE_KEY,
            default=None)


# ----------------------------------------------------------------------------- families


def session_family(config: AppConfig, problem: Problem, matrix_id: object,
                   cost: Cost | None = None) -> tuple[str, family.Family]:
    """The session's family of this configuration and its id. New family settings (a change
    of the scrubbed parameter's value alone keeps the family) give at once the member the
    sidebar picks, as its lone run (``family.first``: the player draws it while the rest is
    computed); the player's next request computes the whole family (``family.compute``, one
    batch), within the budget's time limit, heavy work waiting for the gate."""
    key = (config.family_key(), matrix_id)
    held = st.session_state.get("family")
    if held is None or held[0] != key:
        run = st.session_state.pop("live_run", None)
        if run is not None:  # the single run's worker is not needed while scrubbing
            run.cancelled = True
        held = (key, uuid.uuid4().hex[:12], family.first(config, problem))
        st.session_state.family = held
    elif not held[2].complete and _asked(held[1]):
        watch = work.Watch(f"Computing the family of {config.scrub_count} runs over "
                           f"{family.SYMBOLS[config.scrub]}…")
        with work.heavy(cost) if cost is not None else nullcontext():
            fam = family.compute(config, problem, held[2].values, should_stop=watch)
        watch.close()
        held = (key, held[1], fam)
        st.session_state.family = held
    return held[1], held[2]


def _asked(run_id: str) -> bool:
    """The player holds the first member of family ``run_id`` and asks for the rest."""
    ask = st.session_state.get("player")
    return isinstance(ask, dict) and ask.get("run_id") == run_id


def _picked(fam: family.Family, run_id: str, config: AppConfig) -> AppConfig | None:
    """The configuration with the member the player's scrubber was released on, when that
    release is new (``pick``: {i, seq}, seq rising with the player's releases) and moves the
    sidebar's value; else None."""
    ask = st.session_state.get("player")
    pick = ask.get("pick") if isinstance(ask, dict) and ask.get("run_id") == run_id else None
    if not isinstance(pick, dict):
        return None
    i, seq = pick.get("i"), pick.get("seq")
    if not (isinstance(i, int) and isinstance(seq, int) and 0 <= i < len(fam.values)):
        return None
    if seq <= st.session_state.get("family_pick", (run_id, -1))[1] and \
            st.session_state.get("family_pick", (None,))[0] == run_id:
        return None
    st.session_state.family_pick = (run_id, seq)
    value = float(fam.values[i])
    return None if getattr(config, fam.param) == value else replace(config,
                                                                     **{fam.param: value})


def _single_run_views(views: list[str], names: list[str]) -> str:
    """Which views of this size a family leaves to the single run (``family.views``)."""
    left = [VIEWS[v][0] for v in views if v not in names]
    if not left:
        return ""
    return (f" The {' and '.join(left)} view{'s' if len(left) > 1 else ''} "
            f"show{'' if len(left) > 1 else 's'} the single run (Scrub: off).")


def _nearest_note(config: AppConfig, fam: family.Family, index: int) -> str:
    """Where the sidebar's value is not a member's: which member stands for it."""
    value, symbol = getattr(config, fam.param), family.SYMBOLS[fam.param]
    if value == fam.values[index]:
        return ""
    return (f" The sidebar's {symbol} = {value:g} is not one of the family's values: its "
            f"nearest, {symbol} = {fam.values[index]:g}, is shown.")


@st.fragment
@fragments.outside_changes_rerun_the_page("player")  # the key of ``player``'s: a page draws one
def family_player(config: AppConfig, problem: Problem, matrix_id: object, views: list[str],
                  *, lecture: bool = False, cost: Cost | None = None) -> None:
    """The player with the family of runs of ``config.scrub`` (``explorer.family``), its
    members sent in chunks (``playback.family_chunk``) as the player asks for them; the
    scrubber's release sets the sidebar's value (and the URL) by a rerun of the page."""
    names = family.views(views, problem.n, problem.p)
    view = chosen_view(names, _why_not(config, problem), views)
    if len(names) > 1:
        st.query_params["view"] = view
    elif "view" in st.query_params:
        del st.query_params["view"]
    run_id, fam = session_family(config, problem, matrix_id, cost)
    moved = _picked(fam, run_id, config)
    if moved is not None:
        set_config(moved)
        st.rerun(scope="app")
    ask = st.session_state.get("player")
    have = ask.get("have") if isinstance(ask, dict) and ask.get("run_id") == run_id else 0
    if not (isinstance(have, int) and 0 <= have <= len(fam.members)):
        have = 0
    idle = family.idle_reason(fam.param, config)
    if idle is not None:  # the sidebar says so too, but lecture mode folds the sidebar
        others = " or ".join(family.SYMBOLS[name]
                             for name in family.active_others(fam.param, config))
        st.warning(f"{family.SYMBOLS[fam.param]} does nothing here: {idle}, so every run of "
                   f"this family is the same. Scrub {others} instead (sidebar, Scrub).",
                   icon=":material/info:")
    index = family.selected(config, fam.values)
    current = fam.members[index] or next(t for t in fam.members if t is not None)
    data = playback.family_chunk(fam, have, index) | {
        "run_id": run_id, "done": True, "status": current.status, "message": current.message,
        "header": playback.family_header(names, view, fam, problem, config,
                                         runner.optimum(config, problem), lecture=lecture),
    }
    _player(data=data, key="player", default=None)
    st.caption(text.markdown(
        f"A family of {len(fam.members)} runs over {family.SYMBOLS[fam.param]} from "
        f"{fam.values[0]:g} to {fam.values[-1]:g} (log-spaced, the sidebar's value among "
        "them), "
        + (f"computed in {fam.seconds:.2f} s" if fam.complete else "computing")
        + f"; drag the {family.SYMBOLS[fam.param]} slider or press [ and ] "
        "to switch runs."
        + (" The Metric view draws every run at one scale"
           + (", that of the family's largest ball (smaller than a single run's)."
              if fam.param == "beta" else f"; {family.SYMBOLS[fam.param]} leaves the metric "
              "alone: its ball changes with the iterate only.")
           if "metric" in names else "")
        + _single_run_views(views, names) + _nearest_note(config, fam, index)))
    # files made when clicked: the scrubber's releases rerun the page several times a second,
    # and each run deleted the files of the run before while the browser was still fetching
    # them (Streamlit checks a download's file when it draws the button: 404s in the console).
    # The single run's are made with the page: that is the path the proxy's failover serves
    # (tests/browser/test_proxy_browser.py).
    downloads(current.csv, config.to_json,
              f"History of {family.SYMBOLS[fam.param]} = {fam.values[index]:g} (CSV)")
