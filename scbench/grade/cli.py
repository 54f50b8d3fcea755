"""Grade a CLI step's observation: start, timeout, exit code, stdout, stderr, files."""

from __future__ import annotations

from collections.abc import Callable

from scbench.grade.outputs import check_output
from scbench.grade.show import cut_lines, visible
from scbench.results import Failure
from scbench.run.cli_case import CliObservation

EXIT_RULES: dict[str, Callable[[int], bool]] = {"any": lambda code: True, "nonzero": lambda code: code != 0}


def _tail(data: bytes, lines: int = 15) -> str:
    text = data.decode("utf-8", errors="replace").rstrip("\n").split("\n")
    return "\n".join(visible(line) for line in cut_lines(text[-lines:], lines)) if data else "(empty)"


def grade_cli_step(obs: CliObservation) -> list[Failure]:
    """Every failure of one step; a step that could not start or timed out fails alone."""
    step, result = obs.step, obs.result
    if result is None:
        return [Failure(target="entry", message=obs.error)]
    if result.timed_out:
        return [Failure(target="timeout", message=f"did not finish within {step.timeout:g}s",
                        diff=f"stderr (last lines):\n{_tail(result.stderr)}")]
    expected = step.expect.exit_code
    ok = EXIT_RULES[expected](result.exit_code) if isinstance(expected, str) else result.exit_code == expected
    failures = [] if ok else [Failure(target="exit_code", message=f"expected {expected}, actual {result.exit_code}",
                                      diff=f"stderr (last lines):\n{_tail(result.stderr)}")]
    streams = {"stdout": (step.expect.stdout, result.stdout), "stderr": (step.expect.stderr, result.stderr)}
    checks = [(name, spec, data) for name, (spec, data) in streams.items() if spec is not None]
    checks += [(f"file {name}", spec, obs.files[name]) for name, spec in step.expect.files.items()]
    failures += [f for target, spec, data in checks if (f := check_output(target, spec, data))]
    if result.truncated and failures:
        failures.append(Failure(target="output", message="output was cut at 8 MiB"))
    return failures
