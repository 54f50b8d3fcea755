"""The command line starts at typer's own speed: importing it loads none of the library's heavy
dependencies (they are imported inside command bodies). Timings are in bench/startup.py."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HEAVY = ("pydantic", "httpx", "deepdiff", "rich", "jsonschema", "yaml", "jinja2", "radon", "tree_sitter",
         "ast_grep_py", "ruamel", "ray", "docker")


def test_importing_the_command_line_loads_no_heavy_dependency():
    code = ("import sys, scbench.cli; "
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_loading_a_compiled_problem_leaves_the_compiler_unloaded():
    """A problem read back from the cache of compiled problems pays for neither the compiler (jsonschema) nor
    jsonpath's lexer (about a hundred regular expressions): every eval and check loads one, and they were a
    seventh of an eval's fixed CPU time."""
    code = ("import sys; from pathlib import Path; from scbench.problem.loader import load; "
            "load(Path('problems/code_search')); "
            "print(sorted({m for m in sys.modules} & {'jsonschema', 'jsonpath', 'scbench.problem.compiler'}))")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
            for _ in range(2)]  # the first may compile it; the second reads it back
    assert runs[1].stdout.strip() == "[]"


def test_command_annotations_are_objects_that_typer_need_not_evaluate():
    """A command module with ``from __future__ import annotations`` makes typer ``eval`` every parameter's
    annotation string twice at each start (a third of ``scbench --help``'s own time)."""
    import typer.main

    from scbench.cli import app

    def callbacks(group):
        for command in group.commands.values():
            yield from callbacks(command) if hasattr(command, "commands") else [command.callback]

    stringly = sorted(f"{callback.__module__}.{callback.__name__}({name})"
                      for callback in callbacks(typer.main.get_command(app))
                      for name, annotation in getattr(callback, "__wrapped__", callback).__annotations__.items()
                      if isinstance(annotation, str))
    assert stringly == []


def test_evaluating_loads_what_a_suite_uses_only():
    """``scbench eval`` pays for the HTTP client, DeepDiff (and numpy, which it imports) and jsonschema only
    when a suite has HTTP cases, two outputs differ or an expectation has a schema."""
    code = ("import sys, scbench.evaluate.session; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'httpx', 'deepdiff', 'numpy', 'jsonschema'}))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
