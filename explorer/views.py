"""Which figures the explorer shows for a run of size (n, p): pure (no streamlit)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from landing_core import figures
from landing_core.problems import Problem

from .runner import Trace
from .state import AppConfig


@dataclass
class View:
    title: str
    figure: go.Figure
    caption: str


def convergence(trace: Trace, f_star: float | None, current: int | None = None) -> go.Figure:
    return figures.convergence_figure(trace.cost, trace.infeasibility, trace.grad_norm,
                                      trace.step, f_star=f_star, current=current,
                                      normal_step=trace.normal_step)


VIEWS = {  # name -> (short label, title)
    "plane": ("Plane", "The plane: St(2, 1) is the unit circle"),
    "sphere": ("Sphere", "The sphere: St(3, 1) coloured by the cost"),
    "frame": ("Frame", "The frame: the two columns of Xₖ on the sphere"),
    "sigma": ("Singular values", "Singular values of Xₖ"),
    "cone": ("Gram matrix", "The Gram matrix XₖᵀXₖ in the cone SPD(2)"),
}


def available(n: int, p: int) -> list[str]:
    """The geometry views for this (n, p): the plane (2, 1), the sphere (3, 1), the moving
    frame (3, 2), singular values (any p >= 2, and p = 1 beyond n = 3), the SPD(2) cone (p = 2)."""
    names = []
    if (n, p) == (2, 1):
        names.append("plane")
    if (n, p) == (3, 1):
        names.append("sphere")
    if (n, p) == (3, 2):
        names.append("frame")
    if p >= 2 or n > 3:
        names.append("sigma")
    if p == 2:
        names.append("cone")
    return names


def build(
    name: str, trace: Trace, problem: Problem, config: AppConfig, current: int | None = None
) -> View:
    """One geometry view of the run, up to iterate ``current`` (the whole run when None)."""
    upto = len(trace.cost) if current is None else current + 1
    X = np.array(trace.X[:upto]) if trace.X else None
    title = VIEWS[name][1]
    if name == "plane":
        return View(title, figures.plane_figure(
            X, problem.cost, problem.egrad, beta=config.beta, omega=config.omega,
            tangent=config.tangent, current=current),
            "Filled contours: f. Black circle: the manifold ‖x‖ = 1. Dotted circles: the layer "
            "manifolds ‖x‖ = ‖xₖ‖ the iterates pass through. Arrows: the landing field −V.")
    if name == "sphere":
        return View(title, figures.sphere_figure(X, problem.cost, current=current),
                    "Translucent spheres: the layers ‖x‖ = ‖xₖ‖. Drag to rotate.")
    if name == "frame":
        return View(title, figures.frame_figure(X, current=current),
                    "Arrows: the columns of Xₖ; lines: the paths of their tips. β weighs the "
                    "rotation of the frame within its span against its tilt. Drag to rotate.")
    if name == "sigma":
        return View(title, figures.singular_values_figure(np.array(trace.sigma[:upto]),
                                                          current=current),
                    "On St(n, p) every singular value is 1: the normal term pulls them there.")
    if name == "cone":
        return View(title, figures.gram_cone_figure(np.array(trace.gram[:upto]),
                                                    current=current),
                    "Each point is (m₁₁, m₂₂, m₁₂); the flow ends at I = (1, 1, 0) whatever the "
                    "cost.")
    raise ValueError(f"unknown view {name!r}; choose one of {list(VIEWS)}")


def geometry_views(
    trace: Trace, problem: Problem, config: AppConfig, current: int | None = None
) -> list[View]:
    """Every geometry view available for this (n, p)."""
    return [build(name, trace, problem, config, current)
            for name in available(problem.n, problem.p)]
