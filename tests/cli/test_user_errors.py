"""One clear line for what users get wrong: missing files, ports in use; counted nouns."""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ggpkit.cli import _load_commands, app
from ggpkit.cli.common import os_error_line, plural

_load_commands()
runner = CliRunner()


def ggpkit(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ggpkit", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["check", "nosuch.kif"],
        ["play", "nosuch.kif"],
        ["perft", "nosuch.kif", "2"],
        ["solve", "nosuch.kif"],
        ["match", "nosuch.kif", "--role", "a=random"],
        ["arena", "nosuch.kif", "random", "random"],
        ["matches", "import", "nosuch.kif"],
    ],
    ids=lambda args: args[0] if args[0] != "matches" else "matches-import",
)
def test_a_missing_file_is_one_clear_line(args: list[str], tmp_path: Path) -> None:
    done = ggpkit(*args, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "ggpkit: error: nosuch.kif: no such file\n")
    assert done.stdout == ""


def test_a_directory_or_an_unreadable_file_is_one_clear_line(tmp_path: Path) -> None:
    done = ggpkit("check", str(tmp_path))
    assert (done.returncode, done.stderr) == (2, f"ggpkit: error: {tmp_path}: is a directory\n")
    perftest = ggpkit("perftest", "nosuch.kif", str(tmp_path / "results.txt"), "1", cwd=tmp_path)
    assert perftest.returncode == 1  # gdl-perf's contract: the results file says why
    assert perftest.stderr == "ggpkit: error: nosuch.kif: no such file\n"
    assert "errorMessage=" in (tmp_path / "results.txt").read_text()


def test_os_error_line_has_no_errno_noise() -> None:
    missing = FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), "a/b.kif")
    assert os_error_line(missing) == "a/b.kif: no such file"
    denied = PermissionError(errno.EACCES, os.strerror(errno.EACCES), "secret.kif")
    assert os_error_line(denied) == "secret.kif: permission denied"
    assert os_error_line(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "out.json")) == (
        "out.json: no space left on device"
    )


def test_plural() -> None:
    assert [plural(n, "agent") for n in (0, 1, 2)] == ["0 agents", "1 agent", "2 agents"]
    assert plural(1, "match") == "1 match" and plural(3, "match") == "3 matches"
    assert plural(2, "joint move") == "2 joint moves"
    assert plural(2, "random reachable position") == "2 random reachable positions"


def test_counts_read_as_english() -> None:
    wrong_count = runner.invoke(app, ["arena", "peg", "random", "random", "--no-store"])
    assert wrong_count.exit_code == 2
    assert "ggpkit: error: peg has 1 role (jumper): give 1 agent, got 2" in wrong_count.output
    one_match = runner.invoke(app, ["arena", "peg", "random", "-n", "1", "--no-store"])
    assert one_match.exit_code == 0, one_match.output
    assert "peg: 1 match, seed" in one_match.output
    bench = runner.invoke(
        app,
        ["bench", "--games", "peg", "--engine", "native", "--seconds", "0.01", "--repeat", "1"],
    )
    assert bench.exit_code == 0, bench.output
    assert "median of 1 run of" in " ".join(bench.output.split())  # the title may wrap


def _busy_port() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


@pytest.mark.parametrize("command", ["web", "player"])
def test_a_port_in_use_is_one_line_and_no_claim_to_serve(command: str, tmp_path: Path) -> None:
    with _busy_port() as busy:
        port = busy.getsockname()[1]
        done = ggpkit(command, "--port", str(port), "--db", str(tmp_path / "m.sqlite3"))
    assert done.returncode == 2
    assert done.stderr == f"ggpkit: error: cannot listen on 127.0.0.1:{port}: the port is in use\n"
    assert done.stdout == ""


def test_web_prints_its_address_once_it_listens(tmp_path: Path) -> None:
    """The printed address answers at once (port 0: the port the system gave is printed)."""
    cmd = [sys.executable, "-m", "ggpkit", "web", "--port", "0", "--db", str(tmp_path / "m.db")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("ggpkit web: serving on http://127.0.0.1:")
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        assert port != 0
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            conn.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            assert conn.recv(12).startswith(b"HTTP/1.1 ")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(20)


def test_connections_to_a_served_socket_send_without_delay() -> None:
    """Replies leave at once: accepted connections have TCP_NODELAY (else ~40 ms each)."""
    from ggpkit.cli.common import listening_socket

    async def nodelay_of_accepted() -> int:
        accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            sock = writer.get_extra_info("socket")
            accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        sock = listening_socket("127.0.0.1", 0)
        server = await asyncio.start_server(on_connect, sock=sock)
        _, writer = await asyncio.open_connection("127.0.0.1", sock.getsockname()[1])
        value = await asyncio.wait_for(accepted, 10)
        writer.close()
        server.close()
        return value

    assert asyncio.run(nodelay_of_accepted()) != 0
