"""Usage parsers on recorded-shape streams of each harness; snapshots, their diffs and redaction on real files."""

import json

import pytest

from scbench.agent.snapshot import diff, redact, take
from scbench.agent.table import agents, problems_of
from scbench.agent.usage import PARSERS
from scbench.rundir import Spend


def stream(*events, noise="warning: not JSON {at all\n"):
    return (noise + "".join(json.dumps(event) + "\n" for event in events)).encode()


STREAMS = {
    "claude-code": (stream({"type": "system", "subtype": "init"},
                           {"type": "assistant", "message": {"usage": {"input_tokens": 5, "output_tokens": 7}}},
                           {"type": "result", "total_cost_usd": 0.125,
                            "usage": {"input_tokens": 100, "cache_creation_input_tokens": 20,
                                      "cache_read_input_tokens": 3, "output_tokens": 40}}),
                    Spend(tokens_in=123, tokens_out=40, cost_usd=0.125)),
    "codex": (stream({"type": "thread.started"},
                     {"type": "turn.completed", "usage": {"input_tokens": 50, "cached_input_tokens": 10,
                                                          "output_tokens": 5}},
                     {"type": "turn.completed", "usage": {"input_tokens": 70, "output_tokens": 9}}),
              Spend(tokens_in=120, tokens_out=14)),
    "gemini-cli": (stream({"type": "message", "role": "assistant"},
                          {"type": "result", "stats": {"input_tokens": 11, "output_tokens": 2}}),
                   Spend(tokens_in=11, tokens_out=2)),
    "opencode": (stream({"type": "step_finish", "part": {"tokens": {"input": 10, "output": 4, "cache": {"read": 6}},
                                                         "cost": 0.5}},
                        {"type": "step_finish", "part": {"tokens": {"input": 1, "output": 1, "cache": {}},
                                                         "cost": 0.25}}),
                 Spend(tokens_in=17, tokens_out=5, cost_usd=0.75)),
    "none": (stream({"type": "result", "total_cost_usd": 9}), Spend()),
}


@pytest.mark.parametrize("parser", sorted(STREAMS))
def test_each_usage_parser_reads_its_harness_stream(parser):
    output, expected = STREAMS[parser]
    assert PARSERS[parser](output) == expected


@pytest.mark.parametrize("parser", sorted(set(PARSERS) - {"none"}))
def test_a_stream_without_usage_events_has_unknown_spend(parser):
    assert PARSERS[parser](b"Traceback (most recent call last):\n{not json\n") == Spend()


def test_every_agent_of_the_table_is_well_formed():
    assert {name: problems_of(agent) for name, agent in agents().items()} == dict.fromkeys(agents(), [])
    assert set(PARSERS) >= {agent.usage for agent in agents().values()}


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
