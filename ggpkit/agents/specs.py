"""Agent specs: one short text names an agent and its settings, everywhere agents are chosen.

``random``, ``mcts``, ``mcts:time=2``, ``mcts:playouts=1000,c=1.4``, ``alphabeta:depth=6``,
``alphabeta:time=1``, ``solver``, ``human``. The limits in a spec (``time``, ``playouts``,
``depth``) become the agent's own :class:`~ggpkit.agents.base.Limit`; a caller's limit
(a match clock) still applies on top, the stricter one winning.

Agents written elsewhere (random, human, solver) are imported by module path only when
asked for, so a missing or broken one is a clear :class:`SpecError`, not an import crash
of everything that lists agents.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ggpkit.agents.base import Agent, Limit
from ggpkit.errors import GgpkitError


class SpecError(GgpkitError, ValueError):
    """An agent spec that names no agent or gives an option the agent does not have."""

    def __init__(self, spec: str, reason: str) -> None:
        super().__init__(f"bad agent spec {spec!r}: {reason}")
        self.spec = spec
        self.reason = reason


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise ValueError("must be > 0")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise ValueError("must be >= 0")
    return value


def _share(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise ValueError("must be between 0 and 1")
    return value


def _zero_or_one(text: str) -> int:
    if text not in ("0", "1"):
        raise ValueError("must be 0 or 1")
    return int(text)


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise ValueError("must be a whole number > 0")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError("must be a whole number >= 0")
    return value


@dataclass(frozen=True, slots=True)
class _Kind:
    """A registered agent: where it lives and the options its spec accepts."""

    target: str  # "module:Class"
    options: dict[str, Callable[[str], float | int]]
    help: str


_LIMIT_OPTIONS = ("time", "playouts", "depth")

AGENTS: dict[str, _Kind] = {
    "random": _Kind("ggpkit.agents.random_agent:RandomAgent", {}, "uniformly random legal moves"),
    "mcts": _Kind(
        "ggpkit.agents.mcts.agent:MCTSAgent",
        {
            "time": _positive_float,
            "playouts": _positive_int,
            "c": _non_negative_float,
            "leaf": _positive_int,
            "threads": _positive_int,
            "compiled": _zero_or_one,
            "mast": _zero_or_one,
            "grave": _non_negative_int,
            "paths": _positive_int,
            "nodes": _positive_int,
            "goals": _share,
            "material": _share,
            "greedy": _zero_or_one,
            "wins": _zero_or_one,
            "minimax": _share,
            "blunders": _zero_or_one,
            "latches": _zero_or_one,
            "mobility": _share,
            "nested": _share,
            "dfs": _share,
            "ordered": _zero_or_one,
            "monotone": _zero_or_one,
        },
        "UCT Monte Carlo tree search (time s, playouts per move, exploration c: 0.4 "
        "where paths share a batch, else 1.4, "
        "leaf playouts per new node, threads: parallel searches, one per core, "
        "compiled=0: the tree in Python even where the game has a compiled one, "
        "mast=1: compiled-tree playouts choose moves by MAST, grave=N: the compiled tree "
        "selects by GRAVE, a node's all-moves-as-first statistics used from N visits, "
        "paths=N: in games of several roles, the compiled tree's 64-lane leaf batch is shared "
        "by the leaves of N paths (1: one leaf's batch at a time; default: chosen per game "
        "so that a path's playouts cost about what the path does, 4-64), "
        "nodes=N: most nodes the tree holds (default: the compiled tree's share of memory, "
        "200,000 in Python), goals=W: in the compiled tree over paths, a new leaf whose "
        "state gives every role a goal is worth that share (0..1) of those goals, the rest "
        "of its playouts (default: 0.6 where random matches show that mid-game goals "
        "foretell the result, else 0), material=W: where the goal heuristic is off, a new "
        "leaf is worth that share of what the pieces each role won or lost since the root "
        "say, pieces found by random matches (default: 0.5 where piece counts foretell "
        "the results, else 0; 0: off), greedy=1: the compiled tree's playouts on a propnet "
        "take a move that ends the game at its role's best goal and take back one that lets "
        "the next role do so (default 0: uniformly random), wins=0: the compiled tree on "
        "a propnet does not prove a new node where its mover wins in one (default 1: it "
        "tries the moves seen to end a playout so), minimax=W: where a goal or material "
        "heuristic is on, selection mixes that share (0..1) of each move's heuristic value "
        "backed up by minimax over the tree into its mean (implicit minimax backups; "
        "default 0), blunders=0: in the compiled tree, a path that ends in a reply proven "
        "to lose for its mover counts as that loss in the means of the moves above it "
        "(default 1: it adds nothing to them, the mover will not play it), latches=0: "
        "the compiled tree on a propnet does not prove a node whose latched facts (true or "
        "false for good) already settle every role's goal (default 1), mobility=W: where "
        "the goal and material heuristics are off and random matches show it foretells "
        "the results, a new leaf in the compiled tree on a propnet is worth that share "
        "of each role's share of the roles' legal moves (default 0: off; 0.3 was "
        "measured), nested=S: in a one-role game on a propnet, that share (0..1) of each "
        "move's time goes to a nested Monte Carlo search, whose best line is played where "
        "it beats the tree's (default 0), dfs=S: likewise, that share goes first to a "
        "depth-first solver with a transposition table kept for the match (default 0.5; "
        "0: off), ordered=1: that solver tries each state's moves best first by the goal "
        "each leads to (default 0), monotone=1: where random matches never see a one-role "
        "game's goal rise, that solver values a state already at the least goal so at "
        "once (default 1; 0: off))",
    ),
    "alphabeta": _Kind(
        "ggpkit.agents.alphabeta:AlphaBetaAgent",
        {"time": _positive_float, "depth": _positive_int},
        "iterative-deepening alpha-beta for two-player turn-taking games",
    ),
    "solver": _Kind("ggpkit.agents.solvers:SolverAgent", {}, "exact solver (plays perfectly)"),
    "human": _Kind("ggpkit.agents.human:HumanAgent", {}, "asks a person at the terminal"),
}
"""Every agent name a spec may use, with its accepted options."""


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """A parsed spec: the agent name, its limit, and its other options."""

    text: str
    name: str
    limit: Limit = field(default_factory=Limit)
    options: dict[str, float | int] = field(default_factory=dict)


def parse_spec(spec: str) -> AgentSpec:
    """Read ``name[:key=value,...]``; raise :class:`SpecError` listing what is valid."""
    text = spec.strip()
    name, _, rest = text.partition(":")
    name = name.strip()
    if name not in AGENTS:
        raise SpecError(spec, f"unknown agent {name!r}; the agents are {', '.join(AGENTS)}")
    kind = AGENTS[name]
    values: dict[str, float | int] = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, raw = item.partition("=")
            key = key.strip()
            valid = ", ".join(kind.options) or "none"
            if key not in kind.options:
                raise SpecError(spec, f"{name} has no option {key!r}; its options are {valid}")
            if not eq:
                raise SpecError(spec, f"option {key!r} needs a value ({key}=...)")
            if key in values:
                raise SpecError(spec, f"option {key!r} given twice")
            try:
                values[key] = kind.options[key](raw.strip())
            except ValueError as e:
                raise SpecError(spec, f"option {key}={raw.strip()!r}: {e}") from None
    elif rest or text.endswith(":"):
        raise SpecError(spec, "nothing after ':'; give options as key=value,...")
    time = values.pop("time", None)
    playouts = values.pop("playouts", None)
    depth = values.pop("depth", None)
    limit = Limit(
        time=None if time is None else float(time),
        playouts=None if playouts is None else int(playouts),
        depth=None if depth is None else int(depth),
    )
    return AgentSpec(text=text, name=name, limit=limit, options=values)


def _load_class(spec: AgentSpec) -> type[Agent]:
    module_name, class_name = AGENTS[spec.name].target.split(":")
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, class_name)
    except (ImportError, AttributeError) as e:
        raise SpecError(
            spec.text, f"the {spec.name} agent is not available ({module_name}:{class_name}: {e})"
        ) from None
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise SpecError(spec.text, f"{module_name}:{class_name} is not an Agent class")
    return cls


def make_agent(spec: str | AgentSpec, seed: int | None = None) -> Agent:
    """A fresh agent for ``spec``, seeded with ``seed`` when the agent takes one.

    The agent's ``name`` becomes the spec text, so tables show ``mcts:time=2``.
    """
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    cls = _load_class(parsed)
    accepted = inspect.signature(cls).parameters
    kwargs: dict[str, Any] = dict(parsed.options)
    if "seed" in accepted:
        kwargs["seed"] = seed
    if any(getattr(parsed.limit, k) is not None for k in _LIMIT_OPTIONS):
        kwargs["limit"] = parsed.limit
    unknown = [k for k in kwargs if k not in accepted]
    if unknown:
        raise SpecError(parsed.text, f"{cls.__name__} does not take {', '.join(unknown)}")
    agent = cls(**kwargs)
    agent.name = parsed.text
    return agent


def with_threads(spec: str, threads: int) -> str:
    """``spec`` searching on ``threads`` cores, if its agent takes ``threads`` and it is unset."""
    parsed = parse_spec(spec)
    if "threads" not in AGENTS[parsed.name].options or "threads" in parsed.options:
        return spec
    if threads <= 1:
        return spec
    return f"{parsed.text}{',' if ':' in parsed.text else ':'}threads={threads}"


def describe_agents() -> str:
    """One line per agent name with its options, for help texts."""
    lines = []
    for name, kind in AGENTS.items():
        options = ",".join(f"{k}=..." for k in kind.options)
        lines.append(f"{name}{':' + options if options else ''}  {kind.help}")
    return "\n".join(lines)
