"""The Theory page's demonstrations: one chosen at a time, each computed once per setting
(``st.cache_data``), with its figure, a caption that reads the numbers, and its explanation in an
expander that lecture mode hides."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from landing_core.problems import initial_point, make_problem

from . import controls, figures
from .state import CACHE_LIMITS, AppConfig
from .teaching import demo_figures, demos

DEMOS = {
    "flow": "The normal flow: one path whatever f",
    "layer": "β within one layer",
    "omega": "The ω trade-off",
    "rates": "Fair rates",
}
DEMOS_NOTE = ("These are this app's own runs: the paper derives the formulas and reports no "
              "numerical experiments.")
FLOW_ETA = 0.02  # small: the iterates follow the flow to O(eta)
FLOW_STEPS = 300  # per cost: three runs of at most this many steps
LAYER_BETAS = (0.1, 0.3, 1.0, 3.0, 10.0)
LAYER_ETA, LAYER_MAX_ITER = 0.05, 5000
OMEGAS = (0.3, 1.0, 3.0, 10.0, 30.0)
OMEGA_ETA = 0.2  # the safe step's cap: 1/(2 omega) binds from omega = 2.5 on
DEMO_DISTANCE = 0.4  # where the sidebar puts X0 on the manifold (distance 0)
RATE_BETAS = (0.1, 0.3, 1.0, 3.0, 10.0)
RATE_SHAPE = (5, 3)  # St(5, 3) for p < n, O(3) for p = n
RATE_TOL, RATE_MAX_ITER = 1e-10, 2000  # the rate fit's window ends at 1e-9 of the start


@st.cache_data(**CACHE_LIMITS, show_spinner="Running three costs…")
def _flow(X0: np.ndarray, seed: int, beta: float, omega: float) -> demos.FlowPaths:
    # eta omega <= 0.1 keeps the constant step stable for a large omega; at most FLOW_STEPS
    # steps per cost, whatever omega (a small one would otherwise ask for millions)
    eta = min(FLOW_ETA, 0.1 / omega)
    return demos.flow_paths(X0, seed=seed, beta=beta, omega=omega, eta=eta,
                            t_end=min(3.0 / omega, FLOW_STEPS * eta))


@st.cache_data(**CACHE_LIMITS, show_spinner="Running the layer and Riemannian GD…")
def _layer(problem: str, seed: int, distance: float) -> demos.LayerRuns:
    return demos.layer_runs(make_problem(problem, 3, 2, seed),
                            initial_point(3, 2, distance, seed), LAYER_BETAS, eta=LAYER_ETA,
                            max_iter=LAYER_MAX_ITER)


@st.cache_data(**CACHE_LIMITS, show_spinner="Sweeping ω…")
def _omega(seed: int, distance: float) -> demos.OmegaSweep:
    return demos.omega_sweep(make_problem("brockett", 3, 1, seed),
                             initial_point(3, 1, distance, seed), OMEGAS, eta=OMEGA_ETA)


@st.cache_data(**CACHE_LIMITS, show_spinner="Running BB and Armijo over β…")
def _rates(problem: str, seed: int, distance: float) -> demos.FairRates:
    return demos.fair_rates(problem, *RATE_SHAPE, RATE_BETAS, seed=seed, distance=distance,
                            omega=1.0, tol=RATE_TOL, max_iter=RATE_MAX_ITER)


def _distance(config: AppConfig) -> float:
    """The sidebar's X0 distance, or DEMO_DISTANCE where it puts X0 on the manifold."""
    return config.distance if config.distance > 0 else DEMO_DISTANCE


def _explain(config: AppConfig, text: str) -> None:
    """The why, in an expander: lecture mode hides it (the words are the lecturer's)."""
    if not config.lecture:
        with st.expander("Why"):
            st.markdown(text)


def _chart(figure: go.Figure, config: AppConfig) -> None:
    """A demonstration's figure, its text sized for a projector in lecture mode."""
    st.plotly_chart(figures.text_size(figure, config.lecture), width="stretch", theme=None)


def flow_demo(config: AppConfig, X: np.ndarray) -> None:
    st.latex(r"X^\top \operatorname{grad} f(X) \in \mathrm{Skew}(p) \ \Rightarrow\ "
             r"\dot M = -2\omega M (M - I),\quad "
             r"\sigma_i(t)^2 = \frac{1}{1 + (\sigma_{i,0}^{-2} - 1)\, e^{-2\omega t}}")
    paths = _flow(X, config.seed, config.beta, config.omega)
    _chart(demo_figures.flow_paths_figure(paths), config)
    worst = max(paths.gap.values())
    st.caption(f"Three costs from this X (β = {config.beta:g}, ω = {config.omega:g}, constant "
               f"step η = {paths.eta:g}, t = kη): their singular values lie on one curve, the "
               f"exact flow, within {worst:.1e} (O(η): halving η halves it).")
    _explain(config, (
        "Along the landing flow $\\dot X = -(T + \\omega X(X^\\top X - I))$ the tangent term "
        "satisfies $X^\\top T + T^\\top X = 0$ whatever $f$, β or tangent term, so it drops out "
        "of $\\dot M = \\dot X^\\top X + X^\\top \\dot X$, and $M = X^\\top X$ commutes with "
        "$h = M - I$: $\\dot M = -2\\omega M(M - I)$. Each eigenvalue $\\lambda = \\sigma^2$ "
        "follows the logistic equation, so $1/\\lambda - 1$ decays as $e^{-2\\omega t}$. "
        "A step $\\eta_k$ advances the flow's time by $\\eta_k\\omega_k/\\omega$ (by $\\eta_k$ "
        "unless Barzilai–Borwein lowered ω); the tangent term enters $M$ only through "
        "$\\eta_k^2 T^\\top T$, hence the O(η) gap. The explorer draws this curve, dotted, "
        "on its singular-value and Gram-matrix views."))


def layer_demo(config: AppConfig) -> None:
    distance = _distance(config)
    runs = _layer(config.problem, config.seed, distance)
    _chart(demo_figures.layer_runs_figure(runs), config)
    slopes = []
    for counts in (runs.layer, runs.rgd):
        a, b = counts[-2], counts[-1]
        slopes.append("—" if a is None or b is None else
                      f"{np.log(b / a) / np.log(runs.betas[-1] / runs.betas[-2]):.2f}")
    missing = sum(c is None for c in runs.layer + runs.rgd)
    st.caption(
        f"The sidebar's cost on St(3, 2), seed {config.seed}, X₀ at distance {distance:g}; "
        f"constant step η = {LAYER_ETA:g}. Log-log slope between β = {runs.betas[-2]:g} and "
        f"{runs.betas[-1]:g}: {slopes[0]} on the layer, {slopes[1]} for Riemannian GD. The "
        f"layer runs leave their layer by at most ‖XₖᵀXₖ − X₀ᵀX₀‖ = {runs.drift.max():.3f} "
        "(O(η): nothing pulls them back)."
        + (f" {missing} runs did not reach the tolerance within {LAYER_MAX_ITER} iterations "
           "(no marker)." if missing else ""))
    _explain(config, (
        "With ω = 0 landing takes the tangent term alone: $X_k$ stays on the layer "
        "$\\{Y : Y^\\top Y = X_0^\\top X_0\\}$ to first order. There β is the choice of a metric "
        "on that layer, the pullback of the β-metric of St(n, p) through "
        "$Y \\mapsto Y (X_0^\\top X_0)^{-1/2}$, so it acts as it does for Riemannian GD in the "
        "β-metric on St(n, p) (the orange curve; β = 1 is the embedded metric, the baselines' "
        "default). The rotation block is scaled by 1/β: at a fixed step, large β slows the "
        "turn of the frame within its span and the iterations grow about like β; small β "
        "leaves the β-free out-of-span block to set the pace. For PCA the rotation block "
        "vanishes on St(n, p): the orange curve is flat there."))


def omega_demo(config: AppConfig) -> None:
    distance = _distance(config)
    sweep = _omega(config.seed, distance)
    _chart(demo_figures.omega_sweep_figure(sweep), config)
    best = int(np.nanargmin([np.inf if c is None else c for c in sweep.landing_iterations]))
    error = float(np.max(np.abs(sweep.penalty_h / sweep.predicted - 1)))
    st.caption(
        f"Brockett xᵀAx on the sphere St(3, 1), seed {config.seed}, X₀ at distance "
        f"{distance:g}; both methods at the safe step with cap η = {sweep.eta:g}. Landing is "
        f"fastest at ω = {sweep.omegas[best]:g} and lands on the sphere for every ω; the "
        f"penalty stops off it at ‖h‖ = 2|λₘᵢₙ|/ω (relative difference {error:.0e}).")
    _explain(config, (
        "**Pull harder, step shorter.** By the normal flow, $1/\\sigma_i^2 - 1$ decays like "
        "$e^{-2\\omega t}$, so near the manifold $\\|X^\\top X - I\\|$ decays at rate "
        "$2\\omega$ per unit time, and a step of length η advances that time by η. But the "
        "safe step caps η at $1/(2\\omega)$ (the normal term's own step $\\eta\\omega$ must stay "
        "$\\le \\tfrac12$): beyond $\\omega = 1/(2\\eta)$ a larger ω no longer lands faster per "
        "iteration, it only shortens the tangent step. Too small an ω lands slowly; too large "
        "a one crawls along $f$: the iterations are smallest in between. (This needs a rule "
        "that keeps the cap: Barzilai–Borwein lowers ω to $1/(2\\eta_k)$ for a step longer "
        "than $1/(2\\omega)$ instead of shortening it, so a large ω costs it little; it never "
        "raises ω, so a small ω still slows it.)\n\n"
        "**The penalty's bias.** Gradient descent on $f + \\tfrac{\\omega}{4}\\|h\\|^2$ stops "
        "where $\\nabla f + \\omega X h = 0$, i.e. $h = -M^{-1} X^\\top \\nabla f / \\omega$, "
        "which is not 0 at a solution ($X^\\top\\nabla f$ is the Lagrange multiplier): for "
        "$f = x^\\top A x$ on the sphere, $x^\\top \\nabla f = 2\\lambda_{\\min}$ and "
        "$\\|h\\| = 2|\\lambda_{\\min}|/\\omega$ exactly. Landing's tangent term has no such "
        "component ($X^\\top T$ is skew), so landing has no bias for any ω."))


PARTS = {"statements": "The paper's statements, checked live",
         "demonstrations": "Demonstrations: what they imply, in runs",
         "generalized": "Beyond XᵀX = I: XᵀBX = I"}


def part() -> str:
    """The Theory page's part to show (a preset may choose the demonstrations)."""
    controls.persist("theory_part", next(iter(PARTS)))
    return st.radio("Part", list(PARTS), format_func=PARTS.get, key="theory_part",
                    horizontal=True, label_visibility="collapsed")


def _spread(counts: list[int | None]) -> str:
    """max/min of the iteration counts, or a dash where a run did not converge."""
    if None in counts:
        return "—"
    return f"{max(counts) / min(counts):.1f}×"


def rates_demo(config: AppConfig) -> None:
    distance = _distance(config)
    rates = _rates(config.problem, config.seed, distance)
    _chart(demo_figures.fair_rates_figure(rates), config)
    lines = []
    for rule, cases in rates.iterations.items():
        name = demo_figures.RULE_NAMES.get(rule, rule)
        lines.append(f"{name}: {', '.join('—' if c is None else str(c) for c in cases['p < n'])}"
                     f" iterations for p < n (spread {_spread(cases['p < n'])}); "
                     f"{', '.join('—' if c is None else str(c) for c in cases['p = n'])} for "
                     f"p = n (spread {_spread(cases['p = n'])})")
    st.caption(
        f"The sidebar's cost, seed {config.seed}, X₀ at distance {distance:g}; β = "
        f"{', '.join(f'{b:g}' for b in rates.betas)}; tolerance {rates.tol:.0e} on the "
        "stopping rule's ‖grad‖ + ‖h‖, the same measure for every β. " + "; ".join(lines)
        + " (— : not within the iteration limit).")
    _explain(config, (
        "**One measure.** Iterations to a tolerance compare like with like only when the "
        "tolerance is on one measure for every β: the stopping rule reads "
        "$\\|\\operatorname{grad}_1 f(X)\\| + \\|X^\\top X - I\\|$ for every method and β "
        "($\\operatorname{grad}_1$, the β = 1 gradient, is the embedded Riemannian gradient on "
        "St(n, p)), and the rate is fitted to that sum over the run's last, linear phase. "
        "**Adaptive rules.** "
        "Only Barzilai–Borwein and Armijo adapt the step to each β's field (the safe step is "
        "a constant step near the solution); what is left is what β does to the problem's "
        "conditioning. **p < n:** β weighs the rotation block (scaled by 1/β) against the "
        "β-free out-of-span block, so it changes the conditioning and the rate. **p = n:** "
        "span(X) is all of ℝⁿ, the out-of-span block is 0 and "
        "$\\operatorname{grad}_\\beta f = \\operatorname{grad}_1 f/\\beta$: β only rescales "
        "the tangent term. With ω/β for the normal term, the run with (β, ω/β, η) is the run "
        "with (1, ω, η/β), step for step. Barzilai–Borwein's step is a ratio of inner "
        "products, which that rescaling leaves alone: its iterations and rates are flat. "
        "Armijo's trial steps halve from a fixed first trial, a grid that is not scale-free, "
        "so its counts still move with β, far less than for p < n."))


def section(config: AppConfig, X: np.ndarray) -> None:
    """The demonstrations: a chooser and the chosen one."""
    controls.persist("theory_demo", next(iter(DEMOS)))
    choice = st.radio("Demonstration", list(DEMOS), format_func=DEMOS.get, horizontal=True,
                      key="theory_demo")
    st.caption(DEMOS_NOTE)
    if choice == "flow":
        flow_demo(config, X)
    elif choice == "layer":
        layer_demo(config)
    elif choice == "omega":
        omega_demo(config)
    else:
        rates_demo(config)
