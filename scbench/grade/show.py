"""Rendering values and texts for humans: invisible characters made visible, long things cut."""

from __future__ import annotations

import json
import re
import unicodedata

MAX_VALUE = 160
"""Characters of one rendered value before it is cut."""

MAX_DIFF_LINES = 60
"""Lines of one rendered diff before it is cut."""

MAX_LINE = 300
"""Characters of one rendered line before it is cut."""

ESCAPES = {"\t": "\\t", "\r": "\\r", "\x00": "\\0", "\u00a0": "\\u00a0"}


def visible(text: str) -> str:
    """``text`` with tabs, carriage returns, control and format characters (zero-width
    spaces, BOMs, ...) escaped, and trailing spaces shown as ``·``."""
    plain = text.isascii() and text.isprintable()
    shown = text if plain else "".join(ESCAPES.get(ch) or (
        f"\\u{ord(ch):04x}" if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch) for ch in text)
    stripped = shown.rstrip(" ")
    return stripped + "·" * (len(shown) - len(stripped))


UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
                         "\ud800-\udfff\ufffe\uffff]")
"""What must never reach a writer raw: C0 and C1 controls but tab and newline (ESC would drive a terminal,
NUL or BEL make XML ill-formed), bidirectional overrides, lone surrogates (undecodable bytes) and non-characters."""


def printable(text: str) -> str:
    """``text`` safe for any writer (terminal, XML, HTML, JSON), lines and tabs kept: every
    :data:`UNPRINTABLE` character written as ``\\uXXXX`` (NUL as ``\\0``)."""
    return UNPRINTABLE.sub(lambda match: ESCAPES.get(match[0]) or f"\\u{ord(match[0]):04x}", text)


def value(item: object) -> str:
    """One value as compact JSON (non-ASCII kept, invisibles escaped), cut at ``MAX_VALUE``."""
    text = visible(json.dumps(item, ensure_ascii=False, default=str))
    return text if len(text) <= MAX_VALUE else f"{text[:MAX_VALUE]}… ({len(text)} chars)"


def cut_line(line: str) -> str:
    """``line`` cut at ``MAX_LINE`` characters, saying how long it was."""
    return line if len(line) <= MAX_LINE else f"{line[:MAX_LINE]}… ({len(line)} chars)"


def cut_lines(lines: list[str], limit: int = MAX_DIFF_LINES) -> list[str]:
    """The first ``limit`` lines, plus a line saying how many were cut."""
    return lines if len(lines) <= limit else [*lines[:limit], f"… ({len(lines) - limit} more lines)"]


def json_path(parts: list) -> str:
    """A deepdiff path list as JSONPath: ``[0, 'start', 'col']`` -> ``$[0].start.col``."""
    text = "$"
    for part in parts:
        is_name = isinstance(part, str) and part.isidentifier()
        text += f".{part}" if is_name else f"[{json.dumps(part, ensure_ascii=False)}]"
    return text


MAX_KEPT = 10_000
"""Characters of a step's output kept in the results."""


def excerpt(data: bytes) -> str:
    """``data`` as text (invalid UTF-8 replaced), its middle cut when longer than ``MAX_KEPT`` characters."""
    text = data.decode("utf-8", errors="replace")
    if len(text) <= MAX_KEPT:
        return text
    half = MAX_KEPT // 2
    return f"{text[:half]}\n… ({len(text) - MAX_KEPT} characters cut) …\n{text[-half:]}"
