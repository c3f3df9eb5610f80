"""The lecture deck and predict-then-run in the app (AppTest): deck= and preset= in the URL,
the clicker's keys (the key component's value), the answer hidden until Reveal."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from explorer import compare
from explorer.lecture import ANSWER
from explorer.presets import PRESETS, Question
from tests.app.helpers import answer, open_app, race_data

OMEGA = 4  # "ω: pull harder, step shorter": a Compare preset with a question
GRAM = 3  # "The Gram matrix flows to I": an Explorer preset with a question
THEORY = 5  # "β within one layer": a Theory preset, no question


def _press(at, action: str, seq: int, where: str, to: str | None = None):
    """``at`` after the clicker's key ``action`` ("next", "prev", "reveal") on page ``where``
    (the one shown): the key component's value, as the browser sends it. Its element id is the
    page's own, and AppTest reruns the page it last opened, not one a script switched to: the
    key is pressed on ``where``, and then ``to`` (where the key leads, if elsewhere) is opened,
    where the key, already done, does nothing."""
    at.session_state["deck_keys_value"] = {"action": action, "seq": seq}
    at.switch_page(where).run()
    assert not at.exception
    if to is not None:
        at.switch_page(to).run()
        assert not at.exception
    return at


def _points(at) -> list[int]:
    """The number of points of each trace of the first plotly chart."""
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return [len(t["x"]) if isinstance(t["x"], list) else
            len(np.frombuffer(base64.b64decode(t["x"]["bdata"]), dtype=t["x"]["dtype"]))
            for t in spec["data"]]


def _player(at) -> dict:
    return next(a["data"] for c in at.get("component_instance")
                if "data" in (a := json.loads(c.proto.json_args)))


def _predict(at) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**Predict**")]


def test_a_deck_link_orders_the_presets_page_and_keeps_the_configuration():
    at = open_app({"deck": "4,x,0,99", "beta": "2.0"}, "pages/presets.py")
    (warning,) = [w.value for w in at.warning]
    assert "is not a preset number" in warning and "99 is not a preset" in warning
    assert "The deck keeps 4" in warning
    heads = [s.value for s in at.subheader]
    assert heads[:2] == [f"4 · {PRESETS[4].title}", f"0 · {PRESETS[0].title}"]
    assert len(heads) == len(PRESETS)  # the rest under "Presets not in this deck"
    assert at.query_params["deck"] == "4,0" and at.query_params["beta"] == "2.0"
    assert at.session_state.config.beta == 2.0  # nothing else of the link is lost
    at.text_input[0].set_value("7, 2").run()
    assert at.session_state.deck_order == [7, 2] and at.query_params["deck"] == "7,2"


def test_the_presets_page_folds_what_tells_a_questions_answer():
    """Outside lecture mode the presets page showed each preset's 'what to look at', which
    tells a question's outcome, above the question: projected while a lecture was prepared, it
    gave every answer away. It is folded under the question; a preset with no question shows
    it as before, and lecture mode leaves it out."""
    asked = [i for i, p in enumerate(PRESETS) if p.question is not None]
    plain = [i for i, p in enumerate(PRESETS) if p.question is None]
    assert asked and plain
    at = open_app({}, "pages/presets.py")
    every = [m.value for m in at.markdown]  # (the folded ones too)
    folds = [e for e in at.expander if e.label == "What it shows (the answer)"]
    folded = [m.value for e in folds for m in e.markdown]
    assert len(folds) == len(asked)
    for i in asked:  # each answer once, in a fold, after its question
        assert every.count(PRESETS[i].look_at) == 1 and PRESETS[i].look_at in folded
        assert every.index(PRESETS[i].look_at) > next(
            k for k, v in enumerate(every) if PRESETS[i].question.ask in v)
    assert all(PRESETS[i].look_at in every and PRESETS[i].look_at not in folded for i in plain)
    lecture = open_app({"lecture": "1"}, "pages/presets.py")
    assert not [e for e in lecture.expander if e.label == "What it shows (the answer)"]


def test_the_answer_the_summary_and_the_curves_end_wait_for_reveal():
    preset = PRESETS[OMEGA]
    at = open_app({"deck": f"{OMEGA},{GRAM}"}, "pages/presets.py")
    at.button(key="deck_start").click().run()
    assert not at.exception and at.title[0].value == "Compare configurations"
    assert at.query_params["preset"] == str(OMEGA) and at.query_params["lecture"] == "1"
    assert _predict(at) == [f"**Predict** (Preset {OMEGA} · 1 of 2 in the deck): "
                            f"{preset.question.ask}"]
    assert answer(at) is None and "Summary" not in [s.value for s in at.subheader]
    at_k = preset.question.at
    race = race_data(at)  # every row stops at the question, with no outcome
    assert {len(row["cost"]) for row in race["rows"]} == {at_k + 1}
    assert {row["status"] for row in race["rows"]} == {"running"}
    assert not at.get("plotly_chart")  # the curves below the summary wait too
    # Reveal, by the clicker's key: the answer, the summary and the whole race
    _press(at, "reveal", 10, "pages/compare.py")
    assert f"{ANSWER} {preset.question.answer}]" in answer(at)
    assert "Summary" in [s.value for s in at.subheader]
    # whole runs, as the rows run on their own, in the race and in the curves (three panels)
    runs, _ = compare.run_rows(preset.config, preset.rows, None)
    assert [len(row["cost"]) for row in race_data(at)["rows"]] == [len(run["cost"]) for run in runs]
    assert _points(at) == [len(run["cost"]) for run in runs for _ in range(3)]
    assert max(_points(at)) == preset.config.max_iter + 1  # the penalty's, to the limit


def test_page_down_and_up_walk_the_deck_and_hide_each_new_answer():
    at = open_app({"deck": f"{OMEGA},{GRAM},{THEORY}", "lecture": "1"}, "pages/presets.py")
    _press(at, "next", 1, "pages/presets.py", "pages/compare.py")  # none shown: the first
    assert at.query_params["preset"] == str(OMEGA)
    _press(at, "reveal", 2, "pages/compare.py")
    assert answer(at)
    _press(at, "next", 3, "pages/compare.py", "pages/explorer.py")
    assert at.query_params["preset"] == str(GRAM) and at.query_params["view"] == "cone"
    assert _predict(at) == [f"**Predict** (Preset {GRAM} · 2 of 3 in the deck): "
                            f"{PRESETS[GRAM].question.ask}"]
    assert answer(at) is None  # a new preset: its answer hidden again
    data = _player(at)
    assert data["header"]["ask"] == {"at": PRESETS[GRAM].question.at}
    assert not at.get("download_button")  # the history would tell the outcome
    _press(at, "reveal", 4, "pages/explorer.py")
    assert _player(at)["header"]["ask"] is None and at.get("download_button")
    _press(at, "next", 5, "pages/explorer.py", "pages/theory.py")
    assert at.title[0].value.startswith("Theory") and at.query_params["preset"] == str(THEORY)
    assert at.caption[0].value.startswith(f"Preset {THEORY} · 3 of 3 in the deck")
    _press(at, "next", 6, "pages/theory.py")  # past the end: stays, says so
    assert at.query_params["preset"] == str(THEORY)
    assert "last preset of the deck" in at.toast[0].value
    _press(at, "prev", 7, "pages/theory.py", "pages/explorer.py")
    assert at.query_params["preset"] == str(GRAM) and answer(at) is None
    _press(at, "prev", 7, "pages/explorer.py")  # the same key again (no new seq): nothing
    assert at.query_params["preset"] == str(GRAM)


def test_keys_do_nothing_outside_lecture_mode():
    at = open_app({"deck": f"{OMEGA}"}, "pages/presets.py")
    assert not at.get("component_instance")  # no key listener
    assert "preset" not in at.query_params


def test_a_preset_link_reopens_its_question_with_its_own_stop():
    at = open_app({"deck": f"{OMEGA},{GRAM}"}, "pages/presets.py")
    at.button(key=f"preset_{GRAM}").click().run()
    link = dict(at.query_params)
    assert link["preset"] == str(GRAM) and link["lecture"] == "1"
    fresh = open_app({**link, "ask_at": "7"}, "pages/explorer.py")
    assert _predict(fresh) == [f"**Predict** (Preset {GRAM} · 2 of 2 in the deck): "
                              f"{PRESETS[GRAM].question.ask}"]
    assert _player(fresh)["header"]["ask"] == {"at": 7}
    bad = open_app({**link, "ask_at": "x", "preset": "40"}, "pages/explorer.py")
    warnings = " ".join(w.value for w in bad.warning)
    assert "preset\\='40'" in warnings or "preset=" in warnings.replace("\\", "")
    assert "is not an iteration from 0 to 5000" in warnings and not _predict(bad)


def test_a_changed_setting_ends_the_question():
    at = open_app({}, "pages/presets.py")
    at.button(key=f"preset_{GRAM}").click().run()
    assert _predict(at)
    at.session_state["w_eta"] = 0.01
    at.switch_page("pages/explorer.py").run()
    assert not at.exception and not _predict(at)
    assert _player(at)["header"]["ask"] is None  # nothing hidden: it is not the preset's run


def test_a_key_opens_the_next_preset_of_the_page_shown_in_the_same_run():
    """Explorer to Explorer: no page switch (a run cut short would leave the download buttons
    of the last run on screen while their files go), and each preset's own view."""
    ellipse = 9  # "XᵀBX = I: the layers become ellipses": the plane view
    at = open_app({"deck": f"{GRAM},{ellipse}", "lecture": "1"}, "pages/explorer.py")
    _press(at, "next", 1, "pages/explorer.py")
    assert at.query_params["preset"] == str(GRAM) and _player(at)["header"]["view"] == "cone"
    _press(at, "reveal", 2, "pages/explorer.py")
    assert answer(at)
    _press(at, "next", 3, "pages/explorer.py")
    assert at.query_params["preset"] == str(ellipse) and answer(at) is None
    head = _player(at)["header"]
    assert head["view"] == "plane" and head["ask"] == {"at": PRESETS[ellipse].question.at}
    assert at.session_state.config.constraint == "preset"


def test_an_answer_that_would_end_its_highlight_is_refused():
    """The revealed answer is :green-background[...] (explorer.lecture): a "]" in it would end
    the highlight early and show the rest as plain text with a stray bracket."""
    with pytest.raises(ValueError, match="may not hold"):
        Question("Which?", "x[1] lands", 3)
