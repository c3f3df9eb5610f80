"""Sessions of a cold server import the app at once, each in its own thread (explorer's
``__init__``): a page's first project import is the ``explorer`` package, which loads every
module before any other thread may, so no two threads interleave in the app's imports. Without
it, sessions entering by different modules deadlocked in importlib (_DeadlockError at
landing_core.problems) in 4 of 20 fresh interpreters of sessions_importing.py."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
PROJECT = ("explorer", "landing_core")


def _project_imports(path: Path) -> list[tuple[ast.stmt, list[str]]]:
    """Each module-level import of a project module in ``path``: (statement, modules named,
    ``from a import b`` naming both a and a.b, which may be a module)."""
    found = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        if any(n.split(".")[0] in PROJECT for n in names):
            found.append((node, names))
    return found


def test_the_first_project_import_of_every_page_is_the_explorer_package():
    firsts = {path.name: ast.unparse(_project_imports(path)[0][0]) for path in ENTRIES}
    wrong = {name: first for name, first in firsts.items()
             if not (first == "import explorer" or first.startswith("from explorer import "))}
    assert wrong == {}
    assert len(firsts) == 8  # app.py and the seven pages


def test_importing_explorer_loads_every_module_the_pages_import():
    named = sorted({n for path in ENTRIES for _, names in _project_imports(path) for n in names
                    if (ROOT / (n.replace(".", "/") + ".py")).exists()
                    or (ROOT / n.replace(".", "/") / "__init__.py").exists()})
    assert "landing_core.geometry" in named and "explorer.teaching.theory" in named
    own = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                 for p in (ROOT / "explorer").rglob("*.py"))
    script = ("import sys, explorer; print(' '.join(m for m in sys.argv[1:] "
              "if m not in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script, *named, *own], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == []


def test_sessions_importing_at_once_all_get_the_app():
    """A race, so tried in ten cold servers (each failed with probability ~0.2 when the guard
    was missing: the test then fails with probability ~0.85)."""
    run = subprocess.run([sys.executable, str(ROOT / "tests/app/sessions_importing.py"), "10"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.stdout.strip() == "OK", run.stdout + run.stderr[-2000:]
