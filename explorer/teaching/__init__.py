"""What the Theory page computes and draws: the paper's propositions checked numerically at a
point (``theory``, ``theory_generalized`` for XᵀBX = I), its demonstrations run with the
library's solvers (``demos``) and their figures (``demo_figures``). Pure numerics and plotly, no
streamlit (``explorer.demos`` and ``pages/theory.py`` put them on the page); teaching material
built on ``landing_core``, which the library itself does not need.
"""
