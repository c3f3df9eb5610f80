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


APP_FILES = [CORE.parent / "app.py", *sorted((CORE.parent / "pages").glob("*.py")),
             *sorted((CORE.parent / "explorer").glob("*.py"))]


PUBLIC_STREAMLIT = {"streamlit", "streamlit.components.v1"}  # the documented import paths


def test_the_app_uses_only_streamlits_public_api():
    """No import from Streamlit's internals (streamlit.runtime, ...): those change without
    notice between releases. Public: ``streamlit`` itself (st.*) and its components API."""
    private = {}
    for path in APP_FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            bad = [m for m in names
                   if m.split(".")[0] == "streamlit" and m not in PUBLIC_STREAMLIT]
            if bad:
                private[path.name] = bad
    assert len(APP_FILES) >= 10 and private == {}


class _FakeStreamlit:
    """What navigation.through_navigation touches: session state, st.Page, st.navigation,
    st.rerun, recorded."""

    def __init__(self, state: dict):
        self.session_state = state
        self.calls: list[tuple] = []

    def Page(self, path, **kwargs):  # noqa: N802 - streamlit's name
        return (path, kwargs["title"], kwargs["default"])

    def navigation(self, pages, position="sidebar"):
        self.calls.append(("navigation", pages, position))

    def rerun(self):
        self.calls.append(("rerun",))


def test_a_first_run_not_made_by_app_py_leaves_the_legacy_mode_through_st_navigation(
        monkeypatch):
    from explorer import navigation

    fake = _FakeStreamlit({})
    monkeypatch.setattr(navigation, "st", fake)
    navigation.through_navigation()
    assert fake.calls == [("navigation", navigation.pages(), "hidden"), ("rerun",)]
    assert fake.calls[0][1][0] == ("pages/explorer.py", "Explorer", True)
    # every file in pages/ is a page of the navigation
    assert sorted(p[0] for p in fake.calls[0][1]) == sorted(
        f"pages/{f.name}" for f in (CORE.parent / "pages").glob("*.py"))
    for state in ({"run_via_app": True}, {"config": object()}):  # via app.py, or not first
        fake = _FakeStreamlit(dict(state))
        monkeypatch.setattr(navigation, "st", fake)
        navigation.through_navigation()
        assert fake.calls == [] and "run_via_app" not in fake.session_state
