"""The sidebar: every control of the configuration, bound to the one AppConfig in session state
and mirrored in the URL."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import replace

import numpy as np
import streamlit as st

from landing_core.problems import Problem
from landing_core.steps import USES_ETA

from . import budget, family, fragments, navigation, text, work
from .constraint import check_uploaded_B, constraint_matrix
from .runner import SAFE_EPS, build_problem, start
from .state import (
    CONSTRAINT_LABELS,
    LECTURE_PARAMS,
    PROBLEM_LABELS,
    SCRUB_DEFAULT,
    SPEEDS,
    STEP_LABELS,
    TANGENT_LABELS,
    AppConfig,
    from_query,
    limits,
    scrub_default,
    to_query,
    validate,
)
from .upload import MATRIX_ROLES, parse_matrix


def log_grid(low: float, high: float, per_decade: int = 10) -> list[float]:
    """Log-spaced slider stops from low to high (whole decades apart), 3 significant digits."""
    count = per_decade * round(np.log10(high / low)) + 1
    return [round(float(v), 3 - int(np.floor(np.log10(v))))
            for v in np.logspace(np.log10(low), np.log10(high), count)]


BETA_GRID = log_grid(*limits("beta"))
OMEGA_GRID = log_grid(*limits("omega"))
TOL_GRID = [10.0**e for e in range(round(np.log10(limits("tol")[0])),
                                    round(np.log10(limits("tol")[1])) + 1)]
# above the sidebar's settings on a page that reads only some of them (``sidebar(unused=...)``)
UNUSABLE = frozenset({"problem", "constraint", "n", "p", "seed", "distance", "tangent", "beta",
                      "omega", "step", "eta", "tol", "max_iter", "speed", "scrub", "matrix"})
UNUSED_CAPTION = ("Greyed out: not used on this page, which sets its own. They keep their "
                  "values for the other pages.")
STEP_HELP = (
    "**constant**: η at every step (too large diverges). "
    f"**safe**: η shortened where needed so that ‖XᵀX − I‖, once below ε = {SAFE_EPS:g} "
    "(Ablin et al.), stays below it; from a start above ε (the default X₀ starts at 0.80) it "
    "only keeps ‖XᵀX − I‖ from growing. The guarantee needs a landing field (XᵀT skew): the "
    "penalty rows of the Compare page have none. Near the solution the safe step is the "
    "constant min(η, 1/(2ω)): it does not adapt to the field. "
    "**Armijo**: backtracking on the merit f − ½⟨Λ, XᵀX − I⟩ + μ/2 ‖XᵀX − I‖² (Λ = sym(XᵀG), "
    "μ bounded), first trial η; ‖XᵀX − I‖ never rises above max(ε, its start). "
    "**Barzilai–Borwein**: the step from the last two iterates, made safe; needs no η. "
    "A BB step longer than 1/(2ω) lowers ω for that step so that the normal term still moves "
    "by ηω = ½: the cap guards the normal term, not the descent. "
    "**scale-free** (the library's default): BB steps on the tangent term alone, ω following "
    "the step (ωₖ = min(ω, 1)/(2ηₖ) on XᵀX = I), made safe; needs no η. Its iterates do not "
    "depend on the cost's scale, and it lands where the safe step and BB can stall on a "
    "large gradient; ω above 1 acts as 1."
)
BETA_HELP = (
    "The β-metric's weight on rotations within span(X): the tangent term's rotation block, "
    "in which the columns keep their lengths and angles (XᵀX) and turn together within their "
    "span, is scaled by 1/β, so β sets the rate of that turn; the motion out of the span does "
    "not depend on β. "
    "β = 1: the embedded metric; β = ½: the canonical one. For p = 1 there is no such turn."
)
OMEGA_HELP = (
    "The normal term's weight: near XᵀX = I, ‖XᵀX − I‖ decays at rate 2ω (about 2ηω per "
    "step; exactly, 1/σᵢ² − 1 decays like e^(−2ωt)), and the safe step caps η at 1/(2ω). "
    "Barzilai–Borwein can only lower ω, never raise it: a BB step longer than 1/(2ω) takes "
    "ω = 1/(2η) for that step (at ω = 10: 85 % of the steps on brockett 3 × 2, 41 % on "
    "50 × 10). A small ω still slows BB (brockett 3 × 2: 149, 25, 20 and 36 iterations for "
    "ω = 0.1, 1, 10 and 100, this app's runs). Use the constant or the safe step to see the "
    "cap act."
)


def get_config() -> AppConfig:
    """The session's configuration; on a session's first run it is read from the URL."""
    if "config" not in st.session_state:
        config, warnings = from_query(st.query_params.to_dict())
        st.session_state.config = config
        st.session_state.url_warnings = warnings
        _write_widgets(config)
    return st.session_state.config


def set_config(config: AppConfig) -> None:
    """Replace the configuration (a preset, a sweep cell): the widgets take it at the next
    ``sidebar()``, before they are drawn (a drawn widget's key cannot be changed in its run)."""
    st.session_state.config = config
    st.session_state.pending_config = True


def _write_widgets(config: AppConfig) -> None:
    for name, value in config.__dict__.items():
        st.session_state[f"w_{name}"] = value


def _keep_widgets(config: AppConfig) -> None:
    """Carry the sidebar's values over page switches.

    Each page draws its own copy of the sidebar; streamlit resets a widget that is new to the page
    unless its key holds a value set through the Session State API. Re-assigning each key its own
    current value (which already includes this run's user change) makes it such a value; keys
    streamlit dropped are restored from the configuration.
    """
    for name, value in config.__dict__.items():
        st.session_state[f"w_{name}"] = st.session_state.get(f"w_{name}", value)


def persist(key: str, default: object) -> None:
    """Keep a page's own widget (key) across visits to other pages.

    Streamlit deletes the key of a widget not drawn in a run; a copy in a plain dict restores it,
    and re-assigning the key at the top of the run (with this run's user change already in it)
    makes streamlit keep the value for a widget that is new to the page, as ``_keep_widgets``.
    """
    store = st.session_state.setdefault("page_widgets", {})
    value = st.session_state.get(key, store.get(key, default))
    st.session_state[key] = store[key] = value


def _options(grid: list[float], value: float, name: str | None = None) -> list[float]:
    """A select_slider's choices: the grid and the value; while ``name`` is scrubbed, every
    value of its family too (``_family_values``), so that the choices stay put as the player's
    releases set the value to member after member. The slider's state is an index into its
    choices: choices changed while the browser still held the old ones would read that index
    in the new list, as another value."""
    return sorted(set(grid) | {value} | set(_family_values(name)))


def _family_values(name: str | None) -> list[float]:
    """The values of the family over ``name`` the Scrub section sets (``family.values`` of its
    range and count) and of the family the session holds, when ``name`` is scrubbed."""
    state = st.session_state
    if name is None or state.get("w_scrub") != name:
        return []
    base = np.empty(0)
    with suppress(AttributeError, TypeError, ValueError):  # the section not drawn yet
        lo, hi = float(state.w_scrub_lo), float(state.w_scrub_hi)
        if (lo, hi) == SCRUB_DEFAULT:  # the placeholder the Scrub section maps (``_scrub``)
            lo, hi = scrub_default(name, float(state.get("w_eta", 0.1)))
        base = family.values(lo, hi, int(state.w_scrub_count))
    values = [float(v) for v in base]
    # the held family's values (the sidebar's own among them), where it is this range's
    held = state.get("family")
    if held is not None and held[2].param == name and len(held[2].values) == len(base) \
            and np.count_nonzero(held[2].values != base) <= 1:
        values += [float(v) for v in held[2].values]
    return values


def fmt(v: float) -> str:
    """A number as a widget shows it: shortest form (0.5, 1e-08)."""
    return f"{v:g}"


def _forget_matrix() -> None:
    st.session_state.matrix = st.session_state.matrix_id = st.session_state.matrix_name = None


def _use_built_in() -> None:
    """Forget the uploaded matrix, and clear the uploader (a new key) so it does not return."""
    _forget_matrix()
    st.session_state.matrix_aside = None
    st.session_state.upload_version = st.session_state.get("upload_version", 0) + 1


def _upload_changed(key: str) -> None:
    """The user removed the file from the uploader, or is replacing it (a replacement passes
    through "no file", a rerun of its own): back to the built-in matrix, the upload held
    aside, so that a file rejected next leaves it in use (``_matrix_upload``) however long
    the new file takes to arrive. (Only a user's action calls this; a page switch, which also
    empties the box, keeps the matrix.) The uploader keeps its key: a new key at "no file"
    would drop the replacement (a good file uploaded right after a rejected one)."""
    if st.session_state.get(key) is None:
        if st.session_state.get("matrix") is not None:
            st.session_state.matrix_aside = (st.session_state.matrix,
                                             st.session_state.matrix_name,
                                             st.session_state.matrix_id)
        _forget_matrix()


def _matrix_misfit(config: AppConfig, matrix: np.ndarray) -> str | None:
    """Why the uploaded ``matrix`` cannot define this configuration's problem (None: it can):
    a shape the problem does not take, or a scale at which f or its gradient at X0 fails."""
    try:
        start(config, build_problem(config, matrix))
    except ValueError as err:
        return str(err)
    return None


def _matrix_upload(config: AppConfig, disabled: bool = False) -> None:
    """The 'your own matrix' expander: parse and validate; a rejected file is reported and not
    used (the matrix in use stays until the uploader is emptied, as replacing a file does).
    The caption says which matrix runs: the upload, or the built-in one when the upload does
    not fit the problem (it is kept for when it fits again).

    A matrix is known by its upload's ``file_id``, so a corrected file uploaded under the same
    name replaces the old one; ``matrix_id`` is what runs are cached on.
    """
    role = MATRIX_ROLES.get(config.problem)
    with st.expander("Your own matrix", expanded=False):
        if role is None:
            st.caption("This problem takes no matrix.")
            return
        st.caption(f"Upload the {role[1]} as .csv (comma-separated) or .npy.")
        key = f"w_upload_{st.session_state.get('upload_version', 0)}"
        upload = st.file_uploader("Matrix file", type=["csv", "npy", "txt"], key=key,
                                  on_change=_upload_changed, args=(key,), disabled=disabled)
        if upload is not None and upload.file_id != st.session_state.get("matrix_id"):
            try:  # a rejected file is read again on each rerun: its warning stays while it does
                matrix = parse_matrix(upload.name, upload.getvalue())
                refusal = budget.upload_cost(config.problem, matrix.shape).refusal(work.BUDGET)
                if refusal is not None:
                    raise ValueError(refusal)
                st.session_state.matrix = matrix
                st.session_state.matrix_name = upload.name
                st.session_state.matrix_id = upload.file_id
                st.session_state.matrix_aside = None
            except ValueError as err:
                aside = st.session_state.get("matrix_aside")
                if aside is not None:  # it replaced an upload in use: that one stays
                    (st.session_state.matrix, st.session_state.matrix_name,
                     st.session_state.matrix_id) = aside
                st.session_state.matrix_aside = None
                kept = st.session_state.get("matrix_name")
                st.warning(text.markdown(
                    f"Upload rejected: {str(err).rstrip('.')}. "
                    + (f"Still using {text.plain(kept)}." if kept is not None
                       else "The built-in matrix is used.")))
        if st.session_state.get("matrix") is not None:
            A = st.session_state.matrix
            held = f"{text.plain(st.session_state.matrix_name)} ({A.shape[0]} × {A.shape[1]})"
            misfit = _matrix_misfit(config, A)
            st.caption(text.markdown(
                f"Using {held}." if misfit is None else
                f"{held} does not fit this problem ({misfit}): the built-in matrix is used. "
                f"The upload is kept for when it fits again."))
            st.button("Use the built-in matrix again", on_click=_use_built_in,
                      disabled=disabled)


def _B_upload(config: AppConfig, disabled: bool = False) -> None:
    """The uploader of the constraint's B (n × n symmetric positive definite); a rejected file
    is reported and not used (``disabled``: greyed out)."""
    st.caption("Upload B (n × n, symmetric positive definite) as .csv or .npy.")
    upload = st.file_uploader("B for XᵀBX = I", type=["csv", "npy", "txt"], key="w_upload_B",
                              disabled=disabled)
    if upload is not None and upload.file_id != st.session_state.get("B_id"):
        try:
            st.session_state.B_matrix = check_uploaded_B(
                parse_matrix(upload.name, upload.getvalue()), config.n)
            st.session_state.B_id = upload.file_id
        except ValueError as err:
            kept = " The B already uploaded is kept." if st.session_state.get(
                "B_matrix") is not None else ""
            st.warning(text.markdown(f"B rejected: {str(err).rstrip('.')}.{kept}"))


def session_B(config: AppConfig) -> np.ndarray | None:
    """The constraint's B for this configuration (None for XᵀX = I); when XᵀBX = I asks for an
    uploaded B that is missing or does not fit n, a message and None (the run keeps to
    XᵀX = I)."""
    try:
        return constraint_matrix(config, st.session_state.get("B_matrix"))
    except ValueError as err:
        st.info(f"XᵀBX = I: {err}. Until then the run keeps to XᵀX = I.",
                icon=":material/info:")
        return None


def link_warnings(warnings: list[str]) -> None:
    """A link's corrected values in one box (they quote the link: shown as text): a box for
    each bad value would push the page's content below the first screen."""
    shown = [text.markdown(w) for w in warnings]
    if shown:
        st.warning(shown[0] if len(shown) == 1 else
                   "This link's settings were corrected:\n" + "\n".join(f"- {w}" for w in shown),
                   icon="⚠️")


def sidebar(owns: tuple[str, ...] = (), unused: frozenset[str] = frozenset()) -> AppConfig:
    """Draw the controls; return the (validated) configuration and keep the URL in step. The
    page's own URL parameters (``owns``, among PAGE_PARAMS) and the lecture deck's stay; other
    pages' are dropped. In lecture mode a clicker's keys open another preset from here
    (``lecture.act``, ``lecture.keys``).

    ``unused``: the settings (AppConfig's names; "scrub" for the Scrub section, "matrix" for
    the uploads) the page does not read, drawn greyed out under a caption that says so: they
    keep their values (a disabled widget keeps its state) for the pages that read them."""
    if unused - UNUSABLE:  # a misspelt name would grey nothing, silently
        raise ValueError(f"unknown sidebar settings {sorted(unused - UNUSABLE)}")
    fragments.page_run_started()
    navigation.through_navigation()
    from . import lecture as deck  # it imports this module: imported here, not at the top

    deck.act()  # a clicker's key may open another preset, before anything is drawn
    config = get_config()
    if st.session_state.pop("pending_config", False):
        _write_widgets(config)
    else:
        _keep_widgets(config)
    n_in, p_in = st.session_state.w_n, st.session_state.w_p
    if p_in > n_in:  # fix the widget itself, so the sidebar shows what runs
        st.session_state.w_p = n_in
        st.warning(f"p = {p_in} > n = {n_in} is impossible (St(n, p) needs p ≤ n): "
                   f"using p = {n_in}.", icon="⚠️")
    link_warnings(st.session_state.pop("url_warnings", []))
    sb = st.sidebar
    lecture = sb.toggle("Lecture mode", key="w_lecture", on_change=deck.toggled,
                        help="For a projector: large type, thick lines, the sidebar folded and "
                             "the explanations hidden. A link keeps it (lecture=1).")
    if unused:  # above the sections: on Compare the greyed ones are all under Landing
        sb.caption(UNUSED_CAPTION)
    sb.header("Problem")
    problem = sb.selectbox("Cost function", list(PROBLEM_LABELS), key="w_problem",
                           format_func=PROBLEM_LABELS.get, disabled="problem" in unused)
    constraint = sb.selectbox("Constraint", list(CONSTRAINT_LABELS), key="w_constraint",
                              format_func=CONSTRAINT_LABELS.get,
                              disabled="constraint" in unused,
                              help="XᵀBX = I (B symmetric positive definite): the generalized "
                                   "Stiefel manifold of Vary et al. (2024); its layers "
                                   "xᵀBx = c are ellipses in the plane view.")
    c1, c2 = sb.columns(2)
    n = c1.number_input("n", *limits("n"), step=1, key="w_n", disabled="n" in unused)
    p = c2.number_input("p", *limits("p"), step=1, key="w_p", disabled="p" in unused)
    c1, c2 = sb.columns(2)
    seed = c1.number_input("seed", *limits("seed"), step=1, key="w_seed",
                           disabled="seed" in unused)
    distance = c2.number_input("X₀ distance", *limits("distance"), step=0.1, key="w_distance",
                               disabled="distance" in unused,
                               help="Frobenius distance of X₀ from St(n, p): ‖s − 1‖ for its "
                                    "singular values s.")
    sb.header("Landing")
    tangent = sb.selectbox("Tangent term", list(TANGENT_LABELS), key="w_tangent",
                           format_func=TANGENT_LABELS.get, disabled="tangent" in unused)
    beta_idle = tangent != "beta" or p == 1
    beta = sb.select_slider("β (log scale)",
                            _options(BETA_GRID, st.session_state.get("w_beta", config.beta),
                                     "beta"),
                            key="w_beta", format_func=fmt, disabled=beta_idle or "beta" in unused,
                            help=BETA_HELP)
    if tangent == "beta" and p == 1:
        sb.caption("For p = 1 every β gives the same tangent term (skew(XᵀG) is 1 × 1, so 0). "
                   "Set p ≥ 2 to see β act.")
    elif tangent != "beta":
        sb.caption("β only enters the β-metric tangent term.")
    omega = sb.select_slider("ω (normal term weight)",
                             _options(OMEGA_GRID, st.session_state.get("w_omega", config.omega),
                                      "omega"),
                             key="w_omega", format_func=fmt, help=OMEGA_HELP,
                             disabled="omega" in unused)
    step = sb.selectbox("Step rule", list(STEP_LABELS), key="w_step", format_func=STEP_LABELS.get,
                        help=STEP_HELP, disabled="step" in unused)
    if step == "scalefree" and omega > 1 and "omega" not in unused:
        sb.caption("The scale-free rule takes ω above 1 as 1: ωₖ = min(ω, 1)/(2ηₖ).")
    eta = sb.number_input("η (step; the cap for safe, first trial for Armijo)",
                          *limits("eta"), step=0.01, format="%.4g", key="w_eta",
                          disabled=not USES_ETA[step] or "eta" in unused)
    c1, c2 = sb.columns(2)
    tol = c1.select_slider("tolerance", _options(TOL_GRID, st.session_state.get("w_tol",
                                                                               config.tol)),
                           key="w_tol", format_func=lambda v: f"{v:.0e}",
                           disabled="tol" in unused)
    max_iter = c2.number_input("max iterations", *limits("max_iter"), step=100,
                               key="w_max_iter", disabled="max_iter" in unused)
    speed = sb.radio("Animation speed", list(SPEEDS), key="w_speed", horizontal=True,
                     disabled="speed" in unused,
                     help="Iterations per second while Run animates: slow 30, normal 250, "
                          "instant as fast as the browser draws.")
    new = replace(config, problem=problem, constraint=constraint, n=int(n), p=int(p),
                  seed=int(seed), distance=float(distance), tangent=tangent, beta=float(beta),
                  omega=float(omega), step=step, eta=float(eta), tol=float(tol),
                  max_iter=int(max_iter), speed=speed, lecture=bool(lecture))
    new = _scrub(sb, new, disabled="scrub" in unused)
    new, messages = validate(new)
    for message in messages:
        st.warning(message, icon="⚠️")
    with sb:
        _matrix_upload(new, disabled="matrix" in unused)
        if new.constraint == "upload":
            _B_upload(new, disabled="matrix" in unused)
    st.session_state.config = new
    write_url(to_query(new), keep=set(owns) | set(LECTURE_PARAMS))
    deck.keys(new)
    return new


def write_url(query: dict[str, str], keep: set[str]) -> None:
    """The URL's parameters: ``query``'s values, and of the others those named in ``keep``
    (the page's own, the lecture deck's); the rest (unknown, warned about once, or another
    page's) dropped. In one write when anything changed: each write of st.query_params is
    an entry in the browser's history, and a first visit wrote one per parameter (16 on
    the explorer), so that Back stayed on the page for as many presses."""
    current = st.query_params.to_dict()
    wanted = {k: v for k, v in current.items() if k in query or k in keep} | query
    if wanted != current:
        st.query_params.from_dict(wanted)


SCRUB_LABELS = {"off": "off", "beta": "β", "omega": "ω", "eta": "η (step, or its cap)"}
SCRUB_HELP = (
    "A family of runs from the same X₀, one per value of the parameter (log-spaced over the "
    "range, with the value set here among them), computed at once; the player's slider "
    "switches among them with no wait, the neighbouring runs' paths faint. Releasing the "
    "slider sets the parameter here. Keys: [ and ] step it.")


def _scrub_default() -> None:
    """A new scrubbed parameter starts from its default range (``state.scrub_default``)."""
    st.session_state.w_scrub_lo, st.session_state.w_scrub_hi = SCRUB_DEFAULT


def _offer(name: str) -> None:
    st.session_state.w_scrub = name
    _scrub_default()


def _scrub(sb: object, config: AppConfig, disabled: bool = False) -> AppConfig:
    """The Scrub control: off, or the parameter the player's family runs over, with its range
    and count; beside it, where the parameter does nothing here, why, and the others
    (``disabled``: greyed out, on a page without the player)."""
    sb.header("Scrub")
    scrub = sb.selectbox("Scrub a family of runs", list(SCRUB_LABELS), key="w_scrub",
                         format_func=SCRUB_LABELS.get, help=SCRUB_HELP,
                         on_change=_scrub_default, disabled=disabled)
    if scrub == "off":
        return replace(config, scrub="off")
    if (st.session_state.w_scrub_lo, st.session_state.w_scrub_hi) == SCRUB_DEFAULT:
        # the default pair stands for the parameter's own default: shown as such
        st.session_state.w_scrub_lo, st.session_state.w_scrub_hi = scrub_default(scrub,
                                                                                  config.eta)
    idle = None if disabled else family.idle_reason(scrub, config)
    if idle is not None:
        sb.warning(f"{family.SYMBOLS[scrub]} does nothing here: {idle}. Scrub another "
                   "parameter:", icon=":material/info:")
        cols = sb.columns(2)
        for col, name in zip(cols, family.active_others(scrub, config), strict=False):
            col.button(f"Scrub {family.SYMBOLS[name]}",
                       key=fragments.button_key(f"w_offer_{name}"), on_click=_offer, args=(name,))
    c1, c2, c3 = sb.columns(3)
    lo = c1.number_input("from", *limits("scrub_lo"), format="%.4g", key="w_scrub_lo",
                         disabled=disabled)
    hi = c2.number_input("to", *limits("scrub_hi"), format="%.4g", key="w_scrub_hi",
                         disabled=disabled)
    count = c3.number_input("runs", *limits("scrub_count"), step=1, key="w_scrub_count",
                            disabled=disabled)
    return replace(config, scrub=scrub, scrub_lo=float(lo), scrub_hi=float(hi),
                   scrub_count=int(count))


def session_problem(config: AppConfig) -> tuple[Problem, np.ndarray | None]:
    """The configured problem and the matrix it was built from: the session's uploaded matrix
    when it fits the problem and gives a valid start, else (with a warning) the built-in one and
    None."""
    matrix = st.session_state.get("matrix")
    B = session_B(config)
    if matrix is None:
        return build_problem(config, B=B), None
    misfit = _matrix_misfit(config, matrix)
    if misfit is None:
        return build_problem(config, matrix, B), matrix
    st.warning(text.markdown(f"Your matrix {text.plain(st.session_state.get('matrix_name'))} "
                             f"does not fit this problem ({misfit}); using the built-in one."))
    return build_problem(config, B=B), None

