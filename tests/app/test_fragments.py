"""explorer.fragments: a fragment's own run that carries a change made outside it reruns the
page (the browser test: tests/browser/test_lecture_browser.py, Reveal met by a report)."""

from __future__ import annotations

import ast
import math
from pathlib import Path

from streamlit.testing.v1 import AppTest

from explorer import fragments


def test_a_change_or_a_new_value_counts_a_key_gone_does_not():
    before = {"w_beta": "0.5", "deck_reveal": "False", "gone": "1"}
    now = {"w_beta": "1.0", "deck_reveal": "False", "deck_revealed": "True"}
    assert fragments.changed(before, now) == ["w_beta", "deck_revealed"]
    assert fragments.changed(now, dict(now)) == []


def test_objects_count_when_a_value_turns_into_one_and_buttons_when_clicked():
    obj = fragments._OBJECT
    fragments.button_key("t_again")
    fragments.button_key("t_offer")
    before = {"editor": "{'edited_rows': {}}", "job": obj, "t_again": "True", "t_offer": "True"}
    now = {"editor": obj, "job": obj, "result": obj, "t_again": "False", "t_offer": "True",
           "t_new": "False", "w_new": "0.5"}
    # a value grown past the limits changed, a button clicked again (True) and a new widget;
    # not a stored object, a button set back to False after its click's run, nor one unclicked
    fragments.button_key("t_new")
    assert fragments.changed(before, now) == ["editor", "t_offer", "w_new"]


def test_widget_values_are_plain_and_the_apps_objects_are_not():
    assert fragments._plain(math.nan) and repr(math.nan) == repr(float("nan"))  # NaN == NaN
    assert fragments._plain({"action": "reveal", "seq": 17})  # the clicker's key
    assert fragments._plain([0.5, None, "a", True])
    assert not fragments._plain(object())
    assert not fragments._plain(list(range(101)))  # a payload, not a widget's value
    assert not fragments._plain({"rows": [{"cost": [[1.0]]}]})  # nested past three levels
    # a data editor's edits: rows by their int index
    assert fragments._plain({"edited_rows": {0: {"eta": 0.1}}, "added_rows": [],
                             "deleted_rows": [2]})


def _page() -> None:
    """A page whose fragment runs twice in one page run, the second time as its own run
    would, after a value it does not own changed (on the first page run only) or its own
    value changed (every page run)."""
    import streamlit as st

    from explorer import fragments

    fragments.page_run_started()
    st.session_state.setdefault("log", [])

    @fragments.outside_changes_rerun_the_page("own")
    def fragment() -> None:
        st.session_state.log.append(st.session_state.page_run)

    fragment()
    st.session_state.own = st.session_state.page_run  # the fragment's own value: no rerun
    fragment()
    if st.session_state.page_run == 1:
        st.session_state.w_beta = 2.0  # as a widget changed in the batch of a report
        fragment()


def test_a_fragment_reruns_the_page_on_a_value_changed_outside_it_only():
    at = AppTest.from_function(_page).run()
    assert not at.exception
    # page run 1: two draws, then the third sees w_beta changed and reruns the page, whose
    # two draws see nothing changed but their own value
    assert at.session_state.log == [1, 1, 2, 2]


def test_every_keyed_button_of_the_app_is_registered_as_a_button():
    """A keyed button not registered (``button_key``) would rerun the page at a fragment's
    next report after each click (its True set back to False)."""
    root = Path(__file__).parents[2]
    keyed = []
    for path in [root / "app.py", *root.glob("pages/*.py"), *root.glob("explorer/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "button":
                key = next((k.value for k in node.keywords if k.arg == "key"), None)
                if key is not None:
                    keyed.append((path.name, ast.unparse(key)))
    assert len(keyed) >= 6
    assert [k for k in keyed if not k[1].startswith("fragments.button_key(")] == []
