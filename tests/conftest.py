"""Shared helpers: run the real ``scbench`` CLI in a subprocess, find leftover processes, write batch
plans and compare results across runs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
os.environ.setdefault("SCBENCH_CACHE", tempfile.mkdtemp(prefix="scbench-test-cache-"))
KV = FIXTURES / "kv"
TIMINGS = ("started", "duration_s")
CASE_DIR = re.compile(r"/[^\"]*?/scbench-\w+/case-\w+")


def comparable(results: dict) -> dict:
    """``results`` without what differs from run to run: start time, durations, and the names of
    the fresh directories cases ran in (shown in failures)."""
    cases = [{**{k: v for k, v in case.items() if k != "duration_s"},
              "steps": [{k: v for k, v in step.items() if k != "duration_s"} for step in case["steps"]]}
             for case in results["cases"]]
    kept = {**{k: v for k, v in results.items() if k not in TIMINGS}, "cases": cases}
    return json.loads(CASE_DIR.sub("CASE_DIR", json.dumps(kept)))


def write_plan(path: Path, plan: dict) -> Path:
    """``plan`` written to ``path`` as YAML, keys in the order given."""
    path.write_text(yaml.safe_dump(plan, sort_keys=False))
    return path


def kv_plan(tmp_path: Path, **extra) -> Path:
    """kv's python references at both checkpoints (one snapshot per checkpoint) and its node
    reference of checkpoint 1 at both, plus greet's python reference."""
    return write_plan(tmp_path / "plan.yaml", {
        "problems": {"kv": str(KV), "greet": str(FIXTURES / "greet")},
        "solutions": [
            {"problem": "kv", "path": str(KV / "solutions/python/checkpoint_{checkpoint}"), "track": "python"},
            {"problem": "kv", "path": str(KV / "solutions/node/checkpoint_1"), "track": "node"},
            {"problem": "greet", "path": str(FIXTURES / "greet/solutions/python/checkpoint_1")},
        ], **extra})


def evaluations_in(out: Path) -> list[str]:
    """The ``PROBLEM/NAME/checkpoint_N`` of every finished evaluation in a batch's results tree, sorted."""
    return sorted(str(path.parent.relative_to(out)) for path in out.glob("*/*/*/inputs.json"))


def scbench(*args: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m scbench`` with ``args`` (in ``env``, default ours); output captured as text."""
    return subprocess.run([sys.executable, "-m", "scbench", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=1800, env={**(env or os.environ), "COLUMNS": "200"})


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


@pytest.fixture
def kv_copy(kv, tmp_path) -> Path:
    """A writable copy of the kv fixture problem."""
    return Path(shutil.copytree(kv, tmp_path / "kv"))


def replace_in(path: Path, old: str, new: str) -> None:
    """Rewrite ``path`` with ``old`` (which must be in it) replaced by ``new``."""
    text = path.read_text()
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new))


REQUIRED_LEVELS = set(filter(None, os.environ.get("SCBENCH_REQUIRE_SANDBOXES", "").split(",")))
"""Sandbox levels that must run (CI sets ``bwrap,docker``): where one is missing its tests fail, never skip."""


def needs_level(name: str):
    """A mark that skips a test (with the reason) where this machine lacks the sandbox level ``name``,
    unless the level is in ``SCBENCH_REQUIRE_SANDBOXES``."""
    from scbench.sandbox.registry import registry
    missing = registry()[name].unavailable()
    return pytest.mark.skipif(bool(missing) and name not in REQUIRED_LEVELS, reason=missing)


def sandbox_levels() -> list:
    """One pytest param per sandbox level, marked with :func:`needs_level`."""
    from scbench.sandbox.registry import registry
    return [pytest.param(name, marks=needs_level(name)) for name in registry()]


@pytest.fixture(scope="module", params=sandbox_levels())
def sandbox(request):
    """A started sandbox of each level present (one per test module), with the default limits."""
    from scbench.sandbox.registry import registry
    with registry()[request.param](parallel=2) as box:
        yield box


@pytest.fixture
def workdir(sandbox) -> Path:
    """A fresh directory in the sandbox's scratch dir that its runs may write to."""
    path = Path(tempfile.mkdtemp(dir=sandbox.scratch))
    sandbox.own(path)
    return path
