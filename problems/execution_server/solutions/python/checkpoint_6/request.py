"""Validation of a ``POST /v1/execute`` body into an :class:`ExecuteRequest`."""

from __future__ import annotations

from dataclasses import dataclass, field

from errors import invalid
from tracking import patterns_of

DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class Step:
    """One command of a chain: its text, its own timeout (s; ``None``: the request's), whether it
    always runs."""

    cmd: str
    timeout: float | None = None
    required: bool = False


@dataclass(frozen=True)
class ExecuteRequest:
    """One validated run request: the command (a string, or the steps of a chain), extra env, files
    (path -> text or JSON value), stdin text, timeout (s), track patterns, whether a chain goes on
    after a failure, whether to run even when the result is cached, the environment it runs in."""

    command: str | list[Step]
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, object] = field(default_factory=dict)
    stdin: str = ""
    timeout: float = DEFAULT_TIMEOUT
    track: list[str] = field(default_factory=list)
    continue_on_error: bool = False
    force: bool = False
    environment: str = ""

    @property
    def steps(self) -> list[Step]:
        """The commands to run: a string command is a chain of one."""
        return [Step(self.command)] if isinstance(self.command, str) else self.command


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def text_of(value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise invalid("a command must be a non-empty string")
    return value


def boolean_of(value) -> bool:
    if not isinstance(value, bool):
        raise invalid("required, continue_on_error and force must be true or false")
    return value


def step_of(value) -> Step:
    if not isinstance(value, dict) or "cmd" not in value:
        raise invalid("each command of a chain must be an object with a cmd")
    return Step(**{name: check(value[name]) for name, check in STEP_FIELDS.items() if name in value})


def command_of(value) -> str | list[Step]:
    return [step_of(item) for item in value] if isinstance(value, list) else text_of(value)


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


def environment_of(value, blank_code: str = "MISSING_ENVIRONMENT") -> str:
    """An environment name; raises ``ApiError`` (400): ``blank_code`` unless a non-blank string,
    ``INVALID_ENVIRONMENT`` when it holds ``/`` or ``\\``."""
    if not isinstance(value, str) or not value.strip():
        raise invalid("environment must be the name of an environment", blank_code)
    if "/" in value or "\\" in value:
        raise invalid("an environment name holds no / or \\", "INVALID_ENVIRONMENT")
    return value


STEP_FIELDS = {"cmd": text_of, "timeout": timeout_of, "required": boolean_of}
"""Each accepted field of a chain's command object and its checker."""

FIELDS = {"command": command_of, "env": env_of, "files": files_of, "stdin": stdin_of,
          "timeout": timeout_of, "track": patterns_of, "continue_on_error": boolean_of, "force": boolean_of}
"""Each accepted field and the checker turning its JSON value into the request's value."""


def parse_execute(body) -> ExecuteRequest:
    """The request of a decoded JSON body; raises ``ApiError`` (400) for anything the spec refuses."""
    if not isinstance(body, dict):
        raise invalid("the request body must be a JSON object")
    if "command" not in body:
        raise invalid("command is required")
    fields = {name: check(body[name]) for name, check in FIELDS.items() if name in body}
    return ExecuteRequest(**fields, environment=environment_of(body.get("environment")))
