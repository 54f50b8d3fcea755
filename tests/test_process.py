"""Process containment: timeouts kill the whole tree, output is bounded, the env is fixed."""

import sys
import time
import uuid
from pathlib import Path

from conftest import processes_with
from scbench.grade.cli import grade_cli_step
from scbench.problem.model import CliStep
from scbench.run import process
from scbench.run.cli_case import CliObservation


def test_timeout_kills_the_whole_process_group(tmp_path: Path):
    marker = f"scbench-test-{uuid.uuid4().hex}"
    script = f"import subprocess, time; subprocess.Popen(['sh', '-c', 'sleep 300; echo {marker}']); time.sleep(300)"
    result = process.run([sys.executable, "-c", script], tmp_path, {"PATH": "/usr/bin:/bin"}, None, 1.0)
    assert result.timed_out
    assert result.exit_code < 0
    assert processes_with(marker) == []


def test_background_children_are_killed_when_the_main_process_exits(tmp_path: Path):
    marker = f"scbench-test-{uuid.uuid4().hex}"
    script = f"import subprocess; subprocess.Popen(['sh', '-c', 'sleep 300; echo {marker}'])"
    result = process.run([sys.executable, "-c", script], tmp_path, {"PATH": "/usr/bin:/bin"}, None, 10.0)
    assert (result.exit_code, result.timed_out) == (0, False)
    assert processes_with(marker) == []


def test_output_is_bounded_and_the_writer_is_never_blocked(tmp_path: Path):
    script = "import sys; sys.stdout.write('x' * (20 * 1024 * 1024)); print('done', file=sys.stderr)"
    result = process.run([sys.executable, "-c", script], tmp_path, {}, None, 30.0)
    assert (len(result.stdout), result.truncated, result.stderr, result.exit_code) == \
        (process.OUTPUT_LIMIT, True, b"done\n", 0)


def test_stdin_and_deterministic_environment(tmp_path: Path):
    env = process.base_environment(tmp_path / "home", tmp_path / "tmp")
    script = "import os, sys; print(sys.stdin.read().upper(), os.environ['TZ'], os.environ['LANG'], os.getcwd())"
    result = process.run([sys.executable, "-c", script], tmp_path, env, b"hi", 10.0)
    assert result.stdout.decode() == f"HI UTC C.UTF-8 {tmp_path}\n"
    assert env["HOME"] == str(tmp_path / "home")


def test_a_process_ignoring_sigterm_is_killed_after_the_grace_period(tmp_path: Path):
    script = "import signal as s, time; s.signal(s.SIGTERM, s.SIG_IGN); print('up', flush=True); time.sleep(9)"
    result = process.run([sys.executable, "-c", script], tmp_path, {}, None, 1.0)
    assert (result.timed_out, result.exit_code, result.stdout) == (True, -9, b"up\n")


def test_descendants_that_leave_the_session_are_killed_too(tmp_path: Path):
    marker = f"scbench-test-{uuid.uuid4().hex}"
    daemon = f"import os, sys, time; os.setsid(); print('up', file=sys.stderr, flush=True); time.sleep(300) # {marker}"
    script = ("import subprocess as s, sys\n"
              f"child = s.Popen([sys.executable, '-c', {daemon!r}], stdout=sys.stdout, stderr=s.PIPE)\n"
              "child.stderr.readline()\n")
    started = time.monotonic()
    result = process.run([sys.executable, "-c", script], tmp_path, {"PATH": "/usr/bin:/bin"}, None, 10.0)
    assert (result.exit_code, result.timed_out) == (0, False)
    assert time.monotonic() - started < 3, "the daemon kept the stdout pipe open"
    assert processes_with(marker) == []


def test_a_signal_death_is_named(tmp_path: Path):
    result = process.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"],
                         tmp_path, {}, None, 10.0)
    [failure] = grade_cli_step(CliObservation(CliStep(timeout=10), result, {}))
    assert failure.message == "expected 0, actual -11 (SIGSEGV)"
