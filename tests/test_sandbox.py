"""The sandbox interface in every level present: limits, a persistent workspace for long runs
(as the agent loop uses it), the level chosen and recorded, and usage errors for absent levels."""

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, processes_with, replace_in, sandbox_levels, scbench
from scbench.evaluate.session import limits_of
from scbench.problem.compiler import compile_problem
from scbench.sandbox import relay
from scbench.sandbox.base import HOST, RUN_UID, host_variables
from scbench.sandbox.cgroup import hierarchies
from scbench.sandbox.limits import Limits
from scbench.sandbox.local import Local
from scbench.sandbox.process import base_environment
from scbench.sandbox.registry import registry

PROCESS_BOUND = {"local": bool(hierarchies()), "bwrap": bool(hierarchies()), "docker": True}
"""Whether a level bounds the number of processes of a run: local and bwrap where a cgroup is writable (local's
documented gap otherwise)."""


def python(box, workdir: Path, script: str, env: dict[str, str] | None = None, timeout: float = 20.0):
    return box.exec([box.python, "-c", script], workdir, env or {"PATH": "/usr/bin:/bin"}, workdir, None, timeout)


@pytest.mark.parametrize("level", sandbox_levels())
def test_memory_file_size_and_process_limits_hold(level):
    with registry()[level](Limits(memory_mb=64, processes=24, file_mb=1)) as box:
        workdir = box.scratch / "run"
        workdir.mkdir()
        box.own(workdir)
        memory = python(box, workdir, "x = bytearray(128 * 2**20)")
        written = python(box, workdir, "import signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
                                       "try:\n    open('big', 'wb').write(b'x' * 2**21)\nexcept OSError as e:\n"
                                       "    print(e.strerror)")
        forks = python(box, workdir, "import os, time\nn = 0\ntry:\n    while n < 40:\n"
                                     "        if os.fork() == 0:\n            time.sleep(5)\n            os._exit(0)\n"
                                     "        n += 1\nexcept OSError:\n    pass\nprint(n)")
    assert b"MemoryError" in memory.stderr and memory.exit_code == 1
    assert (written.stdout, (workdir / "big").stat().st_size if (workdir / "big").exists() else 2**20) == \
        (b"File too large\n", 2**20)
    assert (int(forks.stdout) < 24) == PROCESS_BOUND[level]


@pytest.mark.parametrize("level", sandbox_levels())
def test_a_run_that_ends_leaves_the_runs_beside_it_alone(level):
    # before: docker killed every process of the container without a marker, so another run's
    # child with a cleared environment (or an exec still starting) died when any run ended
    with registry()[level](parallel=2) as box:
        workdir = box.scratch / "run"
        workdir.mkdir()
        box.own(workdir)
        beside = box.spawn([box.python, "-c", "import subprocess; print(subprocess.run(['/bin/sleep', '3'], "
                                              "env={}).returncode)"], workdir, {"PATH": "/usr/bin:/bin"}, workdir)
        ending = python(box, workdir, "import time; time.sleep(1)")
        assert (ending.exit_code, beside.wait(20).stdout) == (0, b"0\n")


@pytest.mark.parametrize("level", sandbox_levels())
def test_a_workspace_persists_across_runs_and_is_copied_out(level, tmp_path, monkeypatch):
    monkeypatch.setenv("SCBENCH_TEST_TOKEN", "s3cret")
    (tmp_path / "secret").write_text("the host's secret\n")
    (tmp_path / "agent").mkdir()
    workspace = tmp_path / "agent" / "workspace"
    with registry()[level](writable=[tmp_path / "agent"]) as box:
        box.copy_in(FIXTURES / "greet" / "solutions" / "python" / "checkpoint_1", workspace)
        box.own(tmp_path / "agent")
        env = {**base_environment(workspace, workspace), **host_variables(["SCBENCH_TEST_TOKEN", "NOT_SET_ANYWHERE"])}
        first = python(box, workspace, "import os; open('notes.txt', 'w').write(os.environ['SCBENCH_TEST_TOKEN']); "
                                       f"os.symlink({str(tmp_path / 'secret')!r}, 'leak')", env)
        process = box.spawn([box.python, "-c", "import time; time.sleep(0.5); print(open('notes.txt').read())"],
                            workspace, env, workspace)
        second = process.wait(20)
        box.copy_out(workspace, tmp_path / "out")
    assert (first.exit_code, second.stdout, second.timed_out) == (0, b"s3cret\n", False)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["greet.py", "leak", "notes.txt"]
    assert os.readlink(tmp_path / "out" / "leak") == str(tmp_path / "secret")  # copied as a link, not followed
    assert "NOT_SET_ANYWHERE" not in env and env["SCBENCH_TEST_TOKEN"] == "s3cret"


RESERVE_1_GIB = ("import mmap\n"
                 "try:\n    mmap.mmap(-1, 2**30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000)\n"
                 "    print('reserved')\nexcept OSError as e:\n    print(e.strerror)")
"""A private writable mapping of 1 GiB, reserved and never touched (MAP_NORESERVE), as rego-cpp's allocator
makes at start-up."""


@pytest.mark.parametrize("level", sandbox_levels())
def test_an_address_space_limit_lets_a_process_reserve_more_than_its_memory(level):
    # before: the only way was a memory_mb of 1 TiB (dcsa checkpoint 4), which lifted the tree's memory bound too
    reserved = {}
    for address_space_mb in (None, 2048):
        with registry()[level](Limits(memory_mb=256, address_space_mb=address_space_mb)) as box:
            workdir = box.scratch / "run"
            workdir.mkdir()
            box.own(workdir)
            reserved[address_space_mb] = python(box, workdir, RESERVE_1_GIB).stdout
    assert reserved == {None: b"Cannot allocate memory\n", 2048: b"reserved\n"}


def test_checkpoint_limits_override_the_problem_limits(tmp_path):
    root = tmp_path / "kv"
    shutil.copytree(FIXTURES / "kv", root)
    config = (root / "config.yaml").read_text()
    config = config.replace("timeout: 10\n", "timeout: 10\nlimits: {memory_mb: 512, cpu_s: 5}\n")
    config = config.replace("checkpoint_2: {order: 2}",
                            "checkpoint_2: {order: 2, limits: {cpu_s: 7, output_mb: 2, address_space_mb: 1048576}}")
    (root / "config.yaml").write_text(config)
    bundle = compile_problem(root)
    assert (limits_of(bundle, 1), limits_of(bundle, 2)) == (
        Limits(memory_mb=512, processes=256, cpu_s=5, file_mb=256, output_mb=8),
        Limits(memory_mb=512, processes=256, cpu_s=7, file_mb=256, output_mb=2, address_space_mb=1048576))
    assert limits_of(bundle, 2).prlimit()[1] == f"--data={2**40}"


def test_memory_and_address_space_limits_are_bounded(kv_copy):
    replace_in(kv_copy / "config.yaml", "timeout: 10\n",
               "timeout: 10\nlimits: {memory_mb: 1048576, address_space_mb: 8388608}\n")
    done = scbench("compile", kv_copy)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "limits.memory_mb: must be at most 262144, got 1048576" in done.stderr
    assert "limits.address_space_mb: must be at most 4194304, got 8388608" in done.stderr


@pytest.mark.parametrize("level", sandbox_levels())
def test_the_level_used_is_recorded_in_the_results(kv, tmp_path, level):
    done = scbench("eval", kv, "-c", 1, "-s", kv / "solutions/python/checkpoint_1", "--sandbox", level,
                   "--out", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    recorded = json.loads((tmp_path / "results.json").read_text())["sandbox"]
    assert recorded == registry()[level]().description
    assert f"sandbox {recorded}" in done.stdout


@pytest.fixture
def home_cache(tmp_path):
    """A cache directory in the user's real home (where scbench keeps it by default), removed after. Its name is
    unique: pytest's workers each number their temporary directories from 0, so ``tmp_path.name`` repeats across
    workers, and one test's teardown removed the cache another test was running on."""
    cache = Path.home() / ".cache" / f"scbench-test-{uuid.uuid4().hex}"
    yield cache
    shutil.rmtree(cache, ignore_errors=True)


@pytest.mark.parametrize("level", sandbox_levels())
def test_a_cache_in_the_users_home_serves_every_level(kv, home_cache, level):
    # before: run as root, the docker runs' user could not pass the image's /root (mode 0700)
    done = scbench("eval", kv, "-c", 1, "-s", kv / "solutions/python/checkpoint_1", "--sandbox", level,
                   env={**os.environ, "SCBENCH_CACHE": str(home_cache)})
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_unknown_or_absent_sandbox_is_a_usage_error(kv):
    unknown = scbench("check", kv, "--sandbox", "vm")
    absent = scbench("eval", kv, "-c", 1, "-s", kv, "--sandbox", "docker",
                     env={**os.environ, "SCBENCH_DOCKER_IMAGE": "scbench-never-built:latest"})
    assert (unknown.returncode, "unknown sandbox 'vm'; known: bwrap, docker, local" in unknown.stderr) == (2, True)
    assert (absent.returncode, "Traceback" in absent.stderr) == (2, False)
    assert "sandbox 'docker' is not available here" in absent.stderr


@pytest.mark.parametrize("level", [param for param in sandbox_levels() if param.values == ("docker",)])
def test_a_track_the_docker_image_lacks_is_one_clear_error(level, tmp_path):
    greet = FIXTURES / "greet"
    done = scbench("eval", greet, "-c", 1, "-s", greet / "solutions/rust/checkpoint_1", "-t", "rust",
                   "--sandbox", level, "--out", tmp_path)
    assert (done.returncode, "Traceback" in done.stderr) == (1, False)
    assert "the docker sandbox has the python, node tracks, not rust: pass another --sandbox" in done.stderr


NATIVE_DEPENDENCIES = [("code_search", 4, "node", "spec_example"),
                       ("dynamic_config_service_api", 4, "python", "no_binding_no_policies")]
"""A solution whose dependencies are native code: tree-sitter from npm, regopy's rego-cpp (libatomic)."""


@pytest.mark.parametrize("level", sandbox_levels())
@pytest.mark.parametrize(("problem", "number", "track", "case"), NATIVE_DEPENDENCIES)
def test_solutions_with_native_dependencies_set_up_and_pass_in_every_level(level, problem, number, track, case,
                                                                          tmp_path):
    # before: the docker image had Node.js without npm ("prlimit: failed to execute npm") and no
    # libatomic ("OSError: libatomic.so.1"), so these references failed there
    directory = ROOT / "problems" / problem
    solution = directory / f"solutions/{track}/checkpoint_{number}"
    done = scbench("eval", directory, "-c", number, "-t", track, "-s", solution, "--sandbox", level, "-k", case,
                   "--out", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((tmp_path / "results.json").read_text())["summary"]
    assert (summary["counts"]["core"], summary["strict"]) == ({"passed": 1, "total": 1}, None)  # -k: no solve rate


@pytest.mark.skipif(shutil.which("debootstrap") is None or os.geteuid() != 0, reason="needs root and debootstrap")
def test_an_image_build_that_fails_is_one_clear_error():
    # before: a failed debootstrap ended `scbench sandbox build-image` with a traceback, and its own
    # messages (on its stdout) were thrown away
    done = scbench("sandbox", "build-image", "--mirror", "http://127.0.0.1:9/debian")
    assert (done.returncode, "Traceback" in done.stderr) == (1, False)
    assert "error: the image was not built: `debootstrap --variant=minbase" in done.stderr
    assert "127.0.0.1:9" in done.stderr.split("error:")[0]


def test_the_relay_passes_each_write_on_at_once():
    """The relay's connection into a sandbox has Nagle's algorithm off: with it on, a request's
    body (a second write after its headers) waited for the server's delayed ACK, 40 ms per POST."""
    with socket.create_server((HOST, 0)) as server, relay.connect(server.getsockname()[1]) as upstream:
        assert upstream.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1


def answer_early(server: socket.socket) -> None:
    """Read the headers of the first request (connections that send nothing, such as the relay's
    readiness probe, are skipped), answer 413 and close without reading the body, as a server that
    refuses a too-large request does."""
    head = b""
    while b"\r\n\r\n" not in head:
        conn, _ = server.accept()
        head = conn.recv(65536)
        while head and b"\r\n\r\n" not in head:
            head += conn.recv(65536)
    with conn:
        conn.sendall(b"HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


def test_a_response_sent_before_the_request_ends_reaches_the_client(tmp_path):
    """A server that answers before reading the whole request (413 for a body too large) and closes:
    the relay used to close both sides when its write to the server failed, so the client got a reset
    instead of the answer. It now discards the rest of the request and passes the answer on."""
    path = tmp_path / "port.sock"
    with socket.create_server((HOST, 0)) as server:
        answering = threading.Thread(target=answer_early, args=(server,))
        answering.start()
        bridge = subprocess.Popen([sys.executable, "-S", relay.__file__, str(path), str(server.getsockname()[1])])
        try:
            while not path.exists():
                time.sleep(0.01)
            with relay.unix(str(path)) as client:
                client.sendall(b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 33554432\r\n\r\n")
                client.sendall(b"x" * 2**25)
                client.shutdown(socket.SHUT_WR)
                answer = b"".join(iter(lambda: client.recv(65536), b""))
        finally:
            bridge.kill()
            bridge.wait()
            answering.join()
    assert answer.split(b"\r\n")[0] == b"HTTP/1.1 413 Payload Too Large"


CONTAINED = {"bwrap", "docker"}
"""The levels that contain identity and network (local runs as the user, on the host's network)."""


@pytest.mark.parametrize("level", sandbox_levels())
def test_runs_are_an_unused_uid_that_cannot_read_what_only_root_may(level, tmp_path):
    secret = tmp_path / "shown" / "root-only"
    secret.parent.mkdir()
    secret.write_text("the host's secret\n")
    secret.chmod(0o600)
    with registry()[level](visible=[secret.parent]) as box:
        workdir = box.scratch / "run"
        workdir.mkdir()
        box.own(workdir)
        done = python(box, workdir, "import os\nprint(os.getuid(), os.getgid(), os.getgroups())\n"
                                    f"try:\n    print(open({str(secret)!r}).read())\nexcept OSError as e:\n"
                                    "    print(e.strerror)\nopen('made', 'w').close()")
        owner = (workdir / "made").stat().st_uid
    contained = level in CONTAINED and os.getuid() == 0
    expected_uid = RUN_UID if contained else os.getuid()
    assert done.stdout.decode().splitlines()[0].split()[:2] == [str(expected_uid)] * 2
    assert done.stdout.decode().splitlines()[1] == ("Permission denied" if contained else "the host's secret")
    assert owner == expected_uid


EGRESS_PROBE = """
import socket, sys, urllib.request
for url in sys.argv[1:]:
    try:
        print(urllib.request.urlopen(url, timeout=20).status)
    except Exception as error:
        print(type(error).__name__)
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"escaped")
    print("loopback connected")
except OSError:
    print("no loopback")
"""


@pytest.mark.parametrize("level", [level for level in sandbox_levels() if level.values[0] in CONTAINED])
def test_a_run_reaches_its_allowed_hosts_only_through_the_egress_proxy(level):
    listener = socket.create_server((HOST, 0))
    port = listener.getsockname()[1]
    with registry()[level](network=("pypi.org",)) as box:
        workdir = box.scratch / "run"
        workdir.mkdir()
        box.own(workdir)
        done = box.exec([box.python, "-c", EGRESS_PROBE.format(port=port), "https://pypi.org/simple/six/",
                         "https://example.com/", f"https://{HOST}:{port}/"], workdir,
                        {"PATH": "/usr/bin:/bin", "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt"},
                        workdir, None, 60)
        refused = list(box.refused)
    listener.settimeout(0.5)
    with pytest.raises(TimeoutError):
        listener.accept()
    listener.close()
    assert done.stdout.decode().split() == ["200", "URLError", "URLError", "no", "loopback"]
    assert refused == ["refused CONNECT example.com:443: example.com is not an allowed host (pypi.org)",
                       f"refused CONNECT {HOST}:{port}: only port 443 is allowed"]


def test_sandbox_list_states_what_each_level_contains_and_what_not():
    done = scbench("sandbox", "list")
    levels = {}
    for line in done.stdout.splitlines():
        if not line.startswith(" "):
            current = levels.setdefault(line.split(":")[0], [])
        elif line.startswith("  contains: "):
            current.append(line.removeprefix("  contains: ").split(":")[0])
    assert done.returncode == 0
    assert levels == dict.fromkeys(("bwrap", "docker", "local"), ["processes", "files", "network", "uid", "toolchains"])


def test_a_docker_engine_that_is_not_this_machines_is_refused():
    # runs are waited for and killed by their host pids: a remote engine's pids would name local processes
    done = scbench("sandbox", "list", env={**os.environ, "DOCKER_HOST": "tcp://192.0.2.1:2375"})
    assert ("docker: not available: DOCKER_HOST=tcp://192.0.2.1:2375 is not a local engine: runs are waited for "
            "and killed by their host pids, so the engine must run on this machine (unset DOCKER_HOST, or a "
            "unix:// socket)") in done.stdout.splitlines()


def test_a_machine_without_pidfds_says_so_instead_of_failing_later(monkeypatch):
    # before: the local level was available wherever prlimit was, and the first run died with an
    # AttributeError on os.pidfd_open (macOS) or an OSError (a kernel before 5.3)
    assert Local.unavailable() == ""
    monkeypatch.delattr(os, "pidfd_open")
    assert Local.unavailable() == f"scbench runs solutions on Linux only (it needs pidfds and /proc); this is " \
                                  f"{sys.platform}"


@pytest.mark.parametrize("level", sandbox_levels())
def test_a_discarded_run_directory_is_gone_when_the_sandbox_stops(level):
    with registry()[level]() as box:
        workdir = box.scratch / "run"
        workdir.mkdir()
        box.own(workdir)
        assert python(box, workdir, "import os; os.makedirs('a/b'); open('a/b/c', 'w').write('x')").exit_code == 0
        box.discard(workdir)
        scratch = box.scratch
    assert (workdir.exists(), scratch.exists()) == (False, False)


def test_a_local_run_still_going_when_its_sandbox_stops_is_killed_by_the_guard():
    # the guard (one per local sandbox) kills what is still watched at the end of its input: the sandbox's stop
    # or scbench's death
    marker = f"scbench-test-{os.getpid()}-still-going"
    with Local() as box:
        workdir = box.scratch / "run"
        workdir.mkdir()
        box.spawn(["sh", "-c", f"sleep 30; echo {marker}"], workdir, {"PATH": "/usr/bin:/bin"}, workdir)
        assert processes_with(marker) != []
    deadline = time.monotonic() + 20
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with(marker) == []
