"""The paper's objects on R_*^{n x p}: constraint, infeasibility, metric, projections, gradients.

Names: ``N`` is the paper's infeasibility function N(X) = 1/2 ||h(X)||_F^2 and ``nabla_N`` its
normal term X(X^T X - I_p); ``infeasibility`` is ||h(X)||_F and ``stationarity`` is
||grad_1 f(X)||_F, the two numbers every result, plot and stopping rule reports, whatever the
method, its tangent term and beta.

Goyens, Absil & Feppon, *Geometric design of the tangent term in landing algorithms for
orthogonality constraints* (``shared/paper/landing-beta-metric.tex``).

Every function takes float64 arrays ``X`` of shape ``(n, p)`` or stacks ``(..., n, p)`` and
broadcasts over the leading axes; scalars such as ``beta`` may be arrays that broadcast against the
stack's leading axes. No n x n matrix is ever formed: ``X M^{-1} X^T Z`` is computed as
``X (M^{-1} (X^T Z))`` with the p x p Gram matrix ``M = X^T X`` factorized by Cholesky (``eigh``
for the Lyapunov equation of the Frobenius projection), never inverted.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import scipy.linalg

Array = np.ndarray

__all__ = [
    "frobenius_norm",
    "TANGENT_TERMS",
    "beta_metric",
    "dh",
    "grad_beta",
    "gram",
    "N",
    "h",
    "infeasibility",
    "LandingDirection",
    "LandingField",
    "landing_direction",
    "landing_field",
    "multiplier",
    "nabla_N",
    "nabla_beta",
    "nearest_stiefel",
    "per_run",
    "proj_euclidean",
    "proj_tangent",
    "qf",
    "relative_gradient",
    "riemannian_gradient_stiefel",
    "skew",
    "stationarity",
    "sym",
    "tangent_term",
]


def _t(A: Array) -> Array:
    """Transpose of the last two axes (works on stacks)."""
    return np.asarray(A).mT


@functools.cache
def _identity(p: int) -> Array:
    """I_p, built once per size (read-only: it is shared)."""
    eye = np.eye(p)
    eye.flags.writeable = False
    return eye


def per_run(beta: float | Array) -> float | Array:
    """A scalar or per-run array (shape (...,)), shaped to broadcast against stacks of matrices.

    A plain number stays a Python float: numpy's arithmetic on 0-d arrays costs microseconds per
    operation, which adds up in the solver's loop on small problems.
    """
    if isinstance(beta, float | int):
        return float(beta)
    return np.asarray(beta, dtype=float)[..., None, None]


def sym(A: Array) -> Array:
    """sym(A) = (A + A^T)/2 (paper, Notations)."""
    return 0.5 * (A + _t(A))


def skew(A: Array) -> Array:
    """skew(A) = (A - A^T)/2 (paper, Notations)."""
    return 0.5 * (A - _t(A))


def frobenius_norm(A: Array) -> float | Array:
    """||A||_F of one matrix as a Python float (np.linalg.norm's value, with less per-call
    overhead: the solver's loop takes several per iteration); of each matrix of a stack
    (..., n, p) as an array of shape (...)."""
    if A.ndim == 2:
        return math.sqrt(np.vdot(A, A))
    return np.linalg.norm(A, axis=(-2, -1))


def _frob_inner(A: Array, B: Array) -> Array:
    """<A, B> = tr(A^T B) over the last two axes (BLAS dot for a single pair)."""
    if A.ndim == 2 and B.ndim == 2:
        return np.vdot(A, B)
    return np.einsum("...ij,...ij->...", A, B)


def gram(X: Array) -> Array:
    """M = X^T X, the p x p Gram matrix (symmetric positive definite for full-rank X)."""
    return _t(X) @ X


_RANK_DEFICIENT = "XᵀX is not positive definite: X is rank-deficient (not of full rank p)"


def _cholesky(M: Array) -> Array:
    """Lower Cholesky factor of the Gram matrix; a clear error when X is rank-deficient."""
    try:
        return np.linalg.cholesky(M)
    except np.linalg.LinAlgError as err:
        raise np.linalg.LinAlgError(_RANK_DEFICIENT) from err


_posv = scipy.linalg.get_lapack_funcs("posv", dtype=np.float64)
# Up to this size one Gram matrix is solved by LAPACK called directly (``_gram_solve`` says
# why); scipy's OpenBLAS runs posv single-threaded below p = 32, so it does not contend with
# numpy's BLAS threads.
_SMALL_P = 24


def _one_blas_thread() -> bool:
    """Whether scipy's OpenBLAS runs one thread: the variables OpenBLAS reads when it loads
    (the first set of OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS, OMP_NUM_THREADS) say 1, or
    the machine has one CPU."""
    for name in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value:
            return value == "1"
    return os.cpu_count() == 1


# Every size goes to LAPACK's posv where scipy's OpenBLAS has no threads to contend with
# numpy's: at p = 100 it takes 0.2 ms where np.linalg.solve's LU takes 0.3 ms.
_POSV_ANY_P = _one_blas_thread()


def _gram_solve(M: Array, B: Array, definite: bool = False) -> Array:
    """M^{-1} B for the Gram matrix M = X^T X (never forms M^{-1}).

    One small matrix (p <= 24, the app's problems), or one matrix of any size where scipy's
    OpenBLAS runs one thread (``_POSV_ANY_P``): LAPACK posv called directly (Cholesky factor
    and solve, about 2.3 p^3 flops with p right-hand sides), since numpy.linalg's fixed
    per-call overhead would dominate the iteration at small sizes, and its LU costs more at
    large ones. Otherwise (and for stacks): numpy's Cholesky (the positive-definiteness check,
    p^3/3 flops), then one np.linalg.solve with M (LU, batched in C). numpy has no triangular
    solver, and two general solves with the factors would cost twice that one. This keeps
    every threaded BLAS call in numpy's OpenBLAS: scipy ships its own, whose idle threads spin
    after a call and slow numpy's next products down on a machine with few cores (at two
    threads, (2000, 100): numpy's four products took 13 ms after scipy's posv against 7 after
    np.linalg.solve, minimums of 60 rounds).

    ``definite``: the caller knows M is positive definite (``||M - I||_F < 1``: every
    eigenvalue of M lies in (0, 2)), so the Cholesky check is skipped for the larger sizes.
    """
    if M.ndim == 2 and B.ndim == 2 and (M.shape[0] <= _SMALL_P or _POSV_ANY_P):
        _, S, info = _posv(M, B, 1)  # potrf and potrs in one call: the same values
        if info > 0:
            raise np.linalg.LinAlgError(_RANK_DEFICIENT)
        return S
    if not definite:
        _cholesky(M)
    return np.linalg.solve(M, B)


def qf(A: Array) -> Array:
    """The Q factor of A = QR with the signs fixed so that diag(R) > 0 (unique for full rank)."""
    Q, R = np.linalg.qr(A)
    return Q * np.where(np.diagonal(R, axis1=-2, axis2=-1) < 0, -1.0, 1.0)[..., None, :]


def nearest_stiefel(X: Array) -> Array:
    """The polar factor U V^T of X: the nearest point of St(n, p) in the Frobenius norm."""
    U, _, Vt = np.linalg.svd(X, full_matrices=False)
    return U @ Vt


def h(X: Array) -> Array:
    """Constraint function h(X) = X^T X - I_p, eq. (h)."""
    return gram(X) - _identity(X.shape[-1])


def dh(X: Array, Z: Array) -> Array:
    """The differential of the constraint, Dh(X)[Z] = X^T Z + Z^T X (h(X) = X^T X - I_p).

    Zero exactly for Z tangent to the layer through X (X^T Z skew); for the normal term X h(X)
    it is 2 sym(M h(X)) = 2 (h + h^2) (M = I + h commutes with h).
    """
    XtZ = _t(X) @ Z
    return XtZ + _t(XtZ)


def multiplier(X: Array, G: Array) -> Array:
    """The Lagrange multiplier estimate Lambda(X) = sym(X^T G) of Ablin, Vary, Gao & Absil (2024)
    for h(X) = X^T X - I_p: at a critical point on St(n, p), G = X Lambda (the gradient of the
    Lagrangian f - 1/2 <Lambda, h> vanishes)."""
    return sym(_t(X) @ G)


def N(X: Array) -> Array:
    """The paper's infeasibility function N(X) = 1/2 ||h(X)||_F^2, eq. (N)."""
    H = h(X)
    return 0.5 * _frob_inner(H, H)


def infeasibility(X: Array) -> Array:
    """||h(X)||_F = ||X^T X - I_p||_F = sqrt(2 N(X)): the infeasibility that results report
    (``Result.infeasibility``) and Algorithm 1's stopping rule adds to ||grad||."""
    H = h(X)
    return np.sqrt(_frob_inner(H, H))


def nabla_N(X: Array) -> Array:
    """The normal field of Algorithm 1, X (X^T X - I_p), eq. (3lio6), which the paper writes
    nabla N.

    Mind the factor: the paper calls X(X^T X - I) the gradient of N = 1/2 ||h||^2, but that
    gradient is 2 X (X^T X - I); X (X^T X - I) is the gradient of 1/4 ||h||^2 (the convention of
    Ablin et al.). We keep the paper's *step*: the landing update uses omega * X (X^T X - I), so
    the factor 2 is absorbed in omega.
    """
    return X @ h(X)


def beta_metric(X: Array, xi: Array, zeta: Array, beta: float | Array) -> Array:
    """The beta-metric extended to R_*^{n x p}, eq. (beta_metric).

    g^beta_X(xi, zeta) = < xi, (I_n - (1 - beta) X M^{-1} X^T) zeta M^{-1} >,  M = X^T X.
    """
    M = gram(X)
    zeta_Minv = _t(_gram_solve(M, _t(zeta)))  # zeta M^{-1} (M symmetric)
    inner = _frob_inner(xi, zeta_Minv)
    # <xi, X M^{-1} X^T zeta M^{-1}> = <X^T xi, M^{-1} (X^T zeta M^{-1})>
    inner_proj = _frob_inner(_t(X) @ xi, _gram_solve(M, _t(X) @ zeta_Minv))
    return inner - (1.0 - np.asarray(beta, dtype=float)) * inner_proj


def proj_tangent(X: Array, Z: Array) -> Array:
    """g^beta-orthogonal projection onto T_X St_{X^T X}, eq. (proj_beta); independent of beta.

    Proj(Z) = X M^{-1} skew(X^T Z) + (I - X M^{-1} X^T) Z
            = Z + X M^{-1} (skew(X^T Z) - X^T Z) = Z - X M^{-1} sym(X^T Z).
    """
    return Z - X @ _gram_solve(gram(X), sym(_t(X) @ Z))


def nabla_beta(X: Array, G: Array, beta: float | Array) -> Array:
    """Unconstrained Riemannian gradient in the beta-metric, eq. (nabla_beta).

    nabla_beta f(X) = (I + (1 - beta)/beta X M^{-1} X^T) G M, with G the Euclidean gradient.
    """
    M = gram(X)
    GM = G @ M
    b = per_run(beta)
    return GM + ((1.0 - b) / b) * (X @ _gram_solve(M, _t(X) @ GM))


def grad_beta(X: Array, G: Array, beta: float | Array) -> Array:
    """Constrained Riemannian gradient on St_{X^T X} in the beta-metric, eq. (grad_beta).

    grad_beta f(X) = G M - 1/(2 beta) X G^T X + (1/(2 beta) - 1) X M^{-1} X^T G M
                   = G M + X K,  K = -1/(2 beta) A^T + (1/(2 beta) - 1) M^{-1} A M,  A = X^T G.
    Four products of size n x p x p (X^T X, X^T G, G M, X K); the rest is p x p work.
    """
    return _grad_beta(X, G, gram(X), beta)


def _grad_blocks(X: Array, G: Array, M: Array) -> tuple[Array, Array, Array]:
    """(G M, S, A^T) with A = X^T G and S = M^{-1} A M (M = X^T X already computed): every
    beta's gradient is grad_beta f(X) = G M + X K_beta, K_beta = (c - 1) S - c A^T with
    c = 1/(2 beta). Two n x p x p products (X^T G, G M) and one p x p solve; a plain tuple,
    since this is on the hot path of small live runs."""
    A = _t(X) @ G
    return G @ M, _gram_solve(M, A @ M), _t(A)


def _grad_beta(X: Array, G: Array, M: Array, beta: float | Array) -> Array:
    """grad_beta with the Gram matrix M = X^T X already computed."""
    GM, S, At = _grad_blocks(X, G, M)
    c = 0.5 / per_run(beta)
    return GM + X @ ((c - 1.0) * S - c * At)


def stationarity(X: Array, G: Array) -> float | Array:
    """The stationarity measure of every method: ||grad_1 f(X)||_F, eq. (grad_beta) at beta = 1.

    grad_1 f(X) = G M - 1/2 X G^T X - 1/2 X M^{-1} X^T G M = Proj_X(G M)  (M = X^T X, Proj of
    eq. (proj_beta)) is the Riemannian gradient of f on the layer St_{X^T X} through X in the
    beta = 1 metric, which extends St(n, p)'s embedded metric. Algorithm 1's stopping rule reads
    ``stationarity(X, G) + ||h(X)||_F <= tol`` for every method, tangent term and beta, so that
    "iterations to tol" compares like with like (the tangent term's own norm would not: its
    rotation block scales like 1/beta, and the relative gradient is 1/2 grad_{1/2}).

    Why grad_1: on St(n, p) (M = I) it is the embedded Riemannian gradient G - X sym(X^T G), so
    it measures there what ||grad f|| measures for Riemannian GD; and it vanishes exactly where
    f restricted to the layer is stationary (as every tangent term does). Its relation to
    ||grad f(Q)|| at the polar factor Q = X (X^T X)^{-1/2}, the nearest point of St(n, p): with
    d = ||h(X)||_F and L a Lipschitz constant of the Euclidean gradient between X and Q,

        | ||grad_1 f(X)||_F - ||grad f(Q)||_F |  <=  (L + (5/2 + d/4) ||G(X)||_F) d

    (write X = Q P with P = M^{1/2}: ||X - Q||_F = ||P - I||_F <= d, and grad_1 f(X) =
    G P^2 - 1/2 Q P G^T Q P - 1/2 Q Q^T G P^2 differs from G - Q sym(Q^T G) by at most
    (5/2 + d/4) ||G||_F d; the map G -> G - Q sym(Q^T G) is an orthogonal projection). So
    ||grad_1 f(X)|| + ||h(X)|| and ||grad f(Q)|| + ||h(X)|| are equivalent measures that agree to
    first order in ||h||; at convergence of a landing run ||h|| is far below tol (h contracts
    at rate 2 omega) and the two sums agree. grad_1 is cheaper than grad f(Q) (no polar
    factor, no second gradient evaluation) and than the Frobenius projection of G (no
    eigendecomposition): for the beta-metric it shares every product with the tangent term
    (``landing_direction``). A method on another constraint reports its analogue
    (``methods.Method.stationarity``).
    """
    return frobenius_norm(_grad_beta(X, G, gram(X), 1.0))


def proj_euclidean(X: Array, Z: Array) -> Array:
    """Frobenius-orthogonal projection onto T_X St_{X^T X}.

    Proj^E(Z) = Z - X S, S symmetric solving the Lyapunov equation M S + S M = X^T Z + Z^T X.
    Solved in the eigenbasis of M = V diag(lam) V^T: S = V [(V^T C V)_ij / (lam_i + lam_j)] V^T.
    """
    lam, V = np.linalg.eigh(gram(X))
    if np.any(lam <= 0):
        raise np.linalg.LinAlgError(_RANK_DEFICIENT)
    A = _t(X) @ Z
    C = _t(V) @ (A + _t(A)) @ V
    S = V @ (C / (lam[..., :, None] + lam[..., None, :])) @ _t(V)
    return Z - X @ S


def relative_gradient(X: Array, G: Array) -> Array:
    """skew(G X^T) X = 1/2 (G M - X G^T X): the tangent term of Ablin & Peyre / Ablin et al.

    Equals 1/2 grad_{1/2} f(X), without forming the n x n matrix G X^T.
    """
    return 0.5 * (G @ gram(X) - X @ (_t(G) @ X))


def riemannian_gradient_stiefel(X: Array, G: Array) -> Array:
    """Riemannian gradient on St(n, p) with the embedded (Euclidean) metric: G - X sym(X^T G).

    Meaningful for X on St(n, p) (the retraction baselines); equals grad_1 there.
    """
    return G - X @ sym(_t(X) @ G)


TANGENT_TERMS: dict[str, str] = {
    "beta": "β-metric gradient gradᵦ f (Goyens, Absil & Feppon)",
    "euclidean": "Frobenius projection of the Euclidean gradient",
    "relative": "relative gradient skew(G Xᵀ) X (Ablin & Peyré)",
}


def tangent_term(name: str) -> Callable[[Array, Array, float | Array], Array]:
    """The tangent term selected by name, as a function (X, G, beta) -> element of T_X St_{X^T X}.

    ``"beta"``: grad_beta f(X); ``"euclidean"``: proj_euclidean(X, G); ``"relative"``:
    skew(G X^T) X = 1/2 grad_{1/2} f(X). The last two ignore beta.
    """
    if name == "beta":
        return grad_beta
    if name == "euclidean":
        return lambda X, G, beta=None: proj_euclidean(X, G)
    if name == "relative":
        return lambda X, G, beta=None: relative_gradient(X, G)
    raise ValueError(f"unknown tangent term {name!r}; choose one of {sorted(TANGENT_TERMS)}")


class LandingField(NamedTuple):
    """The landing field of Algorithm 1 with its parts, in the order (tangent, V, H) shared with
    :class:`LandingDirection`: T the tangent term, V = T + omega X h(X), H = h(X)."""

    T: Array
    V: Array
    H: Array


class LandingDirection(NamedTuple):
    """The landing field with the norm of its tangent term, in the order (tangent, V, H) shared
    with :class:`LandingField`: ||T||_F (a float for one run, an array for a stack),
    V = T + omega X h(X), H = h(X); then ``stationarity``, ||grad_1 f(X)||_F (:func:`stationarity`,
    what the stopping rule reads; None where ``landing_direction`` was asked not to measure)."""

    tangent_norm: float | Array
    V: Array
    H: Array
    stationarity: float | Array | None


def landing_field(
    X: Array,
    G: Array,
    beta: float | Array = 0.5,
    omega: float | Array = 1.0,
    tangent: str = "beta",
) -> LandingField:
    """The landing field of Algorithm 1 (line 4) and its parts: (T, V, H).

    T is the tangent term (``tangent_term(tangent)``), H = h(X), and
    V = T + omega X (X^T X - I_p) (eq. (3lio6)), so that X_{k+1} = X_k - eta_k V. The Gram
    matrix is formed once; for the beta-metric the whole field costs five n x p x p products.
    """
    M = gram(X)
    H = M - _identity(X.shape[-1])
    T = _grad_beta(X, G, M, beta) if tangent == "beta" else tangent_term(tangent)(X, G, beta)
    return LandingField(T, T + X @ (per_run(omega) * H), H)


# ||H||_F^2 below this proves M = I + H positive definite, with a margin for rounding
_DEFINITE = 0.98
# ||grad_1 f|| from p x p work is used where its rounding error is at most about 8 times that
# of grad_1 f formed (landing_direction's docstring): max(1, c) ||V|| <= 8 ||grad_1 f||
_AMPLIFICATION2 = 1.0 / 64.0
# ||T||^2 = ||V||^2 - omega^2 <H, M H> keeps about 12 digits while ||T||^2 is at least this
# times omega^2 <H, M H> (12 of double precision's 16, less the 4 lost to cancellation); below,
# T is formed and its norm taken
_CANCELLATION = 1e-4


def landing_direction(
    X: Array,
    G: Array,
    beta: float | Array = 0.5,
    omega: float | Array = 1.0,
    tangent: str = "beta",
    *,
    measure: bool = True,
) -> LandingDirection:
    """The landing field V with the norm of its tangent term and the stationarity measure:
    (||T||_F, V, H, ||grad_1 f(X)||_F); ``measure=False``: (||T||_F, V, H, None), without it.

    For the beta-metric V = G M + X W, W = K + omega H, with grad_beta f(X) = T = G M + X K
    (eq. (grad_beta); c = 1/(2 beta), A = X^T G, B = A M, S = M^{-1} B, K = (c - 1) S - c A^T):
    the four n x p x p products X^T X, X^T G, G M, X W. K is formed as (c - 1) R - A^T with
    R = S - A^T = M^{-1} Q, Q = B - B^T (M A^T = B^T), one p x p solve with the skew Q: R is
    then as accurate as Q, which vanishes at a critical point, where S - A^T formed from S
    would carry the rounding of S. Both norms come from ||V||^2 and p x p work, with no fifth
    product:

    - ||T||^2 = ||V||^2 - omega^2 <H, M H>: X^T T is skew and H symmetric, so <T, X H> = 0.
    - ||grad_1 f||^2 = ||T||^2 - (c^2 - 1/4) <Q, R>: grad_1 f(X) = G M + X K_1 with
      K_1 = -(S + A^T)/2 (beta = 1), so T = grad_1 f + X E with E = K - K_1 = (c - 1/2) R;
      X^T grad_1 f = B + M K_1 = Q/2 (M S = B, M A^T = B^T), hence
      2 <grad_1 f, X E> + ||X E||^2 = (c - 1/2) <Q, R> + (c - 1/2)^2 <R, Q>, as M R = Q.

    Rounding: ||T||^2 = ||V||^2 - omega^2 <H, M H> keeps about 12 digits while ||T||^2 >=
    1e-4 omega^2 <H, M H>; below (the normal term dominates), T is formed and its norm taken.
    The p x p value of ||grad_1 f|| inherits the rounding of V: about eps (||G M|| + ||X|| ||W||)
    per entry against eps (||G M|| + ||X|| ||K_1||) for grad_1 f formed, and ||W|| / ||K_1|| is
    about max(1, c) near St(n, p) (S ~ A^T there), so its error is about max(1, c) ||V|| /
    ||grad_1 f|| times that of grad_1 f formed (||V|| >= ||grad_1 f|| when beta <= 1: the
    rotation block of T grows like c). Where max(1, c) ||V|| > 8 ||grad_1 f|| (beta small, or
    grad_1 f small against the normal term or T's rotation block), grad_1 f is formed (a fifth
    product) and its norm taken; so the measure is at most about 8 times further from the exact
    value than the direct formula's rounding, whatever beta
    (tests/core/test_stationarity_identity.py).
    Other tangent terms: from ``landing_field`` and :func:`stationarity`.

    ``measure=False`` is for a G that is an estimate (a minibatch's), whose stationarity measures
    nothing the run reports: at beta = 1/2 (a float, where K = -A^T) it saves the p x p solve
    behind R; V and ||T|| are the same numbers bit for bit (K = -A^T in both). Without the
    solve nothing checks that X^T X is positive definite.
    """
    if tangent != "beta":
        T, V, H = landing_field(X, G, beta, omega, tangent)
        return LandingDirection(np.sqrt(_frob_inner(T, T)), V, H,
                                stationarity(X, G) if measure else None)
    if X.ndim == 2:
        if not (isinstance(beta, float | int) and isinstance(omega, float | int)):
            beta, omega = float(np.reshape(beta, ())), float(np.reshape(omega, ()))
        return LandingDirection(*_direction_one(X, G, float(beta), float(omega), measure))
    Xt = _t(X)
    M = Xt @ X
    H = M - _identity(X.shape[-1])
    c = 0.5 / per_run(beta)
    A = Xt @ G
    At = _t(A)
    half = isinstance(c, float) and c == 1.0  # beta = 1/2: K = -A^T ((c - 1) R is 0 R = 0)
    if measure or not half:  # R for K, or for the measure
        B = A @ M
        Q = B - _t(B)
        # ||H||_F < 1 proves M = I + H positive definite (the safe region keeps a run there);
        # small sizes factor M anyway (LAPACK's posv)
        definite = M.shape[-1] > _SMALL_P and bool(np.all(_frob_inner(H, H) < _DEFINITE))
        R = _gram_solve(M, Q, definite)
    K = -At if half else (c - 1.0) * R - At
    GM = G @ M
    # omega = 1 (the default): omega H is H, one operation fewer on the hot path
    wH = H if isinstance(omega, float | int) and omega == 1.0 else per_run(omega) * H
    V = X @ (wH - At if half else K + wH)
    V += GM  # in place on the fresh product; GM stays for T = GM + X K where needed
    MwH = M @ wH
    VV = _frob_inner(V, V)
    normal2 = _frob_inner(wH, MwH)
    tangent2 = VV - normal2
    norm = np.sqrt(np.maximum(tangent2, 0.0))
    cancels = tangent2 < _CANCELLATION * normal2
    if np.any(cancels):
        T = GM[cancels] + X[cancels] @ K[cancels]
        norm[cancels] = np.sqrt(_frob_inner(T, T))
    if not measure:
        return LandingDirection(norm, V, H, None)
    shift = ((c * c - 0.25) * _frob_inner(Q, R)[..., None, None])[..., 0, 0]
    stat2 = tangent2 - shift
    stat = np.sqrt(np.maximum(stat2, 0.0))
    c1 = np.maximum(1.0, c)
    c2 = c1 * c1  # a product, correctly rounded (** is libm's pow: steps.ScaleFree)
    cancels = stat2 < (c2[..., 0, 0] if c2.ndim else c2) * _AMPLIFICATION2 * VV
    if np.any(cancels):  # grad_1 f = G M + X K_1, K_1 = -(S + A^T)/2 = -R/2 - A^T
        T1 = GM[cancels] - X[cancels] @ (0.5 * R[cancels] + At[cancels])
        stat[cancels] = np.sqrt(_frob_inner(T1, T1))
    return LandingDirection(norm, V, H, stat)


def _direction_one(X: Array, G: Array, beta: float, omega: float, measure: bool
                   ) -> tuple[float, Array, Array, float | None]:
    """``landing_direction`` for one run (2-D X, float beta and omega), as a plain tuple: the
    same formulas, with less per-call overhead for the live runs of small problems, whose
    iteration is mostly that overhead: ``ndarray.dot`` for the products (numpy's matmul, a
    ufunc, costs about twice as much per call on tiny matrices; for 2-D float64 arrays both
    call the same BLAS routine with the same arguments), Python floats throughout, and
    LAPACK's posv (Cholesky factor and solve in one call) for p <= 24 (any p where scipy's
    OpenBLAS runs one thread, ``_gram_solve``)."""
    Xt = X.T
    M = Xt.dot(X)
    p = M.shape[0]
    H = M - _identity(p)
    c = 0.5 / beta
    A = Xt.dot(G)
    At = A.T
    half = c == 1.0  # beta = 1/2: K = -A^T ((c - 1) R is 0 R = 0)
    if measure or not half:  # R for K, or for the measure
        B = A.dot(M)
        Q = B - B.T
        if p <= _SMALL_P or _POSV_ANY_P:
            _, R, info = _posv(M, Q, 1)
            if info > 0:
                raise np.linalg.LinAlgError(_RANK_DEFICIENT)
        else:  # ||H||_F < 1 proves M = I + H positive definite
            R = _gram_solve(M, Q, bool(np.vdot(H, H) < _DEFINITE))
    wH = H if omega == 1.0 else omega * H
    if half:
        K = -At
        V = X.dot(wH - At)
    else:
        K = (c - 1.0) * R - At
        V = X.dot(K + wH)
    GM = G.dot(M)
    V += GM
    VV = float(np.vdot(V, V))
    normal2 = float(np.vdot(wH, M.dot(wH)))
    tangent2 = VV - normal2
    if tangent2 >= _CANCELLATION * normal2:
        norm = math.sqrt(max(tangent2, 0.0))
    else:
        T = GM + X.dot(K)
        norm = math.sqrt(float(np.vdot(T, T)))
    if not measure:
        return norm, V, H, None
    stat2 = tangent2 - (c * c - 0.25) * float(np.vdot(Q, R))
    c1 = max(1.0, c)
    if stat2 >= c1 * c1 * _AMPLIFICATION2 * VV:  # (the stack's test, bit for bit)
        return norm, V, H, math.sqrt(stat2)
    T1 = GM - X.dot(0.5 * R + At)  # grad_1 f = G M + X K_1, K_1 = -R/2 - A^T
    return norm, V, H, math.sqrt(float(np.vdot(T1, T1)))
