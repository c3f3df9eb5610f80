"""Constraints: the sets {X : h(X) = 0} the landing iterates approach, one module each.

``Stiefel()`` (X^T X = I_p, the paper's) and ``GeneralizedStiefel(B)`` (X^T B X = I_p) own
the constraint function, the normal term, the Gram matrix's name, the safe region, the
projection, the stationarity measure, the nearest feasible point and ``initial_point``
(:class:`~.base.Constraint` lists them). A problem carries its constraint
(``Problem.constraint``; St(n, p) by default), and every method, step rule and sweep reads it
from there: to add a constraint, subclass :class:`Constraint` in a module of your own and give
it to a problem.
"""

from __future__ import annotations

from typing import Any

from .base import SAFE_EPS, Constraint, draw
from .generalized import GeneralizedStiefel
from .stiefel import STIEFEL, Stiefel

__all__ = ["SAFE_EPS", "STIEFEL", "Constraint", "GeneralizedStiefel", "Stiefel", "draw",
           "from_matrix"]


def from_matrix(B: Any) -> Constraint:
    """The constraint X^T B X = I_p: St(n, p) for B None, else ``GeneralizedStiefel(B)``."""
    return STIEFEL if B is None else GeneralizedStiefel(B)
