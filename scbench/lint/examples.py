"""Spec examples against the reference solution and the cases.

An *example* is a ``$ <entry_command> ARGS`` line inside a fenced block. Its expected standard
output is either the lines that follow it in the same block (a transcript: what is shown is the
whole output, possibly empty) or, when the command is alone in its block, the next block if that
one is labelled ``Output:`` (otherwise the output is not checked). Several ``$`` lines in one
block are steps of one example, run in order in the same working directory.

Its input files are the blocks labelled ```name.ext`:`` since the previous example; a block
labelled ``Tree:`` places them (a label ``app.py`` under ``repo/`` in the tree is written to
``repo/app.py``). HTML comments just above the command block add directives:
``<!-- example-files: data/trees/basic -> repo -->`` copies from the problem's ``data/``, and
``<!-- example-exit: 1 -->`` (or ``nonzero``) sets the expected exit status (default 0).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scbench.evaluate.session import Evaluation, Target, run_case
from scbench.lint.finding import Finding
from scbench.lint.markdown import Block, parse
from scbench.lint.vocabulary import FILE_LABEL
from scbench.problem.bundle import Bundle, CompiledCase, CompiledCheckpoint
from scbench.problem.model import CliCase, CliExpectation, CliStep, CopyFile, OutputExpectation
from scbench.run.context import RunContext
from scbench.run.tracks import tracks

COMMAND = re.compile(r"^\s*\$\s*<entry_command>\s?(.*)$")
DIRECTIVE = re.compile(r"^example-(files|exit):\s*(.+)$")
COPY = re.compile(r"^(?:data/)?(\S+)\s*->\s*(\S+)$")
ENTRY_PLACEHOLDER = "<entry_command>"


def entry_command(track: str, entry_file: str) -> str:
    """The entry command a spec's ``<entry_command>`` stands for on ``track`` (``.venv/bin/python kv.py``).
    Raises ``KeyError`` for an unknown track."""
    return tracks()[track].entry.format(python="python", entry_file=entry_file)


def render_spec(text: str, track: str, entry_file: str) -> str:
    """``text`` with every ``<entry_command>`` replaced by ``track``'s entry command."""
    return text.replace(ENTRY_PLACEHOLDER, entry_command(track, entry_file))


@dataclass(frozen=True)
class Step:
    """One ``$`` command of an example: its arguments, its expected stdout (``None``: not shown)."""

    args: list[str]
    stdout: OutputExpectation | None


@dataclass
class Example:
    """One example: where it starts, its steps, its input files, copies from data/ and exit status."""

    line: int
    steps: list[Step] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    copies: dict[str, str] = field(default_factory=dict)
    exit_code: int | str = 0

    @property
    def command(self) -> str:
        """The example's commands as the spec writes them, joined with `` ; ``."""
        return " ; ".join(f"$ {ENTRY_PLACEHOLDER} {shlex.join(step.args)}" for step in self.steps)


def _expectation(lines: list[str]) -> OutputExpectation:
    """Lines shown as output, read as JSON, else JSON Lines, else exact text (empty when none is shown)."""
    text = "\n".join(lines).strip()
    for fmt, parse_text in (("json", json.loads), ("jsonl", lambda t: [json.loads(x) for x in t.splitlines() if x])):
        if not text:
            break
        try:
            return OutputExpectation(format=fmt, value=parse_text(text))
        except ValueError:
            continue
    return OutputExpectation(value="\n".join(lines) + "\n" if text else "")


def _transcript(block: Block) -> list[tuple[str, list[str]]]:
    """``(args text, output lines)`` per ``$`` line of ``block``."""
    commands: list[tuple[str, list[str]]] = []
    for line in block.body:
        command = COMMAND.match(line)
        if command:
            commands.append((command.group(1), []))
        elif commands:
            commands[-1][1].append(line)
    return commands


def _tree(block: Block) -> list[str]:
    """File paths of a ``Tree:`` block (indented names, directories ending with ``/``)."""
    paths, stack = [], []
    for line in filter(str.strip, block.body):
        depth = len(line) - len(line.lstrip())
        stack = [(d, name) for d, name in stack if d < depth]
        name = line.strip()
        if name.endswith("/"):
            stack.append((depth, name))
        else:
            paths.append("".join(part for _, part in stack) + name)
    return paths


class _Reader:
    """Walks a spec's blocks in order, gathering files until a command block closes an example."""

    def __init__(self) -> None:
        self.examples: list[Example] = []
        self.pending = Example(0)
        self.tree: list[str] = []
        self.awaiting_output = False

    def place(self, label: str) -> str:
        name = label.strip("`: ")
        return next((path for path in self.tree if path == name or path.endswith("/" + name)), name)

    def directives(self, block: Block) -> None:
        for match in filter(None, map(DIRECTIVE.match, block.directives)):
            if match.group(1) == "exit":
                value = match.group(2).strip()
                self.pending.exit_code = int(value) if value.lstrip("-").isdigit() else value
            else:
                source, target = COPY.match(match.group(2).strip()).groups()
                self.pending.copies[target] = source

    def read(self, block: Block) -> None:
        if self.awaiting_output and block.label.lower() == "output:":
            self.examples[-1].steps[-1] = Step(self.examples[-1].steps[-1].args, _expectation(block.body))
            self.awaiting_output = False
            return
        self.awaiting_output = False
        self.directives(block)
        if block.label.lower() == "tree:":
            self.tree = _tree(block)
        elif FILE_LABEL.match(block.label):
            self.pending.files[self.place(block.label)] = block.text + "\n"
        elif commands := _transcript(block):
            self.close(block, commands)

    def close(self, block: Block, commands: list[tuple[str, list[str]]]) -> None:
        single = len(commands) == 1 and not any(map(str.strip, commands[0][1]))
        self.pending.line = block.line + 1
        self.pending.steps = [Step(shlex.split(args), None if single else _expectation(output))
                              for args, output in commands]
        self.examples.append(self.pending)
        self.awaiting_output, self.pending, self.tree = single, Example(0), []


def parse_examples(spec: str) -> list[Example]:
    """Every example of a spec's markdown text, in order (see the module docstring)."""
    reader = _Reader()
    for block in parse(spec).blocks:
        reader.read(block)
    return reader.examples


def example_case(example: Example, checkpoint: str, timeout: float) -> CompiledCase:
    """``example`` as a compiled CLI case of ``checkpoint`` whose steps time out after ``timeout`` seconds."""
    files: dict[str, Any] = {**example.files, **{target: CopyFile.model_validate({"copy": source})
                                                 for target, source in example.copies.items()}}
    steps = [CliStep(args=step.args, timeout=timeout,
                     expect=CliExpectation(exit_code=example.exit_code, stdout=step.stdout))
             for step in example.steps]
    case = CliCase(id=f"example_line_{example.line}", files=files, steps=steps)
    return CompiledCase(checkpoint=checkpoint, source=f"{checkpoint}.md", line=example.line, index=0, case=case)


def _same_output(expected: OutputExpectation | None, step: CliStep) -> bool:
    """Whether a case step expects ``expected`` (its text expectations read the way examples are)."""
    theirs = step.expect.stdout
    if expected is None or theirs is None:
        return expected is None
    if theirs.format == "text" and isinstance(theirs.value, str) and not theirs.regex:
        theirs = _expectation(theirs.value.splitlines())
    return expected.value == theirs.value


def covered(example: Example, checkpoint: CompiledCheckpoint) -> bool:
    """Whether one case of ``checkpoint`` has, for every step of ``example``, a step with the same
    arguments expecting the same standard output (compared as parsed values)."""
    return any(all(any(step.args == theirs.args and _same_output(step.stdout, theirs) for theirs in case.case.steps)
                   for step in example.steps)
               for case in checkpoint.cases if case.case.kind == "cli")


@dataclass(frozen=True)
class _Checked:
    """Where the examples of one checkpoint run: the reference's entry argv and the bundle's data dir."""

    bundle: Bundle
    checkpoint: CompiledCheckpoint
    ctx: RunContext

    def findings(self, example: Example) -> Iterator[Finding]:
        file = f"{self.checkpoint.name}.md"
        case = example_case(example, self.checkpoint.name, self.checkpoint.config.timeout or self.bundle.config.timeout)
        result = run_case(case, "core", self.ctx)
        if not result.passed:
            why = "; ".join(f"{failure.target}: {failure.message}" for failure in result.failures)
            yield Finding(file, example.line, "example-disagrees", "error", example.command,
                          f"the python reference disagrees: {why}", "correct the example (or the reference)")
        if not covered(example, self.checkpoint):
            yield Finding(file, example.line, "example-uncovered", "warning", example.command,
                          "no case runs these arguments expecting this output",
                          "add a case with the example's files, arguments and output")


def check_examples(root: Path, bundle: Bundle, sandbox: str | None = None) -> list[Finding]:
    """Run every CLI example of every spec against the checkpoint's python reference
    (``root/solutions/python/checkpoint_N``, set up as an evaluation sets it up, every process in a started
    sandbox of level ``sandbox``; ``None``: the first available) and check that a case covers it. Returns
    findings sorted by file and line: an error per example the reference disagrees with, a warning per
    example no case covers, and one warning per checkpoint with examples but no python reference to run them
    on. Raises ``SetupError`` when a reference cannot be set up and ``SandboxUnavailable`` for a level this
    machine lacks."""
    findings = []
    for checkpoint in bundle.checkpoints:
        examples = parse_examples(checkpoint.spec)
        reference = root / "solutions" / "python" / checkpoint.name
        if examples and not reference.is_dir():
            findings.append(Finding(f"{checkpoint.name}.md", examples[0].line, "example-unchecked", "warning",
                                    examples[0].command, "the problem has no python reference to run the examples on",
                                    f"add solutions/python/{checkpoint.name}"))
        elif examples:
            target = Target(reference, "python", sandbox=sandbox)
            with Evaluation(bundle, checkpoint.config.order, target, workers=1) as evaluation:
                checked = _Checked(bundle, checkpoint, evaluation.ctx)
                findings += [finding for example in examples for finding in checked.findings(example)]
    return sorted(findings)
