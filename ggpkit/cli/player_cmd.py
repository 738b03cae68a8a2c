"""``ggpkit player``: serve an agent as a GGP player over HTTP (what game managers call)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import address, fail, listening_socket, open_store


@app.command("player")
def player_command(
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port to listen on.")] = 9147,
    agent: Annotated[str, typer.Option(help="Agent spec, e.g. mcts or random.")] = "mcts",
    name: Annotated[str | None, typer.Option(help="Name given in INFO replies.")] = None,
    host: Annotated[str, typer.Option(help="Address to bind (0.0.0.0 for all).")] = "127.0.0.1",
    db: Annotated[Path | None, typer.Option(help="Match database (default: $GGPKIT_DB).")] = None,
    no_db: Annotated[bool, typer.Option("--no-db", help="Do not store matches.")] = False,
    gdl_only: Annotated[
        bool, typer.Option("--gdl-only", help="Never use native engines, even for known rules.")
    ] = False,
    threads: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Parallel searches for an agent that has them (mcts): one per usable core "
            "(taskset, cpuset) by default; a threads= in the spec wins.",
        ),
    ] = None,
    warmup: Annotated[
        bool,
        typer.Option(
            help="Compile (or load from the cache) the kernels a match calls before serving "
            "(as ggpkit warmup does: minutes after an install, then seconds), so that no "
            "START or move pays for them; the random agent needs none.",
        ),
    ] = True,
) -> None:
    """Serve an agent to GGP game managers until interrupted (Ctrl-C).

    MCTS searches on every core by default (root-parallel, one worker process per
    extra core); --threads 1 keeps it to one. The port is taken first (one in use
    fails at once), then the kernels are warmed up, and only then does it listen.
    """
    import logging

    import uvicorn

    from ggpkit.agents.specs import SpecError, make_agent, with_threads
    from ggpkit.match.player_server import (
        PlayerService,
        default_loader,
        gdl_loader,
        make_app,
        server_config,
    )
    from ggpkit.processes import usable_cpus

    try:
        make_agent(agent)  # a bad spec fails now, not at the first START
        agent = with_threads(agent, threads or usable_cpus())
    except SpecError as e:
        raise fail(str(e)) from None
    player_name = name or f"ggpkit-{agent.split(':', 1)[0]}"
    sock = listening_socket(host, port, listen=False)  # a port in use fails here, at once
    store = open_store(db, no_db)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    loader = gdl_loader if gdl_only else default_loader
    service = PlayerService(
        lambda: make_agent(agent), name=player_name, loader=loader, recorder=store
    )
    try:
        if warmup and agent.split(":", 1)[0] != "random":
            from ggpkit.tools.warmup import warm_up_kernels

            typer.echo("warming up the compiled kernels (--no-warmup to skip)...", err=True)
            warm_up_kernels()
        try:
            sock.listen(2048)  # ready: connections are accepted from now on
        except OSError as e:  # (another server took the port meanwhile)
            raise fail(f"cannot listen on {host}:{port}: {e.strerror}") from None
        typer.echo(f"ggpkit player {player_name} ({agent}) on {address(host, sock)}", err=True)
        server = uvicorn.Server(server_config(make_app(service), host, port))
        server.run(sockets=[sock])
    finally:
        sock.close()
        if store is not None:
            store.close()
    if not server.started:  # as uvicorn.run: a failed start-up (lifespan) is not a success
        raise typer.Exit(1)
