"""Every Streamlit component of the app is declared under ``explorer.declare.LOCK``: two
declarations at once (sessions importing their modules together on a fresh server) race in
``inspect.getmodule``'s caches, and the loser's page shows "module is None" (declare.py)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _declarations() -> list[tuple[Path, ast.Call, list[ast.AST]]]:
    """(file, call, the call's enclosing nodes) for each declare_component call in the app."""
    found = []
    for path in [ROOT / "app.py", *ROOT.glob("explorer/**/*.py"), *ROOT.glob("pages/*.py")]:
        tree = ast.parse(path.read_text(), str(path))

        def walk(node: ast.AST, stack: list[ast.AST], path: Path = path) -> None:
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "declare_component"):
                found.append((path, node, stack))
            for child in ast.iter_child_nodes(node):
                walk(child, [*stack, node])

        walk(tree, [])
    return found


def _holds_lock(stack: list[ast.AST]) -> bool:
    return any(isinstance(node, ast.With) and any(
        ast.unparse(item.context_expr) == "declare.LOCK" for item in node.items)
        for node in stack)


def test_every_component_declaration_holds_the_lock():
    found = _declarations()
    names = sorted(path.name for path, _, _ in found)
    assert names == ["lecture.py", "live.py"]  # the deck's keys and the player
    unguarded = [f"{path.name}:{call.lineno}" for path, call, stack in found
                 if not _holds_lock(stack)]
    assert unguarded == []
