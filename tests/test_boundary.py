"""The library boundary: landing_core is numerics (numpy, scipy; plotly for figures) and never
imports streamlit or the app's glue, so notebooks and scripts can use it without the app."""

import ast
import pathlib
import subprocess
import sys

CORE = pathlib.Path(__file__).resolve().parents[1] / "landing_core"


def _imported_modules(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_module_under_landing_core_imports_streamlit_or_the_app():
    files = sorted(CORE.rglob("*.py"))
    assert len(files) >= 8
    offenders = {str(f.relative_to(CORE)): sorted(_imported_modules(f) & {"streamlit", "explorer"})
                 for f in files}
    assert {f: m for f, m in offenders.items() if m} == {}


def test_importing_every_core_module_loads_no_streamlit():
    modules = [f"landing_core.{f.stem}" for f in sorted(CORE.glob("*.py")) if f.stem != "__init__"]
    code = ("import importlib, sys\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            "print(sorted(k for k in sys.modules if k.split('.')[0] in ('streamlit', 'explorer')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=CORE.parent)
    assert out.stdout.strip() == "[]"
