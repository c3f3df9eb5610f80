"""The lecture deck's order (pure) and the presets' questions, whose answers must hold for
each preset's own run: every figure an answer quotes is recomputed here."""

from __future__ import annotations

import re

import numpy as np
import pytest

from explorer import compare, deck, runner
from explorer.constraint import constraint_matrix
from explorer.presets import PRESETS, Question
from explorer.state import ITER_MAX, SCRUB_DEFAULT
from landing_core import metric_view as mv
from tests.app.helpers import run_config

COUNT = len(PRESETS)


# ----------------------------------------------------------------- the deck's order


def test_a_good_deck_keeps_its_order():
    assert deck.parse_deck("0,4,7,2", COUNT) == ([0, 4, 7, 2], None)
    assert deck.parse_deck(" 3 , 1 ,", COUNT) == ([3, 1], None)  # spaces, a trailing comma


@pytest.mark.parametrize(("raw", "order", "named"), [
    ("0,x,4", [0, 4], ["'x' is not a preset number"]),
    ("0,99,4", [0, 4], [f"99 is not a preset (they are numbered 0 to {COUNT - 1})"]),
    ("4,0,4", [4, 0], ["4 comes twice"]),
    ("-1,2", [2], ["'-1' is not a preset number"]),
    ("1.5,2", [2], ["'1.5' is not a preset number"]),
    ("٣,2", [2], ["'٣' is not a preset number"]),  # an Arabic-Indic digit: isdigit, not ascii
])
def test_a_malformed_entry_is_named_and_the_rest_kept(raw, order, named):
    got, message = deck.parse_deck(raw, COUNT)
    assert got == order
    assert message.startswith(f"URL parameter deck='{raw}': ")
    for fragment in named:
        assert fragment in message
    assert message.endswith(f"The deck keeps {', '.join(map(str, order))}.")


@pytest.mark.parametrize("raw", ["", "x", ",,", "99,100"])
def test_a_deck_with_no_preset_is_every_preset(raw):
    order, message = deck.parse_deck(raw, COUNT)
    assert order == list(range(COUNT))
    assert message.endswith("The deck is every preset, in the page's order.")


def test_a_long_deck_is_cut_and_its_message_bounded():
    order, message = deck.parse_deck(",".join(["x"] * 1000), COUNT)
    assert order == list(range(COUNT))
    assert "and 98 more" in message and "cut after 100 entries" in message
    assert len(message) < 400


def test_deck_query_omits_the_default_order():
    assert deck.deck_query(list(range(COUNT)), COUNT) is None
    assert deck.deck_query([0, 4, 7, 2], COUNT) == "0,4,7,2"
    assert deck.parse_deck(deck.deck_query([5, 1], COUNT), COUNT) == ([5, 1], None)


def test_page_down_and_up_walk_the_deck():
    order = [0, 4, 7, 2]
    assert [deck.neighbour(order, c, 1) for c in order] == [4, 7, 2, None]
    assert [deck.neighbour(order, c, -1) for c in order] == [None, 0, 4, 7]
    # from outside the deck (none shown, or a preset opened from the page): its ends
    assert deck.neighbour(order, None, 1) == 0 and deck.neighbour(order, 5, -1) == 2
    assert deck.neighbour([], 0, 1) is None
    assert deck.position(order, 7) == "3 of 4 in the deck"
    assert deck.position(order, 5) == "not in this deck"


def test_ask_at_is_an_iteration_within_the_limit():
    assert deck.parse_ask_at("12", ITER_MAX) == (12, None)
    for raw in ("-1", "x", "1e3", str(ITER_MAX + 1), ""):
        at, message = deck.parse_ask_at(raw, ITER_MAX)
        assert at is None and message.startswith(f"URL parameter ask_at='{raw}'")


# ----------------------------------------------------------------- the questions


def _preset(title: str):
    return next(p for p in PRESETS if p.title.startswith(title))


def _numbers(text: str) -> list[float]:
    """The figures of ``text`` in order ("1,364" is one number; "10⁻⁸" is left out)."""
    figures = re.findall(r"(?<![\w⁻.])\d[\d,]*(?:\.\d+)?(?![\d⁰-⁹⁻¹²³])", text)
    return [float(m.replace(",", "")) for m in figures]


def _same_count(fresh: int, quoted: float) -> bool:
    """An iteration count as quoted: within 2 % (another BLAS kernel's rounding may move a
    stopping test by an iteration or two)."""
    return abs(fresh - quoted) <= max(1, 0.02 * quoted)


def test_every_question_stops_before_its_runs_end():
    asked = [p for p in PRESETS if p.question is not None]
    assert len(asked) >= 8 and all(p.page in ("compare", "explorer") for p in asked)
    for p in asked:
        assert isinstance(p.question, Question) and p.question.ask.endswith("?")
        assert 0 < p.question.at < p.config.max_iter


def test_the_circle_answer():
    preset = _preset("The circle")
    (land, penalty, rgd), _ = compare.run_rows(preset.config, preset.rows, None)
    n_land, h_pen, limit, n_rgd = _numbers(preset.question.answer)
    assert land["status"] == "converged" and land["infeasibility"][-1] < 1e-8
    assert _same_count(land["iterations"], n_land)
    assert penalty["status"] == "max_iter" and limit == preset.config.max_iter
    assert abs(penalty["infeasibility"][-1] - h_pen) < 0.05
    assert np.ptp(penalty["infeasibility"][-50:]) < 1e-6  # it stays there
    assert rgd["infeasibility"].max() < 1e-12 and _same_count(rgd["iterations"], n_rgd)
    for run in (land, penalty, rgd):  # the question is asked before any run ends
        assert len(run["cost"]) > preset.question.at + 1


def test_the_frame_answer():
    preset = _preset("The frame on the sphere")
    (small, large), _ = compare.run_rows(preset.config, preset.rows, None)
    table = compare.summary([small, large], None)
    _, turn_s, turn_l, n_s, n_l, span_s, span_l = _numbers(preset.question.answer)
    assert table[0][compare.TURN_COLUMN] == pytest.approx(turn_s, abs=0.05)
    assert table[1][compare.TURN_COLUMN] == pytest.approx(turn_l, abs=0.005)
    assert 6.5 < turn_s / turn_l < 8  # "about seven times as far"
    assert table[0][compare.SPAN_COLUMN] == pytest.approx(span_s, abs=0.05)
    assert table[1][compare.SPAN_COLUMN] == pytest.approx(span_l, abs=0.05)
    assert small["status"] == large["status"] == "converged"
    assert _same_count(small["iterations"], n_s) and _same_count(large["iterations"], n_l)


def test_the_step_answer():
    preset = _preset("Too large a step")
    (const, safe), _ = compare.run_rows(preset.config, preset.rows, None)
    answer = preset.question.answer
    assert "passing 10⁶ at k = 9" in answer
    assert const["status"] == "diverged" and const["iterations"] == 9
    assert const["infeasibility"][9] > 1e6 and const["infeasibility"][:9].max() < 1e6
    # asked at k = 2, before the blow-up shows: ‖h‖ still below 1
    assert const["infeasibility"][: preset.question.at + 1].max() < 1
    assert safe["status"] == "converged" and _same_count(safe["iterations"], 1364)
    assert "(1,364 iterations)" in answer
    assert np.all(np.diff(safe["infeasibility"]) <= 1e-12)  # "keeps ‖XᵀX − I‖ from growing"


def test_the_omega_answer():
    preset = _preset("ω: pull harder")
    (w03, w3, w30, penalty), _ = compare.run_rows(preset.config, preset.rows, None)
    numbers = _numbers(preset.question.answer)
    assert numbers[:7] == [3, 72, 0.3, 151, 30, 1, 60] and numbers[7] == 801
    assert all(r["status"] == "converged" for r in (w03, w3, w30))
    for run, quoted in ((w3, 72), (w03, 151), (w30, 801)):
        assert _same_count(run["iterations"], quoted)
    assert w3["iterations"] < min(w03["iterations"], w30["iterations"])
    assert penalty["infeasibility"][-1] == pytest.approx(numbers[-1], abs=0.005)


def test_the_brockett_answer():
    preset = _preset("Brockett")
    runs, f_star = compare.run_rows(preset.config, preset.rows, None)
    answer = preset.question.answer
    for run, quoted in zip(runs, (23, 36, 54), strict=True):  # β = 0.1, 1, 5
        assert run["status"] == "converged" and _same_count(run["iterations"], quoted)
        assert abs(run["cost"][-1] - f_star) < 1e-12
        assert f"{quoted}" in answer
    assert runs[0]["iterations"] < runs[1]["iterations"] < runs[2]["iterations"]


def test_the_pca_answer():
    preset = _preset("PCA")
    runs, _ = compare.run_rows(preset.config, preset.rows, None)
    assert "all three take 510 iterations" in preset.question.answer
    assert all(_same_count(r["iterations"], 510) for r in runs)
    for r in runs[1:]:
        n = min(len(r["cost"]), len(runs[0]["cost"]))
        np.testing.assert_allclose(r["cost"][:n], runs[0]["cost"][:n], rtol=1e-3)


def test_the_b_constraint_answer():
    preset = _preset("XᵀX = I against XᵀBX = I")
    (plain, on_b), _ = compare.run_rows(preset.config, preset.rows, None)
    f_plain, n_plain, f_b, n_b = _numbers(preset.question.answer)
    assert plain["cost"][-1] == pytest.approx(-f_plain, abs=5e-4)
    assert on_b["cost"][-1] == pytest.approx(-f_b, abs=5e-4)
    assert _same_count(plain["iterations"], n_plain)
    assert abs(on_b["iterations"] - n_b) <= 0.05 * n_b  # "about 180": 179 to 184 by BLAS kernel
    assert plain["infeasibility"][-1] < 1e-12 and on_b["infeasibility"][-1] < 1e-12


def test_the_gram_answer():
    preset = _preset("The Gram matrix flows to I")
    trace, _, _ = run_config(**vars(preset.config))
    assert trace.status == "converged" and _same_count(trace.k, 932)
    assert "after 932 iterations, and within 0.05 of the dotted flow" in preset.question.answer
    # the gap itself is checked against the flow in tests/app/test_true_texts.py (the same 0.05)
    assert "largest gap ‖XₖᵀXₖ − M(tₖ)‖ is 0.05 here" in preset.look_at
    np.testing.assert_allclose(trace.gram[-1], np.eye(2), atol=1e-8)  # "at I = (1, 1, 0)"
    # asked at k = 25, while the Gram matrix is still far from I
    assert np.linalg.norm(trace.gram[preset.question.at] - np.eye(2)) > 0.1


def test_the_ellipse_answer():
    preset = _preset("XᵀBX = I: the layers")
    config = preset.config
    problem = runner.build_problem(config, B=constraint_matrix(config, None))
    trace = runner.run_to_end(*runner.start(config, problem), config)
    assert problem.B is not None and trace.status == "converged"
    assert _same_count(trace.k, 27) and "after 27 iterations" in preset.question.answer
    assert 5 < trace.k < 100  # nearest "20" of 5, 20 and 100
    assert trace.infeasibility[-1] + trace.grad_norm[-1] < 1e-8
    assert trace.infeasibility[preset.question.at] > 1e-3  # asked before it lands


def test_the_metric_preset_claims():
    """The family preset's figures at X₀, from the library's slice and from the closed forms
    the text quotes: on St(3, 2), g^β(ξ, ξ) = 2β θ²/det M along the turn ξ = X M⁻¹ θJ (whose
    Frobenius norm² is θ² tr M⁻¹), so its semi-axis is √(tr M/(2β)); on the span moves g^β is
    Δ ↦ ⟨Δ, Δ M⁻¹⟩, semi-axes √λ(M)."""
    preset = _preset("The paper's idea")
    config = preset.config
    assert (config.scrub, config.n, config.p, preset.view) == ("beta", 3, 2, "metric")
    assert (config.scrub_lo, config.scrub_hi) == SCRUB_DEFAULT == (0.05, 20.0)
    problem = runner.build_problem(config)
    X0 = runner.initial(config, problem)
    M = X0.T @ X0
    assert f"‖X₀ᵀX₀ − I‖ = {np.linalg.norm(M - np.eye(2)):.2f})" == "‖X₀ᵀX₀ − I‖ = 0.80)"
    assert "‖X₀ᵀX₀ − I‖ = 0.80)" in preset.look_at
    spans = np.sqrt(np.linalg.eigvalsh(M))
    assert [f"{s:.2f}" for s in spans] == ["0.71", "1.28"]
    assert "√λ(M) = 0.71 and 1.28" in preset.look_at
    grads = {}
    for beta, quoted in ((0.05, "4.6"), (20.0, "0.23")):
        S = mv.metric_slice(X0, problem.egrad(X0), beta)
        turn = S.kinds.index("turn")
        radii, V = mv.ball_axes(S.metric)
        along = int(np.argmax(np.abs(V[turn])))  # the semi-axis along u
        closed = np.sqrt(np.trace(M) / (2 * beta))
        assert radii[along] == pytest.approx(closed, rel=1e-12)
        assert f"{closed:.2g}" == quoted and f"{quoted} at β = {beta:g}" in preset.look_at
        np.testing.assert_allclose(np.sort(np.delete(radii, along)), spans, rtol=1e-12)
        grads[beta] = (S.grad[turn], np.delete(S.grad, turn))
    # grad_β f keeps its span part; its turn part scales as 1/β
    np.testing.assert_allclose(grads[0.05][1], grads[20.0][1], rtol=1e-12)
    assert grads[0.05][0] / grads[20.0][0] == pytest.approx(20.0 / 0.05, rel=1e-12)
