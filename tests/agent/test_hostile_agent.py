"""``scbench run`` against a hostile agent: what it leaves in its workspace, how it is run and resumed, what it
tries to keep alive. Each test is the agent that tried it (tests/fixtures/agents/scripted.py ``--plant``), at
every level it applies to; none gets its way and nothing is lost from the run directory."""

import json
import os
import secrets
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, processes_with, scbench
from scbench.agent.snapshot import forms
from scbench.rundir import read_run
from tests.agent.test_run import CALC, REFERENCES, SCRIPTED, scripted, states

CONTAINED = ["bwrap", "docker"]


@pytest.mark.parametrize("level", CONTAINED)
def test_special_files_are_left_out_and_recorded_and_setuid_bits_dropped(tmp_path, level):
    done = scripted(tmp_path / "run", "--plant", "fifo", "--plant", "socket", "--plant", "setuid",
                    extra=["--sandbox", level])
    assert done.returncode == 0, done.stderr
    assert states(tmp_path / "run") == [("done", True, True, True)] * 3
    record = read_run(tmp_path / "run")
    assert [cp.left_out for cp in record.checkpoints] == [["pipe (a FIFO)", "sock (a socket)"]] * 3
    snapshot = tmp_path / "run/checkpoint_3/snapshot"
    modes = {name: stat.S_IMODE((snapshot / name).stat().st_mode) for name in ("tool", "shared", "drop")}
    assert modes == {"tool": 0o755, "shared": 0o775, "drop": 0o777}
    assert sorted(path.name for path in snapshot.iterdir()) == ["calc.py", "drop", "shared", "tool"]


@pytest.mark.parametrize("level", CONTAINED)
def test_names_that_are_no_utf8_crash_neither_the_run_nor_its_report(tmp_path, level):
    done = scripted(tmp_path / "run", "--plant", "bad-names", extra=["--sandbox", level])
    assert done.returncode == 0, done.stderr
    assert states(tmp_path / "run") == [("done", True, True, True)] * 3
    assert read_run(tmp_path / "run").checkpoint(1).left_out == ["pipe\\xff (a FIFO)"]
    assert sorted(os.listdir(os.fsencode(tmp_path / "run/checkpoint_1/snapshot"))) == [b"caf\xe9.py", b"calc.py",
                                                                                         b"link"]
    patch = (tmp_path / "run/checkpoint_1/diff.patch").read_text()
    assert "+++ b/caf\\xe9.py\n" in patch and "+-> \\xfe\n" in patch
    report = scbench("report", tmp_path / "run", "--html", tmp_path / "report.html")
    assert report.returncode == 0, report.stderr


@pytest.mark.parametrize(("plant", "reason"), [
    ("sparse", "blob.bin holds 700,000,000 bytes, over the 10 MB of one file"),
    ("sparse-many", "104,500,276 bytes in all, over 100 MB"),  # 11 parts and calc.py
    ("many", "over 2000 files"),
])
def test_a_workspace_over_the_snapshot_bounds_ends_the_run_with_the_reason(tmp_path, plant, reason):
    done = scripted(tmp_path / "run", "--plant", plant)
    assert done.returncode == 1
    record = read_run(tmp_path / "run")
    why = f"the workspace was not snapshotted: {reason}"
    assert [(cp.status, cp.stop_reason) for cp in record.checkpoints] == [
        ("failed", why), ("not_run", f"not run: checkpoint_1: {why}"), ("not_run", f"not run: checkpoint_1: {why}")]
    assert not (tmp_path / "run/checkpoint_1/snapshot").exists()
    assert (tmp_path / "run/checkpoint_1/trajectory.txt").exists()


def test_quality_measurement_skips_a_huge_source_file_and_says_so(tmp_path):
    done = scripted(tmp_path / "run", "--plant", "big-py")
    assert done.returncode == 0, done.stderr
    quality = json.loads((tmp_path / "run/checkpoint_1/results.json").read_text())["quality"]
    assert quality["skipped"] == [{"path": "generated.py", "reason": "600,000 bytes, over the 512 KiB of a "
                                                                      "measured file"}]
    assert quality["files"] == 1


def test_the_local_level_needs_an_explicit_opt_in(tmp_path):
    done = scripted(tmp_path / "run", extra=["--sandbox", "local"])
    assert done.returncode == 2
    assert "the local level contains nothing: the agent would run as you" in done.stderr
    assert "add --uncontained to run it anyway" in done.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("level", ["local", *CONTAINED])
def test_a_daemon_left_by_the_agent_dies_before_grading_and_forges_nothing(tmp_path, level):
    # The last checkpoint's results, unsolved (the agent stops at checkpoint 1's solution), are written after the
    # last agent ended: only a daemon that outlived it could rewrite them. (At local, an agent that runs may
    # rewrite earlier results itself: that is what marking the run uncontained says.)
    results = tmp_path / "run/checkpoint_3/results.json"
    done = scripted(tmp_path / "run", "--freeze-after", "1", "--forge", str(results),
                    extra=["--sandbox", level, "--uncontained"])
    assert done.returncode == 0, done.stderr
    assert processes_with(str(results)) == []
    assert states(tmp_path / "run") == [("done", True, True, True)] + [("done", False, False, False)] * 2
    record = read_run(tmp_path / "run")
    assert (record.sandbox, record.uncontained) == (level, level == "local")
    report = scbench("report", tmp_path / "run", "--html", tmp_path / "report.html")
    note = f"{tmp_path / 'run'}: its agent ran uncontained (sandbox local)"
    assert (note in report.stdout, note in (tmp_path / "report.html").read_text()) == (level == "local",) * 2


def test_resume_refuses_a_weaker_sandbox_or_another_cost_limit_unless_allowed(tmp_path):
    (tmp_path / "stall").touch()
    stall = os.path.relpath(tmp_path / "stall", ROOT)
    first = scripted(tmp_path / "run", "--stall-at", "2", stall, extra=["--sandbox", "bwrap", "--timeout", "5"])
    assert first.returncode == 1
    (tmp_path / "stall").unlink()
    weaker = scripted(tmp_path / "run", "--stall-at", "2", stall, extra=["--resume", "--sandbox", "local",
                                                                           "--uncontained"])
    assert weaker.returncode == 2
    assert "ran with sandbox 'bwrap' (now 'local'): resume it with the same --sandbox and --cost-limit, or add " \
           "--allow-changed-settings" in weaker.stderr
    richer = scripted(tmp_path / "run", "--stall-at", "2", stall, extra=["--resume", "--sandbox", "bwrap",
                                                                           "--cost-limit", "100"])
    assert richer.returncode == 2 and "ran with cost limit None (now 100.0)" in richer.stderr
    assert [cp.status for cp in read_run(tmp_path / "run").checkpoints] == ["done", "failed", "not_run"]
    allowed = scripted(tmp_path / "run", "--stall-at", "2", stall, extra=["--resume", "--sandbox", "docker",
                                                                            "--allow-changed-settings"])
    assert allowed.returncode == 0, allowed.stderr
    record = read_run(tmp_path / "run")
    assert [(cp.status, cp.sandbox) for cp in record.checkpoints] == [("done", "bwrap"), ("done", "docker"),
                                                                      ("done", "docker")]
    assert (record.sandbox, record.uncontained) == ("docker", False)


def test_a_secret_leaked_encoded_in_a_name_or_a_link_is_redacted_everywhere(tmp_path):
    value = f"sk {secrets.token_hex(12)}&+="
    done = scripted(tmp_path / "run", "--leak-forms", "SCBENCH_TEST_SECRET", extra=["--secret", "SCBENCH_TEST_SECRET"],
                    env={**os.environ, "SCBENCH_TEST_SECRET": value})
    assert done.returncode == 0, done.stderr
    leaked = forms(value)
    assert len(leaked) == 8  # itself, 2 hex, 2 URL-encoded, 3 base64 offsets
    written = [path for path in (tmp_path / "run").rglob("*") if value in str(path) or (
        path.is_symlink() and value in os.readlink(path)) or (path.is_file() and not path.is_symlink() and any(
            form in path.read_bytes() for form in leaked))]
    assert written == []
    snapshot = tmp_path / "run/checkpoint_1/snapshot"
    assert os.readlink(snapshot / "pointer") == "/run/[SCBENCH_TEST_SECRET]"
    assert (snapshot / "[SCBENCH_TEST_SECRET].txt").read_text() == "named after it\n"
    patch = (tmp_path / "run/checkpoint_1/diff.patch").read_text()
    assert "+++ b/[SCBENCH_TEST_SECRET].txt" in patch and "+-> /run/[SCBENCH_TEST_SECRET]" in patch
    assert (snapshot / "encoded.txt").read_text().count("[SCBENCH_TEST_SECRET]") == 7


def _eventually_gone(marker: str) -> list[int]:
    """The processes with ``marker`` left once they are gone, or after 30 s (a kill is asynchronous)."""
    deadline = time.monotonic() + 30
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return processes_with(marker)


def _containers(under: Path) -> set[str]:
    """Ids of the containers, running or not, that scbench labelled with the lock of a scratch directory
    ``under`` a directory (a test's own TMPDIR: tests beside it start containers of their own)."""
    listed = subprocess.run(["docker", "ps", "-a", "--no-trunc", "--filter", "label=scbench.lock", "--format",
                             '{{.ID}} {{.Label "scbench.lock"}}'], capture_output=True, text=True, check=True)
    labelled = (line.split(" ", 1) for line in listed.stdout.splitlines())
    return {container for container, lock in labelled if lock.startswith(f"{under}/")}


@pytest.mark.parametrize("level", ["local", *CONTAINED])
def test_a_sigkilled_run_leaves_nothing_running_after_its_next_start(tmp_path, level):
    (tmp_path / "stall").touch()
    stall = os.path.relpath(tmp_path / "stall", ROOT)
    marker = f"--stall-at 1 {tmp_path / 'stall'}"  # the agent's own command line: its paths made absolute
    argv = [sys.executable, "-m", "scbench", "run", str(CALC), "--agent-command",
            f"{{python}} {SCRIPTED} {{snapshots}} {{checkpoint}} --stall-at 1 {stall}", "--snapshots", str(REFERENCES),
            "--out", str(tmp_path / "run"), "--sandbox", level, "--uncontained"]
    # a temporary directory of its own: any other scbench starting meanwhile (another test) removes stale areas
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    while not (agents := processes_with(marker)):
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.05)
    area = Path(os.readlink(f"/proc/{agents[0]}/cwd")).parent
    left = _containers(tmp_path / "tmp") if level == "docker" else set()
    process.send_signal(signal.SIGKILL)
    process.wait()
    if level != "docker":  # docker's container keeps its agent until the next start
        assert _eventually_gone(marker) == []
    assert area.is_dir() and area.with_suffix(".lock").exists()
    (tmp_path / "stall").unlink()
    done = scbench(*argv[3:], "--resume", env=env)
    assert done.returncode == 0, done.stderr
    assert processes_with(marker) == []
    assert (area.exists(), area.with_suffix(".lock").exists()) == (False, False)
    assert left & _containers(tmp_path / "tmp") == set()
    assert states(tmp_path / "run") == [("done", True, True, True)] * 3
