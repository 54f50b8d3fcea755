"""Effects a step leaves in its working directory: paths that must be absent or empty, placeholders in
input contents and expectations, SQLite databases inspected by scbench itself."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import needs_level, scbench

RUNNER = "import sys\nexec(sys.argv[1])\n"
"""The solution of every case here: it runs its first argument as Python, in the case's working dir."""


@pytest.fixture
def problem(tmp_path: Path) -> Path:
    """A problem whose solution runs its first argument as Python; cases are added per test."""
    root = tmp_path / "stateful"
    (root / "cases/checkpoint_1").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "data/seed.txt").write_text("seed\n")
    (root / "solutions/python/checkpoint_1").mkdir(parents=True)
    (root / "solutions/python/checkpoint_1/tool.py").write_text(RUNNER)
    (root / "config.yaml").write_text(yaml.safe_dump({
        "name": "stateful", "description": "effects in files", "entry_file": "tool",
        "checkpoints": {"checkpoint_1": {"order": 1}}}))
    (root / "checkpoint_1.md").write_text("# Checkpoint 1\n\nRuns Python.\n")
    return root


def failures(problem: Path, cases: list[dict], out: Path, *options: str) -> dict[str, list[tuple[str, str]]]:
    """Each case's failures ``(target, message)`` after ``scbench eval`` of the runner on ``cases`` (``options``
    added to its command line)."""
    (problem / "cases/checkpoint_1/core.yaml").write_text(yaml.safe_dump({"cases": cases}, sort_keys=False))
    done = scbench("eval", problem, "-c", 1, "-s", problem / "solutions/python/checkpoint_1", "--out", out, *options)
    assert done.returncode in (0, 1), done.stderr
    results = json.loads((out / "results.json").read_text())
    return {case["id"]: [(f["target"], f["message"]) for step in case["steps"] for f in step["failures"]]
            for case in results["cases"]}


def test_absent_and_empty_paths_pass_and_fail_naming_what_was_found(problem, tmp_path):
    write_bad = "import os; open('out/bad.json', 'w').write('{}'); os.symlink('/tmp', 'via')"
    found = failures(problem, [
        {"id": "clean", "files": {"out": {"directory": True}}, "args": ["pass"],
         "expect": {"absent": ["gone.txt", "out/bad.json", "seed.txt/x"], "empty": ["out"]}},
        {"id": "dirty", "files": {"out": {"directory": True}, "seed.txt": "a file on the way\n"},
         "args": [write_bad],
         "expect": {"absent": ["out/bad.json", "via/anything", "seed.txt/x"], "empty": ["out", "never"]}},
        {"id": "not_a_directory", "args": ["open('out', 'w').write('x')"], "expect": {"empty": ["out"]}},
    ], tmp_path / "results")
    assert found == {
        "clean": [],
        "dirty": [("path out/bad.json", "must not exist, but out/bad.json is a file of 2 bytes"),
                  ("path via/anything", "must not exist, but via is a symbolic link to /tmp"),
                  ("path out", "must be an empty directory, but out is a directory holding 1 entry: bad.json"),
                  ("path never", "must be an empty directory, but nothing is there")],
        "not_a_directory": [("path out", "must be an empty directory, but out is a file of 1 bytes")],
    }


def test_placeholders_are_filled_in_input_contents_stdin_and_expectations(problem, tmp_path):
    show = ("import json, os, sys; print(os.getcwd()); print(open('paths.txt').read(), end='');"
            " print(json.dumps(json.load(open('conf.json')))); print(sys.stdin.read())")
    found = failures(problem, [{
        "id": "filled",
        "files": {"paths.txt": "{cwd}/a {data}/seed.txt {port} {name}\n",
                  "conf.json": {"json": {"{cwd}": ["{data}", 1], "keep": "{other}"}}},
        "args": [show], "stdin": "in {cwd}",
        "expect": {"stdout": {"contains": ["{cwd}/a {data}/seed.txt {port} {name}"],
                              "search": ["^{cwd}$", '^\\{"{cwd}": \\["{data}", 1\\], "keep": "\\{other\\}"\\}$'],
                              "value": "{cwd}\n{cwd}/a {data}/seed.txt {port} {name}\n"
                                       '{"{cwd}": ["{data}", 1], "keep": "{other}"}\nin {cwd}\n'}},
    }, {
        "id": "file_value",
        "args": ["import os, json; json.dump({'at': os.getcwd() + '/x'}, open('out.json', 'w'))"],
        "expect": {"files": {"out.json": {"format": "json", "value": {"at": "{cwd}/x"}}}},
    }], tmp_path / "results")
    assert found == {"filled": [], "file_value": []}


SCHEMA = ("import sqlite3; db = sqlite3.connect('app.db'); db.executescript(\""
          "CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
          "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE,"
          " team_id INTEGER REFERENCES teams(id), score REAL, photo BLOB, CHECK (score >= 0));"
          "INSERT INTO teams VALUES (1, 'core');"
          "INSERT INTO users VALUES (1, 'a@x', 1, 0.1, x'00ff'), (2, 'b@x', NULL, 2.5, NULL);\")")
"""The program of every database case: a database with constraints of each kind, and three rows."""


def test_an_output_database_is_queried_and_its_constraints_tried_on_copies(problem, tmp_path):
    database = {
        "queries": [
            {"sql": "SELECT id, email, score, photo FROM users", "unordered": True,
             "rows": [{"id": 2, "email": "b@x", "score": 2.5, "photo": None},
                      {"id": 1, "email": "a@x", "score": 0.1000001, "photo": "X'00FF'"}],
             "tolerance": {"abs": 1e-3}},
            {"sql": "SELECT name, \"notnull\", pk FROM pragma_table_info('users')", "subset": True,
             "rows": [{"name": "id", "pk": 1}, {"name": "email", "notnull": 1}, {"name": "team_id"},
                      {"name": "score"}, {"name": "photo"}]},
            {"sql": "SELECT '{cwd}' LIKE '/%' AS absolute", "rows": [{"absolute": 1}]},
        ],
        "violations": [
            {"sql": "INSERT INTO users (id, email) VALUES (3, NULL)", "constraint": "not_null"},
            {"setup": ["INSERT INTO users (id, email) VALUES (3, 'c@x')"],
             "sql": "INSERT INTO users (id, email) VALUES (4, 'c@x')", "constraint": "unique"},
            {"sql": "INSERT INTO users (id, email, team_id) VALUES (3, 'c@x', 9)", "constraint": "foreign_key"},
            {"sql": "INSERT INTO users (id, email) VALUES (1, 'c@x')", "constraint": "primary_key"},
            {"sql": "UPDATE users SET score = -1", "constraint": "check"},
            {"sql": "DELETE FROM teams"},
        ],
    }
    unchanged = {"queries": [{"sql": "SELECT count(*) AS users FROM users", "rows": [{"users": 2}]}]}
    found = failures(problem, [
        {"id": "passes", "steps": [{"args": [SCHEMA], "expect": {"databases": {"app.db": database}}},
                                   {"args": ["pass"], "expect": {"databases": {"app.db": unchanged}}}]},
    ], tmp_path / "results")
    assert found == {"passes": []}


def test_database_failures_name_the_query_the_statement_and_sqlites_message(problem, tmp_path):
    wrong = {
        "foreign_keys": False,
        "queries": [
            {"sql": "SELECT id, email FROM users ORDER BY id", "rows": [{"id": 1, "email": "a@x"}]},
            {"sql": "SELECT * FROM nope", "rows": []},
            {"sql": "DELETE FROM users", "rows": []},
            {"sql": "SELECT id, id FROM users", "rows": []},
        ],
        "violations": [
            {"sql": "INSERT INTO users (id, email, team_id) VALUES (3, 'c@x', 9)", "constraint": "foreign_key"},
            {"sql": "INSERT INTO users (id, email) VALUES (3, NULL)", "constraint": "unique"},
            {"setup": ["INSERT INTO nope VALUES (1)"], "sql": "INSERT INTO users (id) VALUES (1)"},
        ],
    }
    found = failures(problem, [
        {"id": "wrong", "args": [SCHEMA], "expect": {"databases": {"app.db": wrong}}},
        {"id": "missing", "args": ["pass"], "expect": {"databases": {"app.db": {}}}},
        {"id": "not_sqlite", "args": ["open('app.db', 'w').write('plain text, long enough to be no header' * 4)"],
         "expect": {"databases": {"app.db": {"queries": [{"sql": "SELECT 1", "rows": [{"1": 1}]}]}}}},
    ], tmp_path / "results")
    assert found == {
        "wrong": [
            ("database app.db", "query 1: $[1]: unexpected item {\"email\": \"b@x\", \"id\": 2}"),
            ("database app.db", "query 2 fails: no such table: nope"),
            ("database app.db", "query 3 fails: attempt to write a readonly database"),
            ("database app.db", "query 4 returns the column id more than once: give each column its own name (AS)"),
            ("database app.db", "violation 1: expected a FOREIGN KEY constraint error, the statement succeeds"),
            ("database app.db", "violation 2: expected a UNIQUE constraint error, it fails with NOT NULL constraint "
                                "failed: users.email (SQLITE_CONSTRAINT_NOTNULL)"),
            ("database app.db", "violation 3: setup statement 1 fails: no such table: nope"),
        ],
        "missing": [("database app.db", "was not created")],
        "not_sqlite": [("database app.db", "does not open as an SQLite database: file is not a database")],
    }


def test_compile_errors_locate_impossible_absences_and_bad_queries(problem):
    (problem / "cases/checkpoint_1/core.yaml").write_text(
        "cases:\n"
        "  - id: contradicts\n"
        "    args: [pass]\n"
        "    expect:\n"
        "      files: {out/a.json: {format: json}}\n"
        "      absent: [out, ../up]\n"
        "      empty: [out]\n"
        "      databases:\n"
        "        app.db:\n"
        "          queries:\n"
        "            - {sql: SELECT 1, rows: [{a: 1.0e+400}], ignore: ['$[']}\n")
    done = scbench("compile", "stateful", cwd=problem.parent)
    assert done.returncode == 2
    where = "stateful/cases/checkpoint_1/core.yaml"
    fix_both = "    fix: keep one of the two expectations"
    assert done.stderr.splitlines() == [
        f"{where}:6: cases[0].expect.absent[0]: 'out' must be absent, and empty names 'out'", fix_both,
        f"{where}:6: cases[0].expect.absent[0]: 'out' must be absent, and files names 'out/a.json'", fix_both,
        f"{where}:6: cases[0].expect.absent[1]: path '../up' is outside the working directory",
        "    fix: use a relative path without '..'",
        f"{where}:7: cases[0].expect.empty[0]: 'out' must be empty, and files names 'out/a.json'", fix_both,
        f"{where}:11: cases[0].expect.databases.app.db.queries[0].ignore[0]: invalid JSONPath '$[': "
        "unexpected end of query", "    fix: write it like $.items[*].id",
        f"{where}:11: cases[0].expect.databases.app.db.queries[0].rows[0].a: the number inf is beyond what a "
        "double holds (at most 1.7976931348623157e+308)",
        "    fix: write a number a double holds, or the text the output prints, as a string with format: text",
        "6 error(s)"]


def test_an_http_case_input_takes_the_servers_port_and_host(problem, tmp_path):
    (problem / "solutions/python/checkpoint_1/tool.py").write_text(
        "import http.server, sys\n"
        "port, host = sys.argv[sys.argv.index('--port') + 1], sys.argv[sys.argv.index('--address') + 1]\n"
        "class Handler(http.server.BaseHTTPRequestHandler):\n"
        "    def do_GET(self):\n"
        "        body = open('conf.txt').read().encode()\n"
        "        self.send_response(200 if body == f'{host}:{port} {{{{port}}}}'.encode() else 500)\n"
        "        self.end_headers()\n"
        "        self.wfile.write(body)\n"
        "http.server.HTTPServer((host, int(port)), Handler).serve_forever()\n")
    found = failures(problem, [{"id": "served", "kind": "http", "server": {},
                                "files": {"conf.txt": "{host}:{port} {{port}}"},
                                "steps": [{"request": {"path": "/"}, "expect": {"status": 200}}]}],
                     tmp_path / "results")
    assert found == {"served": []}


def test_a_seed_database_is_built_from_statements_and_a_bad_one_is_a_located_compile_error(problem, tmp_path):
    seed = {"sqlite": ["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, at TEXT)",
                       "INSERT INTO notes VALUES (1, 'it''s', '{cwd}')"]}
    append = "import sqlite3; db = sqlite3.connect('app.db'); db.execute(\"INSERT INTO notes VALUES (2, 'b', '')\"); " \
             "db.commit()"
    found = failures(problem, [{
        "id": "seeded", "files": {"app.db": seed}, "args": [append],
        "expect": {"databases": {"app.db": {"queries": [
            {"sql": "SELECT * FROM notes ORDER BY id",
             "rows": [{"id": 1, "body": "it's", "at": "{cwd}"}, {"id": 2, "body": "b", "at": ""}]}]}}},
    }], tmp_path / "results")
    assert found == {"seeded": []}
    (problem / "cases/checkpoint_1/core.yaml").write_text(
        "cases:\n"
        "  - id: bad_seed\n"
        "    files:\n"
        "      app.db:\n"
        "        sqlite:\n"
        "          - CREATE TABLE t (a)\n"
        "          - INSERT INTO u VALUES (1)\n"
        "    args: [pass]\n")
    done = scbench("compile", "stateful", cwd=problem.parent)
    assert (done.returncode, done.stderr.splitlines()) == (2, [
        "stateful/cases/checkpoint_1/core.yaml:7: cases[0].files.app.db.sqlite[1]: the statement fails: no such "
        "table: u",
        "    fix: fix the SQL; statements run in order on an empty database, one statement each",
        "1 error(s)"])


def test_bless_writes_the_working_directory_back_as_its_placeholder(problem):
    core = problem / "cases/checkpoint_1/core.yaml"
    core.write_text(
        "cases:\n"
        "  - id: where\n"
        "    args: [\"import os, json; print(os.getcwd() + '/x'); "
        "json.dump({'at': os.getcwd()}, open('o.json', 'w'))\"]\n"
        "    expect:\n"
        "      stdout: \"{cwd}/y\\n\"\n"
        "      files: {o.json: {format: json, value: null}}\n")
    done = scbench("bless", "stateful", "-c", 1, "--yes", cwd=problem.parent)
    assert done.returncode == 0, done.stderr
    expect = yaml.safe_load(core.read_text())["cases"][0]["expect"]
    assert expect == {"stdout": "{cwd}/x\n", "files": {"o.json": {"format": "json", "value": {"at": "{cwd}"}}}}
    assert scbench("check", "stateful", cwd=problem.parent).returncode == 0


def test_a_database_reached_through_a_link_is_never_read(problem, tmp_path):
    # the host never follows a solution's link: a database behind one counts as not created, a journal
    # behind one is left out
    link = ("import os, sqlite3; db = sqlite3.connect('real.db'); db.execute('CREATE TABLE t (a)'); db.commit(); "
            "os.symlink('real.db', 'app.db'); os.symlink('/etc/passwd', 'real.db-journal')")
    found = failures(problem, [
        {"id": "linked", "args": [link], "expect": {"databases": {"app.db": {}}}},
        {"id": "journal_linked", "args": [link], "expect": {"databases": {"real.db": {"queries": [
            {"sql": "SELECT name FROM sqlite_master", "rows": [{"name": "t"}]}]}}}},
    ], tmp_path / "results")
    assert found == {"linked": [("database app.db", "was not created")], "journal_linked": []}


def test_a_database_whose_view_never_ends_fails_its_query_instead_of_stalling_the_grader(problem, tmp_path):
    endless = ("import sqlite3; db = sqlite3.connect('app.db'); db.execute(\"CREATE VIEW users AS WITH RECURSIVE "
               "n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x AS id FROM n\"); db.commit()")
    endless_rows = {"queries": [{"sql": "SELECT count(*) AS n FROM users", "rows": [{"n": 1}]},
                                {"sql": "SELECT id FROM users", "rows": []}]}
    found = failures(problem, [{"id": "endless", "args": [endless], "expect": {"databases": {"app.db": endless_rows}}}],
                     tmp_path / "results")
    assert found == {"endless": [
        ("database app.db", "query 1 fails: interrupted (after 10 s)"),
        ("database app.db", "query 2 fails: interrupted (after 10 s)")]}


def test_a_harness_owned_step_runs_its_own_command_on_what_the_solution_left(problem, tmp_path):
    (problem / "data/drivers").mkdir()
    (problem / "data/drivers/use.py").write_text("import sys, gen\nprint(gen.double(int(sys.argv[1])))\n")
    generate = "open('gen.py', 'w').write('def double(x):\\n    return 2 * x\\n')"
    steps = [{"name": "generate", "args": [generate]},
             {"name": "use", "run": ["python3", "use.py", "21"], "expect": {"stdout": "42\n"}},
             {"name": "use again", "run": ["python3", "{data}/drivers/use.py", "4"],
              "env": {"PYTHONPATH": "{cwd}"}, "expect": {"stdout": "8\n"}}]
    found = failures(problem, [
        {"id": "driven", "files": {"use.py": {"copy": "drivers/use.py"}}, "steps": steps},
        {"id": "not_generated", "files": {"use.py": {"copy": "drivers/use.py"}}, "steps": steps[1:2]},
    ], tmp_path / "results")
    assert found["driven"] == []
    assert [target for target, _ in found["not_generated"]] == ["exit_code", "stdout"]
    linted = scbench("lint", problem)
    assert linted.stdout.count("harness-step") == 1, linted.stdout


def test_a_step_with_both_run_and_args_is_a_compile_error(problem):
    (problem / "cases/checkpoint_1/core.yaml").write_text(yaml.safe_dump({"cases": [
        {"id": "both", "steps": [{"run": ["python3", "-c", "pass"], "args": ["x"]}]}]}))
    done = scbench("compile", problem)
    assert done.returncode == 2
    assert "cases[0].steps[0].args: a step gives both run and args" in done.stderr, done.stderr


CRATE = {"k/Cargo.toml": '[package]\nname = "k"\nversion = "0.1.0"\nedition = "2021"\n',
         "k/src/lib.rs": "pub fn answer() -> i32 { 42 }\n",
         "use.rs": 'fn main() { println!("{}", k::answer()); }\n'}
"""A crate without dependencies and a program using it, as a generator of Rust code leaves them."""
CRATE_STEPS = [{"name": "cargo", "run": ["sh", "-c", "cd k && cargo build --release --offline --quiet"]},
               {"name": "rustc", "run": ["rustc", "--edition", "2021", "--extern", "k=k/target/release/libk.rlib",
                                         "-o", "use", "use.rs"]},
               {"name": "use", "run": ["./use"], "expect": {"stdout": "42\n"}}]
"""Build the crate offline, then the program against it (as dynamic_buffer's cases do), and run it."""


@pytest.mark.skipif(shutil.which("cargo") is None or shutil.which("bwrap") is None, reason="needs cargo and bwrap")
def test_a_harness_owned_step_builds_a_crate_with_rustups_cargo_under_bwrap(problem, tmp_path):
    found = failures(problem, [{"id": "crate", "files": CRATE, "steps": CRATE_STEPS}], tmp_path / "results")
    assert found == {"crate": []}


@needs_level("docker")
def test_the_docker_image_builds_cpp_and_a_crate_offline_in_harness_owned_steps(problem, tmp_path):
    # before image 6 the image had python3 and node only: g++ and cargo were not found
    program = {"use.cpp": '#include <iostream>\n#include <optional>\nint main() { std::optional<int> x = 42; '
                          'std::cout << *x << "\\n"; }\n'}
    cpp = [{"name": "g++", "run": ["g++", "-std=c++17", "-o", "use", "use.cpp"]},
           {"name": "use", "run": ["./use"], "expect": {"stdout": "42\n"}}]
    cases = [{"id": "crate", "files": CRATE, "steps": CRATE_STEPS}, {"id": "cpp", "files": program, "steps": cpp}]
    found = failures(problem, cases, tmp_path / "results", "--sandbox", "docker")
    assert found == {"crate": [], "cpp": []}
