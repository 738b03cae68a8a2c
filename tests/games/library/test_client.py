"""The repository client: what it reads, and each way an untrusted repository can fail it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ggpkit.games.library import (
    AnswerTooLargeError,
    AnswerTooSlowError,
    GameNotFoundError,
    LibraryError,
    Limits,
    MalformedAnswerError,
    RepositoryUnreachableError,
    repository_url,
)
from ggpkit.games.library.client import RepositoryClient, parse_keys, parse_metadata

from .repository import (
    TIC_TAC_TOE,
    RepositoryServer,
    closed_port_url,
    dripping,
    send,
    sleeping,
    unbounded,
    write_version,
)

FAST = Limits(connect_seconds=2, read_seconds=0.5, request_seconds=1.5)


def test_keys_metadata_and_files_as_the_repository_serves_them(server: RepositoryServer) -> None:
    with RepositoryClient(server.url) as client:
        assert client.keys() == ["countdown", "ticTacToe"]
        meta = client.metadata("ticTacToe")
        assert (meta.key, meta.version, meta.rulesheet) == ("ticTacToe", 0, "ticTacToe.kif")
        assert meta.title == "ticTacToe" and meta.stylesheet == "ticTacToe.xsl"
        assert client.rules(meta).decode() == TIC_TAC_TOE
        assert client.description(meta) == "The game ticTacToe, for the tests.\nA second line.\n"
    assert "/games/ticTacToe/v0/ticTacToe.kif" in server.requests


def test_the_newest_version_is_read_from_its_folder(
    server: RepositoryServer, repo_folder: Path
) -> None:
    write_version(repo_folder, "ticTacToe", 2, TIC_TAC_TOE + "; version 2\n")
    with RepositoryClient(server.url) as client:
        meta = client.metadata("ticTacToe")
        assert meta.version == 2
        assert client.rules(meta).decode().endswith("; version 2\n")
        # the description did not change in version 2: the server sends version 0's
        assert client.description(meta) is not None


def test_urls_are_written_as_ggp_base_writes_them() -> None:
    assert repository_url("games.ggp.org/base") == "http://games.ggp.org/base"
    assert repository_url("http://127.0.0.1:9/") == "http://127.0.0.1:9"
    for bad in ("ftp://x/y", "http://", "http://a b/"):
        with pytest.raises(LibraryError, match="not an http"):
            repository_url(bad)


def test_an_unreachable_repository_is_one_line_naming_the_url() -> None:
    url = closed_port_url()
    with RepositoryClient(url, FAST) as client, pytest.raises(RepositoryUnreachableError) as e:
        client.keys()
    message = str(e.value)
    assert message.startswith(f"{url}/games/: unreachable") and "\n" not in message


def test_a_missing_game_is_not_found(server: RepositoryServer) -> None:
    with RepositoryClient(server.url) as client:
        with pytest.raises(GameNotFoundError, match="no game 'chess'"):
            client.metadata("chess")
        with pytest.raises(GameNotFoundError, match="not a game key"):
            client.metadata("../secrets")


def test_an_error_status_is_unreachable(server: RepositoryServer) -> None:
    server.overrides["/games/"] = lambda h: send(h, b"oops", 503)
    with RepositoryClient(server.url) as client, pytest.raises(RepositoryUnreachableError) as e:
        client.keys()
    assert str(e.value) == f"{server.url}/games/: the repository answered HTTP 503"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"{not json", "not a JSON document"),
        (b'{"version": "3", "rulesheet": "t.kif"}', "'version' must be a whole number"),
        (b'{"version": true, "rulesheet": "t.kif"}', "'version' must be a whole number"),
        (b'{"version": -1, "rulesheet": "t.kif"}', "is not in 0.."),
        (b'{"version": 1}', "names no 'rulesheet'"),
        (b'{"version": 1, "rulesheet": "../../etc/passwd"}', "'rulesheet' must be a file name"),
        (b'{"version": 1, "rulesheet": "t.kif", "gameName": 7}', "'gameName' must be a string"),
        (b'["a list"]', "expected a JSON object"),
        (b"[" * 60000, "not a JSON document"),
        (b"\xff\xfe", "not a JSON document"),
    ],
)
def test_malformed_metadata_is_refused_naming_the_url(
    server: RepositoryServer, body: bytes, words: str
) -> None:
    server.overrides["/games/ticTacToe/"] = lambda h: send(h, body)
    with RepositoryClient(server.url) as client, pytest.raises(MalformedAnswerError) as e:
        client.metadata("ticTacToe")
    assert str(e.value).startswith(f"{server.url}/games/ticTacToe/: ") and words in str(e.value)


def test_a_list_of_keys_holds_keys_only() -> None:
    assert parse_keys(b'["b", "a", "b"]', "u", 10) == ["a", "b"]
    for body in (b'{"a": 1}', b'["ok", "../up"]', b'["ok", 3]', b'[".hidden"]'):
        with pytest.raises(MalformedAnswerError):
            parse_keys(body, "u", 10)
    with pytest.raises(MalformedAnswerError, match="more than 2"):
        parse_keys(b'["a", "b", "c"]', "u", 2)


def test_a_folder_metadata_takes_the_version_it_is_given() -> None:
    meta = parse_metadata(json.dumps({"rulesheet": "g.kif"}).encode(), "g", "where", 4)
    assert meta.version == 4 and meta.description is None


def test_a_missing_rulesheet_is_malformed(server: RepositoryServer) -> None:
    server.overrides["/games/ticTacToe/v0/ticTacToe.kif"] = lambda h: send(h, b"", 404)
    with RepositoryClient(server.url) as client:
        meta = client.metadata("ticTacToe")
        with pytest.raises(MalformedAnswerError, match="rulesheet the metadata names is missing"):
            client.rules(meta)


@pytest.mark.parametrize("claimed", [True, False])
def test_an_oversized_answer_is_cut_at_the_cap(server: RepositoryServer, claimed: bool) -> None:
    server.overrides["/games/"] = unbounded(50_000_000, claimed)
    limits = Limits(max_list_bytes=100_000)
    began = time.monotonic()
    with RepositoryClient(server.url, limits) as client, pytest.raises(AnswerTooLargeError) as e:
        client.keys()
    assert str(e.value).startswith(f"{server.url}/games/: ")
    assert "100,000" in str(e.value)
    assert time.monotonic() - began < 30  # stopped at the cap, not after 50 MB


def test_an_oversized_rulesheet_is_refused(server: RepositoryServer) -> None:
    with RepositoryClient(server.url, Limits(max_rules_bytes=100)) as client:
        meta = client.metadata("ticTacToe")
        with pytest.raises(AnswerTooLargeError, match="a rulesheet"):
            client.rules(meta)


def test_an_answer_that_does_not_come_is_too_slow(server: RepositoryServer) -> None:
    server.overrides["/games/"] = sleeping(3.0)
    with RepositoryClient(server.url, FAST) as client, pytest.raises(AnswerTooSlowError) as e:
        client.keys()
    assert str(e.value) == f"{server.url}/games/: no answer within 0.5 s"


def test_an_answer_that_drips_in_meets_the_deadline(server: RepositoryServer) -> None:
    server.overrides["/games/"] = dripping(json.dumps(["a"] * 100).encode(), every=0.1)
    began = time.monotonic()
    with RepositoryClient(server.url, FAST) as client, pytest.raises(AnswerTooSlowError) as e:
        client.keys()
    assert "took longer than 1.5 s" in str(e.value)
    assert time.monotonic() - began < 1.5 + 0.5 + 1.0  # the deadline and at most one read wait


def test_a_compressed_answer_not_asked_for_is_refused(server: RepositoryServer) -> None:
    def gzipped(handler: object) -> None:
        from http.server import BaseHTTPRequestHandler

        assert isinstance(handler, BaseHTTPRequestHandler)
        handler.send_response(200)
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", "2")
        handler.end_headers()
        handler.wfile.write(b"[]")

    server.overrides["/games/"] = gzipped
    with RepositoryClient(server.url) as client, pytest.raises(MalformedAnswerError, match="gzip"):
        client.keys()
