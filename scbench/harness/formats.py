"""Harness stream formats: a table (:data:`FORMATS`) of format name -> how each line of the stream adds to a
:class:`~scbench.harness.tally.Tally`. No format gets a branch anywhere else.

A JSON-lines format maps an event's ``type`` to a handler of that event; a text format has one handler per
line (key ``line``). Handlers read with :func:`~scbench.harness.tally.dig` and pass every figure through the
tally, so a malformed or hostile event adds nothing and raises nothing. Each format's documentation:
claude-code ``--output-format stream-json``, codex ``exec --json``, gemini-cli ``--output-format
stream-json``, opencode ``run --format json``, aider's ``Tokens: ... Cost: ...`` lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from scbench.harness.failures import FailureClass, classify
from scbench.harness.tally import Tally, dig, text

Handler = Callable[[Tally, Any], None]


@dataclass(frozen=True)
class Format:
    """How a harness writes its stream: ``lines`` (``json``: one event per line, others passed over;
    ``text``), the handlers (event type -> handler; ``line`` for text), and what its exit codes mean
    besides failure in general (``agent_error``)."""

    lines: Literal["json", "text"]
    handlers: dict[str, Handler]
    exit_codes: dict[int, FailureClass] = field(default_factory=dict)


# claude-code stream-json: `system` (subtype init: model, claude_code_version), `assistant` (message: id, model,
# content blocks, each sent once, `tool_use` ones tool calls; usage per API message: one message may come as
# several events with the same id), `result` (total_cost_usd,
# num_turns, usage, modelUsage per model, is_error, subtype success | error_max_turns | error_during_execution,
# api_error_status). Anthropic counts: input, cache reads and cache writes are disjoint.
def _anthropic(tally: Tally, usage: Any, where: str, names: tuple[str, str, str, str]) -> dict[str, float]:
    return tally.counts({kind: dig(usage, name) for kind, name in
                         zip(("input", "cached_input", "cache_write", "output"), names, strict=True)}, where)


MESSAGE_USAGE = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")
MODEL_USAGE = ("inputTokens", "cacheReadInputTokens", "cacheCreationInputTokens", "outputTokens")
CLAUDE_SUBTYPES: dict[str, FailureClass] = {"error_max_turns": "turn_limit"}


def claude_init(tally: Tally, event: dict) -> None:
    tally.version = text(event, "claude_code_version") or tally.version


def claude_message(tally: Tally, event: dict) -> None:
    content = dig(event, "message.content")
    tool_uses = [block for block in content if dig(block, "type") == "tool_use"] if isinstance(content, list) else []
    if tool_uses:
        tally.count("tool_calls", len(tool_uses))
    usage = dig(event, "message.usage")
    if isinstance(usage, dict):
        tally.usage(text(event, "message.id") or None, text(event, "message.model") or None,
                    _anthropic(tally, usage, "assistant usage", MESSAGE_USAGE), includes_cached=False)


def claude_result(tally: Tally, event: dict) -> None:
    tally.report("total", event.get("total_cost_usd"), "result total_cost_usd")
    tally.count("turns", event.get("num_turns"))
    per_model = event.get("modelUsage")
    if isinstance(per_model, dict) and per_model:
        tally.replace({f"model {name}": (name, _anthropic(tally, usage, f"result modelUsage {name}", MODEL_USAGE))
                       for name, usage in per_model.items()})
    elif not tally.parts and isinstance(event.get("usage"), dict):
        tally.usage("result", None, _anthropic(tally, event["usage"], "result usage", MESSAGE_USAGE), False)
    claude_failure(tally, event)


def claude_failure(tally: Tally, event: dict) -> None:
    """A result event's failure: ``is_error`` (an API error, its status in ``api_error_status``) or an
    ``error_*`` subtype (``error_max_turns``: the turn limit)."""
    subtype = text(event, "subtype")
    if event.get("is_error") is True or subtype.startswith("error"):
        message = f"{event.get('api_error_status') or ''} {text(event, 'result') or subtype}".strip()
        tally.fail(CLAUDE_SUBTYPES.get(subtype) or classify(message), message)


# codex exec --json: `thread.started`, `turn.started`, `item.*` (a completed command, file change, MCP tool call
# or web search is a tool call), `turn.completed` (usage: input_tokens as OpenAI counts them, the cached ones
# included, cached_input_tokens, output_tokens, reasoning_output_tokens: running totals of the thread),
# `turn.failed` (error.message), `error` (message; a turn completed after it recovered from it).
def codex_turn(tally: Tally, event: dict) -> None:
    usage = event.get("usage")
    tally.usage("total", None, tally.counts({kind: dig(usage, name) for kind, name in (
        ("input", "input_tokens"), ("cached_input", "cached_input_tokens"), ("output", "output_tokens"),
        ("reasoning", "reasoning_output_tokens"))}, "turn.completed usage"))
    tally.count("turns")
    tally.failure = None


CODEX_TOOLS = frozenset({"command_execution", "file_change", "mcp_tool_call", "web_search"})


def codex_item(tally: Tally, event: dict) -> None:
    if dig(event, "item.type") in CODEX_TOOLS:
        tally.count("tool_calls")


def codex_failed(tally: Tally, event: dict) -> None:
    message = text(event, "error.message") or text(event, "message") or "the turn failed"
    tally.fail(classify(message), message)


# gemini-cli stream-json: `init` (model), `message`, `tool_use`, `tool_result`, `error` (severity, message),
# `result` (status success | error, error: type and message, stats: input_tokens with the cached ones included,
# cached, output_tokens, tool_calls: totals of the session). Exit codes: 1 an error, 42 bad input, 53 turn limit.
def gemini_init(tally: Tally, event: dict) -> None:
    tally.model = tally.model or text(event, "model") or None


def gemini_error(tally: Tally, event: dict) -> None:
    if text(event, "severity") != "warning":
        message = text(event, "message") or "error"
        tally.fail(classify(message), message)


def gemini_result(tally: Tally, event: dict) -> None:
    stats = event.get("stats")
    tally.usage("total", None, tally.counts({kind: dig(stats, name) for kind, name in (
        ("input", "input_tokens"), ("cached_input", "cached"), ("output", "output_tokens"))},
        "result stats"))
    calls = tally.figure(dig(stats, "tool_calls"), "result stats tool_calls")
    tally.tool_calls = tally.tool_calls if calls is None else int(calls)
    if text(event, "status") == "error":
        message = f"{text(event, 'error.type')} {text(event, 'error.message')}".strip() or "error"
        tally.fail(classify(message), message)
    elif text(event, "status") == "success":  # it recovered from the errors it reported
        tally.failure = None


# opencode run --format json: `step_start`, `text`, `tool_use` (a tool call), `step_finish` (part: id, cost of
# the step, tokens: input without cache, output, reasoning, cache read and write), `error` (error: name,
# data.message, data.statusCode; opencode may exit 0 after it). A cost of 0 for tokens is a model opencode
# cannot price.
def opencode_step(tally: Tally, event: dict) -> None:
    part, key = event.get("part"), text(event, "part.id") or None
    counts = tally.counts({kind: dig(part, f"tokens.{name}") for kind, name in (
        ("input", "input"), ("cached_input", "cache.read"), ("cache_write", "cache.write"), ("output", "output"),
        ("reasoning", "reasoning"))}, "step_finish tokens")
    tally.usage(key, None, counts, includes_cached=False)
    cost = dig(part, "cost")
    tally.unpriced_report |= cost == 0 and any(counts.values())
    tally.report(key, cost, "step_finish cost")
    tally.count("turns")


def opencode_tool(tally: Tally, event: dict) -> None:
    tally.count("tool_calls")


def opencode_error(tally: Tally, event: dict) -> None:
    error = event.get("error")
    message = " ".join(str(part) for part in (text(error, "name"), dig(error, "data.statusCode"),
                                              text(error, "data.message")) if part) or "error"
    tally.fail(classify(message), message)


# aider: after each model reply a line `Tokens: 4.5k sent, 1.2k cache write, 2.0k cache hit, 567 received.
# Cost: $0.02 message, $0.15 session.` (sent includes cache hits and writes, as litellm counts them; the session
# cost is a running total); an error from the model API as `litellm.<Kind>Error: ...`.
AIDER_TOKENS = re.compile(r"Tokens: (?P<tokens>.*?)\.\s+Cost: \$(?P<message>\d+(?:\.\d+)?) message, "
                          r"\$(?P<session>\d+(?:\.\d+)?)"
                          r" session")
AIDER_COUNT = re.compile(r"(?P<value>\d+(?:\.\d+)?)(?P<unit>[km]?) (?P<kind>sent|cache write|cache hit|received)")
AIDER_KINDS = {"sent": "input", "cache write": "cache_write", "cache hit": "cached_input", "received": "output"}
AIDER_ERROR = re.compile(r"litellm\.\w+Error")


def aider_line(tally: Tally, line: str) -> None:
    found = AIDER_TOKENS.search(line)
    if found:
        counts = {AIDER_KINDS[m["kind"]]: float(m["value"]) * {"": 1, "k": 1e3, "m": 1e6}[m["unit"]]
                  for m in AIDER_COUNT.finditer(found["tokens"])}
        cached = counts.get("cached_input", 0) + counts.get("cache_write", 0)
        tally.usage(None, None, {**counts, "input": max(counts.get("input", 0) - cached, 0)}, includes_cached=False)
        tally.report("session", float(found["session"]), "aider session cost")
        tally.count("turns")
    elif AIDER_ERROR.search(line):
        tally.fail(classify(line), line.strip())


FORMATS: dict[str, Format] = {
    "none": Format("text", {}),
    "claude-code": Format("json", {"system": claude_init, "assistant": claude_message, "result": claude_result}),
    "codex": Format("json", {"turn.completed": codex_turn, "item.completed": codex_item, "turn.failed": codex_failed,
                             "error": codex_failed}),
    "gemini-cli": Format("json", {"init": gemini_init, "error": gemini_error, "result": gemini_result},
                         exit_codes={42: "agent_error", 53: "turn_limit"}),
    "opencode": Format("json", {"step_finish": opencode_step, "tool_use": opencode_tool, "error": opencode_error}),
    "aider": Format("text", {"line": aider_line}),
}
"""Usage parser name (``usage`` in ``agents.yaml``, ``--usage``) -> its stream format."""
