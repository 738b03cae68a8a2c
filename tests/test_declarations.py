"""Agents, matches and interfaces know games only by their contract and declarations.

Read from the source with ``ast``: no module outside ``ggpkit/games`` imports a native
game's package, names one of its classes, or compares with a registered game's name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ggpkit
from ggpkit.games.capabilities import Capabilities

PACKAGE_DIR = Path(ggpkit.__file__).parent
NATIVE_PACKAGES = ("ggpkit.games.peg", "ggpkit.games.checkers", "ggpkit.games.breakthrough")


def _native_class_names() -> set[str]:
    names = set()
    for name in ggpkit.games():
        game = ggpkit.load(name)
        names.add(type(game).__name__)
        names.add(type(game.initial_state()).__name__)
    return names


def _offences(path: Path, classes: set[str], game_names: set[str]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(NATIVE_PACKAGES):
                found.append(f"{where} imports {node.module}")
        elif isinstance(node, ast.Import):
            found += [
                f"{where} imports {a.name}"
                for a in node.names
                if a.name.startswith(NATIVE_PACKAGES)
            ]
        elif isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in classes:
                found.append(f"{where} names {name}")
        elif isinstance(node, ast.Constant) and node.value in game_names:
            found.append(f"{where} uses the game name {node.value!r}")
    return found


@pytest.mark.parametrize("layer", ["agents", "match", "store", "cli", "web"])
def test_no_concrete_game_outside_the_games_layer(layer: str) -> None:
    classes = _native_class_names()
    assert {"PegGame", "PawnCheckers", "BtState"} <= classes
    game_names = set(ggpkit.games())
    offences = []
    for path in sorted((PACKAGE_DIR / layer).rglob("*.py")):
        offences += _offences(path, classes, game_names)
    assert offences == []


def test_the_scan_finds_offences(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    source = (
        "from ggpkit.games.peg.game import PegGame\n"
        "def f(game):\n    return game.name == 'peg' or isinstance(game, PegGame)\n"
    )
    probe.write_text(source)
    found = _offences(probe, {"PegGame"}, {"peg"})
    assert [f.split(" ", 1)[1] for f in found] == [
        "imports ggpkit.games.peg.game",
        "uses the game name 'peg'",
        "names PegGame",
    ]


@pytest.mark.parametrize("name", sorted(ggpkit.games()))
@pytest.mark.parametrize("engine", ["native", "gdl"])
def test_native_games_and_twins_declare_what_they_are(name: str, engine: str) -> None:
    game = ggpkit.load(name, engine=engine)
    native = ggpkit.load(name)
    info = game.info
    assert info.dynamics == native.info.dynamics and info.utility == native.info.utility
    assert info.max_length == native.info.max_length is not None
    caps: Capabilities = info.capabilities
    assert caps.compiled_playouts
    assert caps.compiled_perft == (engine == "native")
    assert (caps.search is not None) <= (engine == "native")
    assert info.reasoner == ("native" if engine == "native" else "propnet")
    if len(game.roles) == 2:
        assert caps.evaluation is not None
