"""The app's configuration: one plain object, its bounds, and its mirror in the URL.

Pure functions (no streamlit): ``from_query`` parses query parameters into an ``AppConfig`` and a
list of warnings (an invalid or out-of-range value falls back to the default, with a warning);
``to_query`` is its inverse.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields, replace

from landing_core.geometry import TANGENT_TERMS
from landing_core.problems import PROBLEMS
from landing_core.run import Status
from landing_core.steps import STEP_RULES

from .text import quote

# The app's labels for the library's names, keyed (and ordered) by the library's own lists: a
# name added there without a label here fails at import.
_PROBLEM_TEXT = {
    "brockett": "Brockett tr(XᵀAXN)",
    "procrustes": "Procrustes ½‖AX − B‖²",
    "pca": "PCA −½tr(XᵀCX) (β-invariant on St(n, p))",
    "linear": "Linear tr(CᵀX)",
    "quartic": "Quartic −¼ΣXᵢⱼ⁴ (wells at the axes)",
    "generalized_eigen": "Generalized eigenproblem tr(XᵀAX), B from the Constraint",
}
_TANGENT_TEXT = {
    "beta": "β-metric gradᵦ f",
    "euclidean": "Frobenius projection",
    "relative": "relative gradient skew(GXᵀ)X",
}
_STEP_TEXT = {
    "safe": "safe step (Ablin et al.)",
    "constant": "constant η",
    "armijo": "Armijo (augmented Lagrangian)",
    "bb": "Barzilai–Borwein (safeguarded)",
    "scalefree": "scale-free (BB, ω follows the step)",
}
PROBLEM_LABELS = {name: _PROBLEM_TEXT[name] for name in PROBLEMS}
CONSTRAINT_LABELS = {  # the constraint the run keeps to: XᵀX = I, or XᵀBX = I (explorer.constraint)
    "identity": "XᵀX = I (St(n, p))",
    "preset": "XᵀBX = I, B ill-conditioned (cond 25)",
    "upload": "XᵀBX = I, your own B",
}
TANGENT_LABELS = {name: _TANGENT_TEXT[name] for name in TANGENT_TERMS}
STEP_LABELS = {name: _STEP_TEXT[name] for name in STEP_RULES}
STATUS_LABELS = {Status.CONVERGED: "converged", Status.MAX_ITER: "iteration limit",
                 Status.DIVERGED: "diverged", Status.STOPPED: "stopped"}
SPEEDS = {"slow": 30.0, "normal": 250.0, "instant": float("inf")}  # iterations per second

N_MAX, P_MAX, ITER_MAX = 200, 50, 5000
# st.cache_data is one store for the whole server, and any client can empty it (Streamlit's
# clear-cache message has no server-side switch): it only saves recomputation, never holds
# state. Bounded in count (the least recently used entry goes first; a Compare entry is at most
# ~2.5 MB) and in time (the memory returns after a class).
CACHE_LIMITS = dict(max_entries=32, ttl=3600)
# URL parameters a page owns: the explorer's geometry view; the compare table, its step choice
# and its x axis; the stochastic page's settings; the sweep page's. The shared configuration
# ignores them; other pages drop them.
PAGE_PARAMS = ("view", "rows", "steps", "against", "stoch", "sweep")
# the runs' clock (runner.CPU), as the Compare page's table, x axis and race name it
TIME_NAME = "CPU time"
# the lecture deck's URL parameters (explorer.lecture): every page keeps them
LECTURE_PARAMS = ("deck", "preset", "ask_at")
# fields that change how a run is shown, never the run: the animation speed, lecture mode
PRESENTATION = ("speed", "lecture")
# the family of runs the player scrubs (explorer.family): "off", or the parameter, its range
# (log-spaced) and the number of members; not part of the explorer's single run
FAMILY = ("scrub", "scrub_lo", "scrub_hi", "scrub_count")
SCRUB_DEFAULT = (0.05, 20.0)  # beta's range; scrub_lo, scrub_hi's defaults
FLAGS = {"1": True, "true": True, "on": True, "0": False, "false": False, "off": False}


@dataclass(frozen=True)
class AppConfig:
    """Everything that defines the explorer's view (a run is reproducible from it)."""

    problem: str = "brockett"
    constraint: str = "identity"
    n: int = 3
    p: int = 2
    seed: int = 0
    distance: float = 0.4
    tangent: str = "beta"
    beta: float = 0.5
    omega: float = 1.0
    step: str = "safe"
    eta: float = 0.1
    tol: float = 1e-8
    max_iter: int = 500
    speed: str = "normal"
    lecture: bool = False
    scrub: str = "off"
    scrub_lo: float = SCRUB_DEFAULT[0]
    scrub_hi: float = SCRUB_DEFAULT[1]
    scrub_count: int = 33

    def run_key(self) -> tuple:
        """The fields that change the computed run (not how it is shown, nor the family)."""
        return tuple(v for k, v in asdict(self).items()
                     if k not in PRESENTATION and k not in FAMILY)

    def family_key(self) -> tuple:
        """The fields that change the family of runs: those of the run except the scrubbed
        parameter (its members take every value of the range), and the family's own."""
        return tuple(v for k, v in asdict(self).items()
                     if k not in PRESENTATION and k != self.scrub)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)


# name -> (type, low, high) for numbers; a tuple of choices for categories
BOUNDS: dict[str, tuple] = {
    "problem": tuple(PROBLEM_LABELS),
    "constraint": tuple(CONSTRAINT_LABELS),
    "n": (int, 1, N_MAX),
    "p": (int, 1, P_MAX),
    "seed": (int, 0, 10**6),
    "distance": (float, 0.0, 2.0),
    "tangent": tuple(TANGENT_LABELS),
    "beta": (float, 0.01, 100.0),
    "omega": (float, 0.01, 100.0),
    "step": tuple(STEP_LABELS),
    "eta": (float, 1e-4, 10.0),
    "tol": (float, 1e-14, 1e-2),
    "max_iter": (int, 1, ITER_MAX),
    "speed": tuple(SPEEDS),
    "lecture": (bool,),
    "scrub": ("off", "beta", "omega", "eta"),
    "scrub_lo": (float, 1e-4, 100.0),
    "scrub_hi": (float, 1e-4, 100.0),
    "scrub_count": (int, 2, 101),
}


def limits(name: str) -> tuple[float, float]:
    """(low, high) of a number in BOUNDS: the URL's, the sidebar's and a Compare row's."""
    return BOUNDS[name][1], BOUNDS[name][2]


def number(name: str, value: object) -> float | int:
    """``value`` as the number ``name`` within its BOUNDS, from a link's text or a table's or a
    JSON row's cell; else a ValueError saying what is wrong with it, in the words the sidebar's
    URL and Compare's rows share."""
    return bounded(name, value, *BOUNDS[name])


def bounded(name: str, value: object, kind: type, low: float, high: float) -> float | int:
    """``value`` as a number of ``kind`` in [low, high] (``number``'s checks and words, for a
    page's own bounds); else a ValueError saying what is wrong with it."""
    try:
        if isinstance(value, bool):  # a JSON true is no number
            raise TypeError
        parsed = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name}={quote(value)} is not a number") from None
    except OverflowError:  # a 400-digit integer from JSON
        parsed = math.inf
    if not math.isfinite(parsed):  # a 400-digit integer as text: float() gives inf
        raise ValueError(f"{name}={quote(value)} is not a finite number")
    if kind is int:
        if parsed != int(parsed):
            raise ValueError(f"{name}={quote(value)} is not an integer")
        parsed = int(parsed)
    if not (low <= parsed <= high):
        raise ValueError(f"{name}={quote(value)} is outside [{low:g}, {high:g}]")
    return parsed


def _parse(name: str, raw: str) -> object:
    """One query value, or a ValueError saying what is wrong with it."""
    rule = BOUNDS[name]
    if rule == (bool,):
        if raw.lower() not in FLAGS:
            raise ValueError(f"{name}={quote(raw)} is not one of 1, 0 (on, off)")
        return FLAGS[raw.lower()]
    if isinstance(rule[0], type):
        return number(name, raw)
    if raw not in rule:
        raise ValueError(f"{name}={quote(raw)} is not one of {', '.join(rule)}")
    return raw


def validate(config: AppConfig) -> tuple[AppConfig, list[str]]:
    """Cross-field limits: p <= n (and the view sizes); returns the fixed config and messages."""
    messages = []
    if config.p > config.n:
        messages.append(f"p = {config.p} > n = {config.n} is impossible (St(n, p) needs p ≤ n): "
                        f"using p = {config.n}.")
        config = replace(config, p=config.n)
    if config.scrub != "off":
        config, more = _scrub_range(config)
        messages += more
    return config, messages


def scrub_default(name: str, eta: float) -> tuple[float, float]:
    """The default range of a family over ``name``: β 0.05-20, ω 0.1-20, η a decade either
    side of the configuration's ``eta``, within the parameter's bounds."""
    lo, hi = {"beta": SCRUB_DEFAULT, "omega": (0.1, 20.0)}.get(name, (eta / 10, eta * 10))
    low, high = limits(name)
    return max(lo, low), min(hi, high)


def _scrub_range(config: AppConfig) -> tuple[AppConfig, list[str]]:
    """The family's range within its parameter's bounds, low below high; the default pair
    (beta's, what a link that names only ``scrub=`` gets) becomes the parameter's own default
    (omega 0.1-20, eta a decade either side of the configuration's eta)."""
    name = config.scrub
    low, high = limits(name)
    if (config.scrub_lo, config.scrub_hi) == SCRUB_DEFAULT:
        lo, hi = scrub_default(name, config.eta)
        return replace(config, scrub_lo=lo, scrub_hi=hi), []
    lo, hi = min(max(config.scrub_lo, low), high), min(max(config.scrub_hi, low), high)
    messages = []
    if (lo, hi) != (config.scrub_lo, config.scrub_hi):
        messages.append(f"The scrub range of {name} is kept within [{low:g}, {high:g}].")
    if not lo < hi:
        lo, hi = (min(lo, hi), max(lo, hi)) if lo != hi else (max(lo / 10, low),
                                                              min(hi * 10, high))
        messages.append(f"The scrub range of {name} runs from low to high: {lo:g} to {hi:g}.")
    return replace(config, scrub_lo=lo, scrub_hi=hi), messages


UNKNOWN_NAMED = 3  # unknown URL parameters named in the warning; the rest are counted


def from_query(params: dict[str, str | list[str]]) -> tuple[AppConfig, list[str]]:
    """An AppConfig from URL query parameters; unknown, invalid or out-of-range values give a
    warning and the default (the other values are kept). Values are quoted bounded: a link
    can hold anything."""
    defaults = AppConfig()
    values, warnings, unknown = {}, [], []
    known = {f.name for f in fields(AppConfig)}
    for name, raw in params.items():
        if isinstance(raw, list):
            raw = raw[-1] if raw else ""
        if name in PAGE_PARAMS or name in LECTURE_PARAMS:
            continue
        if name not in known:
            unknown.append(quote(name))
            continue
        try:
            values[name] = _parse(name, str(raw))
        except ValueError as err:
            warnings.append(f"URL parameter {err}; using the default "
                            f"{getattr(defaults, name)!r}.")
    if unknown:
        more = len(unknown) - UNKNOWN_NAMED
        warnings.insert(0, f"Unknown URL parameter{'s' if len(unknown) > 1 else ''} "
                           f"{', '.join(unknown[:UNKNOWN_NAMED])}"
                           f"{f' and {more} more' if more > 0 else ''} ignored.")
    config, messages = validate(replace(defaults, **values))
    return config, warnings + messages


def to_query(config: AppConfig) -> dict[str, str]:
    """The query parameters that restore ``config`` exactly (repr keeps floats exact); the
    family's fields only where they differ from their defaults (a link without a family
    stays as it was)."""
    defaults = asdict(AppConfig())
    return {k: str(int(v)) if isinstance(v, bool) else repr(float(v)) if isinstance(v, float)
            else str(v) for k, v in asdict(config).items()
            if k not in FAMILY or v != defaults[k]}
