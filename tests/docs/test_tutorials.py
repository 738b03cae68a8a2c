"""Every tutorial runs end to end: one test per page of ``docs/tutorials/`` (and of the
how-to guides and the home page, whose blocks run the same way).

How blocks are read and run is in ``tests/docs/blocks.py``. A page's blocks run in a
fresh scratch folder with the match store, the data folder and the caches inside it.
Blocks marked ``not run`` are listed in the test's output (``-rs`` shows them with the
reasons); a page whose blocks need a package that is missing (the ``rl`` extra, the game
library) runs the rest and reports itself skipped, naming what it lacked.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ggpkit.agents import specs
from ggpkit.games import registry

from .blocks import PageRun, command_env, read_blocks

DOCS = Path(__file__).resolve().parents[2] / "docs"
README = DOCS.parent / "README.md"
PAGES = [
    README,
    DOCS / "index.md",
    *sorted((DOCS / "tutorials").glob("*.md")),
    *sorted((DOCS / "howto").glob("*.md")),
]


SLOW = {"tutorials/tournament", "tutorials/write-an-agent"}
"""Pages that take over 15 s (a Ray tournament, an arena run, two players served)."""


def _param(page: Path) -> object:
    name = "README" if page == README else str(page.relative_to(DOCS).with_suffix(""))
    return pytest.param(page, id=name, marks=[pytest.mark.slow] if name in SLOW else [])


@pytest.mark.parametrize("page", [_param(p) for p in PAGES])
def test_tutorial_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = command_env(tmp_path)
    for key in ("PATH", "GGPKIT_DB", "GGPKIT_DATA_DIR", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(key, env[key])
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.delenv("GGPKIT_GAMES_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    # A page may register a game or an agent (the native-engine how-to, the agent
    # tutorial): the registries are restored after it, so no later test sees them.
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(specs, "AGENTS", dict(specs.AGENTS))
    before = set(sys.modules)
    run = PageRun(page, tmp_path, env)
    try:
        run.run()
    finally:
        registry._native.cache_clear()
        for name in set(sys.modules) - before:  # modules a page wrote (greedy.py)
            module = sys.modules.get(name)
            if str(getattr(module, "__file__", "") or "").startswith(str(tmp_path)):
                del sys.modules[name]
    if run.lacking:
        pytest.skip(f"ran {len(run.ran)} blocks; skipped: " + "; ".join(run.lacking))


def test_every_block_is_run_or_says_why() -> None:
    """No fenced block is left out silently: each runs, is a file, or says why not."""
    assert PAGES, "no tutorial pages found"
    for page in PAGES:
        for block in read_blocks(page.read_text(encoding="utf-8")):
            if block.skip is not None:
                assert block.skip.strip(), f"{page.name}:{block.line}: give the reason"
                continue
            assert block.title or block.lang in ("python", "py", "console"), (
                f"{page.name}:{block.line}: a ```{block.lang} block must have a title "
                "(a file the page writes) or <!-- not run: REASON -->"
            )
