"""Generate the checked-in JSON Schemas in ``schemas/`` from the typed model.

``python -m scbench.problem.schemas`` rewrites them; ``tests/test_schemas.py`` fails when the
checked-in files drift from the models.
"""

import importlib
import json

from pydantic import BaseModel

from scbench.paths import SCHEMAS

DOCUMENTS: dict[str, str] = {
    "config": "scbench.problem.model:ProblemConfig",
    "case-file": "scbench.problem.model:CaseFile",
    "results": "scbench.results:RunResults",
    "batch-plan": "scbench.batch.plan:Plan",
    "batch-summary": "scbench.batch.summary:BatchSummary",
}
"""Schema file stem -> ``module:model``: the author-facing documents, ``results.json``, batch
plans and their ``summary.json`` (named, not imported, so that ``problem`` does not import the packages above it)."""


def model_of(stem: str) -> type[BaseModel]:
    """The model of schema ``stem`` (a key of :data:`DOCUMENTS`), imported."""
    module, name = DOCUMENTS[stem].split(":")
    return getattr(importlib.import_module(module), name)


def schema_of(model: type[BaseModel]) -> dict:
    """The JSON Schema (draft 2020-12) of ``model``, keys by alias, with ``$schema`` set."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **model.model_json_schema(by_alias=True)}


def render(model: type[BaseModel]) -> str:
    """The checked-in text of ``model``'s schema: sorted keys, two-space indent, final newline."""
    return json.dumps(schema_of(model), indent=2, sort_keys=True) + "\n"


def write_all() -> list[str]:
    """Rewrite every ``schemas/<stem>.schema.json``; returns the file names written."""
    SCHEMAS.mkdir(exist_ok=True)
    for stem in DOCUMENTS:
        (SCHEMAS / f"{stem}.schema.json").write_text(render(model_of(stem)))
    return sorted(f"{stem}.schema.json" for stem in DOCUMENTS)


if __name__ == "__main__":
    print("\n".join(write_all()))
