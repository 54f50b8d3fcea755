"""Shared helpers: run the real ``scbench`` CLI in a subprocess, find leftover processes."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
os.environ.setdefault("SCBENCH_CACHE", tempfile.mkdtemp(prefix="scbench-test-cache-"))


def scbench(*args: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m scbench`` with ``args`` (and extra ``env``); output captured as text."""
    return subprocess.run([sys.executable, "-m", "scbench", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "COLUMNS": "200", **(env or {})})


def processes_with(marker: str) -> list[int]:
    """PIDs of live processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                state = (entry / "stat").read_text().split(") ")[-1][:1]
            except OSError:
                continue
            if marker in cmdline and state != "Z":
                found.append(int(entry.name))
    return found


@pytest.fixture
def kv() -> Path:
    return FIXTURES / "kv"
