"""The typed model of a batch plan (``schemas/batch-plan.schema.json`` is generated from it).

A plan names the problems, then what to evaluate against them: ``solutions`` (a directory, or
one snapshot directory per checkpoint through ``{checkpoint}`` in its path, with a track or an
entry command, at some checkpoints) and ``runs`` (run directories of ``scbench run``: the
snapshot of each checkpoint the agent completed, evaluated at it with the run's track).
Paths are relative to the plan file::

    problems:
      code_search: problems/code_search
    sandbox: bwrap
    solutions:
      - problem: code_search
        path: problems/code_search/solutions/python/checkpoint_{checkpoint}
        track: python
        checkpoints: [1, 2, 3]
        name: python-reference
    runs:
      - agent-runs/*/code_search
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from scbench.problem.model import CASE_ID, Strict

CHECKPOINT = "{checkpoint}"
"""Placeholder in a solution's ``path`` for the checkpoint number being evaluated."""


class SolutionEntry(Strict):
    """One solution of one problem, evaluated at each of ``checkpoints``."""

    problem: str = Field(description="a name of the plan's problems")
    path: str = Field(description="the solution directory, relative to the plan file; {checkpoint} in it stands "
                                  "for the checkpoint number (one snapshot directory per checkpoint)")
    track: str | None = Field(None, description="language track of scbench/run/tracks.yaml [default: python]")
    entry: str | None = Field(None, description="entry command instead of a track, e.g. 'node main.js'; paths are "
                                                "relative to the solution, {solution} is its directory")
    checkpoints: list[Annotated[int, Field(ge=1)]] | None = Field(
        None, min_length=1, description="checkpoint numbers to evaluate it at [default: every checkpoint]")
    name: str | None = Field(None, pattern=CASE_ID, description="its directory in the results tree, unique per "
                                                                 "problem [default: the last part of path that names "
                                                                 "no checkpoint: neither {checkpoint}, checkpoint_N "
                                                                 "nor snapshot]")


class Plan(Strict):
    """``scbench batch PLAN``: what to evaluate, in one process or on a Ray cluster."""

    problems: dict[str, str] = Field(min_length=1, description="problem name -> problem directory or compiled "
                                                               "NAME-HASH.scb.json, relative to the plan file")
    solutions: list[SolutionEntry] = Field(default_factory=list)
    runs: list[str] = Field(default_factory=list, description="run directories of scbench run, relative to the "
                                                              "plan file (shell-style wildcards allowed): each "
                                                              "checkpoint the agent completed is evaluated on its "
                                                              "snapshot with the run's track")
    sandbox: str | None = Field(None, description="where solutions run: bwrap, docker or local; --sandbox "
                                                  "overrides it [default: the first available]")
