"""Landing on the generalized Stiefel manifold X^T B X = I_p (Vary, Ablin, Gao & Absil 2024).

V = T + omega B X (X^T B X - I_p), X_{k+1} = X_k - eta_k V, with T a tangent term of
``landing_core.generalized`` ("beta": the beta-family of the metric g^{beta,B}, "euclidean",
"relative": Vary et al.'s skew(G X^T B) B X) and omega B X h_B(X) = omega grad N_B(X),
N_B = 1/4 ||h_B||_F^2. One product B X per field; the rest is n x p x p and p x p work.

Registered as the variant of "landing" for every problem that carries a matrix ``B``, so
``landing(problem, X0)``, ``solve``, ``sweep`` and the app run it with no mention of B.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..generalized import (
    apply,
    check_spd,
    h_B,
    lambda_max,
    landing_direction_B,
    proj_euclidean_B,
    safe_step_B,
    stationarity_B,
    tangent_term_B,
)
from ..geometry import per_run
from .base import Field, Method, State
from .params import positive, tangent_name
from .registry import register

Array = np.ndarray

__all__ = ["GeneralizedLanding", "carries_B"]


def carries_B(problem: object) -> bool:
    """Whether the problem asks for X^T B X = I_p (it has a ``B`` that is not None)."""
    return getattr(problem, "B", None) is not None


@dataclass(frozen=True)
class GeneralizedLanding(Method):
    """Landing on X^T B X = I_p: B symmetric positive definite (dense or scipy.sparse),
    tangent term ``tangent``, beta > 0 (the beta-family's parameter), omega > 0.

    ``lam``: an upper bound on lambda_max(B) for the safe step (computed once, with the check
    of B, when not given).
    The last product B X is kept (``_memo``) so that a step with a lowered normal weight, the
    safe step and the constraint's merit reuse it instead of multiplying by B again.
    """

    B: Any
    beta: float | Array = 0.5
    omega: float | Array = 1.0
    tangent: str = "beta"
    lam: float | None = None
    landing: ClassVar[bool] = True
    per_run: ClassVar[tuple[str, ...]] = ("beta", "omega")
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "beta", positive("beta", self.beta))
        object.__setattr__(self, "omega", positive("omega", self.omega))
        tangent_name(self.tangent)
        if self.lam is None:  # a new method (``take`` copies a checked one, with its lam)
            object.__setattr__(self, "B", check_spd(self.B))
            object.__setattr__(self, "lam", lambda_max(self.B))

    @property
    def normal_weight(self) -> float | Array:
        return self.omega

    def BX(self, X: Array) -> Array:
        """B X, computed once per iterate."""
        if self._memo.get("X") is not X:
            self._memo.clear()
            self._memo.update(X=X, BX=apply(self.B, X))
        return self._memo["BX"]

    def C(self, X: Array) -> Array:
        """C = (B X)^T B X, from the field when it was computed at X."""
        BX = self.BX(X)
        if "C" not in self._memo:
            self._memo["C"] = BX.mT @ BX
        return self._memo["C"]

    def C_top(self, X: Array) -> Any:
        """lambda_max(C) (p x p), once per iterate: the step rules ask for it several times."""
        self.BX(X)
        if "C_top" not in self._memo:
            top = np.linalg.eigvalsh(self.C(X))[..., -1]
            self._memo["C_top"] = float(top) if np.ndim(top) == 0 else top
        return self._memo["C_top"]

    def field(self, X: Array, G: Array, state: State) -> tuple[Field, State]:
        norm, V, H, stat, C = landing_direction_B(X, self.BX(X), G, self.beta, self.omega,
                                                  self.tangent)
        self._memo["C"] = C
        return Field(V, H, stat, norm), state

    def step_terms(self) -> dict[str, Any]:
        """h_B for trial points (one product B Y each), Dh_B(X)[Z] = (BX)^T Z + Z^T B X, the
        multiplier sym(X^T G) (at a critical point on X^T B X = I, G = B X Lambda with
        Lambda = X^T G), the normal term B X H and the B-ball (:class:`BRegion`)."""
        return {
            "constraint": lambda Y: h_B(Y, apply(self.B, Y)),
            "constraint_derivative": self._dh,
            "multiplier": lambda X, G: 0.5 * (X.mT @ G + G.mT @ X),
            "normal_term": self.normal_term,
            "normal_cross": self._normal_cross,
            "region": BRegion(self),
        }

    def _normal_cross(self, X: Array, G: Array, H: Array, Lam: Array) -> float:
        """<G, N> - 1/2 <Lambda, Dh_B(X)[N]> for N = B X H (``steps.StepContext``), formed as
        written: St(n, p)'s closed form -<Lambda, H^2> uses M = I + H, which has no analogue
        with C = (B X)^T B X here."""
        N = self.normal_term(X, H)
        return float(np.vdot(G, N)) - 0.5 * float(np.vdot(Lam, self._dh(X, N)))

    def _dh(self, X: Array, Z: Array) -> Array:
        A = self.BX(X).mT @ Z
        return A + A.mT

    def stationarity(self, X: Array, G: Array) -> float | Array:
        """||grad^B_1 f(X)||_F (``generalized.stationarity_B``), the analogue for B of the
        stopping rule's measure on St(n, p)."""
        return stationarity_B(X, self.BX(X), G)

    def move(self, X: Array, field: Field, eta: float | Array,
             omega: float | Array | None = None) -> Array:
        """X - eta V; with a lowered weight omega_k the normal term moves by
        eta omega_k B X h_B(X)."""
        Y = -per_run(eta) * field.V + X
        if omega is not None:  # + B X (eta (omega - omega_k) H): the scalar on the p x p side
            Y += self.BX(X) @ (per_run(eta * (self.omega - omega)) * field.H)
        return Y

    # the parts of the field (LandingTerms)

    def constraint(self, X: Array) -> Array:
        return h_B(X, self.BX(X))

    def tangent_term(self, X: Array, G: Array) -> Array:
        return tangent_term_B(self.tangent, X, self.BX(X), G, self.beta)

    def normal_term(self, X: Array, H: Array) -> Array:
        return self.BX(X) @ H

    def project(self, X: Array, Z: Array) -> Array:
        """The Frobenius projection onto {T : X^T B T skew}."""
        return proj_euclidean_B(X, self.BX(X), Z)


class BRegion:
    """The safe region ||X^T B X - I||_F <= eps (``steps.SafeRegion``): the B-ball safe step
    (``generalized.safe_step_B``, capped where eta w lambda_max(C) = 1/2, beyond which the
    normal term overshoots in C's top direction), ||B X H||^2 = <H, C H>, and c = lambda_max(C)
    (C = (B X)^T B X, p x p)."""

    def __init__(self, method: GeneralizedLanding) -> None:
        self.method = method

    def scale(self, X: Array, H: Array) -> Any:
        return self.method.C_top(X)

    def bound(self, X: Array, H: Array, d: Any, g2: Any, w: Any, eps: float) -> Any:
        cap = 0.5 / (np.asarray(w, dtype=float) * self.scale(X, H))
        cap = float(cap) if np.ndim(cap) == 0 else cap
        return safe_step_B(H, self.method.C(X), w, g2, self.method.lam, eps, cap)

    def normal2(self, X: Array, H: Array) -> Any:
        value = np.einsum("...ij,...ij->...", H, self.method.C(X) @ H)
        return float(value) if np.ndim(value) == 0 else value


@register("landing-B", "Landing on XᵀBX = I (Vary et al.)", replaces="landing", when=carries_B)
def _generalized(*, beta: float | Array, omega: float | Array, tangent: str,
                 problem: object) -> GeneralizedLanding:
    B = check_spd(problem.B, problem.n)  # type: ignore[attr-defined]
    return GeneralizedLanding(B, beta, omega, tangent, lambda_max(B))
