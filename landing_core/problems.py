"""Problems: the protocol a cost must follow, a gradient check, and the built-in test problems.

A problem is any object with ``n``, ``p``, ``cost(X)`` and ``egrad(X)`` (the Euclidean gradient),
see :class:`ProblemLike`; ``value_and_grad(X)``, ``name`` and ``f_star`` are optional.
:func:`as_problem` turns such an object into a :class:`Problem` (or says what it lacks), and
:func:`check_gradient` compares ``egrad`` with finite differences of ``cost``.

Every built-in ``cost`` and ``egrad`` takes ``X`` of shape ``(n, p)`` or a stack ``(..., n, p)``.
Where a closed form exists, the optimal value is computed with scipy. For p = n the orthogonal
group has two components (det = +1 and det = -1), so square problems also report the optimum of
each component (:meth:`Problem.optimum_from`). The landing flow never changes the sign of det X
(X stays full rank), but a discrete step can jump across det X = 0 (a long constant step does
on linear(2, 2), seed 14, eta = 0.6): gaps are therefore measured against the optimum of the
component of the iterate they are measured at.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

from .constraints import STIEFEL, Constraint, GeneralizedStiefel, draw
from .constraints.generalized import b_orthonormal
from .generalized import SYMMETRY_TOL, apply, arpack_start, check_spd
from .geometry import _t, nearest_stiefel, qf

Array = np.ndarray

__all__ = [
    "GRADIENT_TOL",
    "PROBLEMS",
    "MATRIX_KEYWORDS",
    "FiniteSum",
    "GradientCheck",
    "Problem",
    "ProblemLike",
    "as_problem",
    "GeneralizedEigen",
    "brockett",
    "check_gradient",
    "fd_directional",
    "generalized_eigen",
    "initial_point",
    "linear",
    "make_problem",
    "nearest_stiefel",
    "online_pca",
    "pca",
    "procrustes",
    "qf",
    "quartic",
    "stacked",
]


@runtime_checkable
class ProblemLike(Protocol):
    """What the solvers need of a problem: minimize ``cost`` over St(n, p).

    ``cost(X)`` is f(X) (a number) and ``egrad(X)`` its Euclidean gradient (an n x p array) at
    X of shape (n, p). For sweeps, which run many iterates at once, both should also take a stack
    (..., n, p) and return (...) and (..., n, p); a cost that does not is evaluated run by run
    (:func:`stacked`). Optional: ``value_and_grad(X)`` returning both at once (used when
    present), ``name``, ``f_star`` (the optimal value), ``optimum_from(X0)``, and the
    constraint to minimize over instead of St(n, p): ``constraint`` (a
    :class:`~landing_core.constraints.Constraint`, e.g. ``GeneralizedStiefel(B)`` for
    X^T B X = I_p). No other attribute sets it: a cost's own matrix may well be named B.
    """

    n: int
    p: int

    def cost(self, X: Array) -> Any: ...

    def egrad(self, X: Array) -> Array: ...


@dataclass(frozen=True, kw_only=True)
class Problem:
    """A smooth cost f on R^{n x p} to minimize over its ``constraint`` set: St(n, p) by
    default, X^T B X = I_p with ``constraint=GeneralizedStiefel(B)`` (``B`` then names the
    matrix), or any :class:`~landing_core.constraints.Constraint`.

    ``cost`` and ``egrad`` (the Euclidean gradient) take X of shape (n, p), and for sweeps a
    stack (..., n, p). ``f_star`` is the optimal value over St(n, p) when known (None
    otherwise). For p = n, ``f_star_by_det`` maps the sign of det X (+1, -1) to the optimum over
    that component. ``cost_and_egrad``, when given, computes both at once.
    """

    n: int
    p: int
    cost: Callable[[Array], Any]
    egrad: Callable[[Array], Array]
    name: str = "custom"
    f_star: float | None = None
    f_star_by_det: dict[int, float] = field(default_factory=dict)
    description: str = ""
    cost_and_egrad: Callable[[Array], tuple[Any, Array]] | None = None
    constraint: Constraint = STIEFEL
    """The set the methods keep to (``landing_core.constraints``)."""

    def __post_init__(self) -> None:
        _check_sizes(self.n, self.p)
        object.__setattr__(self, "n", int(self.n))  # numpy integers and 3.0 become ints
        object.__setattr__(self, "p", int(self.p))
        self.constraint.check(self.n, self.p)
        for name in ("cost", "egrad"):
            if not callable(getattr(self, name)):
                raise TypeError(f"the problem's {name} must be callable, got "
                                f"{getattr(self, name)!r}")

    @property
    def B(self) -> Any:
        """The constraint's matrix B of X^T B X = I_p (dense or scipy.sparse); None for a
        constraint without one (St(n, p))."""
        return getattr(self.constraint, "B", None)

    def value_and_grad(self, X: Array) -> tuple[Array, Array]:
        """(f(X), G(X)) together, sharing the work the two have in common (A X for Brockett,
        the residual A X - B for Procrustes, C X for PCA) where the problem provides it."""
        if self.cost_and_egrad is not None:
            return self.cost_and_egrad(X)
        return self.cost(X), self.egrad(X)

    def optimum_from(self, X: Array) -> float | None:
        """The optimal value over X's component of O(n) when p = n (the sign of det X), else
        f*. Pass the iterate the gap f(X) - f* is measured at (a run's final iterate): a long
        step can cross from one component to the other."""
        if self.p == self.n and self.f_star_by_det:
            sign = 1 if np.linalg.det(np.reshape(X, (self.n, self.p))) > 0 else -1
            return self.f_star_by_det[sign]
        return self.f_star


# ----------------------------------------------------------------------------- the protocol

_REQUIRED = ("n", "p", "cost", "egrad")


def as_problem(obj: object) -> Problem:
    """``obj`` as a :class:`Problem`: itself when it is one, else a Problem that calls obj.

    Any object with ``n``, ``p``, ``cost`` and ``egrad`` (:class:`ProblemLike`) will do; its
    ``value_and_grad``, ``name``, ``f_star``, ``f_star_by_det``, ``description`` and
    ``constraint`` (St(n, p) when absent) are used when present. TypeError naming what is
    missing or not callable; ValueError for sizes that are not positive integers with p <= n.
    """
    if isinstance(obj, Problem):
        return obj
    missing = [name for name in _REQUIRED if not hasattr(obj, name)]
    if missing:
        raise TypeError(
            f"{type(obj).__name__} is not a problem: it has no {', '.join(missing)}. A problem "
            "needs n, p, cost(X) -> f(X) and egrad(X) -> the Euclidean gradient (n x p); "
            "value_and_grad(X) and name are optional")
    not_callable = [name for name in ("cost", "egrad") if not callable(getattr(obj, name))]
    if not_callable:
        raise TypeError(f"{type(obj).__name__}.{not_callable[0]} must be a function of X")
    both = getattr(obj, "value_and_grad", None)
    if both is not None and not callable(both):
        raise TypeError(f"{type(obj).__name__}.value_and_grad must be a function of X")
    return Problem(
        n=obj.n, p=obj.p, cost=obj.cost, egrad=obj.egrad, cost_and_egrad=both,
        name=str(getattr(obj, "name", type(obj).__name__)),
        f_star=getattr(obj, "f_star", None),
        f_star_by_det=dict(getattr(obj, "f_star_by_det", None) or {}),
        description=str(getattr(obj, "description", "")),
        constraint=getattr(obj, "constraint", None) or STIEFEL,
    )


def _run_by_run(f: Callable[[Array], Any], X: Array, n: int, p: int) -> Array:
    """f on each (n, p) matrix of the stack X (..., n, p), the results stacked."""
    lead = X.shape[:-2]
    out = [np.asarray(f(Xi), dtype=float) for Xi in X.reshape(-1, n, p)]
    return np.array(out).reshape(*lead, *out[0].shape) if out else np.empty(lead)


def stacked(problem: Problem, X: Array) -> Problem:
    """``problem`` itself when its cost and gradient evaluate the stack X (B, n, p) as they do
    each of its matrices; otherwise a Problem that evaluates them run by run (slower, same
    values). Sweeps call this with their starting points.

    ValueError when the problem fails on a single matrix: cost must give one number and egrad
    an (n, p) array.
    """
    n, p = problem.n, problem.p
    sample = np.asarray(X, dtype=float)[:2]
    if len(sample) == 0:  # nothing to evaluate
        return problem
    singles = []
    for Xi in sample:
        f, G = problem.value_and_grad(Xi)
        check_values(problem, f, G)
        singles.append((float(np.reshape(f, ())), np.asarray(G, dtype=float)))
    try:
        f, G = problem.value_and_grad(sample)
        f, G = np.asarray(f, dtype=float), np.asarray(G, dtype=float)
        same = f.shape == sample.shape[:1] and G.shape == sample.shape and all(
            math.isclose(f[i], fi, rel_tol=1e-9, abs_tol=1e-12)
            and np.allclose(G[i], Gi, rtol=1e-9, atol=1e-12)
            for i, (fi, Gi) in enumerate(singles))
    except Exception:  # a cost written for one matrix can fail on a stack in any way
        same = False
    if same:
        return problem

    def cost(Y: Array) -> Array:
        return problem.cost(Y) if Y.ndim == 2 else _run_by_run(problem.cost, Y, n, p)

    def egrad(Y: Array) -> Array:
        return problem.egrad(Y) if Y.ndim == 2 else _run_by_run(problem.egrad, Y, n, p)

    def cost_and_egrad(Y: Array) -> tuple[Any, Array]:
        if Y.ndim == 2:
            return problem.value_and_grad(Y)
        pairs = [problem.value_and_grad(Yi) for Yi in Y.reshape(-1, n, p)]
        f = np.array([float(np.reshape(fi, ())) for fi, _ in pairs]).reshape(Y.shape[:-2])
        return f, np.array([Gi for _, Gi in pairs], dtype=float).reshape(Y.shape)

    return Problem(n=n, p=p, cost=cost, egrad=egrad, cost_and_egrad=cost_and_egrad,
                   name=problem.name, f_star=problem.f_star,
                   f_star_by_det=problem.f_star_by_det, description=problem.description,
                   constraint=problem.constraint)


# ----------------------------------------------------------------------------- gradient check

GRADIENT_TOL = 1e-6
"""Pass mark of :func:`check_gradient`: central differences agree to ~1e-8 relative."""


def fd_directional(f: Callable[[Array], Any], X: Array, Z: Array, t: float = 1e-5) -> float:
    """Central finite difference (f(X + tZ) - f(X - tZ)) / (2t) ~ Df(X)[Z], error O(t^2).

    ``t`` is scaled by ||X|| / ||Z|| so the step is relative to the point.
    """
    step = t * max(float(np.linalg.norm(X)), 1.0) / max(float(np.linalg.norm(Z)), 1e-300)
    return float((f(X + step * Z) - f(X - step * Z)) / (2.0 * step))


@dataclass(frozen=True)
class GradientCheck:
    """The outcome of :func:`check_gradient`.

    ``relative_error``: max over the directions Z of |<G, Z> - Df(X)[Z]| / max(||G|| ||Z||,
    |Df(X)[Z]|), Df by central differences (the smallest over three step sizes, so neither
    truncation nor rounding decides); ``passed``: relative_error <= ``tolerance``.
    """

    relative_error: float
    passed: bool
    tolerance: float
    directions: int
    message: str


def check_values(problem: Problem, f: Any, G: Any) -> None:
    """ValueError unless ``f`` is one real number (not an array holding one) and ``G`` a real
    (n, p) array: what cost and egrad must return at one X of shape (n, p). Every run calls
    this on X_0's values, which numpy would otherwise meet in its own words (or, broadcast or
    cast, not at all).
    """
    n, p = problem.n, problem.p
    value, grad = np.asarray(f), np.asarray(G)  # NaN and inf pass: a run reports those
    if (value.ndim != 0 or value.dtype.kind not in "iuf" or grad.shape != (n, p)
            or grad.dtype.kind not in "iuf"):
        raise ValueError(
            f"{problem.name}: at X of shape ({n}, {p}), cost must return one number and egrad "
            f"an ({n}, {p}) array; got a cost {_described(f)} and a gradient {_described(G)}")


def _described(x: Any) -> str:
    dtype = np.asarray(x).dtype
    return (f"of shape {np.shape(x)}" if dtype.kind in "iuf" else
            f"of complex type {dtype}" if dtype.kind == "c" else f"of type {type(x).__name__}")


def check_gradient(
    problem: object, X: Array, *, directions: int = 3, seed: int = 0,
    tolerance: float = GRADIENT_TOL,
) -> GradientCheck:
    """Compare the problem's gradient at X with central finite differences of its cost.

    The gradient is the one the solvers use (``value_and_grad`` when the problem has it, else
    ``egrad``); ``directions`` random Gaussian directions from ``seed``. A correct gradient
    gives a relative error of about 1e-8 or less; a wrong one, orders of magnitude above the
    tolerance. TypeError / ValueError when the problem is not one or X has the wrong shape.
    """
    problem = as_problem(problem)
    X = np.array(X, dtype=float)
    if X.shape != (problem.n, problem.p):
        raise ValueError(f"X must have shape ({problem.n}, {problem.p}), got {X.shape}")
    f, G = problem.value_and_grad(X)
    check_values(problem, f, G)
    G = np.asarray(G, dtype=float)
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(directions):
        Z = rng.standard_normal(X.shape)
        exact = float(np.vdot(G, Z))
        errors = []
        for t in (1e-4, 1e-5, 1e-6):
            fd = fd_directional(problem.cost, X, Z, t)
            scale = max(float(np.linalg.norm(G)) * float(np.linalg.norm(Z)), abs(fd))
            errors.append(abs(fd - exact) / scale if scale > 0 else 0.0)
        worst = float(np.max([worst, np.min(errors)]))  # NaN (a broken cost) propagates
    passed = bool(worst <= tolerance)
    message = (f"{problem.name}: the gradient matches finite differences of the cost "
               f"(relative error {worst:.1e} <= {tolerance:.0e})." if passed else
               f"{problem.name}: the gradient does not match the cost: relative error "
               f"{worst:.1e} > {tolerance:.0e} along {directions} random directions "
               "(finite differences). Check egrad (or value_and_grad) against cost.")
    return GradientCheck(worst, passed, tolerance, directions, message)


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
    try:
        whole = int(n) == n and int(p) == p
    except (TypeError, ValueError):
        whole = False
    if not whole or n < 1 or p < 1:
        raise ValueError(f"n and p must be positive integers, got n={n!r}, p={p!r}")
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
    if not np.allclose(A, A.T, rtol=SYMMETRY_TOL,
                       atol=SYMMETRY_TOL * max(1.0, np.abs(A).max())):
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

    # one run (2-D X, as a live run calls them): ndarray.dot and vdot, the cheapest calls per
    # iteration; cost and cost_and_egrad give the same value bit for bit either way
    def cost(X: Array) -> Array:
        if X.ndim == 2:
            return np.vdot(X, A.dot(X) * w)
        return np.einsum("...ij,...ij->...", X, A @ X * w)

    def egrad(X: Array) -> Array:
        return 2.0 * (A @ X) * w

    def cost_and_egrad(X: Array) -> tuple[Array, Array]:
        if X.ndim == 2:
            AXw = A.dot(X) * w
            return np.vdot(X, AXw), 2.0 * AXw
        AXw = (A @ X) * w
        return np.einsum("...ij,...ij->...", X, AXw), 2.0 * AXw

    return Problem(name="brockett", n=n, p=p, cost=cost, egrad=egrad, f_star=f_star,
                   f_star_by_det=by_det, cost_and_egrad=cost_and_egrad,
                   description="tr(XᵀAXN): the p smallest eigenvectors of A, ordered")


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

    return Problem(name="procrustes", n=n, p=p, cost=cost, egrad=egrad, f_star=f_star,
                   f_star_by_det=by_det, cost_and_egrad=cost_and_egrad,
                   description="½‖AX − B‖²_F")


def pca(n: int, p: int, seed: int = 0, *, data: Array | None = None) -> Problem:
    """PCA / Rayleigh quotient f(X) = -1/2 tr(X^T C X), C = D^T D / m the data covariance.

    Invariant under X -> XQ for Q orthogonal, so X^T G = -X^T C X is symmetric at every X. The
    rotation block skew(X^T G M) that beta scales is then the commutator of X^T G and M = X^T X,
    which vanishes on St(n, p) (M = I) but not off it: every beta gives the same tangent term on
    the manifold only (the control case). Optimum: -1/2 (sum of the p largest
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

    return Problem(name="pca", n=n, p=p, cost=cost, egrad=egrad, f_star=f_star,
                   f_star_by_det=by_det, cost_and_egrad=cost_and_egrad,
                   description="−½ tr(XᵀCX): the top-p principal subspace "
                               "(β-invariant on St(n, p))")


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

    return Problem(name="linear", n=n, p=p, cost=cost, egrad=egrad, f_star=f_star,
                   f_star_by_det=by_det, description="tr(CᵀX): minimizer −polar(C)")


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

    return Problem(name="quartic", n=n, p=p, cost=cost, egrad=egrad, f_star=f_star,
                   f_star_by_det={1: f_star, -1: f_star} if p == n else {},
                   description="−¼ Σ X_ij⁴: minima at signed coordinate axes")


@dataclass(frozen=True, kw_only=True)
class GeneralizedEigen(Problem):
    """min tr(X^T A X) subject to X^T B X = I_p (``generalized_eigen``): A symmetric, B
    symmetric positive definite, dense or scipy.sparse."""

    A: Any = None


def _smallest_generalized(A: Any, B: Any, p: int) -> Array:
    """The p smallest eigenvalues of the pencil (A, B): scipy.linalg.eigh(A, B) for dense
    matrices; for sparse ones, shift-invert Lanczos (scipy.sparse.linalg.eigsh) at a shift
    below the spectrum when Gershgorin shows A positive semidefinite, else Lanczos for the
    smallest algebraic eigenvalues."""
    if not (scipy.sparse.issparse(A) or scipy.sparse.issparse(B)):
        return scipy.linalg.eigh(A, B, eigvals_only=True, subset_by_index=[0, p - 1])
    A, B = scipy.sparse.csc_array(A), scipy.sparse.csc_array(B)
    offdiag = abs(A).sum(axis=1) - abs(A.diagonal())
    if np.min(A.diagonal() - offdiag) >= 0:
        shift = -1e-6 * float(abs(A).max())
        lam = scipy.sparse.linalg.eigsh(A, k=p, M=B, sigma=shift, which="LM",
                                        return_eigenvectors=False, tol=1e-14,
                                        v0=arpack_start(A.shape[0]))
    else:
        lam = scipy.sparse.linalg.eigsh(A, k=p, M=B, which="SA", return_eigenvectors=False,
                                        tol=1e-14, v0=arpack_start(A.shape[0]))
    return np.sort(lam)


def generalized_eigen(n: int, p: int, seed: int = 0, *, A: Any = None, B: Any = None,
                      condition: float = 10.0) -> GeneralizedEigen:
    """The generalized eigenvalue problem min tr(X^T A X) s.t. X^T B X = I_p.

    Optimum: the sum of the p smallest eigenvalues of the pencil (A, B)
    (scipy.linalg.eigh(A, B); shift-invert Lanczos for sparse matrices). Gradient 2 A X.
    By default A is a random symmetric matrix (as ``brockett``) and B a random symmetric
    positive definite matrix with condition number ``condition`` (log-spaced eigenvalues in
    random orthogonal directions). A and B may be scipy.sparse matrices; ValueError when B is
    not symmetric positive definite or a shape is wrong.
    """
    _check_sizes(n, p)
    rng = np.random.default_rng(seed)
    if A is None:
        R = rng.standard_normal((n, n))
        A = (R + R.T) / (2.0 * np.sqrt(n))
    if B is None:
        if not (np.isfinite(condition) and condition >= 1):
            raise ValueError(f"condition must be a finite number >= 1, got {condition}")
        Q = qf(rng.standard_normal((n, n)))
        B = (Q * np.logspace(0.0, np.log10(condition), n)) @ Q.T
    if scipy.sparse.issparse(A):
        A = scipy.sparse.csr_array(A, dtype=float)
        if A.shape != (n, n):
            raise ValueError(f"A must have shape ({n}, {n}), got {A.shape}")
        if not np.all(np.isfinite(A.data)):
            raise ValueError("A contains NaN or infinite entries")
        asym = abs(A - A.T).max()
    else:
        A = _check_matrix("A", A, (n, n))
        asym = np.abs(A - A.T).max()
    if asym > SYMMETRY_TOL * max(1.0, float(abs(A).max())):
        raise ValueError("A must be symmetric for the generalized eigenvalue problem")
    A = (A + A.T) * 0.5
    B = check_spd(B, n)
    f_star = float(np.sum(_smallest_generalized(A, B, p)))

    def cost(X: Array) -> Array:
        return np.einsum("...ij,...ij->...", X, apply(A, X))

    def egrad(X: Array) -> Array:
        return 2.0 * apply(A, X)

    def cost_and_egrad(X: Array) -> tuple[Array, Array]:
        AX = apply(A, X)
        # einsum, not BLAS's dot: with numpy's default two BLAS threads the dot hands the sum
        # to a second thread, which costs more than the sum itself at these sizes
        cost = np.einsum("...ij,...ij->...", X, AX)
        AX *= 2.0  # G = 2 A X in the product's own fresh array: no second n x p array
        return cost, AX

    return GeneralizedEigen(
        name="generalized_eigen", n=n, p=p, cost=cost, egrad=egrad, f_star=f_star,
        f_star_by_det={1: f_star, -1: f_star} if p == n else {},
        cost_and_egrad=cost_and_egrad, A=A, constraint=GeneralizedStiefel(B),
        description="tr(XᵀAX) on XᵀBX = I: the p smallest eigenvectors of the pencil (A, B)")


# ----------------------------------------------------------------------------- finite sums


@dataclass(frozen=True, kw_only=True)
class FiniteSum(Problem):
    """f(X) = 1/m sum_i f_i(X) over m samples, for the stochastic methods (Ablin, Vary, Gao &
    Absil 2024, Section 4). ``cost`` / ``egrad`` / ``value_and_grad`` are the full sum.

    Each sample's gradient is written through an *entry* e_i(X) of ``entry_floats`` numbers and
    a map linear in the entries: sum_{i in idx} grad f_i(X) = ``entry_sum``(E, idx) for E the
    stacked e_i(X). A generic problem takes e_i = grad f_i (n p floats); a linear model needs
    far fewer (online PCA: e_i = X^T a_i, p floats), which is what SAGA's table stores
    (Defazio, Bach & Lacoste-Julien 2014, Section 4).

    - ``sample_terms(X, idx)`` -> (f_i(X) (..., b), E (..., b, *entry shape)) for the b sample
      indices ``idx``; X of shape (n, p) or a stack (..., n, p);
    - ``entry_sum(E, idx)`` -> sum_i grad f_i as an (..., n, p) array;
    - ``lipschitz``: max_i L_i, a Lipschitz constant of every grad f_i near St(n, p) (sets the
      default step of ``stochastic.stochastic_landing``);
    - ``samples``: the data (one row per sample), where the problem has it;
    - ``batch_cost_and_egrad(X, idx)``, optional: ``minibatch``'s two means in one pass, where
      that saves work (online PCA gathers the batch's rows once instead of twice).
    """

    n_samples: int
    sample_terms: Callable[[Array, Array], tuple[Array, Array]]
    entry_sum: Callable[[Array, Array], Array]
    entry_floats: int
    lipschitz: float
    samples: Array | None = None
    batch_cost_and_egrad: Callable[[Array, Array], tuple[Array, Array]] | None = None

    def minibatch(self, X: Array, idx: Array) -> tuple[Array, Array]:
        """(1/b sum_{i in idx} f_i(X), 1/b sum_{i in idx} grad f_i(X)): an unbiased estimate of
        (f(X), grad f(X)) for idx drawn uniformly."""
        if self.batch_cost_and_egrad is not None:
            return self.batch_cost_and_egrad(X, idx)
        values, E = self.sample_terms(X, idx)
        return values.sum(axis=-1) / len(idx), self.entry_sum(E, idx) / len(idx)


def online_pca(n: int, p: int, samples: int = 1000, seed: int = 0) -> FiniteSum:
    """Online PCA as a finite sum: f(X) = 1/m sum_i f_i(X), f_i(X) = -1/2 ||X^T a_i||^2, the m
    samples a_i ~ N(0, diag(s)^2), s = linspace(2, 1/2, n) (attribute ``samples``, m x n).

    f = -1/2 tr(X^T C X) with C = A^T A / m, so f* = -1/2 (sum of the p largest eigenvalues of
    C) (scipy.linalg.eigh). grad f_i(X) = -a_i (a_i^T X): entry e_i = X^T a_i (p floats),
    entry_sum(E, idx) = -A_idx^T E. The full cost and gradient go through the samples (one pass
    over A, as an epoch does): the comparison with the stochastic methods is per data pass.
    L_i = ||a_i||^2.
    """
    _check_sizes(n, p)
    if int(samples) != samples or samples < 1:
        raise ValueError(f"samples must be an integer >= 1, got {samples!r}")
    m = int(samples)
    A = np.random.default_rng(seed).standard_normal((m, n)) * np.linspace(2.0, 0.5, n)
    A.setflags(write=False)
    lam = scipy.linalg.eigh(A.T @ A / m, eigvals_only=True, subset_by_index=[n - p, n - 1])
    f_star = float(-0.5 * lam.sum())

    def cost_and_egrad(X: Array) -> tuple[Array, Array]:
        Y = A @ X
        return -0.5 / m * np.einsum("...ij,...ij->...", Y, Y), (_t(A) @ Y) / -m

    def sample_terms(X: Array, idx: Array) -> tuple[Array, Array]:
        Y = np.take(A, idx, axis=0) @ X
        return -0.5 * np.einsum("...ij,...ij->...i", Y, Y), Y

    def entry_sum(E: Array, idx: Array) -> Array:
        return -(_t(np.take(A, idx, axis=0)) @ E)

    def batch_cost_and_egrad(X: Array, idx: Array) -> tuple[Array, Array]:
        rows = np.take(A, idx, axis=0)  # the gather is a pass over b rows of A: once
        Y = rows @ X
        squares = np.vdot(Y, Y) if Y.ndim == 2 else np.einsum("...ij,...ij->...", Y, Y)
        return -0.5 / len(idx) * squares, (_t(rows) @ Y) / -len(idx)

    return FiniteSum(
        name="online pca", n=n, p=p, cost=lambda X: cost_and_egrad(X)[0],
        egrad=lambda X: cost_and_egrad(X)[1], cost_and_egrad=cost_and_egrad, f_star=f_star,
        f_star_by_det={1: f_star, -1: f_star} if p == n else {},
        description="−½ mean ‖Xᵀaᵢ‖² over m samples: PCA as a finite sum",
        n_samples=m, sample_terms=sample_terms, entry_sum=entry_sum, entry_floats=p, samples=A,
        lipschitz=float(np.max(np.einsum("ij,ij->i", A, A))),
        batch_cost_and_egrad=batch_cost_and_egrad)


PROBLEMS: dict[str, Callable[..., Problem]] = {
    "brockett": brockett,
    "procrustes": procrustes,
    "pca": pca,
    "linear": linear,
    "quartic": quartic,
    "generalized_eigen": generalized_eigen,
}
MATRIX_KEYWORDS: dict[str, tuple[str, ...]] = {
    name: tuple(arg.name for arg in inspect.signature(make).parameters.values()
                if arg.kind is inspect.Parameter.KEYWORD_ONLY and arg.default is None)
    for name, make in PROBLEMS.items()
}
"""The user-supplied matrices each constructor takes (its keyword-only arguments that default
to None, drawn from the seed when not given; a number such as generalized_eigen's
``condition`` is not a matrix)."""


def make_problem(name: str, n: int, p: int, seed: int = 0, **matrices: Array) -> Problem:
    """A problem from the catalogue by name, optionally from user-supplied matrices.

    ``matrices`` are the keyword matrices of the named constructor (``A`` for brockett, ``A``/``B``
    for procrustes, ``data`` for pca, ``C`` for linear, ``A``/``B`` for generalized_eigen, whose
    ``B`` is the constraint's X^T B X = I); each is checked for shape and finiteness.
    """
    if name not in PROBLEMS:
        raise ValueError(f"unknown problem {name!r}; choose one of {', '.join(PROBLEMS)}. "
                         "For a cost of your own, pass Problem(n=..., p=..., cost=..., "
                         "egrad=...) or any object with n, p, cost and egrad to the solvers")
    takes = MATRIX_KEYWORDS[name]
    unknown = sorted(set(matrices) - set(takes))
    if unknown:
        what = f"the matrices {', '.join(takes)}" if takes else "no matrix"
        raise TypeError(f"make_problem({name!r}) takes {what}, not {', '.join(unknown)}. For a "
                        "cost of your own, build Problem(n=..., p=..., cost=..., egrad=...)")
    return PROBLEMS[name](n, p, seed, **matrices)


def initial_point(
    n: int,
    p: int,
    distance: float = 0.3,
    seed: int = 0,
    *,
    singular_values: Array | None = None,
    B: Any = None,
) -> Array:
    """A random X0 = U diag(s) V^T in R_*^{n x p} at a prescribed distance from St(n, p)
    (``constraints.draw``; ``Constraint.initial_point`` for any constraint).

    With ``B`` (symmetric positive definite, dense or sparse), U is B-orthonormal
    (U^T B U = I_p) instead, so X0^T B X0 = V diag(s^2) V^T and ||h_B(X0)||_F = ||s^2 - 1||:
    the same construction for the generalized Stiefel manifold X^T B X = I_p.

    The nearest point of St(n, p) to X0 is its polar factor U V^T, at Frobenius distance
    ||s - 1||_2. By default s = 1 + distance * u with u a random unit vector; when that would bring
    a singular value below 0.1 (large distances), the outward direction |u| is used instead so X0
    stays full rank. ``singular_values`` prescribes s directly.
    """
    _check_sizes(n, p)
    U, s, V = draw(n, p, distance, seed, singular_values)
    if B is not None:
        U = b_orthonormal(U, B)
    return (U * s) @ V.T
