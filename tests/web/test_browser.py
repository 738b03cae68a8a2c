"""End-to-end tests in headless Chromium: a person clicking through the web app.

They start ``ggpkit web`` on a free port with a fresh database, drive Debian's
``chromium`` with Playwright, and save a screenshot of each page under
``test-artifacts/`` for a person to look at.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .support import web_server

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
GAMES_DIR = Path(__file__).resolve().parents[3] / "shared" / "ggp-games"
MOVE_RE = re.compile(r"\((\w+) (\S+) (\S+) (\S+) (\S+)\)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium)")
    extra = ["--games-dir", str(GAMES_DIR)] if GAMES_DIR.is_dir() else []
    with web_server(tmp_path_factory.mktemp("web") / "matches.sqlite3", *extra) as (_, url):
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    ARTIFACTS.mkdir(exist_ok=True)
    pg = browser.new_page(viewport={"width": 1200, "height": 900})  # type: ignore[attr-defined]
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    pg.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def _start(page: object, url: str, game: str, seats: dict[str, str]) -> None:
    page.goto(url + "/#/")  # type: ignore[attr-defined]
    page.wait_for_selector("#start")  # type: ignore[attr-defined]
    page.select_option("#game", game)  # type: ignore[attr-defined]
    for role, who in seats.items():
        page.select_option(f'select[data-role="{role}"]', who)  # type: ignore[attr-defined]
    page.fill("#agent-time", "0.2")  # type: ignore[attr-defined]
    page.click("#start")  # type: ignore[attr-defined]
    page.wait_for_selector("svg.board")  # type: ignore[attr-defined]


def _status(page: object) -> str:
    text: str = page.inner_text("#status")  # type: ignore[attr-defined]
    return text


def _wait_turn_or_end(page: object) -> str:
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => /Your move|Game over/.test(document.querySelector('#status').textContent)",
        timeout=30_000,
    )
    return _status(page)


def test_peg_won_with_score_100_by_following_the_hints(server: str, page: object) -> None:
    _start(page, server, "peg", {"jumper": "human"})
    page.screenshot(path=str(ARTIFACTS / "peg-start.png"))  # type: ignore[attr-defined]
    for jump in range(31):
        page.click("#hint-btn")  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            "() => document.querySelector('#hint').textContent.startsWith('Best move')"
        )
        if jump == 0:
            page.screenshot(path=str(ARTIFACTS / "peg-hint.png"))  # type: ignore[attr-defined]
        move = page.get_attribute("#hint", "data-move")  # type: ignore[attr-defined]
        m = MOVE_RE.fullmatch(move or "")
        assert m, move
        _, r1, c1, r2, c2 = m.groups()
        page.click(f'[data-cell="{c1},{r1}"]')  # type: ignore[attr-defined]
        page.click(f'[data-cell="{c2},{r2}"]')  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            f"() => document.querySelectorAll('#movelog li').length === {jump + 1}"
        )
    status = _wait_turn_or_end(page)
    page.screenshot(path=str(ARTIFACTS / "peg-won.png"))  # type: ignore[attr-defined]
    assert status == "Game over. Score: jumper 100."


def test_full_breakthrough_game_against_random_by_clicking(server: str, page: object) -> None:
    _start(page, server, "breakthrough-holes", {"white": "human", "black": "random"})
    for turn in range(60):
        status = _wait_turn_or_end(page)
        if status.startswith("Game over"):
            break
        first = page.inner_text("#legal .move")  # type: ignore[attr-defined]
        m = MOVE_RE.fullmatch(first)
        assert m, first
        _, x1, y1, x2, y2 = m.groups()
        before = page.locator("#movelog li").count()  # type: ignore[attr-defined]
        page.click(f'[data-cell="{x1},{y1}"]')  # type: ignore[attr-defined]
        page.click(f'[data-cell="{x2},{y2}"]')  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            f"() => document.querySelectorAll('#movelog li').length > {before}"
        )
        if turn == 2:
            page.screenshot(path=str(ARTIFACTS / "breakthrough-midgame.png"))  # type: ignore[attr-defined]
    status = _status(page)
    page.screenshot(path=str(ARTIFACTS / "breakthrough-end.png"))  # type: ignore[attr-defined]
    assert re.fullmatch(r"Game over: (white|black) wins \(white (0|100), black (0|100)\)\.", status)


def test_a_stored_match_is_replayed_step_by_step(server: str, page: object) -> None:
    r = httpx.post(
        server + "/api/sessions",
        json={"game": "pawn-checkers", "seats": {"black": "random", "red": "random"}},
    )
    sid = r.json()["id"]
    view = r.json()
    token = {"X-Session-Token": view["token"]}
    while not view["finished"]:
        view = httpx.post(f"{server}/api/sessions/{sid}/agent", headers=token, timeout=30).json()
    steps = len(view["moves"])
    page.goto(server + "/#/matches")  # type: ignore[attr-defined]
    page.wait_for_selector(f'a[href="#/replay/{sid}"]')  # type: ignore[attr-defined]
    page.screenshot(path=str(ARTIFACTS / "matches.png"))  # type: ignore[attr-defined]
    page.click(f'a[href="#/replay/{sid}"]')  # type: ignore[attr-defined]
    page.wait_for_selector("svg.board")  # type: ignore[attr-defined]
    assert _status(page) == f"Step 0 of {steps}"
    for k in range(1, 4):
        page.click("#forward")  # type: ignore[attr-defined]
        assert _status(page) == f"Step {k} of {steps}"
    page.click("#back")  # type: ignore[attr-defined]
    assert _status(page) == f"Step 2 of {steps}"
    page.screenshot(path=str(ARTIFACTS / "replay.png"))  # type: ignore[attr-defined]
    page.click("#last")  # type: ignore[attr-defined]
    assert _status(page).startswith(f"Step {steps} of {steps} — goals: black ")


def test_watch_mode_on_a_phone_sized_screen(server: str, browser: object) -> None:
    pg = browser.new_page(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    try:
        _start(pg, server, "breakthrough-holes", {"white": "random", "black": "random"})
        pg.wait_for_function(  # type: ignore[attr-defined]
            "() => document.querySelectorAll('#movelog li').length >= 2", timeout=30_000
        )
        pg.click("#playpause")  # type: ignore[attr-defined]
        pg.click("#back")  # type: ignore[attr-defined]
        pg.wait_for_function(  # type: ignore[attr-defined]
            "() => document.querySelector('#status').textContent.includes('history')"
        )
        assert re.fullmatch(r"Step \d+ of \d+ \(history\)", _status(pg))
        pg.screenshot(path=str(ARTIFACTS / "watch-phone.png"), full_page=True)  # type: ignore[attr-defined]
        holes = pg.locator("rect.hole").count()  # type: ignore[attr-defined]
        assert holes == 4
    finally:
        pg.close()  # type: ignore[attr-defined]


def test_tictactoe_kif_loaded_and_finished(server: str, page: object) -> None:
    if not (GAMES_DIR / "ticTacToe.kif").is_file():
        pytest.skip("../shared/ggp-games is absent")
    page.goto(server + "/#/gdl")  # type: ignore[attr-defined]
    page.wait_for_selector("#public option[value='ticTacToe.kif']", state="attached")  # type: ignore[attr-defined]
    page.select_option("#public", "ticTacToe.kif")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#kif').value.includes('xplayer')")  # type: ignore[attr-defined]
    page.click("#load")  # type: ignore[attr-defined]
    page.wait_for_selector("#start-gdl", timeout=60_000)  # type: ignore[attr-defined]
    page.screenshot(path=str(ARTIFACTS / "gdl-loaded.png"))  # type: ignore[attr-defined]
    page.click("#start-gdl")  # type: ignore[attr-defined]
    page.wait_for_selector("svg.board")  # type: ignore[attr-defined]
    for _ in range(9):
        status = _wait_turn_or_end(page)
        if status.startswith("Game over"):
            break
        first = page.inner_text("#legal .move")  # type: ignore[attr-defined]
        m = re.fullmatch(r"\(mark (\d) (\d)\)", first)
        assert m, first
        before = page.locator("#movelog li").count()  # type: ignore[attr-defined]
        page.click(f'[data-cell="{m.group(1)},{m.group(2)}"]')  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            f"() => document.querySelectorAll('#movelog li').length > {before}"
        )
    status = _wait_turn_or_end(page)
    page.screenshot(path=str(ARTIFACTS / "tictactoe-end.png"))  # type: ignore[attr-defined]
    assert status.startswith("Game over")
    assert os.path.getsize(ARTIFACTS / "tictactoe-end.png") > 0
