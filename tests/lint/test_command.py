"""The lint command as a real subprocess: exit codes and printed findings."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from tests.conftest import FIXTURES, ROOT

RUN_LINT = "import typer; from scbench.commands.lint import lint; typer.run(lint)"


def lint(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RUN_LINT, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_error_findings_exit_1_and_are_printed_with_counts() -> None:
    done = lint(str(FIXTURES / "leaky"))
    assert done.returncode == 1
    assert "checkpoint_1.md:24: error[import]: from collections import Counter" in done.stdout
    assert done.stdout.rstrip().endswith("23 error(s), 7 warning(s)")


def test_warnings_only_exit_0() -> None:
    done = lint(str(FIXTURES / "kv"))
    assert (done.returncode, done.stdout.splitlines()[-1]) == (0, "0 error(s), 1 warning(s)")


def test_examples_flag_runs_the_examples() -> None:
    done = lint(str(FIXTURES / "lint_examples"), "--examples")
    assert done.returncode == 1
    assert "checkpoint_1.md:44: error[example-disagrees]" in done.stdout


def test_a_problem_that_does_not_compile_exits_2() -> None:
    done = lint(str(FIXTURES / "no_such_problem"))
    assert done.returncode == 2
    assert "no such problem directory" in done.stderr


def test_a_finding_under_a_long_path_stays_on_one_line(tmp_path) -> None:
    deep = tmp_path.joinpath(*["a_directory_name_long_enough_to_pass_any_console_width"] * 3, "kv")
    shutil.copytree(FIXTURES / "kv", deep)
    (deep / "data/docs/unread.txt").write_text("no case reads this\n")
    lines = lint(str(deep)).stdout.splitlines()
    assert f"{os.path.relpath(deep, ROOT)}/data/docs/unread.txt: warning[unused-data]: docs/unread.txt" in lines


def test_a_data_file_copied_inside_a_compressed_input_is_used(tmp_path) -> None:
    root = tmp_path / "kv"
    shutil.copytree(FIXTURES / "kv", root)
    (root / "data/docs/packed.txt").write_text("read compressed\n")
    (root / "data/docs/unread.txt").write_text("no case reads this\n")
    core = root / "cases/checkpoint_1/core.yaml"
    core.write_text(core.read_text().replace(
        "      store.json: {json: {b: \"2\", a: \"1\"}}",
        "      store.json: {json: {b: \"2\", a: \"1\"}}\n      packed.txt.bz2: {bz2: {gzip: {copy: docs/packed.txt}}}"))
    unused = [line for line in lint(str(root)).stdout.splitlines() if "unused-data" in line]
    assert [line.rsplit(": ", 1)[1] for line in unused] == ["docs/unread.txt"]
