"""``scbench batch --engine ray`` on a real two-node Ray cluster started on this machine (a head,
then a second node joining it, each with one CPU and its own ports): the same plan gives the
same results as the local engine, and its evaluations ran on both nodes."""

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import FIXTURES, comparable, evaluations_in, kv_plan, processes_with, scbench
from scbench.batch.ray_engine import pack, unpack

pytestmark = pytest.mark.xdist_group(name="ray")  # one cluster at a time: each needs two CPUs

RAY = str(Path(sys.executable).with_name("ray"))
NODE_PORTS = ("--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
              "--dashboard-agent-grpc-port", "--metrics-export-port", "--runtime-env-agent-port")
WORKER_PORTS = 8
HEAD_PORTS = ("--port", "--ray-client-server-port", "--dashboard-port")
NODES_UP = 60.0
"""Seconds the two nodes may take to join."""


def free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports of 127.0.0.1 that were free a moment ago."""
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


@dataclass(frozen=True)
class Cluster:
    """A running local cluster: the address of its head and the environment its clients need (its own token)."""

    address: str
    env: dict[str, str]


def start_node(options: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    """``ray start --block`` of one node with one CPU and its own ports, in its own session, in ``env``."""
    ports = free_ports(len(NODE_PORTS) + WORKER_PORTS)
    named = [f"{option}={port}" for option, port in zip(NODE_PORTS, ports, strict=False)]
    argv = [RAY, "start", "--block", "--num-cpus=1", "--disable-usage-stats", "--node-ip-address=127.0.0.1",
            "--object-store-memory=100000000", *named,
            f"--worker-port-list={','.join(map(str, ports[len(NODE_PORTS):]))}", *options]
    with log.open("a") as sink:
        return subprocess.Popen(argv, stdout=sink, stderr=sink, start_new_session=True,
                                env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **env})


def started(node: subprocess.Popen, log: Path) -> None:
    """Wait until ``ray start`` of ``node`` says its node runs (it has joined the cluster)."""
    deadline = time.monotonic() + NODES_UP
    while "Ray runtime started" not in log.read_text():
        assert time.monotonic() < deadline and node.poll() is None, log.read_text()
        time.sleep(0.1)


def alive_nodes(address: str, env: dict[str, str]) -> int:
    """The nodes alive in the cluster at ``address`` as a client in ``env`` sees them (0 when it is refused)."""
    code = f"import ray; ray.init(address={address!r}); print(sum(n['Alive'] for n in ray.nodes()))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env})
    return int(done.stdout.strip() or 0)


def in_session(session: int) -> list[int]:
    """PIDs of the live (not zombie) processes of session ``session``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            state, _parent, _group, sid = stat.read_text().rsplit(") ", 1)[1].split()[:4]
            if int(sid) == session and state != "Z":
                found.append(int(stat.parent.name))
    return found


def stop(node: subprocess.Popen) -> None:
    """End a node: every process of its session (they are all ours; a raylet puts each worker in a process
    group of its own, so killing the node's group is not enough), until none is left (a process sent SIGKILL
    lives on until the kernel has torn it down); a node whose ``ray start`` ended left nothing to end."""
    deadline = time.monotonic() + NODES_UP
    while members := in_session(node.pid):
        assert time.monotonic() < deadline, f"processes {members} of the node outlived SIGKILL"
        for pid in members:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)
    node.wait()


@contextlib.contextmanager
def two_nodes(temp: Path, node_options: Sequence[str] = ()) -> Iterator[Cluster]:
    """A head and one more node joining it (with ``node_options``), logs and session under ``temp``, and a
    token of their own in it (``RAY_AUTH_TOKEN_PATH``: otherwise every cluster of the machine uses
    ``~/.ray/auth_token``, which a head writes when it is missing); every node started is stopped after and
    ``temp`` removed, also when a node fails to start or to join."""
    (temp / "auth_token").write_text(secrets.token_hex(32))
    env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(temp / "auth_token")}
    gcs, client, dashboard = free_ports(len(HEAD_PORTS))
    cluster = Cluster(f"127.0.0.1:{gcs}", env)
    with contextlib.ExitStack() as running:
        running.callback(shutil.rmtree, temp)
        head = start_node(["--head", f"--port={gcs}", f"--ray-client-server-port={client}",
                           f"--dashboard-port={dashboard}", "--include-dashboard=false", f"--temp-dir={temp}"],
                          temp / "head.log", env)
        running.callback(stop, head)
        started(head, temp / "head.log")
        node = start_node([f"--address={cluster.address}", *node_options], temp / "node.log", env)
        running.callback(stop, node)
        started(node, temp / "node.log")
        assert alive_nodes(cluster.address, env) == 2
        yield cluster


@pytest.fixture(scope="module")
def cluster():
    """A running two-node cluster, stopped after."""
    with two_nodes(Path(tempfile.mkdtemp(prefix="scbray-"))) as running:
        yield running


def test_the_ray_engine_gives_the_local_engines_results_across_two_nodes(cluster, tmp_path):
    plan = kv_plan(tmp_path)
    local = scbench("batch", plan, "--out", tmp_path / "local")
    assert local.returncode == 0, local.stderr
    remote = scbench("batch", plan, "--out", tmp_path / "ray", "--engine", "ray", "--address", cluster.address,
                     env={**os.environ, **cluster.env})
    assert remote.returncode == 0, remote.stderr
    assert "ray: 5 evaluation(s) ran on 2 node(s) of the cluster" in remote.stderr
    keys = evaluations_in(tmp_path / "local")
    assert len(keys) == 5 and evaluations_in(tmp_path / "ray") == keys
    for key in keys:
        ours, theirs = (json.loads((tmp_path / side / key / "results.json").read_text()) for side in ("local", "ray"))
        assert {**comparable(theirs), "entry": None} == {**comparable(ours), "entry": None}


def test_a_cluster_answers_only_the_clients_with_its_own_token(cluster):
    # before: the clusters of one machine shared ~/.ray/auth_token (or had none), so a second cluster's head
    # writing it changed the token the first one's clients presented
    other = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    assert (alive_nodes(cluster.address, cluster.env), alive_nodes(cluster.address, other)) == (2, 0)


def test_a_node_that_fails_to_join_leaves_no_process_of_its_cluster():
    # before: stopping the node whose `ray start` had already ended raised ProcessLookupError, and the head
    # was never stopped
    temp = Path(tempfile.mkdtemp(prefix="scbray-"))
    with pytest.raises(AssertionError, match="Invalid value for '--num-cpus'"), two_nodes(temp, ["--num-cpus=many"]):
        pass
    assert (processes_with(str(temp)), temp.exists()) == ([], False)


def test_a_ray_engine_without_a_cluster_at_the_address_is_one_clear_error(tmp_path):
    port = free_ports(1)[0]
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"problems: {{greet: {FIXTURES / 'greet'}}}\nsolutions:\n"
                    f"  - {{problem: greet, path: {FIXTURES / 'greet/solutions/python/checkpoint_1'}}}\n")
    done = scbench("batch", plan, "--out", tmp_path / "out", "--engine", "ray", "--address", f"127.0.0.1:{port}")
    assert done.returncode == 2
    assert f"no Ray cluster answers at 127.0.0.1:{port}" in done.stderr


def test_a_solution_link_reaches_the_node_as_the_same_link(tmp_path):
    solution = tmp_path / "solution"
    solution.mkdir()
    (solution / "main.py").write_text("print(1)\n")
    (solution / "leak").symlink_to("/etc/passwd")
    (solution / "up").symlink_to("..")
    shipped = unpack(pack(solution), tmp_path / "node")
    assert sorted((path.name, os.readlink(path) if path.is_symlink() else path.read_text())
                  for path in shipped.iterdir()) == [("leak", "/etc/passwd"), ("main.py", "print(1)\n"), ("up", "..")]


def test_calibrate_on_the_ray_engine_gives_the_local_engines_panel(cluster, tmp_path):
    repo = tmp_path / "repos/three"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    branchy = "def g(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(12)) + "    return x\n"
    for name, text in (("a.py", "def f(x):\n    return x\n"), ("b.py", branchy), ("c.py", "x = 1\n")):
        (repo / name).write_text(text)
        subprocess.run(["git", "-C", str(repo), "add", name], check=True)
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=a", "-c", "user.email=a@example.org", "commit",
                        "-q", "-m", name], check=True)
    panel = tmp_path / "panel.yaml"
    panel.write_text(json.dumps({"commits": 3, "repositories": [{"name": "o/three", "path": "repos/three",
                                                                   "tier": "t"}]}))
    local = scbench("calibrate", panel, "--out", tmp_path / "local", "--json")
    assert local.returncode == 0, local.stderr
    remote = scbench("calibrate", panel, "--out", tmp_path / "ray", "--json", "--engine", "ray", "--address",
                     cluster.address, env={**os.environ, **cluster.env})
    assert remote.returncode == 0, remote.stderr
    result = json.loads(remote.stdout)
    assert result == json.loads(local.stdout)
    assert [(r["name"], r["points"]) for r in result["repositories"]] == [("o/three", 3)]
