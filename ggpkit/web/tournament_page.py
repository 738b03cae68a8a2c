"""A tournament's page: standings, cross-table, rating over time (SVG), every match linked.

Rendered on the server as one HTML document (no script needed), from the store the
web app already holds; every text from the store is escaped. Each match links to the
app's replay page (``/#/replay/ID``). The same data is offered as JSON.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from ggpkit.store.tournaments import SlotRow, TournamentStore
from ggpkit.tournament.runner import stored_setup
from ggpkit.tournament.standings import cross_cell, cross_table, rating_history, standings

COLOURS = ("#b45309", "#2563eb", "#15803d", "#b91c1c", "#7c3aed", "#0f766e", "#a16207", "#be185d")
WIDTH, HEIGHT, PAD = 640, 280, 44


def tournament_data(tstore: TournamentStore, tournament_id: str) -> dict[str, Any]:
    """Standings, cross-table, rating history and matches of a tournament, as plain data."""
    config, refs = stored_setup(tstore, tournament_id)
    names = [p.name for p in config.players]
    slots = tstore.slots(tournament_id)
    table = cross_table(slots, names)
    return {
        "id": tournament_id,
        "name": config.name,
        "schedule": config.schedule,
        "games": [r.label for r in refs],
        "players": names,
        "played": sum(s.match_id is not None for s in slots),
        "scheduled": len(slots),
        "standings": [s.to_json() for s in standings(slots, names, seed=config.seed)],
        "per_game": {
            r.label: [s.to_json() for s in standings(slots, names, r.label, config.seed)]
            for r in refs
        },
        "cross_table": [
            {"player": a, "opponent": b, "points": p, "matches": n}
            for (a, b), (p, n) in table.items()
        ],
        "history": [{"matches": k, "ratings": r} for k, r in rating_history(slots, names)],
        "matches": [_slot_json(s) for s in slots],
    }


def _slot_json(slot: SlotRow) -> dict[str, Any]:
    return {
        "key": slot.key,
        "round": slot.round,
        "game": slot.game,
        "players": list(slot.players),
        "match_id": slot.match_id,
        "goals": None if slot.goals is None else list(slot.goals),
        "error": slot.error,
    }


def _page(title: str, body: Sequence[str]) -> str:
    """A whole page around ``body`` (HTML already escaped), with the app's style and nav."""
    return "".join(
        [
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
            "<meta name='viewport' content='width=device-width, initial-scale=1'>",
            f"<title>{html.escape(title)}</title><link rel='stylesheet' href='/static/style.css'>",
            "<style>table.t{border-collapse:collapse;margin:.5rem 0}table.t td,table.t th"
            "{border:1px solid #d6d3d1;padding:.25rem .5rem;text-align:right}"
            "table.t td:first-child,table.t th:first-child{text-align:left}</style></head><body>",
            "<header class='top'><a class='brand' href='/'>ggpkit</a><nav><a href='/#/'>Play</a>"
            "<a href='/#/matches'>Matches</a><a href='/tournaments'>Tournaments</a>"
            "<a href='/#/gdl'>Any GDL game</a></nav></header><main><section class='card wide'>",
            *body,
            "</section></main></body></html>",
        ]
    )


def tournaments_html(tstore: TournamentStore) -> str:
    """The list of stored tournaments, newest first, each linked to its page."""
    rows = [
        (
            f"<a href='/tournaments/{html.escape(t.tournament_id)}'>"
            f"{html.escape(t.tournament_id)}</a>",
            html.escape(t.name),
            f"{t.played}/{t.slots}",
        )
        for t in tstore.tournaments()
    ]
    return _page(
        "Tournaments",
        ["<h1>Tournaments</h1>", _table("list", ("tournament", "name", "matches played"), rows)],
    )


def tournament_html(data: dict[str, Any]) -> str:
    """The page for :func:`tournament_data`'s result."""
    e = html.escape
    title = f"Tournament {data['id']}" + (f": {data['name']}" if data["name"] else "")
    parts = [
        f"<h1>{e(title)}</h1>",
        f"<p class='muted'>{e(data['schedule'])}; games: {e(', '.join(data['games']))}; "
        f"{data['played']}/{data['scheduled']} matches played</p>",
        "<h2>Standings</h2>",
        _standings_html(data["standings"]),
        "<h2>Rating over time</h2>",
        rating_svg(data["history"], data["players"]),
        "<h2>Cross-table</h2><p class='muted'>row player's points against the column player "
        "(matches together)</p>",
        _cross_html(data["cross_table"], data["players"]),
    ]
    for game, rows in data["per_game"].items():
        parts += [f"<h3>{e(game)}</h3>", _standings_html(rows)]
    parts += ["<h2>Matches</h2>", _matches_html(data["matches"])]
    return _page(title, parts)


def _table(kind: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An HTML table; ``rows`` hold cells already escaped (they may contain links)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table class='t {kind}'><tr>{head}</tr>{body}</table>"


def _standings_html(rows: Sequence[dict[str, Any]]) -> str:
    headers = ("player", "rating", "95% interval", "points", "matches", "W-D-L")
    cells = [
        (
            html.escape(r["player"]),
            f"{r['rating']:.0f}",
            f"{r['low']:.0f} .. {r['high']:.0f}",
            f"{r['points']:g}",
            str(r["matches"]),
            f"{r['wins']}-{r['draws']}-{r['losses']}",
        )
        for r in rows
    ]
    return _table("standings", headers, cells)


def _cross_html(cells: Sequence[dict[str, Any]], names: Sequence[str]) -> str:
    table = {(c["player"], c["opponent"]): (c["points"], c["matches"]) for c in cells}
    rows = [[html.escape(a), *(cross_cell(table, a, b) for b in names)] for a in names]
    return _table("cross", ["", *names], rows)


def _matches_html(matches: Sequence[dict[str, Any]]) -> str:
    e = html.escape
    rows = []
    for m in matches:
        if m["match_id"] is not None:
            link = f"<a href='/#/replay/{e(m['match_id'])}'>{e(m['match_id'])}</a>"
        else:
            link = e("not played" + (f": {m['error']}" if m["error"] else ""))
        goals = "-" if m["goals"] is None else " ".join(map(str, m["goals"]))
        rows.append((link, e(m["game"]), e(" vs ".join(m["players"])), goals))
    return _table("matches", ("match", "game", "players (role order)", "goals"), rows)


def rating_svg(history: Sequence[dict[str, Any]], names: Sequence[str]) -> str:
    """Each player's rating after k results, as an SVG line chart with axes and a legend."""
    if not history:
        return "<p class='muted'>no results yet</p>"
    values: list[float] = [v for point in history for v in point["ratings"].values()]
    low, high = min(values) - 20, max(values) + 20
    last = int(history[-1]["matches"])

    def x(k: int) -> float:
        return PAD + (WIDTH - 2 * PAD) * (k / last if last else 0)

    def y(v: float) -> float:
        return HEIGHT - PAD + (2 * PAD - HEIGHT) * (v - low) / (high - low)

    out = [
        f"<svg class='ratings' xmlns='http://www.w3.org/2000/svg' width='{WIDTH + 120}' "
        f"height='{HEIGHT}' role='img' aria-label='rating after each result'>",
        f"<line x1='{PAD}' y1='{HEIGHT - PAD}' x2='{WIDTH - PAD}' y2='{HEIGHT - PAD}' "
        "stroke='#999'/>",
        f"<line x1='{PAD}' y1='{PAD}' x2='{PAD}' y2='{HEIGHT - PAD}' stroke='#999'/>",
        f"<text x='{PAD}' y='{HEIGHT - 12}' font-size='12'>0</text>",
        f"<text x='{WIDTH - PAD}' y='{HEIGHT - 12}' font-size='12' text-anchor='end'>"
        f"{last} matches</text>",
        f"<text x='4' y='{y(high - 20):.0f}' font-size='12'>{high - 20:.0f}</text>",
        f"<text x='4' y='{y(low + 20):.0f}' font-size='12'>{low + 20:.0f}</text>",
    ]
    for i, name in enumerate(names):
        colour = COLOURS[i % len(COLOURS)]
        points = " ".join(f"{x(p['matches']):.1f},{y(p['ratings'][name]):.1f}" for p in history)
        out.append(
            f"<polyline fill='none' stroke='{colour}' stroke-width='2' points='{points}'>"
            f"<title>{html.escape(name)}</title></polyline>"
        )
        out.append(
            f"<text x='{WIDTH - PAD + 10}' y='{PAD + 16 * i}' font-size='12' fill='{colour}'>"
            f"{html.escape(name)}</text>"
        )
    return "".join(out) + "</svg>"
