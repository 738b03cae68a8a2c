"""A griffe extension: ggpkit's docstrings, written in reStructuredText habits, read as Markdown.

The project writes plain prose docstrings with ``literal`` text and Sphinx roles
(``:class:`Limit```, ``:meth:`~ggpkit.agents.base.Agent.start```). mkdocstrings renders
docstrings as Markdown, where a role would show as raw text: each role becomes the code
text it names (the last part of the path where the path starts with ``~``, as Sphinx
shows it), and a paragraph that ends in ``::`` before an indented block ends in ``:``
(the block is already a Markdown code block).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(
    r":(?:py:)?(?:class|meth|func|mod|attr|data|exc|obj|const|ref|term):`(~?)([^`]+)`"
)
LITERAL_INTRO = re.compile(r"(\S)::[ \t]*$", re.MULTILINE)


def _role(match: re.Match[str]) -> str:
    short, target = match.group(1), match.group(2).strip()
    if "<" in target and target.endswith(">"):  # :ref:`text <target>`
        target = target.split("<", 1)[0].strip()
    if short:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def markdown_of(text: str) -> str:
    """``text`` (a docstring) with its reStructuredText roles and ``::`` read as Markdown."""
    return LITERAL_INTRO.sub(r"\1:", ROLE.sub(_role, text))


class RstToMarkdown(griffe.Extension):
    """Rewrites every docstring: when the object is made (every griffe version calls
    this) and once the tree is built (newer ones; the rewrite is idempotent)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_of(obj.docstring.value)

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        self.on_instance(obj=obj)
