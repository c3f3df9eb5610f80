"""Bounded work in the app: the deployment's budget applied to each action before it starts.

``admit(cost)`` refuses (a message naming what to lower, then ``st.stop``) an action whose
estimated worst case (``explorer.budget``) is over the budget the deployment sets.
"""

from __future__ import annotations

import streamlit as st

from .budget import Budget, Cost

BUDGET = Budget.from_env()  # read once per server process: the deployment's environment


def admit(cost: Cost, budget: Budget = BUDGET) -> None:
    """Go on when ``cost`` fits ``budget``; else say why and what to lower, and stop the page."""
    refusal = cost.refusal(budget)
    if refusal is not None:
        st.error(refusal, icon=":material/hourglass_disabled:")
        st.stop()
