"""The app's Streamlit glue: configuration and URL state, sidebar controls, the runner and the
in-browser player. The only streamlit code besides ``app.py`` and ``pages/``; the numerics live in
``landing_core``, which never imports this package or streamlit.

``controls``, ``live`` (the player's component and its streaming), ``navigation`` and ``sweeps``
import streamlit; the other modules are pure (testable without a running app). ``player/``
holds the player's JavaScript, ``figures`` the pages' plotly figures, and ``teaching/`` what the
Theory page computes (the paper's propositions checked, its demonstrations).
"""

import importlib
import pkgutil

# Every module of the package (and so landing_core, whole) is loaded here, by the first import
# of ``explorer``: each session runs its page in a thread of its own, and the first project
# import of app.py and of every page is this package (tests/app/test_imports.py). A thread that
# imports a package another thread is still initializing waits for all of it; one entering by a
# submodule does not, and on a cold server sessions entering explorer and landing_core by
# different modules at once deadlocked in importlib (_DeadlockError at landing_core.problems)
# or met a partly initialized module: that page showed the exception.
for _module in pkgutil.walk_packages(__path__, f"{__name__}."):
    importlib.import_module(_module.name)
