"""``ggpkit match``, ``matches``, ``replay`` and ``player`` end to end, over loopback."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from match.support import GGP_BASE_RECORD, TINY_GDL, FirstAgent, ServerThread, free_port
from typer.testing import CliRunner

from ggpkit.cli import _load_commands, app
from ggpkit.match.player_server import PlayerService
from ggpkit.store.sqlite import MatchStore

_load_commands()
runner = CliRunner()


@pytest.fixture
def tiny_kif(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.kif"
    path.write_text("; count to four\n" + TINY_GDL, encoding="utf-8")
    return path


def only_match_id(db: Path) -> str:
    with MatchStore(db) as store:
        (summary,) = store.matches()
    return summary.match_id


def test_match_then_list_export_import_replay(tiny_kif: Path, tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    args = ["match", str(tiny_kif), "--role", "white=random", "--role", "black=random"]
    result = runner.invoke(app, [*args, "--playclock", "1", "--seed", "3", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "stored in" in result.output
    match_id = only_match_id(db)
    listing = runner.invoke(app, ["matches", "--db", str(db), "--game", "tiny"])
    assert listing.exit_code == 0 and "completed" in listing.output
    out = tmp_path / "m.json"
    assert (
        runner.invoke(app, ["matches", "export", match_id, str(out), "--db", str(db)]).exit_code
        == 0
    )
    doc = json.loads(out.read_text())
    assert doc["matchId"] == match_id and doc["isCompleted"] is True
    assert "(role white)" in doc["gameRulesheet"] and ";" not in doc["gameRulesheet"]
    assert len(doc["states"]) == len(doc["moves"]) + 1 == len(doc["stateTimes"])
    other = tmp_path / "other.sqlite3"
    imported = runner.invoke(app, ["matches", "import", str(out), "--db", str(other)])
    assert imported.exit_code == 0, imported.output
    with MatchStore(other) as store:
        assert store.load(match_id).to_json() == doc
    shown = runner.invoke(app, ["replay", match_id[:8], "--all", "--db", str(other)])
    assert shown.exit_code == 0, shown.output
    steps = len(doc["moves"])  # the start is step 1, the end step steps + 1
    assert f"step {steps + 1}/{steps + 1}" in shown.output and "goals: white=" in shown.output


def test_replay_steps_forward_and_back(tiny_kif: Path, tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    args = ["match", str(tiny_kif), "--role", "white=random", "--role", "black=random", "-q"]
    assert runner.invoke(app, [*args, "--db", str(db)]).exit_code == 0
    result = runner.invoke(app, ["replay", only_match_id(db), "--db", str(db)], input="\nb\n\nq\n")
    assert result.exit_code == 0, result.output
    titles = [line for line in result.output.splitlines() if ": step " in line]
    assert [t.split("step ")[1].split("/")[0] for t in titles] == ["1", "2", "1", "2"]


def test_match_shows_the_opening_board(
    tiny_kif: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    args = ["match", str(tiny_kif), "--role", "white=random", "--role", "black=random"]
    result = runner.invoke(app, [*args, "--playclock", "1", "--no-db"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert not [r for r in caplog.records if "observer failed" in r.getMessage()]
    titles = [line for line in result.output.splitlines() if "─ tiny: step" in line]
    assert "tiny: step 1 (start)" in titles[0]
    assert "tiny: step 2" in titles[1]
    start = result.output.split("tiny: step 2")[0]
    assert "(count 0)" in start and "moves of step" not in start


def test_replay_header_names_the_step_the_board_shows(tmp_path: Path) -> None:
    """pawn-checkers draws its step counter (1 at the start): the title gives the same step."""
    db = tmp_path / "m.sqlite3"
    arena = ["arena", "pawn-checkers", "random", "random", "-n", "1", "-j", "1", "--seed", "5"]
    assert runner.invoke(app, [*arena, "--db", str(db)]).exit_code == 0
    shown = runner.invoke(app, ["replay", only_match_id(db), "--all", "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    titles = re.findall(r": step (\d+)/(\d+)", shown.output)
    boards = re.findall(r"│ step (\d+), ", shown.output)
    assert len(titles) == len(boards) > 10
    assert [t for t, _ in titles] == boards == [str(i) for i in range(1, len(boards) + 1)]
    assert {total for _, total in titles} == {str(len(boards))}
    assert "moves of step 1:" in shown.output.split(": step 2/")[1].split(": step 3/")[0]


def test_match_with_a_remote_gdl_player(tiny_kif: Path, tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    with ServerThread(PlayerService(FirstAgent, name="remote")) as server:
        args = ["match", str(tiny_kif), "--role", f"white={server.url}", "--role", "black=random"]
        result = runner.invoke(
            app, [*args, "--startclock", "20", "--playclock", "3", "--db", str(db)]
        )
    assert result.exit_code == 0, result.output
    with MatchStore(db) as store:
        record = store.load(only_match_id(db))
    assert record.is_completed and all(e == ["", ""] for e in record.errors)
    assert record.moves[0][0] == "(add 1)"  # FirstAgent's choice, over HTTP
    assert record.player_names == ["remote", "random"]  # the name its INFO reply gives


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--role", "white=random"], "no player for black"),
        (["--role", "white"], "expected ROLE=SPEC"),
        (["--role", "red=random"], "has 2 roles: white, black"),
        (["--role", "white=nosuchagent", "--role", "black=random"], "nosuchagent"),
    ],
)
def test_match_user_errors_are_one_line(
    tiny_kif: Path, tmp_path: Path, extra: list[str], message: str
) -> None:
    result = runner.invoke(app, ["match", str(tiny_kif), *extra, "--db", str(tmp_path / "m.db")])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("option", ["--playclock", "--startclock"])
@pytest.mark.parametrize("value", ["1.5", "0", "-5", "nan", "inf"])
def test_clocks_must_be_whole_positive_seconds(
    tiny_kif: Path, tmp_path: Path, option: str, value: str
) -> None:
    """START carries the clocks and ggp-base's players parse integers: 1.5 is never answered."""
    args = ["match", str(tiny_kif), "--role", "white=random", "--role", "black=random"]
    result = runner.invoke(app, [*args, f"{option}={value}", "--db", str(tmp_path / "m.db")])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())  # rich wraps long lines
    assert f"{option} must be a whole number of seconds, at least 1 (got {value})" in said
    assert "Traceback" not in result.output and not (tmp_path / "m.db").exists()


def test_import_a_ggp_base_record_with_rules_given(tiny_kif: Path, tmp_path: Path) -> None:
    """ggp-base records embed no rules ('gameRulesheet'): --rules gives them."""
    bare = {k: v for k, v in GGP_BASE_RECORD.items() if k != "gameRulesheet"}
    path = tmp_path / "base.json"
    path.write_text(json.dumps(bare), encoding="utf-8")
    db = tmp_path / "m.sqlite3"
    refused = runner.invoke(app, ["matches", "import", str(path), "--db", str(db)])
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    said = " ".join(refused.output.split())
    assert "'gameRulesheet'" in said and "--rules FILE" in said
    imported = runner.invoke(
        app, ["matches", "import", str(path), "--rules", str(tiny_kif), "--db", str(db)]
    )
    assert imported.exit_code == 0, imported.output
    assert "imported Base.tiny.1" in imported.output
    with MatchStore(db) as store:
        record = store.load("Base.tiny.1")
    assert record.game_name == "tiny" and "(role white)" in record.rules
    assert ";" not in record.rules  # comments stripped, as in the records ggpkit writes
    shown = runner.invoke(app, ["replay", "Base.tiny.1", "--all", "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    assert "step 3/3" in shown.output and "goals: white=0, black=100" in shown.output


def test_unknown_match_id_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", "nosuch", "--db", str(tmp_path / "m.db")])
    assert result.exit_code == 2 and "no stored match 'nosuch'" in result.output


def test_player_command_serves_until_interrupted(tmp_path: Path) -> None:
    port = free_port()
    cmd = [sys.executable, "-m", "ggpkit", "player", "--port", str(port), "--agent", "random"]
    env = {**os.environ, "GGPKIT_DB": str(tmp_path / "p.sqlite3")}
    proc = subprocess.Popen([*cmd, "--name", "p1"], env=env, stderr=subprocess.DEVNULL)
    try:
        reply = b""
        deadline = time.monotonic() + 60
        while not reply and time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                    s.sendall(b"POST / HTTP/1.0\r\nContent-Length: 6\r\n\r\n(INFO)")
                    reply = b"".join(iter(lambda: s.recv(4096), b""))
            except OSError:
                time.sleep(0.2)
        assert reply.endswith(b"\r\n\r\n((name p1) (status available))")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
    assert (tmp_path / "p.sqlite3").exists()


def test_match_names_moves_in_short_form_and_says_why_it_ended() -> None:
    """breakthrough-holes: each move with its short form (x as a letter), and the reason."""
    args = ["match", "breakthrough-holes", "--role", "white=random", "--role", "black=random"]
    result = runner.invoke(app, [*args, "--playclock", "1", "--no-db", "--seed", "3"],
                           env={"COLUMNS": "200"})  # fmt: skip
    assert result.exit_code == 0, result.output
    played = re.findall(
        r"(white|black): \(move (\d) (\d) (\d) (\d)\)  ([a-f]\d-[a-f]\d)", result.output
    )
    assert played
    for _, x1, y1, x2, y2, short in played:
        assert short == f"{'abcdef'[int(x1) - 1]}{y1}-{'abcdef'[int(x2) - 1]}{y2}"
    (why,) = re.findall(r"why it ended: (.*)", result.output)
    assert re.fullmatch(r"(white|black) (reached the far row \([a-f][16]\)|has no legal move)", why)


@pytest.mark.parametrize(
    ("agent", "flag", "warmed"),
    [("mcts", None, True), ("mcts:time=1", "--no-warmup", False), ("random", None, False)],
)
def test_the_player_warms_its_kernels_before_it_serves(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, agent: str, flag: str | None, warmed: bool
) -> None:
    """A searching agent's kernels are compiled (or loaded) before the first request is
    answered, unless asked not to; the random agent has none to warm."""
    import uvicorn

    from ggpkit.tools import warmup

    calls: list[str] = []
    monkeypatch.setattr(warmup, "warm_up_kernels", lambda: calls.append("warm") or [])

    def serve(self: uvicorn.Server, sockets: list[socket.socket]) -> None:
        calls.append("serve")
        self.started = True

    monkeypatch.setattr(uvicorn.Server, "run", serve)
    args = ["player", "--port", str(free_port()), "--agent", agent, "--no-db"]
    result = runner.invoke(app, [*args, *([flag] if flag else [])])
    assert result.exit_code == 0, result.output
    assert calls == (["warm", "serve"] if warmed else ["serve"])


def test_a_fragment_is_sent_with_the_game_it_extends(tmp_path: Path) -> None:
    """A fragment alone is refused by every player ("a fragment, not a game"): the rules
    sent for ``tiny_robot.kif`` are ``tiny.kif``'s followed by the fragment's."""
    from ggpkit.cli.match_cmd import rules_text

    (tmp_path / "tiny.kif").write_text(TINY_GDL)
    fragment = tmp_path / "tiny_robot.kif"
    fragment.write_text("(<= (robot_choice noop) (true (control white)))\n")
    sent = rules_text(str(fragment))
    assert "(role white)" in sent and sent.rstrip().endswith("(true (control white)))")
    assert rules_text(str(tmp_path / "tiny.kif")).count("(role white)") == 1


def test_a_match_stopped_by_max_steps_is_stored_aborted(tiny_kif: Path, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    args = ["match", str(tiny_kif), "--role", "white=random", "--role", "black=random", "-q"]
    result = runner.invoke(app, [*args, "--playclock", "1", "--max-steps", "1", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "aborted after 1 step" in result.stdout
    with MatchStore(db) as store:
        (summary,) = store.matches()
        record = store.load(summary.match_id)
    assert record.is_aborted and record.steps == 1
