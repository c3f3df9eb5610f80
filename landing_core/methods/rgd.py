"""Riemannian gradient descent on St(n, p), the feasible baseline: the Riemannian gradient in
the beta-metric of St(n, p) (eq. (betametric_stiefel); beta = 1, the embedded metric, by
default), then a retraction (QR, polar or Cayley; Absil, Mahony & Sepulchre 2008).
Every function works on one X (n, p) or a stack (..., n, p)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..geometry import (
    frobenius_norm,
    h,
    nearest_stiefel,
    per_run,
    qf,
    riemannian_gradient_stiefel,
    skew,
)
from .base import Field, Method, State
from .params import positive
from .registry import register

Array = np.ndarray

__all__ = ["RETRACTIONS", "RiemannianGD", "stiefel_beta_gradient"]


def stiefel_beta_gradient(X: Array, G: Array, beta: float | Array = 1.0) -> Array:
    """The Riemannian gradient of f at X on St(n, p) in the beta-metric (betametric_stiefel),
    G - X sym(X^T G) + (1/beta - 1) X skew(X^T G): with X^T X = I, the blocks
    X (1/beta) skew(X^T G) (rotation within span(X), weighed beta by the metric) and
    (I - X X^T) G (out of the span). beta = 1: the embedded gradient; it equals
    ``geometry.grad_beta`` at M = I."""
    A = np.swapaxes(X, -1, -2) @ G
    return riemannian_gradient_stiefel(X, G) + (1.0 / per_run(beta) - 1.0) * (X @ skew(A))


def _retract_qr(X: Array, Z: Array) -> Array:
    """QR retraction qf(X + Z), with the signs fixed so that diag(R) > 0."""
    return qf(X + Z)


def _retract_polar(X: Array, Z: Array) -> Array:
    """Polar retraction: the polar factor of X + Z (its nearest point on St(n, p))."""
    return nearest_stiefel(X + Z)


def _retract_cayley(X: Array, Z: Array) -> Array:
    """Cayley retraction (I - W/2)^{-1} (I + W/2) X with W = P X^T - X P^T, P = Z - X (X^T Z)/2.

    For X on St(n, p) and Z tangent, W X = Z. The n x n inverse is never formed: with
    U = [P, X] and Vt = [X, -P]^T (W = U Vt), Woodbury gives
    Y = X + U (I_2p - 1/2 Vt U)^{-1} Vt X.
    W is skew for every X and Z, so Y is X turned by an orthogonal matrix: Y^T Y = X^T X to
    rounding. (I + W/2) X is not replaced by X + Z/2, which holds only where X^T X = I and
    X^T Z is skew exactly: each step would add that rounding to X^T X, and long steps
    (large Z) made it grow until the run left St(n, p).
    """
    Xt = np.swapaxes(X, -1, -2)
    P = Z - 0.5 * X @ (Xt @ Z)
    U = np.concatenate([P, X], axis=-1)
    Vt = np.concatenate([Xt, -np.swapaxes(P, -1, -2)], axis=-2)
    p2 = U.shape[-1]
    return X + U @ np.linalg.solve(np.eye(p2) - 0.5 * Vt @ U, Vt @ X)


RETRACTIONS: dict[str, Callable[[Array, Array], Array]] = {
    "qr": _retract_qr,
    "polar": _retract_polar,
    "cayley": _retract_cayley,
}


@dataclass(frozen=True)
class RiemannianGD(Method):
    """X_{k+1} = R_{X_k}(-eta_k grad f(X_k)), starting from X0's polar factor (its nearest point
    on St(n, p)), with grad f the Riemannian gradient in the beta-metric (``metric_beta`` > 0;
    1: the embedded metric). No normal term: the step rules see omega = 0."""

    retraction: str = "qr"
    metric_beta: float = 1.0

    def __post_init__(self) -> None:
        if self.retraction not in RETRACTIONS:
            raise ValueError(f"unknown retraction {self.retraction!r}; choose one of "
                             f"{list(RETRACTIONS)}")
        object.__setattr__(self, "metric_beta",
                           positive("RGD metric_beta", self.metric_beta, per_run=False))

    def start(self, X0: Array) -> Array:
        return self.constraint.nearest(X0)

    def field(self, X: Array, G: Array, state: State) -> tuple[Field, State]:
        V = stiefel_beta_gradient(X, G, self.metric_beta)
        # the common measure, not ||V||: in the beta-metric ||V|| scales like 1/beta
        return Field(V, h(X), self.stationarity(X, G), frobenius_norm(V)), state

    def move(self, X: Array, field: Field, eta: float | Array,
             omega: float | Array | None = None) -> Array:
        if omega is not None:
            raise ValueError("Riemannian GD has no normal weight to lower")
        return RETRACTIONS[self.retraction](X, -per_run(eta) * field.V)


def _factory(retraction: str) -> Callable[..., RiemannianGD]:
    def build(*, metric_beta: float = 1.0) -> RiemannianGD:
        return RiemannianGD(retraction, metric_beta)

    return build


for _name, _label in (("qr", "QR"), ("polar", "polar"), ("cayley", "Cayley")):
    register(f"rgd-{_name}", f"Riemannian GD, {_label} retraction")(_factory(_name))
