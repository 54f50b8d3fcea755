"""The result cache: answers stored under the request that produced them, for the life of the process."""

from __future__ import annotations

import json
import threading
from dataclasses import asdict

from request import ExecuteRequest


def key_of(request: ExecuteRequest) -> str:
    """The identity of a request: every field but ``force``, defaults filled in, a chain command's left-out
    timeout the request's; the key order of ``env`` and ``files`` does not matter, the key order inside a
    file's value does (it changes the file written)."""
    fields = asdict(request)
    del fields["force"]
    fields["command"] = request.command if isinstance(request.command, str) else [
        {"cmd": step.cmd, "timeout": step.timeout or request.timeout, "required": step.required}
        for step in request.command]
    fields["env"], fields["files"] = sorted(request.env.items()), sorted(request.files.items())
    return json.dumps(fields)


class Cache:
    """Thread-safe map from a request's key to its stored answer (a JSON object without ``id``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answers: dict[str, dict] = {}

    def get(self, key: str) -> dict | None:
        with self._lock:
            return self._answers.get(key)

    def put(self, key: str, answer: dict) -> None:
        with self._lock:
            self._answers[key] = answer
