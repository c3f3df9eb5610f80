"""The constraint protocol: what landing, the step rules, the sweeps and the solver's messages
need of a constraint set {X : h(X) = 0} (in the manner of pymanopt's manifolds).

A constraint owns, for X of shape (n, p) or a stack (..., n, p):

- ``h(X)``: the constraint function (p x p, symmetric), eq. (h) for St(n, p);
  ``dh(X, Z)``: its differential Dh(X)[Z]; ``gram``: the name of the Gram matrix whose distance
  to I is the infeasibility the app and the messages name ("XᵀX", "XᵀBX");
- the field's parts: ``tangent_term(name, X, G, beta)`` (tangent to the layer through X,
  Dh(X)[T] = 0), ``project(X, Z)`` onto that layer's tangent space, ``normal_term(X, H)``, the
  unweighted normal term N(X) for H = h(X) (X h(X), eq. (3lio6), on St(n, p)),
  ``add_normal(Y, X, H, w, N=None)`` (Y + w N(X), how a lowered normal weight moves; N(X)
  itself where the caller formed it), and
  ``direction(X, G, beta, omega, tangent, measure)``, the whole landing field V = T + omega N(X)
  (Algorithm 1, line 4) with ||T||_F and the stationarity measure, fused where the constraint
  knows how;
- ``stationarity(X, G)``: the stopping rule's measure (``geometry.stationarity`` on St(n, p):
  ||grad_1 f(X)||_F, eq. (grad_beta) at beta = 1);
- Armijo's merit: ``multiplier(X, G)``, the Lagrange multiplier estimate Lambda(X), and
  ``normal_cross(X, G, H, Lambda)`` = <G, N> - 1/2 <Lambda, Dh(X)[N]>;
- the safe region ||h(X)||_F <= eps: ``safe_bound(X, H, d, g2, w, eps)``, the largest eta for
  which ||h(X - eta V)||_F <= max(eps, d) is guaranteed for V = T + w N(X) with ||V||_F^2 = g2
  (NaN where the constraint's lemma says nothing: ``steps.safe_step`` then takes
  ``restoring_step``, a backtracking on ||h||), ``safe_step_exact(X, H, T, s, e, eta)``, a
  step up to eta along a tangent term T after a normal step s N(X) that keeps ||h|| <= e
  exactly, where the constraint can form it cheaply (St(n, p); NaN by default),
  ``normal2(X, H)`` = ||N(X)||_F^2 and ``scale(X, H)``, the c for which eta w = 1/(2 c) is the
  normal term's natural step (it cancels h to first order);
- points: ``nearest(X)``, the nearest feasible point, and ``initial_point(n, p, distance,
  seed)``, a random start at a prescribed distance (``frame`` maps the draw's orthonormal
  frame onto the constraint set).

``bind()`` gives the copy a method keeps for its runs (a constraint that caches products of
the current iterate, such as B X, keeps that cache per method, so concurrent runs never share
it); ``check(n, p)`` refuses sizes the constraint does not fit.

The defaults below form the merit's cross term and ||N||^2 as written, so a new constraint
needs h, dh, the field's parts, the multiplier and the safe bound; St(n, p) overrides them
with closed forms.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..geometry import frobenius_norm, per_run, qf

Array = np.ndarray

__all__ = ["SAFE_EPS", "Constraint", "draw", "finite_cap"]

SAFE_EPS = 0.5
"""The default safe region ||h(X)||_F <= eps of the safe step (0 < eps < 1)."""


def draw(n: int, p: int, distance: float = 0.3, seed: int = 0,
         singular_values: Array | None = None) -> tuple[Array, Array, Array]:
    """(U, s, V): the random parts of X0 = U diag(s) V^T at a prescribed distance from St(n, p)
    (``problems.initial_point``): U (n x p) and V (p x p) with orthonormal columns, and s.

    By default s = 1 + distance * u with u a random unit vector; when that would bring a
    singular value below 0.1 (large distances), the outward direction |u| is used instead so X0
    stays full rank. ``singular_values`` prescribes s directly.
    """
    rng = np.random.default_rng(seed)
    if singular_values is None:
        if not np.isfinite(distance) or distance < 0:
            raise ValueError(f"distance must be finite and >= 0, got {distance}")
        u = rng.standard_normal(p)
        u /= np.linalg.norm(u)
        s = 1.0 + distance * u
        if s.min() < 0.1:
            s = 1.0 + distance * np.abs(u)
    else:
        s = np.asarray(singular_values, dtype=float).reshape(-1)
        if s.shape != (p,) or not np.all(np.isfinite(s)) or np.any(s <= 0):
            raise ValueError(f"singular_values must be {p} positive finite numbers, got {s}")
    # qf of a Gaussian matrix is uniformly (Haar) distributed; without qf's sign fix,
    # Householder QR gives det Q one fixed sign, and every X0 with p = n would lie in one
    # component of O(n)
    return qf(rng.standard_normal((n, p))), s, qf(rng.standard_normal((p, p)))


class Constraint:
    """The base of every constraint (module docstring); subclasses implement the parts that
    raise NotImplementedError and may override the rest."""

    gram: str = "XᵀX"
    """The Gram matrix whose distance to I the infeasibility measures, as messages write it."""

    def bind(self) -> Constraint:
        """The copy a method keeps (itself for a constraint without a cache)."""
        return self

    def check(self, n: int, p: int) -> None:
        """ValueError when the constraint does not fit X of shape (n, p)."""

    # the constraint function

    def h(self, X: Array) -> Array:
        raise NotImplementedError

    def dh(self, X: Array, Z: Array) -> Array:
        raise NotImplementedError

    # the field

    def tangent_term(self, name: str, X: Array, G: Array, beta: float | Array) -> Array:
        raise NotImplementedError

    def project(self, X: Array, Z: Array) -> Array:
        raise NotImplementedError

    def normal_term(self, X: Array, H: Array) -> Array:
        raise NotImplementedError

    def add_normal(self, Y: Array, X: Array, H: Array, w: float | Array,
                   N: Array | None = None) -> Array:
        """Y + w N(X) (w one weight per run), in Y's array; ``N``: N(X) where the caller has
        formed it already (``steps.Step.normal``), so that it is not formed again."""
        Y += self.normal_term(X, per_run(w) * H) if N is None else per_run(w) * N
        return Y

    def direction(self, X: Array, G: Array, beta: float | Array, omega: float | Array,
                  tangent: str, measure: bool = True
                  ) -> tuple[float | Array, Array, Array, float | Array | None]:
        """(||T||_F, V, H, stationarity or None) for V = T + omega N(X), H = h(X)."""
        T = self.tangent_term(tangent, X, G, beta)
        H = self.h(X)
        V = T + self.normal_term(X, per_run(omega) * H)
        return frobenius_norm(T), V, H, self.stationarity(X, G) if measure else None

    def stationarity(self, X: Array, G: Array) -> float | Array:
        raise NotImplementedError

    # Armijo's merit

    def multiplier(self, X: Array, G: Array) -> Array:
        raise NotImplementedError

    def normal_cross(self, X: Array, G: Array, H: Array, Lam: Array) -> float:
        """<G, N> - 1/2 <Lambda, Dh(X)[N]> for N = N(X), formed as written."""
        N = self.normal_term(X, H)
        return float(np.vdot(G, N)) - 0.5 * float(np.vdot(Lam, self.dh(X, N)))

    # the safe region

    def safe_bound(self, X: Array, H: Array, d: Any, g2: Any, w: Any, eps: float) -> Any:
        raise NotImplementedError

    def safe_step_exact(self, X: Array, H: Array, T: Array, s: float, e: float,
                        eta: float = math.inf) -> float:
        """A step t <= eta along T after the normal step s N(X) with ||h(X - s N(X) - t T)||
        <= e, eta itself where it keeps that (one run), where a constraint can say it
        cheaply; NaN here: the rules use ``safe_bound``."""
        return math.nan

    def restoring_step(self, X: Array, V: Array, eta: Any, c: float = 0.5,
                       halvings: int = 60) -> Any:
        """Where ``safe_bound`` says nothing: the first of eta, eta/2, eta/4, ... along which
        N = 1/2 ||h||^2 decreases sufficiently, ||h(X - t V)||^2 <= ||h(X)||^2
        - 2 c t <h(X), Dh(X)[V]>; NaN where no t passes (h does not decrease along V). Batched
        over (..., n, p) with eta of shape (...,); h evaluated at each trial (St(n, p) forms
        it in p x p work)."""
        H = self.h(X)
        h2 = np.einsum("...ij,...ij->...", H, H)
        slope = 2.0 * c * np.einsum("...ij,...ij->...", H, self.dh(X, V))
        t = np.array(eta, dtype=float, copy=True)
        ok = np.zeros(t.shape, dtype=bool)
        for _ in range(halvings):
            Hn = self.h(X - t[..., None, None] * V)
            ok = (slope > 0) & (np.einsum("...ij,...ij->...", Hn, Hn) <= h2 - t * slope)
            if np.all(ok | ~(slope > 0)):
                break
            t = np.where(ok, t, 0.5 * t)
        return np.where(ok, t, np.nan)

    def normal2(self, X: Array, H: Array) -> Any:
        """||N(X)||_F^2, formed."""
        N = self.normal_term(X, H)
        value = np.einsum("...ij,...ij->...", N, N)
        return float(value) if np.ndim(value) == 0 else value

    def scale(self, X: Array, H: Array) -> Any:
        return 1.0

    # points

    def nearest(self, X: Array) -> Array:
        raise NotImplementedError

    def frame(self, U: Array) -> Array:
        """A feasible point spanning span(U), from U with orthonormal columns."""
        raise NotImplementedError

    def initial_point(self, n: int, p: int, distance: float = 0.3, seed: int = 0, *,
                      singular_values: Array | None = None) -> Array:
        """X0 = frame(U) diag(s) V^T (``draw``): for St(n, p) at Frobenius distance ||s - 1||_2
        from its polar factor U V^T, with ||h(X0)||_F = ||s^2 - 1||_2."""
        self.check(n, p)
        U, s, V = draw(n, p, distance, seed, singular_values)
        return (self.frame(U) * s) @ V.T


def finite_cap(w: Any, c: Any) -> Any:
    """1 / (2 w c), the step at which the normal term w N(X) cancels h to first order; inf
    where w = 0 (no normal term to overshoot)."""
    w = np.asarray(w, dtype=float)
    with np.errstate(divide="ignore"):
        cap = np.where(w > 0, 0.5 / (w * c), math.inf)
    return float(cap) if np.ndim(cap) == 0 else cap
