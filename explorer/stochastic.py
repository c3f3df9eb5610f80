"""The Stochastic page's model: its settings (mirrored in the URL's ``stoch``), and the runs,
computed by a worker thread one epoch of each method in turn while the page draws what has
arrived.

Every method runs on the same finite sum (online PCA from the sidebar's seed) from the same
X_0 (the sidebar's distance), with the same tangent term, β, ω, batch size and step: the
curves differ in the gradient estimate only. No streamlit here.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from landing_core.problems import FiniteSum, initial_point, online_pca
from landing_core.run import Status
from landing_core.steps import Decreasing
from landing_core.stochastic import EpochRecord, default_step, epochs, stochastic_config

from .gate import GATE, Gate
from .state import AppConfig
from .style import PALETTE
from .text import quote
from .worker import LeasedWorker

METHOD_LABELS = {"sgd": "SGD", "saga": "SAGA", "landing": "full-batch landing"}
METHOD_COLOURS = {"sgd": PALETTE[1], "saga": PALETTE[0], "landing": PALETTE[2]}
SAMPLES = (200, 1000, 5000)
SWITCH = 0.5  # the fraction of the run at which SGD's decreasing step starts to decrease
WARNINGS_SHOWN = 6  # invalid parts of a ``stoch`` URL value named one by one

# name -> (type, low, high) of the numbers; checked for the URL and the widgets alike
LIMITS = {"n": (int, 2, 100), "p": (int, 1, 10), "samples": (int, 200, 5000),
          "batch": (int, 1, 1000), "eta": (float, 0.0, 1.0), "epochs": (int, 1, 500)}


@dataclass(frozen=True)
class StochasticSpec:
    """The page's settings. ``eta`` 0: the default step (``stochastic.default_step``);
    ``decreasing``: SGD's step is eta for the first half of the run's updates, then decays
    like 1/k (``step_of``)."""

    n: int = 20
    p: int = 3
    samples: int = 1000
    batch: int = 10
    eta: float = 0.0
    epochs: int = 100
    methods: tuple[str, ...] = ("sgd", "saga", "landing")
    decreasing: bool = False

    def to_query(self) -> str:
        """One URL value, e.g. ``n=20,p=3,samples=1000,...,methods=sgd+saga``."""
        parts = []
        for key, value in asdict(self).items():
            if key == "methods":
                value = "+".join(value)
            elif isinstance(value, bool):
                value = int(value)
            parts.append(f"{key}={value}")
        return ",".join(parts)


def from_query(raw: str | None) -> tuple[StochasticSpec, list[str]]:
    """The spec of a ``stoch`` URL value: invalid parts give a warning and their default."""
    spec, warnings = StochasticSpec(), []
    if not raw:
        return spec, warnings
    known = {f.name for f in fields(StochasticSpec)}
    values: dict[str, object] = {}
    for part in str(raw).split(","):
        key, _, text = part.partition("=")
        try:
            if key not in known:
                raise ValueError(f"unknown setting {quote(key)}")
            values[key] = _parse(key, text)
        except ValueError as err:
            warnings.append(f"URL parameter stoch: {err}; using the default.")
    if len(warnings) > WARNINGS_SHOWN:  # a long hostile link: name a few, count the rest
        rest = len(warnings) - WARNINGS_SHOWN
        warnings = [*warnings[:WARNINGS_SHOWN], f"URL parameter stoch: {rest} more invalid "
                    f"setting{'s' if rest > 1 else ''} ignored."]
    spec, messages = validate(replace(spec, **values))
    return spec, warnings + messages


def _parse(key: str, text: str) -> object:
    if key == "methods":
        names = tuple(name for name in text.split("+") if name)
        bad = [name for name in names if name not in METHOD_LABELS]
        if bad or not names:
            raise ValueError(f"methods={quote(text)}: choose among "
                             f"{', '.join(METHOD_LABELS)}")
        return names
    if key == "decreasing":
        if text not in ("0", "1"):
            raise ValueError(f"decreasing={quote(text)} is not 0 or 1")
        return text == "1"
    kind, low, high = LIMITS[key]
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{key}={quote(text)} is not a number") from None
    if not (math.isfinite(value) and low <= value <= high) or (kind is int and value % 1):
        what = "an integer" if kind is int else "a number"
        raise ValueError(f"{key}={quote(text)} is not {what} "
                         f"in [{low:g}, {high:g}]")
    return kind(value)


def validate(spec: StochasticSpec) -> tuple[StochasticSpec, list[str]]:
    """Cross-field limits (p <= n, batch <= samples): the fixed spec and what was changed."""
    messages = []
    if spec.p > spec.n:
        messages.append(f"p = {spec.p} > n = {spec.n} is impossible (St(n, p) needs p ≤ n): "
                        f"using p = {spec.n}.")
        spec = replace(spec, p=spec.n)
    if spec.batch > spec.samples:
        messages.append(f"The batch ({spec.batch}) cannot exceed the samples ({spec.samples}): "
                        f"using {spec.samples}.")
        spec = replace(spec, batch=spec.samples)
    return spec, messages


def problem_of(spec: StochasticSpec, config: AppConfig) -> tuple[FiniteSum, np.ndarray]:
    """The finite sum and X_0 every method starts from (the sidebar's seed and distance)."""
    problem = online_pca(spec.n, spec.p, samples=spec.samples, seed=config.seed)
    return problem, initial_point(spec.n, spec.p, config.distance, seed=config.seed)


def step_of(spec: StochasticSpec, problem: FiniteSum, method: str) -> float | Decreasing:
    """The step of ``method``: the spec's eta (0: the default); SGD's, when decreasing, eta
    until k_0 = half the run's updates and eta k_0 / k after. So the two SGD curves agree
    until the run's middle; where the constant step has reached its noise floor by then (the
    default settings) the decreasing one goes below it, where it has not the decay slows it.
    (A decay from k = 0, ten epochs' half-life, ended above the constant step's floor on
    every setting tried: RESULTS.md, section 22.)"""
    eta = spec.eta or default_step(problem, spec.batch)
    if method == "sgd" and spec.decreasing:
        k0 = SWITCH * spec.epochs * math.ceil(spec.samples / spec.batch)
        return Decreasing(eta, half_life=k0, constant_for=k0)
    return eta


class LiveStochastic(LeasedWorker):
    """The page's runs, computed by a worker thread: one epoch of each method in turn, so the
    curves grow together. ``runs`` (read under ``lock``) holds, per method, the histories so
    far; ``finished`` once every method has ended. The work is bounded and tied to demand
    (``worker.LeasedWorker``): the page renews the lease at each redraw."""

    def __init__(self, key: tuple, spec: StochasticSpec, config: AppConfig, *,
                 heavy: bool = False, seconds: float = 30.0, gate: Gate = GATE) -> None:
        self.spec = spec
        self.problem, self.X0 = problem_of(spec, config)
        self.f_star = float(self.problem.f_star)
        self.finished = False
        self.error = ""
        self.runs = {m: dict(label=METHOD_LABELS[m], colour=METHOD_COLOURS[m], epoch=[],
                             cost=[], infeasibility=[], grad_norm=[], samples=[],
                             status=Status.RUNNING, message="") for m in spec.methods}
        self._streams = {
            m: epochs(self.problem, self.X0, stochastic_config(
                m, batch_size=spec.batch, step=step_of(spec, self.problem, m),
                beta=config.beta, omega=config.omega, seed=config.seed,
                tangent=config.tangent, problem=self.problem), spec.epochs)
            for m in spec.methods}
        super().__init__(key, "stochastic", heavy=heavy, seconds=seconds, gate=gate)
        self.renew()

    def done(self) -> bool:
        return self.finished

    def compute(self) -> None:
        try:
            while self._streams and self.wanted():
                if self.over_time():
                    self._stop(f"Stopped: {self.time_limit_text()}.")
                    return
                for m, stream in list(self._streams.items()):
                    rec = next(stream, None)
                    with self.lock:
                        self._add(m, rec)
            with self.lock:
                self.finished = self.finished or not self._streams
        except Exception as err:  # noqa: BLE001 - the page must hear of it, not a dead thread
            with self.lock:
                self.error = f"The runs stopped: {err}"
                self.finished = True

    def _add(self, method: str, rec: EpochRecord | None) -> None:
        """One epoch's record (None: the method ran all its epochs), under the lock."""
        run = self.runs[method]
        if rec is None or rec.status == Status.DIVERGED:
            run["status"] = Status.MAX_ITER if rec is None else Status.DIVERGED
            run["message"] = "" if rec is None else rec.message
            del self._streams[method]
            return
        for key, value in (("epoch", rec.epoch), ("cost", rec.cost),
                           ("infeasibility", rec.infeasibility),
                           ("grad_norm", rec.stationarity), ("samples", rec.sample_gradients)):
            run[key].append(value)

    def _stop(self, message: str) -> None:
        with self.lock:
            for m in self._streams:
                self.runs[m]["status"], self.runs[m]["message"] = Status.STOPPED, message
            self._streams.clear()
            self.finished = True

    def wait(self, seconds: float) -> None:
        """Let the worker run for up to ``seconds`` (less if it ends)."""
        thread = self._thread
        if thread is not None:
            thread.join(seconds)

    def snapshot(self) -> tuple[list[dict], bool, str]:
        """(copies of the runs so far, finished, error), consistent with one another."""
        with self.lock:
            runs = [dict(run, **{k: list(run[k]) for k in ("epoch", "cost", "infeasibility",
                                                           "grad_norm", "samples")})
                    for run in self.runs.values()]
            return runs, self.finished, self.error


def summary(runs: list[dict], f_star: float) -> list[dict]:
    """One row per method: epochs run, sample gradients used, final relative gap, ||h|| and
    stationarity."""
    rows = []
    for run in runs:
        if not run["epoch"]:
            continue
        rows.append({
            "method": run["label"],
            "epochs": run["epoch"][-1],
            "sample gradients": run["samples"][-1],
            "|f − f*| / |f*|": abs(run["cost"][-1] - f_star) / abs(f_star),
            "‖XᵀX − I‖": run["infeasibility"][-1],
            "‖grad₁ f‖": run["grad_norm"][-1],
            # every epoch asked for was run, which says nothing of convergence (full-batch
            # landing makes one update per epoch)
            "status": "all epochs run" if run["status"] == Status.MAX_ITER else str(run["status"]),
        })
    return rows
