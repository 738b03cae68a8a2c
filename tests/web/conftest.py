"""Fixtures of the browser tests: a ``ggpkit web`` process, headless Chromium, a page.

The browser tests drive Debian's ``chromium`` with Playwright and skip when it is
missing; each module gets its own server on a fresh database.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import web_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
GAMES_DIR = Path(__file__).resolve().parents[3] / "shared" / "ggp-games"
DESKTOP = {"width": 1200, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium)")
    extra = ["--games-dir", str(GAMES_DIR)] if GAMES_DIR.is_dir() else []
    with web_server(tmp_path_factory.mktemp("web") / "matches.sqlite3", *extra) as (_, url):
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"],
        )
        yield b
        b.close()


def open_page(browser: object, viewport: dict[str, int]) -> Iterator[object]:
    """A page of ``viewport`` size that fails the test on any JavaScript error."""
    ARTIFACTS.mkdir(exist_ok=True)
    pg = browser.new_page(viewport=viewport)  # type: ignore[attr-defined]
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    pg.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    yield from open_page(browser, DESKTOP)


@pytest.fixture
def phone(browser: object) -> Iterator[object]:
    yield from open_page(browser, PHONE)


@pytest.fixture(params=["desktop", "phone"])
def sized(request: pytest.FixtureRequest, browser: object) -> Iterator[tuple[object, str]]:
    """A page at desktop size, then at phone size: (page, "desktop" or "phone")."""
    size: str = request.param
    for pg in open_page(browser, PHONE if size == "phone" else DESKTOP):
        yield pg, size


def start_game(
    page: object, url: str, game: str, seats: dict[str, str], agent_time: str = "0.2"
) -> None:
    """Start ``game`` from the home page with the given seats, as a person does."""
    page.goto(url + "/#/")  # type: ignore[attr-defined]
    page.wait_for_selector("#start")  # type: ignore[attr-defined]
    page.select_option("#game", game)  # type: ignore[attr-defined]
    for role, who in seats.items():
        page.select_option(f'select[data-role="{role}"]', who)  # type: ignore[attr-defined]
    page.fill("#agent-time", agent_time)  # type: ignore[attr-defined]
    page.click("#start")  # type: ignore[attr-defined]
    page.wait_for_selector("svg.board")  # type: ignore[attr-defined]


def pick_public_game(page: object, url: str, name: str) -> None:
    """Open the GDL page with a public game's rules in the text box (skips when absent)."""
    if not (GAMES_DIR / name).is_file():
        pytest.skip(f"../shared/ggp-games/{name} is absent")
    page.goto(url + "/#/gdl")  # type: ignore[attr-defined]
    page.wait_for_selector(f"#public option[value='{name}']", state="attached")  # type: ignore[attr-defined]
    page.select_option("#public", name)  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#kif').value.length > 100")  # type: ignore[attr-defined]
