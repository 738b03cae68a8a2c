"""A board view drawn as one standalone SVG document (notebooks, files, reports).

The web app draws the same board view (:func:`~ggpkit.games.board.layout.board_view`) in
the browser with its style sheet; a notebook has no style sheet, so here every colour
is written on the element itself. Each drawn cell carries ``data-cell`` (its key, as the
facts name it) and each drawn piece ``data-content`` (the content word), so a reader or
a test can find what was drawn without parsing the picture.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

CELL = 60
"""Side of one cell, in SVG units (the browser's board uses the same)."""
MARGIN = 24
"""Room for the coordinates on the left and below."""
LINE = 18
"""Height of one line of text under the board (the facts a board does not show)."""

_SQUARE = {"grid": "#e5e7eb", "light": "#f0d9b5", "dark": "#b58863"}
_INK = "#1f2933"


def _attrs(values: Mapping[str, object]) -> str:
    return " ".join(f"{k}={quoteattr(str(v))}" for k, v in values.items())


def _element(tag: str, body: str = "", **values: object) -> str:
    named = {k.rstrip("_").replace("_", "-"): v for k, v in values.items()}
    return f"<{tag} {_attrs(named)}>{body}</{tag}>" if body else f"<{tag} {_attrs(named)}/>"


def _contrast(colour: str) -> str:
    """Dark or white text, whichever reads on ``colour`` (``#rrggbb``)."""
    try:
        n = int(colour.lstrip("#"), 16)
    except ValueError:
        return _INK
    light = ((n >> 16) & 255) * 0.3 + ((n >> 8) & 255) * 0.59 + (n & 255) * 0.11 > 150
    return _INK if light else "#ffffff"


def _text(value: str, x: float, y: float, size: int, fill: str = _INK, weight: int = 400) -> str:
    return _element(
        "text",
        escape(value),
        x=x,
        y=y,
        font_size=size,
        font_weight=weight,
        fill=fill,
        text_anchor="middle",
        font_family="sans-serif",
    )


def _piece(content: str, style: Mapping[str, str]) -> str:
    """One piece, centred in its cell, by shape: disc, chess glyph, mark or number."""
    mid = CELL / 2
    shape, colour, label = style.get("shape"), style.get("color", _INK), style.get("label", "")
    parts: list[str] = []
    if shape == "disc":
        parts.append(
            _element(
                "circle",
                cx=mid,
                cy=mid,
                r=CELL * 0.36,
                fill=colour,
                stroke="#00000088",
                stroke_width=1.5,
            )
        )
        if label:
            parts.append(_text(label, mid, mid + 7, 20, _contrast(colour), 700))
    elif shape == "glyph":
        parts.append(
            _text(label, mid, mid + 16, 46, "#111827" if colour != "#f5f5f4" else "#f9fafb")
        )
    elif shape == "mark":
        parts.append(_text(label, mid, mid + 14, 40, colour, 800))
    else:  # a number, or anything new: its label as text
        parts.append(_text(label or content, mid, mid + 9, 26, _INK, 700))
    return _element("g", "".join(parts), class_="piece", data_content=content)


def _square(cell: Mapping[str, Any], look: str) -> str:
    if cell["void"]:
        return ""  # a hole in the board: nothing drawn
    if look == "holes":
        return _element(
            "circle",
            cx=CELL / 2,
            cy=CELL / 2,
            r=CELL * 0.4,
            fill="#5b3413",
            stroke="#3b200a",
            stroke_width=2,
        )
    if look == "checkered":
        dark = cell["shade"] and cell["playable"]
        fill = _SQUARE["dark" if dark else "light"]
        return _element("rect", width=CELL, height=CELL, fill=fill)
    return _element("rect", width=CELL, height=CELL, fill=_SQUARE["grid"], stroke="#00000022")


def _cell(cell: Mapping[str, Any], look: str, styles: Mapping[str, Mapping[str, str]]) -> str:
    content = cell["content"]
    style = styles.get(content) if content else None
    body = _square(cell, look)
    if content and style is not None and style.get("shape") != "hole":
        body += _piece(content, style)
    where = f"translate({cell['x'] * CELL},{cell['y'] * CELL})"
    return _element("g", body or " ", transform=where, data_cell=cell["key"])


def board_svg(view: Mapping[str, Any], caption: Sequence[str] = ()) -> str:
    """The SVG document of a board view, with ``caption`` lines under it (the facts the
    board does not show, whose turn it is)."""
    width, height = view["width"] * CELL, view["height"] * CELL
    look = view["look"]
    parts = []
    if look == "holes":
        parts.append(
            _element(
                "rect",
                x=-4,
                y=-4,
                width=width + 8,
                height=height + 8,
                rx=18,
                fill="#c08a4e",
                stroke="#7c4a1e",
                stroke_width=3,
            )
        )
    for col in view["cols"]:
        parts.append(_text(col["text"], col["at"] * CELL + CELL / 2, height + 18, 14, "#6b7280"))
    for row in view["rows"]:
        parts.append(_text(row["text"], -12, row["at"] * CELL + CELL / 2 + 5, 14, "#6b7280"))
    parts.extend(_cell(cell, look, view["styles"]) for cell in view["cells"])
    top = height + MARGIN + 6
    for i, line in enumerate(caption):
        parts.append(
            _element(
                "text",
                escape(line),
                x=0,
                y=top + LINE * (i + 1),
                font_size=14,
                fill=_INK,
                font_family="monospace",
            )
        )
    total_height = top + LINE * len(caption) + (6 if caption else 0)
    box = f"{-MARGIN} -4 {width + MARGIN + 4} {total_height + 4}"
    return _document(box, width + MARGIN + 4, total_height + 4, "".join(parts))


def facts_svg(lines: Sequence[str]) -> str:
    """A state with no board, as its facts one per line."""
    width = max([len(line) for line in lines] + [10]) * 8.5 + 16
    height = LINE * len(lines) + 16
    texts = "".join(
        _element(
            "text",
            escape(line),
            x=8,
            y=LINE * (i + 1),
            font_size=14,
            fill=_INK,
            font_family="monospace",
        )
        for i, line in enumerate(lines)
    )
    return _document(f"0 0 {width} {height}", width, height, texts)


def _document(box: str, width: float, height: float, body: str) -> str:
    head = _attrs(
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": box,
            "width": round(width),
            "height": round(height),
        }
    )
    return f"<svg {head}>{body}</svg>"
