"""Browser tests of the game library on the Play page: a library game is offered in a group
of its own, labelled with where it comes from, loaded with progress when started, and
played by clicking, at desktop and phone size."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from games.library.repository import TIC_TAC_TOE  # tests/ is the import root

from ggpkit.games.library import add_folder

from .conftest import ARTIFACTS, CHROMIUM, PHONE
from .support import web_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def library_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``ggpkit web`` over a data folder of its own whose library holds tic-tac-toe."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium)")
    root = tmp_path_factory.mktemp("library-web")
    games = root / "games"
    games.mkdir()
    (games / "ticTacToe.kif").write_text(TIC_TAC_TOE)
    env = {"GGPKIT_DATA_DIR": str(root / "data")}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GGPKIT_DATA_DIR", env["GGPKIT_DATA_DIR"])
        add_folder(games)
    with web_server(root / "matches.sqlite3", env=env) as (_, url):
        yield url


def test_a_library_game_is_offered_labelled_and_played(
    library_server: str, sized: tuple[object, str]
) -> None:
    pg, size = sized
    pg.goto(library_server + "/#/")  # type: ignore[attr-defined]
    pg.wait_for_selector("#start")  # type: ignore[attr-defined]
    group = pg.locator("#game optgroup[label='Game library'] option")  # type: ignore[attr-defined]
    assert group.all_inner_texts() == ["ticTacToe (library)"]
    pg.goto(library_server + "/#/new/ticTacToe")  # type: ignore[attr-defined]  # a link to it
    pg.wait_for_selector("#game-description .badge")  # type: ignore[attr-defined]
    assert pg.input_value("#game") == "ticTacToe"  # type: ignore[attr-defined]
    description = pg.inner_text("#game-description")  # type: ignore[attr-defined]
    assert description.startswith("library from folder ")
    assert pg.locator("select[data-role='oplayer'] option[value='solver']").count() == 0  # type: ignore[attr-defined]
    width: int = pg.evaluate("() => document.documentElement.scrollWidth")  # type: ignore[attr-defined]
    assert size == "desktop" or width <= PHONE["width"]
    pg.screenshot(path=str(ARTIFACTS / f"library-home-{size}.png"), full_page=True)  # type: ignore[attr-defined]
    pg.select_option("select[data-role='oplayer']", "random")  # type: ignore[attr-defined]
    pg.fill("#agent-time", "0.2")  # type: ignore[attr-defined]
    pg.click("#start")  # type: ignore[attr-defined]
    # loaded from its rules first (compiled in a child): give a busy machine time
    pg.wait_for_selector("svg.board", timeout=120_000)  # type: ignore[attr-defined]
    pg.click('[data-cell="2,2"]')  # type: ignore[attr-defined]
    pg.wait_for_function(  # type: ignore[attr-defined]
        "() => document.querySelectorAll('#movelog li').length >= 1", timeout=60_000
    )
    assert "(mark 2 2)" in pg.inner_text("#movelog")  # type: ignore[attr-defined]
    pg.screenshot(path=str(ARTIFACTS / f"library-play-{size}.png"), full_page=True)  # type: ignore[attr-defined]


def test_the_gdl_page_offers_the_library(library_server: str, page: object) -> None:
    page.goto(library_server + "/#/gdl")  # type: ignore[attr-defined]
    page.wait_for_selector("#public option[value='ticTacToe.kif']", state="attached")  # type: ignore[attr-defined]
    page.select_option("#public", "ticTacToe.kif")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#kif').value.includes('xplayer')")  # type: ignore[attr-defined]
