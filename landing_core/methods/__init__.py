"""Methods: a direction (tangent term, normal term, transforms) composed with a move, one module
each, all in one registry (``REGISTRY``; ``solvers.METHODS`` is its name -> label view).

To add a method: write a module here with a :class:`Method` subclass and a factory decorated
with ``@register(name, label)``, and import the module below. ``solvers.solve``, ``sweep`` and
the app then run it by name (``Config(method=name, options={...})``). A factory that takes
``constraint`` runs on the problem's constraint (``landing_core.constraints``), any of them.
"""

# isort: off
# registered in this order: the menus' order
from . import landing, rgd, penalty, momentum, sgd, saga
# isort: on
from .base import Field, Method, State, take_state
from .registry import (
    COMMON,
    LABELS,
    REGISTRY,
    MethodEntry,
    build,
    methods_for,
    on_any_constraint,
    register,
    unregister,
)

__all__ = [
    "COMMON",
    "LABELS",
    "REGISTRY",
    "Field",
    "Method",
    "MethodEntry",
    "State",
    "build",
    "landing",
    "methods_for",
    "momentum",
    "on_any_constraint",
    "penalty",
    "register",
    "rgd",
    "saga",
    "sgd",
    "take_state",
    "unregister",
]
