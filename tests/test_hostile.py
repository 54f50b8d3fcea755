"""Hostile solutions, one program per behaviour (``tests/fixtures/hostile/``), under every sandbox
level present: each is graded failing within about its timeout, leaves no process and no file
outside its working dir, makes no connection out, reads nothing of the home, and scbench prints
no traceback. ``local`` contains less; :data:`ESCAPES` lists exactly what it lets through.

Each level runs the whole suite once (``scbench eval``, one case per behaviour, in parallel):
checkpoint 1 holds the CLI behaviours, checkpoint 2 the HTTP servers. Every program is bounded
(60 s, 4 GiB, 1000 processes at most), so an uncontained run cannot harm the machine.
"""

import json
import os
import shutil
import signal
import socket
import threading
import uuid
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES, processes_with, sandbox_levels, scbench
from scbench.sandbox.cgroup import hierarchies

PROGRAMS = FIXTURES / "hostile"
TIMEOUT = 3
CASE_SECONDS = 2 * TIMEOUT + 2
"""The longest a hostile case may take: its timeout, the kill grace, and start-up on a loaded machine."""

CLI = ("infinite_loop", "sigterm_tree", "double_fork", "empty_env_grandchild", "memory_hog", "fork_storm",
       "huge_output", "invalid_utf8", "write_outside", "read_home", "link_home", "connect_host")
HTTP = ("never_binds", "crash_mid_session", "squat_port", "squat_port_again")

ESCAPES = {("local", "write_outside"): {"file"}, ("local", "read_home"): {"home"},
           ("local", "connect_host"): {"network"},
           **({} if hierarchies() else {("local", "empty_env_grandchild"): {"process"}})}
"""(level, behaviour) -> what escapes; everything else must be contained (local kills a whole tree only through a
cgroup)."""
OUTPUT_FILES = {"link_home": {"out.txt": "42\n"}}
"""Behaviour -> the output files its case expects, besides the stdout every case expects."""


class Listener:
    """A TCP listener on the host's loopback that records what connections send it."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                self.received.append(conn.recv(100))

    def close(self):
        self.sock.close()


def _cli_case(name: str, token: str, port: int) -> dict:
    return {"id": name, "args": [f"{{data}}/{name}.py", token, str(Path.home()), str(port)],
            "expect": {"stdout": "42\n", "files": OUTPUT_FILES.get(name, {})}}


def _http_case(name: str, token: str, other_port: int) -> dict:
    program = name.removesuffix("_again")
    return {"id": name, "kind": "http",
            "server": {"args": [f"{{data}}/{program}.py", "--port", "{port}", "--address", "{host}", token,
                                str(other_port)], "ready": {"tcp": True, "deadline": TIMEOUT}},
            "steps": [{"request": {"path": path}, "expect": {"status": 200, "body": "42\n"}} for path in ("/a", "/b")]}


def write_problem(root: Path, tokens: dict[str, str], port: int) -> None:
    """The hostile problem: one case per behaviour, its programs as data."""
    shutil.copytree(PROGRAMS, root / "data")
    (root / "config.yaml").write_text(yaml.safe_dump({
        "name": "hostile", "description": "Hostile solutions.", "entry_file": "hostile", "timeout": TIMEOUT,
        "limits": {"memory_mb": 512, "processes": 64, "file_mb": 16, "output_mb": 1},
        "checkpoints": {"checkpoint_1": {"order": 1}, "checkpoint_2": {"order": 2, "include_prior_tests": False}}}))
    free = socket.create_server(("127.0.0.1", 0))
    other_port = free.getsockname()[1]
    free.close()
    suites = {1: [_cli_case(name, tokens[name], port) for name in CLI],
              2: [_http_case(name, tokens[name], other_port) for name in HTTP]}
    for number, cases in suites.items():
        (root / f"checkpoint_{number}.md").write_text("# Hostile\n\nPrint 42.\n")
        (root / "cases" / f"checkpoint_{number}").mkdir(parents=True)
        (root / "cases" / f"checkpoint_{number}" / "cases.yaml").write_text(yaml.safe_dump({"cases": cases}))


def _outside_files(token: str) -> list[Path]:
    return [path for directory in (Path("/tmp"), Path("/var/tmp"), Path.home())
            for path in directory.glob(f"scbench-hostile-{token}")]


def _escapes(token: str, results_text: str, secret: str, listener: Listener) -> set[str]:
    found = {"process": bool(processes_with(token)), "file": bool(_outside_files(token)),
             "home": secret in results_text, "network": any(token.encode() in data for data in listener.received)}
    return {name for name, escaped in found.items() if escaped}


def _clean(token: str) -> None:
    """Remove what an uncontained run left (only ``local`` leaves anything)."""
    for pid in processes_with(token):
        os.kill(pid, signal.SIGKILL)
    for path in _outside_files(token):
        path.unlink()
    (Path.home() / f".scbench-hostile-{token}").unlink()


@pytest.fixture(scope="module", params=sandbox_levels())
def outcomes(request, tmp_path_factory) -> dict[str, dict]:
    """Run the hostile problem under one level; behaviour -> its case, escapes and the CLI's exits."""
    level, run = request.param, uuid.uuid4().hex[:8]
    tokens = {name: f"{run}-{name}" for name in CLI + HTTP}
    secrets = {name: f"secret-{uuid.uuid4().hex}" for name in tokens}
    for name, token in tokens.items():
        (Path.home() / f".scbench-hostile-{token}").write_text(secrets[name])
    listener = Listener()
    root, solution = tmp_path_factory.mktemp("hostile"), tmp_path_factory.mktemp("empty")
    write_problem(root, tokens, listener.port)
    found: dict[str, dict] = {}
    try:
        for number in (1, 2):
            out = tmp_path_factory.mktemp("out")
            done = scbench("eval", root, "-c", number, "-s", solution, "-e", "python3", "--sandbox", level,
                           "-j", 4, "--out", out)
            assert (out / "results.json").is_file(), done.stderr
            results = json.loads((out / "results.json").read_text())
            for case in results["cases"]:
                text = json.dumps(case)
                found[case["id"]] = {"case": case, "exit": done.returncode, "stderr": done.stderr,
                                     "escapes": _escapes(tokens[case["id"]], text, secrets[case["id"]], listener)}
    finally:
        listener.close()
        for token in tokens.values():
            _clean(token)
    return found


@pytest.mark.parametrize("behaviour", CLI + HTTP)
def test_a_hostile_solution_fails_cleanly_and_stays_contained(outcomes, behaviour, request):
    level = request.node.callspec.params["outcomes"]
    outcome = outcomes[behaviour]
    assert (outcome["exit"], outcome["case"]["passed"]) == (1, False)
    assert outcome["case"]["duration_s"] < CASE_SECONDS
    assert "Traceback (most recent call last)" not in outcome["stderr"]
    assert outcome["escapes"] == ESCAPES.get((level, behaviour), set())
