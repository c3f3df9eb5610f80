"""Plotly figure builders of the Compare, Stochastic, Sweep and Theory pages: arrays in,
``go.Figure`` out. No streamlit, no session state (the explorer's views are the canvas player's).

Sized for a projector: large fonts, the Okabe-Ito colour-blind-safe palette, labelled axes.
"""

from __future__ import annotations

import math
import re

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.state import TIME_NAME
from explorer.style import PALETTE, SUPERSCRIPTS
from landing_core.run import Status

Array = np.ndarray

__all__ = [
    "PALETTE",
    "beta_blocks_figure",
    "comparison_figure",
    "refresh_stochastic_figure",
    "stochastic_figure",
    "sweep_heatmap",
    "text_size",
    "sweep_hover_text",
]

# The text of every figure as the explorer's player draws its own (explorer/player/player.js:
# tick labels and axis titles 13 px in #333 sans-serif, its other text 15 px; 17 and 19 px in
# lecture mode, for a projector), so that the pages' figures and the player read alike:
# (tick labels and axis titles, panel titles and legend) in pixels, by lecture mode.
TEXT_SIZES = {False: (13, 15), True: (17, 19)}
FONT = dict(family="sans-serif", color="#333", size=TEXT_SIZES[False][0])
# the top margin holds the panels' titles below plotly's toolbar, which shows over the
# figure's top right on hover
LAYOUT = dict(font=FONT, template="plotly_white", margin=dict(l=70, r=30, t=64, b=90),
              legend=dict(font=dict(size=TEXT_SIZES[False][1]), orientation="h",
                          yanchor="top", y=-0.14, xanchor="left", x=0))
LOG_AXIS = dict(type="log", exponentformat="power", nticks=6)  # few labels, even over <1 decade


def text_size(fig: go.Figure, lecture: bool = False) -> go.Figure:
    """``fig``'s text at the shared sizes (``TEXT_SIZES``; lecture mode's for a projector):
    tick labels and axis titles (the layout's font), and the panel titles
    (the subplots' annotations and any other note), the figure's title and the legend."""
    small, large = TEXT_SIZES[lecture]
    fig.update_layout(font_size=small, legend_font_size=large)
    if fig.layout.title.text:
        fig.update_layout(title_font_size=large)
    fig.update_annotations(font_size=large)
    fig.update_xaxes(title_font_size=small)  # plotly's default is 1.2 times the layout's
    fig.update_yaxes(title_font_size=small)
    return fig


def _power_label(mantissa: int, exponent: int) -> str:
    """2×10⁻³, 10⁻³ (plotly's 'power' exponent format, for ticks we place ourselves)."""
    power = f"10{str(exponent).translate(SUPERSCRIPTS)}"
    return power if mantissa == 1 else f"{mantissa}×{power}"


def _decade_ticks(fig: go.Figure) -> None:
    """Readable ticks on log y axes. Left to itself plotly labels minor log ticks with bare
    digits ("10⁻¹, 9, 8, 7 …"). Data spanning two decades or more: powers of ten only (at most
    about six); narrower, where that leaves a single label or none: 1, 2 and 5 times the
    powers of ten, else 1, 2, 3 and 5, else every digit, labelled in full, the first of these
    that gives two labels; narrower still (within one digit's step): plotly's own ticks
    (e.g. 3.73×10⁻⁶)."""
    values: dict[str, list[Array]] = {}
    for trace in fig.data:
        y = np.asarray(trace.y if trace.y is not None else [], dtype=float)
        values.setdefault(trace.yaxis or "y", []).append(y[np.isfinite(y) & (y > 0)])
    for axis, ys in values.items():
        name = "yaxis" + axis[1:]
        y = np.concatenate(ys)
        if fig.layout[name].type != "log" or y.size == 0:
            continue
        low, high = np.log10(y.min()), np.log10(y.max())
        if high - low >= 2:
            fig.layout[name].update(dtick=max(1, math.ceil((high - low) / 5)))
        else:
            # the mantissas that give two labels at least: plotly's own below a decade read
            # "3, 2, 1, 9 … 4, 3" (0.3 to 3: the digits of 3×10⁻¹ … 3×10⁰)
            decades = range(math.floor(low), math.ceil(high) + 1)
            for mantissas in ((1, 2, 5), (1, 2, 3, 5), tuple(range(1, 10))):
                ticks = [(m, e) for e in decades for m in mantissas
                         if y.min() <= m * 10.0**e <= y.max()]
                if len(ticks) >= 2:
                    fig.layout[name].update(tickvals=[m * 10.0**e for m, e in ticks],
                                            ticktext=[_power_label(m, e) for m, e in ticks])
                    break


def _positive(values: Array) -> Array:
    """Values for a log axis: |v|, with zeros and non-finite values as gaps (NaN): a log axis
    cannot show 0, and a floor such as 1e-300 would squash the whole plot."""
    v = np.abs(np.asarray(values, dtype=float))
    v[~np.isfinite(v) | (v == 0)] = np.nan
    return v


# ----------------------------------------------------------------------------- comparisons


def _legend_below(fig: go.Figure, height: int) -> go.Figure:
    """``fig`` (a row of log panels) ``height`` pixels tall, its legend at the figure's foot
    (measured from the whole figure, so that the panels make room for it however many rows it
    takes: placed below the panels, in their own units, six long labels ran over their axis
    titles), decade ticks."""
    fig.update_layout(**LAYOUT, height=height)
    fig.update_layout(legend=dict(yref="container", y=0, yanchor="bottom"))
    _decade_ticks(fig)
    return text_size(fig)


def comparison_figure(
    runs: list[dict],
    *,
    f_star: float | None = None,
    against: str = "iteration",
    height: int = 440,
) -> go.Figure:
    """Overlaid convergence of several runs: |f - f*| (or f), ||h||_F and ||grad|| against the
    iteration k or the time (``TIME_NAME``); one colour per run, one legend; ``height`` in pixels.

    Each run is a dict with "label", "cost", "infeasibility", "grad_norm" and "time" arrays,
    and optionally "status" (a diverged run's last iterate gets a cross in each panel),
    "f_star", the run's own f* (for p = n the optimum of its final iterate's component), used
    instead of ``f_star`` for its gap, and "B" (True: the run keeps to XᵀBX = I, whose
    infeasibility ‖XᵀBX − I‖ the middle panel then names).
    """
    if against not in ("iteration", "time"):
        raise ValueError("against must be 'iteration' or 'time'")
    gap_title = "|f(Xₖ) − f*|" if f_star is not None else "f(Xₖ)"
    on_B = [bool(run.get("B")) for run in runs]
    h_title = ("‖XₖᵀXₖ − I‖<sub>F</sub>" if not any(on_B) else
               "‖XₖᵀBXₖ − I‖<sub>F</sub>" if all(on_B) else "‖XₖᵀXₖ − I‖ or ‖XₖᵀBXₖ − I‖")
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.07,
                        subplot_titles=(gap_title, h_title, "stationarity ‖grad₁ f‖"))
    for i, run in enumerate(runs):
        colour = PALETTE[i % len(PALETTE)]
        x = np.asarray(run["time"]) if against == "time" else np.arange(len(run["cost"]))
        cost = np.asarray(run["cost"], dtype=float)
        own = run.get("f_star", f_star)
        series = (_positive(cost - own) if f_star is not None and own is not None else cost,
                  _positive(run["infeasibility"]), _positive(run["grad_norm"]))
        for col, y in enumerate(series, start=1):
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=run["label"],
                                     legendgroup=run["label"], showlegend=col == 1,
                                     line=dict(color=colour, width=3)), 1, col)
            if run.get("status") == Status.DIVERGED:  # a run cut short early: mark where it ends
                fig.add_trace(go.Scatter(
                    x=x[-1:], y=y[-1:], mode="markers", name=f"{run['label']}: diverged",
                    legendgroup=run["label"], showlegend=False,
                    marker=dict(symbol="x", size=16, color=colour, line=dict(width=1)),
                    hovertemplate=f"diverged after k = {len(x) - 1}<extra></extra>"), 1, col)
    for col in (1, 2, 3):
        if col > 1 or f_star is not None:
            fig.update_yaxes(**LOG_AXIS, row=1, col=col)
    fig.update_xaxes(title_text="iteration k" if against == "iteration" else f"{TIME_NAME} (s)")
    # the legend takes its rows from the panels' height: six long labels left them 88 px of
    # 400; the figure grows by the rows beyond the first instead
    extra = _legend_rows([run["label"] for run in runs]) - 1
    return _legend_below(fig, height + LEGEND_ROW * extra)


LEGEND_ROW = 32  # px of a legend row (its 15 px text and plotly's spacing; 19 px in lecture)


def _legend_rows(labels: list[str], width: float = 860.0) -> int:
    """How many rows a horizontal legend of ``labels`` takes in a figure ``width`` pixels
    wide (the Compare page's at 1366 px with the sidebar), by plotly's way of filling them:
    items left to right, a new row where the next does not fit. An item is its line sample
    and gap (46 px) and its text (about 8.5 px a character at the legend's 15 px; HTML tags
    do not show)."""
    rows, used = 1, 0.0
    for label in labels:
        item = 46.0 + 8.5 * len(re.sub(r"<[^>]*>", "", label))
        if used and used + item > width:
            rows, used = rows + 1, 0.0
        used += item
    return rows


BELOW_F_STAR = "ringed: f below f* (X off the manifold)"
ROUNDING_UNITS = 100  # a gap below f* within this many eps |f*| is put down to f's rounding


def _stochastic_traces(runs: list[dict], f_star: float) -> list[tuple[int, go.Scatter]]:
    """The traces of ``stochastic_figure`` in their order, each with its panel (column)."""
    scale = max(abs(f_star), 1e-300)
    traces, rings = [], []  # the rings after every curve: a curve's index stays its own
    for i, run in enumerate(runs):
        colour = run.get("colour", PALETTE[i % len(PALETTE)])
        x = np.asarray(run["epoch"])
        cost = np.asarray(run["cost"], dtype=float)
        series = (_positive(np.abs(cost - f_star) / scale),
                  _positive(run["infeasibility"]), _positive(run["grad_norm"]))
        # |f - f*| dips through 0 where f crosses f* (an iterate off the manifold, where f is
        # lower): the points below f* are ringed, so the dip reads as a crossing; not those
        # within f's rounding of it (SAGA at its optimum, 2e-15 |f*| below)
        below = cost < f_star - ROUNDING_UNITS * np.finfo(float).eps * max(1.0, abs(f_star))
        for col, y in enumerate(series, start=1):
            traces.append((col, go.Scatter(x=x, y=y, mode="lines+markers", name=run["label"],
                                           legendgroup=run["label"], showlegend=col == 1,
                                           line=dict(color=colour, width=2),
                                           marker=dict(color=colour, size=4))))
            if col == 1 and below.any():  # (per-point symbols and sizes in the trace itself
                # made plotly draw its line dotted)
                rings.append((1, go.Scatter(
                    x=x[below], y=y[below], mode="markers", name=f"{run['label']}: f < f*",
                    legendgroup=run["label"], showlegend=False,
                    marker=dict(symbol="circle-open", size=8, color=colour,
                                line=dict(width=1.5)))))
            if run.get("status") == Status.DIVERGED and len(x):
                traces.append((col, go.Scatter(
                    x=x[-1:], y=y[-1:], mode="markers", name=f"{run['label']}: diverged",
                    legendgroup=run["label"], showlegend=False,
                    marker=dict(symbol="x", size=16, color=colour))))
    if rings:  # and their key, in the legend
        traces += rings
        traces.append((1, go.Scatter(x=[None], y=[None], mode="markers", name=BELOW_F_STAR,
                                     marker=dict(symbol="circle-open", size=8, color="#555",
                                                 line=dict(width=1.5)))))
    return traces


def stochastic_figure(
    runs: list[dict],
    *,
    f_star: float,
    epochs: int | None = None,
    height: int = 440,
    decay_from: float | None = None,
) -> go.Figure:
    """Stochastic runs over epochs (passes over the data): the relative gap |f - f*| / |f*| of
    the full sum, ||X^T X - I||_F and the stationarity ||grad_1 f|| of the full gradient, on log
    axes, one point per epoch (lines and markers, so that SGD's noise shows); on the gap's
    panel the points where f is below f* are ringed (``BELOW_F_STAR`` in the legend).

    Each run is a dict with "label", "epoch", "cost", "infeasibility", "grad_norm", and
    optionally "colour" and "status" (a diverged run's last point gets a cross). ``epochs``
    fixes the x range, so that curves arriving live grow into a fixed frame. ``decay_from``:
    the epoch where SGD's decreasing step starts to decrease, a dotted line on each panel,
    where its curve leaves the constant step's.
    """
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.07,
                        subplot_titles=("|f − f*| / |f*| (full sum)", "‖XᵀX − I‖<sub>F</sub>",
                                        "stationarity ‖grad₁ f‖ (full sum)"))
    for col, trace in _stochastic_traces(runs, f_star):
        fig.add_trace(trace, 1, col)
    fig.update_yaxes(**LOG_AXIS)
    fig.update_xaxes(title_text="epoch (passes over the data)",
                     range=None if epochs is None else [0, epochs])
    if decay_from is not None:
        # unnamed: the page's caption names it (a third of the width has no room for a name
        # between the axis and the line, nor beside it)
        for col in (1, 2, 3):
            fig.add_vline(x=decay_from, row=1, col=col,
                          line=dict(dash="dot", width=1.5, color="#777"))
    return _legend_below(fig, height)


def refresh_stochastic_figure(fig: go.Figure, runs: list[dict], f_star: float) -> bool:
    """Put ``runs``' points into ``fig``, a ``stochastic_figure`` of the same runs drawn
    earlier, in place: the figure ``stochastic_figure`` would build, without building one
    (plotly validates every property of a new figure, which at every live redraw took the
    interpreter from the runs' worker). False, and ``fig`` unchanged, where the traces
    differ (a run diverged since: its cross is a new trace)."""
    traces = [trace for _, trace in _stochastic_traces(runs, f_star)]
    if [t.name for t in traces] != [t.name for t in fig.data]:
        return False
    with fig.batch_update():
        for old, new in zip(fig.data, traces, strict=True):
            old.x, old.y = new.x, new.y
        fig.update_yaxes(dtick=None, tickvals=None, ticktext=None)
    _decade_ticks(fig)
    return True


# ----------------------------------------------------------------------------- sweep heatmaps

LOG_FLOOR = 1e-16  # log-coloured sweep values below this (exact zeros) are drawn at the floor


def sweep_hover_text(
    beta: Array,
    omega: Array,
    eta: Array,
    iterations: Array,
    status: Array,
    gap: Array,
    infeasibility: Array,
    *,
    gap_label: str = "f − f*",
) -> Array:
    """Hover text of each sweep cell: its beta, omega, eta and outcome (iterations, status,
    ``gap_label`` = gap, ||h||). Arguments broadcast to one shape; returns strings of that shape."""
    cols = np.broadcast_arrays(*(np.asarray(a, dtype=object) for a in
                                 (beta, omega, eta, iterations, status, gap, infeasibility)))
    text = [
        f"β = {b:.4g}<br>ω = {o:.4g}<br>η = {e:.4g}<br>iterations: {int(k)}<br>"
        f"status: {s}<br>{gap_label} = {float(g):.3e}<br>‖h‖ = {float(d):.3e}"
        for b, o, e, k, s, g, d in zip(*(c.ravel() for c in cols), strict=True)
    ]
    return np.array(text, dtype=object).reshape(cols[0].shape)


def _log_edges(centers: Array) -> Array:
    """Cell edges for log-spaced centres: geometric midpoints, the ends mirrored outwards."""
    logc = np.log10(np.asarray(centers, dtype=float))
    half = np.diff(logc) / 2 if logc.size > 1 else np.array([0.5])
    inner = logc[:-1] + half[: logc.size - 1]
    return 10.0 ** np.concatenate([[logc[0] - half[0]], inner, [logc[-1] + half[-1]]])


def _log_colorbar(z: Array, title: str) -> tuple[dict, float, float]:
    """A colour bar for log10 values, ticked at the integer powers of ten as 10ⁿ, and the
    whole decades (zmin, zmax) around the values, which the heatmap's colours should span:
    plotly shows only the ticks within the colours' range, and a bar over values up to 0.66
    ended at its 10⁻³ tick, under a stretch of the top colour that no label named."""
    finite = z[np.isfinite(z)]
    lo, hi = (np.floor(finite.min()), np.ceil(finite.max())) if finite.size else (0.0, 0.0)
    hi = max(hi, lo + 1)  # one decade at least: values all alike still get a bar
    ticks = np.arange(hi, lo - 1, -max(1, int(np.ceil((hi - lo + 1) / 8))))[::-1]  # top ticked
    bar = dict(title=dict(text=title), tickvals=ticks.tolist(),
               ticktext=["10" + str(int(t)).translate(SUPERSCRIPTS) if t else "1" for t in ticks])
    return bar, float(lo), float(hi)


def _sweep_cells(eta: Array, param: Array, hover: Array, size: float) -> go.Scatter:
    """Invisible markers at the cell centres, in C order over (param, eta): they carry the hover
    text and make cells clickable (a heatmap cannot be point-selected)."""
    x, y = np.meshgrid(eta, param)
    hidden = dict(marker=dict(opacity=0))
    return go.Scatter(x=x.ravel(), y=y.ravel(), mode="markers", name="cells", showlegend=False,
                      hovertext=np.asarray(hover).ravel(),
                      hovertemplate="%{hovertext}<extra></extra>",
                      marker=dict(symbol="square", size=size, opacity=0),
                      selected=hidden, unselected=hidden)


def sweep_heatmap(
    eta: Array,
    param: Array,
    values: Array,
    status: Array,
    hover: Array,
    *,
    param_label: str,
    title: str,
    colour_title: str,
    log_colour: bool = False,
    colorscale: str = "Viridis",
    selected: tuple[int, int] | None = None,
) -> go.Figure:
    """One sweep outcome over the (eta, param) plane: eta on the x axis, param (beta or omega) on
    the y axis, both log-scaled; ``values``, ``status`` and ``hover`` have shape
    (len(param), len(eta)).

    The heatmap's z is ``values`` (``log10(max(|values|, LOG_FLOOR))`` with ``log_colour``, the
    colour bar ticked in powers of ten), NaN where status == "diverged": those cells show the
    grey background under a black × (a legend entry says so). ``selected`` = (row, column)
    outlines the chosen cell. Traces: the heatmap, then invisible markers at the cell centres
    holding ``hover`` (row by row), then the × markers and the chosen cell when present.
    """
    eta, param = np.asarray(eta, dtype=float), np.asarray(param, dtype=float)
    values = np.asarray(values, dtype=float)
    diverged = np.asarray(status) == Status.DIVERGED
    z = np.log10(np.maximum(np.abs(values), LOG_FLOOR)) if log_colour else values.copy()
    z[diverged] = np.nan
    if log_colour:
        colorbar, zmin, zmax = _log_colorbar(z, colour_title)
        span = dict(zmin=zmin, zmax=zmax)
    else:
        colorbar, span = dict(title=dict(text=colour_title)), {}
    xe, ye = _log_edges(eta), _log_edges(param)
    fig = go.Figure(go.Heatmap(x=xe, y=ye, z=z, colorscale=colorscale, colorbar=colorbar,
                               name=title, hoverinfo="skip", **span))
    size = float(np.clip(330 / max(len(eta), len(param)), 5, 16))
    fig.add_trace(_sweep_cells(eta, param, hover, size))
    rows, cols = np.nonzero(diverged)
    if rows.size:
        fig.add_trace(go.Scatter(x=eta[cols], y=param[rows], mode="markers",
                                 name="diverged (×, grey)", hoverinfo="skip",
                                 marker=dict(symbol="x-thin", size=0.7 * size,
                                             line=dict(width=1.5, color="black")),
                                 unselected=dict(marker=dict(opacity=1))))
    if selected is not None:
        i, j = selected
        fig.add_trace(go.Scatter(x=[eta[j]], y=[param[i]], mode="markers", name="chosen cell",
                                 hoverinfo="skip", unselected=dict(marker=dict(opacity=1)),
                                 marker=dict(symbol="square-open", size=size * 1.6,
                                             color=PALETTE[1], line=dict(width=3))))
    def ticks(edges: Array) -> dict:
        """Decades only over 2 or more decades: three heatmaps side by side leave no room for
        the 2 and 5 labels; a narrower range keeps plotly's own ticks."""
        span = np.log10(edges[[0, -1]])
        return dict(range=span.tolist(), dtick=1 if span[1] - span[0] >= 2 else None)

    fig.update_xaxes(type="log", title_text="step η (log scale)", exponentformat="power",
                     showgrid=False, **ticks(xe))
    fig.update_yaxes(type="log", title_text=param_label, exponentformat="power",
                     showgrid=False, **ticks(ye))
    fig.update_layout(**LAYOUT, height=520, title=dict(text=title, font=dict(size=20)),
                      plot_bgcolor="#D0D0D0", hoverdistance=-1)
    fig.update_layout(margin=dict(t=60), legend=dict(y=-0.2))
    return fig


def beta_blocks_figure(
    betas: Array, rotation: Array, normal: Array, total: Array, *, beta: float
) -> go.Figure:
    """What beta does to grad_beta f(X) = (1/beta) R + N (theory page), on log-log axes against
    beta: ||R|| / beta (the rotation block, in span(X)), ||N|| (orthogonal to span(X), flat) and
    ||grad_beta f(X)||. The grid point nearest ``beta`` is marked. A block that vanishes (below
    1e-12 of the total: R for p = 1, N for p = n) is left out and named in an annotation.
    """
    betas, rotation = np.asarray(betas, dtype=float), np.asarray(rotation, dtype=float)
    normal, total = np.asarray(normal, dtype=float), np.asarray(total, dtype=float)
    at = int(np.argmin(np.abs(np.log(betas) - np.log(beta))))
    zero = 1e-12 * float(np.max(total))
    curves = [("‖R‖ / β: rotation in span(X)", rotation, PALETTE[1], "solid",
               "R = 0 (p = 1): β changes nothing"),
              ("‖N‖: out of span(X), β-free", normal, PALETTE[0], "solid",
               "N = 0 (p = n: span(X) is all of ℝⁿ)"),
              ("‖gradᵦ f‖ (total)", total, PALETTE[6], "dot", "gradᵦ f = 0")]
    fig = go.Figure()
    notes = []
    for name, y, colour, dash, note in curves:
        if not np.max(y) > zero:
            notes.append(note)
            continue
        fig.add_trace(go.Scatter(x=betas, y=_positive(y), mode="lines", name=name,
                                 line=dict(color=colour, width=4, dash=dash)))
        solid = dash == "solid"  # the total's marker is an open ring, so a block's shows inside
        fig.add_trace(go.Scatter(x=betas[at:at + 1], y=_positive(y[at:at + 1]), mode="markers",
                                 name=f"{name} at β = {beta:g}", showlegend=False,
                                 marker=dict(size=16 if solid else 26, color=colour,
                                             symbol="circle" if solid else "circle-open",
                                             line=dict(color="black" if solid else colour,
                                                       width=1.5 if solid else 3))))
    fig.add_vline(x=betas[at], line=dict(color="grey", width=2, dash="dash"))
    # annotations on a log axis take log10(x) (add_vline's own annotation gets this wrong)
    fig.add_annotation(text=f"β = {beta:g}", x=float(np.log10(betas[at])), xref="x",
                       y=1.0, yref="paper", xanchor="left", yanchor="bottom", showarrow=False,
                       font=dict(size=18))
    for i, note in enumerate(notes):
        fig.add_annotation(text=note, xref="paper", yref="paper", x=0.5, y=0.08 + 0.1 * i,
                           showarrow=False, font=dict(size=19, color=PALETTE[3]),
                           bgcolor="rgba(255,255,255,0.85)")
    fig.update_xaxes(title_text="β (log scale)", type="log", exponentformat="power", dtick=1)
    fig.update_yaxes(title_text="Frobenius norm", type="log", exponentformat="power", dtick=1)
    fig.update_layout(**LAYOUT, height=480)
    fig.update_layout(legend=dict(y=-0.2))
    return fig
