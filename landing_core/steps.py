"""Step-size rules for the landing iteration X_{k+1} = X_k - eta_k V_k (Algorithm 1, line 3).

A rule is a small frozen dataclass (its parameters) whose ``__call__(ctx, state)`` returns eta_k.
``ctx`` (:class:`StepContext`) carries what the solver already computed at X_k; ``state`` is a
dict the solver keeps for one run, so the same rule object can drive many runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

from .constraints import SAFE_EPS, STIEFEL, Constraint
from .constraints.stiefel import restoring_step, safe_step_bound
from .geometry import frobenius_norm

Array = np.ndarray

__all__ = [
    "Armijo",
    "BarzilaiBorwein",
    "Constant",
    "Decreasing",
    "Safe",
    "ScaleFree",
    "Step",
    "StepContext",
    "SAFE_EPS",
    "BY_NAME",
    "STEP_RULES",
    "USES_ETA",
    "StepRule",
    "as_step_rule",
    "check_eps",
    "make_step_rule",
    "restoring_step",
    "safe_step",
    "safe_step_bound",
]


@dataclass
class StepContext:
    """What a rule may use at iterate X_k.

    X: the iterate; V: the direction (X_{k+1} = move(eta), = X - eta V for landing);
    G: the Euclidean gradient at X; d = ||h(X)||_F; omega: the normal term's weight;
    cost: X -> f(X); move: (eta, omega_k=None) -> X_{k+1}(eta), with the normal weight lowered
    to omega_k for a landing field; k: the iteration counter;
    H = h(X), tangent_norm = ||T||_F and ``landing``: V is a landing field T + omega N(X)
    with T tangent to the layer through X (Dh(X)[T] = 0), whose normal weight a rule may lower
    for one step by returning a :class:`Step`.

    ``T`` and ``gain``: the cost's tangent term where V's tangent part is another (momentum's
    buffer), and how much longer that part moves in the long run (``methods.Field``): the
    curvature rules read their differences from T (BB: T + omega N(X)) and divide their
    step by the gain. None and 1 for a field whose tangent part is T.

    ``constraint``: the constraint h(X) = 0 the iterates approach (``landing_core.constraints``;
    St(n, p) by default, the method's ``Method.constraint`` in a run), for the rules that
    evaluate it: h at trial points, Dh, the multiplier estimate Lambda(X), the normal term N(X),
    the cross term <G, N> - 1/2 <Lambda, Dh(X)[N]> of Armijo's merit slope along N(X) that does
    not scale with Armijo's weight (-<Lambda, H^2> on St(n, p)), and the safe region's bound,
    ||N||^2 and scale.
    """

    X: Array
    V: Array
    G: Array
    d: float
    omega: float
    cost: Callable[[Array], Any]
    move: Callable[[float], Array]
    k: int
    H: Array | None = None
    landing: bool = False
    tangent_norm: float | None = None
    constraint: Constraint = STIEFEL
    T: Array | None = None
    gain: float = 1.0


EPS = float(np.finfo(float).eps)


class Step(NamedTuple):
    """A landing step with its own normal weight: X_{k+1} = X_k - eta (T + omega X_k h(X_k)),
    omega > 0 finite (only for ``ctx.landing``): below the run's omega for BB's long steps,
    above it where ``ScaleFree`` follows a large cost's scale. ``normal``: the normal term
    N(X_k) (``Constraint.normal_term``) where the rule formed it, for the move to reuse
    (an n x p x p product it need not form again); None: the move forms it. ``tangent``: the
    tangent term T the rule formed (with ``normal``), for the move to take
    X - eta T - eta omega N(X), the point the rule checked, rather than
    X - eta V + eta (omega_run - omega) N(X): where eta omega_run >> 1 (a long step on a
    small T) its two normal terms cancel, and their rounding, eta eps omega_run ||N||, can
    put ||h|| past the bound the rule checked."""

    eta: float
    omega: float
    normal: Array | None = None
    tangent: Array | None = None


class StepRule(Protocol):
    def __call__(self, ctx: StepContext, state: dict) -> float | Step: ...



def _check_positive(name: str, value: float) -> None:
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value}")


def check_eps(eps: float) -> None:
    """The safe region ||h|| <= eps needs 0 < eps < 1 (the safe step lemma's range)."""
    if not (np.isfinite(eps) and 0 < eps < 1):
        raise ValueError(f"safe-step eps must lie in (0, 1), got {eps}")


def safe_step(
    X: Array, V: Array, d: Array | float, omega: Array | float, eta: Array | float,
    eps: float = SAFE_EPS, constraint: Constraint = STIEFEL, H: Array | None = None,
) -> Array | float:
    """min(eta, the constraint's safe bound) (``Constraint.safe_bound``: St(n, p)'s by default,
    with H = h(X) for the others). Where the bound says nothing (St(n, p) at ||h(X)|| >= 1):
    the constraint's ``restoring_step`` from min(eta, 1/(2 omega)), or, for a field along
    which h does not decrease, the first-order step min(eta, 1/(2 omega (1 + d))). One run
    (2-D X): a float; a stack: an array of steps."""
    if X.ndim == 2:
        d, omega = float(d), float(omega)
        bound = float(constraint.safe_bound(X, H, d, float(np.vdot(V, V)), omega, eps))
        if not math.isnan(bound):
            return min(float(eta), bound)
        t = float(constraint.restoring_step(X, V, min(float(eta), 0.5 / omega)))
        return t if not math.isnan(t) else min(float(eta), 0.5 / (omega * (1.0 + d)))
    g2 = np.einsum("...ij,...ij->...", V, V)
    step = np.minimum(eta, constraint.safe_bound(X, H, d, g2, omega, eps))
    far = np.isnan(step)
    if np.any(far):
        eta_f, omega_f, d_f = (np.broadcast_to(v, far.shape)[far] for v in (eta, omega, d))
        t = constraint.restoring_step(X[far], V[far], np.minimum(eta_f, 0.5 / omega_f))
        step[far] = np.where(np.isnan(t), np.minimum(eta_f, 0.5 / (omega_f * (1.0 + d_f))), t)
    return step


@dataclass(frozen=True)
class Constant:
    """eta_k = eta for every k."""

    eta: float = 0.1

    def __post_init__(self) -> None:
        _check_positive("step eta", self.eta)

    def __call__(self, ctx: StepContext, state: dict) -> float:
        return self.eta


@dataclass(frozen=True)
class Decreasing:
    """eta_k = eta half_life / (half_life + k - k_0) after the first k_0 = ``constant_for``
    updates at eta: halves ``half_life`` updates later, then decays like 1/k (sum eta_k
    infinite, sum eta_k^2 finite: Robbins & Monro), the step that lets stochastic gradients
    converge despite their noise.

    With half_life = k_0 the step is eta k_0 / k from k_0 on: a constant step until k_0, then
    the decay, which takes SGD below its noise floor where it has reached that floor by k_0.
    (A decay from k = 0 with a half-life of ten epochs slowed the transient and ended above
    the constant step's floor on the Stochastic page's settings: RESULTS.md, section 22.)"""

    eta: float = 0.1
    half_life: float = 100.0
    constant_for: float = 0.0

    def __post_init__(self) -> None:
        _check_positive("step eta", self.eta)
        _check_positive("half_life", self.half_life)
        if not (math.isfinite(self.constant_for) and self.constant_for >= 0):
            raise ValueError(f"constant_for must be a finite number >= 0, got "
                             f"{self.constant_for!r}")

    def __call__(self, ctx: StepContext, state: dict) -> float:
        if ctx.k <= self.constant_for and self.constant_for > 0:
            # exactly the constant step's (the curves agree until k_0; eta h / h can round one
            # unit above eta, a step up at k_0)
            return self.eta
        return self.eta * self.half_life / (self.half_life + (ctx.k - self.constant_for))


@dataclass(frozen=True)
class Safe:
    """eta_k = min(eta, safe_step_bound): the requested step, made safe (Ablin et al., 2024).

    Keeps ||X_k^T X_k - I||_F <= eps (0 < eps < 1) on every iterate when X_0 starts there,
    however large eta. From a start outside, the infeasibility does not grow while below 1, and
    decreases sufficiently at every step above 1 (``Constraint.restoring_step``).
    """

    eta: float = 1.0
    eps: float = SAFE_EPS

    def __post_init__(self) -> None:
        _check_positive("step eta", self.eta)
        check_eps(self.eps)

    def __call__(self, ctx: StepContext, state: dict) -> float:
        return safe_step(ctx.X, ctx.V, ctx.d, ctx.omega, self.eta, self.eps, ctx.constraint,
                         ctx.H)


_MERIT_ROUNDING = 64 * np.finfo(float).eps
"""Armijo's estimate of the merit's rounding error, per unit of |f| + ||G|| ||X|| + |phi - f|:
a predicted decrease below it is not measurable (``Armijo``)."""


@dataclass(frozen=True)
class Armijo:
    """Backtracking on an augmented-Lagrangian merit, so no eta needs tuning.

    The merit at X_k, with the multiplier estimate Lambda_k = Lambda(X_k)
    (``Constraint.multiplier``; sym(X^T G) on St(n, p)) and N = 1/2 ||h||_F^2:

        phi_k(Y) = f(Y) - 1/2 <Lambda_k, h(Y)> + mu_k N(Y),
        Dphi_k(X_k)[Z] = <G_k, Z> + <mu_k h(X_k) - 1/2 Lambda_k, Dh(X_k)[Z]>.

    This is the merit of Ablin, Vary, Gao & Absil (2024, "Infeasible deterministic, stochastic,
    and variance-reduction algorithms for optimization under orthogonality constraints") with
    Lambda frozen at X_k during the search: theirs evaluates Lambda at each trial, whose slope
    would need the Hessian of f; the two differ by 1/2 <Lambda(Y) - Lambda_k, h(Y)>, a product
    of the step and the infeasibility. Why its weight stays bounded: along a landing field
    V = T + omega N(X), the tangent term leaves h unchanged to first order (Dh[T] = 0), so its
    slope is <G, T> >= 0 (T is a gradient of f in some metric); along the normal term the
    multiplier cancels the cross term <G, X h> = <Lambda, h>, which leaves a + mu b with
    a = -<Lambda, h^2> and b = 2 ||X h||_F^2 >= 2 lambda_min(M) ||h||^2 on St(n, p). The rule takes

        mu_k = max(mu_{k-1}, mu0 - a/b) <= mu0 + max_j ||Lambda_j||_2 / (2 lambda_min(M_j)),

    bounded on any trajectory that stays full rank, so that Dphi_k[V] >= <G, T> + mu0 omega b.
    The bound holds in floating point as well, because a is formed as -<Lambda, H H>
    (``Constraint.normal_cross``) and b as 2 ||X H||^2 from the computed H, whatever its rounding:
    |<Lambda, H H>| <= ||Lambda||_2 ||H||_F^2 and ||X H||_F >= sigma_min(X) ||H||_F for any
    p x p H, and the two products and two sums add a relative error of at most about
    8 p (n + p^2) kappa_F(X) eps (kappa_F = ||X||_F / sigma_min(X); Higham, Accuracy and
    Stability, 3.1 and 3.5). Formed instead as <G, N> - 1/2 <Lambda, Dh[N]>, the difference of
    two O(||Lambda|| ||h||) terms, a would carry an error of order eps ||Lambda|| ||h||, so a/b
    one of order eps / ||h||, unbounded as ||h|| reaches rounding level.
    (The plain penalty f + mu N needs mu >= |<Lambda, h>| / ||h||^2, which grows without bound
    as h -> 0.)

    The search: the first trial is eta0 (k = 0), then twice the last accepted step; it is
    halved until Y = X_{k+1}(eta) satisfies

        phi_k(Y) <= phi_k(X_k) - c Dphi_k(X_k)[X_k - Y]     (sufficient decrease), and,
        for a landing field, ||h(Y)||_F <= max(eps, ||h(X_k)||_F),

    (for a field that is not a landing field, c eta Dphi_k(X_k)[V] on the right: the
    textbook test along a retraction's curve R_X(-eta V), whose chord X_k - Y is not eta V),

    the second as the safe step promises: ||h(X_k)|| does not rise above max(eps, ||h(X_0)||)
    (the steps below, taken untested, are the exceptions: near a solution, ||h|| is then at
    rounding level).
    On a landing field a trial eta > 1/(2 omega c) is taken as Barzilai-Borwein's long step,
    with the normal weight lowered to 1/(2 eta c) (a :class:`Step`; c = ``ctx.constraint.scale``,
    1 on St(n, p)), so that the normal term moves by X h / 2 and never overshoots; the
    decrease is then predicted along the step taken.
    Where the predicted decrease c eta Dphi_k[V] of the last accepted step falls below the
    rounding error of phi (64 eps (|f| + ||G|| ||X||), near a solution), merit values no longer
    tell anything and that step is taken again. Where Dphi_k[V] <= 0 (a momentum buffer turned
    against the gradient), the safe step. A field that is not a landing field (the penalty's
    G + omega X h, Riemannian GD's) gets the merit f + omega/2 N whose gradient the penalty's
    field is (f for the retractions, omega = 0), with no multiplier and no filter.

    c = 1/2 by default: the merit has the Lagrangian's curvature along the layer (the Riemannian
    Hessian's), and on a quadratic the test then accepts steps up to the exact line minimizer
    only. A small c (the textbook 1e-4) accepts a doubled trial just below 2/curvature, where
    the iteration barely contracts (benchmarks/RESULTS.md compares the rules on a grid of
    problems).
    """

    eta0: float = 1.0
    mu0: float = 1.0
    c: float = 0.5
    shrink: float = 0.5
    max_backtracks: int = 40
    eps: float = SAFE_EPS

    def __post_init__(self) -> None:
        _check_positive("Armijo eta0", self.eta0)
        _check_positive("Armijo mu0", self.mu0)
        if not (0 < self.c < 1 and 0 < self.shrink < 1):
            raise ValueError("Armijo needs 0 < c < 1 and 0 < shrink < 1")
        check_eps(self.eps)

    def __call__(self, ctx: StepContext, state: dict) -> float | Step:
        X, V, G, constraint = ctx.X, ctx.V, ctx.G, ctx.constraint
        H = ctx.H if ctx.H is not None else constraint.h(X)
        omega, d = float(ctx.omega), float(ctx.d)
        if ctx.landing:
            Lam = constraint.multiplier(X, G)
            N = constraint.normal_term(X, H)
            a = constraint.normal_cross(X, G, H, Lam)
            b = 2.0 * float(np.vdot(N, N))  # <h, Dh[N]> = 2 ||N||^2 (St(n, p) and B's layers)
            mu = max(state.get("mu", self.mu0), self.mu0 - a / b if b > 0 else self.mu0)
        else:
            Lam, mu = np.zeros_like(H), 0.5 * omega
        state["mu"] = mu
        weight = mu * H - 0.5 * Lam  # Dphi[Z] = <G, Z> + <weight, Dh[Z]>

        def merit(Y: Array) -> tuple[float, float]:
            """(phi_k(Y), ||h(Y)||_F)."""
            HY = constraint.h(Y)
            h2 = float(np.vdot(HY, HY))
            phi = float(ctx.cost(Y)) - 0.5 * float(np.vdot(Lam, HY)) + 0.5 * mu * h2
            return phi, math.sqrt(h2)

        def decrease(Z: Array) -> float:
            return float(np.vdot(G, Z)) + float(np.vdot(weight, constraint.dh(X, Z)))

        c = float(constraint.scale(X, H)) if ctx.landing else 1.0

        def trial(eta: float) -> tuple[Array, float | Step]:
            if ctx.landing and 2.0 * eta * omega * c > 1.0:
                return ctx.move(eta, 0.5 / (eta * c)), Step(eta, 0.5 / (eta * c))
            return ctx.move(eta), eta

        f0 = float(ctx.cost(X))
        phi0 = f0 - 0.5 * float(np.vdot(Lam, H)) + 0.5 * mu * float(np.vdot(H, H))
        rounding = _MERIT_ROUNDING * (abs(f0) + frobenius_norm(G) * frobenius_norm(X)
                                      + abs(phi0 - f0))
        slope = decrease(V)
        last = state.get("eta")
        if slope <= 0:  # not a descent direction of the merit: a cautious step
            eta = float(safe_step(X, V, d, omega, last or self.eta0, self.eps, constraint, H))
            state["eta"] = eta
            return eta
        if last is not None and self.c * last * slope < rounding:
            state["eta"] = last  # decreases are no longer measurable: the last step again
            return trial(last)[1]
        eta = self.eta0 if last is None else 2.0 * last
        h_max = max(self.eps, d) if ctx.landing else math.inf
        for _ in range(self.max_backtracks):
            Y, step = trial(eta)
            phi, hY = merit(Y)
            # a landing move is X - Y = eta (T + omega_k N), linear in the field: the decrease
            # along it. A retraction moves on a curve, whose chord X - Y can point uphill at a
            # long step (accepting steps that raise f, doubled up to 1e307): along its tangent
            # eta V (the penalty's move is eta V itself)
            predicted = decrease(X - Y) if ctx.landing else eta * slope
            if np.isfinite(phi) and phi <= phi0 - self.c * predicted and hY <= h_max:
                break
            eta *= self.shrink
        else:  # no trial passed: the smallest one
            step = trial(eta)[1]
        state["eta"] = eta
        return step


@dataclass(frozen=True)
class BarzilaiBorwein:
    """Barzilai-Borwein steps on the landing field, safeguarded by the safe step.

    With s = X_k - X_{k-1} and y = V_k - V_{k-1}, alternates the long step <s,s>/<s,y> and the
    short step <s,y>/<y,y>. On momentum's field y is taken from the cost's T + omega N(X)
    and the step divided by the buffer's gain (``StepContext.T``, ``gain``), then made safe
    for the field the move takes. Where <s,y> <= 0 (negative curvature along s, near a saddle) both
    are meaningless; ||s||/||y||, their geometric mean when <s,y> > 0, is used: it follows the
    curvature's magnitude, so that eta grows again as a run leaves a saddle (the previous step
    would keep it as small as the saddle made it). The step is clipped to
    [eta_min, eta_max], then made safe. The first request is eta_max, so the first step is
    the safe step (or the long step below).

    ``normal_cap`` (default): the safe step's cap 1/(2 omega) guards the normal term, whose step
    eta omega contracts h by about 1 - 2 eta omega; it need not cut the tangent step. A BB step
    eta > 1/(2 omega) inside the safe region (||h|| < 1) is therefore taken whole on the tangent
    term, with the normal weight lowered to omega_k = 1/(2 eta) for that step (a
    :class:`Step`): the normal term moves by exactly 1/2 X h, the largest step the cap allows
    it (less where the safe bound shortens the step; see ``_long_step``), and the safe-step
    bound is checked with omega_k, so ||h|| <= eps still holds. This long step is taken only
    where it is longer than the step capped as a whole. Capping
    the whole step instead (``normal_cap=False``) truncates BB's long steps, on which its speed
    rests: brockett(200, 20) needs 3-6x more iterations so (benchmarks/bench_pymanopt.py).
    """

    eta_max: float = 1e3
    eta_min: float = 1e-10
    eps: float = SAFE_EPS
    normal_cap: bool = True

    def __post_init__(self) -> None:
        _check_positive("BB eta_max", self.eta_max)
        _check_positive("BB eta_min", self.eta_min)
        check_eps(self.eps)

    def __call__(self, ctx: StepContext, state: dict) -> float | Step:
        # the last step taken, as a request before the gain (the buffer's: below)
        eta = state["eta"] * ctx.gain if "eta" in state else self.eta_max
        # the cost's field, whose differences measure its curvature (momentum's buffer: below)
        V = ctx.V if ctx.T is None else ctx.constraint.add_normal(
            np.array(ctx.T), ctx.X, ctx.H, float(ctx.omega))
        if "X" in state:
            s = _difference(ctx.X, state["X"], state, "s")
            y = _difference(V, state["V"], state, "y")
            sy = float(np.vdot(s, y))
            ss, yy = float(np.vdot(s, s)), float(np.vdot(y, y))
            if sy > 0:
                eta = ss / sy if ctx.k % 2 else sy / yy
            elif ss > 0 and yy > 0:  # negative curvature along s (near a saddle)
                eta = math.sqrt(ss / yy)
        state.update(X=ctx.X, V=V)
        eta = min(max(eta / ctx.gain, self.eta_min), self.eta_max)
        safe = min(eta, safe_step(ctx.X, ctx.V, ctx.d, ctx.omega, self.eta_max, self.eps,
                                  ctx.constraint, ctx.H))
        omega, d = float(ctx.omega), float(ctx.d)
        if (self.normal_cap and ctx.landing and ctx.H is not None and ctx.tangent_norm is not None
                and d < 1
                and 2 * eta * omega * (c := float(ctx.constraint.scale(ctx.X, ctx.H))) > 1):
            long = self._long_step(ctx, eta, omega, d, c)
            if long.eta > safe:
                state["eta"] = long.eta
                return long
        state["eta"] = safe
        return safe

    def _long_step(self, ctx: StepContext, eta: float, omega: float, d: float,
                   c: float) -> Step:
        """The BB step eta > 1/(2 omega c) with omega_k = 1/(2 eta c), made safe for omega_k
        (c = ``ctx.constraint.scale``: 1 on St(n, p)).

        Where the safe bound shortens eta to t (||h|| near eps: the bound grows with omega
        there), omega_k is raised to min(omega, 1/(2 t)) and the bound taken again, so that the
        normal term is not starved (eta omega_k may then fall below 1/2). The norm in the bound
        needs no n x p work: <T, X H> = 0 (X^T T skew, H symmetric), so
        ||T + w X H||_F^2 = ||T||^2 + w^2 ||X H||^2 with ||X H||^2 = <H, (I + H) H>
        (``constraint.normal2``; the same holds for any normal term with Dh[T] = 0); ||T|| is
        the solver's (a difference ||V||^2 - (omega^2 - w^2) ||X H||^2 would lose ||T|| to
        rounding when the normal term dominates and w << omega).
        """
        X, H, constraint = ctx.X, ctx.H, ctx.constraint
        normal2 = float(constraint.normal2(X, H))
        tangent_norm = float(ctx.tangent_norm)
        tangent2 = tangent_norm * tangent_norm  # not ** 2: see ScaleFree

        def bound(w: float) -> float:
            return float(constraint.safe_bound(X, H, d, tangent2 + w * w * normal2, w, self.eps))

        omega_k = 0.5 / (eta * c)
        t = min(eta, bound(omega_k))
        if t < eta:
            omega_k = min(omega, 0.5 / (t * c))
            t = min(t, bound(omega_k))
        return Step(t, omega_k)



@dataclass(frozen=True)
class ScaleFree:
    """The default rule: Barzilai-Borwein steps on the tangent term, with the normal weight
    following the step, made safe. Invariant to the cost's scale.

    Why: the landing field V = T + omega N(X) (Algorithm 1, line 3) adds a tangent term that
    scales with f to a normal term that does not. Under f -> s f the tangent step BB measures
    scales as 1/s; with a fixed omega the normal term then moves by eta omega ~ omega / s,
    and outside the safe region the safe step's bound 2 omega d (1 - d) / ||V||^2 falls like
    1/s^2 and cuts the tangent step too: ``BarzilaiBorwein`` on linear(200, 20) times 1e3
    still had ||h|| = 0.59 after 5,000 iterations (converged in 582 unscaled, 51 times 1e-3).
    Ablin et al. (2024) note that their lambda (our omega) should follow the gradient's
    scale; here it follows the step: omega_k = min(omega, 1) / (2 eta_k c)
    (c = ``ctx.constraint.scale``, 1 on St(n, p)), so that the normal term moves by
    eta_k omega_k c N(X) = min(omega, 1) N(X) / 2 at every step (the safe step's cap
    eta <= 1/(2 omega c) is the reason for min(omega, 1)). At omega = 1, the default, this is
    X - X h / 2 = X (3 I - X^T X) / 2, the Newton-Schulz step toward the polar factor, whose
    error h contracts quadratically (h -> -3/4 h^2 + h^3 / 4 for the normal step alone).

    The tangent step: Barzilai-Borwein's quotients with s = X_k - X_{k-1} and
    y = T_k - T_{k-1}, on the tangent term alone (T = V - omega N, one n x p x p product:
    the normal term, which does not scale with f, stays out of y), chosen by ABBmin
    (Frassoldati, Zanghirati & Zanni 2008): the long step <s,s>/<s,y> where
    <s,y>^2 >= tau <s,s><y,y> (s near an eigenvector of the curvature), else the smallest
    short step <s,y>/<y,y> of the last ``memory``; ||s||/||y|| where <s,y> <= 0 (as
    ``BarzilaiBorwein``). ABBmin rather than alternating long and short steps: brockett(200,
    20) from four starts reached tol 1e-8 in 2,178-3,099 iterations against 5,541-7,397 (one
    not within 8,000). The first request is sqrt(eps) / ||T||, a tangent move of sqrt(eps)
    (the safe region's radius). The safe step lemma (Ablin et al. 2024) then bounds eta with
    omega_k (``Constraint.safe_bound``). Where it shortens eta, the constraint's exact test
    is taken instead where it has one (``Constraint.safe_step_exact``; on St(n, p): the
    request where ||h|| after it and the whole normal step is <= max(eps, ||h(X_k)||), else
    the first root of that quartic, from p x p work). The lemma bounds h by norms alone and
    stops short, by about 3x on linear(2000, 100), whose run to gap 1e-6 took 31 iterations
    with the lemma and takes 17-18 with the exact test (four starts). Else omega_k is raised
    to keep the normal step whole and the lemma's bound is taken again; the restoring step
    applies where the lemma says nothing (||h|| >= 1).

    Every quantity is scale-free: under f -> s f, T -> s T, eta_k -> eta_k / s and
    omega_k -> s omega_k, so the iterates are the same (to rounding) whatever s; for s a power
    of two and omega scaled with f, bit for bit (tests/core/test_defaults.py). Algorithm 1's
    stopping test ||grad|| + ||h|| <= tol is absolute, so a cost 1e3 times larger still needs
    more iterations to reach the same tol.

    On momentum's field (``StepContext.T``) the quotients read the cost's tangent term and
    the step is divided by the buffer's gain 1 / (1 - gamma), so that the buffer's steady move
    is the step measured; the safe step then bounds the move along the buffer. (On the
    buffer's own differences brockett(20, 4) ran 5,000 iterations with ||grad|| 0.8-16 at
    gamma 0.5-0.9; on T's it converges in 300-490. Momentum does not make these steps faster:
    153 iterations at gamma = 0.)

    A field that is not a landing field (the retractions', the penalty's) gets
    ``BarzilaiBorwein``'s step.
    """

    eps: float = SAFE_EPS
    memory: int = 3
    tau: float = 0.8

    def __post_init__(self) -> None:
        check_eps(self.eps)

    def __call__(self, ctx: StepContext, state: dict) -> float | Step:
        omega, H = float(ctx.omega), ctx.H
        if not ctx.landing or omega == 0 or H is None:
            return BarzilaiBorwein(eps=self.eps)(ctx, state)
        X, constraint, d, eps = ctx.X, ctx.constraint, float(ctx.d), self.eps
        N = constraint.normal_term(X, H)
        if omega == 1.0:  # V - N is V + (-1 N) exactly: one pass fewer, the same values
            T = _difference(ctx.V, N, state, "T")
        else:
            T = np.multiply(N, -omega, out=_scratch(state, "T", X))
            T += ctx.V  # T = V - omega N
        # ||T|| as the solver formed it (from G alone: it scales with f exactly), squared by a
        # product, which is correctly rounded: x ** 2 calls libm's pow, which need not be, and
        # (2^k x) ** 2 can then differ from 4^k x ** 2 in the last bit (the iterates of f and
        # 2^k f would part)
        norm = ctx.tangent_norm
        tangent2 = float(norm) * float(norm) if norm is not None else float(np.vdot(T, T))
        normal2 = float(np.vdot(N, N))
        # a tangent term within the rounding of V - omega N is no direction (St(1, 1), whose
        # tangent space is {0}; a cost so small that V holds none of it while ||h|| is large):
        # the normal step alone, until N is small enough to let T through. Taken as one, its
        # step eta ~ 1/||T|| moved X by O(1) along rounding.
        floor = 16.0 * EPS * max(omega, 1.0)
        if tangent2 <= floor * floor * normal2:
            T.fill(0.0)
            tangent2 = 0.0
        # no tangent term: only eta omega_k matters; the last step keeps eta scale-free
        eta = math.sqrt(eps / tangent2) if tangent2 > 0 else state.get("eta", 1.0)
        # the quotients read the cost's tangent term (momentum's buffer: ``ctx.T``, ``gain``)
        Tq = T if ctx.T is None else ctx.T
        T_prev = state.get("T_prev")
        if T_prev is not None:
            s, y = _difference(X, state["X"], state, "s"), _difference(Tq, T_prev, state, "y")
            sy = float(np.vdot(s, y))
            ss, yy = float(np.vdot(s, s)), float(np.vdot(y, y))
            if sy > 0:
                shorts = state["shorts"]
                shorts.append(sy / yy)
                del shorts[:-self.memory]
                # ABBmin: the long step where s is near an eigenvector of the curvature
                # (short / long near 1), else the shortest recent short step
                eta = (min(shorts) if sy * sy < self.tau * ss * yy else ss / sy) / ctx.gain
            elif ss > 0 and yy > 0:  # negative curvature along s (near a saddle)
                eta = math.sqrt(ss / yy) / ctx.gain
        else:
            state["shorts"] = []
        if ctx.T is None:
            state["X"], state["T"], state["T_prev"] = X, T_prev, T  # swap the two buffers
        else:  # the method's array, which the scratch buffers must not overwrite
            state["X"], state["T_prev"] = X, ctx.T
        c = float(constraint.scale(X, H))
        normal_step = 0.5 * min(omega, 1.0)
        safe_bound = constraint.safe_bound
        w = normal_step / (eta * c)
        b = float(safe_bound(X, H, d, tangent2 + w * w * normal2, w, eps))
        # where the lemma cuts the step, the exact bound in p x p work (St(n, p)): two
        # products on those steps only, none in the tail, where BB's steps are short
        exact = (constraint.safe_step_exact(X, H, T, normal_step / c, max(eps, d), eta)
                 if not math.isnan(b) and eta > b else math.nan)
        if not math.isnan(exact):
            eta = exact
            w = normal_step / (eta * c)
        elif not math.isnan(b) and eta > b:
            eta = b  # valid with w: eta w c = normal_step b / eta < normal_step
            w1 = normal_step / (eta * c)  # the normal step kept whole, if the bound allows
            b1 = float(safe_bound(X, H, d, tangent2 + w1 * w1 * normal2, w1, eps))
            if not math.isnan(b1):
                eta, w = min(eta, b1), w1
        if math.isnan(b):  # ||h|| >= 1: the restoring step along the field taken
            Vw = constraint.add_normal(np.array(ctx.V), X, H, w - omega, N)
            eta = float(safe_step(X, Vw, d, w, eta, eps, constraint, H))
        state["eta"] = eta
        return Step(eta, w, N, T)


def _scratch(state: dict, key: str, like: Array) -> Array | None:
    """A work array shaped like ``like``, kept in a rule's per-run ``state`` under ``key`` and
    overwritten at every call: BB's differences s and y are used within the call only, and
    writing them into the same arrays spares an n x p allocation each (large fresh arrays
    come from the system as new pages, whose faults can cost more than the subtraction).
    None (a ufunc's ``out`` then allocates) below ``_FRESH`` entries: numpy serves such
    arrays from its cache of small blocks, faster than this bookkeeping."""
    if like.size < _FRESH:
        return None
    buf = state.get(key)
    if buf is None or buf.shape != like.shape or buf.dtype != like.dtype:
        buf = state[key] = np.empty_like(like)
    return buf


_FRESH = 128  # numpy caches data blocks up to 1 KiB (128 float64) for reuse


def _difference(a: Array, b: Array, state: dict, key: str) -> Array:
    """a - b, written into the work array ``_scratch(state, key, a)`` where there is one."""
    if a.size < _FRESH:
        return a - b
    return np.subtract(a, b, out=_scratch(state, key, a))

STEP_RULES: dict[str, Callable[[float], StepRule]] = {
    "safe": lambda eta: Safe(eta=eta),
    "constant": lambda eta: Constant(eta=eta),
    "armijo": lambda eta: Armijo(eta0=eta),
    "bb": lambda eta: BarzilaiBorwein(),
    "scalefree": lambda eta: ScaleFree(),
}
"""The step rules by name, each built from one step size eta: the cap of the safe step, the
constant step, Armijo's first trial; Barzilai-Borwein and the scale-free default (``None``,
:class:`ScaleFree`) need none (``USES_ETA``)."""

USES_ETA: dict[str, bool] = {name: name not in ("bb", "scalefree") for name in STEP_RULES}


def make_step_rule(name: str, eta: float) -> StepRule:
    """The rule ``name`` of STEP_RULES with step size eta where it takes one."""
    if name not in STEP_RULES:
        raise ValueError(f"unknown step rule {name!r}; choose one of {', '.join(STEP_RULES)}")
    return STEP_RULES[name](float(eta))


BY_NAME: dict[str, Callable[[], StepRule]] = {
    "safe": Safe, "armijo": Armijo, "bb": BarzilaiBorwein, "scalefree": ScaleFree}
"""The rules a bare name builds with their defaults (``as_step_rule``): a constant step is
its number."""


def as_step_rule(step: float | str | StepRule | None) -> StepRule:
    """A number is a constant step; a name of ``BY_NAME`` that rule with its defaults ("safe",
    "armijo", "bb", "scalefree", as the app names them); None is the default rule
    (:class:`ScaleFree`: BB steps on the tangent term, the normal weight following the step,
    made safe)."""
    if step is None:
        return ScaleFree()
    if isinstance(step, str):
        if step not in BY_NAME:
            raise ValueError(f"unknown step rule {step!r}: give one of {', '.join(BY_NAME)}, a "
                             "number (a constant step), a rule object or None (the default)")
        return BY_NAME[step]()
    if isinstance(step, int | float | np.floating | np.integer):
        return Constant(float(step))
    if callable(step):
        return step
    raise ValueError(f"step must be a positive number, a step rule's name or object, or None, "
                     f"got {step!r}")
