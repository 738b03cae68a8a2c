"""The tournament page in headless chromium: it draws, and a match link opens its replay.

Saves ``test-artifacts/tournament.png`` (and the replay it links to) for people to look at.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from web.support import web_server

from tournament.test_web_page import played_tournament

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = pytest.mark.browser


def test_the_page_draws_and_links_to_replays(tmp_path: Path) -> None:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    db, tid = played_tournament(tmp_path)
    ARTIFACTS.mkdir(exist_ok=True)
    with web_server(db) as (_, url), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--headless"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(f"{url}/tournaments/{tid}")
        assert page.locator("svg.ratings polyline").count() == 3
        box = page.locator("svg.ratings").bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 150
        overall = page.locator("table.standings").first
        assert overall.locator("tr").count() == 4  # header and three players
        page.screenshot(path=str(ARTIFACTS / "tournament.png"), full_page=True)
        link = page.locator("table.matches a").first
        match_id = link.inner_text()
        link.click()
        page.wait_for_selector("text=Replay")
        assert page.url.endswith(f"#/replay/{match_id}")
        page.screenshot(path=str(ARTIFACTS / "tournament-replay.png"))
        browser.close()
