"""The app's Streamlit glue: configuration and URL state, sidebar controls, the runner and the
in-browser player. The only streamlit code besides ``app.py`` and ``pages/``; the numerics live in
``landing_core``, which never imports this package or streamlit.

``controls``, ``live`` (the player's component and its streaming), ``navigation`` and ``sweeps``
import streamlit; the other modules are pure (testable without a running app). ``player/``
holds the player's JavaScript, ``figures`` the pages' plotly figures, and ``teaching/`` what the
Theory page computes (the paper's propositions checked, its demonstrations).
"""

# The whole library, imported while this package's module lock is held: every session's script
# thread imports this package first (app.py), so on a cold server one thread imports
# landing_core and the others wait for it. Threads importing landing_core's submodules
# concurrently, entering by different modules, deadlocked (importlib's _DeadlockError).
import landing_core  # noqa: E402, F401
