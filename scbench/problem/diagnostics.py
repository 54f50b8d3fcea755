"""Located, actionable problems with an author's files: what, where, how to fix."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, replace
from pathlib import Path


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One error in an author's file.

    ``file`` is relative to the problem directory when possible, ``line`` is 1-based (0 when
    the file itself is missing), ``where`` is the dotted/indexed path inside the document
    (``cases[2].expect.stdout``, empty for the whole file); ``hint`` says how to fix it: every
    diagnostic has one.
    """

    file: str
    line: int
    where: str
    message: str
    hint: str

    def render(self) -> str:
        """``file:line: where: message`` and an indented ``fix:`` line."""
        return f"{location(self.file, self.line)}: {self.where + ': ' if self.where else ''}{self.message}\n" \
               f"    fix: {self.hint}"


class ProblemError(Exception):
    """Raised when a problem does not compile; carries every diagnostic found, sorted."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))


def location(file: str, line: int) -> str:
    """``file:line``, or ``file`` alone for line 0 (the whole file)."""
    return f"{file}:{line}" if line else file


def where_of(path: tuple) -> str:
    """Render a document path (``("cases", 2, "expect")``) as ``cases[2].expect``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when it lies inside it, else as given."""
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def from_here(path: str, base: Path) -> str:
    """``path`` (relative to ``base``, or absolute) as a user opens it from the working directory."""
    return os.path.relpath(base / path)


def rebased(diagnostics: list[Diagnostic], base: Path) -> list[Diagnostic]:
    """``diagnostics`` whose files are relative to ``base`` (or absolute), each with its file as a
    path from the working directory: what a user can open."""
    return [replace(diagnostic, file=from_here(diagnostic.file, base)) for diagnostic in diagnostics]


def did_you_mean(word: str, known: list[str]) -> str:
    """``did you mean 'x'?`` for the closest of ``known`` to an unknown ``word``; ``""`` when none is close."""
    close = difflib.get_close_matches(word, known, n=1)
    return f"did you mean {close[0]!r}?" if close else ""
