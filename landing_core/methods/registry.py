"""The one registry of methods: name -> (label, factory). ``solvers.METHODS`` is its view.

A module under ``landing_core.methods`` defines a :class:`~.base.Method` and registers a factory
with :func:`register`; ``build`` makes the method of a configuration. A factory takes, as keyword
arguments, any of the common parameters it uses: ``beta``, ``omega`` (floats for one run, (B,)
arrays for a batch), ``tangent``, ``problem`` (the problem the run is on, for a method that
reads its data; None when only a configuration is validated), ``constraint`` (the problem's,
``Problem.constraint``: St(n, p) when there is no problem), and its own options
(``Config.options``) with defaults.

A factory that takes ``constraint`` runs on any constraint (the landing methods); one that does
not runs on St(n, p) only (the retraction baselines, the penalty), and ``build`` refuses it a
problem on another constraint.

A method that runs on a kind of problem only (the stochastic methods on a
``problems.FiniteSum``) registers it as ``needs``; menus over arbitrary problems list
``methods_for(Problem)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from ..constraints import STIEFEL
from .base import Method

__all__ = ["COMMON", "LABELS", "REGISTRY", "MethodEntry", "build", "methods_for",
           "on_any_constraint", "register", "unregister"]

COMMON = ("beta", "omega", "tangent", "problem", "constraint")  # what every run has


@dataclass(frozen=True)
class MethodEntry:
    name: str
    label: str
    factory: Callable[..., Method]
    needs: type | None = None  # the class of problem the method runs on (None: any)

    @property
    def common(self) -> tuple[str, ...]:
        """The common parameters (``COMMON``) the factory takes: what a run's beta, omega,
        tangent, problem or constraint changes in this method."""
        params = inspect.signature(self.factory).parameters
        return tuple(name for name in COMMON if name in params)

    @property
    def options(self) -> tuple[str, ...]:
        """The factory's own keyword options (beyond the common parameters)."""
        params = inspect.signature(self.factory).parameters
        return tuple(name for name in params if name not in COMMON)

    @property
    def defaults(self) -> dict[str, object]:
        """The options' default values, where the factory gives one (momentum's gamma)."""
        params = inspect.signature(self.factory).parameters
        return {name: params[name].default for name in self.options
                if params[name].default is not inspect.Parameter.empty}


REGISTRY: dict[str, MethodEntry] = {}


def register(name: str, label: str, *, needs: type | None = None,
             ) -> Callable[[Callable[..., Method]], Callable[..., Method]]:
    """Decorator: register ``factory`` under ``name`` (a new name; labels are for people).
    ``needs``: the class of problem it runs on, when not every problem."""

    def decorate(factory: Callable[..., Method]) -> Callable[..., Method]:
        if name in REGISTRY:
            raise ValueError(f"a method named {name!r} is already registered")
        REGISTRY[name] = MethodEntry(name, label, factory, needs)
        return factory

    return decorate


def on_any_constraint(name: str) -> bool:
    """Whether the method ``name`` runs on any constraint (its factory takes ``constraint``),
    not on St(n, p) only."""
    return "constraint" in REGISTRY[name].common


def methods_for(kind: type) -> list[str]:
    """The names of the methods that run on every problem of class ``kind``."""
    return [name for name in REGISTRY
            if REGISTRY[name].needs is None or issubclass(kind, REGISTRY[name].needs)]


def unregister(name: str) -> None:
    """Remove a registered method (for tests and notebooks that register their own)."""
    REGISTRY.pop(name, None)


def build(name: str, *, beta: object = 0.5, omega: object = 1.0, tangent: str = "beta",
          problem: object = None, **options: object) -> Method:
    """The registered method ``name`` with these parameters, on the problem's constraint;
    ValueError for an unknown name, an option the method does not take, or a problem whose
    constraint the method does not handle."""
    if name not in REGISTRY:
        raise ValueError(f"unknown method {name!r}; choose one of {list(REGISTRY)}")
    entry = REGISTRY[name]
    params = inspect.signature(entry.factory).parameters
    unknown = sorted(set(options) - set(entry.options))
    if unknown:
        raise ValueError(f"method {name!r} takes no option {', '.join(map(repr, unknown))}; "
                         f"its options: {list(entry.options) or 'none'}")
    constraint = getattr(problem, "constraint", STIEFEL)
    if "constraint" not in params and constraint != STIEFEL:
        fit = [other for other in REGISTRY if on_any_constraint(other)]
        raise ValueError(f"method {name!r} runs on XᵀX = I only and does not handle this "
                         f"problem's constraint ({constraint.gram} = I); choose one of {fit}")
    given = {"beta": beta, "omega": omega, "tangent": tangent, "problem": problem,
             "constraint": constraint}
    common = {key: value for key, value in given.items() if key in params}
    return entry.factory(**common, **options)


class _Labels(Mapping[str, str]):
    """name -> label of every registered method, live (a method registered later shows)."""

    def __getitem__(self, name: str) -> str:
        return REGISTRY[name].label

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)

    def __repr__(self) -> str:
        return repr(dict(self))


LABELS: Mapping[str, str] = _Labels()
