"""Plotly figures of the Theory page's demonstrations (``explorer.teaching.demos``): data in,
``go.Figure`` out, in the style of ``explorer.figures`` (its palette, fonts and log axes)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..figures import LAYOUT, PALETTE, _decade_ticks
from .demos import FairRates, FlowPaths, LayerRuns, OmegaSweep

Array = np.ndarray

__all__ = ["fair_rates_figure", "flow_paths_figure", "layer_runs_figure", "omega_sweep_figure"]

COST_NAMES = {"brockett": "Brockett", "pca": "PCA", "linear": "linear", "procrustes":
              "Procrustes", "quartic": "quartic"}
_LOG = dict(type="log", exponentformat="power")


def flow_paths_figure(paths: FlowPaths, *, height: int = 440) -> go.Figure:
    """sigma_i(X_k) against t for each cost (solid, one colour per cost), and the exact normal
    flow (dotted black): the curves lie on top of each other."""
    fig = go.Figure()
    widths = [7, 4.5, 2]  # the first cost widest: the others show inside it
    for c, (name, sigma) in enumerate(paths.sigma.items()):
        t = paths.t[: len(sigma)]
        for i in range(sigma.shape[1]):
            fig.add_trace(go.Scatter(
                x=t, y=sigma[:, i], mode="lines", legendgroup=name, showlegend=i == 0,
                name=f"{COST_NAMES.get(name, name)} (off the flow by {paths.gap[name]:.1e})",
                line=dict(color=PALETTE[c % len(PALETTE)], width=widths[c % len(widths)])))
    for i in range(paths.flow.shape[1]):
        fig.add_trace(go.Scatter(x=paths.t, y=paths.flow[:, i], mode="lines",
                                 legendgroup="flow", showlegend=i == 0,
                                 name="exact flow σᵢ(t)",
                                 line=dict(color="black", width=2.5, dash="dot")))
    fig.add_hline(y=1.0, line=dict(color="grey", width=1.5, dash="dash"))
    fig.update_xaxes(title_text=f"t = kη  (η = {paths.eta:g}, ω = {paths.omega:g})")
    fig.update_yaxes(title_text="singular values σᵢ(Xₖ)")
    fig.update_layout(**LAYOUT, height=height)
    return fig


def layer_runs_figure(runs: LayerRuns, *, height: int = 440) -> go.Figure:
    """Iterations to ||grad|| <= tol against beta (log-log): the tangent term alone on the layer
    through X_0 and Riemannian GD in the beta-metric on St(n, p)."""
    fig = go.Figure()
    for name, counts, colour, symbol in (
            ("tangent term alone (ω = 0), on the layer of X₀", runs.layer, PALETTE[0], "circle"),
            ("Riemannian GD, β-metric, on St(n, p)", runs.rgd, PALETTE[1], "diamond")):
        y = np.array([np.nan if c is None else c for c in counts], dtype=float)
        fig.add_trace(go.Scatter(x=runs.betas, y=y, mode="lines+markers", name=name,
                                 line=dict(color=colour, width=4),
                                 marker=dict(size=13, symbol=symbol, color=colour)))
    fig.update_xaxes(title_text="β (log scale)", **_LOG, dtick=1)
    fig.update_yaxes(title_text=f"iterations to ‖grad‖ ≤ {runs.tol:.0e}", **_LOG)
    fig.update_layout(**LAYOUT, height=height)
    fig.update_layout(legend=dict(y=-0.24))
    _decade_ticks(fig)
    return fig


def omega_sweep_figure(sweep: OmegaSweep, *, height: int = 460) -> go.Figure:
    """Left: landing's iterations to tol against omega, with omega = 1/(2 eta) marked (where the
    safe step's cap 1/(2 omega) starts to cut the step). Right: final ||X^T X - I||, the
    penalty's against its bias ||X*^T G|| / omega, and landing's."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.14, subplot_titles=(
        "landing: iterations to tolerance", "final ‖XᵀX − I‖"))
    w = sweep.omegas
    its = np.array([np.nan if c is None else c for c in sweep.landing_iterations], dtype=float)
    fig.add_trace(go.Scatter(x=w, y=its, mode="lines+markers", name="landing, safe step",
                             line=dict(color=PALETTE[0], width=4), marker=dict(size=12)),
                  row=1, col=1)
    fig.add_vline(x=0.5 / sweep.eta, line=dict(color="grey", width=2, dash="dash"), row=1, col=1)
    fig.add_annotation(text=f"ω = 1/(2η), η = {sweep.eta:g}", x=float(np.log10(0.5 / sweep.eta)),
                       xref="x", y=0.9, yref="y domain", xanchor="left", yanchor="top",
                       showarrow=False, font=dict(size=15))
    fig.add_trace(go.Scatter(x=w, y=sweep.penalty_h, mode="markers", name="penalty: final ‖h‖",
                             marker=dict(size=14, color=PALETTE[1], symbol="diamond")),
                  row=1, col=2)
    fig.add_trace(go.Scatter(x=w, y=sweep.predicted, mode="lines",
                             name="its bias ‖X*ᵀ∇f(X*)‖/ω (= 2|λₘᵢₙ|/ω for p = 1)",
                             line=dict(color=PALETTE[1], width=2, dash="dot")), row=1, col=2)
    floor = np.maximum(sweep.landing_h, 1e-16)  # exactly 0 cannot show on a log axis
    fig.add_trace(go.Scatter(x=w, y=floor, mode="markers",
                             name="landing: final ‖h‖ (≤ tol; 0 drawn at 10⁻¹⁶)",
                             marker=dict(size=12, color=PALETTE[0])), row=1, col=2)
    fig.update_xaxes(title_text="ω (log scale)", **_LOG, dtick=1)
    fig.update_yaxes(**_LOG, row=1, col=1)
    fig.update_yaxes(**_LOG, dtick=4, row=1, col=2)
    fig.update_layout(**LAYOUT, height=height)
    fig.update_layout(legend=dict(y=-0.22))
    _decade_ticks(fig)
    return fig


RULE_NAMES = {"bb": "Barzilai–Borwein", "armijo": "Armijo", "safe": "safe step",
              "constant": "constant η"}


def fair_rates_figure(rates: FairRates, *, height: int = 460) -> go.Figure:
    """The local linear rate of ||grad|| + ||h|| against beta, one line per step rule: left
    St(n, p) with p < n, right O(p) (p = n, omega = omega/beta). Lower is faster."""
    (n, p), (q, _) = rates.shapes["p < n"], rates.shapes["p = n"]
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.06,
                        subplot_titles=(f"St({n}, {p}): p < n, ω = {rates.omega:g}",
                                        f"O({q}): p = n, ω = {rates.omega:g}/β"))
    for i, (rule, cases) in enumerate(rates.rates.items()):
        for col, case in enumerate(("p < n", "p = n"), start=1):
            fig.add_trace(go.Scatter(
                x=rates.betas, y=cases[case], mode="lines+markers",
                name=RULE_NAMES.get(rule, rule), legendgroup=rule, showlegend=col == 1,
                line=dict(color=PALETTE[i % len(PALETTE)], width=4),
                marker=dict(size=12, symbol=["circle", "diamond", "square"][i % 3])),
                row=1, col=col)
    fig.update_xaxes(title_text="β (log scale)", **_LOG, dtick=1)
    fig.update_yaxes(title_text="local rate r: ‖grad‖ + ‖h‖ ~ rᵏ", range=[0, 1.02], row=1,
                     col=1)
    fig.update_layout(**LAYOUT, height=height)
    fig.update_layout(legend=dict(y=-0.22))
    return fig
