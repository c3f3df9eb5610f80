"""Lecture presets: one click loads a configuration (and the rows to compare) and shows it."""

from __future__ import annotations

from dataclasses import dataclass, field

from .compare import Row
from .state import AppConfig
from .stochastic import StochasticSpec


@dataclass(frozen=True)
class Question:
    """Predict, then run: what to ask the class, its answer (true of the preset's own run, this
    app's measurement; tests/app/test_deck.py reruns it) and the iteration ``at`` which the player
    stops, and the Compare page's curves end, until Reveal."""

    ask: str
    answer: str
    at: int

    def __post_init__(self) -> None:
        # the page highlights the answer as :green-background[...] (explorer.lecture), which
        # a "]" in it would end early
        if "]" in self.answer:
            raise ValueError(f"a question's answer may not hold ']': {self.answer!r}")


@dataclass(frozen=True)
class Preset:
    """A named configuration with two lines of what to look at, shown on ``page``."""

    title: str
    look_at: str
    page: str  # "explorer", "compare", "theory" or "stochastic"
    config: AppConfig
    rows: list[Row] = field(default_factory=list)
    fairness: str = "as set in each row"
    view: str | None = None  # the explorer's geometry view
    demo: str | None = None  # the Theory page's demonstration (explorer.demos.DEMOS)
    stochastic: StochasticSpec | None = None  # the Stochastic page's settings
    question: Question | None = None  # asked in lecture mode, answered on Reveal


def rows_over(name: str, values: tuple[float, ...], **settings) -> list[Row]:
    """One row per value of the parameter ``name`` ("beta" or "omega"), labelled "β = 0.1" etc.;
    ``settings``: what the rows share (``compare.Row``'s fields)."""
    symbol = {"beta": "β", "omega": "ω"}[name]
    return [Row(f"{symbol} = {v:g}", **{name: v}, **settings) for v in values]


PRESETS: list[Preset] = [
    Preset(
        "The circle: landing, penalty and retraction from the same X₀",
        "Landing glides in from off the circle and lands exactly on it; the penalty method "
        "settles at a point off the circle (its bias: ‖h‖ stays near 1.3 for ω = 1). "
        "Riemannian GD starts at the nearest point of the circle and never leaves it.",
        "compare",
        AppConfig(problem="brockett", n=2, p=1, seed=3, distance=0.5, step="safe", eta=0.1,
                  max_iter=400),
        [Row("landing", step="safe", eta=0.1),
         Row("penalty f + ω/4‖h‖²", method="penalty", step="safe", eta=0.1),
         Row("Riemannian GD (QR)", method="rgd-qr", beta=1.0, step="safe", eta=0.1)],
        question=Question(
            "Where does each method end: on the circle, or off it?",
            "Landing lands on the circle (‖XᵀX − I‖ below 10⁻⁸ after 89 iterations). The "
            "penalty method settles off it, at ‖XᵀX − I‖ ≈ 1.3, and stays there until the "
            "iteration limit (400). Riemannian GD never leaves the circle (36 iterations).",
            at=10),
    ),
    Preset(
        "The frame on the sphere: β = 0.1 against β = 10",
        "Small β speeds up the rotation of the frame within its own span (the 1/β block): the "
        "columns keep their lengths and angle and turn together in their plane, and with "
        "β = 0.1 the frame turns there about seven times as far as with β = 10, while the span "
        "itself moves about as much (the summary's last two columns). Both land.",
        "compare",
        AppConfig(problem="brockett", n=3, p=2, seed=4, distance=0.6, step="bb", max_iter=3000),
        rows_over("beta", (0.1, 10.0), step="bb"),
        question=Question(
            "β = 0.1 or β = 10: which turns the frame further within its span, and which "
            "lands first?",
            "β = 0.1, on both counts: it turns the frame about seven times as far within its "
            "span (2.4 rad against 0.33, the summary's turn column) and converges in 27 "
            "iterations against 55. The span itself moves about as much (2.0 and 1.9).",
            at=5),
    ),
    Preset(
        "Too large a step diverges; the safe step does not",
        "With η = 0.08 the constant step blows up within a few iterations (status diverged, "
        "the ✕ where it stops). "
        "The safe step shortens the first steps so that ‖XᵀX − I‖ stays bounded, and converges.",
        "compare",
        AppConfig(problem="brockett", n=20, p=4, seed=0, distance=0.3, step="safe", eta=0.08,
                  max_iter=1500),
        [Row("constant η = 0.08", step="constant", eta=0.08),
         Row("safe step, η ≤ 0.08", step="safe", eta=0.08)],
        question=Question(
            "Will the constant step η = 0.08 converge?",
            "No: it diverges, ‖XᵀX − I‖ passing 10⁶ at k = 9. The safe step, shortened where "
            "needed, keeps ‖XᵀX − I‖ from growing and converges (1,364 iterations).",
            at=2),
    ),
    Preset(
        "The Gram matrix flows to I whatever the cost",
        "Follow the point (m₁₁, m₂₂, m₁₂) of XₖᵀXₖ through the cone of SPD(2) to I = (1, 1, 0). "
        "The dotted curve is the exact flow Ṁ = −2ωM(M − I) from X₀ᵀX₀, in which neither f nor "
        "β appears. The path follows it to first order in η: each step adds η²VᵀV to the "
        "flow's Euler step, so the gap is O(η) and grows with the tangent term, i.e. with the "
        "cost and with small β (the rotation block scales with 1/β). In this app's runs the "
        "largest gap ‖XₖᵀXₖ − M(tₖ)‖ is 0.05 here (η = 0.02) and halves with η, but is 0.41 "
        "for PCA at β = 0.1 from the same X₀.",
        "explorer",
        AppConfig(problem="linear", n=3, p=2, seed=1, distance=1.0, step="constant", eta=0.02,
                  max_iter=1500),
        view="cone",
        question=Question(
            "Where does the Gram matrix XₖᵀXₖ end, and does its path keep to the dotted flow, "
            "in which the cost does not appear?",
            "At I = (1, 1, 0), after 932 iterations, and within 0.05 of the dotted flow all "
            "the way (the largest ‖XₖᵀXₖ − M(tₖ)‖): the cost bends the path only at order η.",
            at=25),
    ),
    Preset(
        "ω: pull harder, step shorter",
        "Near the sphere ‖XᵀX − I‖ decays at rate 2ω, but the safe step caps η at 1/(2ω). "
        "In this app's runs ω = 0.3 lands slowly (151 iterations), ω = 30 crawls along f under "
        "its cap η ≤ 1/60 (801), ω = 3 does best (72). The penalty at ω = 3 stops off the "
        "sphere, at ‖h‖ = 2|λₘᵢₙ|/ω = 0.63 (the summary's final ‖XᵀX − I‖); landing has no "
        "such bias for any ω.",
        "compare",
        AppConfig(problem="brockett", n=3, p=1, seed=0, distance=0.5, step="safe", eta=0.2,
                  max_iter=1500),
        [*rows_over("omega", (0.3, 3.0, 30.0), eta=0.2),
         Row("penalty, ω = 3", method="penalty", omega=3.0, eta=0.2)],
        question=Question(
            "Which ω lands first: 0.3, 3 or 30? And where does the penalty (ω = 3) settle?",
            "ω = 3, in 72 iterations; ω = 0.3 takes 151, and ω = 30, its step capped at 1/60, "
            "801. The penalty stops off the sphere, at ‖XᵀX − I‖ = 2|λₘᵢₙ|/ω = 0.63.",
            at=10),
    ),
    Preset(
        "β within one layer: the tangent term alone against Riemannian GD",
        "With ω = 0 the run keeps to the layer of X₀; β then acts as the metric does for "
        "Riemannian GD on St(n, p): the iterations to a small gradient grow about like β for "
        "large β in both, and level off for small β.",
        "theory",
        AppConfig(problem="brockett", n=3, p=2, seed=0, distance=0.4),
        demo="layer",
    ),
    Preset(
        "Fair rates: β under the rules that adapt",
        "Only Barzilai–Borwein and Armijo adapt the step to each β, and the stopping rule "
        "measures every β alike. On St(5, 3) β still changes the rate: it weighs the rotation "
        "block against the out-of-span block. On O(3) (p = n) β only rescales the tangent "
        "term: with ω scaled to ω/β, as here, BB takes the same number of iterations for every "
        "β (with ω fixed it would not: 118, 37, 22, 25 and 32 for β = 0.1, 0.3, 1, 3 and 10, "
        "this app's runs). Armijo's counts still move, from 52 to 133 iterations (a 2.6× "
        "spread): its halvings from a fixed first trial are not scale-free. That is still "
        "less than on St(5, 3), where Armijo took 325 to more than 2000.",
        "theory",
        AppConfig(problem="brockett", n=5, p=3, seed=0, distance=0.4),
        demo="rates",
    ),
    Preset(
        "Brockett: β changes the path, not the limit",
        "The convergence curves of β = 0.1, 1 and 5 differ, yet every final f − f* is at "
        "rounding level: the runs reach the same minimizer by different paths.",
        "compare",
        AppConfig(problem="brockett", n=3, p=2, seed=4, distance=0.4, step="bb", max_iter=3000),
        rows_over("beta", (0.1, 1.0, 5.0), step="bb"),
        question=Question(
            "β = 0.1, 1 or 5: which converges first, and do all three reach the same minimum?",
            "β = 0.1 first (23 iterations), then β = 1 (36) and β = 5 (54); all three reach "
            "f* to rounding level (|f − f*| below 10⁻¹²): different paths, one limit.",
            at=5),
    ),
    Preset(
        "PCA: β (almost) changes nothing",
        "The PCA cost is invariant under X → XQ, so XᵀG is symmetric at every X; the rotation "
        "block skew(XᵀG·XᵀX) that β scales vanishes where XᵀX = I only. From X₀ on the "
        "manifold the curves nearly coincide (what differs comes from the iterates leaving it "
        "by O(η²)). Set the X₀ distance to 0.4: there the tangent terms of β = 0.1 and β = 10 "
        "differ by 68 % at X₀ (88 % on PCA 3 × 2) and the early cost curves part (by about 0.02, "
        "against 10⁻⁴ from the manifold).",
        "compare",
        AppConfig(problem="pca", n=5, p=2, seed=0, distance=0.0, step="safe", eta=0.1,
                  max_iter=1000),
        rows_over("beta", (0.1, 1.0, 10.0), step="safe", eta=0.1),
        question=Question(
            "From X₀ on the manifold, which of β = 0.1, 1 and 10 converges first on PCA?",
            "None: all three take 510 iterations, their curves nearly on top of each other. "
            "The block that β scales vanishes on the manifold for PCA.",
            at=20),
    ),
    Preset(
        "XᵀBX = I: the layers become ellipses",
        "With B symmetric positive definite (here condition number 25) the constraint set is "
        "the ellipse xᵀBx = 1 and every layer xᵀBx = c an ellipse around it: the dashed layer "
        "shrinks onto the black one as the field −V pulls the iterate in and along "
        "(Vary, Ablin, Gao & Absil 2024). B enters only through products B x.",
        "explorer",
        AppConfig(problem="brockett", constraint="preset", n=2, p=1, seed=3, distance=0.6,
                  step="bb", max_iter=600),
        view="plane",
        question=Question(
            "X₀ starts off the ellipse xᵀBx = 1. About how many Barzilai–Borwein steps until it "
            "lands there: 5, 20 or 100?",
            "About 20: after 27 iterations ‖grad‖ + |xᵀBx − 1| is below the tolerance 10⁻⁸.",
            at=3),
    ),
    Preset(
        "XᵀX = I against XᵀBX = I from the same X₀",
        "The same cost and start, two constraints: each run lands on its own set (the final "
        "‖h‖ of both is at rounding level), at different points and costs: B changes the "
        "problem, not only the path. The B run reports ‖XᵀBX − I‖.",
        "compare",
        AppConfig(problem="brockett", n=6, p=2, seed=1, distance=0.4, step="bb", max_iter=2000),
        [Row("on XᵀX = I", step="bb", constraint="identity"),
         Row("on XᵀBX = I", step="bb", constraint="B")],
        question=Question(
            "Same cost, same X₀: do the two runs end at the same cost?",
            "No: each lands on its own set (final ‖h‖ at rounding level), at its own point: f "
            "= −2.374 on XᵀX = I (60 iterations), −2.323 on XᵀBX = I (about 180). B changes "
            "the problem, not only the path.",
            at=10),
    ),
    Preset(
        "The generalized eigenproblem: min tr(XᵀAX) on XᵀX = I and on XᵀBX = I",
        "One A, two constraints, each with its own optimum from scipy.linalg.eigh(A, B) (B = I "
        "for XᵀX = I), and the two optima differ. Both runs stop at the tolerance 10⁻⁸ on "
        "‖grad‖ + ‖h‖, so their final gaps f − f* are at that scale, not at rounding level: "
        "about −9·10⁻¹⁰ and −7·10⁻¹⁰ in this app's runs (below f*, as an iterate a little off "
        "its constraint can be), and a tighter tolerance shrinks them. Right: the "
        "columns land on the unit sphere and on the ellipsoid xᵀBx = 1, B-orthogonal there.",
        "compare",
        AppConfig(problem="generalized_eigen", n=3, p=2, seed=2, distance=0.4, step="bb",
                  max_iter=2000),
        [Row("on XᵀX = I", step="bb", constraint="identity"),
         Row("on XᵀBX = I", step="bb", constraint="B")],
    ),
    Preset(
        "Stochastic landing: SGD's noise floor against SAGA",
        "Online PCA over 1,000 samples, batches of 10, one step for all. SAGA's gap falls in a "
        "straight line (linear convergence) below 10⁻⁸ within about 100 epochs; SGD at the "
        "same step stalls near 10⁻², its noise holding X off the manifold (‖XᵀX − I‖ ≈ 10⁻²); "
        "full-batch landing, one step per pass over the data, has hardly moved.",
        "stochastic",
        AppConfig(seed=0, distance=0.3),
        stochastic=StochasticSpec(epochs=150),
    ),
    Preset(
        "The paper's idea: the metric's unit ball as β is scrubbed",
        "Drag β in the player, or press [ and ]: one run per β from 0.05 to 20, each drawn "
        "at its iterate Xₖ, in the tangent space of the layer through it. At k = 0 every run "
        "is at X₀, off St(3, 2) (‖X₀ᵀX₀ − I‖ = 0.80), and only the metric differs: the unit "
        "ball of gᵝ keeps its two span-move semi-axes, √λ(M) = 0.71 and 1.28 with "
        "M = X₀ᵀX₀, for every β; its semi-axis along the turn u is √(tr M/(2β)), 4.6 at "
        "β = 0.05 and 0.23 at β = 20 (1/√β on the manifold). gradᵦ f, where the plane "
        "df = const touches the ball, keeps its span part; its turn part scales as 1/β: "
        "small β turns the frame within its span, large β moves mostly the span. Run plays "
        "each run from X₀.",
        "explorer",
        # slow: at the normal speed its 128 iterations pass in half a second, too fast to see
        # the ball turn and shrink with Xₖ. β = 0.1 first: the view holds every member's ball
        # (β = 0.05's, 4.6 long, the largest); at β = 0.1 the ball fills about 0.7 of it, at
        # 0.5 a third
        AppConfig(problem="brockett", n=3, p=2, seed=0, distance=0.4, beta=0.1, scrub="beta",
                  speed="slow"),
        view="metric",
    ),
]
