"""The arena: consistent counts, fair role rotation, reproducible runs, the match hook, the CLI."""

from __future__ import annotations

import json

import pytest
from agents.toy_games import Combination, Nim, TicTacToe
from typer.testing import CliRunner

from ggpkit.cli import _load_commands, app
from ggpkit.match.arena import ArenaError, MatchRecord, run_arena, summarize


def test_counts_are_consistent_and_roles_rotate() -> None:
    game = Nim(9)
    records: list[MatchRecord] = []
    result = run_arena(
        game, ["random", "mcts:playouts=30"], 6, seed=5, jobs=1, on_match_done=records.append
    )
    assert len(records) == 6
    for stats in result.stats:
        assert stats.matches == 6
        assert stats.wins + stats.draws + stats.losses == 6
    a, b = result.stats
    assert a.wins == b.losses and a.losses == b.wins  # Nim has no draws
    assert (a.mean_goal + b.mean_goal) == pytest.approx(100.0)
    first_roles = [r.agents[0] for r in sorted(records, key=lambda r: r.index)]
    assert first_roles.count("random") == 3 and first_roles.count("mcts:playouts=30") == 3


def test_records_replay_to_their_goals() -> None:
    game = TicTacToe()
    records: list[MatchRecord] = []
    run_arena(game, ["random", "random"], 4, seed=1, jobs=1, on_match_done=records.append)
    for rec in records:
        assert len(rec.states) == len(rec.moves) + 1
        state = game.initial_state()
        for joint, after in zip(rec.moves, rec.states[1:], strict=True):
            state = game.next_state(state, list(joint))
            assert state == after
        assert game.goals(state) == rec.goals


def test_same_seed_same_matches_in_parallel_too() -> None:
    game = Nim(11)
    runs = []
    for jobs in (1, 2):
        records: list[MatchRecord] = []
        run_arena(
            game, ["mcts:playouts=20", "random"], 4, seed=9, jobs=jobs, on_match_done=records.append
        )
        runs.append(sorted((r.index, r.moves, tuple(r.goals.items())) for r in records))
    assert runs[0] == runs[1]


def test_summary_counts_draws_and_shared_wins() -> None:
    base = dict(game="g", roles=("a", "b"), seed=0, moves=(), states=(), seconds=0.0)
    records = [
        MatchRecord(index=0, agents=("p", "q"), goals={"a": 50, "b": 50}, **base),  # type: ignore[arg-type]
        MatchRecord(index=1, agents=("q", "p"), goals={"a": 100, "b": 0}, **base),  # type: ignore[arg-type]
    ]
    p, q = summarize(["p", "q"], records)
    assert (p.wins, p.draws, p.losses, p.mean_goal) == (0, 1, 1, 25.0)
    assert (q.wins, q.draws, q.losses, q.mean_goal) == (1, 1, 0, 75.0)


def test_wrong_number_of_agents_is_an_error() -> None:
    with pytest.raises(ArenaError, match="give 2 agents, got 3"):
        run_arena(Nim(5), ["random", "random", "random"], 1, jobs=1)


def test_cli_arena_json_and_bad_spec() -> None:
    _load_commands()
    runner = CliRunner()
    out = runner.invoke(
        app, ["arena", "breakthrough-holes", "random", "random", "-n", "2", "-j", "1", "--json"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["matches"] == 2 and [r["agent"] for r in data["results"]] == ["random", "random"]
    assert sum(r["wins"] for r in data["results"]) == 2  # breakthrough always has a winner
    bad = runner.invoke(app, ["arena", "breakthrough-holes", "random", "minimax", "-n", "1"])
    assert bad.exit_code == 2
    assert "unknown agent 'minimax'" in bad.output


def test_one_role_games_win_only_with_the_top_goal() -> None:
    game = Combination("101")
    records: list[MatchRecord] = []
    result = run_arena(game, ["random"], 12, seed=3, jobs=1, on_match_done=records.append)
    (stats,) = result.stats
    perfect = sum(1 for r in records if r.goals["solver"] == 100)
    assert (stats.wins, stats.draws, stats.losses) == (perfect, 0, 12 - perfect)
