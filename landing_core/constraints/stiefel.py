"""The Stiefel manifold St(n, p) = {X : X^T X = I_p}, the paper's constraint.

h(X) = X^T X - I_p (eq. (h)), the normal term X h(X) (eq. (3lio6)), the tangent terms of
``geometry.TANGENT_TERMS`` (grad_beta f, eq. (grad_beta); the Frobenius projection; the relative
gradient), the projection of eq. (proj_beta), the stationarity ||grad_1 f(X)||_F and the safe
step lemma of Ablin et al. (2024). Every function is ``geometry``'s; this module binds them into
one :class:`~.base.Constraint` and adds the safe region's closed forms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..geometry import (
    _direction_one,
    dh,
    h,
    landing_direction,
    multiplier,
    nearest_stiefel,
    per_run,
    proj_tangent,
    stationarity,
    tangent_term,
)
from .base import SAFE_EPS, Constraint

Array = np.ndarray

__all__ = ["STIEFEL", "Stiefel", "restoring_step", "safe_step_bound", "safe_step_exact"]


def safe_step_bound(
    d: Array | float, g: Array | float, omega: Array | float, eps: Array | float = SAFE_EPS
) -> Array:
    """The safe step of Ablin et al. (2024, the safe step-size lemma), vectorized over runs.

    eta <= min{ [omega d (1-d) + sqrt(omega^2 d^2 (1-d)^2 + g^2 (eps - d))] / g^2, 1/(2 omega) }
    with d = ||X^T X - I||_F < 1 and g = ||tangent + omega X (X^T X - I)||_F. If d <= eps < 1,
    the next iterate again has ||X^T X - I||_F <= eps. This holds for every tangent term V_t with
    X^T V_t + V_t^T X = 0. Where eps < d < 1 (a start outside the safe region) eps is replaced
    by d, so the infeasibility does not grow. The lemma says nothing for d >= 1: the bound is
    NaN there (``steps.safe_step`` then backtracks on the exact infeasibility). omega = 0 (a
    retraction baseline) gives the trust-region-like bound sqrt(eps)/g.
    """
    if all(isinstance(v, float | int) for v in (d, g, omega, eps)):
        return np.float64(_safe_step(d, g, omega, eps))
    d, g, omega, eps = (np.asarray(v, dtype=float) for v in (d, g, omega, eps))
    eps_k = np.maximum(eps, d)
    a = omega * d * (1.0 - d)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = (a + np.sqrt(a * a + g * g * (eps_k - d))) / (g * g)
        cap = np.where(omega > 0, 0.5 / omega, np.inf)
        bound = np.where(g > 0, bound, np.inf)
        far = np.where(omega > 0, np.nan, np.sqrt(eps) / g)
    return np.where(d < 1.0, np.minimum(bound, cap), far)


def _safe_step(d: float, g: float, omega: float, eps: float) -> float:
    """safe_step_bound for one run, in Python floats: the same formula and cases, without
    numpy's per-call overhead on 0-d arrays, which adds up in the solver's loop."""
    if not d < 1.0:  # outside the lemma's range (or NaN, which propagates)
        if omega > 0:
            return math.nan
        return math.sqrt(eps) / g if g > 0 else math.inf
    a = omega * d * (1.0 - d)
    g2 = g * g
    bound = (a + math.sqrt(a * a + g2 * (max(eps, d) - d))) / g2 if g2 > 0 else math.inf
    return min(bound, 0.5 / omega) if omega > 0 else bound


def restoring_step(
    X: Array, V: Array, eta: Array | float, c: float = 0.5, halvings: int = 60
) -> Array:
    """For ||h(X)||_F >= 1, where the safe-step lemma does not apply: the first of eta, eta/2,
    eta/4, ... along which the infeasibility N = 1/2 ||h||^2 decreases sufficiently,

        ||h(X - t V)||^2 <= ||h(X)||^2 - 2 c t <h(X), X^T V + V^T X>,

    evaluated exactly in p x p work from h(X - t V) = h(X) - t (X^T V + V^T X) + t^2 V^T V.
    For a landing field the slope is positive (X^T V_t is skew for the tangent term, so
    <h, X^T V + V^T X> = 2 omega <h, X^T X h> > 0) and a small enough t passes. NaN where no t
    passes: a field along which h does not decrease (the penalty method's gradient can be one).
    Batched over (..., n, p) with eta of shape (...,).
    """
    Xt = np.swapaxes(X, -1, -2)
    H = Xt @ X - np.eye(X.shape[-1])
    XtV = Xt @ V
    S = XtV + np.swapaxes(XtV, -1, -2)
    Q = np.swapaxes(V, -1, -2) @ V
    h2 = np.einsum("...ij,...ij->...", H, H)
    slope = 2.0 * c * np.einsum("...ij,...ij->...", H, S)
    t = np.array(eta, dtype=float, copy=True)
    ok = np.zeros(t.shape, dtype=bool)
    for _ in range(halvings):
        tm = t[..., None, None]
        Hn = H - tm * S + (tm * tm) * Q
        ok = (slope > 0) & (np.einsum("...ij,...ij->...", Hn, Hn) <= h2 - t * slope)
        if np.all(ok | ~(slope > 0)):
            break
        t = np.where(ok, t, 0.5 * t)
    return np.where(ok, t, np.nan)



def safe_step_exact(X: Array, H: Array, T: Array, s: float, e: float,
                    eta: float = math.inf) -> float:
    """A step t <= eta along T, after the normal step s X H, that keeps ||h|| <= e (H = h(X)),
    from p x p work (X^T T and T^T T: two n x p x p products): eta itself where
    X(eta) = X - s X H - eta T has ||h(X(eta))||_F <= e, else the first positive root of
    ||h(X(t))||_F = e, below eta. NaN where the normal step alone ends above e
    (||h(X(0))||_F >= e).

    With L = I - s H (symmetric, commuting with X^T X = I + H), X(t) = X L - t T, so

        h(X(t)) = A0 + t A1 + t^2 A2,  A0 = L (I + H) L - I,  A1 = -(B + B^T),  B = L X^T T,
        A2 = T^T T,

    exactly, for any T; phi(t) = ||h(X(t))||_F^2 - e^2 is a quartic with phi(0) < 0 and, for
    T != 0, phi(t) -> inf, so it has a first positive root, and every t up to it keeps
    ||h|| <= e. The safe step lemma (Ablin et al. 2024, ``safe_step_bound``) bounds
    ||h(X(t))|| by norms alone (||T^T T||_F <= ||T||_F^2, equality only for T of rank one) and
    so stops short of it: for the tangent term of linear(2000, 100) (p = 100 columns of similar
    size) by a factor of about 3. At s = 1/2, A0 = -3/4 H^2 + 1/4 H^3, the Newton-Schulz
    residual (``steps.ScaleFree``).

    The quartic is solved in t = eta ||T^T T||_F^(-1/2), which makes its leading coefficient 1
    and the others O(1) near the root; a complex pair within 1e-6 of the real axis counts as
    a root (a double root rounded apart), which can only shorten the step. The root is taken a
    hair inside (1 - 1e-9): its relative rounding error is far smaller, so the step keeps
    ||h|| <= e to rounding in forming X(t)."""
    p = H.shape[0]
    eye = np.eye(p)
    L = eye - s * H
    A0 = L @ (eye + H) @ L - eye
    if not float(np.vdot(A0, A0)) < e * e:
        return math.nan
    A2 = T.T @ T
    # T in units of ||T||_F (t' = t ||T||_F, ||T||_F^2 = tr(T^T T)): A1, A2 are then O(1),
    # and <A2, A2> ~ ||T||^4 neither overflows nor underflows for 1e-154 < ||T|| < 1e154
    # (unscaled, it overflows for a cost's scale of 1e80)
    t2 = float(np.trace(A2))
    if not (0 < t2 < math.inf):  # T = 0: the tangent step does not move h
        return eta if t2 == 0 and not np.any(T) else math.nan
    r = 1.0 / math.sqrt(t2)
    A1 = L @ (X.T @ T)
    A1 += A1.T
    A1 *= -r
    A2 *= r * r
    # the six inner products <Ai, Aj> at once
    A = np.stack((A0, A1, A2)).reshape(3, p * p)
    (a00, a01, a02), (_, a11, a12), (_, _, a22) = (A @ A.T).tolist()
    if eta < math.inf:  # X(eta) inside: no root needed
        t = eta * math.sqrt(t2)
        if a00 + t * (2.0 * a01 + t * (a11 + 2.0 * a02 + t * (2.0 * a12 + t * a22))) <= e * e:
            return eta
    tau = a22 ** -0.25 * r  # back in units of t
    roots = np.roots([1.0, 2.0 * a12 * a22 ** -0.75, (a11 + 2.0 * a02) * a22 ** -0.5,
                      2.0 * a01 * a22 ** -0.25, a00 - e * e])
    near = roots[(roots.real > 0) & (np.abs(roots.imag) <= 1e-6 * np.abs(roots))]
    if not near.size:  # (rounding lost the root phi(0) < 0 promises: the lemma's bound then)
        return math.nan
    return min(eta, float(near.real.min()) * tau * (1.0 - 1e-9))


@dataclass(frozen=True)
class Stiefel(Constraint):
    """St(n, p): X^T X = I_p (module docstring). Stateless: every instance is the same."""

    gram = "XᵀX"

    def h(self, X: Array) -> Array:
        return h(X)

    def dh(self, X: Array, Z: Array) -> Array:
        return dh(X, Z)

    def tangent_term(self, name: str, X: Array, G: Array, beta: float | Array) -> Array:
        return tangent_term(name)(X, G, beta)

    def project(self, X: Array, Z: Array) -> Array:
        """The projection onto T_X St_{X^T X}, eq. (proj_beta)."""
        return proj_tangent(X, Z)

    def normal_term(self, X: Array, H: Array) -> Array:
        """X H (eq. (3lio6) for H = h(X)); one run by ``ndarray.dot``, the same BLAS call as
        matmul's with less per-call overhead (``geometry._direction_one``)."""
        return X.dot(H) if X.ndim == 2 else X @ H

    def add_normal(self, Y: Array, X: Array, H: Array, w: float | Array,
                   N: Array | None = None) -> Array:
        Y += (w if type(w) is float else per_run(w)) * (self.normal_term(X, H) if N is None
                                                         else N)
        return Y

    def direction(self, X: Array, G: Array, beta: float | Array, omega: float | Array,
                  tangent: str, measure: bool = True
                  ) -> tuple[float | Array, Array, Array, float | Array | None]:
        """``geometry.landing_direction``: four n x p x p products for the beta-metric. One
        run with float parameters (a landing method's) goes to its one-run arithmetic
        directly: a small live run's iteration is mostly such per-call overhead."""
        if X.ndim == 2 and tangent == "beta" and type(beta) is float and type(omega) is float:
            return _direction_one(X, G, beta, omega, measure)
        return landing_direction(X, G, beta, omega, tangent, measure=measure)

    def stationarity(self, X: Array, G: Array) -> float | Array:
        """||grad_1 f(X)||_F (``geometry.stationarity``)."""
        return stationarity(X, G)

    def multiplier(self, X: Array, G: Array) -> Array:
        """sym(X^T G) (``geometry.multiplier``)."""
        return multiplier(X, G)

    def normal_cross(self, X: Array, G: Array, H: Array, Lam: Array) -> float:
        """a = <G, N> - 1/2 <Lambda, Dh(X)[N]> for N = X H, in closed form: with
        M = X^T X = I + H, <G, X H> = <Lambda, H> and 1/2 Dh(X)[N] = sym(M H) = H + H^2, so
        a = -<Lambda, H^2>. The two inner products it is the difference of are
        O(||Lambda|| ||H||) and cancel to O(||Lambda|| ||H||^2); formed apart, their rounding
        error (and that of M - I) divided by b = 2 ||X H||^2 grows like eps / ||H||, which
        breaks Armijo's weight bound once ||H|| is at rounding level."""
        return -float(np.vdot(Lam, H @ H))

    def safe_bound(self, X: Array, H: Array, d: Any, g2: Any, w: Any, eps: float) -> Any:
        """The safe step lemma (``safe_step_bound``)."""
        if X.ndim == 2:
            return _safe_step(float(d), math.sqrt(float(g2)), float(w), eps)
        return safe_step_bound(d, np.sqrt(g2), w, eps)

    def safe_step_exact(self, X: Array, H: Array, T: Array, s: float, e: float,
                        eta: float = math.inf) -> float:
        """``safe_step_exact``: the exact safe step, from p x p work."""
        return safe_step_exact(X, H, T, s, e, eta)

    def restoring_step(self, X: Array, V: Array, eta: Any) -> Any:
        """``restoring_step``: p x p work per trial."""
        return restoring_step(X, V, eta)

    def normal2(self, X: Array, H: Array) -> Any:
        """||X H||^2 = <H, (I + H) H>: p x p work."""
        return float(np.vdot(H, H @ H)) + float(np.vdot(H, H))

    def scale(self, X: Array, H: Array) -> Any:
        return 1.0

    def nearest(self, X: Array) -> Array:
        """The polar factor (``geometry.nearest_stiefel``)."""
        return nearest_stiefel(X)

    def frame(self, U: Array) -> Array:
        return U


STIEFEL = Stiefel()
