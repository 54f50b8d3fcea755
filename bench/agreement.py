"""Agreement with SlopCodeBench: their pytest suites on their reference and on ours, and our cases on
their reference, per shared checkpoint.

    python bench/agreement.py PATH [--problem NAME ...] [--checkpoint N] [--their-track TRACK] [--json]

PATH is a work tree of the public SlopCodeBench repository (for example
``git -C /work/.mirror/SprocketLab+slop-code-bench/repo archive HEAD | tar -x -C /tmp/scb``). For every
problem present both there and in our ``problems/`` (or the ones named), and every checkpoint both have,
it runs their suite of checkpoint N with its regressions, ``tests/test_checkpoint_1.py`` to
``tests/test_checkpoint_N.py`` unless their config sets ``include_prior_tests: false`` for N (as
SlopCodeBench does: the tests copied into a copy of the solution,
``--entrypoint`` and ``--checkpoint`` given, static assets under ``tests/assets``), on their reference
``solutions/checkpoint_N/`` and on our ``solutions/python/checkpoint_N/`` (ours set up with our python
track, theirs with ``--their-track``, default python: ``python3.12`` for references written for Python 3.12
where it is on the PATH), and our cases of checkpoint N with their regressions (as ``scbench eval`` runs them) on their
reference. A test or case of an earlier checkpoint K is named ``checkpoint_K/name``.

Per checkpoint it prints: their tests passed by their reference (the tests it fails are out of scope and
listed), theirs-on-ours (of those), ours-on-theirs (of our cases), and every disagreement by name. A
disagreement named in backticks in the problem's ``NOTES.md`` (``test_x``, ``case_id``, or
``checkpoint_K/name`` for the test or case of checkpoint K only, wherever it runs) is shown as documented,
not as a failure. Their harness's
Python packages (pytest, the problem's ``test_dependencies``) go into a throwaway venv under the scbench
cache. Progress goes to stderr; exit 1 when some disagreement is undocumented or a setup failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from scbench.evaluate.session import Target, evaluate
from scbench.problem.bundle import Bundle
from scbench.problem.diagnostics import ProblemError
from scbench.problem.loader import load
from scbench.run.context import RunContext
from scbench.run.tracks import Prepared, SetupError, prepare
from scbench.run.workdir import mirror
from scbench.sandbox.local import Local

ROOT = Path(__file__).resolve().parent.parent
HARNESS_PACKAGES = ("pytest", "pytest-timeout", "jsonschema", "deepdiff")
"""What SlopCodeBench's pytest runner installs for every problem (its report plugins aside)."""
SUITE_TIMEOUT = 1800.0
"""Seconds one run of one test file may take."""
PYTEST_INI = "[pytest]\ntestpaths = tests\nmarkers =\n    functionality\n    error\n    regression\n"
ROW = "{:<28} {:>3}  {:>13}  {:>11}  {:>11}  {}"
HEADER = ROW.format("problem", "cp", "theirs/theirs", "theirs/ours", "ours/theirs", "verdict")
NOTED = re.compile(r"`([^`\s]+)`")
TEST_FILE = re.compile(r"test_checkpoint_(\d+)\.py")
EARLIER = re.compile(r"checkpoint_\d+/")


@dataclass(frozen=True)
class Theirs:
    """One problem of the SlopCodeBench checkout: its directory and its ``config.yaml``."""

    root: Path
    config: dict

    @classmethod
    def at(cls, root: Path) -> Theirs:
        return cls(root, yaml.safe_load((root / "config.yaml").read_text(encoding="utf-8")))

    def checkpoints(self) -> set[int]:
        return {int(name.removeprefix("checkpoint_")) for name in self.config.get("checkpoints", {})}

    def harness(self) -> Prepared:
        """A venv with pytest and the problem's test dependencies, set up once per package list."""
        packages = [*HARNESS_PACKAGES, *self.config.get("test_dependencies", [])]
        with tempfile.TemporaryDirectory(prefix="agreement-harness-") as scratch:
            (Path(scratch) / "requirements.txt").write_text("\n".join(packages) + "\n")
            (Path(scratch) / "run_pytest.py").write_text("import pytest\n\nraise SystemExit(pytest.main())\n")
            return prepare(Path(scratch), "python", "run_pytest")

    def stage(self, number: int, workspace: Path) -> dict[str, str]:
        """Copy the tests of checkpoints 1 to ``number`` (only ``number``'s when its config says
        ``include_prior_tests: false``, as SlopCodeBench does), with conftest, helpers and data, and the static
        assets into ``workspace/tests`` (replacing a solution's own tests dir), write its pytest.ini; returns
        the asset environment variables."""
        tests = self.root / "tests"
        first = 1 if self.config["checkpoints"][f"checkpoint_{number}"].get("include_prior_tests", True) else number

        def unwanted(name: str) -> bool:
            matched = TEST_FILE.fullmatch(name)
            return bool(matched) and int(matched[1]) not in range(first, number + 1)

        def ignored(directory: str, names: list[str]) -> list[str]:
            top_level = Path(directory) == tests
            return [n for n in names if n == "__pycache__" or (top_level and unwanted(n))]

        if (workspace / "tests").exists():
            shutil.rmtree(workspace / "tests")
        shutil.copytree(tests, workspace / "tests", ignore=ignored)
        (workspace / "pytest.ini").write_text(PYTEST_INI)
        env = {}
        for name, asset in (self.config.get("static_assets") or {}).items():
            source, target = self.root / asset["path"], workspace / "tests" / "assets" / name
            (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
            env["SCBENCH_ASSETS_DIR"] = "tests/assets"
            env[f"SCBENCH_ASSET_{name.upper()}"] = f"tests/assets/{name}"
        return env


def junit_outcomes(report: Path, number: int) -> dict[str, bool]:
    """Test name -> passed, from a pytest JUnit XML report of checkpoint ``number``'s run (a skipped test
    did not pass); a test of an earlier checkpoint K's file (classname ``tests.test_checkpoint_K...``) is
    named ``checkpoint_K/name``."""
    def named(case: ElementTree.Element) -> str:
        origin = re.search(r"test_checkpoint_(\d+)", case.get("classname", ""))
        earlier = origin and int(origin[1]) != number
        return f"checkpoint_{origin[1]}/{case.get('name')}" if earlier else case.get("name")

    return {named(case): not any(child.tag in ("failure", "error", "skipped") for child in case)
            for case in ElementTree.parse(report).getroot().iter("testcase")}


def run_their_suite(theirs: Theirs, number: int, solution: Prepared, harness: Prepared,
                    plugin: Path | None = None) -> dict[str, bool]:
    """Their suite of checkpoint ``number`` with its regressions against a prepared solution: test name
    (``junit_outcomes``) -> passed.
    ``plugin`` is a pytest plugin module loaded as well (``-p``). Raises ``SetupError`` when
    pytest wrote no report (a crash, a collection error)."""
    with tempfile.TemporaryDirectory(prefix="agreement-") as scratch:
        workspace = mirror(solution.directory, Path(scratch) / "workspace")
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **theirs.stage(number, workspace),
               **({"PYTHONPATH": str(plugin.parent)} if plugin else {})}
        entry = RunContext(solution.entry, Path(scratch), solution=solution.directory,
                           sandbox=Local()).entry_in(workspace)
        report = Path(scratch) / "junit.xml"
        argv = [*harness.entry, "-p", "no:cacheprovider", *(["-p", plugin.stem] if plugin else []), "-q",
                f"--junitxml={report}",
                f"--entrypoint={shlex.join(entry)}", f"--checkpoint=checkpoint_{number}", "tests"]
        done = subprocess.run(argv, cwd=workspace, env=env, capture_output=True, text=True, timeout=SUITE_TIMEOUT)
        if not report.exists():
            raise SetupError(f"pytest wrote no report (exit {done.returncode}): {done.stdout[-1500:]}"
                             f"{done.stderr[-500:]}")
        return junit_outcomes(report, number)


def case_outcomes(bundle: Bundle, number: int, solution: Path, track: str) -> dict[str, bool]:
    """Our cases of checkpoint ``number`` with their regressions on a solution of a python ``track``: case id (a
    regression case as ``checkpoint_K/id``, as in our JUnit) -> passed."""
    return {f"{case.checkpoint}/{case.id}" if case.category == "regression" else case.id: case.passed
            for case in evaluate(bundle, number, Target(solution, track)).cases}


def documented_names(problem: Path) -> set[str]:
    """Names written in backticks in the problem's ``NOTES.md`` (empty without one)."""
    notes = problem / "NOTES.md"
    return set(NOTED.findall(notes.read_text(encoding="utf-8"))) if notes.exists() else set()


@dataclass
class Agreement:
    """One shared checkpoint: test or case name -> passed, for each of the three runs."""

    problem: str
    number: int
    theirs_on_theirs: dict[str, bool] = field(default_factory=dict)
    theirs_on_ours: dict[str, bool] = field(default_factory=dict)
    ours_on_theirs: dict[str, bool] = field(default_factory=dict)
    notes: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)

    def documented(self, name: str) -> bool:
        """Whether ``NOTES.md`` names this test or case, bare or as ``checkpoint_K/name`` of its checkpoint K."""
        qualified = name if EARLIER.match(name) else f"checkpoint_{self.number}/{name}"
        return bool({qualified, qualified.split("/", 1)[1]} & self.notes)

    @property
    def in_scope(self) -> list[str]:
        """Their tests that their reference passes."""
        return [name for name, passed in self.theirs_on_theirs.items() if passed]

    def failures(self) -> dict[str, list[str]]:
        """Disagreements by run: their tests (passed by their reference) failing on ours, our cases
        failing on theirs."""
        return {"theirs-on-ours": [name for name in self.in_scope if not self.theirs_on_ours.get(name, False)],
                "ours-on-theirs": [name for name, passed in self.ours_on_theirs.items() if not passed]}

    @property
    def ok(self) -> bool:
        return not self.errors and all(self.documented(name) for names in self.failures().values() for name in names)

    def to_dict(self) -> dict:
        failures = self.failures()
        return {"problem": self.problem, "checkpoint": self.number, "ok": self.ok,
                "their_tests": len(self.theirs_on_theirs), "passed_by_their_reference": len(self.in_scope),
                "their_reference_fails": [n for n, passed in self.theirs_on_theirs.items() if not passed],
                "theirs_on_ours": len(self.in_scope) - len(failures["theirs-on-ours"]),
                "our_cases": len(self.ours_on_theirs),
                "ours_on_theirs": len(self.ours_on_theirs) - len(failures["ours-on-theirs"]),
                "disagreements": {run: [n for n in names if not self.documented(n)] for run, names in failures.items()},
                "documented": {run: [n for n in names if self.documented(n)] for run, names in failures.items()},
                "errors": self.errors}


def _attempt(agreement: Agreement, what: str, run) -> dict[str, bool]:
    print(f"{agreement.problem} checkpoint_{agreement.number}: {what}", file=sys.stderr, flush=True)
    try:
        return run()
    except SetupError as error:
        agreement.errors.append(f"{what}: {error}")
        return {}


def compare(ours: Path, theirs: Theirs, number: int, their_track: str = "python") -> Agreement:
    """The three runs of one shared checkpoint, their reference set up with ``their_track``."""
    agreement = Agreement(ours.name, number, notes=documented_names(ours))
    entry_file = theirs.config["entry_file"]
    harness = theirs.harness()
    their_reference = theirs.root / "solutions" / f"checkpoint_{number}"
    our_reference = ours / "solutions" / "python" / f"checkpoint_{number}"
    agreement.theirs_on_theirs = _attempt(agreement, "their suite on their reference", lambda: run_their_suite(
        theirs, number, prepare(their_reference, their_track, entry_file), harness))
    agreement.theirs_on_ours = _attempt(agreement, "their suite on our reference", lambda: run_their_suite(
        theirs, number, prepare(our_reference, "python", entry_file), harness))
    agreement.ours_on_theirs = _attempt(agreement, "our cases on their reference",
                                        lambda: case_outcomes(load(ours), number, their_reference, their_track))
    return agreement


def render(agreement: Agreement) -> str:
    """One row of the table, then one indented line per list of names."""
    found = agreement.to_dict()
    counts = (f"{found['passed_by_their_reference']}/{found['their_tests']}",
              f"{found['theirs_on_ours']}/{found['passed_by_their_reference']}",
              f"{found['ours_on_theirs']}/{found['our_cases']}")
    lines = [ROW.format(found["problem"], found["checkpoint"], *counts, "ok" if found["ok"] else "DISAGREE")]
    listed = {"their reference fails (out of scope)": found["their_reference_fails"],
              **{f"{run} disagrees": names for run, names in found["disagreements"].items()},
              **{f"{run} documented in NOTES.md": names for run, names in found["documented"].items()},
              "error": found["errors"]}
    lines += [f"    {label}: {', '.join(names)}" for label, names in listed.items() if names]
    return "\n".join(lines)




def shared(checkout: Path, names: list[str], number: int | None) -> list[tuple[Path, Theirs, int]]:
    """(our problem dir, their problem, checkpoint) for every problem and checkpoint both have."""
    ours = sorted(p for p in (ROOT / "problems").iterdir() if (p / "config.yaml").exists())
    pairs = [(p, Theirs.at(checkout / "problems" / p.name)) for p in ours
             if (checkout / "problems" / p.name / "config.yaml").exists() and (not names or p.name in names)]
    missing = set(names) - {p.name for p, _ in pairs}
    if missing:
        sys.exit(f"not a problem of both scbench and {checkout}: {', '.join(sorted(missing))}")
    return [(p, theirs, n) for p, theirs in pairs
            for n in sorted(theirs.checkpoints() & {cp.config.order for cp in load(p).checkpoints})
            if number in (None, n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a work tree of the SlopCodeBench repository")
    parser.add_argument("--problem", action="append", default=[], help="only this problem (repeatable)")
    parser.add_argument("--checkpoint", type=int, help="only checkpoint N")
    parser.add_argument("--their-track", default="python",
                        help="the track their references run on (python3.12 for references needing it)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    args = parser.parse_args()
    try:
        found = [compare(ours, theirs, n, args.their_track)
                 for ours, theirs, n in shared(args.checkout.resolve(), args.problem, args.checkpoint)]
    except ProblemError as error:
        sys.exit(f"our problem does not compile:\n{error}")
    if args.json:
        print(json.dumps([agreement.to_dict() for agreement in found], indent=2))
    else:
        print("\n".join([HEADER, *map(render, found)]))
    sys.exit(0 if all(agreement.ok for agreement in found) else 1)


if __name__ == "__main__":
    main()
