"""Components declared without inspect's race (explorer/declare.py): a session importing a
declaring module while another thread's ``inspect.getmodule`` scan has marked the module but
not yet mapped its file got "module is None" from ``declare_component`` (seen on fresh servers
with a class's links opened together); ``declare.map_caller`` first waits for the mapping."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import streamlit.components.v1 as components
from explorer import declare
{guard}
component = components.declare_component("probe", url="http://127.0.0.1:9")
"""


def _import_mid_scan(tmp_path, name: str, guard: str, finish_after: float | None):
    """Import a module declaring a component while inspect's caches hold it as another
    thread's scan leaves it between its two writes (marked, file unmapped); that thread
    finishes the mapping after ``finish_after`` seconds (never if None)."""
    path = tmp_path / f"{name}.py"
    path.write_text(PROBE.format(guard=guard))
    inspect._filesbymodname[name] = str(path)  # the other scan's first write ...
    timer = None
    if finish_after is not None:  # ... and its second, a moment later
        absfile = os.path.normcase(os.path.abspath(path))
        timer = threading.Timer(finish_after, inspect.modulesbyfile.__setitem__,
                                (absfile, name))
        timer.start()
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
        if timer is not None:
            timer.join()


def test_a_declaration_mid_scan_fails_without_the_guard(tmp_path):
    """The race itself, as Streamlit raised it in the failing runs."""
    with pytest.raises(RuntimeError, match="module is None"):
        _import_mid_scan(tmp_path, "probe_unguarded", "", finish_after=None)


def test_map_caller_waits_for_the_scan_and_the_component_gets_its_module_name(tmp_path):
    module = _import_mid_scan(tmp_path, "probe_guarded", "declare.map_caller()",
                              finish_after=0.05)
    assert module.component.name == "probe_guarded.probe"


def test_map_caller_says_which_file_stayed_unmapped(tmp_path, monkeypatch):
    monkeypatch.setattr("explorer.declare.PATIENCE", 0.05)
    with pytest.raises(RuntimeError, match="inspect finds no module for .*probe_stuck.py"):
        _import_mid_scan(tmp_path, "probe_stuck", "declare.map_caller()", finish_after=None)


def _declarations() -> list[tuple[Path, ast.Call, ast.stmt | None]]:
    """(file, call, the statement before the call's) for each declare_component in the app."""
    found = []
    for path in [ROOT / "app.py", *ROOT.glob("explorer/**/*.py"), *ROOT.glob("pages/*.py")]:
        body = ast.parse(path.read_text(), str(path)).body
        for i, stmt in enumerate(body):
            for node in ast.walk(stmt):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "declare_component"):
                    found.append((path, node, body[i - 1] if i else None))
    return found


def test_every_component_declaration_follows_map_caller():
    found = _declarations()
    assert sorted(path.name for path, _, _ in found) == ["lecture.py", "live.py"]
    unguarded = [f"{path.name}:{call.lineno}" for path, call, before in found
                 if before is None or ast.unparse(before) != "declare.map_caller()"]
    assert unguarded == []
