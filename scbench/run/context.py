"""What every case runner needs to know about the solution under test."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from scbench.sandbox.base import Sandbox

PLACEHOLDER = re.compile(r"\{(cwd|data|port|host)\}")


@dataclass(frozen=True)
class RunContext:
    """The entry argv, the bundle's data dir and the checkpoint's extra environment; with
    ``solution`` (the directory the entry's paths point into) each case runs a private copy;
    ``sandbox`` (started: it holds the cases' directories) runs every process."""

    entry: list[str]
    data: Path
    env: dict[str, str] = field(default_factory=dict)
    solution: Path | None = None
    sandbox: Sandbox = field(kw_only=True)

    def entry_in(self, copy: Path | None) -> list[str]:
        """The entry argv with paths inside ``solution`` moved into its per-case ``copy``."""
        if copy is None or self.solution is None:
            return self.entry
        return [str(copy / Path(token).relative_to(self.solution)) if Path(token).is_relative_to(self.solution)
                else token for token in self.entry]


def fill(text: str, values: dict[str, str]) -> str:
    """``text`` with ``{cwd}``, ``{data}``, ``{port}``, ``{host}`` replaced from ``values``
    (other braces, as in inline JSON, are left alone)."""
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)
