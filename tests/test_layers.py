"""The package's layers: a module imports only its own layer and the layers below it.

Read from the source with ``ast`` (imports inside functions count too, since a lazy
import is still a dependency), so a layer violation fails here before it becomes a
tangle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ggpkit

PACKAGE_DIR = Path(ggpkit.__file__).parent

LAYERS: list[set[str]] = [
    {"errors", "processes"},
    {"gdl"},
    {"reasoning"},
    {"search"},
    {"games"},
    {"agents"},
    {"match"},
    {"store"},
    {"cli", "web", "envs", "tournament", "tools", "learn"},
]
"""Lowest first; a module may import its own layer and any earlier one."""


def _layer_of(package: str) -> int | None:
    for level, names in enumerate(LAYERS):
        if package in names:
            return level
    return None


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "ggpkit" and len(parts) > 1:
                found.add(parts[1])
    return found


def _violations() -> list[str]:
    out = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        relative = path.relative_to(PACKAGE_DIR)
        if len(relative.parts) == 1:
            continue  # ggpkit/__init__.py and __main__.py sit above every layer
        own = _layer_of(relative.parts[0])
        assert own is not None, f"{relative}: package {relative.parts[0]!r} has no layer"
        for package in _imported_packages(path):
            level = _layer_of(package)
            if level is None or level > own:
                out.append(f"{relative} imports ggpkit.{package}")
    return out


def test_every_import_goes_down_the_layers() -> None:
    assert _violations() == []


def test_the_check_sees_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    lines = ["import ggpkit.web.app", "from ggpkit.match import driver", "def f():"]
    probe.write_text("\n".join([*lines, "    import ggpkit.store", ""]))
    assert _imported_packages(probe) == {"web", "match", "store"}
