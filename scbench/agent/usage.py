"""The parsers that read what one checkpoint of an agent cost (``usage.json``, :class:`scbench.rundir.Usage`)
from the agent's output.

A parser takes the agent's raw standard output (bytes) and returns :class:`Spend`: tokens in (every
input token, cached ones included), tokens out and dollars, each ``None`` where the stream does not
say. Parsers are a table (:data:`PARSERS`); an agent names its parser in ``agents.yaml``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

from scbench.rundir import Spend


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


def number(event: dict, path: str) -> float:
    """The number at the dotted ``path`` of ``event`` (``"usage.input_tokens"``), 0 where absent."""
    value = event
    for key in path.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value or 0


def _events(output: bytes, kind: str) -> list[dict]:
    return [event for event in json_lines(output) if event.get("type") == kind]


def _sums(events: list[dict], **paths: tuple[str, ...]) -> Spend:
    """Per field of :class:`Spend`, the sum over ``events`` of the numbers at its ``paths``
    (a number an event lacks counts 0; ``None`` for every field when there is no event)."""
    if not events:
        return Spend()
    return Spend(**{field: sum(number(event, path) for event in events for path in chosen)
                    for field, chosen in paths.items()})


def claude_code(output: bytes) -> Spend:
    """Claude Code's ``stream-json``: the final ``result`` event carries ``total_cost_usd`` and the
    run's ``usage`` (input, cache creation and cache read tokens are all tokens in)."""
    return _sums(_events(output, "result")[-1:], tokens_out=("usage.output_tokens",), cost_usd=("total_cost_usd",),
                 tokens_in=("usage.input_tokens", "usage.cache_creation_input_tokens", "usage.cache_read_input_tokens"))


def codex(output: bytes) -> Spend:
    """Codex's ``exec --json``: each ``turn.completed`` event carries that turn's ``usage`` (its
    ``input_tokens`` include the cached ones); the stream reports no cost."""
    return _sums(_events(output, "turn.completed"), tokens_in=("usage.input_tokens",),
                 tokens_out=("usage.output_tokens",))


def gemini_cli(output: bytes) -> Spend:
    """Gemini CLI's ``stream-json``: the final ``result`` event's ``stats``; no cost."""
    return _sums(_events(output, "result")[-1:], tokens_in=("stats.input_tokens",),
                 tokens_out=("stats.output_tokens",))


def opencode(output: bytes) -> Spend:
    """OpenCode's ``run --format json``: each ``step_finish`` event's ``part`` carries its tokens
    (input plus cache reads are tokens in) and its cost."""
    return _sums(_events(output, "step_finish"), tokens_in=("part.tokens.input", "part.tokens.cache.read"),
                 tokens_out=("part.tokens.output",), cost_usd=("part.cost",))


PARSERS: dict[str, Callable[[bytes], Spend]] = {
    "none": lambda output: Spend(),
    "claude-code": claude_code,
    "codex": codex,
    "gemini-cli": gemini_cli,
    "opencode": opencode,
}
"""Usage parser name (``usage`` in ``agents.yaml``) -> parser of an agent's standard output."""
