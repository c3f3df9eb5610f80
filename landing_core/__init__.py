"""Landing Explorer's numerical core: the paper's objects, problems, step rules and solvers.

Goyens, Absil & Feppon, *Geometric design of the tangent term in landing algorithms for
orthogonality constraints*. A problem carries its constraint (``constraints``: St(n, p), or
X^T B X = I); the methods (``methods``), step rules (``steps``) and sweeps read it from there.
Numerics only, on numpy and scipy: nothing here imports streamlit, plotly or pandas (the
app's figures and the Theory page's checks and demonstrations are in ``explorer``).
"""

from . import constraints, geometry, methods, problems, run, solvers, steps, stochastic
from .constraints import Constraint, GeneralizedStiefel, Stiefel
from .problems import (
    GradientCheck,
    Problem,
    ProblemLike,
    as_problem,
    check_gradient,
    initial_point,
    make_problem,
)
from .run import Status
from .solvers import Config, iterate, landing, penalty, riemannian_gd, solve
from .stochastic import stochastic_landing

__all__ = [
    "Config",
    "Constraint",
    "GeneralizedStiefel",
    "Stiefel",
    "constraints",
    "GradientCheck",
    "Problem",
    "ProblemLike",
    "as_problem",
    "check_gradient",
    "geometry",
    "initial_point",
    "iterate",
    "landing",
    "make_problem",
    "methods",
    "penalty",
    "problems",
    "riemannian_gd",
    "run",
    "Status",
    "solve",
    "solvers",
    "steps",
    "stochastic",
    "stochastic_landing",
]
