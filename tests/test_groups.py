"""Case groups (one server for a case file's cases, setup once, cases in order), concurrent request steps
and binary bodies, against the vault fixture's real server on 127.0.0.1 at every sandbox level."""

import base64
import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES, sandbox_levels, scbench
from scbench.problem.compiler import compile_problem
from scbench.problem.diagnostics import ProblemError

VAULT = FIXTURES / "vault"
SOLUTION = VAULT / "solutions/python/checkpoint_1"
BROKEN = "env VAULT_BROKEN=claims python3 vault.py"
BLOB = (VAULT / "data/blob.bin").read_bytes()


def evaluated(tmp_path: Path, *args: str, problem: Path = VAULT) -> tuple[int, dict]:
    done = scbench("eval", problem, "-s", SOLUTION, "--out", tmp_path / "out", *args)
    return done.returncode, json.loads((tmp_path / "out/results.json").read_text())


def failures(results: dict) -> list[tuple[str, str, str, str]]:
    return [(case["id"], step["name"], failure["target"], failure["message"])
            for case in results["cases"] for step in case["steps"] for failure in step["failures"]]


@pytest.mark.parametrize("level", sandbox_levels())
def test_a_group_shares_its_server_and_runs_as_regressions(tmp_path, level):
    code, results = evaluated(tmp_path, "-c", "2", "--sandbox", level)
    assert code == 0, failures(results)
    assert [(case["id"], case["category"], case["group"], case["passed"]) for case in results["cases"]] == [
        ("missing_blob", "core", None, True),
        ("claim_first", "regression", "cases/checkpoint_1/claims.yaml", True),
        ("claims_so_far", "regression", "cases/checkpoint_1/claims.yaml", True),
        ("seed_bytes", "regression", "cases/checkpoint_1/claims.yaml", True),
        ("one_claim_wins", "regression", None, True),
    ]


def test_a_selected_later_case_runs_the_earlier_ones_as_setup(tmp_path):
    code, results = evaluated(tmp_path, "-c", "1", "-k", "claims_so_far")
    assert code == 0
    assert [case["id"] for case in results["cases"]] == ["claims_so_far"]


def test_a_failed_case_names_the_earlier_cases_of_its_group_that_failed(tmp_path):
    code, results = evaluated(tmp_path, "-c", "1", "-e", BROKEN, "-k", "claims_so_far")
    assert code == 1
    assert failures(results) == [
        ("claims_so_far", "step 1", "body", '$.claims[0]: missing item "alpha"'),
        ("claims_so_far", "step 1", "group", "it ran after earlier cases of its group (cases/checkpoint_1/claims.yaml) "
         "that failed: checkpoint_1/claim_first; it may depend on what they should have created"),
    ]


def test_a_failed_setup_fails_every_case_of_the_group(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(VAULT, root)
    claims = root / "cases/checkpoint_1/claims.yaml"
    claims.write_text(claims.read_text().replace("expect: {status: 201, body: {format: json, value: {name: seed",
                                                 "expect: {status: 200, body: {format: json, value: {name: seed"))
    code, results = evaluated(tmp_path, "-c", "1", "-k", "claim*", problem=root)
    assert code == 1
    assert [(case["id"], case["passed"], case["steps"][0]["name"], case["steps"][0]["failures"][0]["message"])
            for case in results["cases"]] == [("claim_first", False, "group setup", "expected 200, actual 201"),
                                              ("claims_so_far", False, "group setup", "expected 200, actual 201")]


def test_concurrent_requests_any_order_fail_with_every_status(tmp_path):
    code, results = evaluated(tmp_path, "-c", "1", "-e", BROKEN, "-k", "one_claim_wins")
    assert code == 1
    [concurrent, after] = failures(results)
    assert concurrent == ("one_claim_wins", "five claims at once", "concurrent", "no order of the 5 responses "
                          "(status 500, 500, 500, 500, 500) meets every expectation; as sent:")
    assert after == ("one_claim_wins", "the state after", "body", '$.claims[0]: missing item "beta"')


def test_binary_body_compared_by_bytes_names_sizes_digests_and_first_difference(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(VAULT, root)
    claims = root / "cases/checkpoint_1/claims.yaml"
    claims.write_text(claims.read_text().replace("body_bytes: {copy: blob.bin}", "body_bytes: {base64: AAH/}"))
    code, results = evaluated(tmp_path, "-c", "1", "-k", "seed_bytes", problem=root)
    assert code == 1
    expected, actual = hashlib.sha256(b"\x00\x01\xff").hexdigest(), hashlib.sha256(BLOB).hexdigest()
    assert failures(results) == [("seed_bytes", "step 1", "body bytes", f"expected 3 bytes (sha256 {expected[:16]}"
                                  f"...), actual 10 bytes (sha256 {actual[:16]}...); they differ from byte 2 on")]


def test_binary_copy_expectation_compiles_to_its_digest_and_size():
    bundle = compile_problem(VAULT)
    [case] = [c for c in bundle.checkpoint(1).cases if c.case.id == "seed_bytes"]
    spec = case.case.steps[0].expect.body_bytes
    assert (spec.copy_, spec.sha256, spec.size) == (None, hashlib.sha256(BLOB).hexdigest(), 10)
    assert bundle.checkpoint(1).groups["cases/checkpoint_1/claims.yaml"].setup[0].request.base64 == \
        base64.b64encode(BLOB).decode()


def diagnostics(root: Path) -> list[str]:
    with pytest.raises(ProblemError) as caught:
        compile_problem(root)
    return [d.render() for d in caught.value.diagnostics]


BAD_GROUP = {
    "group": {"setup": [{"request": {"path": "/x", "text": "a", "base64": "AA=="}}]},
    "cases": [
        {"id": "cli_in_group", "args": ["x"]},
        {"id": "own_server", "kind": "http", "env": {"A": "b"}, "server": {"args": ["{port}"]},
         "steps": [{"request": {"path": "/"}}]},
        {"id": "shapes", "kind": "http", "steps": [
            {"request": {"path": "/"}, "concurrent": {"requests": [{"request": {"path": "/"}}]}},
            {"concurrent": {"requests": [{"request": {"path": "/", "copy": "nope.bin"}}]},
             "capture": {"x": {"jsonpath": "$.x"}}},
            {"request": {"path": "/{{seed}}"},
             "expect": {"body": "x", "body_bytes": {"base64": "AA==", "sha256": "0" * 64}}},
        ]},
    ],
}


def test_group_and_step_errors_say_what_where_and_how_to_fix(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(VAULT, root)
    (root / "cases/checkpoint_1/bad.yaml").write_text(yaml.safe_dump(BAD_GROUP, sort_keys=False))
    found = [line for line in diagnostics(root) if "bad.yaml" in line]
    assert [line.split(": ", 1)[1] for line in found] == [
        "group.setup[0].request: more than one body: text, base64\n    fix: send one body",
        "cases[0].kind: a case of a group must be an HTTP case (the group shares one server)\n"
        "    fix: move this case to a case file without group:",
        "cases[1].env: a case of a group has no env of its own\n"
        "    fix: move env to the file's group: (it is the same for every case of the group)",
        "cases[1].server: a case of a group has no server of its own\n"
        "    fix: move server to the file's group: (it is the same for every case of the group)",
        "cases[2].steps[0]: a step needs exactly one of request and concurrent\n"
        "    fix: give request: {...}, or concurrent: {requests: [...]} to send several at once",
        "cases[2].steps[1].concurrent: a concurrent step has poll, capture or expect of its own\n"
        "    fix: put each expect under its request in concurrent.requests; capture in a later step",
        "cases[2].steps[1].concurrent.requests[0].request: data/nope.bin does not exist\n"
        "    fix: did you mean 'blob.bin'?",
        "cases[2].steps[2].request: {{seed}} is used before any step captures it\n"
        "    fix: add capture: {seed: {jsonpath: ...}} to an earlier step",
        "cases[2].steps[2].expect.body_bytes: both body and body_bytes are given\n"
        "    fix: compare the body as text (body) or as bytes (body_bytes)",
        "cases[2].steps[2].expect.body_bytes: more than one of base64, copy and sha256\n"
        "    fix: give the bytes one way",
    ]


def test_regression_ignore_reaches_the_bodies_of_concurrent_requests(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(VAULT, root)
    config = yaml.safe_load((root / "config.yaml").read_text())
    config["checkpoints"]["checkpoint_2"]["regression_ignore"] = ["$.claimed"]
    (root / "config.yaml").write_text(yaml.safe_dump(config))
    [race] = [case for case, _ in compile_problem(root).suite(2) if case.case.id == "one_claim_wins"]
    assert [item.expect.body and item.expect.body.ignore for item in race.case.steps[0].concurrent.requests] == [
        ["$.claimed"], None]


def test_lint_counts_data_sent_or_compared_as_used_and_concurrent_steps_as_checked_inputs(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(VAULT, root)
    (root / "data/extra.bin").write_bytes(b"never used")
    race = root / "cases/checkpoint_1/race.yaml"
    race.write_text(race.read_text() + race.read_text().split("cases:\n", 1)[1].replace(
        "one_claim_wins", "another_claim_wins").replace("claims/beta", "claims/gamma").replace("[beta]", "[gamma]"))
    done = scbench("lint", root)
    found = [line for line in done.stdout.splitlines() if "warning[" in line or "error[" in line]
    assert [line.split(": ", 1)[1] for line in found] == [
        "warning[no-error-cases]: checkpoint_1", "warning[no-error-cases]: checkpoint_2",
        "warning[unused-data]: extra.bin"]


def test_bless_leaves_the_cases_of_a_group_as_written(tmp_path):
    done = scbench("bless", VAULT, "-c", "1", "--track", "python")
    assert done.returncode == 0, done.stderr
    assert [line for line in (done.stdout + done.stderr).splitlines() if "group" in line] == [
        f"{case}: left as written (a case of a group; bless runs cases alone)"
        for case in ("claim_first", "claims_so_far", "seed_bytes")]
