"""A spec's markdown split into what lint needs: prose lines, fenced blocks, their labels.

A fenced block's *label* is the nearest non-blank line above it when that line ends with
``:`` (``Run:``, ``Output:``, ```rules.json`:``); HTML comments in between are collected as
the block's *directives* (``<!-- example-files: data/x -> repo -->``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+#-]*)")
COMMENT = re.compile(r"^\s*<!--\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Line:
    """One prose line (outside fenced blocks), 1-based."""

    number: int
    text: str


@dataclass(frozen=True)
class Block:
    """A fenced block: its opening line (1-based), info-string language, body lines, label."""

    line: int
    language: str
    body: list[str]
    label: str = ""
    directives: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.body)


@dataclass(frozen=True)
class Document:
    """Prose lines and fenced blocks of one markdown file, in order."""

    prose: list[Line]
    blocks: list[Block]


def _label(prose: list[Line], opening: int, floor: int) -> tuple[str, list[str]]:
    """The label line and the HTML-comment directives between line ``floor`` and line ``opening``."""
    directives = []
    for line in reversed(prose):
        if line.number <= floor:
            break
        if line.number >= opening or not line.text.strip():
            continue
        comment = COMMENT.match(line.text)
        if comment:
            directives.insert(0, comment.group(1))
            continue
        return (line.text.strip() if line.text.rstrip().endswith(":") else ""), directives
    return "", directives


def parse(text: str) -> Document:
    """Split markdown ``text`` into prose lines and fenced blocks (an unclosed fence runs to the end)."""
    prose: list[Line] = []
    blocks: list[Block] = []
    opened: tuple[int, str, str] | None = None
    body: list[str] = []
    closed = 0
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if opened is None and fence:
            opened, body = (number, fence.group(1), fence.group(2).lower()), []
        elif opened is not None and fence and fence.group(1).startswith(opened[1]) and not fence.group(2):
            blocks.append(Block(opened[0], opened[2], body, *_label(prose, opened[0], closed)))
            opened, closed = None, number
        elif opened is not None:
            body.append(line)
        else:
            prose.append(Line(number, line))
    if opened is not None:
        blocks.append(Block(opened[0], opened[2], body, *_label(prose, opened[0], closed)))
    return Document(prose, blocks)
