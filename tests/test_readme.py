"""The README's first lines are the front door: its commands, and CI runs the test command."""

import re

import yaml

from conftest import ROOT, scbench


def test_readme_gives_the_front_door_commands_and_ci_runs_the_test_command():
    head = (ROOT / "README.md").read_text().split("\n\n")[1].splitlines()
    commands = [line.strip() for line in head]
    assert any(command.endswith("scbench check problems/code_search") for command in commands)
    tests = [command for command in commands if re.search(r"python -m pytest", command)]
    assert len(tests) == 1 and "ruff check . && .venv/bin/python -m pytest -q" in tests[0]
    assert "grep -m1 -E '^    .*python -m pytest' README.md" in (ROOT / ".ci/run").read_text()
    loops = [command for command in commands if "scbench run problems/" in command]
    assert len(loops) == 1 and "--agent replay" in loops[0] and "&& .venv/bin/scbench report " in loops[0]


HELP_OPTION = re.compile(r"^  (?:(-\w), )?(--[\w-]+)", re.M)
"""An option line of a command's ``--help``: its short form, if any, and its long form."""


def _options(words: list[str]) -> list[tuple[str, str]]:
    """``(short, long)`` of every option of ``scbench WORDS --help`` but ``--help``."""
    text = scbench(*words, "--help").stdout
    return [(short, long) for short, long in HELP_OPTION.findall(text.partition("\nOptions:")[2]) if long != "--help"]


def _commands(usage: list[str]) -> list[list[str]]:
    """The commands a README usage names: ``cache info\\|clean`` is two; a group's first word alone is none."""
    group = "\nCommands:" in scbench(usage[0], "--help").stdout
    return [[usage[0], sub] for sub in usage[1].split("\\|")] if group else [usage[:1]]


def test_the_readme_command_table_shows_every_option_of_every_command():
    # before: check's -j, build-image's --suite and --mirror and eight options of run were missing
    table = (ROOT / "README.md").read_text().split("## Commands")[1].split("\n\n")[1].splitlines()[2:]
    usages = [usage.split() for row in table for usage in re.findall(r"`scbench ([a-z][^`]*)`", row.split(" | ")[0])]
    compared = {}
    for usage in usages:
        written = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", " ".join(usage[1:])))
        for command in _commands(usage):
            options = _options(command)
            compared[" ".join(command)] = ([long for short, long in options if not {short, long} & written],
                                           sorted(written - {form for option in options for form in option}))
    assert len(compared) == 17
    assert {name: gaps for name, gaps in compared.items() if gaps != ([], [])} == {}


def test_the_readme_lists_every_shipped_problem_with_its_checkpoint_count():
    # before: the table was kept by hand and nothing noticed a problem missing from it
    rows = re.findall(r"^\| `problems/(\w+)` \| [^|]+ \| (\d+) \|", (ROOT / "README.md").read_text(), re.M)
    shipped = {path.name: len(yaml.safe_load((path / "config.yaml").read_text())["checkpoints"])
               for path in (ROOT / "problems").iterdir() if (path / "config.yaml").is_file()}
    assert {name: int(count) for name, count in rows} == shipped
