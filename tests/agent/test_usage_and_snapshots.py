"""The agents table; snapshots, their diffs and redaction on real files (usage: tests/harness/)."""

from scbench.agent.snapshot import diff, redact, take
from scbench.agent.table import agents, problems_of
from scbench.harness.formats import FORMATS


def test_every_agent_of_the_table_is_well_formed():
    assert {name: problems_of(agent) for name, agent in agents().items()} == dict.fromkeys(agents(), [])
    assert set(FORMATS) >= {agent.usage for agent in agents().values()}
    assert {name: agent.harness() for name, agent in agents().items()} == {
        "claude-code": "@anthropic-ai/claude-code@2.0.51", "codex": "@openai/codex@0.74.0",
        "gemini-cli": "@google/gemini-cli@0.19.4", "opencode": "opencode-ai@1.0.134", "aider": "aider-chat@0.86.2",
        "replay": None}
    assert [name for name, agent in agents().items() if "{prompt_file}" in agent.command.split()] == ["aider"]


def test_a_snapshot_leaves_set_up_products_out_and_redacts_secrets(tmp_path):
    workspace = tmp_path / "workspace"
    (workspace / ".venv/bin").mkdir(parents=True)
    (workspace / ".venv/bin/python").write_text("binary")
    (workspace / "pkg").mkdir()
    (workspace / "pkg/main.py").write_text("KEY = 'sk-123456'\n")
    (workspace / "link").symlink_to("/etc")
    take(workspace, tmp_path / "snapshot", [("API_KEY", "sk-123456"), ("EMPTY", "")])
    assert sorted(p.relative_to(tmp_path / "snapshot").as_posix() for p in (tmp_path / "snapshot").rglob("*")) == \
        ["link", "pkg", "pkg/main.py"]
    assert (tmp_path / "snapshot/pkg/main.py").read_text() == "KEY = '[API_KEY]'\n"
    assert (tmp_path / "snapshot/link").is_symlink()
    assert redact(b"a sk-1 b sk-1", [("K", "sk-1")]) == b"a [K] b [K]"


def test_the_diff_covers_added_changed_removed_binary_and_unterminated_files(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    for root in (before, after):
        root.mkdir()
    (before / "same.txt").write_text("x\n")
    (after / "same.txt").write_text("x\n")
    (before / "gone.txt").write_text("old\n")
    (before / "main.py").write_text("a\nb\n")
    (after / "main.py").write_text("a\nc")
    (after / "blob.bin").write_bytes(b"\xff\xfe\x00")
    patch, changes = diff(before, after)
    assert [(c.path, c.kind, c.added, c.removed) for c in changes] == [
        ("blob.bin", "added", None, None), ("gone.txt", "removed", 0, 1), ("main.py", "changed", 1, 1)]
    assert patch == ("Binary files a/blob.bin and b/blob.bin differ\n"
                     "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n"
                     "--- a/main.py\n+++ b/main.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n")
    assert diff(None, after)[1][1].kind == "added"
