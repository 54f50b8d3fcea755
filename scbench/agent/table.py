"""Agents as data: ``agents.yaml`` read into :class:`Agent` entries, and the command of one checkpoint.

An agent is a command template plus what it needs: its credentials and settings (variables passed
by name), its time limit per checkpoint, the parser of its usage (tokens, cost) and the form of its
output. ``--agent-command`` makes a one-off :class:`Agent` from a template.
"""

from __future__ import annotations

import os
import shlex
import string
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

BUILTINS = Path(__file__).parent
"""Where built-in agents' scripts live (``{builtins}``)."""
PLACEHOLDERS = frozenset({"prompt_file", "workspace", "checkpoint", "model", "python", "builtins", "snapshots"})
"""The names a command template may use in braces."""


class Agent(BaseModel):
    """One entry of ``agents.yaml`` (the file's header comment documents each field)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    command: str
    stdin: bool = False
    secrets: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    timeout_s: float = Field(7200, gt=0)
    usage: str = "none"
    output: Literal["jsonl", "text"] = "text"
    hosts: tuple[str, ...] = ()
    settings: dict[str, str] = Field(default_factory=dict)
    checkpoint_cost_limit_usd: float | None = Field(None, ge=0)
    package: str | None = None
    version: str | None = None
    registry: Literal["npm", "pypi"] = "npm"

    def harness(self) -> str | None:
        """The pinned harness, ``package@version`` (``None`` for an agent with no package)."""
        return f"{self.package}@{self.version}" if self.package else None

    def placeholders(self) -> set[str]:
        """The placeholder names the command uses. Raises ``ValueError`` on a malformed template."""
        return {name for _, name, _, _ in string.Formatter().parse(self.command) if name is not None}

    def missing_secrets(self) -> str:
        """Why the agent cannot start for want of a credential (``""`` when one is set or none is needed)."""
        if not self.secrets or any(os.environ.get(name) for name in self.secrets):
            return ""
        return f"set one of these environment variables: {', '.join(self.secrets)}"

    def argv(self, values: dict[str, str], roots: list[Path]) -> tuple[list[str], list[Path]]:
        """The command's words with ``values`` filled in, and the host paths to show read-only in
        the sandbox: a word that is the relative path of an existing file (a script, relative to
        scbench's working directory) becomes absolute and is shown, and so is a word naming an
        existing path inside one of ``roots`` (built-ins' scripts, the snapshots they replay).
        Other directories are never shown this way: ``.`` would show scbench's own directory,
        the problem's cases with it."""
        argv, shown = [], []
        for word in (part.format_map(values) for part in shlex.split(self.command)):
            if not os.path.isabs(word) and os.path.isfile(word):
                word = os.path.abspath(word)
                shown.append(Path(word))
            elif os.path.exists(word) and any(Path(word).is_relative_to(root) for root in roots):
                shown.append(Path(word))
            argv.append(word)
        return argv, shown


@cache
def agents() -> dict[str, Agent]:
    """Agent name -> :class:`Agent`, from ``scbench/agent/agents.yaml``."""
    raw = yaml.load((BUILTINS / "agents.yaml").read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    return {name: Agent.model_validate(entry) for name, entry in raw.items()}


def problems_of(agent: Agent) -> list[str]:
    """What is wrong with ``agent``'s entry: unknown placeholders, a template that does not
    split into words, an unknown usage parser, a package without a version. Empty when it can run."""
    from scbench.harness.formats import FORMATS
    try:
        shlex.split(agent.command)
        unknown = agent.placeholders() - PLACEHOLDERS
    except ValueError as error:
        return [f"the command {agent.command!r} is malformed: {error}"]
    found = [f"unknown placeholder {{{name}}} (known: {', '.join(sorted(PLACEHOLDERS))})" for name in sorted(unknown)]
    if agent.usage not in FORMATS:
        found.append(f"unknown usage parser {agent.usage!r} (known: {', '.join(FORMATS)})")
    if agent.package and not agent.version:
        found.append(f"the package {agent.package} is not pinned: give its version")
    return found
