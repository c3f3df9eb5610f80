"""The Metric and Safe step views in headless Chromium, in lecture mode at 1280 x 720: the
numbers each view draws (the ball of g^β, grad_β f, the Frobenius gradient; η*, ηₖ) against
the library's, recomputed here from the same run's iterate (landing_core.metric_view, steps);
screenshots at β = 0.1, 1 and 10 and of the safe region."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import runner
from explorer.state import AppConfig
from landing_core import geometry as geo
from landing_core import metric_view as mv

from .conftest import open_page
from .helpers import player

pytestmark = pytest.mark.browser

K = 4  # the iterate shown: early, off the manifold (X_0 at distance 0.4)
SEEK_JS = """k => new Promise(done => {
  const s = document.querySelector('input[type=range]');
  s.value = String(k); s.dispatchEvent(new Event('input'));
  requestAnimationFrame(() => requestAnimationFrame(() => done(landingPlayer.kf))); })"""


# the Metric view drawn from 24 azimuths and 8 elevations (a drag keeps the elevation within
# ±1.5): the names of the axes that overlap another name or a line of text, [azimuth index,
# elevation, name, other] (the others: the names, then the lines)
TURN_ALL_WAYS = """() => {
  const p = landingPlayer, key = p.run.view.kind + p.run.id, overlaps = [];
  const over = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  let cameras = 0;
  for (let i = 0; i < 24; i++) for (const phi of [-1.5, -1, -0.5, 0, 0.3, 0.8, 1.2, 1.5]) {
    p.cams[key] = Landing.camera((i * Math.PI) / 12, phi);
    p.background = null;
    p.drawGeometry(p.geoCanvas.getContext("2d"), { x: 0, y: 0, w: p.size.gw, h: p.size.gh }, true);
    const d = p.run.metricDrawn, all = [...d.labels, ...d.texts];
    cameras++;
    d.labels.forEach((a, j) => all.forEach((b, m) => {
      if (j !== m && over(a, b)) overlaps.push([i, phi, j, m]);
    }));
  }
  return [cameras, overlaps];
}"""


@pytest.fixture
def lecture_page(browser):
    with open_page(browser, 1280, 720) as pg:
        yield pg


def _iterate(config: AppConfig, k: int) -> tuple[np.ndarray, np.ndarray, runner.Trace]:
    """X_k, G_k and the trace of the run the page computes for ``config``."""
    problem = runner.build_problem(config)
    trace, records = runner.start(config, problem)
    X = None
    while not trace.finished:
        record = next(records)
        if record.k == k:
            X = record.X.copy()  # the trace keeps X_k only for n <= 3
        trace.feed(record, config.tol, config.max_iter)
    return X, problem.egrad(X), trace


def _show(page, server: str, query: str, tab: str):
    page.goto(f"{server}/?lecture=1&{query}")
    frame = player(page)
    frame.get_by_role("radio", name=tab, exact=True).click()
    frame.wait_for_function(f"landingPlayer.run.view.label === {tab!r}")
    frame.evaluate("landingPlayer.toast.style.display = 'none'")  # the keys' hint, for shots
    assert frame.evaluate(SEEK_JS, K) == K
    return frame


def _close(drawn, ref, rel: float = 1e-5) -> None:
    """The drawn numbers come from rows sent to 7 significant digits."""
    drawn, ref = np.asarray(drawn, dtype=float), np.asarray(ref, dtype=float)
    assert np.linalg.norm(drawn - ref) <= rel * (1 + np.linalg.norm(ref)), (drawn, ref)


@pytest.mark.parametrize("beta", [0.1, 1.0, 10.0])
def test_metric_view_draws_the_libraries_ball_and_gradients(server, lecture_page, shots, beta):
    config = AppConfig(beta=beta, lecture=True)
    frame = _show(lecture_page, server, f"beta={beta:g}", "Metric")
    drawn = frame.evaluate("landingPlayer.run.metricDrawn")
    assert drawn["k"] == K and drawn["beta"] == beta
    X, G, _ = _iterate(config, K)
    S = mv.metric_slice(X, G, beta)
    radii, _ = mv.ball_axes(S.metric)
    _close(sorted(drawn["radii"]), sorted(radii))
    _close(drawn["frobenius"], S.frobenius)
    _close(drawn["grad"], S.grad)
    _close(drawn["touch"], S.touch)
    # the arrow is grad_β f itself: its coordinates on the slice's axes (geometry's formula)
    _close(drawn["grad"], np.einsum("iab,ab->i", S.axes, geo.grad_beta(X, G, beta)))
    lecture_page.screenshot(path=shots / f"metric_view_beta_{beta:g}.png")
    # turned every way a drag can turn it, the axes' names overlap neither each other nor the
    # lines at the bottom (their first places along the axes do, at some cameras)
    cameras, overlaps = frame.evaluate(TURN_ALL_WAYS)
    assert cameras == 192 and overlaps == []
    assert lecture_page.console_errors == []


def test_a_diverging_runs_ball_outgrows_the_view_and_says_so(server, lecture_page, shots):
    """η = 1 diverges (‖XᵀX − I‖ = 6e4 at k = 2): g^β's ball there is 250 times the view's
    half-width; the view says so under the ball (its text on white, readable over it)."""
    lecture_page.goto(f"{server}/?lecture=1&step=constant&eta=1")
    frame = player(lecture_page)
    frame.get_by_role("radio", name="Metric", exact=True).click()
    frame.wait_for_function("landingPlayer.run.done && landingPlayer.run.view.kind === 'metric'")
    assert frame.evaluate(SEEK_JS, 2) == 2  # the last valid iterate
    drawn = frame.evaluate("landingPlayer.run.metricDrawn")
    assert drawn["k"] == 2 and max(drawn["radii"]) > 50 * drawn["R"]
    assert "Xₖ far off the manifold: the ball reaches beyond the view" in drawn["lines"]
    frame.evaluate(SEEK_JS, 0)  # at X_0 the ball fits: no such line
    lines = frame.evaluate("landingPlayer.run.metricDrawn")["lines"]
    assert lines and not any("far off" in line for line in lines)
    # the Safe step view of the same run: ‖h(X_1)‖ = 21, no η*, and a constant step that
    # takes η whatever (no word of halving: that is the safe rule's)
    frame.get_by_role("radio", name="Safe step", exact=True).click()
    frame.evaluate(SEEK_JS, 1)
    drawn = frame.evaluate("landingPlayer.run.safeDrawn")
    assert drawn["d"] > 1 and drawn["eta_k"] == 1.0
    assert drawn["note"] == ["‖h(Xₖ)‖ ≥ 1: the lemma gives no η*"]
    lecture_page.screenshot(path=shots / "metric_view_diverging.png")
    assert lecture_page.console_errors == []


def test_metric_view_of_a_larger_size_draws_its_slice(server, lecture_page, shots):
    """St(10, 4): the slice through grad_β f's turn and the two span moves (metric_view)."""
    config = AppConfig(n=10, p=4, beta=0.3, lecture=True)
    frame = _show(lecture_page, server, "n=10&p=4&beta=0.3", "Metric")
    drawn = frame.evaluate("landingPlayer.run.metricDrawn")
    X, G, _ = _iterate(config, K)
    S = mv.metric_slice(X, G, config.beta)
    _close(sorted(drawn["radii"]), sorted(mv.ball_axes(S.metric)[0]))
    _close(drawn["grad"], np.einsum("iab,ab->i", S.axes, geo.grad_beta(X, G, config.beta)))
    _close(drawn["frobenius"], S.frobenius)
    caption = frame.evaluate("landingPlayer.run.view.caption")
    assert "St(10, 4): the tangent space is 30-D" in caption
    lecture_page.screenshot(path=shots / "metric_view_10x4.png")
    assert lecture_page.console_errors == []


def test_safe_view_draws_the_safe_rules_bound_and_the_step_taken(server, lecture_page, shots):
    config = AppConfig(step="safe", eta=0.5, lecture=True)
    frame = _show(lecture_page, server, "step=safe&eta=0.5", "Safe step")
    drawn = frame.evaluate("landingPlayer.run.safeDrawn")
    X, G, trace = _iterate(config, K)
    V = geo.landing_field(X, G, config.beta, config.omega).V
    C = mv.safe_curve(X, V, config.omega, trace.eps)
    assert drawn["k"] == K
    _close(drawn["eta_star"], C.eta_star)
    _close(drawn["d"], C.d)
    _close(drawn["eta_k"], trace.step[K + 1])  # the Safe rule took min(eta, eta*)
    _close(drawn["eta_k"], min(config.eta, C.eta_star))
    _close(drawn["h_next"], trace.infeasibility[K + 1])
    _close(drawn["cross"], C.eta_exact, rel=1e-4)  # the player's bisection on the quartic
    lecture_page.screenshot(path=shots / "safe_view_outside.png")  # ‖h(X_4)‖ > ε
    _assert_ticks_clear_of_the_labels(drawn)
    frame.evaluate(SEEK_JS, 6)  # ‖h(X_6)‖ = 0.637, 12 px above the tick 0.6
    _assert_ticks_clear_of_the_labels(frame.evaluate("landingPlayer.run.safeDrawn"))
    frame.evaluate(SEEK_JS, 8)  # ‖h(X_8)‖ = 0.528, 11 px above ε = 0.5
    _assert_ticks_clear_of_the_labels(frame.evaluate("landingPlayer.run.safeDrawn"))
    frame.evaluate(SEEK_JS, 10)  # the lemma's root is past 1/(2ω) = 0.5: η* is the cap
    drawn = frame.evaluate("landingPlayer.run.safeDrawn")
    assert drawn["eta_star"] == 0.5 / config.omega and drawn["capped"] and drawn["note"] == []
    frame.evaluate(SEEK_JS, 30)
    drawn = frame.evaluate("landingPlayer.run.safeDrawn")
    assert drawn["k"] == 30 and drawn["d"] < drawn["eps"]  # inside the safe region
    _assert_ticks_clear_of_the_labels(drawn)
    lecture_page.screenshot(path=shots / "safe_view.png")
    assert lecture_page.console_errors == []


def test_safe_view_says_why_there_is_no_bound_far_from_the_manifold(server, lecture_page,
                                                                      shots):
    """‖h(X_0)‖ = 1.21 ≥ 1: the lemma gives no η*; the rule halves min(η, 1/(2ω)) until ‖h‖²
    falls enough (steps.safe_step): the view says so, and the step taken is 1 halved six
    times, the library's."""
    config = AppConfig(step="safe", eta=1.0, omega=0.5, distance=0.6, lecture=True)
    frame = _show(lecture_page, server, "step=safe&eta=1&omega=0.5&distance=0.6", "Safe step")
    frame.evaluate(SEEK_JS, 0)
    drawn = frame.evaluate("landingPlayer.run.safeDrawn")
    assert drawn["d"] > 1 and drawn["eta_star"] is None
    assert drawn["note"] == ["‖h(Xₖ)‖ ≥ 1: the lemma gives no η*;",
                             "ηₖ: min(η, 1/(2ω)) halved until ‖h‖ falls"]
    _, _, trace = _iterate(config, 1)
    assert drawn["eta_k"] == trace.step[1] == 1 / 64
    lecture_page.screenshot(path=shots / "safe_view_far.png")
    assert lecture_page.console_errors == []


def _assert_ticks_clear_of_the_labels(drawn: dict) -> None:
    """The y axis's tick labels and the view's own labels at the axis (ε, ‖h(Xₖ)‖ outside the
    safe region) are at least a line apart: none is printed over another; all end left of
    the dot of ‖h(Xₖ)‖ on the axis, whose radius is more than the axes' default gap of 4 px."""
    for end in [drawn["labelsEnd"], *drawn["ticksEnd"]]:
        assert drawn["axis"] - end > drawn["dot"], drawn
    labels = drawn["labelled"]
    assert len(labels) == (2 if drawn["d"] > drawn["eps"] else 1)
    assert drawn["yticks"], drawn  # the axis keeps its other labels
    for y in drawn["yticks"]:
        for own in labels:
            assert abs(y - own) >= drawn["font"], (drawn["k"], y, own)
    if len(labels) == 2:  # ‖h(Xₖ)‖ above ε, a line clear of it
        assert labels[0] - labels[1] >= drawn["font"], (drawn["k"], labels)


def test_plane_view_shades_the_safe_region(server, lecture_page, shots):
    lecture_page.goto(f"{server}/?lecture=1&n=2&p=1")
    frame = player(lecture_page)
    frame.evaluate("landingPlayer.toast.style.display = 'none'")
    assert frame.evaluate("landingPlayer.run.view.eps") == runner.SAFE_EPS
    lecture_page.screenshot(path=shots / "plane_safe_band.png")
    assert lecture_page.console_errors == []


def test_moving_beta_in_the_sidebar_stretches_the_ball(server, page):
    """The sidebar's β reruns the run; at X_0 (the same for every β) the ball's turn semi-axis
    scales by sqrt(β_old / β_new), the span ones stay, and the arrow is the library's again."""
    page.goto(f"{server}/?view=metric")
    frame = player(page)
    frame.wait_for_function("landingPlayer.run.metricDrawn")
    before = frame.evaluate("landingPlayer.run.metricDrawn")
    slider = page.get_by_role("slider", name="β (log scale)")
    slider.focus()
    for _ in range(3):
        slider.press("ArrowLeft")
    frame.wait_for_function(f"landingPlayer.run.view.beta < {before['beta']}", timeout=60_000)
    frame.wait_for_function("landingPlayer.run.metricDrawn && "
                            "landingPlayer.run.metricDrawn.beta === landingPlayer.run.view.beta")
    after = frame.evaluate("landingPlayer.run.metricDrawn")
    assert after["k"] == before["k"] == 0
    config = AppConfig(beta=after["beta"])
    problem = runner.build_problem(config)
    X = runner.initial(config, problem)
    S = mv.metric_slice(X, problem.egrad(X), after["beta"])
    _close(sorted(after["radii"]), sorted(mv.ball_axes(S.metric)[0]))
    _close(after["grad"], S.grad)
    # the turn semi-axis sqrt(tr M / (2 β)) is the longest one here (β < 1 at X_0)
    assert max(after["radii"]) / max(before["radii"]) == pytest.approx(
        (before["beta"] / after["beta"]) ** 0.5, rel=1e-5)
    assert page.console_errors == []


FAMILY_JS = """i => new Promise(done => {
  const s = document.getElementById('lp-fam'); s.value = String(i);
  s.dispatchEvent(new Event('input'));
  requestAnimationFrame(() => requestAnimationFrame(() => done(landingPlayer.run.metricDrawn)));
})"""


def test_scrubbing_beta_reshapes_the_ball_against_fixed_axes(server, lecture_page, shots):
    """A β family in the Metric view (St(3, 2)): each member's ball of g^β and grad_β f at its
    own iterate are the library's for its β, drawn at one scale, the family's largest ball at
    X_0 (the smallest β), so that the drag changes the ball, not the axes."""
    count = 5
    lecture_page.goto(f"{server}/?lecture=1&scrub=beta&scrub_count={count}&view=metric")
    frame = player(lecture_page)
    frame.wait_for_function(f"landingPlayer.run.family.have === {count}", timeout=60_000)
    assert frame.evaluate("landingPlayer.run.view.kind") == "metric"
    assert frame.evaluate("landingPlayer.kf") == 0  # it opens at X_0, every member's
    frame.evaluate("landingPlayer.toast.style.display = 'none'")
    assert frame.evaluate(SEEK_JS, K) == K
    values = frame.evaluate("landingPlayer.run.family.values")
    scales = []
    for i in (0, count - 1):
        drawn = frame.evaluate(FAMILY_JS, i)
        assert drawn["k"] == K and drawn["beta"] == values[i]
        config = AppConfig(beta=values[i], lecture=True)
        X, G, _ = _iterate(config, K)  # the member is its lone run (tests/app/test_family.py)
        S = mv.metric_slice(X, G, values[i])
        _close(sorted(drawn["radii"]), sorted(mv.ball_axes(S.metric)[0]))
        _close(drawn["grad"], S.grad)
        scales.append(drawn["R"])  # the half-width the view drew this member at
        lecture_page.screenshot(path=shots / f"metric_view_family_beta_{values[i]:g}.png")
    config = AppConfig(beta=values[0])
    problem = runner.build_problem(config)
    X0 = runner.initial(config, problem)
    smallest = mv.metric_slice(X0, problem.egrad(X0), values[0])
    reach = max(mv.ball_axes(smallest.metric)[0])  # the family's largest ball (β = 0.05)
    assert scales[0] == scales[1]
    _close(scales[0], min(5.6, 1.2 * reach))  # metric.js's SHOWN
    assert reach < scales[0]  # the ball fits
    assert lecture_page.console_errors == []
