"""Run app.py's and every page's import statements from threads at once, in this fresh
interpreter: the sessions of a cold server (tests/app/test_imports.py). Prints OK, or the
errors, one a line."""

from __future__ import annotations

import ast
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy  # noqa: E402, F401  (the server has these before any session)
import plotly.graph_objects  # noqa: E402, F401
import streamlit  # noqa: E402, F401


def imports_of(path: Path):
    """The module-level import statements of ``path``, compiled."""
    body = [n for n in ast.parse(path.read_text()).body
            if isinstance(n, ast.Import | ast.ImportFrom)]
    return compile(ast.Module(body=body, type_ignores=[]), str(path), "exec")


codes = [imports_of(p) for p in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]]
sys.setswitchinterval(1e-6)  # threads switch often: the interleavings of a loaded server
barrier = threading.Barrier(len(codes))
errors: list[str] = []


def session(code) -> None:
    barrier.wait()
    try:
        exec(code, {"__name__": "page"})
    except Exception as e:  # noqa: BLE001  (any failure is the finding)
        errors.append(f"{Path(code.co_filename).name}: {type(e).__name__}: {e}")


threads = [threading.Thread(target=session, args=(c,)) for c in codes]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("\n".join(errors) or "OK")
