"""The live terminal view of a running tournament: progress, standings, matches in flight.

Drawn with rich on stderr, and only when stderr is a terminal (stdout keeps the
tournament id and the final table, for scripts). Standings are read from the store at
most once a second, without the bootstrap (the final table has the intervals).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, Group
    from rich.live import Live
    from rich.table import Table

    from ggpkit.store.tournaments import TournamentStore
    from ggpkit.tournament.runner import RunState
    from ggpkit.tournament.standings import Standing

REFRESH_SECONDS = 1.0
SHOWN_MATCHES = 8


class LiveView:
    """A listener for ``run_tournament`` that redraws the view (a no-op off a terminal)."""

    def __init__(
        self, tstore: TournamentStore, names: Sequence[str], console: Console | None = None
    ) -> None:
        from rich.console import Console
        from rich.live import Live

        self.tstore = tstore
        self.names = list(names)
        console = console or Console(stderr=True)
        self.live: Live | None = (
            Live(console=console, transient=True) if console.is_terminal else None
        )
        self._last = 0.0
        self._standings: list[Standing] = []

    def __enter__(self) -> LiveView:
        if self.live is not None:
            self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.stop()

    def __call__(self, state: RunState) -> None:
        if self.live is None or time.monotonic() - self._last < REFRESH_SECONDS:
            return
        from ggpkit.tournament.standings import standings

        self._last = time.monotonic()
        slots = self.tstore.slots(state.tournament_id)
        self._standings = standings(slots, self.names, samples=0)
        self.live.update(self._render(state))

    def _render(self, state: RunState) -> Group:
        from rich.console import Group
        from rich.progress_bar import ProgressBar
        from rich.text import Text

        header = Text(
            f"{state.tournament_id}: {state.done}/{state.total} matches"
            + (f", {len(state.failed)} failed" if state.failed else "")
        )
        bar = ProgressBar(total=max(state.total, 1), completed=state.done, width=40)
        return Group(header, bar, standings_table(self._standings), self._running(state))

    def _running(self, state: RunState) -> Table:
        from rich.table import Table

        table = Table(title=f"{len(state.running)} matches in flight", title_justify="left")
        table.add_column("game")
        table.add_column("players (role order)")
        for slot in list(state.running.values())[:SHOWN_MATCHES]:
            table.add_row(slot.game, " vs ".join(slot.players))
        return table


def standings_table(rows: Sequence[Standing], title: str = "standings") -> Table:
    """The standings as a rich table: rating, its 95% interval, points, W/D/L."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for name in ("player", "rating", "95% interval", "points", "matches", "W-D-L"):
        table.add_column(name, justify="left" if name == "player" else "right")
    for s in rows:
        interval = f"{s.low:.0f} .. {s.high:.0f}" if s.low != s.high else "-"
        table.add_row(
            s.player,
            f"{s.rating:.0f}",
            interval,
            f"{s.points:g}",
            str(s.matches),
            f"{s.wins}-{s.draws}-{s.losses}",
        )
    return table


def cross_table_view(
    cells: dict[tuple[str, str], tuple[float, int]], names: Sequence[str]
) -> Table:
    """Row player's points against the column player (matches together)."""
    from rich.table import Table

    from ggpkit.tournament.standings import cross_cell

    table = Table(title="cross-table: row's points against column (matches)", title_justify="left")
    table.add_column("")
    for name in names:
        table.add_column(name, justify="right")
    for a in names:
        table.add_row(a, *(cross_cell(cells, a, b) for b in names))
    return table
