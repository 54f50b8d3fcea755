"""Rendering values and texts for humans: invisible characters made visible, long things cut."""

from __future__ import annotations

import json
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
