"""The library boundary: landing_core is numerics (numpy and scipy, its only dependencies) and
never imports streamlit, plotly, pandas or the app's glue, so notebooks and scripts can use it
where the app's dependencies are not installed."""

import ast
import pathlib
import subprocess
import sys
import textwrap

CORE = pathlib.Path(__file__).resolve().parents[2] / "landing_core"


def _imported_modules(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


APP_ONLY = {"streamlit", "plotly", "pandas"}  # pyproject.toml's app group, not the library's


def test_no_module_under_landing_core_imports_the_apps_dependencies_or_the_app():
    files = sorted(CORE.rglob("*.py"))
    assert len(files) >= 8
    offenders = {str(f.relative_to(CORE)): sorted(_imported_modules(f) & (APP_ONLY | {"explorer"}))
                 for f in files}
    assert {f: m for f, m in offenders.items() if m} == {}


def test_every_core_module_imports_with_streamlit_plotly_and_pandas_blocked():
    """A fresh interpreter in which importing streamlit, plotly or pandas raises ImportError (as
    where only numpy and scipy are installed) imports every module of landing_core, found by
    walking the package, and loads nothing of the app."""
    on_disk = sorted(".".join(("landing_core", *f.relative_to(CORE).with_suffix("").parts))
                     .removesuffix(".__init__") for f in CORE.rglob("*.py"))
    app = sorted(APP_ONLY | {"explorer"})
    code = textwrap.dedent(f"""
        import importlib, importlib.abc, pkgutil, sys

        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {sorted(APP_ONLY)!r}:
                    raise ImportError(f"{{name}} is blocked")
                return None

        sys.meta_path.insert(0, Block())
        for blocked in {sorted(APP_ONLY)!r}:
            try:
                importlib.import_module(blocked)
            except ImportError:
                pass
            else:
                raise SystemExit(f"{{blocked}} was not blocked")

        def fail(name):
            raise

        import landing_core
        names = ["landing_core"] + [m.name for m in pkgutil.walk_packages(
            landing_core.__path__, "landing_core.", onerror=fail)]
        for name in names:
            importlib.import_module(name)
        print(sorted(names))
        print(sorted({{k.split(".")[0] for k in sys.modules}}.intersection({app!r})))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=CORE.parent)
    assert out.returncode == 0, out.stderr[-3000:]
    walked, loaded = out.stdout.splitlines()
    assert walked == repr(on_disk) and len(on_disk) >= 20  # every file, methods/ included
    assert loaded == "[]"


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


def _module_name(path: pathlib.Path) -> str:
    return ".".join(("landing_core", *path.relative_to(CORE).with_suffix("").parts)).removesuffix(
        ".__init__")


def _package_imports(path: pathlib.Path, known: set[str]) -> set[str]:
    """The modules of landing_core that ``path`` imports when it loads (its top-level
    imports: an import inside a function runs later, and cannot close a cycle at load)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            base = (package.rsplit(".", node.level - 1)[0] if node.level else "")
            module = ".".join(filter(None, (base, node.module)))
            for alias in node.names:  # ``from . import geometry`` imports the module geometry
                out.add(f"{module}.{alias.name}" if f"{module}.{alias.name}" in known
                        else module)
        elif isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
    return out & known


def test_no_two_modules_of_landing_core_import_each_other():
    """The package's import graph has no cycle (a cycle held together by an import at the
    bottom of a module breaks as soon as someone moves that import)."""
    files = {_module_name(f): f for f in CORE.rglob("*.py")}
    graph = {name: _package_imports(f, set(files)) - {name} for name, f in files.items()}
    assert "landing_core.solvers" in graph["landing_core.stochastic"]  # the graph sees imports
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join((*path[path.index(name):], name))
        if name not in done:
            for child in sorted(graph[name]):
                visit(child, (*path, name))
            done.add(name)

    for name in sorted(graph):
        visit(name, ())
