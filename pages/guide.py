"""A short guide: how to use the app in a lecture and what each view means."""

import streamlit as st

from explorer import controls

controls.sidebar()

st.title("Guide")
st.markdown(r"""
**The problem.** Minimize $f(X)$ over $X \in \mathbb{R}^{n\times p}$ subject to
$X^\top X = I_p$ (the Stiefel manifold $\mathrm{St}(n,p)$).

**Landing** (Algorithm 1 of Goyens, Absil & Feppon) never retracts onto the manifold. Each step is
"""
)
st.latex(r"X_{k+1} = X_k - \eta_k\big(\operatorname{grad}_\beta f(X_k)"
         r" + \omega\, X_k(X_k^\top X_k - I_p)\big)")
st.markdown(r"""
a *tangent term* that lowers $f$ while keeping $X^\top X$ fixed to first order (it is tangent to
the layer manifold $\mathrm{St}_{X^\top X} = \{Y : Y^\top Y = X^\top X\}$), and a *normal term*
that pulls the iterate back to $X^\top X = I$.

**The β-metric** chooses the tangent term, with $G = \nabla f(X)$ and $M = X^\top X$:

"""
)
st.latex(
    r"\operatorname{grad}_\beta f(X) = GM - \tfrac{1}{2\beta} X G^\top X"
    r" + \left(\tfrac{1}{2\beta} - 1\right) X M^{-1} X^\top G M"
)
st.markdown(
    r"""
β weighs rotations of the frame within its span against motion out of the span: in a rotation
the columns keep their lengths and angles ($X^\top X$, which is $I$ only on the manifold) and
turn together within their span, at a rate scaled by $1/\beta$; for
$p = 1$ that rotation block vanishes and β changes nothing.

**ω, the normal term's weight.** Whatever $f$ and β, the tangent term leaves $X^\top X$ fixed to
first order, so $M = X^\top X$ follows $\dot M = -2\omega M(M - I)$: for each eigenvalue λ of
$M$, $1/\lambda - 1$ decays exactly like $e^{-2\omega t}$, so $\|X^\top X - I\|$ decays at rate
$2\omega$ asymptotically, near $I$ (faster from above, slower from below). A larger ω pulls
harder but caps the step at $1/(2\omega)$ (the safe step's cap).
ω acts under every step rule, **but Barzilai–Borwein can only lower it, never raise it**: a BB
step longer than $1/(2\omega)$ lowers it to $\omega_k = 1/(2\eta_k)$ for that step, so the
normal term moves by $\eta_k\omega_k = \tfrac12$. How often depends on the problem: in this
app's runs at ω = 10, on 85 % of BB's steps for the default problem, on 65 % to 97 % for the
five costs at sizes 3 × 2 to 10 × 3 (seeds 0 and 1), but on 41 % for brockett 50 × 10. A small
ω still slows BB; a large one costs it less. In this app's runs BB took 149, 25, 20 and 36
iterations for ω = 0.1, 1, 10 and 100 on brockett 3 × 2 (the default problem), and about 1150,
179, 154 and 165 on brockett 20 × 4. To see the cap $1/(2\omega)$ at work, use the constant or
the safe step. The *scale-free* rule (the library's default) sets
$\omega_k = \min(\omega, 1)/(2\eta_k)$ at every step, so that the normal term moves by
$\tfrac12\min(\omega, 1)\,X_k(X_k^\top X_k - I)$ whatever the cost's scale: there ω above 1
changes nothing.

**In a lecture.** Start from a **Lecture preset**: one click loads a configuration, says what
to look at and opens it in *lecture mode* (large type, thick lines, the sidebar folded; switch it
with the toggle at the top of the sidebar, or add `lecture=1` to a link). Or pick a problem and a
size in the sidebar; the run is computed at once. Press **Run** to watch it unfold (choose *slow*
speed for a class), **Pause** to talk, **Step** to go one iteration at a time, **Reset** to start
over; a presenter's clicker works too (Space runs and pauses, → steps, ← steps back, Home
resets). Drag the slider to return to any iteration. The player runs in your browser: nothing
waits for the server, and a large run starts playing while the rest is still computed. Under the
player, **HTML** saves the animation as one file that plays offline and **GIF** as an animated
image for slides. The sidebar's settings, the explorer's view and the compare table are in the
URL: copy it to reopen exactly this view (the sweep's grid is not). The sidebar is shared by
every page.

**A lecture deck.** The presets form a deck, numbered on the **Lecture presets** page. In lecture
mode a clicker's **PageDown** opens the next preset (its page, configuration and view) and
**PageUp** the previous one, wherever the focus is, in the page or in the player; the player's
own keys are unchanged. To prepare a lecture, type its order in the presets page's *Deck* field
(e.g. `0,4,7,2`) or put `deck=0,4,7,2` in a link, and keep the link: it opens the deck in that
order (a malformed entry is named in a warning and left out; the rest of the deck and the
link's settings are kept). **Predict, then run**: most presets ask the class a question
(“Which ω lands first?”). Until you press **Reveal** (the button, or the clicker's `.` or `b`
key) the answer, the outcome, the Compare page's summary and every curve after the question's
iteration stay hidden, and the player stops at that iteration. The answers are this app's own
runs of each preset; change a setting and the question goes, since its answer would no longer
be about what is shown.

**The pages.**
- *Explorer*: one run, played in the browser, with its convergence curves and one geometry
  view at a time (the tabs above the view switch at once; drag a 3-D view to turn it).
- *Compare*: up to six configurations (β values, tangent terms, landing against Riemannian
  gradient descent with a retraction or against the penalty method) from the same $X_0$, racing
  in the player: one clock (the iteration, or the CPU time each row took), every row's iterate
  on one view in its colour, Run, Pause, Step and the keys as in the explorer.
  A constant η favours whichever tangent term happens to be scaled for it: compare "each with
  Armijo", "each with Barzilai–Borwein" or "each with the scale-free rule", the rules that
  adapt the step to each field.
  "Each at its safe step" is not fair: near the solution the safe bound grows without limit, so
  the step is the constant $\min(\eta, 1/(2\omega))$ and keeps the constant step's bias
  (this app's runs on brockett 3 × 2, cap 0.1: 125, 128, 244 and 1202 iterations for β = 0.1,
  0.5, 1, 5; with BB 31, 25, 29 and 42).
- *Sweep*: heatmaps of iterations, final gap and final infeasibility over β × η or ω × η;
  diverged cells are grey with ×; pick a cell to open it in the explorer.
- *Stochastic*: landing on a finite sum (online PCA over m samples) with minibatch gradients:
  SGD, whose noise leaves it on a plateau at a constant step, against SAGA, whose
  variance-reduced estimate converges, and full-batch landing, over epochs of the data.
- *Theory*: the paper's statements beside their residuals, computed live at a random $X$; and
  **demonstrations**, runs that show what the formulas imply: *the normal flow* (three costs,
  one path of the singular values: $X^\top X$ flows by $\dot M = -2\omega M(M - I)$ whatever
  $f$ and β); *β within one layer* (the tangent term alone, ω = 0, keeps to the layer of $X_0$,
  where β acts as the β-metric does for Riemannian GD on St(n, p)); *the ω trade-off* (a
  larger ω lands faster per unit time but caps the step at $1/(2\omega)$; the penalty method
  stops off the manifold, at $\|h\| = 2|\lambda_{\min}|/\omega$ on the sphere, landing does
  not); *fair rates* (local rates against β under Barzilai–Borwein and Armijo, which adapt
  the step, on the one stationarity measure; for $p = n$, β only rescales the tangent term, so
  with ω scaled
  to ω/β, as there, BB's iterations do not change; with ω fixed they do: 118, 37, 22, 25 and 32
  on O(3) for β = 0.1, 0.3, 1, 3 and 10 in this app's runs). Lecture mode hides their
  explanations; presets open them. A third part, **XᵀBX = I**: the generalized Stiefel
  constraint's formulas (tangent terms, a β-family for B, the change of variables
  $Y = B^{1/2}X$, the B-ball safe step) checked live, with what is proved and what is not.
- *Constraint* (sidebar): XᵀX = I, or XᵀBX = I with a preset ill-conditioned B or your own;
  the plane and 3-D views then draw the layers $x^\top Bx = c$ as ellipses and ellipsoids, and
  the compare page can run a row on each constraint from the same $X_0$.

**The views.**
- *Convergence*: $|f(X_k) - f^*|$ (for $p = n$, $f^*$ is the optimum over the component of
  $O(n)$, $\det X = \pm 1$, that $X_k$ lies in: the landing flow never changes the sign of
  $\det X$, but a long discrete step can jump across $\det X = 0$ into the other component),
  the infeasibility $\|X_k^\top X_k - I\|_F$, the stationarity
  $\|\operatorname{grad}_1 f(X_k)\|_F$ (the β = 1 gradient, on the manifold the embedded Riemannian
  gradient: one measure for every method, tangent term and β; a run stops when it plus the
  infeasibility is below the tolerance), the step $\eta_k$ and the normal term's step
  $\eta_k\omega_k$, on log axes
  ($\omega_k = \omega$ except where Barzilai–Borwein lowers it on a long step, keeping
  $\eta_k\omega_k \le \tfrac12$, and under the scale-free rule, where
  $\eta_k\omega_k = \tfrac12\min(\omega, 1)$).
- $n = 2, p = 1$: the plane, the unit circle, the layer circle through the current iterate, the
  cost as colour and the landing field as arrows.
- $n = 3, p = 1$: the unit sphere coloured by the cost, the outline of the layer sphere through
  the current iterate, and the trajectory just outside the sphere (its far side faint).
- $n = 3, p = 2$: the two columns of $X_k$ as arrows, their tips tracing paths on the sphere.
- $p \ge 2$: the singular values of $X_k$ (all tend to 1); $p = 2$: the Gram matrix moving
  through the cone of positive definite $2\times 2$ matrices to $I$. Both views overlay, dotted,
  the exact normal flow from $X_0$ at the iterates' time $t_k = \sum_{j<k} \eta_j\omega_j/\omega$
  ($k\eta$ for a constant step): no cost and no β changes it, and the iterates follow it to
  $O(\eta)$, closely for small steps.
- Metric (on $X^\top X = I$, $p \ge 2$ up to $np = 400$; not O(2), whose tangent space is a
  line): the unit ball of $g^\beta$ in the tangent space of the
  layer through $X_k$ (for St(3, 2) all of it; for other sizes a 3-D slice, named below the
  view), in coordinates orthonormal for the Frobenius inner product, beside the Frobenius
  ball. $\operatorname{grad}_\beta f$ points where the plane $\mathrm{d}f = $ const touches the
  ball: small β stretches the ball along the turn $u$ (the frame turns within its span), large
  β flattens it (the step moves the span). At St(3, 2), Scrub β and drag the player's β slider
  to watch the ball change shape against fixed axes (lecture preset 13 opens this).
- Safe step: $\eta \mapsto \|h(X_k - \eta V_k)\|$ (its square is a quartic in η), the level ε,
  the safe step's bound $\eta^*$ and the step $\eta_k$ the rule took; the plane view shades
  the band $\|h\| \le \varepsilon$ around the circle.
""")
