"""What can go wrong while the game library reads a repository, its cache or its folders.

A game repository is a server on the internet that nobody here controls: every way its
answers can fail has its own class, so that a caller (the ``ggpkit games fetch``
command, a test) decides by class, and every message is one line that names the URL
or the path at fault.
"""

from __future__ import annotations

from ggpkit.errors import GgpkitError


class LibraryError(GgpkitError):
    """The game library could not do what was asked (fetch, read the cache, add a folder)."""


class RepositoryUnreachableError(LibraryError):
    """No usable answer came back: no connection, a connection lost, an HTTP error status."""


class GameNotFoundError(LibraryError):
    """The repository, or the library, has no game of that key."""


class MalformedAnswerError(LibraryError):
    """An answer or a stored document is not what the repository format says it is."""


class AnswerTooLargeError(LibraryError):
    """An answer is longer than the library reads for its kind of document."""


class AnswerTooSlowError(LibraryError):
    """An answer did not arrive within the time allowed for one request."""


class LibraryFolderError(LibraryError):
    """A folder given to the library is not a folder, or the library's own list of folders
    cannot be read or written."""
