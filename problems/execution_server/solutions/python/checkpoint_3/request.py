"""Validation of a ``POST /v1/execute`` body into an :class:`ExecuteRequest`."""

from __future__ import annotations

from dataclasses import dataclass, field

from errors import invalid
from tracking import patterns_of

DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class ExecuteRequest:
    """One validated run request: the command, extra env, files (path -> text or JSON value), stdin
    text, timeout (s), track patterns."""

    command: str
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, object] = field(default_factory=dict)
    stdin: str = ""
    timeout: float = DEFAULT_TIMEOUT
    track: list[str] = field(default_factory=list)


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def command_of(value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise invalid("command must be a non-empty string")
    return value


def env_of(value) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise invalid("env must be an object of strings")
    return value


def files_of(value) -> dict[str, object]:
    if not isinstance(value, dict):
        raise invalid("files must be an object")
    return value


def stdin_of(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(f"{line}\n" for line in value)
    raise invalid("stdin must be a string or an array of strings")


def timeout_of(value) -> float:
    if not is_number(value) or value <= 0:
        raise invalid("timeout must be a number greater than 0")
    return float(value)


FIELDS = {"command": command_of, "env": env_of, "files": files_of, "stdin": stdin_of,
          "timeout": timeout_of, "track": patterns_of}
"""Each accepted field and the checker turning its JSON value into the request's value."""


def parse_execute(body) -> ExecuteRequest:
    """The request of a decoded JSON body; raises ``ApiError`` (400) for anything the spec refuses."""
    if not isinstance(body, dict):
        raise invalid("the request body must be a JSON object")
    if "command" not in body:
        raise invalid("command is required")
    return ExecuteRequest(**{name: check(body[name]) for name, check in FIELDS.items() if name in body})
