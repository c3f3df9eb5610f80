"""The one registry of methods: name -> (label, factory). ``solvers.METHODS`` is its view.

A module under ``landing_core.methods`` defines a :class:`~.base.Method` and registers a factory
with :func:`register`; ``build`` makes the method of a configuration. A factory takes, as keyword
arguments, any of the common parameters it uses: ``beta``, ``omega`` (floats for one run, (B,)
arrays for a batch), ``tangent``, ``problem`` (the problem the run is on, for a method that
reads its data, such as a constraint matrix; None when only a configuration is validated), and
its own options (``Config.options``) with defaults.

A method may also stand for another one on the problems it is for (``register(..., replaces=
name, when=test)``): ``build(name, problem=...)`` then builds it wherever ``when(problem)``
holds, so that the problem decides (a problem carrying a constraint matrix ``B`` runs
"landing" on X^T B X = I). Such a variant is not listed in ``LABELS`` (the menus), and a method
without a variant for a problem that some variant's test claims gets a ValueError: it would
run on the wrong constraint.

A method that runs on a kind of problem only (the stochastic methods on a
``problems.FiniteSum``) registers it as ``needs``; menus over arbitrary problems list
``methods_for(Problem)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from .base import Method

__all__ = ["COMMON", "LABELS", "REGISTRY", "MethodEntry", "build", "methods_for", "register",
           "unregister"]

COMMON = ("beta", "omega", "tangent", "problem")  # what every run has


@dataclass(frozen=True)
class MethodEntry:
    name: str
    label: str
    factory: Callable[..., Method]
    replaces: str | None = None
    when: Callable[[object], bool] | None = None
    needs: type | None = None  # the class of problem the method runs on (None: any)

    @property
    def common(self) -> tuple[str, ...]:
        """The common parameters (``COMMON``) the factory takes: what a run's beta, omega,
        tangent or problem changes in this method."""
        params = inspect.signature(self.factory).parameters
        return tuple(name for name in COMMON if name in params)

    @property
    def options(self) -> tuple[str, ...]:
        """The factory's own keyword options (beyond the common parameters)."""
        params = inspect.signature(self.factory).parameters
        return tuple(name for name in params if name not in COMMON)


REGISTRY: dict[str, MethodEntry] = {}


def register(name: str, label: str, *, replaces: str | None = None,
             when: Callable[[object], bool] | None = None, needs: type | None = None,
             ) -> Callable[[Callable[..., Method]], Callable[..., Method]]:
    """Decorator: register ``factory`` under ``name`` (a new name; labels are for people).

    ``replaces`` and ``when``: the factory builds the method ``replaces`` for the problems on
    which ``when(problem)`` is true (given together). ``needs``: the class of problem it runs
    on, when not every problem."""
    if (replaces is None) != (when is None):
        raise ValueError("a variant needs both replaces= and when=")

    def decorate(factory: Callable[..., Method]) -> Callable[..., Method]:
        if name in REGISTRY:
            raise ValueError(f"a method named {name!r} is already registered")
        REGISTRY[name] = MethodEntry(name, label, factory, replaces, when, needs)
        return factory

    return decorate


def methods_for(kind: type) -> list[str]:
    """The names of the methods that run on every problem of class ``kind``."""
    return [name for name in _listed()
            if REGISTRY[name].needs is None or issubclass(kind, REGISTRY[name].needs)]


def unregister(name: str) -> None:
    """Remove a registered method (for tests and notebooks that register their own)."""
    REGISTRY.pop(name, None)


def build(name: str, *, beta: object = 0.5, omega: object = 1.0, tangent: str = "beta",
          problem: object = None, **options: object) -> Method:
    """The registered method ``name`` with these parameters; ValueError for an unknown name or
    an option the method does not take."""
    if name not in REGISTRY:
        raise ValueError(f"unknown method {name!r}; choose one of {list(REGISTRY)}")
    entry = _for_problem(REGISTRY[name], problem)
    params = inspect.signature(entry.factory).parameters
    unknown = sorted(set(options) - set(entry.options))
    if unknown:
        raise ValueError(f"method {name!r} takes no option {', '.join(map(repr, unknown))}; "
                         f"its options: {list(entry.options) or 'none'}")
    given = {"beta": beta, "omega": omega, "tangent": tangent, "problem": problem}
    common = {key: value for key, value in given.items() if key in params}
    return entry.factory(**common, **options)


def _for_problem(entry: MethodEntry, problem: object) -> MethodEntry:
    """The entry that runs ``entry``'s method on ``problem``: a variant whose test holds, or
    the entry itself; ValueError when only variants of other methods fit the problem."""
    if problem is None:
        return entry
    claims = [e for e in REGISTRY.values() if e.when is not None and e.when(problem)]
    for variant in claims:
        if variant.replaces == entry.name:
            return variant
    if claims and entry.when is None:
        fit = sorted({e.replaces for e in claims if e.replaces is not None})
        raise ValueError(f"method {entry.name!r} does not handle this problem's constraint "
                         f"({claims[0].label}); choose one of {fit}")
    return entry


def _listed() -> list[str]:
    return [name for name, entry in REGISTRY.items() if entry.replaces is None]


class _Labels(Mapping[str, str]):
    """name -> label of every registered method chosen by name (variants, chosen by the
    problem, are not listed), live (a method registered later shows)."""

    def __getitem__(self, name: str) -> str:
        if REGISTRY[name].replaces is not None:
            raise KeyError(name)
        return REGISTRY[name].label

    def __iter__(self) -> Iterator[str]:
        return iter(_listed())

    def __len__(self) -> int:
        return len(_listed())

    def __repr__(self) -> str:
        return repr(dict(self))


LABELS: Mapping[str, str] = _Labels()
