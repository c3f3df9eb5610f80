"""What the in-browser player receives: a run's header (sizes, f*, speed, the chosen geometry
view's static data) and chunks of its history. Pure (no streamlit).

The player (``explorer/player/player.js``) draws every frame itself; the server sends the data
once, in chunks for long runs: ``chunk(trace, start)`` holds iterations start, start + 1, … of
the trace so far. JSON has no NaN: non-finite numbers travel as null.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import plotly.colors

from landing_core import methods
from landing_core.metric_view import METRIC_ROW, SAFE_ROW, slice_description
from landing_core.normal_flow import flow_time, gram_flow, singular_value_flow
from landing_core.problems import Problem
from landing_core.run import Status

from .family import SYMBOLS, Family, selected
from .runner import Trace
from .state import SPEEDS, AppConfig
from .style import SUPERSCRIPTS
from .views import B_VIEWS, VIEWS, available

Array = np.ndarray

# the cost's colours (plotly's Cividis: readable under colour-vision deficiencies)
COLORSCALE = [[i / (len(plotly.colors.sequential.Cividis) - 1), c]
              for i, c in enumerate(plotly.colors.sequential.Cividis)]
PLANE_GRID = 100  # cost samples per side of the plane view
PLANE_ARROWS = 15  # field arrows per side
SPHERE_GRID = (24, 48)  # latitude x longitude cells of the sphere view
DECIMALS = 6  # geometry coordinates: a millionth of the unit sphere is below a pixel


def json_floats(values) -> list[float | None]:
    """Numbers for JSON, flattened: exact, non-finite values as None (JSON has no NaN)."""
    return [float(v) if math.isfinite(v) else None for v in np.asarray(values, dtype=float).ravel()]


def rounded_rows(values: list[Array], start: int, width: int) -> list[list[float]]:
    """``values[start:]`` as rows of ``width`` numbers (an iterate X_k row-major, its singular
    values, …) rounded to DECIMALS: the coordinates the views draw."""
    if not values[start:]:
        return []
    return np.round(np.asarray(values[start:], dtype=float).reshape(-1, width), DECIMALS).tolist()


SIGNIFICANT = 7  # digits of the Metric and Safe step rows: gradients and ||h||^2 shrink to 1e-20


def _significant(values: list[Array], start: int, width: int) -> list[list[float | None]]:
    """Rows to SIGNIFICANT digits (fixed decimals would round a converging run's gradient and
    infeasibility to 0, and the view draws their directions); non-finite numbers as None."""
    return [[float(f"{v:.{SIGNIFICANT}g}") if math.isfinite(v) else None for v in row]
            for row in np.asarray(values[start:], dtype=float).reshape(-1, width).tolist()]


def chunk(trace: Trace, start: int = 0) -> dict:
    """Iterations start … trace.k: the scalar histories, and per iterate the rows the views
    draw (X_k row-major for n <= 3, the singular values, (m11, m22, m12) of the Gram matrix for
    p = 2, the Metric view's ``metric_view.metric_row`` and the Safe step view's ``safe_row``),
    with the same rows of the exact normal flow at the iterate's time (``_flow``), and for
    p = n each iterate's f* (its component's, ``Trace.f_star``)."""
    if not 0 <= start <= trace.k + 1:
        raise ValueError(f"start = {start} outside 0 … {trace.k + 1}")
    n, p = trace.n, trace.p
    gram = [np.array([M[0, 0], M[1, 1], M[0, 1]]) for M in trace.gram[start:]]
    show_sigma = "sigma" in available(n, p)
    flow_sigma, flow_gram = _flow(trace, start, show_sigma)
    return {
        "start": start,
        "cost": json_floats(trace.cost[start:]),
        "h": json_floats(trace.infeasibility[start:]),
        "grad": json_floats(trace.grad_norm[start:]),
        "step": json_floats(trace.step[start:]),
        "nstep": json_floats(trace.normal_step[start:]),
        "x": rounded_rows(trace.X, start, n * p) if trace.X else None,
        "sigma": rounded_rows(trace.sigma, start, p) if "sigma" in available(n, p) else None,
        "gram": rounded_rows(gram, 0, 3) if p == 2 else None,
        "flow_sigma": flow_sigma,
        "flow_gram": flow_gram,
        "fstar": json_floats(trace.f_star[start:]) if trace.optima else None,
        "metric": (_significant(trace.metric, start, METRIC_ROW) if "metric" in trace.extras
                   else None),
        "safe": _significant(trace.safe, start, SAFE_ROW) if "safe" in trace.extras else None,
    }


def _ellipsoid(problem: Problem) -> dict:
    """For a problem on XᵀBX = I: B and W = L^{-T} (B = L L^T), which maps the unit circle or
    sphere onto {x : xᵀBx = 1} (the player draws the layers xᵀBx = c as W u, |u| = sqrt c),
    and L, whose rows map a unit sphere point u to the ellipsoid's normal B W u = L u; the
    longest semi-axis 1/sqrt(lambda_min(B)). Nothing for XᵀX = I."""
    if problem.B is None:
        return {}
    B = np.asarray(problem.B, dtype=float)
    L = np.linalg.cholesky(B)
    W = np.linalg.inv(L).T  # n <= 3: a 3 x 3 inverse for drawing, not in any iteration
    return {"B": np.round(B, 12).tolist(), "W": np.round(W, 12).tolist(),
            "L": np.round(L, 12).tolist(),
            "axis": float(1.0 / np.sqrt(np.linalg.eigvalsh(B)[0]))}


def _flow(trace: Trace, start: int, show_sigma: bool) -> tuple[list | None, list | None]:
    """The exact normal flow at the iterates' times (``landing_core.normal_flow``), from X_0:
    the singular values where the sigma view is drawn, (m11, m22, m12) of the Gram matrix for
    p = 2; None where not drawn. The time of iterate k is sum_{j<k} eta_j omega_j / omega.
    None on XᵀBX = I: there the flow of XᵀBX involves (BX)ᵀBX and has no closed form."""
    if not (show_sigma or trace.p == 2) or not trace.cost or trace.B is not None:
        return None, None
    t = flow_time(trace.normal_step, trace.omega)[start:]
    sigma = (rounded_rows(list(singular_value_flow(trace.sigma[0], t, trace.omega)), 0, trace.p)
             if show_sigma else None)
    gram = None
    if trace.p == 2:
        M = gram_flow(trace.gram[0], t, trace.omega)
        gram = rounded_rows(list(np.stack([M[:, 0, 0], M[:, 1, 1], M[:, 0, 1]], axis=1)), 0, 3)
    return sigma, gram


VIEW_REACH = 3.0
"""The farthest |x| the plane, sphere and frame views take in to frame the iterates (or the
margin times the ellipsoid xᵀBx = 1's longest axis, if longer): a diverging run's iterates
reach 20 and more, and a view scaled to them drew the unit circle or sphere as a dot; they
leave the view instead (the player clips them to the view's plot)."""


def _radius(points: np.ndarray, margin: float, least: float, axis: float,
            square: bool = False) -> tuple[float, str]:
    """A view's radius R: ``margin`` times the farthest iterate's |x| or the ellipsoid's longest
    ``axis`` (0 without B), at least ``least``, at most VIEW_REACH or ``margin`` times that
    axis; and the caption's words where an iterate lies outside the view: beyond |x| = R, or
    for a ``square`` view (the plane's [-R, R]²) beyond a side. ``points``: the iterates,
    their |x| taken along axis 1 (rows of a (K, n) array; the columns of a (K, n, p) stack)."""
    far = float(np.max(np.linalg.norm(points, axis=1)))
    R = min(max(least, margin * far, margin * axis), max(VIEW_REACH, least, margin * axis))
    out = float(np.max(np.abs(points))) if square else far
    if out <= R:  # (no NaN here: the divergence test ends a run before its trace keeps one)
        return R, ""
    shown = f"{far:.3g}"
    if "e" in shown:  # 3.5×10³ (999.7 reads 1.0×10³, not 1e+03)
        mantissa, exponent = f"{far:.1e}".split("e")
        shown = f"{mantissa}×10{str(int(exponent)).translate(SUPERSCRIPTS)}"
    return R, (f" The view reaches |x| = {R:.3g}: the iterates go out to |x| = {shown}, "
               "beyond it.")


def _plane(trace: Trace, problem: Problem, config: AppConfig) -> dict:
    """The plane (n = 2, p = 1): the cost on a grid around the iterates and the landing field
    -V on a coarser one, each arrow scaled to at most one grid spacing. The field is the
    configured method's for the problem (on XᵀBX = I when the problem carries B)."""
    pts = np.asarray(trace.X, dtype=float).reshape(-1, 2)
    shape = _ellipsoid(problem)
    R, cut = _radius(pts, 1.15, 1.6, shape.get("axis", 0.0), square=True)
    g = np.linspace(-R, R, PLANE_GRID)
    gx, gy = np.meshgrid(g, g)  # row i: x2 = g[i]
    Z = problem.cost(np.stack([gx.ravel(), gy.ravel()], axis=1)[:, :, None])
    return {"R": R, "m": PLANE_GRID, "z": json_floats(Z), "zlo": float(np.min(Z)),
            "zhi": float(np.max(Z)), "arrows": plane_arrows(problem, config, R),
            "cut": cut} | shape


def plane_arrows(problem: Problem, config: AppConfig, R: float) -> list[list[float]]:
    """The plane view's landing field -V of the configured method on a grid of the square
    [-R, R]^2, each arrow (x1, x2, v1, v2) scaled to at most one grid spacing."""
    a = np.linspace(-R, R, PLANE_ARROWS)
    ax, ay = (m.ravel() for m in np.meshgrid(a, a))
    keep = np.hypot(ax, ay) > 0.2  # X = 0 is rank-deficient: no field there
    P = np.stack([ax[keep], ay[keep]], axis=1)[:, :, None]
    method = methods.build("landing", beta=config.beta, omega=config.omega,
                           tangent=config.tangent, problem=problem)
    V = -method.field(P, problem.egrad(P), method.init(P))[0].V[:, :, 0]
    length = np.linalg.norm(V, axis=1, keepdims=True)
    V = V / np.maximum(length, 1e-12) * np.minimum(length, 1.0) * (0.9 * 2 * R / PLANE_ARROWS)
    return np.round(np.hstack([P[:, :, 0], V]), DECIMALS).tolist()


def _sphere(trace: Trace, problem: Problem) -> dict:
    """The sphere (n = 3, p = 1): the cost at the centres of a latitude-longitude grid of the
    unit sphere, or of the ellipsoid xᵀBx = 1 (its image under W) for a problem carrying B."""
    nlat, nlon = SPHERE_GRID
    lat = -np.pi / 2 + np.pi * (np.arange(nlat) + 0.5) / nlat
    lon = 2 * np.pi * (np.arange(nlon) + 0.5) / nlon
    la, lo = np.meshgrid(lat, lon, indexing="ij")
    pts = np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], axis=-1)
    shape = _ellipsoid(problem)
    if shape:
        pts = pts @ np.asarray(shape["W"]).T
    Z = problem.cost(pts.reshape(-1, 3)[:, :, None])
    R, cut = _radius(np.asarray(trace.X, dtype=float).reshape(-1, 3), 1.1, 1.3,
                     shape.get("axis", 0.0))
    return {"R": R, "nlat": nlat, "nlon": nlon, "z": json_floats(Z), "zlo": float(np.min(Z)),
            "zhi": float(np.max(Z)), "cut": cut} | shape


def view_data(name: str, trace: Trace, problem: Problem, config: AppConfig) -> dict:
    """The chosen geometry view: its kind, title and caption and what it draws that does not
    move (computed from the iterates so far)."""
    label, title, caption = VIEWS[name] if problem.B is None else B_VIEWS.get(name, VIEWS[name])
    data: dict = {"kind": name, "label": label, "title": title, "caption": caption}
    if name == "plane":  # with the safe region ‖h‖ <= eps, a band around the circle
        data |= _plane(trace, problem, config) | {"eps": trace.eps}
    elif name == "sphere":
        data |= _sphere(trace, problem)
    elif name == "frame":  # on XᵀBX = I each column lies on the ellipsoid xᵀBx = 1
        shape = _ellipsoid(problem)
        # the columns' tips (trace.X holds each X_k, n x p)
        R, cut = _radius(np.asarray(trace.X, dtype=float), 1.1, 1.3, shape.get("axis", 0.0))
        data |= {"R": R, "cut": cut} | shape
    elif name == "cone":
        M = np.asarray(trace.gram, dtype=float)
        # the cone is drawn up to the ring tr M = top, beyond every point of the path (a PSD
        # M with tr M <= top is a convex combination of the apex and the ring)
        top = 1.1 * max(2.0, float(np.max(M[:, 0, 0] + M[:, 1, 1])))
        # the view turns about the ring's centre (top/2, top/2, 0): the cone lies within
        # top/√2 of it, its axes within 0.77 top (views.js); the path's farthest point is
        # taken too, so that no rounding of the above can put it out of the view
        path = np.stack([M[:, 0, 0] - top / 2, M[:, 1, 1] - top / 2, M[:, 0, 1]], axis=1)
        data["top"] = top
        data["R"] = max(0.8 * top, 1.05 * float(np.max(np.linalg.norm(path, axis=1))))
    elif name == "metric":
        labels, which = slice_description(trace.n, trace.p)
        data |= {"beta": config.beta, "tangent": config.tangent, "labels": list(labels),
                 "which": which, "caption": f"{which} {caption}"}
    elif name == "safe":
        data |= {"eps": trace.eps, "omega": trace.omega, "rule": config.step}
    if cut := data.pop("cut", ""):
        data["caption"] += cut
    return data


def header(
    views: list[str], view: str, trace: Trace, problem: Problem, config: AppConfig,
    f_star: float | None, *, lecture: bool = False,
) -> dict:
    """What the player needs besides the history: sizes, f*, the iteration limit, the speed in
    iterations per second (None: instant), the cost's colours, lecture mode, and every view of
    this size with its static data (the player switches among them itself), ``view`` shown
    first. The palette is the player's own (``explorer.style``)."""
    if view not in views:
        raise ValueError(f"view {view!r} is not among {views}")
    rate = SPEEDS[config.speed]
    return {
        "n": problem.n, "p": problem.p,
        "f_star": None if f_star is None else float(f_star),
        "max_iter": config.max_iter,
        "rate": rate if math.isfinite(rate) else None,
        "colorscale": COLORSCALE,
        "views": [view_data(name, trace, problem, config) for name in views],
        "view": view,
        "lecture": lecture,
        "B": problem.B is not None,
    }


# ----------------------------------------------------------------------------- families

FAMILY_CHUNK = 60_000
"""Numbers per message of a family's members (about 0.6 MB of JSON): the default family at
St(3, 2) (33 members of up to 500 iterates) arrives in a few messages, the member shown
first."""


def family_order(count: int, index: int) -> list[int]:
    """The order the members travel in: the one shown (``index``) first, then its neighbours
    outwards, so that a drag near it finds its members already there."""
    return sorted(range(count), key=lambda i: (abs(i - index), i))


def _numbers(member: dict) -> int:
    return sum(len(v) * (len(v[0]) if v and isinstance(v[0], list) else 1)
               for v in member.values() if isinstance(v, list))


def family_chunk(fam: Family, have: int, index: int) -> dict:
    """The family's members from position ``have`` of ``family_order``, as many as fit in
    FAMILY_CHUNK numbers (at least one): each its whole history (``chunk``), its status and
    message, its index ``i`` in the family and its value."""
    order = family_order(len(fam.members), index)
    members, size = [], 0
    for i in order[have:]:
        t = fam.members[i]
        if t is None:  # not computed yet (family.first): the next request brings it
            break
        m = chunk(t, 0) | {"i": i, "value": float(fam.values[i]), "done": t.finished,
                           "status": t.status, "message": t.message}
        size += _numbers(m)
        if members and size > FAMILY_CHUNK:
            break
        members.append(m)
    return {"start": have, "members": members}


def family_header(views: list[str], view: str, fam: Family, problem: Problem,
                  config: AppConfig, f_star: float | None, *, lecture: bool = False) -> dict:
    """``header`` for a family: the views' static data drawn around every member's iterates
    but the diverged ones' (one frame for the whole family, so that a drag moves the path, not
    the axes), and the
    family itself: its parameter, symbol, values, the member the sidebar's value picks, for
    an ω family on the plane each member's landing field, and for a β family in the Metric
    view each member's β."""
    merged = Trace(problem.n, problem.p, B=problem.B)
    done = [t for t in fam.members if t is not None]
    calm = [t for t in done if t.status != Status.DIVERGED] or done
    for t in calm:  # a diverged member's iterates would shrink every other path to a dot
        merged.X += t.X
        merged.gram += t.gram
    head = header(views, view, merged, problem, config, f_star, lecture=lecture)
    index = selected(config, fam.values)
    head["family"] = {"param": fam.param, "symbol": SYMBOLS[fam.param],
                      "values": [float(v) for v in fam.values], "index": index,
                      "count": len(fam.members)}
    plane = next((v for v in head["views"] if v["kind"] == "plane"), None)
    if plane is not None and fam.param == "omega":  # the field -V depends on omega
        plane["arrows_by_member"] = [
            plane_arrows(problem, replace(config, omega=float(w)), plane["R"])
            for w in fam.values]  # (cheap: 200 points per member)
    metric = next((v for v in head["views"] if v["kind"] == "metric"), None)
    if metric is not None and fam.param == "beta":  # the ball g^β of each member's β
        metric["beta_by_member"] = [float(b) for b in fam.values]
    return head
