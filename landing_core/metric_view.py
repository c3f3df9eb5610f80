"""The β-metric drawn in three dimensions, and the safe region along one step.

Goyens, Absil & Feppon (``shared/paper/landing-beta-metric.tex``). For X in R_*^{n x p} with
M = X^T X, every tangent vector of the layer St_M through X splits as (eq. (tgtspace2))

    xi = X M^{-1} Omega + Delta,   Omega = X^T xi in Skew(p),   X^T Delta = 0:

a *turn* X M^{-1} Omega, which moves the frame within its span (span(xi's turn) = span(X)),
and a *span move* Delta, which tilts the span. The proposition on g^beta in the basis [X X_perp]
(with X_perp^T X_perp = I, Delta = X_perp B) gives, for two tangent vectors,

    g^beta_X(xi, zeta)  = beta <Omega_xi, M^{-1} Omega_zeta M^{-1}> + <Delta_xi, Delta_zeta M^{-1}>,
    <xi, zeta>_F        =      <Omega_xi, M^{-1} Omega_zeta>         + <Delta_xi, Delta_zeta>,

(A = M^{-1} Omega in the proposition; X_perp^T X_perp = I turns tr(B^T B' M^{-1}) into
<Delta, Delta' M^{-1}>). Both are block diagonal: turns and span moves are orthogonal for every
beta, and beta scales the turn block only. So the unit ball of g^beta, in coordinates that are
orthonormal for the Frobenius inner product, is an ellipsoid whose turn semi-axes scale like
1/sqrt(beta): at M = I, semi-axis 1/sqrt(beta) along the turn u and 1 along the span moves.

The gradient: Df(X)[xi] = <G, xi> = <P^E G, xi> for tangent xi (P^E the Frobenius projection),
so with c_E the coordinates of P^E G and K the matrix of g^beta, grad_beta f has the
coordinates K^{-1} c_E, and the point of the g^beta unit ball where the plane {df = const}
touches it (the steepest ascent of df on the ball) is grad_beta f / ||grad_beta f||_beta.

Which three dimensions (``metric_slice``):

* St(3, 2): the whole tangent space (dimension 3). u: the turn Omega = theta J,
  J = [[0, -1], [1, 0]] (u = sqrt(tr M^{-1}) theta, = sqrt(2) theta at M = I); b_j: column j of
  X leaves the span along the unit normal x_perp = X_1 x X_2 / ||X_1 x X_2|| (xi's span move
  is x_perp [b_1, b_2]).
* Other sizes: the slice spanned by one turn axis and two span axes (fewer where the tangent
  space has fewer such directions). The turn axis is theta J in columns 1 and 2 for p = 2, the
  turn part of grad_beta f for p >= 3 (its direction, X M^{-1}(A M - M A^T) with A = X^T G, does
  not depend on beta); the span axes are spanned by the span moves of P^E G (G - X M^{-1} A)
  and of grad_beta f (G M - X M^{-1} A M), both beta-free. The slice thus contains
  grad_beta f for every beta (its turn and span parts lie in it), so the drawn gradient and the
  tangent point are the true ones; it contains P^E G except, for p >= 3 off the manifold, the
  part of its turn that is not parallel to grad_beta f's (``MetricSlice.residual``; zero for
  p <= 2 and on St(n, p)). Directions that vanish (a critical point) are replaced by fixed
  ones: turns in columns (i, j), span moves (I - X M^{-1} X^T) E_ij.

No n x n matrix is formed: every inner product above is a p x p or an n x p computation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

import numpy as np

from .geometry import _RANK_DEFICIENT, _cholesky, _gram_solve, gram, skew

Array = np.ndarray

__all__ = [
    "METRIC_ROW",
    "SAFE_ROW",
    "MetricSlice",
    "SafeCurve",
    "ball_axes",
    "metric_row",
    "metric_rows",
    "metric_slice",
    "safe_curve",
    "safe_row",
    "slice_description",
    "slice_metric",
]

J = np.array([[0.0, -1.0], [1.0, 0.0]])
"""The rotation generator of Skew(2): Omega = theta J turns a frame of two columns by theta."""

_DEPENDENT = 1e-8
"""A candidate axis whose Gram-Schmidt residual is below this fraction of its norm is taken as
dependent on the axes already chosen (the residual is then rounding, not a direction)."""


class MetricSlice(NamedTuple):
    """A 3-D slice of T_X St_{X^T X} with the beta-metric and the gradients in its coordinates.

    axes: (k, n, p), k <= 3, Frobenius-orthonormal tangent vectors (coordinate i of xi is
    <axes[i], xi>); kinds: "turn" or "span" for each axis; labels: what each axis is;
    turn_metric, span_metric: (k, k) blocks of g^beta in these coordinates, so that the matrix
    of g^beta is ``beta * turn_metric + span_metric`` (``slice_metric``); metric: that matrix at
    the slice's beta; frobenius: the coordinates of P^E G (= of df, since <G, xi> = <P^E G, xi>
    on tangent vectors); grad: those of grad_beta f = metric^{-1} frobenius; touch: the point of
    the unit ball of g^beta where the plane {df = level} touches it, grad / ||grad||_beta (zero
    at a critical point); level = ||grad_beta f||_beta = max of df on the ball; residual: the
    Frobenius norm of the part of P^E G outside the slice; full: the slice is the whole
    tangent space.
    """

    axes: Array
    kinds: tuple[str, ...]
    labels: tuple[str, ...]
    beta: float
    turn_metric: Array
    span_metric: Array
    metric: Array
    frobenius: Array
    grad: Array
    touch: Array
    level: float
    residual: float
    full: bool


def slice_description(n: int, p: int) -> tuple[tuple[str, ...], str]:
    """The slice's axis labels for St(n, p) (where the tangent space has a turn and three
    dimensions: p >= 2, np - p(p+1)/2 >= 3) and one sentence saying which slice is drawn."""
    dim = n * p - p * (p + 1) // 2
    if (n, p) == (3, 2):
        return (("u: turn within the span (Ω = θJ)", "b₁: column 1 leaves the span",
                 "b₂: column 2 leaves the span"),
                "St(3, 2): the whole tangent space (3-D) of the layer through Xₖ.")
    turn = "u: turn of gradᵦ f within the span" if p >= 3 else "u: turn within the span (Ω = θJ)"
    if n == p:
        return ((turn, "u₂: a further turn within the span", "u₃: a further turn within the span"),
                f"O({n}): the tangent space ({dim}-D) holds turns only; drawn: the 3-D slice "
                "through the turn of gradᵦ f and two further turns.")
    return ((turn, "b₁: span move of the Frobenius gradient", "b₂: span move of gradᵦ f"),
            f"St({n}, {p}): the tangent space is {dim}-D; drawn: the 3-D slice through the turn "
            "of gradᵦ f and the span moves of the Frobenius gradient and of gradᵦ f, which "
            "holds gradᵦ f for every β"
            + ("." if p == 2 else " (and the Frobenius gradient up to the residual shown)."))


def _turn(X: Array, M: Array, Omega: Array) -> Array:
    """The turn X M^{-1} Omega (Omega skew)."""
    return X @ _gram_solve(M, Omega)


def _span(X: Array, M: Array, Z: Array) -> Array:
    """The span move of Z: (I - X M^{-1} X^T) Z, computed as Z - X (M^{-1} (X^T Z))."""
    return Z - X @ _gram_solve(M, X.T @ Z)


def _orthonormal(candidates: Iterable[Array], count: int,
                 back: Callable[[Array], Array]) -> list[Array]:
    """Up to ``count`` Frobenius-orthonormal vectors spanning the leading candidates (modified
    Gram-Schmidt, twice for orthogonality to rounding).

    ``back`` maps a vector back into the candidates' subspace (turns or span moves) and is the
    identity there. A candidate nearly in the span of those found leaves a residual of size
    r << 1 whose rounding, divided by r, would carry it off its subspace by eps / r: mapping
    each pass's vector back keeps it there to eps times cond(M) (the threshold lets r reach
    1e-8)."""
    found: list[Array] = []
    for c in candidates:
        if len(found) == count:
            break
        size = np.linalg.norm(c)
        if not size > 0:
            continue
        v = c / size
        for _ in range(2):
            v = back(v)
            for b in found:
                v = v - np.vdot(b, v) * b
        r = np.linalg.norm(v)
        if r > _DEPENDENT:
            found.append(v / r)
    return found


def _normal_3x2(X: Array) -> Array:
    """The unit normal X_1 x X_2 / ||X_1 x X_2|| of the span of a 3 x 2 matrix (it turns with X,
    so the axes b_1, b_2 keep their meaning along a run)."""
    (a1, b1), (a2, b2), (a3, b3) = X.tolist()
    c = np.array([a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1])
    return c / np.linalg.norm(c)


def _axes(X: Array, G: Array, M: Array) -> tuple[list[Array], list[str], list[str]]:
    """The slice's axes (see the module docstring), their kinds and labels."""
    n, p = X.shape
    if (n, p) == (3, 2):
        nrm = _normal_3x2(X)
        u = _turn(X, M, J)
        span = np.zeros((2, 3, 2))
        span[0, :, 0] = span[1, :, 1] = nrm
        return ([u / np.linalg.norm(u), span[0], span[1]], ["turn", "span", "span"],
                ["u: turn within the span (Ω = θJ)", "b₁: column 1 leaves the span",
                 "b₂: column 2 leaves the span"])
    A = X.T @ G
    AM = A @ M

    def turn_cands() -> Iterator[Array]:
        yield _turn(X, M, J if p == 2 else AM - AM.T)  # A M - M A^T (M symmetric)
        for i in range(p):
            for j in range(i + 1, p):
                E = np.zeros((p, p))
                E[j, i], E[i, j] = 1.0, -1.0
                yield _turn(X, M, E)

    def span_cands() -> Iterator[Array]:
        span_G = G - X @ _gram_solve(M, A)  # (I - X M^{-1} X^T) G
        yield span_G
        yield span_G @ M  # (I - X M^{-1} X^T) G M, the span move of grad_beta f
        for i in range(n):
            for j in range(p):
                E = np.zeros((n, p))
                E[i, j] = 1.0
                yield _span(X, M, E)

    dim_turn, dim_span = p * (p - 1) // 2, (n - p) * p
    k_span = min(3 - min(1, dim_turn), dim_span)
    turns = _orthonormal(turn_cands(), min(3 - k_span, dim_turn),
                         lambda v: _turn(X, M, skew(X.T @ v)))
    # span moves are Frobenius-orthogonal to turns: X^T (I - X M^{-1} X^T) = 0
    spans = _orthonormal(span_cands(), k_span, lambda v: _span(X, M, v))
    first = "u: turn of gradᵦ f within the span" if p >= 3 else "u: turn within the span (Ω = θJ)"
    labels = [first, "u₂: a further turn within the span", "u₃: a further turn within the span"]
    labels = labels[: len(turns)]
    labels += ["b₁: span move of the Frobenius gradient", "b₂: span move of gradᵦ f",
               "b₃: a further span move"][: len(spans)]
    return turns + spans, ["turn"] * len(turns) + ["span"] * len(spans), labels


def slice_metric(turn_metric: Array, span_metric: Array, beta: float) -> Array:
    """The matrix of g^beta in a slice's coordinates: beta scales the turn block only."""
    return beta * turn_metric + span_metric


def metric_slice(X: Array, G: Array, beta: float) -> MetricSlice:
    """The slice of T_X St_{X^T X} drawn by the Metric view (module docstring), with g^beta
    (the proposition on g^beta in the basis [X X_perp]), P^E G and grad_beta f (eq.
    (grad_beta)) in its Frobenius-orthonormal coordinates. X: (n, p) of full rank; G: the
    Euclidean gradient at X; beta > 0."""
    X, G = np.asarray(X, dtype=float), np.asarray(G, dtype=float)
    n, p = X.shape
    M = gram(X)
    axes, kinds, labels = _axes(X, G, M)
    k = len(axes)
    E = np.array(axes).reshape(k, n, p)
    is_turn = np.array([kind == "turn" for kind in kinds], dtype=bool)
    Om = np.zeros((k, p, p))  # the turns' Omega = X^T xi (zero for span moves)
    Om[is_turn] = X.T @ E[is_turn]
    _cholesky(M)  # a clear error for a rank-deficient X; the solves below are batched
    MinvOm = np.linalg.solve(M, Om)
    # M^{-1} Omega M^{-1} = (M^{-1} (M^{-1} Omega)^T)^T and Delta M^{-1} = (M^{-1} Delta^T)^T
    MOM = np.linalg.solve(M, MinvOm.mT).mT
    EMinv = np.linalg.solve(M, E.mT).mT
    turn = np.einsum("iab,jab->ij", Om, MOM) * np.outer(is_turn, is_turn)
    span = np.einsum("iab,jab->ij", E, EMinv) * np.outer(~is_turn, ~is_turn)
    turn, span = 0.5 * (turn + turn.T), 0.5 * (span + span.T)  # symmetric to the last bit
    K = slice_metric(turn, span, beta)
    c_E = np.einsum("iab,ab->i", E, G)
    grad = np.linalg.solve(K, c_E) if k else c_E
    level = math.sqrt(max(float(c_E @ grad), 0.0))
    touch = grad / level if level > 0 else np.zeros_like(grad)
    full = k == n * p - p * (p + 1) // 2
    residual = 0.0 if p <= 2 or full else _turn_residual(X, G, M, Om, c_E, is_turn)
    return MetricSlice(E, tuple(kinds), tuple(labels), float(beta), turn, span, K, c_E, grad,
                       touch, level, residual, full)


def _turn_residual(X: Array, G: Array, M: Array, Om: Array, c_E: Array, is_turn: Array) -> float:
    """The Frobenius norm of the part of P^E G outside the slice, in p x p work.

    P^E G = G - X S with M S + S M = X^T G + G^T X (``geometry.proj_euclidean``): its span move
    (I - X M^{-1} X^T) G is the slice's first span candidate, so only its turn X M^{-1} Omega_E,
    Omega_E = A - M S (A = X^T G), can leave the slice; what leaves is the turn R = Omega_E -
    sum_i c_i Omega_i over the turn axes, of norm <R, M^{-1} R>^(1/2).
    """
    A = X.T @ G
    lam, Q = np.linalg.eigh(M)
    C = Q.T @ (A + A.T) @ Q
    S = Q @ (C / (lam[:, None] + lam[None, :])) @ Q.T
    R = A - M @ S - np.einsum("i,iab->ab", c_E * is_turn, Om)
    return math.sqrt(max(float(np.vdot(R, np.linalg.solve(M, R))), 0.0))


def ball_axes(metric: Array) -> tuple[Array, Array]:
    """(radii, directions) of the ellipsoid {c : c^T K c <= 1}: K = V diag(lam) V^T gives the
    semi-axes 1/sqrt(lam_i) along the columns of V."""
    lam, V = np.linalg.eigh(metric)
    return 1.0 / np.sqrt(lam), V


class SafeCurve(NamedTuple):
    """The infeasibility along one step, X(eta) = X - eta V.

    coefficients: c_0..c_4 with ||h(X(eta))||_F^2 = sum_j c_j eta^j (h = X^T X - I_p);
    d = ||h(X)||_F; eps: the safe region's level; eta_star: the safe step's bound (Ablin et al.,
    2024, the safe step-size lemma; NaN where d >= 1, where the lemma says nothing);
    eta_exact: the first eta > 0 where ||h(X(eta))|| reaches max(eps, d) (inf if it never does).
    """

    coefficients: Array
    d: float
    eps: float
    eta_star: float
    eta_exact: float


def safe_curve(X: Array, V: Array, omega: float, eps: float, exact: bool = True) -> SafeCurve:
    """||h(X - eta V)||^2 as a quartic in eta, and the safe step's bound on it.

    h(X - eta V) = H - eta S + eta^2 Q with H = h(X), S = X^T V + V^T X, Q = V^T V (p x p), so

        ||h||^2 = <H,H> - 2 eta <H,S> + eta^2 (<S,S> + 2 <H,Q>) - 2 eta^3 <S,Q> + eta^4 <Q,Q>.

    The safe bound: for a landing field V = T + omega X H (X^T T skew), S = 2 omega (I + H) H
    and the lemma's upper bound ||h(X - eta V)|| <= d - 2 eta omega d (1 - d) + eta^2 ||V||^2
    (for eta omega <= 1/2) stays below max(eps, d) up to the positive root of that quadratic;
    eta_star is the root, capped at 1/(2 omega). ``exact``: also the first crossing
    (``SafeCurve.eta_exact``, the quartic's roots; NaN when not asked for).
    """
    X, V = np.asarray(X, dtype=float), np.asarray(V, dtype=float)
    p = X.shape[1]
    H = X.T @ X - np.eye(p)
    XtV = X.T @ V
    S = XtV + XtV.T
    Q = V.T @ V
    coef = np.array([np.vdot(H, H), -2.0 * np.vdot(H, S), np.vdot(S, S) + 2.0 * np.vdot(H, Q),
                     -2.0 * np.vdot(S, Q), np.vdot(Q, Q)])
    d = float(np.sqrt(coef[0]))
    level = max(eps, d)
    g2 = float(np.vdot(V, V))
    if d < 1.0:
        # the larger root of g2 eta^2 - 2 a eta - (level - d) = 0, a = omega d (1 - d) >= 0
        # (the roots' product -(level - d)/g2 is <= 0), in the form without cancellation
        a = omega * d * (1.0 - d)
        root = (a + np.sqrt(a * a + g2 * (level - d))) / g2 if g2 > 0 else np.inf
        eta_star = min(root, 0.5 / omega) if omega > 0 else root
    else:
        eta_star = float("nan")
    eta_exact = _first_crossing(coef, level, starts_on=level == d) if exact else float("nan")
    return SafeCurve(coef, d, float(eps), float(eta_star), float(eta_exact))


def _first_crossing(coef: Array, level: float, starts_on: bool) -> float:
    """The first eta > 0 where sum_j coef_j eta^j = level^2 (inf if none): the quartic's roots,
    polished by Newton steps. Where the curve starts on the level (d >= eps), the root eta = 0
    is divided out, so that rounding does not report a spurious crossing next to 0."""
    shifted = coef.copy()
    shifted[0] -= level**2
    poly = np.polynomial.Polynomial(shifted)
    reduced = np.polynomial.Polynomial(coef[1:]) if starts_on else poly
    roots = reduced.roots()
    scale = max(1.0, float(np.max(np.abs(roots)))) if roots.size else 1.0
    real = sorted(float(r.real) for r in roots if abs(r.imag) <= 1e-7 * scale and r.real > 0)
    if not real:
        return float("inf")
    eta, dpoly = real[0], poly.deriv()
    for _ in range(3):
        slope = dpoly(eta)
        if slope == 0:
            break
        eta -= poly(eta) / slope
    return float(eta)


METRIC_ROW = 16
"""The width of ``metric_row``."""
SAFE_ROW = 6
"""The width of ``safe_row``."""
_UPPER = (np.array([0, 1, 2, 0, 0, 1]), np.array([0, 1, 2, 1, 2, 2]))


def metric_row(X: Array, G: Array) -> Array:
    """What the Metric view needs of iterate X (beta-free, so the player applies the run's beta):
    the turn and span blocks of the slice's metric (``MetricSlice.turn_metric``, ``span_metric``)
    as (k00, k11, k22, k01, k02, k12) each, the coordinates of P^E G, and the residual; 16
    numbers. Axes beyond the tangent space's dimension are zero rows. St(3, 2) in closed form
    (``_terms_3x2``, in scalar arithmetic: it runs at every iterate of a live run)."""
    if X.shape == (3, 2):
        try:
            return np.array(_terms_3x2(X.tolist(), G.tolist(), math.sqrt))
        except (ZeroDivisionError, ValueError) as err:  # det M or ||X_1 x X_2|| is 0 (or < 0)
            raise np.linalg.LinAlgError(_RANK_DEFICIENT) from err
    S = metric_slice(X, G, 1.0)
    k = len(S.axes)
    turn, span, c = np.zeros((3, 3)), np.zeros((3, 3)), np.zeros(3)
    turn[:k, :k], span[:k, :k], c[:k] = S.turn_metric, S.span_metric, S.frobenius
    return np.concatenate([turn[_UPPER], span[_UPPER], c, [S.residual]])


def metric_rows(X: Array, G: Array) -> Array:
    """``metric_row`` of each iterate of a stack X, G (B x n x p): B x METRIC_ROW. St(3, 2) in
    one pass of array arithmetic over the stack (``_terms_3x2``: a family's members at every
    iteration), other sizes one by one."""
    if X.shape[1:] != (3, 2):
        return np.array([metric_row(x, g) for x, g in zip(X, G, strict=True)]).reshape(
            len(X), METRIC_ROW)
    terms = _terms_3x2(np.moveaxis(X, 0, -1), np.moveaxis(G, 0, -1), np.sqrt)
    return np.stack([np.broadcast_to(t, X.shape[:1]) for t in terms], axis=1)


def _terms_3x2(X: Sequence, G: Sequence, sqrt: Callable) -> list:
    """metric_row's 16 numbers at St(3, 2) from the entries of X and G, floats (one iterate,
    ``math.sqrt``) or arrays over a stack (``np.sqrt``), by the same arithmetic: turn block
    2 / tr M (tr(J^T M^{-1} J M^{-1}) = 2 / det M and tr M^{-1} = tr M / det M), span block
    M^{-1}, c = (tr(J^T M^{-1} A) / sqrt(tr M^{-1}), x_perp^T G) with A = X^T G and x_perp the
    unit normal X_1 x X_2 / ||X_1 x X_2|| (``_normal_3x2``)."""
    (x11, x12), (x21, x22), (x31, x32) = X
    (g11, g12), (g21, g22), (g31, g32) = G
    m11 = x11 * x11 + x21 * x21 + x31 * x31
    m22 = x12 * x12 + x22 * x22 + x32 * x32
    m12 = x11 * x12 + x21 * x22 + x31 * x32
    det = m11 * m22 - m12 * m12
    i11, i22, i12 = m22 / det, m11 / det, -m12 / det  # M^{-1}
    a11 = x11 * g11 + x21 * g21 + x31 * g31  # A = X^T G
    a12 = x11 * g12 + x21 * g22 + x31 * g32
    a21 = x12 * g11 + x22 * g21 + x32 * g31
    a22 = x12 * g12 + x22 * g22 + x32 * g32
    # tr(J^T M^{-1} A) with J = [[0, -1], [1, 0]]: J^T M^{-1} = [[i12, i22], [-i11, -i12]]
    cu = (i12 * a11 + i22 * a21 - i11 * a12 - i12 * a22) / sqrt(i11 + i22)
    n1, n2, n3 = x21 * x32 - x31 * x22, x31 * x12 - x11 * x32, x11 * x22 - x21 * x12
    length = sqrt(n1 * n1 + n2 * n2 + n3 * n3)
    cb1 = (n1 * g11 + n2 * g21 + n3 * g31) / length
    cb2 = (n1 * g12 + n2 * g22 + n3 * g32) / length
    return [2.0 / (m11 + m22), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, i11, i22, 0.0, 0.0, i12,
            cu, cb1, cb2, 0.0]


def safe_row(X: Array, V: Array, omega: float, eps: float) -> Array:
    """What the Safe step view needs of iterate X and its field V: the quartic's coefficients
    c_0..c_4 of ||h(X - eta V)||^2 and the safe bound eta* (``safe_curve``); 6 numbers."""
    C = safe_curve(X, V, omega, eps, exact=False)
    return np.append(C.coefficients, C.eta_star)
