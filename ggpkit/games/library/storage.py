"""Where the library keeps its files, and how it writes them so that none is ever half written.

The data folder is ``$GGPKIT_DATA_DIR``, else ``$XDG_DATA_HOME/ggpkit``, else
``~/.local/share/ggpkit`` (the XDG base-directory rule that ``platformdirs`` applies on
Linux, written out here rather than taken as a dependency). The library's part of it
is ``games/``. Every file is written to a temporary file in the folder it belongs to
and renamed over its name (``os.replace``, atomic within a file system), so a process
killed at any instant leaves the old file or the new one, whole.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from ggpkit.games.library.errors import MalformedAnswerError

KEY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}")
"""A game key as the library accepts it: it becomes a folder name and a URL part, so a key
from an untrusted repository must not climb out of its folder (``..``, ``/``) nor hide
(a leading dot)."""

TEMP_PREFIX = ".part-"
"""Temporary files start so; readers skip them, and a later write of the folder removes
those a killed process left."""

MAX_DOCUMENT_BYTES = 1_000_000
"""The most the library reads of one of its own JSON documents (an entry, the list of
folders, the index of outlines): they are written by the library, but read as if not."""


def data_dir() -> Path:
    """``$GGPKIT_DATA_DIR``, else ``$XDG_DATA_HOME/ggpkit``, else ``~/.local/share/ggpkit``."""
    env = os.environ.get("GGPKIT_DATA_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "ggpkit"


def library_dir() -> Path:
    """The library's part of the data folder."""
    return data_dir() / "games"


def is_key(name: str) -> bool:
    """Whether ``name`` is a game key the library can store and look up."""
    return KEY_PATTERN.fullmatch(name) is not None


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` as ``path``: a temporary file beside it, flushed to disk, then renamed
    over it. Readers see the old content or the new, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json(path: Path, document: Any) -> None:
    """A JSON document written atomically (see :func:`write_atomic`)."""
    write_atomic(path, (json.dumps(document, indent=1, sort_keys=True) + "\n").encode())


def read_json(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> Any:
    """A JSON document of at most ``limit`` bytes; MalformedAnswerError when it is longer or
    not JSON (OSError when it cannot be read)."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise MalformedAnswerError(f"{path}: longer than {limit:,} bytes")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise MalformedAnswerError(f"{path}: not a JSON document ({_first_line(e)})") from None


def read_limited(path: Path, limit: int) -> bytes | None:
    """The bytes of a file of at most ``limit`` bytes; None when it is longer or unreadable."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def remove_temporaries(folder: Path) -> None:
    """Delete the temporary files a killed writer left in ``folder``."""
    for stale in folder.glob(TEMP_PREFIX + "*"):
        stale.unlink(missing_ok=True)


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
