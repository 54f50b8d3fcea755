"""The compiler: every error located and explained, all collected, exit code 2, stable bundles."""

import json
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES, scbench
from scbench.problem.bundle import Bundle
from scbench.problem.compiler import compile_problem
from scbench.problem.diagnostics import ProblemError


@pytest.fixture
def problem(tmp_path: Path) -> Path:
    target = tmp_path / "kv"
    shutil.copytree(FIXTURES / "kv", target)
    return target


def diagnostics(root: Path) -> list[str]:
    with pytest.raises(ProblemError) as caught:
        compile_problem(root)
    return [d.render() for d in caught.value.diagnostics]


MALFORMED = """\
cases:
  - id: ok_case
    args: [get, x]
  - id: bad case
    args: [get]
    expect:
      exit_code: nonzer
      stdout: {formt: json}
  - id: ok_case
    files: {rules.json: {copy: missing/tree}}
    args: ["{nope}"]
"""


CROSS_REFERENCE_ERRORS = [
        "kv/cases/checkpoint_1/bad.yaml:9: cases[2].id: duplicate case id 'ok_case'\n"
        "    fix: it is already used at cases/checkpoint_1/bad.yaml:2; rename one",
        "kv/cases/checkpoint_1/bad.yaml:10: cases[2].files.rules.json: data/missing/tree does not exist\n"
        "    fix: add it under kv/data/ or fix the path",
        "kv/cases/checkpoint_1/bad.yaml:11: cases[2].args[0]: unknown placeholder {nope}\n"
        "    fix: known placeholders: cwd, data",
]
"""The errors of :data:`MALFORMED`'s third case, which only the cross-reference checks find."""


def test_malformed_case_file_reports_every_error_with_line_and_fix(problem):
    (problem / "cases/checkpoint_1/bad.yaml").write_text(MALFORMED)
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_1/bad.yaml:4: cases[1].id: 'bad case' does not match ^[A-Za-z0-9][A-Za-z0-9_.-]*$\n"
        "    fix: use letters, digits, '_', '.', '-'",
        "kv/cases/checkpoint_1/bad.yaml:7: cases[1].expect.exit_code: \"nonzer\" is not allowed here\n"
        "    fix: did you mean 'nonzero'?",
        "kv/cases/checkpoint_1/bad.yaml:8: cases[1].expect.stdout: unknown key 'formt'\n"
        "    fix: did you mean 'format'?",
        # before: one schema error hid every cross-reference error of the file
        *CROSS_REFERENCE_ERRORS,
    ]


def test_cross_reference_errors_are_all_collected(problem):
    (problem / "cases/checkpoint_1/bad.yaml").write_text(MALFORMED.replace("bad case", "bad_case")
                                                         .replace("nonzer", "nonzero").replace("formt", "format"))
    assert diagnostics(problem) == CROSS_REFERENCE_ERRORS


@pytest.mark.parametrize(("text", "expected"), [
    ("cases:\n\t- id: x\n", "2: a tab at column 1: YAML indents with spaces only\n"
     "    fix: replace the tab with spaces"),
    ("cases:\n  - id: x\n     args: [a]\n", "3: this line is indented deeper than the keys around it (a key cannot "
     "start here)\n    fix: line the key up with the keys of its mapping, or quote a value that holds ': '"),
    ("cases:\n  - id: x\n  args: [a]\n", "3: this line is indented differently from the block that starts at line 2\n"
     "    fix: indent it like its siblings: the keys of one mapping, and the '-' items of one list, start in the same "
     "column"),
    ("cases:\n  - id: \"x\n    args: [a]\n", "2: a quoted string opened at line 2 is never closed\n    fix: close the "
     "quote on that line; inside \"...\", write a quote as \\\", inside '...' as ''"),
    ("cases:\n  - id: x\n    stdin: a: b\n", "3: an unquoted value holds ': '\n    fix: quote the value: \"a: b\""),
    ("cases:\n  - id: x\n    args: [a, b\n", "3: the [ opened at line 3 is not closed where expected: a missing ']' "
     "or ','\n    fix: close it with ], separate items with ', ', and quote items holding ': ', '#' or ]"),
    ("cases:\n  - id: x\n    args: [a, b]]\n", "3: unexpected ']' after a value at column 17\n    fix: remove it, or "
     "quote the whole value"),
    ("cases:\n  - id: @x\n", "2: '@' at column 9 cannot start an unquoted value\n    fix: quote the value: \"@x\""),
])
def test_yaml_syntax_errors_say_what_is_wrong(problem, text, expected):
    # before: every one was "not valid YAML/JSON: <the parser's words>" with one generic fix
    (problem / "cases/checkpoint_1/bad.yaml").write_text(text)
    assert diagnostics(problem) == [f"kv/cases/checkpoint_1/bad.yaml:{expected}"]


def test_duplicate_yaml_keys_are_errors(problem):
    (problem / "cases/checkpoint_1/bad.yaml").write_text("cases:\n  - id: x\n    args: [a]\n    args: [b]\n")
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_1/bad.yaml:4: cases[0]: duplicate key 'args'\n"
        "    fix: keep one of the two entries; the later one would silently win"]


def test_problem_layout_errors(problem):
    config = yaml.safe_load((problem / "config.yaml").read_text())
    config["checkpoints"]["checkpoint_3"] = {"order": 4}
    (problem / "config.yaml").write_text(yaml.safe_dump(config))
    (problem / "cases/checkpoint_2/core.yaml").write_text(
        "category: functionality\ncases:\n  - {id: only, args: [count, x]}\n")
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_2: the checkpoint has no core case\n"
        "    fix: mark the cases that check what the spec states explicitly as category: core",
        "kv/cases/checkpoint_3: no case files\n    fix: add YAML case files under cases/checkpoint_3/",
        "kv/checkpoint_3.md: the spec file is missing\n    fix: write the spec the agent sees in checkpoint_3.md",
        "kv/config.yaml:7: checkpoints.checkpoint_3.order: order is 4 but the name says 3\n    fix: set order: 3",
    ]


def test_json_case_files_are_accepted(problem):
    (problem / "cases/checkpoint_1/extra.json").write_text(json.dumps(
        {"cases": [{"id": "json_case", "args": ["get", "k"], "expect": {"exit_code": 1}}]}))
    bundle = compile_problem(problem)
    assert [c.case.id for c in bundle.checkpoint(1).cases] == ["set_then_get", "dump_sorted", "get_missing",
                                                               "json_case"]


def test_compile_cli_exit_2_and_no_traceback(problem):
    (problem / "cases/checkpoint_1/bad.yaml").write_text(MALFORMED)
    done = scbench("compile", problem)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "bad.yaml:7: cases[1].expect.exit_code" in done.stderr
    assert "6 error(s)" in done.stderr


def test_bundle_is_content_hashed_and_self_contained(problem, tmp_path):
    done = scbench("compile", problem, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    bundle = Bundle.model_validate_json(path.read_bytes())
    assert path.name == f"kv-{bundle.digest[:12]}.scb.json"
    assert sorted(bundle.data) == ["docs/a.txt"]
    assert compile_problem(problem).digest == bundle.digest
    step = bundle.checkpoint(1).cases[2].case.steps[0]
    assert (step.timeout, step.expect.stderr.value, bundle.checkpoint(1).cases[2].case.category) == \
        (10.0, "error: no such[..]\n", "error")


def test_a_case_file_that_is_not_utf8_is_a_located_error(problem):
    (problem / "cases/checkpoint_1/bad.yaml").write_bytes(b"cases:\n  - id: caf\xe9\n")
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_1/bad.yaml:2: not UTF-8 text: invalid continuation byte at byte 18\n"
        "    fix: save the file as UTF-8"]


@pytest.mark.parametrize(("case", "expected"), [
    ("{id: c, files: {x: {copy: /etc/passwd}}}",
     "cases[0].files.x.copy: copy source '/etc/passwd' leaves data/\n    fix: name a path under data/ without '..'"),
    ("{id: c, expect: {files: {../../etc/passwd: x}}}",
     "cases[0].expect.files.../../etc/passwd: output file '../../etc/passwd' is outside the working directory\n"
     "    fix: use a relative path without '..'"),
    ("{id: c, expect: {stdout: {file: ../../../../../etc/hostname}}}",
     "cases[0].expect.stdout.file: expected-output file '../../../../../etc/hostname' is outside the problem\n"
     "    fix: keep it in the problem"),
    ("{id: c, expect: {stdout: {format: json, file: ../../data/docs/a.txt}}}",
     "cases[0].expect.stdout.file: ../../data/docs/a.txt: not valid json: Expecting value at line 1 column 1\n"
     "    fix: fix the file or set format: to match it"),
    ("{id: c, files: {x: {base64: '!!!notb64'}}}",
     "cases[0].files.x.base64: not valid base64: Only base64 data is allowed\n"
     "    fix: encode the bytes with base64 -w0 FILE"),
    ("{id: c, files: {x.tar: {tar: {../up: a}}}}",
     "cases[0].files.x.tar.tar.../up: tar member name '../up' is not a relative path\n"
     "    fix: name the member by a relative path without '..'"),
    ("{id: c, files: {x.tar: {tar: {a.bin: {base64: '!!!notb64'}}}}}",
     "cases[0].files.x.tar.tar.a.bin.base64: not valid base64: Only base64 data is allowed\n"
     "    fix: encode the bytes with base64 -w0 FILE"),
    ("{id: c, args: count}",
     "cases[0].args: expected a list, got a string \"count\"\n    fix: write a list: [count]"),
    ("{id: c, expect: {stderr: {contains: no such key}}}",
     "cases[0].expect.stderr.contains: expected a list, got a string \"no such key\"\n"
     "    fix: give a list: contains: [\"no such key\"]"),
    ("{id: c, expect: {files: {out.txt: {format: json, search: '^a$'}}}}",
     "cases[0].expect.files.out.txt.search: expected a list, got a string \"^a$\"\n"
     "    fix: give a list: search: [\"^a$\"]"),
    ("{id: c, expect: {stdout: {search: [ok, 'took (\\d+ms']}}}",
     "cases[0].expect.stdout.search[1]: invalid regular expression: missing ), unterminated subpattern at "
     "position 5\n    fix: escape special characters with a backslash"),
    ("{id: c, expect: {stdout: {not_contains: ['']}}}",
     "cases[0].expect.stdout.not_contains[0]: must not be empty\n    fix: write a value"),
    ("{id: c, stdin: {copy: docs}}",
     "cases[0].stdin.copy: data/docs is a directory, and stdin takes the bytes of one file\n"
     "    fix: name a file under data/"),
    ("{id: c, steps: [{stdin: {copy: ../config.yaml}}]}",
     "cases[0].steps[0].stdin.copy: copy source '../config.yaml' leaves data/\n"
     "    fix: name a path under data/ without '..'"),
    ("{id: c, stdin: {copy: docs/b.txt}}",
     "cases[0].stdin: data/docs/b.txt does not exist\n    fix: did you mean 'docs/a.txt'?"),
    ("{id: c, stdin: {jsn: {a: 1}}}",
     "cases[0].stdin: unknown key 'jsn'\n    fix: did you mean 'json'? (one of the forms here: copy, json, yaml, "
     "a bare string)"),
    ("{id: c, stdin: {json: {a: 1.0e+400}}}",
     "cases[0].stdin.json.a: the number inf is beyond what a double holds (at most 1.7976931348623157e+308)\n"
     "    fix: write a number a double holds, or give stdin as text (a bare string)"),
])
def test_paths_and_contents_are_checked_at_compile_time(problem, case, expected):
    (problem / "cases/checkpoint_1/bad.yaml").write_text(f"cases:\n  - {case}\n")
    assert diagnostics(problem) == [f"kv/cases/checkpoint_1/bad.yaml:2: {expected}"]


def test_config_keys_and_stray_case_directories(problem):
    config = problem / "config.yaml"
    config.write_text(config.read_text().replace("  checkpoint_2: {order: 2}", "  checkpoint_2: {order: 2}\n"
                                                 "  chekpoint_3: {order: 3}"))
    assert diagnostics(problem) == ["kv/config.yaml:7: checkpoints: unknown key 'chekpoint_3'\n"
                                    "    fix: allowed: keys matching ^checkpoint_[1-9][0-9]*$"]
    config.write_text(config.read_text().replace("  chekpoint_3: {order: 3}\n", ""))
    (problem / "cases/checkpoint_3").mkdir()
    assert diagnostics(problem) == ["kv/cases/checkpoint_3: this cases directory belongs to no checkpoint of "
                                    "config.yaml\n    fix: add checkpoint_3 to checkpoints in config.yaml, or rename "
                                    "or remove the directory"]


@pytest.mark.parametrize(("old", "new", "name", "message"), [
    ('"entry_file": "kv"', '"entry_file": 3', None,
     "not a valid bundle (1 error(s), first: Input should be a valid string)"),
    ("error: no such[..]", "error: edited[..]", None, "the bundle's content does not match the digest in its name"),
    ('"docs/a.txt"', '"../../../escape.txt"', "kv-edited.scb.json",
     "data paths must stay inside data/: ../../../escape.txt"),
])
def test_edited_bundles_are_refused_without_a_traceback(problem, tmp_path, old, new, name, message):
    compiled = Path(scbench("compile", problem, "--out", tmp_path).stdout.strip())
    edited = compiled.with_name(name or compiled.name)
    edited.write_text(compiled.read_text().replace(old, new))
    done = scbench("eval", edited, "-c", 1, "-s", problem)
    assert (done.returncode, message in done.stderr, "Traceback" in done.stderr) == (2, True, False), done.stderr


def test_config_errors_and_case_errors_come_together_without_cascades(problem):
    config = problem / "config.yaml"
    config.write_text(config.read_text().replace("timeout: 10", "timeout: ten"))
    (problem / "cases/checkpoint_1/broken.yaml").write_text("cases:\n  - id: x\n    args: [a\n")
    (problem / "cases/checkpoint_2/core.yaml").write_text("cases:\n  - {id: c, expect: {exit_code: zero}}\n")
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_1/broken.yaml:3: the [ opened at line 3 is not closed where expected: a missing ']' "
        "or ','\n    fix: close it with ], separate items with ', ', and quote items holding ': ', '#' or ]",
        "kv/cases/checkpoint_2/core.yaml:2: cases[0].expect.exit_code: \"zero\" is not allowed here\n"
        "    fix: write 0 (a number, without quotes)",
        "kv/config.yaml:5: timeout: expected a number, got a string \"ten\"\n"
        "    fix: write 10 (a number, without quotes)",
    ]


@pytest.mark.parametrize(("case", "expected"), [
    ("{id: c, args: count a.txt}",
     "cases[0].args: expected a list, got a string \"count a.txt\"\n    fix: write a list: [count, a.txt]"),
    ("{id: c, args: 'grep \"{data}/a b\"'}",
     "cases[0].args: expected a list, got a string \"grep \\\"{data}/a b\\\"\"\n"
     "    fix: write a list: [grep, \"{data}/a b\"]"),
    ("{id: c, expect: {exit_code: zero}}",
     "cases[0].expect.exit_code: \"zero\" is not allowed here\n    fix: write 0 (a number, without quotes)"),
    ("{id: c, files: {x: {cpy: trees/basic}}}",
     "cases[0].files.x: unknown key 'cpy'\n    fix: did you mean 'copy'? (one of the forms here: base64, bz2, "
     "columns, copy, directory, format, gzip, json, jsonl, rows, sqlite, tar, text, yaml, a bare string)"),
    ("{id: c, timeout: -1}", "cases[0].timeout: must be greater than 0, got -1\n    fix: use a number greater than 0"),
    ("{id: c, expect: {stdout: {format: json, value: 1, tolerance: {abs: -1}}}}",
     "cases[0].expect.stdout.tolerance.abs: must be at least 0, got -1\n    fix: use a number of at least 0"),
    ("{id: c, args: [--now, 2025-09-10T03:00:00Z]}",
     "cases[0].args[1]: expected a string, got a YAML timestamp \"2025-09-10 03:00:00+00:00\"\n"
     "    fix: write a string (quote it: \"...\")"),
    ("{id: c, env: {A: [1]}}",
     "cases[0].env.A: expected a string, got a list [1]\n    fix: write a string (quote it: \"...\")"),
])
def test_fix_hints_are_right(problem, case, expected):
    (problem / "cases/checkpoint_1/bad.yaml").write_text(f"cases:\n  - {case}\n")
    assert diagnostics(problem) == [f"kv/cases/checkpoint_1/bad.yaml:2: {expected}"]


def test_every_error_has_a_fix(problem):
    (problem / "cases/checkpoint_1/bad.yaml").write_text(MALFORMED + "  - {id: d, kind: http, steps: [{request: {}}]}\n"
                                                         "  - {id: e, stdin: 3, steps: [], nope: 1}\n")
    (problem / "checkpoint_2.md").unlink()
    found = diagnostics(problem)
    assert len(found) == 11 and all(len(d.split("\n    fix: ")[1]) > 10 for d in found), found


def test_json_case_files_are_strict_json(problem):
    (problem / "cases/checkpoint_1/extra.json").write_text('{"cases": [\n  {"id": "a", "args": ["get", "k"]},\n]}\n')
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_1/extra.json:3: not valid JSON: Expecting value at column 1\n"
        "    fix: fix the syntax at that line (a .json case file is strict JSON: no trailing commas or comments; "
        "name it .yaml for YAML)"]
    (problem / "cases/checkpoint_1/extra.json").write_text('{"cases": [{"id": "a", "args": ["get", "k"],\n'
                                                           '  "id": "b"}]}')
    assert diagnostics(problem) == ["kv/cases/checkpoint_1/extra.json:2: cases[0]: duplicate key 'id'\n"
                                    "    fix: keep one of the two entries; the later one would silently win"]
    (problem / "cases/checkpoint_1/extra.json").write_text('{"cases": [{"id": "a", "timeout": 1e3}]}')
    assert compile_problem(problem).checkpoint(1).cases[-1].case.steps[0].timeout == 1000.0


BILLION_LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{x}: &{x} [{', '.join(['*' + p] * 9)}]\n" for p, x in zip("abcdefgh", "bcdefghi", strict=True)) + \
    "cases: [{id: bomb, args: *i}]\n"


@pytest.mark.parametrize(("name", "content", "expected"), [
    ("bomb.yaml", BILLION_LAUGHS,
     "bomb.yaml:6: more than 100,000 values (YAML aliases expanded)\n    fix: keep large expected values in "
     "expected-output files (stdout: {format: json, file: ...}) and large inputs under data/; do not nest YAML "
     "aliases inside aliases"),
    ("deep.yaml", "cases:\n  - id: deep\n    args: " + "[" * 5000 + "]" * 5000 + "\n",
     "deep.yaml:3: nested deeper than 100 levels\n    fix: nest at most 100 levels"),
    ("deep.json", '{"cases": [{"id": "deep", "args": ' + "[" * 100_000 + "]" * 100_000 + "}]}",
     "deep.json:1: nested deeper than 100 levels\n    fix: nest at most 100 levels"),
    ("block.yaml", "cases:\n" + "".join("  " * depth + "- \n" for depth in range(1, 400)),
     "block.yaml:101: nested deeper than 100 levels\n    fix: nest at most 100 levels"),
    ("huge.yaml", "cases: [{id: huge, args: [" + "x, " * 3_000_000 + "]}]\n",
     "huge.yaml:1: the file is 8.6 MiB; a config or case file may have at most 8 MiB\n    fix: keep large expected "
     "values in expected-output files (stdout: {format: json, file: ...}) and large inputs under data/; do not "
     "nest YAML aliases inside aliases"),
])
def test_hostile_case_files_give_one_located_diagnostic(problem, name, content, expected):
    (problem / "cases/checkpoint_1" / name).write_text(content)
    assert diagnostics(problem) == [f"kv/cases/checkpoint_1/{expected}"]


def test_hostile_specs_and_expected_output_files_are_located_errors(problem):
    (problem / "checkpoint_2.md").write_bytes(b"# kv\n\nCaf\xe9\n")
    (problem / "cases/checkpoint_1/deep.yaml").write_text("cases: [{id: d, expect: {stdout: {format: json, "
                                                          "file: expected/deep.json}}}]\n")
    (problem / "cases/checkpoint_1/expected").mkdir()
    (problem / "cases/checkpoint_1/expected/deep.json").write_text("[" * 1000 + "]" * 1000)
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_1/deep.yaml:1: cases[0].expect.stdout.file: expected/deep.json: not valid json: "
        "nested deeper than 100 levels\n    fix: fix the file or set format: to match it",
        "kv/checkpoint_2.md:3: not UTF-8 text: invalid continuation byte at byte 9\n    fix: save the file as UTF-8"]


def test_config_schema_cross_reference_and_semantic_errors_come_in_one_run(problem):
    config = problem / "config.yaml"
    config.write_text(config.read_text().replace("timeout: 10", "timeout: ten")
                      .replace("checkpoint_2: {order: 2}", "checkpoint_2: {order: 3}"))
    (problem / "cases/checkpoint_1/bad.yaml").write_text(
        "cases:\n"
        "  - {id: c1, expect: {exit_code: zero}}\n"
        "  - {id: c2, files: {x: {copy: nowhere}}, args: [\"{nope}\"]}\n"
        "  - {id: c3, expect: {stdout: {value: a, regex: true, format: json}}}\n")
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_1/bad.yaml:2: cases[0].expect.exit_code: \"zero\" is not allowed here\n"
        "    fix: write 0 (a number, without quotes)",
        "kv/cases/checkpoint_1/bad.yaml:3: cases[1].args[0]: unknown placeholder {nope}\n"
        "    fix: known placeholders: cwd, data",
        "kv/cases/checkpoint_1/bad.yaml:3: cases[1].files.x: data/nowhere does not exist\n"
        "    fix: add it under kv/data/ or fix the path",
        "kv/cases/checkpoint_1/bad.yaml:4: cases[2].expect.stdout.regex: regex needs format: text and a string "
        "value\n    fix: drop regex or make it text",
        "kv/config.yaml:5: timeout: expected a number, got a string \"ten\"\n"
        "    fix: write 10 (a number, without quotes)",
        # before: a schema error elsewhere in config.yaml hid every checkpoint's own errors
        "kv/config.yaml:8: checkpoints.checkpoint_2.order: order is 3 but the name says 2\n    fix: set order: 2",
    ]


def test_a_case_file_that_does_not_parse_causes_no_missing_core_case_error(problem):
    (problem / "cases/checkpoint_2/core.yaml").write_text("cases:\n  - id: x\n    args: [a\n")
    (problem / "cases/checkpoint_2/more.yaml").write_text(
        "category: functionality\ncases:\n  - {id: extra, args: [count, x]}\n")
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_2/core.yaml:3: the [ opened at line 3 is not closed where expected: a missing ']' "
        "or ','\n    fix: close it with ], separate items with ', ', and quote items holding ': ', '#' or ]"]
    (problem / "cases/checkpoint_2/core.yaml").write_text("cases:\n  - {id: x, args: [a], expect: {exit_code: zero}}\n")
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_2/core.yaml:2: cases[0].expect.exit_code: \"zero\" is not allowed here\n"
        "    fix: write 0 (a number, without quotes)"]


def test_data_is_materialized_once_when_many_evaluations_ask_at_once(tmp_path, monkeypatch):
    # before: the second thread's rename onto the first one's directory raised ENOTEMPTY, and
    # scbench batch failed when it opened two evaluations of one problem at the same moment
    monkeypatch.setattr("scbench.problem.bundle.CACHE", tmp_path)
    bundle, start = compile_problem(FIXTURES / "kv"), threading.Barrier(8)

    def materialize(_):
        start.wait()
        return bundle.data_dir()

    with ThreadPoolExecutor(8) as pool:
        directories = set(pool.map(materialize, range(8)))
    target = tmp_path / "bundles" / bundle.digest / "data"
    assert (directories, sorted(path.name for path in target.parent.iterdir())) == ({target}, ["data"])
    assert sorted(str(path.relative_to(target)) for path in target.rglob("*") if path.is_file()) == sorted(bundle.data)


def test_a_problem_directory_is_compiled_once_and_again_when_a_source_changes(problem):
    from scbench.problem.loader import COMPILED, load, source_digest
    first = load(problem)
    cached = COMPILED / source_digest(problem) / "bundle.scb.json"
    stored = json.loads(cached.read_text())
    stored["config"]["description"] = "read from the cache"
    cached.write_text(json.dumps(stored))
    assert load(problem).config.description == "read from the cache"
    (problem / "solutions" / "python" / "checkpoint_1" / "extra.py").write_text("x = 1\n")
    assert load(problem).config.description == "read from the cache"  # a reference solution is no source

    config = problem / "config.yaml"
    config.write_text(config.read_text().replace(f"description: {first.config.description}", "description: edited"))
    assert load(problem).config.description == "edited"
    config.write_text(config.read_text() + "unknown_key: 1\n")
    with pytest.raises(ProblemError):
        load(problem)
    assert not (COMPILED / source_digest(problem)).exists()


def test_error_locations_open_from_the_working_directory_at_the_key(problem):
    # before: files were shown relative to the problem's parent (kv/config.yaml, which does not exist
    # from a sibling directory) and every checkpoint error of config.yaml pointed at line 1
    config = problem / "config.yaml"
    config.write_text(config.read_text().replace("checkpoint_2: {order: 2}", "checkpoint_2: {order: 5}"))
    (problem.parent / "elsewhere").mkdir()
    done = scbench("compile", "../kv", cwd=problem.parent / "elsewhere")
    assert (done.returncode, done.stderr.splitlines()[0]) == (
        2, "../kv/config.yaml:8: checkpoints.checkpoint_2.order: order is 5 but the name says 2")
    assert (problem.parent / "elsewhere" / "../kv/config.yaml").read_text().splitlines()[7].strip() == \
        "checkpoint_2: {order: 5}"


HTTP_CASE = "cases:\n  - id: web\n    kind: http\n{server}    steps:\n      - request: {{path: /}}\n" \
            "        expect: {{status: 200}}\n"


def test_an_http_case_without_a_server_says_where_one_goes(problem):
    (problem / "cases/checkpoint_1/web.yaml").write_text(HTTP_CASE.format(server=""))
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_1/web.yaml:3: cases[0].kind: an HTTP case needs a server (config.yaml or the case)\n"
        "    fix: add server: {args: [--port, \"{port}\"]} to config.yaml (every HTTP case) or to this case"]


def test_a_server_never_given_its_port_compiles_with_a_warning(problem, tmp_path):
    # before: it compiled silently, and every request of its cases failed to connect
    web = problem / "cases/checkpoint_1/web.yaml"
    web.write_text(HTTP_CASE.format(server="    server: {args: [--listen, \"8080\"]}\n"))
    done = scbench("compile", problem, "--out", tmp_path / "build", cwd=problem.parent)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[:2] == [
        "warning: kv/cases/checkpoint_1/web.yaml:2: cases[0].server: this case's server never receives {port}",
        "    fix: pass the port in the case's server.args: args: [--port, \"{port}\"] (or an env value \"{port}\"); "
        "the server must listen on the port scbench chose, or every request of its cases fails"]
    config = problem / "config.yaml"
    config.write_text(config.read_text() + "server: {args: [--listen, \"8080\"]}\n")
    web.write_text(HTTP_CASE.format(server=""))
    done = scbench("compile", problem, "--out", tmp_path / "build", cwd=problem.parent)
    assert done.stderr.splitlines()[0] == \
        "warning: kv/config.yaml:9: server: the server of the HTTP cases never receives {port}"


def test_misspelt_file_names_get_the_closest_existing_one(problem):
    # before: "add it under kv/data/ or fix the path" whatever the name was close to
    (problem / "cases/checkpoint_1/expected").mkdir()
    (problem / "cases/checkpoint_1/expected/dump.json").write_text("{}\n")
    (problem / "cases/checkpoint_1/bad.yaml").write_text(
        "cases:\n  - id: c\n    files: {d: {copy: doc}}\n    args: [dump]\n"
        "    expect: {stdout: {format: json, file: expected/dumps.json}}\n")
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_1/bad.yaml:3: cases[0].files.d: data/doc does not exist\n    fix: did you mean 'docs'?",
        "kv/cases/checkpoint_1/bad.yaml:5: cases[0].expect.stdout.file: expected-output file 'expected/dumps.json' "
        "does not exist\n    fix: did you mean 'expected/dump.json'?"]


def test_an_http_case_without_kind_is_told_to_say_kind_http(problem):
    # before: it was read as a CLI case: "unknown key 'request'", allowed: args, env, ... (the CLI step's keys)
    (problem / "cases/checkpoint_1/web.yaml").write_text(
        "cases:\n  - id: web\n    steps:\n      - request: {path: /}\n        expect: {status: 200}\n")
    assert diagnostics(problem) == [
        "kv/cases/checkpoint_1/web.yaml:2: cases[0]: kind is missing, and the keys are those of a kind: http case\n"
        "    fix: add kind: http"]
