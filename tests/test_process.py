"""Process containment in every sandbox level present: timeouts kill the whole tree, output is
bounded, the environment is exactly the one given, signal deaths are named."""

import os
import signal
import time
import uuid
from pathlib import Path

from conftest import processes_with
from scbench.grade.cli import grade_cli_step
from scbench.problem.model import CliStep
from scbench.run.cli_case import CliObservation
from scbench.sandbox.cgroup import hierarchies
from scbench.sandbox.process import base_environment

PATH = {"PATH": "/usr/bin:/bin"}
TERM_IGNORED_EXIT = {"local": -9, "bwrap": -15, "docker": -9}
"""The exit code of a process that ignores SIGTERM, killed at its timeout: ``bwrap`` itself dies of the SIGTERM."""


def run(sandbox, workdir: Path, script: str, timeout: float, env=PATH, stdin: bytes | None = None):
    return sandbox.exec([sandbox.python, "-c", script], workdir, env, workdir, stdin, timeout)


def test_timeout_kills_the_whole_process_group(sandbox, workdir):
    marker = f"scbench-test-{uuid.uuid4().hex}"
    script = f"import subprocess, time; subprocess.Popen(['sh', '-c', 'sleep 300; echo {marker}']); time.sleep(300)"
    result = run(sandbox, workdir, script, 1.0)
    assert result.timed_out
    assert result.exit_code < 0
    assert processes_with(marker) == []


def test_background_children_are_killed_when_the_main_process_exits(sandbox, workdir):
    marker = f"scbench-test-{uuid.uuid4().hex}"
    result = run(sandbox, workdir, f"import subprocess; subprocess.Popen(['sh', '-c', 'sleep 300; echo {marker}'])",
                 10.0)
    assert (result.exit_code, result.timed_out) == (0, False)
    assert processes_with(marker) == []


def test_output_is_bounded_and_the_writer_is_never_blocked(sandbox, workdir):
    script = "import sys; sys.stdout.write('x' * (20 * 1024 * 1024)); print('done', file=sys.stderr)"
    result = run(sandbox, workdir, script, 30.0)
    assert (len(result.stdout), result.truncated, result.stderr, result.exit_code) == \
        (sandbox.limits.output_bytes, True, b"done\n", 0)


def test_stdin_and_deterministic_environment(sandbox, workdir):
    env = base_environment(workdir / "home", workdir / "tmp")
    script = "import os, sys; print(sys.stdin.read().upper(), os.environ['TZ'], os.environ['LANG'], os.getcwd())"
    result = run(sandbox, workdir, script, 10.0, env, b"hi")
    assert result.stdout.decode() == f"HI UTC C.UTF-8 {workdir}\n"


def test_a_process_ignoring_sigterm_is_killed_after_the_grace_period(sandbox, workdir):
    script = "import signal as s, time; s.signal(s.SIGTERM, s.SIG_IGN); print('up', flush=True); time.sleep(9)"
    result = run(sandbox, workdir, script, 1.0)
    assert (result.timed_out, result.exit_code, result.stdout) == (True, TERM_IGNORED_EXIT[sandbox.name], b"up\n")


def test_descendants_that_leave_the_session_are_killed_too(sandbox, workdir):
    marker = f"scbench-test-{uuid.uuid4().hex}"
    daemon = f"import os, sys, time; os.setsid(); print('up', file=sys.stderr, flush=True); time.sleep(300) # {marker}"
    script = ("import subprocess as s, sys\n"
              f"child = s.Popen([sys.executable, '-c', {daemon!r}], stdout=sys.stdout, stderr=s.PIPE)\n"
              "child.stderr.readline()\n")
    started = time.monotonic()
    result = run(sandbox, workdir, script, 10.0)
    assert (result.exit_code, result.timed_out) == (0, False)
    assert time.monotonic() - started < 3, "the daemon kept the stdout pipe open"
    assert processes_with(marker) == []


def test_a_signal_death_is_named(sandbox, workdir):
    result = run(sandbox, workdir, "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", 10.0)
    [failure] = grade_cli_step(CliObservation(CliStep(timeout=10), result, {}))
    assert failure.message == "expected 0, actual -11 (SIGSEGV)"


def test_a_descendant_with_an_empty_environment_dies_with_its_run_except_under_local_without_cgroup(sandbox, workdir):
    # The main process waits until the grandchild has exec'd (no marker left to find it by); the
    # grandchild's shell outlives its first sleep, so killing only its child would not do.
    marker = f"scbench-test-{uuid.uuid4().hex}"
    script = ("import os, sys\n"
              "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
              f"        os.execve('/bin/sh', ['sh', '-c', 'sleep 30; sleep 30; echo {marker}'], {{}})\n"
              "    os._exit(0)\n"
              "os.wait()\n"
              "import time; time.sleep(0.5)\n")
    result = run(sandbox, workdir, script, 10.0)
    leftovers = processes_with(marker)
    for pid in leftovers:
        os.kill(pid, signal.SIGKILL)
    assert (result.exit_code, bool(leftovers)) == (0, sandbox.name == "local" and not hierarchies())


def test_the_programs_shipped_cases_run_are_in_every_level(sandbox, workdir):
    # before: the docker image had no bzip2, so execution_server's bz2 cases failed there (exit 127) and passed
    # under bwrap and local
    script = "echo bz | bzip2 | bzcat; echo gz | gzip | zcat; echo tar > t; tar -cf t.tar t; tar -tf t.tar"
    result = sandbox.exec(["sh", "-c", script], workdir, PATH, workdir, None, 10.0)
    assert (result.stdout, result.stderr, result.exit_code) == (b"bz\ngz\nt\n", b"", 0)
