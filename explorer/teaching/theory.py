"""The paper's propositions, checked numerically at a point X of R_*^{n x p}.

Goyens, Absil & Feppon, *Geometric design of the tangent term in landing algorithms for
orthogonality constraints* (``shared/paper/landing-beta-metric.tex``). Each ``check_*`` function
evaluates one statement of the paper with the functions of :mod:`landing_core.geometry` at a
given X, on random test matrices drawn from ``rng``, and returns a :class:`Check`: the relative
residual of the statement (0 in exact arithmetic) and the threshold it must stay under.

Pure numerics (no streamlit). No n x n matrix is formed: the tangent samples of the form W X,
W in Skew(n), use a low-rank W = A B^T - B A^T applied as A (B^T X) - B (A^T X); everything else
is n x p or p x p work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from landing_core import geometry as geo
from landing_core.problems import Problem, fd_directional, initial_point, nearest_stiefel

Array = np.ndarray

__all__ = [
    "EXACT_TOL",
    "FD_TOL",
    "BetaBlocks",
    "Check",
    "beta_blocks",
    "check_grad_blocks",
    "check_grad_closed_form",
    "check_grad_half",
    "check_grad_riemannian",
    "check_grad_stiefel",
    "check_metric_pullback",
    "check_nabla_fd",
    "check_nabla_identity",
    "check_normal_space",
    "check_normal_term_fd",
    "check_proj_idempotent",
    "check_proj_orthogonal",
    "check_proj_tangent",
    "check_propositions",
    "check_tangent_space",
    "fd_directional",
    "normal_block",
    "random_point",
    "rotation_block",
    "tangent_samples",
]

EXACT_TOL = 1e-12
"""Pass mark for identities that hold exactly: relative residual, i.e. a few hundred ulps."""
FD_TOL = 1e-6
"""Pass mark for identities checked against central finite differences (residual ~1e-8)."""
SAMPLES = 4
"""How many random tangent / normal vectors a 'for all xi' statement is tested on."""


@dataclass(frozen=True)
class Check:
    """One statement of the paper and its numerical residual at the current X.

    ``key`` identifies the statement (the page places each check beside its formula); ``latex``
    is the identity being measured; ``residual`` is relative (dimensionless), ``passed`` means
    ``residual <= threshold`` (False for NaN); ``detail`` says what the residual measures.
    """

    key: str
    name: str
    latex: str
    residual: float
    threshold: float
    detail: str = ""
    passed: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "residual", float(self.residual))
        object.__setattr__(self, "passed", bool(self.residual <= self.threshold))

    @property
    def finite_difference(self) -> bool:
        """Whether the residual compares against finite differences (looser threshold)."""
        return self.threshold >= FD_TOL


# ----------------------------------------------------------------------------- helpers


def _norm(A: Array) -> float:
    return float(np.linalg.norm(A))


def _inner(A: Array, B: Array) -> float:
    return float(np.sum(A * B))


def _ratio(num: float, den: float) -> float:
    """num / den, or num itself when the scale den vanishes (then 'relative' means absolute)."""
    return num / den if den > 0 else num


def _grad_scale(X: Array, G: Array, beta: float) -> float:
    """The size of the terms of grad_beta f(X), (1 + 1/beta) ||G|| ||X^T X||: the scale that
    relative residuals of gradient formulas refer to (||grad_beta f|| itself can vanish, e.g. for
    PCA on the manifold)."""
    return (1.0 + 1.0 / beta) * _norm(G) * _norm(geo.gram(X))


def _gram_solve(X: Array, B: Array) -> Array:
    """M^{-1} B for M = X^T X (a p x p solve)."""
    return np.linalg.solve(geo.gram(X), B)


def _g_norm(X: Array, xi: Array, beta: float) -> float:
    """The g^beta_X-norm sqrt(g^beta_X(xi, xi)), eq. (beta_metric)."""
    return math.sqrt(max(float(geo.beta_metric(X, xi, xi, beta)), 0.0))


def random_point(n: int, p: int, distance: float, seed: int) -> Array:
    """A random full-rank X = U diag(s) V^T at Frobenius distance ``distance`` from St(n, p)
    (``problems.initial_point``): with distance > 0, M = X^T X != I and the formulas are
    exercised in R_*^{n x p}, not only on the manifold."""
    return initial_point(n, p, distance, seed)


def tangent_samples(X: Array, rng: np.random.Generator, count: int = SAMPLES) -> list[Array]:
    """Random xi in T_X St_{X^T X} by the second description, eq. (tgtspace2):
    xi = X (X^T X)^{-1} Omega + Delta, Omega in Skew(p), Delta^T X = 0.

    Delta = E - X M^{-1} X^T E is built directly (not with ``proj_tangent``), so the checks of the
    projection do not rely on the projection itself. Delta = 0 when n = p (span(X) is everything),
    so for n = p = 1, where the tangent space is {0}, the samples are exact zeros.
    """
    n, p = X.shape
    out = []
    for _ in range(count):
        Omega = geo.skew(rng.standard_normal((p, p)))
        E = rng.standard_normal((n, p))
        Delta = E - X @ _gram_solve(X, X.T @ E) if n > p else np.zeros_like(X)
        out.append(X @ _gram_solve(X, Omega) + Delta)
    return out


def _skew_times_X(X: Array, rng: np.random.Generator, rank: int = 2) -> Array:
    """W X for a random W in Skew(n), eq. (3form_tangent), without forming W:
    W = A B^T - B A^T (rank <= 2 rank), so W X = A (B^T X) - B (A^T X). Skew(1) = {0}: for n = 1
    the sample is an exact zero (not rounding noise)."""
    n = X.shape[0]
    if n == 1:
        return np.zeros_like(X)
    A = rng.standard_normal((n, rank))
    B = rng.standard_normal((n, rank))
    return A @ (B.T @ X) - B @ (A.T @ X)


def _normal_samples(X: Array, rng: np.random.Generator, count: int = SAMPLES) -> list[Array]:
    """Random U = X (X^T X)^{-1} S, S in Sym(p): the claimed normal space (Prop. normal space)."""
    p = X.shape[1]
    return [X @ _gram_solve(X, geo.sym(rng.standard_normal((p, p)))) for _ in range(count)]


# ----------------------------------------------------------------------------- the tangent space


def check_tangent_space(X: Array, rng: np.random.Generator) -> Check:
    """Prop. (tangent space): the descriptions (tgtspace2) and (3form_tangent) lie in (tgtspace1).

    Residual: max over samples xi of ||xi^T X + X^T xi|| / (||xi|| ||X||).
    """
    samples = tangent_samples(X, rng) + [_skew_times_X(X, rng) for _ in range(SAMPLES)]
    residual = max(_ratio(_norm(xi.T @ X + X.T @ xi), _norm(xi) * _norm(X)) for xi in samples)
    return Check("tangent_space", "three descriptions agree",
                 r"\xi^\top X + X^\top \xi = 0 \ \text{for}\ \xi = X M^{-1}\Omega + \Delta"
                 r"\ \text{and}\ \xi = WX",
                 residual, EXACT_TOL,
                 f"max over {2 * SAMPLES} samples of ‖ξᵀX + Xᵀξ‖ / (‖ξ‖‖X‖)")


# ----------------------------------------------------------------------------- the beta-metric


def check_metric_pullback(X: Array, beta: float, rng: np.random.Generator) -> Check:
    """Eq. (beta_metric): g^beta_X is the pullback of the Stiefel beta-metric (betametric_stiefel)
    through Phi^{-1}: Y -> Y M^{-1/2}; at Q = X M^{-1/2} in St(n, p),
    g^beta_X(xi, zeta) = < xi M^{-1/2}, (I - (1 - beta) Q Q^T) zeta M^{-1/2} >.

    M^{-1/2} from the eigendecomposition of the p x p Gram matrix. Residual relative to
    max(1, beta) ||xi M^{-1/2}|| ||zeta M^{-1/2}|| (a bound on the right-hand side).
    """
    lam, V = np.linalg.eigh(geo.gram(X))
    M_inv_half = (V / np.sqrt(lam)) @ V.T
    Q = X @ M_inv_half
    residual = 0.0
    for _ in range(SAMPLES):
        xi, zeta = rng.standard_normal(X.shape), rng.standard_normal(X.shape)
        a, b = xi @ M_inv_half, zeta @ M_inv_half  # D Phi^{-1}(X)[xi] = xi M^{-1/2}
        pulled = _inner(a, b - (1.0 - beta) * Q @ (Q.T @ b))
        scale = max(1.0, beta) * _norm(a) * _norm(b)
        residual = max(residual, _ratio(abs(float(geo.beta_metric(X, xi, zeta, beta)) - pulled),
                                        scale))
    return Check("metric_pullback", "pullback of the Stiefel β-metric",
                 r"g^\beta_X(\xi,\zeta) = g^\beta_{Q}\big(\xi M^{-1/2}, \zeta M^{-1/2}\big),"
                 r"\ Q = X M^{-1/2}",
                 residual, EXACT_TOL, "max over samples, relative to max(1, β)‖ξM⁻¹ᐟ²‖‖ζM⁻¹ᐟ²‖")


def _max_g_ratio(X: Array, beta: float, xis: list[Array], U: Array, scale: float) -> float:
    """max over xi of |g^beta(xi, U)| / (||xi||_beta scale): how far the directions xi are from
    g^beta-orthogonal to U, relative to ``scale`` (||U||_beta for a cosine)."""
    return max(_ratio(abs(float(geo.beta_metric(X, xi, U, beta))), _g_norm(X, xi, beta) * scale)
               for xi in xis)


def check_normal_space(X: Array, beta: float, rng: np.random.Generator) -> Check:
    """Prop. (normal space): X (X^T X)^{-1} S, S symmetric, is g^beta-orthogonal to T_X St_{X^T X}.

    Residual: max over samples U, xi of |g^beta(xi, U)| / (||xi||_beta ||U||_beta) (a cosine).
    """
    tangents = tangent_samples(X, rng)
    residual = max(_max_g_ratio(X, beta, tangents, U, _g_norm(X, U, beta))
                   for U in _normal_samples(X, rng))
    return Check("normal_space", "normal space ⟂ tangent space",
                 r"g^\beta_X\big(\xi,\ X M^{-1} S\big) = 0", residual, EXACT_TOL,
                 "max |cos| in gᵝ between XM⁻¹S and tangent ξ")


# ----------------------------------------------------------------------------- the projection


def check_proj_tangent(X: Array, rng: np.random.Generator) -> Check:
    """Eq. (proj_beta) lands in T_X St_{X^T X}: ||X^T P + P^T X|| / (||X|| ||Z||), P = Proj(Z)."""
    Z = rng.standard_normal(X.shape)
    P = geo.proj_tangent(X, Z)
    return Check("proj_tangent", "Proj(Z) is tangent",
                 r"X^\top P + P^\top X = 0,\ P = \mathrm{Proj}(Z)",
                 _ratio(_norm(X.T @ P + P.T @ X), _norm(X) * _norm(Z)), EXACT_TOL,
                 "‖XᵀP + PᵀX‖ / (‖X‖‖Z‖)")


def check_proj_orthogonal(X: Array, beta: float, rng: np.random.Generator) -> Check:
    """Eq. (projection): g^beta(xi, Z - Proj(Z)) = 0 for all tangent xi.

    Residual: max over tangent samples xi of |g^beta(xi, Z - Proj Z)| / (||xi||_beta ||Z||_beta).
    """
    Z = rng.standard_normal(X.shape)
    R = Z - geo.proj_tangent(X, Z)
    residual = _max_g_ratio(X, beta, tangent_samples(X, rng), R, _g_norm(X, Z, beta))
    return Check("proj_orthogonal", "Proj is gᵝ-orthogonal",
                 r"g^\beta_X\big(\xi,\ Z - \mathrm{Proj}(Z)\big) = 0", residual, EXACT_TOL,
                 "max over tangent ξ of |gᵝ(ξ, Z − Proj Z)| / (‖ξ‖ᵦ‖Z‖ᵦ)")


def check_proj_idempotent(X: Array, rng: np.random.Generator) -> Check:
    """Eq. (proj_beta) is a projection: ||Proj(Proj Z) - Proj Z|| / ||Z||."""
    Z = rng.standard_normal(X.shape)
    P = geo.proj_tangent(X, Z)
    return Check("proj_idempotent", "Proj is idempotent",
                 r"\mathrm{Proj}(\mathrm{Proj}(Z)) = \mathrm{Proj}(Z)",
                 _ratio(_norm(geo.proj_tangent(X, P) - P), _norm(Z)), EXACT_TOL,
                 "‖Proj(Proj Z) − Proj Z‖ / ‖Z‖")


# ----------------------------------------------------------------------------- the gradients


def check_nabla_identity(problem: Problem, X: Array, beta: float,
                         rng: np.random.Generator) -> Check:
    """Eq. (unconstrained_gradient) for eq. (nabla_beta), exactly: g^beta(nabla_beta f, Z) = <G, Z>.

    Residual |g^beta(nabla_beta f(X), Z) - <G, Z>| / (max(1, 1/beta) ||G|| ||Z||) (nabla_beta has
    a term of size (1 - beta)/beta ||G M||, cancelled by the metric).
    """
    G = problem.egrad(X)
    Z = rng.standard_normal(X.shape)
    lhs = float(geo.beta_metric(X, geo.nabla_beta(X, G, beta), Z, beta))
    return Check("nabla_identity", "metric identity (exact)",
                 r"g^\beta_X(\nabla_\beta f(X), Z) = \langle \nabla_E f(X), Z\rangle",
                 _ratio(abs(lhs - _inner(G, Z)), max(1.0, 1.0 / beta) * _norm(G) * _norm(Z)),
                 EXACT_TOL, "|gᵝ(∇ᵦ f, Z) − ⟨G, Z⟩| / (max(1, 1/β)‖G‖‖Z‖)")


def check_nabla_fd(problem: Problem, X: Array, beta: float, rng: np.random.Generator) -> Check:
    """Eq. (unconstrained_gradient) for eq. (nabla_beta) against the cost itself:
    g^beta(nabla_beta f(X), Z) = Df(X)[Z], Df from central finite differences of f.

    A finite-difference residual: ~1e-8 relative to ||G|| ||Z||, not machine precision.
    """
    G = problem.egrad(X)
    Z = rng.standard_normal(X.shape)
    lhs = float(geo.beta_metric(X, geo.nabla_beta(X, G, beta), Z, beta))
    fd = fd_directional(problem.cost, X, Z)
    return Check("nabla_fd", "metric identity (finite differences)",
                 r"g^\beta_X(\nabla_\beta f(X), Z) = \mathrm{D}f(X)[Z]",
                 _ratio(abs(lhs - fd), _norm(G) * _norm(Z)), FD_TOL,
                 "|gᵝ(∇ᵦ f, Z) − Df(X)[Z]| / (‖G‖‖Z‖), Df by central differences of f")


def check_grad_closed_form(problem: Problem, X: Array, beta: float) -> Check:
    """Eq. (grad_beta): Proj(nabla_beta f(X)) equals the closed form ``geometry.grad_beta``.

    Residual ||Proj(nabla_beta f) - grad_beta f|| relative to the size of the terms,
    (1 + 1/beta) ||G|| ||M||.
    """
    G = problem.egrad(X)
    projected = geo.proj_tangent(X, geo.nabla_beta(X, G, beta))
    return Check("grad_closed_form", "Proj(∇ᵦ f) = closed form",
                 r"\mathrm{Proj}(\nabla_\beta f(X)) = \mathrm{grad}_\beta f(X)",
                 _ratio(_norm(projected - geo.grad_beta(X, G, beta)), _grad_scale(X, G, beta)),
                 EXACT_TOL, "‖Proj(∇ᵦ f) − gradᵦ f‖ / ((1 + 1/β)‖G‖‖M‖)")


def check_grad_riemannian(problem: Problem, X: Array, beta: float,
                          rng: np.random.Generator) -> Check:
    """Eq. (riemannian_gradient): grad_beta f(X) is tangent and g^beta(xi, grad_beta f) = <G, xi>
    for every tangent xi. Residual: the worst of ||X^T g + g^T X|| / (||X|| s), s the size of the
    terms of g (see ``check_grad_closed_form``), and |g^beta(xi, g) - <G, xi>| / (||G|| ||xi||)
    over samples."""
    G = problem.egrad(X)
    g = geo.grad_beta(X, G, beta)
    tangency = _ratio(_norm(X.T @ g + g.T @ X), _norm(X) * _grad_scale(X, G, beta))
    identity = max(
        _ratio(abs(float(geo.beta_metric(X, xi, g, beta)) - _inner(G, xi)), _norm(G) * _norm(xi))
        for xi in tangent_samples(X, rng)
    )
    return Check("grad_riemannian", "defining identity of gradᵦ",
                 r"g^\beta_X(\xi, \mathrm{grad}_\beta f(X)) = \mathrm{D}f(X)[\xi]\ "
                 r"\forall \xi \in T_X",
                 max(tangency, identity), EXACT_TOL,
                 "tangency of gradᵦ and |gᵝ(ξ, gradᵦ f) − ⟨G, ξ⟩| / (‖G‖‖ξ‖)")


def check_grad_half(problem: Problem, X: Array) -> Check:
    """Prop. (grad_beta), beta = 1/2: grad_{1/2} f(X) = 2 skew(G X^T) X (canonical metric).

    2 skew(G X^T) X is ``2 relative_gradient`` (computed as G M - X G^T X, no n x n matrix).
    """
    G = problem.egrad(X)
    g = geo.grad_beta(X, G, 0.5)
    return Check("grad_half", "β = ½: 2 skew(GXᵀ)X",
                 r"\mathrm{grad}_{1/2} f(X) = 2\,\mathrm{skew}(G X^\top) X",
                 _ratio(_norm(g - 2.0 * geo.relative_gradient(X, G)), _grad_scale(X, G, 0.5)),
                 EXACT_TOL, "‖grad_½ f − 2 skew(GXᵀ)X‖ / (3‖G‖‖M‖)")


# ----------------------------------------------------------------------------- what beta does


def rotation_block(X: Array, G: Array) -> Array:
    """R = X M^{-1} skew(X^T G M), the part of grad_beta f(X) in span(X) (before the 1/beta).

    From the proof of Prop. (grad_beta): grad_beta f = (1/beta) R + N. On St(n, p) (M = I),
    R = X skew(X^T G). Zero for p = 1 (a 1 x 1 skew matrix is 0).
    """
    M = geo.gram(X)
    return X @ _gram_solve(X, geo.skew(X.T @ G @ M))


def normal_block(X: Array, G: Array) -> Array:
    """N = (I - X M^{-1} X^T) G M, the part of grad_beta f(X) orthogonal to span(X); beta-free.

    On St(n, p), N = (I - X X^T) G. Computed as G M - X (M^{-1} (X^T G M)).
    """
    GM = G @ geo.gram(X)
    return GM - X @ _gram_solve(X, X.T @ GM)


def check_grad_blocks(problem: Problem, X: Array, beta: float) -> Check:
    """Proof of Prop. (grad_beta): grad_beta f(X) = (1/beta) X M^{-1} skew(X^T G M)
    + (I - X M^{-1} X^T) G M. Residual relative to (1 + 1/beta) ||G|| ||M||."""
    G = problem.egrad(X)
    g = geo.grad_beta(X, G, beta)
    blocks = rotation_block(X, G) / beta + normal_block(X, G)
    return Check("grad_blocks", "split into two blocks (at X)",
                 r"\mathrm{grad}_\beta f = \tfrac{1}{\beta} X M^{-1}\mathrm{skew}(X^\top G M)"
                 r" + (I - X M^{-1} X^\top) G M",
                 _ratio(_norm(g - blocks), _grad_scale(X, G, beta)), EXACT_TOL,
                 "‖gradᵦ f − (R/β + N)‖ / ((1 + 1/β)‖G‖‖M‖)")


def check_grad_stiefel(problem: Problem, X: Array, beta: float) -> Check:
    """On St(n, p) (M = I) the closed form (grad_beta) reduces to
    grad_beta f(Q) = (1/beta) Q skew(Q^T G) + (I - Q Q^T) G; checked at the polar factor Q of X.
    """
    Q = nearest_stiefel(X)
    G = problem.egrad(Q)
    g = geo.grad_beta(Q, G, beta)
    A = Q.T @ G
    stiefel = Q @ geo.skew(A) / beta + (G - Q @ A)
    return Check("grad_stiefel", "on St(n, p): the M = I case (at Q)",
                 r"\mathrm{grad}_\beta f(Q) = \tfrac{1}{\beta} Q\,\mathrm{skew}(Q^\top G)"
                 r" + (I - QQ^\top) G",
                 _ratio(_norm(g - stiefel), _grad_scale(Q, G, beta)), EXACT_TOL,
                 "at the polar factor Q of X, relative to (1 + 1/β)‖G‖‖QᵀQ‖")


@dataclass(frozen=True)
class BetaBlocks:
    """Frobenius norms of the two blocks of grad_beta f(X) over a grid of beta.

    ``rotation[i] = ||R|| / betas[i]`` (the block in span(X), scaled by 1/beta), ``normal[i] =
    ||N||`` (orthogonal to span(X), beta-free), and ``total[i] = ||grad_beta f(X)||`` computed
    directly with ``geometry.grad_beta``; the blocks are Frobenius-orthogonal (X^T N = 0), so
    total^2 = rotation^2 + normal^2.
    """

    betas: Array
    rotation: Array
    normal: Array
    total: Array


def beta_blocks(X: Array, G: Array, betas: Array) -> BetaBlocks:
    """The data of the 'what beta does' figure at X (see :class:`BetaBlocks`)."""
    betas = np.asarray(betas, dtype=float)
    r, nrm = _norm(rotation_block(X, G)), _norm(normal_block(X, G))
    total = np.array([_norm(geo.grad_beta(X, G, float(b))) for b in betas])
    return BetaBlocks(betas, r / betas, np.full_like(betas, nrm), total)


# ----------------------------------------------------------------------------- Algorithm 1


def check_normal_term_fd(X: Array, rng: np.random.Generator) -> Check:
    """Eq. (3lio6) and its factor: for N = 1/2 ||h||^2 (eq. N), DN(X)[Z] = 2 <X(X^T X - I), Z>.

    The paper's normal term X(X^T X - I) is half the gradient of N; Algorithm 1 absorbs the 2 in
    omega. Residual |DN_fd - 2 <X h, Z>| / (2 ||Z|| max(||X h||, 1e-2 ||X||)), DN by central
    differences (the floor keeps the residual meaningful when X is on the manifold, h = 0).
    """
    Z = rng.standard_normal(X.shape)
    normal = geo.nabla_N(X)
    fd = fd_directional(geo.N, X, Z)
    half = _inner(normal, Z)
    scale = 2.0 * _norm(Z) * max(_norm(normal), 1e-2 * _norm(X))
    ratio = f"{fd / half:.6f}" if abs(half) > 1e-8 * scale else "undefined (X on the manifold)"
    return Check("normal_term_fd", "∇N = 2 X(XᵀX − I) (finite differences)",
                 r"\mathrm{D}\mathcal{N}(X)[Z] = 2\,\langle X(X^\top X - I_p), Z\rangle",
                 _ratio(abs(fd - 2.0 * half), scale), FD_TOL,
                 f"DN(X)[Z] / ⟨X(XᵀX − I), Z⟩ = {ratio}")


# ----------------------------------------------------------------------------- all of them


def check_propositions(problem: Problem, X: Array, beta: float,
                       rng: np.random.Generator) -> list[Check]:
    """Every check above at X for the given problem and beta, in the paper's order."""
    beta = float(beta)
    return [
        check_tangent_space(X, rng),
        check_metric_pullback(X, beta, rng),
        check_normal_space(X, beta, rng),
        check_proj_tangent(X, rng),
        check_proj_orthogonal(X, beta, rng),
        check_proj_idempotent(X, rng),
        check_nabla_identity(problem, X, beta, rng),
        check_nabla_fd(problem, X, beta, rng),
        check_grad_closed_form(problem, X, beta),
        check_grad_riemannian(problem, X, beta, rng),
        check_grad_half(problem, X),
        check_grad_blocks(problem, X, beta),
        check_grad_stiefel(problem, X, beta),
        check_normal_term_fd(X, rng),
    ]
