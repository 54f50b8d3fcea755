"""The command line starts at typer's own speed: importing it loads none of the library's heavy
dependencies (they are imported inside command bodies). Timings are in bench/startup.py."""

import subprocess
import sys

HEAVY = ("pydantic", "httpx", "deepdiff", "rich", "jsonschema", "yaml", "jinja2", "radon", "tree_sitter",
         "ast_grep_py", "ruamel", "ray", "docker")


def test_importing_the_command_line_loads_no_heavy_dependency():
    code = ("import sys, scbench.cli; "
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"

