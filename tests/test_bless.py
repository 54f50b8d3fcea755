"""``scbench bless``: expected outputs from the reference, wildcards kept, nothing written unasked."""

import shutil
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES, scbench
from scbench.bless.values import keep_wildcards


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
    assert '-      - {name: get, args: [get, color], expect: {stdout: "green\\n"}}' in done.stdout
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


PASSING = """\
# every expectation below passes as written; bless must not touch a byte
cases:
  - id: forms
    files: {store.json: {json: {b: "2", a: "1", c: "3"}}}
    args: [dump]
    expect:
      stdout: {format: jsonl, unordered: true, value: [{key: c, value: "3"}, {key: a, value: "1"},
                                                        {key: b, value: '2'}]}   # odd wrap, kept
      files:
        store.json: {format: json, subset: true, value: {a: '1'}}
  - id: ignore_and_wildcards
    files: {store.json: {json: {b: "2", a: "1"}}}
    args: [ dump ]
    expect:
      stdout:
        format: jsonl
        ignore: ["$[*].value"]
        value: [{key: a}, {key: "[..]"}]
      stderr: ""
  - id: tolerance
    files: {doc.txt: {copy: docs/a.txt}}
    args: [count, doc.txt]
    expect: {stdout: {format: json, value: {lines: 2, words: 5, ratio: 2.4999}, tolerance: {abs: 0.01}}}
  - id: text_wildcards
    args: [get, nope]
    expect: {exit_code: 1, stderr: "error: [..]\\n...\\n"}
"""


def test_bless_leaves_passing_expectations_and_every_byte_as_written(stale):
    (stale / "cases/checkpoint_2/passing.yaml").write_text(PASSING)
    before = {path: path.read_bytes() for path in (stale / "cases").rglob("*.yaml")}
    done = scbench("bless", stale, "-c", 2, "--yes")
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert "every expectation already matches the reference" in done.stderr
    assert {path: path.read_bytes() for path in (stale / "cases").rglob("*.yaml")} == before


def test_an_edited_file_changes_only_the_refreshed_value(stale):
    case_file = stale / "cases/checkpoint_2/passing.yaml"
    case_file.write_text(PASSING.replace("ratio: 2.4999}, tolerance: {abs: 0.01}", "ratio: 2.4}")
                         .replace('value: [{key: a}, {key: "[..]"}]', 'value: [{key: a}, {key: "[..]"}, {key: c}]'))
    done = scbench("bless", stale, "-c", 2, "--yes")
    assert done.returncode == 0, done.stderr
    assert case_file.read_text() == PASSING.replace("ratio: 2.4999}, tolerance: {abs: 0.01}",
                                                    "ratio: 2.5}").replace(
        '        value: [{key: a}, {key: "[..]"}]', '        value:\n          - {key: a}\n          - {key: b}')


def test_bless_fills_missing_expectations_and_creates_expected_output_files(tmp_path):
    stale = tmp_path / "kv"
    shutil.copytree(FIXTURES / "kv", stale)
    case_file = stale / "cases/checkpoint_2/new.yaml"
    case_file.write_text("cases:\n  - id: fresh\n    args: [count, \"{data}/docs/a.txt\"]\n"
                         "  - id: to_file\n    files: {store.json: {json: {a: \"1\"}}}\n    args: [dump]\n"
                         "    expect:\n      stdout: {format: jsonl, file: expected/dump.jsonl}\n"
                         "      files: {store.json: {format: json}}\n")
    assert scbench("compile", stale).returncode == 2
    done = scbench("bless", stale, "-c", 2, "--case", "fresh", "--case", "to_file", "--target", "stdout",
                   "--target", "exit_code", "--target", "files", "--yes")
    assert done.returncode == 0, done.stderr
    assert case_file.read_text() == (
        "cases:\n  - id: fresh\n    args: [count, \"{data}/docs/a.txt\"]\n"
        "    expect:\n      stdout:\n        format: json\n        value: {lines: 2, words: 5, ratio: 2.5}\n"
        "      exit_code: 0\n"
        "  - id: to_file\n    files: {store.json: {json: {a: \"1\"}}}\n    args: [dump]\n"
        "    expect:\n      stdout: {format: jsonl, file: expected/dump.jsonl}\n"
        "      files: {store.json: {format: json, value: {a: '1'}}}\n      exit_code: 0\n")
    assert (stale / "cases/checkpoint_2/expected/dump.jsonl").read_text() == '{"key": "a", "value": "1"}\n'
    assert scbench("check", stale).returncode == 0


def test_an_unknown_target_is_a_usage_error(stale):
    done = scbench("bless", stale, "-c", 1, "--target", "body")
    known = "unknown target 'body'; known: stdout, stderr, exit_code, files"
    assert (done.returncode, known in done.stderr) == (2, True)


def test_bless_target_stderr_fills_a_missing_stderr_expectation(kv_copy):
    case_file = kv_copy / "cases/checkpoint_1/more.yaml"
    case_file.write_text("category: error\ncases:\n  - id: missing_key\n    args: [get, nope]\n"
                         "    expect: {exit_code: 1}\n")
    done = scbench("bless", kv_copy, "-c", 1, "--case", "missing_key", "--target", "stderr", "--yes")
    assert done.returncode == 0, done.stderr
    assert case_file.read_text() == ("category: error\ncases:\n  - id: missing_key\n    args: [get, nope]\n"
                                     "    expect: {exit_code: 1, stderr: \"error: no such key\\n\"}\n")
    assert scbench("check", kv_copy).returncode == 0


def test_bless_writes_toml_and_ini_expectations_as_documents(kv_copy):
    case_file = kv_copy / "cases/checkpoint_1/configs.yaml"
    case_file.write_text("cases:\n  - id: configs\n    files:\n"
                         "      conf.toml: \"a = 1\\nwhen = 2024-01-02\\n[t]\\nk = 'v'\\n\"\n"
                         "      conf.ini: \"[s]\\nKey = v\\n  w\\n[DEFAULT]\\nx=1\\n\"\n"
                         "      again.toml: {copy: again.toml}\n"
                         "    args: [dump]\n    expect:\n      files:\n"
                         "        conf.toml: {format: toml, value: null}\n"
                         "        conf.ini: {format: ini, file: expected/conf.ini}\n"
                         "        again.toml: {format: toml, file: expected/again.toml}\n")
    (kv_copy / "data/again.toml").write_text("b = [1, 2]\n[t]\nk = 2024-01-02T10:00:00Z\n")
    done = scbench("bless", kv_copy, "-c", 1, "--case", "configs", "--yes")
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(case_file.read_text())["cases"][0]["expect"]["files"]["conf.toml"] == {
        "format": "toml", "value": {"a": 1, "when": "2024-01-02", "t": {"k": "v"}}}
    assert (kv_copy / "cases/checkpoint_1/expected/conf.ini").read_text() == "[s]\nKey = v\n\tw\n\n[DEFAULT]\nx = 1\n\n"
    assert (kv_copy / "cases/checkpoint_1/expected/again.toml").read_text() == \
        'b = [\n    1,\n    2,\n]\n\n[t]\nk = "2024-01-02T10:00:00+00:00"\n'
    assert scbench("check", kv_copy).returncode == 0
