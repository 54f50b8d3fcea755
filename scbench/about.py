"""Facts about this scbench itself (standard library only: the command line imports it at startup)."""

from importlib.metadata import version as _installed


def version() -> str:
    """The installed scbench version, e.g. ``0.1.0``."""
    return _installed("scbench")
