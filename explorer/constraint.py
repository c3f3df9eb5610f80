"""The sidebar's constraint: XᵀX = I, or XᵀBX = I with a preset or an uploaded B (pure).

A problem on ``GeneralizedStiefel(B)`` makes the library's landing keep to XᵀBX = I
(``landing_core.constraints``); this module only chooses B and attaches it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from landing_core.constraints import STIEFEL, GeneralizedStiefel
from landing_core.generalized import check_spd
from landing_core.problems import GeneralizedEigen, Problem, generalized_eigen, qf

from .state import AppConfig

Array = np.ndarray

PRESET_CONDITION = 25.0
"""The preset B's condition number: eigenvalues log-spaced in [1/5, 5], so the layers of the
plane view are ellipses five times as long as wide."""


def preset_B(n: int) -> Array:
    """A fixed symmetric positive definite n x n matrix, Q diag(logspace(-log 5, log 5)) Q^T
    with Q a fixed random rotation (the same for every seed: the constraint is part of the
    lesson, the seed draws the cost and X0). Symmetrized as the library's check makes it
    (``check_spd``): the product is symmetric only up to rounding, and X_0 and the player's
    Gram matrices must use the B the iteration keeps to."""
    Q = qf(np.random.default_rng(2024).standard_normal((n, n)))
    root = np.sqrt(PRESET_CONDITION)
    return check_spd((Q * np.logspace(-np.log10(root), np.log10(root), n)) @ Q.T, n)


def check_uploaded_B(B: Array, n: int) -> Array:
    """An uploaded B checked for this n (square n x n, symmetric, positive definite), or a
    ValueError in words for the sidebar."""
    return check_spd(B, n)


def constraint_matrix(config: AppConfig, uploaded: Array | None) -> Array | None:
    """B for the configuration: None for XᵀX = I, the preset, or the uploaded B (ValueError
    when none is uploaded or it does not fit)."""
    if config.constraint == "identity":
        return None
    if config.constraint == "preset":
        return preset_B(config.n)
    if uploaded is None:
        raise ValueError("upload a symmetric positive definite B (n × n) in the sidebar")
    return check_uploaded_B(uploaded, config.n)


def pencil(A: Array, n: int, p: int, B: Array | None, seed: int = 0) -> GeneralizedEigen:
    """min tr(XᵀAX) on XᵀBX = I, its f* from scipy.linalg.eigh(A, B) (A None: the seed's);
    with B None, on XᵀX = I (Brockett's problem with N = I: f* from eigh(A)), where the run
    takes the plain landing."""
    problem = generalized_eigen(n, p, seed, A=A, B=np.eye(n) if B is None else B)
    if B is not None:
        return problem
    return replace(problem, constraint=STIEFEL, description="tr(XᵀAX) on XᵀX = I: the p smallest "
                                                "eigenvectors of A (Brockett with N = I)")


def with_constraint(problem: Problem, B: Array | None) -> Problem:
    """The problem on XᵀBX = I: the eigenproblem's pencil takes B (f* known); for any other
    cost, its optimum over St(n, p) no longer applies (f* unknown)."""
    if isinstance(problem, GeneralizedEigen):
        return pencil(problem.A, problem.n, problem.p, B)
    if B is None:
        return problem
    return replace(problem, constraint=GeneralizedStiefel(B), f_star=None, f_star_by_det={},
                   description=f"{problem.description} on XᵀBX = I")


def mixed(on_B: Iterable[bool]) -> bool:
    """Whether runs on these constraints (True: XᵀBX = I) differ in it."""
    return len({bool(b) for b in on_B}) > 1


def infeasibility_name(on_B: Iterable[bool]) -> str:
    """The infeasibility of runs on these constraints (True: XᵀBX = I), as the app names it:
    ‖XᵀX − I‖, ‖XᵀBX − I‖, or both when the runs differ."""
    kinds = {bool(b) for b in on_B}
    if kinds == {True}:
        return "‖XᵀBX − I‖"
    return "‖XᵀX − I‖ or ‖XᵀBX − I‖" if True in kinds else "‖XᵀX − I‖"
