"""Test problems: cost functions with Euclidean gradients, and their optima on St(n, p).

Every ``cost`` and ``egrad`` takes ``X`` of shape ``(n, p)`` or a stack ``(..., n, p)``. Where a
closed form exists, the optimal value is computed with scipy. For p = n the orthogonal group has
two components (det = +1 and det = -1) and landing never crosses between them, so square problems
also report the optimum of each component (:meth:`Problem.optimum_from`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

Array = np.ndarray

__all__ = [
    "PROBLEMS",
    "Problem",
    "brockett",
    "initial_point",
    "linear",
    "make_problem",
    "nearest_stiefel",
    "pca",
    "procrustes",
    "qf",
    "quartic",
]


@dataclass(frozen=True)
class Problem:
    """A smooth cost f on R^{n x p} to minimize over St(n, p).

    ``f_star`` is the optimal value over St(n, p) when known (None otherwise). For p = n,
    ``f_star_by_det`` maps the sign of det X (+1, -1) to the optimum over that component.
    """

    name: str
    n: int
    p: int
    cost: Callable[[Array], Array]
    egrad: Callable[[Array], Array]
    f_star: float | None = None
    f_star_by_det: dict[int, float] = field(default_factory=dict)
    description: str = ""
    cost_and_egrad: Callable[[Array], tuple[Array, Array]] | None = None

    def value_and_grad(self, X: Array) -> tuple[Array, Array]:
        """(f(X), G(X)) together, sharing the work the two have in common (A X for Brockett,
        the residual A X - B for Procrustes, C X for PCA) where the problem provides it."""
        if self.cost_and_egrad is not None:
            return self.cost_and_egrad(X)
        return self.cost(X), self.egrad(X)

    def optimum_from(self, X0: Array) -> float | None:
        """The optimal value reachable from X0: over X0's component of O(n) when p = n."""
        if self.p == self.n and self.f_star_by_det:
            sign = 1 if np.linalg.det(np.reshape(X0, (self.n, self.p))) > 0 else -1
            return self.f_star_by_det[sign]
        return self.f_star


# ----------------------------------------------------------------------------- input checks


def _check_matrix(name: str, A: Array, shape: tuple[int | None, int | None]) -> Array:
    """A float64 copy of A with the required shape (None: any), finite, or a ValueError."""
    A = np.array(A, dtype=float, copy=True)
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got an array with {A.ndim} dimensions")
    for axis, (want, got) in enumerate(zip(shape, A.shape, strict=True)):
        if want is not None and want != got:
            wanted = ", ".join("*" if s is None else str(s) for s in shape)
            raise ValueError(f"{name} must have shape ({wanted}), got {A.shape} (axis {axis})")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or infinite entries")
    return A


def _check_sizes(n: int, p: int) -> None:
    if int(n) != n or int(p) != p or n < 1 or p < 1:
        raise ValueError(f"n and p must be positive integers, got n={n}, p={p}")
    if p > n:
        raise ValueError(f"p = {p} > n = {n}: St(n, p) is empty (need p <= n)")


def _det_signed_polar(C: Array) -> tuple[float, float]:
    """max <C, X> over X in O(n) with det X = +1 and with det X = -1 (C square).

    The maximum over O(n) is the nuclear norm sum(sigma); on the other component the smallest
    singular value's contribution changes sign (the SVD solution with a sign flip).
    """
    U, s, Vt = np.linalg.svd(C)
    sign = np.sign(np.linalg.det(U) * np.linalg.det(Vt)) or 1.0
    best = float(s.sum())
    other = float(s.sum() - 2 * s[-1])
    return (best, other) if sign > 0 else (other, best)


# ----------------------------------------------------------------------------- problems


def brockett(n: int, p: int, seed: int = 0, *, A: Array | None = None) -> Problem:
    """Brockett cost f(X) = tr(X^T A X N), A symmetric, N = diag(p, ..., 1).

    Optimum over St(n, p): sum_i N_ii lambda_i with lambda the p smallest eigenvalues of A in
    increasing order (scipy.linalg.eigh). Gradient 2 A X N.
    """
    _check_sizes(n, p)
    if A is None:
        B = np.random.default_rng(seed).standard_normal((n, n))
        A = (B + B.T) / (2.0 * np.sqrt(n))
    A = _check_matrix("A", A, (n, n))
    if not np.allclose(A, A.T, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(A).max())):
        raise ValueError("A must be symmetric for the Brockett cost")
    A = 0.5 * (A + A.T)
    w = np.arange(p, 0, -1, dtype=float)
    lam = scipy.linalg.eigh(A, eigvals_only=True, subset_by_index=[0, p - 1])
    f_star = float(w @ lam)
    by_det: dict[int, float] = {}
    if p == n:
        # tr(X^T A X N) = tr(A X N X^T) is invariant under flipping a column's sign, so both
        # components reach the same optimum.
        by_det = {1: f_star, -1: f_star}

    def cost(X: Array) -> Array:
        return np.einsum("...ij,...ij->...", X, A @ X * w)

    def egrad(X: Array) -> Array:
        return 2.0 * (A @ X) * w

    def cost_and_egrad(X: Array) -> tuple[Array, Array]:
        AXw = (A @ X) * w
        return np.einsum("...ij,...ij->...", X, AXw), 2.0 * AXw

    return Problem("brockett", n, p, cost, egrad, f_star, by_det,
                   "tr(XᵀAXN): the p smallest eigenvectors of A, ordered", cost_and_egrad)


def procrustes(
    n: int, p: int, seed: int = 0, *, A: Array | None = None, B: Array | None = None
) -> Problem:
    """Orthogonal Procrustes f(X) = 1/2 ||A X - B||_F^2, A m x n, B m x p. Gradient A^T (AX - B).

    For p = n the optimum is scipy.linalg.orthogonal_procrustes(A, B): on O(n), ||AX||_F is
    constant and f = 1/2 (||A||^2 + ||B||^2) - <A^T B, X>; the det = -1 component is reached by the
    SVD solution with a sign flip. For p < n no closed form is used (f_star is None).
    """
    _check_sizes(n, p)
    rng = np.random.default_rng(seed)
    if A is None:
        A = rng.standard_normal((n, n)) / np.sqrt(n)
    A = _check_matrix("A", A, (None, n))
    if B is None:
        B = rng.standard_normal((A.shape[0], p))
    B = _check_matrix("B", B, (A.shape[0], p))
    f_star = None
    by_det: dict[int, float] = {}
    if p == n:
        R, _ = scipy.linalg.orthogonal_procrustes(A, B)
        f_star = float(0.5 * np.linalg.norm(A @ R - B) ** 2)
        const = 0.5 * (np.linalg.norm(A) ** 2 + np.linalg.norm(B) ** 2)
        plus, minus = _det_signed_polar(A.T @ B)
        by_det = {1: float(const - plus), -1: float(const - minus)}

    def cost(X: Array) -> Array:
        R = A @ X - B
        return 0.5 * np.einsum("...ij,...ij->...", R, R)

    def egrad(X: Array) -> Array:
        return A.T @ (A @ X - B)

    def cost_and_egrad(X: Array) -> tuple[Array, Array]:
        R = A @ X - B
        return 0.5 * np.einsum("...ij,...ij->...", R, R), A.T @ R

    return Problem("procrustes", n, p, cost, egrad, f_star, by_det, "½‖AX − B‖²_F",
                   cost_and_egrad)


def pca(n: int, p: int, seed: int = 0, *, data: Array | None = None) -> Problem:
    """PCA / Rayleigh quotient f(X) = -1/2 tr(X^T C X), C = D^T D / m the data covariance.

    Invariant under X -> XQ for Q orthogonal, so X^T G is symmetric on the manifold and every beta
    gives the same tangent term there: the control case. Optimum: -1/2 (sum of the p largest
    eigenvalues of C), scipy.linalg.eigh.
    """
    _check_sizes(n, p)
    if data is None:
        rng = np.random.default_rng(seed)
        scales = np.linspace(2.0, 0.5, n)
        data = rng.standard_normal((4 * n, n)) * scales
    data = _check_matrix("data", data, (None, n))
    C = data.T @ data / data.shape[0]
    lam = scipy.linalg.eigh(C, eigvals_only=True, subset_by_index=[n - p, n - 1])
    f_star = float(-0.5 * lam.sum())
    by_det = {1: f_star, -1: f_star} if p == n else {}

    def cost(X: Array) -> Array:
        return -0.5 * np.einsum("...ij,...ij->...", X, C @ X)

    def egrad(X: Array) -> Array:
        return -(C @ X)

    def cost_and_egrad(X: Array) -> tuple[Array, Array]:
        CX = C @ X
        return -0.5 * np.einsum("...ij,...ij->...", X, CX), -CX

    return Problem("pca", n, p, cost, egrad, f_star, by_det,
                   "−½ tr(XᵀCX): the top-p principal subspace (β-invariant)", cost_and_egrad)


def linear(n: int, p: int, seed: int = 0, *, C: Array | None = None) -> Problem:
    """Linear cost f(X) = tr(C^T X). Minimizer -polar(C), optimum -||C||_* (nuclear norm).

    For p = n the two components of O(n) give -sum(sigma) and -sum(sigma) + 2 sigma_min.
    """
    _check_sizes(n, p)
    if C is None:
        C = np.random.default_rng(seed).standard_normal((n, p))
    C = _check_matrix("C", C, (n, p))
    s = np.linalg.svd(C, compute_uv=False)
    f_star = float(-s.sum())
    by_det: dict[int, float] = {}
    if p == n:
        plus, minus = _det_signed_polar(-C)
        by_det = {1: -plus, -1: -minus}

    def cost(X: Array) -> Array:
        return np.einsum("ij,...ij->...", C, X)

    def egrad(X: Array) -> Array:
        return np.broadcast_to(C, X.shape).copy()

    return Problem("linear", n, p, cost, egrad, f_star, by_det, "tr(CᵀX): minimizer −polar(C)")


def quartic(n: int, p: int, seed: int = 0) -> Problem:
    """f(X) = -1/4 sum_ij X_ij^4 (sum of fourth powers): 2n wells on the circle / sphere.

    On St(n, p), sum_ij X_ij^4 <= sum_j (sum_i X_ij^2)^2 = p, with equality exactly at signed
    coordinate vectors: f* = -p/4. Unbounded below off the manifold, so it shows the normal term's
    pull. ``seed`` is unused (kept for a uniform signature).
    """
    _check_sizes(n, p)
    f_star = -p / 4.0

    def cost(X: Array) -> Array:
        return -0.25 * np.sum(X**4, axis=(-2, -1))

    def egrad(X: Array) -> Array:
        return -(X**3)

    return Problem("quartic", n, p, cost, egrad, f_star,
                   {1: f_star, -1: f_star} if p == n else {},
                   "−¼ Σ X_ij⁴: minima at signed coordinate axes")


PROBLEMS: dict[str, Callable[..., Problem]] = {
    "brockett": brockett,
    "procrustes": procrustes,
    "pca": pca,
    "linear": linear,
    "quartic": quartic,
}


def make_problem(name: str, n: int, p: int, seed: int = 0, **matrices: Array) -> Problem:
    """A problem from the catalogue by name, optionally from user-supplied matrices.

    ``matrices`` are the keyword matrices of the named constructor (``A`` for brockett, ``A``/``B``
    for procrustes, ``data`` for pca, ``C`` for linear); each is checked for shape and finiteness.
    """
    if name not in PROBLEMS:
        raise ValueError(f"unknown problem {name!r}; choose one of {sorted(PROBLEMS)}")
    return PROBLEMS[name](n, p, seed, **matrices)


def initial_point(
    n: int,
    p: int,
    distance: float = 0.3,
    seed: int = 0,
    *,
    singular_values: Array | None = None,
) -> Array:
    """A random X0 = U diag(s) V^T in R_*^{n x p} at a prescribed distance from St(n, p).

    The nearest point of St(n, p) to X0 is its polar factor U V^T, at Frobenius distance
    ||s - 1||_2. By default s = 1 + distance * u with u a random unit vector; when that would bring
    a singular value below 0.1 (large distances), the outward direction |u| is used instead so X0
    stays full rank. ``singular_values`` prescribes s directly.
    """
    _check_sizes(n, p)
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
    U, V = qf(rng.standard_normal((n, p))), qf(rng.standard_normal((p, p)))
    return (U * s) @ V.T


def qf(A: Array) -> Array:
    """The Q factor of A = QR with the signs fixed so that diag(R) > 0 (unique for full rank)."""
    Q, R = np.linalg.qr(A)
    return Q * np.where(np.diagonal(R, axis1=-2, axis2=-1) < 0, -1.0, 1.0)[..., None, :]


def nearest_stiefel(X: Array) -> Array:
    """The polar factor U V^T of X: the nearest point of St(n, p) in the Frobenius norm."""
    U, _, Vt = np.linalg.svd(X, full_matrices=False)
    return U @ Vt
