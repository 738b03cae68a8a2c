"""End-to-end tests in headless Chromium: a person clicking through the web app.

They start ``ggpkit web`` on a free port with a fresh database, drive Debian's
``chromium`` with Playwright, and save a screenshot of each page under
``test-artifacts/`` for a person to look at.
"""

from __future__ import annotations

import os
import re

import httpx
import pytest

from .conftest import ARTIFACTS, GAMES_DIR, PHONE, start_game

pytestmark = pytest.mark.browser

MOVE_RE = re.compile(r"\((\w+) (\S+) (\S+) (\S+) (\S+)\)")


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
    start_game(page, server, "peg", {"jumper": "human"})
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
        page.click(f'[data-cell="{r1},{c1}"]')  # type: ignore[attr-defined]
        page.click(f'[data-cell="{r2},{c2}"]')  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            f"() => document.querySelectorAll('#movelog li').length === {jump + 1}"
        )
    status = _wait_turn_or_end(page)
    page.screenshot(path=str(ARTIFACTS / "peg-won.png"))  # type: ignore[attr-defined]
    # rules.md 1: one peg left on d c4 scores 100
    assert status == "Game over: score 100. No jump is left: the last peg is in the centre."


def test_full_breakthrough_game_against_random_by_clicking(server: str, page: object) -> None:
    start_game(page, server, "breakthrough-holes", {"white": "human", "black": "random"})
    for turn in range(60):
        status = _wait_turn_or_end(page)
        if status.startswith("Game over"):
            break
        first = page.inner_text("#legal .move .term")  # type: ignore[attr-defined]
        m = MOVE_RE.fullmatch(first)
        assert m, first
        _, x1, y1, x2, y2 = m.groups()
        short = page.inner_text("#legal .move b")  # type: ignore[attr-defined]
        assert short == f"{'abcdef'[int(x1) - 1]}{y1}-{'abcdef'[int(x2) - 1]}{y2}"
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
    winner = r"Game over: (white|black) wins \(white (0|100), black (0|100)\)\. "
    why = r"(White reached the far row \([a-f]6\)|Black reached the far row \([a-f]1\)"
    assert re.fullmatch(winner + why + r"|(White|Black) has no legal move)\.", status), status


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
    pg = browser.new_page(viewport=PHONE)  # type: ignore[attr-defined]
    try:
        start_game(pg, server, "breakthrough-holes", {"white": "random", "black": "random"})
        pg.wait_for_function(  # type: ignore[attr-defined]
            "() => document.querySelectorAll('#movelog li').length >= 2", timeout=30_000
        )
        pg.click("#playpause")  # type: ignore[attr-defined]
        assert _status(pg).startswith("Paused: ")  # not "thinking" while paused
        assert pg.inner_text("#playpause") == "Play"  # type: ignore[attr-defined]
        pg.click("#back")  # type: ignore[attr-defined]
        pg.wait_for_function(  # type: ignore[attr-defined]
            "() => document.querySelector('#status').textContent.includes('history')"
        )
        step = int(re.fullmatch(r"Step (\d+) of \d+ \(history\)", _status(pg)).group(1))  # type: ignore[union-attr]
        # the move that led here is marked in the list and framed on the board
        current = pg.locator("#movelog li.current")  # type: ignore[attr-defined]
        assert current.count() == 1
        assert pg.locator("#movelog li").nth(step - 1).get_attribute("class") == "current"  # type: ignore[attr-defined]
        assert pg.locator("g.cell.last").count() == 2  # type: ignore[attr-defined]
        pg.screenshot(path=str(ARTIFACTS / "watch-phone.png"), full_page=True)  # type: ignore[attr-defined]
        assert pg.locator("rect.void").count() == 4  # type: ignore[attr-defined]  # rules.md 3
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
