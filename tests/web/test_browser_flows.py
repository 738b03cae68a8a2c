"""Browser tests of the flows a person meets first, at desktop and phone size.

A board for connectFour.kif and chess.kif, loading a big game with its progress,
an error that stays until dismissed, the end-of-game reason, continuing a game
from the matches page, the offline API docs, and no page scrolling sideways on a
phone. Screenshots go to ``test-artifacts/`` for a person to look at.
"""

from __future__ import annotations

import re
import time

import httpx
import pytest

from .conftest import ARTIFACTS, GAMES_DIR, PHONE, pick_public_game, start_game

pytestmark = pytest.mark.browser


def _shot(page: object, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]


def _load_public(page: object, url: str, name: str, timeout_s: float = 60) -> None:
    """Load a public game on the GDL page and start it with people in every seat."""
    pick_public_game(page, url, name)
    page.click("#load")  # type: ignore[attr-defined]
    page.wait_for_selector("#start-gdl", timeout=timeout_s * 1000)  # type: ignore[attr-defined]
    for select in page.query_selector_all("select[data-role]"):  # type: ignore[attr-defined]
        page.select_option(f"select[data-role='{select.get_attribute('data-role')}']", "human")  # type: ignore[attr-defined]
    page.click("#start-gdl")  # type: ignore[attr-defined]
    page.wait_for_selector("svg.board")  # type: ignore[attr-defined]


def _load_text(page: object, url: str, rules: str) -> None:
    """Paste ``rules`` on the GDL page and press Load and play."""
    page.goto(url + "/#/gdl")  # type: ignore[attr-defined]
    page.wait_for_selector("#kif")  # type: ignore[attr-defined]
    page.fill("#kif", rules)  # type: ignore[attr-defined]
    page.click("#load")  # type: ignore[attr-defined]


def _scroll_width(page: object) -> int:
    width: int = page.evaluate("() => document.documentElement.scrollWidth")  # type: ignore[attr-defined]
    return width


def test_connect_four_is_a_grid_and_a_click_drops_a_disc(
    server: str, sized: tuple[object, str]
) -> None:
    pg, size = sized
    _load_public(pg, server, "connectFour.kif")
    text = (GAMES_DIR / "connectFour.kif").read_text()
    columns = len(set(re.findall(r"\(x (\d+)\)", text)))
    rows = len(set(re.findall(r"\(y (\d+)\)", text)))
    assert pg.locator("g.cell").count() == columns * rows  # type: ignore[attr-defined]
    assert pg.locator("pre.facts").count() == 0  # type: ignore[attr-defined]
    _shot(pg, f"connectfour-{size}")
    pg.click('[data-cell="3,6"]')  # type: ignore[attr-defined]  # the top of column 3
    pg.wait_for_function("() => document.querySelectorAll('#movelog li').length === 1")  # type: ignore[attr-defined]
    assert pg.inner_text("#movelog li") == "(drop 3)"  # type: ignore[attr-defined]
    assert pg.locator('[data-cell="3,1"] circle.disc').count() == 1  # type: ignore[attr-defined]
    if size == "phone":
        assert _scroll_width(pg) <= PHONE["width"]


@pytest.mark.slow
def test_chess_loads_with_progress_and_gets_a_board_of_chess_pieces(
    server: str, page: object
) -> None:
    pick_public_game(page, server, "chess.kif")
    page.click("#load")  # type: ignore[attr-defined]
    page.wait_for_selector("#progress .spinner")  # type: ignore[attr-defined]
    page.wait_for_selector("#progress li.done", timeout=30_000)  # type: ignore[attr-defined]
    _shot(page, "chess-loading")
    assert "reading the rules" in page.inner_text("#progress")  # type: ignore[attr-defined]
    page.wait_for_selector("#start-gdl", timeout=240_000)  # type: ignore[attr-defined]
    assert page.locator("#problems li.ok").count() == 1  # type: ignore[attr-defined]
    page.click("#start-gdl")  # type: ignore[attr-defined]
    page.wait_for_selector("svg.board")  # type: ignore[attr-defined]
    assert page.locator("g.cell").count() == 64  # type: ignore[attr-defined]
    # 32 pieces, drawn as chess glyphs; white's king on e1
    assert page.locator("text.glyph").count() == 32  # type: ignore[attr-defined]
    assert page.text_content('[data-cell="e,1"] text.glyph') == "\u265a"  # type: ignore[attr-defined]
    _shot(page, "chess-board")


def test_a_broken_rule_file_keeps_its_problems_and_error_until_dismissed(
    server: str, page: object
) -> None:
    unsafe = "(role a)\n(init (p))\n(<= (legal a (go ?y)) (true (q ?x)))\n"
    _load_text(page, server, unsafe + "(<= terminal (true (p)))\n(<= (goal a 100) (true (p)))\n")
    page.wait_for_selector("#problems li.error")  # type: ignore[attr-defined]
    problems = page.inner_text("#problems")  # type: ignore[attr-defined]
    assert "line 3, column 18: error: unsafe rule" in problems
    time.sleep(5)  # longer than a passing message lasts
    assert page.locator("#problems li.error").count() >= 1  # type: ignore[attr-defined]
    _shot(page, "gdl-problems")


def test_a_load_error_stays_on_screen_until_dismissed(server: str, page: object) -> None:
    no_legal = "(role a)\n(init (p))\n(<= (legal a go) (true (q)))\n(<= terminal (true (q)))\n"
    _load_text(
        page, server, no_legal + "(<= (goal a 100) (true (p)))\n(<= (next (p)) (true (p)))\n"
    )
    page.wait_for_selector("#toast.error", timeout=30_000)  # type: ignore[attr-defined]
    time.sleep(5)
    assert page.is_visible("#toast.error")  # type: ignore[attr-defined]
    assert "no legal move" in page.inner_text("#error-text")  # type: ignore[attr-defined]
    _shot(page, "gdl-load-error")
    page.click("#toast .close")  # type: ignore[attr-defined]
    assert not page.is_visible("#toast")  # type: ignore[attr-defined]


def _session(url: str, game: str, seats: dict[str, str]) -> dict[str, object]:
    r = httpx.post(url + "/api/sessions", json={"game": game, "seats": seats, "agent_time": 0.1})
    assert r.status_code == 201, r.text
    body: dict[str, object] = r.json()
    return body


def test_an_unfinished_game_is_continued_from_the_matches_page(
    server: str, sized: tuple[object, str]
) -> None:
    pg, size = sized
    start_game(pg, server, "pawn-checkers", {"black": "human", "red": "human"})
    pg.wait_for_selector("#legal .move")  # type: ignore[attr-defined]
    sid = pg.evaluate("() => location.hash.split('/')[2]")  # type: ignore[attr-defined]
    pg.click("#legal .move")  # type: ignore[attr-defined]
    pg.wait_for_function("() => document.querySelectorAll('#movelog li').length === 1")  # type: ignore[attr-defined]
    first = pg.inner_text("#movelog li")  # type: ignore[attr-defined]
    pg.goto(server + "/#/matches")  # type: ignore[attr-defined]
    pg.wait_for_selector(f'a.continue[href="#/play/{sid}"]')  # type: ignore[attr-defined]
    assert pg.inner_text(f'a.continue[href="#/play/{sid}"]') == "Continue"  # type: ignore[attr-defined]
    _shot(pg, f"matches-{size}")
    if size == "phone":
        assert _scroll_width(pg) <= PHONE["width"]
    pg.click(f'a.continue[href="#/play/{sid}"]')  # type: ignore[attr-defined]
    pg.wait_for_selector("#legal .move")  # type: ignore[attr-defined]
    assert pg.inner_text("#status") == "Your move, red."  # type: ignore[attr-defined]
    assert pg.inner_text("#movelog li") == first  # type: ignore[attr-defined]
    pg.click("#legal .move")  # type: ignore[attr-defined]
    pg.wait_for_function("() => document.querySelectorAll('#movelog li').length === 2")  # type: ignore[attr-defined]


def test_a_finished_game_is_not_offered_to_continue(server: str, page: object) -> None:
    view = _session(server, "breakthrough-holes", {"white": "random", "black": "random"})
    token = {"X-Session-Token": str(view["token"])}
    while not view["finished"]:
        view = httpx.post(
            f"{server}/api/sessions/{view['id']}/agent", headers=token, timeout=30
        ).json()
    page.goto(server + "/#/matches")  # type: ignore[attr-defined]
    page.wait_for_selector(f'a[href="#/replay/{view["id"]}"]')  # type: ignore[attr-defined]
    assert page.locator(f'a.continue[href="#/play/{view["id"]}"]').count() == 0  # type: ignore[attr-defined]


def test_watching_to_the_end_says_why_and_offers_a_replay(server: str, page: object) -> None:
    """Random against random in watch mode, to the end, then the replay."""
    seats = {"white": "random", "black": "random"}
    start_game(page, server, "breakthrough-holes-capture", seats, agent_time="0.1")
    page.wait_for_selector("#playpause")  # type: ignore[attr-defined]
    page.select_option('select[aria-label="Speed"]', "150")  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => document.querySelector('#status').textContent.startsWith('Game over')",
        timeout=180_000,
    )
    status = page.inner_text("#status")  # type: ignore[attr-defined]
    result = r"Game over: (white|black) wins \(white (0|100), black (0|100)\)"
    why = r"(White reached the far row \([a-f]6\)|Black reached the far row \([a-f]1\)"
    why += r"|(White|Black) has no legal move)"
    assert re.fullmatch(rf"{result}\. {why}\.", status), status
    assert page.inner_text("#playpause") == "Replay"  # type: ignore[attr-defined]
    _shot(page, "watch-end")
    page.click("#playpause")  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => document.querySelector('#status').textContent.includes('(replaying)')"
    )
    assert page.inner_text("#playpause") == "Pause"  # type: ignore[attr-defined]


def test_a_game_started_elsewhere_is_watched_not_driven(server: str, page: object) -> None:
    view = _session(server, "breakthrough-holes", {"white": "random", "black": "random"})
    page.goto(f"{server}/#/play/{view['id']}")  # type: ignore[attr-defined]
    page.wait_for_selector("svg.board")  # type: ignore[attr-defined]
    assert page.inner_text("#status") == (  # type: ignore[attr-defined]
        "white (random) to move. Watching: the browser that started this game plays it."
    )
    token = {"X-Session-Token": str(view["token"])}
    httpx.post(f"{server}/api/sessions/{view['id']}/agent", headers=token, timeout=30)
    page.wait_for_function("() => document.querySelectorAll('#movelog li').length === 1")  # type: ignore[attr-defined]


def test_api_docs_work_without_a_network(server: str, sized: tuple[object, str]) -> None:
    pg, size = sized
    outside: list[str] = []

    def only_local(route: object) -> None:
        request_url: str = route.request.url  # type: ignore[attr-defined]
        if request_url.startswith(server):
            route.continue_()  # type: ignore[attr-defined]
        else:
            outside.append(request_url)
            route.abort()  # type: ignore[attr-defined]

    pg.route("**/*", only_local)  # type: ignore[attr-defined]
    pg.goto(server + "/docs")  # type: ignore[attr-defined]
    pg.wait_for_selector(".swagger-ui .opblock", timeout=30_000)  # type: ignore[attr-defined]
    assert pg.locator(".opblock").count() > 10  # type: ignore[attr-defined]
    assert outside == []
    _shot(pg, f"docs-{size}")


def test_every_page_fits_a_phone_and_has_no_frame_after_navigation(
    server: str, phone: object
) -> None:
    for page_hash in ["#/", "#/matches", "#/gdl"]:
        phone.goto(f"{server}/{page_hash}")  # type: ignore[attr-defined]
        phone.wait_for_selector("main#view section")  # type: ignore[attr-defined]
        assert _scroll_width(phone) <= PHONE["width"], page_hash
        outline = phone.evaluate(  # type: ignore[attr-defined]
            "() => getComputedStyle(document.querySelector('#view')).outlineStyle"
        )
        assert outline == "none", page_hash
    response = httpx.get(server + "/favicon.ico")
    assert response.status_code == 200 and response.headers["content-type"] == "image/svg+xml"


def test_an_mcts_seat_shows_its_value_and_best_moves(
    server: str, sized: tuple[object, str]
) -> None:
    pg, size = sized
    # 3 s a move: a clock short enough to be overrun on a busy machine replaces the
    # agent's move (and its thoughts) by a random one, as in any match.
    start_game(pg, server, "breakthrough-holes", {"white": "human", "black": "mcts"}, "3")
    pg.click("#legal .move")  # type: ignore[attr-defined]
    pg.wait_for_selector('#thoughts .thought[data-role="black"]', timeout=30_000)  # type: ignore[attr-defined]
    value = int(pg.get_attribute("#thoughts .evalbar", "aria-valuenow"))  # type: ignore[attr-defined]
    assert 0 <= value <= 100
    text = pg.inner_text("#thoughts")  # type: ignore[attr-defined]
    assert f"mcts (black) thinks: black can expect {value} of 100" in text
    best = pg.locator("#thoughts .best li")  # type: ignore[attr-defined]
    assert 1 <= best.count() <= 3
    played = pg.inner_text("#movelog li:nth-child(2)")  # type: ignore[attr-defined]
    assert best.nth(0).inner_text().startswith(played)  # its own move comes first
    assert pg.locator("svg.board line.arrow").count() == best.count()  # type: ignore[attr-defined]
    _shot(pg, f"thoughts-{size}")
    if size == "phone":
        assert _scroll_width(pg) <= PHONE["width"]
