"""The documentation site builds with warnings as errors, and its generated pages are whole.

Skipped where MkDocs is not installed (it comes with the ``docs`` extra). The site is
built once per test session into a temporary folder, never into ``site/``.
"""

from __future__ import annotations

import html
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / "docs" / "hooks"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None
    or importlib.util.find_spec("material") is None
    or importlib.util.find_spec("mkdocstrings_handlers") is None,
    reason="the docs extra (mkdocs, mkdocs-material, mkdocstrings) is not installed",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def text_of(page: Path) -> str:
    """A built page's text, tags dropped and entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def hook() -> object:
    sys.path.insert(0, str(HOOKS))
    try:
        spec = importlib.util.spec_from_file_location("docs_generated", HOOKS / "generated.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(HOOKS))
    return module


def headings(page: Path) -> list[str]:
    """The text of a built page's section headings (without the permalink sign)."""
    found = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", page.read_text(encoding="utf-8"), re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", h)).replace("¶", "").strip() for h in found]


def test_every_command_is_on_the_cli_page(site: Path) -> None:
    page = headings(site / "reference" / "cli" / "index.html")
    commands = hook().cli_commands()  # type: ignore[attr-defined]
    for expected in ("ggpkit", "ggpkit arena", "ggpkit tournament run", "ggpkit matches export"):
        assert expected in commands
    assert len(commands) > 20
    for command in commands:
        assert command in page, command


def test_every_route_is_on_the_web_api_page(site: Path) -> None:
    from ggpkit.web.app import create_app

    page = headings(site / "reference" / "web-api" / "index.html")
    spec = create_app(ROOT / "unused.sqlite3").openapi()  # the store opens at start-up only
    for path, operations in spec["paths"].items():
        for method in operations:
            assert f"{method.upper()} {path}" in page


def test_the_api_pages_show_the_docstrings(site: Path) -> None:
    games = text_of(site / "reference" / "api" / "games" / "index.html")
    assert "The state before any move." in games  # Game.initial_state's docstring
    agents = text_of(site / "reference" / "api" / "agents" / "index.html")
    assert "mcts" in agents and "alphabeta" in agents  # the generated table of specs
    assert ":class:" not in agents  # reStructuredText roles read as Markdown


def test_every_tutorial_and_how_to_is_in_the_site(site: Path) -> None:
    for folder in ("tutorials", "howto"):
        for source in (ROOT / "docs" / folder).glob("*.md"):
            built = site / folder / ("" if source.stem == "index" else source.stem) / "index.html"
            assert built.is_file(), built
