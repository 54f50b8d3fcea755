"""Set-ups of one trust domain share a home with their toolchains' caches (issue 33: a changed Go solution
rebuilds on the build cache of the one before); set-ups of no domain get a fresh home each."""

import json
import os
import shutil
from pathlib import Path

from conftest import FIXTURES, scbench

MAIN = 'package main\n\nimport "os"\n\nfunc main() {\n\t%s\n}\n'
BODY = ('if len(os.Args) < 2 {\n\t\tos.Stderr.WriteString("usage: greet NAME [--shout]\\n")\n\t\tos.Exit(2)\n\t}\n'
        '\tif len(os.Args) > 2 {\n\t\tos.Stdout.WriteString("HELLO, ADA\\n")\n\t\treturn\n\t}\n'
        '\tos.Stdout.WriteString("hello, " + os.Args[1] + "\\n")')
"""greet's checkpoint 1 with the os package alone (a cold build compiles far less of the standard library)."""


def greet_in_go(root: Path, body: str) -> Path:
    """greet with one reference, in Go, whose ``main`` runs ``body``."""
    shutil.copytree(FIXTURES / "greet", root, ignore=shutil.ignore_patterns("solutions"))
    solution = root / "solutions" / "go" / "checkpoint_1"
    solution.mkdir(parents=True)
    (solution / "go.mod").write_text("module greet\n\ngo 1.21\n")
    (solution / "main.go").write_text(MAIN % body)
    return root


def homes(cache: Path) -> list[str]:
    return sorted(path.name.rsplit("-", 2)[1] for path in (cache / "toolchains").iterdir())


def test_references_share_a_toolchain_home_and_eval_keeps_none(tmp_path):
    env = {**os.environ, "SCBENCH_CACHE": str(tmp_path / "cache")}
    first = greet_in_go(tmp_path / "first", BODY)
    done = scbench("check", first, "--json", env=env)
    assert (done.returncode, json.loads(done.stdout)["problems"]) == (0, [])
    assert homes(tmp_path / "cache") == ["go"]
    home = next((tmp_path / "cache" / "toolchains").iterdir())
    built = {path.name for path in (home / ".cache" / "go-build").iterdir()}
    assert len(built) > 1
    second = greet_in_go(tmp_path / "second", "// changed: a new build of the same module\n\t" + BODY)
    assert scbench("check", second, "--json", env=env).returncode == 0
    assert [path.name for path in (tmp_path / "cache" / "toolchains").iterdir()] == [home.name]
    assert built <= {path.name for path in (home / ".cache" / "go-build").iterdir()}
    assert scbench("eval", FIXTURES / "greet", "-c", 1, "-s", FIXTURES / "greet/solutions/python/checkpoint_1",
                   "--out", tmp_path / "out", env=env).returncode == 0
    assert [path.name for path in (tmp_path / "cache" / "toolchains").iterdir()] == [home.name]
