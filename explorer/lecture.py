"""The lecture deck in Streamlit: the presets opened in a lecture's order by a clicker's keys,
and predict-then-run, each preset's question with its answer hidden until Reveal.

The session keeps the deck (``deck_order``, from a link's ``deck=``), the preset shown
(``deck_current``, the link's ``preset=``) and whether its answer is revealed; the URL mirrors
them on every page, so a copied link reopens the lecture where it stands. In lecture mode a
hidden component (``deck_keys/``) hears PageDown, PageUp, "." and "b" wherever the focus is,
the page around the player or the player's own iframe, and a key reruns the page.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import streamlit as st
import streamlit.components.v1 as components

from . import deck, declare, fragments, text
from .controls import set_config
from .presets import PRESETS, Preset
from .state import ITER_MAX, AppConfig

KEYS_KEY = "deck_keys"  # the key listener's container, hidden by app.py (.st-key-deck_keys)
KEYS_VALUE = "deck_keys_value"  # the listener's value: {action, seq}
FOLDS = "lecture_folds"  # how often the toggle or a preset turned lecture mode on (``toggled``)
SHOWN_PAGE = "deck_page"  # the preset page ("explorer", ...) the last run showed, else None
REVEAL_KEYS = "the . key (or b)"
QUESTION_KEY = "deck_question"  # its block; app.py sets its text large
ANSWER = "**Answer** (the runs shown):"  # its figures are those of the preset's own runs
# what a lecture did, in the server's log where its level allows (the browser tests' servers
# log it: a failed test's report then says whether a click reached the session)
log = logging.getLogger(__name__)
declare.map_caller()  # (declare.py: sessions importing this at once)
_keys = components.declare_component(
    "landing_deck_keys", path=str(Path(__file__).resolve().parent / "deck_keys"))


def order() -> list[int]:
    """The session's deck: on its first run from the link (``deck=``, ``preset=``,
    ``ask_at=``), with a warning for what is malformed; then the session's own."""
    if "deck_order" not in st.session_state:
        raw = st.query_params.get("deck")
        found, message = (deck.parse_deck(raw, len(PRESETS)) if raw is not None
                          else (list(range(len(PRESETS))), None))
        st.session_state.deck_order = found
        current = st.query_params.get("preset")
        at = st.query_params.get("ask_at")
        messages = [message] if message else []
        if current is not None:
            index, bad = deck.parse_deck(current, len(PRESETS))
            if bad is None and len(index) == 1:
                st.session_state.deck_current = index[0]
            else:
                messages.append(f"URL parameter preset={text.quote(current, 20)} is not a "
                                f"preset number from 0 to {len(PRESETS) - 1}; ignored.")
        if at is not None:
            value, bad = deck.parse_ask_at(at, ITER_MAX)
            st.session_state.deck_ask_at = value
            messages += [bad] if bad else []
        for m in messages:
            st.warning(text.markdown(m), icon="⚠️")
    return st.session_state.deck_order


def set_order(new: list[int]) -> None:
    st.session_state.deck_order = new


def current() -> int | None:
    return st.session_state.get("deck_current")


def revealed() -> bool:
    return bool(st.session_state.get("deck_revealed", False))


def _reveal() -> None:
    log.info("reveal (button), preset %s", current())
    st.session_state.deck_revealed = True


def open_preset(index: int) -> None:
    """Load preset ``index`` (its configuration in lecture mode, its rows, view, demonstration
    or stochastic settings), its answer hidden, and switch to its page; on its page already
    (a key, ``act``, before the page draws) the run goes on with it."""
    preset = PRESETS[index]
    log.info("open preset %s on %s", index, preset.page)
    if not st.session_state.get("w_lecture"):  # into lecture mode: fold as the toggle does
        st.session_state[FOLDS] = st.session_state.get(FOLDS, 0) + 1
    set_config(replace(preset.config, lecture=True))
    if preset.page == "compare":
        # the table's own cells: PRESETS is one object shared by every session of the server
        st.session_state.compare_rows = [r.cells() for r in preset.rows]
        st.session_state.compare_version = st.session_state.get("compare_version", 0) + 1
        st.session_state.compare_fairness = preset.fairness
    if preset.view is not None:
        st.session_state.explorer_view = preset.view
    if preset.stochastic is not None:
        st.session_state.stoch_preset = preset.stochastic
    if preset.demo is not None:
        st.session_state.theory_part = "demonstrations"
        st.session_state.theory_demo = preset.demo
    st.session_state.deck_current = index
    st.session_state.deck_revealed = False
    st.session_state.deck_ask_at = None
    if st.session_state.get(SHOWN_PAGE) != preset.page:
        st.switch_page(f"pages/{preset.page}.py")
    # No switch to the page shown: a run cut short there leaves its download buttons on
    # screen while Streamlit deletes their files (404s in the console). The player's last
    # value would keep the previous preset's view: the preset's own shows.
    st.session_state.pop("player", None)


def write_url() -> None:
    """The deck's parameters in the URL (each page's sidebar keeps them): the order when it is
    not every preset's, the preset shown and a link's own ``ask_at``."""
    wanted = {"deck": deck.deck_query(order(), len(PRESETS)),
              "preset": None if current() is None else str(current()),
              "ask_at": None if st.session_state.get("deck_ask_at") is None
              else str(st.session_state.deck_ask_at)}
    for name, value in wanted.items():
        if value is None:
            if name in st.query_params:
                del st.query_params[name]
        elif st.query_params.get(name) != value:
            st.query_params[name] = value


def act() -> None:
    """A clicker's key, pressed since the last run (the key component's value, read before the
    page draws anything): PageDown and PageUp open the next and previous preset of the deck,
    "." and "b" reveal the answer. Called by every page (``controls.sidebar``)."""
    pressed = st.session_state.get(KEYS_VALUE)
    if not (isinstance(pressed, dict) and isinstance(pressed.get("seq"), int | float)):
        return
    if pressed["seq"] <= st.session_state.get("deck_seq", 0):
        return  # already done (a component's value stays until the next key)
    st.session_state.deck_seq = pressed["seq"]
    action = pressed.get("action")
    if action == "reveal":
        log.info("reveal (key), preset %s", current())
        st.session_state.deck_revealed = True
    elif action in ("next", "prev"):
        step = 1 if action == "next" else -1
        target = deck.neighbour(order(), current(), step)
        if target is None:
            st.toast(f"This is the {'last' if step > 0 else 'first'} preset of the deck.",
                     icon=":material/school:")
        else:
            open_preset(target)


def keys(config: AppConfig) -> None:
    """The deck in the URL and, in lecture mode, the clicker's key listener (``deck_keys/``,
    hidden): its value is a key pressed, which ``act`` does on the next run.

    Each time the sidebar's toggle turns lecture mode on (``toggled``) the listener is handed
    a new ``fold`` and folds the sidebar if it is open."""
    order()
    write_url()
    st.session_state[SHOWN_PAGE] = None  # until the page says which it is (``question``)
    if config.lecture:
        with st.container(key=KEYS_KEY):
            _keys(key=KEYS_VALUE, default=None, fold=st.session_state.get(FOLDS, 0))


def toggled() -> None:
    """The sidebar's lecture toggle, changed by a click: turned on, the sidebar is to fold
    (``keys``). The page config's folded sidebar (app.py) gives way to the last fold or unfold
    made by hand, which Streamlit keeps in the browser's localStorage: a lecturer who had
    opened the sidebar by hand (to reach the toggle) saw lecture mode fold it only the first
    time. A preset opened outside lecture mode folds it too (``open_preset``); a link that
    opens lecture mode leaves it to the page config."""
    if st.session_state.get("w_lecture"):
        st.session_state[FOLDS] = st.session_state.get(FOLDS, 0) + 1


def compare_matches(preset: Preset) -> bool:
    """The Compare page holds the preset's rows and step choice (nothing edited since)."""
    rows = st.session_state.get("compare_rows")
    fairness = st.session_state.get("compare_fairness", preset.fairness)
    return rows == [r.cells() for r in preset.rows] and fairness == preset.fairness


def shown(config: AppConfig, page: str) -> tuple[int, Preset] | None:
    """The deck's preset that ``page`` shows: the session's current preset when it belongs to
    this page and its settings are still the preset's (a changed setting ends it: its question
    and answer would no longer be about what is shown). A family's preset stays while its
    scrubbed value moves: moving it is what the preset asks for."""
    index = current()
    if index is None or PRESETS[index].page != page:
        return None
    preset = PRESETS[index]
    if preset.config.scrub != "off":  # a family: its scrubbed value is the class's to move
        if config.family_key() != preset.config.family_key():
            return None
    elif config.run_key() != preset.config.run_key():
        return None
    if page == "compare" and not compare_matches(preset):
        return None
    return index, preset


def ask_at(preset: Preset) -> int:
    """The iteration the question stops at: a link's ``ask_at=``, else the preset's."""
    at = st.session_state.get("deck_ask_at")
    return preset.question.at if at is None else min(at, preset.config.max_iter)


def question(config: AppConfig, page: str) -> int | None:
    """In lecture mode, where the page shows a preset of the deck: its place in the deck and its
    question, with Reveal (a button, and the clicker's keys) or, once revealed, its answer.
    Returns the iteration the page stops at while the answer is hidden (its curves end there,
    its outcome and summary are not shown), else None."""
    st.session_state[SHOWN_PAGE] = page  # a key on this page opens its presets without a switch
    if not config.lecture:
        return None
    found = shown(config, page)
    if found is None:
        return None
    index, preset = found
    # the preset's own number, as the presets page lists it (from 0), then its place in the
    # deck (from 1): "Preset 1 of 13" read as another preset than the list's "0 · …"
    place = f"Preset {index} · {deck.position(order(), index)}"
    where = f"{place} · PageDown: next, PageUp: previous"
    # one block, whatever it holds: the elements after it (the player) keep their place, so
    # Reveal does not re-create the player's iframe, which plays on from the question
    box = st.container(key=QUESTION_KEY)
    q = preset.question
    if q is None:
        box.caption(where)
        return None
    predict = f"**Predict** ({place}): {q.ask}"
    if not revealed():
        ask, button = box.columns([6, 1], vertical_alignment="center")
        ask.markdown(predict, help=where)
        # a callback, not the click's return value: it runs before the script, so the click
        # holds even if another rerun interrupts the run the click started
        button.button("Reveal", key=fragments.button_key("deck_reveal"),
                      icon=":material/visibility:", type="primary", on_click=_reveal,
                      help=f"Show the answer, the outcome and the rest of the run ({REVEAL_KEYS})")
        return ask_at(preset)
    # the answer goes on in the question's paragraph, highlighted, over Reveal's column too:
    # a box of its own below pushed the race's panels 110 px down, past a 1280 x 720 screen
    box.markdown(f"{predict} :green-background[:material/check_circle: {ANSWER} {q.answer}]",
                 help=where)
    return None
