"""What one checkpoint of an agent cost: ``usage.json``, and the parsers that read it from an agent's output.

A parser takes the agent's raw standard output (bytes) and returns :class:`Spend`: tokens in (every
input token, cached ones included), tokens out and dollars, each ``None`` where the stream does not
say. Parsers are a table (:data:`PARSERS`); an agent names its parser in ``agents.yaml``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

from pydantic import BaseModel, ConfigDict, Field


class Spend(BaseModel):
    """Tokens in and out and cost in US dollars; ``None`` where unknown."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None


class Usage(Spend):
    """``usage.json``: the spend of one checkpoint, the agent's wall time in seconds, and the
    parser that read the spend (``none``: the agent's output says nothing of it)."""

    wall_s: float | None = Field(None, description="wall-clock seconds the agent ran")
    parser: str = "none"


def json_lines(output: bytes) -> Iterator[dict]:
    """The JSON objects of ``output``, one per line; other lines (progress, logs) are passed over."""
    for line in output.decode(errors="replace").splitlines():
        if line.lstrip().startswith("{"):
            try:
                value = json.loads(line)
            except json.JSONDecodeError:  # a line of log text that starts with a brace
                continue
            if isinstance(value, dict):
                yield value


def _total(values: list[int | float]) -> int | float | None:
    return sum(values) if values else None


def claude_code(output: bytes) -> Spend:
    """Claude Code's ``stream-json``: the final ``result`` event carries ``total_cost_usd`` and the
    run's ``usage`` (input, cache creation and cache read tokens are all tokens in)."""
    results = [event for event in json_lines(output) if event.get("type") == "result"]
    if not results:
        return Spend()
    usage = results[-1].get("usage") or {}
    tokens_in = sum(usage.get(key) or 0 for key in ("input_tokens", "cache_creation_input_tokens",
                                                     "cache_read_input_tokens"))
    return Spend(tokens_in=tokens_in, tokens_out=usage.get("output_tokens"), cost_usd=results[-1].get("total_cost_usd"))


def codex(output: bytes) -> Spend:
    """Codex's ``exec --json``: each ``turn.completed`` event carries that turn's ``usage`` (its
    ``input_tokens`` include the cached ones); the stream reports no cost."""
    turns = [event.get("usage") or {} for event in json_lines(output) if event.get("type") == "turn.completed"]
    return Spend(tokens_in=_total([turn.get("input_tokens") or 0 for turn in turns]),
                 tokens_out=_total([turn.get("output_tokens") or 0 for turn in turns]))


def gemini_cli(output: bytes) -> Spend:
    """Gemini CLI's ``stream-json``: the final ``result`` event's ``stats``; no cost."""
    stats = [event.get("stats") or {} for event in json_lines(output) if event.get("type") == "result"]
    return Spend(tokens_in=stats[-1].get("input_tokens"), tokens_out=stats[-1].get("output_tokens")) if stats \
        else Spend()


def opencode(output: bytes) -> Spend:
    """OpenCode's ``run --format json``: each ``step_finish`` event's ``part`` carries its tokens
    (input plus cache reads are tokens in) and its cost."""
    parts = [event.get("part") or {} for event in json_lines(output) if event.get("type") == "step_finish"]
    tokens = [part.get("tokens") or {} for part in parts]
    return Spend(tokens_in=_total([(t.get("input") or 0) + ((t.get("cache") or {}).get("read") or 0) for t in tokens]),
                 tokens_out=_total([t.get("output") or 0 for t in tokens]),
                 cost_usd=_total([part.get("cost") or 0.0 for part in parts]))


PARSERS: dict[str, Callable[[bytes], Spend]] = {
    "none": lambda output: Spend(),
    "claude-code": claude_code,
    "codex": codex,
    "gemini-cli": gemini_cli,
    "opencode": opencode,
}
"""Usage parser name (``usage`` in ``agents.yaml``) -> parser of an agent's standard output."""
