"""A lint finding: where, what, why it matters and how to fix it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from scbench.problem.diagnostics import location

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Finding:
    """One problem found in a problem's files.

    ``file`` is relative to the problem directory, ``line`` is 1-based (0 when the finding is
    about the whole file), ``text`` is the offending excerpt, ``why`` says which design rule
    it breaks and ``fix`` how to rephrase or repair it.
    """

    file: str
    line: int
    rule: str
    severity: Severity
    text: str
    why: str
    fix: str

    def render(self) -> str:
        """``file:line: severity[rule]: text`` then indented ``why:`` and ``fix:`` lines."""
        return (f"{location(self.file, self.line)}: {self.severity}[{self.rule}]: {self.text}\n    why: {self.why}\n"
                f"    fix: {self.fix}")
