"""The checked-in JSON Schemas are exactly what the typed model generates."""

import pytest

from scbench.generate_schemas import DOCUMENTS, render
from scbench.paths import SCHEMAS


@pytest.mark.parametrize("stem", sorted(DOCUMENTS))
def test_checked_in_schema_matches_the_model(stem):
    assert (SCHEMAS / f"{stem}.schema.json").read_text() == render(DOCUMENTS[stem]), \
        "schemas drifted: run python -m scbench.generate_schemas"
