"""The compare page's model: rows of configurations run on one problem from one X_0 (pure).

A ``Row`` is one valid configuration: its label, method, tangent term, β, ω, step rule, η
(β, ω and η within the sidebar's ``state.BOUNDS``) and constraint (``ROW_CONSTRAINTS``: the
sidebar's, XᵀX = I, or XᵀBX = I, so St and the B-constraint can run side by side). The page's
table and a link hold cells, valid or not; ``parse_row`` turns them into a Row or says why it
cannot. ``run_rows`` applies the fairness choice and runs each row with
``landing_core.solvers.solve``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from landing_core.geometry import TANGENT_TERMS
from landing_core.methods import REGISTRY, methods_for, on_any_constraint
from landing_core.problems import Problem
from landing_core.run import Status
from landing_core.solvers import METHODS, Config, StopCheck, solve
from landing_core.steps import STEP_RULES, make_step_rule

from . import text
from .constraint import infeasibility_name, mixed, preset_B, with_constraint
from .runner import CPU, build_problem, initial
from .state import PRESENTATION, STATUS_LABELS, AppConfig, number

MAX_ROWS = 6
# the summary's column names, short, so that its columns fit a projector's 1280 px with the
# sidebar open (their help says the rest)
TIME_COLUMN = "CPU ms to tol"
TURN_COLUMN = "turn in span (rad)"
SPAN_COLUMN = "span motion"
TIME_HELP = ("CPU time of the computing thread, spent on the method's own work from X₀ on: "
             "the waits for the server's other work and the drawing are left out, and so is "
             "the work of other BLAS threads where there are several. A loaded machine still "
             "slows every thread (shared caches and cores): a difference under about 2× "
             "between rows can be noise; the iteration counts are exact.")
ROW_CONSTRAINTS = {  # a row's constraint: the sidebar's, or its own
    "sidebar": "as in the sidebar",
    "identity": "XᵀX = I",
    "B": "XᵀBX = I (the sidebar's B, else the preset)",
}
FAIRNESS = {  # the "Steps" choice: label -> the rule every row runs with (None: its own)
    "as set in each row": None,
    "each at its safe step (η as the cap; not adaptive)": "safe",
    "each with Armijo (no η to tune)": "armijo",
    "each with Barzilai–Borwein (no η to tune)": "bb",
    "each with the scale-free rule (no η to tune)": "scalefree",
}
NUMBERS = ("beta", "omega", "eta")  # a row's numbers, bounded as the sidebar's (state.BOUNDS)
BETA_OPTION = "metric_beta"
"""A method's own option that is the row's β: the β-metric of St(n, p) in which Riemannian GD
takes its gradient (``landing_core.methods.rgd``)."""


def row_methods() -> list[str]:
    """The methods a row may run: those for any problem (the app's problems carry no samples;
    the stochastic ones have their own page)."""
    return methods_for(Problem)


@dataclass(frozen=True)
class Row:
    """One configuration of a comparison, valid by construction (a ValueError says what is
    not): a method of ``row_methods``, a tangent term (``TANGENT_TERMS``), β and ω (the
    β-metric's β, eq. (beta_metric), and the normal term's weight, Algorithm 1), a step rule
    (``STEP_RULES``) and its η; β, ω and η within the sidebar's bounds (``state.BOUNDS``); and
    the constraint it runs on (``ROW_CONSTRAINTS``). ``parse_row`` builds one from a table's
    or a link's cells."""

    label: str
    method: str = "landing"
    tangent: str = "beta"
    beta: float = 0.5
    omega: float = 1.0
    step: str = "safe"
    eta: float = 0.1
    constraint: str = "sidebar"

    def __post_init__(self) -> None:
        for key, names, what in (("method", row_methods(), "method"),
                                 ("tangent", TANGENT_TERMS, "tangent term"),
                                 ("step", STEP_RULES, "step rule"),
                                 ("constraint", ROW_CONSTRAINTS, "constraint")):
            value = getattr(self, key)
            if not (isinstance(value, str) and value in names):  # a URL may hold a list
                raise ValueError(f"unknown {what} {text.quote(value)}")
        for name in NUMBERS:  # a JSON integer is stored as the float it stands for
            object.__setattr__(self, name, float(number(name, getattr(self, name))))

    def cells(self) -> dict[str, object]:
        """The row as the page's table holds it, one cell per column (``COLUMNS``)."""
        return asdict(self)

    def solver_config(self, fairness: str | None = None) -> Config:
        """The solver's configuration of this row; ``fairness``: the step rule every row runs
        with (``FAIRNESS``), None for the row's own."""
        own = {BETA_OPTION: self.beta} if BETA_OPTION in REGISTRY[self.method].options else {}
        return Config(beta=self.beta, omega=self.omega,
                      step=make_step_rule(fairness or self.step, self.eta),
                      tangent=self.tangent, method=self.method, options=own)


COLUMNS = tuple(f.name for f in fields(Row))  # the table's columns, the link's fields


def parse_row(cells: Mapping[str, object]) -> Row:
    """The Row of a table's or a link's cells (a ValueError saying why they cannot run): no
    constraint (a link made before rows had one, a blank cell) is the sidebar's; a label that
    is no text or blank becomes ``auto_label``, a typed one as ``text.label`` stores it."""
    constraint = cells.get("constraint")
    if constraint is None or (isinstance(constraint, float) and math.isnan(constraint)):
        constraint = "sidebar"
    parsed = Row("", **{c: cells.get(c) for c in COLUMNS if c not in ("label", "constraint")},
                 constraint=constraint)
    label = cells.get("label")
    return replace(parsed, label=text.label(label) if isinstance(label, str) and label.strip()
                   else auto_label(parsed))


def rows_query(rows: Iterable[Row | Mapping[str, object]]) -> str:
    """The rows (typed, or the table's cells, valid or not) as one URL parameter: a compact JSON
    list of [label, method, ..., constraint]."""
    cells = (r.cells() if isinstance(r, Row) else r for r in rows)
    return json.dumps([[r.get(c) for c in COLUMNS] for r in cells], ensure_ascii=False,
                      separators=(",", ":"))


def rows_from_query(query: str) -> tuple[list[Row], list[str]]:
    """The valid rows of a ``rows_query`` string (at most MAX_ROWS, ``parse_row``), and
    warnings for what was dropped (the first three named): a row that is no list of the
    columns' entries, or whose entries cannot run. No rows and one warning when the string
    cannot be read at all (not a JSON list, or longer than any six rows need)."""
    unreadable = [], ["URL parameter rows could not be read; showing the default rows."]
    if len(query) > 100 * MAX_ROWS * len(COLUMNS):
        return unreadable
    try:
        items = json.loads(query)
    except (ValueError, RecursionError):
        return unreadable
    if not isinstance(items, list):
        return unreadable
    valid, dropped = [], []
    for i, item in enumerate(items, start=1):
        # links made before rows had a constraint hold one entry less: the sidebar's
        if not (isinstance(item, list) and len(item) in (len(COLUMNS), len(COLUMNS) - 1)):
            dropped.append(f"URL row {i} dropped: it is not a list of the {len(COLUMNS)} "
                           f"entries {', '.join(COLUMNS)}.")
            continue
        r = dict(zip(COLUMNS, item + ["sidebar"] * (len(item) == len(COLUMNS) - 1),
                     strict=True))
        try:
            valid.append(parse_row(r))
        except (ValueError, TypeError) as why:
            label = r.get("label")
            name = text.quote(label) if isinstance(label, str) and label.strip() else str(i)
            dropped.append(f"URL row {name} dropped: {why}.")
    warnings = dropped[:3] + ([f"… and {len(dropped) - 3} more rows dropped."]
                              if len(dropped) > 3 else [])
    if len(valid) > MAX_ROWS:
        warnings.append(f"Only the first {MAX_ROWS} rows of the URL are kept.")
    return valid[:MAX_ROWS], warnings


def default_rows(config: AppConfig) -> list[Row]:
    """Four β-metric landing runs, β in {0.1, 0.5, 1, 5}, with the sidebar's ω and step."""
    return [Row(f"β = {b:g}", beta=b, omega=config.omega, step=config.step, eta=config.eta)
            for b in (0.1, 0.5, 1.0, 5.0)]


# short labels for the library's names, keyed by its lists (a new name fails here at import)
_STEP_TEXT = {name: {"safe": "safe (η ≤ {eta:g})", "constant": "η = {eta:g}",
                     "armijo": "Armijo", "bb": "BB", "scalefree": "scale-free"}[name]
              for name in STEP_RULES}
_TANGENT_TEXT = {name: {"beta": "β = {beta:g}", "euclidean": "Frobenius",
                        "relative": "relative"}[name] for name in TANGENT_TERMS}


_OPTION_SYMBOLS = {"gamma": "γ"}
# a label is cut at text.LABEL_MAX: the library's "Landing with heavy-ball momentum" left a
# momentum row on XᵀBX = I without its constraint
_SHORT_NAMES = {"momentum": "momentum"}


def auto_label(r: Row) -> str:
    """A label that names a row's method, tangent term, ω and step rule."""
    step = _STEP_TEXT[r.step].format(eta=r.eta)
    if r.method.startswith("rgd-"):
        retraction = {"qr": "QR", "polar": "polar", "cayley": "Cayley"}[r.method[4:]]
        return f"RGD ({retraction}, β = {r.beta:g}), {step}"
    tangent = _TANGENT_TEXT[r.tangent].format(beta=r.beta)
    # a method's own numbers (momentum's gamma = 0.9) in its label: no column sets them
    own = "".join(f", {_OPTION_SYMBOLS.get(name, name)} = {value:g}"
                  for name, value in REGISTRY[r.method].defaults.items()
                  if name != BETA_OPTION and type(value) in (int, float))
    head = {"landing": tangent, "penalty": "penalty"}.get(
        r.method, f"{_SHORT_NAMES.get(r.method, METHODS[r.method])} ({tangent}{own})")
    on = {"identity": ", on XᵀX = I", "B": ", on XᵀBX = I"}.get(r.constraint, "")
    return f"{head}, ω = {r.omega:g}, {step}{on}"


def _blank(label: object) -> bool:
    return label is None or (isinstance(label, float) and math.isnan(label)) or not text.plain(
        label).strip()


def _cell(column: str, value: object) -> object:
    """A table cell as the editor can hold it again: a number column's value as a float (None
    where it is none: a bool, text, a number beyond float), a text column's as text (a crafted
    client may send a list)."""
    if column in NUMBERS:
        if isinstance(value, bool):
            return None
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            return None
    return value if value is None or isinstance(value, str | float) else text.plain(value)


def relabel(old: list[dict], new: list[dict]) -> list[dict]:
    """The edited rows, where a valid row gets ``auto_label`` when its label is blank or when
    its settings changed but its label did not (a label must not name what the row no longer
    runs); a label typed by the user is kept as ``text.label`` stores it (one line, bounded,
    safe in the table's CSV download), and every cell gets a type the table can show.

    Each edit in the table is one action (a cell, an added row, deleted rows); rows are matched
    by position only when the count is unchanged, i.e. when a cell was edited.
    """
    matched = old if len(old) == len(new) else [None] * len(new)
    out = []
    for before, row_ in zip(matched, new, strict=True):
        after = {c: _cell(c, row_.get(c)) for c in COLUMNS}
        label = after["label"]
        if not _blank(label):
            after = {**after, "label": text.label(label)}
        elif isinstance(label, str):  # spaces, a tab: stored empty (a tab starts a CSV formula)
            after = {**after, "label": ""}
        try:
            parsed = parse_row(after)
        except ValueError:  # kept as typed, for the user to fix
            out.append(after)
            continue
        stale = before is not None and before.get("label") == label and any(
            before.get(c) != after.get(c) for c in COLUMNS if c != "label")
        if _blank(label) or stale:
            after = {**after, "label": auto_label(parsed)}
        out.append(after)
    return out


def row_reads(method: str, tangent: str) -> frozenset[str]:
    """Which of a row's "tangent", "beta" and "omega" ``method`` reads: the common parameters
    its factory takes (β only with the β-metric tangent term), and β where the method's own
    ``BETA_OPTION`` takes it (Riemannian GD)."""
    entry = REGISTRY[method]
    reads = set(entry.common) & {"tangent", "beta", "omega"}
    if "tangent" in reads and tangent != "beta":
        reads.discard("beta")
    if BETA_OPTION in entry.options:
        reads.add("beta")
    return frozenset(reads)


_UNUSED_TEXT = {"tangent": "the tangent term", "beta": "β", "omega": "ω"}


def unused_note(r: Row) -> str:
    """What of β, ω and the tangent term a row leaves alone, and why ("" if none): the table
    cannot grey out one row's cells."""
    reads = row_reads(r.method, r.tangent)
    unused = [name for name in _UNUSED_TEXT if name not in reads]
    if not unused:
        return ""
    if r.method.startswith("rgd-"):
        why = ("Riemannian GD stays on St(n, p) (no normal term) and takes the Riemannian "
               "gradient in the β-metric of the row's β (β = 1: the embedded metric)")
    elif r.method == "penalty":
        why = "the penalty method descends along the Euclidean gradient of f + ω/4 ‖h‖²"
    elif unused == ["beta"]:
        why = "β enters only the β-metric tangent term"
    else:
        why = "the method does not read them"
    return (f"{text.quote(r.label)} does not use "
            f"{' or '.join(_UNUSED_TEXT[name] for name in unused)}: {why}.")


def differ_only_in_beta(rows: list[Row]) -> bool:
    """Some two rows that read β (``row_reads``) differ in β alone (for p = 1 such rows
    coincide: skew(XᵀG) is 0, and β only scales it)."""
    betas: dict[tuple, set[float]] = {}
    for r in rows:
        if "beta" in row_reads(r.method, r.tangent):
            key = (r.method, r.tangent, r.omega, r.step, r.eta)
            betas.setdefault(key, set()).add(r.beta)
    return any(len(b) > 1 for b in betas.values())


def _field(r: Row) -> tuple:
    """What sets the scale of a row's field: its method, and what of its tangent term and β
    it reads (``row_reads``)."""
    reads = row_reads(r.method, r.tangent)
    return (r.method, r.tangent if "tangent" in reads else None,
            r.beta if "beta" in reads else None)


def differ_in_field(rows: list[Row]) -> bool:
    """The rows' fields scale differently (``_field``): one fixed step cannot suit them all."""
    return len({_field(r) for r in rows}) > 1


def constant_step_is_unfair(rows: list[Row]) -> bool:
    """A constant η compares runs whose fields scale differently: some row takes a constant
    step, and the rows differ in method or, for landing, in tangent term (β counts for the
    β-metric)."""
    return differ_in_field(rows) and any(r.step == "constant" for r in rows)


# What the "Steps" choice does. Near a solution the safe bound grows without limit (it is a
# bound on the step that keeps ||h|| <= eps, and ||h|| -> 0), so the safe step is the constant
# min(eta, 1/(2 omega)) there and keeps the constant step's bias: Armijo, BB and the
# scale-free rule adapt.
STEPS_HELP = (
    "A constant η suits one field and not another: the rotation block of gradᵦ scales with "
    "1/β. **Armijo**, **Barzilai–Borwein** and the **scale-free** rule adapt the step to each "
    "row's field. **The safe "
    "step does not**: it only shortens steps that would take ‖XᵀX − I‖ above ε; near the solution "
    "its bound grows without limit and every row takes the same constant min(η, 1/(2ω)), with "
    "the constant step's bias (this app's runs on brockett 3 × 2: 125, 128, 244 and 1202 "
    "iterations for β = 0.1, 0.5, 1, 5 at its safe step; 31, 25, 29, 42 with BB).")
CONSTANT_NOTE = (
    "A constant η favours whichever field happens to be scaled for it. For a fair comparison "
    "choose “each with Armijo”, “each with Barzilai–Borwein” or “each with the scale-free "
    "rule” above: they adapt the step to each row.")
SAFE_NOTE = (
    "Not a fair contest: near the solution the safe step is the constant min(η, 1/(2ω)) for "
    "every row, so it favours whichever field is scaled for that η, as a constant step does. "
    "Armijo, Barzilai–Borwein and the scale-free rule adapt the step to each row.")
TURN_HELP = (
    "How far the frame turns within its own span, summed over the run: the columns keep their "
    "lengths and angles (XₖᵀXₖ) and turn together in span(Xₖ) (for p = 2, the angle turned in "
    "that plane). β scales the rate of this rotation by 1/β (the rotation block of gradᵦ f); "
    "the total also depends on how far the frame has to turn to reach the minimizer, and on "
    "the path: rows that end at one minimizer can show about the same total.")
SPAN_HELP = ("How far span(Xₖ) itself moves, summed over the run: the Frobenius norm of each "
             "step's part off span(Xₖ) (a length, as Xₖ's entries are).")
ITERATIONS_HELP = ("Updates until ‖grad f‖ + ‖h‖ ≤ the tolerance, the stopping rule every row "
                   "shares; — where the row stopped otherwise (the status says why).")
GAP_HELP = ("The last iterate's f minus f*, the minimum of f on the constraint set (for p = n, "
            "on the component of O(n) that holds the row's last iterate: a long step can cross "
            "to the other). Negative where the iterate is off the set (by the final ‖h‖), "
            "where f can go below its minimum on the set.")


def constraint_misfit(r: Row, sidebar_B: bool) -> str | None:
    """Why a row cannot run on its constraint (None when it can): a method that does not take
    the problem's constraint (Riemannian GD, the penalty) runs on XᵀX = I only
    (``methods.on_any_constraint``). ``sidebar_B``: the sidebar's constraint is XᵀBX = I."""
    on_B = r.constraint == "B" or (r.constraint == "sidebar" and sidebar_B)
    if not on_B or on_any_constraint(r.method):
        return None
    return (f"{METHODS[r.method]} runs on XᵀX = I only; set its constraint to "
            f"{text.quote('identity')}")


ROW_FIELDS = ("tangent", "beta", "omega", "step", "eta", "speed")  # set by each row, not shared


def shared(config: AppConfig) -> AppConfig:
    """What the rows share (problem, size, seed, X0's distance, tol, max_iter): the sidebar's
    other fields set to their defaults, so that moving them does not rerun a comparison."""
    default = AppConfig()
    return replace(config, **{name: getattr(default, name)
                              for name in (*ROW_FIELDS, *PRESENTATION)})


def rows_B(config: AppConfig, B: np.ndarray | None) -> np.ndarray:
    """The B of the rows on XᵀBX = I: the sidebar's, or the preset one when the sidebar
    keeps to XᵀX = I."""
    return preset_B(config.n) if B is None else B


class Comparison:
    """The rows of one comparison on the configured problem from the configured X_0, run one
    at a time (``run_row``): ``run_rows`` runs them in one go, a page's worker row by row.

    ``B``: the sidebar's constraint matrix (None for XᵀX = I); a row runs on XᵀX = I, on
    XᵀBX = I (with B, or the preset B when the sidebar has none) or as the sidebar says.
    """

    def __init__(self, config: AppConfig, rows: list[Row], fairness: str | None,
                 matrix: np.ndarray | None = None, B: np.ndarray | None = None) -> None:
        self.config, self.rows, self.fairness = config, rows, fairness
        plain = build_problem(config, matrix)
        self._on = {"identity": plain, "B": with_constraint(plain, rows_B(config, B))}
        self._on["sidebar"] = plain if B is None else self._on["B"]
        self._X0 = initial(config, self._on["sidebar"])
        self._keep = config.max_iter + 1 if plain.n <= 3 else 0

    def run_row(self, i: int, should_stop: StopCheck | None = None) -> dict:
        """Row i's run: label (under a fairness choice it names the rule that ran, e.g.
        "β = 0.1 [BB]"), histories, iterates for n <= 3, status, message, iterations,
        ``f_star`` (f* over the component of O(n) of the row's final iterate when p = n,
        since a long step can cross) and ``B`` (whether the row ran on XᵀBX = I).

        ``time``: CPU seconds (``runner.CPU``)."""
        r, config = self.rows[i], self.config
        problem = self._on[r.constraint]
        result = solve(problem, self._X0, r.solver_config(self.fairness),
                       tol=config.tol, max_iter=config.max_iter, keep_iterates=self._keep,
                       should_stop=should_stop, clock=CPU)
        label = text.label(r.label)
        if self.fairness is not None:  # the rule that ran, where it overrides the row's
            label += f" [{_STEP_TEXT[self.fairness].format(eta=r.eta)}]"
        return dict(label=label, cost=result.cost, infeasibility=result.infeasibility,
                    grad_norm=result.grad_norm, time=result.time, X=result.iterates,
                    status=result.status, message=result.message,
                    iterations=result.iterations, f_star=result.f_star,
                    B=problem.B is not None)

    def f_star(self, runs: list[dict]) -> float | None:
        """f* over X_0's component (None when unknown, or when a row runs on XᵀBX = I, whose
        optimum differs, unless every row knows its own: the eigenproblem's pencil takes the
        row's B, ``run["f_star"]``; the other costs' optimum on XᵀBX = I is unknown)."""
        on_B = any(run["B"] for run in runs)
        known = all(run["f_star"] is not None for run in runs)
        return None if on_B and not known else self._on["sidebar"].optimum_from(self._X0)


def run_rows(config: AppConfig, rows: list[Row], fairness: str | None,
             matrix: np.ndarray | None = None, B: np.ndarray | None = None, *,
             should_stop: StopCheck | None = None,
             progress: Callable[[int, int, str], None] | None = None,
             ) -> tuple[list[dict], float | None]:
    """Run every row (``Comparison``): one dict per row (``Comparison.run_row``) and f*
    (``Comparison.f_star``). ``should_stop`` goes to every row's ``solve`` (rows after a stop
    are stopped at X_0); ``progress(i, rows, label)`` is called before row i."""
    comparison = Comparison(config, rows, fairness, matrix, B)
    runs = []
    for i, r in enumerate(rows):
        if progress is not None:
            progress(i, len(rows), r.label)
        runs.append(comparison.run_row(i, should_stop))
    return runs, comparison.f_star(runs)


HISTORIES = ("cost", "infeasibility", "grad_norm", "time")


def until(runs: list[dict], k: int) -> list[dict]:
    """The runs as far as iteration k, for a lecture's question (``lecture.question``): their
    histories and iterates cut after k, with no status (no run's outcome shows)."""
    cut = []
    for run in runs:
        part = dict(run, status="running", message="")
        for name in HISTORIES:
            part[name] = run[name][: k + 1]
        if run.get("X") is not None:
            part["X"] = run["X"][: k + 1]
        cut.append(part)
    return cut


def cut_short(runs: list[dict]) -> bool:
    """Some row was stopped from outside (the time limit): the comparison is not complete."""
    return any(run["status"] == Status.STOPPED for run in runs)


def frame_motion(X: np.ndarray) -> tuple[float, float]:
    """How far the frame turns within its own span, and how far the span moves, summed along
    iterates X of shape (K, n, p): for each step D = X_{k+1} - X_k, the rotation
    ||skew(X_k^T D)||_F / sqrt(2) (for p = 2 the in-span angle) and ||D - Q Q^T D||_F with
    Q an orthonormal basis of span(X_k). The beta-metric scales the first with 1/beta."""
    X = np.asarray(X, dtype=float)
    D = X[1:] - X[:-1]
    A = np.swapaxes(X[:-1], -1, -2) @ D
    skew = 0.5 * (A - np.swapaxes(A, -1, -2))
    Q = np.linalg.qr(X[:-1])[0]
    off = D - Q @ (np.swapaxes(Q, -1, -2) @ D)
    return (float(np.linalg.norm(skew, axis=(-2, -1)).sum() / np.sqrt(2)),
            float(np.linalg.norm(off, axis=(-2, -1)).sum()))


def infeasibility_column(runs: list[dict]) -> str:
    """The summary's column of the final ||h||: ‖XᵀX − I‖, ‖XᵀBX − I‖ when every row keeps to
    XᵀBX = I, or ‖h‖ when the rows differ (the "constraint" column tells which: both names
    in the header made the table run off a projector's 1280 px)."""
    on_B = [bool(run.get("B")) for run in runs]
    return "final ‖h‖" if mixed(on_B) else f"final {infeasibility_name(on_B)}"


def summary(runs: list[dict], f_star: float | None) -> list[dict]:
    """The summary table: iterations and time to tolerance, final f - f* (with the row's own
    f*, ``run["f_star"]``, where given: its final iterate's component), final ||h||
    (``infeasibility_column``), status; the constraint where the rows differ in it (else the
    column of ||h|| names it);
    where the iterates were kept and p >= 2, the frame's turn within its span and the span's
    motion (``frame_motion``)."""
    table, h_column = [], infeasibility_column(runs)
    constraints = mixed(run.get("B") for run in runs)
    for run in runs:
        done = run["status"] == "converged"
        entry = {
            "configuration": run["label"],
            "status": STATUS_LABELS.get(run["status"], run["status"]),
            "iterations to tol": run["iterations"] if done else None,
            TIME_COLUMN: 1e3 * float(run["time"][-1]) if done else None,
            "final f − f*": None if f_star is None else float(
                run["cost"][-1] - run.get("f_star", f_star)),
            h_column: float(run["infeasibility"][-1]),
        }
        if constraints:
            entry["constraint"] = "XᵀBX = I" if run.get("B") else "XᵀX = I"
        X = run.get("X")
        if X is not None and np.ndim(X) == 3 and np.shape(X)[-1] >= 2 and len(X) > 1:
            turn, moved = frame_motion(X)
            entry[TURN_COLUMN] = turn
            entry[SPAN_COLUMN] = moved
        table.append(entry)
    return table
