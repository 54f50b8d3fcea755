"""HTTP cases against real servers on 127.0.0.1: a good one, and three broken ones that
must each fail clearly within the deadline and leave no process behind."""

import json
import shutil
import time
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES, processes_with, scbench
from scbench.evaluate.session import Target, evaluate
from scbench.problem.compiler import compile_problem

SERVERS = FIXTURES / "servers"


def test_reference_server_passes_with_captures_and_headers(tmp_path):
    done = scbench("eval", FIXTURES / "notes", "-c", 1, "-s", FIXTURES / "notes/solutions/python/checkpoint_1",
                   "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["summary"]["counts"]["core"] == {"passed": 1, "total": 1}
    assert [s["name"] for s in results["cases"][0]["steps"]] == ["create", "read", "list"]


@pytest.fixture
def fast_notes(tmp_path: Path):
    """The notes problem with a 2-second readiness deadline and 1-second step timeout."""
    root = tmp_path / "notes"
    shutil.copytree(FIXTURES / "notes", root)
    config = yaml.safe_load((root / "config.yaml").read_text())
    config["server"]["ready"]["deadline"] = 2
    config["timeout"] = 1
    (root / "config.yaml").write_text(yaml.safe_dump(config))
    return compile_problem(root)


def failures_of(bundle, script: str) -> tuple[list[tuple[str, str, str]], float]:
    started = time.monotonic()
    results = evaluate(bundle, 1, Target(SERVERS, entry=f"python3 {script}"), jobs=3)
    elapsed = time.monotonic() - started
    return [(c.id, f.target, f.message) for c in results.cases for f in c.failures], elapsed


def test_server_that_never_binds_fails_at_the_deadline(fast_notes):
    failures, elapsed = failures_of(fast_notes, "never_binds.py")
    assert failures == [(case, "request", "server not ready within 2s")
                        for case in ("create_then_read", "missing_note", "invalid_body")]
    assert elapsed < 6
    assert processes_with(str(SERVERS / "never_binds.py")) == []


def test_server_that_crashes_after_its_first_request(fast_notes):
    failures, _ = failures_of(fast_notes, "crash_after_first.py")
    by_case = {case: (target, message) for case, target, message in failures}
    assert by_case["create_then_read"][0] == "request"
    assert by_case["create_then_read"][1] == "server exited with code 3"
    assert processes_with(str(SERVERS / "crash_after_first.py")) == []


def test_crash_report_carries_the_server_output(fast_notes):
    results = evaluate(fast_notes, 1, Target(SERVERS, entry="python3 crash_after_first.py"))
    [failure] = [f for f in results.cases[0].failures if f.target == "request"]
    assert "crashing on purpose" in failure.diff


def test_slow_server_times_out_per_step_and_its_children_die(fast_notes):
    failures, elapsed = failures_of(fast_notes, "slow.py")
    assert ("create_then_read", "request", "no response within 1s") in failures
    assert elapsed < 8
    assert processes_with("scbench-slow-child") == []
    assert processes_with(str(SERVERS / "slow.py")) == []


def test_polling_retries_until_the_expectations_pass_or_its_deadline(tmp_path):
    root = tmp_path / "job"
    shutil.copytree(FIXTURES / "notes", root)
    step = {"request": {"path": "/job"}, "expect": {"body": {"format": "json", "value": {"state": "done"}}}}
    cases = [{"id": "polled", "kind": "http", "steps": [{**step, "poll": {"interval": 0.05, "timeout": 5}}]},
             {"id": "not_polled", "kind": "http", "steps": [step]}]
    (root / "cases/checkpoint_1/errors.yaml").unlink()
    (root / "cases/checkpoint_1/core.yaml").write_text(yaml.safe_dump({"cases": cases}))
    results = evaluate(compile_problem(root), 1, Target(SERVERS, entry="python3 eventually.py"))
    assert [(case.id, case.passed) for case in results.cases] == [("polled", True), ("not_polled", False)]
    assert results.cases[1].failures[0].message == '$.state: expected "done", actual "running"'


def http_problem(tmp_path: Path, steps: list[dict]) -> Path:
    """The notes problem's config with one HTTP case made of ``steps``."""
    root = tmp_path / "echo"
    shutil.copytree(FIXTURES / "notes", root)
    (root / "cases/checkpoint_1/errors.yaml").unlink()
    (root / "cases/checkpoint_1/core.yaml").write_text(
        yaml.safe_dump({"cases": [{"id": "echo", "kind": "http", "steps": steps}]}))
    return root


def test_a_query_written_in_the_path_is_sent_and_captures_feed_expectations(tmp_path):
    steps = [
        {"request": {"path": "/a?b=1"}, "expect": {"body": {"format": "json", "value": {"path": "/a?b=1"},
                                                            "subset": True}},
         "capture": {"size": {"jsonpath": "$.length"}}},
        {"request": {"path": "/a", "query": {"c": "2"}},
         "expect": {"body": {"format": "json", "value": {"path": "/a?c=2", "length": "{{size}}"}}}},
    ]
    results = evaluate(compile_problem(http_problem(tmp_path, steps)), 1, Target(SERVERS, entry="python3 echo.py"))
    assert [(s.name, s.failures) for s in results.cases[0].steps] == [("step 1", []), ("step 2", [])]


def test_a_schema_uses_captures_so_a_value_can_be_required_to_differ_from_an_earlier_one(tmp_path):
    # before: the schema got "{{first}}" literally, so `not: {const: ...}` held for any path
    differs = {"format": "json", "schema": {"properties": {"path": {"not": {"const": "{{first}}"}}}}}
    steps = [{"request": {"path": "/a"}, "capture": {"first": {"jsonpath": "$.path"}}},
             {"request": {"path": "/b"}, "expect": {"body": differs}},
             {"request": {"path": "/a"}, "expect": {"body": differs}}]
    results = evaluate(compile_problem(http_problem(tmp_path, steps)), 1, Target(SERVERS, entry="python3 echo.py"))
    assert [(s.name, [f.target for f in s.failures]) for s in results.cases[0].steps] == [
        ("step 1", []), ("step 2", []), ("step 3", ["body"])]


def test_a_step_using_a_capture_that_failed_is_skipped_not_sent_literally(tmp_path):
    steps = [
        {"name": "create", "request": {"path": "/a"}, "capture": {"id": {"jsonpath": "$.id"}}},
        {"name": "read", "request": {"path": "/items/{{id}}"}, "expect": {"status": 200}},
        {"name": "plain", "request": {"path": "/b"}, "expect": {"body": {"format": "json", "subset": True,
                                                                         "value": {"path": "/b"}}}},
    ]
    results = evaluate(compile_problem(http_problem(tmp_path, steps)), 1, Target(SERVERS, entry="python3 echo.py"))
    assert [(s.name, [(f.target, f.message) for f in s.failures]) for s in results.cases[0].steps] == [
        ("create", [("capture id", "nothing matched in the response")]),
        ("read", [("skipped", "not sent: it uses {{id}}, which step 'create' did not capture")]),
        ("plain", []),
    ]


def test_a_step_using_a_capture_of_a_skipped_step_is_skipped_too(tmp_path):
    # before: the skipped step's own captures were not marked failed, so "last" was sent as /x/%7B%7Bv%7D%7D
    steps = [
        {"name": "create", "request": {"path": "/a"}, "capture": {"id": {"jsonpath": "$.id"}}},
        {"name": "mid", "request": {"path": "/items/{{id}}"}, "capture": {"v": {"jsonpath": "$.path"}}},
        {"name": "last", "request": {"path": "/x/{{v}}"}, "expect": {"status": 200}},
    ]
    results = evaluate(compile_problem(http_problem(tmp_path, steps)), 1, Target(SERVERS, entry="python3 echo.py"))
    assert [(s.name, [(f.target, f.message) for f in s.failures]) for s in results.cases[0].steps] == [
        ("create", [("capture id", "nothing matched in the response")]),
        ("mid", [("skipped", "not sent: it uses {{id}}, which step 'create' did not capture")]),
        ("last", [("skipped", "not sent: it uses {{v}}, which step 'mid' did not capture (it was not sent)")]),
    ]


def body_server(tmp_path, name, body):
    """A directory holding the server ``name``: it answers every GET with 200 and the bytes of the Python
    expression ``body``."""
    server = tmp_path / "server"
    server.mkdir()
    (server / name).write_text(
        "import sys\nfrom http.server import BaseHTTPRequestHandler, HTTPServer\n\n\n"
        "class Handler(BaseHTTPRequestHandler):\n"
        "    def do_GET(self):\n"
        f"        body = {body}\n"
        "        self.send_response(200)\n"
        "        self.send_header('Content-Length', str(len(body)))\n"
        "        self.end_headers()\n"
        "        self.wfile.write(body)\n\n\n"
        "args = sys.argv[1:]\n"
        "HTTPServer((args[args.index('--address') + 1], int(args[args.index('--port') + 1])), Handler)"
        ".serve_forever()\n")
    return server


def test_a_response_body_that_is_not_utf8_is_named_with_its_byte_offset(tmp_path):
    server = body_server(tmp_path, "latin1.py", r"b'ok\ncaf\xe9\n'")
    steps = [{"name": "read", "request": {"path": "/menu"}, "expect": {"body": "ok\ncaf\ufffd\n"}}]
    results = evaluate(compile_problem(http_problem(tmp_path, steps)), 1, Target(server, entry="python3 latin1.py"))
    assert [(f.target, f.message) for f in results.cases[0].steps[0].failures] == [
        ("body", "not valid UTF-8: byte(s) e9 at offset 6 (line 2, byte 4 of the line): invalid continuation byte")]


def test_a_capture_from_a_response_nested_too_deeply_captures_nothing(tmp_path):
    # before: response.json() raised RecursionError (an internal error of the case; earlier, of the whole run)
    server = body_server(tmp_path, "deep.py", "b'{\"id\": ' * 100000 + b'1' + b'}' * 100000")
    steps = [{"name": "create", "request": {"path": "/a"}, "capture": {"id": {"jsonpath": "$.id"}}}]
    results = evaluate(compile_problem(http_problem(tmp_path, steps)), 1, Target(server, entry="python3 deep.py"))
    assert [(s.name, [(f.target, f.message) for f in s.failures]) for s in results.cases[0].steps] == [
        ("create", [("capture id", "nothing matched in the response")])]


def test_text_checks_of_a_body_take_captured_values(tmp_path):
    server = body_server(tmp_path, "one.py", "b'{\"id\": 7, \"name\": \"x\"}'")
    steps = [{"name": "create", "request": {"path": "/a"}, "capture": {"id": {"jsonpath": "$.id"}}},
             {"name": "read", "request": {"path": "/a"},
              "expect": {"body": {"contains": ['"id": {{id}}'], "not_contains": ['"name": "{{id}}"']}}},
             {"name": "deny", "request": {"path": "/a"},
              "expect": {"body": {"format": "json", "value": {"id": 7, "name": "x"}, "not_contains": ["{{id}}"]}}}]
    results = evaluate(compile_problem(http_problem(tmp_path, steps)), 1, Target(server, entry="python3 one.py"))
    assert [(s.name, [(f.target, f.message) for f in s.failures]) for s in results.cases[0].steps] == [
        ("create", []), ("read", []),
        ("deny", [("body", 'forbidden "7" occurs at line 1 \'{"id": 7, "name": "x"}\'')])]


def test_a_toml_body_is_compared_as_a_document_and_searched_by_line(tmp_path):
    server = body_server(tmp_path, "toml.py", "b'a = 1\\n[t]\\nk = \"v\"\\n'")
    steps = [{"name": "ok", "request": {"path": "/"},
              "expect": {"body": {"format": "toml", "value": {"a": 1, "t": {"k": "v"}}, "search": ['^k = "v"$']}}},
             {"name": "bad", "request": {"path": "/"},
              "expect": {"body": {"format": "ini", "value": {"t": {"k": '"v"'}}, "search": ["^k = v$"]}}}]
    results = evaluate(compile_problem(http_problem(tmp_path, steps)), 1, Target(server, entry="python3 toml.py"))
    assert [(s.name, [(f.target, f.message) for f in s.failures]) for s in results.cases[0].steps] == [
        ("ok", []), ("bad", [("body", "no line matches /^k = v$/ (closest: line 3 'k = \"v\"')")])]
