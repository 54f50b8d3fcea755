"""Generate the checked-in JSON Schemas in ``scbench/schemas/`` from the typed models of every document.

``python -m scbench.generate_schemas`` rewrites them; ``tests/test_schemas.py`` fails when the
checked-in files drift from the models.
"""

import json

from pydantic import BaseModel

from scbench.batch.plan import Plan
from scbench.batch.summary import BatchSummary
from scbench.history.model import HistoryResult
from scbench.history.panel import Panel, PanelResult
from scbench.paths import SCHEMAS
from scbench.problem.model import CaseFile, ProblemConfig
from scbench.report.model import Report
from scbench.results import RunResults
from scbench.rundir import RunRecord, Usage

DOCUMENTS: dict[str, type[BaseModel]] = {
    "config": ProblemConfig,
    "case-file": CaseFile,
    "results": RunResults,
    "run": RunRecord,
    "usage": Usage,
    "report": Report,
    "batch-plan": Plan,
    "batch-summary": BatchSummary,
    "history": HistoryResult,
    "panel": Panel,
    "calibration": PanelResult,
}
"""Schema file stem -> model: the author-facing documents, ``results.json``, a run directory's
``run.json`` and ``usage.json``, ``scbench report --json``, and ``scbench batch``'s plan and
``summary.json``, ``scbench history``'s result,
``scbench calibrate``'s panel and its result."""


def schema_of(model: type[BaseModel]) -> dict:
    """The JSON Schema (draft 2020-12) of ``model``, keys by alias, with ``$schema`` set."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **model.model_json_schema(by_alias=True)}


def render(model: type[BaseModel]) -> str:
    """The checked-in text of ``model``'s schema: sorted keys, two-space indent, final newline."""
    return json.dumps(schema_of(model), indent=2, sort_keys=True) + "\n"


def write_all() -> list[str]:
    """Rewrite every ``schemas/<stem>.schema.json``; returns the file names written."""
    SCHEMAS.mkdir(exist_ok=True)
    for stem, model in DOCUMENTS.items():
        (SCHEMAS / f"{stem}.schema.json").write_text(render(model))
    return sorted(f"{stem}.schema.json" for stem in DOCUMENTS)


if __name__ == "__main__":
    print("\n".join(write_all()))
