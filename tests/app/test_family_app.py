"""The explorer with a family of runs (Scrub: β, ω or η), driven with AppTest: the payload the
player receives, its chunks, the scrubber's release reaching the sidebar and the URL."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
from streamlit.testing.v1 import AppTest

from explorer import controls, family, text
from explorer.presets import PRESETS
from explorer.runner import build_problem, run_to_end, start
from explorer.state import AppConfig, validate
from tests.app.helpers import open_app


def _data(at: AppTest) -> dict:
    return json.loads(at.get("component_instance")[0].proto.json_args)["data"]


def _family(at: AppTest) -> tuple[dict, dict[int, dict]]:
    """The header and every member, asking for the chunks as the player does."""
    data = _data(at)
    members = {m["i"]: m for m in data["members"]}
    count = data["header"]["family"]["count"]
    for _ in range(count):
        if len(members) == count:
            break
        have = data["start"] + len(data["members"])
        at.session_state["player"] = {"run_id": data["run_id"], "have": have, "view": None}
        at.run()
        assert not at.exception
        data = _data(at)
        assert data["start"] == have
        members |= {m["i"]: m for m in data["members"]}
    assert len(members) == count
    return data["header"], members


def test_a_link_with_scrub_beta_sends_the_family_and_each_member_is_its_lone_run():
    at = open_app({"scrub": "beta", "scrub_count": "9", "beta": "0.5"})
    header, members = _family(at)
    fam = header["family"]
    assert fam["param"] == "beta" and fam["symbol"] == "β" and fam["count"] == 9
    assert fam["values"][0] == 0.05 and fam["values"][-1] == 20.0
    assert fam["values"][fam["index"]] == min(fam["values"], key=lambda v: abs(np.log(v / 0.5)))
    kinds = [v["kind"] for v in header["views"]]
    assert kinds == ["frame", "sigma", "cone", "metric"]  # St(3, 2): a family's views
    metric = header["views"][3]
    assert metric["beta_by_member"] == fam["values"]  # each member's ball g^β
    config = at.session_state.config
    problem = build_problem(config)
    for i in (0, fam["index"], 8):
        lone_config = replace(config, beta=fam["values"][i])
        lone = run_to_end(*start(lone_config, problem), lone_config)
        m = members[i]
        assert m["value"] == fam["values"][i] and m["status"] == lone.status
        assert len(m["cost"]) == len(lone.cost)
        np.testing.assert_allclose(m["cost"], lone.cost, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.asarray(m["x"]), np.asarray(lone.X).reshape(-1, 6),
                                   atol=1e-6)  # (sent to DECIMALS = 6)
        # the Metric view's rows (the batch's metric_rows; sent to 7 significant digits)
        np.testing.assert_allclose(np.asarray(m["metric"], dtype=float),
                                   np.asarray(lone.metric), rtol=1e-6, atol=1e-12)
    assert at.query_params["scrub"] == "beta"


def test_a_large_family_arrives_in_chunks_the_shown_member_first():
    at = open_app({"scrub": "eta", "step": "constant", "scrub_count": "40", "n": "3", "p": "3",
                   "max_iter": "800"})
    first = _data(at)
    index = first["header"]["family"]["index"]
    assert first["members"][0]["i"] == index
    assert len(first["members"]) < 40
    _, members = _family(at)
    assert sorted(members) == list(range(40))


def test_releasing_the_scrubber_sets_the_sidebar_and_the_url():
    at = open_app({"scrub": "omega", "scrub_count": "5"})
    data = _data(at)
    values = data["header"]["family"]["values"]
    # values(0.1, 20, 5) through the sidebar's ω = 1, which replaces its nearest member, 1.41
    assert values == [0.1, 0.376, 1.0, 5.32, 20.0]
    at.session_state["player"] = {"run_id": data["run_id"], "have": 5, "view": None,
                                  "pick": {"i": 4, "seq": 1}}
    at.run()
    assert not at.exception
    assert at.session_state.config.omega == values[4] == 20.0
    assert float(at.query_params["omega"]) == 20.0
    after = _data(at)
    assert after["run_id"] == data["run_id"]  # the same family: nothing recomputed
    assert after["header"]["family"]["index"] == 4
    # an old release seen again (the value stays in the component) does not move it back
    at.select_slider(key="w_omega").set_value(1.0).run()
    assert not at.exception
    assert at.session_state.config.omega == 1.0


def test_the_sidebar_sliders_choices_stay_put_while_the_family_is_scrubbed():
    """The β slider's choices hold every member's value, so that a release changes its value,
    not its choices: the browser sends a select_slider's state as an index into them, and a
    stale index read in changed choices became another value (β = 0.01, 7.94: no member)."""
    at = open_app({"scrub": "beta", "scrub_count": "9", "beta": "0.57"})
    data = _data(at)
    values = data["header"]["family"]["values"]
    slider = at.select_slider(key="w_beta")
    choices = list(slider.options)
    assert all(controls.fmt(v) in choices for v in values)
    for seq, i in enumerate((0, 8, 3), start=1):
        at.session_state["player"] = {"run_id": data["run_id"], "have": 9, "view": None,
                                      "pick": {"i": i, "seq": seq}}
        at.run()
        assert not at.exception
        assert at.session_state.config.beta == values[i]
        assert list(at.select_slider(key="w_beta").options) == choices
    # switching Scrub to ω: its first run reads the placeholder range as ω's own (0.1-20)
    at = open_app({})
    at.selectbox(key="w_scrub").set_value("omega").run()
    assert not at.exception
    choices = list(at.select_slider(key="w_omega").options)
    at.run()
    assert list(at.select_slider(key="w_omega").options) == choices


def test_beta_at_p_1_says_so_and_offers_the_others():
    at = open_app({"scrub": "beta", "p": "1", "scrub_count": "3"})
    warned = " ".join(w.value for w in at.sidebar.warning)
    assert "β does nothing here" in warned and "p = 1" in warned
    labels = [b.label for b in at.sidebar.button]
    assert "Scrub ω" in labels and "Scrub η" in labels
    # beside the player too: lecture mode folds the sidebar
    main = [w.value for w in at.main.warning]
    assert any("β does nothing here" in w and "Scrub ω or η instead" in w for w in main)
    next(b for b in at.sidebar.button if b.label == "Scrub ω").click().run()
    assert not at.exception
    assert at.session_state.config.scrub == "omega"
    assert (at.session_state.config.scrub_lo, at.session_state.config.scrub_hi) == (0.1, 20.0)


def test_a_family_link_to_a_single_runs_view_says_so():
    """The Safe step view, and the Metric view beyond St(3, 2), are the single run's: a family
    link to them says so and shows the first view; the Metric view at St(3, 2) is a family's."""
    at = open_app({"scrub": "beta", "view": "metric", "scrub_count": "3"})
    assert not at.warning
    assert _data(at)["header"]["view"] == "metric"
    caption = text.unescape(" ".join(c.value for c in at.caption))
    assert "The Safe step view shows the single run (Scrub: off)." in caption, caption
    at = open_app({"scrub": "beta", "view": "safe", "scrub_count": "3"})
    warned = " ".join(text.unescape(w.value) for w in at.warning)
    assert "view='safe' is the single run's: a family of runs draws (frame," in warned, warned
    assert "not a view of this size" not in warned
    assert _data(at)["header"]["view"] == "frame"
    at = open_app({"scrub": "beta", "view": "metric", "scrub_count": "3", "n": "4"})
    warned = " ".join(text.unescape(w.value) for w in at.warning)
    assert "view='metric' is the single run's: a family of runs draws (sigma" in warned, warned
    caption = text.unescape(" ".join(c.value for c in at.caption))
    assert "The Metric and Safe step views show the single run (Scrub: off)." in caption
    at = open_app({"scrub": "beta", "view": "plane", "scrub_count": "3"})  # St(3, 2): no plane
    warned = " ".join(text.unescape(w.value) for w in at.warning)
    assert "view='plane' is not a view of this size" in warned, warned


def test_the_family_payload_matches_explorer_family():
    at = open_app({"scrub": "eta", "scrub_count": "4", "eta": "0.1"})
    header, members = _family(at)
    config, _ = validate(AppConfig(scrub="eta", scrub_count=4, eta=0.1))
    fam = family.compute(config, build_problem(config))
    assert header["family"]["values"] == [float(v) for v in fam.values]
    index = header["family"]["index"]
    for i, trace in enumerate(fam.members):
        assert members[i]["status"] == trace.status
        if i != index:  # the batch's, as here
            assert members[i]["cost"] == trace.cost
        else:  # sent first as its lone run (family.first): the same run, other kernels
            np.testing.assert_allclose(members[i]["cost"], trace.cost, rtol=1e-12)


def test_a_family_over_the_budget_is_refused_with_what_to_lower():
    at = open_app({"scrub": "beta", "n": "200", "p": "50", "max_iter": "5000",
                   "scrub_count": "101"})
    refused = " ".join(e.value for e in at.error)
    assert "This family of runs would need" in refused and "number of members" in refused
    assert not at.get("component_instance")  # nothing computed


def test_the_metric_preset_opens_a_beta_family_that_stays_the_preset_while_beta_moves():
    index = next(i for i, p in enumerate(PRESETS) if p.title.startswith("The paper's idea"))
    at = open_app()
    at.switch_page("pages/presets.py").run()
    at.button(key=f"preset_{index}").click().run()
    at.switch_page("pages/explorer.py").run()  # AppTest's page is the one it opened
    assert not at.exception

    def shown() -> tuple[dict, list[str]]:
        data = next(a["data"] for c in at.get("component_instance")  # not the deck's keys
                    if "data" in (a := json.loads(c.proto.json_args)))
        return data, [c.value for c in at.caption if c.value.startswith(f"Preset {index} · ")]

    data, place = shown()
    head = data["header"]
    assert head["family"]["param"] == "beta" and head["view"] == "metric" and head["lecture"]
    assert place, "the deck's caption names the preset"
    values = head["family"]["values"]
    assert (values[0], values[-1]) == (0.05, 20.0)
    # a release of the scrubber moves β: still the preset
    at.session_state["player"] = {"run_id": data["run_id"], "have": len(values), "view": None,
                                  "pick": {"i": 0, "seq": 1}}
    at.run()
    assert not at.exception and at.session_state.config.beta == 0.05
    data, place = shown()
    assert place and data["header"]["family"]["index"] == 0
    # another setting ends it
    at.select_slider(key="w_omega").set_value(2.0).run()
    assert not at.exception
    assert shown()[1] == []
