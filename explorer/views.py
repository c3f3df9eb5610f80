"""Which geometry views the explorer shows for a run of size (n, p), with their titles and
captions: pure (no streamlit). The player draws them (explorer/player/player.js)."""

from __future__ import annotations

VIEWS = {  # name -> (short label, title, caption)
    "plane": ("Plane", "The plane: St(2, 1) is the unit circle",
              "Colour: f. Black circle: the manifold ‖x‖ = 1. Dashed circle: the layer "
              "manifold ‖x‖ = ‖xₖ‖ the iterate is on. Arrows: the landing field −V."),
    "sphere": ("Sphere", "The sphere: St(3, 1) coloured by the cost",
               "Dashed outline: the layer sphere ‖x‖ = ‖xₖ‖. The path is drawn just outside "
               "the sphere, its far side faint. Drag to turn."),
    "frame": ("Frame", "The frame: the two columns of Xₖ on the sphere",
              "Arrows: the columns of Xₖ; lines: the paths of their tips, far side faint. β "
              "weighs the frame's turn within its span against its tilt. Drag to turn."),
    "sigma": ("Singular values", "Singular values of Xₖ",
              "On St(n, p) every singular value is 1: the normal term pulls them there. Dotted: "
              "the exact normal flow σᵢ² = 1/(1 + (σᵢ₀⁻² − 1)·exp(−2ωt)) at t = Σ ηⱼωⱼ/ω, the "
              "same for every cost and β; the iterates follow it to O(η), closely for small "
              "steps (a BB or safe step of ηω = ½ departs from it visibly)."),
    "cone": ("Gram matrix", "The Gram matrix XₖᵀXₖ in the cone SPD(2)",
             "Each point is (m₁₁, m₂₂, m₁₂); the flow ends at I = (1, 1, 0) whatever the cost. "
             "Dotted: the exact flow Ṁ = −2ωM(M − I) from X₀ᵀX₀, which no cost or β changes. "
             "Drag to turn."),
    "metric": ("Metric", "The β-metric: the unit ball of gᵝ in the tangent space at Xₖ",
               "Small β: the ball is long along the turn u (a rotation of the frame within its "
               "span), so gradᵦ f turns the frame there; large β: the ball is flat along u, so "
               "the step moves the span (b₁, b₂: the span's tilt). The arrows are directions, "
               "drawn to the balls' surface; the step goes against gradᵦ f. The turn share is "
               "|u| over an arrow's length: 1 for a pure turn, 0 for a pure tilt. Near the end "
               "the gradient is small and points along what is left to fix."),
    "safe": ("Safe step", "The safe region along the step from Xₖ",
             "The curve: ‖h(Xₖ − ηVₖ)‖ for the step's direction Vₖ (its square is a quartic "
             "in η); dashed: the level ε of the safe region; η*: the safe step's bound (at most "
             "1/(2ω)), below which the curve is guaranteed to stay under max(ε, ‖h(Xₖ)‖), "
             "none where ‖h(Xₖ)‖ ≥ 1; dot: the step ηₖ "
             "the rule took and ‖h(Xₖ₊₁)‖."),
}


B_VIEWS = {  # the same views on XᵀBX = I (B symmetric positive definite)
    "plane": ("Plane", "The plane: xᵀBx = 1 is an ellipse",
              "Colour: f. Black ellipse: the manifold xᵀBx = 1. Dashed ellipse: the layer "
              "xᵀBx = xₖᵀBxₖ the iterate is on. Arrows: the landing field −V for B."),
    "sphere": ("Ellipsoid", "The ellipsoid xᵀBx = 1 coloured by the cost",
               "Dashed outline: the layer ellipsoid xᵀBx = xₖᵀBxₖ. The path is drawn just "
               "outside the surface, its far side faint. Drag to turn."),
    "frame": ("Frame", "The frame: the two columns of Xₖ on the ellipsoid xᵀBx = 1",
              "Arrows: the columns of Xₖ; lines: the paths of their tips, far side faint. On "
              "XᵀBX = I each column lies on the ellipsoid xᵀBx = 1 and the two are "
              "B-orthogonal (x₁ᵀBx₂ = 0), not perpendicular. Drag to turn."),
    "sigma": ("Singular values", "Singular values of B^½Xₖ",
              "On XᵀBX = I every singular value of B^½X is 1: the normal term pulls them "
              "there."),
    "cone": ("Gram matrix", "The Gram matrix XₖᵀBXₖ in the cone SPD(2)",
             "Each point is (m₁₁, m₂₂, m₁₂) of XₖᵀBXₖ; the flow ends at I = (1, 1, 0). "
             "Drag to turn."),
}


METRIC_MAX_NP = 400
"""The Metric view's slice is computed at every iterate (Gram-Schmidt on n x p matrices, a p x p
Lyapunov solve for its residual): at St(200, 50) it made a live run's iterations about 2.5
times as costly in CPU time, so large sizes do without it."""


def available(n: int, p: int, constrained: bool = False, step: str | None = None) -> list[str]:
    """The geometry views for this (n, p): the plane (2, 1), the sphere (3, 1), the moving
    frame (3, 2), singular values (any p >= 2, p = 1 beyond n = 3, and St(1, 1)), the SPD(2) cone
    (p = 2); on XᵀX = I (not ``constrained`` to XᵀBX = I) the β-metric where the tangent space
    has a turn and three dimensions (p >= 2, np - p(p+1)/2 >= 3: ``metric_view``'s slice) up to
    np = METRIC_MAX_NP, and the safe region along the step (every size) but under the
    scale-free ``step`` rule: its step moves along T + ω_k N with ω_k = min(ω, 1)/(2η_k), not
    along the field V the view's curve of ‖h(X − ηV)‖ follows."""
    names = []
    if (n, p) == (2, 1):
        names.append("plane")
    if (n, p) == (3, 1):
        names.append("sphere")
    if (n, p) == (3, 2):
        names.append("frame")
    if p >= 2 or n > 3 or not names:  # St(1, 1) too: its one singular value |x|
        names.append("sigma")
    if p == 2:
        names.append("cone")
    if not constrained:
        if p >= 2 and n * p - p * (p + 1) // 2 >= 3 and n * p <= METRIC_MAX_NP:
            names.append("metric")
        if step != "scalefree":
            names.append("safe")
    return names


def why_not_drawn(view: str, n: int, p: int, constrained: bool, step: str | None) -> str:
    """Why ``available`` leaves ``view`` out of this run's views, in a link's warning's words
    (the predicate of "URL parameter view=... ")."""
    if view not in VIEWS:
        return "is not a view"
    if view in available(n, p):
        if constrained and view not in available(n, p, True):
            return "is drawn on XᵀX = I only"
        return "is not drawn under the scale-free step rule (its step leaves the field V)"
    return "is not a view of this size"
