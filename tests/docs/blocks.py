"""Reading a documentation page's code blocks, and running them as a reader would.

A tutorial page is Markdown; its fenced blocks are of three kinds:

- ```` ```python ````: run in order, in one namespace per page, in the page's scratch
  folder (the current directory, also on ``sys.path`` so ``import greedy`` finds a file
  an earlier block wrote). A comment that ends a top-level statement is checked: after
  ``print(...)`` it is what the call prints (``...`` as in console blocks); after a bare
  expression it is the expression's value when the comment is a Python literal
  (``game.roles  # ("jumper",)``); other comments are prose;
- ```` ```console ````: lines starting with ``$ `` are shell commands (a line ending in
  ``\\`` goes on), run with ``bash`` in the scratch folder; the lines after a command are
  its expected output (stdout and stderr together), compared with what it printed:
  ``...`` stands for any text (within a line, or whole lines), any run of spaces and
  line breaks matches any other (a terminal may wrap a long path), and a block that
  shows no output checks none. A command must exit 0 unless
  the block says otherwise;
- any block with a ``title="NAME"`` (```` ```lisp title="ttt.kif" ````): written to
  ``NAME`` in the scratch folder, not run.

An HTML comment on the line before a block (invisible on the site) says how to run it:

- ``<!-- not run: REASON -->``: skipped, for the reason given (a browser, a cluster);
- ``<!-- test: exit=1 -->``: the commands' expected exit status;
- ``<!-- test: timeout=90 -->``: seconds the block may take (default 120);
- ``<!-- test: needs=pettingzoo,pyspiel -->``: run only where those modules import;
- ``<!-- test: needs-command=games fetch -->``: run only where ``ggpkit games fetch``
  exists;
- ``<!-- test: background; wait-port=9147 -->`` (console): start the one command and
  leave it running until the page ends (a server a later block talks to), stopped then
  with SIGTERM; ``wait-port`` waits (up to the block's timeout) until that port of
  127.0.0.1 takes connections, as a reader waits for the server's first line.

Any other fenced block must carry ``<!-- not run: ... -->``, so no block is left
unchecked by accident.

Ports: the pages use the well-known ports of ggpkit (8000 for the web app, 9147 and
9148 for players); the runner replaces them in every block of a page by free ports, the same
ones throughout the page, so that tests running side by side never collide.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")
DIRECTIVE = re.compile(r"^\s*<!--\s*(?P<kind>test|not run):\s*(?P<body>.*?)\s*-->\s*$")
TITLE = re.compile(r'title="(?P<title>[^"]+)"')
WELL_KNOWN_PORTS = ("8000", "9147", "9148")
DEFAULT_TIMEOUT = 120.0


@dataclass
class Block:
    """One fenced block of a page, with what its directive says."""

    line: int
    lang: str
    title: str | None
    text: str
    skip: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"line {self.line} ({self.lang or 'text'})"


def read_blocks(markdown: str) -> list[Block]:
    """Every fenced block of ``markdown`` in order, with its directive (if any)."""
    lines = markdown.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, indent = m.group("fence"), m.group("info").strip(), len(m.group("indent"))
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        i += 1
        lang = info.split()[0].strip("{}.") if info else ""
        title_match = TITLE.search(info)
        block = Block(
            line=start + 1,
            lang=lang,
            title=title_match.group("title") if title_match else None,
            text="\n".join(body) + "\n",
        )
        before = start - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        if before >= 0:
            d = DIRECTIVE.match(lines[before])
            if d and d.group("kind") == "not run":
                block.skip = d.group("body") or "marked not run"
            elif d:
                for item in d.group("body").split(";"):
                    key, _, value = item.strip().partition("=")
                    block.options[key.strip()] = value.strip()
        blocks.append(block)
    return blocks


# ---- console blocks ----------------------------------------------------------------------


@dataclass
class Command:
    line: str
    expected: list[str]


def commands_of(text: str) -> list[Command]:
    """The ``$ `` commands of a console block, each with the output lines shown after it."""
    out: list[Command] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + "\n" + lines[i]
            out.append(Command(command, []))
        elif out:
            out[-1].expected.append(line)
        elif line.strip():
            raise AssertionError(f"console block: text before the first '$ ' command: {line!r}")
        i += 1
    return out


def output_matches(expected: list[str], actual: str) -> bool:
    """Whether ``actual`` is the ``expected`` lines, ``...`` standing for any text."""
    want = "\n".join(line.rstrip() for line in expected).strip("\n")
    got = "\n".join(line.rstrip() for line in actual.splitlines()).strip("\n")
    if not want:
        return True
    pattern = []
    for part in re.split(r"(\.\.\.)", want):
        if part == "...":
            pattern.append(".*?")
            continue
        # Spaces and line breaks compare as "some white space": a long line that the
        # terminal's width wraps elsewhere (a path) still matches.
        words = [re.escape(w) for w in part.split()]
        if not words:
            pattern.append(r"\s*")
            continue
        lead = r"\s*" if part[:1].isspace() else ""
        trail = r"\s*" if part[-1:].isspace() else ""
        pattern.append(lead + r"\s+".join(words) + trail)
    return re.fullmatch("".join(pattern), got, re.DOTALL) is not None


# ---- python blocks -----------------------------------------------------------------------

NOT_LITERAL: Any = object()


def trailing_comments(text: str) -> dict[int, str]:
    """The comment that ends each line of ``text`` that has one, by line number."""
    found: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = token.string[1:].strip()
    return found


def is_print(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Name)
        and statement.value.func.id == "print"
    )


def literal(comment: str) -> Any:
    """``(value,)`` when the comment is a Python literal, else NOT_LITERAL (prose)."""
    try:
        return (ast.literal_eval(comment),)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return NOT_LITERAL


# ---- running a page ----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def missing_modules(block: Block) -> list[str]:
    names = [n.strip() for n in block.options.get("needs", "").split(",") if n.strip()]
    return [n for n in names if importlib.util.find_spec(n) is None]


def has_command(words: str) -> bool:
    """Whether ``ggpkit WORDS`` is a command (the game library's commands came later).

    Duck-typed: newer Typers carry a click of their own."""
    import typer

    from ggpkit.cli import _load_commands, app

    _load_commands()
    command: Any = typer.main.get_command(app)
    for word in words.split():
        if not hasattr(command, "list_commands"):
            return False
        command = command.get_command(command.context_class(command), word)
        if command is None:
            return False
    return True


@contextlib.contextmanager
def time_limit(seconds: float, where: str) -> Iterator[None]:
    """Raise TimeoutError in this (main) thread after ``seconds``."""

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"{where}: still running after {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class PageRun:
    """Runs one page's blocks in order in ``folder`` with ``env`` for its commands."""

    def __init__(self, page: Path, folder: Path, env: dict[str, str]) -> None:
        self.page = page
        self.folder = folder
        self.env = env
        self.namespace: dict[str, Any] = {"__name__": "__tutorial__"}
        self.background: list[subprocess.Popen[bytes]] = []
        self.ports = {p: str(free_port()) for p in WELL_KNOWN_PORTS}
        self.ran: list[str] = []
        self.skipped: list[str] = []
        """Blocks marked not run, with their reasons."""
        self.lacking: list[str] = []
        """Blocks not run for a missing module or command."""

    def localize(self, text: str) -> str:
        for known, port in self.ports.items():
            text = re.sub(rf"\b{known}\b", port, text)
        return text

    def run(self) -> None:
        blocks = read_blocks(self.page.read_text(encoding="utf-8"))
        try:
            for block in blocks:
                self.run_block(block)
        finally:
            self.stop_background()

    def run_block(self, block: Block) -> None:
        where = f"{self.page.name}:{block.where}"
        if block.skip is not None:
            self.skipped.append(f"{where}: not run: {block.skip}")
            return
        missing = missing_modules(block)
        if missing:
            self.lacking.append(f"{where}: needs {', '.join(missing)}")
            return
        needed = block.options.get("needs-command")
        if needed and not has_command(needed):
            self.lacking.append(f"{where}: needs the command 'ggpkit {needed}'")
            return
        text = self.localize(block.text)
        if block.title is not None:
            target = self.folder / block.title
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        elif block.lang in ("python", "py"):
            self.run_python(text, block, where)
        elif block.lang == "console":
            self.run_console(text, block, where)
        else:
            raise AssertionError(
                f"{where}: a ```{block.lang} block without a title must be marked "
                "<!-- not run: REASON --> (only python and console blocks run)"
            )
        self.ran.append(where)

    def timeout(self, block: Block) -> float:
        return float(block.options.get("timeout", DEFAULT_TIMEOUT))

    def run_python(self, text: str, block: Block, where: str) -> None:
        filename = f"{self.page.name}:{block.line}"
        tree = ast.parse(text, filename)
        comments = trailing_comments(text)
        with time_limit(self.timeout(block), where):
            for statement in tree.body:
                comment = comments.get(statement.end_lineno or statement.lineno)
                code = compile(ast.Module([statement], []), filename, "exec")
                at = f"{self.page.name}:{block.line + statement.lineno}"
                if comment is not None and is_print(statement):
                    printed = io.StringIO()
                    with contextlib.redirect_stdout(printed):
                        exec(code, self.namespace)
                    sys.stdout.write(printed.getvalue())
                    if not output_matches([comment], printed.getvalue()):
                        raise AssertionError(
                            f"{at}: printed {printed.getvalue().strip()!r}, the page "
                            f"says # {comment}"
                        )
                elif comment is not None and isinstance(statement, ast.Expr):
                    expected = literal(comment)
                    value = eval(
                        compile(ast.Expression(statement.value), filename, "eval"),
                        self.namespace,
                    )
                    if expected is not NOT_LITERAL and value != expected[0]:
                        raise AssertionError(
                            f"{at}: the value is {value!r}, the page says # {comment}"
                        )
                else:
                    exec(code, self.namespace)

    def run_console(self, text: str, block: Block, where: str) -> None:
        commands = commands_of(text)
        if not commands:
            raise AssertionError(f"{where}: a console block without a '$ ' command")
        if "background" in block.options:
            if len(commands) != 1:
                raise AssertionError(f"{where}: a background block runs exactly one command")
            log = self.folder / f"background-{len(self.background) + 1}.log"
            with log.open("wb") as out:  # kept in the scratch folder for a failed run
                self.background.append(
                    subprocess.Popen(
                        ["bash", "-c", f"exec {commands[0].line}"],
                        cwd=self.folder,
                        env=self.env,
                        stdin=subprocess.DEVNULL,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
            if "wait-port" in block.options:
                port = int(self.localize(block.options["wait-port"]))
                self.wait_for_port(port, self.background[-1], self.timeout(block), where)
            return
        status = int(block.options.get("exit", "0"))
        for command in commands:
            try:
                done = subprocess.run(
                    ["bash", "-c", command.line],
                    cwd=self.folder,
                    env=self.env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    timeout=self.timeout(block),
                    check=False,
                )
            except subprocess.TimeoutExpired as e:
                raise AssertionError(
                    f"{where}: $ {command.line}\nstill running after {e.timeout:.0f} s"
                ) from None
            output = done.stdout.decode("utf-8", "replace")
            if done.returncode != status:
                raise AssertionError(
                    f"{where}: $ {command.line}\nexit status {done.returncode}, "
                    f"expected {status}; it printed:\n{output}"
                )
            if not output_matches(command.expected, output):
                shown = "\n".join(command.expected)
                raise AssertionError(
                    f"{where}: $ {command.line}\nprinted:\n{output}\n"
                    f"which is not what the page shows:\n{shown}"
                )

    def wait_for_port(
        self, port: int, process: subprocess.Popen[bytes], seconds: float, where: str
    ) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"{where}: the command ended (status {process.returncode})")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                return
            time.sleep(0.1)
        raise AssertionError(f"{where}: nothing listens on port {port} after {seconds:.0f} s")

    def stop_background(self) -> None:
        for process in self.background:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)
                    process.wait()


def command_env(folder: Path) -> dict[str, str]:
    """The environment of a page's commands: the test's Python first on PATH, and every
    place ggpkit writes (match store, data folder, caches) inside the scratch folder."""
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["GGPKIT_DB"] = str(folder / "state" / "matches.sqlite3")
    env["GGPKIT_DATA_DIR"] = str(folder / "state" / "data")
    env["XDG_DATA_HOME"] = str(folder / "state" / "xdg-data")
    env["XDG_CACHE_HOME"] = str(folder / "state" / "xdg-cache")
    env["PYTHONUNBUFFERED"] = "1"  # stdout and stderr in the order they were written
    env["COLUMNS"] = "80"
    env["NO_COLOR"] = "1"
    env["TERM"] = "dumb"
    env.pop("RAY_ADDRESS", None)  # an embedded Ray, never a cluster the caller points at
    env.pop("GGPKIT_GAMES_DIR", None)  # a library folder too: a page lists only its own games
    return env


def quote(path: Path) -> str:
    return shlex.quote(str(path))
