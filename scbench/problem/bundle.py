"""The compiled bundle: one self-contained, content-hashed file the executor consumes.

A bundle holds the validated, normalized problem (every CLI case as explicit steps, every
output expectation as an :class:`OutputExpectation` with its value inlined, every timeout and
category resolved) plus the problem's ``data/`` files, base64-encoded.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import Field, field_validator

from scbench.paths import CACHE
from scbench.problem.model import Case, CaseGroup, CheckpointConfig, ProblemConfig, Strict
from scbench.problem.normalize import ignoring


class CompiledCase(Strict):
    """A normalized case and where it came from (``source`` relative to the problem dir)."""

    checkpoint: str
    source: str
    line: int = Field(ge=1)
    index: int = Field(ge=0, description="position in its file's cases list")
    case: Case
    group: str | None = Field(None, description="the source of its group's case file, a key of its checkpoint's "
                              "groups; None for a case that runs alone")
    variants: dict[str, Case] = Field(
        default_factory=dict, description="checkpoint_N -> the case as it runs as a regression from checkpoint N "
        "on (its own regression variants and the later checkpoints' regression_args applied), in checkpoint order")

    def at(self, number: int) -> Case:
        """The case as it runs at checkpoint ``number``: the last variant from a checkpoint up to it, else its own."""
        return [self.case, *(case for name, case in self.variants.items() if int(name.split("_")[1]) <= number)][-1]


class CompiledCheckpoint(Strict):
    """A checkpoint with its spec text and its own (non-regression) cases."""

    name: str
    config: CheckpointConfig
    spec: str
    cases: list[CompiledCase]
    groups: dict[str, CaseGroup] = Field(default_factory=dict, description="case file source -> its group, compiled")


class Bundle(Strict):
    """A compiled problem. ``data`` maps a path under ``data/`` to its base64 content."""

    format: Literal[1] = 1
    config: ProblemConfig
    checkpoints: list[CompiledCheckpoint]
    data: dict[str, str] = Field(default_factory=dict)

    @field_validator("data")
    @classmethod
    def _data_stays_inside(cls, data: dict[str, str]) -> dict[str, str]:
        outside = [name for name in data if PurePosixPath(name).is_absolute() or ".." in PurePosixPath(name).parts]
        if outside:
            raise ValueError(f"data paths must stay inside data/: {', '.join(outside)}")
        return data

    @property
    def digest(self) -> str:
        """SHA-256 (hex) of the canonical JSON serialization: the bundle's identity."""
        return hashlib.sha256(self.model_dump_json(by_alias=True).encode()).hexdigest()

    def checkpoint(self, number: int) -> CompiledCheckpoint:
        """Checkpoint ``checkpoint_<number>``; raises ``KeyError`` naming the known ones."""
        for checkpoint in self.checkpoints:
            if checkpoint.config.order == number:
                return checkpoint
        raise KeyError(f"no checkpoint {number}; this problem has 1..{len(self.checkpoints)}")

    def suite(self, number: int) -> list[tuple[CompiledCase, str]]:
        """The cases graded at checkpoint ``number`` as ``(case, category)`` pairs: its own
        cases with their category, then (if ``include_prior_tests``) every earlier
        checkpoint's cases as ``regression`` (SlopCodeBench paper section 2.4), the structured
        outputs of a case of checkpoint ``j`` also ignoring the ``regression_ignore`` paths of
        every checkpoint after ``j`` up to this one (a field added at checkpoint 3 is still there
        at checkpoint 4), each in its form at this checkpoint (:meth:`CompiledCase.at`), without the
        cases retired by ``regression_retire`` up to this one."""
        current = self.checkpoint(number)
        own = [(case, case.case.category) for case in current.cases]
        if not current.config.include_prior_tests:
            return own
        retired = self.retired_by(number)
        earlier = [case.model_copy(update={"case": ignoring(case.at(number),
                                                            self.ignored_after(cp.config.order, number))})
                   for cp in self.checkpoints if cp.config.order < number for case in cp.cases
                   if f"{cp.name}/{case.case.id}" not in retired]
        return own + [(case, "regression") for case in earlier]

    def retired_by(self, number: int) -> set[str]:
        """The ``regression_retire`` entries (``checkpoint_N/case_id``) of the checkpoints up to ``number``:
        a case a checkpoint retires stays retired at every later one."""
        return {name for cp in self.checkpoints if cp.config.order <= number for name in cp.config.regression_retire}

    def ignored_after(self, order: int, number: int) -> list[str]:
        """The ``regression_ignore`` paths of the checkpoints after ``order`` up to ``number``, in order."""
        return [path for cp in sorted(self.checkpoints, key=lambda cp: cp.config.order)
                if order < cp.config.order <= number for path in cp.config.regression_ignore]

    def write(self, directory: Path) -> Path:
        """Write ``<name>-<digest[:12]>.scb.json`` into ``directory``; returns its path."""
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.config.name}-{self.digest[:12]}.scb.json"
        path.write_text(self.model_dump_json(by_alias=True, indent=1))
        return path

    def data_dir(self) -> Path:
        """The bundle's data files, materialized once per digest under the cache; returns the dir."""
        target = CACHE / "bundles" / self.digest / "data"
        if target.exists():
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=target.parent))
        for name, content in self.data.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_bytes(base64.b64decode(content))
        staging.chmod(0o755)  # mkdtemp's 0700 would hide the data from runs, which are another user
        try:
            staging.rename(target)
        except OSError as error:
            if error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            shutil.rmtree(staging)  # another thread or process materialized the same digest first
        return target
