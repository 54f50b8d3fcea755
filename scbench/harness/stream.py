"""An agent's standard output read as it arrives: :class:`Meter` frames it into lines and hands each to its
format's handler (:data:`~scbench.harness.formats.FORMATS`), so the spend is current at every moment without
re-reading the stream, and every line is read, even past the size at which the output kept is cut."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import TypeVar

from scbench.harness.formats import FORMATS
from scbench.harness.tally import Tally

T = TypeVar("T")
LINE_LIMIT = 4 * 1024 * 1024
"""Bytes of one line past which it is passed over (no harness writes an event that long)."""


class Meter:
    """The running :class:`~scbench.harness.tally.Tally` of one attempt's stream in format ``name`` (a key of
    :data:`~scbench.harness.formats.FORMATS`; ``KeyError`` otherwise); ``model`` is the run's model. Safe to
    feed from one thread while another reads it (:meth:`read`)."""

    def __init__(self, name: str, model: str | None = None):
        self.format = FORMATS[name]
        self.tally = Tally(model=model)
        self.partial = bytearray()
        self.skipping = False
        self.lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        """Read the complete lines ``chunk`` ends, keep the rest for the next chunk."""
        with self.lock:
            if b"\n" in chunk:
                *lines, rest = (bytes(self.partial) + chunk).split(b"\n")
                for line in lines[self.skipping:]:
                    self._line(line)
                self.partial, self.skipping = bytearray(rest), False
            else:
                self.partial += chunk
            if len(self.partial) > LINE_LIMIT:  # a line too long to be an event: passed over to its end
                self.partial.clear()
                self.skipping = True

    def close(self) -> Tally:
        """Read the last line (one without a newline) and return the tally."""
        with self.lock:
            if self.partial and not self.skipping:
                self._line(bytes(self.partial))
            self.partial.clear()
        return self.tally

    def read(self, what: Callable[[Tally], T]) -> T:
        """``what(tally)``, with no line being read meanwhile (e.g. ``Tally.spend``)."""
        with self.lock:
            return what(self.tally)

    def _line(self, line: bytes) -> None:
        decoded = line.decode(errors="replace")
        if self.format.lines == "text":
            handler = self.format.handlers.get("line")
            return handler(self.tally, decoded) if handler else None
        event = _event(decoded)
        handler = self.format.handlers.get(event.get("type")) if isinstance(event.get("type"), str) else None
        return handler(self.tally, event) if handler else None


def _event(line: str) -> dict:
    """The JSON object on ``line``; ``{}`` for anything else (progress, logs, a broken or too deeply nested line)."""
    if not line.lstrip().startswith("{"):
        return {}
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):  # log text, or a hostile line (too deep, a 5000-digit number)
        return {}
    return value if isinstance(value, dict) else {}
