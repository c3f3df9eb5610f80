"""Methods: a direction (tangent term, normal term, transforms) composed with a move, one module
each, all in one registry (``REGISTRY``; ``solvers.METHODS`` is its name -> label view).

To add a method: write a module here with a :class:`Method` subclass and a factory decorated
with ``@register(name, label)``, and import the module below. ``solvers.solve``, ``sweep`` and
the app then run it by name (``Config(method=name, options={...})``).
"""

# isort: off
# registered in this order: the menus' order
from . import landing, rgd, penalty, momentum, sgd, saga
from . import generalized  # the variant of landing for problems with a matrix B
# isort: on
from .base import Field, LandingTerms, Method, State, take_state
from .registry import (
    COMMON,
    LABELS,
    REGISTRY,
    MethodEntry,
    build,
    methods_for,
    register,
    unregister,
)

__all__ = [
    "COMMON",
    "LABELS",
    "REGISTRY",
    "Field",
    "LandingTerms",
    "Method",
    "MethodEntry",
    "State",
    "build",
    "generalized",
    "landing",
    "methods_for",
    "momentum",
    "penalty",
    "register",
    "rgd",
    "saga",
    "sgd",
    "take_state",
    "unregister",
]
