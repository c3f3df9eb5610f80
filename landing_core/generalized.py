"""The generalized Stiefel constraint X^T B X = I_p (B symmetric positive definite).

Vary, Ablin, Gao & Absil (2024), *Optimization without retraction on the random generalized
Stiefel manifold*. The landing field for B is V = T + omega B X h_B(X) with

    h_B(X) = X^T B X - I_p,   N_B(X) = 1/4 ||h_B(X)||_F^2,   grad N_B(X) = B X h_B(X),

and a tangent term T with X^T B T skew, so that T keeps X^T B X fixed to first order
(D h_B(X)[T] = X^T B T + T^T B X = 0) and is Euclidean-orthogonal to the normal term:
<T, B X H> = <X^T B T, H> = 0 for H symmetric.

B enters only through the product B X (one per field; ``apply``), and every other operation is
n x p x p or p x p work with the p x p matrices

    M = X^T B X,   C = (B X)^T (B X) = X^T B^2 X,   A_B = (B X)^T G.

No n x n matrix is formed, nothing is solved with B, and B may be a scipy.sparse matrix.

Tangent terms (``TANGENT_TERMS`` of ``geometry``, same names, same meaning at B = I):

* "relative": Psi_B(X) = skew(G X^T B) B X = 1/2 (G C - B X A_B^T), the relative gradient of
  Vary et al.; <G, Psi_B> = ||skew(G X^T B)||_F^2 >= 0.
* "beta": the Riemannian gradient of f restricted to the layer {Y : Y^T B Y = X^T B X} in the
  metric g^{beta,B}_X(xi, zeta) = <xi, (I_n - (1 - beta) P_BX) zeta M^{-1}>, P_BX the orthogonal
  projector onto span(B X). Its normal space is {B X S M : S symmetric} (independent of beta),
  the unconstrained gradient is (I + (1-beta)/beta P_BX) G M, and

      grad^B_beta f(X) = G M + B X ((1-beta)/beta C^{-1} A_B - S) M,
      C S M + M S C = (A_B M + M A_B^T) / beta      (a p x p generalized Lyapunov equation).

  At B = I (C = M) this is the paper's grad_beta f, eq. (grad_beta).
* "euclidean": the Frobenius projection of G onto the tangent space, G - B X S with
  C S + S C = A_B + A_B^T.

The exact change of variables Y = B^{1/2} X maps the paper's beta-landing on Y^T Y = I to
the field ``change_of_variables_tangent`` + omega X h_B(X) on X^T B X = I; its tangent part
contains B^{-1} G, one solve with B per iteration, which is why it is not among the tangent
terms of the iteration (see ``change_of_variables_tangent``).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

from .geometry import _CANCELLATION, _identity, _t, per_run, sym

Array = np.ndarray
Matrix = Any  # a dense (n, n) ndarray or a scipy.sparse matrix

__all__ = [
    "SYMMETRY_TOL",
    "DirectionB",
    "N_B",
    "apply",
    "arpack_start",
    "change_of_variables_tangent",
    "check_spd",
    "field_blocks",
    "grad_beta_B",
    "grad_N_B",
    "h_B",
    "lambda_max",
    "landing_direction_B",
    "landing_field_B",
    "proj_euclidean_B",
    "relative_gradient_B",
    "safe_step_B",
    "stationarity_B",
    "tangent_term_B",
]

SYMMETRY_TOL = 1e-12
"""The symmetry checks' relative tolerance (B here, a cost's A in ``problems``): a matrix
passes where max |A - Aᵀ| is at most this times its largest entry (at least 1 for a cost's A),
an asymmetry that rounding in assembling a symmetric matrix explains; it is then symmetrized."""


def apply(B: Matrix, X: Array) -> Array:
    """B X for X of shape (n, p) or a stack (..., n, p); B dense or scipy.sparse.

    A sparse B multiplies one (n, k p) matrix holding the whole stack side by side.
    """
    if not scipy.sparse.issparse(B) or X.ndim == 2:
        return np.asarray(B @ X)
    n, p = X.shape[-2:]
    lead = X.shape[:-2]
    wide = np.moveaxis(X.reshape(-1, n, p), 0, 1).reshape(n, -1)
    return np.moveaxis(np.asarray(B @ wide).reshape(n, -1, p), 1, 0).reshape(*lead, n, p)


def check_spd(B: Matrix, n: int | None = None) -> Matrix:
    """B as float64 (dense ndarray or CSR), checked: square (n x n when n is given), finite,
    symmetric and positive definite; ValueError saying which fails.

    Positive definiteness: Cholesky for a dense B; for a sparse B, a sparse LU without row
    pivoting in a symmetric ordering, whose pivots are all positive exactly when B is positive
    definite (no n x n dense matrix is formed).
    """
    sparse = scipy.sparse.issparse(B)
    if sparse:
        B = scipy.sparse.csr_array(B, dtype=float)
    else:
        B = np.array(B, dtype=float, copy=True)
        if B.ndim != 2:
            raise ValueError(f"B must be a 2-D matrix, got an array with {B.ndim} dimensions")
    if B.shape[0] != B.shape[1] or (n is not None and B.shape != (n, n)):
        want = f"({n}, {n})" if n is not None else "square"
        raise ValueError(f"B must have shape {want}, got {B.shape}")
    values = B.data if sparse else B
    if not np.all(np.isfinite(values)):
        raise ValueError("B contains NaN or infinite entries")
    scale = max(float(np.abs(values).max(initial=0.0)), 1e-300)
    asym = abs(B - B.T).max() if sparse else np.abs(B - B.T).max()
    if asym > SYMMETRY_TOL * scale:
        raise ValueError(f"B must be symmetric: max |B - Bᵀ| = {asym:.2e}")
    B = (B + B.T) * 0.5
    if sparse:
        B = scipy.sparse.csr_array(B)
        try:
            lu = scipy.sparse.linalg.splu(B.tocsc(), permc_spec="MMD_AT_PLUS_A",
                                          diag_pivot_thresh=0.0,
                                          options={"SymmetricMode": True})
            pivots = lu.U.diagonal()
            definite = bool(np.all(pivots > 0) and np.all(lu.perm_r == lu.perm_c))
        except RuntimeError:  # exactly singular
            definite = False
    else:
        try:
            np.linalg.cholesky(B)
            definite = True
        except np.linalg.LinAlgError:
            definite = False
    if not definite:
        raise ValueError("B must be positive definite (XᵀBX = I needs an inner product); "
                         "it has an eigenvalue <= 0")
    return B


def lambda_max(B: Matrix) -> float:
    """An upper bound on the largest eigenvalue of B (the safe step's constant), computed once.

    Dense: the largest of numpy.linalg.eigvalsh (all eigenvalues: LAPACK's subset drivers fail
    on clustered spectra such as B near I). Sparse: a Lanczos Ritz pair (theta, v)
    (scipy.sparse.linalg.eigsh) and theta + ||B v - theta v||, which bounds the eigenvalue
    nearest theta from above (Bauer-Fike for symmetric matrices).
    """
    if not scipy.sparse.issparse(B):
        return float(np.linalg.eigvalsh(B)[-1]) * (1 + 1e-10)  # + rounding
    n = B.shape[0]
    if n <= 2:
        return lambda_max(B.toarray())
    theta, v = scipy.sparse.linalg.eigsh(B, k=1, which="LA", tol=1e-10, v0=arpack_start(n))
    v = v[:, 0] / np.linalg.norm(v[:, 0])
    return float(theta[0] + np.linalg.norm(B @ v - theta[0] * v)) * (1 + 1e-10)  # + rounding


def arpack_start(n: int) -> Array:
    """A fixed start vector for ARPACK (scipy.sparse.linalg.eigsh), drawn as scipy draws its
    own (uniform in [-1, 1]) but from a fixed seed: scipy's draw is fresh each call, so the
    Ritz values, and with them the safe step's constant and f*, varied from run to run."""
    return np.random.default_rng(0).uniform(-1.0, 1.0, n)


def h_B(X: Array, BX: Array) -> Array:
    """h_B(X) = X^T B X - I_p, from the product BX = B X."""
    return _t(X) @ BX - np.eye(X.shape[-1])


def N_B(X: Array, BX: Array) -> Array:
    """N_B(X) = 1/4 ||X^T B X - I_p||_F^2 (its gradient is ``grad_N_B``)."""
    H = h_B(X, BX)
    return 0.25 * np.einsum("...ij,...ij->...", H, H)


def grad_N_B(X: Array, BX: Array) -> Array:
    """The normal term grad N_B(X) = B X (X^T B X - I_p) (B symmetric)."""
    return BX @ h_B(X, BX)


def _lyapunov(C: Array, M: Array, R: Array) -> Array:
    """S symmetric solving C S M + M S C = R (C, M symmetric positive definite, R symmetric),
    batched over leading axes: p x p work.

    With the generalized eigenvectors W of the pencil (C, M) (C W = M W diag(c),
    W^T M W = I), S = W [ (W^T R W)_ij / (c_i + c_j) ] W^T. W = L^{-T} U from M = L L^T and
    the eigenvectors U of L^{-1} C L^{-T}.
    """
    L = np.linalg.cholesky(M)
    Y = np.linalg.solve(L, C)  # L^{-1} C
    Cp = np.linalg.solve(L, _t(Y))  # L^{-1} C L^{-T}
    c, U = np.linalg.eigh(sym(Cp))
    W = np.linalg.solve(_t(L), U)
    Rw = _t(W) @ R @ W
    # c_i + c_j = 0 only for a singular C (an iterate that has lost rank: a diverging run),
    # whose inf or NaN the run's divergence test reports in words; no warning besides
    with np.errstate(divide="ignore", invalid="ignore"):
        return W @ (Rw / (c[..., :, None] + c[..., None, :])) @ _t(W)


def _parts(X: Array, BX: Array, G: Array) -> tuple[Array, Array, Array]:
    """(M, C, A_B) = (X^T B X, (BX)^T BX, (BX)^T G)."""
    BXt = _t(BX)
    return BXt @ X, BXt @ BX, BXt @ G


def relative_gradient_B(X: Array, BX: Array, G: Array) -> Array:
    """Psi_B(X) = skew(G X^T B) B X = 1/2 (G C - B X A_B^T) (Vary et al. 2024), without the
    n x n matrix G X^T B."""
    BXt = _t(BX)
    return 0.5 * (G @ (BXt @ BX) - BX @ _t(BXt @ G))


def grad_beta_B(X: Array, BX: Array, G: Array, beta: float | Array) -> Array:
    """The Riemannian gradient of f on the layer through X in the metric g^{beta,B} (module
    docstring): G M + B X ((1-beta)/beta C^{-1} A_B - S) M, C S M + M S C = (A_B M + M A_B^T)
    / beta. Equals ``geometry.grad_beta`` at B = I."""
    M, C, A = _parts(X, BX, G)
    S1, CA = _beta_blocks(M, C, A)
    return G @ M + BX @ (_K(S1, CA, beta) @ M)


def _beta_blocks(M: Array, C: Array, A: Array) -> tuple[Array, Array]:
    """(S_1, C^{-1} A_B): grad^B_beta = G M + B X K_beta M with K_beta = (1-beta)/beta C^{-1} A_B
    - S_1/beta for every beta, since the Lyapunov solution at beta is S_1/beta."""
    AM = A @ M
    return _lyapunov(C, M, AM + _t(AM)), np.linalg.solve(C, A)


def _K(S1: Array, CA: Array, beta: float | Array) -> Array:
    b = per_run(beta)
    return ((1.0 - b) / b) * CA - S1 / b


def stationarity_B(X: Array, BX: Array, G: Array) -> float | Array:
    """||grad^B_1 f(X)||_F: the Riemannian gradient of f on the layer {Y^T B Y = X^T B X} in
    g^{1,B}_X(xi, zeta) = <xi, zeta M^{-1}>, which is the embedded (Euclidean) metric on
    X^T B X = I: the analogue for B of ``geometry.stationarity`` (equal to it at B = I), zero
    exactly where f restricted to the layer is stationary."""
    return _norm(grad_beta_B(X, BX, G, 1.0))


def _norm(A: Array) -> float | Array:
    if A.ndim == 2:
        return math.sqrt(float(np.vdot(A, A)))
    return np.sqrt(np.einsum("...ij,...ij->...", A, A))


def proj_euclidean_B(X: Array, BX: Array, Z: Array) -> Array:
    """The Frobenius-orthogonal projection of Z onto {T : X^T B T skew}: Z - B X S with
    C S + S C = A + A^T, A = (BX)^T Z (the normal space is {B X S : S symmetric})."""
    _, C, A = _parts(X, BX, Z)
    S = _lyapunov(C, np.broadcast_to(np.eye(X.shape[-1]), C.shape), A + _t(A))
    with np.errstate(invalid="ignore"):  # (S not finite: as in _lyapunov)
        return Z - BX @ S


def tangent_term_B(name: str, X: Array, BX: Array, G: Array, beta: float | Array) -> Array:
    """The tangent term ``name`` ("beta", "euclidean", "relative") for the constraint
    X^T B X = I; "euclidean" and "relative" ignore beta."""
    if name == "beta":
        return grad_beta_B(X, BX, G, beta)
    if name == "euclidean":
        return proj_euclidean_B(X, BX, G)
    if name == "relative":
        return relative_gradient_B(X, BX, G)
    raise ValueError(f"unknown tangent term {name!r}; choose beta, euclidean or relative")


def landing_field_B(X: Array, BX: Array, G: Array, beta: float | Array, omega: float | Array,
                    tangent: str = "beta") -> tuple[Array, Array, Array]:
    """(T, V, H): the tangent term, the landing field V = T + omega B X h_B(X), H = h_B(X)."""
    T = tangent_term_B(tangent, X, BX, G, beta)
    H = _t(X) @ BX - np.eye(X.shape[-1])
    return T, T + BX @ (per_run(omega) * H), H


class DirectionB(NamedTuple):
    """The landing field for B with its parts: ||T||_F, V = T + omega B X h_B(X), H = h_B(X),
    the stationarity ||grad^B_1 f(X)||_F, and C = (B X)^T B X (for the safe step)."""

    tangent_norm: float | Array
    V: Array
    H: Array
    stationarity: float | Array
    C: Array


def landing_direction_B(X: Array, BX: Array, G: Array, beta: float | Array,
                        omega: float | Array, tangent: str = "beta") -> DirectionB:
    """The landing field V = T + omega B X h_B(X) with the norm of its tangent term, the
    stationarity measure (``stationarity_B``) and C (:class:`DirectionB`).

    For the beta-family both gradients come from one set of blocks: T_1 = G M + B X K_1 M
    (formed, since its norm tends to 0 while G M does not), then, in the same array,
    V = T_1 + B X (K_beta M + omega H - K_1 M) = G M + B X (K_beta M + omega H); then
    ||T_beta||^2 = ||V||^2 - omega^2 <H, C H> (<T, B X H> = 0), formed only where the normal
    term dominates. Products: (B X)^T [X, B X, G], G M and the two B X (...), each added in
    place: six n x p x p, besides B X itself. (A gemm with beta = 1 would add the products
    without a temporary, but numpy has none, and scipy.linalg.blas.dgemm runs on scipy's own
    OpenBLAS, whose idle threads slow numpy's next products: benchmarks/RESULTS.md, Notes.)
    """
    M, C, A = _parts(X, BX, G)
    H, wH, K1M, Q = field_blocks(M, C, A, beta, omega)
    T1 = G @ M
    T1 += BX @ K1M  # grad_1 f = G M + B X K_1 M: its norm is the stationarity measure
    stat = _norm(T1)
    if tangent != "beta":
        T = tangent_term_B(tangent, X, BX, G, beta)
        return DirectionB(_norm(T), T + BX @ wH, H, stat, C)
    V = T1  # T_1 is not needed any more: V is summed in its array
    V += BX @ (Q - K1M)
    normal2 = np.einsum("...ij,...ij->...", wH, C @ wH)
    tangent2 = _norm(V) ** 2 - normal2
    cancels = tangent2 < _CANCELLATION * normal2
    norm = np.sqrt(np.maximum(tangent2, 0.0))
    if np.any(cancels):
        T = V - BX @ wH
        norm = np.where(cancels, _norm(T), norm)
    return DirectionB(float(norm) if X.ndim == 2 else norm, V, H, stat, C)


def field_blocks(M: Array, C: Array, A: Array, beta: float | Array,
                 omega: float | Array) -> tuple[Array, Array, Array, Array]:
    """The p x p work of ``landing_direction_B`` from M, C and A_B: (H, omega H, K_1 M,
    K_beta M + omega H), so that T_1 = G M + B X K_1 M and V = G M + B X (K_beta M + omega H)."""
    H = M - _identity(M.shape[-1])
    S1, CA = _beta_blocks(M, C, A)
    wH = per_run(omega) * H
    return H, wH, -S1 @ M, _K(S1, CA, beta) @ M + wH


def change_of_variables_tangent(X: Array, BX: Array, G: Array, Binv_G: Array,
                                beta: float | Array) -> Array:
    """The paper's grad_beta under the change of variables Y = B^{1/2} X, mapped back to X.

    With f~(Y) = f(B^{-1/2} Y), grad f~(Y) = B^{-1/2} G and Y^T Y = X^T B X = M, the X-image
    B^{-1/2} grad_beta f~(Y) of the paper's eq. (grad_beta) is

        B^{-1} G M - 1/(2 beta) X A^T + (1/(2 beta) - 1) X M^{-1} A M,   A = X^T G,

    and the paper's normal term Y h(Y) maps to X h_B(X). Written without B^{1/2}, it still
    needs B^{-1} G (``Binv_G``: one solve with B per iteration), so it serves checks and
    comparisons only and is not a tangent term of the iteration.
    """
    M = _t(X) @ BX
    A = _t(X) @ G
    c = 0.5 / per_run(beta)
    return Binv_G @ M - c * (X @ _t(A)) + (c - 1.0) * (X @ np.linalg.solve(M, A @ M))


def safe_step_B(H: Array, C: Array, omega: float | Array, g2: float | Array, lam: float,
                eps: float | Array, cap: float | Array = math.inf,
                iterations: int = 60) -> float | Array:
    """The largest eta <= cap for which ||h_B(X - eta V)||_F <= max(eps, ||H||_F) is
    guaranteed, V = T + omega B X H with X^T B T skew (the B-ball safe step).

    Exactly, h_B(X - eta V) = H - eta omega (C H + H C) + eta^2 V^T B V (the tangent part
    drops out of the first-order term: X^T B T is skew), and ||V^T B V||_F <= lam ||V||_F^2 with
    lam >= lambda_max(B), g2 = ||V||_F^2. So

        phi(eta) = ||H - eta omega (C H + H C)||_F + lam g2 eta^2

    bounds ||h_B(X - eta V)||_F. phi is convex (a norm of an affine function plus a convex
    quadratic) with phi(0) = ||H|| <= e = max(eps, ||H||), so {phi <= e} is an interval
    [0, eta*], found by bisection on scalars (the p x p work is three inner products). The
    first-order part decreases (<H, C H + H C> = 2 tr(H C H) > 0 for H != 0), so eta* > 0:
    unlike the St(n, p) lemma this holds for every ||H||, and the infeasibility never grows.
    Vectorized over runs (arrays of shape (B,) and stacks (B, p, p)).
    """
    L = C @ H
    L = L + _t(L)
    a = np.einsum("...ij,...ij->...", H, H)
    b = np.einsum("...ij,...ij->...", H, L)
    c = np.einsum("...ij,...ij->...", L, L)
    if H.ndim == 2 and all(isinstance(v, float | int) for v in (omega, g2, eps, cap)):
        w = float(omega)
        return _safe_scalar(float(a), w * float(b), w * w * float(c),
                            lam * g2, float(eps), float(cap), iterations)
    w = np.asarray(omega, dtype=float)
    return np.vectorize(_safe_scalar, otypes=[float])(
        a, w * b, w * w * c, lam * np.asarray(g2, dtype=float), eps, cap, iterations)


def _safe_scalar(a: float, b: float, c: float, q: float, eps: float, cap: float,
                 iterations: int) -> float:
    """The largest t <= cap with phi(t) = sqrt(a - 2 b t + c t^2) + q t^2 <= max(eps,
    sqrt(a)) (phi convex, phi(0) = sqrt(a)): bisection on [0, an end where phi > e]."""
    e = max(eps, math.sqrt(a))

    def phi(t: float) -> float:
        return math.sqrt(max(a - 2 * b * t + c * t * t, 0.0)) + q * t * t - e

    # phi(t) >= max(q t^2, sqrt(c) t - sqrt(a)) - e: beyond both ends phi > 0
    ends = [cap]
    if q > 0:
        ends.append(2.0 * math.sqrt(e / q))
    if c > 0:
        ends.append(2.0 * (math.sqrt(a) + e) / math.sqrt(c))
    hi = min(ends)
    if math.isinf(hi) or phi(hi) <= 0:
        return hi
    lo = 0.0
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        if phi(mid) <= 0:
            lo = mid
        else:
            hi = mid
    return lo
