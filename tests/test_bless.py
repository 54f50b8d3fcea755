"""``scbench bless``: expected outputs from the reference, wildcards kept, nothing written unasked."""

import shutil
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES, scbench
from scbench.bless import keep_wildcards


def test_keep_wildcards_where_they_still_match():
    old = {"id": "[..]", "at": "2026-[..]", "n": 1, "list": ["a[..]", "b"]}
    new = {"id": 7, "at": "2025-01-01", "n": 2, "list": ["abc", "c"], "extra": True}
    assert keep_wildcards(old, new) == {"id": "[..]", "at": "2025-01-01", "n": 2, "list": ["a[..]", "c"],
                                        "extra": True}


@pytest.fixture
def stale(tmp_path: Path) -> Path:
    root = tmp_path / "kv"
    shutil.copytree(FIXTURES / "kv", root)
    core = root / "cases/checkpoint_1/core.yaml"
    core.write_text(core.read_text().replace('stdout: "blue\\n"', 'stdout: "green\\n"')
                    .replace('value: [{key: a, value: "1"}, {key: b, value: "2"}]', "value: null"))
    return root


def test_bless_asks_before_writing_and_never_writes_unasked(stale):
    before = (stale / "cases/checkpoint_1/core.yaml").read_text()
    done = scbench("bless", stale, "-c", 1)
    assert done.returncode == 1
    assert '-      - {name: get, args: [get, color], expect: {stdout: "green\\n"}}' in done.stderr
    assert "nothing written (re-run with --yes to write)" in done.stderr
    assert (stale / "cases/checkpoint_1/core.yaml").read_text() == before


def test_bless_refreshes_and_fills_then_check_is_green(stale):
    done = scbench("bless", stale, "-c", 1, "--yes")
    assert done.returncode == 0, done.stderr
    text = (stale / "cases/checkpoint_1/core.yaml").read_text()
    assert text.startswith("# yaml-language-server: $schema=")
    cases = yaml.safe_load(text)["cases"]
    assert cases[0]["steps"][1]["expect"]["stdout"] == "blue\n"
    assert cases[1]["expect"]["stdout"]["value"] == [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}]
    assert (stale / "cases/checkpoint_1/errors.yaml").read_text() == \
        (FIXTURES / "kv/cases/checkpoint_1/errors.yaml").read_text()
    assert scbench("check", stale).returncode == 0
    assert "every expectation already matches the reference" in scbench("bless", stale, "-c", 1).stderr


def test_bless_writes_expected_output_files_and_one_case_only(stale):
    core = stale / "cases/checkpoint_1/core.yaml"
    core.write_text(core.read_text().replace("format: jsonl\n        value: null", "format: jsonl\n"
                                             "        file: expected/dump.jsonl"))
    (stale / "cases/checkpoint_1/expected").mkdir()
    (stale / "cases/checkpoint_1/expected/dump.jsonl").write_text("")
    done = scbench("bless", stale, "-c", 1, "--case", "dump_sorted", "--yes")
    assert done.returncode == 0, done.stderr
    assert (stale / "cases/checkpoint_1/expected/dump.jsonl").read_text() == \
        '{"key": "a", "value": "1"}\n{"key": "b", "value": "2"}\n'
    assert 'stdout: "green\\n"' in core.read_text()


def test_bless_unknown_case_is_a_usage_error(stale):
    done = scbench("bless", stale, "-c", 1, "--case", "nope")
    assert (done.returncode, "no case nope in checkpoint 1" in done.stderr) == (2, True)


def test_bless_keeps_subsets_and_skips_steps_without_expectations(stale):
    core = stale / "cases/checkpoint_1/core.yaml"
    core.write_text(core.read_text().replace("      - {name: set, args: [set, color, blue], expect: {stdout: \"\"}}",
                                             "      - {name: set, args: [set, color, blue]}")
                    .replace("store.json: {format: json, value: {a: \"1\", b: \"2\"}}",
                             "store.json: {format: json, subset: true, value: {a: \"0\"}}"))
    done = scbench("bless", stale, "-c", 1, "--yes")
    assert done.returncode == 0, done.stderr
    case = yaml.safe_load(core.read_text())["cases"][1]
    assert case["expect"]["files"]["store.json"] == {"format": "json", "subset": True, "value": {"a": "1"}}
