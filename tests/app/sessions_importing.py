"""Run app.py's and every page's import statements from threads at once, as the sessions of a
cold server do (tests/app/test_imports.py), in ``argv[1]`` forked copies of this interpreter:
each is fresh as to the project (the parent imported only what a server holds before any
session), and none pays for importing numpy, plotly and streamlit again. Prints OK, or the
errors, one a line."""

from __future__ import annotations

import ast
import os
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


def session(code, barrier: threading.Barrier, errors: list[str]) -> None:
    barrier.wait()
    try:
        exec(code, {"__name__": "page"})
    except Exception as e:  # noqa: BLE001  (any failure is the finding)
        errors.append(f"{Path(code.co_filename).name}: {type(e).__name__}: {e}")


def cold_server() -> list[str]:
    """Every entry's imports from a thread of its own, at once: the errors."""
    sys.setswitchinterval(1e-6)  # threads switch often: the interleavings of a loaded server
    barrier = threading.Barrier(len(codes))
    errors: list[str] = []
    threads = [threading.Thread(target=session, args=(c, barrier, errors)) for c in codes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


found = []
for trial in range(int(sys.argv[1]) if len(sys.argv) > 1 else 1):
    read, write = os.pipe()
    if os.fork() == 0:  # the child: one cold server, its errors through the pipe
        try:
            report = "\n".join(cold_server())
        except BaseException as e:  # noqa: BLE001  (the child must not go on as the parent)
            report = f"{type(e).__name__}: {e}"
        os.write(write, report.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        found += [f"trial {trial}: {line}" for line in pipe.read().splitlines()]
    os.wait()
print("\n".join(found) or "OK")
