"""The registry of sandbox levels, apart from the interface (:mod:`scbench.sandbox.base`), which imports
none of its implementations: a new level is a :class:`~scbench.sandbox.base.Sandbox` subclass and a line here."""

from __future__ import annotations

from scbench.sandbox.base import Sandbox
from scbench.sandbox.bwrap import Bwrap
from scbench.sandbox.docker import Docker
from scbench.sandbox.local import Local


class SandboxUnavailable(Exception):
    """A sandbox level was asked for that this machine cannot provide; the message says why."""


def registry() -> dict[str, type[Sandbox]]:
    """Level name -> implementation, in the order :func:`choose` tries them for the default:
    bwrap first (as strong as the hostile suite asks, at a small cost per run, for every
    track the host has), then docker, then local."""
    return {"bwrap": Bwrap, "docker": Docker, "local": Local}


def _first_available(levels: dict[str, type[Sandbox]]) -> type[Sandbox]:
    reasons = []
    for name, level in levels.items():
        why = level.unavailable()
        if not why:
            return level
        reasons.append(f"{name}: {why}")
    raise SandboxUnavailable("no sandbox level is available here (" + "; ".join(reasons) + ")")


def choose(name: str | None) -> type[Sandbox]:
    """The implementation of level ``name``, or with ``None`` the first available of
    :func:`registry`. Raises :class:`SandboxUnavailable` (unknown name, or unavailable here)."""
    levels = registry()
    if name is None:
        return _first_available(levels)
    if name not in levels:
        raise SandboxUnavailable(f"unknown sandbox {name!r}; known: {', '.join(levels)}")
    why = levels[name].unavailable()
    if why:
        raise SandboxUnavailable(f"sandbox {name!r} is not available here: {why}")
    return levels[name]
