"""``ggpkit web``: serve the web app (play, watch, replay, any GDL game) on this machine."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import address, listening_socket


@app.command("web")
def web_command(
    port: Annotated[int, typer.Option(help="TCP port to listen on.")] = 8000,
    host: Annotated[
        str, typer.Option(help="Address to bind; 127.0.0.1 keeps it on this machine.")
    ] = "127.0.0.1",
    db: Annotated[
        Path | None,
        typer.Option(help="Match database (SQLite). Default: $GGPKIT_DB or ~/.local/share."),
    ] = None,
    games_dir: Annotated[
        Path | None,
        typer.Option(
            help="Folder of .kif files offered on the GDL page (default: the game library, "
            "see ggpkit games)."
        ),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            help="Host name the server also answers for, beside 127.0.0.1 and localhost "
            "(repeatable; needed when it is reached by another name or address).",
        ),
    ] = None,
) -> None:
    """Serve the web app and print its address; it opens no browser by itself.

    Every game played in the browser is stored step by step in the same SQLite match
    store as the command line's matches, so a restart loses nothing. The port is bound
    before the address is printed: a port in use is one error line and exit status 2.
    """
    import uvicorn

    from ggpkit.match.player_server import SHUTDOWN_SECONDS
    from ggpkit.store.sqlite import default_db_path
    from ggpkit.web.app import create_app
    from ggpkit.web.guards import LOCAL_HOSTS

    sock = listening_socket(host, port)
    try:
        db_path = db or default_db_path()
        db_path.parent.mkdir(parents=True, exist_ok=True)
        application = create_app(db_path, games_dir, [*LOCAL_HOSTS, *(allow_host or [])])
        config = uvicorn.Config(
            application,
            host=host,
            port=port,
            log_level="warning",
            loop="asyncio",  # as the player server: not uvloop where an extra installs it
            timeout_graceful_shutdown=SHUTDOWN_SECONDS,  # an agent thinking does not hold it
        )
        typer.echo(f"ggpkit web: serving on {address(host, sock)}  (matches stored in {db_path})")
        server = uvicorn.Server(config)
        server.run(sockets=[sock])
    finally:
        sock.close()
    if not server.started:  # as uvicorn.run: a failed start-up (lifespan) is not a success
        raise typer.Exit(1)
