"""Where scbench finds its own resources (schemas, rules, adapters, prompts, the problem scaffold), its caches, and
its temporary directories.

The resources are package data: they live inside the ``scbench`` package and are installed with it by any
install (a wheel, ``pip install .``, an editable install), found through :mod:`importlib.resources`. A wheel
is always installed unzipped, so the package's resources are a directory and ``PACKAGE`` is a real path.
"""

import fcntl
import os
import shutil
import tempfile
from importlib.resources import files
from pathlib import Path

PACKAGE = Path(str(files("scbench")))
"""The ``scbench`` package's own directory: its Python sources and its resources."""
SCHEMAS = PACKAGE / "schemas"
RULES = PACKAGE / "quality" / "rules"
ADAPTERS = PACKAGE / "quality" / "adapters"
PROMPTS = PACKAGE / "prompts"
SCAFFOLD = PACKAGE / "scaffold" / "template"
CACHE = Path(os.environ.get("SCBENCH_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "scbench")
"""Bundles' data and prepared solutions; override with SCBENCH_CACHE."""


HELD: dict[Path, int] = {}
"""Each temporary directory this process owns -> the descriptor of its held lock."""


def held(lock: Path) -> bool:
    """Whether a live process holds ``lock`` (a temporary directory's lock file); ``False`` when it is gone, ``True``
    when it is another user's (never this process's to remove)."""
    try:
        handle = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return False
    except PermissionError:
        return True
    try:
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(handle)
    return False


def remove_stale(prefix: str = "scbench-") -> list[Path]:
    """Remove the temporary directories named ``PREFIX*`` whose owner died without removing them (a SIGKILL): those
    whose lock file (:func:`owned_tempdir`) no live process holds. Returns them."""
    stale = [lock for lock in Path(tempfile.gettempdir()).glob(f"{prefix}*.lock") if not held(lock)]
    for lock in stale:
        shutil.rmtree(lock.with_suffix(""), ignore_errors=True)
        lock.unlink(missing_ok=True)
    return [lock.with_suffix("") for lock in stale]


def owned_tempdir(prefix: str) -> Path:
    """A fresh directory ``PREFIX<random>`` (mode 0700) in the system's temporary directory, and beside it
    ``PREFIX<random>.lock``, locked (``flock``) until :func:`release` or this process's death: what
    :func:`remove_stale` removes at the next start of any scbench, after a SIGKILL. Stale ones are removed first."""
    remove_stale()
    handle, name = tempfile.mkstemp(prefix=prefix, suffix=".locking")
    fcntl.flock(handle, fcntl.LOCK_EX)
    lock = Path(name).with_suffix(".lock")
    os.rename(name, lock)  # only now visible to remove_stale, locked
    directory = lock.with_suffix("")
    directory.mkdir(mode=0o700)
    HELD[directory] = handle
    return directory


def release(directory: Path) -> None:
    """Remove ``directory`` (made by :func:`owned_tempdir`), then its lock file."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.with_suffix(".lock").unlink()
    os.close(HELD.pop(directory))
