"""Tracked files: glob patterns checked on input and matched against a working directory after a run."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from errors import invalid


def pattern_of(value) -> str:
    """A track pattern; raises ``ApiError`` (400) unless it is a non-empty relative pattern without ``..``."""
    if not isinstance(value, str) or not value:
        raise invalid("track patterns must be non-empty strings", "INVALID_TRACK")
    if value.startswith("/") or ".." in PurePosixPath(value).parts:
        raise invalid(f"track pattern {value!r} must stay inside the working directory", "INVALID_TRACK")
    return value


def patterns_of(value) -> list[str]:
    if not isinstance(value, list):
        raise invalid("track must be an array of glob patterns", "INVALID_TRACK")
    return [pattern_of(item) for item in value]


def collect(root: Path, patterns: list[str]) -> dict[str, str]:
    """Relative POSIX path -> UTF-8 text (undecodable bytes replaced) of every regular file under
    ``root`` that some pattern matches, each once."""
    found: dict[str, str] = {}
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            relative = path.relative_to(root).as_posix()
            if relative not in found and path.is_file():
                found[relative] = path.read_bytes().decode("utf-8", "replace")
    return found
