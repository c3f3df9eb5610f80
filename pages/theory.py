"""Theory: the paper's objects, each beside its numerical check at a random X, live.

Goyens, Absil & Feppon, *Geometric design of the tangent term in landing algorithms for
orthogonality constraints*. The computations are in explorer.teaching.theory (pure numerics).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from explorer import controls, demos, figures, fragments, lecture
from explorer.state import PROBLEM_LABELS, AppConfig
from explorer.teaching import theory, theory_generalized
from landing_core.geometry import grad_beta as geo_grad
from landing_core.geometry import h
from landing_core.problems import Problem, nearest_stiefel

config = controls.sidebar()

DEFAULT_DISTANCE = 0.4  # used when the sidebar puts X0 on the manifold (distance 0)
BETA_GRID = np.logspace(-2, 2, 81)
# the page's reading sizes, in both modes (a long text of statements and formulas); the
# displayed formulas at 1.2em fit the statements' column in lecture mode; with the sidebar
# open at 1280 pixels five of them ran 10-60 px past it (cut, or a scroll bar): 1em there
READING_CSS = """<style>
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li { font-size: 1.3rem; }
[data-testid="stMain"] .katex-display > .katex { font-size: %(display)s; }
[data-testid="stMain"] .katex-display { overflow-x: auto; overflow-y: hidden; }
[data-testid="stMain"] [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p {
  font-size: 2rem; }
[data-testid="stMain"] [data-testid="stAlertContainer"] p { font-size: 1.2rem; }
[data-testid="stMain"] [data-testid="stCaptionContainer"] p { font-size: 1.05rem; }
</style>"""


def draw_point(config: AppConfig) -> tuple[np.ndarray, np.random.Generator, str]:
    """X (full rank, off the manifold), the generator of the test matrices, and a description.

    Draw 0 is the explorer's X0 (same n, p, seed, distance); "New random X" draws others.
    """
    draw = st.session_state.setdefault("theory_draw", 0)
    distance = config.distance if config.distance > 0 else DEFAULT_DISTANCE
    seed = config.seed if draw == 0 else int(
        np.random.SeedSequence([config.seed, draw]).generate_state(1)[0])
    X = theory.random_point(config.n, config.p, distance, seed)
    what = (f"the explorer's X₀ (seed {config.seed})" if draw == 0
            else f"random draw #{draw} (from seed {config.seed})")
    if config.distance == 0:
        what += f"; the sidebar's distance is 0, so X is taken at distance {DEFAULT_DISTANCE}"
    return X, np.random.default_rng([config.seed, draw, 1]), what


def show_check(check: theory.Check) -> None:
    """One residual, with its pass mark and what it measures."""
    mark, box, cmp = ("✓", st.success, "<") if check.passed else ("✗", st.error, "≥")
    kind = " (finite differences)" if check.finite_difference else ""
    box(f"**{mark} {check.name}**  \n${check.latex}$  \n"
        f"residual **{check.residual:.1e}** {cmp} {check.threshold:.0e}{kind}")
    st.caption(check.detail)


def section(title: str, statements: list[str], text: str, keys: list[str],
            checks: dict[str, theory.Check]) -> None:
    """A statement of the paper (LaTeX, left) beside its checks at the current X (right)."""
    st.subheader(title)
    left, right = st.columns([3, 2], gap="large")
    with left:
        for formula in statements:
            st.latex(formula)
        if text:
            st.markdown(text)
    with right:
        for key in keys:
            show_check(checks[key])


def header(X: np.ndarray, problem: Problem, what: str, checks: list[theory.Check]) -> None:
    st.markdown(
        "Goyens, Absil & Feppon, *Geometric design of the tangent term in landing algorithms "
        "for orthogonality constraints*. Each statement is evaluated at a random full-rank "
        r"$X \in \mathbb{R}_*^{n\times p}$ **off** the manifold ($X^\top X \ne I_p$), for the "
        f"sidebar's cost **{PROBLEM_LABELS[config.problem]}** and β = **{config.beta:g}**.\n\n"
        "The paper derives these formulas; it proves no convergence result and reports no "
        "numerical experiments, so every run, rate and count in this app is the app's own "
        "measurement. A ✓ means the relative residual is below its threshold: 10⁻¹² for exact "
        "identities (rounding errors only), 10⁻⁶ for those checked against finite differences "
        "of the cost (their residual is ~10⁻⁸, the accuracy of a central difference).")
    sigma = np.linalg.svd(X, compute_uv=False)
    # one line of text that wraps, not a row of st.metric: a metric cuts what does not fit its
    # column with an ellipsis, and at 1280 pixels (sidebar open) the columns were too narrow
    # for the σ range ("0.71 … …") and the I of ‖XᵀX − I‖_F
    c = st.columns([4, 1.3], vertical_alignment="center")
    spread = (f"σ(X) = **{sigma[0]:.2f}**" if sigma.size == 1 else
              f"σ(X) from **{sigma.min():.2f}** to **{sigma.max():.2f}**")
    c[0].markdown(f"X is **{problem.n} × {problem.p}** · $\\|X^\\top X - I\\|_F$ = "
                  f"**{np.linalg.norm(h(X)):.3f}** · {spread} · β = **{config.beta:g}**")
    if c[1].button("New random X", icon=":material/casino:",
                   key=fragments.button_key("theory_new_x"), width="stretch"):
        st.session_state.theory_draw += 1
        st.rerun()
    st.caption(f"X is {what}. Test matrices Z, ξ, S are drawn afresh with it.")
    failed = [check.name for check in checks if not check.passed]
    if failed:
        st.error(f"{len(failed)} of {len(checks)} checks fail: {', '.join(failed)}")
    else:
        st.success(f"All {len(checks)} checks pass ✓")


def beta_section(problem: Problem, X: np.ndarray, checks: dict[str, theory.Check]) -> None:
    """What β does: it scales the rotation block and leaves the normal-to-span block alone."""
    section(
        "What β does",
        [r"\operatorname{grad}_\beta f(X) = \underbrace{\tfrac{1}{\beta}\, X M^{-1}"
         r"\operatorname{skew}(X^\top G M)}_{R/\beta:\ \text{rotation, in } \operatorname{span}(X)}"
         r" + \underbrace{(I_n - X M^{-1} X^\top)\, G M}_{N:\ \text{out of } "
         r"\operatorname{span}(X)}",
         r"\begin{aligned} &\text{on } \mathrm{St}(n,p)\ (M = I_p): \\ "
         r"&\operatorname{grad}_\beta f(X) = \tfrac{1}{\beta}\, X \operatorname{skew}(X^\top G)"
         r" + (I_n - X X^\top)\, G \end{aligned}"],
        "This is the proof of Prop. (grad_beta) before its last line; with $M = I_p$ it follows "
        "from the closed form, since $GM - X M^{-1} X^\\top G M = (I_n - XX^\\top)G$ and "
        "$-\\tfrac{1}{2\\beta} X G^\\top X + \\tfrac{1}{2\\beta} X X^\\top G = "
        "\\tfrac{1}{\\beta} X \\operatorname{skew}(X^\\top G)$. "
        "**β scales the rate at which the frame turns within its span by 1/β (a tangent "
        "motion: the columns keep their lengths and angles, XᵀX, and turn together) and leaves "
        "the motion out of the span alone.** The blocks are Frobenius-orthogonal "
        "($X^\\top N = 0$), so "
        r"$\|\operatorname{grad}_\beta f\|^2 = \|R\|^2/\beta^2 + \|N\|^2$.",
        ["grad_blocks", "grad_stiefel"], checks)
    if problem.p == 1:
        st.warning("**p = 1: β changes nothing.** skew(XᵀG) is a 1 × 1 skew-symmetric matrix, "
                   "i.e. 0, so R = 0 and gradᵦ f(X) = (I − XM⁻¹Xᵀ)GM for every β. "
                   "Set p ≥ 2 in the sidebar to see β act.", icon=":material/info:")
    elif problem.name == "pca":
        G = problem.egrad(X)
        ends = [geo_grad(X, G, b) for b in (0.1, 10.0)]
        spread = np.linalg.norm(ends[0] - ends[1]) / np.linalg.norm(ends[1])
        st.info("**PCA is β-invariant on St(n, p) only.** XᵀG = −XᵀCX is symmetric at every X, "
                "so the rotation block skew(XᵀG M) is the commutator ½[XᵀG, M]: it vanishes "
                f"where M = XᵀX = I, not off the manifold. At this X, grad₀.₁ f and grad₁₀ f "
                f"differ by {100 * spread:.0f} % (relative to grad₁₀ f).",
                icon=":material/info:")
    places = ["X itself (off the manifold)", "its polar factor Q = UVᵀ (on St(n, p))"]
    controls.persist("theory_at", places[0])
    where = st.radio("Evaluate the blocks at", places, horizontal=True, key="theory_at")
    point = X if where.startswith("X") else nearest_stiefel(X)
    betas = np.union1d(BETA_GRID, [config.beta])
    blocks = theory.beta_blocks(point, problem.egrad(point), betas)
    st.plotly_chart(figures.text_size(figures.beta_blocks_figure(
        blocks.betas, blocks.rotation, blocks.normal, blocks.total, beta=config.beta),
        config.lecture), width="stretch", theme=None)
    if problem.p == 1:
        shape = "R = 0, so ‖gradᵦ f‖ = ‖N‖ for every β: the curves are flat."
    else:
        shape = ("‖R‖/β falls with slope −1 on log–log axes, ‖N‖ is flat. Small β: rotations "
                 "dominate the tangent term; large β: it tends to the out-of-span block N.")
    st.caption(f"At {where.split(' (')[0]}, with G = ∇f there. {shape} Markers: the sidebar's β.")


st.html(READING_CSS % {"display": "1.2em" if config.lecture else "1em"})
st.title("Theory: the paper's objects, checked live")
lecture.question(config, "theory")  # its place in the lecture deck
problem, _ = controls.session_problem(config)  # the uploaded matrix when it fits
X, rng, what = draw_point(config)


def statements(problem: Problem, X: np.ndarray, rng: np.random.Generator, what: str) -> None:
    """The paper's statements, each beside its checks at X."""
    results = theory.check_propositions(problem, X, config.beta, rng)
    checks = {c.key: c for c in results}
    header(X, problem, what, results)
    dim = problem.n * problem.p - problem.p * (problem.p + 1) // 2

    section(
        "The layer manifold and its tangent space",
        [r"\mathrm{St}_{X^\top X} = \{Y \in \mathbb{R}^{n\times p} : Y^\top Y = X^\top X\}"
         r" = h^{-1}(h(X))",
         r"h(X) = X^\top X - I_p",
         r"\begin{aligned} \mathrm{T}_X \mathrm{St}_{X^\top X}"
         r" &= \{\xi : \xi^\top X + X^\top \xi = 0\} \\"
         r" &= \{X (X^\top X)^{-1}\Omega + \Delta : \Omega \in \mathrm{Skew}(p),\ "
         r"\Delta^\top X = 0\} \\"
         r" &= \{W X : W \in \mathrm{Skew}(n)\} \end{aligned}"],
        f"A smooth manifold for every full-rank X (a level set of h): the *layer* through X. "
        f"Its tangent space has dimension $np - p(p+1)/2$ = **{dim}** here; it does not depend on "
        "the metric. Samples of the 2nd and 3rd forms are checked against the 1st "
        "($W = AB^\\top - BA^\\top$ is never formed: $WX = A(B^\\top X) - B(A^\\top X)$).",
        ["tangent_space"], checks)

    section(
        r"The β-metric on $\mathbb{R}_*^{n\times p}$",
        [r"g^\beta_X(\xi,\zeta) = \big\langle \xi,\ (I_n - (1-\beta)\, X (X^\top X)^{-1} X^\top)"
         r"\, \zeta\, (X^\top X)^{-1} \big\rangle"],
        "The pullback, through $\\Phi^{-1}\\colon Y \\mapsto Y M^{-1/2}$, of the β-metric of "
        "$\\mathrm{St}(n,p)$, $g^\\beta_Q(\\xi,\\zeta) = \\langle \\xi, (I_n - (1-\\beta) QQ^\\top)"
        "\\zeta\\rangle$ (β = 1: Euclidean, β = ½: canonical). It depends on X: no β makes it the "
        "Frobenius metric off the manifold.",
        ["metric_pullback"], checks)

    section(
        "The normal space (independent of β)",
        [r"\mathrm{N}^\beta_X \mathrm{St}_{X^\top X} = \{ X (X^\top X)^{-1} S : "
         r"S \in \mathrm{Sym}(p) \}"],
        f"The $g^\\beta$-orthogonal complement of the tangent space, the same for every β; "
        f"checked for the sidebar's β = {config.beta:g}.",
        ["normal_space"], checks)

    section(
        "The projection onto the tangent space",
        [r"\begin{aligned} \mathrm{Proj}_{X,\beta}(Z) &= X (X^\top X)^{-1}"
         r" \operatorname{skew}(X^\top Z) \\ &\quad + (I_n - X (X^\top X)^{-1} X^\top)\, Z"
         r" \end{aligned}",
         r"g^\beta_X\big(\xi,\ Z - \mathrm{Proj}_{X,\beta}(Z)\big) = 0 \quad "
         r"\forall \xi \in \mathrm{T}_X \mathrm{St}_{X^\top X}"],
        "The $g^\\beta$-orthogonal projection does not depend on β either (the normal space "
        "does not). Here Z is a random $n\\times p$ matrix.",
        ["proj_tangent", "proj_orthogonal", "proj_idempotent"], checks)

    section(
        r"The unconstrained gradient $\nabla_\beta f$",
        [r"\nabla_\beta f(X) = \Big(I_n + \tfrac{1-\beta}{\beta}\, X (X^\top X)^{-1} X^\top\Big)"
         r"\, \nabla_E f(X)\, X^\top X",
         r"\mathrm{D}f(X)[Z] = g^\beta_X\big(Z, \nabla_\beta f(X)\big) \quad "
         r"\forall Z \in \mathbb{R}^{n\times p}"],
        "Checked twice: exactly against $\\langle \\nabla_E f(X), Z\\rangle$, and against the "
        "cost itself, with $\\mathrm{D}f(X)[Z]$ from central finite differences "
        "$(f(X+tZ) - f(X-tZ))/2t$: **a finite-difference residual, ~10⁻⁸, not rounding**.",
        ["nabla_identity", "nabla_fd"], checks)

    section(
        r"The tangent term $\operatorname{grad}_\beta f$",
        [r"\begin{aligned} \operatorname{grad}_\beta f(X) &= \mathrm{Proj}_{X,\beta}"
         r"\big(\nabla_\beta f(X)\big) \\ &= G M - \tfrac{1}{2\beta}\, X G^\top X"
         r" + \Big(\tfrac{1}{2\beta} - 1\Big) X M^{-1} X^\top G M \end{aligned}",
         r"\beta = \tfrac12:\quad \operatorname{grad}_{\mathrm{c}} f(X) = G M - X G^\top X"
         r" = 2 \operatorname{skew}(G X^\top)\, X"],
        "With $G = \\nabla_E f(X)$ and $M = X^\\top X$. The closed form is what the solvers use; "
        "β = ½ recovers Gao et al.'s canonical-metric gradient (twice the relative gradient of "
        "Ablin & Peyré).",
        ["grad_closed_form", "grad_riemannian", "grad_half"], checks)

    section(
        "Algorithm 1: the landing step",
        [r"X_{k+1} = X_k - \eta_k \Big( \operatorname{grad}_\beta f(X_k)"
         r" + \omega\, X_k (X_k^\top X_k - I_p) \Big)",
         r"\text{while}\ \ \|\operatorname{grad}_\beta f(X_k)\| + \|h(X_k)\| > \varepsilon"],
        "A tangent term that lowers f while keeping $X^\\top X$ fixed to first order, and a normal "
        "term that pulls $X^\\top X$ to $I_p$. **Mind the factor:** the paper calls "
        "$X(X^\\top X - I_p)$ the gradient of $\\mathcal{N} = \\tfrac12\\|h\\|^2$, but "
        "$\\nabla\\mathcal{N}(X) = 2X(X^\\top X - I_p)$: the normal term is *half* the gradient, "
        "and the factor 2 is absorbed in ω. **The stop test differs from the paper's:** every "
        "run in this app stops when $\\|\\operatorname{grad}_1 f(X_k)\\| + \\|h(X_k)\\| \\le "
        "\\varepsilon$, with the β = 1 gradient whatever β and method, as the Guide says: the "
        "norm of $\\operatorname{grad}_\\beta f$ itself has a rotation block that scales like "
        "1/β, so iterations to ε would not compare β values like with like.",
        ["normal_term_fd"], checks)

    beta_section(problem, X, checks)


def generalized_section(config: AppConfig) -> None:
    """Beyond XᵀX = I: the generalized Stiefel constraint XᵀBX = I (issue 13), its formulas
    checked live at a random B and X, and what is proved and what is not."""
    st.header("Beyond XᵀX = I: the generalized Stiefel constraint XᵀBX = I")
    st.markdown(
        "Vary, Ablin, Gao & Absil (2024), *Optimization without retraction on the random "
        "generalized Stiefel manifold*. B is symmetric positive definite and enters only "
        "through products $BX$: no $B^{1/2}$, no $B^{-1}$, no $n\\times n$ matrix in the "
        "iteration. A problem that carries a matrix `B` makes `landing` keep to $X^\\top BX = I$.")
    conditions = {"10": 10.0, "10³": 1e3, "10⁴": 1e4}
    controls.persist("theory_b_cond", "10³")
    label = st.radio("Condition number of the random B", list(conditions), horizontal=True,
                     key="theory_b_cond")
    n, p = max(config.n, 2), min(config.p, max(config.n, 2))
    point = theory_generalized.generalized_point(n, p, conditions[label], config.seed)
    checks = {c.key: c for c in theory_generalized.check_generalized(point, config.beta)}
    section(
        "The constraint, its normal term and tangent terms",
        [r"h_B(X) = X^\top B X - I_p,\quad \mathcal{N}_B = \tfrac14\|h_B\|_F^2,\quad "
         r"\nabla\mathcal{N}_B(X) = BX\,h_B(X)",
         r"X^\top B\,T \in \mathrm{Skew}(p) \iff \mathrm{D}h_B(X)[T] = 0",
         r"\Psi_B(X) = \operatorname{skew}(GX^\top B)\,BX = \tfrac12\big(G\,C - BX\,"
         r"(G^\top BX)\big)"],
        "With $M = X^\\top BX$, $C = (BX)^\\top BX$, $A_B = (BX)^\\top G$ (p × p). The normal "
        "term is the exact gradient of $\\mathcal{N}_B = \\tfrac14\\|h_B\\|^2$ (mind the ¼). Every "
        "tangent term is Euclidean-orthogonal to it: $\\langle T, BXH\\rangle = "
        "\\langle X^\\top BT, H\\rangle = 0$.",
        ["b_tangent", "b_normal", "b_relative"], checks)
    section(
        "A β-family for B",
        [r"g^{\beta,B}_X(\xi,\zeta) = \big\langle \xi,\ (I_n - (1-\beta)P_{BX})\,\zeta\,"
         r"M^{-1}\big\rangle",
         r"P_{BX} = BX\,C^{-1}(BX)^\top",
         r"\operatorname{grad}^B_\beta f(X) = GM + BX\Big(\tfrac{1-\beta}{\beta}C^{-1}A_B - "
         r"S\Big)M",
         r"CSM + MSC = \tfrac1\beta\big(A_BM + MA_B^\top\big)"],
        "The normal space of $g^{\\beta,B}$ is $\\{BXSM : S\\ \\text{symmetric}\\}$ for every β, "
        "the Lyapunov equation is p × p, and at $B = I$ this is the paper's "
        "$\\operatorname{grad}_\\beta$. At β = 1 the metric is the Euclidean one on "
        "$X^\\top BX = I$: $\\|\\operatorname{grad}^B_1 f\\|$ is the stopping rule's stationarity "
        "measure for B.",
        ["b_riemannian", "b_identity"], checks)
    section(
        "The change of variables $Y = B^{1/2}X$",
        [r"Y^\top Y = X^\top BX,\quad \tilde f(Y) = f(B^{-1/2}Y)",
         r"\begin{aligned}&B^{-1/2}\big(\operatorname{grad}_\beta\tilde f(Y) + \omega Y h(Y)"
         r"\big)\\ &\quad= B^{-1}GM - \tfrac{1}{2\beta}XG^\top X + \big(\tfrac{1}{2\beta}-1"
         r"\big)XM^{-1}X^\top GM + \omega X h_B(X)\end{aligned}"],
        "Exact, and free of $B^{1/2}$, but it needs $B^{-1}G$: one solve with B per "
        "iteration. The paper's β-family transported exactly is the gradient of the pulled-back "
        "metric $\\langle\\xi, (B - (1-\\beta)BXM^{-1}X^\\top B)\\zeta M^{-1}\\rangle$; "
        "$g^{\\beta,B}$ above replaces its leading $B$ by $I$ **and** $BXM^{-1}X^\\top B$ by "
        "$P_{BX}$, the orthogonal projector onto span(BX): that removes $B^{-1}$ and keeps the "
        "form positive definite ($I - (1-\\beta)P_{BX}$ has eigenvalues 1 and β). Replacing "
        "the leading $B$ alone would give $I - (1-\\beta)BXM^{-1}X^\\top B$, which is indefinite "
        "when β < 1 and an eigenvalue of $M^{-1}C$ exceeds $1/(1-\\beta)$. The two metrics "
        "agree only at $B = I$. So the iteration offers $g^{\\beta,B}$, and this map is checked "
        "here against `scipy.linalg.sqrtm`, not run.",
        ["b_change"], checks)
    section(
        "A safe step for the B-ball",
        [r"h_B(X - \eta V) = H - \eta\omega(CH + HC) + \eta^2 V^\top BV",
         r"\|h_B(X-\eta V)\| \le \varphi(\eta) = \|H - \eta\omega(CH+HC)\| + "
         r"\lambda_{\max}(B)\,\|V\|^2\eta^2"],
        "Exact for $V = T + \\omega BXH$ with $X^\\top BT$ skew. φ is convex with "
        "$\\varphi(0) = \\|H\\|$, so the largest η with $\\varphi(\\eta) \\le \\max(\\varepsilon, "
        "\\|H\\|)$ is found by bisection on scalars; $\\langle H, CH+HC\\rangle > 0$ makes it "
        "positive for every $\\|H\\|$, and the infeasibility never grows. $\\lambda_{\\max}(B)$ "
        "is bounded once, before the run (Lanczos plus its residual for a sparse B).",
        ["b_safe"], checks)
    st.markdown(
        "**Proved** (above, and in `landing_core.generalized`): tangency of the three terms, "
        "the orthogonality of tangent and normal terms, that $\\operatorname{grad}^B_\\beta$ is "
        "the Riemannian gradient of $g^{\\beta,B}$ on the layer (so it vanishes exactly where f "
        "restricted to the layer is stationary, like Vary et al.'s $\\Psi_B$), the change of "
        "variables, and the safe step's bound.  \n"
        "**Not proved here:** convergence of landing with $\\operatorname{grad}^B_\\beta$ for "
        "$B \\ne I$. The convergence results cited in this app come from two other papers, "
        "each for its own tangent term: Vary, Ablin, Gao & Absil (2024) for $\\Psi_B$ on "
        "$X^\\top BX = I$, and Ablin, Vary, Gao & Absil (2024) for the relative gradient "
        "$\\operatorname{skew}(GX^\\top)X = \\tfrac12\\operatorname{grad}_{1/2} f$ on "
        "St(n, p). Goyens, Absil & Feppon derive $\\operatorname{grad}_\\beta$ and prove no "
        "convergence result: for β ≠ ½ it gives none, even at $B = I$. Also not proved: a bound "
        "relating $\\|\\operatorname{grad}^B_1 f(X)\\|$ to the gradient at the nearest feasible "
        "point; the rate at which the normal term contracts $h_B$, which depends on the spread "
        "of C's eigenvalues (those of B on span(X)), not on a constant as for B = I.")


part = demos.part()
if part == "statements":
    statements(problem, X, rng, what)
elif part == "generalized":
    generalized_section(config)
else:
    demos.section(config, X)
