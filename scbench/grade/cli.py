"""Grade a CLI step's observation: start, timeout, exit code, stdout, stderr, files."""

from __future__ import annotations

import signal
from collections.abc import Callable

from scbench.grade.outputs import check_output
from scbench.grade.show import cut_line, visible
from scbench.grade.sqlite import check_database
from scbench.results import Failure
from scbench.run.cli_case import CliObservation
from scbench.run.found import Found

SIGNALS = {sig.value for sig in signal.Signals}

EXIT_RULES: dict[str, Callable[[int], bool]] = {"any": lambda code: True, "nonzero": lambda code: code != 0}


PATH_RULES: dict[str, tuple[str, Callable[[Found | None], bool]]] = {
    "absent": ("must not exist", lambda found: found is None),
    "empty": ("must be an empty directory", lambda found: found is not None and found.kind == "a directory"
              and not found.entries),
}
"""Absence expectation -> what it asks, and whether what is found at the path satisfies it."""


def _tail(data: bytes, lines: int = 15) -> str:
    text = data.decode("utf-8", errors="replace").rstrip("\n").split("\n")
    return "\n".join(visible(cut_line(line)) for line in text[-lines:]) if data else "(empty)"


def _exit_code(obs: CliObservation) -> list[Failure]:
    expected, actual = obs.step.expect.exit_code, obs.result.exit_code
    ok = EXIT_RULES[expected](actual) if isinstance(expected, str) else actual == expected
    shown = f"{actual} ({signal.Signals(-actual).name})" if actual < 0 and -actual in SIGNALS else str(actual)
    return [] if ok else [Failure(target="exit_code", message=f"expected {expected}, actual {shown}",
                                  diff=f"stderr (last lines):\n{_tail(obs.result.stderr)}")]


def _outputs(obs: CliObservation) -> list[Failure]:
    expect, result = obs.step.expect, obs.result
    checks = [("stdout", expect.stdout, result.stdout), ("stderr", expect.stderr, result.stderr)]
    checks += [(f"file {name}", spec, obs.files[name]) for name, spec in expect.files.items()]
    return [failure for target, spec, data in checks
            if spec is not None and (failure := check_output(target, spec, data))]


def _paths(obs: CliObservation) -> list[Failure]:
    expect = obs.step.expect
    return [Failure(target=f"path {name}", message=f"{wanted}, but {found.describe() if found else 'nothing is there'}")
            for rule, (wanted, holds) in PATH_RULES.items() for name in getattr(expect, rule)
            if not holds(found := obs.paths[name])]


def _databases(obs: CliObservation) -> list[Failure]:
    return [failure for name, spec in obs.step.expect.databases.items()
            for failure in check_database(name, spec, obs.databases[name])]


def grade_cli_step(obs: CliObservation) -> list[Failure]:
    """Every failure of one step; a step that could not start or timed out fails alone."""
    if obs.result is None:
        return [Failure(target="entry", message=obs.error)]
    if obs.result.timed_out:
        return [Failure(target="timeout", message=f"did not finish within {obs.step.timeout:g}s",
                        diff=f"stderr (last lines):\n{_tail(obs.result.stderr)}")]
    failures = _exit_code(obs) + _outputs(obs) + _paths(obs) + _databases(obs)
    truncated = [Failure(target="output", message="output was cut at 8 MiB")] if obs.result.truncated else []
    return failures + truncated if failures else []
