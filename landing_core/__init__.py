"""Landing Explorer's numerical core: the paper's objects, problems, step rules and solvers.

Goyens, Absil & Feppon, *Geometric design of the tangent term in landing algorithms for
orthogonality constraints*. Numerics only: nothing here imports streamlit.
"""

from . import geometry, methods, problems, solvers, steps
from .problems import initial_point, make_problem
from .solvers import Config, iterate, landing, penalty, riemannian_gd, solve

__all__ = [
    "Config",
    "geometry",
    "initial_point",
    "iterate",
    "landing",
    "make_problem",
    "methods",
    "penalty",
    "problems",
    "riemannian_gd",
    "solve",
    "solvers",
    "steps",
]
