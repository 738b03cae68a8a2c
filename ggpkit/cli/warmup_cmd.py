"""``ggpkit warmup``: compile every numba kernel once, so no match ever pays for it."""

from __future__ import annotations

import time

import typer

from ggpkit.cli.app import app


@app.command("warmup")
def warmup_command() -> None:
    """Compile ggpkit's kernels now (kept in numba's cache) instead of during a match.

    The first call of each compiled kernel (the native engines, the propnet's playouts
    and network build) compiles it: seconds of CPU that a play clock cannot spare.
    Run this once after installing or upgrading; later runs only load the cache and
    take a second or two. It plays a random line of each registered game on its
    native engine and on its GDL twin, and a batch of compiled playouts of each.
    """
    from ggpkit.cli.common import stderr_progress
    from ggpkit.tools.warmup import warm_up_kernels

    began = time.monotonic()
    with stderr_progress("{task.description}") as bar:
        task = bar.add_task("warming up")
        done = warm_up_kernels(lambda name: bar.update(task, description=f"warming up {name}"))
    typer.echo(f"warmed up {len(done)} game engines in {time.monotonic() - began:.1f} s")
