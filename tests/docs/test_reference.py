"""The hand-written reference pages name every key the code reads or writes.

The tournament TOML page must document every key the config reader accepts (and no key
it refuses), with the defaults the reader applies; the match-record page every key a
record is written with, and its example must be a record the reader accepts.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from ggpkit.match.records import MatchRecord
from ggpkit.tournament.config import KNOWN_KEYS, TournamentConfig

from .blocks import read_blocks

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference"


def table_rows(markdown: str, after: str) -> dict[str, list[str]]:
    """The rows of the first table after the heading ``after``: first cell's code -> cells."""
    text = markdown[markdown.index(after) :]
    rows: dict[str, list[str]] = {}
    started = False
    for line in text.splitlines()[1:]:
        if line.startswith("|"):
            started = True
            cells = [c.strip() for c in line.strip("|").split("|")]
            key = re.fullmatch(r"`([^`]+)`", cells[0])
            if key:
                rows[key.group(1)] = cells
        elif started:
            break
    return rows


def test_every_tournament_key_is_documented_with_its_default() -> None:
    page = (REFERENCE / "tournament-toml.md").read_text(encoding="utf-8")
    top = table_rows(page, "## Top-level keys")
    assert set(top) == set(KNOWN_KEYS)
    defaults = {f.name: f.default for f in dataclasses.fields(TournamentConfig)}
    for key, cells in top.items():
        default = defaults.get(key, dataclasses.MISSING)
        if default is dataclasses.MISSING or key == "players":
            assert cells[2] == "required", key
        elif isinstance(default, str):
            assert cells[2] == f'`"{default}"`', key
        elif isinstance(default, int):
            assert cells[2] == f"`{default}`", key
    player = table_rows(page, "The keys a player table takes")
    assert set(player) == {"spec", "cpus"}
    assert player["cpus"][2] == "`1`"


def test_every_match_record_key_is_documented() -> None:
    page = (REFERENCE / "match-records.md").read_text(encoding="utf-8")
    rows = table_rows(page, "## Keys")
    record = MatchRecord("m", "g", "(role r)", ["r"], 10, 1)
    record.finish([100])
    assert set(rows) == set(record.to_json())


def test_the_match_record_example_is_a_record() -> None:
    page = (REFERENCE / "match-records.md").read_text(encoding="utf-8")
    (example,) = [b for b in read_blocks(page) if b.lang == "json"]
    doc = json.loads(example.text)
    record = MatchRecord.from_json(doc)
    assert record.to_json() == doc
    assert len(record.states) == len(record.moves) + 1


def test_the_tournament_example_is_a_valid_config(tmp_path: Path) -> None:
    from ggpkit.tournament.config import load_config

    page = (REFERENCE / "tournament-toml.md").read_text(encoding="utf-8")
    (example,) = [b for b in read_blocks(page) if b.lang == "toml"]
    path = tmp_path / "cup.toml"
    path.write_text(example.text, encoding="utf-8")
    config = load_config(path)
    assert {p.kind for p in config.players} == {"agent", "url", "command"}
    assert config.player("big").cpus == 2
