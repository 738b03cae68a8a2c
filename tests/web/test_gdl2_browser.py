"""GDL-II in the browser: two people at one screen, each shown only their own view behind
a hand-over screen, and the replay from the true state or a role's view, at desktop
(1280x800) and phone (390x844) size. Screenshots go to ``test-artifacts/gdl2-*.png``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from games.gdl2_support import MONTY_HALL

from .conftest import ARTIFACTS, open_page
from .test_gdl2_web import CARD

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=list(SIZES))
def sized(request: pytest.FixtureRequest, browser: object) -> Iterator[tuple[object, str]]:
    size: str = request.param
    for pg in open_page(browser, SIZES[size]):
        yield pg, size


def _shot(page: object, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]


def _start(page: object, url: str, rules: str, name: str, seats: dict[str, str]) -> None:
    """Pick ``rules`` as the file ``name`` on the GDL page, load them and start with ``seats``."""
    page.goto(url + "/#/gdl")  # type: ignore[attr-defined]
    page.wait_for_selector("#kif")  # type: ignore[attr-defined]
    upload = {"name": name, "mimeType": "text/plain", "buffer": rules.encode()}
    page.set_input_files("input[type=file]", files=[upload])  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#kif').value.length > 100")  # type: ignore[attr-defined]
    page.click("#load")  # type: ignore[attr-defined]
    page.wait_for_selector("#start-gdl", timeout=60_000)  # type: ignore[attr-defined]
    offered = [s.get_attribute("data-role") for s in page.query_selector_all("select[data-role]")]  # type: ignore[attr-defined]
    assert offered == list(seats)  # nature is no seat
    for role, who in seats.items():
        page.select_option(f"select[data-role='{role}']", who)  # type: ignore[attr-defined]
    page.click("#start-gdl")  # type: ignore[attr-defined]
    page.wait_for_selector("#hidden-view")  # type: ignore[attr-defined]


def _text(page: object) -> str:
    return str(page.inner_text("#view"))  # type: ignore[attr-defined]


def test_two_people_pass_the_screen_and_replay_from_each_view(
    server: str, sized: tuple[object, str]
) -> None:
    page, size = sized
    _start(page, server, CARD, "cards.kif", {"alice": "human", "bob": "human"})
    page.wait_for_selector("#handover")  # type: ignore[attr-defined]
    assert "Pass the screen to alice" in _text(page)
    page.click("#reveal")  # type: ignore[attr-defined]
    page.wait_for_selector("#whose")  # type: ignore[attr-defined]
    assert "Alice's view" in _text(page) and "(card " in _text(page)
    _shot(page, f"gdl2-view-alice-{size}")
    page.click("#legal button:has-text('raise')")  # type: ignore[attr-defined]
    page.wait_for_selector("#handover")  # type: ignore[attr-defined]
    shown = _text(page)
    assert "Pass the screen to bob" in shown and "(card " not in shown
    _shot(page, f"gdl2-handover-{size}")
    page.click("#reveal")  # type: ignore[attr-defined]
    page.wait_for_selector('#whose:has-text("Bob\'s view")')  # type: ignore[attr-defined]
    shown = _text(page)
    assert "(alice raise)" in shown and "(card " not in shown and "(deal" not in shown
    _shot(page, f"gdl2-view-bob-{size}")
    page.click("#legal button:has-text('call')")  # type: ignore[attr-defined]
    page.wait_for_selector(".replay-links")  # type: ignore[attr-defined]
    page.click(".replay-links a:has-text('true state')")  # type: ignore[attr-defined]
    page.wait_for_selector("#view-select")  # type: ignore[attr-defined]
    page.click("#first")  # type: ignore[attr-defined]
    page.click("#forward")  # type: ignore[attr-defined]
    shown = _text(page)
    assert "random (nature): (deal " in shown and "alice saw: (card " in shown
    _shot(page, f"gdl2-replay-true-{size}")
    page.select_option("#view-select", "bob")  # type: ignore[attr-defined]
    page.wait_for_selector("#viewlog")  # type: ignore[attr-defined]
    shown = _text(page)
    assert "Bob's view" in shown and "(deal" not in shown and "(card " not in shown
    _shot(page, f"gdl2-replay-bob-{size}")


def test_the_contestant_plays_against_nature(server: str, sized: tuple[object, str]) -> None:
    page, size = sized
    _start(page, server, MONTY_HALL, "montyhall.kif", {"contestant": "human"})
    page.wait_for_selector("#whose")  # type: ignore[attr-defined]
    assert "Contestant's view" in _text(page)
    page.click("#legal button:has-text('(pick d1)')")  # type: ignore[attr-defined]
    page.wait_for_selector("#viewlog li:nth-child(2)")  # type: ignore[attr-defined]
    shown = _text(page)
    assert "(opened d" in shown and "random (nature)" in shown and "(car " not in shown
    _shot(page, f"gdl2-view-contestant-{size}")
