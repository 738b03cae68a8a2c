"""MkDocs hook: the reference pages' generated parts, made from the code at build time.

A page asks for a part with a comment on a line of its own, which this hook replaces
by Markdown:

- ``<!-- generated: cli -->``: every ``ggpkit`` command and subcommand, walked from the
  Typer app's click command tree: usage, help text, arguments and options with their
  types and defaults.
- ``<!-- generated: web-api -->``: every route of the web app's OpenAPI document
  (``ggpkit.web.app.create_app(...).openapi()``), with methods, parameters, request
  bodies and response shapes, then the schemas they name.
- ``<!-- generated: agent-specs -->``: the agent names a spec may use
  (``ggpkit.agents.specs.AGENTS``) with their options.

Nothing here is copied by hand, so these pages cannot drift from the code.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from griffe_rst import markdown_of  # beside this file; MkDocs puts its folder on sys.path

MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.MULTILINE)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    def part(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise ValueError(f"{page.file.src_uri}: no generated part named {name!r}")
        return GENERATORS[name]()

    return MARKER.sub(part, markdown)


# ---- text helpers ------------------------------------------------------------------------

CODE_SPAN = re.compile(r"(``.+?``|`[^`]+`)")


def prose(text: str) -> str:
    """Help or docstring text as Markdown: reStructuredText roles and ``::`` read as in the
    API pages, ``<`` and ``>`` outside code escaped (``IL <move>`` is no HTML tag)."""
    text = markdown_of(text)
    parts = CODE_SPAN.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;")
    return "".join(parts)


def cell(text: str) -> str:
    """``text`` fit for one cell of a Markdown table."""
    return prose(" ".join(text.split())).replace("|", "\\|")


def paragraphs(text: str) -> str:
    """A help text's paragraphs (blank-line separated) with their lines joined."""
    blocks = [b for b in re.split(r"\n\s*\n", text.strip()) if b.strip()]
    out = []
    for block in blocks:
        lines = [ln.strip() for ln in block.splitlines() if ln.strip() != "\b"]
        out.append(prose(" ".join(lines)))
    return "\n\n".join(out)


# ---- the command line --------------------------------------------------------------------


def _context(command: Any, name: str, parent: Any = None) -> Any:
    """A click context for ``command`` (Typer's own click or the click package alike)."""
    return command.context_class(command, info_name=name, parent=parent)


def _commands() -> Iterator[tuple[list[str], Any, Any]]:
    """Every command as (its words, the command, its context), depth first, in the app's
    order. Duck-typed: newer Typers carry a click of their own, whose classes are not
    the click package's."""
    import typer

    from ggpkit.cli import _load_commands, app

    _load_commands()
    root = typer.main.get_command(app)

    def walk(words: list[str], command: Any, parent: Any) -> Iterator[tuple[list[str], Any, Any]]:
        ctx = _context(command, " ".join(words), parent)
        yield words, command, ctx
        if hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None and not getattr(sub, "hidden", False):
                    yield from walk([*words, name], sub, ctx)

    yield from walk(["ggpkit"], root, None)


def cli_commands() -> list[str]:
    """The full name of every command, ``ggpkit`` first (the site's test reads this too)."""
    return [" ".join(words) for words, _, _ in _commands()]


def _type_text(param: Any, ctx: Any) -> str:
    """The value's type as ``--help`` shows it (``int``, ``path``...), with its bounds."""
    if hasattr(param, "display_type"):
        text = str(param.display_type(ctx)).strip("<>")
    else:
        text = str(getattr(param.type, "name", "value"))
    bounds = []
    for attr, symbol in (("min", ">="), ("max", "<=")):
        value = getattr(param, attr, None)
        if value is None:
            value = getattr(getattr(param, "type", None), attr, None)
        if value is not None:
            bounds.append(f"{symbol} {value}")
    text = text.replace(" range", "")
    return f"{text} ({', '.join(bounds)})" if bounds else text


def _param_row(param: Any, ctx: Any) -> str:
    is_argument = param.param_type_name == "argument"
    flag = bool(getattr(param, "is_flag", False))
    if is_argument:
        name = f"`{param.name.upper()}`"
        kind = "argument"
    else:
        names = [*param.opts, *param.secondary_opts]
        name = " / ".join(f"`{n}`" for n in names)
        kind = "flag" if flag else "option"
    shown_type = "" if flag else _type_text(param, ctx)
    if param.multiple and not flag:
        shown_type += ", repeatable"
    elif is_argument and param.nargs == -1:
        shown_type = shown_type.removeprefix("list[").removesuffix("]") + ", one or more"
    default = param.get_default(ctx, call=False)
    if param.required:
        shown = "required"
    elif default is None or default == () or callable(default):
        shown = ""
    elif isinstance(default, bool):
        shown = f"`{str(default).lower()}`"
    else:
        shown = f"`{default}`"
    help_text = getattr(param, "help", None) or ""
    described = f"{kind}: {shown_type}" if shown_type else kind
    return f"| {name} | {cell(described)} | {shown} | {cell(help_text)} |"


def cli_reference() -> str:
    out: list[str] = []
    for words, command, ctx in _commands():
        level = "#" * min(len(words) + 1, 4)
        title = " ".join(words)
        out.append(f"{level} `{title}`\n")
        usage = " ".join(command.collect_usage_pieces(ctx))
        out.append(f"```text\n{title} {usage}\n```\n")
        if command.help:
            out.append(paragraphs(command.help) + "\n")
        params = [
            p
            for p in command.get_params(ctx)
            if not getattr(p, "hidden", False) and "--help" not in getattr(p, "opts", ())
        ]
        if params:
            out.append("| name | kind | default | description |")
            out.append("|---|---|---|---|")
            out.extend(_param_row(p, ctx) for p in params)
            out.append("")
        if hasattr(command, "list_commands"):
            subs = command.list_commands(ctx)
            if subs:
                listed = ", ".join(f"[`{title} {s}`](#{_slug(title + ' ' + s)})" for s in subs)
                out.append(f"Commands: {listed}.\n")
    return "\n".join(out)


def _slug(title: str) -> str:
    """The id MkDocs' toc gives a heading ``title`` written as code."""
    from markdown.extensions.toc import slugify

    return str(slugify(title, "-"))


# ---- the web JSON API --------------------------------------------------------------------


def _openapi() -> dict[str, Any]:
    from ggpkit.web.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        # The store is opened at start-up (lifespan), which openapi() does not run.
        spec: dict[str, Any] = create_app(Path(tmp) / "matches.sqlite3").openapi()
    return spec


def _type(schema: dict[str, Any]) -> str:
    """A schema as a short text: ``string``, ``list of string``, ``NewSession``..."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in schema:
        return " or ".join(_type(s) for s in schema["anyOf"])
    kind = schema.get("type")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            return f"object of {_type(extra)}"
        return "object"
    if kind == "null":
        return "null"
    if kind is None:
        return "any"
    bounds = [
        f"{symbol} {schema[key]}"
        for key, symbol in (
            ("minimum", ">="),
            ("exclusiveMinimum", ">"),
            ("maximum", "<="),
            ("exclusiveMaximum", "<"),
        )
        if key in schema
    ]
    return f"{kind} ({', '.join(bounds)})" if bounds else str(kind)


def web_api_reference() -> str:
    spec = _openapi()
    out: list[str] = []
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            out.append(f"### `{method.upper()} {path}`\n")
            text = op.get("description") or op.get("summary") or ""
            if text:
                out.append(paragraphs(text) + "\n")
            params = op.get("parameters", [])
            if params:
                out.append("| parameter | in | type | required | description |")
                out.append("|---|---|---|---|---|")
                for p in params:
                    required = "yes" if p.get("required") else "no"
                    described = p.get("description", "") or p.get("schema", {}).get(
                        "description", ""
                    )
                    out.append(
                        f"| `{p['name']}` | {p['in']} | {cell(_type(p.get('schema', {})))} "
                        f"| {required} | {cell(described)} |"
                    )
                out.append("")
            body = op.get("requestBody")
            if body:
                kinds = body.get("content", {})
                for media, content in kinds.items():
                    out.append(f"Request body (`{media}`): {_type(content.get('schema', {}))}.\n")
            out.append("| status | meaning | body |")
            out.append("|---|---|---|")
            for status, response in op.get("responses", {}).items():
                content = response.get("content", {})
                shape = "; ".join(
                    f"`{media}`: {_type(c.get('schema', {}))}" for media, c in content.items()
                )
                out.append(f"| {status} | {cell(response.get('description', ''))} | {shape} |")
            out.append("")
    schemas = spec.get("components", {}).get("schemas", {})
    if schemas:
        out.append("## Schemas\n")
        for name, schema in schemas.items():
            out.append(f"### {name}\n")
            if schema.get("description"):
                out.append(paragraphs(schema["description"]) + "\n")
            props = schema.get("properties", {})
            required = set(schema.get("required", []))
            if props:
                out.append("| field | type | required | default |")
                out.append("|---|---|---|---|")
                for field, fs in props.items():
                    default = f"`{fs['default']}`" if "default" in fs else ""
                    out.append(
                        f"| `{field}` | {cell(_type(fs))} | "
                        f"{'yes' if field in required else 'no'} | {cell(default)} |"
                    )
                out.append("")
    return "\n".join(out)


# ---- agent specs -------------------------------------------------------------------------


def agent_specs() -> str:
    """One entry per agent name: what it is, then each option with its help and default,
    read from the same tables the spec parser and ``--help`` read."""
    from ggpkit.agents.specs import AGENTS, LIMITS

    out: list[str] = []
    for name, kind in AGENTS.items():
        settings = getattr(kind, "settings", None)
        summary = kind.help.split(" (", 1)[0] if settings is not None else kind.help
        out.append(f"`{name}`")
        out.append(f":   {prose(summary[:1].upper() + summary[1:])}.")
        lines = [f"{key}={LIMITS[key][1]}" for key in kind.options if key in LIMITS]
        if settings is not None:
            from ggpkit.search.options import help_lines

            lines += help_lines(settings)
        elif len(lines) < len(kind.options):
            lines += [f"{key}=..." for key in kind.options if key not in LIMITS]
        if lines:
            out.append("")
            for line in lines:
                option, _, text = line.partition(": ") if ": " in line else (line, "", "")
                described = f": {prose(text)}" if text else ""
                out.append(f"    - `{option}`{described}")
        out.append("")
    return "\n".join(out) + "\n"


GENERATORS: dict[str, Callable[[], str]] = {
    "cli": cli_reference,
    "web-api": web_api_reference,
    "agent-specs": agent_specs,
}
