"""Plotly figure builders: arrays in, ``go.Figure`` out. No streamlit, no session state.

Sized for a projector: large fonts, the Okabe-Ito colour-blind-safe palette, labelled axes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import plotly.figure_factory as ff
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .geometry import landing_field

Array = np.ndarray

__all__ = [
    "PALETTE",
    "beta_blocks_figure",
    "comparison_figure",
    "convergence_figure",
    "frame_figure",
    "gram_cone_figure",
    "layer_radii",
    "plane_figure",
    "singular_values_figure",
    "sphere_figure",
    "stochastic_figure",
    "sweep_heatmap",
    "text_size",
    "sweep_hover_text",
    "trajectories_figure",
]

# Okabe & Ito (2008): distinguishable under the common colour-vision deficiencies.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
# The text of every figure as the explorer's player draws its own (explorer/player/player.js:
# tick labels and axis titles 13 px in #333 sans-serif, its other text 15 px; 17 and 19 px in
# lecture mode, for a projector), so that the pages' figures and the player read alike:
# (tick labels and axis titles, panel titles and legend) in pixels, by lecture mode.
TEXT_SIZES = {False: (13, 15), True: (17, 19)}
FONT = dict(family="sans-serif", color="#333", size=TEXT_SIZES[False][0])
LAYOUT = dict(font=FONT, template="plotly_white", margin=dict(l=70, r=30, t=40, b=90),
              legend=dict(font=dict(size=TEXT_SIZES[False][1]), orientation="h",
                          yanchor="top", y=-0.14, xanchor="left", x=0))
LOG_AXIS = dict(type="log", exponentformat="power", nticks=6)  # few labels, even over <1 decade


def text_size(fig: go.Figure, lecture: bool = False) -> go.Figure:
    """``fig``'s text at the shared sizes (``TEXT_SIZES``; lecture mode's for a projector):
    tick labels and axis titles (the layout's font, 3-D axes included), and the panel titles
    (the subplots' annotations and any other note), the figure's title and the legend."""
    small, large = TEXT_SIZES[lecture]
    fig.update_layout(font_size=small, legend_font_size=large)
    if fig.layout.title.text:
        fig.update_layout(title_font_size=large)
    fig.update_annotations(font_size=large)
    fig.update_xaxes(title_font_size=small)  # plotly's default is 1.2 times the layout's
    fig.update_yaxes(title_font_size=small)
    fig.update_scenes(xaxis_title_font_size=small, yaxis_title_font_size=small,
                      zaxis_title_font_size=small)
    return fig


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_label(mantissa: int, exponent: int) -> str:
    """2×10⁻³, 10⁻³ (plotly's 'power' exponent format, for ticks we place ourselves)."""
    power = f"10{str(exponent).translate(_SUPERSCRIPTS)}"
    return power if mantissa == 1 else f"{mantissa}×{power}"


def _decade_ticks(fig: go.Figure) -> None:
    """Readable ticks on log y axes. Left to itself plotly labels minor log ticks with bare
    digits ("10⁻¹, 9, 8, 7 …"). Data spanning two decades or more: powers of ten only (at most
    about six); one to two decades, where that leaves a single label: 1, 2 and 5 times the
    powers of ten, labelled in full; narrower: plotly's own ticks (e.g. 3.73×10⁻⁶)."""
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
        elif high - low >= 1:
            ticks = [(m, e) for e in range(math.floor(low), math.ceil(high) + 1) for m in (1, 2, 5)
                     if y.min() <= m * 10.0**e <= y.max()]
            fig.layout[name].update(tickvals=[m * 10.0**e for m, e in ticks],
                                    ticktext=[_power_label(m, e) for m, e in ticks])


_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _sub(k: int) -> str:
    """k as subscript digits, for legend names such as X₁₃₂."""
    return str(k).translate(_SUBSCRIPTS)


def _positive(values: Array) -> Array:
    """Values for a log axis: |v|, with zeros and non-finite values as gaps (NaN): a log axis
    cannot show 0, and a floor such as 1e-300 would squash the whole plot."""
    v = np.abs(np.asarray(values, dtype=float))
    v[~np.isfinite(v) | (v == 0)] = np.nan
    return v


def convergence_figure(
    cost: Array,
    infeasibility: Array,
    grad_norm: Array,
    step: Array,
    *,
    f_star: float | None = None,
    current: int | None = None,
    normal_step: Array | None = None,
) -> go.Figure:
    """Three panels against k: |f(X_k) - f*| (f(X_k) when f* is unknown), ||h(X_k)||_F and
    ||grad|| together, and the step eta_k with, when given, the normal term's step
    eta_k omega_k (dotted); log axes. ``current`` marks an iteration."""
    k = np.arange(len(cost))
    gap_title = "|f(Xₖ) − f*|" if f_star is not None else "f(Xₖ)"
    normal = None if normal_step is None else _positive(normal_step)
    if normal is not None and not np.any(np.isfinite(normal)):
        normal = None  # no normal term (a retraction): nothing to draw
    step_title = "steps ηₖ and ηₖωₖ" if normal is not None else "step ηₖ"
    # the spacing leaves room for a label such as 3.73×10⁻⁶ (a step that varies < 1 decade)
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.12,
                        subplot_titles=(gap_title, "‖h(Xₖ)‖ and ‖grad‖", step_title))
    if f_star is not None:
        fig.add_trace(go.Scatter(x=k, y=_positive(np.asarray(cost) - f_star), name="|f − f*|",
                                 line=dict(color=PALETTE[0], width=3)), 1, 1)
        fig.update_yaxes(**LOG_AXIS, row=1, col=1)
    else:
        fig.add_trace(go.Scatter(x=k, y=np.asarray(cost, dtype=float), name="f",
                                 line=dict(color=PALETTE[0], width=3)), 1, 1)
    fig.add_trace(go.Scatter(x=k, y=_positive(infeasibility), name="‖XᵀX − I‖<sub>F</sub>",
                             line=dict(color=PALETTE[1], width=3)), 1, 2)
    fig.add_trace(go.Scatter(x=k, y=_positive(grad_norm), name="‖grad₁ f‖ (stationarity)",
                             line=dict(color=PALETTE[2], width=3, dash="dash")), 1, 2)
    fig.add_trace(go.Scatter(x=k, y=_positive(step), name="ηₖ",
                             line=dict(color=PALETTE[3], width=3)), 1, 3)
    if normal is not None:
        fig.add_trace(go.Scatter(x=k, y=normal, name="ηₖωₖ (normal term's step)",
                                 line=dict(color=PALETTE[4], width=3, dash="dot")), 1, 3)
    fig.update_yaxes(**LOG_AXIS, row=1, col=2)
    fig.update_yaxes(**{**LOG_AXIS, "nticks": 4}, row=1, col=3)
    fig.update_xaxes(title_text="iteration k")
    if current is not None:
        for col in (1, 2, 3):
            fig.add_vline(x=current, line=dict(color="black", width=3, dash="dash"), row=1,
                          col=col)
    fig.update_layout(**LAYOUT, height=420)
    fig.update_layout(legend=dict(y=-0.22))
    _decade_ticks(fig)
    return fig


def layer_radii(X: Array, count: int = 6) -> Array:
    """Radii ||x_k|| of up to ``count`` layer circles/spheres through iterates spread over the run
    (p = 1): the first and last iterates always included, duplicates (to 1e-3) merged."""
    r = np.linalg.norm(np.asarray(X).reshape(len(X), -1), axis=1)
    picks = r[np.unique(np.linspace(0, len(r) - 1, min(count, len(r))).round().astype(int))]
    keep: list[float] = []
    for radius in picks:
        if all(abs(radius - other) > 1e-3 for other in keep):
            keep.append(float(radius))
    return np.array(keep)


def _field_on_points(
    points: Array, egrad: Callable[[Array], Array], beta: float, omega: float, tangent: str
) -> Array:
    """The landing field V at each point of shape (m, n) (p = 1), as an (m, n) array."""
    X = points[:, :, None]
    _, V, _ = landing_field(X, egrad(X), beta, omega, tangent)
    return V[:, :, 0]


def plane_figure(
    X: Array,
    cost: Callable[[Array], Array],
    egrad: Callable[[Array], Array],
    *,
    beta: float,
    omega: float,
    tangent: str,
    current: int | None = None,
    grid: int = 120,
    arrows: int = 15,
) -> go.Figure:
    """n = 2, p = 1: cost as filled contours, the unit circle St(2, 1), the layer circles
    ||x|| = ||x_k||, the landing field -V as arrows, and the trajectory with start/end marked.

    ``X`` holds the iterates, shape (K, 2, 1) (or (K, 2)); ``current`` highlights X_current.
    """
    pts = np.asarray(X, dtype=float).reshape(len(X), 2)
    R = max(1.6, 1.15 * float(np.max(np.linalg.norm(pts, axis=1))))
    g = np.linspace(-R, R, grid)
    gx, gy = np.meshgrid(g, g)
    Z = cost(np.stack([gx.ravel(), gy.ravel()], axis=1)[:, :, None]).reshape(grid, grid)
    fig = go.Figure()
    fig.add_trace(go.Contour(x=g, y=g, z=Z, colorscale="Cividis", ncontours=30, opacity=0.85,
                             colorbar=dict(title=dict(text="f(x)"), len=0.8),
                             contours=dict(showlines=False), name="cost", hoverinfo="skip"))
    # landing field -V on a coarse grid (the origin, where X is rank-deficient, is skipped)
    a = np.linspace(-R, R, arrows)
    ax, ay = (m.ravel() for m in np.meshgrid(a, a))
    mask = np.hypot(ax, ay) > 0.2
    P = np.stack([ax[mask], ay[mask]], axis=1)
    V = -_field_on_points(P, egrad, beta, omega, tangent)
    lengths = np.linalg.norm(V, axis=1)
    V = V / np.maximum(lengths, 1e-12)[:, None] * np.minimum(lengths, 1.0)[:, None]
    quiver = ff.create_quiver(P[:, 0], P[:, 1], V[:, 0], V[:, 1], scale=0.9 * (2 * R / arrows),
                              arrow_scale=0.3, line=dict(color="#444444", width=1.3),
                              name="landing field −V")
    fig.add_traces(quiver.data)
    t = np.linspace(0, 2 * np.pi, 241)
    for i, r in enumerate(layer_radii(pts)):
        fig.add_trace(go.Scatter(x=r * np.cos(t), y=r * np.sin(t), mode="lines",
                                 line=dict(color=PALETTE[5], width=1.5, dash="dot"),
                                 name="layer circles ‖x‖ = ‖xₖ‖", legendgroup="layers",
                                 showlegend=i == 0, hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=np.cos(t), y=np.sin(t), mode="lines", name="St(2, 1): ‖x‖ = 1",
                             line=dict(color="black", width=3)))
    _trajectory_2d(fig, pts, current)
    fig.update_xaxes(title_text="x₁", range=[-R, R], constrain="domain")
    fig.update_yaxes(title_text="x₂", range=[-R, R], scaleanchor="x", scaleratio=1)
    fig.update_layout(**LAYOUT, height=620)
    return fig


def _trajectory_2d(fig: go.Figure, pts: Array, current: int | None) -> None:
    fig.add_trace(go.Scatter(x=pts[:, 0], y=pts[:, 1], mode="lines+markers", name="trajectory",
                             line=dict(color=PALETTE[1], width=3),
                             marker=dict(size=5, color=PALETTE[1])))
    fig.add_trace(go.Scatter(x=pts[:1, 0], y=pts[:1, 1], mode="markers", name="X₀",
                             marker=dict(size=15, color=PALETTE[2], symbol="circle",
                                         line=dict(color="black", width=1.5))))
    fig.add_trace(go.Scatter(x=pts[-1:, 0], y=pts[-1:, 1], mode="markers", name="last iterate",
                             marker=dict(size=17, color=PALETTE[4], symbol="star",
                                         line=dict(color="black", width=1.5))))
    if current is not None:
        fig.add_trace(go.Scatter(x=pts[current:current + 1, 0], y=pts[current:current + 1, 1],
                                 mode="markers", name=f"X{_sub(current)}",
                                 marker=dict(size=16, color=PALETTE[3], symbol="diamond",
                                             line=dict(color="black", width=1.5))))


def _sphere(radius: float, res: int = 40) -> tuple[Array, Array, Array]:
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, res), np.linspace(0, np.pi, res // 2))
    return (radius * np.cos(u) * np.sin(v), radius * np.sin(u) * np.sin(v),
            radius * np.cos(v))


def _wireframe(
    radius: float, meridians: int = 12, parallels: int = 5, res: int = 73, *,
    W: Array | None = None,
) -> go.Scatter3d:
    """The sphere ||x|| = radius as meridians and parallels in one line trace (NaN-separated);
    with ``W`` (``_ellipse_map(B)``) its image, the ellipsoid x^T B x = radius^2 (dark grey).

    Lighter than a translucent surface in WebGL (one trace, no mesh), and the grid reads as a
    globe: depth and orientation show while the frame turns.
    """
    t = np.linspace(0, 2 * np.pi, res)
    gap = np.full((1, 3), np.nan)
    rings = []
    for lon in np.linspace(0, np.pi, meridians // 2, endpoint=False):  # great circles
        rings.append(np.stack([np.cos(lon) * np.sin(t), np.sin(lon) * np.sin(t), np.cos(t)], 1))
    for lat in np.linspace(-np.pi / 2, np.pi / 2, parallels + 2)[1:-1]:
        rings.append(np.stack([np.cos(lat) * np.cos(t), np.cos(lat) * np.sin(t),
                               np.full_like(t, np.sin(lat))], 1))
    pts = radius * np.concatenate([np.vstack([r, gap]) for r in rings])
    if W is None:
        return go.Scatter3d(x=pts[:, 0], y=pts[:, 1], z=pts[:, 2], mode="lines",
                            line=dict(color="#AAAAAA", width=2),
                            name=f"sphere ‖x‖ = {radius:g}", showlegend=False,
                            hoverinfo="skip")
    pts = pts @ np.asarray(W).T
    return go.Scatter3d(x=pts[:, 0], y=pts[:, 1], z=pts[:, 2], mode="lines",
                        line=dict(color="#555555", width=2),
                        name=f"ellipsoid xᵀBx = {radius**2:g}", showlegend=False,
                        hoverinfo="skip")


# close enough to fill the box, and looking a little below the centre so that the cube's lower
# corners and tick labels are not clipped by the legend (checked on the frame and cone views)
CAMERA = dict(eye=dict(x=1.45, y=1.45, z=0.8), center=dict(x=0, y=0, z=-0.12))


def _scene(R: float) -> dict:
    axis = dict(range=[-R, R], nticks=5)
    return dict(xaxis=dict(axis, title_text="x₁"), yaxis=dict(axis, title_text="x₂"),
                zaxis=dict(axis, title_text="x₃"), aspectmode="cube", camera=CAMERA)


def sphere_figure(
    X: Array, cost: Callable[[Array], Array], *, current: int | None = None, layers: int = 4
) -> go.Figure:
    """n = 3, p = 1: the unit sphere St(3, 1) coloured by cost, translucent layer spheres at
    ||x_k|| for a few k, and the trajectory in 3-D (rotatable)."""
    pts = np.asarray(X, dtype=float).reshape(len(X), 3)
    sx, sy, sz = _sphere(1.0, 60)
    colour = cost(np.stack([sx.ravel(), sy.ravel(), sz.ravel()], axis=1)[:, :, None])
    fig = go.Figure()
    fig.add_trace(go.Surface(x=sx, y=sy, z=sz, surfacecolor=colour.reshape(sx.shape),
                             colorscale="Cividis", opacity=0.9, name="St(3, 1) coloured by f",
                             colorbar=dict(title=dict(text="f on ‖x‖ = 1"), len=0.7),
                             showlegend=True, hoverinfo="skip"))
    for i, r in enumerate(layer_radii(pts, layers)):
        if abs(r - 1.0) < 1e-3:
            continue
        lx, ly, lz = _sphere(r, 30)
        fig.add_trace(go.Surface(x=lx, y=ly, z=lz, opacity=0.12, showscale=False,
                                 colorscale=[[0, PALETTE[5]], [1, PALETTE[5]]],
                                 name="layer spheres ‖x‖ = ‖xₖ‖", legendgroup="layers",
                                 showlegend=i == 0, hoverinfo="skip"))
    fig.add_trace(go.Scatter3d(x=pts[:, 0], y=pts[:, 1], z=pts[:, 2], mode="lines+markers",
                               name="trajectory", line=dict(color=PALETTE[1], width=6),
                               marker=dict(size=2.5, color=PALETTE[1])))
    ends = [(0, "X₀", PALETTE[2], "circle"), (len(pts) - 1, "last iterate", PALETTE[4], "diamond")]
    if current is not None:
        ends.append((current, f"X{_sub(current)}", PALETTE[3], "square"))
    for idx, label, colour_, symbol in ends:
        fig.add_trace(go.Scatter3d(x=pts[idx:idx + 1, 0], y=pts[idx:idx + 1, 1],
                                   z=pts[idx:idx + 1, 2], mode="markers", name=label,
                                   marker=dict(size=8, color=colour_, symbol=symbol)))
    R = max(1.3, 1.1 * float(np.max(np.linalg.norm(pts, axis=1))))
    fig.update_layout(**LAYOUT, height=650, scene=_scene(R))
    return fig


def frame_figure(X: Array, *, current: int | None = None) -> go.Figure:
    """n = 3, p = 2: the two columns of X_k as arrows from the origin and the paths of their tips
    around the unit sphere: the frame moving (where beta shows)."""
    frames = np.asarray(X, dtype=float).reshape(len(X), 3, 2)
    at = len(frames) - 1 if current is None else current
    fig = go.Figure()
    fig.add_trace(_wireframe(1.0))
    for j in range(2):
        tips = frames[:, :, j]
        colour = PALETTE[j]
        fig.add_trace(go.Scatter3d(x=tips[:, 0], y=tips[:, 1], z=tips[:, 2], mode="lines",
                                   line=dict(color=colour, width=6),
                                   name=f"path of column {j + 1}"))
        tip = frames[at, :, j]
        fig.add_trace(go.Scatter3d(x=[0, tip[0]], y=[0, tip[1]], z=[0, tip[2]], mode="lines",
                                   line=dict(color=colour, width=10),
                                   name=f"column {j + 1} of X{_sub(at)}"))
        fig.add_trace(go.Cone(x=[tip[0]], y=[tip[1]], z=[tip[2]], u=[0.25 * tip[0]],
                              v=[0.25 * tip[1]], w=[0.25 * tip[2]], anchor="tip",
                              colorscale=[[0, colour], [1, colour]], showscale=False,
                              sizemode="absolute", sizeref=0.25, showlegend=False,
                              hoverinfo="skip"))
        start = frames[0, :, j]
        fig.add_trace(go.Scatter3d(x=[start[0]], y=[start[1]], z=[start[2]], mode="markers",
                                   marker=dict(size=7, color=colour, symbol="circle-open"),
                                   name=f"column {j + 1} of X₀"))
    R = max(1.3, 1.1 * float(np.max(np.linalg.norm(frames, axis=1))))
    fig.update_layout(**LAYOUT, height=650, scene=_scene(R))
    return fig


def singular_values_figure(sigma: Array, *, current: int | None = None) -> go.Figure:
    """p >= 2: the singular values sigma_i(X_k) against k; all tend to 1 on St(n, p).

    ``sigma`` has shape (K, p).
    """
    sigma = np.asarray(sigma, dtype=float)
    k = np.arange(len(sigma))
    fig = go.Figure()
    for i in range(sigma.shape[1]):
        fig.add_trace(go.Scatter(x=k, y=sigma[:, i], mode="lines", name=f"σ{i + 1}",
                                 line=dict(color=PALETTE[i % len(PALETTE)], width=3),
                                 showlegend=sigma.shape[1] <= 8))
    fig.add_hline(y=1.0, line=dict(color="black", width=2, dash="dash"),
                  annotation_text="St(n, p): all σᵢ = 1", annotation_position="top right")
    if current is not None:
        fig.add_vline(x=current, line=dict(color="black", width=3, dash="dash"))
    fig.update_xaxes(title_text="iteration k")
    fig.update_yaxes(title_text="singular values σᵢ(Xₖ)")
    fig.update_layout(**LAYOUT, height=420)
    return fig


def gram_cone_figure(gram: Array, *, current: int | None = None) -> go.Figure:
    """p = 2: the Gram matrix X_k^T X_k as the point (m11, m22, m12) moving through the cone of
    SPD(2) (boundary m11 m22 = m12^2) to the identity (1, 1, 0). ``gram`` has shape (K, 2, 2)."""
    M = np.asarray(gram, dtype=float)
    m11, m22, m12 = M[:, 0, 0], M[:, 1, 1], M[:, 0, 1]
    top = 1.15 * max(2.0, float(np.max(m11)), float(np.max(m22)))
    a, b = np.meshgrid(np.linspace(0, top, 40), np.linspace(0, top, 40))
    c = np.sqrt(a * b)
    fig = go.Figure()
    for sign, show in ((1, True), (-1, False)):
        fig.add_trace(go.Surface(x=a, y=b, z=sign * c, opacity=0.18, showscale=False,
                                 colorscale=[[0, PALETTE[5]], [1, PALETTE[5]]],
                                 name="boundary of SPD(2): m₁₁m₂₂ = m₁₂²", showlegend=show,
                                 legendgroup="cone", hoverinfo="skip"))
    fig.add_trace(go.Scatter3d(x=m11, y=m22, z=m12, mode="lines+markers", name="XₖᵀXₖ",
                               line=dict(color=PALETTE[1], width=6),
                               marker=dict(size=2.5, color=PALETTE[1])))
    fig.add_trace(go.Scatter3d(x=[1], y=[1], z=[0], mode="markers", name="I (St(n, 2))",
                               marker=dict(size=9, color="black", symbol="diamond")))
    fig.add_trace(go.Scatter3d(x=m11[:1], y=m22[:1], z=m12[:1], mode="markers",
                               name="X₀ᵀX₀", marker=dict(size=8, color=PALETTE[2])))
    if current is not None:
        fig.add_trace(go.Scatter3d(x=m11[current:current + 1], y=m22[current:current + 1],
                                   z=m12[current:current + 1], mode="markers",
                                   name=f"X{_sub(current)}ᵀX{_sub(current)}",
                                   marker=dict(size=8, color=PALETTE[3], symbol="square")))
    scene = dict(xaxis=dict(title_text="m₁₁", range=[0, top], nticks=5),
                 yaxis=dict(title_text="m₂₂", range=[0, top], nticks=5),
                 zaxis=dict(title_text="m₁₂", range=[-top, top], nticks=5), aspectmode="cube",
                 camera=CAMERA)
    fig.update_layout(**LAYOUT, height=620, scene=scene)
    return fig


# ----------------------------------------------------------------------------- comparisons


def _legend_below(fig: go.Figure, height: int) -> go.Figure:
    """``fig`` (a row of log panels) ``height`` pixels tall, its legend the same distance below
    the panels whatever the height (the default's -0.2 fits 440 pixels), decade ticks."""
    fig.update_layout(**LAYOUT, height=height)
    fig.update_layout(legend=dict(y=-0.2 * 440 / height))
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
    iteration k or the wall time; one colour per run, one legend; ``height`` in pixels.

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
            if run.get("status") == "diverged":  # a run cut short early: mark where it ends
                fig.add_trace(go.Scatter(
                    x=x[-1:], y=y[-1:], mode="markers", name=f"{run['label']}: diverged",
                    legendgroup=run["label"], showlegend=False,
                    marker=dict(symbol="x", size=16, color=colour, line=dict(width=1)),
                    hovertemplate=f"diverged after k = {len(x) - 1}<extra></extra>"), 1, col)
    for col in (1, 2, 3):
        if col > 1 or f_star is not None:
            fig.update_yaxes(**LOG_AXIS, row=1, col=col)
    fig.update_xaxes(title_text="iteration k" if against == "iteration" else "wall time (s)")
    return _legend_below(fig, height)


def stochastic_figure(
    runs: list[dict],
    *,
    f_star: float,
    epochs: int | None = None,
    height: int = 440,
) -> go.Figure:
    """Stochastic runs over epochs (passes over the data): the relative gap |f - f*| / |f*| of
    the full sum, ||X^T X - I||_F and the stationarity ||grad_1 f|| of the full gradient, on log
    axes, one point per epoch (lines and markers, so that SGD's noise shows).

    Each run is a dict with "label", "epoch", "cost", "infeasibility", "grad_norm", and
    optionally "colour" and "status" (a diverged run's last point gets a cross). ``epochs``
    fixes the x range, so that curves arriving live grow into a fixed frame.
    """
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.07,
                        subplot_titles=("|f − f*| / |f*| (full sum)", "‖XᵀX − I‖<sub>F</sub>",
                                        "stationarity ‖grad₁ f‖ (full sum)"))
    scale = max(abs(f_star), 1e-300)
    for i, run in enumerate(runs):
        colour = run.get("colour", PALETTE[i % len(PALETTE)])
        x = np.asarray(run["epoch"])
        series = (_positive(np.abs(np.asarray(run["cost"], dtype=float) - f_star) / scale),
                  _positive(run["infeasibility"]), _positive(run["grad_norm"]))
        for col, y in enumerate(series, start=1):
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers", name=run["label"],
                                     legendgroup=run["label"], showlegend=col == 1,
                                     line=dict(color=colour, width=2),
                                     marker=dict(color=colour, size=4)), 1, col)
            if run.get("status") == "diverged" and len(x):
                fig.add_trace(go.Scatter(
                    x=x[-1:], y=y[-1:], mode="markers", name=f"{run['label']}: diverged",
                    legendgroup=run["label"], showlegend=False,
                    marker=dict(symbol="x", size=16, color=colour)), 1, col)
    fig.update_yaxes(**LOG_AXIS)
    fig.update_xaxes(title_text="epoch (passes over the data)",
                     range=None if epochs is None else [0, epochs])
    return _legend_below(fig, height)


def _ellipse_map(B: Array) -> Array:
    """W = L^{-T} for B = L L^T (Cholesky): W u runs over {x : x^T B x = 1} as u runs over the
    unit circle or sphere (W^T B W = I). For drawing (n <= 3), never in an iteration."""
    return np.linalg.inv(np.linalg.cholesky(np.asarray(B, dtype=float))).T


def trajectories_figure(
    runs: list[dict],
    cost: Callable[[Array], Array],
    n: int,
    p: int,
    height: int | None = None,
    *,
    B: Array | None = None,
) -> go.Figure:
    """Overlaid trajectories of several runs from the same X_0 (one colour each): in the plane
    with the unit circle and the cost's contours (n = 2, p = 1); on the sphere coloured by cost
    (n = 3, p = 1); the tips of both columns on the unit sphere (n = 3, p = 2). ``height`` in
    pixels (620 for the plane, 650 in 3-D when None).

    Each run is a dict with "label" and "X", the iterates of shape (K, n, p), and optionally
    "B" (True: the run keeps to X^T B X = I). With ``B`` the runs flagged so are drawn with
    the manifold they keep to, {x : x^T B x = 1} (each column of X on X^T B X = I lies on it):
    the ellipse, the ellipsoid coloured by cost, or its wireframe (p = 2); the unit circle or
    sphere is drawn only for the runs on X^T X = I (as a wireframe beside a coloured ellipsoid).
    """
    on_B = B is not None and any(r.get("B") for r in runs)
    on_St = not on_B or not all(r.get("B") for r in runs)
    W = _ellipse_map(B) if on_B else None
    if (n, p) == (2, 1):
        pts = np.concatenate([np.asarray(r["X"]).reshape(-1, 2) for r in runs])
        axis = float(np.max(np.linalg.norm(W, axis=0))) if on_B else 1.0
        R = max(1.6, 1.15 * float(np.max(np.linalg.norm(pts, axis=1))), 1.15 * axis)
        g = np.linspace(-R, R, 100)
        gx, gy = np.meshgrid(g, g)
        Z = cost(np.stack([gx.ravel(), gy.ravel()], axis=1)[:, :, None]).reshape(100, 100)
        fig = go.Figure(go.Contour(x=g, y=g, z=Z, colorscale="Greys", ncontours=25, opacity=0.5,
                                   showscale=False, contours=dict(showlines=False),
                                   hoverinfo="skip", name="cost"))
        t = np.linspace(0, 2 * np.pi, 241)
        if on_St:
            fig.add_trace(go.Scatter(x=np.cos(t), y=np.sin(t), mode="lines", name="‖x‖ = 1",
                                     line=dict(color="black", width=3)))
        if on_B:
            e = W @ np.stack([np.cos(t), np.sin(t)])
            fig.add_trace(go.Scatter(x=e[0], y=e[1], mode="lines", name="xᵀBx = 1",
                                     line=dict(color="black", width=3,
                                               dash="dash" if on_St else "solid")))
        for i, run in enumerate(runs):
            X = np.asarray(run["X"]).reshape(-1, 2)
            fig.add_trace(go.Scatter(x=X[:, 0], y=X[:, 1], mode="lines+markers",
                                     name=run["label"], marker=dict(size=4),
                                     line=dict(color=PALETTE[i % len(PALETTE)], width=3)))
        fig.add_trace(go.Scatter(x=pts[:1, 0], y=pts[:1, 1], mode="markers", name="X₀",
                                 marker=dict(size=14, color="white",
                                             line=dict(color="black", width=2))))
        fig.update_xaxes(title_text="x₁", range=[-R, R], constrain="domain")
        fig.update_yaxes(title_text="x₂", range=[-R, R], scaleanchor="x", scaleratio=1)
        fig.update_layout(**LAYOUT, height=height or 620)
        return fig
    if n != 3 or p not in (1, 2):
        raise ValueError("trajectories are drawn for (n, p) = (2, 1), (3, 1) and (3, 2)")
    fig = go.Figure()
    R = 1.3
    if p == 1:  # the manifold shaded by the cost: the unit sphere, or the ellipsoid
        sx, sy, sz = _sphere(1.0, 50)
        shaded = "unit sphere"
        if on_B and not on_St:
            sx, sy, sz = np.einsum("ij,j...->i...", W, np.stack([sx, sy, sz]))
            shaded = "ellipsoid xᵀBx = 1"
        colour = cost(np.stack([sx.ravel(), sy.ravel(), sz.ravel()], axis=1)[:, :, None])
        fig.add_trace(go.Surface(x=sx, y=sy, z=sz, opacity=0.8, colorscale="Greys",
                                 surfacecolor=colour.reshape(sx.shape), showscale=False,
                                 hoverinfo="skip", name=shaded))
        if on_B and on_St:
            fig.add_trace(_wireframe(1.0, W=W))
    else:  # the frame's columns: wireframes, as in the explorer's frame view
        if on_St:
            fig.add_trace(_wireframe(1.0))
        if on_B:
            fig.add_trace(_wireframe(1.0, W=W))
    if on_B:
        R = max(R, 1.1 * float(np.max(np.linalg.norm(W, axis=0))))
    for i, run in enumerate(runs):
        X = np.asarray(run["X"]).reshape(-1, 3, p)
        R = max(R, 1.1 * float(np.max(np.linalg.norm(X, axis=1))))
        for j in range(p):
            fig.add_trace(go.Scatter3d(
                x=X[:, 0, j], y=X[:, 1, j], z=X[:, 2, j], mode="lines",
                line=dict(color=PALETTE[i % len(PALETTE)], width=7, dash="solid" if j == 0
                          else "dash"),
                name=run["label"] + ("" if p == 1 else f" (column {j + 1})"),
                legendgroup=run["label"]))
    fig.update_layout(**LAYOUT, height=height or 650, scene=_scene(R))
    return fig


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


def _log_colorbar(z: Array, title: str) -> dict:
    """A colour bar for log10 values, ticked at the integer powers of ten as 10ⁿ."""
    finite = z[np.isfinite(z)]
    lo, hi = (np.floor(finite.min()), np.ceil(finite.max())) if finite.size else (0.0, 0.0)
    ticks = np.arange(hi, lo - 1, -max(1, int(np.ceil((hi - lo + 1) / 8))))[::-1]  # top ticked
    return dict(title=dict(text=title), tickvals=ticks.tolist(),
                ticktext=["10" + str(int(t)).translate(_SUPERSCRIPTS) if t else "1" for t in ticks])


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
    diverged = np.asarray(status) == "diverged"
    z = np.log10(np.maximum(np.abs(values), LOG_FLOOR)) if log_colour else values.copy()
    z[diverged] = np.nan
    colorbar = _log_colorbar(z, colour_title) if log_colour else dict(title=dict(text=colour_title))
    xe, ye = _log_edges(eta), _log_edges(param)
    fig = go.Figure(go.Heatmap(x=xe, y=ye, z=z, colorscale=colorscale, colorbar=colorbar,
                               name=title, hoverinfo="skip"))
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

    fig.update_xaxes(type="log", title_text="step η", exponentformat="power", showgrid=False,
                     **ticks(xe))
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
              ("‖grad_β f‖ (total)", total, PALETTE[6], "dot", "grad_β f = 0")]
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
