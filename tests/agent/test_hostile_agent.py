"""``scbench run`` against a hostile agent: what it leaves in its workspace, how it is run and resumed, what it
tries to keep alive. Each test is the agent that tried it (tests/fixtures/agents/scripted.py ``--plant``), at
every level it applies to; none gets its way and nothing is lost from the run directory."""

import json
import stat

import pytest

from scbench.rundir import read_run
from tests.agent.test_run import scripted, states

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
