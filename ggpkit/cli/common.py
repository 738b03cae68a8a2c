"""What the command modules share: one-line errors, counted nouns, the store, sockets, boards.

Cheap to import, like every command module: ``ggpkit --help`` imports them all, so
anything heavy (the games, agents, numba, the web stack) is imported inside the
command function that needs it.
"""

from __future__ import annotations

import errno
import socket
import sys
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from rich.panel import Panel
    from rich.progress import Progress, ProgressColumn

    from ggpkit.games.api import Game
    from ggpkit.store.sqlite import MatchStore

_OS_ERRORS = {
    errno.ENOENT: "no such file",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "is a directory",
    errno.ENOTDIR: "not a directory",
}


def os_error_line(error: OSError) -> str:
    """An OSError as ``path: what went wrong``, without the errno ``[Errno 2] ...`` noise."""
    what = _OS_ERRORS.get(error.errno or 0) or (error.strerror or str(error)).lower()
    return f"{error.filename}: {what}" if error.filename is not None else what


def fail(message: str) -> typer.Exit:
    """Print a one-line user error on stderr; the caller raises the returned Exit (status 2)."""
    typer.echo(f"ggpkit: error: {message}", err=True)
    return typer.Exit(2)


def plural(count: int, noun: str) -> str:
    """``1 match``, ``2 matches``, ``0 runs``: a count with its (regular) noun in the right
    number; the last word of ``noun`` takes the ending (``2 joint moves``)."""
    if count == 1:
        return f"{count} {noun}"
    if noun.endswith(("s", "x", "ch", "sh")):
        return f"{count} {noun}es"
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return f"{count} {noun[:-1]}ies"
    return f"{count} {noun}s"


def stderr_progress(*columns: ProgressColumn | str, transient: bool = True) -> Progress:
    """A live progress display on stderr, drawn only when stderr is a terminal.

    stdout is left to the command's output: lines printed meanwhile go through the
    display only when stdout is a terminal too (so they do not tear the progress line),
    and straight to stdout when it is a file or a pipe, so a script reading it sees
    exactly what it would without the display.
    """
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    return Progress(
        *columns,
        console=console,
        transient=transient,
        redirect_stdout=sys.stdout.isatty(),
        redirect_stderr=False,
        disable=not console.is_terminal,  # else rich still writes a newline at the end
    )


def open_store(db: Path | None, no_db: bool) -> MatchStore | None:
    """The match store named by --db / $GGPKIT_DB / the default, or None with --no-db."""
    from ggpkit.store.sqlite import MatchStore, StoreError, default_db_path

    if no_db:
        return None
    try:
        return MatchStore(db or default_db_path())
    except StoreError as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(os_error_line(e)) from None


def listening_socket(host: str, port: int, listen: bool = True) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening, as uvicorn would make it.

    Servers bind before they say where they serve, so a port in use (or a host that is
    not this machine's) is one clear line and exit status 2 rather than a claim to serve
    followed by a failure. Connections made after this returns wait in the backlog
    until the server accepts them. With ``listen`` False the port is only bound (taken,
    but connections are refused) until the caller calls ``listen(2048)``: a server that
    must get ready first is not connected to before it is.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP said outright: asyncio sets TCP_NODELAY on accepted connections only
    # when the listening socket says so; without it every reply waits ~40 ms (Nagle
    # meeting delayed ACKs).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        if listen:
            sock.listen(2048)
    except (OSError, OverflowError) as e:
        sock.close()
        if isinstance(e, OSError) and e.errno == errno.EADDRINUSE:
            raise fail(f"cannot listen on {host}:{port}: the port is in use") from None
        reason = os_error_line(e) if isinstance(e, OSError) else "the port is not in 0..65535"
        raise fail(f"cannot listen on {host}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


def address(host: str, sock: socket.socket, scheme: str = "http") -> str:
    """The URL of ``host`` on a listening socket's port (the one it got when asked for 0)."""
    port = sock.getsockname()[1]
    return f"{scheme}://[{host}]:{port}/" if ":" in host else f"{scheme}://{host}:{port}/"


def _short(game: Game[Any], move: str) -> str:
    """``"  b2-c3"`` after a move the game writes shorter, else ``""``."""
    from ggpkit.games.notation import short_form
    from ggpkit.gdl.kif import GdlSyntaxError, parse_term

    try:
        short = short_form(game, parse_term(move))
    except GdlSyntaxError:
        return ""
    return f"  {short}" if short else ""


def step_panel(
    game: Game[Any],
    state: Hashable,
    played: int,
    moves: Sequence[str] = (),
    errors: Sequence[str] = (),
    title: str = "",
    total: int | None = None,
    footer: Sequence[str] = (),
) -> Panel:
    """The board after ``played`` joint moves, under the joint move that led to it.

    Positions are numbered as GGP numbers steps, and as games with a step counter draw
    it: the start is step 1, the position after ``k`` joint moves step ``k + 1``. So
    the title says the step the board says; the moves above the board are those of the
    step before. ``total`` (joint moves in the whole match) adds the last step's number.
    """
    from rich.panel import Panel
    from rich.text import Text

    lines = []
    if played > 0:
        lines.append(f"moves of step {played}:")
        for i, (role, move) in enumerate(zip(game.roles, moves, strict=True)):
            error = errors[i] if i < len(errors) else ""
            short = _short(game, move)
            lines.append(f"{role}: {move}{short}" + (f"   [{error}, replaced]" if error else ""))
        lines.append("")
    lines.append(game.render(state))
    if footer:
        lines += ["", *footer]
    step = f"step {played + 1}" + (f"/{total + 1}" if total is not None else "")
    heading = f"{title}: {step}" if title else step
    return Panel.fit(Text("\n".join(lines)), title=heading + (" (start)" if played == 0 else ""))


@contextmanager
def status_line(what: str) -> Iterator[Callable[[str], None]]:
    """A spinner with the elapsed seconds on stderr while ``what`` runs (a terminal only).

    For work that gives no progress of its own (solvers, one perft depth): compiled
    kernels release the GIL, so the spinner keeps turning while they work. stdout gets
    nothing from it. Yields a function that changes the line's text (an estimate, say).
    """
    from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with stderr_progress(*columns) as progress:
        task = progress.add_task(what, total=None)
        yield lambda text: progress.update(task, description=text)
