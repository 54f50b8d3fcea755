"""Facts about this scbench itself (standard library only: the command line imports it at startup)."""

import functools


@functools.cache
def version() -> str:
    """The installed scbench version, e.g. ``0.1.0`` (``importlib.metadata``, which imports the email package,
    is loaded on the first call only)."""
    from importlib.metadata import version as installed

    return installed("scbench")
