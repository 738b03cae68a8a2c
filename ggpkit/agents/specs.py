"""Agent specs: one short text names an agent and its settings, everywhere agents are chosen.

``random``, ``mcts``, ``mcts:time=2``, ``mcts:playouts=1000,c=1.4``, ``alphabeta:depth=6``,
``alphabeta:time=1``, ``solver``, ``human``, ``az:model=PATH,time=1``. The limits in a
spec (``time``, ``playouts``, ``depth``) become the agent's own
:class:`~ggpkit.agents.base.Limit`; a caller's limit (a match clock) still applies on
top, the stricter one winning.

Agents written elsewhere (random, human, solver) are imported by module path only when
asked for, so a missing or broken one is a clear :class:`SpecError`, not an import crash
of everything that lists agents.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ggpkit.agents.base import Agent, Limit
from ggpkit.agents.mcts.options import MCTSOptions
from ggpkit.errors import GgpkitError
from ggpkit.search.options import (
    Parser,
    SearchOptions,
    help_lines,
    parsers,
    positive_float,
    positive_int,
)


class SpecError(GgpkitError, ValueError):
    """An agent spec that names no agent or gives an option the agent does not have."""

    def __init__(self, spec: str, reason: str) -> None:
        super().__init__(f"bad agent spec {spec!r}: {reason}")
        self.spec = spec
        self.reason = reason


LIMITS: dict[str, tuple[Parser, str]] = {
    "time": (positive_float, "S: seconds a move"),
    "playouts": (positive_int, "N: playouts a move"),
    "depth": (positive_int, "N: plies a move"),
}
"""The options that become the agent's own :class:`Limit`, with their parsers and help."""

OptionParser = Callable[[str], float | int | bool | str]
"""Reads an option's text: a number for most options, a path for ``az``'s ``model``."""


def path_text(text: str) -> str:
    """A file path as given (checked when the agent starts, where its errors are typed)."""
    if not text:
        raise ValueError("must name a file")
    return text


@dataclass(frozen=True, slots=True)
class _Kind:
    """A registered agent: where it lives and the options its spec accepts."""

    target: str  # "module:Class"
    options: Mapping[str, OptionParser]
    help: str
    settings: type[SearchOptions] | None = None
    """The options object the agent takes as ``options``, made of the spec's options
    other than its limits (None: they are the agent's keyword arguments)."""
    agent_class: type[Agent] | None = None
    """The class itself, for agents registered from Python (a class in a notebook or a
    script has no module path to import it by)."""


def _settings_kind(
    target: str, summary: str, limits: tuple[str, ...], settings: type[SearchOptions]
) -> _Kind:
    """A kind whose options are ``limits`` and the fields of ``settings``: their parsers
    and help are read from there (see :mod:`ggpkit.search.options`)."""
    options = {k: LIMITS[k][0] for k in limits} | parsers(settings)
    described = [f"{k}={LIMITS[k][1]}" for k in limits] + help_lines(settings)
    return _Kind(target, options, f"{summary} ({', '.join(described)})", settings)


def _hidden_kinds() -> dict[str, _Kind]:
    """The searches from views, for games of imperfect information (GDL-II): their
    options are their constructors' keywords (see :mod:`ggpkit.agents.hidden`)."""
    limits: dict[str, OptionParser] = {k: LIMITS[k][0] for k in ("time", "playouts")}
    bag: dict[str, OptionParser] = {"bag": positive_int}
    tree = bag | {"c": positive_float, "opponents": _flag_int}
    said = "time=S: seconds a move, playouts=N: playouts a move, bag=N: sampled histories kept"
    tree_said = (
        f"{said} (default: 16), c=C: UCB constant (default: 0.7), opponents=1: each opponent"
        " learns to play by UCB in states of its own information set (in the searcher's where"
        " none can be drawn), 0: random (default: 1)"
    )
    hidden = "ggpkit.agents.hidden"
    return {
        "ismcts": _Kind(
            f"{hidden}.ismcts:ISMCTSAgent",
            limits | tree,
            f"Information Set MCTS over sampled histories, for hidden information ({tree_said})",
        ),
        "hyperplay": _Kind(
            f"{hidden}.hyperplay:HyperPlayAgent",
            limits | bag,
            "HyperPlay: flat Monte Carlo in each sampled history, weighted, for hidden "
            f"information ({said} (default: 16))",
        ),
        "blind": _Kind(
            f"{hidden}.blind:BlindAgent",
            limits | tree,
            f"baseline: Information Set MCTS that ignores its percepts ({tree_said})",
        ),
        "infoset-solver": _Kind(
            f"{hidden}.exact:InfosetSolverAgent",
            {"nodes": positive_int},
            "exact expectimax over information sets, one seat against nature (nodes=N: "
            "most information sets, default: 20000)",
        ),
    }


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError("must be between 0 and 1")
    return value


def _flag_int(text: str) -> int:
    if text not in ("0", "1"):
        raise ValueError("must be 0 or 1")
    return int(text)


AGENTS: dict[str, _Kind] = {
    "random": _Kind("ggpkit.agents.random_agent:RandomAgent", {}, "uniformly random legal moves"),
    "mcts": _settings_kind(
        "ggpkit.agents.mcts.agent:MCTSAgent",
        "UCT Monte Carlo tree search",
        ("time", "playouts"),
        MCTSOptions,
    ),
    "alphabeta": _Kind(
        "ggpkit.agents.alphabeta:AlphaBetaAgent",
        {"time": LIMITS["time"][0], "depth": LIMITS["depth"][0]},
        "iterative-deepening alpha-beta for two-player turn-taking games",
    ),
    "solver": _Kind("ggpkit.agents.solvers:SolverAgent", {}, "exact solver (plays perfectly)"),
    "human": _Kind("ggpkit.agents.human:HumanAgent", {}, "asks a person at the terminal"),
    "az": _Kind(
        "ggpkit.agents.learned.agent:AZAgent",
        {"model": path_text, "time": LIMITS["time"][0], "playouts": LIMITS["playouts"][0]},
        "PUCT guided by a network learned by `ggpkit train` (needs the learn extra; "
        "model=PATH: the model file, time=S: seconds a move, playouts=N: simulations a move)",
    ),
    "hybrid": _Kind(
        "ggpkit.agents.learned.hybrid:HybridAgent",
        {
            "model": path_text,
            "time": LIMITS["time"][0],
            "playouts": LIMITS["playouts"][0],
            "weight": _share,
        },
        "ggpkit's MCTS whose root moves are judged partly by a network learned by `ggpkit"
        " train` (needs the learn extra; model=PATH: the model file, time=S: seconds a move,"
        " playouts=N: playouts a move, weight=W: the network's share of a move's worth,"
        " default 0.5)",
    ),
    **_hidden_kinds(),
}
"""Every agent name a spec may use, with its accepted options."""


def register_agent(name: str, agent: type[Agent], help: str = "") -> None:
    """Make ``name`` a spec for an agent class of your own, everywhere specs are read in
    this process (the arena, matches, tournaments run from Python).

    Where the class's constructor takes a ``limit``, its spec takes the limits ``time``,
    ``playouts`` and ``depth``; it gets a ``seed`` where it takes one. A name already used
    by another agent is refused, so that ``mcts`` always means ggpkit's MCTS.
    """
    if not (isinstance(agent, type) and issubclass(agent, Agent)):
        raise SpecError(name, f"{agent!r} is not an Agent class")
    if not name or ":" in name or "," in name or "=" in name:
        raise SpecError(name, "an agent name is a word without ':', ',' or '='")
    if name in AGENTS and AGENTS[name].target != _target_of(agent):
        raise SpecError(name, f"the name {name!r} is taken")
    takes_limit = "limit" in inspect.signature(agent).parameters
    options = {k: parse for k, (parse, _) in LIMITS.items()} if takes_limit else {}
    summary = help or (agent.__doc__ or name).strip()
    AGENTS[name] = _Kind(_target_of(agent), options, summary, agent_class=agent)


def _target_of(agent: type[Agent]) -> str:
    return f"{agent.__module__}:{agent.__qualname__}"


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """A parsed spec: the agent name, its limit, and its other options."""

    text: str
    name: str
    limit: Limit = field(default_factory=Limit)
    options: dict[str, float | int | str] = field(default_factory=dict)


def parse_spec(spec: str) -> AgentSpec:
    """Read ``name[:key=value,...]``; raise :class:`SpecError` listing what is valid."""
    text = spec.strip()
    name, _, rest = text.partition(":")
    name = name.strip()
    if name not in AGENTS:
        raise SpecError(spec, f"unknown agent {name!r}; the agents are {', '.join(AGENTS)}")
    kind = AGENTS[name]
    values: dict[str, float | int | str] = {}
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
    registered = AGENTS[spec.name].agent_class
    if registered is not None:
        return registered
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
    given: dict[str, Any] = dict(parsed.options)
    settings = AGENTS[parsed.name].settings
    kwargs: dict[str, Any] = given if settings is None else {"options": settings(**given)}
    if "seed" in accepted:
        kwargs["seed"] = seed
    if any(getattr(parsed.limit, k) is not None for k in LIMITS):
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
